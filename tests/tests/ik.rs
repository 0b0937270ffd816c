//! Two-bone IK, checked by an f64 local-to-model of the pose it writes: reachable targets reached, bone lengths
//! kept, nothing outside the chain's two rotations changed, the pole's side taken, unreachable targets met by a
//! straight chain pointing at them, soft reach short of full extension, and bad chains and targets refused
//! with the pose untouched. Random chains under random parents, and the Bandai walk's legs (knee straight at
//! times, the hard case).

use sinew::ik::TwoBoneIkJob;
use sinew::math::{Mat4, SoaTransform, Transform, Vec3};
use sinew::{Error, Skeleton};
use sinew_tests::{Rng, model_of, oracle, to_soa};

fn aos(local: &[SoaTransform], n: usize) -> Vec<Transform> {
    (0..n).map(|j| local[j / 4].get(j % 4)).collect()
}

fn position(m: &oracle::M4) -> [f64; 3] {
    [m[12], m[13], m[14]]
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn widen(v: Vec3) -> [f64; 3] {
    [v.x as f64, v.y as f64, v.z as f64]
}

/// Solves one chain and checks every property against the f64 FK of the result. Returns the end's miss when
/// the target was reachable.
fn solve_and_check(
    skeleton: &Skeleton<'_>,
    local: &[SoaTransform],
    chain: [usize; 3],
    target: Vec3,
    pole: Option<Vec3>,
) -> Option<f64> {
    let n = skeleton.num_joints();
    let parents = skeleton.parents();
    let model = model_of(skeleton, local);
    let before = oracle::local_to_model(parents, &aos(local, n), &oracle::IDENTITY);
    let mut solved = local.to_vec();
    let solve = TwoBoneIkJob {
        skeleton,
        chain,
        target,
        pole,
        weight: 1.0,
        soften: 1.0,
        end_turn: None,
        model: &model,
        local: &mut solved,
    }
    .run()
    .expect("solve");
    let after_local = aos(&solved, n);
    let after = oracle::local_to_model(parents, &after_local, &oracle::IDENTITY);
    let [root, middle, end] = chain;
    let (l1, l2) = (
        distance(position(&before[root]), position(&before[middle])),
        distance(position(&before[middle]), position(&before[end])),
    );
    // Only the two rotations changed; bones keep their lengths.
    let before_local = aos(local, n);
    for j in 0..n {
        if j != root && j != middle {
            assert_eq!(after_local[j], before_local[j], "joint {j} untouched");
        }
    }
    let scale = l1 + l2;
    for (a, b, l) in [(root, middle, l1), (middle, end, l2)] {
        let now = distance(position(&after[a]), position(&after[b]));
        assert!((now - l).abs() < 1e-5 * scale, "bone {a}-{b}: {now} vs {l}");
    }
    let (a, t) = (position(&after[root]), widen(target));
    let d = distance(a, t);
    let end_at = position(&after[end]);
    let miss = distance(end_at, t);
    let mut reachable = false;
    if d <= (l1 + l2) * (1.0 - 1e-4) && d >= (l1 - l2).abs() * (1.0 + 1e-4) {
        assert!(solve.reached, "reachable at {d} of {}", l1 + l2);
        assert!(miss < 1e-4 * scale, "end {miss} from a reachable target (chain {scale})");
        reachable = true;
    } else if d > l1 + l2 {
        // Straight, pointing at the target.
        assert!(!solve.reached);
        let along = distance(a, end_at);
        assert!((along - (l1 + l2)).abs() < 1e-4 * scale, "fully extended: {along} of {}", l1 + l2);
        let direction =
            (0..3).map(|i| (end_at[i] - a[i]) / along - (t[i] - a[i]) / d).map(f64::abs).fold(0.0, f64::max);
        assert!(direction < 1e-4, "pointing at the target: {direction}");
    }
    // The knee bends toward the pole: on the pole's side of the root–target line.
    if let Some(p) = pole {
        let u: Vec<f64> = (0..3).map(|i| (t[i] - a[i]) / d).collect();
        let side = |q: [f64; 3]| {
            let w: Vec<f64> = (0..3).map(|i| q[i] - a[i]).collect();
            let along = (0..3).map(|i| w[i] * u[i]).sum::<f64>();
            (0..3).map(|i| w[i] - along * u[i]).collect::<Vec<f64>>()
        };
        let (knee, pole) = (side(position(&after[middle])), side(widen(p)));
        let dot: f64 = (0..3).map(|i| knee[i] * pole[i]).sum();
        let bent = (0..3).map(|i| knee[i] * knee[i]).sum::<f64>().sqrt();
        assert!(bent < 1e-3 * scale || dot > 0.0, "the knee bends away from the pole");
    }
    reachable.then_some(miss)
}

/// A random hierarchy with a chain of three joints somewhere in it, children below its end.
fn random_rig(rng: &mut Rng) -> (Vec<i16>, Vec<Transform>, [usize; 3]) {
    let n = 6 + rng.below(10);
    let mut parents = vec![-1i16];
    for j in 1..n {
        parents.push(rng.below(j) as i16);
    }
    // Joints 1, 2, 3 form the chain (1 under 0).
    parents[1] = 0;
    parents[2] = 1;
    parents[3] = 2;
    let mut local: Vec<Transform> = (0..n)
        .map(|_| Transform { translation: rng.vec3(-1.0, 1.0), rotation: rng.quat(), scale: Vec3::ONE })
        .collect();
    // Uniform scales above the chain are supported; keep bones long enough to matter.
    local[0].scale = Vec3::ONE.scaled(rng.range(0.5, 2.0));
    for j in [2, 3] {
        local[j].translation = rng.vec3(-1.0, 1.0) + Vec3::new(0.0, 0.5, 0.0);
    }
    (parents, local, [1, 2, 3])
}

#[test]
fn random_chains_reach_what_they_can_and_point_at_what_they_cannot() {
    let mut rng = Rng::new(0x1c);
    let mut reached = 0;
    for case in 0..400 {
        let (parents, local, chain) = random_rig(&mut rng);
        let rest = to_soa(&vec![Transform::IDENTITY; parents.len()]);
        let skeleton = Skeleton::new(&parents, &rest, None).expect("skeleton");
        let soa = to_soa(&local);
        let model = model_of(&skeleton, &soa);
        let root = model[chain[0]].translation();
        let reach = (model[chain[1]].translation() - root).length()
            + (model[chain[2]].translation() - model[chain[1]].translation()).length();
        // Targets at 0.2–1.4 of the reach from the chain's root, half with a pole.
        let direction = rng.vec3(-1.0, 1.0);
        let target = root + direction.scaled(rng.range(0.2, 1.4) * reach / direction.length());
        let pole = (case % 2 == 0).then(|| root + rng.vec3(-3.0, 3.0));
        reached += solve_and_check(&skeleton, &soa, chain, target, pole).is_some() as usize;
    }
    assert!(reached > 150, "{reached} of 400 reached");
}

/// The 3×3 linear part of an f64 column-major matrix, rows of the rotation.
fn linear(m: &oracle::M4) -> [[f64; 3]; 3] {
    [[m[0], m[4], m[8]], [m[1], m[5], m[9]], [m[2], m[6], m[10]]]
}

#[test]
fn an_end_turn_gives_the_end_its_animated_orientation_turned_whatever_the_bones_do() {
    let mut rng = Rng::new(0xe7d);
    for case in 0..200 {
        let (parents, local, chain) = random_rig(&mut rng);
        let n = parents.len();
        let rest = to_soa(&vec![Transform::IDENTITY; n]);
        let skeleton = Skeleton::new(&parents, &rest, None).expect("skeleton");
        let soa = to_soa(&local);
        let model = model_of(&skeleton, &soa);
        let root = model[chain[0]].translation();
        let target = root + rng.vec3(-1.0, 1.0);
        let (turn, weight) = (rng.quat(), if case % 3 == 0 { rng.unit() } else { 1.0 });
        let solve = |end_turn| {
            let mut solved = soa.clone();
            let mut job = TwoBoneIkJob {
                skeleton: &skeleton,
                chain,
                target,
                pole: None,
                weight,
                soften: 1.0,
                end_turn,
                model: &model,
                local: &mut solved,
            };
            job.run().expect("solve");
            oracle::local_to_model(&parents, &aos(&solved, n), &oracle::IDENTITY)
        };
        let after = solve(Some(turn));
        let before = oracle::local_to_model(&parents, &local, &oracle::IDENTITY);
        // Want: the end's model rotation is turn^weight times its animated one (the scale above cancels in
        // the comparison of normalized columns). At weight 1 the turn is exact; below, nlerp's.
        let applied =
            if weight >= 1.0 { turn } else { sinew::math::Quat::nlerp(sinew::math::Quat::IDENTITY, turn, weight) };
        let want = oracle::rotation(applied);
        let (b, a) = (linear(&before[chain[2]]), linear(&after[chain[2]]));
        let scale = (0..3).map(|r| b[r][0] * b[r][0]).sum::<f64>().sqrt();
        let mut worst = 0.0f64;
        for r in 0..3 {
            for c in 0..3 {
                let expected: f64 = (0..3).map(|k| want[r][k] * b[k][c]).sum();
                worst = worst.max((expected - a[r][c]).abs() / scale);
            }
        }
        assert!(worst < 1e-4, "case {case}: end orientation off by {worst}");
        // And the end still lands where it would without the turn.
        let plain = solve(None);
        assert!(distance(position(&plain[chain[2]]), position(&after[chain[2]])) < 1e-5);
    }
}

#[test]
fn the_bandai_legs_reach_targets_around_their_feet_across_the_walk() {
    let Some(dir) = sinew_tests::shared_data("two-bone IK on the Bandai walk") else { return };
    let files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
    let walk = files.iter().find(|p| p.to_string_lossy().contains("walk")).expect("the Bandai walk");
    let bvh = sinew_tools::bvh::Bvh::load(walk).expect("load");
    let (raw, clip) = sinew_tools::bvh::to_raw(&bvh, "walk").expect("raw");
    let rest = to_soa(&raw.rest);
    let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
    let index = |name: &str| raw.names.iter().position(|n| n == name).expect(name);
    let mut rng = Rng::new(0xba);
    let (mut worst, mut reachable) = (0.0f64, 0);
    for side in ["L", "R"] {
        let chain = [format!("UpperLeg_{side}"), format!("LowerLeg_{side}"), format!("Foot_{side}")].map(|n| index(&n));
        for frame in (0..clip.frames.len()).step_by(7) {
            let soa = to_soa(&clip.frames[frame]);
            let model = model_of(&skeleton, &soa);
            let foot = model[chain[2]].translation();
            // A step onto a bump: the foot raised up to 15 cm and moved up to 10 cm sideways, the knee bent
            // forward (+Z, the walk's way).
            let target = foot + Vec3::new(rng.range(-10.0, 10.0), rng.range(0.0, 15.0), rng.range(-10.0, 10.0));
            let pole = Some(model[chain[1]].translation() + Vec3::new(0.0, 0.0, 50.0));
            if let Some(miss) = solve_and_check(&skeleton, &soa, chain, target, pole) {
                (worst, reachable) = (worst.max(miss), reachable + 1);
            }
        }
    }
    assert!(reachable > 45, "{reachable} of 56 targets reachable");
    println!("Bandai legs: {reachable} reachable targets, worst end miss {worst:.2e} cm");
}

#[test]
fn soft_reach_stops_short_of_a_straight_knee_and_weight_zero_changes_nothing() {
    let parents = [-1i16, 0, 1, 2];
    let local = [
        Transform::IDENTITY,
        Transform { translation: Vec3::new(0.0, 0.0, 0.0), ..Transform::IDENTITY },
        Transform { translation: Vec3::new(0.0, -40.0, 1.0), ..Transform::IDENTITY },
        Transform { translation: Vec3::new(0.0, -41.0, -1.0), ..Transform::IDENTITY },
    ];
    let rest = to_soa(&[Transform::IDENTITY; 4]);
    let skeleton = Skeleton::new(&parents, &rest, None).unwrap();
    let soa = to_soa(&local);
    let model = model_of(&skeleton, &soa);
    let solve = |target: Vec3, soften: f32, weight: f32| {
        let mut out = soa.clone();
        TwoBoneIkJob {
            skeleton: &skeleton,
            chain: [1, 2, 3],
            target,
            pole: None,
            weight,
            soften,
            end_turn: None,
            model: &model,
            local: &mut out,
        }
        .run()
        .expect("solve");
        model_of(&skeleton, &out)[3].translation().length()
    };
    let reach = 40.0125f32 + 41.0122;
    // Past the soft start the end trails the target, rising smoothly toward the reach without touching it.
    let mut last = 0.0;
    for k in 0..40 {
        let d = reach * (0.9 + 0.01 * k as f32);
        let got = solve(Vec3::new(0.0, -d, 0.0), 0.95, 1.0);
        assert!(got < reach && got >= last - 1e-3 && got <= d + 1e-3, "target {d}: end at {got}");
        last = got;
    }
    assert!(solve(Vec3::new(0.0, -2.0 * reach, 0.0), 1.0, 1.0) > reach - 1e-3, "hard: straight");
    let mut out = soa.clone();
    TwoBoneIkJob {
        skeleton: &skeleton,
        chain: [1, 2, 3],
        target: Vec3::new(30.0, -20.0, 5.0),
        pole: None,
        weight: 0.0,
        soften: 1.0,
        end_turn: None,
        model: &model,
        local: &mut out,
    }
    .run()
    .expect("solve");
    assert_eq!(aos(&out, 4), aos(&soa, 4), "weight 0 is the animated pose");
}

#[test]
fn bad_chains_and_targets_are_errors_and_change_nothing() {
    let parents = [-1i16, 0, 1, 2, 1];
    let local: Vec<Transform> = (0..5)
        .map(|j| Transform { translation: Vec3::new(0.0, if j == 0 { 0.0 } else { 1.0 }, 0.0), ..Transform::IDENTITY })
        .collect();
    let rest = to_soa(&[Transform::IDENTITY; 5]);
    let skeleton = Skeleton::new(&parents, &rest, None).unwrap();
    let soa = to_soa(&local);
    let model = model_of(&skeleton, &soa);
    let attempt = |chain: [usize; 3], target: Vec3, pole: Option<Vec3>, weight: f32, soften: f32, model: &[Mat4]| {
        let mut out = soa.clone();
        let result = TwoBoneIkJob {
            skeleton: &skeleton,
            chain,
            target,
            pole,
            weight,
            soften,
            end_turn: None,
            model,
            local: &mut out,
        }
        .run();
        if result.is_err() {
            assert_eq!(aos(&out, 5), aos(&soa, 5), "nothing written on an error");
        }
        result.map(|_| ())
    };
    let t = Vec3::new(1.0, 1.0, 0.0);
    assert_eq!(attempt([0, 1, 2], t, None, 1.0, 1.0, &model), Ok(()));
    assert_eq!(attempt([0, 1, 4], t, None, 1.0, 1.0, &model), Ok(()), "a branch is a chain too");
    assert_eq!(attempt([0, 2, 3], t, None, 1.0, 1.0, &model), Err(Error::InvalidIkChain), "not parent-linked");
    assert_eq!(attempt([0, 1, 9], t, None, 1.0, 1.0, &model), Err(Error::InvalidIkChain), "out of range");
    assert_eq!(attempt([9, 1, 2], t, None, 1.0, 1.0, &model), Err(Error::InvalidIkChain), "out of range");
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    assert_eq!(attempt([0, 1, 2], nan, None, 1.0, 1.0, &model), Err(Error::InvalidIkTarget));
    assert_eq!(attempt([0, 1, 2], t, Some(nan), 1.0, 1.0, &model), Err(Error::InvalidIkTarget));
    assert_eq!(attempt([0, 1, 2], t, None, 1.5, 1.0, &model), Err(Error::InvalidIkTarget));
    let far = Vec3::new(-3e38, 0.0, 3e38);
    assert_eq!(attempt([0, 1, 2], far, None, 1.0, 1.0, &model), Err(Error::InvalidIkTarget), "overflowing distance");
    assert_eq!(attempt([0, 1, 2], t, None, 1.0, 0.0, &model), Err(Error::InvalidIkTarget));
    // A zero-length bone.
    let mut collapsed = model.clone();
    collapsed[2] = collapsed[1];
    assert_eq!(attempt([0, 1, 2], t, None, 1.0, 1.0, &collapsed), Err(Error::InvalidIkChain));
    assert!(matches!(attempt([0, 1, 2], t, None, 1.0, 1.0, &model[..3]), Err(Error::BufferLength { .. })));
    // Degenerate but valid: a target on the chain's root, a pole on the line, a straight chain: finite poses.
    for (target, pole) in [(Vec3::ZERO, None), (Vec3::new(0.0, 1.5, 0.0), Some(Vec3::new(0.0, 3.0, 0.0)))] {
        let mut out = soa.clone();
        TwoBoneIkJob {
            skeleton: &skeleton,
            chain: [0, 1, 2],
            target,
            pole,
            weight: 1.0,
            soften: 1.0,
            end_turn: None,
            model: &model,
            local: &mut out,
        }
        .run()
        .expect("degenerate but valid");
        assert!(model_of(&skeleton, &out).iter().all(|m| m.is_finite()), "finite for {target:?}");
    }
}

mod aim {
    use super::*;
    use sinew::ik::AimIkJob;

    /// The f64 model matrices after aiming `joint` of the pose, and the solve.
    fn aimed(
        skeleton: &Skeleton<'_>,
        local: &[SoaTransform],
        joint: usize,
        (forward, up, target, max_angle, weight): (Vec3, Option<(Vec3, Vec3)>, Vec3, Option<f32>, f32),
    ) -> (Vec<oracle::M4>, sinew::ik::AimSolve, Vec<Transform>) {
        let model = model_of(skeleton, local);
        let mut out = local.to_vec();
        let solve = AimIkJob {
            skeleton,
            joint,
            forward,
            up,
            target,
            max_angle,
            max_twist: None,
            weight,
            model: &model,
            local: &mut out,
        }
        .run()
        .expect("aim");
        let after = aos(&out, skeleton.num_joints());
        (oracle::local_to_model(skeleton.parents(), &after, &oracle::IDENTITY), solve, after)
    }

    /// A joint-local axis in model space (f64, normalized).
    pub(super) fn axis(m: &oracle::M4, v: Vec3) -> [f64; 3] {
        let v = widen(v);
        let a: [f64; 3] = std::array::from_fn(|r| m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2]);
        let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        a.map(|x| x / l)
    }

    pub(super) fn angle(a: [f64; 3], b: [f64; 3]) -> f64 {
        let dot: f64 = (0..3).map(|i| a[i] * b[i]).sum();
        let cross = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
        (cross[0].hypot(cross[1]).hypot(cross[2])).atan2(dot)
    }

    fn direction(from: [f64; 3], to: [f64; 3]) -> [f64; 3] {
        let d: [f64; 3] = std::array::from_fn(|i| to[i] - from[i]);
        let l = distance(from, to);
        d.map(|x| x / l)
    }

    #[test]
    fn a_twist_limit_levels_the_up_axis_only_so_far() {
        let mut rng = Rng::new(0x7157);
        let mut checked = 0;
        for _ in 0..300 {
            let (parents, local, _) = random_rig(&mut rng);
            let rest = to_soa(&vec![Transform::IDENTITY; parents.len()]);
            let skeleton = Skeleton::new(&parents, &rest, None).expect("skeleton");
            let soa = to_soa(&local);
            let model = model_of(&skeleton, &soa);
            let joint = rng.below(parents.len());
            let forward = rng.vec3(-1.0, 1.0);
            let target = model[joint].translation() + rng.vec3(-5.0, 5.0);
            let local_up = forward.cross(rng.vec3(-1.0, 1.0));
            let model_up = Vec3::new(0.0, 1.0, 0.0);
            let limit = rng.range(0.05, 1.5);
            let solve = |up, max_twist| {
                let mut out = soa.clone();
                let mut job = AimIkJob {
                    skeleton: &skeleton,
                    joint,
                    forward,
                    up,
                    target,
                    max_angle: None,
                    max_twist,
                    weight: 1.0,
                    model: &model,
                    local: &mut out,
                };
                job.run().expect("aim");
                oracle::local_to_model(&parents, &aos(&out, parents.len()), &oracle::IDENTITY)
            };
            let (plain, limited) = (solve(None, None), solve(Some((local_up, model_up)), Some(limit)));
            // Both aim the same way; the twist between them is the untwisted up's angle to +Y off the aim,
            // cut to the limit.
            let aim = axis(&plain[joint], forward);
            assert!(angle(aim, axis(&limited[joint], forward)) < 2e-5);
            let off_aim = |v: [f64; 3]| {
                let d: f64 = (0..3).map(|i| v[i] * aim[i]).sum();
                let w: [f64; 3] = std::array::from_fn(|i| v[i] - d * aim[i]);
                let l = w.iter().map(|x| x * x).sum::<f64>().sqrt();
                (l > 0.1).then(|| w.map(|x| x / l))
            };
            let (Some(have), Some(wanted), Some(got)) = (
                off_aim(axis(&plain[joint], local_up)),
                off_aim([0.0, 1.0, 0.0]),
                off_aim(axis(&limited[joint], local_up)),
            ) else {
                continue;
            };
            let full = angle(have, wanted);
            let twisted = angle(have, got);
            assert!((twisted - full.min(limit as f64)).abs() < 1e-4, "twisted {twisted}, full {full}, limit {limit}");
            checked += 1;
        }
        assert!(checked > 200, "{checked} cases with an up to level");
    }

    #[test]
    fn random_joints_aim_exactly_by_the_smallest_turn_and_keep_their_up_level() {
        let mut rng = Rng::new(0xa1);
        for case in 0..300 {
            let (parents, local, _) = random_rig(&mut rng);
            let rest = to_soa(&vec![Transform::IDENTITY; parents.len()]);
            let skeleton = Skeleton::new(&parents, &rest, None).expect("skeleton");
            let soa = to_soa(&local);
            let joint = rng.below(parents.len());
            let before = oracle::local_to_model(&parents, &local, &oracle::IDENTITY);
            let forward = rng.vec3(-1.0, 1.0);
            let target = Vec3::new(before[joint][12] as f32, before[joint][13] as f32, before[joint][14] as f32)
                + rng.vec3(-5.0, 5.0);
            let up = (case % 2 == 0).then(|| (forward.cross(rng.vec3(-1.0, 1.0)), Vec3::new(0.0, 1.0, 0.0)));
            let (after, solve, after_local) = aimed(&skeleton, &soa, joint, (forward, up, target, None, 1.0));
            let want = direction(position(&after[joint]), widen(target));
            let now = axis(&after[joint], forward);
            assert!(angle(now, want) < 2e-5, "case {case}: aim off by {}", angle(now, want));
            // The turn is the smallest one when no up is asked: the aim's own angle.
            let aim_angle = angle(axis(&before[joint], forward), want);
            assert!(solve.aimed && !solve.limited);
            if up.is_none() {
                // No axis of the joint turns further than the aim does.
                let axes = [Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.0, 1.0)];
                let turned = axes
                    .map(|a| angle(axis(&before[joint], a), axis(&after[joint], a)))
                    .into_iter()
                    .fold(0.0, f64::max);
                assert!(turned <= aim_angle + 2e-5, "case {case}: turned {turned} for an aim of {aim_angle}");
            } else if let Some((local_up, _)) = up {
                // The up axis lies in the plane of the aim and +Y, on +Y's side.
                let u = axis(&after[joint], local_up);
                let normal =
                    [want[1] * 0.0 - want[2] * 1.0, want[2] * 0.0 - want[0] * 0.0, want[0] * 1.0 - want[1] * 0.0];
                let off_plane: f64 = (0..3).map(|i| u[i] * normal[i]).sum();
                let level = normal.iter().map(|x| x * x).sum::<f64>().sqrt();
                if level > 0.1 {
                    assert!(off_plane.abs() / level < 1e-4, "case {case}: the up axis rolls by {off_plane}");
                    let upward = u[1] - want[1] * (0..3).map(|i| u[i] * want[i]).sum::<f64>();
                    assert!(upward > -1e-6, "case {case}: the up axis points down");
                }
            }
            let before_local = aos(&soa, parents.len());
            for j in 0..parents.len() {
                if j != joint {
                    assert_eq!(after_local[j], before_local[j], "joint {j} untouched");
                }
            }
        }
    }

    #[test]
    fn limits_weights_and_degenerate_targets() {
        let parents = [-1i16, 0];
        let local = [Transform::IDENTITY, Transform { translation: Vec3::new(0.0, 1.0, 0.0), ..Transform::IDENTITY }];
        let rest = to_soa(&[Transform::IDENTITY; 2]);
        let skeleton = Skeleton::new(&parents, &rest, None).unwrap();
        let soa = to_soa(&local);
        let forward = Vec3::new(0.0, 0.0, 1.0);
        // 90° to the side, capped at 30°: the aim turns 30° toward it.
        let side = Vec3::new(5.0, 1.0, 0.0);
        let (after, solve, _) = aimed(&skeleton, &soa, 1, (forward, None, side, Some(30f32.to_radians()), 1.0));
        assert!(solve.limited);
        let turned = angle(axis(&after[1], forward), [0.0, 0.0, 1.0]);
        assert!((turned - 30f64.to_radians()).abs() < 1e-5, "{}", turned.to_degrees());
        // Weight 0: nothing moves; straight behind: a finite half turn.
        let (_, _, unchanged) = aimed(&skeleton, &soa, 1, (forward, None, side, None, 0.0));
        assert_eq!(unchanged, aos(&soa, 2));
        let (after, _, _) = aimed(&skeleton, &soa, 1, (forward, None, Vec3::new(0.0, 1.0, -3.0), None, 1.0));
        assert!(angle(axis(&after[1], forward), [0.0, 0.0, -1.0]) < 1e-5);
        // A target on the joint: nothing changes.
        let (_, solve, same) = aimed(&skeleton, &soa, 1, (forward, None, Vec3::new(0.0, 1.0, 0.0), None, 1.0));
        assert!(!solve.aimed);
        assert_eq!(same, aos(&soa, 2));
        // Bad input.
        let model = model_of(&skeleton, &soa);
        let mut out = soa.clone();
        let mut job = |joint, forward, target, max_angle, weight| {
            AimIkJob {
                skeleton: &skeleton,
                joint,
                forward,
                up: None,
                target,
                max_angle,
                max_twist: None,
                weight,
                model: &model,
                local: &mut out,
            }
            .run()
            .map(|_| ())
        };
        let nan = Vec3::new(f32::NAN, 0.0, 0.0);
        assert_eq!(job(1, Vec3::ZERO, side, None, 1.0), Err(Error::InvalidIkTarget), "zero axis");
        assert_eq!(job(1, forward, nan, None, 1.0), Err(Error::InvalidIkTarget));
        assert_eq!(job(1, forward, side, Some(0.0), 1.0), Err(Error::InvalidIkTarget));
        assert_eq!(job(1, forward, side, None, -0.1), Err(Error::InvalidIkTarget));
        assert!(matches!(job(2, forward, side, None, 1.0), Err(Error::IndexOutOfRange { .. })));
    }

    #[test]
    fn the_makehuman_eyes_and_the_bandai_head_look_at_a_point() {
        let Some(dir) = sinew_tests::shared_data("aim on the MakeHuman eyes and the Bandai head") else { return };
        let face = dir.join("bvh/makehuman/face-poseunits.bvh");
        let walk = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh")
            .into_iter()
            .find(|p| p.to_string_lossy().contains("walk"))
            .expect("walk");
        for (path, joints) in [(face, &["eye.L", "eye.R"][..]), (walk, &["Head"][..])] {
            let bvh = sinew_tools::bvh::Bvh::load(&path).expect("load");
            let (raw, clip) = sinew_tools::bvh::to_raw(&bvh, "clip").expect("raw");
            let rest = to_soa(&raw.rest);
            let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
            let soa = to_soa(&clip.frames[clip.frames.len() / 2]);
            let before = oracle::local_to_model(&raw.parents, &aos(&soa, raw.parents.len()), &oracle::IDENTITY);
            for name in joints {
                let joint = raw.names.iter().position(|n| n == name).expect(name);
                // Look at a point 2 m ahead (the file's +Z) and a little to the side of the joint.
                let p = position(&before[joint]);
                let scale = if path.to_string_lossy().contains("bandai") { 100.0 } else { 10.0 };
                let target =
                    Vec3::new((p[0] + 0.3 * scale) as f32, (p[1] + 0.1 * scale) as f32, (p[2] + 2.0 * scale) as f32);
                let forward = Vec3::new(0.0, 0.0, 1.0);
                let up = Some((Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 1.0, 0.0)));
                let (after, solve, _) = aimed(&skeleton, &soa, joint, (forward, up, target, None, 1.0));
                assert!(solve.aimed);
                let miss = angle(axis(&after[joint], forward), direction(position(&after[joint]), widen(target)));
                assert!(miss < 2e-5, "{name}: aim off by {miss} rad");
                // Outside the joint's subtree every model matrix is the one before, bit for bit in f64.
                let mut below = vec![false; raw.parents.len()];
                below[joint] = true;
                for j in joint + 1..raw.parents.len() {
                    below[j] = raw.parents[j] >= 0 && below[raw.parents[j] as usize];
                }
                for j in (0..raw.parents.len()).filter(|j| !below[*j]) {
                    assert_eq!(after[j], before[j], "{name}: joint {} moved", raw.names[j]);
                }
            }
        }
    }
}

