//! Structure-of-arrays pose types: each field holds one component of four joints (`F4` lanes).
//!
//! Layout: `#[repr(C)]`, 16-byte aligned, `Pod`. A pose of `n` joints is `num_soa_joints = ceil(n / 4)` values;
//! joint `j` lives in value `j / 4`, lane `j % 4`. Lanes past the last joint ("padding lanes") hold the identity
//! transform so the kernels can run over whole lane groups; their results are never written out.

use super::aos::{Mat4, Quat, Transform, Vec3};
use super::lane::{F4, F8, FUSED_MUL_ADD, Lanes};
use bytemuck::{Pod, Zeroable};

/// Three components of four vectors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct SoaVec3 {
    /// The four vectors' x.
    pub x: F4,
    /// The four vectors' y.
    pub y: F4,
    /// The four vectors' z.
    pub z: F4,
}

/// Four components of four quaternions `(x, y, z, w)`.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct SoaQuat {
    /// The four quaternions' x.
    pub x: F4,
    /// The four quaternions' y.
    pub y: F4,
    /// The four quaternions' z.
    pub z: F4,
    /// The four quaternions' w.
    pub w: F4,
}

/// Translation, rotation and scale of four joints, each relative to its parent (local space).
///
/// Layout: 10 × 16 = 160 bytes, 16-byte aligned. Units: translation in engine units, rotation a quaternion,
/// scale a factor per axis.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct SoaTransform {
    /// The four translations.
    pub translation: SoaVec3,
    /// The four rotations (unit quaternions).
    pub rotation: SoaQuat,
    /// The four scales.
    pub scale: SoaVec3,
}

const _: () = assert!(core::mem::size_of::<SoaVec3>() == 48 && core::mem::align_of::<SoaVec3>() == 16);
const _: () = assert!(core::mem::size_of::<SoaQuat>() == 64 && core::mem::align_of::<SoaQuat>() == 16);
const _: () = assert!(core::mem::size_of::<SoaTransform>() == 160 && core::mem::align_of::<SoaTransform>() == 16);

/// Lane group count for `num_joints` joints: `ceil(num_joints / 4)`.
#[inline]
pub const fn num_soa_joints(num_joints: usize) -> usize {
    num_joints.div_ceil(4)
}

impl SoaVec3 {
    /// Lane by lane, `if_set` where `mask` is set and `if_clear` elsewhere.
    #[inline(always)]
    pub fn select(mask: F4, if_set: SoaVec3, if_clear: SoaVec3) -> SoaVec3 {
        SoaVec3 {
            x: F4::select(mask, if_set.x, if_clear.x),
            y: F4::select(mask, if_set.y, if_clear.y),
            z: F4::select(mask, if_set.z, if_clear.z),
        }
    }

    /// `v` in every lane.
    #[inline(always)]
    pub fn splat(v: Vec3) -> SoaVec3 {
        SoaVec3 { x: F4::splat(v.x), y: F4::splat(v.y), z: F4::splat(v.z) }
    }

    /// Lane `lane` (< 4) as an AoS vector.
    #[inline]
    pub fn get(&self, lane: usize) -> Vec3 {
        Vec3::new(lane_of(&self.x, lane), lane_of(&self.y, lane), lane_of(&self.z, lane))
    }

    /// Overwrites lane `lane` (< 4).
    #[inline]
    pub fn set(&mut self, lane: usize, v: Vec3) {
        set_lane(&mut self.x, lane, v.x);
        set_lane(&mut self.y, lane, v.y);
        set_lane(&mut self.z, lane, v.z);
    }

    /// `a + (b - a) * t` per lane.
    #[inline(always)]
    pub fn lerp(a: SoaVec3, b: SoaVec3, t: F4) -> SoaVec3 {
        SoaVec3 { x: (b.x - a.x).mul_add(t, a.x), y: (b.y - a.y).mul_add(t, a.y), z: (b.z - a.z).mul_add(t, a.z) }
    }

