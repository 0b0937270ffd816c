//! Root-motion extraction at bake (textbook: the synthetic root bone, linear and arc extraction, variable
//! delta): a joint `motion_root` is put above the skeleton's roots, and every frame splits into where the
//! character goes (the motion root's track) and how it looks (the in-place pose under it).
//!
//! **The ground shadow.** Per frame, the hips' model-space position projected on the ground plane (through the
//! origin, perpendicular to `up`) and the hips' heading: the hips' rest forward axis (the local axis that points
//! along `forward` in the rest pose) under the frame's hips rotation, projected on the ground, as a yaw about
//! `up` from `forward`, unwrapped from frame to frame (the Bandai kick turns +1084°, the dance −1460°).
//!
//! **Methods** (the motion `M(t)` the root carries; the in-place pose keeps the rest):
//! - `Delta`: the ground shadow itself, every frame (the runtime takes frame-to-frame deltas of it).
//! - `Linear`: one constant velocity and yaw rate, `M(t) = (g₀ + v t, yaw₀ + ω t)` with `v = (g_N − g₀) / D` and
//!   `ω = (yaw_N − yaw₀) / D` (unwrapped yaw): the textbook's linear extraction.
//! - `Arc`: a circular arc in the ground plane with the same yaw rate, from the endpoints: turn `Θ = ω D`, chord
//!   `d = g_N − g₀`, arc speed `s = ω |d| / (2 sin(Θ/2))`, leaving along `h = Rot(up, −Θ/2) d̂`;
//!   `M(t) = (g₀ + (s/ω)[sin(ωt) h + (1 − cos ωt)(up × h)], yaw₀ + ω t)`. Where `|Θ| < 1e-6` the arc is the
//!   line; where the chord is shorter than 1e-9 units it turns in place (`s = 0`); where `Θ` is a whole number
//!   of turns (`|sin(Θ/2)| < 1e-6`, the chord says nothing about the radius) translation falls back to the line.
//!
//! **Exactness.** Each old root's local transform becomes `M(t)⁻¹ · local` (computed in `f64`), so `M(t) ·` the
//! in-place pose is the source pose to within `f32` rounding of the stored keys.
//!
//! Space: the source's model space and units. Errors: no hips-like joint, a skeleton that already has a
//! `motion_root`, `up` and `forward` not unit and perpendicular; messages say which.

use crate::dmath::{dquat, dvec3};
use crate::raw::{RawClip, RawSkeleton};
use glam::{DMat4, DQuat, DVec3};
use sinew::math::{Quat, Transform, Vec3};

/// The name of the joint extraction creates (the runtime reads its track as the root motion).
pub use sinew::root_motion::MOTION_ROOT;

/// What the motion root carries (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    Delta,
    Linear,
    Arc,
}

/// How to extract.
#[derive(Clone, Debug)]
pub struct Extraction {
    pub method: Method,
    /// The joint whose ground shadow the root follows; `None`: the first joint whose name contains `hip` or
    /// `pelvis` (any case; parents come first, so the central hips before a left or right hip).
    pub hips: Option<String>,
    /// Unit; default +Y.
    pub up: [f64; 3],
    /// Unit, perpendicular to `up`; default +Z (BVH and glTF characters face +Z).
    pub forward: [f64; 3],
}

impl Default for Extraction {
    fn default() -> Extraction {
        Extraction { method: Method::Delta, hips: None, up: [0.0, 1.0, 0.0], forward: [0.0, 0.0, 1.0] }
    }
}

/// The hips-like joint `options` names, or the first whose name says hips or pelvis.
pub fn hips_joint(skeleton: &RawSkeleton, options: &Extraction) -> Result<usize, String> {
    match &options.hips {
        Some(name) => skeleton.names.iter().position(|n| n == name).ok_or(format!("no joint named `{name}`")),
        None => skeleton
            .names
            .iter()
            .position(|n| {
                let n = n.to_lowercase();
                n.contains("hip") || n.contains("pelvis")
            })
            .ok_or("no hips-like joint (a name containing `hip` or `pelvis`) to extract the motion from; name one with --hips".into()),
    }
}

