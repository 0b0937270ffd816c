//! Host side of sinew (std): the procedural rig, the naive AoS baseline, and the profiler behind
//! `sinew-bench`. Nothing here is needed to ship the runtime.

/// The shared data directory (`$SINEW_DATA`, else `../shared/data` next to the workspace), when it exists.
pub fn shared_data_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("SINEW_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"));
    dir.is_dir().then_some(dir)
}

pub mod annotate;
pub mod bake;
pub mod bench_support;
pub mod blob;
pub mod bounds;
pub mod bvh;
pub mod clip_error;
pub mod compress;
pub mod crowd;
pub mod fuzz;
pub mod gltf_import;
pub mod locomotion;
pub mod machine;
pub mod naive;
pub mod offline;
pub mod phase;
pub mod plot;
pub mod pose;
pub mod profile;
pub mod rig;
pub mod root_motion;
pub mod sample;
pub mod transition;
pub mod workload;
