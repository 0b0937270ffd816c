//! What every character of one asset shares: the rig.

use crate::data::asset::Asset;
use crate::data::skin::Skin;
use crate::error::check_len;
use crate::error::{Buffer, Error};
use crate::stages::local_to_model::GroupWalk;

use super::block::Counts;

/// What every character of one asset shares, read-only: the asset (skeleton, clips, annotations), the skin its
/// palettes are for, and the skeleton's local-to-model [`GroupWalk`], built here once rather than per character
/// or per frame. Borrowed by [`Character::update`](super::Character::update).
#[derive(Clone, Copy, Debug)]
pub struct Rig<'r> {
    asset: &'r Asset<'r>,
    skin: Option<&'r Skin<'r>>,
    walk: GroupWalk,
}

impl<'r> Rig<'r> {
    /// Errors: `BufferLength` (`ClipJoints`) for a skin of a skeleton with another joint count.
    pub fn new(asset: &'r Asset<'r>, skin: Option<&'r Skin<'r>>) -> Result<Rig<'r>, Error> {
        Rig::with_walk(asset, skin, GroupWalk::new(asset.skeleton()))
    }

    /// [`Rig::new`] with a walk built earlier for the asset's skeleton (kept beside the asset, as the C ABI's
    /// asset handle does), so a rig can be made per call at no cost.
    ///
    /// Errors: those of `new`; `ForeignWalk` for a walk built for another skeleton.
    pub fn with_walk(asset: &'r Asset<'r>, skin: Option<&'r Skin<'r>>, walk: GroupWalk) -> Result<Rig<'r>, Error> {
        if !walk.is_for(asset.skeleton()) {
            return Err(Error::ForeignWalk);
        }
        let skeleton = asset.skeleton();
        if let Some(skin) = skin {
            check_len(Buffer::ClipJoints, skeleton.num_joints(), skin.num_skeleton_joints())?;
        }
        Ok(Rig { asset, skin, walk })
    }

    /// The asset the rig's characters play.
    #[inline]
    pub fn asset(&self) -> &'r Asset<'r> {
        self.asset
    }

    /// The skin their palettes are for, if any.
    #[inline]
    pub fn skin(&self) -> Option<&'r Skin<'r>> {
        self.skin
    }

    /// The local-to-model walk of the asset's skeleton.
    #[inline]
    pub fn walk(&self) -> &GroupWalk {
        &self.walk
    }

    /// The skin a character of `counts` is palette'd with (`None` for a character without a palette), once
    /// the asset's skeleton and the skin are checked to fit it.
    pub(super) fn skin_for(&self, counts: &Counts) -> Result<Option<&'r Skin<'r>>, Error> {
        check_len(Buffer::ClipJoints, counts.joints, self.asset.skeleton().num_joints())?;
        match (self.skin, counts.skin_joints) {
            (_, 0) => Ok(None),
            (Some(skin), n) => check_len(Buffer::SkinningPalette, n, skin.num_joints()).map(|()| Some(skin)),
            (None, n) => Err(Error::BufferLength { buffer: Buffer::SkinningPalette, expected: n, actual: 0 }),
        }
    }
}
