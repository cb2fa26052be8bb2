//! A report as text: the terminal table ([`Report::render`], [`Report::render_fit`]) and
//! Markdown ([`Report::markdown`]).

use super::*;

impl Report {
    /// The human-readable table.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "== {} ==", self.experiment);
        let wv = self
            .table
            .iter()
            .map(|r| r.variant.len())
            .max()
            .unwrap_or(7)
            .max(7);
        let wm = self
            .table
            .iter()
            .map(|r| r.metric.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let _ = writeln!(
            s,
            "{:wv$}  {:wm$}  {:>12}  {:>12}  verdict",
            "variant", "metric", "seed", "sim"
        );
        for r in &self.table {
            let [variant, metric, seed, sim, cause, verdict] = r.cells("-");
            let cause = match cause.is_empty() {
                true => cause,
                false => format!("  (cause run {cause})"),
            };
            let _ = writeln!(
                s,
                "{variant:wv$}  {metric:wm$}  {seed:>12}  {sim:>12}  {verdict}{cause}"
            );
        }
        if !self.text.is_empty() {
            let _ = writeln!(s, "\n{}", self.text.trim_end());
        }
        if !self.notes.is_empty() {
            let _ = writeln!(s);
            for n in &self.notes {
                let _ = writeln!(s, "note: {n}");
            }
        }
        let _ = writeln!(s);
        for c in &self.checks {
            let _ = writeln!(
                s,
                "[{}] ({}) {}: {}; why: {}{}",
                c.outcome.label(),
                c.against.label(),
                c.name,
                c.detail,
                c.why,
                cause_text(c)
            );
        }
        let _ = writeln!(s, "{}: {}", self.experiment, self.tally.line());
        s
    }

