//! A parser for the subset of packetdrill's script language that the TCP scripts of the
//! modelled areas use (google/packetdrill `gtests/net/packetdrill/parser.y` and `lexer.l`:
//! option flags, event times, packets, system calls, shell commands and Python blocks).
//!
//! The parser never panics: malformed input is a [`ParseError`] naming the line and what
//! was expected. Valid packetdrill that the runner does not model (UDP or ICMP packets,
//! TCP options such as Fast Open or MD5, IP-level packet prefixes) parses into
//! [`Action::Unsupported`], which makes the script "not applicable" when it runs.

use std::fmt;

/// A time in microseconds (packetdrill's unit).
pub type Usecs = i64;

/// When an event happens (`parser.y` `event_time`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// `T`: absolute, from the script's start.
    Abs(Usecs),
    /// `+T`: relative to the previous event.
    Rel(Usecs),
    /// `A~B`: an absolute range.
    AbsRange(Usecs, Usecs),
    /// `+A~+B`: a relative range.
    RelRange(Usecs, Usecs),
    /// `*`: any time.
    Any,
}

/// IP ECN codepoint on a packet line (`[noecn]`, `[ect0]`, `[ect1]`, `[ce]`, `[ect01]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecn {
    NoEcn,
    Ect0,
    Ect1,
    Ce,
    /// Either ECT codepoint (outbound only).
    Ect01,
}

/// One TCP option of a packet line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TcpOpt {
    Nop,
    Eol,
    Mss(u32),
    Wscale(u32),
    SackOk,
    Sack(Vec<(u64, u64)>),
    Ts { val: u64, ecr: u64 },
}

/// A `<` (inbound) or `>` (outbound) TCP packet line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PacketSpec {
    pub inbound: bool,
    pub ecn: Option<Ecn>,
    /// Flag letters as written (`S`, `.`, `P.`, `SEW`, `F.`, …).
    pub flags: String,
    pub start: u64,
    pub end: u64,
    pub len: u64,
    pub ack: Option<u64>,
    pub win: Option<u64>,
    /// `None` for `<...>` (any options, outbound only); an empty list when no `<>` is given.
    pub options: Option<Vec<TcpOpt>>,
}

/// An argument of a system call: `...`, a number, a symbol, or a `[list]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Ellipsis,
    Int(i64),
    Word(String),
    List(Vec<Arg>),
    /// Anything else (a string, an expression, a struct), kept as written.
    Other(String),
}

/// A system call line: `name(args) = ret [ERRNO (text)]`, with the end time of a
/// blocking call (`+0...0.010 connect(...)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Syscall {
    pub name: String,
    pub args: Vec<Arg>,
    pub ret: i64,
    pub errno: Option<String>,
    pub end: Option<Usecs>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Packet(PacketSpec),
    Syscall(Syscall),
    /// A backquoted shell command.
    Shell(String),
    /// A `%{ … }%` Python block.
    Code(String),
    /// Valid packetdrill that the runner does not model; the text names the feature.
    Unsupported(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// 1-based line of the script where the event starts.
    pub line: usize,
    /// `None` for an untimed shell command before the first event (the init command).
    pub when: Option<When>,
    pub action: Action,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    /// `--name[=value]` option flags at the top of the script.
    pub options: Vec<(String, Option<String>)>,
    pub events: Vec<Event>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.msg)
    }
}

pub(super) fn err<T>(line: usize, msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        line,
        msg: msg.into(),
    })
}

/// A cursor over the comment-free text.
struct Cur<'a> {
    s: &'a [u8],
    i: usize,
    line: usize,
}

