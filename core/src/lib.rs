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
//! Stages present today: [`sampling`] of baked [`clip`]s (loaded zero-copy from an [`asset`] blob),
//! [`blending`], [`inertialization`], [`local_to_model`], [`skinning`] matrices and CPU [`vertex_skinning`],
//! over the [`math`] types, a validated [`skeleton`], and caller-owned memory from an [`arena`]. IK follows.
//!
//! Ground rules (see `docs/conventions.md`):
//! - No allocation: every buffer is the caller's (an [`Arena`] carves them); stateful parts say their
//!   `required_bytes` up front.
//! - Local poses are SoA ([`math::SoaTransform`], four joints per lane group, identity in padding lanes);
//!   model space is AoS ([`math::Mat4`], column-major).
//! - Bad input is an [`Error`], never a panic.
//! - The `scalar` feature swaps the SIMD lanes for plain arrays; results match within documented tolerances.
//!
//! A frame for one character, all memory from the caller:
//!
//! ```
//! use sinew::math::{Mat3x4, Mat4, SoaTransform, Transform, Vec3, pack_soa};
//! use sinew::{Arena, LocalToModelJob, Skeleton, Skin};
//!
//! // A three-joint chain, each joint one unit above its parent; the skin binds all three.
//! let parents = [-1, 0, 1];
//! let up = Transform { translation: Vec3::new(0.0, 1.0, 0.0), ..Transform::IDENTITY };
//! let mut rest = [SoaTransform::IDENTITY; 1];
//! pack_soa(&[up; 3], &mut rest)?;
//! let skeleton = Skeleton::new(&parents, &rest, None)?;
//! let inverse_bind = [Mat3x4::IDENTITY; 3];
//! let skin = Skin::new(skeleton.num_joints(), &[0, 1, 2], &inverse_bind)?;
//!
//! let mut memory = [0u8; 1024];
//! let arena = Arena::new(&mut memory);
//! let model = arena.alloc::<Mat4>(skeleton.num_joints())?;
//! let palette = arena.alloc::<Mat3x4>(skin.num_joints())?;
//! LocalToModelJob { skeleton: &skeleton, local: skeleton.rest_pose(), root: None, model }.run()?;
//! skin.palette_3x4(model, palette)?;
//! assert_eq!(palette[2].rows[1][3], 3.0); // the third joint sits three units up
//! # Ok::<(), sinew::Error>(())
//! ```

#![no_std]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![warn(missing_debug_implementations)]

/// The one place the x86-64-v3 kernel condition is written (AVX2 and FMA enabled, not the `scalar` build):
/// `avx2_kernels! { if { items } else { items } }` compiles the first items there and the second everywhere
/// else (SSE2, NEON, scalar); `avx2_kernels!()` is the condition as a `bool` expression.
macro_rules! avx2_kernels {
    (@with $($form:tt)*) => {
        avx2_kernels! { $($form)* (all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma",
            not(feature = "scalar"))) }
    };
    (if { $($yes:item)* } else { $($no:item)* }) => {
        avx2_kernels! { @with @items { $($yes)* } { $($no)* } }
    };
    () => {
        avx2_kernels! { @with @bool }
    };
    (@items { $($yes:item)* } { $($no:item)* } $cond:tt) => {
        $( #[cfg $cond] $yes )*
        $( #[cfg(not $cond)] $no )*
    };
    (@bool $cond:tt) => {{
        #[cfg $cond]
        let on = true;
        #[cfg(not $cond)]
        let on = false;
        on
    }};
}

/// Picks a stage's kernels at compile time: `<stage>/avx2.rs` where [`avx2_kernels!`] says so,
/// `<stage>/portable.rs` (over `F4`) everywhere else. Either way the stage sees the module as `kernels`.
macro_rules! kernels {
    () => {
        avx2_kernels! {
            if {
                mod avx2;
                use avx2 as kernels;
            } else {
                mod portable;
                use portable as kernels;
            }
        }
    };
}

pub mod arena;
pub mod asset;
pub mod blending;
pub mod character;
pub mod clip;
pub mod control;
pub mod error;
pub mod inertialization;
pub mod limits;
pub mod local_to_model;
pub mod math;
pub mod sampling;
pub mod skeleton;
pub mod skinning;
pub mod vertex_skinning;

pub use arena::{Arena, Checkpoint};
pub use asset::Asset;
pub use blending::{BlendLayer, BlendingJob};
pub use character::{Blend, Character, CharacterDesc, LayerDesc, LayerKind, Play, Scratch};
pub use clip::Clip;
pub use control::{Control, Fade, Step, Wrap};
pub use error::{BlobProblem, Buffer, Error, Section};
pub use inertialization::{Inertializer, Target, Transition};
pub use local_to_model::LocalToModelJob;
pub use sampling::{Playback, SamplingContext, SamplingJob};
pub use skeleton::Skeleton;
pub use skinning::Skin;
pub use vertex_skinning::{Influences, VertexSkinningJob};
