//! # sinew — a `no_std` SIMD structure-of-arrays skeletal-animation runtime
//!
//! Every frame, for every character, sinew turns animation data into skinning matrices:
//!
//! ```text
//! clip::sample ─┐
//! clip::sample ─┼─> blend ─> inertialize ─> ik ─> local_to_model ─> skinning
//!               └─ motion (root motion, correction, warping) runs beside the pose
//! ```
//!
//! Stages present today: [`local_to_model`] and [`skinning`], over the [`math`] types, a validated
//! [`skeleton`], and caller-owned memory from an [`arena`]. Sampling, blending, inertialization and IK follow.
//!
//! Ground rules (see `docs/conventions.md`):
//! - No allocation: every buffer is the caller's (an [`Arena`] carves them); stateful parts say their
//!   `required_bytes` up front.
//! - Local poses are SoA ([`math::SoaTransform`], four joints per lane group, identity in padding lanes);
//!   model space is AoS ([`math::Mat4`], column-major).
//! - Bad input is an [`Error`], never a panic.
//! - The `scalar` feature swaps the SIMD lanes for plain arrays; results match within documented tolerances.

#![no_std]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![warn(missing_debug_implementations)]

/// Picks a stage's kernels at compile time, the one place the condition is written: `<stage>/avx2.rs` on
/// x86-64-v3 class targets (AVX2 and FMA enabled, not the `scalar` build), `<stage>/portable.rs` (over `F4`:
/// SSE2, NEON, scalar) everywhere else. Either way the stage sees the module as `kernels`.
macro_rules! kernels {
    () => {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma", not(feature = "scalar")))]
        mod avx2;
        #[cfg(all(
            target_arch = "x86_64",
            target_feature = "avx2",
            target_feature = "fma",
            not(feature = "scalar")
        ))]
        use avx2 as kernels;
        #[cfg(not(all(
            target_arch = "x86_64",
            target_feature = "avx2",
            target_feature = "fma",
            not(feature = "scalar")
        )))]
        mod portable;
        #[cfg(not(all(
            target_arch = "x86_64",
            target_feature = "avx2",
            target_feature = "fma",
            not(feature = "scalar")
        )))]
        use portable as kernels;
    };
}

pub mod arena;
pub mod error;
pub mod local_to_model;
pub mod math;
pub mod skeleton;
pub mod skinning;

pub use arena::{Arena, Checkpoint};
pub use error::{Buffer, Error};
pub use local_to_model::LocalToModelJob;
pub use skeleton::Skeleton;
pub use skinning::Skin;
