//! Transitions on real clips, through the runtime path (baked clips → sampling → blend or inertialize →
//! local-to-model): the `quality` table that compares transition methods on many seeded cuts, and the
//! `transition` export of one cut frame by frame.
//!
//! A cut goes from clip A at time `ta` to clip B at `tb`. Frame `k` is `k · dt` after the switch: frames
//! before it show A; from frame 0 on the target is B at `tb + k · dt` and A keeps playing as the source.
//! The transition's `t = 0` is frame −1, the last frame of A that was shown. B's root is moved on the ground
//! plane so that its joints' mean position starts where A's was (the shift goes into joint 0, the root).

use sinew_tools::cuts::{Cut, FRAMES_BEFORE};
use sinew_tools::stats::percentile;

use sinew::blending::{BlendLayer, BlendingJob, DEFAULT_THRESHOLD};
use sinew::inertialization::{ChannelMode, Settings, Shape, VelocityMode};
use sinew::math::{Mat4, SoaTransform};
use sinew::{Arena, Asset, InertializationJob, Inertializer, Interpolation, LocalToModelJob, SamplingContext};
use sinew::{Target, Transition};
use sinew_tools::sample::sample_clamped;

/// How a transition is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Switch to B at once.
    HardCut,
    /// Sample A and B for the transition's duration and blend them with a weight rising linearly to 1.
    Crossfade,
    /// Inertialize, one curve along each offset, source velocity (Unreal's way).
    Projected,
    /// Inertialize, one curve along each offset, velocity relative to the target.
    ProjectedRelative,
    /// Inertialize, one curve per component, source velocity (the paper).
    PerComponent,
    /// Inertialize, one curve per component, velocity relative to the target.
    Relative,
    /// As `Relative`, the source's velocity kept on every curve (no clamp): velocity-continuous at the switch.
    Continuous,
}

impl Method {
    pub const ALL: [Method; 7] = [
        Method::HardCut,
        Method::Crossfade,
        Method::Projected,
        Method::ProjectedRelative,
        Method::PerComponent,
        Method::Relative,
        Method::Continuous,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Method::HardCut => "hard-cut",
            Method::Crossfade => "crossfade",
            Method::Projected => "projected",
            Method::ProjectedRelative => "projected-relative",
            Method::PerComponent => "per-component",
            Method::Relative => "relative",
            Method::Continuous => "continuous",
        }
    }

    pub fn parse(name: &str) -> Result<Method, String> {
        Method::ALL.into_iter().find(|m| m.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
            format!("unknown mode `{name}` (modes: {})", names.join(", "))
        })
    }

    /// The inertializer settings, for the inertializing methods.
    pub fn settings(self) -> Option<Settings> {
        let (channel, velocity, shape) = match self {
            Method::HardCut | Method::Crossfade => return None,
            Method::Projected => (ChannelMode::Projected, VelocityMode::Absolute, Shape::Clamped),
            Method::ProjectedRelative => (ChannelMode::Projected, VelocityMode::Relative, Shape::Clamped),
            Method::PerComponent => (ChannelMode::PerComponent, VelocityMode::Absolute, Shape::Clamped),
            Method::Relative => (ChannelMode::PerComponent, VelocityMode::Relative, Shape::Clamped),
            Method::Continuous => (ChannelMode::PerComponent, VelocityMode::Relative, Shape::Continuous),
        };
        Some(Settings { channel, velocity, shape })
    }
}

/// Longest transition the `quality` and `transition` commands simulate, seconds.
pub const MAX_TRANSITION_DURATION: f32 = 10.0;
/// Fastest simulation rate, Hz (frame-rate refinement studies go to a few kHz).
pub const MAX_SIMULATION_RATE: f32 = 10_000.0;
/// Most frames one command simulates, over all cuts and methods (a few minutes of work at most).
pub const MAX_SIMULATED_FRAMES: f64 = 2e7;

