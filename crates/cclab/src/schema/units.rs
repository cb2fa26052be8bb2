//! Human units in scenario files: rates (`10Gbps`), times (`1.5ms`), sizes (`75KB`,
//! `64KiB`) and queue limits (`100pkts` or a size), turned into the simulator's base units
//! (bits per second, picoseconds, bytes).
//!
//! Numbers are parsed as exact decimals (no floating point), so `1.5Gbps` is exactly
//! 1 500 000 000 bit/s and `0.1ms` exactly 100 000 000 ps. Decimal prefixes are SI
//! (K = 10³, M = 10⁶, G = 10⁹, T = 10¹²); binary ones (KiB, MiB, GiB) are powers of 1024,
//! as in IEC 80000-13. Every error is a sentence that says what is allowed, because it ends
//! up in front of a person (see `ScenarioError`).

use super::check::echo;
use super::Limit;
use crate::engine::{SimTime, MS, NS, PS, SEC, US};

/// Every rate unit, exactly as it must be written (units are case-sensitive), and its
/// value in bits per second. SI prefixes; `k` and `K` both mean 1000.
///
/// `tc` reads `bps`, `kbps`, `mbps`, `gbps` as *bytes* per second and `bit`, `kbit`, `mbit`
/// as bits. cclab writes rates in bits per second, as networking papers do, so the
/// conventional `Mbps`/`Gbps` are bits here; the lower-case `mbps`/`gbps`/`tbps` that
/// only a `tc` user would write, and every spelling with an upper-case `B` (`MBps`,
/// `MB/s`, `1GBPS`), are refused rather than read 8× off.
pub const RATE_UNITS: &[(&str, u64)] = &[
    ("bps", 1),
    ("kbps", 1_000),
    ("Kbps", 1_000),
    ("Mbps", 1_000_000),
    ("Gbps", 1_000_000_000),
    ("Tbps", 1_000_000_000_000),
    ("bit", 1),
    ("kbit", 1_000),
    ("Kbit", 1_000),
    ("mbit", 1_000_000),
    ("Mbit", 1_000_000),
    ("gbit", 1_000_000_000),
    ("Gbit", 1_000_000_000),
    ("tbit", 1_000_000_000_000),
    ("Tbit", 1_000_000_000_000),
    ("bit/s", 1),
    ("kbit/s", 1_000),
    ("Kbit/s", 1_000),
    ("Mbit/s", 1_000_000),
    ("Gbit/s", 1_000_000_000),
    ("Tbit/s", 1_000_000_000_000),
];

/// Every time unit, exactly as it must be written, and its value in picoseconds.
pub const TIME_UNITS: &[(&str, u64)] = &[
    ("ps", PS),
    ("ns", NS),
    ("us", US),
    // U+00B5 MICRO SIGN and U+03BC GREEK SMALL LETTER MU both appear in the wild.
    ("\u{b5}s", US),
    ("\u{3bc}s", US),
    ("ms", MS),
    ("s", SEC),
    ("min", 60 * SEC),
    ("h", 3600 * SEC),
];

/// Every size unit, exactly as it must be written, and its value in bytes. `KB` = 1000 B
/// (`kB` is the SI spelling of the same), `KiB` = 1024 B (IEC 80000-13). A lower-case `b`
/// is a bit and is refused.
pub const SIZE_UNITS: &[(&str, u64)] = &[
    ("B", 1),
    ("kB", 1_000),
    ("KB", 1_000),
    ("KiB", 1 << 10),
    ("MB", 1_000_000),
    ("MiB", 1 << 20),
    ("GB", 1_000_000_000),
    ("GiB", 1 << 30),
    ("TB", 1_000_000_000_000),
    ("TiB", 1 << 40),
];

/// Every packet-count unit of a queue limit, exactly as it must be written.
pub const PACKET_UNITS: &[&str] = &["pkts", "pkt", "packets", "packet"];

/// What a rate may look like; appended to rate errors.
pub const RATE_HINT: &str =
    "use bps, Kbps, Mbps, Gbps, Tbps or kbit, Mbit, Gbit (bits per second; e.g. \"10Gbps\")";
