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
use sinew_tools::features::{Feature, Schema, TRAJECTORY_SECONDS};
use sinew_tools::motion_database::{GroupSpec, OwnedDatabase};
use sinew_tools::raw::{RawAnnotations, RawClip, RawSkeleton};
use sinew_tools::stats::percentile;

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
        let names = ["bvh/bandai/dataset-1_walk_normal_001.bvh", "bvh/bandai/dataset-2_run_normal_001.bvh"];
        Source::shared(&names, shape)
    }

    /// CMU 01_01 (2 752 frames at 120 Hz) by `shape`'s schema, or `None` (with a message) without the shared data.
    pub fn cmu(shape: Shape) -> Result<Option<Source>, String> {
        Source::shared(&["bvh/cmu/01_01.bvh"], shape)
    }

    /// The shared data's files `names` (one skeleton), root motion extracted, by `shape`'s schema.
    fn shared(names: &[&str], shape: Shape) -> Result<Option<Source>, String> {
        let Some(dir) = sinew_tools::shared_data_dir() else {
            eprintln!("motion matching: SKIPPED — shared data not found (../shared/data or $SINEW_DATA)");
            return Ok(None);
        };
        let files: Vec<std::path::PathBuf> = names.iter().map(|name| dir.join(name)).collect();
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
        let deviation: Vec<f32> =
            sinew_tools::motion_database::mean_and_deviation(&self.rows, dims).1.iter().map(|&d| d as f32).collect();
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

/// A scripted gamepad: what the stick asks for over time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Path {
    /// The slow speed, the direction turning a full circle every 8 s, facing where it goes.
    Circle,
    /// The fast speed, the direction 45° left then right of +Z, switching every 1.5 s.
    Zigzag,
    /// The fast speed along +Z for 2 s, then standing for 1.5 s, again and again.
    StopStart,
    /// The slow speed to the left then the right, switching every 2 s, always facing +Z.
    Strafe,
}

impl Path {
    /// The stick at `t` seconds for the `slow` and `fast` speeds (units per second).
    fn desired(self, t: f32, slow: f32, fast: f32) -> sinew::trajectory::Desired {
        use sinew::trajectory::Desired;
        let heading = |yaw: f32, speed: f32| Desired { velocity: [speed * yaw.sin(), speed * yaw.cos()], yaw };
        match self {
            Path::Circle => heading(std::f32::consts::TAU * t / 8.0, slow),
            Path::Zigzag => heading(if ((t / 1.5) as u32).is_multiple_of(2) { 0.785 } else { -0.785 }, fast),
            Path::StopStart => match t % 3.5 < 2.0 {
                true => heading(0.0, fast),
                false => Desired { velocity: [0.0, 0.0], yaw: 0.0 },
            },
            Path::Strafe => {
                let side = if ((t / 2.0) as u32).is_multiple_of(2) { 1.0 } else { -1.0 };
                Desired { velocity: [side * slow, 0.0], yaw: 0.0 }
            }
        }
    }
}

/// How `run_matching` drives the character.
#[derive(Clone, Copy, Debug)]
pub struct MatchingOptions {
    /// Seconds of the script.
    pub seconds: f32,
    /// Seconds between searches (Holden and the issue: 0.1).
    pub search_every: f32,
    /// The inertialized transition into a match, seconds.
    pub transition: f32,
    /// How much cheaper than the playing frame a jump must be.
    pub continuing_bias: f32,
    /// Seconds either side of the playing frame (in its clip) not jumped to.
    pub exclude_seconds: f32,
}

impl Default for MatchingOptions {
    fn default() -> MatchingOptions {
        MatchingOptions {
            seconds: 20.0,
            search_every: 0.1,
            transition: 0.2,
            continuing_bias: 0.01,
            exclude_seconds: 0.33,
        }
    }
}

