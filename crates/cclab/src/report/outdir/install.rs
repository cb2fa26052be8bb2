//! Installing files all or nothing: the journal, the staging directory, the exchange
//! (`renameat2(RENAME_EXCHANGE)`), the file-by-file install rolled forward, and
//! [`write_atomic`].

use super::*;

/// What cclab is doing in a folder, written in `.cclab-tmp/journal.json` before it does it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub(super) struct Journal {
    /// The staging directory: a name in the folder's parent (`sibling`) or in its
    /// `.cclab-tmp`.
    pub(super) stage: String,
    #[serde(default)]
    pub(super) sibling: bool,
    /// The files in it (listed before each is made).
    pub(super) files: Vec<String>,
    /// Every file is complete: rename `files` into the folder in order (the manifest last),
    /// then remove `stale`.
    #[serde(default)]
    pub(super) install: bool,
    #[serde(default)]
    pub(super) stale: Vec<String>,
}

impl Journal {
    pub(super) fn valid(&self) -> bool {
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

pub(super) fn stage_path(dir: &Path, j: &Journal) -> PathBuf {
    if j.sibling {
        dir.parent().unwrap_or(Path::new("/")).join(&j.stage)
    } else {
        dir.join(STATE).join(&j.stage)
    }
}

pub(super) fn write_journal(dir: &Path, j: &Journal) -> Result<(), String> {
    let state = state_dir(dir)?;
    let text = serde_json::to_string(j).expect("journal serialises") + "\n";
    let new = state.join(JOURNAL_NEW);
    std::fs::write(&new, text)
        .and_then(|_| std::fs::rename(&new, state.join(JOURNAL)))
        .map_err(|e| format!("cannot write {}: {e}", state.join(JOURNAL).display()))
}

pub(super) fn read_journal(dir: &Path) -> Result<Option<Journal>, String> {
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

pub(super) fn clear_journal(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(STATE).join(JOURNAL));
}

/// Remove a staging directory by its record: the `files` listed, its own `.cclab-tmp`
/// (journal, lock), then the directories if empty. Nothing else is touched.
pub(super) fn remove_stage(stage: &Path, files: &[String]) {
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
pub(super) fn remove_plain(p: &Path) -> Result<(), String> {
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
pub(super) fn fault(renames: usize) {
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
pub(super) fn install_by_journal(
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
pub(super) fn open_stage(
    dir: &Path,
    name: &str,
    files: Vec<String>,
) -> Result<(Journal, PathBuf), String> {
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
pub(super) fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
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
pub(super) fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
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
