//! Traffic sources. Bulk TCP transfers are `tcp::TcpConn`s driven by the simulator
//! (start, optional stop time or byte count, like iperf -c -t/-n); ping probes live here.

pub mod ping;
