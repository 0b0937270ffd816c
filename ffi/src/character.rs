//! Characters in caller memory: the description, initialization, play and transitions, the update, masks,
//! fades, curves, root motion, and the outputs (model matrices, palette).

use crate::asset::{StoredAsset, sinew_asset, stored};
use crate::jobs::sampling::{SINEW_WRAP_CLAMP, SINEW_WRAP_LOOP, SINEW_WRAP_PING_PONG};
use crate::status::{
    SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_INVALID_DESC, SINEW_ERROR_INVALID_HANDLE, SINEW_ERROR_MEMORY_ALIGNMENT,
    SINEW_ERROR_MEMORY_TOO_SMALL, SINEW_ERROR_NULL_POINTER, SINEW_OK, put, sinew_status, status, status_of,
};
use core::ffi::c_void;
use core::mem::{align_of, size_of};
use sinew::character::{
    BLOCK_ALIGN, Blend, Character, CharacterDesc, LayerDesc, LayerKind, Play, Rig, Sampling, Scratch, SlotId, SyncMode,
};
use sinew::control::Wrap;
use sinew::error::Error;
use sinew::inertialization::{Settings, Transition};
use sinew::limits::MAX_CHARACTER_LAYERS;
use sinew::math::{F4, Mat3x4, Mat4};
use sinew::sampling::Interpolation;
use sinew::skeleton::MAX_JOINTS;

/// Required alignment of a character's memory.
pub const SINEW_CHARACTER_ALIGN: usize = 64;
/// `sinew_layer_desc`'s size in bytes (alignment 4).
pub const SINEW_LAYER_DESC_SIZE: usize = 8;

// The header spells these out as numbers; they must stay the core's.
const _: () = assert!(SINEW_CHARACTER_ALIGN == BLOCK_ALIGN);
const _: () = assert!(
    SINEW_LAYER_BASE == LayerKind::Base as u32
        && SINEW_LAYER_OVERLAY == LayerKind::Overlay as u32
        && SINEW_LAYER_SYNCED_ADDITIVE == LayerKind::SyncedAdditive as u32
        && SINEW_LAYER_OVERLAPPING_ADDITIVE == LayerKind::OverlappingAdditive as u32
);

/// A character: opaque, at the start of the memory the caller gave `sinew_character_init`.
pub struct sinew_character {
    _opaque: [u8; 0],
}

/// `sinew_layer_desc::kind`: the bottom layer (layer 0, and only there).
pub const SINEW_LAYER_BASE: u32 = 0;
/// Replaces the joints of the pose below, by the layer's weight.
pub const SINEW_LAYER_OVERLAY: u32 = 1;
/// Adds its clips' deltas; its time follows the base's normalized time.
pub const SINEW_LAYER_SYNCED_ADDITIVE: u32 = 2;
/// Adds its clips' deltas on their own clocks.
pub const SINEW_LAYER_OVERLAPPING_ADDITIVE: u32 = 3;

/// One layer of a character.
///
/// Layout: 8 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_layer_desc {
    /// One of the `SINEW_LAYER_*` kinds.
    pub kind: u32,
    /// Control slots (clips playing at once) of the layer, at least 1.
    pub controls: u32,
}

/// `sinew_character_desc::inertialization`: transitions are cuts or crossfades.
pub const SINEW_INERTIALIZATION_NONE: u32 = 0;
/// Inertialized transitions with the default settings (per-component, relative velocity).
pub const SINEW_INERTIALIZATION_DEFAULT: u32 = 1;

