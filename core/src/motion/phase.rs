//! Locomotion phase: where a clip is in its stride, and which time of another clip has the same phase, so a
//! transition into a walk or a run lands on the right foot.
//!
//! **Stride phase** (Gears of War 4's phase quotient). The stride signal is `s = (p_L − p_R) · d`: how far the
//! left foot is ahead of the right along the horizontal direction of travel `d` ([`stride_signal`]). It peaks
//! once per stride with the left foot ahead and bottoms with the right foot ahead. The phase is 0 at a minimum
//! of `s`, ½ at the next maximum and 1 (wrapping to 0) at the minimum after; in between it is the fraction of
//! the way from one extreme to the other (the quotient, normalized by that half stride's own swing). The baker
//! stores per clip the *unwrapped* phase at every key frame (strides so far plus phase, nondecreasing, the
//! seed's filtered monotone table) and its inverse: clip times at uniform steps of unwrapped phase. Both
//! lookups ([`PhaseTable::phase_at`], [`PhaseTable::time_at`]) are O(1).
//!
//! A pose without a table (a kick, a dance) has a phase too, from the signal now and one frame ago
//! ([`pose_phase`]): rising is the first half, falling the second, and the target's centre and swing normalize it.
//!
//! **Foot phase** (Just Cause 3). Per foot, the fraction of the way from one footstep (the start of a plant) to
//! the next, read from the clip's `footstep:<joint>` markers ([`Footsteps::phase_at`]). [`match_foot_phase`] searches the
//! target's key frames for the pair of foot phases nearest the source's (circular distance, summed over the
//! feet) and refines between frames: O(frames + footsteps). A foot's phase is undefined before its first and
//! after its last footstep in a clip that does not loop; such times are not matched.
//!
//! Units: seconds, phases in strides. Errors: none; lookups clamp to the clip and say `None` where a phase is
//! undefined. Precision: `f32`; the inverse table's step is `1 / per_stride` of a stride (1/64 from the
//! baker), linear in between.

use crate::data::asset::{Asset, MATCH_IN, MATCH_OUT, Marker, PhaseRecord};
use crate::math::Vec3;

/// A clip's stride phase table (a view of the asset's phase section).
#[derive(Clone, Copy, Debug)]
pub struct PhaseTable<'a> {
    record: &'a PhaseRecord,
    /// Unwrapped phase per key frame.
    forward: &'a [f32],
    /// Clip time at unwrapped phase `forward[0] + k / per_stride`.
    inverse: &'a [f32],
    sample_rate: f32,
}

