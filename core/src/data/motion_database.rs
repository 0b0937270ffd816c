//! A motion-matching database: one normalized feature row per animation frame, laid out for a search in SIMD
//! lanes, with the boxes that let an exact search skip most of it.
//!
//! Layout: frames in blocks of [`BLOCK_FRAMES`] (16); a block holds each dimension's 16 values in turn
//! (`features[(block · dims + dim) · 4 + j]` is the `F4` of frames `16 · block + 4j … + 3`), so one dimension of
//! a block is four `F4` (two AVX registers). The last block is padded with `+∞` (the sentinel no query comes
//! near, so the kernel has no tail). Four blocks make a span (64 frames). Boxes are stored four at a time in
//! lanes, the `F4` of lower then of upper bounds per dimension: `block_boxes[(span · dims + dim) · 2]` holds the
//! lower bounds of the span's four blocks, `+ 1` their upper bounds; `span_boxes[(quad · dims + dim) · 2]` the
//! same for spans `4 · quad … + 3`. A box past the last block or span is `+∞` on both sides.
//!
//! Space and units: whatever the baker's schema measured (positions and velocities in the character's frame),
//! normalized per dimension as `(x − mean) · scale`, where `scale` is the group's weight over its deviation
//! (Holden's scheme), so the weights are baked in and a cost is the plain squared distance.
//!
//! Errors: `MotionDatabase { part, problem }` from [`MotionDatabase::new`], which checks every count, length,
//! value, box and block summary once. Precision: `f32` throughout; the boxes are the exact minima and maxima of
//! the stored features, so a box's distance is a lower bound on the cost of every frame inside it in `f32`
//! arithmetic too (the search relies on this to be exact).

use crate::error::{Buffer, DatabasePart, DatabaseProblem, Error, Index};
use crate::limits::{MAX_DATABASE_FRAMES, MAX_FEATURE_DIMS, MAX_FEATURE_GROUPS, MAX_FEATURE_MAGNITUDE};
use crate::math::lane::F4;

/// Frames per block: one dimension of a block is four `F4`.
pub const BLOCK_FRAMES: usize = 16;
/// Blocks per span (64 frames), the coarser box level.
pub const SPAN_BLOCKS: usize = 4;

/// Flag: the search never takes this frame (too near its clip's end for the trajectory, or in a range the
/// annotations close to entry). It may still continue playing.
pub const FRAME_EXCLUDED: u32 = 1;
/// Flag: the frame belongs to a mirrored copy of its clip.
pub const FRAME_MIRRORED: u32 = 2;
const KNOWN_FLAGS: u32 = FRAME_EXCLUDED | FRAME_MIRRORED;

/// Dimensions `start .. start + len` form one feature group (foot positions, the trajectory's facings, …); a
/// match reports its cost per group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct FeatureGroup {
    /// The group's first dimension.
    pub start: u32,
    /// Its dimension count (at least one).
    pub len: u32,
}

/// What a database frame plays: a clip of the asset at a time, with its tags and flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct FrameEntry {
    /// The asset's clip index.
    pub clip: u32,
    /// The time in that clip, seconds (finite, `>= 0`).
    pub time: f32,
    /// The game's tag bits (stance, style…) a search filter tests.
    pub tags: u32,
    /// `FRAME_EXCLUDED`, `FRAME_MIRRORED`; no other bit.
    pub flags: u32,
}

/// A block's summary, so a search skips it without reading its frames: which lanes may be taken and its
/// frames' tags OR-ed and AND-ed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct BlockInfo {
    /// Bit `l` set when frame `16 · block + l` exists and is not `FRAME_EXCLUDED`.
    pub open: u32,
    /// The tags of the block's frames OR-ed.
    pub tags_any: u32,
    /// The tags of the block's frames AND-ed.
    pub tags_all: u32,
    /// Zero.
    pub reserved: u32,
}

