//! Scenarios: the validated description of a run (`spec`) and the TOML front end
//! (`parse`) with human units (`units`).

pub mod build;
pub mod check;
pub mod doc;
pub mod parse;
pub mod schema;
pub mod spec;
pub mod units;
pub use check::ScenarioError;
pub use parse::{
    has_sweep, input_limit_text, load_scenario, parse_scenario, read_scenario, read_text_limited,
    Overrides, MAX_INPUT_BYTES,
};
pub use spec::*;
