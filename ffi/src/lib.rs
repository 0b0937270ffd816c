//! sinew's C ABI: load a baked asset, lay out characters in caller memory, play, transition, update, and read
//! the model matrices and the skinning palette. The header `ffi/include/sinew.h` is generated from this file
//! by cbindgen (a test fails when the checked-in header differs).
//!
//! Rules every function keeps: it returns a `sinew_status` (0 is success; `sinew_abi_version` and
//! `sinew_status_message` are the two exceptions); it never panics, allocates, or keeps a pointer past the
//! call, except the asset's borrow of the blob and the character's pointer into the memory the caller gave
//! `sinew_character_init`; on an error it writes nothing through its output pointers and leaves the
//! character as it was.
//!
//! Threading: an asset is read-only after `sinew_asset_load` and may be shared by any number of threads; a
//! character is used by one thread at a time.
//!
//! Building: `cargo build -p sinew-ffi --release` writes `libsinew_ffi.a`, `libsinew_ffi.so` and `sinew.pc`
//! (pkg-config) to `target/release`; `ffi/CMakeLists.txt` runs that command for CMake projects. The release
//! profile aborts on panic (the workspace's `Cargo.toml`), so the libraries are `no_std` and need no unwinder: a
//! panic is a bug (every input is checked first), and the handler calls the C library's `abort`. Builds that
//! unwind (tests, debug) link `std` instead, whose handler and unwinder they use; so do builds with the `std`
//! feature (Rust programs that have std anyway, and workspace builds: see `Cargo.toml`).

#![cfg_attr(all(not(feature = "std"), panic = "abort", not(test)), no_std)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_void};
use core::mem::{align_of, size_of};
use sinew::bounds::{BoundsJob, JointBounds, JointBox};
use sinew::character::BLOCK_ALIGN;
use sinew::character::PoseEdit;
use sinew::foot_planting::{FootPlanter, FootPlantingJob, Ground, PlantSettings};
use sinew::ik::{AimIkJob, TwoBoneIkJob};
use sinew::inertialization::{Settings, Transition};
use sinew::limits::MAX_CHARACTER_LAYERS;
use sinew::math::{F4, Mat3x4, Mat4};
use sinew::math::{Quat, Vec3};

use sinew::skeleton::MAX_JOINTS;
use sinew::{
    Asset, Blend, Character, CharacterDesc, Error, GroupWalk, LayerDesc, LayerKind, Play, Rig, Scratch, SlotId, Wrap,
};

#[cfg(all(not(feature = "std"), panic = "abort", not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe extern "C" {
        safe fn abort() -> !;
    }
    abort()
}

/// The precompiled `core` refers to the unwinder's personality routine, which a library that aborts on panic
/// never calls; this definition satisfies the linker without the unwinder.
#[cfg(all(not(feature = "std"), panic = "abort", not(test)))]
#[unsafe(no_mangle)]
extern "C" fn rust_eh_personality() {}

/// The ABI's version, `major * 1000 + minor`. A minor version adds functions or constants and keeps every
/// existing size and meaning (it may name a reserved field whose zero keeps its old meaning); a major version
/// may change them. 1002 named `sinew_character_desc::reserved` `sampling`; 1003 added joint parents, markers,
/// curve lookup, range weights, synced transitions, the motion-only update, bounds, and IK and foot planting on
/// the shown pose.
pub const SINEW_ABI_VERSION: u32 = 1003;

/// Returns the library's `SINEW_ABI_VERSION`; a program checks that its major part (`/ 1000`) equals the
/// header's and its minor part is at least the header's.
#[unsafe(no_mangle)]
pub extern "C" fn sinew_abi_version() -> u32 {
    SINEW_ABI_VERSION
}

/// 0 is success; every other value names a class of error (`sinew_status_message` describes it).
pub type sinew_status = i32;

