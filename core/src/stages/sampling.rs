//! Sampling: a clip at any time → a SoA local pose, in O(1) whatever the previous time was (O(log knots) to find
//! the frames of a clip on knot times, `Clip::with_knots`).
//!
//! How: a [`SamplingContext`] (caller memory) caches decoded frames as full SoA poses, two for
//! [`Interpolation::Linear`] and four for [`Interpolation::Cubic`]. Binding a clip fills them with the rest pose
//! and the clip's constant tracks, once; decoding a frame then writes only the animated tracks. A linear sample
//! needs frames `f` and `f + 1`, a cubic one `f − 1` to `f + 2`: frames already cached are not decoded again
//! (playing forward or backward decodes at most one new frame per frame crossed; scrubbing within a frame
//! interval decodes none), and a random seek decodes all it needs in one pass. The output is then one SoA pass:
//! linear is lerp for translation and scale and nlerp along the shortest arc for rotation; cubic is a
//! Catmull-Rom spline through the four keys (see [`Interpolation::Cubic`]). A clip with step keys
//! (`Clip::has_step_keys`) needs only the frame whose time has been reached, which it shows as stored (its
//! curves too): the next frame replaces it at its own time. In a clip that steps some tracks only
//! (`Clip::step_tracks`), the lanes holding them take the held frame after the pass, selected lane by lane; its
//! curves step or interpolate together. [`SamplingJob::run_chunk`] writes only the joints the clip stores a track
//! for, the rest of the output kept: how clips split by bone masks at bake are put back together.
//!
//! Layout: output and cache are SoA, `num_soa_joints` lane groups, identity in padding lanes.
//! Space: local. Units: time in seconds.
//!
//! In the cubic pass, translations and scales no lane of a lane group animates (rest or constant values, the same
//! in every frame) are copied, not summed: most rigs animate them at a few joints only. The linear pass
//! interpolates every channel: there the walk over the clip's track joints costs more instructions than the
//! lerps it saves (x86-64-v3 profiler budgets +7 %).
//!
//! Precision: at a frame's time the output equals the stored key after one nlerp normalization (relative
//! error < 4e-7 for rotations; translation and scale exact), in both modes: frame coordinates within 4 ulps of a
//! key snap to it, since `f32` time cannot resolve them (at 60 s, 4 ulps of the time are 15 µs). Between frames:
//! lerp/nlerp, or the weighted sum of four keys, in `f32`. A sample depends on the time and the clip alone, not
//! on what the context held: seeking and playing give the same values bit for bit.
//! Denormals: stored values are zero or at least `MIN_KEY_MAGNITUDE` and the interpolation fraction is zero
//! or at least `MIN_FRACTION`, so every product stays a normal number (a cubic weight is zero or above
//! `2^-42`).
//!
//! Curves: the clip's scalar curve tracks sample at the same frames and fraction, `a + (b − a) × t` per curve
//! (the lerp of translations) in both modes, each frame's values read or decoded directly: a curve is one
//! value, so the context caches none.
//!
//! Errors: see [`SamplingJob::validate`]. The context is the caller's; it survives an `Err` unchanged.

use crate::arena::Arena;
use crate::data::clip::compressed::{SEGMENT_FRAMES, TrackDecoder};
use crate::data::clip::curves::{CurveKeys, Curves};
use crate::data::clip::decode::{SegmentCache, decode_curves, decode_tracks, write_track};
use crate::data::clip::{Channel, Clip, Keys};
use crate::data::skeleton::{MAX_JOINTS, Skeleton};
use crate::error::{Buffer, Error};
use crate::math::{F4, SoaQuat, SoaTransform, SoaVec3, interpolate};
use bytemuck::{Pod, Zeroable};

/// How time outside `[0, duration]` maps onto the clip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Playback {
    /// Time wraps: `t` and `t + duration` sample the same pose. The last frame is shown only at exactly
    /// `duration`, so a seamless loop should end on a copy of its first frame (as authoring tools export).
    Loop,
    /// Time clamps to `[0, duration]`.
    Clamp,
}

/// How a sample between two keys is made from the keys around it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interpolation {
    /// Lerp (translation, scale) and shortest-arc nlerp (rotation) between the two keys around the time:
    /// continuous (C0), its velocity jumping at every key.
    #[default]
    Linear,
    /// A Catmull-Rom spline through the four keys around the time, continuous in value and velocity (C1): the
    /// velocity at a key is half the difference of its neighbours' (on knot times, that difference over the time
    /// between them, so C1 whatever the intervals). Translations and scales are weighted sums of
    /// the four keys; rotations are the same sums of the keys on the hemisphere of the key before the time,
    /// normalized. At a clamped clip's ends the missing key is extrapolated (`2 p0 − p1`, a one-sided tangent);
    /// a looping clip wraps, its last frame being a copy of its first (as [`Playback::Loop`] expects). Step
    /// tracks and curves hold or interpolate as in `Linear`.
    Cubic,
}

impl Interpolation {
    /// Decoded frames a context keeps for this mode.
    pub const fn frames(self) -> usize {
        match self {
            Interpolation::Linear => 2,
            Interpolation::Cubic => 4,
        }
    }
}

/// Interpolation fractions below this (or below the frame coordinate's own rounding, 4 ulps) snap to the
/// key, so no interpolation weight is ever subnormal. The error is below a millionth of a frame.
pub const MIN_FRACTION: f32 = 1.0 / 1_048_576.0;

/// Which clip a context holds frames of: the addresses of its key data, ranges and constants, and of the rest
/// pose used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Binding {
    keys: (usize, usize),
    ranges: (usize, usize),
    constants: (usize, usize),
    rest_pose: usize,
}

impl Binding {
    fn to_words(self) -> [u64; 7] {
        let (k, r, c) = (self.keys, self.ranges, self.constants);
        [k.0, k.1, r.0, r.1, c.0, c.1, self.rest_pose].map(|w| w as u64)
    }

