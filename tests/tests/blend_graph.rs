//! The blend graph: random trees and DAGs against an f64 evaluation, pruning proven by the decode counters and
//! bit-identical to the graph without the pruned subtree, the textbook's nested-lerp identity, a character's
//! layer stack expressed as a graph, blend spaces, the scratch-pose count, and every bad input.

use sinew::blend_graph::{BlendGraph, BlendGraphJob, GraphDesc, Leaf, MAX_NODES, Node, Weighted};
use sinew::blending::subtree_mask;
use sinew::control::Wrap;
use sinew::error::{GraphProblem, Limit};
use sinew::math::{F4, SoaTransform, Transform, unpack_soa};
use sinew::{
    Arena, Asset, Buffer, Character, CharacterDesc, Chunk, Error, Interpolation, LayerDesc, LayerKind, Play, Playback,
    Rig, Scratch, SlotId,
};
use sinew_tests::oracle::{self, Flat};
use sinew_tests::{Rng, random_clip};
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::raw::{AlignedBlob, RawClip, RawSkeleton};

/// Rotations (radians) and translations and scales (relative to `max(|x|, 1)`) against the f64 evaluation.
const ROTATION_TOLERANCE: f64 = 1e-6;
const VALUE_TOLERANCE: f64 = 2e-6;

/// A graph node with its slices owned, so random graphs can be made and then borrowed as `Node`s.
#[derive(Clone, Debug)]
enum Spec {
    Clip(usize),
    Lerp {
        a: usize,
        b: usize,
        weight: usize,
        mask: Option<Vec<F4>>,
    },
    Sum(Vec<(usize, usize, Option<Vec<F4>>)>),
    Additive {
        base: usize,
        delta: usize,
        weight: usize,
        mask: Option<Vec<F4>>,
    },
    Space1d {
        children: Vec<usize>,
        positions: Vec<f32>,
        parameter: usize,
    },
    /// Four samples on the unit square's corners (0, 0), (1, 0), (0, 1), (1, 1), split along x + y = 1.
    Square {
        children: Vec<usize>,
        x: usize,
        y: usize,
    },
}

const SQUARE: [[f32; 2]; 4] = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
const SQUARE_TRIANGLES: [[usize; 3]; 2] = [[0, 1, 2], [1, 3, 2]];

/// The `Node`s of `specs`, borrowing them (the weighted sums' children live in `weighted`).
fn nodes<'a>(specs: &'a [Spec], weighted: &'a [Vec<Weighted<'a>>]) -> Vec<Node<'a>> {
    specs
        .iter()
        .zip(weighted)
        .map(|(spec, weighted)| match spec {
            Spec::Clip(leaf) => Node::Clip { leaf: *leaf },
            Spec::Lerp { a, b, weight, mask } => Node::Lerp { a: *a, b: *b, weight: *weight, mask: mask.as_deref() },
            Spec::Sum(_) => Node::WeightedSum { children: weighted },
            Spec::Additive { base, delta, weight, mask } => {
                Node::Additive { base: *base, delta: *delta, weight: *weight, mask: mask.as_deref(), reference: None }
            }
            Spec::Space1d { children, positions, parameter } => {
                Node::Space1d { children, positions, parameter: *parameter }
            }
            Spec::Square { children, x, y } => {
                Node::Space2d { children, points: &SQUARE, triangles: &SQUARE_TRIANGLES, x: *x, y: *y }
            }
        })
        .collect()
}

fn weighted(specs: &[Spec]) -> Vec<Vec<Weighted<'_>>> {
    specs
        .iter()
        .map(|spec| match spec {
            Spec::Sum(children) => children
                .iter()
                .map(|(node, weight, mask)| Weighted { node: *node, weight: *weight, mask: mask.as_deref() })
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// Random graphs: depth at most 4, at most 8 leaves, a node sometimes reused (a DAG).
struct Grower<'r> {
    rng: &'r mut Rng,
    n: usize,
    specs: Vec<Spec>,
    leaves: usize,
    params: usize,
}

impl Grower<'_> {
    fn param(&mut self) -> usize {
        self.params += 1;
        self.params - 1
    }

    fn mask(&mut self) -> Option<Vec<F4>> {
        if self.rng.below(2) == 0 {
            return None;
        }
        let n = self.n;
        let weights: Vec<f32> = (0..4 * n.div_ceil(4))
            .map(|j| match (j < n, self.rng.below(3)) {
                (false, _) => 0.0,
                (true, 0) => 0.0,
                (true, 1) => 1.0,
                _ => self.rng.unit(),
            })
            .collect();
        Some(weights.chunks(4).map(|c| F4::from_array([c[0], c[1], c[2], c[3]])).collect())
    }

    fn grow(&mut self, depth: usize) -> usize {
        let existing = self.specs.len();
        if existing > 0 && self.rng.below(6) == 0 {
            return self.rng.below(existing);
        }
        let spec = if depth == 0 || self.leaves >= 6 || self.rng.below(4) == 0 {
            if self.leaves == 8 {
                return self.rng.below(existing.max(1));
            }
            self.leaves += 1;
            Spec::Clip(self.leaves - 1)
        } else {
            match self.rng.below(5) {
                0 => {
                    let (a, b) = (self.grow(depth - 1), self.grow(depth - 1));
                    Spec::Lerp { a, b, weight: self.param(), mask: self.mask() }
                }
                1 => {
                    let count = 1 + self.rng.below(3);
                    let children =
                        (0..count).map(|_| (self.grow(depth - 1), self.param(), self.mask())).collect::<Vec<_>>();
                    Spec::Sum(children)
                }
                2 => {
                    let (base, delta) = (self.grow(depth - 1), self.grow(depth - 1));
                    Spec::Additive { base, delta, weight: self.param(), mask: self.mask() }
                }
                3 => {
                    let count = 1 + self.rng.below(3);
                    let children = (0..count).map(|_| self.grow(depth - 1)).collect();
                    let mut positions: Vec<f32> = (0..count).map(|k| k as f32 + self.rng.range(0.0, 0.9)).collect();
                    positions.sort_by(f32::total_cmp);
                    Spec::Space1d { children, positions, parameter: self.param() }
                }
                _ => {
                    let children = (0..4).map(|_| self.grow(depth - 1)).collect();
                    Spec::Square { children, x: self.param(), y: self.param() }
                }
            }
        };
        self.specs.push(spec);
        self.specs.len() - 1
    }
}