/// Success.
pub const SINEW_OK: sinew_status = 0;
/// A required pointer argument is NULL.
pub const SINEW_ERROR_NULL_POINTER: sinew_status = 1;
/// The asset or character was not made by `sinew_asset_load` or `sinew_character_init`, or was overwritten.
pub const SINEW_ERROR_INVALID_HANDLE: sinew_status = 2;
/// The blob does not start on a `SINEW_BLOB_ALIGN`-byte boundary.
pub const SINEW_ERROR_BLOB_ALIGNMENT: sinew_status = 3;
/// The blob is not a sinew asset, or one of another format version.
pub const SINEW_ERROR_BLOB_FORMAT: sinew_status = 4;
/// The blob is truncated or inconsistent.
pub const SINEW_ERROR_BLOB_CORRUPT: sinew_status = 5;
/// The character memory does not start on a `SINEW_CHARACTER_ALIGN`-byte boundary.
pub const SINEW_ERROR_MEMORY_ALIGNMENT: sinew_status = 6;
/// The character memory is shorter than `sinew_character_required_bytes`.
pub const SINEW_ERROR_MEMORY_TOO_SMALL: sinew_status = 7;
/// The character description is invalid.
pub const SINEW_ERROR_INVALID_DESC: sinew_status = 8;
/// A layer, slot, clip, mask or joint index is out of range.
pub const SINEW_ERROR_INDEX_OUT_OF_RANGE: sinew_status = 9;
/// A time, speed, weight, duration or time step is NaN, infinite or out of its range.
pub const SINEW_ERROR_INVALID_ARGUMENT: sinew_status = 10;
/// An inertialized transition on a character made without inertialization.
pub const SINEW_ERROR_NO_INERTIALIZER: sinew_status = 11;
/// The character's memory is damaged, or the asset is not the one the character was made for.
pub const SINEW_ERROR_STATE_MISMATCH: sinew_status = 12;
/// An error the C ABI has no specific status for.
pub const SINEW_ERROR_INTERNAL: sinew_status = 13;

/// A static, NUL-terminated description of `status` (never NULL; an unknown value has a message too).
#[unsafe(no_mangle)]
pub extern "C" fn sinew_status_message(status: sinew_status) -> *const c_char {
    let message = match status {
        SINEW_OK => c"success",
        SINEW_ERROR_NULL_POINTER => c"a required pointer argument is NULL",
        SINEW_ERROR_INVALID_HANDLE => {
            c"the asset or character was not made by sinew_asset_load or sinew_character_init, or was overwritten"
        }
        SINEW_ERROR_BLOB_ALIGNMENT => c"the blob does not start on a SINEW_BLOB_ALIGN-byte boundary",
        SINEW_ERROR_BLOB_FORMAT => c"the blob is not a sinew asset, or one of another format version",
        SINEW_ERROR_BLOB_CORRUPT => c"the blob is truncated or inconsistent",
        SINEW_ERROR_MEMORY_ALIGNMENT => c"the character memory does not start on a SINEW_CHARACTER_ALIGN-byte boundary",
        SINEW_ERROR_MEMORY_TOO_SMALL => c"the character memory is shorter than sinew_character_required_bytes",
        SINEW_ERROR_INVALID_DESC => {
            c"the character description is invalid (no layers, a base layer not first or not alone, counts past the limits, a palette without a skin)"
        }
        SINEW_ERROR_INDEX_OUT_OF_RANGE => c"a layer, slot, clip, mask or joint index is out of range",
        SINEW_ERROR_INVALID_ARGUMENT => {
            c"a time, speed, weight, duration or time step is NaN, infinite or out of its range"
        }
        SINEW_ERROR_NO_INERTIALIZER => c"an inertialized transition on a character made without inertialization",
        SINEW_ERROR_STATE_MISMATCH => {
            c"the character's memory is damaged, or the asset is not the one the character was made for"
        }
        SINEW_ERROR_INTERNAL => c"an error the C ABI has no specific status for",
        _ => c"unknown status",
    };
    message.as_ptr()
}

