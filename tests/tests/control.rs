//! Animation controls: the clock against an f64 unwrapped-time oracle, wrap counts, ping-pong, clamping, fades,
//! and markers crossed exactly once per crossing in both directions.

use sinew::control::{Control, Fade, Wrap};
use sinew::{Error, limits};
use sinew_tests::Rng;

/// Local time of unwrapped phase `u` (f64), per wrap mode: the definition the clock must follow.
fn oracle_time(wrap: Wrap, d: f64, u: f64) -> f64 {
    match wrap {
        Wrap::Loop => u.rem_euclid(d),
        Wrap::PingPong => {
            let p = u.rem_euclid(2.0 * d);
            if p > d { 2.0 * d - p } else { p }
        }
        Wrap::Clamp => u.clamp(0.0, d),
    }
}

/// How often a marker at `m` is passed moving from unwrapped phase `a` to `b` (half-open in the direction of
/// travel), per wrap mode.
fn oracle_passes(wrap: Wrap, d: f64, m: f64, a: f64, b: f64) -> i64 {
    let (lo, hi) = if b >= a { (a, b) } else { (b, a) };
    // Count k with lo < x + k·p <= hi (forward) or lo <= x + k·p < hi (backward).
    let count = |x: f64, p: f64| -> i64 {
        if b >= a {
            ((hi - x) / p).floor() as i64 - ((lo - x) / p).floor() as i64
        } else {
            ((hi - x) / p).ceil() as i64 - ((lo - x) / p).ceil() as i64
        }
    };
    match wrap {
        Wrap::Loop => count(m, d),
        Wrap::PingPong => {
            let out = count(m, 2.0 * d);
            let back = if m > 0.0 && m < d { count(2.0 * d - m, 2.0 * d) } else { 0 };
            out + back
        }
        Wrap::Clamp => i64::from(if b >= a { lo < m && m <= hi } else { lo <= m && m < hi }),
    }
}

#[test]
fn time_follows_the_unwrapped_oracle_through_random_steps_and_speed_changes() {
    let mut rng = Rng::new(11);
    for wrap in [Wrap::Loop, Wrap::PingPong, Wrap::Clamp] {
        for d in [0.4f32, 1.0, 2.9] {
            let mut control = Control::new(0, d, wrap, 0.3 * d, 1.0, 1.0).unwrap();
            let mut u = 0.3 * d as f64;
            let (mut wraps, mut oracle_wraps) = (0i64, 0i64);
            let steps = if cfg!(miri) { 200 } else { 10_000 };
            for i in 0..steps {
                if i % 17 == 0 {
                    let before = control.time();
                    control.set_speed(rng.range(-3.0, 3.0)).unwrap();
                    // Changing the speed never moves the time.
                    assert_eq!(control.time().to_bits(), before.to_bits());
                }
                let dt = rng.range(0.0, 0.1);
                let u_next = match wrap {
                    Wrap::Clamp => (u + control.speed() as f64 * dt as f64).clamp(0.0, d as f64),
                    _ => u + control.speed() as f64 * dt as f64,
                };
                let step = control.advance(dt).unwrap();
                let half = d as f64;
                if wrap != Wrap::Clamp {
                    oracle_wraps += (u_next / half).floor() as i64 - (u / half).floor() as i64;
                }
                wraps += step.wraps;
                u = u_next;
                let expected = oracle_time(wrap, d as f64, u);
                let err = (control.time() as f64 - expected).abs();
                // Near a wrap the two sides of the seam are the same instant.
                let seam = (d as f64 - err).abs() < 1e-5 * d as f64;
                assert!(err < 1e-5 * d as f64 || (wrap == Wrap::Loop && seam), "{wrap:?} step {i}: {err}");
                // Wrap counts agree except where the oracle sits within rounding of a seam.
                let near_seam = (u / half - (u / half).round()).abs() < 1e-5;
                if !near_seam {
                    assert_eq!(wraps, oracle_wraps, "{wrap:?} D {d} step {i}");
                } else {
                    wraps = oracle_wraps;
                }
            }
        }
    }
}

#[test]
fn a_huge_step_wraps_as_often_as_it_must_and_crossings_stay_lazy() {
    let mut control = Control::new(0, 0.5, Wrap::Loop, 0.0, limits::MAX_SPEED, 1.0).unwrap();
    let step = control.advance(limits::MAX_TIME_STEP).unwrap();
    assert_eq!(step.wraps, (limits::MAX_SPEED as f64 * limits::MAX_TIME_STEP as f64 / 0.5) as i64);
    assert!(control.time() < 0.5);
    let first: Vec<usize> = step.crossings(&[0.1, 0.3]).take(5).collect();
    assert_eq!(first, [0, 1, 0, 1, 0]);
    // Backward across many loops.
    control.set_speed(-limits::MAX_SPEED).unwrap();
    let step = control.advance(1.0).unwrap();
    assert_eq!(step.wraps, -2000);
}

