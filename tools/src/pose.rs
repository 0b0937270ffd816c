//! Pose export for checking against other tools: a baked clip sampled at one time through the runtime path
//! (asset load → sampling → local-to-model), model-space joint positions as JSON.

use crate::bake::KeyFormat;

use crate::raw::AlignedBlob;
use crate::sample::sample_clamped;
use sinew::math::{Mat4, SoaTransform};
use sinew::{Arena, Asset, Interpolation, LocalToModelJob, SamplingContext};
use sinew::{Palette, SkinningJob};

/// A baked blob through the runtime's loader (every section validated).
fn load(blob: &AlignedBlob) -> Result<Asset<'_>, String> {
    Asset::load(blob.bytes()).map_err(|e| e.to_string())
}

/// Model-space matrices of every joint of clip `clip` of a loaded asset at `time` seconds (clamped), sampled
/// with `interpolation`.
pub fn model_pose(
    asset: &Asset<'_>,
    clip: usize,
    time: f32,
    interpolation: Interpolation,
) -> Result<Vec<Mat4>, String> {
    Ok(sampled_pose(asset, clip, time, interpolation)?.1)
}

/// The local (SoA) pose and the model matrices of clip `clip` at `time` seconds (clamped).
fn sampled_pose(
    asset: &Asset<'_>,
    clip: usize,
    time: f32,
    interpolation: Interpolation,
) -> Result<(Vec<SoaTransform>, Vec<Mat4>), String> {
    let skeleton = asset.skeleton();
    let clip = asset.clip(clip).ok_or_else(|| format!("asset has {} clips", asset.num_clips()))?;
    let n = skeleton.num_joints();
    let mut memory = vec![0u8; SamplingContext::required_bytes_for(n, 0, interpolation)];
    let arena = Arena::new(&mut memory);
    let mut context = SamplingContext::with_interpolation(&arena, n, 0, interpolation).map_err(|e| e.to_string())?;
    let mut local = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    sample_clamped(skeleton, &clip, time, &mut context, &mut local)?;
    let mut model = vec![Mat4::IDENTITY; n];
    LocalToModelJob { skeleton, walk: None, local: &local, root: None, model: &mut model }
        .run()
        .map_err(|e| e.to_string())?;
    Ok((local, model))
}

/// `{"joints":[…]}` with each joint's name, parent and model-space position.
fn joints_json(names: &[String], parents: &[i16], model: &[Mat4]) -> serde_json::Value {
    let joints: Vec<serde_json::Value> = model
        .iter()
        .enumerate()
        .map(|(j, m)| {
            let p = m.translation();
            serde_json::json!({"name": names[j], "parent": parents[j], "position": [p.x, p.y, p.z]})
        })
        .collect();
    serde_json::json!({ "joints": joints })
}

/// What `sinew-bench ik` solves: a chain of joint names (root first), a model-space target and pole, and the
/// solver.
#[derive(Clone, Debug)]
pub struct IkRequest {
    pub chain: Vec<String>,
    pub target: [f32; 3],
    pub pole: Option<[f32; 3]>,
    /// CCD (any chain length, free joints) instead of the analytic two-bone solver.
    pub ccd: bool,
}

/// CCD's settings for `sinew-bench ik --solver ccd`: the end within 1e-5 of the chain's length of the target,
/// at most 400 iterations, 0.5 rad per joint and iteration.
const CCD_TOLERANCE: f32 = 1e-5;
const CCD_ITERATIONS: u32 = 400;
const CCD_STEP: f32 = 0.5;

