//! Motion matching from C: the asset's motion database described, a frame's own features read back, the exact
//! search (`sinew::motion_matching`) over a caller's query, and a character's motion-matched base layer (a
//! `sinew_motion_matcher` in caller memory, `sinew_character_match_motion` after each update). Nothing is allocated; the database
//! is the blob's, validated when the asset loaded.
//!
//! Units: a query is one raw value per feature dimension, as the baker's schema measures them; costs are
//! squared distances in normalized units; times are the clip's seconds.

use crate::asset::sinew_asset;
use crate::status::{SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_NULL_POINTER, SINEW_OK, put, sinew_status};
use core::mem::{align_of, size_of};
use sinew::character::{DesiredTrajectory, MatcherSettings, MotionMatcher};
use sinew::limits::MAX_FEATURE_GROUPS;
use sinew::motion_database::MotionDatabase;
use sinew::motion_matching::{MotionMatch, MotionSearchJob, SearchMethod, TagFilter};

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
        Ok(match_of(&found))
    })();
    // SAFETY: the caller's contract.
    unsafe { put(out, found) }
}

/// A character's motion matcher (`sinew::character::MotionMatcher`): plain caller memory, one per character,
/// that a byte copy moves. Every call checks its bytes, so a damaged one is refused
/// (`SINEW_ERROR_STATE_MISMATCH`), never trusted.
///
/// Layout: 1 036 bytes, 4-byte aligned.
#[repr(C, align(4))]
#[derive(Clone, Copy)]
pub struct sinew_motion_matcher {
    /// Opaque.
    pub bytes: [u8; SINEW_MOTION_MATCHER_SIZE],
}

/// `sizeof(sinew_motion_matcher)`.
pub const SINEW_MOTION_MATCHER_SIZE: usize = 1036;

const _: () = assert!(
    size_of::<sinew_motion_matcher>() == size_of::<MotionMatcher>()
        && align_of::<sinew_motion_matcher>() == align_of::<MotionMatcher>()
);

/// How a motion matcher searches and enters its matches.
///
/// Layout: 28 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_motion_matcher_settings {
    /// Seconds between searches (finite, > 0).
    pub interval: f32,
    /// Seconds of the inertialized transition into a match (finite, > 0).
    pub transition: f32,
    /// How much cheaper than the playing frame a jump must be (finite, `>= 0`).
    pub continuing_bias: f32,
    /// Frames either side of the playing frame, in its clip, not jumped to.
    pub exclude_window: u32,
    /// Tag bits a frame must have.
    pub require_tags: u32,
    /// Tag bits a frame must not have.
    pub exclude_tags: u32,
    /// `SINEW_SEARCH_PRUNED` or `SINEW_SEARCH_BRUTE_FORCE`.
    pub method: u32,
}

const _: () = assert!(size_of::<sinew_motion_matcher_settings>() == 28);

fn match_of(found: &MotionMatch) -> sinew_motion_match {
    sinew_motion_match {
        frame: found.frame as u32,
        clip: found.clip,
        time: found.time,
        cost: found.cost,
        continuing: u32::from(found.continuing),
        blocks_read: u32::try_from(found.blocks_read).unwrap_or(u32::MAX),
        group_costs: found.group_costs,
    }
}

/// The core's settings for `s`.
fn settings_of(s: &sinew_motion_matcher_settings) -> Result<MatcherSettings, sinew_status> {
    let method = match s.method {
        SINEW_SEARCH_PRUNED => SearchMethod::Pruned,
        SINEW_SEARCH_BRUTE_FORCE => SearchMethod::BruteForce,
        _ => return Err(SINEW_ERROR_INVALID_ARGUMENT),
    };
    Ok(MatcherSettings {
        interval: s.interval,
        transition: s.transition,
        continuing_bias: s.continuing_bias,
        exclude_window: s.exclude_window as usize,
        filter: TagFilter { require: s.require_tags, exclude: s.exclude_tags },
        method,
    })
}

/// The matcher at `matcher`, for reading and writing.
///
/// # Safety
/// `matcher` is NULL or points to a writable `sinew_motion_matcher` no one else uses during the call.
unsafe fn matcher_at<'a>(matcher: *mut sinew_motion_matcher) -> Result<&'a mut MotionMatcher, sinew_status> {
    // SAFETY: the caller's contract; `output` checks NULL, alignment and the address space.
    let one: &mut [MotionMatcher] = unsafe { crate::jobs::output(matcher, 1) }?;
    Ok(&mut one[0])
}

/// Writes the default settings (every 0.1 s, a 0.2 s transition, a bias of 0.01, 10 frames either side, no
/// tags, pruned) to `out`.
///
/// # Safety
/// `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_motion_matcher_default_settings(
    out: *mut sinew_motion_matcher_settings,
) -> sinew_status {
    let d = MatcherSettings::default();
    let settings = sinew_motion_matcher_settings {
        interval: d.interval,
        transition: d.transition,
        continuing_bias: d.continuing_bias,
        exclude_window: d.exclude_window as u32,
        require_tags: d.filter.require,
        exclude_tags: d.filter.exclude,
        method: SINEW_SEARCH_PRUNED,
    };
    // SAFETY: the caller's contract.
    unsafe { put(out, Ok(settings)) }
}

