//! Clip annotations for the baker: a sidecar file of authored markers and ranges, and foot plants detected
//! from the motion.
//!
//! **Sidecar** (`bake --markers FILE`, JSON): clips by name, each with optional `markers` (`name`, `time` in
//! seconds, optional `value`) and `ranges` (`name`, `start`, `end`, optional `value`):
//!
//! ```json
//! { "clips": { "walk": { "markers": [{ "name": "footstep", "time": 0.42, "value": 1 }],
//!                        "ranges":  [{ "name": "warp", "start": 0.1, "end": 0.6 }] } } }
//! ```
//!
//! A clip may also carry scalar curve tracks (`"curves"`: `name`, `precision` in the curve's units, needed with
//! `--compress`, and Hermite `keys` of `time`, `value` and an optional `slope` per second), baked to one value
//! per frame (`raw::RawCurve`):
//!
//! ```json
//! { "clips": { "walk": { "curves": [{ "name": "blink", "precision": 0.001,
//!                                     "keys": [{ "time": 0, "value": 0 }, { "time": 0.3, "value": 1 }] }] } } }
//! ```
//!
//! A clip may also say whether phase matching may enter or leave it at a matched time (`bake --phase`; both by
//! default): `"phase_match": { "in": true, "out": false }`.
//!
//! Unknown keys and clip names not among the baked clips are errors, so a typo does not silently drop data.
//!
//! **Foot plants** (`bake --detect-plants`): for each foot joint, a frame is planted when the foot is within
//! `height` of its lowest point in the clip (along +Y, the up axis of every shared file) and moves slower than
//! `speed` relative to the ground towards the frame before or the frame after (the frame a foot lands or lifts
//! off counts). Plants less than [`MIN_STEP_GAP`] apart are one plant. The ground stands still, unless the clip is played in
//! place (the feet's common ancestor moves on average slower than `speed`): then the ground's velocity is the
//! median horizontal velocity of the lowest foot over the frames where it is that low (the walking speed
//! backwards for a cycle; zero for a character standing). Both thresholds are fractions of the figure's rest height (`height` as a
//! length, `speed` per second), so one setting fits files in centimetres and in metres: 0.03 and 0.25 by
//! default, 5 cm and 42 cm/s on a 1.7 m figure. Each run of at least two planted frames becomes a range
//! `plant:<joint>` and a marker `footstep:<joint>` at its first frame.

use crate::glam_pose::{self, AosPose};
use crate::raw::{RawAnnotations, RawClip, RawMarker, RawRange, RawSkeleton};
use std::collections::BTreeMap;

/// Most bytes a sidecar may have: it holds a few numbers per clip.
pub const MAX_SIDECAR_BYTES: u64 = 16 << 20;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Sidecar {
    clips: BTreeMap<String, RawAnnotations>,
}

/// A JSON sidecar (`what`: its kind, for the error) of at most [`MAX_SIDECAR_BYTES`], parsed; errors name the
/// file.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &std::path::Path, what: &str) -> Result<T, String> {
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let len = std::fs::metadata(path).map_err(|e| at(&e))?.len();
    if len > MAX_SIDECAR_BYTES {
        return Err(at(&format!("{len} bytes; a {what} may have at most {MAX_SIDECAR_BYTES}")));
    }
    let text = std::fs::read_to_string(path).map_err(|e| at(&e))?;
    serde_json::from_str(&text).map_err(|e| at(&e))
}

/// The sidecar at `path`, as one `RawAnnotations` per clip of `clips` (in order).
pub fn read_sidecar(path: &std::path::Path, clips: &[RawClip]) -> Result<Vec<RawAnnotations>, String> {
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut sidecar: Sidecar = read_json(path, "marker file")?;
    let out = clips.iter().map(|c| sidecar.clips.remove(&c.name).unwrap_or_default()).collect();
    if let Some(name) = sidecar.clips.keys().next() {
        let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
        return Err(at(&format!("no clip named {name:?} (clips: {})", names.join(", "))));
    }
    Ok(out)
}

/// Seconds a foot may stir within one plant (motion capture jitters at 120 Hz).
pub const MIN_STEP_GAP: f32 = 0.1;

/// Thresholds of the plant detector, as fractions of the figure's rest height.
#[derive(Clone, Copy, Debug)]
pub struct PlantRule {
    pub height: f32,
    pub speed: f32,
}

impl Default for PlantRule {
    fn default() -> PlantRule {
        PlantRule { height: 0.03, speed: 0.25 }
    }
}

