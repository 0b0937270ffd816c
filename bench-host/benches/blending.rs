//! Blending: sinew's SoA blend of 2, 4 and 8 layers, with and without bone masks, vs the naive glam AoS loop
//! and a memcpy of the output bytes, per rig size. One character per iteration; throughput counts joints.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::blending::{BlendLayer, BlendingJob, DEFAULT_THRESHOLD};
use sinew::math::{F4, SoaTransform, num_soa_joints};
use sinew_bench_host::bench_support::BENCH_JOINTS;
use sinew_bench_host::naive::{self, AosPose};
use sinew_tools::rig::Rig;
use std::hint::black_box;

fn blending(c: &mut Criterion) {
    let mut group = c.benchmark_group("blending");
    for &n in &BENCH_JOINTS {
        let rig = Rig::humanoid(n);
        let skeleton = rig.skeleton();
        let poses = rig.poses(8);
        let soa = sinew_bench_host::bench_support::soa_poses(&poses);
        let aos: Vec<AosPose> = poses.iter().map(|p| AosPose::new(p)).collect();
        let mask_values: Vec<f32> = (0..n).map(|j| if j % 3 == 0 { 0.25 } else { 1.0 }).collect();
        let mask: Vec<F4> = mask_values
            .chunks(4)
            .map(|c| F4::from_array(std::array::from_fn(|l| c.get(l).copied().unwrap_or(0.0))))
            .collect();
        let mut output = vec![SoaTransform::IDENTITY; num_soa_joints(n)];
        let mut aos_out = AosPose::new(&rig.rest);
        group.throughput(Throughput::Elements(n as u64));
        let source = output.clone();
        group.bench_function(BenchmarkId::new("memcpy", n), |b| b.iter(|| output.copy_from_slice(black_box(&source))));
        for layers in [2usize, 4, 8] {
            for masked in [false, true] {
                let label = if masked { "masked" } else { "plain" };
                let items: Vec<BlendLayer<'_>> = (0..layers)
                    .map(|i| BlendLayer {
                        pose: &soa[i],
                        weight: 1.0 / (i + 1) as f32,
                        joint_weights: (masked && i % 2 == 1).then_some(&mask[..]),
                    })
                    .collect();
                group.bench_function(BenchmarkId::new(format!("sinew_{layers}_layers_{label}"), n), |b| {
                    b.iter(|| {
                        BlendingJob {
                            skeleton: &skeleton,
                            layers: &items,
                            additive: &[],
                            threshold: DEFAULT_THRESHOLD,
                            output: &mut output,
                        }
                        .run()
                        .expect("valid blend");
                        black_box(&output);
                    })
                });
                let aos_items: Vec<(&AosPose, f32, Option<&[f32]>)> = (0..layers)
                    .map(|i| (&aos[i], 1.0 / (i + 1) as f32, (masked && i % 2 == 1).then_some(&mask_values[..])))
                    .collect();
                group.bench_function(BenchmarkId::new(format!("naive_aos_glam_{layers}_layers_{label}"), n), |b| {
                    b.iter(|| naive::blend(black_box(&aos_items), &mut aos_out))
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, blending);
criterion_main!(benches);
