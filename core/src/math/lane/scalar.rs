//! Scalar reference backend (`scalar` feature): plain `[f32; 4]` arithmetic, one lane at a time.
//!
//! It exists so the whole test suite can run against code with no SIMD in it, as ozz's `ref`, ACL's `-nosimd`
//! and glam's `scalar-math` builds do. Comparison masks use all-ones / all-zeros bit patterns, as SIMD does.

use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Sub};

/// Four `f32` lanes (see the module docs of `math::lane`).
#[derive(Clone, Copy, Default)]
#[repr(C, align(16))]
pub struct F4([f32; 4]);

// SAFETY: 16 bytes of `f32` with no padding (size == align == 16) and no invalid bit patterns.
unsafe impl bytemuck::Zeroable for F4 {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for F4 {}

const SET: f32 = f32::from_bits(u32::MAX);

#[inline(always)]
fn map(a: F4, f: impl Fn(f32) -> f32) -> F4 {
    F4(a.0.map(f))
}

#[inline(always)]
fn zip(a: F4, b: F4, f: impl Fn(f32, f32) -> f32) -> F4 {
    F4([f(a.0[0], b.0[0]), f(a.0[1], b.0[1]), f(a.0[2], b.0[2]), f(a.0[3], b.0[3])])
}

#[inline(always)]
fn mask(a: F4, b: F4, f: impl Fn(f32, f32) -> bool) -> F4 {
    zip(a, b, |x, y| if f(x, y) { SET } else { 0.0 })
}

#[inline(always)]
fn bits(a: F4, b: F4, f: impl Fn(u32, u32) -> u32) -> F4 {
    zip(a, b, |x, y| f32::from_bits(f(x.to_bits(), y.to_bits())))
}

impl F4 {
    /// Four lanes from an array, lane 0 first.
    #[inline(always)]
    pub const fn from_array(a: [f32; 4]) -> F4 {
        F4(a)
    }
    /// The four lanes as an array, lane 0 first.
    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        self.0
    }
    /// Whole numbers below 2^24 as `f32`, exactly: one vector conversion, which (unlike four scalar ones)
    /// does not wait on the register's previous contents.
    #[inline(always)]
    pub fn from_levels(levels: [u32; 4]) -> F4 {
        F4(levels.map(|l| l as f32))
    }
    /// `2^(b % 32)` for each byte `b` of `exponents`, least significant first, exactly.
    #[inline(always)]
    pub fn powers_of_two(exponents: u32) -> F4 {
        F4(exponents.to_le_bytes().map(|b| (1u64 << (b & 31)) as f32))
    }
    /// The four bytes of `word`, least significant first, as `f32`.
    #[inline(always)]
    pub fn from_bytes(word: u32) -> F4 {
        F4(word.to_le_bytes().map(f32::from))
    }
    /// Per lane `j`, the mask `2^(widths[j] % 32) − 1` of a field's bits, for [`F4::from_fields`] (a bit pattern,
    /// as [`F4::lane_mask`]'s).
    #[inline(always)]
    pub fn field_masks(widths: [u8; 4]) -> F4 {
        F4(widths.map(|w| f32::from_bits(((1u64 << (w & 31)) - 1) as u32)))
    }
    /// The bits of lane `j` of `fields` (bit patterns, as [`F4::split_words`] gives them) under lane `j` of `masks`
    /// ([`F4::field_masks`]) as `f32`, exactly below 2^24.
    #[inline(always)]
    pub fn from_fields(fields: F4, masks: F4) -> F4 {
        F4(core::array::from_fn(|j| (fields.0[j].to_bits() & masks.0[j].to_bits()) as f32))
    }
    /// Four lanes of bit patterns.
    #[inline(always)]
    pub fn from_bits(bits: [u32; 4]) -> F4 {
        F4(bits.map(f32::from_bits))
    }
    /// Every lane `v`.
    #[inline(always)]
    pub fn splat(v: f32) -> F4 {
        F4([v; 4])
    }
    /// `self * a + b` with two roundings, as the SSE2 baseline does.
    #[inline(always)]
    pub fn mul_add(self, a: F4, b: F4) -> F4 {
        self * a + b
    }
    /// `b - self * a` with two roundings.
    #[inline(always)]
    pub fn neg_mul_add(self, a: F4, b: F4) -> F4 {
        b - self * a
    }
    /// Lane-wise minimum; when a lane is NaN the result lane is unspecified (not propagated).
    #[inline(always)]
    pub fn min(self, rhs: F4) -> F4 {
        zip(self, rhs, |x, y| if x < y { x } else { y })
    }
    /// Lane-wise maximum; when a lane is NaN the result lane is unspecified (not propagated).
    #[inline(always)]
    pub fn max(self, rhs: F4) -> F4 {
        zip(self, rhs, |x, y| if x > y { x } else { y })
    }
    /// `|x|` per lane.
    #[inline(always)]
    pub fn abs(self) -> F4 {
        map(self, libm::fabsf)
    }
    /// `self` with its sign flipped where `of` has its sign bit set (−0 and NaN with the bit included).
    #[inline(always)]
    pub fn mul_sign(self, of: F4) -> F4 {
        bits(self, of, |x, s| x ^ (s & 0x8000_0000))
    }
    /// `self` with the lanes where `mask` is set cleared to +0 (one `andnps`). `mask` lanes must be all-ones
    /// or all-zeros.
    #[inline(always)]
    pub fn zero_where(self, mask: F4) -> F4 {
        bits(self, mask, |x, m| x & !m)
    }
    /// Correctly rounded square root.
    #[inline(always)]
    pub fn sqrt(self) -> F4 {
        map(self, libm::sqrtf)
    }
    /// Exact `1/sqrt(x)` (correctly rounded sqrt, then a division).
    #[inline(always)]
    pub fn rsqrt_est(self) -> F4 {
        map(self, |x| 1.0 / libm::sqrtf(x))
    }
    /// Lanes of `if_set` where `mask` is set, else of `if_clear`. `mask` lanes must be all-ones or all-zeros:
    /// that lets SSE4.1 and AVX use one `blendvps` (which reads only the sign bit) instead of and/andnot/or.
    #[inline(always)]
    pub fn select(mask: F4, if_set: F4, if_clear: F4) -> F4 {
        let m = bits(mask, if_set, |m, a| m & a);
        let n = bits(mask, if_clear, |m, b| !m & b);
        bits(m, n, |a, b| a | b)
    }
    /// All bits set in each lane where `self < rhs`.
    #[inline(always)]
    pub fn cmp_lt(self, rhs: F4) -> F4 {
        mask(self, rhs, |x, y| x < y)
    }
    /// All bits set in each lane where `self > rhs`.
    #[inline(always)]
    pub fn cmp_gt(self, rhs: F4) -> F4 {
        mask(self, rhs, |x, y| x > y)
    }
    /// All bits set in each lane where `self == rhs`.
    #[inline(always)]
    pub fn cmp_eq(self, rhs: F4) -> F4 {
        mask(self, rhs, |x, y| x == y)
    }
    /// All bits set in each lane where `self != rhs` (NaN lanes included).
    #[inline(always)]
    pub fn cmp_ne(self, rhs: F4) -> F4 {
        mask(self, rhs, |x, y| x != y)
    }
    /// All lanes set to lane `I` (see `F4::broadcast`).
    #[inline(always)]
    pub(super) fn broadcast_lane<const I: usize>(self) -> F4 {
        F4([self.0[I]; 4])
    }
    /// 4×4 transpose (see `F4::transpose4`).
    #[inline(always)]
    pub(super) fn transpose_lanes(rows: [F4; 4]) -> [F4; 4] {
        core::array::from_fn(|c| F4(core::array::from_fn(|r| rows[r].0[c])))
    }
    /// Bit `i` set where lane `i` of a comparison mask is set.
    #[inline(always)]
    pub fn mask_bits(self) -> u32 {
        self.0.iter().enumerate().fold(0, |acc, (i, v)| acc | ((v.to_bits() >> 31) << i))
    }
}

