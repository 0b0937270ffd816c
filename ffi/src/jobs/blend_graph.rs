//! Blend graphs over caller memory: the caller keeps the node array (it is read again on every call, as the
//! core graph borrows it) and a graph state holding each leaf's sampling context between calls.

use super::state::{Header, Prefix, extent, init, open, state_bytes};
use super::{bytes, disjoint, input, job_status, output, read_only, sinew_soa_transform};
use crate::asset::{sinew_asset, stored};
use crate::jobs::sampling::{SINEW_INTERPOLATION_CUBIC, SINEW_INTERPOLATION_LINEAR, SINEW_WRAP_CLAMP, SINEW_WRAP_LOOP};
use crate::status::{
    SINEW_ERROR_INDEX_OUT_OF_RANGE, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_INVALID_DESC, SINEW_ERROR_STATE_MISMATCH,
    SINEW_OK, put, sinew_status,
};
use core::ffi::c_void;
use core::mem::{align_of, size_of};
use sinew::arena::Arena;
use sinew::blend_graph::{BlendGraph, BlendGraphJob, GraphDesc, Leaf, MAX_LEAVES, MAX_NODES, Node, Weighted};
use sinew::clip::Clip;
use sinew::math::{F4, SoaTransform};
use sinew::sampling::{ContextState, Interpolation, Playback};
use sinew::skeleton::Skeleton;

/// `sinew_blend_node::kind`: leaf `leaf`'s clip at its time.
pub const SINEW_BLEND_NODE_CLIP: u32 = 0;
/// `i·A + (1 − i)·B` per joint, `i` parameter `weight` clamped to [0, 1], times `mask` when given.
pub const SINEW_BLEND_NODE_LERP: u32 = 1;
/// The normalized weighted sum of `sum_children` (the rest pose filling in below a summed weight of 0.1).
pub const SINEW_BLEND_NODE_SUM: u32 = 2;
/// Node `b`'s difference from `reference` (the rest pose when NULL) applied to node `a` at parameter `weight`.
pub const SINEW_BLEND_NODE_ADDITIVE: u32 = 3;
/// A 1-D blend space: the two of `children` whose `positions` bracket parameter `weight`.
pub const SINEW_BLEND_NODE_SPACE_1D: u32 = 4;
/// A 2-D blend space: barycentric weights of the triangle holding (parameter `weight`, parameter `y`).
pub const SINEW_BLEND_NODE_SPACE_2D: u32 = 5;
/// Leaves sampled into one pose in order (`children` holds leaf indices, numbered with the `CLIP` nodes'): each
/// after the first writes the joints its clip stores a track for, bit for bit. Reassembles clips split by bone
/// masks at bake (`sinew-bake bake --chunks`), and plays chunks of different clips on one skeleton.
pub const SINEW_BLEND_NODE_CHUNKS: u32 = 6;
/// The most nodes of one graph.
pub const SINEW_MAX_BLEND_NODES: u32 = 64;
/// The most leaves of one graph.
pub const SINEW_MAX_BLEND_LEAVES: u32 = 32;
/// The most children (of sums and blend spaces) and triangles of one graph, all nodes together: a call
/// converts them on its stack (about 12 KiB).
pub const SINEW_MAX_BLEND_EDGES: u32 = 128;
const _: () = assert!(SINEW_MAX_BLEND_NODES as usize == MAX_NODES && SINEW_MAX_BLEND_LEAVES as usize == MAX_LEAVES);
const MAX_EDGES: usize = SINEW_MAX_BLEND_EDGES as usize;

/// A child of a `SINEW_BLEND_NODE_SUM` node.
///
/// Layout: 16 bytes, 8-byte aligned, on 64-bit targets; 12 bytes on 32-bit ones.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_blend_child {
    /// The child node: an earlier index.
    pub node: u32,
    /// The parameter holding its weight (finite, >= 0; 0 leaves the child unread).
    pub weight: u32,
    /// NULL, or a bone mask: `4 * count` floats, 16-byte aligned, each in [0, 1] (padding lanes too).
    pub mask: *const f32,
}

