//! Kathleen Nichols' windowed min/max filter, as Linux `lib/win_minmax.c` (and
//! `include/linux/win_minmax.h`): the best, second-best and third-best samples of the
//! window, each from a later part of it, so the estimate ages out in O(1) per sample.
//! BBR keeps its bottleneck bandwidth in a max filter over 10 round trips.

/// One sample: its time (in whatever unit the window is: BBR's rounds) and value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinmaxSample {
    pub t: u32,
    pub v: u32,
}

/// `struct minmax`: the three choices, best first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Minmax {
    pub s: [MinmaxSample; 3],
}

impl Minmax {
    /// `minmax_get`: the best value of the window.
    #[inline]
    pub fn get(&self) -> u32 {
        self.s[0].v
    }

    /// `minmax_reset`: forget everything; `meas` at `t` is all three choices.
    pub fn reset(&mut self, t: u32, meas: u32) -> u32 {
        let val = MinmaxSample { t, v: meas };
        self.s = [val; 3];
        self.s[0].v
    }

    /// `minmax_subwin_update`: as time advances, update the 1st, 2nd and 3rd choices.
    fn subwin_update(&mut self, win: u32, val: MinmaxSample) -> u32 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // Passed the entire window without a new val: the 2nd choice is the new best
            // and the 3rd the new 2nd; again if the 2nd was outside the window too.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window without a new val: a 2nd choice from the 2nd quarter.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half the window without a new val: a 3rd choice from the last half.
            self.s[2] = val;
        }
        self.s[0].v
    }

    /// `minmax_running_max`: take `meas` at `t` into a max filter of window `win`.
    pub fn running_max(&mut self, win: u32, t: u32, meas: u32) -> u32 {
        let val = MinmaxSample { t, v: meas };
        if val.v >= self.s[0].v || val.t.wrapping_sub(self.s[2].t) > win {
            return self.reset(t, meas); // a new max, or nothing left in the window
        }
        if val.v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if val.v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// `minmax_running_min`: take `meas` at `t` into a min filter of window `win`.
    pub fn running_min(&mut self, win: u32, t: u32, meas: u32) -> u32 {
        let val = MinmaxSample { t, v: meas };
        if val.v <= self.s[0].v || val.t.wrapping_sub(self.s[2].t) > win {
            return self.reset(t, meas);
        }
        if val.v <= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if val.v <= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A max filter of 10 rounds, worked by hand: 100 at round 0, then smaller values.
    /// A larger sample replaces everything; the best ages out after the window, the
    /// sub-window choices taking over in order.
    #[test]
    fn max_filter_keeps_the_windowed_best_and_ages_it_out() {
        let mut m = Minmax::default();
        assert_eq!(m.reset(0, 0), 0);
        assert_eq!(m.running_max(10, 0, 100), 100);
        // Round 3 (> win/4 = 2, second choice still the first): 80 becomes 2nd and 3rd.
        assert_eq!(m.running_max(10, 3, 80), 100);
        assert_eq!(
            (m.s[1], m.s[2]),
            (MinmaxSample { t: 3, v: 80 }, MinmaxSample { t: 3, v: 80 })
        );
        // Round 6 (> win/2 = 5, 3rd equals 2nd): 60 becomes the 3rd choice.
        assert_eq!(m.running_max(10, 6, 60), 100);
        assert_eq!(m.s[2], MinmaxSample { t: 6, v: 60 });
        // Round 11: 100 (from round 0) is older than the window: 80 is the best.
        assert_eq!(m.running_max(10, 11, 50), 80);
        assert_eq!(m.s[0], MinmaxSample { t: 3, v: 80 });
        // A new max resets the three choices.
        assert_eq!(m.running_max(10, 12, 120), 120);
        assert_eq!(m.s, [MinmaxSample { t: 12, v: 120 }; 3]);
        // Nothing in the window (the 3rd choice is over 10 rounds old): reset to the sample.
        assert_eq!(m.running_max(10, 30, 7), 7);
    }

    #[test]
    fn min_filter_mirrors_the_max_filter() {
        let mut m = Minmax::default();
        m.reset(0, 50);
        assert_eq!(m.running_min(10, 1, 60), 50);
        assert_eq!(m.running_min(10, 2, 40), 40);
        assert_eq!(m.running_min(10, 13, 70), 70);
    }
}
