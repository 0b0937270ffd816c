//! SIMD backend: a transparent wrapper over `wide::f32x4`.

use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Sub};
use wide::{f32x4, f32x8};

/// Four `f32` lanes (see the module docs of `math::lane`).
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct F4(f32x4);

// SAFETY: `f32x4` is 16 bytes of plain `f32` lanes with no padding and no invalid bit patterns.
unsafe impl bytemuck::Zeroable for F4 {}
// SAFETY: as above; `F4` is `repr(transparent)` over it.
unsafe impl bytemuck::Pod for F4 {}

impl F4 {
    /// Four lanes from an array, lane 0 first.
    #[inline(always)]
    pub const fn from_array(a: [f32; 4]) -> F4 {
        F4(f32x4::new(a))
    }
    /// The four lanes as an array, lane 0 first.
    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        self.0.to_array()
    }
    /// Whole numbers below 2^24 as `f32`, exactly: one vector conversion, which (unlike four scalar ones)
    /// does not wait on the register's previous contents.
    #[inline(always)]
    pub fn from_levels(levels: [u32; 4]) -> F4 {
        F4(wide::i32x4::new(levels.map(|l| l as i32)).round_float())
    }
    /// Per lane `j`, the mask `2^(widths[j] % 32) − 1` of a field's bits, for [`F4::from_fields`] (a bit pattern,
    /// as [`F4::lane_mask`]'s). On SSE2, which has no per-lane shift, each comes from the width placed as a float
    /// exponent.
    #[inline(always)]
    pub fn field_masks(widths: [u8; 4]) -> F4 {
        use wide::i32x4;
        // `cvtps2dq` turns 2^31 into i32::MIN ("integer indefinite"), so width 31 masks 31 bits as the scalar
        // backend does; NEON saturates instead, so other targets build the masks lane by lane.
        #[cfg(target_feature = "sse2")]
        let masks = F4::powers_of_two(u32::from_le_bytes(widths)).0.fast_round_int() - i32x4::splat(1);
        #[cfg(not(target_feature = "sse2"))]
        let masks = i32x4::new(widths.map(|w| ((1u64 << (w & 31)) - 1) as u32 as i32));
        F4(bytemuck::cast(masks))
    }
    /// The bits of lane `j` of `fields` (bit patterns, as [`F4::split_words`] gives them) under lane `j` of `masks`
    /// ([`F4::field_masks`]) as `f32`, exactly below 2^24.
    #[inline(always)]
    pub fn from_fields(fields: F4, masks: F4) -> F4 {
        let (fields, masks): (wide::i32x4, wide::i32x4) = (bytemuck::cast(fields.0), bytemuck::cast(masks.0));
        F4((fields & masks).round_float())
    }
    /// Four lanes of bit patterns.
    #[inline(always)]
    pub fn from_bits(bits: [u32; 4]) -> F4 {
        F4(bytemuck::cast(wide::i32x4::new(bits.map(|b| b as i32))))
    }
    /// `2^(b % 32)` for each byte `b` of `exponents`, least significant first, exactly: each placed as a float
    /// exponent.
    #[inline(always)]
    pub fn powers_of_two(exponents: u32) -> F4 {
        use wide::i32x4;
        F4(bytemuck::cast(((byte_lanes(exponents) & i32x4::splat(31)) + i32x4::splat(127)) << 23))
    }
    /// The four bytes of `word`, least significant first, as `f32`.
    #[inline(always)]
    pub fn from_bytes(word: u32) -> F4 {
        F4(byte_lanes(word).round_float())
    }
    /// Every lane `v`.
    #[inline(always)]
    pub fn splat(v: f32) -> F4 {
        F4(f32x4::splat(v))
    }
    /// `self * a + b`: one rounding where the target has FMA (x86-64-v3, NEON), two on the SSE2 baseline.
    #[inline(always)]
    pub fn mul_add(self, a: F4, b: F4) -> F4 {
        F4(self.0.mul_add(a.0, b.0))
    }
    /// `b - self * a`: one rounding where the target has FMA, two on the SSE2 baseline.
    #[inline(always)]
    pub fn neg_mul_add(self, a: F4, b: F4) -> F4 {
        F4(self.0.mul_neg_add(a.0, b.0))
    }
    /// Lane-wise minimum; when a lane is NaN the result lane is unspecified (not propagated).
    #[inline(always)]
    pub fn min(self, rhs: F4) -> F4 {
        F4(self.0.fast_min(rhs.0))
    }
    /// Lane-wise maximum; when a lane is NaN the result lane is unspecified (not propagated).
    #[inline(always)]
    pub fn max(self, rhs: F4) -> F4 {
        F4(self.0.fast_max(rhs.0))
    }
    /// `|x|` per lane.
    #[inline(always)]
    pub fn abs(self) -> F4 {
        F4(self.0.abs())
    }
    /// `self` with its sign flipped where `of` has its sign bit set (−0 and NaN with the bit included).
    #[inline(always)]
    pub fn mul_sign(self, of: F4) -> F4 {
        F4(self.0 ^ (of.0 & f32x4::splat(-0.0)))
    }
    /// `self` with the lanes where `mask` is set cleared to +0 (one `andnps`). `mask` lanes must be all-ones
    /// or all-zeros.
    #[inline(always)]
    pub fn zero_where(self, mask: F4) -> F4 {
        F4(!mask.0 & self.0)
    }
    /// Correctly rounded square root.
    #[inline(always)]
    pub fn sqrt(self) -> F4 {
        F4(self.0.sqrt())
    }
    /// The backend's reciprocal square root estimate, at least 12 correct bits; [`F4::rsqrt`] refines it on NEON.
    #[inline(always)]
    pub fn rsqrt_est(self) -> F4 {
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        {
            use core::arch::aarch64::{float32x4_t, vmulq_f32, vrsqrteq_f32, vrsqrtsq_f32};
            // SAFETY: `f32x4` is `repr(C)` over `float32x4_t` on this target; both are 16 bytes of lanes.
            let x: float32x4_t = unsafe { core::mem::transmute::<f32x4, float32x4_t>(self.0) };
            // SAFETY: NEON is enabled for this cfg; these are pure register operations.
            let y = unsafe {
                let e = vrsqrteq_f32(x);
                // `vrsqrtsq(a, b)` = (3 - a*b) / 2: one Newton step lifts the 8-bit table to ~16 bits.
                vmulq_f32(e, vrsqrtsq_f32(vmulq_f32(x, e), e))
            };
            // SAFETY: the same layout argument in the other direction.
            F4(unsafe { core::mem::transmute::<float32x4_t, f32x4>(y) })
        }
        #[cfg(not(all(target_arch = "aarch64", target_feature = "neon")))]
        {
            // On SSE targets this is `rsqrtps` (12-bit estimate); on soft-float targets an exact `1/sqrt`.
            F4(self.0.recip_sqrt())
        }
    }
    /// Lanes of `if_set` where `mask` is set, else of `if_clear`. `mask` lanes must be all-ones or all-zeros:
    /// that lets SSE4.1 and AVX use one `blendvps` (which reads only the sign bit) instead of and/andnot/or.
    #[inline(always)]
    pub fn select(mask: F4, if_set: F4, if_clear: F4) -> F4 {
        F4(wide::Select::select(mask.0, if_set.0, if_clear.0))
    }
    /// All bits set in each lane where `self < rhs`.
    #[inline(always)]
    pub fn cmp_lt(self, rhs: F4) -> F4 {
        F4(self.0.simd_lt(rhs.0))
    }
    /// All bits set in each lane where `self > rhs`.
    #[inline(always)]
    pub fn cmp_gt(self, rhs: F4) -> F4 {
        F4(self.0.simd_gt(rhs.0))
    }
    /// All bits set in each lane where `self == rhs`.
    #[inline(always)]
    pub fn cmp_eq(self, rhs: F4) -> F4 {
        F4(self.0.simd_eq(rhs.0))
    }
    /// All bits set in each lane where `self != rhs` (NaN lanes included).
    #[inline(always)]
    pub fn cmp_ne(self, rhs: F4) -> F4 {
        F4(self.0.simd_ne(rhs.0))
    }
    /// All lanes set to lane `I` (see `F4::broadcast`).
    #[inline(always)]
    pub(super) fn broadcast_lane<const I: usize>(self) -> F4 {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(target_feature = "avx")))]
        {
            use core::arch::x86_64::__m128;
            // SSE2's `shufps` overwrites its source, so a splat of a live register costs a copy plus a shuffle,
            // and LLVM rewrites a `pshufd` intrinsic into exactly that pair. The asm keeps one `pshufd`.
            // SAFETY: `f32x4` is 16 bytes of lanes, exactly `__m128`.
            let v = unsafe { core::mem::transmute::<f32x4, __m128>(self.0) };
            let out: __m128;
            // SAFETY: `pshufd` reads one xmm register and writes another; no memory, stack or flags involved.
            unsafe {
                match I {
                    0 => {
                        core::arch::asm!("pshufd {o}, {i}, 0x00", o = lateout(xmm_reg) out, i = in(xmm_reg) v, options(pure, nomem, nostack, preserves_flags))
                    }
                    1 => {
                        core::arch::asm!("pshufd {o}, {i}, 0x55", o = lateout(xmm_reg) out, i = in(xmm_reg) v, options(pure, nomem, nostack, preserves_flags))
                    }
                    2 => {
                        core::arch::asm!("pshufd {o}, {i}, 0xAA", o = lateout(xmm_reg) out, i = in(xmm_reg) v, options(pure, nomem, nostack, preserves_flags))
                    }
                    _ => {
                        core::arch::asm!("pshufd {o}, {i}, 0xFF", o = lateout(xmm_reg) out, i = in(xmm_reg) v, options(pure, nomem, nostack, preserves_flags))
                    }
                }
            }
            // SAFETY: as above, in the other direction.
            F4(unsafe { core::mem::transmute::<__m128, f32x4>(out) })
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(target_feature = "avx"))))]
        {
            F4::splat(self.to_array()[I])
        }
    }

    /// 4×4 transpose (see `F4::transpose4`): `wide`'s unpack/move sequence on SSE and NEON.
    #[inline(always)]
    pub(super) fn transpose_lanes(rows: [F4; 4]) -> [F4; 4] {
        f32x4::transpose(rows.map(|r| r.0)).map(F4)
    }

    /// Bit `i` set where lane `i` of a comparison mask is set.
    #[inline(always)]
    pub fn mask_bits(self) -> u32 {
        self.0.to_bitmask()
    }
}

