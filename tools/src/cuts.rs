//! What a transition study plays: clips of one skeleton baked into one blob, and cuts between them, chosen from
//! a seed so that a table can be measured again (the profiler's `quality`, `transition` and locomotion studies,
//! and the inertialization tests on real cuts).

use crate::bake::{self, KeyFormat};
use crate::raw::AlignedBlob;
use sinew::Asset;

/// Clips of one skeleton, baked (f32 keys) into one blob.
pub struct Clips {
    blob: AlignedBlob,
    pub names: Vec<String>,
    /// Seconds per frame of the first clip: the step every simulation uses.
    pub dt: f32,
}

impl Clips {
    pub fn from_bvh(paths: &[std::path::PathBuf]) -> Result<Clips, String> {
        let (skeleton, clips) = crate::bvh::load_raw_files(paths)?;
        let dt = 1.0 / clips.first().ok_or("no clips")?.sample_rate;
        let names = clips.iter().map(|c| c.name.clone()).collect();
        Ok(Clips { blob: bake::bake(&skeleton, &clips, KeyFormat::F32)?, names, dt })
    }

    /// The clips of a baked blob, as they are stored.
    pub fn from_blob(path: &std::path::Path) -> Result<Clips, String> {
        let blob = crate::blob::read(path)?;
        let asset = crate::blob::asset(&blob)?;
        let first = asset.clip(0).ok_or_else(|| format!("{}: the blob has no clips", path.display()))?;
        let names = (0..asset.num_clips()).map(|c| asset.clip_name(c).unwrap_or("").to_string()).collect();
        let dt = 1.0 / first.sample_rate();
        Ok(Clips { blob, names, dt })
    }

    pub fn asset(&self) -> Result<Asset<'_>, String> {
        Asset::load(self.blob.bytes()).map_err(|e| e.to_string())
    }
}

/// One cut: from clip `a` at `ta` seconds to clip `b` at `tb`.
#[derive(Clone, Copy, Debug)]
pub struct Cut {
    pub a: usize,
    pub ta: f32,
    pub b: usize,
    pub tb: f32,
}

/// Frames before the switch that every metric needs (velocity: 2, jerk: 3).
pub const FRAMES_BEFORE: usize = 4;

/// The seeded generator of the quality tables' cuts (xorshift64).
pub struct Xorshift(u64);

impl Xorshift {
    pub fn new(seed: u64) -> Xorshift {
        Xorshift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[0, 1)`, as `f32`.
    pub fn unit(&mut self) -> f32 {
        self.next_f64() as f32
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_f64() * n as f64) as usize).min(n - 1)
    }
}

/// Seeded cuts between (and within) clips, each with room for the transition on both sides.
pub fn seeded_cuts(asset: &Asset, dt: f32, duration: f32, count: usize, seed: u64) -> Vec<Cut> {
    let mut rng = Xorshift::new(seed);
    let mut next = move || rng.next_f64();
    let margin = (FRAMES_BEFORE + 2) as f32 * dt;
    let durations: Vec<f32> = (0..asset.num_clips()).map(|c| asset.clip(c).map_or(0.0, |c| c.duration())).collect();
    let usable: Vec<usize> = (0..durations.len()).filter(|&c| durations[c] > 2.0 * margin + duration).collect();
    if usable.is_empty() {
        return vec![];
    }
    (0..count)
        .map(|_| {
            let a = usable[(next() * usable.len() as f64) as usize % usable.len()];
            let b = usable[(next() * usable.len() as f64) as usize % usable.len()];
            let span = |c: usize| durations[c] - 2.0 * margin - duration;
            Cut { a, ta: margin + next() as f32 * span(a), b, tb: margin + next() as f32 * span(b) }
        })
        .collect()
}
