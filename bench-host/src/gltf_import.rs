//! glTF 2.0 import (`.glb` and `.gltf`, via the `gltf` crate): the scene's node tree as a skeleton, its first
//! skin, its animations resampled at a uniform rate, and the skinned mesh attributes of the first skin.
//!
//! - **Skeleton** = every node of the scene, depth first (parents before children), so non-joint ancestors
//!   (CesiumMan's `Z_UP` and `Armature`) keep their transforms and model space is glTF scene space. Node
//!   transforms given as matrices are decomposed to TRS (an error when a matrix has shear).
//! - **Skin**: the first skin's joints map onto skeleton indices (the skin's order may differ from the node
//!   tree); inverse bind matrices default to identity as the spec says.
//! - **Clips**: one per animation, on the file's own timeline: clip time `t` is glTF time `t` (values before a
//!   channel's first key hold it, so animations starting after 0 keep their timing). Channels animate only
//!   some nodes; the others stay at their node transform. Resampling rate: the keys' own rate when every key
//!   time is a whole multiple of one step (true of exporters' baked clips), raised by a whole factor to at
//!   least `MIN_RATE`, else `FALLBACK_RATE`. LINEAR
//!   translation/scale is lerp, rotation slerp; STEP holds; CUBICSPLINE evaluates the Hermite spline — all in
//!   f64, at every frame. Morph-weight channels are skipped.
//! - Non-finite values anywhere are errors naming the accessor's use.

use crate::bake::{RawClip, RawSkeleton};
use base64::Engine;
use gltf::animation::{Interpolation, Property};
use sinew::math::{Mat3x4, Mat4, Quat, Transform, Vec3};
use std::path::Path;

/// An imported file.
#[derive(Clone, Debug)]
pub struct GltfAsset {
    pub skeleton: RawSkeleton,
    /// The first skin, if any.
    pub skin: Option<GltfSkin>,
    pub clips: Vec<RawClip>,
    /// Skeleton index of each glTF node of the scene (`None` for nodes outside it).
    pub node_to_joint: Vec<Option<usize>>,
}

/// A skin and the first mesh primitive bound to it.
#[derive(Clone, Debug)]
pub struct GltfSkin {
    /// Skeleton joint of each skin joint.
    pub remap: Vec<u16>,
    pub inverse_bind: Vec<Mat3x4>,
    pub mesh: Option<SkinnedMesh>,
}

/// Skinned vertex attributes (`JOINTS_0`, `WEIGHTS_0`: four influences per vertex, skin joint indices).
#[derive(Clone, Debug, Default)]
pub struct SkinnedMesh {
    pub positions: Vec<[f32; 3]>,
    pub joints: Vec<[u16; 4]>,
    pub weights: Vec<[f32; 4]>,
}

/// Rate used when key times are not on one uniform grid.
pub const FALLBACK_RATE: f64 = 30.0;
/// Lowest bake rate: clips keyed more sparsely are baked at the smallest whole multiple of their key rate
/// reaching it, so every key is a frame and the runtime's nlerp between frames stays close to glTF's slerp.
pub const MIN_RATE: f64 = 30.0;

type Err = String;

fn load_buffers(document: &gltf::Document, blob: Option<Vec<u8>>, dir: &Path) -> Result<Vec<Vec<u8>>, Err> {
    let mut blob = blob;
    document
        .buffers()
        .map(|buffer| {
            let data = match buffer.source() {
                gltf::buffer::Source::Bin => blob.take().ok_or("GLB binary chunk missing")?,
                gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                    let payload = uri.split_once(";base64,").ok_or("data URI is not base64")?.1;
                    base64::engine::general_purpose::STANDARD.decode(payload).map_err(|e| format!("data URI: {e}"))?
                }
                gltf::buffer::Source::Uri(uri) => {
                    std::fs::read(dir.join(uri)).map_err(|e| format!("buffer {}: {uri}: {e}", buffer.index()))?
                }
            };
            if data.len() < buffer.length() {
                return Err(format!(
                    "buffer {} has {} bytes, declares {}",
                    buffer.index(),
                    data.len(),
                    buffer.length()
                ));
            }
            Ok(data)
        })
        .collect()
}

fn finite<const N: usize>(v: [f32; N], what: &str) -> Result<[f32; N], Err> {
    if v.iter().all(|x| x.is_finite()) { Ok(v) } else { Err(format!("{what}: non-finite value")) }
}

