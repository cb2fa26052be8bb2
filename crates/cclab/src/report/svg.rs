//! Minimal, dependency-free SVG line plots: axes with 1-2-5 ticks (decades on log axes),
//! labels, a legend, and min/max decimation per pixel column so sawtooths survive.
//! Output is deterministic (fixed decimals).
//!
//! Default axes show the phenomenon rather than the data's bounding box: a linear y axis
//! starts at zero (rates, queues, windows: a flat line near the top of a zoomed axis would
//! hide that nothing moves) unless the plot asks for the data's own range (`y_from_data`);
//! its top is rounded up to a tick with room above the highest point; a caller gives the x
//! span it covers (a run's plots span the whole run, not the samples), and every bound can
//! be fixed (`x_min` … `y_max`, the scenario's `[output.plot.NAME]`). What falls outside
//! fixed bounds is clipped at the frame. The legend draws each series as it is drawn: its
//! colour, its dash pattern, or its marker.

use std::fmt::Write;

#[derive(Clone, Debug, Default)]
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Draw markers instead of a polyline.
    pub markers: bool,
    /// Dashed (for formulas and reference curves).
    pub dashed: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Plot {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    pub lines: Vec<Line>,
    /// Fixed axis bounds; `None` = from the data (y from zero on a linear axis).
    pub x_min: Option<f64>,
    pub x_max: Option<f64>,
    pub y_min: Option<f64>,
    pub y_max: Option<f64>,
    /// A linear y axis spans the data's own range (ratios near 1 whose differences are the
    /// story), not from zero.
    pub y_from_data: bool,
}

/// The dash pattern of dashed lines, the same in the plot and its legend.
const DASH: &str = "6 4";
const STROKE: f64 = 1.4;

const W: f64 = 800.0;
const H: f64 = 500.0;
const L: f64 = 80.0;
const R: f64 = 170.0;
const T: f64 = 40.0;
const B: f64 = 60.0;
const COLORS: [&str; 10] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn nice_step(span: f64) -> f64 {
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if raw <= m * mag {
            return m * mag;
        }
    }
    10.0 * mag
}

/// Tick values in `[lo, hi]` with their labels: decades on a log axis, 1-2-5 steps on a
/// linear one.
fn ticks(lo: f64, hi: f64, log: bool) -> Vec<(f64, String)> {
    if log {
        let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        return (a..=b)
            .map(|e| 10f64.powi(e))
            .filter(|v| *v >= lo * 0.999 && *v <= hi * 1.001)
            .map(|v| (v, label(v)))
            .collect();
    }
    let step = nice_step(hi - lo);
    let (k0, k1) = (
        (lo / step - 1e-9).ceil() as i64,
        (hi / step + 1e-9).floor() as i64,
    );
    let vals: Vec<f64> = (k0..=k1).map(|k| k as f64 * step).collect();
    let labels = linear_labels(&vals, step);
    vals.into_iter().zip(labels).collect()
}

/// Labels for ticks `step` apart, all with the same number of digits, enough to tell
/// neighbours apart: plain decimals, or `m.me6` style when the largest is ≥ 10^6 or < 10^-3.
fn linear_labels(vals: &[f64], step: f64) -> Vec<String> {
    let exp = |x: f64| (x.abs().log10() + 1e-9).floor() as i32;
    let max = vals.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let sci = max != 0.0 && !(1e-3..1e6).contains(&max);
    vals.iter()
        .map(|&v| {
            if v.abs() < step * 1e-6 {
                "0".to_string()
            } else if sci {
                let d = (exp(max) - exp(step)).max(0) as usize;
                format!("{v:.d$e}")
            } else {
                let d = (-exp(step)).max(0) as usize;
                format!("{v:.d$}")
            }
        })
        .collect()
}

fn label(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e6).contains(&a) {
        format!("{v:.0e}")
    } else if a >= 100.0 || v == v.round() {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').to_string()
    }
}

/// Render `p` as a standalone SVG document.
pub fn render(p: &Plot) -> String {
    let (x0, x1, y0, y1) = ranges(p);
    let (pw, ph) = (W - L - R, H - T - B);
    let fx = |x: f64| {
        let f = if p.log_x {
            (x.log10() - x0.log10()) / (x1.log10() - x0.log10())
        } else {
            (x - x0) / (x1 - x0)
        };
        L + f * pw
    };
    let fy = |y: f64| {
        let f = if p.log_y {
            (y.log10() - y0.log10()) / (y1.log10() - y0.log10())
        } else {
            (y - y0) / (y1 - y0)
        };
        T + ph - f * ph
    };
    let mut s = String::new();
    frame(&mut s, p, (x0, x1, y0, y1), &fx, &fy);
    series(&mut s, p, &fx, &fy);
    s.push_str("</svg>\n");
    s
}

