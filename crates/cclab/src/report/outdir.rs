//! Output folders: cclab never destroys what it did not write.
//!
//! **Ownership by record.** A folder cclab writes holds a manifest, `run.json`: what wrote
//! it (cclab's version and git revision, the command line, the resolved scenario) and the
//! files it wrote. Only files the manifest lists are ever replaced or removed; no file is
//! ever removed for its name or because a process is gone. Before anything runs,
//! [`OutDir::check`] accepts a folder only if it is new, empty, or cclab's own (it has a
//! manifest), and refuses — naming the folder and why — a folder that holds files cclab
//! did not write, unless `--force` asks to write beside them. Even then a file cclab did not
//! write is never replaced, moved or read: a planned output whose name is taken by a
//! foreign file stops the run before it starts.
//!
//! **Temporaries** live only in directories cclab creates itself (`mkdir`, which fails if
//! the name exists) and records first: cclab's working directory in the folder,
//! `.cclab-tmp/`, holds the lock and a journal (`journal.json`) that names the staging
//! directory and every file in it *before* they are made; clean-up removes exactly what
//! the journal lists, then the directories if they are empty.
//!
//! **A lock** per folder: `.cclab-tmp/lock`, an advisory `flock` held from the check to the
//! end of the run, with the holder's process id in it. A second cclab process (run,
//! sweep, reproduce, Python) says which process holds it and stops before simulating.
//!
//! **All or nothing.** A run's files are written into a fresh staging directory, a hidden
//! sibling of the folder (`.NAME.cclab-stage-PID-N`), the manifest last; then the staging
//! directory and the folder are swapped with one `renameat2(RENAME_EXCHANGE)`, and the old
//! folder (now at the staging name) is removed by its manifest. A reader, an error or a
//! kill sees the old folder whole or the new one whole. Where the folder holds files cclab
//! did not write (`--force`, or a user's file beside a manifest) they must not move, so the
//! staging directory is inside `.cclab-tmp/` and the files are renamed into place one by
//! one, the manifest last, under a journal that is *rolled forward*: the journal marks the
//! install once every new file is complete, so whoever takes the folder's lock next (the
//! next run, sweep or reproduce into it) finishes the renames before doing anything else.
//! Forward rather than back because at that point the new result is complete on disk and
//! finishing needs no copy of the old files; rolling back would have to keep them. (The
//! same install is used where the exchange is not available: not Linux, or a file system
//! without `RENAME_EXCHANGE`.)
//!
//! **Paths** are checked before anything runs ([`resolve`]): length (`PATH_MAX`, `NAME_MAX`
//! per component), a dangling link, a parent that is not a folder, writability. The
//! folder given is resolved once (a link given as `--out` names the folder it points to,
//! and stays a link); inside the folder no link is ever followed: a `.cclab-tmp`, a
//! manifest or a file the run would write that is a link stops the run before it starts.
//!
//! Test hook: `CCLAB_FAULT=after-rename:N` kills the process (SIGKILL) when an install has
//! done N renames (the exchange counts as one), to show what a kill leaves.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// The manifest of an output folder.
pub const MANIFEST: &str = "run.json";
/// cclab's working directory inside an output folder: the lock, the journal, staging.
pub const STATE: &str = ".cclab-tmp";
const LOCK: &str = "lock";
const JOURNAL: &str = "journal.json";
const JOURNAL_NEW: &str = "journal.json.new";
/// Longest path (bytes) cclab accepts, as Linux's `PATH_MAX` counts it (with the NUL).
pub const PATH_MAX: usize = 4096;
/// Longest name of one path component (bytes), Linux's and macOS's `NAME_MAX`.
pub const NAME_MAX: usize = 255;
/// Room kept under `PATH_MAX` for what cclab adds inside a folder (`.cclab-tmp/stage-…/`).
const ROOM: usize = 64;

