//! Discrete target speeds and overlapping speed ranges (Just Cause 3) against an f64 oracle written from the
//! definition: the seed's walk `[0, 3.5]` and run `[2.5, 5.5]` swept, three ranges at random, continuity of the
//! weights, and every kind of bad input refused.

use sinew::Error;
use sinew::speed_ranges::{SpeedRange, SpeedRanges, SpeedShare, SpeedStep, TargetSpeeds};
use sinew_tests::Rng;

/// The oracle: per range, its weight at `v` in f64 (1 inside it alone, linear across an overlap with a
/// neighbour, 0 elsewhere; below the first and above the last, the end range), and its rate.
fn oracle(ranges: &[SpeedRange], min_rate: f64, max_rate: f64, v: f64) -> Vec<(u32, f64, f64)> {
    let n = ranges.len();
    let (low, high) = (|i: usize| ranges[i].low as f64, |i: usize| ranges[i].high as f64);
    let mut out = vec![];
    for (i, range) in ranges.iter().enumerate() {
        // Rising edge: across the overlap with the slower neighbour; falling edge: with the faster one.
        let rising = if i == 0 { 1.0 } else { ((v - low(i)) / (high(i - 1) - low(i))).clamp(0.0, 1.0) };
        let falling = if i + 1 == n { 1.0 } else { (1.0 - (v - low(i + 1)) / (high(i) - low(i + 1))).clamp(0.0, 1.0) };
        let weight = rising.min(falling);
        if weight > 0.0 {
            let rate = (v / range.reference_speed as f64).clamp(min_rate, max_rate);
            out.push((range.clip, weight, rate));
        }
    }
    out
}

fn check(ranges: &SpeedRanges<'_>, all: &[SpeedRange], min_rate: f32, max_rate: f32, v: f32) -> Vec<SpeedShare> {
    let got = ranges.select(v).expect("select").as_slice().to_vec();
    let want = oracle(all, min_rate as f64, max_rate as f64, v as f64);
    assert_eq!(got.len(), want.len(), "v = {v}: {got:?} against {want:?}");
    for (g, (clip, weight, rate)) in got.iter().zip(&want) {
        assert_eq!(g.clip, *clip, "v = {v}");
        assert!((g.weight as f64 - weight).abs() < 2e-6, "v = {v}: weight {} against {weight}", g.weight);
        assert!((g.rate as f64 - rate).abs() <= 1e-6 * rate, "v = {v}: rate {} against {rate}", g.rate);
    }
    let sum: f32 = got.iter().map(|s| s.weight).sum();
    assert!((sum - 1.0).abs() <= f32::EPSILON, "v = {v}: weights sum to {sum}");
    got
}

const WALK: u32 = 7;
const RUN: u32 = 9;

fn seed_ranges() -> [SpeedRange; 2] {
    [
        SpeedRange { low: 0.0, high: 3.5, reference_speed: 1.5, clip: WALK },
        SpeedRange { low: 2.5, high: 5.5, reference_speed: 5.5, clip: RUN },
    ]
}

#[test]
fn the_seed_walk_and_run_swept() {
    let all = seed_ranges();
    let (min_rate, max_rate) = (0.5, 1.6);
    let ranges = SpeedRanges::new(&all, min_rate, max_rate).unwrap();
    let mut last: Option<[f32; 2]> = None;
    let steps = if cfg!(miri) { 110 } else { 5500 };
    for k in 0..=steps {
        let v = 5.5 * k as f32 / steps as f32;
        let shares = check(&ranges, &all, min_rate, max_rate, v);
        let clips: Vec<u32> = shares.iter().map(|s| s.clip).collect();
        // [0, 2.5]: the walk alone; (2.5, 3.5): both; [3.5, 5.5]: the run alone.
        let expected: &[u32] = if v <= 2.5 {
            &[WALK]
        } else if v < 3.5 {
            &[WALK, RUN]
        } else {
            &[RUN]
        };
        assert_eq!(clips, expected, "v = {v}");
        // The weights never jump: between neighbouring speeds they move by the step over the overlap's width.
        let weights = [WALK, RUN].map(|c| shares.iter().find(|s| s.clip == c).map_or(0.0, |s| s.weight));
        if let Some(before) = last {
            let step = 5.5 / steps as f32;
            for (a, b) in before.iter().zip(&weights) {
                assert!((a - b).abs() <= step + 1e-5, "v = {v}: a weight jumped from {a} to {b}");
            }
        }
        last = Some(weights);
    }
    // The rates are the clamp formula's: walking at 3 m/s is clamped to 1.6 (3/1.5 = 2), the run at 3 m/s
    // plays at 3/5.5.
    let at3 = ranges.select(3.0).unwrap();
    assert_eq!(at3.as_slice()[0].rate, 1.6);
    assert_eq!(at3.as_slice()[1].rate, 3.0 / 5.5);
    assert_eq!(at3.as_slice()[1].weight, 0.5);
    // Past the ends: the end ranges alone.
    assert_eq!(ranges.select(-1.0).unwrap().as_slice()[0].clip, WALK);
    assert_eq!(ranges.select(9.0).unwrap().as_slice(), &[SpeedShare { clip: RUN, weight: 1.0, rate: 1.6 }]);
}

