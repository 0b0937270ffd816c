//! Root-motion extraction at bake: the in-place pose under the motion root reproduces the source (checked in
//! `f64` by the oracle's local-to-model), the line and the arc are recovered from clips that follow them, the
//! heading unwraps past ±180° on the spinning clips, and bad input is an error.

use sinew::control::{Control, Wrap};
use sinew::math::{Quat, Transform, Vec3};
use sinew::root_motion::{RootMotion, step_motion};
use sinew_tests::oracle::{self, IDENTITY, M4};
use sinew_tools::bake;
use sinew_tools::raw;
use sinew_tools::raw::{RawClip, RawSkeleton};
use sinew_tools::root_motion::{Extraction, MOTION_ROOT, Method, Source, extract};

fn position(m: &M4) -> [f64; 3] {
    [m[12], m[13], m[14]]
}

/// Worst distance between the model-space joint positions of the source and the extracted clip (the motion
/// root itself left out), over every frame.
fn worst_position_error(source: &(RawSkeleton, RawClip), extracted: &(RawSkeleton, RawClip)) -> f64 {
    let mut worst = 0.0f64;
    for (before, after) in source.1.frames.iter().zip(&extracted.1.frames) {
        let want = oracle::local_to_model(&source.0.parents, before, &IDENTITY);
        let got = oracle::local_to_model(&extracted.0.parents, after, &IDENTITY);
        for (w, g) in want.iter().zip(&got[1..]) {
            let (w, g) = (position(w), position(g));
            worst = worst.max((0..3).map(|i| (w[i] - g[i]).abs()).fold(0.0, f64::max));
        }
    }
    worst
}

fn real_clips() -> Option<Vec<(RawSkeleton, RawClip)>> {
    let dir = sinew_tests::shared_data("root-motion extraction on the Bandai and CMU clips")?;
    let mut files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
    files.extend(sinew_tests::files_with_extension(&dir.join("bvh/cmu"), "bvh").into_iter().take(2));
    Some(
        files
            .iter()
            .map(|path| {
                let bvh = sinew_tools::bvh::Bvh::load(path).expect("load");
                sinew_tools::bvh::to_raw(&bvh, "clip").expect("raw")
            })
            .collect(),
    )
}

fn extract_one(source: &(RawSkeleton, RawClip), method: Method) -> (RawSkeleton, RawClip) {
    let options = Extraction { method, ..Extraction::default() };
    let (skeleton, mut clips) = extract(&source.0, std::slice::from_ref(&source.1), &options).expect("extract");
    (skeleton, clips.remove(0))
}

#[test]
fn the_in_place_pose_under_the_root_is_the_source_pose() {
    let Some(clips) = real_clips() else { return };
    for source in &clips {
        for method in [Method::Delta, Method::Linear, Method::Arc] {
            let extracted = extract_one(source, method);
            assert_eq!(extracted.0.names[0], MOTION_ROOT);
            assert_eq!(extracted.0.parents.len(), source.0.parents.len() + 1);
            // Positions reach ~1000 file units: f32 keys carry ~6e-5 of rounding each.
            let worst = worst_position_error(source, &extracted);
            assert!(worst < 1e-3, "{method:?}: worst joint position error {worst:e}");
            // The root stays on the ground and turns about +Y only.
            for frame in &extracted.1.frames {
                let root = frame[0];
                assert_eq!(root.translation.y, 0.0);
                assert!(root.rotation.x == 0.0 && root.rotation.z == 0.0, "{:?}", root.rotation);
            }
        }
    }
}

/// Per frame, the hips' unwrapped heading about +Y from +Z, computed from the oracle's `f64` model matrices.
fn hips_heading(source: &(RawSkeleton, RawClip)) -> Vec<f64> {
    let hips = source.0.names.iter().position(|n| n.to_lowercase().contains("hips")).expect("hips");
    let mut unwrapped: Vec<f64> = Vec::new();
    for frame in &source.1.frames {
        let m = &oracle::local_to_model(&source.0.parents, frame, &IDENTITY)[hips];
        // Column 2 is the hips' +Z axis in model space: BVH rest poses have identity rotations.
        let heading = m[8].atan2(m[10]);
        let value = match unwrapped.last() {
            Some(&last) => {
                let turn = (heading - last).rem_euclid(std::f64::consts::TAU);
                last + if turn > std::f64::consts::PI { turn - std::f64::consts::TAU } else { turn }
            }
            None => heading,
        };
        unwrapped.push(value);
    }
    unwrapped
}

fn root_yaw(root: &Transform) -> f64 {
    2.0 * (root.rotation.y as f64).atan2(root.rotation.w as f64)
}

#[test]
fn the_delta_root_follows_the_hips_and_unwraps_past_a_thousand_degrees() {
    let Some(clips) = real_clips() else { return };
    let mut most_turn = 0.0f64;
    for source in &clips {
        let extracted = extract_one(source, Method::Delta);
        let heading = hips_heading(source);
        for (k, (frame, want)) in extracted.1.frames.iter().zip(&heading).enumerate() {
            // The stored quaternion holds the yaw modulo a turn; the track is continuous frame to frame.
            let got = root_yaw(&frame[0]);
            let off = (got - want).rem_euclid(std::f64::consts::TAU);
            assert!(off.min(std::f64::consts::TAU - off) < 1e-5, "frame {k}: yaw {got} vs {want}");
        }
        most_turn = most_turn.max((heading.last().unwrap() - heading[0]).abs());
    }
    assert!(most_turn.to_degrees() > 1000.0, "the kick turns more than 1000°: {}", most_turn.to_degrees());
}

