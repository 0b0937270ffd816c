//! Inverse kinematics on the model-space pose, written back as local rotations so the rest of the frame
//! (local-to-model of the chain's descendants, skinning) stays consistent.
//!
//! [`TwoBoneIkJob`]: the analytic two-bone solver (hip–knee–ankle, shoulder–elbow–wrist). The end is placed on
//! the line from the chain's root to the target at the reachable distance; the middle joint bends in the plane
//! through the root, the target and the pole (a model-space point; the current middle joint when none is
//! given), on the pole's side, by the law of cosines. Each bone turns by the shortest arc that takes it to its
//! new direction, so the bones' twist is kept. Descendants of the end follow rigidly.
//!
//! Soft reach: with `soften < 1`, past `s = soften · (l₁ + l₂)` the end approaches full extension along
//! `s + (r − s)(1 − e^{−(d − s)/(r − s)})` (`r = l₁ + l₂`, `d` the target's distance), which meets the hard
//! reach with the same slope at `s` and never quite straightens the knee, so it does not snap as the target
//! crosses the reach. `soften = 1` is the hard clamp `min(d, r)`.
//!
//! Space: model. Units: the skeleton's. Layout: the model matrices are AoS `Mat4`, one per joint (what
//! [`LocalToModelJob`] writes); the local pose is SoA, four joints a group. Precision: `f32`; the rotations are
//! written into the local pose exactly as the model-space solution needs when the model matrices carry
//! rotations and uniform scales (a non-uniform scale above the chain skews the bend plane).
//!
//! [`LocalToModelJob`]: crate::LocalToModelJob

use crate::data::skeleton::Skeleton;
use crate::error::Buffer;
use crate::error::Error;
use crate::math::{Mat4, Quat, SoaTransform, Vec3};

mod batch;
pub use batch::{TwoBoneBatchChain, TwoBoneIkBatchJob, TwoBoneRotations};

/// The analytic two-bone solver over one chain (see the module docs).
#[derive(Debug)]
pub struct TwoBoneIkJob<'a> {
    /// The skeleton the chain's joints belong to.
    pub skeleton: &'a Skeleton<'a>,
    /// The chain's root, middle and end joints; each the parent of the next.
    pub chain: [usize; 3],
    /// Where the end joint should be (model space).
    pub target: Vec3,
    /// A model-space point the middle joint bends toward; `None` keeps the current bend plane.
    pub pole: Option<Vec3>,
    /// 0 leaves the animated pose, 1 applies the solution; between, each bone turns that fraction of its arc.
    pub weight: f32,
    /// Soft reach: in (0, 1]; 1 is the hard clamp (see the module docs).
    pub soften: f32,
    /// The end joint's orientation: `None` lets it follow the middle bone (its local rotation is kept);
    /// `Some(turn)` gives it its animated model-space orientation turned by `turn` (model space, applied by
    /// `weight`): `Some(Quat::IDENTITY)` keeps a planted foot as animated, a tilt lays it on a slope. An
    /// absolute model orientation `D` is the turn `D · R⁻¹`, `R` the end's animated model rotation.
    pub end_turn: Option<Quat>,
    /// Model matrices of the animated pose, one per joint.
    pub model: &'a [Mat4],
    /// The local pose the matrices came from; the root's and middle joint's rotations are rewritten, and the
    /// end joint's with `end_turn`.
    pub local: &'a mut [SoaTransform],
}

/// What a solve did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneSolve {
    /// True when the end reaches the target (within `1e-4` of the chain's length), false when the target was
    /// out of reach (too far, too close, or softened away).
    pub reached: bool,
}

/// The shortest-arc rotation taking unit `from` to unit `to`, as a unit quaternion built without
/// trigonometry (`(from × to, 1 + from · to)` normalized: its half angle for free). Opposite directions turn π
/// about an axis perpendicular to `from`.
pub(crate) fn arc(from: Vec3, to: Vec3) -> Quat {
    let w = 1.0 + from.dot(to);
    if w < 1e-6 {
        let axis = perpendicular(from);
        return Quat::new(axis.x, axis.y, axis.z, 0.0);
    }
    let axis = from.cross(to);
    Quat::new(axis.x, axis.y, axis.z, w).normalize()
}

/// `turn` weighted: the identity for 0, `turn` for 1, the normalized lerp between (a bone turns that fraction
/// of its arc, up to nlerp's uneven speed).
pub(crate) fn weighted(turn: Quat, weight: f32) -> Quat {
    if weight >= 1.0 { turn } else { Quat::nlerp(Quat::IDENTITY, turn, weight) }
}

