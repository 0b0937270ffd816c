//! Discrete target speeds and overlapping speed ranges (Just Cause 3): the pad picks one of a few target
//! speeds, and a speed picks the core locomotion clips that play and how fast.
//!
//! - [`TargetSpeeds`]: the stick's deflection mapped to discrete speeds (walk below 0.3, run from 0.3), so the
//!   character always heads for a speed a clip was authored at and never stays slow-motion or sped up.
//! - [`SpeedRanges`]: one speed range per core clip (walk `[0, 3.5]`, run `[2.5, 5.5]` m/s). Inside one range
//!   that clip plays alone; in the overlap of two neighbours both play, blended by a weight that runs linearly
//!   from 0 to 1 across the overlap (the source gives no curve: linear is continuous and sums to one). Each
//!   playing clip's rate is the visual speed correction ([`playback_rate`]) toward the speed.
//!
//! Units: the game's speed units (m/s in the source) and the pad's `[0, 1]`. Errors: `InvalidCorrection` for a
//! non-finite value or ranges that do not cover one interval in order (see [`SpeedRanges::new`]). Precision:
//! `f32`; weights sum to one within 1 ulp and are continuous in the speed.
//!
//! [`playback_rate`]: crate::motion::motion_correction::playback_rate

use crate::error::Error;
use crate::motion::motion_correction::playback_rate;

/// From this deflection on (up to the next step's), the character heads for `speed`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct SpeedStep {
    /// Stick deflection in `[0, 1]`; the first step's is 0.
    pub pad: f32,
    /// Target speed.
    pub speed: f32,
}

/// The pad's discrete target speeds: steps in increasing `pad` order, the first at 0.
#[derive(Clone, Copy, Debug)]
pub struct TargetSpeeds<'a> {
    steps: &'a [SpeedStep],
}

impl<'a> TargetSpeeds<'a> {
    /// Errors: `InvalidCorrection` for no steps, a first step not at 0, deflections outside `[0, 1]` or not
    /// strictly increasing, or a speed that is not finite or is negative.
    pub fn new(steps: &'a [SpeedStep]) -> Result<TargetSpeeds<'a>, Error> {
        let first_at_zero = steps.first().is_some_and(|s| s.pad == 0.0);
        let valid = |s: &SpeedStep| (0.0..=1.0).contains(&s.pad) && s.speed.is_finite() && s.speed >= 0.0;
        let increasing = steps.windows(2).all(|w| w[0].pad < w[1].pad);
        if !first_at_zero || !steps.iter().all(valid) || !increasing {
            return Err(Error::InvalidCorrection);
        }
        Ok(TargetSpeeds { steps })
    }

    /// The target speed at deflection `pad` (clamped to `[0, 1]`): the last step at or below it.
    ///
    /// Errors: `InvalidCorrection` for a NaN deflection.
    pub fn at(&self, pad: f32) -> Result<f32, Error> {
        if pad.is_nan() {
            return Err(Error::InvalidCorrection);
        }
        let pad = pad.clamp(0.0, 1.0);
        // `new` put a step at 0, so at least one step is at or below any deflection.
        let below = self.steps.partition_point(|s| s.pad <= pad);
        Ok(self.steps[below.max(1) - 1].speed)
    }
}

/// One core clip's speed range.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct SpeedRange {
    /// Slowest speed the clip plays at.
    pub low: f32,
    /// Fastest speed the clip plays at, `> low`.
    pub high: f32,
    /// The speed the clip was authored at (its visual speed correction's reference), `> 0`.
    pub reference_speed: f32,
    /// The game's name for the clip (an index into its asset, typically); carried through to the shares.
    pub clip: u32,
}

/// A clip playing at a speed: its blend weight and its playback rate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct SpeedShare {
    /// The range's `clip`.
    pub clip: u32,
    /// Blend weight in `(0, 1]`; the shares' weights sum to one.
    pub weight: f32,
    /// Playback rate, the speed over the clip's reference speed clamped to the ranges' rate limits.
    pub rate: f32,
}

/// The clips playing at one speed: one share, or two in an overlap (the slower range's first).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpeedShares {
    shares: [SpeedShare; 2],
    count: usize,
}

impl SpeedShares {
    /// The shares, one or two.
    pub fn as_slice(&self) -> &[SpeedShare] {
        &self.shares[..self.count]
    }
}

/// Speed ranges of the core locomotion clips, slowest first, each overlapping the next, and the rate limits of
/// their visual speed correction.
#[derive(Clone, Copy, Debug)]
pub struct SpeedRanges<'a> {
    ranges: &'a [SpeedRange],
    min_rate: f32,
    max_rate: f32,
}

impl<'a> SpeedRanges<'a> {
    /// Errors: `InvalidCorrection` for no ranges; a value that is not finite; `low >= high`; a reference speed
    /// or minimum rate not `> 0`, or `min_rate > max_rate`; ranges whose lows or highs do not increase; two
    /// neighbours that do not overlap (`next.low >= high`: a speed between them would play nothing); or a range
    /// overlapping the one after its neighbour (`ranges[i + 2].low < ranges[i].high`: three clips at once).
    pub fn new(ranges: &'a [SpeedRange], min_rate: f32, max_rate: f32) -> Result<SpeedRanges<'a>, Error> {
        let valid = |r: &SpeedRange| {
            [r.low, r.high, r.reference_speed].iter().all(|v| v.is_finite())
                && r.low < r.high
                && r.reference_speed > 0.0
        };
        let rates = min_rate.is_finite() && max_rate.is_finite() && min_rate > 0.0 && min_rate <= max_rate;
        let neighbours =
            ranges.windows(2).all(|w| w[0].low < w[1].low && w[0].high < w[1].high && w[1].low < w[0].high);
        let no_three = ranges.windows(3).all(|w| w[2].low >= w[0].high);
        if ranges.is_empty() || !ranges.iter().all(valid) || !rates || !neighbours || !no_three {
            return Err(Error::InvalidCorrection);
        }
        Ok(SpeedRanges { ranges, min_rate, max_rate })
    }

    /// The clips playing at `speed`: below the first range the first clip alone, above the last the last alone;
    /// inside one range that clip alone; in the overlap `[next.low, high]` of two both, the faster one weighted
    /// `(speed − next.low) / (high − next.low)` (a weight of 0 at an overlap's end is left out).
    ///
    /// Errors: `InvalidCorrection` for a speed that is not finite.
    pub fn select(&self, speed: f32) -> Result<SpeedShares, Error> {
        if !speed.is_finite() {
            return Err(Error::InvalidCorrection);
        }
        let share = |range: &SpeedRange, weight: f32| -> Result<SpeedShare, Error> {
            let rate = playback_rate(speed, range.reference_speed, self.min_rate, self.max_rate)?;
            Ok(SpeedShare { clip: range.clip, weight, rate })
        };
        // The first range whose high is at or above the speed (the last one past them all).
        let at = self.ranges.partition_point(|r| r.high < speed).min(self.ranges.len() - 1);
        let range = &self.ranges[at];
        let alone = |range| Ok(SpeedShares { shares: [share(range, 1.0)?, SpeedShare::default()], count: 1 });
        let Some(next) = self.ranges.get(at + 1).filter(|next| speed > next.low) else { return alone(range) };
        // In (next.low, range.high]: at the high end the slower clip's weight is 0, so the faster plays alone.
        let faster = (speed - next.low) / (range.high - next.low);
        if faster >= 1.0 {
            return alone(next);
        }
        Ok(SpeedShares { shares: [share(range, 1.0 - faster)?, share(next, faster)?], count: 2 })
    }
}
