//! The motion-matched base layer: [`MotionMatcher`] and [`Character::match_motion`].

use super::Character;
use super::desc::{Blend, Play};
use super::frame::base_leader;
use crate::data::asset::Asset;
use crate::data::motion_database::{FRAME_EXCLUDED, MotionDatabase};
use crate::error::{Buffer, Error, check_len};
use crate::limits::{MAX_FEATURE_DIMS, MAX_FEATURE_GROUPS, MAX_JOINTS};
use crate::math::{Mat4, Vec3};
use crate::motion::control::Wrap;
use crate::motion::motion_matching::{MotionMatch, MotionSearchJob, SearchMethod, TagFilter};
use crate::motion::root_motion::RootMotion;
use crate::stages::inertialization::Transition;
use bytemuck::{Pod, Zeroable};

/// How a motion-matched base searches and enters its matches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatcherSettings {
    /// Seconds between searches (finite, > 0; the anchors use 0.1).
    pub interval: f32,
    /// Seconds of the inertialized transition into a match (finite, > 0).
    pub transition: f32,
    /// How much cheaper than the playing frame a jump must be (normalized cost, finite, >= 0).
    pub continuing_bias: f32,
    /// Frames either side of the playing frame, in its clip, not jumped to.
    pub exclude_window: usize,
    /// Which tags a frame must and must not have.
    pub filter: TagFilter,
    /// Brute force or pruned (the same answer).
    pub method: SearchMethod,
}

impl Default for MatcherSettings {
    /// Every 0.1 s, a 0.2 s transition, a bias of 0.01 and 10 frames either side (a third of a second at 30 Hz).
    fn default() -> MatcherSettings {
        MatcherSettings {
            interval: 0.1,
            transition: 0.2,
            continuing_bias: 0.01,
            exclude_window: 10,
            filter: TagFilter::ALL,
            method: SearchMethod::Pruned,
        }
    }
}

/// What the game wants, in the character's frame (`[x, z]` on the ground, the asset's units): the future
/// positions and unit facings at the database's trajectory sample times, in the schema's order.
#[derive(Clone, Copy, Debug)]
pub struct DesiredTrajectory<'t> {
    /// One per `trajectory_position` sample, relative to the character's root.
    pub positions: &'t [[f32; 2]],
    /// One per `trajectory_facing` sample.
    pub facings: &'t [[f32; 2]],
}

/// Where one feature group's values come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Read {
    Position(usize),
    Velocity(usize),
    TrajectoryPosition,
    TrajectoryFacing,
}

/// A matcher's state as it works on it: [`MotionMatcher`] checked and unpacked.
#[derive(Clone, Copy, Debug)]
struct State {
    settings: MatcherSettings,
    reads: [Read; MAX_FEATURE_GROUPS],
    groups: usize,
    group_lens: [u32; MAX_FEATURE_GROUPS],
    dims: usize,
    /// Each group's joint position after the update `seen` (groups without a joint: unused).
    previous: [Vec3; MAX_FEATURE_GROUPS],
    /// The character's update count at the last call.
    seen: Option<u32>,
    since_search: f32,
    requested: bool,
    query: [f32; MAX_FEATURE_DIMS],
    last: Option<MotionMatch>,
}

