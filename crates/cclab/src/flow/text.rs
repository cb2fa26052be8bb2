//! The texts the Ouroboros prototype prints about flows, byte for byte: the ocbr server's
//! line per interval (`src/tools/ocbr/ocbr_server.c`) and the flow allocator's statistics
//! file (`fa_stat_read` in `src/ipcpd/unicast/fa.c`, 0.18.0, followed by the algorithm's
//! `print_stats`).
//!
//! The seed quotes both with every run of spaces collapsed to one (the page it was taken
//! from collapsed them), so the tests compare our lines, collapsed the same way, with the
//! seed's; uncollapsed, they have the C format's field widths.

use super::{stat_line, CongestionApi, FlowCa};
use std::fmt::Write;

/// ocbr's interval line for flow `fd`: `packets` and `bytes` read in `us` microseconds.
///
/// The prototype prints `"Flow %4d: %9ld packets (%12ld bytes) in %9ld ms => %9.4f pps,
/// %9.4f Mbps\n"`, ms = us / 1000 (integer), pps = packets / us · 10^6, Mbps = 8 · bytes
/// / us. The seed's lines read `bytes)in`: its ocbr was "modified to show stats every
/// 100ms", and that copy printed no space there; we print what the seed shows.
pub fn ocbr_line(fd: u32, packets: u64, bytes: u64, us: u64) -> String {
    let us_f = us as f64;
    format!(
        "Flow {:4}: {:9} packets ({:12} bytes)in {:9} ms => {:9.4} pps, {:9.4} Mbps",
        fd,
        packets,
        bytes,
        us / 1000,
        packets as f64 / us_f * 1e6,
        8.0 * (bytes as f64 / us_f),
    )
}

/// What the flow allocator counts for a flow (`struct fa_flow`, `IPCP_FLOW_STATS`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaCounters {
    pub p_snd: u64,
    pub b_snd: u64,
    pub p_snd_f: u64,
    pub b_snd_f: u64,
    pub p_rcv: u64,
    pub b_rcv: u64,
    pub p_rcv_f: u64,
    pub b_rcv_f: u64,
}

/// The identity of a flow as its file shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaIdentity {
    /// When the flow was established, as `%F %T` (`YYYY-MM-DD HH:MM:SS`).
    pub established: String,
    pub remote_address: u64,
    pub local_eid: u64,
    pub remote_eid: u64,
}

/// The flow allocator's statistics file of one flow end (0.18.0's `fa_stat_read`).
///
/// One deviation, on purpose: 0.18.0 prints `b_rcv_f` for "Receive failed (packets)"
/// (a copy-and-paste slip in the C); we print the packet count.
pub fn fa_stat(id: &FaIdentity, c: &FaCounters, ca: &FlowCa) -> String {
    let mut s = String::with_capacity(1536);
    stat_line(&mut s, "Flow established at", &id.established);
    stat_line(&mut s, "Remote address", id.remote_address);
    stat_line(&mut s, "Local endpoint ID", id.local_eid);
    stat_line(&mut s, "Remote endpoint ID", id.remote_eid);
    stat_line(&mut s, "Sent (packets)", c.p_snd);
    stat_line(&mut s, "Sent (bytes)", c.b_snd);
    stat_line(&mut s, "Send failed (packets)", c.p_snd_f);
    stat_line(&mut s, "Send failed (bytes)", c.b_snd_f);
    stat_line(&mut s, "Received (packets)", c.p_rcv);
    stat_line(&mut s, "Received (bytes)", c.b_rcv);
    stat_line(&mut s, "Receive failed (packets)", c.p_rcv_f);
    stat_line(&mut s, "Receive failed (bytes)", c.b_rcv_f);
    ca.print_stats(&mut s);
    s
}

