//! Skeleton validation: one test per error, and the accessors.

use sinew::math::{Quat, SoaTransform, Transform, Vec3};
use sinew::skeleton::MAX_JOINTS;
use sinew::{Buffer, Error, Skeleton};
use sinew_tests::to_soa;

fn rest(n: usize) -> Vec<SoaTransform> {
    to_soa(&vec![Transform::IDENTITY; n])
}

#[test]
fn accepts_a_valid_forest_with_names() {
    let parents = [-1, 0, 1, 1, -1, 4];
    let pose = rest(6);
    let names = ["root", "spine", "l", "r", "prop", "prop_tip"];
    let s = Skeleton::new(&parents, &pose, Some(&names)).unwrap();
    assert_eq!((s.num_joints(), s.num_soa_joints()), (6, 2));
    assert_eq!(s.parents(), &parents);
    assert_eq!(s.find("prop_tip"), Some(5));
    assert_eq!(s.find("nope"), None);
    assert_eq!(s.max_depth(), 3);
    assert_eq!(s.rest_pose().len(), 2);
}

#[test]
fn joint_count_zero_and_too_many() {
    assert_eq!(Skeleton::new(&[], &[], None).unwrap_err(), Error::JointCount { count: 0, max: MAX_JOINTS });
    let parents = vec![-1i16; MAX_JOINTS + 1];
    let pose = rest(MAX_JOINTS + 1);
    assert_eq!(
        Skeleton::new(&parents, &pose, None).unwrap_err(),
        Error::JointCount { count: MAX_JOINTS + 1, max: MAX_JOINTS }
    );
    let parents = vec![-1i16; MAX_JOINTS];
    assert!(Skeleton::new(&parents, &rest(MAX_JOINTS), None).is_ok());
}

#[test]
fn parent_after_child_self_or_below_minus_one() {
    let pose = rest(4);
    assert_eq!(Skeleton::new(&[-1, 2, 0, 1], &pose, None).unwrap_err(), Error::ParentOrder { joint: 1, parent: 2 });
    assert_eq!(Skeleton::new(&[-1, 0, 2, 1], &pose, None).unwrap_err(), Error::ParentOrder { joint: 2, parent: 2 });
    assert_eq!(Skeleton::new(&[-1, 0, -2, 1], &pose, None).unwrap_err(), Error::ParentOrder { joint: 2, parent: -2 });
    assert_eq!(Skeleton::new(&[0, 0, 0, 1], &pose, None).unwrap_err(), Error::ParentOrder { joint: 0, parent: 0 });
}

#[test]
fn rest_pose_and_names_lengths() {
    assert_eq!(
        Skeleton::new(&[-1, 0, 1, 2, 3], &rest(1), None).unwrap_err(),
        Error::BufferLength { buffer: Buffer::RestPose, expected: 2, actual: 1 }
    );
    assert_eq!(
        Skeleton::new(&[-1, 0], &rest(2), Some(&["a"])).unwrap_err(),
        Error::BufferLength { buffer: Buffer::Names, expected: 2, actual: 1 }
    );
}

fn with_joint(n: usize, joint: usize, t: Transform) -> Vec<SoaTransform> {
    let mut aos = vec![Transform::IDENTITY; n];
    aos[joint] = t;
    to_soa(&aos)
}

#[test]
fn non_finite_rest_pose_names_the_joint() {
    let parents = [-1, 0, 1, 2, 3, 4];
    for bad in [f32::NAN, f32::INFINITY, -f32::INFINITY] {
        let t = Transform { translation: Vec3::new(0.0, bad, 0.0), ..Transform::IDENTITY };
        assert_eq!(
            Skeleton::new(&parents, &with_joint(6, 5, t), None).unwrap_err(),
            Error::NonFinite { buffer: Buffer::RestPose, index: 5 }
        );
    }
    let t = Transform { scale: Vec3::new(1.0, 1.0, f32::NAN), ..Transform::IDENTITY };
    assert_eq!(
        Skeleton::new(&parents, &with_joint(6, 2, t), None).unwrap_err(),
        Error::NonFinite { buffer: Buffer::RestPose, index: 2 }
    );
}

#[test]
fn zero_and_non_unit_rest_rotations() {
    let parents = [-1, 0, 1];
    let zero = Transform { rotation: Quat::new(0.0, 0.0, 0.0, 0.0), ..Transform::IDENTITY };
    assert_eq!(
        Skeleton::new(&parents, &with_joint(3, 1, zero), None).unwrap_err(),
        Error::ZeroQuaternion { buffer: Buffer::RestPose, index: 1 }
    );
    let long = Transform { rotation: Quat::new(0.0, 0.0, 0.0, 1.01), ..Transform::IDENTITY };
    assert_eq!(
        Skeleton::new(&parents, &with_joint(3, 2, long), None).unwrap_err(),
        Error::NonUnitRotation { joint: 2 }
    );
    // Within tolerance is fine: rest poses come from files with a few decimals.
    let close = Transform { rotation: Quat::new(0.0, 0.0, 0.0, 1.0004), ..Transform::IDENTITY };
    assert!(Skeleton::new(&parents, &with_joint(3, 2, close), None).is_ok());
}

#[test]
fn padding_lanes_must_be_identity() {
    let mut pose = rest(3);
    let mut t = Transform::IDENTITY;
    t.translation.x = 1.0;
    pose[0].set(3, &t);
    assert_eq!(
        Skeleton::new(&[-1, 0, 1], &pose, None).unwrap_err(),
        Error::PaddingNotIdentity { buffer: Buffer::RestPose, soa_index: 0 }
    );
    // A full last group has no padding to check.
    let mut pose = rest(4);
    pose[0].set(3, &t);
    assert!(Skeleton::new(&[-1, 0, 1, 2], &pose, None).is_ok());
}