/// The parameter values of `specs`: exact 0s and 1s, values on blend-space samples and random ones (some
/// outside the lerps' range and the spaces' extent).
fn random_params(rng: &mut Rng, specs: &[Spec], count: usize) -> Vec<f32> {
    let mut params = vec![0.0; count];
    for spec in specs {
        let mut pick = |p: usize, lo: f32, hi: f32, exact: &[f32]| {
            params[p] = match rng.below(4) {
                0 if !exact.is_empty() => exact[rng.below(exact.len())],
                _ => rng.range(lo, hi),
            }
        };
        match spec {
            Spec::Clip(_) => {}
            Spec::Lerp { weight, .. } => pick(*weight, -0.2, 1.2, &[0.0, 1.0]),
            Spec::Additive { weight, .. } => pick(*weight, 0.0, 1.0, &[0.0, 1.0]),
            Spec::Sum(children) => children.iter().for_each(|(_, w, _)| pick(*w, 0.0, 1.0, &[0.0])),
            Spec::Space1d { positions, parameter, .. } => {
                let (lo, hi) = (positions[0] - 0.5, positions[positions.len() - 1] + 0.5);
                pick(*parameter, lo, hi, positions)
            }
            Spec::Square { x, y, .. } => {
                pick(*x, -0.3, 1.3, &[0.0, 1.0]);
                pick(*y, -0.3, 1.3, &[0.0, 1.0]);
            }
        }
    }
    params
}

/// Lane `j` of a SoA mask.
fn lane(mask: &[F4], j: usize) -> f64 {
    f64::from(mask[j / 4].to_array()[j % 4])
}

/// The f64 evaluation: every node from its definition, blend-space weights worked out afresh.
fn evaluate64(specs: &[Spec], node: usize, leaves: &[Vec<Flat>], params: &[f32], rest: &[Flat]) -> Vec<Flat> {
    let eval = |c: usize| evaluate64(specs, c, leaves, params, rest);
    let p = |i: usize| f64::from(params[i]);
    let n = rest.len();
    match &specs[node] {
        Spec::Clip(leaf) => leaves[*leaf].clone(),
        Spec::Lerp { a, b, weight, mask } => {
            let (a, b, t) = (eval(*a), eval(*b), p(*weight).clamp(0.0, 1.0));
            (0..n).map(|j| oracle::interpolate(&b[j], &a[j], t * mask.as_deref().map_or(1.0, |m| lane(m, j)))).collect()
        }
        Spec::Sum(children) => {
            let poses: Vec<Vec<Flat>> = children.iter().map(|(c, _, _)| eval(*c)).collect();
            let masks: Vec<Option<Vec<f64>>> =
                children.iter().map(|(_, _, m)| m.as_ref().map(|m| (0..n).map(|j| lane(m, j)).collect())).collect();
            let layers: Vec<oracle::BlendInput<'_>> =
                children.iter().enumerate().map(|(k, (_, w, _))| (&poses[k][..], p(*w), masks[k].as_deref())).collect();
            oracle::blend(rest, &layers, 0.1)
        }
        Spec::Additive { base, delta, weight, mask } => {
            let (base, delta) = (eval(*base), eval(*delta));
            let w = |j: usize| p(*weight) * mask.as_deref().map_or(1.0, |m| lane(m, j));
            (0..n).map(|j| oracle::add(&base[j], &rest[j], &delta[j], w(j))).collect()
        }
        Spec::Space1d { children, positions, parameter } => {
            let x = p(*parameter).clamp(f64::from(positions[0]), f64::from(positions[positions.len() - 1]));
            let k = (0..positions.len() - 1).rev().find(|&k| f64::from(positions[k]) <= x).unwrap_or(0);
            if positions.len() == 1 {
                return eval(children[0]);
            }
            let (lo, hi) = (f64::from(positions[k]), f64::from(positions[k + 1]));
            let (a, b) = (eval(children[k]), eval(children[k + 1]));
            (0..n).map(|j| oracle::interpolate(&a[j], &b[j], (x - lo) / (hi - lo))).collect()
        }
        Spec::Square { children, x, y } => {
            // Outside the square the nearest point of its edges is the clamped point.
            let (x, y) = (p(*x).clamp(0.0, 1.0), p(*y).clamp(0.0, 1.0));
            // Blended in the order of the triangle's corners (rotations far apart make the order matter).
            let corners = if x + y <= 1.0 {
                [(0, 1.0 - x - y), (1, x), (2, y)]
            } else {
                [(1, 1.0 - y), (3, x + y - 1.0), (2, 1.0 - x)]
            };
            let poses: Vec<Vec<Flat>> = children.iter().map(|&c| eval(c)).collect();
            let layers: Vec<oracle::BlendInput<'_>> =
                corners.iter().filter(|c| c.1 > 0.0).map(|&(k, w)| (&poses[k][..], w, None)).collect();
            oracle::blend(rest, &layers, 0.1)
        }
    }
}

