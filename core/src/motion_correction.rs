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
//! - [`playback_rate`]: visual speed correction, the clip's playback rate matched to the game's speed.
//!
//! Units: seconds of animation time (segments) or game time (steering), radians, the clip's units per second.
//!
//! [`RootMotion`]: crate::root_motion::RootMotion

use crate::Error;
use crate::root_motion::wrap_angle as wrap;
use core::f32::consts::PI;

/// The part of the step `(from, to]` (either direction) inside `[start, end]`, as a length.
fn overlap(from: f32, to: f32, start: f32, end: f32) -> f32 {
    let (lo, hi) = if from <= to { (from, to) } else { (to, from) };
    (hi.min(end) - lo.max(start)).max(0.0)
}

/// A turn-to-face segment: over `[start, end]` of animation time the clip turns the root by `authored`
/// radians; the game wants `desired` instead, so `desired − authored` is added, evenly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurnToFace {
    start: f32,
    end: f32,
    correction: f32,
}

impl TurnToFace {
    /// `authored` is the segment's turn from the root track (unwrapped); `desired` the facing the game wants
    /// at the end minus the facing at entry, taken as the representative nearest `authored` (within π of it).
    ///
    /// Errors: `InvalidCorrection` for a NaN or infinite value or `end < start`.
    pub fn new(start: f32, end: f32, authored: f32, desired: f32) -> Result<TurnToFace, Error> {
        if ![start, end, authored, desired].iter().all(|v| v.is_finite()) || end < start {
            return Err(Error::InvalidCorrection);
        }
        Ok(TurnToFace { start, end, correction: wrap(desired - authored) })
    }

    /// The whole correction the segment adds, in (−π, π].
    pub fn correction(&self) -> f32 {
        self.correction
    }

    /// The yaw to add for a step of animation time from `from` to `to`: the correction times the share of the
    /// segment the step covers (all of it, once, when a zero-length segment lies in the step).
    pub fn step(&self, from: f32, to: f32) -> f32 {
        let length = self.end - self.start;
        if length <= 0.0 {
            let (lo, hi) = if from <= to { (from, to) } else { (to, from) };
            return if lo < self.start && self.start <= hi { self.correction } else { 0.0 };
        }
        self.correction * (overlap(from, to, self.start, self.end) / length)
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
    pub yaw: f32,
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
        let steps = libm::sqrtf(0.25 + 2.0 * error.abs() / (per_step * dt)) - 0.5;
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
    pub angle: f32,
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
