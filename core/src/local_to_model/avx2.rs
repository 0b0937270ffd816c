//! The x86-64-v3 (AVX2 + FMA) joint step: two matrix columns per 256-bit multiply-add.
//!
//! Layout in registers: the parent is held as `[p0|p0] [p1|p1] [p2|p2] [0|p3]` (each column duplicated into
//! both 128-bit halves; the translation only in the high half). A lane group's local matrices are paired as
//! `[c0_k|c1_k]` and `[c2_k|t_k]` (row `k` of two columns, SoA over the four joints), so one in-half
//! `vpermilps` broadcasts lane `L` of two columns at once. Per joint: 6 shuffles, 8 multiply/adds, 2 stores
//! and 4 lane-duplicating permutes — against 12 broadcasts, 12 multiply-adds and 4 stores for the 4-wide step.
//!
//! Precision: the same products as the 4-wide step, summed as `(p0 b0 + p1 b1) + (p2 b2 [+ p3])`.

use super::JointStep;
use crate::math::{F4, Mat4, SoaAffine};
use core::arch::x86_64::*;

/// A parent (or the previous joint) in duplicated-column form.
#[derive(Clone, Copy)]
pub(super) struct DupMat([__m256; 4]);

/// The step this build uses.
pub(super) type Step = DupMat;

/// One lane group's local matrices as column pairs: `x`, `y`, `z` rows of `[c0|c1]`, then of `[c2|t]`.
pub(super) struct Pairs([__m256; 6]);

#[inline(always)]
fn m128(v: F4) -> __m128 {
    // SAFETY: `F4` is 16 bytes of `f32` lanes, exactly the layout of `__m128`.
    unsafe { core::mem::transmute::<F4, __m128>(v) }
}

/// `v` unchanged, but opaque to LLVM's shuffle combiner. Without it LLVM folds each per-lane `vpermilps` back
/// into the `vinsertf128` that built the pair, redoing the insert for every joint (65 → 55 instructions per
/// joint under callgrind). Costs no instruction.
#[inline(always)]
fn opaque(mut v: __m256) -> __m256 {
    // SAFETY: an empty asm block that only names `v`'s register; it reads and writes nothing else.
    unsafe { core::arch::asm!("/* {0} */", inout(ymm_reg) v, options(pure, nomem, nostack, preserves_flags)) };
    v
}

impl JointStep for DupMat {
    type Local = Pairs;

    /// Pairs the columns of a lane group's local matrices (six inserts per four joints).
    #[inline(always)]
    fn prepare(a: &SoaAffine) -> Pairs {
        let [c0, c1, c2, t] = &a.cols;
        // SAFETY (every intrinsic in this module): the module is compiled only with AVX2 and FMA enabled.
        let pair = |lo: F4, hi: F4| unsafe { _mm256_set_m128(m128(hi), m128(lo)) };
        let pairs =
            [pair(c0.x, c1.x), pair(c0.y, c1.y), pair(c0.z, c1.z), pair(c2.x, t.x), pair(c2.y, t.y), pair(c2.z, t.z)];
        Pairs(pairs.map(opaque))
    }

    /// A matrix from memory: three broadcast loads and one insert.
    #[inline(always)]
    fn load(m: &Mat4) -> DupMat {
        let col = |c: usize| -> __m128 {
            // SAFETY: `m.cols[c]` is 16 readable bytes, aligned (`Mat4` is 16-byte aligned).
            unsafe { _mm_load_ps(m.cols[c].as_ptr()) }
        };
        // SAFETY: AVX2 is enabled for this module.
        unsafe {
            DupMat([
                _mm256_set_m128(col(0), col(0)),
                _mm256_set_m128(col(1), col(1)),
                _mm256_set_m128(col(2), col(2)),
                _mm256_set_m128(col(3), _mm_setzero_ps()),
            ])
        }
    }

    /// `self * local[LANE]`, written to `out`; returns the result in duplicated form for the next child.
    #[inline(always)]
    fn mul_store<const LANE: usize>(&self, local: &Pairs, out: &mut Mat4) -> DupMat {
        let [p0, p1, p2, p3] = self.0;
        let [x01, y01, z01, x2t, y2t, z2t] = local.0;
        let dst = out.cols.as_mut_ptr().cast::<f32>();
        // SAFETY: AVX2 and FMA are enabled for this module; `out` is 64 writable bytes, so unaligned 32-byte
        // stores at offsets 0 and 32 stay inside it.
        unsafe {
            let b = |v: __m256| match LANE {
                0 => _mm256_permute_ps::<0x00>(v),
                1 => _mm256_permute_ps::<0x55>(v),
                2 => _mm256_permute_ps::<0xAA>(v),
                _ => _mm256_permute_ps::<0xFF>(v),
            };
            // Balanced sums: the child waits ~10 cycles on the parent instead of three chained multiply-adds.
            let c01 = _mm256_add_ps(_mm256_fmadd_ps(p1, b(y01), _mm256_mul_ps(p0, b(x01))), _mm256_mul_ps(p2, b(z01)));
            let c2t =
                _mm256_add_ps(_mm256_fmadd_ps(p1, b(y2t), _mm256_mul_ps(p0, b(x2t))), _mm256_fmadd_ps(p2, b(z2t), p3));
            _mm256_storeu_ps(dst, c01);
            _mm256_storeu_ps(dst.add(8), c2t);
            DupMat([
                _mm256_permute2f128_ps::<0x00>(c01, c01),
                _mm256_permute2f128_ps::<0x11>(c01, c01),
                _mm256_permute2f128_ps::<0x00>(c2t, c2t),
                _mm256_permute2f128_ps::<0x18>(c2t, c2t),
            ])
        }
    }
}
