//! Local-to-model: validity (one test per error), hand-computed behaviour, and reference tests against the
//! f64 oracle at every joint count in `JOINT_COUNTS`.

use sinew::math::{Mat4, Quat, SoaTransform, Transform, Vec3};
use sinew::skeleton::MAX_JOINTS;
use sinew::{Buffer, Error, GroupWalk, LocalToModelJob, Skeleton};
use sinew_tests::{JOINT_COUNTS, Rng, depths, max_abs_diff, oracle, random_parents, random_pose, to_soa};

/// Per-joint bound on |sinew − oracle|, relative to the joint's depth and the size of its matrix entries:
/// each level adds a few f32 roundings of the parent's magnitude. Measured worst: 2.3e-7 (SSE2, AVX2, scalar).
const LTM_TOLERANCE_PER_LEVEL: f64 = 5e-7;

fn run(parents: &[i16], local: &[Transform], root: Option<&Mat4>) -> Result<Vec<Mat4>, Error> {
    let rest = to_soa(&vec![Transform::IDENTITY; parents.len()]);
    let skeleton = Skeleton::new(parents, &rest, None).unwrap();
    let soa = to_soa(local);
    let mut model = vec![Mat4::IDENTITY; parents.len()];
    let walk = Some(&GroupWalk::new(&skeleton));
    LocalToModelJob { skeleton: &skeleton, walk, local: &soa, root, model: &mut model }.run()?;
    Ok(model)
}

fn assert_matches_oracle(parents: &[i16], local: &[Transform], root: &Mat4, model: &[Mat4]) -> f64 {
    let want = oracle::local_to_model(parents, local, &oracle::widen(root));
    let depth = depths(parents);
    let mut worst = 0.0f64;
    for j in 0..parents.len() {
        let got: [f32; 16] = bytemuck::cast(model[j]);
        let scale = want[j].iter().fold(1.0f64, |m, v| m.max(v.abs()));
        let err = max_abs_diff(&got, &want[j]) / (scale * depth[j] as f64);
        assert!(err <= LTM_TOLERANCE_PER_LEVEL, "joint {j} (depth {}): relative error {err:e}", depth[j]);
        worst = worst.max(err);
    }
    worst
}

#[test]
fn reference_random_skeletons_all_joint_counts() {
    for (seed, &n) in JOINT_COUNTS.iter().enumerate() {
        let mut rng = Rng::new(100 + seed as u64);
        let parents = random_parents(&mut rng, n);
        let local = random_pose(&mut rng, n);
        let root = rng.transform().to_mat4();
        for root in [None, Some(&root)] {
            let model = run(&parents, &local, root).unwrap();
            let worst = assert_matches_oracle(&parents, &local, root.unwrap_or(&Mat4::IDENTITY), &model);
            println!("{n} joints: worst relative error per level {worst:e}");
        }
    }
}

#[test]
fn reference_with_non_unit_rotations() {
    // Rotations need not be unit: the kernel normalizes exactly, like the oracle.
    let mut rng = Rng::new(7);
    let parents = random_parents(&mut rng, 67);
    let mut local = random_pose(&mut rng, 67);
    for t in &mut local {
        let s = rng.range(0.1, 10.0);
        t.rotation = Quat::new(t.rotation.x * s, t.rotation.y * s, t.rotation.z * s, t.rotation.w * s);
    }
    let model = run(&parents, &local, None).unwrap();
    assert_matches_oracle(&parents, &local, &Mat4::IDENTITY, &model);
}