/// The skeleton with `motion_root` as joint 0 above the old roots, and each clip split into motion (joint 0's
/// track) and in-place pose.
pub fn extract(
    skeleton: &RawSkeleton,
    clips: &[RawClip],
    options: &Extraction,
) -> Result<(RawSkeleton, Vec<RawClip>), String> {
    if skeleton.names.first().is_some_and(|n| n == MOTION_ROOT) {
        return Err(format!("joint 0 is already `{MOTION_ROOT}`: the motion is extracted"));
    }
    if skeleton.parents.len() >= sinew::skeleton::MAX_JOINTS {
        return Err(format!(
            "{} joints: no room for a motion root under sinew's {}",
            skeleton.parents.len(),
            sinew::skeleton::MAX_JOINTS
        ));
    }
    let (up, forward) = (DVec3::from(options.up), DVec3::from(options.forward));
    if !((up.length() - 1.0).abs() < 1e-6 && (forward.length() - 1.0).abs() < 1e-6 && up.dot(forward).abs() < 1e-6) {
        return Err("up and forward must be unit vectors at right angles".into());
    }
    let n = skeleton.parents.len();
    if skeleton.rest.len() != n || skeleton.names.len() != n {
        return Err(format!("{n} parents, {} rest transforms, {} names", skeleton.rest.len(), skeleton.names.len()));
    }
    if let Some(j) = (0..n).find(|&j| skeleton.parents[j] >= j as i16) {
        return Err(format!("joint {j}: its parent {} does not come before it", skeleton.parents[j]));
    }
    if let Some((clip, f)) = clips.iter().find_map(|c| c.frames.iter().position(|f| f.len() != n).map(|f| (c, f))) {
        return Err(format!("clip `{}` frame {f}: {} transforms for {n} joints", clip.name, clip.frames[f].len()));
    }
    let hips = hips_joint(skeleton, options)?;
    // The hips' local axis that points along `forward` in the rest pose.
    let (_, rest_rotation) = model_of(&skeleton.parents, &skeleton.rest, hips);
    let hips_forward = rest_rotation.inverse() * forward;
    let ground = Ground { up, forward };

    let mut out_skeleton = RawSkeleton {
        names: std::iter::once(MOTION_ROOT.to_string()).chain(skeleton.names.iter().cloned()).collect(),
        parents: std::iter::once(-1).chain(skeleton.parents.iter().map(|&p| p + 1)).collect(),
        rest: std::iter::once(Transform::IDENTITY).chain(skeleton.rest.iter().copied()).collect(),
    };
    // Old roots hang under the motion root (a parent of -1 became 0 above).
    out_skeleton.parents[1..].iter_mut().filter(|p| **p < 0).for_each(|p| *p = 0);

    let clips = clips
        .iter()
        .map(|clip| {
            let shadow = ground_shadow(&skeleton.parents, clip, hips, hips_forward, &ground);
            let motion = fit(&shadow, clip.sample_rate as f64, options.method, &ground);
            let frames = clip
                .frames
                .iter()
                .zip(&motion)
                .map(|(frame, &(position, yaw))| {
                    let rotation = DQuat::from_axis_angle(up, yaw);
                    let inverse = rotation.inverse();
                    let root = Transform { translation: vec3(position), rotation: quat(rotation), scale: Vec3::ONE };
                    std::iter::once(root)
                        .chain(frame.iter().zip(&skeleton.parents).map(|(local, &parent)| {
                            if parent >= 0 {
                                return *local;
                            }
                            let t = inverse * (dvec3(local.translation) - position);
                            Transform {
                                translation: vec3(t),
                                rotation: quat(inverse * dquat(local.rotation)),
                                scale: local.scale,
                            }
                        }))
                        .collect()
                })
                .collect();
            RawClip { name: clip.name.clone(), sample_rate: clip.sample_rate, frames, step: clip.step.clone() }
        })
        .collect();
    Ok((out_skeleton, clips))
}

/// The ground plane and the direction yaw 0 faces.
struct Ground {
    up: DVec3,
    forward: DVec3,
}

impl Ground {
    fn project(&self, v: DVec3) -> DVec3 {
        v - self.up * self.up.dot(v)
    }

    /// The yaw about `up` that turns `forward` toward `direction` (already on the ground), or `None` when the
    /// direction is too short to say.
    fn yaw(&self, direction: DVec3) -> Option<f64> {
        let (along, across) = (self.forward.dot(direction), self.up.dot(self.forward.cross(direction)));
        (along.hypot(across) > 1e-9).then(|| across.atan2(along))
    }
}

