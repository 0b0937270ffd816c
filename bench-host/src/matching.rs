//! Motion-matching workloads for the benches: feature databases built from the shared Bandai walk and run (root
//! motion extracted), tiled with perturbation to any size, and queries a steering character would make.
//!
//! **Schemas.** Holden's 27 dimensions (`features::Schema::default_for`), and 59 in O3DE's default proportions:
//! the same feet and hips (15) and eleven trajectory samples (four behind over 0.7 s, the present, six ahead over
//! 1.2 s), each a ground position and a facing (44).
//!
//! **Tiling.** A database of `frames` frames repeats the clips' rows as a library of variants would hold them:
//! every copy after the first plays at its own speed (0.8–1.25×: velocities and trajectory positions scaled) on
//! its own curve (a turn rate of ±90°/s: each trajectory sample turned by the rate times its time), plus a
//! uniform perturbation of up to a twentieth of each dimension's standard deviation. Copies of one take are then
//! as different as takes of a walk at other speeds and curvatures are, not 380 near-duplicates (which no box
//! could tell apart, and no real library is).
//!
//! **Queries.** A character playing frame `f` asks for its own pose part and its trajectory bent by a turn rate
//! sweeping ±120°/s and a speed sweeping 0.8–1.2×, as a stick steering a walk would: the pose is real, the
//! trajectory a request that no frame matches exactly.

use sinew::motion_database::FrameEntry;
use sinew_tools::features::{Feature, Schema};
use sinew_tools::motion_database::{GroupSpec, OwnedDatabase};
use sinew_tools::raw::RawAnnotations;

/// The two schema shapes the benches measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Holden's 27 dimensions.
    Holden27,
    /// O3DE's default proportions, 59 dimensions.
    O3de59,
}

/// Raw rows, entries and groups of one pass over the shared Bandai walk and run, or `None` without the data.
pub struct Source {
    pub rows: Vec<f32>,
    pub entries: Vec<FrameEntry>,
    pub groups: Vec<GroupSpec>,
    pub schema: Schema,
}

impl Source {
    /// The Bandai walk and run by `shape`'s schema, or `None` (with a message) without the shared data.
    pub fn bandai(shape: Shape) -> Result<Option<Source>, String> {
        let Some(dir) = sinew_tools::shared_data_dir() else {
            eprintln!("motion matching: SKIPPED — shared data not found (../shared/data or $SINEW_DATA)");
            return Ok(None);
        };
        let bandai = dir.join("bvh/bandai");
        let files = [bandai.join("dataset-1_walk_normal_001.bvh"), bandai.join("dataset-2_run_normal_001.bvh")];
        let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&files)?;
        let options = sinew_tools::root_motion::Extraction::default();
        let (skeleton, clips) = sinew_tools::root_motion::extract(&skeleton, &clips, &options)?;
        let mut schema = Schema::default_for(&skeleton)?;
        if shape == Shape::O3de59 {
            let seconds = vec![-0.7, -0.525, -0.35, -0.175, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2];
            schema.features.truncate(5);
            schema.features.push(Feature::TrajectoryPosition { seconds: seconds.clone(), weight: 1.0 });
            schema.features.push(Feature::TrajectoryFacing { seconds, weight: 1.5 });
        }
        let annotations = vec![RawAnnotations::default(); clips.len()];
        let (rows, entries) = sinew_tools::features::rows(&skeleton, &clips, &annotations, &schema)?;
        Ok(Some(Source { rows, entries, groups: schema.groups(), schema }))
    }

    /// Feature dimensions.
    pub fn dims(&self) -> usize {
        self.groups.iter().map(|g| g.dims).sum()
    }

    /// `frames` rows: the source repeated, each copy after the first perturbed (module docs), and their entries.
    pub fn tiled(&self, frames: usize, seed: u64) -> (Vec<f32>, Vec<FrameEntry>) {
        let dims = self.dims();
        let deviation = deviations(&self.rows, dims);
        let mut uniform = uniform_from(seed);
        let source_frames = self.entries.len();
        let mut rows = Vec::with_capacity(frames * dims);
        let mut entries = Vec::with_capacity(frames);
        let (mut speed, mut turn) = (1.0, 0.0);
        for frame in 0..frames {
            let (copy, f) = (frame / source_frames, frame % source_frames);
            if f == 0 && copy > 0 {
                speed = 1.025 + 0.225 * uniform();
                turn = 90f32.to_radians() * uniform();
            }
            let start = rows.len();
            rows.extend_from_slice(&self.rows[f * dims..][..dims]);
            if copy > 0 {
                let row = &mut rows[start..];
                bend(&self.schema, row, speed, turn);
                for (x, sd) in row.iter_mut().zip(&deviation) {
                    *x += 0.05 * sd * uniform();
                }
            }
            entries.push(self.entries[f]);
        }
        (rows, entries)
    }
}

