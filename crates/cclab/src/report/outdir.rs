//! Output folders: cclab never destroys what it did not write.
//!
//! A folder cclab writes holds a manifest, `run.json`: what wrote it (cclab's version and
//! git revision, the command line, the resolved scenario) and the files it wrote. Before
//! anything runs, [`OutDir::check`] accepts a folder only if it is new, empty, or cclab's own
//! (it has a manifest), and refuses — naming the folder and why — a folder that holds files
//! cclab did not write, unless `--force` asks to write beside them. Even then a file cclab
//! did not write is never replaced: a planned output whose name is taken by a foreign file
//! stops the run before it starts.
//!
//! Every file is written under a temporary name in the same folder and renamed into place
//! when complete; the manifest is renamed last. A run that does not finish (an error,
//! Ctrl-C) removes its temporaries and leaves the previous complete result in place.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The manifest of an output folder.
pub const MANIFEST: &str = "run.json";

/// A name for a temporary sibling of `path`, unique within this process (threads may write
/// side by side) and across processes. Hidden, and marked as cclab's: `.NAME.tmp-PID-N`.
pub fn tmp_name(path: &Path, what: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    parent.join(format!(".{name}.{what}-{}-{n}", std::process::id()))
}

/// Is `name` one of cclab's temporaries?
pub(crate) fn is_tmp(name: &str) -> bool {
    name.starts_with('.') && (name.contains(".tmp-") || name.contains(".part-"))
}

/// Remove the temporaries in `dir` (among `entries`) that a process no longer running left
/// (a run ended at once by a second Ctrl-C, or killed): their names carry the process id
/// (`tmp_name`), and a process is looked for on this machine only (a folder shared with
/// another machine that writes into it at the same time is not supported). Where a
/// process's liveness cannot be read (no `/proc`), none is removed.
fn remove_dead_tmps(dir: &Path, entries: &[String]) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    for n in entries.iter().filter(|n| is_tmp(n)) {
        let pid = n
            .rsplit_once(".part-")
            .or_else(|| n.rsplit_once(".tmp-"))
            .and_then(|(_, rest)| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_file(dir.join(n));
            }
        }
    }
}

