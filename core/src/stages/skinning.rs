//! Skinning matrices: `model[remap[i]] * inverse_bind[i]` for each joint of a skin.
//!
//! A skin's joint list need not match the skeleton (glTF skins list a subset, in their own order), so each
//! skin joint names its skeleton joint through `joint_remap`. Output is either a `Mat4` palette (column-major)
//! or the 48-byte `Mat3x4` rows GPU shaders read.
//!
//! Layout: AoS in and out. Space: model-space matrices in; the palette maps bind-pose model space to the
//! current model space. Inverse bind matrices are kept as `Mat3x4` (affine, row-major): then both palette
//! layouts come out with broadcast loads and multiply-adds only, no transposes.
//!
//! Errors: lengths are checked per call (O(1)); remap range and finite affine inverse binds once, in
//! [`Skin::new`]; non-finite model matrices are caught by a fused check on the output (on such an `Err` the
//! palette may be partly written).

pub use crate::data::skin::Skin;
use crate::error::{Buffer, Error};
use crate::math::{F4, Mat3x4, Mat4};

kernels!();

impl Skin<'_> {
    /// Turns the fused output sum into an error naming the first non-finite model matrix the skin reads.
    #[inline(always)]
    fn finish(&self, model: &[Mat4], sum: F4) -> Result<(), Error> {
        if sum.non_finite_mask().any_set() { self.first_non_finite(model) } else { Ok(()) }
    }

    #[cold]
    fn first_non_finite(&self, model: &[Mat4]) -> Result<(), Error> {
        match self.joint_remap().iter().find(|&&j| !model[j as usize].is_finite()) {
            Some(&joint) => Err(Error::NonFinite { buffer: Buffer::ModelMatrices, index: joint as usize }),
            // The sum overflowed on finite values near f32::MAX: the palette is what the inputs give.
            None => Ok(()),
        }
    }
}

/// The layout a [`SkinningJob`] writes: column-major `Mat4`s, or three rows (`Mat3x4`, 48 bytes, the GPU layout).
#[derive(Debug)]
pub enum Palette<'a> {
    /// `Mat4`s, column-major.
    Matrices(&'a mut [Mat4]),
    /// `Mat3x4` rows, the 48-byte layout GPU shaders read.
    Rows(&'a mut [Mat3x4]),
}

impl Palette<'_> {
    fn len(&self) -> usize {
        match self {
            Palette::Matrices(p) => p.len(),
            Palette::Rows(p) => p.len(),
        }
    }
}

/// `palette[i] = model[remap[i]] * inverse_bind[i]` for each joint of a skin (ozz's job pattern: borrowed
/// buffers in public fields, `validate`, then `run`).
#[derive(Debug)]
pub struct SkinningJob<'a> {
    /// The skin.
    pub skin: &'a Skin<'a>,
    /// Model-space matrices, one per skeleton joint.
    pub model: &'a [Mat4],
    /// One entry per skin joint.
    pub palette: Palette<'a>,
}

impl SkinningJob<'_> {
    /// O(1) checks.
    ///
    /// Errors: `BufferLength` (`ModelMatrices`: must be `num_skeleton_joints`; `SkinningPalette`: must be the
    /// skin's `num_joints`).
    pub fn validate(&self) -> Result<(), Error> {
        crate::error::check_len(Buffer::ModelMatrices, self.skin.num_skeleton_joints(), self.model.len())?;
        crate::error::check_len(Buffer::SkinningPalette, self.skin.num_joints(), self.palette.len())
    }

    /// Writes the palette.
    ///
    /// Errors: those of `validate`; `NonFinite` (`ModelMatrices`, skeleton joint) for the first non-finite
    /// source matrix (the palette may then be partly written).
    pub fn run(&mut self) -> Result<(), Error> {
        self.validate()?;
        let (skin, model) = (self.skin, self.model);
        let sum = match &mut self.palette {
            Palette::Matrices(p) => kernels::palette(skin.joint_remap(), skin.inverse_bind(), model, p),
            Palette::Rows(p) => kernels::palette_3x4(skin.joint_remap(), skin.inverse_bind(), model, p),
        };
        skin.finish(model, sum)
    }
}
