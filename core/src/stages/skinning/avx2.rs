//! x86-64-v3 (AVX2 + FMA) skinning-matrix loops: two output columns (or rows) per 256-bit multiply-add.
//!
//! On AMD a broadcast from memory still takes an FP pipe, so the 4-wide loop's 12 broadcasts compete with its
//! 12 multiply-adds. Here a 128-bit broadcast load (`vbroadcastf128`, load pipe only) fills both halves, and
//! one `vpermilps` per pair picks a different entry for each half: per joint 6 shuffles and 6 multiply-adds
//! for a `Mat4`, 8 and 6 for a 3×4 (whose two translation terms take one `vpshufb` each and no multiply).
//!
//! Each loop returns the lane-wise sum of everything it wrote, for the caller's fused finite check.

use crate::math::lane::avx2::{f4, sum_halves};
use crate::math::{F4, Mat3x4, Mat4};
use core::arch::x86_64::*;

/// `[v|v]` from 16 aligned bytes.
#[inline(always)]
fn both_halves(v: &[f32; 4]) -> __m256 {
    // SAFETY: `v` is 16 readable bytes; AVX is enabled for this module.
    unsafe { _mm256_broadcast_ps(&*v.as_ptr().cast::<__m128>()) }
}

/// Column-major palette: `[c0|c1] = sum_k [m_k|m_k] * [b_k0|b_k1]`, `[c2|c3]` likewise plus `[0|m3]`.
#[inline(always)]
pub(super) fn palette(remap: &[u16], inverse_bind: &[Mat3x4], model: &[Mat4], palette: &mut [Mat4]) -> F4 {
    // SAFETY (every intrinsic below): the module is compiled only with AVX2 and FMA enabled; stores write the
    // 64 bytes of one `out` matrix.
    unsafe {
        let pick01 = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
        let pick23 = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);
        let mut sum = _mm256_setzero_ps();
        for ((out, ib), &joint) in palette.iter_mut().zip(inverse_bind).zip(remap) {
            let m = &model[joint as usize].cols;
            let (m0, m1, m2) = (both_halves(&m[0]), both_halves(&m[1]), both_halves(&m[2]));
            let m3 = _mm256_insertf128_ps::<1>(_mm256_setzero_ps(), _mm_load_ps(m[3].as_ptr()));
            let rows = [both_halves(&ib.rows[0]), both_halves(&ib.rows[1]), both_halves(&ib.rows[2])];
            let [b0, b1, b2] = rows.map(|r| _mm256_permutevar_ps(r, pick01));
            let c01 = _mm256_fmadd_ps(m2, b2, _mm256_fmadd_ps(m1, b1, _mm256_mul_ps(m0, b0)));
            let [b0, b1, b2] = rows.map(|r| _mm256_permutevar_ps(r, pick23));
            let c23 = _mm256_fmadd_ps(m2, b2, _mm256_fmadd_ps(m1, b1, _mm256_fmadd_ps(m0, b0, m3)));
            let dst = out.cols.as_mut_ptr().cast::<f32>();
            _mm256_storeu_ps(dst, c01);
            _mm256_storeu_ps(dst.add(8), c23);
            // `c3` alone carries the check (see the portable loop); `c2` rides along in the same register.
            sum = _mm256_add_ps(sum, c23);
        }
        f4(sum_halves(sum))
    }
}

/// Row palette: `[r0|r1] = sum_k [M0k|M1k] * [B_k|B_k]` over k = 0..3 (B's fourth row is (0, 0, 0, 1)), and
/// row 2 in a 128-bit register.
#[inline(always)]
pub(super) fn palette_3x4(remap: &[u16], inverse_bind: &[Mat3x4], model: &[Mat4], palette: &mut [Mat3x4]) -> F4 {
    // SAFETY (every intrinsic below): AVX2 and FMA are enabled for this module; stores write the 48 bytes of
    // one `out` matrix.
    unsafe {
        let lo = |v: __m256| _mm256_castps256_ps128(v);
        let pick01 = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
        // Byte indices with the high bit set write zero: lane 3 takes the column's lane 0 (low half) or lane 1
        // (high half), and below, lane 2.
        let z = -1i8;
        #[rustfmt::skip]
        let translation01 = _mm256_setr_epi8(
            z, z, z, z, z, z, z, z, z, z, z, z, 0, 1, 2, 3,
            z, z, z, z, z, z, z, z, z, z, z, z, 4, 5, 6, 7,
        );
        let translation2 = _mm_setr_epi8(z, z, z, z, z, z, z, z, z, z, z, z, 8, 9, 10, 11);
        let mut sum01 = _mm256_setzero_ps();
        let mut sum2 = _mm_setzero_ps();
        for ((out, ib), &joint) in palette.iter_mut().zip(inverse_bind).zip(remap) {
            let m = &model[joint as usize].cols;
            let cols = [both_halves(&m[0]), both_halves(&m[1]), both_halves(&m[2])];
            let [a0, a1, a2] = cols.map(|c| _mm256_permutevar_ps(c, pick01));
            let [d0, d1, d2] = cols.map(|c| _mm_permute_ps::<0xAA>(lo(c)));
            // The translation terms `[0, 0, 0, M03 | 0, 0, 0, M13]` and `[0, 0, 0, M23]`: one byte shuffle
            // each moves the entry and zeroes the rest, where a broadcast and a blend took two.
            let t = both_halves(&m[3]);
            let t01 = _mm256_castsi256_ps(_mm256_shuffle_epi8(_mm256_castps_si256(t), translation01));
            let t2 = _mm_castsi128_ps(_mm_shuffle_epi8(_mm_castps_si128(lo(t)), translation2));
            let rows = [both_halves(&ib.rows[0]), both_halves(&ib.rows[1]), both_halves(&ib.rows[2])];
            let r01 = _mm256_fmadd_ps(a2, rows[2], _mm256_fmadd_ps(a1, rows[1], _mm256_fmadd_ps(a0, rows[0], t01)));
            let r2 = _mm_fmadd_ps(d2, lo(rows[2]), _mm_fmadd_ps(d1, lo(rows[1]), _mm_fmadd_ps(d0, lo(rows[0]), t2)));
            let dst = out.rows.as_mut_ptr().cast::<f32>();
            _mm256_storeu_ps(dst, r01);
            _mm_store_ps(dst.add(8), r2);
            sum01 = _mm256_add_ps(sum01, r01);
            sum2 = _mm_add_ps(sum2, r2);
        }
        f4(_mm_add_ps(sum_halves(sum01), sum2))
    }
}
