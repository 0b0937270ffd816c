//! IK on the character's shown pose: two-bone and aim.

use crate::asset::sinew_asset;
use crate::character::{edit, sinew_character};
use crate::status::{SINEW_ERROR_NULL_POINTER, sinew_status};
use core::mem::{align_of, size_of};
use sinew::character::PoseEdit;
use sinew::ik::{AimIkJob, TwoBoneIkJob};
use sinew::math::{Quat, Vec3};

/// A two-bone IK request (a leg or an arm), for `sinew_character_two_bone_ik`. Model space.
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

/// The two-bone solver on the character's last pose (see `sinew_two_bone`); the model matrices and palette
/// follow. Writes whether the end reached the target to `*reached` (1 or 0).
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a chain not parent-linked or with a zero-length bone, a target,
/// pole, weight or soften out of range, or a zero `end_turn`; `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a joint past
/// the skeleton's. The pose is unchanged on an error.
///
/// # Safety
/// As `sinew_character_play`; `request` points to a readable `sinew_two_bone`; `reached` to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_two_bone_ik(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    request: *const sinew_two_bone,
    reached: *mut u32,
) -> sinew_status {
    if request.is_null() || reached.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: not NULL; readable by the caller's contract.
    let r = unsafe { request.read_unaligned() };
    let v = |a: [f32; 3]| Vec3::new(a[0], a[1], a[2]);
    let solve = |edit: PoseEdit<'_>| {
        let mut job = TwoBoneIkJob {
            skeleton: edit.skeleton,
            chain: r.chain.map(|j| j as usize),
            target: v(r.target),
            pole: (r.has_pole != 0).then(|| v(r.pole)),
            weight: r.weight,
            soften: r.soften,
            end_turn: (r.has_end_turn != 0)
                .then(|| Quat::new(r.end_turn[0], r.end_turn[1], r.end_turn[2], r.end_turn[3])),
            model: edit.model,
            local: edit.local,
        };
        job.run().map(|solve| u32::from(solve.reached))
    };
    // SAFETY: the caller's contract.
    unsafe { edit(character, asset, solve, reached) }
}

/// An aim (a look-at: a head, an eye, a gun), for `sinew_character_aim_ik`. Model space but for the joint's
/// own axes.
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

/// `sinew_character_aim_ik`'s answer: the joint turned toward the target.
pub const SINEW_AIM_AIMED: u32 = 1;
/// `sinew_character_aim_ik`'s answer: `max_angle` cut the turn short.
pub const SINEW_AIM_LIMITED: u32 = 2;

/// Turns a joint of the character's last pose toward a target (see `sinew_aim`); the model matrices and
/// palette follow. Writes `SINEW_AIM_*` flags to `*result` (0: the target sat on the joint, nothing changed).
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (joint); `SINEW_ERROR_INVALID_ARGUMENT` for a zero axis, a target
/// not finite, a limit outside (0, π] or a weight outside [0, 1]. The pose is unchanged on an error.
///
/// # Safety
/// As `sinew_character_play`; `request` points to a readable `sinew_aim`; `result` to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_aim_ik(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    request: *const sinew_aim,
    result: *mut u32,
) -> sinew_status {
    if request.is_null() || result.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: not NULL; readable by the caller's contract.
    let r = unsafe { request.read_unaligned() };
    let v = |a: [f32; 3]| Vec3::new(a[0], a[1], a[2]);
    let limit = |radians: f32| (radians != 0.0).then_some(radians);
    let solve = |edit: PoseEdit<'_>| {
        let mut job = AimIkJob {
            skeleton: edit.skeleton,
            joint: r.joint as usize,
            forward: v(r.forward),
            up: (r.has_up != 0).then(|| (v(r.up_axis), v(r.model_up))),
            target: v(r.target),
            max_angle: limit(r.max_angle),
            max_twist: limit(r.max_twist),
            weight: r.weight,
            model: edit.model,
            local: edit.local,
        };
        let flag = |on: bool, bit: u32| if on { bit } else { 0 };
        job.run().map(|aim| flag(aim.aimed, SINEW_AIM_AIMED) | flag(aim.limited, SINEW_AIM_LIMITED))
    };
    // SAFETY: the caller's contract.
    unsafe { edit(character, asset, solve, result) }
}