impl Add for F4 {
    type Output = F4;
    #[inline(always)]
    fn add(self, rhs: F4) -> F4 {
        zip(self, rhs, |x, y| x + y)
    }
}
impl Sub for F4 {
    type Output = F4;
    #[inline(always)]
    fn sub(self, rhs: F4) -> F4 {
        zip(self, rhs, |x, y| x - y)
    }
}
impl Mul for F4 {
    type Output = F4;
    #[inline(always)]
    fn mul(self, rhs: F4) -> F4 {
        zip(self, rhs, |x, y| x * y)
    }
}
impl Div for F4 {
    type Output = F4;
    #[inline(always)]
    fn div(self, rhs: F4) -> F4 {
        zip(self, rhs, |x, y| x / y)
    }
}
impl BitAnd for F4 {
    type Output = F4;
    #[inline(always)]
    fn bitand(self, rhs: F4) -> F4 {
        bits(self, rhs, |x, y| x & y)
    }
}
impl BitOr for F4 {
    type Output = F4;
    #[inline(always)]
    fn bitor(self, rhs: F4) -> F4 {
        bits(self, rhs, |x, y| x | y)
    }
}
impl Neg for F4 {
    type Output = F4;
    #[inline(always)]
    fn neg(self) -> F4 {
        map(self, |x| -x)
    }
}

