//! Sampling: sinew (f32, quantized and compressed keys; playback, random seek, and interpolation alone) vs the naive AoS
//! glam sampler, per rig size. One character, one sample per iteration; throughput counts joints.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::math::SoaTransform;
use sinew::{Arena, Asset, Playback, SamplingContext, SamplingJob};
use sinew_bench_host::bake::{self, KeyFormat};
use sinew_bench_host::bench_support::BENCH_JOINTS;
use sinew_bench_host::compress::Precision;
use sinew_bench_host::naive::{self, AosClip, AosPose};
use sinew_bench_host::rig::Rig;
use std::hint::black_box;

/// Clip length in frames (2 s at 30 Hz) and the game's frame step (60 Hz): playback decodes a new frame
/// every other sample, as a 30 Hz clip does in a 60 Hz game.
const FRAMES: usize = 61;
const RATE: f32 = 30.0;
const GAME_DT: f32 = 1.0 / 60.0;

fn sampling(c: &mut Criterion) {
    let mut group = c.benchmark_group("sampling");
    for &n in &BENCH_JOINTS {
        let rig = Rig::humanoid(n);
        let skeleton = rig.skeleton();
        let raw = rig.clip(FRAMES, RATE);
        let duration = (FRAMES - 1) as f32 / RATE;
        // Seek times: a fixed pseudo-random sequence, far apart so each seek decodes two frames.
        let seeks: Vec<f32> =
            (0..1024u32).map(|i| (i.wrapping_mul(2_654_435_761) % 10_000) as f32 * duration / 1e4).collect();
        group.throughput(Throughput::Elements(n as u64));
        // Compressed as `sinew-bake bake --compress` does by default: 0.05 cm at 3 cm on a 1.7 m figure.
        let compressed = KeyFormat::Compressed(Precision::on_figure(&rig.raw_skeleton(), 0.05, 3.0));
        for format in [KeyFormat::F32, KeyFormat::Quantized, compressed] {
            let label = match format {
                KeyFormat::F32 => "f32",
                KeyFormat::Quantized => "quantized",
                KeyFormat::Compressed(_) => "compressed",
            };
            let blob = bake::bake(&rig.raw_skeleton(), std::slice::from_ref(&raw), format).expect("bake");
            let asset = Asset::load(blob.bytes()).expect("load");
            let clip = asset.clip(0).expect("clip");
            // Compressed clips play through a context that keeps a segment's decoders.
            let tracks = clip.num_tracks().iter().sum();
            let mut memory = vec![0u8; SamplingContext::required_bytes_with_decoders(n, tracks)];
            let arena = Arena::new(&mut memory);
            let mut context = match format {
                KeyFormat::Compressed(_) => SamplingContext::with_decoders(&arena, n, tracks),
                _ => SamplingContext::new(&arena, n),
            }
            .expect("context");
            let mut output = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
            let sample = |context: &mut SamplingContext<'_>, output: &mut [SoaTransform], time: f32| {
                SamplingJob { skeleton: &skeleton, clip: &clip, time, playback: Playback::Loop, context, output }
                    .run()
                    .expect("valid clip")
            };
            let mut time = 0.0f32;
            group.bench_function(BenchmarkId::new(format!("sinew_playback_{label}"), n), |b| {
                b.iter(|| {
                    time = (time + GAME_DT) % duration;
                    sample(&mut context, &mut output, black_box(time));
                })
            });
            let mut i = 0;
            group.bench_function(BenchmarkId::new(format!("sinew_seek_{label}"), n), |b| {
                b.iter(|| {
                    i = (i + 1) % seeks.len();
                    sample(&mut context, &mut output, black_box(seeks[i]));
                })
            });
            if format == KeyFormat::F32 {
                // Both frames cached: the interpolation pass alone.
                group.bench_function(BenchmarkId::new("sinew_interpolate_only", n), |b| {
                    b.iter(|| sample(&mut context, &mut output, black_box(0.51 / RATE)))
                });
            }
        }
        let aos = AosClip { frames: raw.frames.iter().map(|f| AosPose::new(f)).collect(), sample_rate: RATE };
        let mut out = AosPose::new(&rig.rest);
        let mut time = 0.0f32;
        group.bench_function(BenchmarkId::new("naive_aos_glam_playback", n), |b| {
            b.iter(|| {
                time = (time + GAME_DT) % duration;
                naive::sample(&aos, black_box(time), &mut out);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, sampling);
criterion_main!(benches);
