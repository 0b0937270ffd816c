//! Motion correction and warp points (Gears of War 4, Just Cause 3) as small value types the game keeps, each
//! with a step function: turn-to-face, shift-to-spot, the dynamic turn, steering, the playback rate, lean,
//! speed curves, discrete target speeds and speed ranges, the root's motion between two clip times, and warp
//! points bending the root's path. Nothing
//! here touches a character; the game applies the answers to its world transform or a control's speed.
//!
//! Units: seconds (animation time for segments, game time for steering and lean), radians, the clip's units.

use crate::asset::sinew_asset;
use crate::status::{
    SINEW_ERROR_INDEX_OUT_OF_RANGE, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NULL_POINTER, SINEW_OK, put,
    sinew_status, status_of,
};
use core::mem::{align_of, size_of};
use sinew::curve::{Curve, CurveKey};
use sinew::error::Error;
use sinew::math::Vec3;
use sinew::motion_correction::{
    Facing, Lean, LeanState, ShiftToSpot, SpeedCurve, Steering, TurnToFace, dynamic_turn, playback_rate,
};
use sinew::root_motion::{RootMotion, WarpPoint, WarpWindow, motion_between};
use sinew::speed_ranges::{SpeedRange, SpeedRanges, SpeedShare, SpeedStep, TargetSpeeds};

fn vec3(a: [f32; 3]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

/// Writes `value` through `out`, or the status of the error.
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn answer<T>(out: *mut T, value: Result<T, Error>) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { put(out, value.map_err(status_of)) }
}

/// Reads `*value`, or `SINEW_ERROR_NULL_POINTER`.
///
/// # Safety
/// `value` is NULL or readable.
unsafe fn read<T: Copy>(value: *const T) -> Result<T, sinew_status> {
    // SAFETY: the caller's contract.
    unsafe { crate::jobs::read_request(value) }
}

/// A root's place or step: a ground translation and a turn about +Y.
///
/// Layout: 16 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_root_motion {
    /// Translation, the clip's units.
    pub translation: [f32; 3],
    /// Yaw, radians.
    pub yaw: f32,
}

const _: () = assert!(size_of::<sinew_root_motion>() == 16 && align_of::<sinew_root_motion>() == 4);

impl sinew_root_motion {
    fn core(self) -> RootMotion {
        RootMotion { translation: vec3(self.translation), yaw: self.yaw }
    }

    fn of(m: RootMotion) -> sinew_root_motion {
        sinew_root_motion { translation: m.translation.to_array(), yaw: m.yaw }
    }
}

/// The motion clip `clip`'s root makes from local time `start` to `end` (each clamped to the clip), its turn
/// unwrapped frame by frame (a segment may turn several half turns; backward it is the inverse): a turn
/// segment's authored turn for `sinew_turn_to_face`, or a warp marker's unwarped place.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (clip).
///
/// # Safety
/// `asset` points to a loaded asset; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_clip_motion_between(
    asset: *const sinew_asset,
    clip: u32,
    start: f32,
    end: f32,
    out: *mut sinew_root_motion,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let motion = unsafe { crate::asset::stored(asset) }.and_then(|a| {
        let c = a.asset.clip(clip as usize).ok_or(SINEW_ERROR_INDEX_OUT_OF_RANGE)?;
        let rest = &a.asset.skeleton().rest_pose()[0];
        Ok(sinew_root_motion::of(motion_between(&c, rest, start, end)))
    });
    // SAFETY: the caller's contract.
    unsafe { put(out, motion) }
}

/// A turn-to-face segment: over `[start, end]` of animation time the clip turns the root by `authored`
/// radians (`sinew_clip_motion_between`'s yaw); the game wants `desired` (the facing it wants at the end minus
/// the facing at entry), so the difference is added, evenly over the segment.
///
/// Layout: 16 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_turn_to_face {
    /// Animation time the segment starts, seconds.
    pub start: f32,
    /// Animation time it ends, seconds, `>= start`.
    pub end: f32,
    /// The clip's own turn over the segment, radians (unwrapped).
    pub authored: f32,
    /// The turn the game wants, radians (taken within π of `authored`).
    pub desired: f32,
}

const _: () = assert!(size_of::<sinew_turn_to_face>() == 16 && align_of::<sinew_turn_to_face>() == 4);

