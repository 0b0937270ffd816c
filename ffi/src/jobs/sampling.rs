//! Sampling a clip into a caller's pose through a sampling context in caller memory, which keeps the two
//! frames it decoded last (and a compressed segment's decoders) between calls, so playing forward decodes each
//! frame once.

use super::state::{Header, Prefix, extent, init, open, state_bytes};
use super::{bytes, disjoint, job_status, output, read_only, sinew_soa_transform};
use crate::asset::{sinew_asset, stored};
use crate::status::{
    SINEW_ERROR_INDEX_OUT_OF_RANGE, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_INVALID_HANDLE, SINEW_OK, put,
    sinew_status,
};
use core::ffi::c_void;
use sinew::arena::Arena;
use sinew::math::SoaTransform;
use sinew::sampling::{ContextState, Interpolation, Playback, SamplingContext, SamplingJob};

/// `sinew_play::wrap` and `sinew_sample`'s wrap: the clip loops.
pub const SINEW_WRAP_LOOP: u32 = 0;
/// The clip holds its last (or first, backward) frame; `sinew_sample` clamps the time.
pub const SINEW_WRAP_CLAMP: u32 = 1;
/// `sinew_play::wrap` only: the clip plays forward, then backward.
pub const SINEW_WRAP_PING_PONG: u32 = 2;
/// A sampling context's interpolation: lerp and nlerp between the two keys around the time (continuous, its
/// velocity jumping at keys).
pub const SINEW_INTERPOLATION_LINEAR: u32 = 0;
/// A Catmull-Rom spline through the four keys around the time: continuous in value and velocity; the context
/// keeps four decoded frames instead of two.
pub const SINEW_INTERPOLATION_CUBIC: u32 = 1;
/// A sampling context: opaque, at the start of the memory the caller gave `sinew_sampling_context_init`
/// (aligned to `SINEW_STATE_ALIGN`).
pub struct sinew_sampling_context {
    _opaque: [u8; 0],
}

/// What precedes the context's arena: its sizes and the core context's state between calls.
#[repr(C)]
#[derive(Clone, Copy)]
struct ContextPrefix {
    header: Header,
    num_joints: u32,
    max_tracks: u32,
    /// `SINEW_INTERPOLATION_*`.
    interpolation: u32,
    reserved: u32,
    state: ContextState,
}

// SAFETY: `repr(C)` plain data starting with a `Header`, within the prefix (`init` asserts the size).
unsafe impl Prefix for ContextPrefix {
    const MAGIC: u64 = u64::from_le_bytes(*b"snwCONTX");
}

/// `num_joints`, or `SINEW_ERROR_INVALID_ARGUMENT` for a count outside `1..=SINEW_MAX_JOINTS`.
pub(crate) fn joint_count(num_joints: u32) -> Result<usize, sinew_status> {
    match num_joints as usize {
        n @ 1..=sinew::skeleton::MAX_JOINTS => Ok(n),
        _ => Err(SINEW_ERROR_INVALID_ARGUMENT),
    }
}

/// The core's interpolation for `SINEW_INTERPOLATION_*`, or `SINEW_ERROR_INVALID_ARGUMENT`.
fn interpolation_of(code: u32) -> Result<Interpolation, sinew_status> {
    match code {
        SINEW_INTERPOLATION_LINEAR => Ok(Interpolation::Linear),
        SINEW_INTERPOLATION_CUBIC => Ok(Interpolation::Cubic),
        _ => Err(SINEW_ERROR_INVALID_ARGUMENT),
    }
}

/// Bytes of the memory of a context (see `sinew_sampling_context_required_bytes_for`).
fn context_bytes(num_joints: u32, max_tracks: u32, interpolation: u32) -> Result<usize, sinew_status> {
    let (n, interpolation) = (joint_count(num_joints)?, interpolation_of(interpolation)?);
    Ok(state_bytes(SamplingContext::required_bytes_for(n, max_tracks as usize, interpolation)))
}

/// Bytes of memory a sampling context for a `num_joints` skeleton needs (a multiple of `SINEW_STATE_ALIGN`),
/// keeping a compressed segment's decoders for clips of up to `max_tracks` animated tracks (0: none kept;
/// clamped to three per joint). About 80 bytes per joint and 32 per track.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a joint count outside `1..=SINEW_MAX_JOINTS`.
///
/// # Safety
/// `out` points to a writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_sampling_context_required_bytes(
    num_joints: u32,
    max_tracks: u32,
    out: *mut usize,
) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { put(out, context_bytes(num_joints, max_tracks, SINEW_INTERPOLATION_LINEAR)) }
}

/// `sinew_sampling_context_required_bytes` for a context sampling with `interpolation` (`SINEW_INTERPOLATION_*`;
/// cubic keeps four frames, about 160 bytes per joint).
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a joint count outside `1..=SINEW_MAX_JOINTS` or another
/// interpolation.
///
/// # Safety
/// `out` points to a writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_sampling_context_required_bytes_for(
    num_joints: u32,
    max_tracks: u32,
    interpolation: u32,
    out: *mut usize,
) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { put(out, context_bytes(num_joints, max_tracks, interpolation)) }
}

/// Lays out a sampling context for a `num_joints` skeleton in the `len` bytes at `memory` (aligned to
/// `SINEW_STATE_ALIGN`, at least `sinew_sampling_context_required_bytes`), holding nothing, and points `*out`
/// at it. Keep one per clip playing forward; the caller frees the memory when done.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` (joint count); `SINEW_ERROR_MEMORY_ALIGNMENT`;
/// `SINEW_ERROR_MEMORY_TOO_SMALL`.
///
/// # Safety
/// `memory` points to `len` writable bytes used by no one else while the context lives; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_sampling_context_init(
    memory: *mut c_void,
    len: usize,
    num_joints: u32,
    max_tracks: u32,
    out: *mut *mut sinew_sampling_context,
) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { sinew_sampling_context_init_for(memory, len, num_joints, max_tracks, SINEW_INTERPOLATION_LINEAR, out) }
}

