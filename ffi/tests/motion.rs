//! Motion correction and warp points through the C ABI against the core's functions, bit for bit, and their
//! refusals (nothing written).

#[path = "support/example.rs"]
mod example;

use example::with_example;
use sinew::curve::{Curve, CurveKey};
use sinew::math::Vec3;
use sinew::motion_correction::{
    Facing, Lean, LeanState, ShiftToSpot, SpeedCurve, Steering, TurnToFace, dynamic_turn, playback_rate,
};
use sinew::root_motion::{RootMotion, WarpPoint, WarpWindow, motion_between};
use sinew::speed_ranges::{SpeedRange, SpeedRanges, SpeedStep, TargetSpeeds};
use sinew_ffi::*;

#[test]
fn corrections_through_c_match_the_core() {
    with_example(|_, asset, core, _, _| {
        // SAFETY: every pointer is valid for the call.
        unsafe {
            // The root's motion over part of a clip.
            let mut between = sinew_root_motion { translation: [0.0; 3], yaw: 0.0 };
            assert_eq!(sinew_clip_motion_between(asset, 1, 0.1, 0.7, &mut between), SINEW_OK);
            let clip = core.clip(1).expect("clip 1");
            let rust = motion_between(&clip, &core.skeleton().rest_pose()[0], 0.1, 0.7);
            assert_eq!((between.translation, between.yaw), (rust.translation.to_array(), rust.yaw));

            // Turn-to-face: steps of a segment against the core, and the whole correction over a partition.
            let segment = sinew_turn_to_face { start: 0.2, end: 0.8, authored: 0.4, desired: 2.9 };
            let turn = TurnToFace::new(0.2, 0.8, 0.4, 2.9).expect("turn");
            let mut total = 0.0;
            for k in 0..10 {
                let (from, to) = (0.1 * k as f32, 0.1 * (k + 1) as f32);
                let mut yaw = 0.0;
                assert_eq!(sinew_turn_to_face_step(&segment, from, to, &mut yaw), SINEW_OK);
                assert_eq!(yaw.to_bits(), turn.step(from, to).to_bits());
                total += yaw;
            }
            assert!((total - turn.correction()).abs() < 1e-5);

            // Shift-to-spot and the dynamic turn.
            let shift =
                sinew_shift_to_spot { start: 0.0, end: 1.0, predicted: [1.0, 0.0, 2.0], target: [1.5, 0.0, 1.0] };
            let mut offset = [0.0f32; 3];
            assert_eq!(sinew_shift_to_spot_step(&shift, 0.25, 0.5, offset.as_mut_ptr()), SINEW_OK);
            let rust_shift =
                ShiftToSpot::new(0.0, 1.0, Vec3::new(1.0, 0.0, 2.0), Vec3::new(1.5, 0.0, 1.0)).expect("shift");
            assert_eq!(offset, rust_shift.step(0.25, 0.5).to_array());
            let mut yaw = 0.0;
            assert_eq!(sinew_dynamic_turn(1.3, 0.4, 0.5, 0.2, 0.9, &mut yaw), SINEW_OK);
            assert_eq!(yaw, dynamic_turn(1.3, 0.4, 0.5, 0.2, 0.9));

            // Steering and lean over a second of frames.
            let steering = sinew_steering { max_acceleration: 6.0, max_rate: 3.0 };
            let lean = sinew_lean { gain: 0.1, max: 0.3, time_constant: 0.15 };
            let (mut facing, mut lean_state) =
                (sinew_facing { yaw: 0.0, rate: 0.0 }, sinew_lean_state { angle: 0.0, rate: 0.0 });
            let rust_steering = Steering::new(6.0, 3.0).expect("steering");
            let rust_lean = Lean::new(0.1, 0.3, 0.15).expect("lean");
            let (mut rust_facing, mut rust_state) = (Facing::default(), LeanState::default());
            for _ in 0..60 {
                assert_eq!(sinew_steering_step(&steering, &mut facing, 2.0, 1.0 / 60.0), SINEW_OK);
                rust_facing = rust_steering.step(rust_facing, 2.0, 1.0 / 60.0);
                assert_eq!((facing.yaw, facing.rate), (rust_facing.yaw, rust_facing.rate));
                assert_eq!(sinew_lean_step(&lean, &mut lean_state, facing.rate, 1.0 / 60.0), SINEW_OK);
                rust_state = rust_lean.step(rust_state, rust_facing.rate, 1.0 / 60.0);
                assert_eq!((lean_state.angle, lean_state.rate), (rust_state.angle, rust_state.rate));
            }
            assert!(facing.yaw > 1.0 && lean_state.angle != 0.0);

            // The playback rate and a speed curve.
            let mut rate = 0.0;
            assert_eq!(sinew_playback_rate(3.1, 2.0, 0.5, 1.4, &mut rate), SINEW_OK);
            assert_eq!(rate, playback_rate(3.1, 2.0, 0.5, 1.4).expect("rate"));
            let keys = [
                sinew_curve_key { time: 0.0, value: 0.0, slope: 0.0 },
                sinew_curve_key { time: 0.5, value: 2.0, slope: 4.0 },
                sinew_curve_key { time: 1.0, value: 5.0, slope: 0.0 },
            ];
            let rust_keys = keys.map(|k| CurveKey { time: k.time, value: k.value, slope: k.slope });
            let rust_curve = SpeedCurve::new(Curve::new(&rust_keys).expect("curve")).expect("speed curve");
            let mut elapsed = 0.0;
            assert_eq!(sinew_speed_curve_enter(keys.as_ptr(), 3, 2.0, &mut elapsed), SINEW_OK);
            assert_eq!(elapsed, rust_curve.enter(2.0).expect("enter"));
            let (mut distance, mut speed) = (0.0, 0.0);
            assert_eq!(
                sinew_speed_curve_step(keys.as_ptr(), 3, &mut elapsed, 0.1, &mut distance, &mut speed),
                SINEW_OK
            );
            let (rust_elapsed, rust_distance) = rust_curve.step(rust_curve.enter(2.0).expect("enter"), 0.1);
            assert_eq!((elapsed, distance, speed), (rust_elapsed, rust_distance, rust_curve.speed(rust_elapsed)));

            // A warp point along a path.
            let marker = sinew_root_motion { translation: [2.0, 0.0, 3.0], yaw: 0.2 };
            let target = sinew_root_motion { translation: [2.5, 0.0, 2.0], yaw: 1.0 };
            let windows = [
                sinew_warp_window { start: 0.1, end: 0.6 },
                sinew_warp_window { start: 0.0, end: 0.4 },
                sinew_warp_window { start: 0.3, end: 0.8 },
            ];
            let warp = sinew_warp_point { marker, target, marker_time: 0.8, windows };
            let rust_warp = WarpPoint::new(
                RootMotion { translation: Vec3::new(2.0, 0.0, 3.0), yaw: 0.2 },
                RootMotion { translation: Vec3::new(2.5, 0.0, 2.0), yaw: 1.0 },
                0.8,
                windows.map(|w| WarpWindow { start: w.start, end: w.end }),
            )
            .expect("warp");
            for k in 0..=10 {
                let time = 0.1 * k as f32;
                let unwarped =
                    sinew_root_motion { translation: [0.3 * k as f32, 0.0, 0.25 * k as f32], yaw: 0.02 * k as f32 };
                let mut warped = sinew_root_motion { translation: [0.0; 3], yaw: 0.0 };
                assert_eq!(sinew_warp_point_apply(&warp, &unwarped, time, &mut warped), SINEW_OK);
                let rust = rust_warp.apply(
                    RootMotion { translation: Vec3::new(0.3 * k as f32, 0.0, 0.25 * k as f32), yaw: 0.02 * k as f32 },
                    time,
                );
                assert_eq!((warped.translation, warped.yaw), (rust.translation.to_array(), rust.yaw), "time {time}");
            }
        }
    });
}

