//! Blend graph: a locomotion blend space of three clips (walk, jog, run, two read at a time) under an upper-body
//! overlay, evaluated by the graph, by the same graph through the C ABI (which converts the description and
//! resumes the state every call), by the same jobs called by hand, and by the naive glam AoS loop that samples
//! and blends every clip, per rig size. One character, one 60 Hz frame per iteration; throughput counts joints.
//!
//! Chunks: a clip split by bone masks at bake (lower body, upper body) and reassembled by a chunk node, beside the
//! unsplit clip sampled alone (what a split costs at run time) and the naive glam AoS reassembly (each chunk clip
//! sampled whole, each joint taken from its chunk).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::blend_graph::{BlendGraph, BlendGraphJob, GraphDesc, Leaf, Node};
use sinew::blending::{masked_lerp, subtree_mask};
use sinew::math::{F4, SoaTransform};
use sinew::{Arena, Asset, Interpolation, Playback, SamplingContext, SamplingJob};
use sinew_bench_host::naive::{self, AosClip, AosPose};
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::raw::Extras;
use sinew_tools::rig::Rig;
use std::hint::black_box;

/// Clips of 2 s at 30 Hz, played at 60 Hz.
const FRAMES: usize = 61;
const RATE: f32 = 30.0;
const GAME_DT: f32 = 1.0 / 60.0;
/// The blend space's speed (between jog at 1 and run at 2: jog and run read, walk not) and the overlay's weight.
const SPEED: f32 = 1.4;
const OVERLAY: f32 = 0.7;