/// The class of a core error.
fn status_of(error: Error) -> sinew_status {
    use sinew::BlobProblem;
    match error {
        Error::Blob { problem: BlobProblem::Misaligned { .. }, section: sinew::Section::Header } => {
            SINEW_ERROR_BLOB_ALIGNMENT
        }
        Error::BadMagic | Error::UnsupportedVersion { .. } | Error::BigEndianHost => SINEW_ERROR_BLOB_FORMAT,
        Error::Blob { .. }
        | Error::ParentOrder { .. }
        | Error::NonUnitRotation { .. }
        | Error::RemapOutOfRange { .. }
        | Error::InvalidSampleRate
        | Error::FrameCount { .. }
        | Error::Extent { .. }
        | Error::TrackOrder { .. }
        | Error::StepTrack { .. }
        | Error::InvalidChannel { .. }
        | Error::Subnormal { .. }
        | Error::CompressedSegment { .. }
        | Error::CurveMagnitude { .. }
        | Error::InverseBindExtent { .. } => SINEW_ERROR_BLOB_CORRUPT,
        Error::BlockAlignment { .. } => SINEW_ERROR_MEMORY_ALIGNMENT,
        Error::BlockSize { .. } => SINEW_ERROR_MEMORY_TOO_SMALL,
        Error::JointCount { .. } | Error::NoLayers | Error::LayerOrder { .. } | Error::Limit { .. } => {
            SINEW_ERROR_INVALID_DESC
        }
        Error::IndexOutOfRange { .. } | Error::JointOutOfRange { .. } => SINEW_ERROR_INDEX_OUT_OF_RANGE,
        Error::InvalidTime
        | Error::InvalidSpeed
        | Error::InvalidTimeStep
        | Error::InvalidDuration { .. }
        | Error::InvalidFade
        | Error::InvalidWeight { .. }
        | Error::InvalidThreshold
        | Error::InvalidMaskWeight { .. }
        | Error::InvalidJointBox { .. }
        | Error::InvalidIkChain
        | Error::InvalidIkTarget
        | Error::InvalidFootPlanting
        | Error::NonFinite { .. } => SINEW_ERROR_INVALID_ARGUMENT,
        Error::NoInertializer => SINEW_ERROR_NO_INERTIALIZER,
        Error::StateMismatch | Error::ForeignAsset { .. } | Error::BufferLength { .. } | Error::ForeignWalk => {
            SINEW_ERROR_STATE_MISMATCH
        }
        _ => SINEW_ERROR_INTERNAL,
    }
}

/// The status of a call's result: `SINEW_OK` or its error.
fn status(result: Result<(), sinew_status>) -> sinew_status {
    result.err().unwrap_or(SINEW_OK)
}

/// Required alignment of a blob passed to `sinew_asset_load`.
pub const SINEW_BLOB_ALIGN: usize = 16;
/// `sinew_asset`'s size in bytes (its alignment is 8): fixed within a major ABI version.
pub const SINEW_ASSET_SIZE: usize = 1280;
/// `sinew_asset`'s size in 64-bit words.
pub const SINEW_ASSET_WORDS: usize = 160;
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

/// A loaded asset: a validated view of the caller's blob (skeleton, clips, skin) and the skeleton's walk
/// order. The caller declares it (on its stack, in its own structs) and fills it with `sinew_asset_load`; it
/// borrows the blob, which must stay alive and unchanged while the asset is used. It holds no other pointer
/// and may be copied byte for byte.
///
/// Layout: `SINEW_ASSET_SIZE` bytes, 8-byte aligned, opaque.
#[repr(C)]
pub struct sinew_asset {
    /// Opaque words; only the library reads them.
    pub opaque: [u64; SINEW_ASSET_WORDS],
}

/// What `sinew_asset` holds. `magic` first, so a handle that was never loaded is caught before the rest is
/// read.
struct StoredAsset {
    magic: u64,
    asset: Asset<'static>,
    walk: GroupWalk,
}

const ASSET_MAGIC: u64 = u64::from_le_bytes(*b"snwASSET");

const _: () = assert!(size_of::<StoredAsset>() <= size_of::<sinew_asset>());
const _: () = assert!(align_of::<StoredAsset>() <= align_of::<sinew_asset>());
const _: () = assert!(size_of::<sinew_asset>() == SINEW_ASSET_SIZE && align_of::<sinew_asset>() == 8);
const _: () = assert!(SINEW_ASSET_WORDS * 8 == SINEW_ASSET_SIZE);

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
    /// `SINEW_SAMPLING_SHARED` (zero) or `SINEW_SAMPLING_PER_CONTROL`.
    pub sampling: u32,
}