/// A two-joint clip whose hips follow `path(t)` (position, yaw) at 30 Hz for `seconds`, bobbing up and down.
fn synthetic(path: impl Fn(f64) -> ([f64; 3], f64), seconds: f64) -> (RawSkeleton, RawClip) {
    let skeleton = RawSkeleton {
        names: vec!["Hips".into(), "Spine".into()],
        parents: vec![-1, 0],
        rest: vec![Transform::IDENTITY; 2],
    };
    let frames = (0..=(seconds * 30.0) as usize)
        .map(|k| {
            let t = k as f64 / 30.0;
            let (p, yaw) = path(t);
            let half = yaw / 2.0;
            let hips = Transform {
                translation: Vec3::new(p[0] as f32, (90.0 + 2.0 * (7.0 * t).sin()) as f32, p[2] as f32),
                rotation: Quat::new(0.0, half.sin() as f32, 0.0, half.cos() as f32),
                scale: Vec3::ONE,
            };
            vec![hips, Transform { translation: Vec3::new(0.0, 10.0, 0.0), ..Transform::IDENTITY }]
        })
        .collect();
    (skeleton, RawClip { name: "synthetic".into(), sample_rate: 30.0, frames, step: sinew_tools::raw::StepKeys::None })
}

#[test]
fn linear_and_arc_recover_the_motion_of_clips_that_follow_them() {
    // A straight walk at 120 units/s, turning at 0.3 rad/s in place: the line is exact.
    let line = |t: f64| ([3.0 + 40.0 * t, 0.0, -5.0 + 112.0 * t], 0.2 + 0.3 * t);
    // A circle of radius 150 at 0.5 rad/s, facing along it: the arc is exact.
    let (radius, rate, start) = (150.0, 0.5, 0.4);
    let circle = |t: f64| {
        let yaw = start + rate * t;
        // Facing +Z rotated by `yaw`: moving along (sin yaw, cos yaw) around the centre.
        (
            [
                10.0 + radius * (1.0 - yaw.cos()) - radius * (1.0 - start.cos()),
                0.0,
                radius * yaw.sin() - radius * start.sin(),
            ],
            yaw,
        )
    };
    for (name, path, method) in
        [("line", &line as &dyn Fn(f64) -> ([f64; 3], f64), Method::Linear), ("circle", &circle, Method::Arc)]
    {
        let source = synthetic(path, 4.0);
        let extracted = extract_one(&source, method);
        for (k, frame) in extracted.1.frames.iter().enumerate() {
            let (p, yaw) = path(k as f64 / 30.0);
            let root = frame[0];
            let r = [root.translation.x as f64, root.translation.z as f64];
            let error = (r[0] - p[0]).abs().max((r[1] - p[2]).abs());
            // Positions up to ~500 units in f32 keys: ulps of 3e-5.
            assert!(error < 1e-3, "{name} frame {k}: {r:?} vs {p:?}");
            let off = (root_yaw(&root) - yaw).rem_euclid(std::f64::consts::TAU);
            assert!(off.min(std::f64::consts::TAU - off) < 1e-5, "{name} frame {k}: yaw");
        }
        assert!(worst_position_error(&source, &extracted) < 1e-4, "{name}: round trip");
    }
    // The line through a circle's endpoints is not the circle: linear misses it mid-clip, by the sagitta.
    let source = synthetic(circle, 4.0);
    let mid = extract_one(&source, Method::Linear).1.frames[60][0];
    let (p, _) = circle(2.0);
    assert!((mid.translation.x as f64 - p[0]).abs() > 1.0, "the line cuts the arc's corner");
}

#[test]
fn bad_input_is_an_error() {
    let source = synthetic(|t| ([t, 0.0, t], 0.0), 1.0);
    let options = Extraction::default();
    let once = extract(&source.0, std::slice::from_ref(&source.1), &options).unwrap();
    let twice = extract(&once.0, &once.1, &options).unwrap_err();
    assert!(twice.contains("already"), "{twice}");
    let mut no_hips = source.0.clone();
    no_hips.names = vec!["a".into(), "b".into()];
    let error = extract(&no_hips, std::slice::from_ref(&source.1), &options).unwrap_err();
    assert!(error.contains("hips-like"), "{error}");
    let named = Extraction { hips: Some("b".into()), ..Extraction::default() };
    assert!(extract(&no_hips, std::slice::from_ref(&source.1), &named).is_ok(), "--hips names the joint");
    let mut short = source.1.clone();
    short.frames[3].pop();
    let error = extract(&source.0, &[short], &options).unwrap_err();
    assert!(error.contains("frame 3"), "{error}");
    let mut unsorted = source.0.clone();
    unsorted.parents = vec![1, -1];
    assert!(extract(&unsorted, std::slice::from_ref(&source.1), &options).unwrap_err().contains("parent"));
    let slanted = Extraction { forward: [0.0, 0.6, 0.8], ..Extraction::default() };
    assert!(extract(&source.0, std::slice::from_ref(&source.1), &slanted).unwrap_err().contains("right angles"));
}

/// The Bandai walk's BVH file, or `None` (with the reason printed) without the shared data.
fn bandai_walk(test: &str) -> Option<std::path::PathBuf> {
    let dir = sinew_tests::shared_data(test)?;
    let files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
    Some(files.into_iter().find(|p| p.to_string_lossy().contains("walk")).expect("the Bandai walk"))
}

