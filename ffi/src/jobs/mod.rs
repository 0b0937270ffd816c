//! The stages as jobs over caller memory, for engines that wire their own frame: the pose and matrix types
//! they share, and the checks every job makes of the buffers it is given. Each job validates everything before
//! it writes, so an error leaves every output as it was.

pub mod aim_blend;
pub mod attachment;
pub mod blend_graph;
pub mod blending;
pub mod ik;
pub mod inertialization;
pub mod local_to_model;
pub mod sampling;
pub mod skinning;
pub mod state;
pub mod vertex_skinning;

use crate::asset::{StoredAsset, sinew_asset, stored};
use crate::status::{
    SINEW_ERROR_BUFFER, SINEW_ERROR_INDEX_OUT_OF_RANGE, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NULL_POINTER,
    SINEW_OK, put, sinew_status, status_of,
};
use core::mem::{align_of, size_of};
use sinew::error::Error;
use sinew::math::{Mat3x4, Mat4, Quat, SoaTransform, Transform, Vec3};

/// Four joints' local transforms, lane `k` holding joint `4g + k` of lane group `g`: a pose is
/// `num_soa_joints = ceil(num_joints / 4)` of them (`sinew_asset_num_soa_joints`); padding lanes hold the
/// identity. Local space: each joint relative to its parent.
///
/// Layout: 160 bytes, 16-byte aligned, structure of arrays: `translation[axis][lane]`,
/// `rotation[component][lane]` (x, y, z, w; unit quaternions), `scale[axis][lane]`.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct sinew_soa_transform {
    /// x, y and z of the four translations.
    pub translation: [[f32; 4]; 3],
    /// x, y, z and w of the four rotations.
    pub rotation: [[f32; 4]; 4],
    /// x, y and z of the four scales.
    pub scale: [[f32; 4]; 3],
}

const _: () = assert!(size_of::<sinew_soa_transform>() == 160 && align_of::<sinew_soa_transform>() == 16);
const _: () = assert!(size_of::<sinew_soa_transform>() == size_of::<SoaTransform>());
const _: () = assert!(align_of::<sinew_soa_transform>() == align_of::<SoaTransform>());

/// One joint's local transform, for `sinew_pose_joint` and `sinew_pose_set_joint`.
///
/// Layout: 40 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_transform {
    /// Translation.
    pub translation: [f32; 3],
    /// Rotation (x, y, z, w), a unit quaternion.
    pub rotation: [f32; 4],
    /// Scale per axis.
    pub scale: [f32; 3],
}

const _: () = assert!(size_of::<sinew_transform>() == 40 && align_of::<sinew_transform>() == 4);

/// A model-space matrix: 16 floats, column-major (column 3 holds the translation), as
/// `sinew_character_model_matrices` gives them.
///
/// Layout: 64 bytes, 32-byte aligned.
#[repr(C, align(32))]
#[derive(Clone, Copy)]
pub struct sinew_mat4 {
    /// Column-major elements: `m[4 * column + row]`.
    pub m: [f32; 16],
}

const _: () = assert!(size_of::<sinew_mat4>() == 64 && align_of::<sinew_mat4>() == 32);
const _: () = assert!(size_of::<sinew_mat4>() == size_of::<Mat4>() && align_of::<sinew_mat4>() == align_of::<Mat4>());

/// A skinning matrix: three rows of four floats (`dot(row, vec4(p, 1))`), as `sinew_character_palette_3x4`
/// gives them.
///
/// Layout: 48 bytes, 16-byte aligned.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct sinew_mat3x4 {
    /// Row-major elements: `m[4 * row + column]`.
    pub m: [f32; 12],
}

const _: () = assert!(size_of::<sinew_mat3x4>() == 48 && align_of::<sinew_mat3x4>() == 16);
const _: () =
    assert!(size_of::<sinew_mat3x4>() == size_of::<Mat3x4>() && align_of::<sinew_mat3x4>() == align_of::<Mat3x4>());

/// The address range of `count` values of `T` at `ptr`, or `SINEW_ERROR_BUFFER` for one past the address space.
fn span<T>(ptr: *const T, count: usize) -> Result<(usize, usize), sinew_status> {
    let start = ptr as usize;
    let end = count.checked_mul(size_of::<T>()).and_then(|bytes| start.checked_add(bytes));
    match end {
        Some(end) if end - start <= isize::MAX as usize => Ok((start, end)),
        _ => Err(SINEW_ERROR_BUFFER),
    }
}

