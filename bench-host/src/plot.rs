//! The one-DOF figure of the Gears of War 4 inertialization talk (Bollo, SIGGRAPH 2017) as a chart: one degree of
//! freedom through a transition made four ways.
//!
//! A fast-moving source (a swing heading down at the switch) transitions to a slowly drifting target: (a) a
//! hard cut, (b) pose matching only (the offset fades with a smoothstep; the velocity jumps), (c) velocity
//! matching by a cubic Hermite offset (matches the source's velocity, then overshoots the target and swings
//! back) and (d) the runtime's quintic inertialization (matches the velocity without overshoot). A second panel
//! has the source moving away from the target at the switch, where the paper's shape clamps the velocity to 0
//! and the continuous shape keeps it.

use plotters::coord::Shift;
use plotters::prelude::*;
use sinew::inertialization::{Quintic, Shape};
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
    let inertialized = |t: f64| quintic.eval(F4::splat(t as f32), Shape::Clamped).to_array()[0] as f64;
    vec![
        ("(a) hard cut", shape(&|_| 0.0)),
        ("(b) pose matching (smoothstep)", shape(&smoothstep_fade)),
        ("(c) velocity matching (cubic, overshoots)", shape(&hermite)),
        ("(d) quintic inertialization", shape(&inertialized)),
    ]
}

/// A source rising away from the target at the switch, the same target: `(name, points)` for a hard cut, the
/// paper's clamped quintic and the continuous shape, every 1/240 s.
pub fn receding_curves() -> Vec<(&'static str, Vec<(f64, f64)>)> {
    let rising = |t: f64| 0.9 + 0.8 * (10.0 * t - 1.2).cos();
    let rising_velocity = |t: f64| -8.0 * (10.0 * t - 1.2).sin();
    let (x0, v0) = (rising(0.0) - target(0.0), rising_velocity(0.0) - 0.1);
    let times: Vec<f64> =
        (0..=((BEFORE + DURATION + AFTER) * 240.0) as usize).map(|i| i as f64 / 240.0 - BEFORE).collect();
    let curve = |shape: Shape| {
        let (x0, v0, t1) = (F4::splat(x0 as f32), F4::splat(v0 as f32), F4::splat(DURATION as f32));
        let q = Quintic::shaped(x0, v0, t1, shape).0;
        times
            .iter()
            .map(|&t| {
                (
                    t,
                    if t < 0.0 {
                        rising(t)
                    } else {
                        target(t) + q.eval(F4::splat(t as f32), shape).to_array()[0] as f64
                    },
                )
            })
            .collect::<Vec<_>>()
    };
    let cut = times.iter().map(|&t| (t, if t < 0.0 { rising(t) } else { target(t) })).collect();
    vec![
        ("(a) hard cut", cut),
        ("(d) quintic, the paper's clamp (the velocity jumps to 0)", curve(Shape::Clamped)),
        ("(e) continuous shape (the velocity kept, a sextic start)", curve(Shape::Continuous)),
    ]
}

/// Writes the chart to `path` (SVG): the talk's figure above, a source moving away below.
pub fn transition_figure(path: &std::path::Path) -> Result<String, String> {
    let root = SVGBackend::new(path, (900, 900)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (upper, lower) = root.split_vertically(450);
    panel(
        &upper,
        "One DOF through a transition at t = 0 (after the Gears of War 4 inertialization talk)",
        curves(),
        &[BLACK, BLUE, RED, GREEN],
    )
    .map_err(|e| err(&e))?;
    panel(&lower, "A source moving away from the target at t = 0", receding_curves(), &[BLACK, GREEN, MAGENTA])
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(format!("wrote {}", path.display()))
}

/// One chart of `series` (and the target alone) in `area`.
fn panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    caption: &str,
    series: Vec<(&'static str, Vec<(f64, f64)>)>,
    colors: &[RGBColor],
) -> Result<(), Box<dyn std::error::Error>> {
    let (lo, hi) = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(-BEFORE..DURATION + AFTER, (lo - 0.1)..(hi + 0.1))?;
    chart.configure_mesh().x_desc("seconds from the switch").y_desc("value").draw()?;
    for ((name, points), &color) in series.into_iter().zip(colors) {
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    let target_line: Vec<(f64, f64)> =
        (0..=100).map(|i| i as f64 / 100.0 * (DURATION + AFTER)).map(|t| (t, target(t))).collect();
    chart
        .draw_series(LineSeries::new(target_line, BLACK.mix(0.3).stroke_width(1)))?
        .label("target alone")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.3)));
    chart.configure_series_labels().border_style(BLACK).background_style(WHITE.mix(0.9)).draw()?;
    Ok(())
}
