//! Local-to-model: SoA local transforms → one AoS model-space matrix per joint.
//!
//! Layout: input SoA (`num_soa_joints` lane groups), output AoS `Mat4` (column-major), one per joint, skeleton
//! order. Space: local (relative to the parent) in, model (relative to the skeleton root's parent, i.e. the
//! root matrix) out: `model[j] = model[parent[j]] * local[j]`, `model[root] = root_matrix * local[root]`.
//!
//! How: each lane group's four local matrices are built in SoA (`local_columns`; x86-64-v3 converts two lane
//! groups in one eight-wide pass), then each joint's columns are the parent's columns times broadcast local
//! entries: 12 multiply-adds in `portable.rs`; on x86-64-v3 (`avx2.rs`) 256-bit ones that carry two joints of
//! independent groups side by side, in the order of the skeleton's [`GroupWalk`] when the job has one. The parent
//! is taken from registers when it is the joint just computed — the common case along chains (spine, limbs,
//! fingers) — so a chain never waits on a store→load round trip through the output.
//!
//! Precision: per joint, |sinew − f64 reference| ≤ 5e-7 × depth × the joint's largest matrix entry (asserted by
//! the reference tests; measured worst 2.3e-7 on SSE2, x86-64-v3 and scalar). Rotations need not be unit: each
//! is normalized exactly (`2 / |q|²`).
//!
//! Errors: wrong lengths, non-finite values and zero-length rotations in the input are `Err`s. Non-finite
//! and zero-rotation checks are fused into the loop (a lane mask OR-ed per group); on such an `Err` the output
//! may be partly written, the input is untouched.

use crate::data::skeleton::{MAX_JOINTS, Skeleton};
use crate::error::{Buffer, Error};
use crate::math::{F4, Lanes, Mat4, SoaTransform, num_soa_joints, quat_length_squared, rotation_scale_columns};

pub use crate::limits::MIN_ROTATION_LENGTH_SQ;

/// Computes model-space matrices for a whole skeleton or one subtree (ozz's job pattern: borrowed buffers in
/// public fields, `validate`, then `run` or `run_subtree`).
#[derive(Debug)]
pub struct LocalToModelJob<'a> {
    /// The skeleton the pose is of.
    pub skeleton: &'a Skeleton<'a>,
    /// The skeleton's [`GroupWalk`], which x86-64-v3 follows to walk two chains side by side (8% faster on a
    /// 256-joint humanoid); `None` walks the groups in memory order, with the same results.
    pub walk: Option<&'a GroupWalk>,
    /// Local transforms, `skeleton.num_soa_joints()` lane groups.
    pub local: &'a [SoaTransform],
    /// Model-space transform applied above every root joint; `None` means identity.
    pub root: Option<&'a Mat4>,
    /// Output, `skeleton.num_joints()` matrices.
    pub model: &'a mut [Mat4],
}

