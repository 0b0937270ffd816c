//! Motion-matching workloads for the benches: feature databases built from the shared Bandai walk and run (root
//! motion extracted), tiled with perturbation to any size, and queries a steering character would make.
//!
//! **Schemas.** Holden's 27 dimensions (`features::Schema::default_for`), and 59 in O3DE's default proportions:
//! the same feet and hips (15) and eleven trajectory samples (four behind over 0.7 s, the present, six ahead over
//! 1.2 s), each a ground position and a facing (44).
//!
//! **Tiling.** A database of `frames` frames repeats the clips' rows; every copy after the first adds to each
//! value a uniform perturbation of up to a tenth of its dimension's standard deviation, so copies are near but
//! not equal (a library of many takes of similar motion), and the boxes see realistic overlap.
//!
//! **Queries.** A character playing frame `f` asks for its own pose part and its trajectory turned by a steering
//! angle that sweeps ±60° over time: the pose is real, the trajectory a plausible request that no frame matches
//! exactly, so pruning works as hard as in a game.

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
        Ok(Some(Source { rows, entries, groups: schema.groups() }))
    }

    /// Feature dimensions.
    pub fn dims(&self) -> usize {
        self.groups.iter().map(|g| g.dims).sum()
    }

    /// `frames` rows: the source repeated, each copy after the first perturbed (module docs), and their entries.
    pub fn tiled(&self, frames: usize, seed: u64) -> (Vec<f32>, Vec<FrameEntry>) {
        let dims = self.dims();
        let deviation = deviations(&self.rows, dims);
        let mut state = seed | 1;
        let mut uniform = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        let source_frames = self.entries.len();
        let mut rows = Vec::with_capacity(frames * dims);
        let mut entries = Vec::with_capacity(frames);
        for frame in 0..frames {
            let (copy, f) = (frame / source_frames, frame % source_frames);
            let row = &self.rows[f * dims..][..dims];
            for (x, sd) in row.iter().zip(&deviation) {
                rows.push(if copy == 0 { *x } else { x + 0.1 * sd * uniform() });
            }
            entries.push(self.entries[f]);
        }
        (rows, entries)
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

/// `count` queries (module docs): the pose part of frames spread over the database, the trajectory part turned
/// by a steering angle sweeping ±60°.
pub fn steered_queries(rows: &[f32], groups: &[GroupSpec], count: usize) -> Vec<Vec<f32>> {
    let dims: usize = groups.iter().map(|g| g.dims).sum();
    let frames = rows.len() / dims;
    (0..count)
        .map(|k| {
            let frame = (k * 7919) % frames;
            let mut query = rows[frame * dims..][..dims].to_vec();
            let angle = (k as f32 * 0.37).sin() * 60f32.to_radians();
            let (sin, cos) = angle.sin_cos();
            let mut start = 0;
            for group in groups {
                if group.name.starts_with("trajectory") {
                    for pair in query[start..start + group.dims].chunks_exact_mut(2) {
                        let (x, z) = (pair[0], pair[1]);
                        pair[0] = cos * x + sin * z;
                        pair[1] = -sin * x + cos * z;
                    }
                }
                start += group.dims;
            }
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
