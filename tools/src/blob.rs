//! Baked `.snw` blobs as command-line input: reading one safely, describing it (`sinew-bench inspect`), and
//! turning a clip back into importer form so every subcommand that takes `--bvh`/`--gltf` takes `--blob` too.

use crate::raw::{AlignedBlob, RawClip, RawSkeleton, StepKeys};
use crate::sample::sample_clamped;
use sinew::clip::{Channel, Keys};
use sinew::math::{SoaTransform, Transform, unpack_soa};
use sinew::motion_database::{FRAME_EXCLUDED, FRAME_MIRRORED};
use sinew::{Arena, Asset, SamplingContext};
use std::path::Path;

/// Reads `path` and validates it with `Asset::load`. Errors read `file: what was wrong`, with the loader's own
/// error for a corrupt blob. Files longer than the format's 4 GiB limit are refused before reading.
pub fn read(path: &Path) -> Result<AlignedBlob, String> {
    let what = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let len = std::fs::metadata(path).map_err(|e| what(&e))?.len();
    if len > u32::MAX as u64 {
        return Err(what(&format!("{len} bytes; a sinew blob holds at most {} (its length is a u32)", u32::MAX)));
    }
    let blob = AlignedBlob::read(path).map_err(|e| what(&e))?;
    Asset::load(blob.bytes()).map_err(|e| what(&format!("not a valid sinew blob: {e}")))?;
    Ok(blob)
}

/// A loaded blob (already validated by [`read`]).
pub fn asset(blob: &AlignedBlob) -> Result<Asset<'_>, String> {
    Asset::load(blob.bytes()).map_err(|e| e.to_string())
}

/// `what` in the singular or plural form that `count` needs.
pub fn count(count: usize, what: &str) -> String {
    format!("{count} {what}{}", if count == 1 { "" } else { "s" })
}

/// Bytes of a clip by kind of storage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClipBytes {
    pub keys: usize,
    pub ranges: usize,
    pub constants: usize,
    pub track_joints: usize,
}

/// Everything `inspect` reports, as JSON: skeleton (joints with names, parents, depth), clips (name, frames,
/// rate, duration, encoding, tracks per channel and bytes per kind).
pub fn inspect_json(blob: &AlignedBlob) -> Result<serde_json::Value, String> {
    let asset = asset(blob)?;
    let skeleton = asset.skeleton();
    let joints: Vec<serde_json::Value> = (0..skeleton.num_joints())
        .map(|j| serde_json::json!({"name": skeleton.name(j).unwrap_or(""), "parent": skeleton.parents()[j]}))
        .collect();
    let clips: Vec<serde_json::Value> = (0..asset.num_clips())
        .filter_map(|c| Some((c, asset.clip(c)?)))
        .map(|(c, clip)| {
            let bytes = clip_bytes(&clip);
            let constants = |channel: Channel| clip.constants().iter().filter(|k| k.channel == channel as u16).count();
            let step = StepKeys::of(&clip);
            let tracks = |channel: Channel| {
                let animated = clip.animated_joints(channel);
                let steps = animated.iter().filter(|&&j| step.track(j as usize, channel)).count();
                serde_json::json!({"animated": animated.len(), "step": steps, "constant": constants(channel)})
            };
            serde_json::json!({
                "name": asset.clip_name(c).unwrap_or(""),
                "frames": clip.num_frames(),
                "knots": clip.knots().len(),
                "sample_rate": clip.sample_rate(),
                "duration": clip.duration(),
                "encoding": format!("{:?}", clip.encoding()),
                "tracks": {
                    "translation": tracks(Channel::Translation),
                    "rotation": tracks(Channel::Rotation),
                    "scale": tracks(Channel::Scale),
                },
                "phase": sinew::phase::PhaseTable::of(&asset, c).map(|t| serde_json::json!({
                    "strides": t.strides(),
                    "feet": t.feet().map(|f| skeleton.name(f).unwrap_or("")),
                    "match_in": t.matches_in(),
                    "match_out": t.matches_out(),
                })),
                "bytes": {
                    "keys": bytes.keys,
                    "ranges": bytes.ranges,
                    "constants": bytes.constants,
                    "track_joints": bytes.track_joints,
                    "total": clip.data_bytes(),
                },
                "curves": {
                    "names": asset.curve_names(c).collect::<Vec<_>>(),
                    "encoding": match clip.curves().keys {
                        sinew::clip::CurveKeys::F32(_) => "F32",
                        sinew::clip::CurveKeys::Compressed(_) => "Compressed",
                    },
                    "bytes": clip.curve_bytes(),
                    "step": clip.has_step_curves(),
                },
            })
        })
        .collect();
    Ok(serde_json::json!({
        "bytes": blob.bytes().len(),
        "joints": skeleton.num_joints(),
        "max_depth": skeleton.max_depth(),
        "skeleton": joints,
        "clips": clips,
        "motion_database": asset.motion_database().map(|db| {
            let groups: Vec<serde_json::Value> = db
                .groups()
                .iter()
                .enumerate()
                .map(|(g, group)| serde_json::json!({"name": asset.feature_group_name(g), "dims": group.len}))
                .collect();
            serde_json::json!({
                "frames": db.frames(),
                "dims": db.dims(),
                "groups": groups,
                "excluded": frames_flagged(db, FRAME_EXCLUDED),
                "mirrored": frames_flagged(db, FRAME_MIRRORED),
                "bytes": db.data_bytes(),
            })
        }),
    }))
}

