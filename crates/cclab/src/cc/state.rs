//! An algorithm's own state as the `cc` series samples it (`[output] cc`, docs/outputs.md
//! `cc.csv`): each algorithm lists the quantities it has ([`CongestionOps::state_vars`],
//! named as its source names them) and writes their values when asked
//! ([`CongestionOps::state`]), which happens at sample times only: an unsampled run never
//! calls it, and a sampled one costs nothing per packet.
//!
//! Values are numbers in the tables' units (times in seconds, rates in bit/s, windows in
//! segments, fractions as fractions). A quantity that takes one of a few named values (BBR's mode)
//! lists their names as its `levels` and writes the index of the current one; the series
//! shows the number and its name.

#[allow(unused_imports)] // the doc links
use super::CongestionOps;

/// One quantity of an algorithm's state in the `cc` series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateVar {
    /// The name the module's source gives it, with the tables' unit suffix: `_s` for a
    /// time (in seconds), `_bps` for a rate (in bit/s); none for a window (segments), a
    /// count, a fraction or a gain.
    pub name: &'static str,
    /// For a quantity that takes one of a few named values: their names, indexed by the
    /// number [`CongestionOps::state`] writes; empty for a number.
    pub levels: &'static [&'static str],
}

impl StateVar {
    /// A number named `name`.
    pub const fn num(name: &'static str) -> StateVar {
        StateVar { name, levels: &[] }
    }

    /// One of `levels`, named `name`.
    pub const fn level(name: &'static str, levels: &'static [&'static str]) -> StateVar {
        StateVar { name, levels }
    }

    /// The name of the level `v` stands for, if this quantity has levels and `v` is one.
    pub fn label(&self, v: f64) -> Option<&'static str> {
        (v >= 0.0 && v.fract() == 0.0)
            .then(|| self.levels.get(v as usize).copied())
            .flatten()
    }
}

/// Most quantities an algorithm may list: the sampler's buffer.
pub const MAX_STATE_VARS: usize = 16;

/// A time in µs as seconds; NaN for `none` (the source's "no sample yet").
pub fn us_s(us: u64, none: u64) -> f64 {
    if us == none {
        f64::NAN
    } else {
        us as f64 / 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Cc, CcOptions, TcpCcState, CC_NAMES};

    /// Every algorithm's list fits the buffer, has unique names a column may take, and
    /// its values can be read from a fresh instance (before any sample: NaN or a number).
    #[test]
    fn every_algorithms_state_vars_are_well_formed() {
        for name in CC_NAMES {
            let c = Cc::new(name, &CcOptions::default()).unwrap();
            let vars = c.state_vars();
            assert!(vars.len() <= MAX_STATE_VARS, "{name}");
            for (i, v) in vars.iter().enumerate() {
                assert!(
                    !v.name.is_empty()
                        && v.name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_'),
                    "{name}: {v:?}"
                );
                assert!(!vars[..i].iter().any(|w| w.name == v.name), "{name}: {v:?}");
            }
            let mut out = [f64::INFINITY; MAX_STATE_VARS];
            c.state(&TcpCcState::new(1448, 10, u32::MAX), &mut out[..vars.len()]);
            assert!(out[..vars.len()].iter().all(|x| !x.is_infinite()), "{name}");
        }
    }

    #[test]
    fn a_level_is_named_by_its_index() {
        let v = StateVar::level("mode", &["STARTUP", "DRAIN"]);
        assert_eq!(v.label(1.0), Some("DRAIN"));
        assert_eq!(
            (v.label(2.0), v.label(0.5), v.label(f64::NAN)),
            (None, None, None)
        );
        assert_eq!(StateVar::num("x").label(0.0), None);
    }
}
