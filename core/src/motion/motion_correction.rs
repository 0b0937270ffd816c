//! Motion correction (Just Cause 3): the game bends the extracted root motion toward what it wants, and the
//! pose follows without knowing. Pure functions of small state, applied to [`RootMotion`] steps or a
//! control's speed; nothing here samples.
//!
//! - [`TurnToFace`]: a segment of a clip (an annotation range) whose authored turn is corrected so the
//!   character ends it facing the desired way, the correction spread evenly over the segment in animation time
//!   (so a playback-rate change does not break it; any partition of the segment into steps sums to it exactly).
//! - [`dynamic_turn`]: the same toward a target that moves: each step applies the remaining error in
//!   proportion to the segment time it covers.
//! - [`Steering`]: facing that follows a requested direction with a limited angular acceleration and rate,
//!   braking so it never overshoots.
//! - [`ShiftToSpot`]: the same for the position: the segment ends on a spot.
//! - [`SpeedCurve`]: game-driven speed along an authorable acceleration (or deceleration) curve, entered at
//!   the current speed so switching curves never jumps, its displacement integrated exactly.
//! - [`playback_rate`]: visual speed correction, the clip's playback rate matched to the game's speed.
//!
//! Units: seconds of animation time (segments) or game time (steering), radians, the clip's units per second.
//!
//! [`RootMotion`]: crate::motion::root_motion::RootMotion

use crate::data::asset::Range;
use crate::data::clip::Clip;
use crate::data::curve::Curve;
use crate::error::Error;
use crate::math::wrap_angle as wrap;
use crate::math::{SoaTransform, Vec3};
use crate::motion::root_motion::motion_between;
use core::f32::consts::PI;

/// The part of the step `(from, to]` (either direction) inside `[start, end]`, as a length.
fn overlap(from: f32, to: f32, start: f32, end: f32) -> f32 {
    let (lo, hi) = if from <= to { (from, to) } else { (to, from) };
    (hi.min(end) - lo.max(start)).max(0.0)
}

/// A segment of animation time `[start, end]` over which a fixed correction is spread evenly.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Segment {
    start: f32,
    end: f32,
}

impl Segment {
    fn new(start: f32, end: f32) -> Result<Segment, Error> {
        if !(start.is_finite() && end.is_finite()) || end < start {
            return Err(Error::InvalidCorrection);
        }
        Ok(Segment { start, end })
    }

    /// The share of the segment the step from `from` to `to` covers, in [0, 1]: all of it, once, when a
    /// zero-length segment lies in the step.
    fn share(&self, from: f32, to: f32) -> f32 {
        let length = self.end - self.start;
        if length <= 0.0 {
            let (lo, hi) = if from <= to { (from, to) } else { (to, from) };
            return if lo < self.start && self.start <= hi { 1.0 } else { 0.0 };
        }
        (overlap(from, to, self.start, self.end) / length).min(1.0)
    }
}

/// A turn-to-face segment: over `[start, end]` of animation time the clip turns the root by `authored`
/// radians; the game wants `desired` instead, so `desired − authored` is added, evenly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurnToFace {
    segment: Segment,
    correction: f32,
}

impl TurnToFace {
    /// `authored` is the segment's turn from the root track (unwrapped); `desired` the facing the game wants
    /// at the end minus the facing at entry, taken as the representative nearest `authored` (within π of it).
    ///
    /// Errors: `InvalidCorrection` for a NaN or infinite value or `end < start`.
    pub fn new(start: f32, end: f32, authored: f32, desired: f32) -> Result<TurnToFace, Error> {
        let segment = Segment::new(start, end)?;
        if !(authored.is_finite() && desired.is_finite()) {
            return Err(Error::InvalidCorrection);
        }
        Ok(TurnToFace { segment, correction: wrap(desired - authored) })
    }

    /// The segment `range` of `clip` (an annotation range, say one named "turn"), its authored turn read from
    /// the clip's root track ([`motion_between`], unwrapped); `desired` as in [`TurnToFace::new`]. `rest` is the
    /// skeleton's first rest-pose group.
    ///
    /// Errors: those of [`TurnToFace::new`].
    pub fn over(clip: &Clip<'_>, rest: &SoaTransform, range: &Range, desired: f32) -> Result<TurnToFace, Error> {
        let authored = motion_between(clip, rest, range.start, range.end).yaw;
        TurnToFace::new(range.start, range.end, authored, desired)
    }

    /// The whole correction the segment adds, in (−π, π].
    pub fn correction(&self) -> f32 {
        self.correction
    }

    /// The yaw to add for a step of animation time from `from` to `to`: the correction times the share of the
    /// segment the step covers.
    pub fn step(&self, from: f32, to: f32) -> f32 {
        self.correction * self.segment.share(from, to)
    }
}