impl<'a> Cur<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn at(&self, t: &str) -> bool {
        self.s[self.i..].starts_with(t.as_bytes())
    }
    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        if c == b'\n' {
            self.line += 1;
        }
        Some(c)
    }
    /// Skip spaces and tabs (and newlines too when `nl`).
    fn ws(&mut self, nl: bool) {
        while let Some(c) = self.peek() {
            if c == b' ' || c == b'\t' || c == b'\r' || (nl && c == b'\n') {
                self.bump();
            } else if c == b'\\' && self.s.get(self.i + 1) == Some(&b'\n') {
                self.bump();
                self.bump();
            } else {
                break;
            }
        }
    }
    fn eat(&mut self, t: &str) -> bool {
        if self.at(t) {
            for _ in 0..t.len() {
                self.bump();
            }
            true
        } else {
            false
        }
    }
    fn expect(&mut self, t: &str, what: &str) -> Result<(), ParseError> {
        self.ws(false);
        if self.eat(t) {
            Ok(())
        } else {
            err(
                self.line,
                format!("expected {what}, found {}", self.found()),
            )
        }
    }
    /// What is at the cursor, for error messages.
    fn found(&self) -> String {
        let rest = &self.s[self.i..];
        let end = rest
            .iter()
            .position(|&c| c == b'\n')
            .unwrap_or(rest.len())
            .min(24);
        if end == 0 {
            if rest.is_empty() {
                "end of file".into()
            } else {
                "end of line".into()
            }
        } else {
            format!("'{}'", String::from_utf8_lossy(&rest[..end]))
        }
    }
    fn word(&mut self) -> String {
        let st = self.i;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == b'_' {
                self.bump();
            } else {
                break;
            }
        }
        String::from_utf8_lossy(&self.s[st..self.i]).into_owned()
    }
    /// An unsigned integer (decimal or 0x hex).
    fn uint(&mut self, what: &str) -> Result<u64, ParseError> {
        self.ws(false);
        let st = self.i;
        let hex = self.eat("0x") || self.eat("0X");
        let ds = self.i;
        while let Some(c) = self.peek() {
            if (hex && c.is_ascii_hexdigit()) || (!hex && c.is_ascii_digit()) {
                self.bump();
            } else {
                break;
            }
        }
        let txt = std::str::from_utf8(&self.s[ds..self.i]).unwrap_or("");
        let v = if hex {
            u64::from_str_radix(txt, 16).ok()
        } else {
            txt.parse().ok()
        };
        match v {
            Some(v) if !txt.is_empty() => Ok(v),
            _ => {
                self.i = st;
                err(
                    self.line,
                    format!("expected {what} (an integer), found {}", self.found()),
                )
            }
        }
    }
    /// A time in seconds (`0`, `.1`, `0.100`, `2`) as microseconds.
    fn time(&mut self) -> Result<Usecs, ParseError> {
        let st = self.i;
        let mut int = String::new();
        while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            int.push(c as char);
            self.bump();
        }
        let mut frac = String::new();
        if self.peek() == Some(b'.') && self.s.get(self.i + 1).is_some_and(u8::is_ascii_digit) {
            self.bump();
            while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
                frac.push(c as char);
                self.bump();
            }
        }
        if int.is_empty() && frac.is_empty() || int.len() > 9 {
            self.i = st;
            return err(
                self.line,
                format!("expected a time in seconds, found {}", self.found()),
            );
        }
        let secs: i64 = if int.is_empty() {
            0
        } else {
            int.parse().unwrap_or(0)
        };
        let mut us = 0i64;
        for (k, d) in frac.bytes().take(6).enumerate() {
            us += (d - b'0') as i64 * 10i64.pow(5 - k as u32);
        }
        Ok(secs * 1_000_000 + us)
    }
}

