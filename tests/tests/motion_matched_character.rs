//! The motion-matched base layer: the query it reads from a character against an f64 measurement of the clips,
//! its searches against the brute force, its jumps against the documented inertialized transition, its timer,
//! and its bad input.

use sinew::character::{
    Blend, Character, CharacterDesc, Chunk, DesiredTrajectory, LayerDesc, LayerKind, MatcherSettings, MotionMatcher,
    Play, Rig, Scratch, SlotId,
};
use sinew::control::Wrap;
use sinew::error::{Buffer, Error};
use sinew::inertialization::Transition;
use sinew::math::{Quat, Vec3};
use sinew::motion_database::FRAME_EXCLUDED;
use sinew::motion_matching::{MotionSearchJob, SearchMethod};
use sinew_tests::oracle::{self, M4};
use sinew_tools::raw::{AlignedBlob, Extras, RawAnnotations, RawClip, RawSkeleton};

const RATE: f32 = 30.0;

/// Holden's 27 dimensions over the humanoid's joints.
const HOLDEN: &str = r#"{"features": [
    {"kind": "position", "joint": "LFoot", "weight": 0.75}, {"kind": "position", "joint": "RFoot", "weight": 0.75},
    {"kind": "velocity", "joint": "LFoot", "weight": 1}, {"kind": "velocity", "joint": "RFoot", "weight": 1},
    {"kind": "velocity", "joint": "Hips", "weight": 1},
    {"kind": "trajectory_position", "seconds": [0.3333333, 0.6666667, 1], "weight": 1},
    {"kind": "trajectory_facing", "seconds": [0.3333333, 0.6666667, 1], "weight": 1.5}]}"#;

/// Three 4-second clips of the procedural humanoid whose root walks arcs (its own speed and turn rate each),
/// root motion extracted, baked with Holden's 27 dimensions.
fn walking() -> (AlignedBlob, RawSkeleton, Vec<RawClip>) {
    let rig = sinew_tools::rig::Rig::humanoid(30);
    let skeleton = rig.raw_skeleton();
    let clips: Vec<RawClip> = [(1.2f32, 0.0f32), (1.6, 0.6), (0.8, -0.9)]
        .iter()
        .enumerate()
        .map(|(k, &(speed, turn))| {
            let mut clip = rig.clip(120, RATE);
            clip.name = format!("arc{k}");
            for (f, frame) in clip.frames.iter_mut().enumerate() {
                let t = f as f32 / RATE;
                let yaw = turn * t;
                let (x, z) = if turn == 0.0 {
                    (0.0, speed * t)
                } else {
                    (speed / turn * (1.0 - yaw.cos()), speed / turn * yaw.sin())
                };
                frame[0].translation = Vec3::new(x, 0.0, z);
                frame[0].rotation = Quat::new(0.0, (yaw / 2.0).sin(), 0.0, (yaw / 2.0).cos());
            }
            clip
        })
        .collect();
    let (skeleton, clips) = sinew_tools::root_motion::extract(&skeleton, &clips, &Default::default()).unwrap();
    let schema: sinew_tools::features::Schema = serde_json::from_str(HOLDEN).unwrap();
    let annotations = vec![RawAnnotations::default(); clips.len()];
    let database = sinew_tools::features::build(&skeleton, &clips, &annotations, &schema).unwrap();
    let extras = Extras { motion_database: Some(database), ..Default::default() };
    let blob = sinew_tools::bake::bake_with(&skeleton, &clips, sinew_tools::bake::KeyFormat::F32, &extras).unwrap();
    (blob, skeleton, clips)
}

fn desc(joints: usize, inertialized: bool) -> CharacterDesc<'static> {
    const LAYERS: [LayerDesc; 1] = [LayerDesc { kind: LayerKind::Base, controls: 1 }];
    CharacterDesc {
        num_joints: joints,
        num_skin_joints: 0,
        layers: &LAYERS,
        num_masks: 0,
        num_curves: 0,
        inertialization: inertialized.then(Default::default),
        scratch: Scratch::InBlock,
        sampling: Default::default(),
        interpolation: sinew::Interpolation::Linear,
    }
}

