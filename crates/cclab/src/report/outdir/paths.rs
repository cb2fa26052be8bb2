//! Paths checked before anything runs: lengths (`PATH_MAX`, `NAME_MAX`), links, parents,
//! writability ([`resolve`]).

use super::*;

pub(super) fn unique() -> u64 {
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

pub(super) fn is_not_found(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound
}

/// A name of a file directly in a folder: no separators, not `.`/`..`, not empty.
pub(super) fn plain_file_name(name: &str) -> bool {
    let p = Path::new(name);
    !name.is_empty() && name != "." && name != ".." && p.file_name() == Some(p.as_os_str())
}

/// The lengths of `path`: the whole under `PATH_MAX` with `extra` bytes to spare, each
/// component at most `NAME_MAX`.
pub(super) fn check_lengths(path: &Path, extra: usize) -> Result<(), String> {
    let len = path.as_os_str().len();
    if len + extra >= PATH_MAX {
        return Err(format!(
            "{}…: the path is {len} bytes long; paths may be at most {} bytes{}",
            shorten(&path.to_string_lossy(), 60),
            PATH_MAX - 1,
            if extra > 0 {
                format!(" ({extra} kept for the files cclab writes inside)")
            } else {
                String::new()
            }
        ));
    }
    for c in path.components() {
        if let Component::Normal(n) = c {
            if n.len() > NAME_MAX {
                return Err(format!(
                    "{}: the name {}… is {} bytes long; a file or folder name may be at most {NAME_MAX} bytes",
                    shorten(&path.to_string_lossy(), 60),
                    shorten(&n.to_string_lossy(), 24),
                    n.len()
                ));
            }
        }
    }
    Ok(())
}

pub(super) fn shorten(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// May this process create files in directory `dir`?
pub(super) fn writable(dir: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
            .map_err(|_| format!("{}: a path may not hold a NUL byte", dir.display()))?;
        // SAFETY: `c` is a NUL-terminated path that lives across the call.
        if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err(format!("cannot write into {}: {e}", dir.display()));
        }
    }
    #[cfg(not(unix))]
    {
        let m = std::fs::metadata(dir).map_err(|e| format!("cannot use {}: {e}", dir.display()))?;
        if m.permissions().readonly() {
            return Err(format!(
                "cannot write into {}: it is read-only",
                dir.display()
            ));
        }
    }
    Ok(())
}

/// Check an output path before anything runs and resolve it once: its lengths, then
/// either the place itself (a link is followed here, once, and must name something) or,
/// for a place that does not exist yet, its nearest existing ancestor (a folder this
/// process may write in; the rest of the path may not use `..`). Returns the absolute path
/// with every link resolved; `extra`: bytes the caller adds inside it.
pub fn resolve(path: &Path, extra: usize) -> Result<PathBuf, String> {
    let shown = path.display();
    if path.as_os_str().is_empty() {
        return Err("the output path is empty".into());
    }
    if path.as_os_str().to_string_lossy().contains('\0') {
        return Err(format!("{shown}: a path may not hold a NUL byte"));
    }
    check_lengths(path, extra)?;
    let resolved = match std::fs::symlink_metadata(path) {
        Ok(m) => match std::fs::canonicalize(path) {
            Ok(p) => p,
            Err(e) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(path)
                    .map(|t| t.display().to_string())
                    .unwrap_or_default();
                return Err(format!(
                    "{shown} is a symbolic link to {target}, which cannot be reached ({e}); cclab resolves a link given as an output place once, and this one names nothing: remove it, or give the place itself"
                ));
            }
            Err(e) => return Err(format!("cannot use {shown}: {e}")),
        },
        // Absent, or under something that is not a folder (ENOTDIR): the ancestors say.
        Err(e) if is_not_found(&e) || e.raw_os_error() == Some(20) => {
            let mut tail = Vec::new();
            let mut anc = path;
            loop {
                let parent = match anc.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                };
                match anc.file_name() {
                    Some(n) => tail.push(n.to_os_string()),
                    None => {
                        return Err(format!(
                            "cannot create {shown}: `..` in a path that does not exist yet"
                        ))
                    }
                }
                match std::fs::symlink_metadata(parent) {
                    Err(e)
                        if (is_not_found(&e) || e.raw_os_error() == Some(20))
                            && parent != Path::new(".") =>
                    {
                        anc = parent
                    }
                    Err(e) => {
                        return Err(format!("cannot create {shown}: {}: {e}", parent.display()))
                    }
                    Ok(m) => {
                        let dir = std::fs::metadata(parent).ok().filter(|m| m.is_dir());
                        if dir.is_none() {
                            let why = if m.file_type().is_symlink() {
                                "is a symbolic link to nothing or to a file"
                            } else {
                                "is not a folder"
                            };
                            return Err(format!(
                                "cannot create {shown}: {} {why}",
                                parent.display()
                            ));
                        }
                        writable(parent)?;
                        let mut p = std::fs::canonicalize(parent)
                            .map_err(|e| format!("cannot use {}: {e}", parent.display()))?;
                        for n in tail.iter().rev() {
                            p.push(n);
                        }
                        break p;
                    }
                }
            }
        }
        Err(e) => return Err(format!("cannot use {shown}: {e}")),
    };
    check_lengths(&resolved, extra)?;
    Ok(resolved)
}

// ----- the lock