/// Checks a simulation's size before it runs: `duration` and the rate `1 / dt` within their limits, and `cuts`
/// transitions of every method within `MAX_SIMULATED_FRAMES`.
pub fn check_simulation(dt: f32, duration: f32, cuts: usize) -> Result<(), String> {
    if !(duration > 0.0 && duration <= MAX_TRANSITION_DURATION) {
        return Err(format!("--duration {duration}: give 0 < seconds <= {MAX_TRANSITION_DURATION}"));
    }
    let rate = 1.0 / dt;
    if !(rate.is_finite() && (sinew::clip::MIN_SAMPLE_RATE..=MAX_SIMULATION_RATE).contains(&rate)) {
        return Err(format!(
            "a simulation rate of {rate} Hz is outside {}..={MAX_SIMULATION_RATE} Hz",
            sinew::clip::MIN_SAMPLE_RATE
        ));
    }
    let per_cut = (duration / dt) as f64 + (FRAMES_BEFORE + 4) as f64 + 2.0 * (0.5 / dt as f64);
    let total = per_cut * cuts as f64 * Method::ALL.len() as f64;
    if total > MAX_SIMULATED_FRAMES {
        return Err(format!(
            "{cuts} cuts of {duration} s at {rate} Hz simulate {total:.3e} frames; at most {MAX_SIMULATED_FRAMES:.0e}"
        ));
    }
    Ok(())
}

/// Model-space joint positions per frame, for the output and for each clip alone.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub dt: f32,
    /// Index of frame 0 (the first frame of the transition) in the vectors below.
    pub switch_frame: usize,
    pub output: Vec<Vec<[f32; 3]>>,
    pub source: Vec<Vec<[f32; 3]>>,
    pub target: Vec<Vec<[f32; 3]>>,
    /// Local-space offsets of the output from the target per frame and joint: translation, rotation vector
    /// (of `output · target⁻¹`, the shortest arc on the first frame, then the turn nearest the frame before,
    /// so an offset growing past π is not read as a flip) and scale, as the inertializer's curves see them.
    pub local_offsets: Vec<Vec<[[f64; 3]; 3]>>,
}

/// Per joint, `output − target` in local space by channel.
fn local_offsets(output: &[SoaTransform], target: &[SoaTransform], n: usize) -> Vec<[[f64; 3]; 3]> {
    let unpack = |pose: &[SoaTransform]| {
        let mut aos = vec![sinew::math::Transform::IDENTITY; n];
        sinew::math::unpack_soa(pose, &mut aos).map(|_| aos)
    };
    let (Ok(out), Ok(tgt)) = (unpack(output), unpack(target)) else { return vec![] };
    out.iter()
        .zip(&tgt)
        .map(|(o, t)| {
            let d = |a: sinew::math::Vec3, b: sinew::math::Vec3| {
                [a.x as f64 - b.x as f64, a.y as f64 - b.y as f64, a.z as f64 - b.z as f64]
            };
            let q = o.rotation * t.rotation.conjugate();
            let (v, w) = ([q.x as f64, q.y as f64, q.z as f64], q.w as f64);
            let sign = if w < 0.0 { -1.0 } else { 1.0 };
            let len = norm(v);
            let angle = 2.0 * len.atan2(w * sign);
            let rotation = if len > 0.0 { v.map(|c| c * sign * angle / len) } else { [0.0; 3] };
            [d(o.translation, t.translation), rotation, d(o.scale, t.scale)]
        })
        .collect()
}

/// Rotation vector `r`, or the same rotation the other way around (`r − 2π r/|r|`), whichever is nearer
/// `previous`: an offset that grows past π keeps growing instead of reading as a flip to the other side.
fn unwrap_rotation(r: [f64; 3], previous: [f64; 3]) -> [f64; 3] {
    let len = norm(r);
    if len == 0.0 {
        return r;
    }
    let other = r.map(|c| c - std::f64::consts::TAU * c / len);
    if norm(sub_f64(other, previous)) < norm(sub_f64(r, previous)) { other } else { r }
}

/// Samples clips of one asset through a sampling context per clip (so playback decodes each frame once).
struct Sampler<'a> {
    asset: &'a Asset<'a>,
    interpolation: Interpolation,
    memory: Vec<Vec<u8>>,
}