/// Per frame, the hips' ground position and unwrapped heading.
fn ground_shadow(
    parents: &[i16],
    clip: &RawClip,
    hips: usize,
    hips_forward: DVec3,
    ground: &Ground,
) -> Vec<(DVec3, f64)> {
    let mut previous: Option<f64> = None;
    clip.frames
        .iter()
        .map(|frame| {
            let (position, rotation) = model_of(parents, frame, hips);
            let heading = ground.yaw(ground.project(rotation * hips_forward));
            // Unwrapped: the turn from the last frame is taken in (−π, π]; a vertical heading keeps the last yaw.
            let yaw = match (previous, heading) {
                (Some(last), Some(h)) => last + wrap_angle(h - last),
                (Some(last), None) => last,
                (None, h) => h.unwrap_or(0.0),
            };
            previous = Some(yaw);
            (ground.project(position), yaw)
        })
        .collect()
}

/// `angle` in (−π, π].
fn wrap_angle(angle: f64) -> f64 {
    let wrapped = angle.rem_euclid(std::f64::consts::TAU);
    if wrapped > std::f64::consts::PI { wrapped - std::f64::consts::TAU } else { wrapped }
}

/// The motion per frame: the shadow itself, or the line or arc through its endpoints.
fn fit(shadow: &[(DVec3, f64)], rate: f64, method: Method, ground: &Ground) -> Vec<(DVec3, f64)> {
    let (Some(&(g0, yaw0)), Some(&(g_end, yaw_end))) = (shadow.first(), shadow.last()) else {
        return Vec::new();
    };
    let duration = (shadow.len() - 1) as f64 / rate;
    if method == Method::Delta || duration <= 0.0 {
        return shadow.to_vec();
    }
    let omega = (yaw_end - yaw0) / duration;
    let chord = g_end - g0;
    let turn = omega * duration;
    let arc = method == Method::Arc && turn.abs() >= 1e-6 && (turn / 2.0).sin().abs() >= 1e-6;
    let position = |t: f64| -> DVec3 {
        if !arc {
            return g0 + chord * (t / duration);
        }
        let length = chord.length();
        if length < 1e-9 {
            return g0;
        }
        let heading = DQuat::from_axis_angle(ground.up, -turn / 2.0) * (chord / length);
        let speed = omega * length / (2.0 * (turn / 2.0).sin());
        let side = ground.up.cross(heading);
        g0 + (speed / omega) * ((omega * t).sin() * heading + (1.0 - (omega * t).cos()) * side)
    };
    (0..shadow.len())
        .map(|k| {
            let t = k as f64 / rate;
            (position(t), yaw0 + omega * t)
        })
        .collect()
}

/// Model-space position and rotation of `joint` (scales applied to positions down the chain).
fn model_of(parents: &[i16], locals: &[Transform], joint: usize) -> (DVec3, DQuat) {
    let mut matrix = DMat4::IDENTITY;
    let mut chain = vec![joint];
    while let Some(&j) = chain.last() {
        // Parents come before children (checked by `extract`), so the walk ends.
        match usize::try_from(parents[j]) {
            Ok(parent) if parent < j => chain.push(parent),
            _ => break,
        }
    }
    for &j in chain.iter().rev() {
        let l = &locals[j];
        matrix *= DMat4::from_scale_rotation_translation(dvec3(l.scale), dquat(l.rotation), dvec3(l.translation));
    }
    let (_, rotation, translation) = matrix.to_scale_rotation_translation();
    (translation, rotation)
}

fn vec3(v: DVec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}

fn quat(q: DQuat) -> Quat {
    Quat::new(q.x as f32, q.y as f32, q.z as f32, q.w as f32)
}

/// Where `motion` and `warp` read their clip: a BVH file extracted with a method, or a clip (index or name)
/// of a blob baked with `--root-motion`.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    Bvh(&'a std::path::Path, Method),
    Blob(&'a std::path::Path, &'a str),
}

/// A clip with a motion root, baked for the runtime.
struct Baked {
    blob: crate::raw::AlignedBlob,
    clip: usize,
    /// The hips' joint in the baked skeleton.
    hips: usize,
    rate: f64,
    num_frames: usize,
}

