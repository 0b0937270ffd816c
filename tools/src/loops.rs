//! A looping clip's seam: how far its last frame is from its first (C0) and how much its velocity changes across
//! the wrap (C1), and a fix that closes both (textbook: "ensure C0 and C1 at loop points").
//!
//! `Playback::Loop` shows the last frame only at exactly the clip's duration and wraps to the first, so a
//! seamless loop ends on a copy of its first frame. The velocity across the wrap is the last step into the copy
//! against the first step out of the original: `x[last] − x[last − 1]` against `x[1] − x[0]`.
//!
//! Space: the measures are model-space virtual points (as `clip_error`), file units and file units per second.
//! The fix works per joint and channel in local space: translations and scales as vectors, rotations as
//! rotation vectors of a turn applied in the parent's space.

use crate::dmath::{Trs, virtual_points};
use crate::raw::{RawClip, RawSkeleton};
use glam::{DQuat, DVec3};

/// A clip's seam, measured on virtual points `distance` from each joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoopGap {
    /// The largest distance of a point between the last frame and the first, file units.
    pub c0: f64,
    /// The largest change of a point's velocity across the wrap, file units per second.
    pub c1: f64,
}

/// The turn taking `from` to `to` (`to · from⁻¹`) as a rotation vector, the shorter way.
fn log(from: DQuat, to: DQuat) -> DVec3 {
    let q = to * from.inverse();
    (if q.w < 0.0 { -q } else { q }).to_scaled_axis()
}

/// The seam of `clip` (at least three frames; shorter clips have none: zero gaps), the joints in `keep` (a
/// root-motion joint, whose travel the loop carries on) held at their first frame's value, so the seam is
/// measured in their space. The points of the kept joints and of their children are not measured themselves:
/// extraction moves a file's root against the travel when the root's child carries it (Bandai's `joint_Root`
/// above `Hips`), and the joints below show any seam those have.
pub fn loop_gap(skeleton: &RawSkeleton, clip: &RawClip, distance: f64, keep: &[usize]) -> LoopGap {
    let last = clip.frames.len().saturating_sub(1);
    if last < 2 {
        return LoopGap { c0: 0.0, c1: 0.0 };
    }
    let points = |f: usize| {
        let local: Vec<Trs> = clip.frames[f]
            .iter()
            .enumerate()
            .map(|(j, t)| Trs::of(if keep.contains(&j) { &clip.frames[0][j] } else { t }))
            .collect();
        virtual_points(&skeleton.parents, &local, distance)
    };
    let [first, second, before_last, end] = [0, 1, last - 1, last].map(points);
    let kept = |j: usize| keep.contains(&j) || usize::try_from(skeleton.parents[j]).is_ok_and(|p| keep.contains(&p));
    let (mut c0, mut c1) = (0.0f64, 0.0f64);
    for j in (0..first.len()).filter(|&j| !kept(j)) {
        for p in 0..4 {
            c0 = c0.max(end[j][p].distance(first[j][p]));
            let (out_of, into) = (second[j][p] - first[j][p], end[j][p] - before_last[j][p]);
            c1 = c1.max((out_of - into).length() * clip.sample_rate as f64);
        }
    }
    LoopGap { c0, c1 }
}

