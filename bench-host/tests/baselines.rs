//! The naive glam baselines the benches compare sinew against do the same work as sinew: on the procedural
//! humanoid and the Bandai walk and run, both write the same rotations, translations and entry times.

use sinew::Skeleton;
use sinew::foot_planting::{FootPlanter, FootPlantingJob, Ground, PlantSettings};
use sinew::ik::{AimChainJob, TwoBoneIkJob};
use sinew::math::{Mat4, Transform, Vec3};
use sinew::phase::{self, Footsteps, PhaseTable};
use sinew_bench_host::naive;
use sinew_tests::{model_of, oracle, to_soa};
use sinew_tools::raw::RawSkeleton;

/// Sample rate the Bandai clips are baked at.
const RATE: f32 = 30.0;

fn joint(skeleton: &RawSkeleton, name: &str) -> usize {
    skeleton.names.iter().position(|n| n == name).expect(name)
}

/// sinew's aim chain on `frame`: the chain's local transforms after the solve.
fn aim_chain(
    parents: &[i16],
    frame: &[Transform],
    joints: &[usize],
    weights: &[f32],
    forward: Vec3,
    target: Vec3,
) -> Vec<Transform> {
    let rest = to_soa(&vec![Transform::IDENTITY; parents.len()]);
    let skeleton = Skeleton::new(parents, &rest, None).expect("skeleton");
    let soa = to_soa(frame);
    let model = model_of(&skeleton, &soa);
    let mut out = soa.clone();
    AimChainJob {
        skeleton: &skeleton,
        joints,
        weights,
        forward,
        target,
        max_angle: None,
        model: &model,
        local: &mut out,
    }
    .run()
    .expect("aim chain");
    (0..parents.len()).map(|j| out[j / 4].get(j % 4)).collect()
}

#[test]
fn the_naive_glam_baseline_of_the_bench_plants_the_same_legs() {
    // The bench's baseline must do the same work: over two seconds of plants switching on a wavy ground, both
    // write the same leg rotations and pelvis translation on the procedural humanoid.
    use sinew::math::Transform;
    use sinew::{LocalToModelJob, Skeleton};
    let workload = sinew_bench_host::workload::Workload::humanoid(67);
    let raw = &workload.skeleton;
    let index = |name: &str| raw.names.iter().position(|n| n == name).expect(name);
    let legs = ["L", "R"].map(|s| [format!("{s}UpLeg"), format!("{s}Leg"), format!("{s}Foot")].map(|n| index(&n)));
    let pelvis = index("Hips");
    let rest = sinew_tests::to_soa(&raw.rest);
    let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
    let frame: &[Transform] = &workload.clip.frames[10];
    let local = sinew_tests::to_soa(frame);
    let mut model = vec![Mat4::IDENTITY; raw.parents.len()];
    LocalToModelJob { skeleton: &skeleton, walk: None, local: &local, root: None, model: &mut model }.run().unwrap();
    let glam_model: Vec<glam::Mat4> = model.iter().map(|m| glam::Mat4::from_cols_array_2d(&m.cols)).collect();
    let (mut planter, mut state, settings) =
        (FootPlanter::default(), naive::NaivePlanter::default(), PlantSettings::default());
    let dt = 1.0 / 60.0;
    let mut moved = 0.0f32;
    for k in 0..120u32 {
        let t = Vec3::new(0.0, 0.0, 0.01 * k as f32);
        let world =
            Mat4 { cols: [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [t.x, t.y, t.z, 1.0]] };
        let left = (k % 60) < 30;
        let heights = [0, 1].map(|f| 0.02 * ((k + 7 * f) as f32 * 0.1).sin());
        let tilt = Vec3::new(0.0, 1.0, 0.2 * (k as f32 * 0.05).sin());
        let (mut ours, mut ours_model) = (local.clone(), model.clone());
        FootPlantingJob {
            skeleton: &skeleton,
            planter: &mut planter,
            settings: &settings,
            pelvis,
            legs,
            planted: [left, !left],
            ground: heights.map(|height| Ground { height, normal: tilt }),
            world: &world,
            dt,
            weight: 1.0,
            model: &mut ours_model,
            local: &mut ours,
        }
        .run()
        .expect("plant");
        let (mut theirs, mut theirs_model) = (naive::AosPose::new(frame), glam_model.clone());
        let glam = |v: Vec3| glam::Vec3::new(v.x, v.y, v.z);
        let ground = heights.map(|h| (h, glam(tilt)));
        let world = glam::Mat4::from_cols_array_2d(&world.cols);
        naive::foot_planting(
            &mut theirs_model,
            &raw.parents,
            pelvis,
            legs,
            [left, !left],
            ground,
            world,
            dt,
            &mut state,
            &mut theirs,
        );
        for &j in legs.iter().flatten() {
            let (a, b) = (ours[j / 4].rotation.get(j % 4), theirs.rotation[j]);
            let dot = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
            assert!(dot.abs() > 1.0 - 1e-5, "frame {k}, joint {j}: {a:?} vs {b:?}");
            moved = moved.max(1.0 - a.dot(local[j / 4].rotation.get(j % 4)).abs());
        }
        let (a, b) = (ours[pelvis / 4].translation.get(pelvis % 4), theirs.translation[pelvis]);
        assert!((a - Vec3::new(b.x, b.y, b.z)).length() < 1e-5, "frame {k}: pelvis {a:?} vs {b:?}");
    }
    assert!(moved > 1e-4, "the legs were planted, not left as animated ({moved})");
}