mod ccd {
    use super::*;
    use sinew::ik::{CcdIkJob, JointLimit};

    const AXES: [Vec3; 3] = [Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.0, 1.0)];

    /// A chain `0 → 1 → … → n−1` of bones along +Y (lengths 0.5–1.5), bent at random, with `extra` joints
    /// hanging off its joints; identity rest pose.
    fn chain_rig(rng: &mut Rng, n: usize, extra: usize) -> (Vec<i16>, Vec<Transform>) {
        let mut parents: Vec<i16> = (0..n as i16).map(|j| j - 1).collect();
        for _ in 0..extra {
            parents.push(rng.below(n) as i16);
        }
        let local = (0..parents.len())
            .map(|j| Transform {
                translation: if j == 0 { Vec3::ZERO } else { Vec3::new(0.0, rng.range(0.5, 1.5), 0.0) },
                rotation: sinew::math::Quat::from_axis_angle(AXES[rng.below(3)], rng.range(-0.6, 0.6)),
                scale: Vec3::ONE,
            })
            .collect();
        (parents, local)
    }

    fn solve(
        skeleton: &Skeleton<'_>,
        local: &[SoaTransform],
        chain: &[usize],
        limits: &[JointLimit],
        target: Vec3,
        tolerance: f32,
    ) -> (sinew::ik::CcdSolve, Vec<Transform>) {
        let model = model_of(skeleton, local);
        let mut out = local.to_vec();
        let solve = CcdIkJob {
            skeleton,
            chain,
            limits,
            target,
            tolerance,
            max_iterations: 400,
            max_step: 0.5,
            model: &model,
            local: &mut out,
        }
        .run()
        .expect("solve");
        (solve, aos(&out, skeleton.num_joints()))
    }

    /// Rotation `q` (f64) as (unit axis, angle in [0, π]).
    fn axis_angle(q: sinew::math::Quat) -> ([f64; 3], f64) {
        let s = if q.w < 0.0 { -1.0 } else { 1.0 };
        let v = [q.x as f64 * s, q.y as f64 * s, q.z as f64 * s];
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        let angle = 2.0 * l.atan2(q.w as f64 * s);
        (if l > 0.0 { v.map(|x| x / l) } else { [1.0, 0.0, 0.0] }, angle)
    }

    #[test]
    fn free_chains_reach_reachable_targets_keeping_their_bones_and_everything_else() {
        let mut rng = Rng::new(0xcc);
        let mut iterations = Vec::new();
        for case in 0..150 {
            let n = 3 + rng.below(6);
            let (parents, local) = chain_rig(&mut rng, n, 4);
            let rest = to_soa(&vec![Transform::IDENTITY; parents.len()]);
            let skeleton = Skeleton::new(&parents, &rest, None).expect("skeleton");
            let soa = to_soa(&local);
            let chain: Vec<usize> = (0..n).collect();
            let bones: Vec<f64> = (1..n).map(|j| local[j].translation.y as f64).collect();
            let reach: f64 = bones.iter().sum();
            // Between the chain's inner radius (its longest bone folded back past the others) and 0.8 of its
            // reach, so every target is reachable.
            let inner = (2.0 * bones.iter().cloned().fold(0.0, f64::max) - reach).max(0.0);
            let direction = rng.vec3(-1.0, 1.0);
            let d = rng.range((inner + 0.1 * reach) as f32, (0.8 * reach).max(inner + 0.15 * reach) as f32);
            let target = direction.scaled(d / direction.length());
            let limits = vec![JointLimit::Free; n - 1];
            let (solve, after) = solve(&skeleton, &soa, &chain, &limits, target, 1e-4);
            let model = oracle::local_to_model(&parents, &after, &oracle::IDENTITY);
            assert!(solve.reached, "case {case}: {n} joints, {} left after {}", solve.distance, solve.iterations);
            assert!(distance(position(&model[n - 1]), widen(target)) < 2e-4, "case {case}: the f64 end");
            for j in 1..n {
                let bone = distance(position(&model[j - 1]), position(&model[j]));
                assert!((bone - bones[j - 1]).abs() < 1e-5, "case {case}: bone {j}");
            }
            let before = aos(&soa, parents.len());
            for j in n..parents.len() {
                assert_eq!(after[j], before[j], "case {case}: joint {j} off the chain");
            }
            iterations.push(solve.iterations);
        }
        iterations.sort_unstable();
        let (median, worst) = (iterations[iterations.len() / 2], iterations[iterations.len() - 1]);
        println!("CCD, free chains of 3–8 joints to 1e-4: median {median} iterations, worst {worst}");
    }

    #[test]
    fn hinges_and_cones_hold_their_limits() {
        let mut rng = Rng::new(0xcd);
        for case in 0..150 {
            let n = 4;
            let (parents, local) = chain_rig(&mut rng, n, 0);
            let rest_pose = local.clone();
            let rest = to_soa(&rest_pose);
            let skeleton = Skeleton::new(&parents, &rest, None).expect("skeleton");
            let soa = to_soa(&local);
            let chain = [0usize, 1, 2, 3];
            let (min, max) = (-0.2f32, 1.9f32);
            let (max_swing, min_twist, max_twist) = (0.7f32, -0.3f32, 0.4f32);
            let limits = [
                JointLimit::Cone { axis: AXES[1], max_swing, min_twist, max_twist },
                JointLimit::Hinge { axis: AXES[0], min, max },
                JointLimit::Hinge { axis: Vec3::new(0.0, 0.0, 2.0), min, max },
            ];
            let target = rng.vec3(-2.5, 2.5);
            let (solve, after) = solve(&skeleton, &soa, &chain, &limits, target, 1e-4);
            assert!(solve.distance.is_finite());
            for (j, limit) in limits.iter().enumerate() {
                let relative = rest_pose[j].rotation.conjugate() * after[j].rotation;
                match *limit {
                    JointLimit::Hinge { axis, .. } => {
                        let (a, angle) = axis_angle(relative);
                        let along = widen(axis.scaled(1.0 / axis.length()));
                        let dot: f64 = (0..3).map(|i| a[i] * along[i]).sum();
                        let signed = if dot < 0.0 { -angle } else { angle };
                        assert!(angle < 1e-5 || dot.abs() > 1.0 - 1e-5, "case {case} joint {j}: off the hinge");
                        assert!(
                            signed > min as f64 - 1e-5 && signed < max as f64 + 1e-5,
                            "case {case} joint {j}: {signed}"
                        );
                    }
                    JointLimit::Cone { .. } => {
                        // Swing: how far the bone's axis (+Y) left its rest direction; twist about it.
                        let y = relative.rotate(Vec3::new(0.0, 1.0, 0.0));
                        let swing = (y.y as f64).clamp(-1.0, 1.0).acos();
                        assert!(swing < max_swing as f64 + 1e-4, "case {case}: swing {swing}");
                        let twist = 2.0 * (relative.y as f64).atan2(relative.w as f64);
                        let twist =
                            (twist + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
                        assert!(
                            twist > min_twist as f64 - 1e-4 && twist < max_twist as f64 + 1e-4,
                            "case {case}: twist {twist}"
                        );
                    }
                    JointLimit::Free => {}
                }
            }
        }
    }

    #[test]
    fn bad_chains_and_limits_are_errors() {
        let mut rng = Rng::new(0xce);
        let (parents, local) = chain_rig(&mut rng, 4, 1);
        let rest = to_soa(&vec![Transform::IDENTITY; parents.len()]);
        let skeleton = Skeleton::new(&parents, &rest, None).expect("skeleton");
        let soa = to_soa(&local);
        let model = model_of(&skeleton, &soa);
        let free = [JointLimit::Free; 3];
        let attempt = |chain: &[usize], limits: &[JointLimit], target: Vec3, max_step: f32| {
            let mut out = soa.clone();
            let (tolerance, max_iterations) = (1e-4, 20);
            let job = CcdIkJob {
                skeleton: &skeleton,
                chain,
                limits,
                target,
                tolerance,
                max_iterations,
                max_step,
                model: &model,
                local: &mut out,
            };
            let mut job = job;
            let result = job.run().map(|_| ());
            if result.is_err() {
                assert_eq!(aos(&out, parents.len()), aos(&soa, parents.len()), "nothing written");
            }
            result
        };
        let t = Vec3::new(1.0, 1.0, 0.0);
        assert_eq!(attempt(&[0, 1, 2, 3], &free, t, 0.5), Ok(()));
        assert_eq!(attempt(&[0, 2, 3], &free, t, 0.5), Err(Error::InvalidIkChain));
        assert_eq!(attempt(&[0], &free, t, 0.5), Err(Error::InvalidIkChain));
        assert_eq!(attempt(&[0, 1, 9], &free, t, 0.5), Err(Error::InvalidIkChain));
        assert!(matches!(attempt(&[0, 1, 2, 3], &free[..2], t, 0.5), Err(Error::BufferLength { .. })));
        let inverted = [JointLimit::Hinge { axis: AXES[0], min: 1.0, max: 0.0 }, JointLimit::Free, JointLimit::Free];
        assert_eq!(attempt(&[0, 1, 2, 3], &inverted, t, 0.5), Err(Error::InvalidIkTarget));
        let zero_axis = [JointLimit::Cone { axis: Vec3::ZERO, max_swing: 0.5, min_twist: 0.0, max_twist: 0.0 }; 3];
        assert_eq!(attempt(&[0, 1, 2, 3], &zero_axis, t, 0.5), Err(Error::InvalidIkTarget));
        assert_eq!(attempt(&[0, 1, 2, 3], &free, Vec3::new(f32::NAN, 0.0, 0.0), 0.5), Err(Error::InvalidIkTarget));
        assert_eq!(attempt(&[0, 1, 2, 3], &free, t, 0.0), Err(Error::InvalidIkTarget));
        // Out of reach: a finite pose, not reached, the end as near as the chain allows.
        let far = Vec3::new(0.0, 0.0, 100.0);
        assert_eq!(attempt(&[0, 1, 2, 3], &free, far, 0.5), Ok(()));
    }

    #[test]
    fn a_bandai_arm_from_the_chest_reaches_around_the_body() {
        let Some(dir) = sinew_tests::shared_data("CCD on the Bandai arm") else { return };
        let walk = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh")
            .into_iter()
            .find(|p| p.to_string_lossy().contains("walk"))
            .expect("walk");
        let bvh = sinew_tools::bvh::Bvh::load(&walk).expect("load");
        let (raw, clip) = sinew_tools::bvh::to_raw(&bvh, "walk").expect("raw");
        let rest = to_soa(&raw.rest);
        let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
        let index = |name: &str| raw.names.iter().position(|n| n == name).expect(name);
        let chain: Vec<usize> = ["Chest", "Shoulder_L", "UpperArm_L", "LowerArm_L", "Hand_L"].map(index).to_vec();
        let limits = vec![JointLimit::Free; chain.len() - 1];
        let mut rng = Rng::new(0xcf);
        let mut iterations = Vec::new();
        for frame in (0..clip.frames.len()).step_by(13) {
            let soa = to_soa(&clip.frames[frame]);
            let model = model_of(&skeleton, &soa);
            let hand = model[chain[4]].translation();
            let target = hand + rng.vec3(-20.0, 20.0);
            // A tenth of a millimetre (the file is in cm).
            let (solve, after) = solve(&skeleton, &soa, &chain, &limits, target, 1e-2);
            let end = position(&oracle::local_to_model(&raw.parents, &after, &oracle::IDENTITY)[chain[4]]);
            assert!(solve.reached && distance(end, widen(target)) < 1.1e-2, "frame {frame}: {}", solve.distance);
            iterations.push(solve.iterations);
        }
        iterations.sort_unstable();
        println!(
            "CCD, Bandai chest-to-hand to 0.1 mm: median {} iterations, worst {}",
            iterations[iterations.len() / 2],
            iterations[iterations.len() - 1]
        );
    }
}