/// Parse a whole script.
pub fn parse(src: &str) -> Result<Script, ParseError> {
    let text = super::comments::strip_comments(src)?;
    let mut c = Cur {
        s: text.as_bytes(),
        i: 0,
        line: 1,
    };
    let mut script = Script::default();
    loop {
        c.ws(true);
        if !c.at("--") {
            break;
        }
        c.eat("--");
        let name = word_with(&mut c, b"_-");
        if name.is_empty() {
            return err(c.line, "expected an option name after --");
        }
        let val = if c.eat("=") {
            let st = c.i;
            while c.peek().is_some_and(|b| !b.is_ascii_whitespace()) {
                c.bump();
            }
            Some(String::from_utf8_lossy(&c.s[st..c.i]).into_owned())
        } else {
            None
        };
        script.options.push((name, val));
    }
    loop {
        c.ws(true);
        if c.peek().is_none() {
            break;
        }
        let line = c.line;
        // An untimed command: the init command before the events, or the cleanup command
        // after them (`parser.y` `opt_init_command`, `opt_cleanup_command`).
        if c.peek() == Some(b'`') {
            let cmd = shell(&mut c)?;
            script.events.push(Event {
                line,
                when: None,
                action: Action::Shell(cmd),
            });
            continue;
        }
        let (when, end) = when(&mut c)?;
        c.ws(false);
        let action = action(&mut c, end)?;
        c.ws(false);
        if c.eat(";") {
            c.ws(false);
        }
        if !matches!(c.peek(), None | Some(b'\n')) {
            return err(c.line, format!("expected end of line, found {}", c.found()));
        }
        script.events.push(Event {
            line,
            when: Some(when),
            action,
        });
    }
    Ok(script)
}

fn word_with(c: &mut Cur, extra: &[u8]) -> String {
    let st = c.i;
    while let Some(b) = c.peek() {
        if b.is_ascii_alphanumeric() || extra.contains(&b) {
            c.bump();
        } else {
            break;
        }
    }
    String::from_utf8_lossy(&c.s[st..c.i]).into_owned()
}

/// `event_time`, and the end time of a blocking call (`+0...0.010`).
fn when(c: &mut Cur) -> Result<(When, Option<Usecs>), ParseError> {
    if c.eat("*") {
        return Ok((When::Any, None));
    }
    let rel = c.eat("+");
    let t = c.time()?;
    let mut w = if rel { When::Rel(t) } else { When::Abs(t) };
    if c.eat("~") {
        let rel2 = c.eat("+");
        let t2 = c.time()?;
        if rel != rel2 {
            return err(
                c.line,
                "a time range must be both relative (+a~+b) or both absolute",
            );
        }
        if t2 < t {
            return err(c.line, "a time range must not end before it starts");
        }
        w = if rel {
            When::RelRange(t, t2)
        } else {
            When::AbsRange(t, t2)
        };
    }
    let mut end = None;
    let back = (c.i, c.line);
    c.ws(false);
    if c.eat("...") {
        c.ws(false);
        end = Some(c.time()?);
    } else {
        (c.i, c.line) = back;
    }
    Ok((w, end))
}

fn shell(c: &mut Cur) -> Result<String, ParseError> {
    c.expect("`", "`")?;
    let st = c.i;
    while c.peek().is_some_and(|b| b != b'`') {
        c.bump();
    }
    let txt = String::from_utf8_lossy(&c.s[st..c.i]).into_owned();
    c.expect("`", "closing `")?;
    Ok(txt)
}

fn action(c: &mut Cur, end: Option<Usecs>) -> Result<Action, ParseError> {
    match c.peek() {
        Some(b'`') => Ok(Action::Shell(shell(c)?)),
        Some(b'%') if c.at("%{") => {
            c.eat("%{");
            let st = c.i;
            while !c.at("}%") {
                if c.bump().is_none() {
                    return err(c.line, "expected }% to close the %{ block");
                }
            }
            let txt = String::from_utf8_lossy(&c.s[st..c.i]).into_owned();
            c.eat("}%");
            Ok(Action::Code(txt))
        }
        Some(b'<') | Some(b'>') => packet(c),
        Some(b) if b.is_ascii_alphabetic() || b == b'_' => syscall(c, end),
        _ => err(
            c.line,
            format!(
                "expected a packet (< or >), a system call, `command` or %{{ code }}%, found {}",
                c.found()
            ),
        ),
    }
}

