//! Assets: a baked blob loaded and validated once, and what a game looks up in it (joints, clips, curves,
//! markers).

use crate::status::{
    SINEW_ERROR_BLOB_ALIGNMENT, SINEW_ERROR_BLOB_CORRUPT, SINEW_ERROR_BLOB_FORMAT, SINEW_ERROR_INDEX_OUT_OF_RANGE,
    SINEW_ERROR_INVALID_HANDLE, SINEW_ERROR_NULL_POINTER, SINEW_OK, name_arg, put, sinew_status, status_of,
};
use core::ffi::c_char;
use core::mem::{align_of, size_of};
use sinew::asset::Asset;
use sinew::local_to_model::GroupWalk;
use sinew::skeleton::MAX_JOINTS;

/// Required alignment of a blob passed to `sinew_asset_load`.
pub const SINEW_BLOB_ALIGN: usize = 16;
/// The most joints a skeleton has.
pub const SINEW_MAX_JOINTS: u32 = 1024;
const _: () = assert!(SINEW_MAX_JOINTS as usize == MAX_JOINTS);

/// `sinew_asset`'s size in bytes (its alignment is 8): fixed within a major ABI version.
pub const SINEW_ASSET_SIZE: usize = 1280;
/// `sinew_asset`'s size in 64-bit words.
pub const SINEW_ASSET_WORDS: usize = 160;

/// A loaded asset: a validated view of the caller's blob (skeleton, clips, skin) and the skeleton's walk
/// order. The caller declares it (on its stack, in its own structs) and fills it with `sinew_asset_load`; it
/// borrows the blob, which must stay alive and unchanged while the asset is used. It holds no other pointer
/// and may be copied byte for byte.
///
/// Layout: `SINEW_ASSET_SIZE` bytes, 8-byte aligned, opaque.
#[repr(C)]
pub struct sinew_asset {
    /// Opaque words; only the library reads them.
    pub opaque: [core::mem::MaybeUninit<u64>; SINEW_ASSET_WORDS],
}

/// What `sinew_asset` holds. `magic` first, so a handle that was never loaded is caught before the rest is
/// read.
pub(crate) struct StoredAsset {
    magic: u64,
    pub(crate) asset: Asset<'static>,
    pub(crate) walk: GroupWalk,
    /// The blob the asset borrows: no job may write over it.
    pub(crate) blob: &'static [u8],
}

const ASSET_MAGIC: u64 = u64::from_le_bytes(*b"snwASSET");

const _: () = assert!(size_of::<StoredAsset>() <= size_of::<sinew_asset>());
const _: () = assert!(align_of::<StoredAsset>() <= align_of::<sinew_asset>());
const _: () = assert!(size_of::<sinew_asset>() == SINEW_ASSET_SIZE && align_of::<sinew_asset>() == 8);
const _: () = assert!(SINEW_ASSET_WORDS * 8 == SINEW_ASSET_SIZE);

/// Loads `len` bytes at `blob` (a blob baked by `sinew-bake`, starting on a `SINEW_BLOB_ALIGN` boundary) into
/// `*out`, validating all of it once (O(blob size)). The asset borrows the blob.
///
/// # Safety
/// `blob` points to `len` readable bytes that stay alive and unchanged while `*out` is used; `out` points to a
/// writable `sinew_asset`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_load(blob: *const u8, len: usize, out: *mut sinew_asset) -> sinew_status {
    if blob.is_null() || out.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller guarantees `len` readable bytes at `blob` for as long as the asset is used.
    let bytes: &'static [u8] = unsafe { core::slice::from_raw_parts(blob, len) };
    let asset = match Asset::load(bytes) {
        Ok(asset) => asset,
        // Whatever the loader found wrong inside the blob (a count, a value, an index) is corruption.
        Err(e) => {
            return match status_of(e) {
                status @ (SINEW_ERROR_BLOB_ALIGNMENT | SINEW_ERROR_BLOB_FORMAT) => status,
                _ => SINEW_ERROR_BLOB_CORRUPT,
            };
        }
    };
    let walk = GroupWalk::new(asset.skeleton());
    // SAFETY: `out` is writable and aligned for a `sinew_asset`, which is large and aligned enough (asserted).
    unsafe { out.cast::<StoredAsset>().write(StoredAsset { magic: ASSET_MAGIC, asset, walk, blob: bytes }) };
    SINEW_OK
}