/// Motion matching as the character's base layer: every `interval` seconds (or when asked, or when the playing
/// frame may no longer continue) the character's pose and the game's desired trajectory make a query, the
/// asset's motion database is searched ([`MotionSearchJob`]), and a better frame than the one playing is entered
/// through an inertialized transition (Clavet's For Honor scheme; Holden's demo).
///
/// **The query.** The database names its feature groups (`sinew-bake … --motion-database`): a group
/// `position:J` is joint `J`'s model-space position (the pose keeps the motion root at the identity, so model
/// space is the character's frame); `velocity:J` is its velocity over the last update, the previous position
/// carried into the current frame by the update's root motion; `trajectory_position` and `trajectory_facing`
/// come from the game, in the character's frame, at the schema's sample times
/// ([`SpringState::relative_to`](crate::motion::trajectory::SpringState::relative_to) turns a spring's
/// prediction into that). The baker differentiates velocities centrally, the matcher over the last update; on
/// the first update a matcher sees (or after a skipped one) velocities read 0.
///
/// **The search.** The playing frame is the base control with the most weight, at its clip and time
/// ([`MotionDatabase::frame_at`]); its cost less the continuing bias is the bound a jump must beat, and frames
/// of its clip within `exclude_window` of it are not taken. A jump plays the match in base slot 0 at speed 1,
/// clamped, and the other base controls stop; the inertializer removes the pose's offset and the root motion's
/// velocity carries across.
///
/// Layout: plain caller memory (`repr(C)`, `Pod`, 1 036 bytes, 4-byte aligned, no pointers), one per
/// character: the groups it resolved once, the tracked joints' last positions, the timer, the settings, the last
/// query and match. A byte copy is the same matcher; every call checks the bytes first (`StateMismatch` for any
/// that no matcher holds), so a damaged one is refused, never trusted. Units: seconds, the asset's length unit.
/// Errors: see [`Character::match_motion`]; on an `Err` neither the character nor the matcher changes.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct MotionMatcher {
    magic: u32,
    groups: u32,
    dims: u32,
    /// `SEEN`, `REQUESTED`, `HAS_LAST`.
    flags: u32,
    /// The character's update count at the last call (with `SEEN`).
    seen: u32,
    since_search: f32,
    interval: f32,
    transition: f32,
    continuing_bias: f32,
    exclude_window: u32,
    require_tags: u32,
    exclude_tags: u32,
    /// `SearchMethod as u32`.
    method: u32,
    last_frame: u32,
    last_clip: u32,
    last_time: f32,
    last_cost: f32,
    last_continuing: u32,
    last_blocks_read: u32,
    /// Per group, `READ_*`.
    kinds: [u32; MAX_FEATURE_GROUPS],
    joints: [u32; MAX_FEATURE_GROUPS],
    group_lens: [u32; MAX_FEATURE_GROUPS],
    previous: [[f32; 3]; MAX_FEATURE_GROUPS],
    last_group_costs: [f32; MAX_FEATURE_GROUPS],
    query: [f32; MAX_FEATURE_DIMS],
}

const _: () = assert!(size_of::<MotionMatcher>() == 1036 && align_of::<MotionMatcher>() == 4);

/// "MMAT": a matcher's first word.
const MATCHER_MAGIC: u32 = u32::from_le_bytes(*b"MMAT");
const SEEN: u32 = 1;
const REQUESTED: u32 = 2;
const HAS_LAST: u32 = 4;
const READ_POSITION: u32 = 0;
const READ_VELOCITY: u32 = 1;
const READ_TRAJECTORY_POSITION: u32 = 2;
const READ_TRAJECTORY_FACING: u32 = 3;

impl MotionMatcher {
    /// A matcher for `asset`'s database that searches on its first call.
    ///
    /// Errors: `NoMotionDatabase`; `UnreadableFeatureGroup` for a group it cannot fill; `InvalidSearch` for
    /// bad settings.
    pub fn new(asset: &Asset<'_>, settings: MatcherSettings) -> Result<MotionMatcher, Error> {
        Ok(State::new(asset, settings)?.packed())
    }

    /// The settings.
    ///
    /// Errors: `StateMismatch` for bytes no matcher holds.
    pub fn settings(&self) -> Result<MatcherSettings, Error> {
        Ok(self.unpacked()?.settings)
    }

    /// Changes the settings from the next call.
    ///
    /// Errors: `InvalidSearch`; `StateMismatch`; nothing changes.
    pub fn set_settings(&mut self, settings: MatcherSettings) -> Result<(), Error> {
        check_settings(&settings)?;
        let mut state = self.unpacked()?;
        state.settings = settings;
        *self = state.packed();
        Ok(())
    }

    /// Searches on the next call whatever the timer says (the stick changed, a gameplay event).
    pub fn request(&mut self) {
        self.flags |= REQUESTED;
    }

    /// How many trajectory positions and facings a [`DesiredTrajectory`] holds for this database.
    ///
    /// Errors: `StateMismatch`.
    pub fn trajectory_samples(&self) -> Result<(usize, usize), Error> {
        let state = self.unpacked()?;
        Ok(state.trajectory_samples())
    }

    /// The query the last call read, searched or not: raw, in the database's dimension order (empty before the
    /// first call or for bytes no matcher holds).
    pub fn last_query(&self) -> &[f32] {
        match self.flags & SEEN != 0 {
            true => self.query.get(..self.dims as usize).unwrap_or(&[]),
            false => &[],
        }
    }

    /// The last search's answer.
    ///
    /// Errors: `StateMismatch`.
    pub fn last_match(&self) -> Result<Option<MotionMatch>, Error> {
        Ok(self.unpacked()?.last)
    }