/// Joints named like a foot (`foot`, any case, and not a toe), or those `names` give.
pub fn foot_joints(skeleton: &RawSkeleton, names: &[String]) -> Result<Vec<usize>, String> {
    if names.is_empty() {
        let feet: Vec<usize> = (0..skeleton.names.len())
            .filter(|&j| {
                let n = skeleton.names[j].to_lowercase();
                n.contains("foot") && !n.contains("toe")
            })
            .collect();
        if feet.is_empty() {
            return Err("no joint is named like a foot; name them with --foot".into());
        }
        return Ok(feet);
    }
    names
        .iter()
        .map(|name| skeleton.names.iter().position(|n| n == name).ok_or(format!("no joint named {name:?}")))
        .collect()
}

/// A joint's side by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

/// The side `name` is on and its other side's name, by the conventions engines use: `Left`/`Right` (any case),
/// `_L`/`_R` and `.L`/`.R` at the end, `L_`/`R_` at the start, ` L `/` R ` inside (`Bip01 L Foot`), and `L`/`R`
/// before a capital at the start (`LFoot`).
pub fn side(name: &str) -> Option<(Side, String)> {
    for (a, b) in [("Left", "Right"), ("left", "right"), ("LEFT", "RIGHT")] {
        for (from, to, side) in [(a, b, Side::Left), (b, a, Side::Right)] {
            if name.contains(from) {
                return Some((side, name.replacen(from, to, 1)));
            }
        }
    }
    let chars: Vec<char> = name.chars().collect();
    let n = chars.len();
    let sided = |c: char| matches!(c, 'L' | 'R' | 'l' | 'r');
    let at = if n >= 2 && sided(chars[n - 1]) && matches!(chars[n - 2], '_' | '.') {
        n - 1
    } else if n >= 2 && sided(chars[0]) && chars[1] == '_' {
        0
    } else if let Some(k) =
        (1..n.saturating_sub(1)).find(|&k| chars[k - 1] == ' ' && sided(chars[k]) && chars[k + 1] == ' ')
    {
        k
    } else if n >= 2 && matches!(chars[0], 'L' | 'R') && chars[1].is_ascii_uppercase() {
        0
    } else {
        return None;
    };
    let (side, swapped) = match chars[at] {
        'L' => (Side::Left, 'R'),
        'l' => (Side::Left, 'r'),
        'R' => (Side::Right, 'L'),
        _ => (Side::Right, 'l'),
    };
    let mut other = chars;
    other[at] = swapped;
    Some((side, other.into_iter().collect()))
}

/// The name of `name`'s other side ([`side`]), if it has a side.
pub fn other_side(name: &str) -> Option<String> {
    side(name).map(|(_, other)| other)
}

/// Model-space joint positions of one pose.
pub fn pose_positions(skeleton: &RawSkeleton, pose: &[sinew::math::Transform]) -> Vec<glam::Vec3> {
    let mut model = vec![glam::Mat4::IDENTITY; skeleton.parents.len()];
    glam_pose::local_to_model(&skeleton.parents, &AosPose::new(pose), &mut model);
    model.iter().map(|m| m.w_axis.truncate()).collect()
}

/// Model-space joint positions of every frame of `clip`.
pub fn model_positions(skeleton: &RawSkeleton, clip: &RawClip) -> Vec<Vec<glam::Vec3>> {
    clip.frames.iter().map(|f| pose_positions(skeleton, f)).collect()
}

/// The figure's standing height along +Y (at least the smallest positive `f32`): the unit the detectors'
/// thresholds and every centimetre option scale with. It is the taller of two readings. The first is the rest
/// pose's height. The second is the median frame's height in the clip of `clips` whose median is tallest, where
/// a frame's height is the vertical extent of its joints. Either reading alone can come out short. A rest pose
/// need not stand (Bandai's lies along +X, 100.4 units tall against 137 for its walk's median frame), and a clip
/// may crouch. The median keeps a clip's jumps and raised arms out.
pub fn figure_height(skeleton: &RawSkeleton, clips: &[RawClip]) -> f32 {
    standing_height(skeleton, clips).max(f32::MIN_POSITIVE)
}

/// [`figure_height`] of one clip whose model-space joint positions ([`model_positions`]) are at hand, as the
/// detectors have them: the taller of the rest pose and the clip's median frame.
pub fn clip_figure_height(skeleton: &RawSkeleton, positions: &[Vec<glam::Vec3>]) -> f32 {
    let median = median_height(positions.iter().map(|pose| pose_height(pose)));
    median.max(rest_height(skeleton)).max(f32::MIN_POSITIVE)
}

