//! Motion correction: turn-to-face segments sum to their correction for any partition and spread it evenly,
//! the dynamic variant reaches a moving target, steering never overshoots and arrives in the braking curve's
//! time, and playback rates clamp; bad parameters are errors.

use sinew::Error;
use sinew::motion_correction::{Facing, Steering, TurnToFace, dynamic_turn, playback_rate};
use sinew_tests::Rng;

#[test]
fn a_turn_to_face_segment_adds_its_correction_evenly_for_any_partition() {
    // The seed's example: authored 180°, desired 150°: −30° over a 15-frame segment at 30 Hz, −2° a frame.
    let segment = TurnToFace::new(0.2, 0.7, 180f32.to_radians(), 150f32.to_radians()).unwrap();
    assert!((segment.correction() - (-30f32).to_radians()).abs() < 1e-6);
    let per_frame = segment.step(0.3, 0.3 + 1.0 / 30.0);
    assert!((per_frame - (-2f32).to_radians()).abs() < 1e-6, "{}", per_frame.to_degrees());
    let mut rng = Rng::new(0x77);
    for rate in [30.0f32, 60.0, 144.0, 0.0] {
        // Steps from before the segment to after it, at a frame rate or (0) random steps, forward play.
        let (mut t, mut sum, mut evenness) = (0.0f32, 0.0f64, 0.0f64);
        while t < 1.0 {
            let dt = if rate > 0.0 { 1.0 / rate } else { rng.range(0.001, 0.05) };
            let added = segment.step(t, t + dt);
            let inside = ((t + dt).min(0.7) - t.max(0.2)).max(0.0);
            if inside > 1e-4 {
                evenness = evenness.max((added / inside - segment.correction() / 0.5).abs() as f64);
            } else {
                assert_eq!(added, 0.0, "outside the segment nothing is added");
            }
            sum += added as f64;
            t += dt;
        }
        assert!((sum - segment.correction() as f64).abs() < 1e-5, "{rate} Hz: {sum} of {}", segment.correction());
        assert!(evenness < 1e-4, "{rate} Hz: the per-second correction varies by {evenness}");
    }
    // Backward play takes the same share; a zero-length segment applies all of it once.
    assert_eq!(segment.step(0.5, 0.4), segment.step(0.4, 0.5));
    let instant = TurnToFace::new(0.5, 0.5, 0.0, 0.3).unwrap();
    assert_eq!((instant.step(0.4, 0.5), instant.step(0.5, 0.6), instant.step(0.3, 0.4)), (0.3, 0.0, 0.0));
    // The desired turn is taken within π of the authored one: −170° against an authored +180° is +190°.
    let far = TurnToFace::new(0.0, 1.0, 180f32.to_radians(), (-170f32).to_radians()).unwrap();
    assert!((far.correction() - 10f32.to_radians()).abs() < 1e-5, "{}", far.correction().to_degrees());
}

#[test]
fn the_dynamic_turn_reaches_a_moving_target() {
    // The clip turns 90° over the 1 s segment at a constant rate; the target starts 40° off and turns 30°/s.
    let (start, end, authored_rate) = (0.5f32, 1.5f32, 90f32.to_radians());
    for rate in [30.0f32, 60.0, 144.0] {
        let dt = 1.0 / rate;
        let (mut t, mut facing) = (0.0f32, 0.0f32);
        let target = |t: f32| 40f32.to_radians() + authored_rate + 30f32.to_radians() * t;
        while t < end - 1e-6 {
            let step = dt.min(end - t);
            let inside = ((t + step).min(end) - t.max(start)).max(0.0);
            let still_to_turn = authored_rate * (end - t.max(start)).min(end - start);
            // The error at the segment's end if nothing were corrected, toward where the target is now.
            let error = target(t) - (facing + still_to_turn);
            facing += authored_rate * inside + dynamic_turn(error, t, t + step, start, end);
            t += step;
        }
        // What is left is the target's motion over the last frame.
        let left = (target(end) - facing).abs();
        assert!(left <= 30f32.to_radians() * dt + 1e-4, "{rate} Hz: {left} rad off");
    }
}