/// Node TRS; matrices are decomposed and must recompose to themselves.
fn node_transform(node: &gltf::Node<'_>) -> Result<Transform, Err> {
    let what = format!("node {}", node.index());
    let (t, r, s) = node.transform().decomposed();
    let (t, r, s) = (finite(t, &what)?, finite(r, &what)?, finite(s, &what)?);
    let transform = Transform {
        translation: Vec3::new(t[0], t[1], t[2]),
        rotation: Quat::new(r[0], r[1], r[2], r[3]).normalize(),
        scale: Vec3::new(s[0], s[1], s[2]),
    };
    if let gltf::scene::Transform::Matrix { matrix } = node.transform() {
        let rebuilt = transform.to_mat4();
        let scale = matrix.iter().flatten().fold(1.0f32, |m, v| m.max(v.abs()));
        let worst =
            (0..4).flat_map(|c| (0..4).map(move |r| (c, r))).map(|(c, r)| (rebuilt.cols[c][r] - matrix[c][r]).abs());
        if worst.fold(0.0, f32::max) > 1e-4 * scale {
            return Err(format!("{what}: matrix has shear or projection; sinew joints are TRS"));
        }
    }
    Ok(transform)
}

/// Reads `path` (`.glb` or `.gltf`).
pub fn load(path: &Path) -> Result<GltfAsset, Err> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    import(&bytes, path.parent().unwrap_or(Path::new("."))).map_err(|e| format!("{}: {e}", path.display()))
}

