//! The small piece of Python that packetdrill's `%{ … }%` blocks use in the TCP scripts
//! (packetdrill runs them with the socket's `TCP_INFO` snapshot as variables, `code.c`):
//! statements `assert COND[, MSG]`, `NAME = EXPR`, `NAME += EXPR` (also `-=`), `print(…)`,
//! separated by newlines or `;`, `#` comments; integer expressions with `+ - * // / %`,
//! comparisons, `and`/`or`/`not`, parentheses, hex literals; the `TCP_CA_*` constants.
//! Anything else is reported as not supported (the script is then "not applicable").

use std::collections::BTreeMap;

/// What running a block gave.
#[derive(Debug, PartialEq, Eq)]
pub enum PyError {
    /// An assertion failed: the condition as written and the values it read.
    Assert(String),
    /// Python this interpreter does not run.
    Unsupported(String),
}

/// The variables of the script's Python (they persist from block to block, as in
/// packetdrill's one Python program per script).
#[derive(Default)]
pub struct Env {
    pub vars: BTreeMap<String, i64>,
}

/// `TCP_CA_*` (include/net/tcp.h `enum tcp_ca_state`).
fn constant(name: &str) -> Option<i64> {
    Some(match name {
        "TCP_CA_Open" => 0,
        "TCP_CA_Disorder" => 1,
        "TCP_CA_CWR" => 2,
        "TCP_CA_Recovery" => 3,
        "TCP_CA_Loss" => 4,
        "True" => 1,
        "False" => 0,
        _ => return None,
    })
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64),
    Name(String),
    Str,
    Op(&'static str),
}

fn lex(s: &str) -> Result<Vec<Tok>, PyError> {
    const OPS: [&str; 20] = [
        "//", "==", "!=", "<=", ">=", "+=", "-=", "**", "+", "-", "*", "/", "%", "<", ">", "(",
        ")", ",", "=", "[",
    ];
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'#' {
            break;
        } else if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let t = s[st..i].replace('_', "");
            let n = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                i64::from_str_radix(h, 16).ok()
            } else {
                t.parse().ok()
            };
            v.push(Tok::Int(n.ok_or_else(|| {
                PyError::Unsupported(format!("number '{t}'"))
            })?));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            v.push(Tok::Name(s[st..i].to_string()));
        } else if c == b'\'' || c == b'"' {
            let q = c;
            i += 1;
            while i < b.len() && b[i] != q {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            v.push(Tok::Str);
        } else if let Some(op) = OPS.iter().find(|o| s[i..].starts_with(**o)) {
            v.push(Tok::Op(op));
            i += op.len();
        } else {
            return Err(PyError::Unsupported(format!("character '{}'", c as char)));
        }
    }
    Ok(v)
}

struct P<'a> {
    t: &'a [Tok],
    i: usize,
    env: &'a Env,
    info: &'a dyn Fn(&str) -> Option<i64>,
}