/// One node of a blend graph; the fields a kind does not name are not read. Node indices name earlier nodes
/// of the array (children come first; the last node is the root); parameter indices name `params` entries.
///
/// Layout: 80 bytes, 8-byte aligned, on 64-bit targets; 56 bytes, 4-byte aligned, on 32-bit ones.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_blend_node {
    /// `SINEW_BLEND_NODE_*`.
    pub kind: u32,
    /// `CLIP`: the leaf (leaves number 0 to n - 1, each once).
    pub leaf: u32,
    /// `LERP`: node A (all of it at 1); `ADDITIVE`: the base.
    pub a: u32,
    /// `LERP`: node B (all of it at 0); `ADDITIVE`: the pose whose difference is added.
    pub b: u32,
    /// `LERP`, `ADDITIVE`: the weight's parameter; `SPACE_1D`: the position's; `SPACE_2D`: the first
    /// coordinate's.
    pub weight: u32,
    /// `SPACE_2D`: the second coordinate's parameter.
    pub y: u32,
    /// `SUM`: entries of `sum_children` (1 to 16); `SPACE_1D`: entries of `children` (1 to 16); `SPACE_2D`:
    /// entries of `children` (3 to 16); `CHUNKS`: leaves in `children` (1 to 32).
    pub num_children: u32,
    /// `SPACE_2D`: triangles (at least one).
    pub num_triangles: u32,
    /// `LERP`, `ADDITIVE`: NULL, or a bone mask (`4 * count` floats, 16-byte aligned, each in [0, 1]).
    pub mask: *const f32,
    /// `ADDITIVE`: NULL (the rest pose), or `count` lane groups with no zero scale.
    pub reference: *const sinew_soa_transform,
    /// `SUM`: the children and their weights.
    pub sum_children: *const sinew_blend_child,
    /// `SPACE_1D`, `SPACE_2D`: the sample nodes; `CHUNKS`: the leaves, sampled in order.
    pub children: *const u32,
    /// `SPACE_1D`: one position per child, strictly increasing; `SPACE_2D`: an x, y pair per child.
    pub positions: *const f32,
    /// `SPACE_2D`: three indices into `children` per triangle, no triangle of zero area.
    pub triangles: *const u32,
}

impl Default for sinew_blend_node {
    /// A `CLIP` node of leaf 0, every count 0 and every pointer NULL: a start for Rust callers
    /// (`sinew_blend_node { kind, ..Default::default() }`), as `{0}` is for C.
    fn default() -> Self {
        sinew_blend_node {
            kind: SINEW_BLEND_NODE_CLIP,
            leaf: 0,
            a: 0,
            b: 0,
            weight: 0,
            y: 0,
            num_children: 0,
            num_triangles: 0,
            mask: core::ptr::null(),
            reference: core::ptr::null(),
            sum_children: core::ptr::null(),
            children: core::ptr::null(),
            positions: core::ptr::null(),
            triangles: core::ptr::null(),
        }
    }
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<sinew_blend_node>() == 80 && align_of::<sinew_blend_node>() == 8);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<sinew_blend_child>() == 16);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(size_of::<sinew_blend_node>() == 56 && align_of::<sinew_blend_node>() == 4);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(size_of::<sinew_blend_child>() == 12);

/// A graph: its nodes, its parameter count, and how its leaves sample.
///
/// Layout: 24 bytes, 8-byte aligned, on 64-bit targets.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_blend_graph_desc {
    /// `num_nodes` nodes; the caller keeps them, unchanged, for every call on the graph.
    pub nodes: *const sinew_blend_node,
    /// 1 to `SINEW_MAX_BLEND_NODES`.
    pub num_nodes: u32,
    /// How many parameters `sinew_blend_graph_evaluate` takes.
    pub num_params: u32,
    /// As `sinew_sampling_context_required_bytes`: compressed clips of up to this many tracks keep their decoders.
    pub max_tracks: u32,
    /// `SINEW_INTERPOLATION_*`, for every leaf.
    pub interpolation: u32,
}