/// Largest rotation angle and largest relative translation or scale error.
fn errors(got: &[Transform], expected: &[Flat]) -> (f64, f64) {
    let (mut rotation, mut value) = (0.0f64, 0.0f64);
    for (t, e) in got.iter().zip(expected) {
        let v = oracle::flat(t);
        // The angle between unit quaternions from their chord (acos of the dot loses half the digits near 1).
        let length = (3..7).map(|i| v[i] * v[i]).sum::<f64>().sqrt();
        let sign = if (3..7).map(|i| v[i] * e[i]).sum::<f64>() < 0.0 { -1.0 } else { 1.0 };
        let chord = (3..7).map(|i| (sign * v[i] / length - e[i]).powi(2)).sum::<f64>().sqrt();
        rotation = rotation.max(4.0 * (chord / 2.0).min(1.0).asin());
        for i in (0..3).chain(7..10) {
            value = value.max((v[i] - e[i]).abs() / e[i].abs().max(1.0));
        }
    }
    (rotation, value)
}

/// Eight clips (ten to forty frames) on one random skeleton of `n` joints, baked.
fn clips(rng: &mut Rng, n: usize) -> (RawSkeleton, Vec<RawClip>, AlignedBlob) {
    let (skeleton, first) = random_clip(rng, n, 20);
    let mut clips = vec![first];
    for k in 1..8 {
        clips.push(random_clip(rng, n, 10 + 4 * k).1);
    }
    let blob = bake::bake(&skeleton, &clips, KeyFormat::F32).expect("bake");
    (skeleton, clips, blob)
}

fn graph_memory(desc: &GraphDesc<'_>, n: usize) -> Vec<u8> {
    vec![0u8; BlendGraph::required_bytes(desc, n).expect("size")]
}

fn desc<'a>(nodes: &'a [Node<'a>], num_params: usize) -> GraphDesc<'a> {
    GraphDesc { nodes, num_params, max_tracks: 0, interpolation: Interpolation::Linear }
}

fn aos(pose: &[SoaTransform], n: usize) -> Vec<Transform> {
    let mut out = vec![Transform::IDENTITY; n];
    unpack_soa(pose, &mut out).expect("unpack");
    out
}

#[test]
fn random_graphs_match_the_f64_evaluation() {
    let mut rng = Rng::new(0xB1E4D);
    let mut worst = (0.0f64, 0.0f64);
    let mut trees = 0;
    for n in [1, 5, 13, 67] {
        let (skeleton, raw, blob) = clips(&mut rng, n);
        let asset = Asset::load(blob.bytes()).expect("load");
        let rest: Vec<Flat> = skeleton.rest.iter().map(oracle::flat).collect();
        let baked: Vec<_> = (0..8).map(|c| asset.clip(c).expect("clip")).collect();
        for _ in 0..50 {
            let mut grower = Grower { rng: &mut rng, n, specs: Vec::new(), leaves: 0, params: 0 };
            grower.grow(4);
            let (specs, leaves, num_params) = (grower.specs, grower.leaves, grower.params);
            // The last node made is the root; a reused node as root leaves nodes after it unread.
            let sums = weighted(&specs);
            let graph_nodes = nodes(&specs, &sums);
            let desc = desc(&graph_nodes, num_params);
            let mut memory = graph_memory(&desc, n);
            let arena = Arena::new(&mut memory);
            let mut graph = BlendGraph::new(&arena, asset.skeleton(), &desc).expect("graph");
            assert_eq!(graph.num_leaves(), leaves);
            for _ in 0..4 {
                let times: Vec<f32> = (0..leaves).map(|_| rng.range(-0.5, 2.0)).collect();
                let params = random_params(&mut rng, &specs, num_params);
                let inputs: Vec<Leaf<'_>> =
                    (0..leaves).map(|l| Leaf { clip: &baked[l], time: times[l], playback: Playback::Clamp }).collect();
                let mut out = vec![SoaTransform::IDENTITY; asset.skeleton().num_soa_joints()];
                let skeleton = asset.skeleton();
                BlendGraphJob { graph: &mut graph, skeleton, leaves: &inputs, params: &params, output: &mut out }
                    .run()
                    .expect("run");
                let samples: Vec<Vec<Flat>> = (0..leaves)
                    .map(|l| oracle::sample(&raw[l].frames, f64::from(raw[l].sample_rate), f64::from(times[l])))
                    .collect();
                let expected = evaluate64(&specs, specs.len() - 1, &samples, &params, &rest);
                let (rotation, value) = errors(&aos(&out, n), &expected);
                assert!(
                    rotation < ROTATION_TOLERANCE && value < VALUE_TOLERANCE,
                    "{n} joints, {specs:?}: {rotation:e} rad, {value:e}"
                );
                worst = (worst.0.max(rotation), worst.1.max(value));
            }
            trees += 1;
        }
    }
    println!("{trees} random graphs: worst rotation {:e} rad, worst relative value {:e}", worst.0, worst.1);
}

/// A graph over owned specs, evaluated frame after frame.
struct Harness<'a> {
    asset: &'a Asset<'a>,
    clips: Vec<sinew::Clip<'a>>,
}

