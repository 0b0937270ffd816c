//! The trajectory spring's closed forms against an independent f64 integration of the spring equations (RK4,
//! 1/4000 s steps), stepped and predicted, across turns over ±π; and its bad input.

use sinew::error::Error;
use sinew::trajectory::{Desired, SpringState, TrajectorySpring};
use sinew_tests::Rng;

/// `[x, v, a]` of one critically damped spring on the velocity toward `goal`, integrated to `t`.
fn integrate(mut s: [f64; 3], goal: f64, halflife: f64, t: f64) -> [f64; 3] {
    let y = 2.0 * std::f64::consts::LN_2 / halflife;
    let f = |s: [f64; 3]| [s[1], s[2], -2.0 * y * s[2] - y * y * (s[1] - goal)];
    let steps = (t * 4000.0).ceil().max(1.0) as usize;
    let h = t / steps as f64;
    for _ in 0..steps {
        let k1 = f(s);
        let k2 = f(std::array::from_fn(|i| s[i] + 0.5 * h * k1[i]));
        let k3 = f(std::array::from_fn(|i| s[i] + 0.5 * h * k2[i]));
        let k4 = f(std::array::from_fn(|i| s[i] + h * k3[i]));
        s = std::array::from_fn(|i| s[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]));
    }
    s
}

/// `[θ, ω]` of the yaw spring toward `goal` (already the nearest turn), integrated to `t`.
fn integrate_yaw(s: [f64; 2], goal: f64, halflife: f64, t: f64) -> [f64; 2] {
    // The yaw spring is the velocity spring one order down: θ plays v, ω plays a.
    let [_, theta, omega] = integrate([0.0, s[0], s[1]], goal, halflife, t);
    [theta, omega]
}

fn close(a: f32, b: f64, scale: f64) -> bool {
    (f64::from(a) - b).abs() <= 1e-5 * scale.max(1.0)
}

#[test]
fn the_springs_follow_the_f64_integration() {
    let mut rng = Rng::new(17);
    for case in 0..200 {
        let spring = TrajectorySpring { velocity_halflife: rng.range(0.05, 0.6), yaw_halflife: rng.range(0.05, 0.6) };
        let state = SpringState {
            position: [rng.range(-500.0, 500.0), rng.range(-500.0, 500.0)],
            velocity: [rng.range(-300.0, 300.0), rng.range(-300.0, 300.0)],
            acceleration: [rng.range(-900.0, 900.0), rng.range(-900.0, 900.0)],
            yaw: rng.range(-3.1, 3.1),
            yaw_rate: rng.range(-6.0, 6.0),
        };
        let desired =
            Desired { velocity: [rng.range(-400.0, 400.0), rng.range(-400.0, 400.0)], yaw: rng.range(-9.0, 9.0) };
        let times = [0.0, 1.0 / 60.0, 0.2, 1.0 / 3.0, 0.7, 1.0, 2.5];
        let mut predicted = [SpringState::default(); 7];
        spring.predict(&state, desired, &times, &mut predicted).unwrap();
        // The nearest turn to the desired yaw: the spring never goes the long way round.
        let two_pi = std::f64::consts::TAU;
        let difference = f64::from(desired.yaw) - f64::from(state.yaw);
        let goal = f64::from(state.yaw) + (difference + std::f64::consts::PI).rem_euclid(two_pi) - std::f64::consts::PI;
        for (k, (&t, got)) in times.iter().zip(&predicted).enumerate() {
            for axis in 0..2 {
                let s0 = [state.position[axis], state.velocity[axis], state.acceleration[axis]].map(f64::from);
                let want =
                    integrate(s0, f64::from(desired.velocity[axis]), f64::from(spring.velocity_halflife), f64::from(t));
                let scale = 500.0 + 400.0 * f64::from(t);
                assert!(
                    close(got.position[axis], want[0], scale),
                    "case {case} t {t} axis {axis}: {} vs {}",
                    got.position[axis],
                    want[0]
                );
                assert!(close(got.velocity[axis], want[1], 400.0), "case {case} t {t}: velocity");
                assert!(close(got.acceleration[axis], want[2], 900.0), "case {case} t {t}: acceleration");
            }
            let want = integrate_yaw(
                [state.yaw, state.yaw_rate].map(f64::from),
                goal,
                f64::from(spring.yaw_halflife),
                f64::from(t),
            );
            assert!(
                close(got.yaw, want[0], 10.0) && close(got.yaw_rate, want[1], 10.0),
                "case {case} t {t} ({k}): yaw"
            );
        }
        // Stepping sixty frames lands where one prediction a second ahead does.
        let mut stepped = state;
        for _ in 0..60 {
            stepped = spring.step(&stepped, desired, 1.0 / 60.0).unwrap();
        }
        let ahead = predicted[5];
        for axis in 0..2 {
            assert!((stepped.position[axis] - ahead.position[axis]).abs() <= 1e-3 * 900.0, "case {case}: stepping");
        }
        // The yaw too, where it never swings more than half a turn from the goal (past that, stepping re-aims at
        // the nearer turn, as it should, and the one prediction cannot).
        let mut probe = state;
        let mut within = true;
        for _ in 0..60 {
            probe = spring.step(&probe, desired, 1.0 / 60.0).unwrap();
            within &= (f64::from(probe.yaw) - goal).abs() < std::f64::consts::PI - 0.1;
        }
        if within {
            assert!((wrap(stepped.yaw - ahead.yaw)).abs() < 1e-4, "case {case}: stepped yaw");
        }
    }
}

