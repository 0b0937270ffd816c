//! Locomotion cuts for `quality --locomotion`: seeded transitions between walk and run clips (and within each)
//! entered at a random time, at the source's stride phase, or at the nearest pair of foot phases, all
//! inertialized the same way (per-component, velocity relative to the target), and what each entry costs the
//! feet.
//!
//! Per cut, B is turned and moved on the ground so it walks where A walked (`transition::simulate_aligned`).
//! A cut counts only when every entry applies (the source time lies between footsteps of both feet, and every
//! entry leaves room for the transition), so the rows compare the same cuts.
//!
//! Figures (file units: centimetres for the shared BVH clips):
//! - **slide**: per cut, how far the shown feet move on the ground during the transition while the target has
//!   them planted (summed over both feet, frame to frame), and the same for the target alone (the clip's own
//!   slide, the floor);
//! - **velocity jump**: per cut, the largest change of any joint's velocity at the switch (the `quality`
//!   table's), median over cuts;
//! - **wrong foot**: the share of cuts whose target has the other foot down at the switch (the lower foot, where
//!   the feet's heights differ by at least 2% of the figure) than the source had: the legs scissor.

use crate::transition::{self, Method};
use sinew::phase::{self, Footsteps, PhaseTable};
use sinew_tools::annotate;
use sinew_tools::cuts::{Cut, FRAMES_BEFORE, Xorshift};
use sinew_tools::phase::{PhasedClips, phased_bvhs};

/// How a locomotion cut chooses the target's entry time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A seeded random time.
    Unsynced,
    /// The source's stride phase (`PhaseTable::time_at_or_after`).
    Phase,
    /// The nearest pair of foot phases (`phase::match_foot_phase`).
    FootPhase,
}

impl Entry {
    pub const ALL: [Entry; 3] = [Entry::Unsynced, Entry::Phase, Entry::FootPhase];

    pub fn name(self) -> &'static str {
        match self {
            Entry::Unsynced => "unsynced",
            Entry::Phase => "phase",
            Entry::FootPhase => "foot-phase",
        }
    }
}

/// One row of the locomotion table.
#[derive(Clone, Debug)]
pub struct Row {
    pub entry: Entry,
    /// Mean over cuts of the shown planted feet's slide during the transition.
    pub slide_mean: f64,
    /// The 90th percentile of the same.
    pub slide_p90: f64,
    /// Mean over cuts of the target's own planted-foot slide over the same frames.
    pub target_slide_mean: f64,
    pub velocity_jump_median: f64,
    pub wrong_foot_share: f64,
    /// Cuts with a clear lower foot on both sides (the wrong-foot share's denominator).
    pub foot_cuts: usize,
}

/// The table over the clips of `paths` (those with a stride phase): `count` seeded cuts attempted.
pub struct Table {
    pub rows: Vec<Row>,
    pub cuts: usize,
    pub attempted: usize,
    pub dt: f32,
    pub duration: f32,
    pub clips: Vec<String>,
}

/// Runs the locomotion cuts (see the module docs).
pub fn locomotion_quality(
    paths: &[std::path::PathBuf],
    feet: &[String],
    dt: Option<f32>,
    duration: f32,
    count: usize,
    seed: u64,
) -> Result<Table, String> {
    let phased = phased_bvhs(paths, feet)?;
    let asset = sinew_tools::blob::asset(&phased.blob)?;
    let moving: Vec<usize> = (0..phased.clips.len()).filter(|&c| phased.missing[c].is_none()).collect();
    if moving.is_empty() {
        return Err("no clip has a stride phase: give walks and runs".into());
    }
    let dt = dt.unwrap_or(1.0 / phased.clips[0].sample_rate);
    transition::check_simulation(dt, duration, count)?;
    let tables: Vec<Option<PhaseTable>> = (0..asset.num_clips()).map(|c| PhaseTable::of(&asset, c)).collect();
    let figure = annotate::figure_height(&phased.skeleton, &phased.clips) as f64;
    let mut rng = Xorshift::new(seed);
    // Room before the switch for the heading's quarter second and the metrics' frames, and after it for the
    // transition and four frames.
    let lead = 0.25 + (FRAMES_BEFORE + 2) as f32 * dt;
    let tail = duration + 6.0 * dt;
    let mut per_entry: Vec<Samples> = Entry::ALL.iter().map(|_| Samples::default()).collect();
    let mut cuts = 0;
    for _ in 0..count {
        let a = moving[rng.below(moving.len())];
        let b = moving[rng.below(moving.len())];
        let (da, db) = (asset.clip_duration(a).unwrap_or(0.0), asset.clip_duration(b).unwrap_or(0.0));
        if da <= lead + tail || db <= lead + tail {
            continue;
        }
        let ta = lead + rng.unit() * (da - lead - 6.0 * dt);
        let window = lead..=db - tail;
        let random = lead + rng.unit() * (db - lead - tail);
        let Some(times) = entry_times(&asset, &phased, &tables, (a, ta), b, random, window.clone()) else {
            continue;
        };
        if !times.iter().all(|t| window.contains(t)) {
            continue;
        }
        cuts += 1;
        let aligned = transition::Playing { heading: true, ..Default::default() };
        for (samples, tb) in per_entry.iter_mut().zip(times) {
            let cut = Cut { a, ta, b, tb };
            let trace =
                transition::simulate_aligned(&asset, dt, Method::Relative, cut, duration, (FRAMES_BEFORE, 4), aligned)?;
            samples.add(&asset, &phased, &trace, cut, duration, figure);
        }
    }
    if cuts == 0 {
        return Err("no cut had room for every entry: the clips are too short for this transition".into());
    }
    let rows = Entry::ALL.iter().zip(per_entry).map(|(&entry, mut s)| s.row(entry)).collect();
    let clips = moving.iter().map(|&c| phased.clips[c].name.clone()).collect();
    Ok(Table { rows, cuts, attempted: count, dt, duration, clips })
}

