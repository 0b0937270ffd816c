//! The profiler (main job): a crowd of characters through every runtime stage that exists, timed per stage.
//!
//! Each character owns one arena over its slice of a crowd-wide buffer (local pose, model matrices, palette),
//! so "bytes per character" is the arena's high-water mark. Each frame times every stage over the whole crowd;
//! the report takes the median frame per stage. The naive AoS (glam) baseline runs the same crowd in the
//! same process, so ratios come from one run.

use crate::machine::{CacheFlush, Peaks};
use crate::naive::{self, AosClip, AosPose};
pub use crate::workload::Workload;
use sinew::blending::{BlendLayer, BlendingJob, DEFAULT_THRESHOLD};
use sinew::inertialization::{Settings, Shape};
use sinew::math::{Mat3x4, Mat4, SoaTransform, num_soa_joints};
use sinew::{
    Arena, Asset, GroupWalk, InertializationJob, Inertializer, LocalToModelJob, Playback, SamplingContext, SamplingJob,
};
use sinew::{Palette, SkinningJob};
use sinew::{Target, Transition};
use std::time::Instant;

/// What to run: procedural rigs by joint count, plus real files.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub joints: Vec<usize>,
    pub bvh: Vec<std::path::PathBuf>,
    pub gltf: Vec<std::path::PathBuf>,
    /// Baked `.snw` blobs (first clip).
    pub blob: Vec<std::path::PathBuf>,
    /// How every workload's keys are baked.
    pub keys: crate::workload::Keys,
    pub characters: usize,
    pub frames: usize,
    /// Threads for the multi-threaded crowd frame (1 = that measurement is skipped).
    pub threads: usize,
    /// Leave out the motion-matched crowd (`--no-motion-matching`).
    pub skip_motion_matching: bool,
}

/// One stage's cost.
#[derive(Clone, Debug)]
pub struct StageCost {
    pub stage: &'static str,
    pub us_per_character: f64,
    pub ns_per_joint: f64,
    pub bytes_per_character: usize,
    /// The stage's physical lower bound on this machine (`machine` module), when the model covers it and the
    /// stage does not beat it.
    pub lower_bound_ns_per_joint: Option<f64>,
    /// The model's bound was above the measurement, so it is not a bound on this machine and is not reported.
    pub bound_withheld: bool,
    /// What sets the bound ([`crate::machine::Peaks::lower_bound`]): `"compute"`, `"L1"` or `"L2"`, or
    /// `"stages"` for a sum of stages' bounds; `None` without a bound.
    pub bound_by: Option<&'static str>,
}

/// One workload's results.
#[derive(Clone, Debug)]
pub struct RigReport {
    /// `humanoid-256`, or a file name; `(quantized)` or `(compressed)` after it for keys other than `f32`.
    pub rig: String,
    pub joints: usize,
    pub max_depth: usize,
    pub characters: usize,
    pub frames: usize,
    pub stages: Vec<StageCost>,
    pub baseline: Vec<StageCost>,
    pub transition: TransitionFrames,
    pub naive_transition: TransitionFrames,
    /// One character's plain frame, stage by stage, right after a cache flush and again warm.
    pub cold: Vec<StageCost>,
    pub warm: Vec<StageCost>,
    /// The crowd's plain frame on 1..=`threads` threads.
    pub scaling: Vec<ThreadScaling>,
    /// The crowd through the character runtime, against the same kernels wired by hand.
    pub runtime: crate::crowd::RuntimeReport,
    /// The motion-matched crowd, or why the workload has none (no hips or no left and right feet).
    pub matched: Result<crate::matched_crowd::MatchedReport, String>,
}

struct Character<'a> {
    context: SamplingContext<'a>,
    local: &'a mut [SoaTransform],
    model: &'a mut [Mat4],
    palette: &'a mut [Mat3x4],
    /// Transition state: the crossfade's source clip (its own cache) and blend output, and the inertializer.
    source_context: SamplingContext<'a>,
    source_local: &'a mut [SoaTransform],
    blended: &'a mut [SoaTransform],
    inertializer: Inertializer<'a>,
}

/// Bytes one character needs: two sampling contexts (a transition's source and target) keeping the decoders
/// of `decoder_tracks` compressed tracks (0 for other keys), local poses for both and the blend, model
/// matrices, a 3×4 palette and an inertializer.
pub fn character_bytes(num_joints: usize, num_skin_joints: usize, decoder_tracks: usize) -> usize {
    2 * SamplingContext::required_bytes_with_decoders(num_joints, decoder_tracks)
        + 3 * Arena::required_bytes::<SoaTransform>(num_soa_joints(num_joints))
        + LocalToModelJob::required_bytes(num_joints)
        + sinew::Skin::required_bytes::<Mat3x4>(num_skin_joints)
        + Inertializer::required_bytes(num_joints, 0)
}

