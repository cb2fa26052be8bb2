//! A one-shot timer that a connection re-arms cheaply ([`Timer`]): the queue keeps one
//! event for it, checked against its deadline when it runs.

use super::*;

/// A one-shot timer that can be re-armed cheaply: re-arming to a later deadline costs no
/// heap operation; the pending event notices the new deadline and re-schedules itself.
/// This is how the RTO timer avoids one heap push per ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    /// When the timer should fire, if armed.
    pub deadline: Option<SimTime>,
    /// The earliest time at which an event for this timer sits in the queue.
    pending: Option<SimTime>,
}

/// What a timer event found when it ran.
#[derive(Debug, PartialEq, Eq)]
pub enum TimerCheck {
    /// The deadline has passed: run the handler (the timer is now disarmed).
    Fire,
    /// Not yet: re-schedule an event at the returned time.
    Reschedule(SimTime),
    /// Disarmed or an event for it is already pending: nothing to do.
    Idle,
}

impl Timer {
    /// Arm at `deadline`. Returns `Some(t)` when the caller must schedule an event at `t`.
    #[inline]
    pub fn arm(&mut self, deadline: SimTime) -> Option<SimTime> {
        self.deadline = Some(deadline);
        match self.pending {
            Some(p) if p <= deadline => None,
            _ => {
                self.pending = Some(deadline);
                Some(deadline)
            }
        }
    }

    #[inline]
    pub fn disarm(&mut self) {
        self.deadline = None;
    }

    #[inline]
    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Call when an event for this timer runs at `now`.
    #[inline]
    pub fn on_event(&mut self, now: SimTime) -> TimerCheck {
        if self.pending == Some(now) {
            self.pending = None;
        }
        match self.deadline {
            None => TimerCheck::Idle,
            Some(d) if d <= now => {
                self.deadline = None;
                TimerCheck::Fire
            }
            Some(d) => match self.pending {
                Some(p) if p <= d => TimerCheck::Idle,
                _ => {
                    self.pending = Some(d);
                    TimerCheck::Reschedule(d)
                }
            },
        }
    }
}