fn wrap(a: f32) -> f32 {
    (a + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI
}

#[test]
fn the_spring_settles_on_the_request_without_overshoot() {
    let spring = TrajectorySpring::default();
    let state = SpringState { yaw: 3.0, ..SpringState::default() };
    // A half turn the short way: from 3.0 rad to −3.0 rad is 0.28 rad across ±π, not 6 rad back.
    let desired = Desired { velocity: [150.0, 0.0], yaw: -3.0 };
    let mut s = state;
    let mut speeds = Vec::new();
    for _ in 0..240 {
        s = spring.step(&s, desired, 1.0 / 60.0).unwrap();
        speeds.push(s.velocity[0]);
    }
    assert!(speeds.windows(2).all(|w| w[1] >= w[0] - 1e-3) && speeds.iter().all(|&v| v <= 150.0 + 1e-3));
    assert!((s.velocity[0] - 150.0).abs() < 0.01);
    assert!(wrap(s.yaw - desired.yaw).abs() < 1e-3 && s.yaw > 3.0, "yaw {}", s.yaw);
    assert!((s.facing()[0] - desired.yaw.sin()).abs() < 1e-3);
}

#[test]
fn bad_springs_and_requests_are_refused() {
    let good = TrajectorySpring::default();
    let state = SpringState::default();
    let desired = Desired::default();
    for spring in [
        TrajectorySpring { velocity_halflife: 0.0, ..good },
        TrajectorySpring { yaw_halflife: -1.0, ..good },
        TrajectorySpring { velocity_halflife: f32::NAN, ..good },
    ] {
        assert_eq!(spring.step(&state, desired, 0.1), Err(Error::InvalidTrajectory));
    }
    let nan_state = SpringState { velocity: [f32::NAN, 0.0], ..state };
    assert_eq!(good.step(&nan_state, desired, 0.1), Err(Error::InvalidTrajectory));
    let inf_desired = Desired { yaw: f32::INFINITY, ..desired };
    assert_eq!(good.step(&state, inf_desired, 0.1), Err(Error::InvalidTrajectory));
    assert_eq!(good.step(&state, desired, -0.1), Err(Error::InvalidTrajectory));
    let mut out = [SpringState::default(); 2];
    assert_eq!(good.predict(&state, desired, &[0.1, f32::NAN], &mut out), Err(Error::InvalidTrajectory));
    assert!(matches!(good.predict(&state, desired, &[0.1], &mut out), Err(Error::BufferLength { .. })));
}
