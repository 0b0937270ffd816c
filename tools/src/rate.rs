//! Rate reduction: the lowest uniform key rate at which a clip stays within an error bound of its source
//! (textbook: "the right number of keys"), played linearly or through a spline (`Interpolation::Cubic`, which
//! follows the source between keys more closely and so goes lower).
//!
//! Each tried rate is adjusted to a whole number of frames over the clip's exact duration, so the reduced clip
//! ends where the source does. The error is `clip_error::source_error`: virtual points against every source
//! frame, the clip baked `f32` and sampled as it will be played.

use crate::clip_error::{ClipError, source_error};
use crate::raw::{RawClip, RawSkeleton};
use sinew::Interpolation;

/// Fractions of the source rate tried, highest first.
pub const RATE_FRACTIONS: [f64; 12] = [
    1.0,
    3.0 / 4.0,
    2.0 / 3.0,
    1.0 / 2.0,
    2.0 / 5.0,
    1.0 / 3.0,
    1.0 / 4.0,
    1.0 / 5.0,
    1.0 / 6.0,
    1.0 / 8.0,
    1.0 / 10.0,
    1.0 / 12.0,
];

/// A clip at a reduced rate and its error against the source.
#[derive(Clone, Debug)]
pub struct Reduced {
    pub clip: RawClip,
    pub error: ClipError,
}

/// The rate nearest `rate` (Hz) above it that puts a whole number of frame steps in `duration` seconds, with
/// at least two frames.
pub fn whole_step_rate(duration: f64, rate: f64) -> f64 {
    let steps = (duration * rate - 1e-9).ceil().max(1.0);
    steps / duration
}

/// `clip` at the lowest of `RATE_FRACTIONS` of its rate whose virtual points (`distance` from each joint) stay
/// within `bound` of every source frame when sampled with `interpolation` (file units); the source rate itself
/// when none lower does. A clip shorter than two frames comes back as it is.
///
/// Errors: the importer's for a rate it refuses; a bake's.
pub fn lowest_rate(
    skeleton: &RawSkeleton,
    clip: &RawClip,
    bound: f64,
    distance: f64,
    interpolation: Interpolation,
) -> Result<Reduced, String> {
    let duration = (clip.frames.len().max(1) - 1) as f64 / clip.sample_rate as f64;
    let error_at = |reduced: &RawClip| -> Result<ClipError, String> {
        let blob = crate::bake::bake(skeleton, std::slice::from_ref(reduced), crate::bake::KeyFormat::F32)?;
        let asset = crate::blob::asset(&blob)?;
        source_error(skeleton, clip, &asset, 0, distance, interpolation)
    };
    let mut best: Option<Reduced> = None;
    if clip.frames.len() >= 2 {
        for fraction in &RATE_FRACTIONS[1..] {
            let rate = whole_step_rate(duration, clip.sample_rate as f64 * fraction);
            if rate < sinew::clip::MIN_SAMPLE_RATE as f64 {
                break;
            }
            let reduced = clip.resampled(rate as f32)?;
            let error = error_at(&reduced)?;
            if error.max <= bound {
                best = Some(Reduced { clip: reduced, error });
            }
        }
    }
    // The source's own error (its f32 bake) is measured only when it is the answer.
    match best {
        Some(best) => Ok(best),
        None => Ok(Reduced { clip: clip.clone(), error: error_at(clip)? }),
    }
}