/// The parts of a database, as a baker writes them and a blob stores them; [`MotionDatabase::new`] checks them.
#[derive(Clone, Copy, Debug)]
pub struct MotionDatabaseParts<'a> {
    /// Feature dimensions, `1 ..= MAX_FEATURE_DIMS`.
    pub dims: usize,
    /// Frames, `1 ..= MAX_DATABASE_FRAMES`.
    pub frames: usize,
    /// Groups covering `0 .. dims` in order, each at least one dimension; at most `MAX_FEATURE_GROUPS`.
    pub groups: &'a [FeatureGroup],
    /// Per dimension, the mean subtracted before scaling (finite).
    pub mean: &'a [f32],
    /// Per dimension, the factor after subtracting (finite, `> 0`).
    pub scale: &'a [f32],
    /// Per dimension, the mean square of the normalized features, as [`fill_spread`] computes it.
    pub spread: &'a [f32],
    /// The normalized features, blocked (module docs): finite and within `MAX_FEATURE_MAGNITUDE`, padding `+∞`.
    pub features: &'a [F4],
    /// The blocks' boxes, four per lane group (module docs).
    pub block_boxes: &'a [F4],
    /// The spans' boxes, four per lane group (module docs).
    pub span_boxes: &'a [F4],
    /// One entry per frame.
    pub entries: &'a [FrameEntry],
    /// One summary per block, as [`block_info`] computes it.
    pub block_infos: &'a [BlockInfo],
}

/// A validated motion database (module docs), borrowed.
#[derive(Clone, Copy, Debug)]
pub struct MotionDatabase<'a> {
    parts: MotionDatabaseParts<'a>,
}

/// Element counts of a database's parts for `dims` dimensions and `frames` frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DatabaseLayout {
    /// Blocks of 16 frames.
    pub blocks: usize,
    /// Spans of four blocks.
    pub spans: usize,
    /// `F4` in `features`.
    pub feature_lanes: usize,
    /// `F4` in `block_boxes`.
    pub block_box_lanes: usize,
    /// `F4` in `span_boxes`.
    pub span_box_lanes: usize,
}

impl DatabaseLayout {
    /// The layout of `frames` frames of `dims` dimensions.
    pub fn new(dims: usize, frames: usize) -> DatabaseLayout {
        let blocks = frames.div_ceil(BLOCK_FRAMES);
        let spans = blocks.div_ceil(SPAN_BLOCKS);
        let span_quads = spans.div_ceil(4);
        DatabaseLayout {
            blocks,
            spans,
            feature_lanes: blocks * dims * 4,
            block_box_lanes: spans * dims * 2,
            span_box_lanes: span_quads * dims * 2,
        }
    }
}

/// Lane `l` of an `F4` slice viewed as `f32`.
#[inline(always)]
fn lane(lanes: &[F4], l: usize) -> f32 {
    lanes[l / 4].to_array()[l % 4]
}

/// The box of dimension `dim` over block `block`: its lower and upper bounds (`+∞` for a block past the last).
pub fn block_box(features: &[F4], dims: usize, block: usize, dim: usize) -> (f32, f32) {
    let Some(values) = features.get((block * dims + dim) * 4..(block * dims + dim + 1) * 4) else {
        return (f32::INFINITY, f32::INFINITY);
    };
    bounds(values.iter().flat_map(|v| v.to_array()))
}

/// The smallest value and the largest finite one (padding is `+∞`, and a box's upper bound is its largest
/// real value); `+∞` for both when there is no value.
fn bounds(values: impl Iterator<Item = f32> + Clone) -> (f32, f32) {
    let lo = values.clone().fold(f32::INFINITY, f32::min);
    (lo, values.filter(|x| x.is_finite()).fold(lo, f32::max))
}

/// Fills both box levels from `features` (a baker's step; the loader compares against the same function).
///
/// Errors: `MotionDatabase` (`Length`) when a slice does not fit `dims` and `frames`.
pub fn fill_boxes(
    dims: usize,
    frames: usize,
    features: &[F4],
    block_boxes: &mut [F4],
    span_boxes: &mut [F4],
) -> Result<(), Error> {
    let layout = DatabaseLayout::new(dims, frames);
    check_len(DatabasePart::Features, layout.feature_lanes, features.len())?;
    check_len(DatabasePart::BlockBoxes, layout.block_box_lanes, block_boxes.len())?;
    check_len(DatabasePart::SpanBoxes, layout.span_box_lanes, span_boxes.len())?;
    for (i, pair) in block_boxes.chunks_exact_mut(2).enumerate() {
        pair.copy_from_slice(&four_boxes(i, dims, |b, d| block_box(features, dims, b, d)));
    }
    for (i, pair) in span_boxes.chunks_exact_mut(2).enumerate() {
        pair.copy_from_slice(&four_boxes(i, dims, |s, d| span_box(block_boxes, dims, s, d)));
    }
    Ok(())
}

