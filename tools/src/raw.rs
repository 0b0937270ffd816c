//! What the importers produce and the baker consumes: skeletons and clips as AoS transforms per joint and frame,
//! their annotations, curves, phases and skin, and the aligned bytes a blob is kept in. The bottom of the tools:
//! it imports nothing above the f64 helpers.

use crate::dmath::Trs;
use sinew::asset::ALIGN;
use sinew::clip::{Channel, MIN_KEY_MAGNITUDE};
use sinew::math::Transform;

/// A skeleton as importers produce it: parents first, rest pose AoS.
#[derive(Clone, Debug)]
pub struct RawSkeleton {
    pub names: Vec<String>,
    pub parents: Vec<i16>,
    pub rest: Vec<Transform>,
}

/// A clip sampled at a uniform rate: `frames[f][joint]` is the local transform at `f / sample_rate` seconds.
#[derive(Clone, Debug)]
pub struct RawClip {
    pub name: String,
    pub sample_rate: f32,
    pub frames: Vec<Vec<Transform>>,
    /// Which values hold each frame until the next replaces it (glTF STEP samplers) rather than interpolate.
    pub step: StepKeys,
}

/// Which of a clip's values step: hold each frame until the next replaces it at its time (glTF's STEP
/// samplers), where the others interpolate between frames.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum StepKeys {
    /// Every track and curve interpolates.
    #[default]
    None,
    /// Every track and curve steps: baked as a clip with step keys (`sinew::clip::Clip::with_step_keys`).
    All,
    /// Per joint, whether its translation, rotation and scale step, and whether the curves do: baked as step
    /// tracks (`Clip::with_step_tracks`) and step curves (`Clip::with_step_curves`).
    Some { channels: Vec<[bool; 3]>, curves: bool },
}

impl StepKeys {
    /// What a runtime clip steps.
    pub fn of(clip: &sinew::clip::Clip<'_>) -> StepKeys {
        if clip.has_step_keys() {
            return StepKeys::All;
        }
        if clip.step_tracks().is_empty() && !clip.has_step_curves() {
            return StepKeys::None;
        }
        let mut channels = vec![[false; 3]; clip.num_joints()];
        let [t, r, _] = clip.num_tracks();
        for &track in clip.step_tracks() {
            let track = track as usize;
            let channel = (track >= t) as usize + (track >= t + r) as usize;
            channels[clip.track_joints()[track] as usize][channel] = true;
        }
        StepKeys::Some { channels, curves: clip.has_step_curves() }
    }

    /// The tracks of a baked clip that step, as `Clip::with_step_tracks` lists them: indices into
    /// `track_joints`, whose first `num_tracks[0]` are translations, then rotations, then scales.
    pub fn step_tracks(&self, track_joints: &[u16], [t, r, _]: [u32; 3]) -> Vec<u16> {
        if !matches!(self, StepKeys::Some { .. }) {
            return Vec::new();
        }
        let channel = |k: usize| Channel::ALL[(k >= t as usize) as usize + (k >= (t + r) as usize) as usize];
        (0..track_joints.len())
            .filter(|&k| self.track(track_joints[k] as usize, channel(k)))
            .map(|k| k as u16)
            .collect()
    }

    /// Whether `joint`'s `channel` steps.
    pub fn track(&self, joint: usize, channel: Channel) -> bool {
        match self {
            StepKeys::None => false,
            StepKeys::All => true,
            StepKeys::Some { channels, .. } => channels.get(joint).is_some_and(|c| c[channel as usize]),
        }
    }

    /// Whether the curves step.
    pub fn curves(&self) -> bool {
        match self {
            StepKeys::None => false,
            StepKeys::All => true,
            StepKeys::Some { curves, .. } => *curves,
        }
    }
}

