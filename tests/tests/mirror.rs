//! Mirrored clips (`sinew-bake bake --mirror`) against an f64 reflection of their sources: every joint lands on
//! its partner's reflected position, the rest offsets are kept, mirroring twice gives the source back; on a
//! synthetic figure whose joint axes mirror by half turns and on the Bandai walk (whose rest pose is not a
//! symmetric pose). Then the pairing rules and every refusal.

use glam::{DQuat, DVec3};
use sinew::math::{Quat, Transform, Vec3};
use sinew_tools::annotate::{figure_scale, other_side};
use sinew_tools::dmath::{Trs, compose};
use sinew_tools::mirror::{mirror_annotations, mirror_clips, partners};
use sinew_tools::raw::{RawAnnotations, RawClip, RawRange, RawSkeleton, StepKeys};

fn positions(skeleton: &RawSkeleton, pose: &[Transform]) -> Vec<DVec3> {
    let local: Vec<Trs> = pose.iter().map(Trs::of).collect();
    compose(&skeleton.parents, &local).iter().map(|m| m.w_axis.truncate()).collect()
}

fn to_f32(q: DQuat) -> Quat {
    Quat::new(q.x as f32, q.y as f32, q.z as f32, q.w as f32)
}

fn to_vec3(v: DVec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}

fn reflect_x(v: DVec3) -> DVec3 {
    DVec3::new(-v.x, v.y, v.z)
}

/// `S R S` for the reflection across x = 0.
fn reflected_x(q: DQuat) -> DQuat {
    DQuat::from_xyzw(q.x, -q.y, -q.z, q.w)
}

/// A symmetric figure built in model space: the right side's rest frames are the left side's reflected and then
/// turned half round x, y or z (as rigs mirror their axes), the centre's turned about x only (which a
/// reflection across x leaves alone); or, with `identity_rest`, a BVH's rest without rotations whose legs mirror
/// by half turns; and a clip of smoothly wandering rotations with a walking root.
fn synthetic(rng: &mut sinew_tests::Rng, identity_rest: bool) -> (RawSkeleton, RawClip) {
    let names = ["Hips", "Spine", "Head", "LeftUpLeg", "LeftLeg", "LeftFoot", "RightUpLeg", "RightLeg", "RightFoot"]
        .into_iter()
        .chain(["LeftArm", "RightArm"]);
    let names: Vec<String> = names.map(String::from).collect();
    let parents: Vec<i16> = vec![-1, 0, 1, 0, 3, 4, 0, 6, 7, 1, 1];
    let random_rotation = |rng: &mut sinew_tests::Rng| {
        let q = rng.quat();
        DQuat::from_xyzw(f64::from(q.x), f64::from(q.y), f64::from(q.z), f64::from(q.w)).normalize()
    };
    let about_x = |angle: f64| DQuat::from_rotation_x(angle);
    let half_turns =
        [DQuat::IDENTITY, DQuat::from_rotation_x(std::f64::consts::PI), DQuat::from_rotation_y(std::f64::consts::PI)];
    let mut model_rotation = vec![DQuat::IDENTITY; 11];
    let mut model_position = vec![DVec3::ZERO; 11];
    model_position[0] = DVec3::new(0.0, 95.0, 0.0);
    for (j, p) in [(1, DVec3::new(0.0, 110.0, 2.0)), (2, DVec3::new(0.0, 150.0, 3.0))] {
        model_position[j] = p;
    }
    for rotation in &mut model_rotation[..3] {
        *rotation = about_x(f64::from(rng.range(-1.0, 1.0)));
    }
    let left = [(3, DVec3::new(9.0, 90.0, 0.0)), (4, DVec3::new(10.0, 50.0, 1.0)), (5, DVec3::new(10.0, 8.0, -2.0))];
    for (k, &(j, p)) in left.iter().chain(&[(9, DVec3::new(18.0, 140.0, 0.0))]).enumerate() {
        let partner = if j == 9 { 10 } else { j + 3 };
        model_rotation[j] = random_rotation(rng);
        model_position[j] = p;
        model_rotation[partner] = reflected_x(model_rotation[j]) * half_turns[k % 3];
        model_position[partner] = reflect_x(p);
    }
    let mut rest: Vec<Transform> = (0..11)
        .map(|j| {
            let (rotation, translation) = match usize::try_from(parents[j]) {
                Ok(p) => (
                    model_rotation[p].inverse() * model_rotation[j],
                    model_rotation[p].inverse() * (model_position[j] - model_position[p]),
                ),
                Err(_) => (model_rotation[j], model_position[j]),
            };
            Transform { translation: to_vec3(translation), rotation: to_f32(rotation.normalize()), scale: Vec3::ONE }
        })
        .collect();
    if identity_rest {
        // A BVH's rest: no rotations, and the right side's offsets the left's reflected and turned half round
        // by the parent's convention, so the rest pose is not a symmetric pose (Bandai's is one of these).
        for (k, (left_parent, right_parent)) in [(3, 6), (4, 7)].into_iter().enumerate() {
            let child = |parent: usize| parents.iter().position(|&p| p == parent as i16).unwrap_or(0);
            let (left, right) = (child(left_parent), child(right_parent));
            let turn = half_turns[k + 1];
            rest[left].translation = to_vec3(DVec3::new(2.0, -40.0, 3.0));
            rest[right].translation = to_vec3(turn.inverse() * reflect_x(DVec3::new(2.0, -40.0, 3.0)));
        }
        for transform in &mut rest {
            transform.rotation = Quat::IDENTITY;
        }
    }
    let skeleton = RawSkeleton { names, parents, rest: rest.clone() };
    let axes: Vec<DVec3> = (0..11)
        .map(|_| DVec3::new(rng.range(-1.0, 1.0).into(), rng.range(-1.0, 1.0).into(), 0.5).normalize())
        .collect();
    let frames = (0..40)
        .map(|f| {
            let t = f as f64 / 30.0;
            let mut pose = rest.clone();
            for (j, transform) in pose.iter_mut().enumerate() {
                let wobble = DQuat::from_axis_angle(axes[j], 0.6 * (2.0 * t + j as f64).sin());
                transform.rotation = to_f32((sinew_tools::dmath::dquat(transform.rotation) * wobble).normalize());
            }
            pose[0].translation = to_vec3(DVec3::new(30.0 * t, 95.0 + 2.0 * (9.0 * t).sin(), 120.0 * t));
            pose
        })
        .collect();
    let clip = RawClip { name: "walk".into(), sample_rate: 30.0, frames, step: StepKeys::None };
    (skeleton, clip)
}

