//! Build script: record the git revision the library is built from, for the provenance
//! cclab writes into every output folder (`run.json`, `summary.json`). Outside a git
//! checkout (a source tarball) the revision is "unknown".

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let rev = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let rev = if dirty && rev != "unknown" {
        format!("{rev}-modified")
    } else {
        rev
    };
    println!("cargo:rustc-env=CCLAB_GIT_REV={rev}");
    // Rebuild when the checked-out commit or the index changes.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        for f in ["HEAD", "index"] {
            println!("cargo:rerun-if-changed={dir}/{f}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
