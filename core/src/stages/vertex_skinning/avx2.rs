//! x86-64-v3 (AVX2 + FMA) vertex loop: a whole blended matrix in two 256-bit registers.
//!
//! A `Mat4` is two 256-bit loads, `[c0|c1]` and `[c2|c3]`, so blending an influence is two multiply-adds with
//! the weight broadcast from memory: no inserts or shuffles in the blend (a first version that put two
//! vertices side by side, `[col(v)|col(v+1)]`, needed one insert per column and influence and was bound by
//! the shuffle pipes: 31 µs for 8192 vertices with four influences). A lone point is `lo + hi` of
//! `[c0|c1]·[x|y] + [c2|c3]·[z|1]`. A point and its normal go through together as `[p|n]`: its coordinates
//! are broadcast within each half (in-lane shuffles), the columns duplicated across halves, and three
//! multiply-adds onto `[c3|0]` give `[p'|n']` with no sum of halves. Positions and normals are read with
//! 16-byte loads (the caller guarantees the four bytes past each element are readable; lane 3 is never used)
//! and written as 12 bytes, so nothing outside an element is touched. Positions and rigid normals only;
//! tangents and inverse-transpose normals take the portable loop.

use super::Streams;
use crate::math::lane::avx2::{f4, low_half_twice, sum_halves};
use crate::math::{F4, Mat4};
use core::arch::x86_64::*;

/// Writes lanes 0..3 of `v` as 12 bytes at `p`.
///
/// SAFETY: `p` must have 12 writable bytes; SSE4.1 must be enabled.
#[inline(always)]
unsafe fn store_vec3(p: *mut u8, v: __m128) {
    // SAFETY: the caller guarantees 12 writable bytes; unaligned writes need no alignment.
    unsafe {
        p.cast::<u64>().write_unaligned(_mm_cvtsi128_si64(_mm_castps_si128(v)) as u64);
        p.add(8).cast::<i32>().write_unaligned(_mm_extract_ps::<2>(v));
    }
}

/// `x·c0 + y·c1 + z·c2 + c3` for the point `(x, y, z)` at `p`, the matrix as `[c0|c1]`, `[c2|c3]`.
///
/// SAFETY: `p` must have 16 readable bytes (the last four are not used).
#[inline(always)]
unsafe fn transform_point(c01: __m256, c23: __m256, p: *const u8) -> __m128 {
    // SAFETY: AVX2 and FMA are enabled for this module; the caller guarantees the reads.
    unsafe {
        let xy = _mm256_permutevar8x32_ps(
            _mm256_castps128_ps256(_mm_loadu_ps(p.cast())),
            _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1),
        );
        // `z` broadcast straight from memory (a load, not a shuffle), `1` blended into the upper half.
        let z = _mm256_set1_ps(p.add(8).cast::<f32>().read_unaligned());
        let z1 = _mm256_blend_ps::<0xF0>(z, _mm256_set1_ps(1.0));
        sum_halves(_mm256_fmadd_ps(c01, xy, _mm256_mul_ps(c23, z1)))
    }
}

/// `[p'|n']` for `pn = [p|n]`: `p' = x·c0 + y·c1 + z·c2 + c3` and `n' = nx·c0 + ny·c1 + nz·c2`, the matrix as
/// `[c0|c1]`, `[c2|c3]`; lanes 3 and 7 of `pn` are not read.
#[inline(always)]
fn transform_pair(c01: __m256, c23: __m256, pn: __m256) -> __m256 {
    // SAFETY: AVX2 and FMA are enabled for this module; register-only intrinsics.
    unsafe {
        let x = _mm256_permute_ps::<0b00_00_00_00>(pn);
        let y = _mm256_permute_ps::<0b01_01_01_01>(pn);
        let z = _mm256_permute_ps::<0b10_10_10_10>(pn);
        let c00 = low_half_twice(c01);
        let c11 = _mm256_permute2f128_ps::<0x11>(c01, c01);
        let c22 = low_half_twice(c23);
        // Bit 7 zeroes the upper half: the normal takes no translation.
        let c3_0 = _mm256_permute2f128_ps::<0x81>(c23, c23);
        _mm256_fmadd_ps(c22, z, _mm256_fmadd_ps(c11, y, _mm256_fmadd_ps(c00, x, c3_0)))
    }
}

