//! Post-process edits of the character's shown pose: the IK solvers as one call each, and the engine's own
//! edit through a callback, after which the model matrices and the palette follow the pose once.

use crate::asset::sinew_asset;
use crate::character::{mark_busy, sinew_character, with_rig};
use crate::jobs::ik::{
    aim, aim_chain, ccd, sinew_aim, sinew_aim_chain, sinew_ccd, sinew_ccd_result, sinew_two_bone, two_bone,
};
use crate::jobs::{read_request, sinew_mat4, sinew_soa_transform};
use crate::status::{SINEW_ERROR_NULL_POINTER, put, sinew_status, status};
use core::ffi::c_void;
use sinew::character::PoseEdit;
use sinew::error::Error;

/// Runs `solve` as a post-process on the character's last pose (`Character::edit_pose`) and writes its answer
/// through `out` on success.
///
/// # Safety
/// As `sinew_character_play`; `out` is writable.
pub(crate) unsafe fn edit<T>(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    solve: impl FnOnce(PoseEdit<'_>) -> Result<T, Error>,
    out: *mut T,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let answer = unsafe { with_rig(character, asset, |character, rig| character.edit_pose(rig, solve)) };
    // SAFETY: the caller's contract.
    unsafe { put(out, answer) }
}

/// `edit` for solvers that answer with a C status: the answer travels through `edit_pose` as its value.
///
/// # Safety
/// As `edit`.
unsafe fn edit_c<T>(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    solve: impl FnOnce(PoseEdit<'_>) -> Result<T, sinew_status>,
    out: *mut T,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let answer = unsafe { with_rig(character, asset, |character, rig| character.edit_pose(rig, |e| Ok(solve(e)))) };
    // SAFETY: the caller's contract.
    unsafe { put(out, answer.and_then(|answer| answer)) }
}

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
    // SAFETY: the caller's contract.
    match unsafe { read_request(request) } {
        // SAFETY: the caller's contract.
        Ok(r) => unsafe { edit(character, asset, |e| two_bone(&r, e.skeleton, e.model, e.local), reached) },
        Err(status) => status,
    }
}

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
    // SAFETY: the caller's contract.
    match unsafe { read_request(request) } {
        // SAFETY: the caller's contract.
        Ok(r) => unsafe { edit(character, asset, |e| aim(&r, e.skeleton, e.model, e.local), result) },
        Err(status) => status,
    }
}

/// Aims a chain of the character's last pose (see `sinew_aim_chain`); the model matrices and palette follow.
/// Writes `SINEW_AIM_*` flags to `*result`.
///
/// Errors: as `sinew_aim_chain_ik`. The pose is unchanged on an error.
///
/// # Safety
/// As `sinew_character_play`; `request` points to a readable `sinew_aim_chain` whose arrays are readable;
/// `result` to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_aim_chain_ik(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    request: *const sinew_aim_chain,
    result: *mut u32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    match unsafe { read_request(request) } {
        // SAFETY: the caller's contract (the request's arrays).
        Ok(r) => unsafe { edit_c(character, asset, |e| aim_chain(&r, e.skeleton, e.model, e.local), result) },
        Err(status) => status,
    }
}

/// Runs CCD on a chain of the character's last pose (see `sinew_ccd`); the model matrices and palette follow.
/// Writes what it did to `*result`.
///
/// Errors: as `sinew_ccd_ik`. The pose is unchanged on an error.
///
/// # Safety
/// As `sinew_character_play`; `request` points to a readable `sinew_ccd` whose arrays are readable; `result`
/// to a writable `sinew_ccd_result`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_ccd_ik(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    request: *const sinew_ccd,
    result: *mut sinew_ccd_result,
) -> sinew_status {
    // SAFETY: the caller's contract.
    match unsafe { read_request(request) } {
        // SAFETY: the caller's contract (the request's arrays).
        Ok(r) => unsafe { edit_c(character, asset, |e| ccd(&r, e.skeleton, e.model, e.local), result) },
        Err(status) => status,
    }
}

/// An engine's own edit of a character's shown pose, for `sinew_character_edit_pose`: called once with the
/// pose's model matrices (`num_matrices`, the skeleton's joints; an edit may move them) and its local pose
/// (`count` lane groups), which it edits with the job calls (`sinew_two_bone_ik`, `sinew_pose_set_joint`, …)
/// passing `asset` on. It returns `SINEW_OK` or any status, which `sinew_character_edit_pose` returns. It must
/// not call functions on the character being edited (they fail with `SINEW_ERROR_INVALID_HANDLE`), keep the
/// pointers past its return, or unwind (a C++ exception, `longjmp`) through the library.
pub type sinew_pose_edit_fn = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        asset: *const sinew_asset,
        model: *mut sinew_mat4,
        num_matrices: usize,
        local: *mut sinew_soa_transform,
        count: usize,
    ) -> sinew_status,
>;

/// Runs `edit` on the character's last pose (see `sinew_pose_edit_fn`), then computes the model matrices and
/// palette again from what it left: one post-process pass for any number of solvers, after
/// `sinew_character_update_unskinned`. The edited pose is what the character shows and what the next
/// inertialized transition starts from.
///
/// Errors: the callback's status (the outputs still follow what it left); `SINEW_ERROR_NULL_POINTER` for no
/// callback; the character's errors as `sinew_character_update`.
///
/// # Safety
/// As `sinew_character_play`; `edit` keeps `sinew_pose_edit_fn`'s rules; `user` is passed to it unread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_edit_pose(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    edit: sinew_pose_edit_fn,
    user: *mut c_void,
) -> sinew_status {
    let Some(edit) = edit else { return SINEW_ERROR_NULL_POINTER };
    let callback = |e: PoseEdit<'_>| {
        let (model, num_matrices) = (e.model.as_mut_ptr().cast(), e.model.len());
        let (local, count) = (e.local.as_mut_ptr().cast(), e.local.len());
        // SAFETY: the character was attached (its prefix checked); while the callback runs, its prefix says
        // busy, so the callback cannot reach the character through the library.
        unsafe { mark_busy(character, true) };
        // SAFETY: the pose's buffers, valid for the call; the callback keeps `sinew_pose_edit_fn`'s rules.
        let answer = unsafe { edit(user, asset, model, num_matrices, local, count) };
        // SAFETY: as above.
        unsafe { mark_busy(character, false) };
        Ok(answer)
    };
    // SAFETY: the caller's contract.
    let answer = unsafe { with_rig(character, asset, |character, rig| character.edit_pose(rig, callback)) };
    answer.unwrap_or_else(|status| status)
}

/// `sinew_character_update` without the palette, for a frame a post-process finishes
/// (`sinew_character_edit_pose` or the IK calls compute it once, after the edit): the pose, model matrices,
/// root motion and crossed markers are the update's; the palette keeps the last one computed until the edit.
///
/// Errors: as `sinew_character_update`.
///
/// # Safety
/// As `sinew_character_play`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_update_unskinned(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    dt: f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    status(unsafe { with_rig(character, asset, |c, rig| c.update_unskinned(dt, rig, None)) })
}