fn block_for(desc: &CharacterDesc<'_>) -> Vec<Chunk> {
    vec![Chunk::ZERO; Chunk::count(Character::required_bytes(desc).unwrap())]
}

fn clamped(clip: usize, time: f32) -> Play {
    Play { time, wrap: Wrap::Clamp, ..Play::looping(clip) }
}

/// The rigid inverse of a model matrix (rotation and translation, unit scale).
fn rigid_inverse(m: &M4) -> M4 {
    let mut inverse = oracle::IDENTITY;
    for r in 0..3 {
        for c in 0..3 {
            inverse[c * 4 + r] = m[r * 4 + c];
        }
    }
    for r in 0..3 {
        inverse[12 + r] = -(0..3).map(|c| inverse[c * 4 + r] * m[12 + c]).sum::<f64>();
    }
    inverse
}

fn point(m: &M4, p: [f64; 3]) -> [f64; 3] {
    core::array::from_fn(|r| m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r])
}

fn translation(m: &M4) -> [f64; 3] {
    [m[12], m[13], m[14]]
}

/// The trajectory the database stored for `frame` (the part a game would predict), as the matcher takes it.
fn stored_trajectory(asset: &sinew::Asset<'_>, frame: usize) -> (Vec<[f32; 2]>, Vec<[f32; 2]>) {
    let db = asset.motion_database().unwrap();
    let mut raw = vec![0.0; db.dims()];
    db.raw_features(frame, &mut raw).unwrap();
    let (mut positions, mut facings) = (Vec::new(), Vec::new());
    for (g, group) in db.groups().iter().enumerate() {
        let values = &raw[group.start as usize..][..group.len as usize];
        let pairs = values.chunks_exact(2).map(|p| [p[0], p[1]]);
        match asset.feature_group_name(g) {
            Some("trajectory_position") => positions.extend(pairs),
            Some("trajectory_facing") => facings.extend(pairs),
            _ => {}
        }
    }
    (positions, facings)
}

/// The walking asset, a rig, an inertialized character of one base slot and a matcher with `settings`.
struct Walking<'w, 'b> {
    asset: &'w sinew::Asset<'w>,
    rig: &'w Rig<'w>,
    character: &'w mut Character<'b>,
    matcher: &'w mut MotionMatcher,
    skeleton: &'w RawSkeleton,
    clips: &'w [RawClip],
}

fn with_walking_character(settings: MatcherSettings, test: impl FnOnce(Walking<'_, '_>)) {
    let (blob, skeleton, clips) = walking();
    let asset = sinew::Asset::load(blob.bytes()).unwrap();
    let rig = Rig::new(&asset, None).unwrap();
    let desc = desc(skeleton.names.len(), true);
    let mut block = block_for(&desc);
    let mut character = Character::new(Chunk::bytes_mut(&mut block), &desc).unwrap();
    let mut matcher = MotionMatcher::new(&asset, settings).unwrap();
    let (asset, rig, character, matcher) = (&asset, &rig, &mut character, &mut matcher);
    test(Walking { asset, rig, character, matcher, skeleton: &skeleton, clips: &clips });
}