impl<'a> PhaseTable<'a> {
    /// Clip `clip`'s table, or `None` when the baker found no stride in it (its feet never plant, or it is too
    /// short) or the index is out of range.
    pub fn of(asset: &Asset<'a>, clip: usize) -> Option<PhaseTable<'a>> {
        let (record, forward, inverse) = asset.phase(clip)?;
        let sample_rate = (forward.len() - 1) as f32 / asset.clip_duration(clip)?;
        let sample_rate = if sample_rate.is_finite() { sample_rate } else { 1.0 };
        Some(PhaseTable { record, forward, inverse, sample_rate })
    }

    /// Key frames per second of the clip.
    pub fn sample_rate(&self) -> f32 {
        self.sample_rate
    }

    /// Left and right foot joints.
    pub fn feet(&self) -> [usize; 2] {
        self.record.feet.map(usize::from)
    }

    /// The stride signal's centre and half swing over the clip (file units), for [`pose_phase`].
    pub fn center_and_amplitude(&self) -> (f32, f32) {
        (self.record.center, self.record.amplitude)
    }

    /// Whether the clip may be entered at a matched time.
    pub fn matches_in(&self) -> bool {
        self.record.flags & MATCH_IN != 0
    }

    /// Whether leaving the clip chooses the target's entry time.
    pub fn matches_out(&self) -> bool {
        self.record.flags & MATCH_OUT != 0
    }

    /// Strides covered from the first key frame to the last.
    pub fn strides(&self) -> f32 {
        self.forward[self.forward.len() - 1] - self.forward[0]
    }

    /// Unwrapped phase (strides) at clip time `time`, clamped to the clip.
    #[inline]
    pub fn unwrapped_at(&self, time: f32) -> f32 {
        sample_linear(self.forward, time * self.sample_rate)
    }

    /// Phase in `[0, 1)` at clip time `time`.
    #[inline]
    pub fn phase_at(&self, time: f32) -> f32 {
        wrap(self.unwrapped_at(time))
    }

    /// The earliest clip time whose phase is `phase` (any real: only its fraction counts). A phase the clip
    /// does not reach (its table covers less than a stride) gives the nearer end of the clip, circularly.
    #[inline]
    pub fn time_at(&self, phase: f32) -> f32 {
        self.time_from(self.forward[0], phase)
    }

    /// The first clip time at or after `after` whose phase is `phase`; when the clip ends first, the earliest
    /// in the clip (as [`PhaseTable::time_at`]), as a looping clip comes round to it.
    #[inline]
    pub fn time_at_or_after(&self, phase: f32, after: f32) -> f32 {
        self.time_from(self.unwrapped_at(after), phase)
    }

    /// The first time from unwrapped phase `from` on with phase `phase` (see [`PhaseTable::time_at_or_after`]).
    #[inline]
    fn time_from(&self, from: f32, phase: f32) -> f32 {
        let (first, last) = (self.forward[0], self.forward[self.forward.len() - 1]);
        // A phase far from [0, 1) is wrapped first, so its size does not swallow `from`'s fraction in the
        // difference (the usual phase skips it: the branch is predictable).
        let phase = if (-1.0..2.0).contains(&phase) { phase } else { wrap(phase) };
        let u = from + wrap(phase - from);
        if u <= last {
            return self.time_at_unwrapped(u);
        }
        let mut u = first + wrap(phase - first);
        if u > last {
            u = if u - last <= first + 1.0 - u { last } else { first };
        }
        self.time_at_unwrapped(u)
    }

    /// Clip time at unwrapped phase `u`, clamped to the table.
    #[inline]
    fn time_at_unwrapped(&self, u: f32) -> f32 {
        sample_linear(self.inverse, (u - self.forward[0]) * self.record.per_stride as f32)
    }
}

/// `values` read at fractional index `x`, linearly, clamped to the ends (NaN reads the first). `values` has
/// at least two entries (the loader checks both tables).
#[inline]
fn sample_linear(values: &[f32], x: f32) -> f32 {
    let last = values.len() - 1;
    // `max` and `min` drop a NaN, so the conversion below always sees a number in range.
    let x = x.max(0.0).min(last as f32);
    let k = (x as u32 as usize).min(last - 1);
    let (a, b) = (values[k], values[k + 1]);
    a + (b - a) * (x - k as f32)
}

/// `x` wrapped into `[0, 1)` (NaN stays NaN). A truncating conversion floors it: `libm::floorf` is a
/// software routine on SSE2, which has no rounding instruction.
#[inline]
fn wrap(x: f32) -> f32 {
    // No branch on the sign: it is a coin toss for a phase difference, and a mispredicted branch costs more
    // than the whole lookup. The check below always passes for phases a table produces.
    let truncated = x as i32 as f32;
    let w = x - (truncated - f32::from(u8::from(truncated > x)));
    if (0.0..1.0).contains(&w) || w.is_nan() {
        return w;
    }
    // Past ±2^31 (whole numbers in `f32`), or a tiny negative `x` whose fraction rounds to exactly 1.
    let w = x - libm::floorf(x);
    if w >= 1.0 { 0.0 } else { w }
}

/// The stride signal: how far `left` is ahead of `right` along `direction`, both projected on the ground
/// (+Y up). Zero when `direction` has no horizontal part.
pub fn stride_signal(left: Vec3, right: Vec3, direction: Vec3) -> f32 {
    let d = Vec3 { x: direction.x, y: 0.0, z: direction.z };
    let length = d.length();
    if length.is_nan() || length <= 0.0 {
        return 0.0;
    }
    let gap = left - right;
    (gap.x * d.x + gap.z * d.z) / length
}

/// The stride phase of a pose from its stride signal now and one frame earlier, normalized by a table's
/// centre and swing ([`PhaseTable::center_and_amplitude`]): the seed's quotient `q = (s − centre) / swing`
/// clamped to ±1, read as `(1 + q) / 4` while the signal rises and `½ + (1 − q) / 4` while it falls (a flat
/// signal counts as rising). A non-finite input or a swing ≤ 0 gives 0.
pub fn pose_phase(signal: f32, previous: f32, center: f32, amplitude: f32) -> f32 {
    let q = (signal - center) / amplitude;
    if !(q.is_finite() && previous.is_finite() && amplitude > 0.0) {
        return 0.0;
    }
    let q = q.clamp(-1.0, 1.0);
    if signal >= previous { 0.25 * (1.0 + q) } else { wrap(0.5 + 0.25 * (1.0 - q)) }
}

/// One foot's footsteps in a clip: the times of its `footstep:<joint>` markers, in order.
#[derive(Clone, Copy, Debug)]
pub struct Footsteps<'a> {
    asset: &'a Asset<'a>,
    markers: &'a [Marker],
    joint: &'a str,
    duration: f32,
    looping: bool,
}