/// Starts a transition of `inertializer` from `source` (two frames of history) to `target`.
fn start_transition(
    inertializer: &mut Inertializer<'_>,
    source: &[SoaTransform],
    target: &[SoaTransform],
    record: &mut impl FnMut(Result<(), sinew::Error>),
) {
    for _ in 0..2 {
        let pose = Target { pose: source, curves: &[], previous: None };
        record(InertializationJob { inertializer, dt: GAME_DT, target: pose }.run());
    }
    record(inertializer.request(&Transition { duration: TRANSITION_SECONDS, profile: None }));
    let pose = Target { pose: target, curves: &[], previous: Some((target, &[])) };
    record(InertializationJob { inertializer, dt: GAME_DT, target: pose }.run());
}

/// Seconds every transition in the profile lasts: longer than any run, so every timed frame is mid-transition.
const TRANSITION_SECONDS: f32 = 1e4;

/// The Gears of War 4 comparison: a frame during a transition made as a crossfade (sample source and target,
/// blend, local-to-model, skinning matrices) and as inertialization (sample the target, inertialize,
/// local-to-model, skinning matrices).
#[derive(Clone, Debug)]
pub struct TransitionFrames {
    pub crossfade_us: f64,
    pub inertialized_us: f64,
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Times `stage(frame)` once per frame over the crowd; returns the median frame in seconds.
fn time_frames(frames: usize, mut stage: impl FnMut(usize)) -> f64 {
    // Two warm-up frames settle caches and branch predictors.
    stage(0);
    stage(1);
    let mut samples: Vec<f64> = (0..frames)
        .map(|f| {
            let start = Instant::now();
            stage(f + 2);
            start.elapsed().as_secs_f64()
        })
        .collect();
    median(&mut samples)
}

fn cost(stage: &'static str, seconds: f64, characters: usize, joints: usize, bytes: usize) -> StageCost {
    StageCost {
        stage,
        us_per_character: seconds * 1e6 / characters as f64,
        ns_per_joint: seconds * 1e9 / (characters * joints) as f64,
        bytes_per_character: bytes,
        lower_bound_ns_per_joint: None,
        bound_withheld: false,
        bound_by: None,
    }
}

/// Fills each stage's lower bound from the machine model; `frame_total` is the sum of its three stages'.
fn with_lower_bounds(mut stages: Vec<StageCost>, peaks: &Peaks, joints: usize) -> Vec<StageCost> {
    let bound = |stage: &str| peaks.lower_bound(stage, joints);
    for s in &mut stages {
        let modelled = match s.stage {
            "frame_total" => ["sampling", "local_to_model", "skinning_matrices_3x4"]
                .iter()
                .map(|s| bound(s).map(|(ns, _)| ns))
                .sum::<Option<f64>>()
                .map(|ns| (ns, "stages")),
            stage => bound(stage),
        };
        // A stage faster than its bound proves the calibration or the model wrong on this machine: say so
        // rather than print a bound that is not one.
        s.bound_withheld = modelled.is_some_and(|(b, _)| s.ns_per_joint < b);
        let shown = modelled.filter(|_| !s.bound_withheld);
        (s.lower_bound_ns_per_joint, s.bound_by) = (shown.map(|(ns, _)| ns), shown.map(|(_, by)| by));
    }
    stages
}

/// One function per timed sinew stage, never inlined, so `valgrind --tool=callgrind` attributes each stage's
/// instructions to a named symbol (`cargo xtask budgets` reads their inclusive counts).
macro_rules! stage_functions {
    ($($name:ident),*) => {$(
        #[inline(never)]
        pub fn $name(body: impl FnOnce()) {
            let start = Instant::now();
            body();
            injected_slowdown(stringify!($name), start);
        }
    )*};
}

/// `SINEW_INJECT_SLOWDOWN=stage_local_to_model:0.3` makes that stage take 30% longer (busy work, so both the
/// timing and the instruction-count gates see it): how `cargo xtask budgets` is shown to catch a regression.
fn injected_slowdown(stage: &str, start: Instant) {
    static INJECTED: std::sync::OnceLock<Option<(String, f64)>> = std::sync::OnceLock::new();
    let injected = INJECTED.get_or_init(|| {
        let value = std::env::var("SINEW_INJECT_SLOWDOWN").ok()?;
        let (name, fraction) = value.split_once(':')?;
        Some((name.to_string(), fraction.parse().ok()?))
    });
    if let Some((name, fraction)) = injected
        && name == stage
    {
        let until = start.elapsed().mul_f64(1.0 + fraction);
        while start.elapsed() < until {
            std::hint::spin_loop();
        }
    }
}
stage_functions!(
    stage_sampling,
    stage_local_to_model,
    stage_skinning_matrices_3x4,
    stage_source_sampling,
    stage_blend_2_layers,
    stage_inertialization,
    stage_inertialization_continuous
);

/// The game's frame step: characters play their clip at 60 Hz, each from its own start time.
const GAME_DT: f32 = 1.0 / 60.0;

fn character_time(character: usize, frame: usize, duration: f32) -> f32 {
    (character as f32 * 0.37 + frame as f32 * GAME_DT) % duration.max(GAME_DT)
}

/// The crowd's plain frame (sampling, local-to-model, skinning matrices) split over `threads` threads.
#[derive(Clone, Debug)]
pub struct ThreadScaling {
    pub threads: usize,
    pub us_per_frame: f64,
    pub characters_per_ms: f64,
}

const CACHE_LINE: usize = 64;

/// Crowd memory in cache-line-aligned units.
#[derive(Clone, Copy, bytemuck::Zeroable, bytemuck::Pod)]
#[repr(C, align(64))]
struct CacheLine([u8; CACHE_LINE]);

/// Runs the crowd on one workload, with `config`'s characters, frames, threads and crowds.
pub fn profile_workload(w: &Workload, config: &Config, peaks: &Peaks) -> Result<RigReport, String> {
    let (characters, frames, threads) = (config.characters, config.frames, config.threads);
    let blob = sinew_tools::bake::bake(&w.skeleton, std::slice::from_ref(&w.clip), w.keys)?;
    let asset = Asset::load(blob.bytes()).map_err(|e| e.to_string())?;
    let skeleton = asset.skeleton();
    let walk = Some(&GroupWalk::new(skeleton));
    let clip = asset.clip(0).ok_or("baked blob has no clip")?;
    let n = skeleton.num_joints();
    let skin = sinew::Skin::new(n, &w.skin_remap, &w.inverse_bind).map_err(|e| e.to_string())?;
    let duration = clip.duration();

    // Every character's arena starts on a cache line, so its alignment padding (and the high-water mark) does
    // not depend on where the allocator put the crowd.
    // A compressed clip's contexts keep its segment's decoders, as a game playing it would.
    let decoder_tracks = crate::workload::decoder_tracks(&clip);
    let per_character = character_bytes(n, skin.num_joints(), decoder_tracks).next_multiple_of(CACHE_LINE);
    let mut memory = vec![CacheLine([0; CACHE_LINE]); per_character / CACHE_LINE * characters];
    let memory: &mut [u8] = bytemuck::cast_slice_mut(&mut memory);
    let arenas: Vec<Arena> = memory.chunks_mut(per_character).map(Arena::new).collect();
    let mut crowd = Vec::with_capacity(characters);
    for arena in &arenas {
        let err = |e: sinew::Error| e.to_string();
        crowd.push(Character {
            context: SamplingContext::with_decoders(arena, n, decoder_tracks).map_err(err)?,
            local: arena.alloc::<SoaTransform>(skeleton.num_soa_joints()).map_err(err)?,
            model: arena.alloc::<Mat4>(n).map_err(err)?,
            palette: arena.alloc::<Mat3x4>(skin.num_joints()).map_err(err)?,
            source_context: SamplingContext::with_decoders(arena, n, decoder_tracks).map_err(err)?,
            source_local: arena.alloc::<SoaTransform>(skeleton.num_soa_joints()).map_err(err)?,
            blended: arena.alloc::<SoaTransform>(skeleton.num_soa_joints()).map_err(err)?,
            inertializer: Inertializer::new(arena, n, 0, Default::default()).map_err(err)?,
        });
    }
    let bytes = arenas.iter().map(Arena::high_water).max().unwrap_or(0);

    let mut first_error = None;
    let mut record = |r: Result<(), sinew::Error>| {
        if let Err(e) = r {
            first_error.get_or_insert(e);
        }
    };
    let sampling = time_frames(frames, |frame| {
        stage_sampling(|| {
            for (c, ch) in crowd.iter_mut().enumerate() {
                let time = character_time(c, frame, duration);
                let playback = Playback::Loop;
                let (context, output) = (&mut ch.context, &mut *ch.local);
                record(SamplingJob { skeleton, clip: &clip, time, playback, context, output, curves: &mut [] }.run());
            }
        })
    });
    let l2m = time_frames(frames, |_| {
        stage_local_to_model(|| {
            for ch in crowd.iter_mut() {
                record(LocalToModelJob { skeleton, walk, local: ch.local, root: None, model: ch.model }.run());
            }
        })
    });
    let skinning = time_frames(frames, |_| {
        stage_skinning_matrices_3x4(|| {
            for ch in crowd.iter_mut() {
                record(SkinningJob { skin: &skin, model: ch.model, palette: Palette::Rows(ch.palette) }.run());
            }
        })
    });
    // Transitions: the source is the same clip half its length away, sampled through its own context.
    let source_time = |c: usize, frame: usize| (character_time(c, frame, duration) + 0.5 * duration) % duration;
    let source_sampling = time_frames(frames, |frame| {
        stage_source_sampling(|| {
            for (c, ch) in crowd.iter_mut().enumerate() {
                let (context, output) = (&mut ch.source_context, &mut *ch.source_local);
                let time = source_time(c, frame);
                record(
                    SamplingJob {
                        skeleton,
                        clip: &clip,
                        time,
                        playback: Playback::Loop,
                        context,
                        output,
                        curves: &mut [],
                    }
                    .run(),
                );
            }
        })
    });
    let blend = time_frames(frames, |frame| {
        stage_blend_2_layers(|| {
            for ch in crowd.iter_mut() {
                let weight = (frame % 12) as f32 / 12.0;
                let layers = [
                    BlendLayer { pose: ch.source_local, weight: 1.0 - weight, joint_weights: None },
                    BlendLayer { pose: ch.local, weight: weight + 1e-3, joint_weights: None },
                ];
                let (additive, threshold, output) = (&[][..], DEFAULT_THRESHOLD, &mut *ch.blended);
                record(BlendingJob { skeleton, layers: &layers, additive, threshold, output }.run());
            }
        })
    });
    // Every character starts a transition from its source pose (two frames of history) to its target.
    for ch in crowd.iter_mut() {
        start_transition(&mut ch.inertializer, ch.source_local, ch.local, &mut record);
    }
    let inertialization = time_frames(frames, |_| {
        stage_inertialization(|| {
            for ch in crowd.iter_mut() {
                let target = Target { pose: ch.local, curves: &[], previous: None };
                record(InertializationJob { inertializer: &mut ch.inertializer, dt: GAME_DT, target }.run());
            }
        })
    });
    // The velocity-continuous shape is its own compiled loop (`Quintic::eval_shape`), so it is timed and
    // counted apart: the same transitions through inertializers of that shape, in memory of their own (the
    // alternative to the character's, not an addition to its bytes).
    let continuous = Settings { shape: Shape::Continuous, ..Settings::default() };
    let inertializer_bytes = Inertializer::required_bytes(n, 0).next_multiple_of(CACHE_LINE);
    let mut continuous_memory = vec![CacheLine([0; CACHE_LINE]); inertializer_bytes / CACHE_LINE * characters];
    let continuous_arenas: Vec<Arena> = bytemuck::cast_slice_mut::<_, u8>(&mut continuous_memory)
        .chunks_mut(inertializer_bytes)
        .map(Arena::new)
        .collect();
    let mut continuous_inertializers = Vec::with_capacity(characters);
    for (arena, ch) in continuous_arenas.iter().zip(&crowd) {
        let mut inertializer = Inertializer::new(arena, n, 0, continuous).map_err(|e| e.to_string())?;
        start_transition(&mut inertializer, ch.source_local, ch.local, &mut record);
        continuous_inertializers.push(inertializer);
    }
    let inertialization_continuous = time_frames(frames, |_| {
        stage_inertialization_continuous(|| {
            for (inertializer, ch) in continuous_inertializers.iter_mut().zip(&crowd) {
                let target = Target { pose: ch.local, curves: &[], previous: None };
                record(InertializationJob { inertializer, dt: GAME_DT, target }.run());
            }
        })
    });
    // Cold and warm: one character's plain frame, stage by stage, after a flush of the last-level cache and
    // again straight after (warm). Each cold sample costs a pass over twice the LLC, so fewer samples.
    let mut flush = CacheFlush::new(peaks);
    let mut single_frame = |frame: usize, cold: bool| {
        let ch = &mut crowd[0];
        if cold {
            flush.flush();
        }
        let time = character_time(0, frame, duration);
        let start = Instant::now();
        let (context, output) = (&mut ch.context, &mut *ch.local);
        record(
            SamplingJob { skeleton, clip: &clip, time, playback: Playback::Loop, context, output, curves: &mut [] }
                .run(),
        );
        let sampled = Instant::now();
        record(LocalToModelJob { skeleton, walk, local: ch.local, root: None, model: ch.model }.run());
        let modelled = Instant::now();
        record(SkinningJob { skin: &skin, model: ch.model, palette: Palette::Rows(ch.palette) }.run());
        let end = Instant::now();
        [sampled - start, modelled - sampled, end - modelled].map(|d| d.as_secs_f64())
    };
    let single_samples = frames.min(31);
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    for frame in 0..single_samples {
        cold.push(single_frame(frame, true));
        warm.push(single_frame(frame, false));
    }
    let single_costs = |samples: &[[f64; 3]]| {
        let stage = |i: usize| median(&mut samples.iter().map(|s| s[i]).collect::<Vec<_>>());
        let total = median(&mut samples.iter().map(|s| s.iter().sum()).collect::<Vec<_>>());
        let names = ["sampling", "local_to_model", "skinning_matrices_3x4"];
        let mut costs: Vec<StageCost> = names.iter().enumerate().map(|(i, s)| cost(s, stage(i), 1, n, bytes)).collect();
        costs.push(cost("frame_total", total, 1, n, bytes));
        with_lower_bounds(costs, peaks, n)
    };
    let (cold, warm) = (single_costs(&cold), single_costs(&warm));

    // The crowd's plain frame over 1..=threads threads, each thread taking a contiguous share of characters.
    let mut scaling = Vec::new();
    for t in (1..=threads).filter(|&t| threads > 1 && (t == 1 || t == threads || t.is_power_of_two())) {
        let share = characters.div_ceil(t);
        let frame_seconds = time_frames(frames, |frame| {
            let results = std::thread::scope(|scope| {
                let mut handles = Vec::with_capacity(t);
                for (chunk_index, chunk) in crowd.chunks_mut(share).enumerate() {
                    let skin = &skin;
                    let clip = &clip;
                    handles.push(scope.spawn(move || {
                        let mut result = Ok(());
                        for (i, ch) in chunk.iter_mut().enumerate() {
                            let time = character_time(chunk_index * share + i, frame, duration);
                            let (context, output) = (&mut ch.context, &mut *ch.local);
                            let playback = Playback::Loop;
                            result = result
                                .and(
                                    SamplingJob { skeleton, clip, time, playback, context, output, curves: &mut [] }
                                        .run(),
                                )
                                .and(
                                    LocalToModelJob { skeleton, walk, local: ch.local, root: None, model: ch.model }
                                        .run(),
                                )
                                .and(SkinningJob { skin, model: ch.model, palette: Palette::Rows(ch.palette) }.run());
                        }
                        result
                    }));
                }
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect::<Vec<_>>()
            });
            results.into_iter().for_each(&mut record);
        });
        scaling.push(ThreadScaling {
            threads: t,
            us_per_frame: frame_seconds * 1e6,
            characters_per_ms: characters as f64 / (frame_seconds * 1e3),
        });
    }
    if let Some(e) = first_error {
        return Err(e.to_string());
    }

    // The naive AoS baseline on the same clip and skin.
    let aos_clip =
        AosClip { frames: w.clip.frames.iter().map(|f| AosPose::new(f)).collect(), sample_rate: w.clip.sample_rate };
    let mut aos: Vec<AosPose> = (0..characters).map(|_| AosPose::new(&w.skeleton.rest)).collect();
    let inverse_bind: Vec<glam::Mat4> =
        w.inverse_bind.iter().map(|m| glam::Mat4::from_cols_array_2d(&m.to_mat4().cols)).collect();
    let mut aos_model = vec![vec![glam::Mat4::IDENTITY; n]; characters];
    let mut aos_palette = vec![vec![[glam::Vec4::ZERO; 3]; skin.num_joints()]; characters];
    let naive_sampling = time_frames(frames, |frame| {
        for (c, pose) in aos.iter_mut().enumerate() {
            naive::sample(&aos_clip, character_time(c, frame, duration), pose);
        }
    });
    let naive_l2m = time_frames(frames, |_| {
        for (pose, model) in aos.iter().zip(aos_model.iter_mut()) {
            naive::local_to_model(&w.skeleton.parents, pose, model);
        }
    });
    let naive_skinning = time_frames(frames, |_| {
        for (model, palette) in aos_model.iter().zip(aos_palette.iter_mut()) {
            naive::skinning_matrices_3x4(model, &w.skin_remap, &inverse_bind, palette);
        }
    });
    let mut aos_source: Vec<AosPose> = (0..characters).map(|_| AosPose::new(&w.skeleton.rest)).collect();
    let naive_source_sampling = time_frames(frames, |frame| {
        for (c, pose) in aos_source.iter_mut().enumerate() {
            naive::sample(&aos_clip, source_time(c, frame), pose);
        }
    });
    let mut aos_blended: Vec<AosPose> = (0..characters).map(|_| AosPose::new(&w.skeleton.rest)).collect();
    let naive_blend = time_frames(frames, |frame| {
        let weight = (frame % 12) as f32 / 12.0;
        for ((source, target), out) in aos_source.iter().zip(&aos).zip(aos_blended.iter_mut()) {
            naive::blend(&[(source, 1.0 - weight, None), (target, weight + 1e-3, None)], out);
        }
    });
    let aos_curves: Vec<Vec<naive::AosJointCurves>> =
        aos_source.iter().zip(&aos).map(|(s, t)| naive::transition_curves(s, t, TRANSITION_SECONDS)).collect();
    let naive_inertialization = time_frames(frames, |frame| {
        for ((curves, target), out) in aos_curves.iter().zip(&aos).zip(aos_blended.iter_mut()) {
            naive::inertialize(curves, 0.1 + frame as f32 * GAME_DT, target, out);
        }
    });
    let aos_continuous: Vec<Vec<[naive::AosContinuousCurve; 9]>> = aos_source
        .iter()
        .zip(&aos)
        .map(|(s, t)| naive::transition_curves_continuous(s, t, TRANSITION_SECONDS))
        .collect();
    let naive_inertialization_continuous = time_frames(frames, |frame| {
        for ((curves, target), out) in aos_continuous.iter().zip(&aos).zip(aos_blended.iter_mut()) {
            naive::inertialize_continuous(curves, 0.1 + frame as f32 * GAME_DT, target, out);
        }
    });
    std::hint::black_box((&aos_model, &aos_palette));
    // Naive per character: two cached AoS frames are not kept; a pose, model matrices and a palette are.
    let aos_bytes = n * (12 + 16 + 12 + 64) + skin.num_joints() * 48;
    // The report's rows from each stage's median frame (seconds), `frame_total` the sum of the first three.
    let stage_costs = |[sampling, l2m, skinning, source, blend, inertialization, continuous]: [f64; 7],
                       bytes: usize| {
        let rows = [
            ("sampling", sampling),
            ("local_to_model", l2m),
            ("skinning_matrices_3x4", skinning),
            ("frame_total", sampling + l2m + skinning),
            ("source_sampling", source),
            ("blend_2_layers", blend),
            ("inertialization", inertialization),
            ("inertialization_continuous", continuous),
        ];
        rows.into_iter().map(|(stage, seconds)| cost(stage, seconds, characters, n, bytes)).collect::<Vec<_>>()
    };

    let runtime = crate::crowd::measure(w, characters, frames)?;
    let matched = match config.skip_motion_matching {
        false => crate::matched_crowd::measure(w, characters, frames),
        true => Err("skipped (--no-motion-matching)".into()),
    };
    Ok(RigReport {
        runtime,
        matched,
        rig: w.name.clone(),
        joints: n,
        max_depth: skeleton.max_depth(),
        characters,
        frames,
        stages: with_lower_bounds(
            stage_costs(
                [sampling, l2m, skinning, source_sampling, blend, inertialization, inertialization_continuous],
                bytes,
            ),
            peaks,
            n,
        ),
        baseline: stage_costs(
            [
                naive_sampling,
                naive_l2m,
                naive_skinning,
                naive_source_sampling,
                naive_blend,
                naive_inertialization,
                naive_inertialization_continuous,
            ],
            aos_bytes,
        ),
        transition: TransitionFrames {
            crossfade_us: (sampling + source_sampling + blend + l2m + skinning) * 1e6 / characters as f64,
            inertialized_us: (sampling + inertialization + l2m + skinning) * 1e6 / characters as f64,
        },
        naive_transition: TransitionFrames {
            crossfade_us: (naive_sampling + naive_source_sampling + naive_blend + naive_l2m + naive_skinning) * 1e6
                / characters as f64,
            inertialized_us: (naive_sampling + naive_inertialization + naive_l2m + naive_skinning) * 1e6
                / characters as f64,
        },
        cold,
        warm,
        scaling,
    })
}

/// Runs every configured workload.
pub fn run(config: &Config) -> Result<(Vec<RigReport>, Peaks), String> {
    let mut workloads: Vec<Workload> = config.joints.iter().map(|&j| Workload::humanoid(j)).collect();
    for path in &config.bvh {
        workloads.push(Workload::bvh(path)?);
    }
    for path in &config.gltf {
        workloads.push(Workload::gltf(path)?);
    }
    for path in &config.blob {
        workloads.push(Workload::blob(path)?);
    }
    let workloads: Vec<Workload> = workloads.into_iter().map(|w| w.with_keys(config.keys)).collect();
    let peaks = Peaks::measure();
    let reports = workloads.iter().map(|w| profile_workload(w, config, &peaks));
    Ok((reports.collect::<Result<_, _>>()?, peaks))
}

/// CPU model name, for the report header.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// The human-readable table.
pub fn table(reports: &[RigReport], peaks: &Peaks) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "sinew profile — lanes: {}, cpu: {}", sinew::math::lane::BACKEND, cpu_model());
    let _ = writeln!(
        out,
        "machine: {:.0} flops/ns (multiply-add, these lanes), copy {:.0} B/ns in L1, {:.0} B/ns in L2; bound = max(flops, bytes) per the model in machine.rs",
        peaks.flops_per_ns, peaks.l1_bytes_per_ns, peaks.l2_bytes_per_ns
    );
    if let Err(why) = peaks.check_plausible() {
        let _ = writeln!(out, "warning: the machine calibration looks wrong ({why}); bounds may be too");
    }
    for r in reports {
        let _ = writeln!(
            out,
            "\n{}: {} joints (depth {}), {} characters, median of {} frames",
            r.rig, r.joints, r.max_depth, r.characters, r.frames
        );
        let frame_total = r.stages.iter().find(|s| s.stage == "frame_total").map_or(0.0, |s| s.us_per_character);
        let _ = writeln!(
            out,
            "{:<26} {:>8} {:>9} {:>7} {:>10} {:>12} {:>11} {:>12} {:>8}",
            "stage",
            "µs/char",
            "ns/joint",
            "share",
            "bound ns/j",
            "×bound (by)",
            "bytes/char",
            "naive µs/ch",
            "speedup"
        );
        for (s, b) in r.stages.iter().zip(&r.baseline) {
            let bound = s.lower_bound_ns_per_joint;
            let _ = writeln!(
                out,
                "{:<26} {:>8.3} {:>9.2} {:>6.0}% {:>10} {:>12} {:>11} {:>12.3} {:>7.2}x",
                s.stage,
                s.us_per_character,
                s.ns_per_joint,
                100.0 * s.us_per_character / frame_total,
                if s.bound_withheld { "withheld".into() } else { bound.map_or("-".into(), |b| format!("{b:.2}")) },
                bound.map_or("-".into(), |b| format!("{:.1} {}", s.ns_per_joint / b, s.bound_by.unwrap_or(""))),
                s.bytes_per_character,
                b.us_per_character,
                b.us_per_character / s.us_per_character
            );
        }
        let withheld: Vec<&str> = r.stages.iter().filter(|s| s.bound_withheld).map(|s| s.stage).collect();
        if !withheld.is_empty() {
            let _ = writeln!(
                out,
                "bound withheld for {}: the stage ran faster than the model's bound, so that bound (or the machine \
                 calibration above) is wrong here",
                withheld.join(", ")
            );
        }
        let _ = writeln!(out, "one character, cold (after a flush of the last-level cache) vs warm, ns/joint:");
        for (c, w) in r.cold.iter().zip(&r.warm) {
            let _ = writeln!(
                out,
                "  {:<22} cold {:>8.2}  warm {:>7.2}  ({:.1}x)",
                c.stage,
                c.ns_per_joint,
                w.ns_per_joint,
                c.ns_per_joint / w.ns_per_joint
            );
        }
        if let Some(one) = r.scaling.first() {
            for s in &r.scaling {
                let _ = writeln!(
                    out,
                    "crowd frame on {} thread(s): {:.1} µs, {:.0} characters/ms ({:.2}x one thread)",
                    s.threads,
                    s.us_per_frame,
                    s.characters_per_ms,
                    one.us_per_frame / s.us_per_frame
                );
            }
        }
        let _ = writeln!(out, "characters per ms per core (frame_total): {:.0}", 1e3 / frame_total);
        let rt = &r.runtime;
        let _ = writeln!(
            out,
            "character runtime (Character::update: two-clip base, upper-body overlay, synced additive, inertialized transition every 3 s, root motion, palette): {:.3} µs/char vs the same kernels called directly {:.3} µs/char, runtime_overhead {:.3}; {} bytes per character ({:.0} per joint) and one {}-byte scratch for the crowd ({:.0} per joint)",
            rt.character_us,
            rt.direct_us,
            rt.runtime_overhead,
            rt.bytes_per_character,
            rt.bytes_per_joint,
            rt.scratch_bytes,
            rt.scratch_bytes_per_joint
        );
        let _ = writeln!(
            out,
            "post-process (Character::edit_pose: foot planting on both legs over uneven ground, a head look-at, model matrices and palette again): {:.3} µs/char, {:.0}% of the update",
            rt.post_process_us,
            100.0 * rt.post_process_us / rt.character_us
        );
        match &r.matched {
            Ok(m) => {
                let _ = writeln!(
                    out,
                    "motion-matched crowd (Character::match_motion every 0.1 s, staggered, over {} frames × {} dims): updates {:.3} µs/char, matching {:.3} µs/char ({:.1} searches a frame, {:.1} jumps per character-second), search_share {:.1}%",
                    m.database_frames,
                    m.dims,
                    m.update_us,
                    m.matching_us,
                    m.searches_per_frame,
                    m.jumps_per_character_s,
                    100.0 * m.search_share
                );
            }
            Err(why) => {
                let _ = writeln!(out, "motion-matched crowd: none ({why})");
            }
        }
        let stage_us = |name: &str| r.stages.iter().find(|s| s.stage == name).map_or(0.0, |s| s.us_per_character);
        let (inertialize, replaced) =
            (stage_us("inertialization"), stage_us("source_sampling") + stage_us("blend_2_layers"));
        let _ = writeln!(
            out,
            "transition cost, inertializing vs sampling the source and blending (the Gears of War 4 team published 12 µs vs 30 µs on Xbox One, 0.40): {:.3} µs/char vs {:.3}, ratio {:.2}",
            inertialize,
            replaced,
            inertialize / replaced
        );
        let (t, nt) = (&r.transition, &r.naive_transition);
        let _ = writeln!(
            out,
            "whole frame during a transition: crossfade {:.3} µs/char, inertialized {:.3} µs/char, ratio {:.2} (naive AoS {:.2})",
            t.crossfade_us,
            t.inertialized_us,
            t.inertialized_us / t.crossfade_us,
            nt.inertialized_us / nt.crossfade_us
        );
    }
    out
}