/// A model-space rotation re-expressed in the frame of `m` (`R⁻¹ q R`): its axis taken into the frame, its
/// angle kept. Exact when `m`'s linear part is a rotation times a uniform scale.
fn into_frame(m: &Mat4, q: Quat) -> Quat {
    let v = Vec3::new(q.x, q.y, q.z);
    let length = v.length();
    if length == 0.0 {
        return q;
    }
    let column = |c: usize| Vec3::new(m.cols[c][0], m.cols[c][1], m.cols[c][2]);
    let local = Vec3::new(column(0).dot(v), column(1).dot(v), column(2).dot(v));
    let v = local.scaled(length / local.length());
    Quat::new(v.x, v.y, v.z, q.w)
}

/// A unit vector perpendicular to unit `v`.
fn perpendicular(v: Vec3) -> Vec3 {
    // Cross with the axis `v` is least aligned with.
    let other = if v.x.abs() < 0.6 { Vec3::new(1.0, 0.0, 0.0) } else { Vec3::new(0.0, 1.0, 0.0) };
    let p = v.cross(other);
    p.scaled(1.0 / p.length())
}

/// The joint count, once the model matrices and the local pose are checked to cover the skeleton.
pub(crate) fn check_buffers(skeleton: &Skeleton<'_>, model: &[Mat4], local: &[SoaTransform]) -> Result<usize, Error> {
    let joints = skeleton.num_joints();
    if model.len() < joints {
        return Err(Error::BufferLength { buffer: Buffer::ModelMatrices, expected: joints, actual: model.len() });
    }
    let groups = skeleton.num_soa_joints();
    if local.len() < groups {
        return Err(Error::BufferLength { buffer: Buffer::SoaPose, expected: groups, actual: local.len() });
    }
    Ok(joints)
}

/// The model matrix of `joint`'s parent (the identity for a root): the frame its local rotation lives in.
fn parent_frame(skeleton: &Skeleton<'_>, model: &[Mat4], joint: usize) -> Mat4 {
    match skeleton.parents()[joint] {
        p if p >= 0 => model[p as usize],
        _ => Mat4::IDENTITY,
    }
}