/// `sinew_character_desc::sampling`: one sampling context serves every control, so each update decodes two
/// frames per playing control (a seek); no memory per control.
pub const SINEW_SAMPLING_SHARED: u32 = 0;
/// Each control slot keeps its own sampling context in the character's memory across updates: playing forward
/// decodes each frame once, and compressed clips keep their segment's decoders for every track. Costs about
/// 176 bytes per joint per control slot.
pub const SINEW_SAMPLING_PER_CONTROL: u32 = 1;

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<sinew_character_desc>() == 32 && align_of::<sinew_character_desc>() == 8);
const _: () = assert!(size_of::<sinew_layer_desc>() == SINEW_LAYER_DESC_SIZE);

/// `sinew_play::wrap`: the clip loops.
pub const SINEW_WRAP_LOOP: u32 = 0;
/// The clip holds its last (or first, backward) frame.
pub const SINEW_WRAP_CLAMP: u32 = 1;
/// The clip plays forward, then backward.
pub const SINEW_WRAP_PING_PONG: u32 = 2;
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
struct Prefix {
    magic: u64,
    block_len: u64,
    model_offset: u64,
    model_count: u64,
    palette_offset: u64,
    palette_count: u64,
}

const CHARACTER_MAGIC: u64 = u64::from_le_bytes(*b"snwCHARA");
/// The prefix takes one alignment unit, so the block after it stays aligned.
const PREFIX_BYTES: usize = BLOCK_ALIGN;
const _: () = assert!(size_of::<Prefix>() <= PREFIX_BYTES);

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
    unsafe { out.cast::<StoredAsset>().write(StoredAsset { magic: ASSET_MAGIC, asset, walk }) };
    SINEW_OK
}

