//! A small Apache Parquet writer for the tidy tables (`table.rs`), without dependencies.
//!
//! Follows the format specification, apache/parquet-format (`README.md`, `Encodings.md`,
//! and the metadata structures of `src/main/thrift/parquet.thrift`). What is written is a
//! subset every reader accepts:
//! - file: `PAR1`, the column chunks, the footer (`FileMetaData`, Thrift compact protocol),
//!   its length (4 bytes, little-endian), `PAR1`;
//! - one row group per `GROUP` rows; per column one chunk of one data page (v1),
//!   uncompressed;
//! - every column OPTIONAL (a null is a missing value): definition levels with the
//!   RLE/bit-packing hybrid at bit width 1, prefixed by their byte length; no repetition
//!   levels (flat schema);
//! - values PLAIN: INT64 and DOUBLE as 8 bytes little-endian, BOOLEAN bit-packed from the
//!   least significant bit, BYTE_ARRAY as a 4-byte length and the bytes, annotated
//!   STRING (logical type) and UTF8 (converted type) so readers see text.
//!
//! No statistics, dictionaries or compression: tables of a sweep are small next to the
//! simulations that make them. The bytes depend only on the table and `created_by`.

use super::table::{Col, Table};

// parquet.thrift enums.
const TYPE_BOOLEAN: i32 = 0;
const TYPE_INT64: i32 = 2;
const TYPE_DOUBLE: i32 = 5;
const TYPE_BYTE_ARRAY: i32 = 6;
const REPETITION_OPTIONAL: i32 = 1;
const CONVERTED_UTF8: i32 = 0;
const ENCODING_PLAIN: i32 = 0;
const ENCODING_RLE: i32 = 3;
const CODEC_UNCOMPRESSED: i32 = 0;
const PAGE_DATA: i32 = 0;

// Thrift compact protocol type ids.
const CT_I32: u8 = 5;
const CT_I64: u8 = 6;
const CT_BINARY: u8 = 8;
const CT_LIST: u8 = 9;
const CT_STRUCT: u8 = 12;

/// A Thrift compact-protocol writer of one struct nesting at a time: each struct keeps
/// the id of its last field, since a field header holds the id as a delta from it.
struct Thrift {
    buf: Vec<u8>,
    last: Vec<i16>,
}

impl Thrift {
    fn new() -> Thrift {
        Thrift {
            buf: Vec::new(),
            last: vec![0],
        }
    }

    /// Unsigned LEB128 varint.
    fn varint(&mut self, mut v: u64) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.buf.push(b);
                return;
            }
            self.buf.push(b | 0x80);
        }
    }

    /// Zigzag: small magnitudes of either sign give small varints.
    fn zigzag(v: i64) -> u64 {
        ((v << 1) ^ (v >> 63)) as u64
    }

    /// A field header: the id's delta from the previous field in the high nibble when it
    /// is 1 to 15, else a zero nibble and the id as a zigzag varint.
    fn field(&mut self, id: i16, ty: u8) {
        let last = self.last.last_mut().expect("inside a struct");
        let delta = id - *last;
        *last = id;
        if (1..=15).contains(&delta) {
            self.buf.push(((delta as u8) << 4) | ty);
        } else {
            self.buf.push(ty);
            self.varint(Self::zigzag(id as i64));
        }
    }

    fn i32(&mut self, id: i16, v: i32) {
        self.field(id, CT_I32);
        self.varint(Self::zigzag(v as i64));
    }

    fn i64(&mut self, id: i16, v: i64) {
        self.field(id, CT_I64);
        self.varint(Self::zigzag(v));
    }

    fn binary(&mut self, id: i16, v: &[u8]) {
        self.field(id, CT_BINARY);
        self.varint(v.len() as u64);
        self.buf.extend_from_slice(v);
    }

    /// A list header: size in the high nibble when below 15, else 0xF and a varint.
    fn list(&mut self, id: i16, elem: u8, n: usize) {
        self.field(id, CT_LIST);
        if n < 15 {
            self.buf.push(((n as u8) << 4) | elem);
        } else {
            self.buf.push(0xf0 | elem);
            self.varint(n as u64);
        }
    }

    /// A struct as a field (`begin(Some(id))`) or as a list element (`begin(None)`).
    fn begin(&mut self, id: Option<i16>) {
        if let Some(id) = id {
            self.field(id, CT_STRUCT);
        }
        self.last.push(0);
    }

    /// The stop byte of the current struct.
    fn end(&mut self) {
        self.buf.push(0);
        self.last.pop();
    }

    /// A list element of type i32 (no field header).
    fn elem_i32(&mut self, v: i32) {
        self.varint(Self::zigzag(v as i64));
    }

    /// A list element of type binary.
    fn elem_binary(&mut self, v: &[u8]) {
        self.varint(v.len() as u64);
        self.buf.extend_from_slice(v);
    }
}

