//! Bone-mask decomposition: clips split into chunks at bake and reassembled by a blend graph's chunk node, bit for
//! bit the unsplit clip (every key format, both interpolations, seeking and playing); chunks of different clips
//! on one skeleton, each joint from its own clip; the bytes a split costs; and every bad sidecar and graph.

use sinew::blend_graph::{BlendGraph, BlendGraphJob, GraphDesc, Leaf, Node};
use sinew::error::GraphProblem;
use sinew::math::SoaTransform;
use sinew::{Arena, Asset, Buffer, Clip, Error, Interpolation, Playback, SamplingContext, SamplingJob, Skeleton};
use sinew_tests::Rng;
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::chunks::{ChunkSpec, split};
use sinew_tools::compress::Precision;
use sinew_tools::raw::{AlignedBlob, Extras, RawClip, RawSkeleton};

const WALK: &str = "dataset-1_walk_normal_001";
const KICK: &str = "dataset-1_kick_normal_001";

fn spec(clip: &str, name: &str, subtrees: &[&str], without: &[&str]) -> ChunkSpec {
    let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
    ChunkSpec {
        clip: clip.into(),
        name: name.into(),
        subtrees: names(subtrees),
        joints: Vec::new(),
        without: names(without),
    }
}

/// The Bandai walk and kick, with the seed's split: lower = the root, hips and legs; upper = the spine's subtree.
fn bandai() -> Option<(RawSkeleton, Vec<RawClip>, Vec<ChunkSpec>)> {
    let dir = sinew_tests::shared_data("chunks")?.join("bvh/bandai");
    let files = [WALK, KICK].map(|name| dir.join(format!("{name}.bvh")));
    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&files).expect("import");
    let specs = vec![
        spec(WALK, "walk:lower", &["joint_Root"], &["Spine"]),
        spec(WALK, "walk:upper", &["Spine"], &[]),
        spec(KICK, "kick:upper", &["Spine"], &[]),
    ];
    Some((skeleton, clips, specs))
}

fn formats(skeleton: &RawSkeleton, clips: &[RawClip]) -> [KeyFormat; 3] {
    [KeyFormat::F32, KeyFormat::Quantized, KeyFormat::Compressed(Precision::default_on_figure(skeleton, clips))]
}

/// The unsplit clips and the split ones, baked in `format`.
fn bake_both(skeleton: &RawSkeleton, clips: &[RawClip], specs: &[ChunkSpec], format: KeyFormat) -> [AlignedBlob; 2] {
    let whole = bake::bake(skeleton, clips, format).expect("bake whole");
    let (chunked, extras, _) = split(skeleton, clips.to_vec(), Extras::default(), specs).expect("split");
    let parts = bake::bake_with(skeleton, &chunked, format, &extras).expect("bake chunks");
    [whole, parts]
}

fn clip_named<'a>(asset: &Asset<'a>, name: &str) -> Clip<'a> {
    let index = (0..asset.num_clips()).find(|&c| asset.clip_name(c) == Some(name)).expect("clip by name");
    asset.clip(index).expect("clip")
}

/// Poses of `clips` reassembled by a chunk node at each of `times`, through one graph (seeking or playing as the
/// times go).
fn reassembled(skeleton: &Skeleton<'_>, clips: &[Clip<'_>], times: &[f32], mode: Interpolation) -> Vec<SoaTransform> {
    let leaves: Vec<usize> = (0..clips.len()).collect();
    let nodes = [Node::Chunks { leaves: &leaves }];
    let desc = GraphDesc { nodes: &nodes, num_params: 0, max_tracks: 3 * skeleton.num_joints(), interpolation: mode };
    let mut memory = vec![0u8; BlendGraph::required_bytes(&desc, skeleton.num_joints()).expect("size")];
    let arena = Arena::new(&mut memory);
    let mut graph = BlendGraph::new(&arena, skeleton, &desc).expect("graph");
    let groups = skeleton.num_soa_joints();
    let mut out = vec![SoaTransform::IDENTITY; groups * times.len()];
    for (&time, pose) in times.iter().zip(out.chunks_mut(groups)) {
        let leaves: Vec<Leaf<'_>> = clips.iter().map(|clip| Leaf { clip, time, playback: Playback::Loop }).collect();
        BlendGraphJob { graph: &mut graph, skeleton, leaves: &leaves, params: &[], output: pose }.run().expect("run");
    }
    out
}

