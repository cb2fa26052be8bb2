//! Hand-written CSV (RFC 4180 style) that pandas, R and spreadsheets read without options:
//! one header row, `\n` line ends, an empty cell for a missing value, floats with Rust's
//! shortest round-trip `{}` formatting (full precision, never an exponent), and fields that
//! contain a comma, a double quote or a line break quoted with inner quotes doubled.

use std::borrow::Cow;

/// One CSV cell: how a value is written.
pub trait CsvCell {
    fn cell(&self) -> String;
}

macro_rules! display_cell {
    ($($t:ty),*) => {$(
        impl CsvCell for $t {
            fn cell(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
display_cell!(u8, u16, u32, u64, usize, i32, i64, f32, f64, bool, str, String);

impl<T: CsvCell + ?Sized> CsvCell for &T {
    fn cell(&self) -> String {
        (**self).cell()
    }
}

/// `None` is an empty cell (pandas reads it as NaN).
impl<T: CsvCell> CsvCell for Option<T> {
    fn cell(&self) -> String {
        self.as_ref().map_or(String::new(), |v| v.cell())
    }
}

/// `s` as one CSV field: unchanged unless it contains a comma, a double quote, a line break
/// or leading/trailing whitespace, in which case it is quoted with inner quotes doubled.
pub fn quote(s: &str) -> Cow<'_, str> {
    let needs = s.contains([',', '"', '\n', '\r'])
        || s.starts_with(char::is_whitespace)
        || s.ends_with(char::is_whitespace);
    if needs {
        Cow::Owned(format!("\"{}\"", s.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(s)
    }
}

/// A CSV document built row by row.
#[derive(Clone, Debug)]
pub struct Csv {
    buf: String,
    cols: usize,
}

impl Csv {
    /// Starts a document with its header row.
    pub fn new(header: &[&str]) -> Csv {
        let mut c = Csv {
            buf: String::new(),
            cols: header.len(),
        };
        c.push(header.iter().map(|h| h.to_string()));
        c
    }

    /// Appends one row of already-formatted cells (see [`CsvCell`]); they are quoted here.
    /// The row must have as many cells as the header.
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(
            cells.len(),
            self.cols,
            "CSV row width differs from the header"
        );
        self.push(cells.into_iter());
    }

    fn push(&mut self, cells: impl Iterator<Item = String>) {
        for (i, c) in cells.enumerate() {
            if i > 0 {
                self.buf.push(',');
            }
            self.buf.push_str(&quote(&c));
        }
        self.buf.push('\n');
    }

    /// The document text.
    pub fn finish(self) -> String {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(quote("plain"), "plain");
        assert_eq!(
            quote("cwnd:10 ssthresh:7 rtt:1.2/0.3"),
            "cwnd:10 ssthresh:7 rtt:1.2/0.3"
        );
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote("two\nlines"), "\"two\nlines\"");
        assert_eq!(quote(" padded"), "\" padded\"");
        assert_eq!(quote(""), "");
    }

    #[test]
    fn cells_and_rows() {
        assert_eq!(Some(0.25f64).cell(), "0.25");
        assert_eq!(None::<f64>.cell(), "");
        assert_eq!(1e-7f64.cell(), "0.0000001");
        assert_eq!(0.1f64.cell(), "0.1");
        assert_eq!(3u32.cell(), "3");
        let mut c = Csv::new(&["id", "name", "x"]);
        c.row(vec![1u32.cell(), "a,\"b\"".cell(), None::<f64>.cell()]);
        c.row(vec![2u32.cell(), "ok".cell(), Some(1.5f64).cell()]);
        assert_eq!(c.finish(), "id,name,x\n1,\"a,\"\"b\"\"\",\n2,ok,1.5\n");
    }
}