/// A leaf's clip and time for one evaluation.
///
/// Layout: 16 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_blend_leaf {
    /// The clip's index in the asset.
    pub clip: u32,
    /// `SINEW_WRAP_LOOP` or `SINEW_WRAP_CLAMP`.
    pub wrap: u32,
    /// Seconds from the clip's first frame; finite.
    pub time: f32,
    /// Not read; zero.
    pub reserved: u32,
}

/// A blend graph's state: opaque, at the start of the memory the caller gave `sinew_blend_graph_init` (aligned
/// to `SINEW_STATE_ALIGN`), movable between calls.
pub struct sinew_blend_graph {
    _opaque: [u8; 0],
}

/// What precedes the graph's arena (its leaves' context states, then the core graph's memory).
#[repr(C)]
#[derive(Clone, Copy)]
struct GraphPrefix {
    header: Header,
    num_joints: u32,
    num_leaves: u32,
    max_tracks: u32,
    interpolation: u32,
}

// SAFETY: `repr(C)` plain data starting with a `Header`, within the prefix (`init` asserts the size).
unsafe impl Prefix for GraphPrefix {
    const MAGIC: u64 = u64::from_le_bytes(*b"snwGRAPH");
}

/// The C description as the core's, converted into storage on the caller's stack.
struct Converted<'a> {
    nodes: heapless::Vec<Node<'a>, MAX_NODES>,
    num_params: usize,
    max_tracks: usize,
    interpolation: Interpolation,
}

/// Where a node's lists were converted to.
#[derive(Clone, Copy, Default)]
struct Lists {
    children: (usize, usize),
    triangles: (usize, usize),
}

/// Children and triangles converted from `u32` indices.
struct Edges<'a> {
    weighted: heapless::Vec<Weighted<'a>, MAX_EDGES>,
    indices: heapless::Vec<usize, MAX_EDGES>,
    triangles: heapless::Vec<[usize; 3], MAX_EDGES>,
}

impl Edges<'_> {
    fn new() -> Self {
        Edges { weighted: heapless::Vec::new(), indices: heapless::Vec::new(), triangles: heapless::Vec::new() }
    }
}

/// A bone mask at `mask` (NULL: none) of `count` lane groups, checked against the buffers the call writes.
///
/// # Safety
/// `mask` is NULL or points to `4 * count` readable floats not written during the call.
unsafe fn mask_of<'a>(
    mask: *const f32,
    count: usize,
    written: &[(*const u8, usize)],
) -> Result<Option<&'a [F4]>, sinew_status> {
    if mask.is_null() {
        return Ok(None);
    }
    check_read(bytes(mask, 4 * count), written)?;
    // SAFETY: the caller's contract: `4 * count` floats read as `count` lane vectors.
    unsafe { input::<[f32; 4], F4>(mask.cast(), count) }.map(Some)
}

/// `SINEW_ERROR_BUFFER` when a buffer the call reads overlaps one it writes.
fn check_read(read: (*const u8, usize), written: &[(*const u8, usize)]) -> Result<(), sinew_status> {
    written.iter().try_for_each(|&w| disjoint(w, &[read]))
}

