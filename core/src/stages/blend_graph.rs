//! Blend graph: a tree (or DAG) of blend nodes built once at load time, evaluated each frame by one loop over a
//! flat array with the blending kernels; a subtree no weight reaches is neither sampled nor blended.
//!
//! The nodes ([`Node`]) sit in one caller array, children before parents; the last node is the root. Leaves
//! sample clips; inner nodes blend what their children produced:
//! - `Lerp { a, b, weight: i }` gives `i·A + (1 − i)·B` per joint (the textbook's convention: `i` weights A;
//!   rotations by nlerp along the shortest arc), an optional mask multiplying `i` joint by joint;
//! - `WeightedSum` is a [`BlendingJob`] over its children (weights normalized by their sum, the rest pose
//!   filling in below `DEFAULT_THRESHOLD`), each child optionally masked;
//! - `Additive` applies the delta of its second child from a reference pose (the skeleton's rest pose unless
//!   given) to its first, weighted and optionally masked, as a character's additive layer does;
//! - `Space1d` lerps the two children whose positions bracket its parameter (clamped to the ends); `Space2d`
//!   takes the barycentric weights of the triangle holding its point (outside every triangle, those of the
//!   nearest point on their edges);
//! - `Chunks` samples several leaves into one pose, each joint from the last leaf whose clip stores a track for
//!   it (the first leaf's sample where none does): clips split by bone masks at bake (Just Cause 3's
//!   decomposition; see [`SamplingJob::run_chunk`]). The chunks of one clip give its unsplit sample bit for bit;
//!   chunks of different clips (a walk's legs, a rifle's arms) play on one skeleton.
//!
//! Pruning: each frame one pass from the root down marks the children each needed node reads at its parameters;
//! a node no needed node reads is skipped. A node left reading one child (a lerp at 0 or 1, a sum with one
//! unmasked child at or above the threshold, a blend space on a sample, an additive at weight 0) copies it, so the
//! output is bit for bit that of the graph with the unread subtree deleted. Leaves keep their own time: the
//! caller's clocks run whether or not a leaf is read, and a leaf's context decodes what it needs when it is read
//! again.
//!
//! Memory ([`BlendGraph`], the state): one sampling context per leaf and the scratch poses, as many as the
//! evaluation order keeps alive at once (post-order from the root, a pose freed after its last reader: a chain
//! of lerps needs three, a balanced tree of eight leaves five), all carved at build time
//! ([`BlendGraph::required_bytes`]).
//!
//! Layout: poses SoA, `num_soa_joints` lane groups; masks one `F4` per lane group, padding lanes included.
//! Space: local. Units: weights and blend-space coordinates are plain numbers; leaf times in seconds.
//!
//! Precision: the kernels' (see `blending`): one nlerp normalization per blend; blend-space weights in `f32`.
//!
//! Errors: building checks every node once ([`BlendGraph::new`]); a job checks its inputs before anything is
//! written ([`BlendGraphJob::validate`]).

use crate::arena::Arena;
use crate::data::clip::Clip;
use crate::data::skeleton::MAX_JOINTS;
use crate::data::skeleton::Skeleton;
use crate::error::{Buffer, Error, GraphProblem, Limit};
use crate::math::{F4, SoaTransform, interpolate};
use crate::stages::blending::{BlendLayer, BlendingJob, DEFAULT_THRESHOLD, MAX_LAYERS, add_in_place, additive_delta};
use crate::stages::sampling::{ContextState, Interpolation, Playback, SamplingContext, SamplingJob, stored_lanes};

/// Most nodes one graph holds.
pub const MAX_NODES: usize = 64;

/// Most leaves (sampled clips) one graph holds.
pub const MAX_LEAVES: usize = 32;

/// A child of a [`Node::WeightedSum`].
#[derive(Clone, Copy, Debug)]
pub struct Weighted<'a> {
    /// The child node (an earlier index).
    pub node: usize,
    /// The parameter holding its weight (finite, ≥ 0); a weight of 0 leaves the child unread.
    pub weight: usize,
    /// Optional bone mask multiplying the weight per joint (entries in `[0, 1]`).
    pub mask: Option<&'a [F4]>,
}