impl<'a> Sampler<'a> {
    fn new(asset: &'a Asset<'a>, interpolation: Interpolation) -> Sampler<'a> {
        let bytes = SamplingContext::required_bytes_for(asset.skeleton().num_joints(), 0, interpolation);
        Sampler { asset, interpolation, memory: vec![vec![0u8; bytes]; asset.num_clips()] }
    }

    fn sample(&mut self, clip: usize, time: f32, out: &mut [SoaTransform]) -> Result<(), String> {
        let skeleton = self.asset.skeleton();
        let runtime_clip = self.asset.clip(clip).ok_or("clip index out of range")?;
        let arena = Arena::new(&mut self.memory[clip]);
        let mut context = SamplingContext::with_interpolation(&arena, skeleton.num_joints(), 0, self.interpolation)
            .map_err(|e| e.to_string())?;
        sample_clamped(skeleton, &runtime_clip, time, &mut context, out)
    }
}

/// How a simulated cut plays its clips.
#[derive(Clone, Copy, Debug, Default)]
pub struct Playing {
    /// Turn B about +Y so its joints' mean moves the way A's does (see [`simulate_aligned`]).
    pub heading: bool,
    /// How both clips are sampled between their keys.
    pub interpolation: Interpolation,
}

/// Plays one cut with `method` from `before` frames ahead of the switch to `after` frames past the end of a
/// transition of `duration` seconds, and records model-space positions.
pub fn simulate(
    asset: &Asset,
    dt: f32,
    method: Method,
    cut: Cut,
    duration: f32,
    frames: (usize, usize),
) -> Result<Trace, String> {
    simulate_aligned(asset, dt, method, cut, duration, frames, Playing::default())
}

