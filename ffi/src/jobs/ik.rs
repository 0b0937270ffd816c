//! IK over caller buffers: two-bone (one chain, or many chains of many characters at once), aim, aim down a
//! chain, and CCD with joint limits. Each solver reads a pose's model matrices and rewrites joint rotations of
//! its local pose; the caller reruns local-to-model afterwards (the character's edits do it themselves).
//! The requests are the ones `sinew_character_*_ik` take.

use super::{bytes, disjoint, input, job_status, output, read_only, read_request, sinew_mat4, sinew_soa_transform};
use crate::asset::{sinew_asset, stored};
use crate::status::{SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NULL_POINTER, SINEW_OK, put, sinew_status};
use core::mem::{align_of, size_of};
use sinew::error::Error;
use sinew::ik::{
    AimChainJob, AimIkJob, AimSolve, CcdIkJob, JointLimit, MAX_CCD_JOINTS, TwoBoneBatchChain, TwoBoneIkBatchJob,
    TwoBoneIkJob, TwoBoneRotations,
};
use sinew::math::{Mat4, Quat, SoaTransform, Vec3};
use sinew::skeleton::Skeleton;

/// The longest chain `sinew_aim_chain` and `sinew_ccd` take.
pub const SINEW_MAX_IK_CHAIN: u32 = 32;
const _: () = assert!(SINEW_MAX_IK_CHAIN as usize == MAX_CCD_JOINTS);

fn vec3(a: [f32; 3]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

/// A two-bone IK request (a leg or an arm), for `sinew_two_bone_ik` and `sinew_character_two_bone_ik`. Model
/// space.
///
/// Layout: 68 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_two_bone {
    /// The chain's root, middle and end joints, each the parent of the next.
    pub chain: [u32; 3],
    /// Where the end joint should be.
    pub target: [f32; 3],
    /// A point the middle joint bends toward, when `has_pole` is nonzero; else the bend plane is kept.
    pub pole: [f32; 3],
    /// Nonzero: `pole` is used.
    pub has_pole: u32,
    /// 0 leaves the animated pose, 1 applies the solution.
    pub weight: f32,
    /// Soft reach in (0, 1]; 1 is the hard clamp.
    pub soften: f32,
    /// A model-space turn (x, y, z, w) of the end joint's animated orientation, when `has_end_turn` is nonzero
    /// (the identity keeps a planted foot as animated); else the end follows the middle bone.
    pub end_turn: [f32; 4],
    /// Nonzero: `end_turn` is used.
    pub has_end_turn: u32,
}

const _: () = assert!(size_of::<sinew_two_bone>() == 68 && align_of::<sinew_two_bone>() == 4);

impl sinew_two_bone {
    fn pole(&self) -> Option<Vec3> {
        (self.has_pole != 0).then(|| vec3(self.pole))
    }
}

/// Solves `r` on a pose: whether the end reached the target.
pub(crate) fn two_bone(
    r: &sinew_two_bone,
    skeleton: &Skeleton<'_>,
    model: &[Mat4],
    local: &mut [SoaTransform],
) -> Result<u32, Error> {
    let [x, y, z, w] = r.end_turn;
    let mut job = TwoBoneIkJob {
        skeleton,
        chain: r.chain.map(|j| j as usize),
        target: vec3(r.target),
        pole: r.pole(),
        weight: r.weight,
        soften: r.soften,
        end_turn: (r.has_end_turn != 0).then(|| Quat::new(x, y, z, w)),
        model,
        local,
    };
    job.run().map(|solve| u32::from(solve.reached))
}

/// An aim (a look-at: a head, an eye, a gun), for `sinew_aim_ik` and `sinew_character_aim_ik`. Model space
/// but for the joint's own axes.
///
/// Layout: 68 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_aim {
    /// The joint that aims.
    pub joint: u32,
    /// The joint's aim axis in its own frame (any length but zero).
    pub forward: [f32; 3],
    /// The joint's up axis in its own frame, when `has_up` is nonzero.
    pub up_axis: [f32; 3],
    /// The model-space up `up_axis` leans toward.
    pub model_up: [f32; 3],
    /// Nonzero: `up_axis` and `model_up` level the twist; else the shortest arc decides it.
    pub has_up: u32,
    /// Where to aim.
    pub target: [f32; 3],
    /// The largest turn, radians in (0, π]; 0 for no limit.
    pub max_angle: f32,
    /// The largest twist `up` may add, radians in (0, π]; 0 for no limit.
    pub max_twist: f32,
    /// How much of the correction to apply, in [0, 1].
    pub weight: f32,
}