/// One node of a blend graph. Node fields index earlier nodes; `weight`, `parameter`, `x` and `y` index the
/// parameters a job is given each frame.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    /// Leaf `leaf`'s clip at its time (the job's `leaves[leaf]`). Leaves number `0..n`, each once.
    Clip {
        /// The leaf.
        leaf: usize,
    },
    /// `i·A + (1 − i)·B`, `i` the parameter clamped to `[0, 1]` (times the mask's weight per joint).
    Lerp {
        /// Child A, all of it at `i = 1`.
        a: usize,
        /// Child B, all of it at `i = 0`.
        b: usize,
        /// The parameter `i`.
        weight: usize,
        /// Optional per-joint factors of `i` (entries in `[0, 1]`).
        mask: Option<&'a [F4]>,
    },
    /// The normalized weighted sum of 1 to `MAX_LAYERS` children.
    WeightedSum {
        /// The children and their weights.
        children: &'a [Weighted<'a>],
    },
    /// `base ∘ (delta − reference)^w`, `w` the parameter (finite; negative subtracts; 0 leaves `delta` unread).
    Additive {
        /// The pose the delta applies to.
        base: usize,
        /// The pose whose difference from `reference` is applied.
        delta: usize,
        /// The parameter `w`.
        weight: usize,
        /// Optional per-joint factors of `w` (entries in `[0, 1]`).
        mask: Option<&'a [F4]>,
        /// The pose the delta is taken from (`num_soa_joints` lane groups, no zero scale); the rest pose if `None`.
        reference: Option<&'a [SoaTransform]>,
    },
    /// A 1-D blend space: the two children around the parameter along `positions` (strictly increasing, one per
    /// child), lerped linearly; clamped at the ends.
    Space1d {
        /// The samples (1 to `MAX_LAYERS`).
        children: &'a [usize],
        /// Each sample's position.
        positions: &'a [f32],
        /// The parameter.
        parameter: usize,
    },
    /// A 2-D blend space: the barycentric weights of the triangle holding `(x, y)`, or of the nearest point on
    /// the triangles' edges outside them.
    Space2d {
        /// The samples (3 to `MAX_LAYERS`).
        children: &'a [usize],
        /// Each sample's position.
        points: &'a [[f32; 2]],
        /// Triangles over the samples, by index into `children`; none of zero area.
        triangles: &'a [[usize; 3]],
        /// The parameter for the first coordinate.
        x: usize,
        /// The parameter for the second coordinate.
        y: usize,
    },
    /// Leaves sampled into one pose in order, each writing the joints its clip stores a track for (chunks of
    /// clips split by bone masks); the first is sampled whole. Like `Clip`, a node with no children.
    Chunks {
        /// The leaves (1 to `MAX_LEAVES`; numbered with the `Clip` nodes' leaves, each once in the graph).
        leaves: &'a [usize],
    },
}

impl Node<'_> {
    fn num_children(&self) -> usize {
        match *self {
            Node::Clip { .. } | Node::Chunks { .. } => 0,
            Node::Lerp { .. } | Node::Additive { .. } => 2,
            Node::WeightedSum { children } => children.len(),
            Node::Space1d { children, .. } | Node::Space2d { children, .. } => children.len(),
        }
    }

    fn child(&self, k: usize) -> usize {
        match *self {
            Node::Clip { .. } | Node::Chunks { .. } => usize::MAX,
            Node::Lerp { a, b, .. } => [a, b][k],
            Node::Additive { base, delta, .. } => [base, delta][k],
            Node::WeightedSum { children } => children[k].node,
            Node::Space1d { children, .. } | Node::Space2d { children, .. } => children[k],
        }
    }

    /// The parameters the node reads, and whether each must be ≥ 0 (a sum's weights).
    fn parameters(&self, mut f: impl FnMut(usize, bool)) {
        match *self {
            Node::Clip { .. } | Node::Chunks { .. } => {}
            Node::Lerp { weight, .. } | Node::Additive { weight, .. } => f(weight, false),
            Node::WeightedSum { children } => children.iter().for_each(|c| f(c.weight, true)),
            Node::Space1d { parameter, .. } => f(parameter, false),
            Node::Space2d { x, y, .. } => {
                f(x, false);
                f(y, false);
            }
        }
    }
}

/// What a graph is built from.
#[derive(Clone, Copy, Debug)]
pub struct GraphDesc<'a> {
    /// The nodes, children before parents; the last is the root.
    pub nodes: &'a [Node<'a>],
    /// How many parameters a job gives (every parameter index is below it).
    pub num_params: usize,
    /// Sizes each leaf's context's compressed-segment decoders (see [`SamplingContext::with_decoders`]).
    pub max_tracks: usize,
    /// How the leaves interpolate between keys.
    pub interpolation: Interpolation,
}

/// The root writes the job's output instead of a scratch pose.
const OUTPUT: u8 = u8::MAX;

/// One node in evaluation order.
#[derive(Clone, Copy, Debug)]
struct Step {
    node: u8,
    /// Its scratch pose, or `OUTPUT`.
    slot: u8,
    /// The smallest and largest real-joint weight of a `Lerp`'s or `Additive`'s mask (1 and 1 without one).
    mask_low: f32,
    mask_high: f32,
}

/// The evaluation order and scratch poses of a validated graph.
struct Plan {
    steps: heapless::Vec<Step, MAX_NODES>,
    slot_of: [u8; MAX_NODES],
    slots: usize,
    leaves: usize,
    additive: bool,
}

