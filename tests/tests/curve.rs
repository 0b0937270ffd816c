//! Scalar Hermite curves against an independent f64 evaluation: values through the keys, C1 at every key
//! whatever the segment lengths, integrals against the closed-form antiderivative, the exact monotonicity
//! check against dense sampling, the inverse lookup, and bad keys.

use sinew::Error;
use sinew::curve::{Curve, CurveKey};
use sinew_tests::Rng;

/// f64 value and derivative at `t` of the curve through `keys` (end values held outside).
fn reference(keys: &[CurveKey], t: f64) -> (f64, f64) {
    let (first, last) = (keys[0], keys[keys.len() - 1]);
    if t <= first.time as f64 {
        return (first.value as f64, 0.0);
    }
    if t >= last.time as f64 {
        return (last.value as f64, 0.0);
    }
    on_segment(keys, keys.iter().rposition(|k| k.time as f64 <= t).unwrap(), t)
}

/// f64 value and derivative at `t` of segment `i`'s cubic (extended past its ends).
fn on_segment(keys: &[CurveKey], i: usize, t: f64) -> (f64, f64) {
    let (a, b) = (keys[i], keys[i + 1]);
    let (t0, d) = (a.time as f64, (b.time - a.time) as f64);
    let u = (t - t0) / d;
    let (p0, p1, m0, m1) = (a.value as f64, b.value as f64, a.slope as f64 * d, b.slope as f64 * d);
    let value = (2.0 * u.powi(3) - 3.0 * u * u + 1.0) * p0
        + (u.powi(3) - 2.0 * u * u + u) * m0
        + (3.0 * u * u - 2.0 * u.powi(3)) * p1
        + (u.powi(3) - u * u) * m1;
    let slope = ((6.0 * u * u - 6.0 * u) * p0
        + (3.0 * u * u - 4.0 * u + 1.0) * m0
        + (6.0 * u - 6.0 * u * u) * p1
        + (3.0 * u * u - 2.0 * u) * m1)
        / d;
    (value, slope)
}

/// f64 `∫ v` from the first key to `t`, by the antiderivative of the Hermite basis on each segment.
fn reference_area(keys: &[CurveKey], t: f64) -> f64 {
    let (first, last) = (keys[0].time as f64, keys[keys.len() - 1].time as f64);
    if t <= first {
        return (t - first) * keys[0].value as f64;
    }
    let mut area = 0.0;
    for w in keys.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (t0, d) = (a.time as f64, (b.time - a.time) as f64);
        if t <= t0 {
            break;
        }
        let u = ((t - t0) / d).min(1.0);
        let (p0, p1, m0, m1) = (a.value as f64, b.value as f64, a.slope as f64 * d, b.slope as f64 * d);
        let integral = (u.powi(4) / 2.0 - u.powi(3) + u) * p0
            + (u.powi(4) / 4.0 - 2.0 * u.powi(3) / 3.0 + u * u / 2.0) * m0
            + (u.powi(3) - u.powi(4) / 2.0) * p1
            + (u.powi(4) / 4.0 - u.powi(3) / 3.0) * m1;
        area += d * integral;
    }
    area + (t - last).max(0.0) * keys[keys.len() - 1].value as f64
}

fn random_keys(rng: &mut Rng, n: usize) -> Vec<CurveKey> {
    let mut time = rng.range(-1.0, 1.0);
    (0..n)
        .map(|_| {
            time += rng.range(0.05, 1.5);
            CurveKey { time, value: rng.range(-5.0, 5.0), slope: rng.range(-10.0, 10.0) }
        })
        .collect()
}

