//! Job state in caller memory (a sampling context, an inertializer): a prefix naming what the memory holds and
//! its arena's length, then the arena the core carves the state from. Like a character, such memory may be
//! copied byte for byte to another address of the same alignment between calls.

use crate::status::{
    SINEW_ERROR_INVALID_HANDLE, SINEW_ERROR_MEMORY_ALIGNMENT, SINEW_ERROR_MEMORY_TOO_SMALL, SINEW_ERROR_NULL_POINTER,
    sinew_status,
};
use core::ffi::c_void;
use core::mem::size_of;

/// Required alignment of a job state's memory (a sampling context's, an inertializer's).
pub const SINEW_STATE_ALIGN: usize = 64;

/// The prefix takes whole alignment units, so the arena after it starts aligned.
pub(crate) const PREFIX_BYTES: usize = 2 * SINEW_STATE_ALIGN;

/// What starts every state's prefix.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Header {
    /// Names the kind of state, so memory of another kind or none is refused.
    pub magic: u64,
    /// Bytes of the arena after the prefix.
    pub arena_len: u64,
}

/// A state's prefix: the header, then what the kind of state keeps beside its arena.
///
/// # Safety
/// Implementors are `repr(C)` plain data starting with a `Header`, at most `PREFIX_BYTES` long.
pub(crate) unsafe trait Prefix: Copy {
    /// The kind's magic.
    const MAGIC: u64;
}

/// The memory a state of `arena` bytes needs: the prefix and the arena, in whole alignment units.
pub(crate) fn state_bytes(arena: usize) -> usize {
    PREFIX_BYTES + arena.next_multiple_of(SINEW_STATE_ALIGN)
}

/// Writes `prefix` (its header naming an arena of the rest of `required`) at the start of the `len` bytes at
/// `memory`, lets `lay_out` fill the arena, and only then points `*out` at the memory.
///
/// # Safety
/// `memory` points to `len` writable bytes; `out` is NULL or writable.
pub(crate) unsafe fn init<P: Prefix, T>(
    memory: *mut c_void,
    len: usize,
    required: usize,
    prefix: P,
    out: *mut *mut T,
    lay_out: impl FnOnce(&mut [u8]) -> Result<(), sinew_status>,
) -> Result<(), sinew_status> {
    const { assert!(size_of::<P>() <= PREFIX_BYTES) };
    if memory.is_null() || out.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    if !(memory as usize).is_multiple_of(SINEW_STATE_ALIGN) {
        return Err(SINEW_ERROR_MEMORY_ALIGNMENT);
    }
    if len < required {
        return Err(SINEW_ERROR_MEMORY_TOO_SMALL);
    }
    // SAFETY: `len >= required >= PREFIX_BYTES` writable bytes, aligned.
    unsafe {
        memory.cast::<P>().write(prefix);
        memory.cast::<Header>().write(Header { magic: P::MAGIC, arena_len: (required - PREFIX_BYTES) as u64 });
    }
    // SAFETY: the prefix just written names this memory's arena.
    let (_, arena) = unsafe { open::<P, c_void>(memory) }?;
    lay_out(arena)?;
    // SAFETY: not NULL (checked), writable by the caller's contract.
    unsafe { out.write(memory.cast()) };
    Ok(())
}

/// The prefix and the arena of the state at `state`, checked to be of kind `P`.
///
/// # Safety
/// `state` is NULL or points to memory `init` laid out for a `P` (or a copy of it), used by no one else during
/// the call.
pub(crate) unsafe fn open<'a, P: Prefix, T>(state: *mut T) -> Result<(&'a mut P, &'a mut [u8]), sinew_status> {
    if state.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    if !(state as usize).is_multiple_of(SINEW_STATE_ALIGN) {
        return Err(SINEW_ERROR_INVALID_HANDLE);
    }
    // SAFETY: aligned and readable by the caller's contract; the header is read alone first.
    let header = unsafe { state.cast::<Header>().read() };
    let arena_len = usize::try_from(header.arena_len).map_err(|_| SINEW_ERROR_INVALID_HANDLE)?;
    if header.magic != P::MAGIC || arena_len > isize::MAX as usize - PREFIX_BYTES {
        return Err(SINEW_ERROR_INVALID_HANDLE);
    }
    // SAFETY: the magic says `init` laid out a `P` and `arena_len` bytes after the prefix, disjoint from it.
    unsafe {
        let arena = core::slice::from_raw_parts_mut(state.cast::<u8>().add(PREFIX_BYTES), arena_len);
        Ok((&mut *state.cast::<P>(), arena))
    }
}

/// The bytes of the state at `state`, for overlap checks (its arena length as its header says, unchecked).
///
/// # Safety
/// As `open`.
pub(crate) unsafe fn extent<T>(state: *const T) -> (*const u8, usize) {
    if state.is_null() || !(state as usize).is_multiple_of(SINEW_STATE_ALIGN) {
        return (core::ptr::null(), 0);
    }
    // SAFETY: aligned and readable by the caller's contract.
    let header = unsafe { state.cast::<Header>().read() };
    let arena = usize::try_from(header.arena_len).unwrap_or(usize::MAX);
    (state.cast(), PREFIX_BYTES.saturating_add(arena))
}
