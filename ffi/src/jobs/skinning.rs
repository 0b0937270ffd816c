//! The skinning palette over caller buffers: each skin joint's model matrix times its inverse bind matrix, in
//! the GPU's three-row layout or as 4×4 matrices for CPU vertex skinning.

use super::{bytes, disjoint, input, job_status, output, read_only, sinew_mat3x4, sinew_mat4};
use crate::asset::{sinew_asset, stored};
use crate::status::{SINEW_ERROR_INVALID_ARGUMENT, SINEW_OK, sinew_status};
use sinew::math::{Mat3x4, Mat4};
use sinew::skinning::{Palette, SkinningJob};

/// Runs the skinning job of `asset`'s skin into `palette`, checking the buffers.
///
/// # Safety
/// As `sinew_skinning_palette_3x4`, for `C` entries of the core's `R`.
unsafe fn palette_into<C, R>(
    asset: *const sinew_asset,
    model: *const sinew_mat4,
    num_matrices: usize,
    palette: *mut C,
    num_palette: usize,
    entries: for<'p> fn(&'p mut [R]) -> Palette<'p>,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let stored = unsafe { stored(asset) }?;
        let skin = stored.asset.skin().ok_or(SINEW_ERROR_INVALID_ARGUMENT)?;
        let written = (palette.cast_const(), num_palette);
        disjoint(written, &[bytes(model, num_matrices)])?;
        disjoint(written, &read_only(stored, asset))?;
        // SAFETY: the caller's contract; `palette` overlaps no input (checked).
        let (model, palette) =
            unsafe { (input::<_, Mat4>(model, num_matrices)?, output::<C, R>(palette, num_palette)?) };
        SkinningJob { skin, model, palette: entries(palette) }.run().map_err(job_status)
    })();
    result.err().unwrap_or(SINEW_OK)
}

/// The skinning palette of the asset's skin from the `num_matrices` model matrices at `model` (the skeleton's
/// joints) into the `num_palette` (the skin's joints, `sinew_asset_num_skin_joints`) at `palette`, in the GPU's
/// three-row layout. Results equal the character's palette bit for bit.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for an asset without a skin; `SINEW_ERROR_BUFFER` for a buffer
/// misaligned, of another length, or `palette` overlapping `model` or the blob.
///
/// # Safety
/// `asset` points to a loaded asset; `model` to `num_matrices` readable matrices; `palette` to `num_palette`
/// writable ones.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_skinning_palette_3x4(
    asset: *const sinew_asset,
    model: *const sinew_mat4,
    num_matrices: usize,
    palette: *mut sinew_mat3x4,
    num_palette: usize,
) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { palette_into::<_, Mat3x4>(asset, model, num_matrices, palette, num_palette, |p| Palette::Rows(p)) }
}

/// `sinew_skinning_palette_3x4` into 4×4 column-major matrices, the palette `sinew_skin_vertices` takes.
///
/// # Safety
/// As `sinew_skinning_palette_3x4`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_skinning_palette(
    asset: *const sinew_asset,
    model: *const sinew_mat4,
    num_matrices: usize,
    palette: *mut sinew_mat4,
    num_palette: usize,
) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { palette_into::<_, Mat4>(asset, model, num_matrices, palette, num_palette, |p| Palette::Matrices(p)) }
}