/// `frames` (`frame_step` seconds apart) at `time` as the runtime samples them, in f64: translations and
/// scales lerped, rotations nlerped on the shorter arc, and the values `step` names held at the frame reached.
pub fn sample_frames(frames: &[Vec<Transform>], frame_step: f64, time: f64, step: &StepKeys) -> Vec<Trs> {
    let [lerped, held] = [false, true].map(|hold| runtime_position(frames.len(), frame_step, time, hold));
    let at = |(f0, f1, u): (usize, usize, f64), joint: usize| {
        Trs::lerp(&Trs::of(&frames[f0][joint]), &Trs::of(&frames[f1][joint]), u)
    };
    (0..frames.first().map_or(0, Vec::len))
        .map(|joint| {
            let lerp = at(lerped, joint);
            let steps = Channel::ALL.map(|channel| step.track(joint, channel));
            if !steps.contains(&true) {
                return lerp;
            }
            let hold = at(held, joint);
            let pick = |c: usize| if steps[c] { &hold } else { &lerp };
            Trs { translation: pick(0).translation, rotation: pick(1).rotation, scale: pick(2).scale }
        })
        .collect()
}

/// Where the runtime samples `time` in `frames` frames `frame_step` seconds apart: the frame before, the frame
/// after and the fraction between them; with step keys the frame reached, within the runtime's snap
/// (`sampling::SNAP_ULPS` of the frame coordinate, at least `sampling::MIN_FRACTION`), twice and no fraction.
pub fn runtime_position(frames: usize, frame_step: f64, time: f64, step: bool) -> (usize, usize, f64) {
    use sinew::sampling::{MIN_FRACTION, SNAP_ULPS};
    let last = frames.saturating_sub(1);
    let position = if frame_step > 0.0 { (time / frame_step).clamp(0.0, last as f64) } else { 0.0 };
    if step {
        let snap = (position * SNAP_ULPS as f64).max(MIN_FRACTION as f64);
        let held = ((position + snap).floor() as usize).min(last);
        return (held, held, 0.0);
    }
    let f = (position.floor() as usize).min(last);
    (f, (f + 1).min(last), (position - f as f64).min(1.0))
}

impl RawClip {
    /// The clip resampled to `rate` Hz over the same duration (its last frame at the last whole step), each
    /// frame as the runtime samples the clip there ([`sample_frames`]); its step keys stay step keys.
    ///
    /// Errors: a rate outside the runtime's range, a clip without frames or too long at that rate.
    pub fn resampled(&self, rate: f32) -> Result<RawClip, String> {
        let duration = (self.frames.len().max(1) - 1) as f64 / self.sample_rate as f64;
        let count = (duration * rate as f64 + 1e-9).floor() + 1.0;
        let joints = self.frames.first().map_or(0, Vec::len);
        check_clip_shape(count, rate as f64, joints)?;
        if self.frames.is_empty() {
            return Err(format!("clip `{}` has no frames", self.name));
        }
        let last = self.frames.len() - 1;
        let frames = (0..count as usize)
            .map(|k| {
                let x = (k as f64 / rate as f64 * self.sample_rate as f64).min(last as f64);
                sample_frames(&self.frames, 1.0, x, &self.step).into_iter().map(Trs::to_transform).collect()
            })
            .collect();
        Ok(RawClip { name: self.name.clone(), sample_rate: rate, frames, step: self.step.clone() })
    }
}

/// Most joint-frames (frames × joints) an importer builds in memory for one clip: 2^22 transforms (160 MiB;
/// 31 joints for 19 minutes at 120 Hz).
/// The runtime's own limits (`sinew::clip::MAX_DURATION`, the sample-rate range) come first.
pub const MAX_JOINT_FRAMES: usize = 1 << 22;

/// Checks a clip's shape before anything is allocated for it: `num_frames` (given as `f64` so that absurd
/// counts are compared, not overflowed) at `rate` Hz for `num_joints` joints. Errors say which limit fails.
pub fn check_clip_shape(num_frames: f64, rate: f64, num_joints: usize) -> Result<(), String> {
    use sinew::clip::{MAX_DURATION, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE};
    if !(MIN_SAMPLE_RATE as f64..=MAX_SAMPLE_RATE as f64).contains(&rate) {
        return Err(format!("a rate of {rate:.6e} Hz is outside {MIN_SAMPLE_RATE}..={MAX_SAMPLE_RATE} Hz"));
    }
    let duration = (num_frames - 1.0).max(0.0) / rate;
    if duration > MAX_DURATION as f64 {
        return Err(format!("the clip lasts {duration:.6e} s; at most {MAX_DURATION} s"));
    }
    if num_frames * num_joints as f64 > MAX_JOINT_FRAMES as f64 {
        return Err(format!(
            "{num_frames} frames × {num_joints} joints exceed the importer's {MAX_JOINT_FRAMES} joint-frames"
        ));
    }
    Ok(())
}

