//! Independent f64 reference implementations. Written from the definitions (TRS composition, quaternion
//! algebra, matrix products), sharing nothing with the runtime but its input types.

use sinew::math::{Mat3x4, Quat, Transform};

/// Column-major 4×4 in f64: `m[c * 4 + r]`.
pub type M4 = [f64; 16];

pub const IDENTITY: M4 = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.];

/// `a * b`.
pub fn mul(a: &M4, b: &M4) -> M4 {
    let mut out = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            out[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
        }
    }
    out
}

/// Rotation matrix of the quaternion normalized in f64 (any non-zero length).
pub fn rotation(q: Quat) -> [[f64; 3]; 3] {
    let (x, y, z, w) = (q.x as f64, q.y as f64, q.z as f64, q.w as f64);
    let n = (x * x + y * y + z * z + w * w).sqrt();
    let (x, y, z, w) = (x / n, y / n, z / n, w / n);
    // Row-major R[r][c] from the standard unit-quaternion formula.
    [
        [1. - 2. * (y * y + z * z), 2. * (x * y - w * z), 2. * (x * z + w * y)],
        [2. * (x * y + w * z), 1. - 2. * (x * x + z * z), 2. * (y * z - w * x)],
        [2. * (x * z - w * y), 2. * (y * z + w * x), 1. - 2. * (x * x + y * y)],
    ]
}

/// `T * R * S` of a transform, in f64.
pub fn trs(t: &Transform) -> M4 {
    let r = rotation(t.rotation);
    let s = [t.scale.x as f64, t.scale.y as f64, t.scale.z as f64];
    let mut m = IDENTITY;
    for c in 0..3 {
        for row in 0..3 {
            m[c * 4 + row] = r[row][c] * s[c];
        }
    }
    m[12] = t.translation.x as f64;
    m[13] = t.translation.y as f64;
    m[14] = t.translation.z as f64;
    m
}

/// Model-space matrices: `model[j] = model[parent[j]] * trs(local[j])`, roots under `root`.
pub fn local_to_model(parents: &[i16], local: &[Transform], root: &M4) -> Vec<M4> {
    let mut model: Vec<M4> = Vec::with_capacity(parents.len());
    for (j, &p) in parents.iter().enumerate() {
        let parent = if p < 0 { *root } else { model[p as usize] };
        model.push(mul(&parent, &trs(&local[j])));
    }
    model
}

/// A `Mat3x4` (rows) as an f64 column-major 4×4.
pub fn from_rows(m: &Mat3x4) -> M4 {
    let mut out = IDENTITY;
    for r in 0..3 {
        for c in 0..4 {
            out[c * 4 + r] = m.rows[r][c] as f64;
        }
    }
    out
}

/// A runtime `Mat4` widened to f64.
pub fn widen(m: &sinew::math::Mat4) -> M4 {
    let mut out = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            out[c * 4 + r] = m.cols[c][r] as f64;
        }
    }
    out
}

/// Quaternion product `a * b` in f64, as `[x, y, z, w]`.
pub fn quat_mul(a: Quat, b: Quat) -> [f64; 4] {
    let wide = |q: Quat| [q.x, q.y, q.z, q.w].map(f64::from);
    quat_mul64(wide(a), wide(b))
}

/// Hamilton product of `[x, y, z, w]` quaternions in f64.
pub fn quat_mul64(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let ([ax, ay, az, aw], [bx, by, bz, bw]) = (a, b);
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// `v` rotated by `q` (normalized in f64) via the rotation matrix.
pub fn rotate(q: Quat, v: [f64; 3]) -> [f64; 3] {
    let r = rotation(q);
    [0, 1, 2].map(|row| r[row][0] * v[0] + r[row][1] * v[1] + r[row][2] * v[2])
}

/// The 3×3 inverse by Gauss-Jordan elimination with partial pivoting, and the determinant as the signed product
/// of the pivots; `None` when a pivot vanishes. `m[r][c]`.
pub fn inverse3(m: [[f64; 3]; 3]) -> Option<([[f64; 3]; 3], f64)> {
    let mut a = m;
    let mut inv = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut det = 1.0;
    for col in 0..3 {
        let pivot = (col..3).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col] == 0.0 {
            return None;
        }
        if pivot != col {
            a.swap(pivot, col);
            inv.swap(pivot, col);
            det = -det;
        }
        let p = a[col][col];
        det *= p;
        for c in 0..3 {
            a[col][c] /= p;
            inv[col][c] /= p;
        }
        for r in (0..3).filter(|&r| r != col) {
            let f = a[r][col];
            for c in 0..3 {
                a[r][c] -= f * a[col][c];
                inv[r][c] -= f * inv[col][c];
            }
        }
    }
    Some((inv, det))
}

