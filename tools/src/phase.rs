//! Stride phase at bake (`bake --phase`, the `phase` and `match` commands): the table `sinew::phase` reads.
//!
//! **Signal.** Per frame, `s = (p_L − p_R) · d` (`sinew::phase::stride_signal`): the left foot's model position
//! ahead of the right's along the horizontal direction of travel `d`. `d` is the pelvis's (the feet's nearest
//! common ancestor) horizontal velocity, a central difference over ±0.25 s, where it is faster than
//! `min_speed` (a fraction of the figure's height per second). Slower frames, and whole clips played in place,
//! take the mean direction of the moving frames, or, when none moves, the main horizontal axis of the feet's
//! gap (its sign chosen so the lower foot, the one on the ground, moves backwards relative to the pelvis).
//! The signal is smoothed by a centred moving average over `smoothing` seconds.
//!
//! **Rule.** Extremes alternate, each at least `hysteresis` of the signal's full range from the one before.
//! A minimum (right foot ahead) is phase 0 and a maximum (left foot ahead) ½; in between the phase is the
//! fraction of the way from one extreme's value to the next's. Frames before the first and after the last
//! extreme are read the same way with the nearest half stride's swing, clamped to that half. A running
//! maximum makes the table nondecreasing (the seed's monotone filter), and the clip's first phase is brought
//! into `[0, 1)` by whole strides. The inverse table holds the clip time at every 1/`per_stride` of a stride,
//! plateaus read at their first frame.
//!
//! **Fallbacks and errors.** A clip with fewer than two extremes, or whose extremes and edges cover less than
//! 0.9 of a stride, has no phase (too short, or a flat or noisy signal); so has a clip where either foot never
//! plants. Feet are the joints named like a foot with a side (`left`/`right`, `_L`/`_R`, `.L`/`.R`), or the two
//! `--feet` name.

use crate::annotate::{self, PlantRule};
use crate::raw::{RawAnnotations, RawClip, RawPhase, RawSkeleton};
use glam::Vec3;
use sinew::asset::{MATCH_IN, MATCH_OUT};

/// Parameters of the stride phase (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct PhaseRule {
    /// Seconds of the moving average on the signal.
    pub smoothing: f32,
    /// Pelvis speed below which the direction falls back, as a fraction of the figure's height per second.
    pub min_speed: f32,
    /// Smallest swing between extremes, as a fraction of the signal's range.
    pub hysteresis: f32,
    /// Inverse table samples per stride.
    pub per_stride: u32,
}

impl Default for PhaseRule {
    fn default() -> PhaseRule {
        PhaseRule { smoothing: 0.1, min_speed: 0.1, hysteresis: 0.3, per_stride: 64 }
    }
}

/// Smallest swing between extremes as a fraction of the figure's height, whatever the signal's range: a
/// character standing still shuffles its feet by less (0.05: 8.5 cm on a 1.7 m figure; a walk's feet swing
/// ±30 cm).
pub const MIN_SWING: f32 = 0.05;

/// Least coverage, in strides, for a clip to have a phase.
pub const MIN_STRIDES: f32 = 0.9;

/// The left and right foot joints: the two `names` (left first), or the joints named like a foot with a side.
pub fn left_right_feet(skeleton: &RawSkeleton, names: &[String]) -> Result<[usize; 2], String> {
    if !names.is_empty() {
        let feet = annotate::foot_joints(skeleton, names)?;
        return match feet[..] {
            [left, right] if left != right => Ok([left, right]),
            _ => Err("--feet takes two different joints: LEFT,RIGHT".into()),
        };
    }
    let feet = annotate::foot_joints(skeleton, &[])?;
    let on = |side: annotate::Side| -> Vec<usize> {
        feet.iter().copied().filter(|&j| annotate::side(&skeleton.names[j]).is_some_and(|(s, _)| s == side)).collect()
    };
    let (left, right) = (on(annotate::Side::Left), on(annotate::Side::Right));
    match (&left[..], &right[..]) {
        ([l], [r]) => Ok([*l, *r]),
        _ => Err(format!(
            "cannot tell the left and right foot among {:?}; name them with --feet LEFT,RIGHT",
            feet.iter().map(|&j| skeleton.names[j].as_str()).collect::<Vec<_>>()
        )),
    }
}