fn clip_bytes(clip: &sinew::Clip<'_>) -> ClipBytes {
    let (keys, ranges) = match clip.keys() {
        Keys::F32(k) => (size_of_val(k), 0),
        Keys::Quantized { keys, ranges } => (size_of_val(keys), size_of_val(ranges)),
        Keys::Compressed(keys) => (keys.data.len(), size_of_val(keys.ranges)),
    };
    let track_joints = size_of_val(clip.track_joints()) + size_of_val(clip.step_tracks());
    ClipBytes { keys, ranges, constants: size_of_val(clip.constants()), track_joints }
}

/// `inspect_json` as text.
pub fn inspect_text(blob: &AlignedBlob) -> Result<String, String> {
    use std::fmt::Write;
    let json = inspect_json(blob)?;
    let clips = json["clips"].as_array().map_or(&[][..], Vec::as_slice);
    let mut out = format!(
        "{} bytes: {} (depth {}), {}\n",
        json["bytes"],
        count(json["joints"].as_u64().unwrap_or(0) as usize, "joint"),
        json["max_depth"],
        count(clips.len(), "clip")
    );
    for (j, joint) in json["skeleton"].as_array().into_iter().flatten().enumerate() {
        let _ =
            writeln!(out, "  joint {j:>4} {:<32} parent {:>4}", joint["name"].as_str().unwrap_or(""), joint["parent"]);
    }
    for clip in clips {
        let tracks = |c: &str| {
            let t = &clip["tracks"][c];
            match t["step"].as_u64().unwrap_or(0) {
                0 => format!("{} animated + {} constant", t["animated"], t["constant"]),
                k => format!("{} animated ({k} step) + {} constant", t["animated"], t["constant"]),
            }
        };
        let b = &clip["bytes"];
        let _ = writeln!(
            out,
            "  clip `{}`: {} frames at {} Hz, {:.4} s, {} keys\n    translation {}, rotation {}, scale {}\n    bytes: keys {}, ranges {}, constants {}, track joints {}, total {}",
            clip["name"].as_str().unwrap_or(""),
            clip["frames"],
            clip["sample_rate"],
            clip["duration"].as_f64().unwrap_or(0.0),
            clip["encoding"].as_str().unwrap_or(""),
            tracks("translation"),
            tracks("rotation"),
            tracks("scale"),
            b["keys"],
            b["ranges"],
            b["constants"],
            b["track_joints"],
            b["total"],
        );
        let curves = &clip["curves"];
        let names: Vec<&str> = curves["names"].as_array().into_iter().flatten().filter_map(|n| n.as_str()).collect();
        if !names.is_empty() {
            let _ = writeln!(
                out,
                "    curves ({} keys{}, {} bytes): {}",
                curves["encoding"].as_str().unwrap_or(""),
                if curves["step"].as_bool() == Some(true) { ", step" } else { "" },
                curves["bytes"],
                names.join(", ")
            );
        }
        let phase = &clip["phase"];
        if !phase.is_null() {
            let _ = writeln!(
                out,
                "    phase: {:.2} strides, feet {} and {}",
                phase["strides"].as_f64().unwrap_or(0.0),
                phase["feet"][0],
                phase["feet"][1]
            );
        }
    }
    Ok(out)
}

/// The blob's skeleton and clip `clip` in importer form: the rest pose, and every frame sampled at its key time
/// through the runtime (`f32` keys come back exactly, quantized ones dequantized).
pub fn raw(blob: &AlignedBlob, clip: usize) -> Result<(RawSkeleton, RawClip), String> {
    let asset = asset(blob)?;
    let skeleton = asset.skeleton();
    let n = skeleton.num_joints();
    let unpack = |soa: &[SoaTransform]| -> Result<Vec<Transform>, String> {
        let mut aos = vec![Transform::IDENTITY; n];
        unpack_soa(soa, &mut aos).map_err(|e| e.to_string())?;
        Ok(aos)
    };
    let raw_skeleton = RawSkeleton {
        names: (0..n).map(|j| skeleton.name(j).map_or_else(|| format!("joint{j}"), str::to_string)).collect(),
        parents: skeleton.parents().to_vec(),
        rest: unpack(skeleton.rest_pose())?,
    };
    let runtime_clip =
        asset.clip(clip).ok_or_else(|| format!("clip {clip}: the blob has {}", count(asset.num_clips(), "clip")))?;
    let mut memory = vec![0u8; SamplingContext::required_bytes(n)];
    let arena = Arena::new(&mut memory);
    let mut context = SamplingContext::new(&arena, n).map_err(|e| e.to_string())?;
    let mut local = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    let rate = runtime_clip.sample_rate();
    let frames = (0..uniform_frames(&runtime_clip))
        .map(|f| {
            let time = (f as f64 / rate as f64) as f32;
            sample_clamped(skeleton, &runtime_clip, time, &mut context, &mut local)?;
            unpack(&local)
        })
        .collect::<Result<Vec<_>, String>>()?;
    let name = asset.clip_name(clip).unwrap_or("clip").to_string();
    Ok((raw_skeleton, RawClip { name, sample_rate: rate, frames, step: StepKeys::of(&runtime_clip) }))
}

