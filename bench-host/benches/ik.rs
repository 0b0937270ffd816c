//! Two-bone IK per chain: sinew's `TwoBoneIkJob` (model matrices in, the chain's two local rotations written
//! into the SoA pose) against the naive glam solver (`naive::two_bone_ik`: quaternions extracted from the
//! model matrices), both legs of the procedural humanoid per iteration, targets moving every iteration.
//! Aim on the head, against the naive glam aim; CCD on an arm, against a naive glam CCD. Throughput counts chains (joints for aim).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::ik::TwoBoneIkJob;
use sinew::math::{Mat4, SoaTransform, Vec3};
use sinew::{LocalToModelJob, Skeleton};
use sinew_bench_host::bench_support::soa_poses;
use sinew_bench_host::naive;
use sinew_bench_host::workload::Workload;
use std::hint::black_box;

/// The 67-joint humanoid at frame 10: its description, rest and local SoA poses, and model matrices.
fn humanoid() -> (Workload, Vec<SoaTransform>, Vec<SoaTransform>, Vec<Mat4>) {
    let workload = Workload::humanoid(67);
    let raw = &workload.skeleton;
    let [rest, local] =
        <[_; 2]>::try_from(soa_poses(&[raw.rest.clone(), workload.clip.frames[10].clone()])).expect("two");
    let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
    let mut model = vec![Mat4::IDENTITY; skeleton.num_joints()];
    LocalToModelJob { skeleton: &skeleton, walk: None, local: &local, root: None, model: &mut model }
        .run()
        .expect("ltm");
    (workload, rest, local, model)
}

/// The model matrices as glam's, for the naive baselines.
fn to_glam(model: &[Mat4]) -> Vec<glam::Mat4> {
    model.iter().map(|m| glam::Mat4::from_cols_array_2d(&m.cols)).collect()
}

fn two_bone(c: &mut Criterion) {
    let mut group = c.benchmark_group("two_bone_ik");
    let (workload, rest, local, model) = humanoid();
    let raw = &workload.skeleton;
    let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
    let chains = sinew_tools::rig::leg_chains(|n| raw.names.iter().position(|j| j == n)).expect("legs");
    let feet = chains.map(|c| model[c[2]].translation());
    let poles = chains.map(|c| model[c[1]].translation() + Vec3::new(0.0, 0.0, 0.5));
    group.throughput(Throughput::Elements(chains.len() as u64));

    let mut pose = local.clone();
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("sinew", "legs"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            let lift = 0.1 * (frame % 16) as f32 / 16.0;
            for ((chain, foot), pole) in chains.iter().zip(feet).zip(poles) {
                let target = foot + Vec3::new(0.0, lift, 0.02);
                let (weight, soften, model) = (1.0, 1.0, &model[..]);
                let mut job = TwoBoneIkJob {
                    skeleton: &skeleton,
                    chain: *chain,
                    target,
                    pole: Some(pole),
                    weight,
                    soften,
                    end_turn: None,
                    model,
                    local: &mut pose,
                };
                black_box(job.run().expect("solve"));
            }
        })
    });

    let glam_model = to_glam(&model);
    let mut rotations = vec![glam::Quat::IDENTITY; skeleton.num_joints()];
    let glam = |v: Vec3| glam::Vec3::new(v.x, v.y, v.z);
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("naive_glam", "legs"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            let lift = 0.1 * (frame % 16) as f32 / 16.0;
            for ((chain, foot), pole) in chains.iter().zip(feet).zip(poles) {
                let target = glam(foot) + glam::Vec3::new(0.0, lift, 0.02);
                naive::two_bone_ik(&glam_model, &raw.parents, *chain, target, glam(pole), &mut rotations);
            }
            black_box(&rotations);
        })
    });
    group.finish();
}