fn packet(c: &mut Cur) -> Result<Action, ParseError> {
    let inbound = c.bump() == Some(b'<');
    c.ws(false);
    let mut ecn = None;
    if c.eat("[") {
        c.ws(false);
        let w = c.word();
        ecn = Some(match w.as_str() {
            "noecn" => Ecn::NoEcn,
            "ect0" => Ecn::Ect0,
            "ect1" => Ecn::Ect1,
            "ce" => Ecn::Ce,
            "ect01" if !inbound => Ecn::Ect01,
            "ect01" => return err(c.line, "[ect01] can only be used with outbound packets"),
            _ => {
                return err(
                    c.line,
                    format!("expected noecn, ect0, ect1, ce or ect01, found '{w}'"),
                )
            }
        });
        c.expect("]", "]")?;
        c.ws(false);
    }
    // IP-level prefixes, tunnels, UDP, ICMP: packetdrill, not modelled here.
    if c.at("(")
        || c.at("ipv4")
        || c.at("ipv6")
        || c.at("udp")
        || c.at("icmp")
        || c.at("gre")
        || c.at("mpls")
    {
        let w = word_with(c, b"(");
        skip_line(c);
        return Ok(Action::Unsupported(format!(
            "packet kind or IP header fields '{w}'"
        )));
    }
    let st = c.i;
    while c.peek().is_some_and(|b| b"SFRP.EWUAC-".contains(&b)) {
        c.bump();
    }
    let flags = String::from_utf8_lossy(&c.s[st..c.i]).into_owned();
    if flags.is_empty() {
        return err(
            c.line,
            format!(
                "expected TCP flags (S, F, R, P, ., E, W), found {}",
                c.found()
            ),
        );
    }
    if flags.contains('C') || flags.contains('A') || flags.contains('U') {
        skip_line(c);
        return Ok(Action::Unsupported(format!(
            "TCP flags '{flags}' (AccECN, URG)"
        )));
    }
    let start = c.uint("start sequence number")?;
    c.expect(":", "':' in START:END(LEN)")?;
    let end = c.uint("end sequence number")?;
    c.expect("(", "'(' in START:END(LEN)")?;
    let len = c.uint("payload length")?;
    c.expect(")", "')' in START:END(LEN)")?;
    if end < start || end - start != len {
        return err(
            c.line,
            format!("{start}:{end}({len}): END − START must equal LEN"),
        );
    }
    let mut p = PacketSpec {
        inbound,
        ecn,
        flags,
        start,
        end,
        len,
        ack: None,
        win: None,
        options: Some(Vec::new()),
    };
    loop {
        c.ws(false);
        if c.eat("ack") {
            p.ack = Some(c.uint("ack number")?);
        } else if c.eat("win") {
            p.win = Some(c.uint("window")?);
        } else if c.eat("urg") {
            skip_line(c);
            return Ok(Action::Unsupported("urgent pointer".into()));
        } else if c.eat("<") {
            c.ws(false);
            if c.eat("...") {
                if inbound {
                    return err(
                        c.line,
                        "<...> for TCP options can only be used with outbound packets",
                    );
                }
                c.expect(">", "'>' after <...")?;
                p.options = None;
            } else {
                match options(c)? {
                    Ok(v) => p.options = Some(v),
                    Err(feature) => {
                        skip_line(c);
                        return Ok(Action::Unsupported(feature));
                    }
                }
            }
        } else {
            break;
        }
    }
    if inbound && p.win.is_none() {
        return err(
            c.line,
            "window must be specified for inbound packets (win N)",
        );
    }
    Ok(Action::Packet(p))
}

fn skip_line(c: &mut Cur) {
    while c.peek().is_some_and(|b| b != b'\n') {
        c.bump();
    }
}