impl<'a> Harness<'a> {
    fn new(asset: &'a Asset<'a>) -> Harness<'a> {
        let clips = (0..asset.num_clips()).map(|c| asset.clip(c).expect("clip")).collect();
        Harness { asset, clips }
    }

    /// Runs `graph` once with leaf `l` playing clip `l` at `times[l]`.
    fn run(&self, graph: &mut BlendGraph<'_>, times: &[f32], params: &[f32]) -> Result<Vec<SoaTransform>, Error> {
        let clips: Vec<usize> = (0..times.len()).collect();
        self.run_clips(graph, &clips, times, params)
    }

    /// Runs `graph` once with leaf `l` playing clip `clips[l]` at `times[clips[l]]`.
    fn run_clips(
        &self,
        graph: &mut BlendGraph<'_>,
        clips: &[usize],
        times: &[f32],
        params: &[f32],
    ) -> Result<Vec<SoaTransform>, Error> {
        let leaves: Vec<Leaf<'_>> =
            clips.iter().map(|&c| Leaf { clip: &self.clips[c], time: times[c], playback: Playback::Loop }).collect();
        let skeleton = self.asset.skeleton();
        let mut out = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
        BlendGraphJob { graph, skeleton, leaves: &leaves, params, output: &mut out }.run()?;
        Ok(out)
    }

    /// `specs` built and run once on fresh memory, leaf `l` playing clip `l`.
    fn once(&self, specs: &[Spec], times: &[f32], params: &[f32]) -> Vec<SoaTransform> {
        let clips: Vec<usize> = (0..times.len()).collect();
        self.once_with(specs, &clips, times, params)
    }

    /// `specs` built and run once on fresh memory, leaf `l` playing clip `clips[l]`.
    fn once_with(&self, specs: &[Spec], clips: &[usize], times: &[f32], params: &[f32]) -> Vec<SoaTransform> {
        let sums = weighted(specs);
        let nodes = nodes(specs, &sums);
        let desc = desc(&nodes, params.len());
        let mut memory = graph_memory(&desc, self.asset.skeleton().num_joints());
        let arena = Arena::new(&mut memory);
        let mut graph = BlendGraph::new(&arena, self.asset.skeleton(), &desc).expect("graph");
        self.run_clips(&mut graph, clips, times, params).expect("run")
    }
}

fn bits(pose: &[SoaTransform]) -> Vec<u32> {
    bytemuck::cast_slice::<SoaTransform, f32>(pose).iter().map(|v| v.to_bits()).collect()
}

fn synthetic_asset(n: usize) -> (RawSkeleton, Vec<RawClip>, AlignedBlob) {
    clips(&mut Rng::new(0x9A4F), n)
}

#[test]
fn unread_subtrees_are_not_sampled_and_leave_the_graph_without_them() {
    let (_, _, blob) = synthetic_asset(13);
    let asset = Asset::load(blob.bytes()).expect("load");
    let harness = Harness::new(&asset);
    let mut mask = vec![F4::ZERO; 4];
    subtree_mask(asset.skeleton(), 3, 1.0, &mut mask).expect("mask");
    // Leaves 0 and 1 lerped; 2 and 3 summed; the two lerped at p3; leaf 4 added at p4, masked.
    let full = vec![
        Spec::Clip(0),
        Spec::Clip(1),
        Spec::Lerp { a: 0, b: 1, weight: 0, mask: None },
        Spec::Clip(2),
        Spec::Clip(3),
        Spec::Sum(vec![(3, 1, None), (4, 2, None)]),
        Spec::Lerp { a: 2, b: 5, weight: 3, mask: None },
        Spec::Clip(4),
        Spec::Additive { base: 6, delta: 7, weight: 4, mask: Some(mask.clone()) },
    ];
    let sums = weighted(&full);
    let graph_nodes = nodes(&full, &sums);
    let desc = desc(&graph_nodes, 5);
    let mut memory = graph_memory(&desc, 13);
    let arena = Arena::new(&mut memory);
    let mut graph = BlendGraph::new(&arena, asset.skeleton(), &desc).expect("graph");

    // Each case: parameters, the leaves left unread, and the same graph with the unread subtrees deleted.
    let without_sum = vec![
        Spec::Clip(0),
        Spec::Clip(1),
        Spec::Lerp { a: 0, b: 1, weight: 0, mask: None },
        Spec::Clip(2),
        Spec::Additive { base: 2, delta: 3, weight: 4, mask: Some(mask.clone()) },
    ];
    let without_leaf_3 = vec![
        Spec::Clip(0),
        Spec::Clip(1),
        Spec::Lerp { a: 0, b: 1, weight: 0, mask: None },
        Spec::Clip(2),
        Spec::Sum(vec![(3, 1, None)]),
        Spec::Lerp { a: 2, b: 4, weight: 3, mask: None },
        Spec::Clip(3),
        Spec::Additive { base: 5, delta: 6, weight: 4, mask: Some(mask.clone()) },
    ];
    let without_additive = vec![
        Spec::Clip(0),
        Spec::Clip(1),
        Spec::Lerp { a: 0, b: 1, weight: 0, mask: None },
        Spec::Clip(2),
        Spec::Clip(3),
        Spec::Sum(vec![(3, 1, None), (4, 2, None)]),
        Spec::Lerp { a: 2, b: 5, weight: 3, mask: None },
    ];
    let only_leaf_1 =
        vec![Spec::Clip(0), Spec::Clip(1), Spec::Additive { base: 0, delta: 1, weight: 4, mask: Some(mask.clone()) }];
    // Parameters, the leaves left unread, the graph without them and the clips of its leaves.
    type Case<'c> = ([f32; 5], &'c [usize], &'c [Spec], &'c [usize]);
    let cases: [Case<'_>; 4] = [
        // The lerp at 1 reads its first child only: leaves 2 and 3 rest.
        ([0.3, 0.5, 0.5, 1.0, 0.7], &[2, 3], &without_sum, &[0, 1, 4]),
        // A sum's child at weight 0 is not read; the sum of one child is that child.
        ([0.3, 0.5, 0.0, 0.4, 0.7], &[3], &without_leaf_3, &[0, 1, 2, 4]),
        // An additive at weight 0 copies its base.
        ([0.3, 0.5, 0.5, 0.4, 0.0], &[4], &without_additive, &[0, 1, 2, 3]),
        // Both lerps at an end read leaf 1 alone, under the additive.
        ([0.0, 0.5, 0.5, 1.0, 0.6], &[0, 2, 3], &only_leaf_1, &[1, 4]),
    ];
    let mut times = [0.1f32, 0.35, 0.2, 0.05, 0.4];
    for (params, unread, deleted, deleted_clips) in cases {
        let before: Vec<u64> = (0..5).map(|l| graph.decoded_frames(l).unwrap()).collect();
        for _ in 0..6 {
            // The caller's clocks run on whether or not their leaves are read.
            times = times.map(|t| t + 1.0 / 30.0);
            let out = harness.run(&mut graph, &times, &params).expect("run");
            let expected = harness.once_with(deleted, deleted_clips, &times, &params);
            assert_eq!(bits(&out), bits(&expected), "params {params:?}");
        }
        for (l, &before) in before.iter().enumerate() {
            let moved = graph.decoded_frames(l).unwrap() != before;
            assert_eq!(moved, !unread.contains(&l), "leaf {l}, params {params:?}");
        }
    }
    // A leaf read again picks up at its clock's time.
    let params = [0.3, 0.5, 0.5, 0.4, 0.7];
    let out = harness.run(&mut graph, &times, &params).expect("run");
    assert_eq!(bits(&out), bits(&harness.once(&full, &times, &params)));
}