/// Checks every node and works out the plan: post-order from the root, a scratch pose per result while a later
/// node still reads it.
fn plan(nodes: &[Node<'_>], num_joints: usize, num_params: usize) -> Result<Plan, Error> {
    let len = nodes.len();
    if len > MAX_NODES {
        return Err(Error::Limit { what: Limit::GraphNodes, value: len, max: MAX_NODES });
    }
    if len == 0 {
        return Err(Error::InvalidGraph { node: 0, problem: GraphProblem::Children });
    }
    let groups = crate::math::num_soa_joints(num_joints);
    let mut leaf_node = [usize::MAX; MAX_LEAVES];
    let mut leaves = 0;
    // Each lerp's and additive's mask bounds, found while checking the mask.
    let mut bounds = [(1.0f32, 1.0f32); MAX_NODES];
    for (i, node) in nodes.iter().enumerate() {
        let invalid = |problem| Error::InvalidGraph { node: i, problem };
        if (0..node.num_children()).any(|k| node.child(k) >= i) {
            return Err(invalid(GraphProblem::Child));
        }
        let mut parameter_ok = true;
        node.parameters(|p, _| parameter_ok &= p < num_params);
        if !parameter_ok {
            return Err(invalid(GraphProblem::Parameter));
        }
        let mut take_leaf = |leaf: usize| {
            if leaf >= MAX_LEAVES {
                return Err(Error::Limit { what: Limit::GraphLeaves, value: leaf + 1, max: MAX_LEAVES });
            }
            if leaf_node[leaf] != usize::MAX {
                return Err(invalid(GraphProblem::Leaf));
            }
            leaf_node[leaf] = i;
            leaves += 1;
            Ok(())
        };
        match *node {
            Node::Clip { leaf } => take_leaf(leaf)?,
            Node::Chunks { leaves } => {
                if leaves.is_empty() {
                    return Err(invalid(GraphProblem::Children));
                }
                leaves.iter().try_for_each(|&leaf| take_leaf(leaf))?;
            }
            Node::Lerp { mask, .. } | Node::Additive { mask, .. } => {
                bounds[i] = mask_bounds(mask, num_joints).map_err(|_| invalid(GraphProblem::Mask))?;
            }
            Node::WeightedSum { children } => {
                if children.is_empty() || children.len() > MAX_LAYERS {
                    return Err(invalid(GraphProblem::Children));
                }
                for child in children {
                    mask_bounds(child.mask, num_joints).map_err(|_| invalid(GraphProblem::Mask))?;
                }
            }
            Node::Space1d { children, positions, .. } => {
                if children.is_empty() || children.len() > MAX_LAYERS {
                    return Err(invalid(GraphProblem::Children));
                }
                let increasing = positions.windows(2).all(|w| w[0] < w[1]);
                if positions.len() != children.len() || !increasing || positions.iter().any(|p| !p.is_finite()) {
                    return Err(invalid(GraphProblem::Positions));
                }
            }
            Node::Space2d { children, points, triangles, .. } => {
                if children.len() < 3 || children.len() > MAX_LAYERS {
                    return Err(invalid(GraphProblem::Children));
                }
                if points.len() != children.len() || points.iter().flatten().any(|c| !c.is_finite()) {
                    return Err(invalid(GraphProblem::Positions));
                }
                let corner_ok = |t: &[usize; 3]| t.iter().all(|&c| c < points.len());
                if triangles.is_empty() || !triangles.iter().all(|t| corner_ok(t) && has_area(points, *t)) {
                    return Err(invalid(GraphProblem::Triangles));
                }
            }
        }
        if let Node::Additive { reference: Some(reference), .. } = *node {
            let zero_scale = reference.iter().any(|r| {
                let s = r.scale;
                (s.x.cmp_eq(F4::ZERO) | s.y.cmp_eq(F4::ZERO) | s.z.cmp_eq(F4::ZERO) | s.x.non_finite_mask()).any_set()
            });
            if reference.len() != groups || zero_scale {
                return Err(invalid(GraphProblem::Reference));
            }
        }
    }
    // `leaves` distinct indices are `0..leaves` unless one lies at or past the count.
    if let Some(&at) = leaf_node[leaves..].iter().find(|&&n| n != usize::MAX) {
        return Err(Error::InvalidGraph { node: at, problem: GraphProblem::Leaf });
    }

    // Post-order from the root without recursion; `uses` counts each reachable node's readers.
    let mut order = heapless::Vec::<u8, MAX_NODES>::new();
    let mut visited = [false; MAX_NODES];
    let mut uses = [0u8; MAX_NODES];
    let mut stack = heapless::Vec::<(usize, usize), MAX_NODES>::new();
    let root = len - 1;
    visited[root] = true;
    let _ = stack.push((root, 0));
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if *next < nodes[node].num_children() {
            let child = nodes[node].child(*next);
            *next += 1;
            uses[child] += 1;
            if !visited[child] {
                visited[child] = true;
                // Children come before their parents, so the stack never holds more than the nodes.
                let _ = stack.push((child, 0));
            }
        } else {
            stack.pop();
            let _ = order.push(node as u8);
        }
    }

    let mut slot_of = [OUTPUT; MAX_NODES];
    let mut busy = [false; MAX_NODES];
    let (mut slots, mut additive) = (0, false);
    let mut steps = heapless::Vec::new();
    for &node in &order {
        let n = usize::from(node);
        if n != root {
            let free = busy.iter().position(|b| !b).unwrap_or(MAX_NODES - 1);
            busy[free] = true;
            slot_of[n] = free as u8;
            slots = slots.max(free + 1);
        }
        for k in 0..nodes[n].num_children() {
            let child = nodes[n].child(k);
            uses[child] -= 1;
            if uses[child] == 0 && slot_of[child] != OUTPUT {
                busy[usize::from(slot_of[child])] = false;
            }
        }
        let (mask_low, mask_high) = bounds[n];
        additive |= matches!(nodes[n], Node::Additive { .. });
        let _ = steps.push(Step { node, slot: slot_of[n], mask_low, mask_high });
    }
    Ok(Plan { steps, slot_of, slots, leaves, additive })
}