/// Poses of `clip` sampled whole at each of `times`.
fn sampled(skeleton: &Skeleton<'_>, clip: &Clip<'_>, times: &[f32], mode: Interpolation) -> Vec<SoaTransform> {
    let n = skeleton.num_joints();
    let mut memory = vec![0u8; SamplingContext::required_bytes_for(n, 3 * n, mode)];
    let arena = Arena::new(&mut memory);
    let mut context = SamplingContext::with_interpolation(&arena, n, 3 * n, mode).expect("context");
    let groups = skeleton.num_soa_joints();
    let mut out = vec![SoaTransform::IDENTITY; groups * times.len()];
    for (&time, pose) in times.iter().zip(out.chunks_mut(groups)) {
        let playback = Playback::Loop;
        let mut job =
            SamplingJob { skeleton, clip, time, playback, context: &mut context, output: pose, curves: &mut [] };
        job.run().expect("sample");
    }
    out
}

fn bits(poses: &[SoaTransform]) -> Vec<u32> {
    poses.iter().flat_map(|p| p.components().iter().flat_map(|c| c.to_array())).map(f32::to_bits).collect()
}

/// 50 random times (seeks) and then 40 frames of 60 Hz playback.
fn times(duration: f32, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    let seeks = (0..50).map(|_| rng.range(0.0, duration));
    seeks.chain((0..40).map(|f| 0.7 + f as f32 / 60.0)).collect()
}

#[test]
fn chunks_reassemble_the_clip_bit_for_bit() {
    let Some((skeleton, clips, specs)) = bandai() else { return };
    for format in formats(&skeleton, &clips) {
        let [whole, parts] = bake_both(&skeleton, &clips, &specs, format);
        let (whole, parts) = (Asset::load(whole.bytes()).expect("load"), Asset::load(parts.bytes()).expect("load"));
        let full = clip_named(&whole, WALK);
        let chunks = [clip_named(&parts, "walk:lower"), clip_named(&parts, "walk:upper")];
        let times = times(full.duration(), 7);
        for mode in [Interpolation::Linear, Interpolation::Cubic] {
            let expected = sampled(whole.skeleton(), &full, &times, mode);
            let got = reassembled(parts.skeleton(), &chunks, &times, mode);
            assert!(bits(&got) == bits(&expected), "{format:?} {mode:?}: reassembled chunks differ from the clip");
            // Each chunk alone is not the clip: the other joints are at rest.
            let lower = sampled(parts.skeleton(), &chunks[0], &times, mode);
            assert!(bits(&lower) != bits(&expected), "{format:?} {mode:?}: a chunk alone is the whole clip");
        }
    }
}

#[test]
fn chunks_of_different_clips_share_a_skeleton() {
    let Some((skeleton, clips, specs)) = bandai() else { return };
    let upper = sinew_tools::chunks::mask(&skeleton, &specs[1]).expect("mask");
    for format in formats(&skeleton, &clips) {
        let [whole, parts] = bake_both(&skeleton, &clips, &specs, format);
        let (whole, parts) = (Asset::load(whole.bytes()).expect("load"), Asset::load(parts.bytes()).expect("load"));
        // The kick was split into its upper body only: its clip is gone, and the walk's lower body is stored once.
        let names: Vec<&str> = (0..parts.num_clips()).filter_map(|c| parts.clip_name(c)).collect();
        assert_eq!(names, ["walk:lower", "walk:upper", "kick:upper"]);
        let chunks = [clip_named(&parts, "walk:lower"), clip_named(&parts, "kick:upper")];
        let times = times(chunks[0].duration().min(chunks[1].duration()), 11);
        let mode = Interpolation::Linear;
        let got = reassembled(parts.skeleton(), &chunks, &times, mode);
        let walk = sampled(whole.skeleton(), &clip_named(&whole, WALK), &times, mode);
        let kick = sampled(whole.skeleton(), &clip_named(&whole, KICK), &times, mode);
        // Joint by joint, bit for bit: the legs walk and the upper body kicks.
        assert_joints_from(&got, [&walk, &kick], &upper, times.len(), &format!("{format:?}"));
    }
}