/// Lane group `i` of a box level: the lower then the upper bounds of four boxes (`4 · (i / dims)` on) in
/// dimension `i % dims`, each from `of(box, dim)`.
fn four_boxes(i: usize, dims: usize, of: impl Fn(usize, usize) -> (f32, f32)) -> [F4; 2] {
    let (first, dim) = (i / dims * 4, i % dims);
    let boxes: [(f32, f32); 4] = core::array::from_fn(|k| of(first + k, dim));
    [F4::from_array(boxes.map(|b| b.0)), F4::from_array(boxes.map(|b| b.1))]
}

/// The box of dimension `dim` over span `span`, from its blocks' boxes.
fn span_box(block_boxes: &[F4], dims: usize, span: usize, dim: usize) -> (f32, f32) {
    let Some(pair) = block_boxes.get((span * dims + dim) * 2..(span * dims + dim + 1) * 2) else {
        return (f32::INFINITY, f32::INFINITY);
    };
    let (lo, _) = bounds(pair[0].to_array().into_iter());
    let (_, hi) = bounds(pair[1].to_array().into_iter().chain([lo]));
    (lo, hi)
}

/// Fills `spread` (one per dimension) with the mean square of each dimension's normalized features (a baker's
/// step; the loader compares against the same function).
///
/// Errors: `MotionDatabase` (`Length`) when a slice does not fit `dims` and `frames`.
pub fn fill_spread(dims: usize, frames: usize, features: &[F4], spread: &mut [f32]) -> Result<(), Error> {
    check_len(DatabasePart::Features, DatabaseLayout::new(dims, frames).feature_lanes, features.len())?;
    check_len(DatabasePart::Spread, dims, spread.len())?;
    for (dim, out) in spread.iter_mut().enumerate() {
        *out = spread_of(features, dims, frames, dim);
    }
    Ok(())
}

/// Dimension `dim`'s mean square over the real frames, accumulated in `f64` frame by frame.
fn spread_of(features: &[F4], dims: usize, frames: usize, dim: usize) -> f32 {
    let mut sum = 0.0f64;
    for frame in 0..frames {
        let (block, l) = (frame / BLOCK_FRAMES, frame % BLOCK_FRAMES);
        let x = f64::from(lane(&features[(block * dims + dim) * 4..][..4], l));
        sum += x * x;
    }
    (sum / frames as f64) as f32
}

/// The summary of block `block` of `entries` (see [`BlockInfo`]).
pub fn block_info(entries: &[FrameEntry], block: usize) -> BlockInfo {
    let first = block * BLOCK_FRAMES;
    let frames = entries.get(first..(first + BLOCK_FRAMES).min(entries.len())).unwrap_or(&[]);
    let mut info = BlockInfo { open: 0, tags_any: 0, tags_all: u32::MAX, reserved: 0 };
    for (l, entry) in frames.iter().enumerate() {
        if entry.flags & FRAME_EXCLUDED == 0 {
            info.open |= 1 << l;
        }
        info.tags_any |= entry.tags;
        info.tags_all &= entry.tags;
    }
    info
}

fn check_len(part: DatabasePart, expected: usize, actual: usize) -> Result<(), Error> {
    if expected == actual {
        Ok(())
    } else {
        Err(Error::MotionDatabase { part, problem: DatabaseProblem::Length { expected, actual } })
    }
}

fn bad(part: DatabasePart, index: usize) -> Error {
    Error::MotionDatabase { part, problem: DatabaseProblem::Value { index } }
}

fn same_bits(stored: &[F4], expected: [F4; 2]) -> bool {
    let bits = |v: &F4| v.to_array().map(f32::to_bits);
    stored.iter().map(bits).eq(expected.iter().map(bits))
}