/// A point that can be drawn: finite, and positive on a log axis.
fn plottable(p: &Plot, x: f64, y: f64) -> bool {
    x.is_finite() && y.is_finite() && (!p.log_x || x > 0.0) && (!p.log_y || y > 0.0)
}

/// The axes' ranges (x0, x1, y0, y1): the data's, or the plot's fixed bounds, widened to
/// whole decades on a log axis and to a tick above the data on a linear one.
fn ranges(p: &Plot) -> (f64, f64, f64, f64) {
    let ok = |x: f64, y: f64| plottable(p, x, y);
    let pts = || {
        p.lines
            .iter()
            .flat_map(|l| l.points.iter())
            .filter(|(x, y)| ok(*x, *y))
    };
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for &(x, y) in pts() {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if !x0.is_finite() {
        (x0, x1, y0, y1) = if p.log_y {
            (0.0, 1.0, 1.0, 10.0)
        } else {
            (0.0, 1.0, 0.0, 1.0)
        };
        if p.log_x {
            (x0, x1) = (1.0, 10.0);
        }
    }
    let fixed = |b: Option<f64>, log: bool| b.filter(|v| v.is_finite() && (!log || *v > 0.0));
    let (fx0, fx1) = (fixed(p.x_min, p.log_x), fixed(p.x_max, p.log_x));
    let (fy0, fy1) = (fixed(p.y_min, p.log_y), fixed(p.y_max, p.log_y));
    x0 = fx0.unwrap_or(x0);
    x1 = fx1.unwrap_or(x1);
    if !p.log_y && !p.y_from_data && y0 > 0.0 {
        y0 = 0.0;
    }
    y0 = fy0.unwrap_or(y0);
    y1 = fy1.unwrap_or(y1);
    if x1 <= x0 {
        x1 = x0 + if p.log_x { x0 * 9.0 } else { 1.0 };
    }
    if y1 <= y0 {
        y1 = y0
            + if p.log_y {
                y0 * 9.0
            } else {
                y0.abs().max(1.0) * 0.1
            };
        if p.y_from_data && fy0.is_none() && !p.log_y {
            y0 -= y0.abs().max(1.0) * 0.1;
        }
    }
    if p.log_x {
        if fx0.is_none() {
            x0 = 10f64.powf(x0.log10().floor());
        }
        if fx1.is_none() {
            x1 = 10f64.powf(x1.log10().ceil());
        }
    }
    if p.log_y {
        if fy0.is_none() {
            y0 = 10f64.powf(y0.log10().floor());
        }
        if fy1.is_none() {
            y1 = 10f64.powf(y1.log10().ceil());
        }
    } else {
        // Room above the highest point (a tenth of the span), then up to the next tick,
        // so a line at the maximum does not run along the frame; likewise below for a
        // range from the data.
        let span = y1 - y0;
        if fy1.is_none() {
            let step = nice_step(span * 1.1);
            y1 = ((y1 + span * 0.1) / step - 1e-9).ceil() * step;
        }
        if fy0.is_none() && p.y_from_data && y0 != 0.0 {
            let step = nice_step(y1 - y0 + span * 0.1);
            y0 = ((y0 - span * 0.1) / step + 1e-9).floor() * step;
        }
    }
    (x0, x1, y0, y1)
}

/// The page, title, grid and tick labels, frame and axis labels, and the clip path of the
/// plotting area: everything but the series.
fn frame(
    s: &mut String,
    p: &Plot,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
    fx: &dyn Fn(f64) -> f64,
    fy: &dyn Fn(f64) -> f64,
) {
    let (pw, ph) = (W - L - R, H - T - B);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        L + pw / 2.0,
        escape(&p.title)
    );
    for (v, text) in ticks(x0, x1, p.log_x) {
        let x = fx(v);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.2}" y1="{T}" x2="{x:.2}" y2="{:.2}" stroke="#e0e0e0"/><text x="{x:.2}" y="{:.2}" text-anchor="middle">{}</text>"##,
            T + ph,
            T + ph + 16.0,
            escape(&text)
        );
    }
    for (v, text) in ticks(y0, y1, p.log_y) {
        let y = fy(v);
        let _ = writeln!(
            s,
            r##"<line x1="{L}" y1="{y:.2}" x2="{:.2}" y2="{y:.2}" stroke="#e0e0e0"/><text x="{:.2}" y="{:.2}" text-anchor="end">{}</text>"##,
            L + pw,
            L - 6.0,
            y + 4.0,
            escape(&text)
        );
    }
    let _ = writeln!(
        s,
        r#"<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        L + pw / 2.0,
        H - 15.0,
        escape(&p.x_label)
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        T + ph / 2.0,
        escape(&p.y_label)
    );
    // Lines and markers are clipped to the frame (fixed bounds may cut the data).
    let _ = writeln!(
        s,
        r#"<clipPath id="frame"><rect x="{L}" y="{T}" width="{pw}" height="{ph}"/></clipPath>"#
    );
}