/// One displayed frame of a run.
#[derive(Clone, Debug)]
pub struct MatchedFrame {
    pub t: f32,
    /// Where the stick's path (the spring, never corrected toward the character) is, file units.
    pub desired: [f32; 2],
    /// Where the character's root is, file units.
    pub root: [f32; 2],
    pub clip: usize,
    pub time: f32,
    /// The last search's cost.
    pub cost: f32,
}

/// What a run measured (see the guide for each definition).
#[derive(Clone, Debug, Default)]
pub struct MatchingSummary {
    pub frames: usize,
    pub searches: usize,
    pub matches_per_s: f64,
    pub cost_mean: f64,
    pub cost_p95: f64,
    pub group_cost_mean: Vec<(String, f64)>,
    pub path_error_cm_median: f64,
    pub path_error_cm_p95: f64,
    pub slide_cm_per_s_mean: f64,
    pub search_ns_median: f64,
    pub exact: bool,
}

/// A run: its summary, its frames, per second the matches taken and the mean cost, and every search it made
/// (what the benches replay as gamepad queries).
#[derive(Clone, Debug)]
pub struct MatchingRun {
    pub summary: MatchingSummary,
    pub frames: Vec<MatchedFrame>,
    pub per_second: Vec<(usize, f64)>,
    pub queries: Vec<RecordedQuery>,
}

/// One search of a run: the query (raw, in the schema's order) and the database frame playing then, when it could
/// continue (its cost less the bias was the search's first bound).
#[derive(Clone, Debug)]
pub struct RecordedQuery {
    pub query: Vec<f32>,
    pub current: Option<usize>,
}

/// The game's frame step.
const DT: f32 = 1.0 / 60.0;

/// A locomotion library: a skeleton with its root motion extracted, its clips, their foot plants, and the feet
/// (joint indices before the extraction).
#[derive(Clone, Debug)]
pub struct Library {
    pub skeleton: RawSkeleton,
    pub clips: Vec<RawClip>,
    pub annotations: Vec<RawAnnotations>,
    pub feet: Vec<usize>,
}

impl Library {
    /// `files` (one skeleton): plants detected, root motion extracted.
    pub fn load(files: &[std::path::PathBuf]) -> Result<Library, String> {
        use sinew_tools::annotate;
        let (skeleton, clips) = sinew_tools::bvh::load_raw_files(files)?;
        let feet = annotate::foot_joints(&skeleton, &[])?;
        let mut annotations = vec![RawAnnotations::default(); clips.len()];
        for (clip, a) in clips.iter().zip(annotations.iter_mut()) {
            annotate::detect_plants(&skeleton, clip, &feet, annotate::PlantRule::default(), a)?;
        }
        let (skeleton, clips) = sinew_tools::root_motion::extract(&skeleton, &clips, &Default::default())?;
        Ok(Library { skeleton, clips, annotations, feet })
    }

    /// At least `frames` frames of takes: the clips in turn, each walked along its own arc, its root motion's
    /// steps turned by a rate drawn from ±90°/s (the first pass as it is), as a motion-capture shoot's turning walks
    /// and runs are. The poses and plants are the source's.
    pub fn bent(&self, frames: usize, seed: u64) -> Library {
        let mut uniform = uniform_from(seed);
        let (mut clips, mut annotations, mut total) = (Vec::new(), Vec::new(), 0);
        for k in 0.. {
            if total >= frames || self.clips.is_empty() {
                break;
            }
            let source = &self.clips[k % self.clips.len()];
            let rate = if k < self.clips.len() { 0.0 } else { 90f32.to_radians() * uniform() };
            let mut take = source.clone();
            take.name = format!("{}-{k}", source.name);
            for f in 1..take.frames.len() {
                let yaw = rate * f as f32 / source.sample_rate;
                let step = source.frames[f][0].translation - source.frames[f - 1][0].translation;
                let turned = sinew::root_motion::RootMotion::turn(yaw, step);
                let before = take.frames[f - 1][0].translation;
                let root = &mut take.frames[f][0];
                root.translation = sinew::math::Vec3::new(before.x + turned.x, root.translation.y, before.z + turned.z);
                let half = yaw / 2.0;
                root.rotation = sinew::math::Quat::new(0.0, half.sin(), 0.0, half.cos()) * root.rotation;
            }
            total += take.frames.len();
            clips.push(take);
            annotations.push(self.annotations[k % self.clips.len()].clone());
        }
        Library { clips, annotations, ..self.clone() }
    }