/// `clip` with its seam closed: the last frame becomes the first (C0) and the last step into it equals the first
/// step out (C1), by adding to every frame `k` a correction `A h(u) + B g(u)`, `u = k / last`, with `h = 3u² −
/// 2u³` and `g = u³ − u²` (both zero with zero slope at the start, so the clip's start moves least), `A` and `B`
/// per joint and component solved so that both conditions hold exactly on the frames. Rotations take the
/// correction as a turn `exp(c)` before the key; the turn at the end is exactly the one from the last key to the
/// first, and the steps are turns `q[k] q[k−1]⁻¹`. Joints in `keep` (by index; a root-motion joint, whose
/// travel is the motion) are left as they are. Clips shorter than four frames come back unchanged (with three,
/// C0 and C1 would make the middle frame the first).
///
/// Precision: C0 exact (the last frame is the first as stored); C1 exact per joint in local space up to f32
/// rounding, and in model space to second order in a frame's step (a joint's velocity composes its parents').
pub fn fix_loop(clip: &RawClip, keep: &[usize]) -> RawClip {
    let mut fixed = clip.clone();
    let last = clip.frames.len().saturating_sub(1);
    if last < 3 {
        return fixed;
    }
    let n = last as f64;
    let h = |k: usize| {
        let u = k as f64 / n;
        u * u * (3.0 - 2.0 * u)
    };
    let g = |k: usize| {
        let u = k as f64 / n;
        u * u * (u - 1.0)
    };
    // C0: x[last] + c[last] = x[0]; C1: (x[last] + c[last]) − (x[last−1] + c[last−1]) = (x[1] + c[1]) − x[0].
    // With c[last] = A (h = 1, g = 0 there), the second reads A − A h(l−1) − B g(l−1) − A h(1) − B g(1) = s,
    // s = x[1] − x[0] − x[last] + x[last−1].
    let (hb, gb, h1, g1) = (h(last - 1), g(last - 1), h(1), g(1));
    let coefficients = |a: f64, s: f64| (a, (a * (1.0 - hb - h1) - s) / (gb + g1));
    let joints = clip.frames[0].len();
    for j in (0..joints).filter(|j| !keep.contains(j)) {
        let key = |k: usize| Trs::of(&clip.frames[k][j]);
        let [x0, x1, xb, xl] = [key(0), key(1), key(last - 1), key(last)];
        // Vectors: per component.
        let vector = |v: fn(&Trs) -> DVec3| {
            let a = v(&x0) - v(&xl);
            let s = v(&x1) - v(&x0) - v(&xl) + v(&xb);
            let b = DVec3::from_array(std::array::from_fn(|i| coefficients(a[i], s[i]).1));
            (a, b)
        };
        let (ta, tb) = vector(|t| t.translation);
        let (sa, sb) = vector(|t| t.scale);
        // Rotations: A is the turn from the last key to the first. C1 asks the last step into the end,
        // `exp(A) q[last] (exp(c[last−1]) q[last−1])⁻¹`, to equal the first step out, `exp(c[1]) q[1] q[0]⁻¹`:
        // solved for `c[last−1]`, hence B, with `c[1]` (which depends on B) from the round before.
        let ra = log(xl.rotation, x0.rotation);
        let (first_step, last_step) = (x1.rotation * x0.rotation.inverse(), xl.rotation * xb.rotation.inverse());
        // Each round shrinks B's error by about |g(1) / g(last−1)| (1/4 at four frames, 1/last² on long clips).
        let mut rb = DVec3::ZERO;
        for _ in 0..64 {
            let c1 = DQuat::from_scaled_axis(ra * h1 + rb * g1);
            // exp(c[last−1]) = (exp(c[1]) · first step)⁻¹ · exp(A) · last step.
            let wanted = (c1 * first_step).inverse() * DQuat::from_scaled_axis(ra) * last_step;
            let next = (log(DQuat::IDENTITY, wanted) - ra * hb) / gb;
            let settled = (next - rb).length() <= 1e-15 * next.length().max(1.0);
            rb = next;
            if settled {
                break;
            }
        }
        // The first frame's correction is zero and the last's is the first frame: both are kept as stored.
        for (k, frame) in fixed.frames.iter_mut().enumerate().take(last).skip(1) {
            let (hk, gk) = (h(k), g(k));
            let t = key(k);
            let corrected = Trs {
                translation: t.translation + ta * hk + tb * gk,
                rotation: (DQuat::from_scaled_axis(ra * hk + rb * gk) * t.rotation).normalize(),
                scale: t.scale + sa * hk + sb * gk,
            };
            frame[j] = corrected.to_transform();
        }
        fixed.frames[last][j] = clip.frames[0][j];
    }
    fixed
}
