//! The procedural humanoid: valid for every joint count, bounded depth, plausible proportions, deterministic.

use sinew_tools::rig::{MAX_DEPTH, MAX_JOINTS, MIN_JOINTS, Rig};

#[test]
fn every_joint_count_gives_a_valid_skeleton_within_the_depth_limit() {
    for n in MIN_JOINTS..=MAX_JOINTS {
        let rig = Rig::humanoid(n);
        assert_eq!(rig.num_joints(), n, "asked for {n}");
        let skeleton = sinew::Skeleton::new(&rig.parents, &rig.rest_soa, None).expect("valid skeleton");
        assert!(skeleton.max_depth() <= MAX_DEPTH, "{n} joints: depth {}", skeleton.max_depth());
        assert_eq!(rig.names.len(), n);
        assert_eq!(rig.skin_remap.len(), n - 1);
        sinew::Skin::new(n, &rig.skin_remap, &rig.inverse_bind).expect("valid skin");
    }
}

#[test]
fn counts_outside_the_range_are_clamped() {
    assert_eq!(Rig::humanoid(0).num_joints(), MIN_JOINTS);
    assert_eq!(Rig::humanoid(5000).num_joints(), MAX_JOINTS);
}

#[test]
fn depth_first_order_and_unique_names() {
    let rig = Rig::humanoid(256);
    // Depth-first: a joint's parent is the previous joint or one of its ancestors.
    for j in 1..rig.num_joints() {
        let mut a = (j - 1) as i16;
        while a >= 0 && a != rig.parents[j] {
            a = rig.parents[a as usize];
        }
        assert_eq!(a, rig.parents[j], "joint {j} breaks depth-first order");
    }
    let mut names = rig.names.clone();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), rig.num_joints());
}

#[test]
fn proportions_are_humanoid() {
    let rig = Rig::humanoid(67);
    let skeleton = rig.skeleton();
    let mut model = vec![sinew::math::Mat4::IDENTITY; rig.num_joints()];
    sinew::LocalToModelJob { skeleton: &skeleton, walk: None, local: &rig.rest_soa, root: None, model: &mut model }
        .run()
        .expect("rest pose is valid");
    let at = |name: &str| model[rig.names.iter().position(|n| n == name).expect("joint exists")].translation();
    let head = at("Head");
    let (lfoot, rfoot) = (at("LFoot"), at("RFoot"));
    // A standing figure between 1.4 and 2 m tall, feet near the ground and apart, hands at either side.
    assert!((1.4..2.0).contains(&(head.y - lfoot.y)), "height {}", head.y - lfoot.y);
    assert!(lfoot.y.abs() < 0.25 && rfoot.y.abs() < 0.25);
    assert!(lfoot.x * rfoot.x < 0.0, "feet on both sides: {lfoot:?} {rfoot:?} hips {:?}", at("Hips"));
    assert!(at("LHand").x * at("RHand").x < 0.0, "hands on both sides");
}

#[test]
fn deterministic() {
    let (a, b) = (Rig::humanoid(163), Rig::humanoid(163));
    assert_eq!(a.parents, b.parents);
    assert_eq!(a.rest, b.rest);
    assert_eq!(a.poses(4), b.poses(4));
}