impl TwoBoneIkJob<'_> {
    /// The chain's bone lengths, once the buffers cover the skeleton and the chain is parent-linked, in range
    /// and made of bones of finite, non-zero length.
    pub(crate) fn validate_chain(
        skeleton: &Skeleton<'_>,
        chain: [usize; 3],
        model: &[Mat4],
        local: &[SoaTransform],
    ) -> Result<[f32; 2], Error> {
        let joints = check_buffers(skeleton, model, local)?;
        let [root, middle, end] = chain;
        let parents = skeleton.parents();
        let linked = |child: usize, parent: usize| parents.get(child).is_some_and(|&p| p as isize == parent as isize);
        if root >= joints || !linked(middle, root) || !linked(end, middle) {
            return Err(Error::InvalidIkChain);
        }
        let position = |j: usize| model[j].translation();
        let lengths = [(position(middle) - position(root)).length(), (position(end) - position(middle)).length()];
        if !lengths.iter().all(|l| l.is_finite() && *l > 0.0) {
            return Err(Error::InvalidIkChain);
        }
        Ok(lengths)
    }

    /// Errors: `BufferLength` (model or local pose shorter than the skeleton); `InvalidIkChain` (a joint out of
    /// range, not the parent of the next, or a bone of zero or non-finite length); `InvalidIkTarget` (a target or
    /// pole NaN, infinite or so far from the chain that its distance overflows, a weight outside [0, 1], `soften`
    /// outside (0, 1], an end turn not finite or far from unit length).
    pub fn validate(&self) -> Result<[f32; 2], Error> {
        let lengths = TwoBoneIkJob::validate_chain(self.skeleton, self.chain, self.model, self.local)?;
        let [root, ..] = self.chain;
        let position = |j: usize| self.model[j].translation();
        // Finite differences from the chain's root too, so nothing downstream overflows to NaN.
        let near = |p: Vec3| {
            let d = p - position(root);
            d.dot(d).is_finite()
        };
        let pole_ok =
            self.pole.is_none_or(near) && self.end_turn.is_none_or(|q| q.is_finite() && q.length_squared() > 0.5);
        let weight_ok = (0.0..=1.0).contains(&self.weight);
        let soften_ok = self.soften > 0.0 && self.soften <= 1.0;
        if !(near(self.target) && pole_ok && weight_ok && soften_ok) {
            return Err(Error::InvalidIkTarget);
        }
        Ok(lengths)
    }

    /// Solves and writes the root's and middle joint's local rotations. The caller recomputes the model
    /// matrices from the chain's root down (`LocalToModelJob` over its subtree) before using them.
    ///
    /// Errors: those of [`TwoBoneIkJob::validate`]; nothing is written on an `Err`.
    pub fn run(&mut self) -> Result<TwoBoneSolve, Error> {
        let lengths = self.validate()?;
        Ok(self.solve(lengths))
    }

    /// The solve, for a job whose chain, target and settings are known to pass [`TwoBoneIkJob::validate`]
    /// (`lengths` are the bones' lengths it returns): foot planting validates its legs once per frame.
    pub(crate) fn solve(&mut self, [l1, l2]: [f32; 2]) -> TwoBoneSolve {
        let [root, middle, end] = self.chain;
        let (a, b, c) =
            (self.model[root].translation(), self.model[middle].translation(), self.model[end].translation());
        let to_target = self.target - a;
        let distance = to_target.length();
        // A target on the chain's root gives no direction: keep the current one.
        let toward = if distance > 1e-6 * (l1 + l2) { to_target } else { c - a };
        let u = toward.scaled(1.0 / toward.length());
        let (reach, least) = (l1 + l2, (l1 - l2).abs());
        let soft_start = self.soften * reach;
        let mut placed = if self.soften < 1.0 && distance > soft_start {
            let span = reach - soft_start;
            soft_start + span * (1.0 - libm::expf(-(distance - soft_start) / span))
        } else {
            distance.min(reach)
        };
        placed = placed.max(least);
        let reached = (placed - distance).abs() <= 1e-4 * reach;
        // The bend plane's in-plane normal to u: toward the pole, else the current knee, else any.
        let off_line = |p: Vec3| {
            let w = p - a;
            let v = w - u.scaled(w.dot(u));
            let length = v.length();
            (length > 1e-6 * reach).then(|| v.scaled(1.0 / length))
        };
        let v =
            self.pole.and_then(off_line).or_else(|| off_line(b)).or_else(|| off_line(c)).unwrap_or(perpendicular(u));
        // Equal bones folded onto the root (placed = 0) leave the knee along u.
        let cos = if placed > 0.0 {
            ((l1 * l1 + placed * placed - l2 * l2) / (2.0 * l1 * placed)).clamp(-1.0, 1.0)
        } else {
            1.0
        };
        let sin = crate::math::sqrt((1.0 - cos * cos).max(0.0));
        let knee = a + u.scaled(l1 * cos) + v.scaled(l1 * sin);
        let ankle = a + u.scaled(placed);
        // The root bone's arc, weighted; then the middle bone's, from where the root's turn left it.
        let turn1 = weighted(arc((b - a).scaled(1.0 / l1), (knee - a).scaled(1.0 / l1)), self.weight);
        let knee_now = a + turn1.rotate(b - a);
        let want = ankle - knee_now;
        let reach_now = want.length();
        // A partly weighted knee can sit on the solved ankle: nothing to aim at, so the middle bone stays.
        let turn2 = if reach_now > 0.0 {
            weighted(arc(turn1.rotate(c - b).scaled(1.0 / l2), want.scaled(1.0 / reach_now)), self.weight)
        } else {
            Quat::IDENTITY
        };
        // Model-space turns into local ones: the root's in its parent's frame; the middle's in the root's frame
        // before this solve, once the root's own turn is undone (q1⁻¹ q2 q1).
        let parent_frame = parent_frame(self.skeleton, self.model, root);
        let local1 = into_frame(&parent_frame, turn1);
        let local2 = into_frame(&self.model[root], turn1.conjugate() * turn2 * turn1);
        // The end's model rotation is now `t R` (t = turn2 turn1); `turn R` needs `turn t⁻¹` more in model
        // space, which is `t⁻¹ turn` in the middle joint's frame before this solve.
        let local3 = self.end_turn.map(|turn| {
            let t = turn2 * turn1;
            into_frame(&self.model[middle], t.conjugate() * weighted(turn.normalize(), self.weight))
        });
        let ends = [(root, Some(local1)), (middle, Some(local2)), (end, local3)];
        for (joint, delta) in ends.into_iter().filter_map(|(j, d)| Some((j, d?))) {
            let rotation = &mut self.local[joint / 4].rotation;
            rotation.set(joint % 4, (delta * rotation.get(joint % 4)).normalize());
        }
        TwoBoneSolve { reached }
    }
}

