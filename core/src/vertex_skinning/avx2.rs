//! x86-64-v3 (AVX2 + FMA) vertex loop: two vertices per 256-bit register.
//!
//! Each column of the blended matrix is `[col(v) | col(v + 1)]`, so one multiply-add blends one column of
//! one influence for both vertices, and the weights are broadcast per half. Positions and normals are read
//! with 16-byte loads (the caller guarantees the four bytes past each element are readable) and written as
//! 12 bytes, so nothing outside an element is touched. Positions and rigid normals only; tangents and
//! inverse-transpose normals take the portable loop.

use super::Streams;
use crate::math::{F4, Mat4};
use core::arch::x86_64::*;

/// `[lo | hi]` from two 16-byte loads.
///
/// SAFETY: both pointers must have 16 readable bytes; AVX must be enabled.
#[inline(always)]
unsafe fn load_pair(lo: *const f32, hi: *const f32) -> __m256 {
    // SAFETY: the caller guarantees both loads are in bounds; unaligned loads need no alignment.
    unsafe { _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi)) }
}

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

/// `x * c0 + y * c1 + z * c2 (+ c3)` per half, `v` holding `(x, y, z, _)` per half.
#[inline(always)]
fn transform(cols: &[__m256; 4], v: __m256, point: bool) -> __m256 {
    // SAFETY: AVX2 and FMA are enabled for this module; register-only intrinsics.
    unsafe {
        let (x, y, z) = (_mm256_permute_ps::<0x00>(v), _mm256_permute_ps::<0x55>(v), _mm256_permute_ps::<0xAA>(v));
        let first = if point { _mm256_fmadd_ps(cols[0], x, cols[3]) } else { _mm256_mul_ps(cols[0], x) };
        _mm256_fmadd_ps(cols[2], z, _mm256_fmadd_ps(cols[1], y, first))
    }
}

/// Skins vertices `0..end` (`end` even) with `K` influences each, positions and (when the streams have them)
/// rigid normals. Returns the lane sum of every value computed, for the caller's finite check.
///
/// SAFETY: as the portable loop (every element of `0..end` in bounds, outputs disjoint, joint indices below
/// `palette.len()`), and in addition 16 bytes readable at each input element of `0..end`.
#[inline(always)]
pub(super) unsafe fn skin_pairs<const K: usize>(
    palette: &[Mat4],
    joints: &[u16],
    weights: &[f32],
    s: &Streams,
    end: usize,
) -> F4 {
    // SAFETY (whole body): AVX2 and FMA are enabled for this module; pointer arithmetic and accesses stay in
    // the bounds the caller guarantees; `palette` is indexed by validated joints through raw pointers.
    unsafe {
        let mut sum = _mm256_setzero_ps();
        let base = palette.as_ptr();
        for v in (0..end).step_by(2) {
            let (j0, j1) = (joints.as_ptr().add(v * K), joints.as_ptr().add((v + 1) * K));
            let (w0, w1) = (weights.as_ptr().add(v * K), weights.as_ptr().add((v + 1) * K));
            let mut cols = [_mm256_setzero_ps(); 4];
            for k in 0..K {
                let (m0, m1) = (&(*base.add(*j0.add(k) as usize)).cols, &(*base.add(*j1.add(k) as usize)).cols);
                let w = _mm256_insertf128_ps::<1>(
                    _mm256_castps128_ps256(_mm_broadcast_ss(&*w0.add(k))),
                    _mm_broadcast_ss(&*w1.add(k)),
                );
                for (c, col) in cols.iter_mut().enumerate() {
                    let m = load_pair(m0[c].as_ptr(), m1[c].as_ptr());
                    *col = if k == 0 { _mm256_mul_ps(m, w) } else { _mm256_fmadd_ps(m, w, *col) };
                }
            }
            let at = |i: usize, vertex: usize| s.src[i].add(vertex * s.src_stride[i]).cast::<f32>();
            let to = |i: usize, vertex: usize| s.dst[i].add(vertex * s.dst_stride[i]);
            let p = transform(&cols, load_pair(at(0, v), at(0, v + 1)), true);
            store_vec3(to(0, v), _mm256_castps256_ps128(p));
            store_vec3(to(0, v + 1), _mm256_extractf128_ps::<1>(p));
            sum = _mm256_add_ps(sum, p);
            if s.has_normal {
                let n = transform(&cols, load_pair(at(1, v), at(1, v + 1)), false);
                store_vec3(to(1, v), _mm256_castps256_ps128(n));
                store_vec3(to(1, v + 1), _mm256_extractf128_ps::<1>(n));
                sum = _mm256_add_ps(sum, n);
            }
        }
        // Lane 3 holds the sum of the weights' products with row 3: finite for finite inputs, so it joins the
        // check harmlessly.
        let folded = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps::<1>(sum));
        core::mem::transmute::<__m128, F4>(folded)
    }
}