/// The core description of `desc` for a skeleton of `count` lane groups; every buffer it names is checked
/// not to overlap `written`.
///
/// # Safety
/// `desc` and every buffer it names are readable as their documentation says and not written during the call.
unsafe fn convert<'e, 'a: 'e>(
    desc: &sinew_blend_graph_desc,
    count: usize,
    written: &[(*const u8, usize)],
    edges: &'e mut Edges<'a>,
) -> Result<Converted<'e>, sinew_status> {
    let interpolation = match desc.interpolation {
        SINEW_INTERPOLATION_LINEAR => Interpolation::Linear,
        SINEW_INTERPOLATION_CUBIC => Interpolation::Cubic,
        _ => return Err(SINEW_ERROR_INVALID_ARGUMENT),
    };
    let num_nodes = desc.num_nodes as usize;
    if num_nodes == 0 || num_nodes > MAX_NODES {
        return Err(SINEW_ERROR_INVALID_DESC);
    }
    check_read(bytes(desc.nodes, num_nodes), written)?;
    // SAFETY: the caller's contract: `num_nodes` readable nodes.
    let c_nodes = unsafe { input::<sinew_blend_node, sinew_blend_node>(desc.nodes, num_nodes) }?;

    // First the lists, converted to `usize` indices; the nodes borrow them once all are in place.
    let mut lists = [Lists::default(); MAX_NODES];
    // A full list: more edges (or nodes) than the C ABI converts.
    fn full<T>(_: T) -> sinew_status {
        SINEW_ERROR_INVALID_DESC
    }
    for (node, list) in c_nodes.iter().zip(&mut lists) {
        let n = node.num_children as usize;
        match node.kind {
            SINEW_BLEND_NODE_SUM => {
                check_read(bytes(node.sum_children, n), written)?;
                // SAFETY: the caller's contract: `num_children` readable children.
                let children = unsafe { input::<sinew_blend_child, sinew_blend_child>(node.sum_children, n) }?;
                list.children = (edges.weighted.len(), n);
                for child in children {
                    // SAFETY: the caller's contract for the child's mask.
                    let mask = unsafe { mask_of(child.mask, count, written) }?;
                    let weighted = Weighted { node: child.node as usize, weight: child.weight as usize, mask };
                    edges.weighted.push(weighted).map_err(full)?;
                }
            }
            SINEW_BLEND_NODE_SPACE_1D | SINEW_BLEND_NODE_SPACE_2D | SINEW_BLEND_NODE_CHUNKS => {
                check_read(bytes(node.children, n), written)?;
                // SAFETY: the caller's contract: `num_children` readable indices.
                let children = unsafe { input::<u32, u32>(node.children, n) }?;
                list.children = (edges.indices.len(), n);
                for &child in children {
                    edges.indices.push(child as usize).map_err(full)?;
                }
                if node.kind == SINEW_BLEND_NODE_SPACE_2D {
                    let t = node.num_triangles as usize;
                    check_read(bytes(node.triangles, 3 * t), written)?;
                    // SAFETY: the caller's contract: three readable indices per triangle.
                    let triangles = unsafe { input::<[u32; 3], [u32; 3]>(node.triangles.cast(), t) }?;
                    list.triangles = (edges.triangles.len(), t);
                    for triangle in triangles {
                        edges.triangles.push(triangle.map(|c| c as usize)).map_err(full)?;
                    }
                }
            }
            _ => {}
        }
    }

    let edges: &'e Edges<'a> = edges;
    let mut nodes = heapless::Vec::new();
    for (node, list) in c_nodes.iter().zip(&lists) {
        let (start, n) = list.children;
        let core = match node.kind {
            SINEW_BLEND_NODE_CLIP => Node::Clip { leaf: node.leaf as usize },
            SINEW_BLEND_NODE_LERP | SINEW_BLEND_NODE_ADDITIVE => {
                // SAFETY: the caller's contract for the node's mask.
                let mask = unsafe { mask_of(node.mask, count, written) }?;
                let (a, b, weight) = (node.a as usize, node.b as usize, node.weight as usize);
                if node.kind == SINEW_BLEND_NODE_LERP {
                    Node::Lerp { a, b, weight, mask }
                } else {
                    let reference = if node.reference.is_null() {
                        None
                    } else {
                        check_read(bytes(node.reference, count), written)?;
                        // SAFETY: the caller's contract: `count` readable lane groups.
                        Some(unsafe { input::<sinew_soa_transform, SoaTransform>(node.reference, count) }?)
                    };
                    Node::Additive { base: a, delta: b, weight, mask, reference }
                }
            }
            SINEW_BLEND_NODE_SUM => Node::WeightedSum { children: &edges.weighted[start..start + n] },
            SINEW_BLEND_NODE_SPACE_1D => {
                check_read(bytes(node.positions, n), written)?;
                // SAFETY: the caller's contract: one readable position per child.
                let positions = unsafe { input::<f32, f32>(node.positions, n) }?;
                Node::Space1d { children: &edges.indices[start..start + n], positions, parameter: node.weight as usize }
            }
            SINEW_BLEND_NODE_SPACE_2D => {
                check_read(bytes(node.positions, 2 * n), written)?;
                // SAFETY: the caller's contract: an x, y pair per child.
                let points = unsafe { input::<[f32; 2], [f32; 2]>(node.positions.cast(), n) }?;
                let (t0, t) = list.triangles;
                Node::Space2d {
                    children: &edges.indices[start..start + n],
                    points,
                    triangles: &edges.triangles[t0..t0 + t],
                    x: node.weight as usize,
                    y: node.y as usize,
                }
            }
            SINEW_BLEND_NODE_CHUNKS => Node::Chunks { leaves: &edges.indices[start..start + n] },
            _ => return Err(SINEW_ERROR_INVALID_DESC),
        };
        nodes.push(core).map_err(full)?;
    }
    Ok(Converted { nodes, num_params: desc.num_params as usize, max_tracks: desc.max_tracks as usize, interpolation })
}

