//! The naive AoS baseline: what a user writes with a common math crate (glam), one joint at a time.
//! Benchmarked in the same runs as sinew's SoA kernels so the ratios come from one measurement.

use glam::{Mat4, Quat, Vec3};

// The pose type and local-to-model loop the offline tools also use (foot-plant detection, the procedural rig)
// live with them; the baseline family is named here as one.
pub use sinew_tools::glam_pose::{AosPose, local_to_model, trs};

/// `palette[i] = model[remap[i]] * inverse_bind[i]`.
pub fn skinning_matrices(model: &[Mat4], remap: &[u16], inverse_bind: &[Mat4], palette: &mut [Mat4]) {
    for ((out, ib), &j) in palette.iter_mut().zip(inverse_bind).zip(remap) {
        *out = model[j as usize] * *ib;
    }
}

/// The same as three rows per joint (the GPU layout): product, transpose, keep three columns.
pub fn skinning_matrices_3x4(model: &[Mat4], remap: &[u16], inverse_bind: &[Mat4], palette: &mut [[glam::Vec4; 3]]) {
    for ((out, ib), &j) in palette.iter_mut().zip(inverse_bind).zip(remap) {
        let t = (model[j as usize] * *ib).transpose();
        *out = [t.x_axis, t.y_axis, t.z_axis];
    }
}

