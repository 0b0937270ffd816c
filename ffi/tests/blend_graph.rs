//! Blend graphs through the C ABI against the core's graph, bit for bit and decode for decode, and every
//! refusal leaving the pose as it was.

#[path = "support/example.rs"]
mod example;

use example::{bits, core_pose, with_example};
use sinew::arena::Arena;
use sinew::blend_graph::{BlendGraph, BlendGraphJob, GraphDesc, Leaf, Node, Weighted};
use sinew::character::Chunk;
use sinew::math::{F4, SoaTransform};
use sinew::sampling::{Interpolation, Playback};
use sinew_ffi::*;

const CLIP: u32 = SINEW_BLEND_NODE_CLIP;

fn node(kind: u32) -> sinew_blend_node {
    sinew_blend_node { kind, ..Default::default() }
}

fn clip(leaf: u32) -> sinew_blend_node {
    sinew_blend_node { leaf, ..node(CLIP) }
}

/// The graph's buffers, kept alive beside its nodes.
struct Buffers {
    mask: Vec<F4>,
    sum: [sinew_blend_child; 2],
    line: [u32; 2],
    positions: [f32; 2],
    corners: [u32; 3],
    points: [f32; 6],
    triangles: [u32; 3],
    chunks: [u32; 2],
}

/// A DAG using every node kind: a 1-D space, a masked lerp, a sum with a masked child, an additive, a 2-D
/// space and chunks reading nodes the others read too.
fn c_nodes(buffers: &Buffers) -> Vec<sinew_blend_node> {
    vec![
        clip(0),
        clip(1),
        sinew_blend_node {
            num_children: 2,
            children: buffers.line.as_ptr(),
            positions: buffers.positions.as_ptr(),
            weight: 0,
            ..node(SINEW_BLEND_NODE_SPACE_1D)
        },
        clip(2),
        sinew_blend_node { a: 3, b: 2, weight: 1, mask: buffers.mask.as_ptr().cast(), ..node(SINEW_BLEND_NODE_LERP) },
        sinew_blend_node { num_children: 2, sum_children: buffers.sum.as_ptr(), ..node(SINEW_BLEND_NODE_SUM) },
        sinew_blend_node { a: 5, b: 1, weight: 4, ..node(SINEW_BLEND_NODE_ADDITIVE) },
        sinew_blend_node {
            num_children: 3,
            children: buffers.corners.as_ptr(),
            positions: buffers.points.as_ptr(),
            num_triangles: 1,
            triangles: buffers.triangles.as_ptr(),
            weight: 5,
            y: 6,
            ..node(SINEW_BLEND_NODE_SPACE_2D)
        },
        sinew_blend_node { num_children: 2, children: buffers.chunks.as_ptr(), ..node(SINEW_BLEND_NODE_CHUNKS) },
        sinew_blend_node { a: 8, b: 7, weight: 3, ..node(SINEW_BLEND_NODE_LERP) },
    ]
}

fn buffers(g: usize) -> Buffers {
    let mask = (0..g).map(|k| F4::from_array([0.0, 0.5, 1.0, 0.25 * (k % 4) as f32])).collect::<Vec<_>>();
    let sum = [
        sinew_blend_child { node: 4, weight: 2, mask: std::ptr::null() },
        sinew_blend_child { node: 0, weight: 3, mask: mask.as_ptr().cast() },
    ];
    Buffers {
        sum,
        mask,
        line: [0, 1],
        positions: [0.0, 1.0],
        corners: [6, 0, 1],
        points: [0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
        triangles: [0, 1, 2],
        chunks: [3, 4],
    }
}

/// The same graph as the core's nodes.
fn core_graph<'a>(buffers: &'a Buffers, weighted: &'a [Weighted<'a>]) -> Vec<Node<'a>> {
    let mask = Some(&buffers.mask[..]);
    vec![
        Node::Clip { leaf: 0 },
        Node::Clip { leaf: 1 },
        Node::Space1d { children: &[0, 1], positions: &buffers.positions, parameter: 0 },
        Node::Clip { leaf: 2 },
        Node::Lerp { a: 3, b: 2, weight: 1, mask },
        Node::WeightedSum { children: weighted },
        Node::Additive { base: 5, delta: 1, weight: 4, mask: None, reference: None },
        Node::Space2d {
            children: &[6, 0, 1],
            points: &[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
            triangles: &[[0, 1, 2]],
            x: 5,
            y: 6,
        },
        Node::Chunks { leaves: &[3, 4] },
        Node::Lerp { a: 8, b: 7, weight: 3, mask: None },
    ]
}

