//! glTF 2.0 import (`.glb` and `.gltf`, via the `gltf` crate): the scene's node tree as a skeleton, its first
//! skin, its animations resampled at a uniform rate, and the skinned mesh attributes of the first skin.
//!
//! - **Skeleton** = every node of the scene, depth first (parents before children), so non-joint ancestors
//!   (CesiumMan's `Z_UP` and `Armature`) keep their transforms and model space is glTF scene space. Node
//!   transforms given as matrices are decomposed to TRS (an error when a matrix has shear).
//! - **Skin**: the first skin's joints map onto skeleton indices (the skin's order may differ from the node
//!   tree); inverse bind matrices default to identity as the spec says.
//! - **Clips**: one per animation, from its first key time to its last (clip time 0 is glTF time
//!   `ClipImport::start`; the clip lasts exactly `last − first`; channels starting later hold their first
//!   key). Channels animate only some nodes; the others stay at their node transform. Key times must increase
//!   strictly, as glTF 2.0 requires.
//! - **Rate**: when every key time lies on one uniform grid from the first key (within `GRID_TOLERANCE` of a
//!   step; the coarsest grid dividing the shortest key interval, up to `MAX_GRID_RATE`), the clip is baked at
//!   that grid's rate, so every key is a frame, raised by a whole factor to at
//!   least `MIN_RATE` (nlerp between frames then stays close to glTF's slerp). Otherwise the rate starts at the
//!   median key interval's (at least `MIN_RATE`). Either way the rate doubles while the measured resampling
//!   error exceeds `TARGET_ERROR` of the figure's extent and keeps falling, at most `MAX_DOUBLINGS` times and
//!   within the runtime's limits; `import_with` takes a rate instead. The frame step is always the duration over a whole number of frames.
//! - **Resampling error** (`ClipImport`): model-space virtual points (each joint and one point along each of
//!   its axes, `VIRTUAL_POINT_FRACTION` of the figure's extent out, so every node's rotation and scale shows)
//!   of the glTF evaluation against the baked frames interpolated as the runtime does (lerp, nlerp), at every
//!   key time and half way between frames, in f64; the largest distance in file units and over the figure's
//!   extent (the largest side of the joints' bounding box across those poses; file units alone when it is 0).
//! - LINEAR translation/scale is lerp, rotation slerp; STEP holds (an animation whose channels are all STEP is
//!   baked with step keys, so its jumps stay exact); CUBICSPLINE evaluates the Hermite spline —
//!   all in f64, at every frame. Morph-weight channels are skipped.
//! - Non-finite values anywhere are errors naming the accessor's use.