impl LocalToModelJob<'_> {
    /// Bytes an arena needs for the output of a `num_joints` skeleton.
    pub const fn required_bytes(num_joints: usize) -> usize {
        crate::arena::Arena::required_bytes::<Mat4>(num_joints)
    }

    /// O(1) checks: buffer lengths, a finite root matrix, the walk's skeleton.
    ///
    /// Errors: `BufferLength` (`LocalPose` or `ModelMatrices`), `NonFinite` (`RootMatrix`, index 0),
    /// `ForeignWalk` for a walk built for another skeleton.
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(walk) = self.walk
            && !walk.is_for(self.skeleton)
        {
            return Err(Error::ForeignWalk);
        }
        crate::error::check_len(Buffer::LocalPose, self.skeleton.num_soa_joints(), self.local.len())?;
        crate::error::check_len(Buffer::ModelMatrices, self.skeleton.num_joints(), self.model.len())?;
        if let Some(root) = self.root
            && !root.is_finite()
        {
            return Err(Error::NonFinite { buffer: Buffer::RootMatrix, index: 0 });
        }
        Ok(())
    }

    /// Model-space matrices of every joint.
    ///
    /// Errors: those of `validate`; `NonFinite` (`LocalPose`, joint) or `ZeroQuaternion` (`LocalPose`, joint)
    /// for the first offending joint.
    pub fn run(&mut self) -> Result<(), Error> {
        self.validate()?;
        let n = self.skeleton.num_joints();
        let lane_mask = |group: usize| lanes_below(n.saturating_sub(group * 4));
        if let (true, Some(walk)) = (Step::WALKS_PAIRS, self.walk) {
            return self.run_group_walk(walk.steps(), lane_mask);
        }
        self.run_masked(0, n / 4, lane_mask)
    }

    /// Model-space matrices of `joint` and all its descendants only; every other entry of `model` is read as
    /// already up to date (the parent of `joint` in particular) and left unchanged.
    ///
    /// Errors: those of `run`, and `JointOutOfRange` when `joint >= num_joints`.
    pub fn run_subtree(&mut self, joint: usize) -> Result<(), Error> {
        self.validate()?;
        let parents = self.skeleton.parents();
        let num_joints = parents.len();
        if joint >= num_joints {
            return Err(Error::JointOutOfRange { joint, num_joints });
        }
        // Parents come before children, so one forward pass marks the whole subtree.
        let mut in_subtree = [0u8; MAX_JOINTS.div_ceil(4)];
        in_subtree[joint / 4] |= 1 << (joint % 4);
        for i in joint + 1..num_joints {
            let p = parents[i];
            if p >= 0 && in_subtree[p as usize / 4] & (1 << (p % 4)) != 0 {
                in_subtree[i / 4] |= 1 << (i % 4);
            }
        }
        self.run_masked(joint / 4, 0, |group| in_subtree[group] as u32)
    }

    /// The shared kernel: lane groups from `first_group` on, lanes selected by `lane_mask(group)` (bit `l` =
    /// lane `l`); every lane of the groups below `full_end` is selected.
    #[inline(always)]
    fn run_masked(
        &mut self,
        first_group: usize,
        full_end: usize,
        lane_mask: impl Fn(usize) -> u32,
    ) -> Result<(), Error> {
        let mut chain = Chain::new(self.skeleton.parents(), &mut *self.model, self.root);
        let mut invalid = F4::ZERO;
        let num_groups = self.local.len();
        let mut group = first_group;
        // Pairs known full need no mask tests (evaluating the masks cost two instructions per joint).
        while group + 2 <= full_end.min(num_groups) {
            invalid = invalid | Step::walk_two(&mut chain, group * 4, &self.local[group], &self.local[group + 1]);
            group += 2;
        }
        while group < num_groups {
            if group + 1 < num_groups && lane_mask(group) == 0b1111 && lane_mask(group + 1) == 0b1111 {
                // Two groups whose masks are full (only `run_subtree` gets here: `run` took its pairs above).
                let (first, second) = (&self.local[group], &self.local[group + 1]);
                invalid = invalid | Step::walk_two(&mut chain, group * 4, first, second);
                group += 2;
                continue;
            }
            invalid = invalid | chain.lanes(group, lane_mask(group), &self.local[group]);
            group += 1;
        }
        if invalid.any_set() {
            return Err(first_invalid_joint(self.local, first_group, &lane_mask));
        }
        Ok(())
    }

    /// The whole skeleton in `walk`'s order: pairs side by side (`JointStep::walk_pair`),
    /// consecutive single full groups eight wide (`walk_two`), the rest one group at a time, its lanes
    /// selected by `lane_mask(group)` as in `run_masked`.
    #[inline(always)]
    fn run_group_walk(&mut self, walk: &[[u8; 2]], lane_mask: impl Fn(usize) -> u32) -> Result<(), Error> {
        let num_full = self.skeleton.num_joints() / 4;
        let local = self.local;
        let mut chain = Chain::new(self.skeleton.parents(), &mut *self.model, self.root);
        let mut invalid = F4::ZERO;
        let mut step = 0;
        while step < walk.len() {
            let [a, b] = walk[step].map(usize::from);
            step += 1;
            let bad = if a != b {
                Step::walk_pair(&mut chain, [a, b], [&local[a], &local[b]])
            } else if a + 1 < num_full && walk.get(step) == Some(&[a as u8 + 1; 2]) {
                step += 1;
                Step::walk_two(&mut chain, a * 4, &local[a], &local[a + 1])
            } else {
                chain.lanes(a, lane_mask(a), &local[a])
            };
            invalid = invalid | bad;
        }
        if invalid.any_set() {
            return Err(first_invalid_joint(self.local, 0, &lane_mask));
        }
        Ok(())
    }
}

