//! Motion matching's search: the database frame whose features are nearest the query, exactly, in SIMD lanes.
//!
//! [`MotionSearchJob`] normalizes the query, sets the first bound to the playing frame's cost less the
//! continuing bias (so a jump must be worth it), then either scans every open block ([`SearchMethod::BruteForce`])
//! or descends the database's boxes ([`SearchMethod::Pruned`]: a span of 64 frames, then a block of 16, is read
//! only when its box lies nearer the query than the best cost so far). Either way a block's scan stops once every
//! lane's partial cost has passed the best. Both give the same frame and cost, bit for bit: a box's distance is computed by
//! the same lane operations in the same order as a frame's cost, and every step of those is monotone, so it never
//! exceeds the cost of a frame inside (`motion_database` module docs). Ties go to the lowest frame.
//!
//! Layout: the database's blocks (`motion_database`); the query is one raw `f32` per dimension, as the schema
//! measures it. Units: a cost is a squared distance in normalized units. Errors: see [`MotionSearchJob::run`].
//! Precision: `f32`; the per-group costs sum to the cost within rounding.

use crate::data::motion_database::{BLOCK_FRAMES, MotionDatabase, SPAN_BLOCKS};
use crate::error::{Buffer, Error, Index, check_len};
use crate::limits::{MAX_FEATURE_DIMS, MAX_FEATURE_GROUPS, MAX_FEATURE_MAGNITUDE};
use crate::math::lane::F4;

/// Dimensions between early-exit tests in a block's scan.
const EXIT_EVERY: usize = 8;

/// Which frames a search may take by their tags: every bit of `require` set and none of `exclude`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct TagFilter {
    /// Bits a frame must have.
    pub require: u32,
    /// Bits a frame must not have.
    pub exclude: u32,
}

impl TagFilter {
    /// A filter every frame passes.
    pub const ALL: TagFilter = TagFilter { require: 0, exclude: 0 };

    fn admits(&self, tags: u32) -> bool {
        tags & self.require == self.require && tags & self.exclude == 0
    }
}

/// How the search reads the database.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub enum SearchMethod {
    /// Every open block in order, each given up once every lane's partial cost passes the best so far (checked
    /// every eight dimensions): what the naive loop does, in lanes.
    BruteForce,
    /// Boxes over 64 and 16 frames first (the nearest span before the others), blocks only where a box lies
    /// nearer than the best cost, with the same early exit.
    #[default]
    Pruned,
}

/// The search's answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionMatch {
    /// The database frame.
    pub frame: usize,
    /// Its clip index in the asset.
    pub clip: u32,
    /// Its time in that clip, seconds.
    pub time: f32,
    /// Its cost (squared normalized distance to the query).
    pub cost: f32,
    /// True when no frame beat the playing frame's cost less the bias, so `frame` is the playing frame.
    pub continuing: bool,
    /// The cost per feature group (`groups` of them; the rest 0).
    pub group_costs: [f32; MAX_FEATURE_GROUPS],
    /// Blocks whose features the search read (for profiling the pruning).
    pub blocks_read: usize,
}

/// One search (module docs).
#[derive(Clone, Copy, Debug)]
pub struct MotionSearchJob<'a> {
    /// The database.
    pub database: &'a MotionDatabase<'a>,
    /// The query, one raw value per dimension (the pose part from the character, the trajectory from the game).
    pub query: &'a [f32],
    /// Which tags a frame must and must not have.
    pub filter: TagFilter,
    /// The database frame playing now, if any: its cost less `continuing_bias` is the first bound, and the frames
    /// of its clip within `exclude_window` of it are not taken.
    pub current: Option<usize>,
    /// Frames either side of `current` (in its clip) the search does not jump to.
    pub exclude_window: usize,
    /// How much cheaper than the playing frame a jump must be (`>= 0`, finite).
    pub continuing_bias: f32,
    /// Brute force or pruned (the same answer).
    pub method: SearchMethod,
}

