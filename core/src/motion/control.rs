//! Animation controls: one clip playing on one character (the textbook's "animation control"): its clock
//! (local time, speed, wrap mode), its weight and fade, and the markers a step crosses.
//!
//! The clock integrates: each step adds `speed · dt` to the local time, so changing the speed never moves the
//! time (the textbook's requirement). A step of any size wraps as many times as it must and reports how many.
//! Time is kept as a *phase* inside one period of the wrap mode, so it never grows and `f32` precision never
//! decays however long a clip plays: `Loop` has period `D` (the clip's duration) and time = phase; `PingPong` has
//! period `2D`, time = phase on the way out and `2D − phase` on the way back; `Clamp` has no period and the
//! phase is clamped to `[0, D]`.
//!
//! Markers: [`Step::crossings`] lists, in playback order, every marker time the step passed over, once per
//! pass, wraps and turnarounds included. A marker fires when the phase crosses it in the half-open interval
//! `(before, after]` (forward) or `[after, before)` (backward), so steps that partition an interval fire the same
//! markers whatever their sizes, and a marker at the exact start time of a control does not fire.
//!
//! Units: seconds of local time, local seconds per game second for speed, weights as plain factors.
//! Precision: a step computes in `f64` (the product `speed · dt` is exact there) and rounds the phase to `f32`
//! once; wrap counts come from the `f64` phase.
//! Errors: every setter and step validates first and leaves the control unchanged on an `Err`.

use crate::data::asset::Marker;
use crate::error::Error;
use crate::limits::{MAX_SPEED, MAX_TIME_STEP};
use bytemuck::{Pod, Zeroable};

/// What happens at the ends of the clip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Wrap {
    /// Time wraps around: `D` and `0` are the same instant.
    Loop = 0,
    /// Time stops at `0` and `D`; the step that reaches the end reports `finished`.
    Clamp = 1,
    /// Time bounces between `0` and `D`, reversing direction at each end.
    PingPong = 2,
}

impl Wrap {
    fn from_u32(raw: u32) -> Wrap {
        match raw {
            1 => Wrap::Clamp,
            2 => Wrap::PingPong,
            _ => Wrap::Loop,
        }
    }

    /// One period in phase units, or 0 when the phase does not wrap.
    fn period(self, duration: f32) -> f64 {
        match self {
            Wrap::Loop => duration as f64,
            Wrap::PingPong => 2.0 * duration as f64,
            Wrap::Clamp => 0.0,
        }
    }
}

/// A weight that moves linearly toward a target (a fade), used for controls and layers alike.
///
/// Units: weight per second for `rate`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Fade {
    /// The weight now.
    pub weight: f32,
    /// The weight it moves toward.
    pub target: f32,
    /// Weight units per second; 0 while settled.
    pub rate: f32,
}

impl Fade {
    /// A settled weight.
    pub const fn at(weight: f32) -> Fade {
        Fade { weight, target: weight, rate: 0.0 }
    }

    /// Moves toward `target`, reaching it `duration` seconds from now (at once for a duration of 0).
    ///
    /// Errors (nothing changes): `InvalidFade` for a target that is NaN, infinite or negative, or a duration
    /// that is NaN, infinite or negative.
    pub fn fade_to(&mut self, target: f32, duration: f32) -> Result<(), Error> {
        if !(target.is_finite() && target >= 0.0 && duration.is_finite() && duration >= 0.0) {
            return Err(Error::InvalidFade);
        }
        let distance = (target - self.weight).abs();
        *self = if duration == 0.0 || distance == 0.0 {
            Fade::at(target)
        } else {
            Fade { weight: self.weight, target, rate: distance / duration }
        };
        Ok(())
    }

    /// The fade `dt` seconds on (`dt` finite and ≥ 0); lands exactly on the target.
    pub fn advanced(self, dt: f32) -> Fade {
        if self.rate == 0.0 {
            return self;
        }
        let step = self.rate * dt;
        let remaining = self.target - self.weight;
        if step >= remaining.abs() {
            Fade::at(self.target)
        } else {
            Fade { weight: self.weight + step.copysign(remaining), ..self }
        }
    }