/// Checks a buffer of `count` `C` values at `ptr` that the core reads as `count` `R` values: not NULL, aligned,
/// aligned for `R`, inside the address space. `C` and `R` have one size; `R` may need more alignment.
fn checked<C, R>(ptr: *const C, count: usize) -> Result<(), sinew_status> {
    const { assert!(size_of::<C>() == size_of::<R>() && align_of::<C>() <= align_of::<R>()) };
    if ptr.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    if !(ptr as usize).is_multiple_of(align_of::<R>()) {
        return Err(SINEW_ERROR_BUFFER);
    }
    span(ptr, count).map(|_| ())
}

/// The `count` values at `ptr` as the core's `R`.
///
/// # Safety
/// `ptr` is NULL or points to `count` readable values, not written during the call; `C` and `R` are plain
/// data of one layout.
pub(crate) unsafe fn input<'a, C, R>(ptr: *const C, count: usize) -> Result<&'a [R], sinew_status> {
    checked::<C, R>(ptr, count)?;
    // SAFETY: not NULL, aligned, in the address space (checked); readable by the caller's contract.
    Ok(unsafe { core::slice::from_raw_parts(ptr.cast::<R>(), count) })
}

/// The `count` values at `ptr` as the core's `R`, for writing. The caller checks that no other buffer of the
/// call overlaps it (`disjoint`).
///
/// # Safety
/// `ptr` is NULL or points to `count` writable values no one else uses during the call; `C` and `R` are plain
/// data of one layout.
pub(crate) unsafe fn output<'a, C, R>(ptr: *mut C, count: usize) -> Result<&'a mut [R], sinew_status> {
    checked::<C, R>(ptr, count)?;
    // SAFETY: not NULL, aligned, in the address space (checked); writable and unshared by the caller's contract.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr.cast::<R>(), count) })
}

/// `SINEW_ERROR_BUFFER` unless the buffer the call writes, `written` (a pointer and a count), shares no byte
/// with any of `read` (NULL entries are skipped): Rust's references, and the jobs' results, need it.
pub(crate) fn disjoint<W>(written: (*const W, usize), read: &[(*const u8, usize)]) -> Result<(), sinew_status> {
    let (start, end) = span(written.0, written.1)?;
    for &(ptr, bytes) in read.iter().filter(|(ptr, _)| !ptr.is_null()) {
        let (other_start, other_end) = span(ptr, bytes)?;
        if start < other_end && other_start < end {
            return Err(SINEW_ERROR_BUFFER);
        }
    }
    Ok(())
}

/// A buffer's pointer and byte length, for `disjoint`.
pub(crate) fn bytes<T>(ptr: *const T, count: usize) -> (*const u8, usize) {
    (ptr.cast(), count.saturating_mul(size_of::<T>()))
}

/// A request struct's copy, read unaligned.
///
/// # Safety
/// `request` is NULL or points to a readable `T`.
pub(crate) unsafe fn read_request<T: Copy>(request: *const T) -> Result<T, sinew_status> {
    if request.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    // SAFETY: not NULL; readable by the caller's contract.
    Ok(unsafe { request.read_unaligned() })
}

/// The status of a job's error: a caller buffer of the wrong length or layout is `SINEW_ERROR_BUFFER`, a bad
/// value in one `SINEW_ERROR_INVALID_ARGUMENT`, the rest as everywhere.
pub(crate) fn job_status(error: Error) -> sinew_status {
    match error {
        Error::BufferLength { .. }
        | Error::Stride { .. }
        | Error::VertexBufferTooShort { .. }
        | Error::AttributeOverlap { .. } => SINEW_ERROR_BUFFER,
        Error::InvalidJointWeight { .. }
        | Error::InfluenceCount { .. }
        | Error::InvalidInfluenceWeight { .. }
        | Error::AttributeMismatch { .. }
        | Error::ZeroQuaternion { .. }
        | Error::RotationLength { .. }
        | Error::NonUnitRotation { .. }
        | Error::NotAffine { .. }
        | Error::MissingPreviousTarget => SINEW_ERROR_INVALID_ARGUMENT,
        Error::InfluenceOutOfRange { .. } => SINEW_ERROR_INDEX_OUT_OF_RANGE,
        other => status_of(other),
    }
}

