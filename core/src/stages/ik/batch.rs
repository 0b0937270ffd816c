//! Two-bone IK for many chains at once (a crowd's legs): the analytic solve of [`super::TwoBoneIkJob`] with
//! one chain per SIMD lane, four per `F4`, eight per `F8` where that is one register (x86-64-v3).
//!
//! Chains come from any number of characters: each [`TwoBoneBatchChain`] borrows its character's skeleton and
//! model matrices and local pose, whose columns and rotations load straight into lanes (four chains'
//! matrix columns transpose as one 4×4 block). The job writes each chain's two new local rotations;
//! [`TwoBoneIkBatchJob::store`] puts them into the character's pose once the chains (which borrow the poses
//! to read) are dropped. The solve is the scalar job's, step for step, with its soft reach left out (the
//! hard clamp `min(d, l₁ + l₂)`) and no end orientation.
//!
//! Layout: model matrices AoS `Mat4` and local poses SoA (read in place); rotations AoS `[Quat; 2]`.
//! Space: model (positions, frames); local (rotations). Precision: `f32`, agreeing
//! with the scalar job to a few ulps of the chain's size (the same formulas, reassociated by fused
//! multiply-adds on x86-64-v3).

use crate::data::skeleton::Skeleton;
use crate::error::Buffer;
use crate::error::Error;
use crate::math::{F4, F8, F8_IS_ONE_REGISTER, Lanes, Mat4, Quat, SoaTransform, Vec3};

/// One chain of a batched solve.
#[derive(Clone, Copy, Debug)]
pub struct TwoBoneBatchChain<'a> {
    /// The character's skeleton.
    pub skeleton: &'a Skeleton<'a>,
    /// The character's model matrices.
    pub model: &'a [Mat4],
    /// The local pose the matrices came from.
    pub local: &'a [SoaTransform],
    /// Root, middle and end joints, each the parent of the next.
    pub chain: [usize; 3],
    /// Where the end should be (model space).
    pub target: Vec3,
    /// A model-space point the middle joint bends toward; `None` keeps the current bend plane.
    pub pole: Option<Vec3>,
    /// In [0, 1]: the fraction of each bone's arc applied.
    pub weight: f32,
}

/// A chain's new local rotations: the root's, then the middle joint's.
pub type TwoBoneRotations = [Quat; 2];

/// Solves every chain of `chains` into `rotations` (see the module docs).
#[derive(Debug)]
pub struct TwoBoneIkBatchJob<'a> {
    /// The chains, of any number of characters.
    pub chains: &'a [TwoBoneBatchChain<'a>],
    /// One pair of rotations per chain, written.
    pub rotations: &'a mut [TwoBoneRotations],
}

/// A block's inputs in lanes.
struct Inputs<L> {
    root: V3<L>,
    middle: V3<L>,
    end: V3<L>,
    target: V3<L>,
    pole: V3<L>,
    parent_frame: [V3<L>; 3],
    root_frame: [V3<L>; 3],
    root_local: Q<L>,
    middle_local: Q<L>,
    weight: L,
}

/// Four chains' inputs in lanes, read from their matrices (the padding lanes of a short block repeat the
/// first chain).
#[inline(always)]
fn load_quarter(chains: &[TwoBoneBatchChain<'_>]) -> Inputs<F4> {
    let chain = |lane: usize| chains.get(lane).unwrap_or(&chains[0]);
    // Four F4s (one per chain) transposed: lanes x, y, z of each.
    let transposed = |column: &dyn Fn(&TwoBoneBatchChain<'_>) -> F4| {
        let [x, y, z, _] = F4::transpose4([column(chain(0)), column(chain(1)), column(chain(2)), column(chain(3))]);
        [x, y, z]
    };
    let joint = |k: usize| move |c: &TwoBoneBatchChain<'_>| c.model[c.chain[k]].load_cols()[3];
    let point = |p: Vec3| F4::from_array([p.x, p.y, p.z, 0.0]);
    let frame = |column: usize, of_root: bool| {
        move |c: &TwoBoneBatchChain<'_>| {
            let m = if of_root { Some(&c.model[c.chain[0]]) } else { parent_of(c) };
            m.map_or(F4::from_array(core::array::from_fn(|r| (r == column) as u8 as f32)), |m| m.load_cols()[column])
        }
    };
    Inputs {
        root: transposed(&joint(0)),
        middle: transposed(&joint(1)),
        end: transposed(&joint(2)),
        target: transposed(&|c| point(c.target)),
        pole: transposed(&|c| point(c.pole.unwrap_or(c.model[c.chain[1]].translation()))),
        parent_frame: [0, 1, 2].map(|k| transposed(&frame(k, false))),
        root_frame: [0, 1, 2].map(|k| transposed(&frame(k, true))),
        root_local: rotation_lanes(chain, 0),
        middle_local: rotation_lanes(chain, 1),
        weight: F4::from_array(core::array::from_fn(|l| chain(l).weight)),
    }
}