use crate::dmath::{Trs, virtual_points};
use crate::raw::{RawClip, RawCurve, RawCurveKey, RawSkeleton, StepKeys, runtime_position, sample_frames};
use base64::Engine;
use glam::{DQuat, DVec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::animation::{Interpolation, Property};
use sinew::clip::Channel;
use sinew::math::{Mat3x4, Mat4, Quat, Transform, Vec3};
use std::path::Path;

/// An imported file.
#[derive(Clone, Debug)]
pub struct GltfAsset {
    pub skeleton: RawSkeleton,
    /// The chosen skin ([`Options::skin`]), if the file has any.
    pub skin: Option<GltfSkin>,
    /// Every skin of the file: its name (or `skin<index>`) and joint count.
    pub skins: Vec<(String, usize)>,
    pub clips: Vec<RawClip>,
    /// How each clip was resampled, in `clips` order.
    pub imports: Vec<ClipImport>,
    /// Each clip's morph-target weights as curves (`mesh/target`, one key per frame), in `clips` order.
    pub curves: Vec<Vec<RawCurve>>,
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

/// How one animation became a uniformly sampled clip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipImport {
    /// glTF time of the first key (clip time 0), seconds.
    pub start: f64,
    /// Last key time − first key time, seconds: the clip's duration.
    pub duration: f64,
    /// The bake rate, Hz (`(frames − 1) / duration`).
    pub rate: f64,
    /// The keys' own rate when they lie on one uniform grid; every key is then a frame.
    pub key_rate: Option<f64>,
    /// Largest distance between a joint's glTF and resampled model-space position, file units.
    pub max_error: f64,
    /// The figure's extent the error is measured against, file units.
    pub extent: f64,
    /// Largest difference between a morph weight's glTF value and its baked curve as the runtime samples it,
    /// over the same times (0 without morph weights).
    pub weight_error: f64,
}

impl ClipImport {
    /// `max_error` as a fraction of the figure's extent; `None` for a figure without extent (one node, or
    /// every joint at one point), whose error is in file units only.
    pub fn relative_error(&self) -> Option<f64> {
        (self.extent > 0.0).then(|| self.max_error / self.extent)
    }

    /// `max_error` against which bounds are set: over the extent, or in file units for a figure without one.
    pub fn scaled_error(&self) -> f64 {
        self.relative_error().unwrap_or(self.max_error)
    }

    /// The larger of [`ClipImport::scaled_error`] and the morph weights' error: what the rate choice and the
    /// bake's bound look at.
    pub fn worst_error(&self) -> f64 {
        self.scaled_error().max(self.weight_error)
    }
}

/// Lowest bake rate: clips keyed more sparsely are baked at the smallest whole multiple of their key rate
/// reaching it, so every key is a frame and the runtime's nlerp between frames stays close to glTF's slerp.
pub const MIN_RATE: f64 = 30.0;
/// A key is on a grid when it lies within this fraction of a step (plus four `f32` ulps of its time, the
/// precision glTF stores times with) from a grid point: exporters' rounding jitter (0.1–0.2 % of a step is
/// common) passes, keys placed by hand between grid points do not.
pub const GRID_TOLERANCE: f64 = 1e-2;
/// The virtual points of the resampling error sit this fraction of the figure's extent from their joint (the
/// compressor's default, 3 cm on a 1.7 m figure), or of 1 file unit for a figure without extent.
pub const VIRTUAL_POINT_FRACTION: f64 = crate::dmath::DEFAULT_DISTANCE_CM / crate::dmath::FIGURE_CM;
/// Seconds a frame's computed time may fall short of the key time it stands for (f64 sums of f32 times).
const KEY_TIME_ROUNDING: f64 = 1e-9;
/// The precision morph-weight curves are compressed to (`bake --compress`), in weight units.
pub const MORPH_WEIGHT_PRECISION: f32 = 1e-4;
/// Finest key grid looked for, Hz (motion capture reaches 480 Hz): keys on no grid up to it are resampled.
pub const MAX_GRID_RATE: f64 = 480.0;
/// The resampling error the rate choice aims for, as a fraction of the figure's extent.
pub const TARGET_ERROR: f64 = 1e-4;
/// `sinew-bake bake`'s default bound on a clip's resampling error (10 × `TARGET_ERROR`): above it the bake stops.
pub const MAX_RESAMPLING_ERROR: f64 = 1e-3;
/// Most times the rate doubles towards `TARGET_ERROR` (8× the starting rate): keys off the frame grid leave
/// kinks whose error only halves per doubling, and Fox's Run (24 Hz keys but a last interval of 0.2 s) would
/// otherwise climb to ~1 kHz for 5e-4. The reported error says what was reached; `--rate` overrides.
pub const MAX_DOUBLINGS: u32 = 3;

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
                gltf::buffer::Source::Uri(uri) => read_buffer_file(dir, uri, buffer.length())
                    .map_err(|e| format!("buffer {}: {uri}: {e}", buffer.index()))?,
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

/// A buffer file named by a relative URI: a regular file beside the document (no absolute path, no `..`, so a
/// hostile document cannot read `/dev/zero` or files elsewhere), of which only the declared length is read.
fn read_buffer_file(dir: &Path, uri: &str, declared: usize) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let relative = Path::new(uri);
    if relative.is_absolute() || relative.components().any(|c| !matches!(c, std::path::Component::Normal(_))) {
        return Err("only plain relative paths beside the document are read".into());
    }
    let file = std::fs::File::open(dir.join(relative)).map_err(|e| e.to_string())?;
    let metadata = file.metadata().map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err("not a regular file".into());
    }
    if metadata.len() < declared as u64 {
        return Err(format!("{} bytes, declares {declared}", metadata.len()));
    }
    let mut data = Vec::with_capacity(declared);
    file.take(declared as u64).read_to_end(&mut data).map_err(|e| e.to_string())?;
    Ok(data)
}

/// `Err` unless `accessor` holds `dimensions` elements of one of `types`, with strides that fit them. The
/// `gltf` crate's readers assume both (checked there only by debug assertions), so a hostile file would
/// otherwise be misread, or panic in a debug build.
fn check_accessor(
    accessor: &gltf::Accessor<'_>,
    dimensions: gltf::accessor::Dimensions,
    types: &[gltf::accessor::DataType],
    what: &str,
) -> Result<(), Err> {
    if accessor.dimensions() != dimensions || !types.contains(&accessor.data_type()) {
        return Err(format!(
            "{what}: accessor {} holds {:?} of {:?}; expected {dimensions:?} of {types:?}",
            accessor.index(),
            accessor.dimensions(),
            accessor.data_type()
        ));
    }
    let err = |problem: &str| Err(format!("{what}: accessor {} {problem}", accessor.index()));
    if accessor.count() == 0 {
        return err("has no elements (glTF 2.0 requires at least one)");
    }
    // Each (view, offset, count) the reader walks must lie inside its view, counted without overflow.
    let sparse = accessor.sparse().map(|s| (s.values().view(), s.values().offset(), s.count()));
    let dense = accessor.view().map(|view| (view, accessor.offset(), accessor.count()));
    for (view, offset, count) in dense.into_iter().chain(sparse) {
        let stride = view.stride().unwrap_or(accessor.size());
        if stride < accessor.size() {
            return err("has a byte stride below its element size");
        }
        let end = count
            .checked_sub(1)
            .and_then(|last| last.checked_mul(stride))
            .and_then(|bytes| bytes.checked_add(offset))
            .and_then(|bytes| bytes.checked_add(accessor.size()));
        if end.is_none_or(|end| end > view.length()) {
            return err("reaches past the end of its buffer view (or has no elements)");
        }
    }
    Ok(())
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

/// Reads `path` (`.glb` or `.gltf`), choosing each clip's rate from its keys.
pub fn load(path: &Path) -> Result<GltfAsset, Err> {
    load_with(path, &Options::default())
}

/// What to import from a file.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Options {
    /// Bake every clip at this rate, Hz (adjusted to a whole number of frames over the clip's exact duration),
    /// instead of the rate chosen from its keys.
    pub rate: Option<f64>,
    /// The scene whose nodes become the skeleton: `None` for the file's default scene (else its first).
    pub scene: Option<usize>,
    /// The skin imported (the first by default).
    pub skin: usize,
}