/// What a character holds; sizes its memory.
///
/// Layout: 32 bytes, 8-byte aligned, on 64-bit targets (`layers` is a pointer).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_character_desc {
    /// `num_layers` layers; layer 0 must be the one `SINEW_LAYER_BASE`.
    pub layers: *const sinew_layer_desc,
    /// Layers in `layers`.
    pub num_layers: u32,
    /// Bone masks the character stores.
    pub num_masks: u32,
    /// Scalar curves the character smooths with its pose.
    pub num_curves: u32,
    /// `SINEW_INERTIALIZATION_NONE` or `SINEW_INERTIALIZATION_DEFAULT`.
    pub inertialization: u32,
    /// Nonzero: the character computes a skinning palette for the asset's skin (the asset needs one).
    pub skinned: u32,
    /// `SINEW_SAMPLING_SHARED` (zero) or `SINEW_SAMPLING_PER_CONTROL`, either or'ed with `SINEW_SAMPLING_CUBIC`.
    pub sampling: u32,
}

/// `sinew_character_desc::sampling`: one sampling context serves every control, so each update decodes two
/// frames per playing control (a seek); no memory per control.
pub const SINEW_SAMPLING_SHARED: u32 = 0;
/// Each control slot keeps its own sampling context in the character's memory across updates: playing forward
/// decodes each frame once, and compressed clips keep their segment's decoders for every track. Costs about
/// 176 bytes per joint per control slot.
pub const SINEW_SAMPLING_PER_CONTROL: u32 = 1;
/// A flag of `sinew_character_desc::sampling`: samples between keys follow a Catmull-Rom spline through the four
/// keys around them, continuous in velocity (`SINEW_INTERPOLATION_CUBIC`), instead of the default lerp between
/// two. Doubles the sampling contexts' memory.
pub const SINEW_SAMPLING_CUBIC: u32 = 0x100;

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<sinew_character_desc>() == 32 && align_of::<sinew_character_desc>() == 8);
const _: () = assert!(size_of::<sinew_layer_desc>() == SINEW_LAYER_DESC_SIZE);

/// `sinew_play::mask`: no bone mask.
pub const SINEW_NO_MASK: u32 = u32::MAX;

/// A clip to play in a control slot, for `sinew_character_play_slot`.
///
/// Layout: 32 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_play {
    /// The layer.
    pub layer: u32,
    /// The control slot in the layer.
    pub slot: u32,
    /// The clip index in the asset.
    pub clip: u32,
    /// Local start time, seconds, in `[0, duration]`.
    pub time: f32,
    /// Playback rate; negative plays backward.
    pub speed: f32,
    /// In `[0, 1]`.
    pub weight: f32,
    /// One of `SINEW_WRAP_*`.
    pub wrap: u32,
    /// A bone mask index, or `SINEW_NO_MASK`.
    pub mask: u32,
}

const _: () = assert!(size_of::<sinew_play>() == 32 && align_of::<sinew_play>() == 4);

/// What precedes the character's block in the caller's memory: the block's length and where its outputs
/// are, so the outputs can be read through a `const` pointer and the memory moved between calls.
#[repr(C)]
pub(crate) struct Prefix {
    pub(crate) magic: u64,
    pub(crate) block_len: u64,
    pub(crate) model_offset: u64,
    pub(crate) model_count: u64,
    pub(crate) palette_offset: u64,
    pub(crate) palette_count: u64,
}

const CHARACTER_MAGIC: u64 = u64::from_le_bytes(*b"snwCHARA");
/// The magic while an edit callback runs: every call reaching the character then fails as an invalid handle.
const BUSY_MAGIC: u64 = u64::from_le_bytes(*b"snwBUSY!");
/// The prefix takes one alignment unit, so the block after it stays aligned.
pub(crate) const PREFIX_BYTES: usize = BLOCK_ALIGN;
const _: () = assert!(size_of::<Prefix>() <= PREFIX_BYTES);

