//! Pose export for checking against other tools: a baked clip sampled at one time through the runtime path
//! (asset load → sampling → local-to-model), model-space joint positions as JSON.

use crate::bake::{AlignedBlob, KeyFormat};
use sinew::math::{Mat4, SoaTransform};
use sinew::{Arena, Asset, LocalToModelJob, Playback, SamplingContext, SamplingJob};

/// Model-space matrices of every joint of clip `clip` of a baked asset at `time` seconds (clamped).
pub fn model_pose(blob: &AlignedBlob, clip: usize, time: f32) -> Result<Vec<Mat4>, String> {
    let asset = Asset::load(blob.bytes()).map_err(|e| e.to_string())?;
    let skeleton = asset.skeleton();
    let clip = asset.clip(clip).ok_or_else(|| format!("asset has {} clips", asset.num_clips()))?;
    let n = skeleton.num_joints();
    let mut memory = vec![0u8; SamplingContext::required_bytes(n)];
    let arena = Arena::new(&mut memory);
    let mut context = SamplingContext::new(&arena, n).map_err(|e| e.to_string())?;
    let mut local = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    SamplingJob { skeleton, clip: &clip, time, playback: Playback::Clamp, context: &mut context, output: &mut local }
        .run()
        .map_err(|e| e.to_string())?;
    let mut model = vec![Mat4::IDENTITY; n];
    LocalToModelJob { skeleton, local: &local, root: None, model: &mut model }.run().map_err(|e| e.to_string())?;
    Ok(model)
}

/// `{"joints":[{"name", "parent", "position"}, …]}` for a BVH file at `time`: every ROOT/JOINT in file
/// order, positions in the file's units.
pub fn bvh_pose_json(path: &std::path::Path, time: f32, format: KeyFormat) -> Result<serde_json::Value, String> {
    let bvh = crate::bvh::Bvh::load(path).map_err(|e| e.to_string())?;
    let (skeleton, clip) = crate::bake::from_bvh(&bvh, "clip")?;
    let blob = crate::bake::bake(&skeleton, &[clip], format)?;
    let model = model_pose(&blob, 0, time)?;
    let joints: Vec<serde_json::Value> = model
        .iter()
        .enumerate()
        .map(|(j, m)| {
            let p = m.translation();
            serde_json::json!({"name": skeleton.names[j], "parent": skeleton.parents[j], "position": [p.x, p.y, p.z]})
        })
        .collect();
    Ok(serde_json::json!({ "joints": joints }))
}