impl P<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }
    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }
    fn is_name(&self, n: &str) -> bool {
        matches!(self.peek(), Some(Tok::Name(x)) if x == n)
    }
    fn or(&mut self) -> Result<i64, PyError> {
        let mut v = self.and()?;
        while self.is_name("or") {
            self.i += 1;
            let r = self.and()?;
            v = (v != 0 || r != 0) as i64;
        }
        Ok(v)
    }
    fn and(&mut self) -> Result<i64, PyError> {
        let mut v = self.not()?;
        while self.is_name("and") {
            self.i += 1;
            let r = self.not()?;
            v = (v != 0 && r != 0) as i64;
        }
        Ok(v)
    }
    fn not(&mut self) -> Result<i64, PyError> {
        if self.is_name("not") {
            self.i += 1;
            return Ok((self.not()? == 0) as i64);
        }
        self.cmp()
    }
    fn cmp(&mut self) -> Result<i64, PyError> {
        let mut l = self.sum()?;
        let mut ok = true;
        let mut any = false;
        while let Some(Tok::Op(o)) = self.peek() {
            let o = *o;
            if !matches!(o, "==" | "!=" | "<" | "<=" | ">" | ">=") {
                break;
            }
            self.i += 1;
            let r = self.sum()?;
            ok &= match o {
                "==" => l == r,
                "!=" => l != r,
                "<" => l < r,
                "<=" => l <= r,
                ">" => l > r,
                _ => l >= r,
            };
            any = true;
            l = r;
        }
        Ok(if any { ok as i64 } else { l })
    }
    fn sum(&mut self) -> Result<i64, PyError> {
        let mut v = self.term()?;
        loop {
            if self.is_op("+") {
                self.i += 1;
                v = v.wrapping_add(self.term()?);
            } else if self.is_op("-") {
                self.i += 1;
                v = v.wrapping_sub(self.term()?);
            } else {
                return Ok(v);
            }
        }
    }
    fn term(&mut self) -> Result<i64, PyError> {
        let mut v = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op(o)) if matches!(*o, "*" | "//" | "/" | "%") => *o,
                _ => return Ok(v),
            };
            self.i += 1;
            let r = self.unary()?;
            if op != "*" && r == 0 {
                return Err(PyError::Unsupported("division by zero".into()));
            }
            v = match op {
                "*" => v.wrapping_mul(r),
                "%" => v.rem_euclid(r),
                "/" if v % r != 0 => {
                    return Err(PyError::Unsupported("true division (a float)".into()))
                }
                _ => v.div_euclid(r),
            };
        }
    }
    fn unary(&mut self) -> Result<i64, PyError> {
        if self.is_op("-") {
            self.i += 1;
            return Ok(self.unary()?.wrapping_neg());
        }
        if self.is_op("+") {
            self.i += 1;
            return self.unary();
        }
        self.atom()
    }
    fn atom(&mut self) -> Result<i64, PyError> {
        match self.peek().cloned() {
            Some(Tok::Int(n)) => {
                self.i += 1;
                Ok(n)
            }
            Some(Tok::Name(n)) => {
                self.i += 1;
                if self.is_op("(") {
                    return Err(PyError::Unsupported(format!("function call {n}()")));
                }
                if let Some(v) = self.env.vars.get(&n) {
                    return Ok(*v);
                }
                if let Some(v) = constant(&n) {
                    return Ok(v);
                }
                if n.starts_with("tcpi_") {
                    return (self.info)(&n)
                        .ok_or_else(|| PyError::Unsupported(format!("TCP_INFO field {n}")));
                }
                Err(PyError::Unsupported(format!("name '{n}'")))
            }
            Some(Tok::Op("(")) => {
                self.i += 1;
                let v = self.or()?;
                if !self.is_op(")") {
                    return Err(PyError::Unsupported("expected ')'".into()));
                }
                self.i += 1;
                Ok(v)
            }
            t => Err(PyError::Unsupported(format!("expression at {t:?}"))),
        }
    }
}