#[test]
fn steering_brakes_onto_its_target_without_overshoot() {
    let steering = Steering::new(8.0, 6.0).unwrap();
    for rate in [30.0f32, 60.0, 144.0] {
        let dt = 1.0 / rate;
        for target in [0.5f32, -2.0, 3.0] {
            let mut facing = Facing::default();
            let mut frames = 0;
            while facing.yaw != target && frames < 10_000 {
                let next = steering.step(facing, target, dt);
                let most = 8.0 * dt;
                assert!(
                    (next.rate - facing.rate).abs() <= most + 1e-5,
                    "{rate} Hz, {target}: rate {} -> {} at yaw {} -> {}",
                    facing.rate,
                    next.rate,
                    facing.yaw,
                    next.yaw
                );
                assert!(next.rate.abs() <= 6.0 + 1e-5);
                assert!((target - next.yaw) * target >= -1e-6, "{rate} Hz, {target}: overshot to {}", next.yaw);
                facing = next;
                frames += 1;
            }
            // On the target; the next steps drain what rate is left (one, and one more for rounding).
            for _ in 0..2 {
                let settled = steering.step(facing, target, dt);
                assert!((settled.rate - facing.rate).abs() <= 8.0 * dt + 1e-5 && settled.yaw == target);
                facing = settled;
            }
            assert_eq!(facing, Facing { yaw: target, rate: 0.0 }, "{rate} Hz: stopped on the target");
            // Below the rate limit (|e| ≤ 4.5 rad here), from rest: accelerate then brake, 2 √(|e| / α).
            let ideal = 2.0 * (target.abs() / 8.0).sqrt() * rate;
            assert!((frames as f32 - ideal).abs() <= 3.0, "{rate} Hz, {target}: {frames} frames, ideal {ideal}");
        }
    }
}

#[test]
fn playback_rates_clamp_and_bad_parameters_are_errors() {
    // The seed's example: 4.0 m/s in game against a 3.4 m/s start is 1.17×.
    assert!((playback_rate(4.0, 3.4, 0.8, 1.25).unwrap() - 4.0 / 3.4).abs() < 1e-6);
    assert_eq!(playback_rate(10.0, 3.4, 0.8, 1.25), Ok(1.25));
    assert_eq!(playback_rate(0.0, 3.4, 0.8, 1.25), Ok(0.8));
    for (game, reference, min, max) in
        [(1.0, 0.0, 0.8, 1.2), (1.0, 1.0, 1.2, 0.8), (f32::NAN, 1.0, 0.8, 1.2), (1.0, 1.0, 0.0, 1.2)]
    {
        assert_eq!(playback_rate(game, reference, min, max), Err(Error::InvalidCorrection));
    }
    assert_eq!(Steering::new(0.0, 1.0), Err(Error::InvalidCorrection));
    assert_eq!(Steering::new(1.0, -1.0), Err(Error::InvalidCorrection));
    assert_eq!(TurnToFace::new(1.0, 0.5, 0.0, 0.0), Err(Error::InvalidCorrection));
    assert_eq!(TurnToFace::new(0.0, 1.0, f32::NAN, 0.0), Err(Error::InvalidCorrection));
    // A NaN target or step leaves the facing alone.
    let facing = Facing { yaw: 0.3, rate: 1.0 };
    assert_eq!(Steering::new(1.0, 1.0).unwrap().step(facing, f32::NAN, 0.1), facing);
}