    fn from_words(w: [u64; 7]) -> Binding {
        let w = w.map(|w| w as usize);
        Binding { keys: (w[0], w[1]), ranges: (w[2], w[3]), constants: (w[4], w[5]), rest_pose: w[6] }
    }
}

/// A [`SamplingContext`]'s state apart from its memory, as plain data: [`SamplingContext::suspend`] takes it
/// out and [`SamplingContext::resume`] picks up from it over the same memory, so a context can live in memory
/// that moves between uses (a character's block). All zeros is a context that holds nothing.
///
/// Layout: 88 bytes, `repr(C)`. The clip whose frames it holds is named by the addresses and lengths of its data
/// (as a live context names it), so a clip rewritten in place at the same address needs
/// [`SamplingContext::invalidate`] before it is sampled again.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct ContextState {
    /// The frame each slot holds, plus one (0: none).
    frames: [u32; 4],
    /// The compressed segment whose decoders are kept, plus one (0: none).
    held: u32,
    /// 1 when `binding` names a clip.
    bound: u32,
    binding: [u64; 7],
    decoded_frames: u64,
}

impl ContextState {
    /// Frames the context had decoded when the state was taken (see [`SamplingContext::decoded_frames`]).
    pub fn decoded_frames(&self) -> u64 {
        self.decoded_frames
    }
}

/// Cached, decoded frames of one clip (two, or four for [`Interpolation::Cubic`]), and optionally the track
/// decoders of the compressed segment decoded last (caller memory). The context decides how the jobs sampling
/// through it interpolate: it is the memory holding the frames that mode reads.
#[derive(Debug)]
pub struct SamplingContext<'a> {
    /// `interpolation.frames()` poses, then empty slices.
    slots: [&'a mut [SoaTransform]; 4],
    /// Frame held by each slot, if any.
    frames: [Option<u32>; 4],
    interpolation: Interpolation,
    segment: SegmentCache<'a>,
    binding: Option<Binding>,
    decoded_frames: u64,
}

impl<'a> SamplingContext<'a> {
    /// Bytes an arena needs for a context of a `num_joints` skeleton: two SoA poses (80 bytes a joint).
    pub const fn required_bytes(num_joints: usize) -> usize {
        SamplingContext::required_bytes_for(num_joints, 0, Interpolation::Linear)
    }

    /// Bytes an arena needs for [`SamplingContext::with_decoders`]: [`SamplingContext::required_bytes`] and a
    /// 32-byte [`TrackDecoder`] per track, the tracks clamped to `3 × num_joints` as `with_decoders` clamps them.
    pub const fn required_bytes_with_decoders(num_joints: usize, max_tracks: usize) -> usize {
        SamplingContext::required_bytes_for(num_joints, max_tracks, Interpolation::Linear)
    }

    /// Bytes an arena needs for [`SamplingContext::with_interpolation`]: `interpolation.frames()` SoA poses
    /// (40 bytes a joint each) and a 32-byte [`TrackDecoder`] per track, clamped to `3 × num_joints`.
    pub const fn required_bytes_for(num_joints: usize, max_tracks: usize, interpolation: Interpolation) -> usize {
        let most = num_joints.saturating_mul(3);
        let tracks = if max_tracks < most { max_tracks } else { most };
        let pose = Arena::required_bytes::<SoaTransform>(crate::math::num_soa_joints(num_joints));
        interpolation.frames() * pose + Arena::required_bytes::<TrackDecoder>(tracks)
    }