fn desc(nodes: &[sinew_blend_node]) -> sinew_blend_graph_desc {
    sinew_blend_graph_desc {
        nodes: nodes.as_ptr(),
        num_nodes: nodes.len() as u32,
        num_params: 7,
        max_tracks: 0,
        interpolation: SINEW_INTERPOLATION_LINEAR,
    }
}

/// A graph state for `desc` in `memory` (64-byte chunks).
fn new_graph(asset: &sinew_asset, desc: &sinew_blend_graph_desc, memory: &mut Vec<Chunk>) -> *mut sinew_blend_graph {
    let mut len = 0;
    // SAFETY: valid pointers.
    unsafe {
        assert_eq!(sinew_blend_graph_required_bytes(asset, desc, &mut len), SINEW_OK);
        *memory = vec![Chunk::ZERO; Chunk::count(len)];
        let mut out = std::ptr::null_mut();
        assert_eq!(sinew_blend_graph_init(memory.as_mut_ptr().cast(), len, asset, desc, &mut out), SINEW_OK);
        out
    }
}

/// Leaves 0 to 2 for the clip nodes, 3 and 4 for the chunk node (two clips into one pose).
fn leaves(time: f32) -> [sinew_blend_leaf; 5] {
    [(0, 0.0), (1, 0.4), (0, 0.9), (1, 0.2), (0, 0.6)].map(|(clip, offset)| sinew_blend_leaf {
        clip,
        wrap: SINEW_WRAP_LOOP,
        time: time + offset,
        reserved: 0,
    })
}