#[test]
fn ping_pong_bounces_and_clamp_stops_with_finished() {
    let mut c = Control::new(0, 1.0, Wrap::PingPong, 0.75, 1.0, 1.0).unwrap();
    let s = c.advance(0.5).unwrap();
    assert_eq!((c.time(), s.wraps), (0.75, 1));
    let s = c.advance(1.0).unwrap();
    assert_eq!((c.time(), s.wraps), (0.25, 1));
    let s = c.advance(1.0).unwrap();
    assert_eq!((c.time(), s.wraps), (0.75, 1));
    // Speed 0 and dt 0 stay put.
    assert_eq!(c.advance(0.0).unwrap().wraps, 0);

    let mut c = Control::new(0, 2.0, Wrap::Clamp, 1.5, 1.0, 1.0).unwrap();
    assert!(!c.advance(0.25).unwrap().finished);
    let s = c.advance(1.0).unwrap();
    assert!(s.finished && c.time() == 2.0 && s.wraps == 0);
    c.set_speed(-2.0).unwrap();
    assert!(!c.advance(0.5).unwrap().finished);
    assert!(c.advance(0.75).unwrap().finished);
    assert_eq!(c.time(), 0.0);

    // A zero-length clip stays at 0; looping it never wraps.
    let mut c = Control::new(0, 0.0, Wrap::Loop, 0.0, 1.0, 1.0).unwrap();
    let s = c.advance(1.0).unwrap();
    assert_eq!((c.time(), s.wraps, s.crossings(&[0.0]).count()), (0.0, 0, 0));
}

/// Every pass over every marker, in order, for steps of `dts` at `speed`.
fn fired(wrap: Wrap, d: f32, markers: &[f32], speed: f32, dts: &[f32]) -> Vec<usize> {
    let mut control = Control::new(0, d, wrap, 0.37 * d, speed, 1.0).unwrap();
    let mut out = Vec::new();
    for &dt in dts {
        let step = control.advance(dt).unwrap();
        out.extend(step.crossings(markers));
    }
    out
}

#[test]
fn markers_fire_once_per_crossing_whatever_the_step_sizes() {
    let d = 1.3f32;
    let markers = [0.0, 0.1, 0.65, 0.651, 1.2, 1.3];
    for wrap in [Wrap::Loop, Wrap::PingPong, Wrap::Clamp] {
        for speed in [0.5f32, 1.0, 2.7, -1.0] {
            let mut rng = Rng::new(5);
            let total = if cfg!(miri) { 2.0f64 } else { 20.0 };
            let partitions: Vec<Vec<f32>> = [30.0f32, 60.0, 144.0]
                .iter()
                .map(|hz| vec![1.0 / hz; (total * *hz as f64).round() as usize])
                .chain(std::iter::once({
                    let mut dts = Vec::new();
                    let mut t = 0.0f64;
                    while t < total - 0.1 {
                        let dt = rng.range(0.0, 0.1);
                        dts.push(dt);
                        t += dt as f64;
                    }
                    dts.push((total - t) as f32);
                    dts
                }))
                .collect();
            let runs: Vec<Vec<usize>> = partitions.iter().map(|dts| fired(wrap, d, &markers, speed, dts)).collect();
            // The oracle: how many passes each marker gets over the whole interval.
            let start = 0.37 * d as f64;
            let end = start + speed as f64 * total;
            for (i, &m) in markers.iter().enumerate() {
                let expected = oracle_passes(wrap, d as f64, m as f64, start, end);
                for run in &runs {
                    assert_eq!(run.iter().filter(|&&k| k == i).count() as i64, expected, "{wrap:?} {speed} marker {m}");
                }
            }
            for run in &runs[1..] {
                assert_eq!(run, &runs[0], "{wrap:?} speed {speed}: order differs between partitions");
            }
        }
    }
}

#[test]
fn markers_come_in_playback_order_forward_and_backward() {
    let markers = [0.2, 0.5, 0.8];
    let forward = fired(Wrap::Loop, 1.0, &markers, 1.0, &[0.5, 1.0]);
    // From 0.37: 0.5, 0.8, then a wrap: 0.2, 0.5, 0.8.
    assert_eq!(forward, [1, 2, 0, 1, 2]);
    let backward = fired(Wrap::Loop, 1.0, &markers, -1.0, &[0.5, 1.0]);
    // From 0.37 down: 0.2, wrap, 0.8, 0.5, 0.2.
    assert_eq!(backward, [0, 2, 1, 0]);
    let bounce = fired(Wrap::PingPong, 1.0, &markers, 1.0, &[1.5]);
    // 0.37 → 1 → 0.13: out over 0.5, 0.8, back over 0.8, 0.5, 0.2.
    assert_eq!(bounce, [1, 2, 2, 1, 0]);
}