    /// Holden's schema over the library.
    pub fn schema(&self) -> Result<Schema, String> {
        Schema::default_for(&self.skeleton)
    }

    /// The motion database of Holden's schema over the library.
    pub fn database(&self) -> Result<OwnedDatabase, String> {
        sinew_tools::features::build(&self.skeleton, &self.clips, &self.annotations, &self.schema()?)
    }
}

/// [`run_library`] over the library `files` make ([`Library::load`]).
pub fn run_matching(files: &[std::path::PathBuf], path: Path, options: MatchingOptions) -> Result<MatchingRun, String> {
    run_library(&Library::load(files)?, path, options)
}

/// Drives a character by `path` over `library`'s database (Holden's schema), searching every `search_every`
/// seconds and entering each match through an inertialized transition. Every search is checked against the
/// brute force.
pub fn run_library(library: &Library, path: Path, options: MatchingOptions) -> Result<MatchingRun, String> {
    use sinew::character::{
        Character, CharacterDesc, DesiredTrajectory, LayerDesc, LayerKind, MatcherSettings, MotionMatcher, Play, Rig,
        Scratch, SlotId,
    };
    use sinew::control::Wrap;
    use sinew::motion_database::FRAME_EXCLUDED;
    use sinew::motion_matching::{MotionSearchJob, SearchMethod};
    use sinew::root_motion::RootMotion;
    use sinew::trajectory::{SpringState, TrajectorySpring};
    use sinew_tools::annotate;
    let err = |e: sinew::Error| e.to_string();
    if !(options.seconds.is_finite() && options.seconds > 0.0 && options.seconds <= 3600.0) {
        return Err(format!("--seconds {}: give a duration in (0, 3600]", options.seconds));
    }
    let Library { skeleton, clips, annotations, feet } = library;
    let schema = library.schema()?;
    let database = library.database()?;
    let extras = sinew_tools::raw::Extras {
        annotations: annotations.clone(),
        motion_database: Some(database),
        ..Default::default()
    };
    let blob = sinew_tools::bake::bake_with(skeleton, clips, sinew_tools::bake::KeyFormat::F32, &extras)?;
    let asset = sinew::Asset::load(blob.bytes()).map_err(err)?;
    let db = asset.motion_database().ok_or("the blob lost its database")?;
    let per_cm = annotate::figure_scale(skeleton, clips).units_per_cm();

    // The speeds the clips move at (a quarter and nine tenths up).
    let mut raw = vec![0.0; db.dims()];
    let horizon = *TRAJECTORY_SECONDS.last().unwrap_or(&1.0) as f32;
    let trajectory_at =
        schema.groups().iter().take_while(|g| g.name != "trajectory_position").map(|g| g.dims).sum::<usize>();
    let mut speeds: Vec<f64> = (0..db.frames())
        .filter_map(|f| {
            db.raw_features(f, &mut raw).ok()?;
            let [x, z] = [raw[trajectory_at + 4], raw[trajectory_at + 5]];
            Some(f64::from((x * x + z * z).sqrt() / horizon))
        })
        .collect();
    let (slow, fast) = (percentile(&mut speeds, 0.25) as f32, percentile(&mut speeds, 0.9) as f32);

    let layers = [LayerDesc { kind: LayerKind::Base, controls: 1 }];
    let desc = CharacterDesc {
        num_joints: skeleton.names.len(),
        num_skin_joints: 0,
        layers: &layers,
        num_masks: 0,
        num_curves: 0,
        inertialization: Some(Default::default()),
        scratch: Scratch::InBlock,
        sampling: Default::default(),
        interpolation: sinew::Interpolation::Linear,
    };
    let mut block = vec![
        sinew::character::Chunk::ZERO;
        sinew::character::Chunk::count(Character::required_bytes(&desc).map_err(err)?)
    ];
    let mut character = Character::new(sinew::character::Chunk::bytes_mut(&mut block), &desc).map_err(err)?;
    let rig = Rig::new(&asset, None).map_err(err)?;
    character.play(&asset, SlotId::base(0), Play { wrap: Wrap::Clamp, ..Play::looping(0) }).map_err(err)?;

    let settings = MatcherSettings {
        interval: options.search_every,
        transition: options.transition,
        continuing_bias: options.continuing_bias,
        exclude_window: (options.exclude_seconds * clips[0].sample_rate).round() as usize,
        ..Default::default()
    };
    let mut matcher = MotionMatcher::new(&asset, settings).map_err(err)?;
    let spring = TrajectorySpring::default();
    let (mut world, mut ideal) = (RootMotion::IDENTITY, SpringState::default());
    let mut anchored = SpringState::default();
    let ground = |v: sinew::math::Vec3| [v.x, v.z];
    let to_world = |world: RootMotion, p: sinew::math::Vec3| world.translation + RootMotion::turn(world.yaw, p);
    let plant_names: Vec<(usize, String)> =
        feet.iter().map(|&f| (f + 1, format!("plant:{}", skeleton.names[f + 1]))).collect();
    let planted: Vec<usize> = plant_names.iter().map(|(j, _)| *j).collect();
    let positions = |character: &Character<'_>, world: RootMotion| -> Vec<sinew::math::Vec3> {
        planted.iter().map(|&j| to_world(world, character.model()[j].translation())).collect()
    };
    let times = trajectory_times(&schema)?;
    let mut previous = positions(&character, world);
    let frames_total = (options.seconds / DT).round() as usize;
    let (mut frames, mut costs, mut search_ns, mut path_errors, mut slides) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut group_sums = vec![0.0f64; db.groups().len()];
    let mut predictions: std::collections::VecDeque<(usize, [f32; 2])> = Default::default();
    let (mut exact, mut matches, mut last_cost) = (true, Vec::new(), 0.0f32);
    let mut queries = Vec::new();
    let mut ahead = vec![SpringState::default(); times.len()];
    for f in 0..frames_total {
        let t = f as f32 * DT;
        let desired = path.desired(t, slow, fast);
        character.update_unskinned(DT, &rig, None).map_err(err)?;
        world = world.then(character.root_motion());
        anchored = spring.step(&anchored, desired, DT).map_err(err)?;
        ideal = spring.step(&ideal, desired, DT).map_err(err)?;
        // The anchored spring starts at the character each frame: its prediction is where the stick asks the
        // character to be from here.
        anchored.position = ground(world.translation);
        spring.predict(&anchored, desired, &times, &mut ahead).map_err(err)?;
        let (trajectory, facings): (Vec<[f32; 2]>, Vec<[f32; 2]>) = ahead.iter().map(|s| s.relative_to(world)).unzip();
        let trajectory = DesiredTrajectory { positions: &trajectory, facings: &facings };
        let control = character.control(SlotId::base(0)).map_err(err)?.ok_or("nothing plays")?;
        let playing = db.frame_at(control.clip(), control.time());
        let playing_open = playing.and_then(|p| db.entry(p)).is_some_and(|e| e.flags & FRAME_EXCLUDED == 0);
        let started = std::time::Instant::now();
        let found = character.match_motion(&asset, &mut matcher, &trajectory).map_err(err)?;
        if let Some(found) = found {
            search_ns.push(started.elapsed().as_nanos() as f64);
            let current = playing.filter(|_| playing_open);
            queries.push(RecordedQuery { query: matcher.last_query().to_vec(), current });
            let mut brute = MotionSearchJob::new(db, matcher.last_query());
            brute.current = current;
            (brute.exclude_window, brute.continuing_bias) = (settings.exclude_window, settings.continuing_bias);
            brute.method = SearchMethod::BruteForce;
            let brute = brute.run().map_err(err)?;
            exact &= brute.frame == found.frame && brute.cost.to_bits() == found.cost.to_bits();
            costs.push(f64::from(found.cost));
            for (sum, c) in group_sums.iter_mut().zip(found.group_costs) {
                *sum += f64::from(c);
            }
            last_cost = found.cost;
            if !found.continuing {
                matches.push(t);
            }
            let mut one_second = [SpringState::default()];
            spring.predict(&anchored, desired, &[1.0], &mut one_second).map_err(err)?;
            predictions.push_back((f + 60, one_second[0].position));
        }
        let now = positions(&character, world);
        // Sliding: a foot's ground speed while the clip playing has it planted.
        let control = character.control(SlotId::base(0)).map_err(err)?.ok_or("nothing plays")?;
        for (k, (_, name)) in plant_names.iter().enumerate() {
            let planted = asset
                .ranges(control.clip() as usize)
                .iter()
                .any(|r| asset.name(r.name) == Some(name.as_str()) && (r.start..=r.end).contains(&control.time()));
            if planted {
                let d = now[k] - previous[k];
                slides.push(f64::from((d.x * d.x + d.z * d.z).sqrt() / DT) / per_cm);
            }
        }
        previous = now;
        while predictions.front().is_some_and(|(due, _)| *due <= f) {
            let (_, p) = predictions.pop_front().unwrap_or_default();
            let (dx, dz) = (p[0] - world.translation.x, p[1] - world.translation.z);
            path_errors.push(f64::from((dx * dx + dz * dz).sqrt()) / per_cm);
        }
        frames.push(MatchedFrame {
            t: t + DT,
            desired: ideal.position,
            root: ground(world.translation),
            clip: control.clip() as usize,
            time: control.time(),
            cost: last_cost,
        });
    }
    let seconds = frames_total as f64 * f64::from(DT);
    let per_second = (0..seconds.ceil() as usize)
        .map(|s| {
            let taken = matches.iter().filter(|&&t| t as usize == s).count();
            let in_second: Vec<f64> =
                frames.iter().filter(|fr| fr.t as usize == s).map(|fr| f64::from(fr.cost)).collect();
            (taken, in_second.iter().sum::<f64>() / in_second.len().max(1) as f64)
        })
        .collect();
    let searches = costs.len();
    let summary = MatchingSummary {
        frames: frames.len(),
        searches,
        matches_per_s: matches.len() as f64 / seconds,
        cost_mean: costs.iter().sum::<f64>() / searches.max(1) as f64,
        cost_p95: percentile(&mut costs, 0.95),
        group_cost_mean: db
            .groups()
            .iter()
            .enumerate()
            .map(|(g, _)| {
                (asset.feature_group_name(g).unwrap_or("").to_string(), group_sums[g] / searches.max(1) as f64)
            })
            .collect(),
        path_error_cm_median: percentile(&mut path_errors, 0.5),
        path_error_cm_p95: percentile(&mut path_errors, 0.95),
        slide_cm_per_s_mean: slides.iter().sum::<f64>() / slides.len().max(1) as f64,
        search_ns_median: percentile(&mut search_ns, 0.5),
        exact,
    };
    Ok(MatchingRun { summary, frames, per_second, queries })
}

