//! The character runtime: one character's whole animation state in one caller-provided block of bytes, and
//! one call per frame that advances its clocks, samples, blends, layers, inertializes and produces model
//! matrices and the skinning palette.
//!
//! **The block.** [`Character::required_bytes`] sizes it from a [`CharacterDesc`]; [`Character::new`] lays
//! the state out in it; [`Character::attach`] views an existing block again. Every section sits at an offset
//! computed from the counts in the block's header, never behind a pointer, so a block can be moved or
//! `memcpy`'d between frames (to another pool slot, another thread) and re-attached: it behaves bit for bit as
//! before. Shared, read-only data (a [`Rig`]: the [`Asset`] with its skeleton and clips, the [`Skin`], the
//! local-to-model [`GroupWalk`]) is built once per asset and borrowed per call.
//! Nothing allocates: creating, resetting and dropping a character touch only the block.
//!
//! **Layers** ([`LayerKind`], Just Cause 3's stack, evaluated in order, each on the pose the previous ones
//! made): the base (layer 0) is the normalized weighted blend of its controls ([`BlendingJob`], the rest pose
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
use crate::data::skeleton::Skeleton;
use crate::data::skin::Skin;
use crate::error::{Buffer, Error};
use crate::error::{Index, Limit, check_len};
use crate::math::{F4, Mat3x4, Mat4, SoaTransform, Transform, Vec3, num_soa_joints};
use crate::motion::control::{self, Control, Step, Wrap};
use crate::motion::phase::{self, Footsteps, PhaseTable};
use crate::motion::root_motion::{self, RootMotion};
use crate::stages::blending::{self, BlendLayer, BlendingJob, DEFAULT_THRESHOLD};
use crate::stages::inertialization::{InertializationJob, Inertializer, Settings, Target, Transition, VelocityMode};
use crate::stages::local_to_model::{GroupWalk, LocalToModelJob};
use crate::stages::sampling::{ContextState, Playback, SamplingContext, SamplingJob};
use crate::stages::skinning::{Palette, SkinningJob};
use bytemuck::{Pod, Zeroable};

pub use crate::limits::{MAX_CHARACTER_LAYERS, MAX_CONTROLS, MAX_CURVES, MAX_LAYER_CONTROLS, MAX_MASKS};

/// Alignment the block must have: every section starts on a multiple of it, so a copy at any address with this
/// alignment lays out identically.
pub const BLOCK_ALIGN: usize = 64;

/// `BLOCK_ALIGN` bytes at a `BLOCK_ALIGN` address: an array or `Vec` of chunks is memory a character block (or
/// an external scratch) can live in.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct Chunk(pub [u8; BLOCK_ALIGN]);

impl Chunk {
    pub const ZERO: Chunk = Chunk([0; BLOCK_ALIGN]);

    /// Chunks enough for `bytes`.
    pub const fn count(bytes: usize) -> usize {
        bytes.div_ceil(BLOCK_ALIGN)
    }

    /// The chunks as one aligned byte slice.
    pub fn bytes_mut(chunks: &mut [Chunk]) -> &mut [u8] {
        bytemuck::cast_slice_mut(chunks)
    }
}

const MAGIC: u32 = u32::from_le_bytes(*b"SNWC");
const VERSION: u32 = 3;
/// An empty control slot or an absent mask.
const NONE: u32 = u32::MAX;

/// What every character of one asset shares, read-only: the asset (skeleton, clips, annotations), the skin its
/// palettes are for, and the skeleton's local-to-model [`GroupWalk`], built here once rather than per character
/// or per frame. Borrowed by [`Character::update`].
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

    #[inline]
    pub fn asset(&self) -> &'r Asset<'r> {
        self.asset
    }

    #[inline]
    pub fn skin(&self) -> Option<&'r Skin<'r>> {
        self.skin
    }

    #[inline]
    pub fn walk(&self) -> &GroupWalk {
        &self.walk
    }

    /// The skin a character of `counts` is palette'd with (`None` for a character without a palette), once
    /// the asset's skeleton and the skin are checked to fit it.
    fn skin_for(&self, counts: &Counts) -> Result<Option<&'r Skin<'r>>, Error> {
        check_len(Buffer::ClipJoints, counts.joints, self.asset.skeleton().num_joints())?;
        match (self.skin, counts.skin_joints) {
            (_, 0) => Ok(None),
            (Some(skin), n) => check_len(Buffer::SkinningPalette, n, skin.num_joints()).map(|()| Some(skin)),
            (None, n) => Err(Error::BufferLength { buffer: Buffer::SkinningPalette, expected: n, actual: 0 }),
        }
    }
}

/// What [`Character::edit_pose`] lends its edit: the jobs' inputs over the character's last pose.
///
/// Layout: `local` SoA (`num_soa_joints` lane groups), `model` AoS, one per joint. Space: local and model.
#[derive(Debug)]
pub struct PoseEdit<'e> {
    pub skeleton: &'e Skeleton<'e>,
    /// The model matrices of the pose before the edit; an edit may move them (foot planting shifts the
    /// pelvis's subtree); they are recomputed from `local` afterwards.
    pub model: &'e mut [Mat4],
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
    fn from_u32(raw: u32) -> Option<LayerKind> {
        [LayerKind::Base, LayerKind::Overlay, LayerKind::SyncedAdditive, LayerKind::OverlappingAdditive]
            .get(raw as usize)
            .copied()
    }

    fn is_additive(self) -> bool {
        matches!(self, LayerKind::SyncedAdditive | LayerKind::OverlappingAdditive)
    }
}

/// One layer of a [`CharacterDesc`]: its kind and how many controls it can play at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerDesc {
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
    /// Bone masks the character stores (per-joint weights, set with [`Character::set_mask`]).
    pub num_masks: usize,
    /// Scalar curves the game sets each frame and the inertializer smooths with the pose.
    pub num_curves: usize,
    /// `None`: no inertializer (transitions are crossfades or cuts).
    pub inertialization: Option<Settings>,
    /// Where the per-frame scratch lives.
    pub scratch: Scratch,
    /// How the controls sample their clips.
    pub sampling: Sampling,
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
    /// decoders ([`SamplingContext::with_decoders`]). Costs [`SamplingContext::required_bytes_with_decoders`]
    /// (`num_joints`, `max_tracks`) and 80 bytes per control slot (`max_tracks` clamped to `3 × num_joints`).
    PerControl { max_tracks: usize },
}
#[derive(Clone, Copy, Debug)]
pub enum Blend<'a> {
    /// The other base controls stop at once; nothing smooths the switch.
    Cut,
    /// The other base controls fade out and the new one fades in over `duration` seconds.
    Crossfade { duration: f32 },
    /// The other base controls stop at once and the inertializer removes the offset (needs one).
    Inertialize(Transition<'a>),
}