#[test]
fn values_pass_through_the_keys_and_follow_the_f64_curve_with_one_slope_at_each_key() {
    let mut rng = Rng::new(0xC0);
    for _ in 0..200 {
        let n = 2 + rng.below(6);
        let keys = random_keys(&mut rng, n);
        let curve = Curve::new(&keys).unwrap();
        for k in &keys {
            assert_eq!(curve.value(k.time), k.value, "a key's value, exactly");
        }
        let (first, last) = curve.span();
        for _ in 0..50 {
            let t = rng.range(first - 1.0, last + 1.0);
            let (want, _) = reference(&keys, t as f64);
            assert!((curve.value(t) as f64 - want).abs() < 1e-4 * (1.0 + want.abs()), "t {t}");
        }
        // C1 at inner keys, whatever the two segments' lengths: both cubics meeting there have the key's slope
        // (the f32 curve follows these cubics, above).
        for (i, k) in keys.iter().enumerate().take(keys.len() - 1).skip(1) {
            let (left, right) = (on_segment(&keys, i - 1, k.time as f64).1, on_segment(&keys, i, k.time as f64).1);
            assert!((left - k.slope as f64).abs() < 1e-3 && (right - k.slope as f64).abs() < 1e-3);
        }
    }
}

#[test]
fn integrals_match_the_closed_form_antiderivative_inside_and_outside_the_keys() {
    let mut rng = Rng::new(0xC1);
    for _ in 0..200 {
        let n = 2 + rng.below(6);
        let keys = random_keys(&mut rng, n);
        let curve = Curve::new(&keys).unwrap();
        let (first, last) = curve.span();
        for _ in 0..20 {
            let (a, b) = (rng.range(first - 0.5, last + 0.5), rng.range(first - 0.5, last + 0.5));
            let want = reference_area(&keys, b as f64) - reference_area(&keys, a as f64);
            let got = curve.integral(a, b) as f64;
            assert!((got - want).abs() < 1e-4 * (1.0 + want.abs()), "[{a}, {b}]: {got} vs {want}");
        }
        assert_eq!(curve.integral(first, first), 0.0);
    }
}

#[test]
fn the_monotonicity_check_is_exact_and_the_inverse_finds_the_time_of_a_value() {
    let mut rng = Rng::new(0xC2);
    let (mut rising, mut falling, mut neither) = (0, 0, 0);
    for _ in 0..2000 {
        let n = 2 + rng.below(3);
        let mut keys = random_keys(&mut rng, n);
        // Values in order, slopes of the same sign at most times: some curves stay monotone, others bulge.
        let sign = if rng.unit() < 0.5 { 1.0 } else { -1.0 };
        let mut value = rng.range(-2.0, 2.0);
        for k in keys.iter_mut() {
            value += sign * rng.range(0.0, 3.0);
            k.value = value;
            k.slope = sign * rng.range(-1.0, 8.0);
        }
        let curve = Curve::new(&keys).unwrap();
        let (first, last) = curve.span();
        let slopes: Vec<f64> =
            (0..=4000).map(|i| reference(&keys, first as f64 + (last - first) as f64 * i as f64 / 4000.0).1).collect();
        let scale = slopes.iter().fold(1.0f64, |m, s| m.max(s.abs()));
        match curve.monotone() {
            Some(up) => {
                let s = if up { 1.0 } else { -1.0 };
                assert!(slopes.iter().all(|d| s * d > -1e-4 * scale), "claimed monotone: {keys:?}");
                if up {
                    rising += 1
                } else {
                    falling += 1
                }
                // The inverse: the value at the time found is the value asked, within the curve's f32 rounding.
                for _ in 0..10 {
                    let (lo, hi) =
                        (curve.value(first).min(curve.value(last)), curve.value(first).max(curve.value(last)));
                    let v = rng.range(lo, hi);
                    let t = curve.time_of(v).unwrap();
                    assert!((first..=last).contains(&t));
                    assert!((curve.value(t) - v).abs() < 1e-4 * (1.0 + v.abs()), "{v} at {t}: {}", curve.value(t));
                }
                let beyond = if up { curve.value(last) + 1.0 } else { curve.value(last) - 1.0 };
                assert_eq!(curve.time_of(beyond), Ok(last), "past the range: its end");
            }
            None => {
                neither += 1;
                let clear = 1e-3 * scale;
                let both = slopes.iter().any(|d| *d > clear) && slopes.iter().any(|d| *d < -clear);
                // A curve called non-monotone turns back somewhere (beyond rounding, unless it only grazes 0).
                let grazes = slopes.iter().any(|d| d.abs() <= clear);
                assert!(both || grazes, "claimed not monotone: {keys:?}");
                assert_eq!(curve.time_of(0.0), Err(Error::InvalidCurve));
            }
        }
    }
    assert!(rising > 100 && falling > 100 && neither > 100, "{rising} {falling} {neither}");
}

