//! The result rows of a workload's flows that finished during the run, kept out of memory.
//!
//! A data-center run finishes 10⁵–10⁶ flows; their rows (a few hundred bytes each, with
//! the `ss` line) would make the simulator's memory grow with simulated time. So a row is
//! encoded when its flow closes (`Sim::close`: once per flow, never per packet) into a
//! buffer of [`FlowLog::SPILL`] bytes (256 KiB), which is appended to an unnamed temporary
//! file when full: created in the system's temporary folder with a name no other file has
//! (`create_new`), unlinked at once on Unix (so nothing is left behind, even if the
//! process is killed) and removed on drop elsewhere. A run that finishes fewer rows than
//! fit in the buffer never creates the file. Numbers are stored as their bits: a row read
//! back is the row written.
//!
//! Each buffer goes to the file sorted by flow number, each row behind its length (4
//! bytes): the file is a sequence of sorted runs. Results read the rows back either all at
//! once (`FlowLog::rows`) or, for a run that wrote the file, in flow-number order as they
//! are used ([`Spilled`], [`FlowIter`]): a k-way merge of the runs that holds one small
//! buffer per run, so writing a million flows' rows does not hold them in memory
//! (`results::Flows`).

use super::FlowResult;
use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::Mutex;

pub struct FlowLog {
    buf: Vec<u8>,
    /// The rows in `buf`: flow number, start and end.
    index: Vec<(u32, u32, u32)>,
    /// `buf` sorted by flow number, framed, on its way to the file.
    sorted: Vec<u8>,
    file: Option<(File, std::path::PathBuf, bool)>,
    /// The sorted runs in the file: offset and length.
    runs: Vec<(u64, u64)>,
    /// Bytes written to the file.
    spilled: u64,
    rows: u64,
    /// Buffer size at which it is written out ([`FlowLog::SPILL`]; smaller in tests).
    spill_at: usize,
    error: Option<String>,
}

impl FlowLog {
    /// Bytes of rows held in memory before they go to the file.
    pub const SPILL: usize = 256 << 10;

    pub fn new() -> FlowLog {
        FlowLog::with_spill(FlowLog::SPILL)
    }

    pub fn with_spill(spill_at: usize) -> FlowLog {
        FlowLog {
            buf: Vec::new(),
            index: Vec::new(),
            sorted: Vec::new(),
            file: None,
            runs: Vec::new(),
            spilled: 0,
            rows: 0,
            spill_at,
            error: None,
        }
    }

    /// Rows logged.
    pub fn len(&self) -> u64 {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Bytes written to the temporary file so far (0: it does not exist).
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled
    }

    /// Log row `r`. If the temporary file cannot be written (no temporary folder, a
    /// full disk), the rows stay in memory from then on and [`FlowLog::spill_error`] says
    /// why: the results are the same, only the memory grows.
    pub fn push(&mut self, r: &FlowResult) {
        if self.buf.capacity() == 0 && self.spill_at < usize::MAX {
            // Room for a full buffer and the row that fills it: the buffer never grows.
            self.buf.reserve_exact(self.spill_at.saturating_add(4096));
        }
        let start = self.buf.len();
        encode(r, &mut self.buf);
        if self.spill_at < usize::MAX {
            self.index.push((r.id, start as u32, self.buf.len() as u32));
        }
        self.rows += 1;
        if self.buf.len() >= self.spill_at {
            if let Err(e) = self.spill() {
                self.error = Some(e);
                self.spill_at = usize::MAX;
            }
        }
    }

    /// Why rows stayed in memory, if writing them out failed.
    pub fn spill_error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    fn spill(&mut self) -> Result<(), String> {
        if self.file.is_none() {
            self.file = Some(temp_file()?);
        }
        // Flow numbers are unique: the order within a run is the order by number.
        self.index.sort_unstable_by_key(|r| r.0);
        self.sorted.clear();
        for &(_, a, b) in &self.index {
            self.sorted.extend_from_slice(&(b - a).to_le_bytes());
            self.sorted
                .extend_from_slice(&self.buf[a as usize..b as usize]);
        }
        let (f, path, _) = self.file.as_mut().expect("just opened");
        f.seek(SeekFrom::End(0))
            .and_then(|_| f.write_all(&self.sorted))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let len = self.sorted.len() as u64;
        self.runs.push((self.spilled, len));
        self.spilled += len;
        self.buf.clear();
        self.index.clear();
        Ok(())
    }