#[test]
fn the_motion_command_reproduces_the_source_hips_and_carries_the_root_over_loops() {
    let Some(path) = bandai_walk("sinew-bench motion on the Bandai walk") else { return };
    let bvh = sinew_tools::bvh::Bvh::load(&path).expect("load");
    let (skeleton, clip) = sinew_tools::bvh::to_raw(&bvh, "walk").expect("raw");
    let hips = skeleton.names.iter().position(|n| n == "Hips").expect("Hips");
    let last = clip.frames.len() - 1;
    for method in [Method::Delta, Method::Linear, Method::Arc] {
        let json = sinew_tools::root_motion::motion_json(Source::Bvh(&path, method), 3).expect("motion");
        let frames = json["frames"].as_array().expect("frames");
        assert_eq!(frames.len(), 3 * last + 1);
        let at = |k: usize, what: &str| -> [f64; 3] {
            let v = if what == "root" { &frames[k]["root"]["position"] } else { &frames[k]["hips"] };
            [0, 1, 2].map(|i| v[i].as_f64().expect("number"))
        };
        // First pass: root ∘ in-place pose is the source's hips (f64 oracle on the source frames).
        let mut worst = 0.0f64;
        for (k, frame) in clip.frames.iter().enumerate() {
            let want = position(&oracle::local_to_model(&skeleton.parents, frame, &IDENTITY)[hips]);
            let got = at(k, "hips");
            worst = worst.max((0..3).map(|i| (want[i] - got[i]).abs()).fold(0.0, f64::max));
        }
        assert!(worst < 1e-3, "{method:?}: hips off the source by {worst:e}");
        // Each pass starts where the last ended: the root after three passes is M(0) · (M(0)⁻¹ M(D))³, composed
        // here as ground-plane rigid motions (x, z, yaw about +Y) from the first pass's ends.
        let yaw = |k: usize| frames[k]["root"]["yaw"].as_f64().expect("yaw");
        let planar = |k: usize| {
            let p = at(k, "root");
            (p[0], p[2], yaw(k))
        };
        let per_pass = compose(inverse(planar(0)), planar(last));
        let want = compose(planar(0), compose(per_pass, compose(per_pass, per_pass)));
        let got = planar(3 * last);
        let drift = (want.0 - got.0).abs().max((want.1 - got.1).abs());
        assert!(drift < 1e-2 && (want.2 - got.2).abs() < 1e-5, "{method:?}: after three passes {got:?}, want {want:?}");
        assert!(frames.iter().all(|f| f["root"]["position"][1].as_f64() == Some(0.0)), "on the ground");
        println!("{method:?}: hips within {worst:e} of the source; three passes within {drift:e} of M(0)·Δ³");
    }
}

/// `a ∘ b` for ground-plane rigid motions (x, z, yaw about +Y): `b` expressed in `a`'s frame.
fn compose(a: (f64, f64, f64), b: (f64, f64, f64)) -> (f64, f64, f64) {
    let (sin, cos) = a.2.sin_cos();
    // A yaw about +Y turns +Z toward +X: x' = x cos + z sin, z' = −x sin + z cos.
    (a.0 + b.0 * cos + b.1 * sin, a.1 - b.0 * sin + b.1 * cos, a.2 + b.2)
}

fn inverse(a: (f64, f64, f64)) -> (f64, f64, f64) {
    let (sin, cos) = a.2.sin_cos();
    (-(a.0 * cos - a.1 * sin), -(a.0 * sin + a.1 * cos), -a.2)
}

/// Planar rigid motion (x, z, yaw) of the extracted clip's root at `time`, from the raw frames in `f64`.
fn oracle_root(clip: &RawClip, time: f64) -> (f64, f64, f64) {
    let root = &oracle::sample(&clip.frames, clip.sample_rate as f64, time)[0];
    // Flat: translation xyz, rotation xyzw, scale xyz.
    (root[0], root[2], 2.0 * root[4].atan2(root[6]))
}

/// A clip walking a circle of radius 150 at 0.5 rad/s for 4 s, extracted (delta), baked in f32.
fn circling() -> (RawClip, raw::AlignedBlob) {
    let (radius, rate) = (150.0, 0.5);
    let source = synthetic(|t| ([radius * (1.0 - (rate * t).cos()), 0.0, radius * (rate * t).sin()], rate * t), 4.0);
    let (skeleton, clip) = extract_one(&source, Method::Delta);
    let blob = bake::bake(&skeleton, std::slice::from_ref(&clip), bake::KeyFormat::F32).expect("bake");
    (clip, blob)
}

fn same_motion(got: RootMotion, want: (f64, f64, f64), what: &str) {
    let (x, z) = (got.translation.x as f64, got.translation.z as f64);
    let turn = (got.yaw as f64 - want.2).rem_euclid(std::f64::consts::TAU);
    let turn = turn.min(std::f64::consts::TAU - turn);
    assert!((x - want.0).abs() < 2e-3 && (z - want.1).abs() < 2e-3 && turn < 2e-5, "{what}: {got:?} vs {want:?}");
}

#[test]
fn steps_move_the_root_by_the_clip_across_wraps_both_ways_and_in_every_wrap_mode() {
    let (clip, blob) = circling();
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let runtime_clip = asset.clip(0).expect("clip");
    let rest = asset.skeleton().rest_pose()[0];
    let duration = runtime_clip.duration();
    let mut rng = sinew_tests::Rng::new(0x2007);
    for wrap in [Wrap::Loop, Wrap::Clamp, Wrap::PingPong] {
        for speed in [1.0, -1.0, 2.7, -1.6] {
            let start = rng.range(0.0, duration);
            let mut control = Control::new(0, duration, wrap, start, speed, 1.0).expect("control");
            let (mut moved, mut wraps) = (RootMotion::IDENTITY, 0i64);
            for _ in 0..600 {
                let (next, step) = control.advanced(rng.range(0.0, 0.05)).expect("step");
                moved = moved.then(step_motion(&runtime_clip, &rest, &step));
                wraps += step.wraps;
                control = next;
            }
            let want = oracle_motion(&clip, wrap, duration as f64, (start as f64, control.time() as f64), wraps);
            assert!(wrap != Wrap::Loop || wraps.abs() >= 2, "{speed}: the loop wraps {wraps} times");
            same_motion(moved, want, &format!("{wrap:?} at speed {speed}, {wraps} wraps"));
        }
    }
}