/// [`simulate`], played as `playing` says: with B also turned about +Y when `heading` is set, so that its joints' mean moves the way
/// A's does over the quarter second before the switch (locomotion cuts between takes that walk different
/// ways, as a game keeps a character's facing across a transition).
pub fn simulate_aligned(
    asset: &Asset,
    dt: f32,
    method: Method,
    cut: Cut,
    duration: f32,
    (before, after): (usize, usize),
    playing: Playing,
) -> Result<Trace, String> {
    let (heading, skeleton) = (playing.heading, asset.skeleton());
    let (n, g) = (skeleton.num_joints(), skeleton.num_soa_joints());
    let mut sampler = Sampler::new(asset, playing.interpolation);
    let mut memory = vec![0u8; Inertializer::required_bytes(n, 0)];
    let arena = Arena::new(&mut memory);
    let mut inertializer = match method.settings() {
        Some(settings) => Some(Inertializer::new(&arena, n, 0, settings).map_err(|e| e.to_string())?),
        None => None,
    };
    let transition_frames = (duration / dt).ceil() as usize;
    let frames = before + transition_frames + after;
    let (mut source, mut target, mut previous, mut blended) = (
        vec![SoaTransform::IDENTITY; g],
        vec![SoaTransform::IDENTITY; g],
        vec![SoaTransform::IDENTITY; g],
        vec![SoaTransform::IDENTITY; g],
    );
    let mut model = vec![Mat4::IDENTITY; n];
    let mut positions = |local: &[SoaTransform]| -> Result<Vec<[f32; 3]>, String> {
        LocalToModelJob { skeleton, walk: None, local, root: None, model: &mut model }
            .run()
            .map_err(|e| e.to_string())?;
        Ok(model.iter().map(|m| m.translation().to_array()).collect())
    };
    let mut trace = Trace { dt, switch_frame: before, ..Trace::default() };
    // Clips start wherever they were captured: move B on the ground plane (BVH is Y-up) so that its joints'
    // mean position matches A's at t = 0, as a game keeps a character's world position across a transition.
    // The shift goes into the root's translation, which is in the parent-less model space.
    let mut mean_at = |sampler: &mut Sampler, clip: usize, time: f32| -> Result<[f64; 3], String> {
        sampler.sample(clip, time, &mut source)?;
        Ok(mean(&positions(&source)?))
    };
    let (a_mean, b_mean) = (mean_at(&mut sampler, cut.a, cut.ta - dt)?, mean_at(&mut sampler, cut.b, cut.tb - dt)?);
    let turn = if heading {
        let mut travel = |sampler: &mut Sampler, clip: usize, time: f32, now: [f64; 3]| -> Result<[f64; 2], String> {
            let before = mean_at(sampler, clip, time - 0.25)?;
            Ok([now[0] - before[0], now[2] - before[2]])
        };
        let (a, b) =
            (travel(&mut sampler, cut.a, cut.ta - dt, a_mean)?, travel(&mut sampler, cut.b, cut.tb - dt, b_mean)?);
        // The angle about +Y taking b's direction to a's: sin from (b × a)·Y, cos from b · a.
        (b[1] * a[0] - b[0] * a[1]).atan2(b[0] * a[0] + b[1] * a[1]) as f32
    } else {
        0.0
    };
    let turn = sinew::math::Quat::from_axis_angle(sinew::math::Vec3 { x: 0.0, y: 1.0, z: 0.0 }, turn);
    let turned_b = turn.rotate(sinew::math::Vec3 { x: b_mean[0] as f32, y: b_mean[1] as f32, z: b_mean[2] as f32 });
    let ground_shift = [a_mean[0] as f32 - turned_b.x, a_mean[2] as f32 - turned_b.z];
    let sample_target = |sampler: &mut Sampler, time: f32, out: &mut [SoaTransform]| -> Result<(), String> {
        sampler.sample(cut.b, time, out)?;
        // Joint 0 is a root (parents come first), so turning and shifting it moves the whole figure.
        let mut root = out[0].get(0);
        root.rotation = turn * root.rotation;
        let t = turn.rotate(root.translation);
        root.translation = sinew::math::Vec3 { x: t.x + ground_shift[0], y: t.y, z: t.z + ground_shift[1] };
        out[0].set(0, &root);
        Ok(())
    };
    for frame in 0..frames {
        let k = frame as f32 - before as f32;
        sampler.sample(cut.a, cut.ta + k * dt, &mut source)?;
        sample_target(&mut sampler, cut.tb + k * dt, &mut target)?;
        let switched = frame >= before;
        let shown: &[SoaTransform] = match (method, &mut inertializer) {
            (_, Some(inertializer)) => {
                let pose = if switched { &target } else { &source };
                let mut previous_target = None;
                if frame == before {
                    inertializer.request(&Transition { duration, profile: None }).map_err(|e| e.to_string())?;
                    sample_target(&mut sampler, cut.tb - dt, &mut previous)?;
                    previous_target = Some((&previous[..], &[][..]));
                }
                let frame_target = Target { pose, curves: &[], previous: previous_target };
                InertializationJob { inertializer, dt, target: frame_target }.run().map_err(|e| e.to_string())?;
                inertializer.output().pose
            }
            (Method::Crossfade, None) if switched => {
                let weight = (((k + 1.0) * dt) / duration).min(1.0);
                let layers = [
                    BlendLayer { pose: &source, weight: 1.0 - weight, joint_weights: None },
                    BlendLayer { pose: &target, weight, joint_weights: None },
                ];
                BlendingJob {
                    skeleton,
                    layers: &layers,
                    additive: &[],
                    threshold: DEFAULT_THRESHOLD,
                    output: &mut blended,
                }
                .run()
                .map_err(|e| e.to_string())?;
                &blended
            }
            _ => {
                if switched {
                    &target
                } else {
                    &source
                }
            }
        };
        let mut offsets = local_offsets(shown, &target, n);
        if let Some(previous) = trace.local_offsets.last() {
            for (offset, previous) in offsets.iter_mut().zip(previous) {
                offset[1] = unwrap_rotation(offset[1], previous[1]);
            }
        }
        trace.local_offsets.push(offsets);
        trace.output.push(positions(shown)?);
        trace.source.push(positions(&source)?);
        trace.target.push(positions(&target)?);
    }
    Ok(trace)
}