/// The loaded asset behind `asset`.
///
/// # Safety
/// `asset` is NULL or points to a readable `sinew_asset`.
pub(crate) unsafe fn stored<'a>(asset: *const sinew_asset) -> Result<&'a StoredAsset, sinew_status> {
    if asset.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    if !(asset as usize).is_multiple_of(align_of::<sinew_asset>()) {
        return Err(SINEW_ERROR_INVALID_HANDLE);
    }
    // SAFETY: readable and aligned; the magic is read alone first, so a handle that was never loaded is
    // refused before the asset's fields are.
    if unsafe { (&raw const (*asset.cast::<StoredAsset>()).magic).read() } != ASSET_MAGIC {
        return Err(SINEW_ERROR_INVALID_HANDLE);
    }
    // SAFETY: the magic says `sinew_asset_load` wrote a `StoredAsset` here.
    Ok(unsafe { &*asset.cast::<StoredAsset>() })
}

/// Joints of the asset's skeleton.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `out` to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_num_joints(asset: *const sinew_asset, out: *mut u32) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { put(out, stored(asset).map(|a| a.asset.skeleton().num_joints() as u32)) }
}

/// Joints of the asset's skin (the palette's length), 0 when the asset has no skin.
///
/// # Safety
/// As `sinew_asset_num_joints`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_num_skin_joints(asset: *const sinew_asset, out: *mut u32) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { put(out, stored(asset).map(|a| a.asset.skin().map_or(0, |s| s.num_joints() as u32))) }
}

/// Clips in the asset.
///
/// # Safety
/// As `sinew_asset_num_joints`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_num_clips(asset: *const sinew_asset, out: *mut u32) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { put(out, stored(asset).map(|a| a.asset.num_clips() as u32)) }
}

/// Duration of clip `clip`, seconds.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `out` to a writable `float`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_clip_duration(
    asset: *const sinew_asset,
    clip: u32,
    out: *mut f32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let duration = unsafe { stored(asset) }
        .and_then(|a| a.asset.clip(clip as usize).map(|c| c.duration()).ok_or(SINEW_ERROR_INDEX_OUT_OF_RANGE));
    // SAFETY: the caller's contract.
    unsafe { put(out, duration) }
}

/// The parent of joint `joint`, or -1 for a root (parents come before their children).
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (joint).
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `out` to a writable `int32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_joint_parent(
    asset: *const sinew_asset,
    joint: u32,
    out: *mut i32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let parent = unsafe { stored(asset) }.and_then(|a| {
        let parents = a.asset.skeleton().parents();
        parents.get(joint as usize).map(|&p| i32::from(p)).ok_or(SINEW_ERROR_INDEX_OUT_OF_RANGE)
    });
    // SAFETY: the caller's contract.
    unsafe { put(out, parent) }
}

/// The name of joint `joint`: `*name` points to `*len` UTF-8 bytes inside the blob, not NUL-terminated.
/// A skeleton baked without names gives `*len == 0`.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `name` and `len` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_joint_name(
    asset: *const sinew_asset,
    joint: u32,
    name: *mut *const c_char,
    len: *mut usize,
) -> sinew_status {
    if name.is_null() || len.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    let skeleton = match unsafe { stored(asset) } {
        Ok(a) => a.asset.skeleton(),
        Err(status) => return status,
    };
    if joint as usize >= skeleton.num_joints() {
        return SINEW_ERROR_INDEX_OUT_OF_RANGE;
    }
    let text = skeleton.name(joint as usize).unwrap_or("");
    // SAFETY: both checked not NULL; writable by the caller's contract.
    unsafe {
        name.write(text.as_ptr().cast());
        len.write(text.len());
    }
    SINEW_OK
}

/// The index of the clip named by the `len` bytes at `name`.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` when no clip has that name.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `name` to `len` readable bytes; `out` to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_find_clip(
    asset: *const sinew_asset,
    name: *const c_char,
    len: usize,
    out: *mut u32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let found = unsafe { stored(asset) }.and_then(|a| {
        let name = unsafe { name_arg(name, len, SINEW_ERROR_INDEX_OUT_OF_RANGE) }?;
        a.asset.find_clip(name).map(|c| c as u32).ok_or(SINEW_ERROR_INDEX_OUT_OF_RANGE)
    });
    // SAFETY: the caller's contract.
    unsafe { put(out, found) }
}