/// The motion from local time `a` to `b` after `wraps` wraps, composed in `f64` from the raw frames: `Loop`
/// `R(a)⁻¹ · R(0) · P^wraps · R(0)⁻¹ · R(b)` with `P = R(0)⁻¹ · R(D)`; the others retrace the clip, `R(a)⁻¹ · R(b)`.
fn oracle_motion(clip: &RawClip, wrap: Wrap, duration: f64, (a, b): (f64, f64), wraps: i64) -> (f64, f64, f64) {
    let r = |t: f64| oracle_root(clip, t);
    if wrap != Wrap::Loop {
        return compose(inverse(r(a)), r(b));
    }
    let (first, last) = (r(0.0), r(duration));
    let pass = compose(inverse(first), last);
    let mut passes = (0.0, 0.0, 0.0);
    for _ in 0..wraps.unsigned_abs() {
        passes = compose(passes, if wraps > 0 { pass } else { inverse(pass) });
    }
    compose(compose(compose(inverse(r(a)), first), passes), compose(inverse(first), r(b)))
}

#[test]
fn a_huge_step_moves_as_far_as_its_small_steps() {
    let (raw, blob) = circling();
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let clip = asset.clip(0).expect("clip");
    let rest = asset.skeleton().rest_pose()[0];
    let duration = clip.duration();
    for (speed, dt) in [(1.0f32, 0.1f32), (-1.0, 0.1), (3.0, 0.05)] {
        let control = Control::new(0, duration, Wrap::Loop, 0.5, speed, 1.0).expect("control");
        let steps = 1000;
        let (mut small, mut moved, mut wraps) = (control, RootMotion::IDENTITY, 0);
        for _ in 0..steps {
            let (next, step) = small.advanced(dt).expect("step");
            (small, moved, wraps) = (next, moved.then(step_motion(&clip, &rest, &step)), wraps + step.wraps);
        }
        let (end, step) = control.advanced(dt * steps as f32).expect("huge step");
        assert_eq!(step.wraps, wraps, "speed {speed}");
        assert!((end.time() - small.time()).abs() < 1e-3, "speed {speed}: {} vs {}", end.time(), small.time());
        let want = oracle_motion(&raw, Wrap::Loop, duration as f64, (0.5, end.time() as f64), wraps);
        same_motion(step_motion(&clip, &rest, &step), want, &format!("speed {speed}: one step, {wraps} wraps"));
        // A thousand compositions in f32 drift by about their count in ulps.
        let want = oracle_motion(&raw, Wrap::Loop, duration as f64, (0.5, small.time() as f64), wraps);
        let (x, z) = (moved.translation.x as f64, moved.translation.z as f64);
        assert!((x - want.0).abs().max((z - want.1).abs()) < 0.2, "speed {speed}: small steps {moved:?} vs {want:?}");
    }
}

/// A character of `asset`'s skeleton with `layers`, an inertializer and its scratch in its block.
fn base_desc<'a>(asset: &sinew::Asset<'_>, layers: &'a [sinew::LayerDesc]) -> sinew::CharacterDesc<'a> {
    sinew::CharacterDesc {
        num_joints: asset.skeleton().num_joints(),
        num_skin_joints: 0,
        layers,
        num_masks: 0,
        num_curves: 0,
        inertialization: Some(sinew::inertialization::Settings::default()),
        scratch: sinew::Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation: sinew::Interpolation::Linear,
    }
}

#[test]
fn a_character_reports_its_root_motion_and_keeps_the_root_out_of_its_pose() {
    use sinew::{Character, Chunk, LayerDesc, LayerKind, Play, Rig, SlotId};
    let (raw, blob) = circling();
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let duration = asset.clip(0).expect("clip").duration();
    let layers = [LayerDesc { kind: LayerKind::Base, controls: 2 }];
    let desc = base_desc(&asset, &layers);
    let mut memory = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("size"))];
    let mut character = Character::new(Chunk::bytes_mut(&mut memory), &desc).expect("character");
    let rig = Rig::new(&asset, None).expect("rig");
    assert_eq!(character.root_motion(), RootMotion::IDENTITY, "before the first update");
    character.play(&asset, SlotId::base(0), Play { time: 0.3, ..Play::looping(0) }).expect("play");
    let (mut world, mut wraps, mut time) = (RootMotion::IDENTITY, 0, 0.3f32);
    let dt = 1.0 / 60.0;
    for _ in 0..600 {
        character.update(dt, &rig).expect("update");
        world = world.then(character.root_motion());
        let step = character.last_step(SlotId::base(0)).expect("slot").expect("playing");
        (wraps, time) = (wraps + step.wraps, step.to);
        // The motion root stays at the identity in the pose: the game moves the character instead.
        assert_eq!(character.pose()[0].get(0), sinew::math::Transform::IDENTITY);
    }
    assert!(wraps >= 2, "10 s of a 4 s loop");
    let want = oracle_motion(&raw, Wrap::Loop, duration as f64, (0.3, time as f64), wraps);
    let (x, z) = (world.translation.x as f64, world.translation.z as f64);
    assert!((x - want.0).abs().max((z - want.1).abs()) < 0.05, "{world:?} vs {want:?}");

    // Two controls at weights 0.25 and 0.75 at different speeds move by the weighted mean of their motions.
    character
        .play(&asset, SlotId::base(1), Play { time: 1.0, speed: 2.0, weight: 0.75, ..Play::looping(0) })
        .expect("play");
    character.with_control(SlotId::base(0), |k| k.fade_to(0.25, 0.0)).expect("weight");
    character.update(dt, &rig).expect("update");
    let clip = asset.clip(0).expect("clip");
    let rest = asset.skeleton().rest_pose()[0];
    let each = [0, 1].map(|slot| step_motion(&clip, &rest, &character.last_step(SlotId::base(slot)).unwrap().unwrap()));
    let got = character.root_motion();
    let mean = 0.25 * each[0].translation.z + 0.75 * each[1].translation.z;
    assert!((got.translation.z - mean).abs() < 1e-5, "{got:?} vs {each:?}");

    // Pose-only blending: the motion of slot 0 alone, whatever its weight in the pose.
    character.set_motion_slot(Some(0)).expect("slot");
    character.update(dt, &rig).expect("update");
    let alone = step_motion(&clip, &rest, &character.last_step(SlotId::base(0)).unwrap().unwrap());
    assert_eq!(character.root_motion(), alone);
    let missing = sinew::Error::IndexOutOfRange { what: sinew::error::Index::Slot, index: 2, len: 2 };
    assert_eq!(character.set_motion_slot(Some(2)), Err(missing));
    character.set_motion_slot(None).expect("blend again");
    character.update(dt, &rig).expect("update");
    assert_ne!(
        character.root_motion(),
        step_motion(&clip, &rest, &character.last_step(SlotId::base(0)).unwrap().unwrap())
    );
}