/// Joint boxes to model space as an engine would write it first: each box's eight corners through its joint's
/// matrix, the box around them, and the union; `boxes` as `(joint, center, half extent)`.
pub fn bounds(model: &[Mat4], boxes: &[(usize, Vec3, Vec3)], out: &mut [(Vec3, Vec3)]) -> (Vec3, Vec3) {
    let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for (&(joint, center, half), slot) in boxes.iter().zip(out) {
        let (mut box_lo, mut box_hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for corner in 0..8 {
            let sign = Vec3::new(
                if corner & 1 == 1 { 1.0 } else { -1.0 },
                if corner & 2 == 2 { 1.0 } else { -1.0 },
                if corner & 4 == 4 { 1.0 } else { -1.0 },
            );
            let p = model[joint].transform_point3(center + sign * half);
            (box_lo, box_hi) = (box_lo.min(p), box_hi.max(p));
        }
        *slot = (box_lo, box_hi);
        (lo, hi) = (lo.min(box_lo), hi.max(box_hi));
    }
    (lo, hi)
}

/// A clip as an AoS engine stores it without compression: every joint, every frame.
#[derive(Clone, Debug)]
pub struct AosClip {
    pub frames: Vec<AosPose>,
    pub sample_rate: f32,
}

/// Looping sample at `time`: find the two frames, lerp translation/scale, glam's `Quat::lerp` (shortest-arc
/// nlerp) for rotation, per joint.
pub fn sample(clip: &AosClip, time: f32, out: &mut AosPose) {
    let last = (clip.frames.len() - 1) as f32;
    let x = (time * clip.sample_rate).rem_euclid(last);
    let f0 = (x as usize).min(clip.frames.len() - 2);
    let t = x - f0 as f32;
    let (a, b) = (&clip.frames[f0], &clip.frames[f0 + 1]);
    for j in 0..out.translation.len() {
        out.translation[j] = a.translation[j].lerp(b.translation[j], t);
        out.rotation[j] = a.rotation[j].lerp(b.rotation[j], t);
        out.scale[j] = a.scale[j].lerp(b.scale[j], t);
    }
}

/// Weighted blend of AoS poses, one joint at a time: means of translation and scale, sign-aligned weighted sum
/// of rotations normalized (what a user writes with glam). `masks[i]`, when present, scales layer `i` per joint.
pub fn blend(layers: &[(&AosPose, f32, Option<&[f32]>)], out: &mut AosPose) {
    for j in 0..out.translation.len() {
        let (mut t, mut s, mut r, mut total) = (Vec3::ZERO, Vec3::ZERO, glam::Vec4::ZERO, 0.0);
        for (pose, weight, mask) in layers {
            let w = weight * mask.map_or(1.0, |m| m[j]);
            t += pose.translation[j] * w;
            s += pose.scale[j] * w;
            let q = glam::Vec4::from(pose.rotation[j]);
            r += if r.dot(q) < 0.0 { -q * w } else { q * w };
            total += w;
        }
        out.translation[j] = t / total;
        out.scale[j] = s / total;
        out.rotation[j] = Quat::from_vec4(r.normalize());
    }
}

/// Linear blend skinning one vertex at a time, as ozz's reference and most engines' CPU paths do: blend the
/// influences' matrices, then transform the position (and the normal, by the same matrix). `influences` is
/// `(count, joints, weights)`, `count` entries per vertex.
pub fn skin_vertices(
    palette: &[Mat4],
    (count, joints, weights): (usize, &[u16], &[f32]),
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    out_positions: &mut [Vec3],
    out_normals: &mut [Vec3],
) {
    for (v, (js, ws)) in joints.chunks_exact(count).zip(weights.chunks_exact(count)).enumerate() {
        let mut m = palette[js[0] as usize] * ws[0];
        for k in 1..count {
            m += palette[js[k] as usize] * ws[k];
        }
        out_positions[v] = m.transform_point3(positions[v]);
        if let Some(normals) = normals {
            out_normals[v] = m.transform_vector3(normals[v]);
        }
    }
}

/// The paper's curve (Bollo, SIGGRAPH 2017 supplemental material) for one DOF as a user writes it from the paper: coefficients A, B, C, a0 kept per DOF,
/// evaluated with a branch on `t >= t1`.
#[derive(Clone, Copy, Default)]
pub struct AosCurve {
    x0: f32,
    v0: f32,
    a0: f32,
    a: f32,
    b: f32,
    c: f32,
    t1: f32,
    sign: f32,
}

impl AosCurve {
    pub fn new(x0: f32, v0: f32, t1: f32) -> AosCurve {
        let sign = if x0 < 0.0 { -1.0 } else { 1.0 };
        let (x0, mut v0) = (x0 * sign, v0 * sign);
        v0 = v0.min(0.0);
        let t1 = if v0 < 0.0 { t1.min(-5.0 * x0 / v0) } else { t1 };
        if t1 <= 0.0 {
            return AosCurve::default();
        }
        let a0 = ((-8.0 * t1 * v0 - 20.0 * x0) / (t1 * t1)).max(0.0);
        let a = (a0 * t1 * t1 + 6.0 * t1 * v0 + 12.0 * x0) / t1.powi(5);
        let b = (3.0 * a0 * t1 * t1 + 16.0 * t1 * v0 + 30.0 * x0) / t1.powi(4);
        let c = (3.0 * a0 * t1 * t1 + 12.0 * t1 * v0 + 20.0 * x0) / t1.powi(3);
        AosCurve { x0, v0, a0, a, b, c, t1, sign }
    }

    pub fn eval(&self, t: f32) -> f32 {
        if t >= self.t1 {
            return 0.0;
        }
        let x = (((-self.a * t + self.b) * t - self.c) * t + self.a0) * t * t / 2.0 + self.v0 * t + self.x0;
        self.sign * x
    }
}

/// The velocity-continuous curve for one DOF as a user writes it from its formula, `x(τ) = x0 (1 − 15τ⁴ + 24τ⁵
/// − 10τ⁶) + v0 t1 τ (1 − τ)⁶` with `τ = t / t1`, branching on `t >= t1`.
#[derive(Clone, Copy, Default)]
pub struct AosContinuousCurve {
    x0: f32,
    v0: f32,
    t1: f32,
}

impl AosContinuousCurve {
    pub fn new(x0: f32, v0: f32, t1: f32) -> AosContinuousCurve {
        AosContinuousCurve { x0, v0, t1 }
    }

    pub fn eval(&self, t: f32) -> f32 {
        if t >= self.t1 {
            return 0.0;
        }
        let tau = t / self.t1;
        let offset = 1.0 - tau.powi(4) * (15.0 - 24.0 * tau + 10.0 * tau * tau);
        self.x0 * offset + self.v0 * self.t1 * tau * (1.0 - tau).powi(6)
    }
}

/// Per joint: translation, rotation-vector and scale curves (9 DOFs), AoS.
pub type AosJointCurves = [AosCurve; 9];

/// Curves from `source` to `target` (offsets per component, zero velocity), as a user sets them up with glam.
pub fn transition_curves(source: &AosPose, target: &AosPose, duration: f32) -> Vec<AosJointCurves> {
    transition_offsets(source, target).map(|x| x.map(|x0| AosCurve::new(x0, 0.0, duration))).collect()
}

/// [`transition_curves`] with the velocity-continuous shape.
pub fn transition_curves_continuous(source: &AosPose, target: &AosPose, duration: f32) -> Vec<[AosContinuousCurve; 9]> {
    transition_offsets(source, target).map(|x| x.map(|x0| AosContinuousCurve::new(x0, 0.0, duration))).collect()
}

/// Per joint the nine offsets from `target` to `source`: translation, rotation vector, scale.
fn transition_offsets<'p>(source: &'p AosPose, target: &'p AosPose) -> impl Iterator<Item = [f32; 9]> + 'p {
    (0..target.translation.len()).map(|j| {
        let t = source.translation[j] - target.translation[j];
        let r = (source.rotation[j] * target.rotation[j].conjugate()).to_scaled_axis();
        let s = source.scale[j] - target.scale[j];
        [t.x, t.y, t.z, r.x, r.y, r.z, s.x, s.y, s.z]
    })
}

/// Naive per-frame inertialization: per joint evaluate nine curves, then `target + offset` with glam (the
/// rotation through `Quat::from_scaled_axis`).
pub fn inertialize(curves: &[AosJointCurves], t: f32, target: &AosPose, out: &mut AosPose) {
    apply_offsets(curves.iter().map(|c| c.map(|q| q.eval(t))), target, out);
}

/// [`inertialize`] with the velocity-continuous curves.
pub fn inertialize_continuous(curves: &[[AosContinuousCurve; 9]], t: f32, target: &AosPose, out: &mut AosPose) {
    apply_offsets(curves.iter().map(|c| c.map(|q| q.eval(t))), target, out);
}

/// Per joint `target + offset`, the nine offsets from `offsets`.
fn apply_offsets(offsets: impl Iterator<Item = [f32; 9]>, target: &AosPose, out: &mut AosPose) {
    for (j, x) in offsets.enumerate() {
        out.translation[j] = target.translation[j] + Vec3::new(x[0], x[1], x[2]);
        out.rotation[j] = Quat::from_scaled_axis(Vec3::new(x[3], x[4], x[5])) * target.rotation[j];
        out.scale[j] = target.scale[j] + Vec3::new(x[6], x[7], x[8]);
    }
}

/// Two-bone IK as a glam user writes it: positions from the model matrices, the law of cosines in the plane of
/// the pole, shortest arcs, and local rotations recovered by converting the model matrices to quaternions and
/// dividing by the parent's (`Quat::from_mat4`, an inverse per joint).
pub fn two_bone_ik(
    model: &[Mat4],
    parents: &[i16],
    chain: [usize; 3],
    target: Vec3,
    pole: Vec3,
    rotations: &mut [Quat],
) {
    let [root, middle, end] = chain;
    let (a, b, c) = (model[root].w_axis.truncate(), model[middle].w_axis.truncate(), model[end].w_axis.truncate());
    let (l1, l2) = ((b - a).length(), (c - b).length());
    let to_target = target - a;
    let d = to_target.length().clamp((l1 - l2).abs(), l1 + l2);
    let u = to_target.normalize();
    let v = (pole - a).reject_from_normalized(u).normalize();
    let cos = ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)).clamp(-1.0, 1.0);
    let knee = a + u * (l1 * cos) + v * (l1 * (1.0 - cos * cos).max(0.0).sqrt());
    let ankle = a + u * d;
    let turn1 = Quat::from_rotation_arc((b - a).normalize(), (knee - a).normalize());
    let turn2 = Quat::from_rotation_arc((turn1 * (c - b)).normalize(), (ankle - knee).normalize());
    let rotation_of = |m: &Mat4| Quat::from_mat4(m).normalize();
    let parent = match parents[root] {
        p if p >= 0 => rotation_of(&model[p as usize]),
        _ => Quat::IDENTITY,
    };
    let hip = turn1 * rotation_of(&model[root]);
    let knee_rotation = turn2 * turn1 * rotation_of(&model[middle]);
    rotations[root] = (parent.inverse() * hip).normalize();
    rotations[middle] = (hip.inverse() * knee_rotation).normalize();
}