/// How [`Character::transition_synced`] chooses where the new control starts (see [`crate::motion::phase`]).
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

/// What to play in a control slot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Play {
    /// Clip index in the asset.
    pub clip: usize,
    /// Local start time, seconds, in `[0, duration]`.
    pub time: f32,
    pub speed: f32,
    pub weight: f32,
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

/// The block's header: counts the layout is computed from, and the character's scalar state.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Header {
    magic: u32,
    version: u32,
    num_joints: u32,
    num_skin_joints: u32,
    num_layers: u32,
    num_controls: u32,
    num_masks: u32,
    num_curves: u32,
    /// 0: none; else 1 + [`Settings::code`].
    inertialization: u32,
    /// Byte offset of the last output pose in the block (the inertializer's history or the pose scratch).
    pose_offset: u32,
    /// `dt` of the last update, for [`Character::last_step`].
    last_dt: f32,
    updates: u32,
    /// 1 when the scratch is external.
    external_scratch: u32,
    /// 0: [`Sampling::Shared`]; else 1 + `max_tracks` of [`Sampling::PerControl`].
    sampling: u32,
    decoded_frames: [u32; 2],
    /// What the last update moved the character by (identity without a motion root).
    root_motion: RootMotion,
    /// The last update's root motion per second, for the next inertialized transition.
    root_velocity: RootMotion,
    /// At an inertialized transition, the root velocity before it minus the new controls' (per second).
    root_offset: RootMotion,
    /// Seconds into the root velocity's transition, and its duration (0: none).
    root_blend: [f32; 2],
    /// The duration of a transition requested for the next update (0: none).
    root_pending: f32,
    /// The base slot the root motion comes from alone (pose-only blending), or `NONE` for the blend of all.
    motion_slot: u32,
}

/// One layer's state.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct LayerState {
    kind: u32,
    first_control: u32,
    num_controls: u32,
    mask: u32,
    profile: u32,
    /// Largest profile factor (1 without a profile): when the slowest joint's fade ends.
    max_profile: f32,
    /// The fade: from `from` to `to` over `duration` (times the profile), `elapsed` seconds in.
    from: f32,
    to: f32,
    duration: f32,
    elapsed: f32,
}

impl LayerState {
    /// A layer at weight 1 on every joint, with no mask and no profile.
    fn unmasked(kind: u32, first_control: u32, num_controls: u32) -> LayerState {
        LayerState {
            kind,
            first_control,
            num_controls,
            mask: NONE,
            profile: NONE,
            max_profile: 1.0,
            from: 1.0,
            to: 1.0,
            duration: 0.0,
            elapsed: 0.0,
        }
    }

    /// Weight at profile factor `p`.
    fn weight_at(&self, p: f32) -> f32 {
        let span = self.duration * p;
        if self.elapsed >= span || span <= 0.0 {
            self.to
        } else {
            self.from + (self.to - self.from) * (self.elapsed / span)
        }
    }

    /// Zero weight now at every joint.
    fn is_silent(&self) -> bool {
        self.to == 0.0 && (self.from == 0.0 || self.elapsed >= self.duration * self.max_profile)
    }
}

/// One control slot: the control now and as it was before the last update (for its step's markers).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Slot {
    control: Control,
    before: Control,
    mask: u32,
    used: u32,
}

impl Slot {
    fn empty() -> Slot {
        Slot { mask: NONE, ..Slot::zeroed() }
    }

    /// The control (as it was before the last step when `before`) and its mask, when it plays with weight.
    fn playing(&self, before: bool) -> Option<(Control, u32)> {
        let control = if before { self.before } else { self.control };
        (self.used != 0 && control.weight() > 0.0).then_some((control, self.mask))
    }
}

/// Byte offsets of the block's sections, from the header's counts.
#[derive(Clone, Copy, Debug)]
struct Layout {
    layers: usize,
    controls: usize,
    masks: usize,
    curves: usize,
    inertializer: usize,
    /// The final pose, without an inertializer (with one, its history holds it).
    output: usize,
    model: usize,
    palette: usize,
    /// One sampling cache per control slot, `cache_stride` bytes each (none with shared sampling).
    caches: usize,
    cache_stride: usize,
    /// The per-frame scratch, when it lives in the block.
    scratch: Option<usize>,
    end: usize,
    frame: ScratchLayout,
}

/// Byte offsets of the per-frame scratch from its start.
#[derive(Clone, Copy, Debug)]
struct ScratchLayout {
    slots: usize,
    samples: usize,
    /// The inertializer's target (empty without one).
    target: usize,
    weights: usize,
    end: usize,
    num_samples: usize,
}

/// Where a character's per-frame scratch (sampling cache, scratch poses, layer weights: about 200 bytes per
/// joint) lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scratch {
    /// In the character's block: [`Character::update`] needs nothing else.
    InBlock,
    /// In a buffer the caller passes to [`Character::update_with_scratch`], of
    /// [`Character::scratch_bytes`]: one per thread serves a whole crowd.
    External,
}

/// The counts a layout needs, validated against the limits.
#[derive(Clone, Copy, Debug)]
struct Counts {
    joints: usize,
    skin_joints: usize,
    layers: usize,
    controls: usize,
    masks: usize,
    curves: usize,
    inertialization: Option<Settings>,
    scratch: Scratch,
    /// Tracks each control's own sampling context keeps decoders for, or `None`: one shared context.
    cache_tracks: Option<usize>,
    /// Scratch poses the largest layer needs.
    samples: usize,
}

fn limit(what: Limit, value: usize, max: usize) -> Result<(), Error> {
    if value <= max { Ok(()) } else { Err(Error::Limit { what, value, max }) }
}

