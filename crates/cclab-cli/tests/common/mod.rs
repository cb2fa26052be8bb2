//! Helpers shared by the CLI's integration tests.

use std::path::Path;

/// The path of `examples/<name>` in the repository.
pub fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}
