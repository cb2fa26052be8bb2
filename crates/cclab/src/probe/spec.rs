//! What a run records beyond its results: the time series, plots, traces and captures a
//! scenario's `[output]` asks for.

use crate::engine::SimTime;

/// Optional time series and plots.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OutputSpec {
    /// Sample every flow's cwnd/ssthresh/srtt at this interval (`cwnd.csv`).
    pub cwnd_interval: Option<SimTime>,
    /// Sample every flow's congestion-control state at this interval (`cc.csv`).
    pub cc_interval: Option<SimTime>,
    /// Sample every named queue's length at this interval (`queue.csv`).
    pub queue_interval: Option<SimTime>,
    /// Per-flow throughput over intervals of this length (`throughput.csv`).
    pub throughput_interval: Option<SimTime>,
    /// Draw SVG plots of the series that are on.
    pub plots: bool,
    /// Leave the per-connection list out of `summary.json` (`summary_flows = false`).
    pub summary_without_flows: bool,
    /// Which links' queues to sample (empty = the bottleneck / every hop).
    pub queues: Vec<String>,
    /// Flows (indices) to trace for tcptrace-style time-sequence graphs (`tsg.csv`,
    /// `tsg_flow<i>.svg`): every data segment, retransmission and ACK.
    pub tsg: Vec<usize>,
    /// Hosts (what they send and receive) and links (what leaves their port) to capture
    /// as `<out>/<name>.pcap` (`net::pcap`).
    pub pcap: Vec<String>,
    /// Fixed axis ranges of the plots (`[output.plot.NAME]`).
    pub axes: PlotAxes,
}

/// Fixed bounds of one plot's axes; `None` = from the run. Time in picoseconds; y in the
/// plot's base unit: segments (cwnd), bytes (queue, tsg), bit/s (throughput).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Axes {
    pub xmin: Option<SimTime>,
    pub xmax: Option<SimTime>,
    pub ymin: Option<f64>,
    pub ymax: Option<f64>,
}

/// The axes of every plot a run draws.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlotAxes {
    pub cwnd: Axes,
    pub queue: Axes,
    pub throughput: Axes,
    pub tsg: Axes,
}

impl PlotAxes {
    /// The axes of plot `name` (one of `cwnd`, `queue`, `throughput`, `tsg`).
    pub fn get_mut(&mut self, name: &str) -> &mut Axes {
        match name {
            "cwnd" => &mut self.cwnd,
            "queue" => &mut self.queue,
            "throughput" => &mut self.throughput,
            "tsg" => &mut self.tsg,
            _ => unreachable!("no plot named {name}"),
        }
    }
}