#[test]
fn a_motion_only_update_moves_the_character_as_a_full_one_and_samples_only_the_root() {
    use sinew::{Character, Chunk, LayerDesc, LayerKind, Play, Rig, SlotId};
    let (_, blob) = circling();
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let rig = Rig::new(&asset, None).expect("rig");
    let layers = [LayerDesc { kind: LayerKind::Base, controls: 2 }];
    let desc = base_desc(&asset, &layers);
    let chunks = Chunk::count(Character::required_bytes(&desc).expect("size"));
    let (mut full_memory, mut motion_memory) = (vec![Chunk::ZERO; chunks], vec![Chunk::ZERO; chunks]);
    {
        let mut full = Character::new(Chunk::bytes_mut(&mut full_memory), &desc).expect("character");
        full.play(&asset, SlotId::base(0), Play { weight: 0.7, ..Play::looping(0) }).expect("play");
        full.play(&asset, SlotId::base(1), Play { time: 2.0, speed: -1.3, weight: 0.3, ..Play::looping(0) })
            .expect("play");
    }
    motion_memory.copy_from_slice(&full_memory);
    let mut full = Character::attach(Chunk::bytes_mut(&mut full_memory)).expect("attach");
    let mut motion = Character::attach(Chunk::bytes_mut(&mut motion_memory)).expect("attach");
    // 10 s at 60 Hz: the same motion bit for bit, the same steps, and no pose sampled.
    for frame in 0..600 {
        full.update(1.0 / 60.0, &rig).expect("full");
        motion.update_motion(1.0 / 60.0, &rig).expect("motion only");
        assert_eq!(full.root_motion(), motion.root_motion(), "frame {frame}");
        assert_eq!(
            full.last_step(SlotId::base(1)).unwrap(),
            motion.last_step(SlotId::base(1)).unwrap(),
            "frame {frame}"
        );
    }
    assert_eq!(motion.decoded_frames(), 0, "nothing of the pose decoded");
    assert!(full.decoded_frames() > 600);
    // Back to full updates: the pose is the target's at once (the inertializer forgot the stale history).
    motion.update(1.0 / 60.0, &rig).expect("full again");
    full.update(1.0 / 60.0, &rig).expect("full");
    assert_eq!(motion.pose(), full.pose());
}

mod warp {
    use sinew::Error;
    use sinew::math::Vec3;
    use sinew::root_motion::{RootMotion, WarpPoint, WarpWindow};

    /// An unwarped root walking a circle of radius 150 at 0.5 rad/s.
    fn circle(t: f32) -> RootMotion {
        let yaw = 0.5 * t;
        RootMotion { translation: Vec3::new(150.0 * (1.0 - yaw.cos()), 0.0, 150.0 * yaw.sin()), yaw }
    }

    const MARKER: f32 = 2.5;

    fn point(windows: [WarpWindow; 3]) -> WarpPoint {
        let target = RootMotion { translation: Vec3::new(-40.0, 0.0, 260.0), yaw: 2.9 };
        WarpPoint::new(circle(MARKER), target, MARKER, windows).expect("warp")
    }

    fn window(start: f32, end: f32) -> WarpWindow {
        WarpWindow { start, end }
    }

    #[test]
    fn the_marker_lands_on_its_target_and_nothing_moves_before_the_windows() {
        let windows = [window(0.5, 2.0), window(1.0, 2.5), window(1.5, 1.5)];
        let warp = point(windows);
        let at = warp.apply(circle(MARKER), MARKER);
        assert!((at.translation.x + 40.0).abs() < 1e-4 && (at.translation.z - 260.0).abs() < 1e-4, "{at:?}");
        assert!((at.yaw - 2.9).abs() < 1e-6, "{at:?}");
        for k in 0..=50 {
            let t = 0.01 * k as f32;
            assert_eq!(warp.apply(circle(t), t), circle(t), "t {t}: before every window, untouched");
        }
        // After the marker the warp stays whole: the rest of the path is the unwarped one, moved rigidly.
        let (a, b) = (warp.apply(circle(3.0), 3.0), warp.apply(circle(3.5), 3.5));
        let (ua, ub) = (circle(3.0), circle(3.5));
        let length = |p: Vec3, q: Vec3| ((p.x - q.x).powi(2) + (p.z - q.z).powi(2)).sqrt();
        assert!((length(a.translation, b.translation) - length(ua.translation, ub.translation)).abs() < 1e-3);
        assert!(((b.yaw - a.yaw) - (ub.yaw - ua.yaw)).abs() < 1e-6);
    }

