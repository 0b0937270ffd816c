//! Building a motion database from raw feature rows: Holden's normalization (per dimension the mean; per group
//! the mean of its dimensions' standard deviations over the group's weight), the blocked layout with `+∞`
//! padding, both box levels and the block summaries, as `sinew::motion_database` documents them.

use sinew::error::Error;
use sinew::math::lane::F4;
use sinew::motion_database::{
    self, BLOCK_FRAMES, BlockInfo, DatabaseLayout, FeatureGroup, FrameEntry, MotionDatabase, MotionDatabaseParts,
};

/// One feature group of a schema: its dimension count and weight.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSpec {
    /// A name for reports (`left_foot_position`, `trajectory_facing`, …).
    pub name: String,
    /// Dimensions, consecutive after the previous group's.
    pub dims: usize,
    /// How much the group counts (Holden: foot positions 0.75, trajectory facings 1.5, the rest 1).
    pub weight: f64,
}

/// A database in owned buffers, ready to view or to write into a blob.
#[derive(Clone, Debug)]
pub struct OwnedDatabase {
    /// Feature dimensions.
    pub dims: usize,
    /// Frames.
    pub frames: usize,
    /// The groups in order.
    pub groups: Vec<FeatureGroup>,
    /// Their names, one per group.
    pub group_names: Vec<String>,
    /// Per dimension, the mean.
    pub mean: Vec<f32>,
    /// Per dimension, the weight over the group's deviation.
    pub scale: Vec<f32>,
    /// Per dimension, the mean square of the normalized features.
    pub spread: Vec<f32>,
    /// The normalized features, blocked.
    pub features: Vec<F4>,
    /// The blocks' boxes.
    pub block_boxes: Vec<F4>,
    /// The spans' boxes.
    pub span_boxes: Vec<F4>,
    /// One entry per frame.
    pub entries: Vec<FrameEntry>,
    /// One summary per block.
    pub block_infos: Vec<BlockInfo>,
}

/// Why a database cannot be built.
#[derive(Debug, Clone, PartialEq)]
pub enum BuildError {
    /// No rows, rows of another length than the groups' dimensions, or entries not one per row.
    Shape(String),
    /// A group with no dimensions or a weight that is not finite and positive.
    Group(usize),
    /// Row `frame` has a value that is not finite.
    NonFinite {
        /// The row.
        frame: usize,
    },
    /// The runtime refused the result (a count past its limits, a value past `MAX_FEATURE_MAGNITUDE`).
    Runtime(Error),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Shape(what) => write!(f, "motion database: {what}"),
            BuildError::Group(g) => write!(f, "motion database: group {g} has no dimensions or a bad weight"),
            BuildError::NonFinite { frame } => {
                write!(f, "motion database: frame {frame} has a NaN or infinite feature")
            }
            BuildError::Runtime(e) => write!(f, "motion database: {e}"),
        }
    }
}

impl std::error::Error for BuildError {}