    /// Carves a context for a `num_joints` skeleton out of `arena`. Compressed clips sample through it too, but
    /// work out each track's decoder every frame: for playing them, see [`SamplingContext::with_decoders`].
    ///
    /// Errors: `JointCount` unless `1 <= num_joints <= MAX_JOINTS`; `ArenaExhausted`.
    pub fn new(arena: &'a Arena<'_>, num_joints: usize) -> Result<SamplingContext<'a>, Error> {
        SamplingContext::with_decoders(arena, num_joints, 0)
    }

    /// [`SamplingContext::new`], keeping the decoders of the compressed segment it decoded last for clips of up
    /// to `max_tracks` animated tracks (`clip.num_tracks()` summed; at most `3 × num_joints`), so playing a
    /// compressed clip works them out once per segment of 16 frames instead of every frame. A clip with more
    /// tracks samples as through `new`.
    ///
    /// Errors: `JointCount` unless `1 <= num_joints <= MAX_JOINTS`; `ArenaExhausted`.
    pub fn with_decoders(
        arena: &'a Arena<'_>,
        num_joints: usize,
        max_tracks: usize,
    ) -> Result<SamplingContext<'a>, Error> {
        SamplingContext::with_interpolation(arena, num_joints, max_tracks, Interpolation::Linear)
    }

    /// [`SamplingContext::with_decoders`] for jobs sampling with `interpolation` (four cached frames for
    /// `Cubic`). Size the arena with [`SamplingContext::required_bytes_for`].
    ///
    /// Errors: `JointCount` unless `1 <= num_joints <= MAX_JOINTS`; `ArenaExhausted`.
    pub fn with_interpolation(
        arena: &'a Arena<'_>,
        num_joints: usize,
        max_tracks: usize,
        interpolation: Interpolation,
    ) -> Result<SamplingContext<'a>, Error> {
        if num_joints == 0 || num_joints > crate::data::skeleton::MAX_JOINTS {
            return Err(Error::JointCount { count: num_joints, max: crate::data::skeleton::MAX_JOINTS });
        }
        let n = crate::math::num_soa_joints(num_joints);
        // Binding a clip fills the slots before they are read, so they need no zeroing.
        let mut slots: [&'a mut [SoaTransform]; 4] = [&mut [], &mut [], &mut [], &mut []];
        for slot in &mut slots[..interpolation.frames()] {
            *slot = arena.carve::<SoaTransform>(n)?;
        }
        let decoders = arena.carve::<TrackDecoder>(max_tracks.min(3 * num_joints))?;
        let segment = SegmentCache { decoders, held: None };
        Ok(SamplingContext { slots, frames: [None; 4], interpolation, segment, binding: None, decoded_frames: 0 })
    }

    /// [`SamplingContext::with_interpolation`] over memory an earlier context of the same `num_joints`,
    /// `max_tracks` and `interpolation` used, carved from an arena over the same bytes (or a copy of them at the
    /// same alignment), holding what it held when `state` was taken from it by [`SamplingContext::suspend`].
    ///
    /// Errors: as `with_interpolation`. A `state` that does not belong to the memory gives wrong poses until the
    /// clip changes, never undefined behaviour: the slots are plain data and every decode is bounds-checked.
    pub fn resume(
        arena: &'a Arena<'_>,
        num_joints: usize,
        max_tracks: usize,
        interpolation: Interpolation,
        state: &ContextState,
    ) -> Result<SamplingContext<'a>, Error> {
        let mut context = SamplingContext::with_interpolation(arena, num_joints, max_tracks, interpolation)?;
        let slots = interpolation.frames();
        // Slots the mode does not have hold nothing, whatever the state says.
        context.frames = core::array::from_fn(|s| state.frames[s].checked_sub(1).filter(|_| s < slots));
        let held = state.held.checked_sub(1).map(|s| s as usize);
        context.segment.held = held.filter(|_| !context.segment.decoders.is_empty());
        context.binding = (state.bound == 1).then(|| Binding::from_words(state.binding));
        context.decoded_frames = state.decoded_frames;
        Ok(context)
    }

    /// The context's state, for [`SamplingContext::resume`].
    pub fn suspend(&self) -> ContextState {
        let plus_one = |v: Option<u32>| v.map_or(0, |v| v.saturating_add(1));
        ContextState {
            frames: self.frames.map(plus_one),
            held: plus_one(self.segment.held.map(|s| s as u32)),
            bound: u32::from(self.binding.is_some()),
            binding: self.binding.map_or([0; 7], Binding::to_words),
            decoded_frames: self.decoded_frames,
        }
    }

    /// Forgets the cached frames; the next sample rebinds. Needed only when a clip's memory is rewritten in
    /// place (a context notices a different clip by itself).
    pub fn invalidate(&mut self) {
        self.binding = None;
        self.frames = [None; 4];
        self.segment.held = None;
    }

    /// How jobs sampling through this context interpolate.
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// Frames decoded since the context was made: a measure of the cache working.
    pub fn decoded_frames(&self) -> u64 {
        self.decoded_frames
    }

    fn bind(&mut self, clip: &Clip<'_>, rest_pose: &[SoaTransform]) {
        let span = |address: *const u8, len: usize| (address as usize, len);
        let (keys, ranges) = match clip.keys() {
            Keys::F32(k) => (span(k.as_ptr().cast(), k.len()), (0, 0)),
            Keys::Quantized { keys, ranges } => {
                (span(keys.as_ptr().cast(), keys.len()), span(ranges.as_ptr().cast(), ranges.len()))
            }
            Keys::Compressed(keys) => {
                (span(keys.data.as_ptr(), keys.data.len()), span(keys.ranges.as_ptr().cast(), keys.ranges.len()))
            }
        };
        let constants = span(clip.constants().as_ptr().cast(), clip.constants().len());
        let binding = Binding { keys, ranges, constants, rest_pose: rest_pose.as_ptr() as usize };
        if self.binding == Some(binding) {
            return;
        }
        for slot in &mut self.slots[..self.interpolation.frames()] {
            slot.copy_from_slice(rest_pose);
            let floats: &mut [f32] = bytemuck::cast_slice_mut(slot);
            for c in clip.constants() {
                // Channel tags were validated by `Clip::new`.
                if let Some(channel) = Channel::from_u16(c.channel) {
                    write_track(floats, c.joint, channel, c.value);
                }
            }
        }
        self.frames = [None; 4];
        self.segment.held = None;
        self.binding = Some(binding);
    }

    /// Makes the two slots of a linear context hold frames `f0` and `f1`, decoding only what is missing; returns
    /// (slot of f0, slot of f1). The linear path's own fetch: [`SamplingContext::fetch`] does the same for any
    /// window in more instructions, which the profiler's budgets show on every sample. Inlined: called from the
    /// whole-pose and the chunk paths, the compiler would otherwise keep it out of line (+1.7 % instructions on
    /// the Bandai walk's sampling).
    #[inline(always)]
    fn fetch_pair(&mut self, clip: &Clip<'_>, f0: u32, f1: u32) -> [usize; 2] {
        let find = |frames: &[Option<u32>; 4], f| frames[..2].iter().position(|&held| held == Some(f));
        let (held0, held1) = (find(&self.frames, f0), find(&self.frames, f1));
        if f0 != f1 && held0.is_none() && held1.is_none() {
            // A seek: both frames in one pass, which works out each track's decoding once for the two.
            let [a, b, ..] = &mut self.slots;
            decode_tracks(clip, [f0, f1], [a, b], clip.num_tracks(), Some(&mut self.segment));
            self.frames[..2].copy_from_slice(&[Some(f0), Some(f1)]);
            self.decoded_frames += 2;
            return [0, 1];
        }
        let s0 = held0.unwrap_or_else(|| {
            // Keep the slot holding f1 when there is one.
            let s = usize::from(held1 == Some(0));
            self.decode_one(clip, f0, s);
            s
        });
        // Decoding f0 left the slot holding f1 as it was.
        let s1 = match held1 {
            _ if f0 == f1 => s0,
            Some(s) => s,
            None => {
                let s = 1 - s0;
                self.decode_one(clip, f1, s);
                s
            }
        };
        [s0, s1]
    }

    /// Decodes `frame` into `slot` (the two-frame fetch's, without [`SamplingContext::decode`]'s slot search).
    fn decode_one(&mut self, clip: &Clip<'_>, frame: u32, slot: usize) {
        decode_tracks(clip, [frame], [&mut *self.slots[slot]], clip.num_tracks(), Some(&mut self.segment));
        self.frames[slot] = Some(frame);
        self.decoded_frames += 1;
    }

    /// Makes slots hold `wanted` (repeats allowed, at most one frame per slot), decoding only what is missing,
    /// in one pass when several are (a seek works out each track's decoding once for all of them); returns
    /// each wanted frame's slot.
    fn fetch<const N: usize>(&mut self, clip: &Clip<'_>, wanted: [u32; N]) -> [usize; N] {
        let count = self.interpolation.frames();

        let slot_of = |frames: &[Option<u32>; 4], f: u32| frames[..count].iter().position(|&held| held == Some(f));
        // Slots holding no wanted frame take the missing ones, in slot order.
        let mut free = [0; 4];
        let mut num_free = 0;
        for s in 0..count {
            if !self.frames[s].is_some_and(|f| wanted.contains(&f)) {
                free[num_free] = s;
                num_free += 1;
            }
        }
        let (mut missing, mut targets, mut m) = ([0u32; 4], [0usize; 4], 0);
        for &f in &wanted {
            if slot_of(&self.frames, f).is_none() && !missing[..m].contains(&f) && m < num_free {
                (missing[m], targets[m]) = (f, free[m]);
                m += 1;
            }
        }
        match m {
            1 => self.decode(clip, [missing[0]], [targets[0]]),
            2 => self.decode(clip, [missing[0], missing[1]], [targets[0], targets[1]]),
            3 => self.decode(clip, [0, 1, 2].map(|i| missing[i]), [0, 1, 2].map(|i| targets[i])),
            4 => self.decode(clip, missing, targets),
            _ => {}
        }
        // Every wanted frame is held now (a sample wants no more frames than the context has slots).
        wanted.map(|f| slot_of(&self.frames, f).unwrap_or(0))
    }

    /// Decodes `frames` into the distinct slots `targets` in one pass.
    fn decode<const M: usize>(&mut self, clip: &Clip<'_>, frames: [u32; M], targets: [usize; M]) {
        let mut poses: [&mut [SoaTransform]; M] = core::array::from_fn(|_| &mut [][..]);
        for (s, slot) in self.slots.iter_mut().enumerate() {
            if let Some(k) = targets.iter().position(|&t| t == s) {
                poses[k] = &mut **slot;
            }
        }
        decode_tracks(clip, frames, poses, clip.num_tracks(), Some(&mut self.segment));
        for (frame, s) in frames.into_iter().zip(targets) {
            self.frames[s] = Some(frame);
        }
        self.decoded_frames += M as u64;
    }
}