impl Converted<'_> {
    fn desc(&self) -> GraphDesc<'_> {
        GraphDesc {
            nodes: &self.nodes,
            num_params: self.num_params,
            max_tracks: self.max_tracks,
            interpolation: self.interpolation,
        }
    }
}

impl Converted<'_> {
    /// The graph's leaves: its clip nodes' and chunk nodes'.
    fn num_leaves(&self) -> usize {
        let leaves = |node: &Node<'_>| match node {
            Node::Clip { .. } => 1,
            Node::Chunks { leaves } => leaves.len(),
            _ => 0,
        };
        self.nodes.iter().map(leaves).sum()
    }
}

/// The arena bytes of a graph state for `converted` on `skeleton`: the leaves' states, then the core graph.
fn arena_bytes(converted: &Converted<'_>, skeleton: &Skeleton<'_>) -> Result<(usize, usize), sinew_status> {
    let graph = BlendGraph::required_bytes(&converted.desc(), skeleton.num_joints()).map_err(job_status)?;
    let leaves = converted.num_leaves();
    Ok((leaves, Arena::required_bytes::<ContextState>(leaves) + graph))
}

/// Bytes of memory a blend graph state for `desc` on `asset`'s skeleton needs (a multiple of
/// `SINEW_STATE_ALIGN`): a sampling context per leaf and the scratch poses its evaluation keeps.
///
/// Errors: `SINEW_ERROR_INVALID_DESC` for a node count outside 1 to `SINEW_MAX_BLEND_NODES`, an unknown kind or
/// more than `SINEW_MAX_BLEND_EDGES` children and triangles; `SINEW_ERROR_INVALID_ARGUMENT` for a malformed node
/// (a child that is not earlier, leaves not numbered 0 to n - 1 once each, a parameter index at or past
/// `num_params`, a mask weight outside [0, 1], a bad child count, positions or triangles) or an unknown
/// interpolation; `SINEW_ERROR_BUFFER` for a misaligned mask or reference.
///
/// # Safety
/// `asset` points to a loaded asset; `desc` to a readable description whose buffers are readable as documented;
/// `out` to a writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_blend_graph_required_bytes(
    asset: *const sinew_asset,
    desc: *const sinew_blend_graph_desc,
    out: *mut usize,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let (stored, desc) = (unsafe { stored(asset) }?, unsafe { super::read_request(desc) }?);
        let skeleton = stored.asset.skeleton();
        let mut edges = Edges::new();
        // SAFETY: the caller's contract; nothing is written.
        let converted = unsafe { convert(&desc, skeleton.num_soa_joints(), &[], &mut edges) }?;
        arena_bytes(&converted, skeleton).map(|(_, bytes)| state_bytes(bytes))
    })();
    // SAFETY: the caller's contract.
    unsafe { put(out, result) }
}