/// `%F %T` of a time `secs` after 1970-01-01 00:00:00 UTC (the simulated clock's origin).
pub fn date_time(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since the epoch (H. Hinnant's algorithm, proleptic Gregorian).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let mut out = String::with_capacity(19);
    let _ = write!(
        out,
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    );
    out
}

/// The flow-allocator file the seed shows (its spaces collapsed, as it quotes it).
pub const SEED_FA_FILE: &str = "Flow established at: 2020-12-12 09:54:27
Remote address: 99388
Local endpoint ID: 2111124142794211394
Remote endpoint ID: 4329936627666255938
Sent (packets): 1605719
Sent (bytes): 1605719000
Send failed (packets): 0
Send failed (bytes): 0
Received (packets): 0
Received (bytes): 0
Receive failed (packets): 0
Receive failed (bytes): 0
Congestion avoidance algorithm: Multi-bit ECN
Upstream congestion level: 0
Upstream packet counter: 0
Downstream congestion level: 48
Downstream packet counter: 0
Congestion window size (ns): 65536
Packets in this window: 7
Bytes in this window: 7000
Max bytes in this window: 51349
Current congestion regime: Multiplicative dec";

/// A line with every run of whitespace made one space, as the seed quotes them.
pub fn collapse_spaces(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::mbecn::{MbEcn, Mode};

    /// The seed's first and eighth lines from their own counts. Each line's pps and Mbps
    /// both fit one whole number of microseconds, which confirms the formulas: 998
    /// packets of 1000 B in 101,003 µs give 9880.8946 pps and 79.0472 Mbps (101,002 or
    /// 101,004 µs would change both); 542 in 101,184 µs give 5356.5781 and 42.8526.
    #[test]
    fn ocbr_lines_are_the_seeds_byte_for_byte() {
        let l = ocbr_line(64, 998, 998_000, 101_003);
        assert_eq!(
            collapse_spaces(&l),
            "Flow 64: 998 packets ( 998000 bytes)in 101 ms => 9880.8946 pps, 79.0472 Mbps"
        );
        // Uncollapsed: the C widths (%4d, %9ld, %12ld, %9ld, %9.4f, %9.4f).
        assert_eq!(
            l,
            "Flow   64:       998 packets (      998000 bytes)in       101 ms => \
             9880.8946 pps,   79.0472 Mbps"
        );
        let l = ocbr_line(65, 542, 542_000, 101_184);
        assert_eq!(
            collapse_spaces(&l),
            "Flow 65: 542 packets ( 542000 bytes)in 101 ms => 5356.5781 pps, 42.8526 Mbps"
        );
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(date_time(0), "1970-01-01 00:00:00");
        // 2020-12-12 09:54:27 UTC, the seed's flow, is 1,607,766,867 s after the epoch.
        assert_eq!(date_time(1_607_766_867), "2020-12-12 09:54:27");
        assert_eq!(date_time(951_782_400), "2000-02-29 00:00:00");
    }

    /// The file's shape: the seed's lines (collapsed) for the fields it shows, in its
    /// order, then the algorithm's.
    #[test]
    fn flow_allocator_file_has_every_field_of_the_seed() {
        let id = FaIdentity {
            established: date_time(1_607_766_867),
            remote_address: 99388,
            local_eid: 2111124142794211394,
            remote_eid: 4329936627666255938,
        };
        let c = FaCounters {
            p_snd: 1605719,
            b_snd: 1605719000,
            ..FaCounters::default()
        };
        let mut ca = MbEcn::new(Mode::Code0180, 0);
        ca.update_context_at_sender_ece(48);
        ca.tx_ctr = 0;
        let text = fa_stat(&id, &c, &FlowCa::MbEcn(ca));
        let seed = SEED_FA_FILE;
        let ours: Vec<String> = text.lines().map(collapse_spaces).collect();
        // The seed's values up to the sender's counter; the window's state is its own.
        let theirs: Vec<&str> = seed.lines().take(17).collect();
        assert_eq!(&ours[..theirs.len()], &theirs[..]);
        let labels = |l: &str| l.split(':').next().unwrap_or("").to_string();
        assert_eq!(
            ours.iter().map(|l| labels(l)).collect::<Vec<_>>(),
            seed.lines().map(labels).collect::<Vec<_>>()
        );
        assert_eq!(ours.len(), 22);
        assert!(text.lines().all(|l| l.len() == 53), "{text}");
    }
}
