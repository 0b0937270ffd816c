//! Blending: weighted layers of SoA local poses → one pose, additive layers on top, and a masked lerp.
//!
//! Layout: every pose is SoA (`num_soa_joints` lane groups); per-joint weights (bone masks) are SoA too, one
//! `F4` per lane group. Space: local. Units: weights are plain factors.
//!
//! Normal layers: per joint, translation and scale are the weighted mean and rotation the normalized weighted sum
//! (nlerp), each layer's rotation sign-aligned with the running sum so the shortest arc is taken. A joint whose
//! summed weight is below `threshold` gets the rest pose mixed in with the missing weight, so a fading blend
//! settles on the rest pose instead of dividing by nearly zero. Additive layers then apply a delta pose (see
//! [`additive_delta`]) scaled by their weight: translation `+ w·Δt`, rotation `· nlerp(1, Δq, w)` (the
//! conjugate for negative `w`), scale `· (1 + w·(Δs − 1))` (divided by it for negative `w`), so a weight of −1
//! undoes +1.
//!
//! Precision: one nlerp normalization per joint (`F4::rsqrt`, < 4e-7 relative); means in `f32`.
//!
//! Errors: see [`BlendingJob::validate`]; on an `Err` nothing is written.

use crate::math::{F4, F8, SoaQuat, SoaTransform, SoaVec3, TransformPairs};
use crate::skeleton::{MAX_JOINTS, Skeleton};
use crate::{Buffer, Error};

/// Most layers (normal or additive) one job takes.
pub const MAX_LAYERS: usize = 16;

/// ozz's default: below this summed weight the rest pose fills in.
pub const DEFAULT_THRESHOLD: f32 = 0.1;

/// One input pose and how much of it to take.
#[derive(Clone, Copy, Debug)]
pub struct BlendLayer<'a> {
    /// `num_soa_joints` lane groups; for additive layers, a delta pose from [`additive_delta`].
    pub pose: &'a [SoaTransform],
    /// Normal layers: finite and ≥ 0. Additive layers: finite, negative subtracts.
    pub weight: f32,
    /// Optional bone mask: per-joint factors (finite, ≥ 0) multiplying `weight`, SoA.
    pub joint_weights: Option<&'a [F4]>,
}

/// Blends layers into `output` (ozz's job pattern: borrowed buffers in public fields, `validate`, `run`).
#[derive(Debug)]
pub struct BlendingJob<'a> {
    pub skeleton: &'a Skeleton<'a>,
    pub layers: heapless::Vec<BlendLayer<'a>, MAX_LAYERS>,
    pub additive: heapless::Vec<BlendLayer<'a>, MAX_LAYERS>,
    /// Summed weight below which the rest pose fills in; finite and > 0.
    pub threshold: f32,
    pub output: &'a mut [SoaTransform],
}