/// The target times of the three entries, or `None` when a phase entry does not apply.
fn entry_times(
    asset: &sinew::Asset<'_>,
    phased: &PhasedClips,
    tables: &[Option<PhaseTable<'_>>],
    (a, ta): (usize, f32),
    b: usize,
    random: f32,
    window: std::ops::RangeInclusive<f32>,
) -> Option<[f32; 3]> {
    let (source, target) = (tables[a].as_ref()?, tables[b].as_ref()?);
    let phase_time = target.time_at_or_after(source.phase_at(ta), *window.start());
    let steps = |clip: usize, side: usize| Footsteps::of(asset, clip, phased.feet[side], false);
    let source_phases = [steps(a, 0)?.phase_at(ta)?, steps(a, 1)?.phase_at(ta)?];
    let (left, right) = (steps(b, 0)?, steps(b, 1)?);
    let matched = phase::match_foot_phase([&left, &right], target.sample_rate(), source_phases, window)?;
    Some([random, phase_time, matched.time])
}

#[derive(Default)]
struct Samples {
    slide: Vec<f64>,
    target_slide: Vec<f64>,
    jumps: Vec<f64>,
    wrong: usize,
    foot_cuts: usize,
}

impl Samples {
    fn add(
        &mut self,
        asset: &sinew::Asset<'_>,
        phased: &PhasedClips,
        trace: &transition::Trace,
        cut: Cut,
        duration: f32,
        figure: f64,
    ) {
        let s = trace.switch_frame;
        let frames = (duration / trace.dt).ceil() as usize;
        let ground = |p: [f32; 3], q: [f32; 3]| ((p[0] - q[0]) as f64).hypot((p[2] - q[2]) as f64);
        let (mut slide, mut target_slide) = (0.0, 0.0);
        for &foot in &phased.feet {
            let name = format!("plant:{}", phased.skeleton.names[foot]);
            let plants: Vec<_> =
                asset.ranges(cut.b).iter().filter(|r| asset.name(r.name) == Some(name.as_str())).collect();
            for f in s + 1..=s + frames {
                let time = cut.tb + (f - s) as f32 * trace.dt;
                if plants.iter().any(|r| (r.start..=r.end).contains(&time)) {
                    slide += ground(trace.output[f][foot], trace.output[f - 1][foot]);
                    target_slide += ground(trace.target[f][foot], trace.target[f - 1][foot]);
                }
            }
        }
        self.slide.push(slide);
        self.target_slide.push(target_slide);
        self.jumps.push((0..trace.output[0].len()).map(|j| transition::velocity_jump(trace, j)).fold(0.0, f64::max));
        let [l, r] = phased.feet;
        let lower = |pose: &Vec<[f32; 3]>| {
            let gap = (pose[l][1] - pose[r][1]) as f64;
            (gap.abs() >= 0.02 * figure).then_some(gap < 0.0)
        };
        if let (Some(source), Some(target)) = (lower(&trace.source[s - 1]), lower(&trace.target[s])) {
            self.foot_cuts += 1;
            self.wrong += usize::from(source != target);
        }
    }

    fn row(&mut self, entry: Entry) -> Row {
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        Row {
            entry,
            slide_mean: mean(&self.slide),
            slide_p90: sinew_tools::stats::percentile(&mut self.slide, 0.9),
            target_slide_mean: mean(&self.target_slide),
            velocity_jump_median: sinew_tools::stats::percentile(&mut self.jumps, 0.5),
            wrong_foot_share: self.wrong as f64 / self.foot_cuts.max(1) as f64,
            foot_cuts: self.foot_cuts,
        }
    }
}

/// The table as text.
pub fn table_text(t: &Table) -> String {
    let mut out = format!(
        "{} locomotion cuts of {} attempted ({}), {:.0} Hz, transition {} s, inertialized (relative); file units\n",
        t.cuts,
        t.attempted,
        t.clips.join(", "),
        1.0 / t.dt,
        t.duration
    );
    out += &format!(
        "{:<11} {:>11} {:>11} {:>13} {:>13} {:>12}\n",
        "entry", "slide mean", "slide p90", "target slide", "vjump median", "wrong foot %"
    );
    for r in &t.rows {
        out += &format!(
            "{:<11} {:>11.2} {:>11.2} {:>13.2} {:>13.1} {:>12.1}\n",
            r.entry.name(),
            r.slide_mean,
            r.slide_p90,
            r.target_slide_mean,
            r.velocity_jump_median,
            100.0 * r.wrong_foot_share
        );
    }
    out
}

/// The table as JSON.
pub fn table_json(t: &Table) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = t
        .rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "entry": r.entry.name(),
                "slide_mean": r.slide_mean,
                "slide_p90": r.slide_p90,
                "target_slide_mean": r.target_slide_mean,
                "velocity_jump_median": r.velocity_jump_median,
                "wrong_foot_share": r.wrong_foot_share,
                "foot_cuts": r.foot_cuts,
            })
        })
        .collect();
    serde_json::json!({
        "cuts": t.cuts, "attempted": t.attempted, "dt": t.dt, "duration": t.duration, "clips": t.clips, "entries": rows,
    })
}