#[test]
fn the_lean_follows_the_turn_clamped_and_does_not_sway() {
    use sinew::motion_correction::{Lean, LeanState};
    let lean = Lean::new(0.15, 0.25, 0.2).unwrap();
    for rate in [30.0f32, 60.0, 144.0] {
        let dt = 1.0 / rate;
        // A steady turn at 1.2 rad/s converges to 0.18 rad; at 3 rad/s the target clamps to 0.25.
        for (turn, settled) in [(1.2f32, 0.18f32), (3.0, 0.25), (-3.0, -0.25)] {
            let mut state = LeanState::default();
            for _ in 0..(3.0 * rate) as usize {
                state = lean.step(state, turn, dt);
                assert!(state.angle.abs() <= 0.25, "{rate} Hz: lean {} past the limit", state.angle);
            }
            assert!((state.angle - settled).abs() < 1e-4, "{rate} Hz, turn {turn}: {}", state.angle);
        }
        // The pad flipping left and right at 2 Hz: the lean's swing stays well under the static lean and does
        // not grow.
        let (mut state, mut swing_early, mut swing_late) = (LeanState::default(), 0.0f32, 0.0f32);
        let frames = (10.0 * rate) as usize;
        for k in 0..frames {
            let t = k as f32 * dt;
            let turn = if ((t * 4.0) as usize).is_multiple_of(2) { 1.2 } else { -1.2 };
            state = lean.step(state, turn, dt);
            let swing = state.angle.abs();
            if (2.0..5.0).contains(&t) {
                swing_early = swing_early.max(swing);
            } else if t >= 7.0 {
                swing_late = swing_late.max(swing);
            }
        }
        assert!(swing_early < 0.5 * 0.18, "{rate} Hz: swing {swing_early} against a static 0.18");
        assert!(swing_late <= swing_early + 1e-4, "{rate} Hz: the swing grew to {swing_late}");
    }
    // Frame-rate independence: the same second of turning lands on the same lean.
    let at = |rate: f32| (0..rate as usize).fold(LeanState::default(), |s, _| lean.step(s, 1.2, 1.0 / rate)).angle;
    assert!((at(30.0) - at(144.0)).abs() < 1e-5);
    assert_eq!(Lean::new(0.1, 0.0, 0.2), Err(Error::InvalidCorrection));
    assert_eq!(Lean::new(f32::NAN, 0.2, 0.2), Err(Error::InvalidCorrection));
    assert_eq!(Lean::new(0.1, 0.2, -1.0), Err(Error::InvalidCorrection));
}

/// CMU 01_01 with its delta root motion extracted, baked in f32 keys, with the extracted clip for the oracle.
fn cmu_with_root_motion(test: &str) -> Option<(sinew_tools::raw::RawClip, sinew_tools::raw::AlignedBlob)> {
    use sinew_tools::root_motion::{Extraction, extract};
    let dir = sinew_tests::shared_data(test)?;
    let bvh = sinew_tools::bvh::Bvh::load(&dir.join("bvh/cmu/01_01.bvh")).expect("load");
    let (skeleton, clip) = sinew_tools::bvh::to_raw(&bvh, "01_01").expect("raw");
    let (skeleton, mut clips) = extract(&skeleton, &[clip], &Extraction::default()).expect("extract");
    let blob = sinew_tools::bake::bake(&skeleton, &clips, sinew_tools::bake::KeyFormat::F32).expect("bake");
    Some((clips.remove(0), blob))
}