/// Bytes with the 16-byte alignment `sinew::Asset::load` needs (a `Vec<u8>` guarantees only 1).
#[derive(Clone, Debug, Default)]
pub struct AlignedBlob {
    words: Vec<[u128; 1]>,
    len: usize,
}

impl AlignedBlob {
    pub fn from_bytes(bytes: &[u8]) -> AlignedBlob {
        let mut words = vec![[0u128; 1]; bytes.len().div_ceil(16)];
        bytemuck::cast_slice_mut::<_, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        AlignedBlob { words, len: bytes.len() }
    }

    pub fn read(path: &std::path::Path) -> std::io::Result<AlignedBlob> {
        Ok(AlignedBlob::from_bytes(&std::fs::read(path)?))
    }

    pub fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice::<_, u8>(&self.words)[..self.len]
    }

    /// Mutable bytes, for tests that corrupt a blob.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut bytemuck::cast_slice_mut::<_, u8>(&mut self.words)[..self.len]
    }
}

const _: () = assert!(std::mem::align_of::<u128>() >= ALIGN);

/// The four components of one channel of a transform (`w = 0` for translation and scale).
pub fn channel_value(t: &Transform, channel: Channel) -> [f32; 4] {
    match channel {
        Channel::Translation => [t.translation.x, t.translation.y, t.translation.z, 0.0],
        Channel::Rotation => [t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w],
        Channel::Scale => [t.scale.x, t.scale.y, t.scale.z, 0.0],
    }
}

/// `v`, or 0 when it is below `sinew::clip::MIN_KEY_MAGNITUDE` in magnitude (stored values have no denormals).
pub fn flush(v: f32) -> f32 {
    if v.abs() < MIN_KEY_MAGNITUDE { 0.0 } else { v }
}

/// A marker of a clip (see `sinew::asset::Marker`).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct RawMarker {
    pub name: String,
    pub time: f32,
    #[serde(default)]
    pub value: f32,
}

/// A range of a clip (see `sinew::asset::Range`).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct RawRange {
    pub name: String,
    pub start: f32,
    pub end: f32,
    #[serde(default)]
    pub value: f32,
}

/// One clip's annotations.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAnnotations {
    #[serde(default)]
    pub markers: Vec<RawMarker>,
    #[serde(default)]
    pub ranges: Vec<RawRange>,
    /// Whether phase matching may enter (`in`) or leave (`out`) the clip at a matched time; both by default.
    #[serde(default)]
    pub phase_match: Option<RawPhaseMatch>,
    /// Scalar curve tracks, stored one value per frame of the clip.
    #[serde(default)]
    pub curves: Vec<RawCurve>,
}

/// A scalar curve track of a clip (blend-shape weight, IK weight, speed): a Hermite curve through authored keys
/// (`sinew::curve`), baked to its value at each frame of the clip.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCurve {
    pub name: String,
    /// The most a compressed value may differ from the baked one, in the curve's units; needed to compress.
    #[serde(default)]
    pub precision: Option<f32>,
    pub keys: Vec<RawCurveKey>,
}

/// A key of a [`RawCurve`]: time (seconds), value, slope (value units per second, 0 by default).
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCurveKey {
    pub time: f32,
    pub value: f32,
    #[serde(default)]
    pub slope: f32,
}

impl RawCurve {
    /// A curve that takes `values[f]` at frame `f` of a clip at `sample_rate` Hz (a key at every frame).
    pub fn from_frames(name: &str, precision: Option<f32>, sample_rate: f32, values: &[f32]) -> RawCurve {
        let keys = values
            .iter()
            .enumerate()
            .map(|(f, &value)| RawCurveKey { time: f as f32 / sample_rate, value, slope: 0.0 })
            .collect();
        RawCurve { name: name.into(), precision, keys }
    }