/// Reads `path` as `options` say.
pub fn load_with(path: &Path, options: &Options) -> Result<GltfAsset, Err> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    import_with(&bytes, dir, options).map_err(|e| format!("{}: {e}", path.display()))
}

/// Imports a glTF document from memory; `dir` resolves relative buffer URIs.
pub fn import(bytes: &[u8], dir: &Path) -> Result<GltfAsset, Err> {
    import_with(bytes, dir, &Options::default())
}

/// [`import`] as `options` say (see [`load_with`]).
pub fn import_with(bytes: &[u8], dir: &Path, options: &Options) -> Result<GltfAsset, Err> {
    let rate = options.rate;
    check_glb_header(bytes)?;
    let gltf::Gltf { document, blob } = gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| e.to_string())?;
    let document =
        gltf::Document::from_json(accept_required_extensions(document.into_json())?).map_err(validation_summary)?;
    check_unvalidated_indices(&document)?;
    let buffers = load_buffers(&document, blob, dir)?;
    let get = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);

    // Skeleton: the scene's nodes, depth first.
    let scene = match options.scene {
        None => document.default_scene().or_else(|| document.scenes().next()).ok_or("no scene")?,
        Some(n) => document.scenes().nth(n).ok_or_else(|| scene_error(n, document.scenes().len()))?,
    };
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

    let skins: Vec<(String, usize)> = document
        .skins()
        .map(|s| (s.name().map_or_else(|| format!("skin{}", s.index()), str::to_string), s.joints().len()))
        .collect();
    if options.skin > 0 && options.skin >= skins.len() {
        return Err(format!(
            "skin {}: the file has {} (0 to {})",
            options.skin,
            skins.len(),
            skins.len().saturating_sub(1)
        ));
    }
    let skin = match document.skins().nth(options.skin) {
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
            if let Some(accessor) = skin.inverse_bind_matrices() {
                let what = format!("skin {} inverse bind matrices", skin.index());
                check_accessor(&accessor, Dimensions::Mat4, &[DataType::F32], &what)?;
            }
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

    let (mut clips, mut curves, mut imports) = (Vec::new(), Vec::new(), Vec::new());
    for anim in document.animations() {
        let (clip, weights, import) = import_animation(&anim, &skeleton, &node_to_joint, get, rate)?;
        clips.push(clip);
        curves.push(weights);
        imports.push(import);
    }
    Ok(GltfAsset { skeleton, skin, skins, clips, imports, curves, node_to_joint })
}

fn scene_error(n: usize, scenes: usize) -> Err {
    format!("scene {n}: the file has {scenes} scene{}", if scenes == 1 { "" } else { "s" })
}

/// Required extensions that change nothing the importer reads (materials, textures, lights) or that it reads
/// (`KHR_mesh_quantization`: normalized-integer data, which the importer decodes where it accepts it).
const ACCEPTED_EXTENSIONS: [&str; 6] = [
    "KHR_mesh_quantization",
    "KHR_texture_transform",
    "KHR_texture_basisu",
    "EXT_texture_webp",
    "KHR_lights_punctual",
    "KHR_materials_",
];
/// Required extensions that compress mesh data the importer would have to decode first.
const MESH_COMPRESSION: [&str; 2] = ["KHR_draco_mesh_compression", "EXT_meshopt_compression"];

/// `json` without the required extensions the importer accepts (the `gltf` crate's validation refuses every
/// required extension it does not itself implement); a required extension it cannot honour is an error in one
/// line naming it.
fn accept_required_extensions(mut json: gltf::json::Root) -> Result<gltf::json::Root, Err> {
    for name in &json.extensions_required {
        if MESH_COMPRESSION.contains(&name.as_str()) {
            return Err(format!(
                "requires {name} (compressed meshes), which this importer does not decode: decompress the file first"
            ));
        }
        if !ACCEPTED_EXTENSIONS.iter().any(|accepted| name.starts_with(accepted)) {
            return Err(format!("requires the extension {name}, which this importer does not support"));
        }
    }
    json.extensions_required.clear();
    Ok(json)
}

/// The first few problems of a failed validation (a broken file can list thousands), and how many more.
fn validation_summary(error: gltf::Error) -> Err {
    const SHOWN: usize = 5;
    let gltf::Error::Validation(problems) = error else { return error.to_string() };
    let listed: Vec<String> = problems.iter().take(SHOWN).map(|(path, e)| format!("{path}: {e}")).collect();
    let more = problems.len().saturating_sub(SHOWN);
    let tail = if more > 0 { format!("; and {more} more") } else { String::new() };
    format!("invalid glTF: {}{tail}", listed.join("; "))
}