/// The f64 checks every mirrored clip must pass.
/// `asymmetry`: how far the file's own left and right rest offsets differ, which the mirror cannot keep.
fn check_mirror(skeleton: &RawSkeleton, clip: &RawClip, partner: &[usize], tolerance: f64, asymmetry: f64) {
    let scale = figure_scale(skeleton, std::slice::from_ref(clip));
    let mirrored = mirror_clips(skeleton, std::slice::from_ref(clip), partner, scale).unwrap().remove(0);
    assert_eq!(mirrored.name, format!("{}.mirror", clip.name));
    let back = mirror_clips(skeleton, std::slice::from_ref(&mirrored), partner, scale).unwrap().remove(0);
    for (f, ((source, image), again)) in clip.frames.iter().zip(&mirrored.frames).zip(&back.frames).enumerate() {
        let (want, got) = (positions(skeleton, source), positions(skeleton, image));
        for j in 0..want.len() {
            let error = (got[j] - reflect_x(want[partner[j]])).length();
            assert!(error <= tolerance, "frame {f} `{}`: {error} from its partner's reflection", skeleton.names[j]);
            // The rest offsets are kept where the source keeps them.
            if j > 0 && (source[partner[j]].translation - skeleton.rest[partner[j]].translation).length() < 1e-6 {
                let offset = (image[j].translation - skeleton.rest[j].translation).length();
                assert!(
                    f64::from(offset) <= tolerance + asymmetry,
                    "frame {f} `{}`: offset moved {offset}",
                    skeleton.names[j]
                );
            }
            // Twice is the source.
            let (a, b) = (Trs::of(&again[j]), Trs::of(&source[j]));
            assert!((a.translation - b.translation).length() <= tolerance, "frame {f} joint {j}: twice moved");
            assert!(a.rotation.dot(b.rotation).abs() >= 1.0 - 1e-9, "frame {f} joint {j}: twice turned");
        }
    }
}

