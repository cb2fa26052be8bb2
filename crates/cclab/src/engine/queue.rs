//! The event queue: the near array, the timing wheel and the distant heap, popped in
//! (time, insertion) order.

use super::*;

/// The event queue, ordered by (time, insertion sequence): two events at the same instant
/// pop in the order they were scheduled, so the pop order — and every result — is fully
/// determined by the schedule calls.
///
/// Three tiers, which never overlap in that order:
/// - the near array: the earliest events sorted latest first (the next event is the last
///   entry), each with its time and no rank. Every event due before `near_end` goes here,
///   placed after every event of the same or an earlier time: among equal times that is
///   insertion order, since the new event is the latest scheduled.
/// - the wheel: `SPAN >> shift` buckets of `2^shift` ps from `base`, the start of the current
///   bucket `cur`; bucket `i` holds the events of its time slot, unsorted, keyed by (time,
///   rank). The current bucket also takes whatever is due before its end and not in the
///   near array. When the near array runs empty it takes the current bucket's earliest
///   `LOAD` events (sorted then; a bucket of more than `BIG` is turned into a heap), and
///   when the current bucket is empty too the wheel turns to its next occupied bucket.
/// - the distant heap: events due `SPAN` or more after `base`, moved into the wheel as soon
///   as it turns far enough to hold them.
///
/// When the near array is full its latest half moves back into the wheel (each event into
/// its bucket, the current one for any due before its end; beyond the span, the distant
/// heap) with ranks counting down (they precede, at equal times, everything already out of
/// the near array) and `near_end` drops to the earliest of them. The pops come out in (time,
/// insertion) order — the same order as a single heap on (time, sequence number), checked
/// against one in the tests.
pub struct EventQueue<E> {
    /// A sentinel (time `SimTime::MAX`, no event) at index 0, then the near events, latest
    /// first. Time and event side by side: an insert moves each entry in one copy.
    /// Capacity `NEAR_CAP + 1`, never grown (a refill fills an empty array with at most
    /// `LOAD <= NEAR_CAP` entries).
    pub(super) near: Vec<Slot<E>>,
    /// Room for the entries a spill moves (kept to reuse its allocation).
    spilled: Vec<Slot<E>>,
    /// Events due before this go to the near array; no wheel or heap event is earlier.
    near_end: SimTime,
    buckets: Buckets<E>,
    /// Where a refill sorts a bucket's entries (kept to reuse its allocation).
    scratch: Vec<Entry<E>>,
    /// Events in the wheel (the buckets and `big`).
    wheel_len: usize,
    /// The start of the current bucket and its index.
    base: SimTime,
    cur: usize,
    /// The current bucket when it held more than `BIG` events (its chunk list is then
    /// empty).
    big: Heap<E>,
    distant: Heap<E>,
    /// Next rank for an event scheduled into the wheel or the distant heap (counts up).
    rank_up: u64,
    /// Next rank for an event moved from the near array back into the wheel (counts down).
    rank_down: u64,
    now: SimTime,
    popped: u64,
    /// The wheel's buckets are `2^shift` ps wide; `mask` = buckets − 1 (kept, not derived
    /// from `buckets`: `bucket_of` is on the schedule path, and reading the bucket vector's
    /// length there cost 0.5% more instructions on dctcp10 and on 20 ms of k = 8).
    pub(super) shift: u32,
    mask: usize,
    /// When `popped` reaches `adapt_at`, the width is chosen again from the events popped
    /// since `adapt_time` ([`Self::adapt`]).
    adapt_at: u64,
    adapt_time: SimTime,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        const { assert!(LOAD <= NEAR_CAP) };
        let mut near = Vec::with_capacity(NEAR_CAP + 1);
        near.push(Slot {
            t: SimTime::MAX,
            ev: MaybeUninit::uninit(),
        });
        EventQueue {
            near,
            spilled: Vec::with_capacity(NEAR_CAP / 2),
            near_end: 1 << START_SHIFT,
            buckets: Buckets::new((SPAN >> START_SHIFT) as usize),
            scratch: Vec::new(),
            wheel_len: 0,
            base: 0,
            cur: 0,
            big: Heap::new(),
            distant: Heap::new(),
            rank_up: RANK_MID,
            rank_down: RANK_MID - 1,
            now: 0,
            popped: 0,
            shift: START_SHIFT,
            mask: (SPAN >> START_SHIFT) as usize - 1,
            adapt_at: ADAPT_EVENTS,
            adapt_time: 0,
        }
    }

    /// The wheel bucket of time `t`.
    #[inline(always)]
    fn bucket_of(&self, t: SimTime) -> usize {
        ((t >> self.shift) as usize) & self.mask
    }

    /// The time of the event being processed (or of the last one processed).
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedule `ev` at absolute time `at` (never in the past).
    #[inline(always)]
    pub fn schedule(&mut self, at: SimTime, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        if self.near.len() > NEAR_CAP {
            self.spill();
        }
        if at < self.near_end {
            self.near_insert(at, ev);
        } else {
            let k = key(at, self.rank_up);
            self.rank_up += 1;
            self.place(at, k, ev);
        }
    }

    /// Put an event due at `at` with key `k` into its bucket, or into the distant heap.
    #[inline(always)]
    fn place(&mut self, at: SimTime, k: u128, ev: E) {
        if at.saturating_sub(self.base) < SPAN {
            // Before the current bucket's start only if due before its end: it joins it.
            self.bucket_push(self.bucket_of(at.max(self.base)), k, ev);
        } else {
            self.distant.push(k, ev);
        }
    }

    #[inline(always)]
    fn bucket_push(&mut self, i: usize, k: u128, ev: E) {
        self.wheel_len += 1;
        if i == self.cur && !self.big.key.is_empty() {
            return self.big.push(k, ev);
        }
        self.buckets.push(i, k, ev);
    }

    /// Insert into the near array (not full; `at` before `near_end`).
    #[inline]
    fn near_insert(&mut self, at: SimTime, ev: E) {
        let n = self.near.len();
        debug_assert!(n <= NEAR_CAP && n < self.near.capacity() && at < SimTime::MAX);
        // SAFETY: the vector was allocated for `NEAR_CAP + 1` entries and never grows, and
        // `n <= NEAR_CAP` (`schedule` spills a full array first), so slot `n` exists. The
        // scan moves entries up by one while they are not later than `at`; it stops at the
        // sentinel (`SimTime::MAX > at`) at the latest, so `i - 1` is read only for
        // `i >= 1`. The new entry fills the slot left at `i`; nothing in between can panic.
        unsafe {
            let p = self.near.as_mut_ptr();
            let mut i = n;
            while (*p.add(i - 1)).t <= at {
                ptr::copy_nonoverlapping(p.add(i - 1), p.add(i), 1);
                i -= 1;
            }
            ptr::write(
                p.add(i),
                Slot {
                    t: at,
                    ev: MaybeUninit::new(ev),
                },
            );
            self.near.set_len(n + 1);
        }
    }

    /// The near array is full: move its latest half back into the wheel (or the distant
    /// heap), each event into its bucket, the current one for any due before its end.
    #[cold]
    #[inline(never)]
    fn spill(&mut self) {
        let mut earliest = self.near_end;
        let mut spilled = std::mem::take(&mut self.spilled);
        spilled.extend(self.near.drain(1..=NEAR_CAP / 2));
        // Latest first, so the ranks count down in true order.
        for s in spilled.drain(..) {
            let k = key(s.t, self.rank_down);
            self.rank_down -= 1;
            earliest = s.t;
            // SAFETY: past the sentinel, every entry holds an event.
            let ev = unsafe { s.ev.assume_init() };
            self.place(s.t, k, ev);
        }
        self.spilled = spilled;
        self.near_end = earliest;
    }

    /// The near array is empty: move the wheel's earliest events into it — the current
    /// bucket's, and following buckets' whole while they fit in `LOAD` — and set
    /// `near_end` to the end of what it took. False if no event is left.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) -> bool {
        if self.popped >= self.adapt_at {
            self.adapt();
        }
        loop {
            if !self.big.key.is_empty() {
                for _ in 0..self.big.key.len().min(LOAD) {
                    let (k, ev) = self.big.pop();
                    self.push_near(k, ev);
                }
                self.wheel_len -= self.near.len() - 1;
                self.near_end = match self.big.key.first() {
                    Some(&k) => key_time(k),
                    None => self.base.saturating_add(1 << self.shift),
                };
                // They came out earliest first; the array keeps the earliest last.
                self.near[1..].reverse();
                return true;
            }
            let cur = self.cur;
            let n = self.buckets.len(cur);
            if n > BIG {
                let mut all = std::mem::take(&mut self.scratch);
                self.buckets.take(cur, &mut all);
                for e in all.drain(..) {
                    self.big.push(e.key, e.ev);
                }
                self.scratch = all;
                continue;
            }
            if n > 0 {
                break;
            }
            // Turn the wheel to its next occupied bucket, or to the distant heap's first
            // event.
            let base = match self.next_occupied() {
                Some(d) => self.base + ((d as SimTime) << self.shift),
                None if self.distant.key.is_empty() => return false,
                None => self.distant.min_time() >> self.shift << self.shift,
            };
            self.turn_to(base);
        }
        let mut b = std::mem::take(&mut self.scratch);
        loop {
            let cur = self.cur;
            let start = b.len();
            let room = LOAD - start;
            // Earliest first.
            self.buckets.take_sorted(cur, &mut b);
            if b.len() - start > room {
                // What does not fit goes back, sorted.
                self.near_end = key_time(b[start + room].key);
                for e in b.drain(start + room..) {
                    self.buckets.push(cur, e.key, e.ev);
                }
                break;
            }
            // The next occupied bucket, if it fits whole. The near array takes everything
            // due before the next event it did not take (where events are sparse, as on a
            // dumbbell, most then go straight into it, as into a plain sorted list).
            let Some(d) = self.next_occupied_after(b.len()) else {
                self.near_end = self.distant.min_time();
                break;
            };
            let next = (cur + d) & self.mask;
            let next_base = self.base + ((d as SimTime) << self.shift);
            if self.buckets.len(next) > LOAD - b.len() {
                self.near_end = next_base;
                break;
            }
            self.turn_to(next_base);
        }
        self.wheel_len -= b.len();
        // The array keeps the earliest last.
        let n = b.len();
        debug_assert!(self.near.len() == 1 && n <= LOAD);
        // SAFETY: the near array is empty past its sentinel and has room for `LOAD + 1`
        // entries (`n <= LOAD`); each of `b`'s `n` entries is moved out exactly once (its
        // length is set to 0 first, so nothing is dropped twice) into slot `n - j`.
        unsafe {
            b.set_len(0);
            let src = b.as_ptr();
            let dst = self.near.as_mut_ptr();
            for j in 0..n {
                let e = ptr::read(src.add(j));
                ptr::write(
                    dst.add(n - j),
                    Slot {
                        t: key_time(e.key),
                        ev: MaybeUninit::new(e.ev),
                    },
                );
            }
            self.near.set_len(n + 1);
        }
        self.scratch = b;
        true
    }

    /// Choose the buckets' width again from the event rate of the last `ADAPT_EVENTS`
    /// events, so that a bucket holds about `PER_BUCKET` of them, and move the wheel's
    /// events into buckets of that width if it changed by more than a factor of about 1.7
    /// (so a rate near the middle of two widths does not resize back and forth). Called by
    /// `refill` (the near array is empty). The pop order stays what it was: an event's
    /// key (time, rank) does not depend on the width, and only the buckets change.
    #[cold]
    #[inline(never)]
    fn adapt(&mut self) {
        let events = (self.popped + ADAPT_EVENTS - self.adapt_at) as f64;
        let elapsed = self.now.saturating_sub(self.adapt_time).max(1) as f64;
        self.adapt_at = self.popped + ADAPT_EVENTS;
        self.adapt_time = self.now;
        let best = (PER_BUCKET * elapsed / events).log2();
        if (best - self.shift as f64).abs() < 0.75 {
            return;
        }
        let shift = (best.round() as u32).clamp(MIN_SHIFT, MAX_SHIFT);
        if shift != self.shift {
            self.rebucket(shift);
        }
    }

    /// Make the wheel's buckets `2^shift` ps wide and move its events into them. The near
    /// array must be empty.
    pub(super) fn rebucket(&mut self, shift: u32) {
        debug_assert_eq!(self.near.len(), 1, "the near array is empty");
        let mut all = std::mem::take(&mut self.scratch);
        let mut old = std::mem::replace(&mut self.buckets, Buckets::new((SPAN >> shift) as usize));
        // In any order: each event keeps its key.
        for i in 0..old.b.len() {
            old.take(i, &mut all);
        }
        while !self.big.key.is_empty() {
            let (key, ev) = self.big.pop();
            all.push(Entry { key, ev });
        }
        self.shift = shift;
        self.mask = (SPAN >> shift) as usize - 1;
        // The current bucket starts no later than before: a wider one at the same or an
        // earlier time, a narrower one where the old one started. So what the distant heap
        // holds stays beyond the span, and nothing of it moves into the wheel.
        self.base = self.base >> shift << shift;
        self.cur = self.bucket_of(self.base);
        debug_assert!(self.distant.min_time().saturating_sub(self.base) >= SPAN);
        self.wheel_len = 0;
        for e in all.drain(..) {
            self.place(key_time(e.key), e.key, e.ev);
        }
        self.scratch = all;
    }

    #[inline]
    fn push_near(&mut self, k: u128, ev: E) {
        self.near.push(Slot {
            t: key_time(k),
            ev: MaybeUninit::new(ev),
        });
    }

    /// How many buckets after the current one (empty) the next occupied one is.
    #[inline]
    fn next_occupied(&self) -> Option<usize> {
        self.next_occupied_after(0)
    }

    /// [`Self::next_occupied`] when `taken` of the wheel's events are being moved out.
    #[inline]
    fn next_occupied_after(&self, taken: usize) -> Option<usize> {
        if self.wheel_len == taken {
            return None;
        }
        self.buckets.next_occupied(self.cur)
    }

    /// Make the bucket starting at `base` the current one, and move into the wheel what
    /// the distant heap holds within its new span.
    fn turn_to(&mut self, base: SimTime) {
        self.base = base;
        self.cur = self.bucket_of(base);
        while self.distant.min_time().saturating_sub(base) < SPAN {
            let (k, ev) = self.distant.pop();
            self.place(key_time(k), k, ev);
        }
    }

    /// Schedule `ev` after `delay` from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: SimTime, ev: E) {
        self.schedule(self.now + delay, ev)
    }

    /// Remove the next event if it is at or before `until`, advancing `now` to its time.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        if self.near.len() == 1 && !self.refill() {
            return None;
        }
        let time = self.near.last()?.t;
        if time > until {
            return None;
        }
        let s = self.near.pop()?;
        // SAFETY: the array held more than the sentinel, so this entry holds an event.
        let ev = unsafe { s.ev.assume_init() };
        self.now = time;
        self.popped += 1;
        Some((time, ev))
    }

    /// The event that is next in line now, if the near array holds one (a new event may
    /// still come before it): for prefetching what it will read.
    #[inline(always)]
    pub fn peek_near(&self) -> Option<&E> {
        let n = self.near.len();
        if n > 1 {
            // SAFETY: `n - 1` is in bounds and past the sentinel, so it holds an event.
            Some(unsafe { self.near.get_unchecked(n - 1).ev.assume_init_ref() })
        } else {
            None
        }
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
        self.near.len() - 1 + self.wheel_len + self.distant.key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Call `f` with the time and event of every event still queued, in no particular
    /// order. It walks the whole queue: for inspection (tests, probes), not for a hop.
    pub fn for_each_pending(&self, mut f: impl FnMut(SimTime, &E)) {
        for s in &self.near[1..] {
            // SAFETY: past the sentinel, every entry holds an event.
            f(s.t, unsafe { s.ev.assume_init_ref() });
        }
        self.buckets.for_each(|k, e| f(key_time(k), e));
        for h in [&self.big, &self.distant] {
            for (k, e) in h.key.iter().zip(&h.ev) {
                f(key_time(*k), e);
            }
        }
    }
}

impl<E> Drop for EventQueue<E> {
    fn drop(&mut self) {
        for s in &mut self.near[1..] {
            // SAFETY: past the sentinel, every entry holds an event, dropped once here.
            unsafe { s.ev.assume_init_drop() }
        }
    }
}