/// Quality figures of one method over many cuts (positions in file units, times in seconds).
#[derive(Clone, Debug, Default)]
pub struct Quality {
    pub method: &'static str,
    /// |velocity change| per frame at the switch (the larger of the first two frames), per joint: max and 99th
    /// percentile, file units per second.
    pub velocity_jump_max: f64,
    pub velocity_jump_p99: f64,
    /// Share of degrees of freedom (joint × axis, offsets above 1% of the cut's largest) whose offset from
    /// the target changes sign during the transition.
    pub sign_flip_share: f64,
    /// The same over local-space DOFs (translation, rotation vector and scale components), where the
    /// inertializer's curves live: the no-overshoot guarantee applies here.
    pub local_flip_share: f64,
    /// Largest |offset| during the transition over |offset at t = 0|, per DOF: max and 99th percentile.
    pub offset_growth_max: f64,
    pub offset_growth_p99: f64,
    /// Summed |jerk| of the output over the transition window, divided by the target clip's alone (mean over
    /// cuts): 1 adds nothing.
    pub jerk_ratio_mean: f64,
    /// Largest |output − target| at the first frame at or past t1.
    pub residual_max: f64,
    /// Per cut, the largest joint's velocity jump at the switch over the hard cut's (the same cut): median.
    pub jump_vs_cut_median: f64,
    /// Per cut, the largest joint's velocity jump at the switch, file units per second: median (how it shrinks
    /// with the frame time tells a velocity-continuous method from one that jumps).
    pub jump_median: f64,
    /// Per joint, the largest model-space |output − target| during the transition over the one at t = 0
    /// (joints whose offset is at least 1% of the cut's largest): 90th percentile and max.
    pub joint_growth_p90: f64,
    pub joint_growth_max: f64,
    /// The same maximum over the joints whose offset at t = 0 is at least `MAJOR_OFFSET` of the cut's largest,
    /// where a ratio is not set by an offset that starts near zero.
    pub major_joint_growth_max: f64,
}

/// The fraction of a cut's largest starting offset from which a joint counts for
/// [`Quality::major_joint_growth_max`].
pub const MAJOR_OFFSET: f64 = 0.1;

/// A sign change counts when the offset passes this fraction of the cut's largest offset (per channel) to
/// the other side; below it is f32 rounding (a rotation offset's last bit is about 1.2e-7 rad).
pub const FLIP_TOLERANCE: f64 = 1e-4;

fn mean(points: &[[f32; 3]]) -> [f64; 3] {
    let n = points.len().max(1) as f64;
    [0, 1, 2].map(|i| points.iter().map(|p| p[i] as f64).sum::<f64>() / n)
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f64; 3] {
    [0, 1, 2].map(|i| a[i] as f64 - b[i] as f64)
}

