//! Reading an input file with a bound on what is read (scenario and sweep files, size
//! distributions, `--set` values).

use std::path::{Path, PathBuf};

/// The largest input cclab reads: a scenario or sweep file, the scenario text given to
/// Python, a `--set` value (16 MiB, docs/scenario.md; the largest example is 5 KB; a
/// folder's run.json may be twice this, for its JSON escapes). Reading stops one byte
/// over the limit: a device (`/dev/zero`), a pipe or a huge file costs at most this much
/// memory, and is refused before it is parsed. Not more: TOML costs ~200 bytes of memory
/// per value, so 16 MiB of `1,1,1,…` already takes 1.7 GB to parse.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// How [`MAX_INPUT_BYTES`] reads in a message.
pub fn input_limit_text() -> String {
    format!(
        "the {} MiB limit of cclab's inputs ({MAX_INPUT_BYTES} bytes)",
        MAX_INPUT_BYTES >> 20
    )
}

/// The UTF-8 text of the file at `path`, read up to `limit` bytes: at most `limit + 1`
/// bytes are ever read, whatever the file is (a regular file, a device, a pipe), and one
/// over the limit is an error that names the limit and what was read.
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String, String> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let size = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    let what = || match limit == MAX_INPUT_BYTES {
        true => input_limit_text(),
        false => format!("the limit of {limit} bytes"),
    };
    if let Some(n) = size.filter(|&n| n > limit) {
        // A regular file says its size: nothing of it is read.
        return Err(format!("it has {n} bytes, over {}", what()));
    }
    let mut buf = Vec::with_capacity(size.unwrap_or(0).min(limit + 1) as usize);
    f.take(limit + 1)
        .read_to_end(&mut buf)
        .map_err(|e| e.to_string())?;
    if buf.len() as u64 > limit {
        // A device, a pipe, or a file that grew while it was read.
        return Err(format!(
            "it is over {}: cclab stopped reading after {} bytes{}",
            what(),
            buf.len(),
            if size.is_none() {
                " (it is not a regular file: a device or a pipe)"
            } else {
                ""
            }
        ));
    }
    String::from_utf8(buf).map_err(|e| {
        format!(
            "it is not UTF-8 text (byte {} is not valid UTF-8)",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Where an FNV-1a hash starts (its 64-bit offset basis).
pub const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a (64 bits) of `bytes`, continuing from `h` ([`FNV_START`] for a new hash): the
/// hash of run ids and of the contents of the files a scenario reads.
pub fn fnv1a(mut h: u64, bytes: impl IntoIterator<Item = u8>) -> u64 {
    for b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A file a scenario's key names (a link's trace), as the run read it: its contents are
/// part of the run id, and the run's manifest (`run.json`, `inputs`) records it, so that
/// a re-run of the run's folder reads the same file and refuses it if it has changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputFile {
    /// The key that names it (`topology.bottleneck.rate.trace`).
    pub key: String,
    /// The value written there (a path relative to the scenario file's folder, or absolute).
    pub value: String,
    /// The file read, absolute.
    pub path: PathBuf,
    /// [`fnv1a`] of its bytes.
    pub digest: u64,
}