/// Lays out a blend graph state for `desc` on `asset`'s skeleton in the `len` bytes at `memory` (aligned to
/// `SINEW_STATE_ALIGN`, at least `sinew_blend_graph_required_bytes`), every leaf holding nothing yet, and points
/// `*out` at it. The memory may be copied to another address of the same alignment between calls.
///
/// Errors: as `sinew_blend_graph_required_bytes`; `SINEW_ERROR_MEMORY_ALIGNMENT`; `SINEW_ERROR_MEMORY_TOO_SMALL`;
/// `SINEW_ERROR_BUFFER` when the description overlaps the memory.
///
/// # Safety
/// As `sinew_blend_graph_required_bytes`; `memory` points to `len` writable bytes used by no one else while the
/// graph lives; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_blend_graph_init(
    memory: *mut c_void,
    len: usize,
    asset: *const sinew_asset,
    desc: *const sinew_blend_graph_desc,
    out: *mut *mut sinew_blend_graph,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let (stored, desc) = (unsafe { stored(asset) }?, unsafe { super::read_request(desc) }?);
        let skeleton = stored.asset.skeleton();
        let mut edges = Edges::new();
        let written = [(memory.cast_const().cast::<u8>(), len)];
        // SAFETY: the caller's contract; the description is checked not to overlap the memory written.
        let converted = unsafe { convert(&desc, skeleton.num_soa_joints(), &written, &mut edges) }?;
        let (leaves, arena) = arena_bytes(&converted, skeleton)?;
        let header = Header { magic: 0, arena_len: 0 };
        let prefix = GraphPrefix {
            header,
            num_joints: skeleton.num_joints() as u32,
            num_leaves: leaves as u32,
            max_tracks: desc.max_tracks,
            interpolation: desc.interpolation,
        };
        // SAFETY: the caller's contract.
        unsafe {
            init(memory, len, state_bytes(arena), prefix, out, |arena| {
                let arena = Arena::new(arena);
                arena.alloc::<ContextState>(leaves).map_err(job_status)?;
                BlendGraph::new(&arena, skeleton, &converted.desc()).map(|_| ()).map_err(job_status)
            })
        }
    })();
    result.err().unwrap_or(SINEW_OK)
}