/// Skins vertices `0..end` with `K` influences each, positions and (when the streams have them) rigid
/// normals. One influence transforms by the joint's matrix and scales the results by the weight (one multiply
/// instead of two), or not at all when `UNIT` (every weight is 1). Returns the lane sum of every value
/// computed, for the caller's finite check.
///
/// SAFETY: as the portable loop (every element of `0..end` in bounds, outputs disjoint, joint indices below
/// `palette.len()`), and in addition 16 bytes readable at each input element of `0..end`.
#[inline(always)]
pub(super) unsafe fn skin_vertices<const K: usize, const UNIT: bool>(
    palette: &[Mat4],
    joints: &[u16],
    weights: &[f32],
    s: &Streams,
    end: usize,
) -> F4 {
    // SAFETY: forwarded from this function's contract. Each call passes a constant `normals`, so each inlined
    // loop knows it (as the portable loop's attribute sets do): no per-vertex flag test.
    unsafe {
        if s.attributes.normal {
            skin_vertices_with::<K, UNIT>(palette, joints, weights, s, end, true)
        } else {
            skin_vertices_with::<K, UNIT>(palette, joints, weights, s, end, false)
        }
    }
}

/// [`skin_vertices`] with the normals' presence as a parameter its callers pass as a constant.
///
/// SAFETY: as [`skin_vertices`].
#[inline(always)]
unsafe fn skin_vertices_with<const K: usize, const UNIT: bool>(
    palette: &[Mat4],
    joints: &[u16],
    weights: &[f32],
    s: &Streams,
    end: usize,
    normals: bool,
) -> F4 {
    // SAFETY (whole body): AVX2 and FMA are enabled for this module; pointer arithmetic and accesses stay in
    // the bounds the caller guarantees; `palette` is indexed by validated joints through raw pointers.
    unsafe {
        // One running sum: its add chain (3 cycles per vertex) is shorter than a vertex.
        let mut sum = _mm256_setzero_ps();
        let base = palette.as_ptr();
        for v in 0..end {
            let (js, ws) = (joints.as_ptr().add(v * K), weights.as_ptr().add(v * K));
            let (mut c01, mut c23) = (_mm256_setzero_ps(), _mm256_setzero_ps());
            for k in 0..K {
                let m = base.add(*js.add(k) as usize).cast::<f32>();
                let w = _mm256_broadcast_ss(&*ws.add(k));
                let (a, b) = (_mm256_loadu_ps(m), _mm256_loadu_ps(m.add(8)));
                if K == 1 {
                    (c01, c23) = (a, b);
                } else if k == 0 {
                    (c01, c23) = (_mm256_mul_ps(a, w), _mm256_mul_ps(b, w));
                } else {
                    (c01, c23) = (_mm256_fmadd_ps(a, w, c01), _mm256_fmadd_ps(b, w, c23));
                }
            }
            let (p_in, p_out) = (s.src[0].add(v * s.src_stride[0]), s.dst[0].add(v * s.dst_stride[0]));
            let scaled = K == 1 && !UNIT;
            if normals {
                let p = _mm_loadu_ps(p_in.cast());
                let n = _mm_loadu_ps(s.src[1].add(v * s.src_stride[1]).cast());
                let mut pn = transform_pair(c01, c23, _mm256_set_m128(n, p));
                if scaled {
                    pn = _mm256_mul_ps(pn, _mm256_broadcast_ss(&*ws));
                }
                store_vec3(p_out, _mm256_castps256_ps128(pn));
                store_vec3(s.dst[1].add(v * s.dst_stride[1]), _mm256_extractf128_ps::<1>(pn));
                sum = _mm256_add_ps(sum, pn);
            } else {
                let mut p = transform_point(c01, c23, p_in);
                if scaled {
                    p = _mm_mul_ps(p, _mm_broadcast_ss(&*ws));
                }
                store_vec3(p_out, p);
                sum = _mm256_add_ps(sum, _mm256_zextps128_ps256(p));
            }
        }
        // Lanes 3 and 7 hold the matrices' blended last row applied to the point or normal: finite for finite
        // inputs, so they join the check harmlessly.
        f4(sum_halves(sum))
    }
}