#[test]
fn the_query_is_the_pose_an_f64_measurement_of_the_clip_gives() {
    // A huge bias: the matcher always continues, so each clip plays on as the oracle measures it.
    let settings = MatcherSettings { continuing_bias: 1e9, ..Default::default() };
    with_walking_character(settings, |walking| {
        let Walking { asset, rig, character, matcher, skeleton, clips } = walking;
        assert_eq!(matcher.trajectory_samples(), Ok((3, 3)));
        let (positions, facings) = ([[0.0, 1.0]; 3], [[0.0, 1.0]; 3]);
        let desired = DesiredTrajectory { positions: &positions, facings: &facings };
        let groups: Vec<String> = (0..7).map(|g| asset.feature_group_name(g).unwrap().to_string()).collect::<Vec<_>>();
        let joint_of = |g: usize| {
            let name = groups[g].split_once(':').unwrap().1;
            skeleton.names.iter().position(|n| n == name).unwrap()
        };
        let dt = 1.0 / RATE;
        for (clip, raw_clip) in clips.iter().enumerate() {
            let start = 10;
            character.play(asset, SlotId::base(0), clamped(clip, start as f32 / RATE)).unwrap();
            // A huge bias: the matcher always continues, so the clip plays on as the oracle measures it.
            for step in 1..=4 {
                character.update_unskinned(dt, rig, None).unwrap();
                let found = character.match_motion(asset, matcher, &desired).unwrap();
                assert!(found.is_none_or(|m| m.continuing));
                let frame = start + step;
                let model =
                    |f: usize| oracle::local_to_model(&skeleton.parents, &raw_clip.frames[f], &oracle::IDENTITY);
                let (now, before) = (model(frame), model(frame - 1));
                let to_character = rigid_inverse(&now[0]);
                let query = matcher.last_query().to_vec();
                if step == 1 {
                    // Velocities read 0 on the matcher's first update; later clips start with a cut, which a
                    // velocity over the last update cannot see.
                    assert!(clip > 0 || query[6..15].iter().all(|&v| v == 0.0), "{query:?}");
                    continue;
                }
                for g in 0..5 {
                    let j = joint_of(g);
                    let here = point(&to_character, translation(&now[j]));
                    let want = if groups[g].starts_with("position:") {
                        here
                    } else {
                        let there = point(&to_character, translation(&before[j]));
                        core::array::from_fn(|a| (here[a] - there[a]) * f64::from(RATE))
                    };
                    for a in 0..3 {
                        let got = f64::from(query[3 * g + a]);
                        let tolerance = if groups[g].starts_with("position:") { 1e-4 } else { 5e-3 };
                        assert!(
                            (got - want[a]).abs() <= tolerance,
                            "clip {clip} frame {frame} {} axis {a}: {got} vs {}",
                            groups[g],
                            want[a]
                        );
                    }
                }
                assert_eq!(&query[15..21], positions.as_flattened());
                assert_eq!(&query[21..27], facings.as_flattened());
            }
        }
    });
}

#[test]
fn matches_are_the_brute_force_answer_entered_as_the_inertialized_transition() {
    let (blob, skeleton, _) = walking();
    let asset = sinew::Asset::load(blob.bytes()).unwrap();
    let db = asset.motion_database().unwrap();
    let rig = Rig::new(&asset, None).unwrap();
    let desc = desc(skeleton.names.len(), true);
    let (mut block, mut twin_block) = (block_for(&desc), block_for(&desc));
    let mut character = Character::new(Chunk::bytes_mut(&mut block), &desc).unwrap();
    // The twin takes the same jumps by hand: a match must be exactly the documented transition.
    let mut twin = Character::new(Chunk::bytes_mut(&mut twin_block), &desc).unwrap();
    let settings = MatcherSettings { interval: 0.125, exclude_window: 6, ..Default::default() };
    let mut matcher = MotionMatcher::new(&asset, settings).unwrap();
    for c in [&mut character, &mut twin] {
        c.play(&asset, SlotId::base(0), clamped(0, 0.5)).unwrap();
    }
    // Ask for the other clips' trajectories in turn, so the matcher has reasons to jump.
    let asked = [db.frame_at(1, 1.0).unwrap(), db.frame_at(2, 0.7).unwrap(), db.frame_at(0, 0.4).unwrap()];
    let (mut since, mut searches, mut jumps) = (f32::INFINITY, 0, 0);
    let dt = 1.0 / 32.0;
    for step in 0..96 {
        character.update_unskinned(dt, &rig, None).unwrap();
        twin.update_unskinned(dt, &rig, None).unwrap();
        assert_eq!(character.pose(), twin.pose(), "step {step}");
        let (positions, facings) = stored_trajectory(&asset, asked[step / 32]);
        let desired = DesiredTrajectory { positions: &positions, facings: &facings };
        let playing = character.control(SlotId::base(0)).unwrap().unwrap();
        let frame = db.frame_at(playing.clip(), playing.time()).unwrap();
        let open = db.entry(frame).unwrap().flags & FRAME_EXCLUDED == 0;
        since += dt;
        let due = since >= settings.interval || !open;
        let found = character.match_motion(&asset, &mut matcher, &desired).unwrap();
        assert_eq!(found.is_some(), due, "step {step}");
        let Some(found) = found else { continue };
        (since, searches) = (0.0, searches + 1);
        let mut brute = MotionSearchJob::new(db, matcher.last_query());
        brute.current = open.then_some(frame);
        (brute.exclude_window, brute.continuing_bias) = (settings.exclude_window, settings.continuing_bias);
        brute.method = SearchMethod::BruteForce;
        let want = brute.run().unwrap();
        assert_eq!(
            (found.frame, found.cost.to_bits(), found.continuing),
            (want.frame, want.cost.to_bits(), want.continuing)
        );
        let now = character.control(SlotId::base(0)).unwrap().unwrap();
        if found.continuing {
            assert_eq!((now.clip(), now.time()), (playing.clip(), playing.time()));
        } else {
            jumps += 1;
            assert_eq!((now.clip(), now.time()), (found.clip, found.time));
            let transition = Transition { duration: settings.transition, profile: None };
            let play = clamped(found.clip as usize, found.time);
            twin.transition(&asset, 0, play, Blend::Inertialize(transition)).unwrap();
        }
    }
    assert!(searches >= 96 / 4, "{searches} searches");
    assert!(jumps >= 2, "{jumps} jumps: the asked trajectories should pull the character between clips");
}