/// The motion transition curve of Bollo's SIGGRAPH 2017 supplemental material for one degree of freedom, in `f64`, written from the paper's steps:
/// the offset `x` at time `t` of a transition with offset `x0`, source velocity `v0` and duration `t1`.
pub fn inertialize(x0: f64, v0: f64, t1: f64, t: f64) -> f64 {
    inertialize_shaped(x0, v0, t1, t, false)
}

/// [`inertialize`], or with `continuous` the curve that keeps the source's velocity: no clamp of a velocity
/// moving away from the target, and an offset of exactly 0 mirrored by its velocity. Its offset term falls on
/// the sextic `1 − 15 τ⁴ + 24 τ⁵ − 10 τ⁶` (zero velocity, acceleration and jerk at the start, zero velocity
/// and acceleration at the end) and its velocity term is `v0 t1 τ (1 − τ)⁶`, expanded here; a curve moving
/// toward the target is shortened to `t1 <= -17.5 x0 / v0`.
pub fn inertialize_shaped(x0: f64, v0: f64, t1: f64, t: f64, continuous: bool) -> f64 {
    if t <= 0.0 {
        return x0;
    }
    // Mirror so x0 >= 0, and negate the result at the end.
    let by = if continuous && x0 == 0.0 { v0 } else { x0 };
    let sign = if by < 0.0 { -1.0 } else { 1.0 };
    let (x0, mut v0) = (x0 * sign, v0 * sign);
    if continuous {
        let t1 = if v0 < 0.0 { t1.min(-17.5 * x0 / v0) } else { t1 };
        if t >= t1 {
            return 0.0;
        }
        let tau = t / t1;
        let offset = 1.0 - 15.0 * tau.powi(4) + 24.0 * tau.powi(5) - 10.0 * tau.powi(6);
        let velocity = tau - 6.0 * tau.powi(2) + 15.0 * tau.powi(3) - 20.0 * tau.powi(4) + 15.0 * tau.powi(5)
            - 6.0 * tau.powi(6)
            + tau.powi(7);
        return sign * (x0 * offset + v0 * t1 * velocity);
    }
    if v0 > 0.0 {
        v0 = 0.0;
    }
    let t1 = if v0 < 0.0 { t1.min(-5.0 * x0 / v0) } else { t1 };
    if t >= t1 {
        return 0.0;
    }
    let mut a0 = (-8.0 * t1 * v0 - 20.0 * x0) / (t1 * t1);
    if a0 < 0.0 {
        a0 = 0.0;
    }
    let a = (a0 * t1 * t1 + 6.0 * t1 * v0 + 12.0 * x0) / t1.powi(5);
    let b = (3.0 * a0 * t1 * t1 + 16.0 * t1 * v0 + 30.0 * x0) / t1.powi(4);
    let c = (3.0 * a0 * t1 * t1 + 12.0 * t1 * v0 + 20.0 * x0) / t1.powi(3);
    let x = (-a * t.powi(5) + b * t.powi(4) - c * t.powi(3) + a0 * t * t) / 2.0 + v0 * t + x0;
    sign * x
}

/// The limited duration the paper's curve uses (`t1`, or `-5 x0 / v0` when that is shorter), after mirroring
/// and the velocity clamp.
pub fn limited_duration(x0: f64, v0: f64, t1: f64) -> f64 {
    let v = if x0 < 0.0 { -v0 } else { v0 };
    if v < 0.0 { t1.min(-5.0 * x0.abs() / v) } else { t1 }
}

/// Rotation vector (axis × angle) of a quaternion `[x, y, z, w]`, taking the hemisphere it is given in.
pub fn rotation_vector(q: [f64; 4]) -> [f64; 3] {
    let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
    if len == 0.0 {
        return [0.0; 3];
    }
    let angle = 2.0 * len.atan2(q[3]);
    [q[0] / len * angle, q[1] / len * angle, q[2] / len * angle]
}

/// Unit quaternion of a rotation vector.
pub fn from_rotation_vector(r: [f64; 3]) -> [f64; 4] {
    let angle = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
    if angle == 0.0 {
        return [0.0, 0.0, 0.0, 1.0];
    }
    let s = (angle / 2.0).sin() / angle;
    [r[0] * s, r[1] * s, r[2] * s, (angle / 2.0).cos()]
}

/// A local transform as ten f64 components: translation xyz, rotation xyzw, scale xyz.
pub type Flat = [f64; 10];

pub fn flat(t: &Transform) -> Flat {
    let (p, q, s) = (t.translation, t.rotation, t.scale);
    [p.x, p.y, p.z, q.x, q.y, q.z, q.w, s.x, s.y, s.z].map(f64::from)
}

const ROTATION: std::ops::Range<usize> = 3..7;

fn normalize_rotation(mut v: Flat) -> Flat {
    let len = ROTATION.map(|i| v[i] * v[i]).sum::<f64>().sqrt();
    for x in &mut v[ROTATION] {
        *x /= len;
    }
    v
}