    /// The cross product `a × b` per lane.
    #[inline(always)]
    pub fn cross(a: SoaVec3, b: SoaVec3) -> SoaVec3 {
        SoaVec3 { x: a.y * b.z - a.z * b.y, y: a.z * b.x - a.x * b.z, z: a.x * b.y - a.y * b.x }
    }
}

impl SoaQuat {
    /// The identity rotation in every lane.
    pub const IDENTITY: SoaQuat = SoaQuat { x: F4::ZERO, y: F4::ZERO, z: F4::ZERO, w: F4::ONE };

    /// `q` in every lane.
    #[inline(always)]
    pub fn splat(q: Quat) -> SoaQuat {
        SoaQuat { x: F4::splat(q.x), y: F4::splat(q.y), z: F4::splat(q.z), w: F4::splat(q.w) }
    }

    /// Lane `lane` (< 4) as an AoS quaternion.
    #[inline]
    pub fn get(&self, lane: usize) -> Quat {
        Quat::new(lane_of(&self.x, lane), lane_of(&self.y, lane), lane_of(&self.z, lane), lane_of(&self.w, lane))
    }

    /// Overwrites lane `lane` (< 4).
    #[inline]
    pub fn set(&mut self, lane: usize, q: Quat) {
        set_lane(&mut self.x, lane, q.x);
        set_lane(&mut self.y, lane, q.y);
        set_lane(&mut self.z, lane, q.z);
        set_lane(&mut self.w, lane, q.w);
    }

    /// 4-D dot product per lane, summed as a tree (two dependent steps, not four).
    #[inline(always)]
    pub fn dot(self, o: SoaQuat) -> F4 {
        self.x.mul_add(o.x, self.y * o.y) + self.z.mul_add(o.z, self.w * o.w)
    }

    /// The conjugate (the inverse of a unit quaternion) per lane.
    #[inline(always)]
    pub fn conjugate(self) -> SoaQuat {
        SoaQuat { x: -self.x, y: -self.y, z: -self.z, w: self.w }
    }

    /// `v` rotated by these unit quaternions, per lane.
    #[inline(always)]
    pub fn rotate(self, v: SoaVec3) -> SoaVec3 {
        let q = SoaVec3 { x: self.x, y: self.y, z: self.z };
        let two = F4::splat(2.0);
        let t = SoaVec3::cross(q, v);
        let t = SoaVec3 { x: t.x * two, y: t.y * two, z: t.z * two };
        let u = SoaVec3::cross(q, t);
        SoaVec3 {
            x: self.w.mul_add(t.x, v.x + u.x),
            y: self.w.mul_add(t.y, v.y + u.y),
            z: self.w.mul_add(t.z, v.z + u.z),
        }
    }

    /// Unit-length quaternions, using the fast `F4::rsqrt` (relative error < 4e-7, so |q| is within 4e-7 of 1).
    /// Zero-length lanes give NaN; callers that may see them check first.
    #[inline(always)]
    pub fn normalize(self) -> SoaQuat {
        let inv = self.dot(self).rsqrt();
        SoaQuat { x: self.x * inv, y: self.y * inv, z: self.z * inv, w: self.w * inv }
    }

    /// Normalized lerp from `a` to `b` by `t`, along the shortest arc (`b`'s sign follows `dot(a, b)`).
    /// `t = 0` gives `a` normalized and `t = 1` gives `±b` normalized, within `normalize`'s precision.
    #[inline(always)]
    pub fn nlerp(a: SoaQuat, b: SoaQuat, t: F4) -> SoaQuat {
        let dot = a.dot(b);
        let (ta, tb) = (F4::ONE - t, F4::select(dot.cmp_lt(F4::ZERO), -t, t));
        let lerp = |a: F4, b: F4| {
            if FUSED_MUL_ADD {
                // `a + t (±b − a)`, b taking the dot's sign where the arc is long: four multiply-pipe
                // operations instead of eight (x86-64-v3 interpolation 392 → 319 ns at 256 joints).
                (b.mul_sign(dot) - a).mul_add(t, a)
            } else {
                // `(1 − t) a ± t b`: without FMA the form above is four more instructions (SSE2 385 → 508 ns).
                a.mul_add(ta, b * tb)
            }
        };
        SoaQuat { x: lerp(a.x, b.x), y: lerp(a.y, b.y), z: lerp(a.z, b.z), w: lerp(a.w, b.w) }.normalize()
    }
}