/// The query normalized and splatted, one `F4` per dimension, and the order the kernels read dimensions in:
/// the largest expected contribution first (the database's spread plus the query's square), so a block's early
/// exit comes sooner. Every kernel reads this one order, so the box bounds stay exact.
struct Query {
    lanes: [F4; MAX_FEATURE_DIMS],
    order: [u8; MAX_FEATURE_DIMS],
    dims: usize,
}

impl<'a> MotionSearchJob<'a> {
    /// A pruned search over every frame for `query`, nothing playing.
    pub fn new(database: &'a MotionDatabase<'a>, query: &'a [f32]) -> MotionSearchJob<'a> {
        MotionSearchJob {
            database,
            query,
            filter: TagFilter::ALL,
            current: None,
            exclude_window: 0,
            continuing_bias: 0.0,
            method: SearchMethod::Pruned,
        }
    }

    /// The nearest frame the filter, the flags and the window allow, or the playing frame when none beats it.
    ///
    /// Errors: `BufferLength` (`FeatureQuery`) for a query of other than `dims` values; `InvalidFeatureQuery`
    /// for a value that is not finite or, normalized, beyond `MAX_FEATURE_MAGNITUDE`; `IndexOutOfRange`
    /// (`DatabaseFrame`) for a current frame past the last; `InvalidSearch` for a bad bias; `NoCandidate` when
    /// no frame may be taken and nothing may continue.
    pub fn run(&self) -> Result<MotionMatch, Error> {
        let db = self.database;
        let query = self.normalized_query()?;
        if !(self.continuing_bias.is_finite() && self.continuing_bias >= 0.0) {
            return Err(Error::InvalidSearch);
        }
        let mut search =
            Search { job: self, query: &query, best: f32::INFINITY, best_rank: usize::MAX, blocks_read: 0 };
        let mut playing_cost = None;
        if let Some(current) = self.current {
            let entry = db.entry(current).ok_or(Error::IndexOutOfRange {
                what: Index::DatabaseFrame,
                index: current,
                len: db.frames(),
            })?;
            if self.filter.admits(entry.tags) {
                let cost = self.frame_cost(&query, current);
                search.best = cost - self.continuing_bias;
                search.best_rank = 0;
                playing_cost = Some(cost);
            }
        }
        match self.method {
            SearchMethod::BruteForce => search.brute_force(),
            SearchMethod::Pruned => search.pruned(),
        }
        let continuing = search.best_rank == 0;
        let frame = match (continuing, self.current) {
            (true, Some(current)) => current,
            _ => search.best_rank.checked_sub(1).filter(|&f| f < db.frames()).ok_or(Error::NoCandidate)?,
        };
        let entry = db.entry(frame).ok_or(Error::NoCandidate)?;
        let mut group_costs = [0.0; MAX_FEATURE_GROUPS];
        for (cost, group) in group_costs.iter_mut().zip(db.groups()) {
            let dims = group.start as usize..(group.start + group.len) as usize;
            *cost = dims.map(|d| square(db.feature(frame, d).unwrap_or(0.0) - query.lanes[d].lane::<0>())).sum();
        }
        Ok(MotionMatch {
            frame,
            clip: entry.clip,
            time: entry.time,
            cost: if continuing { playing_cost.unwrap_or(search.best) } else { search.best },
            continuing,
            group_costs,
            blocks_read: search.blocks_read,
        })
    }

    fn normalized_query(&self) -> Result<Query, Error> {
        let db = self.database;
        check_len(Buffer::FeatureQuery, db.dims(), self.query.len())?;
        let mut lanes = [F4::ZERO; MAX_FEATURE_DIMS];
        for (dim, ((lane, raw), (mean, scale))) in
            lanes.iter_mut().zip(self.query).zip(db.mean().iter().zip(db.scale())).enumerate()
        {
            let x = (raw - mean) * scale;
            if !x.is_finite() || x.abs() > MAX_FEATURE_MAGNITUDE {
                return Err(Error::InvalidFeatureQuery { dim });
            }
            *lane = F4::splat(x);
        }
        let dims = db.dims();
        let mut order = [0u8; MAX_FEATURE_DIMS];
        let mut expected = [0.0f32; MAX_FEATURE_DIMS];
        for (d, (slot, e)) in order.iter_mut().zip(&mut expected).enumerate().take(dims) {
            let q = lanes[d].lane::<0>();
            (*slot, *e) = (d as u8, db.spread()[d] + q * q);
        }
        order[..dims].sort_unstable_by(|a, b| expected[*b as usize].total_cmp(&expected[*a as usize]));
        Ok(Query { lanes, order, dims })
    }

    /// Frame `frame`'s cost, by the block kernel (so bit for bit what a scan of its block gives).
    fn frame_cost(&self, query: &Query, frame: usize) -> f32 {
        let block = frame / BLOCK_FRAMES;
        let costs = block_costs(self.block_features(block), query, [F4::ZERO; 4], None);
        costs[frame % BLOCK_FRAMES / 4].to_array()[frame % 4]
    }

    fn block_features(&self, block: usize) -> &'a [F4] {
        let dims = self.database.dims();
        &self.database.parts().features[block * dims * 4..(block + 1) * dims * 4]
    }