#[test]
fn exactly_representable_steps_match_the_oracle_marker_for_marker() {
    // Quarters and eighths: every phase is exact in f32, so counts must match exactly on the seams too.
    let d = 1.25f32;
    let markers = [0.0, 0.25, 0.625, 1.25];
    for wrap in [Wrap::Loop, Wrap::PingPong, Wrap::Clamp] {
        for speed in [1.0f32, -0.5, 3.0] {
            let mut c = Control::new(0, d, wrap, 0.5, speed, 1.0).unwrap();
            let mut u = 0.5f64;
            for i in 0..if cfg!(miri) { 60 } else { 400 } {
                let dt = 0.125 * (1 + i % 5) as f32;
                let u_next = u + speed as f64 * dt as f64;
                let u_next = if wrap == Wrap::Clamp { u_next.clamp(0.0, d as f64) } else { u_next };
                let step = c.advance(dt).unwrap();
                let got: Vec<usize> = step.crossings(&markers).collect();
                for (k, &m) in markers.iter().enumerate() {
                    let expected = oracle_passes(wrap, d as f64, m as f64, u, u_next);
                    assert_eq!(got.iter().filter(|&&x| x == k).count() as i64, expected, "{wrap:?} {speed} step {i}");
                }
                u = u_next;
                assert_eq!(c.time() as f64, oracle_time(wrap, d as f64, u));
            }
        }
    }
}

#[test]
fn fades_land_exactly_on_their_targets() {
    let mut f = Fade::at(0.0);
    f.fade_to(1.0, 0.5).unwrap();
    let mut t = 0.0;
    while f.rate != 0.0 {
        f = f.advanced(0.1);
        t += 0.1;
        assert!(f.weight <= 1.0);
    }
    assert_eq!(f.weight, 1.0);
    assert!((t - 0.5f32).abs() < 0.11);
    f.fade_to(0.0, 0.0).unwrap();
    assert!(f.is_silent());
}

#[test]
fn bad_values_are_errors_and_change_nothing() {
    assert_eq!(Control::new(0, 1.0, Wrap::Loop, 1.5, 1.0, 1.0), Err(Error::InvalidTime));
    assert_eq!(Control::new(0, f32::NAN, Wrap::Loop, 0.0, 1.0, 1.0), Err(Error::InvalidTime));
    assert_eq!(Control::new(0, 1.0, Wrap::Loop, f32::NAN, 1.0, 1.0), Err(Error::InvalidTime));
    assert_eq!(Control::new(0, 1.0, Wrap::Loop, 0.0, f32::NAN, 1.0), Err(Error::InvalidSpeed));
    assert_eq!(Control::new(0, 1.0, Wrap::Loop, 0.0, 1e9, 1.0), Err(Error::InvalidSpeed));
    assert_eq!(Control::new(0, 1.0, Wrap::Loop, 0.0, 1.0, -1.0), Err(Error::InvalidFade));
    assert_eq!(Control::new(0, 1.0, Wrap::Loop, 0.0, 1.0, f32::NAN), Err(Error::InvalidFade));
    let mut c = Control::new(0, 1.0, Wrap::Loop, 0.25, 1.0, 1.0).unwrap();
    let before = c;
    for dt in [f32::NAN, -0.1, f32::INFINITY, 1e9] {
        assert_eq!(c.advance(dt), Err(Error::InvalidTimeStep));
    }
    assert_eq!(c.set_speed(f32::INFINITY), Err(Error::InvalidSpeed));
    assert_eq!(c.set_time(2.0), Err(Error::InvalidTime));
    assert_eq!(c.set_time(-0.0 - 1e-3), Err(Error::InvalidTime));
    assert_eq!(c.fade_to(1.0, f32::NAN), Err(Error::InvalidFade));
    assert_eq!(c.fade_to(f32::INFINITY, 1.0), Err(Error::InvalidFade));
    assert_eq!(c, before);
}

#[test]
fn tiny_marker_times_are_not_lost_to_rounding_against_the_period() {
    // Found by fuzzing: a marker at 7.7e-35 s vanished into `D + 7.7e-35` and fired twice in one loop.
    let markers = [7.70372e-35f32, 0.3];
    let mut c = Control::new(0, 0.3, Wrap::Loop, 0.0, 1.0, 1.0).unwrap();
    assert_eq!(c.advance(0.3).unwrap().crossings(&markers).collect::<Vec<_>>(), [0, 1]);
    // Backward onto the seam twice (0.15 → 0 → −0.3): each step's `[end, start)` holds both markers once,
    // the one at `D` on the seam itself, so each fires once per step and never twice in one.
    let mut c = Control::new(0, 0.3, Wrap::Loop, 0.15, -1.0, 1.0).unwrap();
    let first: Vec<usize> = c.advance(0.15).unwrap().crossings(&markers).collect();
    let second: Vec<usize> = c.advance(0.3).unwrap().crossings(&markers).collect();
    assert_eq!((first, second), (vec![0, 1], vec![0, 1]));
    // Ping-pong: the mirror of a tiny time sits just before the turnaround at 2D and fires once.
    let mut c = Control::new(0, 0.3, Wrap::PingPong, 0.0, 1.0, 1.0).unwrap();
    assert_eq!(c.advance(0.6).unwrap().crossings(&markers).collect::<Vec<_>>(), [0, 1, 0]);
}