/// What the naive foot planting keeps across frames.
#[derive(Clone, Copy, Debug, Default)]
pub struct NaivePlanter {
    pub lock: [Vec3; 2],
    pub lock_weight: [f32; 2],
    pub contact: [f32; 2],
    pub planted: [bool; 2],
    pub drop: f32,
    pub primed: bool,
}

/// Foot planting as a glam user writes it, step for step what `FootPlantingJob` does (lock, ground lift,
/// pelvis drop, two-bone legs, tilt), with matrices inverted and quaternions extracted where sinew works on
/// columns. The pelvis translation and the leg rotations are written into `pose`; the legs' matrices in
/// `model` move with the pelvis, as sinew's do.
#[allow(clippy::too_many_arguments)]
pub fn foot_planting(
    model: &mut [Mat4],
    parents: &[i16],
    pelvis: usize,
    legs: [[usize; 3]; 2],
    planted: [bool; 2],
    ground: [(f32, Vec3); 2],
    world: Mat4,
    dt: f32,
    state: &mut NaivePlanter,
    pose: &mut AosPose,
) {
    let to_model = world.inverse();
    let up = to_model.transform_vector3(Vec3::Y).normalize();
    let smooth = |x: f32| x * x * (3.0 - 2.0 * x);
    let mut targets = [Vec3::ZERO; 2];
    let mut tilts = [Quat::IDENTITY; 2];
    for f in 0..2 {
        let animated = model[legs[f][2]].w_axis.truncate();
        let on_ground = world.transform_point3(animated) + Vec3::Y * (ground[f].0 - world.w_axis.y);
        let held = |lock: Vec3, w: f32| on_ground.lerp(Vec3::new(lock.x, on_ground.y, lock.z), smooth(w));
        if planted[f] {
            if !state.planted[f] {
                state.lock[f] = held(state.lock[f], state.lock_weight[f]);
            }
            state.lock_weight[f] = 1.0;
        } else {
            state.lock_weight[f] = (state.lock_weight[f] - dt / 0.15).max(0.0);
        }
        state.planted[f] = planted[f];
        let goal = if planted[f] { 1.0 } else { 0.0 };
        state.contact[f] += (goal - state.contact[f]).clamp(-dt / 0.1, dt / 0.1);
        targets[f] = to_model.transform_point3(held(state.lock[f], state.lock_weight[f]));
        let normal = to_model.transform_vector3(ground[f].1).normalize();
        let full = Quat::from_rotation_arc(up, normal);
        let (axis, angle) = full.to_axis_angle();
        let tilt = Quat::from_axis_angle(axis, angle.min(std::f32::consts::FRAC_PI_6));
        tilts[f] = Quat::IDENTITY.lerp(tilt, smooth(state.contact[f]));
    }
    let mut needed = 0.0f32;
    for (leg, target) in legs.iter().zip(&targets) {
        let [hip, knee, ankle] = leg.map(|j| model[j].w_axis.truncate());
        let reach = ((knee - hip).length() + (ankle - knee).length()).max((ankle - hip).length());
        let to_target = *target - hip;
        let along = to_target.dot(up);
        let across = (to_target.length_squared() - along * along).max(0.0);
        let drop = if across < reach * reach { along + (reach * reach - across).sqrt() } else { along };
        needed = needed.min(drop);
    }
    state.drop = if state.primed { state.drop + (needed - state.drop) * (1.0 - (-dt / 0.08).exp()) } else { needed };
    state.primed = true;
    let offset = up * state.drop;
    let parent = parents[pelvis];
    let parent_inverse = if parent >= 0 { model[parent as usize].inverse() } else { Mat4::IDENTITY };
    pose.translation[pelvis] += parent_inverse.transform_vector3(offset);
    for j in legs.iter().flatten() {
        model[*j] = Mat4::from_translation(offset) * model[*j];
    }
    for f in 0..2 {
        let [hip, knee, ankle] = legs[f];
        let knee_at = model[knee].w_axis.truncate();
        two_bone_ik(model, parents, legs[f], targets[f], knee_at, &mut pose.rotation);
        // The ankle: its animated model rotation tilted, under the knee's new model rotation.
        let rotation_of = |m: &Mat4| Quat::from_mat4(m).normalize();
        let hip_parent = match parents[hip] {
            p if p >= 0 => rotation_of(&model[p as usize]),
            _ => Quat::IDENTITY,
        };
        let knee_model = hip_parent * pose.rotation[hip] * pose.rotation[knee];
        pose.rotation[ankle] = (knee_model.inverse() * tilts[f] * rotation_of(&model[ankle])).normalize();
    }
}

