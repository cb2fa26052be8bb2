//! Human units in scenario files: rates (`10Gbps`), times (`1.5ms`), sizes (`75KB`,
//! `64KiB`) and queue limits (`100pkts` or a size), turned into the simulator's base units
//! (bits per second, picoseconds, bytes).
//!
//! Numbers are parsed as exact decimals (no floating point), so `1.5Gbps` is exactly
//! 1 500 000 000 bit/s and `0.1ms` exactly 100 000 000 ps. Decimal prefixes are SI
//! (K = 10³, M = 10⁶, G = 10⁹, T = 10¹²); binary ones (KiB, MiB, GiB) are powers of 1024,
//! as in IEC 80000-13. Every error is a sentence that says what is allowed, because it ends
//! up in front of a person (see `ScenarioError`).

use super::spec::Limit;
use crate::engine::{SimTime, MS, NS, PS, SEC, US};

/// What a rate may look like; appended to rate errors.
pub const RATE_HINT: &str = "use bps, Kbps, Mbps, Gbps or Tbps (e.g. \"10Gbps\")";
/// What a time may look like; appended to time errors.
pub const TIME_HINT: &str = "use ps, ns, us, ms, s or min (e.g. \"100us\", \"1.5ms\")";
/// What a size may look like; appended to size errors.
pub const SIZE_HINT: &str =
    "use B, KB, KiB, MB, MiB, GB, GiB, TB or TiB (KB = 1000 B, KiB = 1024 B; e.g. \"75KB\", \"64KiB\")";
/// What a queue limit may look like; appended to limit errors.
pub const LIMIT_HINT: &str = "use a packet count (e.g. \"100pkts\") or a size in B, KB, KiB, \
                              MB, MiB, GB or GiB (e.g. \"1MB\", \"64KiB\")";

/// An exact non-negative decimal: `digits / 10^scale`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decimal {
    digits: u128,
    scale: u32,
}

impl Decimal {
    /// `self × mult`, as a fraction `(numerator, denominator)`; `None` on overflow.
    fn times(self, mult: u128) -> Option<(u128, u128)> {
        let num = self.digits.checked_mul(mult)?;
        let den = 10u128.checked_pow(self.scale)?;
        Some((num, den))
    }
}

/// Split `"1.5 Gbps"` into the number `1.5` and the unit `"Gbps"`.
fn split<'a>(s: &'a str, what: &str, hint: &str) -> Result<(Decimal, &'a str), String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(format!("an empty string is not a {what}; {hint}"));
    }
    if t.starts_with('-') {
        return Err(format!("a {what} cannot be negative; {hint}"));
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (num, unit) = (&t[..end], t[end..].trim());
    if num.is_empty() {
        return Err(format!("\"{s}\" does not start with a number; {hint}"));
    }
    let mut digits: u128 = 0;
    let mut scale = 0u32;
    let mut seen_point = false;
    let mut seen_digit = false;
    for c in num.chars() {
        match c {
            '.' if seen_point => {
                return Err(format!("\"{num}\" is not a number (two decimal points)"));
            }
            '.' => seen_point = true,
            '_' => {}
            d => {
                seen_digit = true;
                digits = digits
                    .checked_mul(10)
                    .and_then(|x| x.checked_add(u128::from(d as u8 - b'0')))
                    .ok_or_else(|| format!("\"{num}\" has too many digits"))?;
                if seen_point {
                    scale += 1;
                }
            }
        }
    }
    if !seen_digit {
        return Err(format!("\"{s}\" does not start with a number; {hint}"));
    }
    if unit.is_empty() {
        return Err(format!("\"{s}\" has no unit; {hint}"));
    }
    Ok((Decimal { digits, scale }, unit))
}

/// `num / den` as a `u64` when it divides exactly.
fn exact(num: u128, den: u128) -> Option<u128> {
    num.is_multiple_of(den).then_some(num / den)
}

fn to_u64(x: u128, s: &str, what: &str) -> Result<u64, String> {
    u64::try_from(x).map_err(|_| format!("\"{s}\" is too large for a {what}"))
}