#[test]
fn a_split_costs_its_headers_only() {
    let Some((skeleton, clips, specs)) = bandai() else { return };
    let walk_only = &specs[..2];
    for format in formats(&skeleton, &clips) {
        let [whole, parts] = bake_both(&skeleton, &clips[..1], walk_only, format);
        let (whole, parts) = (Asset::load(whole.bytes()).expect("load"), Asset::load(parts.bytes()).expect("load"));
        let full = clip_named(&whole, WALK).data_bytes();
        let split: usize = ["walk:lower", "walk:upper"].iter().map(|n| clip_named(&parts, n).data_bytes()).sum();
        // A compressed chunk repeats the segment table's 8 bytes per segment and the decoder's slack.
        let segments = clip_named(&whole, WALK).num_frames().div_ceil(sinew::clip::SEGMENT_FRAMES);
        let overhead = match format {
            KeyFormat::Compressed(_) => 8 * segments + sinew::clip::COMPRESSED_SLACK + 8,
            _ => 0,
        };
        assert!(
            split >= full && split <= full + overhead,
            "{format:?}: chunks {split} bytes, whole clip {full}, overhead allowed {overhead}"
        );
    }
}

#[test]
fn a_chunk_writes_its_stored_joints_only() {
    let Some((skeleton, clips, specs)) = bandai() else { return };
    let [_, parts] = bake_both(&skeleton, &clips, &specs, KeyFormat::F32);
    let parts = Asset::load(parts.bytes()).expect("load");
    let upper = clip_named(&parts, "kick:upper");
    let mask = sinew_tools::chunks::mask(&skeleton, &specs[2]).expect("mask");
    let stored: Vec<bool> = (0..skeleton.parents.len())
        .map(|j| upper.track_joints().contains(&(j as u16)) || upper.constants().iter().any(|c| c.joint as usize == j))
        .collect();
    assert!(stored.iter().zip(&mask).all(|(s, m)| !s || *m), "a chunk stores a joint outside its mask");
    assert!(stored.contains(&true));

    let (skeleton, n) = (parts.skeleton(), parts.skeleton().num_joints());
    let groups = skeleton.num_soa_joints();
    let mut memory = vec![0u8; SamplingContext::required_bytes(n)];
    let arena = Arena::new(&mut memory);
    let mut context = SamplingContext::new(&arena, n).expect("context");
    // A pose of recognisable values: every component 7.
    let seven: SoaTransform = bytemuck::cast([sinew::math::F4::splat(7.0); 10]);
    let whole = sampled(skeleton, &upper, &[0.4], Interpolation::Linear);
    let mut pose = vec![seven; groups];
    let mut run_chunk = |time: f32, output: &mut [SoaTransform]| {
        let (clip, playback, context, curves) = (&upper, Playback::Loop, &mut context, &mut [][..]);
        SamplingJob { skeleton, clip, time, playback, context, output, curves }.run_chunk()
    };
    run_chunk(0.4, &mut pose).expect("chunk");
    for (j, &stored) in stored.iter().enumerate() {
        let lanes = |p: &SoaTransform| p.components().map(|c| c.to_array()[j % 4].to_bits());
        let expected = if stored { lanes(&whole[j / 4]) } else { lanes(&seven) };
        assert_eq!(lanes(&pose[j / 4]), expected, "joint {j}");
    }
    // Errors as `run`'s, before anything is written.
    let before = bits(&pose);
    assert_eq!(run_chunk(f32::NAN, &mut pose), Err(Error::NonFinite { buffer: Buffer::SampleTime, index: 0 }));
    assert_eq!(bits(&pose), before);
    let mut short = pose[..groups - 1].to_vec();
    assert!(matches!(run_chunk(0.4, &mut short), Err(Error::BufferLength { buffer: Buffer::SoaPose, .. })));
}

