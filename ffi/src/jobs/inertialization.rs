//! Inertialization over caller memory (Gears of War 4's): an inertializer kept in caller memory, transition
//! requests, and each frame's output, the target plus the decaying offset from the pose the request left.

use super::state::{Header, Prefix, extent, init, open, state_bytes};
use super::{bytes, disjoint, input, job_status, sinew_soa_transform};
use crate::jobs::sampling::joint_count;
use crate::status::{SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NULL_POINTER, SINEW_OK, put, sinew_status};
use core::ffi::c_void;
use sinew::arena::Arena;
use sinew::inertialization::{InertializationJob, Inertializer, Settings, Target, Transition};
use sinew::math::{F4, SoaTransform};

/// `sinew_inertializer_init`'s settings bit: offsets per component (else projected on the offset's direction).
pub const SINEW_INERTIALIZE_PER_COMPONENT: u32 = 1;
/// Settings bit: the start velocity is relative to the target's (else absolute).
pub const SINEW_INERTIALIZE_RELATIVE: u32 = 2;
/// Settings bit: the continuous shape, C2 at the start (else the clamped quintic).
pub const SINEW_INERTIALIZE_CONTINUOUS: u32 = 4;
/// The default settings (`SINEW_INERTIALIZATION_DEFAULT`'s): per component, relative, clamped.
pub const SINEW_INERTIALIZE_DEFAULT: u32 = SINEW_INERTIALIZE_PER_COMPONENT | SINEW_INERTIALIZE_RELATIVE;

const _: () = assert!(
    SINEW_INERTIALIZE_PER_COMPONENT == sinew::inertialization::ChannelMode::PerComponent as u32
        && SINEW_INERTIALIZE_RELATIVE == 2 * sinew::inertialization::VelocityMode::Relative as u32
        && SINEW_INERTIALIZE_CONTINUOUS == 4 * sinew::inertialization::Shape::Continuous as u32
);

/// An inertializer: opaque, at the start of the memory the caller gave `sinew_inertializer_init` (aligned to
/// `SINEW_STATE_ALIGN`), movable as a character is.
pub struct sinew_inertializer {
    _opaque: [u8; 0],
}

/// What precedes the inertializer's arena.
#[repr(C)]
#[derive(Clone, Copy)]
struct InertializerPrefix {
    header: Header,
    num_joints: u32,
    num_curves: u32,
}

// SAFETY: `repr(C)` plain data starting with a `Header`, within the prefix (`init` asserts the size).
unsafe impl Prefix for InertializerPrefix {
    const MAGIC: u64 = u64::from_le_bytes(*b"snwINERT");
}

/// The most curves an inertializer takes.
const MAX_INERTIALIZED_CURVES: u32 = 1 << 16;

/// Bytes of the memory of an inertializer (see `sinew_inertializer_required_bytes`).
fn inertializer_bytes(num_joints: u32, num_curves: u32) -> Result<usize, sinew_status> {
    if num_curves > MAX_INERTIALIZED_CURVES {
        return Err(SINEW_ERROR_INVALID_ARGUMENT);
    }
    joint_count(num_joints).map(|n| state_bytes(Inertializer::required_bytes(n, num_curves as usize)))
}

/// Bytes of memory an inertializer of `num_joints` joints and `num_curves` scalar curves needs (a multiple of
/// `SINEW_STATE_ALIGN`): about 229 bytes per joint and 28 per curve.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for a joint count outside `1..=SINEW_MAX_JOINTS` or more than 65536
/// curves.
///
/// # Safety
/// `out` points to a writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_inertializer_required_bytes(
    num_joints: u32,
    num_curves: u32,
    out: *mut usize,
) -> sinew_status {
    // SAFETY: the caller's contract.
    unsafe { put(out, inertializer_bytes(num_joints, num_curves)) }
}

