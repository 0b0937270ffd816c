//! Array-of-structures types: one joint per value. Used at the edges of the pipeline (model-space matrices,
//! skinning palettes, authoring and tests); the hot per-joint pose data is SoA (see `math::soa`).
//!
//! Conventions (docs/conventions.md): right-handed, no up-axis assumption; quaternions `(x, y, z, w)` with `w`
//! the scalar part; matrices column-major and multiplied as `parent * child * column_vector`.

use super::lane::F4;
use bytemuck::{Pod, Zeroable};

/// A 3-D vector: a translation (engine units), a scale factor per axis, or a direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Vec3 {
    /// X.
    pub x: f32,
    /// Y.
    pub y: f32,
    /// Z.
    pub z: f32,
}

impl Vec3 {
    /// `(0, 0, 0)`.
    pub const ZERO: Vec3 = Vec3::new(0.0, 0.0, 0.0);
    /// `(1, 1, 1)`.
    pub const ONE: Vec3 = Vec3::new(1.0, 1.0, 1.0);

    /// The vector `(x, y, z)`.
    #[inline]
    pub const fn new(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3 { x, y, z }
    }
    /// `[x, y, z]`.
    #[inline]
    pub fn to_array(self) -> [f32; 3] {
        [self.x, self.y, self.z]
    }
    /// Whether every component is finite.
    #[inline]
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }
    /// The dot product.
    #[inline]
    pub fn dot(self, o: Vec3) -> f32 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// The cross product `self × o` (right-handed).
    #[inline]
    pub fn cross(self, o: Vec3) -> Vec3 {
        Vec3::new(self.y * o.z - self.z * o.y, self.z * o.x - self.x * o.z, self.x * o.y - self.y * o.x)
    }
    /// The Euclidean length.
    #[inline]
    pub fn length(self) -> f32 {
        super::sqrt(self.dot(self))
    }

    /// `self + (to − self) · t`.
    #[inline]
    pub fn lerp(self, to: Vec3, t: f32) -> Vec3 {
        self + (to - self).scaled(t)
    }

    /// Every component times `k`.
    #[inline]
    pub fn scaled(self, k: f32) -> Vec3 {
        Vec3::new(self.x * k, self.y * k, self.z * k)
    }
}

impl core::ops::Add for Vec3 {
    type Output = Vec3;
    #[inline]
    fn add(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}

impl core::ops::Sub for Vec3 {
    type Output = Vec3;
    #[inline]
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}

/// A rotation quaternion `(x, y, z, w)`, `w` the scalar part. Unit length unless a function says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Quat {
    /// X of the vector part.
    pub x: f32,
    /// Y of the vector part.
    pub y: f32,
    /// Z of the vector part.
    pub z: f32,
    /// The scalar part.
    pub w: f32,
}

impl Default for Quat {
    fn default() -> Quat {
        Quat::IDENTITY
    }
}

impl Quat {
    /// The identity rotation `(0, 0, 0, 1)`.
    pub const IDENTITY: Quat = Quat::new(0.0, 0.0, 0.0, 1.0);

    /// The quaternion `(x, y, z, w)`, as given (not normalized).
    #[inline]
    pub const fn new(x: f32, y: f32, z: f32, w: f32) -> Quat {
        Quat { x, y, z, w }
    }

    /// Rotation of `angle` radians about the unit vector `axis`.
    pub fn from_axis_angle(axis: Vec3, angle: f32) -> Quat {
        let (s, c) = (libm::sinf(0.5 * angle), libm::cosf(0.5 * angle));
        Quat::new(axis.x * s, axis.y * s, axis.z * s, c)
    }

    /// The 4D dot product (the cosine of half the angle between unit rotations, up to sign).
    #[inline]
    pub fn dot(self, o: Quat) -> f32 {
        self.x * o.x + self.y * o.y + self.z * o.z + self.w * o.w
    }

    /// `x² + y² + z² + w²`.
    #[inline]
    pub fn length_squared(self) -> f32 {
        self.dot(self)
    }

