//! sinew's compressed clips measured as the ACL peer's driver (`../shared/peer/acl/acl_bench.cpp`) measures ACL's,
//! so that `cargo xtask peer` can set the two side by side on the same input.
//!
//! One source (a BVH file, or a procedural rig by name) is baked with `sinew-bake --compress`'s defaults. The
//! report gives its ratio against raw `f32` (40 bytes per joint per frame) and its bound and point distance in
//! file units, to hand to the driver. Three files can be written. The first is the source as ACL's raw clip
//! (`.acl.sjson`): the very `f32` values sinew baked, its rest pose as the bind pose. The second holds the
//! decoded poses at every frame and midpoint, in the driver's `--check-poses` layout, so that one error measure
//! judges both. The third is the median time per full-pose decode on the driver's two sequences: far seeks, and
//! 60 Hz playback.

use crate::bench_support::{playback_time, seek_time};
use sinew::arena::Arena;
use sinew::asset::Asset;
use sinew::math::{SoaTransform, Transform, unpack_soa};
use sinew::sampling::{Playback, SamplingContext, SamplingJob};
use sinew_tools::annotate::figure_scale;
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::compress::{DEFAULT_MAX_ERROR_CM, Precision};
use sinew_tools::dmath::{DEFAULT_DISTANCE_CM, FIGURE_CM};
use sinew_tools::offline::RAW_BYTES_PER_JOINT_FRAME;
use sinew_tools::raw::{RawClip, RawSkeleton};
use sinew_tools::rig::Rig;
use sinew_tools::stats::percentile;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Frames and rate of a procedural rig's clip: the sampling benches' and `sampling_seeks`' clip.
const RIG_FRAMES: usize = 61;
const RIG_RATE: f32 = 30.0;
/// The most timed rounds and decodes per round a request may ask for (the times are held in memory).
pub const MAX_ROUNDS: usize = 1000;
pub const MAX_SAMPLES: u32 = 10_000_000;

/// A timed sequence: the `i`-th time in a clip of `duration` seconds.
type Times = fn(u32, f32) -> f32;

/// What to measure and what to write: `sinew-bench codec`'s arguments.
#[derive(Clone, Debug, clap::Args)]
pub struct CodecRequest {
    /// A BVH file, or `humanoid-N` for the procedural humanoid of N joints (61 frames at 30 Hz).
    pub source: String,
    /// Keep every N-th frame, at 1/N of the rate.
    #[arg(long, default_value_t = 1)]
    pub every: usize,
    /// Write the source, as baked, as ACL's raw clip (`.acl.sjson`).
    #[arg(long, value_name = "FILE")]
    pub acl_clip: Option<PathBuf>,
    /// Write the decoded poses at every frame and midpoint for the driver's `--check-poses`.
    #[arg(long, value_name = "FILE")]
    pub poses: Option<PathBuf>,
    /// Timed rounds of full-pose decodes (far seeks, then 60 Hz playback); 0 times nothing.
    #[arg(long = "bench", value_name = "ROUNDS", default_value_t = 0)]
    pub rounds: usize,
    /// Decodes per round.
    #[arg(long, default_value_t = 20_000)]
    pub samples: u32,
}

/// The source's skeleton and first clip, thinned to every `every`-th frame.
fn load(source: &str, every: usize) -> Result<(RawSkeleton, RawClip), String> {
    let (skeleton, mut clip) = match source.strip_prefix("humanoid-").map(str::parse::<usize>) {
        Some(Ok(joints)) if (1..=sinew::skeleton::MAX_JOINTS).contains(&joints) => {
            let rig = Rig::humanoid(joints);
            (rig.raw_skeleton(), rig.clip(RIG_FRAMES, RIG_RATE))
        }
        Some(_) => return Err(format!("{source}: a rig is `humanoid-N`, N from 1 to {}", sinew::skeleton::MAX_JOINTS)),
        None => {
            let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[source.into()])?;
            (skeleton, clips.into_iter().next().ok_or(format!("{source}: no clip"))?)
        }
    };
    if every == 0 || every >= clip.frames.len() {
        return Err(format!("--every {every}: keep at least two of the clip's {} frames", clip.frames.len()));
    }
    clip.frames = clip.frames.into_iter().step_by(every).collect();
    clip.sample_rate /= every as f32;
    Ok((skeleton, clip))
}