/// Aim as a glam user writes it: the joint's forward axis in model space, the shortest arc to the target,
/// the local rotation recovered through quaternions extracted from the model matrices.
pub fn aim(model: &[Mat4], parents: &[i16], joint: usize, forward: Vec3, target: Vec3, rotations: &mut [Quat]) {
    let m = &model[joint];
    let aim = m.transform_vector3(forward).normalize();
    let want = (target - m.w_axis.truncate()).normalize();
    let turn = Quat::from_rotation_arc(aim, want);
    let parent = match parents[joint] {
        p if p >= 0 => Quat::from_mat4(&model[p as usize]).normalize(),
        _ => Quat::IDENTITY,
    };
    rotations[joint] = (parent.inverse() * turn * Quat::from_mat4(m).normalize()).normalize();
}

/// Aim down a chain as a glam user writes it: per joint, root first, the shortest arc from the end's forward
/// to the target taken by the joint's weight (lerp, normalized), the chain's matrices turned about the
/// joint, and the local rotation recovered through quaternions extracted from the (turned) parent matrix.
pub fn aim_chain(
    model: &[Mat4],
    parents: &[i16],
    joints: &[usize],
    weights: &[f32],
    forward: Vec3,
    target: Vec3,
    rotations: &mut [Quat],
) {
    let mut turned: Vec<Mat4> = joints.iter().map(|&j| model[j]).collect();
    let mut above = Quat::IDENTITY;
    for (i, (&joint, &weight)) in joints.iter().zip(weights).enumerate() {
        let end = turned[turned.len() - 1];
        let aim = end.transform_vector3(forward).normalize();
        let want = (target - end.w_axis.truncate()).normalize();
        let turn = Quat::IDENTITY.lerp(Quat::from_rotation_arc(aim, want), weight);
        let pivot = turned[i].w_axis.truncate();
        let about = Mat4::from_translation(pivot) * Mat4::from_quat(turn) * Mat4::from_translation(-pivot);
        for m in turned[i..].iter_mut() {
            *m = about * *m;
        }
        let parent = match parents[joint] {
            p if p >= 0 => above * Quat::from_mat4(&model[p as usize]).normalize(),
            _ => above,
        };
        rotations[joint] = (parent.inverse() * Quat::from_mat4(&turned[i]).normalize()).normalize();
        above = turn * above;
    }
}