/// `first_group` for the offline tools and tests (the `tools` feature): the first lane group of `clip` at
/// `time` without a context, equal to [`SamplingJob`]'s output there bit for bit.
#[cfg(feature = "tools")]
pub fn sample_first_group(clip: &Clip<'_>, rest: &SoaTransform, time: f32, playback: Playback) -> SoaTransform {
    first_group(clip, rest, time, playback)
}

/// The first lane group (joints 0–3) of `clip` at `time`, without a context: the motion root's sample.
/// O(log tracks): it decodes the group's tracks of two frames and finds its constants by binary search
/// (`Clip::new` keeps constants in channel, then joint order). The same decode and interpolation as
/// [`SamplingJob`], so its lanes equal the job's output bit for bit.
///
/// `rest` is the skeleton's first rest-pose group; `time` must be finite (else the first frame). Root motion's;
/// the offline tools and tests reach it with the `tools` feature as `sample_first_group`.
pub(crate) fn first_group(clip: &Clip<'_>, rest: &SoaTransform, time: f32, playback: Playback) -> SoaTransform {
    let (f0, f1, fraction) = frame_position(clip, time, playback);
    let mut frames = [*rest; 2];
    let constants = clip.constants();
    let tracks = Channel::ALL.map(|channel| clip.animated_joints(channel).partition_point(|&joint| joint < 4));
    for channel in Channel::ALL {
        let before = |joint: u16| constants.partition_point(|c| (c.channel, c.joint) < (channel as u16, joint));
        for c in &constants[before(0)..before(4)] {
            for frame in &mut frames {
                let floats: &mut [f32] = bytemuck::cast_slice_mut(core::slice::from_mut(frame));
                write_track(floats, c.joint, channel, c.value);
            }
        }
    }
    let [a, b] = &mut frames;
    decode_tracks(clip, [f0, f1], [core::slice::from_mut(a), core::slice::from_mut(b)], tracks, None);
    let mut group = interpolate(&frames[0], &frames[1], F4::splat(fraction));
    if !clip.step_tracks().is_empty() {
        let [a, b] = &frames;
        let (output, writes) = (core::slice::from_mut(&mut group), Writes::<false> { stored: &EVERY_LANE });
        hold_step_tracks(clip, [a, b].map(core::slice::from_ref), fraction, output, writes);
    }
    group
}

/// Samples `clip` at `time` into `output` (ozz's job pattern: borrowed buffers in public fields, `validate`,
/// then `run`).
#[derive(Debug)]
pub struct SamplingJob<'j, 'a> {
    /// The skeleton the clip animates.
    pub skeleton: &'j Skeleton<'j>,
    /// The clip.
    pub clip: &'j Clip<'j>,
    /// Seconds from the clip's first frame.
    pub time: f32,
    /// Looping or clamped at the clip's ends.
    pub playback: Playback,
    /// The context the job decodes through; keep one per clip playing forward.
    pub context: &'j mut SamplingContext<'a>,
    /// `skeleton.num_soa_joints()` lane groups.
    pub output: &'j mut [SoaTransform],
    /// The clip's first `curves.len()` scalar curves at `time` (at most `clip.num_curves()`; empty for none).
    pub curves: &'j mut [f32],
}

