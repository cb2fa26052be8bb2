//! Tests of the script parser (`parse.rs`).

use super::*;

#[test]
fn parses_the_common_handshake_and_events() {
    let s = parse(
        "--tolerance_usecs=20000\n`../common/defaults.sh`\n// c\n 0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n\
         +0 setsockopt(3, SOL_SOCKET, SO_SNDBUF, [200000], 4) = 0\n\
         +.1 < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>\n\
         +0 > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 8>\n\
         +.3~+.303 > [ect0] P. 1:10001(10000) ack 1 <...>\n\
         +0 < . 1:1(0) ack 1 win 320 <sack 1001:2001 3001:4001,nop,nop>\n\
         +0 %{ assert tcpi_snd_cwnd == 10, tcpi_snd_cwnd }%\n\
         +0...0.010 connect(3, ..., ...) = -1 EINPROGRESS (Operation now in progress)\n",
    )
    .unwrap();
    assert_eq!(
        s.options,
        vec![("tolerance_usecs".into(), Some("20000".into()))]
    );
    assert_eq!(s.events.len(), 9);
    assert_eq!(s.events[0].when, None);
    assert_eq!(s.events[1].line, 4);
    assert_eq!(s.events[3].when, Some(When::Rel(100_000)));
    let Action::Packet(p) = &s.events[3].action else {
        panic!()
    };
    assert_eq!(p.options.as_ref().unwrap()[0], TcpOpt::Mss(1000));
    assert_eq!(p.win, Some(32792));
    assert_eq!(s.events[5].when, Some(When::RelRange(300_000, 303_000)));
    let Action::Packet(p) = &s.events[5].action else {
        panic!()
    };
    assert_eq!(
        (p.ecn, p.len, p.options.is_none()),
        (Some(Ecn::Ect0), 10000, true)
    );
    let Action::Packet(p) = &s.events[6].action else {
        panic!()
    };
    assert_eq!(
        p.options.as_ref().unwrap()[0],
        TcpOpt::Sack(vec![(1001, 2001), (3001, 4001)])
    );
    let Action::Syscall(sc) = &s.events[2].action else {
        panic!()
    };
    assert_eq!(sc.args[3], Arg::List(vec![Arg::Int(200000)]));
    let Action::Syscall(sc) = &s.events[8].action else {
        panic!()
    };
    assert_eq!(
        (sc.ret, sc.end, sc.errno.as_deref()),
        (-1, Some(10_000), Some("EINPROGRESS"))
    );
}

#[test]
fn errors_name_the_line_and_what_was_expected() {
    let e = parse("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 > S. 0:0 ack 1\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.msg.contains("expected '(' in START:END(LEN)"), "{e}");
    let e = parse("+0 < . 1:1(0) ack 1\n").unwrap_err();
    assert!(e.msg.contains("window must be specified"), "{e}");
    let e = parse("0 %{ assert 1\n").unwrap_err();
    assert!(e.msg.contains("}%"), "{e}");
}

#[test]
fn unsupported_features_are_named() {
    let s = parse("0 < S 0:0(0) win 1 <mss 1000,FO abcd>\n+0 < udp (100)\n").unwrap();
    assert_eq!(
        s.events[0].action,
        Action::Unsupported("TCP option 'FO'".into())
    );
    assert!(matches!(&s.events[1].action, Action::Unsupported(f) if f.contains("udp")));
}

/// A brief fuzz: random bytes and mutations of a valid script never panic.
#[test]
fn never_panics_on_garbage() {
    let base = "--tolerance_usecs=1\n`x`\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+.1~+.2 < S. 0:0(0) ack 1 win 3 <mss 1,sack 1:2,TS val 1 ecr 2,nop>\n+0 %{ a = 1 }%\n* > [ce] F. 1:1(0) ack 2 <...>\n";
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let alphabet = b"0123456789+-.~*<>()[]{}%`:,=/ \nSFRP.EWackwinmsTS...";
    for _ in 0..3000 {
        let mut b = base.as_bytes().to_vec();
        for _ in 0..(next() % 8) {
            let i = (next() as usize) % b.len();
            match next() % 3 {
                0 => b[i] = alphabet[(next() as usize) % alphabet.len()],
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, alphabet[(next() as usize) % alphabet.len()]),
            }
        }
        let _ = parse(&String::from_utf8_lossy(&b));
    }
    for _ in 0..500 {
        let n = (next() % 64) as usize;
        let b: Vec<u8> = (0..n)
            .map(|_| alphabet[(next() as usize) % alphabet.len()])
            .collect();
        let _ = parse(&String::from_utf8_lossy(&b));
    }
}
