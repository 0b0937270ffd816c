//! Runtime animation clips: uniform-rate keyframes with per-track elision, full `f32` or quantized.
//!
//! Layout: a clip borrows its arrays (from an asset blob or caller memory) and copies nothing. Each joint has
//! three tracks (translation, rotation, scale); each track is one of
//! - **rest**: equal to the skeleton's rest pose; stores nothing;
//! - **constant**: one value for the whole clip (a [`ConstantTrack`], 20 bytes);
//! - **animated**: one key per frame.
//!
//! Animated tracks are listed per channel in ascending joint order (`track_joints`: translation tracks, then
//! rotation tracks, then scale tracks). Keys are stored frame by frame so that decoding one frame reads one
//! contiguous run: frame `f` holds every animated translation key (3 values), then every rotation key, then
//! every scale key.
//! - [`Keys::F32`]: 3 / 4 / 3 `f32` per translation / rotation / scale key, track after track; except that a
//!   run of four tracks filling one lane group (see [`track_runs`]) is stored component-major (the four
//!   `x`, then the four `y`, …), so it decodes as whole SoA vectors.
//! - [`Keys::Quantized`]: 3 `u16` per key of any channel (6 bytes), track after track, except that a run of four
//!   rotation tracks filling one lane group is stored component-major (the four first `u16`, …) and decodes as
//!   one SoA operation ([`decode_rotations`]). Translation and scale keys are
//!   `min + q * step` per component, with one [`QuantRange`] per animated translation and scale track.
//!   Rotations are smallest-three: see [`decode_rotation`].
//! - [`Keys::Compressed`]: segments of [`SEGMENT_FRAMES`] frames, each track with its own bit rate per segment
//!   (0 to [`MAX_BITS`] bits per component, chosen at bake by an error-driven search) and its values range
//!   reduced twice: to the clip's range of the track ([`TrackRange`], `f32`) and within it to the segment's
//!   (`u8` 255ths, [`SegmentTrack`]). Rotations store three components per segment and rebuild the fourth;
//!   which one is dropped is chosen per segment, so it is never near zero. Decoding a frame reads one
//!   contiguous run of bits: O(1) random access like the other encodings.
//!
//! **Curves.** A clip may also carry scalar curve tracks (blend-shape weights, IK weights, speed curves), one
//! value per frame each, sampled by the same job at the same times ([`Curves`]): `f32` values frame by frame,
//! or the compressed format above with each curve a one-component track whose bits were chosen against the
//! curve's own precision (an absolute bound in its units).
//!
//! Time: frame `f` sits at `f / sample_rate` seconds; the clip lasts `(num_frames - 1) / sample_rate`. A clip
//! with knot times ([`Clip::with_knots`]) places its frames at any increasing times instead (textbook: knots
//! only where the motion needs them, and at golden poses, the times a transition or contact must show
//! exactly); its rate is then the one its knots were chosen from, and finding a time's frames is a binary
//! search, O(log frames), where uniform frames are O(1). Between frames values interpolate, or, in a clip with step keys ([`Clip::with_step_keys`]), the earlier frame holds;
//! a clip may also step some tracks only ([`Clip::with_step_tracks`]) or its curves only
//! ([`Clip::with_step_curves`]), as an animation mixing glTF's STEP samplers with others does.
//!
//! Precision: `f32` keys come back exactly. Compressed keys are within what the baker's search allowed. Quantized translation and scale are within `step / 2` per
//! component; quantized rotations store three components within 2.2e-5 (half a 15-bit step over ±1/√2),
//! which bounds the rotation angle error by `ROTATION_ANGLE_ERROR` = 1.5e-4 rad (0.15 mm at 1 m).
//!
//! Errors: [`Clip::new`] validates everything once (counts, joint ranges and order, finite values, no
//! subnormal values so sampling never runs into denormal slow paths, usable quantization ranges); sampling
//! then trusts the clip.