/// The stride signal of every frame (see the module docs), unsmoothed, from the clip's model-space joint
/// `positions` and the frames' `directions` of travel ([`travel_directions`]).
fn stride_signal(positions: &[Vec<Vec3>], directions: &[Vec3], feet: [usize; 2]) -> Vec<f32> {
    positions
        .iter()
        .zip(directions)
        .map(|(p, d)| sinew::phase::stride_signal(to_sinew(p[feet[0]]), to_sinew(p[feet[1]]), to_sinew(*d)))
        .collect()
}

fn to_sinew(v: Vec3) -> sinew::math::Vec3 {
    sinew::math::Vec3 { x: v.x, y: v.y, z: v.z }
}

/// The horizontal direction of travel per frame (unit, or zero when nothing gives one), on a figure `figure`
/// file units tall.
fn travel_directions(
    skeleton: &RawSkeleton,
    positions: &[Vec<Vec3>],
    rate: f32,
    feet: [usize; 2],
    rule: PhaseRule,
    figure: f32,
) -> Vec<Vec3> {
    let pelvis = annotate::common_ancestor(&skeleton.parents, feet[0], feet[1]);
    let frames = positions.len();
    let reach = ((0.25 * rate).round() as usize).max(1);
    let fast = rule.min_speed * figure;
    let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
    let velocity: Vec<Vec3> = (0..frames)
        .map(|f| {
            let (a, b) = (f.saturating_sub(reach), (f + reach).min(frames - 1));
            if b > a { flat(positions[b][pelvis] - positions[a][pelvis]) * rate / (b - a) as f32 } else { Vec3::ZERO }
        })
        .collect();
    let moving = |v: &Vec3| v.length() >= fast && fast > 0.0;
    let mean = velocity.iter().filter(|v| moving(v)).map(|v| v.normalize()).sum::<Vec3>();
    let fallback =
        if mean.length() > 1e-3 { mean.normalize() } else { in_place_forward(positions, pelvis, feet, rate) };
    velocity.iter().map(|v| if moving(v) { v.normalize() } else { fallback }).collect()
}

/// For a clip played in place: the main horizontal axis of the feet's gap, pointing where the grounded foot
/// does not go (it slides backwards under the body).
fn in_place_forward(positions: &[Vec<Vec3>], pelvis: usize, feet: [usize; 2], rate: f32) -> Vec3 {
    let (mut xx, mut xz, mut zz) = (0.0f64, 0.0f64, 0.0f64);
    for p in positions {
        let g = p[feet[0]] - p[feet[1]];
        (xx, xz, zz) = (xx + (g.x * g.x) as f64, xz + (g.x * g.z) as f64, zz + (g.z * g.z) as f64);
    }
    // The larger eigenvector of the 2×2 covariance [[xx, xz], [xz, zz]].
    let angle = 0.5 * (2.0 * xz).atan2(xx - zz);
    let axis = Vec3::new(angle.cos() as f32, 0.0, angle.sin() as f32);
    let mut backwards = 0.0f32;
    for f in 1..positions.len() {
        let (now, before) = (&positions[f], &positions[f - 1]);
        let low = if now[feet[0]].y <= now[feet[1]].y { feet[0] } else { feet[1] };
        let slide = (now[low] - now[pelvis]) - (before[low] - before[pelvis]);
        backwards += slide.dot(axis) * rate;
    }
    if backwards > 0.0 { -axis } else { axis }
}

/// An extreme of the smoothed signal.
#[derive(Clone, Copy, Debug)]
struct Extreme {
    frame: usize,
    value: f32,
    maximum: bool,
}

/// Alternating extremes, each at least `swing` from the one before.
fn extremes(s: &[f32], swing: f32) -> Vec<Extreme> {
    let mut out = Vec::new();
    let (mut hi, mut lo) = (0usize, 0usize);
    // `None` until the first extreme is known; then whether the next one is a maximum.
    let mut seeking_max: Option<bool> = None;
    for f in 0..s.len() {
        if s[f] > s[hi] {
            hi = f;
        }
        if s[f] < s[lo] {
            lo = f;
        }
        let found = match seeking_max {
            None if s[f] <= s[hi] - swing => Some(true),
            None if s[f] >= s[lo] + swing => Some(false),
            Some(true) if s[f] <= s[hi] - swing => Some(true),
            Some(false) if s[f] >= s[lo] + swing => Some(false),
            _ => None,
        };
        if let Some(maximum) = found {
            let frame = if maximum { hi } else { lo };
            // The clip's first frame is where the take starts, not a turn of the stride.
            if frame > 0 {
                out.push(Extreme { frame, value: s[frame], maximum });
            }
            seeking_max = Some(!maximum);
            (hi, lo) = (f, f);
        }
    }
    out
}

