//! Every citation resolves inside the repository. Code comments, experiment outputs and docs
//! cite two files:
//!
//! - docs/references.md, then one id or several (`DCTCP-A1`, `§1C`; joined by `, `, ` and `
//!   or ` / `): each id must be the first word of a heading of that file. An id-like
//!   token with a known prefix (`RENO-2`, `PACE-1`, …) must exist wherever it stands.
//! - seed locations, `seed 003 slide 14`, `seed 000 tables 1-3`, `seed 004's comment 4`,
//!   `seed 000 [2]`, and an experiment's `seed_doc` (shown as `[seed …]` by `cclab list`):
//!   each must be a heading of docs/seeds.md (`### 003 slide 14 …`, `## Seed 003 …`). A
//!   bare `slide 16` resolves against the slide decks the same file names.
//!
//! Nothing may cite a file outside the repository (the project's old design notes, its
//! reference list, or a path through the parent folder).

use std::collections::BTreeSet;

/// The file ids are cited in (a constant, so that this file does not cite it).
const REFS: &str = "docs/references.md";
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The text files under `dir` (or `dir` itself), skipping build output and binaries.
fn text_files(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name == "target" || name.starts_with('.') || name == "__pycache__" {
            continue;
        }
        if p.is_dir() {
            text_files(&p, out);
        } else {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if matches!(
                ext,
                "rs" | "md" | "py" | "pyi" | "toml" | "json" | "txt" | "csv" | "svg" | "html"
            ) {
                out.push(p);
            }
        }
    }
}

/// The first word of each heading of a Markdown file.
fn headings(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .filter(|h| !h.is_empty())
        .collect()
}

/// The id at the start of `s`: `§` + digits + an optional capital + optional `.digits`
/// (`§1C`, `§3.6`), or capitals/digits, `-`, an optional capital and digits (`DCTCP-A1`).
fn id_at(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let digits = |mut i: usize| {
        let s0 = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i > s0).then_some(i)
    };
    let end = if let Some(rest) = s.strip_prefix('§') {
        let off = s.len() - rest.len();
        let mut i = digits(off)?;
        if i < b.len() && b[i].is_ascii_uppercase() {
            i += 1;
        }
        if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
            i = digits(i + 1)?;
        }
        i
    } else {
        let mut i = 0;
        if !b.first()?.is_ascii_uppercase() {
            return None;
        }
        while i < b.len() && (b[i].is_ascii_uppercase() || b[i].is_ascii_digit()) {
            i += 1;
        }
        if i >= b.len() || b[i] != b'-' {
            return None;
        }
        i += 1;
        if i < b.len() && b[i].is_ascii_uppercase() {
            i += 1;
        }
        digits(i)?
    };
    if end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
        return None;
    }
    Some(&s[..end])
}

/// The ids of a list at the start of `s` (`DCTCP-A1 and DCTCP-A2`, `§6.3, §11`).
fn id_list(mut s: &str) -> Vec<&str> {
    let mut ids = Vec::new();
    while let Some(id) = id_at(s) {
        ids.push(id);
        s = &s[id.len()..];
        let next = [", ", " and ", " / ", "/"]
            .iter()
            .find_map(|sep| s.strip_prefix(sep).filter(|r| id_at(r).is_some()));
        match next {
            Some(r) => s = r,
            None => break,
        }
    }
    ids
}

/// A list of numbers and ranges at the start of `s` (`14`, `13-18`, `11, 19 and 20`).
fn number_list(s: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let mut rest = s;
    let number = |r: &str| -> Option<(u32, usize)> {
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        let after = &r[n..];
        // "slide 16's" and "slide 16." are numbers; "Table 1.09" and "2nd" are not.
        let decimal =
            after.starts_with('.') && after[1..].starts_with(|c: char| c.is_ascii_digit());
        if n == 0 || decimal || after.starts_with(|c: char| c.is_ascii_alphanumeric()) {
            return None;
        }
        Some((r[..n].parse().ok()?, n))
    };
    let Some((mut last, n)) = number(rest) else {
        return out;
    };
    out.push(last);
    rest = &rest[n..];
    loop {
        let (range, r) = if let Some(r) = rest.strip_prefix('-').or_else(|| rest.strip_prefix('–'))
        {
            (true, r)
        } else if let Some(r) = [", and ", ", ", " and "]
            .iter()
            .find_map(|p| rest.strip_prefix(p))
        {
            (false, r)
        } else {
            break;
        };
        let Some((n, len)) = number(r) else { break };
        if range && n > last && n - last < 100 {
            out.extend(last + 1..=n);
        } else {
            out.push(n);
        }
        last = n;
        rest = &r[len..];
    }
    out
}

/// A seed location's kind (`slides` → `slide`).
fn kind_at(s: &str) -> Option<(&'static str, usize)> {
    for (word, kind) in [
        ("slides ", "slide"),
        ("slide ", "slide"),
        ("tables ", "table"),
        ("table ", "table"),
        ("comments ", "comment"),
        ("comment ", "comment"),
    ] {
        if s.get(..word.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(word))
        {
            return Some((kind, word.len()));
        }
    }
    None
}

