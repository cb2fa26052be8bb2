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

use std::mem::MaybeUninit;
use std::ptr;

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

/// Most events a simulation schedules are due soon (a transmission ends, a packet crosses
/// a link). The queue keeps its earliest events (at most `NEAR_CAP` after a schedule) in a
/// sorted array, where an insert among the earliest moves a handful of entries and a pop is
/// O(1); the rest wait in the buckets of a timing wheel (Varghese & Lauck's hashed wheel,
/// a calendar queue of fixed width), unsorted, until their bucket comes up.
const NEAR_CAP: usize = 64;

/// Most events moved from the current bucket into the near array at a time.
const LOAD: usize = NEAR_CAP / 2;

/// A bucket spans `2^shift` ps, chosen as the run goes so that a bucket holds about
/// `PER_BUCKET` events ([`EventQueue::adapt`]; Brown's calendar queue, CACM 1988, also sets
/// its buckets' width from the spacing of its events). The rate is looked at when the near
/// array is refilled, after `ADAPT_EVENTS` more events: 20 ms of the k = 8 case below went
/// 16 → 128 → 64 → 32 ns (at 0.95, 1.5 and 4.8 ms), 10 ms of the k = 16 case 16 → 32 → 16 →
/// 8 → 4 ns; `cclab bench`'s dctcp10, whose events nearly all go straight into the near
/// array, refilled first after its first 65,536 events at 999.99 ms (16 ns → 2 µs), and
/// 1,000 senders at 41.9 ms. Too wide, and each load sorts dozens of events; too narrow,
/// and the wheel turns through empty buckets. Measured with fixed widths (valgrind,
/// instructions of the event loop, 11a9b24's engine): 20 ms of `cclab bench --scale`'s k =
/// 8 case (0.27 events/ns) 3.832 / 3.695 / 3.645 G at 8 / 16 / 32 ns; 10 ms of its k = 16
/// case (1.67 events/ns) 11.341 / 11.435 / 11.926 / 12.771 G at 4 / 8 / 16 / 32 ns: the
/// best widths hold 7–9 events per bucket. With the width adapting: 3.632 G and 11.266 G.
const PER_BUCKET: f64 = 8.0;

/// The width a queue starts with (16 ns), until it has seen `ADAPT_EVENTS` events.
const START_SHIFT: u32 = 14;

/// The narrowest and widest buckets: 4 ns (2^15 buckets) and 2 µs (64 buckets, one word of
/// the occupancy bitmap).
const MIN_SHIFT: u32 = 12;
const MAX_SHIFT: u32 = 21;

/// Events between two looks at the event rate.
const ADAPT_EVENTS: u64 = 1 << 16;

/// The wheel spans 2^27 ps (134 µs) from its current bucket's start whatever its width
/// (it has `SPAN >> shift` buckets). Events due later wait in a heap, `distant` (mostly
/// retransmission timers: a connection's RTO is 200 ms or more away, and a finished flow's
/// stays queued until it runs out), and move into the wheel as it turns to them.
const SPAN: SimTime = 1 << 27;

/// A current bucket holding more events than this is kept as a heap instead of being
/// sorted at each load (many events at one instant: a thousand flows that start at once).
const BIG: usize = 8 * NEAR_CAP;

/// Children per node of a heap: a 4-ary heap has half the levels of a binary one, and the
/// four children's keys share a cache line or two.
const ARITY: usize = 4;

/// Tie-break ranks in the keys of wheel and heap events. Events scheduled into the wheel
/// or the distant heap take ranks counting up from `RANK_MID`; events moved back from the
/// near array (a spill) take ranks counting down from `RANK_MID - 1` (each spill precedes,
/// at equal times, everything already out of the near array). Neither counter can run out:
/// that would take 2^63 events.
const RANK_MID: u64 = 1 << 63;

#[inline]
fn key(time: SimTime, rank: u64) -> u128 {
    (time as u128) << 64 | rank as u128
}

#[inline]
fn key_time(k: u128) -> SimTime {
    (k >> 64) as SimTime
}