/// The extracted root's heading on frames `first..=last`, unwrapped in f64.
fn unwrapped_heading(clip: &sinew_tools::raw::RawClip, first: usize, last: usize) -> f64 {
    let yaw = |k: usize| {
        let q = clip.frames[k][0].rotation;
        2.0 * (q.y as f64).atan2(q.w as f64)
    };
    (first..last)
        .map(|k| (yaw(k + 1) - yaw(k) + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI)
        .sum()
}

#[test]
fn the_cmu_turn_in_place_ends_facing_the_desired_way_and_is_untouched_outside_its_segment() {
    use sinew::root_motion::motion_between;
    let Some((raw, blob)) = cmu_with_root_motion("turn-to-face on the CMU turn in place") else { return };
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let (clip, rest) = (asset.clip(0).expect("clip"), asset.skeleton().rest_pose()[0]);
    // The turn in place (frames 996..=1224 at 120 Hz, 8.3–10.2 s): about −178°, read across half turns.
    let (first, last) = (996, 1224);
    let range = sinew::asset::Range { start: first as f32 / 120.0, end: last as f32 / 120.0, ..Default::default() };
    let authored = motion_between(&clip, &rest, range.start, range.end).yaw as f64;
    let want = unwrapped_heading(&raw, first, last);
    assert!((authored - want).abs() < 1e-4, "authored turn {} vs {}", authored.to_degrees(), want.to_degrees());
    let back = motion_between(&clip, &rest, range.end, range.start);
    assert_eq!(back, motion_between(&clip, &rest, range.start, range.end).inverse(), "backward: the inverse");
    assert!((want.to_degrees() + 178.0).abs() < 6.0, "the file turns about −178°: {}", want.to_degrees());
    for desired in [-150f32, -200.0] {
        let turn = TurnToFace::over(&clip, &rest, &range, desired.to_radians()).expect("segment");
        // Play 7.5–11 s at 60 Hz; the facing with and without the correction.
        let (mut plain, mut corrected, mut at_start) = (0.0f64, 0.0f64, None);
        for k in 450..660 {
            let (from, to) = (k as f32 / 60.0, (k + 1) as f32 / 60.0);
            let step = motion_between(&clip, &rest, from, to).yaw as f64;
            plain += step;
            corrected += step + turn.step(from, to) as f64;
            if to <= range.start {
                assert_eq!(plain, corrected, "before the segment the facing is the clip's");
            }
            if (to - range.start).abs() < 1e-6 {
                at_start = Some(corrected);
            }
            if to >= range.end {
                let shift = corrected - plain;
                assert!((shift - turn.correction() as f64).abs() < 2e-5, "after: the clip's turn plus the correction");
            }
            if (to - range.end).abs() < 1e-6 {
                let turned = corrected - at_start.expect("the segment's start on the 60 Hz grid");
                assert!((turned - desired.to_radians() as f64).abs() < 1e-4, "{desired}°: {}", turned.to_degrees());
            }
        }
    }
}

#[test]
fn a_shift_to_a_spot_lands_a_cmu_jump_there_for_any_partition() {
    use sinew::math::Vec3;
    use sinew::motion_correction::ShiftToSpot;
    use sinew::root_motion::{RootMotion, motion_between};
    let Some((_, blob)) = cmu_with_root_motion("shift-to-spot on a CMU jump") else { return };
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let (clip, rest) = (asset.clip(0).expect("clip"), asset.skeleton().rest_pose()[0]);
    // The first jump's approach and flight, 0.5–2.28 s: the game wants the landing 6 units further and 2 aside.
    let (start, end) = (0.5f32, 2.28f32);
    let mut rng = Rng::new(0x5707);
    for rate in [30.0f32, 60.0, 144.0, 0.0] {
        let world = RootMotion { translation: Vec3::new(40.0, 0.0, -12.0), yaw: 0.7 };
        let predicted = world.then(motion_between(&clip, &rest, start, end)).translation;
        let target = Vec3::new(predicted.x + 2.0, 0.0, predicted.z + 6.0);
        let shift = ShiftToSpot::new(start, end, predicted, target).expect("shift");
        let (mut t, mut root) = (start, world);
        while t < end {
            let to = (t + if rate > 0.0 { 1.0 / rate } else { rng.range(0.002, 0.04) }).min(end);
            root = root.then(motion_between(&clip, &rest, t, to));
            let add = shift.step(t, to);
            root.translation = Vec3::new(root.translation.x + add.x, root.translation.y, root.translation.z + add.z);
            t = to;
        }
        let miss = (root.translation.x - target.x).abs().max((root.translation.z - target.z).abs());
        assert!(miss < 2e-3, "{rate} Hz: lands {miss} units from the spot");
    }
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    assert_eq!(ShiftToSpot::new(0.0, 1.0, nan, Vec3::ZERO), Err(Error::InvalidCorrection));
    assert_eq!(ShiftToSpot::new(1.0, 0.0, Vec3::ZERO, Vec3::ZERO), Err(Error::InvalidCorrection));
}