/// Write `contents` to `path` through a temporary file in the same directory and a rename,
/// so readers see the old file or the new one, never half of one.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), String> {
    if path.file_name().is_none() {
        return Err(format!("cannot write {}: not a file name", path.display()));
    }
    let tmp = tmp_name(path, "tmp");
    if let Err(e) = std::fs::write(&tmp, contents) {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", path.display()));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

/// Can files be created in directory `dir`? (Tried with a temporary file, removed at once.)
fn writable(dir: &Path) -> Result<(), String> {
    let probe = tmp_name(&dir.join("probe"), "tmp");
    std::fs::write(&probe, b"").map_err(|e| format!("cannot write into {}: {e}", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The files the manifest in `dir` lists, if `dir` has a cclab manifest.
fn owned_files(dir: &Path) -> Option<BTreeSet<String>> {
    let text = std::fs::read_to_string(dir.join(MANIFEST)).ok()?;
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

/// A name of a file directly in a folder: no separators, not `.`/`..`, not empty.
fn plain_file_name(name: &str) -> bool {
    let p = Path::new(name);
    !name.is_empty() && name != "." && name != ".." && p.file_name() == Some(p.as_os_str())
}

/// An output folder, checked before a run.
#[derive(Debug)]
pub struct OutDir {
    path: PathBuf,
    /// Files a previous cclab run wrote here (its manifest): this run may replace them.
    owned: BTreeSet<String>,
    /// The folder did not exist when checked: this run creates it.
    new: bool,
}

impl OutDir {
    /// Check `path` before anything runs, for a run that will write `planned` (and the
    /// manifest). `force` allows a folder that holds files cclab did not write; those are
    /// still never replaced.
    pub fn check(path: &Path, planned: &[String], force: bool) -> Result<OutDir, String> {
        let shown = path.display();
        if path.as_os_str().is_empty() {
            return Err("the output folder path is empty".into());
        }
        for f in planned {
            if !plain_file_name(f) || f == MANIFEST {
                return Err(format!(
                    "cannot write {shown}: {f:?} is not a usable file name"
                ));
            }
        }
        let meta = std::fs::metadata(path);
        match meta {
            Ok(m) if !m.is_dir() => {
                return Err(format!(
                    "cannot write into {shown}: it exists and is not a folder"
                ))
            }
            Ok(_) => {}
            Err(_) => {
                // New: the nearest existing ancestor must be a folder cclab can write in.
                let mut anc = path.parent();
                while let Some(a) = anc {
                    let a = if a.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        a
                    };
                    match std::fs::metadata(a) {
                        Ok(m) if m.is_dir() => {
                            writable(a)?;
                            break;
                        }
                        Ok(_) => {
                            return Err(format!(
                                "cannot create {shown}: {} is not a folder",
                                a.display()
                            ))
                        }
                        Err(_) => anc = a.parent(),
                    }
                }
                return Ok(OutDir {
                    path: path.to_path_buf(),
                    owned: BTreeSet::new(),
                    new: true,
                });
            }
        }
        let manifest = owned_files(path);
        let has_manifest = manifest.is_some();
        let owned = manifest.unwrap_or_default();
        let entries: Vec<String> = std::fs::read_dir(path)
            .map_err(|e| format!("cannot read {shown}: {e}"))?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        let foreign: Vec<&String> = entries
            .iter()
            .filter(|n| !(is_tmp(n) || owned.contains(*n) || (has_manifest && *n == MANIFEST)))
            .collect();
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
            let taken = entries.iter().any(|e| e == f);
            let ours = owned.contains(f) || (f == MANIFEST && has_manifest);
            if taken && !ours {
                return Err(format!(
                    "{} exists and was not written by cclab; cclab does not replace it (move it away, or choose another --out)",
                    path.join(f).display()
                ));
            }
        }
        writable(path)?;
        remove_dead_tmps(path, &entries);
        Ok(OutDir {
            path: path.to_path_buf(),
            owned,
            new: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A temporary path in the folder (creating it if new) for a file written while the
    /// run goes on (a capture); `install` renames it to `name`.
    pub fn stream_path(&self, name: &str) -> Result<PathBuf, String> {
        std::fs::create_dir_all(&self.path)
            .map_err(|e| format!("cannot create {}: {e}", self.path.display()))?;
        Ok(tmp_name(&self.path.join(name), "part"))
    }

    /// Remove what a run that did not finish left: the temporaries in `streamed`, and the
    /// folder if this run created it and it is empty.
    pub fn abandon(&self, streamed: &[(String, PathBuf)]) {
        for (_, p) in streamed {
            let _ = std::fs::remove_file(p);
        }
        if self.new {
            let _ = std::fs::remove_dir(&self.path);
        }
    }

    /// Write `files`, rename the `streamed` temporaries into place, and write the manifest
    /// (`manifest`, to which the list of files is added), all or nothing: every file is
    /// written to a temporary first. With `replace`, the manifest lists only this run's
    /// files and files of the previous manifest this run did not write are removed;
    /// without, the files accumulate (several experiments written one after another).
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
        let dir = &self.path;
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        // The previous manifest, re-read: another cclab run may have written meanwhile.
        let owned = owned_files(dir).unwrap_or_else(|| self.owned.clone());
        let mut st = Staging {
            out: self,
            owned,
            names: Vec::new(),
            temps: Vec::new(),
        };
        for (n, _) in streamed {
            st.check(n)?;
            st.names.push(n.clone());
        }
        Ok(st)
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

/// An install under way ([`OutDir::stage`]): files written under temporary names, until
/// [`Staging::commit`] renames them into place. Dropped without a commit, it removes them.
pub struct Staging<'a> {
    out: &'a OutDir,
    owned: BTreeSet<String>,
    names: Vec<String>,
    /// (temporary, final) of each file written.
    temps: Vec<(PathBuf, PathBuf)>,
}

impl Staging<'_> {
    /// May this install write file `n`? A usable name, not the manifest, not a file of
    /// the folder that cclab did not write.
    fn check(&self, n: &str) -> Result<(), String> {
        let dir = &self.out.path;
        if !plain_file_name(n) || n == MANIFEST {
            return Err(format!(
                "cannot write {}: {n:?} is not a usable file name",
                dir.display()
            ));
        }
        if dir.join(n).exists() && !self.owned.contains(n) {
            return Err(format!(
                "{} exists and was not written by cclab; cclab does not replace it",
                dir.join(n).display()
            ));
        }
        Ok(())
    }

    /// Give up: remove the files written so far and the `streamed` temporaries.
    pub fn discard(mut self, streamed: &[(String, PathBuf)]) {
        for (t, _) in self.temps.drain(..) {
            let _ = std::fs::remove_file(t);
        }
        for (_, p) in streamed {
            let _ = std::fs::remove_file(p);
        }
    }

    /// Rename the `streamed` temporaries into place beside the files written, and write
    /// the manifest, as [`OutDir::install`] says.
    pub fn commit(
        mut self,
        streamed: &[(String, PathBuf)],
        mut manifest: serde_json::Map<String, serde_json::Value>,
        replace: bool,
    ) -> Result<Vec<PathBuf>, String> {
        let dir = self.out.path.clone();
        let result = (|| {
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
            let t = tmp_name(&dir.join(MANIFEST), "tmp");
            self.temps.push((t.clone(), dir.join(MANIFEST)));
            std::fs::write(&t, text)
                .map_err(|e| format!("cannot write {}: {e}", dir.join(MANIFEST).display()))?;
            // Every file is complete: rename them into place, the manifest last.
            // (On an error, what is not renamed yet is removed with the staging.)
            for (src, dst) in streamed
                .iter()
                .map(|(n, p)| (p.clone(), dir.join(n)))
                .chain(self.temps.iter().cloned())
            {
                std::fs::rename(&src, &dst)
                    .map_err(|e| format!("cannot write {}: {e}", dst.display()))?;
            }
            self.temps.clear();
            if replace {
                for stale in self.owned.iter().filter(|o| !listed.contains(*o)) {
                    let p = dir.join(stale);
                    match std::fs::remove_file(&p) {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                            return Err(format!("cannot remove stale {}: {e}", p.display()))
                        }
                        _ => {}
                    }
                }
            }
            Ok(())
        })();
        if result.is_err() {
            for (_, p) in streamed {
                let _ = std::fs::remove_file(p);
            }
        }
        let names = std::mem::take(&mut self.names);
        result.map(|()| names.iter().map(|n| dir.join(n)).collect())
    }
}

impl FileSink for Staging<'_> {
    fn file(
        &mut self,
        name: &str,
        write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<(), String> {
        self.check(name)?;
        let dir = &self.out.path;
        let t = tmp_name(&dir.join(name), "tmp");
        self.temps.push((t.clone(), dir.join(name)));
        self.names.push(name.to_string());
        let shown = |e: std::io::Error| format!("cannot write {}: {e}", dir.join(name).display());
        let f = std::fs::File::create(&t).map_err(shown)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
        write(&mut w).map_err(shown)?;
        w.into_inner().map_err(|e| shown(e.into_error()))?;
        Ok(())
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        for (t, _) in self.temps.drain(..) {
            let _ = std::fs::remove_file(t);
        }
    }
}

/// Check that `path` may receive a single generated file: it is new, or a regular file
/// (not a link, a folder or a device) that `ours` recognises as cclab's, unless `force`.
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
    match std::fs::symlink_metadata(path) {
        Err(_) => {
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let mut anc = Some(parent);
            while let Some(a) = anc {
                match std::fs::metadata(a) {
                    Ok(m) if m.is_dir() => return writable(a),
                    Ok(_) => return Err(format!("cannot create {shown}: {} is not a folder", a.display())),
                    Err(_) => anc = a.parent().filter(|p| !p.as_os_str().is_empty()),
                }
            }
            Ok(())
        }
        Ok(m) if !m.file_type().is_file() => Err(format!(
            "{shown} exists and is not a regular file (a link, a folder or a device); cclab does not replace it"
        )),
        Ok(_) => {
            let head = std::fs::read(path)
                .map(|b| String::from_utf8_lossy(&b[..b.len().min(4096)]).into_owned())
                .unwrap_or_default();
            if ours(&head) || force {
                Ok(())
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

    #[test]
    fn a_new_or_empty_folder_is_accepted_and_becomes_cclabs() {
        let base = tmp("new");
        let dir = base.join("a/b");
        let out = OutDir::check(&dir, &["x.csv".into()], false).unwrap();
        assert!(!dir.exists(), "checking writes nothing");
        out.install(&files(&["x.csv"], "1"), &[], meta(), true)
            .unwrap();
        assert_eq!(listing(&dir), ["run.json", "x.csv"]);
        let empty = base.join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert!(OutDir::check(&empty, &["x.csv".into()], false).is_ok());
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
        let out = OutDir::check(&base, &["flows.csv".into()], true).unwrap();
        out.install(&files(&["flows.csv"], "1"), &[], meta(), true)
            .unwrap();
        assert_eq!(std::fs::read(base.join("queue.csv")).unwrap(), b"mine");
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
        let _ = std::fs::remove_dir_all(&base);
        let _ = std::fs::remove_dir_all(&other);
    }

    #[test]
    fn its_own_folder_is_rewritten_keeping_foreign_files_and_dropping_stale_ones() {
        let base = tmp("own");
        let out = OutDir::check(&base, &[], false).unwrap();
        out.install(&files(&["a.csv", "b.svg"], "1"), &[], meta(), true)
            .unwrap();
        std::fs::write(base.join("notes.txt"), b"mine").unwrap();
        // The next run writes a.csv only: b.svg (its own, stale) goes, notes.txt stays.
        let out = OutDir::check(&base, &["a.csv".into()], false).unwrap();
        out.install(&files(&["a.csv"], "2"), &[], meta(), true)
            .unwrap();
        assert_eq!(listing(&base), ["a.csv", "notes.txt", "run.json"]);
        assert_eq!(std::fs::read(base.join("a.csv")).unwrap(), b"2");
        // Accumulating (reproduce, one experiment after another) keeps earlier files.
        out.install(&files(&["c.txt"], "3"), &[], meta(), false)
            .unwrap();
        assert_eq!(listing(&base), ["a.csv", "c.txt", "notes.txt", "run.json"]);
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
            listing(&dir).len(),
            1,
            "only a hidden temporary while running"
        );
        // Interrupted: the temporary goes, and the folder this run created.
        out.abandon(&[("s0.pcap".into(), p)]);
        assert!(!dir.exists());
        // Completed: renamed into place and listed.
        let p = out.stream_path("s0.pcap").unwrap();
        std::fs::write(&p, b"pcap").unwrap();
        out.install(&[], &[("s0.pcap".into(), p)], meta(), true)
            .unwrap();
        assert_eq!(listing(&dir), ["run.json", "s0.pcap"]);
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
}