impl OwnedDatabase {
    /// Normalizes `rows` (one raw row per frame, `dims` values each, row-major) and lays them out. `entries`
    /// gives each frame's clip, time, tags and flags.
    ///
    /// Errors: see [`BuildError`]; the result is checked by `MotionDatabase::new` before it is returned.
    pub fn build(rows: &[f32], groups: &[GroupSpec], entries: &[FrameEntry]) -> Result<OwnedDatabase, BuildError> {
        let dims: usize = groups.iter().map(|g| g.dims).sum();
        if let Some(g) = groups.iter().position(|g| g.dims == 0 || !(g.weight.is_finite() && g.weight > 0.0)) {
            return Err(BuildError::Group(g));
        }
        if dims == 0 || rows.is_empty() || !rows.len().is_multiple_of(dims) {
            return Err(BuildError::Shape(format!("{} values do not make rows of {dims} dimensions", rows.len())));
        }
        let frames = rows.len() / dims;
        if entries.len() != frames {
            return Err(BuildError::Shape(format!("{} entries for {frames} frames", entries.len())));
        }
        if let Some(i) = rows.iter().position(|x| !x.is_finite()) {
            return Err(BuildError::NonFinite { frame: i / dims });
        }
        let (mean, deviation) = mean_and_deviation(rows, dims);
        let mut scale = vec![0.0f32; dims];
        let mut feature_groups = Vec::with_capacity(groups.len());
        let mut start = 0;
        for group in groups {
            let span = start..start + group.dims;
            let group_deviation = deviation[span.clone()].iter().sum::<f64>() / group.dims as f64;
            // A constant group has nothing to normalize: its differences count at the weight alone.
            let group_deviation = if group_deviation > 1e-12 { group_deviation } else { 1.0 };
            for s in &mut scale[span.clone()] {
                *s = (group.weight / group_deviation) as f32;
            }
            feature_groups.push(FeatureGroup { start: start as u32, len: group.dims as u32 });
            start = span.end;
        }
        let layout = DatabaseLayout::new(dims, frames);
        let mut features = vec![F4::splat(f32::INFINITY); layout.feature_lanes];
        {
            let lanes: &mut [f32] = bytemuck::cast_slice_mut(&mut features);
            for (frame, row) in rows.chunks_exact(dims).enumerate() {
                let (block, l) = (frame / BLOCK_FRAMES, frame % BLOCK_FRAMES);
                for (dim, x) in row.iter().enumerate() {
                    lanes[(block * dims + dim) * BLOCK_FRAMES + l] = (x - mean[dim]) * scale[dim];
                }
            }
        }
        let mut block_boxes = vec![F4::ZERO; layout.block_box_lanes];
        let mut span_boxes = vec![F4::ZERO; layout.span_box_lanes];
        motion_database::fill_boxes(dims, frames, &features, &mut block_boxes, &mut span_boxes)
            .map_err(BuildError::Runtime)?;
        let mut spread = vec![0.0; dims];
        motion_database::fill_spread(dims, frames, &features, &mut spread).map_err(BuildError::Runtime)?;
        let block_infos = (0..layout.blocks).map(|b| motion_database::block_info(entries, b)).collect();
        let database = OwnedDatabase {
            dims,
            frames,
            groups: feature_groups,
            group_names: groups.iter().map(|g| g.name.clone()).collect(),
            mean,
            scale,
            spread,
            features,
            block_boxes,
            span_boxes,
            entries: entries.to_vec(),
            block_infos,
        };
        database.view().map_err(BuildError::Runtime)?;
        Ok(database)
    }

    /// The parts, borrowed.
    pub fn parts(&self) -> MotionDatabaseParts<'_> {
        MotionDatabaseParts {
            dims: self.dims,
            frames: self.frames,
            groups: &self.groups,
            mean: &self.mean,
            scale: &self.scale,
            spread: &self.spread,
            features: &self.features,
            block_boxes: &self.block_boxes,
            span_boxes: &self.span_boxes,
            entries: &self.entries,
            block_infos: &self.block_infos,
        }
    }

    /// The runtime's validated view.
    ///
    /// Errors: whatever `MotionDatabase::new` finds (none for a database `build` returned, unless edited).
    pub fn view(&self) -> Result<MotionDatabase<'_>, Error> {
        MotionDatabase::new(self.parts())
    }
}

/// Per dimension, the mean (as `f32`) and the standard deviation (population), both accumulated in `f64`.
pub fn mean_and_deviation(rows: &[f32], dims: usize) -> (Vec<f32>, Vec<f64>) {
    let frames = (rows.len() / dims) as f64;
    let mut sum = vec![0.0f64; dims];
    for row in rows.chunks_exact(dims) {
        for (s, x) in sum.iter_mut().zip(row) {
            *s += f64::from(*x);
        }
    }
    let mean: Vec<f64> = sum.iter().map(|s| s / frames).collect();
    let mut square = vec![0.0f64; dims];
    for row in rows.chunks_exact(dims) {
        for ((s, x), m) in square.iter_mut().zip(row).zip(&mean) {
            *s += (f64::from(*x) - m).powi(2);
        }
    }
    let deviation = square.iter().map(|s| (s / frames).sqrt()).collect();
    (mean.iter().map(|m| *m as f32).collect(), deviation)
}