/// The trajectory sample times the schema asks for, in order (positions' then facings' groups share them).
fn trajectory_times(schema: &Schema) -> Result<Vec<f32>, String> {
    let mut times = schema.features.iter().filter_map(|f| match f {
        Feature::TrajectoryPosition { seconds, .. } | Feature::TrajectoryFacing { seconds, .. } => Some(seconds),
        _ => None,
    });
    let first = times.next().ok_or("the schema has no trajectory")?;
    if times.any(|t| t != first) || first.iter().any(|&s| s < 0.0) {
        return Err("the scripted paths predict one set of times ahead: the schema samples others".into());
    }
    Ok(first.iter().map(|&s| s as f32).collect())
}

/// The run as the `matching` command's JSON contract: `{"summary": {…}, "frames": [{"t", "desired", "root",
/// "clip", "time", "cost"}]}`.
pub fn matching_json(run: &MatchingRun) -> serde_json::Value {
    let s = &run.summary;
    serde_json::json!({
        "summary": {
            "frames": s.frames,
            "matches_per_s": s.matches_per_s,
            "cost_mean": s.cost_mean,
            "cost_p95": s.cost_p95,
            "path_error_cm_median": s.path_error_cm_median,
            "path_error_cm_p95": s.path_error_cm_p95,
            "slide_cm_per_s_mean": s.slide_cm_per_s_mean,
            "search_ns_median": s.search_ns_median,
            "exact": s.exact,
        },
        "frames": run.frames.iter().map(|f| serde_json::json!({
            "t": f.t, "desired": f.desired, "root": f.root, "clip": f.clip, "time": f.time, "cost": f.cost,
        })).collect::<Vec<_>>(),
    })
}

