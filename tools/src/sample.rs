//! Sampling a clip into a local pose on the host: the one call the tools, exports and quality checks share.

use sinew::math::SoaTransform;
use sinew::{Clip, Playback, SamplingContext, SamplingJob, Skeleton};

/// Samples `clip` at `time` seconds (clamped to the clip) into the SoA pose `local` through `context`, without
/// curves. Reusing one context across calls on one clip lets playback decode each frame once.
///
/// Errors: the job's, as text.
pub fn sample_clamped(
    skeleton: &Skeleton,
    clip: &Clip,
    time: f32,
    context: &mut SamplingContext,
    local: &mut [SoaTransform],
) -> Result<(), String> {
    SamplingJob { skeleton, clip, time, playback: Playback::Clamp, context, output: local, curves: &mut [] }
        .run()
        .map_err(|e| e.to_string())
}