/// CCD as a glam user writes it: per joint, the chain's matrices rebuilt from its local transforms, the
/// shortest arc taking the end toward the target, and the local rotation recovered through quaternions
/// extracted from the parent's matrix. Returns the iterations run.
pub fn ccd(chain: &[usize], above: Mat4, pose: &mut AosPose, target: Vec3, tolerance: f32, max_iterations: u32) -> u32 {
    let chain_models = |pose: &AosPose| {
        let mut models = Vec::with_capacity(chain.len());
        let mut parent = above;
        for &j in chain {
            parent *= Mat4::from_scale_rotation_translation(pose.scale[j], pose.rotation[j], pose.translation[j]);
            models.push(parent);
        }
        models
    };
    let end = |models: &[Mat4]| models[models.len() - 1].w_axis.truncate();
    for iteration in 0..max_iterations {
        if (end(&chain_models(pose)) - target).length() <= tolerance {
            return iteration;
        }
        for i in (0..chain.len() - 1).rev() {
            let models = chain_models(pose);
            let pivot = models[i].w_axis.truncate();
            let turn = Quat::from_rotation_arc((end(&models) - pivot).normalize(), (target - pivot).normalize());
            let parent = Quat::from_mat4(if i == 0 { &above } else { &models[i - 1] }).normalize();
            let j = chain[i];
            pose.rotation[j] = (parent.inverse() * turn * parent * pose.rotation[j]).normalize();
        }
    }
    max_iterations
}