/// What a time may look like; appended to time errors.
pub const TIME_HINT: &str = "use ps, ns, us, ms, s, min or h (e.g. \"100us\", \"1.5ms\")";
/// What a size may look like; appended to size errors.
pub const SIZE_HINT: &str =
    "use B, KB, KiB, MB, MiB, GB, GiB, TB or TiB (KB = 1000 B, KiB = 1024 B; e.g. \"75KB\", \"64KiB\")";
/// What a queue limit may look like; appended to limit errors.
pub const LIMIT_HINT: &str = "use a packet count (e.g. \"100pkts\") or a size in B, KB, KiB, \
                              MB, MiB, GB or GiB (e.g. \"1MB\", \"64KiB\")";

/// The accepted units closest to an unknown `unit`: those equal but for case first, else
/// those within a small edit distance. Units longer than 16 characters get none (the
/// search stays bounded however long the value).
fn nearest<'a>(unit: &str, table: impl Iterator<Item = &'a str> + Clone) -> String {
    if unit.chars().count() > 16 {
        return String::new();
    }
    let same_case: Vec<&str> = table
        .clone()
        .filter(|u| u.to_lowercase() == unit.to_lowercase())
        .collect();
    let close: Vec<&str> = if same_case.is_empty() {
        let d = |u: &str| super::check::distance(unit, u);
        let best = table.clone().map(d).min().unwrap_or(usize::MAX);
        if best > 2 || best >= unit.chars().count() {
            return String::new();
        }
        table.filter(|u| d(u) == best).collect()
    } else {
        same_case
    };
    let list: Vec<String> = close.iter().map(|u| format!("\"{u}\"")).collect();
    let case = if close.iter().any(|u| u.eq_ignore_ascii_case(unit)) {
        " (units are case-sensitive)"
    } else {
        ""
    };
    format!("did you mean {}{case}? ", list.join(" or "))
}

/// Look `unit` up in a table, or say what is allowed.
fn unit_of(unit: &str, table: &[(&str, u64)], what: &str, hint: &str) -> Result<u128, String> {
    match table.iter().find(|(u, _)| *u == unit) {
        Some((_, m)) => Ok(u128::from(*m)),
        None => Err(format!(
            "unknown {what} unit {}; {}{hint}",
            echo(unit),
            nearest(unit, table.iter().map(|(u, _)| *u))
        )),
    }
}

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
        return Err(format!("{} does not start with a number; {hint}", echo(s)));
    }
    let mut digits: u128 = 0;
    let mut scale = 0u32;
    let mut seen_point = false;
    let mut seen_digit = false;
    for c in num.chars() {
        match c {
            '.' if seen_point => {
                return Err(format!(
                    "{} is not a number (two decimal points)",
                    echo(num)
                ));
            }
            '.' => seen_point = true,
            '_' => {}
            d => {
                seen_digit = true;
                digits = digits
                    .checked_mul(10)
                    .and_then(|x| x.checked_add(u128::from(d as u8 - b'0')))
                    .ok_or_else(|| format!("{} has too many digits", echo(num)))?;
                if seen_point {
                    scale += 1;
                }
            }
        }
    }
    if !seen_digit {
        return Err(format!("{} does not start with a number; {hint}", echo(s)));
    }
    if unit.is_empty() {
        return Err(format!("{} has no unit; {hint}", echo(s)));
    }
    Ok((Decimal { digits, scale }, unit))
}

/// `num / den` as a `u64` when it divides exactly.
fn exact(num: u128, den: u128) -> Option<u128> {
    num.is_multiple_of(den).then_some(num / den)
}

fn to_u64(x: u128, s: &str, what: &str) -> Result<u64, String> {
    u64::try_from(x).map_err(|_| format!("{} is too large for a {what}", echo(s)))
}

