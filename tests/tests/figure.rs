//! The figure's standing height, the unit of every centimetre option: the taller of the rest pose's height and a
//! clip's median frame height, checked against an f64 reading of the same poses.

use sinew::math::{Quat, Transform, Vec3};
use sinew_tests::oracle;
use sinew_tools::annotate::{FigureScale, clip_figure_height, figure_height, figure_scale, model_positions};
use sinew_tools::raw::{RawClip, RawSkeleton, StepKeys};

/// The vertical extent of the joints of `pose`, composed in f64.
fn height(skeleton: &RawSkeleton, pose: &[Transform]) -> f64 {
    let model = oracle::local_to_model(&skeleton.parents, pose, &oracle::IDENTITY);
    let ys = model.iter().map(|m| m[13]);
    ys.clone().fold(f64::MIN, f64::max) - ys.fold(f64::MAX, f64::min)
}

/// The f64 rule: the rest pose's height, or the tallest per-clip median frame height (nearest rank, rounding
/// the middle index as the tools' percentile does) when taller.
fn expected(skeleton: &RawSkeleton, clips: &[RawClip]) -> f64 {
    let median = |clip: &RawClip| {
        let mut heights: Vec<f64> = clip.frames.iter().map(|f| height(skeleton, f)).collect();
        heights.sort_by(f64::total_cmp);
        heights[((heights.len() - 1) as f64 * 0.5).round() as usize]
    };
    clips.iter().map(median).fold(height(skeleton, &skeleton.rest), f64::max)
}

/// A chain of `links` joints, each 10 units above the last, its root turned by `lean` about +Z.
fn chain(links: usize, lean: f32) -> RawSkeleton {
    let link = |j: usize| Transform {
        translation: Vec3::new(0.0, if j == 0 { 0.0 } else { 10.0 }, 0.0),
        rotation: if j == 0 { Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), lean) } else { Quat::IDENTITY },
        scale: Vec3::new(1.0, 1.0, 1.0),
    };
    RawSkeleton {
        names: (0..links).map(|j| format!("j{j}")).collect(),
        parents: (0..links as i16).map(|j| j - 1).collect(),
        rest: (0..links).map(link).collect(),
    }
}

/// `frames` poses of `skeleton` with the root turned to `lean(f)` and every other joint bent by `bend(f)`.
fn clip(skeleton: &RawSkeleton, frames: usize, lean: impl Fn(usize) -> f32, bend: impl Fn(usize) -> f32) -> RawClip {
    let pose = |f: usize| {
        let mut pose = skeleton.rest.clone();
        pose[0].rotation = Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), lean(f));
        for t in &mut pose[1..] {
            t.rotation = Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), bend(f));
        }
        pose
    };
    RawClip { name: "clip".into(), sample_rate: 30.0, frames: (0..frames).map(pose).collect(), step: StepKeys::None }
}

#[test]
fn a_rest_pose_lying_down_takes_the_standing_clips_height() {
    // The rest pose lies along +X (40 units long, nearly no height); the clip stands it up, swaying.
    let skeleton = chain(5, -1.55);
    let standing = clip(&skeleton, 41, |f| 0.2 * (f as f32 * 0.3).sin(), |f| 0.1 * (f as f32 * 0.5).cos());
    let want = expected(&skeleton, std::slice::from_ref(&standing));
    assert!(want > 35.0, "the oracle's standing height: {want}");
    let got = figure_height(&skeleton, std::slice::from_ref(&standing)) as f64;
    assert!((got - want).abs() <= 1e-4 * want, "{got} against {want}");
    // Without clips the rest pose is all there is.
    let rest = height(&skeleton, &skeleton.rest);
    assert!((figure_height(&skeleton, &[]) as f64 - rest).abs() <= 1e-4 * want.max(1.0));
    // Several clips: the tallest median wins, not the tallest frame.
    let crouching = clip(&skeleton, 41, |_| 0.0, |f| if f == 7 { 0.0 } else { 1.2 });
    let clips = [crouching, standing];
    let got = figure_height(&skeleton, &clips) as f64;
    assert!((got - expected(&skeleton, &clips)).abs() <= 1e-4 * want, "{got}");
    assert!((got - want).abs() <= 1e-4 * want, "the standing clip's median decides: {got} against {want}");
}

#[test]
fn a_crouching_clip_keeps_the_rest_pose_height() {
    let skeleton = chain(6, 0.0);
    let crouching = clip(&skeleton, 30, |_| 0.0, |f| 0.8 + 0.01 * f as f32);
    let rest = height(&skeleton, &skeleton.rest);
    assert!((rest - 50.0).abs() < 1e-4);
    let got = figure_height(&skeleton, std::slice::from_ref(&crouching)) as f64;
    assert!((got - rest).abs() <= 1e-4 * rest, "{got}");
    match figure_scale(&skeleton, std::slice::from_ref(&crouching)) {
        FigureScale::Centimetres { units_per_cm } => assert!((units_per_cm * 170.0 - rest).abs() <= 1e-3),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_flat_rest_pose_is_no_figure_whatever_its_clips_do() {
    // Every joint on the ground plane at rest; the clip lifts them.
    let mut skeleton = chain(3, 0.0);
    for t in &mut skeleton.rest[1..] {
        t.translation = Vec3::new(10.0, 0.0, 0.0);
    }
    let hopping = clip(&skeleton, 20, |f| 0.3 * f as f32, |_| 0.0);
    assert!(expected(&skeleton, std::slice::from_ref(&hopping)) > 1.0);
    assert_eq!(figure_scale(&skeleton, std::slice::from_ref(&hopping)), FigureScale::FileUnits { size: 20.0 });
}

#[test]
fn bandai_walks_at_the_height_of_its_median_frame() {
    let Some(dir) = sinew_tests::shared_data("bandai_walks_at_the_height_of_its_median_frame") else { return };
    let path = dir.join("bvh/bandai/dataset-1_walk_normal_001.bvh");
    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[path]).expect("import");
    let rest = height(&skeleton, &skeleton.rest);
    let want = expected(&skeleton, &clips);
    // Its rest pose lies along +X: the walk stands a third taller.
    assert!(want > 1.3 * rest, "{want} against a rest pose {rest} tall");
    let got = figure_height(&skeleton, &clips) as f64;
    assert!((got - want).abs() <= 1e-4 * want, "{got} against {want}");
    // The detectors' reading from positions at hand is the same height.
    let positions = model_positions(&skeleton, &clips[0]);
    assert_eq!(clip_figure_height(&skeleton, &positions), figure_height(&skeleton, &clips));
}