#[test]
fn a_graph_through_c_matches_the_core_bit_for_bit() {
    with_example(|_, asset, core, n, g| {
        let buffers = buffers(g);
        let nodes = c_nodes(&buffers);
        let desc = desc(&nodes);
        let mut memory = vec![];
        let graph = new_graph(asset, &desc, &mut memory);

        let weighted = [
            Weighted { node: 4, weight: 2, mask: None },
            Weighted { node: 0, weight: 3, mask: Some(&buffers.mask[..]) },
        ];
        let core_nodes = core_graph(&buffers, &weighted);
        let core_desc =
            GraphDesc { nodes: &core_nodes, num_params: 7, max_tracks: 0, interpolation: Interpolation::Linear };
        let mut core_memory = vec![0u8; BlendGraph::required_bytes(&core_desc, n).expect("size")];
        let arena = Arena::new(&mut core_memory);
        let skeleton = core.skeleton();
        let mut core_graph = BlendGraph::new(&arena, skeleton, &core_desc).expect("graph");
        let clips = [core.clip(0).unwrap(), core.clip(1).unwrap()];

        // The second half of the frames leaves leaf 2 unread (the lerp at 0 copies B, the 1-D space).
        let frames = if cfg!(miri) { 4 } else { 16 };
        let mut leaf_2_at_half = 0;
        for frame in 0..frames {
            let time = frame as f32 / 60.0;
            let params = [0.3, if frame < frames / 2 { 0.6 } else { 0.0 }, 0.8, 0.4, 0.5, 0.2, 0.3];
            let c_leaves = leaves(time);
            let mut c_out = example::c_pose(&vec![SoaTransform::IDENTITY; g]);
            // SAFETY: valid pointers and lengths.
            let status = unsafe {
                sinew_blend_graph_evaluate(
                    graph,
                    asset,
                    &desc,
                    c_leaves.as_ptr(),
                    5,
                    params.as_ptr(),
                    7,
                    c_out.as_mut_ptr(),
                    g,
                )
            };
            assert_eq!(status, SINEW_OK, "frame {frame}");
            let core_leaves =
                c_leaves.map(|l| Leaf { clip: &clips[l.clip as usize], time: l.time, playback: Playback::Loop });
            let mut rust_out = vec![SoaTransform::IDENTITY; g];
            let mut job = BlendGraphJob {
                graph: &mut core_graph,
                skeleton,
                leaves: &core_leaves,
                params: &params,
                output: &mut rust_out,
            };
            job.run().expect("core graph");
            assert_eq!(bits(&core_pose(&c_out)), bits(&rust_out), "frame {frame}");
            for leaf in 0..5 {
                let mut decoded = 0;
                // SAFETY: valid pointers.
                assert_eq!(unsafe { sinew_blend_graph_decoded_frames(graph, leaf, &mut decoded) }, SINEW_OK);
                assert_eq!(Some(decoded), core_graph.decoded_frames(leaf as usize), "frame {frame}, leaf {leaf}");
                if leaf == 2 && frame == frames / 2 - 1 {
                    leaf_2_at_half = decoded;
                }
            }
        }
        let mut leaf_2 = 0;
        // SAFETY: valid pointers.
        assert_eq!(unsafe { sinew_blend_graph_decoded_frames(graph, 2, &mut leaf_2) }, SINEW_OK);
        assert!(leaf_2_at_half > 0 && leaf_2 == leaf_2_at_half, "leaf 2 unread: {leaf_2_at_half} -> {leaf_2}");
        let mut decoded = 0;
        // SAFETY: valid pointers.
        unsafe {
            assert_eq!(sinew_blend_graph_decoded_frames(graph, 5, &mut decoded), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        }
    });
}

#[test]
fn bad_graphs_and_calls_are_refused_and_write_nothing() {
    with_example(|_, asset, _, _, g| {
        let buffers = buffers(g);
        let nodes = c_nodes(&buffers);
        let good = desc(&nodes);
        let mut len = 0;
        // Descriptions: each refused by the size query and by init.
        let mut bad_kind = nodes.clone();
        bad_kind[3].kind = 99;
        let mut later_child = nodes.clone();
        later_child[4].a = 5;
        let mut misaligned = nodes.clone();
        // SAFETY: one float past a 16-byte aligned mask, still inside it.
        misaligned[4].mask = unsafe { buffers.mask.as_ptr().cast::<f32>().add(1) };
        let mut duplicate_leaf = nodes.clone();
        duplicate_leaf[3].leaf = 0;
        // A chunk node taking leaf 0, a clip node's, again.
        let leaf_again = [0u32, 4];
        let mut chunk_leaf_twice = nodes.clone();
        chunk_leaf_twice[8].children = leaf_again.as_ptr();
        let cases: [(sinew_blend_graph_desc, sinew_status); 7] = [
            (desc(&chunk_leaf_twice), SINEW_ERROR_INVALID_ARGUMENT),
            (desc(&bad_kind), SINEW_ERROR_INVALID_DESC),
            (sinew_blend_graph_desc { num_nodes: 0, ..good }, SINEW_ERROR_INVALID_DESC),
            (desc(&later_child), SINEW_ERROR_INVALID_ARGUMENT),
            (desc(&misaligned), SINEW_ERROR_BUFFER),
            (desc(&duplicate_leaf), SINEW_ERROR_INVALID_ARGUMENT),
            (sinew_blend_graph_desc { interpolation: 7, ..good }, SINEW_ERROR_INVALID_ARGUMENT),
        ];
        let mut memory = vec![Chunk::ZERO; 4096];
        for (k, (desc, expected)) in cases.iter().enumerate() {
            let mut out = std::ptr::null_mut();
            // SAFETY: valid pointers.
            unsafe {
                assert_eq!(sinew_blend_graph_required_bytes(asset, desc, &mut len), *expected, "case {k}");
                let at = memory.as_mut_ptr().cast();
                assert_eq!(sinew_blend_graph_init(at, 4096 * 64, asset, desc, &mut out), *expected, "case {k}");
            }
            assert!(out.is_null(), "case {k}");
        }
        // Too little memory, and memory that is not a graph.
        // SAFETY: valid pointers.
        unsafe {
            assert_eq!(sinew_blend_graph_required_bytes(asset, &good, &mut len), SINEW_OK);
            let mut out = std::ptr::null_mut();
            let at = memory.as_mut_ptr().cast();
            assert_eq!(sinew_blend_graph_init(at, len - 64, asset, &good, &mut out), SINEW_ERROR_MEMORY_TOO_SMALL);
            let mut decoded = 0;
            let not_a_graph = memory.as_mut_ptr().cast::<sinew_blend_graph>();
            assert_eq!(sinew_blend_graph_decoded_frames(not_a_graph, 0, &mut decoded), SINEW_ERROR_INVALID_HANDLE);
        }

        let mut graph_memory = vec![];
        let graph = new_graph(asset, &good, &mut graph_memory);
        let params = [0.3, 0.6, 0.8, 0.4, 0.5, 0.2, 0.3];
        let sentinel = example::c_pose(&vec![SoaTransform::IDENTITY; g]);
        let run = |graph: *mut sinew_blend_graph,
                   desc: &sinew_blend_graph_desc,
                   leaves: &[sinew_blend_leaf],
                   params: &[f32],
                   pose: *mut sinew_soa_transform,
                   count: usize| {
            // SAFETY: valid pointers and lengths (or deliberately overlapping ones).
            unsafe {
                sinew_blend_graph_evaluate(
                    graph,
                    asset,
                    desc,
                    leaves.as_ptr(),
                    leaves.len() as u32,
                    params.as_ptr(),
                    params.len() as u32,
                    pose,
                    count,
                )
            }
        };
        let mut out = sentinel.clone();
        let mut check =
            |desc: &sinew_blend_graph_desc, leaves: &[sinew_blend_leaf], params: &[f32], count, expected| {
                assert_eq!(run(graph, desc, leaves, params, out.as_mut_ptr(), count), expected);
                assert_eq!(bits(&out), bits(&sentinel));
            };
        let good_leaves = leaves(0.1);
        check(&good, &good_leaves[..4], &params, g, SINEW_ERROR_BUFFER);
        check(&good, &good_leaves, &params[..6], g, SINEW_ERROR_BUFFER);
        check(&good, &good_leaves, &params, g - 1, SINEW_ERROR_BUFFER);
        let mut nan = params;
        nan[2] = f32::NAN;
        check(&good, &good_leaves, &nan, g, SINEW_ERROR_INVALID_ARGUMENT);
        let mut bad_wrap = good_leaves;
        bad_wrap[1].wrap = 9;
        check(&good, &bad_wrap, &params, g, SINEW_ERROR_INVALID_ARGUMENT);
        let mut bad_clip = good_leaves;
        bad_clip[2].clip = 77;
        check(&good, &bad_clip, &params, g, SINEW_ERROR_INDEX_OUT_OF_RANGE);
        check(
            &sinew_blend_graph_desc { interpolation: SINEW_INTERPOLATION_CUBIC, ..good },
            &good_leaves,
            &params,
            g,
            SINEW_ERROR_STATE_MISMATCH,
        );
        // One leaf fewer: a graph of another shape than the memory's.
        let two_leaves = [clip(0), clip(1), sinew_blend_node { a: 0, b: 1, weight: 0, ..node(SINEW_BLEND_NODE_LERP) }];
        check(&desc(&two_leaves), &good_leaves[..2], &params, g, SINEW_ERROR_STATE_MISMATCH);
        // A pose over the graph's memory or over the mask it reads.
        let over_memory = graph_memory.as_mut_ptr().cast::<sinew_soa_transform>();
        assert_eq!(run(graph, &good, &good_leaves, &params, over_memory, g), SINEW_ERROR_BUFFER);
        // A mask as long as a pose (ten lane vectors a lane group), the pose written over it.
        let mut long_mask = vec![F4::ZERO; 10 * g];
        let mut aliased = nodes.clone();
        aliased[4].mask = long_mask.as_ptr().cast();
        let over_mask = long_mask.as_mut_ptr().cast::<sinew_soa_transform>();
        assert_eq!(run(graph, &desc(&aliased), &good_leaves, &params, over_mask, g), SINEW_ERROR_BUFFER);
        assert!(long_mask.iter().all(|m| *m == F4::ZERO));
        let mut separate = sentinel.clone();
        assert_eq!(run(graph, &desc(&aliased), &good_leaves, &params, separate.as_mut_ptr(), g), SINEW_OK);
        // NULL handles.
        assert_eq!(
            run(std::ptr::null_mut(), &good, &good_leaves, &params, out.as_mut_ptr(), g),
            SINEW_ERROR_NULL_POINTER
        );
        // And the graph still evaluates.
        assert_eq!(run(graph, &good, &good_leaves, &params, out.as_mut_ptr(), g), SINEW_OK);
    });
}
