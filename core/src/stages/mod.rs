//! The per-frame stages, one job each (validate, then run) over caller memory. Stages read data and math; they
//! never import motion or the character.

pub mod aim_blend;
pub mod attachment;
pub mod blend_graph;
pub mod blending;
pub mod bounds;
pub mod foot_planting;
pub mod ik;
pub mod inertialization;
pub mod local_to_model;
pub mod sampling;
pub mod skinning;
pub mod vertex_skinning;