/// Frames of `clip` at its rate over its duration: its frame count, or for a clip on knots the uniform frames
/// its knots were fitted from.
pub fn uniform_frames(clip: &sinew::clip::Clip<'_>) -> usize {
    match clip.knots() {
        [] => clip.num_frames(),
        _ => (f64::from(clip.duration()) * f64::from(clip.sample_rate())).round() as usize + 1,
    }
}

/// Clip index from an index or a name (the runtime's `Asset::find_clip`).
pub fn clip_index(asset: &Asset<'_>, clip: &str) -> Result<usize, String> {
    if let Ok(i) = clip.parse::<usize>() {
        return if i < asset.num_clips() {
            Ok(i)
        } else {
            Err(format!("clip {i}: the file has {}", count(asset.num_clips(), "clip")))
        };
    }
    asset.find_clip(clip).ok_or_else(|| {
        let names: Vec<&str> = (0..asset.num_clips()).filter_map(|i| asset.clip_name(i)).collect();
        format!("no clip named `{clip}` (clips: {})", names.join(", "))
    })
}

/// One line for the blob, then one per clip: frames, rate, stored bytes, and bytes per second of animation
/// per joint next to the raw size (10 `f32` per joint per frame).
pub fn summary(blob: &AlignedBlob) -> Result<String, String> {
    use std::fmt::Write;
    let asset = sinew::Asset::load(blob.bytes()).map_err(|e| e.to_string())?;
    let n = asset.skeleton().num_joints();
    let mut out = format!("{}, {}, {} bytes", count(n, "joint"), count(asset.num_clips(), "clip"), blob.bytes().len());
    for i in 0..asset.num_clips() {
        let Some(clip) = asset.clip(i) else { continue };
        let seconds = clip.duration().max(1.0 / clip.sample_rate());
        let per_second_joint = clip.data_bytes() as f64 / seconds as f64 / n as f64;
        let raw = 40.0 * clip.sample_rate() as f64;
        // A clip whose tracks are all rest-pose stores nothing: no ratio to print.
        let ratio = match per_second_joint > 0.0 {
            true => format!("{:.1}x smaller", raw / per_second_joint),
            false => "every track the rest pose".into(),
        };
        let _ = write!(
            out,
            "\n  {}: {} {} {:.3} Hz, {:?} keys, {} bytes, {:.0} B/s/joint (raw {:.0}, {ratio})",
            asset.clip_name(i).unwrap_or(""),
            count(clip.num_frames(), if clip.knots().is_empty() { "frame" } else { "knot" }),
            if clip.knots().is_empty() { "at" } else { "fitted from" },
            clip.sample_rate(),
            clip.encoding(),
            clip.data_bytes(),
            per_second_joint,
            raw,
        );
        let (markers, ranges) = (asset.markers(i).len(), asset.ranges(i).len());
        if markers + ranges > 0 {
            let _ = write!(out, "; {}, {}", count(markers, "marker"), count(ranges, "range"));
        }
        if clip.num_curves() > 0 {
            let _ = write!(out, "; {} ({} bytes)", count(clip.num_curves(), "curve"), clip.curve_bytes());
        }
    }
    if let Some(skin) = asset.skin() {
        let _ = write!(out, "\n  skin: {}", count(skin.num_joints(), "joint"));
    }
    if let Some(db) = asset.motion_database() {
        let _ = write!(
            out,
            "\n  motion database: {} of {} dimensions ({} not entered, {} mirrored), {} bytes",
            count(db.frames(), "frame"),
            db.dims(),
            frames_flagged(db, FRAME_EXCLUDED),
            frames_flagged(db, FRAME_MIRRORED),
            db.data_bytes()
        );
    }
    Ok(out)
}

/// Frames of `db` with `flag` set (`FRAME_EXCLUDED`: a search never jumps to them).
fn frames_flagged(db: &sinew::motion_database::MotionDatabase<'_>, flag: u32) -> usize {
    (0..db.frames()).filter_map(|f| db.entry(f)).filter(|e| e.flags & flag != 0).count()
}
