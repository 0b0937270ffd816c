//! The profiler (main job): a crowd of characters through every runtime stage that exists, timed per stage.
//!
//! Each character owns one arena over its slice of a crowd-wide buffer (local pose, model matrices, palette),
//! so "bytes per character" is the arena's high-water mark. Each frame times every stage over the whole crowd;
//! the report takes the median frame per stage. The naive AoS (glam) baseline runs the same crowd in the
//! same process, so ratios come from one run.

use crate::naive::{self, AosPose};
use crate::rig::Rig;
use sinew::math::{Mat3x4, Mat4, SoaTransform, num_soa_joints, pack_soa};
use sinew::{Arena, LocalToModelJob};
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    pub joints: Vec<usize>,
    pub characters: usize,
    pub frames: usize,
}

/// One stage's cost.
#[derive(Clone, Debug)]
pub struct StageCost {
    pub stage: &'static str,
    pub us_per_character: f64,
    pub ns_per_joint: f64,
    pub bytes_per_character: usize,
}

/// One rig's results.
#[derive(Clone, Debug)]
pub struct RigReport {
    pub joints: usize,
    pub max_depth: usize,
    pub characters: usize,
    pub frames: usize,
    pub stages: Vec<StageCost>,
    pub baseline: Vec<StageCost>,
}

struct Character<'a> {
    local: &'a mut [SoaTransform],
    model: &'a mut [Mat4],
    palette: &'a mut [Mat3x4],
}