/// The local rotations of joint `k` of four chains, in lanes.
#[inline(always)]
fn rotation_lanes<'c, 'a: 'c>(chain: impl Fn(usize) -> &'c TwoBoneBatchChain<'a>, k: usize) -> Q<F4> {
    let rotation = |lane: usize| {
        let c = chain(lane);
        let j = c.chain[k];
        let q = c.local[j / 4].rotation.get(j % 4);
        F4::from_array([q.x, q.y, q.z, q.w])
    };
    F4::transpose4([rotation(0), rotation(1), rotation(2), rotation(3)])
}

/// The chain root's parent's model matrix; `None` for a root joint.
#[inline(always)]
fn parent_of<'m>(c: &TwoBoneBatchChain<'m>) -> Option<&'m Mat4> {
    let parent = c.skeleton.parents()[c.chain[0]];
    (parent >= 0).then(|| &c.model[parent as usize])
}

impl TwoBoneIkBatchJob<'_> {
    /// O(1) per chain.
    ///
    /// Errors: `BufferLength` (`IkRotations`) when `rotations` is shorter than `chains`, (`ModelMatrices`,
    /// `SoaPose`) for a chain's model matrices or local pose shorter than its skeleton; `InvalidIkChain` (a joint out of range, not the
    /// parent of the next, a bone of zero or non-finite length); `InvalidIkTarget` (a target or pole not
    /// finite or overflowing, a weight outside [0, 1]); `NonFinite` (`ModelMatrices`) for a frame the turns
    /// are taken into.
    pub fn validate(&self) -> Result<(), Error> {
        if self.rotations.len() < self.chains.len() {
            let (expected, actual) = (self.chains.len(), self.rotations.len());
            return Err(Error::BufferLength { buffer: Buffer::IkRotations, expected, actual });
        }
        for c in self.chains {
            super::TwoBoneIkJob::validate_chain(c.skeleton, c.chain, c.model, c.local)?;
            let root = c.chain[0];
            let at = |j: usize| c.model[j].translation();
            let squared = |v: Vec3| v.dot(v);
            let near = |p: Vec3| squared(p - at(root)).is_finite();
            if !(near(c.target) && c.pole.is_none_or(near) && (0.0..=1.0).contains(&c.weight)) {
                return Err(Error::InvalidIkTarget);
            }
            // The frames' linear columns, the only parts of them the turns are taken into.
            let linear = |m: &Mat4| {
                let [x, y, z, _] = m.load_cols();
                (x.non_finite_mask() | y.non_finite_mask() | z.non_finite_mask()).any_set()
            };
            if parent_of(c).is_some_and(linear) || linear(&c.model[root]) {
                return Err(Error::NonFinite { buffer: Buffer::ModelMatrices, index: root });
            }
        }
        Ok(())
    }

    /// Solves. Errors: those of [`TwoBoneIkBatchJob::validate`]; nothing is written on an `Err`.
    pub fn run(&mut self) -> Result<(), Error> {
        self.validate()?;
        let width = if F8_IS_ONE_REGISTER { 8 } else { 4 };
        for (chains, out) in self.chains.chunks(width).zip(self.rotations.chunks_mut(width)) {
            let solved: [[f32; 8]; 8] = if F8_IS_ONE_REGISTER {
                let low = load_quarter(chains);
                let high = load_quarter(chains.get(4..).filter(|c| !c.is_empty()).unwrap_or(&chains[..1]));
                let pair = |a: V3<F4>, b: V3<F4>| [0, 1, 2].map(|k| F8::from_halves(a[k], b[k]));
                let inputs = Inputs {
                    root: pair(low.root, high.root),
                    middle: pair(low.middle, high.middle),
                    end: pair(low.end, high.end),
                    target: pair(low.target, high.target),
                    pole: pair(low.pole, high.pole),
                    parent_frame: [0, 1, 2].map(|k| pair(low.parent_frame[k], high.parent_frame[k])),
                    root_frame: [0, 1, 2].map(|k| pair(low.root_frame[k], high.root_frame[k])),
                    root_local: [0, 1, 2, 3].map(|k| F8::from_halves(low.root_local[k], high.root_local[k])),
                    middle_local: [0, 1, 2, 3].map(|k| F8::from_halves(low.middle_local[k], high.middle_local[k])),
                    weight: F8::from_halves(low.weight, high.weight),
                };
                solve(inputs).map(|v| {
                    let (lo, hi) = v.halves();
                    let (lo, hi) = (lo.to_array(), hi.to_array());
                    core::array::from_fn(|l| if l < 4 { lo[l] } else { hi[l - 4] })
                })
            } else {
                solve(load_quarter(chains)).map(|v| {
                    let a = v.to_array();
                    core::array::from_fn(|l| if l < 4 { a[l] } else { 0.0 })
                })
            };
            for (lane, rotations) in out.iter_mut().enumerate().take(chains.len()) {
                let q = |first: usize| {
                    Quat::new(
                        solved[first][lane],
                        solved[first + 1][lane],
                        solved[first + 2][lane],
                        solved[first + 3][lane],
                    )
                };
                *rotations = [q(0), q(4)];
            }
        }
        Ok(())
    }

    /// Writes a solve's `rotations` for chain `chain` into `local` (the pose the chain was read from).
    ///
    /// Errors: `InvalidIkChain` for a joint outside the pose.
    #[inline]
    pub fn store(rotations: &TwoBoneRotations, chain: [usize; 3], local: &mut [SoaTransform]) -> Result<(), Error> {
        if chain[..2].iter().any(|j| j / 4 >= local.len()) {
            return Err(Error::InvalidIkChain);
        }
        for (joint, q) in chain[..2].iter().zip(rotations) {
            local[joint / 4].rotation.set(joint % 4, *q);
        }
        Ok(())
    }
}