/// The core's description of a character of `asset` per `desc`, its layers copied into `layers`.
///
/// # Safety
/// `desc` is NULL or readable, its `layers` pointing to `num_layers` readable entries.
unsafe fn character_desc<'l>(
    asset: &StoredAsset,
    desc: *const sinew_character_desc,
    layers: &'l mut [LayerDesc; MAX_CHARACTER_LAYERS],
) -> Result<CharacterDesc<'l>, sinew_status> {
    if desc.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    // SAFETY: not NULL; readable by the caller's contract.
    let desc = unsafe { desc.read_unaligned() };
    let count = desc.num_layers as usize;
    if count == 0 || count > MAX_CHARACTER_LAYERS {
        return Err(SINEW_ERROR_INVALID_DESC);
    }
    if desc.layers.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    for (k, layer) in layers.iter_mut().enumerate().take(count) {
        // SAFETY: `k < num_layers` entries are readable by the caller's contract.
        let raw = unsafe { desc.layers.add(k).read_unaligned() };
        let kind = match raw.kind {
            SINEW_LAYER_BASE => LayerKind::Base,
            SINEW_LAYER_OVERLAY => LayerKind::Overlay,
            SINEW_LAYER_SYNCED_ADDITIVE => LayerKind::SyncedAdditive,
            SINEW_LAYER_OVERLAPPING_ADDITIVE => LayerKind::OverlappingAdditive,
            _ => return Err(SINEW_ERROR_INVALID_DESC),
        };
        *layer = LayerDesc { kind, controls: raw.controls as usize };
    }
    let inertialization = match desc.inertialization {
        SINEW_INERTIALIZATION_NONE => None,
        SINEW_INERTIALIZATION_DEFAULT => Some(Settings::default()),
        _ => return Err(SINEW_ERROR_INVALID_DESC),
    };
    let num_skin_joints = match (desc.skinned, asset.asset.skin()) {
        (0, _) => 0,
        (_, Some(skin)) => skin.num_joints(),
        (_, None) => return Err(SINEW_ERROR_INVALID_DESC),
    };
    let num_joints = asset.asset.skeleton().num_joints();
    let interpolation = match desc.sampling & SINEW_SAMPLING_CUBIC {
        0 => Interpolation::Linear,
        _ => Interpolation::Cubic,
    };
    let sampling = match desc.sampling & !SINEW_SAMPLING_CUBIC {
        SINEW_SAMPLING_SHARED => Sampling::Shared,
        SINEW_SAMPLING_PER_CONTROL => Sampling::PerControl { max_tracks: 3 * num_joints },
        _ => return Err(SINEW_ERROR_INVALID_DESC),
    };
    Ok(CharacterDesc {
        num_joints,
        num_skin_joints,
        layers: &layers[..count],
        num_masks: desc.num_masks as usize,
        num_curves: desc.num_curves as usize,
        inertialization,
        scratch: Scratch::InBlock,
        sampling,
        interpolation,
    })
}

/// Bytes of memory a character of `asset` per `desc` needs (a multiple of `SINEW_CHARACTER_ALIGN`).
///
/// Errors: `SINEW_ERROR_INVALID_DESC` for a description the core refuses.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `desc` to a readable description; `out` to a writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_required_bytes(
    asset: *const sinew_asset,
    desc: *const sinew_character_desc,
    out: *mut usize,
) -> sinew_status {
    let mut layers = [LayerDesc { kind: LayerKind::Base, controls: 1 }; MAX_CHARACTER_LAYERS];
    // SAFETY: the caller's contract.
    let bytes = unsafe { stored(asset) }
        .and_then(|a| unsafe { character_desc(a, desc, &mut layers) })
        .and_then(|d| Character::required_bytes(&d).map_err(status_of))
        .map(|b| PREFIX_BYTES + b);
    // SAFETY: the caller's contract.
    unsafe { put(out, bytes) }
}