/// The BVH file's pose at `time` after IK on `request` (through the runtime: bake, sample, local-to-model,
/// `TwoBoneIkJob` or `CcdIkJob`, local-to-model again), in `pose`'s JSON.
pub fn bvh_ik_json(path: &std::path::Path, time: f32, request: &IkRequest) -> Result<serde_json::Value, String> {
    let bvh = crate::bvh::Bvh::load(path).map_err(|e| e.to_string())?;
    let (raw, clip) = crate::bvh::to_raw(&bvh, "clip")?;
    let blob = crate::bake::bake(&raw, &[clip], KeyFormat::F32)?;
    let asset = load(&blob)?;
    let (mut local, mut model) = sampled_pose(&asset, 0, time, Interpolation::Linear)?;
    let index = |name: &String| {
        raw.names.iter().position(|n| n == name).ok_or_else(|| format!("--chain: no joint named {name:?}"))
    };
    let chain: Vec<usize> = request.chain.iter().map(index).collect::<Result<_, _>>()?;
    let vec3 = |v: [f32; 3]| sinew::math::Vec3::new(v[0], v[1], v[2]);
    let skeleton = asset.skeleton();
    let context = |e: sinew::Error| format!("--chain {}: {e}", request.chain.join(","));
    if request.ccd {
        if request.pole.is_some() {
            return Err("--pole: the CCD solver takes no pole".into());
        }
        let length: f32 =
            chain.windows(2).map(|w| (model[w[1]].translation() - model[w[0]].translation()).length()).sum();
        let limits = vec![sinew::ik::JointLimit::Free; chain.len().saturating_sub(1)];
        sinew::ik::CcdIkJob {
            skeleton,
            chain: &chain,
            limits: &limits,
            target: vec3(request.target),
            tolerance: CCD_TOLERANCE * length,
            max_iterations: CCD_ITERATIONS,
            max_step: CCD_STEP,
            model: &model,
            local: &mut local,
        }
        .run()
        .map_err(context)?;
    } else {
        let [root, middle, end] = <[usize; 3]>::try_from(chain)
            .map_err(|c| format!("--chain: two-bone IK takes three joints (root, middle, end), got {}", c.len()))?;
        sinew::ik::TwoBoneIkJob {
            skeleton,
            chain: [root, middle, end],
            target: vec3(request.target),
            pole: request.pole.map(vec3),
            weight: 1.0,
            soften: 1.0,
            end_turn: None,
            model: &model,
            local: &mut local,
        }
        .run()
        .map_err(context)?;
    }
    LocalToModelJob { skeleton, walk: None, local: &local, root: None, model: &mut model }
        .run()
        .map_err(|e| e.to_string())?;
    Ok(joints_json(&raw.names, &raw.parents, &model))
}

/// `{"joints":[{"name", "parent", "position"}, …]}` for a BVH file at `time`: every ROOT/JOINT in file
/// order, positions in the file's units.
pub fn bvh_pose_json(
    path: &std::path::Path,
    time: f32,
    format: KeyFormat,
    interpolation: Interpolation,
) -> Result<serde_json::Value, String> {
    let bvh = crate::bvh::Bvh::load(path).map_err(|e| e.to_string())?;
    let (skeleton, clip) = crate::bvh::to_raw(&bvh, "clip")?;
    let blob = crate::bake::bake(&skeleton, &[clip], format)?;
    let model = model_pose(&load(&blob)?, 0, time, interpolation)?;
    Ok(joints_json(&skeleton.names, &skeleton.parents, &model))
}

/// `{"joints":[…]}` for clip `clip` (index or name) of a baked blob at `time` seconds: every joint in
/// skeleton order with the blob's names.
pub fn blob_pose_json(
    blob: &AlignedBlob,
    clip: &str,
    time: f32,
    interpolation: Interpolation,
) -> Result<serde_json::Value, String> {
    let asset = load(blob)?;
    let model = model_pose(&asset, crate::blob::clip_index(&asset, clip)?, time, interpolation)?;
    let skeleton = asset.skeleton();
    let joints: Vec<serde_json::Value> = model
        .iter()
        .enumerate()
        .map(|(j, m)| {
            let p = m.translation();
            let name = skeleton.name(j).unwrap_or("");
            serde_json::json!({"name": name, "parent": skeleton.parents()[j], "position": [p.x, p.y, p.z]})
        })
        .collect();
    Ok(serde_json::json!({ "joints": joints }))
}

/// A glTF file imported and baked once, posed at any clip and time.
pub struct GltfPoser {
    asset: crate::gltf_import::GltfAsset,
    blob: AlignedBlob,
}

/// A time on one of a glTF clip's two timelines.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum At {
    /// Seconds from the clip's first key: what a time means for every input (a BVH's frame `k` is at
    /// `k × Frame Time`, a blob's clip starts at 0).
    Clip(f32),
    /// Seconds on the glTF file's own timeline, on which the clip starts at its first key's time.
    File(f64),
}

