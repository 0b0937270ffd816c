//! The character block: its header, the sections' layout computed from the counts, and the views that split
//! a block into them. Offsets, never pointers, so a block copied to any `BLOCK_ALIGN`-aligned address behaves
//! the same.

use crate::error::Error;
use crate::error::Limit;
use crate::math::{F4, Mat3x4, Mat4, SoaTransform, num_soa_joints};
use crate::motion::control::Control;
use crate::motion::root_motion::RootMotion;
use crate::stages::inertialization::{Inertializer, Settings};
use crate::stages::sampling::{ContextState, Interpolation, SamplingContext};
use bytemuck::{Pod, Zeroable};

use super::desc::{CharacterDesc, LayerDesc, LayerKind, Sampling, Scratch};
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
    /// A chunk of zeros (what a new block starts as).
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

pub(super) const MAGIC: u32 = u32::from_le_bytes(*b"SNWC");
pub(super) const VERSION: u32 = 4;
/// An empty control slot or an absent mask.
pub(super) const NONE: u32 = u32::MAX;

/// The block's header: counts the layout is computed from, and the character's scalar state.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(super) struct Header {
    pub(super) magic: u32,
    pub(super) version: u32,
    pub(super) num_joints: u32,
    pub(super) num_skin_joints: u32,
    pub(super) num_layers: u32,
    pub(super) num_controls: u32,
    pub(super) num_masks: u32,
    pub(super) num_curves: u32,
    /// 0: none; else 1 + [`Settings::code`].
    pub(super) inertialization: u32,
    /// Byte offset of the last output pose in the block (the inertializer's history or the pose scratch).
    pub(super) pose_offset: u32,
    /// `dt` of the last update, for [`Character::last_step`](super::Character::last_step).
    pub(super) last_dt: f32,
    pub(super) updates: u32,
    /// 1 when the scratch is external.
    pub(super) external_scratch: u32,
    /// 0: [`Sampling::Shared`]; else 1 + `max_tracks` of [`Sampling::PerControl`].
    pub(super) sampling: u32,
    pub(super) decoded_frames: [u32; 2],
    /// What the last update moved the character by (identity without a motion root).
    pub(super) root_motion: RootMotion,
    /// The last update's root motion per second, for the next inertialized transition.
    pub(super) root_velocity: RootMotion,
    /// At an inertialized transition, the root velocity before it minus the new controls' (per second).
    pub(super) root_offset: RootMotion,
    /// Seconds into the root velocity's transition, and its duration (0: none).
    pub(super) root_blend: [f32; 2],
    /// The duration of a transition requested for the next update (0: none).
    pub(super) root_pending: f32,
    /// The base slot the root motion comes from alone (pose-only blending), or `NONE` for the blend of all.
    pub(super) motion_slot: u32,
    /// 0: [`Interpolation::Linear`]; 1: [`Interpolation::Cubic`].
    pub(super) interpolation: u32,
}

/// One layer's state.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(super) struct LayerState {
    pub(super) kind: u32,
    pub(super) first_control: u32,
    pub(super) num_controls: u32,
    pub(super) mask: u32,
    pub(super) profile: u32,
    /// Largest profile factor (1 without a profile): when the slowest joint's fade ends.
    pub(super) max_profile: f32,
    /// The fade: from `from` to `to` over `duration` (times the profile), `elapsed` seconds in.
    pub(super) from: f32,
    pub(super) to: f32,
    pub(super) duration: f32,
    pub(super) elapsed: f32,
}

impl LayerState {
    /// A layer at weight 1 on every joint, with no mask and no profile.
    pub(super) fn unmasked(kind: u32, first_control: u32, num_controls: u32) -> LayerState {
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
    pub(super) fn weight_at(&self, p: f32) -> f32 {
        let span = self.duration * p;
        if self.elapsed >= span || span <= 0.0 {
            self.to
        } else {
            self.from + (self.to - self.from) * (self.elapsed / span)
        }
    }

    /// Zero weight now at every joint.
    pub(super) fn is_silent(&self) -> bool {
        self.to == 0.0 && (self.from == 0.0 || self.elapsed >= self.duration * self.max_profile)
    }
}

/// One control slot: the control now and as it was before the last update (for its step's markers).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(super) struct Slot {
    pub(super) control: Control,
    pub(super) before: Control,
    pub(super) mask: u32,
    pub(super) used: u32,
}

impl Slot {
    pub(super) fn empty() -> Slot {
        Slot { mask: NONE, ..Slot::zeroed() }
    }

    /// The control (as it was before the last step when `before`) and its mask, when it plays with weight.
    pub(super) fn playing(&self, before: bool) -> Option<(Control, u32)> {
        let control = if before { self.before } else { self.control };
        (self.used != 0 && control.weight() > 0.0).then_some((control, self.mask))
    }
}

/// Byte offsets of the block's sections, from the header's counts.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) layers: usize,
    pub(super) controls: usize,
    pub(super) masks: usize,
    pub(super) curves: usize,
    pub(super) inertializer: usize,
    /// The final pose, without an inertializer (with one, its history holds it).
    pub(super) output: usize,
    pub(super) model: usize,
    pub(super) palette: usize,
    /// One sampling cache per control slot, `cache_stride` bytes each (none with shared sampling).
    pub(super) caches: usize,
    pub(super) cache_stride: usize,
    /// The per-frame scratch, when it lives in the block.
    pub(super) scratch: Option<usize>,
    pub(super) end: usize,
    pub(super) frame: ScratchLayout,
}

/// Byte offsets of the per-frame scratch from its start.
#[derive(Clone, Copy, Debug)]
pub(super) struct ScratchLayout {
    pub(super) slots: usize,
    pub(super) samples: usize,
    /// The inertializer's target (empty without one).
    pub(super) target: usize,
    pub(super) weights: usize,
    pub(super) end: usize,
    pub(super) num_samples: usize,
}

