//! Register views shared by the stages' x86-64-v3 kernels (`<stage>/avx2.rs`): `F4` and `F8` as the
//! `__m128` and `__m256` they are on that target (all four are `Pod` of the same size, so the casts are
//! checked and free), the one cross-half reduction they all end with, a half duplicated across both, and the
//! compressed decode's field split.

use super::{F4, F8};
use core::arch::x86_64::*;

/// `v` as an SSE register.
#[inline(always)]
pub(crate) fn m128(v: F4) -> __m128 {
    bytemuck::cast(v)
}

/// An SSE register as an `F4`.
#[inline(always)]
pub(crate) fn f4(v: __m128) -> F4 {
    bytemuck::cast(v)
}

/// `v` as an AVX register.
#[inline(always)]
pub(crate) fn m256(v: F8) -> __m256 {
    bytemuck::cast(v)
}

/// An AVX register as an `F8`.
#[inline(always)]
pub(crate) fn f8(v: __m256) -> F8 {
    bytemuck::cast(v)
}

/// Lanes 0–3 plus lanes 4–7: a `vextractf128` and an add (the low half is free).
#[inline(always)]
pub(crate) fn sum_halves(v: __m256) -> __m128 {
    // SAFETY: register-only AVX intrinsics; this module is compiled only where AVX2 is enabled.
    unsafe { _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v)) }
}

/// `[lo|lo]` from `[lo|hi]` by `vinsertf128`. Written out because LLVM otherwise emits `vpermpd`, which costs
/// three more cycles of latency on Zen 4. Local-to-model's broadcast sits on every parent-to-child step, so
/// chains pay it per joint (criterion, 256 joints, four alternating runs: a 256-joint chain 913-944 -> 865-875
/// ns; the humanoid's change is inside this machine's noise).
#[inline(always)]
pub(crate) fn low_half_twice(v: __m256) -> __m256 {
    let out: __m256;
    // SAFETY: one register-only AVX instruction (this module is compiled only where AVX2 is enabled); it
    // touches no memory or flags.
    unsafe {
        core::arch::asm!(
            "vinsertf128 {out}, {v}, {v:x}, 1",
            out = lateout(ymm_reg) out,
            v = in(ymm_reg) v,
            options(pure, nomem, nostack, preserves_flags),
        )
    };
    out
}

/// [`F4::split_words`] on x86-64-v3: the four words shifted at once (`vpsrlvq`), their low halves gathered
/// (`vpermd`).
#[inline(always)]
pub(crate) fn split_words(words: [u64; 4], first: [u32; 4], widths: [u32; 2]) -> [F4; 3] {
    // SAFETY: register-only AVX2 intrinsics; this module is compiled only where AVX2 is enabled.
    unsafe {
        let [w0, w1, w2, w3] = words.map(|w| w as i64);
        let [f0, f1, f2, f3] = first.map(|f| f as i32);
        // `vpsrlvq` gives 0 for counts past 63, where the scalar wrapping shift takes them modulo 64.
        let modulo = |counts: __m256i| _mm256_and_si256(counts, _mm256_set1_epi64x(63));
        let first = modulo(_mm256_cvtepu32_epi64(_mm_set_epi32(f3, f2, f1, f0)));
        let v = _mm256_srlv_epi64(_mm256_set_epi64x(w3, w2, w1, w0), first);
        let width = |w: u32| _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(w as i32));
        let b0 = width(widths[0]);
        let (b01, b0) = (modulo(_mm256_add_epi64(b0, width(widths[1]))), modulo(b0));
        let low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0);
        [v, _mm256_srlv_epi64(v, b0), _mm256_srlv_epi64(v, b01)]
            .map(|shifted| bytemuck::cast(_mm256_castsi256_si128(_mm256_permutevar8x32_epi32(shifted, low_halves))))
    }
}