mod batch {
    //! Batched two-bone IK: chains of many random characters solved in lanes, checked by the f64 FK of the
    //! stored pose (reachable targets reached, bones kept) and against the scalar job chain by chain.
    use super::*;
    use sinew::ik::{TwoBoneBatchChain, TwoBoneIkBatchJob};

    struct Case {
        parents: Vec<i16>,
        local: Vec<Transform>,
        chain: [usize; 3],
        target: Vec3,
        pole: Option<Vec3>,
        weight: f32,
    }

    /// A case's skeleton pieces: the rest pose (identity) and the animated SoA pose.
    struct Built {
        rest: Vec<SoaTransform>,
        soa: Vec<SoaTransform>,
    }

    fn cases(rng: &mut Rng, count: usize) -> Vec<Case> {
        (0..count)
            .map(|k| {
                let (parents, local, chain) = random_rig(rng);
                let rest = to_soa(&vec![Transform::IDENTITY; parents.len()]);
                let skeleton = Skeleton::new(&parents, &rest, None).expect("skeleton");
                let model = model_of(&skeleton, &to_soa(&local));
                let root = model[chain[0]].translation();
                let reach = (model[chain[1]].translation() - root).length()
                    + (model[chain[2]].translation() - model[chain[1]].translation()).length();
                let direction = rng.vec3(-1.0, 1.0);
                let target = root + direction.scaled(rng.range(0.2, 1.4) * reach / direction.length());
                let pole = (k % 2 == 0).then(|| root + rng.vec3(-3.0, 3.0));
                let weight = if k % 5 == 0 { rng.unit() } else { 1.0 };
                Case { parents, local, chain, target, pole, weight }
            })
            .collect()
    }

