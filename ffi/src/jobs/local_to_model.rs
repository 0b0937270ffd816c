//! Local-to-model over caller buffers: a local pose to model-space matrices, walking the asset's skeleton.

use super::{bytes, disjoint, input, job_status, output, read_only, sinew_mat4, sinew_soa_transform};
use crate::asset::{sinew_asset, stored};
use crate::status::{SINEW_OK, sinew_status};
use sinew::local_to_model::LocalToModelJob;
use sinew::math::{Mat4, SoaTransform};

/// The model-space matrices of the `count` lane groups at `local` into the `num_matrices` (the skeleton's
/// joints) at `model`, each joint's parent applied first and `root` (NULL: the identity) above every root
/// joint. Results equal the character's bit for bit.
///
/// Errors: `SINEW_ERROR_BUFFER` for a buffer misaligned, of another length, or `model` overlapping an input or
/// the blob.
///
/// # Safety
/// `asset` points to a loaded asset; `local` to `count` readable lane groups; `root` is NULL or readable;
/// `model` points to `num_matrices` writable matrices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_local_to_model(
    asset: *const sinew_asset,
    local: *const sinew_soa_transform,
    count: usize,
    root: *const sinew_mat4,
    model: *mut sinew_mat4,
    num_matrices: usize,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let stored = unsafe { stored(asset) }?;
        let written = (model.cast_const(), num_matrices);
        disjoint(written, &[bytes(local, count), bytes(root, 1)])?;
        disjoint(written, &read_only(stored, asset))?;
        // SAFETY: the caller's contract; `model` overlaps no input (checked).
        let (local, model) =
            unsafe { (input::<_, SoaTransform>(local, count)?, output::<_, Mat4>(model, num_matrices)?) };
        let root = if root.is_null() {
            None
        } else {
            // SAFETY: as `local`: one readable matrix.
            Some(unsafe { input::<_, Mat4>(root, 1) }?.first().ok_or(crate::status::SINEW_ERROR_NULL_POINTER)?)
        };
        let skeleton = stored.asset.skeleton();
        LocalToModelJob { skeleton, walk: Some(&stored.walk), local, root, model }.run().map_err(job_status)
    })();
    result.err().unwrap_or(SINEW_OK)
}