#[test]
fn hand_computed_arm() {
    // Shoulder at (0, 1.5, 0); elbow 0.3 along the shoulder's x axis, shoulder turned 90° about z so the arm
    // points up; wrist 0.25 further along the elbow's x, elbow bent another 90° about z (pointing to −x).
    let quarter_z = Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), core::f32::consts::FRAC_PI_2);
    let local = [
        Transform { translation: Vec3::new(0.0, 1.5, 0.0), rotation: quarter_z, scale: Vec3::ONE },
        Transform { translation: Vec3::new(0.3, 0.0, 0.0), rotation: quarter_z, scale: Vec3::ONE },
        Transform { translation: Vec3::new(0.25, 0.0, 0.0), ..Transform::IDENTITY },
    ];
    let model = run(&[-1, 0, 1], &local, None).unwrap();
    let close = |a: Vec3, b: Vec3| (a.x - b.x).abs() < 1e-6 && (a.y - b.y).abs() < 1e-6 && (a.z - b.z).abs() < 1e-6;
    assert!(close(model[0].translation(), Vec3::new(0.0, 1.5, 0.0)));
    assert!(close(model[1].translation(), Vec3::new(0.0, 1.8, 0.0)));
    assert!(close(model[2].translation(), Vec3::new(-0.25, 1.8, 0.0)));
    // The wrist's x axis points along −x in model space.
    assert!((model[2].cols[0][0] + 1.0).abs() < 1e-6);
}

#[test]
fn hand_computed_scale_and_root() {
    // A parent scaled by 2 doubles the child's offset; the root matrix moves everything.
    let local = [
        Transform { scale: Vec3::new(2.0, 2.0, 2.0), ..Transform::IDENTITY },
        Transform { translation: Vec3::new(1.0, 0.0, 0.0), ..Transform::IDENTITY },
    ];
    let root = Transform { translation: Vec3::new(0.0, 0.0, 5.0), ..Transform::IDENTITY }.to_mat4();
    let model = run(&[-1, 0], &local, Some(&root)).unwrap();
    assert_eq!(model[1].translation(), Vec3::new(2.0, 0.0, 5.0));
    assert_eq!(model[1].cols[0], [2.0, 0.0, 0.0, 0.0]);
}

#[test]
fn subtree_updates_only_the_subtree() {
    let mut rng = Rng::new(21);
    let n = 67;
    let parents = random_parents(&mut rng, n);
    let mut local = random_pose(&mut rng, n);
    let rest = to_soa(&vec![Transform::IDENTITY; n]);
    let skeleton = Skeleton::new(&parents, &rest, None).unwrap();
    let mut model = vec![Mat4::IDENTITY; n];
    let soa = to_soa(&local);
    LocalToModelJob { skeleton: &skeleton, walk: None, local: &soa, root: None, model: &mut model }.run().unwrap();
    // Change every joint, then update only the subtree under `joint`.
    let joint = 10;
    for t in &mut local {
        *t = rng.transform();
    }
    let soa = to_soa(&local);
    let before = model.clone();
    LocalToModelJob { skeleton: &skeleton, walk: None, local: &soa, root: None, model: &mut model }
        .run_subtree(joint)
        .unwrap();
    let mut full = vec![Mat4::IDENTITY; n];
    LocalToModelJob { skeleton: &skeleton, walk: None, local: &soa, root: None, model: &mut full }.run().unwrap();
    let mut in_subtree = vec![false; n];
    in_subtree[joint] = true;
    for j in joint + 1..n {
        in_subtree[j] = parents[j] >= 0 && in_subtree[parents[j] as usize];
    }
    assert!(in_subtree.iter().filter(|&&b| b).count() > 1, "seed should give a real subtree");
    for j in 0..n {
        if in_subtree[j] {
            // The subtree's root reads its parent from the old model buffer, so compare to an oracle built on it.
            let parent = if parents[j] < 0 { Mat4::IDENTITY } else { model[parents[j] as usize] };
            let want = oracle::mul(&oracle::widen(&parent), &oracle::trs(&local[j]));
            let got: [f32; 16] = bytemuck::cast(model[j]);
            assert!(max_abs_diff(&got, &want) < 1e-4, "joint {j}");
        } else {
            assert_eq!(model[j], before[j], "joint {j} outside the subtree changed");
        }
    }
    assert_ne!(model, full, "joints outside the subtree keep their old values");
}