impl SamplingJob<'_, '_> {
    /// O(1) checks.
    ///
    /// Errors: `BufferLength` (`SoaPose` for the output, `SamplingContext` for a context sized for another
    /// skeleton, `ClipJoints` when the clip animates a different joint count, `Curves` for more curves asked
    /// than the clip has), `NonFinite` (`SampleTime`).
    pub fn validate(&self) -> Result<(), Error> {
        let n = self.skeleton.num_soa_joints();
        crate::error::check_len(Buffer::ClipJoints, self.skeleton.num_joints(), self.clip.num_joints())?;
        crate::error::check_len(Buffer::SoaPose, n, self.output.len())?;
        crate::error::check_len(Buffer::SamplingContext, n, self.context.slots[0].len())?;
        if self.curves.len() > self.clip.num_curves() {
            return Err(Error::BufferLength {
                buffer: Buffer::Curves,
                expected: self.clip.num_curves(),
                actual: self.curves.len(),
            });
        }
        if !self.time.is_finite() {
            return Err(Error::NonFinite { buffer: Buffer::SampleTime, index: 0 });
        }
        Ok(())
    }

    /// Writes the pose at `time`, interpolated as the context says ([`SamplingContext::interpolation`]).
    pub fn run(&mut self) -> Result<(), Error> {
        self.sample::<false>(&EVERY_LANE)
    }

    /// Writes, of the pose at `time`, only the joints the clip stores a track for (animated or constant, in any
    /// channel), each bit for bit as [`SamplingJob::run`] writes it; the output's other joints keep their values.
    /// How a clip split by bone masks at bake (`sinew-bake bake --chunks`) is put back together: run its first
    /// chunk, then each other chunk into the same output, and the pose is the unsplit clip's, bit for bit; chunks
    /// of different clips (a walk's legs, a rifle's arms) play on one skeleton the same way. Lane groups holding
    /// no stored joint are neither interpolated nor written, so a chunk costs its own joints.
    ///
    /// Errors: as [`SamplingJob::run`].
    pub fn run_chunk(&mut self) -> Result<(), Error> {
        self.sample::<true>(&stored_lanes(self.clip))
    }

    /// [`SamplingJob::run`] writing only `lanes` (per lane group, bit `l` for lane `l`): a chunk node gives its
    /// first leaf the lanes no later leaf stores, so each lane is interpolated once.
    pub(crate) fn run_lanes(&mut self, lanes: &[u8; MAX_JOINTS / 4]) -> Result<(), Error> {
        self.sample::<true>(lanes)
    }

    /// [`SamplingJob::run`], or with `CHUNK` only the lanes `lanes` holds.
    #[inline(always)]
    fn sample<const CHUNK: bool>(&mut self, lanes: &[u8; MAX_JOINTS / 4]) -> Result<(), Error> {
        self.validate()?;
        let clip = self.clip;
        let writes = Writes::<CHUNK> { stored: lanes };
        let (f0, f1, fraction) = frame_position(clip, self.time, self.playback);
        self.context.bind(clip, self.skeleton.rest_pose());
        // At a key both modes give the key, so a cubic context reads four frames only between keys.
        let (a, b) = match self.context.interpolation {
            Interpolation::Cubic if fraction > 0.0 && fraction < 1.0 => {
                let (frames, weights) = cubic_window(clip, f0, fraction, self.playback);
                let [before, a, b, after] = self.context.fetch(clip, frames).map(|s| &*self.context.slots[s]);
                catmull_rom_pass(clip, [before, a, b, after], weights.map(F4::splat), self.output, writes);
                (a, b)
            }
            interpolation => {
                let [s0, s1] = match interpolation {
                    Interpolation::Linear => self.context.fetch_pair(clip, f0, f1),
                    Interpolation::Cubic => self.context.fetch(clip, [f0, f1]),
                };
                let (a, b) = (&*self.context.slots[s0], &*self.context.slots[s1]);
                let t = F4::splat(fraction);
                for (group, ((out, a), b)) in self.output.iter_mut().zip(a).zip(b).enumerate() {
                    writes.write(group, out, || interpolate(a, b, t));
                }
                (a, b)
            }
        };
        if !clip.step_tracks().is_empty() {
            hold_step_tracks(clip, [a, b], fraction, self.output, writes);
        }
        sample_curves(&clip.curves(), curve_position(clip, [f0, f1], fraction), self.curves);
        Ok(())
    }
}

/// Every lane of every group: what the whole-pose path writes. A static, so that path builds no lane array (a
/// 256-byte fill each call).
static EVERY_LANE: [u8; MAX_JOINTS / 4] = [0xF; MAX_JOINTS / 4];

/// Per lane group, the lanes (bit `l` for lane `l`) whose joint `clip` stores a track for, animated or constant.
pub(crate) fn stored_lanes(clip: &Clip<'_>) -> [u8; MAX_JOINTS / 4] {
    let mut lanes = [0u8; MAX_JOINTS / 4];
    let constants = clip.constants().iter().map(|c| c.joint);
    // A validated clip names joints below `num_joints <= MAX_JOINTS`.
    for joint in clip.track_joints().iter().copied().chain(constants) {
        if let Some(group) = lanes.get_mut(usize::from(joint) / 4) {
            *group |= 1 << (joint & 3);
        }
    }
    lanes
}

/// Which lanes a pass writes: every lane, or (`CHUNK`) the stored lanes of each group, the others kept.
#[derive(Clone, Copy)]
struct Writes<'s, const CHUNK: bool> {
    stored: &'s [u8; MAX_JOINTS / 4],
}

