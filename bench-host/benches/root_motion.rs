//! Warp points against the blend spaces they replace (Gears of War 4: "over twice as fast"): one clip sampled
//! and its root warped, against two and three clips sampled and blended, per rig size, frames advancing at
//! 60 Hz so every iteration decodes as a game frame does. Throughput counts joints.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::blending::{BlendLayer, BlendingJob, DEFAULT_THRESHOLD};
use sinew::math::{SoaTransform, Vec3};
use sinew::root_motion::{self, RootMotion, WarpPoint, WarpWindow};
use sinew::{Arena, Asset, Playback, SamplingContext, SamplingJob};
use sinew_bench_host::workload::Workload;
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::root_motion::Extraction;
use std::hint::black_box;

const DT: f32 = 1.0 / 60.0;

fn warp(c: &mut Criterion) {
    let mut group = c.benchmark_group("warp");
    for &n in &[67, 256] {
        let workload = Workload::humanoid(n);
        let (skeleton, clips) =
            sinew_tools::root_motion::extract(&workload.skeleton, &[workload.clip], &Extraction::default())
                .expect("extract");
        let blob = bake::bake(&skeleton, &vec![clips[0].clone(); 3], KeyFormat::F32).expect("bake");
        let asset = Asset::load(blob.bytes()).expect("load");
        let skeleton = asset.skeleton();
        let clips: Vec<_> = (0..3).map(|i| asset.clip(i).expect("clip")).collect();
        let duration = clips[0].duration();
        let g = skeleton.num_soa_joints();
        let joints = skeleton.num_joints();
        let mut memory = vec![0u8; 3 * SamplingContext::required_bytes(joints) + 4 * (g * 40 * 4 + 64)];
        let arena = Arena::new(&mut memory);
        let mut contexts: Vec<SamplingContext> =
            (0..3).map(|_| SamplingContext::new(&arena, joints).expect("context")).collect();
        let mut samples: Vec<&mut [SoaTransform]> = (0..3).map(|_| arena.alloc(g).expect("pose")).collect();
        let output = arena.alloc::<SoaTransform>(g).expect("pose");
        let rest = skeleton.rest_pose()[0];
        let marker = root_motion::root_at(&clips[0], &rest, 1.0);
        let target = RootMotion { translation: Vec3::new(0.3, 0.0, 1.2), yaw: 0.4 };
        let point = WarpPoint::new(marker, target, 1.0, [WarpWindow { start: 0.2, end: 1.0 }; 3]).expect("warp");
        group.throughput(Throughput::Elements(n as u64));

        let mut time = 0.0f32;
        group.bench_function(BenchmarkId::new("sinew_warp", n), |b| {
            b.iter(|| {
                time = (time + DT) % duration;
                let (clip, context) = (&clips[0], &mut contexts[0]);
                let output = &mut *samples[0];
                SamplingJob { skeleton, clip, time, playback: Playback::Loop, context, output, curves: &mut [] }
                    .run()
                    .expect("sample");
                let root = root_motion::root_at(clip, &rest, time);
                black_box(point.apply(root, time))
            })
        });
        for count in [2, 3] {
            let mut time = 0.0f32;
            group.bench_function(BenchmarkId::new(format!("blend_space_{count}"), n), |b| {
                b.iter(|| {
                    time = (time + DT) % duration;
                    for ((clip, context), output) in clips.iter().zip(&mut contexts).zip(&mut samples).take(count) {
                        let playback = Playback::Loop;
                        SamplingJob { skeleton, clip, time, playback, context, output, curves: &mut [] }
                            .run()
                            .expect("sample");
                    }
                    let weight = 1.0 / count as f32;
                    // A fixed array, as an engine keeps it: no allocation in the loop.
                    let layers = [0, 1, 2].map(|i| BlendLayer { pose: &*samples[i], weight, joint_weights: None });
                    let (additive, threshold) = (&[][..], DEFAULT_THRESHOLD);
                    BlendingJob { skeleton, layers: &layers[..count], additive, threshold, output: &mut *output }
                        .run()
                        .expect("blend")
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, warp);
criterion_main!(benches);
