//! Math: the SIMD lane type, AoS types for the edges of the pipeline, SoA types for the hot path.

pub mod aos;
pub mod lane;
pub mod soa;

pub use aos::{Mat3x4, Mat4, Quat, Transform, Vec3};
pub use lane::F4;
pub use soa::{SoaAffine, SoaQuat, SoaTransform, SoaVec3, atan2_upper, num_soa_joints, pack_soa, unpack_soa};