/// Both legs of a crowd of 256 characters (512 chains, each character's matrices and pose its own): the
/// batched solve (chains read in place from each character's matrices and pose, rotations stored back) against
/// the scalar job per chain and the naive glam solver per chain. Throughput counts chains.
fn two_bone_batch(c: &mut Criterion) {
    use sinew::ik::{TwoBoneBatchChain, TwoBoneIkBatchJob};
    const CHARACTERS: usize = 256;
    let mut group = c.benchmark_group("two_bone_ik_crowd");
    let (workload, rest, local, model) = humanoid();
    let raw = &workload.skeleton;
    let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
    let legs = sinew_tools::rig::leg_chains(|n| raw.names.iter().position(|j| j == n)).expect("legs");
    let models = vec![model.clone(); CHARACTERS];
    let mut poses = vec![local.clone(); CHARACTERS];
    // Each character's targets: its feet raised and pushed by its own amount, moving per iteration.
    let target = |c: usize, leg: usize, frame: u32| {
        let foot = model[legs[leg][2]].translation();
        foot + Vec3::new(0.01 * (c % 5) as f32, 0.1 * ((frame as usize + c) % 16) as f32 / 16.0, 0.02)
    };
    let pole = |leg: usize| model[legs[leg][1]].translation() + Vec3::new(0.0, 0.0, 0.5);
    group.throughput(Throughput::Elements((2 * CHARACTERS) as u64));

    fn chains_of<'a>(
        skeleton: &'a Skeleton<'a>,
        models: &'a [Vec<Mat4>],
        poses: &'a [Vec<SoaTransform>],
        legs: &[[usize; 3]; 2],
        aim: impl Fn(usize, usize) -> (Vec3, Vec3),
    ) -> Vec<TwoBoneBatchChain<'a>> {
        let mut chains = Vec::with_capacity(2 * models.len());
        for (c, (model, local)) in models.iter().zip(poses).enumerate() {
            for (leg, chain) in legs.iter().enumerate() {
                let (target, pole) = aim(c, leg);
                let chain = *chain;
                chains.push(TwoBoneBatchChain { skeleton, model, local, chain, target, pole: Some(pole), weight: 1.0 });
            }
        }
        chains
    }
    let mut rotations = vec![[sinew::math::Quat::IDENTITY; 2]; 2 * CHARACTERS];
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("sinew_batch", "legs"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            let chains = chains_of(&skeleton, &models, &poses, &legs, |c, leg| (target(c, leg, frame), pole(leg)));
            TwoBoneIkBatchJob { chains: &chains, rotations: &mut rotations }.run().expect("solve");
            drop(chains);
            for (c, pose) in poses.iter_mut().enumerate() {
                for (leg, chain) in legs.iter().enumerate() {
                    TwoBoneIkBatchJob::store(&rotations[2 * c + leg], *chain, pose).expect("store");
                }
            }
            black_box(&poses);
        })
    });
    let still = poses.clone();
    let chains = chains_of(&skeleton, &models, &still, &legs, |c, leg| (target(c, leg, 0), pole(leg)));
    group.bench_function(BenchmarkId::new("sinew_batch_solve_only", "legs"), |b| {
        b.iter(|| {
            TwoBoneIkBatchJob { chains: &chains, rotations: &mut rotations }.run().expect("solve");
            black_box(&rotations);
        })
    });
    drop(chains);

    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("sinew_scalar", "legs"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            for (c, (model, pose)) in models.iter().zip(poses.iter_mut()).enumerate() {
                for (leg, chain) in legs.iter().enumerate() {
                    let mut job = TwoBoneIkJob {
                        skeleton: &skeleton,
                        chain: *chain,
                        target: target(c, leg, frame),
                        pole: Some(pole(leg)),
                        weight: 1.0,
                        soften: 1.0,
                        end_turn: None,
                        model,
                        local: pose,
                    };
                    black_box(job.run().expect("solve"));
                }
            }
        })
    });

    let glam_models: Vec<Vec<glam::Mat4>> = models.iter().map(|m| to_glam(m)).collect();
    let mut glam_rotations = vec![vec![glam::Quat::IDENTITY; skeleton.num_joints()]; CHARACTERS];
    let glam = |v: Vec3| glam::Vec3::new(v.x, v.y, v.z);
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("naive_glam", "legs"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            for (c, (model, rotations)) in glam_models.iter().zip(glam_rotations.iter_mut()).enumerate() {
                for (leg, chain) in legs.iter().enumerate() {
                    let (t, p) = (glam(target(c, leg, frame)), glam(pole(leg)));
                    naive::two_bone_ik(model, &raw.parents, *chain, t, p, rotations);
                }
            }
            black_box(&glam_rotations);
        })
    });
    group.finish();
}

/// Aim per joint: the head of the procedural humanoid turned toward a moving point.
fn aim(c: &mut Criterion) {
    use sinew::ik::AimIkJob;
    let mut group = c.benchmark_group("aim_ik");
    let (workload, rest, local, model) = humanoid();
    let raw = &workload.skeleton;
    let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
    let head = raw.names.iter().position(|n| n == "Head").expect("Head");
    let (forward, eye) = (Vec3::new(0.0, 0.0, 1.0), model[head].translation());
    group.throughput(Throughput::Elements(1));
    let mut pose = local.clone();
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("sinew", "head"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            let target = eye + Vec3::new(0.05 * (frame % 16) as f32, 0.1, 2.0);
            let (model, up) = (&model[..], None);
            let mut job = AimIkJob {
                skeleton: &skeleton,
                joint: head,
                forward,
                up,
                target,
                max_angle: None,
                max_twist: None,
                weight: 1.0,
                model,
                local: &mut pose,
            };
            black_box(job.run().expect("aim"))
        })
    });
    let glam_model = to_glam(&model);
    let mut rotations = vec![glam::Quat::IDENTITY; skeleton.num_joints()];
    let eye = glam::Vec3::new(eye.x, eye.y, eye.z);
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("naive_glam", "head"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            let target = eye + glam::Vec3::new(0.05 * (frame % 16) as f32, 0.1, 2.0);
            naive::aim(&glam_model, &raw.parents, head, glam::Vec3::Z, target, &mut rotations);
            black_box(&rotations);
        })
    });
    group.finish();
}

