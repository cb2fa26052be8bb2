//! The library's layers, as docs/architecture.md draws them: its `layers` block puts every
//! top-level module of `crates/cclab/src` in a layer, its `cycles` block lists the pairs of
//! modules still allowed to use each other. This test reads every `crate::<module>` path in
//! the library's code — not comments, not test modules or test files — and fails on a
//! module in no layer, a use of a higher layer, a cycle not listed, or a listed cycle that
//! is gone (so the list stays exact).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The lines of the fenced block ```` ```name ```` of `doc`.
fn block<'a>(doc: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("```{name}\n");
    let start = doc
        .find(&open)
        .unwrap_or_else(|| panic!("docs/architecture.md has no ```{name} block"))
        + open.len();
    let end = start + doc[start..].find("```").expect("the block ends");
    doc[start..end]
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// Code of a Rust file without comments and without what only tests compile: items after
/// `#[cfg(test)]` (a `mod x { … }`, a `#[test] fn`, an `impl`) and `mod x;` declarations
/// of test files.
fn code_of(text: &str) -> String {
    // 1. Comments out (string literals kept, so `"//"` in a string is not a comment).
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                out.push(b'"');
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' && i + 1 < b.len() {
                        i += 1;
                    }
                    i += 1;
                }
                out.push(b'"');
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    let s = String::from_utf8(out).expect("utf-8");
    // 2. Test-only items out.
    let mut code = String::with_capacity(s.len());
    let mut rest = s.as_str();
    while let Some(k) = rest.find("#[cfg(test)]") {
        code.push_str(&rest[..k]);
        let mut item = &rest[k + "#[cfg(test)]".len()..];
        // Further attributes of the same item.
        loop {
            let t = item.trim_start();
            if t.starts_with("#[") {
                item = &t[t.find(']').expect("attribute ends") + 1..];
            } else {
                item = t;
                break;
            }
        }
        // The item ends at its `;` or at the brace closing its first `{`.
        let semi = item.find(';').unwrap_or(item.len());
        let brace = item.find('{').unwrap_or(item.len());
        let end = if semi < brace {
            semi + 1
        } else {
            let mut depth = 0usize;
            let mut end = item.len();
            for (j, c) in item.char_indices().skip(brace) {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = j + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            end
        };
        rest = &item[end..];
    }
    code.push_str(rest);
    code
}

/// The top-level modules `code` names through `crate::`, including `use crate::{a, b}`.
fn uses(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut take = |name: &str| {
        if modules.contains(name) {
            found.insert(name.to_string());
        }
    };
    for (k, _) in code.match_indices("crate::") {
        let after = &code[k + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for part in inner.split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                take(&name);
            }
        } else {
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            take(&name);
        }
    }
    found
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read src")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// A test file: `tests.rs`, `tests_*.rs`, or anything under a `tests/` directory.
fn is_test_file(rel: &Path) -> bool {
    let name = rel.file_name().unwrap().to_string_lossy();
    name == "tests.rs"
        || name.starts_with("tests_")
        || rel.components().any(|c| c.as_os_str() == "tests")
}

#[test]
fn modules_use_only_their_layer_and_below() {
    let doc = std::fs::read_to_string(manifest().join("../../docs/architecture.md"))
        .expect("docs/architecture.md");
    let mut layer_of: BTreeMap<String, usize> = BTreeMap::new();
    for line in block(&doc, "layers") {
        let mut words = line.split_whitespace();
        let n: usize = words.next().unwrap().parse().expect("a layer number");
        for m in words {
            assert!(
                layer_of.insert(m.to_string(), n).is_none(),
                "module {m} is in two layers"
            );
        }
    }
    let mut known: BTreeSet<(String, String)> = BTreeSet::new();
    for line in block(&doc, "cycles") {
        let pair = line.split(':').next().unwrap();
        let mut w: Vec<String> = pair.split_whitespace().map(String::from).collect();
        assert_eq!(w.len(), 2, "a cycle names two modules: {line}");
        w.sort();
        assert!(
            !line[pair.len()..].trim_start_matches(':').trim().is_empty(),
            "the cycle {pair} says what removes it"
        );
        known.insert((w[0].clone(), w[1].clone()));
    }

    let src = manifest().join("src");
    let modules: BTreeSet<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|m| m != "lib")
        .collect();
    let unplaced: Vec<_> = modules
        .iter()
        .filter(|m| !layer_of.contains_key(*m))
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules in no layer of docs/architecture.md: {unplaced:?}"
    );
    let gone: Vec<_> = layer_of.keys().filter(|m| !modules.contains(*m)).collect();
    assert!(
        gone.is_empty(),
        "layers name modules that do not exist: {gone:?}"
    );

    // module -> module it uses -> the first file that does.
    let mut deps: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let mut read = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        if is_test_file(rel) || rel == Path::new("lib.rs") {
            continue;
        }
        read += 1;
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        for m in uses(&code, &modules) {
            if m != top {
                deps.entry(top.clone())
                    .or_default()
                    .entry(m)
                    .or_insert_with(|| rel.display().to_string());
            }
        }
    }
    assert!(read > 100, "read only {read} files: is src/ where it was?");

    let mut upward = Vec::new();
    let mut cycles = BTreeSet::new();
    for (a, used) in &deps {
        for (b, file) in used {
            if layer_of[b] > layer_of[a] {
                upward.push(format!(
                    "{file}: {a} (layer {}) uses {b} (layer {})",
                    layer_of[a], layer_of[b]
                ));
            }
            if deps.get(b).is_some_and(|u| u.contains_key(a)) {
                let mut w = [a.clone(), b.clone()];
                w.sort();
                cycles.insert((w[0].clone(), w[1].clone()));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "uses of a higher layer:\n{}",
        upward.join("\n")
    );
    let new: Vec<_> = cycles.difference(&known).collect();
    let fixed: Vec<_> = known.difference(&cycles).collect();
    let show = |v: &[&(String, String)]| {
        v.iter()
            .map(|(a, b)| {
                format!(
                    "{a} <-> {b} ({} / {})",
                    deps[a].get(b).map_or("-", |s| s),
                    deps[b].get(a).map_or("-", |s| s)
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(new.is_empty(), "new cycles:\n{}", show(&new));
    assert!(
        fixed.is_empty(),
        "cycles listed in docs/architecture.md that are gone (remove them from the list): {fixed:?}"
    );
}

/// The reader itself: comments and test items do not count, groups do.
#[test]
fn the_reader_sees_code_only() {
    let modules: BTreeSet<String> = ["net", "tcp", "sim", "app", "report"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let text = r#"
use crate::{net::Packet, tcp};
// crate::sim in a comment
/* crate::app in a block comment */
let url = "http://example.com"; let x = crate::report::f();
#[cfg(test)]
mod tests {
    use crate::sim::Sim;
    fn f() { if true { crate::app::g(); } }
}
#[cfg(test)]
mod tests_more;
"#;
    let found = uses(&code_of(text), &modules);
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        vec!["net".to_string(), "report".into(), "tcp".into()]
    );
}