/// A rate in bits per second: `10Gbps`, `1Gbit/s`, `100mbit`, `1.5Gbps`, `64bps`.
///
/// Units are case-insensitive (`mbps` is megabits, as in `tc`), with one exception that
/// prevents a silent 8× mistake: an upper-case `B` before `ps` or `/s` (`MBps`, `MB/s`)
/// means *bytes* per second and is refused with a hint.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let (n, unit) = split(s, "rate", RATE_HINT)?;
    if unit.ends_with("Bps") || unit.ends_with("B/s") {
        return Err(format!(
            "\"{unit}\" means bytes per second, but rates are written in bits per second \
             (1 MB/s = 8 Mbps); {RATE_HINT}"
        ));
    }
    let lower = unit.to_lowercase();
    let (prefix, base) = match lower.chars().next() {
        Some(c @ ('k' | 'm' | 'g' | 't')) => (Some(c), &lower[1..]),
        _ => (None, &lower[..]),
    };
    let is_bits = matches!(base, "bps" | "bit/s" | "bits/s" | "b/s" | "bit" | "bits");
    let mult: u128 = match (prefix, is_bits) {
        (None, true) => 1,
        (Some('k'), true) => 1_000,
        (Some('m'), true) => 1_000_000,
        (Some('g'), true) => 1_000_000_000,
        (Some('t'), true) => 1_000_000_000_000,
        _ => return Err(format!("unknown rate unit \"{unit}\"; {RATE_HINT}")),
    };
    let (num, den) = n
        .times(mult)
        .ok_or_else(|| format!("\"{s}\" is too large for a rate"))?;
    let bps = exact(num, den)
        .ok_or_else(|| format!("\"{s}\" is not a whole number of bits per second"))?;
    if bps == 0 {
        return Err(format!(
            "a rate must be greater than zero (got \"{s}\"); {RATE_HINT}"
        ));
    }
    to_u64(bps, s, "rate")
}

/// A time in picoseconds: `1.5ms`, `100us`, `100µs`, `10ns`, `2s`, `1min`, `250ps`, `0s`.
/// Units are case-insensitive; values are rounded to the nearest picosecond.
pub fn parse_time(s: &str) -> Result<SimTime, String> {
    let (n, unit) = split(s, "time", TIME_HINT)?;
    let mult: SimTime = match unit.to_lowercase().as_str() {
        "ps" => PS,
        "ns" => NS,
        // U+00B5 MICRO SIGN and U+03BC GREEK SMALL LETTER MU both appear in the wild.
        "us" | "\u{b5}s" | "\u{3bc}s" => US,
        "ms" => MS,
        "s" | "sec" | "secs" => SEC,
        "min" | "mins" => 60 * SEC,
        _ => return Err(format!("unknown time unit \"{unit}\"; {TIME_HINT}")),
    };
    let too_large = || {
        format!(
            "\"{s}\" is too large: simulated time ends after {} s (about 213 days)",
            u64::MAX / SEC
        )
    };
    let (num, den) = n.times(u128::from(mult)).ok_or_else(too_large)?;
    let ps = (num + den / 2) / den;
    u64::try_from(ps).map_err(|_| too_large())
}

/// A size in bytes: `1500B`, `75KB` (1000), `64KiB` (1024), `1MB`, `4MiB`, `1GB`, `1GiB`.
/// A unit is required; units are case-insensitive.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (n, unit) = split(s, "size", SIZE_HINT)?;
    let mult: u128 = size_unit(unit).ok_or_else(|| {
        if unit.eq_ignore_ascii_case("k") || unit.eq_ignore_ascii_case("m") {
            format!("the size unit \"{unit}\" is ambiguous; {SIZE_HINT}")
        } else {
            format!("unknown size unit \"{unit}\"; {SIZE_HINT}")
        }
    })?;
    let (num, den) = n
        .times(mult)
        .ok_or_else(|| format!("\"{s}\" is too large for a size"))?;
    let bytes = exact(num, den).ok_or_else(|| format!("\"{s}\" is not a whole number of bytes"))?;
    to_u64(bytes, s, "size")
}

fn size_unit(unit: &str) -> Option<u128> {
    Some(match unit.to_lowercase().as_str() {
        "b" | "byte" | "bytes" => 1,
        "kb" => 1_000,
        "kib" => 1 << 10,
        "mb" => 1_000_000,
        "mib" => 1 << 20,
        "gb" => 1_000_000_000,
        "gib" => 1 << 30,
        "tb" => 1_000_000_000_000,
        "tib" => 1 << 40,
        _ => return None,
    })
}