impl Counts {
    fn new(desc: &CharacterDesc<'_>) -> Result<Counts, Error> {
        if desc.num_joints == 0 || desc.num_joints > crate::limits::MAX_JOINTS {
            return Err(Error::JointCount { count: desc.num_joints, max: crate::limits::MAX_JOINTS });
        }
        limit(Limit::SkinJoints, desc.num_skin_joints, crate::limits::MAX_JOINTS)?;
        limit(Limit::Layers, desc.layers.len(), MAX_CHARACTER_LAYERS)?;
        limit(Limit::Masks, desc.num_masks, MAX_MASKS)?;
        limit(Limit::Curves, desc.num_curves, MAX_CURVES)?;
        let mut samples = 0;
        for (layer, l) in desc.layers.iter().enumerate() {
            if (layer == 0) != (l.kind == LayerKind::Base) {
                return Err(Error::LayerOrder { layer });
            }
            if l.controls == 0 {
                return Err(Error::Limit { what: Limit::LayerControls, value: 0, max: MAX_LAYER_CONTROLS });
            }
            limit(Limit::LayerControls, l.controls, MAX_LAYER_CONTROLS)?;
            // The base blends into the output; an overlay blends into an output of its own (even one control
            // needs both when it is masked or light enough for the rest pose to fill in); an additive needs the
            // sample and its delta.
            samples = usize::max(
                samples,
                match l.kind {
                    LayerKind::Base => l.controls,
                    LayerKind::Overlay => l.controls + 1,
                    _ => 2,
                },
            );
        }
        if desc.layers.is_empty() {
            return Err(Error::LayerOrder { layer: 0 });
        }
        let controls = desc.layers.iter().map(|l| l.controls).sum();
        limit(Limit::Controls, controls, MAX_CONTROLS)?;
        Ok(Counts {
            joints: desc.num_joints,
            skin_joints: desc.num_skin_joints,
            layers: desc.layers.len(),
            controls,
            masks: desc.num_masks,
            curves: desc.num_curves,
            inertialization: desc.inertialization,
            scratch: desc.scratch,
            cache_tracks: match desc.sampling {
                Sampling::Shared => None,
                Sampling::PerControl { max_tracks } => Some(max_tracks.min(3 * desc.num_joints)),
            },
            samples,
        })
    }

    /// Bytes of one control's sampling cache: its context's state, then the context's memory.
    fn cache_stride(&self) -> usize {
        let context = |tracks| SamplingContext::required_bytes_with_decoders(self.joints, tracks);
        self.cache_tracks.map_or(0, |tracks| {
            size_of::<ContextState>().next_multiple_of(BLOCK_ALIGN) + context(tracks).next_multiple_of(BLOCK_ALIGN)
        })
    }

    fn layout(&self) -> Layout {
        let g = num_soa_joints(self.joints);
        let pose = g * size_of::<SoaTransform>();
        let mut sections = Sections { at: size_of::<Header>() };
        let mut section = |bytes| sections.next(bytes);
        let layers = section(self.layers * size_of::<LayerState>());
        let controls = section(self.controls * size_of::<Slot>());
        let masks = section(self.masks * g * size_of::<F4>());
        let curves = section(2 * self.curves * size_of::<f32>());
        let inertializer =
            section(self.inertialization.map_or(0, |_| Inertializer::required_bytes(self.joints, self.curves)));
        let output = section(if self.inertialization.is_some() { 0 } else { pose });
        // The model matrices double as the previous target's pose on relative-velocity request frames.
        let model = section(usize::max(self.joints * size_of::<Mat4>(), pose));
        let palette = section(self.skin_joints * size_of::<Mat3x4>());
        let cache_stride = self.cache_stride();
        let caches = section(self.controls * cache_stride);
        let frame = self.scratch_layout();
        let scratch = (self.scratch == Scratch::InBlock).then(|| section(frame.end));
        let end = sections.end();
        Layout {
            layers,
            controls,
            masks,
            curves,
            inertializer,
            output,
            model,
            palette,
            caches,
            cache_stride,
            scratch,
            end,
            frame,
        }
    }

    fn scratch_layout(&self) -> ScratchLayout {
        let g = num_soa_joints(self.joints);
        let pose = g * size_of::<SoaTransform>();
        let mut sections = Sections { at: 0 };
        let mut section = |bytes| sections.next(bytes);
        // Controls with contexts of their own need no shared one.
        let shared = self.cache_tracks.map_or(SamplingContext::required_bytes(self.joints), |_| 0);
        let slots = section(shared);
        let samples = section(self.samples * pose);
        let target = section(if self.inertialization.is_some() { pose } else { 0 });
        let weights = section(g * size_of::<F4>());
        ScratchLayout { slots, samples, target, weights, end: sections.end(), num_samples: self.samples }
    }
}

/// Sections laid out one after another, each on a `BLOCK_ALIGN` boundary.
struct Sections {
    at: usize,
}

impl Sections {
    /// The offset of the next section, `bytes` long.
    fn next(&mut self, bytes: usize) -> usize {
        let start = self.at.next_multiple_of(BLOCK_ALIGN);
        self.at = start + bytes;
        start
    }

    fn end(&self) -> usize {
        self.at.next_multiple_of(BLOCK_ALIGN)
    }
}

/// The block split into its sections.
struct Parts<'b> {
    header: &'b mut Header,
    layers: &'b mut [LayerState],
    controls: &'b mut [Slot],
    masks: &'b mut [F4],
    curves: &'b mut [f32],
    inertializer: &'b mut [u8],
    output: &'b mut [SoaTransform],
    model: &'b mut [u8],
    palette: &'b mut [Mat3x4],
    caches: &'b mut [u8],
    scratch: Option<&'b mut [u8]>,
}

/// The per-frame scratch split into its sections.
struct ScratchParts<'s> {
    slots: &'s mut [u8],
    samples: &'s mut [SoaTransform],
    target: &'s mut [SoaTransform],
    weights: &'s mut [F4],
}

/// `bytes` as `T`s (exact size and alignment, which the layout guarantees).
fn view<T: Pod>(bytes: &mut [u8]) -> Result<&mut [T], Error> {
    bytemuck::try_cast_slice_mut(bytes).map_err(|_| Error::StateMismatch)
}

fn view_ref<T: Pod>(bytes: &[u8]) -> Result<&[T], Error> {
    bytemuck::try_cast_slice(bytes).map_err(|_| Error::StateMismatch)
}

/// Cuts `rest` at `end` (an offset from the block's start, `*at` being where `rest` starts).
fn cut<'b>(rest: &mut &'b mut [u8], at: &mut usize, start: usize, end: usize) -> Result<&'b mut [u8], Error> {
    let skip = start.checked_sub(*at).ok_or(Error::StateMismatch)?;
    let taken = core::mem::take(rest);
    if taken.len() < end - start + skip {
        return Err(Error::StateMismatch);
    }
    let (_, taken) = taken.split_at_mut(skip);
    let (section, remaining) = taken.split_at_mut(end - start);
    *rest = remaining;
    *at = end;
    Ok(section)
}