/// Eight `f32` lanes as two `F4` (see the SIMD backend's `F8`).
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
pub struct F8(F4, F4);

// SAFETY: two 16-byte `F4` fill the 32 bytes exactly (no padding); no invalid bit patterns.
unsafe impl bytemuck::Zeroable for F8 {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for F8 {}

impl F8 {
    /// Lanes 0–3 from `lo`, 4–7 from `hi` (one `vinsertf128` on AVX).
    #[inline(always)]
    pub fn from_halves(lo: F4, hi: F4) -> F8 {
        F8(lo, hi)
    }
    /// `(lanes 0–3, lanes 4–7)`.
    #[inline(always)]
    pub fn halves(self) -> (F4, F4) {
        (self.0, self.1)
    }
    /// Every lane `v`.
    #[inline(always)]
    pub fn splat(v: f32) -> F8 {
        F8(F4::splat(v), F4::splat(v))
    }
    /// As `F4::mul_add`.
    #[inline(always)]
    pub fn mul_add(self, a: F8, b: F8) -> F8 {
        F8(self.0.mul_add(a.0, b.0), self.1.mul_add(a.1, b.1))
    }
    /// As `F4::neg_mul_add`.
    #[inline(always)]
    pub fn neg_mul_add(self, a: F8, b: F8) -> F8 {
        F8(self.0.neg_mul_add(a.0, b.0), self.1.neg_mul_add(a.1, b.1))
    }
    /// As `F4::min`.
    #[inline(always)]
    pub fn min(self, rhs: F8) -> F8 {
        F8(self.0.min(rhs.0), self.1.min(rhs.1))
    }
    /// As `F4::mul_sign`.
    #[inline(always)]
    pub fn mul_sign(self, of: F8) -> F8 {
        F8(self.0.mul_sign(of.0), self.1.mul_sign(of.1))
    }
    /// As `F4::zero_where`.
    #[inline(always)]
    pub fn zero_where(self, mask: F8) -> F8 {
        F8(self.0.zero_where(mask.0), self.1.zero_where(mask.1))
    }
    /// As `F4::max`.
    #[inline(always)]
    pub fn max(self, rhs: F8) -> F8 {
        F8(self.0.max(rhs.0), self.1.max(rhs.1))
    }
    /// `|x|` per lane.
    #[inline(always)]
    pub fn abs(self) -> F8 {
        F8(self.0.abs(), self.1.abs())
    }
    /// Correctly rounded square root.
    #[inline(always)]
    pub fn sqrt(self) -> F8 {
        F8(self.0.sqrt(), self.1.sqrt())
    }
    /// As `F4::select`.
    #[inline(always)]
    pub fn select(mask: F8, if_set: F8, if_clear: F8) -> F8 {
        F8(F4::select(mask.0, if_set.0, if_clear.0), F4::select(mask.1, if_set.1, if_clear.1))
    }
    /// All bits set in each lane where `self < rhs`.
    #[inline(always)]
    pub fn cmp_lt(self, rhs: F8) -> F8 {
        F8(self.0.cmp_lt(rhs.0), self.1.cmp_lt(rhs.1))
    }
    /// All bits set in each lane where `self > rhs`.
    #[inline(always)]
    pub fn cmp_gt(self, rhs: F8) -> F8 {
        F8(self.0.cmp_gt(rhs.0), self.1.cmp_gt(rhs.1))
    }
    /// All bits set in each lane where `self != rhs` (NaN lanes included).
    #[inline(always)]
    pub fn cmp_ne(self, rhs: F8) -> F8 {
        F8(self.0.cmp_ne(rhs.0), self.1.cmp_ne(rhs.1))
    }
    /// True when any lane of a comparison mask is set.
    #[inline(always)]
    pub fn any_set(self) -> bool {
        self.0.mask_bits() | self.1.mask_bits() != 0
    }
    /// As `F4::rsqrt_est`, lane for lane the same estimate.
    #[inline(always)]
    pub fn rsqrt_est(self) -> F8 {
        F8(self.0.rsqrt_est(), self.1.rsqrt_est())
    }
}

macro_rules! binary_op8 {
    ($trait:ident, $method:ident) => {
        impl $trait for F8 {
            type Output = F8;
            #[inline(always)]
            fn $method(self, rhs: F8) -> F8 {
                F8($trait::$method(self.0, rhs.0), $trait::$method(self.1, rhs.1))
            }
        }
    };
}
binary_op8!(Add, add);
binary_op8!(Sub, sub);
binary_op8!(Mul, mul);
binary_op8!(Div, div);
binary_op8!(BitOr, bitor);

impl Neg for F8 {
    type Output = F8;
    #[inline(always)]
    fn neg(self) -> F8 {
        F8(-self.0, -self.1)
    }
}
