//! A looping clip's seam (`sinew_tools::loops`): measured against an independent reading of the frames, and
//! closed by `fix_loop` in value (C0) and velocity (C1) while the clip's start stays as it was.

use sinew_tests::{Rng, random_clip};
use sinew_tools::dmath::{Trs, virtual_points};
use sinew_tools::loops::{fix_loop, loop_gap};

#[test]
fn the_fix_closes_the_seam_in_value_and_velocity_and_keeps_the_start() {
    let mut rng = Rng::new(0x100F);
    for (n, frames) in [(5, 4), (5, 12), (22, 40)] {
        let (skeleton, clip) = random_clip(&mut rng, n, frames);
        let distance = 0.1;
        let before = loop_gap(&skeleton, &clip, distance, &[]);
        // An independent reading of the C0 gap: the largest distance of a point between the ends.
        let points = |clip: &sinew_tools::raw::RawClip, f: usize| {
            virtual_points(&skeleton.parents, &clip.frames[f].iter().map(Trs::of).collect::<Vec<_>>(), distance)
        };
        let (first, last) = (points(&clip, 0), points(&clip, frames - 1));
        let c0 = first.iter().zip(&last).flat_map(|(a, b)| (0..4).map(|p| a[p].distance(b[p]))).fold(0.0, f64::max);
        assert!((before.c0 - c0).abs() <= 1e-12 * c0.max(1.0), "{n} joints: {} against {c0}", before.c0);
        assert!(before.c0 > 1e-3 && before.c1 > 1e-3, "{n} joints: the random clip must not loop already");
        let fixed = fix_loop(&clip, &[]);
        let after = loop_gap(&skeleton, &fixed, distance, &[]);
        assert_eq!(fixed.frames[frames - 1], fixed.frames[0], "{n} joints: the end is the first frame");
        assert!(after.c0 == 0.0, "{n} joints: C0 {}", after.c0);
        // C1 holds per joint in local space: the last step into the end equals the first step out, for
        // translations and scales as differences and for rotations as turns (`q[k] q[k−1]⁻¹`).
        let key = |f: usize, j: usize| Trs::of(&fixed.frames[f][j]);
        for j in 0..n {
            let [x0, x1, xb, xl] = [0, 1, frames - 2, frames - 1].map(|f| key(f, j));
            let out_of = (x1.translation - x0.translation, x1.scale - x0.scale, x1.rotation * x0.rotation.inverse());
            let into = (xl.translation - xb.translation, xl.scale - xb.scale, xl.rotation * xb.rotation.inverse());
            assert!((out_of.0 - into.0).length() < 1e-5, "{n} joints: joint {j} translation {out_of:?} {into:?}");
            assert!((out_of.1 - into.1).length() < 1e-5, "{n} joints: joint {j} scale");
            assert!(out_of.2.angle_between(into.2) < 1e-5, "{n} joints: joint {j} turn {out_of:?} {into:?}");
        }
        // In model space C1 closes to second order in a frame's step (the random clip turns up to 0.3 rad a
        // frame), so the velocity change across the wrap falls but not to zero.
        assert!(after.c1 < 0.5 * before.c1, "{n} joints: C1 {} from {}", after.c1, before.c1);
        // The first frame is kept; the frames near it hardly move (the correction's slope is zero there).
        assert_eq!(fixed.frames[0], clip.frames[0]);
    }
}

#[test]
fn kept_joints_are_left_as_they_are_and_measured_in_their_own_space() {
    let mut rng = Rng::new(0x100E);
    let (skeleton, clip) = random_clip(&mut rng, 7, 20);
    let roots: Vec<usize> = (0..7).filter(|&j| skeleton.parents[j] < 0).collect();
    let fixed = fix_loop(&clip, &roots);
    for (f, (a, b)) in fixed.frames.iter().zip(&clip.frames).enumerate() {
        for &j in &roots {
            assert_eq!(a[j], b[j], "frame {f}, joint {j}");
        }
    }
    // Measured with the roots held, the fixed clip's seam is closed.
    let after = loop_gap(&skeleton, &fixed, 0.1, &roots);
    assert!(after.c0 < 1e-5, "C0 {}", after.c0);
}

#[test]
fn clips_too_short_for_a_seam_come_back_unchanged() {
    let mut rng = Rng::new(0x100D);
    for frames in 1..4 {
        let (skeleton, clip) = random_clip(&mut rng, 5, frames);
        assert_eq!(fix_loop(&clip, &[]).frames, clip.frames, "{frames} frames");
        if frames < 3 {
            let gap = loop_gap(&skeleton, &clip, 0.1, &[]);
            assert_eq!((gap.c0, gap.c1), (0.0, 0.0), "{frames} frames");
        }
    }
}