impl<'a> MotionDatabase<'a> {
    /// Checks every part (see [`MotionDatabaseParts`]) once: counts within the limits, lengths, groups covering
    /// the dimensions, normalization finite with positive scales, features finite and within
    /// `MAX_FEATURE_MAGNITUDE` with `+∞` padding, boxes and block summaries equal to what the features and
    /// entries give, entries with finite non-negative times and known flags. O(frames · dims).
    ///
    /// Errors: `MotionDatabase { part, problem }` naming the first bad part and element.
    pub fn new(parts: MotionDatabaseParts<'a>) -> Result<MotionDatabase<'a>, Error> {
        let MotionDatabaseParts { dims, frames, groups, mean, scale, features, .. } = parts;
        if dims == 0 || dims > MAX_FEATURE_DIMS {
            return Err(bad(DatabasePart::Dims, dims));
        }
        if frames == 0 || frames > MAX_DATABASE_FRAMES {
            return Err(bad(DatabasePart::Frames, frames));
        }
        let layout = DatabaseLayout::new(dims, frames);
        if groups.is_empty() || groups.len() > MAX_FEATURE_GROUPS {
            return Err(bad(DatabasePart::Groups, groups.len()));
        }
        let mut next = 0;
        for (g, group) in groups.iter().enumerate() {
            if group.start as usize != next || group.len == 0 || next + group.len as usize > dims {
                return Err(bad(DatabasePart::Groups, g));
            }
            next += group.len as usize;
        }
        if next != dims {
            return Err(bad(DatabasePart::Groups, groups.len()));
        }
        check_len(DatabasePart::Mean, dims, mean.len())?;
        check_len(DatabasePart::Scale, dims, scale.len())?;
        if let Some(d) = mean.iter().position(|m| !m.is_finite()) {
            return Err(bad(DatabasePart::Mean, d));
        }
        if let Some(d) = scale.iter().position(|s| !(s.is_finite() && *s > 0.0)) {
            return Err(bad(DatabasePart::Scale, d));
        }
        check_len(DatabasePart::Features, layout.feature_lanes, features.len())?;
        check_len(DatabasePart::BlockBoxes, layout.block_box_lanes, parts.block_boxes.len())?;
        check_len(DatabasePart::SpanBoxes, layout.span_box_lanes, parts.span_boxes.len())?;
        check_len(DatabasePart::FrameEntries, frames, parts.entries.len())?;
        check_len(DatabasePart::BlockInfos, layout.blocks, parts.block_infos.len())?;
        for block in 0..layout.blocks {
            for dim in 0..dims {
                for (j, values) in features[(block * dims + dim) * 4..][..4].iter().enumerate() {
                    for (k, x) in values.to_array().into_iter().enumerate() {
                        let frame = block * BLOCK_FRAMES + j * 4 + k;
                        let ok = if frame < frames { x.abs() <= MAX_FEATURE_MAGNITUDE } else { x == f32::INFINITY };
                        if !ok {
                            return Err(bad(DatabasePart::Features, frame));
                        }
                    }
                }
            }
        }
        let block_boxes = |i| four_boxes(i, dims, |b, d| block_box(features, dims, b, d));
        if let Some(i) = parts.block_boxes.chunks_exact(2).enumerate().position(|(i, p)| !same_bits(p, block_boxes(i)))
        {
            return Err(bad(DatabasePart::BlockBoxes, i));
        }
        let span_boxes = |i| four_boxes(i, dims, |s, d| span_box(parts.block_boxes, dims, s, d));
        if let Some(i) = parts.span_boxes.chunks_exact(2).enumerate().position(|(i, p)| !same_bits(p, span_boxes(i))) {
            return Err(bad(DatabasePart::SpanBoxes, i));
        }
        let entry_ok = |e: &FrameEntry| e.time.is_finite() && e.time >= 0.0 && e.flags & !KNOWN_FLAGS == 0;
        if let Some(f) = parts.entries.iter().position(|e| !entry_ok(e)) {
            return Err(bad(DatabasePart::FrameEntries, f));
        }
        if let Some(b) = (0..layout.blocks).find(|&b| parts.block_infos[b] != block_info(parts.entries, b)) {
            return Err(bad(DatabasePart::BlockInfos, b));
        }
        check_len(DatabasePart::Spread, dims, parts.spread.len())?;
        for (dim, stored) in parts.spread.iter().enumerate() {
            if stored.to_bits() != spread_of(features, dims, frames, dim).to_bits() {
                return Err(bad(DatabasePart::Spread, dim));
            }
        }
        Ok(MotionDatabase { parts })
    }

    /// Per dimension, the mean square of the normalized features (the variance: their mean is 0). The search
    /// reads the dimensions a query is likely farthest in first.
    pub fn spread(&self) -> &'a [f32] {
        self.parts.spread
    }