/// Aim (look-at) on one joint: its `forward` axis (joint-local) turned toward `target` by the shortest arc,
/// then, with `up` given, twisted about the aim so its `up` axis (joint-local) leans toward the model-space
/// up vector (a head that stays level, a camera that does not roll). The joint's local rotation is rewritten;
/// its descendants follow rigidly once local-to-model runs again.
///
/// `max_angle` caps the aim's turn (radians, e.g. how far eyes may look); `weight` blends the whole
/// correction in by nlerp from the identity. A target on the joint gives no direction: nothing changes and
/// the solve reports `aimed: false`.
///
/// Space: model (target, model up); joint-local (forward, up axis). Precision: `f32`; exact for model
/// matrices carrying rotations and uniform scales.
#[derive(Debug)]
pub struct AimIkJob<'a> {
    /// The skeleton the joint belongs to.
    pub skeleton: &'a Skeleton<'a>,
    /// The joint that aims.
    pub joint: usize,
    /// The joint's aim axis in its own frame (any length but zero).
    pub forward: Vec3,
    /// The joint's up axis in its own frame and the model-space up it should lean toward; `None` leaves the
    /// twist to the shortest arc.
    pub up: Option<(Vec3, Vec3)>,
    /// Where to aim, model space.
    pub target: Vec3,
    /// The largest turn of the aim, radians in (0, π]; `None` for no limit.
    pub max_angle: Option<f32>,
    /// The largest twist about the aim that `up` may add, radians in (0, π] (a neck that levels the head
    /// only so far); `None` for no limit.
    pub max_twist: Option<f32>,
    /// How much of the correction to apply, in [0, 1].
    pub weight: f32,
    /// The model matrices of `local`, from local-to-model.
    pub model: &'a [Mat4],
    /// The local pose the matrices came from; the joint's rotation is rewritten.
    pub local: &'a mut [SoaTransform],
}

/// What an aim did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AimSolve {
    /// False when the target sat on the joint (nothing changed).
    pub aimed: bool,
    /// True when `max_angle` cut the turn short.
    pub limited: bool,
}

/// `v` made unit length, `None` when it has none.
pub(crate) fn unit(v: Vec3) -> Option<Vec3> {
    let length = v.length();
    (length > 0.0 && length.is_finite()).then(|| v.scaled(1.0 / length))
}

impl AimIkJob<'_> {
    /// Errors: `BufferLength` (model or local pose shorter than the skeleton); `IndexOutOfRange` (joint);
    /// `InvalidIkTarget` (a NaN or infinite vector, a zero axis, a weight outside [0, 1], a turn or twist
    /// limit outside (0, π]).
    pub fn validate(&self) -> Result<(), Error> {
        let joints = check_buffers(self.skeleton, self.model, self.local)?;
        if self.joint >= joints {
            return Err(Error::IndexOutOfRange { what: crate::error::Index::Joint, index: self.joint, len: joints });
        }
        let axis = |v: Vec3| v.is_finite() && v.dot(v) > 0.0 && v.dot(v).is_finite();
        let up_ok = self.up.is_none_or(|(local, model)| axis(local) && axis(model));
        let near = {
            let d = self.target - self.model[self.joint].translation();
            d.dot(d).is_finite()
        };
        let limit_ok = |limit: Option<f32>| limit.is_none_or(|a| a > 0.0 && a <= core::f32::consts::PI);
        let limits_ok = limit_ok(self.max_angle) && limit_ok(self.max_twist);
        if !(axis(self.forward) && up_ok && near && limits_ok && (0.0..=1.0).contains(&self.weight)) {
            return Err(Error::InvalidIkTarget);
        }
        Ok(())
    }

    /// Turns the joint (see the type's docs).
    ///
    /// Errors: those of [`AimIkJob::validate`]; nothing is written on an `Err`.
    pub fn run(&mut self) -> Result<AimSolve, Error> {
        self.validate()?;
        let m = &self.model[self.joint];
        let (Some(aim), Some(want)) = (unit(m.transform_vector(self.forward)), unit(self.target - m.translation()))
        else {
            return Ok(AimSolve { aimed: false, limited: false });
        };
        let mut turn = arc(aim, want);
        // Trigonometry only when a limit is asked: the turn passes it when its cosine is below the limit's.
        let limit = self.max_angle.filter(|limit| aim.dot(want) < libm::cosf(*limit));
        if let Some(limit) = limit {
            // The same axis, the limited angle.
            let axis = unit(Vec3::new(turn.x, turn.y, turn.z)).unwrap_or(perpendicular(aim));
            turn = Quat::from_axis_angle(axis, limit);
        }
        if let Some((local_up, model_up)) = self.up {
            // Twist about where the aim now points so the up axis leans toward the model's up: both projected
            // off the aim, the arc between them turns about it.
            let pointing = turn.rotate(aim);
            let off_aim = |v: Vec3| unit(v - pointing.scaled(v.dot(pointing)));
            if let (Some(have), Some(wanted)) = (off_aim(turn.rotate(m.transform_vector(local_up))), off_aim(model_up))
            {
                let twist = arc(have, wanted);
                let twist = match self.max_twist {
                    Some(limit) => capped(twist, limit, libm::cosf(0.5 * limit)),
                    None => twist,
                };
                turn = twist * turn;
            }
        }
        let turn = weighted(turn, self.weight);
        let parent_frame = parent_frame(self.skeleton, self.model, self.joint);
        let rotation = &mut self.local[self.joint / 4].rotation;
        let lane = self.joint % 4;
        rotation.set(lane, (into_frame(&parent_frame, turn) * rotation.get(lane)).normalize());
        Ok(AimSolve { aimed: true, limited: limit.is_some() })
    }
}