    /// The log of a finished run, taken apart: its rows on file, if it wrote any, to be read
    /// back in flow-number order as they are used; and the rows still in its buffer.
    pub fn finish(mut self) -> Result<(Option<Spilled>, Vec<FlowResult>), String> {
        let mut rest = Vec::new();
        decode_all(&self.buf, &mut rest)?;
        let spilled = self.file.take().map(|(file, path, unlinked)| Spilled {
            file: Mutex::new(file),
            path,
            unlinked,
            runs: std::mem::take(&mut self.runs),
            rows: self.rows - rest.len() as u64,
            error: Mutex::new(None),
        });
        Ok((spilled, rest))
    }

    /// Every row logged: the file's sorted runs one after the other, then the buffer's rows
    /// in the order logged (callers sort them by flow number).
    pub fn rows(&self) -> Result<Vec<FlowResult>, String> {
        let mut out = Vec::with_capacity(self.rows as usize);
        if let Some((f, path, _)) = &self.file {
            let io = |e: std::io::Error| format!("{}: {e}", path.display());
            let mut f: &File = f;
            f.seek(SeekFrom::Start(0)).map_err(io)?;
            let mut r = std::io::BufReader::with_capacity(1 << 16, f.take(self.spilled));
            let mut bytes = Vec::new();
            r.read_to_end(&mut bytes).map_err(io)?;
            decode_framed(&bytes, &mut out)?;
        }
        decode_all(&self.buf, &mut out)?;
        Ok(out)
    }
}

impl Default for FlowLog {
    fn default() -> FlowLog {
        FlowLog::new()
    }
}

impl Drop for FlowLog {
    fn drop(&mut self) {
        if let Some((_, path, false)) = &self.file {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The rows a finished run wrote to its temporary file ([`FlowLog::finish`]), in sorted
/// runs; [`FlowIter`] reads them back in flow-number order. The file goes with it.
pub struct Spilled {
    file: Mutex<File>,
    path: std::path::PathBuf,
    unlinked: bool,
    runs: Vec<(u64, u64)>,
    rows: u64,
    /// The first error reading the file back, which ended an iteration early.
    error: Mutex<Option<String>>,
}

impl Spilled {
    /// Rows in the file.
    pub fn len(&self) -> u64 {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Why an iteration over the rows ended before the last one, if one did.
    pub fn error(&self) -> Option<String> {
        self.error.lock().map_or(None, |e| e.clone())
    }

    /// Tests: cut run `i` inside a row, as a file that cannot be read back.
    #[cfg(test)]
    pub(crate) fn cut_for_test(&mut self, i: usize) {
        self.runs[i].1 -= 3;
    }

    fn fail(&self, e: String) {
        if let Ok(mut g) = self.error.lock() {
            g.get_or_insert(e);
        }
    }
}

impl std::fmt::Debug for Spilled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Spilled {{ rows: {}, runs: {}, path: {:?} }}",
            self.rows,
            self.runs.len(),
            self.path
        )
    }
}

impl Drop for Spilled {
    fn drop(&mut self) {
        if !self.unlinked {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Bytes read from the file at a time for one run.
const CHUNK: usize = 8 << 10;

/// One sorted run of the file, read a chunk at a time.
struct RunReader {
    /// Next file offset to read, and the run's end.
    pos: u64,
    end: u64,
    buf: Vec<u8>,
    at: usize,
}

impl RunReader {
    /// Make `n` bytes available from `at`.
    fn need(&mut self, n: usize, file: &Mutex<File>, path: &std::path::Path) -> Result<(), String> {
        if self.buf.len() - self.at >= n {
            return Ok(());
        }
        self.buf.drain(..self.at);
        self.at = 0;
        let left = (self.end - self.pos) as usize;
        let want = (n - self.buf.len()).max(CHUNK).min(left);
        if self.buf.len() + want < n {
            return Err(format!(
                "{}: the flow log ends inside a row",
                path.display()
            ));
        }
        let old = self.buf.len();
        self.buf.resize(old + want, 0);
        let mut f = file
            .lock()
            .map_err(|_| format!("{}: unusable after a panic", path.display()))?;
        f.seek(SeekFrom::Start(self.pos))
            .and_then(|_| f.read_exact(&mut self.buf[old..]))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        self.pos += want as u64;
        Ok(())
    }

    /// The run's next row, `None` at its end.
    fn next(&mut self, s: &Spilled) -> Result<Option<FlowResult>, String> {
        if self.at == self.buf.len() && self.pos == self.end {
            return Ok(None);
        }
        self.need(4, &s.file, &s.path)?;
        let n = u32::from_le_bytes(self.buf[self.at..self.at + 4].try_into().expect("4"));
        let n = n as usize;
        self.need(4 + n, &s.file, &s.path)?;
        let row = decode_frame(&self.buf[self.at + 4..self.at + 4 + n])
            .map_err(|e| format!("{}: {e}", s.path.display()))?;
        self.at += 4 + n;
        Ok(Some(row))
    }
}

/// A run's rows in flow-number order: those in memory (sorted) merged with those on file
/// (a k-way merge of its sorted runs, by a heap of each run's next row). An error reading
/// the file ends the iteration and is kept in [`Spilled::error`].
pub struct FlowIter<'a> {
    mem: std::slice::Iter<'a, FlowResult>,
    spilled: Option<&'a Spilled>,
    readers: Vec<RunReader>,
    heads: Vec<Option<FlowResult>>,
    heap: BinaryHeap<Reverse<(u32, usize)>>,
}

impl<'a> FlowIter<'a> {
    pub(crate) fn new(mem: &'a [FlowResult], spilled: Option<&'a Spilled>) -> FlowIter<'a> {
        let mut it = FlowIter {
            mem: mem.iter(),
            spilled,
            readers: Vec::new(),
            heads: Vec::new(),
            heap: BinaryHeap::new(),
        };
        if let Some(s) = spilled {
            for &(off, len) in &s.runs {
                it.readers.push(RunReader {
                    pos: off,
                    end: off + len,
                    buf: Vec::new(),
                    at: 0,
                });
                it.heads.push(None);
            }
            for i in 0..s.runs.len() {
                if it.readers.is_empty() {
                    break; // a read failed
                }
                it.advance(i);
            }
        }
        it
    }

    /// Read run `i`'s next row into its head and the heap.
    fn advance(&mut self, i: usize) {
        let s = self.spilled.expect("runs come from a file");
        match self.readers[i].next(s) {
            Ok(Some(r)) => {
                self.heap.push(Reverse((r.id, i)));
                self.heads[i] = Some(r);
            }
            Ok(None) => {
                self.heads[i] = None;
                self.readers[i].buf = Vec::new();
            }
            Err(e) => {
                s.fail(e);
                self.heap.clear();
                self.heads.clear();
                self.readers.clear();
                self.mem = [].iter();
            }
        }
    }
}

impl<'a> Iterator for FlowIter<'a> {
    type Item = Cow<'a, FlowResult>;