#[test]
fn bad_keys_are_errors() {
    let key = |time, value| CurveKey { time, value, slope: 0.0 };
    assert_eq!(Curve::new(&[key(0.0, 1.0)]), Err(Error::InvalidCurve));
    assert_eq!(Curve::new(&[]), Err(Error::InvalidCurve));
    assert_eq!(Curve::new(&[key(0.0, 1.0), key(0.0, 2.0)]), Err(Error::InvalidCurve));
    assert_eq!(Curve::new(&[key(1.0, 1.0), key(0.0, 2.0)]), Err(Error::InvalidCurve));
    assert_eq!(Curve::new(&[key(0.0, f32::NAN), key(1.0, 2.0)]), Err(Error::InvalidCurve));
    assert_eq!(Curve::new(&[key(0.0, 1.0), key(f32::INFINITY, 2.0)]), Err(Error::InvalidCurve));
    let ok = [key(0.0, 1.0), key(1.0, 2.0)];
    assert_eq!(Curve::new(&ok).unwrap().time_of(f32::NAN), Err(Error::InvalidCurve));
}

/// A start's acceleration to 4 m/s in 0.9 s and a stop's deceleration from it in 0.6 s (m/s over seconds).
const ACCELERATE: [CurveKey; 3] = [
    CurveKey { time: 0.0, value: 0.0, slope: 0.0 },
    CurveKey { time: 0.4, value: 2.2, slope: 5.5 },
    CurveKey { time: 0.9, value: 4.0, slope: 0.0 },
];
const DECELERATE: [CurveKey; 3] = [
    CurveKey { time: 0.0, value: 4.0, slope: 0.0 },
    CurveKey { time: 0.35, value: 1.5, slope: -7.0 },
    CurveKey { time: 0.6, value: 0.0, slope: 0.0 },
];

#[test]
fn a_speed_curve_covers_its_integral_for_any_partition_and_switches_without_a_jump() {
    use sinew::motion_correction::SpeedCurve;
    let speed = SpeedCurve::new(Curve::new(&ACCELERATE).unwrap()).unwrap();
    let stop = SpeedCurve::new(Curve::new(&DECELERATE).unwrap()).unwrap();
    let mut rng = Rng::new(0xC3);
    // From rest to 1.5 s (the last 0.6 s at the top speed), in steps at a frame rate or (0) random steps.
    let want = reference_area(&ACCELERATE, 1.5) - reference_area(&ACCELERATE, 0.0);
    for rate in [30.0f32, 60.0, 144.0, 0.0] {
        let (mut elapsed, mut distance) = (0.0f32, 0.0f32);
        while elapsed < 1.5 - 1e-6 {
            let dt = if rate > 0.0 { 1.0 / rate } else { rng.range(0.001, 0.05) }.min(1.5 - elapsed);
            let (next, covered) = speed.step(elapsed, dt);
            (elapsed, distance) = (next, distance + covered);
        }
        assert!((distance as f64 - want).abs() < 1e-4, "{rate} Hz: {distance} m vs {want}");
    }
    // Mid-acceleration the stop is entered where it has the current speed: no jump, and it brakes from there.
    for at in [0.2f32, 0.5, 0.75, 2.0] {
        let now = speed.speed(at);
        let entered = stop.enter(now).unwrap();
        assert!((stop.speed(entered) - now).abs() < 1e-4, "at {at}: {now} → {}", stop.speed(entered));
        let (_, covered) = stop.step(entered, 1.0);
        assert!(covered < now * 1.0 && covered >= 0.0);
    }
    // A curve that speeds up and slows down again has no inverse: refused.
    let bump = [
        CurveKey { time: 0.0, value: 0.0, slope: 0.0 },
        CurveKey { time: 0.5, value: 3.0, slope: 0.0 },
        CurveKey { time: 1.0, value: 1.0, slope: 0.0 },
    ];
    assert_eq!(SpeedCurve::new(Curve::new(&bump).unwrap()), Err(Error::InvalidCurve));
    assert_eq!(speed.step(0.3, f32::NAN), (0.3, 0.0), "a NaN step moves nothing");
}