/// Lays out a matcher for `asset`'s motion database in `*matcher`; it searches on its first call. Nothing is
/// written on an error.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for an asset without a database, a feature group the character cannot
/// fill, or bad settings; `SINEW_ERROR_BUFFER` for a misaligned `matcher`.
///
/// # Safety
/// `matcher` points to a writable `sinew_motion_matcher`; `asset` to a loaded `sinew_asset`; `settings` is
/// readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_motion_matcher_init(
    matcher: *mut sinew_motion_matcher,
    asset: *const sinew_asset,
    settings: *const sinew_motion_matcher_settings,
) -> sinew_status {
    crate::status::status((|| {
        // SAFETY: the caller's contract.
        let (stored, settings) = unsafe { (crate::asset::stored(asset)?, crate::jobs::read_request(settings)?) };
        let made = MotionMatcher::new(&stored.asset, settings_of(&settings)?).map_err(crate::status::status_of)?;
        // SAFETY: the caller's contract.
        *unsafe { matcher_at(matcher) }? = made;
        Ok(())
    })())
}

/// Makes the next `sinew_character_match_motion` search whatever the timer says.
///
/// # Safety
/// `matcher` points to a writable `sinew_motion_matcher`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_motion_matcher_request(matcher: *mut sinew_motion_matcher) -> sinew_status {
    // SAFETY: the caller's contract.
    crate::status::status(unsafe { matcher_at(matcher) }.map(MotionMatcher::request))
}

/// How many trajectory positions and facings (2 floats each) `sinew_character_match_motion` takes.
///
/// # Safety
/// `matcher` points to a `sinew_motion_matcher`; `positions` and `facings` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_motion_matcher_trajectory_samples(
    matcher: *mut sinew_motion_matcher,
    positions: *mut u32,
    facings: *mut u32,
) -> sinew_status {
    if positions.is_null() || facings.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    let samples = unsafe { matcher_at(matcher) }.and_then(|m| m.trajectory_samples().map_err(crate::status::status_of));
    match samples {
        Ok((p, f)) => {
            // SAFETY: not NULL; writable by the caller's contract.
            unsafe { (positions.write_unaligned(p as u32), facings.write_unaligned(f as u32)) };
            SINEW_OK
        }
        Err(status) => status,
    }
}

/// One frame of motion matching after the character's update (`sinew::character::Character::match_motion`):
/// the pose part of the query read from the character, a search when the timer is due (or on request, or when
/// the playing frame may not continue), and a better frame entered through the inertialized transition.
/// `positions` and `facings` are the game's desired trajectory in the character's frame, `[x, z]` pairs at the
/// schema's sample times. `*searched` is 1 when a search ran (then `*out` holds its answer), else 0.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for an asset without a database, a NaN or infinite trajectory value,
/// a pose beyond the database's range, or no frame to take; `SINEW_ERROR_STATE_MISMATCH` for a damaged matcher
/// or another asset's; `SINEW_ERROR_NO_INERTIALIZER`; `SINEW_ERROR_BUFFER` for sample counts other than
/// `sinew_motion_matcher_trajectory_samples`. Nothing changes on an error.
///
/// # Safety
/// `character` points to an initialized character of `asset`; `matcher` to a writable matcher; `positions` and
/// `facings` to `2 × num_positions` and `2 × num_facings` readable floats; `out` and `searched` are writable.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn sinew_character_match_motion(
    character: *mut crate::character::sinew_character,
    asset: *const sinew_asset,
    matcher: *mut sinew_motion_matcher,
    positions: *const f32,
    num_positions: u32,
    facings: *const f32,
    num_facings: u32,
    out: *mut sinew_motion_match,
    searched: *mut u32,
) -> sinew_status {
    if out.is_null() || searched.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    let found = (|| {
        // SAFETY: the caller's contract.
        let (stored, mut character) = unsafe { (crate::asset::stored(asset)?, crate::character::attach(character)?) };
        // SAFETY: the caller's contract.
        let positions: &[f32] = unsafe { crate::jobs::input(positions, 2 * num_positions as usize) }?;
        // SAFETY: the caller's contract.
        let facings: &[f32] = unsafe { crate::jobs::input(facings, 2 * num_facings as usize) }?;
        let desired =
            DesiredTrajectory { positions: positions.as_chunks::<2>().0, facings: facings.as_chunks::<2>().0 };
        // SAFETY: the caller's contract.
        let matcher = unsafe { matcher_at(matcher) }?;
        character.match_motion(&stored.asset, matcher, &desired).map_err(crate::jobs::job_status)
    })();
    match found {
        Ok(found) => {
            // SAFETY: not NULL; writable by the caller's contract.
            unsafe {
                searched.write_unaligned(u32::from(found.is_some()));
                if let Some(found) = found {
                    out.write_unaligned(match_of(&found));
                }
            }
            SINEW_OK
        }
        Err(status) => status,
    }
}