#[test]
fn the_naive_glam_baseline_of_the_bench_solves_the_same_legs() {
    // The bench's baseline must do the same work: on the procedural humanoid's legs both write the same local
    // rotations (up to sign).
    let workload = sinew_bench_host::workload::Workload::humanoid(67);
    let raw = &workload.skeleton;
    let rest = to_soa(&raw.rest);
    let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
    let soa = to_soa(&workload.clip.frames[10]);
    let model = model_of(&skeleton, &soa);
    let glam_model: Vec<glam::Mat4> = model.iter().map(|m| glam::Mat4::from_cols_array_2d(&m.cols)).collect();
    let index = |name: &str| raw.names.iter().position(|n| n == name).expect(name);
    let glam = |v: Vec3| glam::Vec3::new(v.x, v.y, v.z);
    for side in ["L", "R"] {
        let chain = [format!("{side}UpLeg"), format!("{side}Leg"), format!("{side}Foot")].map(|n| index(&n));
        let target = model[chain[2]].translation() + Vec3::new(0.03, 0.08, 0.02);
        let pole = model[chain[1]].translation() + Vec3::new(0.0, 0.0, 0.5);
        let mut out = soa.clone();
        TwoBoneIkJob {
            skeleton: &skeleton,
            chain,
            target,
            pole: Some(pole),
            weight: 1.0,
            soften: 1.0,
            end_turn: None,
            model: &model,
            local: &mut out,
        }
        .run()
        .expect("solve");
        let mut rotations = vec![glam::Quat::IDENTITY; raw.parents.len()];
        naive::two_bone_ik(&glam_model, &raw.parents, chain, glam(target), glam(pole), &mut rotations);
        for joint in &chain[..2] {
            let (ours, naive) = (out[joint / 4].get(joint % 4).rotation, rotations[*joint]);
            let dot = ours.x * naive.x + ours.y * naive.y + ours.z * naive.z + ours.w * naive.w;
            assert!(dot.abs() > 1.0 - 1e-5, "{side} joint {joint}: {ours:?} vs {naive:?}");
        }
    }
}