    fn build(c: &Case) -> Built {
        Built { rest: to_soa(&vec![Transform::IDENTITY; c.parents.len()]), soa: to_soa(&c.local) }
    }

    #[test]
    fn lanes_solve_as_the_scalar_job_and_reach_what_they_can() {
        let mut rng = Rng::new(0xba7c);
        for count in [1, 3, 4, 5, 8, 9, 301] {
            let cases = cases(&mut rng, count);
            let built: Vec<Built> = cases.iter().map(build).collect();
            let skeletons: Vec<Skeleton> =
                cases.iter().zip(&built).map(|(c, b)| Skeleton::new(&c.parents, &b.rest, None).unwrap()).collect();
            let models: Vec<Vec<Mat4>> = skeletons.iter().zip(&built).map(|(s, b)| model_of(s, &b.soa)).collect();
            let chains: Vec<TwoBoneBatchChain> = cases
                .iter()
                .zip(skeletons.iter().zip(models.iter().zip(&built)))
                .map(|(c, (skeleton, (model, b)))| TwoBoneBatchChain {
                    skeleton,
                    model,
                    local: &b.soa,
                    chain: c.chain,
                    target: c.target,
                    pole: c.pole,
                    weight: c.weight,
                })
                .collect();
            let mut rotations = vec![[sinew::math::Quat::IDENTITY; 2]; count];
            TwoBoneIkBatchJob { chains: &chains, rotations: &mut rotations }.run().expect("batch");
            let mut reached = 0;
            for (k, c) in cases.iter().enumerate() {
                let mut pose = built[k].soa.clone();
                TwoBoneIkBatchJob::store(&rotations[k], c.chain, &mut pose).expect("store");
                let mut scalar = built[k].soa.clone();
                let mut job = TwoBoneIkJob {
                    skeleton: &skeletons[k],
                    chain: c.chain,
                    target: c.target,
                    pole: c.pole,
                    weight: c.weight,
                    soften: 1.0,
                    end_turn: None,
                    model: &models[k],
                    local: &mut scalar,
                };
                job.run().expect("scalar");
                let n = c.parents.len();
                // Against the scalar job: the same two rotations (up to sign), nothing else touched.
                for j in 0..n {
                    let (a, b) = (pose[j / 4].get(j % 4), scalar[j / 4].get(j % 4));
                    assert!(1.0 - a.rotation.dot(b.rotation).abs() < 2e-6, "count {count}, chain {k}, joint {j}");
                    assert_eq!((a.translation, a.scale), (b.translation, b.scale));
                }
                // Against f64 FK: bones kept, reachable targets reached.
                let before = oracle::local_to_model(&c.parents, &c.local, &oracle::IDENTITY);
                let after = oracle::local_to_model(&c.parents, &aos(&pose, n), &oracle::IDENTITY);
                let [root, middle, end] = c.chain;
                let length = |m: &[oracle::M4], a: usize, b: usize| distance(position(&m[a]), position(&m[b]));
                let (l1, l2) = (length(&before, root, middle), length(&before, middle, end));
                let scale = l1 + l2;
                assert!((length(&after, root, middle) - l1).abs() < 1e-5 * scale);
                assert!((length(&after, middle, end) - l2).abs() < 1e-5 * scale);
                let d = distance(position(&after[root]), widen(c.target));
                if c.weight == 1.0 && d <= scale * (1.0 - 1e-4) && d >= (l1 - l2).abs() * (1.0 + 1e-4) {
                    let miss = distance(position(&after[end]), widen(c.target));
                    assert!(miss < 1e-4 * scale, "chain {k}: end {miss} from a reachable target");
                    reached += 1;
                }
            }
            assert!(count < 100 || reached > 80, "{reached} of {count} reached");
        }
    }

