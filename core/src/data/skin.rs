//! A skin: which skeleton joint each palette entry follows, and its inverse bind matrix. The skinning stage
//! (`stages::skinning`) reads it; the asset loader builds it from the blob's skin section.
//!
//! Layout: AoS. Space: each inverse bind matrix maps model space to the joint's bind space, stored as `Mat3x4`
//! rows (affine, row-major), so both palette layouts come out with broadcast loads and multiply-adds only.
//!
//! Errors: checked once, in [`Skin::new`].

use crate::error::{Buffer, Error};
use crate::math::{Mat3x4, Mat4};

/// A validated skin: which skeleton joint each skin joint follows, and its inverse bind matrix.
#[derive(Clone, Copy, Debug)]
pub struct Skin<'a> {
    joint_remap: &'a [u16],
    inverse_bind: &'a [Mat3x4],
    num_skeleton_joints: usize,
}

impl<'a> Skin<'a> {
    /// Checks and wraps a skin for a skeleton of `num_skeleton_joints` joints.
    ///
    /// Errors: `BufferLength` (`InverseBindMatrices`) unless both slices have the same length;
    /// `RemapOutOfRange` for the first remap entry `>= num_skeleton_joints`; `NonFinite`
    /// (`InverseBindMatrices`, index) for the first non-finite matrix; `InverseBindExtent` for the first with an
    /// entry beyond `limits::MAX_MODEL_EXTENT` in magnitude.
    pub fn new(
        num_skeleton_joints: usize,
        joint_remap: &'a [u16],
        inverse_bind: &'a [Mat3x4],
    ) -> Result<Skin<'a>, Error> {
        crate::error::check_len(Buffer::InverseBindMatrices, joint_remap.len(), inverse_bind.len())?;
        if let Some(skin_joint) = joint_remap.iter().position(|&j| j as usize >= num_skeleton_joints) {
            let joint = joint_remap[skin_joint];
            return Err(Error::RemapOutOfRange { skin_joint, joint, num_joints: num_skeleton_joints });
        }
        if let Some(index) = inverse_bind.iter().position(|m| !m.is_finite()) {
            return Err(Error::NonFinite { buffer: Buffer::InverseBindMatrices, index });
        }
        // Model matrices stay within `MAX_MODEL_EXTENT`; so bounded, their products cannot overflow.
        let bounded = |m: &Mat3x4| m.rows.iter().flatten().all(|v| v.abs() <= crate::limits::MAX_MODEL_EXTENT);
        if let Some(index) = inverse_bind.iter().position(|m| !bounded(m)) {
            return Err(Error::InverseBindExtent { index });
        }
        Ok(Skin { joint_remap, inverse_bind, num_skeleton_joints })
    }

    /// Converts column-major inverse bind matrices (glTF's layout) into the skin's row layout.
    ///
    /// Errors: `BufferLength` (`InverseBindMatrices`) unless `out.len() == mats.len()`; `NotAffine`
    /// (`InverseBindMatrices`, index) for the first matrix whose last row is not exactly `(0, 0, 0, 1)`.
    pub fn rows_from_mat4(mats: &[Mat4], out: &mut [Mat3x4]) -> Result<(), Error> {
        crate::error::check_len(Buffer::InverseBindMatrices, mats.len(), out.len())?;
        for (index, (m, o)) in mats.iter().zip(out.iter_mut()).enumerate() {
            *o = Mat3x4::from_affine(m).ok_or(Error::NotAffine { buffer: Buffer::InverseBindMatrices, index })?;
        }
        Ok(())
    }

    /// Number of skin joints (palette entries).
    #[inline]
    pub fn num_joints(&self) -> usize {
        self.joint_remap.len()
    }

    /// Joint count of the skeleton this skin was validated against.
    #[inline]
    pub fn num_skeleton_joints(&self) -> usize {
        self.num_skeleton_joints
    }

    /// Per skin joint, the skeleton joint it follows.
    #[inline]
    pub fn joint_remap(&self) -> &'a [u16] {
        self.joint_remap
    }

    /// Per skin joint, its inverse bind matrix as `Mat3x4` rows.
    #[inline]
    pub fn inverse_bind(&self) -> &'a [Mat3x4] {
        self.inverse_bind
    }

    /// Bytes an arena needs for a palette of `T` (`Mat4` or `Mat3x4`) for this skin.
    pub const fn required_bytes<T>(num_skin_joints: usize) -> usize {
        crate::arena::Arena::required_bytes::<T>(num_skin_joints)
    }
}