/// The machine-readable report.
pub fn json(reports: &[RigReport], peaks: &Peaks) -> serde_json::Value {
    let stage = |s: &StageCost| {
        serde_json::json!({
            "stage": s.stage,
            "us_per_character": s.us_per_character,
            "ns_per_joint": s.ns_per_joint,
            "bytes_per_character": s.bytes_per_character,
            "lower_bound_ns_per_joint": s.lower_bound_ns_per_joint,
            "bound_withheld": s.bound_withheld,
            "bound_by": s.bound_by,
        })
    };
    serde_json::json!({
        "backend": sinew::math::lane::BACKEND,
        "cpu": cpu_model(),
        "machine": {
            "flops_per_ns": peaks.flops_per_ns,
            "l1_copy_bytes_per_ns": peaks.l1_bytes_per_ns,
            "l2_copy_bytes_per_ns": peaks.l2_bytes_per_ns,
        },
        "rigs": reports.iter().map(|r| serde_json::json!({
            "rig": r.rig,
            "joints": r.joints,
            "max_depth": r.max_depth,
            "characters": r.characters,
            "frames": r.frames,
            "stages": r.stages.iter().map(stage).collect::<Vec<_>>(),
            "naive_aos": r.baseline.iter().map(stage).collect::<Vec<_>>(),
            "transition": {
                "crossfade_us_per_character": r.transition.crossfade_us,
                "inertialized_us_per_character": r.transition.inertialized_us,
                "ratio": r.transition.inertialized_us / r.transition.crossfade_us,
                "naive_ratio": r.naive_transition.inertialized_us / r.naive_transition.crossfade_us,
            },
            "cold_single_character": r.cold.iter().map(stage).collect::<Vec<_>>(),
            "warm_single_character": r.warm.iter().map(stage).collect::<Vec<_>>(),
            "runtime": {
                "characters": r.runtime.characters,
                "character_us_per_character": r.runtime.character_us,
                "direct_us_per_character": r.runtime.direct_us,
                "runtime_overhead": r.runtime.runtime_overhead,
                "post_process_us_per_character": r.runtime.post_process_us,
                "bytes_per_character": r.runtime.bytes_per_character,
                "bytes_per_joint": r.runtime.bytes_per_joint,
                "scratch_bytes": r.runtime.scratch_bytes,
                "scratch_bytes_per_joint": r.runtime.scratch_bytes_per_joint,
            },
            "motion_matching": match &r.matched {
                Ok(m) => serde_json::json!({
                    "characters": m.characters,
                    "database_frames": m.database_frames,
                    "dims": m.dims,
                    "update_us_per_character": m.update_us,
                    "matching_us_per_character": m.matching_us,
                    "search_share": m.search_share,
                    "searches_per_frame": m.searches_per_frame,
                    "jumps_per_character_s": m.jumps_per_character_s,
                }),
                Err(why) => serde_json::json!({ "none": why }),
            },
            "threads": r.scaling.iter().map(|s| serde_json::json!({
                "threads": s.threads,
                "us_per_frame": s.us_per_frame,
                "characters_per_ms": s.characters_per_ms,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}
