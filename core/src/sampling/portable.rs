//! The portable interpolation pass (SSE2, NEON, scalar): one lane group per step.

use crate::math::{F4, SoaQuat, SoaTransform, SoaVec3};

/// `out[g]` = lerp of translation and scale, shortest-arc nlerp of rotation, from `a[g]` to `b[g]` by `t`.
#[inline(always)]
pub(super) fn interpolate_pose(a: &[SoaTransform], b: &[SoaTransform], t: f32, out: &mut [SoaTransform]) {
    let t = F4::splat(t);
    for ((out, a), b) in out.iter_mut().zip(a).zip(b) {
        *out = SoaTransform {
            translation: SoaVec3::lerp(a.translation, b.translation, t),
            rotation: SoaQuat::nlerp(a.rotation, b.rotation, t),
            scale: SoaVec3::lerp(a.scale, b.scale, t),
        };
    }
}
