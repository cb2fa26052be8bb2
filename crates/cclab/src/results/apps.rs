//! The apps' own results: each app that reports something declares a row type
//! ([`AppRow`]: its `summary.json` key, its tidy table, its lines in the human summary)
//! in its own file and hands its rows over at the end of the run (`App::tables`). They
//! are collected here by name, type-erased, so the results — and the report that writes
//! them — need no app types; code that knows the type reads them back typed
//! ([`AppTables::get`]).

use super::table::{Col, Table};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::fmt;

/// Where an app's rows go.
#[derive(Debug)]
pub struct Report {
    /// Their key in `summary.json` (`"pings"`).
    pub key: &'static str,
    /// Their tidy table (`pings.csv`, `pings.parquet`, Python's `Run.pings`).
    pub table: &'static str,
    /// In `summary.json` (an empty list) and as a table of no rows even in a run without
    /// such an app.
    pub always: bool,
    /// Their place among the apps' results in `summary.json` and the human summary
    /// (ascending), then among the tidy tables. Fixed by the outputs as they were when
    /// the apps' results moved into the apps: `summary.json` lists pings, udp, ocbr,
    /// aggregates (ranks 10, 20, 30, 40), the tables pings, queries, udp, ocbr (10, 15,
    /// 20, 30); a new app takes the next free number.
    pub rank: u32,
    pub table_rank: u32,
}

/// A row an app reports: one per app instance (a ping, a UDP flow, an aggregator).
pub trait AppRow: Serialize + Clone + fmt::Debug + Send + Sync + 'static {
    const REPORT: Report;
    /// The tidy table's columns after `run_id` (added to `t`), one row per `rows`.
    fn columns(rows: &[Self], t: Table) -> Table;
    /// Its lines in the human summary (`cclab run`'s output), each starting with a blank
    /// line.
    fn human(&self, out: &mut String);
}

/// A summary's time in ms with three decimals, `-` for none.
pub fn ms(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.3}", v * 1e3))
}

/// One app's rows, type-erased.
trait Rows: Send + Sync + fmt::Debug {
    fn report(&self) -> &'static Report;
    fn len(&self) -> usize;
    fn json(&self) -> Json;
    fn table(&self, run_id: &str) -> Table;
    fn human(&self, out: &mut String);
    fn any(&self) -> &dyn Any;
    fn any_mut(&mut self) -> &mut dyn Any;
    fn boxed(&self) -> Box<dyn Rows>;
}

impl<T: AppRow> Rows for Vec<T> {
    fn report(&self) -> &'static Report {
        &T::REPORT
    }
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn json(&self) -> Json {
        Json::of(self)
    }
    fn table(&self, run_id: &str) -> Table {
        let id = Col::Str(vec![Some(run_id.to_string()); self.len()]);
        T::columns(self, Table::new(T::REPORT.table).col("run_id", id))
    }
    fn human(&self, out: &mut String) {
        for r in self {
            r.human(out);
        }
    }
    fn any(&self) -> &dyn Any {
        self
    }
    fn any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn boxed(&self) -> Box<dyn Rows> {
        Box::new(self.clone())
    }
}

/// Every app's rows of a run, by kind, in [`Report::rank`] order.
#[derive(Debug, Default)]
pub struct AppTables(Vec<Box<dyn Rows>>);

impl Clone for AppTables {
    fn clone(&self) -> AppTables {
        AppTables(self.0.iter().map(|r| r.boxed()).collect())
    }
}

impl AppTables {
    /// The rows of kind `T`, created (empty, in rank order) if there are none yet.
    fn entry<T: AppRow>(&mut self) -> &mut Vec<T> {
        let at = match self.0.iter().position(|r| r.any().is::<Vec<T>>()) {
            Some(i) => i,
            None => {
                debug_assert!(
                    self.0.iter().all(|r| r.report().key != T::REPORT.key),
                    "two kinds of app rows named {}",
                    T::REPORT.key
                );
                let i = self
                    .0
                    .iter()
                    .position(|r| r.report().rank > T::REPORT.rank)
                    .unwrap_or(self.0.len());
                self.0.insert(i, Box::new(Vec::<T>::new()));
                i
            }
        };
        self.0[at]
            .any_mut()
            .downcast_mut()
            .expect("the entry holds this kind")
    }

    /// Make the results hold rows of kind `T` (none yet): a kind that is
    /// [`Report::always`] then shows even in a run without such an app.
    pub fn declare<T: AppRow>(&mut self) {
        self.entry::<T>();
    }

    pub fn push<T: AppRow>(&mut self, row: T) {
        self.entry::<T>().push(row);
    }

    /// The rows of kind `T` (none if the run has none).
    pub fn get<T: AppRow>(&self) -> &[T] {
        self.0
            .iter()
            .find_map(|r| r.any().downcast_ref::<Vec<T>>())
            .map_or(&[], Vec::as_slice)
    }

    /// The rows of kind `T`, taken out.
    pub fn take<T: AppRow>(&mut self) -> Vec<T> {
        std::mem::take(self.entry::<T>())
    }

    /// Shown: the kinds that have rows or always show.
    fn shown(&self) -> impl Iterator<Item = &dyn Rows> {
        self.0
            .iter()
            .map(|r| &**r)
            .filter(|r| r.len() > 0 || r.report().always)
    }

    /// The tidy tables of the kinds shown, in [`Report::table_rank`] order.
    pub fn tables(&self, run_id: &str) -> Vec<Table> {
        let mut shown: Vec<&dyn Rows> = self.shown().collect();
        shown.sort_by_key(|r| r.report().table_rank);
        shown.iter().map(|r| r.table(run_id)).collect()
    }

