//! Inertialization per rig size: a frame mid-transition (evaluate the active curves, rebuild rotations,
//! record history; the rig animates rotations and the root's translation), the same with every channel of
//! every joint active, a request frame (coefficients for every DOF, then that frame), and a frame with no transition
//! (copy); the first two also with the continuous shape (`_continuous`); vs the naive AoS glam loop evaluating the paper's formula per DOF. Throughput counts joints.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::inertialization::{Settings, Shape};
use sinew::math::SoaTransform;
use sinew::{Arena, InertializationJob, Inertializer, Target, Transition};
use sinew_bench_host::bench_support::BENCH_JOINTS;
use sinew_bench_host::naive::{self, AosCurve, AosJointCurves, AosPose};
use sinew_tools::rig::Rig;
use std::hint::black_box;

/// A step so small the transition never ends however many iterations criterion runs: every frame costs
/// the same as one mid-transition.
const TINY_DT: f32 = 1e-9;

/// A target with its previous pose (relative velocity, the default) and no scalar curves.
fn frame<'a>(pose: &'a [SoaTransform], previous: &'a [SoaTransform]) -> Target<'a> {
    Target { pose, curves: &[], previous: Some((previous, &[])) }
}

fn inertialization(c: &mut Criterion) {
    let mut group = c.benchmark_group("inertialization");
    for &n in &BENCH_JOINTS {
        let rig = Rig::humanoid(n);
        let poses = rig.poses(4);
        let soa = sinew_bench_host::bench_support::soa_poses(&poses);
        let continuous = Settings { shape: Shape::Continuous, ..Settings::default() };
        // The paper's clamped quintic (the default) and the continuous shape, in the same run.
        for (suffix, settings) in [("", Settings::default()), ("_continuous", continuous)] {
            let mut memory = vec![0u8; Inertializer::required_bytes(n, 0)];
            let arena = Arena::new(&mut memory);
            let mut inertializer = Inertializer::new(&arena, n, 0, settings).expect("sized");
            // Two source frames, then a long transition towards pose 3.
            for p in [&soa[0], &soa[1]] {
                InertializationJob { inertializer: &mut inertializer, dt: 1.0 / 60.0, target: frame(p, p) }
                    .run()
                    .expect("valid");
            }
            let long = Transition { duration: 1e6, profile: None };
            inertializer.request(&long).expect("valid");
            InertializationJob { inertializer: &mut inertializer, dt: 1.0 / 60.0, target: frame(&soa[3], &soa[2]) }
                .run()
                .expect("valid");
            group.throughput(Throughput::Elements(n as u64));
            group.bench_function(BenchmarkId::new(format!("sinew_frame{suffix}"), n), |b| {
                b.iter(|| {
                    InertializationJob {
                        inertializer: &mut inertializer,
                        dt: TINY_DT,
                        target: frame(black_box(&soa[3]), &soa[2]),
                    }
                    .run()
                })
            });
            group.bench_function(BenchmarkId::new(format!("sinew_request_frame{suffix}"), n), |b| {
                b.iter(|| {
                    inertializer.request(&long).expect("valid");
                    InertializationJob {
                        inertializer: &mut inertializer,
                        dt: TINY_DT,
                        target: frame(black_box(&soa[3]), &soa[2]),
                    }
                    .run()
                })
            });
        }
        let long = Transition { duration: 1e6, profile: None };
        // Every channel animated: translations and scales of the target moved too, so nothing is skipped.
        let mut moved = soa[3].clone();
        for group in &mut moved {
            for v in [&mut group.translation.x, &mut group.translation.z, &mut group.scale.y] {
                *v = *v + sinew::math::F4::splat(0.05);
            }
        }
        let mut all_memory = vec![0u8; Inertializer::required_bytes(n, 0)];
        let all_arena = Arena::new(&mut all_memory);
        let mut all = Inertializer::new(&all_arena, n, 0, Default::default()).expect("sized");
        for p in [&soa[0], &soa[1]] {
            InertializationJob { inertializer: &mut all, dt: 1.0 / 60.0, target: frame(p, p) }.run().expect("valid");
        }
        all.request(&long).expect("valid");
        InertializationJob { inertializer: &mut all, dt: 1.0 / 60.0, target: frame(&moved, &soa[2]) }
            .run()
            .expect("valid");
        group.bench_function(BenchmarkId::new("sinew_frame_all_channels", n), |b| {
            b.iter(|| {
                InertializationJob { inertializer: &mut all, dt: TINY_DT, target: frame(black_box(&moved), &soa[2]) }
                    .run()
            })
        });
        let mut idle_memory = vec![0u8; Inertializer::required_bytes(n, 0)];
        let idle_arena = Arena::new(&mut idle_memory);
        let mut idle = Inertializer::new(&idle_arena, n, 0, Default::default()).expect("sized");
        group.bench_function(BenchmarkId::new("sinew_idle_frame", n), |b| {
            b.iter(|| {
                InertializationJob {
                    inertializer: &mut idle,
                    dt: 1.0 / 60.0,
                    target: frame(black_box(&soa[3]), &soa[2]),
                }
                .run()
            })
        });

        // Naive: the same offsets' curves in AoS, evaluated per DOF from the paper's formula.
        let target = AosPose::new(&poses[3]);
        let curves: Vec<AosJointCurves> = (0..n)
            .map(|j| {
                let (s, t) = (&poses[1][j], &poses[3][j]);
                let d = [
                    s.translation.x - t.translation.x,
                    s.translation.y - t.translation.y,
                    s.translation.z - t.translation.z,
                ];
                std::array::from_fn(|i| AosCurve::new(d[i % 3] + 0.1 * i as f32, -0.5, 1e6))
            })
            .collect();
        let mut aos_out = AosPose::new(&poses[0]);
        group.bench_function(BenchmarkId::new("naive_aos_glam_frame", n), |b| {
            b.iter(|| naive::inertialize(black_box(&curves), 0.25, &target, &mut aos_out))
        });
    }
    group.finish();
}

criterion_group!(benches, inertialization);
criterion_main!(benches);