/// A uniform value in [-1, 1) from a fixed xorshift sequence.
fn uniform_from(seed: u64) -> impl FnMut() -> f32 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
}

/// One row as if played `speed` times as fast on a path turning at `turn` radians a second: velocities and
/// trajectory positions scaled, each trajectory sample turned by `turn` times its time.
fn bend(schema: &Schema, row: &mut [f32], speed: f32, turn: f32) {
    let mut at = 0;
    for feature in &schema.features {
        match feature {
            Feature::Position { .. } => at += 3,
            Feature::Velocity { .. } => {
                row[at..at + 3].iter_mut().for_each(|v| *v *= speed);
                at += 3;
            }
            Feature::TrajectoryPosition { seconds, .. } | Feature::TrajectoryFacing { seconds, .. } => {
                let scale = if matches!(feature, Feature::TrajectoryPosition { .. }) { speed } else { 1.0 };
                for (pair, s) in row[at..at + 2 * seconds.len()].chunks_exact_mut(2).zip(seconds) {
                    let (sin, cos) = (turn * *s as f32).sin_cos();
                    let (x, z) = (pair[0], pair[1]);
                    pair[0] = scale * (cos * x + sin * z);
                    pair[1] = scale * (-sin * x + cos * z);
                }
                at += 2 * seconds.len();
            }
        }
    }
}

/// Per dimension, the standard deviation of `rows`.
fn deviations(rows: &[f32], dims: usize) -> Vec<f32> {
    let frames = (rows.len() / dims) as f64;
    (0..dims)
        .map(|d| {
            let column = rows.iter().skip(d).step_by(dims).map(|&x| f64::from(x));
            let mean = column.clone().sum::<f64>() / frames;
            (column.map(|x| (x - mean).powi(2)).sum::<f64>() / frames).sqrt() as f32
        })
        .collect()
}

/// `count` queries (module docs): the pose part of frames spread over `rows`, the trajectory bent by a turn rate
/// sweeping ±120°/s and a speed sweeping 0.8–1.2×.
pub fn steered_queries(rows: &[f32], schema: &Schema, count: usize) -> Vec<Vec<f32>> {
    let dims: usize = schema.groups().iter().map(|g| g.dims).sum();
    let frames = rows.len() / dims;
    (0..count)
        .map(|k| {
            let frame = (k * 7919) % frames;
            let mut query = rows[frame * dims..][..dims].to_vec();
            let turn = (k as f32 * 0.37).sin() * 120f32.to_radians();
            let speed = 1.0 + 0.2 * (k as f32 * 0.23).sin();
            bend(schema, &mut query, speed, turn);
            query
        })
        .collect()
}

/// The database's normalized features row-major, and each frame's openness: the naive search's input.
pub fn row_major(db: &OwnedDatabase) -> Result<(Vec<f32>, Vec<bool>), String> {
    let view = db.view().map_err(|e| e.to_string())?;
    let mut rows = Vec::with_capacity(db.frames * db.dims);
    for frame in 0..db.frames {
        rows.extend((0..db.dims).map(|d| view.feature(frame, d).unwrap_or(f32::INFINITY)));
    }
    let open = db.entries.iter().map(|e| e.flags & sinew::motion_database::FRAME_EXCLUDED == 0).collect();
    Ok((rows, open))
}

/// `query` normalized as the search normalizes it.
pub fn normalized(db: &OwnedDatabase, query: &[f32]) -> Vec<f32> {
    query.iter().zip(db.mean.iter().zip(&db.scale)).map(|(x, (m, s))| (x - m) * s).collect()
}