fn unique() -> u64 {
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn is_not_found(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound
}

/// A name of a file directly in a folder: no separators, not `.`/`..`, not empty.
fn plain_file_name(name: &str) -> bool {
    let p = Path::new(name);
    !name.is_empty() && name != "." && name != ".." && p.file_name() == Some(p.as_os_str())
}

/// The lengths of `path`: the whole under `PATH_MAX` with `extra` bytes to spare, each
/// component at most `NAME_MAX`.
fn check_lengths(path: &Path, extra: usize) -> Result<(), String> {
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

fn shorten(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// May this process create files in directory `dir`?
fn writable(dir: &Path) -> Result<(), String> {
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

/// The lock of an output folder, held until dropped: an exclusive `flock` on
/// `.cclab-tmp/lock`, which holds the holder's process id.
#[derive(Debug)]
pub struct Lock {
    file: std::fs::File,
    dir: PathBuf,
}

#[cfg(unix)]
fn open_nofollow(p: &Path) -> std::io::Result<std::fs::File> {
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
fn open_nofollow(p: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(p)
}

/// Is `f` the file at `p` (not a link to it, not a file that has replaced it)?
fn same_file(f: &std::fs::File, p: &Path) -> bool {
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
fn state_dir(dir: &Path) -> Result<PathBuf, String> {
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

/// What cclab is doing in a folder, written in `.cclab-tmp/journal.json` before it does it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
struct Journal {
    /// The staging directory: a name in the folder's parent (`sibling`) or in its
    /// `.cclab-tmp`.
    stage: String,
    #[serde(default)]
    sibling: bool,
    /// The files in it (listed before each is made).
    files: Vec<String>,
    /// Every file is complete: rename `files` into the folder in order (the manifest last),
    /// then remove `stale`.
    #[serde(default)]
    install: bool,
    #[serde(default)]
    stale: Vec<String>,
}

impl Journal {
    fn valid(&self) -> bool {
        plain_file_name(&self.stage)
            && (!self.sibling
                || (self.stage.starts_with('.') && self.stage.contains(".cclab-stage-")))
            && self
                .files
                .iter()
                .chain(&self.stale)
                .all(|f| plain_file_name(f))
    }
}

fn stage_path(dir: &Path, j: &Journal) -> PathBuf {
    if j.sibling {
        dir.parent().unwrap_or(Path::new("/")).join(&j.stage)
    } else {
        dir.join(STATE).join(&j.stage)
    }
}

fn write_journal(dir: &Path, j: &Journal) -> Result<(), String> {
    let state = state_dir(dir)?;
    let text = serde_json::to_string(j).expect("journal serialises") + "\n";
    let new = state.join(JOURNAL_NEW);
    std::fs::write(&new, text)
        .and_then(|_| std::fs::rename(&new, state.join(JOURNAL)))
        .map_err(|e| format!("cannot write {}: {e}", state.join(JOURNAL).display()))
}

fn read_journal(dir: &Path) -> Result<Option<Journal>, String> {
    let p = dir.join(STATE).join(JOURNAL);
    match std::fs::symlink_metadata(&p) {
        Err(_) => return Ok(None),
        Ok(m) if !m.is_file() => {
            return Err(format!(
                "{} is not a file cclab wrote (a link or a folder); move it away",
                p.display()
            ))
        }
        Ok(_) => {}
    }
    let text =
        std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
    match serde_json::from_str::<Journal>(&text) {
        Ok(j) if j.valid() => Ok(Some(j)),
        _ => Err(format!(
            "{} is not a journal cclab wrote; cclab will not act on it: move it away",
            p.display()
        )),
    }
}

fn clear_journal(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(STATE).join(JOURNAL));
}

/// Remove a staging directory by its record: the `files` listed, its own `.cclab-tmp`
/// (journal, lock), then the directories if empty. Nothing else is touched.
fn remove_stage(stage: &Path, files: &[String]) {
    for f in files {
        let _ = std::fs::remove_file(stage.join(f));
    }
    let st = stage.join(STATE);
    for f in [JOURNAL, JOURNAL_NEW, LOCK] {
        let _ = std::fs::remove_file(st.join(f));
    }
    let _ = std::fs::remove_dir(&st);
    let _ = std::fs::remove_dir(stage);
}

/// Remove `p` if it is a plain file (never a folder; a link itself, not what it names).
fn remove_plain(p: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_file() => {
            std::fs::remove_file(p).map_err(|e| format!("cannot remove {}: {e}", p.display()))
        }
        _ => Ok(()),
    }
}

/// Finish or undo what a process that ended (killed) left in folder `dir` (whose lock this
/// process holds), by the journal: an install that was marked complete is rolled forward
/// (the rest of its renames, its stale files removed); a staging directory that was not is
/// removed by its record.
pub fn recover(dir: &Path) -> Result<(), String> {
    let _ = std::fs::remove_file(dir.join(STATE).join(JOURNAL_NEW));
    let Some(j) = read_journal(dir)? else {
        return Ok(());
    };
    let stage = stage_path(dir, &j);
    if j.install {
        for f in &j.files {
            let src = stage.join(f);
            if std::fs::symlink_metadata(&src).is_ok() {
                std::fs::rename(&src, dir.join(f)).map_err(|e| {
                    format!(
                        "cannot finish the install an earlier cclab process began in {} ({} → {}: {e}); fix that, and run again",
                        dir.display(),
                        src.display(),
                        dir.join(f).display()
                    )
                })?;
            }
        }
        for s in &j.stale {
            remove_plain(&dir.join(s))?;
        }
    }
    remove_stage(&stage, &j.files);
    clear_journal(dir);
    Ok(())
}

/// The test hook: `CCLAB_FAULT=after-rename:N` kills this process once an install has done
/// N renames.
fn fault(renames: usize) {
    static AT: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let at = AT.get_or_init(|| {
        std::env::var("CCLAB_FAULT")
            .ok()
            .and_then(|v| v.strip_prefix("after-rename:").and_then(|n| n.parse().ok()))
    });
    if *at == Some(renames) {
        #[cfg(unix)]
        // SAFETY: signalling this process.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
        std::process::abort();
    }
}

/// Rename every file of the staging directory that journal `j` records into `dir`, in the
/// order of `order` (the manifest last), then remove `stale` (files of the previous
/// manifest this install does not write), under the journal: once it is marked, a kill
/// leaves an install the next lock holder finishes ([`recover`]).
fn install_by_journal(
    dir: &Path,
    mut j: Journal,
    order: Vec<String>,
    stale: Vec<String>,
) -> Result<(), String> {
    let stage = stage_path(dir, &j);
    // Every destination is a plain file or free: checked before the first rename.
    for f in &order {
        let p = dir.join(f);
        if let Ok(m) = std::fs::symlink_metadata(&p) {
            if !m.is_file() {
                remove_stage(&stage, &j.files);
                clear_journal(dir);
                return Err(format!(
                    "{} is {}, not a file cclab wrote; cclab does not replace it (nothing was changed)",
                    p.display(),
                    if m.is_dir() { "a folder" } else { "a link or a device" }
                ));
            }
        }
    }
    j.install = true;
    j.files = order;
    j.stale = stale;
    write_journal(dir, &j)?;
    for (i, f) in j.files.iter().enumerate() {
        fault(i);
        std::fs::rename(stage.join(f), dir.join(f)).map_err(|e| {
            format!(
                "cannot write {}: {e}; the files already written stay, and the next cclab run into {} completes the rest (its journal is {})",
                dir.join(f).display(),
                dir.display(),
                dir.join(STATE).join(JOURNAL).display()
            )
        })?;
    }
    fault(j.files.len());
    for s in &j.stale {
        remove_plain(&dir.join(s))?;
    }
    remove_stage(&stage, &j.files);
    clear_journal(dir);
    Ok(())
}

/// Write `files` into folder `dir` (whose lock this process holds) all or nothing as the
/// per-file install does: staged in `.cclab-tmp`, then renamed into place in order (put the
/// manifest last) under a journal; `stale` files are removed after.
pub fn install_files(
    dir: &Path,
    files: &[(String, Vec<u8>)],
    stale: &[String],
) -> Result<(), String> {
    let name = format!("stage-{}-{}", std::process::id(), unique());
    let (j, stage) = open_stage(dir, &name, files.iter().map(|f| f.0.clone()).collect())?;
    let made = files.iter().try_for_each(|(n, data)| {
        std::fs::write(stage.join(n), data).map_err(|e| format!("{}: {e}", dir.join(n).display()))
    });
    if let Err(e) = made {
        remove_stage(&stage, &j.files);
        clear_journal(dir);
        return Err(format!("cannot write into {}: {e}", dir.display()));
    }
    let order = j.files.clone();
    install_by_journal(dir, j, order, stale.to_vec())
}

/// Record and make the staging directory `.cclab-tmp/NAME` of folder `dir` (whose lock
/// this process holds) for `files`, finishing first what an earlier process left; its
/// path. [`recover`] removes it again, by the record.
pub(crate) fn begin_stage(dir: &Path, name: &str, files: Vec<String>) -> Result<PathBuf, String> {
    open_stage(dir, name, files).map(|(_, p)| p)
}

/// [`begin_stage`], also giving the journal it wrote.
fn open_stage(dir: &Path, name: &str, files: Vec<String>) -> Result<(Journal, PathBuf), String> {
    recover(dir)?;
    let j = Journal {
        stage: name.to_string(),
        files,
        ..Default::default()
    };
    if !j.valid() {
        return Err(format!(
            "cannot write into {}: not usable file names",
            dir.display()
        ));
    }
    write_journal(dir, &j)?;
    let p = stage_path(dir, &j);
    std::fs::create_dir(&p).map_err(|e| {
        clear_journal(dir);
        format!("cannot create {}: {e}", p.display())
    })?;
    Ok((j, p))
}

/// Exchange two directories with one `renameat2(RENAME_EXCHANGE)`.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let ca = std::ffi::CString::new(a.as_os_str().as_bytes())?;
    let cb = std::ffi::CString::new(b.as_os_str().as_bytes())?;
    const RENAME_EXCHANGE: libc::c_uint = 2;
    // SAFETY: two NUL-terminated paths that live across the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Write `contents` to the single file `path` whole: through a file in a hidden directory
/// this call creates beside it (`.NAME.cclab-tmp-PID-N`, made with `mkdir`, so it cannot be
/// a user's) and a rename; readers see the old file or the new one.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), String> {
    let Some(name) = path.file_name() else {
        return Err(format!("cannot write {}: not a file name", path.display()));
    };
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let short: String = name.to_string_lossy().chars().take(100).collect();
    let mut tmp = None;
    for _ in 0..100 {
        let d = parent.join(format!(
            ".{short}.cclab-tmp-{}-{}",
            std::process::id(),
            unique()
        ));
        match std::fs::create_dir(&d) {
            Ok(()) => {
                tmp = Some(d);
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot write {}: {e}", path.display())),
        }
    }
    let Some(d) = tmp else {
        return Err(format!(
            "cannot write {}: no temporary folder",
            path.display()
        ));
    };
    let f = d.join("new");
    let r = std::fs::write(&f, contents).and_then(|_| std::fs::rename(&f, path));
    let _ = std::fs::remove_file(&f);
    let _ = std::fs::remove_dir(&d);
    r.map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The files the manifest in `dir` lists, if `dir` has a cclab manifest (a plain file).
fn owned_files(dir: &Path) -> Option<BTreeSet<String>> {
    let p = dir.join(MANIFEST);
    if !std::fs::symlink_metadata(&p).ok()?.is_file() {
        return None;
    }
    // Read with the input limit (twice it: a manifest holds the resolved scenario): a
    // user's large file named like a manifest is not read whole, and is not cclab's.
    let text = crate::scenario::read_text_limited(&p, 2 * crate::scenario::MAX_INPUT_BYTES).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("cclab")?;
    Some(
        v.get("files")?
            .as_array()?
            .iter()
            .filter_map(|f| f.as_str())
            .filter(|f| plain_file_name(f))
            .map(str::to_string)
            .collect(),
    )
}

/// The entries of folder `dir` but cclab's working directory.
fn entries(dir: &Path) -> Result<Vec<String>, String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != STATE)
        .collect();
    v.sort();
    Ok(v)
}

/// Is entry `n` of `dir` a plain file (not a link, a folder or a device)?
fn is_plain(dir: &Path, n: &str) -> bool {
    std::fs::symlink_metadata(dir.join(n)).is_ok_and(|m| m.is_file())
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// A link inside an output folder: refused.
fn link_refused(p: &Path) -> String {
    let target = std::fs::read_link(p)
        .map(|t| format!(" (to {})", t.display()))
        .unwrap_or_default();
    format!(
        "{} is a symbolic link{target}; cclab follows no link inside an output folder and does not replace one: move it away, or choose another --out",
        p.display()
    )
}

/// The staging directory of an install under way.
#[derive(Debug)]
struct Stage {
    path: PathBuf,
    j: Journal,
}

/// An output folder, checked and locked before a run: see the module's notes.
#[derive(Debug)]
pub struct OutDir {
    /// Resolved once (no link).
    path: PathBuf,
    /// Files a previous cclab run wrote here (its manifest): this run may replace them.
    owned: BTreeSet<String>,
    /// The folder did not exist when checked: this run created it.
    new: bool,
    /// Files cclab did not write were there when checked (or the folder has no parent, or
    /// is the working directory): the install goes file by file, never swapping the folder.
    in_place: bool,
    lock: Mutex<Option<Lock>>,
    stage: Mutex<Option<Stage>>,
    /// A result was installed (the folder stays).
    done: AtomicBool,
}

impl OutDir {
    /// Check `path` before anything runs, for a run that will write `planned` (and the
    /// manifest), and take its lock (creating the folder if new; dropping the `OutDir`
    /// without an install removes what this made). `force` allows a folder that holds files
    /// cclab did not write; those are still never replaced.
    pub fn check(path: &Path, planned: &[String], force: bool) -> Result<OutDir, String> {
        let shown = path.display();
        for f in planned {
            if !plain_file_name(f) || f == MANIFEST {
                return Err(format!(
                    "cannot write {shown}: {f:?} is not a usable file name"
                ));
            }
        }
        let longest = planned
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(0)
            .max(MANIFEST.len());
        let dir = resolve(path, ROOM + longest)?;
        let new = match std::fs::metadata(&dir) {
            Ok(m) if !m.is_dir() => {
                return Err(format!(
                    "cannot write into {shown}: it exists and is not a folder"
                ))
            }
            Ok(_) => false,
            Err(_) => {
                if let Some(p) = dir.parent() {
                    std::fs::create_dir_all(p)
                        .map_err(|e| format!("cannot create {}: {e}", p.display()))?;
                }
                match std::fs::create_dir(&dir) {
                    Ok(()) => true,
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
                    Err(e) => return Err(format!("cannot create {shown}: {e}")),
                }
            }
        };
        let lock = match Lock::acquire(&dir) {
            Ok(l) => l,
            Err(e) => {
                if new {
                    let _ = std::fs::remove_dir(dir.join(STATE));
                    let _ = std::fs::remove_dir(&dir);
                }
                return Err(e);
            }
        };
        let mut out = OutDir {
            path: dir,
            owned: BTreeSet::new(),
            new,
            in_place: false,
            lock: Mutex::new(Some(lock)),
            stage: Mutex::new(None),
            done: AtomicBool::new(false),
        };
        // From here on, an error drops `out`: the lock goes, and the folder if it is new.
        let dir = out.path.clone();
        recover(&dir)?;
        if is_link(&dir.join(MANIFEST)) {
            return Err(link_refused(&dir.join(MANIFEST)));
        }
        let manifest = owned_files(&dir);
        let has_manifest = manifest.is_some();
        let owned = manifest.unwrap_or_default();
        let entries = entries(&dir)?;
        let ours =
            |n: &str| (has_manifest && n == MANIFEST) || (owned.contains(n) && is_plain(&dir, n));
        for n in entries
            .iter()
            .filter(|n| owned.contains(*n) || planned.contains(*n))
        {
            if is_link(&dir.join(n)) {
                return Err(link_refused(&dir.join(n)));
            }
        }
        let foreign: Vec<&String> = entries.iter().filter(|n| !ours(n)).collect();
        if !has_manifest && !foreign.is_empty() && !force {
            let mut list: Vec<&str> = foreign.iter().take(3).map(|s| s.as_str()).collect();
            if foreign.len() > 3 {
                list.push("…");
            }
            return Err(format!(
                "{shown} holds files cclab did not write ({}); cclab writes only into a new or empty folder, or one it wrote before (it has a {MANIFEST}). Choose another --out, or pass --force to write beside those files (they are never replaced)",
                list.join(", ")
            ));
        }
        for f in planned.iter().map(String::as_str).chain([MANIFEST]) {
            if entries.iter().any(|e| e == f) && !ours(f) {
                return Err(format!(
                    "{} exists and was not written by cclab; cclab does not replace it (move it away, or choose another --out)",
                    dir.join(f).display()
                ));
            }
        }
        writable(&dir)?;
        // Swapped whole unless files cclab did not write are there, or the folder is this
        // process's working directory (`--out .`: the shell in it would be left in the
        // removed old folder).
        let cwd = std::env::current_dir().and_then(std::fs::canonicalize).ok();
        out.in_place =
            !foreign.is_empty() || dir.parent().is_none() || cwd.as_deref() == Some(&dir);
        out.owned = owned;
        Ok(out)
    }

    /// The folder, resolved (no link).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The staging directory of this install, made (and recorded) if there is none yet.
    fn with_stage<T>(&self, f: impl FnOnce(&mut Stage) -> Result<T, String>) -> Result<T, String> {
        let mut g = self.stage.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            let sibling = !self.in_place;
            let name = self
                .path
                .file_name()
                .map(|n| n.to_string_lossy().chars().take(100).collect::<String>())
                .unwrap_or_default();
            for _ in 0..100 {
                let stage = if sibling {
                    format!(".{name}.cclab-stage-{}-{}", std::process::id(), unique())
                } else {
                    format!("stage-{}-{}", std::process::id(), unique())
                };
                let j = Journal {
                    stage,
                    sibling,
                    ..Default::default()
                };
                // Recorded before it is made.
                write_journal(&self.path, &j)?;
                let p = stage_path(&self.path, &j);
                match std::fs::create_dir(&p) {
                    Ok(()) => {
                        *g = Some(Stage { path: p, j });
                        break;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(e) => {
                        clear_journal(&self.path);
                        return Err(format!("cannot create {}: {e}", p.display()));
                    }
                }
            }
        }
        match g.as_mut() {
            Some(st) => f(st),
            None => Err(format!(
                "cannot make a staging folder beside {}",
                self.path.display()
            )),
        }
    }

    /// Record file `name` in the stage's journal (before it is made); its path.
    fn record(&self, st: &mut Stage, name: &str) -> Result<PathBuf, String> {
        if !st.j.files.iter().any(|f| f == name) {
            st.j.files.push(name.to_string());
            write_journal(&self.path, &st.j)?;
        }
        Ok(st.path.join(name))
    }

    /// Remove the staging directory by its record.
    fn discard_stage(&self) {
        let st = self.stage.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(st) = st {
            remove_stage(&st.path, &st.j.files);
            clear_journal(&self.path);
        }
    }

    /// The path a file written while the run goes on (a capture) is written to: in the
    /// staging directory, under its own name; `install` puts it in place.
    pub fn stream_path(&self, name: &str) -> Result<PathBuf, String> {
        if !plain_file_name(name) || name == MANIFEST {
            return Err(format!(
                "cannot write {}: {name:?} is not a usable file name",
                self.path.display()
            ));
        }
        self.with_stage(|st| self.record(st, name))
    }

    /// Remove what a run that did not finish made: the staging directory (with the
    /// `streamed` files in it), and the folder if this run created it (when it is dropped).
    pub fn abandon(&self, _streamed: &[(String, PathBuf)]) {
        self.discard_stage();
    }

    /// Write `files`, put the `streamed` files in place, and write the manifest
    /// (`manifest`, to which the list of files is added), all or nothing. With `replace`,
    /// the manifest lists only this run's files and files of the previous manifest this
    /// run did not write are removed; without, the files accumulate (several experiments
    /// written one after another).
    pub fn install(
        &self,
        files: &[(String, Vec<u8>)],
        streamed: &[(String, PathBuf)],
        manifest: serde_json::Map<String, serde_json::Value>,
        replace: bool,
    ) -> Result<Vec<PathBuf>, String> {
        let mut st = self.stage(streamed)?;
        for (name, data) in files {
            if let Err(e) = st.file(name, &mut |w| w.write_all(data)) {
                st.discard(streamed);
                return Err(e);
            }
        }
        st.commit(streamed, manifest, replace)
    }

    /// [`OutDir::install`] with the files written one at a time as they are made
    /// ([`FileSink::file`]), so that only one file's bytes are in memory at once; then
    /// [`Staging::commit`].
    pub fn stage(&self, streamed: &[(String, PathBuf)]) -> Result<Staging<'_>, String> {
        // The previous manifest, re-read: an earlier install of this process may have
        // written it.
        let owned = owned_files(&self.path).unwrap_or_else(|| self.owned.clone());
        let mut st = Staging {
            out: self,
            owned,
            names: Vec::new(),
        };
        for (n, _) in streamed {
            st.check(n)?;
            st.names.push(n.clone());
        }
        Ok(st)
    }

    /// Swap the staged folder in: one exchange, then the old folder removed by its record.
    /// `Ok(false)`: not possible here (files cclab did not write appeared, or no exchange
    /// on this system); nothing changed.
    fn swap(
        &self,
        st: &mut Stage,
        keep: &[String],
        owned: &BTreeSet<String>,
    ) -> Result<bool, String> {
        let dir = &self.path;
        let old = entries(dir)?;
        if old
            .iter()
            .any(|n| !(n == MANIFEST || (owned.contains(n) && is_plain(dir, n))))
        {
            return Ok(false);
        }
        // Files of the previous manifest kept (accumulating): linked into the new folder.
        let mut carried = Vec::new();
        for f in keep {
            if !is_plain(dir, f) {
                continue;
            }
            let to = self.record(st, f)?;
            carried.push(f.clone());
            if std::fs::hard_link(dir.join(f), &to).is_err() {
                std::fs::copy(dir.join(f), &to)
                    .map_err(|e| format!("cannot write {}: {e}", dir.join(f).display()))?;
            }
        }
        // The new folder's own lock, and the journal that, once it is in place, names the
        // old folder and its files to remove.
        let undo = |st: &mut Stage| {
            for f in &carried {
                let _ = std::fs::remove_file(st.path.join(f));
            }
            st.j.files.retain(|f| !carried.contains(f));
        };
        let new_lock = match Lock::acquire(&st.path) {
            Ok(l) => l,
            Err(e) => {
                undo(st);
                return Err(e);
            }
        };
        let after = Journal {
            stage: st.j.stage.clone(),
            sibling: true,
            files: old,
            ..Default::default()
        };
        if let Err(e) = write_journal(&st.path, &after) {
            drop(new_lock);
            undo(st);
            return Err(e);
        }
        fault(0);
        if exchange(dir, &st.path).is_err() {
            clear_journal(&st.path);
            drop(new_lock);
            undo(st);
            return Ok(false);
        }
        fault(1);
        // `dir` is the new folder; the staging name holds the old one.
        let mut new_lock = new_lock;
        new_lock.dir = dir.clone();
        let old_lock = self
            .lock
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .replace(new_lock);
        remove_stage(&st.path, &after.files);
        drop(old_lock);
        clear_journal(dir);
        Ok(true)
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        self.discard_stage();
        let lock = self.lock.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(lock);
        if self.new && !self.done.load(Ordering::Relaxed) {
            let _ = std::fs::remove_dir(&self.path);
        }
    }
}

/// Where a run's files go as they are made: `write` fills the file named `name`.
pub trait FileSink {
    fn file(
        &mut self,
        name: &str,
        write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<(), String>;
}

/// In memory: (name, bytes) in the order made.
impl FileSink for Vec<(String, Vec<u8>)> {
    fn file(
        &mut self,
        name: &str,
        write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<(), String> {
        let mut data = Vec::new();
        write(&mut data).map_err(|e| format!("{name}: {e}"))?;
        self.push((name.to_string(), data));
        Ok(())
    }
}

/// An install under way ([`OutDir::stage`]): files written into the staging directory,
/// until [`Staging::commit`] puts them in place. Dropped without a commit, the staging
/// directory goes.
pub struct Staging<'a> {
    out: &'a OutDir,
    owned: BTreeSet<String>,
    names: Vec<String>,
}

impl Staging<'_> {
    /// May this install write file `n`? A usable name, not the manifest, not a file of
    /// the folder that cclab did not write, not a link.
    fn check(&self, n: &str) -> Result<(), String> {
        let dir = &self.out.path;
        if !plain_file_name(n) || n == MANIFEST {
            return Err(format!(
                "cannot write {}: {n:?} is not a usable file name",
                dir.display()
            ));
        }
        let p = dir.join(n);
        if is_link(&p) {
            return Err(link_refused(&p));
        }
        if std::fs::symlink_metadata(&p).is_ok() && !(self.owned.contains(n) && is_plain(dir, n)) {
            return Err(format!(
                "{} exists and was not written by cclab; cclab does not replace it",
                p.display()
            ));
        }
        Ok(())
    }

    /// Give up: remove the staging directory and what is in it.
    pub fn discard(self, _streamed: &[(String, PathBuf)]) {
        self.out.discard_stage();
    }

    /// Put the files written and the `streamed` ones in place with the manifest, as
    /// [`OutDir::install`] says.
    pub fn commit(
        mut self,
        streamed: &[(String, PathBuf)],
        mut manifest: serde_json::Map<String, serde_json::Value>,
        replace: bool,
    ) -> Result<Vec<PathBuf>, String> {
        let out = self.out;
        let dir = out.path.clone();
        for (n, _) in streamed {
            if !self.names.contains(n) {
                self.names.push(n.clone());
            }
        }
        let mut listed: BTreeSet<String> = if replace {
            BTreeSet::new()
        } else {
            self.owned.clone()
        };
        listed.extend(self.names.iter().cloned());
        manifest.insert(
            "files".into(),
            serde_json::Value::from(listed.iter().cloned().collect::<Vec<_>>()),
        );
        let text = serde_json::to_string_pretty(&manifest).expect("manifest serialises") + "\n";
        let names = std::mem::take(&mut self.names);
        let result = (|| {
            out.with_stage(|st| {
                let p = out.record(st, MANIFEST)?;
                std::fs::write(&p, &text)
                    .map_err(|e| format!("cannot write {}: {e}", dir.join(MANIFEST).display()))
            })?;
            let keep: Vec<String> = listed
                .iter()
                .filter(|f| !names.contains(f))
                .cloned()
                .collect();
            if !out.in_place {
                let swapped = out.with_stage(|st| out.swap(st, &keep, &self.owned))?;
                if swapped {
                    out.stage.lock().unwrap_or_else(|e| e.into_inner()).take();
                    return Ok(());
                }
            }
            // File by file: the manifest last.
            let stage = out.stage.lock().unwrap_or_else(|e| e.into_inner()).take();
            let Some(stage) = stage else {
                return Err(format!(
                    "cannot write into {}: no staging folder",
                    dir.display()
                ));
            };
            let order: Vec<String> = names
                .iter()
                .cloned()
                .chain([MANIFEST.to_string()])
                .collect();
            let stale: Vec<String> = if replace {
                self.owned
                    .iter()
                    .filter(|o| !listed.contains(*o))
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            };
            install_by_journal(&dir, stage.j, order, stale)
        })();
        match result {
            Ok(()) => {
                out.done.store(true, Ordering::Relaxed);
                Ok(names.iter().map(|n| dir.join(n)).collect())
            }
            Err(e) => {
                out.discard_stage();
                Err(e)
            }
        }
    }
}

impl FileSink for Staging<'_> {
    fn file(
        &mut self,
        name: &str,
        write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<(), String> {
        self.check(name)?;
        let out = self.out;
        let p = out.with_stage(|st| out.record(st, name))?;
        if !self.names.iter().any(|n| n == name) {
            self.names.push(name.to_string());
        }
        let shown =
            |e: std::io::Error| format!("cannot write {}: {e}", out.path.join(name).display());
        let f = std::fs::File::create(&p).map_err(shown)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
        write(&mut w).map_err(shown)?;
        w.into_inner().map_err(|e| shown(e.into_error()))?;
        Ok(())
    }
}

/// Check that `path` may receive a single generated file: its lengths, and it is new, or
/// a regular file (not a link, a folder or a device) that `ours` recognises as cclab's,
/// unless `force`.
pub fn check_file(path: &Path, ours: impl Fn(&str) -> bool, force: bool) -> Result<(), String> {
    let shown = path.display();
    if path
        .as_os_str()
        .to_string_lossy()
        .ends_with(std::path::is_separator)
    {
        return Err(format!(
            "cannot write {shown}: a path ending in a separator names a folder, not a file"
        ));
    }
    check_lengths(path, ROOM)?;
    match std::fs::symlink_metadata(path) {
        Err(_) => resolve(path, ROOM).map(|_| ()),
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "{shown} exists and is not a regular file (a symbolic link{}); cclab does not replace it",
            if std::fs::metadata(path).is_err() { " to nothing" } else { "" }
        )),
        Ok(m) if !m.file_type().is_file() => Err(format!(
            "{shown} exists and is not a regular file (a link, a folder or a device); cclab does not replace it"
        )),
        Ok(_) => {
            // Only the first 4 KiB are looked at, and only they are read (a user's file may
            // be large).
            let mut b = Vec::with_capacity(4096);
            let head = std::fs::File::open(path)
                .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 4096), &mut b))
                .map(|_| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            if ours(&head) || force {
                let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                writable(parent)
            } else {
                Err(format!(
                    "{shown} exists and was not written by cclab; pass --force to replace it"
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cclab-outdir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn listing(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn meta() -> serde_json::Map<String, serde_json::Value> {
        let mut m = serde_json::Map::new();
        m.insert("cclab".into(), "test".into());
        m
    }

    fn files(names: &[&str], body: &str) -> Vec<(String, Vec<u8>)> {
        names
            .iter()
            .map(|n| (n.to_string(), body.as_bytes().to_vec()))
            .collect()
    }

    /// One install of `names` (each holding `body`) into `dir`, replacing.
    fn write(dir: &Path, names: &[&str], body: &str, force: bool) -> Result<(), String> {
        let planned: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let out = OutDir::check(dir, &planned, force)?;
        out.install(&files(names, body), &[], meta(), true)
            .map(|_| ())
    }

    #[test]
    fn a_new_or_empty_folder_is_accepted_and_becomes_cclabs() {
        let base = tmp("new");
        let dir = base.join("a/b");
        let out = OutDir::check(&dir, &["x.csv".into()], false).unwrap();
        assert_eq!(listing(&dir), [STATE], "checking takes the folder's lock");
        drop(out);
        assert!(!dir.exists(), "a check without an install leaves nothing");
        let out = OutDir::check(&dir, &["x.csv".into()], false).unwrap();
        out.install(&files(&["x.csv"], "1"), &[], meta(), true)
            .unwrap();
        drop(out);
        assert_eq!(listing(&dir), ["run.json", "x.csv"]);
        assert_eq!(listing(&base.join("a")), ["b"], "no staging folder left");
        let empty = base.join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert!(OutDir::check(&empty, &["x.csv".into()], false).is_ok());
        assert!(listing(&empty).is_empty());
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn a_folder_with_foreign_files_is_refused_before_anything_runs() {
        let base = tmp("foreign");
        std::fs::write(base.join("queue.csv"), b"mine").unwrap();
        std::fs::write(base.join("notes.txt"), b"mine").unwrap();
        let e = OutDir::check(&base, &["flows.csv".into()], false).unwrap_err();
        assert!(
            e.contains("cclab did not write") && e.contains("--force"),
            "{e}"
        );
        // --force writes beside them, never over them.
        write(&base, &["flows.csv"], "1", true).unwrap();
        assert_eq!(std::fs::read(base.join("queue.csv")).unwrap(), b"mine");
        assert_eq!(
            listing(&base),
            ["flows.csv", "notes.txt", "queue.csv", "run.json"]
        );
        let e = OutDir::check(&base, &["queue.csv".into()], true).unwrap_err();
        assert!(
            e.contains("queue.csv exists and was not written by cclab"),
            "{e}"
        );
        // A run.json that is not cclab's is not a manifest, and is not replaced.
        let other = tmp("other-manifest");
        std::fs::write(other.join("run.json"), b"{\"mine\": 1}").unwrap();
        let e = OutDir::check(&other, &[], true).unwrap_err();
        assert!(
            e.contains("run.json exists and was not written by cclab"),
            "{e}"
        );
        assert_eq!(listing(&other), ["run.json"]);
        let _ = std::fs::remove_dir_all(&base);
        let _ = std::fs::remove_dir_all(&other);
    }

    #[test]
    fn its_own_folder_is_rewritten_keeping_foreign_files_and_dropping_stale_ones() {
        let base = tmp("own");
        write(&base, &["a.csv", "b.svg"], "1", false).unwrap();
        std::fs::write(base.join("notes.txt"), b"mine").unwrap();
        // The next run writes a.csv only: b.svg (its own, stale) goes, notes.txt stays.
        let out = OutDir::check(&base, &["a.csv".into()], false).unwrap();
        out.install(&files(&["a.csv"], "2"), &[], meta(), true)
            .unwrap();
        assert_eq!(listing(&base), [STATE, "a.csv", "notes.txt", "run.json"]);
        assert_eq!(std::fs::read(base.join("a.csv")).unwrap(), b"2");
        // Accumulating (reproduce, one experiment after another) keeps earlier files.
        out.install(&files(&["c.txt"], "3"), &[], meta(), false)
            .unwrap();
        drop(out);
        assert_eq!(listing(&base), ["a.csv", "c.txt", "notes.txt", "run.json"]);
        // Without foreign files the folder is swapped whole, accumulating too.
        let d = base.join("swap");
        let out = OutDir::check(&d, &[], false).unwrap();
        out.install(&files(&["x.txt"], "1"), &[], meta(), false)
            .unwrap();
        out.install(&files(&["y.txt"], "2"), &[], meta(), false)
            .unwrap();
        drop(out);
        assert_eq!(listing(&d), ["run.json", "x.txt", "y.txt"]);
        assert_eq!(std::fs::read(d.join("x.txt")).unwrap(), b"1");
        assert_eq!(
            listing(&base),
            ["a.csv", "c.txt", "notes.txt", "run.json", "swap"]
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn streamed_files_appear_whole_or_not_at_all() {
        let base = tmp("stream");
        let dir = base.join("run");
        let out = OutDir::check(&dir, &["s0.pcap".into()], false).unwrap();
        let p = out.stream_path("s0.pcap").unwrap();
        std::fs::write(&p, b"pcap").unwrap();
        assert_eq!(
            listing(&dir),
            [STATE],
            "only cclab's working folder while running"
        );
        // Interrupted: the staging folder goes, and the folder this run created.
        out.abandon(&[("s0.pcap".into(), p)]);
        drop(out);
        assert!(listing(&base).is_empty(), "{:?}", listing(&base));
        // Completed: put in place and listed.
        let out = OutDir::check(&dir, &["s0.pcap".into()], false).unwrap();
        let p = out.stream_path("s0.pcap").unwrap();
        std::fs::write(&p, b"pcap").unwrap();
        out.install(&[], &[("s0.pcap".into(), p)], meta(), true)
            .unwrap();
        drop(out);
        assert_eq!(listing(&dir), ["run.json", "s0.pcap"]);
        assert_eq!(listing(&base), ["run"]);
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn places_that_are_not_folders_fail_cleanly() {
        let base = tmp("fail");
        let f = base.join("file");
        std::fs::write(&f, b"x").unwrap();
        let e = OutDir::check(&f, &[], true).unwrap_err();
        assert!(e.contains("not a folder"), "{e}");
        let e = OutDir::check(&f.join("run"), &[], true).unwrap_err();
        assert!(e.contains("not a folder"), "{e}");
        assert!(OutDir::check(Path::new(""), &[], true).is_err());
        assert!(OutDir::check(&base.join("d"), &["../x".into()], true).is_err());
        assert!(write_atomic(&f.join("x.json"), b"{}").is_err());
        assert_eq!(listing(&base), ["file"], "nothing left behind");
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn a_single_file_is_replaced_only_if_it_is_cclabs() {
        let base = tmp("file");
        let ours = |h: &str| h.starts_with("# Reproductions");
        let p = base.join("r.md");
        assert!(check_file(&p, ours, false).is_ok(), "new");
        std::fs::write(&p, "# Reproductions\n...").unwrap();
        assert!(check_file(&p, ours, false).is_ok(), "ours");
        std::fs::write(&p, "my notes").unwrap();
        let e = check_file(&p, ours, false).unwrap_err();
        assert!(e.contains("--force"), "{e}");
        assert!(check_file(&p, ours, true).is_ok());
        // A large file is judged by its first 4 KiB, read alone: a sparse 1 TiB file that
        // begins as cclab's is recognised at once (read whole, it cannot be held in memory
        // and was taken for a user's file), one that does not is refused.
        let big = base.join("big.md");
        let sparse = |head: &str| {
            std::fs::write(&big, head).unwrap();
            let f = std::fs::OpenOptions::new().write(true).open(&big).unwrap();
            f.set_len(1 << 40).unwrap();
        };
        let t0 = std::time::Instant::now();
        sparse("# Reproductions\n");
        assert!(
            check_file(&big, ours, false).is_ok(),
            "a large file of cclab's"
        );
        sparse("my notes\n");
        let e = check_file(&big, ours, false).unwrap_err();
        assert!(e.contains("--force"), "{e}");
        assert!(t0.elapsed().as_secs_f64() < 1.0, "{:?}", t0.elapsed());
        std::fs::remove_file(&big).unwrap();
        let e = check_file(&base, ours, true).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        #[cfg(unix)]
        {
            let l = base.join("link.md");
            std::os::unix::fs::symlink(&p, &l).unwrap();
            let e = check_file(&l, ours, true).unwrap_err();
            assert!(e.contains("not a regular file"), "{e}");
            let e = check_file(Path::new("/dev/null"), ours, true).unwrap_err();
            assert!(e.contains("not a regular file"), "{e}");
        }
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn write_atomic_replaces_and_leaves_no_temporary() {
        let base = tmp("atomic");
        let a = base.join("a.json");
        write_atomic(&a, b"1").unwrap();
        write_atomic(&a, b"2").unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"2");
        assert_eq!(listing(&base), ["a.json"]);
        let _ = std::fs::remove_dir_all(&base);
    }

    /// Finding 1: a user's files named as cclab's temporaries once were, in a cclab folder
    /// and beside one (with --force), with a live or a dead process id, survive every run.
    #[test]
    fn a_large_file_named_like_the_manifest_is_not_read_whole_and_is_not_cclabs() {
        // A user's 64 GiB (sparse) run.json: read whole it would take minutes and the
        // memory of the machine; read up to the limit, it is a foreign file at once.
        let base = tmp("big-manifest");
        let f = std::fs::File::create(base.join(MANIFEST)).unwrap();
        f.set_len(64 << 30).unwrap();
        let t0 = std::time::Instant::now();
        let e = OutDir::check(&base, &["a.csv".into()], true).unwrap_err();
        assert!(
            e.contains("run.json exists and was not written by cclab"),
            "{e}"
        );
        assert!(t0.elapsed().as_secs_f64() < 1.0, "{:?}", t0.elapsed());
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn f01_files_named_like_temporaries_are_never_removed() {
        let base = tmp("f01");
        let names = [
            ".thesis.tmp-999999",
            ".video.part-424242-final.mkv",
            ".x.tmp-1-0",
        ];
        for (sub, first_run) in [("cclabs", true), ("users", false)] {
            let d = base.join(sub);
            std::fs::create_dir_all(&d).unwrap();
            if first_run {
                write(&d, &["a.csv"], "1", false).unwrap();
            }
            for n in names {
                std::fs::write(d.join(n), "draft").unwrap();
            }
            write(&d, &["a.csv"], "2", true).unwrap();
            write(&d, &["a.csv"], "3", true).unwrap();
            for n in names {
                assert_eq!(
                    std::fs::read_to_string(d.join(n)).unwrap(),
                    "draft",
                    "{sub}/{n}"
                );
            }
            assert_eq!(std::fs::read_to_string(d.join("a.csv")).unwrap(), "3");
        }
        let _ = std::fs::remove_dir_all(&base);
    }

    /// Finding 2: no link inside an output folder is followed or replaced: a planned file,
    /// a file the manifest lists, the manifest and `.cclab-tmp` that are links are refused
    /// before anything runs, naming the path; the links' targets are untouched.
    #[cfg(unix)]
    #[test]
    fn f02_links_inside_an_output_folder_are_refused() {
        let base = tmp("f02");
        let user = base.join("userdocs");
        std::fs::create_dir(&user).unwrap();
        std::fs::write(user.join("essay.txt"), "mine").unwrap();
        let d = base.join("run");
        write(&d, &["a.csv"], "1", false).unwrap();
        for (name, target) in [
            ("a.csv", user.join("essay.txt")),
            ("b.csv", user.join("essay.txt")),
            ("run.json", user.join("essay.txt")),
            (STATE, user.clone()),
        ] {
            let keep = std::fs::read(d.join("a.csv")).ok();
            let _ = std::fs::remove_file(d.join(name));
            std::os::unix::fs::symlink(&target, d.join(name)).unwrap();
            let e = OutDir::check(&d, &["a.csv".into(), "b.csv".into()], true).unwrap_err();
            assert!(
                e.contains(&d.join(name).display().to_string()),
                "{name}: {e}"
            );
            assert!(e.contains("link"), "{name}: {e}");
            std::fs::remove_file(d.join(name)).unwrap();
            if name == "a.csv" {
                std::fs::write(d.join("a.csv"), keep.unwrap()).unwrap();
            }
            if name == "run.json" {
                std::fs::remove_file(d.join("a.csv")).unwrap();
                write(&d, &["a.csv"], "1", false).unwrap();
            }
        }
        assert_eq!(listing(&user), ["essay.txt"]);
        assert_eq!(
            std::fs::read_to_string(user.join("essay.txt")).unwrap(),
            "mine"
        );
        // The folder given as a link is resolved once: written where it points, the link
        // stays a link.
        let link = base.join("link");
        std::os::unix::fs::symlink(&d, &link).unwrap();
        write(&link, &["a.csv"], "9", false).unwrap();
        assert!(is_link(&link));
        assert_eq!(std::fs::read_to_string(d.join("a.csv")).unwrap(), "9");
        let _ = std::fs::remove_dir_all(&base);
    }

    /// Finding 3: an install that fails midway leaves the previous result whole, and a
    /// folder taken while another cclab process's install was marked complete is finished
    /// (rolled forward) before anything else; a staging folder not marked is removed by
    /// its record only.
    #[test]
    fn f03_failed_or_cut_installs_leave_one_whole_result() {
        let base = tmp("f03");
        let d = base.join("run");
        write(&d, &["a.csv", "b.csv"], "old", false).unwrap();
        let before = listing(&d);
        let out = OutDir::check(&d, &["a.csv".into(), "b.csv".into()], false).unwrap();
        let mut st = out.stage(&[]).unwrap();
        st.file("a.csv", &mut |w| w.write_all(b"new")).unwrap();
        let e = st
            .file("b.csv", &mut |_| Err(std::io::Error::other("disk full")))
            .unwrap_err();
        assert!(e.contains("disk full"), "{e}");
        st.discard(&[]);
        drop(out);
        assert_eq!(listing(&d), before);
        assert_eq!(listing(&base), ["run"], "no staging folder left");
        for f in ["a.csv", "b.csv"] {
            assert_eq!(std::fs::read_to_string(d.join(f)).unwrap(), "old");
        }
        // A marked install, cut after its first rename (as a kill leaves it): a user's
        // file beside it (so it went file by file).
        std::fs::write(d.join("notes.txt"), "mine").unwrap();
        let j = Journal {
            stage: "stage-1-0".into(),
            files: vec!["a.csv".into(), "b.csv".into(), MANIFEST.into()],
            install: true,
            ..Default::default()
        };
        let stage = stage_path(&d, &j);
        std::fs::create_dir_all(&stage).unwrap();
        std::fs::write(d.join("a.csv"), "new").unwrap();
        std::fs::write(stage.join("b.csv"), "new").unwrap();
        let mut m = meta();
        m.insert("files".into(), serde_json::json!(["a.csv", "b.csv"]));
        std::fs::write(stage.join(MANIFEST), serde_json::to_string(&m).unwrap()).unwrap();
        write_journal(&d, &j).unwrap();
        std::fs::write(stage.join("mine.txt"), "not listed").unwrap();
        drop(OutDir::check(&d, &[], false).unwrap());
        for f in ["a.csv", "b.csv"] {
            assert_eq!(std::fs::read_to_string(d.join(f)).unwrap(), "new", "{f}");
        }
        assert_eq!(owned_files(&d).unwrap().len(), 2);
        assert_eq!(
            std::fs::read_to_string(stage.join("mine.txt")).unwrap(),
            "not listed"
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    /// Finding 8: one process at a time per folder; the second is told who holds it.
    #[test]
    fn f08_a_second_writer_is_refused_naming_the_holder() {
        let base = tmp("f08");
        let d = base.join("run");
        let first = OutDir::check(&d, &[], false).unwrap();
        let e = OutDir::check(&d, &[], false).unwrap_err();
        assert!(
            e.contains("in use") && e.contains(&format!("process {}", std::process::id())),
            "{e}"
        );
        assert!(
            d.join(STATE).join(LOCK).exists(),
            "the refused check took nothing away"
        );
        drop(first);
        assert!(!d.exists());
        assert!(OutDir::check(&d, &[], false).is_ok());
        let _ = std::fs::remove_dir_all(&base);
    }

    /// Finding 5: places that cannot be written are refused by the check, before a run.
    #[test]
    fn f05_overlong_and_dangling_output_paths_are_refused_by_the_check() {
        let base = tmp("f05");
        let long = base.join("x".repeat(300));
        let e = OutDir::check(&long, &[], false).unwrap_err();
        assert!(e.contains("300 bytes") && e.contains("at most 255"), "{e}");
        let e = check_file(
            &base.join(format!("{}.md", "y".repeat(300))),
            |_| true,
            false,
        )
        .unwrap_err();
        assert!(e.contains("at most 255"), "{e}");
        let deep = base.join(["z"; 2100].join("/"));
        let e = OutDir::check(&deep, &[], false).unwrap_err();
        assert!(e.contains("at most 4095"), "{e}");
        #[cfg(unix)]
        {
            let l = base.join("dangling");
            std::os::unix::fs::symlink(base.join("nowhere"), &l).unwrap();
            let e = OutDir::check(&l, &[], false).unwrap_err();
            assert!(e.contains("symbolic link") && e.contains("nowhere"), "{e}");
            let e = check_file(&l, |_| true, true).unwrap_err();
            assert!(e.contains("symbolic link to nothing"), "{e}");
        }
        assert_eq!(listing(&base).len(), 1, "{:?}", listing(&base));
        let _ = std::fs::remove_dir_all(&base);
    }
}