impl core::ops::Add for SoaVec3 {
    type Output = SoaVec3;
    #[inline(always)]
    fn add(self, o: SoaVec3) -> SoaVec3 {
        SoaVec3 { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z }
    }
}

impl core::ops::Mul for SoaVec3 {
    type Output = SoaVec3;
    /// Component-wise product (scales).
    #[inline(always)]
    fn mul(self, o: SoaVec3) -> SoaVec3 {
        SoaVec3 { x: self.x * o.x, y: self.y * o.y, z: self.z * o.z }
    }
}

impl core::ops::Mul for SoaQuat {
    type Output = SoaQuat;
    /// Hamilton product per lane: rotates by `r` first, then by `self`.
    #[inline(always)]
    fn mul(self, r: SoaQuat) -> SoaQuat {
        let [x, y, z, w] = quat_mul([self.x, self.y, self.z, self.w], [r.x, r.y, r.z, r.w]);
        SoaQuat { x, y, z, w }
    }
}

/// Hamilton product `l · r` of `(x, y, z, w)` lanes, at either width.
#[inline(always)]
pub fn quat_mul<L: Lanes>(l: [L; 4], r: [L; 4]) -> [L; 4] {
    let ([lx, ly, lz, lw], [rx, ry, rz, rw]) = (l, r);
    [
        lw.mul_add(rx, lx.mul_add(rw, ly.mul_add(rz, -(lz * ry)))),
        lw.mul_add(ry, ly.mul_add(rw, lz.mul_add(rx, -(lx * rz)))),
        lw.mul_add(rz, lz.mul_add(rw, lx.mul_add(ry, -(ly * rx)))),
        lw.mul_add(rw, -(lx.mul_add(rx, ly.mul_add(ry, lz * rz)))),
    ]
}

/// The unit quaternion `(x, y, z, w)` of rotation vectors `r` at either width; see
/// [`SoaQuat::from_rotation_vector`].
#[inline(always)]
pub fn quat_from_rotation_vector<L: Lanes>(r: [L; 3]) -> [L; 4] {
    let (sinc, cos) = half_angle_terms(r);
    [r[0] * sinc, r[1] * sinc, r[2] * sinc, cos]
}

/// `quat_from_rotation_vector(r) · q` at either width, as `cos(θ/2) q + (sin(θ/2)/θ) (r · q)` with `r` a
/// pure quaternion: `r · q` no longer waits for the polynomials, which shortens the dependency chain of a
/// rotation offset applied to a pose by the product's four steps. Precision as the two calls it replaces.
#[inline(always)]
pub fn quat_mul_rotation_vector<L: Lanes>(r: [L; 3], q: [L; 4]) -> [L; 4] {
    let (sinc, cos) = half_angle_terms(r);
    let ([rx, ry, rz], [qx, qy, qz, qw]) = (r, q);
    let rq = [
        rx.mul_add(qw, ry.mul_add(qz, -(rz * qy))),
        ry.mul_add(qw, rz.mul_add(qx, -(rx * qz))),
        rz.mul_add(qw, rx.mul_add(qy, -(ry * qx))),
        -(rx.mul_add(qx, ry.mul_add(qy, rz * qz))),
    ];
    core::array::from_fn(|i| sinc.mul_add(rq[i], cos * q[i]))
}