/// `a` to `b` by `t`: lerp of translation and scale, shortest-arc normalized lerp of rotation.
pub fn interpolate(a: &Flat, b: &Flat, t: f64) -> Flat {
    let dot: f64 = ROTATION.map(|i| a[i] * b[i]).sum();
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    normalize_rotation(std::array::from_fn(|i| {
        let bi = if ROTATION.contains(&i) { sign * b[i] } else { b[i] };
        a[i] + (bi - a[i]) * t
    }))
}

/// A uniformly sampled clip (`frames[f][joint]` at `f / rate` s) at `time`, clamped to the clip.
pub fn sample(frames: &[Vec<Transform>], rate: f64, time: f64) -> Vec<Flat> {
    let last = (frames.len() - 1) as f64;
    let x = if frames.len() == 1 { 0.0 } else { (time * rate).clamp(0.0, last) };
    let f0 = (x.floor() as usize).min(frames.len().saturating_sub(2));
    let f1 = (f0 + 1).min(frames.len() - 1);
    (0..frames[0].len()).map(|j| interpolate(&flat(&frames[f0][j]), &flat(&frames[f1][j]), x - f0 as f64)).collect()
}

/// One pose of a blend: the pose, its weight and an optional per-joint mask.
pub type BlendInput<'a> = (&'a [Flat], f64, Option<&'a [f64]>);

/// Normalized weighted blend per joint (weights times masks), rotations summed sign-aligned with the running
/// sum in layer order, the rest pose filling up to `threshold`.
pub fn blend(rest: &[Flat], layers: &[BlendInput<'_>], threshold: f64) -> Vec<Flat> {
    (0..rest.len())
        .map(|j| {
            let mut acc = [0.0f64; 10];
            let add = |acc: &mut Flat, v: &Flat, w: f64| {
                let dot: f64 = ROTATION.map(|i| acc[i] * v[i]).sum();
                let sign = if dot < 0.0 { -1.0 } else { 1.0 };
                for i in 0..10 {
                    acc[i] += if ROTATION.contains(&i) { sign * w * v[i] } else { w * v[i] };
                }
                w
            };
            let mut total = 0.0;
            for (pose, weight, mask) in layers {
                total += add(&mut acc, &pose[j], weight * mask.map_or(1.0, |m| m[j]));
            }
            total += add(&mut acc, &rest[j], (threshold - total).max(0.0));
            let len = ROTATION.map(|i| acc[i] * acc[i]).sum::<f64>().sqrt();
            std::array::from_fn(|i| if ROTATION.contains(&i) { acc[i] / len } else { acc[i] / total })
        })
        .collect()
}

/// `pose ∘ (reference⁻¹ · sample)^w`: the additive delta of `sample` from `reference` applied with weight `w`
/// (translation `+ wΔt`, rotation `· nlerp(1, Δq, w)`, scale `· (1 + w(Δs − 1))`; `w ≥ 0`).
pub fn add(pose: &Flat, reference: &Flat, sample: &Flat, w: f64) -> Flat {
    let q = |v: &Flat| [v[3], v[4], v[5], v[6]];
    let r = q(reference);
    let dq = quat_mul64([-r[0], -r[1], -r[2], r[3]], q(sample));
    let len = dq.iter().map(|c| c * c).sum::<f64>().sqrt();
    let dq = dq.map(|c| c / len);
    let sign = if dq[3] < 0.0 { -1.0 } else { 1.0 };
    let step: [f64; 4] = std::array::from_fn(|i| (if i == 3 { 1.0 } else { 0.0 }) * (1.0 - w) + sign * dq[i] * w);
    let step_len = step.iter().map(|c| c * c).sum::<f64>().sqrt();
    let rotated = quat_mul64(q(pose), step.map(|c| c / step_len));
    let mut out = *pose;
    for i in 0..3 {
        out[i] += w * (sample[i] - reference[i]);
        out[7 + i] *= 1.0 + w * (sample[7 + i] / reference[7 + i] - 1.0);
    }
    out[3..7].copy_from_slice(&rotated);
    normalize_rotation(out)
}

/// Largest component difference between `got` and `expected`, relative to `max(|expected|, 1)`, rotations
/// compared up to sign.
pub fn max_relative_error(got: &[Transform], expected: &[Flat]) -> f64 {
    got.iter()
        .zip(expected)
        .map(|(t, e)| {
            let v = flat(t);
            let dot: f64 = ROTATION.map(|i| v[i] * e[i]).sum();
            let sign = if dot < 0.0 { -1.0 } else { 1.0 };
            (0..10)
                .map(|i| {
                    let vi = if ROTATION.contains(&i) { sign * v[i] } else { v[i] };
                    (vi - e[i]).abs() / e[i].abs().max(1.0)
                })
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}
