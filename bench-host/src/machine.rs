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
/// - inertialization_continuous: as inertialization, each curve the velocity-continuous shape's degree-6
///   polynomial (~14 flops): ~190 flops.
pub const STAGE_MODELS: [StageModel; 7] = [
    StageModel { stage: "sampling", bytes: 120.0, flops: 40.0 },
    StageModel { stage: "local_to_model", bytes: 106.0, flops: 130.0 },
    StageModel { stage: "skinning_matrices_3x4", bytes: 162.0, flops: 96.0 },
    StageModel { stage: "source_sampling", bytes: 120.0, flops: 40.0 },
    StageModel { stage: "blend_2_layers", bytes: 120.0, flops: 72.0 },
    StageModel { stage: "inertialization", bytes: 224.0, flops: 170.0 },
    StageModel { stage: "inertialization_continuous", bytes: 224.0, flops: 190.0 },
];

impl Peaks {
    /// Measures the rates (a few ms; cheap enough to run under callgrind too) and reads the cache sizes from sysfs (48 KiB / 32 MiB when absent).
    pub fn measure() -> Peaks {
        let cache = |index: u32, fallback: usize| cache_size(index).unwrap_or(fallback);
        let (l1_bytes, llc_bytes) = (cache(0, 48 << 10), cache(3, 32 << 20));
        let l2_bytes_per_ns = best_of(5, || copy_rate(256 << 10));
        Peaks {
            flops_per_ns: best_of(5, fma_rate),
            // A buffer pair in L1 copies at least as fast as one in L2; a lower reading was disturbed.
            l1_bytes_per_ns: best_of(5, || copy_rate(l1_bytes / 4)).max(l2_bytes_per_ns),
            l2_bytes_per_ns,
            l1_bytes,
            llc_bytes,
        }
    }

    /// `Err` naming the first rate outside what a current core plausibly reaches: 1–2000 flops/ns and
    /// 1–4000 B/ns copied (generous margins around one scalar unit at 0.5 GHz and several 512-bit units at
    /// 5 GHz), or an L1 rate below the L2 one.
    pub fn check_plausible(&self) -> Result<(), String> {
        let checks = [
            ("flops/ns", self.flops_per_ns, 1.0, 2000.0),
            ("L1 copy B/ns", self.l1_bytes_per_ns, 1.0, 4000.0),
            ("L2 copy B/ns", self.l2_bytes_per_ns, 1.0, 4000.0),
        ];
        for (what, value, lo, hi) in checks {
            if !(lo..=hi).contains(&value) {
                return Err(format!("{what} measured {value:.1}, outside {lo}..={hi}"));
            }
        }
        if self.l1_bytes_per_ns < self.l2_bytes_per_ns {
            return Err("L1 copies measured slower than L2 copies".into());
        }
        Ok(())
    }

    /// The stage's lower bound in ns per joint for a rig of `joints`, when the model has the stage, and what
    /// sets it: `"compute"` (the multiply-adds), or the cache level whose copy rate the working set takes, `"L1"`
    /// or `"L2"` (the bytes one character's stage touches pick it). The same kernel reads a larger multiple of an
    /// L1 bound than of an L2 one, so a ratio means little without it.
    pub fn lower_bound(&self, stage: &str, joints: usize) -> Option<(f64, &'static str)> {
        let model = STAGE_MODELS.iter().find(|m| m.stage == stage)?;
        let working_set = model.bytes * joints as f64;
        let in_l1 = working_set <= (self.l1_bytes / 2) as f64;
        let (bandwidth, level) = if in_l1 { (self.l1_bytes_per_ns, "L1") } else { (self.l2_bytes_per_ns, "L2") };
        let (compute, memory) = (model.flops / self.flops_per_ns, model.bytes / bandwidth);
        Some(if compute > memory { (compute, "compute") } else { (memory, level) })
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

/// Copies `bytes` between two buffers repeatedly with the build's widest lanes; bytes read plus written per
/// ns, the fastest of the passes.
///
/// Not `memcpy`: timed with `copy_from_slice`, L1-sized copies read 3 B/ns in six of seven start-ups on an
/// idle core (below the L2 figure), so stages appeared 3–10× faster than their bound. Each lane group is
/// added to an opaque zero on the way (`x + 0.0` is not `x` for `−0.0`, so the compiler can neither drop the
/// add nor turn the loop into a `memcpy` call); the loads and stores are the build's own, as in the kernels.
fn copy_rate(bytes: usize) -> f64 {
    let lanes = (bytes / std::mem::size_of::<F8>()).max(1);
    let source = vec![F8::splat(1.0); lanes];
    let mut destination = vec![F8::splat(0.0); lanes];
    let rounds = ((1usize << 20) / bytes).max(1);
    let zero = black_box(F8::splat(0.0));
    let mut best = f64::MAX;
    for _ in 0..8 {
        let start = Instant::now();
        for _ in 0..rounds {
            for (d, s) in destination.iter_mut().zip(black_box(&source)) {
                *d = *s + zero;
            }
            black_box(&mut destination);
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    (2 * lanes * std::mem::size_of::<F8>() * rounds) as f64 / (best * 1e9)
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