use crate::error::{Buffer, Error};
use crate::limits::MIN_ROTATION_LENGTH_SQ;
pub use crate::limits::{
    MAX_CLIP_CURVES, MAX_CURVE_MAGNITUDE, MAX_DURATION, MAX_JOINTS, MAX_ROTATION_LENGTH_SQ, MAX_SAMPLE_RATE,
    MIN_KEY_MAGNITUDE, MIN_SAMPLE_RATE,
};
use bytemuck::{Pod, Zeroable};

pub mod compressed;
pub mod curves;
pub(crate) mod decode;
pub mod quantized;

// The encodings' types keep the paths they have always had (`sinew::clip::TrackDecoder`).
use compressed::check_compressed;
pub use compressed::{
    COMPRESSED_SLACK, CompressedKeys, CurveDecoder, MAX_BITS, RotationQuadDecoder, RotationQuadRows, SEGMENT_FRAMES,
    SEGMENT_TRACK_BYTES, SegmentTrack, TrackDecoder, TrackRange, load_word, read_bits,
};
pub use curves::{CurveKeys, Curves};
#[cfg(feature = "tools")]
pub use quantized::encode_rotation;
pub use quantized::{QuantRange, ROTATION_ANGLE_ERROR, decode_rotation, decode_rotations};

/// The three tracks of a joint, in storage order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum Channel {
    /// Translation, 3 components.
    Translation = 0,
    /// Rotation, a quaternion.
    Rotation = 1,
    /// Scale, 3 components.
    Scale = 2,
}

impl Channel {
    /// The three, in storage order.
    pub const ALL: [Channel; 3] = [Channel::Translation, Channel::Rotation, Channel::Scale];

    /// `f32` values per key when stored unquantized.
    #[inline]
    pub const fn f32_components(self) -> usize {
        match self {
            Channel::Rotation => 4,
            _ => 3,
        }
    }

    /// First `f32` of this channel's `x` component within a `SoaTransform` (lane 0).
    #[inline]
    pub(crate) const fn soa_offset(self) -> usize {
        match self {
            Channel::Translation => 0,
            Channel::Rotation => 12,
            Channel::Scale => 28,
        }
    }

    /// The channel of a stored tag.
    pub fn from_u16(v: u16) -> Option<Channel> {
        match v {
            0 => Some(Channel::Translation),
            1 => Some(Channel::Rotation),
            2 => Some(Channel::Scale),
            _ => None,
        }
    }
}

/// A track that holds one value for the whole clip. `value` is `(x, y, z, w)` for rotations and
/// `(x, y, z, 0)` for translation and scale.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct ConstantTrack {
    /// The skeleton joint.
    pub joint: u16,
    /// `Channel as u16`.
    pub channel: u16,
    /// The value (see above).
    pub value: [f32; 4],
}

/// Key storage of a clip's animated tracks, frame by frame (see the module docs).
#[derive(Clone, Copy, Debug)]
pub enum Keys<'a> {
    /// `f32` values: `f32_components` per track per frame.
    F32(&'a [f32]),
    /// 16-bit levels and their ranges.
    Quantized {
        /// Three `u16` per track per frame (rotations smallest-three).
        keys: &'a [u16],
        /// One per animated translation track, then one per animated scale track.
        ranges: &'a [QuantRange],
    },
    /// Segments with a bit rate per component.
    Compressed(CompressedKeys<'a>),
}

/// Storage encoding tag, as written in asset blobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Encoding {
    /// Full-precision `f32` keys.
    F32 = 0,
    /// 16-bit keys with per-track ranges.
    Quantized = 1,
    /// Segments with a bit rate per component (see `CompressedKeys`).
    Compressed = 2,
}

/// A clip record's `encoding` bit saying the clip has step keys ([`Clip::with_step_keys`]), above the
/// [`Encoding`] in the low byte (format version 6 onward); in a curve record's, that its curves step
/// ([`Clip::with_step_curves`], version 7 onward).
pub const STEP_KEYS: u32 = 0x100;