/// A rate in bits per second: `10Gbps`, `1Gbit/s`, `100Mbit`, `1.5Gbps`, `64bps`; the
/// unit exactly as in [`RATE_UNITS`].
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let (n, unit) = split(s, "rate", RATE_HINT)?;
    let lower = unit.to_lowercase();
    // `[kmgt]?B(ps|/s)` in any case but with an upper-case B: bytes per second.
    let prefixed = lower.len() == 4 && matches!(&lower[..1], "k" | "m" | "g" | "t");
    let b_at = usize::from(prefixed);
    let byte_rate =
        unit.is_ascii() && matches!(&lower[b_at..], "bps" | "b/s") && unit.as_bytes()[b_at] == b'B';
    if byte_rate {
        return Err(format!(
            "{} means bytes per second, but rates are written in bits per second \
             (1 MB/s = 8 Mbps); {RATE_HINT}",
            echo(unit)
        ));
    }
    if matches!(lower.as_str(), "mbps" | "gbps" | "tbps")
        && !RATE_UNITS.iter().any(|(u, _)| *u == unit)
    {
        let upper = format!("{}{}", unit[..1].to_uppercase(), &lower[1..]);
        return Err(format!(
            "{} is refused because it is read two ways: tc reads it as {}bytes per second, \
             cclab writes rates in bits per second; write \"{upper}\" or \"{}bit\" for \
             bits per second (1 MB/s = 8 Mbps)",
            echo(unit),
            match &lower[..1] {
                "m" => "mega",
                "g" => "giga",
                _ => "tera",
            },
            &upper[..1]
        ));
    }
    let mult = unit_of(unit, RATE_UNITS, "rate", RATE_HINT)?;
    let (num, den) = n
        .times(mult)
        .ok_or_else(|| format!("{} is too large for a rate", echo(s)))?;
    let bps = exact(num, den)
        .ok_or_else(|| format!("{} is not a whole number of bits per second", echo(s)))?;
    if bps == 0 {
        return Err(format!(
            "a rate must be greater than zero (got {}); {RATE_HINT}",
            echo(s)
        ));
    }
    to_u64(bps, s, "rate")
}

/// The largest time a scenario may give: 10⁶ s (about 11.6 days). Simulated time is a
/// `u64` of picoseconds and ends after 18,446,744 s; keeping every user time 18× below
/// that means a sum of a few of them (a start plus a duration, an RTO backed off to its
/// maximum on top of the run's end) cannot wrap.
pub const MAX_TIME: SimTime = 1_000_000 * SEC;

/// A time in picoseconds: `1.5ms`, `100us`, `100µs`, `10ns`, `2s`, `1min`, `1h`, `250ps`,
/// `0s`; the unit exactly as in [`TIME_UNITS`]. Rounded to the nearest picosecond; at most
/// [`MAX_TIME`].
pub fn parse_time(s: &str) -> Result<SimTime, String> {
    let (n, unit) = split(s, "time", TIME_HINT)?;
    let mult = unit_of(unit, TIME_UNITS, "time", TIME_HINT)?;
    let too_large = || {
        format!(
            "{} is too large: times may be at most {} s (about 11.6 days)",
            echo(s),
            MAX_TIME / SEC
        )
    };
    let (num, den) = n.times(mult).ok_or_else(too_large)?;
    let ps = (num + den / 2) / den;
    match u64::try_from(ps) {
        Ok(t) if t <= MAX_TIME => Ok(t),
        _ => Err(too_large()),
    }
}

/// A size in bytes: `1500B`, `75KB` (1000), `64KiB` (1024), `1MB`, `4MiB`, `1GB`, `1GiB`;
/// the unit exactly as in [`SIZE_UNITS`].
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (n, unit) = split(s, "size", SIZE_HINT)?;
    let mult = size_unit(unit)?;
    let (num, den) = n
        .times(mult)
        .ok_or_else(|| format!("{} is too large for a size", echo(s)))?;
    let bytes =
        exact(num, den).ok_or_else(|| format!("{} is not a whole number of bytes", echo(s)))?;
    to_u64(bytes, s, "size")
}