/// The longest chain [`CcdIkJob`] solves (its joints' matrices live on the stack).
pub const MAX_CCD_JOINTS: usize = 32;

/// Aim shared down a chain (spine–neck–head): the last joint's `forward` axis turned toward `target`, each
/// joint of the chain, root first, taking `weights[i]` of the turn still left when its turn comes (as a
/// fraction of the shortest arc, by nlerp), the arc re-aimed from where the turns above left the last joint.
/// A last weight of 1 finishes the aim exactly; smaller weights stop short (the head looks, the spine
/// follows a little). Every joint between two chain joints follows rigidly.
///
/// `max_angle` caps the whole aim: the goal is the target's direction from the last joint, turned back
/// toward its animated `forward` to at most that angle. The twist about the aim is the shortest arc's;
/// an [`AimIkJob`] with `up` on the last joint afterwards levels it.
///
/// Space: model (target); joint-local (forward). Precision: `f32`; exact for model matrices carrying
/// rotations and uniform scales.
#[derive(Debug)]
pub struct AimChainJob<'a> {
    /// The skeleton the joints belong to.
    pub skeleton: &'a Skeleton<'a>,
    /// Root first, each an ancestor of the next; 1 to [`MAX_CCD_JOINTS`] joints. The last one aims.
    pub joints: &'a [usize],
    /// Per joint, in [0, 1]: the share of the remaining turn it takes.
    pub weights: &'a [f32],
    /// The last joint's aim axis in its own frame (any length but zero).
    pub forward: Vec3,
    /// Where the last joint should aim, model space.
    pub target: Vec3,
    /// The largest turn of the aim, radians in (0, π]; `None` for no limit.
    pub max_angle: Option<f32>,
    /// The model matrices of `local`, from local-to-model.
    pub model: &'a [Mat4],
    /// The local pose the matrices came from; each chain joint's rotation is rewritten.
    pub local: &'a mut [SoaTransform],
}