const _: () = assert!(size_of::<sinew_aim>() == 68 && align_of::<sinew_aim>() == 4);

/// An aim's answer: the joint turned toward the target.
pub const SINEW_AIM_AIMED: u32 = 1;
/// An aim's answer: `max_angle` cut the turn short.
pub const SINEW_AIM_LIMITED: u32 = 2;

/// `SINEW_AIM_*` flags of an aim.
fn aim_flags(aim: AimSolve) -> u32 {
    let flag = |on: bool, bit: u32| if on { bit } else { 0 };
    flag(aim.aimed, SINEW_AIM_AIMED) | flag(aim.limited, SINEW_AIM_LIMITED)
}

/// A limit of 0 is none.
fn limit(radians: f32) -> Option<f32> {
    (radians != 0.0).then_some(radians)
}

/// Solves `r` on a pose: its `SINEW_AIM_*` flags.
pub(crate) fn aim(
    r: &sinew_aim,
    skeleton: &Skeleton<'_>,
    model: &[Mat4],
    local: &mut [SoaTransform],
) -> Result<u32, Error> {
    let mut job = AimIkJob {
        skeleton,
        joint: r.joint as usize,
        forward: vec3(r.forward),
        up: (r.has_up != 0).then(|| (vec3(r.up_axis), vec3(r.model_up))),
        target: vec3(r.target),
        max_angle: limit(r.max_angle),
        max_twist: limit(r.max_twist),
        weight: r.weight,
        model,
        local,
    };
    job.run().map(aim_flags)
}

/// An aim shared down a chain (spine, neck, head), for `sinew_aim_chain_ik` and
/// `sinew_character_aim_chain_ik`: the last joint's `forward` turns toward `target`, each joint, root first,
/// taking its weight's share of the turn still left. Model space but for `forward` (the last joint's frame).
///
/// Layout: 48 bytes, 8-byte aligned, on 64-bit targets.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_aim_chain {
    /// `num_joints` joints, root first, each an ancestor of the next; the last one aims.
    pub joints: *const u32,
    /// `num_joints` shares in [0, 1]; a last share of 1 finishes the aim exactly.
    pub weights: *const f32,
    /// 1 to `SINEW_MAX_IK_CHAIN`.
    pub num_joints: u32,
    /// The last joint's aim axis in its own frame (any length but zero).
    pub forward: [f32; 3],
    /// Where to aim.
    pub target: [f32; 3],
    /// The largest turn of the whole aim, radians in (0, π]; 0 for no limit.
    pub max_angle: f32,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<sinew_aim_chain>() == 48 && align_of::<sinew_aim_chain>() == 8);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(size_of::<sinew_aim_chain>() == 40 && align_of::<sinew_aim_chain>() == 4);

/// The `count` values at `values` copied (a request's arrays are copied before the pose is written, so they
/// may live anywhere), or `SINEW_ERROR_INVALID_ARGUMENT` for more than `SINEW_MAX_IK_CHAIN`.
///
/// # Safety
/// `values` is NULL or points to `count` readable values.
unsafe fn copied<C: Copy, R: Copy>(
    values: *const C,
    count: u32,
    fill: R,
    convert: impl Fn(C) -> Result<R, sinew_status>,
) -> Result<[R; MAX_CCD_JOINTS], sinew_status> {
    if count as usize > MAX_CCD_JOINTS {
        return Err(SINEW_ERROR_INVALID_ARGUMENT);
    }
    // SAFETY: the caller's contract.
    let values = unsafe { input::<C, C>(values, count as usize) }?;
    let mut out = [fill; MAX_CCD_JOINTS];
    for (o, v) in out.iter_mut().zip(values) {
        *o = convert(*v)?;
    }
    Ok(out)
}