/// [`figure_height`] before its floor: 0 for a flat figure.
fn standing_height(skeleton: &RawSkeleton, clips: &[RawClip]) -> f32 {
    let median = |clip: &RawClip| {
        let poses = clip.frames.iter().filter(|f| f.len() == skeleton.parents.len());
        median_height(poses.map(|f| pose_height(&pose_positions(skeleton, f))))
    };
    clips.iter().map(median).fold(rest_height(skeleton), f32::max)
}

/// The vertical extent of one pose's joint positions.
fn pose_height(positions: &[glam::Vec3]) -> f64 {
    let ys = positions.iter().map(|p| p.y as f64);
    let (low, high) = ys.fold((f64::MAX, f64::MIN), |(l, h), y| (l.min(y), h.max(y)));
    (high - low).max(0.0)
}

/// The median of `heights` (0 for none).
fn median_height(heights: impl Iterator<Item = f64>) -> f32 {
    let mut heights: Vec<f64> = heights.collect();
    crate::stats::percentile(&mut heights, 0.5) as f32
}

/// The rest pose's height along +Y.
fn rest_height(skeleton: &RawSkeleton) -> f32 {
    let (low, high) = rest_bounds(skeleton);
    high.y - low.y
}

/// The rest pose's joint bounding box in model space (lowest, highest corner).
fn rest_bounds(skeleton: &RawSkeleton) -> (glam::Vec3, glam::Vec3) {
    let rest = pose_positions(skeleton, &skeleton.rest);
    let start = (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN));
    rest.iter().fold(start, |(low, high), p| (low.min(*p), high.max(*p)))
}

/// How a figure's centimetre options and reports scale to its file units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FigureScale {
    /// The rest pose has a height along +Y: centimetres on the figure scaled to 1.7 m.
    Centimetres {
        /// File units per centimetre.
        units_per_cm: f64,
    },
    /// The rest pose is flat along +Y or a single point (a box, one node): errors are reported in file units,
    /// and centimetre options apply as if `size` (the rest pose's largest side, or 1 file unit when it has
    /// none) were 1.7 m.
    FileUnits {
        /// File units taken as 1.7 m.
        size: f64,
    },
}

impl FigureScale {
    /// File units per centimetre of an option given in centimetres.
    pub fn units_per_cm(self) -> f64 {
        match self {
            FigureScale::Centimetres { units_per_cm } => units_per_cm,
            FigureScale::FileUnits { size } => size / crate::dmath::FIGURE_CM,
        }
    }
}

/// The [`FigureScale`] of `skeleton` playing `clips`: centimetres on the figure's standing height
/// ([`figure_height`]) when the rest pose has a height along +Y above a millionth of its largest side, else file
/// units. The rest pose decides because a flat one is no figure: an animated box that hops is not a body to
/// scale to 1.7 m.
pub fn figure_scale(skeleton: &RawSkeleton, clips: &[RawClip]) -> FigureScale {
    let (lo, hi) = rest_bounds(skeleton);
    let side = ((hi - lo).max_element() as f64).max(0.0);
    let rest_height = (hi.y - lo.y) as f64;
    if rest_height > 0.0 && rest_height > 1e-6 * side {
        let height = standing_height(skeleton, clips) as f64;
        FigureScale::Centimetres { units_per_cm: height / crate::dmath::FIGURE_CM }
    } else {
        FigureScale::FileUnits { size: if side > 0.0 { side } else { 1.0 } }
    }
}

/// Joint `joint`'s velocity at frame `f`: a central difference (one-sided at the ends, zero for one frame).
fn velocity_at(positions: &[Vec<glam::Vec3>], joint: usize, f: usize, rate: f32) -> glam::Vec3 {
    let (a, b) = (f.saturating_sub(1), (f + 1).min(positions.len() - 1));
    if b > a { (positions[b][joint] - positions[a][joint]) * rate / (b - a) as f32 } else { glam::Vec3::ZERO }
}

/// The slower of joint `joint`'s one-sided velocities at frame `f` relative to `ground` (a foot that lands or
/// lifts off this frame stands still on one side of it).
fn still_speed(positions: &[Vec<glam::Vec3>], joint: usize, f: usize, rate: f32, ground: glam::Vec3) -> f32 {
    let side = |a: usize, b: usize| ((positions[b][joint] - positions[a][joint]) * rate - ground).length();
    let back = if f > 0 { side(f - 1, f) } else { f32::MAX };
    let ahead = if f + 1 < positions.len() { side(f, f + 1) } else { f32::MAX };
    let slower = back.min(ahead);
    if slower == f32::MAX { 0.0 } else { slower }
}