    fn next(&mut self) -> Option<Cow<'a, FlowResult>> {
        let on_file = self.heap.peek().map(|r| r.0 .0);
        let in_mem = self.mem.as_slice().first().map(|r| r.id);
        match (on_file, in_mem) {
            (None, None) => None,
            // The file's rows first at an equal number, as a stable sort of the rows read
            // back and then the open ones would have them.
            (Some(a), b) if b.is_none_or(|b| a <= b) => {
                let Reverse((_, i)) = self.heap.pop().expect("peeked");
                let row = self.heads[i].take().expect("a head per heap entry");
                self.advance(i);
                Some(Cow::Owned(row))
            }
            _ => self.mem.next().map(Cow::Borrowed),
        }
    }
}

/// A new file in the temporary folder, for reading and writing; the flag says whether it
/// is already unlinked.
fn temp_file() -> Result<(File, std::path::PathBuf, bool), String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    for _ in 0..100 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(
            "cclab-flows-{}-{nanos}-{n}.tmp",
            std::process::id()
        ));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => {
                // Unix: the open file stays usable and disappears with its last handle.
                let unlinked = cfg!(unix) && std::fs::remove_file(&path).is_ok();
                return Ok((f, path, unlinked));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "{}: a temporary file for finished flows' rows: {e}",
                    path.display()
                ))
            }
        }
    }
    Err(format!(
        "{}: no free name for a temporary file of finished flows' rows",
        dir.display()
    ))
}

fn put_u64(b: &mut Vec<u8>, x: u64) {
    b.extend_from_slice(&x.to_le_bytes());
}

fn put_f64(b: &mut Vec<u8>, x: f64) {
    put_u64(b, x.to_bits());
}

/// An optional number: a presence byte, then its bits.
fn put_opt(b: &mut Vec<u8>, x: Option<u64>) {
    match x {
        None => b.push(0),
        Some(v) => {
            b.push(1);
            put_u64(b, v);
        }
    }
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    put_u64(b, s.len() as u64);
    b.extend_from_slice(s.as_bytes());
}