/// The memory a job reads through the asset, which no output may overlap: the blob and the `sinew_asset`.
pub(crate) fn read_only(asset: &StoredAsset, handle: *const sinew_asset) -> [(*const u8, usize); 2] {
    [(asset.blob.as_ptr(), asset.blob.len()), bytes(handle, 1)]
}

/// Lane groups (`sinew_soa_transform`s) of a pose of the asset's skeleton: `ceil(joints / 4)`.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `out` to a writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_num_soa_joints(asset: *const sinew_asset, out: *mut usize) -> sinew_status {
    // SAFETY: the caller's contract.
    let groups = unsafe { stored(asset) }.map(|a| a.asset.skeleton().num_soa_joints());
    // SAFETY: the caller's contract.
    unsafe { put(out, groups) }
}

/// Points `*out` at the skeleton's rest pose (`*count` lane groups, inside the blob: valid while the blob is),
/// the pose a job's missing weight falls back to.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `out` and `count` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_rest_pose(
    asset: *const sinew_asset,
    out: *mut *const sinew_soa_transform,
    count: *mut usize,
) -> sinew_status {
    if out.is_null() || count.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    match unsafe { stored(asset) } {
        Ok(asset) => {
            let rest = asset.asset.skeleton().rest_pose();
            // SAFETY: both writable by the caller's contract.
            unsafe {
                out.write(rest.as_ptr().cast());
                count.write(rest.len());
            }
            SINEW_OK
        }
        Err(status) => status,
    }
}

/// Reads joint `joint` of the `count` lane groups at `pose` into `*out`.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a joint past the pose's lanes.
///
/// # Safety
/// `pose` points to `count` readable lane groups; `out` to a writable `sinew_transform`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_pose_joint(
    pose: *const sinew_soa_transform,
    count: usize,
    joint: u32,
    out: *mut sinew_transform,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let value = unsafe { input::<_, SoaTransform>(pose, count) }.and_then(|pose| {
        let (group, lane) = (joint as usize / 4, joint as usize % 4);
        let t = pose.get(group).ok_or(SINEW_ERROR_INDEX_OUT_OF_RANGE)?.get(lane);
        let r = t.rotation;
        Ok(sinew_transform {
            translation: t.translation.to_array(),
            rotation: [r.x, r.y, r.z, r.w],
            scale: t.scale.to_array(),
        })
    });
    // SAFETY: the caller's contract.
    unsafe { put(out, value) }
}

/// Writes `*value` to joint `joint` of the `count` lane groups at `pose`; the rotation is normalized.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a joint past the pose's lanes; `SINEW_ERROR_INVALID_ARGUMENT`
/// for a value not finite or a rotation of zero length.
///
/// # Safety
/// `pose` points to `count` writable lane groups; `value` to a readable `sinew_transform`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_pose_set_joint(
    pose: *mut sinew_soa_transform,
    count: usize,
    joint: u32,
    value: *const sinew_transform,
) -> sinew_status {
    if value.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: not NULL; readable by the caller's contract.
    let v = unsafe { value.read_unaligned() };
    let [x, y, z, w] = v.rotation;
    let [tx, ty, tz] = v.translation;
    let [sx, sy, sz] = v.scale;
    // Normalizing a zero or overflowing quaternion gives non-finite components, refused with the rest.
    let joint_value = Transform {
        translation: Vec3::new(tx, ty, tz),
        rotation: Quat::new(x, y, z, w).normalize(),
        scale: Vec3::new(sx, sy, sz),
    };
    if !joint_value.is_finite() {
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: the caller's contract (`value` was read above).
    let pose = match unsafe { output::<_, SoaTransform>(pose, count) } {
        Ok(pose) => pose,
        Err(status) => return status,
    };
    let (group, lane) = (joint as usize / 4, joint as usize % 4);
    let Some(g) = pose.get_mut(group) else { return SINEW_ERROR_INDEX_OUT_OF_RANGE };
    g.set(lane, &joint_value);
    SINEW_OK
}