/// Solves `r` on a pose: its `SINEW_AIM_*` flags.
///
/// # Safety
/// `r`'s arrays are readable as it describes.
pub(crate) unsafe fn aim_chain(
    r: &sinew_aim_chain,
    skeleton: &Skeleton<'_>,
    model: &[Mat4],
    local: &mut [SoaTransform],
) -> Result<u32, sinew_status> {
    let n = r.num_joints as usize;
    // SAFETY: the caller's contract.
    let joints = unsafe { copied(r.joints, r.num_joints, 0usize, |j: u32| Ok(j as usize)) }?;
    // SAFETY: the caller's contract.
    let weights = unsafe { copied(r.weights, r.num_joints, 0.0f32, Ok) }?;
    let mut job = AimChainJob {
        skeleton,
        joints: &joints[..n],
        weights: &weights[..n],
        forward: vec3(r.forward),
        target: vec3(r.target),
        max_angle: limit(r.max_angle),
        model,
        local,
    };
    job.run().map(aim_flags).map_err(job_status)
}

/// `sinew_joint_limit::kind`: the joint turns freely.
pub const SINEW_LIMIT_FREE: u32 = 0;
/// A hinge: turns only about `axis`, between `min_angle` and `max_angle`.
pub const SINEW_LIMIT_HINGE: u32 = 1;
/// A cone about `axis`: a swing of at most `max_swing`, a twist about it between `min_twist` and `max_twist`.
pub const SINEW_LIMIT_CONE: u32 = 2;

/// How far a CCD chain joint may turn from its rest-pose local rotation, in its own frame at rest (a knee's
/// hinge axis, a shoulder's cone about the upper arm). Angles in radians; axes any length but zero.
///
/// Layout: 36 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_joint_limit {
    /// One of `SINEW_LIMIT_*`.
    pub kind: u32,
    /// The hinge's or the cone's axis.
    pub axis: [f32; 3],
    /// A hinge's smallest turn.
    pub min_angle: f32,
    /// A hinge's largest turn.
    pub max_angle: f32,
    /// A cone's largest swing away from the axis.
    pub max_swing: f32,
    /// A cone's smallest twist about the axis.
    pub min_twist: f32,
    /// A cone's largest twist about the axis.
    pub max_twist: f32,
}

const _: () = assert!(size_of::<sinew_joint_limit>() == 36 && align_of::<sinew_joint_limit>() == 4);

impl sinew_joint_limit {
    fn core(self) -> Result<JointLimit, sinew_status> {
        let axis = vec3(self.axis);
        match self.kind {
            SINEW_LIMIT_FREE => Ok(JointLimit::Free),
            SINEW_LIMIT_HINGE => Ok(JointLimit::Hinge { axis, min: self.min_angle, max: self.max_angle }),
            SINEW_LIMIT_CONE => Ok(JointLimit::Cone {
                axis,
                max_swing: self.max_swing,
                min_twist: self.min_twist,
                max_twist: self.max_twist,
            }),
            _ => Err(SINEW_ERROR_INVALID_ARGUMENT),
        }
    }
}

/// A CCD request (a tail, a tentacle, a finger reaching), for `sinew_ccd_ik` and `sinew_character_ccd_ik`:
/// from the joint before the end back to the root, each joint turns the end toward the target within its limit
/// and at most `max_step` radians an iteration, until the end is within `tolerance` or `max_iterations` pass.
///
/// Layout: 48 bytes, 8-byte aligned, on 64-bit targets.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_ccd {
    /// `num_joints` joints, root first, each the parent of the next.
    pub chain: *const u32,
    /// `num_joints - 1` limits, one per joint but the end; NULL for none.
    pub limits: *const sinew_joint_limit,
    /// 2 to `SINEW_MAX_IK_CHAIN`.
    pub num_joints: u32,
    /// Where the end should go, model space.
    pub target: [f32; 3],
    /// How close the end must come to stop, in the skeleton's units (finite, >= 0).
    pub tolerance: f32,
    /// Iterations at most.
    pub max_iterations: u32,
    /// The largest turn of one joint in one iteration, radians in (0, π].
    pub max_step: f32,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<sinew_ccd>() == 48 && align_of::<sinew_ccd>() == 8);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(size_of::<sinew_ccd>() == 36 && align_of::<sinew_ccd>() == 4);

/// What a CCD solve did.
///
/// Layout: 12 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_ccd_result {
    /// Iterations run.
    pub iterations: u32,
    /// The end's distance to the target at the end.
    pub distance: f32,
    /// 1 when the end came within `tolerance`.
    pub reached: u32,
}

const _: () = assert!(size_of::<sinew_ccd_result>() == 12 && align_of::<sinew_ccd_result>() == 4);

