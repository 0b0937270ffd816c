//! The one-DOF figure of the Gears of War 4 inertialization talk (Bollo, SIGGRAPH 2017) as a chart: one degree of
//! freedom through a transition made four ways.
//!
//! A fast-moving source (a swing heading down at the switch) transitions to a slowly drifting target: (a) a
//! hard cut, (b) pose matching only (the offset fades with a smoothstep; the velocity jumps), (c) velocity
//! matching by a cubic Hermite offset (matches the source's velocity, then overshoots the target and swings
//! back) and (d) the runtime's quintic inertialization (matches the velocity without overshoot).

use plotters::prelude::*;
use sinew::inertialization::Quintic;
use sinew::math::F4;

/// Seconds before the switch drawn, the transition's duration, and seconds after it.
const BEFORE: f64 = 0.3;
const DURATION: f64 = 0.5;
const AFTER: f64 = 0.3;

fn source(t: f64) -> f64 {
    // A swing: fast and heading down at the switch (t = 0).
    0.9 + 0.8 * (10.0 * t + 1.2).cos()
}

fn source_velocity(t: f64) -> f64 {
    -8.0 * (10.0 * t + 1.2).sin()
}

fn target(t: f64) -> f64 {
    0.4 + 0.1 * t
}

/// The four curves sampled every 1/240 s: `(name, points)`.
pub fn curves() -> Vec<(&'static str, Vec<(f64, f64)>)> {
    let (x0, v0) = (source(0.0) - target(0.0), source_velocity(0.0) - 0.1);
    let quintic = Quintic::new(F4::splat(x0 as f32), F4::splat(v0 as f32), F4::splat(DURATION as f32));
    let times: Vec<f64> =
        (0..=((BEFORE + DURATION + AFTER) * 240.0) as usize).map(|i| i as f64 / 240.0 - BEFORE).collect();
    let shape = |offset: &dyn Fn(f64) -> f64| -> Vec<(f64, f64)> {
        times.iter().map(|&t| (t, if t < 0.0 { source(t) } else { target(t) + offset(t) })).collect()
    };
    let smoothstep_fade = |t: f64| {
        let u = (t / DURATION).min(1.0);
        x0 * (1.0 - u * u * (3.0 - 2.0 * u))
    };
    // Cubic Hermite from (x0, v0) to (0, 0) over the duration.
    let hermite = |t: f64| {
        if t >= DURATION {
            return 0.0;
        }
        let u = t / DURATION;
        let (h00, h10) = (2.0 * u * u * u - 3.0 * u * u + 1.0, u * u * u - 2.0 * u * u + u);
        h00 * x0 + h10 * DURATION * v0
    };
    let inertialized = |t: f64| quintic.eval(F4::splat(t as f32)).to_array()[0] as f64;
    vec![
        ("(a) hard cut", shape(&|_| 0.0)),
        ("(b) pose matching (smoothstep)", shape(&smoothstep_fade)),
        ("(c) velocity matching (cubic, overshoots)", shape(&hermite)),
        ("(d) quintic inertialization", shape(&inertialized)),
    ]
}

/// Writes the chart to `path` (SVG).
pub fn transition_figure(path: &std::path::Path) -> Result<String, String> {
    let series = curves();
    let (lo, hi) = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "One DOF through a transition at t = 0 (after the Gears of War 4 inertialization talk)",
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(-BEFORE..DURATION + AFTER, (lo - 0.1)..(hi + 0.1))
        .map_err(|e| err(&e))?;
    chart.configure_mesh().x_desc("seconds from the switch").y_desc("value").draw().map_err(|e| err(&e))?;
    let colors = [BLACK, BLUE, RED, GREEN];
    for ((name, points), color) in series.into_iter().zip(colors) {
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    let target_line: Vec<(f64, f64)> =
        (0..=100).map(|i| i as f64 / 100.0 * (DURATION + AFTER)).map(|t| (t, target(t))).collect();
    chart
        .draw_series(LineSeries::new(target_line, BLACK.mix(0.3).stroke_width(1)))
        .map_err(|e| err(&e))?
        .label("target alone")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.3)));
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE.mix(0.9)).draw().map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(format!("wrote {}", path.display()))
}