/// Lays out a character of `asset` per `desc` in the `len` bytes at `memory` (aligned to
/// `SINEW_CHARACTER_ALIGN`, at least `sinew_character_required_bytes`), with no clip playing, and points `*out`
/// at it. The memory is the character: the caller keeps it alive, may copy it byte for byte to another
/// aligned address between calls and use the copy (`*out` moves with it: it is `memory`), and frees it when
/// done. Nothing is written on an error.
///
/// # Safety
/// `memory` points to `len` writable bytes used by no one else while the character lives; `asset` points to
/// a loaded `sinew_asset`; `desc` to a readable description; `out` to a writable pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_init(
    memory: *mut c_void,
    len: usize,
    asset: *const sinew_asset,
    desc: *const sinew_character_desc,
    out: *mut *mut sinew_character,
) -> sinew_status {
    if memory.is_null() || out.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    let mut layers = [LayerDesc { kind: LayerKind::Base, controls: 1 }; MAX_CHARACTER_LAYERS];
    // SAFETY: the caller's contract.
    let desc = match unsafe { stored(asset) }.and_then(|a| unsafe { character_desc(a, desc, &mut layers) }) {
        Ok(desc) => desc,
        Err(status) => return status,
    };
    let block_len = match Character::required_bytes(&desc) {
        Ok(bytes) => bytes,
        Err(e) => return status_of(e),
    };
    if !(memory as usize).is_multiple_of(SINEW_CHARACTER_ALIGN) {
        return SINEW_ERROR_MEMORY_ALIGNMENT;
    }
    if len < PREFIX_BYTES + block_len {
        return SINEW_ERROR_MEMORY_TOO_SMALL;
    }
    // SAFETY: `len >= PREFIX_BYTES + block_len` writable bytes at `memory`, used by no one else.
    let block = unsafe { core::slice::from_raw_parts_mut(memory.cast::<u8>().add(PREFIX_BYTES), block_len) };
    let base = block.as_ptr() as usize;
    let character = match Character::new(block, &desc) {
        Ok(character) => character,
        Err(e) => return status_of(e),
    };
    let (model, palette) = (character.model(), character.palette());
    let prefix = Prefix {
        magic: CHARACTER_MAGIC,
        block_len: block_len as u64,
        model_offset: (model.as_ptr() as usize - base) as u64,
        model_count: model.len() as u64,
        palette_offset: (palette.as_ptr() as usize - base) as u64,
        palette_count: palette.len() as u64,
    };
    // SAFETY: the prefix's bytes lie before the block, inside the caller's memory, aligned.
    unsafe {
        memory.cast::<Prefix>().write(prefix);
        out.write(memory.cast());
    }
    SINEW_OK
}

/// The prefix of the character at `character`, checked.
///
/// # Safety
/// `character` is NULL or points to memory `sinew_character_init` laid out (or a copy of it).
pub(crate) unsafe fn prefix<'a>(character: *const sinew_character) -> Result<&'a Prefix, sinew_status> {
    if character.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    if !(character as usize).is_multiple_of(SINEW_CHARACTER_ALIGN) {
        return Err(SINEW_ERROR_INVALID_HANDLE);
    }
    // SAFETY: aligned and readable by the caller's contract.
    let prefix = unsafe { &*character.cast::<Prefix>() };
    let fits = |offset: u64, count: u64, size: usize| {
        offset.checked_add(count.saturating_mul(size as u64)).is_some_and(|end| end <= prefix.block_len)
    };
    let ok = prefix.magic == CHARACTER_MAGIC
        && prefix.block_len <= isize::MAX as u64
        && fits(prefix.model_offset, prefix.model_count, size_of::<Mat4>())
        && fits(prefix.palette_offset, prefix.palette_count, size_of::<Mat3x4>());
    if ok { Ok(prefix) } else { Err(SINEW_ERROR_INVALID_HANDLE) }
}

/// Marks the character at `character` busy (an edit callback runs) or done.
///
/// # Safety
/// `character` points to a character whose prefix was checked, and no reference to the prefix is live.
pub(crate) unsafe fn mark_busy(character: *mut sinew_character, busy: bool) {
    let magic = if busy { BUSY_MAGIC } else { CHARACTER_MAGIC };
    // SAFETY: the prefix starts with its magic, aligned (the caller's contract).
    unsafe { character.cast::<u64>().write(magic) };
}

