//! Baking: imported skeletons and clips (AoS, one transform per joint per frame) → the runtime's asset blob
//! (`sinew::asset`), with per-track elision and optional quantization.

use sinew::asset::{
    ALIGN, Annotations, ClipRecord, CurveRecord, HEADER_LEN, Header, MAGIC, Marker, PhaseRecord, Range, SectionRef,
    StrRef, VERSION,
};
use sinew::clip::{Channel, ConstantTrack, Encoding, MIN_KEY_MAGNITUDE, QuantRange, encode_rotation};
use sinew::math::{SoaTransform, Transform, num_soa_joints, pack_soa};

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
}

impl RawClip {
    /// The clip resampled to `rate` Hz over the same duration (its last frame at the last whole step): between
    /// frames, translations and scales interpolate linearly and rotations by normalized lerp on the shorter arc,
    /// in f64, as sampling does.
    ///
    /// Errors: a rate outside the runtime's range, a clip without frames or too long at that rate.
    pub fn resampled(&self, rate: f32) -> Result<RawClip, String> {
        use crate::clip_error::Trs;
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
                let f0 = (x.floor() as usize).min(last.saturating_sub(1));
                let f1 = (f0 + 1).min(last);
                let u = x - f0 as f64;
                self.frames[f0]
                    .iter()
                    .zip(&self.frames[f1])
                    .map(|(a, b)| Trs::lerp(&Trs::of(a), &Trs::of(b), u).to_transform())
                    .collect()
            })
            .collect();
        Ok(RawClip { name: self.name.clone(), sample_rate: rate, frames })
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

/// How to store keys.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum KeyFormat {
    #[default]
    F32,
    /// 16 bits per translation/scale component, smallest-three rotations: 6 bytes per key.
    Quantized,
    /// Segments with a bit rate per component chosen to keep virtual points within the error bound
    /// (`crate::compress`).
    Compressed(crate::compress::Precision),
}

/// A track is constant (or equal to the rest pose) when no component differs by more than this times
/// `max(1, |value|)`: about 8 f32 ulps at 1, so elision keeps what f32 storage keeps.
pub const CONSTANT_TOLERANCE: f32 = 1e-6;

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
pub(crate) fn channel_value(t: &Transform, channel: Channel) -> [f32; 4] {
    match channel {
        Channel::Translation => [t.translation.x, t.translation.y, t.translation.z, 0.0],
        Channel::Rotation => [t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w],
        Channel::Scale => [t.scale.x, t.scale.y, t.scale.z, 0.0],
    }
}

/// Same value within `CONSTANT_TOLERANCE` (rotations: as rotations, so `q` matches `−q`).
fn close(a: [f32; 4], b: [f32; 4], channel: Channel) -> bool {
    let within =
        |sign: f32| a.iter().zip(&b).all(|(x, y)| (x - sign * y).abs() <= CONSTANT_TOLERANCE * y.abs().max(1.0));
    within(1.0) || (channel == Channel::Rotation && within(-1.0))
}

pub(crate) fn flush(v: f32) -> f32 {
    if v.abs() < MIN_KEY_MAGNITUDE { 0.0 } else { v }
}

struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn section<T: bytemuck::Pod>(&mut self, items: &[T]) -> SectionRef {
        self.bytes.resize(self.bytes.len().next_multiple_of(ALIGN), 0);
        let offset = self.bytes.len() as u32;
        self.bytes.extend_from_slice(bytemuck::cast_slice(items));
        SectionRef { offset, len: (self.bytes.len() - offset as usize) as u32 }
    }

    fn put<T: bytemuck::Pod>(&mut self, offset: usize, item: &T) {
        self.bytes[offset..offset + std::mem::size_of::<T>()].copy_from_slice(bytemuck::bytes_of(item));
    }
}

/// Per-track storage decisions and keys of one clip.
struct BakedClip {
    constants: Vec<ConstantTrack>,
    track_joints: Vec<u16>,
    num_tracks: [u32; 3],
    keys_f32: Vec<f32>,
    keys_u16: Vec<u16>,
    ranges: Vec<QuantRange>,
    compressed: crate::compress::Compressed,
}

