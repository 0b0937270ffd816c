//! The character runtime: one character's whole animation state in one caller-provided block of bytes, and
//! one call per frame that advances its clocks, samples, blends, layers, inertializes and produces model
//! matrices and the skinning palette.
//!
//! **The block.** [`Character::required_bytes`] sizes it from a [`CharacterDesc`]; [`Character::new`] lays
//! the state out in it; [`Character::attach`] views an existing block again. Every section sits at an offset
//! computed from the counts in the block's header, never behind a pointer, so a block can be moved or
//! `memcpy`'d between frames (to another pool slot, another thread) and re-attached: it behaves bit for bit as
//! before. Shared, read-only data (a [`Rig`]: the [`Asset`] with its skeleton and clips, the [`Skin`](crate::data::skin::Skin), the
//! local-to-model [`GroupWalk`](crate::stages::local_to_model::GroupWalk)) is built once per asset and borrowed per call.
//! Nothing allocates: creating, resetting and dropping a character touch only the block.
//!
//! **Layers** ([`LayerKind`], Just Cause 3's stack, evaluated in order, each on the pose the previous ones
//! made): the base (layer 0) is the normalized weighted blend of its controls ([`BlendingJob`](crate::stages::blending::BlendingJob), the rest pose
//! filling in below `blending::DEFAULT_THRESHOLD`); an overlay lerps the masked joints toward the blend of its
//! own controls; additive layers apply each control's clip as a delta from the skeleton's rest pose. A
//! synced additive's controls take the base's stride phase when both clips have one ([`crate::motion::phase`]), else
//! its normalized time (the base control with the most weight leads);
//! every other control runs its own clock, so an overlay carries on across base transitions. Per joint, a
//! layer's weight is `mask_j · w_j(t)`, where a fade moves `w` from its start to its target over
//! `duration · profile_j`: a profile (a mask used as per-joint duration factors) makes the upper body lag the
//! legs (Just Cause 3's per-mask blend rates).
//!
//! **Transitions.** [`Character::transition`] switches the base to a new control with a crossfade (both
//! sampled until the old one fades out) or an inertialized cut through the [`Inertializer`] (the old control
//! stops at once; the inertializer, a post-process on the whole layered pose, removes the offset).
//! [`Character::transition_synced`] starts the new control where its stride or foot phases match the old one's,
//! so a walk-to-run switch lands on the right foot.
//!
//! **Motion matching.** A [`MotionMatcher`] (caller memory) makes the base layer motion-matched:
//! [`Character::match_motion`], after each update, reads the query's pose part from the character, searches the
//! asset's motion database on a timer and enters a better frame through the inertialized transition
//! (see [`MotionMatcher`]).
//!
//! **Cost.** Controls and layers at zero weight are not sampled (their clocks still advance). Sampling uses one
//! decode context shared by every control (a pose-sized cache per control would cost 80 bytes per joint each);
//! the block also holds the per-frame scratch poses, so a character needs nothing else.
//!
//! Layout: SoA poses and masks (`num_soa_joints` lane groups); model matrices `Mat4`, palette `Mat3x4` (AoS).
//! Space: local poses, model-space matrices. Units: seconds, weights as plain factors.
//! Errors: every call validates before it changes anything; on an `Err` the character's state (controls,
//! layers, masks, inertializer) is as it was. After a failed `update` the outputs may be partly written.

use crate::arena::Arena;
use crate::data::asset::Asset;
use crate::error::{Buffer, Error, Index, check_len};
use crate::math::{F4, Mat3x4, Mat4, SoaTransform, num_soa_joints};
use crate::motion::control::{Control, Step, Wrap};
use crate::motion::phase::{self, Footsteps, PhaseTable};
use crate::motion::root_motion::RootMotion;
use crate::stages::blending;
use crate::stages::inertialization::{Inertializer, Transition};
use crate::stages::local_to_model::LocalToModelJob;
use crate::stages::sampling::Interpolation;
use crate::stages::skinning::{Palette, SkinningJob};
use bytemuck::Zeroable;

pub use block::{BLOCK_ALIGN, Chunk};
pub use desc::{Blend, CharacterDesc, LayerDesc, LayerKind, Play, PoseEdit, Sampling, Scratch, SlotId, SyncMode};
pub use matching::{DesiredTrajectory, MatcherSettings, MotionMatcher};
pub use rig::Rig;