/// The loaded asset behind `asset`.
///
/// # Safety
/// `asset` is NULL or points to a readable `sinew_asset`.
unsafe fn stored<'a>(asset: *const sinew_asset) -> Result<&'a StoredAsset, sinew_status> {
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

/// Writes `value` through `out` after checking it is not NULL.
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn put<T>(out: *mut T, value: Result<T, sinew_status>) -> sinew_status {
    if out.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    match value {
        Ok(value) => {
            // SAFETY: not NULL, and writable by the caller's contract.
            unsafe { out.write(value) };
            SINEW_OK
        }
        Err(status) => status,
    }
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

/// The `len` bytes at `name` as UTF-8, or `not_utf8` for bytes that are not (no name in a blob is).
///
/// # Safety
/// `name` is NULL or points to `len` readable bytes.
unsafe fn name_arg<'a>(name: *const c_char, len: usize, not_utf8: sinew_status) -> Result<&'a str, sinew_status> {
    if name.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    // SAFETY: the caller guarantees `len` readable bytes at `name`.
    let bytes = unsafe { core::slice::from_raw_parts(name.cast::<u8>(), len) };
    core::str::from_utf8(bytes).map_err(|_| not_utf8)
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
    let sampling = match desc.sampling {
        SINEW_SAMPLING_SHARED => sinew::Sampling::Shared,
        SINEW_SAMPLING_PER_CONTROL => sinew::Sampling::PerControl { max_tracks: 3 * num_joints },
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
unsafe fn prefix<'a>(character: *const sinew_character) -> Result<&'a Prefix, sinew_status> {
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

/// The character at `character`, attached (its block validated).
///
/// # Safety
/// `character` is NULL or points to writable memory `sinew_character_init` laid out, used by no one else
/// during the call.
unsafe fn attach<'a>(character: *mut sinew_character) -> Result<Character<'a>, sinew_status> {
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
fn core_play(play: &sinew_play) -> Result<Play, sinew_status> {
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

/// What `sinew_character_transition` plays and how: `clip` looping at full weight, cut for a `duration` of 0.
fn base_switch(clip: u32, time: f32, speed: f32, duration: f32) -> (Play, Blend<'static>) {
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
        SINEW_SYNC_NONE => sinew::character::SyncMode::None,
        SINEW_SYNC_PHASE => sinew::character::SyncMode::Phase,
        SINEW_SYNC_FOOT_PHASE => sinew::character::SyncMode::FootPhase,
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

/// Runs `update` on the character at `character` with the rig of `asset`.
///
/// # Safety
/// As `sinew_character_play`.
unsafe fn with_rig<T>(
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
unsafe fn with_floats<'a>(
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

/// `sinew_character_slot_clip`: the slot plays nothing.
pub const SINEW_NO_CLIP: u32 = u32::MAX;

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
    let clip = unsafe { attach(character) }.and_then(|mut c| {
        let control = c.control(SlotId::on(layer as usize, slot as usize)).map_err(status_of)?;
        Ok(control.map_or(SINEW_NO_CLIP, |control| control.clip()))
    });
    // SAFETY: the caller's contract.
    unsafe { put(out, clip) }
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

/// A two-bone IK request (a leg or an arm), for `sinew_character_two_bone_ik`. Model space.
///
/// Layout: 68 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_two_bone {
    /// The chain's root, middle and end joints, each the parent of the next.
    pub chain: [u32; 3],
    /// Where the end joint should be.
    pub target: [f32; 3],
    /// A point the middle joint bends toward, when `has_pole` is nonzero; else the bend plane is kept.
    pub pole: [f32; 3],
    /// Nonzero: `pole` is used.
    pub has_pole: u32,
    /// 0 leaves the animated pose, 1 applies the solution.
    pub weight: f32,
    /// Soft reach in (0, 1]; 1 is the hard clamp.
    pub soften: f32,
    /// A model-space turn (x, y, z, w) of the end joint's animated orientation, when `has_end_turn` is nonzero
    /// (the identity keeps a planted foot as animated); else the end follows the middle bone.
    pub end_turn: [f32; 4],
    /// Nonzero: `end_turn` is used.
    pub has_end_turn: u32,
}

const _: () = assert!(size_of::<sinew_two_bone>() == 68 && align_of::<sinew_two_bone>() == 4);

/// The two-bone solver on the character's last pose (see `sinew_two_bone`); the model matrices and palette
/// follow. Writes whether the end reached the target to `*reached` (1 or 0).
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a chain not parent-linked or with a zero-length bone, a target,
/// pole, weight or soften out of range, or a zero `end_turn`; `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a joint past
/// the skeleton's. The pose is unchanged on an error.
///
/// # Safety
/// As `sinew_character_play`; `request` points to a readable `sinew_two_bone`; `reached` to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_two_bone_ik(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    request: *const sinew_two_bone,
    reached: *mut u32,
) -> sinew_status {
    if request.is_null() || reached.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: not NULL; readable by the caller's contract.
    let r = unsafe { request.read_unaligned() };
    let v = |a: [f32; 3]| Vec3::new(a[0], a[1], a[2]);
    let solve = |edit: PoseEdit<'_>| {
        let mut job = TwoBoneIkJob {
            skeleton: edit.skeleton,
            chain: r.chain.map(|j| j as usize),
            target: v(r.target),
            pole: (r.has_pole != 0).then(|| v(r.pole)),
            weight: r.weight,
            soften: r.soften,
            end_turn: (r.has_end_turn != 0)
                .then(|| Quat::new(r.end_turn[0], r.end_turn[1], r.end_turn[2], r.end_turn[3])),
            model: edit.model,
            local: edit.local,
        };
        job.run().map(|solve| u32::from(solve.reached))
    };
    // SAFETY: the caller's contract.
    unsafe { edit(character, asset, solve, reached) }
}

/// An aim (a look-at: a head, an eye, a gun), for `sinew_character_aim_ik`. Model space but for the joint's
/// own axes.
///
/// Layout: 68 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_aim {
    /// The joint that aims.
    pub joint: u32,
    /// The joint's aim axis in its own frame (any length but zero).
    pub forward: [f32; 3],
    /// The joint's up axis in its own frame, when `has_up` is nonzero.
    pub up_axis: [f32; 3],
    /// The model-space up `up_axis` leans toward.
    pub model_up: [f32; 3],
    /// Nonzero: `up_axis` and `model_up` level the twist; else the shortest arc decides it.
    pub has_up: u32,
    /// Where to aim.
    pub target: [f32; 3],
    /// The largest turn, radians in (0, π]; 0 for no limit.
    pub max_angle: f32,
    /// The largest twist `up` may add, radians in (0, π]; 0 for no limit.
    pub max_twist: f32,
    /// How much of the correction to apply, in [0, 1].
    pub weight: f32,
}

const _: () = assert!(size_of::<sinew_aim>() == 68 && align_of::<sinew_aim>() == 4);

/// `sinew_character_aim_ik`'s answer: the joint turned toward the target.
pub const SINEW_AIM_AIMED: u32 = 1;
/// `sinew_character_aim_ik`'s answer: `max_angle` cut the turn short.
pub const SINEW_AIM_LIMITED: u32 = 2;

/// Turns a joint of the character's last pose toward a target (see `sinew_aim`); the model matrices and
/// palette follow. Writes `SINEW_AIM_*` flags to `*result` (0: the target sat on the joint, nothing changed).
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (joint); `SINEW_ERROR_INVALID_ARGUMENT` for a zero axis, a target
/// not finite, a limit outside (0, π] or a weight outside [0, 1]. The pose is unchanged on an error.
///
/// # Safety
/// As `sinew_character_play`; `request` points to a readable `sinew_aim`; `result` to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_aim_ik(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    request: *const sinew_aim,
    result: *mut u32,
) -> sinew_status {
    if request.is_null() || result.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: not NULL; readable by the caller's contract.
    let r = unsafe { request.read_unaligned() };
    let v = |a: [f32; 3]| Vec3::new(a[0], a[1], a[2]);
    let limit = |radians: f32| (radians != 0.0).then_some(radians);
    let solve = |edit: PoseEdit<'_>| {
        let mut job = AimIkJob {
            skeleton: edit.skeleton,
            joint: r.joint as usize,
            forward: v(r.forward),
            up: (r.has_up != 0).then(|| (v(r.up_axis), v(r.model_up))),
            target: v(r.target),
            max_angle: limit(r.max_angle),
            max_twist: limit(r.max_twist),
            weight: r.weight,
            model: edit.model,
            local: edit.local,
        };
        let flag = |on: bool, bit: u32| if on { bit } else { 0 };
        job.run().map(|aim| flag(aim.aimed, SINEW_AIM_AIMED) | flag(aim.limited, SINEW_AIM_LIMITED))
    };
    // SAFETY: the caller's contract.
    unsafe { edit(character, asset, solve, result) }
}

/// What foot planting keeps across frames for one character: zeroed, a character standing on nothing planted
/// yet. The caller declares it beside the character and passes it to every `sinew_character_plant_feet`.
///
/// Layout: 48 bytes, 4-byte aligned, opaque.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_foot_planter {
    /// Opaque; zero to start.
    pub opaque: [u32; 12],
}

const _: () = assert!(size_of::<sinew_foot_planter>() == size_of::<FootPlanter>());
const _: () = assert!(align_of::<sinew_foot_planter>() == align_of::<FootPlanter>());

/// One frame of foot planting on both legs, for `sinew_character_plant_feet` and `sinew_character_foot_probes`.
/// A zero setting takes its default (0.15 s release, 0.1 s contact, 30° tilt, soften 1, 0.08 s pelvis).
///
/// Layout: 160 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_foot_planting {
    /// The joint carrying the legs (the hips).
    pub pelvis: u32,
    /// Each leg's hip, knee and ankle joints, left then right.
    pub legs: [[u32; 3]; 2],
    /// Nonzero while each foot is planted (a plant range's weight above one half, typically).
    pub planted: [u32; 2],
    /// The ground's world height under each foot (the game's ray at `sinew_character_foot_probes`' points).
    pub ground_height: [f32; 2],
    /// The ground's world normal under each foot (any non-zero length).
    pub ground_normal: [[f32; 3]; 2],
    /// The character's model-to-world transform (rigid), column-major.
    pub world: [f32; 16],
    /// Seconds since the last frame.
    pub dt: f32,
    /// 0 leaves the animation (the state still steps), 1 plants fully.
    pub weight: f32,
    /// Seconds the lock takes to let a foot go after its plant ends.
    pub release_time: f32,
    /// Seconds the ground tilt takes to come in and go.
    pub contact_time: f32,
    /// Most a foot turns to lie on a slope, radians.
    pub max_tilt: f32,
    /// The legs' soft reach, in (0, 1].
    pub soften: f32,
    /// Time constant of the pelvis drop's smoothing, seconds.
    pub pelvis_time: f32,
}

const _: () = assert!(size_of::<sinew_foot_planting>() == 160 && align_of::<sinew_foot_planting>() == 4);

/// What a frame of foot planting did.
///
/// Layout: 20 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_planting_report {
    /// The pelvis's drop (≤ 0, model units along up).
    pub pelvis_drop: f32,
    /// Per leg, 1 when the ankle reached its target.
    pub reached: [u32; 2],
    /// Per foot, the lock's weight (0 free, 1 held).
    pub lock: [f32; 2],
}