/// A clip record's `encoding` bit saying the clip has knot times ([`Clip::with_knots`], format version 8
/// onward).
pub const KNOT_TIMES: u32 = 0x200;

/// A channel's animated tracks (`joints` strictly ascending) as runs `(first track, length)`: a length of
/// `4m` covers `m` whole lane groups without a gap, each group's four tracks stored component-major (the
/// four `x`, then the four `y`, …); a length of 1 is a single track. A fully animated channel is one run, so a
/// decoder copies it in one loop with no per-group bookkeeping.
pub fn track_runs(joints: &[u16]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut k = 0;
    core::iter::from_fn(move || {
        if k >= joints.len() {
            return None;
        }
        let run = match whole_groups(joints, k) {
            0 => 1,
            m => 4 * m,
        };
        k += run;
        Some((k - run, run))
    })
}

/// Where each track's `n`-component `f32` key sits within its channel's block of one frame: `(track, first
/// component, stride between components)`. Whole lane groups are component-major (component `c` of lane `l`
/// of the group at track `g` is at `n·g + 4c + l`); single tracks are contiguous.
fn f32_key_layout(joints: &[u16], n: usize) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    track_runs(joints).flat_map(move |(k, run)| {
        let width = run.min(4);
        (k..k + run).map(move |track| {
            let (group, lane) = (k + (track - k) / 4 * 4, (track - k) % 4);
            (track, n * group + lane, width)
        })
    })
}

/// How many whole lane groups the tracks from `k` on cover without a gap: the largest `m` with tracks
/// `k .. k + 4m` being joints `4g .. 4g + 4m`. Strictly ascending joints are gap-free over a stretch exactly
/// when its last joint is its length − 1 above its first, and then over every shorter stretch too, so a
/// binary search finds `m`.
pub(crate) fn whole_groups(joints: &[u16], k: usize) -> usize {
    let first = joints[k] as usize;
    if !first.is_multiple_of(4) {
        return 0;
    }
    let gap_free = |m: usize| joints[k + 4 * m - 1] as usize == first + 4 * m - 1;
    let (mut known, mut most) = (0, (joints.len() - k) / 4);
    while known < most {
        let mid = (known + most).div_ceil(2);
        if gap_free(mid) {
            known = mid;
        } else {
            most = mid - 1;
        }
    }
    known
}

/// `Err(InvalidKnots)` unless `knots` holds `num_frames` finite times from 0, strictly increasing, the last at
/// most `MAX_DURATION` (see [`Clip::with_knots`]).
pub(crate) fn check_knots(knots: &[f32], num_frames: usize) -> Result<(), Error> {
    if knots.len() != num_frames {
        return Err(Error::InvalidKnots { index: knots.len() });
    }
    let mut previous = None;
    for (index, &time) in knots.iter().enumerate() {
        let ok = match previous {
            None => time == 0.0,
            Some(previous) => time > previous && time <= MAX_DURATION,
        };
        if !ok {
            return Err(Error::InvalidKnots { index });
        }
        previous = Some(time);
    }
    Ok(())
}

/// A validated clip borrowing its arrays.
#[derive(Clone, Copy, Debug)]
pub struct Clip<'a> {
    num_joints: usize,
    sample_rate: f32,
    num_frames: usize,
    constants: &'a [ConstantTrack],
    track_joints: &'a [u16],
    num_tracks: [usize; 3],
    keys: Keys<'a>,
    curves: Curves<'a>,
    step_keys: bool,
    step_tracks: &'a [u16],
    step_curves: bool,
    knots: &'a [f32],
}