/// The character at `character`, attached (its block validated).
///
/// # Safety
/// `character` is NULL or points to writable memory `sinew_character_init` laid out, used by no one else
/// during the call.
pub(crate) unsafe fn attach<'a>(character: *mut sinew_character) -> Result<Character<'a>, sinew_status> {
    // SAFETY: the caller's contract.
    let block_len = unsafe { prefix(character) }?.block_len as usize;
    // SAFETY: `sinew_character_init` laid out `block_len` bytes after the prefix.
    let block = unsafe { core::slice::from_raw_parts_mut(character.cast::<u8>().add(PREFIX_BYTES), block_len) };
    Character::attach(block).map_err(status_of)
}

/// Plays clip `clip` in slot 0 of layer `layer`, looping, from local time `time` (seconds), at `speed` and
/// `weight`, replacing what played there.
///
/// # Safety
/// `character` points to an initialized character; `asset` to the loaded asset it was made for.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_play(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    layer: u32,
    clip: u32,
    time: f32,
    speed: f32,
    weight: f32,
) -> sinew_status {
    let play = sinew_play { layer, slot: 0, clip, time, speed, weight, wrap: SINEW_WRAP_LOOP, mask: SINEW_NO_MASK };
    // SAFETY: the caller's contract.
    unsafe { sinew_character_play_slot(character, asset, &play) }
}

/// The core's `Play` for `play`.
pub(crate) fn core_play(play: &sinew_play) -> Result<Play, sinew_status> {
    let wrap = match play.wrap {
        SINEW_WRAP_LOOP => Wrap::Loop,
        SINEW_WRAP_CLAMP => Wrap::Clamp,
        SINEW_WRAP_PING_PONG => Wrap::PingPong,
        _ => return Err(SINEW_ERROR_INVALID_ARGUMENT),
    };
    let mask = (play.mask != SINEW_NO_MASK).then_some(play.mask as usize);
    Ok(Play { clip: play.clip as usize, time: play.time, speed: play.speed, weight: play.weight, wrap, mask })
}

/// Plays `*play` (any layer, slot, wrap mode and mask), replacing what played in its slot.
///
/// # Safety
/// As `sinew_character_play`; `play` points to a readable `sinew_play`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_play_slot(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    play: *const sinew_play,
) -> sinew_status {
    if play.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: not NULL; readable by the caller's contract.
    let play = unsafe { play.read_unaligned() };
    status((|| {
        // SAFETY: the caller's contract.
        let (asset, mut character) = unsafe { (stored(asset)?, attach(character)?) };
        character
            .play(&asset.asset, SlotId::on(play.layer as usize, play.slot as usize), core_play(&play)?)
            .map_err(status_of)
    })())
}

/// Switches the base layer to clip `clip` (slot 0, looping, from `time` at `speed`, full weight) with an
/// inertialized transition of `duration` seconds: the other base clips stop at once and the inertializer
/// removes the offset. `duration` 0 is a cut.
///
/// Errors: `SINEW_ERROR_NO_INERTIALIZER` for a character made with `SINEW_INERTIALIZATION_NONE` and a
/// `duration` above 0.
///
/// # Safety
/// As `sinew_character_play`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_transition(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    clip: u32,
    time: f32,
    speed: f32,
    duration: f32,
) -> sinew_status {
    let (play, blend) = base_switch(clip, time, speed, duration);
    status((|| {
        // SAFETY: the caller's contract.
        let (asset, mut character) = unsafe { (stored(asset)?, attach(character)?) };
        character.transition(&asset.asset, 0, play, blend).map_err(status_of)
    })())
}