/// Phase matching without an inverse table: the first key frame whose unwrapped phase (`forward`, one per
/// frame at `rate`) reaches the next `phase` past the first frame's, by a linear scan, then interpolated.
pub fn phase_entry(forward: &[f32], rate: f32, phase: f32) -> f32 {
    let first = forward[0];
    let wanted = first + (phase - first).rem_euclid(1.0);
    for k in 1..forward.len() {
        if forward[k] >= wanted {
            let span = forward[k] - forward[k - 1];
            let along = if span > 0.0 { (wanted - forward[k - 1]) / span } else { 0.0 };
            return (k as f32 - 1.0 + along) / rate;
        }
    }
    0.0
}

/// Foot-phase matching by brute force: the footstep times of each foot as vectors, and at every key frame a
/// scan for the footsteps around it. The key frame with the smallest summed circular distance wins (no
/// refinement between frames). `None` when no frame lies between footsteps of both feet.
pub fn match_foot_phase(steps: [&[f32]; 2], frames: usize, rate: f32, source: [f32; 2]) -> Option<f32> {
    let phase = |steps: &[f32], t: f32| {
        let before = steps.iter().rev().find(|&&s| s <= t)?;
        let after = steps.iter().find(|&&s| s > t)?;
        Some((t - before) / (after - before))
    };
    let distance = |a: f32, b: f32| {
        let d = (a - b).rem_euclid(1.0);
        d.min(1.0 - d)
    };
    let mut best: Option<(f32, f32)> = None;
    for k in 0..frames {
        let t = k as f32 / rate;
        let (Some(l), Some(r)) = (phase(steps[0], t), phase(steps[1], t)) else { continue };
        let cost = distance(l, source[0]) + distance(r, source[1]);
        if best.is_none_or(|(_, c)| cost < c) {
            best = Some((t, cost));
        }
    }
    best.map(|(t, _)| t)
}

/// Speed ranges the way a first version is written: every range's weight from its rising and falling ramps
/// (linear across the overlaps with its neighbours), then each weighted range's rate, collected into a `Vec`.
/// `ranges` are (low, high, reference speed, clip), slowest first.
pub fn speed_shares(ranges: &[(f32, f32, f32, u32)], min_rate: f32, max_rate: f32, speed: f32) -> Vec<(u32, f32, f32)> {
    let n = ranges.len();
    let mut shares = Vec::new();
    for (i, &(low, high, reference, clip)) in ranges.iter().enumerate() {
        let rising = if i == 0 { 1.0 } else { ((speed - low) / (ranges[i - 1].1 - low)).clamp(0.0, 1.0) };
        let falling =
            if i + 1 == n { 1.0 } else { (1.0 - (speed - ranges[i + 1].0) / (high - ranges[i + 1].0)).clamp(0.0, 1.0) };
        let weight = rising.min(falling);
        if weight > 0.0 {
            shares.push((clip, weight, (speed / reference).clamp(min_rate, max_rate)));
        }
    }
    shares
}