    /// Whether every component is finite.
    #[inline]
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite() && self.w.is_finite()
    }

    /// `self` scaled to unit length (exact division). A zero quaternion gives NaN.
    pub fn normalize(self) -> Quat {
        let inv = 1.0 / super::sqrt(self.length_squared());
        Quat::new(self.x * inv, self.y * inv, self.z * inv, self.w * inv)
    }

    /// The inverse rotation of a unit quaternion.
    #[inline]
    pub fn conjugate(self) -> Quat {
        Quat::new(-self.x, -self.y, -self.z, self.w)
    }

    /// `v` rotated by this unit quaternion.
    pub fn rotate(self, v: Vec3) -> Vec3 {
        // v' = v + 2w (q × v) + 2 q × (q × v), with q the vector part.
        let (qx, qy, qz) = (self.x, self.y, self.z);
        let tx = 2.0 * (qy * v.z - qz * v.y);
        let ty = 2.0 * (qz * v.x - qx * v.z);
        let tz = 2.0 * (qx * v.y - qy * v.x);
        Vec3::new(
            v.x + self.w * tx + (qy * tz - qz * ty),
            v.y + self.w * ty + (qz * tx - qx * tz),
            v.z + self.w * tz + (qx * ty - qy * tx),
        )
    }

    /// Normalized lerp along the shortest arc: `b` is negated when `dot(a, b) < 0`.
    pub fn nlerp(a: Quat, b: Quat, t: f32) -> Quat {
        let s = if a.dot(b) < 0.0 { -t } else { t };
        let u = 1.0 - t;
        Quat::new(u * a.x + s * b.x, u * a.y + s * b.y, u * a.z + s * b.z, u * a.w + s * b.w).normalize()
    }
}

impl core::ops::Mul for Quat {
    type Output = Quat;
    /// Hamilton product `self * r`: rotates by `r` first, then by `self`.
    fn mul(self, r: Quat) -> Quat {
        let l = self;
        Quat::new(
            l.w * r.x + l.x * r.w + l.y * r.z - l.z * r.y,
            l.w * r.y - l.x * r.z + l.y * r.w + l.z * r.x,
            l.w * r.z + l.x * r.y - l.y * r.x + l.z * r.w,
            l.w * r.w - l.x * r.x - l.y * r.y - l.z * r.z,
        )
    }
}

/// Translation, rotation, scale of one joint relative to its parent (AoS; see `SoaTransform` for the hot path).
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Transform {
    /// Translation, in the parent's units.
    pub translation: Vec3,
    /// Rotation, a unit quaternion.
    pub rotation: Quat,
    /// Scale per axis (non-uniform allowed).
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Transform {
        Transform::IDENTITY
    }
}

impl Transform {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Transform = Transform { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE };

    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

/// A 4×4 matrix, column-major: `cols[c][r]` is row `r` of column `c`; column 3 holds the translation.
///
/// Layout: 64 bytes, 32-byte aligned, so each column is one aligned 128-bit load and each pair of columns one
/// aligned 256-bit load that never straddles a cache line (x86-64-v3 vertex skinning reads the palette so).
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C, align(32))]
pub struct Mat4 {
    /// Columns, each `[x, y, z, w]`; the translation is `cols[3]`.
    pub cols: [[f32; 4]; 4],
}

impl Default for Mat4 {
    fn default() -> Mat4 {
        Mat4::IDENTITY
    }
}

