//! Math: the SIMD lane type, AoS types for the edges of the pipeline, SoA types for the hot path.

// The backend switch comes first: its kernel-selection macros are used by the lanes and the stages.
#[macro_use]
pub mod backend;

pub mod aos;
pub mod lane;
pub mod soa;

pub use aos::{Mat3x4, Mat4, Quat, Transform, Vec3};
pub use lane::{F4, F8, F8_IS_ONE_REGISTER, FUSED_MUL_ADD, Lanes};
pub use soa::{
    SoaAffine, SoaQuat, SoaTransform, SoaVec3, atan2_upper, num_soa_joints, pack_soa, quat_from_rotation_vector,
    quat_mul, quat_mul_rotation_vector, quat_to_rotation_vector, unpack_soa,
};
pub(crate) use soa::{TransformPairs, interpolate, quat_length_squared, rotation_scale_columns};

/// The square root of one `f32`, through the lane type: one `sqrtss`/`fsqrt` on SIMD builds, where `libm`
/// (built without its `arch` feature so that Miri can run it) would take a software loop of ~100 cycles.
/// Correctly rounded on every build, so results are the same bit for bit. Scalar code (root motion, IK,
/// corrections) uses it rather than `libm::sqrtf`.
#[inline(always)]
pub fn sqrt(x: f32) -> f32 {
    F4::splat(x).sqrt().to_array()[0]
}

/// `3x² − 2x³`: 0 at 0, 1 at 1, flat at both (warp windows, foot-planting ramps). For `x` in [0, 1].
#[inline]
pub fn smoothstep(x: f32) -> f32 {
    x * x * (3.0 - 2.0 * x)
}

/// `angle` in (−π, π].
pub(crate) fn wrap_angle(angle: f32) -> f32 {
    let wrapped = angle - core::f32::consts::TAU * libm::floorf(angle / core::f32::consts::TAU);
    if wrapped > core::f32::consts::PI { wrapped - core::f32::consts::TAU } else { wrapped }
}
