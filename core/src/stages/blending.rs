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
//! Precision: one nlerp normalization per joint (`F4::rsqrt`, < 4e-7 relative); means in `f32`. Two layers
//! without bone masks (a crossfade) take a faster path that reads the rotations' lengths as 1: its output
//! rotations are as close to unit as the inputs (sampled and blended poses are within 4e-7), where the
//! general path renormalizes whatever it is given.
//!
//! Errors: see [`BlendingJob::validate`]; on an `Err` nothing is written.

use crate::data::skeleton::{MAX_JOINTS, Skeleton};
use crate::error::{Buffer, Error};
use crate::math::{F4, F8, SoaQuat, SoaTransform, SoaVec3, TransformPairs, interpolate};

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
    /// The skeleton the poses are of.
    pub skeleton: &'a Skeleton<'a>,
    /// At most `MAX_LAYERS` normal layers.
    pub layers: &'a [BlendLayer<'a>],
    /// At most `MAX_LAYERS` additive layers.
    pub additive: &'a [BlendLayer<'a>],
    /// Summed weight below which the rest pose fills in; finite and > 0.
    pub threshold: f32,
    /// The blended pose, SoA (`num_soa_joints` lane groups).
    pub output: &'a mut [SoaTransform],
}

/// The first real joint whose weight in `weights` (SoA, `num_soa_joints(num_joints)` lane groups) is NaN,
/// infinite or below `min`; padding lanes are never read, so they are left out. One lane-mask pass, then a
/// scalar search only on failure. The one check of per-joint weights: blend masks and character masks
/// (`min` 0), fade profiles (`f32::MIN_POSITIVE`).
pub(crate) fn first_invalid_joint_weight(weights: &[F4], num_joints: usize, min: f32) -> Option<usize> {
    let (n, lanes_min) = (weights.len(), F4::splat(min));
    let real_lanes = match num_joints % 4 {
        0 => 0xf,
        r => (1u32 << r) - 1,
    };
    let bad = |m: &F4| m.non_finite_mask() | m.cmp_lt(lanes_min);
    let (last, full) = weights.split_last()?;
    let any_real_bad = full.iter().fold(F4::ZERO, |acc, m| acc | bad(m)) | (bad(last) & F4::lane_mask(real_lanes));
    if !any_real_bad.any_set() {
        return None;
    }
    (0..num_joints.min(4 * n)).find(|&j| {
        let v = weights[j / 4].to_array()[j % 4];
        !(v.is_finite() && v >= min)
    })
}