/// The four bytes of `word`, least significant first, as 32-bit lanes: two unpacks with zero.
#[inline(always)]
fn byte_lanes(word: u32) -> wide::i32x4 {
    use wide::{i16x8, u8x16};
    let bytes: [u8; 16] = bytemuck::cast([word, 0, 0, 0]);
    let halves = i16x8::from_u8x16_low(u8x16::from(bytes));
    bytemuck::cast(i16x8::from_u8x16_low(bytemuck::cast(halves)))
}

/// Operator impls of a wrapper over a `wide` vector: lane-wise on the inner value.
macro_rules! wrapper_ops {
    ($ty:ident: $($trait:ident $method:ident),*) => {
        $(impl $trait for $ty {
            type Output = $ty;
            #[inline(always)]
            fn $method(self, rhs: $ty) -> $ty {
                $ty($trait::$method(self.0, rhs.0))
            }
        })*
        impl Neg for $ty {
            type Output = $ty;
            #[inline(always)]
            fn neg(self) -> $ty {
                $ty(-self.0)
            }
        }
    };
}
wrapper_ops!(F4: Add add, Sub sub, Mul mul, Div div, BitAnd bitand, BitOr bitor);

/// Eight `f32` lanes: one AVX register where the target has AVX, a pair of SSE2/NEON registers otherwise, so
/// code written over `F8` halves its instruction count on x86-64-v3 and costs the same as two `F4` elsewhere.
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct F8(wide::f32x8);

