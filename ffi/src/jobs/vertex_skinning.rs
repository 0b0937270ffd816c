//! CPU vertex skinning over caller vertex buffers: positions, normals and tangents at any offsets and strides,
//! packed influences, a 4×4 palette (`sinew_skinning_palette`).

use super::{bytes, disjoint, job_status, read_request, sinew_mat4};
use crate::status::{SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NULL_POINTER, SINEW_OK, sinew_status};
use core::ffi::c_void;
use core::mem::{align_of, size_of};
use sinew::math::Mat4;
use sinew::vertex_skinning::{Attribute, Influences, NormalMode, VertexLayout, VertexSkinningJob};

/// Normals by the blended matrix: right for palettes of rotations with uniform scale.
pub const SINEW_NORMALS_RIGID: u32 = 0;
/// Normals by the blended matrix's cofactor (the inverse-transpose direction): right for any palette.
pub const SINEW_NORMALS_INVERSE_TRANSPOSE: u32 = 1;
/// `SINEW_NORMALS_RIGID` when every palette matrix is a rotation with uniform scale (within 1e-4), else the
/// inverse transpose: reads the whole palette first.
pub const SINEW_NORMALS_FOR_PALETTE: u32 = 2;

/// Where a vertex buffer's attributes are, in bytes: vertex `v`'s position at `position_offset + v *
/// position_stride`, three native-endian floats; its normal likewise (three floats); its tangent four floats
/// (`w`, the handedness, copied). A stride of 0 means the buffer has no normals (tangents). No alignment is
/// required.
///
/// Layout: 48 bytes, 8-byte aligned, on 64-bit targets.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_vertex_layout {
    /// Byte offset of the first position.
    pub position_offset: usize,
    /// Bytes from one position to the next, >= 12.
    pub position_stride: usize,
    /// Byte offset of the first normal.
    pub normal_offset: usize,
    /// Bytes from one normal to the next, >= 12; 0: no normals.
    pub normal_stride: usize,
    /// Byte offset of the first tangent.
    pub tangent_offset: usize,
    /// Bytes from one tangent to the next, >= 16; 0: no tangents.
    pub tangent_stride: usize,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<sinew_vertex_layout>() == 48 && align_of::<sinew_vertex_layout>() == 8);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(size_of::<sinew_vertex_layout>() == 24 && align_of::<sinew_vertex_layout>() == 4);

impl sinew_vertex_layout {
    fn core(&self) -> VertexLayout {
        let optional = |offset, stride| (stride != 0).then_some(Attribute::new(offset, stride));
        VertexLayout {
            position: Attribute::new(self.position_offset, self.position_stride),
            normal: optional(self.normal_offset, self.normal_stride),
            tangent: optional(self.tangent_offset, self.tangent_stride),
        }
    }
}

/// Each vertex's joints (palette indices) and weights, packed: vertex `v`'s influence `k` at `v * count + k`.
///
/// Layout: 32 bytes, 8-byte aligned, on 64-bit targets.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_influences {
    /// `num_vertices * count` joint indices.
    pub joints: *const u16,
    /// `num_vertices * count` weights, finite and >= 0, used as given (normalized by the importer).
    pub weights: *const f32,
    /// Vertices.
    pub num_vertices: usize,
    /// Influences per vertex, >= 1.
    pub count: u32,
    /// Not read; zero.
    pub reserved: u32,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<sinew_influences>() == 32 && align_of::<sinew_influences>() == 8);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(size_of::<sinew_influences>() == 20 && align_of::<sinew_influences>() == 4);

/// Skins every vertex of `influences`: linear blend skinning of the positions, normals and tangents `input`
/// holds (`input_len` bytes, as `input_layout` says) by the `num_palette` matrices at `palette`, into `output`
/// (`output_len` bytes, as `output_layout` says; normals and tangents are skinned when both layouts have them).
/// `normal_mode` is one of `SINEW_NORMALS_*`. Results equal the Rust `VertexSkinningJob` bit for bit.
///
/// Errors, with nothing written: `SINEW_ERROR_INVALID_ARGUMENT` for no influences per vertex, a weight not
/// finite or negative, normals or tangents in one layout only, or an unknown normal mode;
/// `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a joint index past the palette; `SINEW_ERROR_BUFFER` for a stride
/// below its element, an attribute's last vertex past its buffer, two output attributes sharing bytes, the
/// output overlapping an input, or the palette misaligned. A result that is not finite (from a palette or an
/// input not finite, or overflow) is `SINEW_ERROR_INVALID_ARGUMENT` found after the pass: the output then holds
/// what the pass wrote.
///
/// # Safety
/// `palette` points to `num_palette` readable matrices; `influences` and the layouts are readable, and so are
/// the influences' arrays; `input` points to `input_len` readable bytes and `output` to `output_len` writable
/// ones.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments, reason = "the C call lists its buffers and their layouts")]
pub unsafe extern "C" fn sinew_skin_vertices(
    palette: *const sinew_mat4,
    num_palette: usize,
    influences: *const sinew_influences,
    normal_mode: u32,
    input: *const c_void,
    input_len: usize,
    input_layout: *const sinew_vertex_layout,
    output: *mut c_void,
    output_len: usize,
    output_layout: *const sinew_vertex_layout,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let (table, input_layout, output_layout) =
            unsafe { (read_request(influences)?, read_request(input_layout)?, read_request(output_layout)?) };
        let entries = table.num_vertices.checked_mul(table.count as usize).ok_or(SINEW_ERROR_INVALID_ARGUMENT)?;
        if input.is_null() || output.is_null() {
            return Err(SINEW_ERROR_NULL_POINTER);
        }
        let read = [
            bytes(palette, num_palette),
            bytes(table.joints, entries),
            bytes(table.weights, entries),
            bytes(input.cast::<u8>(), input_len),
        ];
        disjoint((output.cast::<u8>().cast_const(), output_len), &read)?;
        // SAFETY: the caller's contract; the output overlaps no input (checked).
        let (palette, joints, weights, input, output) = unsafe {
            (
                super::input::<_, Mat4>(palette, num_palette)?,
                super::input::<u16, u16>(table.joints, entries)?,
                super::input::<f32, f32>(table.weights, entries)?,
                super::input::<u8, u8>(input.cast(), input_len)?,
                super::output::<u8, u8>(output.cast(), output_len)?,
            )
        };
        let normal_mode = match normal_mode {
            SINEW_NORMALS_RIGID => NormalMode::Rigid,
            SINEW_NORMALS_INVERSE_TRANSPOSE => NormalMode::InverseTranspose,
            SINEW_NORMALS_FOR_PALETTE => NormalMode::for_palette(palette),
            _ => return Err(SINEW_ERROR_INVALID_ARGUMENT),
        };
        let influences = Influences::new(table.count as usize, joints, weights).map_err(job_status)?;
        VertexSkinningJob {
            palette,
            influences: &influences,
            normal_mode,
            input,
            input_layout: input_layout.core(),
            output,
            output_layout: output_layout.core(),
        }
        .run()
        .map_err(job_status)
    })();
    result.err().unwrap_or(SINEW_OK)
}