/// `sin(θ/2)/θ` and `cos(θ/2)` of rotation vectors `r` (θ = |r|), from their Taylor series in θ².
#[inline(always)]
fn half_angle_terms<L: Lanes>(r: [L; 3]) -> (L, L) {
    let u = r[0].mul_add(r[0], r[1].mul_add(r[1], r[2] * r[2]));
    let horner = |c: &[f32; 7]| {
        let mut acc = L::splat(c[6]);
        for &k in c[..6].iter().rev() {
            acc = acc.mul_add(u, L::splat(k));
        }
        acc
    };
    (horner(&HALF_SINC), horner(&HALF_COS))
}

impl SoaTransform {
    /// Four identity transforms: the value of every padding lane.
    pub const IDENTITY: SoaTransform = SoaTransform {
        translation: SoaVec3 { x: F4::ZERO, y: F4::ZERO, z: F4::ZERO },
        rotation: SoaQuat::IDENTITY,
        scale: SoaVec3 { x: F4::ONE, y: F4::ONE, z: F4::ONE },
    };

    /// The ten lane vectors in memory order: translation x, y, z, rotation x, y, z, w, scale x, y, z.
    #[inline(always)]
    pub fn components(&self) -> &[F4; 10] {
        bytemuck::cast_ref(self)
    }

    /// Lane by lane, `if_set` where `mask` is set and `if_clear` elsewhere, every component bit for bit.
    #[inline(always)]
    pub fn select(mask: F4, if_set: &SoaTransform, if_clear: &SoaTransform) -> SoaTransform {
        let (set, clear) = (if_set.components(), if_clear.components());
        bytemuck::cast(core::array::from_fn::<F4, 10, _>(|c| F4::select(mask, set[c], clear[c])))
    }

    /// Lane `lane` (< 4) as an AoS transform.
    pub fn get(&self, lane: usize) -> Transform {
        Transform {
            translation: self.translation.get(lane),
            rotation: self.rotation.get(lane),
            scale: self.scale.get(lane),
        }
    }

    /// Overwrites lane `lane` (< 4).
    pub fn set(&mut self, lane: usize, t: &Transform) {
        self.translation.set(lane, t.translation);
        self.rotation.set(lane, t.rotation);
        self.scale.set(lane, t.scale);
    }

    /// The four local matrices `T * R * S` in SoA form. Rotations need not be unit (they are scaled by
    /// `2 / |q|²`, one exact division per lane group); zero-length rotations give non-finite lanes.
    #[inline(always)]
    pub fn to_affine(&self) -> SoaAffine {
        let SoaQuat { x, y, z, w } = self.rotation;
        let SoaVec3 { x: sx, y: sy, z: sz } = self.scale;
        let cols = rotation_scale_columns([x, y, z, w], quat_length_squared([x, y, z, w]), [sx, sy, sz]);
        let [c0, c1, c2] = cols.map(|[x, y, z]| SoaVec3 { x, y, z });
        SoaAffine { cols: [c0, c1, c2, self.translation] }
    }
}

/// |q|² per lane, summed as a tree (two dependent steps, not four): the expression of `SoaQuat::dot`, so the
/// fused NaN / zero-length check in local-to-model and the conversion share it.
#[inline(always)]
pub(crate) fn quat_length_squared<L: Lanes>([x, y, z, w]: [L; 4]) -> L {
    x.mul_add(x, y * y) + z.mul_add(z, w * w)
}

