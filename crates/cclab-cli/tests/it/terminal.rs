//! What cclab prints, and where: a full or closed stdout/stderr never panics (f06), and
//! the terminal tables of `cclab reproduce` fit 100 columns with the Markdown unchanged
//! (f14).

use crate::common;

use std::fs::File;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn tmpdir(name: &str) -> PathBuf {
    common::fresh_dir("term", name)
}

/// A short run of examples/loss.toml into `out` (0.2 s simulated).
fn run_args(out: &Path) -> Vec<String> {
    [
        "run",
        &common::example("loss.toml"),
        "--out",
        out.to_str().unwrap(),
        "--set",
        "sim.duration=200ms",
        "-q",
    ]
    .map(String::from)
    .to_vec()
}

/// A sweep of two short points of examples/loss.toml, in `dir`.
fn sweep_args(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(common::example("loss.toml")).unwrap();
    let f = dir.join("sweep.toml");
    std::fs::write(
        &f,
        format!("{text}\n[sweep]\n\"sim.duration\" = [\"100ms\", \"200ms\"]\nseeds = 1\n"),
    )
    .unwrap();
    [
        "sweep",
        f.to_str().unwrap(),
        "--out",
        dir.join("sw").to_str().unwrap(),
        "-q",
    ]
    .map(String::from)
    .to_vec()
}

/// Every command that prints on stdout, with its arguments (fresh folders under `dir`).
fn commands(dir: &Path) -> Vec<(&'static str, Vec<String>)> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut json_run = run_args(&dir.join("json"));
    json_run.push("--json".into());
    vec![
        ("run", run_args(&dir.join("run"))),
        ("run --json", json_run),
        ("list", s(&["list"])),
        ("list --keys", s(&["list", "--keys"])),
        ("sweep", sweep_args(dir)),
        (
            "reproduce",
            s(&["reproduce", "mbecn-lost-updates", "--quick", "-q"]),
        ),
        (
            "reproduce --json",
            s(&["reproduce", "mbecn-lost-updates", "--quick", "--json", "-q"]),
        ),
        ("--help", s(&["--help"])),
    ]
}

fn cclab_with(args: &[String], stdout: Stdio, stderr: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(stdout)
        .stderr(stderr)
        .output()
        .expect("cclab runs")
}

fn dev_full() -> Stdio {
    Stdio::from(File::options().write(true).open("/dev/full").unwrap())
}

/// `cclab … > /dev/full` exits 2 and says why on stderr; before, it panicked (exit 101).
#[test]
fn f06_a_full_stdout_exits_2_with_a_message_not_a_panic() {
    let dir = tmpdir("full");
    for (name, args) in commands(&dir) {
        let o = cclab_with(&args, dev_full(), Stdio::piped());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert!(
            err.contains("cannot write to stdout: No space left on device"),
            "{name}: {err}"
        );
    }
    // The results were written before the print failed.
    assert!(dir.join("run/run.json").is_file());
    assert!(dir.join("sw/runs.csv").is_file());
}

/// With stderr full too, the exit code alone says it: 2, silently.
#[test]
fn f06_full_stdout_and_stderr_exit_2_silently() {
    let dir = tmpdir("fullboth");
    for (name, args) in commands(&dir) {
        let o = cclab_with(&args, dev_full(), dev_full());
        assert_eq!(o.status.code(), Some(2), "{name}");
    }
    // Bad input with a full stderr: still exit 2 (before: 101, the panic of eprintln!).
    let bad = ["run".to_string(), "/nonexistent/scenario.toml".into()];
    let o = cclab_with(&bad, Stdio::null(), dev_full());
    assert_eq!(o.status.code(), Some(2));
    let mut bad_sweep = sweep_args(&dir);
    bad_sweep[1] = "/nonexistent/sweep.toml".into();
    let o = cclab_with(&bad_sweep, Stdio::null(), dev_full());
    assert_eq!(o.status.code(), Some(2));
    let bad_exp = ["reproduce".to_string(), "no-such-experiment".into()];
    let o = cclab_with(&bad_exp, Stdio::null(), dev_full());
    assert_eq!(o.status.code(), Some(2));
}

