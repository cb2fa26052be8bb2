//! Small helpers for the messages of scenario errors (part of [`super`], the checker):
//! a user's string cut and escaped for a message, a TOML value shown as written, key
//! paths, lists of names with numbered runs folded, and "did you mean" by edit distance.

use toml::Value;

/// A string from the user as it appears in a message, unquoted: control characters
/// escaped, cut to 40 characters with "…", so a 10 MB value does not become a 10 MB
/// message and escape bytes do not reach the terminal.
pub fn cut(s: &str) -> String {
    cut_to(s, 40)
}

/// [`cut`] to `max` characters.
pub fn cut_to(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// [`cut`], in double quotes (`"10Gbs"`).
pub fn echo(s: &str) -> String {
    format!("\"{}\"", cut(s))
}

pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date-time",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

/// A value as it would be written in TOML, shortened for messages: keys and strings with
/// control characters escaped, and only as much of a large value rendered as is shown.
pub fn show(v: &Value) -> String {
    const MAX: usize = 80;
    fn go(v: &Value, out: &mut String) {
        if out.len() > 4 * MAX {
            return;
        }
        match v {
            Value::String(s) => {
                let head: String = s.chars().take(MAX + 1).collect();
                out.push_str(&format!("{head:?}"))
            }
            Value::Integer(i) => out.push_str(&i.to_string()),
            Value::Float(x) => out.push_str(&format!("{x:?}")),
            Value::Boolean(b) => out.push_str(&b.to_string()),
            Value::Datetime(d) => out.push_str(&d.to_string()),
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if out.len() > 4 * MAX {
                        break;
                    }
                    if i > 0 {
                        out.push_str(", ");
                    }
                    go(x, out);
                }
                out.push(']');
            }
            Value::Table(t) => {
                out.push('{');
                for (i, (k, x)) in t.iter().enumerate() {
                    if out.len() > 4 * MAX {
                        break;
                    }
                    out.push_str(if i > 0 { ", " } else { " " });
                    let bare = !k.is_empty()
                        && k.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                    if bare {
                        out.push_str(k);
                    } else {
                        let head: String = k.chars().take(MAX + 1).collect();
                        out.push_str(&format!("{head:?}"));
                    }
                    out.push_str(" = ");
                    go(x, out);
                }
                out.push_str(" }");
            }
        }
    }
    let mut s = String::new();
    go(v, &mut s);
    if s.chars().count() > MAX {
        s = s.chars().take(MAX).collect::<String>() + "…";
    }
    s
}

/// `["a", "b"]` → `["\"a\"", "\"b\""]`, for lists of string values.
pub fn quoted(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| format!("\"{s}\"")).collect()
}

/// `a, b or c`.
pub fn or_list<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    match items.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Names with numbered runs folded: `s0, s1, …, s99` → `s0…s99`, so a 10 000-host
/// topology still gives a one-line message. Names are grouped by the text around their
/// first number, in order of first appearance.
pub fn name_list(names: &[String]) -> String {
    struct Group {
        pre: String,
        post: String,
        nums: Vec<u64>,
    }
    let mut groups: Vec<Group> = Vec::new();
    for n in names {
        let split = n.find(|c: char| c.is_ascii_digit()).and_then(|a| {
            let b = n[a..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(n.len(), |x| a + x);
            n[a..b]
                .parse::<u64>()
                .ok()
                .map(|num| (&n[..a], num, &n[b..]))
        });
        let (pre, num, post) = match split {
            Some(x) => x,
            None => {
                // No number: a group of its own, shown as is.
                groups.push(Group {
                    pre: n.clone(),
                    post: String::new(),
                    nums: Vec::new(),
                });
                continue;
            }
        };
        match groups
            .iter_mut()
            .find(|g| !g.nums.is_empty() && g.pre == pre && g.post == post)
        {
            Some(g) => g.nums.push(num),
            None => groups.push(Group {
                pre: pre.into(),
                post: post.into(),
                nums: vec![num],
            }),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|g| {
            let consecutive = g.nums.windows(2).all(|w| w[1] == w[0] + 1);
            // Shown as values are: escaped and cut (a name may be the mistake itself).
            let (pre, post) = (cut(&g.pre), cut(&g.post));
            match g.nums.as_slice() {
                [] => pre,
                [first, .., last] if g.nums.len() >= 3 && consecutive => {
                    format!("{pre}{first}{post}…{pre}{last}{post}")
                }
                nums => nums
                    .iter()
                    .map(|x| format!("{pre}{x}{post}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })
        .collect();
    parts.join(", ")
}

/// Edit distance, for "did you mean".
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

pub fn suggestion<'a>(word: &str, allowed: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    // A word this long is not a typo of a name; and the search stays bounded.
    if word.len() > 64 {
        return None;
    }
    let limit = (word.chars().count() / 3).clamp(1, 3);
    allowed
        .into_iter()
        .map(|a| (distance(&word.to_lowercase(), a), a))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a)
}

pub fn unknown_key_message(key: &str, allowed: &[&str], place: &str) -> String {
    let hint = suggestion(key, allowed.iter().copied())
        .map(|s| format!("did you mean '{s}'? "))
        .unwrap_or_default();
    format!(
        "unknown key '{}' in {place}; {hint}allowed keys: {}",
        cut(key),
        allowed.join(", ")
    )
}

pub fn unknown_name_message(what: &str, name: &str, allowed: &[String]) -> String {
    // Names that differ only in their numbers ("r7" for "r0") get no suggestion: the
    // folded list ("r0…r1") already says which numbers exist.
    let skeleton = |x: &str| x.replace(|c: char| c.is_ascii_digit(), "");
    let hint = suggestion(name, allowed.iter().map(String::as_str))
        .filter(|s| skeleton(s) != skeleton(name))
        .map(|s| format!("did you mean \"{s}\"? "))
        .unwrap_or_default();
    format!(
        "unknown {what} {}; {hint}this topology has: {}",
        echo(name),
        name_list(allowed)
    )
}
