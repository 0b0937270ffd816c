//! The main job's motion-matched crowd: every character a [`sinew::Character`] whose base layer is driven by a
//! [`MotionMatcher`] over a database baked from the workload's clip, and a stick per character.
//!
//! **The library.** The workload's clip looped into [`TAKES`] takes of [`TAKE_SECONDS`], each walked along its
//! own path: a speed and a turn rate that swings from side to side, as a motion-capture shoot's walks and turns do
//! (on top of whatever the clip itself moves). Root motion is extracted and Holden's 27-dimension database
//! baked from them. **The crowd.** Each character follows its own stick (heading and speed changing every few
//! seconds), predicted by the trajectory spring, and searches every 0.1 s; the first searches are staggered
//! over six frames, so a sixth of the crowd searches each frame, as a game spreads them.
//!
//! Timed per frame over the whole crowd: the updates (`Character::update_with_scratch`: sampling, blending,
//! inertialization, local-to-model, palette) and the matching (`Character::match_motion`: the pose read, the
//! search when due, the transition). `search_share` is the matching's share of the two.

use crate::workload::Workload;
use sinew::character::{
    Character, CharacterDesc, Chunk, DesiredTrajectory, LayerDesc, LayerKind, MatcherSettings, MotionMatcher, Play,
    Rig, Scratch, SlotId,
};
use sinew::control::Wrap;
use sinew::inertialization::Settings;
use sinew::math::{Quat, Transform, Vec3};
use sinew::root_motion::RootMotion;
use sinew::skin::Skin;
use sinew::trajectory::{Desired, SpringState, TrajectorySpring};
use sinew_tools::features::{Schema, TRAJECTORY_SECONDS};
use sinew_tools::raw::{Extras, RawAnnotations, RawClip};
use std::time::Instant;

/// Takes in the library.
pub const TAKES: usize = 8;
/// Seconds of each take.
pub const TAKE_SECONDS: f32 = 10.0;
/// The game's frame step.
const DT: f32 = 1.0 / 60.0;
/// Frames over which the crowd's first searches are spread (the search interval at 60 Hz).
const STAGGER: usize = 6;

/// What the motion-matched crowd measured.
#[derive(Clone, Debug)]
pub struct MatchedReport {
    pub characters: usize,
    /// Database frames and feature dimensions.
    pub database_frames: usize,
    pub dims: usize,
    /// Median crowd frame's updates, per character.
    pub update_us: f64,
    /// Median crowd frame's matching (every character's `match_motion`), per character.
    pub matching_us: f64,
    /// `matching_us / (update_us + matching_us)`.
    pub search_share: f64,
    /// Searches per crowd frame (mean) and jumps per character per second.
    pub searches_per_frame: f64,
    pub jumps_per_character_s: f64,
}

/// The library's takes: `clip` looped to [`TAKE_SECONDS`] and walked along take `k`'s path at `speed` file units
/// per second.
fn takes(clip: &RawClip, speed: f32) -> Vec<RawClip> {
    let frames = (TAKE_SECONDS * clip.sample_rate).round() as usize;
    (0..TAKES)
        .map(|k| {
            let pace = speed * (0.5 + k as f32 / (TAKES - 1) as f32);
            let swing = (k as f32 * 25.0 - 60.0).to_radians();
            let (mut position, mut yaw) = (Vec3::ZERO, 0.0f32);
            let frames: Vec<Vec<Transform>> = (0..frames)
                .map(|f| {
                    let t = f as f32 / clip.sample_rate;
                    let mut pose = clip.frames[f % clip.frames.len()].clone();
                    // The path: turning at `swing` rad/s, its sign flipping every 2.5 s.
                    let turn = if ((t / 2.5) as usize).is_multiple_of(2) { swing } else { -swing };
                    let path = RootMotion { translation: position, yaw };
                    let root = &mut pose[0];
                    let half = yaw / 2.0;
                    let turned = Quat::new(0.0, half.sin(), 0.0, half.cos());
                    root.translation = path.translation + RootMotion::turn(yaw, root.translation);
                    root.rotation = turned * root.rotation;
                    position = position + RootMotion::turn(yaw, Vec3::new(0.0, 0.0, pace / clip.sample_rate));
                    yaw += turn / clip.sample_rate;
                    pose
                })
                .collect();
            RawClip { name: format!("take{k}"), frames, ..clip.clone() }
        })
        .collect()
}

/// The stick of character `c` at `t`: a heading and a pace changing every 3 s, its own sequence.
fn stick(c: usize, t: f32, speed: f32) -> Desired {
    let phase = (t / 3.0) as usize + c;
    let yaw = ((phase * 7919 + c * 104_729) % 628) as f32 / 100.0;
    let pace = speed * [0.6, 1.0, 1.4, 0.8][phase % 4];
    Desired { velocity: [pace * yaw.sin(), pace * yaw.cos()], yaw }
}