/// The three columns of `rotation(q / |q|) * diag(scale)` per lane, given `len_sq` = |q|² (one exact division).
/// Written over `Lanes` so a wide target converts two lane groups in one pass.
#[inline(always)]
pub(crate) fn rotation_scale_columns<L: Lanes>([x, y, z, w]: [L; 4], len_sq: L, [sx, sy, sz]: [L; 3]) -> [[L; 3]; 3] {
    let s = L::splat(2.0) / len_sq;
    // Everything that does not need `s = 2 / |q|²` is computed while the division is in flight; `s` is then
    // folded into the scale, so two dependent steps follow the division instead of five.
    let (xx, yy, zz) = (x * x, y * y, z * z);
    let (xy, xz, yz) = (x * y, x * z, y * z);
    let (wx, wy, wz) = (w * x, w * y, w * z);
    let (ssx, ssy, ssz) = (s * sx, s * sy, s * sz);
    // Diagonal: scale * (1 - s * (a + b)) = scale - (s * scale) * (a + b).
    let diagonal = |sum: L, s_scale: L, scale: L| s_scale.neg_mul_add(sum, scale);
    [
        [diagonal(yy + zz, ssx, sx), (xy + wz) * ssx, (xz - wy) * ssx],
        [(xy - wz) * ssy, diagonal(xx + zz, ssy, sy), (yz + wx) * ssy],
        [(xz + wy) * ssz, (yz - wx) * ssz, diagonal(xx + yy, ssz, sz)],
    ]
}

/// A lane group's ten components as five `F8` of two components each, translation and scale alone in the
/// first three and the rotation alone in the last two: `[tx|ty] [tz|sx] [sy|sz] [rx|ry] [rz|rw]`.
///
/// Per-lane work that treats translation and scale alike (weighted sums, lerps) then runs over five registers
/// on x86-64-v3, and every register takes one factor (no blends to build mixed ones); the rotation dot is two
/// multiply-adds and one cross-half add. `[tz|sx]` costs one insert per load and one extra store. On
/// two-register backends the layout only renames registers.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TransformPairs(pub(crate) [F8; 5]);

impl TransformPairs {
    /// Components (in [`SoaTransform::components`] order) of each register's halves.
    const LAYOUT: [(usize, usize); 5] = [(0, 1), (2, 7), (8, 9), (3, 4), (5, 6)];

    #[inline(always)]
    pub(crate) fn load(t: &SoaTransform) -> TransformPairs {
        let c = t.components();
        TransformPairs(Self::LAYOUT.map(|(lo, hi)| F8::from_halves(c[lo], c[hi])))
    }

    #[inline(always)]
    pub(crate) fn to_transform(self) -> SoaTransform {
        let mut components = [F4::ZERO; 10];
        for (pair, (lo, hi)) in self.0.iter().zip(Self::LAYOUT) {
            (components[lo], components[hi]) = pair.halves();
        }
        bytemuck::cast(components)
    }

    /// Per lane, the dot product of the two rotations, in both halves.
    #[inline(always)]
    pub(crate) fn rotation_dot(&self, o: &TransformPairs) -> F8 {
        let (a, b) = (&self.0, &o.0);
        let partial = a[3].mul_add(b[3], a[4] * b[4]);
        partial + partial.swap_halves()
    }

    /// Translation and scale times `linear`, rotation times `rotation` (both given in both halves); a factor
    /// of one folds away, leaving its registers as they are.
    #[inline(always)]
    pub(crate) fn scaled(self, linear: F8, rotation: F8) -> SoaTransform {
        let factors = TransformPairs::factors(linear, rotation);
        TransformPairs(core::array::from_fn(|i| self.0[i] * factors[i])).to_transform()
    }

    /// Factors for the five registers: `linear` for translation and scale, `rotation` for the rotation.
    #[inline(always)]
    pub(crate) fn factors(linear: F8, rotation: F8) -> [F8; 5] {
        [linear, linear, linear, rotation, rotation]
    }
}

/// Four affine matrices in SoA form: `cols[c]` is column `c` (rows 0..3) of each lane's matrix; the implicit
/// last row is `(0, 0, 0, 1)`. Column 3 is the translation.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct SoaAffine {
    /// The columns: the 3×3 part, then the translation.
    pub cols: [SoaVec3; 4],
}