use block::{
    Counts, Header, LayerState, Layout, MAGIC, NONE, Parts, Slot, VERSION, check_block, read_layout, view, view_ref,
};
use frame::{MIN_PROFILE_FACTOR, base_leader, mask_index, max_factor, new_control, pending_duration};

pub use crate::limits::{MAX_CHARACTER_LAYERS, MAX_CONTROLS, MAX_CURVES, MAX_LAYER_CONTROLS, MAX_MASKS};

mod block;
mod desc;
mod frame;
mod matching;
mod rig;

/// A character over its block (see the module docs).
#[derive(Debug)]
pub struct Character<'b> {
    block: &'b mut [u8],
    /// What the header says, read once when the view is made (only this view can change the block).
    counts: Counts,
    layout: Layout,
}

impl<'b> Character<'b> {
    /// Bytes the external scratch of [`Character::update_with_scratch`] needs for `desc` (a multiple of
    /// `BLOCK_ALIGN`; a scratch sized for the largest description serves every character).
    ///
    /// Errors: as [`Character::required_bytes`].
    pub fn scratch_bytes(desc: &CharacterDesc<'_>) -> Result<usize, Error> {
        Ok(Counts::new(desc)?.scratch_layout().end)
    }

    /// Bytes the block needs for `desc` (a multiple of `BLOCK_ALIGN`).
    ///
    /// Errors: `JointCount`; `Limit` for counts past the limits in `limits`; `LayerOrder` unless layer 0 is
    /// the only `Base`.
    pub fn required_bytes(desc: &CharacterDesc<'_>) -> Result<usize, Error> {
        Ok(Counts::new(desc)?.layout().end)
    }