    /// The state, checked: `StateMismatch` for a field no matcher holds.
    fn unpacked(&self) -> Result<State, Error> {
        let mismatch = Error::StateMismatch;
        let groups = self.groups as usize;
        let dims = self.dims as usize;
        if self.magic != MATCHER_MAGIC || !(1..=MAX_FEATURE_GROUPS).contains(&groups) || dims > MAX_FEATURE_DIMS {
            return Err(mismatch);
        }
        let method = match self.method {
            m if m == SearchMethod::BruteForce as u32 => SearchMethod::BruteForce,
            m if m == SearchMethod::Pruned as u32 => SearchMethod::Pruned,
            _ => return Err(mismatch),
        };
        let settings = MatcherSettings {
            interval: self.interval,
            transition: self.transition,
            continuing_bias: self.continuing_bias,
            exclude_window: self.exclude_window as usize,
            filter: TagFilter { require: self.require_tags, exclude: self.exclude_tags },
            method,
        };
        check_settings(&settings).map_err(|_| mismatch)?;
        let flags_ok = self.flags & !(SEEN | REQUESTED | HAS_LAST) == 0 && self.last_continuing <= 1;
        if !(flags_ok && self.since_search.is_finite() && self.since_search >= 0.0) {
            return Err(mismatch);
        }
        let mut reads = [Read::TrajectoryPosition; MAX_FEATURE_GROUPS];
        let mut total = 0;
        for (g, read) in reads.iter_mut().enumerate().take(groups) {
            let (len, joint) = (self.group_lens[g] as usize, self.joints[g] as usize);
            let jointed = len == 3 && joint < MAX_JOINTS;
            let paired = len > 0 && len.is_multiple_of(2);
            *read = match self.kinds[g] {
                READ_POSITION if jointed => Read::Position(joint),
                READ_VELOCITY if jointed => Read::Velocity(joint),
                READ_TRAJECTORY_POSITION if paired => Read::TrajectoryPosition,
                READ_TRAJECTORY_FACING if paired => Read::TrajectoryFacing,
                _ => return Err(mismatch),
            };
            total += len;
        }
        if total != dims {
            return Err(mismatch);
        }
        let last = (self.flags & HAS_LAST != 0).then_some(MotionMatch {
            frame: self.last_frame as usize,
            clip: self.last_clip,
            time: self.last_time,
            cost: self.last_cost,
            continuing: self.last_continuing == 1,
            group_costs: self.last_group_costs,
            blocks_read: self.last_blocks_read as usize,
        });
        Ok(State {
            settings,
            reads,
            group_lens: self.group_lens,
            groups,
            dims,
            previous: self.previous.map(|[x, y, z]| Vec3::new(x, y, z)),
            seen: (self.flags & SEEN != 0).then_some(self.seen),
            since_search: self.since_search,
            requested: self.flags & REQUESTED != 0,
            query: self.query,
            last,
        })
    }
}

impl State {
    /// See [`MotionMatcher::new`].
    fn new(asset: &Asset<'_>, settings: MatcherSettings) -> Result<State, Error> {
        check_settings(&settings)?;
        let db = asset.motion_database().ok_or(Error::NoMotionDatabase)?;
        let skeleton = asset.skeleton();
        let mut reads = [Read::TrajectoryPosition; MAX_FEATURE_GROUPS];
        let mut group_lens = [0; MAX_FEATURE_GROUPS];
        for (g, group) in db.groups().iter().enumerate() {
            let name = asset.feature_group_name(g).unwrap_or("");
            let joint = |prefix: &str| name.strip_prefix(prefix).and_then(|joint| skeleton.find(joint));
            let len = group.len as usize;
            group_lens[g] = group.len;
            reads[g] = match (joint("position:"), joint("velocity:"), name) {
                (Some(j), _, _) if len == 3 => Read::Position(j),
                (_, Some(j), _) if len == 3 => Read::Velocity(j),
                (_, _, "trajectory_position") if len.is_multiple_of(2) => Read::TrajectoryPosition,
                (_, _, "trajectory_facing") if len.is_multiple_of(2) => Read::TrajectoryFacing,
                _ => return Err(Error::UnreadableFeatureGroup { group: g }),
            };
        }
        Ok(State {
            settings,
            reads,
            group_lens,
            groups: db.groups().len(),
            dims: db.dims(),
            previous: [Vec3::ZERO; MAX_FEATURE_GROUPS],
            seen: None,
            since_search: 0.0,
            requested: true,
            query: [0.0; MAX_FEATURE_DIMS],
            last: None,
        })
    }