/// Aim down the humanoid's spine, neck and head (weights 0.15, 0.25, 0.4, 1) toward a moving point; against
/// the naive glam chain. Throughput counts chains.
fn aim_chain(c: &mut Criterion) {
    use sinew::ik::AimChainJob;
    let mut group = c.benchmark_group("aim_chain_ik");
    let (workload, rest, local, model) = humanoid();
    let raw = &workload.skeleton;
    let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
    let joints = ["Spine", "Chest", "Neck", "Head"].map(|name| raw.names.iter().position(|n| n == name).expect(name));
    let weights = [0.15, 0.25, 0.4, 1.0];
    let (forward, eye) = (Vec3::new(0.0, 0.0, 1.0), model[joints[3]].translation());
    group.throughput(Throughput::Elements(1));
    let mut pose = local.clone();
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("sinew", "spine_head"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            let target = eye + Vec3::new(0.1 * (frame % 16) as f32 - 0.8, 0.1, 2.0);
            let mut job = AimChainJob {
                skeleton: &skeleton,
                joints: &joints,
                weights: &weights,
                forward,
                target,
                max_angle: None,
                model: &model,
                local: &mut pose,
            };
            black_box(job.run().expect("aim"))
        })
    });
    let glam_model = to_glam(&model);
    let mut rotations = vec![glam::Quat::IDENTITY; skeleton.num_joints()];
    let eye = glam::Vec3::new(eye.x, eye.y, eye.z);
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("naive_glam", "spine_head"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            let target = eye + glam::Vec3::new(0.1 * (frame % 16) as f32 - 0.8, 0.1, 2.0);
            naive::aim_chain(&glam_model, &raw.parents, &joints, &weights, glam::Vec3::Z, target, &mut rotations);
            black_box(&rotations);
        })
    });
    group.finish();
}

/// Foot planting per character: both legs of the humanoid, the world moving on, plants switching every half
/// second, a wavy ground; against the naive glam planting doing the same steps. Throughput counts characters.
fn foot_planting(c: &mut Criterion) {
    use sinew::foot_planting::{FootPlanter, FootPlantingJob, Ground, PlantSettings};
    let mut group = c.benchmark_group("foot_planting");
    let (workload, rest, local, model) = humanoid();
    let raw = &workload.skeleton;
    let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
    let index = |name: &str| raw.names.iter().position(|n| n == name).expect(name);
    let legs = sinew_tools::rig::leg_chains(|n| raw.names.iter().position(|j| j == n)).expect("legs");
    let pelvis = index("Hips");
    let settings = PlantSettings::default();
    let dt = 1.0 / 60.0;
    // Frame k: the character 1 cm further along +Z, the left foot planted in the first half of each second.
    let frame_inputs = |k: u32| {
        let world = Mat4 {
            cols: [
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0],
                [0.0, 0.0, 0.01 * (k % 600) as f32, 1.0],
            ],
        };
        let left = (k % 60) < 30;
        let ground = [0, 1].map(|f| 0.02 * ((k + 7 * f) as f32 * 0.1).sin());
        (world, [left, !left], ground)
    };
    group.throughput(Throughput::Elements(1));
    let (mut planter, mut pose, mut scratch_model) = (FootPlanter::default(), local.clone(), model.clone());
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("sinew", "two_legs"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            let (world, planted, heights) = frame_inputs(frame);
            let report = FootPlantingJob {
                skeleton: &skeleton,
                planter: &mut planter,
                settings: &settings,
                pelvis,
                legs,
                planted,
                ground: heights.map(Ground::flat),
                world: &world,
                dt,
                weight: 1.0,
                model: &mut scratch_model,
                local: &mut pose,
            }
            .run()
            .expect("plant");
            // The job moved the legs' matrices with the pelvis and turned their rotations: back to the
            // animated ones for the next frame.
            for &j in legs.iter().flatten() {
                scratch_model[j] = model[j];
                pose[j / 4].rotation.set(j % 4, local[j / 4].rotation.get(j % 4));
            }
            pose[pelvis / 4].translation.set(pelvis % 4, local[pelvis / 4].translation.get(pelvis % 4));
            black_box(report)
        })
    });
    let mut glam_model = to_glam(&model);
    let glam_animated = glam_model.clone();
    let mut naive_pose = naive::AosPose::new(&workload.clip.frames[10]);
    let animated_pelvis = naive_pose.translation[pelvis];
    let mut state = naive::NaivePlanter::default();
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("naive_glam", "two_legs"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            let (world, planted, heights) = frame_inputs(frame);
            let world = glam::Mat4::from_cols_array_2d(&world.cols);
            let ground = heights.map(|h| (h, glam::Vec3::Y));
            naive::foot_planting(
                &mut glam_model,
                &raw.parents,
                pelvis,
                legs,
                planted,
                ground,
                world,
                dt,
                &mut state,
                &mut naive_pose,
            );
            for j in legs.iter().flatten() {
                glam_model[*j] = glam_animated[*j];
            }
            naive_pose.translation[pelvis] = animated_pelvis;
            black_box(&naive_pose);
        })
    });
    group.finish();
}