    /// Every kind declared, in [`Report::table_rank`] order.
    pub fn reports(&self) -> Vec<&'static Report> {
        let mut r: Vec<&'static Report> = self.0.iter().map(|r| r.report()).collect();
        r.sort_by_key(|r| r.table_rank);
        r
    }

    /// Every row's lines of the human summary, kinds in rank order.
    pub fn human(&self, out: &mut String) {
        for r in &self.0 {
            r.human(out);
        }
    }
}

/// `summary.json`'s entries: one list per kind shown, in rank order.
impl Serialize for AppTables {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for r in self.shown() {
            m.serialize_entry(r.report().key, &r.json())?;
        }
        m.end()
    }
}

/// A JSON value that keeps its objects' keys in order (`serde_json::Value` sorts them):
/// an app's rows serialised once and kept, so that `summary.json` is written through any
/// serialiser without the rows' type.
#[derive(Debug)]
enum Json {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(String),
    Seq(Vec<Json>),
    Map(Vec<(String, Json)>),
}

impl Json {
    /// `x` as JSON (through its JSON text: every number reads back as it was written,
    /// floats with `float_roundtrip`).
    fn of<T: Serialize>(x: &T) -> Json {
        let text = serde_json::to_string(x).expect("app rows serialise");
        serde_json::from_str(&text).expect("JSON reads back")
    }
}

impl Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::U64(x) => s.serialize_u64(*x),
            Json::I64(x) => s.serialize_i64(*x),
            Json::F64(x) => s.serialize_f64(*x),
            Json::Str(x) => s.serialize_str(x),
            Json::Seq(v) => {
                let mut q = s.serialize_seq(Some(v.len()))?;
                for x in v {
                    q.serialize_element(x)?;
                }
                q.end()
            }
            Json::Map(v) => {
                let mut m = s.serialize_map(Some(v.len()))?;
                for (k, x) in v {
                    m.serialize_entry(k, x)?;
                }
                m.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("JSON")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_none<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
                Json::deserialize(d)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Bool(b))
            }
            fn visit_u64<E>(self, x: u64) -> Result<Json, E> {
                Ok(Json::U64(x))
            }
            fn visit_i64<E>(self, x: i64) -> Result<Json, E> {
                Ok(Json::I64(x))
            }
            fn visit_f64<E>(self, x: f64) -> Result<Json, E> {
                Ok(Json::F64(x))
            }
            fn visit_str<E>(self, x: &str) -> Result<Json, E> {
                Ok(Json::Str(x.to_string()))
            }
            fn visit_string<E>(self, x: String) -> Result<Json, E> {
                Ok(Json::Str(x))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(Json::Seq(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut v = Vec::new();
                while let Some((k, x)) = a.next_entry()? {
                    v.push((k, x));
                }
                Ok(Json::Map(v))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, Serialize)]
    struct A {
        z: u64,
        a: Option<f64>,
        n: i64,
        s: Vec<String>,
    }
    impl AppRow for A {
        const REPORT: Report = Report {
            key: "as",
            table: "a",
            always: true,
            rank: 20,
            table_rank: 5,
        };
        fn columns(rows: &[A], t: Table) -> Table {
            t.col("z", super::super::table::ints(rows, |x| x.z))
        }
        fn human(&self, out: &mut String) {
            out.push_str(&format!("\na {}", self.z));
        }
    }
    #[derive(Clone, Debug, Serialize)]
    struct B(u32);
    impl AppRow for B {
        const REPORT: Report = Report {
            key: "bs",
            table: "b",
            always: false,
            rank: 10,
            table_rank: 10,
        };
        fn columns(rows: &[B], t: Table) -> Table {
            t.col("x", super::super::table::ints(rows, |x| x.0 as u64))
        }
        fn human(&self, out: &mut String) {
            out.push_str(&format!("\nb {}", self.0));
        }
    }

    /// Rows keep their keys' order and their numbers' text; kinds come in rank order in
    /// JSON and the summary, in table rank order as tables; an empty kind shows only if it
    /// always does.
    #[test]
    fn rows_are_collected_by_kind_and_written_in_order() {
        let a = A {
            z: u64::MAX,
            a: Some(0.1 + 0.2),
            n: -3,
            s: vec!["x\ny".into()],
        };
        let mut t = AppTables::default();
        t.declare::<B>();
        t.declare::<A>();
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"as":[]}"#,
            "B is empty and not always shown"
        );
        t.push(a.clone());
        t.push(B(7));
        let want = format!(
            r#"{{"bs":[7],"as":[{}]}}"#,
            serde_json::to_string(&a).unwrap()
        );
        assert_eq!(serde_json::to_string(&t).unwrap(), want);
        // Pretty, as `summary.json` is written: nested at its depth.
        let pretty = "{\n  \"bs\": [\n    7\n  ],\n  \"as\": [\n    {\n      \"z\": 18446744073709551615,\n      \"a\": 0.30000000000000004,\n      \"n\": -3,\n      \"s\": [\n        \"x\\ny\"\n      ]\n    }\n  ]\n}";
        assert_eq!(serde_json::to_string_pretty(&t.clone()).unwrap(), pretty);
        let names: Vec<String> = t.tables("r").iter().map(|x| x.name.clone()).collect();
        assert_eq!(names, ["a", "b"]);
        let tables: Vec<&str> = t.reports().iter().map(|r| r.table).collect();
        assert_eq!(tables, ["a", "b"]);
        let mut h = String::new();
        t.human(&mut h);
        assert_eq!(h, format!("\nb 7\na {}", u64::MAX));
        assert_eq!(t.get::<B>()[0].0, 7);
        assert_eq!(t.take::<A>().len(), 1);
        assert!(t.get::<A>().is_empty());
    }
}