/// Split a block into statements (newlines and `;` outside strings and brackets).
fn statements(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut depth, mut quote) = (0i32, None::<char>);
    let mut comment = false;
    for c in src.chars() {
        if comment {
            if c == '\n' {
                comment = false;
            } else {
                continue;
            }
        }
        match (c, quote) {
            ('\'' | '"', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            ('#', None) => {
                comment = true;
                continue;
            }
            ('(' | '[', None) => depth += 1,
            (')' | ']', None) => depth -= 1,
            ('\n' | ';', None) if depth <= 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Run one block with `info` giving the `tcpi_*` fields of the snapshot.
pub fn run(src: &str, env: &mut Env, info: &dyn Fn(&str) -> Option<i64>) -> Result<(), PyError> {
    for st in statements(src) {
        let toks = lex(&st)?;
        let Some(first) = toks.first() else { continue };
        match first {
            Tok::Name(n) if n == "assert" => {
                let mut p = P {
                    t: &toks,
                    i: 1,
                    env,
                    info,
                };
                let v = p.or()?;
                // The message after a top-level ',' is only shown when the assert fails.
                if p.i < toks.len() && !p.is_op(",") {
                    return Err(PyError::Unsupported(format!("statement '{st}'")));
                }
                if v == 0 {
                    let cond = st.trim_start_matches("assert").trim();
                    let cond = cond.split(',').next().unwrap_or(cond).trim();
                    let mut vals = Vec::new();
                    for t in &toks {
                        if let Tok::Name(n) = t {
                            if n.starts_with("tcpi_") {
                                let x = info(n).unwrap_or(-1);
                                let s = format!("{n} = {x}");
                                if !vals.contains(&s) {
                                    vals.push(s);
                                }
                            } else if let Some(x) = env.vars.get(n) {
                                vals.push(format!("{n} = {x}"));
                            }
                        }
                    }
                    return Err(PyError::Assert(format!(
                        "assert {cond} ({})",
                        vals.join(", ")
                    )));
                }
            }
            Tok::Name(n) if n == "print" => {}
            Tok::Name(n) if toks.len() >= 2 => {
                let op = match &toks[1] {
                    Tok::Op(o) if matches!(*o, "=" | "+=" | "-=") => *o,
                    _ => return Err(PyError::Unsupported(format!("statement '{st}'"))),
                };
                let mut p = P {
                    t: &toks,
                    i: 2,
                    env,
                    info,
                };
                let v = p.or()?;
                if p.i != toks.len() {
                    return Err(PyError::Unsupported(format!("statement '{st}'")));
                }
                let name = n.clone();
                let old = env.vars.get(&name).copied();
                let new = match op {
                    "=" => v,
                    _ => {
                        let o = old.ok_or_else(|| {
                            PyError::Unsupported(format!("name '{name}' used before assignment"))
                        })?;
                        if op == "+=" {
                            o.wrapping_add(v)
                        } else {
                            o.wrapping_sub(v)
                        }
                    }
                };
                env.vars.insert(name, new);
            }
            _ => return Err(PyError::Unsupported(format!("statement '{st}'"))),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(n: &str) -> Option<i64> {
        match n {
            "tcpi_snd_cwnd" => Some(12),
            "tcpi_ca_state" => Some(3),
            "tcpi_snd_ssthresh" => Some(0x7fff_ffff),
            _ => None,
        }
    }

    #[test]
    fn runs_the_statements_the_scripts_use() {
        let mut env = Env::default();
        let src = "TCP_INFINITE_SSTHRESH = 0x7fffffff\nassert tcpi_snd_ssthresh == TCP_INFINITE_SSTHRESH, tcpi_snd_ssthresh\n\
                   cwnd = 10; print(tcpi_snd_cwnd); cwnd += 2; assert tcpi_snd_cwnd == cwnd, 'cwnd=%d' % tcpi_snd_cwnd # c\n\
                   assert tcpi_ca_state == TCP_CA_Recovery, '%d %d' % (tcpi_ca_state, 1)";
        assert_eq!(run(src, &mut env, &info), Ok(()));
        assert_eq!(env.vars["cwnd"], 12);
        let e = run("assert tcpi_snd_cwnd == 10, tcpi_snd_cwnd", &mut env, &info).unwrap_err();
        assert_eq!(
            e,
            PyError::Assert("assert tcpi_snd_cwnd == 10 (tcpi_snd_cwnd = 12)".into())
        );
        assert!(matches!(
            run("assert tcpi_foo == 1", &mut env, &info),
            Err(PyError::Unsupported(f)) if f.contains("tcpi_foo")
        ));
        assert!(matches!(
            run("import os", &mut env, &info),
            Err(PyError::Unsupported(_))
        ));
        assert_eq!(
            run(
                "x = (7 // 2) * 3 - 1 % 1; assert x == 9 and not x < 0",
                &mut env,
                &info
            ),
            Ok(())
        );
    }
}
