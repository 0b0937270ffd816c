//! `F4`: four `f32` lanes, the only SIMD type the kernels touch.
//!
//! Layout: 16 bytes, 16-byte aligned, lane 0 at the lowest address; `Pod`, so a slice of `F4` may be viewed as
//! `&[f32]` and back.
//!
//! Two backends sit behind one API, as in glam: [`wide::f32x4`] (SSE2/AVX on x86_64, NEON on aarch64, plain
//! arrays on soft-float targets) and, with the `scalar` cargo feature, plain `[f32; 4]` arithmetic. The only
//! numeric difference between backends is documented on [`F4::rsqrt`] and [`F4::mul_add`].

#[cfg(not(feature = "scalar"))]
#[path = "lane/simd.rs"]
mod backend;

#[cfg(feature = "scalar")]
#[path = "lane/scalar.rs"]
mod backend;

pub use backend::{F4, F8};

avx2_kernels! {
    if {
        pub(crate) mod avx2;
        use avx2::split_words;
    } else {
        /// [`F4::split_words`] lane by lane.
        #[inline(always)]
        fn split_words(words: [u64; 4], first: [u32; 4], widths: [u32; 2]) -> [F4; 3] {
            let [b0, b1] = widths.map(u32::to_le_bytes);
            let lane = |j: usize| {
                let (v, b0) = (words[j].wrapping_shr(first[j]), u32::from(b0[j]));
                [v as u32, v.wrapping_shr(b0) as u32, v.wrapping_shr(b0 + u32::from(b1[j])) as u32]
            };
            let lanes = [lane(0), lane(1), lane(2), lane(3)];
            [0, 1, 2].map(|c| F4::from_bits(lanes.map(|fields| fields[c])))
        }
    }
}

pub use crate::math::backend::{F8_IS_ONE_REGISTER, FUSED_MUL_ADD, RSQRT_BY_ESTIMATE};

// The backends must agree on size and alignment: SoA structs are `Pod` on top of this.
const _: () = assert!(core::mem::size_of::<F4>() == 16);
const _: () = assert!(core::mem::align_of::<F4>() == 16);
const _: () = assert!(core::mem::size_of::<F8>() == 32);
const _: () = assert!(core::mem::align_of::<F8>() == 32);

/// What formulas written once for both widths need: `F4` (one lane group) and `F8` (two lane groups, one
/// AVX register on x86-64-v3). The methods are the types' own; see `F4` for their precision.
pub trait Lanes:
    Copy
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
    + core::ops::BitOr<Output = Self>
    + core::ops::Neg<Output = Self>
{
    /// Every lane `v`.
    fn splat(v: f32) -> Self;
    /// `self · a + b` per lane (one fused instruction where `FUSED_MUL_ADD`).
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `b − self · a` per lane.
    fn neg_mul_add(self, a: Self, b: Self) -> Self;
    /// The smaller of each lane pair.
    fn min(self, rhs: Self) -> Self;
    /// The larger of each lane pair.
    fn max(self, rhs: Self) -> Self;
    /// `|x|` per lane.
    fn abs(self) -> Self;
    /// The correctly rounded square root per lane.
    fn sqrt(self) -> Self;
    /// Each lane with the sign of `of`'s lane multiplied in (`x · sign(of)`).
    fn mul_sign(self, of: Self) -> Self;
    /// Each lane, or 0 where `mask`'s lane is set.
    fn zero_where(self, mask: Self) -> Self;
    /// `if_set`'s lane where `mask`'s is set, else `if_clear`'s.
    fn select(mask: Self, if_set: Self, if_clear: Self) -> Self;
    /// All bits set in each lane where `self < rhs`.
    fn cmp_lt(self, rhs: Self) -> Self;
    /// All bits set in each lane where `self > rhs`.
    fn cmp_gt(self, rhs: Self) -> Self;
    /// All bits set in each lane where `self != rhs` (NaN lanes included).
    fn cmp_ne(self, rhs: Self) -> Self;
    /// Whether any lane has a bit set.
    fn any_set(self) -> bool;

    /// A mask whose lanes are set where `self` is NaN or infinite.
    ///
    /// `x * 0` is ±0 for every finite `x` and NaN for NaN and infinities; only NaN compares unequal to 0.
    #[inline(always)]
    fn non_finite_mask(self) -> Self {
        let zero = Self::splat(0.0);
        (self * zero).cmp_ne(zero)
    }
}