#[test]
fn nested_lerps_equal_a_weighted_sum_for_translations() {
    // The textbook's identity: lerp(lerp(A, B, i), C, j) = j·i·A + j·(1 − i)·B + (1 − j)·C.
    let (_, _, blob) = synthetic_asset(13);
    let asset = Asset::load(blob.bytes()).expect("load");
    let harness = Harness::new(&asset);
    let nested = vec![
        Spec::Clip(0),
        Spec::Clip(1),
        Spec::Lerp { a: 0, b: 1, weight: 0, mask: None },
        Spec::Clip(2),
        Spec::Lerp { a: 2, b: 3, weight: 1, mask: None },
    ];
    let sum =
        vec![Spec::Clip(0), Spec::Clip(1), Spec::Clip(2), Spec::Sum(vec![(0, 2, None), (1, 3, None), (2, 4, None)])];
    let mut rng = Rng::new(7);
    let mut worst = 0.0f32;
    for _ in 0..100 {
        let (i, j) = (rng.unit(), rng.unit());
        let params = [i, j, j * i, j * (1.0 - i), 1.0 - j];
        let times = [rng.unit(), rng.unit(), rng.unit()];
        let (a, b) = (aos(&harness.once(&nested, &times, &params), 13), aos(&harness.once(&sum, &times, &params), 13));
        for (a, b) in a.iter().zip(&b) {
            for (x, y) in [
                (a.translation.x, b.translation.x),
                (a.translation.y, b.translation.y),
                (a.translation.z, b.translation.z),
            ] {
                worst = worst.max((x - y).abs() / y.abs().max(1.0));
            }
        }
    }
    // A few roundings of `f32` either way.
    assert!(worst < 4.0 * f32::EPSILON, "{worst:e}");
}

#[test]
fn blend_spaces_give_their_samples_exactly_and_clamp_outside() {
    let (_, _, blob) = synthetic_asset(5);
    let asset = Asset::load(blob.bytes()).expect("load");
    let harness = Harness::new(&asset);
    let times = [0.11, 0.42, 0.27, 0.05, 0.33];
    let leaves = |k: usize| (0..k).map(Spec::Clip).collect::<Vec<_>>();
    let alone = |clip: usize| harness.once_with(&[Spec::Clip(0)], &[clip], &times, &[]);
    let mut line = leaves(3);
    line.push(Spec::Space1d { children: vec![0, 1, 2], positions: vec![-1.0, 0.5, 2.0], parameter: 0 });
    for (x, clip) in [(-1.0, 0), (-7.0, 0), (0.5, 1), (2.0, 2), (9.0, 2)] {
        assert_eq!(bits(&harness.once(&line, &times[..3], &[x])), bits(&alone(clip)), "x = {x}");
    }
    let mut square = leaves(4);
    square.push(Spec::Square { children: vec![0, 1, 2, 3], x: 0, y: 1 });
    for (p, clip) in
        [([0.0, 0.0], 0), ([1.0, 0.0], 1), ([0.0, 1.0], 2), ([1.0, 1.0], 3), ([3.0, -2.0], 1), ([2.0, 2.0], 3)]
    {
        assert_eq!(bits(&harness.once(&square, &times[..4], &p)), bits(&alone(clip)), "p = {p:?}");
    }
    // On an edge (or past it) two samples are read: the lerp between them.
    let mut edge = leaves(2);
    edge.push(Spec::Lerp { a: 1, b: 0, weight: 0, mask: None });
    let on_edge = harness.once(&square, &times[..4], &[0.25, -0.5]);
    assert_eq!(bits(&on_edge), bits(&harness.once(&edge, &times[..2], &[0.25])));
}

#[test]
fn scratch_poses_are_the_most_alive_at_once() {
    let (_, _, blob) = synthetic_asset(5);
    let asset = Asset::load(blob.bytes()).expect("load");
    let count = |specs: &[Spec], params: usize| {
        let sums = weighted(specs);
        let nodes = nodes(specs, &sums);
        let desc = desc(&nodes, params);
        let mut memory = graph_memory(&desc, 5);
        let arena = Arena::new(&mut memory);
        BlendGraph::new(&arena, asset.skeleton(), &desc).expect("graph").scratch_poses()
    };
    // A chain of lerps over eight leaves: a leaf, the running blend and the next.
    let mut chain = vec![Spec::Clip(0)];
    for l in 1..8 {
        chain.push(Spec::Clip(l));
        let last = chain.len();
        chain.push(Spec::Lerp { a: last - 2, b: last - 1, weight: 0, mask: None });
    }
    assert_eq!(count(&chain, 1), 3);
    // A balanced tree of eight leaves: a pose per level, plus the pair being blended.
    // Post-order: built as a recursion would, each pair's blend right after its two subtrees.
    fn balanced(tree: &mut Vec<Spec>, leaves: std::ops::Range<usize>) -> usize {
        if leaves.len() == 1 {
            tree.push(Spec::Clip(leaves.start));
            return tree.len() - 1;
        }
        let middle = leaves.start + leaves.len() / 2;
        let a = balanced(tree, leaves.start..middle);
        let b = balanced(tree, middle..leaves.end);
        tree.push(Spec::Lerp { a, b, weight: 0, mask: None });
        tree.len() - 1
    }
    let mut tree = Vec::new();
    balanced(&mut tree, 0..8);
    assert_eq!(count(&tree, 1), 5);
    // One leaf: the root writes the output, no scratch.
    assert_eq!(count(&[Spec::Clip(0)], 0), 0);
}

