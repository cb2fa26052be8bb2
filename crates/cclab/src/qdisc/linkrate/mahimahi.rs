//! Mahimahi's packet-delivery trace format, read as `mm-link` reads it
//! (ravinet/mahimahi `src/frontend/link_queue.cc`, `LinkQueue::LinkQueue`, at commit
//! ae477d4): one line per delivery opportunity, the time in whole milliseconds from the
//! start of the trace; the lines nondecreasing (several opportunities may share a
//! millisecond); the trace repeats with its last timestamp as its period, so that last
//! timestamp must be above zero. mm-link refuses an empty line, a line that is not an
//! integer (`myatoi`: `strtol` over the whole line), a timestamp below the one before
//! and a file without a timestamp; so does this reader, naming the line and what it holds.
//! It also refuses a timestamp beyond 10⁶ s, cclab's longest time (mm-link's are u64 ms).

use crate::engine::MS;
use crate::schema::units::MAX_TIME;

/// The latest timestamp a trace may hold, in ms: [`MAX_TIME`] (10⁶ s).
pub const MAX_MS: u64 = MAX_TIME / MS;

/// A trace as read: the opportunities' times in milliseconds, nondecreasing, the last one
/// (the period) above zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub ms: Vec<u64>,
}

/// What is wrong with a trace: the line (1-based; 0 for the file as a whole), the text
/// of that line, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    pub line: usize,
    pub value: String,
    pub message: String,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            return write!(f, "{}", self.message);
        }
        let shown: String = self.value.chars().take(40).collect();
        write!(
            f,
            "line {} (\"{}\"): {}",
            self.line,
            shown.escape_debug(),
            self.message
        )
    }
}

impl Trace {
    /// Read the text of a trace file. A last line without its newline is read as mm-link's
    /// `getline` reads it; a file that ends in a newline has no empty line after it.
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        let mut ms: Vec<u64> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let err = |message: String| TraceError {
                line: i + 1,
                value: line.to_string(),
                message,
            };
            if line.is_empty() {
                return Err(err(
                    "an empty line (mm-link refuses it: one millisecond timestamp per line)".into(),
                ));
            }
            let t: u64 =
                match line.parse() {
                    Ok(t) => t,
                    Err(_) => return Err(err(
                        "not a whole number of milliseconds (one timestamp per line, digits only)"
                            .into(),
                    )),
                };
            // cclab's times stop at 10⁶ s (`units::MAX_TIME`): a later timestamp would wrap
            // the u64 of picoseconds the link's opportunities are kept in.
            if t > MAX_MS {
                return Err(err(format!(
                    "{t} ms is beyond the longest time cclab takes ({MAX_MS} ms = 10⁶ s)"
                )));
            }
            if let Some(&last) = ms.last() {
                if t < last {
                    return Err(err(format!(
                        "timestamps must not decrease: {t} ms after {last} ms on line {}",
                        i
                    )));
                }
            }
            ms.push(t);
        }
        match ms.last() {
            None => Err(TraceError {
                line: 0,
                value: String::new(),
                message: "no timestamp in the file (one line per delivery opportunity, in ms)"
                    .into(),
            }),
            Some(0) => Err(TraceError {
                line: ms.len(),
                value: "0".into(),
                message: "the trace must last more than 0 ms: its last timestamp is its period"
                    .into(),
            }),
            Some(_) => Ok(Trace { ms }),
        }
    }

    /// The period: the last timestamp, in ms.
    pub fn period_ms(&self) -> u64 {
        *self.ms.last().expect("a parsed trace has a timestamp")
    }

    /// The mean rate of MTU-sized (1500-byte) IP packets the trace delivers, in bit/s:
    /// what a Mahimahi trace is quoted as (12 Mbit/s = one line per millisecond).
    pub fn mean_bps(&self) -> u64 {
        (self.ms.len() as u128 * 1500 * 8 * 1000 / self.period_ms() as u128).max(1) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mahimahi_lines_and_refuses_what_mm_link_refuses() {
        let t = Trace::parse("0\n0\n3\n10\n").unwrap();
        assert_eq!(t.ms, vec![0, 0, 3, 10]);
        assert_eq!(t.period_ms(), 10);
        // 4 opportunities per 10 ms: 4 × 1500 × 8 bit / 10 ms = 4.8 Mbit/s.
        assert_eq!(t.mean_bps(), 4_800_000);
        assert_eq!(Trace::parse("5\n7").unwrap().ms, vec![5, 7]);
        let e = Trace::parse("1\n2\n\n3\n").unwrap_err();
        assert_eq!((e.line, e.value.as_str()), (3, ""));
        let e = Trace::parse("1\n2x\n").unwrap_err();
        assert_eq!((e.line, e.value.as_str()), (2, "2x"));
        let e = Trace::parse("1\n-2\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = Trace::parse("4\n3\n").unwrap_err();
        assert_eq!((e.line, e.value.as_str()), (2, "3"));
        assert!(e.to_string().contains("3 ms after 4 ms"), "{e}");
        assert_eq!(Trace::parse("").unwrap_err().line, 0);
        assert_eq!(Trace::parse("0\n0\n").unwrap_err().line, 2);
        // 10⁶ s is the last time cclab takes; later ones wrapped the opportunities' u64 of
        // picoseconds (a panic in a debug build, nonsense times in a release one).
        assert_eq!(Trace::parse("1000000000\n").unwrap().period_ms(), MAX_MS);
        for huge in ["1000000001", "99999999999999", "18446744073709551615"] {
            let e = Trace::parse(&format!("1\n{huge}\n")).unwrap_err();
            assert_eq!((e.line, e.value.as_str()), (2, huge));
            assert!(e.to_string().contains("beyond the longest time"), "{e}");
        }
    }
}
