//! What only the web page needs beyond the C ABI, on wasm32: memory for blobs, characters and job state. The
//! library has no allocator, so the page takes fresh pages from the wasm memory's growth and lays its objects
//! out there with the C ABI's own calls, as a C engine does with its pools.

use core::arch::wasm32::{memory_grow, memory_size};

/// Bytes of a wasm page.
const PAGE: usize = 65536;

/// `bytes` of fresh, zeroed memory from the wasm memory's growth, aligned to 64 KiB (any alignment the ABI
/// asks); NULL when `bytes` is 0 or the memory cannot grow. Nothing is ever freed: the page keeps what it
/// reserves for its life, and reuses it.
#[unsafe(no_mangle)]
pub extern "C" fn sinew_web_reserve(bytes: usize) -> *mut u8 {
    if bytes == 0 {
        return core::ptr::null_mut();
    }
    let pages = bytes.div_ceil(PAGE);
    match memory_grow(0, pages) {
        usize::MAX => core::ptr::null_mut(),
        first => (first * PAGE) as *mut u8,
    }
}

/// Bytes of the wasm memory now (it grows with `sinew_web_reserve`; the page re-reads its views after).
#[unsafe(no_mangle)]
pub extern "C" fn sinew_web_memory_bytes() -> usize {
    memory_size(0) * PAGE
}