/// A TCP option list after `<`, to its `>`; `Err(feature)` for options not modelled.
fn options(c: &mut Cur) -> Result<Result<Vec<TcpOpt>, String>, ParseError> {
    let mut v = Vec::new();
    loop {
        c.ws(false);
        let w = c.word();
        let o = match w.as_str() {
            "nop" => TcpOpt::Nop,
            "eol" => TcpOpt::Eol,
            "mss" => TcpOpt::Mss(c.uint("MSS value")? as u32),
            "wscale" => TcpOpt::Wscale(c.uint("window scale")? as u32),
            "sackOK" => TcpOpt::SackOk,
            "sack" => {
                let mut blocks = Vec::new();
                loop {
                    c.ws(false);
                    if !c.peek().is_some_and(|b| b.is_ascii_digit()) {
                        break;
                    }
                    let a = c.uint("SACK block start")?;
                    c.expect(":", "':' in a SACK block")?;
                    let b = c.uint("SACK block end")?;
                    blocks.push((a, b));
                }
                TcpOpt::Sack(blocks)
            }
            "TS" => {
                c.expect("val", "val in TS val N ecr N")?;
                let val = c.uint("TS val")?;
                c.expect("ecr", "ecr in TS val N ecr N")?;
                let ecr = c.uint("TS ecr")?;
                TcpOpt::Ts { val, ecr }
            }
            "" => {
                return err(
                    c.line,
                    format!("expected a TCP option, found {}", c.found()),
                )
            }
            other => return Ok(Err(format!("TCP option '{other}'"))),
        };
        v.push(o);
        c.ws(false);
        if c.eat(",") {
            continue;
        }
        c.expect(">", "',' or '>' in the TCP option list")?;
        return Ok(Ok(v));
    }
}

fn syscall(c: &mut Cur, end: Option<Usecs>) -> Result<Action, ParseError> {
    let name = c.word();
    c.expect("(", &format!("'(' after {name}"))?;
    let mut args = Vec::new();
    loop {
        c.ws(true);
        if c.eat(")") {
            break;
        }
        args.push(arg(c)?);
        c.ws(true);
        if c.eat(",") {
            continue;
        }
        c.expect(")", "',' or ')' in the argument list")?;
        break;
    }
    c.expect("=", "'= RESULT' after the system call")?;
    c.ws(false);
    let neg = c.eat("-");
    let ret = if c.at("...") {
        return err(c.line, "expected an integer result");
    } else {
        c.uint("the result")? as i64
    };
    let ret = if neg { -ret } else { ret };
    c.ws(false);
    let mut errno = None;
    if c.peek().is_some_and(|b| b.is_ascii_uppercase()) {
        let e = c.word();
        c.ws(false);
        if c.eat("(") {
            let mut depth = 1;
            while depth > 0 {
                match c.bump() {
                    Some(b'(') => depth += 1,
                    Some(b')') => depth -= 1,
                    Some(b'\n') | None => return err(c.line, "expected ')' after the errno text"),
                    _ => {}
                }
            }
        }
        errno = Some(e);
    }
    Ok(Action::Syscall(Syscall {
        name,
        args,
        ret,
        errno,
        end,
    }))
}

fn arg(c: &mut Cur) -> Result<Arg, ParseError> {
    if c.eat("...") {
        return Ok(Arg::Ellipsis);
    }
    if c.eat("[") {
        let mut v = Vec::new();
        loop {
            c.ws(true);
            if c.eat("]") {
                break;
            }
            v.push(arg(c)?);
            c.ws(true);
            if c.eat(",") {
                continue;
            }
            c.expect("]", "',' or ']' in a list")?;
            break;
        }
        return Ok(Arg::List(v));
    }
    if c.peek().is_some_and(|b| b.is_ascii_digit()) {
        let st = c.i;
        let n = c.uint("an integer")?;
        if c.peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.')
        {
            c.i = st;
        } else {
            return Ok(Arg::Int(n.min(i64::MAX as u64) as i64));
        }
    }
    if c.peek()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
    {
        let st = c.i;
        let w = c.word();
        c.ws(false);
        if matches!(c.peek(), Some(b',') | Some(b')') | Some(b']')) {
            return Ok(Arg::Word(w));
        }
        c.i = st;
    }
    // Anything else: up to the next top-level ',' ')' or ']'.
    let st = c.i;
    let mut depth = 0i32;
    let mut quote = false;
    loop {
        match c.peek() {
            None => return err(c.line, "expected ')' to close the system call"),
            Some(b'"') => quote = !quote,
            Some(b'(' | b'[' | b'{') if !quote => depth += 1,
            Some(b')' | b']' | b'}') if !quote && depth > 0 => depth -= 1,
            Some(b',' | b')' | b']') if !quote && depth == 0 => break,
            _ => {}
        }
        c.bump();
    }
    Ok(Arg::Other(
        String::from_utf8_lossy(&c.s[st..c.i]).trim().to_string(),
    ))
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