    #[test]
    fn bad_chains_and_short_outputs_are_errors_with_nothing_written() {
        let mut rng = Rng::new(0xbad);
        let cases = cases(&mut rng, 6);
        let built: Vec<Built> = cases.iter().map(build).collect();
        let skeletons: Vec<Skeleton> =
            cases.iter().zip(&built).map(|(c, b)| Skeleton::new(&c.parents, &b.rest, None).unwrap()).collect();
        let models: Vec<Vec<Mat4>> = skeletons.iter().zip(&built).map(|(s, b)| model_of(s, &b.soa)).collect();
        let short_model = &models[4][..2];
        // A zero-length bone: the middle joint's matrix on the root's.
        let mut folded = models[4].clone();
        folded[cases[4].chain[1]] = folded[cases[4].chain[0]];
        let chains: Vec<TwoBoneBatchChain> = cases
            .iter()
            .zip(skeletons.iter().zip(models.iter().zip(&built)))
            .map(|(c, (skeleton, (model, b)))| TwoBoneBatchChain {
                skeleton,
                model,
                local: &b.soa,
                chain: c.chain,
                target: c.target,
                pole: c.pole,
                weight: 1.0,
            })
            .collect();
        let untouched = [sinew::math::Quat::new(9.0, 9.0, 9.0, 9.0); 2];
        let attempt = |chains: &[TwoBoneBatchChain], len: usize| {
            let mut rotations = vec![untouched; len];
            let result = TwoBoneIkBatchJob { chains, rotations: &mut rotations }.run();
            assert!(rotations.iter().all(|r| *r == untouched), "nothing written on an error");
            result
        };
        let short = Error::BufferLength { buffer: sinew::Buffer::IkRotations, expected: 6, actual: 5 };
        assert_eq!(attempt(&chains, 5), Err(short));
        let broken = |replaced| {
            let mut bad = chains.clone();
            bad[4] = replaced;
            attempt(&bad, 6)
        };
        let fourth = chains[4];
        assert_eq!(
            broken(TwoBoneBatchChain { target: Vec3::new(f32::NAN, 0.0, 0.0), ..fourth }),
            Err(Error::InvalidIkTarget)
        );
        assert_eq!(
            broken(TwoBoneBatchChain { pole: Some(Vec3::new(0.0, f32::INFINITY, 0.0)), ..fourth }),
            Err(Error::InvalidIkTarget)
        );
        assert_eq!(broken(TwoBoneBatchChain { weight: 1.5, ..fourth }), Err(Error::InvalidIkTarget));
        assert_eq!(broken(TwoBoneBatchChain { chain: [1, 3, 2], ..fourth }), Err(Error::InvalidIkChain));
        assert_eq!(broken(TwoBoneBatchChain { chain: [1, 2, 99], ..fourth }), Err(Error::InvalidIkChain));
        let want =
            Error::BufferLength { buffer: sinew::Buffer::ModelMatrices, expected: cases[4].parents.len(), actual: 2 };
        assert_eq!(broken(TwoBoneBatchChain { model: short_model, ..fourth }), Err(want));
        assert_eq!(broken(TwoBoneBatchChain { model: &folded, ..fourth }), Err(Error::InvalidIkChain));
        let mut pose = built[0].soa.clone();
        assert_eq!(TwoBoneIkBatchJob::store(&untouched, [400, 401, 402], &mut pose), Err(Error::InvalidIkChain));
    }
}