/// Bytes one character needs: its local pose, model matrices and 3×4 palette.
pub fn character_bytes(num_joints: usize, num_skin_joints: usize) -> usize {
    Arena::required_bytes::<SoaTransform>(num_soa_joints(num_joints))
        + LocalToModelJob::required_bytes(num_joints)
        + sinew::Skin::required_bytes::<Mat3x4>(num_skin_joints)
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Times `stage` once per frame over the crowd; returns the median frame in seconds.
fn time_frames(frames: usize, mut stage: impl FnMut()) -> f64 {
    // Two warm-up frames settle caches and branch predictors.
    stage();
    stage();
    let mut samples: Vec<f64> = (0..frames)
        .map(|_| {
            let start = Instant::now();
            stage();
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
    }
}

/// Runs the crowd on one procedural rig.
pub fn profile_rig(num_joints: usize, characters: usize, frames: usize) -> Result<RigReport, sinew::Error> {
    let rig = Rig::humanoid(num_joints);
    let n = rig.num_joints();
    let skeleton = rig.skeleton();
    let skin = rig.skin();
    let poses = rig.poses(16);

    let per_character = character_bytes(n, skin.num_joints());
    let mut memory = vec![0u8; per_character * characters];
    let arenas: Vec<Arena> = memory.chunks_mut(per_character).map(Arena::new).collect();
    let mut crowd = Vec::with_capacity(characters);
    for (c, arena) in arenas.iter().enumerate() {
        let character = Character {
            local: arena.alloc::<SoaTransform>(skeleton.num_soa_joints())?,
            model: arena.alloc::<Mat4>(n)?,
            palette: arena.alloc::<Mat3x4>(skin.num_joints())?,
        };
        pack_soa(&poses[c % poses.len()], character.local)?;
        crowd.push(character);
    }
    let bytes = arenas.iter().map(Arena::high_water).max().unwrap_or(0);

    let mut first_error = None;
    let mut record = |r: Result<(), sinew::Error>| {
        if let Err(e) = r {
            first_error.get_or_insert(e);
        }
    };
    let l2m = time_frames(frames, || {
        for ch in crowd.iter_mut() {
            record(LocalToModelJob { skeleton: &skeleton, local: ch.local, root: None, model: ch.model }.run());
        }
    });
    let skinning = time_frames(frames, || {
        for ch in crowd.iter_mut() {
            record(skin.palette_3x4(ch.model, ch.palette));
        }
    });
    if let Some(e) = first_error {
        return Err(e);
    }

    // The naive AoS baseline on the same poses.
    let aos: Vec<AosPose> = (0..characters).map(|c| AosPose::new(&poses[c % poses.len()])).collect();
    let inverse_bind: Vec<glam::Mat4> =
        rig.inverse_bind.iter().map(|m| glam::Mat4::from_cols_array_2d(&m.to_mat4().cols)).collect();
    let mut aos_model = vec![vec![glam::Mat4::IDENTITY; n]; characters];
    let mut aos_palette = vec![vec![[glam::Vec4::ZERO; 3]; skin.num_joints()]; characters];
    let naive_l2m = time_frames(frames, || {
        for (pose, model) in aos.iter().zip(aos_model.iter_mut()) {
            naive::local_to_model(&rig.parents, pose, model);
        }
    });
    let naive_skinning = time_frames(frames, || {
        for (model, palette) in aos_model.iter().zip(aos_palette.iter_mut()) {
            naive::skinning_matrices_3x4(model, &rig.skin_remap, &inverse_bind, palette);
        }
    });
    std::hint::black_box((&aos_model, &aos_palette));
    let aos_bytes = n * (12 + 16 + 12 + 64) + skin.num_joints() * 48;

    Ok(RigReport {
        joints: n,
        max_depth: rig.max_depth(),
        characters,
        frames,
        stages: vec![
            cost("local_to_model", l2m, characters, n, bytes),
            cost("skinning_matrices_3x4", skinning, characters, n, bytes),
            cost("frame_total", l2m + skinning, characters, n, bytes),
        ],
        baseline: vec![
            cost("local_to_model", naive_l2m, characters, n, aos_bytes),
            cost("skinning_matrices_3x4", naive_skinning, characters, n, aos_bytes),
            cost("frame_total", naive_l2m + naive_skinning, characters, n, aos_bytes),
        ],
    })
}

/// Runs every configured rig.
pub fn run(config: &Config) -> Result<Vec<RigReport>, sinew::Error> {
    config.joints.iter().map(|&j| profile_rig(j, config.characters, config.frames)).collect()
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
pub fn table(reports: &[RigReport]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "sinew profile — lanes: {}, cpu: {}", sinew::math::lane::BACKEND, cpu_model());
    for r in reports {
        let _ = writeln!(
            out,
            "\nprocedural humanoid: {} joints (depth {}), {} characters, median of {} frames",
            r.joints, r.max_depth, r.characters, r.frames
        );
        let _ = writeln!(
            out,
            "{:<24} {:>12} {:>10} {:>12} {:>14} {:>9}",
            "stage", "µs/char", "ns/joint", "bytes/char", "naive µs/char", "speedup"
        );
        for (s, b) in r.stages.iter().zip(&r.baseline) {
            let _ = writeln!(
                out,
                "{:<24} {:>12.3} {:>10.2} {:>12} {:>14.3} {:>8.2}x",
                s.stage,
                s.us_per_character,
                s.ns_per_joint,
                s.bytes_per_character,
                b.us_per_character,
                b.us_per_character / s.us_per_character
            );
        }
    }
    out
}

/// The machine-readable report.
pub fn json(reports: &[RigReport]) -> serde_json::Value {
    let stage = |s: &StageCost| {
        serde_json::json!({
            "stage": s.stage,
            "us_per_character": s.us_per_character,
            "ns_per_joint": s.ns_per_joint,
            "bytes_per_character": s.bytes_per_character,
        })
    };
    serde_json::json!({
        "backend": sinew::math::lane::BACKEND,
        "cpu": cpu_model(),
        "rigs": reports.iter().map(|r| serde_json::json!({
            "rig": format!("humanoid-{}", r.joints),
            "joints": r.joints,
            "max_depth": r.max_depth,
            "characters": r.characters,
            "frames": r.frames,
            "stages": r.stages.iter().map(stage).collect::<Vec<_>>(),
            "naive_aos": r.baseline.iter().map(stage).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}