    /// True when neither now nor later the weight is above 0: such controls and layers are not evaluated.
    pub fn is_silent(&self) -> bool {
        self.weight == 0.0 && self.target == 0.0
    }
}

/// One clip playing: clock, wrap mode, weight (see the module docs).
///
/// Layout: `repr(C)`, 32 bytes, plain data: a character stores its controls in its own memory block.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Control {
    clip: u32,
    wrap: u32,
    duration: f32,
    /// Position in the wrap mode's period (see the module docs).
    phase: f32,
    speed: f32,
    fade: Fade,
}

/// What one [`Control::advance`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Local time before the step, seconds.
    pub from: f32,
    /// Local time after the step, seconds.
    pub to: f32,
    /// Wraps (`Loop`: passes through the clip's end; `PingPong`: turnarounds) in the direction of play:
    /// positive forward, negative backward; 0 for `Clamp`.
    pub wraps: i64,
    /// `Clamp` only: the step reached the end it was playing toward (`D` forward, `0` backward).
    pub finished: bool,
    wrap: Wrap,
    duration: f32,
    /// Where the step started and ended as (period, phase within it), the start in period 0: compared as
    /// pairs, so a marker's position never loses a tiny time to rounding against a large period count.
    phase_from: f64,
    end: (i64, f64),
}

impl Control {
    /// Plays `clip` (an index the caller gives meaning to: the character's asset) from local `time` at `speed`.
    ///
    /// Errors: `InvalidTime` unless `duration` is finite and ≥ 0 and `time` lies in `[0, duration]`;
    /// `InvalidSpeed` unless `speed` is finite with `|speed| ≤ MAX_SPEED`; `InvalidFade` for a NaN, infinite
    /// or negative weight.
    pub fn new(clip: u32, duration: f32, wrap: Wrap, time: f32, speed: f32, weight: f32) -> Result<Control, Error> {
        if !(duration.is_finite() && duration >= 0.0 && time >= 0.0 && time <= duration) {
            return Err(Error::InvalidTime);
        }
        check_speed(speed)?;
        let mut fade = Fade::at(0.0);
        fade.fade_to(weight, 0.0)?;
        // Loop time D is time 0; everything else keeps the time as its phase.
        let phase = if wrap == Wrap::Loop && time >= duration { 0.0 } else { time };
        Ok(Control { clip, wrap: wrap as u32, duration, phase, speed, fade })
    }

    /// The clip index in the asset.
    #[inline]
    pub fn clip(&self) -> u32 {
        self.clip
    }

    /// What happens at the clip's ends.
    #[inline]
    pub fn wrap(&self) -> Wrap {
        Wrap::from_u32(self.wrap)
    }

    /// The clip's duration, seconds, as given to [`Control::new`].
    #[inline]
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// Playback speed: 1 is the clip's own, negative plays backward.
    #[inline]
    pub fn speed(&self) -> f32 {
        self.speed
    }

    /// The weight's fade.
    #[inline]
    pub fn fade(&self) -> Fade {
        self.fade
    }

    /// The weight now.
    #[inline]
    pub fn weight(&self) -> f32 {
        self.fade.weight
    }

    /// Local time, seconds, in `[0, D]` (`[0, D)` for `Loop`).
    #[inline]
    pub fn time(&self) -> f32 {
        local_time(self.wrap(), self.duration, self.phase)
    }

    /// Local time over duration, in `[0, 1]`: the currency synced layers share (0 for a zero-length clip).
    #[inline]
    pub fn normalized_time(&self) -> f32 {
        if self.duration > 0.0 { (self.time() / self.duration).min(1.0) } else { 0.0 }
    }

    /// Changes the speed; the local time stays exactly where it is.
    ///
    /// Errors: `InvalidSpeed` (see [`Control::new`]).
    pub fn set_speed(&mut self, speed: f32) -> Result<(), Error> {
        check_speed(speed)?;
        self.speed = speed;
        Ok(())
    }