/// The index of clip `clip`'s first scalar curve named by the `len` bytes at `name` (a morph weight
/// `mesh/target`, an IK weight), for `sinew_character_set_curves` and the game's own use.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a clip the asset lacks or a name no curve of it has.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `name` to `len` readable bytes; `out` to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_find_curve(
    asset: *const sinew_asset,
    clip: u32,
    name: *const c_char,
    len: usize,
    out: *mut u32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let found = unsafe { stored(asset) }.and_then(|a| {
        let name = unsafe { name_arg(name, len, SINEW_ERROR_INDEX_OUT_OF_RANGE) }?;
        let in_range = (clip as usize) < a.asset.num_clips();
        let index = a.asset.find_curve(clip as usize, name).filter(|_| in_range);
        index.map(|k| k as u32).ok_or(SINEW_ERROR_INDEX_OUT_OF_RANGE)
    });
    // SAFETY: the caller's contract.
    unsafe { put(out, found) }
}

/// The knot times of clip `clip` (seconds, strictly increasing from 0, one per frame; see `Clip::with_knots`):
/// `*times` points to `*count` `float`s inside the blob, or for a clip with uniform frames `*count` is 0 (and
/// `*times` must not be read).
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a clip the asset lacks.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `times` and `count` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_clip_knots(
    asset: *const sinew_asset,
    clip: u32,
    times: *mut *const f32,
    count: *mut u32,
) -> sinew_status {
    if times.is_null() || count.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    let knots = match unsafe { stored(asset) }
        .and_then(|a| a.asset.clip(clip as usize).ok_or(SINEW_ERROR_INDEX_OUT_OF_RANGE))
    {
        Ok(clip) => clip.knots(),
        Err(status) => return status,
    };
    // SAFETY: both checked not NULL; writable by the caller's contract. A validated clip has at most
    // `MAX_DURATION × MAX_SAMPLE_RATE` + 1 frames, far below `u32::MAX`.
    unsafe {
        times.write(knots.as_ptr());
        count.write(knots.len() as u32);
    }
    SINEW_OK
}

/// Markers of clip `clip` (footsteps, events), in time order.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a clip the asset lacks.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `out` to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_num_markers(asset: *const sinew_asset, clip: u32, out: *mut u32) -> sinew_status {
    // SAFETY: the caller's contract.
    let count = unsafe { stored(asset) }.and_then(|a| match (clip as usize) < a.asset.num_clips() {
        true => Ok(a.asset.markers(clip as usize).len() as u32),
        false => Err(SINEW_ERROR_INDEX_OUT_OF_RANGE),
    });
    // SAFETY: the caller's contract.
    unsafe { put(out, count) }
}

/// Marker `index` of clip `clip`: its local time (seconds), the author's value, and its name (`*name` points to
/// `*len` UTF-8 bytes inside the blob, not NUL-terminated).
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a clip the asset lacks or a marker past its last.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `time`, `value`, `name` and `len` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_asset_marker(
    asset: *const sinew_asset,
    clip: u32,
    index: u32,
    time: *mut f32,
    value: *mut f32,
    name: *mut *const c_char,
    len: *mut usize,
) -> sinew_status {
    if time.is_null() || value.is_null() || name.is_null() || len.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    let asset = match unsafe { stored(asset) } {
        Ok(a) => &a.asset,
        Err(status) => return status,
    };
    let found = (clip as usize) < asset.num_clips();
    let Some(marker) = asset.markers(clip as usize).get(index as usize).filter(|_| found) else {
        return SINEW_ERROR_INDEX_OUT_OF_RANGE;
    };
    let text = asset.name(marker.name).unwrap_or("");
    // SAFETY: all four checked not NULL; writable by the caller's contract.
    unsafe {
        time.write(marker.time);
        value.write(marker.value);
        name.write(text.as_ptr().cast());
        len.write(text.len());
    }
    SINEW_OK
}