    /// Trajectory positions and facings the groups take.
    fn trajectory_samples(&self) -> (usize, usize) {
        let samples = |kind: Read| {
            let groups = self.reads[..self.groups].iter().zip(&self.group_lens);
            groups.filter(|(read, _)| **read == kind).map(|(_, &len)| len as usize / 2).sum()
        };
        (samples(Read::TrajectoryPosition), samples(Read::TrajectoryFacing))
    }

    /// The state in its plain form.
    fn packed(&self) -> MotionMatcher {
        let mut kinds = [0; MAX_FEATURE_GROUPS];
        let mut joints = [0; MAX_FEATURE_GROUPS];
        for (g, read) in self.reads[..self.groups].iter().enumerate() {
            (kinds[g], joints[g]) = match *read {
                Read::Position(j) => (READ_POSITION, j as u32),
                Read::Velocity(j) => (READ_VELOCITY, j as u32),
                Read::TrajectoryPosition => (READ_TRAJECTORY_POSITION, 0),
                Read::TrajectoryFacing => (READ_TRAJECTORY_FACING, 0),
            };
        }
        let flag = |on: bool, bit: u32| if on { bit } else { 0 };
        let last = self.last.unwrap_or(MotionMatch {
            frame: 0,
            clip: 0,
            time: 0.0,
            cost: 0.0,
            continuing: false,
            group_costs: [0.0; MAX_FEATURE_GROUPS],
            blocks_read: 0,
        });
        let settings = &self.settings;
        MotionMatcher {
            magic: MATCHER_MAGIC,
            groups: self.groups as u32,
            dims: self.dims as u32,
            flags: flag(self.seen.is_some(), SEEN)
                | flag(self.requested, REQUESTED)
                | flag(self.last.is_some(), HAS_LAST),
            seen: self.seen.unwrap_or(0),
            since_search: self.since_search,
            interval: settings.interval,
            transition: settings.transition,
            continuing_bias: settings.continuing_bias,
            exclude_window: u32::try_from(settings.exclude_window).unwrap_or(u32::MAX),
            require_tags: settings.filter.require,
            exclude_tags: settings.filter.exclude,
            method: settings.method as u32,
            last_frame: last.frame as u32,
            last_clip: last.clip,
            last_time: last.time,
            last_cost: last.cost,
            last_continuing: u32::from(last.continuing),
            last_blocks_read: u32::try_from(last.blocks_read).unwrap_or(u32::MAX),
            kinds,
            joints,
            group_lens: self.group_lens,
            previous: self.previous.map(|v| [v.x, v.y, v.z]),
            last_group_costs: last.group_costs,
            query: self.query,
        }
    }

    /// The database frame at the leading base control's `clip` and `time`, when it may continue.
    fn playing(db: &MotionDatabase<'_>, clip: u32, time: f32) -> Option<usize> {
        db.frame_at(clip, time).filter(|&f| db.entry(f).is_some_and(|e| e.flags & FRAME_EXCLUDED == 0))
    }

    /// Fills `query` from the character's last update (`pose`, when `pose.fresh`) and from `desired`, and `now`
    /// with the tracked joints' positions; velocities read 0 unless `pose.consecutive`.
    fn read(
        &self,
        pose: &PoseRead<'_>,
        desired: &DesiredTrajectory<'_>,
        query: &mut [f32; MAX_FEATURE_DIMS],
        now: &mut [Vec3; MAX_FEATURE_GROUPS],
    ) -> Result<(), Error> {
        let (mut at, mut positions, mut facings) = (0, desired.positions.iter(), desired.facings.iter());
        for (g, read) in self.reads[..self.groups].iter().enumerate() {
            let len = self.group_lens[g] as usize;
            let values = &mut query[at..at + len];
            at += len;
            let joint = match *read {
                Read::Position(j) | Read::Velocity(j) => j,
                Read::TrajectoryPosition | Read::TrajectoryFacing => {
                    let samples = if *read == Read::TrajectoryPosition { &mut positions } else { &mut facings };
                    for pair in values.chunks_exact_mut(2) {
                        pair.copy_from_slice(samples.next().ok_or(Error::StateMismatch)?);
                    }
                    continue;
                }
            };
            if !pose.fresh {
                continue;
            }
            now[g] = pose.model.get(joint).ok_or(Error::StateMismatch)?.translation();
            let v = match *read {
                Read::Velocity(_) if pose.consecutive && pose.dt > 0.0 => {
                    // The previous position in the current frame: the root moved by `motion` since.
                    let (m, before) = (pose.motion, self.previous[g]);
                    (now[g] - RootMotion::turn(-m.yaw, before - m.translation)).scaled(1.0 / pose.dt)
                }
                Read::Velocity(_) => Vec3::ZERO,
                _ => now[g],
            };
            values.copy_from_slice(&[v.x, v.y, v.z]);
        }
        Ok(())
    }
}