    /// Feature dimensions.
    pub fn dims(&self) -> usize {
        self.parts.dims
    }

    /// Frames (padding not counted).
    pub fn frames(&self) -> usize {
        self.parts.frames
    }

    /// Blocks of 16 frames.
    pub fn blocks(&self) -> usize {
        self.parts.block_infos.len()
    }

    /// The feature groups.
    pub fn groups(&self) -> &'a [FeatureGroup] {
        self.parts.groups
    }

    /// Per dimension, the mean subtracted before scaling.
    pub fn mean(&self) -> &'a [f32] {
        self.parts.mean
    }

    /// Per dimension, the factor applied after subtracting the mean.
    pub fn scale(&self) -> &'a [f32] {
        self.parts.scale
    }

    /// Bytes the parts occupy (as stored in a blob, section padding not counted).
    pub fn data_bytes(&self) -> usize {
        let p = &self.parts;
        core::mem::size_of_val(p.groups)
            + core::mem::size_of_val(p.mean)
            + core::mem::size_of_val(p.scale)
            + core::mem::size_of_val(p.spread)
            + core::mem::size_of_val(p.features)
            + core::mem::size_of_val(p.block_boxes)
            + core::mem::size_of_val(p.span_boxes)
            + core::mem::size_of_val(p.entries)
            + core::mem::size_of_val(p.block_infos)
    }

    /// The parts, as validated.
    pub fn parts(&self) -> &MotionDatabaseParts<'a> {
        &self.parts
    }

    /// Frame `frame`'s entry, or `None` past the last.
    pub fn entry(&self, frame: usize) -> Option<&'a FrameEntry> {
        self.parts.entries.get(frame)
    }

    /// The frame of clip `clip` nearest `time` (seconds), found by bisection over the entries in the order the
    /// baker writes them (clip after clip, time rising); `None` when the clip has no frame there or the entries
    /// are in another order around it. O(log frames).
    pub fn frame_at(&self, clip: u32, time: f32) -> Option<usize> {
        let entries = self.parts.entries;
        let after = entries.partition_point(|e| e.clip < clip || (e.clip == clip && e.time < time));
        let distance = |f: usize| entries.get(f).filter(|e| e.clip == clip).map(|e| (e.time - time).abs());
        match (after.checked_sub(1).and_then(|f| Some((f, distance(f)?))), distance(after)) {
            (Some((before, near)), Some(far)) if near <= far => Some(before),
            (_, Some(_)) => Some(after),
            (Some((before, _)), None) => Some(before),
            (None, None) => None,
        }
    }

    /// Frame `frame`'s normalized feature `dim`, or `None` past either.
    pub fn feature(&self, frame: usize, dim: usize) -> Option<f32> {
        if frame >= self.parts.frames || dim >= self.parts.dims {
            return None;
        }
        let (block, l) = (frame / BLOCK_FRAMES, frame % BLOCK_FRAMES);
        Some(lane(&self.parts.features[(block * self.parts.dims + dim) * 4..][..4], l))
    }

    /// Frame `frame`'s features as the schema measured them, before normalization (`x / scale + mean`, within
    /// a few ulp of the baked value), into `out` (`dims` long); the pose part of a query can start from it.
    ///
    /// Errors: `IndexOutOfRange` (`DatabaseFrame`) past the last frame, `BufferLength` (`FeatureRow`) for an
    /// `out` of another length.
    pub fn raw_features(&self, frame: usize, out: &mut [f32]) -> Result<(), Error> {
        if frame >= self.parts.frames {
            return Err(Error::IndexOutOfRange { what: Index::DatabaseFrame, index: frame, len: self.parts.frames });
        }
        crate::error::check_len(Buffer::FeatureRow, self.parts.dims, out.len())?;
        for (dim, x) in out.iter_mut().enumerate() {
            let value = self.feature(frame, dim).unwrap_or(0.0);
            *x = value / self.parts.scale[dim] + self.parts.mean[dim];
        }
        Ok(())
    }
}
