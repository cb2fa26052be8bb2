//! A sweep's folder: what may be in it before a sweep runs there ([`check_dir`]).

use super::*;

/// Why a sweep refuses `points` that is not a folder.
pub(super) fn points_refused(points: &Path) -> String {
    format!(
        "{} is not a folder a sweep made (a symbolic link or a file); cclab follows no link inside an output folder: move it away, or choose another --out",
        points.display()
    )
}

/// Check the sweep folder `dir` before anything runs: the path (as [`OutDir::check`]
/// does), then new, empty, or a sweep's (it has `sweep.json`) holding only what a sweep
/// writes: its manifest, `points/` (a folder, not a link) and the files the manifest lists
/// (plain files). Returns the folder resolved and the files its manifest lists.
///
/// [`OutDir::check`]: crate::report::OutDir::check
pub fn check_dir(dir: &Path) -> Result<(PathBuf, Vec<String>), String> {
    check_contents(dir, true)
}

/// [`check_dir`]; `probe`: first ask whether another process holds the folder's lock (not
/// under this process's own lock, which the probe would find taken).
pub(super) fn check_contents(dir: &Path, probe: bool) -> Result<(PathBuf, Vec<String>), String> {
    let shown = dir.display();
    let dir = crate::report::outdir::resolve(dir, 128)?;
    match std::fs::metadata(&dir) {
        Err(_) => Ok((dir, Vec::new())),
        Ok(m) if !m.is_dir() => Err(format!(
            "cannot write into {shown}: it exists and is not a folder"
        )),
        Ok(_) => {
            // A sweep under way there: say so, rather than what its half-written state
            // looks like.
            if let Some(busy) = crate::report::outdir::holder(&dir).filter(|_| probe) {
                return Err(busy);
            }
            let entries: Vec<String> = std::fs::read_dir(&dir)
                .map_err(|e| format!("cannot read {shown}: {e}"))?
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != STATE)
                .collect();
            if entries.is_empty() {
                return Ok((dir, Vec::new()));
            }
            let m = dir.join(MANIFEST);
            let manifest = std::fs::symlink_metadata(&m)
                .ok()
                .filter(|md| md.is_file())
                .and_then(|_| {
                    crate::scenario::read_text_limited(&m, 2 * crate::scenario::MAX_INPUT_BYTES)
                        .ok()
                })
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .filter(|v| v.get("sweep").is_some() && v.get("cclab").is_some());
            let Some(manifest) = manifest else {
                let mut list: Vec<&str> = entries.iter().take(3).map(String::as_str).collect();
                if entries.len() > 3 {
                    list.push("…");
                }
                return Err(format!(
                    "{shown} holds files cclab did not write ({}); `cclab sweep` writes only into a new or empty folder, or one a sweep wrote before (it has a plain {MANIFEST}). Choose another --out",
                    list.join(", ")
                ));
            };
            let listed: Vec<String> = manifest
                .get("files")
                .and_then(|f| f.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|f| f.as_str())
                        .filter(|f| !f.contains(['/', '\\']) && !f.starts_with('.'))
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default();
            for n in &entries {
                let p = dir.join(n);
                let meta = std::fs::symlink_metadata(&p);
                if n == POINTS {
                    if !meta.is_ok_and(|m| m.is_dir()) {
                        return Err(points_refused(&p));
                    }
                } else if n != MANIFEST && !listed.contains(n) {
                    return Err(format!(
                        "{} is not a file a sweep wrote (its {MANIFEST} does not list it); cclab does not write into a sweep folder that holds other files (move it away, or choose another --out)",
                        p.display()
                    ));
                } else if !meta.is_ok_and(|m| m.is_file()) {
                    return Err(format!(
                        "{} is not a plain file (a symbolic link?); cclab follows no link inside an output folder: move it away",
                        p.display()
                    ));
                }
            }
            Ok((dir, listed))
        }
    }
}
