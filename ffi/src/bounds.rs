//! Bounds for culling: the union of caller-given joint boxes in the character's last pose.

use crate::character::{attach, sinew_character};
use crate::status::{SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NULL_POINTER, SINEW_OK, sinew_status, status_of};
use core::mem::{align_of, size_of};
use sinew::bounds::{BoundsJob, JointBounds, JointBox};

/// One joint's box in the joint's own space, for `sinew_character_bounds`.
///
/// Layout: 32 bytes, 16-byte aligned.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct sinew_joint_box {
    /// The box's center, in the joint's space.
    pub center: [f32; 3],
    /// The skeleton joint whose model matrix carries the box.
    pub joint: u32,
    /// Half the box's size along each of the joint's axes, `>= 0`.
    pub half_extent: [f32; 3],
    /// Not read; zero.
    pub reserved: u32,
}

const _: () = assert!(size_of::<sinew_joint_box>() == 32 && align_of::<sinew_joint_box>() == 16);
const _: () = assert!(size_of::<sinew_joint_box>() == size_of::<JointBox>());

/// The model-space box around the character's joint boxes in its last update's pose (for culling):
/// `min[3]` and `max[3]`, in the model space of `sinew_character_model_matrices`. Each box is carried by its
/// joint's model matrix; joints that move no vertex need none.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for no boxes or more than the skeleton's joints, or a box with a NaN,
/// infinite or negative half extent; `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a box's joint past the skeleton's.
///
/// # Safety
/// `character` points to an initialized character; `boxes` to `num_boxes` readable boxes; `min` and `max` to
/// three writable floats each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_bounds(
    character: *mut sinew_character,
    boxes: *const sinew_joint_box,
    num_boxes: usize,
    min: *mut f32,
    max: *mut f32,
) -> sinew_status {
    if boxes.is_null() || min.is_null() || max.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    if !(boxes as usize).is_multiple_of(align_of::<sinew_joint_box>()) {
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: the caller's contract.
    let character = match unsafe { attach(character) } {
        Ok(c) => c,
        Err(status) => return status,
    };
    if num_boxes == 0 || num_boxes > character.num_joints() {
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: aligned (checked) and `num_boxes` readable by the caller's contract; `sinew_joint_box` and
    // `JointBox` have one layout (both `repr(C)`, the same fields; sizes asserted).
    let boxes = unsafe { core::slice::from_raw_parts(boxes.cast::<JointBox>(), num_boxes) };
    let result = JointBounds::new(character.num_joints(), boxes)
        .and_then(|bounds| BoundsJob { bounds: &bounds, model: character.model(), boxes: None }.run());
    match result {
        Ok(union) => {
            // SAFETY: checked not NULL; three writable floats each by the caller's contract.
            unsafe {
                min.cast::<[f32; 3]>().write_unaligned(union.min);
                max.cast::<[f32; 3]>().write_unaligned(union.max);
            }
            SINEW_OK
        }
        Err(e) => status_of(e),
    }
}
