//! The library's integration tests, one test program (`cargo test -p cclab --test it`).
//! Cargo links each file under tests/ as a program of its own; folding them into one saves
//! a link (and, under LTO, an optimisation pass) per file. Add a test file here as a module.

mod apps;
mod aqm;
mod bad_input;
mod cc_state;
mod fq;
mod layers;
mod links;
mod ocbr;
mod offload;
mod packetdrill;
mod pcap_tshark;
mod phase;
mod seams;
mod smoke;
mod udp;
mod verdicts;
mod workload;