impl AimChainJob<'_> {
    /// Errors: `BufferLength` (model or local pose shorter than the skeleton; `JointWeights` when the weights
    /// are not one per joint); `InvalidIkChain` (no joints or more than [`MAX_CCD_JOINTS`], a joint out of
    /// range or not an ancestor of the next); `InvalidIkTarget` (a NaN or infinite target, a zero or
    /// non-finite axis, a weight outside [0, 1], a limit outside (0, π]).
    pub fn validate(&self) -> Result<(), Error> {
        let joints = check_buffers(self.skeleton, self.model, self.local)?;
        let n = self.joints.len();
        if n == 0 || n > MAX_CCD_JOINTS || self.joints.iter().any(|&j| j >= joints) {
            return Err(Error::InvalidIkChain);
        }
        if !self.joints.windows(2).all(|w| self.skeleton.is_ancestor(w[0], w[1])) {
            return Err(Error::InvalidIkChain);
        }
        if self.weights.len() != n {
            return Err(Error::BufferLength { buffer: Buffer::JointWeights, expected: n, actual: self.weights.len() });
        }
        let axis = |v: Vec3| v.is_finite() && v.dot(v) > 0.0 && v.dot(v).is_finite();
        let end = self.model[self.joints[n - 1]].translation();
        let near = (self.target - end).dot(self.target - end).is_finite();
        let limit_ok = self.max_angle.is_none_or(|a| a > 0.0 && a <= core::f32::consts::PI);
        let weights_ok = self.weights.iter().all(|w| (0.0..=1.0).contains(w));
        if !(axis(self.forward) && near && limit_ok && weights_ok) {
            return Err(Error::InvalidIkTarget);
        }
        Ok(())
    }

    /// Turns the chain (see the type's docs).
    ///
    /// Errors: those of [`AimChainJob::validate`]; nothing is written on an `Err`.
    pub fn run(&mut self) -> Result<AimSolve, Error> {
        self.validate()?;
        let n = self.joints.len();
        let last = &self.model[self.joints[n - 1]];
        let (mut end, Some(mut aim)) = (last.translation(), unit(last.transform_vector(self.forward))) else {
            return Ok(AimSolve { aimed: false, limited: false });
        };
        let Some(want) = unit(self.target - end) else {
            return Ok(AimSolve { aimed: false, limited: false });
        };
        // The goal: the target's direction, or the limit's when it is further than the limit allows.
        let limit = self.max_angle.filter(|limit| aim.dot(want) < libm::cosf(*limit));
        let goal = match limit {
            Some(limit) => {
                let axis = unit(aim.cross(want)).unwrap_or(perpendicular(aim));
                Some(Quat::from_axis_angle(axis, limit).rotate(aim))
            }
            None => None,
        };
        // Chain joints' positions as the turns above move them; the turns so far, composed (model space).
        let mut positions = [Vec3::ZERO; MAX_CCD_JOINTS];
        for (p, &j) in positions.iter_mut().zip(self.joints) {
            *p = self.model[j].translation();
        }
        let mut above = Quat::IDENTITY;
        for i in 0..n {
            let joint = self.joints[i];
            let pivot = positions[i];
            let toward = goal.or_else(|| unit(self.target - end));
            let turn = match toward {
                Some(toward) => weighted(arc(aim, toward), self.weights[i]),
                None => Quat::IDENTITY,
            };
            // Into the joint's parent frame as it stands after the turns above (R⁻¹ A⁻¹ t A R).
            let parent = parent_frame(self.skeleton, self.model, joint);
            let delta = into_frame(&parent, above.conjugate() * turn * above);
            let rotation = &mut self.local[joint / 4].rotation;
            rotation.set(joint % 4, (delta * rotation.get(joint % 4)).normalize());
            for p in positions[i + 1..n].iter_mut() {
                *p = pivot + turn.rotate(*p - pivot);
            }
            end = pivot + turn.rotate(end - pivot);
            aim = turn.rotate(aim);
            above = turn * above;
        }
        Ok(AimSolve { aimed: true, limited: limit.is_some() })
    }
}

/// How far a joint of a CCD chain may turn from its rest-pose local rotation: the limit applies to
/// `rest⁻¹ · local`, a rotation in the joint's own frame at rest, so axes are given in that frame (a knee's
/// hinge axis, a shoulder's cone about the upper arm's direction), any length but zero. Angles in radians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointLimit {
    /// No limit.
    Free,
    /// A hinge: only turns about `axis`, between `min` and `max`.
    Hinge {
        /// The hinge axis, in the joint's frame at rest.
        axis: Vec3,
        /// The smallest turn about it, radians.
        min: f32,
        /// The largest turn about it, radians.
        max: f32,
    },
    /// A cone about `axis` (the bone's rest direction, usually): a swing of at most `max_swing` away from it
    /// and a twist about it between `min_twist` and `max_twist`.
    Cone {
        /// The cone's axis, in the joint's frame at rest.
        axis: Vec3,
        /// The largest swing away from the axis, radians.
        max_swing: f32,
        /// The smallest twist about the axis, radians.
        min_twist: f32,
        /// The largest twist about the axis, radians.
        max_twist: f32,
    },
}

