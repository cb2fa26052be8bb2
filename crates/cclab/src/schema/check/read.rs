//! The value converters of the checker (part of [`super`]): each turns one TOML value into
//! a typed value or a sentence saying what is allowed — rates, times and sizes with their
//! units ([`units`]), integers and sizes in a range, booleans, strings, choices, host and
//! link names — and [`FromValue`], which reads a value by its declared type ([`Ty`]).

use toml::Value;

use super::super::units;
use super::super::{Limit, Ty};
use super::{echo, or_list, quoted, suggestion, type_name, unknown_name_message, Checker};
use crate::engine::SimTime;

pub fn bare_number_message(v: &Value, what: &str, hint: &str) -> String {
    match v {
        Value::Integer(_) | Value::Float(_) => {
            format!("a bare number is not a {what}: write it as a string with a unit; {hint}")
        }
        other => format!(
            "expected a {what} as a string with a unit, found {}; {hint}",
            type_name(other)
        ),
    }
}

/// A quantity written as a string with a unit, parsed by `parse`; anything else is
/// refused with a message saying how to write a `what`.
pub fn with_unit<T>(
    v: &Value,
    what: &str,
    hint: &str,
    parse: fn(&str) -> Result<T, String>,
) -> Result<T, String> {
    match v {
        Value::String(s) => parse(s),
        _ => Err(bare_number_message(v, what, hint)),
    }
}

pub fn rate(v: &Value) -> Result<u64, String> {
    with_unit(v, "rate", units::RATE_HINT, units::parse_rate)
}

pub fn time(v: &Value) -> Result<SimTime, String> {
    with_unit(v, "time", units::TIME_HINT, units::parse_time)
}

pub fn positive_time(v: &Value) -> Result<SimTime, String> {
    match time(v)? {
        0 => Err("must be greater than zero".into()),
        t => Ok(t),
    }
}

pub fn size(v: &Value) -> Result<u64, String> {
    with_unit(v, "size", units::SIZE_HINT, units::parse_size)
}

pub fn limit(v: &Value) -> Result<Limit, String> {
    with_unit(v, "queue limit", units::LIMIT_HINT, units::parse_limit)
}

pub fn boolean(v: &Value) -> Result<bool, String> {
    match v {
        Value::Boolean(b) => Ok(*b),
        Value::String(s) if s == "true" || s == "false" => {
            Err(format!("write {s} without quotes (a TOML boolean)"))
        }
        other => Err(format!(
            "expected true or false, found {}",
            type_name(other)
        )),
    }
}

/// An integer in `lo..=hi`.
pub fn int(lo: i64, hi: i64) -> impl Fn(&Value) -> Result<i64, String> {
    move |v| {
        let range = if hi == i64::MAX {
            format!("an integer >= {lo}")
        } else {
            format!("an integer from {lo} to {hi}")
        };
        match v {
            Value::Integer(i) if (lo..=hi).contains(i) => Ok(*i),
            Value::Integer(_) => Err(format!("out of range: must be {range}")),
            Value::String(s) if s.trim().parse::<i64>().is_ok() => {
                Err(format!("write the number without quotes: must be {range}"))
            }
            other => Err(format!("expected {range}, found {}", type_name(other))),
        }
    }
}

/// A number (integer or float) above `lo` and at most `hi` (`Ty::Real`).
pub fn real(lo: f64, hi: f64) -> impl Fn(&Value) -> Result<f64, String> {
    move |v| {
        let range = format!("a number above {lo} and at most {hi}");
        let x = match v {
            Value::Float(x) => *x,
            Value::Integer(i) => *i as f64,
            Value::String(s) if s.trim().parse::<f64>().is_ok() => {
                return Err(format!("write the number without quotes: must be {range}"))
            }
            other => return Err(format!("expected {range}, found {}", type_name(other))),
        };
        if x > lo && x <= hi {
            Ok(x)
        } else {
            Err(format!("out of range: must be {range}"))
        }
    }
}

/// A byte count written either as an integer (`84`) or a size (`"1500B"`), in `lo..=hi`.
pub fn bytes_in(lo: u64, hi: u64) -> impl Fn(&Value) -> Result<u64, String> {
    move |v| {
        let n = match v {
            Value::Integer(i) => u64::try_from(*i).map_err(|_| "cannot be negative".to_string())?,
            Value::String(s) => units::parse_size(s)?,
            other => {
                return Err(format!(
                    "expected a number of bytes (e.g. 1500 or \"1500B\"), found {}",
                    type_name(other)
                ))
            }
        };
        if (lo..=hi).contains(&n) {
            Ok(n)
        } else {
            Err(format!("out of range: must be from {lo} to {hi} bytes"))
        }
    }
}