impl Layout {
    fn split<'b>(&self, block: &'b mut [u8], counts: &Counts) -> Result<Parts<'b>, Error> {
        let g = num_soa_joints(counts.joints);
        let pose = g * size_of::<SoaTransform>();
        let (head, mut rest) = block.split_at_mut(size_of::<Header>().min(block.len()));
        let mut at = head.len();
        let header = view::<Header>(head)?.first_mut().ok_or(Error::StateMismatch)?;
        let mut next = |start: usize, len: usize| cut(&mut rest, &mut at, start, start + len);
        Ok(Parts {
            header,
            layers: view(next(self.layers, counts.layers * size_of::<LayerState>())?)?,
            controls: view(next(self.controls, counts.controls * size_of::<Slot>())?)?,
            masks: view(next(self.masks, counts.masks * g * size_of::<F4>())?)?,
            curves: view(next(self.curves, 2 * counts.curves * size_of::<f32>())?)?,
            inertializer: next(self.inertializer, self.output - self.inertializer)?,
            output: view(next(self.output, if counts.inertialization.is_some() { 0 } else { pose })?)?,
            model: next(self.model, self.palette - self.model)?,
            palette: view(next(self.palette, counts.skin_joints * size_of::<Mat3x4>())?)?,
            caches: next(self.caches, counts.controls * self.cache_stride)?,
            scratch: match self.scratch {
                Some(start) => Some(next(start, self.frame.end)?),
                None => None,
            },
        })
    }
}