/// Centred moving average over `2 · half + 1` frames, shrunk symmetrically at the ends (so a straight line
/// stays straight).
fn smoothed(s: &[f32], half: usize) -> Vec<f32> {
    (0..s.len())
        .map(|f| {
            let half = half.min(f).min(s.len() - 1 - f);
            let (a, b) = (f - half, f + half);
            s[a..=b].iter().sum::<f32>() / (b - a + 1) as f32
        })
        .collect()
}

/// Why a clip has no phase.
#[derive(Clone, Debug, PartialEq)]
pub enum NoPhase {
    /// The stride signal swings too little or too few times.
    TooShort { strides: f32 },
    /// A foot never plants.
    NeverPlants { foot: String },
}

impl std::fmt::Display for NoPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoPhase::TooShort { strides } => write!(
                f,
                "no phase: the feet cover {strides:.2} of a stride (at least {MIN_STRIDES} needed: too short, or a flat or noisy signal)"
            ),
            NoPhase::NeverPlants { foot } => write!(f, "no phase: {foot} never plants"),
        }
    }
}

/// The stride phase table of `clip` (see the module docs), without flags.
pub fn stride_phase(
    skeleton: &RawSkeleton,
    clip: &RawClip,
    feet: [usize; 2],
    rule: PhaseRule,
) -> Result<RawPhase, NoPhase> {
    if clip.frames.len() < 2 || !(rule.smoothing >= 0.0 && rule.hysteresis > 0.0 && rule.per_stride > 0) {
        return Err(NoPhase::TooShort { strides: 0.0 });
    }
    let positions = annotate::model_positions(skeleton, clip);
    let figure = annotate::clip_figure_height(skeleton, &positions);
    let directions = travel_directions(skeleton, &positions, clip.sample_rate, feet, rule, figure);
    let raw = stride_signal(&positions, &directions, feet);
    let s = smoothed(&raw, (rule.smoothing * 0.5 * clip.sample_rate).round() as usize);
    let (lo, hi) = s.iter().fold((f32::MAX, f32::MIN), |(l, h), &v| (l.min(v), h.max(v)));
    let swing = (rule.hysteresis * (hi - lo)).max(MIN_SWING * figure);
    let ext = extremes(&s, swing);
    if ext.len() < 2 || swing.is_nan() || swing <= 0.0 {
        return Err(NoPhase::TooShort { strides: 0.5 * ext.len().saturating_sub(1) as f32 });
    }
    // Unwrapped phase of each extreme: minima on whole strides, maxima half-way.
    let mut at = Vec::with_capacity(ext.len());
    let mut u = if ext[0].maximum { 0.5 } else { 1.0 };
    for _ in &ext {
        at.push(u);
        u += 0.5;
    }
    let mut forward = vec![0.0f32; s.len()];
    let (first, last) = (ext[0], ext[ext.len() - 1]);
    for (f, out) in forward.iter_mut().enumerate() {
        let i = ext.partition_point(|e| e.frame <= f);
        *out = if i == 0 {
            // Before the first extreme: coming from the opposite one, with the first half's swing.
            let other = ext[1].value;
            at[0] - 0.5 + 0.5 * ((s[f] - other) / (first.value - other)).clamp(0.0, 1.0)
        } else if i == ext.len() {
            let other = ext[ext.len() - 2].value;
            at[ext.len() - 1] + 0.5 * ((s[f] - last.value) / (other - last.value)).clamp(0.0, 1.0)
        } else {
            let (a, b) = (ext[i - 1], ext[i]);
            at[i - 1] + 0.5 * ((s[f] - a.value) / (b.value - a.value)).clamp(0.0, 1.0)
        };
    }
    for f in 1..forward.len() {
        forward[f] = forward[f].max(forward[f - 1]);
    }
    let shift = forward[0].floor();
    forward.iter_mut().for_each(|u| *u -= shift);
    let strides = forward[forward.len() - 1] - forward[0];
    if strides < MIN_STRIDES {
        return Err(NoPhase::TooShort { strides });
    }
    let halves = ext.windows(2);
    let n = (ext.len() - 1) as f32;
    let center = halves.clone().map(|w| 0.5 * (w[0].value + w[1].value)).sum::<f32>() / n;
    let amplitude = halves.map(|w| 0.5 * (w[1].value - w[0].value).abs()).sum::<f32>() / n;
    let inverse = invert(&forward, clip.sample_rate, rule.per_stride);
    Ok(RawPhase {
        forward,
        inverse,
        per_stride: rule.per_stride,
        center,
        amplitude,
        feet: feet.map(|f| f as u16),
        flags: MATCH_IN | MATCH_OUT,
    })
}