/// Builds the library and the crowd on `w` and runs it for `frames` frames (after two warm-up frames).
///
/// Errors: a workload whose skeleton has no hips to extract root motion from or no left and right feet to
/// measure (the message says which), and the runtime's errors.
pub fn measure(w: &Workload, characters: usize, frames: usize) -> Result<MatchedReport, String> {
    let err = |e: sinew::Error| e.to_string();
    // A walking pace of 1.4 m/s on the figure.
    let speed =
        140.0 * sinew_tools::annotate::figure_scale(&w.skeleton, std::slice::from_ref(&w.clip)).units_per_cm() as f32;
    let library = takes(&w.clip, speed);
    let (skeleton, clips) = sinew_tools::root_motion::extract(&w.skeleton, &library, &Default::default())?;
    let schema = Schema::default_for(&skeleton)?;
    let annotations = vec![RawAnnotations::default(); clips.len()];
    let database = sinew_tools::features::build(&skeleton, &clips, &annotations, &schema)?;
    let extras = Extras { motion_database: Some(database), ..Default::default() };
    let blob = sinew_tools::bake::bake_with(&skeleton, &clips, w.keys, &extras)?;
    let asset = sinew::Asset::load(blob.bytes()).map_err(err)?;
    let db = asset.motion_database().ok_or("the blob lost its database")?;
    let n = asset.skeleton().num_joints();
    let remap: Vec<u16> = w.skin_remap.iter().map(|j| j + 1).collect();
    let skin = Skin::new(n, &remap, &w.inverse_bind).map_err(err)?;
    let rig = Rig::new(&asset, Some(&skin)).map_err(err)?;

    const LAYERS: [LayerDesc; 1] = [LayerDesc { kind: LayerKind::Base, controls: 1 }];
    let desc = CharacterDesc {
        num_joints: n,
        num_skin_joints: skin.num_joints(),
        layers: &LAYERS,
        num_masks: 0,
        num_curves: 0,
        inertialization: Some(Settings::default()),
        scratch: Scratch::External,
        sampling: Default::default(),
        interpolation: sinew::Interpolation::Linear,
    };
    let bytes = Character::required_bytes(&desc).map_err(err)?;
    let mut memory = vec![Chunk::ZERO; Chunk::count(bytes) * characters];
    let mut crowd = Vec::with_capacity(characters);
    for (c, block) in Chunk::bytes_mut(&mut memory).chunks_mut(bytes).enumerate() {
        let mut character = Character::new(block, &desc).map_err(err)?;
        let play = Play { time: (c as f32 * 0.37) % 5.0, wrap: Wrap::Clamp, ..Play::looping(c % TAKES) };
        character.play(&asset, SlotId::base(0), play).map_err(err)?;
        crowd.push(character);
    }
    let mut scratch_memory = vec![Chunk::ZERO; Chunk::count(Character::scratch_bytes(&desc).map_err(err)?)];
    let scratch = Chunk::bytes_mut(&mut scratch_memory);
    let matcher = MotionMatcher::new(&asset, MatcherSettings::default()).map_err(err)?;
    let mut matchers = vec![matcher; characters];
    let spring = TrajectorySpring::default();
    let mut worlds = vec![RootMotion::IDENTITY; characters];
    let mut springs = vec![SpringState::default(); characters];
    let times = TRAJECTORY_SECONDS.map(|s| s as f32);
    let (mut ahead, mut positions, mut facings) = ([SpringState::default(); 3], [[0.0; 2]; 3], [[0.0; 2]; 3]);
    let (mut update_samples, mut matching_samples) = (Vec::new(), Vec::new());
    let (mut searches, mut jumps) = (0usize, 0usize);
    for f in 0..frames + 2 {
        let t = f as f32 * DT;
        let start = Instant::now();
        for (character, world) in crowd.iter_mut().zip(&mut worlds) {
            character.update_with_scratch(DT, &rig, scratch).map_err(err)?;
            *world = world.then(character.root_motion());
        }
        let updated = Instant::now();
        for (c, character) in crowd.iter_mut().enumerate() {
            let desired = stick(c, t, speed);
            springs[c] = spring.step(&springs[c], desired, DT).map_err(err)?;
            springs[c].position = [worlds[c].translation.x, worlds[c].translation.z];
            if f < c % STAGGER {
                continue;
            }
            spring.predict(&springs[c], desired, &times, &mut ahead).map_err(err)?;
            for ((p, q), s) in positions.iter_mut().zip(&mut facings).zip(&ahead) {
                (*p, *q) = s.relative_to(worlds[c]);
            }
            let trajectory = DesiredTrajectory { positions: &positions, facings: &facings };
            if let Some(found) = character.match_motion(&asset, &mut matchers[c], &trajectory).map_err(err)? {
                searches += usize::from(f >= 2);
                jumps += usize::from(f >= 2 && !found.continuing);
            }
        }
        let matched = Instant::now();
        if f >= 2 {
            update_samples.push((updated - start).as_secs_f64());
            matching_samples.push((matched - updated).as_secs_f64());
        }
    }
    let per_character = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2] * 1e6 / characters as f64
    };
    let (update_us, matching_us) = (per_character(&mut update_samples), per_character(&mut matching_samples));
    Ok(MatchedReport {
        characters,
        database_frames: db.frames(),
        dims: db.dims(),
        update_us,
        matching_us,
        search_share: matching_us / (update_us + matching_us),
        searches_per_frame: searches as f64 / frames as f64,
        jumps_per_character_s: jumps as f64 / (characters as f64 * frames as f64 * f64::from(DT)),
    })
}