/// Definition levels (1 = present, 0 = null) in the RLE/bit-packing hybrid at bit width
/// 1: one RLE run per stretch of equal levels (header `count << 1`, then the level in one
/// byte), prefixed by the encoded length (4 bytes, little-endian), as data page v1 has it.
fn def_levels(present: &[bool]) -> Vec<u8> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < present.len() {
        let v = present[i];
        let mut j = i;
        while j < present.len() && present[j] == v {
            j += 1;
        }
        let mut t = Thrift::new();
        t.varint(((j - i) as u64) << 1);
        runs.extend_from_slice(&t.buf);
        runs.push(v as u8);
        i = j;
    }
    let mut out = (runs.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(&runs);
    out
}

/// A column's physical type, whether each row has a value, and its PLAIN values.
fn plain(c: &Col) -> (i32, Vec<bool>, Vec<u8>) {
    let mut out = Vec::new();
    match c {
        Col::I64(v) => {
            for x in v.iter().flatten() {
                out.extend_from_slice(&x.to_le_bytes());
            }
            (TYPE_INT64, v.iter().map(Option::is_some).collect(), out)
        }
        Col::F64(v) => {
            for x in v.iter().flatten() {
                out.extend_from_slice(&x.to_le_bytes());
            }
            (TYPE_DOUBLE, v.iter().map(Option::is_some).collect(), out)
        }
        Col::Str(v) => {
            for x in v.iter().flatten() {
                out.extend_from_slice(&(x.len() as u32).to_le_bytes());
                out.extend_from_slice(x.as_bytes());
            }
            (
                TYPE_BYTE_ARRAY,
                v.iter().map(Option::is_some).collect(),
                out,
            )
        }
        Col::Bool(v) => {
            let bits: Vec<bool> = v.iter().flatten().copied().collect();
            out = vec![0u8; bits.len().div_ceil(8)];
            for (i, b) in bits.iter().enumerate() {
                if *b {
                    out[i / 8] |= 1 << (i % 8);
                }
            }
            (TYPE_BOOLEAN, v.iter().map(Option::is_some).collect(), out)
        }
    }
}

/// What the footer needs of a written column chunk.
struct Chunk {
    ty: i32,
    offset: i64,
    size: i64,
    values: i64,
}

/// Rows per row group: a table of more is written as several groups, and a run's `fct`
/// table a group at a time (`table::fct_files_to`), so writing a million rows holds one
/// group's.
pub const GROUP: usize = 16_384;

/// The table as one Parquet file (see the module's comment for what is written): one row
/// group per [`GROUP`] rows (one for an empty table).
pub fn write(t: &Table, created_by: &str) -> Vec<u8> {
    write_grouped(t, created_by, GROUP)
}

/// [`write`] with `group` rows per row group.
pub(crate) fn write_grouped(t: &Table, created_by: &str, group: usize) -> Vec<u8> {
    let mut file = Vec::new();
    let mut w = Writer::new(&mut file, created_by).expect("in memory");
    let rows = t.rows();
    if rows <= group {
        w.group(t).expect("in memory");
    } else {
        for a in (0..rows).step_by(group) {
            w.group(&t.slice(a, (a + group).min(rows)))
                .expect("in memory");
        }
    }
    w.finish().expect("in memory");
    file
}