impl Mat4 {
    /// The identity matrix.
    pub const IDENTITY: Mat4 =
        Mat4 { cols: [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]] };

    /// Element at row `r`, column `c`.
    #[inline]
    pub fn at(&self, r: usize, c: usize) -> f32 {
        self.cols[c][r]
    }

    /// Whether every entry is finite.
    pub fn is_finite(&self) -> bool {
        self.cols.iter().flatten().all(|v| v.is_finite())
    }

    /// True when the last row is exactly `(0, 0, 0, 1)`.
    pub fn is_affine(&self) -> bool {
        self.cols[0][3] == 0.0 && self.cols[1][3] == 0.0 && self.cols[2][3] == 0.0 && self.cols[3][3] == 1.0
    }

    /// `self * rhs` (general 4×4, scalar code; the kernels have their own SIMD paths).
    pub fn mul(&self, rhs: &Mat4) -> Mat4 {
        let mut out = [[0.0f32; 4]; 4];
        for (c, col) in out.iter_mut().enumerate() {
            for (r, v) in col.iter_mut().enumerate() {
                *v = (0..4).map(|k| self.cols[k][r] * rhs.cols[c][k]).sum();
            }
        }
        Mat4 { cols: out }
    }

    /// The point `p` transformed (w = 1, no projective divide).
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        let c = &self.cols;
        Vec3::new(
            c[0][0] * p.x + c[1][0] * p.y + c[2][0] * p.z + c[3][0],
            c[0][1] * p.x + c[1][1] * p.y + c[2][1] * p.z + c[3][1],
            c[0][2] * p.x + c[1][2] * p.y + c[2][2] * p.z + c[3][2],
        )
    }

    /// The direction `v` transformed (w = 0: the linear part only).
    pub fn transform_vector(&self, v: Vec3) -> Vec3 {
        let c = &self.cols;
        Vec3::new(
            c[0][0] * v.x + c[1][0] * v.y + c[2][0] * v.z,
            c[0][1] * v.x + c[1][1] * v.y + c[2][1] * v.z,
            c[0][2] * v.x + c[1][2] * v.y + c[2][2] * v.z,
        )
    }

    /// The inverse of an affine matrix (the last row taken as `(0, 0, 0, 1)`): the 3×3 inverse by cofactors
    /// and the translation carried back through it. `None` when the linear part is singular (a determinant
    /// below `1e-20` in magnitude) or the result is not finite.
    pub fn inverse_affine(&self) -> Option<Mat4> {
        let c = &self.cols;
        let (x, y, z) = (
            Vec3::new(c[0][0], c[0][1], c[0][2]),
            Vec3::new(c[1][0], c[1][1], c[1][2]),
            Vec3::new(c[2][0], c[2][1], c[2][2]),
        );
        // The inverse's rows are the cross products of column pairs over the determinant.
        let (r0, r1, r2) = (y.cross(z), z.cross(x), x.cross(y));
        let det = x.dot(r0);
        if det.is_nan() || det.abs() < 1e-20 {
            return None;
        }
        let k = 1.0 / det;
        let (r0, r1, r2) = (r0.scaled(k), r1.scaled(k), r2.scaled(k));
        let t = self.translation();
        let cols = [
            [r0.x, r1.x, r2.x, 0.0],
            [r0.y, r1.y, r2.y, 0.0],
            [r0.z, r1.z, r2.z, 0.0],
            [-r0.dot(t), -r1.dot(t), -r2.dot(t), 1.0],
        ];
        let inverse = Mat4 { cols };
        inverse.is_finite().then_some(inverse)
    }

    /// The four columns as SIMD lanes, read in place (one aligned 16-byte load each, no copy through the stack).
    #[inline(always)]
    pub fn load_cols(&self) -> [F4; 4] {
        *bytemuck::cast_ref::<Mat4, [F4; 4]>(self)
    }

    /// Overwrites the four columns from SIMD lanes: four aligned 16-byte stores.
    #[inline(always)]
    pub fn store_cols(&mut self, cols: [F4; 4]) {
        *bytemuck::cast_mut::<Mat4, [F4; 4]>(self) = cols;
    }

    /// The translation column.
    #[inline]
    pub fn translation(&self) -> Vec3 {
        Vec3::new(self.cols[3][0], self.cols[3][1], self.cols[3][2])
    }
}

/// An affine matrix as three rows of four: `rows[r][c]`, the implicit fourth row `(0, 0, 0, 1)`.
///
/// Layout: 48 bytes, 16-byte aligned, row-major — the layout GPU skinning shaders read as three `vec4`s
/// (`dot(row, vec4(p, 1))`), and the layout `Skin` keeps inverse bind matrices in.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C, align(16))]
pub struct Mat3x4 {
    /// Rows of the upper 3×4 block; the implied last row is `(0, 0, 0, 1)`.
    pub rows: [[f32; 4]; 3],
}

impl Default for Mat3x4 {
    fn default() -> Mat3x4 {
        Mat3x4::IDENTITY
    }
}

impl Mat3x4 {
    /// The identity transform.
    pub const IDENTITY: Mat3x4 = Mat3x4 { rows: [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]] };

    /// The top three rows of `m`; `None` unless `m.is_affine()`.
    pub fn from_affine(m: &Mat4) -> Option<Mat3x4> {
        if !m.is_affine() {
            return None;
        }
        let row = |r: usize| [m.cols[0][r], m.cols[1][r], m.cols[2][r], m.cols[3][r]];
        Some(Mat3x4 { rows: [row(0), row(1), row(2)] })
    }

    /// The same matrix as a column-major `Mat4` with last row `(0, 0, 0, 1)`.
    pub fn to_mat4(&self) -> Mat4 {
        let r = &self.rows;
        let col = |c: usize, w: f32| [r[0][c], r[1][c], r[2][c], w];
        Mat4 { cols: [col(0, 0.0), col(1, 0.0), col(2, 0.0), col(3, 1.0)] }
    }

    /// Whether every entry is finite.
    pub fn is_finite(&self) -> bool {
        self.rows.iter().flatten().all(|v| v.is_finite())
    }
}

const _: () = assert!(core::mem::size_of::<Mat4>() == 64 && core::mem::align_of::<Mat4>() == 32);
const _: () = assert!(core::mem::size_of::<Mat3x4>() == 48 && core::mem::align_of::<Mat3x4>() == 16);
const _: () = assert!(core::mem::size_of::<Transform>() == 40);