/// Switches the base layer to clip `clip` (looping, from `time` at `speed`) with a crossfade of `duration`
/// seconds: the other base clips fade out while it fades in, each sampled and blended meanwhile (the cost an
/// inertialized transition saves); `duration` 0 is a cut. The new clip takes the first empty base slot, or
/// else the one with the least weight (a clip still fading out).
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a time, speed or duration not finite (or a duration below 0);
/// `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a clip the asset lacks.
///
/// # Safety
/// As `sinew_character_play`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_crossfade(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    clip: u32,
    time: f32,
    speed: f32,
    duration: f32,
) -> sinew_status {
    let (play, _) = base_switch(clip, time, speed, 0.0);
    let blend = if duration == 0.0 { Blend::Cut } else { Blend::Crossfade { duration } };
    status((|| {
        // SAFETY: the caller's contract.
        let (asset, mut character) = unsafe { (stored(asset)?, attach(character)?) };
        // The base's slots in order, until the index runs past them: the first empty one, else the lightest.
        let mut slot = (0, f32::INFINITY);
        for k in 0.. {
            match character.control(SlotId::base(k)) {
                Ok(None) => {
                    slot = (k, f32::NEG_INFINITY);
                    break;
                }
                Ok(Some(control)) if control.weight() < slot.1 => slot = (k, control.weight()),
                Ok(Some(_)) => {}
                Err(_) => break,
            }
        }
        character.transition(&asset.asset, slot.0, play, blend).map_err(status_of)
    })())
}

/// What `sinew_character_transition` plays and how: `clip` looping at full weight, cut for a `duration` of 0.
pub(crate) fn base_switch(clip: u32, time: f32, speed: f32, duration: f32) -> (Play, Blend<'static>) {
    let play = Play { clip: clip as usize, time, speed, weight: 1.0, wrap: Wrap::Loop, mask: None };
    let blend = if duration == 0.0 { Blend::Cut } else { Blend::Inertialize(Transition { duration, profile: None }) };
    (play, blend)
}

/// `sinew_character_transition_synced`: enter at the given time.
pub const SINEW_SYNC_NONE: u32 = 0;
/// Enter at the target's first time with the leading base clip's stride phase (Gears of War 4; both clips
/// baked with `--phase`).
pub const SINEW_SYNC_PHASE: u32 = 1;
/// Enter at the target time whose two foot phases are nearest the leading base clip's (Just Cause 3; both
/// clips with footstep markers).
pub const SINEW_SYNC_FOOT_PHASE: u32 = 2;

/// `sinew_character_transition` entering the target where `sync` says (one of `SINEW_SYNC_*`): at the time
/// matching the leading base clip's phase, or at `time` when the clips match nothing (no phase, no
/// footsteps). Writes the start time used to `*start`.
///
/// Errors: those of `sinew_character_transition`; `SINEW_ERROR_INVALID_ARGUMENT` for another `sync`.
///
/// # Safety
/// As `sinew_character_play`; `start` points to a writable `float`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_transition_synced(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    clip: u32,
    time: f32,
    speed: f32,
    duration: f32,
    sync: u32,
    start: *mut f32,
) -> sinew_status {
    let sync = match sync {
        SINEW_SYNC_NONE => SyncMode::None,
        SINEW_SYNC_PHASE => SyncMode::Phase,
        SINEW_SYNC_FOOT_PHASE => SyncMode::FootPhase,
        _ => return SINEW_ERROR_INVALID_ARGUMENT,
    };
    if start.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    let (play, blend) = base_switch(clip, time, speed, duration);
    // SAFETY: the caller's contract.
    let entered = unsafe { stored(asset).and_then(|a| Ok((a, attach(character)?))) }
        .and_then(|(asset, mut c)| c.transition_synced(&asset.asset, 0, play, blend, sync).map_err(status_of));
    // SAFETY: the caller's contract.
    unsafe { put(start, entered) }
}

/// Advances every clock by `dt` seconds and computes the frame: pose, model matrices and, for a skinned
/// character, the palette.
///
/// # Safety
/// As `sinew_character_play`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_update(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    dt: f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    status(unsafe { with_rig(character, asset, |character, rig| character.update(dt, rig)) })
}