/// The yaw (radians) to add for a step of animation time from `from` to `to`: the correction times the
/// share of the segment the step covers, so any partition of the segment into steps adds the whole
/// correction.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a value not finite or `end < start`.
///
/// # Safety
/// `segment` is readable; `yaw` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_turn_to_face_step(
    segment: *const sinew_turn_to_face,
    from: f32,
    to: f32,
    yaw: *mut f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let turn = unsafe { read(segment) }.and_then(|s| {
        let turn = TurnToFace::new(s.start, s.end, s.authored, s.desired).map_err(status_of)?;
        finite_step(from, to).map(|_| turn.step(from, to))
    });
    // SAFETY: the caller's contract.
    unsafe { put(yaw, turn) }
}

/// `SINEW_ERROR_INVALID_ARGUMENT` unless both ends of a step are finite.
fn finite_step(from: f32, to: f32) -> Result<(), sinew_status> {
    if from.is_finite() && to.is_finite() { Ok(()) } else { Err(SINEW_ERROR_INVALID_ARGUMENT) }
}

/// A shift-to-spot segment: over `[start, end]` of animation time the root would end at `predicted` (the
/// game's prediction, in its world); the game wants `target`, so the difference is added evenly.
///
/// Layout: 32 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_shift_to_spot {
    /// Animation time the segment starts, seconds.
    pub start: f32,
    /// Animation time it ends, seconds, `>= start`.
    pub end: f32,
    /// Where the root would end.
    pub predicted: [f32; 3],
    /// Where it should end.
    pub target: [f32; 3],
}

const _: () = assert!(size_of::<sinew_shift_to_spot>() == 32 && align_of::<sinew_shift_to_spot>() == 4);

/// The world translation (`offset[3]`) to add for a step of animation time from `from` to `to`.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a value not finite or `end < start`.
///
/// # Safety
/// `segment` is readable; `offset` points to three writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_shift_to_spot_step(
    segment: *const sinew_shift_to_spot,
    from: f32,
    to: f32,
    offset: *mut f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let shift = unsafe { read(segment) }.and_then(|s| {
        let shift = ShiftToSpot::new(s.start, s.end, vec3(s.predicted), vec3(s.target)).map_err(status_of)?;
        finite_step(from, to).map(|_| shift.step(from, to).to_array())
    });
    // SAFETY: the caller's contract (three writable floats).
    unsafe { put(offset.cast::<[f32; 3]>(), shift) }
}

/// The yaw to add for a step of a dynamic turn toward a moving target: `error` is the target facing minus the
/// facing the clip reaches at the segment's end uncorrected (radians, wrapped here); the step from `from` to
/// `to` applies it in proportion to the part of what is left of `[start, end]` it covers.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a value not finite.
///
/// # Safety
/// `yaw` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_dynamic_turn(
    error: f32,
    from: f32,
    to: f32,
    start: f32,
    end: f32,
    yaw: *mut f32,
) -> sinew_status {
    let finite = [error, from, to, start, end].iter().all(|v| v.is_finite());
    let turn = if finite { Ok(dynamic_turn(error, from, to, start, end)) } else { Err(SINEW_ERROR_INVALID_ARGUMENT) };
    // SAFETY: the caller's contract.
    unsafe { put(yaw, turn) }
}

/// Steering limits: facing follows a requested direction with at most this angular acceleration and rate,
/// braking so it never overshoots.
///
/// Layout: 8 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_steering {
    /// Radians per second squared, > 0.
    pub max_acceleration: f32,
    /// Radians per second, > 0.
    pub max_rate: f32,
}

/// A steered facing: yaw (radians, unwrapped) and its rate (radians per second). Zero to start.
///
/// Layout: 8 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_facing {
    /// Yaw, radians.
    pub yaw: f32,
    /// Turn rate, radians per second.
    pub rate: f32,
}

/// Moves `*facing` `dt` seconds on, steering toward `target` (radians; the shorter way round).
///
/// Errors, `*facing` unchanged: `SINEW_ERROR_INVALID_ARGUMENT` for limits not finite and > 0, a target,
/// facing or `dt` not finite, or `dt < 0`.
///
/// # Safety
/// `steering` is readable; `facing` readable and writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_steering_step(
    steering: *const sinew_steering,
    facing: *mut sinew_facing,
    target: f32,
    dt: f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let next = unsafe { (read(steering), read(facing.cast_const())) };
    let next = match next {
        (Ok(s), Ok(f)) => (|| {
            let steering = Steering::new(s.max_acceleration, s.max_rate).map_err(status_of)?;
            if ![target, dt, f.yaw, f.rate].iter().all(|v| v.is_finite()) || dt < 0.0 {
                return Err(SINEW_ERROR_INVALID_ARGUMENT);
            }
            let Facing { yaw, rate } = steering.step(Facing { yaw: f.yaw, rate: f.rate }, target, dt);
            Ok(sinew_facing { yaw, rate })
        })(),
        (Err(status), _) | (_, Err(status)) => Err(status),
    };
    // SAFETY: the caller's contract.
    unsafe { put(facing, next) }
}