#[test]
fn bad_chunk_graphs_are_refused() {
    let Some((skeleton, clips, specs)) = bandai() else { return };
    let [_, parts] = bake_both(&skeleton, &clips, &specs, KeyFormat::F32);
    let parts = Asset::load(parts.bytes()).expect("load");
    let n = parts.skeleton().num_joints();
    let check = |nodes: &[Node<'_>], node: usize, problem: GraphProblem| {
        let desc = GraphDesc { nodes, num_params: 1, max_tracks: 0, interpolation: Interpolation::Linear };
        assert_eq!(BlendGraph::required_bytes(&desc, n).err(), Some(Error::InvalidGraph { node, problem }));
    };
    let clip = |leaf| Node::Clip { leaf };
    // Leaves number 0..n once each, over clip and chunk nodes together.
    check(&[clip(0), Node::Chunks { leaves: &[1, 0] }], 1, GraphProblem::Leaf);
    check(&[clip(0), Node::Chunks { leaves: &[2, 2] }], 1, GraphProblem::Leaf);
    check(&[clip(0), Node::Chunks { leaves: &[2] }], 1, GraphProblem::Leaf);
    check(&[clip(0), Node::Chunks { leaves: &[] }], 1, GraphProblem::Children);
    let desc = GraphDesc {
        nodes: &[Node::Chunks { leaves: &[0, 32] }],
        num_params: 0,
        max_tracks: 0,
        interpolation: Interpolation::Linear,
    };
    assert_eq!(
        BlendGraph::required_bytes(&desc, n).err(),
        Some(Error::Limit { what: sinew::error::Limit::GraphLeaves, value: 33, max: 32 })
    );
    // One chunk is its clip: the same bits as sampling it.
    let walk_lower = clip_named(&parts, "walk:lower");
    let times = times(walk_lower.duration(), 3);
    let one = reassembled(parts.skeleton(), &[walk_lower], &times, Interpolation::Linear);
    assert!(bits(&one) == bits(&sampled(parts.skeleton(), &walk_lower, &times, Interpolation::Linear)));
}

