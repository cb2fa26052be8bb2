//! Probes: what watches a run without changing it. Each is off unless the scenario asks
//! for it, and costs a branch when off.
//!
//! - `pcap` — libpcap captures of hosts and links (`[output] pcap`, `--pcap`), fed by the
//!   network's [`Tap`](crate::net::Tap) hooks;
//! - `tsg` — tcptrace-style time-sequence traces of chosen flows (`[output] tsg`);
//! - `rtt` — every flow's RTT samples, exact then in an HdrHistogram (mean and p99 in the results);
//! - `sampler` — time series sampled at fixed intervals: cwnd, the congestion control's
//!   state, queue lengths, throughput (`[output] cwnd/cc/queue/throughput`).

pub mod pcap;
pub mod rtt;
pub mod sampler;
pub mod spec;
pub mod tsg;

use crate::results::Series;

/// The probes of one run.
#[derive(Default)]
pub struct Probes {
    /// pcap capture; `None` costs one branch per hop.
    pub capture: Option<Box<pcap::Capture>>,
    pub tsg: tsg::Tsg,
    pub rtt: rtt::RttProbe,
    pub sampler: sampler::Sampler,
    /// What the trace and sampling probes recorded.
    pub series: Series,
}

use crate::engine::SimTime;
use crate::probe::spec::OutputSpec;
use crate::schema::check::{int, name_in, rate, size, type_name, Checker, Tab};
use crate::schema::{Key, Schema, Ty};
use toml::Value;

const SERIES_ALLOWED: &str = "greater than zero; at most 10,000,000 samples over the run, and all series of the run together (samples × flows or queues, for `cc` × each flow's quantities, and `tsg`) at most 10,000,000 rows";

const CWND: Key = Key {
    name: "cwnd",
    ty: Ty::Interval,
    default: "off",
    allowed: SERIES_ALLOWED,
    meaning: "sample every flow's cwnd, ssthresh and smoothed RTT at this interval (`cwnd.csv`)",
};
const CC: Key = Key {
    name: "cc",
    ty: Ty::Interval,
    default: "off",
    allowed: SERIES_ALLOWED,
    meaning: "sample every flow's congestion-control state at this interval: what its algorithm has (DCTCP's alpha, CUBIC's W_max and K, Vegas' diff, …), one row per quantity (`cc.csv`)",
};
const QUEUE: Key = Key {
    name: "queue",
    ty: Ty::Interval,
    default: "off",
    allowed: SERIES_ALLOWED,
    meaning: "sample the length of the queues in `queues` at this interval (`queue.csv`)",
};
const THROUGHPUT: Key = Key {
    name: "throughput",
    ty: Ty::Interval,
    default: "off",
    allowed: SERIES_ALLOWED,
    meaning: "per-flow goodput over intervals of this length (`throughput.csv`)",
};
const PLOTS: Key = Key {
    name: "plots",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "draw SVG plots of the series that are on",
};
const SUMMARY_FLOWS: Key = Key {
    name: "summary_flows",
    ty: Ty::Bool,
    default: "`true`",
    allowed: "",
    meaning: "list every connection in `summary.json` (`flows`); `false` leaves the list out, for runs of 10⁵–10⁶ flows whose list would take hundreds of MB (`flows.csv`, and for byte-count flows `fct.csv` and `fct.parquet`, still hold every row)",
};
const QUEUES: Key = Key {
    name: "queues",
    ty: Ty::List(&Ty::Link),
    default: "`bottleneck` (dumbbell, star) or every `hop{i}` (chain)",
    allowed: "link names",
    meaning: "which links' queues to sample",
};
const TSG: Key = Key {
    name: "tsg",
    ty: Ty::List(&Ty::Int(0, 1_000_000)),
    default: "none",
    allowed: "flow indices, 0 to 1000000; each must name an existing flow (checked when the run starts)",
    meaning: "trace every data segment, retransmission and ACK of these flows for tcptrace-style time-sequence graphs (`tsg.csv`; with `plots = true` also `tsg_flow<i>.svg`)",
};
const PCAP: Key = Key {
    name: "pcap",
    ty: Ty::List(&Ty::Str),
    default: "none",
    allowed: "host or link names, each at most once",
    meaning: "capture to `<out>/<name>.pcap`: for a host, what it sends and receives; for a link, what leaves its port",
};