/// `Lanes` by the type's inherent methods of the same names.
macro_rules! impl_lanes {
    ($($ty:ident),*) => {$(
        impl Lanes for $ty {
            #[inline(always)]
            fn splat(v: f32) -> $ty {
                $ty::splat(v)
            }
            #[inline(always)]
            fn mul_add(self, a: $ty, b: $ty) -> $ty {
                $ty::mul_add(self, a, b)
            }
            #[inline(always)]
            fn neg_mul_add(self, a: $ty, b: $ty) -> $ty {
                $ty::neg_mul_add(self, a, b)
            }
            #[inline(always)]
            fn min(self, rhs: $ty) -> $ty {
                $ty::min(self, rhs)
            }
            #[inline(always)]
            fn max(self, rhs: $ty) -> $ty {
                $ty::max(self, rhs)
            }
            #[inline(always)]
            fn abs(self) -> $ty {
                $ty::abs(self)
            }
            #[inline(always)]
            fn sqrt(self) -> $ty {
                $ty::sqrt(self)
            }
            #[inline(always)]
            fn mul_sign(self, of: $ty) -> $ty {
                $ty::mul_sign(self, of)
            }
            #[inline(always)]
            fn zero_where(self, mask: $ty) -> $ty {
                $ty::zero_where(self, mask)
            }
            #[inline(always)]
            fn select(mask: $ty, if_set: $ty, if_clear: $ty) -> $ty {
                $ty::select(mask, if_set, if_clear)
            }
            #[inline(always)]
            fn cmp_lt(self, rhs: $ty) -> $ty {
                $ty::cmp_lt(self, rhs)
            }
            #[inline(always)]
            fn cmp_gt(self, rhs: $ty) -> $ty {
                $ty::cmp_gt(self, rhs)
            }
            #[inline(always)]
            fn cmp_ne(self, rhs: $ty) -> $ty {
                $ty::cmp_ne(self, rhs)
            }
            #[inline(always)]
            fn any_set(self) -> bool {
                $ty::any_set(self)
            }
        }
    )*};
}
impl_lanes!(F4, F8);

/// Name of the active lane backend, for profiler and test output.
pub const BACKEND: &str = crate::math::backend::NAME;

impl F4 {
    /// Four zeros.
    pub const ZERO: F4 = F4::from_array([0.0; 4]);
    /// Four ones.
    pub const ONE: F4 = F4::from_array([1.0; 4]);

    /// Lanes `(a, b, c, d)`.
    #[inline(always)]
    pub const fn new(a: f32, b: f32, c: f32, d: f32) -> F4 {
        F4::from_array([a, b, c, d])
    }

    /// Lane `i` (`i < 4`, checked at compile time by the const parameter).
    #[inline(always)]
    pub fn lane<const I: usize>(self) -> f32 {
        self.to_array()[I]
    }

    /// All four lanes set to lane `I`: one non-destructive shuffle on every backend (`pshufd` on SSE2,
    /// `vpermilps` or a broadcast load on AVX, `dup` on NEON).
    #[inline(always)]
    pub fn broadcast<const I: usize>(self) -> F4 {
        self.broadcast_lane::<I>()
    }

    /// Reciprocal square root: on x86 and the scalar build `1 / sqrt(x)` (two correctly rounded operations),
    /// on NEON the hardware estimate refined by one Newton-Raphson step.
    ///
    /// Precision: relative error below 4.0e-7 (about 2^-21.2) for every positive finite input on every backend,
    /// and below 1.2e-7 where it divides (two roundings of at most 2^-24 each); the `lane` tests assert each
    /// backend's bound over ~2^19 inputs across 121 binades. On NEON `vrsqrteq`'s 8-bit table, refined by one
    /// `vrsqrtsq` step and the shared Newton step below, lands under the first bound.
    /// Why two forms: on x86 the divider runs beside the multiply pipes, so `sqrtps` + `divps` cost less than
    /// the estimate and its four multiply-pipe operations (criterion, 256 joints: SSE2 two-layer crossfade −7%,
    /// sampling interpolation −4.5%, eight-layer blend level; x86-64-v3 level or faster; ARCHITECTURE.md).
    /// Console-class NEON cores divide slowly, and this machine cannot time them.
    /// Input 0 gives +inf where it divides and NaN on NEON; callers that can see zero guard it first.
    #[inline(always)]
    pub fn rsqrt(self) -> F4 {
        if RSQRT_BY_ESTIMATE { newton_rsqrt(self, self.rsqrt_est()) } else { F4::ONE / self.sqrt() }
    }

