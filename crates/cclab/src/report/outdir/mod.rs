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
//! Files: this one (the folder: [`OutDir`], [`Staging`], [`check_file`]), `paths.rs`
//! ([`resolve`]), `lock.rs` ([`Lock`]), `install.rs` (the journal, the exchange, the
//! rolled-forward install, [`write_atomic`]), `tests.rs`.
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

mod install;
mod lock;
mod paths;
#[cfg(test)]
mod tests;

pub use install::*;
pub use lock::*;
pub use paths::*;

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