/// The deepest joint that is an ancestor of (or is) both `a` and `b`; joint 0 when they share none.
pub fn common_ancestor(parents: &[i16], a: usize, b: usize) -> usize {
    let chain = |mut j: usize| {
        let mut out = vec![j];
        while let Some(p) = parents.get(j).and_then(|&p| usize::try_from(p).ok()) {
            out.push(p);
            j = p;
        }
        out
    };
    let up = chain(a);
    chain(b).into_iter().find(|j| up.contains(j)).unwrap_or(0)
}

/// The ground's horizontal velocity in model space for a clip played in place: the median of the lowest
/// foot's horizontal velocity over the frames where it is within `near_ground` of its lowest point (`lowest[i]`
/// for `feet[i]`).
fn ground_velocity(
    positions: &[Vec<glam::Vec3>],
    feet: &[usize],
    lowest: &[f32],
    near_ground: f32,
    rate: f32,
) -> glam::Vec3 {
    let (mut xs, mut zs) = (Vec::new(), Vec::new());
    for (f, p) in positions.iter().enumerate() {
        let Some(i) = (0..feet.len()).min_by(|&a, &b| p[feet[a]].y.total_cmp(&p[feet[b]].y)) else {
            return glam::Vec3::ZERO;
        };
        let low = feet[i];
        if p[low].y - lowest[i] > near_ground {
            continue;
        }
        let v = velocity_at(positions, low, f, rate);
        xs.push(v.x);
        zs.push(v.z);
    }
    let median = |v: &mut Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    glam::Vec3::new(median(&mut xs), 0.0, median(&mut zs))
}

/// Foot plants of `clip` for the joints `feet` (see the module docs), added to `annotations`.
pub fn detect_plants(
    skeleton: &RawSkeleton,
    clip: &RawClip,
    feet: &[usize],
    rule: PlantRule,
    annotations: &mut RawAnnotations,
) -> Result<(), String> {
    if !(rule.height.is_finite() && rule.height >= 0.0 && rule.speed.is_finite() && rule.speed >= 0.0) {
        return Err("plant thresholds must be finite and >= 0".into());
    }
    let positions = model_positions(skeleton, clip);
    let figure = clip_figure_height(skeleton, &positions);
    let frames = positions.len();
    let rate = clip.sample_rate;
    let pelvis = feet.iter().fold(feet.first().copied().unwrap_or(0), |a, &b| common_ancestor(&skeleton.parents, a, b));
    let travel = (0..frames).map(|f| velocity_at(&positions, pelvis, f, rate).with_y(0.0).length()).sum::<f32>();
    let in_place = travel / frames as f32 <= rule.speed * figure;
    let lowest: Vec<f32> =
        feet.iter().map(|&foot| positions.iter().map(|p| p[foot].y).fold(f32::MAX, f32::min)).collect();
    let near_ground = rule.height * figure;
    let ground =
        if in_place { ground_velocity(&positions, feet, &lowest, near_ground, rate) } else { glam::Vec3::ZERO };
    for (&foot, &lowest) in feet.iter().zip(&lowest) {
        let mut planted: Vec<bool> = (0..frames)
            .map(|f| {
                let speed = still_speed(&positions, foot, f, rate, ground);
                positions[f][foot].y - lowest <= near_ground && speed <= rule.speed * figure
            })
            .collect();
        // A foot that stirs for a moment has not stepped: gaps shorter than MIN_STEP_GAP join their plants.
        let gap = (MIN_STEP_GAP * rate).ceil() as usize;
        let mut last_planted = None;
        for f in 0..frames {
            if planted[f] {
                if let Some(l) = last_planted
                    && f - l <= gap
                {
                    planted[l..f].iter_mut().for_each(|p| *p = true);
                }
                last_planted = Some(f);
            }
        }
        let name = &skeleton.names[foot];
        let mut f = 0;
        while f < frames {
            if !planted[f] {
                f += 1;
                continue;
            }
            let start = f;
            while f < frames && planted[f] {
                f += 1;
            }
            if f - start >= 2 {
                let (t0, t1) = (start as f32 / rate, (f - 1) as f32 / rate);
                annotations.ranges.push(RawRange { name: format!("plant:{name}"), start: t0, end: t1, value: 0.0 });
                annotations.markers.push(RawMarker { name: format!("footstep:{name}"), time: t0, value: 0.0 });
            }
        }
    }
    Ok(())
}