/// Imports a glTF document from memory; `dir` resolves relative buffer URIs.
pub fn import(bytes: &[u8], dir: &Path) -> Result<GltfAsset, Err> {
    let gltf::Gltf { document, blob } = gltf::Gltf::from_slice(bytes).map_err(|e| e.to_string())?;
    check_unvalidated_indices(&document)?;
    let buffers = load_buffers(&document, blob, dir)?;
    let get = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);

    // Skeleton: the scene's nodes, depth first.
    let scene = document.default_scene().or_else(|| document.scenes().next()).ok_or("no scene")?;
    let mut node_to_joint = vec![None; document.nodes().len()];
    let (mut names, mut parents, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    let mut stack: Vec<(gltf::Node<'_>, i16)> =
        scene.nodes().collect::<Vec<_>>().into_iter().rev().map(|n| (n, -1)).collect();
    while let Some((node, parent)) = stack.pop() {
        if node_to_joint[node.index()].is_some() {
            return Err(format!("node {} is reached twice (not a tree)", node.index()));
        }
        let joint = names.len();
        if joint >= sinew::skeleton::MAX_JOINTS {
            return Err(format!("scene has more than {} nodes", sinew::skeleton::MAX_JOINTS));
        }
        node_to_joint[node.index()] = Some(joint);
        names.push(node.name().map_or_else(|| format!("node{}", node.index()), str::to_string));
        parents.push(parent);
        rest.push(node_transform(&node)?);
        stack.extend(node.children().collect::<Vec<_>>().into_iter().rev().map(|c| (c, joint as i16)));
    }
    let skeleton = RawSkeleton { names, parents, rest };

    let skin = match document.skins().next() {
        None => None,
        Some(skin) => {
            let remap = skin
                .joints()
                .map(|n| {
                    node_to_joint[n.index()]
                        .map(|j| j as u16)
                        .ok_or_else(|| format!("skin joint node {} is not in the scene", n.index()))
                })
                .collect::<Result<Vec<u16>, Err>>()?;
            let matrices: Vec<Mat4> = match skin.reader(get).read_inverse_bind_matrices() {
                Some(iter) => iter.map(|cols| Mat4 { cols }).collect(),
                None => vec![Mat4::IDENTITY; remap.len()],
            };
            if matrices.len() != remap.len() || matrices.iter().any(|m| !m.is_finite()) {
                return Err(format!("skin {}: inverse bind matrices missing or non-finite", skin.index()));
            }
            let mut inverse_bind = vec![Mat3x4::IDENTITY; remap.len()];
            sinew::Skin::rows_from_mat4(&matrices, &mut inverse_bind).map_err(|e| format!("inverse bind: {e}"))?;
            let mesh = skinned_mesh(&document, skin.index(), get, remap.len())?;
            Some(GltfSkin { remap, inverse_bind, mesh })
        }
    };

    let clips = document
        .animations()
        .map(|anim| import_animation(&anim, &skeleton, &node_to_joint, get))
        .collect::<Result<Vec<_>, Err>>()?;
    Ok(GltfAsset { skeleton, skin, clips, node_to_joint })
}

/// Indices the `gltf` crate's validation leaves unchecked but its accessors unwrap (animation channel
/// targets): checked here so a hostile file is an error, not a panic.
fn check_unvalidated_indices(document: &gltf::Document) -> Result<(), Err> {
    let json = document.as_json();
    for (a, anim) in json.animations.iter().enumerate() {
        for (c, channel) in anim.channels.iter().enumerate() {
            let node = channel.target.node.value();
            if node >= json.nodes.len() {
                return Err(format!(
                    "animation {a} channel {c}: target node {node} out of range ({} nodes)",
                    json.nodes.len()
                ));
            }
        }
    }
    Ok(())
}

/// The first primitive with `JOINTS_0` of the first node using skin `skin`.
fn skinned_mesh<'a>(
    document: &gltf::Document,
    skin: usize,
    get: impl Fn(gltf::Buffer<'_>) -> Option<&'a [u8]> + Clone,
    num_skin_joints: usize,
) -> Result<Option<SkinnedMesh>, Err> {
    let Some(mesh) = document
        .nodes()
        .find(|n| n.skin().is_some_and(|s| s.index() == skin) && n.mesh().is_some())
        .and_then(|n| n.mesh())
    else {
        return Ok(None);
    };
    for primitive in mesh.primitives() {
        let reader = primitive.reader(get.clone());
        let (Some(positions), Some(joints), Some(weights)) =
            (reader.read_positions(), reader.read_joints(0), reader.read_weights(0))
        else {
            continue;
        };
        let positions: Vec<[f32; 3]> = positions.collect();
        let joints: Vec<[u16; 4]> = joints.into_u16().collect();
        let weights: Vec<[f32; 4]> = weights.into_f32().collect();
        if joints.len() != positions.len() || weights.len() != positions.len() {
            return Err(format!("mesh {}: attribute counts differ", mesh.index()));
        }
        if positions.iter().flatten().chain(weights.iter().flatten()).any(|v| !v.is_finite()) {
            return Err(format!("mesh {}: non-finite vertex data", mesh.index()));
        }
        if let Some(j) = joints.iter().flatten().find(|&&j| j as usize >= num_skin_joints) {
            return Err(format!("mesh {}: JOINTS_0 index {j} past the skin's {num_skin_joints} joints", mesh.index()));
        }
        return Ok(Some(SkinnedMesh { positions, joints, weights }));
    }
    Ok(None)
}

/// One channel's keys in f64: times and values (`N` components; CUBICSPLINE keeps in-tangent, value,
/// out-tangent triplets).
struct Track {
    joint: usize,
    property: Property,
    interpolation: Interpolation,
    times: Vec<f64>,
    values: Vec<[f64; 4]>,
}

fn import_animation<'a>(
    anim: &gltf::Animation<'_>,
    skeleton: &RawSkeleton,
    node_to_joint: &[Option<usize>],
    get: impl Fn(gltf::Buffer<'_>) -> Option<&'a [u8]> + Clone,
) -> Result<RawClip, Err> {
    let name = anim.name().map_or_else(|| format!("animation{}", anim.index()), str::to_string);
    let mut tracks = Vec::new();
    for channel in anim.channels() {
        let what = format!("animation `{name}` channel {}", channel.index());
        let property = channel.target().property();
        if property == Property::MorphTargetWeights {
            continue;
        }
        let Some(joint) = node_to_joint[channel.target().node().index()] else { continue };
        let reader = channel.reader(get.clone());
        let times: Vec<f64> = reader.read_inputs().ok_or(format!("{what}: no inputs"))?.map(f64::from).collect();
        let values: Vec<[f64; 4]> = match reader.read_outputs().ok_or(format!("{what}: no outputs"))? {
            gltf::animation::util::ReadOutputs::Translations(it) | gltf::animation::util::ReadOutputs::Scales(it) => {
                it.map(|v| [v[0] as f64, v[1] as f64, v[2] as f64, 0.0]).collect()
            }
            gltf::animation::util::ReadOutputs::Rotations(it) => it.into_f32().map(|v| v.map(f64::from)).collect(),
            gltf::animation::util::ReadOutputs::MorphTargetWeights(_) => continue,
        };
        let interpolation = channel.sampler().interpolation();
        let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        if times.is_empty() || values.len() != times.len() * per_key {
            return Err(format!("{what}: {} keys, {} values", times.len(), values.len()));
        }
        if times.iter().any(|t| !t.is_finite()) || values.iter().flatten().any(|v| !v.is_finite()) {
            return Err(format!("{what}: non-finite key"));
        }
        if times.windows(2).any(|w| w[1] < w[0]) {
            return Err(format!("{what}: key times decrease"));
        }
        tracks.push(Track { joint, property, interpolation, times, values });
    }
    let end = tracks.iter().filter_map(|t| t.times.last().copied()).fold(0.0f64, f64::max);
    // Keys stay on the frame grid; sparse keys get in-between frames so nlerp between frames tracks slerp.
    let rate = uniform_rate(&tracks).map_or(FALLBACK_RATE, |r| r * (MIN_RATE / r).ceil().max(1.0));
    let num_frames = (end * rate).round() as usize + 1;
    let frames = (0..num_frames)
        .map(|f| {
            let time = f as f64 / rate;
            let mut pose = skeleton.rest.clone();
            for track in &tracks {
                let v = evaluate(track, time);
                let t = &mut pose[track.joint];
                match track.property {
                    Property::Translation => t.translation = Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32),
                    Property::Scale => t.scale = Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32),
                    _ => {
                        let len = (v.iter().map(|x| x * x).sum::<f64>()).sqrt().max(1e-30);
                        t.rotation = Quat::new(
                            (v[0] / len) as f32,
                            (v[1] / len) as f32,
                            (v[2] / len) as f32,
                            (v[3] / len) as f32,
                        )
                    }
                }
            }
            pose
        })
        .collect();
    Ok(RawClip { name, sample_rate: rate as f32, frames })
}

