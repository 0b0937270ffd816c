//! Blending caller poses: weighted layers with optional bone masks, additive layers on top, and the additive
//! delta of a pose from a reference.

use super::{bytes, disjoint, input, job_status, output, read_only, sinew_soa_transform};
use crate::asset::{sinew_asset, stored};
use crate::status::{SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NULL_POINTER, SINEW_OK, sinew_status};
use core::mem::{align_of, size_of};
use sinew::blending::{BlendLayer, BlendingJob, MAX_LAYERS, additive_delta};
use sinew::math::{F4, SoaTransform};

/// The most layers of each kind `sinew_blend` takes.
pub const SINEW_MAX_BLEND_LAYERS: u32 = 16;
const _: () = assert!(SINEW_MAX_BLEND_LAYERS as usize == MAX_LAYERS);

/// One layer of `sinew_blend`.
///
/// Layout: 24 bytes, 8-byte aligned, on 64-bit targets.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_blend_layer {
    /// The layer's pose, `count` lane groups (the output's); for an additive layer, a delta from
    /// `sinew_additive_delta`.
    pub pose: *const sinew_soa_transform,
    /// NULL, or a bone mask: `4 * count` floats, 16-byte aligned, one factor per joint in lane order (factor
    /// `4g + k` for joint `4g + k`; padding lanes are not read), each finite and >= 0, multiplying `weight`.
    pub joint_weights: *const f32,
    /// Normal layers: finite and >= 0. Additive layers: finite; a negative weight subtracts.
    pub weight: f32,
    /// Not read; zero.
    pub reserved: u32,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<sinew_blend_layer>() == 24 && align_of::<sinew_blend_layer>() == 8);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(size_of::<sinew_blend_layer>() == 16 && align_of::<sinew_blend_layer>() == 4);

/// The core's layers for the `num` C layers at `layers`, each of `count` lane groups, into `out`; the byte
/// ranges they read go to `read`.
///
/// # Safety
/// `layers` is NULL (with `num` 0) or points to `num` readable layers whose buffers are readable as described.
unsafe fn core_layers<'a>(
    layers: *const sinew_blend_layer,
    num: usize,
    count: usize,
    out: &mut [BlendLayer<'a>; MAX_LAYERS],
    read: &mut [(*const u8, usize)],
) -> Result<usize, sinew_status> {
    if num == 0 {
        return Ok(0);
    }
    if num > MAX_LAYERS {
        return Err(SINEW_ERROR_INVALID_ARGUMENT);
    }
    if layers.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    for k in 0..num {
        // SAFETY: `k < num` layers readable by the caller's contract.
        let layer = unsafe { layers.add(k).read_unaligned() };
        // SAFETY: the layer's buffers are readable by the caller's contract.
        let pose = unsafe { input::<_, SoaTransform>(layer.pose, count) }?;
        let joint_weights = if layer.joint_weights.is_null() {
            None
        } else {
            // SAFETY: as `pose`: `4 * count` floats, read as `count` lane vectors.
            Some(unsafe { input::<[f32; 4], F4>(layer.joint_weights.cast(), count) }?)
        };
        read[2 * k] = bytes(layer.pose, count);
        read[2 * k + 1] = bytes(layer.joint_weights, 4 * count);
        out[k] = BlendLayer { pose, weight: layer.weight, joint_weights };
    }
    Ok(num)
}

/// Blends `num_layers` layers (weighted by `weight` times each joint's mask factor, normalized per joint;
/// where a joint's summed weight is below `threshold`, the rest pose fills the difference) and then adds
/// `num_additive` additive layers, into the `count` lane groups at `pose` (`sinew_asset_num_soa_joints`).
/// Local space. Results equal the character's blending bit for bit.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for more than `SINEW_MAX_BLEND_LAYERS` of a kind, a weight, mask
/// factor or threshold out of range (the threshold is finite and > 0); `SINEW_ERROR_BUFFER` for a buffer
/// misaligned, of another length, or a layer's buffer or the blob overlapping `pose`.
///
/// # Safety
/// `asset` points to a loaded asset; `layers` and `additive` to `num_layers` and `num_additive` readable
/// layers (either may be NULL when its count is 0) whose buffers are readable; `pose` to `count` writable
/// lane groups.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments, reason = "the C call lists its buffers and their lengths")]
pub unsafe extern "C" fn sinew_blend(
    asset: *const sinew_asset,
    layers: *const sinew_blend_layer,
    num_layers: usize,
    additive: *const sinew_blend_layer,
    num_additive: usize,
    threshold: f32,
    pose: *mut sinew_soa_transform,
    count: usize,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let stored = unsafe { stored(asset) }?;
        let empty = BlendLayer { pose: &[], weight: 0.0, joint_weights: None };
        let (mut normal, mut added) = ([empty; MAX_LAYERS], [empty; MAX_LAYERS]);
        let mut read = [(core::ptr::null(), 0); 4 * MAX_LAYERS];
        let (normal_read, added_read) = read.split_at_mut(2 * MAX_LAYERS);
        // SAFETY: the caller's contract.
        let n = unsafe { core_layers(layers, num_layers, count, &mut normal, normal_read) }?;
        // SAFETY: the caller's contract.
        let a = unsafe { core_layers(additive, num_additive, count, &mut added, added_read) }?;
        disjoint((pose.cast_const(), count), &read)?;
        disjoint((pose.cast_const(), count), &read_only(stored, asset))?;
        // SAFETY: the caller's contract; disjoint from every buffer the call reads (checked).
        let output = unsafe { output::<_, SoaTransform>(pose, count) }?;
        let skeleton = stored.asset.skeleton();
        let mut job = BlendingJob { skeleton, layers: &normal[..n], additive: &added[..a], threshold, output };
        job.run().map_err(job_status)
    })();
    result.err().unwrap_or(SINEW_OK)
}

/// The additive delta of the `count` lane groups at `pose` from those at `reference`, into `delta`, for an
/// additive layer of `sinew_blend`: translations subtract, rotations `conj(q_ref) q`, scales divide. Adding
/// it with weight 1 on top of `reference` gives back `pose`.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a reference scale component of zero; `SINEW_ERROR_BUFFER` for a
/// buffer misaligned or `delta` overlapping an input.
///
/// # Safety
/// `reference` and `pose` point to `count` readable lane groups, `delta` to `count` writable ones.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_additive_delta(
    reference: *const sinew_soa_transform,
    pose: *const sinew_soa_transform,
    delta: *mut sinew_soa_transform,
    count: usize,
) -> sinew_status {
    let result = (|| {
        disjoint((delta.cast_const(), count), &[bytes(reference, count), bytes(pose, count)])?;
        // SAFETY: the caller's contract; `delta` overlaps neither input (checked).
        let (reference, pose, delta) =
            unsafe { (input::<_, SoaTransform>(reference, count)?, input(pose, count)?, output(delta, count)?) };
        // The core fills `delta` as it goes; a zero reference scale is refused before anything is written.
        let zero = |v: &sinew::math::SoaVec3| [v.x, v.y, v.z].iter().any(|c| c.to_array().contains(&0.0));
        if reference.iter().any(|r| zero(&r.scale)) {
            return Err(SINEW_ERROR_INVALID_ARGUMENT);
        }
        additive_delta(reference, pose, delta).map_err(job_status)
    })();
    result.err().unwrap_or(SINEW_OK)
}
