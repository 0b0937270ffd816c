//! What this machine can do at most, measured at start-up with the build's own lanes, and a cost model per
//! stage, so the profiler prints each stage's physical lower bound next to its measurement.
//!
//! Model: a stage's bound is the larger of its arithmetic time (`flops / peak multiply-add throughput`) and its
//! memory time (`bytes read + written / copy bandwidth` of the cache level a character's working set of the stage
//! fits in: L1 when it fits in half of it, else L2). The per-joint `bytes` and `flops` are estimates of the
//! minimal work (what any implementation must read, write and compute), listed in [`STAGE_MODELS`]; they do not
//! count index arithmetic, shuffles or loop overhead. Units: flops and bytes per ns.

use sinew::math::F8;
use std::hint::black_box;
use std::time::Instant;

/// Peak rates, per core.
#[derive(Clone, Copy, Debug)]
pub struct Peaks {
    /// Single-precision multiply-add throughput (2 flops per lane), `F8` lanes as this build compiles them.
    pub flops_per_ns: f64,
    /// `memcpy` bandwidth, bytes read plus bytes written, with both buffers in L1.
    pub l1_bytes_per_ns: f64,
    /// The same with both buffers in L2.
    pub l2_bytes_per_ns: f64,
    /// Data cache sizes (bytes): L1, last level.
    pub l1_bytes: usize,
    pub llc_bytes: usize,
}

/// Minimal work per joint of one stage (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct StageModel {
    pub stage: &'static str,
    /// Bytes read plus written per joint.
    pub bytes: f64,
    /// Floating-point operations per joint (a multiply-add counts 2).
    pub flops: f64,
}

/// The per-joint model of each profiled stage.
///
/// - sampling: two cached keyframes (2 × 40 B) in, a SoA pose out (40 B); lerp of 6 components, nlerp of 4
///   (dot, sign, normalize): ~40 flops.
/// - local_to_model: local transform (40 B) and parent index in, a `Mat4` out (64 B); quaternion to matrix
///   with scale (~33) and the parent product (48 multiply-adds): ~130 flops.
/// - skinning_matrices_3x4: model `Mat4` (64 B), inverse bind 3×4 (48 B) and remap (2 B) in, 48 B out; 12
///   entries × 4 terms: ~96 flops.
/// - blend_2_layers: two poses in (80 B), one out (40 B); 20 multiply-adds, the sign dot, the normalization and
///   the means: ~72 flops.
/// - inertialization: nine quintic curves (144 B) and the target (40 B) in, the pose out (40 B); 9 curve
///   evaluations (~12 flops each), the rotation-vector exponential (~25), a quaternion product (28) and 6 adds:
///   ~170 flops.
pub const STAGE_MODELS: [StageModel; 6] = [
    StageModel { stage: "sampling", bytes: 120.0, flops: 40.0 },
    StageModel { stage: "local_to_model", bytes: 106.0, flops: 130.0 },
    StageModel { stage: "skinning_matrices_3x4", bytes: 162.0, flops: 96.0 },
    StageModel { stage: "source_sampling", bytes: 120.0, flops: 40.0 },
    StageModel { stage: "blend_2_layers", bytes: 120.0, flops: 72.0 },
    StageModel { stage: "inertialization", bytes: 224.0, flops: 170.0 },
];

impl Peaks {
    /// Measures the rates (a few ms; cheap enough to run under callgrind too) and reads the cache sizes from sysfs (48 KiB / 32 MiB when absent).
    pub fn measure() -> Peaks {
        let cache = |index: u32, fallback: usize| cache_size(index).unwrap_or(fallback);
        let (l1_bytes, llc_bytes) = (cache(0, 48 << 10), cache(3, 32 << 20));
        Peaks {
            flops_per_ns: best_of(3, fma_rate),
            l1_bytes_per_ns: best_of(3, || copy_rate(l1_bytes / 4)),
            l2_bytes_per_ns: best_of(3, || copy_rate(256 << 10)),
            l1_bytes,
            llc_bytes,
        }
    }

    /// The stage's lower bound in ns per joint for a rig of `joints`, when the model has the stage. The bytes
    /// one character's stage touches pick the cache level.
    pub fn lower_bound_ns_per_joint(&self, stage: &str, joints: usize) -> Option<f64> {
        let model = STAGE_MODELS.iter().find(|m| m.stage == stage)?;
        let working_set = model.bytes * joints as f64;
        let in_l1 = working_set <= (self.l1_bytes / 2) as f64;
        let bandwidth = if in_l1 { self.l1_bytes_per_ns } else { self.l2_bytes_per_ns };
        Some((model.flops / self.flops_per_ns).max(model.bytes / bandwidth))
    }
}

fn best_of(runs: usize, rate: impl Fn() -> f64) -> f64 {
    (0..runs).map(|_| rate()).fold(0.0, f64::max)
}

/// Independent multiply-add chains, enough to cover latency × pipes on current cores (4 × 2 = 8).
fn fma_rate() -> f64 {
    const CHAINS: usize = 12;
    const ITERATIONS: usize = 50_000;
    let a = black_box(F8::splat(0.999_999));
    let b = black_box(F8::splat(1e-7));
    let mut acc = [F8::splat(1.0); CHAINS];
    let start = Instant::now();
    for _ in 0..ITERATIONS {
        for x in &mut acc {
            *x = x.mul_add(a, b);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    black_box(acc);
    (CHAINS * ITERATIONS * 8 * 2) as f64 / (seconds * 1e9)
}

/// Copies `bytes` between two buffers repeatedly; bytes read plus written per ns.
fn copy_rate(bytes: usize) -> f64 {
    let passes = (8 << 20) / bytes;
    let source = vec![1u8; bytes];
    let mut destination = vec![0u8; bytes];
    destination.copy_from_slice(&source);
    let start = Instant::now();
    for _ in 0..passes {
        destination.copy_from_slice(black_box(&source));
        black_box(&mut destination);
    }
    (2 * bytes * passes) as f64 / (start.elapsed().as_secs_f64() * 1e9)
}

fn cache_size(index: u32) -> Option<usize> {
    let text = std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu0/cache/index{index}/size")).ok()?;
    let text = text.trim();
    let (digits, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len()));
    let value: usize = digits.parse().ok()?;
    Some(match unit {
        "K" => value << 10,
        "M" => value << 20,
        _ => value,
    })
}

/// A buffer larger than the last-level cache; [`CacheFlush::flush`] writes all of it, so whatever a stage
/// reads next comes from DRAM.
pub struct CacheFlush {
    buffer: Vec<u8>,
    pass: u8,
}

impl CacheFlush {
    pub fn new(peaks: &Peaks) -> CacheFlush {
        CacheFlush { buffer: vec![0; 2 * peaks.llc_bytes], pass: 0 }
    }

    pub fn flush(&mut self) {
        self.pass = self.pass.wrapping_add(1);
        self.buffer.fill(self.pass);
        black_box(&mut self.buffer);
    }
}