fn size_unit(unit: &str) -> Result<u128, String> {
    if unit.eq_ignore_ascii_case("k")
        || unit.eq_ignore_ascii_case("m")
        || unit.eq_ignore_ascii_case("g")
    {
        return Err(format!(
            "the size unit {} is ambiguous; {SIZE_HINT}",
            echo(unit)
        ));
    }
    if unit.ends_with('b') && !unit.ends_with("ib") && unit.len() <= 2 {
        return Err(format!(
            "{} is bits, but sizes are in bytes: write \"{}B\"; {SIZE_HINT}",
            echo(unit),
            &unit[..unit.len() - 1].to_uppercase()
        ));
    }
    unit_of(unit, SIZE_UNITS, "size", SIZE_HINT)
}

/// A queue limit or threshold: packets (`100pkts`, as in [`PACKET_UNITS`]) or a size
/// (`1MB`, `64KiB`, as [`parse_size`]).
pub fn parse_limit(s: &str) -> Result<Limit, String> {
    let (n, unit) = split(s, "limit", LIMIT_HINT)?;
    if PACKET_UNITS.contains(&unit) {
        let (num, den) = n
            .times(1)
            .ok_or_else(|| format!("{} is too large for a limit", echo(s)))?;
        let p = exact(num, den)
            .ok_or_else(|| format!("{} is not a whole number of packets", echo(s)))?;
        return Ok(Limit::Packets(to_u64(p, s, "limit")?));
    }
    if !SIZE_UNITS.iter().any(|(u, _)| *u == unit) {
        let all = PACKET_UNITS
            .iter()
            .copied()
            .chain(SIZE_UNITS.iter().map(|(u, _)| *u));
        return Err(format!(
            "unknown limit unit {}; {}{LIMIT_HINT}",
            echo(unit),
            nearest(unit, all)
        ));
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
        assert_eq!(parse_rate("100Mbit"), Ok(100_000_000));
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
            "unknown rate unit \"Gbs\"; did you mean \"Gbps\"? use bps, Kbps, Mbps, Gbps, Tbps \
             or kbit, Mbit, Gbit (bits per second; e.g. \"10Gbps\")"
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
        let e = parse_time("10hr").unwrap_err();
        assert!(e.contains("unknown time unit \"hr\""), "{e}");
        assert!(e.contains("ps, ns, us, ms, s, min or h"), "{e}");
        assert!(parse_time("1000000min").unwrap_err().contains("too large"));
        assert!(parse_time("1000001s")
            .unwrap_err()
            .contains("at most 1000000 s"));
        assert_eq!(parse_time("1000000s"), Ok(MAX_TIME));
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
        assert_eq!(parse_size("75kB"), Ok(75_000));
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
        assert_eq!(parse_limit("65 pkts"), Ok(Limit::Packets(65)));
        assert_eq!(parse_limit("1MB"), Ok(Limit::Bytes(1_000_000)));
        assert_eq!(parse_limit("64KiB"), Ok(Limit::Bytes(65_536)));
        assert!(parse_limit("1.5pkts").unwrap_err().contains("whole number"));
        assert!(parse_limit("100").unwrap_err().contains("no unit"));
        assert!(parse_limit("100frames")
            .unwrap_err()
            .contains("unknown limit unit"));
        assert!(parse_limit("-1pkts").unwrap_err().contains("negative"));
    }

    /// Every entry of every table parses to its value, with and without a space and with a
    /// decimal number.
    #[test]
    fn every_table_entry() {
        for (u, m) in RATE_UNITS {
            assert_eq!(parse_rate(&format!("3{u}")), Ok(3 * m), "{u}");
            assert_eq!(
                parse_rate(&format!("2.5 {u}")).ok(),
                (m % 2 == 0 || *m >= 10).then_some(5 * m / 2),
                "{u}"
            );
        }
        for (u, m) in TIME_UNITS {
            assert_eq!(parse_time(&format!("3{u}")), Ok(3 * m), "{u}");
            assert_eq!(parse_time(&format!("0.5 {u}")), Ok(m.div_ceil(2)), "{u}");
            // rounded half up
        }
        for (u, m) in SIZE_UNITS {
            assert_eq!(parse_size(&format!("3{u}")), Ok(3 * m), "{u}");
            assert_eq!(
                parse_limit(&format!("3{u}")),
                Ok(Limit::Bytes(3 * m)),
                "{u}"
            );
        }
        for u in PACKET_UNITS {
            assert_eq!(parse_limit(&format!("7{u}")), Ok(Limit::Packets(7)), "{u}");
        }
    }

    /// Every spelling that is not in a table is refused, whatever its case.
    #[test]
    fn case_matters() {
        // Byte rates, in every case: never read as bits.
        for u in [
            "MB/s", "8MB/S", "1GBPS", "MBps", "KBps", "kBps", "GB/s", "Bps", "TBPS", "mB/s",
        ] {
            let e = parse_rate(&format!("1{u}")).unwrap_err();
            assert!(e.contains("bytes per second"), "{u}: {e}");
        }
        // Spellings tc reads as bytes per second.
        for (u, fix) in [("mbps", "Mbps"), ("gbps", "Gbps"), ("tbps", "Tbps")] {
            let e = parse_rate(&format!("1{u}")).unwrap_err();
            assert!(e.contains("tc reads it as"), "{u}: {e}");
            assert!(e.contains(&format!("write \"{fix}\"")), "{u}: {e}");
        }
        // Other case variants: refused with the right spelling.
        for (u, fix) in [
            ("MBIT", "Mbit"),
            ("GBIT/S", "Gbit/s"),
            ("BIT", "bit"),
            ("kBit", "kbit"),
        ] {
            let e = parse_rate(&format!("1{u}")).unwrap_err();
            assert!(
                e.contains(&format!("\"{fix}\"")) && e.contains("case-sensitive"),
                "{u}: {e}"
            );
        }
        for (u, fix) in [
            ("MS", "ms"),
            ("Ms", "ms"),
            ("S", "s"),
            ("NS", "ns"),
            ("Min", "min"),
            ("H", "h"),
            ("US", "us"),
        ] {
            let e = parse_time(&format!("1{u}")).unwrap_err();
            assert!(
                e.contains(&format!("\"{fix}\"")) && e.contains("case-sensitive"),
                "{u}: {e}"
            );
        }
        for u in ["sec", "secs", "mins", "hours", "hr"] {
            assert!(parse_time(&format!("1{u}")).is_err(), "{u}");
        }
        for u in ["b", "kb", "Kb", "mb", "Mb", "gb", "Gb"] {
            let e = parse_size(&format!("1{u}")).unwrap_err();
            assert!(e.contains("is bits, but sizes are in bytes"), "{u}: {e}");
        }
        for (u, fix) in [
            ("kib", "KiB"),
            ("KIB", "KiB"),
            ("mib", "MiB"),
            ("GIB", "GiB"),
        ] {
            let e = parse_size(&format!("1{u}")).unwrap_err();
            assert!(e.contains(&format!("\"{fix}\"")), "{u}: {e}");
        }
        for u in ["PKTS", "Pkts", "frames", "bytes"] {
            assert!(parse_limit(&format!("1{u}")).is_err(), "{u}");
        }
        assert!(parse_limit("1PKTS").unwrap_err().contains("\"pkts\""));
    }

    /// A huge or hostile value gives a short message without raw control bytes, at once.
    #[test]
    fn echoed_values_are_bounded() {
        let huge = format!("1{}", "x".repeat(10_000_000));
        let t0 = std::time::Instant::now();
        let e = parse_rate(&huge).unwrap_err();
        assert!(t0.elapsed() < std::time::Duration::from_secs(1));
        assert!(e.len() < 300, "{} bytes", e.len());
        assert!(e.contains('…'));
        let e = parse_time("1\u{1b}[31mms").unwrap_err();
        assert!(!e.contains('\u{1b}'), "{e}");
        assert!(e.contains("\\u{1b}"), "{e}");
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