impl BlendingJob<'_> {
    /// Checks every input: O(joints) for the bone masks, O(1) otherwise.
    ///
    /// Errors: `NoLayers` when both layer lists are empty; `Limit` (`BlendLayers`) for more than `MAX_LAYERS`
    /// in either; `InvalidThreshold` for a non-finite or non-positive threshold; `InvalidWeight { layer,
    /// additive }` for a NaN or infinite weight or a negative normal weight; `BufferLength` (`LayerPose`,
    /// `JointWeights`, `SoaPose` for the output);
    /// `InvalidJointWeight { layer, additive, joint }` for a NaN, infinite or negative mask entry.
    pub fn validate(&self) -> Result<(), Error> {
        if self.layers.is_empty() && self.additive.is_empty() {
            return Err(Error::NoLayers);
        }
        for value in [self.layers.len(), self.additive.len()] {
            if value > MAX_LAYERS {
                return Err(Error::Limit { what: crate::error::Limit::BlendLayers, value, max: MAX_LAYERS });
            }
        }
        if !(self.threshold.is_finite() && self.threshold > 0.0) {
            return Err(Error::InvalidThreshold);
        }
        let n = self.skeleton.num_soa_joints();
        crate::error::check_len(Buffer::SoaPose, n, self.output.len())?;
        for (additive, layers) in [(false, self.layers), (true, self.additive)] {
            for (layer, l) in layers.iter().enumerate() {
                if !l.weight.is_finite() || (!additive && l.weight < 0.0) {
                    return Err(Error::InvalidWeight { layer, additive });
                }
                crate::error::check_len(Buffer::LayerPose, n, l.pose.len())?;
                if let Some(mask) = l.joint_weights {
                    crate::error::check_len(Buffer::JointWeights, n, mask.len())?;
                    if let Some(joint) = first_invalid_joint_weight(mask, self.skeleton.num_joints(), 0.0) {
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
        // The unrolled counts copy just their layers out (cloning the whole list cost two `memcpy` calls).
        let l = |i: usize| self.layers[i];
        match self.layers.len() {
            1 => self.blend_groups([l(0)]),
            2 => self.blend_groups([l(0), l(1)]),
            3 => self.blend_groups([l(0), l(1), l(2)]),
            4 => self.blend_groups([l(0), l(1), l(2), l(3)]),
            // Validated: at most `MAX_LAYERS`, so the copy always fits.
            _ => {
                let layers = heapless::Vec::<_, MAX_LAYERS>::from_slice(self.layers).unwrap_or_default();
                self.blend_groups(layers)
            }
        }
        Ok(())
    }

    /// One lane group per step, its ten components as five `F8` (see [`TransformPairs`]), so on x86-64-v3 every
    /// input load folds into a multiply-add. Additive layers follow in a second pass over the output.
    #[inline(always)]
    fn blend_groups<'l, L: AsRef<[BlendLayer<'l>]> + AsMut<[BlendLayer<'l>]>>(&mut self, mut layers: L) {
        if layers.as_ref().iter().any(|l| l.joint_weights.is_some()) {
            self.blend_masked_layers(layers.as_ref());
        } else {
            self.blend_unmasked_layers(layers.as_mut());
        }
        for l in self.additive {
            for (g, out) in self.output.iter_mut().enumerate() {
                apply_additive(out, &l.pose[g], l.weight_of_group(g));
            }
        }
    }

    /// Without bone masks every lane of every group has the same weights, so the total and the rest pose's
    /// share are settled once and each weight is divided by the total up front: translation and scale sum
    /// straight to their means and only the rotation is scaled per group (by its normalization).
    #[inline(always)]
    fn blend_unmasked_layers(&mut self, layers: &mut [BlendLayer<'_>]) {
        let layer_total: f32 = layers.iter().map(|l| l.weight).sum();
        let rest_weight = (self.threshold - layer_total).max(0.0);
        let total = layer_total + rest_weight;
        for l in layers.iter_mut() {
            // A division, not a multiply by 1/total, so one layer of any weight keeps its pose exactly.
            l.weight /= total;
        }
        let rest = (rest_weight > 0.0).then(|| (self.skeleton.rest_pose(), F4::splat(rest_weight / total)));
        if let ([a, b], None) = (&*layers, rest) {
            return self.crossfade(a, b);
        }
        for (g, out) in self.output.iter_mut().enumerate() {
            let mut sum = WeightedSum::default();
            for l in layers.iter() {
                sum.add(&l.pose[g], F4::splat(l.weight));
            }
            if let Some((rest, w)) = rest {
                sum.add(&rest[g], w);
            }
            // Multiplying by one folds away: only the rotation's registers are scaled.
            *out = sum.scaled(F8::splat(1.0));
        }
    }

    /// Two layers without masks whose weights (already divided by their total) reach the threshold: the
    /// commonest blend, written as `w·(p_base + k·p_other)` around the heavier layer (`k ≤ 1`), so a register
    /// takes one multiply-add and, for translation and scale, one multiply. Its rotations are taken as unit, as
    /// sampling and blending write them: the summed rotation's squared length is then `1 + k² + 2k·|dot|`,
    /// formed from the alignment dot alone, beside the sums instead of after them (a group's dependent latency
    /// drops from about 60 to about 40 cycles, counted from the instruction latencies). The result has the
    /// general path's sign: the first layer's, or the second's when the first weighs nothing.
    /// Precision: as close to unit as the inputs (a relative error `e` in their lengths leaves about `e` in
    /// the output's); for unit inputs, the general path's result within the rsqrt bound.
    #[inline(always)]
    fn crossfade(&mut self, a: &BlendLayer<'_>, b: &BlendLayer<'_>) {
        // The general path's sign: the first layer's, or the second's when the first weighs nothing.
        if a.weight >= b.weight {
            self.crossfade_around::<true>(a, b)
        } else if a.weight == 0.0 {
            self.crossfade_around::<true>(b, a)
        } else {
            self.crossfade_around::<false>(b, a)
        }
    }

    /// [`Self::crossfade`] with `base` the heavier layer; `KEEP_BASE_SIGN` is false when the output takes the
    /// other layer's sign.
    #[inline(always)]
    fn crossfade_around<const KEEP_BASE_SIGN: bool>(&mut self, base: &BlendLayer<'_>, other: &BlendLayer<'_>) {
        // `base.weight` ≥ 1/2 here, since the two sum to one.
        let k = other.weight / base.weight;
        let w_base = F8::splat(base.weight);
        let (k, two_k, one_k_sq) = (F8::splat(k), F8::splat(2.0 * k), F8::splat(k * k + 1.0));
        for ((out, pose_base), pose_other) in self.output.iter_mut().zip(base.pose).zip(other.pose) {
            let (p_base, p_other) = (TransformPairs::load(pose_base), TransformPairs::load(pose_other));
            let dot = p_base.rotation_dot(&p_other);
            let per_length = dot.abs().mul_add(two_k, one_k_sq).rsqrt();
            let per_length = if KEEP_BASE_SIGN { per_length } else { per_length.mul_sign(dot) };
            let factors = TransformPairs::factors(k, k.mul_sign(dot));
            let sums = TransformPairs(core::array::from_fn(|i| p_other.0[i].mul_add(factors[i], p_base.0[i])));
            *out = sums.scaled(w_base, per_length);
        }
    }

    /// The weighted mean with bone masks: totals differ per lane, so the rest pose joins per lane group and
    /// the division happens per group.
    #[inline(always)]
    fn blend_masked_layers(&mut self, layers: &[BlendLayer<'_>]) {
        let rest = self.skeleton.rest_pose();
        let threshold = F4::splat(self.threshold);
        for (g, out) in self.output.iter_mut().enumerate() {
            let mut sum = WeightedSum::default();
            let mut total = F4::ZERO;
            for l in layers {
                let w = l.weight_of_group(g);
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
        self.scaled(F8::from_halves(per_weight, per_weight))
    }

    /// Translation and scale times `per_weight` (in both halves), normalized rotation.
    #[inline(always)]
    fn scaled(&self, per_weight: F8) -> SoaTransform {
        self.sums.scaled(per_weight, self.sums.rotation_dot(&self.sums).rsqrt())
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
    check_mask(a.len(), b.len(), mask)?;
    crate::error::check_len(Buffer::SoaPose, a.len(), out.len())?;
    for (((out, a), b), &m) in out.iter_mut().zip(a).zip(b).zip(mask) {
        *out = interpolate(b, a, m);
    }
    Ok(())
}

/// An overlay in place: per joint `pose = lerp(pose, overlay, weight)` (shortest-arc nlerp for rotations), so
/// a weight of 1 replaces the joint and 0 keeps it. The one-buffer form of [`masked_lerp`] a layer stack uses.
///
/// Errors: as [`masked_lerp`] (`weights` for the mask); nothing is written on an `Err`.
pub fn overlay_in_place(pose: &mut [SoaTransform], overlay: &[SoaTransform], weights: &[F4]) -> Result<(), Error> {
    check_mask(pose.len(), overlay.len(), weights)?;
    for ((p, o), &w) in pose.iter_mut().zip(overlay).zip(weights) {
        *p = interpolate(p, o, w);
    }
    Ok(())
}

/// An additive layer in place: `pose = pose ∘ delta^weight` per joint (the module docs' rule; negative weights
/// subtract). The one-buffer form of a [`BlendingJob`] additive layer.
///
/// Errors: as [`masked_lerp`] (`delta` for the second pose, `weights` for the mask); nothing is written on an
/// `Err`.
pub fn add_in_place(pose: &mut [SoaTransform], delta: &[SoaTransform], weights: &[F4]) -> Result<(), Error> {
    check_mask(pose.len(), delta.len(), weights)?;
    for ((p, d), &w) in pose.iter_mut().zip(delta).zip(weights) {
        apply_additive(p, d, w);
    }
    Ok(())
}

/// Lengths of a two-pose, one-mask operation and a finite mask.
fn check_mask(len: usize, other: usize, mask: &[F4]) -> Result<(), Error> {
    crate::error::check_len(Buffer::LayerPose, len, other)?;
    crate::error::check_len(Buffer::JointWeights, len, mask.len())?;
    if let Some(g) = mask.iter().position(|m| m.non_finite_mask().any_set()) {
        let lane = (0..4).find(|&l| !mask[g].to_array()[l].is_finite()).unwrap_or(0);
        return Err(Error::InvalidJointWeight { layer: 0, additive: false, joint: 4 * g + lane });
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