#[test]
fn a_repeated_call_on_one_update_keeps_the_pose_and_the_timer() {
    let settings = MatcherSettings { continuing_bias: 1e9, ..Default::default() };
    with_walking_character(settings, |walking| {
        let Walking { asset, rig, character, matcher, .. } = walking;
        character.play(asset, SlotId::base(0), clamped(1, 0.3)).unwrap();
        let (positions, facings) = stored_trajectory(asset, 40);
        let desired = DesiredTrajectory { positions: &positions, facings: &facings };
        for _ in 0..3 {
            character.update_unskinned(1.0 / 60.0, rig, None).unwrap();
            character.match_motion(asset, matcher, &desired).unwrap();
        }
        matcher.request();
        let first = character.match_motion(asset, matcher, &desired).unwrap().unwrap();
        let query = matcher.last_query().to_vec();
        assert!(query[6..9].iter().any(|&v| v != 0.0), "a walking foot moves");
        // The same update again: the velocities are still the last update's, and the timer has not moved.
        matcher.request();
        let again = character.match_motion(asset, matcher, &desired).unwrap().unwrap();
        assert_eq!(matcher.last_query(), &query[..]);
        assert_eq!(again.cost.to_bits(), first.cost.to_bits());
        assert!(character.match_motion(asset, matcher, &desired).unwrap().is_none());
    });
}