const PLOT: Key = Key {
    name: "plot",
    ty: Ty::Table(&PLOT_KEYS),
    default: "axes from the run",
    allowed: "",
    meaning: "fixed axis ranges per plot: `[output.plot.throughput]` `ymax = \"1Gbps\"`",
};

/// The y unit of each plot's `ymin` / `ymax`, as the docs say it.
const Y_UNITS: &str = "cwnd: segments (an integer); queue and tsg: a size (`\"200KB\"`); throughput: a rate (`\"500Mbps\"`)";

const XMIN: Key = Key {
    name: "xmin",
    ty: Ty::Time,
    default: "`\"0s\"`",
    allowed: "below `xmax`",
    meaning: "left end of the time axis",
};
const XMAX: Key = Key {
    name: "xmax",
    ty: Ty::Time,
    default: "`sim.duration` (the whole run)",
    allowed: "above `xmin`",
    meaning: "right end of the time axis",
};
const YMIN: Key = Key {
    name: "ymin",
    ty: Ty::Text("integer, size or rate"),
    default: "0",
    allowed: Y_UNITS,
    meaning: "bottom of the y axis",
};
const YMAX: Key = Key {
    name: "ymax",
    ty: Ty::Text("integer, size or rate"),
    default: "the largest value with room above, up to a tick",
    allowed: Y_UNITS,
    meaning: "top of the y axis",
};

/// The axis keys of one plot.
pub static AXES: Schema = Schema {
    title: "Plot axes",
    place: "a plot's axes",
    noun: "axes",
    about: "The axis ranges of one plot. The defaults show the run: time from 0 to `sim.duration`, y from zero (cwnd, queue, throughput, sequence numbers) to a tick above the largest value. A bound that is set is kept exactly; what falls outside it is clipped at the frame.",
    keys: &[XMIN, XMAX, YMIN, YMAX],
    with: &[],
    variants: None,
};

/// The plots a scenario draws (with `plots = true`), by the name of their series, with the
/// scenario path of their axes table.
const PLOT_NAMES: [(&str, &str); 4] = [
    ("cwnd", "output.plot.cwnd"),
    ("queue", "output.plot.queue"),
    ("throughput", "output.plot.throughput"),
    ("tsg", "output.plot.tsg"),
];

const fn axes_key(name: &'static str, meaning: &'static str) -> Key {
    Key {
        name,
        ty: Ty::Table(&AXES),
        default: "from the run",
        allowed: "",
        meaning,
    }
}

/// `[output.plot]`: one axes table per plot.
pub static PLOT_KEYS: Schema = Schema {
    title: "[output.plot]",
    place: "[output.plot]",
    noun: "plot",
    about: "",
    keys: &[
        axes_key("cwnd", "`cwnd.svg` (cwnd in segments against time)"),
        axes_key("queue", "`queue.svg` (queue length in KB against time)"),
        axes_key(
            "throughput",
            "`throughput.svg` (goodput in Mbit/s against time)",
        ),
        axes_key(
            "tsg",
            "every `tsg_flow<i>.svg` (sequence number in MB against time)",
        ),
    ],
    with: &[],
    variants: None,
};

/// `[output]`.
pub static KEYS: Schema = Schema {
    title: "[output]",
    place: "[output]",
    noun: "output",
    about: "",
    keys: &[
        CWND,
        CC,
        QUEUE,
        THROUGHPUT,
        PLOTS,
        SUMMARY_FLOWS,
        QUEUES,
        TSG,
        PCAP,
        PLOT,
    ],
    with: &[],
    variants: None,
};