    /// The lanes of block `block` the search may take: open, passing the filter, outside the window.
    fn open_lanes(&self, block: usize) -> u32 {
        let parts = self.database.parts();
        let info = parts.block_infos[block];
        let filter = self.filter;
        if info.open == 0 || info.tags_any & filter.require != filter.require || info.tags_all & filter.exclude != 0 {
            return 0;
        }
        if filter == TagFilter::ALL && self.current.is_none() {
            return info.open;
        }
        let first = block * BLOCK_FRAMES;
        let mut open = info.open;
        if filter != TagFilter::ALL {
            let entries = &parts.entries[first..(first + BLOCK_FRAMES).min(parts.entries.len())];
            for (l, entry) in entries.iter().enumerate() {
                if !filter.admits(entry.tags) {
                    open &= !(1 << l);
                }
            }
        }
        if let Some(current) = self.current {
            let (lo, hi) = (current.saturating_sub(self.exclude_window), current.saturating_add(self.exclude_window));
            let clip = parts.entries[current].clip;
            if lo < first + BLOCK_FRAMES && hi >= first {
                for l in lo.max(first) - first..=(hi - first).min(BLOCK_FRAMES - 1) {
                    if parts.entries.get(first + l).is_some_and(|e| e.clip == clip) {
                        open &= !(1 << l);
                    }
                }
            }
        }
        open
    }
}

fn square(x: f32) -> f32 {
    x * x
}

/// The per-lane costs of one block's 16 frames, starting from `start` (0 for open lanes, `+∞` for closed ones).
/// With `exit` the scan stops after any eighth dimension where every lane is above it (every lane's cost is then
/// above `exit`, since each step only adds).
#[inline(always)]
fn block_costs(features: &[F4], query: &Query, start: [F4; 4], exit: Option<f32>) -> [F4; 4] {
    let mut costs = start;
    for chunk in query.order[..query.dims].chunks(EXIT_EVERY) {
        for &d in chunk {
            costs = add_squares(&features[d as usize * 4..][..4], query.lanes[d as usize], costs);
        }
        if let Some(exit) = exit
            && costs[0].min(costs[1]).min(costs[2].min(costs[3])).cmp_gt(F4::splat(exit)).all_set()
        {
            break;
        }
    }
    costs
}

/// One dimension of a block: each lane's squared difference from the query added to its cost.
#[inline(always)]
fn add_squares(features: &[F4], q: F4, costs: [F4; 4]) -> [F4; 4] {
    core::array::from_fn(|j| {
        let d = features[j] - q;
        d.mul_add(d, costs[j])
    })
}

/// Four boxes' distances to the query: the lane operations of [`block_costs`] on each dimension's nearest
/// point of the box, so no distance exceeds the cost of a frame inside its box. Like a block's scan it stops
/// after any eighth dimension where every lane is above `exit`, returning the partial sums: each still above
/// `exit`, so a caller comparing against `exit` decides as it would on the whole distance.
#[inline(always)]
fn box_distances(boxes: &[F4], query: &Query, exit: f32) -> F4 {
    let mut acc = F4::ZERO;
    for chunk in query.order[..query.dims].chunks(EXIT_EVERY) {
        for &d in chunk {
            let (pair, q) = (&boxes[d as usize * 2..][..2], query.lanes[d as usize]);
            let d = q.max(pair[0]).min(pair[1]) - q;
            acc = d.mul_add(d, acc);
        }
        if acc.cmp_gt(F4::splat(exit)).all_set() {
            break;
        }
    }
    acc
}