/// Lays out an inertializer with `settings` (`SINEW_INERTIALIZE_*` bits) in the `len` bytes at `memory`
/// (aligned to `SINEW_STATE_ALIGN`, at least `sinew_inertializer_required_bytes`), with no history and no
/// transition, and points `*out` at it.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for counts as `sinew_inertializer_required_bytes` or unknown settings
/// bits; `SINEW_ERROR_MEMORY_ALIGNMENT`; `SINEW_ERROR_MEMORY_TOO_SMALL`.
///
/// # Safety
/// `memory` points to `len` writable bytes used by no one else while the inertializer lives; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_inertializer_init(
    memory: *mut c_void,
    len: usize,
    num_joints: u32,
    num_curves: u32,
    settings: u32,
    out: *mut *mut sinew_inertializer,
) -> sinew_status {
    let result = (|| {
        let settings = Settings::from_code(settings).ok_or(SINEW_ERROR_INVALID_ARGUMENT)?;
        let required = inertializer_bytes(num_joints, num_curves)?;
        let header = Header { magic: 0, arena_len: 0 };
        let prefix = InertializerPrefix { header, num_joints, num_curves };
        // SAFETY: the caller's contract.
        unsafe {
            init(memory, len, required, prefix, out, |arena| {
                Inertializer::new(&Arena::new(arena), num_joints as usize, num_curves as usize, settings)
                    .map(|_| ())
                    .map_err(job_status)
            })
        }
    })();
    result.err().unwrap_or(SINEW_OK)
}

/// Runs `work` on the inertializer at `inertializer`, re-attached to its memory.
///
/// # Safety
/// `inertializer` is NULL or points to an initialized inertializer used by no one else during the call.
unsafe fn with_inertializer<T>(
    inertializer: *mut sinew_inertializer,
    work: impl FnOnce(&mut Inertializer<'_>) -> Result<T, sinew_status>,
) -> Result<T, sinew_status> {
    // SAFETY: the caller's contract.
    let (prefix, arena) = unsafe { open::<InertializerPrefix, _>(inertializer) }?;
    let arena = Arena::new(arena);
    let mut core = Inertializer::attach(&arena, prefix.num_joints as usize, prefix.num_curves as usize)
        .map_err(|_| crate::status::SINEW_ERROR_INVALID_HANDLE)?;
    work(&mut core)
}

/// Asks for a transition of `duration` seconds on the next `sinew_inertialize`: it starts from the last
/// output. `profile` is NULL, or per-joint factors on the duration in lane order (`4 * count` floats,
/// 16-byte aligned, `count` the pose's lane groups; finite and > 0 for real joints), fingers settling before the
/// spine. Several requests before one frame combine per joint, the shortest winning.
///
/// Errors, with nothing recorded: `SINEW_ERROR_INVALID_ARGUMENT` for a duration (or a joint's) not finite or
/// below the minimum (1 ms); `SINEW_ERROR_BUFFER` for a profile of another length or misaligned;
/// `SINEW_ERROR_INVALID_HANDLE`.
///
/// # Safety
/// `inertializer` points to an initialized inertializer used by no one else during the call; `profile` is
/// NULL or points to `4 * count` readable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_inertializer_request(
    inertializer: *mut sinew_inertializer,
    duration: f32,
    profile: *const f32,
    count: usize,
) -> sinew_status {
    let result = (|| {
        let profile = if profile.is_null() {
            None
        } else {
            // SAFETY: the caller's contract.
            let memory = unsafe { extent(inertializer) };
            disjoint(memory, &[bytes(profile, 4 * count)])?;
            // SAFETY: readable, and not the inertializer's memory (checked).
            Some(unsafe { input::<[f32; 4], F4>(profile.cast(), count) }?)
        };
        // SAFETY: the caller's contract.
        unsafe { with_inertializer(inertializer, |i| i.request(&Transition { duration, profile }).map_err(job_status)) }
    })();
    result.err().unwrap_or(SINEW_OK)
}