impl ScratchLayout {
    fn split<'s>(&self, scratch: &'s mut [u8], counts: &Counts) -> Result<ScratchParts<'s>, Error> {
        let g = num_soa_joints(counts.joints);
        let pose = g * size_of::<SoaTransform>();
        let mut rest = scratch;
        let mut at = 0;
        let mut next = |start: usize, len: usize| cut(&mut rest, &mut at, start, start + len);
        let target_len = if counts.inertialization.is_some() { pose } else { 0 };
        Ok(ScratchParts {
            slots: next(self.slots, self.samples - self.slots)?,
            samples: view(next(self.samples, self.num_samples * pose)?)?,
            target: view(next(self.target, target_len)?)?,
            weights: view(next(self.weights, g * size_of::<F4>())?)?,
        })
    }
}

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

    /// Which slots layer `layer` owns, after validating both indices.
    fn slot_index(parts: &Parts<'_>, layer: usize, slot: usize) -> Result<usize, Error> {
        let l = parts.layers.get(layer).ok_or(Error::IndexOutOfRange {
            what: Index::Layer,
            index: layer,
            len: parts.layers.len(),
        })?;
        if slot >= l.num_controls as usize {
            return Err(Error::IndexOutOfRange { what: Index::Slot, index: slot, len: l.num_controls as usize });
        }
        Ok(l.first_control as usize + slot)
    }

    /// Plays `play` in slot `slot` of layer `layer`, replacing what played there.
    ///
    /// Errors: `IndexOutOfRange` (layer, slot, clip, mask); `BufferLength` (`ClipJoints`) when the asset's
    /// skeleton is not the character's; the errors of [`Control::new`].
    pub fn play(&mut self, asset: &Asset<'_>, layer: usize, slot: usize, play: Play) -> Result<(), Error> {
        let (parts, counts) = self.parts()?;
        let index = Self::slot_index(&parts, layer, slot)?;
        let control = new_control(asset, &counts, play)?;
        parts.controls[index] = Slot { control, before: control, mask: mask_index(play.mask, &counts)?, used: 1 };
        Ok(())
    }

    /// Stops slot `slot` of layer `layer`.
    ///
    /// Errors: `IndexOutOfRange` (layer, slot).
    pub fn stop(&mut self, layer: usize, slot: usize) -> Result<(), Error> {
        let (parts, _) = self.parts()?;
        let index = Self::slot_index(&parts, layer, slot)?;
        parts.controls[index] = Slot::empty();
        Ok(())
    }

    /// The control in slot `slot` of layer `layer`, `None` when the slot is empty.
    ///
    /// Errors: `IndexOutOfRange` (layer, slot).
    pub fn control(&mut self, layer: usize, slot: usize) -> Result<Option<Control>, Error> {
        let (parts, _) = self.parts()?;
        let index = Self::slot_index(&parts, layer, slot)?;
        let s = parts.controls[index];
        Ok((s.used != 0).then_some(s.control))
    }

    /// Changes a control with `change` (a [`Control`] setter: speed, time, fade); on an `Err` nothing changes.
    ///
    /// Errors: `IndexOutOfRange` (layer, slot, or an empty slot); whatever `change` returns.
    pub fn with_control(
        &mut self,
        layer: usize,
        slot: usize,
        change: impl FnOnce(&mut Control) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let (parts, _) = self.parts()?;
        let index = Self::slot_index(&parts, layer, slot)?;
        let s = &mut parts.controls[index];
        if s.used == 0 {
            return Err(Error::IndexOutOfRange { what: Index::Slot, index: slot, len: 0 });
        }
        let mut control = s.control;
        change(&mut control)?;
        s.control = control;
        Ok(())
    }

    /// The step the control in slot `slot` of layer `layer` took in the last update, for its markers
    /// ([`Step::crossings`]); `None` for an empty slot or before the first update. Synced controls report the
    /// step their own clock would have taken (their time follows the base instead).
    ///
    /// Errors: `IndexOutOfRange` (layer, slot).
    pub fn last_step(&mut self, layer: usize, slot: usize) -> Result<Option<Step>, Error> {
        let (parts, _) = self.parts()?;
        let index = Self::slot_index(&parts, layer, slot)?;
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
        let index = Self::slot_index(&parts, 0, slot)?;
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
            Some(slot) => (Self::slot_index(&parts, 0, slot)? - parts.layers[0].first_control as usize) as u32,
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
    /// another skeleton, `SkinningPalette` for a missing skin or one of another size); `StateMismatch` for a
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

    /// `pose`: `None` for a motion-only update, else the external scratch if any; `palette`: compute it.
    fn update_inner(
        &mut self,
        dt: f32,
        rig: &Rig<'_>,
        pose: Option<Option<&mut [u8]>>,
        palette: bool,
    ) -> Result<(), Error> {
        let asset = rig.asset;
        control::check_time_step(dt)?;
        let block_start = self.block.as_ptr() as usize;
        let (parts, counts) = self.parts()?;
        let frame_layout = counts.scratch_layout();
        let scratch = match (pose, parts.scratch) {
            (None, _) => None,
            (Some(Some(external)), _) => {
                check_block(external, frame_layout.end)?;
                Some(frame_layout.split(external, &counts)?)
            }
            (Some(None), Some(in_block)) => Some(frame_layout.split(in_block, &counts)?),
            (Some(None), None) => return Err(Error::MissingScratch),
        };
        rig.skin_for(&counts)?;
        for s in parts.controls.iter().filter(|s| s.used != 0) {
            let duration = asset.clip_duration(s.control.clip() as usize).ok_or(Error::StateMismatch)?;
            if duration.to_bits() != s.control.duration().to_bits() {
                return Err(Error::StateMismatch);
            }
        }
        let (curves, previous_curves) = parts.curves.split_at_mut(counts.curves);
        if let Some(index) = curves.iter().position(|c| !c.is_finite()) {
            return Err(Error::NonFinite { buffer: Buffer::Curves, index });
        }

        // The state steps in place: each slot's `before` keeps its control as it was (the previous target's
        // time and `last_step`), and the layers are copied here, so a failing kernel rolls the step back.
        let mut layers_before = [LayerState::zeroed(); MAX_CHARACTER_LAYERS];
        let layers_before = &mut layers_before[..counts.layers];
        layers_before.copy_from_slice(parts.layers);
        let leader = base_leader(parts.controls, &parts.layers[0]);
        let mut synced_time = None;
        let motion_root = root_motion::has_motion_root(asset.skeleton());
        let mut base_steps = [None; MAX_LAYER_CONTROLS];
        for layer in parts.layers.iter_mut() {
            let range = layer.first_control as usize..(layer.first_control + layer.num_controls) as usize;
            // The base (layer 0) steps first, so the leader here is already stepped.
            let leader = leader.map(|i| parts.controls[i].control);
            let is_base = kind_of(layer) == LayerKind::Base;
            for (i, s) in parts.controls[range].iter_mut().enumerate().filter(|(_, s)| s.used != 0) {
                s.before = s.control;
                // `dt` was checked, so stepping cannot fail.
                let (control, step) = s.before.advanced(dt).map_or((s.before, None), |(c, step)| (c, Some(step)));
                s.control = control;
                if is_base && motion_root {
                    base_steps[i] = step.map(|step| (step, control.clip(), control.weight()));
                }
                if let (LayerKind::SyncedAdditive, Some(base)) = (kind_of(layer), leader) {
                    // Synced: the base leader's stride phase when both clips have one, else its normalized
                    // time; this control's own fade.
                    let (u, phase) = *synced_time.get_or_insert_with(|| {
                        let phase = PhaseTable::of(asset, base.clip() as usize).map(|t| t.phase_at(base.time()));
                        (base.normalized_time(), phase)
                    });
                    let duration = s.control.duration();
                    let time = match (phase, PhaseTable::of(asset, s.control.clip() as usize)) {
                        (Some(phase), Some(table)) => table.time_at(phase),
                        _ => u * duration,
                    };
                    s.control.set_time(time.min(duration)).unwrap_or(());
                }
            }
            layer.elapsed = (layer.elapsed + dt).min(layer.duration * layer.max_profile);
        }

        let state = State { controls: parts.controls, layers: parts.layers, layers_before };
        let pose_at = block_start + parts.header.pose_offset as usize;
        let produced = match scratch {
            Some(scratch) => produce(
                dt,
                rig,
                palette,
                &counts,
                state,
                scratch,
                &mut Outputs {
                    masks: parts.masks,
                    inertializer: parts.inertializer,
                    output: parts.output,
                    model: parts.model,
                    palette: parts.palette,
                    curves,
                    previous_curves,
                    caches: parts.caches,
                },
            ),
            None => match counts.inertialization {
                Some(_) => Inertializer::attach(&Arena::new(parts.inertializer), counts.joints, counts.curves)
                    .map(|mut inertializer| inertializer.reset())
                    .map(|()| (pose_at, 0)),
                None => Ok((pose_at, 0)),
            },
        };
        let (output, decoded) = match produced {
            Ok(done) => done,
            Err(e) => {
                for s in parts.controls.iter_mut().filter(|s| s.used != 0) {
                    s.control = s.before;
                }
                parts.layers.copy_from_slice(layers_before);
                return Err(e);
            }
        };
        for s in parts.controls.iter_mut().filter(|s| s.used != 0 && s.control.fade().is_silent()) {
            s.used = 0;
        }
        previous_curves.copy_from_slice(curves);
        parts.header.root_motion = if motion_root {
            let chosen = base_steps.get(parts.header.motion_slot as usize).copied().flatten();
            let raw = match chosen {
                // Pose-only blending: this slot's motion at full weight.
                Some((step, clip, _)) => base_motion(asset, &[Some((step, clip, 1.0))]),
                None => base_motion(asset, &base_steps),
            };
            smooth_root_motion(parts.header, raw, dt)
        } else {
            RootMotion::IDENTITY
        };
        let decoded =
            decoded + (u64::from(parts.header.decoded_frames[0]) | (u64::from(parts.header.decoded_frames[1]) << 32));
        parts.header.decoded_frames = [decoded as u32, (decoded >> 32) as u32];
        parts.header.last_dt = dt;
        parts.header.updates = parts.header.updates.saturating_add(1);
        parts.header.pose_offset = (output - block_start) as u32;
        Ok(())
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
        let skeleton = rig.asset.skeleton();
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
    /// Errors: `IndexOutOfRange` (`Layer`); `StateMismatch` for a control whose clip the asset lacks.
    pub fn range_weight(&mut self, asset: &Asset<'_>, layer: usize, name: &str) -> Result<f32, Error> {
        let (parts, _) = self.parts()?;
        let len = parts.layers.len();
        let l = parts.layers.get(layer).ok_or(Error::IndexOutOfRange { what: Index::Layer, index: layer, len })?;
        let slots = &parts.controls[l.first_control as usize..(l.first_control + l.num_controls) as usize];
        let (mut inside, mut total) = (0.0f32, 0.0f32);
        for s in slots.iter().filter(|s| s.used != 0) {
            let (clip, time, weight) = (s.control.clip() as usize, s.control.time(), s.control.weight());
            if clip >= asset.num_clips() {
                return Err(Error::StateMismatch);
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
    /// motion (see [`root_motion`]), each playing control's step motion weighted by its weight. The identity
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

/// The stepped controls and layers, and the layers as they were (for the previous target).
struct State<'s> {
    controls: &'s [Slot],
    layers: &'s [LayerState],
    layers_before: &'s [LayerState],
}

/// The block's sections a frame reads and writes besides the state.
struct Outputs<'o> {
    masks: &'o [F4],
    inertializer: &'o mut [u8],
    output: &'o mut [SoaTransform],
    model: &'o mut [u8],
    palette: &'o mut [Mat3x4],
    curves: &'o [f32],
    previous_curves: &'o [f32],
    /// The controls' own sampling caches (empty with shared sampling).
    caches: &'o mut [u8],
}

/// Evaluates the stack, inertializes, and writes the model matrices and palette; returns the address of the
/// output pose and the frames sampling decoded.
fn produce(
    dt: f32,
    rig: &Rig<'_>,
    palette: bool,
    counts: &Counts,
    state: State<'_>,
    scratch: ScratchParts<'_>,
    out: &mut Outputs<'_>,
) -> Result<(usize, u64), Error> {
    let g = num_soa_joints(counts.joints);
    let slots_arena = Arena::new(scratch.slots);
    let contexts = match counts.cache_tracks {
        None => Contexts::Shared(SamplingContext::new(&slots_arena, counts.joints)?),
        Some(tracks) => {
            let stride = counts.cache_stride();
            Contexts::PerControl { caches: &mut *out.caches, stride, joints: counts.joints, tracks, decoded: 0 }
        }
    };
    let mut frame = Frame {
        asset: rig.asset,
        contexts,
        samples: scratch.samples,
        weights: scratch.weights,
        masks: out.masks,
        g,
        motion_root: root_motion::has_motion_root(rig.asset.skeleton()),
    };
    let pose_len = g * size_of::<SoaTransform>();
    let model_len = counts.joints * size_of::<Mat4>();
    let inertializer_arena = Arena::new(out.inertializer);
    let mut inertializer = match counts.inertialization {
        Some(_) => Some(Inertializer::attach(&inertializer_arena, counts.joints, counts.curves)?),
        None => None,
    };
    let output;
    let (model, pose): (&mut [Mat4], &[SoaTransform]) = match inertializer.as_mut() {
        Some(inertializer) => {
            let relative = inertializer.settings().velocity == VelocityMode::Relative;
            let previous = if inertializer.has_request() && relative {
                let previous_pose: &mut [SoaTransform] = view(&mut out.model[..pose_len])?;
                frame.evaluate(state.controls, true, state.layers_before, previous_pose)?;
                Some((&*previous_pose, out.previous_curves))
            } else {
                None
            };
            frame.evaluate(state.controls, false, state.layers, scratch.target)?;
            let target = Target { pose: scratch.target, curves: out.curves, previous };
            InertializationJob { inertializer: &mut *inertializer, dt, target }.run()?;
            let result = inertializer.output();
            output = result.pose.as_ptr() as usize;
            // The previous pose is dead here, so the model bytes are free for the matrices.
            (view(&mut out.model[..model_len])?, result.pose)
        }
        None => {
            frame.evaluate(state.controls, false, state.layers, out.output)?;
            output = out.output.as_ptr() as usize;
            (view(&mut out.model[..model_len])?, &*out.output)
        }
    };
    let (skeleton, walk) = (rig.asset.skeleton(), Some(rig.walk()));
    LocalToModelJob { skeleton, walk, local: pose, root: None, model }.run()?;
    if let (Some(skin), true) = (rig.skin, palette && counts.skin_joints > 0) {
        SkinningJob { skin, model, palette: Palette::Rows(out.palette) }.run()?;
    }
    Ok((output, frame.contexts.decoded_frames()))
}

/// Where the controls' samples are decoded: one context for all, or each control slot's own, resumed from its
/// cache in the block for the sample and suspended into it after.
enum Contexts<'f> {
    Shared(SamplingContext<'f>),
    PerControl {
        caches: &'f mut [u8],
        stride: usize,
        joints: usize,
        tracks: usize,
        /// Frames decoded this update.
        decoded: u64,
    },
}

impl Contexts<'_> {
    /// Samples `control` (in slot `slot`) into `out`.
    fn sample(
        &mut self,
        asset: &Asset<'_>,
        slot: usize,
        control: &Control,
        out: &mut [SoaTransform],
    ) -> Result<(), Error> {
        match self {
            Contexts::Shared(context) => sample_into(asset, context, control, out),
            Contexts::PerControl { caches, stride, joints, tracks, decoded } => {
                let cache = caches.get_mut(slot * *stride..(slot + 1) * *stride).ok_or(Error::StateMismatch)?;
                let (state, memory) = cache.split_at_mut(size_of::<ContextState>().next_multiple_of(BLOCK_ALIGN));
                let state: &mut ContextState = bytemuck::try_from_bytes_mut(&mut state[..size_of::<ContextState>()])
                    .map_err(|_| Error::StateMismatch)?;
                let arena = Arena::new(memory);
                let mut context = SamplingContext::resume(&arena, *joints, *tracks, state)?;
                let before = context.decoded_frames();
                let sampled = sample_into(asset, &mut context, control, out);
                *decoded += context.decoded_frames().wrapping_sub(before);
                *state = context.suspend();
                sampled
            }
        }
    }

    fn decoded_frames(&self) -> u64 {
        match self {
            Contexts::Shared(context) => context.decoded_frames(),
            Contexts::PerControl { decoded, .. } => *decoded,
        }
    }
}

/// What evaluating the layer stack borrows.
struct Frame<'f, 'a> {
    asset: &'f Asset<'a>,
    contexts: Contexts<'f>,
    /// Scratch poses, `Layout::num_samples` of them.
    samples: &'f mut [SoaTransform],
    /// Per-joint weights of the layer being applied.
    weights: &'f mut [F4],
    masks: &'f [F4],
    g: usize,
    /// The skeleton's joint 0 carries root motion: the pose keeps it at the identity (the game moves the
    /// character instead).
    motion_root: bool,
}

impl Frame<'_, '_> {
    /// The layer stack's pose for `controls` (their state before the step when `before`) and `layers` into
    /// `out`.
    fn evaluate(
        &mut self,
        controls: &[Slot],
        before: bool,
        layers: &[LayerState],
        out: &mut [SoaTransform],
    ) -> Result<(), Error> {
        let g = self.g;
        let rest = self.asset.skeleton().rest_pose();
        for (l, layer) in layers.iter().enumerate() {
            let slots = &controls[layer.first_control as usize..(layer.first_control + layer.num_controls) as usize];
            let kind = LayerKind::from_u32(layer.kind).ok_or(Error::StateMismatch)?;
            let first = layer.first_control as usize;
            if l == 0 {
                self.blend(first, slots, before, self.samples.len(), Some(&mut *out))?;
                continue;
            }
            let active = slots.iter().filter_map(|s| s.playing(before)).count();
            if layer.is_silent() || active == 0 {
                continue;
            }
            if kind.is_additive() {
                for (i, (control, mask)) in slots.iter().enumerate().filter_map(|(i, s)| Some((i, s.playing(before)?)))
                {
                    let (sample, delta) = self.samples.split_at_mut(g);
                    self.contexts.sample(self.asset, first + i, &control, sample)?;
                    blending::additive_delta(rest, sample, &mut delta[..g])?;
                    // The control's weight and mask on top of the layer's per-joint weights.
                    self.layer_weights(layer, control.weight(), mask);
                    blending::add_in_place(out, &self.samples[g..2 * g], self.weights)?;
                }
            } else {
                // The controls blend into the pose after their samples (one unmasked is sampled straight there).
                let at = layer.num_controls as usize;
                self.blend(first, slots, before, at, None)?;
                self.layer_weights(layer, 1.0, NONE);
                blending::overlay_in_place(out, &self.samples[at * g..][..g], self.weights)?;
            }
        }
        if self.motion_root {
            out[0].set(0, &Transform::IDENTITY);
        }
        Ok(())
    }

    /// Per-joint weights into `self.weights`: `layer`'s mask times its fade at each joint's profile factor,
    /// times `scale` and mask `control_mask` (a control's weight and mask, or 1 and `NONE`).
    fn layer_weights(&mut self, layer: &LayerState, scale: f32, control_mask: u32) {
        let g = self.g;
        let slice = |index: u32| (index != NONE).then(|| &self.masks[index as usize * g..][..g]);
        let (mask, profile, control_mask) = (slice(layer.mask), slice(layer.profile), slice(control_mask));
        let nominal = F4::splat(layer.weight_at(1.0) * scale);
        for (k, out) in self.weights.iter_mut().enumerate() {
            let mut w = match profile {
                None => nominal,
                Some(p) => {
                    let p = p[k].to_array();
                    F4::from_array(core::array::from_fn(|lane| layer.weight_at(p[lane]) * scale))
                }
            };
            if let Some(m) = mask {
                w = w * m[k];
            }
            if let Some(m) = control_mask {
                w = w * m[k];
            }
            *out = w;
        }
    }

    /// The normalized blend of the active controls in `slots` (slot `first` onward) into `out`, or into scratch
    /// pose `at` when `out` is `None`; the controls are sampled into the scratch poses before `at`. The rest
    /// pose when none is active.
    fn blend(
        &mut self,
        first: usize,
        slots: &[Slot],
        before: bool,
        at: usize,
        out: Option<&mut [SoaTransform]>,
    ) -> Result<(), Error> {
        let g = self.g;
        let skeleton = self.asset.skeleton();
        let (inputs, tail) = self.samples.split_at_mut((at * g).min(self.samples.len()));
        let out = match out {
            Some(out) => out,
            None => tail.get_mut(..g).ok_or(Error::StateMismatch)?,
        };
        let active = slots.iter().enumerate().filter_map(|(i, s)| Some((first + i, s.playing(before)?)));
        let Some((only_slot, (only, only_mask))) = active.clone().next() else {
            out.copy_from_slice(skeleton.rest_pose());
            return Ok(());
        };
        // One unmasked control with weight enough to need no rest pose: its pose as sampled.
        if active.clone().count() == 1 && only_mask == NONE && only.weight() >= DEFAULT_THRESHOLD {
            return self.contexts.sample(self.asset, only_slot, &only, out);
        }
        for (k, (slot, (control, _))) in active.clone().enumerate() {
            self.contexts.sample(self.asset, slot, &control, &mut inputs[k * g..][..g])?;
        }
        let mut layers = heapless::Vec::<BlendLayer<'_>, { blending::MAX_LAYERS }>::new();
        for (k, (_, (control, mask))) in active.enumerate() {
            let joint_weights = (mask != NONE).then(|| &self.masks[mask as usize * g..][..g]);
            let layer = BlendLayer { pose: &inputs[k * g..][..g], weight: control.weight(), joint_weights };
            layers.push(layer).map_err(|_| Error::StateMismatch)?;
        }
        BlendingJob { skeleton, layers: &layers, additive: &[], threshold: DEFAULT_THRESHOLD, output: out }.run()
    }
}

/// Samples `control`'s clip at its time into `out`.
fn sample_into(
    asset: &Asset<'_>,
    context: &mut SamplingContext<'_>,
    control: &Control,
    out: &mut [SoaTransform],
) -> Result<(), Error> {
    let clip = asset.clip(control.clip() as usize).ok_or(Error::StateMismatch)?;
    // The control already wrapped the time; clamping keeps a ping-pong or clamped end at the last frame.
    SamplingJob {
        skeleton: asset.skeleton(),
        clip: &clip,
        time: control.time(),
        playback: Playback::Clamp,
        context,
        output: out,
        curves: &mut [],
    }
    .run()
}

/// The base layer's root motion over one update: each playing control's step motion, weighted by its weight
/// (normalized; none when the weights sum below the blend threshold).
fn base_motion(asset: &Asset<'_>, steps: &[Option<(Step, u32, f32)>]) -> RootMotion {
    let rest = &asset.skeleton().rest_pose()[0];
    let (mut sum, mut total) = ((0.0f32, 0.0f32, 0.0f32, 0.0f32), 0.0f32);
    for &(step, clip, weight) in steps.iter().flatten().filter(|(_, _, w)| *w > 0.0) {
        let Some(clip) = asset.clip(clip as usize) else { continue };
        let m = root_motion::step_motion(&clip, rest, &step);
        let t = m.translation;
        sum = (sum.0 + weight * t.x, sum.1 + weight * t.y, sum.2 + weight * t.z, sum.3 + weight * m.yaw);
        total += weight;
    }
    if total < DEFAULT_THRESHOLD {
        return RootMotion::IDENTITY;
    }
    let (x, y, z, yaw) = (sum.0 / total, sum.1 / total, sum.2 / total, sum.3 / total);
    RootMotion { translation: Vec3::new(x, y, z), yaw }
}

/// Several requests before one update: the shortest wins, as in the inertializer.
fn pending_duration(pending: f32, duration: f32) -> f32 {
    if pending > 0.0 { pending.min(duration) } else { duration }
}

/// The root motion with an inertialized transition's velocity jump removed: at the transition the root's
/// velocity (translation and yaw per second, in the character's space) is offset by what it was before minus
/// what the new controls give, and the offset decays to 0 over the transition's duration along the quintic with
/// zero slope and curvature at both ends, `(1 − τ)³ (1 + 3τ + 6τ²)`. The root thus keeps its velocity through
/// the switch instead of a position offset jumping (Gears of War 4's inertialization applied to the motion).
fn smooth_root_motion(header: &mut Header, raw: RootMotion, dt: f32) -> RootMotion {
    if dt <= 0.0 {
        return raw;
    }
    let scaled = |m: RootMotion, k: f32| RootMotion { translation: m.translation.scaled(k), yaw: m.yaw * k };
    let sum =
        |a: RootMotion, b: RootMotion| RootMotion { translation: a.translation + b.translation, yaw: a.yaw + b.yaw };
    if header.root_pending > 0.0 {
        header.root_offset = sum(header.root_velocity, scaled(raw, -1.0 / dt));
        header.root_blend = [0.0, header.root_pending];
        header.root_pending = 0.0;
    }
    let [elapsed, duration] = header.root_blend;
    let mut out = raw;
    if elapsed < duration {
        let elapsed = (elapsed + dt).min(duration);
        header.root_blend[0] = elapsed;
        let tau = elapsed / duration;
        let decay = (1.0 - tau) * (1.0 - tau) * (1.0 - tau) * (1.0 + 3.0 * tau + 6.0 * tau * tau);
        out = sum(raw, scaled(header.root_offset, decay * dt));
    }
    header.root_velocity = scaled(out, 1.0 / dt);
    out
}

/// The base control with the most weight (the first of equals), which synced layers follow.
fn kind_of(layer: &LayerState) -> LayerKind {
    LayerKind::from_u32(layer.kind).unwrap_or(LayerKind::Base)
}

fn base_leader(controls: &[Slot], base: &LayerState) -> Option<usize> {
    let range = base.first_control as usize..(base.first_control + base.num_controls) as usize;
    range.filter(|&i| controls[i].used != 0).fold(None, |best: Option<usize>, i| match best {
        Some(b) if controls[b].control.weight() >= controls[i].control.weight() => Some(b),
        _ => Some(i),
    })
}

fn new_control(asset: &Asset<'_>, counts: &Counts, play: Play) -> Result<Control, Error> {
    check_len(Buffer::ClipJoints, counts.joints, asset.skeleton().num_joints())?;
    let clip = asset.clip(play.clip).ok_or(Error::IndexOutOfRange {
        what: Index::Clip,
        index: play.clip,
        len: asset.num_clips(),
    })?;
    Control::new(play.clip as u32, clip.duration(), play.wrap, play.time, play.speed, play.weight)
}

fn mask_index(mask: Option<usize>, counts: &Counts) -> Result<u32, Error> {
    match mask {
        None => Ok(NONE),
        Some(m) if m < counts.masks => Ok(m as u32),
        Some(m) => Err(Error::IndexOutOfRange { what: Index::Mask, index: m, len: counts.masks }),
    }
}

/// The largest factor over the real joints.
/// The smallest factor a mask used as a fade profile may hold: a fade of any duration then ends.
const MIN_PROFILE_FACTOR: f32 = f32::MIN_POSITIVE;

fn max_factor(factors: &[F4], joints: usize) -> f32 {
    (0..joints).map(|j| factors[j / 4].to_array()[j % 4]).fold(0.0, f32::max)
}

/// The counts and layout a block's header describes, checked against the limits and the block's size.
fn read_layout(block: &[u8]) -> Result<(Counts, Layout), Error> {
    check_block(block, size_of::<Header>())?;
    let header: Header = *view_ref::<Header>(&block[..size_of::<Header>()])?.first().ok_or(Error::StateMismatch)?;
    if header.magic != MAGIC || header.version != VERSION || header.num_layers as usize > MAX_CHARACTER_LAYERS {
        return Err(Error::StateMismatch);
    }
    let parts = size_of::<Header>().next_multiple_of(BLOCK_ALIGN);
    let layers_end = parts + header.num_layers as usize * size_of::<LayerState>();
    let layers: &[LayerState] = view_ref(block.get(parts..layers_end).ok_or(Error::StateMismatch)?)?;
    let mut descs = [LayerDesc { kind: LayerKind::Base, controls: 1 }; MAX_CHARACTER_LAYERS];
    for (d, l) in descs.iter_mut().zip(layers) {
        d.kind = LayerKind::from_u32(l.kind).ok_or(Error::StateMismatch)?;
        d.controls = l.num_controls as usize;
    }
    let inertialization = match header.inertialization {
        0 => None,
        code => Some(Settings::from_code(code - 1).ok_or(Error::StateMismatch)?),
    };
    let desc = CharacterDesc {
        num_joints: header.num_joints as usize,
        num_skin_joints: header.num_skin_joints as usize,
        layers: &descs[..header.num_layers as usize],
        num_masks: header.num_masks as usize,
        num_curves: header.num_curves as usize,
        inertialization,
        scratch: match header.external_scratch {
            0 => Scratch::InBlock,
            1 => Scratch::External,
            _ => return Err(Error::StateMismatch),
        },
        sampling: match header.sampling {
            0 => Sampling::Shared,
            n => Sampling::PerControl { max_tracks: n as usize - 1 },
        },
    };
    let counts = Counts::new(&desc).map_err(|_| Error::StateMismatch)?;
    let base_controls = descs[0].controls as u32;
    if counts.cache_tracks.map_or(0, |tracks| 1 + tracks as u32) != header.sampling
        || counts.controls != header.num_controls as usize
        || (header.motion_slot != NONE && header.motion_slot >= base_controls)
    {
        return Err(Error::StateMismatch);
    }
    let layout = counts.layout();
    check_block(block, layout.end)?;
    Ok((counts, layout))
}

fn check_block(block: &[u8], needed: usize) -> Result<(), Error> {
    if !(block.as_ptr() as usize).is_multiple_of(BLOCK_ALIGN) {
        return Err(Error::BlockAlignment { align: BLOCK_ALIGN });
    }
    if block.len() < needed {
        return Err(Error::BlockSize { needed, len: block.len() });
    }
    Ok(())
}