/// Solves `r` on a pose.
///
/// # Safety
/// `r`'s arrays are readable as it describes.
pub(crate) unsafe fn ccd(
    r: &sinew_ccd,
    skeleton: &Skeleton<'_>,
    model: &[Mat4],
    local: &mut [SoaTransform],
) -> Result<sinew_ccd_result, sinew_status> {
    let n = r.num_joints as usize;
    // SAFETY: the caller's contract.
    let chain = unsafe { copied(r.chain, r.num_joints, 0usize, |j: u32| Ok(j as usize)) }?;
    let num_limits = r.num_joints.saturating_sub(1);
    let limits = if r.limits.is_null() {
        [JointLimit::Free; MAX_CCD_JOINTS]
    } else {
        // SAFETY: the caller's contract.
        unsafe { copied(r.limits, num_limits, JointLimit::Free, sinew_joint_limit::core) }?
    };
    let mut job = CcdIkJob {
        skeleton,
        chain: &chain[..n],
        limits: &limits[..num_limits as usize],
        target: vec3(r.target),
        tolerance: r.tolerance,
        max_iterations: r.max_iterations,
        max_step: r.max_step,
        model,
        local,
    };
    let solve = job.run().map_err(job_status)?;
    Ok(sinew_ccd_result { iterations: solve.iterations, distance: solve.distance, reached: u32::from(solve.reached) })
}

/// Runs `solve` on the pose in caller buffers (model matrices read, local pose written) and writes its
/// answer through `out`.
///
/// # Safety
/// As the solvers' functions.
unsafe fn on_pose<T>(
    handle: *const sinew_asset,
    model: *const sinew_mat4,
    num_matrices: usize,
    local: *mut sinew_soa_transform,
    count: usize,
    out: *mut T,
    solve: impl FnOnce(&Skeleton<'_>, &[Mat4], &mut [SoaTransform]) -> Result<T, sinew_status>,
) -> sinew_status {
    if out.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    let answer = (|| {
        // SAFETY: the caller's contract.
        let stored = unsafe { stored(handle) }?;
        let written = (local.cast_const(), count);
        disjoint(written, &[bytes(model, num_matrices), bytes(out, 1)])?;
        disjoint(written, &read_only(stored, handle))?;
        // SAFETY: the caller's contract; `local` overlaps no other buffer (checked).
        let (model, local) =
            unsafe { (input::<_, Mat4>(model, num_matrices)?, output::<_, SoaTransform>(local, count)?) };
        solve(stored.asset.skeleton(), model, local)
    })();
    // SAFETY: the caller's contract.
    unsafe { put(out, answer) }
}

/// The two-bone solver (see `sinew_two_bone`) on a pose in caller buffers: `model` (`num_matrices`, the
/// skeleton's joints) read, the chain's rotations in `local` (`count` lane groups) rewritten. Writes 1 or 0 to
/// `*reached`.
///
/// Errors: as `sinew_character_two_bone_ik`; `SINEW_ERROR_BUFFER` for a buffer misaligned, of another length,
/// or `local` overlapping `model` or the blob.
///
/// # Safety
/// `asset` points to a loaded asset; `model` to `num_matrices` readable matrices; `local` to `count` writable
/// lane groups; `request` is readable; `reached` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_two_bone_ik(
    asset: *const sinew_asset,
    model: *const sinew_mat4,
    num_matrices: usize,
    local: *mut sinew_soa_transform,
    count: usize,
    request: *const sinew_two_bone,
    reached: *mut u32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let r = match unsafe { read_request(request) } {
        Ok(r) => r,
        Err(status) => return status,
    };
    // SAFETY: the caller's contract.
    unsafe {
        on_pose(asset, model, num_matrices, local, count, reached, |s, m, l| two_bone(&r, s, m, l).map_err(job_status))
    }
}

/// The aim solver (see `sinew_aim`) on a pose in caller buffers, as `sinew_two_bone_ik`. Writes
/// `SINEW_AIM_*` flags to `*result`.
///
/// Errors: as `sinew_character_aim_ik`; buffers as `sinew_two_bone_ik`.
///
/// # Safety
/// As `sinew_two_bone_ik`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_aim_ik(
    asset: *const sinew_asset,
    model: *const sinew_mat4,
    num_matrices: usize,
    local: *mut sinew_soa_transform,
    count: usize,
    request: *const sinew_aim,
    result: *mut u32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let r = match unsafe { read_request(request) } {
        Ok(r) => r,
        Err(status) => return status,
    };
    // SAFETY: the caller's contract.
    unsafe { on_pose(asset, model, num_matrices, local, count, result, |s, m, l| aim(&r, s, m, l).map_err(job_status)) }
}