#[test]
fn the_naive_glam_baseline_of_the_bench_turns_the_same_spine() {
    let workload = sinew_bench_host::workload::Workload::humanoid(67);
    let raw = &workload.skeleton;
    let joints = ["Spine", "Chest", "Neck", "Head"].map(|name| raw.names.iter().position(|n| n == name).expect(name));
    let weights = [0.15, 0.25, 0.4, 1.0];
    let frame = &workload.clip.frames[10];
    let eye = oracle::local_to_model(&raw.parents, frame, &oracle::IDENTITY)[joints[3]];
    let target = Vec3::new(eye[12] as f32 - 0.5, eye[13] as f32 + 0.1, eye[14] as f32 + 2.0);
    let forward = Vec3::new(0.0, 0.0, 1.0);
    let ours = aim_chain(&raw.parents, frame, &joints, &weights, forward, target);
    let rest = to_soa(&raw.rest);
    let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
    let model = model_of(&skeleton, &to_soa(frame));
    let glam_model: Vec<glam::Mat4> = model.iter().map(|m| glam::Mat4::from_cols_array_2d(&m.cols)).collect();
    let mut rotations = vec![glam::Quat::IDENTITY; raw.parents.len()];
    let glam = |v: Vec3| glam::Vec3::new(v.x, v.y, v.z);
    naive::aim_chain(&glam_model, &raw.parents, &joints, &weights, glam(forward), glam(target), &mut rotations);
    for joint in joints {
        let (a, b) = (ours[joint].rotation, rotations[joint]);
        let dot = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        assert!(dot.abs() > 1.0 - 1e-5, "joint {joint}: {a:?} vs {b:?}");
    }
}

#[test]
fn the_naive_baselines_agree_with_the_tables() {
    let Some((blob, skeleton, clips)) =
        sinew_tests::bandai_walk_run_phased("the_naive_baselines_agree_with_the_tables")
    else {
        return;
    };
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let feet = [joint(&skeleton, "Foot_L"), joint(&skeleton, "Foot_R")];
    let run = PhaseTable::of(&asset, 1).expect("run");
    let (_, forward, _) = asset.phase(1).expect("run phase");
    let frame = 1.0 / RATE;
    for i in 0..50 {
        let p = i as f32 / 50.0;
        let (table, scan) = (run.time_at(p), naive::phase_entry(forward, RATE, p));
        assert!((table - scan).abs() <= 0.5 * frame, "phase {p}: table {table}, scan {scan}");
    }
    let steps = |clip, side: usize| Footsteps::of(&asset, clip, feet[side], false).expect("steps");
    let times: [Vec<f32>; 2] = [steps(1, 0).times().collect(), steps(1, 1).times().collect()];
    for k in 0..40 {
        let at = 0.5 + 0.1 * k as f32;
        let (Some(l), Some(r)) = (steps(0, 0).phase_at(at), steps(0, 1).phase_at(at)) else { continue };
        let found = phase::match_foot_phase([&steps(1, 0), &steps(1, 1)], RATE, [l, r], 0.0..=f32::MAX).expect("match");
        let naive =
            naive::match_foot_phase([&times[0], &times[1]], clips[1].frames.len(), RATE, [l, r]).expect("naive");
        // The naive match stops at key frames; sinew refines next to the best one.
        assert!((found.time - naive).abs() <= frame + 1e-5, "at {at}: {} vs {naive}", found.time);
    }
}

#[test]
fn entering_at_the_matched_phase_slides_less_and_lands_on_the_right_foot() {
    let Some(dir) = sinew_tests::shared_data("entering_at_the_matched_phase") else { return };
    let files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
    let paths: Vec<_> = files
        .into_iter()
        .filter(|f| {
            f.file_name().is_some_and(|n| n.to_string_lossy().contains("walk") || n.to_string_lossy().contains("run"))
        })
        .collect();
    use sinew_bench_host::locomotion::{Entry, locomotion_quality};
    let table = locomotion_quality(&paths, &[], None, 0.2, 300, 1).expect("table");
    assert!(table.cuts >= 100, "{} cuts", table.cuts);
    let row = |entry| table.rows.iter().find(|r| r.entry == entry).expect("row");
    let (unsynced, phase, foot) = (row(Entry::Unsynced), row(Entry::Phase), row(Entry::FootPhase));
    for synced in [phase, foot] {
        assert!(synced.slide_mean < 0.6 * unsynced.slide_mean, "{:?} vs {unsynced:?}", synced);
        assert!(synced.wrong_foot_share < 0.5 * unsynced.wrong_foot_share, "{:?} vs {unsynced:?}", synced);
        // The feet slide more than the target alone does: the transition still moves them.
        assert!(synced.slide_mean >= synced.target_slide_mean, "{synced:?}");
    }
    assert!(phase.wrong_foot_share <= 0.05, "{phase:?}");
}