fn skeleton_parts(n: usize) -> (Vec<i16>, Vec<SoaTransform>) {
    ((0..n as i16).map(|j| j - 1).collect(), to_soa(&vec![Transform::IDENTITY; n]))
}

#[test]
fn wrong_lengths() {
    let (parents, rest) = skeleton_parts(5);
    let skeleton = Skeleton::new(&parents, &rest, None).unwrap();
    let mut model = vec![Mat4::IDENTITY; 5];
    let short = to_soa(&[Transform::IDENTITY; 4]);
    assert_eq!(
        LocalToModelJob { skeleton: &skeleton, walk: None, local: &short, root: None, model: &mut model }.run(),
        Err(Error::BufferLength { buffer: Buffer::LocalPose, expected: 2, actual: 1 })
    );
    let mut small = vec![Mat4::IDENTITY; 4];
    assert_eq!(
        LocalToModelJob { skeleton: &skeleton, walk: None, local: &rest, root: None, model: &mut small }.validate(),
        Err(Error::BufferLength { buffer: Buffer::ModelMatrices, expected: 5, actual: 4 })
    );
}

#[test]
fn non_finite_root_matrix() {
    let (parents, rest) = skeleton_parts(2);
    let skeleton = Skeleton::new(&parents, &rest, None).unwrap();
    let mut model = vec![Mat4::IDENTITY; 2];
    let mut root = Mat4::IDENTITY;
    root.cols[3][1] = f32::NAN;
    assert_eq!(
        LocalToModelJob { skeleton: &skeleton, walk: None, local: &rest, root: Some(&root), model: &mut model }.run(),
        Err(Error::NonFinite { buffer: Buffer::RootMatrix, index: 0 })
    );
}

#[test]
fn non_finite_local_pose_names_the_first_joint() {
    let n = 67;
    // Joints in the first and second group of a converted pair, and in the last, partial group.
    for (joint, bad) in [(0, f32::NAN), (33, f32::INFINITY), (38, f32::NAN), (66, -f32::INFINITY)] {
        for field in 0..3 {
            let mut local = vec![Transform::IDENTITY; n];
            match field {
                0 => local[joint].translation.z = bad,
                1 => local[joint].rotation.y = bad,
                _ => local[joint].scale.x = bad,
            }
            local[joint + 1.min(n - 1 - joint)].translation.x = f32::NAN; // a later one must not be named
            assert_eq!(
                run(&skeleton_parts(n).0, &local, None),
                Err(Error::NonFinite { buffer: Buffer::LocalPose, index: joint }),
                "joint {joint} field {field}"
            );
        }
    }
}

#[test]
fn zero_quaternion_is_an_error() {
    // A lone last group (6 joints) and the second group of a converted pair (67 joints).
    for (n, joint) in [(6, 4), (67, 45)] {
        let mut local = vec![Transform::IDENTITY; n];
        local[joint].rotation = Quat::new(0.0, 0.0, 0.0, 0.0);
        assert_eq!(
            run(&skeleton_parts(n).0, &local, None),
            Err(Error::ZeroQuaternion { buffer: Buffer::LocalPose, index: joint })
        );
    }
}

#[test]
fn garbage_in_padding_lanes_is_ignored() {
    // Padding lanes are never observable, even when a caller's buffer holds NaN there.
    let (parents, rest) = skeleton_parts(5);
    let skeleton = Skeleton::new(&parents, &rest, None).unwrap();
    let mut local = rest.clone();
    let nan = Transform { translation: Vec3::new(f32::NAN, 0.0, 0.0), ..Transform::IDENTITY };
    for lane in 1..4 {
        local[1].set(lane, &nan);
    }
    let mut model = vec![Mat4::IDENTITY; 5];
    LocalToModelJob { skeleton: &skeleton, walk: None, local: &local, root: None, model: &mut model }.run().unwrap();
    assert!(model.iter().all(|m| *m == Mat4::IDENTITY));
}

