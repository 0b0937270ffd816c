//! IK by interpolation on the 67-joint humanoid: `AimBlendJob` (a 5 × 5 grid of aim poses turning Spine, Chest
//! and Neck, blended toward a moving direction, 3 corrections) against the naive glam version (AoS blend, whole
//! forward kinematics and the textbook correction per iteration). Throughput counts aims.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::aim_blend::{AimBlendJob, AimPoses};
use sinew::math::{Mat4, SoaTransform, Transform, Vec3};
use sinew::{LocalToModelJob, Skeleton};
use sinew_bench_host::bench_support::soa_poses;
use sinew_bench_host::naive;
use sinew_tools::glam_pose::AosPose;
use sinew_tools::rig::Rig;
use std::hint::black_box;

const GRID_DEGREES: [f32; 5] = [-60.0, -30.0, 0.0, 30.0, 60.0];

fn spine_aim(rig: &Rig, yaw: f32, pitch: f32) -> Vec<Transform> {
    rig.aim_pose(&["Spine", "Chest", "Neck"], yaw, pitch).expect("a spine")
}

fn aim_blend(c: &mut Criterion) {
    let rig = Rig::humanoid(67);
    let head = rig.names.iter().position(|n| n == "Head").expect("Head");
    let skeleton = Skeleton::new(&rig.parents, &rig.rest_soa, None).expect("skeleton");
    let angles: Vec<f32> = GRID_DEGREES.iter().map(|d| d.to_radians()).collect();
    let aos: Vec<Vec<Transform>> =
        angles.iter().flat_map(|&p| angles.iter().map(move |&y| (y, p))).map(|(y, p)| spine_aim(&rig, y, p)).collect();
    let soa = soa_poses(&aos);
    let refs: Vec<&[SoaTransform]> = soa.iter().map(|p| &p[..]).collect();
    let poses = AimPoses { poses: &refs, yaws: &angles, pitches: &angles };
    // The Head's axis that points along model +Z at rest.
    let mut model = vec![Mat4::IDENTITY; skeleton.num_joints()];
    LocalToModelJob { skeleton: &skeleton, walk: None, local: &rig.rest_soa, root: None, model: &mut model }
        .run()
        .expect("rest");
    let forward = model[head].inverse_affine().expect("invertible").transform_vector(Vec3::new(0.0, 0.0, 1.0));
    let directions: Vec<Vec3> = (0..16)
        .map(|k| {
            let (yaw, pitch) = ((k as f32 * 0.37).sin() * 0.8, (k as f32 * 0.61).cos() * 0.7);
            Vec3::new(yaw.sin() * pitch.cos(), pitch.sin(), yaw.cos() * pitch.cos())
        })
        .collect();

    let mut group = c.benchmark_group("aim_blend");
    group.throughput(Throughput::Elements(1));
    let mut output = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    let mut model = vec![Mat4::IDENTITY; skeleton.num_joints()];
    let mut k = 0;
    group.bench_function(BenchmarkId::new("sinew", "grid_5x5_3_iterations"), |b| {
        b.iter(|| {
            k = (k + 1) % directions.len();
            let mut job = AimBlendJob {
                skeleton: &skeleton,
                poses,
                joint: head,
                forward,
                direction: black_box(directions[k]),
                iterations: 3,
                output: &mut output,
                model: &mut model,
            };
            black_box(job.run().expect("aim").error)
        })
    });
    let naive_poses: Vec<AosPose> = aos.iter().map(|p| AosPose::new(p)).collect();
    let mut out = naive_poses[0].clone();
    let mut naive_model = vec![glam::Mat4::IDENTITY; skeleton.num_joints()];
    let glam_forward = glam::Vec3::new(forward.x, forward.y, forward.z);
    group.bench_function(BenchmarkId::new("naive", "grid_5x5_3_iterations"), |b| {
        b.iter(|| {
            k = (k + 1) % directions.len();
            let d = directions[k];
            let direction = glam::Vec3::new(d.x, d.y, d.z);
            black_box(naive::aim_blend(
                &naive_poses,
                &angles,
                &angles,
                &rig.parents,
                head,
                glam_forward,
                black_box(direction),
                3,
                &mut out,
                &mut naive_model,
            ))
        })
    });
    group.finish();
}

criterion_group!(benches, aim_blend);
criterion_main!(benches);
