//! The x86-64-v3 (AVX2 + FMA) joint steps: two matrix columns, or two joints, per 256-bit multiply-add.
//!
//! **Side by side (`walk_pair`, most of a rig).** The skeleton's `GroupWalk` pairs lane groups `a` and `b` that
//! do not depend on each other; both are converted in one eight-wide pass (`[a | b]` per register) and walked
//! together, one joint of each per step, as [`SideBySide`] columns `[c_k(a) | c_k(b)]`. An in-half
//! `vpermilps` broadcasts lane `L` of both halves at once. Per joint: 6 broadcasts, 7 multiply/adds, 4 half
//! stores, and no cross-half permute, so two parent-to-child chains advance per ~11-cycle step.
//!
//! **Two columns per register (`PairMat`, groups the walk leaves single and `run_subtree`).** A model matrix is
//! held as it is stored, `A = [c0|c1]` and `B = [c2|t]`. Its child needs `A`, `[c1|c0]` (halves swapped),
//! `[c2|c2]` and `[0|t]`:
//!
//! ```text
//! [m0|m1] = A·[l00|l11] + [c2|c2]·[l20|l21] + [c1|c0]·[l10|l01]
//! [m2|mt] = (A·[l02|ty] + [c1|c0]·[l12|tx]) + ([c2|c2]·[l22|tz] + [0|t])
//! ```
//!
//! where `l_kj` is row `k` of the local matrix's column `j`. A lane group's local matrices are paired in that
//! order (SoA over the four joints), so one in-half `vpermilps` broadcasts lane `L` of both halves at once.
//! Per joint: 6 in-half broadcasts, 2 cross-half permutes, 1 blend, 7 multiply/adds, 2 stores — against 12
//! broadcasts, 12 multiply-adds and 4 stores for the 4-wide step.
//!
//! Precision: both steps form every column from the same products summed in the same order (written above),
//! so a subtree run reproduces a whole-skeleton run bit for bit; rounding as in the 4-wide step.

use super::{Chain, JointStep, local_columns};
use crate::math::lane::avx2::{f8, low_half_twice, m128, m256};
use crate::math::{F4, F8, Mat4, SoaTransform};
use core::arch::x86_64::*;

/// A joint index that no joint's parent matches (parents are below `MAX_JOINTS`, or −1 as `usize::MAX`):
/// registers labelled with it hold nothing a child can use.
const NO_JOINT: usize = usize::MAX - 1;

/// A parent (or the previous joint): its two stored registers `[c0|c1]`, `[c2|t]`.
#[derive(Clone, Copy)]
pub(super) struct PairMat([__m256; 2]);

/// The step this build uses.
pub(super) type Step = PairMat;

/// One lane group's local matrices in the step's pair order: `[l00|l11] [l10|l01] [l20|l21] [l02|ty]
/// [l12|tx] [l22|tz]`, each half SoA over the four joints.
pub(super) struct Pairs([__m256; 6]);

/// `v` unchanged, but opaque to LLVM's shuffle combiner. Without it LLVM folds each per-lane `vpermilps` back
/// into the `vinsertf128` that built the pair, redoing the insert for every joint (65 → 55 instructions per
/// joint under callgrind). Costs no instruction.
#[inline(always)]
fn opaque(mut v: __m256) -> __m256 {
    // SAFETY: an empty asm block that only names `v`'s register; it reads and writes nothing else.
    unsafe { core::arch::asm!("/* {0} */", inout(ymm_reg) v, options(pure, nomem, nostack, preserves_flags)) };
    v
}

/// Lane `LANE` of each 128-bit half of `v`, broadcast within that half (one in-half `vpermilps`).
#[inline(always)]
fn lane_in_halves<const LANE: usize>(v: __m256) -> __m256 {
    // SAFETY (all arms): AVX is enabled for this module.
    match LANE {
        0 => unsafe { _mm256_permute_ps::<0x00>(v) },
        1 => unsafe { _mm256_permute_ps::<0x55>(v) },
        2 => unsafe { _mm256_permute_ps::<0xAA>(v) },
        _ => unsafe { _mm256_permute_ps::<0xFF>(v) },
    }
}

/// Two lane groups' local columns converted in one eight-wide pass (`[first | second]` per register), and the
/// mask of both groups' lanes the kernel cannot use.
#[inline(always)]
fn local_columns_two(first: &SoaTransform, second: &SoaTransform) -> ([[__m256; 3]; 4], F4) {
    let (a, b) = (first.components(), second.components());
    let (cols, invalid) = local_columns::<F8>(core::array::from_fn(|i| F8::from_halves(a[i], b[i])));
    // Opaque, so the check is done here while its inputs are in registers; LLVM otherwise sinks it below
    // the eight joints, where it only needs the mask, and spills five inputs to get there.
    let (bad_a, bad_b) = f8(opaque(m256(invalid))).halves();
    (cols.map(|col| col.map(m256)), bad_a | bad_b)
}

