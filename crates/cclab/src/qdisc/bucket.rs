//! The token bucket of Linux's shapers and policers, kept in time (ns) as the kernel keeps
//! it: a bucket `depth` ns deep holds `tokens` ns; `elapsed` ns add as many tokens (capped
//! at the depth) and a packet of `len` bytes costs `psched_l2t_ns(rate, len)`.
//!
//! - [`TwoBuckets`]: tbf's and the policer's pair, a rate bucket and, with a peak rate, a
//!   bucket one MTU deep at the peak rate (Linux `net/sched/sch_tbf.c` `tbf_dequeue`,
//!   `net/sched/act_police.c` `tcf_police_act`, Linux 3.13 – 6.x): a packet is checked
//!   before it goes — both buckets after its cost ≥ 0 — and the buckets change only if it
//!   goes ([`TwoBuckets::commit`]).
//! - htb (`sch_htb.c` `htb_charge_class`) uses [`Bucket`] itself: it lets a packet go while
//!   its buckets are not negative and charges it afterwards, into debt.

use super::Ratecfg;

/// One bucket.
#[derive(Clone, Copy, Debug)]
pub struct Bucket {
    pub rate: Ratecfg,
    /// ns.
    pub depth: i64,
    /// ns; negative is debt (htb).
    pub tokens: i64,
}

impl Bucket {
    /// A full bucket (`tbf_change`, `tcf_police_init` and `htb_change_class` start full).
    pub fn full(rate: Ratecfg, depth: i64) -> Bucket {
        Bucket {
            rate,
            depth,
            tokens: depth,
        }
    }

    /// The tokens after `elapsed` ns, capped at the depth.
    #[inline]
    pub fn refilled(&self, elapsed: i64) -> i64 {
        (self.tokens + elapsed).min(self.depth)
    }

    /// What `len` bytes cost, in ns.
    #[inline]
    pub fn cost(&self, len: u32) -> i64 {
        self.rate.l2t(len)
    }
}

/// The buckets as a packet would leave them: `toks` and `ptoks` (0 without a peak rate).
#[derive(Clone, Copy, Debug)]
pub struct Take {
    toks: i64,
    ptoks: i64,
}

impl Take {
    /// Both buckets ≥ 0 after the packet's cost: it conforms / may go.
    #[inline]
    pub fn fits(&self) -> bool {
        (self.toks | self.ptoks) >= 0
    }

    /// How long until it would fit, in ns (`qdisc_watchdog_schedule_ns(now +
    /// max(−toks, −ptoks))`).
    #[inline]
    pub fn wait_ns(&self) -> u64 {
        (-self.toks).max(-self.ptoks) as u64
    }
}

/// A rate bucket and an optional peak bucket, with the time of the last packet that went.
#[derive(Clone, Debug)]
pub struct TwoBuckets {
    pub rate: Bucket,
    /// Boxed: rarely set, and inline it would make `Tbf` the largest variant of the
    /// `Qdisc` enum every port holds (`qdisc_enum_stays_small`).
    pub peak: Option<Box<Bucket>>,
    /// ns.
    t_c: u64,
}

impl TwoBuckets {
    /// Full buckets; `peak` (a rate and its depth in ns) when a peak rate is set.
    pub fn new(rate: Bucket, peak: Option<Bucket>) -> TwoBuckets {
        TwoBuckets {
            rate,
            peak: peak.map(Box::new),
            t_c: 0,
        }
    }

    /// The buckets after a packet of `len` bytes at `now_ns`: the time since the last
    /// packet, at most the rate bucket's depth, refills both, then each pays the packet.
    #[inline]
    pub fn take(&self, now_ns: u64, len: u32) -> Take {
        let elapsed = (now_ns - self.t_c).min(self.rate.depth as u64) as i64;
        let ptoks = self
            .peak
            .as_ref()
            .map_or(0, |p| p.refilled(elapsed) - p.cost(len));
        let toks = self.rate.refilled(elapsed) - self.rate.cost(len);
        Take { toks, ptoks }
    }

    /// Both buckets full, the last packet at `now_ns` (`tbf_reset`).
    pub fn refill(&mut self, now_ns: u64) {
        self.t_c = now_ns;
        self.rate.tokens = self.rate.depth;
        if let Some(p) = &mut self.peak {
            p.tokens = p.depth;
        }
    }

    /// The packet went: keep the buckets `take` computed.
    #[inline]
    pub fn commit(&mut self, now_ns: u64, t: Take) {
        self.t_c = now_ns;
        self.rate.tokens = t.toks;
        if let Some(p) = &mut self.peak {
            p.tokens = t.ptoks;
        }
    }
}