#[test]
fn bad_chunk_sidecars_are_refused() {
    let Some((skeleton, clips, specs)) = bandai() else { return };
    let err = |specs: &[ChunkSpec]| split(&skeleton, clips.clone(), Extras::default(), specs).expect_err("refused");
    let e = err(&[spec("nope", "x", &["Spine"], &[])]);
    assert!(e.contains("no clip named \"nope\""), "{e}");
    let e = err(&[spec(WALK, "x", &["Tail"], &[])]);
    assert!(e.contains("no joint \"Tail\""), "{e}");
    let e = err(&[spec(WALK, "x", &["Spine"], &["Spine"])]);
    assert!(e.contains("no joint left"), "{e}");
    let e = err(&[specs[0].clone(), spec(WALK, "walk:lower", &["Spine"], &[])]);
    assert!(e.contains("used twice"), "{e}");
    // A chunk may not take the name of a clip baked whole.
    let e = err(&[spec(WALK, KICK, &["Spine"], &[])]);
    assert!(e.contains("used twice"), "{e}");
    let masks = Extras { masks: vec![None; clips.len()], ..Default::default() };
    assert!(split(&skeleton, clips.clone(), masks, &specs).is_err());

    // The file itself: malformed, unknown fields, too large.
    // Cargo's scratch directory for integration tests: WASI has no temporary directory or process id.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("chunks-sidecars");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let read = |text: &str| {
        let path = dir.join("chunks.json");
        std::fs::write(&path, text).expect("write");
        sinew_tools::chunks::read_sidecar(&path)
    };
    assert!(read("{\"chunks\": [").is_err());
    assert!(read("{\"chunks\": [{\"clip\": \"a\", \"name\": \"b\", \"mask\": []}]}").is_err());
    assert!(read("{\"chunks\": [{\"clip\": \"a\"}]}").is_err());
    let ok = read("{\"chunks\": [{\"clip\": \"a\", \"name\": \"b\", \"joints\": [\"Hips\"]}]}").expect("read");
    assert_eq!(ok[0].joints, ["Hips"]);
    let huge = " ".repeat(sinew_tools::annotate::MAX_SIDECAR_BYTES as usize + 1);
    assert!(read(&huge).expect_err("too large").contains("at most"));
    std::fs::remove_dir_all(&dir).ok();

    // A bake with masks of the wrong count or length stops with an error.
    let extras = Extras { masks: vec![None], ..Default::default() };
    assert!(bake::bake_with(&skeleton, &clips, KeyFormat::F32, &extras).is_err());
    let extras = Extras { masks: vec![Some(vec![true; 3]), None], ..Default::default() };
    assert!(bake::bake_with(&skeleton, &clips, KeyFormat::F32, &extras).is_err());
}

#[test]
fn a_later_chunk_wins_over_an_earlier_ones_step_tracks() {
    let Some((skeleton, mut clips, _)) = bandai() else { return };
    // The walk's spine rotation steps (a glTF STEP sampler); the whole walk and the kick's upper body overlap
    // there, and the kick, later, must win at every joint both store.
    let spine = skeleton.names.iter().position(|n| n == "Spine").expect("Spine");
    let mut channels = vec![[false; 3]; skeleton.parents.len()];
    channels[spine][1] = true;
    clips[0].step = sinew_tools::raw::StepKeys::Some { channels, curves: false };
    let specs = [spec(WALK, "walk:all", &["joint_Root"], &[]), spec(KICK, "kick:upper", &["Spine"], &[])];
    let upper = sinew_tools::chunks::mask(&skeleton, &specs[1]).expect("mask");
    let [whole, parts] = bake_both(&skeleton, &clips, &specs, KeyFormat::F32);
    let (whole, parts) = (Asset::load(whole.bytes()).expect("load"), Asset::load(parts.bytes()).expect("load"));
    let chunks = [clip_named(&parts, "walk:all"), clip_named(&parts, "kick:upper")];
    assert!(!chunks[0].step_tracks().is_empty());
    let times = times(chunks[0].duration().min(chunks[1].duration()), 5);
    let got = reassembled(parts.skeleton(), &chunks, &times, Interpolation::Linear);
    let walk = sampled(whole.skeleton(), &clip_named(&whole, WALK), &times, Interpolation::Linear);
    let kick = sampled(whole.skeleton(), &clip_named(&whole, KICK), &times, Interpolation::Linear);
    assert_joints_from(&got, [&walk, &kick], &upper, times.len(), "step tracks");
}

/// Every joint of every frame of `got` (`frames` poses one after another) bit for bit that of `sources[1]` where
/// `second` holds it, else that of `sources[0]`.
fn assert_joints_from(got: &[SoaTransform], sources: [&[SoaTransform]; 2], second: &[bool], frames: usize, what: &str) {
    let groups = got.len() / frames;
    let joint = |poses: &[SoaTransform], frame: usize, j: usize| {
        poses[frame * groups + j / 4].components().map(|c| c.to_array()[j % 4].to_bits())
    };
    for frame in 0..frames {
        for (j, &in_second) in second.iter().enumerate() {
            let source = sources[usize::from(in_second)];
            assert_eq!(joint(got, frame, j), joint(source, frame, j), "{what}: frame {frame} joint {j}");
        }
    }
}