/// A queue limit or threshold: packets (`100pkts`, `100pkt`, `100packets`) or a size
/// (`1MB`, `64KiB`, as [`parse_size`]).
pub fn parse_limit(s: &str) -> Result<Limit, String> {
    let (n, unit) = split(s, "limit", LIMIT_HINT)?;
    if matches!(
        unit.to_lowercase().as_str(),
        "pkt" | "pkts" | "packet" | "packets"
    ) {
        let (num, den) = n
            .times(1)
            .ok_or_else(|| format!("\"{s}\" is too large for a limit"))?;
        let p =
            exact(num, den).ok_or_else(|| format!("\"{s}\" is not a whole number of packets"))?;
        return Ok(Limit::Packets(to_u64(p, s, "limit")?));
    }
    if size_unit(unit).is_none() {
        return Err(format!("unknown limit unit \"{unit}\"; {LIMIT_HINT}"));
    }
    parse_size(s).map(Limit::Bytes)
}

/// A time written back in the largest unit that shows it exactly (`1.5ms`, `200ms`, `10s`),
/// for messages and summaries.
pub fn format_time(t: SimTime) -> String {
    if t == 0 {
        return "0s".into();
    }
    let units = [(SEC, "s"), (MS, "ms"), (US, "us"), (NS, "ns"), (PS, "ps")];
    for (u, name) in units {
        if t >= u {
            return format!("{}{name}", trim_decimal(t, u));
        }
    }
    format!("{t}ps")
}

/// A rate written back with an SI prefix (`1Gbps`, `600Mbps`, `1.5Gbps`).
pub fn format_rate(bps: u64) -> String {
    let units = [
        (1_000_000_000_000, "Tbps"),
        (1_000_000_000, "Gbps"),
        (1_000_000, "Mbps"),
        (1_000, "Kbps"),
    ];
    for (u, name) in units {
        if bps >= u {
            return format!("{}{name}", trim_decimal(bps, u));
        }
    }
    format!("{bps}bps")
}

/// A limit written back (`100pkts`, `75000B`).
pub fn format_limit(l: Limit) -> String {
    match l {
        Limit::Packets(p) => format!("{p}pkts"),
        Limit::Bytes(b) => format!("{b}B"),
    }
}

