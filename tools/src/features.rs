//! A motion database's features measured on clips whose root motion is extracted (`bake --root-motion …
//! --motion-database [SCHEMA.json]`).
//!
//! **The character's frame** at frame `f` is the motion root's (joint 0 after extraction): its position on the
//! ground and its heading. Every feature is expressed in it, so a query built the same way from a character
//! anywhere in the world compares directly.
//!
//! **The schema** (JSON, unknown fields refused) lists the features in order, each one group of dimensions with
//! its weight:
//!
//! ```text
//! {"features": [
//!   {"kind": "position", "joint": "LeftFoot", "weight": 0.75},        // 3 dims, file units
//!   {"kind": "velocity", "joint": "Hips", "weight": 1.0},             // 3 dims, file units per second
//!   {"kind": "trajectory_position", "seconds": [0.333, 0.667, 1.0], "weight": 1.0},  // 2 per sample
//!   {"kind": "trajectory_facing", "seconds": [0.333, 0.667, 1.0], "weight": 1.5}     // 2 per sample
//! ]}
//! ```
//!
//! The default (no file) is Holden's 27 dimensions: the left and right feet's positions (0.75) and velocities
//! (1), the hips' velocity (1), and the root's position (1) and facing (1.5) a third, two thirds and one second
//! ahead, at each clip's own rate (10, 20 and 30 frames at 30 Hz). Velocities are central differences (one-sided
//! at the ends); a trajectory sample is the root's ground position (`x`, `z`) or forward axis (`+Z`) that many
//! seconds ahead (behind, for a negative time; clamped to the clip's first frame), in the current frame's
//! character frame.
//!
//! **Flags and tags**: a frame whose trajectory would run past its clip's last frame is `FRAME_EXCLUDED` (the
//! samples clamp there, so it may keep playing but is never jumped to), as is a frame inside an annotation range
//! named `no-entry`; a range named `tag:N` (N in 0..32) sets tag bit N on its frames.
//!
//! Errors: a joint the skeleton lacks, a weight or time that is not finite and positive, a clip shorter than the
//! trajectory's horizon, a skeleton without an extracted motion root; each message names it.

use crate::motion_database::{GroupSpec, OwnedDatabase};
use crate::raw::{RawAnnotations, RawClip, RawSkeleton};
use glam::DVec3;
use sinew::motion_database::{FRAME_EXCLUDED, FrameEntry};

/// One feature of the schema (module docs).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Feature {
    /// A joint's position in the character's frame.
    Position { joint: String, weight: f64 },
    /// A joint's velocity in the character's frame.
    Velocity { joint: String, weight: f64 },
    /// The root's future ground positions in the character's frame.
    TrajectoryPosition { seconds: Vec<f64>, weight: f64 },
    /// The root's future forward axes on the ground in the character's frame.
    TrajectoryFacing { seconds: Vec<f64>, weight: f64 },
}

/// A schema: the features in order.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schema {
    pub features: Vec<Feature>,
}

/// Seconds ahead of Holden's trajectory samples (20, 40 and 60 frames at 60 Hz).
pub const TRAJECTORY_SECONDS: [f64; 3] = [1.0 / 3.0, 2.0 / 3.0, 1.0];

impl Schema {
    /// Holden's 27 dimensions for `skeleton` (module docs): its feet by name, left first, and its hips.
    pub fn default_for(skeleton: &RawSkeleton) -> Result<Schema, String> {
        let [left, right] = crate::phase::left_right_feet(skeleton, &[])?;
        let hips = crate::root_motion::hips_joint(skeleton, &Default::default())?;
        let name = |j: usize| skeleton.names[j].clone();
        let seconds = TRAJECTORY_SECONDS.to_vec();
        Ok(Schema {
            features: vec![
                Feature::Position { joint: name(left), weight: 0.75 },
                Feature::Position { joint: name(right), weight: 0.75 },
                Feature::Velocity { joint: name(left), weight: 1.0 },
                Feature::Velocity { joint: name(right), weight: 1.0 },
                Feature::Velocity { joint: name(hips), weight: 1.0 },
                Feature::TrajectoryPosition { seconds: seconds.clone(), weight: 1.0 },
                Feature::TrajectoryFacing { seconds, weight: 1.5 },
            ],
        })
    }

    /// The schema in the JSON file at `path`.
    pub fn read(path: &std::path::Path) -> Result<Schema, String> {
        crate::annotate::read_json(path, "motion database schema")
    }

    /// Each feature as a named group of dimensions with its weight.
    pub fn groups(&self) -> Vec<GroupSpec> {
        let group = |name: String, dims: usize, weight: f64| GroupSpec { name, dims, weight };
        self.features
            .iter()
            .map(|f| match f {
                Feature::Position { joint, weight } => group(format!("position:{joint}"), 3, *weight),
                Feature::Velocity { joint, weight } => group(format!("velocity:{joint}"), 3, *weight),
                Feature::TrajectoryPosition { seconds, weight } => {
                    group("trajectory_position".into(), 2 * seconds.len(), *weight)
                }
                Feature::TrajectoryFacing { seconds, weight } => {
                    group("trajectory_facing".into(), 2 * seconds.len(), *weight)
                }
            })
            .collect()
    }

    fn horizon(&self) -> f64 {
        let seconds = self.features.iter().flat_map(|f| match f {
            Feature::TrajectoryPosition { seconds, .. } | Feature::TrajectoryFacing { seconds, .. } => &seconds[..],
            _ => &[],
        });
        seconds.copied().fold(0.0, f64::max)
    }
}