impl<const CHUNK: bool> Writes<'_, CHUNK> {
    /// Whether group `group` is written at all.
    #[inline(always)]
    fn any(&self, group: usize) -> bool {
        !CHUNK || self.stored[group] != 0
    }

    /// Writes `value()` into the lanes of `out` this pass writes, working it out only when there are some.
    #[inline(always)]
    fn write(&self, group: usize, out: &mut SoaTransform, value: impl FnOnce() -> SoaTransform) {
        if !CHUNK {
            *out = value();
            return;
        }
        match self.stored[group] {
            0 => {}
            0xF => *out = value(),
            lanes => *out = SoaTransform::select(F4::lane_mask(u32::from(lanes)), &value(), out),
        }
    }
}

/// The four keys a cubic sample between frames `f0` and `f0 + 1` of `clip` reads (before, the two around,
/// after) and their Catmull-Rom weights at `fraction` (in `(0, 1)`). A key missing at a clamped end is
/// extrapolated by folding its weight into the two keys it is made of (`2 p0 − p1`, a mirror image one interval
/// out), its frame given as the nearest key with weight zero; a looping clip wraps over its last frame, a copy of
/// its first.
///
/// With knot times the tangents are the non-uniform Catmull-Rom ones, `m₀ = (p₁ − p₋₁) / (t₁ − t₋₁)` and
/// `m₁ = (p₂ − p₀) / (t₂ − t₀)`, scaled by the interval: C1 in time across knots of any spacing.
fn cubic_window(clip: &Clip<'_>, f0: u32, fraction: f32, playback: Playback) -> ([u32; 4], [f32; 4]) {
    let (f1, last) = (f0 + 1, clip.num_frames().saturating_sub(1) as u32);
    let wraps = playback == Playback::Loop && last >= 2;
    let (t, u) = (fraction, 1.0 - fraction);
    let mut w = match clip.knots() {
        // Factored so that the weights that vanish at an end (as `t` or `1 − t`) keep their precision there.
        [] => [
            -0.5 * t * u * u,
            0.5 * u * (2.0 + t * (2.0 - 3.0 * t)),
            0.5 * t * (1.0 + t * (4.0 - 3.0 * t)),
            -0.5 * t * t * u,
        ],
        knots => {
            let time = |f: u32| knots.get(f as usize).copied().unwrap_or(0.0);
            let (t0, t1) = (time(f0), time(f1));
            let span = t1 - t0;
            // The neighbours' times, one loop earlier or later across a wrap; a clamped end's mirror key sits
            // one interval out, which makes its tangent the one-sided one.
            let before = match f0 {
                0 if wraps => time(last - 1) - time(last),
                0 => t0 - span,
                _ => time(f0 - 1),
            };
            let after = match f1 {
                _ if f1 < last => time(f1 + 1),
                _ if wraps => time(last) + time(1),
                _ => t1 + span,
            };
            let (a, b) = (span / (t1 - before), span / (after - t0));
            // Hermite with `m₀·span = a (p₁ − p₋₁)` and `m₁·span = b (p₂ − p₀)`.
            [
                -a * t * u * u,
                u * u * (1.0 + 2.0 * t) + b * t * t * u,
                t * t * (3.0 - 2.0 * t) + a * t * u * u,
                -b * t * t * u,
            ]
        }
    };
    let before = match f0 {
        0 if wraps => last - 1,
        0 => {
            (w[1], w[2], w[0]) = (w[1] + 2.0 * w[0], w[2] - w[0], 0.0);
            f0
        }
        _ => f0 - 1,
    };
    let after = match f1 {
        _ if f1 < last => f1 + 1,
        _ if wraps => 1,
        _ => {
            (w[2], w[1], w[3]) = (w[2] + 2.0 * w[3], w[1] - w[3], 0.0);
            f1
        }
    };
    ([before, f0, f1, after], w)
}

/// Which lanes of each lane group animate translation and scale, walking the groups in order: a lane that does
/// not holds the same value in every decoded frame (rest or constant), so its output is that value, exactly (and
/// so the same whatever the other lanes of its group do: a clip split by bone masks reassembles bit for bit).
/// Rigs animate translations and scales at a few joints, so the walk is a few tests per channel and group and
/// most of the cubic pass is rotations, which are always summed (nearly every joint animates one).
struct AnimatedChannels<'c> {
    /// The animated joints of translation and scale from the group being walked on (ascending).
    joints: [&'c [u16]; 2],
}