/// IK by interpolation as a first version is written with glam: per iteration, bilinear weights on the grid of
/// aim poses (`poses[p * yaws.len() + y]`), the four poses blended (`blend`), forward kinematics of the whole
/// pose, and the textbook's correction (the parameters moved by the wanted angles' less the achieved ones').
/// Returns the last error, radians.
#[allow(clippy::too_many_arguments)]
pub fn aim_blend(
    poses: &[AosPose],
    yaws: &[f32],
    pitches: &[f32],
    parents: &[i16],
    joint: usize,
    forward: Vec3,
    direction: Vec3,
    iterations: u32,
    out: &mut AosPose,
    model: &mut [Mat4],
) -> f32 {
    let angles = |d: Vec3| [d.x.atan2(d.z), (d.y / d.length()).clamp(-1.0, 1.0).asin()];
    let index = |axis: &[f32], a: f32| {
        if axis.len() < 2 {
            return 0.0;
        }
        let i = axis.iter().take(axis.len() - 1).skip(1).take_while(|&&x| x <= a).count();
        (i as f32 + (a - axis[i]) / (axis[i + 1] - axis[i])).clamp(0.0, (axis.len() - 1) as f32)
    };
    let wanted = direction.normalize();
    let [gy, gp] = angles(wanted);
    let goal = [index(yaws, gy), index(pitches, gp)];
    let mut param = goal;
    let mut k = 0;
    loop {
        let cell = |n: usize, u: f32| {
            if n < 2 {
                (0, 0, 0.0)
            } else {
                let i = (u as usize).min(n - 2);
                (i, i + 1, u - i as f32)
            }
        };
        let (y0, y1, fu) = cell(yaws.len(), param[0]);
        let (p0, p1, fv) = cell(pitches.len(), param[1]);
        let w = yaws.len();
        let layers = [
            (&poses[p0 * w + y0], (1.0 - fu) * (1.0 - fv), None),
            (&poses[p0 * w + y1], fu * (1.0 - fv), None),
            (&poses[p1 * w + y0], (1.0 - fu) * fv, None),
            (&poses[p1 * w + y1], fu * fv, None),
        ];
        blend(&layers, out);
        local_to_model(parents, out, model);
        let achieved = model[joint].transform_vector3(forward).normalize();
        if k == iterations {
            return achieved.angle_between(wanted);
        }
        k += 1;
        let [ay, ap] = angles(achieved);
        let reached = [index(yaws, ay), index(pitches, ap)];
        for a in 0..2 {
            param[a] = (param[a] + goal[a] - reached[a]).clamp(0.0, [yaws.len(), pitches.len()][a] as f32 - 1.0);
        }
    }
}

/// Motion matching as a user first writes it (Holden's demo without its boxes): one normalized row per frame,
/// row-major, each row's squared distance to the query summed dimension by dimension, given up as soon as it
/// reaches the best so far. `open[f]` says whether frame `f` may be taken; `current`, when given, is the playing
/// frame, whose cost less `bias` is the first bound. Returns the frame and its cost (for the playing frame, its
/// cost less the bias).
pub fn motion_search(
    rows: &[f32],
    dims: usize,
    query: &[f32],
    open: &[bool],
    (current, bias): (Option<usize>, f32),
) -> Option<(usize, f32)> {
    let cost_of = |row: &[f32]| row.iter().zip(query).map(|(x, q)| (x - q) * (x - q)).sum::<f32>();
    // The playing frame's cost less the bias is the bound a jump must beat (Holden's `database_search`).
    let mut best: Option<(usize, f32)> = current.map(|c| (c, cost_of(&rows[c * dims..][..dims]) - bias));
    for (frame, row) in rows.chunks_exact(dims).enumerate() {
        if !open[frame] || Some(frame) == current {
            continue;
        }
        let bound = best.map_or(f32::INFINITY, |(_, cost)| cost);
        let mut cost = 0.0;
        for (x, q) in row.iter().zip(query) {
            cost += (x - q) * (x - q);
            if cost >= bound {
                break;
            }
        }
        if cost < bound {
            best = Some((frame, cost));
        }
    }
    best
}