mod aim_chain {
    //! Aim shared down a chain, checked by the f64 FK of the written pose: the last joint points at the
    //! target, the first joint takes its share of the arc, a limit holds, joints off the chain keep their
    //! local transforms, and bad chains are errors.
    use super::aim::{angle, axis};
    use super::*;
    use sinew::ik::AimChainJob;

    fn toward(from: [f64; 3], to: [f64; 3]) -> [f64; 3] {
        let d = distance(from, to);
        std::array::from_fn(|i| (to[i] - from[i]) / d)
    }

    /// A random rig and a chain of 2–5 joints, each an ancestor of the next (not always the parent).
    fn rig_with_chain(rng: &mut Rng) -> (Vec<i16>, Vec<Transform>, Vec<usize>) {
        loop {
            let n = 8 + rng.below(16);
            let parents = sinew_tests::random_parents(rng, n);
            let local: Vec<Transform> = (0..n)
                .map(|_| Transform { translation: rng.vec3(-1.0, 1.0), rotation: rng.quat(), scale: Vec3::ONE })
                .collect();
            // Walk up from the last joint, keeping most ancestors.
            let mut chain = vec![n - 1];
            let mut j = n - 1;
            while let Ok(p) = usize::try_from(parents[j]) {
                j = p;
                if rng.below(4) != 0 {
                    chain.push(j);
                }
            }
            chain.reverse();
            chain.truncate(2 + rng.below(4));
            if chain.len() >= 2 {
                return (parents, local, chain);
            }
        }
    }