/// `[output.plot.NAME]`: the bounds given, y in the plot's base unit (segments, bytes,
/// bit/s, bytes).
fn parse_axes(ck: &mut Checker, t: Tab, name: &str) -> crate::probe::spec::Axes {
    ck.check_keys(t, &AXES, None);
    let mut a = crate::probe::spec::Axes {
        xmin: ck.get(t, &XMIN),
        xmax: ck.get(t, &XMAX),
        ..Default::default()
    };
    let y = |v: &Value| -> Result<f64, String> {
        match name {
            "cwnd" => int(0, 1 << 30)(v).map(|x| x as f64),
            "throughput" => rate(v).map(|x| x as f64),
            _ => size(v).map(|x| x as f64),
        }
    };
    a.ymin = ck.opt(t, YMIN.name, y);
    a.ymax = ck.opt(t, YMAX.name, y);
    // A bound is compared with the other's default (0) when that is not set: `ymax = 0`
    // alone is an empty range, not a range the plot may widen.
    if let Some(hi) = a.xmax {
        let lo = a.xmin.unwrap_or(0);
        if lo >= hi {
            ck.err(
                &format!("{}.xmax", t.path),
                t.t.get(XMAX.name),
                format!(
                    "must be above xmin ({}{})",
                    crate::schema::units::format_time(lo),
                    if a.xmin.is_none() {
                        ", its default"
                    } else {
                        ""
                    }
                ),
            );
        }
    }
    if let Some(hi) = a.ymax {
        let lo = a.ymin.unwrap_or(0.0);
        if lo >= hi {
            ck.err(
                &format!("{}.ymax", t.path),
                t.t.get(YMAX.name),
                if a.ymin.is_none() {
                    "must be above ymin (0, its default)".into()
                } else {
                    "must be above ymin".into()
                },
            );
        }
    }
    a
}

/// Read `[output]`.
pub fn parse(ck: &mut Checker, root: Tab, duration: Option<SimTime>) -> OutputSpec {
    let mut o = OutputSpec::default();
    let Some(t) = ck.table(root, "output", "output") else {
        return o;
    };
    ck.check_keys(t, &KEYS, None);
    o.cwnd_interval = ck.interval(t, CWND.name, duration);
    o.cc_interval = ck.interval(t, CC.name, duration);
    o.queue_interval = ck.interval(t, QUEUE.name, duration);
    o.throughput_interval = ck.interval(t, THROUGHPUT.name, duration);
    o.plots = ck.get(t, &PLOTS).unwrap_or(false);
    o.summary_without_flows = !ck.get(t, &SUMMARY_FLOWS).unwrap_or(true);
    if let Some(pt) = ck.table(t, PLOT.name, "output.plot") {
        ck.check_keys(pt, &PLOT_KEYS, None);
        for (name, path) in PLOT_NAMES {
            if let Some(at) = ck.table(pt, name, path) {
                let a = parse_axes(ck, at, name);
                *o.axes.get_mut(name) = a;
            }
        }
    }
    let links = ck.links.clone();
    match t.t.get(QUEUES.name) {
        None => {}
        Some(Value::Array(a)) => {
            for (i, v) in a.iter().enumerate() {
                match name_in("link", links.as_deref())(v) {
                    Ok(n) => o.queues.push(n),
                    Err(m) => ck.err(&format!("output.queues.{i}"), Some(v), m),
                }
            }
        }
        Some(v) => ck.err(
            "output.queues",
            Some(v),
            format!(
                "expected an array of link names (e.g. queues = [\"bottleneck\"]), found {}",
                type_name(v)
            ),
        ),
    }
    if let Some(v) = t.t.get(TSG.name) {
        match v {
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    match int(0, 1_000_000)(x) {
                        Ok(f) => o.tsg.push(f as usize),
                        Err(m) => ck.err(
                            &format!("output.tsg.{i}"),
                            Some(x),
                            format!("{m} (a flow index)"),
                        ),
                    }
                }
            }
            _ => ck.err(
                "output.tsg",
                Some(v),
                "expected a list of flow indices, e.g. tsg = [0]".into(),
            ),
        }
    }
    match t.t.get(PCAP.name) {
        None => {}
        Some(Value::Array(a)) => {
            let names: Option<Vec<String>> = ck
                .hosts
                .as_ref()
                .zip(links.as_ref())
                .map(|(h, l)| h.iter().chain(l).cloned().collect());
            for (i, v) in a.iter().enumerate() {
                match name_in("host or link", names.as_deref())(v) {
                    Ok(n) if o.pcap.contains(&n) => ck.err(
                        &format!("output.pcap.{i}"),
                        Some(v),
                        format!("'{n}' is listed twice"),
                    ),
                    Ok(n) => o.pcap.push(n),
                    Err(m) => ck.err(&format!("output.pcap.{i}"), Some(v), m),
                }
            }
        }
        Some(v) => ck.err(
            "output.pcap",
            Some(v),
            format!(
                "expected an array of host or link names (e.g. pcap = [\"s0\", \"bottleneck\"]), found {}",
                type_name(v)
            ),
        ),
    }
    o
}