    /// Lays out a character with no control playing, every mask all ones and every layer at weight 1.
    ///
    /// Errors: those of [`Character::required_bytes`]; `BlockAlignment` unless the block starts on a multiple
    /// of `BLOCK_ALIGN`; `BlockSize` when it is shorter than `required_bytes`. Nothing is written on an `Err`.
    pub fn new(block: &'b mut [u8], desc: &CharacterDesc<'_>) -> Result<Character<'b>, Error> {
        let counts = Counts::new(desc)?;
        let layout = counts.layout();
        check_block(block, layout.end)?;
        let parts = layout.split(block, &counts)?;
        *parts.header = Header {
            magic: MAGIC,
            version: VERSION,
            num_joints: counts.joints as u32,
            num_skin_joints: counts.skin_joints as u32,
            num_layers: counts.layers as u32,
            num_controls: counts.controls as u32,
            num_masks: counts.masks as u32,
            num_curves: counts.curves as u32,
            inertialization: desc.inertialization.map_or(0, |s| 1 + s.code()),
            pose_offset: layout.output as u32,
            external_scratch: u32::from(desc.scratch == Scratch::External),
            sampling: counts.cache_tracks.map_or(0, |tracks| 1 + tracks as u32),
            interpolation: u32::from(counts.interpolation == Interpolation::Cubic),
            motion_slot: NONE,
            ..Header::zeroed()
        };
        let mut first = 0;
        for (state, l) in parts.layers.iter_mut().zip(desc.layers) {
            *state = LayerState::unmasked(l.kind as u32, first, l.controls as u32);
            first += l.controls as u32;
        }
        parts.controls.fill(Slot::empty());
        parts.masks.fill(F4::ONE);
        parts.curves.fill(0.0);
        parts.output.fill(SoaTransform::IDENTITY);
        // Zeroed states hold nothing; the contexts' memory is filled when a clip binds.
        parts.caches.fill(0);
        if let Some(settings) = desc.inertialization {
            Inertializer::new(&Arena::new(parts.inertializer), counts.joints, counts.curves, settings)?;
        }
        Ok(Character { block, counts, layout })
    }

    /// Views a block an earlier [`Character::new`] laid out (here or in a byte copy at `BLOCK_ALIGN`).
    ///
    /// Errors: `BlockAlignment`, `BlockSize` as for `new`; `StateMismatch` when the block does not hold a
    /// character of this build's layout (wrong magic or version, counts past the limits, inconsistent layers).
    pub fn attach(block: &'b mut [u8]) -> Result<Character<'b>, Error> {
        let (counts, layout) = read_layout(block)?;
        let parts = layout.split(block, &counts)?;
        let mut first = 0;
        for l in parts.layers.iter() {
            let kind = LayerKind::from_u32(l.kind).ok_or(Error::StateMismatch)?;
            let ok = (first == 0) == (kind == LayerKind::Base)
                && l.first_control == first
                && (1..=MAX_LAYER_CONTROLS as u32).contains(&l.num_controls)
                && (l.mask == NONE || (l.mask as usize) < counts.masks)
                && (l.profile == NONE || (l.profile as usize) < counts.masks);
            if !ok {
                return Err(Error::StateMismatch);
            }
            first += l.num_controls;
        }
        if first as usize != counts.controls {
            return Err(Error::StateMismatch);
        }
        if parts.controls.iter().any(|s| s.mask != NONE && s.mask as usize >= counts.masks) {
            return Err(Error::StateMismatch);
        }
        let pose_offset = parts.header.pose_offset as usize;
        let g = num_soa_joints(counts.joints);
        if !pose_offset.is_multiple_of(16) || pose_offset + g * size_of::<SoaTransform>() > layout.end {
            return Err(Error::StateMismatch);
        }
        if counts.inertialization.is_some() {
            Inertializer::attach(&Arena::new(parts.inertializer), counts.joints, counts.curves)?;
        }
        Ok(Character { block, counts, layout })
    }

    fn parts(&mut self) -> Result<(Parts<'_>, Counts), Error> {
        Ok((self.layout.split(self.block, &self.counts)?, self.counts))
    }

    /// Forgets the frames the controls' own sampling contexts hold ([`Sampling::PerControl`]; nothing to do
    /// with `Shared`), so the next update decodes afresh. They name their clips by the addresses of the clips'
    /// data: an asset rewritten in place (a hot reload into the same buffer) needs this, an asset at a new
    /// address does not.
    pub fn forget_sampled_frames(&mut self) -> Result<(), Error> {
        let (parts, _) = self.parts()?;
        parts.caches.fill(0);
        Ok(())
    }

    /// Stops every control, resets every layer to weight 1 unmasked and forgets the inertializer's history and
    /// the root's velocity (a teleport); masks and curves stay.
    pub fn reset(&mut self) -> Result<(), Error> {
        let (parts, counts) = self.parts()?;
        parts.controls.fill(Slot::empty());
        for l in parts.layers.iter_mut() {
            *l = LayerState::unmasked(l.kind, l.first_control, l.num_controls);
        }
        if counts.inertialization.is_some() {
            Inertializer::attach(&Arena::new(parts.inertializer), counts.joints, counts.curves)?.reset();
        }
        let header = &mut *parts.header;
        (header.root_motion, header.root_velocity, header.root_offset) =
            (RootMotion::IDENTITY, RootMotion::IDENTITY, RootMotion::IDENTITY);
        (header.root_blend, header.root_pending) = ([0.0; 2], 0.0);
        Ok(())
    }

    /// Joints of the skeleton the character was made for.
    pub fn num_joints(&self) -> usize {
        self.counts.joints
    }

    /// The character-wide index of slot `at`, after validating its layer and slot.
    fn slot_index(parts: &Parts<'_>, at: SlotId) -> Result<usize, Error> {
        let l = parts.layers.get(at.layer).ok_or(Error::IndexOutOfRange {
            what: Index::Layer,
            index: at.layer,
            len: parts.layers.len(),
        })?;
        if at.slot >= l.num_controls as usize {
            return Err(Error::IndexOutOfRange { what: Index::Slot, index: at.slot, len: l.num_controls as usize });
        }
        Ok(l.first_control as usize + at.slot)
    }

    /// Plays `play` in slot `at`, replacing what played there.
    ///
    /// Errors: `IndexOutOfRange` (layer, slot, clip, mask); `BufferLength` (`ClipJoints`) when the asset's
    /// skeleton is not the character's; the errors of [`Control::new`].
    pub fn play(&mut self, asset: &Asset<'_>, at: SlotId, play: Play) -> Result<(), Error> {
        let (parts, counts) = self.parts()?;
        let index = Self::slot_index(&parts, at)?;
        let control = new_control(asset, &counts, play)?;
        parts.controls[index] = Slot { control, before: control, mask: mask_index(play.mask, &counts)?, used: 1 };
        Ok(())
    }

    /// Stops slot `at`.
    ///
    /// Errors: `IndexOutOfRange` (layer, slot).
    pub fn stop(&mut self, at: SlotId) -> Result<(), Error> {
        let (parts, _) = self.parts()?;
        let index = Self::slot_index(&parts, at)?;
        parts.controls[index] = Slot::empty();
        Ok(())
    }

    /// The control in slot `at`, `None` when the slot is empty.
    ///
    /// Errors: `IndexOutOfRange` (layer, slot).
    pub fn control(&mut self, at: SlotId) -> Result<Option<Control>, Error> {
        let (parts, _) = self.parts()?;
        let index = Self::slot_index(&parts, at)?;
        let s = parts.controls[index];
        Ok((s.used != 0).then_some(s.control))
    }

    /// Changes the control in slot `at` with `change` (a [`Control`] setter: speed, time, fade); on an `Err`
    /// nothing changes.
    ///
    /// Errors: `IndexOutOfRange` (layer, slot, or an empty slot); whatever `change` returns.
    pub fn with_control(
        &mut self,
        at: SlotId,
        change: impl FnOnce(&mut Control) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let (parts, _) = self.parts()?;
        let index = Self::slot_index(&parts, at)?;
        let s = &mut parts.controls[index];
        if s.used == 0 {
            return Err(Error::IndexOutOfRange { what: Index::Slot, index: at.slot, len: 0 });
        }
        let mut control = s.control;
        change(&mut control)?;
        s.control = control;
        Ok(())
    }

    /// The step the control in slot `at` took in the last update, for its markers ([`Step::crossings`]);
    /// `None` for an empty slot or before the first update. Synced controls report the step their own clock
    /// would have taken (their time follows the base instead).
    ///
    /// Errors: `IndexOutOfRange` (layer, slot).
    pub fn last_step(&mut self, at: SlotId) -> Result<Option<Step>, Error> {
        let (parts, _) = self.parts()?;
        let index = Self::slot_index(&parts, at)?;
        let s = parts.controls[index];
        if s.used == 0 || parts.header.updates == 0 {
            return Ok(None);
        }
        Ok(Some(s.before.advanced(parts.header.last_dt)?.1))
    }

    /// Switches the base layer to `play` in slot `slot` (see the module docs).
    ///
    /// Errors: those of [`Character::play`]; `InvalidFade` for a bad crossfade duration; `NoInertializer`
    /// for an inertialized blend on a character without one; the inertializer's request errors. Nothing
    /// changes on an `Err`.
    pub fn transition(&mut self, asset: &Asset<'_>, slot: usize, play: Play, blend: Blend<'_>) -> Result<(), Error> {
        let (parts, counts) = self.parts()?;
        let index = Self::slot_index(&parts, SlotId::base(slot))?;
        let mut control = new_control(asset, &counts, play)?;
        let mask = mask_index(play.mask, &counts)?;
        let base = parts.layers[0];
        let others =
            (base.first_control as usize..(base.first_control + base.num_controls) as usize).filter(|&i| i != index);
        match blend {
            Blend::Cut => others.for_each(|i| parts.controls[i] = Slot::empty()),
            Blend::Crossfade { duration } => {
                let weight = control.weight();
                let mut faded = [Slot::zeroed(); MAX_LAYER_CONTROLS];
                for (k, i) in others.clone().enumerate() {
                    faded[k] = parts.controls[i];
                    faded[k].control.fade_to(0.0, duration)?;
                }
                control = Control::new(
                    control.clip(),
                    control.duration(),
                    control.wrap(),
                    control.time(),
                    control.speed(),
                    0.0,
                )?;
                control.fade_to(weight, duration)?;
                for (k, i) in others.enumerate() {
                    parts.controls[i] = faded[k];
                }
            }
            Blend::Inertialize(transition) => {
                if counts.inertialization.is_none() {
                    return Err(Error::NoInertializer);
                }
                Inertializer::attach(&Arena::new(parts.inertializer), counts.joints, counts.curves)?
                    .request(&transition)?;
                parts.header.root_pending = pending_duration(parts.header.root_pending, transition.duration);
                others.for_each(|i| parts.controls[i] = Slot::empty());
            }
        }
        parts.controls[index] = Slot { control, before: control, mask, used: 1 };
        Ok(())
    }

    /// Where a base transition into `clip` (played with `wrap`) starts under `sync`, matched against the base
    /// control with the most weight; `None` when nothing is matched, and the authored start time stands: no
    /// sync, no base control, either clip without a phase table (no stride, or feet that never plant), the
    /// target's "match in" or the source's "match out" flag off, or, for foot phases, a source time outside its
    /// footsteps or no target frame between footsteps of both feet. A source that loops continues its
    /// footsteps across the wrap; so does the target when `wrap` is `Loop`.
    ///
    /// Cost: O(1) for `Phase`; O(target frames + both clips' markers) for `FootPhase`.
    pub fn synced_time(
        &mut self,
        asset: &Asset<'_>,
        clip: usize,
        wrap: Wrap,
        sync: SyncMode,
    ) -> Result<Option<f32>, Error> {
        if sync == SyncMode::None {
            return Ok(None);
        }
        let (parts, _) = self.parts()?;
        let Some(leader) = base_leader(parts.controls, &parts.layers[0]).map(|i| parts.controls[i].control) else {
            return Ok(None);
        };
        let source_clip = leader.clip() as usize;
        let (Some(source), Some(target)) = (PhaseTable::of(asset, source_clip), PhaseTable::of(asset, clip)) else {
            return Ok(None);
        };
        if !(source.matches_out() && target.matches_in()) {
            return Ok(None);
        }
        if sync == SyncMode::Phase {
            return Ok(Some(target.time_at(source.phase_at(leader.time()))));
        }
        let feet = |table: &PhaseTable<'_>, clip, looping| table.feet().map(|f| Footsteps::of(asset, clip, f, looping));
        let [Some(l), Some(r)] = feet(&source, source_clip, leader.wrap() == Wrap::Loop) else { return Ok(None) };
        let (Some(left), Some(right)) = (l.phase_at(leader.time()), r.phase_at(leader.time())) else {
            return Ok(None);
        };
        let [Some(l), Some(r)] = feet(&target, clip, wrap == Wrap::Loop) else { return Ok(None) };
        Ok(phase::match_foot_phase([&l, &r], target.sample_rate(), [left, right], 0.0..=f32::MAX).map(|m| m.time))
    }

    /// [`Character::transition`] starting where [`Character::synced_time`] says (the `play`'s own time when it
    /// matches nothing). Returns the start time used.
    ///
    /// Errors: those of [`Character::transition`].
    pub fn transition_synced(
        &mut self,
        asset: &Asset<'_>,
        slot: usize,
        play: Play,
        blend: Blend<'_>,
        sync: SyncMode,
    ) -> Result<f32, Error> {
        let time = self.synced_time(asset, play.clip, play.wrap, sync)?.unwrap_or(play.time);
        self.transition(asset, slot, Play { time, ..play }, blend)?;
        Ok(time)
    }

    /// Where the root motion comes from: `None` (the default), the base layer's controls blended by their
    /// weights; `Some(slot)`, that base slot's control alone at full weight while the pose still blends them
    /// all (Just Cause 3's pose-only blending: a turn blended in for its look, the motion kept from the run).
    /// When the slot plays nothing, the blend.
    ///
    /// Errors: `IndexOutOfRange` (slot).
    pub fn set_motion_slot(&mut self, slot: Option<usize>) -> Result<(), Error> {
        let (parts, _) = self.parts()?;
        parts.header.motion_slot = match slot {
            Some(slot) => {
                (Self::slot_index(&parts, SlotId::base(slot))? - parts.layers[0].first_control as usize) as u32
            }
            None => NONE,
        };
        Ok(())
    }

    /// Asks the inertializer for a transition on the next update (after the caller changed controls its own
    /// way).
    ///
    /// Errors: `NoInertializer`; the errors of [`Inertializer::request`].
    pub fn inertialize(&mut self, transition: &Transition<'_>) -> Result<(), Error> {
        let (parts, counts) = self.parts()?;
        if counts.inertialization.is_none() {
            return Err(Error::NoInertializer);
        }
        Inertializer::attach(&Arena::new(parts.inertializer), counts.joints, counts.curves)?.request(transition)?;
        parts.header.root_pending = pending_duration(parts.header.root_pending, transition.duration);
        Ok(())
    }

    /// Sets bone mask `mask` (per-joint factors, SoA, finite and ≥ 0, and > 0 while a layer fades by it;
    /// padding lanes ignored).
    ///
    /// Errors, the mask unchanged: `IndexOutOfRange` (mask); `BufferLength` (`JointWeights`);
    /// `InvalidMaskWeight`.
    pub fn set_mask(&mut self, mask: usize, weights: &[F4]) -> Result<(), Error> {
        let (parts, counts) = self.parts()?;
        let g = num_soa_joints(counts.joints);
        if mask >= counts.masks {
            return Err(Error::IndexOutOfRange { what: Index::Mask, index: mask, len: counts.masks });
        }
        check_len(Buffer::JointWeights, g, weights.len())?;
        let is_profile = parts.layers.iter().any(|l| l.profile == mask as u32);
        let min = if is_profile { MIN_PROFILE_FACTOR } else { 0.0 };
        if let Some(joint) = blending::first_invalid_joint_weight(weights, counts.joints, min) {
            return Err(Error::InvalidMaskWeight { mask, joint });
        }
        parts.masks[mask * g..][..g].copy_from_slice(weights);
        // A layer fading by this profile keeps its slowest joint's factor.
        for l in parts.layers.iter_mut().filter(|l| l.profile == mask as u32) {
            l.max_profile = max_factor(weights, counts.joints);
        }
        Ok(())
    }

    /// Fades layer `layer`'s weight to `target` over `duration` seconds (times its profile per joint).
    /// A fade started mid-fade starts from the weight at profile factor 1.
    ///
    /// Errors: `IndexOutOfRange` (layer); `InvalidFade`.
    pub fn fade_layer(&mut self, layer: usize, target: f32, duration: f32) -> Result<(), Error> {
        let (parts, _) = self.parts()?;
        let len = parts.layers.len();
        let l = parts.layers.get_mut(layer).ok_or(Error::IndexOutOfRange { what: Index::Layer, index: layer, len })?;
        if !(target.is_finite() && target >= 0.0 && duration.is_finite() && duration >= 0.0) {
            return Err(Error::InvalidFade);
        }
        *l = LayerState { from: l.weight_at(1.0), to: target, duration, elapsed: 0.0, ..*l };
        Ok(())
    }

    /// Sets layer `layer`'s bone mask (`None`: every joint) and fade profile (per-joint duration factors,
    /// `None`: 1 everywhere; its real joints' factors must be finite and > 0).
    ///
    /// Errors: `IndexOutOfRange` (layer, mask); `InvalidMaskWeight` for a profile factor that is 0.
    pub fn set_layer_masks(&mut self, layer: usize, mask: Option<usize>, profile: Option<usize>) -> Result<(), Error> {
        let (parts, counts) = self.parts()?;
        let len = parts.layers.len();
        let (mask, profile) = (mask_index(mask, &counts)?, mask_index(profile, &counts)?);
        let g = num_soa_joints(counts.joints);
        let max_profile = if profile == NONE {
            1.0
        } else {
            let factors = &parts.masks[profile as usize * g..][..g];
            if let Some(joint) = blending::first_invalid_joint_weight(factors, counts.joints, MIN_PROFILE_FACTOR) {
                return Err(Error::InvalidMaskWeight { mask: profile as usize, joint });
            }
            max_factor(factors, counts.joints)
        };
        let l = parts.layers.get_mut(layer).ok_or(Error::IndexOutOfRange { what: Index::Layer, index: layer, len })?;
        *l = LayerState { mask, profile, max_profile, ..*l };
        Ok(())
    }

    /// The target values of the scalar curves, set by the game before each update (the inertializer smooths
    /// them on transitions).
    pub fn curves_mut(&mut self) -> Result<&mut [f32], Error> {
        let (parts, counts) = self.parts()?;
        Ok(&mut parts.curves[..counts.curves])
    }

    /// Advances every clock by `dt` and produces this frame's pose, model matrices and palette.
    ///
    /// Errors, with the state unchanged: `InvalidTimeStep`; `BufferLength` (`ClipJoints` for an asset of
    /// another skeleton, `SkinningPalette` for a missing skin or one of another size); `ForeignAsset` for a
    /// control whose clip the asset no longer has with the same duration; `NonFinite` for a non-finite curve
    /// target; `MissingScratch` for a character whose scratch is external (use
    /// [`Character::update_with_scratch`]); the errors of the kernels (which a validated asset does not cause).
    pub fn update(&mut self, dt: f32, rig: &Rig<'_>) -> Result<(), Error> {
        self.update_inner(dt, rig, Some(None), true)
    }

    /// [`Character::update`] without the palette, for a frame a post-process finishes: [`Character::edit_pose`]
    /// computes the palette once, after the edit, where `update` then `edit_pose` would compute it twice. The
    /// pose, model matrices, root motion and steps are `update`'s; the palette keeps the last one computed
    /// until the edit. `scratch` is the external scratch, as for [`Character::update_with_scratch`].
    ///
    /// Errors: those of `update` (and `update_with_scratch` with a scratch).
    pub fn update_unskinned(&mut self, dt: f32, rig: &Rig<'_>, scratch: Option<&mut [u8]>) -> Result<(), Error> {
        self.update_inner(dt, rig, Some(scratch), false)
    }

    /// Advances every clock by `dt` and records the root motion and the steps (for markers) as
    /// [`Character::update`] does, without producing a pose: for characters that move but are not seen
    /// (textbook: motion without rendering). Nothing is sampled but the motion root's track; the pose, model
    /// matrices and palette keep the last full update's values, and the inertializer forgets its history (the
    /// next full update shows its target, with no transition from a pose long gone).
    ///
    /// Errors: those of `update` but the scratch's; the character is unchanged on an `Err`.
    pub fn update_motion(&mut self, dt: f32, rig: &Rig<'_>) -> Result<(), Error> {
        self.update_inner(dt, rig, None, false)
    }

    /// [`Character::update`] with the per-frame scratch in `scratch` (aligned to `BLOCK_ALIGN`, at least
    /// [`Character::scratch_bytes`] long; its contents do not matter and are left undefined). A character
    /// whose scratch is in its block uses `scratch` instead.
    ///
    /// Errors: those of `update`; `BlockAlignment` and `BlockSize` for the scratch.
    pub fn update_with_scratch(&mut self, dt: f32, rig: &Rig<'_>, scratch: &mut [u8]) -> Result<(), Error> {
        self.update_inner(dt, rig, Some(Some(scratch)), true)
    }

    /// A post-process on the last update's pose (IK, foot planting, a look-at): `edit` gets the skeleton, the
    /// model matrices and the local pose; once it returns, the model matrices and the palette are computed
    /// again from the local pose, so everything below an edited joint follows and the outputs stay one pose.
    /// The edited pose is what the character shows, and what the inertializer's next transition starts from.
    ///
    /// Errors: `BufferLength` as for [`Character::update`] (another skeleton, a missing skin); whatever `edit`
    /// returns (the outputs are still recomputed from what it left: the jobs write nothing on their own `Err`).
    pub fn edit_pose<R>(
        &mut self,
        rig: &Rig<'_>,
        edit: impl FnOnce(PoseEdit<'_>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let block_start = self.block.as_ptr() as usize;
        let (parts, counts) = self.parts()?;
        let skin = rig.skin_for(&counts)?;
        let skeleton = rig.asset().skeleton();
        let g = num_soa_joints(counts.joints);
        let at = block_start + parts.header.pose_offset as usize;
        // The pose is the output section or the inertializer's newest history entry.
        let pose: &mut [SoaTransform] = if at == parts.output.as_ptr() as usize {
            parts.output
        } else {
            let start = at.checked_sub(parts.inertializer.as_ptr() as usize).ok_or(Error::StateMismatch)?;
            let bytes = parts.inertializer.get_mut(start..start + g * size_of::<SoaTransform>());
            view(bytes.ok_or(Error::StateMismatch)?)?
        };
        let model: &mut [Mat4] = view(&mut parts.model[..counts.joints * size_of::<Mat4>()])?;
        let edited = edit(PoseEdit { skeleton, model: &mut *model, local: &mut *pose });
        LocalToModelJob { skeleton, walk: Some(rig.walk()), local: pose, root: None, model: &mut *model }.run()?;
        if let Some(skin) = skin {
            SkinningJob { skin, model, palette: Palette::Rows(parts.palette) }.run()?;
        }
        edited
    }

    /// The share of layer `layer`'s weight held by controls whose clip carries a range named `name` (a foot
    /// plant `plant:<joint>`, a segment) around the control's current time: 1 when every weighted control is
    /// inside such a range, 0 when none is (or nothing plays).
    ///
    /// Errors: `IndexOutOfRange` (`Layer`); `ForeignAsset` for a control whose clip the asset lacks.
    pub fn range_weight(&mut self, asset: &Asset<'_>, layer: usize, name: &str) -> Result<f32, Error> {
        let (parts, _) = self.parts()?;
        let len = parts.layers.len();
        let l = parts.layers.get(layer).ok_or(Error::IndexOutOfRange { what: Index::Layer, index: layer, len })?;
        let slots = &parts.controls[l.first_control as usize..(l.first_control + l.num_controls) as usize];
        let (mut inside, mut total) = (0.0f32, 0.0f32);
        for s in slots.iter().filter(|s| s.used != 0) {
            let (clip, time, weight) = (s.control.clip() as usize, s.control.time(), s.control.weight());
            if clip >= asset.num_clips() {
                return Err(Error::ForeignAsset { clip });
            }
            let covers =
                |r: &crate::data::asset::Range| asset.name(r.name) == Some(name) && r.start <= time && time <= r.end;
            if asset.ranges(clip).iter().any(covers) {
                inside += weight;
            }
            total += weight;
        }
        Ok(if total > 0.0 { inside / total } else { 0.0 })
    }

    /// What the last update moved the character by, in its own space before the move: the base layer's root
    /// motion (see [`root_motion`](crate::motion::root_motion)), each playing control's step motion weighted by its weight. The identity
    /// when the asset's skeleton has no motion root, or before the first update. The game applies it to the
    /// character's world transform; the pose keeps the motion root at the identity.
    pub fn root_motion(&self) -> RootMotion {
        view_ref::<Header>(&self.block[..size_of::<Header>().min(self.block.len())])
            .ok()
            .and_then(|h| h.first())
            .map_or(RootMotion::IDENTITY, |h| h.root_motion)
    }

    /// The last update's local pose (SoA, `num_soa_joints` lane groups; identity before the first update).
    pub fn pose(&self) -> &[SoaTransform] {
        let counts = self.counts;
        let at = view_ref::<Header>(&self.block[..size_of::<Header>()])
            .ok()
            .and_then(|h| h.first())
            .map_or(0, |h| h.pose_offset as usize);
        let len = num_soa_joints(counts.joints) * size_of::<SoaTransform>();
        self.block.get(at..at + len).and_then(|b| view_ref(b).ok()).unwrap_or(&[])
    }

    /// The last update's model-space matrices, one per joint.
    pub fn model(&self) -> &[Mat4] {
        let (counts, layout) = (self.counts, self.layout);
        let len = counts.joints * size_of::<Mat4>();
        self.block.get(layout.model..layout.model + len).and_then(|b| view_ref(b).ok()).unwrap_or(&[])
    }

    /// The last update's skinning palette (`Mat3x4` rows, one per skin joint; empty without a skin).
    pub fn palette(&self) -> &[Mat3x4] {
        let (counts, layout) = (self.counts, self.layout);
        let len = counts.skin_joints * size_of::<Mat3x4>();
        self.block.get(layout.palette..layout.palette + len).and_then(|b| view_ref(b).ok()).unwrap_or(&[])
    }

    /// Frames the character's sampling has decoded since it was made: the cost counter zero-weight skipping
    /// is checked with.
    pub fn decoded_frames(&self) -> u64 {
        view_ref::<Header>(&self.block[..size_of::<Header>().min(self.block.len())])
            .ok()
            .and_then(|h| h.first())
            .map_or(0, |h| u64::from(h.decoded_frames[0]) | (u64::from(h.decoded_frames[1]) << 32))
    }
}
