//! The bench side of sinew (std): the profiler behind `sinew-bench` (the crowd, the machine's peak rates, the
//! report), the naive AoS baselines the benches compare against, and the analyses of transitions and locomotion
//! on real files. It builds on the offline tools (`sinew-tools`) for importing and baking. Nothing here is needed
//! to ship the runtime.

pub mod bench_support;
pub mod codec;
pub mod crowd;
pub mod locomotion;
pub mod machine;
pub mod matched_crowd;
pub mod matching;
pub mod naive;
pub mod plot;
pub mod profile;
pub mod transition;
pub mod workload;
