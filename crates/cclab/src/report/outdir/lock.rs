//! The lock of an output folder: an advisory `flock` on `.cclab-tmp/lock` holding the
//! holder's process id, from the check to the end of a run.

use super::*;

/// The lock of an output folder, held until dropped: an exclusive `flock` on
/// `.cclab-tmp/lock`, which holds the holder's process id.
#[derive(Debug)]
pub struct Lock {
    file: std::fs::File,
    pub(super) dir: PathBuf,
}

#[cfg(unix)]
pub(super) fn open_nofollow(p: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(p)
}

#[cfg(not(unix))]
pub(super) fn open_nofollow(p: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(p)
}

/// Is `f` the file at `p` (not a link to it, not a file that has replaced it)?
pub(super) fn same_file(f: &std::fs::File, p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (f.metadata(), std::fs::symlink_metadata(p)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (f, p);
        true
    }
}

/// `.cclab-tmp` of folder `dir`, created if absent; never a link.
pub(super) fn state_dir(dir: &Path) -> Result<PathBuf, String> {
    let state = dir.join(STATE);
    match std::fs::create_dir(&state) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("cannot create {}: {e}", state.display())),
    }
    let m = std::fs::symlink_metadata(&state)
        .map_err(|e| format!("cannot use {}: {e}", state.display()))?;
    if !m.is_dir() {
        return Err(format!(
            "{} is {}, not cclab's working folder; cclab follows no link inside an output folder and replaces nothing it did not write: move it away",
            state.display(),
            if m.file_type().is_symlink() { "a symbolic link" } else { "a file" }
        ));
    }
    Ok(state)
}

impl Lock {
    /// Take the lock of folder `dir` (which exists), or say which process holds it.
    pub fn acquire(dir: &Path) -> Result<Lock, String> {
        for _ in 0..50 {
            let state = state_dir(dir)?;
            let lp = state.join(LOCK);
            let file = open_nofollow(&lp).map_err(|e| {
                if std::fs::symlink_metadata(&lp).is_ok_and(|m| !m.is_file()) {
                    format!("{} is not a file cclab made (a link?); cclab follows no link inside an output folder: move it away", lp.display())
                } else {
                    format!("cannot create {}: {e}", lp.display())
                }
            })?;
            #[cfg(unix)]
            {
                use std::os::unix::io::AsRawFd;
                // SAFETY: a valid open descriptor.
                if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                    let e = std::io::Error::last_os_error();
                    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                        let pid = std::fs::read_to_string(&lp)
                            .ok()
                            .and_then(|s| s.trim().parse::<u32>().ok());
                        let who = pid.map_or("another cclab process".to_string(), |p| {
                            format!("cclab process {p}")
                        });
                        return Err(format!(
                            "{} is in use: {who} holds its lock ({}); wait until it ends, or choose another output folder",
                            dir.display(),
                            lp.display()
                        ));
                    }
                    return Err(format!("cannot lock {}: {e}", lp.display()));
                }
            }
            // Still the lock file at that name? (Its holder removes it when done.)
            if !same_file(&file, &lp) {
                continue;
            }
            let mut file = file;
            let _ = file.set_len(0);
            let _ = writeln!(file, "{}", std::process::id());
            return Ok(Lock {
                file,
                dir: dir.to_path_buf(),
            });
        }
        Err(format!(
            "cannot take the lock of {}: it keeps changing",
            dir.display()
        ))
    }
}

/// Who holds the lock of folder `dir`, if another process does: the message
/// [`Lock::acquire`] would give. Creates nothing (a shared, non-blocking probe of an
/// existing lock file).
pub fn holder(dir: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        use std::os::unix::io::AsRawFd;
        let lp = dir.join(STATE).join(LOCK);
        let f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&lp)
            .ok()?;
        // SAFETY: a valid open descriptor; the probe is released when `f` closes.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) } == 0 {
            return None;
        }
        let pid = std::fs::read_to_string(&lp)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok());
        let who = pid.map_or("another cclab process".to_string(), |p| {
            format!("cclab process {p}")
        });
        Some(format!(
            "{} is in use: {who} holds its lock ({}); wait until it ends, or choose another output folder",
            dir.display(),
            lp.display()
        ))
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let lp = self.dir.join(STATE).join(LOCK);
        if same_file(&self.file, &lp) {
            let _ = std::fs::remove_file(&lp);
            let _ = std::fs::remove_dir(self.dir.join(STATE));
        }
        // Closing the file releases the lock.
    }
}

// ----- the journal
