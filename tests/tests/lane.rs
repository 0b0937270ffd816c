//! The lane type: precision of the reciprocal square root (per backend), masks, selects, transposes.

use sinew::math::lane::{BACKEND, RSQRT_BY_ESTIMATE};
use sinew::math::{F4, F8};
use sinew_tests::Rng;

/// The bounds `F4::rsqrt` documents: the refined estimate (NEON), and `1 / sqrt(x)` (two roundings) elsewhere.
const RSQRT_MAX_REL_ERROR: f64 = if RSQRT_BY_ESTIMATE { 4.0e-7 } else { 1.2e-7 };

fn rsqrt_rel_error(x: f32) -> f64 {
    let got = F4::splat(x).rsqrt().to_array()[0] as f64;
    let want = 1.0 / (x as f64).sqrt();
    ((got - want) / want).abs()
}

#[test]
fn rsqrt_within_documented_bound_across_binades() {
    let mut rng = Rng::new(1);
    let mut worst = 0.0f64;
    // Every binade from 2^-60 to 2^60, many mantissas each, plus exact powers of two (table edges).
    for e in -60..=60 {
        let base = (e as f32).exp2();
        worst = worst.max(rsqrt_rel_error(base));
        for _ in 0..sinew_tests::cases(4096) {
            worst = worst.max(rsqrt_rel_error(base * rng.range(1.0, 2.0)));
        }
    }
    assert!(worst <= RSQRT_MAX_REL_ERROR, "backend {BACKEND}: worst relative error {worst:e}");
}

#[test]
fn rsqrt_of_unit_length_is_near_one() {
    // Quaternion normalization lives here: |q|² near 1.
    let count = sinew_tests::cases(10_000);
    for i in 0..count {
        let x = 0.99 + 0.02 * (i as f32 / count as f32);
        assert!(rsqrt_rel_error(x) <= RSQRT_MAX_REL_ERROR, "x = {x}");
    }
}

#[test]
fn f8_rsqrt_is_the_f4_result_in_each_half() {
    // One precision contract at both widths: the same estimate and Newton step per lane, bit for bit.
    let mut rng = Rng::new(2);
    for e in -60..=60 {
        let base = (e as f32).exp2();
        for _ in 0..sinew_tests::cases(16) {
            let lo = F4::from_array(std::array::from_fn(|_| base * rng.range(1.0, 2.0)));
            let hi = F4::from_array(std::array::from_fn(|_| base * rng.range(1.0, 2.0)));
            let (got_lo, got_hi) = F8::from_halves(lo, hi).rsqrt().halves();
            assert_eq!(got_lo.to_array().map(f32::to_bits), lo.rsqrt().to_array().map(f32::to_bits));
            assert_eq!(got_hi.to_array().map(f32::to_bits), hi.rsqrt().to_array().map(f32::to_bits));
        }
    }
}

#[test]
fn f8_half_moves_sign_transfer_and_clearing() {
    let a = F8::from_halves(F4::new(1.0, 2.0, 3.0, 4.0), F4::new(5.0, 6.0, 7.0, 8.0));
    let b = F8::from_halves(F4::new(-1.0, 0.0, -0.0, 9.0), F4::new(-5.0, f32::NAN, 2.0, -8.0));
    let halves = |v: F8| {
        let (lo, hi) = v.halves();
        [lo.to_array(), hi.to_array()].concat()
    };
    assert_eq!(halves(F8::low_high(a, b))[..5], [1.0, 2.0, 3.0, 4.0, -5.0]);
    assert_eq!(halves(F8::low_high(b, a)), [-1.0, 0.0, -0.0, 9.0, 5.0, 6.0, 7.0, 8.0]);
    assert_eq!(halves(a.swap_halves()), [5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0]);
    // The sign bit of `of` flips `self`: −0 flips, +0 and positive NaN do not.
    assert_eq!(halves(a.mul_sign(b)), [-1.0, 2.0, -3.0, 4.0, -5.0, 6.0, 7.0, -8.0]);
    // Cleared where the mask is set, kept elsewhere, at both widths.
    let mask = F8::from_halves(F4::lane_mask(0b0101), F4::lane_mask(0b1000));
    assert_eq!(halves(a.zero_where(mask)), [0.0, 2.0, 0.0, 4.0, 5.0, 6.0, 7.0, 0.0]);
    assert_eq!(F4::new(1.0, 2.0, 3.0, 4.0).zero_where(F4::lane_mask(0b0110)).to_array(), [1.0, 0.0, 0.0, 4.0]);
}

