//! The command line's integration tests, one test program (`cargo test -p cclab-cli --test it`).
//! Cargo links each file under tests/ as a program of its own; folding them into one saves
//! a link (and, under LTO, an optimisation pass) per file. Add a test file here as a module.

mod citations;
mod cli;
mod common;
mod files;
mod fuzz;
mod limits;
mod outputs_doc;
mod outputs_safety;
mod pcap_tools;
mod reproduce;
mod reproduce_beyond;
mod schema;
mod sweep;
mod terminal;