impl sinew_foot_planting {
    fn settings(&self) -> PlantSettings {
        let or = |value: f32, default: f32| if value == 0.0 { default } else { value };
        let d = PlantSettings::default();
        PlantSettings {
            release_time: or(self.release_time, d.release_time),
            contact_time: or(self.contact_time, d.contact_time),
            max_tilt: or(self.max_tilt, d.max_tilt),
            soften: or(self.soften, d.soften),
            pelvis_time: or(self.pelvis_time, d.pelvis_time),
        }
    }

    fn legs(&self) -> [[usize; 3]; 2] {
        self.legs.map(|leg| leg.map(|j| j as usize))
    }

    fn world(&self) -> Mat4 {
        let w = self.world;
        Mat4 { cols: core::array::from_fn(|c| core::array::from_fn(|r| w[4 * c + r])) }
    }
}

/// The state behind `planter`, checked for alignment.
///
/// # Safety
/// `planter` is NULL or points to a `sinew_foot_planter`.
unsafe fn planter_state<'a>(planter: *mut sinew_foot_planter) -> Result<&'a mut FootPlanter, sinew_status> {
    if planter.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    // SAFETY: not NULL, aligned (its type's alignment is FootPlanter's, asserted), and any bytes are a
    // FootPlanter (Pod).
    Ok(unsafe { &mut *planter.cast::<FootPlanter>() })
}