/// A 4-ary min-heap on a u128 key (time << 64 | rank; keys are unique), with keys and
/// events in separate arrays so the sift loops read only keys.
struct Heap<E> {
    key: Vec<u128>,
    ev: Vec<E>,
}

impl<E> Heap<E> {
    fn new() -> Self {
        Heap {
            key: Vec::new(),
            ev: Vec::new(),
        }
    }

    /// The earliest time in the heap (`SimTime::MAX` when empty).
    #[inline]
    fn min_time(&self) -> SimTime {
        self.key.first().map_or(SimTime::MAX, |&k| key_time(k))
    }

    #[inline]
    fn push(&mut self, k: u128, ev: E) {
        let mut i = self.key.len();
        self.key.push(k);
        self.ev.push(ev);
        if i == 0 || self.key[(i - 1) / ARITY] <= k {
            return;
        }
        // SAFETY: `key` and `ev` both hold `i + 1` entries and every index below is `<= i`.
        // The new event is read out of slot `i`, leaving a hole that moves up as parents
        // move down into it, and is written into the hole at the end; nothing in between
        // can panic, so no event is dropped twice or lost.
        unsafe {
            let keys = self.key.as_mut_ptr();
            let evs = self.ev.as_mut_ptr();
            let ev = ptr::read(evs.add(i));
            while i > 0 {
                let parent = (i - 1) / ARITY;
                let pk = *keys.add(parent);
                if pk <= k {
                    break;
                }
                *keys.add(i) = pk;
                ptr::copy_nonoverlapping(evs.add(parent), evs.add(i), 1);
                i = parent;
            }
            *keys.add(i) = k;
            ptr::write(evs.add(i), ev);
        }
    }

    /// Remove the entry with the smallest key (the heap must not be empty).
    fn pop(&mut self) -> (u128, E) {
        let last_k = self.key.pop().expect("non-empty heap");
        let last_ev = self.ev.pop().expect("non-empty heap");
        let n = self.key.len();
        if n == 0 {
            return (last_k, last_ev);
        }
        // SAFETY: `key` and `ev` both hold `n` entries; children are read only below `n`
        // (a full group when `first + ARITY <= n`, else `first..n`) and the hole `i` is
        // always below `n`. The top event is read out, leaving a hole at the root that
        // moves down as the smaller child moves up into it, and the last entry is written
        // into the hole at the end; nothing in between can panic.
        unsafe {
            let keys = self.key.as_mut_ptr();
            let evs = self.ev.as_mut_ptr();
            let top = (*keys, ptr::read(evs));
            let mut i = 0;
            loop {
                let first = i * ARITY + 1;
                let (best, best_k);
                if first + ARITY <= n {
                    let c = keys.add(first);
                    let (k0, k1, k2, k3) = (*c, *c.add(1), *c.add(2), *c.add(3));
                    let (a, ka) = if k1 < k0 { (1, k1) } else { (0, k0) };
                    let (b, kb) = if k3 < k2 { (3, k3) } else { (2, k2) };
                    let (m, km) = if kb < ka { (b, kb) } else { (a, ka) };
                    (best, best_k) = (first + m, km);
                } else if first < n {
                    let (mut b, mut kb) = (first, *keys.add(first));
                    for c in first + 1..n {
                        let ck = *keys.add(c);
                        if ck < kb {
                            (b, kb) = (c, ck);
                        }
                    }
                    (best, best_k) = (b, kb);
                } else {
                    break;
                }
                if best_k >= last_k {
                    break;
                }
                *keys.add(i) = best_k;
                ptr::copy_nonoverlapping(evs.add(best), evs.add(i), 1);
                i = best;
            }
            *keys.add(i) = last_k;
            ptr::write(evs.add(i), last_ev);
            top
        }
    }
}

/// A near-array entry: an event and its time.
struct Slot<E> {
    t: SimTime,
    /// Initialised in every entry but the sentinel at index 0.
    ev: MaybeUninit<E>,
}

/// A wheel entry: an event and its key (time, rank).
struct Entry<E> {
    key: u128,
    ev: E,
}

