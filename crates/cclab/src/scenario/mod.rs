//! Scenarios: the validated description of a run (`spec`) and the TOML front end
//! (`parse`) with human units (`units`).

pub mod build;
pub mod parse;
pub mod spec;
pub mod units;
pub use parse::{load_scenario, parse_scenario, ScenarioError};
pub use spec::*;
