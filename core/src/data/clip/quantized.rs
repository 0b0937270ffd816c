//! The quantized encoding: translation and scale keys as three `u16` levels in a per-track range, rotations
//! smallest-three in three `u16` (see the clip's module docs for the layout).
//!
//! Precision: translation and scale within `step / 2` per component; rotations within
//! [`ROTATION_ANGLE_ERROR`].

use bytemuck::{Pod, Zeroable};

/// Dequantization of one translation or scale track: component `c` is `min[c] + q * step[c]`, `q` a `u16`.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct QuantRange {
    /// Per component, the value at `q = 0`.
    pub min: [f32; 3],
    /// Per component, the value one `q` step adds.
    pub step: [f32; 3],
}

/// Bound on the rotation angle between a unit quaternion and its smallest-three round trip, in radians.
pub const ROTATION_ANGLE_ERROR: f32 = 1.5e-4;

/// Largest magnitude of a smallest-three component: the three smallest of a unit quaternion are ≤ 1/√2.
const SMALLEST_THREE_RANGE: f32 = core::f32::consts::FRAC_1_SQRT_2;
/// Quantization levels of a smallest-three component (15 bits; the 16th carries part of the index).
const SMALLEST_THREE_LEVELS: f32 = 32767.0;

/// Decodes a smallest-three rotation: the low 15 bits of each `u16` are the three components other than the
/// largest, mapped from `[-1/√2, 1/√2]`; the top bits of `k[0]` and `k[1]` give the largest one's index; the
/// largest is stored positive (q and −q are the same rotation) and rebuilt as `sqrt(1 − a² − b² − c²)`.
///
/// Precision: stored components within 2.2e-5; the rebuilt one absorbs up to 3× that when all four are near
/// 0.5, so the rotation angle error is at most 2·√12·2.2e-5 = `ROTATION_ANGLE_ERROR` (1.5e-4 rad; measured
/// 1.3e-4 over 100 000 random rotations). Never returns a zero quaternion (the
/// rebuilt component is at least 0.5 for any encoder output, and the others are then small).
#[inline]
pub fn decode_rotation(k: [u16; 3]) -> [f32; 4] {
    // One lane of the SoA decode, so the scalar and the group paths agree bit for bit.
    let q = decode_rotations([k[0]; 4], [k[1]; 4], [k[2]; 4]);
    [q.x.lane::<0>(), q.y.lane::<0>(), q.z.lane::<0>(), q.w.lane::<0>()]
}

/// [`decode_rotation`] for four keys at once, SoA: `k0`, `k1`, `k2` hold the first, second and third `u16` of
/// each of four keys (one per lane). Same results as four scalar decodes.
#[inline(always)]
pub fn decode_rotations(k0: [u16; 4], k1: [u16; 4], k2: [u16; 4]) -> crate::math::SoaQuat {
    use crate::math::F4;
    let scale = F4::splat(2.0 * SMALLEST_THREE_RANGE / SMALLEST_THREE_LEVELS);
    let offset = F4::splat(-SMALLEST_THREE_RANGE);
    let component = |k: [u16; 4]| {
        let levels = k.map(|v| (v & 0x7fff) as f32);
        F4::new(levels[0], levels[1], levels[2], levels[3]).mul_add(scale, offset)
    };
    let (a, b, c) = (component(k0), component(k1), component(k2));
    let rest = a.mul_add(a, b.mul_add(b, c * c));
    let largest = (F4::ONE - rest).max(F4::ZERO).sqrt();
    let index = core::array::from_fn::<f32, 4, _>(|l| ((k0[l] >> 15) | ((k1[l] >> 15) << 1)) as f32);
    let index = F4::new(index[0], index[1], index[2], index[3]);
    let is = |i: f32| index.cmp_eq(F4::splat(i));
    crate::math::SoaQuat {
        x: F4::select(is(0.0), largest, a),
        y: F4::select(is(0.0), a, F4::select(is(1.0), largest, b)),
        z: F4::select(is(3.0), c, F4::select(is(2.0), largest, b)),
        w: F4::select(is(3.0), largest, c),
    }
}

/// Encodes a unit quaternion `(x, y, z, w)` for [`decode_rotation`]. The input need not be normalized; it
/// must be finite and non-zero (the result is unspecified otherwise). The baker's: built with the `tools`
/// feature only.
#[cfg(feature = "tools")]
pub fn encode_rotation(q: [f32; 4]) -> [u16; 3] {
    let len = crate::math::sqrt(q.iter().map(|v| v * v).sum::<f32>());
    let mut largest = 0;
    for i in 1..4 {
        if q[i].abs() > q[largest].abs() {
            largest = i;
        }
    }
    let sign = if q[largest] < 0.0 { -1.0 } else { 1.0 };
    let mut out = [0u16; 3];
    let mut slot = 0;
    for (i, &v) in q.iter().enumerate() {
        if i == largest {
            continue;
        }
        let unit = (v * sign / len).clamp(-SMALLEST_THREE_RANGE, SMALLEST_THREE_RANGE);
        let level = libm::roundf((unit + SMALLEST_THREE_RANGE) / (2.0 * SMALLEST_THREE_RANGE) * SMALLEST_THREE_LEVELS);
        out[slot] = level as u16;
        slot += 1;
    }
    out[0] |= ((largest & 1) as u16) << 15;
    out[1] |= ((largest >> 1) as u16) << 15;
    out
}