impl SoaAffine {
    /// The SoA → AoS transpose: one column-major `Mat4` per lane.
    pub fn to_mat4s(&self) -> [Mat4; 4] {
        let w = [F4::ZERO, F4::ZERO, F4::ZERO, F4::ONE];
        let mut out = [Mat4::IDENTITY; 4];
        for (c, col) in self.cols.iter().enumerate() {
            let lanes = F4::transpose4([col.x, col.y, col.z, w[c]]);
            for (m, lane) in out.iter_mut().zip(lanes) {
                m.cols[c] = lane.to_array();
            }
        }
        out
    }
}

/// One lane written in place: a scalar store into the vector's memory, where a copy out to an array and back
/// would reload sixteen bytes over a four-byte store (a store-forwarding stall per component; the IK stages
/// write lanes this way).
#[inline]
fn set_lane(v: &mut F4, lane: usize, value: f32) {
    bytemuck::cast_mut::<F4, [f32; 4]>(v)[lane] = value;
}

/// One lane read in place.
#[inline]
fn lane_of(v: &F4, lane: usize) -> f32 {
    bytemuck::cast_ref::<F4, [f32; 4]>(v)[lane]
}

impl Transform {
    /// The affine matrix `T * R * S`. `rotation` need not be unit: it is normalized by `2 / |q|²`.
    /// Computed by the SoA conversion the kernels use, so there is one formula (lane 0 of a splat); it lives
    /// here, beside that conversion, so the AoS types do not depend on the SoA ones.
    pub fn to_mat4(&self) -> Mat4 {
        let mut soa = SoaTransform::IDENTITY;
        soa.set(0, self);
        soa.to_affine().to_mat4s()[0]
    }
}

/// Packs AoS transforms into SoA lane groups, filling padding lanes with the identity.
///
/// Errors: `Error::BufferLength` (buffer `SoaPose`) unless `soa.len() == num_soa_joints(aos.len())`.
pub fn pack_soa(aos: &[Transform], soa: &mut [SoaTransform]) -> Result<(), crate::error::Error> {
    crate::error::check_len(crate::error::Buffer::SoaPose, num_soa_joints(aos.len()), soa.len())?;
    for (group, chunk) in soa.iter_mut().zip(aos.chunks(4)) {
        *group = SoaTransform::IDENTITY;
        for (lane, t) in chunk.iter().enumerate() {
            group.set(lane, t);
        }
    }
    Ok(())
}

/// Unpacks SoA lane groups into AoS transforms (padding lanes are dropped).
///
/// Errors: `Error::BufferLength` (buffer `SoaPose`) unless `soa.len() == num_soa_joints(aos.len())`.
pub fn unpack_soa(soa: &[SoaTransform], aos: &mut [Transform]) -> Result<(), crate::error::Error> {
    crate::error::check_len(crate::error::Buffer::SoaPose, num_soa_joints(aos.len()), soa.len())?;
    for (group, chunk) in soa.iter().zip(aos.chunks_mut(4)) {
        for (lane, t) in chunk.iter_mut().enumerate() {
            *t = group.get(lane);
        }
    }
    Ok(())
}

/// `atan2(y, x)` per lane for `y >= 0`, in `[0, π]`; `(0, 0)` gives 0.
///
/// Precision: within 4e-7 rad of the true angle, about 2 ulps near π (Cephes' `atanf` polynomial on `|z| <= tan(π/8)` after
/// folding the ratio into `[0, 1]` and then around π/4; asserted against `f64::atan2` by the `math` tests).
#[inline(always)]
pub fn atan2_upper<L: Lanes>(y: L, x: L) -> L {
    let ax = x.abs();
    let (small, big) = (y.min(ax), y.max(ax));
    let zero = L::splat(0.0);
    let z = L::select(big.cmp_gt(zero), small / big, zero);
    // Fold z > tan(π/8) around π/4: atan(z) = π/4 + atan((z - 1) / (z + 1)).
    let fold = z.cmp_gt(L::splat(core::f32::consts::SQRT_2 - 1.0));
    let one = L::splat(1.0);
    let z = L::select(fold, (z - one) / (z + one), z);
    let z2 = z * z;
    let poly = L::splat(8.053_744_5e-2)
        .mul_add(z2, L::splat(-1.387_768_5e-1))
        .mul_add(z2, L::splat(1.997_771_1e-1))
        .mul_add(z2, L::splat(-3.333_295e-1));
    let atan_z = (z * z2).mul_add(poly, z) + L::select(fold, L::splat(core::f32::consts::FRAC_PI_4), zero);
    let angle = L::select(y.cmp_gt(ax), L::splat(core::f32::consts::FRAC_PI_2) - atan_z, atan_z);
    L::select(x.cmp_lt(zero), L::splat(core::f32::consts::PI) - angle, angle)
}

