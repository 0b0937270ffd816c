//! What a caller describes: a character's layers and counts, what to play, how to blend into it, where its
//! scratch lives, and what a pose edit borrows.

use crate::data::skeleton::Skeleton;
use crate::math::{Mat4, SoaTransform};
use crate::motion::control::Wrap;
use crate::stages::inertialization::{Settings, Transition};
use crate::stages::sampling::Interpolation;

/// What [`Character::edit_pose`](super::Character::edit_pose) lends its edit: the jobs' inputs over the character's last pose.
///
/// Layout: `local` SoA (`num_soa_joints` lane groups), `model` AoS, one per joint. Space: local and model.
#[derive(Debug)]
pub struct PoseEdit<'e> {
    /// The skeleton the pose is of.
    pub skeleton: &'e Skeleton<'e>,
    /// The model matrices of the pose before the edit; an edit may move them (foot planting shifts the
    /// pelvis's subtree); they are recomputed from `local` afterwards.
    pub model: &'e mut [Mat4],
    /// The local pose; what the edit leaves here is what the character shows.
    pub local: &'e mut [SoaTransform],
}

/// What a layer does with the pose below it (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum LayerKind {
    /// The bottom layer (layer 0, and only there): a weighted blend of its controls.
    Base = 0,
    /// Replaces the masked joints of the pose below, by the layer's weight.
    Overlay = 1,
    /// Adds its clips' deltas; its controls' time follows the base's normalized time.
    SyncedAdditive = 2,
    /// Adds its clips' deltas on their own clocks.
    OverlappingAdditive = 3,
}

impl LayerKind {
    pub(super) fn from_u32(raw: u32) -> Option<LayerKind> {
        [LayerKind::Base, LayerKind::Overlay, LayerKind::SyncedAdditive, LayerKind::OverlappingAdditive]
            .get(raw as usize)
            .copied()
    }

    pub(super) fn is_additive(self) -> bool {
        matches!(self, LayerKind::SyncedAdditive | LayerKind::OverlappingAdditive)
    }
}

/// One layer of a [`CharacterDesc`]: its kind and how many controls it can play at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerDesc {
    /// What the layer does.
    pub kind: LayerKind,
    /// Control slots, 1 to `MAX_LAYER_CONTROLS` (a crossfading base needs two).
    pub controls: usize,
}

/// What a character needs; sizes its block.
#[derive(Clone, Copy, Debug)]
pub struct CharacterDesc<'a> {
    /// The skeleton's joints (`asset.skeleton().num_joints()`).
    pub num_joints: usize,
    /// The skin's joints, 0 for no palette.
    pub num_skin_joints: usize,
    /// Layer 0 must be the one `Base`.
    pub layers: &'a [LayerDesc],
    /// Bone masks the character stores (per-joint weights, set with [`Character::set_mask`](super::Character::set_mask)).
    pub num_masks: usize,
    /// Scalar curves the game sets each frame and the inertializer smooths with the pose.
    pub num_curves: usize,
    /// `None`: no inertializer (transitions are crossfades or cuts).
    pub inertialization: Option<Settings>,
    /// Where the per-frame scratch lives.
    pub scratch: Scratch,
    /// How the controls sample their clips.
    pub sampling: Sampling,
    /// How samples between keys are made ([`Interpolation::Cubic`] doubles the sampling contexts' poses).
    pub interpolation: Interpolation,
}

/// How a character's controls sample their clips.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sampling {
    /// One sampling context in the per-frame scratch serves every control, so each update decodes two frames
    /// per playing control (a seek). Costs no block memory.
    #[default]
    Shared,
    /// A sampling context per control slot, kept in the block across updates: playing forward decodes each
    /// frame of a clip once, and a compressed clip of up to `max_tracks` animated tracks keeps its segment's
    /// decoders ([`SamplingContext::with_decoders`](crate::stages::sampling::SamplingContext::with_decoders)). Costs [`SamplingContext::required_bytes_for`](crate::stages::sampling::SamplingContext::required_bytes_for)
    /// (`num_joints`, `max_tracks`, the desc's `interpolation`) and 88 bytes per control slot (`max_tracks`
    /// clamped to `3 × num_joints`).
    PerControl {
        /// Animated tracks a compressed clip may have for its decoders to be kept.
        max_tracks: usize,
    },
}
/// How [`Character::transition`](super::Character::transition) switches the base layer to a new control.
#[derive(Clone, Copy, Debug)]
pub enum Blend<'a> {
    /// The other base controls stop at once; nothing smooths the switch.
    Cut,
    /// The other base controls fade out and the new one fades in over `duration` seconds.
    Crossfade {
        /// Seconds, finite and > 0.
        duration: f32,
    },
    /// The other base controls stop at once and the inertializer removes the offset (needs one).
    Inertialize(Transition<'a>),
}

/// How [`Character::transition_synced`](super::Character::transition_synced) chooses where the new control starts (see [`crate::motion::phase`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SyncMode {
    /// At the time the [`Play`] says.
    #[default]
    None,
    /// At the target's first time with the leading base control's stride phase (Gears of War 4).
    Phase,
    /// At the target time whose two foot phases are nearest the leading base control's (Just Cause 3).
    FootPhase,
}

/// A control slot: slot `slot` of layer `layer` (layer 0 is the base). Checked against the character's layers
/// by every method that takes one (`IndexOutOfRange`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlotId {
    /// The layer, in the order of [`CharacterDesc::layers`].
    pub layer: usize,
    /// The slot within the layer, below its [`LayerDesc::controls`].
    pub slot: usize,
}

impl SlotId {
    /// Slot `slot` of the base layer.
    pub const fn base(slot: usize) -> SlotId {
        SlotId { layer: 0, slot }
    }

    /// Slot `slot` of layer `layer`.
    pub const fn on(layer: usize, slot: usize) -> SlotId {
        SlotId { layer, slot }
    }
}

/// What to play in a control slot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Play {
    /// Clip index in the asset.
    pub clip: usize,
    /// Local start time, seconds, in `[0, duration]`.
    pub time: f32,
    /// Playback speed: 1 is the clip's own, negative plays backward.
    pub speed: f32,
    /// The control's weight, in [0, 1].
    pub weight: f32,
    /// What happens at the clip's ends.
    pub wrap: Wrap,
    /// Bone mask index (per-joint factors on this control's weight), or `None`.
    pub mask: Option<usize>,
}

impl Play {
    /// Clip `clip` from its start, at normal speed and full weight, looping, unmasked.
    pub fn looping(clip: usize) -> Play {
        Play { clip, time: 0.0, speed: 1.0, weight: 1.0, wrap: Wrap::Loop, mask: None }
    }
}

/// Where a character's per-frame scratch (sampling cache, scratch poses, layer weights: about 200 bytes per
/// joint) lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scratch {
    /// In the character's block: [`Character::update`](super::Character::update) needs nothing else.
    InBlock,
    /// In a buffer the caller passes to [`Character::update_with_scratch`](super::Character::update_with_scratch), of
    /// [`Character::scratch_bytes`](super::Character::scratch_bytes): one per thread serves a whole crowd.
    External,
}