/// Advances the inertializer by `dt` seconds toward this frame's target: the `count` lane groups at `target`
/// and its `num_curves` curves (the numbers it was made for). On the frame after a request in relative mode,
/// `previous` and `previous_curves` hold the target one frame earlier (`dt` before); otherwise they may be
/// NULL. Read the output with `sinew_inertializer_output`.
///
/// Errors, with the inertializer unchanged: `SINEW_ERROR_INVALID_ARGUMENT` for a `dt` not finite or below 0, a
/// target not finite or with a zero rotation, an output not finite, or a missing previous target in relative
/// mode; `SINEW_ERROR_BUFFER` for lengths other than the inertializer's, misaligned poses, or an input inside
/// the inertializer's memory; `SINEW_ERROR_INVALID_HANDLE`.
///
/// # Safety
/// `inertializer` as for `sinew_inertializer_request`; `target` and `previous` point to `count` readable lane
/// groups (or NULL where allowed), `curves` and `previous_curves` to `num_curves` readable floats.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments, reason = "the C call lists its buffers and their lengths")]
pub unsafe extern "C" fn sinew_inertialize(
    inertializer: *mut sinew_inertializer,
    dt: f32,
    target: *const sinew_soa_transform,
    count: usize,
    curves: *const f32,
    num_curves: usize,
    previous: *const sinew_soa_transform,
    previous_curves: *const f32,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let memory = unsafe { extent(inertializer) };
        let read = [
            bytes(target, count),
            bytes(curves, num_curves),
            bytes(previous, count),
            bytes(previous_curves, num_curves),
        ];
        disjoint(memory, &read)?;
        // Empty curve lists may come as NULL.
        let floats = |ptr: *const f32| -> Result<&[f32], sinew_status> {
            if num_curves == 0 {
                return Ok(&[]);
            }
            // SAFETY: the caller's contract; not the inertializer's memory (checked).
            unsafe { input::<f32, f32>(ptr, num_curves) }
        };
        // SAFETY: the caller's contract; not the inertializer's memory (checked).
        let pose = unsafe { input::<_, SoaTransform>(target, count) }?;
        let previous = if previous.is_null() {
            None
        } else {
            // SAFETY: as `pose`.
            Some((unsafe { input::<_, SoaTransform>(previous, count) }?, floats(previous_curves)?))
        };
        let target = Target { pose, curves: floats(curves)?, previous };
        // SAFETY: the caller's contract.
        unsafe {
            with_inertializer(inertializer, |i| {
                InertializationJob { inertializer: i, dt, target }.run().map_err(job_status)
            })
        }
    })();
    result.err().unwrap_or(SINEW_OK)
}

/// Points `*pose` at the last output (`*count` lane groups, local space) and `*curves` at its `*num_curves`
/// curves, inside the inertializer's memory: valid until its next call or until the memory moves.
///
/// Errors: `SINEW_ERROR_INVALID_HANDLE`.
///
/// # Safety
/// `inertializer` as for `sinew_inertializer_request`; the four outputs are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_inertializer_output(
    inertializer: *mut sinew_inertializer,
    pose: *mut *const sinew_soa_transform,
    count: *mut usize,
    curves: *mut *const f32,
    num_curves: *mut usize,
) -> sinew_status {
    if pose.is_null() || count.is_null() || curves.is_null() || num_curves.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    let output = unsafe {
        with_inertializer(inertializer, |i| {
            let out = i.output();
            Ok((out.pose.as_ptr(), out.pose.len(), out.curves.as_ptr(), out.curves.len()))
        })
    };
    match output {
        Ok((p, n, c, m)) => {
            // SAFETY: all four writable by the caller's contract.
            unsafe {
                pose.write(p.cast());
                count.write(n);
                curves.write(c);
                num_curves.write(m);
            }
            SINEW_OK
        }
        Err(status) => status,
    }
}

/// Writes 1 to `*out` while a transition's offset is not yet zero everywhere, else 0.
///
/// # Safety
/// `inertializer` as for `sinew_inertializer_request`; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_inertializer_is_transitioning(
    inertializer: *mut sinew_inertializer,
    out: *mut u32,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let answer = unsafe { with_inertializer(inertializer, |i| Ok(u32::from(i.is_transitioning()))) };
    // SAFETY: the caller's contract.
    unsafe { put(out, answer) }
}

/// Forgets the history, any transition in flight and pending requests (a teleport): the next output is the
/// target.
///
/// # Safety
/// `inertializer` as for `sinew_inertializer_request`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_inertializer_reset(inertializer: *mut sinew_inertializer) -> sinew_status {
    // SAFETY: the caller's contract.
    let result = unsafe {
        with_inertializer(inertializer, |i| {
            i.reset();
            Ok(())
        })
    };
    result.err().unwrap_or(SINEW_OK)
}