/// The six local pairs from a conversion's columns (`[c0, c1, c2, t]`, each `[x, y, z]`), `pair(lo, hi)`
/// building one register from a low-half and a high-half source.
#[inline(always)]
fn step_order<T: Copy, R>([c0, c1, c2, t]: [[T; 3]; 4], pair: impl Fn(T, T) -> R) -> [R; 6] {
    [pair(c0[0], c1[1]), pair(c0[1], c1[0]), pair(c0[2], c1[2]), pair(c2[0], t[1]), pair(c2[1], t[0]), pair(c2[2], t[2])]
}

impl JointStep for PairMat {
    type Local = Pairs;

    /// One lane group: converted four wide, then paired (six inserts).
    #[inline(always)]
    fn prepare(local: &SoaTransform) -> (Pairs, F4) {
        let (cols, invalid) = local_columns(*local.components());
        // SAFETY (every intrinsic in this module): the module is compiled only with AVX2 and FMA enabled.
        let pairs = step_order(cols, |lo: F4, hi: F4| unsafe { _mm256_set_m128(m128(hi), m128(lo)) });
        (Pairs(pairs.map(opaque)), invalid)
    }

    /// Two lane groups converted eight wide (`[first | second]` per register), then each group's pairs built
    /// by one cross-half permute each: half the conversion's instructions of two `prepare`s (callgrind, 256
    /// joints: 53 → 45 instructions per joint with the pair order below).
    #[inline(always)]
    fn walk_two(chain: &mut Chain<Self>, base: usize, first: &SoaTransform, second: &SoaTransform) -> F4 {
        let (cols, invalid) = local_columns_two(first, second);
        // Low halves hold the first group's lanes, high halves the second's.
        // SAFETY (both): AVX is enabled for this module.
        let first = step_order(cols, |lo, hi| opaque(unsafe { _mm256_permute2f128_ps::<0x20>(lo, hi) }));
        let second = step_order(cols, |lo, hi| opaque(unsafe { _mm256_permute2f128_ps::<0x31>(lo, hi) }));
        chain.four_joints(base, &Pairs(first));
        chain.four_joints(base + 4, &Pairs(second));
        invalid
    }

    const WALKS_PAIRS: bool = true;

    /// Two independent lane groups converted eight wide (`[a | b]` per register) and walked side by side: each
    /// step computes lane `L` of both, as [`SideBySide`] columns.
    #[inline(always)]
    fn walk_pair(chain: &mut Chain<Self>, [a, b]: [usize; 2], [first, second]: [&SoaTransform; 2]) -> F4 {
        let (cols, invalid) = local_columns_two(first, second);
        let cols = cols.map(|col| col.map(opaque));
        let (base_a, base_b) = (a * 4, b * 4);
        chain.check_group(base_a);
        chain.check_group(base_b);
        // SAFETY: AVX is enabled for this module.
        let mut side = SideBySide { cols: [unsafe { _mm256_setzero_ps() }; 4], joints: [NO_JOINT; 2] };
        side.step::<0>(chain, [base_a, base_b], &cols);
        side.step::<1>(chain, [base_a, base_b], &cols);
        side.step::<2>(chain, [base_a, base_b], &cols);
        side.step::<3>(chain, [base_a, base_b], &cols);
        chain.prev_joint = NO_JOINT;
        invalid
    }

    /// A matrix from memory: two 32-byte loads.
    #[inline(always)]
    fn load(m: &Mat4) -> PairMat {
        let p = m.cols.as_ptr().cast::<f32>();
        // SAFETY: `m` is 64 readable bytes, so unaligned 32-byte loads at offsets 0 and 32 stay inside it.
        unsafe { PairMat([_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(8))]) }
    }

    /// `self * local[LANE]`, written to `out` and returned for the next child.
    #[inline(always)]
    fn mul_store<const LANE: usize>(&self, local: &Pairs, out: &mut Mat4) -> PairMat {
        let [a, b] = self.0;
        let [l0, l1, l2, l3, l4, l5] = local.0;
        let dst = out.cols.as_mut_ptr().cast::<f32>();
        // SAFETY: AVX2 and FMA are enabled for this module; `out` is 64 writable bytes, so unaligned 32-byte
        // stores at offsets 0 and 32 stay inside it.
        unsafe {
            let swapped = _mm256_permute2f128_ps::<0x01>(a, a);
            let c2 = low_half_twice(b);
            let t = _mm256_blend_ps::<0xF0>(_mm256_setzero_ps(), b);
            // The child waits ~11 cycles on the parent: `swapped` (a cross-half permute) enters last, and the
            // translation's four terms sum as two pairs (three chained multiply-adds after the blend take 13).
            let c01 = _mm256_fmadd_ps(swapped, lane_in_halves::<LANE>(l1), _mm256_fmadd_ps(c2, lane_in_halves::<LANE>(l2), _mm256_mul_ps(a, lane_in_halves::<LANE>(l0))));
            let c2t =
                _mm256_add_ps(_mm256_fmadd_ps(swapped, lane_in_halves::<LANE>(l4), _mm256_mul_ps(a, lane_in_halves::<LANE>(l3))), _mm256_fmadd_ps(c2, lane_in_halves::<LANE>(l5), t));
            _mm256_storeu_ps(dst, c01);
            _mm256_storeu_ps(dst.add(8), c2t);
            PairMat([c01, c2t])
        }
    }
}