    /// True when every lane of a comparison mask is set.
    #[inline(always)]
    pub fn all_set(self) -> bool {
        self.mask_bits() == 0b1111
    }

    /// True when any lane of a comparison mask is set.
    #[inline(always)]
    pub fn any_set(self) -> bool {
        self.mask_bits() != 0
    }

    /// Three fields of each of four 64-bit words, as bit patterns: per lane `j`, with `v = words[j] >> first[j]`,
    /// the low 32 bits of `v`, of `v >> b0` and of `v >> (b0 + b1)`, where `b0` and `b1` are byte `j` of
    /// `widths[0]` and `widths[1]`, each shift count taken modulo 64 (as a scalar wrapping shift). The bits
    /// above each field are the next field's ([`F4::from_fields`] masks them). x86-64-v3 shifts the four words
    /// at once; other targets lane by lane.
    #[inline(always)]
    pub fn split_words(words: [u64; 4], first: [u32; 4], widths: [u32; 2]) -> [F4; 3] {
        split_words(words, first, widths)
    }

    /// A mask with lane `l` set (all ones) where bit `l` of `bits` is set; bits above 3 are ignored.
    #[inline(always)]
    pub fn lane_mask(bits: u32) -> F4 {
        LANE_MASKS[bits as usize & 0xF]
    }

    /// A mask whose lanes are set where `self` is NaN or infinite (`Lanes::non_finite_mask`, callable without
    /// the trait in scope).
    #[inline(always)]
    pub fn non_finite_mask(self) -> F4 {
        Lanes::non_finite_mask(self)
    }

    /// 4×4 transpose: row `r` of the result holds lane `r` of each input.
    #[inline(always)]
    pub fn transpose4(rows: [F4; 4]) -> [F4; 4] {
        F4::transpose_lanes(rows)
    }
}

impl F8 {
    /// Lanes 0–3 of `low`, 4–7 of `high` (one `vblendps` on AVX, nothing on two-register backends).
    #[inline(always)]
    pub fn low_high(low: F8, high: F8) -> F8 {
        F8::from_halves(low.halves().0, high.halves().1)
    }

    /// The two halves exchanged (one `vperm2f128` on AVX, nothing on two-register backends).
    #[inline(always)]
    pub fn swap_halves(self) -> F8 {
        let (lo, hi) = self.halves();
        F8::from_halves(hi, lo)
    }

    /// As [`F4::rsqrt`], with the same precision (the same operations per lane).
    #[inline(always)]
    pub fn rsqrt(self) -> F8 {
        if RSQRT_BY_ESTIMATE { newton_rsqrt(self, self.rsqrt_est()) } else { F8::splat(1.0) / self.sqrt() }
    }
}

/// One Newton step for y = 1/sqrt(x): y' = y · (1.5 − 0.5 · x · y²), at either width.
#[inline(always)]
fn newton_rsqrt<L: Lanes>(x: L, est: L) -> L {
    // −x/2 is exact and forms beside the estimate, so only three dependent operations follow the estimate.
    let neg_half_x_est = (x * L::splat(-0.5)) * est;
    est * neg_half_x_est.mul_add(est, L::splat(1.5))
}

/// `LANE_MASKS[bits]` has lane `l` set when bit `l` of `bits` is set.
const LANE_MASKS: [F4; 16] = {
    let mut masks = [F4::ZERO; 16];
    let mut bits = 0;
    while bits < 16 {
        let mut lanes = [0.0; 4];
        let mut l = 0;
        while l < 4 {
            if bits & (1 << l) != 0 {
                lanes[l] = f32::from_bits(u32::MAX);
            }
            l += 1;
        }
        masks[bits] = F4::from_array(lanes);
        bits += 1;
    }
    masks
};

impl core::ops::Mul<f32> for F4 {
    type Output = F4;
    #[inline(always)]
    fn mul(self, rhs: f32) -> F4 {
        self * F4::splat(rhs)
    }
}

impl core::fmt::Debug for F8 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (lo, hi) = self.halves();
        f.debug_tuple("F8").field(&lo.to_array()).field(&hi.to_array()).finish()
    }
}

impl core::fmt::Debug for F4 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("F4").field(&self.to_array()).finish()
    }
}

impl PartialEq for F4 {
    /// Lane-wise equality of all four lanes (NaN never equal), for tests.
    fn eq(&self, other: &F4) -> bool {
        self.to_array() == other.to_array()
    }
}