pub fn string(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        other => Err(format!("expected a string, found {}", type_name(other))),
    }
}

/// One of a fixed set of words (case-insensitive); returns the canonical spelling.
pub fn choice<'a>(
    what: &'a str,
    allowed: &'a [&'a str],
) -> impl Fn(&Value) -> Result<&'a str, String> {
    move |v| {
        let s = match v {
            Value::String(s) => s,
            other => {
                return Err(format!(
                    "expected {what} as a string ({}), found {}",
                    or_list(&quoted(allowed)),
                    type_name(other)
                ))
            }
        };
        let lower = s.to_lowercase();
        if let Some(a) = allowed.iter().find(|a| **a == lower) {
            return Ok(a);
        }
        let hint = suggestion(&lower, allowed.iter().copied())
            .map(|x| format!("did you mean \"{x}\"? "))
            .unwrap_or_default();
        Err(format!(
            "unknown {what} {}; {hint}use {}",
            echo(s),
            or_list(&quoted(allowed))
        ))
    }
}

/// A host (`from`/`to`) or link name from the topology, when the topology is known.
pub fn name_in<'a>(
    what: &'a str,
    names: Option<&'a [String]>,
) -> impl Fn(&Value) -> Result<String, String> + 'a {
    move |v| {
        let s = match v {
            Value::String(s) => s,
            other => {
                return Err(format!(
                    "expected a {what} name as a string, found {}",
                    type_name(other)
                ))
            }
        };
        match names {
            Some(ns) if !ns.iter().any(|n| n == s) => Err(unknown_name_message(what, s, ns)),
            _ => Ok(s.clone()),
        }
    }
}

/// A value read by its declared type.
pub trait FromValue: Sized {
    fn from_value(v: &Value, ty: &Ty, ck: &Checker) -> Result<Self, String>;
}

impl FromValue for u64 {
    fn from_value(v: &Value, ty: &Ty, _: &Checker) -> Result<u64, String> {
        match *ty {
            Ty::Rate => rate(v),
            Ty::Time => time(v),
            Ty::Interval => positive_time(v),
            Ty::Size => size(v),
            Ty::Bytes(lo, hi) => bytes_in(lo, hi)(v),
            Ty::Int(lo, hi) => int(lo.max(0), hi)(v).map(|x| x as u64),
            _ => unreachable!("a number key declared as {ty:?}"),
        }
    }
}

impl FromValue for u32 {
    fn from_value(v: &Value, ty: &Ty, ck: &Checker) -> Result<u32, String> {
        u64::from_value(v, ty, ck).map(|x| x.min(u64::from(u32::MAX)) as u32)
    }
}

impl FromValue for u8 {
    fn from_value(v: &Value, ty: &Ty, ck: &Checker) -> Result<u8, String> {
        u64::from_value(v, ty, ck).map(|x| x.min(255) as u8)
    }
}

impl FromValue for i64 {
    fn from_value(v: &Value, ty: &Ty, _: &Checker) -> Result<i64, String> {
        match *ty {
            Ty::Int(lo, hi) => int(lo, hi)(v),
            _ => unreachable!("an integer key declared as {ty:?}"),
        }
    }
}

impl FromValue for bool {
    fn from_value(v: &Value, _: &Ty, _: &Checker) -> Result<bool, String> {
        boolean(v)
    }
}

impl FromValue for f64 {
    fn from_value(v: &Value, ty: &Ty, _: &Checker) -> Result<f64, String> {
        if let Ty::Real(lo, hi) = *ty {
            return real(lo, hi)(v);
        }
        let x = match v {
            Value::Float(x) => *x,
            Value::Integer(i) => *i as f64,
            other => {
                return Err(format!(
                    "expected a probability such as 1e-3, found {}",
                    type_name(other)
                ))
            }
        };
        if (0.0..1.0).contains(&x) {
            Ok(x)
        } else {
            Err("a loss rate is a probability: at least 0 and below 1 (e.g. 1e-3)".into())
        }
    }
}

impl FromValue for Limit {
    fn from_value(v: &Value, ty: &Ty, _: &Checker) -> Result<Limit, String> {
        let l = limit(v)?;
        match (ty, l) {
            (Ty::QueueLimit, Limit::Bytes(0) | Limit::Packets(0)) => {
                Err("a queue limit must be greater than zero".into())
            }
            _ => Ok(l),
        }
    }
}

impl FromValue for String {
    fn from_value(v: &Value, ty: &Ty, ck: &Checker) -> Result<String, String> {
        match ty {
            Ty::Choice(what, c) => choice(what, c)(v).map(str::to_string),
            Ty::Host => name_in("host", ck.hosts.as_deref())(v),
            Ty::Link => name_in("link", ck.links.as_deref())(v),
            _ => string(v),
        }
    }
}
