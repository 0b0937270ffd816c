//! Statuses: the values every function returns, their messages, and how core errors map to them.

use core::ffi::c_char;
use sinew::error::{BlobProblem, Error, Section};

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
/// A caller buffer given to a job is misaligned, of the wrong length, or overlaps a buffer the call writes.
pub const SINEW_ERROR_BUFFER: sinew_status = 14;

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
        SINEW_ERROR_BUFFER => {
            c"a caller buffer given to a job is misaligned, of the wrong length, or overlaps a buffer the call writes"
        }
        _ => c"unknown status",
    };
    message.as_ptr()
}

/// The class of a core error.
pub(crate) fn status_of(error: Error) -> sinew_status {
    match error {
        Error::Blob { problem: BlobProblem::Misaligned { .. }, section: Section::Header } => SINEW_ERROR_BLOB_ALIGNMENT,
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
        | Error::InvalidKnots { .. }
        | Error::MotionDatabase { .. }
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
        | Error::InvalidAimPoses
        | Error::InvalidFootPlanting
        | Error::InvalidAttachment
        | Error::InvalidCorrection
        | Error::InvalidWarp
        | Error::InvalidCurve
        | Error::InvalidGraph { .. }
        | Error::InvalidGraphParameter { .. }
        | Error::InvalidFeatureQuery { .. }
        | Error::InvalidSearch
        | Error::InvalidTrajectory
        | Error::NoCandidate
        | Error::NoMotionDatabase
        | Error::UnreadableFeatureGroup { .. }
        | Error::NonFinite { .. } => SINEW_ERROR_INVALID_ARGUMENT,
        Error::NoInertializer => SINEW_ERROR_NO_INERTIALIZER,
        Error::StateMismatch | Error::ForeignAsset { .. } | Error::BufferLength { .. } | Error::ForeignWalk => {
            SINEW_ERROR_STATE_MISMATCH
        }
        _ => SINEW_ERROR_INTERNAL,
    }
}

/// The status of a call's result: `SINEW_OK` or its error.
pub(crate) fn status(result: Result<(), sinew_status>) -> sinew_status {
    result.err().unwrap_or(SINEW_OK)
}

/// Writes `value` through `out` after checking it is not NULL.
///
/// # Safety
/// `out` is NULL or writable.
pub(crate) unsafe fn put<T>(out: *mut T, value: Result<T, sinew_status>) -> sinew_status {
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

/// The `len` bytes at `name` as UTF-8, or `not_utf8` for bytes that are not (no name in a blob is).
///
/// # Safety
/// `name` is NULL or points to `len` readable bytes.
pub(crate) unsafe fn name_arg<'a>(
    name: *const c_char,
    len: usize,
    not_utf8: sinew_status,
) -> Result<&'a str, sinew_status> {
    if name.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    // SAFETY: the caller guarantees `len` readable bytes at `name`.
    let bytes = unsafe { core::slice::from_raw_parts(name.cast::<u8>(), len) };
    core::str::from_utf8(bytes).map_err(|_| not_utf8)
}
