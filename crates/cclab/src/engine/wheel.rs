//! The event queue's parts: its constants, the 4-ary heap and the timing wheel's buckets
//! ([`super::EventQueue`] is in `queue.rs`).

use super::*;

/// Most events a simulation schedules are due soon (a transmission ends, a packet crosses
/// a link). The queue keeps its earliest events (at most `NEAR_CAP` after a schedule) in a
/// sorted array, where an insert among the earliest moves a handful of entries and a pop is
/// O(1); the rest wait in the buckets of a timing wheel (Varghese & Lauck's hashed wheel,
/// a calendar queue of fixed width), unsorted, until their bucket comes up.
pub(super) const NEAR_CAP: usize = 64;

/// Most events moved from the current bucket into the near array at a time.
pub(super) const LOAD: usize = NEAR_CAP / 2;

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
pub(super) const PER_BUCKET: f64 = 8.0;

/// The width a queue starts with (16 ns), until it has seen `ADAPT_EVENTS` events.
pub(super) const START_SHIFT: u32 = 14;

/// The narrowest and widest buckets: 4 ns (2^15 buckets) and 2 µs (64 buckets, one word of
/// the occupancy bitmap).
pub(super) const MIN_SHIFT: u32 = 12;
pub(super) const MAX_SHIFT: u32 = 21;

/// Events between two looks at the event rate.
pub(super) const ADAPT_EVENTS: u64 = 1 << 16;

/// The wheel spans 2^27 ps (134 µs) from its current bucket's start whatever its width
/// (it has `SPAN >> shift` buckets). Events due later wait in a heap, `distant` (mostly
/// retransmission timers: a connection's RTO is 200 ms or more away, and a finished flow's
/// stays queued until it runs out), and move into the wheel as it turns to them.
pub(super) const SPAN: SimTime = 1 << 27;

/// A current bucket holding more events than this is kept as a heap instead of being
/// sorted at each load (many events at one instant: a thousand flows that start at once).
pub(super) const BIG: usize = 8 * NEAR_CAP;

/// Children per node of a heap: a 4-ary heap has half the levels of a binary one, and the
/// four children's keys share a cache line or two.
pub(super) const ARITY: usize = 4;

/// Tie-break ranks in the keys of wheel and heap events. Events scheduled into the wheel
/// or the distant heap take ranks counting up from `RANK_MID`; events moved back from the
/// near array (a spill) take ranks counting down from `RANK_MID - 1` (each spill precedes,
/// at equal times, everything already out of the near array). Neither counter can run out:
/// that would take 2^63 events.
pub(super) const RANK_MID: u64 = 1 << 63;

#[inline]
pub(super) fn key(time: SimTime, rank: u64) -> u128 {
    (time as u128) << 64 | rank as u128
}

#[inline]
pub(super) fn key_time(k: u128) -> SimTime {
    (k >> 64) as SimTime
}

/// A 4-ary min-heap on a u128 key (time << 64 | rank; keys are unique), with keys and
/// events in separate arrays so the sift loops read only keys.
pub(super) struct Heap<E> {
    pub(super) key: Vec<u128>,
    pub(super) ev: Vec<E>,
}

impl<E> Heap<E> {
    pub(super) fn new() -> Self {
        Heap {
            key: Vec::new(),
            ev: Vec::new(),
        }
    }

    /// The earliest time in the heap (`SimTime::MAX` when empty).
    #[inline]
    pub(super) fn min_time(&self) -> SimTime {
        self.key.first().map_or(SimTime::MAX, |&k| key_time(k))
    }

    #[inline]
    pub(super) fn push(&mut self, k: u128, ev: E) {
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
    pub(super) fn pop(&mut self) -> (u128, E) {
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
pub(super) struct Slot<E> {
    pub(super) t: SimTime,
    /// Initialised in every entry but the sentinel at index 0.
    pub(super) ev: MaybeUninit<E>,
}

/// A wheel entry: an event and its key (time, rank).
pub(super) struct Entry<E> {
    pub(super) key: u128,
    pub(super) ev: E,
}

/// Entries per chunk of a bucket: 16 entries of 32 bytes (a `sim::Ev` and its key) fill
/// eight cache lines exactly.
pub(super) const CHUNK: usize = 16;

/// No chunk.
pub(super) const NIL: u32 = u32::MAX;

/// A piece of a bucket's list: up to `CHUNK` entries. How many are set follows from the
/// bucket's length (every chunk of a bucket but its tail is full), and the link to the
/// next chunk is kept apart (`Buckets::next`), so appending an entry touches the one
/// cache line it is written into (with the count and link inside, a chunk's last line was
/// read on every append: 9% of the k = 8 fat-tree's run time, perf).
#[repr(C, align(64))]
pub(super) struct Chunk<E> {
    pub(super) e: [MaybeUninit<Entry<E>>; CHUNK],
}

/// A bucket: a list of chunks, appended at its tail.
#[derive(Clone, Copy)]
pub(super) struct Bucket {
    pub(super) head: u32,
    pub(super) tail: u32,
    pub(super) len: u32,
}

/// The wheel's buckets. Their entries live in chunks of one shared arena, and a chunk a
/// bucket gives back is the next one taken (a stack), so the wheel's memory is what its
/// events need at most, and the chunks in use stay in cache — a `Vec` per bucket would keep
/// each bucket's largest size for good and touch every bucket's memory once a turn.
pub(super) struct Buckets<E> {
    pub(super) b: Vec<Bucket>,
    /// A bit per bucket: set while it holds events.
    pub(super) occupied: Vec<u64>,
    pub(super) chunks: Vec<Chunk<E>>,
    /// For each chunk, the next one in its bucket's list or in the free list (`NIL`: none).
    pub(super) next: Vec<u32>,
    pub(super) free: u32,
}

impl<E> Buckets<E> {
    /// `n` buckets (a power of two, at least 64).
    pub(super) fn new(n: usize) -> Self {
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
    pub(super) fn len(&self, i: usize) -> usize {
        self.b[i].len as usize
    }

    #[inline(always)]
    pub(super) fn push(&mut self, i: usize, key: u128, ev: E) {
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
    pub(super) fn new_chunk(&mut self) -> u32 {
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
    pub(super) fn take(&mut self, i: usize, out: &mut Vec<Entry<E>>) {
        self.drain::<false>(i, out)
    }

    /// Move bucket `i`'s entries to the end of `out`, sorted by key: each is inserted in
    /// order as it is copied (a bucket usually holds a handful); a large bucket is copied,
    /// then sorted.
    pub(super) fn take_sorted(&mut self, i: usize, out: &mut Vec<Entry<E>>) {
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
    pub(super) fn drain<const SORTED: bool>(&mut self, i: usize, out: &mut Vec<Entry<E>>) {
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
    pub(super) fn for_each(&self, mut f: impl FnMut(u128, &E)) {
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
    pub(super) fn next_occupied(&self, cur: usize) -> Option<usize> {
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
pub(super) fn chunk_list(b: Bucket, next: &[u32]) -> impl Iterator<Item = (usize, usize)> + '_ {
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