/// The features of every frame of `clips` (root motion extracted) by `schema`, normalized and laid out.
pub fn build(
    skeleton: &RawSkeleton,
    clips: &[RawClip],
    annotations: &[RawAnnotations],
    schema: &Schema,
) -> Result<OwnedDatabase, String> {
    let (rows, entries) = rows(skeleton, clips, annotations, schema)?;
    OwnedDatabase::build(&rows, &schema.groups(), &entries).map_err(|e| e.to_string())
}

/// The raw features of every frame of `clips` by `schema`, row after row (one row per frame, clip after clip),
/// and each frame's entry: what [`build`] normalizes.
pub fn rows(
    skeleton: &RawSkeleton,
    clips: &[RawClip],
    annotations: &[RawAnnotations],
    schema: &Schema,
) -> Result<(Vec<f32>, Vec<FrameEntry>), String> {
    if skeleton.names.first().map(String::as_str) != Some(sinew::root_motion::MOTION_ROOT) {
        return Err("a motion database needs the root motion extracted: give --root-motion".into());
    }
    let joint = |name: &str| {
        skeleton.names.iter().position(|n| n == name).ok_or(format!("motion database schema: no joint named `{name}`"))
    };
    for (i, feature) in schema.features.iter().enumerate() {
        let (weight, seconds) = match feature {
            Feature::Position { joint: name, weight } | Feature::Velocity { joint: name, weight } => {
                joint(name)?;
                (*weight, None)
            }
            Feature::TrajectoryPosition { seconds, weight } | Feature::TrajectoryFacing { seconds, weight } => {
                (*weight, Some(&seconds[..]))
            }
        };
        let bad_times = seconds.is_some_and(|s| s.is_empty() || !s.iter().all(|x| x.abs() <= 60.0));
        if !(weight.is_finite() && weight > 0.0) || bad_times {
            return Err(format!(
                "motion database schema: feature {i} needs a positive weight and times in [-60, 60] s"
            ));
        }
    }
    if schema.features.is_empty() {
        return Err("motion database schema: no features".into());
    }
    // Each feature's joint, found once (0, unread, for trajectory features).
    let joints: Vec<usize> = schema
        .features
        .iter()
        .map(|f| match f {
            Feature::Position { joint: name, .. } | Feature::Velocity { joint: name, .. } => joint(name),
            _ => Ok(0),
        })
        .collect::<Result<_, _>>()?;
    let (mut rows, mut entries) = (Vec::new(), Vec::new());
    for (index, clip) in clips.iter().enumerate() {
        let rate = f64::from(clip.sample_rate);
        let horizon = (schema.horizon() * rate).round() as usize;
        let frames = clip.frames.len();
        if frames <= horizon {
            return Err(format!(
                "clip `{}`: {frames} frames, not more than the trajectory's horizon ({horizon} frames at {rate} Hz)",
                clip.name
            ));
        }
        let positions = crate::annotate::model_positions(skeleton, clip);
        let position = |f: usize, j: usize| positions[f][j].as_dvec3();
        let root = |f: usize| {
            let r = clip.frames[f][0];
            (crate::dmath::dvec3(r.translation), crate::dmath::dquat(r.rotation))
        };
        let to_character = |f: usize, v: DVec3| root(f).1.inverse() * v;
        let velocity = |f: usize, j: usize| {
            let (a, b) = (f.saturating_sub(1), (f + 1).min(frames - 1));
            (position(b, j) - position(a, j)) * rate / (b - a) as f64
        };
        let ahead = |f: usize, s: f64| (f as i64 + (s * rate).round() as i64).clamp(0, frames as i64 - 1) as usize;
        let ranges = annotations.get(index).map_or(&[][..], |a| &a.ranges[..]);
        for f in 0..frames {
            for (feature, &j) in schema.features.iter().zip(&joints) {
                match feature {
                    Feature::Position { .. } => {
                        let v = to_character(f, position(f, j) - root(f).0);
                        rows.extend([v.x, v.y, v.z].map(|x| x as f32));
                    }
                    Feature::Velocity { .. } => {
                        let v = to_character(f, velocity(f, j));
                        rows.extend([v.x, v.y, v.z].map(|x| x as f32));
                    }
                    Feature::TrajectoryPosition { seconds, .. } => {
                        for &s in seconds {
                            let v = to_character(f, root(ahead(f, s)).0 - root(f).0);
                            rows.extend([v.x as f32, v.z as f32]);
                        }
                    }
                    Feature::TrajectoryFacing { seconds, .. } => {
                        for &s in seconds {
                            let v = to_character(f, root(ahead(f, s)).1 * DVec3::Z);
                            rows.extend([v.x as f32, v.z as f32]);
                        }
                    }
                }
            }
            let time = f as f32 / clip.sample_rate;
            let mut entry = FrameEntry { clip: index as u32, time, tags: 0, flags: 0 };
            if f + horizon > frames - 1 {
                entry.flags |= FRAME_EXCLUDED;
            }
            for range in ranges.iter().filter(|r| (r.start..=r.end).contains(&time)) {
                match (range.name.as_str(), range.name.strip_prefix("tag:").map(str::parse::<u32>)) {
                    ("no-entry", _) => entry.flags |= FRAME_EXCLUDED,
                    (_, Some(Ok(bit))) if bit < 32 => entry.tags |= 1 << bit,
                    (_, Some(_)) => {
                        return Err(format!("clip `{}`: range `{}`: give tag:0 to tag:31", clip.name, range.name));
                    }
                    _ => {}
                }
            }
            entries.push(entry);
        }
    }
    Ok((rows, entries))
}