    /// Jumps to local `time` (scrubbing). On the way back of a `PingPong` the direction is kept.
    ///
    /// Errors: `InvalidTime` unless `time` lies in `[0, D]`.
    pub fn set_time(&mut self, time: f32) -> Result<(), Error> {
        if !(time >= 0.0 && time <= self.duration) {
            return Err(Error::InvalidTime);
        }
        let returning = self.wrap() == Wrap::PingPong && self.phase > self.duration;
        self.phase = match self.wrap() {
            Wrap::Loop if time >= self.duration => 0.0,
            Wrap::PingPong if returning && time < self.duration => 2.0 * self.duration - time,
            _ => time,
        };
        Ok(())
    }

    /// Fades the weight to `target` over `duration` seconds (see [`Fade::fade_to`]).
    pub fn fade_to(&mut self, target: f32, duration: f32) -> Result<(), Error> {
        self.fade.fade_to(target, duration)
    }

    /// The control `dt` seconds later and what the step did; `self` is unchanged, so a caller can check the
    /// rest of its frame before committing.
    ///
    /// Errors: `InvalidTimeStep` unless `dt` is finite with `0 ≤ dt ≤ MAX_TIME_STEP`.
    pub fn advanced(&self, dt: f32) -> Result<(Control, Step), Error> {
        check_time_step(dt)?;
        let (wrap, duration) = (self.wrap(), self.duration);
        let phase_from = self.phase as f64;
        let unwrapped = phase_from + self.speed as f64 * dt as f64;
        let period = wrap.period(duration);
        let (phase, periods, finished) = if period > 0.0 {
            let mut periods = libm::floor(unwrapped / period);
            let mut phase = (unwrapped - periods * period) as f32;
            // Rounding to `f32` can land on the period itself: that is the next period's 0.
            if phase as f64 >= period || phase < 0.0 {
                phase = 0.0;
                periods += 1.0;
            }
            (phase, periods as i64, false)
        } else {
            // Clamp, or a zero-length clip.
            let limit = duration as f64;
            let finished =
                (unwrapped > phase_from && unwrapped >= limit) || (unwrapped < phase_from && unwrapped <= 0.0);
            (unwrapped.clamp(0.0, limit) as f32, 0, finished)
        };
        // Ping-pong turns at every half period; a loop wraps once per period.
        let wraps = match wrap {
            Wrap::PingPong => {
                let half = |p: f64| i64::from(p >= duration as f64);
                2 * periods + half(phase as f64) - half(phase_from)
            }
            _ => periods,
        };
        let next = Control { phase, fade: self.fade.advanced(dt), ..*self };
        // The step ends on the `f32` phase it stores, so consecutive steps tile the phase line exactly.
        let end = (periods, phase as f64);
        let step = Step { from: self.time(), to: next.time(), wraps, finished, wrap, duration, phase_from, end };
        Ok((next, step))
    }

    /// Advances in place (see [`Control::advanced`]).
    pub fn advance(&mut self, dt: f32) -> Result<Step, Error> {
        let (next, step) = self.advanced(dt)?;
        *self = next;
        Ok(step)
    }
}

/// Local time of a phase.
fn local_time(wrap: Wrap, duration: f32, phase: f32) -> f32 {
    if wrap == Wrap::PingPong && phase > duration { (2.0 * duration - phase).max(0.0) } else { phase }
}

/// `Ok` for a finite speed with `|speed| ≤ MAX_SPEED`, else `InvalidSpeed`.
pub(crate) fn check_speed(speed: f32) -> Result<(), Error> {
    if speed.is_finite() && speed.abs() <= MAX_SPEED { Ok(()) } else { Err(Error::InvalidSpeed) }
}

/// `Ok` for a finite `dt` in `[0, MAX_TIME_STEP]`, else `InvalidTimeStep`.
pub(crate) fn check_time_step(dt: f32) -> Result<(), Error> {
    if dt.is_finite() && (0.0..=MAX_TIME_STEP).contains(&dt) { Ok(()) } else { Err(Error::InvalidTimeStep) }
}

/// Anything with a local time a step can cross: `f32` seconds, or an asset's markers.
pub trait MarkerTime {
    /// The local time, seconds.
    fn time(&self) -> f32;
}