/// Clip times at unwrapped phases `forward[0] + k / per_stride` (plateaus at their first frame).
fn invert(forward: &[f32], rate: f32, per_stride: u32) -> Vec<f32> {
    let steps = ((forward[forward.len() - 1] - forward[0]) * per_stride as f32).floor() as usize;
    let duration = (forward.len() - 1) as f32 / rate;
    let mut f = 0;
    (0..=steps)
        .map(|k| {
            let u = forward[0] + k as f32 / per_stride as f32;
            while f + 1 < forward.len() && forward[f + 1] < u {
                f += 1;
            }
            let time = if f + 1 == forward.len() || forward[f] >= u {
                f as f32 / rate
            } else {
                (f as f32 + (u - forward[f]) / (forward[f + 1] - forward[f])) / rate
            };
            time.min(duration)
        })
        .collect()
}

/// Phase and plants for every clip of a bake: plants added to `annotations` (`plant:<joint>` ranges and
/// `footstep:<joint>` markers), and per clip its table (when both feet plant and it covers a stride, with the
/// sidecar's `phase_match` flags, both on by default) or why it has none.
pub fn bake_phases(
    skeleton: &RawSkeleton,
    clips: &[RawClip],
    feet: [usize; 2],
    plants: PlantRule,
    rule: PhaseRule,
    annotations: &mut [RawAnnotations],
) -> Result<Vec<Result<RawPhase, NoPhase>>, String> {
    let mut phases = Vec::with_capacity(clips.len());
    for (clip, a) in clips.iter().zip(annotations.iter_mut()) {
        annotate::detect_plants(skeleton, clip, &feet, plants, a)?;
        let flags = a.phase_match.map_or(MATCH_IN | MATCH_OUT, |m| m.flags());
        phases.push(clip_phase(skeleton, clip, feet, rule, a).map(|p| RawPhase { flags, ..p }));
    }
    Ok(phases)
}

/// One line per clip saying what [`bake_phases`] found.
pub fn phase_report(clips: &[RawClip], phases: &[Result<RawPhase, NoPhase>]) -> Vec<String> {
    clips
        .iter()
        .zip(phases)
        .map(|(clip, phase)| match phase {
            Ok(p) => format!("{}: phase over {:.2} strides", clip.name, p.forward[p.forward.len() - 1] - p.forward[0]),
            Err(e) => format!("{}: {e}", clip.name),
        })
        .collect()
}

/// The phase of a clip whose plants are already in `annotations`.
pub fn clip_phase(
    skeleton: &RawSkeleton,
    clip: &RawClip,
    feet: [usize; 2],
    rule: PhaseRule,
    annotations: &RawAnnotations,
) -> Result<RawPhase, NoPhase> {
    for &foot in &feet {
        let name = format!("footstep:{}", skeleton.names[foot]);
        if !annotations.markers.iter().any(|m| m.name == name) {
            return Err(NoPhase::NeverPlants { foot: skeleton.names[foot].clone() });
        }
    }
    stride_phase(skeleton, clip, feet, rule)
}

/// BVH files of one skeleton baked in memory (`f32` keys) with their feet's plants and stride phases.
pub struct PhasedClips {
    pub blob: crate::raw::AlignedBlob,
    pub skeleton: RawSkeleton,
    pub clips: Vec<RawClip>,
    pub feet: [usize; 2],
    /// Per clip, why it has no phase (`None`: it has one).
    pub missing: Vec<Option<NoPhase>>,
}

/// Reads `paths`, detects plants and stride phases with the default rules and bakes them.
pub fn phased_bvhs(paths: &[std::path::PathBuf], feet: &[String]) -> Result<PhasedClips, String> {
    let (skeleton, clips) = crate::bvh::load_raw_files(paths)?;
    let feet = left_right_feet(&skeleton, feet)?;
    let mut annotations = vec![RawAnnotations::default(); clips.len()];
    let found = bake_phases(&skeleton, &clips, feet, PlantRule::default(), PhaseRule::default(), &mut annotations)?;
    let (phases, missing) = found
        .into_iter()
        .map(|r| match r {
            Ok(p) => (Some(p), None),
            Err(e) => (None, Some(e)),
        })
        .unzip();
    let extras = crate::raw::Extras { annotations, phases, ..Default::default() };
    let blob = crate::bake::bake_with(&skeleton, &clips, crate::bake::KeyFormat::F32, &extras)?;
    Ok(PhasedClips { blob, skeleton, clips, feet, missing })
}