/// The character's last update as the matcher reads it.
struct PoseRead<'m> {
    model: &'m [Mat4],
    motion: RootMotion,
    dt: f32,
    /// An update the matcher has not read yet.
    fresh: bool,
    /// The update right after the one the matcher read last.
    consecutive: bool,
}

fn check_settings(settings: &MatcherSettings) -> Result<(), Error> {
    let positive = |x: f32| x.is_finite() && x > 0.0;
    let bias = settings.continuing_bias;
    if positive(settings.interval) && positive(settings.transition) && bias.is_finite() && bias >= 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidSearch)
    }
}

impl Character<'_> {
    /// One frame of motion matching, after [`Character::update`] (see [`MotionMatcher`]): reads the pose part of the
    /// query, and when the timer is due, a search was requested or the playing frame may not continue, searches
    /// and enters a better frame through the inertializer. Returns the search's answer when one ran.
    ///
    /// Errors: `NoMotionDatabase`; `StateMismatch` when the asset's database is not the matcher's or the
    /// character's skeleton is not the asset's; `NoInertializer`; `BufferLength` (`TrajectoryPositions`,
    /// `TrajectoryFacings`) for a trajectory of other than [`MotionMatcher::trajectory_samples`];
    /// `InvalidTrajectory` for a value in it that is not finite; the search's errors (`InvalidFeatureQuery`
    /// for a pose beyond the database's range, `NoCandidate`); the transition's. Nothing changes on an `Err`.
    pub fn match_motion(
        &mut self,
        asset: &Asset<'_>,
        matcher: &mut MotionMatcher,
        desired: &DesiredTrajectory<'_>,
    ) -> Result<Option<MotionMatch>, Error> {
        let db = asset.motion_database().ok_or(Error::NoMotionDatabase)?;
        let mut state = matcher.unpacked()?;
        let same_groups = db.groups().len() == state.groups
            && db.groups().iter().zip(&state.group_lens).all(|(g, &len)| g.len == len);
        if db.dims() != state.dims || !same_groups {
            return Err(Error::StateMismatch);
        }
        if self.counts.inertialization.is_none() {
            return Err(Error::NoInertializer);
        }
        let (positions, facings) = state.trajectory_samples();
        check_len(Buffer::TrajectoryPositions, positions, desired.positions.len())?;
        check_len(Buffer::TrajectoryFacings, facings, desired.facings.len())?;
        if !desired.positions.iter().chain(desired.facings).flatten().all(|x| x.is_finite()) {
            return Err(Error::InvalidTrajectory);
        }
        let (updates, dt, playing) = {
            let (parts, _) = self.parts()?;
            let leader = base_leader(parts.controls, &parts.layers[0]).map(|i| parts.controls[i].control);
            (parts.header.updates, parts.header.last_dt, leader.map(|c| (c.clip(), c.time())))
        };
        let fresh = state.seen != Some(updates);
        let consecutive = state.seen.is_some_and(|seen| updates == seen.wrapping_add(1));
        let (mut query, mut now) = (state.query, state.previous);
        let pose = PoseRead { model: self.model(), motion: self.root_motion(), dt, fresh, consecutive };
        state.read(&pose, desired, &mut query, &mut now)?;
        let since = if fresh { state.since_search + dt } else { state.since_search };
        let current = playing.and_then(|(clip, time)| State::playing(db, clip, time));
        let due = state.requested || current.is_none() || since >= state.settings.interval;
        let mut found = None;
        if due {
            let settings = state.settings;
            let job = MotionSearchJob {
                current,
                exclude_window: settings.exclude_window,
                continuing_bias: settings.continuing_bias,
                filter: settings.filter,
                method: settings.method,
                ..MotionSearchJob::new(db, &query[..state.dims])
            };
            let best = job.run()?;
            if !best.continuing {
                let play = Play { time: best.time, wrap: Wrap::Clamp, ..Play::looping(best.clip as usize) };
                let transition = Transition { duration: settings.transition, profile: None };
                self.transition(asset, 0, play, Blend::Inertialize(transition))?;
            }
            found = Some(best);
        }
        state.query = query;
        state.previous = now;
        state.seen = Some(updates);
        if let Some(best) = found {
            (state.since_search, state.requested, state.last) = (0.0, false, Some(best));
        } else {
            state.since_search = since;
        }
        *matcher = state.packed();
        Ok(found)
    }
}