fn encode(r: &FlowResult, b: &mut Vec<u8>) {
    put_u64(b, u64::from(r.id));
    put_str(b, &r.from);
    put_str(b, &r.to);
    put_str(b, &r.cc);
    put_f64(b, r.start_s);
    for x in [
        r.bytes,
        r.goodput_bps.to_bits(),
        r.retransmits,
        r.recovery_episodes,
        r.timeouts,
        r.other_timeouts,
        r.syn_retransmits,
        r.ece_acks,
        r.cwr_episodes,
        r.ce_received,
        r.data_segs_out,
        r.acks_sent,
        r.delack_timeouts,
    ] {
        put_u64(b, x);
    }
    let bits = |x: Option<f64>| x.map(f64::to_bits);
    put_opt(b, bits(r.acked_s));
    put_opt(b, r.size_bytes);
    put_opt(b, bits(r.fct_s));
    put_opt(b, bits(r.ideal_fct_s));
    put_opt(b, bits(r.rtt_mean_s));
    put_opt(b, bits(r.rtt_p99_s));
    put_u64(b, u64::from(r.final_cwnd));
    put_str(b, &r.ss);
}

struct Rd<'a>(&'a [u8]);

impl Rd<'_> {
    fn u64(&mut self) -> Result<u64, String> {
        let (h, t) = self
            .0
            .split_first_chunk::<8>()
            .ok_or("the flow log ends inside a row")?;
        self.0 = t;
        Ok(u64::from_le_bytes(*h))
    }
    fn f64(&mut self) -> Result<f64, String> {
        self.u64().map(f64::from_bits)
    }
    fn opt(&mut self) -> Result<Option<u64>, String> {
        let (&flag, t) = self
            .0
            .split_first()
            .ok_or("the flow log ends inside a row")?;
        self.0 = t;
        match flag {
            0 => Ok(None),
            _ => self.u64().map(Some),
        }
    }
    fn opt_f64(&mut self) -> Result<Option<f64>, String> {
        Ok(self.opt()?.map(f64::from_bits))
    }
    fn str(&mut self) -> Result<String, String> {
        let n = self.u64()? as usize;
        if n > self.0.len() {
            return Err("the flow log ends inside a row".into());
        }
        let (s, t) = self.0.split_at(n);
        self.0 = t;
        String::from_utf8(s.to_vec()).map_err(|e| e.to_string())
    }
}

fn decode_all(bytes: &[u8], out: &mut Vec<FlowResult>) -> Result<(), String> {
    let mut r = Rd(bytes);
    while !r.0.is_empty() {
        out.push(decode(&mut r)?);
    }
    Ok(())
}

/// Rows each behind its length, as the file holds them.
fn decode_framed(bytes: &[u8], out: &mut Vec<FlowResult>) -> Result<(), String> {
    let mut r = Rd(bytes);
    while !r.0.is_empty() {
        let (h, t) =
            r.0.split_first_chunk::<4>()
                .ok_or("the flow log ends inside a row")?;
        let n = u32::from_le_bytes(*h) as usize;
        if n > t.len() {
            return Err("the flow log ends inside a row".into());
        }
        out.push(decode_frame(&t[..n])?);
        r.0 = &t[n..];
    }
    Ok(())
}

/// One row behind its length: the bytes after the length, all of them the row's.
fn decode_frame(frame: &[u8]) -> Result<FlowResult, String> {
    let mut one = Rd(frame);
    let row = decode(&mut one)?;
    if !one.0.is_empty() {
        return Err("a row of the flow log is longer than its fields".into());
    }
    Ok(row)
}