fn bake_clip(skeleton: &RawSkeleton, clip: &RawClip, format: KeyFormat) -> Result<BakedClip, String> {
    let n = skeleton.parents.len();
    if clip.frames.is_empty() {
        return Err(format!("clip `{}` has no frames", clip.name));
    }
    if let Some(f) = clip.frames.iter().position(|fr| fr.len() != n) {
        return Err(format!("clip `{}` frame {f} has {} joints, skeleton {n}", clip.name, clip.frames[f].len()));
    }
    let mut baked = BakedClip {
        constants: vec![],
        track_joints: vec![],
        num_tracks: [0; 3],
        keys_f32: vec![],
        keys_u16: vec![],
        ranges: vec![],
        compressed: Default::default(),
    };
    // animated[c] = joints whose channel c is animated.
    let mut animated: [Vec<u16>; 3] = Default::default();
    for channel in Channel::ALL {
        for joint in 0..n {
            let rest = channel_value(&skeleton.rest[joint], channel);
            let first = channel_value(&clip.frames[0][joint], channel);
            let constant = clip.frames.iter().all(|fr| close(channel_value(&fr[joint], channel), first, channel));
            if constant && close(first, rest, channel) {
                continue;
            }
            if constant {
                let value = first.map(flush);
                baked.constants.push(ConstantTrack { joint: joint as u16, channel: channel as u16, value });
            } else {
                animated[channel as usize].push(joint as u16);
            }
        }
        baked.num_tracks[channel as usize] = animated[channel as usize].len() as u32;
        baked.track_joints.extend(&animated[channel as usize]);
    }
    if let KeyFormat::Compressed(precision) = format {
        baked.compressed = crate::compress::compress(skeleton, clip, &animated, precision)
            .map_err(|e| format!("clip `{}`: {e}", clip.name))?;
        return Ok(baked);
    }
    if format == KeyFormat::Quantized {
        for channel in [Channel::Translation, Channel::Scale] {
            for &joint in &animated[channel as usize] {
                let joint = joint as usize;
                let mut min = [f32::MAX; 3];
                let mut max = [f32::MIN; 3];
                for fr in &clip.frames {
                    let v = channel_value(&fr[joint], channel);
                    for c in 0..3 {
                        min[c] = min[c].min(v[c]);
                        max[c] = max[c].max(v[c]);
                    }
                }
                let step = std::array::from_fn(|c| {
                    let s = (max[c] - min[c]) / u16::MAX as f32;
                    if s < MIN_KEY_MAGNITUDE { 0.0 } else { s }
                });
                baked.ranges.push(QuantRange { min: min.map(flush), step });
            }
        }
    }
    for fr in &clip.frames {
        let mut range = 0;
        for channel in Channel::ALL {
            let joints = &animated[channel as usize];
            let value = |j: usize| channel_value(&fr[j], channel).map(flush);
            match (format, channel) {
                (KeyFormat::F32, Channel::Rotation) => push_keys(&mut baked.keys_f32, joints, value),
                (KeyFormat::F32, _) => push_keys(&mut baked.keys_f32, joints, |j| {
                    let [x, y, z, _] = value(j);
                    [x, y, z]
                }),
                (KeyFormat::Quantized, Channel::Rotation) => {
                    push_keys(&mut baked.keys_u16, joints, |j| encode_rotation(value(j)))
                }
                // Compressed clips returned above, with their keys from `compress`.
                (KeyFormat::Compressed(_), _) => {}
                (KeyFormat::Quantized, _) => {
                    for &joint in joints {
                        let v = value(joint as usize);
                        let r = &baked.ranges[range];
                        range += 1;
                        baked.keys_u16.extend((0..3).map(|c| {
                            if r.step[c] == 0.0 {
                                0
                            } else {
                                ((v[c] - r.min[c]) / r.step[c]).round().clamp(0.0, u16::MAX as f32) as u16
                            }
                        }));
                    }
                }
            }
        }
    }
    Ok(baked)
}