/// Entries per chunk of a bucket: 16 entries of 32 bytes (a `sim::Ev` and its key) fill
/// eight cache lines exactly.
const CHUNK: usize = 16;

/// No chunk.
const NIL: u32 = u32::MAX;

/// A piece of a bucket's list: up to `CHUNK` entries. How many are set follows from the
/// bucket's length (every chunk of a bucket but its tail is full), and the link to the
/// next chunk is kept apart (`Buckets::next`), so appending an entry touches the one
/// cache line it is written into (with the count and link inside, a chunk's last line was
/// read on every append: 9% of the k = 8 fat-tree's run time, perf).
#[repr(C, align(64))]
struct Chunk<E> {
    e: [MaybeUninit<Entry<E>>; CHUNK],
}

/// A bucket: a list of chunks, appended at its tail.
#[derive(Clone, Copy)]
struct Bucket {
    head: u32,
    tail: u32,
    len: u32,
}

/// The wheel's buckets. Their entries live in chunks of one shared arena, and a chunk a
/// bucket gives back is the next one taken (a stack), so the wheel's memory is what its
/// events need at most, and the chunks in use stay in cache — a `Vec` per bucket would keep
/// each bucket's largest size for good and touch every bucket's memory once a turn.
struct Buckets<E> {
    b: Vec<Bucket>,
    /// A bit per bucket: set while it holds events.
    occupied: Vec<u64>,
    chunks: Vec<Chunk<E>>,
    /// For each chunk, the next one in its bucket's list or in the free list (`NIL`: none).
    next: Vec<u32>,
    free: u32,
}

impl<E> Buckets<E> {
    /// `n` buckets (a power of two, at least 64).
    fn new(n: usize) -> Self {
        debug_assert!(n.is_power_of_two() && n >= 64);
        Buckets {
            b: vec![
                Bucket {
                    head: NIL,
                    tail: NIL,
                    len: 0
                };
                n
            ],
            occupied: vec![0; n / 64],
            chunks: Vec::new(),
            next: Vec::new(),
            free: NIL,
        }
    }

    #[inline]
    fn len(&self, i: usize) -> usize {
        self.b[i].len as usize
    }

    #[inline(always)]
    fn push(&mut self, i: usize, key: u128, ev: E) {
        let Bucket { tail, len, .. } = self.b[i];
        // The tail chunk holds `len % CHUNK` entries, unless it is full (or there is none).
        let at = len as usize % CHUNK;
        let c = if at != 0 {
            tail
        } else {
            let c = self.new_chunk();
            if len == 0 {
                self.b[i].head = c;
            } else {
                self.next[tail as usize] = c;
            }
            self.b[i].tail = c;
            c
        };
        self.chunks[c as usize].e[at].write(Entry { key, ev });
        self.b[i].len = len + 1;
        self.occupied[i >> 6] |= 1 << (i & 63);
    }

    /// An empty chunk: the one given back last, or a new one.
    #[inline]
    fn new_chunk(&mut self) -> u32 {
        if self.free != NIL {
            let c = self.free;
            self.free = self.next[c as usize];
            self.next[c as usize] = NIL;
            return c;
        }
        self.chunks.push(Chunk {
            e: [const { MaybeUninit::uninit() }; CHUNK],
        });
        self.next.push(NIL);
        (self.chunks.len() - 1) as u32
    }

    /// Move bucket `i`'s entries, in the order they came, to the end of `out`.
    fn take(&mut self, i: usize, out: &mut Vec<Entry<E>>) {
        self.drain::<false>(i, out)
    }

    /// Move bucket `i`'s entries to the end of `out`, sorted by key: each is inserted in
    /// order as it is copied (a bucket usually holds a handful); a large bucket is copied,
    /// then sorted.
    fn take_sorted(&mut self, i: usize, out: &mut Vec<Entry<E>>) {
        if self.b[i].len > 16 {
            let start = out.len();
            self.drain::<false>(i, out);
            return out[start..].sort_unstable_by_key(|e| e.key);
        }
        self.drain::<true>(i, out)
    }

