//! IK by interpolation over caller buffers: aim poses on a yaw × pitch grid blended toward a direction and
//! corrected (see `sinew::aim_blend`).

use super::{bytes, disjoint, input, job_status, output, read_only, sinew_mat4, sinew_soa_transform};
use crate::asset::{sinew_asset, stored};
use crate::status::{SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NULL_POINTER, put, sinew_status};
use sinew::aim_blend::{AimBlendJob, AimPoses};
use sinew::math::{Mat4, SoaTransform, Vec3};

/// The most aim poses `sinew_aim_blend` takes (a 7 × 9 grid fits).
pub const SINEW_MAX_AIM_POSES: u32 = 64;

/// The most corrections `sinew_aim_blend` iterates.
pub const SINEW_MAX_AIM_ITERATIONS: u32 = 16;
const _: () = assert!(SINEW_MAX_AIM_ITERATIONS as usize == sinew::limits::MAX_AIM_ITERATIONS);

/// What `sinew_aim_blend` blends and where it aims: the poses' grid, the aiming joint, and the direction.
///
/// Layout: 64 bytes, 8-byte aligned, on 64-bit targets (52 and 4 on 32-bit ones).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_aim_blend_request {
    /// `num_yaws * num_pitches` poses (at most `SINEW_MAX_AIM_POSES`), each `count` lane groups: pose
    /// `p * num_yaws + y` aims at `yaws[y]`, `pitches[p]`.
    pub poses: *const *const sinew_soa_transform,
    /// Yaws (radians about +Y, from +Z toward +X), strictly increasing inside (−π, π); one for a pitch fan.
    pub yaws: *const f32,
    /// Pitches (radians above the horizontal), strictly increasing inside [−π/2, π/2]; one for a yaw fan.
    pub pitches: *const f32,
    /// Entries of `yaws`.
    pub num_yaws: u32,
    /// Entries of `pitches`.
    pub num_pitches: u32,
    /// The joint that aims.
    pub joint: u32,
    /// Its aim axis in its own frame (any length but zero).
    pub forward: [f32; 3],
    /// The direction to aim in, model space (any length but zero).
    pub direction: [f32; 3],
    /// Corrections after the plain blend, at most `SINEW_MAX_AIM_ITERATIONS` (0: the blend alone; 3 usually
    /// within 0.1°).
    pub iterations: u32,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(core::mem::size_of::<sinew_aim_blend_request>() == 64);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(core::mem::size_of::<sinew_aim_blend_request>() == 52);
const _: () = assert!(core::mem::size_of::<sinew_aim_blend_result>() == 24);

/// What `sinew_aim_blend` reached.
///
/// Layout: 24 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_aim_blend_result {
    /// The output's grid parameters: fractional yaw and pitch indices.
    pub parameters: [f32; 2],
    /// The direction the joint's axis points in the output, model space, unit length.
    pub achieved: [f32; 3],
    /// The angle between `achieved` and the wanted direction, radians.
    pub error: f32,
}

/// IK by interpolation (see `sinew_aim_blend_request`): writes the blended pose to `pose` (`count` lane groups,
/// `sinew_asset_num_soa_joints`) and its model matrices to `model` (`num_matrices`, the skeleton's joints),
/// and what it reached to `*result`.
///
/// Errors, `result` not written: `SINEW_ERROR_INVALID_ARGUMENT` for fewer than two poses or more than
/// `SINEW_MAX_AIM_POSES`, angles not finite, increasing and in range, a zero or non-finite axis or direction,
/// more iterations than `SINEW_MAX_AIM_ITERATIONS`;
/// `SINEW_ERROR_INDEX_OUT_OF_RANGE` for the joint; `SINEW_ERROR_BUFFER` for a buffer misaligned or of another
/// length, or an output overlapping an input, the other output or the blob. The outputs are scratch while the
/// job iterates: on an error found after it started they hold a blend.
///
/// # Safety
/// `asset` points to a loaded asset; `request` is readable, with `poses`, `yaws` and `pitches` readable as it
/// describes; `pose` and `model` writable as described; `result` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_aim_blend(
    asset: *const sinew_asset,
    request: *const sinew_aim_blend_request,
    pose: *mut sinew_soa_transform,
    count: usize,
    model: *mut sinew_mat4,
    num_matrices: usize,
    result: *mut sinew_aim_blend_result,
) -> sinew_status {
    if result.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    let answer = (|| {
        // SAFETY: the caller's contract.
        let stored = unsafe { stored(asset) }?;
        // SAFETY: the caller's contract.
        let r = unsafe { super::read_request(request) }?;
        let num_poses = (r.num_yaws as usize).saturating_mul(r.num_pitches as usize);
        if num_poses > SINEW_MAX_AIM_POSES as usize || r.iterations > SINEW_MAX_AIM_ITERATIONS {
            return Err(SINEW_ERROR_INVALID_ARGUMENT);
        }
        // SAFETY: the caller's contract: `num_poses` pose pointers, `num_yaws` and `num_pitches` angles.
        let (pointers, yaws, pitches) = unsafe {
            (
                input::<_, *const sinew_soa_transform>(r.poses, num_poses)?,
                input::<_, f32>(r.yaws, r.num_yaws as usize)?,
                input::<_, f32>(r.pitches, r.num_pitches as usize)?,
            )
        };
        let mut poses: [&[SoaTransform]; SINEW_MAX_AIM_POSES as usize] = [&[]; SINEW_MAX_AIM_POSES as usize];
        let mut read = [(core::ptr::null(), 0); SINEW_MAX_AIM_POSES as usize + 6];
        for (k, &pointer) in pointers.iter().enumerate() {
            // SAFETY: each pose is `count` readable lane groups by the caller's contract.
            poses[k] = unsafe { input::<_, SoaTransform>(pointer, count) }?;
            read[k] = bytes(pointer, count);
        }
        let n = pointers.len();
        read[n] = bytes(r.poses, n);
        read[n + 1] = bytes(r.yaws, yaws.len());
        read[n + 2] = bytes(r.pitches, pitches.len());
        let [blob, handle] = read_only(stored, asset);
        (read[n + 3], read[n + 4], read[n + 5]) = (blob, handle, bytes(result, 1));
        disjoint((pose.cast_const(), count), &read)?;
        disjoint((model.cast_const(), num_matrices), &read)?;
        disjoint((model.cast_const(), num_matrices), &[bytes(pose, count)])?;
        // SAFETY: the caller's contract; both outputs overlap nothing else the call touches (checked).
        let (output, model) =
            unsafe { (output::<_, SoaTransform>(pose, count)?, output::<_, Mat4>(model, num_matrices)?) };
        let vec3 = |a: [f32; 3]| Vec3::new(a[0], a[1], a[2]);
        let mut job = AimBlendJob {
            skeleton: stored.asset.skeleton(),
            poses: AimPoses { poses: &poses[..n], yaws, pitches },
            joint: r.joint as usize,
            forward: vec3(r.forward),
            direction: vec3(r.direction),
            iterations: r.iterations,
            output,
            model,
        };
        let reached = job.run().map_err(job_status)?;
        let a = reached.achieved;
        Ok(sinew_aim_blend_result { parameters: reached.parameters, achieved: [a.x, a.y, a.z], error: reached.error })
    })();
    // SAFETY: the caller's contract.
    unsafe { put(result, answer) }
}