/// Advances every clock by `dt` seconds and records the root motion and the crossed markers, as
/// `sinew_character_update` does, without a pose: for characters that move but are not seen. The model
/// matrices and palette keep the last full update's values.
///
/// # Safety
/// As `sinew_character_play`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_update_motion(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    dt: f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    status(unsafe { with_rig(character, asset, |character, rig| character.update_motion(dt, rig)) })
}

/// Runs `update` on the character at `character` with the rig of `asset`.
///
/// # Safety
/// As `sinew_character_play`.
pub(crate) unsafe fn with_rig<T>(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    update: impl FnOnce(&mut Character<'_>, &Rig<'_>) -> Result<T, Error>,
) -> Result<T, sinew_status> {
    // SAFETY: the caller's contract.
    let (asset, mut character) = unsafe { (stored(asset)?, attach(character)?) };
    let rig = Rig::with_walk(&asset.asset, asset.asset.skin(), asset.walk).map_err(status_of)?;
    update(&mut character, &rig).map_err(status_of)
}

/// The character at `character`, attached, and the `count` floats at `values`.
///
/// # Safety
/// As `attach`; `values` is NULL or points to `count` readable floats.
pub(crate) unsafe fn with_floats<'a>(
    character: *mut sinew_character,
    values: *const f32,
    count: usize,
) -> Result<(Character<'a>, &'a [f32]), sinew_status> {
    if values.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    // SAFETY: the caller's contract: an attachable character and `count` readable floats.
    unsafe { Ok((attach(character)?, core::slice::from_raw_parts(values, count))) }
}

/// Sets bone mask `mask`: `count` per-joint factors (one per skeleton joint, in joint order; finite and >= 0,
/// and > 0 while a layer fades by the mask), for `sinew_play::mask` and `sinew_character_set_layer_masks`.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a mask the description did not ask for;
/// `SINEW_ERROR_INVALID_ARGUMENT` for a count other than the joints' or a factor outside the range.
///
/// # Safety
/// `character` points to an initialized character; `weights` to `count` readable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_set_mask(
    character: *mut sinew_character,
    mask: u32,
    weights: *const f32,
    count: usize,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let (mut character, weights) = match unsafe { with_floats(character, weights, count) } {
        Ok(both) => both,
        Err(status) => return status,
    };
    if count != character.num_joints() {
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    // SoA lane groups on the stack: a skeleton has at most `MAX_JOINTS` joints, so 4 KiB at most.
    let mut lanes = [F4::ZERO; MAX_JOINTS / 4];
    for (group, chunk) in lanes.iter_mut().zip(weights.chunks(4)) {
        let mut four = [0.0; 4];
        four[..chunk.len()].copy_from_slice(chunk);
        *group = F4::from_array(four);
    }
    let groups = count.div_ceil(4);
    status(character.set_mask(mask as usize, &lanes[..groups]).map_err(status_of))
}

/// Sets layer `layer`'s bone mask and fade profile (mask indices, or `SINEW_NO_MASK` for none).
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (layer, mask); `SINEW_ERROR_INVALID_ARGUMENT` for a profile with a
/// zero factor.
///
/// # Safety
/// `character` points to an initialized character.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_set_layer_masks(
    character: *mut sinew_character,
    layer: u32,
    mask: u32,
    profile: u32,
) -> sinew_status {
    let index = |m: u32| (m != SINEW_NO_MASK).then_some(m as usize);
    // SAFETY: the caller's contract.
    status(unsafe { attach(character) }.and_then(|mut character| {
        character.set_layer_masks(layer as usize, index(mask), index(profile)).map_err(status_of)
    }))
}