/// The aim-chain solver (see `sinew_aim_chain`) on a pose in caller buffers, as `sinew_two_bone_ik`. Writes
/// `SINEW_AIM_*` flags to `*result`.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for no joints or more than `SINEW_MAX_IK_CHAIN`, a joint past the
/// skeleton's or not an ancestor of the next, a target or axis not finite, a zero axis, a share outside
/// [0, 1] or a limit outside (0, π]; buffers as `sinew_two_bone_ik`.
///
/// # Safety
/// As `sinew_two_bone_ik`; the request's arrays are readable as it describes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_aim_chain_ik(
    asset: *const sinew_asset,
    model: *const sinew_mat4,
    num_matrices: usize,
    local: *mut sinew_soa_transform,
    count: usize,
    request: *const sinew_aim_chain,
    result: *mut u32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let r = match unsafe { read_request(request) } {
        Ok(r) => r,
        Err(status) => return status,
    };
    // SAFETY: the caller's contract (the request's arrays).
    unsafe { on_pose(asset, model, num_matrices, local, count, result, |s, m, l| aim_chain(&r, s, m, l)) }
}

/// The CCD solver (see `sinew_ccd`) on a pose in caller buffers, as `sinew_two_bone_ik`. Writes what it did
/// to `*result`.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for fewer than 2 joints or more than `SINEW_MAX_IK_CHAIN`, a chain
/// not parent-linked, a limit of an unknown kind, a zero limit axis or a range out of order, a target not
/// finite, a tolerance below 0 or a step outside (0, π]; buffers as `sinew_two_bone_ik`.
///
/// # Safety
/// As `sinew_two_bone_ik`; the request's arrays are readable as it describes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_ccd_ik(
    asset: *const sinew_asset,
    model: *const sinew_mat4,
    num_matrices: usize,
    local: *mut sinew_soa_transform,
    count: usize,
    request: *const sinew_ccd,
    result: *mut sinew_ccd_result,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let r = match unsafe { read_request(request) } {
        Ok(r) => r,
        Err(status) => return status,
    };
    // SAFETY: the caller's contract (the request's arrays).
    unsafe { on_pose(asset, model, num_matrices, local, count, result, |s, m, l| ccd(&r, s, m, l)) }
}

/// One chain of `sinew_two_bone_ik_batch`: a pose (any character's) and its request.
///
/// Layout: 112 bytes, 8-byte aligned, on 64-bit targets.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_two_bone_chain {
    /// The asset the pose is of.
    pub asset: *const sinew_asset,
    /// The pose's model matrices, `num_matrices` (the skeleton's joints).
    pub model: *const sinew_mat4,
    /// Matrices at `model`.
    pub num_matrices: usize,
    /// The pose (read only: `sinew_two_bone_store` writes the answer).
    pub local: *const sinew_soa_transform,
    /// Lane groups at `local`.
    pub count: usize,
    /// The request; `soften` must be 1 (the hard clamp) and `has_end_turn` 0 (the end follows the middle bone).
    pub request: sinew_two_bone,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<sinew_two_bone_chain>() == 112 && align_of::<sinew_two_bone_chain>() == 8);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(size_of::<sinew_two_bone_chain>() == 88 && align_of::<sinew_two_bone_chain>() == 4);

/// A two-bone answer: the new local rotations (x, y, z, w) of the chain's root and middle joints.
///
/// Layout: 32 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_two_bone_rotations {
    /// The root joint's local rotation.
    pub root: [f32; 4],
    /// The middle joint's local rotation.
    pub middle: [f32; 4],
}

const _: () = assert!(size_of::<sinew_two_bone_rotations>() == 32 && align_of::<sinew_two_bone_rotations>() == 4);
const _: () = assert!(size_of::<sinew_two_bone_rotations>() == size_of::<TwoBoneRotations>());

/// Chains solved per call of the core's batch (lanes of one pass); longer batches are solved in such runs.
const BATCH: usize = 8;

