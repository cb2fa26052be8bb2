//! Scenarios: the validated description of a run (`spec`) and the TOML front end
//! (`parse`) with human units (`units`).

pub mod build;
pub mod spec;
pub use spec::*;
