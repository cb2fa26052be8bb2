//! A read-only snapshot of the sender's state with the names of Linux's `struct tcp_info`
//! (`include/uapi/linux/tcp.h`, filled by `tcp_get_info` in `net/ipv4/tcp.c`, Linux 6.6):
//! what `getsockopt(TCP_INFO)` returns and packetdrill's `%{ tcpi_* }%` assertions read.

use super::Sender;
use crate::cc::CaState;
use crate::engine::US;

/// Linux `TCP_INFINITE_SSTHRESH`: what `tcpi_snd_ssthresh` shows during initial slow start.
pub const TCP_INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// Part of Linux's `struct tcp_info` (same field names without the `tcpi_` prefix; times
/// in microseconds as Linux reports them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpInfo {
    /// `tcpi_ca_state`: `TCP_CA_Open` 0, `Disorder` 1, `CWR` 2, `Recovery` 3, `Loss` 4.
    pub ca_state: u8,
    /// `tcpi_snd_cwnd`, segments.
    pub snd_cwnd: u32,
    /// `tcpi_snd_ssthresh`, segments: `TCP_INFINITE_SSTHRESH` in initial slow start
    /// (`tcp_in_initial_slowstart`).
    pub snd_ssthresh: u32,
    /// `tcpi_unacked` (`tp->packets_out`): segments sent and not cumulatively acked.
    pub unacked: u32,
    /// `tcpi_sacked` (`tp->sacked_out`).
    pub sacked: u32,
    /// `tcpi_lost` (`tp->lost_out`).
    pub lost: u32,
    /// `tcpi_retrans` (`tp->retrans_out`): retransmissions in flight.
    pub retrans: u32,
    /// `tcpi_total_retrans` (`tp->total_retrans`).
    pub total_retrans: u32,
    /// `tcpi_reordering` (`tp->reordering`).
    pub reordering: u32,
    /// `tcpi_reord_seen` (`tp->reord_seen`): reordering events seen.
    pub reord_seen: u32,
    /// `tcpi_dsack_dups` (`tp->dsack_dups`): segments reported duplicate by D-SACK.
    pub dsack_dups: u32,
    /// `tcpi_rtt` (`srtt_us >> 3`), µs.
    pub rtt: u32,
    /// `tcpi_rttvar` (`mdev_us >> 2`), µs.
    pub rttvar: u32,
    /// `tcpi_min_rtt` (`tcp_min_rtt`), µs; `u32::MAX` (`~0U`) before a sample.
    pub min_rtt: u32,
}

impl Sender {
    /// `getsockopt(TCP_INFO)`: the `tcpi_*` fields cclab models.
    pub fn info(&self) -> TcpInfo {
        let us = |t: u64| (t / US).min(u32::MAX as u64) as u32;
        TcpInfo {
            ca_state: match self.tp.ca_state {
                CaState::Open => 0,
                CaState::Disorder => 1,
                CaState::Cwr => 2,
                CaState::Recovery => 3,
                CaState::Loss => 4,
            },
            snd_cwnd: self.tp.snd_cwnd,
            snd_ssthresh: self.tp.snd_ssthresh.min(TCP_INFINITE_SSTHRESH),
            unacked: self.packets_out(),
            sacked: self.sacked_out,
            lost: self.lost_out,
            retrans: self.retrans_out,
            total_retrans: self.stats.retrans_segs.min(u32::MAX as u64) as u32,
            reordering: self.loss.reordering,
            reord_seen: self.loss.reord_seen,
            dsack_dups: self.loss.dsack_dups,
            rtt: us(self.rtt.srtt()),
            rttvar: us(self.rtt.rttvar()),
            min_rtt: if self.rtt.has_sample() {
                us(self.rtt.min_rtt)
            } else {
                u32::MAX
            },
        }
    }
}
