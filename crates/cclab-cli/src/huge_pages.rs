//! Transparent huge pages for the simulator's heap, on Linux with glibc.
//!
//! A big network's hop touches a port, a packet, an event bucket and a connection, each
//! on a page of its own: 20 ms of `cclab bench --scale`'s k = 8 fat-tree keeps up to 19 MB
//! of heap (valgrind's DHAT), some 4,600 pages of 4 KiB, more than a core's second-level
//! TLB holds, so hops probably wait for page walks (the development machine, a virtual
//! machine without performance counters, cannot show it); in 2 MiB pages the same heap is
//! ten entries. In wall time the k = 8 case ran faster in 16 of 20 paired rounds, by 6% at
//! the median, and the dumbbells as before (docs/speed.md, "Huge pages").
//!
//! Linux gives a process's heap huge pages only when it asks for them
//! (`madvise(MADV_HUGEPAGE)`) where `/sys/kernel/mm/transparent_hugepage/enabled` is
//! `madvise` (Debian's default; where it is `always` every heap gets them, where `never`
//! none does), and glibc's allocator asks only when the tunable `glibc.malloc.hugetlb=1` is
//! in `GLIBC_TUNABLES` at start-up (glibc 2.35 and later; older ones ignore it). So
//! `cclab`, started without it, runs itself again with it, first thing, before any thread
//! or file exists: the same program with the same arguments, standard streams and
//! environment, plus that one tunable.
//!
//! Nothing a run computes depends on where its memory lies: every output file is the same
//! either way. Set `CCLAB_HUGE_PAGES=0` to run without; a `GLIBC_TUNABLES` of the user's
//! own that already names `glibc.malloc.hugetlb` is left alone, and any other is kept, with
//! the tunable added. If the program cannot be found or started again, it goes on as it is.

/// The tunable that makes glibc's malloc advise huge pages for what it maps.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TUNABLE: &str = "glibc.malloc.hugetlb";

/// `GLIBC_TUNABLES` with the huge-page tunable added to `current` (the variable's value,
/// empty when unset), or `None` when `current` names it already.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn with_tunable(current: &std::ffi::OsStr) -> Option<std::ffi::OsString> {
    use std::os::unix::ffi::OsStrExt;
    let named = current
        .as_bytes()
        .windows(TUNABLE.len())
        .any(|w| w == TUNABLE.as_bytes());
    if named {
        return None;
    }
    let mut value = current.to_os_string();
    if !value.is_empty() {
        value.push(":");
    }
    value.push(TUNABLE);
    value.push("=1");
    Some(value)
}

/// Run this program again with the huge-page tunable, if it is not set yet and not turned
/// off; returns only when it does not (set already, off, or the exec failed).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn reexec() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("CCLAB_HUGE_PAGES").is_some_and(|v| v == "0") {
        return;
    }
    let current = std::env::var_os("GLIBC_TUNABLES").unwrap_or_default();
    let Some(value) = with_tunable(&current) else {
        return;
    };
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut args = std::env::args_os();
    let mut cmd = std::process::Command::new(exe);
    if let Some(arg0) = args.next() {
        cmd.arg0(arg0);
    }
    // `exec` returns only if it failed; then this process simply goes on.
    let _ = cmd.args(args).env("GLIBC_TUNABLES", value).exec();
}

/// Elsewhere there is nothing to ask for.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn reexec() {}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::with_tunable;
    use std::ffi::OsStr;

    #[test]
    fn the_tunable_is_added_once_and_the_users_are_kept() {
        let add = |s: &str| with_tunable(OsStr::new(s)).map(|v| v.into_string().unwrap());
        assert_eq!(add("").as_deref(), Some("glibc.malloc.hugetlb=1"));
        assert_eq!(
            add("glibc.malloc.mmap_threshold=200000").as_deref(),
            Some("glibc.malloc.mmap_threshold=200000:glibc.malloc.hugetlb=1")
        );
        // The user's own choice, even "off", and our own setting on the second start.
        assert_eq!(add("glibc.malloc.hugetlb=0"), None);
        assert_eq!(add("glibc.malloc.hugetlb=1"), None);
        assert_eq!(add("a=1:glibc.malloc.hugetlb=2"), None);
    }
}
