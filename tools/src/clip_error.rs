//! The error a viewer sees in a baked clip: the model-space positions of virtual points at a distance from each
//! joint (the joint itself and one point along each of its local axes, ACL's measure), raw against decoded,
//! at every frame and halfway between frames. Model space means the error propagates down the hierarchy: a
//! hip's error counts at the toes, and a rotation error counts at the distance of the points it moves.
//!
//! Both sides are composed in f64: the raw side from the importer's transforms (normalized lerp between frames,
//! as the runtime interpolates), the decoded side from what `SamplingJob` returns for the baked clip. So the
//! figure is the storage's error alone, not f32 rounding of the hierarchy.

use crate::dmath::{Trs, virtual_points};
use crate::raw::{RawClip, RawSkeleton, sample_frames};
use crate::sample::sample_clamped;
use sinew::math::{SoaTransform, Transform, unpack_soa};
use sinew::{Arena, Asset, Interpolation, SamplingContext};

/// A clip's virtual-point error, file units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipError {
    /// The largest over every joint and sampled time.
    pub max: f64,
    /// The 99th percentile over (joint, time) pairs.
    pub p99: f64,
    /// Times compared: every frame and every midpoint.
    pub samples: usize,
}

/// The virtual-point error of clip `index` of `asset` (baked from `raw` on `skeleton`, the same joints),
/// with points `distance` file units from each joint.
///
/// Errors: a clip index the asset lacks, a skeleton of another size, a raw clip without frames.
pub fn clip_error(
    skeleton: &RawSkeleton,
    raw: &RawClip,
    asset: &Asset,
    index: usize,
    distance: f64,
) -> Result<ClipError, String> {
    let last = raw.frames.len().saturating_sub(1);
    // Every frame and every midpoint: half-frame steps, where step keys hold and the rest interpolate.
    let references = (0..=2 * last).map(|step| {
        let time = step as f64 / (2.0 * raw.sample_rate as f64);
        (time, sample_frames(&raw.frames, 1.0, step as f64 / 2.0, &raw.step))
    });
    point_error(skeleton, raw, asset, index, distance, Interpolation::Linear, references)
}

/// The virtual-point error of clip `index` of `asset`, sampled with `interpolation`, against every frame of
/// `source` at its own time within the clip's duration: what a clip baked from `source` at a lower rate
/// (`RawClip::resampled`, which ends at its last whole step) loses between its keys. Same joints, points and
/// units as [`clip_error`]; `samples` counts the source frames compared.
///
/// Errors: as `clip_error`.
pub fn source_error(
    skeleton: &RawSkeleton,
    source: &RawClip,
    asset: &Asset,
    index: usize,
    distance: f64,
    interpolation: Interpolation,
) -> Result<ClipError, String> {
    let duration = asset.clip(index).map_or(0.0, |clip| clip.duration() as f64);
    let times = (0..source.frames.len()).map(|f| f as f64 / source.sample_rate as f64);
    // The clip's time rounds to f32: a source frame at its very end is compared too.
    let within = times.take_while(|&time| time as f32 <= duration as f32);
    let references = within.zip(&source.frames).map(|(time, frame)| (time, frame.iter().map(Trs::of).collect()));
    point_error(skeleton, source, asset, index, distance, interpolation, references)
}

/// The error of clip `index` of `asset` against each `(time, pose)` of `references`.
fn point_error(
    skeleton: &RawSkeleton,
    raw: &RawClip,
    asset: &Asset,
    index: usize,
    distance: f64,
    interpolation: Interpolation,
    references: impl Iterator<Item = (f64, Vec<Trs>)>,
) -> Result<ClipError, String> {
    let clip = asset.clip(index).ok_or(format!("the asset has no clip {index}"))?;
    let n = skeleton.parents.len();
    let runtime_skeleton = asset.skeleton();
    if runtime_skeleton.num_joints() != n || raw.frames.iter().any(|f| f.len() != n) || raw.frames.is_empty() {
        return Err(format!("clip `{}`: the raw clip and the asset disagree on the skeleton", raw.name));
    }
    let mut memory = vec![0u8; SamplingContext::required_bytes_for(n, 0, interpolation)];
    let arena = Arena::new(&mut memory);
    let mut context = SamplingContext::with_interpolation(&arena, n, 0, interpolation).map_err(|e| e.to_string())?;
    let mut soa = vec![SoaTransform::IDENTITY; runtime_skeleton.num_soa_joints()];
    let mut aos = vec![Transform::IDENTITY; n];
    let mut errors = Vec::new();
    let mut samples = 0;
    for (time, reference) in references {
        let time = time.min(clip.duration() as f64) as f32;
        sample_clamped(runtime_skeleton, &clip, time, &mut context, &mut soa)?;
        unpack_soa(&soa, &mut aos).map_err(|e| e.to_string())?;
        let decoded: Vec<Trs> = aos.iter().map(Trs::of).collect();
        let (want, got) = (
            virtual_points(&skeleton.parents, &reference, distance),
            virtual_points(&skeleton.parents, &decoded, distance),
        );
        for (w, g) in want.iter().zip(&got) {
            errors.push((0..4).map(|p| w[p].distance(g[p])).fold(0.0, f64::max));
        }
        samples += 1;
    }
    let max = errors.iter().copied().fold(0.0, f64::max);
    let p99 = crate::stats::percentile(&mut errors, 0.99);
    Ok(ClipError { max, p99, samples })
}