    /// The job on one pose, written into `local`.
    fn solve(
        skeleton: &Skeleton<'_>,
        model: &[Mat4],
        joints: &[usize],
        weights: &[f32],
        (forward, target, max_angle): (Vec3, Vec3, Option<f32>),
        local: &mut [SoaTransform],
    ) -> Result<sinew::ik::AimSolve, Error> {
        AimChainJob { skeleton, joints, weights, forward, target, max_angle, model, local }.run()
    }

    fn run(
        parents: &[i16],
        local: &[Transform],
        joints: &[usize],
        weights: &[f32],
        (forward, target, max_angle): (Vec3, Vec3, Option<f32>),
    ) -> (Vec<oracle::M4>, Vec<Transform>, sinew::ik::AimSolve) {
        let rest = to_soa(&vec![Transform::IDENTITY; parents.len()]);
        let skeleton = Skeleton::new(parents, &rest, None).expect("skeleton");
        let soa = to_soa(local);
        let model = model_of(&skeleton, &soa);
        let mut out = soa.clone();
        let solve =
            solve(&skeleton, &model, joints, weights, (forward, target, max_angle), &mut out).expect("aim chain");
        let after = aos(&out, parents.len());
        (oracle::local_to_model(parents, &after, &oracle::IDENTITY), after, solve)
    }