/// Cyclic coordinate descent over a chain of any length (textbook): from the joint before the end back to the
/// chain's root, each joint turns so the end points at the target, within its limit and at most `max_step`
/// radians an iteration (damping), until the end is within `tolerance` of the target or `max_iterations` pass.
/// The chain's joints' local rotations are rewritten; the caller reruns local-to-model below the chain.
///
/// Space: model (target); joint-local limits (see [`JointLimit`]). Precision: `f32`; exact for rotations and
/// uniform scales in the model matrices.
#[derive(Debug)]
pub struct CcdIkJob<'a> {
    /// The skeleton the chain belongs to.
    pub skeleton: &'a Skeleton<'a>,
    /// The chain, root first; each joint the parent of the next; 2 to [`MAX_CCD_JOINTS`] joints.
    pub chain: &'a [usize],
    /// One limit per chain joint but the end (the end's rotation does not move it).
    pub limits: &'a [JointLimit],
    /// Where the chain's end should go, model space.
    pub target: Vec3,
    /// How close the end must come to stop, in the skeleton's units.
    pub tolerance: f32,
    /// Iterations at most.
    pub max_iterations: u32,
    /// The largest turn of one joint in one iteration (radians, in (0, π]).
    pub max_step: f32,
    /// The model matrices of `local`, from local-to-model.
    pub model: &'a [Mat4],
    /// The local pose the matrices came from; the chain joints' rotations are rewritten.
    pub local: &'a mut [SoaTransform],
}

/// What a CCD solve did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdSolve {
    /// Iterations run.
    pub iterations: u32,
    /// The end's distance to the target at the end.
    pub distance: f32,
    /// Whether the end came within `tolerance`.
    pub reached: bool,
}

/// `q` split about unit `axis` into its twist angle (radians, in (−π, π]) and the swing left (`q = swing ·
/// twist`).
fn swing_twist(q: Quat, axis: Vec3) -> (Quat, f32) {
    let along = Vec3::new(q.x, q.y, q.z).dot(axis);
    let twist_angle = 2.0 * libm::atan2f(along, q.w);
    let twist = Quat::from_axis_angle(axis, twist_angle);
    (q * twist.conjugate(), crate::math::wrap_angle(twist_angle))
}

/// Unit `q` with its angle capped at `limit` (the same axis); `cos_half_limit` is `cos(limit / 2)`, so the
/// check needs no trigonometry (the angle passes the limit when `|w|` falls below it).
pub(crate) fn capped(q: Quat, limit: f32, cos_half_limit: f32) -> Quat {
    let q = if q.w < 0.0 { Quat::new(-q.x, -q.y, -q.z, -q.w) } else { q };
    match unit(Vec3::new(q.x, q.y, q.z)) {
        Some(axis) if q.w < cos_half_limit => Quat::from_axis_angle(axis, limit),
        _ => q,
    }
}

impl JointLimit {
    fn valid(&self) -> bool {
        let axis = |v: Vec3| v.is_finite() && v.dot(v) > 0.0 && v.dot(v).is_finite();
        let range = |min: f32, max: f32| min.is_finite() && max.is_finite() && min <= max;
        match *self {
            JointLimit::Free => true,
            JointLimit::Hinge { axis: a, min, max } => axis(a) && range(min, max),
            JointLimit::Cone { axis: a, max_swing, min_twist, max_twist } => {
                axis(a) && (0.0..=core::f32::consts::PI).contains(&max_swing) && range(min_twist, max_twist)
            }
        }
    }

    /// `relative` (the local rotation relative to rest) brought inside the limit.
    fn clamp(&self, relative: Quat) -> Quat {
        match *self {
            JointLimit::Free => relative,
            JointLimit::Hinge { axis, min, max } => {
                let axis = axis.scaled(1.0 / axis.length());
                let (_, twist) = swing_twist(relative, axis);
                Quat::from_axis_angle(axis, twist.clamp(min, max))
            }
            JointLimit::Cone { axis, max_swing, min_twist, max_twist } => {
                let axis = axis.scaled(1.0 / axis.length());
                let (swing, twist) = swing_twist(relative, axis);
                let swing = capped(swing, max_swing, libm::cosf(0.5 * max_swing));
                swing * Quat::from_axis_angle(axis, twist.clamp(min_twist, max_twist))
            }
        }
    }
}

/// `m` turned rigidly by `q` about the point `pivot`.
fn turned_about(m: &Mat4, q: Quat, pivot: Vec3) -> Mat4 {
    let mut out = *m;
    for c in 0..3 {
        let v = q.rotate(Vec3::new(m.cols[c][0], m.cols[c][1], m.cols[c][2]));
        out.cols[c] = [v.x, v.y, v.z, 0.0];
    }
    let p = pivot + q.rotate(m.translation() - pivot);
    out.cols[3] = [p.x, p.y, p.z, 1.0];
    out
}

