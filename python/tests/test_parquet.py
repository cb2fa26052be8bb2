"""cclab's own Parquet writer (crates/cclab/src/report/parquet.rs) read back by pyarrow and
pandas: types, values and nulls exactly, edge values included."""

import json
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cclab import _cclab


def roundtrip(columns, name="t"):
    """Write `columns` [(name, type, values)] with cclab, read with pyarrow."""
    t = {"name": name, "columns": [{"name": n, "type": ty, "values": v} for n, ty, v in columns]}
    data = _cclab.parquet_from_json(json.dumps(t))
    assert data[:4] == b"PAR1" and data[-4:] == b"PAR1"
    return pq.read_table(pa.BufferReader(data)), data


def test_types_values_and_nulls():
    big = 2**63 - 1
    tab, data = roundtrip(
        [
            ("i", "i64", [-big - 1, big, 0, None, -1]),
            ("s", "str", ["", "héllo, 世界 🦀", None, 'a "quote", a comma\nand a line', "x" * 1000]),
            ("b", "bool", [True, None, False, True, True]),
            ("nulls", "f64", [None] * 5),
        ]
    )
    assert [str(f.type) for f in tab.schema] == ["int64", "string", "bool", "double"]
    d = tab.to_pydict()
    assert d["i"] == [-big - 1, big, 0, None, -1]
    assert d["s"] == ["", "héllo, 世界 🦀", None, 'a "quote", a comma\nand a line', "x" * 1000]
    assert d["b"] == [True, None, False, True, True]
    assert d["nulls"] == [None] * 5
    meta = pq.ParquetFile(pa.BufferReader(data)).metadata
    assert meta.num_rows == 5 and meta.num_row_groups == 1 and meta.created_by == "cclab test"


def test_doubles_keep_every_bit():
    # JSON has no NaN or infinity: those are checked through pyarrow's reading of a file
    # with finite values of every magnitude, -0.0 included.
    vals = [0.1, -0.0, 5e-324, 1.7976931348623157e308, -2.5, 1 / 3]
    tab, _ = roundtrip([("x", "f64", vals)])
    out = tab.column("x").to_pylist()
    assert [v.hex() for v in out] == [v.hex() for v in vals]
    assert math.copysign(1, out[1]) == -1


def test_zero_rows_and_many_rows():
    tab, _ = roundtrip([("a", "i64", []), ("b", "str", [])])
    assert tab.num_rows == 0 and [str(f.type) for f in tab.schema] == ["int64", "string"]
    n = 100_000
    ints = [None if i % 3 == 0 else i * 7 for i in range(n)]
    flags = [i % 5 == 0 for i in range(n)]
    tab, data = roundtrip([("a", "i64", ints), ("f", "bool", flags)])
    assert tab.column("a").to_pylist() == ints
    assert tab.column("f").to_pylist() == flags
    # One row group per 16,384 rows (report/parquet.rs GROUP): six full and one of 1,696,
    # each with its own definition levels and bit-packed booleans.
    meta = pq.ParquetFile(pa.BufferReader(data)).metadata
    assert meta.num_row_groups == 7 and meta.num_rows == n
    assert [meta.row_group(i).num_rows for i in range(7)] == [16384] * 6 + [1696]
    assert tab.to_pandas()["a"].isna().sum() == len([x for x in ints if x is None])


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="different lengths"):
        _cclab.parquet_from_json(json.dumps({"name": "t", "columns": [
            {"name": "a", "type": "i64", "values": [1]},
            {"name": "b", "type": "i64", "values": [1, 2]},
        ]}))
    with pytest.raises(ValueError, match="not a table"):
        _cclab.parquet_from_json("{}")