/// Evaluates the graph `desc` describes (the description `graph` was made with) into the `count` lane groups
/// at `pose` (local space): leaf `l` samples clip `leaves[l].clip` at its time, and `params` (`num_params`
/// values: finite, and >= 0 where a sum reads them) weight the nodes. A subtree no weight reaches is not
/// sampled; results equal the Rust graph's bit for bit.
///
/// Errors: `SINEW_ERROR_STATE_MISMATCH` for a description of another leaf count, interpolation or track count
/// than the graph's, or a graph made for another skeleton; `SINEW_ERROR_INDEX_OUT_OF_RANGE` (a leaf's clip);
/// `SINEW_ERROR_INVALID_ARGUMENT` for a bad wrap, time or parameter, and as `sinew_blend_graph_required_bytes`;
/// `SINEW_ERROR_BUFFER` for counts other than the graph's, or a pose misaligned or overlapping any buffer the
/// call reads; `SINEW_ERROR_INVALID_HANDLE` for memory `sinew_blend_graph_init` did not lay out.
///
/// # Safety
/// `graph` points to a graph state used by no one else during the call; `asset` to a loaded asset; `desc` as in
/// `sinew_blend_graph_required_bytes`; `leaves` to `num_leaves` readable leaves; `params` to `num_params`
/// readable floats; `pose` to `count` writable lane groups.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments, reason = "the C call lists its buffers and their lengths")]
pub unsafe extern "C" fn sinew_blend_graph_evaluate(
    graph: *mut sinew_blend_graph,
    asset: *const sinew_asset,
    desc: *const sinew_blend_graph_desc,
    leaves: *const sinew_blend_leaf,
    num_leaves: u32,
    params: *const f32,
    num_params: u32,
    pose: *mut sinew_soa_transform,
    count: usize,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let (stored, desc) = (unsafe { stored(asset) }?, unsafe { super::read_request(desc) }?);
        let skeleton = stored.asset.skeleton();
        // SAFETY: the caller's contract.
        let memory = unsafe { extent(graph) };
        let read = read_only(stored, asset);
        let (num_leaves, num_params) = (num_leaves as usize, num_params as usize);
        let (leaves_read, params_read) = (bytes(leaves, num_leaves), bytes(params, num_params));
        disjoint(memory, &[read[0], read[1], leaves_read, params_read])?;
        disjoint((pose.cast_const(), count), &[memory, read[0], read[1], leaves_read, params_read])?;
        let written = [memory, bytes(pose, count)];
        let mut edges = Edges::new();
        // SAFETY: the caller's contract; the description's buffers are checked against what is written.
        let converted = unsafe { convert(&desc, skeleton.num_soa_joints(), &written, &mut edges) }?;
        // SAFETY: the caller's contract.
        let c_leaves = unsafe { input::<sinew_blend_leaf, sinew_blend_leaf>(leaves, num_leaves) }?;
        // SAFETY: as the leaves.
        let params = unsafe { input::<f32, f32>(params, num_params) }?;
        let mut clips = heapless::Vec::<Clip<'_>, MAX_LEAVES>::new();
        for leaf in c_leaves {
            let clip = stored.asset.clip(leaf.clip as usize).ok_or(SINEW_ERROR_INDEX_OUT_OF_RANGE)?;
            clips.push(clip).map_err(|_| SINEW_ERROR_INVALID_ARGUMENT)?;
        }
        let mut core_leaves = heapless::Vec::<Leaf<'_>, MAX_LEAVES>::new();
        for (leaf, clip) in c_leaves.iter().zip(&clips) {
            let playback = match leaf.wrap {
                SINEW_WRAP_LOOP => Playback::Loop,
                SINEW_WRAP_CLAMP => Playback::Clamp,
                _ => return Err(SINEW_ERROR_INVALID_ARGUMENT),
            };
            let _ = core_leaves.push(Leaf { clip, time: leaf.time, playback });
        }

        // SAFETY: the caller's contract.
        let (prefix, arena_memory) = unsafe { open::<GraphPrefix, _>(graph) }?;
        // `resume` checks the description; sizing it first would plan the graph twice a frame.
        let leaves_made = converted.num_leaves();
        let same = prefix.num_joints as usize == skeleton.num_joints()
            && prefix.num_leaves as usize == leaves_made
            && prefix.max_tracks == desc.max_tracks
            && prefix.interpolation == desc.interpolation;
        if !same {
            return Err(SINEW_ERROR_STATE_MISMATCH);
        }
        // SAFETY: the caller's contract; disjoint from every buffer the call reads (checked).
        let output = unsafe { output::<_, SoaTransform>(pose, count) }?;
        let arena = Arena::new(arena_memory);
        let states = arena.carve::<ContextState>(leaves_made).map_err(|_| SINEW_ERROR_STATE_MISMATCH)?;
        let graph_desc = converted.desc();
        let mut core = BlendGraph::resume(&arena, skeleton, &graph_desc, states).map_err(|error| match error {
            sinew::Error::ArenaExhausted { .. } => SINEW_ERROR_STATE_MISMATCH,
            other => job_status(other),
        })?;
        let mut job = BlendGraphJob { graph: &mut core, skeleton, leaves: &core_leaves, params, output };
        job.run().map_err(job_status)?;
        core.suspend(states).map_err(job_status)
    })();
    result.err().unwrap_or(SINEW_OK)
}

/// Frames leaf `leaf`'s context has decoded since `sinew_blend_graph_init`, into `*out`: a leaf no weight
/// reaches does not move it.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` (leaf); `SINEW_ERROR_INVALID_HANDLE`.
///
/// # Safety
/// `graph` points to a graph state used by no one else during the call; `out` to a writable `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_blend_graph_decoded_frames(
    graph: *mut sinew_blend_graph,
    leaf: u32,
    out: *mut u64,
) -> sinew_status {
    let result = (|| {
        // SAFETY: the caller's contract.
        let (prefix, arena_memory) = unsafe { open::<GraphPrefix, _>(graph) }?;
        if leaf >= prefix.num_leaves {
            return Err(SINEW_ERROR_INDEX_OUT_OF_RANGE);
        }
        let arena = Arena::new(arena_memory);
        let states = arena.carve::<ContextState>(prefix.num_leaves as usize).map_err(|_| SINEW_ERROR_STATE_MISMATCH)?;
        Ok(states[leaf as usize].decoded_frames())
    })();
    // SAFETY: the caller's contract.
    unsafe { put(out, result) }
}
