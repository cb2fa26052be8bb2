//! Stopping a call (see the crate doc, **Stopping**): the stop flags of the calls under
//! way (`RUNNING`, raised by `cancel`), the SIGINT hook that counts Ctrl-C on any thread
//! (Unix), and `interruptible`, which runs a call's work on its own thread and waits for
//! it with the GIL released, watching for Ctrl-C.

use super::Cancelled;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The stop flags of the calls under way, process-wide: what `cancel` raises.
static RUNNING: Mutex<Vec<Arc<AtomicBool>>> = Mutex::new(Vec::new());

/// A call's stop flag in `RUNNING` for as long as this lives (its work thread holds it).
struct Registered(Arc<AtomicBool>);

impl Registered {
    fn new(stop: &Arc<AtomicBool>) -> Registered {
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(stop.clone());
        Registered(stop.clone())
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|s| !Arc::ptr_eq(s, &self.0));
    }
}

/// Raise the stop flag of every call under way; how many there were.
fn cancel_all() -> usize {
    let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    for s in running.iter() {
        s.store(true, Ordering::Relaxed);
    }
    running.len()
}

/// A SIGINT hook chained in front of whatever handler the process has (Python's), so that
/// Ctrl-C reaches runs waited for on threads Python never delivers signals to.
#[cfg(unix)]
mod sigint {
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

    /// SIGINTs received since the hook was first installed.
    pub static COUNT: AtomicU64 = AtomicU64::new(0);
    /// The handler the hook passes each signal on to, and its `sa_flags`.
    static PREV: AtomicUsize = AtomicUsize::new(0);
    static PREV_FLAGS: AtomicUsize = AtomicUsize::new(0);
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

    extern "C" fn hook(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // Async-signal-safe: atomics only, then the previous handler.
        COUNT.fetch_add(1, Ordering::SeqCst);
        let prev = PREV.load(Ordering::SeqCst);
        if prev == libc::SIG_DFL || prev == libc::SIG_IGN || prev == hook as *const () as usize {
            return;
        }
        let flags = PREV_FLAGS.load(Ordering::SeqCst) as libc::c_int;
        // SAFETY: `prev` is the handler sigaction reported, with the calling convention
        // its flags say.
        unsafe {
            if flags & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(prev);
                f(sig, info, ctx);
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(prev);
                f(sig);
            }
        }
    }

    /// Put the hook in front of SIGINT's handler unless it is there, or SIGINT is ignored
    /// or left to the OS (then Ctrl-C does what it did). Cheap: one `sigaction` query.
    pub fn ensure() {
        let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: plain sigaction calls on zeroed structs.
        unsafe {
            let mut cur: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut cur) != 0 {
                return;
            }
            let h = cur.sa_sigaction;
            if h == hook as *const () as usize || h == libc::SIG_DFL || h == libc::SIG_IGN {
                return;
            }
            PREV.store(h, Ordering::SeqCst);
            PREV_FLAGS.store(cur.sa_flags as usize, Ordering::SeqCst);
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = hook as *const () as usize;
            act.sa_mask = cur.sa_mask;
            // As the handler it replaces (Python's has no SA_RESTART: a blocking call must
            // return EINTR so that Python runs its handler), plus the siginfo convention.
            act.sa_flags = (cur.sa_flags & !libc::SA_RESETHAND) | libc::SA_SIGINFO;
            libc::sigaction(libc::SIGINT, &act, std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
mod sigint {
    use std::sync::atomic::AtomicU64;
    pub static COUNT: AtomicU64 = AtomicU64::new(0);
    pub fn ensure() {}
}

/// SIGINTs seen by the hook so far.
fn sigints() -> u64 {
    sigint::COUNT.load(Ordering::SeqCst)
}

/// Run `work` on its own thread with the stop flag `stop` registered; wait with the GIL
/// released, every 50 ms looking at Python's signals (main thread), at the SIGINT count
/// and at `tick` (a progress bar). On Ctrl-C, raise `stop`, wait for the thread to clean
/// up, and raise `Cancelled` with the message `after` gives for what the work returned
/// (what was written, or not); a second Ctrl-C returns at once. (An exception other than
/// `KeyboardInterrupt` from the process's own SIGINT handler is raised as it is.) Stopped
/// by `cancel`, the work's value is returned: the caller says what it means.
pub(crate) fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    stop: &Arc<AtomicBool>,
    tick: &mut dyn FnMut(Python<'_>),
    after: impl FnOnce(&T) -> String,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    sigint::ensure();
    let seen = sigints();
    let slot: Arc<(Mutex<Option<std::thread::Result<T>>>, Condvar)> =
        Arc::new((Mutex::new(None), Condvar::new()));
    let s2 = slot.clone();
    let reg = Registered::new(stop);
    std::thread::Builder::new()
        .name("cclab".into())
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            // Off the list before the caller hears of the end.
            drop(reg);
            let (m, cv) = &*s2;
            *m.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            cv.notify_all();
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    let mut interrupted: Option<PyErr> = None;
    loop {
        let got = py.detach(|| {
            let (m, cv) = &*slot;
            let g = m.lock().unwrap_or_else(|e| e.into_inner());
            let (mut g, _) = cv
                .wait_timeout_while(g, Duration::from_millis(50), |v| v.is_none())
                .unwrap_or_else(|e| e.into_inner());
            g.take()
        });
        match got {
            // Stopped by Ctrl-C: the work has cleaned up; now the exception.
            Some(r) if interrupted.is_some() => {
                let e = interrupted.take().expect("checked");
                if !e.is_instance_of::<PyKeyboardInterrupt>(py) {
                    return Err(e);
                }
                return Err(match r {
                    Ok(v) => Cancelled::new_err(after(&v)),
                    Err(_) => Cancelled::new_err("interrupted; nothing was written"),
                });
            }
            Some(Ok(v)) => return Ok(v),
            Some(Err(_)) => {
                return Err(PyRuntimeError::new_err(
                    "internal error: the simulation panicked (please report it with the scenario)",
                ))
            }
            None => {
                // Put the hook back if Python's `signal.signal` replaced it meanwhile.
                sigint::ensure();
                let signal = py.check_signals().err();
                let hooked = sigints() != seen;
                if signal.is_none() && !hooked {
                    if interrupted.is_none() {
                        tick(py);
                    }
                    continue;
                }
                if interrupted.is_some() {
                    // A second Ctrl-C: stop waiting for the clean-up.
                    if let Some(e) = signal {
                        return Err(e);
                    }
                    continue;
                }
                // Ctrl-C stops every cclab call of the process, on any thread.
                cancel_all();
                stop.store(true, Ordering::Relaxed);
                interrupted = Some(signal.unwrap_or_else(|| {
                    Cancelled::new_err("interrupted (Ctrl-C); nothing was written")
                }));
            }
        }
    }
}

/// Stop every cclab run, sweep and experiment under way in this process, on any thread:
/// each raises `Cancelled` (a `KeyboardInterrupt`) in its caller, leaving its output as it
/// was. Returns how many were under way.
#[pyfunction]
pub(crate) fn cancel() -> usize {
    cancel_all()
}
