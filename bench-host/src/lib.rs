//! Host side of sinew (std): the procedural rig, the naive AoS baseline, and the profiler behind
//! `sinew-bench`. Nothing here is needed to ship the runtime.

pub mod bake;
pub mod bench_support;
pub mod bvh;
pub mod gltf_import;
pub mod naive;
pub mod pose;
pub mod profile;
pub mod rig;