const MAX_GROUPS: usize = MAX_JOINTS / 4;

/// The order x86-64-v3 [`LocalToModelJob::run`] walks a skeleton's lane groups in, so that two parent-to-child
/// chains advance in one register (`avx2.rs`). Steps: `[a, b]` with `a != b` names two full groups that can be
/// computed side by side (no joint of either has its parent in the other, and every other parent lies in a
/// group walked earlier); `[g, g]` names one group computed on its own. Every group appears exactly once.
///
/// Built once per skeleton and shared by every character of it (about 520 bytes); a job without one walks
/// the groups in memory order, with bit-identical results. Other backends ignore it.
///
/// How: list scheduling by critical path. Each step takes, among the groups whose parents are all walked, the
/// two with the longest chain of dependent groups below them, so long chains (spine, limbs, tails) advance side
/// by side instead of being left for last one group at a time (256-joint humanoid: 31 pairs and 2 single
/// groups, where taking the lowest ready groups gives 25 pairs and 14).
#[derive(Clone, Copy)]
pub struct GroupWalk {
    steps: [[u8; 2]; MAX_GROUPS],
    len: usize,
    /// The skeleton it was built for: its parent array's address and length.
    parents: (usize, usize),
}

impl core::fmt::Debug for GroupWalk {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.steps()).finish()
    }
}

impl GroupWalk {
    /// The walk of `skeleton`'s lane groups; O(groups²), once per skeleton.
    pub fn new(skeleton: &Skeleton) -> GroupWalk {
        let parents = skeleton.parents();
        let num_groups = num_soa_joints(parents.len());
        let num_full = parents.len() / 4;
        // The groups holding a parent of one of `group`'s joints, other than `group` itself.
        let parent_groups = |group: usize| {
            parents[group * 4..(group * 4 + 4).min(parents.len())]
                .iter()
                .filter_map(move |&parent| (parent >= 0 && parent as usize / 4 != group).then_some(parent as usize / 4))
        };
        // Groups in a chain of dependent groups from each group down, itself included. Children lie in later
        // groups, so one backward pass sees every group's final height before it passes it up.
        let mut height = [1u16; MAX_GROUPS];
        for group in (0..num_groups).rev() {
            for parent_group in parent_groups(group) {
                height[parent_group] = height[parent_group].max(height[group] + 1);
            }
        }
        let mut walked = [false; MAX_GROUPS];
        let mut walk =
            GroupWalk { steps: [[0; 2]; MAX_GROUPS], len: 0, parents: (parents.as_ptr() as usize, parents.len()) };
        // Full groups only: a partial group is never paired, and as the last group it has no children, so it
        // goes last.
        while walk.len < MAX_GROUPS {
            // The best two ready groups, highest first, lower index on ties.
            let mut best: [Option<usize>; 2] = [None, None];
            for group in (0..num_full).filter(|&g| !walked[g]) {
                if !parent_groups(group).all(|parent_group| walked[parent_group]) {
                    continue;
                }
                let beats = |other: Option<usize>| other.is_none_or(|other| height[group] > height[other]);
                if beats(best[0]) {
                    best = [Some(group), best[0]];
                } else if beats(best[1]) {
                    best[1] = Some(group);
                }
            }
            let Some(first) = best[0] else { break };
            let second = best[1].unwrap_or(first);
            walked[first] = true;
            walked[second] = true;
            walk.steps[walk.len] = [first as u8, second as u8];
            walk.len += 1;
        }
        if num_full < num_groups && walk.len < MAX_GROUPS {
            walk.steps[walk.len] = [num_full as u8; 2];
            walk.len += 1;
        }
        walk
    }

    /// The steps, in walk order.
    #[inline]
    pub fn steps(&self) -> &[[u8; 2]] {
        &self.steps[..self.len]
    }