/// CCD on the humanoid's left arm from the chest (five joints) toward a moving point near the hand, free
/// joints, to 1 mm or 64 iterations; against the naive glam CCD doing the same iterations.
fn ccd(c: &mut Criterion) {
    use sinew::ik::{CcdIkJob, JointLimit};
    let mut group = c.benchmark_group("ccd_ik");
    let (workload, rest, local, model) = humanoid();
    let raw = &workload.skeleton;
    let skeleton = Skeleton::new(&raw.parents, &rest, None).expect("skeleton");
    let index = |name: &str| raw.names.iter().position(|n| n == name).expect(name);
    let chain = ["Chest", "LShoulder", "LUpperArm", "LLowerArm", "LHand"].map(index);
    let limits = [JointLimit::Free; 4];
    let hand = model[chain[4]].translation();
    let (tolerance, max_iterations) = (1e-3, 64);
    group.throughput(Throughput::Elements(1));
    // How much work one solve is: the iterations each solver takes for the first target.
    let first = hand + Vec3::new(0.05, 0.01, 0.08);
    let mut pose = local.clone();
    let (model_ref, max_step) = (&model[..], 0.5);
    let solved = CcdIkJob {
        skeleton: &skeleton,
        chain: &chain,
        limits: &limits,
        target: first,
        tolerance,
        max_iterations,
        max_step,
        model: model_ref,
        local: &mut pose,
    }
    .run()
    .expect("solve");
    let mut naive_pose = naive::AosPose::new(&workload.clip.frames[10]);
    let above_first = glam::Mat4::from_cols_array_2d(&model[raw.parents[chain[0]] as usize].cols);
    let naive_iterations = naive::ccd(
        &chain,
        above_first,
        &mut naive_pose,
        glam::Vec3::new(first.x, first.y, first.z),
        tolerance,
        max_iterations,
    );
    eprintln!("ccd_ik: sinew {} iterations ({} m left), naive {naive_iterations}", solved.iterations, solved.distance);
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("sinew", "arm"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            let target = hand + Vec3::new(0.05, 0.01 * (frame % 8) as f32, 0.08);
            // Each solve starts from the animated pose, as a game frame does.
            let mut pose = local.clone();
            let (model, max_step) = (&model[..], 0.5);
            let mut job = CcdIkJob {
                skeleton: &skeleton,
                chain: &chain,
                limits: &limits,
                target,
                tolerance,
                max_iterations,
                max_step,
                model,
                local: &mut pose,
            };
            black_box(job.run().expect("solve"))
        })
    });
    let aos = naive::AosPose::new(&workload.clip.frames[10]);
    let parent = raw.parents[chain[0]] as usize;
    let above = glam::Mat4::from_cols_array_2d(&model[parent].cols);
    let hand = glam::Vec3::new(hand.x, hand.y, hand.z);
    let mut frame = 0u32;
    group.bench_function(BenchmarkId::new("naive_glam", "arm"), |b| {
        b.iter(|| {
            frame = frame.wrapping_add(1);
            let target = hand + glam::Vec3::new(0.05, 0.01 * (frame % 8) as f32, 0.08);
            let mut pose = aos.clone();
            black_box(naive::ccd(&chain, above, &mut pose, target, tolerance, max_iterations))
        })
    });
    group.finish();
}

criterion_group!(benches, two_bone, two_bone_batch, aim, aim_chain, foot_planting, ccd);
criterion_main!(benches);