impl MarkerTime for f32 {
    #[inline]
    fn time(&self) -> f32 {
        *self
    }
}

impl MarkerTime for Marker {
    #[inline]
    fn time(&self) -> f32 {
        self.time
    }
}

impl Step {
    /// The wrap mode of the control that stepped.
    #[inline]
    pub fn wrap(&self) -> Wrap {
        self.wrap
    }

    /// The clip's duration, seconds.
    #[inline]
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// The markers at `times` (local seconds, sorted ascending, within `[0, D]`) this step passed over, in
    /// playback order, as indices into `times`; a marker passed `k` times appears `k` times. Lazy: a huge step
    /// costs only what the caller takes.
    pub fn crossings<'m, M: MarkerTime>(&self, times: &'m [M]) -> Crossings<'m, M> {
        let period = self.wrap.period(self.duration);
        let start = (0, self.phase_from);
        let forward = self.end > start;
        let mut crossings = Crossings {
            times,
            wrap: self.wrap,
            duration: self.duration as f64,
            period,
            forward,
            // Nothing fires for a step that does not move, or a zero-length looping clip.
            done: self.end == start || times.is_empty() || (self.wrap != Wrap::Clamp && period == 0.0),
            cycle: 0,
            slot: 0,
            start,
            end: self.end,
        };
        if !crossings.done && !forward {
            crossings.slot = crossings.slots() - 1;
        }
        crossings
    }
}

/// The markers a [`Step`] crossed (see [`Step::crossings`]).
#[derive(Clone, Debug)]
pub struct Crossings<'m, M> {
    times: &'m [M],
    wrap: Wrap,
    duration: f64,
    period: f64,
    forward: bool,
    done: bool,
    /// Current period and position within it (see `slots`).
    cycle: i64,
    slot: usize,
    /// Where the step started and ended, as (period, phase): the markers in `(start, end]` fire forward,
    /// those in `[end, start)` backward.
    start: (i64, f64),
    end: (i64, f64),
}

impl<M: MarkerTime> Crossings<'_, M> {
    /// Marker positions per period: `Loop` and `Clamp` have one per marker, `PingPong` two (out and back).
    fn slots(&self) -> usize {
        if self.wrap == Wrap::PingPong { 2 * self.times.len() } else { self.times.len() }
    }

    /// The marker and its (period, phase) at `slot` of the current period, in ascending phase order. A
    /// ping-pong marker at an end is passed once per turnaround, so its mirror is not listed (`None`).
    fn marker_at(&self, slot: usize) -> Option<(usize, (i64, f64))> {
        let n = self.times.len();
        let (marker, phase) = if slot < n {
            (slot, self.times[slot].time() as f64)
        } else {
            let marker = 2 * n - 1 - slot;
            let time = self.times[marker].time() as f64;
            if !(time > 0.0 && time < self.duration) {
                return None;
            }
            (marker, self.period - time)
        };
        // The end of a period is the next one's start (a loop's `D` is its `0`): one name per instant, so a
        // step ending there and the step after it agree on who fires it.
        Some(match self.period > 0.0 && phase >= self.period {
            true => (marker, (self.cycle + 1, phase - self.period)),
            false => (marker, (self.cycle, phase)),
        })
    }
}

impl<M: MarkerTime> Iterator for Crossings<'_, M> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let slots = self.slots();
        while !self.done {
            let here = self.marker_at(self.slot);
            // Step to the next position in playback order.
            if self.forward {
                self.slot += 1;
                if self.slot == slots {
                    self.slot = 0;
                    self.cycle += 1;
                    self.done |= self.period == 0.0;
                }
            } else if self.slot == 0 {
                self.slot = slots - 1;
                self.cycle -= 1;
                self.done |= self.period == 0.0;
            } else {
                self.slot -= 1;
            }
            let Some((marker, at)) = here else { continue };
            if self.forward {
                if at > self.end {
                    self.done = true;
                } else if at > self.start {
                    return Some(marker);
                }
            } else if at < self.end {
                self.done = true;
            } else if at < self.start {
                return Some(marker);
            }
        }
        None
    }
}
