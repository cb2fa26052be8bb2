//! Comments in packetdrill scripts (`lexer.l`: `//` to the end of the line and C's
//! `/* */`), removed before parsing; backquoted commands and `%{ }%` blocks keep theirs.

use super::parse::{err, ParseError};

/// Remove `//` and `/* */` comments (outside backquotes and `%{ }%`), keeping newlines so
/// line numbers stay right. Returns the text and the lines of unterminated constructs.
pub(super) fn strip_comments(src: &str) -> Result<String, ParseError> {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let (mut i, mut line) = (0usize, 1usize);
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let start = line;
            i += 2;
            loop {
                if i + 1 >= b.len() {
                    return err(start, "unterminated /* comment");
                }
                if b[i] == '*' && b[i + 1] == '/' {
                    i += 2;
                    break;
                }
                if b[i] == '\n' {
                    line += 1;
                    out.push('\n');
                }
                i += 1;
            }
        } else if c == '`' || (c == '%' && next == Some('{')) {
            // Copy a shell command or Python block verbatim.
            let start = line;
            let close: &[char] = if c == '`' { &['`'] } else { &['}', '%'] };
            out.push(c);
            i += if c == '`' { 1 } else { 2 };
            if c == '%' {
                out.push('{');
            }
            loop {
                if i >= b.len() {
                    let what = if c == '`' { "`" } else { "}%" };
                    return err(
                        start,
                        format!("unterminated block: expected closing {what}"),
                    );
                }
                if b[i..].starts_with(close) {
                    out.extend(close.iter());
                    i += close.len();
                    break;
                }
                if b[i] == '\n' {
                    line += 1;
                }
                out.push(b[i]);
                i += 1;
            }
        } else {
            if c == '\n' {
                line += 1;
            }
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}