/// Plants the character's feet on the game's ground (see `sinew_foot_planting`): each planted foot held where
/// it landed and laid on the slope, the pelvis dropped so the legs reach, on the last pose; the model matrices
/// and palette follow, and `*planter` steps. Writes what it did to `*report`.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for legs not parent-linked below the pelvis, a ground or world
/// transform out of range, a setting, weight or `dt` out of range; `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a joint
/// past the skeleton's. The pose and the planter are unchanged on an error.
///
/// # Safety
/// As `sinew_character_play`; `planter` points to a writable `sinew_foot_planter`, `request` to a readable
/// `sinew_foot_planting`, `report` to a writable `sinew_planting_report`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_plant_feet(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    planter: *mut sinew_foot_planter,
    request: *const sinew_foot_planting,
    report: *mut sinew_planting_report,
) -> sinew_status {
    if request.is_null() || report.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    let state = match unsafe { planter_state(planter) } {
        Ok(state) => state,
        Err(status) => return status,
    };
    // SAFETY: not NULL; readable by the caller's contract.
    let r = unsafe { request.read_unaligned() };
    let (settings, world) = (r.settings(), r.world());
    let ground = |f: usize| {
        let n = r.ground_normal[f];
        Ground { height: r.ground_height[f], normal: Vec3::new(n[0], n[1], n[2]) }
    };
    // The job steps a copy: the caller's state changes only on success.
    let mut stepped = *state;
    let solve = |edit: PoseEdit<'_>| {
        let mut job = FootPlantingJob {
            skeleton: edit.skeleton,
            planter: &mut stepped,
            settings: &settings,
            pelvis: r.pelvis as usize,
            legs: r.legs(),
            planted: r.planted.map(|p| p != 0),
            ground: [ground(0), ground(1)],
            world: &world,
            dt: r.dt,
            weight: r.weight,
            model: edit.model,
            local: edit.local,
        };
        job.run().map(|p| sinew_planting_report {
            pelvis_drop: p.pelvis_drop,
            reached: p.reached.map(u32::from),
            lock: p.lock,
        })
    };
    // SAFETY: the caller's contract.
    let status = unsafe { edit(character, asset, solve, report) };
    if status == SINEW_OK {
        *state = stepped;
    }
    status
}

