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
//! Stages present today: [`sampling`] of baked [`clip`]s (loaded zero-copy from an [`asset`] blob, with their
//! annotations and the skin), [`blending`], [`inertialization`], [`local_to_model`], [`skinning`] matrices and
//! CPU [`vertex_skinning`], over the [`math`] types, a validated [`skeleton`], and caller-owned memory from an
//! [`arena`]. Above the kernels, the [`character`] runtime drives them: [`control`]s play clips on layers, and
//! one call per frame produces the pose, model matrices and palette. Around them: [`root_motion`] and
//! [`motion_correction`] move the character, [`ik`], [`foot_planting`] and [`attachment`] edit the shown pose,
//! and [`phase`] picks where a locomotion transition enters its target. [`bounds`] carries each joint's box to
//! model space for culling and hit tests.
//!
//! Ground rules (see `docs/conventions.md`):
//! - No allocation: every buffer is the caller's; stateful parts say their `required_bytes` up front.
//! - Local poses are SoA ([`math::SoaTransform`], four joints per lane group, identity in padding lanes);
//!   model space is AoS ([`math::Mat4`], column-major).
//! - Bad input is an [`Error`], never a panic.
//! - The `scalar` feature swaps the SIMD lanes for plain arrays; results match within documented tolerances.
//!
//! One character through an inertialized transition, all memory from the caller (the blob is
//! `docs/example.snw`, baked by `cargo run -p sinew-bench-host --example example_blob`):
//!
//! ```
//! use sinew::inertialization::{Settings, Transition};
//! use sinew::character::Chunk;
//! use sinew::{Asset, Blend, Character, CharacterDesc, Interpolation, LayerDesc, LayerKind, Play, SlotId, Rig, Sampling, Scratch};
//!
//! // The blob must sit at a 16-byte aligned address.
//! #[repr(C, align(16))]
//! struct Aligned<T: ?Sized>(T);
//! static BLOB: &Aligned<[u8]> = &Aligned(*include_bytes!("../../docs/example.snw"));
//! let asset = Asset::load(&BLOB.0)?;
//! let skin = asset.skin();
//! // What every character of this asset shares: the asset, its skin, the local-to-model walk.
//! let rig = Rig::new(&asset, skin)?;
//!
//! // A base layer that can crossfade two clips, and an inertializer for cuts.
//! let layers = [LayerDesc { kind: LayerKind::Base, controls: 2 }];
//! let desc = CharacterDesc {
//!     num_joints: asset.skeleton().num_joints(),
//!     num_skin_joints: skin.map_or(0, |s| s.num_joints()),
//!     layers: &layers,
//!     num_masks: 0,
//!     num_curves: 0,
//!     inertialization: Some(Settings::default()),
//!     scratch: Scratch::InBlock,
//!     sampling: Sampling::Shared,
//!     interpolation: Interpolation::Linear,
//! };
//! // The character's whole state: one block of 64-byte chunks (here on the stack; a pool slot, an ECS
//! // column or a `Vec` do as well, and the block may be moved or copied between frames).
//! let mut block = [Chunk::ZERO; 512];
//! assert!(Character::required_bytes(&desc)? <= 512 * 64);
//! let mut character = Character::new(Chunk::bytes_mut(&mut block), &desc)?;
//!
//! let (swing, back) = (asset.find_clip("swing").unwrap(), asset.find_clip("back").unwrap());
//! character.play(&asset, SlotId::base(0), Play::looping(swing))?;
//! for frame in 0..60 {
//!     if frame == 30 {
//!         // Cut to the other clip; the inertializer hides the pop over 0.2 s.
//!         let cut = Blend::Inertialize(Transition { duration: 0.2, profile: None });
//!         character.transition(&asset, 1, Play::looping(back), cut)?;
//!     }
//!     character.update(1.0 / 60.0, &rig)?;
//!     // The footstep marker, whenever the clip playing passes it.
//!     let slot = if frame < 30 { 0 } else { 1 };
//!     let clip = if frame < 30 { swing } else { back };
//!     let step = character.last_step(SlotId::base(slot))?.expect("a control plays");
//!     for marker in step.crossings(asset.markers(clip)) {
//!         let _footstep = asset.name(asset.markers(clip)[marker].name);
//!     }
//! }
//! // The palette is ready for the GPU: one 3×4 matrix per skin joint.
//! assert_eq!(character.palette().len(), skin.unwrap().num_joints());
//! assert!(character.model().iter().all(|m| m.is_finite()));
//! # Ok::<(), sinew::Error>(())
//! ```

#![no_std]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![warn(missing_debug_implementations)]

// The crate's rooms, bottom to top (ARCHITECTURE.md draws them and states the rules a test checks): `math`
// (with the backend switch, whose kernel-selection macros the stages use, so it comes first), `error`, `limits`
// and `arena`; the data the stages read; the stages; motion (clocks, root motion, phase); the character.
#[macro_use]
pub mod math;
pub mod arena;
pub mod error;
pub mod limits;

mod data;
mod motion;
mod stages;

pub mod character;

/// The README's Rust examples compile as doctests (the README sits beside the crate in this workspace).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;

/// So do the guide's.
#[cfg(doctest)]
#[doc = include_str!("../../docs/guide/blending-and-layers.md")]
struct GuideExamples;

/// And the locomotion guide's.
#[cfg(doctest)]
#[doc = include_str!("../../docs/guide/locomotion-and-phase.md")]
struct LocomotionExamples;

// Each module keeps the public path it has always had: engines and the C ABI name `sinew::sampling`, not the
// room it lives in.
pub use data::{asset, clip, curve, motion_database, skeleton, skin};
pub use math::backend;
pub use motion::{control, motion_correction, motion_matching, phase, root_motion, speed_ranges, trajectory};
pub use stages::{
    aim_blend, attachment, blend_graph, blending, bounds, foot_planting, ik, inertialization, local_to_model, sampling,
    skinning, vertex_skinning,
};

pub use arena::{Arena, Checkpoint};
pub use asset::Asset;
pub use blending::{BlendLayer, BlendingJob};
pub use bounds::{BoundsJob, JointBounds};
pub use character::{
    Blend, Character, CharacterDesc, Chunk, LayerDesc, LayerKind, Play, PoseEdit, Rig, Sampling, Scratch, SlotId,
};
pub use clip::Clip;
pub use control::{Control, Fade, Step, Wrap};
pub use error::{BlobProblem, Buffer, DatabasePart, DatabaseProblem, Error, GraphProblem, Section};
pub use inertialization::{InertializationJob, Inertializer, Target, Transition};
pub use local_to_model::{GroupWalk, LocalToModelJob};
pub use sampling::{Interpolation, Playback, SamplingContext, SamplingJob};
pub use skeleton::Skeleton;
pub use skinning::{Palette, Skin, SkinningJob};
pub use vertex_skinning::{Influences, VertexSkinningJob};