/// The rotation vector of `(x, y, z, w)` lanes at either width; see [`SoaQuat::to_rotation_vector`].
#[inline(always)]
pub fn quat_to_rotation_vector<L: Lanes>(q: [L; 4]) -> [L; 3] {
    let [x, y, z, w] = q;
    let len = x.mul_add(x, y.mul_add(y, z * z)).sqrt();
    let half = atan2_upper(len, w);
    let zero = L::splat(0.0);
    let k = L::select(len.cmp_gt(zero), (half + half) / len, zero);
    [x * k, y * k, z * k]
}

/// Taylor coefficients in `u = θ²` of `cos(θ/2)` and of `sin(θ/2)/θ`, lowest first, through `u^6`.
const HALF_COS: [f32; 7] = series(1);
const HALF_SINC: [f32; 7] = series(2);

/// `(-1)^k / (4^k (2k)!)` (`first = 1`, cos) or `(-1)^k / (2 · 4^k (2k+1)!)` (`first = 2`, sinc).
const fn series(first: u32) -> [f32; 7] {
    let mut out = [0.0f32; 7];
    let mut term = 1.0f64 / first as f64;
    let mut k = 0;
    while k < 7 {
        out[k] = term as f32;
        // Next term: divide by 4 · (n + 1)(n + 2) where n = 2k (cos) or 2k + 1 (sinc), and flip the sign.
        let n = (2 * k as u32 + first - 1) as f64;
        term = -term / (4.0 * (n + 1.0) * (n + 2.0));
        k += 1;
    }
    out
}

impl SoaQuat {
    /// The rotation vector (axis × angle, radians) of each lane: `2 atan2(|v|, w) v / |v|`.
    ///
    /// Scale-invariant, so the quaternions need not be unit; `w < 0` gives angles past π (the caller picks
    /// the hemisphere). A zero vector part gives the zero vector. Precision: angle within 1e-6 rad.
    #[inline(always)]
    pub fn to_rotation_vector(self) -> SoaVec3 {
        let [x, y, z] = quat_to_rotation_vector([self.x, self.y, self.z, self.w]);
        SoaVec3 { x, y, z }
    }

    /// The unit quaternion of each lane's rotation vector `r` (angle `|r|` ≤ π): `(r sin(θ/2)/θ, cos(θ/2))`,
    /// both even series in `θ² = r·r`, so no square root, no division and no special case at zero.
    ///
    /// Precision: each component within 1.5e-7 of the exact value for `|r| <= π` (the series' first omitted
    /// term is below 7e-9); beyond π the error grows quickly.
    #[inline(always)]
    pub fn from_rotation_vector(r: SoaVec3) -> SoaQuat {
        let [x, y, z, w] = quat_from_rotation_vector([r.x, r.y, r.z]);
        SoaQuat { x, y, z, w }
    }
}

/// Lerp of translation and scale, shortest-arc nlerp of rotation, by `t` per lane.
#[inline(always)]
pub(crate) fn interpolate(a: &SoaTransform, b: &SoaTransform, t: F4) -> SoaTransform {
    SoaTransform {
        translation: SoaVec3::lerp(a.translation, b.translation, t),
        rotation: SoaQuat::nlerp(a.rotation, b.rotation, t),
        scale: SoaVec3::lerp(a.scale, b.scale, t),
    }
}
