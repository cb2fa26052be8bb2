//! Simulated time, the event queue and deterministic random streams.
//!
//! Time is an integer number of picoseconds in a `u64` (`SimTime`): 1500 B at 400 Gb/s is
//! exactly 30,000 ps, and 2^64 ps is about 213 days of simulated time. The event queue is
//! ordered by (time, insertion sequence), so two events at the same instant always run in
//! the order they were scheduled: runs are reproducible bit for bit.
//!
//! Random numbers come from per-component streams derived from one master seed with
//! SplitMix64, each stream a xoshiro256** generator (Blackman & Vigna). The generators are
//! written out here, not taken from a crate, so a dependency upgrade can never change a
//! published result.

/// Simulated time in picoseconds.
pub type SimTime = u64;

pub const PS: SimTime = 1;
pub const NS: SimTime = 1_000;
pub const US: SimTime = 1_000_000;
pub const MS: SimTime = 1_000_000_000;
pub const SEC: SimTime = 1_000_000_000_000;

/// Seconds as f64 from a `SimTime`.
#[inline]
pub fn secs(t: SimTime) -> f64 {
    t as f64 / SEC as f64
}

/// A `SimTime` from seconds (rounded to the nearest picosecond).
#[inline]
pub fn from_secs(s: f64) -> SimTime {
    (s * SEC as f64).round() as SimTime
}

/// Time to serialise `bytes` at `rate_bps`, in picoseconds, rounded up so a link never
/// carries more than its rate.
#[inline]
pub fn tx_time(bytes: u64, rate_bps: u64) -> SimTime {
    // A packet's bit-picoseconds fit in 64 bits (up to 2.3 MB); a 64-bit division is several
    // times cheaper than the 128-bit one needed beyond that. Both give the same result.
    if bytes <= (u64::MAX / (8 * SEC)) {
        return (bytes * 8 * SEC).div_ceil(rate_bps);
    }
    let bits = bytes as u128 * 8 * SEC as u128;
    bits.div_ceil(rate_bps as u128) as SimTime
}

struct Entry<E> {
    /// (time, insertion sequence) in one integer: unique, and ordered as the pair.
    key: u128,
    ev: E,
}

#[inline]
fn key(time: SimTime, seq: u64) -> u128 {
    (time as u128) << 64 | seq as u128
}

/// Children per node of the event heap: a 4-ary heap has half the levels of a binary one,
/// and the four children's keys share a cache line or two.
const ARITY: usize = 4;