/// The keys' rate, when every key time is a whole multiple (within 0.1% of a step) of the smallest step.
fn uniform_rate(tracks: &[Track]) -> Option<f64> {
    let step = tracks
        .iter()
        .flat_map(|t| t.times.windows(2).map(|w| w[1] - w[0]))
        .filter(|d| *d > 1e-6)
        .fold(f64::MAX, f64::min);
    if step == f64::MAX {
        return None;
    }
    let on_grid = tracks.iter().flat_map(|t| &t.times).all(|&time| {
        let k = time / step;
        (k - k.round()).abs() < 1e-3
    });
    on_grid.then(|| 1.0 / step)
}

/// The channel's value at `time` (clamped to its keys), per the glTF 2.0 interpolation rules.
fn evaluate(track: &Track, time: f64) -> [f64; 4] {
    let times = &track.times;
    let cubic = track.interpolation == Interpolation::CubicSpline;
    let value = |k: usize| if cubic { track.values[3 * k + 1] } else { track.values[k] };
    if time <= times[0] {
        return value(0);
    }
    let last = times.len() - 1;
    if time >= times[last] {
        return value(last);
    }
    let k = times.partition_point(|&t| t <= time) - 1;
    let (t0, t1) = (times[k], times[k + 1]);
    let dt = t1 - t0;
    let s = if dt > 0.0 { (time - t0) / dt } else { 0.0 };
    let (a, b) = (value(k), value(k + 1));
    match track.interpolation {
        Interpolation::Step => a,
        Interpolation::Linear if track.property == Property::Rotation => slerp(a, b, s),
        Interpolation::Linear => std::array::from_fn(|i| a[i] + (b[i] - a[i]) * s),
        Interpolation::CubicSpline => {
            let out_tangent = track.values[3 * k + 2];
            let in_tangent = track.values[3 * (k + 1)];
            let (s2, s3) = (s * s, s * s * s);
            std::array::from_fn(|i| {
                (2.0 * s3 - 3.0 * s2 + 1.0) * a[i]
                    + (s3 - 2.0 * s2 + s) * dt * out_tangent[i]
                    + (-2.0 * s3 + 3.0 * s2) * b[i]
                    + (s3 - s2) * dt * in_tangent[i]
            })
        }
    }
}

/// Spherical interpolation along the shortest arc, in f64.
fn slerp(a: [f64; 4], b: [f64; 4], s: f64) -> [f64; 4] {
    let mut dot: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let b = if dot < 0.0 {
        dot = -dot;
        b.map(|v| -v)
    } else {
        b
    };
    if dot > 0.9995 {
        return std::array::from_fn(|i| a[i] + (b[i] - a[i]) * s);
    }
    let theta = dot.clamp(-1.0, 1.0).acos();
    let (wa, wb) = (((1.0 - s) * theta).sin() / theta.sin(), (s * theta).sin() / theta.sin());
    std::array::from_fn(|i| wa * a[i] + wb * b[i])
}