/// The smallest and largest weight of `mask` over the real joints, after checking it has one entry in `[0, 1]`
/// per lane of `num_soa_joints` lane groups (padding lanes included).
fn mask_bounds(mask: Option<&[F4]>, num_joints: usize) -> Result<(f32, f32), Error> {
    let Some(mask) = mask else { return Ok((1.0, 1.0)) };
    let invalid = Error::InvalidGraph { node: 0, problem: GraphProblem::Mask };
    if mask.len() != crate::math::num_soa_joints(num_joints) {
        return Err(invalid);
    }
    let (mut low, mut high) = (f32::INFINITY, f32::NEG_INFINITY);
    for (j, w) in mask.iter().flat_map(|m| m.to_array()).enumerate() {
        if !(0.0..=1.0).contains(&w) {
            return Err(invalid);
        }
        if j < num_joints {
            (low, high) = (low.min(w), high.max(w));
        }
    }
    Ok((low, high))
}

fn has_area(points: &[[f32; 2]], [a, b, c]: [usize; 3]) -> bool {
    let (u, v) = (sub(points[b], points[a]), sub(points[c], points[a]));
    let cross = u[0] * v[1] - u[1] * v[0];
    cross.abs() > f32::EPSILON * (dot(u, u) + dot(v, v))
}

fn sub(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

fn dot(a: [f32; 2], b: [f32; 2]) -> f32 {
    a[0] * b[0] + a[1] * b[1]
}

/// The corners (indices into the samples) and weights of `p` in a 2-D blend space: barycentric in the first
/// triangle holding it, else on the nearest point of any triangle's edges (one weight then 0).
fn locate(points: &[[f32; 2]], triangles: &[[usize; 3]], p: [f32; 2]) -> ([usize; 3], [f32; 3]) {
    // Barycentric coordinates this far below 0 still count as inside: a point on a shared edge is in both.
    const INSIDE: f32 = -1e-6;
    for &[a, b, c] in triangles {
        let (u, v, w) = (sub(points[b], points[a]), sub(points[c], points[a]), sub(p, points[a]));
        let (uu, uv, vv, wu, wv) = (dot(u, u), dot(u, v), dot(v, v), dot(w, u), dot(w, v));
        let denominator = uu * vv - uv * uv;
        let s = (vv * wu - uv * wv) / denominator;
        let t = (uu * wv - uv * wu) / denominator;
        let r = 1.0 - s - t;
        if r >= INSIDE && s >= INSIDE && t >= INSIDE {
            let weights = [r.max(0.0), s.max(0.0), t.max(0.0)];
            let sum = weights[0] + weights[1] + weights[2];
            return ([a, b, c], weights.map(|x| x / sum));
        }
    }
    let mut best = (f32::INFINITY, [0, 0, 0], [1.0, 0.0, 0.0]);
    for &[a, b, c] in triangles {
        for (from, to, other) in [(a, b, c), (b, c, a), (c, a, b)] {
            let edge = sub(points[to], points[from]);
            let t = (dot(sub(p, points[from]), edge) / dot(edge, edge)).clamp(0.0, 1.0);
            let offset = sub(p, [points[from][0] + t * edge[0], points[from][1] + t * edge[1]]);
            let distance = dot(offset, offset);
            if distance < best.0 {
                best = (distance, [from, to, other], [1.0 - t, t, 0.0]);
            }
        }
    }
    (best.1, best.2)
}

/// A leaf's input for one frame.
#[derive(Clone, Copy, Debug)]
pub struct Leaf<'a> {
    /// The clip (of the graph's skeleton).
    pub clip: &'a Clip<'a>,
    /// Seconds from the clip's first frame.
    pub time: f32,
    /// Looping or clamped at the clip's ends.
    pub playback: Playback,
}