/// One BVH file as [`phased_bvhs`]; a clip without a phase is an error saying why.
pub fn phased_bvh(path: &std::path::Path, feet: &[String]) -> Result<PhasedClips, String> {
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let phased = phased_bvhs(&[path.to_path_buf()], feet).map_err(|e| at(&e))?;
    match &phased.missing[0] {
        Some(reason) => Err(at(reason)),
        None => Ok(phased),
    }
}

/// The `phase` command's JSON: `{"dt", "frames": [{"t", "phase"}…], "plants": {"left": [[t0, t1]…],
/// "right": …}}`, read back through the runtime's `PhaseTable`.
pub fn phase_json(path: &std::path::Path, feet: &[String]) -> Result<serde_json::Value, String> {
    let phased = phased_bvh(path, feet)?;
    let asset = crate::blob::asset(&phased.blob)?;
    let table = sinew::phase::PhaseTable::of(&asset, 0).ok_or("the baked blob lost its phase")?;
    let rate = phased.clips[0].sample_rate;
    let frames: Vec<serde_json::Value> = (0..phased.clips[0].frames.len())
        .map(|k| {
            let t = k as f32 / rate;
            serde_json::json!({ "t": t, "phase": table.phase_at(t) })
        })
        .collect();
    let plants = |foot: usize| -> Vec<[f32; 2]> {
        let name = format!("plant:{}", phased.skeleton.names[foot]);
        asset.ranges(0).iter().filter(|r| asset.name(r.name) == Some(name.as_str())).map(|r| [r.start, r.end]).collect()
    };
    Ok(serde_json::json!({
        "dt": 1.0 / rate,
        "frames": frames,
        "plants": { "left": plants(phased.feet[0]), "right": plants(phased.feet[1]) },
    }))
}

/// How `match` chooses the target time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MatchMethod {
    /// The source's stride phase, entered through the target's inverse table.
    Phase,
    /// The target time whose two foot phases are nearest the source's.
    FootPhase,
}

/// The `match` command's JSON: `{"time": TB, "phase": p}` where `p` is the target's stride phase at `TB`;
/// foot-phase matching adds `"left"`, `"right"` (the target's foot phases) and `"source"` (the source's).
pub fn match_json(
    from: &std::path::Path,
    at: f32,
    to: &std::path::Path,
    method: MatchMethod,
    feet: &[String],
) -> Result<serde_json::Value, String> {
    if !at.is_finite() {
        return Err(format!("--at {at}: give a finite time"));
    }
    let (a, b) = (phased_bvh(from, feet)?, phased_bvh(to, feet)?);
    let (asset_a, asset_b) = (crate::blob::asset(&a.blob)?, crate::blob::asset(&b.blob)?);
    let duration = asset_a.clip_duration(0).unwrap_or(0.0);
    if !(0.0..=duration).contains(&at) {
        return Err(format!("--at {at}: the source clip runs 0 to {duration} s"));
    }
    let (table_a, table_b) = (
        sinew::phase::PhaseTable::of(&asset_a, 0).ok_or("the source lost its phase")?,
        sinew::phase::PhaseTable::of(&asset_b, 0).ok_or("the target lost its phase")?,
    );
    match method {
        MatchMethod::Phase => {
            let time = table_b.time_at(table_a.phase_at(at));
            Ok(serde_json::json!({ "time": time, "phase": table_b.phase_at(time) }))
        }
        MatchMethod::FootPhase => {
            let mut source = [0.0f32; 2];
            for (side, &foot) in a.feet.iter().enumerate() {
                let steps = sinew::phase::Footsteps::of(&asset_a, 0, foot, false).ok_or("a source foot has no name")?;
                source[side] = steps.phase_at(at).ok_or_else(|| {
                    let side = ["left", "right"][side];
                    format!("--at {at}: the source's {side} foot has no footstep on both sides of this time")
                })?;
            }
            let target_steps = b.feet.map(|f| sinew::phase::Footsteps::of(&asset_b, 0, f, false));
            let [Some(left), Some(right)] = target_steps else {
                return Err("a target foot has no name".into());
            };
            let found = sinew::phase::match_foot_phase([&left, &right], b.clips[0].sample_rate, source, 0.0..=f32::MAX)
                .ok_or("no target frame lies between two footsteps of both feet")?;
            Ok(serde_json::json!({
                "time": found.time,
                "phase": table_b.phase_at(found.time),
                "left": found.phases[0],
                "right": found.phases[1],
                "source": source,
            }))
        }
    }
}