/// Bakes, writes and times as `request` says; the report as JSON: `source`, `joints`, `frames`, `rate`,
/// `figure_height`, `bound`, `distance` (all three in file units), `units_per_cm` (file units per centimetre on
/// the figure scaled to 1.7 m), `bytes`, `ratio`, and with rounds
/// `seek_ns_median` and `play60_ns_median`.
///
/// Errors: rounds or samples past [`MAX_ROUNDS`] and [`MAX_SAMPLES`] (or no samples to time), an unreadable
/// source, a bake that fails, a file that cannot be written.
pub fn measure(request: &CodecRequest) -> Result<serde_json::Value, String> {
    if request.rounds > MAX_ROUNDS {
        return Err(format!("--bench {}: at most {MAX_ROUNDS} rounds", request.rounds));
    }
    if request.rounds > 0 && !(1..=MAX_SAMPLES).contains(&request.samples) {
        return Err(format!("--samples {}: give 1 to {MAX_SAMPLES} decodes a round", request.samples));
    }
    let (skeleton, clip) = load(&request.source, request.every)?;
    let scale = figure_scale(&skeleton, std::slice::from_ref(&clip));
    let precision = Precision::at_scale(scale, DEFAULT_MAX_ERROR_CM, DEFAULT_DISTANCE_CM);
    if let Some(path) = &request.acl_clip {
        write(path, acl_raw_clip(&skeleton, &clip, precision.distance).as_bytes())?;
    }
    let blob = bake::bake(&skeleton, std::slice::from_ref(&clip), KeyFormat::Compressed(precision))?;
    let asset = Asset::load(blob.bytes()).map_err(|e| e.to_string())?;
    let baked = asset.clip(0).ok_or("the bake holds no clip")?;
    let joints = skeleton.parents.len();
    let raw = RAW_BYTES_PER_JOINT_FRAME * joints * clip.frames.len();
    let mut sampler = Sampler::new(&asset)?;
    if let Some(path) = &request.poses {
        write(path, &sampler.decoded_poses(&asset, clip.sample_rate)?)?;
    }
    let mut report = serde_json::json!({
        "source": request.source,
        "joints": joints,
        "frames": clip.frames.len(),
        "rate": clip.sample_rate,
        "figure_height": scale.units_per_cm() * FIGURE_CM,
        "units_per_cm": scale.units_per_cm(),
        "bound": precision.max_error,
        "distance": precision.distance,
        "bytes": baked.data_bytes(),
        "ratio": raw as f64 / baked.data_bytes().max(1) as f64,
    });
    if request.rounds > 0 {
        let duration = baked.duration();
        let sequences: [(&str, Times); 2] = [("seek", seek_time), ("play60", playback_time)];
        for (name, time) in sequences {
            let times: Vec<f32> = (0..request.samples).map(|i| time(i, duration)).collect();
            let mut rounds = Vec::with_capacity(request.rounds);
            for _ in 0..request.rounds {
                rounds.push(sampler.time_decodes(&asset, &times)?);
            }
            report[format!("{name}_ns_median")] = percentile(&mut rounds, 0.5).into();
        }
    }
    Ok(report)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// One decode context, sized for the asset's first clip, and the pose it writes.
struct Sampler {
    memory: Vec<u8>,
    soa: Vec<SoaTransform>,
    joints: usize,
    tracks: usize,
}

impl Sampler {
    fn new(asset: &Asset) -> Result<Sampler, String> {
        let clip = asset.clip(0).ok_or("the bake holds no clip")?;
        let joints = asset.skeleton().num_joints();
        let tracks = clip.num_tracks().iter().sum();
        Ok(Sampler {
            memory: vec![0u8; SamplingContext::required_bytes_with_decoders(joints, tracks)],
            soa: vec![SoaTransform::IDENTITY; asset.skeleton().num_soa_joints()],
            joints,
            tracks,
        })
    }

    /// Runs `each` with a fresh context, so every measurement starts cold as the driver's does.
    fn with_context<T>(
        &mut self,
        each: impl FnOnce(&mut SamplingContext, &mut [SoaTransform]) -> Result<T, String>,
    ) -> Result<T, String> {
        let arena = Arena::new(&mut self.memory);
        let mut context =
            SamplingContext::with_decoders(&arena, self.joints, self.tracks).map_err(|e| e.to_string())?;
        each(&mut context, &mut self.soa)
    }

    /// Poses at every frame and midpoint (`t = step / (2 rate)`, clamped to the clip), per joint `f32`
    /// translation xyz, rotation xyzw, scale xyz: the driver's `--check-poses` file.
    fn decoded_poses(&mut self, asset: &Asset, rate: f32) -> Result<Vec<u8>, String> {
        let clip = asset.clip(0).ok_or("the bake holds no clip")?;
        let steps = 2 * (clip.num_frames() - 1) + 1;
        let mut aos = vec![Transform::IDENTITY; self.joints];
        let mut bytes = Vec::with_capacity(steps * self.joints * 40);
        self.with_context(|context, soa| {
            for step in 0..steps {
                let time = (step as f32 / (2.0 * rate)).min(clip.duration());
                sinew_tools::sample::sample_clamped(asset.skeleton(), &clip, time, context, soa)?;
                unpack_soa(soa, &mut aos).map_err(|e| e.to_string())?;
                for t in &aos {
                    let (p, q, s) = (t.translation, t.rotation, t.scale);
                    for v in [p.x, p.y, p.z, q.x, q.y, q.z, q.w, s.x, s.y, s.z] {
                        bytes.extend_from_slice(&v.to_le_bytes());
                    }
                }
            }
            Ok(())
        })?;
        Ok(bytes)
    }

    /// One round: ns per full-pose decode over `times`, from a cold context.
    fn time_decodes(&mut self, asset: &Asset, times: &[f32]) -> Result<f64, String> {
        let clip = asset.clip(0).ok_or("the bake holds no clip")?;
        let skeleton = asset.skeleton();
        self.with_context(|context, output| {
            let start = Instant::now();
            for &time in times {
                let time = std::hint::black_box(time);
                SamplingJob { skeleton, clip: &clip, time, playback: Playback::Loop, context, output, curves: &mut [] }
                    .run()
                    .map_err(|e| e.to_string())?;
            }
            let elapsed = start.elapsed().as_secs_f64() * 1e9;
            std::hint::black_box(&output[0]);
            Ok(elapsed / times.len().max(1) as f64)
        })
    }
}

/// `clip` on `skeleton` as ACL's raw clip (sjson, version 5): the rest pose as the bind pose, every track's
/// values as the `f32` sinew bakes, written in their shortest round-trip form, and `distance` (file units) as
/// each bone's virtual vertex distance.
pub fn acl_raw_clip(skeleton: &RawSkeleton, clip: &RawClip, distance: f64) -> String {
    let mut out = String::new();
    let quat = |q: sinew::math::Quat| format!("[ {}, {}, {}, {} ]", q.x, q.y, q.z, q.w);
    let xyz = |v: sinew::math::Vec3| format!("[ {}, {}, {} ]", v.x, v.y, v.z);
    let _ = write!(
        out,
        "version = 5\n\nclip =\n{{\n\tname = \"{}\"\n\tnum_samples = {}\n\tsample_rate = {}\n\tis_binary_exact = false\n}}\n\nbones =\n[\n",
        clip.name.replace('"', "'"),
        clip.frames.len(),
        clip.sample_rate
    );
    for (j, rest) in skeleton.rest.iter().enumerate() {
        let parent = usize::try_from(skeleton.parents[j]).map_or(String::new(), |p| skeleton.names[p].clone());
        let _ = write!(
            out,
            "\t{{\n\t\tname = \"{}\"\n\t\tparent = \"{}\"\n\t\tvertex_distance = {}\n\t\tbind_rotation = {}\n\t\tbind_translation = {}\n\t\tbind_scale = {}\n\t}}\n",
            skeleton.names[j].replace('"', "'"),
            parent.replace('"', "'"),
            distance as f32,
            quat(rest.rotation),
            xyz(rest.translation),
            xyz(rest.scale)
        );
    }
    out += "]\n\ntracks =\n[\n";
    for (j, name) in skeleton.names.iter().enumerate() {
        let _ = write!(out, "\t{{\n\t\tname = \"{}\"\n", name.replace('"', "'"));
        for channel in ["rotations", "translations", "scales"] {
            let _ = writeln!(out, "\t\t{channel} =\n\t\t[");
            for frame in &clip.frames {
                let t = &frame[j];
                let value = match channel {
                    "rotations" => quat(t.rotation),
                    "translations" => xyz(t.translation),
                    _ => xyz(t.scale),
                };
                let _ = writeln!(out, "\t\t\t{value}");
            }
            out += "\t\t]\n";
        }
        out += "\t}\n";
    }
    out += "]\n";
    out
}
