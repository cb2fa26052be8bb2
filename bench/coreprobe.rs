//! bench/coreprobe.rs — how much of its core a process gets right now: the rate at which
//! one thread retires simple integer instructions that leave the core's full width to
//! use (six independent chains of adds and exclusive-ors, three deep), in G
//! instructions per second.
//!
//! On a virtual machine whose core's other hyperthread belongs to another guest, this
//! rate moves in steps as that guest starts and stops work, while the clock does not: on
//! the 2-core development VM (2026-11-29) a chain of dependent multiplies ran at 2.33–2.45
//! GHz the whole evening while this probe gave 1.6, 1.9 or 2.7–3.2 G/s, and `cclab run
//! bench/dctcp10.toml` took 0.56–0.60 s whenever the probe gave 1.6 and 0.34 s when it
//! gave 3.0 (`bench/ab.py --gate`; docs/speed.md, A probe of the core). A timing is
//! comparable with another only if the probe gave the same before and after both.
//!
//!   rustc -O bench/coreprobe.rs -o /tmp/coreprobe && taskset -c 1 /tmp/coreprobe [MILLIONS]
//!
//! MILLIONS: loop iterations in millions (default 40: about 0.1 s here). Prints one
//! number, the rate in G instructions per second. Bad arguments exit 2. On a machine that
//! is not x86-64 the loop is the same arithmetic in Rust, whose instruction count the
//! compiler decides, so its rate is comparable only with itself.
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
    println!("{:.3}", iters as f64 * PER_ITER / s / 1e9);
}