    /// Move bucket `i`'s entries to the end of `out`, one at a time (a bucket holds few,
    /// and a call to memcpy per chunk costs more than the copies): in the order they
    /// came, or (`SORTED`) each inserted in key order among those copied so far.
    #[inline(always)]
    fn drain<const SORTED: bool>(&mut self, i: usize, out: &mut Vec<Entry<E>>) {
        let start = out.len();
        let b = self.b[i];
        out.reserve(b.len as usize);
        self.b[i] = Bucket {
            head: NIL,
            tail: NIL,
            len: 0,
        };
        self.occupied[i >> 6] &= !(1 << (i & 63));
        let base = out.as_mut_ptr();
        let mut end = start;
        for (c, n) in chunk_list(b, &self.next) {
            let src = self.chunks[c].e.as_ptr() as *const Entry<E>;
            // SAFETY: the chunk's first `n` entries are initialised (`chunk_list`), and
            // `out` has room for all the bucket's entries (reserved above). Each entry is
            // moved out bitwise once (the bucket is emptied above and its chunks freed
            // below, so nothing reads them again before they are rewritten) and written at
            // its place among those copied so far, after the ones later than it move up
            // by one; every index is in `start..=end`, below the reserved capacity.
            unsafe {
                for j in 0..n {
                    let e = src.add(j);
                    let mut at = end;
                    if SORTED {
                        let k = (*e).key;
                        while at > start && (*base.add(at - 1)).key > k {
                            ptr::copy_nonoverlapping(base.add(at - 1), base.add(at), 1);
                            at -= 1;
                        }
                    }
                    ptr::copy_nonoverlapping(e, base.add(at), 1);
                    end += 1;
                }
                out.set_len(end);
            }
        }
        if b.len > 0 {
            // The bucket's chunks, still linked head to tail, go onto the free list whole.
            self.next[b.tail as usize] = self.free;
            self.free = b.head;
        }
    }
}

impl<E> Buckets<E> {
    /// Call `f` with the key and event of every entry, bucket by bucket.
    fn for_each(&self, mut f: impl FnMut(u128, &E)) {
        for &b in &self.b {
            for (c, n) in chunk_list(b, &self.next) {
                for e in &self.chunks[c].e[..n] {
                    // SAFETY: the chunk's first `n` entries are initialised (`chunk_list`).
                    let e = unsafe { e.assume_init_ref() };
                    f(e.key, &e.ev);
                }
            }
        }
    }

    /// How many buckets after bucket `cur` (empty) the next occupied one is.
    fn next_occupied(&self, cur: usize) -> Option<usize> {
        let mask = self.b.len() - 1;
        let words = self.b.len() / 64;
        let start = (cur + 1) & mask;
        let mut w = start >> 6;
        let mut bits = self.occupied[w] & (!0u64 << (start & 63));
        for _ in 0..=words {
            if bits != 0 {
                let i = (w << 6) + bits.trailing_zeros() as usize;
                return Some(i.wrapping_sub(cur) & mask);
            }
            w = (w + 1) % words;
            bits = self.occupied[w];
        }
        None
    }
}

/// The chunks of bucket `b`, head first, each with how many entries it holds: every chunk
/// of a bucket but its tail is full, so those first entries are initialised.
fn chunk_list(b: Bucket, next: &[u32]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let (mut c, mut left) = (b.head, b.len as usize);
    std::iter::from_fn(move || {
        if left == 0 {
            return None;
        }
        let n = left.min(CHUNK);
        left -= n;
        let this = c as usize;
        c = next[this];
        Some((this, n))
    })
}