/// A graph built for one skeleton: its nodes, evaluation order, one sampling context per leaf and the scratch
/// poses, all in caller memory.
pub struct BlendGraph<'a> {
    nodes: &'a [Node<'a>],
    steps: heapless::Vec<Step, MAX_NODES>,
    slot_of: [u8; MAX_NODES],
    contexts: heapless::Vec<SamplingContext<'a>, MAX_LEAVES>,
    /// `slots × num_soa_joints` transforms.
    scratch: &'a mut [SoaTransform],
    /// An additive node's delta and per-joint weights (empty without additive nodes).
    delta: &'a mut [SoaTransform],
    weights: &'a mut [F4],
    num_joints: usize,
    num_params: usize,
}

impl core::fmt::Debug for BlendGraph<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlendGraph")
            .field("nodes", &self.nodes.len())
            .field("leaves", &self.contexts.len())
            .field("scratch_poses", &self.scratch_poses())
            .finish()
    }
}

impl<'a> BlendGraph<'a> {
    /// Bytes an arena needs for [`BlendGraph::new`] with `desc` on a `num_joints` skeleton.
    ///
    /// Errors: as [`BlendGraph::new`], but for `ArenaExhausted`.
    pub fn required_bytes(desc: &GraphDesc<'_>, num_joints: usize) -> Result<usize, Error> {
        let plan = plan(desc.nodes, num_joints, desc.num_params)?;
        let groups = crate::math::num_soa_joints(num_joints);
        let context = SamplingContext::required_bytes_for(num_joints, desc.max_tracks, desc.interpolation);
        let additive = if plan.additive {
            Arena::required_bytes::<SoaTransform>(groups) + Arena::required_bytes::<F4>(groups)
        } else {
            0
        };
        Ok(Arena::required_bytes::<SoaTransform>(plan.slots * groups) + additive + plan.leaves * context)
    }

    /// Checks every node and carves the graph's memory out of `arena`.
    ///
    /// Errors: `Limit` (`GraphNodes`, `GraphLeaves`); `InvalidGraph { node, problem }` for the first node that
    /// names a later child, a leaf twice or past the count, a parameter at or past `num_params`, a mask or
    /// reference of the wrong length or with a weight outside `[0, 1]` (a zero scale), a child count outside its
    /// range, or blend-space positions and triangles that are not usable (see [`GraphProblem`]); `JointCount`;
    /// `ArenaExhausted`.
    pub fn new(arena: &'a Arena<'_>, skeleton: &Skeleton<'_>, desc: &GraphDesc<'a>) -> Result<BlendGraph<'a>, Error> {
        BlendGraph::build(arena, skeleton, desc, None)
    }

    /// [`BlendGraph::new`] over memory a graph of the same description used (carved from an arena over the same
    /// bytes, or a copy at the same alignment), each leaf's context picking up from its state in `states` (from
    /// [`BlendGraph::suspend`]): how a graph lives in memory that moves between frames (the C ABI's).
    ///
    /// Errors: as `new`; `BufferLength` (`GraphLeaves`) unless `states` has one state per leaf. A state that does
    /// not belong to the memory gives wrong poses until its leaf's clip changes, never undefined behaviour.
    pub fn resume(
        arena: &'a Arena<'_>,
        skeleton: &Skeleton<'_>,
        desc: &GraphDesc<'a>,
        states: &[ContextState],
    ) -> Result<BlendGraph<'a>, Error> {
        BlendGraph::build(arena, skeleton, desc, Some(states))
    }

    /// Each leaf's context's state, for [`BlendGraph::resume`].
    ///
    /// Errors: `BufferLength` (`GraphLeaves`) unless `states` has one entry per leaf; nothing is written then.
    pub fn suspend(&self, states: &mut [ContextState]) -> Result<(), Error> {
        crate::error::check_len(Buffer::GraphLeaves, self.contexts.len(), states.len())?;
        for (state, context) in states.iter_mut().zip(&self.contexts) {
            *state = context.suspend();
        }
        Ok(())
    }

    fn build(
        arena: &'a Arena<'_>,
        skeleton: &Skeleton<'_>,
        desc: &GraphDesc<'a>,
        states: Option<&[ContextState]>,
    ) -> Result<BlendGraph<'a>, Error> {
        let num_joints = skeleton.num_joints();
        let plan = plan(desc.nodes, num_joints, desc.num_params)?;
        if let Some(states) = states {
            crate::error::check_len(Buffer::GraphLeaves, plan.leaves, states.len())?;
        }
        let groups = skeleton.num_soa_joints();
        let (tracks, interpolation) = (desc.max_tracks, desc.interpolation);
        let mut contexts = heapless::Vec::new();
        for leaf in 0..plan.leaves {
            let context = match states {
                Some(states) => SamplingContext::resume(arena, num_joints, tracks, interpolation, &states[leaf])?,
                None => SamplingContext::with_interpolation(arena, num_joints, tracks, interpolation)?,
            };
            let _ = contexts.push(context);
        }
        let extra = if plan.additive { groups } else { 0 };
        Ok(BlendGraph {
            nodes: desc.nodes,
            steps: plan.steps,
            slot_of: plan.slot_of,
            contexts,
            scratch: arena.carve(plan.slots * groups)?,
            delta: arena.carve(extra)?,
            weights: arena.carve(extra)?,
            num_joints,
            num_params: desc.num_params,
        })
    }

    /// The leaves a job gives.
    pub fn num_leaves(&self) -> usize {
        self.contexts.len()
    }

    /// The parameters a job gives.
    pub fn num_params(&self) -> usize {
        self.num_params
    }

    /// Scratch poses the evaluation keeps (the most alive at once, the root's output not counted).
    pub fn scratch_poses(&self) -> usize {
        self.scratch.len() / crate::math::num_soa_joints(self.num_joints)
    }

    /// Frames leaf `leaf`'s context has decoded since the graph was built (`None` past the leaves): a leaf
    /// left unread does not move it.
    pub fn decoded_frames(&self, leaf: usize) -> Option<u64> {
        self.contexts.get(leaf).map(SamplingContext::decoded_frames)
    }
}