#[test]
fn select_takes_lanes_by_mask() {
    let a = F4::new(1.0, 2.0, 3.0, 4.0);
    let b = F4::new(10.0, 20.0, 30.0, 40.0);
    let mask = a.cmp_gt(F4::splat(2.5));
    assert_eq!(mask.mask_bits(), 0b1100);
    assert_eq!(F4::select(mask, a, b).to_array(), [10.0, 20.0, 3.0, 4.0]);
    assert!(mask.any_set() && !mask.all_set());
}

#[test]
fn non_finite_mask_flags_nan_and_infinities_only() {
    let v = F4::new(f32::NAN, f32::INFINITY, f32::MAX, -f32::INFINITY);
    assert_eq!(v.non_finite_mask().mask_bits(), 0b1011);
    assert_eq!(F4::new(0.0, -0.0, 1e-45, -3.0).non_finite_mask().mask_bits(), 0);
}

#[test]
fn transpose_and_broadcast() {
    let rows =
        [F4::new(0., 1., 2., 3.), F4::new(4., 5., 6., 7.), F4::new(8., 9., 10., 11.), F4::new(12., 13., 14., 15.)];
    let t = F4::transpose4(rows);
    assert_eq!(t[1].to_array(), [1., 5., 9., 13.]);
    assert_eq!(F4::transpose4(t), rows);
    assert_eq!(rows[2].broadcast::<3>().to_array(), [11.0; 4]);
    assert_eq!(rows[3].lane::<0>(), 12.0);
}

#[test]
fn mul_add_matches_separate_ops_within_one_rounding() {
    let mut rng = Rng::new(2);
    for _ in 0..sinew_tests::cases(1000) {
        let (a, b, c) = (rng.range(-10., 10.), rng.range(-10., 10.), rng.range(-10., 10.));
        let got = F4::splat(a).mul_add(F4::splat(b), F4::splat(c)).to_array()[0] as f64;
        let want = a as f64 * b as f64 + c as f64;
        assert!((got - want).abs() <= 2.0 * f32::EPSILON as f64 * (want.abs() + (a * b).abs() as f64));
    }
}

#[test]
fn split_words_shifts_each_lane_by_its_own_widths() {
    // Any first bit and widths (a damaged context's too): each shift count taken modulo 64, against u64 shifts.
    let mut rng = Rng::new(8);
    for _ in 0..sinew_tests::cases(20_000) {
        let words: [u64; 4] = [0; 4].map(|_| rng.next_u64());
        let first: [u32; 4] =
            [0; 4].map(|_| if rng.below(2) == 0 { rng.below(8) as u32 } else { rng.next_u64() as u32 });
        let widths = [0; 2].map(|_| rng.next_u64() as u32);
        let got = F4::split_words(words, first, widths).map(|row| row.to_array().map(f32::to_bits));
        for j in 0..4 {
            let [w0, w1] = widths.map(|w| u64::from(w.to_le_bytes()[j]));
            let v = words[j] >> (first[j] % 64);
            for (c, shift) in [0, w0, w0 + w1].into_iter().enumerate() {
                let want = (v >> (shift % 64)) as u32;
                assert_eq!(got[c][j], want, "{BACKEND}: lane {j} field {c}, first {} widths {w0} {w1}", first[j]);
            }
        }
    }
}

#[test]
fn from_fields_keeps_each_lanes_low_bits() {
    // Every width a damaged context can hold (0–255, taken modulo 32), against a u64 mask in each lane.
    let mut rng = Rng::new(7);
    for _ in 0..sinew_tests::cases(20_000) {
        let fields: [u32; 4] = [0; 4].map(|_| rng.next_u64() as u32);
        let widths: [u8; 4] = [0; 4].map(|_| rng.below(256) as u8);
        let got = F4::from_fields(F4::from_bits(fields), F4::field_masks(widths)).to_array();
        for j in 0..4 {
            let level = u64::from(fields[j]) & ((1u64 << (widths[j] % 32)) - 1);
            assert_eq!(got[j].to_bits(), (level as f32).to_bits(), "{BACKEND}: {:#x} width {}", fields[j], widths[j]);
        }
    }
}