type V3<L> = [L; 3];
/// `x, y, z, w`.
type Q<L> = [L; 4];

#[inline(always)]
fn sub<L: Lanes>(a: V3<L>, b: V3<L>) -> V3<L> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
fn add<L: Lanes>(a: V3<L>, b: V3<L>) -> V3<L> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline(always)]
fn scale<L: Lanes>(a: V3<L>, k: L) -> V3<L> {
    [a[0] * k, a[1] * k, a[2] * k]
}

#[inline(always)]
fn dot<L: Lanes>(a: V3<L>, b: V3<L>) -> L {
    a[0].mul_add(b[0], a[1].mul_add(b[1], a[2] * b[2]))
}

#[inline(always)]
fn cross<L: Lanes>(a: V3<L>, b: V3<L>) -> V3<L> {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

#[inline(always)]
fn select3<L: Lanes>(mask: L, a: V3<L>, b: V3<L>) -> V3<L> {
    [L::select(mask, a[0], b[0]), L::select(mask, a[1], b[1]), L::select(mask, a[2], b[2])]
}

#[inline(always)]
fn normalize_q<L: Lanes>(q: Q<L>) -> Q<L> {
    let inv = L::splat(1.0) / q[0].mul_add(q[0], q[1].mul_add(q[1], q[2].mul_add(q[2], q[3] * q[3]))).sqrt();
    q.map(|c| c * inv)
}

#[inline(always)]
fn mul_q<L: Lanes>(l: Q<L>, r: Q<L>) -> Q<L> {
    let [lx, ly, lz, lw] = l;
    let [rx, ry, rz, rw] = r;
    [
        lw * rx + lx * rw + ly * rz - lz * ry,
        lw * ry - lx * rz + ly * rw + lz * rx,
        lw * rz + lx * ry - ly * rx + lz * rw,
        lw * rw - lx * rx - ly * ry - lz * rz,
    ]
}

#[inline(always)]
fn rotate<L: Lanes>(q: Q<L>, v: V3<L>) -> V3<L> {
    let axis = [q[0], q[1], q[2]];
    let t = scale(cross(axis, v), L::splat(2.0));
    add(add(v, scale(t, q[3])), cross(axis, t))
}

/// A unit vector perpendicular to unit `v` (the scalar job's choice of axis).
#[inline(always)]
fn perpendicular<L: Lanes>(v: V3<L>) -> V3<L> {
    let use_x = v[0].abs().cmp_lt(L::splat(0.6));
    let (zero, one) = (L::splat(0.0), L::splat(1.0));
    let other = [L::select(use_x, one, zero), L::select(use_x, zero, one), zero];
    let p = cross(v, other);
    scale(p, one / dot(p, p).sqrt())
}

/// The shortest arc from unit `from` to unit `to` (the scalar `arc`), weighted by nlerp from the identity.
#[inline(always)]
fn weighted_arc<L: Lanes>(from: V3<L>, to: V3<L>, weight: L) -> Q<L> {
    let w = L::splat(1.0) + dot(from, to);
    let axis = cross(from, to);
    let opposite = w.cmp_lt(L::splat(1e-6));
    // Opposite directions are rare: the perpendicular only when a lane needs it.
    let q = normalize_q(if opposite.any_set() {
        let flip = perpendicular(from);
        [
            L::select(opposite, flip[0], axis[0]),
            L::select(opposite, flip[1], axis[1]),
            L::select(opposite, flip[2], axis[2]),
            L::select(opposite, L::splat(0.0), w),
        ]
    } else {
        [axis[0], axis[1], axis[2], w]
    });
    if !weight.cmp_lt(L::splat(1.0)).any_set() {
        return q;
    }
    // nlerp(identity, q, weight): w ≥ 0, so no sign flip.
    let keep = L::splat(1.0) - weight;
    normalize_q([q[0] * weight, q[1] * weight, q[2] * weight, q[3].mul_add(weight, keep)])
}

/// A model-space rotation in the frame with linear columns `frame` (the scalar `into_frame`).
#[inline(always)]
fn into_frame<L: Lanes>(frame: [V3<L>; 3], q: Q<L>) -> Q<L> {
    let v = [q[0], q[1], q[2]];
    let length = dot(v, v).sqrt();
    let local = [dot(frame[0], v), dot(frame[1], v), dot(frame[2], v)];
    let local_length = dot(local, local).sqrt();
    let zero = length.cmp_ne(L::splat(0.0));
    // A zero vector part (no turn) stays; elsewhere the axis keeps the turn's length.
    let k = L::select(zero, length / local_length, L::splat(0.0));
    [local[0] * k, local[1] * k, local[2] * k, q[3]]
}

/// One block of lanes: the two new local rotations' components (root's, then middle's).
#[inline(always)]
fn solve<L: Lanes>(inputs: Inputs<L>) -> [L; 8] {
    let Inputs { root: a, middle: b, end: c, target, pole, parent_frame, root_frame, root_local, middle_local, weight } =
        inputs;
    let one = L::splat(1.0);

    let (ab, bc) = (sub(b, a), sub(c, b));
    let (l1, l2) = (dot(ab, ab).sqrt(), dot(bc, bc).sqrt());
    let reach = l1 + l2;
    let to_target = sub(target, a);
    let distance = dot(to_target, to_target).sqrt();
    // A target on the root gives no direction: the current one.
    let on_root = distance.cmp_gt(L::splat(1e-6) * reach);
    let toward = select3(on_root, to_target, sub(c, a));
    let u = scale(toward, one / dot(toward, toward).sqrt());
    let placed = distance.min(reach).max((l1 - l2).abs());
    // The bend plane's normal to u: toward the pole, else the current knee, else any.
    let off_line = |p: V3<L>| {
        let w = sub(p, a);
        let v = sub(w, scale(u, dot(w, u)));
        let length = dot(v, v).sqrt();
        (scale(v, one / length), length.cmp_gt(L::splat(1e-6) * reach))
    };
    // Each fallback only when some lane lacks the one before.
    let lacking = |ok: L| one.zero_where(ok).cmp_ne(L::splat(0.0)).any_set();
    let (from_pole, pole_ok) = off_line(pole);
    let normal = if lacking(pole_ok) {
        let (from_knee, knee_ok) = off_line(b);
        let (from_end, end_ok) = off_line(c);
        let last = if lacking(end_ok) { select3(end_ok, from_end, perpendicular(u)) } else { from_end };
        select3(pole_ok, from_pole, select3(knee_ok, from_knee, last))
    } else {
        from_pole
    };
    let folded = placed.cmp_gt(L::splat(0.0));
    let cos = L::select(folded, (l1 * l1 + placed * placed - l2 * l2) / (L::splat(2.0) * l1 * placed), one)
        .max(-one)
        .min(one);
    let sin = (one - cos * cos).max(L::splat(0.0)).sqrt();
    let knee = add(a, add(scale(u, l1 * cos), scale(normal, l1 * sin)));
    let ankle = add(a, scale(u, placed));
    let inv_l1 = one / l1;
    let turn1 = weighted_arc(scale(ab, inv_l1), scale(sub(knee, a), inv_l1), weight);
    let knee_now = add(a, rotate(turn1, ab));
    let want = sub(ankle, knee_now);
    let reach_now = dot(want, want).sqrt();
    let shin = rotate(turn1, bc);
    let turn2 = weighted_arc(scale(shin, one / l2), scale(want, one / reach_now), weight);
    // A partly weighted knee on the solved ankle: nothing to aim at, the middle bone stays.
    let moving = reach_now.cmp_gt(L::splat(0.0));
    let zero = L::splat(0.0);
    let turn2 = [
        L::select(moving, turn2[0], zero),
        L::select(moving, turn2[1], zero),
        L::select(moving, turn2[2], zero),
        L::select(moving, turn2[3], one),
    ];
    let local1 = into_frame(parent_frame, turn1);
    let conjugate = [-turn1[0], -turn1[1], -turn1[2], turn1[3]];
    let local2 = into_frame(root_frame, mul_q(mul_q(conjugate, turn2), turn1));
    let r = normalize_q(mul_q(local1, root_local));
    let m = normalize_q(mul_q(local2, middle_local));
    [r[0], r[1], r[2], r[3], m[0], m[1], m[2], m[3]]
}