/// What a node does this frame, given its parameters.
#[derive(Clone, Copy, Debug)]
enum Read<'a> {
    /// No needed node reads it.
    Nothing,
    Sample(usize),
    Rest,
    Copy(usize),
    /// `t·A + (1 − t)·B`, `t` times the mask per joint.
    Lerp {
        a: usize,
        b: usize,
        t: f32,
        mask: Option<&'a [F4]>,
    },
    /// A weighted sum's children (those whose weight is above 0 are read).
    Sum(&'a [Weighted<'a>]),
    Triangle {
        nodes: [usize; 3],
        weights: [f32; 3],
    },
    /// Leaves sampled in order into one pose, each writing its clip's stored joints after the first.
    Chunks(&'a [usize]),
    Add {
        base: usize,
        delta: usize,
        weight: f32,
        mask: Option<&'a [F4]>,
        reference: Option<&'a [SoaTransform]>,
    },
}

impl Read<'_> {
    /// Calls `f` for each node this read takes a pose from.
    fn inputs(&self, params: &[f32], mut f: impl FnMut(usize)) {
        match *self {
            Read::Nothing | Read::Sample(_) | Read::Rest | Read::Chunks(_) => {}
            Read::Copy(c) => f(c),
            Read::Lerp { a, b, .. } => {
                f(a);
                f(b);
            }
            Read::Sum(children) => children.iter().filter(|c| params[c.weight] > 0.0).for_each(|c| f(c.node)),
            Read::Triangle { nodes, .. } => nodes.iter().for_each(|&n| f(n)),
            Read::Add { base, delta, .. } => {
                f(base);
                f(delta);
            }
        }
    }
}

/// What `node` reads at `params` (validated).
fn decide<'a>(node: &Node<'a>, step: &Step, params: &[f32]) -> Read<'a> {
    match *node {
        Node::Clip { leaf } => Read::Sample(leaf),
        Node::Lerp { a, b, weight, mask } => {
            let t = params[weight].clamp(0.0, 1.0);
            if t * step.mask_high == 0.0 {
                Read::Copy(b)
            } else if t * step.mask_low == 1.0 {
                Read::Copy(a)
            } else {
                Read::Lerp { a, b, t, mask }
            }
        }
        Node::WeightedSum { children } => {
            let mut read = children.iter().filter(|c| params[c.weight] > 0.0);
            match (read.next(), read.next()) {
                (None, _) => Read::Rest,
                (Some(only), None) if only.mask.is_none() && params[only.weight] >= DEFAULT_THRESHOLD => {
                    Read::Copy(only.node)
                }
                _ => Read::Sum(children),
            }
        }
        Node::Additive { base, delta, weight, mask, reference } => {
            let w = params[weight];
            if w * step.mask_high == 0.0 {
                Read::Copy(base)
            } else {
                Read::Add { base, delta, weight: w, mask, reference }
            }
        }
        Node::Space1d { children, positions, parameter } => {
            let last = positions.len() - 1;
            let p = params[parameter].clamp(positions[0], positions[last]);
            let k = positions[..last].iter().rposition(|&q| q <= p).unwrap_or(0);
            if k == last || p == positions[k] {
                return Read::Copy(children[k]);
            }
            let t = (p - positions[k]) / (positions[k + 1] - positions[k]);
            Read::Lerp { a: children[k + 1], b: children[k], t, mask: None }.simplified()
        }
        Node::Space2d { children, points, triangles, x, y } => {
            let (corners, weights) = locate(points, triangles, [params[x], params[y]]);
            // The corners with weight, in order: one is copied, two lerped, three summed.
            let mut read = [(0, 0.0); 3];
            let mut count = 0;
            for (c, w) in corners.into_iter().zip(weights).filter(|&(_, w)| w > 0.0) {
                read[count] = (children[c], w);
                count += 1;
            }
            let [(n0, w0), (n1, w1), (n2, w2)] = read;
            match count {
                0 | 1 => Read::Copy(n0),
                2 => Read::Lerp { a: n1, b: n0, t: w1 / (w0 + w1), mask: None }.simplified(),
                _ => Read::Triangle { nodes: [n0, n1, n2], weights: [w0, w1, w2] },
            }
        }
        Node::Chunks { leaves } => Read::Chunks(leaves),
    }
}