    #[test]
    fn the_last_joint_points_at_the_target_and_the_first_takes_its_share() {
        let mut rng = Rng::new(0xa1c4);
        let (mut worst_aim, mut worst_share, mut checked) = (0.0f64, 0.0f64, 0);
        for _ in 0..300 {
            let (parents, local, joints) = rig_with_chain(&mut rng);
            let n = joints.len();
            let before = oracle::local_to_model(&parents, &local, &oracle::IDENTITY);
            let end = *joints.last().unwrap();
            let target = rng.vec3(-4.0, 4.0);
            if distance(position(&before[end]), widen(target)) < 0.5 {
                continue;
            }
            let forward = rng.vec3(-1.0, 1.0);
            let first_share = rng.range(0.1, 0.6);
            let mut weights = vec![0.0f32; n];
            weights[0] = first_share;
            weights[n - 1] = 1.0;
            let (after, after_local, solve) = run(&parents, &local, &joints, &weights, (forward, target, None));
            assert!(solve.aimed && !solve.limited);
            // The end points at the target from where it now stands.
            let aim = angle(axis(&after[end], forward), toward(position(&after[end]), widen(target)));
            worst_aim = worst_aim.max(aim);
            // Joints off the chain keep their local transforms; chain joints keep translation and scale.
            for j in 0..parents.len() {
                if joints.contains(&j) {
                    assert_eq!(
                        (after_local[j].translation, after_local[j].scale),
                        (local[j].translation, local[j].scale)
                    );
                } else {
                    assert_eq!(after_local[j], local[j], "joint {j} is off the chain");
                }
            }
            // The first joint turned by its share of the first arc (nlerp's angle for that share).
            let theta = angle(axis(&before[end], forward), toward(position(&before[end]), widen(target)));
            let w = first_share as f64;
            let want = 2.0 * (w * (theta / 2.0).sin()).atan2(1.0 - w + w * (theta / 2.0).cos());
            let (q0, q1) = (local[joints[0]].rotation, after_local[joints[0]].rotation);
            // The delta q1 q0⁻¹ in the parent's frame: its angle is the model-space turn's.
            let delta = oracle::quat_mul(q1, q0.conjugate());
            let got = 2.0 * delta[3].abs().clamp(-1.0, 1.0).acos();
            worst_share = worst_share.max((got - want).abs());
            checked += 1;
        }
        assert!(checked > 200);
        assert!(worst_aim < 2e-4, "the end misses its aim by {worst_aim} rad");
        assert!(worst_share < 1e-4, "the first joint's share is off by {worst_share} rad");
    }

    #[test]
    fn a_limit_stops_the_aim_at_its_angle() {
        let mut rng = Rng::new(0x11a);
        for _ in 0..200 {
            let (parents, local, joints) = rig_with_chain(&mut rng);
            let n = joints.len();
            let end = *joints.last().unwrap();
            let before = oracle::local_to_model(&parents, &local, &oracle::IDENTITY);
            let forward = rng.vec3(-1.0, 1.0);
            let target = rng.vec3(-4.0, 4.0);
            if distance(position(&before[end]), widen(target)) < 0.5 {
                continue;
            }
            let limit = rng.range(0.1, 1.0);
            let weights: Vec<f32> = (0..n).map(|i| if i + 1 == n { 1.0 } else { rng.unit() }).collect();
            let (after, _, solve) = run(&parents, &local, &joints, &weights, (forward, target, Some(limit)));
            let turned = angle(axis(&before[end], forward), axis(&after[end], forward));
            let wanted = angle(axis(&before[end], forward), toward(position(&before[end]), widen(target)));
            if solve.limited {
                assert!((turned - limit as f64).abs() < 2e-4, "turned {turned} at a limit of {limit}");
            } else {
                assert!(wanted <= limit as f64 + 1e-4);
            }
        }
    }

    #[test]
    fn the_bandai_spine_neck_and_head_look_around() {
        let Some(dir) = sinew_tests::shared_data("aim chain on the Bandai walk") else { return };
        let files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
        let walk = files.iter().find(|p| p.to_string_lossy().contains("walk")).expect("the Bandai walk");
        let bvh = sinew_tools::bvh::Bvh::load(walk).expect("load");
        let (raw, clip) = sinew_tools::bvh::to_raw(&bvh, "walk").expect("raw");
        let joints = ["Spine", "Chest", "Neck", "Head"].map(|n| raw.names.iter().position(|j| j == n).expect(n));
        let weights = [0.15, 0.2, 0.35, 1.0];
        let mut rng = Rng::new(0x4ead);
        let mut worst = 0.0f64;
        for frame in clip.frames.iter().step_by(9) {
            let model = oracle::local_to_model(&raw.parents, frame, &oracle::IDENTITY);
            let head = joints[3];
            // The head's forward: the local axis that points along the figure's +Z in this frame.
            let m = &model[head];
            let forward = Vec3::new(m[2] as f32, m[6] as f32, m[10] as f32);
            // A point 2 m away, up to 60° to either side and 30° up or down (cm units).
            let (yaw, pitch) = (rng.range(-1.0, 1.0), rng.range(-0.5, 0.5));
            let p = position(m);
            let target = Vec3::new(
                (p[0] + 200.0 * yaw.sin() as f64) as f32,
                (p[1] + 200.0 * pitch.sin() as f64) as f32,
                (p[2] + 200.0 * yaw.cos() as f64) as f32,
            );
            let (after, _, _) = run(&raw.parents, frame, &joints, &weights, (forward, target, None));
            worst = worst.max(angle(axis(&after[head], forward), toward(position(&after[head]), widen(target))));
        }
        println!("Bandai spine-neck-head: worst aim error {worst:.2e} rad");
        assert!(worst < 1e-4, "the head misses by {worst} rad");
    }

    #[test]
    fn bad_chains_are_errors_with_nothing_written() {
        let parents = [-1i16, 0, 1, 2, 1];
        let local: Vec<Transform> = (0..5)
            .map(|k| Transform { translation: Vec3::new(0.0, 1.0, 0.1 * k as f32), ..Transform::IDENTITY })
            .collect();
        let rest = to_soa(&[Transform::IDENTITY; 5]);
        let skeleton = Skeleton::new(&parents, &rest, None).unwrap();
        let soa = to_soa(&local);
        let model = model_of(&skeleton, &soa);
        let attempt = |joints: &[usize], weights: &[f32], forward: Vec3, target: Vec3, max_angle: Option<f32>| {
            let mut out = soa.clone();
            let result = solve(&skeleton, &model, joints, weights, (forward, target, max_angle), &mut out);
            assert_eq!(out, soa, "nothing written");
            result.map(|_| ())
        };
        let (z, t) = (Vec3::new(0.0, 0.0, 1.0), Vec3::new(0.0, 3.0, 5.0));
        assert_eq!(attempt(&[], &[], z, t, None), Err(Error::InvalidIkChain));
        assert_eq!(attempt(&[3, 1], &[0.5, 1.0], z, t, None), Err(Error::InvalidIkChain), "child before parent");
        assert_eq!(attempt(&[4, 3], &[0.5, 1.0], z, t, None), Err(Error::InvalidIkChain), "not an ancestor");
        assert_eq!(attempt(&[1, 9], &[0.5, 1.0], z, t, None), Err(Error::InvalidIkChain));
        let short = Error::BufferLength { buffer: sinew::Buffer::JointWeights, expected: 2, actual: 1 };
        assert_eq!(attempt(&[1, 3], &[1.0], z, t, None), Err(short));
        assert_eq!(attempt(&[1, 3], &[0.5, 1.5], z, t, None), Err(Error::InvalidIkTarget));
        assert_eq!(attempt(&[1, 3], &[0.5, 1.0], Vec3::ZERO, t, None), Err(Error::InvalidIkTarget));
        assert_eq!(attempt(&[1, 3], &[0.5, 1.0], z, Vec3::new(f32::NAN, 0.0, 0.0), None), Err(Error::InvalidIkTarget));
        assert_eq!(attempt(&[1, 3], &[0.5, 1.0], z, t, Some(0.0)), Err(Error::InvalidIkTarget));
        // A target on the last joint: nothing to aim at, nothing changes.
        let end = model[3].translation();
        let mut out = soa.clone();
        let on_joint = solve(&skeleton, &model, &[1, 3], &[0.5, 1.0], (z, end, None), &mut out);
        assert!(!on_joint.expect("on the joint").aimed);
        assert_eq!(out, soa);
    }
}
