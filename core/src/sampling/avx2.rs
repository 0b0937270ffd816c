//! The x86-64-v3 (AVX2 + FMA) interpolation pass: a lane group's 40 floats as five 256-bit rows.
//!
//! Layout in registers: a `SoaTransform` is ten `F4` rows `tx ty tz rx ry rz rw sx sy sz`; read as five
//! 256-bit pairs they are `[tx|ty] [tz|rx] [ry|rz] [rw|sx] [sy|sz]`. Every output row is `a·(1 − t) + b·w`
//! with `w = t` for translation and scale and `w = ±t` (the shortest-arc sign per joint) for rotation, so the
//! blend is one multiply and one multiply-add per pair. The rotation's two dot products (sign, then
//! normalization) fold the pairs' halves together with one cross-half permute. Per lane group: 10 loads, 5
//! stores and about 30 vector operations, against 20 loads, 10 stores and about 47 for the 4-wide pass.
//!
//! Precision: the same products as the portable pass; translation and scale are `a(1 − t) + bt` instead of
//! `a + (b − a)t` (both exact at `t = 0` and `t = 1`), and rotations go through the shared `F4::rsqrt`.

use crate::math::{F4, SoaTransform};
use core::arch::x86_64::*;

#[inline(always)]
fn m128(v: F4) -> __m128 {
    // SAFETY: `F4` is 16 bytes of `f32` lanes, exactly the layout of `__m128`.
    unsafe { core::mem::transmute::<F4, __m128>(v) }
}

#[inline(always)]
fn f4(v: __m128) -> F4 {
    // SAFETY: as `m128`, the other way.
    unsafe { core::mem::transmute::<__m128, F4>(v) }
}

/// Per lane, `x` and `y` summed over the rotation rows of five pairs: `p1.hi + p2.lo + p2.hi + p3.lo`.
#[inline(always)]
fn rotation_dot(p1: __m256, p2: __m256, p3: __m256) -> F4 {
    // SAFETY (every intrinsic in this module): the module is compiled only with AVX2 and FMA enabled.
    unsafe {
        let outer = _mm256_permute2f128_ps::<0x21>(p1, p3); // [p1.hi | p3.lo]: rx and rw products
        let sum = _mm256_add_ps(p2, outer); // [ry + rx | rz + rw]
        f4(_mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps::<1>(sum)))
    }
}

/// `out[g]` = lerp of translation and scale, shortest-arc nlerp of rotation, from `a[g]` to `b[g]` by `t`.
#[inline(always)]
pub(super) fn interpolate_pose(a: &[SoaTransform], b: &[SoaTransform], t: f32, out: &mut [SoaTransform]) {
    unsafe {
        let ta = _mm256_set1_ps(1.0 - t);
        let t4 = _mm_set1_ps(t);
        let sign_bit = _mm_set1_ps(-0.0);
        for ((out, a), b) in out.iter_mut().zip(a).zip(b) {
            let (pa, pb, po) = (a as *const SoaTransform as *const f32, b as *const SoaTransform as *const f32, out as *mut SoaTransform as *mut f32);
            // SAFETY: each `SoaTransform` is 40 contiguous floats, so offsets 0, 8, …, 32 read and write
            // five whole 8-float rows inside it.
            let load = |p: *const f32, i: usize| _mm256_loadu_ps(p.add(8 * i));
            let a_rows = [load(pa, 0), load(pa, 1), load(pa, 2), load(pa, 3), load(pa, 4)];
            let b_rows = [load(pb, 0), load(pb, 1), load(pb, 2), load(pb, 3), load(pb, 4)];

            // Shortest arc: flip the rotation weight's sign where dot(a, b) < 0.
            let dot = rotation_dot(
                _mm256_mul_ps(a_rows[1], b_rows[1]),
                _mm256_mul_ps(a_rows[2], b_rows[2]),
                _mm256_mul_ps(a_rows[3], b_rows[3]),
            );
            let tb = _mm_xor_ps(t4, _mm_and_ps(m128(dot), sign_bit));
            let weights = [
                _mm256_set_m128(t4, t4),
                _mm256_set_m128(tb, t4),
                _mm256_set_m128(tb, tb),
                _mm256_set_m128(t4, tb),
                _mm256_set_m128(t4, t4),
            ];
            let mut rows = [_mm256_setzero_ps(); 5];
            for i in 0..5 {
                rows[i] = _mm256_fmadd_ps(a_rows[i], ta, _mm256_mul_ps(b_rows[i], weights[i]));
            }

            // Normalize the rotation rows.
            let len_sq = rotation_dot(
                _mm256_mul_ps(rows[1], rows[1]),
                _mm256_mul_ps(rows[2], rows[2]),
                _mm256_mul_ps(rows[3], rows[3]),
            );
            let inv = m128(len_sq.rsqrt());
            let one = _mm_set1_ps(1.0);
            rows[1] = _mm256_mul_ps(rows[1], _mm256_set_m128(inv, one));
            rows[2] = _mm256_mul_ps(rows[2], _mm256_set_m128(inv, inv));
            rows[3] = _mm256_mul_ps(rows[3], _mm256_set_m128(one, inv));
            for (i, row) in rows.iter().enumerate() {
                _mm256_storeu_ps(po.add(8 * i), *row);
            }
        }
    }
}