/// `x / unit` as an exact decimal without trailing zeros (`1500, 1000` → `"1.5"`).
fn trim_decimal(x: u64, unit: u64) -> String {
    let whole = x / unit;
    let frac = x % unit;
    if frac == 0 {
        return whole.to_string();
    }
    let width = unit.ilog10() as usize;
    let f = format!("{frac:0width$}");
    format!("{whole}.{}", f.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Gbps"), Ok(10_000_000_000));
        assert_eq!(parse_rate("1Gbit/s"), Ok(1_000_000_000));
        assert_eq!(parse_rate("100Mbps"), Ok(100_000_000));
        assert_eq!(parse_rate("100mbit"), Ok(100_000_000));
        assert_eq!(parse_rate("1.5Gbps"), Ok(1_500_000_000));
        assert_eq!(parse_rate("9000kbps"), Ok(9_000_000));
        assert_eq!(parse_rate("9000Kbit/s"), Ok(9_000_000));
        assert_eq!(parse_rate("64bps"), Ok(64));
        assert_eq!(parse_rate("1Tbps"), Ok(1_000_000_000_000));
        assert_eq!(parse_rate("600 Mbps"), Ok(600_000_000));
        assert_eq!(parse_rate("1gbit"), Ok(1_000_000_000));
        assert_eq!(parse_rate("0.6Gbps"), Ok(600_000_000));
    }

    #[test]
    fn rate_rejections() {
        let e = parse_rate("10Gbs").unwrap_err();
        assert_eq!(
            e,
            "unknown rate unit \"Gbs\"; use bps, Kbps, Mbps, Gbps or Tbps (e.g. \"10Gbps\")"
        );
        assert!(parse_rate("0Gbps")
            .unwrap_err()
            .contains("greater than zero"));
        assert!(parse_rate("-1Gbps").unwrap_err().contains("negative"));
        assert!(parse_rate("100").unwrap_err().contains("no unit"));
        assert!(parse_rate("Gbps")
            .unwrap_err()
            .contains("does not start with a number"));
        assert!(parse_rate("1.5bps").unwrap_err().contains("whole number"));
        assert!(parse_rate("10MBps")
            .unwrap_err()
            .contains("bytes per second"));
        assert!(parse_rate("10MB/s")
            .unwrap_err()
            .contains("bytes per second"));
        assert!(parse_rate("1.2.3Gbps")
            .unwrap_err()
            .contains("two decimal points"));
        assert!(parse_rate("99999999999Tbps")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_rate("").is_err());
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("1.5ms"), Ok(1_500 * US));
        assert_eq!(parse_time("100us"), Ok(100 * US));
        assert_eq!(parse_time("100µs"), Ok(100 * US));
        assert_eq!(parse_time("100μs"), Ok(100 * US));
        assert_eq!(parse_time("10ns"), Ok(10 * NS));
        assert_eq!(parse_time("2s"), Ok(2 * SEC));
        assert_eq!(parse_time("1min"), Ok(60 * SEC));
        assert_eq!(parse_time("250ps"), Ok(250));
        assert_eq!(parse_time("0s"), Ok(0));
        assert_eq!(parse_time("0.1ms"), Ok(100 * US));
        // Rounded to the nearest picosecond.
        assert_eq!(parse_time("1.4ps"), Ok(1));
        assert_eq!(parse_time("1.5ps"), Ok(2));
        assert_eq!(parse_time("0.0000000000005s"), Ok(1));
    }

    #[test]
    fn time_rejections() {
        assert!(parse_time("-1ms").unwrap_err().contains("negative"));
        assert!(parse_time("10").unwrap_err().contains("no unit"));
        let e = parse_time("10h").unwrap_err();
        assert!(e.contains("unknown time unit \"h\""), "{e}");
        assert!(e.contains("ps, ns, us, ms, s or min"), "{e}");
        assert!(parse_time("1000000min").unwrap_err().contains("too large"));
        assert!(parse_time("ms").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("75KB"), Ok(75_000));
        assert_eq!(parse_size("64KiB"), Ok(65_536));
        assert_eq!(parse_size("1MB"), Ok(1_000_000));
        assert_eq!(parse_size("4MiB"), Ok(4 << 20));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("1500B"), Ok(1500));
        assert_eq!(parse_size("1500b"), Ok(1500));
        assert_eq!(parse_size("75kb"), Ok(75_000));
        assert_eq!(parse_size("1.5KB"), Ok(1500));
        assert_eq!(parse_size("0B"), Ok(0));
    }

    #[test]
    fn size_rejections() {
        assert!(parse_size("100k").unwrap_err().contains("ambiguous"));
        assert!(parse_size("100").unwrap_err().contains("no unit"));
        assert!(parse_size("100KX")
            .unwrap_err()
            .contains("unknown size unit"));
        assert!(parse_size("1.0001KB").unwrap_err().contains("whole number"));
        assert!(parse_size("-5KB").unwrap_err().contains("negative"));
        assert!(parse_size("100000000000TB")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn limits() {
        assert_eq!(parse_limit("100pkts"), Ok(Limit::Packets(100)));
        assert_eq!(parse_limit("100pkt"), Ok(Limit::Packets(100)));
        assert_eq!(parse_limit("100packets"), Ok(Limit::Packets(100)));
        assert_eq!(parse_limit("65 PKTS"), Ok(Limit::Packets(65)));
        assert_eq!(parse_limit("1MB"), Ok(Limit::Bytes(1_000_000)));
        assert_eq!(parse_limit("64KiB"), Ok(Limit::Bytes(65_536)));
        assert!(parse_limit("1.5pkts").unwrap_err().contains("whole number"));
        assert!(parse_limit("100").unwrap_err().contains("no unit"));
        assert!(parse_limit("100frames")
            .unwrap_err()
            .contains("unknown limit unit"));
        assert!(parse_limit("-1pkts").unwrap_err().contains("negative"));
    }

    #[test]
    fn formatting_round_trips() {
        assert_eq!(format_time(1_500 * US), "1.5ms");
        assert_eq!(format_time(200 * MS), "200ms");
        assert_eq!(format_time(0), "0s");
        assert_eq!(format_time(250), "250ps");
        assert_eq!(format_rate(1_500_000_000), "1.5Gbps");
        assert_eq!(format_rate(600_000_000), "600Mbps");
        assert_eq!(format_rate(64), "64bps");
        assert_eq!(format_limit(Limit::Packets(100)), "100pkts");
        for s in ["1.5ms", "100us", "2s", "10ns", "7ps"] {
            assert_eq!(format_time(parse_time(s).unwrap()), s);
        }
        for s in ["1.5Gbps", "10Gbps", "9Mbps", "64bps"] {
            assert_eq!(format_rate(parse_rate(s).unwrap()), s);
        }
    }
}