/// The parts of a clip, before validation.
#[derive(Clone, Copy, Debug)]
pub struct ClipParts<'a> {
    /// Joints of the skeleton this clip animates.
    pub num_joints: usize,
    /// Frames per second, finite and positive.
    pub sample_rate: f32,
    /// At least 1.
    pub num_frames: usize,
    /// The constant tracks, in channel then joint order.
    pub constants: &'a [ConstantTrack],
    /// Joints of the animated tracks: `num_tracks[0]` translation, then rotation, then scale, each ascending.
    pub track_joints: &'a [u16],
    /// Animated tracks per channel: translation, rotation, scale.
    pub num_tracks: [usize; 3],
    /// The animated tracks' keys.
    pub keys: Keys<'a>,
}

/// `Err` unless a stored rotation's squared length lies in `MIN_ROTATION_LENGTH_SQ..=MAX_ROTATION_LENGTH_SQ`.
fn check_rotation_length(len_sq: f32, buffer: Buffer, index: usize) -> Result<(), Error> {
    if len_sq < MIN_ROTATION_LENGTH_SQ {
        return Err(Error::ZeroQuaternion { buffer, index });
    }
    if len_sq > MAX_ROTATION_LENGTH_SQ {
        return Err(Error::RotationLength { buffer, index });
    }
    Ok(())
}