/// A rotation in the frame of `m` taken out to model space (the inverse of [`into_frame`]).
fn out_of_frame(m: &Mat4, q: Quat) -> Quat {
    let v = Vec3::new(q.x, q.y, q.z);
    let length = v.length();
    match unit(m.transform_vector(v)) {
        Some(axis) => {
            let v = axis.scaled(length);
            Quat::new(v.x, v.y, v.z, q.w)
        }
        None => q,
    }
}

impl CcdIkJob<'_> {
    /// Errors: `BufferLength` (model, local pose or limits short); `InvalidIkChain` (fewer than 2 or more than
    /// [`MAX_CCD_JOINTS`] joints, a joint out of range or not the parent of the next); `InvalidIkTarget` (a NaN
    /// or infinite target, tolerance not ≥ 0, `max_step` outside (0, π], a limit with a zero axis or min > max).
    pub fn validate(&self) -> Result<(), Error> {
        let joints = check_buffers(self.skeleton, self.model, self.local)?;
        let parents = self.skeleton.parents();
        let n = self.chain.len();
        let linked = self.chain.windows(2).all(|w| w[1] < joints && parents[w[1]] as isize == w[0] as isize);
        if !(2..=MAX_CCD_JOINTS).contains(&n) || self.chain[0] >= joints || !linked {
            return Err(Error::InvalidIkChain);
        }
        if self.limits.len() < n - 1 {
            return Err(Error::BufferLength {
                buffer: Buffer::JointLimits,
                expected: n - 1,
                actual: self.limits.len(),
            });
        }
        let near = {
            let d = self.target - self.model[self.chain[0]].translation();
            d.dot(d).is_finite()
        };
        let step_ok = self.max_step > 0.0 && self.max_step <= core::f32::consts::PI;
        let tolerance_ok = self.tolerance >= 0.0 && self.tolerance.is_finite();
        if !(near && step_ok && tolerance_ok && self.limits.iter().all(JointLimit::valid)) {
            return Err(Error::InvalidIkTarget);
        }
        Ok(())
    }

    /// Solves (see the type's docs).
    ///
    /// Errors: those of [`CcdIkJob::validate`]; nothing is written on an `Err`.
    pub fn run(&mut self) -> Result<CcdSolve, Error> {
        self.validate()?;
        let n = self.chain.len();
        let mut frames = [Mat4::IDENTITY; MAX_CCD_JOINTS];
        for (frame, &joint) in frames.iter_mut().zip(self.chain) {
            *frame = self.model[joint];
        }
        let above = parent_frame(self.skeleton, self.model, self.chain[0]);
        let rest = self.skeleton.rest_pose();
        let end = |frames: &[Mat4; MAX_CCD_JOINTS]| frames[n - 1].translation();
        let mut iterations = 0;
        let mut distance = (end(&frames) - self.target).length();
        let cos_half_step = libm::cosf(0.5 * self.max_step);
        while distance > self.tolerance && iterations < self.max_iterations {
            iterations += 1;
            for i in (0..n - 1).rev() {
                let pivot = frames[i].translation();
                let (Some(from), Some(to)) = (unit(end(&frames) - pivot), unit(self.target - pivot)) else { continue };
                let turn = capped(arc(from, to), self.max_step, cos_half_step);
                // The turn in the joint's parent frame, applied to its local rotation, brought inside its limit
                // relative to rest; what the limit allowed is what the chain below turns by.
                let parent = if i == 0 { above } else { frames[i - 1] };
                let joint = self.chain[i];
                let rotation = &mut self.local[joint / 4].rotation;
                let old = rotation.get(joint % 4);
                let rest_rotation = rest[joint / 4].rotation.get(joint % 4);
                let wanted = (into_frame(&parent, turn) * old).normalize();
                let limited = match self.limits[i] {
                    JointLimit::Free => wanted,
                    limit => (rest_rotation * limit.clamp(rest_rotation.conjugate() * wanted)).normalize(),
                };
                rotation.set(joint % 4, limited);
                let applied = out_of_frame(&parent, (limited * old.conjugate()).normalize());
                for frame in &mut frames[i..n] {
                    *frame = turned_about(frame, applied, pivot);
                }
            }
            distance = (end(&frames) - self.target).length();
        }
        Ok(CcdSolve { iterations, distance, reached: distance <= self.tolerance })
    }
}