    /// Whether the walk was built for `skeleton` (the same parent array, not merely an equal one).
    #[inline]
    pub fn is_for(&self, skeleton: &Skeleton) -> bool {
        self.parents == (skeleton.parents().as_ptr() as usize, skeleton.num_joints())
    }
}

/// The walk's state: where parents come from, and the last joint computed, kept in registers.
struct Chain<'m, S> {
    parents: &'m [i16],
    model: &'m mut [Mat4],
    // Kept in memory: roots are rare, and four registers held for them would push the previous joint's
    // columns out to the stack on every joint (measured: five reloads per joint on x86-64-v3).
    root: &'m Mat4,
    prev_joint: usize,
    prev: S,
}

impl<'m, S: JointStep> Chain<'m, S> {
    /// The walk's starting state. `prev` holds the root matrix (identity for `None`) under the index
    /// `usize::MAX`, which is what a root's parent −1 becomes as `usize`: the first root joint takes it from
    /// registers, and later roots load it (`Chain::joint`).
    #[inline(always)]
    fn new(parents: &'m [i16], model: &'m mut [Mat4], root: Option<&'m Mat4>) -> Self {
        let root = root.unwrap_or(&Mat4::IDENTITY);
        Chain { parents, model, root, prev_joint: usize::MAX, prev: S::load(root) }
    }

    /// Prepares one full lane group and computes its four joints from `base` on; returns its invalid lanes.
    #[inline(always)]
    fn full_group(&mut self, base: usize, local: &SoaTransform) -> F4 {
        let (prepared, bad) = S::prepare(local);
        self.four_joints(base, &prepared);
        bad
    }

    /// Computes the four joints from `base` on.
    #[inline(always)]
    fn four_joints(&mut self, base: usize, local: &S::Local) {
        self.check_group(base);
        self.joint::<0>(base, local);
        self.joint::<1>(base, local);
        self.joint::<2>(base, local);
        self.joint::<3>(base, local);
    }

    /// One range check for the four joints from `base`, which lets the compiler drop most per-joint ones (all
    /// in the first group of a pair; three of four stay in the second).
    #[inline(always)]
    fn check_group(&self, base: usize) {
        let _ = (&self.parents[base..base + 4], &self.model[base..base + 4]);
    }

    /// Computes the lanes of `group` set in `lanes` (bit `l` = lane `l`, all below `num_joints`); returns the
    /// mask of the selected lanes the kernel cannot use.
    #[inline(always)]
    fn lanes(&mut self, group: usize, lanes: u32, local: &SoaTransform) -> F4 {
        if lanes == 0 {
            return F4::ZERO;
        }
        let (prepared, bad) = S::prepare(local);
        let base = group * 4;
        if lanes & 1 != 0 {
            self.joint::<0>(base, &prepared);
        }
        if lanes & 2 != 0 {
            self.joint::<1>(base, &prepared);
        }
        if lanes & 4 != 0 {
            self.joint::<2>(base, &prepared);
        }
        if lanes & 8 != 0 {
            self.joint::<3>(base, &prepared);
        }
        bad & F4::lane_mask(lanes)
    }

    /// The stored matrix of `parent`, or the root matrix for −1.
    #[inline(always)]
    fn stored(&self, parent: i16) -> &Mat4 {
        if parent < 0 {
            self.root
        } else {
            // SAFETY: `Skeleton::new` proved `0 <= parent < joint` for some joint, and `validate` proved
            // `model.len() == num_joints`.
            unsafe { self.model.get_unchecked(parent as usize) }
        }
    }

    /// Computes `model[base + LANE]` from lane `LANE` of the lane group's local matrices; `base` is the group's
    /// first joint, and `base + LANE < num_joints`.
    #[inline(always)]
    fn joint<const LANE: usize>(&mut self, base: usize, local: &S::Local) {
        let joint = base + LANE;
        let parent = self.parents[joint];
        let parent_matrix = if parent as usize == self.prev_joint { self.prev } else { S::load(self.stored(parent)) };
        // Addressed from the group's first joint, so the four joints of a group share one address computation
        // and store at fixed offsets (indexing by `joint` cost four instructions per joint on x86-64-v3).
        // SAFETY: callers pass `base + LANE < num_joints` (`four_joints` range-checks its group; the masked path
        // passes only lanes below `num_joints`), and `validate` proved `model.len() == num_joints`.
        let out = unsafe { &mut *self.model.as_mut_ptr().add(base).add(LANE) };
        self.prev = parent_matrix.mul_store::<LANE>(local, out);
        self.prev_joint = joint;
    }
}