impl<'a> Clip<'a> {
    /// Validates and wraps a clip.
    ///
    /// Errors:
    /// - `JointCount` unless `1 <= num_joints <= MAX_JOINTS`; `InvalidSampleRate` unless the rate lies in
    ///   `MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE`; `FrameCount` unless `num_frames >= 1` and the clip lasts at most
    ///   `MAX_DURATION`;
    /// - `BufferLength` (`TrackJoints`) unless it holds `num_tracks` summed; (`ClipKeys`) unless the keys hold
    ///   `num_frames` frames; (`QuantRanges`) unless one range per animated translation and scale track;
    /// - `JointOutOfRange` for a track or constant naming a joint past `num_joints`; `TrackOrder` when a
    ///   channel's animated joints are not strictly ascending, or a joint's channel is both constant and
    ///   animated, or constant twice, or constants are not in channel-then-joint order; `InvalidChannel` for a
    ///   constant's unknown channel tag;
    /// - `ZeroQuaternion` / `RotationLength` for a rotation key or constant whose squared length is below
    ///   `MIN_ROTATION_LENGTH_SQ` or above `MAX_ROTATION_LENGTH_SQ`;
    /// - `NonFinite` / `ZeroQuaternion` / `Subnormal` for a bad value in `Constants`, `ClipKeys` or
    ///   `QuantRanges` (index = the element: constant, key value, or range), and `Subnormal` also for a
    ///   negative quantization step.
    pub fn new(parts: ClipParts<'a>) -> Result<Clip<'a>, Error> {
        let ClipParts { num_joints, sample_rate, num_frames, constants, track_joints, num_tracks, keys } = parts;
        if num_joints == 0 || num_joints > MAX_JOINTS {
            return Err(Error::JointCount { count: num_joints, max: MAX_JOINTS });
        }
        if !(MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE).contains(&sample_rate) {
            return Err(Error::InvalidSampleRate);
        }
        // Compared in f64: the frame count is a u32 in blobs, exact there.
        if num_frames == 0 || (num_frames - 1) as f64 > MAX_DURATION as f64 * sample_rate as f64 {
            return Err(Error::FrameCount { frames: num_frames });
        }
        let total_tracks = num_tracks.iter().try_fold(0usize, |acc, &n| acc.checked_add(n));
        crate::error::check_len(Buffer::TrackJoints, total_tracks.unwrap_or(usize::MAX), track_joints.len())?;

        // One bit per (joint, channel): each may be animated or constant at most once.
        let mut used = [0u8; MAX_JOINTS];
        let mut start = 0;
        for (channel, &count) in Channel::ALL.iter().zip(&num_tracks) {
            let joints = &track_joints[start..start + count];
            for (i, &joint) in joints.iter().enumerate() {
                if joint as usize >= num_joints {
                    return Err(Error::JointOutOfRange { joint: joint as usize, num_joints });
                }
                if i > 0 && joints[i - 1] >= joint {
                    return Err(Error::TrackOrder { joint: joint as usize, channel: *channel as u16 });
                }
                used[joint as usize] |= 1 << *channel as u16;
            }
            start += count;
        }
        for (index, c) in constants.iter().enumerate() {
            let channel = Channel::from_u16(c.channel).ok_or(Error::InvalidChannel { index, channel: c.channel })?;
            let joint = c.joint as usize;
            if joint >= num_joints {
                return Err(Error::JointOutOfRange { joint, num_joints });
            }
            // Channel-major, joints ascending, so one joint's constants are found by binary search.
            if index > 0 && (constants[index - 1].channel, constants[index - 1].joint) >= (c.channel, c.joint) {
                return Err(Error::TrackOrder { joint, channel: c.channel });
            }
            let bit = 1 << channel as u16;
            if used[joint] & bit != 0 {
                return Err(Error::TrackOrder { joint, channel: c.channel });
            }
            used[joint] |= bit;
            let value = &c.value[..channel.f32_components()];
            check_values(Buffer::Constants, index, value)?;
            if channel == Channel::Rotation {
                check_rotation_length(value.iter().map(|v| v * v).sum::<f32>(), Buffer::Constants, index)?;
            }
        }

        let clip = Clip::from_validated(parts);
        let frame_len = clip.frame_len();
        let frames_len = frame_len.saturating_mul(num_frames);
        match keys {
            // Compressed frames vary in bits: the segments are checked instead of a key count.
            Keys::Compressed(keys) => check_compressed(num_frames, num_tracks, keys)?,
            Keys::F32(values) => {
                crate::error::check_len(Buffer::ClipKeys, frames_len, values.len())?;
                for (f, frame) in values.chunks_exact(frame_len.max(1)).enumerate() {
                    for (i, v) in frame.iter().enumerate() {
                        check_values(Buffer::ClipKeys, f * frame_len + i, core::slice::from_ref(v))?;
                    }
                    let first = 3 * num_tracks[0];
                    let rotations = &frame[first..first + 4 * num_tracks[1]];
                    let joints = &track_joints[num_tracks[0]..num_tracks[0] + num_tracks[1]];
                    for (_, at, stride) in f32_key_layout(joints, 4) {
                        let len_sq: f32 = (0..4).map(|c| rotations[at + stride * c]).map(|v| v * v).sum();
                        check_rotation_length(len_sq, Buffer::ClipKeys, f * frame_len + first + at)?;
                    }
                }
            }
            Keys::Quantized { keys, ranges } => {
                crate::error::check_len(Buffer::ClipKeys, frames_len, keys.len())?;
                crate::error::check_len(Buffer::QuantRanges, num_tracks[0] + num_tracks[2], ranges.len())?;
                for (index, r) in ranges.iter().enumerate() {
                    check_values(Buffer::QuantRanges, index, &r.min)?;
                    check_values(Buffer::QuantRanges, index, &r.step)?;
                    if r.step.iter().any(|s| *s < 0.0) {
                        return Err(Error::Subnormal { buffer: Buffer::QuantRanges, index });
                    }
                    // The largest decoded value must stay finite too.
                    if r.min.iter().zip(&r.step).any(|(m, s)| !(m + s * u16::MAX as f32).is_finite()) {
                        return Err(Error::NonFinite { buffer: Buffer::QuantRanges, index });
                    }
                }
            }
        }
        Ok(clip)
    }

    /// Wraps parts that `new` accepted before (the asset loader validates once, at load).
    pub(crate) fn from_validated(parts: ClipParts<'a>) -> Clip<'a> {
        let ClipParts { num_joints, sample_rate, num_frames, constants, track_joints, num_tracks, keys } = parts;
        let curves = Curves::NONE;
        Clip {
            num_joints,
            sample_rate,
            num_frames,
            constants,
            track_joints,
            num_tracks,
            keys,
            curves,
            step_keys: false,
            step_tracks: &[],
            step_curves: false,
            knots: &[],
        }
    }

    /// The clip with its frames at `knots` (seconds, one per frame) rather than every `1 / sample_rate`.
    ///
    /// Errors: `InvalidKnots` unless there is one knot per frame, the first is 0, each is finite and above the
    /// one before, and the last is at most `MAX_DURATION` (`index`: the first bad knot, or the count for a
    /// count other than the frames').
    pub fn with_knots(self, knots: &'a [f32]) -> Result<Clip<'a>, Error> {
        check_knots(knots, self.num_frames)?;
        Ok(self.with_validated_knots(knots))
    }

    /// [`Clip::with_knots`] for knots checked before (the asset loader checks once, at load).
    pub(crate) fn with_validated_knots(self, knots: &'a [f32]) -> Clip<'a> {
        Clip { knots, ..self }
    }

    /// The frames' times, seconds, when the clip has knots (see [`Clip::with_knots`]); empty for uniform frames.
    #[inline]
    pub fn knots(&self) -> &'a [f32] {
        self.knots
    }

    /// The time of frame `frame`, seconds (past the last frame, the clip's duration).
    pub fn frame_time(&self, frame: usize) -> f32 {
        let frame = frame.min(self.num_frames - 1);
        match self.knots.get(frame) {
            Some(&time) => time,
            None => frame as f32 / self.sample_rate,
        }
    }

    /// The clip with step keys: each frame's values hold until the next frame, which replaces them at its time
    /// (glTF's STEP samplers), so jumps are exact; every track and curve steps.
    pub fn with_step_keys(self) -> Clip<'a> {
        Clip { step_keys: true, ..self }
    }

    /// Whether each frame holds until the next (see [`Clip::with_step_keys`]); else values interpolate between
    /// frames, except in the tracks and curves [`Clip::with_step_tracks`] and [`Clip::with_step_curves`] name.
    #[inline]
    pub fn has_step_keys(&self) -> bool {
        self.step_keys
    }

    /// The clip with step keys in some animated tracks only (an animation mixing glTF's STEP samplers with
    /// others): `tracks` are indices into [`Clip::track_joints`], strictly ascending; those tracks hold each
    /// frame until the next, the others interpolate.
    ///
    /// Errors: `StepTrack` for an index not above the one before it or past the clip's animated tracks.
    pub fn with_step_tracks(self, tracks: &'a [u16]) -> Result<Clip<'a>, Error> {
        let mut next = 0;
        for (index, &track) in tracks.iter().enumerate() {
            let track = track as usize;
            if track < next || track >= self.track_joints.len() {
                return Err(Error::StepTrack { index, track });
            }
            next = track + 1;
        }
        Ok(Clip { step_tracks: tracks, ..self })
    }

    /// [`Clip::with_step_tracks`] for a list checked before (the asset loader checks once, at load).
    pub(crate) fn with_validated_step_tracks(self, tracks: &'a [u16]) -> Clip<'a> {
        Clip { step_tracks: tracks, ..self }
    }

    /// The animated tracks (indices into [`Clip::track_joints`]) whose keys step while the rest interpolate;
    /// empty unless [`Clip::with_step_tracks`] named some.
    #[inline]
    pub fn step_tracks(&self) -> &'a [u16] {
        self.step_tracks
    }

    /// The clip with every curve holding each frame until the next, whatever its tracks do.
    pub fn with_step_curves(self) -> Clip<'a> {
        Clip { step_curves: true, ..self }
    }

    /// Whether the curves hold each frame until the next (they do in a clip with step keys too).
    #[inline]
    pub fn has_step_curves(&self) -> bool {
        self.step_keys || self.step_curves
    }

    /// The clip carrying `curves` (in place of any it had), one value per frame each.
    ///
    /// Errors: see [`Curves`]' checks: too many curves, a value count other than `count × num_frames`, a bad
    /// value, an inconsistent compressed segment.
    pub fn with_curves(self, curves: Curves<'a>) -> Result<Clip<'a>, Error> {
        curves.check(self.num_frames)?;
        Ok(self.with_validated_curves(curves))
    }

    /// [`Clip::with_curves`] for curves checked before (the asset loader checks once, at load).
    pub(crate) fn with_validated_curves(self, curves: Curves<'a>) -> Clip<'a> {
        Clip { curves, ..self }
    }

    /// The clip's scalar curve tracks.
    #[inline]
    pub fn curves(&self) -> Curves<'a> {
        self.curves
    }

    /// How many scalar curve tracks the clip carries.
    #[inline]
    pub fn num_curves(&self) -> usize {
        self.curves.count
    }

    /// Joints of the skeleton this clip animates.
    #[inline]
    pub fn num_joints(&self) -> usize {
        self.num_joints
    }

    /// Frames per second.
    #[inline]
    pub fn sample_rate(&self) -> f32 {
        self.sample_rate
    }

    /// Key frames, at least 1.
    #[inline]
    pub fn num_frames(&self) -> usize {
        self.num_frames
    }

    /// Seconds from the first to the last frame: `(num_frames - 1) / sample_rate`, or the last knot's time.
    #[inline]
    pub fn duration(&self) -> f32 {
        match self.knots.last() {
            Some(&last) => last,
            None => (self.num_frames - 1) as f32 / self.sample_rate,
        }
    }

    /// The constant tracks, in channel then joint order.
    #[inline]
    pub fn constants(&self) -> &'a [ConstantTrack] {
        self.constants
    }

    /// Joints of the animated tracks of `channel`, ascending.
    #[inline]
    pub fn animated_joints(&self, channel: Channel) -> &'a [u16] {
        let start: usize = self.num_tracks[..channel as usize].iter().sum();
        &self.track_joints[start..start + self.num_tracks[channel as usize]]
    }

    /// All animated track joints, translation then rotation then scale.
    #[inline]
    pub fn track_joints(&self) -> &'a [u16] {
        self.track_joints
    }

