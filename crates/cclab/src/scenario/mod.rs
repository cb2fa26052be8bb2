//! Scenarios: the validated description of a run (`spec`) and the TOML front end
//! (`parse`). The schema the components declare their keys with, the value checks and
//! the human units are the layer below (`crate::schema`), re-exported here.

pub mod build;
pub mod doc;
pub mod parse;
pub mod spec;
pub use crate::schema::{check, units};
pub use crate::schema::{input_limit_text, read_text_limited, ScenarioError, MAX_INPUT_BYTES};
/// The schema module (`crate::schema`) under its former path.
pub mod schema {
    pub use crate::schema::*;
}
pub use parse::{has_sweep, load_scenario, parse_scenario, read_scenario, Overrides};
pub use spec::*;