/// A search in progress: the best cost so far and its rank (0 for the playing frame, `frame + 1` for others),
/// so that the playing frame wins a tie and otherwise the lowest frame does, in whatever order blocks are read.
struct Search<'s, 'a> {
    job: &'s MotionSearchJob<'a>,
    query: &'s Query,
    best: f32,
    best_rank: usize,
    blocks_read: usize,
}

impl Search<'_, '_> {
    /// True when nothing from `first_frame` on at `distance` or more can beat the best.
    #[inline(always)]
    fn beaten(&self, distance: f32, first_frame: usize) -> bool {
        distance > self.best || (distance == self.best && first_frame + 1 > self.best_rank)
    }

    fn brute_force(&mut self) {
        for block in 0..self.job.database.blocks() {
            self.scan(block);
        }
    }

    /// The nearest span first, for a tight bound early; then every span whose box may still hold a better
    /// frame, in order.
    fn pruned(&mut self) {
        let (db, dims) = (self.job.database, self.job.database.dims());
        let spans = db.blocks().div_ceil(SPAN_BLOCKS);
        let span_boxes = db.parts().span_boxes.chunks_exact(dims * 2);
        let mut nearest = (f32::INFINITY, spans);
        for (quad, boxes) in span_boxes.clone().enumerate() {
            for (k, distance) in box_distances(boxes, self.query, nearest.0).to_array().into_iter().enumerate() {
                if distance < nearest.0 {
                    nearest = (distance, quad * 4 + k);
                }
            }
        }
        if nearest.1 < spans {
            self.scan_span(nearest.1);
        }
        for (quad, boxes) in span_boxes.enumerate() {
            for (k, distance) in box_distances(boxes, self.query, self.best).to_array().into_iter().enumerate() {
                let span = quad * 4 + k;
                if span < spans && span != nearest.1 && !self.beaten(distance, span * SPAN_BLOCKS * BLOCK_FRAMES) {
                    self.scan_span(span);
                }
            }
        }
    }

    fn scan_span(&mut self, span: usize) {
        let (db, dims) = (self.job.database, self.job.database.dims());
        let boxes = &db.parts().block_boxes[span * dims * 2..][..dims * 2];
        for (k, distance) in box_distances(boxes, self.query, self.best).to_array().into_iter().enumerate() {
            let block = span * SPAN_BLOCKS + k;
            if block < db.blocks() && !self.beaten(distance, block * BLOCK_FRAMES) {
                self.scan(block);
            }
        }
    }

    /// Scans block `block`, stopping early once no lane can win, and keeps its cheapest open frame if it beats
    /// the best.
    #[inline(always)]
    fn scan(&mut self, block: usize) {
        let open = self.job.open_lanes(block);
        if open == 0 {
            return;
        }
        self.blocks_read += 1;
        let closed = F4::splat(f32::INFINITY);
        let start: [F4; 4] = core::array::from_fn(|j| F4::select(F4::lane_mask(open >> (4 * j)), F4::ZERO, closed));
        let costs = block_costs(self.job.block_features(block), self.query, start, Some(self.best));
        // Most blocks hold nothing better: one comparison says so.
        let least = costs[0].min(costs[1]).min(costs[2].min(costs[3]));
        if least.cmp_gt(F4::splat(self.best)).all_set() {
            return;
        }
        let least = least.to_array().into_iter().fold(f32::INFINITY, f32::min);
        let lanes = costs.map(F4::to_array);
        let lane = lanes.as_flattened().iter().position(|&c| c == least).unwrap_or(0);
        let frame = block * BLOCK_FRAMES + lane;
        if least < self.best || (least == self.best && frame + 1 < self.best_rank) {
            self.best = least;
            self.best_rank = frame + 1;
        }
    }
}