#[test]
fn bad_trajectories_settings_and_assets_are_refused_and_change_nothing() {
    let (blob, skeleton, clips) = walking();
    let asset = sinew::Asset::load(blob.bytes()).unwrap();
    let rig = Rig::new(&asset, None).unwrap();
    let joints = skeleton.names.len();
    let desc = desc(joints, true);
    let mut block = block_for(&desc);
    let mut character = Character::new(Chunk::bytes_mut(&mut block), &desc).unwrap();
    let mut matcher = MotionMatcher::new(&asset, MatcherSettings::default()).unwrap();
    character.play(&asset, SlotId::base(0), clamped(2, 1.0)).unwrap();
    character.update_unskinned(1.0 / 60.0, &rig, None).unwrap();
    let (positions, facings) = stored_trajectory(&asset, 100);
    let control = character.control(SlotId::base(0)).unwrap();
    let before = matcher;
    let mut refused = |character: &mut Character<'_>, positions: &[[f32; 2]], facings: &[[f32; 2]], want: Error| {
        let desired = DesiredTrajectory { positions, facings };
        assert_eq!(character.match_motion(&asset, &mut matcher, &desired), Err(want));
        assert_eq!(character.control(SlotId::base(0)).unwrap(), control);
        assert_eq!(matcher, before);
    };
    let length = |buffer, expected, actual| Error::BufferLength { buffer, expected, actual };
    refused(&mut character, &positions[..2], &facings, length(Buffer::TrajectoryPositions, 3, 2));
    refused(&mut character, &positions, &[], length(Buffer::TrajectoryFacings, 3, 0));
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut broken = positions.clone();
        broken[1][0] = bad;
        refused(&mut character, &broken, &facings, Error::InvalidTrajectory);
        let mut broken = facings.clone();
        broken[2][1] = bad;
        refused(&mut character, &positions, &broken, Error::InvalidTrajectory);
    }
    // A trajectory too far for the database's range once normalized.
    let far = [[1e12, 0.0]; 3];
    let Err(Error::InvalidFeatureQuery { .. }) =
        character.match_motion(&asset, &mut matcher, &DesiredTrajectory { positions: &far, facings: &facings })
    else {
        panic!("a query beyond the database's range")
    };
    assert_eq!(matcher, before);

    // Settings.
    for bad in [
        MatcherSettings { interval: 0.0, ..Default::default() },
        MatcherSettings { interval: f32::NAN, ..Default::default() },
        MatcherSettings { transition: -1.0, ..Default::default() },
        MatcherSettings { transition: f32::INFINITY, ..Default::default() },
        MatcherSettings { continuing_bias: -0.1, ..Default::default() },
        MatcherSettings { continuing_bias: f32::NAN, ..Default::default() },
    ] {
        assert_eq!(MotionMatcher::new(&asset, bad).unwrap_err(), Error::InvalidSearch);
        assert_eq!(matcher.set_settings(bad), Err(Error::InvalidSearch));
        assert_eq!(matcher.settings(), Ok(MatcherSettings::default()));
    }

    // A character without an inertializer cannot enter a match.
    let plain = self::desc(joints, false);
    let mut plain_block = block_for(&plain);
    let mut plain_character = Character::new(Chunk::bytes_mut(&mut plain_block), &plain).unwrap();
    let desired = DesiredTrajectory { positions: &positions, facings: &facings };
    assert_eq!(plain_character.match_motion(&asset, &mut matcher, &desired), Err(Error::NoInertializer));

    // An asset without a database, and one whose database has other groups.
    let bare =
        sinew_tools::bake::bake_with(&skeleton, &clips, sinew_tools::bake::KeyFormat::F32, &Extras::default()).unwrap();
    let bare = sinew::Asset::load(bare.bytes()).unwrap();
    assert_eq!(MotionMatcher::new(&bare, MatcherSettings::default()).unwrap_err(), Error::NoMotionDatabase);
    assert_eq!(character.match_motion(&bare, &mut matcher, &desired), Err(Error::NoMotionDatabase));
    let schema: sinew_tools::features::Schema = serde_json::from_str(
        r#"{"features": [{"kind": "position", "joint": "LFoot", "weight": 1},
                         {"kind": "trajectory_position", "seconds": [0.5, 1], "weight": 1}]}"#,
    )
    .unwrap();
    let other = sinew_tools::features::build(&skeleton, &clips, &vec![RawAnnotations::default(); 3], &schema).unwrap();
    let extras = Extras { motion_database: Some(other), ..Default::default() };
    let other = sinew_tools::bake::bake_with(&skeleton, &clips, sinew_tools::bake::KeyFormat::F32, &extras).unwrap();
    let other = sinew::Asset::load(other.bytes()).unwrap();
    assert_eq!(character.match_motion(&other, &mut matcher, &desired), Err(Error::StateMismatch));
    let short = MotionMatcher::new(&other, MatcherSettings::default()).unwrap();
    assert_eq!(short.trajectory_samples(), Ok((2, 0)));
    assert_eq!(matcher, before);
}