#[test]
fn subtree_joint_out_of_range() {
    let (parents, rest) = skeleton_parts(3);
    let skeleton = Skeleton::new(&parents, &rest, None).unwrap();
    let mut model = vec![Mat4::IDENTITY; 3];
    assert_eq!(
        LocalToModelJob { skeleton: &skeleton, walk: None, local: &rest, root: None, model: &mut model }.run_subtree(3),
        Err(Error::JointOutOfRange { joint: 3, num_joints: 3 })
    );
}

/// Model matrices from `run_subtree` on each root joint in turn, starting from identities.
fn run_each_root_subtree(skeleton: &Skeleton, local: &[SoaTransform], root: &Mat4) -> Vec<Mat4> {
    let mut model = vec![Mat4::IDENTITY; skeleton.num_joints()];
    for joint in (0..skeleton.num_joints()).filter(|&j| skeleton.parents()[j] < 0) {
        LocalToModelJob { skeleton, walk: None, local, root: Some(root), model: &mut model }
            .run_subtree(joint)
            .unwrap();
    }
    model
}

#[test]
fn subtree_of_every_root_reproduces_the_full_run_bit_for_bit() {
    // Same kernel, same order of operations: updating each root's tree in turn must equal one full run.
    let mut rng = Rng::new(22);
    for &n in JOINT_COUNTS {
        let parents = random_parents(&mut rng, n);
        let local = to_soa(&random_pose(&mut rng, n));
        let rest = to_soa(&vec![Transform::IDENTITY; n]);
        let skeleton = Skeleton::new(&parents, &rest, None).unwrap();
        let root = rng.transform().to_mat4();
        let mut full = vec![Mat4::IDENTITY; n];
        LocalToModelJob { skeleton: &skeleton, walk: None, local: &local, root: Some(&root), model: &mut full }
            .run()
            .unwrap();
        assert_eq!(run_each_root_subtree(&skeleton, &local, &root), full, "{n} joints");
    }
}

#[test]
fn side_by_side_pairs_match_the_oracle_and_subtree_runs() {
    // Branching rigs pair many lane groups in their group walk (x86-64-v3 computes each pair side by side); the
    // result must match the oracle, and both a run without the walk and re-running each root's subtree (which
    // walk in memory order, one group at a time) must reproduce it bit for bit.
    let mut rng = Rng::new(23);
    for &n in JOINT_COUNTS {
        let parents = sinew_tests::branching_parents(&mut rng, n);
        let local = random_pose(&mut rng, n);
        let root = rng.transform().to_mat4();
        let rest = to_soa(&vec![Transform::IDENTITY; n]);
        let skeleton = Skeleton::new(&parents, &rest, None).unwrap();
        let walk = GroupWalk::new(&skeleton);
        assert!(n < 67 || walk.steps().iter().any(|[a, b]| a != b), "{n} joints: no pair to test");
        let soa = to_soa(&local);
        let (mut full, mut memory_order) = (vec![Mat4::IDENTITY; n], vec![Mat4::IDENTITY; n]);
        for (walk, model) in [(Some(&walk), &mut full), (None, &mut memory_order)] {
            LocalToModelJob { skeleton: &skeleton, walk, local: &soa, root: Some(&root), model }.run().unwrap();
        }
        assert_matches_oracle(&parents, &local, &root, &full);
        assert_eq!(memory_order, full, "{n} joints without the walk");
        assert_eq!(run_each_root_subtree(&skeleton, &soa, &root), full, "{n} joints");
    }
}

#[test]
fn a_walk_of_another_skeleton_is_refused() {
    // Equal parents in another array: the walk names the array it was built from, not its contents.
    let parents: Vec<i16> = (-1..7).collect();
    let copy = parents.clone();
    let rest = to_soa(&[Transform::IDENTITY; 8]);
    let (skeleton, other) = (Skeleton::new(&parents, &rest, None).unwrap(), Skeleton::new(&copy, &rest, None).unwrap());
    let walk = GroupWalk::new(&other);
    assert!(walk.is_for(&other) && !walk.is_for(&skeleton));
    let mut model = vec![Mat4::IDENTITY; 8];
    let mut job =
        LocalToModelJob { skeleton: &skeleton, walk: Some(&walk), local: &rest, root: None, model: &mut model };
    assert_eq!(job.run(), Err(Error::ForeignWalk));
    assert!(model.iter().all(|m| *m == Mat4::IDENTITY), "nothing written");
}

