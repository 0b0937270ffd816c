//! What one character of the profiler's crowds plays: a skeleton, a clip and a skin, from the procedural rig
//! or a file.

use sinew_tools::bake::KeyFormat;

use sinew::math::Mat3x4;
use sinew_tools::raw::{RawClip, RawSkeleton};
use sinew_tools::rig::Rig;

/// A skeleton, a clip with the format its keys are baked in, and a skin: everything one character of a crowd
/// plays.
pub struct Workload {
    pub name: String,
    pub skeleton: RawSkeleton,
    pub clip: RawClip,
    /// `f32` unless [`Workload::with_keys`] says otherwise.
    pub keys: KeyFormat,
    pub skin_remap: Vec<u16>,
    pub inverse_bind: Vec<Mat3x4>,
}

/// How the profiler bakes a workload's keys (`sinew-bench profile --keys`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Keys {
    #[default]
    F32,
    /// 6-byte keys.
    Quantized,
    /// Compressed with `sinew-bake --compress`'s defaults ([`sinew_tools::compress::Precision::default_on_figure`]).
    Compressed,
}

impl Workload {
    /// The same workload with its keys baked as `keys` say; the name says which unless they are `f32`.
    pub fn with_keys(mut self, keys: Keys) -> Workload {
        let (format, label) = match keys {
            Keys::F32 => (KeyFormat::F32, None),
            Keys::Quantized => (KeyFormat::Quantized, Some("quantized")),
            Keys::Compressed => (
                KeyFormat::Compressed(sinew_tools::compress::Precision::default_on_figure(
                    &self.skeleton,
                    std::slice::from_ref(&self.clip),
                )),
                Some("compressed"),
            ),
        };
        if let Some(label) = label {
            self.name = format!("{} ({label})", self.name);
        }
        self.keys = format;
        self
    }

    /// The procedural humanoid playing its procedural 2 s clip at 30 Hz.
    pub fn humanoid(num_joints: usize) -> Workload {
        let rig = Rig::humanoid(num_joints);
        Workload {
            name: format!("humanoid-{}", rig.num_joints()),
            skeleton: rig.raw_skeleton(),
            clip: rig.clip(61, 30.0),
            keys: KeyFormat::F32,
            skin_remap: rig.skin_remap.clone(),
            inverse_bind: rig.inverse_bind.clone(),
        }
    }

    /// A BVH file: its skeleton and motion; the skin binds every joint at the rest pose.
    pub fn bvh(path: &std::path::Path) -> Result<Workload, String> {
        let bvh = sinew_tools::bvh::Bvh::load(path).map_err(|e| e.to_string())?;
        let (skeleton, clip) = sinew_tools::bvh::to_raw(&bvh, "clip")?;
        Ok(Workload::skinned_at_rest(file_name(path), skeleton, clip))
    }

    /// A baked blob: its skeleton and first clip (sampled back at every frame); the skin binds every joint at
    /// the rest pose, as for BVH.
    pub fn blob(path: &std::path::Path) -> Result<Workload, String> {
        let blob = sinew_tools::blob::read(path)?;
        let (skeleton, clip) = sinew_tools::blob::raw(&blob, 0).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Workload::skinned_at_rest(file_name(path), skeleton, clip))
    }

    /// A workload whose skin binds every joint at the rest pose (files without a skin of their own).
    fn skinned_at_rest(name: String, skeleton: RawSkeleton, clip: RawClip) -> Workload {
        let inverse_bind = sinew_tools::rig::inverse_bind_of_rest(&skeleton.parents, &skeleton.rest);
        let skin_remap = (0..skeleton.parents.len() as u16).collect();
        Workload { name, skeleton, clip, keys: KeyFormat::F32, skin_remap, inverse_bind }
    }

    /// A glTF file: its scene, first animation and first skin.
    pub fn gltf(path: &std::path::Path) -> Result<Workload, String> {
        let asset = sinew_tools::gltf_import::load(path)?;
        let clip = asset.clips.into_iter().next().ok_or("the file has no animation")?;
        let skin = asset.skin.ok_or("the file has no skin")?;
        Ok(Workload {
            name: file_name(path),
            skeleton: asset.skeleton,
            clip,
            keys: KeyFormat::F32,
            skin_remap: skin.remap,
            inverse_bind: skin.inverse_bind,
        })
    }
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// The blob of the crate docs' example (`docs/example.snw`): the 22-joint humanoid, two quantized clips
/// (`swing`, and `back`: the same frames reversed) with a footstep marker each, and its skin.
pub fn example_blob() -> Result<sinew_tools::raw::AlignedBlob, String> {
    use sinew_tools::bake::KeyFormat;
    use sinew_tools::raw::{Extras, RawAnnotations, RawMarker, RawSkin};
    let rig = Rig::humanoid(22);
    let mut swing = rig.clip(31, 30.0);
    swing.name = "swing".into();
    let mut back = swing.clone();
    back.name = "back".into();
    back.frames.reverse();
    let footstep = |time| RawAnnotations {
        markers: vec![RawMarker { name: "footstep".into(), time, value: 0.0 }],
        ..Default::default()
    };
    let extras = Extras {
        annotations: vec![footstep(0.5), footstep(0.25)],
        skin: Some(RawSkin { remap: rig.skin_remap.clone(), inverse_bind: rig.inverse_bind.clone() }),
        ..Default::default()
    };
    sinew_tools::bake::bake_with(&rig.raw_skeleton(), &[swing, back], KeyFormat::Quantized, &extras)
}

/// Tracks whose decoders a context playing `clip` keeps, as a game playing it would: every animated track of a
/// compressed clip, none of other keys (they have no decoders).
pub fn decoder_tracks(clip: &sinew::Clip<'_>) -> usize {
    match clip.keys() {
        sinew::clip::Keys::Compressed(_) => clip.num_tracks().iter().sum(),
        _ => 0,
    }
}