#[test]
fn a_mirrored_clip_is_its_source_reflected_on_a_figure_whose_axes_mirror_by_half_turns() {
    let mut rng = sinew_tests::Rng::new(11);
    for case in 0..20 {
        let (skeleton, clip) = synthetic(&mut rng, case % 2 == 1);
        let partner = partners(&skeleton, &[]).unwrap();
        assert_eq!(partner, [0, 1, 2, 6, 7, 8, 3, 4, 5, 10, 9]);
        check_mirror(&skeleton, &clip, &partner, 1e-3, 0.0);
    }
}

#[test]
fn the_bandai_walk_mirrors_though_its_rest_pose_is_not_a_symmetric_pose() {
    let Some(dir) = sinew_tests::shared_data("the_bandai_walk_mirrors") else { return };
    let file = dir.join("bvh/bandai/dataset-1_walk_normal_001.bvh");
    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[file]).unwrap();
    let partner = partners(&skeleton, &[]).unwrap();
    let name = |j: usize| skeleton.names[j].as_str();
    let foot = skeleton.names.iter().position(|n| n == "Foot_L").unwrap();
    assert_eq!(name(partner[foot]), "Foot_R");
    // The file's left and right lower legs differ by 0.04 cm (its offsets, to the digits it stores).
    check_mirror(&skeleton, &clips[0], &partner, 1e-3, 0.05);
}

#[test]
fn sides_are_read_from_the_names_engines_use() {
    for (name, other) in [
        ("LeftFoot", Some("RightFoot")),
        ("mixamorig:RightHand", Some("mixamorig:LeftHand")),
        ("foot_l", Some("foot_r")),
        ("Foot.R", Some("Foot.L")),
        ("l_hand", Some("r_hand")),
        ("Bip01 L Thigh", Some("Bip01 R Thigh")),
        ("LFinger0_1", Some("RFinger0_1")),
        ("Root", None),
        ("Hips", None),
        ("Leg", None),
    ] {
        assert_eq!(other_side(name).as_deref(), other, "{name}");
    }
}

#[test]
fn annotations_follow_the_partner_and_bad_pairs_are_refused() {
    let mut rng = sinew_tests::Rng::new(3);
    let (skeleton, _) = synthetic(&mut rng, false);
    let partner = partners(&skeleton, &[]).unwrap();
    let range = |name: &str| RawRange { name: name.into(), start: 0.1, end: 0.4, value: 0.0 };
    let annotations = RawAnnotations {
        ranges: vec![range("plant:LeftFoot"), range("no-entry"), range("plant:Spine"), range("tag:3")],
        ..Default::default()
    };
    let mirrored = mirror_annotations(&skeleton, &annotations, &partner);
    let names: Vec<&str> = mirrored.ranges.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["plant:RightFoot", "no-entry", "plant:Spine", "tag:3"]);

    let pair = |a: &str, b: &str| vec![(a.to_string(), b.to_string())];
    let err = partners(&skeleton, &pair("LeftFoot", "Nose")).unwrap_err();
    assert!(err.contains("no joint named `Nose`"), "{err}");
    // A foot paired with an arm breaks the hierarchy (and leaves their old partners unpaired back).
    let err = partners(&skeleton, &pair("LeftFoot", "RightArm")).unwrap_err();
    assert!(err.contains("pairs with another joint") || err.contains("parents do not"), "{err}");
    let mut unsided = skeleton.clone();
    for name in &mut unsided.names {
        *name = name.replace("Left", "A").replace("Right", "B");
    }
    let err = partners(&unsided, &[]).unwrap_err();
    assert!(err.contains("--mirror-pair"), "{err}");
    // Declared partners whose offsets do not mirror: the message names where.
    let mut bent = skeleton.clone();
    bent.rest[4].translation = Vec3::new(0.0, -80.0, 30.0);
    let clip =
        RawClip { name: "still".into(), sample_rate: 30.0, frames: vec![bent.rest.clone()], step: StepKeys::None };
    let scale = figure_scale(&bent, std::slice::from_ref(&clip));
    let err = mirror_clips(&bent, &[clip], &partner, scale).unwrap_err();
    assert!(err.contains("not symmetric") && err.contains("UpLeg"), "{err}");
}