fn decode(r: &mut Rd) -> Result<FlowResult, String> {
    Ok(FlowResult {
        id: r.u64()? as u32,
        from: r.str()?,
        to: r.str()?,
        cc: r.str()?,
        start_s: r.f64()?,
        bytes: r.u64()?,
        goodput_bps: r.f64()?,
        retransmits: r.u64()?,
        recovery_episodes: r.u64()?,
        timeouts: r.u64()?,
        other_timeouts: r.u64()?,
        dupacks_in: 0, // not logged
        syn_retransmits: r.u64()?,
        ece_acks: r.u64()?,
        cwr_episodes: r.u64()?,
        ce_received: r.u64()?,
        data_segs_out: r.u64()?,
        acks_sent: r.u64()?,
        delack_timeouts: r.u64()?,
        acked_s: r.opt_f64()?,
        size_bytes: r.opt()?,
        fct_s: r.opt_f64()?,
        ideal_fct_s: r.opt_f64()?,
        rtt_mean_s: r.opt_f64()?,
        rtt_p99_s: r.opt_f64()?,
        final_cwnd: r.u64()? as u32,
        ss: r.str()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: u32) -> FlowResult {
        FlowResult {
            id: i,
            from: format!("h{i}"),
            to: "h,\"ü\"".into(),
            cc: "dctcp".into(),
            start_s: 0.1 + f64::from(i) * 1e-7,
            bytes: u64::MAX - u64::from(i),
            goodput_bps: f64::MIN_POSITIVE,
            retransmits: 1,
            recovery_episodes: 2,
            timeouts: 3,
            other_timeouts: 2,
            dupacks_in: 0,
            syn_retransmits: 4,
            ece_acks: 5,
            cwr_episodes: 9,
            ce_received: 6,
            data_segs_out: 7,
            acks_sent: 8,
            delack_timeouts: 9,
            acked_s: i.is_multiple_of(2).then_some(1.0 / 3.0),
            size_bytes: Some(u64::from(i)),
            fct_s: None,
            ideal_fct_s: Some(-0.0),
            rtt_mean_s: Some(f64::NAN),
            rtt_p99_s: None,
            final_cwnd: 10,
            ss: format!("cwnd:{i} rtt:0.1/0.05"),
        }
    }

    #[test]
    fn rows_on_file_come_back_in_flow_number_order() {
        // Rows finish out of order; 40-odd sorted runs on file, the rest in memory.
        let mut log = FlowLog::with_spill(700);
        let ids: Vec<u32> = (0..400u32).map(|i| (i * 211) % 400).collect();
        for &i in &ids[..390] {
            log.push(&row(i));
        }
        let (spilled, mut rest) = log.finish().unwrap();
        let spilled = spilled.unwrap();
        assert!(spilled.runs.len() > 40 && spilled.len() + rest.len() as u64 == 390);
        rest.extend(ids[390..].iter().map(|&i| row(i)));
        rest.sort_by_key(|f| f.id);
        let got: Vec<FlowResult> = FlowIter::new(&rest, Some(&spilled))
            .map(Cow::into_owned)
            .collect();
        let want: Vec<FlowResult> = (0..400).map(row).collect();
        assert_eq!(
            serde_json::to_string(&got).unwrap(),
            serde_json::to_string(&want).unwrap()
        );
        // The one field summary.json leaves out comes back too.
        assert!(got.iter().all(|f| f.other_timeouts == 2));
        assert!(spilled.error().is_none());
    }

    #[test]
    fn a_file_that_cannot_be_read_back_ends_the_rows_with_its_error() {
        let mut log = FlowLog::with_spill(700);
        for i in 0..100 {
            log.push(&row(i));
        }
        let (spilled, rest) = log.finish().unwrap();
        let mut spilled = spilled.unwrap();
        // A run said to reach past the end of the file, and then one cut inside a row.
        for cut in [spilled.runs[1].1 + 100, spilled.runs[1].1 - 3] {
            spilled.runs[1].1 = cut;
            *spilled.error.lock().unwrap() = None;
            let n = FlowIter::new(&rest, Some(&spilled)).count();
            assert!(n < 100, "{n} rows");
            let e = spilled.error().expect("the error is kept");
            assert!(e.contains("cclab-flows-"), "{e}");
        }
    }

    #[test]
    fn rows_come_back_as_written_from_memory_and_from_the_file() {
        // A buffer of 1 KB: most of 100 rows go through the temporary file.
        let mut log = FlowLog::with_spill(1024);
        let want: Vec<FlowResult> = (0..100).map(row).collect();
        for r in &want {
            log.push(r);
        }
        assert!(log.spilled_bytes() > 0 && log.len() == 100);
        // Every bit of every number, by the row's JSON and the NaN's bits.
        let got = log.rows().unwrap();
        assert_eq!(
            serde_json::to_string(&got).unwrap(),
            serde_json::to_string(&want).unwrap()
        );
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(
                g.rtt_mean_s.map(f64::to_bits),
                w.rtt_mean_s.map(f64::to_bits)
            );
            assert_eq!(
                g.ideal_fct_s.map(f64::to_bits),
                w.ideal_fct_s.map(f64::to_bits)
            );
        }
        // Reading does not consume: more rows, read again.
        log.push(&row(100));
        assert_eq!(log.rows().unwrap().len(), 101);
        // The file has no name left in the temporary folder (Unix).
        if cfg!(unix) {
            let (_, path, unlinked) = log.file.as_ref().unwrap();
            assert!(*unlinked && !path.exists());
        }
        // A log that never fills its buffer never makes a file.
        let mut small = FlowLog::new();
        small.push(&row(1));
        assert!(small.file.is_none() && small.rows().unwrap().len() == 1);
    }
}
