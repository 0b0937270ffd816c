//! The virtual-point error of baked clips (`sinew_tools::clip_error`): against a closed form on a
//! perturbed chain (a rotation error at the root shows at the furthest point of the child, through the
//! hierarchy), and on the shared clips (f32 keys next to exact, quantized keys at today's figures).

use sinew::Asset;
use sinew::math::{Quat, Transform, Vec3};
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::clip_error::clip_error;
use sinew_tools::raw::{RawClip, RawSkeleton};

fn chain(length: f32) -> RawSkeleton {
    let child = Transform { translation: Vec3::new(0.0, length, 0.0), ..Transform::IDENTITY };
    RawSkeleton {
        names: vec!["root".into(), "child".into()],
        parents: vec![-1, 0],
        rest: vec![Transform::IDENTITY, child],
    }
}

#[test]
fn a_root_rotation_error_shows_at_the_childs_furthest_point() {
    let (length, distance, delta) = (2.0f32, 0.25f64, 0.01f32);
    let skeleton = chain(length);
    let frames: Vec<Vec<Transform>> = (0..4)
        .map(|f| {
            let root = Transform {
                rotation: Quat::from_axis_angle(Vec3::new(0.0, 1.0, 0.0), 0.2 * f as f32),
                ..Transform::IDENTITY
            };
            vec![root, skeleton.rest[1]]
        })
        .collect();
    let raw = RawClip { name: "raw".into(), sample_rate: 30.0, frames, step: sinew_tools::raw::StepKeys::None };
    // The stored clip turns the root a further `delta` about z at every frame.
    let turn = Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), delta);
    let perturbed = RawClip {
        frames: raw.frames.iter().map(|f| vec![Transform { rotation: f[0].rotation * turn, ..f[0] }, f[1]]).collect(),
        ..raw.clone()
    };
    let blob = bake::bake(&skeleton, std::slice::from_ref(&perturbed), KeyFormat::F32).expect("bake");
    let asset = Asset::load(blob.bytes()).expect("load");
    let error = clip_error(&skeleton, &raw, &asset, 0, distance).expect("measured");
    // The child's point along its local y is furthest from the root: L + d; a turn of δ moves it 2 sin(δ/2)(L + d).
    let want = 2.0 * (delta as f64 / 2.0).sin() * (length as f64 + distance);
    assert!((error.max - want).abs() < 1e-6 * want.max(1.0) + 2e-7, "{} vs {want}", error.max);
    assert_eq!(error.samples, 7, "every frame and every midpoint");
    // Measured against itself the stored clip has no error beyond f32 interpolation.
    let own = clip_error(&skeleton, &perturbed, &asset, 0, distance).expect("measured");
    assert!(own.max < 1e-6, "{}", own.max);
}

#[test]
fn a_clip_of_another_skeleton_is_an_error() {
    let skeleton = chain(1.0);
    let raw = RawClip {
        name: "raw".into(),
        sample_rate: 30.0,
        frames: vec![skeleton.rest.clone(); 2],
        step: sinew_tools::raw::StepKeys::None,
    };
    let blob = bake::bake(&skeleton, std::slice::from_ref(&raw), KeyFormat::F32).expect("bake");
    let asset = Asset::load(blob.bytes()).expect("load");
    let three = RawClip { frames: vec![vec![Transform::IDENTITY; 3]; 2], ..raw.clone() };
    assert!(clip_error(&skeleton, &three, &asset, 0, 0.1).is_err());
    assert!(clip_error(&skeleton, &raw, &asset, 1, 0.1).is_err());
}

#[test]
fn shared_clips_error_at_virtual_points() {
    let Some(dir) = sinew_tests::shared_data("shared_clips_error_at_virtual_points") else { return };
    for file in ["bvh/bandai/dataset-1_walk_normal_001.bvh", "bvh/cmu/01_01.bvh"] {
        let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[dir.join(file)]).expect("import");
        let per_cm = sinew_tools::annotate::figure_scale(&skeleton, &clips).units_per_cm();
        for (format, bound_cm) in [(KeyFormat::F32, 1e-3), (KeyFormat::Quantized, 0.05)] {
            let blob = bake::bake(&skeleton, &clips, format).expect("bake");
            let asset = Asset::load(blob.bytes()).expect("load");
            let error = clip_error(&skeleton, &clips[0], &asset, 0, 3.0 * per_cm).expect("measured");
            let (max, p99) = (error.max / per_cm, error.p99 / per_cm);
            eprintln!("{file} {format:?}: max {max:.4} cm, p99 {p99:.4} cm");
            assert!(max <= bound_cm && p99 <= max, "{file} {format:?}: max {max} cm, p99 {p99} cm");
            if format == KeyFormat::Quantized {
                assert!(max > 1e-3, "{file}: quantized keys do lose something ({max} cm)");
            }
        }
    }
}
