//! Motion matching's search from C: the asset's motion database described, a frame's own features read back,
//! and the exact search (`sinew::motion_matching`) over a caller's query. Nothing is allocated; the database
//! is the blob's, validated when the asset loaded.
//!
//! Units: a query is one raw value per feature dimension, as the baker's schema measures them; costs are
//! squared distances in normalized units; times are the clip's seconds.

use crate::asset::sinew_asset;
use crate::status::{SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NULL_POINTER, put, sinew_status};
use core::mem::{align_of, size_of};
use sinew::limits::MAX_FEATURE_GROUPS;
use sinew::motion_database::MotionDatabase;
use sinew::motion_matching::{MotionSearchJob, SearchMethod, TagFilter};

/// Most feature groups a match reports costs for (`limits::MAX_FEATURE_GROUPS`).
pub const SINEW_MAX_FEATURE_GROUPS: usize = 16;

const _: () = assert!(SINEW_MAX_FEATURE_GROUPS == MAX_FEATURE_GROUPS);

/// `sinew_motion_search_request::method`: boxes first, then the blocks they may hold a better frame in.
pub const SINEW_SEARCH_PRUNED: u32 = 0;
/// `sinew_motion_search_request::method`: every block (the same answer, bit for bit; for checking).
pub const SINEW_SEARCH_BRUTE_FORCE: u32 = 1;

/// The asset's motion database, described.
///
/// Layout: 16 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_motion_database_info {
    /// Feature dimensions: a query's length.
    pub dims: u32,
    /// Frames.
    pub frames: u32,
    /// Feature groups (costs reported per group).
    pub groups: u32,
    /// Bytes its parts take in the blob.
    pub bytes: u32,
}

const _: () = assert!(size_of::<sinew_motion_database_info>() == 16);

/// One search.
///
/// Layout: 32 bytes on 64-bit targets, pointer-aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_motion_search_request {
    /// `dims` raw values: the pose part from the character, the trajectory from the game.
    pub query: *const f32,
    /// Tag bits a frame must have.
    pub require_tags: u32,
    /// Tag bits a frame must not have.
    pub exclude_tags: u32,
    /// The database frame playing now, or −1 for none: its cost less the bias is the bound to beat, and the
    /// frames of its clip within `exclude_window` of it are not taken.
    pub current: i32,
    /// Frames either side of `current` not jumped to.
    pub exclude_window: u32,
    /// How much cheaper than the playing frame a jump must be (finite, `>= 0`).
    pub continuing_bias: f32,
    /// `SINEW_SEARCH_PRUNED` or `SINEW_SEARCH_BRUTE_FORCE`.
    pub method: u32,
}

const _: () = assert!(align_of::<sinew_motion_search_request>() == align_of::<*const f32>());

/// A search's answer.
///
/// Layout: 88 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_motion_match {
    /// The database frame.
    pub frame: u32,
    /// Its clip in the asset.
    pub clip: u32,
    /// Its time in that clip, seconds.
    pub time: f32,
    /// Its cost.
    pub cost: f32,
    /// 1 when nothing beat the playing frame (then `frame` is it), else 0.
    pub continuing: u32,
    /// Blocks of 16 frames the search read.
    pub blocks_read: u32,
    /// The cost per feature group (`sinew_motion_database_info::groups` of them; the rest 0).
    pub group_costs: [f32; SINEW_MAX_FEATURE_GROUPS],
}

const _: () = assert!(size_of::<sinew_motion_match>() == 88);

/// The asset's database, or `SINEW_ERROR_INVALID_ARGUMENT` for an asset baked without one.
///
/// # Safety
/// `asset` is NULL or points to a `sinew_asset`.
unsafe fn database<'a>(asset: *const sinew_asset) -> Result<&'a MotionDatabase<'static>, sinew_status> {
    // SAFETY: the caller's contract.
    let stored = unsafe { crate::asset::stored(asset) }?;
    stored.asset.motion_database().ok_or(SINEW_ERROR_INVALID_ARGUMENT)
}

/// Describes the asset's motion database.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for an asset baked without one.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_motion_database_describe(
    asset: *const sinew_asset,
    out: *mut sinew_motion_database_info,
) -> sinew_status {
    // SAFETY: the caller's contract.
    let info = unsafe { database(asset) }.map(|db| sinew_motion_database_info {
        dims: db.dims() as u32,
        frames: db.frames() as u32,
        groups: db.groups().len() as u32,
        bytes: db.data_bytes() as u32,
    });
    // SAFETY: the caller's contract.
    unsafe { put(out, info) }
}

/// Frame `frame`'s features as the schema measured them (the database's values denormalized), `dims` floats
/// into `out`: where a query's pose part can start.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for an asset without a database; `SINEW_ERROR_INDEX_OUT_OF_RANGE`
/// past the last frame; `SINEW_ERROR_BUFFER` for `len` other than `dims` or a misplaced `out`.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `out` points to `len` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_motion_database_features(
    asset: *const sinew_asset,
    frame: u32,
    out: *mut f32,
    len: usize,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let db = unsafe { database(asset) }?;
        // SAFETY: the caller's contract.
        let out: &mut [f32] = unsafe { crate::jobs::output(out, len) }?;
        db.raw_features(frame as usize, out).map_err(crate::jobs::job_status)
    })();
    crate::status::status(result)
}

/// The database frame nearest `request`'s query (see `sinew::motion_matching`): exact, the same answer for
/// both methods.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for an asset without a database, a query value that is NaN,
/// infinite or too large once normalized, a bad bias or method, a current frame below −1, or a filter that
/// leaves no frame with nothing playing; `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a current frame past the last; `SINEW_ERROR_NULL_POINTER`
/// for a NULL request, query or `out`.
///
/// # Safety
/// `asset` points to a loaded `sinew_asset`; `request` is readable and its `query` points to `dims` readable
/// floats; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_motion_search(
    asset: *const sinew_asset,
    request: *const sinew_motion_search_request,
    out: *mut sinew_motion_match,
) -> sinew_status {
    let found = (|| {
        // SAFETY: the caller's contract.
        let db = unsafe { database(asset) }?;
        // SAFETY: the caller's contract.
        let request = unsafe { crate::jobs::read_request(request) }?;
        if request.query.is_null() {
            return Err(SINEW_ERROR_NULL_POINTER);
        }
        // SAFETY: not NULL; `dims` readable floats by the caller's contract.
        let query: &[f32] = unsafe { crate::jobs::input(request.query, db.dims()) }?;
        let method = match request.method {
            SINEW_SEARCH_PRUNED => SearchMethod::Pruned,
            SINEW_SEARCH_BRUTE_FORCE => SearchMethod::BruteForce,
            _ => return Err(SINEW_ERROR_INVALID_ARGUMENT),
        };
        let mut job = MotionSearchJob::new(db, query);
        job.filter = TagFilter { require: request.require_tags, exclude: request.exclude_tags };
        job.current = match request.current {
            -1 => None,
            current => Some(usize::try_from(current).map_err(|_| SINEW_ERROR_INVALID_ARGUMENT)?),
        };
        job.exclude_window = request.exclude_window as usize;
        job.continuing_bias = request.continuing_bias;
        job.method = method;
        let found = job.run().map_err(crate::status::status_of)?;
        Ok(sinew_motion_match {
            frame: found.frame as u32,
            clip: found.clip,
            time: found.time,
            cost: found.cost,
            continuing: u32::from(found.continuing),
            blocks_read: found.blocks_read as u32,
            group_costs: found.group_costs,
        })
    })();
    // SAFETY: the caller's contract.
    unsafe { put(out, found) }
}