/// Visual speed correction: the playback rate making a clip authored at `reference_speed` look right at
/// `game_speed`, clamped to `[min_rate, max_rate]`, for a control's speed.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a value not finite, a reference speed or minimum rate not > 0, or
/// `min_rate > max_rate`.
///
/// # Safety
/// `rate` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_playback_rate(
    game_speed: f32,
    reference_speed: f32,
    min_rate: f32,
    max_rate: f32,
    rate: *mut f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { answer(rate, playback_rate(game_speed, reference_speed, min_rate, max_rate)) }
}

/// From stick deflection `pad` on (up to the next step's), the character heads for `speed`: Just Cause 3's
/// discrete target speeds (walk below 0.3, run from 0.3), for `sinew_target_speed`.
///
/// Layout: 8 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_speed_step {
    /// Stick deflection in `[0, 1]`; the first step's is 0, each next one's larger.
    pub pad: f32,
    /// Target speed, finite and `>= 0`.
    pub speed: f32,
}

const _: () = assert!(size_of::<sinew_speed_step>() == size_of::<SpeedStep>());
const _: () = assert!(align_of::<sinew_speed_step>() == align_of::<SpeedStep>());

/// The target speed at stick deflection `pad` (clamped to `[0, 1]`): the speed of the last of the `num_steps`
/// steps at `steps` at or below it.
///
/// Errors, nothing written: `SINEW_ERROR_INVALID_ARGUMENT` for no steps, a first step not at 0, deflections
/// outside `[0, 1]` or not increasing, a speed not finite or below 0, or a NaN `pad`.
///
/// # Safety
/// `steps` points to `num_steps` readable steps; `speed` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_target_speed(
    steps: *const sinew_speed_step,
    num_steps: usize,
    pad: f32,
    speed: *mut f32,
) -> sinew_status {
    // SAFETY: the caller's contract; `sinew_speed_step` and `SpeedStep` are two `f32` in one order.
    let steps = unsafe { crate::jobs::input::<_, SpeedStep>(steps, num_steps) };
    let target = steps.and_then(|steps| TargetSpeeds::new(steps).and_then(|t| t.at(pad)).map_err(status_of));
    // SAFETY: the caller's contract.
    unsafe { put(speed, target) }
}

/// One core locomotion clip's speed range (Just Cause 3: walk `[0, 3.5]`, run `[2.5, 5.5]` m/s), for
/// `sinew_speed_ranges_select`.
///
/// Layout: 16 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_speed_range {
    /// Slowest speed the clip plays at.
    pub low: f32,
    /// Fastest speed the clip plays at, `> low`.
    pub high: f32,
    /// The speed the clip was authored at, `> 0`: its playback rate's reference.
    pub reference_speed: f32,
    /// The game's name for the clip (its index in the asset, typically), carried to the shares.
    pub clip: u32,
}

const _: () = assert!(size_of::<sinew_speed_range>() == size_of::<SpeedRange>());
const _: () = assert!(align_of::<sinew_speed_range>() == align_of::<SpeedRange>());

/// A clip playing at a speed: its blend weight and playback rate.
///
/// Layout: 12 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_speed_share {
    /// The range's `clip`.
    pub clip: u32,
    /// Blend weight in `(0, 1]`; the shares' weights sum to one.
    pub weight: f32,
    /// Playback rate: the speed over the clip's reference speed, clamped to the rate limits.
    pub rate: f32,
}

const _: () = assert!(size_of::<sinew_speed_share>() == size_of::<SpeedShare>());