    #[test]
    fn the_three_timings_are_independent_and_smooth() {
        // The marker's own position follows the translation window alone, whatever the rotation window does.
        let marker = circle(MARKER);
        for t in [0.7f32, 1.2, 1.9] {
            let early = point([window(0.5, 2.0), window(0.0, 0.8), window(0.5, 2.0)]).apply(marker, t);
            let late = point([window(0.5, 2.0), window(1.6, 2.4), window(0.5, 2.0)]).apply(marker, t);
            assert!((early.translation.x - late.translation.x).abs() < 1e-4, "t {t}: {early:?} vs {late:?}");
            assert!((early.translation.z - late.translation.z).abs() < 1e-4, "t {t}");
            assert_eq!(early.yaw, late.yaw, "t {t}: facing has its own window");
        }
        // No velocity jump at a window's ends: the fraction's slope there is 0.
        let w = window(1.0, 2.0);
        for edge in [1.0f32, 2.0] {
            let slope = (w.fraction(edge + 1e-3) - w.fraction(edge - 1e-3)) / 2e-3;
            assert!(slope.abs() < 1e-2, "slope {slope} at {edge}");
        }
        assert!((w.fraction(1.5) - 0.5).abs() < 1e-6 && w.fraction(0.0) == 0.0 && w.fraction(2.0) == 1.0);
        // A zero-length window is a step.
        let step = window(1.0, 1.0);
        assert_eq!((step.fraction(0.999), step.fraction(1.0)), (0.0, 1.0));
    }

    #[test]
    fn bad_warps_are_errors() {
        let target = RootMotion { translation: Vec3::new(1.0, 0.0, 1.0), yaw: 0.0 };
        let ok = [window(0.0, 1.0); 3];
        let new = |marker: RootMotion, target: RootMotion, windows| WarpPoint::new(marker, target, MARKER, windows);
        assert!(new(circle(MARKER), target, ok).is_ok());
        let nan = RootMotion { yaw: f32::NAN, ..target };
        assert_eq!(new(circle(MARKER), nan, ok), Err(Error::InvalidWarp));
        assert_eq!(new(nan, target, ok), Err(Error::InvalidWarp));
        let after_marker = [window(0.0, 1.0), window(2.0, 3.0), window(0.0, 1.0)];
        assert_eq!(new(circle(MARKER), target, after_marker), Err(Error::InvalidWarp));
        let backward = [window(1.0, 0.5), window(0.0, 1.0), window(0.0, 1.0)];
        assert_eq!(new(circle(MARKER), target, backward), Err(Error::InvalidWarp));
    }
}

#[test]
fn the_warp_command_lands_the_bandai_walk_on_its_target() {
    let Some(path) = bandai_walk("sinew-bench warp on the Bandai walk") else { return };
    let plain = sinew_tools::root_motion::motion_json(Source::Bvh(&path, Method::Delta), 1).expect("motion");
    let rate = 1.0 / plain["dt"].as_f64().unwrap() as f32;
    let at = 90.0 / rate;
    // Moved 20% further along and turned 15° at frame 90, warped from 1 s on.
    let target = [30.0, 120.0, 0.3];
    let warped = sinew_tools::root_motion::warp_json(Source::Bvh(&path, Method::Delta), at, target, Some([1.0, at]))
        .expect("warp");
    let (plain, warped) = (plain["frames"].as_array().unwrap(), warped["frames"].as_array().unwrap());
    assert_eq!(plain.len(), warped.len());
    let root = |f: &serde_json::Value, i: usize| f["root"]["position"][i].as_f64().unwrap();
    assert!((root(&warped[90], 0) - 30.0).abs() < 1e-3 && (root(&warped[90], 2) - 120.0).abs() < 1e-3);
    assert!((warped[90]["root"]["yaw"].as_f64().unwrap() - 0.3).abs() < 1e-5);
    for k in 0..30 {
        assert_eq!(plain[k], warped[k], "frame {k}: before the window");
    }
    // The hips ride on the warped root at the same height as before.
    let hips_y = |f: &serde_json::Value| f["hips"][1].as_f64().unwrap();
    assert!((hips_y(&plain[90]) - hips_y(&warped[90])).abs() < 1e-3);
}

#[test]
fn an_inertialized_transition_keeps_the_root_velocity_where_a_cut_jumps() {
    use sinew::inertialization::Transition;
    use sinew::{Blend, Character, Chunk, LayerDesc, LayerKind, Play, Rig, SlotId};
    let Some(dir) = sinew_tests::shared_data("root velocity through a walk-to-run transition") else { return };
    let files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
    let pick = |name: &str| files.iter().find(|f| f.to_string_lossy().contains(name)).cloned().expect(name);
    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[pick("walk"), pick("run")]).expect("load");
    let (skeleton, clips) = extract(&skeleton, &clips, &Extraction::default()).expect("extract");
    let blob = bake::bake(&skeleton, &clips, bake::KeyFormat::F32).expect("bake");
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let rig = Rig::new(&asset, None).expect("rig");
    let layers = [LayerDesc { kind: LayerKind::Base, controls: 1 }];
    let desc = base_desc(&asset, &layers);
    let dt = 1.0 / 60.0;
    let speed = |m: RootMotion| (m.translation.x.hypot(m.translation.z) / dt) as f64;
    // Several cuts along the walk; per cut, the speed change across the switch frame.
    let mut worst_ratio = 0.0f64;
    for cut in [0.8f32, 1.7, 2.9, 4.1] {
        let blends = [Blend::Cut, Blend::Inertialize(Transition { duration: 0.3, profile: None })];
        let chunks = Chunk::count(Character::required_bytes(&desc).expect("size"));
        let mut memory = [vec![Chunk::ZERO; chunks], vec![Chunk::ZERO; chunks]];
        let [cut_memory, smooth_memory] = &mut memory;
        let mut characters = [cut_memory, smooth_memory].map(|m| Character::new(Chunk::bytes_mut(m), &desc).unwrap());
        let mut jumps = [0.0; 2];
        for (character, (blend, jump)) in characters.iter_mut().zip(blends.into_iter().zip(&mut jumps)) {
            character.play(&asset, SlotId::base(0), Play { time: cut - 0.5, ..Play::looping(0) }).expect("play");
            for _ in 0..30 {
                character.update(dt, &rig).expect("update");
            }
            let before = speed(character.root_motion());
            character.transition(&asset, 0, Play { time: 0.4, ..Play::looping(1) }, blend).expect("transition");
            character.update(dt, &rig).expect("switch");
            *jump = (speed(character.root_motion()) - before).abs();
        }
        // Once the transition is over the root moves as the run does: exactly as after the cut.
        for _ in 0..20 {
            characters.iter_mut().for_each(|c| c.update(dt, &rig).expect("update"));
        }
        assert_eq!(characters[0].root_motion(), characters[1].root_motion(), "past the transition nothing is added");
        // The walk runs at about 125 cm/s, the run several times faster: a cut jumps by hundreds of cm/s.
        assert!(jumps[0] > 100.0, "cut at {cut}: the cut's jump {} cm/s", jumps[0]);
        worst_ratio = worst_ratio.max(jumps[1] / jumps[0]);
    }
    assert!(worst_ratio < 0.1, "inertialized speed jump {worst_ratio} of the cut's");
    println!("root speed jump at the switch: inertialized at most {worst_ratio:.4} of a cut's");
}

