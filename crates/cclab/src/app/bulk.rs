//! A bulk transfer over one connection, like `iperf -c`: the client connects at `start`
//! and writes without end, until `stop` (`iperf -t`), or exactly `bytes` (`iperf -n`),
//! after which its flow completion time is measured.
//!
//! The byte count is the connection's own (`tcp::Sender::total_bytes`): the app only
//! opens the connection and, at `stop`, closes the write side.

use super::{App, AppCx};
use crate::engine::SimTime;

/// Wake-up tags.
const START: u32 = 0;
const STOP: u32 = 1;

pub struct Bulk {
    pub conn: u32,
    pub start: SimTime,
    pub stop: Option<SimTime>,
}

impl App for Bulk {
    fn start(&mut self, cx: &mut AppCx) {
        cx.wake(self.start, START);
        if let Some(stop) = self.stop {
            cx.wake(stop, STOP);
        }
    }

    fn on_event(&mut self, tag: u32, cx: &mut AppCx) {
        match tag {
            START => cx.open(self.conn),
            _ => cx.stop(self.conn),
        }
    }
}