fn blend_graph(c: &mut Criterion) {
    let mut group = c.benchmark_group("blend_graph");
    for n in [67, 256] {
        let rig = Rig::humanoid(n);
        let skeleton = rig.skeleton();
        // Four clips: the procedural animation started at different frames.
        let clips: Vec<_> = (0..4)
            .map(|k| {
                let mut clip = rig.clip(FRAMES, RATE);
                clip.frames.rotate_left(7 * k);
                clip
            })
            .collect();
        let blob = bake::bake(&rig.raw_skeleton(), &clips, KeyFormat::F32).expect("bake");
        let asset = Asset::load(blob.bytes()).expect("load");
        let baked: Vec<_> = (0..4).map(|c| asset.clip(c).expect("clip")).collect();
        let duration = (FRAMES - 1) as f32 / RATE;
        let g = skeleton.num_soa_joints();
        // The upper body from the first spine joint.
        let mut upper = vec![F4::ZERO; g];
        subtree_mask(&skeleton, 2, 1.0, &mut upper).expect("mask");
        group.throughput(Throughput::Elements(n as u64));

        let nodes = [
            Node::Clip { leaf: 0 },
            Node::Clip { leaf: 1 },
            Node::Clip { leaf: 2 },
            Node::Space1d { children: &[0, 1, 2], positions: &[0.0, 1.0, 2.0], parameter: 0 },
            Node::Clip { leaf: 3 },
            Node::Lerp { a: 4, b: 3, weight: 1, mask: Some(&upper) },
        ];
        let desc = GraphDesc { nodes: &nodes, num_params: 2, max_tracks: 0, interpolation: Interpolation::Linear };
        let mut memory = vec![0u8; BlendGraph::required_bytes(&desc, n).expect("size")];
        let arena = Arena::new(&mut memory);
        let mut graph = BlendGraph::new(&arena, &skeleton, &desc).expect("graph");
        let mut output = vec![SoaTransform::IDENTITY; g];
        let mut time = 0.0f32;
        group.bench_function(BenchmarkId::new("sinew_graph", n), |b| {
            b.iter(|| {
                time = (time + GAME_DT) % duration;
                let leaves = [0, 1, 2, 3].map(|c| Leaf { clip: &baked[c], time, playback: Playback::Loop });
                let params = [black_box(SPEED), OVERLAY];
                let mut job = BlendGraphJob {
                    graph: &mut graph,
                    skeleton: &skeleton,
                    leaves: &leaves,
                    params: &params,
                    output: &mut output,
                };
                job.run().expect("graph");
                black_box(&output);
            })
        });

        // The same graph through the C ABI: each call converts the caller's description and resumes the state.
        c_abi_graph(&mut group, n, blob.bytes(), &upper, duration);

        // The same frame by hand: sample the two clips the speed needs and the overlay, lerp, masked lerp.
        let mut hand_memory = vec![0u8; 3 * SamplingContext::required_bytes_for(n, 0, Interpolation::Linear)];
        let hand_arena = Arena::new(&mut hand_memory);
        let mut contexts: Vec<_> = (0..3).map(|_| SamplingContext::new(&hand_arena, n).expect("context")).collect();
        let mut poses = vec![vec![SoaTransform::IDENTITY; g]; 4];
        let locomotion_weight = vec![F4::splat(SPEED - 1.0); g];
        let overlay_weight: Vec<F4> = upper.iter().map(|m| F4::splat(OVERLAY) * *m).collect();
        let mut time = 0.0f32;
        group.bench_function(BenchmarkId::new("sinew_jobs_by_hand", n), |b| {
            b.iter(|| {
                time = (time + GAME_DT) % duration;
                for (k, clip) in [1, 2, 3].into_iter().enumerate() {
                    let mut job = SamplingJob {
                        skeleton: &skeleton,
                        clip: &baked[clip],
                        time,
                        playback: Playback::Loop,
                        context: &mut contexts[k],
                        output: &mut poses[k],
                        curves: &mut [],
                    };
                    job.run().expect("sample");
                }
                let (sampled, blended) = poses.split_at_mut(3);
                masked_lerp(&sampled[1], &sampled[0], &locomotion_weight, &mut blended[0]).expect("lerp");
                masked_lerp(&sampled[2], &blended[0], &overlay_weight, &mut output).expect("overlay");
                black_box(&output);
            })
        });

        // What a user writes without a graph: sample every clip, blend the three with their weights, then the
        // overlay with its mask.
        let aos: Vec<AosClip> = clips
            .iter()
            .map(|c| AosClip { frames: c.frames.iter().map(|f| AosPose::new(f)).collect(), sample_rate: RATE })
            .collect();
        let mut sampled: Vec<AosPose> = (0..4).map(|_| AosPose::new(&rig.rest)).collect();
        let mut locomotion = AosPose::new(&rig.rest);
        let mut out = AosPose::new(&rig.rest);
        let upper_values: Vec<f32> = (0..n).map(|j| upper[j / 4].to_array()[j % 4]).collect();
        let base_values: Vec<f32> = upper_values.iter().map(|m| 1.0 - OVERLAY * m).collect();
        let overlay_values: Vec<f32> = upper_values.iter().map(|m| OVERLAY * m).collect();
        let mut time = 0.0f32;
        group.bench_function(BenchmarkId::new("naive_aos_glam", n), |b| {
            b.iter(|| {
                time = (time + GAME_DT) % duration;
                for (clip, pose) in aos.iter().zip(&mut sampled) {
                    naive::sample(clip, black_box(time), pose);
                }
                let t = SPEED - 1.0;
                naive::blend(
                    &[(&sampled[0], 0.0, None), (&sampled[1], 1.0 - t, None), (&sampled[2], t, None)],
                    &mut locomotion,
                );
                naive::blend(
                    &[(&locomotion, 1.0, Some(&base_values)), (&sampled[3], 1.0, Some(&overlay_values))],
                    &mut out,
                );
                black_box(&out);
            })
        });
    }
    group.finish();
}