/// The counts a layout needs, validated against the limits.
#[derive(Clone, Copy, Debug)]
pub(super) struct Counts {
    pub(super) joints: usize,
    pub(super) skin_joints: usize,
    pub(super) layers: usize,
    pub(super) controls: usize,
    pub(super) masks: usize,
    pub(super) curves: usize,
    pub(super) inertialization: Option<Settings>,
    pub(super) scratch: Scratch,
    /// Tracks each control's own sampling context keeps decoders for, or `None`: one shared context.
    pub(super) cache_tracks: Option<usize>,
    pub(super) interpolation: Interpolation,
    /// Scratch poses the largest layer needs.
    pub(super) samples: usize,
}

pub(super) fn limit(what: Limit, value: usize, max: usize) -> Result<(), Error> {
    if value <= max { Ok(()) } else { Err(Error::Limit { what, value, max }) }
}

impl Counts {
    pub(super) fn new(desc: &CharacterDesc<'_>) -> Result<Counts, Error> {
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
            interpolation: desc.interpolation,
            samples,
        })
    }

    /// Bytes of one control's sampling cache: its context's state, then the context's memory.
    pub(super) fn cache_stride(&self) -> usize {
        let context = |tracks| SamplingContext::required_bytes_for(self.joints, tracks, self.interpolation);
        self.cache_tracks.map_or(0, |tracks| {
            size_of::<ContextState>().next_multiple_of(BLOCK_ALIGN) + context(tracks).next_multiple_of(BLOCK_ALIGN)
        })
    }

    pub(super) fn layout(&self) -> Layout {
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

    pub(super) fn scratch_layout(&self) -> ScratchLayout {
        let g = num_soa_joints(self.joints);
        let pose = g * size_of::<SoaTransform>();
        let mut sections = Sections { at: 0 };
        let mut section = |bytes| sections.next(bytes);
        // Controls with contexts of their own need no shared one.
        let shared = match self.cache_tracks {
            None => SamplingContext::required_bytes_for(self.joints, 0, self.interpolation),
            Some(_) => 0,
        };
        let slots = section(shared);
        let samples = section(self.samples * pose);
        let target = section(if self.inertialization.is_some() { pose } else { 0 });
        let weights = section(g * size_of::<F4>());
        ScratchLayout { slots, samples, target, weights, end: sections.end(), num_samples: self.samples }
    }
}

/// Sections laid out one after another, each on a `BLOCK_ALIGN` boundary.
pub(super) struct Sections {
    pub(super) at: usize,
}

impl Sections {
    /// The offset of the next section, `bytes` long.
    pub(super) fn next(&mut self, bytes: usize) -> usize {
        let start = self.at.next_multiple_of(BLOCK_ALIGN);
        self.at = start + bytes;
        start
    }

    pub(super) fn end(&self) -> usize {
        self.at.next_multiple_of(BLOCK_ALIGN)
    }
}

/// The block split into its sections.
pub(super) struct Parts<'b> {
    pub(super) header: &'b mut Header,
    pub(super) layers: &'b mut [LayerState],
    pub(super) controls: &'b mut [Slot],
    pub(super) masks: &'b mut [F4],
    pub(super) curves: &'b mut [f32],
    pub(super) inertializer: &'b mut [u8],
    pub(super) output: &'b mut [SoaTransform],
    pub(super) model: &'b mut [u8],
    pub(super) palette: &'b mut [Mat3x4],
    pub(super) caches: &'b mut [u8],
    pub(super) scratch: Option<&'b mut [u8]>,
}

/// The per-frame scratch split into its sections.
pub(super) struct ScratchParts<'s> {
    pub(super) slots: &'s mut [u8],
    pub(super) samples: &'s mut [SoaTransform],
    pub(super) target: &'s mut [SoaTransform],
    pub(super) weights: &'s mut [F4],
}

/// `bytes` as `T`s (exact size and alignment, which the layout guarantees).
pub(super) fn view<T: Pod>(bytes: &mut [u8]) -> Result<&mut [T], Error> {
    bytemuck::try_cast_slice_mut(bytes).map_err(|_| Error::StateMismatch)
}

pub(super) fn view_ref<T: Pod>(bytes: &[u8]) -> Result<&[T], Error> {
    bytemuck::try_cast_slice(bytes).map_err(|_| Error::StateMismatch)
}

/// Cuts `rest` at `end` (an offset from the block's start, `*at` being where `rest` starts).
pub(super) fn cut<'b>(
    rest: &mut &'b mut [u8],
    at: &mut usize,
    start: usize,
    end: usize,
) -> Result<&'b mut [u8], Error> {
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
    pub(super) fn split<'b>(&self, block: &'b mut [u8], counts: &Counts) -> Result<Parts<'b>, Error> {
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
    pub(super) fn split<'s>(&self, scratch: &'s mut [u8], counts: &Counts) -> Result<ScratchParts<'s>, Error> {
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

/// The counts and layout a block's header describes, checked against the limits and the block's size.
pub(super) fn read_layout(block: &[u8]) -> Result<(Counts, Layout), Error> {
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
        interpolation: match header.interpolation {
            0 => Interpolation::Linear,
            1 => Interpolation::Cubic,
            _ => return Err(Error::StateMismatch),
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

pub(super) fn check_block(block: &[u8], needed: usize) -> Result<(), Error> {
    if !(block.as_ptr() as usize).is_multiple_of(BLOCK_ALIGN) {
        return Err(Error::BlockAlignment { align: BLOCK_ALIGN });
    }
    if block.len() < needed {
        return Err(Error::BlockSize { needed, len: block.len() });
    }
    Ok(())
}