/// The translation variant (Just Cause 3: "end up on a very specific spot"): over `[start, end]` of animation
/// time the root would end at `predicted` (the caller's prediction: its world root composed with
/// [`motion_between`] from now to `end`, under the facing it plans); the game wants `target`, so the
/// difference is added to the world position evenly over the segment. Space: the world's (the caller's), as
/// both points are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShiftToSpot {
    segment: Segment,
    correction: Vec3,
}

impl ShiftToSpot {
    /// Errors: `InvalidCorrection` for a NaN or infinite value or `end < start`.
    pub fn new(start: f32, end: f32, predicted: Vec3, target: Vec3) -> Result<ShiftToSpot, Error> {
        let segment = Segment::new(start, end)?;
        let correction = target - predicted;
        if !correction.is_finite() {
            return Err(Error::InvalidCorrection);
        }
        Ok(ShiftToSpot { segment, correction })
    }

    /// The whole shift the segment adds.
    pub fn correction(&self) -> Vec3 {
        self.correction
    }

    /// The world translation to add for a step of animation time from `from` to `to`.
    pub fn step(&self, from: f32, to: f32) -> Vec3 {
        self.correction.scaled(self.segment.share(from, to))
    }
}

/// Dynamic turn-to-face toward a moving target: `error` is the target facing minus the facing the clip will
/// reach at the segment's end if uncorrected (radians, wrapped here); the step from `from` to `to` (forward
/// animation time) applies it in proportion to the part of what is left of `[start, end]` it covers, so the
/// error left at `end` is whatever the target moved during the last step.
pub fn dynamic_turn(error: f32, from: f32, to: f32, start: f32, end: f32) -> f32 {
    let left = end - from.max(start);
    if left <= 0.0 || !(error.is_finite()) {
        return 0.0;
    }
    wrap(error) * (overlap(from, to, start, end) / left).min(1.0)
}

/// Facing that follows a requested direction with a limited angular acceleration and rate (Just Cause 3's
/// authorable rates): the rate wanted is the braking curve `sign(e) · min(max_rate, √(2 · max_acceleration ·
/// |e|))` toward the error `e` (in its discrete-time form, `α dt (√(1/4 + 2|e| / (α dt²)) − 1/2)`, so braking
/// step by step stops exactly), the rate moves toward it by at most `max_acceleration · dt`, and a step that
/// would pass the target stops on it; there the rate drains to 0 at the same limit while the yaw stays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Steering {
    max_acceleration: f32,
    max_rate: f32,
}

/// A steered facing: yaw (radians, unwrapped) and its rate (radians per second).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Facing {
    /// Yaw, radians, unwrapped.
    pub yaw: f32,
    /// Turn rate, radians per second.
    pub rate: f32,
}

impl Steering {
    /// Errors: `InvalidCorrection` unless both limits are finite and > 0.
    pub fn new(max_acceleration: f32, max_rate: f32) -> Result<Steering, Error> {
        let positive = |v: f32| v.is_finite() && v > 0.0;
        if !(positive(max_acceleration) && positive(max_rate)) {
            return Err(Error::InvalidCorrection);
        }
        Ok(Steering { max_acceleration, max_rate })
    }

    /// `facing` `dt` seconds on, steering toward `target` (radians; the shorter way round, a target straight
    /// behind turned the way the facing already turns, or positive from rest). A NaN target or `dt` leaves
    /// the facing as it is.
    pub fn step(&self, facing: Facing, target: f32, dt: f32) -> Facing {
        if !(target.is_finite() && dt.is_finite() && dt > 0.0) {
            return facing;
        }
        let mut error = wrap(target - facing.yaw);
        if error == PI && facing.rate < 0.0 {
            error = -PI;
        }
        // The fastest rate from which steps of `max_acceleration · dt` less each still stop within `|e|`: the
        // braking curve √(2 α |e|) in discrete time, so the landing step is at most one step's acceleration.
        let per_step = self.max_acceleration * dt;
        let steps = crate::math::sqrt(0.25 + 2.0 * error.abs() / (per_step * dt)) - 0.5;
        let wanted = error.signum() * self.max_rate.min(per_step * steps);
        let most = self.max_acceleration * dt;
        let rate = facing.rate + (wanted - facing.rate).clamp(-most, most);
        let turn = rate * dt;
        if error == 0.0 || (turn * error > 0.0 && turn.abs() >= error.abs()) {
            // On the target the yaw stays; the rate drains to 0 at the acceleration limit.
            let drained = if facing.rate.abs() <= most { 0.0 } else { facing.rate - most.copysign(facing.rate) };
            let settled = if error == 0.0 { drained } else { rate };
            return Facing { yaw: facing.yaw + error, rate: settled };
        }
        Facing { yaw: facing.yaw + turn, rate }
    }
}

