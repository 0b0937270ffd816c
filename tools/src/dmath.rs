//! f64 helpers for the offline error measures and extraction: vectors, quaternions and local transforms carried
//! from the runtime's `f32` types, composed and interpolated as the runtime does, in double precision.

use glam::{DMat4, DQuat, DVec3};
use sinew::math::{Quat, Transform, Vec3};

/// `v` in f64.
pub fn dvec3(v: Vec3) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

/// `q` in f64, normalized.
pub fn dquat(q: Quat) -> DQuat {
    DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize()
}

/// The virtual points' default distance from their joint, centimetres on a 1.7 m figure (ACL's 3 cm).
pub const DEFAULT_DISTANCE_CM: f64 = 3.0;
/// The figure height the centimetre figures are scaled to.
pub const FIGURE_CM: f64 = 170.0;

/// A local transform in f64.
#[derive(Clone, Copy, Debug)]
pub struct Trs {
    pub translation: DVec3,
    pub rotation: DQuat,
    pub scale: DVec3,
}

impl Trs {
    pub fn of(t: &Transform) -> Trs {
        Trs { translation: dvec3(t.translation), rotation: dquat(t.rotation), scale: dvec3(t.scale) }
    }

    pub fn matrix(&self) -> DMat4 {
        DMat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Back to `f32`.
    pub fn to_transform(self) -> Transform {
        let v = |v: DVec3| sinew::math::Vec3::new(v.x as f32, v.y as f32, v.z as f32);
        let q = self.rotation;
        let rotation = sinew::math::Quat::new(q.x as f32, q.y as f32, q.z as f32, q.w as f32);
        Transform { translation: v(self.translation), rotation, scale: v(self.scale) }
    }

    /// `a` towards `b` by `u`: translations and scales linearly, rotations by normalized lerp on the shorter
    /// arc (glam's `DQuat::lerp`), as the runtime interpolates keys.
    pub fn lerp(a: &Trs, b: &Trs, u: f64) -> Trs {
        Trs {
            translation: a.translation.lerp(b.translation, u),
            rotation: a.rotation.lerp(b.rotation, u),
            scale: a.scale.lerp(b.scale, u),
        }
    }
}

/// Model matrices from local transforms (parents before children).
pub fn compose(parents: &[i16], local: &[Trs]) -> Vec<DMat4> {
    let mut model: Vec<DMat4> = Vec::with_capacity(local.len());
    for (j, t) in local.iter().enumerate() {
        let m = t.matrix();
        model.push(match usize::try_from(parents[j]) {
            Ok(p) => model[p] * m,
            Err(_) => m,
        });
    }
    model
}

/// Each joint's virtual points in model space: the joint, then `distance` along its local x, y and z.
pub fn virtual_points(parents: &[i16], local: &[Trs], distance: f64) -> Vec<[DVec3; 4]> {
    let model = compose(parents, local);
    let axes = [DVec3::ZERO, DVec3::X * distance, DVec3::Y * distance, DVec3::Z * distance];
    model.iter().map(|m| axes.map(|a| m.transform_point3(a))).collect()
}