    /// The table for a terminal: [`render`](Self::render)'s content in lines of at most
    /// `width` characters (the CLI uses [`TERMINAL_WIDTH`]). The simulated value, its
    /// 95% half-width and its number of runs are three aligned columns; a cause run's
    /// value is a numbered footnote below the table; when the table is still wider than
    /// `width`, each variant heads its rows on a line of its own; notes and checks wrap
    /// with a hanging indent, a check's reason on its own line. The Markdown
    /// ([`markdown`](Self::markdown)) and the `.txt` of `--out` keep the lines whole.
    pub fn render_fit(&self, width: usize) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let mut put = |line: &str, indent: usize| {
            for l in wrap(line, width, indent) {
                s.push_str(&l);
                s.push('\n');
            }
        };
        put(&format!("== {} ==", self.experiment), 4);
        let mut notes: Vec<String> = Vec::new();
        let rows: Vec<[String; 7]> = self
            .table
            .iter()
            .map(|r| {
                let mut verdict = r.outcome.map_or("", |o| o.label()).to_string();
                if let Some(c) = &r.cause {
                    notes.push(format!(
                        "cause run {}: {}",
                        c.variant,
                        est_text(c.sim, c.ci95, c.runs)
                    ));
                    let _ = write!(verdict, " [{}]", notes.len());
                }
                [
                    r.variant.clone(),
                    r.metric.clone(),
                    r.seed.map(fmt_num).unwrap_or_else(|| "-".into()),
                    fmt_num(r.sim),
                    r.ci95
                        .map(|h| format!("± {}", fmt_num(h)))
                        .unwrap_or_default(),
                    r.runs.map(|n| n.to_string()).unwrap_or_default(),
                    verdict,
                ]
            })
            .collect();
        let head = [
            "variant", "metric", "seed", "sim", "± 95%", "runs", "verdict",
        ];
        let w: Vec<usize> = (0..7)
            .map(|i| {
                rows.iter()
                    .map(|r| r[i].chars().count())
                    .chain([head[i].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // Right-aligned numbers, left-aligned names; two spaces between columns.
        let line = |cells: &[&str], ws: &[usize], right: &[bool]| -> String {
            let mut l = String::new();
            for (i, c) in cells.iter().enumerate() {
                if i > 0 {
                    l.push_str("  ");
                }
                let pad = " ".repeat(ws[i].saturating_sub(c.chars().count()));
                if right[i] {
                    l.push_str(&pad);
                    l.push_str(c);
                } else {
                    l.push_str(c);
                    if i + 1 < cells.len() {
                        l.push_str(&pad);
                    }
                }
            }
            l.trim_end().to_string()
        };
        let right = [false, false, true, true, true, true, false];
        let flat: usize = w.iter().sum::<usize>() + 2 * 6;
        if flat <= width {
            put(&line(&head, &w, &right), 4);
            for r in &rows {
                let cells: Vec<&str> = r.iter().map(String::as_str).collect();
                put(&line(&cells, &w, &right), 4);
            }
        } else {
            // Each variant on a line of its own, its rows under it.
            let mut w2 = w[1..].to_vec();
            w2[0] = w2[0].max("  metric".len() - 2) + 2;
            let mut h: Vec<&str> = head[1..].to_vec();
            h[0] = "  metric";
            put("variant", 4);
            put(&line(&h, &w2, &right[1..]), 4);
            let mut last: Option<&str> = None;
            for r in &rows {
                if last != Some(r[0].as_str()) {
                    put(&r[0], 4);
                    last = Some(r[0].as_str());
                }
                let m = format!("  {}", r[1]);
                let mut cells: Vec<&str> = r[1..].iter().map(String::as_str).collect();
                cells[0] = &m;
                put(&line(&cells, &w2, &right[1..]), 4);
            }
        }
        for (i, n) in notes.iter().enumerate() {
            put(&format!("[{}] {n}", i + 1), 4);
        }
        if !self.text.is_empty() {
            put("", 0);
            for l in self.text.trim_end().lines() {
                put(l, 4);
            }
        }
        if !self.notes.is_empty() {
            put("", 0);
            for n in &self.notes {
                put(&format!("note: {n}"), 6);
            }
        }
        put("", 0);
        for c in &self.checks {
            put(
                &format!(
                    "[{}] ({}) {}: {}{}",
                    c.outcome.label(),
                    c.against.label(),
                    c.name,
                    c.detail,
                    cause_text(c)
                ),
                4,
            );
            put(&format!("    why: {}", c.why), 9);
        }
        put(&format!("{}: {}", self.experiment, self.tally.line()), 4);
        s
    }

    /// The report as a Markdown section (for `docs/reproductions.md`).
    pub fn markdown(&self, about: &str) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "## `{}`\n\n{about}\n", self.experiment);
        let causes = self.table.iter().any(|r| r.cause.is_some());
        if causes {
            let _ = writeln!(
                s,
                "| variant | metric | seed | sim | cause run | verdict |\n|---|---|---:|---:|---|---|"
            );
        } else {
            let _ = writeln!(
                s,
                "| variant | metric | seed | sim | verdict |\n|---|---|---:|---:|---|"
            );
        }
        for r in &self.table {
            let [variant, metric, seed, sim, cause, verdict] = r.cells("–");
            let cause = if causes {
                format!(" {cause} |")
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "| {variant} | {metric} | {seed} | {sim} |{cause} {verdict} |"
            );
        }
        if !self.text.is_empty() {
            let _ = writeln!(s, "\n```text\n{}\n```", self.text.trim_end());
        }
        let _ = writeln!(s, "\nChecks ({}):\n", self.tally.line());
        let _ = writeln!(
            s,
            "| verdict | against | check | comparison | why |\n|---|---|---|---|---|"
        );
        for c in &self.checks {
            let _ = writeln!(
                s,
                "| **{}** | {} | {} | {}{} | {} |",
                c.outcome.label(),
                c.against.label(),
                c.name,
                c.detail,
                cause_text(c),
                c.why,
            );
        }
        if !self.notes.is_empty() {
            let _ = writeln!(s, "\nNotes:\n");
            for n in &self.notes {
                let _ = writeln!(s, "- {n}");
            }
        }
        s.push('\n');
        s
    }
}

/// The Markdown page of one `cclab reproduce … --markdown FILE` (docs/reproductions.md is
/// one): a header naming the command, the seed and cclab's revision; how to read it
/// ([`super::super::RULES`]); each experiment's section; the totals.
pub struct Page {
    text: String,
    experiments: usize,
}

impl Page {
    /// How every page begins, to the revision: a file that begins so is cclab's to
    /// replace (a heading alone could be a user's own notes).
    pub const HEAD: &'static str = "# Reproductions\n\nGenerated by `cclab reproduce ";