impl Read<'_> {
    /// A lerp that rounding put at an end copies that end.
    fn simplified(self) -> Self {
        match self {
            Read::Lerp { b, t, .. } if t <= 0.0 => Read::Copy(b),
            Read::Lerp { a, t, .. } if t >= 1.0 => Read::Copy(a),
            read => read,
        }
    }
}

/// Evaluates a [`BlendGraph`] into `output` (ozz's job pattern: borrowed buffers in public fields, `validate`,
/// then `run`).
#[derive(Debug)]
pub struct BlendGraphJob<'j, 'a> {
    /// The graph (its contexts remember what they decoded).
    pub graph: &'j mut BlendGraph<'a>,
    /// The skeleton the graph was built for.
    pub skeleton: &'j Skeleton<'j>,
    /// One per leaf of the graph.
    pub leaves: &'j [Leaf<'j>],
    /// One per parameter of the graph; finite, and ≥ 0 where a weighted sum reads it.
    pub params: &'j [f32],
    /// The root's pose, SoA (`num_soa_joints` lane groups).
    pub output: &'j mut [SoaTransform],
}

impl BlendGraphJob<'_, '_> {
    /// O(leaves + parameters + nodes) checks.
    ///
    /// Errors: `StateMismatch` for a skeleton of another joint count than the graph's; `BufferLength`
    /// (`GraphLeaves`, `GraphParameters`, `SoaPose` for the output, `ClipJoints` for a leaf's clip);
    /// `NonFinite` (`SampleTime`, index: the leaf); `InvalidGraphParameter` for a NaN or infinite parameter, or a
    /// negative one a weighted sum reads.
    pub fn validate(&self) -> Result<(), Error> {
        let graph = &*self.graph;
        if self.skeleton.num_joints() != graph.num_joints {
            return Err(Error::StateMismatch);
        }
        crate::error::check_len(Buffer::GraphLeaves, graph.contexts.len(), self.leaves.len())?;
        crate::error::check_len(Buffer::GraphParameters, graph.num_params, self.params.len())?;
        crate::error::check_len(Buffer::SoaPose, self.skeleton.num_soa_joints(), self.output.len())?;
        for (index, leaf) in self.leaves.iter().enumerate() {
            crate::error::check_len(Buffer::ClipJoints, graph.num_joints, leaf.clip.num_joints())?;
            if !leaf.time.is_finite() {
                return Err(Error::NonFinite { buffer: Buffer::SampleTime, index });
            }
        }
        if let Some(parameter) = self.params.iter().position(|p| !p.is_finite()) {
            return Err(Error::InvalidGraphParameter { parameter });
        }
        let mut negative = None;
        for node in graph.nodes {
            node.parameters(|p, weight| {
                if weight && self.params[p] < 0.0 {
                    negative = negative.or(Some(p));
                }
            });
        }
        negative.map_or(Ok(()), |parameter| Err(Error::InvalidGraphParameter { parameter }))
    }