/// The clips playing at `speed` over the `num_ranges` speed ranges at `ranges` (slowest first, each overlapping
/// the next only): one share inside a range (or past the ends), two in an overlap, the faster clip weighted
/// linearly across it. Writes `*count` (1 or 2) shares to `shares`, slower first.
///
/// Errors, nothing written: `SINEW_ERROR_INVALID_ARGUMENT` for no ranges, a value not finite, `low >= high`, a
/// reference speed or minimum rate not > 0, `min_rate > max_rate`, lows or highs not increasing, neighbours not
/// overlapping, three ranges overlapping at once, or a speed not finite.
///
/// # Safety
/// `ranges` points to `num_ranges` readable ranges; `shares` to two writable shares; `count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_speed_ranges_select(
    ranges: *const sinew_speed_range,
    num_ranges: usize,
    min_rate: f32,
    max_rate: f32,
    speed: f32,
    shares: *mut sinew_speed_share,
    count: *mut u32,
) -> sinew_status {
    if shares.is_null() || count.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract; `sinew_speed_range` and `SpeedRange` have one layout (asserted).
    let ranges = unsafe { crate::jobs::input::<_, SpeedRange>(ranges, num_ranges) };
    let selected =
        ranges.and_then(|r| SpeedRanges::new(r, min_rate, max_rate).and_then(|r| r.select(speed)).map_err(status_of));
    let selected = match selected {
        Ok(selected) => selected,
        Err(status) => return status,
    };
    let chosen = selected.as_slice();
    // SAFETY: both checked not NULL; writable (two shares, one count) by the caller's contract.
    unsafe {
        for (k, share) in chosen.iter().enumerate() {
            shares.add(k).write(sinew_speed_share { clip: share.clip, weight: share.weight, rate: share.rate });
        }
        count.write(chosen.len() as u32);
    }
    SINEW_OK
}

/// Lean into turns: the angle follows `gain · yaw rate` (clamped to `±max`) as a critically damped spring of
/// `time_constant` seconds; the game applies it about the moving-forward axis of a joint it chooses.
///
/// Layout: 12 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_lean {
    /// Radians of lean per radian per second of turn.
    pub gain: f32,
    /// The largest lean, radians, > 0.
    pub max: f32,
    /// Seconds, > 0.
    pub time_constant: f32,
}

/// A lean's state: angle (radians) and rate (radians per second). Zero to start.
///
/// Layout: 8 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_lean_state {
    /// Lean angle, radians.
    pub angle: f32,
    /// Its rate, radians per second.
    pub rate: f32,
}

/// Moves `*state` `dt` seconds on while the character turns at `yaw_rate` (radians per second), stepped
/// exactly (any frame rate gives the same curve).
///
/// Errors, `*state` unchanged: `SINEW_ERROR_INVALID_ARGUMENT` for a lean out of range, a value not finite, or
/// `dt < 0`.
///
/// # Safety
/// `lean` is readable; `state` readable and writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_lean_step(
    lean: *const sinew_lean,
    state: *mut sinew_lean_state,
    yaw_rate: f32,
    dt: f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let next = match unsafe { (read(lean), read(state.cast_const())) } {
        (Ok(l), Ok(s)) => (|| {
            let lean = Lean::new(l.gain, l.max, l.time_constant).map_err(status_of)?;
            if ![yaw_rate, dt, s.angle, s.rate].iter().all(|v| v.is_finite()) || dt < 0.0 {
                return Err(SINEW_ERROR_INVALID_ARGUMENT);
            }
            let LeanState { angle, rate } = lean.step(LeanState { angle: s.angle, rate: s.rate }, yaw_rate, dt);
            Ok(sinew_lean_state { angle, rate })
        })(),
        (Err(status), _) | (_, Err(status)) => Err(status),
    };
    // SAFETY: the caller's contract.
    unsafe { put(state, next) }
}

/// One key of a speed curve: time (seconds), speed, and slope (speed per second), a cubic Hermite spline
/// through the keys.
///
/// Layout: 12 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_curve_key {
    /// Seconds, strictly increasing from key to key.
    pub time: f32,
    /// The speed there.
    pub value: f32,
    /// The slope there, speed per second.
    pub slope: f32,
}

const _: () = assert!(size_of::<sinew_curve_key>() == size_of::<CurveKey>());

/// The speed curve over the `num_keys` keys at `keys`.
///
/// # Safety
/// `keys` is NULL or points to `num_keys` readable keys.
unsafe fn speed_curve<'a>(keys: *const sinew_curve_key, num_keys: usize) -> Result<SpeedCurve<'a>, sinew_status> {
    // SAFETY: the caller's contract; `sinew_curve_key` and `CurveKey` are three `f32` in one order.
    let keys = unsafe { crate::jobs::input::<_, CurveKey>(keys, num_keys) }?;
    Curve::new(keys).and_then(SpeedCurve::new).map_err(status_of)
}

