//! Poses as glam values, one joint at a time, as an AoS engine stores them: the tools' forward kinematics for
//! foot-plant detection and the procedural rig, and the naive baseline the benches compare sinew against.

use glam::{Mat4, Quat, Vec3};
use sinew::math::Transform;

/// glam's TRS matrix of a sinew transform.
pub fn trs(t: &Transform) -> Mat4 {
    Mat4::from_scale_rotation_translation(
        Vec3::new(t.scale.x, t.scale.y, t.scale.z),
        Quat::from_xyzw(t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w),
        Vec3::new(t.translation.x, t.translation.y, t.translation.z),
    )
}

/// A pose as glam values: what an AoS engine would store per joint.
#[derive(Clone, Debug)]
pub struct AosPose {
    pub translation: Vec<Vec3>,
    pub rotation: Vec<Quat>,
    pub scale: Vec<Vec3>,
}

impl AosPose {
    pub fn new(pose: &[Transform]) -> AosPose {
        AosPose {
            translation: pose.iter().map(|t| Vec3::new(t.translation.x, t.translation.y, t.translation.z)).collect(),
            rotation: pose
                .iter()
                .map(|t| Quat::from_xyzw(t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w))
                .collect(),
            scale: pose.iter().map(|t| Vec3::new(t.scale.x, t.scale.y, t.scale.z)).collect(),
        }
    }
}

/// `model[j] = model[parent[j]] * TRS(local[j])`.
pub fn local_to_model(parents: &[i16], local: &AosPose, model: &mut [Mat4]) {
    for j in 0..parents.len() {
        let m = Mat4::from_scale_rotation_translation(local.scale[j], local.rotation[j], local.translation[j]);
        let p = parents[j];
        model[j] = if p < 0 { m } else { model[p as usize] * m };
    }
}
