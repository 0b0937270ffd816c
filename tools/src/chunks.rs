//! Bone-mask decomposition at bake (Just Cause 3's building blocks): clips split into chunks by joint masks,
//! each chunk a clip of its own that stores tracks for its joints only, so shared parts (one lower body under
//! several upper bodies) are in the blob once. The runtime reassembles chunks with a blend graph's `Chunks`
//! node, bit for bit the unsplit clip's sample (`sinew::blending::place_chunk`).
//!
//! The sidecar (`sinew-bake bake --chunks FILE.json`):
//!
//! ```json
//! {"chunks": [
//!   {"clip": "walk", "name": "walk:lower", "subtrees": ["joint_Root"], "without": ["Spine"]},
//!   {"clip": "walk", "name": "walk:upper", "subtrees": ["Spine"]}
//! ]}
//! ```
//!
//! A chunk's joints are its `subtrees` (each joint and every joint below it) and `joints` (each alone), less its
//! `without` subtrees. A clip named by any chunk is replaced by its chunks, in the sidecar's order, where it
//! stood; the others are baked whole. Each chunk keeps its clip's markers, ranges and phase; its curves go with
//! the clip's first chunk only, so they are sampled once.

use crate::raw::{Extras, RawClip, RawSkeleton};

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Sidecar {
    chunks: Vec<ChunkSpec>,
}

/// One chunk as the sidecar names it.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkSpec {
    /// The clip it is cut from.
    pub clip: String,
    /// Its own clip name in the blob.
    pub name: String,
    /// Joints taken with every joint below them.
    #[serde(default)]
    pub subtrees: Vec<String>,
    /// Joints taken alone.
    #[serde(default)]
    pub joints: Vec<String>,
    /// Joints left out with every joint below them.
    #[serde(default)]
    pub without: Vec<String>,
}

/// The chunk sidecar at `path` (at most `annotate::MAX_SIDECAR_BYTES`).
pub fn read_sidecar(path: &std::path::Path) -> Result<Vec<ChunkSpec>, String> {
    let sidecar: Sidecar = crate::annotate::read_json(path, "chunk file")?;
    Ok(sidecar.chunks)
}

/// The joints `spec` names on `skeleton`, one flag per joint.
///
/// Errors: a joint name the skeleton does not have; no joint left.
pub fn mask(skeleton: &RawSkeleton, spec: &ChunkSpec) -> Result<Vec<bool>, String> {
    let index = |name: &String| {
        skeleton.names.iter().position(|n| n == name).ok_or_else(|| {
            format!("chunk `{}`: the skeleton has no joint {name:?} (joints: {})", spec.name, skeleton.names.join(", "))
        })
    };
    // Parents come first, so one forward pass marks a subtree.
    let subtree = |root: usize| -> Vec<bool> {
        let mut inside = vec![false; skeleton.parents.len()];
        for (j, &parent) in skeleton.parents.iter().enumerate() {
            inside[j] = j == root || (parent >= 0 && inside[parent as usize]);
        }
        inside
    };
    let mut mask = vec![false; skeleton.parents.len()];
    for name in &spec.subtrees {
        mask.iter_mut().zip(subtree(index(name)?)).for_each(|(m, s)| *m |= s);
    }
    for name in &spec.joints {
        mask[index(name)?] = true;
    }
    for name in &spec.without {
        mask.iter_mut().zip(subtree(index(name)?)).for_each(|(m, s)| *m &= !s);
    }
    if !mask.contains(&true) {
        return Err(format!("chunk `{}`: no joint left in its mask", spec.name));
    }
    Ok(mask)
}

/// `clips` with every clip a chunk names replaced by its chunks, `extras` to match (each chunk's mask in
/// `masks`), and a report line per split clip (its chunks' joint counts, the joints no chunk takes).
///
/// Errors: a chunk naming a clip that is not there or a joint the skeleton lacks, an empty mask, or a chunk
/// name used twice or by a clip baked whole; `extras` that already hold masks.
pub fn split(
    skeleton: &RawSkeleton,
    clips: Vec<RawClip>,
    extras: Extras,
    specs: &[ChunkSpec],
) -> Result<(Vec<RawClip>, Extras, String), String> {
    if !extras.masks.is_empty() {
        return Err("clips split into chunks twice".into());
    }
    if let Some(spec) = specs.iter().find(|s| !clips.iter().any(|c| c.name == s.clip)) {
        let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
        return Err(format!("chunk `{}`: no clip named {:?} (clips: {})", spec.name, spec.clip, names.join(", ")));
    }
    let masks: Vec<Vec<bool>> = specs.iter().map(|s| mask(skeleton, s)).collect::<Result<_, _>>()?;
    let kept = clips.iter().filter(|c| !specs.iter().any(|s| s.clip == c.name)).map(|c| &c.name);
    let mut names: Vec<&String> = kept.chain(specs.iter().map(|s| &s.name)).collect();
    names.sort();
    if let Some(twice) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("chunks: the clip name {:?} is used twice", twice[0]));
    }

    let Extras { annotations, skin, phases, .. } = extras;
    let mut out = Extras { skin, ..Default::default() };
    let mut out_clips = Vec::with_capacity(clips.len() + specs.len());
    let mut report = String::new();
    for (i, clip) in clips.into_iter().enumerate() {
        let annotation = annotations.get(i);
        let phase = phases.get(i);
        let chunks: Vec<(&ChunkSpec, &Vec<bool>)> =
            specs.iter().zip(&masks).filter(|(s, _)| s.clip == clip.name).collect();
        if chunks.is_empty() {
            out.annotations.extend(annotation.cloned());
            out.phases.extend(phase.cloned());
            out.masks.push(None);
            out_clips.push(clip);
            continue;
        }
        let mut covered = vec![false; skeleton.parents.len()];
        let mut parts = Vec::new();
        for (k, (spec, mask)) in chunks.into_iter().enumerate() {
            covered.iter_mut().zip(mask).for_each(|(c, m)| *c |= m);
            parts.push(format!("`{}` {} joints", spec.name, mask.iter().filter(|m| **m).count()));
            // The curves go with the first chunk only.
            out.annotations.extend(annotation.map(|a| {
                let mut a = a.clone();
                if k > 0 {
                    a.curves.clear();
                }
                a
            }));
            out.phases.extend(phase.cloned());
            out.masks.push(Some(mask.clone()));
            out_clips.push(RawClip { name: spec.name.clone(), ..clip.clone() });
        }
        let left = covered.iter().filter(|c| !**c).count();
        report += &format!(
            "\n  `{}` split into chunks: {}; {left} joints in none (the rest pose when reassembled)",
            clip.name,
            parts.join(", ")
        );
    }
    Ok((out_clips, out, report))
}

/// `clip` as a chunk with `mask` plays on its own: the joints outside the mask at the rest pose.
pub fn masked(skeleton: &RawSkeleton, clip: &RawClip, mask: &[bool]) -> RawClip {
    let frames = clip
        .frames
        .iter()
        .map(|frame| frame.iter().zip(mask).zip(&skeleton.rest).map(|((t, &m), r)| if m { *t } else { *r }).collect())
        .collect();
    RawClip { frames, ..clip.clone() }
}