impl<E> Drop for Buckets<E> {
    fn drop(&mut self) {
        for &b in &self.b {
            for (c, n) in chunk_list(b, &self.next) {
                for e in &mut self.chunks[c].e[..n] {
                    // SAFETY: the chunk's first `n` entries are initialised (`chunk_list`),
                    // each dropped once here.
                    unsafe { e.assume_init_drop() }
                }
            }
        }
    }
}

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
    near: Vec<Slot<E>>,
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
    shift: u32,
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
    fn rebucket(&mut self, shift: u32) {
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

/// Ask the CPU to bring the cache line at `p` into its first-level cache, without waiting
/// for it: for state the next event will read (`Sim::step_until`). A hint only: it never
/// faults, whatever the address, and changes no result.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch reads nothing architecturally and cannot fault.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const i8) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
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
        let mut peeked = 0;
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
                // What `peek_near` names (for prefetching) is what pops next.
                let next = q.peek_near().copied();
                if let Some((t, ev)) = q.pop_until(SimTime::MAX) {
                    if let Some(e) = next {
                        assert_eq!(e, ev);
                        peeked += 1;
                    }
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
        assert!(
            peeked > 1000,
            "peek_near named the next event {peeked} times"
        );
        assert!(popped.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(q.is_empty());
        // pop_until leaves later events in place.
        q.schedule(q.now() + 10, 0);
        assert!(q.pop_until(q.now() + 9).is_none());
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn both_tiers_pop_in_time_then_insertion_order() {
        pops_in_time_then_insertion_order(11, false);
    }

    /// The same, with the buckets' width changed at random between rounds: the order does
    /// not depend on it.
    #[test]
    fn pop_order_survives_every_bucket_width() {
        pops_in_time_then_insertion_order(12, true);
    }

    // Queues far larger than the near array, so events spill to the wheel and come back:
    // bursts of many equal times, of increasing times (each new event the latest near
    // one), of decreasing times, beyond the wheel's span, across buckets, more than a
    // sorted bucket holds at one instant, and far-future events, checked against a
    // reference. `rebucket`: after each round's pops, empty the near array (popping) and
    // move the wheel to buckets of a random width.
    fn pops_in_time_then_insertion_order(seed: u64, rebucket: bool) {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut rng = Rng::new(seed, 0);
        let mut widths = std::collections::BTreeSet::new();
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut n = 0u64;
        for round in 0..420 {
            let mut burst = (rng.next_u64() % (4 * NEAR_CAP as u64)) as usize;
            if round % 7 == 5 {
                // More than a bucket keeps sorted: it becomes a heap.
                burst += 2 * BIG;
            }
            let now = q.now();
            for j in 0..burst {
                let at = match round % 7 {
                    0 => now + rng.next_u64() % 8,
                    1 => now + j as u64 * 3,
                    2 => now + (burst - j) as u64,
                    // Beyond the wheel's span (the distant heap), some at equal times.
                    3 => now + SPAN + (rng.next_u64() % 4) * SPAN / 2,
                    // Across many buckets, and at bucket boundaries.
                    4 => {
                        now + ((rng.next_u64() % 64) << q.shift).saturating_sub(rng.next_u64() % 2)
                    }
                    // Many at one instant, or a few apart.
                    5 => now + 1 + (rng.next_u64() % 3) * (rng.next_u64() % 2) * 1000,
                    _ => now + rng.next_u64() % 1_000_000 * (rng.next_u64() % 2),
                };
                q.schedule(at, n);
                reference.push(Reverse((at, n)));
                n += 1;
            }
            let pops = (rng.next_u64() % (burst as u64 + 8)) as usize;
            for _ in 0..pops {
                let got = q.pop_until(SimTime::MAX);
                assert_eq!(got, reference.pop().map(|r| r.0));
            }
            if rebucket && !q.is_empty() {
                while q.near.len() > 1 {
                    let got = q.pop_until(SimTime::MAX);
                    assert_eq!(got, reference.pop().map(|r| r.0));
                }
                let shift =
                    MIN_SHIFT + (rng.next_u64() % (MAX_SHIFT - MIN_SHIFT + 1) as u64) as u32;
                q.rebucket(shift);
                widths.insert(shift);
            }
            assert_eq!(q.len(), reference.len());
            // What is still queued, wherever it waits (near array, wheel, big bucket,
            // distant heap), is exactly what the reference holds.
            let mut pending = Vec::new();
            q.for_each_pending(|t, &ev| pending.push((t, ev)));
            pending.sort_unstable();
            let mut expected: Vec<(SimTime, u64)> = reference.iter().map(|r| r.0).collect();
            expected.sort_unstable();
            assert_eq!(pending, expected);
        }
        while let Some(got) = q.pop_until(SimTime::MAX) {
            assert_eq!(Some(got), reference.pop().map(|r| r.0));
        }
        assert!(reference.is_empty() && q.is_empty());
        if rebucket {
            assert_eq!(widths.len() as u32, MAX_SHIFT - MIN_SHIFT + 1, "{widths:?}");
        }
    }

    /// The buckets follow the event rate: about `PER_BUCKET` events each, within the
    /// limits.
    #[test]
    fn buckets_follow_the_event_rate() {
        // (spacing of the events in ps, the width expected: log2(PER_BUCKET × spacing)
        // rounded, within MIN_SHIFT..=MAX_SHIFT)
        for (gap, want) in [
            (1, MIN_SHIFT),
            (1_000, 13),
            (2_000, 14),
            (4_000, 15),
            (60_000, 19),
            (1_000_000, MAX_SHIFT),
        ] {
            let mut q = EventQueue::new();
            // 100 events pending at all times, each popped event replaced 100 gaps later.
            for i in 0..100 {
                q.schedule(i * gap, ());
            }
            for _ in 0..3 * ADAPT_EVENTS {
                q.pop_until(SimTime::MAX).unwrap();
                q.schedule_in(100 * gap, ());
            }
            assert_eq!(q.shift, want, "one event every {gap} ps");
        }
    }

    #[test]
    fn events_scheduled_after_a_stop_precede_a_bucket_already_taken() {
        // A run stops (`pop_until`) after the wheel has turned to a later bucket and taken
        // its events; events then scheduled before that bucket, more than the near array
        // holds (so it spills into the wheel behind its current bucket), still pop first,
        // in (time, insertion) order.
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut n = 0u64;
        let mut add = |q: &mut EventQueue<u64>, at: SimTime| {
            q.schedule(at, n);
            reference.push(Reverse((at, n)));
            n += 1;
        };
        for i in 0..3 {
            add(&mut q, 5 * SPAN + 12_345 + i % 2);
        }
        assert!(q.pop_until(1_000).is_none());
        q.advance_to(1_000);
        for i in 0..3 * NEAR_CAP as u64 {
            add(&mut q, 1_000 + i * 7_919 % 5_000);
            add(&mut q, 5 * SPAN + 12_345);
        }
        while let Some(got) = q.pop_until(SimTime::MAX) {
            assert_eq!(Some(got), reference.pop().map(|r| r.0));
        }
        assert!(reference.is_empty() && q.is_empty());
    }

    #[test]
    fn queued_events_are_dropped_exactly_once() {
        // Events that own something, through spills, refills, pops and a drop mid-run.
        let token = std::rc::Rc::new(());
        let mut q = EventQueue::new();
        for i in 0..10 * NEAR_CAP as u64 {
            q.schedule(q.now() + i * 7 % 97, token.clone());
            if i % 3 == 0 {
                assert!(q.pop_until(SimTime::MAX).is_some());
            }
        }
        for _ in 0..3 * NEAR_CAP {
            assert!(q.pop_until(SimTime::MAX).is_some());
        }
        assert_eq!(std::rc::Rc::strong_count(&token), 1 + q.len());
        drop(q);
        assert_eq!(std::rc::Rc::strong_count(&token), 1);
    }

    #[test]
    fn events_left_in_the_wheel_are_dropped_once() {
        // Buckets of several chunks (more than `CHUNK` events each, the last chunk part
        // full) and buckets of one, still in the wheel when the queue is dropped.
        let token = std::rc::Rc::new(());
        let mut q = EventQueue::new();
        for i in 0..(5 * CHUNK + 3) as u64 {
            q.schedule((2 + i % 5) << START_SHIFT, token.clone());
            q.schedule((9 + i) << START_SHIFT, token.clone());
        }
        assert!(q.pop_until(SimTime::MAX).is_some());
        assert_eq!(std::rc::Rc::strong_count(&token), 1 + q.len());
        drop(q);
        assert_eq!(std::rc::Rc::strong_count(&token), 1);
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
