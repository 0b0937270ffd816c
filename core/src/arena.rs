//! A bump arena over caller memory: the runtime's only source of buffers.
//!
//! The caller hands over a `&mut [u8]` of any length and alignment; the arena carves zeroed, aligned, typed
//! `Pod` slices out of it. Nothing is ever freed one by one: a [`Checkpoint`] marks a point and
//! [`Arena::rewind`] returns to it, which is how per-frame scratch is reused. Exhaustion is an `Err`.
//!
//! Borrowing: `alloc` takes `&self`, so any number of slices can be live at once, each borrowing the arena;
//! `rewind` takes `&mut self`, so the borrow checker proves no slice outlives the memory it came from.
//! For long-lived state next to per-frame scratch, carve the state first and give the scratch its own
//! [`Arena::sub_arena`], which can be rewound while the state stays borrowed.

use crate::error::Error;
use bytemuck::Pod;
use core::cell::Cell;
use core::marker::PhantomData;
use core::ptr::NonNull;

/// A position in an arena to rewind to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoint(usize);

/// Bump allocator over a caller's byte buffer (see the module docs).
pub struct Arena<'buf> {
    base: NonNull<u8>,
    capacity: usize,
    used: Cell<usize>,
    high_water: Cell<usize>,
    _buffer: PhantomData<&'buf mut [u8]>,
}

// SAFETY: the arena owns the only access to its buffer for 'buf (it holds the `&mut`); moving it to another
// thread moves that access. It is not `Sync` (the `Cell`s), so two threads never carve at once.
unsafe impl Send for Arena<'_> {}

impl core::fmt::Debug for Arena<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Arena")
            .field("capacity", &self.capacity)
            .field("used", &self.used.get())
            .field("high_water", &self.high_water.get())
            .finish()
    }
}

impl<'buf> Arena<'buf> {
    /// An arena over `buffer`. The buffer may have any length and alignment; its contents are ignored.
    pub fn new(buffer: &'buf mut [u8]) -> Arena<'buf> {
        Arena {
            base: NonNull::from(&mut *buffer).cast(),
            capacity: buffer.len(),
            used: Cell::new(0),
            high_water: Cell::new(0),
            _buffer: PhantomData,
        }
    }

    /// Bytes the buffer holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bytes carved so far (including alignment padding) since creation or the last rewind.
    pub fn used(&self) -> usize {
        self.used.get()
    }

    /// Bytes still free (before alignment padding of the next request).
    pub fn remaining(&self) -> usize {
        self.capacity - self.used.get()
    }

    /// The most bytes ever in use at once: size a character's buffer from this.
    pub fn high_water(&self) -> usize {
        self.high_water.get()
    }

    /// Bytes an arena needs to hold `count` values of `T` whatever the alignment of its buffer:
    /// `size_of::<T>() * count` plus `align_of::<T>() - 1` of worst-case padding. Sum these to size a buffer.
    pub const fn required_bytes<T>(count: usize) -> usize {
        core::mem::size_of::<T>() * count + core::mem::align_of::<T>() - 1
    }

    /// `count` zeroed values of `T`, aligned for `T`.
    ///
    /// Errors: `Error::ArenaExhausted` when the rest of the buffer cannot hold them (nothing is carved then).
    pub fn alloc<T: Pod>(&self, count: usize) -> Result<&mut [T], Error> {
        self.take(count, true)
    }

    /// `count` values of `T`, aligned for `T`, holding whatever the bytes held: how state laid out earlier is
    /// viewed again. Carving the same types in the same order from an arena over the same bytes (or a copy at
    /// the same alignment modulo the largest alignment carved) gives the same regions.
    ///
    /// Errors: `Error::ArenaExhausted` as for [`Arena::alloc`].
    pub fn carve<T: Pod>(&self, count: usize) -> Result<&mut [T], Error> {
        self.take(count, false)
    }

    /// [`Arena::alloc`] (`zeroed`) or [`Arena::carve`].
    #[expect(clippy::mut_from_ref, reason = "a bump pointer hands out disjoint regions; see the SAFETY note")]
    pub fn take<T: Pod>(&self, count: usize, zeroed: bool) -> Result<&mut [T], Error> {
        let used = self.used.get();
        let available = self.capacity - used;
        let exhausted = |requested| Error::ArenaExhausted { requested, available };
        // SAFETY: `used <= capacity`, so the pointer stays inside (or one past) the caller's buffer.
        let cursor = unsafe { self.base.as_ptr().add(used) };
        let padding = cursor.align_offset(core::mem::align_of::<T>());
        let bytes = core::mem::size_of::<T>().checked_mul(count).ok_or(exhausted(usize::MAX))?;
        let requested = padding.checked_add(bytes).ok_or(exhausted(usize::MAX))?;
        if bytes == 0 {
            // Nothing to carve: an empty slice needs no padding, so it fits even in a full arena.
            return Ok(&mut []);
        }
        if requested > available {
            return Err(exhausted(requested));
        }
        self.used.set(used + requested);
        self.high_water.set(self.high_water.get().max(used + requested));
        // SAFETY: `padding + bytes <= available`, so the range lies inside the buffer. It lies past every earlier
        // allocation since the last rewind (`used` only grows under `&self`), and `rewind` needs `&mut self`, so no
        // other live slice overlaps it. The start is aligned for `T` by `padding`. Every byte is initialized (the
        // buffer came as a `&mut [u8]`), and any bytes (zero or not) are a valid `T` because `T: Pod`.
        unsafe {
            let start = cursor.add(padding);
            if zeroed {
                core::ptr::write_bytes(start, 0, bytes);
            }
            Ok(core::slice::from_raw_parts_mut(start.cast::<T>(), count))
        }
    }

    /// A new arena over the next `bytes` bytes of this one, rewindable on its own (for per-frame scratch
    /// beside long-lived state).
    pub fn sub_arena(&self, bytes: usize) -> Result<Arena<'_>, Error> {
        self.alloc::<u8>(bytes).map(Arena::new)
    }

    /// The current position, to hand to [`Arena::rewind`] later.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint(self.used.get())
    }

    /// Frees everything carved after `checkpoint`. `&mut self` proves those slices are no longer borrowed.
    ///
    /// Errors: `Error::InvalidCheckpoint` when `checkpoint` lies past the current use (nothing changes then).
    pub fn rewind(&mut self, checkpoint: Checkpoint) -> Result<(), Error> {
        let used = self.used.get();
        if checkpoint.0 > used {
            return Err(Error::InvalidCheckpoint { checkpoint: checkpoint.0, used });
        }
        self.used.set(checkpoint.0);
        Ok(())
    }

    /// Frees everything (`rewind` to the start).
    pub fn reset(&mut self) {
        self.used.set(0);
    }
}