impl BlendingJob<'_> {
    /// Checks every input: O(joints) for the bone masks, O(1) otherwise.
    ///
    /// Errors: `NoLayers` when both layer lists are empty; `InvalidWeight { layer, additive }` for a NaN or
    /// infinite weight, a negative normal weight, or a non-finite or non-positive threshold (`layer` =
    /// `usize::MAX`); `BufferLength` (`LayerPose`, `JointWeights`, `SoaPose` for the output);
    /// `InvalidJointWeight { layer, additive, joint }` for a NaN, infinite or negative mask entry.
    pub fn validate(&self) -> Result<(), Error> {
        if self.layers.is_empty() && self.additive.is_empty() {
            return Err(Error::NoLayers);
        }
        if !(self.threshold.is_finite() && self.threshold > 0.0) {
            return Err(Error::InvalidWeight { layer: usize::MAX, additive: false });
        }
        let n = self.skeleton.num_soa_joints();
        crate::error::check_len(Buffer::SoaPose, n, self.output.len())?;
        for (additive, layers) in [(false, &self.layers), (true, &self.additive)] {
            for (layer, l) in layers.iter().enumerate() {
                if !l.weight.is_finite() || (!additive && l.weight < 0.0) {
                    return Err(Error::InvalidWeight { layer, additive });
                }
                crate::error::check_len(Buffer::LayerPose, n, l.pose.len())?;
                if let Some(mask) = l.joint_weights {
                    crate::error::check_len(Buffer::JointWeights, n, mask.len())?;
                    // One lane-mask pass; padding lanes are never read, so they are left out.
                    let num_joints = self.skeleton.num_joints();
                    let real_lanes = match num_joints % 4 {
                        0 => 0xf,
                        r => (1u32 << r) - 1,
                    };
                    let bad = |m: &F4| m.non_finite_mask() | m.cmp_lt(F4::ZERO);
                    let any_real_bad = mask[..n - 1].iter().fold(F4::ZERO, |acc, m| acc | bad(m))
                        | (bad(&mask[n - 1]) & F4::lane_mask(real_lanes));
                    if any_real_bad.any_set() {
                        let joint = (0..num_joints)
                            .find(|&j| {
                                let v = mask[j / 4].to_array()[j % 4];
                                !v.is_finite() || v < 0.0
                            })
                            .unwrap_or(0);
                        return Err(Error::InvalidJointWeight { layer, additive, joint });
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes the blend.
    pub fn run(&mut self) -> Result<(), Error> {
        self.validate()?;
        // Common layer counts get their own copy of the loop, unrolled, so a lane group's weighted sums stay
        // in registers across the layers instead of spilling to the stack.
        let l = self.layers.clone();
        match l.len() {
            1 => self.blend_groups([l[0]]),
            2 => self.blend_groups([l[0], l[1]]),
            3 => self.blend_groups([l[0], l[1], l[2]]),
            4 => self.blend_groups([l[0], l[1], l[2], l[3]]),
            _ => self.blend_groups(l),
        }
        Ok(())
    }

    /// One lane group per step, its ten components as five `F8` (see [`TransformPairs`]), so on x86-64-v3 every
    /// input load folds into a multiply-add. Additive layers follow in a second pass over the output.
    #[inline(always)]
    fn blend_groups<'l, L: AsRef<[BlendLayer<'l>]>>(&mut self, layers: L) {
        // Without bone masks every weight, the total, the rest-pose decision and the division are the same for
        // all groups: a copy of the loop that knows it lets the compiler hoist them out.
        if layers.as_ref().iter().any(|l| l.joint_weights.is_some()) {
            self.blend_normal_layers::<true>(layers.as_ref());
        } else {
            self.blend_normal_layers::<false>(layers.as_ref());
        }
        for l in &self.additive {
            for (g, out) in self.output.iter_mut().enumerate() {
                apply_additive(out, &l.pose[g], l.weight_of_group(g));
            }
        }
    }

    /// The normal layers' weighted mean (rest pose filling in below the threshold) into `output`;
    /// `MASKED = false` only when no layer has a bone mask.
    #[inline(always)]
    fn blend_normal_layers<const MASKED: bool>(&mut self, layers: &[BlendLayer<'_>]) {
        let rest = self.skeleton.rest_pose();
        let threshold = F4::splat(self.threshold);
        for (g, out) in self.output.iter_mut().enumerate() {
            let mut sum = WeightedSum::default();
            let mut total = F4::ZERO;
            for l in layers {
                let w = if MASKED { l.weight_of_group(g) } else { F4::splat(l.weight) };
                sum.add(&l.pose[g], w);
                total = total + w;
            }
            // Most blends carry enough weight everywhere: the rest pose joins only where a lane needs it.
            let missing = threshold - total;
            if missing.cmp_gt(F4::ZERO).any_set() {
                let w = missing.max(F4::ZERO);
                sum.add(&rest[g], w);
                total = total + w;
            }
            *out = sum.mean(total);
        }
    }
}

impl BlendLayer<'_> {
    /// The layer's weight for lane group `g`, its bone mask applied.
    #[inline(always)]
    fn weight_of_group(&self, g: usize) -> F4 {
        match self.joint_weights {
            Some(mask) => mask[g] * F4::splat(self.weight),
            None => F4::splat(self.weight),
        }
    }
}

/// Running weighted sums of one lane group; starts all zero.
#[derive(Default)]
struct WeightedSum {
    sums: TransformPairs,
    started: bool,
}

impl WeightedSum {
    #[inline(always)]
    fn add(&mut self, pose: &SoaTransform, w: F4) {
        let p = TransformPairs::load(pose);
        let w = F8::from_halves(w, w);
        if !self.started {
            // The first contribution keeps its sign.
            self.sums = TransformPairs(p.0.map(|c| c * w));
            self.started = true;
            return;
        }
        // Align with the running sum: rotation components take the weight with the dot product's sign.
        let aligned = w.mul_sign(self.sums.rotation_dot(&p));
        for ((sum, c), w) in self.sums.0.iter_mut().zip(p.0).zip(TransformPairs::factors(w, aligned)) {
            *sum = c.mul_add(w, *sum);
        }
    }

    /// Weighted means of translation and scale, normalized rotation. `total` must be > 0.
    #[inline(always)]
    fn mean(&self, total: F4) -> SoaTransform {
        let per_weight = F4::ONE / total;
        let per_weight = F8::from_halves(per_weight, per_weight);
        let per_length = self.sums.rotation_dot(&self.sums).rsqrt();
        let factors = TransformPairs::factors(per_weight, per_length);
        TransformPairs(core::array::from_fn(|i| self.sums.0[i] * factors[i])).to_transform()
    }
}

#[inline(always)]
fn mul_add3(v: SoaVec3, w: F4, acc: SoaVec3) -> SoaVec3 {
    SoaVec3 { x: v.x.mul_add(w, acc.x), y: v.y.mul_add(w, acc.y), z: v.z.mul_add(w, acc.z) }
}

/// `pose ∘ delta^w`, per lane (see the module docs).
#[inline(always)]
fn apply_additive(pose: &mut SoaTransform, delta: &SoaTransform, w: F4) {
    pose.translation = mul_add3(delta.translation, w, pose.translation);
    let negative = w.cmp_lt(F4::ZERO);
    let magnitude = w.abs();
    // nlerp(identity, ±Δq, |w|): the conjugate (negated vector part) undoes the rotation for negative weights.
    let flip = F4::select(negative, -F4::ONE, F4::ONE);
    let dq = SoaQuat {
        x: delta.rotation.x * flip,
        y: delta.rotation.y * flip,
        z: delta.rotation.z * flip,
        w: delta.rotation.w,
    };
    let step = SoaQuat::nlerp(SoaQuat::IDENTITY, dq, magnitude);
    pose.rotation = (pose.rotation * step).normalize();
    let factor = |d: F4| (d - F4::ONE).mul_add(magnitude, F4::ONE);
    let apply = |s: F4, d: F4| F4::select(negative, s / factor(d), s * factor(d));
    pose.scale = SoaVec3 {
        x: apply(pose.scale.x, delta.scale.x),
        y: apply(pose.scale.y, delta.scale.y),
        z: apply(pose.scale.z, delta.scale.z),
    };
}

/// Per-joint mix of two poses: `mask = 1` gives all of `a`, `0` all of `b` (lerp, shortest-arc nlerp).
///
/// Errors: `BufferLength` (`LayerPose` for `b` or `out`, `JointWeights` for `mask`, all against `a`);
/// `InvalidJointWeight { layer: 0, additive: false, joint }` for a NaN or infinite mask entry.
pub fn masked_lerp(a: &[SoaTransform], b: &[SoaTransform], mask: &[F4], out: &mut [SoaTransform]) -> Result<(), Error> {
    crate::error::check_len(Buffer::LayerPose, a.len(), b.len())?;
    crate::error::check_len(Buffer::JointWeights, a.len(), mask.len())?;
    crate::error::check_len(Buffer::SoaPose, a.len(), out.len())?;
    if let Some(g) = mask.iter().position(|m| m.non_finite_mask().any_set()) {
        let lane = (0..4).find(|&l| !mask[g].to_array()[l].is_finite()).unwrap_or(0);
        return Err(Error::InvalidJointWeight { layer: 0, additive: false, joint: 4 * g + lane });
    }
    for (((out, a), b), &m) in out.iter_mut().zip(a).zip(b).zip(mask) {
        *out = crate::sampling::interpolate(b, a, m);
    }
    Ok(())
}

/// The delta of `pose` from `reference`, for additive layers: `Δt = t − t_ref`, `Δq = conj(q_ref)·q`
/// (normalized), `Δs = s / s_ref`. Applying it with weight 1 on top of `reference` gives back `pose`.
///
/// Errors: `BufferLength` (`LayerPose` for `pose` and `out` against `reference`); `NonFinite` (`LayerPose`,
/// joint) where a reference scale component is zero.
pub fn additive_delta(
    reference: &[SoaTransform],
    pose: &[SoaTransform],
    out: &mut [SoaTransform],
) -> Result<(), Error> {
    crate::error::check_len(Buffer::LayerPose, reference.len(), pose.len())?;
    crate::error::check_len(Buffer::LayerPose, reference.len(), out.len())?;
    for (g, ((out, r), p)) in out.iter_mut().zip(reference).zip(pose).enumerate() {
        let zero = r.scale.x.cmp_eq(F4::ZERO) | r.scale.y.cmp_eq(F4::ZERO) | r.scale.z.cmp_eq(F4::ZERO);
        if zero.any_set() {
            let lane = (0..4).find(|&l| zero.to_array()[l] != 0.0).unwrap_or(0);
            return Err(Error::NonFinite { buffer: Buffer::LayerPose, index: 4 * g + lane });
        }
        *out = SoaTransform {
            translation: SoaVec3 {
                x: p.translation.x - r.translation.x,
                y: p.translation.y - r.translation.y,
                z: p.translation.z - r.translation.z,
            },
            rotation: (r.rotation.conjugate() * p.rotation).normalize(),
            scale: SoaVec3 { x: p.scale.x / r.scale.x, y: p.scale.y / r.scale.y, z: p.scale.z / r.scale.z },
        };
    }
    Ok(())
}

/// A bone mask: `weight` on `joint` and every joint below it, 0 elsewhere (padding lanes 0).
///
/// Errors: `JointOutOfRange`; `BufferLength` (`JointWeights`) unless `out` has `num_soa_joints` entries;
/// `InvalidJointWeight` for a NaN, infinite or negative `weight`.
pub fn subtree_mask(skeleton: &Skeleton<'_>, joint: usize, weight: f32, out: &mut [F4]) -> Result<(), Error> {
    let n = skeleton.num_joints();
    if joint >= n {
        return Err(Error::JointOutOfRange { joint, num_joints: n });
    }
    crate::error::check_len(Buffer::JointWeights, skeleton.num_soa_joints(), out.len())?;
    if !(weight.is_finite() && weight >= 0.0) {
        return Err(Error::InvalidJointWeight { layer: 0, additive: false, joint });
    }
    // Parents come first, so one forward pass finds every descendant.
    let mut inside = [false; MAX_JOINTS];
    let mut lanes = [0.0f32; 4];
    for (g, out) in out.iter_mut().enumerate() {
        for (l, lane) in lanes.iter_mut().enumerate() {
            let j = 4 * g + l;
            let parent = skeleton.parents().get(j).copied().unwrap_or(-1);
            inside[j.min(MAX_JOINTS - 1)] =
                j < n && (j == joint || (parent >= 0 && inside[parent as usize] && j > joint));
            *lane = if j < n && inside[j] { weight } else { 0.0 };
        }
        *out = F4::from_array(lanes);
    }
    Ok(())
}