#[test]
fn the_line_through_the_bandai_walk_matches_its_measured_displacement() {
    let Some(path) = bandai_walk("linear extraction of the Bandai walk") else { return };
    let bvh = sinew_tools::bvh::Bvh::load(&path).expect("load");
    let source = sinew_tools::bvh::to_raw(&bvh, "walk").expect("raw");
    let (linear, delta) = (extract_one(&source, Method::Linear), extract_one(&source, Method::Delta));
    let root = |clip: &RawClip, k: usize| clip.frames[k][0].translation;
    let last = source.1.frames.len() - 1;
    let (start, end) = (root(&linear.1, 0), root(&linear.1, last));
    // The hips' ground shadow travels (−4.0, 807.5) cm over 194 frames at 30 Hz (measured from the file).
    assert!(((end.x - start.x) as f64 + 4.0).abs() < 0.5 && ((end.z - start.z) as f64 - 807.5).abs() < 0.5);
    // The line and the per-frame shadow agree at both ends; in between the line leaves out the sway.
    let (d0, d1) = (root(&delta.1, 0), root(&delta.1, last));
    assert!((start.x - d0.x).abs() < 1e-3 && (end.z - d1.z).abs() < 1e-3);
    let deviation = (0..=last)
        .map(|k| {
            let (a, b) = (root(&linear.1, k), root(&delta.1, k));
            ((a.x - b.x) as f64).hypot((a.z - b.z) as f64)
        })
        .fold(0.0, f64::max);
    assert!(deviation > 0.0 && deviation < 30.0, "the walk keeps close to its line: {deviation} cm");
    println!("Bandai walk: linear extraction within {deviation:.2} cm of the hips' ground shadow");
}

#[test]
fn a_run_stops_where_the_stop_clip_takes_it_facing_the_way_the_game_asked() {
    // Just Cause 3's stop: the pose crossfades into the stop while the motion comes from the stop alone
    // (pose-only), its distance the stop's own, and the stop's turn in place corrected to the facing wanted.
    use sinew::asset::Range;
    use sinew::motion_correction::TurnToFace;
    use sinew::root_motion::motion_between;
    use sinew::{Blend, Character, Chunk, LayerDesc, LayerKind, Play, Rig, SlotId};
    // A run at 365 units/s; a stop braking from it to rest in 0.6 s, then turning 0.6 rad in place by 1.1 s.
    let run = synthetic(|t| ([0.0, 0.0, 365.0 * t], 0.0), 2.0);
    let braking = |t: f64| 365.0 * t.min(0.6) - 365.0 * t.min(0.6).powi(2) / 1.2;
    let turning = |t: f64| 0.6 * ((t - 0.7) / 0.4).clamp(0.0, 1.0);
    let stop = synthetic(|t| ([0.0, 0.0, braking(t)], turning(t)), 1.3);
    let (skeleton, clips) = extract(&run.0, &[run.1, stop.1], &Extraction::default()).expect("extract");
    let blob = bake::bake(&skeleton, &clips, bake::KeyFormat::F32).expect("bake");
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let rig = Rig::new(&asset, None).expect("rig");
    let layers = [LayerDesc { kind: LayerKind::Base, controls: 2 }];
    let desc = base_desc(&asset, &layers);
    let mut memory = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("size"))];
    let mut character = Character::new(Chunk::bytes_mut(&mut memory), &desc).expect("character");
    let (stop_clip, rest) = (asset.clip(1).expect("stop"), asset.skeleton().rest_pose()[0]);
    let turn_range = Range { start: 0.65, end: 1.15, ..Default::default() };
    let desired = -0.4f32;
    let dt = 1.0 / 60.0;
    character.play(&asset, SlotId::base(0), Play::looping(0)).expect("run");
    let mut world = RootMotion { translation: Vec3::new(100.0, 0.0, 50.0), yaw: 0.3 };
    for _ in 0..50 {
        character.update(dt, &rig).expect("update");
        world = world.then(character.root_motion());
    }
    let at_request = world;
    let stopping = Play { wrap: Wrap::Clamp, ..Play::looping(1) };
    character.transition(&asset, 1, stopping, Blend::Crossfade { duration: 0.2 }).expect("stop");
    character.set_motion_slot(Some(1)).expect("pose-only");
    let turn = TurnToFace::over(&stop_clip, &rest, &turn_range, desired).expect("turn");
    for frame in 0..100 {
        character.update(dt, &rig).expect("update");
        let step = character.last_step(SlotId::base(1)).expect("slot").expect("the stop plays");
        let moved = character.root_motion();
        world = world.then(RootMotion { yaw: moved.yaw + turn.step(step.from, step.to), ..moved });
        if frame < 11 {
            assert!(
                character.last_step(SlotId::base(0)).expect("slot").is_some(),
                "the run still fades out in the pose"
            );
        }
    }
    // The distance after the request is the stop clip's, measured on the source in f64; the facing the asked one.
    let travelled = RootMotion::between(at_request, world);
    let want = oracle_root(&clips[1], 1.3).1 - oracle_root(&clips[1], 0.0).1;
    assert!((want - 365.0 * 0.3).abs() < 1e-3, "the stop brakes over {want} units");
    let distance = (travelled.translation.x as f64).hypot(travelled.translation.z as f64);
    assert!((distance - want).abs() < 2e-3, "stopped after {distance} units, the clip's {want}");
    assert!((travelled.yaw - desired).abs() < 1e-5, "facing {} vs {desired}", travelled.yaw);
    let authored = motion_between(&stop_clip, &rest, 0.0, 1.3).yaw;
    assert!((authored - 0.6).abs() < 1e-5 && (turn.correction() - (desired - 0.6)).abs() < 1e-5);
}