/// A Parquet file written a row group at a time: `PAR1`, each group's column chunks as
/// [`Writer::group`] is given them (tables of the same columns), and the footer, which
/// lists the groups, at [`Writer::finish`].
pub struct Writer<'a> {
    w: &'a mut dyn std::io::Write,
    /// Bytes written so far.
    at: i64,
    created_by: String,
    /// The columns' names (of the first group).
    names: Vec<String>,
    /// Each group's rows and column chunks.
    groups: Vec<(usize, Vec<Chunk>)>,
}

impl<'a> Writer<'a> {
    pub fn new(w: &'a mut dyn std::io::Write, created_by: &str) -> std::io::Result<Writer<'a>> {
        w.write_all(b"PAR1")?;
        Ok(Writer {
            w,
            at: 4,
            created_by: created_by.to_string(),
            names: Vec::new(),
            groups: Vec::new(),
        })
    }

    /// Write `t`'s rows as one row group.
    pub fn group(&mut self, t: &Table) -> std::io::Result<()> {
        let rows = t.rows();
        if self.groups.is_empty() {
            self.names = t.columns.iter().map(|c| c.name.clone()).collect();
        }
        debug_assert!(t.columns.iter().map(|c| &c.name).eq(self.names.iter()));
        let mut chunks = Vec::with_capacity(t.columns.len());
        for c in &t.columns {
            let (ty, present, values) = plain(&c.data);
            let mut page = def_levels(&present);
            page.extend_from_slice(&values);
            let mut h = Thrift::new();
            h.i32(1, PAGE_DATA);
            h.i32(2, page.len() as i32); // uncompressed_page_size
            h.i32(3, page.len() as i32); // compressed_page_size
            h.begin(Some(5)); // data_page_header
            h.i32(1, rows as i32); // num_values (nulls included)
            h.i32(2, ENCODING_PLAIN);
            h.i32(3, ENCODING_RLE); // definition levels
            h.i32(4, ENCODING_RLE); // repetition levels (none written)
            h.end();
            h.end();
            let offset = self.at;
            self.w.write_all(&h.buf)?;
            self.w.write_all(&page)?;
            self.at += (h.buf.len() + page.len()) as i64;
            chunks.push(Chunk {
                ty,
                offset,
                size: (h.buf.len() + page.len()) as i64,
                values: rows as i64,
            });
        }
        self.groups.push((rows, chunks));
        Ok(())
    }

    /// The footer (`FileMetaData`), its length and `PAR1`.
    pub fn finish(self) -> std::io::Result<()> {
        let rows: usize = self.groups.iter().map(|g| g.0).sum();
        let first: &[Chunk] = self.groups.first().map_or(&[], |g| &g.1);
        let mut m = Thrift::new();
        m.i32(1, 1); // version
        m.list(2, CT_STRUCT, self.names.len() + 1); // schema: the root, then one per column
        m.begin(None);
        m.binary(4, b"schema");
        m.i32(5, self.names.len() as i32); // num_children
        m.end();
        for (name, ch) in self.names.iter().zip(first) {
            m.begin(None);
            m.i32(1, ch.ty);
            m.i32(3, REPETITION_OPTIONAL);
            m.binary(4, name.as_bytes());
            if ch.ty == TYPE_BYTE_ARRAY {
                m.i32(6, CONVERTED_UTF8);
                m.begin(Some(10)); // logicalType: LogicalType union
                m.begin(Some(1)); // STRING: StringType {}
                m.end();
                m.end();
            }
            m.end();
        }
        m.i64(3, rows as i64); // num_rows
        m.list(4, CT_STRUCT, self.groups.len()); // row_groups
        for (n, chunks) in &self.groups {
            m.begin(None);
            m.list(1, CT_STRUCT, chunks.len()); // columns
            for (name, ch) in self.names.iter().zip(chunks) {
                m.begin(None);
                m.i64(2, ch.offset); // file_offset
                m.begin(Some(3)); // meta_data: ColumnMetaData
                m.i32(1, ch.ty);
                m.list(2, CT_I32, 2); // encodings
                m.elem_i32(ENCODING_PLAIN);
                m.elem_i32(ENCODING_RLE);
                m.list(3, CT_BINARY, 1); // path_in_schema
                m.elem_binary(name.as_bytes());
                m.i32(4, CODEC_UNCOMPRESSED);
                m.i64(5, ch.values); // num_values
                m.i64(6, ch.size); // total_uncompressed_size
                m.i64(7, ch.size); // total_compressed_size
                m.i64(9, ch.offset); // data_page_offset
                m.end();
                m.end();
            }
            m.i64(2, chunks.iter().map(|c| c.size).sum()); // total_byte_size
            m.i64(3, *n as i64); // num_rows
            m.end();
        }
        m.binary(6, self.created_by.as_bytes());
        m.end();
        self.w.write_all(&m.buf)?;
        self.w.write_all(&(m.buf.len() as u32).to_le_bytes())?;
        self.w.write_all(b"PAR1")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_zigzag_as_the_thrift_spec_works_them() {
        let enc = |v: u64| {
            let mut t = Thrift::new();
            t.varint(v);
            t.buf
        };
        assert_eq!(enc(0), [0x00]);
        assert_eq!(enc(1), [0x01]);
        assert_eq!(enc(127), [0x7f]);
        assert_eq!(enc(128), [0x80, 0x01]);
        assert_eq!(enc(300), [0xac, 0x02]);
        assert_eq!(Thrift::zigzag(0), 0);
        assert_eq!(Thrift::zigzag(-1), 1);
        assert_eq!(Thrift::zigzag(1), 2);
        assert_eq!(Thrift::zigzag(-2), 3);
        assert_eq!(Thrift::zigzag(i64::MIN), u64::MAX);
    }

    #[test]
    fn field_headers_use_deltas_then_long_form() {
        let mut t = Thrift::new();
        t.i32(1, 3); // delta 1, type 5; zigzag(3) = 6
        t.i32(3, -1); // delta 2; zigzag(-1) = 1
        t.i64(20, 0); // delta 17: long form, type 6, zigzag(20) = 40
        assert_eq!(t.buf, [0x15, 0x06, 0x25, 0x01, 0x06, 0x28, 0x00]);
    }

    #[test]
    fn definition_levels_as_rle_runs() {
        // 3 present, 2 null, 1 present: runs (3<<1, 1), (2<<1, 0), (1<<1, 1); 6 bytes.
        assert_eq!(
            def_levels(&[true, true, true, false, false, true]),
            [6, 0, 0, 0, 6, 1, 4, 0, 2, 1]
        );
        // 200 present: the run header is a two-byte varint (400 = 0x90 0x03).
        assert_eq!(def_levels(&[true; 200]), [3, 0, 0, 0, 0x90, 0x03, 1]);
        assert_eq!(def_levels(&[]), [0, 0, 0, 0]);
    }

    #[test]
    fn booleans_pack_from_the_low_bit_and_nulls_write_nothing() {
        let (ty, present, v) = plain(&Col::Bool(vec![
            Some(true),
            None,
            Some(false),
            Some(true),
            Some(true),
        ]));
        assert_eq!(ty, TYPE_BOOLEAN);
        assert_eq!(present, [true, false, true, true, true]);
        assert_eq!(v, [0b1101]);
        let (_, _, s) = plain(&Col::Str(vec![Some("ab".into()), None, Some("".into())]));
        assert_eq!(s, [2, 0, 0, 0, b'a', b'b', 0, 0, 0, 0]);
    }

    #[test]
    fn a_file_is_framed_by_magic_with_its_footer_length() {
        let t = Table::new("t")
            .col("a", Col::I64(vec![Some(1), None]))
            .col("b", Col::Str(vec![Some("x".into()), Some("é".into())]));
        let f = write(&t, "cclab test");
        assert!(f.starts_with(b"PAR1") && f.ends_with(b"PAR1"));
        let n = f.len();
        let footer = u32::from_le_bytes(f[n - 8..n - 4].try_into().unwrap()) as usize;
        assert!(footer > 0 && footer < n - 12);
        // The footer starts with version = 1 (field 1, i32: 0x15, zigzag 1 = 0x02).
        assert_eq!(&f[n - 8 - footer..n - 8 - footer + 2], [0x15, 0x02]);
        assert_eq!(f, write(&t, "cclab test"), "deterministic");
        // Zero rows still make a file.
        let empty = write(&Table::new("e").col("a", Col::F64(vec![])), "x");
        assert!(empty.starts_with(b"PAR1") && empty.ends_with(b"PAR1"));
    }
}
