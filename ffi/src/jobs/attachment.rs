//! Attachments over a pose's model matrices: where an object a joint carries is in the world, and where the
//! character goes when it hangs from an object.

use super::{input, read_request, sinew_mat4};
use crate::status::{SINEW_ERROR_NULL_POINTER, SINEW_OK, sinew_status, status_of};
use sinew::attachment::{AttachJob, HangJob};
use sinew::error::Error;
use sinew::math::{Mat4, Quat};

/// The matrix at `m`, read unaligned.
///
/// # Safety
/// `m` is NULL or readable.
unsafe fn matrix(m: *const sinew_mat4) -> Result<Mat4, sinew_status> {
    // SAFETY: the caller's contract.
    let m = unsafe { read_request(m) }?;
    Ok(Mat4 { cols: core::array::from_fn(|c| core::array::from_fn(|r| m.m[4 * c + r])) })
}

/// Writes `answer` to `out` as a `sinew_mat4`.
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn answer(out: *mut sinew_mat4, answer: Result<Mat4, Error>) -> sinew_status {
    if out.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    match answer {
        Ok(m) => {
            let m = sinew_mat4 { m: core::array::from_fn(|k| m.cols[k / 4][k % 4]) };
            // SAFETY: not NULL; writable by the caller's contract.
            unsafe { out.write_unaligned(m) };
            SINEW_OK
        }
        Err(e) => status_of(e),
    }
}

/// The world transform of an object carried by joint `joint`: `world · model[joint] · offset`, `offset` being
/// the object's transform in the joint's frame and `world` the character's model-to-world transform (a sword
/// in a hand, a hat on a head). Reads the `num_matrices` model matrices at `model` (a character's or a job's).
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (joint); `SINEW_ERROR_INVALID_ARGUMENT` for the joint's matrix
/// not finite, or an offset or world transform not finite and affine; `SINEW_ERROR_BUFFER` for `model`
/// misaligned.
///
/// # Safety
/// `model` points to `num_matrices` readable matrices; `offset` and `world` are readable; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_attach(
    model: *const sinew_mat4,
    num_matrices: usize,
    joint: u32,
    offset: *const sinew_mat4,
    world: *const sinew_mat4,
    out: *mut sinew_mat4,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let inputs = unsafe { (input::<_, Mat4>(model, num_matrices), matrix(offset), matrix(world)) };
    let (model, offset, world) = match inputs {
        (Ok(model), Ok(offset), Ok(world)) => (model, offset, world),
        (Err(s), _, _) | (_, Err(s), _) | (_, _, Err(s)) => return s,
    };
    let job = AttachJob { model, joint: joint as usize, offset: &offset, world: &world };
    // SAFETY: the caller's contract.
    unsafe { answer(out, job.run()) }
}

/// The character's model-to-world transform that puts joint `joint`, carrying `offset` as for
/// `sinew_attach`, onto `object`'s world transform (a hand on a ledge): rigidly when `upright` is NULL (the
/// character turns with the object), else keeping the world rotation `upright` (x, y, z, w) and solving the
/// position alone. Hanging from what `sinew_attach` gave returns the `world` it was given.
///
/// Errors: those of `sinew_attach`; `SINEW_ERROR_INVALID_ARGUMENT` for an `upright` not finite or zero, or a
/// grip that cannot be inverted.
///
/// # Safety
/// As `sinew_attach`; `upright` is NULL or points to four readable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_hang(
    model: *const sinew_mat4,
    num_matrices: usize,
    joint: u32,
    offset: *const sinew_mat4,
    object: *const sinew_mat4,
    upright: *const f32,
    out: *mut sinew_mat4,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let inputs = unsafe { (input::<_, Mat4>(model, num_matrices), matrix(offset), matrix(object)) };
    let (model, offset, object) = match inputs {
        (Ok(model), Ok(offset), Ok(object)) => (model, offset, object),
        (Err(s), _, _) | (_, Err(s), _) | (_, _, Err(s)) => return s,
    };
    let upright = if upright.is_null() {
        None
    } else {
        // SAFETY: four readable floats by the caller's contract.
        let [x, y, z, w] = unsafe { upright.cast::<[f32; 4]>().read_unaligned() };
        Some(Quat::new(x, y, z, w))
    };
    let job = HangJob { model, joint: joint as usize, offset: &offset, object: &object, upright };
    // SAFETY: the caller's contract.
    unsafe { answer(out, job.run()) }
}