#[test]
fn a_character_layer_stack_is_a_graph() {
    // Base (two controls), a masked overlay, a synced and an overlapping additive: the character's pose and the
    // graph's, bit for bit.
    let n = 13;
    let (skeleton, clips, _) = synthetic_asset(n);
    let blob = bake::bake(&skeleton, &clips[..5], KeyFormat::F32).expect("bake");
    let asset = Asset::load(blob.bytes()).expect("load");
    const STACK: [LayerDesc; 4] = [
        LayerDesc { kind: LayerKind::Base, controls: 2 },
        LayerDesc { kind: LayerKind::Overlay, controls: 1 },
        LayerDesc { kind: LayerKind::SyncedAdditive, controls: 1 },
        LayerDesc { kind: LayerKind::OverlappingAdditive, controls: 1 },
    ];
    let desc = CharacterDesc {
        num_joints: n,
        num_skin_joints: 0,
        layers: &STACK,
        num_masks: 1,
        num_curves: 0,
        inertialization: None,
        scratch: Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation: Interpolation::Linear,
    };
    let bytes = Character::required_bytes(&desc).expect("size");
    let mut chunks = vec![Chunk::ZERO; Chunk::count(bytes)];
    let mut character = Character::new(&mut Chunk::bytes_mut(&mut chunks)[..bytes], &desc).expect("character");
    let mut mask = vec![F4::ZERO; n.div_ceil(4)];
    subtree_mask(asset.skeleton(), 4, 0.8, &mut mask).expect("mask");
    character.set_mask(0, &mask).expect("set mask");
    let play = |clip, time, speed, weight, mask| Play { clip, time, speed, weight, wrap: Wrap::Loop, mask };
    let plays = [
        (SlotId::on(0, 0), play(0, 0.1, 1.0, 0.6, None)),
        (SlotId::on(0, 1), play(1, 0.0, 1.3, 0.4, None)),
        (SlotId::on(1, 0), play(2, 0.21, 0.8, 1.0, None)),
        (SlotId::on(2, 0), play(3, 0.0, 1.0, 0.5, None)),
        (SlotId::on(3, 0), play(4, 0.3, 0.7, 0.25, None)),
    ];
    for (slot, play) in plays {
        character.play(&asset, slot, play).expect("play");
    }
    character.set_layer_masks(1, Some(0), None).expect("layer mask");

    let graph_specs = vec![
        Spec::Clip(0),
        Spec::Clip(1),
        Spec::Sum(vec![(0, 0, None), (1, 1, None)]),
        Spec::Clip(2),
        Spec::Lerp { a: 3, b: 2, weight: 2, mask: Some(mask.clone()) },
        Spec::Clip(3),
        Spec::Additive { base: 4, delta: 5, weight: 3, mask: None },
        Spec::Clip(4),
        Spec::Additive { base: 6, delta: 7, weight: 4, mask: None },
    ];
    let params = [0.6, 0.4, 1.0, 0.5, 0.25];
    let sums = weighted(&graph_specs);
    let graph_nodes = nodes(&graph_specs, &sums);
    let graph_desc =
        GraphDesc { nodes: &graph_nodes, num_params: 5, max_tracks: 0, interpolation: Interpolation::Linear };
    let mut memory = graph_memory(&graph_desc, n);
    let arena = Arena::new(&mut memory);
    let mut graph = BlendGraph::new(&arena, asset.skeleton(), &graph_desc).expect("graph");
    let harness = Harness::new(&asset);
    let rig = Rig::new(&asset, None).expect("rig");
    for frame in 0..20 {
        character.update(1.0 / 30.0, &rig).expect("update");
        let times: Vec<f32> =
            plays.iter().map(|(slot, _)| character.control(*slot).expect("slot").expect("playing").time()).collect();
        let out = harness.run(&mut graph, &times, &params).expect("run");
        assert_eq!(bits(&out), bits(character.pose()), "frame {frame}");
    }
}