impl Baked {
    fn new(source: Source<'_>) -> Result<Baked, String> {
        match source {
            Source::Bvh(path, method) => {
                let bvh = crate::bvh::Bvh::load(path).map_err(|e| e.to_string())?;
                let (skeleton, clip) = crate::bvh::to_raw(&bvh, "clip")?;
                let options = Extraction { method, ..Extraction::default() };
                let hips = hips_joint(&skeleton, &options)? + 1;
                let (skeleton, clips) = extract(&skeleton, &[clip], &options)?;
                let (rate, num_frames) = (clips[0].sample_rate as f64, clips[0].frames.len());
                let blob = crate::bake::bake(&skeleton, &clips, crate::bake::KeyFormat::F32)?;
                Ok(Baked { blob, clip: 0, hips, rate, num_frames })
            }
            Source::Blob(path, clip) => {
                let blob = crate::blob::read(path)?;
                let asset = sinew::Asset::load(blob.bytes()).map_err(|e| e.to_string())?;
                let skeleton = asset.skeleton();
                if !sinew::root_motion::has_motion_root(skeleton) {
                    return Err(format!("no `{MOTION_ROOT}` joint: bake the blob with --root-motion"));
                }
                let names = RawSkeleton {
                    names: (0..skeleton.num_joints()).map(|j| skeleton.name(j).unwrap_or("").to_string()).collect(),
                    parents: skeleton.parents().to_vec(),
                    rest: Vec::new(),
                };
                let hips = hips_joint(&names, &Extraction::default())?;
                let clip = crate::blob::clip_index(&asset, clip)?;
                let runtime_clip = asset.clip(clip).ok_or("clip missing")?;
                let (rate, num_frames) =
                    (runtime_clip.sample_rate() as f64, crate::blob::uniform_frames(&runtime_clip));
                Ok(Baked { blob, clip, hips, rate, num_frames })
            }
        }
    }

    /// Joint 0's (the motion's) and the hips' model matrices at every frame, through the runtime.
    fn frames(&self) -> Result<Vec<(DMat4, DMat4)>, String> {
        let asset = sinew::Asset::load(self.blob.bytes()).map_err(|e| e.to_string())?;
        (0..self.num_frames).map(|frame| self.at(&asset, (frame as f64 / self.rate) as f32)).collect()
    }

    fn at(&self, asset: &sinew::Asset<'_>, time: f32) -> Result<(DMat4, DMat4), String> {
        let model = crate::pose::model_pose(asset, self.clip, time, sinew::Interpolation::Linear)?;
        let matrix = |j: usize| DMat4::from_cols_array_2d(&model[j].cols.map(|c| c.map(f64::from)));
        Ok((matrix(0), matrix(self.hips)))
    }
}

/// A rigid transform's heading about +Y from +Z, unwrapped against the last one.
#[derive(Default)]
struct Heading {
    last: Option<f64>,
}

impl Heading {
    fn next(&mut self, rotation: DQuat) -> f64 {
        let ground = Ground { up: DVec3::Y, forward: DVec3::Z };
        let yaw = match (self.last, ground.yaw(ground.project(rotation * DVec3::Z))) {
            (Some(last), Some(h)) => last + wrap_angle(h - last),
            (last, h) => h.or(last).unwrap_or(0.0),
        };
        self.last = Some(yaw);
        yaw
    }
}

fn frame_json(t: f64, position: DVec3, yaw: f64, hips: DVec3) -> serde_json::Value {
    serde_json::json!({"t": t, "root": {"position": position.to_array(), "yaw": yaw}, "hips": hips.to_array()})
}

/// Frames of `sinew-bench motion`: the clip (a BVH file's extracted with its method and baked, or a blob's)
/// sampled through the runtime at the clip's rate over `loops` passes. Per frame, `root` is the accumulated motion root in model space
/// (`W_l · M(t)` with `W_l = M(0) · (M(0)⁻¹ M(D))^l · M(0)⁻¹` on pass `l`; yaw unwrapped about +Y) and `hips`
/// the model-space hips position, root ∘ in-place pose (on the first pass, the source's hips).
pub fn motion_json(source: Source<'_>, loops: usize) -> Result<serde_json::Value, String> {
    if loops == 0 || loops > MAX_LOOPS {
        return Err(format!("--loops {loops}: between 1 and {MAX_LOOPS}"));
    }
    let baked = Baked::new(source)?;
    let num_frames = baked.num_frames;
    if num_frames.saturating_sub(1).saturating_mul(loops) > MAX_OUTPUT_FRAMES {
        return Err(format!("{num_frames} frames × {loops} loops: more than {MAX_OUTPUT_FRAMES} output frames"));
    }
    let pass = baked.frames()?;
    let last = num_frames - 1;
    // Each pass starts where the last one ended: carried over by `M(D) · M(0)⁻¹` per pass.
    let per_pass = pass[last].0 * pass[0].0.inverse();
    let mut heading = Heading::default();
    let mut carried = DMat4::IDENTITY;
    let mut frames = Vec::with_capacity(last * loops + 1);
    for k in 0..=last * loops {
        // A pass's last frame is shown as its own end (the source's last frame), not as the next pass's start:
        // the clip need not loop seamlessly in pose.
        let f = if k == 0 { 0 } else { (k - 1) % last.max(1) + 1 };
        if f == 1 && k > 1 {
            carried = per_pass * carried;
        }
        let (motion, hips) = pass[f];
        let (_, rotation, position) = (carried * motion).to_scale_rotation_translation();
        let yaw = heading.next(rotation);
        frames.push(frame_json(k as f64 / baked.rate, position, yaw, (carried * hips).w_axis.truncate()));
    }
    Ok(serde_json::json!({"dt": 1.0 / baked.rate, "frames": frames}))
}