#[test]
fn corrections_refuse_bad_values_and_write_nothing() {
    with_example(|_, asset, _, _, _| {
        // SAFETY: every pointer is valid for the call or deliberately NULL.
        unsafe {
            let mut out = 7.0f32;
            let mut motion = sinew_root_motion { translation: [7.0; 3], yaw: 7.0 };
            assert_eq!(sinew_clip_motion_between(asset, 99, 0.0, 1.0, &mut motion), SINEW_ERROR_INDEX_OUT_OF_RANGE);
            let backwards = sinew_turn_to_face { start: 0.8, end: 0.2, authored: 0.0, desired: 1.0 };
            assert_eq!(sinew_turn_to_face_step(&backwards, 0.0, 1.0, &mut out), SINEW_ERROR_INVALID_ARGUMENT);
            let fine = sinew_turn_to_face { start: 0.2, end: 0.8, ..backwards };
            assert_eq!(sinew_turn_to_face_step(&fine, f32::NAN, 1.0, &mut out), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(sinew_turn_to_face_step(std::ptr::null(), 0.0, 1.0, &mut out), SINEW_ERROR_NULL_POINTER);
            let shift =
                sinew_shift_to_spot { start: 0.0, end: 1.0, predicted: [f32::INFINITY, 0.0, 0.0], target: [0.0; 3] };
            let mut offset = [7.0f32; 3];
            assert_eq!(sinew_shift_to_spot_step(&shift, 0.0, 0.5, offset.as_mut_ptr()), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(sinew_dynamic_turn(f32::NAN, 0.0, 0.1, 0.0, 1.0, &mut out), SINEW_ERROR_INVALID_ARGUMENT);
            let mut facing = sinew_facing { yaw: 7.0, rate: 7.0 };
            let stuck = sinew_steering { max_acceleration: 0.0, max_rate: 1.0 };
            assert_eq!(sinew_steering_step(&stuck, &mut facing, 1.0, 0.1), SINEW_ERROR_INVALID_ARGUMENT);
            let steering = sinew_steering { max_acceleration: 1.0, max_rate: 1.0 };
            assert_eq!(sinew_steering_step(&steering, &mut facing, f32::NAN, 0.1), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(sinew_steering_step(&steering, &mut facing, 1.0, -0.1), SINEW_ERROR_INVALID_ARGUMENT);
            let mut state = sinew_lean_state { angle: 7.0, rate: 7.0 };
            let lean = sinew_lean { gain: 1.0, max: -1.0, time_constant: 0.1 };
            assert_eq!(sinew_lean_step(&lean, &mut state, 1.0, 0.1), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(sinew_playback_rate(1.0, 0.0, 0.5, 2.0, &mut out), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(sinew_playback_rate(1.0, 1.0, 2.0, 0.5, &mut out), SINEW_ERROR_INVALID_ARGUMENT);
            let wavy = [
                sinew_curve_key { time: 0.0, value: 0.0, slope: 0.0 },
                sinew_curve_key { time: 0.5, value: 2.0, slope: 0.0 },
                sinew_curve_key { time: 1.0, value: 1.0, slope: 0.0 },
            ];
            assert_eq!(sinew_speed_curve_enter(wavy.as_ptr(), 3, 1.0, &mut out), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(sinew_speed_curve_enter(wavy.as_ptr(), 1, 1.0, &mut out), SINEW_ERROR_INVALID_ARGUMENT);
            let unordered = [wavy[1], wavy[0]];
            assert_eq!(sinew_speed_curve_enter(unordered.as_ptr(), 2, 1.0, &mut out), SINEW_ERROR_INVALID_ARGUMENT);
            let rising = [wavy[0], wavy[1]];
            let (mut distance, mut speed) = (7.0, 7.0);
            let status = sinew_speed_curve_step(rising.as_ptr(), 2, &mut out, 0.1, &mut distance, &mut speed);
            assert_eq!(status, SINEW_OK, "from 7 s, past the last key");
            out = 7.0;
            let status = sinew_speed_curve_step(rising.as_ptr(), 2, &mut out, f32::NAN, &mut distance, &mut speed);
            assert_eq!(status, SINEW_ERROR_INVALID_ARGUMENT);
            let late = sinew_warp_point {
                marker: motion,
                target: motion,
                marker_time: 0.5,
                windows: [sinew_warp_window { start: 0.0, end: 0.9 }; 3],
            };
            let mut warped = sinew_root_motion { translation: [9.0; 3], yaw: 9.0 };
            let unwarped = sinew_root_motion { translation: [0.0; 3], yaw: 0.0 };
            assert_eq!(sinew_warp_point_apply(&late, &unwarped, 0.2, &mut warped), SINEW_ERROR_INVALID_ARGUMENT);
            let fine_warp = sinew_warp_point { windows: [sinew_warp_window { start: 0.0, end: 0.5 }; 3], ..late };
            assert_eq!(
                sinew_warp_point_apply(&fine_warp, &unwarped, f32::NAN, &mut warped),
                SINEW_ERROR_INVALID_ARGUMENT
            );
            assert_eq!(out, 7.0);
            assert_eq!(offset, [7.0; 3]);
            assert_eq!((facing.yaw, facing.rate, state.angle, state.rate), (7.0, 7.0, 7.0, 7.0));
            assert_eq!((motion.yaw, warped.yaw), (7.0, 9.0));
        }
    });
}

#[test]
fn target_speeds_and_speed_ranges_through_c_match_the_core() {
    let steps = [sinew_speed_step { pad: 0.0, speed: 1.5 }, sinew_speed_step { pad: 0.3, speed: 5.5 }];
    let core_steps = steps.map(|s| SpeedStep { pad: s.pad, speed: s.speed });
    let targets = TargetSpeeds::new(&core_steps).unwrap();
    let ranges = [
        sinew_speed_range { low: 0.0, high: 3.5, reference_speed: 1.5, clip: 4 },
        sinew_speed_range { low: 2.5, high: 5.5, reference_speed: 5.5, clip: 2 },
    ];
    let core_ranges =
        ranges.map(|r| SpeedRange { low: r.low, high: r.high, reference_speed: r.reference_speed, clip: r.clip });
    let selector = SpeedRanges::new(&core_ranges, 0.6, 1.7).unwrap();
    // SAFETY: every pointer is valid for the call.
    unsafe {
        for k in 0..=60 {
            let pad = k as f32 / 50.0 - 0.1;
            let mut speed = 7.0f32;
            assert_eq!(sinew_target_speed(steps.as_ptr(), steps.len(), pad, &mut speed), SINEW_OK);
            assert_eq!(speed, targets.at(pad).unwrap(), "pad {pad}");
            let v = k as f32 * 0.1;
            let mut shares = [sinew_speed_share { clip: 7, weight: 7.0, rate: 7.0 }; 2];
            let mut count = 7u32;
            let status = sinew_speed_ranges_select(ranges.as_ptr(), 2, 0.6, 1.7, v, shares.as_mut_ptr(), &mut count);
            assert_eq!(status, SINEW_OK);
            let want = selector.select(v).unwrap();
            assert_eq!(count as usize, want.as_slice().len(), "v {v}");
            for (got, want) in shares.iter().zip(want.as_slice()) {
                assert_eq!((got.clip, got.weight, got.rate), (want.clip, want.weight, want.rate), "v {v}");
            }
            // A second share is written only in an overlap.
            if count == 1 {
                assert_eq!(shares[1].clip, 7);
            }
        }
        // Refusals write nothing.
        let mut speed = 7.0f32;
        assert_eq!(sinew_target_speed(steps.as_ptr(), 2, f32::NAN, &mut speed), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(sinew_target_speed(steps[1..].as_ptr(), 1, 0.5, &mut speed), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(sinew_target_speed(std::ptr::null(), 2, 0.5, &mut speed), SINEW_ERROR_NULL_POINTER);
        assert_eq!(speed, 7.0);
        let mut shares = [sinew_speed_share { clip: 7, weight: 7.0, rate: 7.0 }; 2];
        let mut count = 7u32;
        let gap = [ranges[0], sinew_speed_range { low: 4.0, ..ranges[1] }];
        let out = shares.as_mut_ptr();
        assert_eq!(
            sinew_speed_ranges_select(gap.as_ptr(), 2, 0.6, 1.7, 3.0, out, &mut count),
            SINEW_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            sinew_speed_ranges_select(ranges.as_ptr(), 2, 0.6, 1.7, f32::NAN, out, &mut count),
            SINEW_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            sinew_speed_ranges_select(ranges.as_ptr(), 0, 0.6, 1.7, 3.0, out, &mut count),
            SINEW_ERROR_INVALID_ARGUMENT
        );
        let status = sinew_speed_ranges_select(ranges.as_ptr(), 2, 0.6, 1.7, 3.0, std::ptr::null_mut(), &mut count);
        assert_eq!(status, SINEW_ERROR_NULL_POINTER);
        assert_eq!((count, shares[0].clip, shares[1].weight), (7, 7, 7.0));
    }
}