/// Visual speed correction: the playback rate that makes a clip authored at `reference_speed` look right at
/// `game_speed`, clamped to `[min_rate, max_rate]`. It scales the control's speed, never the motion.
///
/// Errors: `InvalidCorrection` for a NaN or infinite value, a reference speed or minimum rate not > 0, or
/// `min_rate > max_rate`.
pub fn playback_rate(game_speed: f32, reference_speed: f32, min_rate: f32, max_rate: f32) -> Result<f32, Error> {
    let finite = [game_speed, reference_speed, min_rate, max_rate].iter().all(|v| v.is_finite());
    if !finite || reference_speed <= 0.0 || min_rate <= 0.0 || min_rate > max_rate {
        return Err(Error::InvalidCorrection);
    }
    Ok((game_speed / reference_speed).clamp(min_rate, max_rate))
}

/// Procedural lean from the turn rate (Just Cause 3), clamped and stabilized so it never oscillates into a
/// drunken sway: the target is `clamp(gain · yaw_rate, −max, max)` and the lean follows it as a critically
/// damped spring of time constant `time_constant` (stepped exactly, so any frame rate gives the same curve),
/// clamped to `±max`. The caller applies it as a rotation about the moving-forward axis of a joint it chooses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lean {
    gain: f32,
    max: f32,
    time_constant: f32,
}

/// The lean's state: angle (radians) and its rate (radians per second).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LeanState {
    /// Lean angle, radians.
    pub angle: f32,
    /// Its rate, radians per second.
    pub rate: f32,
}

impl Lean {
    /// `gain` in radians of lean per radian per second of turn, `max` radians, `time_constant` seconds.
    ///
    /// Errors: `InvalidCorrection` unless `gain` is finite and `max` and `time_constant` finite and > 0.
    pub fn new(gain: f32, max: f32, time_constant: f32) -> Result<Lean, Error> {
        let positive = |v: f32| v.is_finite() && v > 0.0;
        if !(gain.is_finite() && positive(max) && positive(time_constant)) {
            return Err(Error::InvalidCorrection);
        }
        Ok(Lean { gain, max, time_constant })
    }

    /// The lean `dt` seconds on while turning at `yaw_rate` (radians per second). A NaN input or a `dt` not
    /// > 0 leaves the state as it is.
    pub fn step(&self, state: LeanState, yaw_rate: f32, dt: f32) -> LeanState {
        if !(yaw_rate.is_finite() && dt.is_finite() && dt > 0.0) {
            return state;
        }
        let target = (self.gain * yaw_rate).clamp(-self.max, self.max);
        // y(t) = (y0 + (v0 + w y0) t) e^(−w t) about the target, w = 1 / time constant.
        let w = 1.0 / self.time_constant;
        let (y0, v0) = (state.angle - target, state.rate);
        let decay = libm::expf(-w * dt);
        let angle = target + (y0 + (v0 + w * y0) * dt) * decay;
        let rate = (v0 - w * (v0 + w * y0) * dt) * decay;
        if angle.abs() > self.max {
            return LeanState { angle: angle.clamp(-self.max, self.max), rate: 0.0 };
        }
        LeanState { angle, rate }
    }
}

/// Game-driven speed along an authorable, monotone curve of speed over elapsed time (Just Cause 3's
/// acceleration and deceleration curves): a state is the time `elapsed` along the curve; a step moves it on by
/// `dt` and returns the distance covered, the curve's exact integral over the step (so any partition of a
/// stretch into steps covers the same distance, to f32 rounding of each step's own distance). Switching to
/// another curve enters it where it has the current speed ([`SpeedCurve::enter`]), so the speed never jumps.
/// Units: seconds and the curve's speed units (distance units per second).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeedCurve<'a> {
    curve: Curve<'a>,
}

impl<'a> SpeedCurve<'a> {
    /// Errors: `InvalidCurve` when the curve is not monotone (its inverse would be ambiguous).
    pub fn new(curve: Curve<'a>) -> Result<SpeedCurve<'a>, Error> {
        curve.monotone().ok_or(Error::InvalidCurve)?;
        Ok(SpeedCurve { curve })
    }

    /// The elapsed time at which the curve has `speed` (its first key's time or last's when `speed` lies
    /// outside its range).
    ///
    /// Errors: `InvalidCurve` for a NaN speed.
    pub fn enter(&self, speed: f32) -> Result<f32, Error> {
        self.curve.time_of(speed)
    }

    /// The speed at `elapsed`.
    pub fn speed(&self, elapsed: f32) -> f32 {
        self.curve.value(elapsed)
    }

    /// `(elapsed + dt, distance covered)`. A NaN or negative `dt` moves nothing.
    pub fn step(&self, elapsed: f32, dt: f32) -> (f32, f32) {
        if !(dt >= 0.0 && dt.is_finite()) {
            return (elapsed, 0.0);
        }
        (elapsed + dt, self.curve.integral(elapsed, elapsed + dt))
    }
}