/// Fades layer `layer`'s weight to `target` (in [0, 1]) over `duration` seconds (times its profile per joint).
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (layer); `SINEW_ERROR_INVALID_ARGUMENT` for a target or duration
/// out of range.
///
/// # Safety
/// `character` points to an initialized character.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_fade_layer(
    character: *mut sinew_character,
    layer: u32,
    target: f32,
    duration: f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    status(
        unsafe { attach(character) }
            .and_then(|mut c| c.fade_layer(layer as usize, target, duration).map_err(status_of)),
    )
}

/// Sets the target values of the character's scalar curves (morph weights, IK weights) for the next update:
/// `count` finite floats, one per curve of the description; the inertializer smooths them on transitions.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for another count or a value that is not finite (the curves stay as
/// they were).
///
/// # Safety
/// `character` points to an initialized character; `values` to `count` readable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_set_curves(
    character: *mut sinew_character,
    values: *const f32,
    count: usize,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let (mut character, values) = match unsafe { with_floats(character, values, count) } {
        Ok(both) => both,
        Err(status) => return status,
    };
    match character.curves_mut() {
        Ok(curves) if curves.len() == count && values.iter().all(|v| v.is_finite()) => {
            curves.copy_from_slice(values);
            SINEW_OK
        }
        Ok(_) => SINEW_ERROR_INVALID_ARGUMENT,
        Err(e) => status_of(e),
    }
}

/// The root motion of the last update: the motion root's translation (`translation[3]`, file units) and its
/// turn about +Y (`*yaw`, radians), for the game to apply to the character's world transform. Zero before a
/// clip with a motion root plays.
///
/// # Safety
/// `character` points to an initialized character; `translation` to three writable floats; `yaw` to one.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_root_motion(
    character: *mut sinew_character,
    translation: *mut f32,
    yaw: *mut f32,
) -> sinew_status {
    if translation.is_null() || yaw.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    match unsafe { attach(character) } {
        Ok(character) => {
            let motion = character.root_motion();
            // SAFETY: checked not NULL; three and one writable floats by the caller's contract.
            unsafe {
                translation.cast::<[f32; 3]>().write_unaligned(motion.translation.to_array());
                yaw.write(motion.yaw);
            }
            SINEW_OK
        }
        Err(status) => status,
    }
}

/// Points `*out` at the floats of the output at `offset` and writes its matrix count.
///
/// # Safety
/// As `sinew_character_model_matrices`.
unsafe fn output(
    character: *const sinew_character,
    which: fn(&Prefix) -> (u64, u64),
    out: *mut *const f32,
    count: *mut usize,
) -> sinew_status {
    if out.is_null() || count.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    match unsafe { prefix(character) } {
        Ok(prefix) => {
            let (offset, matrices) = which(prefix);
            // SAFETY: `prefix` checked that the output lies inside the block; both pointers are writable.
            unsafe {
                out.write(character.cast::<u8>().add(PREFIX_BYTES + offset as usize).cast());
                count.write(matrices as usize);
            }
            SINEW_OK
        }
        Err(status) => status,
    }
}

/// The last update's model-space matrices: `*count` (the skeleton's joints) 4×4 matrices of 16 floats each,
/// column-major (column 3 holds the translation), 32-byte aligned, in joint order. The pointer stays valid
/// until the character's memory moves or is freed; the values change with each update.
///
/// # Safety
/// `character` points to an initialized character; `out` and `count` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_model_matrices(
    character: *const sinew_character,
    out: *mut *const f32,
    count: *mut usize,
) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { output(character, |p| (p.model_offset, p.model_count), out, count) }
}

/// The last update's skinning palette: `*count` (the skin's joints; 0 for a character made without
/// `skinned`) affine matrices of 12 floats each, three rows of four, row-major (the GPU layout:
/// `dot(row, vec4(p, 1))`), 16-byte aligned. Validity as `sinew_character_model_matrices`.
///
/// # Safety
/// As `sinew_character_model_matrices`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_palette_3x4(
    character: *const sinew_character,
    out: *mut *const f32,
    count: *mut usize,
) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { output(character, |p| (p.palette_offset, p.palette_count), out, count) }
}
