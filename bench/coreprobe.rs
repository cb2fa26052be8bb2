//! bench/coreprobe.rs — how much of its core a process gets right now: the rate at which
//! one thread retires simple integer instructions that leave the core's full width to
//! use (adds and exclusive-ors on six registers in three independent pairs, each pair's
//! chain three deep per step), in G instructions per second.
//!
//! On a virtual machine whose core's other hyperthread belongs to another guest, this
//! rate moves in steps as that guest starts and stops work, while the clock does not.
//! A timing is comparable with another only if the probe gave about the same before and
//! after both (`bench/ab.py --gate`; docs/speed.md, A probe of the core, has the
//! figures of the development VM).
//!
//!   rustc -O bench/coreprobe.rs -o /tmp/coreprobe && taskset -c 1 /tmp/coreprobe [MILLIONS]
//!
//! MILLIONS: loop iterations in millions (default 40: about 0.1 s here). Prints the rate
//! in G instructions per second and, on x86-64, the core's clock in GHz from a chain of
//! dependent multiplies (3 cycles each on every x86-64 core of the last decade), which an
//! other hyperthread's work hardly slows. Bad arguments exit 2. On a machine that is not
//! x86-64 the loop is the same arithmetic in Rust, whose instruction count the compiler
//! decides, so its rate is comparable only with itself, and no clock is printed.
use std::time::Instant;

/// Instructions per iteration of the x86-64 loop: 12 in the block, the counter's add, its
/// compare-and-branch.
#[cfg(target_arch = "x86_64")]
const PER_ITER: f64 = 14.0;
#[cfg(not(target_arch = "x86_64"))]
const PER_ITER: f64 = 12.0;

fn spin(iters: u64) -> u64 {
    let (mut a, mut b, mut c, mut d, mut e, mut f) = (1u64, 2u64, 3u64, 4u64, 5u64, 6u64);
    let y = std::hint::black_box(3u64);
    for _ in 0..iters {
        #[cfg(target_arch = "x86_64")]
        unsafe {
            std::arch::asm!(
                "add {a}, {y}", "add {b}, {y}", "add {c}, {y}",
                "add {d}, {y}", "add {e}, {y}", "add {f}, {y}",
                "xor {b}, {a}", "xor {d}, {c}", "xor {f}, {e}",
                "xor {a}, {b}", "xor {c}, {d}", "xor {e}, {f}",
                a = inout(reg) a, b = inout(reg) b, c = inout(reg) c,
                d = inout(reg) d, e = inout(reg) e, f = inout(reg) f,
                y = in(reg) y,
                options(nomem, nostack, pure),
            );
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            a = std::hint::black_box(a.wrapping_add(y));
            b = (b.wrapping_add(y)) ^ a;
            c = std::hint::black_box(c.wrapping_add(y));
            d = (d.wrapping_add(y)) ^ c;
            e = std::hint::black_box(e.wrapping_add(y));
            f = (f.wrapping_add(y)) ^ e;
            a ^= b;
            c ^= d;
            e ^= f;
        }
    }
    a ^ b ^ c ^ d ^ e ^ f
}

/// The clock in GHz: `iters` multiplies, each waiting for the one before, timed in five
/// parts and the fastest kept (a part the scheduler interrupted is slower, never faster).
#[cfg(target_arch = "x86_64")]
fn clock(iters: u64) -> f64 {
    let y = std::hint::black_box(3u64);
    let part = (iters / 40).max(1);
    let mut best = f64::MAX;
    for _ in 0..5 {
        let mut z = 1u64;
        let t = Instant::now();
        for _ in 0..part {
            unsafe {
                std::arch::asm!(
                    "imul {z}, {y}", "imul {z}, {y}", "imul {z}, {y}", "imul {z}, {y}",
                    "imul {z}, {y}", "imul {z}, {y}", "imul {z}, {y}", "imul {z}, {y}",
                    z = inout(reg) z, y = in(reg) y,
                    options(nomem, nostack, pure),
                );
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
        std::hint::black_box(z);
    }
    (part * 8) as f64 * 3.0 / best / 1e9
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let millions = match args.as_slice() {
        [] => 40,
        [m] => match m.parse::<u64>() {
            Ok(m) if (1..=100_000).contains(&m) => m,
            _ => {
                eprintln!("coreprobe: MILLIONS must be a whole number from 1 to 100000, got '{m}'");
                std::process::exit(2);
            }
        },
        _ => {
            eprintln!("usage: coreprobe [MILLIONS]");
            std::process::exit(2);
        }
    };
    let iters = millions * 1_000_000;
    let t = Instant::now();
    let x = spin(iters);
    let s = t.elapsed().as_secs_f64();
    std::hint::black_box(x);
    let rate = iters as f64 * PER_ITER / s / 1e9;
    #[cfg(target_arch = "x86_64")]
    println!("{rate:.3} {:.3}", clock(iters / 4));
    #[cfg(not(target_arch = "x86_64"))]
    println!("{rate:.3}");
}
