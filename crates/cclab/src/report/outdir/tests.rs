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