/// The run as text: per second the matches taken and the mean cost, then the summary and the cost per group.
pub fn matching_text(run: &MatchingRun) -> String {
    let s = &run.summary;
    let mut out = String::from("second  matches  cost (mean)\n");
    for (second, (taken, cost)) in run.per_second.iter().enumerate() {
        out += &format!("{second:>6}  {taken:>7}  {cost:>11.3}\n");
    }
    out += &format!(
        "{} frames, {} searches (every one {} the brute force); {:.1} matches a second; cost mean {:.3}, p95 {:.3}\n",
        s.frames,
        s.searches,
        if s.exact { "the same as" } else { "NOT the same as" },
        s.matches_per_s,
        s.cost_mean,
        s.cost_p95
    );
    let groups: Vec<String> = s.group_cost_mean.iter().map(|(n, c)| format!("{n} {c:.3}")).collect();
    out += &format!("cost per group (mean): {}\n", groups.join(", "));
    out += &format!(
        "path error 1 s ahead: median {:.1} cm, p95 {:.1} cm; planted feet slide {:.2} cm/s; search {:.0} ns (median)",
        s.path_error_cm_median, s.path_error_cm_p95, s.slide_cm_per_s_mean, s.search_ns_median
    );
    out
}

/// The desired and achieved paths seen from above, as SVG at `file`.
pub fn path_svg(run: &MatchingRun, file: &std::path::Path) -> Result<(), String> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", file.display());
    let points = run.frames.iter().flat_map(|f| [f.desired, f.root]);
    let (lo, hi) = points.fold(([f32::MAX; 2], [f32::MIN; 2]), |(lo, hi), p| {
        ([lo[0].min(p[0]), lo[1].min(p[1])], [hi[0].max(p[0]), hi[1].max(p[1])])
    });
    let pad = 0.05 * (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1.0);
    let root = SVGBackend::new(file, (800, 800)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Motion matching: the stick's path and the character's", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(35)
        .y_label_area_size(50)
        .build_cartesian_2d((lo[0] - pad)..(hi[0] + pad), (lo[1] - pad)..(hi[1] + pad))
        .map_err(|e| err(&e))?;
    chart.configure_mesh().x_desc("x (file units)").y_desc("z (file units)").draw().map_err(|e| err(&e))?;
    for (name, color, pick) in [("desired", BLUE, 0), ("root", RED, 1)] {
        let series =
            run.frames.iter().map(|f| if pick == 0 { (f.desired[0], f.desired[1]) } else { (f.root[0], f.root[1]) });
        chart
            .draw_series(LineSeries::new(series, color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    chart.configure_series_labels().border_style(BLACK).draw().map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}
