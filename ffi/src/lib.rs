//! sinew's C ABI: load a baked asset, lay out characters in caller memory, play, transition, update, and read
//! the model matrices and the skinning palette. The header `ffi/include/sinew.h` is generated from this crate
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

// The C namespace is flat, so every room is re-exported whole at the root and the header is generated from all of
// them. The rooms, bottom to top: `status`, `asset`, `jobs` (the stages over caller buffers), `character` and
// `motion` (and `motion_matching`), then what acts on a character: `events`, `edit`, `bounds`, `foot_planting`.
mod asset;
mod bounds;
mod character;
mod edit;
mod events;
mod foot_planting;
mod jobs;
mod motion;
mod motion_matching;
mod status;
#[cfg(target_arch = "wasm32")]
mod web;

pub use asset::*;
pub use bounds::*;
pub use character::*;
pub use edit::*;
pub use events::*;
pub use foot_planting::*;
pub use jobs::aim_blend::*;
pub use jobs::attachment::*;
pub use jobs::blend_graph::*;
pub use jobs::blending::*;
pub use jobs::ik::*;
pub use jobs::inertialization::*;
pub use jobs::local_to_model::*;
pub use jobs::sampling::*;
pub use jobs::skinning::*;
pub use jobs::state::SINEW_STATE_ALIGN;
pub use jobs::vertex_skinning::*;
pub use jobs::*;
pub use motion::*;
pub use motion_matching::*;
pub use status::*;
#[cfg(target_arch = "wasm32")]
pub use web::*;

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
/// the shown pose; 1004 the stage jobs over caller memory and `SINEW_ERROR_BUFFER`; 1005 discrete target speeds
/// and speed ranges, and IK by interpolation; 1006 cubic sampling (`SINEW_SAMPLING_CUBIC`,
/// `sinew_sampling_context_init_for`); 1007 blend graphs (`sinew_blend_graph_*`); 1008 their chunk node
/// (`SINEW_BLEND_NODE_CHUNKS`); 1009 a clip's knot times (`sinew_asset_clip_knots`); 1010 motion matching's search
/// (`sinew_motion_search`, `sinew_motion_database_describe`, `sinew_motion_database_features`); 1011 the
/// motion-matched base layer (`sinew_motion_matcher_*`, `sinew_character_match_motion`).
pub const SINEW_ABI_VERSION: u32 = 1011;

/// Returns the library's `SINEW_ABI_VERSION`; a program checks that its major part (`/ 1000`) equals the
/// header's and its minor part is at least the header's.
#[unsafe(no_mangle)]
pub extern "C" fn sinew_abi_version() -> u32 {
    SINEW_ABI_VERSION
}