    /// The curve's value at each frame of `clip` (frame `f` at `f / sample_rate` seconds), zero for values
    /// below `MIN_KEY_MAGNITUDE`. One key holds its value throughout.
    ///
    /// Errors: no keys, a key with a NaN or infinite field, times not strictly increasing, a value past
    /// `sinew::limits::MAX_CURVE_MAGNITUDE` at some frame, a precision that is not finite and positive.
    pub fn frame_values(&self, clip: &RawClip) -> Result<Vec<f32>, String> {
        let at = |e: &str| format!("clip {}: curve {:?}: {e}", clip.name, self.name);
        if let Some(p) = self.precision.filter(|p| !(p.is_finite() && *p > 0.0)) {
            return Err(at(&format!("precision {p}: give a finite number > 0")));
        }
        let keys: Vec<sinew::curve::CurveKey> =
            self.keys.iter().map(|k| sinew::curve::CurveKey { time: k.time, value: k.value, slope: k.slope }).collect();
        let value: Box<dyn Fn(f32) -> f32> = match keys.as_slice() {
            [] => return Err(at("no keys")),
            [one] if one.time.is_finite() && one.value.is_finite() && one.slope.is_finite() => {
                let v = one.value;
                Box::new(move |_| v)
            }
            _ => {
                let curve = sinew::curve::Curve::new(&keys)
                    .map_err(|e| at(&format!("{e} (keys need finite fields and increasing times)")))?;
                Box::new(move |t| curve.value(t))
            }
        };
        (0..clip.frames.len())
            .map(|f| {
                let v = value(f as f32 / clip.sample_rate);
                let most = sinew::limits::MAX_CURVE_MAGNITUDE;
                if !v.is_finite() || v.abs() > most {
                    return Err(at(&format!("its value at frame {f} is {v}: not finite, or past ±{most:e}")));
                }
                Ok(flush(v))
            })
            .collect()
    }
}

/// A clip's phase-matching flags (Just Cause 3: a transition clip may match on blend in only, or out only, so
/// the match does not skip its most important part).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPhaseMatch {
    #[serde(rename = "in")]
    pub enter: bool,
    #[serde(rename = "out")]
    pub leave: bool,
}

impl RawPhaseMatch {
    /// `PhaseRecord::flags`.
    pub fn flags(self) -> u32 {
        u32::from(self.enter) * sinew::asset::MATCH_IN + u32::from(self.leave) * sinew::asset::MATCH_OUT
    }
}

/// A skin: the skeleton joint each skin joint follows, and its inverse bind matrix.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawSkin {
    pub remap: Vec<u16>,
    pub inverse_bind: Vec<sinew::math::Mat3x4>,
}

/// What a blob holds besides the skeleton and clips: per-clip annotations (none, or one per clip) and a skin.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    pub annotations: Vec<RawAnnotations>,
    pub skin: Option<RawSkin>,
    /// None, or one per clip (`None` for a clip without a phase).
    pub phases: Vec<Option<RawPhase>>,
    /// None, or one per clip: for a chunk of a clip split by bone masks (`crate::chunks`), the joints it stores
    /// tracks for, the others elided as rest (`None`: every joint).
    pub masks: Vec<Option<Vec<bool>>>,
    /// None, or one per clip: for a clip fitted with non-uniform knots (`crate::knots`), its frames' times in
    /// seconds, one per frame (`None`: uniform frames at the clip's rate).
    pub knots: Vec<Option<Vec<f32>>>,
    /// The motion database searched over the clips (`crate::features`), if any.
    pub motion_database: Option<crate::motion_database::OwnedDatabase>,
}

impl Extras {
    /// Clip `index`'s knot times, if it has any.
    pub fn knots(&self, index: usize) -> Option<&[f32]> {
        self.knots.get(index).and_then(Option::as_deref)
    }
}

/// A clip's stride phase table (see `sinew::phase` and `sinew::asset::PhaseRecord`).
#[derive(Clone, Debug, PartialEq)]
pub struct RawPhase {
    /// Unwrapped phase per frame.
    pub forward: Vec<f32>,
    /// Clip time at unwrapped phase `forward[0] + k / per_stride`.
    pub inverse: Vec<f32>,
    pub per_stride: u32,
    pub center: f32,
    pub amplitude: f32,
    /// Left and right foot joints.
    pub feet: [u16; 2],
    /// `MATCH_IN | MATCH_OUT` bits.
    pub flags: u32,
}