#[test]
fn random_chains_of_ranges_match_the_oracle() {
    let mut rng = Rng::new(54);
    for _ in 0..if cfg!(miri) { 4 } else { 200 } {
        // Three to five ranges, each overlapping only its neighbours.
        let n = 3 + rng.below(3);
        let mut all = Vec::new();
        let mut low = rng.range(0.0, 1.0);
        let mut previous_high: f32 = 0.0;
        for i in 0..n {
            let high = low.max(previous_high) + rng.range(1.0, 3.0);
            all.push(SpeedRange { low, high, reference_speed: rng.range(0.5, 8.0), clip: i as u32 });
            // The next starts inside this range, after the one before ended.
            low = rng.range(low.max(previous_high) + 0.05, high - 0.05);
            previous_high = high;
        }
        let ranges = SpeedRanges::new(&all, 0.4, 2.5).expect("valid ranges");
        let top = all[n - 1].high + 1.0;
        for k in 0..if cfg!(miri) { 40 } else { 400 } {
            check(&ranges, &all, 0.4, 2.5, -0.5 + (top + 0.5) * k as f32 / 399.0);
        }
        // Exactly at every end.
        for r in &all {
            check(&ranges, &all, 0.4, 2.5, r.low);
            check(&ranges, &all, 0.4, 2.5, r.high);
        }
    }
}

#[test]
fn the_pad_picks_discrete_speeds() {
    let steps = [SpeedStep { pad: 0.0, speed: 1.5 }, SpeedStep { pad: 0.3, speed: 5.5 }];
    let speeds = TargetSpeeds::new(&steps).unwrap();
    assert_eq!(speeds.at(0.2), Ok(1.5));
    assert_eq!(speeds.at(0.3), Ok(5.5));
    assert_eq!(speeds.at(0.0), Ok(1.5));
    assert_eq!(speeds.at(1.0), Ok(5.5));
    // Out of range deflections clamp; NaN is refused.
    assert_eq!(speeds.at(-0.5), Ok(1.5));
    assert_eq!(speeds.at(7.0), Ok(5.5));
    assert_eq!(speeds.at(f32::NAN), Err(Error::InvalidCorrection));
    // A dead zone is a step of speed 0.
    let with_rest = [SpeedStep { pad: 0.0, speed: 0.0 }, SpeedStep { pad: 0.1, speed: 1.5 }];
    assert_eq!(TargetSpeeds::new(&with_rest).unwrap().at(0.05), Ok(0.0));
}

#[test]
fn bad_input_is_refused() {
    let step = |pad, speed| SpeedStep { pad, speed };
    for steps in [
        vec![],
        vec![step(0.1, 1.0)],
        vec![step(0.0, 1.0), step(0.0, 2.0)],
        vec![step(0.0, 1.0), step(0.5, 2.0), step(0.4, 3.0)],
        vec![step(0.0, 1.0), step(1.5, 2.0)],
        vec![step(0.0, f32::NAN)],
        vec![step(0.0, -1.0)],
        vec![step(f32::NAN, 1.0)],
    ] {
        assert!(matches!(TargetSpeeds::new(&steps), Err(Error::InvalidCorrection)), "{steps:?}");
    }
    let range = |low, high, reference_speed| SpeedRange { low, high, reference_speed, clip: 0 };
    for ranges in [
        vec![],
        vec![range(1.0, 1.0, 1.0)],
        vec![range(2.0, 1.0, 1.0)],
        vec![range(0.0, 1.0, 0.0)],
        vec![range(0.0, f32::INFINITY, 1.0)],
        vec![range(f32::NAN, 1.0, 1.0)],
        // A gap, a touch, out of order, one inside another, three at once.
        vec![range(0.0, 1.0, 1.0), range(1.5, 2.0, 1.0)],
        vec![range(0.0, 1.0, 1.0), range(1.0, 2.0, 1.0)],
        vec![range(1.0, 3.0, 1.0), range(0.0, 2.0, 1.0)],
        vec![range(0.0, 3.0, 1.0), range(1.0, 2.0, 1.0)],
        vec![range(0.0, 3.0, 1.0), range(1.0, 4.0, 1.0), range(2.0, 5.0, 1.0)],
    ] {
        assert!(matches!(SpeedRanges::new(&ranges, 0.5, 2.0), Err(Error::InvalidCorrection)), "{ranges:?}");
    }
    let seed = seed_ranges();
    for (min_rate, max_rate) in [(0.0, 1.0), (1.5, 1.0), (f32::NAN, 1.0), (0.5, f32::INFINITY)] {
        assert!(SpeedRanges::new(&seed, min_rate, max_rate).is_err(), "rates {min_rate}, {max_rate}");
    }
    let ranges = SpeedRanges::new(&seed, 0.5, 2.0).unwrap();
    for v in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert_eq!(ranges.select(v), Err(Error::InvalidCorrection), "{v}");
    }
}