/// Where the game should query the ground this frame (world space, `points[6]`: left then right, x y z):
/// each ankle as the last pose has it, pulled toward where its plant holds it. Uses `request`'s legs and
/// world transform only.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a leg joint past the skeleton's.
///
/// # Safety
/// `character` points to an initialized character; `planter` to a `sinew_foot_planter`; `request` to a
/// readable `sinew_foot_planting`; `points` to six writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_foot_probes(
    character: *mut sinew_character,
    planter: *mut sinew_foot_planter,
    request: *const sinew_foot_planting,
    points: *mut f32,
) -> sinew_status {
    if request.is_null() || points.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    let (state, character) = match unsafe { planter_state(planter).and_then(|s| Ok((s, attach(character)?))) } {
        Ok(both) => both,
        Err(status) => return status,
    };
    // SAFETY: not NULL; readable by the caller's contract.
    let r = unsafe { request.read_unaligned() };
    let legs = r.legs();
    if legs.iter().flatten().any(|&j| j >= character.num_joints()) {
        return SINEW_ERROR_INDEX_OUT_OF_RANGE;
    }
    let probes = state.probe_points(&legs, character.model(), &r.world());
    // SAFETY: checked not NULL; six writable floats by the caller's contract.
    unsafe { points.cast::<[[f32; 3]; 2]>().write_unaligned(probes.map(|p| p.to_array())) };
    SINEW_OK
}

/// Runs `solve` as a post-process on the character's last pose (`Character::edit_pose`) and writes its answer
/// through `out` on success.
///
/// # Safety
/// As `sinew_character_play`; `out` is writable.
unsafe fn edit<T>(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    solve: impl FnOnce(PoseEdit<'_>) -> Result<T, Error>,
    out: *mut T,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let answer = unsafe { with_rig(character, asset, |character, rig| character.edit_pose(rig, solve)) };
    // SAFETY: the caller's contract.
    unsafe { put(out, answer) }
}

/// One joint's box in the joint's own space, for `sinew_character_bounds`.
///
/// Layout: 32 bytes, 16-byte aligned.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct sinew_joint_box {
    /// The box's center, in the joint's space.
    pub center: [f32; 3],
    /// The skeleton joint whose model matrix carries the box.
    pub joint: u32,
    /// Half the box's size along each of the joint's axes, `>= 0`.
    pub half_extent: [f32; 3],
    /// Not read; zero.
    pub reserved: u32,
}

const _: () = assert!(size_of::<sinew_joint_box>() == 32 && align_of::<sinew_joint_box>() == 16);
const _: () = assert!(size_of::<sinew_joint_box>() == size_of::<JointBox>());

/// The model-space box around the character's joint boxes in its last update's pose (for culling):
/// `min[3]` and `max[3]`, in the model space of `sinew_character_model_matrices`. Each box is carried by its
/// joint's model matrix; joints that move no vertex need none.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for no boxes or more than the skeleton's joints, or a box with a NaN,
/// infinite or negative half extent; `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a box's joint past the skeleton's.
///
/// # Safety
/// `character` points to an initialized character; `boxes` to `num_boxes` readable boxes; `min` and `max` to
/// three writable floats each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_bounds(
    character: *mut sinew_character,
    boxes: *const sinew_joint_box,
    num_boxes: usize,
    min: *mut f32,
    max: *mut f32,
) -> sinew_status {
    if boxes.is_null() || min.is_null() || max.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    if !(boxes as usize).is_multiple_of(align_of::<sinew_joint_box>()) {
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: the caller's contract.
    let character = match unsafe { attach(character) } {
        Ok(c) => c,
        Err(status) => return status,
    };
    if num_boxes == 0 || num_boxes > character.num_joints() {
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: aligned (checked) and `num_boxes` readable by the caller's contract; `sinew_joint_box` and
    // `JointBox` have one layout (both `repr(C)`, the same fields; sizes asserted).
    let boxes = unsafe { core::slice::from_raw_parts(boxes.cast::<JointBox>(), num_boxes) };
    let result = JointBounds::new(character.num_joints(), boxes)
        .and_then(|bounds| BoundsJob { bounds: &bounds, model: character.model(), boxes: None }.run());
    match result {
        Ok(union) => {
            // SAFETY: checked not NULL; three writable floats each by the caller's contract.
            unsafe {
                min.cast::<[f32; 3]>().write_unaligned(union.min);
                max.cast::<[f32; 3]>().write_unaligned(union.max);
            }
            SINEW_OK
        }
        Err(e) => status_of(e),
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