/// `sinew_sampling_context_init` for a context sampling with `interpolation` (`SINEW_INTERPOLATION_*`): every
/// `sinew_sample` through it interpolates so. Size the memory with `sinew_sampling_context_required_bytes_for`.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` (joint count, interpolation); `SINEW_ERROR_MEMORY_ALIGNMENT`;
/// `SINEW_ERROR_MEMORY_TOO_SMALL`.
///
/// # Safety
/// As `sinew_sampling_context_init`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_sampling_context_init_for(
    memory: *mut c_void,
    len: usize,
    num_joints: u32,
    max_tracks: u32,
    interpolation: u32,
    out: *mut *mut sinew_sampling_context,
) -> sinew_status {
    let result = context_bytes(num_joints, max_tracks, interpolation).and_then(|required| {
        let header = Header { magic: 0, arena_len: 0 };
        let state = ContextState::default();
        let prefix = ContextPrefix { header, num_joints, max_tracks, interpolation, reserved: 0, state };
        // SAFETY: the caller's contract.
        unsafe { init(memory, len, required, prefix, out, |_| Ok(())) }
    });
    result.err().unwrap_or(SINEW_OK)
}

/// Samples clip `clip` of `asset` at `time` seconds (`SINEW_WRAP_LOOP` wraps it into the clip,
/// `SINEW_WRAP_CLAMP` clamps it) through `context` into the `count` lane groups at `pose` (local space,
/// `sinew_asset_num_soa_joints` of them), and the clip's first `num_curves` scalar curves into `curves` (NULL
/// when `num_curves` is 0). Results equal the character's sampling bit for bit.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (clip); `SINEW_ERROR_INVALID_ARGUMENT` for a time not finite or a
/// wrap other than those two; `SINEW_ERROR_BUFFER` for a pose of another length, misaligned, or overlapping the
/// context, the curves or the blob, more curves than the clip has, or a context made for another joint count; `SINEW_ERROR_INVALID_HANDLE` for a context `sinew_sampling_context_init` did not make.
///
/// # Safety
/// `asset` points to a loaded asset; `context` to an initialized context used by no one else during the call;
/// `pose` to `count` writable lane groups; `curves` to `num_curves` writable floats.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments, reason = "the C call lists its buffers and their lengths")]
pub unsafe extern "C" fn sinew_sample(
    asset: *const sinew_asset,
    clip: u32,
    time: f32,
    wrap: u32,
    context: *mut sinew_sampling_context,
    pose: *mut sinew_soa_transform,
    count: usize,
    curves: *mut f32,
    num_curves: usize,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let stored = unsafe { stored(asset) }?;
        let playback = match wrap {
            SINEW_WRAP_LOOP => Playback::Loop,
            SINEW_WRAP_CLAMP => Playback::Clamp,
            _ => return Err(SINEW_ERROR_INVALID_ARGUMENT),
        };
        let clip = stored.asset.clip(clip as usize).ok_or(SINEW_ERROR_INDEX_OUT_OF_RANGE)?;
        // SAFETY: the caller's contract.
        let memory = unsafe { extent(context) };
        let curves_read = if num_curves == 0 { (core::ptr::null(), 0) } else { bytes(curves, num_curves) };
        let read = read_only(stored, asset);
        disjoint(memory, &read)?;
        disjoint((pose.cast_const(), count), &[memory, curves_read, read[0], read[1]])?;
        if num_curves != 0 {
            disjoint((curves.cast_const(), num_curves), &[memory, read[0], read[1]])?;
        }
        // SAFETY: the caller's contract.
        let (prefix, arena_memory) = unsafe { open::<ContextPrefix, _>(context) }?;
        // SAFETY: the caller's contract; disjoint from every other buffer of the call (checked).
        let output = unsafe { output::<_, SoaTransform>(pose, count) }?;
        let curves: &mut [f32] = if num_curves == 0 {
            &mut []
        } else {
            // SAFETY: as `output`.
            unsafe { super::output::<f32, f32>(curves, num_curves) }?
        };
        let arena = Arena::new(arena_memory);
        let (num_joints, max_tracks) = (prefix.num_joints as usize, prefix.max_tracks as usize);
        let interpolation = interpolation_of(prefix.interpolation).map_err(|_| SINEW_ERROR_INVALID_HANDLE)?;
        let mut core_context = SamplingContext::resume(&arena, num_joints, max_tracks, interpolation, &prefix.state)
            .map_err(|_| SINEW_ERROR_INVALID_HANDLE)?;
        let skeleton = stored.asset.skeleton();
        let mut job = SamplingJob { skeleton, clip: &clip, time, playback, context: &mut core_context, output, curves };
        job.run().map_err(job_status)?;
        prefix.state = core_context.suspend();
        Ok(())
    })();
    result.err().unwrap_or(SINEW_OK)
}

/// Drops what `context` holds, so the next sample decodes afresh: needed only when a blob is rewritten in
/// place at the same address (a context notices a different clip by itself).
///
/// # Safety
/// `context` points to an initialized context used by no one else during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_sampling_context_invalidate(context: *mut sinew_sampling_context) -> sinew_status {
    // SAFETY: the caller's contract.
    match unsafe { open::<ContextPrefix, _>(context) } {
        Ok((prefix, _)) => {
            // The all-zero state holds nothing (`ContextState`'s contract).
            prefix.state = ContextState::default();
            SINEW_OK
        }
        Err(status) => status,
    }
}