/// The event queue: a 4-ary min-heap keyed by (time, insertion sequence). Keys are unique,
/// so the pop order — and every result — is fully determined by the schedule calls.
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    seq: u64,
    now: SimTime,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::with_capacity(1 << 12),
            seq: 0,
            now: 0,
            popped: 0,
        }
    }

    /// The time of the event being processed (or of the last one processed).
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedule `ev` at absolute time `at` (never in the past).
    #[inline]
    pub fn schedule(&mut self, at: SimTime, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.seq;
        self.seq += 1;
        let k = key(at, seq);
        // Sift up: move parents down until the new entry's place is found.
        let mut i = self.heap.len();
        self.heap.push(Entry { key: k, ev });
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[parent].key <= k {
                break;
            }
            self.heap.swap(i, parent);
            i = parent;
        }
    }

    /// Remove the smallest entry (the heap must not be empty).
    #[inline]
    fn pop_min(&mut self) -> Entry<E> {
        let last = self.heap.pop().expect("non-empty heap");
        if self.heap.is_empty() {
            return last;
        }
        let top = std::mem::replace(&mut self.heap[0], last);
        // Sift the moved entry down to its place.
        let n = self.heap.len();
        let k = self.heap[0].key;
        let mut i = 0;
        loop {
            let first = i * ARITY + 1;
            if first >= n {
                break;
            }
            let mut best = first;
            let mut best_key = self.heap[first].key;
            for c in first + 1..(first + ARITY).min(n) {
                let ck = self.heap[c].key;
                if ck < best_key {
                    best = c;
                    best_key = ck;
                }
            }
            if best_key >= k {
                break;
            }
            self.heap.swap(i, best);
            i = best;
        }
        top
    }

    /// Schedule `ev` after `delay` from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: SimTime, ev: E) {
        self.schedule(self.now + delay, ev)
    }

    /// Remove the next event if it is at or before `until`, advancing `now` to its time.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        if (self.heap.first()?.key >> 64) as SimTime > until {
            return None;
        }
        let e = self.pop_min();
        let time = (e.key >> 64) as SimTime;
        self.now = time;
        self.popped += 1;
        Some((time, e.ev))
    }

    /// Move the clock to `t` (used when a run stops at a fixed time with events left).
    pub fn advance_to(&mut self, t: SimTime) {
        if t > self.now {
            self.now = t;
        }
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// SplitMix64 step: used to derive independent stream seeds from the master seed.
#[inline]
pub fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A xoshiro256** random stream.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The stream for component `stream` under master seed `seed`. Different `(seed,
    /// stream)` pairs give independent-looking streams; the same pair always gives the
    /// same numbers.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut x = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut s = [0u64; 4];
        for w in s.iter_mut() {
            *w = splitmix64(&mut x);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// Uniform integer in [0, n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// A one-shot timer that can be re-armed cheaply: re-arming to a later deadline costs no
/// heap operation; the pending event notices the new deadline and re-schedules itself.
/// This is how the RTO timer avoids one heap push per ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    /// When the timer should fire, if armed.
    pub deadline: Option<SimTime>,
    /// The earliest time at which an event for this timer sits in the queue.
    pending: Option<SimTime>,
}

/// What a timer event found when it ran.
#[derive(Debug, PartialEq, Eq)]
pub enum TimerCheck {
    /// The deadline has passed: run the handler (the timer is now disarmed).
    Fire,
    /// Not yet: re-schedule an event at the returned time.
    Reschedule(SimTime),
    /// Disarmed or an event for it is already pending: nothing to do.
    Idle,
}

impl Timer {
    /// Arm at `deadline`. Returns `Some(t)` when the caller must schedule an event at `t`.
    #[inline]
    pub fn arm(&mut self, deadline: SimTime) -> Option<SimTime> {
        self.deadline = Some(deadline);
        match self.pending {
            Some(p) if p <= deadline => None,
            _ => {
                self.pending = Some(deadline);
                Some(deadline)
            }
        }
    }

    #[inline]
    pub fn disarm(&mut self) {
        self.deadline = None;
    }

    #[inline]
    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Call when an event for this timer runs at `now`.
    #[inline]
    pub fn on_event(&mut self, now: SimTime) -> TimerCheck {
        if self.pending == Some(now) {
            self.pending = None;
        }
        match self.deadline {
            None => TimerCheck::Idle,
            Some(d) if d <= now => {
                self.deadline = None;
                TimerCheck::Fire
            }
            Some(d) => match self.pending {
                Some(p) if p <= d => TimerCheck::Idle,
                _ => {
                    self.pending = Some(d);
                    TimerCheck::Reschedule(d)
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_run_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(10, 'b');
        q.schedule(5, 'a');
        q.schedule(10, 'c');
        q.schedule(10, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop_until(u64::MAX).map(|e| e.1)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
        assert_eq!(q.now(), 10);
        assert_eq!(q.events_processed(), 4);
    }

    #[test]
    fn heap_pops_in_time_then_insertion_order_under_random_load() {
        // Interleaved schedules and pops (as a simulation does: never in the past), checked
        // against a sorted reference of (time, insertion number).
        let mut rng = Rng::new(3, 0);
        let mut q = EventQueue::new();
        let mut reference: Vec<(SimTime, u64)> = Vec::new();
        let mut n = 0u64;
        let mut popped = Vec::new();
        for step in 0..20_000 {
            let burst = (rng.next_u64() % 4) as usize;
            for _ in 0..burst {
                // Many equal times, to exercise the tie-break.
                let at = q.now() + rng.next_u64() % 50;
                q.schedule(at, n);
                reference.push((at, n));
                n += 1;
            }
            if step % 3 != 0 {
                if let Some((t, ev)) = q.pop_until(SimTime::MAX) {
                    popped.push((t, ev));
                    let i = reference
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, r)| **r)
                        .map(|(i, _)| i)
                        .unwrap();
                    assert_eq!(reference.swap_remove(i), (t, ev));
                }
            }
        }
        while let Some((t, ev)) = q.pop_until(SimTime::MAX) {
            popped.push((t, ev));
        }
        assert_eq!(popped.len() as u64, n);
        assert!(popped.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(q.is_empty());
        // pop_until leaves later events in place.
        q.schedule(q.now() + 10, 0);
        assert!(q.pop_until(q.now() + 9).is_none());
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn tx_time_is_exact_and_rounds_up() {
        assert_eq!(tx_time(1500, 400_000_000_000), 30_000);
        assert_eq!(tx_time(1500, 10_000_000_000), 1_200_000);
        assert_eq!(tx_time(1, 3), 2_666_666_666_667);
        // The 64-bit and 128-bit paths agree at their boundary.
        let b = u64::MAX / (8 * SEC);
        for bytes in [b - 1, b, b + 1] {
            let exact = (bytes as u128 * 8 * SEC as u128).div_ceil(7_777_777) as SimTime;
            assert_eq!(tx_time(bytes, 7_777_777), exact);
        }
    }

    #[test]
    fn rng_streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(1, 7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(Rng::new(1, 7).next_u64(), Rng::new(1, 8).next_u64());
        assert_ne!(Rng::new(1, 7).next_u64(), Rng::new(2, 7).next_u64());
        let mut r = Rng::new(42, 0);
        let n = 200_000;
        let hits = (0..n).filter(|_| r.bernoulli(0.1)).count() as f64 / n as f64;
        assert!((hits - 0.1).abs() < 0.003, "bernoulli(0.1) gave {hits}");
    }

    #[test]
    fn timer_rearm_later_needs_no_new_event() {
        let mut t = Timer::default();
        assert_eq!(t.arm(100), Some(100));
        assert_eq!(t.arm(150), None);
        assert_eq!(t.on_event(100), TimerCheck::Reschedule(150));
        assert_eq!(t.on_event(150), TimerCheck::Fire);
        assert_eq!(t.on_event(150), TimerCheck::Idle);
        // Re-arming earlier than the pending event schedules a new one.
        assert_eq!(t.arm(300), Some(300));
        assert_eq!(t.arm(200), Some(200));
        assert_eq!(t.on_event(200), TimerCheck::Fire);
        assert_eq!(t.on_event(300), TimerCheck::Idle);
        t.arm(400);
        t.disarm();
        assert_eq!(t.on_event(400), TimerCheck::Idle);
    }
}