/// The glTF pose of clip `clip` (index or name) at `at`; see [`GltfPoser::pose_json`].
pub fn gltf_pose_json(
    path: &std::path::Path,
    clip: &str,
    at: At,
    skin: bool,
    format: KeyFormat,
) -> Result<serde_json::Value, String> {
    GltfPoser::new(path, format)?.pose_json(clip, at, skin, Interpolation::Linear)
}

impl GltfPoser {
    pub fn new(path: &std::path::Path, format: KeyFormat) -> Result<GltfPoser, String> {
        let asset = crate::gltf_import::load(path)?;
        let blob = crate::bake::bake(&asset.skeleton, &asset.clips, format)?;
        Ok(GltfPoser { asset, blob })
    }

    /// The pose of clip `clip` (index or name) at `at` (clamped to the clip), in scene space.
    /// Joints are the first skin's joints in skin order (all scene nodes when there is no skin); `parent` is
    /// the nearest ancestor in that list. With `skin`, adds `"vertices"`: the first skinned primitive's
    /// positions skinned by the runtime palette (`model × inverse bind`, the mesh node's transform ignored, as
    /// glTF 2.0 specifies).
    pub fn pose_json(
        &self,
        clip: &str,
        at: At,
        skin: bool,
        interpolation: Interpolation,
    ) -> Result<serde_json::Value, String> {
        let (asset, blob) = (&self.asset, &self.blob);
        let runtime = load(blob)?;
        let index = crate::blob::clip_index(&runtime, clip)?;
        // Clip time 0 is the animation's first key.
        let start = asset.imports.get(index).map_or(0.0, |i| i.start);
        let time = match at {
            At::Clip(time) => time,
            At::File(time) => (time - start) as f32,
        };
        let model = model_pose(&runtime, index, time, interpolation)?;
        let n = asset.skeleton.parents.len();
        let listed: Vec<usize> = match &asset.skin {
            Some(s) => s.remap.iter().map(|&j| j as usize).collect(),
            None => (0..n).collect(),
        };
        let mut slot = vec![None; n];
        for (i, &j) in listed.iter().enumerate() {
            slot[j] = Some(i);
        }
        let joints: Vec<serde_json::Value> = listed
            .iter()
            .map(|&j| {
                let mut parent = asset.skeleton.parents[j];
                while parent >= 0 && slot[parent as usize].is_none() {
                    parent = asset.skeleton.parents[parent as usize];
                }
                let parent = if parent < 0 { -1 } else { slot[parent as usize].map_or(-1, |s| s as i64) };
                let p = model[j].translation();
                serde_json::json!({"name": asset.skeleton.names[j], "parent": parent, "position": [p.x, p.y, p.z]})
            })
            .collect();
        let mut out = serde_json::json!({ "joints": joints });
        if skin {
            let s = asset.skin.as_ref().ok_or("--skin: the file has no skin")?;
            let mesh = s.mesh.as_ref().ok_or("--skin: no mesh primitive uses the first skin")?;
            let runtime_skin = sinew::Skin::new(n, &s.remap, &s.inverse_bind).map_err(|e| e.to_string())?;
            let mut palette = vec![Mat4::IDENTITY; s.remap.len()];
            SkinningJob { skin: &runtime_skin, model: &model, palette: Palette::Matrices(&mut palette) }
                .run()
                .map_err(|e| e.to_string())?;
            let influences =
                sinew::Influences::new(4, bytemuck::cast_slice(&mesh.joints), bytemuck::cast_slice(&mesh.weights))
                    .map_err(|e| e.to_string())?;
            let layout = sinew::vertex_skinning::VertexLayout::POSITIONS;
            let mut skinned = vec![[0.0f32; 3]; mesh.positions.len()];
            sinew::VertexSkinningJob {
                palette: &palette,
                influences: &influences,
                normal_mode: sinew::vertex_skinning::NormalMode::Rigid,
                input: bytemuck::cast_slice(&mesh.positions),
                input_layout: layout,
                output: bytemuck::cast_slice_mut(&mut skinned),
                output_layout: layout,
            }
            .run()
            .map_err(|e| e.to_string())?;
            let vertices = skinned;
            out["vertices"] = serde_json::json!(vertices);
        }
        Ok(out)
    }
}