/// Each series, as markers or a decimated polyline clipped to the frame, and its legend
/// entry right of the plot (as many as fit, then "+N more").
fn series(s: &mut String, p: &Plot, fx: &dyn Fn(f64) -> f64, fy: &dyn Fn(f64) -> f64) {
    let (pw, ph) = (W - L - R, H - T - B);
    let ok = |x: f64, y: f64| plottable(p, x, y);
    let inside = |x: f64, y: f64| {
        let (a, b) = (fx(x), fy(y));
        (L - 0.01..=L + pw + 0.01).contains(&a) && (T - 0.01..=T + ph + 0.01).contains(&b)
    };
    for (i, line) in p.lines.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let pts: Vec<(f64, f64)> = line
            .points
            .iter()
            .filter(|(x, y)| ok(*x, *y) && (!line.markers || inside(*x, *y)))
            .map(|&(x, y)| (fx(x), fy(y)))
            .collect();
        if line.markers {
            for (x, y) in &pts {
                let _ = writeln!(s, r#"<circle cx="{x:.2}" cy="{y:.2}" r="3.5" fill="{c}"/>"#);
            }
        } else if !pts.is_empty() {
            let dec = decimate(&pts);
            let _ = write!(
                s,
                r#"<polyline clip-path="url(#frame)" fill="none" stroke="{c}" stroke-width="{STROKE}"{} points=""#,
                dash(line)
            );
            for (x, y) in dec {
                let _ = write!(s, "{x:.2},{y:.2} ");
            }
            let _ = writeln!(s, r#""/>"#);
        }
        // Legend, right of the plot: as many rows as fit, then "+N more".
        let rows = ((ph - 14.0) / 18.0) as usize;
        let ly = T + 14.0 + 18.0 * i as f64;
        let lx = L + pw + 12.0;
        if p.lines.len() > rows && i + 1 >= rows {
            if i + 1 == rows {
                let _ = writeln!(
                    s,
                    r#"<text x="{lx:.1}" y="{ly:.1}">+{} more</text>"#,
                    p.lines.len() - i
                );
            }
            continue;
        }
        // The legend's sample is drawn as the series is: a marker, or a line of the same
        // colour, width and dash pattern (long enough to show one dash and one gap).
        if line.markers {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{c}"/>"#,
                lx + 10.0,
                ly - 4.0
            );
        } else {
            let _ = write!(
                s,
                r#"<line x1="{lx:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{c}" stroke-width="{STROKE}"{}/>"#,
                ly - 4.0,
                lx + 20.0,
                ly - 4.0,
                dash(line)
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            lx + 26.0,
            ly,
            escape(&legend_name(&line.name))
        );
    }
}

/// The stroke attribute of a dashed line (empty for a solid one).
fn dash(line: &Line) -> String {
    if line.dashed {
        format!(r#" stroke-dasharray="{DASH}""#)
    } else {
        String::new()
    }
}

/// A legend entry fits beside the plot: long names are cut with an ellipsis.
fn legend_name(name: &str) -> String {
    const MAX: usize = 20;
    if name.chars().count() <= MAX {
        name.to_string()
    } else {
        name.chars().take(MAX - 1).chain(['…']).collect()
    }
}

/// Keep, per pixel column, the first, min, max and last point (in order).
fn decimate(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
    if pts.len() <= 4000 {
        return pts.to_vec();
    }
    let mut out = Vec::with_capacity(4000);
    let mut i = 0;
    while i < pts.len() {
        let col = pts[i].0.floor();
        let mut j = i;
        let (mut lo, mut hi) = (i, i);
        while j < pts.len() && pts[j].0.floor() == col {
            if pts[j].1 < pts[lo].1 {
                lo = j;
            }
            if pts[j].1 > pts[hi].1 {
                hi = j;
            }
            j += 1;
        }
        let mut idx = vec![i, lo, hi, j - 1];
        idx.sort_unstable();
        idx.dedup();
        out.extend(idx.into_iter().map(|k| pts[k]));
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_lines_legend_and_escapes() {
        let p = Plot {
            title: "a <b> & c".into(),
            x_label: "time (s)".into(),
            y_label: "cwnd".into(),
            lines: vec![
                Line {
                    name: "flow <0>".into(),
                    points: (0..10).map(|i| (i as f64, (i * i) as f64)).collect(),
                    ..Default::default()
                },
                Line {
                    name: "flow 1".into(),
                    points: vec![(0.0, 1.0), (9.0, 3.0)],
                    dashed: true,
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let s = render(&p);
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert_eq!(s.matches("<polyline").count(), 2);
        assert!(s.contains("flow &lt;0&gt;") && s.contains("a &lt;b&gt; &amp; c"));
        assert!(!s.contains("flow <0>"));
        assert_eq!(s, render(&p), "deterministic");
    }

    #[test]
    fn log_axes_get_decade_ticks_and_skip_non_positive_points() {
        let p = Plot {
            log_x: true,
            log_y: true,
            lines: vec![Line {
                name: "x".into(),
                points: vec![(1e-7, 0.5), (1e-2, 900.0), (0.0, 1.0), (1e-3, -1.0)],
                markers: true,
                ..Default::default()
            }],
            ..Default::default()
        };
        let s = render(&p);
        for t in ["1e-7", "1e-6", "0.01", "1000"] {
            assert!(s.contains(&format!(">{t}<")), "tick {t} in {s}");
        }
        // Two points on the plot, one sample in the legend.
        assert_eq!(s.matches("<circle").count(), 3);
    }

    /// The y pixel of the first vertex of polyline `i`, and the tick labels of the y axis.
    fn first_y(s: &str, i: usize) -> f64 {
        let pts = s.split(" points=\"").nth(i + 1).unwrap();
        pts.split([',', ' ']).nth(1).unwrap().parse().unwrap()
    }
    fn y_ticks(s: &str) -> Vec<f64> {
        s.split("text-anchor=\"end\">")
            .skip(1)
            .map(|t| t.split('<').next().unwrap().parse().unwrap())
            .collect()
    }

    #[test]
    fn the_legend_draws_dashed_series_dashed_and_markers_as_markers() {
        let p = Plot {
            lines: vec![
                Line {
                    name: "measured".into(),
                    points: vec![(0.0, 1.0), (1.0, 2.0)],
                    ..Default::default()
                },
                Line {
                    name: "formula".into(),
                    points: vec![(0.0, 1.5), (1.0, 2.5)],
                    dashed: true,
                    ..Default::default()
                },
                Line {
                    name: "events".into(),
                    points: vec![(0.5, 1.0)],
                    markers: true,
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let s = render(&p);
        // The dashed series and its legend sample, nothing else.
        assert_eq!(
            s.matches(&format!("stroke-dasharray=\"{DASH}\"")).count(),
            2
        );
        let legend: Vec<&str> = s
            .lines()
            .filter(|l| l.contains(&format!("<text x=\"{:.1}\"", W - R + 38.0)))
            .collect();
        assert_eq!(legend.len(), 3, "{legend:?}");
        assert!(legend[0].contains("#1f77b4") && !legend[0].contains("dasharray"));
        assert!(legend[1].contains("#d62728") && legend[1].contains("dasharray"));
        assert!(legend[2].starts_with("<circle") && legend[2].contains("#2ca02c"));
        // Same width in the plot as in the legend.
        assert!(legend[0].contains(&format!("stroke-width=\"{STROKE}\"")));
    }

    #[test]
    fn a_flat_rate_starts_from_zero_and_stays_clear_of_the_frame() {
        let p = Plot {
            lines: vec![Line {
                name: "goodput".into(),
                points: (0..100).map(|i| (i as f64 * 0.1, 941.0)).collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let s = render(&p);
        let ticks = y_ticks(&s);
        assert_eq!(ticks[0], 0.0, "{ticks:?}");
        // The line sits at least a tenth of the plot height below the top of the frame.
        let y = first_y(&s, 0);
        assert!(
            (y - T) / (H - T - B) >= 0.09,
            "line at {y}, ticks {ticks:?}"
        );
    }

    #[test]
    fn a_ratio_axis_may_span_the_data_so_a_knee_shows() {
        let p = Plot {
            y_from_data: true,
            lines: vec![Line {
                name: "utilization".into(),
                points: vec![(1.0, 0.976), (2.0, 0.99), (3.0, 1.0), (4.0, 1.0)],
                ..Default::default()
            }],
            ..Default::default()
        };
        let s = render(&p);
        let ticks = y_ticks(&s);
        assert!(ticks[0] > 0.9 && ticks[0] <= 0.976, "{ticks:?}");
        assert!(*ticks.last().unwrap() >= 1.0, "{ticks:?}");
        // The knee spans a good part of the height, not 2% of it.
        let pts: Vec<f64> = s
            .split(" points=\"")
            .nth(1)
            .unwrap()
            .split([' ', ','])
            .skip(1)
            .step_by(2)
            .filter_map(|v| v.parse().ok())
            .collect();
        assert!(pts[0] - pts[2] > 0.3 * (H - T - B), "{pts:?}");
    }

    #[test]
    fn fixed_bounds_set_the_axes_and_clip_what_falls_outside() {
        let p = Plot {
            x_min: Some(2.0),
            x_max: Some(4.0),
            y_min: Some(10.0),
            y_max: Some(20.0),
            lines: vec![Line {
                name: "x".into(),
                points: (0..10).map(|i| (i as f64, i as f64 * 3.0)).collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let s = render(&p);
        let ticks = y_ticks(&s);
        assert_eq!(
            (ticks[0], *ticks.last().unwrap()),
            (10.0, 20.0),
            "{ticks:?}"
        );
        let xt: Vec<&str> = s
            .split("text-anchor=\"middle\">")
            .skip(1)
            .map(|t| t.split('<').next().unwrap())
            .collect();
        assert_eq!(xt.first(), Some(&"2.0"), "{xt:?}");
        assert!(xt.contains(&"4.0"), "{xt:?}");
        assert!(s.contains("<clipPath id=\"frame\">") && s.contains("clip-path=\"url(#frame)\""));
    }

    #[test]
    fn linear_tick_labels_are_distinct_and_exact() {
        let l = |lo: f64, hi: f64| -> Vec<String> {
            ticks(lo, hi, false).into_iter().map(|t| t.1).collect()
        };
        assert_eq!(
            l(0.0, 3e6),
            ["0", "5.0e5", "1.0e6", "1.5e6", "2.0e6", "2.5e6", "3.0e6"]
        );
        assert_eq!(
            l(0.0, 3e-4),
            ["0", "5.0e-5", "1.0e-4", "1.5e-4", "2.0e-4", "2.5e-4", "3.0e-4"]
        );
        assert_eq!(
            l(1.0, 1.25),
            ["1.00", "1.05", "1.10", "1.15", "1.20", "1.25"]
        );
        assert_eq!(l(0.0, 1.0), ["0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        assert_eq!(
            l(0.0, 600.0),
            ["0", "100", "200", "300", "400", "500", "600"]
        );
        assert_eq!(l(-2.0, 2.0), ["-2", "-1", "0", "1", "2"]);
    }

    #[test]
    fn many_lines_keep_the_legend_on_the_canvas() {
        let p = Plot {
            lines: (0..40)
                .map(|i| Line {
                    name: format!("flow {i} with a rather long legend name"),
                    points: vec![(0.0, i as f64), (1.0, i as f64)],
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let s = render(&p);
        assert_eq!(s.matches("<polyline").count(), 40);
        assert!(s.contains("more</text>"));
        assert!(s.contains("flow 0 with a rathe…"));
        for y in s.split(" y=\"").skip(1) {
            let y: f64 = y.split('"').next().unwrap().parse().unwrap();
            assert!(y <= H, "{y}");
        }
    }

    #[test]
    fn decimation_keeps_extremes() {
        let pts: Vec<(f64, f64)> = (0..100_000)
            .map(|i| (i as f64 / 1000.0, if i % 1000 == 500 { 99.0 } else { 1.0 }))
            .collect();
        let d = decimate(&pts);
        assert!(d.len() < 1000);
        assert_eq!(d.iter().filter(|p| p.1 == 99.0).count(), 100);
    }
}