/// `v` (x, z) turned by `yaw` about +Y, as `RootMotion` turns it, in f64.
fn turned(yaw: f64, v: [f64; 2]) -> [f64; 2] {
    [v[0] * yaw.cos() + v[1] * yaw.sin(), v[1] * yaw.cos() - v[0] * yaw.sin()]
}

#[test]
fn a_warped_cmu_jump_lands_its_foot_on_the_moved_runtime_point() {
    // Gears of War 4's warp on CMU 01_01's first jump (airborne 1.84–2.28 s): the authored landmark is the left
    // foot's plant at landing; the game moves it 20 % further from the take-off and turns the jump 15°.
    use sinew::root_motion::{WarpPoint, WarpWindow, root_at};
    let Some(dir) = sinew_tests::shared_data("a warped CMU jump") else { return };
    let bvh = sinew_tools::bvh::Bvh::load(&dir.join("bvh/cmu/01_01.bvh")).expect("load");
    let source = sinew_tools::bvh::to_raw(&bvh, "01_01").expect("raw");
    let (skeleton, clip) = extract_one(&source, Method::Delta);
    let blob = bake::bake(&skeleton, std::slice::from_ref(&clip), bake::KeyFormat::F32).expect("bake");
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let (runtime_clip, rest) = (asset.clip(0).expect("clip"), asset.skeleton().rest_pose()[0]);
    let foot = skeleton.names.iter().position(|n| n == "LeftFoot").expect("LeftFoot");
    let (take_off, landing) = (221usize, 274usize);
    // f64 FK of the extracted clip: the root (joint 0) and the foot in the clip's space.
    let fk = |k: usize| oracle::local_to_model(&skeleton.parents, &clip.frames[k], &IDENTITY);
    let (at_take_off, at_landing) = (fk(take_off), fk(landing));
    let ground = |m: &M4| [m[12], m[14]];
    let heading = |k: usize| root_yaw(&clip.frames[k][0]);
    // The foot in the root's frame at landing: what the warped root carries to the runtime point.
    let (root, plant) = (ground(&at_landing[0]), ground(&at_landing[foot]));
    let in_root = turned(-heading(landing), [plant[0] - root[0], plant[1] - root[1]]);
    // The runtime point: the take-off plant plus the jump 20 % longer, turned 15°; the facing turned with it.
    let start = ground(&at_take_off[foot]);
    let turn = 15f64.to_radians();
    let jump = turned(turn, [1.2 * (plant[0] - start[0]), 1.2 * (plant[1] - start[1])]);
    let point = [start[0] + jump[0], start[1] + jump[1]];
    assert!(jump[0].hypot(jump[1]) > 10.0, "the jump covers {} units", jump[0].hypot(jump[1]));
    // The root that puts the foot there: the point minus the foot's offset under the turned facing.
    let yaw = heading(landing) + turn;
    let offset = turned(yaw, in_root);
    let target = RootMotion {
        translation: Vec3::new((point[0] - offset[0]) as f32, 0.0, (point[1] - offset[1]) as f32),
        yaw: yaw as f32,
    };
    let t = landing as f32 / 120.0;
    let windows = [
        WarpWindow { start: take_off as f32 / 120.0, end: t },
        WarpWindow { start: 1.9, end: t },
        WarpWindow { start: 2.0, end: t },
    ];
    let unwarped = root_at(&runtime_clip, &rest, t);
    let warp = WarpPoint::new(unwarped, target, t, windows).expect("warp");
    let warped = warp.apply(unwarped, t);
    // The landing foot in the world: the warped root carrying the pose's foot (f64).
    let foot_now = turned(warped.yaw as f64, in_root);
    let landed = [warped.translation.x as f64 + foot_now[0], warped.translation.z as f64 + foot_now[1]];
    let miss = (landed[0] - point[0]).hypot(landed[1] - point[1]);
    // CMU units are about 5.6 cm (hips 17.9 units high): 0.01 units is well under 1 cm.
    assert!(miss < 0.01, "the foot lands {miss} units from the runtime point");
    let facing = (warped.yaw as f64 - yaw).rem_euclid(std::f64::consts::TAU);
    assert!(facing.min(std::f64::consts::TAU - facing) < 1e-5, "facing {}", warped.yaw);
    // Before the take-off nothing moves.
    let early = root_at(&runtime_clip, &rest, 1.8);
    assert_eq!(warp.apply(early, 1.8), early);
}
