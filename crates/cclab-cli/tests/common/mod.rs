//! Helpers shared by the CLI's integration tests (each test crate uses some of them).
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// `cclab ARGS`, run from the CLI crate's folder.
pub fn cclab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cclab runs")
}

/// The run exited 0; otherwise the assertion shows its stderr.
pub fn assert_exit_0(o: &Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The path of `examples/<name>` in the repository.
pub fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}