#[test]
fn a_database_group_the_character_cannot_fill_is_named() {
    // A group named for a reader, not for a joint: the baker's names are what the matcher reads.
    let (_, skeleton, clips) = walking();
    let groups = [("left_foot_position", 3, 1.0), ("trajectory_position", 6, 1.0)]
        .map(|(name, dims, weight)| sinew_tools::motion_database::GroupSpec { name: name.into(), dims, weight });
    let schema: sinew_tools::features::Schema = serde_json::from_str(
        r#"{"features": [{"kind": "position", "joint": "LFoot", "weight": 1},
                         {"kind": "trajectory_position", "seconds": [0.3, 0.6, 1], "weight": 1}]}"#,
    )
    .unwrap();
    let annotations = vec![RawAnnotations::default(); clips.len()];
    let (rows, entries) = sinew_tools::features::rows(&skeleton, &clips, &annotations, &schema).unwrap();
    let database = sinew_tools::motion_database::OwnedDatabase::build(&rows, &groups, &entries).unwrap();
    let extras = Extras { motion_database: Some(database), ..Default::default() };
    let blob = sinew_tools::bake::bake_with(&skeleton, &clips, sinew_tools::bake::KeyFormat::F32, &extras).unwrap();
    let asset = sinew::Asset::load(blob.bytes()).unwrap();
    assert_eq!(
        MotionMatcher::new(&asset, MatcherSettings::default()).unwrap_err(),
        Error::UnreadableFeatureGroup { group: 0 }
    );
}

#[test]
fn a_spring_state_seen_from_the_character_matches_f64() {
    use sinew::root_motion::RootMotion;
    use sinew::trajectory::SpringState;
    let mut rng = sinew_tests::Rng::new(5);
    for _ in 0..500 {
        let world = RootMotion { translation: rng.vec3(-50.0, 50.0), yaw: rng.range(-7.0, 7.0) };
        let state = SpringState {
            position: [rng.range(-60.0, 60.0), rng.range(-60.0, 60.0)],
            yaw: rng.range(-7.0, 7.0),
            ..Default::default()
        };
        let (position, facing) = state.relative_to(world);
        let (sin, cos) = f64::from(world.yaw).sin_cos();
        // The world's x axis seen from a character turned by yaw (+Z toward +X).
        let local = |x: f64, z: f64| [x * cos - z * sin, x * sin + z * cos];
        let d =
            [f64::from(state.position[0] - world.translation.x), f64::from(state.position[1] - world.translation.z)];
        let want_position = local(d[0], d[1]);
        let yaw = f64::from(state.yaw);
        let want_facing = local(yaw.sin(), yaw.cos());
        for a in 0..2 {
            assert!((f64::from(position[a]) - want_position[a]).abs() < 1e-4 * 100.0f64.max(1.0));
            assert!((f64::from(facing[a]) - want_facing[a]).abs() < 1e-5);
        }
    }
}

#[test]
fn a_matcher_is_plain_bytes_copied_as_they_are_and_refused_when_damaged() {
    with_walking_character(MatcherSettings::default(), |walking| {
        let Walking { asset, rig, character, matcher, .. } = walking;
        character.play(asset, SlotId::base(0), clamped(1, 0.5)).unwrap();
        let (positions, facings) = stored_trajectory(asset, 50);
        let desired = DesiredTrajectory { positions: &positions, facings: &facings };
        for _ in 0..4 {
            character.update_unskinned(1.0 / 60.0, rig, None).unwrap();
            character.match_motion(asset, matcher, &desired).unwrap();
        }
        // A byte copy is the same matcher.
        let bytes: Vec<u32> = bytemuck::cast_slice(std::slice::from_ref(&*matcher)).to_vec();
        assert_eq!(bytes.len(), 259);
        let copy: MotionMatcher = bytemuck::pod_read_unaligned(bytemuck::cast_slice(&bytes));
        assert_eq!(copy, *matcher);
        assert_eq!(copy.last_match(), matcher.last_match());
        // Every word damaged in turn: a clear answer, and a refused matcher left as it was.
        // The magic, the group count and the dimensions must be the matcher's own; the flags and the method
        // must be ones a matcher sets.
        let must_refuse = |word: usize, value: u32| match word {
            0..=2 => true,
            3 => value & !7 != 0,
            12 => value > 1,
            _ => false,
        };
        for word in 0..259 {
            for value in [u32::MAX, 0x7fc0_0000, 0, 7] {
                let mut damaged = bytes.clone();
                if damaged[word] == value {
                    continue;
                }
                damaged[word] = value;
                let mut damaged: MotionMatcher = bytemuck::pod_read_unaligned(bytemuck::cast_slice(&damaged));
                let before = damaged;
                match character.match_motion(asset, &mut damaged, &desired) {
                    Ok(_) => assert!(!must_refuse(word, value), "word {word} = {value:#x} was accepted"),
                    Err(e) => {
                        let same = bytemuck::bytes_of(&damaged) == bytemuck::bytes_of(&before);
                        assert!(same, "word {word}: a refused matcher changed");
                        if must_refuse(word, value) {
                            assert_eq!(e, Error::StateMismatch, "word {word} = {value:#x}");
                        }
                    }
                }
            }
        }
    });
}