    /// Animated tracks per channel.
    #[inline]
    pub fn num_tracks(&self) -> [usize; 3] {
        self.num_tracks
    }

    /// The animated tracks' keys.
    #[inline]
    pub fn keys(&self) -> Keys<'a> {
        self.keys
    }

    /// How the keys are stored.
    #[inline]
    pub fn encoding(&self) -> Encoding {
        match self.keys {
            Keys::F32(_) => Encoding::F32,
            Keys::Quantized { .. } => Encoding::Quantized,
            Keys::Compressed(_) => Encoding::Compressed,
        }
    }

    /// Stored elements (`f32` or `u16`) per frame; 0 for compressed clips, whose frames vary in bits.
    #[inline]
    pub fn frame_len(&self) -> usize {
        let [t, r, s] = self.num_tracks;
        match self.keys {
            Keys::F32(_) => 3 * t + 4 * r + 3 * s,
            Keys::Quantized { .. } => 3 * (t + r + s),
            Keys::Compressed(_) => 0,
        }
    }

    /// Largest |component| of each stored track of `channel` (constant or animated), written to
    /// `extent[joint]`; entries of joints whose track is the rest pose are left as they are. Quantized tracks
    /// report their range's bound, rotations 1.
    ///
    /// Errors: `BufferLength` (`ClipJoints`) unless `extent.len() == num_joints`.
    pub fn track_extents(&self, channel: Channel, extent: &mut [f32]) -> Result<(), Error> {
        crate::error::check_len(Buffer::ClipJoints, self.num_joints, extent.len())?;
        let n = channel.f32_components();
        for c in self.constants.iter().filter(|c| c.channel == channel as u16) {
            extent[c.joint as usize] = c.value[..n].iter().fold(0.0, |m, v| m.max(v.abs()));
        }
        let joints = self.animated_joints(channel);
        for &joint in joints {
            extent[joint as usize] = 0.0;
        }
        match self.keys {
            Keys::F32(values) if !joints.is_empty() => {
                let [t, r, _] = self.num_tracks;
                let start = match channel {
                    Channel::Translation => 0,
                    Channel::Rotation => 3 * t,
                    Channel::Scale => 3 * t + 4 * r,
                };
                for frame in values.chunks_exact(self.frame_len()) {
                    let block = &frame[start..start + n * joints.len()];
                    for (track, at, stride) in f32_key_layout(joints, n) {
                        let e = &mut extent[joints[track] as usize];
                        for c in 0..n {
                            *e = e.max(block[at + stride * c].abs());
                        }
                    }
                }
            }
            Keys::F32(_) => {}
            Keys::Compressed(keys) => {
                let first = match channel {
                    Channel::Translation => 0,
                    Channel::Rotation => {
                        joints.iter().for_each(|&j| extent[j as usize] = 1.0);
                        return Ok(());
                    }
                    Channel::Scale => self.num_tracks[0] + self.num_tracks[1],
                };
                for (&joint, r) in joints.iter().zip(&keys.ranges[first..]) {
                    let top = |c: usize| r.min[c].abs().max((r.min[c] + r.extent[c]).abs());
                    extent[joint as usize] = top(0).max(top(1)).max(top(2));
                }
            }
            Keys::Quantized { ranges, .. } => {
                let first = match channel {
                    Channel::Translation => 0,
                    Channel::Rotation => {
                        joints.iter().for_each(|&j| extent[j as usize] = 1.0);
                        return Ok(());
                    }
                    Channel::Scale => self.num_tracks[0],
                };
                for (&joint, r) in joints.iter().zip(&ranges[first..]) {
                    let top = |c: usize| r.min[c].abs().max((r.min[c] + r.step[c] * u16::MAX as f32).abs());
                    extent[joint as usize] = top(0).max(top(1)).max(top(2));
                }
            }
        }
        Ok(())
    }

    /// Bytes of key and track data, knot times included (what a frame-rate-independent size comparison should
    /// count).
    pub fn data_bytes(&self) -> usize {
        let keys = match self.keys {
            Keys::F32(k) => core::mem::size_of_val(k),
            Keys::Quantized { keys, ranges } => core::mem::size_of_val(keys) + core::mem::size_of_val(ranges),
            Keys::Compressed(keys) => keys.data.len() + core::mem::size_of_val(keys.ranges),
        };
        keys + core::mem::size_of_val(self.constants)
            + core::mem::size_of_val(self.track_joints)
            + core::mem::size_of_val(self.step_tracks)
            + core::mem::size_of_val(self.knots)
    }

    /// Bytes of the scalar curve tracks' values (and ranges, compressed); not counted by
    /// [`Clip::data_bytes`].
    pub fn curve_bytes(&self) -> usize {
        match self.curves.keys {
            CurveKeys::F32(values) => core::mem::size_of_val(values),
            CurveKeys::Compressed(keys) => keys.data.len() + core::mem::size_of_val(keys.ranges),
        }
    }
}

/// `Err` for a non-finite value, or a non-zero value below `MIN_KEY_MAGNITUDE`, in `values`.
fn check_values(buffer: Buffer, index: usize, values: &[f32]) -> Result<(), Error> {
    for v in values {
        if !v.is_finite() {
            return Err(Error::NonFinite { buffer, index });
        }
        if *v != 0.0 && v.abs() < MIN_KEY_MAGNITUDE {
            return Err(Error::Subnormal { buffer, index });
        }
    }
    Ok(())
}