/// `sinew_blend_graph_evaluate` on the locomotion graph of `blend_graph` (clips 0 to 3 of `blob`).
fn c_abi_graph(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    n: usize,
    blob: &[u8],
    upper: &[F4],
    duration: f32,
) {
    use sinew_ffi::*;
    let node = |kind| sinew_blend_node { kind, ..Default::default() };
    let clip = |leaf| sinew_blend_node { leaf, ..node(SINEW_BLEND_NODE_CLIP) };
    let (line, positions) = ([0u32, 1, 2], [0.0f32, 1.0, 2.0]);
    let nodes = [
        clip(0),
        clip(1),
        clip(2),
        sinew_blend_node {
            num_children: 3,
            children: line.as_ptr(),
            positions: positions.as_ptr(),
            ..node(SINEW_BLEND_NODE_SPACE_1D)
        },
        clip(3),
        sinew_blend_node { a: 4, b: 3, weight: 1, mask: upper.as_ptr().cast(), ..node(SINEW_BLEND_NODE_LERP) },
    ];
    let desc = sinew_blend_graph_desc {
        nodes: nodes.as_ptr(),
        num_nodes: nodes.len() as u32,
        num_params: 2,
        max_tracks: 0,
        interpolation: SINEW_INTERPOLATION_LINEAR,
    };
    let mut asset = std::mem::MaybeUninit::<sinew_asset>::uninit();
    let mut bytes = 0;
    let mut graph = std::ptr::null_mut();
    // The state in 64-byte aligned memory (`SINEW_STATE_ALIGN`).
    let mut memory: Vec<sinew::character::Chunk>;
    // SAFETY: valid pointers; the blob and the memory outlive the graph.
    let asset = unsafe {
        assert_eq!(sinew_asset_load(blob.as_ptr(), blob.len(), asset.as_mut_ptr()), SINEW_OK);
        let asset = asset.assume_init();
        assert_eq!(sinew_blend_graph_required_bytes(&asset, &desc, &mut bytes), SINEW_OK);
        memory = vec![sinew::character::Chunk::ZERO; sinew::character::Chunk::count(bytes)];
        assert_eq!(sinew_blend_graph_init(memory.as_mut_ptr().cast(), bytes, &asset, &desc, &mut graph), SINEW_OK);
        asset
    };
    let g = sinew::math::num_soa_joints(n);
    let zero = sinew_soa_transform { translation: [[0.0; 4]; 3], rotation: [[0.0; 4]; 4], scale: [[0.0; 4]; 3] };
    let mut output = vec![zero; g];
    let mut time = 0.0f32;
    group.bench_function(BenchmarkId::new("sinew_graph_c_abi", n), |b| {
        b.iter(|| {
            time = (time + GAME_DT) % duration;
            let leaves = [0, 1, 2, 3].map(|clip| sinew_blend_leaf { clip, wrap: SINEW_WRAP_LOOP, time, reserved: 0 });
            let params = [black_box(SPEED), OVERLAY];
            // SAFETY: valid pointers and lengths; nothing aliases.
            let status = unsafe {
                sinew_blend_graph_evaluate(
                    graph,
                    &asset,
                    &desc,
                    leaves.as_ptr(),
                    4,
                    params.as_ptr(),
                    2,
                    output.as_mut_ptr(),
                    g,
                )
            };
            assert_eq!(status, SINEW_OK);
            black_box(&output);
        })
    });
    drop(memory);
}