#[test]
fn the_c_matcher_is_the_rust_matcher_and_refuses_bad_calls() {
    use sinew_ffi::*;
    let (blob, skeleton, _) = walking();
    let asset = sinew::Asset::load(blob.bytes()).unwrap();
    let rig = Rig::new(&asset, None).unwrap();
    let mut handle = std::mem::MaybeUninit::<sinew_asset>::uninit();
    // SAFETY: valid pointers for the blob's length and one asset.
    assert_eq!(unsafe { sinew_asset_load(blob.bytes().as_ptr(), blob.bytes().len(), handle.as_mut_ptr()) }, SINEW_OK);
    let handle = handle.as_ptr();
    let layers = [sinew_layer_desc { kind: SINEW_LAYER_BASE, controls: 1 }];
    let c_desc = sinew_character_desc {
        layers: layers.as_ptr(),
        num_layers: 1,
        num_masks: 0,
        num_curves: 0,
        inertialization: SINEW_INERTIALIZATION_DEFAULT,
        skinned: 0,
        sampling: SINEW_SAMPLING_SHARED,
    };
    let (mut c_memory, mut bytes) = (Vec::new(), 0);
    let mut c_character = std::ptr::null_mut();
    let mut settings = std::mem::MaybeUninit::<sinew_motion_matcher_settings>::uninit();
    let mut c_matcher = std::mem::MaybeUninit::<sinew_motion_matcher>::uninit();
    // SAFETY: valid pointers for each call; the memory outlives the character.
    unsafe {
        assert_eq!(sinew_character_required_bytes(handle, &c_desc, &mut bytes), SINEW_OK);
        c_memory.resize(Chunk::count(bytes), Chunk::ZERO);
        let init = sinew_character_init(c_memory.as_mut_ptr().cast(), bytes, handle, &c_desc, &mut c_character);
        assert_eq!(init, SINEW_OK);
        assert_eq!(sinew_character_play(c_character, handle, 0, 1, 0.5, 1.0, 1.0), SINEW_OK);
        assert_eq!(sinew_motion_matcher_default_settings(settings.as_mut_ptr()), SINEW_OK);
        assert_eq!(sinew_motion_matcher_init(c_matcher.as_mut_ptr(), handle, settings.as_ptr()), SINEW_OK);
    }
    // SAFETY: written by the calls above.
    let mut c_matcher = unsafe { c_matcher.assume_init() };
    let desc = desc(skeleton.names.len(), true);
    let mut block = block_for(&desc);
    let mut character = Character::new(Chunk::bytes_mut(&mut block), &desc).unwrap();
    character.play(&asset, SlotId::base(0), Play { time: 0.5, ..Play::looping(1) }).unwrap();
    let mut matcher = MotionMatcher::new(&asset, MatcherSettings::default()).unwrap();
    let (mut c_searches, mut jumps) = (0, 0);
    for step in 0..90 {
        let (positions, facings) = stored_trajectory(&asset, [40, 160, 290][step / 30]);
        let desired = DesiredTrajectory { positions: &positions, facings: &facings };
        character.update_unskinned(1.0 / 60.0, &rig, None).unwrap();
        let rust = character.match_motion(&asset, &mut matcher, &desired).unwrap();
        let (mut found, mut searched) = (std::mem::MaybeUninit::<sinew_motion_match>::uninit(), 0u32);
        let (p, f) = (positions.as_flattened(), facings.as_flattened());
        // SAFETY: valid pointers: the character, the asset, the matcher, 3 pairs each, the outputs.
        unsafe {
            assert_eq!(sinew_character_update(c_character, handle, 1.0 / 60.0), SINEW_OK);
            let status = sinew_character_match_motion(
                c_character,
                handle,
                &mut c_matcher,
                p.as_ptr(),
                3,
                f.as_ptr(),
                3,
                found.as_mut_ptr(),
                &mut searched,
            );
            assert_eq!(status, SINEW_OK, "step {step}");
        }
        assert_eq!(searched == 1, rust.is_some(), "step {step}");
        if let Some(rust) = rust {
            // SAFETY: written when a search ran.
            let found = unsafe { found.assume_init() };
            assert_eq!((found.frame as usize, found.cost.to_bits()), (rust.frame, rust.cost.to_bits()), "step {step}");
            c_searches += 1;
            jumps += usize::from(!rust.continuing);
        }
        assert_eq!(c_matcher.bytes, bytemuck::bytes_of(&matcher), "step {step}: the C matcher is the Rust one");
    }
    assert!(c_searches >= 9 && jumps >= 1, "{c_searches} searches, {jumps} jumps");

    // Bad calls: each a status, the matcher's bytes as they were.
    let before = c_matcher.bytes;
    let (positions, facings) = stored_trajectory(&asset, 40);
    let (p, f) = (positions.as_flattened(), facings.as_flattened());
    let nan = [f32::NAN; 6];
    let call = |matcher: *mut sinew_motion_matcher, p: *const f32, np: u32, f: *const f32, nf: u32| {
        let (mut found, mut searched) = (std::mem::MaybeUninit::<sinew_motion_match>::uninit(), 0u32);
        // SAFETY: the pointers are valid for the counts given, or NULL, or point at a damaged matcher on purpose.
        unsafe {
            sinew_character_match_motion(c_character, handle, matcher, p, np, f, nf, found.as_mut_ptr(), &mut searched)
        }
    };
    assert_eq!(call(&mut c_matcher, p.as_ptr(), 2, f.as_ptr(), 3), SINEW_ERROR_BUFFER);
    assert_eq!(call(&mut c_matcher, p.as_ptr(), 3, f.as_ptr(), 4), SINEW_ERROR_BUFFER);
    assert_eq!(call(&mut c_matcher, nan.as_ptr(), 3, f.as_ptr(), 3), SINEW_ERROR_INVALID_ARGUMENT);
    assert_eq!(call(&mut c_matcher, std::ptr::null(), 3, f.as_ptr(), 3), SINEW_ERROR_NULL_POINTER);
    assert_eq!(call(std::ptr::null_mut(), p.as_ptr(), 3, f.as_ptr(), 3), SINEW_ERROR_NULL_POINTER);
    assert_eq!(c_matcher.bytes, before);
    let mut damaged = c_matcher;
    damaged.bytes[0] ^= 0xff;
    assert_eq!(call(&mut damaged, p.as_ptr(), 3, f.as_ptr(), 3), SINEW_ERROR_STATE_MISMATCH);
    // A matcher one byte off its alignment.
    let mut unaligned = vec![0u32; 262];
    let misplaced = unaligned.as_mut_ptr().cast::<u8>().wrapping_add(1).cast::<sinew_motion_matcher>();
    assert_eq!(call(misplaced, p.as_ptr(), 3, f.as_ptr(), 3), SINEW_ERROR_BUFFER);
    let bad = sinew_motion_matcher_settings { method: 9, ..unsafe { settings.assume_init() } };
    // SAFETY: valid pointers.
    assert_eq!(unsafe { sinew_motion_matcher_init(&mut damaged, handle, &bad) }, SINEW_ERROR_INVALID_ARGUMENT);
    drop(c_memory);
}