/// Checks what `GroupWalk` promises: every group once, pairs of two distinct full groups with no
/// parent in each other, and every other parent in a group walked at an earlier step.
fn assert_valid_group_walk(parents: &[i16]) -> usize {
    let n = parents.len();
    let pose = to_soa(&vec![Transform::IDENTITY; n]);
    let skeleton = Skeleton::new(parents, &pose, None).unwrap();
    let walk = GroupWalk::new(&skeleton);
    let num_groups = n.div_ceil(4);
    let mut step_of = vec![usize::MAX; num_groups];
    for (step, &[a, b]) in walk.steps().iter().enumerate() {
        for g in [a, b] {
            let g = g as usize;
            assert!(g < num_groups, "{n} joints: group {g} out of range");
            assert!(step_of[g] == usize::MAX || (a == b && step_of[g] == step), "{n} joints: group {g} twice");
            step_of[g] = step;
        }
        if a != b {
            assert!((a.max(b) as usize + 1) * 4 <= n, "{n} joints: pair {a}, {b} includes a partial group");
        }
    }
    assert!(step_of.iter().all(|&s| s != usize::MAX), "{n} joints: a group is never walked");
    for (joint, &parent) in parents.iter().enumerate().filter(|&(_, &p)| p >= 0) {
        let (group, parent_group) = (joint / 4, parent as usize / 4);
        if parent_group != group {
            assert!(
                step_of[parent_group] < step_of[group],
                "{n} joints: joint {joint} walked before its parent {parent}"
            );
        }
    }
    walk.steps().iter().filter(|[a, b]| a != b).count()
}

#[test]
fn group_walk_is_a_dependency_order() {
    let mut rng = sinew_tests::Rng::new(31);
    for &n in sinew_tests::JOINT_COUNTS {
        assert_valid_group_walk(&sinew_tests::random_parents(&mut rng, n));
        let pairs = assert_valid_group_walk(&sinew_tests::branching_parents(&mut rng, n));
        assert!(n < 67 || pairs > 0, "{n} branching joints: no pair");
    }
    // A star: every group is ready after the first, so all but the first and the partial last pair up.
    let star: Vec<i16> = (0..MAX_JOINTS as i16).map(|j| if j == 0 { -1 } else { 0 }).collect();
    assert_eq!(assert_valid_group_walk(&star), (MAX_JOINTS / 4 - 1) / 2);
}

#[test]
fn group_walk_pairs_independent_chains_longest_first() {
    // Group 0: a root chain. Groups 1 and 2 hang off joint 3; group 3 continues group 2's chain. Group 2 heads
    // the longer chain (two groups), so it is walked first and paired with group 1; group 3 is left alone.
    let parents = [-1, 0, 1, 2, 3, 4, 5, 6, 3, 8, 9, 10, 11, 12, 13, 14];
    let pose = to_soa(&vec![Transform::IDENTITY; parents.len()]);
    let skeleton = Skeleton::new(&parents, &pose, None).unwrap();
    assert_eq!(GroupWalk::new(&skeleton).steps(), &[[0, 0], [2, 1], [3, 3]]);
    // Nine joints: the partial last group (joint 8 alone) is never paired.
    let pose = to_soa(&[Transform::IDENTITY; 9]);
    let skeleton = Skeleton::new(&[-1, 0, 1, 2, 3, 3, -1, 6, 7], &pose, None).unwrap();
    assert_eq!(GroupWalk::new(&skeleton).steps(), &[[0, 0], [1, 1], [2, 2]]);
}