/// Frames of `sinew-bench warp`: the frames of `motion` (one pass) with a warp marker at clip
/// time `at` moved to ground position `(x, z)` facing `yaw` (radians about +Y), translation, rotation and
/// facing all warped over `window` (default `[0, at]`; see `sinew::root_motion::WarpPoint`). `hips` follows
/// the warped root: warped root ∘ in-place pose.
pub fn warp_json(
    source: Source<'_>,
    at: f32,
    [x, z, yaw]: [f32; 3],
    window: Option<[f32; 2]>,
) -> Result<serde_json::Value, String> {
    use sinew::root_motion::{RootMotion, WarpPoint, WarpWindow};
    let baked = Baked::new(source)?;
    // In f32, as the runtime keeps clip time.
    let duration = (baked.num_frames - 1) as f32 / baked.rate as f32;
    if !(at >= 0.0 && at <= duration) {
        return Err(format!("--at {at}: the clip lasts {duration} s"));
    }
    let [start, end] = window.unwrap_or([0.0, at]);
    let pass = baked.frames()?;
    let mut heading = Heading::default();
    let unwarped: Vec<(RootMotion, f64)> = pass
        .iter()
        .map(|(root, _)| {
            let (_, rotation, position) = root.to_scale_rotation_translation();
            let yaw = heading.next(rotation);
            (RootMotion { translation: vec3(position), yaw: yaw as f32 }, yaw)
        })
        .collect();
    // The marker's root, its heading unwrapped against the frame before it.
    let asset = sinew::Asset::load(baked.blob.bytes()).map_err(|e| e.to_string())?;
    let (marker_root, _) = baked.at(&asset, at)?;
    let before = ((at as f64 * baked.rate) as usize).min(baked.num_frames - 1);
    let (_, rotation, position) = marker_root.to_scale_rotation_translation();
    let marker_yaw = Heading { last: Some(unwarped[before].1) }.next(rotation);
    let marker = RootMotion { translation: vec3(position), yaw: marker_yaw as f32 };
    let target = RootMotion { translation: Vec3::new(x, 0.0, z), yaw };
    let window = WarpWindow { start, end };
    let point = WarpPoint::new(marker, target, at, [window; 3])
        .map_err(|e| format!("--to {x},{z},{yaw} --window {start},{end} for a marker at {at} s: {e}"))?;
    let frames: Vec<serde_json::Value> = pass
        .iter()
        .zip(&unwarped)
        .enumerate()
        .map(|(k, ((root, hips), (unwarped, yaw)))| {
            let t = k as f64 / baked.rate;
            let warped = point.apply(*unwarped, t as f32);
            if warped == *unwarped {
                // Before the window: exactly the frame `motion` prints.
                return frame_json(t, root.w_axis.truncate(), *yaw, hips.w_axis.truncate());
            }
            let p = dvec3(warped.translation);
            let world = DMat4::from_rotation_translation(DQuat::from_rotation_y(warped.yaw as f64), p);
            let hips = (world * root.inverse() * *hips).w_axis.truncate();
            frame_json(t, p, warped.yaw as f64, hips)
        })
        .collect();
    Ok(serde_json::json!({"dt": 1.0 / baked.rate, "frames": frames}))
}

/// Most passes `sinew-bench motion` plays.
pub const MAX_LOOPS: usize = 10_000;
/// Most frames `sinew-bench motion` prints.
pub const MAX_OUTPUT_FRAMES: usize = 1_000_000;