impl<'c> AnimatedChannels<'c> {
    fn of(clip: &Clip<'c>) -> AnimatedChannels<'c> {
        AnimatedChannels { joints: [Channel::Translation, Channel::Scale].map(|channel| clip.animated_joints(channel)) }
    }

    /// The lanes of lane group `group` that animate translation and scale (bit `l` for lane `l`); call with
    /// `group` 0, 1, 2… in turn.
    #[inline(always)]
    fn next(&mut self, group: usize) -> [u32; 2] {
        let end = 4 * (group + 1);
        self.joints.each_mut().map(|joints| {
            let mut lanes = 0;
            while let Some((&j, rest)) = joints.split_first()
                && (j as usize) < end
            {
                lanes |= 1 << (j & 3);
                *joints = rest;
            }
            lanes
        })
    }
}

/// The cubic pass: `Σ wᵢ kᵢ` of the four keys for translation and scale; for rotation the same sum of the keys
/// on the hemisphere of `a` (each flipped where its dot with the key it follows is negative), normalized.
/// Translations and scales of the lanes that do not animate them are `a`'s (see [`AnimatedChannels`]).
#[inline(always)]
fn catmull_rom_pass<const CHUNK: bool>(
    clip: &Clip<'_>,
    keys: [&[SoaTransform]; 4],
    w: [F4; 4],
    output: &mut [SoaTransform],
    writes: Writes<'_, CHUNK>,
) {
    let sum = |w: [F4; 4], x: [F4; 4]| w[3].mul_add(x[3], w[2].mul_add(x[2], w[1].mul_add(x[1], w[0] * x[0])));
    let vec3 =
        |v: [SoaVec3; 4]| SoaVec3 { x: sum(w, v.map(|v| v.x)), y: sum(w, v.map(|v| v.y)), z: sum(w, v.map(|v| v.z)) };
    let [before, a, b, after] = keys;
    let mut animated = AnimatedChannels::of(clip);
    let groups = output.iter_mut().zip(before).zip(a).zip(b).zip(after);
    for (group, ((((out, p), a), b), n)) in groups.enumerate() {
        let [translation, scale] = animated.next(group);
        if !writes.any(group) {
            continue;
        }
        writes.write(group, out, || {
            let keys = [p, a, b, n];
            let held = |lanes: u32, v: [SoaVec3; 4]| match lanes {
                0 => v[1],
                0xF => vec3(v),
                lanes => SoaVec3::select(F4::lane_mask(lanes), vec3(v), v[1]),
            };
            // Flipping a key is flipping its weight: `b` onto `a`'s side, `p` onto `a`'s, `n` onto the flipped `b`'s.
            let (ab, bn) = (a.rotation.dot(b.rotation), b.rotation.dot(n.rotation));
            let wr =
                [w[0].mul_sign(p.rotation.dot(a.rotation)), w[1], w[2].mul_sign(ab), w[3].mul_sign(bn).mul_sign(ab)];
            let q = keys.map(|k| k.rotation);
            let rotation = SoaQuat {
                x: sum(wr, q.map(|q| q.x)),
                y: sum(wr, q.map(|q| q.y)),
                z: sum(wr, q.map(|q| q.z)),
                w: sum(wr, q.map(|q| q.w)),
            };
            SoaTransform {
                translation: held(translation, keys.map(|k| k.translation)),
                rotation: rotation.normalize(),
                scale: held(scale, keys.map(|k| k.scale)),
            }
        });
    }
}

/// Makes the lanes of `output` that hold step tracks (`Clip::step_tracks`) show the held frame: `a` (or `b` at
/// the clip's end, where the later frame holds), as the linear interpolation of `a` and `b` gives it at the held
/// frame's time; the other lanes keep what the job wrote. Out of line: callers test for step tracks first, so
/// other clips pay one test.
#[cold]
#[inline(never)]
fn hold_step_tracks<const CHUNK: bool>(
    clip: &Clip<'_>,
    [a, b]: [&[SoaTransform]; 2],
    fraction: f32,
    output: &mut [SoaTransform],
    writes: Writes<'_, CHUNK>,
) {
    // Per lane group, bit `4 × channel + lane` for each step track.
    let mut masks = [0u16; MAX_JOINTS / 4];
    let ([t, r, _], joints) = (clip.num_tracks(), clip.track_joints());
    for &track in clip.step_tracks() {
        let track = track as usize;
        let channel = (track >= t) as usize + (track >= t + r) as usize;
        // `Clip::with_step_tracks` keeps every index below the track count, and joints are below `MAX_JOINTS`.
        if let Some(mask) = joints.get(track).and_then(|&joint| masks.get_mut(joint as usize / 4)) {
            *mask |= 1 << (4 * channel + (joints[track] as usize & 3));
        }
    }
    // A chunk holds only the lanes it writes, in every channel.
    if CHUNK {
        for (mask, &lanes) in masks.iter_mut().zip(writes.stored) {
            let lanes = u16::from(lanes);
            *mask &= lanes | lanes << 4 | lanes << 8;
        }
    }
    let held = F4::splat(if fraction >= 1.0 { 1.0 } else { 0.0 });
    // The root-motion sampler's output is one group: the others have nothing to hold there.
    for (((out, a), b), &mask) in output.iter_mut().zip(a).zip(b).zip(&masks).filter(|(_, m)| **m != 0) {
        let hold = interpolate(a, b, held);
        let [t, r, s] = [0, 1, 2].map(|c| F4::lane_mask(u32::from(mask >> (4 * c) & 0xF)));
        let (h, o) = (hold.rotation, out.rotation);
        out.translation = SoaVec3::select(t, hold.translation, out.translation);
        out.rotation = SoaQuat {
            x: F4::select(r, h.x, o.x),
            y: F4::select(r, h.y, o.y),
            z: F4::select(r, h.z, o.z),
            w: F4::select(r, h.w, o.w),
        };
        out.scale = SoaVec3::select(s, hold.scale, out.scale);
    }
}

/// The frames and fraction `clip`'s curves are sampled at, from the tracks' position: the frame held, when its
/// curves step.
fn curve_position(clip: &Clip<'_>, [f0, f1]: [u32; 2], fraction: f32) -> ([u32; 2], f32) {
    match (clip.has_step_curves(), fraction >= 1.0) {
        (false, _) => ([f0, f1], fraction),
        (true, false) => ([f0, f0], 0.0),
        (true, true) => ([f1, f1], 0.0),
    }
}

/// The first `out.len()` of `curves` between frames `f0` and `f1`, `fraction` of the way.
fn sample_curves(curves: &Curves<'_>, ([f0, f1], fraction): ([u32; 2], f32), out: &mut [f32]) {
    if out.is_empty() {
        return;
    }
    // The frame after is read only when it shows, so a value at a frame's time is that frame's, exactly.
    let lerp = |a: f32, b: f32| (b - a) * fraction + a;
    match curves.keys {
        CurveKeys::F32(values) => {
            let frame = |f: u32| values.get(f as usize * curves.count..).and_then(|v| v.get(..out.len()));
            // `Clip::with_curves` checked the value count; nothing is written rather than panic all the same.
            let (Some(a), Some(b)) = (frame(f0), frame(f1)) else { return };
            if fraction == 0.0 {
                out.copy_from_slice(a);
                return;
            }
            for ((o, &a), &b) in out.iter_mut().zip(a).zip(b) {
                *o = lerp(a, b);
            }
        }
        CurveKeys::Compressed(keys) => {
            let (s0, s1) = (f0 as usize / SEGMENT_FRAMES, f1 as usize / SEGMENT_FRAMES);
            if fraction == 0.0 {
                decode_curves(keys, curves.count, [f0], out.len(), |k, [a]| out[k] = a);
            } else if s0 == s1 {
                decode_curves(keys, curves.count, [f0, f1], out.len(), |k, [a, b]| out[k] = lerp(a, b));
            } else {
                // Once a segment, the two frames lie in two segments, with two tables.
                decode_curves(keys, curves.count, [f0], out.len(), |k, [a]| out[k] = a);
                decode_curves(keys, curves.count, [f1], out.len(), |k, [b]| out[k] = lerp(out[k], b));
            }
        }
    }
}

/// The two frames around `time` and the fraction between them, after looping or clamping; for a clip with step
/// keys, the frame that holds at `time` twice and no fraction (a time within the snap resolution below a frame
/// is that frame's, as for interpolated clips). `time` must be finite.
pub(crate) fn frame_position(clip: &Clip<'_>, time: f32, playback: Playback) -> (u32, u32, f32) {
    // A tail call: the uniform path, every other clip's, stays a leaf with no stack frame to set up.
    if !clip.knots().is_empty() {
        return knot_frame_position(clip, time, playback);
    }
    let position = interpolation_position(clip.num_frames(), clip.sample_rate(), time, playback);
    held_position(clip, position)
}

/// [`frame_position`] of a clip on knot times.
#[inline(never)]
fn knot_frame_position(clip: &Clip<'_>, time: f32, playback: Playback) -> (u32, u32, f32) {
    held_position(clip, knot_position(clip.knots(), time, playback))
}

/// An interpolated position `(f0, f1, fraction)`, or for a clip with step keys the frame that holds there.
#[inline(always)]
fn held_position(clip: &Clip<'_>, (f0, f1, fraction): (u32, u32, f32)) -> (u32, u32, f32) {
    if !clip.has_step_keys() {
        return (f0, f1, fraction);
    }
    // Snapping left fractions of exactly 1 only at the clip's end: the last frame holds from its time on.
    let held = if fraction >= 1.0 { f1 } else { f0 };
    (held, held, 0.0)
}

/// [`frame_position`] of an interpolated clip of `num_frames` frames at `sample_rate`.
fn interpolation_position(num_frames: usize, sample_rate: f32, time: f32, playback: Playback) -> (u32, u32, f32) {
    if num_frames < 2 {
        return (0, 0, 0.0);
    }
    let x = onto_clip(time * sample_rate, (num_frames - 1) as f32, playback);
    let last_interval = num_frames as u32 - 2;
    let f0 = (libm::floorf(x) as u32).min(last_interval);
    let fraction = (x - f0 as f32).clamp(0.0, 1.0);
    // `x` carries the rounding of `time` and of the product (a few ulps): fractions that close to a key
    // cannot be told from the key, so they snap to it. Keys then come back exactly at their times even late
    // in long clips, and no fraction is subnormal.
    snap(f0, fraction, (x * SNAP_ULPS).max(MIN_FRACTION), last_interval)
}

/// [`frame_position`] of an interpolated clip with knot times `knots` (strictly increasing from 0): the knots
/// around `time` by binary search. A time within the snap resolution of a knot is that knot's, exactly as for
/// uniform frames, so a golden pose comes back at its time bit for bit.
#[inline(always)]
fn knot_position(knots: &[f32], time: f32, playback: Playback) -> (u32, u32, f32) {
    let n = knots.len();
    if n < 2 {
        return (0, 0, 0.0);
    }
    let t = onto_clip(time, knots[n - 1], playback);
    let last_interval = n - 2;
    let f0 = knots.partition_point(|&knot| knot <= t).saturating_sub(1).min(last_interval);
    let span = knots[f0 + 1] - knots[f0];
    let fraction = ((t - knots[f0]) / span).clamp(0.0, 1.0);
    // The time carries a few ulps of rounding (of itself and of the wrap); in the interval's fraction that is
    // `t × SNAP_ULPS / span`.
    snap(f0 as u32, fraction, (t * SNAP_ULPS / span).max(MIN_FRACTION), last_interval as u32)
}

/// `x` (a frame coordinate or a time) on `[0, last]`: clamped, or wrapped for a looping clip; 0 when not finite.
#[inline(always)]
fn onto_clip(x: f32, last: f32, playback: Playback) -> f32 {
    let x = match playback {
        Playback::Clamp => x.clamp(0.0, last),
        // rem_euclid without std: the result lies in [0, last].
        Playback::Loop => {
            let r = x - libm::floorf(x / last) * last;
            if r >= last || r < 0.0 { 0.0 } else { r }
        }
    };
    if x.is_finite() { x } else { 0.0 }
}

/// Interval `f0` and the fraction into it, a fraction within `resolution` of a key snapped to that key (onto the
/// next interval's start, or to 1 at the end of the last interval, `last_interval`).
#[inline(always)]
fn snap(mut f0: u32, mut fraction: f32, resolution: f32, last_interval: u32) -> (u32, u32, f32) {
    if fraction < resolution {
        fraction = 0.0;
    } else if fraction > 1.0 - resolution {
        if f0 < last_interval {
            f0 += 1;
            fraction = 0.0;
        } else {
            fraction = 1.0;
        }
    }
    (f0, f0 + 1, fraction)
}

/// Relative resolution of the frame coordinate, 4 ulps (`2^-21`): a fraction within `x × SNAP_ULPS` (at least
/// [`MIN_FRACTION`]) of a key at frame coordinate `x` snaps to it.
pub const SNAP_ULPS: f32 = 1.0 / 2_097_152.0;