    /// The page of `cclab reproduce NAME [--quick] --seed SEED`.
    pub fn new(name: &str, quick: bool, seed: u64) -> Page {
        Page {
            text: format!(
                "{}{name}{} --seed {seed} --markdown …` with cclab at revision {}; do not edit by hand.\n{}\n",
                Page::HEAD,
                if quick { " --quick" } else { "" },
                crate::GIT_REV,
                super::super::RULES
            ),
            experiments: 0,
        }
    }

    /// Experiment `e`'s report, its section headed by the seed document and what it is.
    pub fn add(&mut self, e: &super::super::Experiment, r: &Report) {
        self.text
            .push_str(&r.markdown(&format!("Seed {}: {}.", e.seed_doc, e.about)));
        self.experiments += 1;
    }

    /// The page, ended with the totals over every experiment added.
    pub fn finish(mut self, total: &Tally) -> String {
        self.text.push_str(&format!(
            "## Totals\n\nOver {} experiment(s): {}.\n",
            self.experiments,
            total.line()
        ));
        self.text
    }
}

/// The width of the terminal tables (`Report::render_fit`): lines of at most this many
/// characters, whatever the terminal (the output is the same everywhere).
pub const TERMINAL_WIDTH: usize = 100;

/// `line` in lines of at most `width` characters (not bytes), broken at spaces where it
/// can be, a word longer than a line cut; lines after the first start with `indent`
/// spaces. A line that fits is returned as it is.
pub fn wrap(line: &str, width: usize, indent: usize) -> Vec<String> {
    if line.chars().count() <= width {
        return vec![line.to_string()];
    }
    let indent = indent.min(width / 2);
    let lead = line.len() - line.trim_start().len();
    let mut out = Vec::new();
    let mut cur = line[..lead].to_string();
    let mut n = cur.chars().count();
    let mut empty = true; // no word on `cur` yet
    for word in line[lead..].split(' ').filter(|w| !w.is_empty()) {
        if !empty && n + 1 + word.chars().count() > width {
            out.push(std::mem::replace(&mut cur, " ".repeat(indent)));
            n = indent;
            empty = true;
        }
        if !empty {
            cur.push(' ');
            n += 1;
        }
        for ch in word.chars() {
            if n >= width {
                out.push(std::mem::replace(&mut cur, " ".repeat(indent)));
                n = indent;
            }
            cur.push(ch);
            n += 1;
        }
        empty = false;
    }
    out.push(cur);
    out
}

/// "; cause run X (config): comparison → reading", or nothing.
pub(super) fn cause_text(c: &Check) -> String {
    match &c.cause {
        None => String::new(),
        Some(k) => format!(
            "; cause run `{}` ({}): {} → {}",
            k.variant,
            k.config,
            k.detail,
            match k.reading {
                Reading::Within => "reproduces",
                Reading::Outside => "misses too",
                Reading::Open => "not resolved",
            }
        ),
    }
}

/// The text of a mean's comparison is in `verdict::read`; this is its "(mean of n runs …)"
/// part for callers that print a mean beside a claim.
pub fn mean_text(m: MeanCi) -> String {
    if m.n > 1 {
        format!("{} ({})", fmt_num(m.mean), runs_of(m.n, m.half))
    } else {
        fmt_num(m.mean)
    }
}