/// Solves `count` two-bone chains at once, eight to a SIMD pass (legs of a crowd: any mix of characters and
/// assets), writing each chain's answer to `rotations[i]` for `sinew_two_bone_store`. Equals
/// `sinew_two_bone_ik` on each chain alone within 1e-5 (the lanes' arithmetic).
///
/// Errors: as `sinew_two_bone_ik` for any chain (nothing is written then); `SINEW_ERROR_INVALID_ARGUMENT` for
/// a `soften` other than 1 or an `end_turn`; `SINEW_ERROR_BUFFER` for `rotations` overlapping a chain's
/// buffers.
///
/// # Safety
/// `chains` points to `count` readable chains whose buffers are readable as they describe; `rotations` to
/// `count` writable answers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_two_bone_ik_batch(
    chains: *const sinew_two_bone_chain,
    count: usize,
    rotations: *mut sinew_two_bone_rotations,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let chains = unsafe { input::<_, sinew_two_bone_chain>(chains, count) }?;
        disjoint((rotations.cast_const(), count), &[bytes(chains.as_ptr(), count)])?;
        for c in chains {
            // SAFETY: the chain's asset handle, by the caller's contract.
            let stored = unsafe { stored(c.asset) }?;
            disjoint((rotations.cast_const(), count), &[bytes(c.model, c.num_matrices), bytes(c.local, c.count)])?;
            disjoint((rotations.cast_const(), count), &read_only(stored, c.asset))?;
            if c.request.soften != 1.0 || c.request.has_end_turn != 0 {
                return Err(SINEW_ERROR_INVALID_ARGUMENT);
            }
        }
        // SAFETY: the caller's contract; overlapping no chain's buffers (checked).
        let rotations = unsafe { output::<_, TwoBoneRotations>(rotations, count) }?;
        // Every run is validated before any is solved, so an error writes nothing.
        for pass in [false, true] {
            for (run, answers) in chains.chunks(BATCH).zip(rotations.chunks_mut(BATCH)) {
                let mut core = [None; BATCH];
                for (slot, c) in core.iter_mut().zip(run) {
                    // SAFETY: the caller's contract (checked again: the pointers were read above).
                    let stored = unsafe { stored(c.asset) }?;
                    // SAFETY: the chain's buffers are readable by the caller's contract, and not written.
                    let (model, local) = unsafe {
                        (input::<_, Mat4>(c.model, c.num_matrices)?, input::<_, SoaTransform>(c.local, c.count)?)
                    };
                    let r = &c.request;
                    *slot = Some(TwoBoneBatchChain {
                        skeleton: stored.asset.skeleton(),
                        model,
                        local,
                        chain: r.chain.map(|j| j as usize),
                        target: vec3(r.target),
                        pole: r.pole(),
                        weight: r.weight,
                    });
                }
                let built: heapless::Vec<TwoBoneBatchChain<'_>, BATCH> = core.into_iter().flatten().collect();
                let mut job = TwoBoneIkBatchJob { chains: &built, rotations: answers };
                if pass { job.run() } else { job.validate() }.map_err(job_status)?;
            }
        }
        Ok(())
    })();
    result.err().unwrap_or(SINEW_OK)
}

/// Writes a batch answer into the pose the chain was read from: the local rotations of `chain`'s root and
/// middle joints (normalized).
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a rotation not finite or of zero length, or a joint past the
/// pose; `SINEW_ERROR_BUFFER` for a pose misaligned.
///
/// # Safety
/// `rotations` and `chain` (three joints) are readable; `local` points to `count` writable lane groups.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_two_bone_store(
    rotations: *const sinew_two_bone_rotations,
    chain: *const u32,
    local: *mut sinew_soa_transform,
    count: usize,
) -> sinew_status {
    if rotations.is_null() || chain.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: not NULL; readable by the caller's contract (read before the pose is borrowed).
    let (r, chain) = unsafe { (rotations.read_unaligned(), chain.cast::<[u32; 3]>().read_unaligned()) };
    let quat = |[x, y, z, w]: [f32; 4]| Quat::new(x, y, z, w).normalize();
    let answer: TwoBoneRotations = [quat(r.root), quat(r.middle)];
    if !answer.iter().all(|q| q.is_finite()) {
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: the caller's contract.
    let local = match unsafe { output::<_, SoaTransform>(local, count) } {
        Ok(local) => local,
        Err(status) => return status,
    };
    match TwoBoneIkBatchJob::store(&answer, chain.map(|j| j as usize), local) {
        Ok(()) => SINEW_OK,
        Err(e) => job_status(e),
    }
}