    /// Writes the root's pose, evaluating only the nodes it reads at these parameters.
    pub fn run(&mut self) -> Result<(), Error> {
        self.validate()?;
        let BlendGraph { nodes, steps, slot_of, contexts, scratch, delta, weights, .. } = &mut *self.graph;
        let params = self.params;

        // From the root down: a node is read when a read node takes its pose. The reads are kept root first
        // (an uninitialized vector: a full array of them cost a 3 KiB fill per frame).
        let mut reads = heapless::Vec::<Read<'_>, MAX_NODES>::new();
        let mut needed = [false; MAX_NODES];
        if let Some(root) = steps.last() {
            needed[usize::from(root.node)] = true;
        }
        for step in steps.iter().rev() {
            let node = &nodes[usize::from(step.node)];
            let read = if needed[usize::from(step.node)] { decide(node, step, params) } else { Read::Nothing };
            read.inputs(params, |child| needed[child] = true);
            reads.push(read).map_err(|_| Error::StateMismatch)?;
        }

        let skeleton = self.skeleton;
        let groups = skeleton.num_soa_joints();
        let rest = skeleton.rest_pose();
        for (step, &read) in steps.iter().zip(reads.iter().rev()) {
            if let Read::Nothing = read {
                continue;
            }
            // The node's pose, and the scratch poses around it to read its children from.
            let (out, before, after, at) = if step.slot == OUTPUT {
                (&mut *self.output, &scratch[..], &[][..], usize::MAX)
            } else {
                let at = usize::from(step.slot);
                let (before, rest) = scratch.split_at_mut(at * groups);
                let (out, after) = rest.split_at_mut(groups);
                (out, &*before, &*after, at)
            };
            let pose = |n: usize| -> &[SoaTransform] {
                let slot = usize::from(slot_of[n]);
                if slot < at {
                    &before[slot * groups..][..groups]
                } else {
                    &after[(slot - at - 1) * groups..][..groups]
                }
            };
            match read {
                Read::Nothing => {}
                Read::Sample(leaf) => sampling_job(skeleton, &self.leaves[leaf], &mut contexts[leaf], out).run()?,
                Read::Rest => out.copy_from_slice(rest),
                Read::Copy(child) => out.copy_from_slice(pose(child)),
                Read::Lerp { a, b, t, mask } => {
                    let (a, b, t) = (pose(a), pose(b), F4::splat(t));
                    for (k, out) in out.iter_mut().enumerate() {
                        let w = mask.map_or(t, |m| t * m[k]);
                        *out = interpolate(&b[k], &a[k], w);
                    }
                }
                Read::Sum(children) => {
                    let mut layers = heapless::Vec::<BlendLayer<'_>, MAX_LAYERS>::new();
                    for child in children.iter().filter(|c| params[c.weight] > 0.0) {
                        let layer = BlendLayer {
                            pose: pose(child.node),
                            weight: params[child.weight],
                            joint_weights: child.mask,
                        };
                        layers.push(layer).map_err(|_| Error::StateMismatch)?;
                    }
                    let threshold = DEFAULT_THRESHOLD;
                    BlendingJob { skeleton, layers: &layers, additive: &[], threshold, output: out }.run()?;
                }
                Read::Triangle { nodes, weights } => {
                    let layer = |k: usize| BlendLayer { pose: pose(nodes[k]), weight: weights[k], joint_weights: None };
                    let layers = [layer(0), layer(1), layer(2)];
                    let threshold = DEFAULT_THRESHOLD;
                    BlendingJob { skeleton, layers: &layers, additive: &[], threshold, output: out }.run()?;
                }
                Read::Chunks(leaves) => {
                    // Each later leaf writes the lanes it stores (the last storing a lane wins); the first leaf then
                    // writes the lanes none of them stores (padding lanes among them), so every lane is
                    // interpolated once and holds what sampling the first leaf whole gives it.
                    let mut unstored = [0xFu8; MAX_JOINTS / 4];
                    let mut sample = |leaf: usize, lanes: &[u8; MAX_JOINTS / 4]| {
                        sampling_job(skeleton, &self.leaves[leaf], &mut contexts[leaf], &mut *out).run_lanes(lanes)
                    };
                    for &leaf in &leaves[1..] {
                        let stored = stored_lanes(self.leaves[leaf].clip);
                        unstored[..groups].iter_mut().zip(&stored).for_each(|(lanes, stored)| *lanes &= !stored);
                        sample(leaf, &stored)?;
                    }
                    sample(leaves[0], &unstored)?;
                }
                Read::Add { base, delta: source, weight, mask, reference } => {
                    out.copy_from_slice(pose(base));
                    additive_delta(reference.unwrap_or(rest), pose(source), delta)?;
                    let w = F4::splat(weight);
                    for (k, out) in weights.iter_mut().enumerate() {
                        *out = mask.map_or(w, |m| w * m[k]);
                    }
                    add_in_place(out, delta, weights)?;
                }
            }
        }
        Ok(())
    }
}

/// The job sampling `leaf` through its context into `output`.
fn sampling_job<'j, 'a>(
    skeleton: &'j Skeleton<'j>,
    leaf: &'j Leaf<'j>,
    context: &'j mut SamplingContext<'a>,
    output: &'j mut [SoaTransform],
) -> SamplingJob<'j, 'a> {
    SamplingJob {
        skeleton,
        clip: leaf.clip,
        time: leaf.time,
        playback: leaf.playback,
        context,
        output,
        curves: &mut [],
    }
}