#[test]
fn bad_graphs_and_jobs_are_refused_and_change_nothing() {
    let (_, _, blob) = synthetic_asset(5);
    let asset = Asset::load(blob.bytes()).expect("load");
    let skeleton = asset.skeleton();
    let build = |nodes: &[Node<'_>], params: usize| -> Result<usize, Error> {
        let desc = desc(nodes, params);
        let size = BlendGraph::required_bytes(&desc, 5)?;
        let mut memory = vec![0u8; size];
        let arena = Arena::new(&mut memory);
        BlendGraph::new(&arena, skeleton, &desc).map(|g| g.num_leaves())
    };
    let problem = |node, problem| Err(Error::InvalidGraph { node, problem });
    let clip = |leaf| Node::Clip { leaf };
    let lerp = |a, b, weight| Node::Lerp { a, b, weight, mask: None };
    assert_eq!(build(&[clip(0), clip(1), lerp(0, 1, 0)], 1), Ok(2));
    assert_eq!(build(&[], 0), problem(0, GraphProblem::Children));
    let many = vec![clip(0); MAX_NODES + 1];
    assert_eq!(build(&many, 0), Err(Error::Limit { what: Limit::GraphNodes, value: 65, max: 64 }));
    assert_eq!(build(&[clip(40)], 0), Err(Error::Limit { what: Limit::GraphLeaves, value: 41, max: 32 }));
    // Children after (or at) their parent, leaves twice or with a gap, a parameter past the count.
    assert_eq!(build(&[clip(0), lerp(0, 2, 0), clip(1)], 1), problem(1, GraphProblem::Child));
    assert_eq!(build(&[clip(0), lerp(0, 1, 0)], 1), problem(1, GraphProblem::Child));
    assert_eq!(build(&[clip(0), clip(0), lerp(0, 1, 0)], 1), problem(1, GraphProblem::Leaf));
    assert_eq!(build(&[clip(0), clip(2), lerp(0, 1, 0)], 1), problem(1, GraphProblem::Leaf));
    assert_eq!(build(&[clip(0), clip(1), lerp(0, 1, 1)], 1), problem(2, GraphProblem::Parameter));
    // Masks: the wrong length, a weight outside [0, 1] or NaN (padding lanes too).
    let short = [F4::ONE];
    let over = [F4::ONE, F4::from_array([1.0, 2.0, 0.0, 0.0])];
    let nan_padding = [F4::ONE, F4::from_array([1.0, f32::NAN, 0.0, 0.0])];
    for mask in [&short[..], &over[..], &nan_padding[..]] {
        let masked = Node::Lerp { a: 0, b: 1, weight: 0, mask: Some(mask) };
        assert_eq!(build(&[clip(0), clip(1), masked], 1), problem(2, GraphProblem::Mask));
        let sum = [Weighted { node: 0, weight: 0, mask: Some(mask) }];
        assert_eq!(build(&[clip(0), Node::WeightedSum { children: &sum }], 1), problem(1, GraphProblem::Mask));
    }
    let mut zero_scale = skeleton.rest_pose().to_vec();
    zero_scale[1].scale.y = F4::ZERO;
    for reference in [&skeleton.rest_pose()[..1], &zero_scale[..]] {
        let additive = Node::Additive { base: 0, delta: 1, weight: 0, mask: None, reference: Some(reference) };
        assert_eq!(build(&[clip(0), clip(1), additive], 1), problem(2, GraphProblem::Reference));
    }
    let seventeen = [Weighted { node: 0, weight: 0, mask: None }; 17];
    for children in [&[][..], &seventeen[..]] {
        assert_eq!(build(&[clip(0), Node::WeightedSum { children }], 1), problem(1, GraphProblem::Children));
    }
    let space = |positions: &'static [f32]| Node::Space1d { children: &[0, 1], positions, parameter: 0 };
    for positions in [&[0.0][..], &[1.0, 1.0], &[1.0, 0.0], &[0.0, f32::NAN]] {
        assert_eq!(build(&[clip(0), clip(1), space(positions)], 1), problem(2, GraphProblem::Positions));
    }
    let plane = |points: &'static [[f32; 2]], triangles: &'static [[usize; 3]]| Node::Space2d {
        children: &[0, 1, 2],
        points,
        triangles,
        x: 0,
        y: 0,
    };
    let points: &[[f32; 2]] = &[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
    assert_eq!(build(&[clip(0), clip(1), clip(2), plane(points, &[[0, 1, 2]])], 1), Ok(3));
    assert_eq!(
        build(&[clip(0), clip(1), clip(2), plane(&points[..2], &[[0, 1, 2]])], 1),
        problem(3, GraphProblem::Positions)
    );
    for triangles in [&[][..], &[[0, 1, 3]], &[[0, 1, 1]]] {
        assert_eq!(
            build(&[clip(0), clip(1), clip(2), plane(points, triangles)], 1),
            problem(3, GraphProblem::Triangles)
        );
    }
    let collinear: &[[f32; 2]] = &[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]];
    assert_eq!(
        build(&[clip(0), clip(1), clip(2), plane(collinear, &[[0, 1, 2]])], 1),
        problem(3, GraphProblem::Triangles)
    );
    // Too little memory.
    let nodes = [clip(0), clip(1), lerp(0, 1, 0)];
    let small = desc(&nodes, 1);
    let mut memory = vec![0u8; BlendGraph::required_bytes(&small, 5).unwrap() / 2];
    assert!(matches!(BlendGraph::new(&Arena::new(&mut memory), skeleton, &small), Err(Error::ArenaExhausted { .. })));

    // Jobs: every bad input refused before anything is written or decoded.
    let sum_children = [Weighted { node: 0, weight: 1, mask: None }, Weighted { node: 1, weight: 2, mask: None }];
    let nodes = [clip(0), clip(1), Node::WeightedSum { children: &sum_children }, lerp(2, 0, 0)];
    let desc = desc(&nodes, 3);
    let mut memory = graph_memory(&desc, 5);
    let arena = Arena::new(&mut memory);
    let mut graph = BlendGraph::new(&arena, skeleton, &desc).expect("graph");
    let clips = [asset.clip(0).unwrap(), asset.clip(1).unwrap(), asset.clip(2).unwrap()];
    let leaf = |c: usize, time: f32| Leaf { clip: &clips[c], time, playback: Playback::Loop };
    let sentinel = SoaTransform::IDENTITY;
    let mut check = |leaves: &[Leaf<'_>], params: &[f32], output_len: usize, expected: Error| {
        let mut output = vec![sentinel; output_len];
        let result = BlendGraphJob { graph: &mut graph, skeleton, leaves, params, output: &mut output }.run();
        assert_eq!(result, Err(expected));
        assert!(output.iter().all(|t| bits(core::slice::from_ref(t)) == bits(&[sentinel])));
        assert_eq!((graph.decoded_frames(0), graph.decoded_frames(1)), (Some(0), Some(0)));
    };
    let good = [leaf(0, 0.1), leaf(1, 0.2)];
    check(&good[..1], &[0.5, 1.0, 1.0], 2, Error::BufferLength { buffer: Buffer::GraphLeaves, expected: 2, actual: 1 });
    check(&good, &[0.5, 1.0], 2, Error::BufferLength { buffer: Buffer::GraphParameters, expected: 3, actual: 2 });
    check(&good, &[0.5, 1.0, 1.0], 1, Error::BufferLength { buffer: Buffer::SoaPose, expected: 2, actual: 1 });
    check(
        &[leaf(0, f32::NAN), leaf(1, 0.2)],
        &[0.5, 1.0, 1.0],
        2,
        Error::NonFinite { buffer: Buffer::SampleTime, index: 0 },
    );
    check(&good, &[0.5, f32::INFINITY, 1.0], 2, Error::InvalidGraphParameter { parameter: 1 });
    check(&good, &[f32::NAN, 1.0, 1.0], 2, Error::InvalidGraphParameter { parameter: 0 });
    // A lerp's parameter may be anything finite (clamped); a sum's weight may not be negative.
    check(&good, &[0.5, 1.0, -0.1], 2, Error::InvalidGraphParameter { parameter: 2 });
    // A clip of another skeleton, and a skeleton of another size.
    let (other_skeleton, other_clips, _) = synthetic_asset(9);
    let other_blob = bake::bake(&other_skeleton, &other_clips[..1], KeyFormat::F32).expect("bake");
    let other = Asset::load(other_blob.bytes()).expect("load");
    let foreign = other.clip(0).unwrap();
    let foreign_leaf = Leaf { clip: &foreign, time: 0.0, playback: Playback::Loop };
    check(
        &[leaf(0, 0.1), foreign_leaf],
        &[0.5, 1.0, 1.0],
        2,
        Error::BufferLength { buffer: Buffer::ClipJoints, expected: 5, actual: 9 },
    );
    let mut output = vec![sentinel; 3];
    let job = BlendGraphJob {
        graph: &mut graph,
        skeleton: other.skeleton(),
        leaves: &good,
        params: &[0.5, 1.0, 1.0],
        output: &mut output,
    };
    assert_eq!(job.validate(), Err(Error::StateMismatch));
    // And the graph still works.
    let mut output = vec![sentinel; 2];
    BlendGraphJob { graph: &mut graph, skeleton, leaves: &good, params: &[0.5, 1.0, 1.0], output: &mut output }
        .run()
        .expect("run");
}

