//! Sampling: sinew (f32, quantized and compressed keys; playback, random seek, and interpolation alone; linear and
//! cubic) vs the naive AoS glam sampler, per rig size. One character, one sample per iteration; throughput counts joints.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::math::SoaTransform;
use sinew::{Arena, Asset, Interpolation, Playback, SamplingContext, SamplingJob};
use sinew_bench_host::bench_support::{self, BENCH_JOINTS};
use sinew_bench_host::naive::{self, AosClip, AosPose};
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::compress::Precision;
use sinew_tools::rig::Rig;
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
        let seeks: Vec<f32> = (0..1024u32).map(|i| bench_support::seek_time(i, duration)).collect();
        group.throughput(Throughput::Elements(n as u64));
        // Compressed as `sinew-bake bake --compress` does by default: 0.05 cm at 3 cm on a 1.7 m figure.
        let compressed =
            KeyFormat::Compressed(Precision::default_on_figure(&rig.raw_skeleton(), std::slice::from_ref(&raw)));
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
            let tracks = match format {
                KeyFormat::Compressed(_) => clip.num_tracks().iter().sum(),
                _ => 0,
            };
            let mut output = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
            let sample = |context: &mut SamplingContext<'_>, output: &mut [SoaTransform], time: f32| {
                SamplingJob {
                    skeleton: &skeleton,
                    clip: &clip,
                    time,
                    playback: Playback::Loop,
                    context,
                    output,
                    curves: &mut [],
                }
                .run()
                .expect("valid clip")
            };
            // Linear as every earlier row; cubic beside it (four cached frames, a weighted sum of four keys).
            for (interpolation, suffix) in [(Interpolation::Linear, ""), (Interpolation::Cubic, "_cubic")] {
                let mut memory = vec![0u8; SamplingContext::required_bytes_for(n, tracks, interpolation)];
                let arena = Arena::new(&mut memory);
                let mut context =
                    SamplingContext::with_interpolation(&arena, n, tracks, interpolation).expect("context");
                let mut time = 0.0f32;
                group.bench_function(BenchmarkId::new(format!("sinew_playback{suffix}_{label}"), n), |b| {
                    b.iter(|| {
                        time = (time + GAME_DT) % duration;
                        sample(&mut context, &mut output, black_box(time));
                    })
                });
                let mut i = 0;
                group.bench_function(BenchmarkId::new(format!("sinew_seek{suffix}_{label}"), n), |b| {
                    b.iter(|| {
                        i = (i + 1) % seeks.len();
                        sample(&mut context, &mut output, black_box(seeks[i]));
                    })
                });
                if format == KeyFormat::F32 {
                    // Every frame cached: the interpolation pass alone.
                    group.bench_function(BenchmarkId::new(format!("sinew_interpolate_only{suffix}"), n), |b| {
                        b.iter(|| sample(&mut context, &mut output, black_box(1.51 / RATE)))
                    });
                }
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

/// Curves per clip in the curve group, and their precision when compressed (values swing within ±1).
const CURVES: usize = 64;
const CURVE_PRECISION: f32 = 1e-3;

/// Scalar curve tracks: 64 curves on a one-joint skeleton (so the pose costs next to nothing; `sinew_pose_only`
/// measures it), `f32` and compressed, playback and seek, against a naive loop over one `Vec<f32>` per curve.
fn sampling_curves(c: &mut Criterion) {
    use sinew_tools::raw::{Extras, RawAnnotations, RawClip, RawCurve, RawSkeleton};
    let mut group = c.benchmark_group("sampling_curves");
    group.throughput(Throughput::Elements(CURVES as u64));
    let rest = sinew::math::Transform::IDENTITY;
    let skeleton = RawSkeleton { names: vec!["root".into()], parents: vec![-1], rest: vec![rest] };
    let clip = RawClip {
        name: "curves".into(),
        sample_rate: RATE,
        frames: vec![vec![rest]; FRAMES],
        step: Default::default(),
    };
    // Each curve a sum of two sines of its own frequencies, as blend-shape weights move.
    let values: Vec<Vec<f32>> = (0..CURVES)
        .map(|k| {
            let (a, b) = (0.7 + 0.13 * k as f32, 2.3 + 0.29 * k as f32);
            (0..FRAMES).map(|f| 0.6 * (a * f as f32 / RATE).sin() + 0.4 * (b * f as f32 / RATE).cos()).collect()
        })
        .collect();
    let curves = values
        .iter()
        .enumerate()
        .map(|(k, v)| RawCurve::from_frames(&format!("c{k}"), Some(CURVE_PRECISION), RATE, v))
        .collect();
    let extras = Extras { annotations: vec![RawAnnotations { curves, ..Default::default() }], ..Default::default() };
    let duration = (FRAMES - 1) as f32 / RATE;
    let seeks: Vec<f32> = (0..1024u32).map(|i| bench_support::seek_time(i, duration)).collect();
    let compressed = KeyFormat::Compressed(Precision { max_error: 1e-3, distance: 0.03 });
    for (label, format) in [("f32", KeyFormat::F32), ("compressed", compressed)] {
        let blob = bake::bake_with(&skeleton, std::slice::from_ref(&clip), format, &extras).expect("bake");
        let asset = Asset::load(blob.bytes()).expect("load");
        let (skeleton, clip) = (asset.skeleton(), asset.clip(0).expect("clip"));
        let mut memory = vec![0u8; SamplingContext::required_bytes(1)];
        let arena = Arena::new(&mut memory);
        let mut context = SamplingContext::new(&arena, 1).expect("context");
        let mut output = [SoaTransform::IDENTITY];
        let mut out = vec![0.0f32; CURVES];
        let mut sample = |time: f32, curves: &mut [f32]| {
            let (context, output) = (&mut context, &mut output[..]);
            SamplingJob { skeleton, clip: &clip, time, playback: Playback::Loop, context, output, curves }
                .run()
                .expect("valid clip")
        };
        let mut time = 0.0f32;
        group.bench_function(BenchmarkId::new(format!("sinew_playback_{label}"), CURVES), |b| {
            b.iter(|| {
                time += GAME_DT;
                sample(black_box(time), &mut out);
                black_box(&out);
            })
        });
        let mut i = 0usize;
        group.bench_function(BenchmarkId::new(format!("sinew_seek_{label}"), CURVES), |b| {
            b.iter(|| {
                i = (i + 1) % seeks.len();
                sample(black_box(seeks[i]), &mut out);
                black_box(&out);
            })
        });
        if label == "f32" {
            group.bench_function(BenchmarkId::new("sinew_pose_only", CURVES), |b| {
                b.iter(|| {
                    time += GAME_DT;
                    sample(black_box(time), &mut []);
                })
            });
        }
    }
    // The naive baseline: the frame pair from the time, then a lerp per curve, each curve its own `Vec`.
    let mut out = vec![0.0f32; CURVES];
    let mut time = 0.0f32;
    group.bench_function(BenchmarkId::new("naive_playback", CURVES), |b| {
        b.iter(|| {
            time += GAME_DT;
            let x = black_box(time) * RATE % (FRAMES - 1) as f32;
            let f0 = (x as usize).min(FRAMES - 2);
            let t = x - f0 as f32;
            for (o, v) in out.iter_mut().zip(&values) {
                *o = v[f0] + (v[f0 + 1] - v[f0]) * t;
            }
            black_box(&out);
        })
    });
    group.finish();
}

/// Knot fit bound for the knots group: centimetres on the figure scaled to 1.7 m, at 3 cm virtual points.
const KNOT_BOUND_CM: f64 = 0.5;

/// Non-uniform knots against uniform frames: the CMU walk 01_01 (120 Hz mocap, 31 joints) as imported and fitted
/// on knots (`sinew-bake bake --knots 0.5`), each `f32` and compressed; random seek (a binary search over the
/// knots where uniform frames divide) and 60 Hz playback, beside the naive AoS glam sampler on the uniform frames.
fn sampling_knots(c: &mut Criterion) {
    use sinew_tools::raw::Extras;
    let Some(dir) = sinew_tools::shared_data_dir() else {
        eprintln!("sampling_knots: SKIPPED — shared data not found (../shared/data or $SINEW_DATA)");
        return;
    };
    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[dir.join("bvh/cmu/01_01.bvh")]).expect("import");
    let raw = &clips[0];
    let n = skeleton.parents.len();
    let per_cm = sinew_tools::annotate::figure_scale(&skeleton, &clips).units_per_cm();
    let fit = sinew_tools::knots::fit_knots(
        &skeleton,
        raw,
        &[],
        KNOT_BOUND_CM * per_cm,
        sinew_tools::dmath::DEFAULT_DISTANCE_CM * per_cm,
        Interpolation::Linear,
    )
    .expect("fit");
    let mut group = c.benchmark_group("sampling_knots");
    group.throughput(Throughput::Elements(n as u64));
    let compressed = KeyFormat::Compressed(Precision::default_on_figure(&skeleton, &clips));
    for (format, label) in [(KeyFormat::F32, "f32"), (compressed, "compressed")] {
        let uniform = bake::bake(&skeleton, std::slice::from_ref(raw), format).expect("bake");
        let extras = Extras { knots: vec![Some(fit.knots.clone())], ..Default::default() };
        let knotted = bake::bake_with(&skeleton, std::slice::from_ref(&fit.clip), format, &extras).expect("bake");
        for (blob, frames) in [(&uniform, "uniform"), (&knotted, "knots")] {
            let asset = Asset::load(blob.bytes()).expect("load");
            let (skeleton, clip) = (asset.skeleton(), asset.clip(0).expect("clip"));
            let duration = clip.duration();
            let seeks: Vec<f32> = (0..1024u32).map(|i| bench_support::seek_time(i, duration)).collect();
            let tracks = clip.num_tracks().iter().sum();
            let mut memory = vec![0u8; SamplingContext::required_bytes_with_decoders(n, tracks)];
            let arena = Arena::new(&mut memory);
            let mut context = SamplingContext::with_decoders(&arena, n, tracks).expect("context");
            let mut output = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
            let mut sample = |time: f32| {
                let playback = Playback::Loop;
                let mut job = SamplingJob {
                    skeleton,
                    clip: &clip,
                    time,
                    playback,
                    context: &mut context,
                    output: &mut output,
                    curves: &mut [],
                };
                job.run().expect("valid clip")
            };
            let mut i = 0u32;
            group.bench_function(BenchmarkId::new(format!("sinew_playback_{label}_{frames}"), n), |b| {
                b.iter(|| {
                    i = i.wrapping_add(1);
                    sample(black_box(bench_support::playback_time(i, duration)));
                })
            });
            group.bench_function(BenchmarkId::new(format!("sinew_seek_{label}_{frames}"), n), |b| {
                b.iter(|| {
                    i = i.wrapping_add(1);
                    sample(black_box(seeks[i as usize % seeks.len()]));
                })
            });
        }
    }
    let aos = AosClip { frames: raw.frames.iter().map(|f| AosPose::new(f)).collect(), sample_rate: raw.sample_rate };
    let mut out = AosPose::new(&skeleton.rest);
    let duration = (raw.frames.len() - 1) as f32 / raw.sample_rate;
    let mut i = 0u32;
    group.bench_function(BenchmarkId::new("naive_aos_glam_playback", n), |b| {
        b.iter(|| {
            i = i.wrapping_add(1);
            naive::sample(&aos, black_box(bench_support::playback_time(i, duration)), &mut out);
        })
    });
    group.finish();
}

criterion_group!(benches, sampling, sampling_curves, sampling_knots);
criterion_main!(benches);