fn norm(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// Joint `joint`'s velocity change at the switch, file units per second: the larger of the first two
/// frames' (absolute-velocity modes hold the target still for the first frame, so their jump, the target's own
/// velocity, shows one frame later).
pub fn velocity_jump(trace: &Trace, joint: usize) -> f64 {
    let (p, s) = (&trace.output, trace.switch_frame);
    let jump = |f: usize| norm(sub_f64(sub(p[f][joint], p[f - 1][joint]), sub(p[f - 1][joint], p[f - 2][joint])));
    jump(s).max(jump(s + 1)) / trace.dt as f64
}

/// Runs every method over the cuts, the clips sampled with `interpolation`, and summarizes each.
pub fn quality(
    asset: &Asset,
    dt: f32,
    duration: f32,
    cuts: &[Cut],
    interpolation: Interpolation,
) -> Result<Vec<Quality>, String> {
    let playing = Playing { heading: false, interpolation };
    let transition_frames = (duration / dt).ceil() as usize;
    // Per method its summary and, per cut, its largest joint's velocity jump (for the ratio to the hard cut's).
    let mut rows = Method::ALL
        .iter()
        .map(|&method| {
            let (mut jumps, mut growth, mut jerk_ratios) = (vec![], vec![], vec![]);
            let (mut dofs, mut flips, mut residual_max) = (0usize, 0usize, 0.0f64);
            let (mut local_dofs, mut local_flips) = (0usize, 0usize);
            let (mut cut_largest, mut joint_growth, mut major_joint_growth) = (vec![], vec![], 0.0f64);
            for &cut in cuts {
                let trace = simulate_aligned(asset, dt, method, cut, duration, (FRAMES_BEFORE, 4), playing)?;
                let s = trace.switch_frame;
                let (p, t) = (&trace.output, &trace.target);
                let n = p[0].len();
                let joint_jumps: Vec<f64> = (0..n).map(|j| velocity_jump(&trace, j)).collect();
                cut_largest.push(joint_jumps.iter().copied().fold(0.0, f64::max));
                jumps.extend(joint_jumps);
                // Offsets from the target alone, per joint and per DOF, from t = 0 (frame −1) through the
                // transition.
                let window = s - 1..=s + transition_frames;
                let joint_offset = |f: usize, j: usize| norm(sub(p[f][j], t[f][j]));
                let largest = (0..n).map(|j| joint_offset(s - 1, j)).fold(0.0, f64::max);
                for j in (0..n).filter(|&j| joint_offset(s - 1, j) > 0.01 * largest) {
                    let peak = window.clone().map(|f| joint_offset(f, j)).fold(0.0, f64::max);
                    let growth = peak / joint_offset(s - 1, j);
                    joint_growth.push(growth);
                    if joint_offset(s - 1, j) >= MAJOR_OFFSET * largest {
                        major_joint_growth = major_joint_growth.max(growth);
                    }
                }
                let dofs_of = |n: usize| (0..n).flat_map(|j| (0..3).map(move |axis| (j, axis)));
                for (j, axis) in dofs_of(n) {
                    let offset = |f: usize| p[f][j][axis] as f64 - t[f][j][axis] as f64;
                    if let Some((flip, grew)) = flip_and_growth(offset, window.clone(), largest) {
                        dofs += 1;
                        flips += flip as usize;
                        growth.push(grew);
                    }
                }
                // Local DOFs, thresholds per channel (units differ), the same window.
                let offsets = &trace.local_offsets;
                for channel in 0..3 {
                    let largest = offsets[s - 1].iter().map(|o| norm(o[channel])).fold(0.0, f64::max);
                    for (j, axis) in dofs_of(n) {
                        let offset = |f: usize| offsets[f][j][channel][axis];
                        if let Some((flip, _)) = flip_and_growth(offset, window.clone(), largest) {
                            local_dofs += 1;
                            local_flips += flip as usize;
                        }
                    }
                }
                let jerk = |q: &Vec<Vec<[f32; 3]>>| -> f64 {
                    (s..=s + transition_frames)
                        .map(|f| {
                            (0..q[0].len())
                                .map(|j| {
                                    let d = |k: usize| q[f - k][j];
                                    norm([0, 1, 2].map(|i| {
                                        d(0)[i] as f64 - 3.0 * d(1)[i] as f64 + 3.0 * d(2)[i] as f64 - d(3)[i] as f64
                                    }))
                                })
                                .sum::<f64>()
                        })
                        .sum()
                };
                let target_jerk = jerk(t);
                if target_jerk > 0.0 {
                    jerk_ratios.push(jerk(p) / target_jerk);
                }
                let end = s + transition_frames;
                for j in 0..p[0].len() {
                    residual_max = residual_max.max(norm(sub(p[end][j], t[end][j])));
                }
            }
            let jerk_ratio_mean = jerk_ratios.iter().sum::<f64>() / jerk_ratios.len().max(1) as f64;
            let quality = Quality {
                method: method.name(),
                velocity_jump_max: jumps.iter().copied().fold(0.0, f64::max),
                velocity_jump_p99: percentile(&mut jumps, 0.99),
                sign_flip_share: flips as f64 / dofs.max(1) as f64,
                local_flip_share: local_flips as f64 / local_dofs.max(1) as f64,
                offset_growth_max: growth.iter().copied().fold(0.0, f64::max),
                offset_growth_p99: percentile(&mut growth, 0.99),
                jerk_ratio_mean,
                residual_max,
                jump_vs_cut_median: 0.0,
                jump_median: percentile(&mut cut_largest.clone(), 0.5),
                joint_growth_p90: percentile(&mut joint_growth, 0.9),
                joint_growth_max: joint_growth.iter().copied().fold(0.0, f64::max),
                major_joint_growth_max: major_joint_growth,
            };
            Ok((quality, cut_largest))
        })
        .collect::<Result<Vec<(Quality, Vec<f64>)>, String>>()?;
    let hard_cut = rows.iter().find(|(q, _)| q.method == Method::HardCut.name()).map(|(_, j)| j.clone());
    for (quality, largest) in &mut rows {
        let mut ratios: Vec<f64> = hard_cut
            .iter()
            .flatten()
            .zip(largest.iter())
            .filter(|&(&cut, _)| cut > 0.0)
            .map(|(&cut, &jump)| jump / cut)
            .collect();
        quality.jump_vs_cut_median = percentile(&mut ratios, 0.5);
    }
    Ok(rows.into_iter().map(|(quality, _)| quality).collect())
}

/// One DOF's offset over `window` (starting at t = 0): whether it crosses to the other side of 0 by more
/// than `FLIP_TOLERANCE · largest`, and its largest magnitude over the first. `None` for offsets under 1% of
/// the cut's largest, whose ratios are noise.
fn flip_and_growth(
    offset: impl Fn(usize) -> f64,
    window: std::ops::RangeInclusive<usize>,
    largest: f64,
) -> Option<(bool, f64)> {
    let x0 = offset(*window.start());
    if largest == 0.0 || x0.abs() <= 0.01 * largest {
        return None;
    }
    let tolerance = FLIP_TOLERANCE * largest;
    let flip = window.clone().any(|f| offset(f) * x0.signum() < -tolerance);
    let growth = window.map(|f| offset(f).abs()).fold(0.0, f64::max) / x0.abs();
    Some((flip, growth))
}

fn sub_f64(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The quality table.
pub fn quality_table(rows: &[Quality], cuts: usize, dt: f32, duration: f32) -> String {
    let mut out =
        format!("{cuts} cuts, {:.0} Hz, transition {duration} s; positions in file units, model space\n", 1.0 / dt);
    out += &format!(
        "{:<19} {:>11} {:>11} {:>9} {:>9} {:>9} {:>9} {:>8} {:>10} {:>9} {:>9} {:>9} {:>9} {:>14}\n",
        "method",
        "vjump max",
        "vjump p99",
        "flips %",
        "local %",
        "grow max",
        "grow p99",
        "jerk ×",
        "residual",
        "jump med",
        "vs cut",
        "jgrow p90",
        "jgrow max",
        "jgrow max≥10%"
    );
    for q in rows {
        out += &format!(
            "{:<19} {:>11.2} {:>11.2} {:>9.2} {:>9.2} {:>9.3} {:>9.3} {:>8.2} {:>10.2e} {:>9.2} {:>9.3} {:>9.3} {:>9.3} {:>14.3}\n",
            q.method,
            q.velocity_jump_max,
            q.velocity_jump_p99,
            100.0 * q.sign_flip_share,
            100.0 * q.local_flip_share,
            q.offset_growth_max,
            q.offset_growth_p99,
            q.jerk_ratio_mean,
            q.residual_max,
            q.jump_median,
            q.jump_vs_cut_median,
            q.joint_growth_p90,
            q.joint_growth_max,
            q.major_joint_growth_max
        );
    }
    out
}

pub fn quality_json(rows: &[Quality], cuts: usize, dt: f32, duration: f32) -> serde_json::Value {
    let methods: Vec<serde_json::Value> = rows
        .iter()
        .map(|q| {
            serde_json::json!({
                "method": q.method,
                "velocity_jump_max": q.velocity_jump_max,
                "velocity_jump_p99": q.velocity_jump_p99,
                "sign_flip_share": q.sign_flip_share,
                "local_flip_share": q.local_flip_share,
                "offset_growth_max": q.offset_growth_max,
                "offset_growth_p99": q.offset_growth_p99,
                "jerk_ratio_mean": q.jerk_ratio_mean,
                "residual_max": q.residual_max,
                "jump_median": q.jump_median,
                "jump_vs_cut_median": q.jump_vs_cut_median,
                "joint_growth_p90": q.joint_growth_p90,
                "joint_growth_max": q.joint_growth_max,
                "major_joint_growth_max": q.major_joint_growth_max,
            })
        })
        .collect();
    serde_json::json!({ "cuts": cuts, "dt": dt, "duration": duration, "methods": methods })
}

/// `{"dt", "switch_frame", "frames": [{"t", "output", "source", "target"}]}`; `t` is seconds from the switch.
pub fn trace_json(trace: &Trace) -> serde_json::Value {
    let frames: Vec<serde_json::Value> = (0..trace.output.len())
        .map(|f| {
            let t = (f as f32 - trace.switch_frame as f32) * trace.dt;
            serde_json::json!({
                "t": t,
                "output": trace.output[f],
                "source": trace.source[f],
                "target": trace.target[f],
            })
        })
        .collect();
    serde_json::json!({ "dt": trace.dt, "switch_frame": trace.switch_frame, "frames": frames })
}