#[test]
fn a_graph_suspended_and_resumed_in_copied_memory_carries_on() {
    let (_, _, blob) = synthetic_asset(13);
    let asset = Asset::load(blob.bytes()).expect("load");
    let harness = Harness::new(&asset);
    let specs = vec![Spec::Clip(0), Spec::Clip(1), Spec::Lerp { a: 0, b: 1, weight: 0, mask: None }];
    let sums = weighted(&specs);
    let graph_nodes = nodes(&specs, &sums);
    let desc = desc(&graph_nodes, 1);
    // Aligned memory for both copies, so the arenas carve the same offsets.
    let words = BlendGraph::required_bytes(&desc, 13).expect("size").div_ceil(64) + 1;
    let (mut first, mut second) = (vec![Chunk::ZERO; words], vec![Chunk::ZERO; words]);
    let mut states = [Default::default(); 2];
    let mut times = [0.0f32, 0.3];
    {
        let arena = Arena::new(Chunk::bytes_mut(&mut first));
        let mut graph = BlendGraph::new(&arena, asset.skeleton(), &desc).expect("graph");
        for _ in 0..5 {
            times = times.map(|t| t + 1.0 / 60.0);
            harness.run(&mut graph, &times, &[0.4]).expect("run");
        }
        assert_eq!(
            graph.suspend(&mut states[..1]),
            Err(Error::BufferLength { buffer: Buffer::GraphLeaves, expected: 2, actual: 1 })
        );
        graph.suspend(&mut states).expect("suspend");
    }
    second.copy_from_slice(&first);
    let arena = Arena::new(Chunk::bytes_mut(&mut second));
    assert!(matches!(
        BlendGraph::resume(&arena, asset.skeleton(), &desc, &states[..1]),
        Err(Error::BufferLength { .. })
    ));
    let mut graph = BlendGraph::resume(&arena, asset.skeleton(), &desc, &states).expect("resume");
    let decoded = [0, 1].map(|l| graph.decoded_frames(l).unwrap());
    for _ in 0..4 {
        times = times.map(|t| t + 1.0 / 60.0);
        let out = harness.run(&mut graph, &times, &[0.4]).expect("run");
        assert_eq!(bits(&out), bits(&harness.once(&specs, &times, &[0.4])));
    }
    // The contexts decode what a graph that never stopped decodes over the same frames.
    let mut memory = graph_memory(&desc, 13);
    let arena = Arena::new(&mut memory);
    let mut unbroken = BlendGraph::new(&arena, asset.skeleton(), &desc).expect("graph");
    let mut times = [0.0f32, 0.3];
    let mut at_five = [0; 2];
    for frame in 0..9 {
        times = times.map(|t| t + 1.0 / 60.0);
        harness.run(&mut unbroken, &times, &[0.4]).expect("run");
        if frame == 4 {
            at_five = [0, 1].map(|l| unbroken.decoded_frames(l).unwrap());
        }
    }
    let unbroken_decoded = [0, 1].map(|l| unbroken.decoded_frames(l).unwrap() - at_five[l]);
    assert_eq!(decoded, at_five);
    assert_eq!([0, 1].map(|l| graph.decoded_frames(l).unwrap() - decoded[l]), unbroken_decoded);
}
