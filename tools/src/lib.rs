//! The offline side of sinew (std): importers, annotation, root-motion extraction, compression, the baker and
//! blob inspection, behind the `sinew-bake` binary. Nothing here ships with the runtime.
//!
//! Modules, bottom to top (each imports only those before it):
//! - `motion_database` (feature rows normalized and laid out for the motion search), `raw` (what importers
//!   produce and the baker consumes), `dmath` (f64 helpers), `stats`, `glam_pose`, `sample` (the runtime's
//!   sampling on the host);
//! - importers: `bvh`, `gltf_import`; the procedural `rig`;
//! - `annotate` (markers, ranges, foot plants), `clip_error` (the error a viewer sees), `rate` (the lowest key
//!   rate within a bound), `knots` (non-uniform knots within a bound, golden poses), `loops` (a looping clip's seam and its fix), `compress`, `chunks` (clips split by
//!   bone masks), `features` (a motion database's features measured on clips), `bake`;
//! - readers of blobs and what runs on them: `blob`, `pose`, `root_motion`, `phase`, `bounds`;
//! - `offline` (the commands of `sinew-bake`) and `fuzz` (what every fuzz target checks).

/// The shared data directory (`$SINEW_DATA`, else `../shared/data` next to the workspace), when it exists.
pub fn shared_data_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("SINEW_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"));
    dir.is_dir().then_some(dir)
}

/// [`shared_data_dir`] for the data-driven test `test`: `None` with a message saying it is skipped.
///
/// # Panics
/// When the data is missing and `SINEW_REQUIRE_DATA` is set (as `.ci/run` does): in CI a skipped data test
/// would pass silently.
pub fn shared_data_for_test(test: &str) -> Option<std::path::PathBuf> {
    let dir = shared_data_dir();
    if dir.is_none() {
        assert!(
            std::env::var_os("SINEW_REQUIRE_DATA").is_none(),
            "{test}: shared data not found (../shared/data or $SINEW_DATA) and SINEW_REQUIRE_DATA is set"
        );
        eprintln!("{test}: SKIPPED — shared data not found (../shared/data or $SINEW_DATA)");
    }
    dir
}

pub mod annotate;
pub mod bake;
pub mod blob;
pub mod bounds;
pub mod bvh;
pub mod chunks;
pub mod clip_error;
pub mod compress;
pub mod cuts;
pub mod dmath;
pub mod features;
pub mod fuzz;
pub mod glam_pose;
pub mod gltf_import;
pub mod knots;
pub mod loops;
pub mod mirror;
pub mod motion_database;
pub mod offline;
pub mod phase;
pub mod pose;
pub mod rate;
pub mod raw;
pub mod rig;
pub mod root_motion;
pub mod sample;
pub mod stats;