fn chunks(c: &mut Criterion) {
    let mut group = c.benchmark_group("chunks");
    for n in [67, 256] {
        let rig = Rig::humanoid(n);
        let skeleton = rig.skeleton();
        let clip = rig.clip(FRAMES, RATE);
        let g = skeleton.num_soa_joints();
        // The upper body from the first spine joint, and the rest.
        let mut upper = vec![F4::ZERO; g];
        subtree_mask(&skeleton, 2, 1.0, &mut upper).expect("mask");
        let upper_mask: Vec<bool> = (0..n).map(|j| upper[j / 4].to_array()[j % 4] > 0.0).collect();
        let lower_mask: Vec<bool> = upper_mask.iter().map(|u| !u).collect();
        let clips = [clip.clone(), clip.clone(), clip.clone()];
        let masks = vec![None, Some(lower_mask.clone()), Some(upper_mask.clone())];
        let extras = Extras { masks, ..Default::default() };
        let blob = bake::bake_with(&rig.raw_skeleton(), &clips, KeyFormat::F32, &extras).expect("bake");
        let asset = Asset::load(blob.bytes()).expect("load");
        let [whole, lower, upper] = [0, 1, 2].map(|c| asset.clip(c).expect("clip"));
        let duration = (FRAMES - 1) as f32 / RATE;
        group.throughput(Throughput::Elements(n as u64));
        let mut output = vec![SoaTransform::IDENTITY; g];

        let nodes = [Node::Chunks { leaves: &[0, 1] }];
        let desc = GraphDesc { nodes: &nodes, num_params: 0, max_tracks: 0, interpolation: Interpolation::Linear };
        let mut memory = vec![0u8; BlendGraph::required_bytes(&desc, n).expect("size")];
        let arena = Arena::new(&mut memory);
        let mut graph = BlendGraph::new(&arena, &skeleton, &desc).expect("graph");
        let mut time = 0.0f32;
        group.bench_function(BenchmarkId::new("sinew_chunks_graph", n), |b| {
            b.iter(|| {
                time = (time + GAME_DT) % duration;
                let leaves =
                    [&lower, &upper].map(|clip| Leaf { clip, time: black_box(time), playback: Playback::Loop });
                let mut job = BlendGraphJob {
                    graph: &mut graph,
                    skeleton: &skeleton,
                    leaves: &leaves,
                    params: &[],
                    output: &mut output,
                };
                job.run().expect("graph");
                black_box(&output);
            })
        });

        let mut whole_memory = vec![0u8; SamplingContext::required_bytes(n)];
        let whole_arena = Arena::new(&mut whole_memory);
        let mut context = SamplingContext::new(&whole_arena, n).expect("context");
        let mut time = 0.0f32;
        group.bench_function(BenchmarkId::new("sinew_whole_clip", n), |b| {
            b.iter(|| {
                time = (time + GAME_DT) % duration;
                let mut job = SamplingJob {
                    skeleton: &skeleton,
                    clip: &whole,
                    time: black_box(time),
                    playback: Playback::Loop,
                    context: &mut context,
                    output: &mut output,
                    curves: &mut [],
                };
                job.run().expect("sample");
                black_box(&output);
            })
        });

        // What a user writes without chunk sampling: each chunk clip sampled whole with glam (its other joints
        // at rest), then each joint taken from the chunk whose mask holds it.
        let raw = rig.raw_skeleton();
        let chunk_clips: Vec<AosClip> = [&lower_mask, &upper_mask]
            .map(|mask| {
                let masked = sinew_tools::chunks::masked(&raw, &clip, mask);
                AosClip { frames: masked.frames.iter().map(|f| AosPose::new(f)).collect(), sample_rate: RATE }
            })
            .into();
        let mut poses = [AosPose::new(&rig.rest), AosPose::new(&rig.rest)];
        let mut out = AosPose::new(&rig.rest);
        let mut time = 0.0f32;
        group.bench_function(BenchmarkId::new("naive_aos_glam", n), |b| {
            b.iter(|| {
                time = (time + GAME_DT) % duration;
                for (clip, pose) in chunk_clips.iter().zip(&mut poses) {
                    naive::sample(clip, black_box(time), pose);
                }
                for (j, &upper) in upper_mask.iter().enumerate() {
                    let from = &poses[usize::from(upper)];
                    out.translation[j] = from.translation[j];
                    out.rotation[j] = from.rotation[j];
                    out.scale[j] = from.scale[j];
                }
                black_box(&out);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, blend_graph, chunks);
criterion_main!(benches);