// SAFETY: `f32x8` is 32 bytes of plain `f32` lanes with no padding and no invalid bit patterns.
unsafe impl bytemuck::Zeroable for F8 {}
// SAFETY: as above; `F8` is `repr(transparent)` over it.
unsafe impl bytemuck::Pod for F8 {}

impl F8 {
    /// Lanes 0–3 from `lo`, 4–7 from `hi` (one `vinsertf128` on AVX).
    #[inline(always)]
    pub fn from_halves(lo: F4, hi: F4) -> F8 {
        // SAFETY: `[f32x4; 2]` and `f32x8` are both 32 bytes of eight `f32` lanes in order.
        F8(unsafe { core::mem::transmute::<[f32x4; 2], wide::f32x8>([lo.0, hi.0]) })
    }
    /// `(lanes 0–3, lanes 4–7)`.
    #[inline(always)]
    pub fn halves(self) -> (F4, F4) {
        // SAFETY: as in `from_halves`, the other way round.
        let [lo, hi] = unsafe { core::mem::transmute::<wide::f32x8, [f32x4; 2]>(self.0) };
        (F4(lo), F4(hi))
    }
    /// Every lane `v`.
    #[inline(always)]
    pub fn splat(v: f32) -> F8 {
        F8(wide::f32x8::splat(v))
    }
    /// As `F4::mul_add`.
    #[inline(always)]
    pub fn mul_add(self, a: F8, b: F8) -> F8 {
        F8(self.0.mul_add(a.0, b.0))
    }
    /// As `F4::neg_mul_add`.
    #[inline(always)]
    pub fn neg_mul_add(self, a: F8, b: F8) -> F8 {
        F8(self.0.mul_neg_add(a.0, b.0))
    }
    /// As `F4::min`.
    #[inline(always)]
    pub fn min(self, rhs: F8) -> F8 {
        F8(self.0.fast_min(rhs.0))
    }
    /// As `F4::max`.
    #[inline(always)]
    pub fn max(self, rhs: F8) -> F8 {
        F8(self.0.fast_max(rhs.0))
    }
    /// `|x|` per lane.
    #[inline(always)]
    pub fn abs(self) -> F8 {
        F8(self.0.abs())
    }
    /// Correctly rounded square root.
    #[inline(always)]
    pub fn sqrt(self) -> F8 {
        F8(self.0.sqrt())
    }
    /// As `F4::select`.
    #[inline(always)]
    pub fn select(mask: F8, if_set: F8, if_clear: F8) -> F8 {
        F8(wide::Select::select(mask.0, if_set.0, if_clear.0))
    }
    /// All bits set in each lane where `self < rhs`.
    #[inline(always)]
    pub fn cmp_lt(self, rhs: F8) -> F8 {
        F8(self.0.simd_lt(rhs.0))
    }
    /// All bits set in each lane where `self > rhs`.
    #[inline(always)]
    pub fn cmp_gt(self, rhs: F8) -> F8 {
        F8(self.0.simd_gt(rhs.0))
    }
    /// All bits set in each lane where `self != rhs` (NaN lanes included).
    #[inline(always)]
    pub fn cmp_ne(self, rhs: F8) -> F8 {
        F8(self.0.simd_ne(rhs.0))
    }
    /// True when any lane of a comparison mask is set.
    #[inline(always)]
    pub fn any_set(self) -> bool {
        self.0.to_bitmask() != 0
    }
    /// As `F4::mul_sign`.
    #[inline(always)]
    pub fn mul_sign(self, of: F8) -> F8 {
        F8(self.0 ^ (of.0 & f32x8::splat(-0.0)))
    }
    /// As `F4::zero_where`.
    #[inline(always)]
    pub fn zero_where(self, mask: F8) -> F8 {
        F8(!mask.0 & self.0)
    }
    /// As `F4::rsqrt_est`, lane for lane the same estimate.
    #[inline(always)]
    pub fn rsqrt_est(self) -> F8 {
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        {
            // `wide` divides exactly on NEON; the F4 estimate keeps both widths on one precision contract.
            let (lo, hi) = self.halves();
            F8::from_halves(lo.rsqrt_est(), hi.rsqrt_est())
        }
        #[cfg(not(all(target_arch = "aarch64", target_feature = "neon")))]
        {
            F8(self.0.recip_sqrt())
        }
    }
}

wrapper_ops!(F8: Add add, Sub sub, Mul mul, Div div, BitOr bitor);
