//! Everything the command line prints goes through here, and no write can panic
//! (`print!` panics when stdout is full or closed: `cclab list > /dev/full` exited 101).
//!
//! - stdout: [`out`] (and the [`outln!`] macro) return a [`Stop`] when a write fails;
//!   the command stops printing and ends with [`Stop::code`]: a closed pipe (`| head -1`)
//!   ends quietly with 141 (128 + SIGPIPE, what a shell shows for a tool the signal
//!   ended; with SIGPIPE at its default action, which `main` sets, the kernel ends the
//!   process first and this path is only a fallback), any other failure (`> /dev/full`:
//!   ENOSPC) says so on stderr if it can and exits 2.
//! - stderr: [`err`] (and [`errln!`]) never fail: a diagnostic that cannot be written is
//!   dropped, and the exit code still says what happened (2 for bad input, …).
//!
//! Results are written to their files before anything is printed, so a failed print
//! never loses a result.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

/// Exit code after stdout's reader went away: 128 + SIGPIPE.
pub const CLOSED_PIPE: u8 = 141;

/// A write to stdout failed: the command stops printing.
#[derive(Debug)]
pub enum Stop {
    /// The reader closed the pipe (`EPIPE`): nothing more to say to anyone.
    Pipe,
    /// Any other failure (a full disk, a device error).
    Failed(io::Error),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Stop::Pipe
        } else {
            Stop::Failed(e)
        }
    }
}

impl Stop {
    /// Report the failure (on stderr, if it can be written) and give the exit code.
    pub fn code(self) -> ExitCode {
        match self {
            Stop::Pipe => ExitCode::from(CLOSED_PIPE),
            Stop::Failed(e) => {
                err(format_args!("error: cannot write to stdout: {e}\n"));
                ExitCode::from(2)
            }
        }
    }
}

/// Write `args` to stdout, whole, and flush it (so a failure shows here, not at exit).
pub fn out(args: fmt::Arguments<'_>) -> Result<(), Stop> {
    let mut o = io::stdout().lock();
    o.write_fmt(args)?;
    o.flush()?;
    Ok(())
}

/// Write `args` to stderr; a failure is ignored (see the module's text).
pub fn err(args: fmt::Arguments<'_>) {
    let mut e = io::stderr().lock();
    let _ = e.write_fmt(args).and_then(|_| e.flush());
}

/// `println!` to stdout that returns `Result<(), Stop>` instead of panicking.
#[macro_export]
macro_rules! outln {
    () => { $crate::term::out(format_args!("\n")) };
    ($($t:tt)*) => { $crate::term::out(format_args!("{}\n", format_args!($($t)*))) };
}

/// `print!` to stdout that returns `Result<(), Stop>` instead of panicking.
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::term::out(format_args!($($t)*)) };
}

/// `eprintln!` that never panics (a failure to write is ignored).
#[macro_export]
macro_rules! errln {
    () => { $crate::term::err(format_args!("\n")) };
    ($($t:tt)*) => { $crate::term::err(format_args!("{}\n", format_args!($($t)*))) };
}

/// The exit code of a command that printed with `?`: its own code, or the one a failed
/// print ends it with.
pub fn finish(r: Result<ExitCode, Stop>) -> ExitCode {
    r.unwrap_or_else(Stop::code)
}