/// A reader that went away (`cclab … | head -1`, the pipe closed before cclab writes):
/// cclab ends quietly, as command-line tools do: SIGPIPE, or exit 141 where the signal is
/// ignored; never a panic or an error message.
#[test]
fn f06_a_closed_pipe_ends_quietly() {
    let dir = tmpdir("pipe");
    for (name, args) in commands(&dir) {
        let o = cclab_with(&args, closed_pipe(), Stdio::piped());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.signal() == Some(13) || o.status.code() == Some(141),
            "{name}: {:?} {err}",
            o.status
        );
        assert!(err.is_empty(), "{name}: {err}");
    }
    assert!(
        dir.join("run/run.json").is_file(),
        "written before printing"
    );
    // A closed stderr on bad input: the same.
    let bad = ["run".to_string(), "/nonexistent/scenario.toml".into()];
    let st = cclab_with(&bad, Stdio::null(), closed_pipe()).status;
    assert!(st.signal() == Some(13) || st.code() == Some(141), "{st:?}");
}

/// The write end of a pipe whose reader is closed already.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Stdio::from(writer)
}

/// No `print!`, `println!`, `eprint!` or `eprintln!` in the CLI's code: each panics when
/// its stream fails. Everything goes through `term.rs`.
#[test]
fn f06_the_cli_has_no_print_macro_that_can_panic() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap();
            for m in ["print!(", "println!(", "eprint!(", "eprintln!("] {
                let hit = code.match_indices(m).any(|(at, _)| {
                    // `outln!(`/`errln!(` are ours; `print!(` inside `eprint!(` counts once.
                    !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
                });
                assert!(!hit, "{}:{}: {line}", p.display(), i + 1);
            }
        }
    }
}

/// Lines over 100 characters (not bytes: "±", "→" are one) in `text`.
fn long_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.chars().count() > 100)
        .map(|l| l.chars().take(120).collect())
        .collect()
}

/// `cclab reproduce` prints tables that fit 100 columns: before, mbecn-star's longest
/// line was 1,229 characters and its "± x (n runs)" pushed the verdicts out of line.
/// Cause runs are footnotes under the table; the numbers are aligned columns.
#[test]
fn f14_reproduce_fits_100_columns_with_aligned_columns() {
    for name in ["mbecn-star", "mbecn-lost-updates", "reno-recovery"] {
        let o = common::cclab(&["reproduce", name, "--quick", "-q"]);
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(o.status.code().is_some_and(|c| c < 2), "{name}");
        assert!(text.contains(&format!("== {name} ==")), "{text}");
        assert_eq!(long_lines(&text), Vec::<String>::new(), "{name}");
    }
    let o = common::cclab(&["reproduce", "mbecn-star", "--quick", "-q"]);
    let text = String::from_utf8(o.stdout).unwrap();
    let head = text.lines().nth(1).unwrap();
    assert!(
        head.starts_with("variant") && head.contains("± 95%"),
        "{head}"
    );
    // Every verdict starts in the same column as the header's, and a cause run is a
    // numbered note below the table.
    let col = head.find("verdict").unwrap();
    let rows: Vec<&str> = text
        .lines()
        .skip(2)
        .take_while(|l| !l.is_empty() && !l.starts_with('['))
        .collect();
    assert!(rows.len() > 10);
    for r in &rows {
        if let Some(v) = ["REPRODUCES", "EXPLAINED", "UNRESOLVED", "FAILS"]
            .iter()
            .find_map(|v| r.find(v))
        {
            assert_eq!(v, col, "{r}");
        }
    }
    assert!(text.contains("EXPLAINED [1]"), "{text}");
    assert!(
        text.contains("\n[1] cause run client_80mbit_kernel47: "),
        "{text}"
    );
}

/// The Markdown (`--markdown`) and the `.txt` of `--out` keep every line whole: the
/// full text of every check (checked against the JSON report of the same run). Their
/// bytes are those of the binary before f14 (but the revision in the Markdown's first
/// lines): checked by hand, see the commit.
#[test]
fn f14_markdown_and_txt_keep_the_full_text() {
    let dir = tmpdir("md");
    let md = dir.join("r.md");
    let out = dir.join("o");
    let o = common::cclab(&[
        "reproduce",
        "mbecn-star",
        "--quick",
        "--json",
        "-q",
        "--markdown",
        md.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let json: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().next().unwrap()).unwrap();
    let md = std::fs::read_to_string(&md).unwrap();
    let txt = std::fs::read_to_string(out.join("mbecn-star.txt")).unwrap();
    let checks = json["checks"].as_array().unwrap();
    assert!(checks.len() > 5);
    for c in checks {
        let detail = c["detail"].as_str().unwrap();
        let why = c["why"].as_str().unwrap();
        assert!(md.contains(detail) && md.contains(why), "{detail}");
        assert!(txt.contains(detail) && txt.contains(why), "{detail}");
    }
    assert!(!long_lines(&md).is_empty(), "the Markdown is not wrapped");
    assert!(!long_lines(&txt).is_empty(), "the .txt is not wrapped");
}
