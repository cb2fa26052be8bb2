//! The scenario schema, declared by the components themselves: every topology, queue
//! discipline, congestion-control option, app and output declares its keys once, as
//! [`Key`]s in a [`Schema`] (name, type, default, what is allowed, one-line meaning).
//!
//! From those declarations come: the check for unknown keys (with "did you mean") and the
//! reading of each value by its type (`check.rs`), the key paths `--set` accepts
//! ([`Schema::check_path`]), `cclab list --keys`, and the key tables of
//! docs/scenario.md ([`markdown`], kept current by a test).

pub mod check;
mod input;
mod limit;
pub mod units;

pub use check::ScenarioError;
pub use input::{
    fnv1a, input_limit_text, read_text_limited, InputFile, FNV_START, MAX_INPUT_BYTES,
};
pub use limit::Limit;

use std::fmt::Write;

/// How a value is written, checked and documented.
#[derive(Clone, Copy, Debug)]
pub enum Ty {
    /// A rate with its unit (`"10Gbps"`), greater than zero.
    Rate,
    /// A time with its unit (`"1.5ms"`), 0 or more.
    Time,
    /// A time greater than zero.
    Interval,
    /// A size with its unit (`"75KB"`).
    Size,
    /// A queue limit or threshold: a packet count or a size (`"100pkts"`, `"1MB"`), 0 or
    /// more.
    Limit,
    /// A queue limit greater than zero.
    QueueLimit,
    Bool,
    /// An integer in the range.
    Int(i64, i64),
    /// A byte count written as an integer or a size, in the range.
    Bytes(u64, u64),
    /// A probability: at least 0 and below 1.
    Prob,
    /// A number above the first bound and at most the second (an algorithm's real-valued
    /// parameter: FAST's γ ∈ (0, 1]).
    Real(f64, f64),
    /// Any string.
    Str,
    /// One of these words (case-insensitive); the first string names what they are
    /// ("queue discipline") in messages.
    Choice(&'static str, &'static [&'static str]),
    /// A host of the topology.
    Host,
    /// A link of the topology.
    Link,
    /// A table with keys of its own.
    Table(&'static Schema),
    /// An array of such tables (`[[name]]`, or `[{ … }, …]` inline).
    Tables(&'static Schema),
    /// An array of values.
    List(&'static Ty),
    /// A value, or an array of them.
    OneOrList(&'static Ty),
    /// Anything else, read by hand; the text says what (for the docs).
    Text(&'static str),
}

impl Ty {
    /// The type column of the docs.
    pub fn name(&self) -> String {
        match self {
            Ty::Rate => "rate".into(),
            Ty::Time | Ty::Interval => "time".into(),
            Ty::Size => "size".into(),
            Ty::Limit | Ty::QueueLimit => "limit".into(),
            Ty::Bool => "boolean".into(),
            Ty::Int(..) => "integer".into(),
            Ty::Bytes(..) => "integer or size".into(),
            Ty::Prob | Ty::Real(..) => "number".into(),
            Ty::Str | Ty::Choice(..) | Ty::Host | Ty::Link => "string".into(),
            Ty::Table(s) => format!("{} table", s.noun),
            Ty::Tables(s) => format!("array of {} tables", s.noun),
            Ty::List(t) => format!("array of {}s", t.name()),
            Ty::OneOrList(t) => format!("{0}, or array of {0}s", t.name()),
            Ty::Text(t) => (*t).into(),
        }
    }

    /// What is allowed, when the key does not say it in words.
    pub fn allowed(&self) -> String {
        match self {
            Ty::Rate => "greater than zero".into(),
            Ty::Time | Ty::Limit => "0 or more".into(),
            Ty::Interval | Ty::QueueLimit => "greater than zero".into(),
            Ty::Size => "a size".into(),
            Ty::Int(lo, hi) if *hi == i64::MAX => format!("{lo} or more"),
            Ty::Int(lo, hi) => format!("{lo} to {hi}"),
            Ty::Bytes(lo, hi) => format!("{lo} to {hi} bytes"),
            Ty::Prob => "at least 0 and below 1 (e.g. `1e-4`)".into(),
            Ty::Real(lo, hi) => format!("above {lo}, at most {hi}"),
            Ty::Choice(_, c) => c
                .iter()
                .map(|x| format!("`\"{x}\"`"))
                .collect::<Vec<_>>()
                .join(", "),
            Ty::Host => "a host name".into(),
            Ty::Link => "a link name".into(),
            Ty::Table(s) | Ty::Tables(s) => format!("see [{}](#{})", s.title, anchor(s.title)),
            Ty::List(t) | Ty::OneOrList(t) => t.allowed(),
            Ty::Bool | Ty::Str | Ty::Text(_) => String::new(),
        }
    }
}

/// One key of a table.
#[derive(Debug)]
pub struct Key {
    pub name: &'static str,
    pub ty: Ty,
    /// The default as the docs show it (`"required"` for a required key).
    pub default: &'static str,
    /// What is allowed, in words; empty = what the type allows.
    pub allowed: &'static str,
    /// One line: what the key does.
    pub meaning: &'static str,
}

impl Key {
    pub fn required(&self) -> bool {
        self.default == REQUIRED
    }
}

/// The default of a key that must be given.
pub const REQUIRED: &str = "required";

/// A table's keys. A table may also take every key of other schemas (`with`: a flow takes
/// the TCP keys) and keys that depend on a choice (`variants`: a link's queue keys depend
/// on `queue`, the topology's on `kind`).
#[derive(Debug)]
pub struct Schema {
    /// Heading in the docs (`"Link tables"`); its anchor links the type column.
    pub title: &'static str,
    /// How messages name the table (`"[tcp]"`, `"a link table"`).
    pub place: &'static str,
    /// How the type column names one (`"link"` → "link table").
    pub noun: &'static str,
    /// A paragraph for the docs: what the table describes (may be empty).
    pub about: &'static str,
    pub keys: &'static [Key],
    pub with: &'static [&'static Schema],
    pub variants: Option<Variants>,
}

/// Keys that depend on the value of a tag key.
#[derive(Debug)]
pub struct Variants {
    /// The key whose value chooses (`"kind"`, `"queue"`).
    pub tag: &'static str,
    /// Each value with its own keys.
    pub kinds: &'static [(&'static str, &'static Schema)],
}

impl Schema {
    /// The variants of this table: its own, or those of a schema it takes keys from.
    pub fn variants(&'static self) -> Option<&'static Variants> {
        self.variants
            .as_ref()
            .or_else(|| self.with.iter().find_map(|w| w.variants()))
    }

    /// Every key this table takes whatever the variant, in order (own keys first).
    pub fn common_keys(&'static self) -> Vec<&'static Key> {
        let mut v: Vec<&'static Key> = Vec::new();
        for k in self.keys {
            push_new(&mut v, k);
        }
        for w in self.with {
            for k in w.common_keys() {
                push_new(&mut v, k);
            }
        }
        v
    }

    /// Every key of the table for variant `kind` (or of every variant when `None`).
    pub fn keys_for(&'static self, kind: Option<&str>) -> Vec<&'static Key> {
        let mut v = self.common_keys();
        if let Some(var) = self.variants() {
            for (name, s) in var.kinds {
                if kind.is_none_or(|k| k == *name) {
                    for k in s.all_keys() {
                        push_new(&mut v, k);
                    }
                }
            }
        }
        v
    }

    /// Every key the table can take.
    pub fn all_keys(&'static self) -> Vec<&'static Key> {
        self.keys_for(None)
    }

    /// The names of every key the table can take.
    pub fn names(&'static self) -> Vec<&'static str> {
        self.all_keys().iter().map(|k| k.name).collect()
    }

    pub fn key(&'static self, name: &str) -> Option<&'static Key> {
        self.all_keys().into_iter().find(|k| k.name == name)
    }

    /// The variants (values of the tag key) whose keys include `name`, when only
    /// variants have it.
    pub fn owners_of(&'static self, name: &str) -> Vec<&'static str> {
        if self.common_keys().iter().any(|k| k.name == name) {
            return Vec::new();
        }
        self.variants().map_or_else(Vec::new, |v| {
            v.kinds
                .iter()
                .filter(|(_, s)| s.all_keys().iter().any(|k| k.name == name))
                .map(|(n, _)| *n)
                .collect()
        })
    }

    /// Is `segs` (a `--set` path below this table) a key path the schema has? The error
    /// names the first part that is not.
    pub fn check_path(&'static self, segs: &[&str]) -> Result<(), String> {
        let Some((first, rest)) = segs.split_first() else {
            return Ok(());
        };
        let Some(k) = self.key(first) else {
            return Err(check::unknown_key_message(first, &self.names(), self.place));
        };
        check_value_path(&k.ty, k.name, self.place, rest)
    }
}

fn check_value_path(ty: &Ty, name: &str, place: &str, rest: &[&str]) -> Result<(), String> {
    let Some((first, more)) = rest.split_first() else {
        return Ok(());
    };
    let index = |i: &str| {
        i.parse::<usize>().map(|_| ()).map_err(|_| {
            format!("'{i}' is not an index: the entries of '{name}' are numbered from 0 ({name}.0, {name}.1, …)")
        })
    };
    match ty {
        Ty::Table(s) => s.check_path(rest),
        Ty::Tables(s) => {
            index(first)?;
            s.check_path(more)
        }
        Ty::List(t) | Ty::OneOrList(t) => {
            index(first)?;
            check_value_path(t, name, place, more)
        }
        // Read by hand (a queue table, a list of names): its parser checks what is inside,
        // and a path into a value that is not a table or array is refused when applied.
        Ty::Text(_) => Ok(()),
        _ => Err(format!(
            "'{name}' in {place} is a single value, it has no '{first}'"
        )),
    }
}

fn push_new(v: &mut Vec<&'static Key>, k: &'static Key) {
    if !v.iter().any(|x| x.name == k.name) {
        v.push(k);
    }
}

/// The anchor GitHub gives a heading.
pub fn anchor(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            'a'..='z' | '0'..='9' | '-' | '_' => Some(c),
            ' ' => Some('-'),
            _ => None,
        })
        .collect()
}

/// A table cell: pipes escaped, line breaks removed.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A key's Allowed cell: its words, after the range its type enforces when the words do
/// not state it (`k`: "2 to 64; an even number"), so a documented range is always the
/// checked one.
pub fn allowed_cell(k: &Key) -> String {
    let range = match k.ty {
        // "0 or more" says less than words would.
        Ty::Int(_, hi) if hi < i64::MAX => k.ty.allowed(),
        Ty::Bytes(..) => k.ty.allowed(),
        _ => String::new(),
    };
    match (k.allowed.is_empty(), range.is_empty()) {
        (true, _) => k.ty.allowed(),
        (false, true) => k.allowed.to_string(),
        (false, false) if k.allowed.contains(&range) => k.allowed.to_string(),
        (false, false) => format!("{range}; {}", k.allowed),
    }
}

/// The markdown table of `keys`.
pub fn key_table(keys: &[&Key]) -> String {
    let mut s =
        String::from("| Key | Type | Default | Allowed | Meaning |\n|---|---|---|---|---|\n");
    for k in keys {
        let allowed = allowed_cell(k);
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} |",
            k.name,
            cell(&k.ty.name()),
            cell(k.default),
            cell(&allowed),
            cell(k.meaning)
        );
    }
    s
}

/// The markdown of a schema: its paragraph, the table of its own keys, the schemas it
/// also takes keys from, and for each variant a heading (`level` hashes), its paragraph
/// and its table.
pub fn markdown(s: &'static Schema, level: usize) -> String {
    let mut out = String::new();
    if !s.about.is_empty() {
        let _ = writeln!(out, "{}\n", s.about);
    }
    let own: Vec<&Key> = s.keys.iter().collect();
    if !own.is_empty() {
        out.push_str(&key_table(&own));
    }
    if !s.with.is_empty() {
        let names: Vec<String> = s
            .with
            .iter()
            .map(|w| format!("[{}](#{})", w.title, anchor(w.title)))
            .collect();
        let _ = writeln!(out, "\nIt also takes every key of {}.", names.join(" and "));
    }
    if let Some(v) = &s.variants {
        for (name, vs) in v.kinds {
            if vs.keys.is_empty() && vs.about.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{} `{} = \"{name}\"`\n", "#".repeat(level), v.tag);
            out.push_str(&markdown(vs, level + 1));
        }
    }
    out
}

/// Replace every generated section of `doc` — the lines between
/// `<!-- keys: NAME -->` and `<!-- end keys -->` — with `generate(NAME)`; an unknown
/// name is an error.
pub fn regenerate(doc: &str, generate: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    const OPEN: &str = "<!-- keys: ";
    const CLOSE: &str = "<!-- end keys -->";
    let mut out = String::with_capacity(doc.len());
    let mut rest = doc;
    while let Some(i) = rest.find(OPEN) {
        let after = &rest[i + OPEN.len()..];
        let name_end = after.find(" -->").ok_or("an unclosed <!-- keys: marker")?;
        let name = after[..name_end].trim();
        let body_start = i + OPEN.len() + name_end + " -->".len();
        let close = rest[body_start..]
            .find(CLOSE)
            .ok_or_else(|| format!("<!-- keys: {name} --> has no {CLOSE}"))?;
        let table = generate(name).ok_or_else(|| format!("no schema named '{name}'"))?;
        out.push_str(&rest[..body_start]);
        out.push('\n');
        out.push_str(table.trim_end());
        out.push('\n');
        out.push_str(CLOSE);
        rest = &rest[body_start + close + CLOSE.len()..];
    }
    out.push_str(rest);
    Ok(out)
}
