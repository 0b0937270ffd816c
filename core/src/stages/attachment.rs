//! Attachments: an object carried by a joint (a sword in a hand, a hat on a head), and the inverse, a
//! character hanging from an object (a hand on a ledge, a harness on a rope), both read from the model
//! matrices a character update wrote.
//!
//! [`AttachJob`] gives the object's world transform: `world · model[joint] · offset`, the offset being the
//! object's transform in the joint's frame. [`HangJob`] places the character: the world transform that puts
//! the joint, carrying the same offset, onto the object, either rigidly (the character turns with the
//! object) or upright (the game keeps the character's rotation and only the position is solved). Attaching
//! an object and hanging the character from it again gives back the world transform it started from.
//!
//! Space: world (the game's), model (the character's), joint-local (the offset). Layout: AoS column-major
//! `Mat4`. Units: the skeleton's. Precision: `f32`; the inverse is the affine cofactor inverse, so offsets
//! and poses may carry scale.

use crate::error::Error;
use crate::error::{Buffer, Index};
use crate::math::{Mat4, Quat, Transform};

/// An object carried by a joint (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct AttachJob<'a> {
    /// The character's model matrices (a character update's [`crate::Character::model`]).
    pub model: &'a [Mat4],
    /// The joint carrying the object.
    pub joint: usize,
    /// The object's transform in the joint's frame.
    pub offset: &'a Mat4,
    /// The character's model-to-world transform.
    pub world: &'a Mat4,
}

/// A character hanging from an object (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct HangJob<'a> {
    /// The character's model matrices.
    pub model: &'a [Mat4],
    /// The joint that holds on.
    pub joint: usize,
    /// The object's transform in the joint's frame, as for [`AttachJob`] (where the hand grips).
    pub offset: &'a Mat4,
    /// The object's world transform.
    pub object: &'a Mat4,
    /// `None` hangs rigidly: the character's whole world transform follows the object. `Some(rotation)`
    /// keeps the character's world rotation (upright, its facing) and solves its position alone.
    pub upright: Option<Quat>,
}

/// `Some(m)` when `m` is finite and affine.
fn affine(m: &Mat4) -> Result<&Mat4, Error> {
    if m.is_finite() && m.is_affine() { Ok(m) } else { Err(Error::InvalidAttachment) }
}

/// A rotation an upright hang can keep: finite and not zero.
fn valid_upright(q: Quat) -> bool {
    q.is_finite() && q.length_squared() > 1e-12
}

fn joint_matrix(model: &[Mat4], joint: usize) -> Result<&Mat4, Error> {
    let m = model.get(joint).ok_or(Error::IndexOutOfRange { what: Index::Joint, index: joint, len: model.len() })?;
    if m.is_finite() { Ok(m) } else { Err(Error::NonFinite { buffer: Buffer::ModelMatrices, index: joint }) }
}

impl AttachJob<'_> {
    /// Checks every input in O(1), computing nothing.
    ///
    /// Errors: `IndexOutOfRange` (`Joint`); `NonFinite` (`ModelMatrices`) for the joint's matrix;
    /// `InvalidAttachment` for an offset or world transform not finite and affine.
    pub fn validate(&self) -> Result<(), Error> {
        joint_matrix(self.model, self.joint)?;
        affine(self.offset)?;
        affine(self.world)?;
        Ok(())
    }

    /// The object's world transform.
    ///
    /// Errors: those of [`AttachJob::validate`].
    pub fn run(&self) -> Result<Mat4, Error> {
        let joint = joint_matrix(self.model, self.joint)?;
        let (offset, world) = (affine(self.offset)?, affine(self.world)?);
        Ok(world.mul(&joint.mul(offset)))
    }
}

impl HangJob<'_> {
    /// Checks every input in O(1), computing nothing (a singular grip shows only when `run` inverts it).
    ///
    /// Errors: those of [`AttachJob::validate`] for the model, joint and offset; `InvalidAttachment` for an
    /// object not finite and affine, or a non-finite or zero upright rotation.
    pub fn validate(&self) -> Result<(), Error> {
        joint_matrix(self.model, self.joint)?;
        affine(self.offset)?;
        affine(self.object)?;
        match self.upright {
            Some(q) if !valid_upright(q) => Err(Error::InvalidAttachment),
            _ => Ok(()),
        }
    }

    /// The character's model-to-world transform.
    ///
    /// Errors: those of [`HangJob::validate`]; `InvalidAttachment` for a singular joint-times-offset (rigid
    /// hanging).
    pub fn run(&self) -> Result<Mat4, Error> {
        let joint = joint_matrix(self.model, self.joint)?;
        let (offset, object) = (affine(self.offset)?, affine(self.object)?);
        // The grip in model space: where the object sits relative to the character's origin.
        let grip = joint.mul(offset);
        let world = match self.upright {
            None => object.mul(&grip.inverse_affine().ok_or(Error::InvalidAttachment)?),
            Some(q) => {
                if !valid_upright(q) {
                    return Err(Error::InvalidAttachment);
                }
                let mut world = Transform { rotation: q, ..Transform::IDENTITY }.to_mat4();
                // Solve world · grip.origin = object.origin for the translation.
                let t = object.translation() - world.transform_point(grip.translation());
                world.cols[3] = [t.x, t.y, t.z, 1.0];
                world
            }
        };
        if world.is_finite() { Ok(world) } else { Err(Error::InvalidAttachment) }
    }
}