/// One joint's product `parent * local[LANE]`, in whatever register form a target does it fastest.
trait JointStep: Copy {
    /// A lane group's local matrices, prepared once for its four joints.
    type Local;
    /// One lane group's local matrices, and a mask of its lanes the kernel cannot use (`invalid_lanes`).
    fn prepare(local: &SoaTransform) -> (Self::Local, F4);
    /// Walks two consecutive full lane groups, joints `base..base + 8`; returns the mask of both. A wide
    /// target overrides it to convert both groups in one pass.
    #[inline(always)]
    fn walk_two(chain: &mut Chain<Self>, base: usize, first: &SoaTransform, second: &SoaTransform) -> F4 {
        chain.full_group(base, first) | chain.full_group(base + 4, second)
    }
    /// Whether `run` follows a `GroupWalk` (`walk_pair` computes two groups side by side) rather
    /// than memory order.
    const WALKS_PAIRS: bool = false;
    /// Walks full lane groups `a` and `b`, neither holding a parent of the other's joints; returns the mask of
    /// both. Without a side-by-side step, one after the other.
    #[inline(always)]
    fn walk_pair(chain: &mut Chain<Self>, [a, b]: [usize; 2], [first, second]: [&SoaTransform; 2]) -> F4 {
        chain.full_group(a * 4, first) | chain.full_group(b * 4, second)
    }
    fn load(m: &Mat4) -> Self;
    /// Writes `self * local[LANE]` to `out` and returns it for the joint's children.
    fn mul_store<const LANE: usize>(&self, local: &Self::Local, out: &mut Mat4) -> Self;
}

/// Lane-wise local matrices `T * R * S` as columns `[x, y, z]` (rotation-scale, then translation), and the
/// lanes holding a non-finite value or a zero-length rotation. `c` is a transform's ten components in
/// `SoaTransform::components` order; `L` is one lane group (`F4`) or two (`F8`).
#[inline(always)]
fn local_columns<L: Lanes>(c: [L; 10]) -> ([[L; 3]; 4], L) {
    let [tx, ty, tz, qx, qy, qz, qw, sx, sy, sz] = c;
    let len_sq = quat_length_squared([qx, qy, qz, qw]);
    // A sum is non-finite when any term is (or when it overflows, which only values near f32::MAX can do).
    let sum = (tx + ty) + (tz + sx) + (sy + sz) + len_sq;
    let invalid = sum.non_finite_mask() | len_sq.cmp_lt(L::splat(MIN_ROTATION_LENGTH_SQ));
    let [c0, c1, c2] = rotation_scale_columns([qx, qy, qz, qw], len_sq, [sx, sy, sz]);
    ([c0, c1, c2, [tx, ty, tz]], invalid)
}

kernels!();
use kernels::Step;

/// Bits for the lanes `0..count` (saturating at four lanes).
#[inline(always)]
fn lanes_below(count: usize) -> u32 {
    (1u32 << count.min(4)) - 1
}

/// The slow path after the fused check fired: the first joint at fault, with its reason.
#[cold]
fn first_invalid_joint(local: &[SoaTransform], first_group: usize, lane_mask: &impl Fn(usize) -> u32) -> Error {
    for (group, t) in local.iter().enumerate().skip(first_group) {
        for lane in (0..4).filter(|lane| lane_mask(group) & (1 << lane) != 0) {
            if let Err(e) = crate::data::skeleton::check_transform(&t.get(lane), Buffer::LocalPose, group * 4 + lane) {
                return e;
            }
        }
    }
    // Only reachable when the lane sum overflowed on finite values near f32::MAX; name the first group.
    Error::NonFinite { buffer: Buffer::LocalPose, index: first_group * 4 }
}