/// A seed citation after `seed NNN`: the locations it names (`slide 14`, `[2]`), or none
/// (the seed as a whole).
fn seed_locations(s: &str) -> Vec<(&'static str, u32)> {
    let mut s = s.strip_prefix("'s").unwrap_or(s);
    s = s.strip_prefix(',').unwrap_or(s);
    s = s.strip_prefix(' ').unwrap_or(s);
    s = s.strip_prefix("/ ").unwrap_or(s);
    if let Some(r) = s.strip_prefix('[') {
        return number_list(r)
            .into_iter()
            .take(1)
            .map(|n| ("ref", n))
            .collect();
    }
    match kind_at(s) {
        Some((kind, len)) => number_list(&s[len..])
            .into_iter()
            .map(|n| (kind, n))
            .collect(),
        None => Vec::new(),
    }
}

struct Docs {
    refs: BTreeSet<String>,
    prefixes: BTreeSet<String>,
    seeds: BTreeSet<String>,
    locations: BTreeSet<(String, &'static str, u32)>,
}

fn load_docs() -> Docs {
    let read =
        |p: &str| std::fs::read_to_string(root().join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    let mut refs = BTreeSet::new();
    let mut prefixes = BTreeSet::new();
    for h in headings(&read(REFS)) {
        if let Some(id) = id_at(&h) {
            if let Some((p, _)) = id.split_once('-') {
                prefixes.insert(p.to_string());
            }
            refs.insert(id.to_string());
        }
    }
    let mut seeds = BTreeSet::new();
    let mut locations = BTreeSet::new();
    for h in headings(&read("docs/seeds.md")) {
        let num = |s: &str| {
            (s.len() >= 3 && s.as_bytes()[..3].iter().all(u8::is_ascii_digit))
                .then(|| s[..3].to_string())
        };
        if let Some(r) = h.strip_prefix("Seed ") {
            if let Some(n) = num(r) {
                seeds.insert(n);
            }
        } else if let Some(n) = num(&h) {
            for (kind, i) in seed_locations(&h[3..]) {
                locations.insert((n.clone(), kind, i));
            }
        }
    }
    Docs {
        refs,
        prefixes,
        seeds,
        locations,
    }
}

#[derive(Default)]
struct Found {
    refs: usize,
    seeds: usize,
    errors: Vec<String>,
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

fn check_file(path: &str, text: &str, docs: &Docs, found: &mut Found) {
    let errs = check_text(text, docs, found);
    for (at, msg) in errs {
        found
            .errors
            .push(format!("{path}:{}: {msg}", line_of(text, at)));
    }
}

fn check_text(text: &str, docs: &Docs, found: &mut Found) -> Vec<(usize, String)> {
    let mut errs: Vec<(usize, String)> = Vec::new();
    // Files outside the repository.
    for bad in [
        ["REFERENCE", ".md"].concat(),
        ["DESIGN", ".md"].concat(),
        ["..", "/shared"].concat(),
    ] {
        for (at, _) in text.match_indices(&bad) {
            errs.push((at, format!("cites {bad}, a file outside the repository")));
        }
    }
    for (at, _) in text.match_indices("REFERENCE ") {
        if id_at(&text[at + 10..]).is_some() {
            errs.push((at, format!("cites REFERENCE: cite {REFS} and an id")));
        }
    }
    // The references file, then ids (`DCTCP-A1 and DCTCP-A2`).
    for (at, m) in text.match_indices(REFS) {
        let rest = &text[at + m.len()..];
        let Some(after) = rest.strip_prefix(' ') else {
            continue; // a mention of the file (a link, a path, a list), not a citation
        };
        let ids = id_list(after);
        if ids.is_empty() {
            errs.push((at, format!("{REFS} followed by no id")));
        }
        for id in ids {
            found.refs += 1;
            if !docs.refs.contains(id) {
                errs.push((at, format!("{REFS} {id}: no such entry")));
            }
        }
    }
    // Bare ids with a known prefix (PACE-1, RENO-2) anywhere.
    for (at, _) in text.char_indices() {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_') {
            continue;
        }
        if let Some(id) = id_at(&text[at..]).filter(|id| !id.starts_with('§')) {
            let prefix = id.split('-').next().unwrap();
            if docs.prefixes.contains(prefix) && !docs.refs.contains(id) {
                errs.push((at, format!("{id}: no such entry in {REFS}")));
            }
        }
    }
    // Seed locations.
    let lower = text.to_ascii_lowercase();
    let mut named = BTreeSet::new();
    let mut cited_at = BTreeSet::new();
    let mut cites: Vec<(usize, String, String)> = Vec::new();
    for (at, m) in lower.match_indices("seed ") {
        let r = &text[at + m.len()..];
        let b = r.as_bytes();
        if b.len() >= 3
            && b[..3].iter().all(u8::is_ascii_digit)
            && !b.get(3).is_some_and(u8::is_ascii_digit)
        {
            cites.push((at, r[..3].to_string(), r[3..].to_string()));
        }
    }
    for (at, m) in text.match_indices("seed_doc: \"") {
        let r = &text[at + m.len()..];
        let b = r.as_bytes();
        if b.len() >= 3 && b[..3].iter().all(u8::is_ascii_digit) {
            cites.push((at, r[..3].to_string(), r[3..].to_string()));
        }
    }
    for (at, seed, rest) in cites {
        found.seeds += 1;
        named.insert(seed.clone());
        if !docs.seeds.contains(&seed) {
            errs.push((at, format!("seed {seed}: no such seed in docs/seeds.md")));
        }
        let locs = seed_locations(&rest);
        if !locs.is_empty() {
            cited_at.insert(at);
        }
        for (kind, n) in locs {
            if !docs.locations.contains(&(seed.clone(), kind, n)) {
                errs.push((
                    at,
                    format!("seed {seed} {kind} {n}: no such entry in docs/seeds.md"),
                ));
            }
        }
    }
    // Bare slides and comments resolve against the seeds this file names.
    for (word, kind) in [("slide", "slide"), ("comment", "comment")] {
        for (at, _) in lower.match_indices(word) {
            if lower[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let Some((k, len)) = kind_at(&text[at..]) else {
                continue;
            };
            debug_assert_eq!(k, kind);
            let numbers = number_list(&text[at + len..]);
            if numbers.is_empty() || cited_at.iter().any(|&c| c < at && at - c <= 20) {
                continue;
            }
            let decks: BTreeSet<&String> = docs
                .locations
                .iter()
                .filter(|(_, k, _)| *k == kind)
                .map(|(s, _, _)| s)
                .collect();
            let mut candidates: Vec<&String> = decks
                .iter()
                .copied()
                .filter(|s| named.contains(*s))
                .collect();
            if candidates.is_empty() {
                if kind == "comment" {
                    continue; // a code comment, not a seed's
                }
                candidates = decks.into_iter().collect();
            }
            for n in numbers {
                found.seeds += 1;
                if !candidates
                    .iter()
                    .any(|s| docs.locations.contains(&((*s).clone(), kind, n)))
                {
                    errs.push((
                        at,
                        format!(
                            "{kind} {n}: no such entry for seed {candidates:?} in docs/seeds.md"
                        ),
                    ));
                }
            }
        }
    }
    errs
}

#[test]
fn every_citation_resolves_inside_the_repository() {
    let docs = load_docs();
    assert!(docs.refs.len() >= 40, "{REFS}: {} ids", docs.refs.len());
    assert!(
        docs.locations.len() >= 30,
        "docs/seeds.md: {} locations",
        docs.locations.len()
    );
    let root = root();
    let mut files = Vec::new();
    for dir in ["crates", "docs", "README.md", "python"] {
        text_files(&root.join(dir), &mut files);
    }
    let mut found = Found::default();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let rel = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        check_file(&rel, &text, &docs, &mut found);
    }
    assert!(
        found.errors.is_empty(),
        "{} citations do not resolve:\n{}",
        found.errors.len(),
        found.errors.join("\n")
    );
    eprintln!(
        "{} files, {} {REFS} ids cited, {} seed locations cited; {} entries in {REFS}, {} in docs/seeds.md",
        files.len(),
        found.refs,
        found.seeds,
        docs.refs.len(),
        docs.locations.len()
    );
    // The scan found what it is meant to check (a scan that finds nothing cannot fail).
    assert!(
        found.refs >= 60,
        "only {} {REFS} citations found",
        found.refs
    );
    assert!(
        found.seeds >= 60,
        "only {} seed citations found",
        found.seeds
    );
}

#[test]
fn the_parsers_read_the_forms_the_code_uses() {
    assert_eq!(
        id_list("DCTCP-A1 and DCTCP-A2: ±3"),
        ["DCTCP-A1", "DCTCP-A2"]
    );
    assert_eq!(id_list("§6.3, §11), a"), ["§6.3", "§11"]);
    assert_eq!(id_list("§7's target"), ["§7"]);
    assert_eq!(id_list("§1C gives"), ["§1C"]);
    assert_eq!(id_list("DCTCP-U7, ECN-3."), ["DCTCP-U7", "ECN-3"]);
    assert!(id_list("gives").is_empty());
    assert_eq!(id_at("MB-ECN"), None);
    assert_eq!(number_list("13-18,"), [13, 14, 15, 16, 17, 18]);
    assert_eq!(number_list("11, 19 and 20: x"), [11, 19, 20]);
    assert_eq!(number_list("14, 21, 33–34"), [14, 21, 33, 34]);
    assert!(number_list("1.09").is_empty());
    assert_eq!(seed_locations("'s comment 4 ("), [("comment", 4)]);
    assert_eq!(seed_locations(" [2] §3.3"), [("ref", 2)]);
    assert_eq!(seed_locations(" / [2] §4.3"), [("ref", 2)]);
    assert_eq!(
        seed_locations(", tables 1–3: 19"),
        [("table", 1), ("table", 2), ("table", 3)]
    );
    assert!(seed_locations(" (MB-ECN in action)").is_empty());
}