impl<'a> Footsteps<'a> {
    /// The footsteps of joint `foot` in clip `clip`; `looping` says whether the clip wraps (then the phase
    /// runs from the last footstep to the first one of the next pass). `None` when the joint has no name or
    /// the clip is out of range.
    pub fn of(asset: &'a Asset<'a>, clip: usize, foot: usize, looping: bool) -> Option<Footsteps<'a>> {
        let joint = asset.skeleton().name(foot)?;
        let duration = asset.clip_duration(clip)?;
        Some(Footsteps { asset, markers: asset.markers(clip), joint, duration, looping })
    }

    /// The footstep times, in order.
    pub fn times(&self) -> impl Iterator<Item = f32> + '_ {
        self.markers.iter().filter(|m| self.is_step(m)).map(|m| m.time)
    }

    fn is_step(&self, marker: &Marker) -> bool {
        let name = self.asset.name(marker.name).unwrap_or("");
        name.strip_prefix("footstep:") == Some(self.joint)
    }

    /// The foot's phase at `time`: `(time − before) / (after − before)` between the last footstep at or
    /// before `time` and the next one. In a looping clip the steps continue one duration before and after;
    /// otherwise the phase is undefined (`None`) outside them. O(markers).
    pub fn phase_at(&self, time: f32) -> Option<f32> {
        Sweep::new(self).phase_at(time)
    }
}

/// How far apart two phases are around the circle, in `[0, ½]`.
pub fn circular_distance(a: f32, b: f32) -> f32 {
    let d = wrap(a - b);
    d.min(1.0 - d)
}

/// The result of [`match_foot_phase`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootPhaseMatch {
    /// Target clip time, seconds.
    pub time: f32,
    /// The target's left and right foot phases there.
    pub phases: [f32; 2],
    /// Summed circular distance to the source's foot phases.
    pub cost: f32,
}

