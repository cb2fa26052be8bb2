//! Typed tidy tables: named columns of one type each, the unit in the column's name. The
//! network's, the transports' and each app's results are made into these
//! (`AppRow::columns`); `report/table.rs` writes them as CSV and Parquet.

use serde::{Deserialize, Serialize};

/// A column's values; `None` is a missing value (an empty CSV cell, a Parquet null).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "values", rename_all = "lowercase")]
pub enum Col {
    I64(Vec<Option<i64>>),
    F64(Vec<Option<f64>>),
    Str(Vec<Option<String>>),
    Bool(Vec<Option<bool>>),
}

impl Col {
    pub fn len(&self) -> usize {
        match self {
            Col::I64(v) => v.len(),
            Col::F64(v) => v.len(),
            Col::Str(v) => v.len(),
            Col::Bool(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An empty column of the same type.
    pub fn empty_like(&self) -> Col {
        match self {
            Col::I64(_) => Col::I64(Vec::new()),
            Col::F64(_) => Col::F64(Vec::new()),
            Col::Str(_) => Col::Str(Vec::new()),
            Col::Bool(_) => Col::Bool(Vec::new()),
        }
    }

    /// Rows `a..b`.
    pub fn slice(&self, a: usize, b: usize) -> Col {
        match self {
            Col::I64(v) => Col::I64(v[a..b].to_vec()),
            Col::F64(v) => Col::F64(v[a..b].to_vec()),
            Col::Str(v) => Col::Str(v[a..b].to_vec()),
            Col::Bool(v) => Col::Bool(v[a..b].to_vec()),
        }
    }

    /// Append `other` (of the same type; false if not).
    pub fn extend(&mut self, other: &Col) -> bool {
        match (self, other) {
            (Col::I64(a), Col::I64(b)) => a.extend_from_slice(b),
            (Col::F64(a), Col::F64(b)) => a.extend_from_slice(b),
            (Col::Str(a), Col::Str(b)) => a.extend_from_slice(b),
            (Col::Bool(a), Col::Bool(b)) => a.extend_from_slice(b),
            _ => return false,
        }
        true
    }

    /// Row `i` as one CSV cell (before quoting): integers and booleans as Rust prints
    /// them, floats with the shortest round-trip form, nothing for a missing value.
    pub fn cell(&self, i: usize) -> String {
        match self {
            Col::I64(v) => v[i].map(|x| x.to_string()).unwrap_or_default(),
            Col::F64(v) => v[i].map(|x| x.to_string()).unwrap_or_default(),
            Col::Str(v) => v[i].clone().unwrap_or_default(),
            Col::Bool(v) => v[i].map(|x| x.to_string()).unwrap_or_default(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    #[serde(flatten)]
    pub data: Col,
}

/// A named table of equally long columns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
}

impl Table {
    pub fn new(name: &str) -> Table {
        Table {
            name: name.to_string(),
            columns: Vec::new(),
        }
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.data.len())
    }

    /// Rows `a..b` as a table of the same name and columns.
    pub fn slice(&self, a: usize, b: usize) -> Table {
        Table {
            name: self.name.clone(),
            columns: self
                .columns
                .iter()
                .map(|c| Column {
                    name: c.name.clone(),
                    data: c.data.slice(a, b),
                })
                .collect(),
        }
    }

    /// Add a column (every column must be as long as the first).
    pub fn col(mut self, name: &str, data: Col) -> Table {
        debug_assert!(
            self.columns.is_empty() || data.len() == self.rows(),
            "column {name} of table {} has {} rows, not {}",
            self.name,
            data.len(),
            self.rows()
        );
        self.columns.push(Column {
            name: name.to_string(),
            data,
        });
        self
    }

    pub fn column(&self, name: &str) -> Option<&Col> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .map(|c| &c.data)
    }
}

/// Column builders from rows: `ints(&rows, |f| f.bytes)`.
pub fn ints<T>(rows: &[T], f: impl Fn(&T) -> u64) -> Col {
    Col::I64(rows.iter().map(|r| Some(f(r) as i64)).collect())
}
pub fn floats<T>(rows: &[T], f: impl Fn(&T) -> f64) -> Col {
    Col::F64(rows.iter().map(|r| Some(f(r))).collect())
}
pub fn opt_floats<T>(rows: &[T], f: impl Fn(&T) -> Option<f64>) -> Col {
    Col::F64(rows.iter().map(f).collect())
}
pub fn strs<T>(rows: &[T], f: impl Fn(&T) -> &str) -> Col {
    Col::Str(rows.iter().map(|r| Some(f(r).to_string())).collect())
}
pub fn opt_ints<T>(rows: &[T], f: impl Fn(&T) -> Option<u64>) -> Col {
    Col::I64(rows.iter().map(|r| f(r).map(|x| x as i64)).collect())
}
