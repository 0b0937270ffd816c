//! Scalar curves: a non-uniform cubic Hermite spline through authored keys (value and slope at each key, keys
//! at any times), the form a live-tunable gameplay curve takes (a speed over time, a weight over a phase).
//!
//! On the segment `[t_i, t_{i+1}]`, `Δ = t_{i+1} − t_i`, `u = (t − t_i) / Δ`:
//! `v(t) = h00(u)·v_i + h10(u)·Δ·m_i + h01(u)·v_{i+1} + h11(u)·Δ·m_{i+1}` with the Hermite basis
//! `h00 = 2u³ − 3u² + 1`, `h10 = u³ − 2u² + u`, `h01 = −2u³ + 3u²`, `h11 = u³ − u²`. Slopes are per second, so a
//! key's slope is the same on both sides (C1 whatever the segment lengths). Before the first key and after the
//! last, the curve holds the end value.
//!
//! Layout: keys are AoS, 12 bytes each (`repr(C)`, `Pod`), borrowed. Units: the caller's (value units per
//! second for slopes). Precision: `f32`; integrals are exact for the cubic (two-point Gauss–Legendre per
//! piece), so their rounding is relative to the integral asked, not to the curve's total.

use crate::error::Error;
use bytemuck::{Pod, Zeroable};

/// One key: time (seconds), value, and slope (value units per second).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CurveKey {
    /// The key's time, seconds.
    pub time: f32,
    /// The curve's value there.
    pub value: f32,
    /// The curve's slope there, value per second.
    pub slope: f32,
}

/// A validated curve over borrowed keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Curve<'a> {
    keys: &'a [CurveKey],
}

impl<'a> Curve<'a> {
    /// Errors: `InvalidCurve` for fewer than two keys, a NaN or infinite field, or times not strictly
    /// increasing.
    pub fn new(keys: &'a [CurveKey]) -> Result<Curve<'a>, Error> {
        let finite = keys.iter().all(|k| k.time.is_finite() && k.value.is_finite() && k.slope.is_finite());
        let increasing = keys.windows(2).all(|w| w[0].time < w[1].time);
        if keys.len() < 2 || !finite || !increasing {
            return Err(Error::InvalidCurve);
        }
        Ok(Curve { keys })
    }

    /// The keys, by increasing time.
    pub fn keys(&self) -> &'a [CurveKey] {
        self.keys
    }

    /// The first key's time and the last's.
    pub fn span(&self) -> (f32, f32) {
        (self.keys[0].time, self.keys[self.keys.len() - 1].time)
    }

    /// The segment holding `t` (the first for earlier times, the last for later ones): O(log keys).
    fn segment(&self, t: f32) -> usize {
        let after = self.keys.partition_point(|k| k.time <= t);
        after.clamp(1, self.keys.len() - 1) - 1
    }

    /// The value at `t` on segment `i`, `t` inside it.
    fn on_segment(&self, i: usize, t: f32) -> f32 {
        let (a, b) = (self.keys[i], self.keys[i + 1]);
        let length = b.time - a.time;
        let u = (t - a.time) / length;
        let (u2, u3) = (u * u, u * u * u);
        let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
        let h10 = u3 - 2.0 * u2 + u;
        let h01 = 3.0 * u2 - 2.0 * u3;
        let h11 = u3 - u2;
        h00 * a.value + h10 * length * a.slope + h01 * b.value + h11 * length * b.slope
    }

    /// The value at `t` (the end values outside the keys).
    pub fn value(&self, t: f32) -> f32 {
        let (first, last) = (self.keys[0], self.keys[self.keys.len() - 1]);
        if t <= first.time {
            first.value
        } else if t >= last.time {
            last.value
        } else {
            self.on_segment(self.segment(t), t)
        }
    }

    /// `∫ v(t) dt` from `from` to `to` (negative when `to < from`), exact for the cubic on each piece between
    /// keys. Cost: O(log keys + keys crossed).
    pub fn integral(&self, from: f32, to: f32) -> f32 {
        if to < from {
            return -self.integral(to, from);
        }
        // Two-point Gauss–Legendre integrates a cubic exactly: nodes at the middle ± half / √3.
        const NODE: f32 = 0.577_350_26;
        let (first, last) = self.span();
        let mut total = 0.0;
        let mut a = from;
        while a < to {
            let b = if a < first {
                to.min(first)
            } else if a >= last {
                to
            } else {
                to.min(self.keys[self.segment(a) + 1].time)
            };
            let (middle, half) = (0.5 * (a + b), 0.5 * (b - a));
            total += half * (self.value(middle - half * NODE) + self.value(middle + half * NODE));
            a = b;
        }
        total
    }

    /// `Some(true)` when the curve never decreases, `Some(false)` when it never increases (checked exactly:
    /// each segment's derivative is a quadratic, tested at its ends and its vertex, up to its evaluation's rounding), `None` otherwise. A
    /// constant curve is non-decreasing.
    pub fn monotone(&self) -> Option<bool> {
        let (mut rises, mut falls) = (false, false);
        for w in self.keys.windows(2) {
            let (a, b) = (w[0], w[1]);
            let length = b.time - a.time;
            // dv/du = c0 + c1·u + c2·u², from the Hermite basis' derivatives.
            let (p0, p1, m0, m1) = (a.value, b.value, length * a.slope, length * b.slope);
            let c0 = m0;
            let c1 = 6.0 * (p1 - p0) - 4.0 * m0 - 2.0 * m1;
            let c2 = 6.0 * (p0 - p1) + 3.0 * (m0 + m1);
            let at = |u: f32| c0 + c1 * u + c2 * u * u;
            // Rounding in the polynomial's evaluation is not a turn: values within it of 0 count as flat.
            let noise = 1e-5 * (c0.abs() + c1.abs() + c2.abs());
            let mut check = |d: f32| {
                rises |= d > noise;
                falls |= d < -noise;
            };
            // The derivative's ends are the keys' slopes, exactly.
            check(m0);
            check(m1);
            if c2 != 0.0 {
                let vertex = -c1 / (2.0 * c2);
                if vertex > 0.0 && vertex < 1.0 {
                    check(at(vertex));
                }
            }
            // The values themselves must move the same way as the slopes say.
            check(p1 - p0);
        }
        match (rises, falls) {
            (true, true) => None,
            (_, false) => Some(true),
            (false, true) => Some(false),
        }
    }

    /// The first time in the keys' span where a monotone curve takes `value` (clamped to its range): the
    /// inverse lookup that lets a game switch curves without a jump (enter the new curve where it has the
    /// current value). Bisection to the f32 resolution of time.
    ///
    /// Errors: `InvalidCurve` when the curve is not monotone or `value` is NaN.
    pub fn time_of(&self, value: f32) -> Result<f32, Error> {
        let rising = self.monotone().ok_or(Error::InvalidCurve)?;
        if value.is_nan() {
            return Err(Error::InvalidCurve);
        }
        // Orient so the curve rises; then find the segment and bisect on it.
        let sign = if rising { 1.0 } else { -1.0 };
        let target = sign * value;
        let before = |t: f32| sign * self.value(t) < target;
        let (first, last) = self.span();
        if !before(first) {
            return Ok(first);
        }
        if before(last) {
            return Ok(last);
        }
        let (mut lo, mut hi) = (first, last);
        // Each halving keeps before(lo) and !before(hi); stop when the midpoint is one of the ends.
        loop {
            let middle = 0.5 * (lo + hi);
            if middle <= lo || middle >= hi {
                return Ok(hi);
            }
            if before(middle) {
                lo = middle;
            } else {
                hi = middle;
            }
        }
    }
}