/// Appends one frame's keys of the tracks `joints`, `key(joint)` giving a track's `N` stored elements: track
/// after track, except runs filling a lane group (`sinew::clip::track_runs`), which go component-major.
fn push_keys<T: Copy, const N: usize>(keys: &mut Vec<T>, joints: &[u16], key: impl Fn(usize) -> [T; N]) {
    for (k, run) in sinew::clip::track_runs(joints) {
        for group in joints[k..k + run].chunks(4) {
            let values: Vec<[T; N]> = group.iter().map(|&j| key(j as usize)).collect();
            for c in 0..N {
                keys.extend(values.iter().map(|v| v[c]));
            }
        }
    }
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

/// One clip's curves as stored: names, and `f32` values frame by frame or compressed.
struct BakedCurves {
    names: Vec<String>,
    encoding: Encoding,
    values: Vec<f32>,
    compressed: crate::compress::Compressed,
}

/// The clips' curves (none when no clip has any): `f32`, or compressed against each curve's precision when the
/// joints are.
fn bake_curves(
    clips: &[RawClip],
    annotations: &[RawAnnotations],
    format: KeyFormat,
) -> Result<Vec<BakedCurves>, String> {
    if annotations.iter().all(|a| a.curves.is_empty()) {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(clips.len());
    for (clip, a) in clips.iter().zip(annotations) {
        if a.curves.len() > sinew::clip::MAX_CLIP_CURVES {
            return Err(format!(
                "clip {}: {} curves; a clip may have at most {}",
                clip.name,
                a.curves.len(),
                sinew::clip::MAX_CLIP_CURVES
            ));
        }
        let values: Vec<Vec<f32>> = a.curves.iter().map(|c| c.frame_values(clip)).collect::<Result<_, _>>()?;
        let names = a.curves.iter().map(|c| c.name.clone()).collect();
        let mut baked =
            BakedCurves { names, encoding: Encoding::F32, values: Vec::new(), compressed: Default::default() };
        if let (KeyFormat::Compressed(_), false) = (format, a.curves.is_empty()) {
            let mut precision = Vec::with_capacity(a.curves.len());
            for c in &a.curves {
                let p = c.precision.ok_or_else(|| {
                    format!("clip {}: curve {:?} needs a precision to be compressed", clip.name, c.name)
                })?;
                precision.push(p);
            }
            baked.compressed = crate::compress::compress_curves(&clip.name, &values, &precision)?;
            baked.encoding = Encoding::Compressed;
        } else {
            baked.values = (0..clip.frames.len()).flat_map(|f| values.iter().map(move |v| v[f])).collect();
        }
        out.push(baked);
    }
    Ok(out)
}

/// Writes a blob holding `skeleton` and `clips`. Errors name what does not fit the format.
pub fn bake(skeleton: &RawSkeleton, clips: &[RawClip], format: KeyFormat) -> Result<AlignedBlob, String> {
    bake_with(skeleton, clips, format, &Extras::default())
}

/// [`bake`] with annotations and a skin. Markers are sorted by time; a time outside its clip, a range with
/// `start > end` or a non-finite value is an error naming the clip and the annotation. Compressed keys are
/// searched for only once the same clips baked as `f32` load: what the loader refuses (a joint past the
/// model-space bound, say) fails in the time of a plain bake, not after the compression search.
pub fn bake_with(
    skeleton: &RawSkeleton,
    clips: &[RawClip],
    format: KeyFormat,
    extras: &Extras,
) -> Result<AlignedBlob, String> {
    if let KeyFormat::Compressed(_) = format {
        let plain = bake_with(skeleton, clips, KeyFormat::F32, extras)?;
        sinew::Asset::load(plain.bytes()).map_err(|e| e.to_string())?;
    }
    if !extras.annotations.is_empty() && extras.annotations.len() != clips.len() {
        return Err(format!("{} clips but annotations for {}", clips.len(), extras.annotations.len()));
    }
    let n = skeleton.parents.len();
    if skeleton.rest.len() != n || skeleton.names.len() != n {
        return Err(format!(
            "skeleton has {n} parents, {} rest transforms, {} names",
            skeleton.rest.len(),
            skeleton.names.len()
        ));
    }
    let mut rest_soa = vec![SoaTransform::IDENTITY; num_soa_joints(n)];
    pack_soa(&skeleton.rest, &mut rest_soa).map_err(|e| e.to_string())?;

    let mut strings = String::new();
    let mut add_string = |s: &str| {
        let r = StrRef { offset: strings.len() as u32, len: s.len() as u32 };
        strings.push_str(s);
        r
    };
    let name_refs: Vec<StrRef> = skeleton.names.iter().map(|s| add_string(s)).collect();
    let clip_names: Vec<StrRef> = clips.iter().map(|c| add_string(&c.name)).collect();
    let (mut annotations, mut markers, mut ranges) = (Vec::new(), Vec::new(), Vec::new());
    for (clip, raw) in clips.iter().zip(extras.annotations.iter().chain(std::iter::repeat(&RawAnnotations::default())))
    {
        let duration = (clip.frames.len().max(1) - 1) as f32 / clip.sample_rate;
        let inside = |t: f32| (0.0..=duration).contains(&t);
        let mut sorted = raw.markers.clone();
        sorted.sort_by(|a, b| a.time.total_cmp(&b.time));
        annotations.push(Annotations {
            first_marker: markers.len() as u32,
            num_markers: sorted.len() as u32,
            first_range: ranges.len() as u32,
            num_ranges: raw.ranges.len() as u32,
        });
        for m in &sorted {
            if !(inside(m.time) && m.value.is_finite()) {
                return Err(format!(
                    "clip {}: marker {:?} at {} s lies outside 0..={duration} s or has a non-finite value",
                    clip.name, m.name, m.time
                ));
            }
            markers.push(Marker { time: m.time, name: add_string(&m.name), value: m.value });
        }
        for r in &raw.ranges {
            if !(inside(r.start) && inside(r.end) && r.start <= r.end && r.value.is_finite()) {
                return Err(format!(
                    "clip {}: range {:?} ({} to {} s) must satisfy 0 <= start <= end <= {duration} s with a finite value",
                    clip.name, r.name, r.start, r.end
                ));
            }
            ranges.push(Range { start: r.start, end: r.end, name: add_string(&r.name), value: r.value });
        }
    }
    if !extras.phases.is_empty() && extras.phases.len() != clips.len() {
        return Err(format!("{} clips but phases for {}", clips.len(), extras.phases.len()));
    }
    let (mut phase_records, mut phase_values) = (Vec::new(), Vec::<f32>::new());
    for (clip, phase) in clips.iter().zip(&extras.phases) {
        let Some(p) = phase else {
            phase_records.push(PhaseRecord::default());
            continue;
        };
        if p.forward.len() != clip.frames.len() {
            return Err(format!(
                "clip {}: {} phase values for {} frames",
                clip.name,
                p.forward.len(),
                clip.frames.len()
            ));
        }
        phase_records.push(PhaseRecord {
            first: phase_values.len() as u32,
            num_frames: p.forward.len() as u32,
            num_inverse: p.inverse.len() as u32,
            per_stride: p.per_stride,
            center: p.center,
            amplitude: p.amplitude,
            feet: p.feet,
            flags: p.flags,
        });
        phase_values.extend_from_slice(&p.forward);
        phase_values.extend_from_slice(&p.inverse);
    }
    let curves = bake_curves(clips, &extras.annotations, format)?;
    let curve_names: Vec<Vec<StrRef>> =
        curves.iter().map(|c| c.names.iter().map(|name| add_string(name)).collect()).collect();
    let skin = extras.skin.clone().unwrap_or_default();
    if skin.remap.len() != skin.inverse_bind.len() {
        return Err(format!(
            "skin has {} joints but {} inverse bind matrices",
            skin.remap.len(),
            skin.inverse_bind.len()
        ));
    }

    let mut w = Writer { bytes: vec![0; HEADER_LEN] };
    let parents = w.section(&skeleton.parents);
    let rest_pose = w.section(&rest_soa);
    let joint_names = w.section(&name_refs);
    let strings_ref = w.section(strings.as_bytes());
    let placeholder = vec![[0u8; 64]; clips.len()];
    let records_ref = w.section(&placeholder);
    for (i, clip) in clips.iter().enumerate() {
        let baked = bake_clip(skeleton, clip, format)?;
        let constants = w.section(&baked.constants);
        let track_joints = w.section(&baked.track_joints);
        let (keys, encoding, ranges) = match format {
            KeyFormat::F32 => (w.section(&baked.keys_f32), Encoding::F32, w.section(&baked.ranges)),
            KeyFormat::Quantized => (w.section(&baked.keys_u16), Encoding::Quantized, w.section(&baked.ranges)),
            KeyFormat::Compressed(_) => {
                let keys = w.section(&baked.compressed.data);
                (keys, Encoding::Compressed, w.section(&baked.compressed.ranges))
            }
        };
        let record = ClipRecord {
            name: clip_names[i],
            sample_rate: clip.sample_rate,
            num_frames: clip.frames.len() as u32,
            encoding: encoding as u32,
            num_tracks: baked.num_tracks,
            constants,
            track_joints,
            keys,
            ranges,
        };
        w.put(records_ref.offset as usize + 64 * i, &record);
    }
    let annotations = w.section(&annotations);
    let markers = w.section(&markers);
    let ranges = w.section(&ranges);
    let skin_remap = w.section(&skin.remap);
    let skin_inverse_bind = w.section(&skin.inverse_bind);
    let phases = w.section(&phase_records);
    let phase_values = w.section(&phase_values);
    let curve_records_ref = w.section(&vec![CurveRecord::default(); curves.len()]);
    for (i, (baked, names)) in curves.iter().zip(&curve_names).enumerate() {
        let record = CurveRecord {
            num_curves: names.len() as u32,
            encoding: baked.encoding as u32,
            names: w.section(names),
            keys: match baked.encoding {
                Encoding::Compressed => w.section(&baked.compressed.data),
                _ => w.section(&baked.values),
            },
            ranges: w.section(&baked.compressed.ranges),
        };
        w.put(curve_records_ref.offset as usize + std::mem::size_of::<CurveRecord>() * i, &record);
    }
    let header = Header {
        magic: MAGIC,
        version: VERSION,
        total_len: u32::try_from(w.bytes.len()).map_err(|_| "blob larger than 4 GiB".to_string())?,
        num_joints: n as u32,
        num_clips: clips.len() as u32,
        parents,
        rest_pose,
        joint_names,
        strings: strings_ref,
        clips: records_ref,
        annotations,
        markers,
        ranges,
        skin_remap,
        skin_inverse_bind,
        phases,
        phase_values,
        curves: curve_records_ref,
    };
    w.put(0, &header);
    Ok(AlignedBlob::from_bytes(&w.bytes))
}