/// The elapsed time at which the monotone speed curve at `keys` has `speed` (the first or last key's time
/// outside its range): where to enter a curve so the speed never jumps.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for fewer than two keys, a value not finite, times not increasing, a
/// curve not monotone, or a NaN speed.
///
/// # Safety
/// `keys` points to `num_keys` readable keys; `elapsed` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_speed_curve_enter(
    keys: *const sinew_curve_key,
    num_keys: usize,
    speed: f32,
    elapsed: *mut f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let time = unsafe { speed_curve(keys, num_keys) }.and_then(|c| c.enter(speed).map_err(status_of));
    // SAFETY: the caller's contract.
    unsafe { put(elapsed, time) }
}

/// Moves `*elapsed` along the speed curve at `keys` by `dt` seconds and writes the distance covered (the
/// curve's exact integral over the step) and the speed reached.
///
/// Errors, nothing written: those of `sinew_speed_curve_enter`; `SINEW_ERROR_INVALID_ARGUMENT` for an elapsed
/// time or `dt` not finite, or `dt < 0`.
///
/// # Safety
/// `keys` points to `num_keys` readable keys; `elapsed` is readable and writable; `distance` and `speed`
/// are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_speed_curve_step(
    keys: *const sinew_curve_key,
    num_keys: usize,
    elapsed: *mut f32,
    dt: f32,
    distance: *mut f32,
    speed: *mut f32,
) -> sinew_status {
    if distance.is_null() || speed.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    let step = unsafe { (speed_curve(keys, num_keys), read(elapsed.cast_const())) };
    let (curve, now) = match step {
        (Ok(curve), Ok(now)) => (curve, now),
        (Err(status), _) | (_, Err(status)) => return status,
    };
    if !(now.is_finite() && dt.is_finite() && dt >= 0.0) {
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    let (later, covered) = curve.step(now, dt);
    // SAFETY: all three checked not NULL and writable by the caller's contract.
    unsafe {
        elapsed.write(later);
        distance.write(covered);
        speed.write(curve.speed(later));
    }
    SINEW_OK
}

/// When one channel of a warp moves toward its target: from `start` to `end` seconds of clip time along a
/// smoothstep; all of it from `end` on. `start == end` is a step.
///
/// Layout: 8 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_warp_window {
    /// Clip time the warp starts, seconds.
    pub start: f32,
    /// Clip time it ends, seconds, at most the marker's.
    pub end: f32,
}

/// A warp point (Gears of War 4): the root's unwarped place at a marker (`sinew_clip_motion_between` from the
/// segment's entry, composed with the character's world transform) is taken to `target`, the path bending with
/// translation, rotation (of the path about the marker) and facing, each over its own window.
///
/// Layout: 60 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_warp_point {
    /// The unwarped root at the marker.
    pub marker: sinew_root_motion,
    /// Where the root should be at the marker.
    pub target: sinew_root_motion,
    /// The marker's clip time, seconds.
    pub marker_time: f32,
    /// Translation, rotation and facing windows, each ending by `marker_time`.
    pub windows: [sinew_warp_window; 3],
}

const _: () = assert!(size_of::<sinew_warp_point>() == 60 && align_of::<sinew_warp_point>() == 4);

/// The warped root at clip `time`, from the unwarped one: before every window it is `*unwarped` bit for bit;
/// from the last window's end on, the marker maps exactly onto the target.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a value not finite, or a window ending before it starts or after
/// the marker.
///
/// # Safety
/// `warp` and `unwarped` are readable; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_warp_point_apply(
    warp: *const sinew_warp_point,
    unwarped: *const sinew_root_motion,
    time: f32,
    out: *mut sinew_root_motion,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let warped = match unsafe { (read(warp), read(unwarped)) } {
        (Ok(w), Ok(u)) => (|| {
            let windows = w.windows.map(|w| WarpWindow { start: w.start, end: w.end });
            let point = WarpPoint::new(w.marker.core(), w.target.core(), w.marker_time, windows).map_err(status_of)?;
            let u = u.core();
            if !(u.translation.is_finite() && u.yaw.is_finite() && time.is_finite()) {
                return Err(SINEW_ERROR_INVALID_ARGUMENT);
            }
            Ok(sinew_root_motion::of(point.apply(u, time)))
        })(),
        (Err(status), _) | (_, Err(status)) => Err(status),
    };
    // SAFETY: the caller's contract.
    unsafe { put(out, warped) }
}