/// A GLB's declared length must cover its 12-byte header and fit the bytes (the `gltf` crate subtracts the
/// header size from it unchecked).
fn check_glb_header(bytes: &[u8]) -> Result<(), Err> {
    if !bytes.starts_with(b"glTF") {
        return Ok(());
    }
    let declared = bytes.get(8..12).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    match declared {
        Some(len) if (12..=bytes.len()).contains(&len) => Ok(()),
        Some(len) => Err(format!("GLB header declares {len} bytes; the file has {} (at least 12)", bytes.len())),
        None => Err(format!("GLB header truncated at {} bytes", bytes.len())),
    }
}

/// What the `gltf` crate's validation leaves unchecked in animations but its accessors unwrap (target nodes
/// and paths, sampler indices, interpolations, sampler accessors): checked here so a hostile file is an error,
/// not a panic.
fn check_unvalidated_indices(document: &gltf::Document) -> Result<(), Err> {
    use gltf::json::validation::Checked;
    let json = document.as_json();
    for (a, anim) in json.animations.iter().enumerate() {
        for (c, channel) in anim.channels.iter().enumerate() {
            let what = format!("animation {a} channel {c}");
            let node = channel.target.node.value();
            if node >= json.nodes.len() {
                return Err(format!("{what}: target node {node} out of range ({} nodes)", json.nodes.len()));
            }
            if matches!(channel.target.path, Checked::Invalid) {
                return Err(format!("{what}: unknown target path"));
            }
            let sampler = channel.sampler.value();
            if sampler >= anim.samplers.len() {
                return Err(format!("{what}: sampler {sampler} out of range ({} samplers)", anim.samplers.len()));
            }
        }
        for (i, sampler) in anim.samplers.iter().enumerate() {
            let what = format!("animation {a} sampler {i}");
            if matches!(sampler.interpolation, Checked::Invalid) {
                return Err(format!("{what}: unknown interpolation"));
            }
            for accessor in [sampler.input.value(), sampler.output.value()] {
                if accessor >= json.accessors.len() {
                    return Err(format!("{what}: accessor {accessor} out of range ({})", json.accessors.len()));
                }
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
        let what = format!("mesh {} primitive {}", mesh.index(), primitive.index());
        let expected = [
            (gltf::Semantic::Positions, Dimensions::Vec3, &POSITION_TYPES[..]),
            (gltf::Semantic::Joints(0), Dimensions::Vec4, &[DataType::U8, DataType::U16]),
            (gltf::Semantic::Weights(0), Dimensions::Vec4, &[DataType::F32, DataType::U8, DataType::U16]),
        ];
        for (semantic, dimensions, types) in expected {
            if let Some(accessor) = primitive.get(&semantic) {
                check_accessor(&accessor, dimensions, types, &format!("{what} {semantic:?}"))?;
            }
        }
        let reader = primitive.reader(get.clone());
        let positions = primitive.get(&gltf::Semantic::Positions).and_then(|a| read_positions(&a, get.clone()));
        let (Some(positions), Some(joints), Some(weights)) = (positions, reader.read_joints(0), reader.read_weights(0))
        else {
            continue;
        };
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

/// Vertex position types: `f32`, and the integers `KHR_mesh_quantization` allows, normalized or not.
const POSITION_TYPES: [DataType; 5] = [DataType::F32, DataType::I8, DataType::U8, DataType::I16, DataType::U16];

/// A position accessor's values as `f32` (checked by `check_accessor` against `POSITION_TYPES`): integers as
/// their values, or normalized as the spec maps them (`max(c / 127, −1)`, `c / 255`, `max(c / 32767, −1)`,
/// `c / 65535`). A skinned mesh's positions need no dequantizing transform: the spec ignores a skinned mesh
/// node's transform, so the inverse bind matrices carry the quantization's scale and offset.
fn read_positions<'a>(
    accessor: &gltf::Accessor<'_>,
    get: impl Fn(gltf::Buffer<'_>) -> Option<&'a [u8]> + Clone,
) -> Option<Vec<[f32; 3]>> {
    fn read<'a, T: gltf::accessor::Item + Copy>(
        accessor: &gltf::Accessor<'_>,
        get: impl Fn(gltf::Buffer<'_>) -> Option<&'a [u8]> + Clone,
        value: impl Fn(T) -> f32,
    ) -> Option<Vec<[f32; 3]>> {
        let items = gltf::accessor::Iter::<[T; 3]>::new(accessor.clone(), get)?;
        Some(items.map(|p| p.map(&value)).collect())
    }
    let normalized = accessor.normalized();
    let scale = |max: f32| move |c: f32| if normalized { (c / max).max(-1.0) } else { c };
    match accessor.data_type() {
        DataType::F32 => read::<f32>(accessor, get, |c| c),
        DataType::I8 => read::<i8>(accessor, get, |c| scale(127.0)(c as f32)),
        DataType::U8 => read::<u8>(accessor, get, |c| scale(255.0)(c as f32)),
        DataType::I16 => read::<i16>(accessor, get, |c| scale(32767.0)(c as f32)),
        DataType::U16 => read::<u16>(accessor, get, |c| scale(65535.0)(c as f32)),
        _ => None,
    }
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
    rate: Option<f64>,
) -> Result<(RawClip, Vec<RawCurve>, ClipImport), Err> {
    let name = anim.name().map_or_else(|| format!("animation{}", anim.index()), str::to_string);
    let mut tracks = Vec::new();
    let mut weights: Vec<(String, Track)> = Vec::new();
    for channel in anim.channels() {
        let what = format!("animation `{name}` channel {}", channel.index());
        let property = channel.target().property();
        let node = channel.target().node();
        let Some(joint) = node_to_joint[node.index()] else {
            return Err(format!(
                "{what} animates node {} ({}), which is not in the scene imported",
                node.index(),
                node.name().unwrap_or("unnamed")
            ));
        };
        if property == Property::MorphTargetWeights {
            weights.extend(morph_weights(&channel, get.clone(), joint, &what)?);
            continue;
        }
        let sampler = channel.sampler();
        check_accessor(&sampler.input(), Dimensions::Scalar, &[DataType::F32], &format!("{what} input"))?;
        let (dimensions, types) = match property {
            Property::Rotation => {
                (Dimensions::Vec4, &[DataType::F32, DataType::I8, DataType::U8, DataType::I16, DataType::U16][..])
            }
            _ => (Dimensions::Vec3, &[DataType::F32][..]),
        };
        check_accessor(&sampler.output(), dimensions, types, &format!("{what} output"))?;
        let reader = channel.reader(get.clone());
        let times: Vec<f64> = reader.read_inputs().ok_or(format!("{what}: no inputs"))?.map(f64::from).collect();
        let values: Vec<[f64; 4]> = match reader.read_outputs().ok_or(format!("{what}: no outputs"))? {
            gltf::animation::util::ReadOutputs::Translations(it) | gltf::animation::util::ReadOutputs::Scales(it) => {
                it.map(|v| [v[0] as f64, v[1] as f64, v[2] as f64, 0.0]).collect()
            }
            gltf::animation::util::ReadOutputs::Rotations(it) => it.into_f32().map(|v| v.map(f64::from)).collect(),
            gltf::animation::util::ReadOutputs::MorphTargetWeights(_) => continue,
        };
        let track = Track { joint, property, interpolation: channel.sampler().interpolation(), times, values };
        tracks.push(check_track(track, &what)?);
    }
    if weights.len() > sinew::clip::MAX_CLIP_CURVES {
        return Err(format!(
            "animation `{name}`: {} morph weights; a clip may have at most {} curves",
            weights.len(),
            sinew::clip::MAX_CLIP_CURVES
        ));
    }
    name_by_node(&mut weights, skeleton);
    // A morph weight's frames are counted like a joint's against the importer's memory bound.
    let memory_joints = skeleton.parents.len() + weights.len();
    // Joints and morph weights share the clip's timeline.
    let timed: Vec<&Track> = tracks.iter().chain(weights.iter().map(|(_, w)| w)).collect();
    let start = timed.iter().map(|t| t.times[0]).reduce(f64::min).unwrap_or(0.0);
    let end = timed.iter().filter_map(|t| t.times.last().copied()).fold(start, f64::max);
    let duration = end - start;
    let key_intervals = key_grid(&timed, start, duration);
    let mut intervals = match (rate, key_intervals) {
        (Some(rate), _) => (duration * rate).round().max(1.0),
        (None, Some(k)) => k * (MIN_RATE * duration / k).ceil().max(1.0),
        (None, None) => {
            let mut steps: Vec<f64> = timed.iter().flat_map(|t| t.times.windows(2).map(|w| w[1] - w[0])).collect();
            steps.sort_by(f64::total_cmp);
            let median = steps.get(steps.len() / 2).copied().unwrap_or(duration);
            (duration / median).ceil().max((duration * MIN_RATE).ceil()).max(1.0)
        }
    };
    // STEP channels become step keys, whose jumps the runtime reproduces exactly on the key grid.
    let step = step_keys(&tracks, &weights, skeleton.parents.len());
    let evaluator = Evaluator { skeleton, tracks: &tracks, start, step: &step };
    // A frame takes a key within the grid's tolerance of it (a STEP key a jitter after its frame still jumps
    // there); off a grid, only what the clock's rounding moves.
    let key_snap = key_intervals.map_or(KEY_TIME_ROUNDING, |k| GRID_TOLERANCE * duration / k + KEY_TIME_ROUNDING);
    let bake_at = |intervals: f64| -> Result<(RawClip, Vec<RawCurve>, ClipImport), Err> {
        let (num_frames, bake_rate) = match duration > 0.0 {
            true => (intervals + 1.0, intervals / duration),
            false => (1.0, rate.unwrap_or(MIN_RATE)),
        };
        crate::raw::check_clip_shape(num_frames, bake_rate, memory_joints)
            .map_err(|e| format!("animation `{name}` at {bake_rate:.3} Hz: {e}"))?;
        let frame_step = if duration > 0.0 { duration / intervals } else { 0.0 };
        let frames: Vec<Vec<Transform>> = (0..num_frames as usize)
            .map(|f| evaluator.pose(f as f64 * frame_step, key_snap).iter().map(to_transform).collect())
            .collect();
        let (max_error, extent) = evaluator.resampling_error(&frames, frame_step);
        let (curves, weight_error) =
            evaluator.morph_curves(&weights, num_frames as usize, frame_step, bake_rate as f32, key_snap);
        let key_rate = key_intervals.map(|k| k / duration);
        let import = ClipImport { start, duration, rate: bake_rate, key_rate, max_error, extent, weight_error };
        let clip = RawClip { name: name.clone(), sample_rate: bake_rate as f32, frames, step: step.clone() };
        Ok((clip, curves, import))
    };
    let mut best = bake_at(intervals)?;
    // Doubling keeps every key that was a frame a frame. It stops at the target, at the runtime's limits, or
    // when the error no longer falls (a STEP channel's jump stays half a jump wide at any rate).
    let mut doublings = 0;
    while rate.is_none()
        && duration > 0.0
        && doublings < MAX_DOUBLINGS
        && best.2.worst_error() > TARGET_ERROR
        && crate::raw::check_clip_shape(2.0 * intervals + 1.0, 2.0 * best.2.rate, memory_joints).is_ok()
    {
        let doubled = bake_at(2.0 * intervals)?;
        if doubled.2.worst_error() > 0.75 * best.2.worst_error() {
            break;
        }
        (best, intervals, doublings) = (doubled, 2.0 * intervals, doublings + 1);
    }
    Ok(best)
}

/// Gives curves that would share a name (nodes sharing a mesh) their node's name in front, `node/mesh/target`,
/// or the joint's index where the nodes share a name too, so every curve of a clip is found by its name.
fn name_by_node(weights: &mut [(String, Track)], skeleton: &RawSkeleton) {
    let count = |weights: &[(String, Track)], name: &str| weights.iter().filter(|(n, _)| n == name).count();
    for prefix in [|s: &RawSkeleton, j: usize| s.names[j].clone(), |_: &RawSkeleton, j: usize| format!("joint{j}")] {
        let shared: Vec<bool> = weights.iter().map(|(name, _)| count(weights, name) > 1).collect();
        for ((name, track), _) in weights.iter_mut().zip(shared).filter(|(_, shared)| *shared) {
            *name = format!("{}/{name}", prefix(skeleton, track.joint));
        }
    }
}

/// What a clip of `tracks` and morph `weights` steps: everything when every channel is STEP; else each joint's
/// STEP channels, and the curves when every weight channel is STEP (weights that mix are resampled).
fn step_keys(tracks: &[Track], weights: &[(String, Track)], joints: usize) -> StepKeys {
    let is_step = |t: &Track| t.interpolation == Interpolation::Step;
    let mut all = tracks.iter().chain(weights.iter().map(|(_, w)| w)).peekable();
    if all.peek().is_some() && all.all(is_step) {
        return StepKeys::All;
    }
    let curves = !weights.is_empty() && weights.iter().all(|(_, w)| is_step(w));
    if !curves && !tracks.iter().any(is_step) {
        return StepKeys::None;
    }
    let mut channels = vec![[false; 3]; joints];
    for track in tracks.iter().filter(|t| is_step(t)) {
        let channel = match track.property {
            Property::Translation => Channel::Translation,
            Property::Rotation => Channel::Rotation,
            _ => Channel::Scale,
        };
        channels[track.joint][channel as usize] = true;
    }
    StepKeys::Some { channels, curves }
}

/// A channel's keys, checked: as many values as keys (three per key for CUBICSPLINE), finite, times strictly
/// increasing.
fn check_track(track: Track, what: &str) -> Result<Track, Err> {
    let (times, values) = (&track.times, &track.values);
    let per_key = if track.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
    if times.is_empty() || values.len() != times.len() * per_key {
        return Err(format!("{what}: {} keys, {} values", times.len(), values.len()));
    }
    if times.iter().any(|t| !t.is_finite()) || values.iter().flatten().any(|v| !v.is_finite()) {
        return Err(format!("{what}: non-finite key"));
    }
    if let Some(k) = times.windows(2).position(|w| w[1] <= w[0]) {
        return Err(format!(
            "{what}: key times must increase strictly (glTF 2.0); key {} at {} s follows {} s",
            k + 1,
            times[k + 1],
            times[k]
        ));
    }
    Ok(track)
}

/// A morph-weights channel as one scalar track per target (the weight in `x`), each named `mesh/target`: the
/// mesh's name (or `mesh<index>`), and the target's name from the mesh's `extras.targetNames` (the exporters'
/// convention) or its index.
fn morph_weights<'a>(
    channel: &gltf::animation::Channel<'_>,
    get: impl Fn(gltf::Buffer<'_>) -> Option<&'a [u8]> + Clone,
    joint: usize,
    what: &str,
) -> Result<Vec<(String, Track)>, Err> {
    let node = channel.target().node();
    let mesh =
        node.mesh().ok_or_else(|| format!("{what}: morph weights on node {}, which has no mesh", node.index()))?;
    let targets = mesh.primitives().next().map_or(0, |p| p.morph_targets().len());
    if targets == 0 || targets > sinew::clip::MAX_CLIP_CURVES {
        return Err(format!(
            "{what}: morph weights on mesh {} with {targets} morph targets (1 to {} are imported)",
            mesh.index(),
            sinew::clip::MAX_CLIP_CURVES
        ));
    }
    let sampler = channel.sampler();
    check_accessor(&sampler.input(), Dimensions::Scalar, &[DataType::F32], &format!("{what} input"))?;
    let types = [DataType::F32, DataType::I8, DataType::U8, DataType::I16, DataType::U16];
    check_accessor(&sampler.output(), Dimensions::Scalar, &types, &format!("{what} output"))?;
    let reader = channel.reader(get);
    let times: Vec<f64> = reader.read_inputs().ok_or(format!("{what}: no inputs"))?.map(f64::from).collect();
    let flat: Vec<f64> = match reader.read_outputs().ok_or(format!("{what}: no outputs"))? {
        gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => w.into_f32().map(f64::from).collect(),
        _ => return Err(format!("{what}: outputs are not morph weights")),
    };
    if !flat.len().is_multiple_of(targets) {
        return Err(format!("{what}: {} weights for {targets} targets", flat.len()));
    }
    let names: Vec<Option<String>> = mesh
        .extras()
        .as_ref()
        .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
        .and_then(|extras| extras.get("targetNames").and_then(|n| n.as_array()).cloned())
        .map(|names| names.iter().map(|n| n.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let mesh_name = mesh.name().map_or_else(|| format!("mesh{}", mesh.index()), str::to_string);
    (0..targets)
        .map(|k| {
            let target = names.get(k).cloned().flatten().unwrap_or_else(|| k.to_string());
            let values = flat.iter().skip(k).step_by(targets).map(|&w| [w, 0.0, 0.0, 0.0]).collect();
            let track = Track {
                joint,
                property: Property::MorphTargetWeights,
                interpolation: sampler.interpolation(),
                times: times.clone(),
                values,
            };
            Ok((format!("{mesh_name}/{target}"), check_track(track, what)?))
        })
        .collect()
}

/// The number of uniform steps from `start` to `start + duration` on which every key time lies (within
/// `GRID_TOLERANCE` of a step), if any: the coarsest grid whose step divides the shortest key interval a whole
/// number of times, up to `MAX_GRID_RATE` (keys every 9, 10 and 11 steps of 1/24 s lie on the 1/24 s grid).
fn key_grid(tracks: &[&Track], start: f64, duration: f64) -> Option<f64> {
    let mut times: Vec<f64> = tracks.iter().flat_map(|t| t.times.iter().map(|&time| time - start)).collect();
    times.sort_by(f64::total_cmp);
    // Four f32 ulps of the latest time: what storing a grid time in f32 may move it by.
    let noise = 4.0 * f32::EPSILON as f64 * (start.abs() + duration);
    let shortest = times.windows(2).map(|w| w[1] - w[0]).filter(|&d| d > noise).reduce(f64::min)?;
    let most_divisions = (shortest * MAX_GRID_RATE).floor().max(1.0) as u32;
    let steps = (1..=most_divisions).find_map(|n| grid_step(&times, shortest / n as f64, noise))?;
    (duration > 0.0).then(|| (duration / steps).round())
}

/// The step of the grid near `guess` that every time lies on, if one does. Each time's grid index comes from
/// the step refined so far (its time over its index, so the error shrinks as the times get later and long clips
/// keyed in `f32` stay on the grid); then every time is checked against the final step, the least-squares fit
/// through the origin, within `GRID_TOLERANCE` of it.
fn grid_step(times: &[f64], guess: f64, noise: f64) -> Option<f64> {
    let mut step = guess;
    let mut indices = Vec::with_capacity(times.len());
    for &time in times {
        let k = (time / step).round();
        indices.push(k);
        if k >= 1.0 {
            step = time / k;
        }
    }
    let (sum_tk, sum_kk) = times.iter().zip(&indices).fold((0.0, 0.0), |(tk, kk), (t, k)| (tk + t * k, kk + k * k));
    let step = if sum_kk > 0.0 { sum_tk / sum_kk } else { guess };
    let on_grid = times.iter().zip(&indices).all(|(t, k)| (t - k * step).abs() <= GRID_TOLERANCE * step + noise);
    on_grid.then_some(step)
}

/// A sampled local transform in f64: translation, rotation `(x, y, z, w)`, scale.
type Local = ([f64; 3], [f64; 4], [f64; 3]);

fn to_transform(l: &Local) -> Transform {
    let (t, q, s) = l;
    let len = q.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-30);
    Transform {
        translation: Vec3::new(t[0] as f32, t[1] as f32, t[2] as f32),
        rotation: Quat::new((q[0] / len) as f32, (q[1] / len) as f32, (q[2] / len) as f32, (q[3] / len) as f32),
        scale: Vec3::new(s[0] as f32, s[1] as f32, s[2] as f32),
    }
}

fn from_transform(t: &Transform) -> Local {
    let (v, q, s) = (t.translation, t.rotation, t.scale);
    (
        [v.x as f64, v.y as f64, v.z as f64],
        [q.x as f64, q.y as f64, q.z as f64, q.w as f64],
        [s.x as f64, s.y as f64, s.z as f64],
    )
}

/// The glTF evaluation of one animation, in f64.
struct Evaluator<'a> {
    skeleton: &'a RawSkeleton,
    tracks: &'a [Track],
    start: f64,
    /// What the clip steps (its STEP channels).
    step: &'a StepKeys,
}

impl Evaluator<'_> {
    /// Local transforms of every joint at clip time `time` (glTF time `start + time`).
    /// STEP keys up to `snap` seconds after `time` count as reached.
    fn pose(&self, time: f64, snap: f64) -> Vec<Local> {
        let mut pose: Vec<Local> = self.skeleton.rest.iter().map(from_transform).collect();
        for track in self.tracks {
            let v = evaluate(track, self.start + time, snap);
            let local = &mut pose[track.joint];
            match track.property {
                Property::Translation => local.0 = [v[0], v[1], v[2]],
                Property::Scale => local.2 = [v[0], v[1], v[2]],
                _ => local.1 = v,
            }
        }
        pose
    }

    /// The largest model-space distance between the glTF evaluation and `frames` interpolated as the runtime
    /// samples them, over every joint's virtual points (the joint and `VIRTUAL_POINT_FRACTION` of the figure's
    /// extent along each of its axes, so a leaf's rotation and scale count), at every key time and half way
    /// between frames; and the figure's extent (the largest side of the joints' bounding box over those times).
    fn resampling_error(&self, frames: &[Vec<Transform>], frame_step: f64) -> (f64, f64) {
        let parents = &self.skeleton.parents;
        let mut times: Vec<f64> = self.tracks.iter().flat_map(|t| t.times.iter().map(|&k| k - self.start)).collect();
        times.extend((0..frames.len() - 1).map(|f| (f as f64 + 0.5) * frame_step));
        times.push(0.0);
        times.sort_by(f64::total_cmp);
        times.dedup();
        let poses: Vec<(Vec<Trs>, Vec<Trs>)> = times
            .iter()
            .map(|&time| {
                let resampled = sample_frames(frames, frame_step, time, self.step);
                (trs_pose(&self.pose(time, KEY_TIME_ROUNDING)), resampled)
            })
            .collect();
        let (mut lo, mut hi) = (DVec3::splat(f64::MAX), DVec3::splat(f64::MIN));
        for (source, _) in &poses {
            for joint in virtual_points(parents, source, 0.0) {
                (lo, hi) = (lo.min(joint[0]), hi.max(joint[0]));
            }
        }
        let extent = (hi - lo).max_element().max(0.0);
        let distance = VIRTUAL_POINT_FRACTION * if extent > 0.0 { extent } else { 1.0 };
        let mut worst = 0.0f64;
        for (source, resampled) in &poses {
            let (want, got) = (virtual_points(parents, source, distance), virtual_points(parents, resampled, distance));
            for (w, g) in want.iter().zip(&got) {
                worst = (0..4).map(|p| w[p].distance(g[p])).fold(worst, f64::max);
            }
        }
        (worst, extent)
    }
}

impl Evaluator<'_> {
    /// Each morph weight as a curve keyed at every frame (as `RawCurve::frame_values` reads it back, so each
    /// frame holds the glTF value), and the largest difference between the glTF weights and those frames as
    /// the runtime samples them (interpolated or held), at every key time and half way between frames.
    fn morph_curves(
        &self,
        weights: &[(String, Track)],
        frames: usize,
        frame_step: f64,
        rate: f32,
        snap: f64,
    ) -> (Vec<RawCurve>, f64) {
        let mut worst = 0.0f64;
        let curves = weights
            .iter()
            .map(|(name, track)| {
                let at = |f: usize| evaluate(track, self.start + f as f64 * frame_step, snap)[0];
                let values: Vec<f64> = (0..frames).map(at).collect();
                let mut probes: Vec<f64> = track.times.iter().map(|t| t - self.start).collect();
                probes.extend((0..frames.saturating_sub(1)).map(|f| (f as f64 + 0.5) * frame_step));
                for time in probes {
                    let want = evaluate(track, self.start + time, KEY_TIME_ROUNDING)[0];
                    worst = worst.max((want - sampled_weight(&values, frame_step, time, self.step.curves())).abs());
                }
                let keys = values
                    .iter()
                    .enumerate()
                    .map(|(f, &value)| RawCurveKey { time: f as f32 / rate, value: value as f32, slope: 0.0 })
                    .collect();
                RawCurve { name: name.clone(), precision: Some(MORPH_WEIGHT_PRECISION), keys }
            })
            .collect();
        (curves, worst)
    }
}

/// A curve's per-frame `values` at `time` as the runtime samples them: lerp between frames, or the reached
/// frame for step keys (within the runtime's snap).
fn sampled_weight(values: &[f64], frame_step: f64, time: f64, step: bool) -> f64 {
    let (f, next, u) = runtime_position(values.len(), frame_step, time, step);
    values[f] + (values[next] - values[f]) * u
}

/// A pose of f64 locals as [`Trs`]s, rotations normalized.
fn trs_pose(pose: &[Local]) -> Vec<Trs> {
    pose.iter()
        .map(|(t, q, s)| Trs {
            translation: DVec3::from_array(*t),
            rotation: DQuat::from_xyzw(q[0], q[1], q[2], q[3]).normalize(),
            scale: DVec3::from_array(*s),
        })
        .collect()
}

/// The channel's value at `time` (clamped to its keys), per the glTF 2.0 interpolation rules; a STEP key up to
/// `snap` seconds after `time` counts as reached (a frame's time, computed from the clip's start and step,
/// lands a rounding below the key it stands for).
fn evaluate(track: &Track, time: f64, snap: f64) -> [f64; 4] {
    let times = &track.times;
    if track.interpolation == Interpolation::Step {
        let k = times.partition_point(|&t| t <= time + snap).max(1) - 1;
        return track.values[k];
    }
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