/// The target time within `window` (seconds; the seed's match window, `0.0..=f32::MAX` for the whole clip)
/// whose left and right foot phases are nearest `source` (Just Cause 3's pose matching): key frames first,
/// then the segments beside the best one, where each foot's phase reaches the source's. Ties go to the
/// earliest time. `None` when no key frame in the window has both feet's phases defined.
pub fn match_foot_phase(
    target: [&Footsteps<'_>; 2],
    sample_rate: f32,
    source: [f32; 2],
    window: core::ops::RangeInclusive<f32>,
) -> Option<FootPhaseMatch> {
    let duration = target[0].duration;
    let frames = libm::roundf(duration * sample_rate) as usize + 1;
    let cost_of = |phases: [f32; 2]| circular_distance(phases[0], source[0]) + circular_distance(phases[1], source[1]);
    let mut sweeps = target.map(Sweep::new);
    // The best key frame, its cost and phases, and the phases of the frames either side (when in the window
    // with both feet defined): between two frames a foot's phase is linear unless it steps.
    let mut best: Option<(usize, f32, [f32; 2])> = None;
    let (mut before_best, mut after_best, mut previous) = (None, None, None);
    for k in 0..frames {
        let time = k as f32 / sample_rate;
        let phases = match (window.contains(&time), sweeps[0].phase_at(time), sweeps[1].phase_at(time)) {
            (true, Some(l), Some(r)) => Some([l, r]),
            _ => None,
        };
        if best.is_some_and(|(b, _, _)| b + 1 == k) {
            after_best = phases;
        }
        if let Some(phases) = phases {
            let cost = cost_of(phases);
            if best.is_none_or(|(_, c, _)| cost < c) {
                best = Some((k, cost, phases));
                before_best = previous;
            }
        }
        previous = phases;
    }
    let (k, cost, phases) = best?;
    let time = k as f32 / sample_rate;
    let mut found = FootPhaseMatch { time, phases, cost };
    let step = 1.0 / sample_rate;
    for (start, from, to) in [(time - step, before_best, Some(phases)), (time, Some(phases), after_best)] {
        let (Some(from), Some(to)) = (from, to) else { continue };
        // A foot that steps inside the segment restarts its phase there; leave such segments at their ends.
        if !(to[0] > from[0] && to[1] > from[1]) {
            continue;
        }
        for (wanted, (a, b)) in source.iter().zip(from.iter().zip(&to)) {
            if !(a..=b).contains(&wanted) {
                continue;
            }
            let along = (wanted - a) / (b - a);
            let phases = [0, 1].map(|f| from[f] + (to[f] - from[f]) * along);
            let candidate = FootPhaseMatch { time: start + step * along, phases, cost: cost_of(phases) };
            if candidate.cost < found.cost || (candidate.cost == found.cost && candidate.time < found.time) {
                found = candidate;
            }
        }
    }
    Some(found)
}

/// A foot's phase at increasing times, each marker looked at once; between footsteps a frame costs a
/// multiply.
struct Sweep<'s, 'a> {
    steps: &'s Footsteps<'a>,
    /// The marker index after `after`'s.
    cursor: usize,
    before: Option<f32>,
    after: Option<f32>,
    first: Option<f32>,
    last: Option<f32>,
    /// The current step interval: its start and `1 / length`, or `None` where the phase is undefined, valid
    /// for times before `until`.
    interval: Option<(f32, f32)>,
    until: f32,
}

impl<'s, 'a> Sweep<'s, 'a> {
    fn new(steps: &'s Footsteps<'a>) -> Sweep<'s, 'a> {
        let last = steps.markers.iter().rev().find(|m| steps.is_step(m)).map(|m| m.time);
        let mut sweep = Sweep {
            steps,
            cursor: 0,
            before: None,
            after: None,
            first: None,
            last,
            interval: None,
            until: f32::NEG_INFINITY,
        };
        sweep.after = sweep.next_step();
        sweep.first = sweep.after;
        sweep
    }

    fn next_step(&mut self) -> Option<f32> {
        let markers = self.steps.markers;
        while let Some(m) = markers.get(self.cursor) {
            self.cursor += 1;
            if self.steps.is_step(m) {
                return Some(m.time);
            }
        }
        None
    }

    /// The phase at `time` (as [`Footsteps::phase_at`]), never earlier than the last call's.
    #[inline]
    fn phase_at(&mut self, time: f32) -> Option<f32> {
        if time >= self.until {
            self.step_to(time);
        }
        self.interval.map(|(start, inverse)| ((time - start) * inverse).clamp(0.0, 1.0))
    }

    /// Moves to the step interval holding `time`.
    fn step_to(&mut self, time: f32) {
        while let Some(next) = self.after.filter(|&t| t <= time) {
            self.before = Some(next);
            self.after = self.next_step();
        }
        let (duration, looping) = (self.steps.duration, self.steps.looping);
        let shift = |t: Option<f32>, by: f32| t.filter(|_| looping).map(|t| t + by);
        let before = self.before.or(shift(self.last, -duration));
        let after = self.after.or(shift(self.first, duration));
        self.interval = match (before, after) {
            (Some(b), Some(a)) if a > b => Some((b, 1.0 / (a - b))),
            _ => None,
        };
        self.until = self.after.unwrap_or(f32::INFINITY);
    }
}