/// Two joints' model matrices side by side: column `k` of joint `a` in the low half of `cols[k]`, of joint `b`
/// in the high half, and which joints they are, so a child of either takes its parent from registers.
///
/// Each column is the same sum of the same products as in `PairMat::mul_store` (so a subtree run, which uses
/// that step, reproduces a whole-skeleton run bit for bit).
struct SideBySide {
    cols: [__m256; 4],
    joints: [usize; 2],
}

impl SideBySide {
    /// Joints `base_a + LANE` and `base_b + LANE` from lane `LANE` of the pair's local columns (`[a | b]`).
    #[inline(always)]
    fn step<const LANE: usize>(&mut self, chain: &mut Chain<PairMat>, [base_a, base_b]: [usize; 2], local: &[[__m256; 3]; 4]) {
        let joints = [base_a + LANE, base_b + LANE];
        let parents = joints.map(|joint| chain.parents[joint]);
        // A group's first joint never follows the registers: they hold the other pair's joints, or nothing.
        let in_registers = [0, 1].map(|half| LANE != 0 && parents[half] as usize == self.joints[half]);
        let column = |parent: i16, k: usize| {
            // SAFETY: a `Mat4` is 64 readable bytes, so the 16-byte load of column `k < 4` stays inside it.
            unsafe { _mm_loadu_ps(chain.stored(parent).cols.as_ptr().add(k).cast::<f32>()) }
        };
        // SAFETY (this block): AVX2 and FMA are enabled for this module; `walk_pair` range-checked both groups'
        // outputs, and the stores write 16 bytes at offsets 0, 16, 32 and 48 of one 64-byte matrix each.
        unsafe {
            let p: [__m256; 4] = match in_registers {
                [true, true] => self.cols,
                [false, true] => core::array::from_fn(|k| _mm256_insertf128_ps::<0>(self.cols[k], column(parents[0], k))),
                [true, false] => core::array::from_fn(|k| _mm256_insertf128_ps::<1>(self.cols[k], column(parents[1], k))),
                [false, false] => core::array::from_fn(|k| _mm256_set_m128(column(parents[1], k), column(parents[0], k))),
            };
            let [p0, p1, p2, p3] = p;
            let [l0, l1, l2, t] = local;
            // The orders of `PairMat::mul_store`: its low halves sum from column 0, its high halves from column 1.
            let zero = _mm256_setzero_ps();
            let m0 = _mm256_fmadd_ps(p1, lane_in_halves::<LANE>(l0[1]), _mm256_fmadd_ps(p2, lane_in_halves::<LANE>(l0[2]), _mm256_mul_ps(p0, lane_in_halves::<LANE>(l0[0]))));
            let m1 = _mm256_fmadd_ps(p0, lane_in_halves::<LANE>(l1[0]), _mm256_fmadd_ps(p2, lane_in_halves::<LANE>(l1[2]), _mm256_mul_ps(p1, lane_in_halves::<LANE>(l1[1]))));
            let m2 = _mm256_add_ps(
                _mm256_fmadd_ps(p1, lane_in_halves::<LANE>(l2[1]), _mm256_mul_ps(p0, lane_in_halves::<LANE>(l2[0]))),
                _mm256_fmadd_ps(p2, lane_in_halves::<LANE>(l2[2]), zero),
            );
            let mt = _mm256_add_ps(_mm256_fmadd_ps(p0, lane_in_halves::<LANE>(t[0]), _mm256_mul_ps(p1, lane_in_halves::<LANE>(t[1]))), _mm256_fmadd_ps(p2, lane_in_halves::<LANE>(t[2]), p3));
            let cols = [m0, m1, m2, mt];
            // Addressed from each group's first joint, so the four steps store at fixed offsets.
            let model = chain.model.as_mut_ptr();
            let (dst_a, dst_b) = (model.add(base_a).add(LANE).cast::<f32>(), model.add(base_b).add(LANE).cast::<f32>());
            for (k, col) in cols.iter().enumerate() {
                _mm_storeu_ps(dst_a.add(4 * k), _mm256_castps256_ps128(*col));
                _mm_storeu_ps(dst_b.add(4 * k), _mm256_extractf128_ps::<1>(*col));
            }
            self.cols = cols;
        }
        self.joints = joints;
    }
}
