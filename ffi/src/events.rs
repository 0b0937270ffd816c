//! What the last update crossed and where the clocks are: each slot's clip, crossed markers, range weights.

use crate::asset::{sinew_asset, stored};
use crate::character::{attach, sinew_character};
use crate::status::{
    SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NULL_POINTER, SINEW_ERROR_STATE_MISMATCH, SINEW_OK, name_arg, put,
    sinew_status, status_of,
};
use core::ffi::c_char;
use sinew::character::SlotId;
use sinew::control::Control;

/// `sinew_character_slot_clip`: the slot plays nothing.
pub const SINEW_NO_CLIP: u32 = u32::MAX;

/// The control in slot `slot` of layer `layer` of the character at `character`, mapped by `read`.
///
/// # Safety
/// As `sinew_character_slot_clip`.
unsafe fn slot<T>(
    character: *mut sinew_character,
    layer: u32,
    slot: u32,
    read: impl FnOnce(Option<Control>) -> T,
    out: *mut T,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let value = unsafe { attach(character) }
        .and_then(|mut c| c.control(SlotId::on(layer as usize, slot as usize)).map(read).map_err(status_of));
    // SAFETY: the caller's contract.
    unsafe { put(out, value) }
}

/// The clip playing in slot `slot` of layer `layer`, or `SINEW_NO_CLIP` for an empty slot.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (layer, slot).
///
/// # Safety
/// `character` points to an initialized character; `out` to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_slot_clip(
    character: *mut sinew_character,
    layer: u32,
    slot: u32,
    out: *mut u32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { self::slot(character, layer, slot, |c| c.map_or(SINEW_NO_CLIP, |c| c.clip()), out) }
}

/// The local time (seconds, wrapped into the clip as the slot's wrap mode says) at which the last update
/// sampled slot `slot` of layer `layer`; -1 for an empty slot. With `sinew_character_slot_clip`, what an
/// engine's own frame samples to show what the character shows (`SINEW_WRAP_CLAMP` at this time).
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (layer, slot).
///
/// # Safety
/// `character` points to an initialized character; `out` to a writable float.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_slot_time(
    character: *mut sinew_character,
    layer: u32,
    slot: u32,
    out: *mut f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { self::slot(character, layer, slot, |c| c.map_or(-1.0, |c| c.time()), out) }
}

/// The markers the last update crossed in slot `slot` of layer `layer`, in the order playback met them
/// (footsteps fire here): indices into the slot's clip's markers (`sinew_asset_marker`), a marker once per
/// pass over it. Writes the first `capacity` of them to `indices` and their number to `*count` (more than
/// `capacity` when some did not fit); none for an empty slot or before the first update.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (layer, slot); `SINEW_ERROR_STATE_MISMATCH` for an asset without
/// the slot's clip.
///
/// # Safety
/// `character` points to an initialized character; `asset` to the loaded asset it was made for; `indices` to
/// `capacity` writable `uint32_t` (NULL when `capacity` is 0); `count` to a writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_crossed_markers(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    layer: u32,
    slot: u32,
    indices: *mut u32,
    capacity: usize,
    count: *mut usize,
) -> sinew_status {
    if count.is_null() || (indices.is_null() && capacity > 0) {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    let (asset, mut character) = match unsafe { stored(asset).and_then(|a| Ok((a, attach(character)?))) } {
        Ok(both) => both,
        Err(status) => return status,
    };
    let at = SlotId::on(layer as usize, slot as usize);
    let (control, step) = match (character.control(at), character.last_step(at)) {
        (Ok(Some(control)), Ok(Some(step))) => (control, step),
        (Ok(_), Ok(_)) => {
            // SAFETY: checked not NULL; writable by the caller's contract.
            unsafe { count.write(0) };
            return SINEW_OK;
        }
        (Err(e), _) | (_, Err(e)) => return status_of(e),
    };
    let clip = control.clip() as usize;
    if clip >= asset.asset.num_clips() {
        return SINEW_ERROR_STATE_MISMATCH;
    }
    let mut crossed = 0;
    for marker in step.crossings(asset.asset.markers(clip)) {
        if crossed < capacity {
            // SAFETY: `crossed < capacity` entries are writable by the caller's contract.
            unsafe { indices.add(crossed).write(marker as u32) };
        }
        crossed += 1;
    }
    // SAFETY: checked not NULL; writable by the caller's contract.
    unsafe { count.write(crossed) };
    SINEW_OK
}

/// The share of layer `layer`'s weight held by clips inside a range named by the `len` bytes at `name` (a foot
/// plant `plant:<joint>`, a segment) at their current time: 1 when every weighted clip is, 0 when none is.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (layer); `SINEW_ERROR_INVALID_ARGUMENT` for a name that is not
/// UTF-8; `SINEW_ERROR_STATE_MISMATCH` for an asset without a playing clip.
///
/// # Safety
/// `character` points to an initialized character; `asset` to the loaded asset it was made for; `name` to `len`
/// readable bytes; `out` to a writable `float`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_range_weight(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    layer: u32,
    name: *const c_char,
    len: usize,
    out: *mut f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let weight = unsafe {
        stored(asset).and_then(|a| Ok((a, attach(character)?, name_arg(name, len, SINEW_ERROR_INVALID_ARGUMENT)?)))
    }
    .and_then(|(asset, mut character, name)| {
        character.range_weight(&asset.asset, layer as usize, name).map_err(status_of)
    });
    // SAFETY: the caller's contract.
    unsafe { put(out, weight) }
}
