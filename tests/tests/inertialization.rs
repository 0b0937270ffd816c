//! Inertialization: the quintic against the paper's formulas (Bollo, SIGGRAPH 2017) in f64 (property tests on seeded random inputs),
//! the inertializer end to end against an f64 oracle in every channel and velocity mode, request semantics
//! (interruptions, shortest wins, profiles, reset, dt = 0), one test per error, and agreement across builds.

use sinew::inertialization::{ChannelMode, MIN_DURATION, Quintic, Settings, Shape, VelocityMode};
use sinew::math::{F4, Quat, SoaTransform, Transform, Vec3, num_soa_joints, pack_soa, unpack_soa};
use sinew::{Arena, Buffer, Error, InertializationJob, Inertializer, Target, Transition};
use sinew_tests::{Rng, oracle};

const MODES: [Settings; 6] = [
    Settings { channel: ChannelMode::PerComponent, velocity: VelocityMode::Absolute, shape: Shape::Clamped },
    Settings { channel: ChannelMode::PerComponent, velocity: VelocityMode::Relative, shape: Shape::Clamped },
    Settings { channel: ChannelMode::Projected, velocity: VelocityMode::Absolute, shape: Shape::Clamped },
    Settings { channel: ChannelMode::Projected, velocity: VelocityMode::Relative, shape: Shape::Clamped },
    Settings { channel: ChannelMode::PerComponent, velocity: VelocityMode::Relative, shape: Shape::Continuous },
    Settings { channel: ChannelMode::Projected, velocity: VelocityMode::Absolute, shape: Shape::Continuous },
];

/// A value spanning tiny to huge magnitudes, either sign.
fn wide_value(rng: &mut Rng) -> f32 {
    let magnitude = 10f32.powf(rng.range(-6.0, 4.0));
    if rng.below(2) == 0 { -magnitude } else { magnitude }
}

#[test]
fn quintic_matches_the_paper_in_f64() {
    let mut rng = Rng::new(4000);
    for case in 0..sinew_tests::cases(20_000) {
        let x0 = F4::from_array([0; 4].map(|_| wide_value(&mut rng)));
        // Velocities toward and away from the target, from negligible to large against x0 / t1.
        let v0 = F4::from_array(x0.to_array().map(|x| x * rng.range(-40.0, 40.0) + wide_value(&mut rng) * 1e-3));
        let t1 = F4::from_array([0; 4].map(|_| rng.range(0.01, 2.0)));
        let q = Quintic::new(x0, v0, t1);
        let (x0, v0, t1) = (x0.to_array(), v0.to_array(), t1.to_array());
        let ts = [0.0f32, rng.range(0.0, 0.3), rng.range(0.0, 2.2), t1[0]];
        for t in ts {
            let got = q.eval(F4::splat(t), Shape::Clamped).to_array();
            for lane in 0..4 {
                let (x, v, d) = (x0[lane] as f64, v0[lane] as f64, t1[lane] as f64);
                let want = oracle::inertialize(x, v, d, t as f64);
                let limited = oracle::limited_duration(x, v, d);
                // Relative to the curve's scale: x0 and the distance the initial velocity covers.
                let scale = x.abs() + v.abs() * limited;
                let err = (got[lane] as f64 - want).abs();
                assert!(
                    err <= 2e-6 * scale,
                    "case {case} lane {lane}: x0 {x} v0 {v} t1 {d} t {t}: {} vs {want}",
                    got[lane]
                );
                if t == 0.0 {
                    assert_eq!(got[lane], x0[lane], "exactly the source offset at t = 0");
                }
                // Exactly zero from t1 on; f32 computes the limited t1 within a few ulps of f64's.
                if t as f64 >= limited * (1.0 + 1e-6) || t == t1[lane] {
                    assert_eq!(got[lane], 0.0, "exactly zero from t1 on (case {case} lane {lane})");
                }
            }
        }
    }
}

#[test]
fn quintic_never_overshoots() {
    let mut rng = Rng::new(4100);
    for case in 0..sinew_tests::cases(3000) {
        let x0 = F4::from_array([0; 4].map(|_| wide_value(&mut rng)));
        let v0 = F4::from_array(x0.to_array().map(|x| x * rng.range(-60.0, 60.0)));
        let t1 = F4::splat(rng.range(0.05, 1.0));
        let q = Quintic::new(x0, v0, t1);
        let x0 = x0.to_array();
        for step in 0..=200 {
            let got = q.eval(F4::splat(step as f32 * 0.005), Shape::Clamped).to_array();
            for lane in 0..4 {
                // Between the source offset and 0, up to f32 rounding next to a root (see `Quintic`).
                let (x, g) = (x0[lane], got[lane]);
                let rounding = 1e-7 * x.abs();
                assert!(
                    g * x.signum() >= -rounding && g.abs() <= x.abs() + rounding,
                    "case {case} step {step}: {g} vs {x}"
                );
            }
        }
    }
}

#[test]
fn quintic_finished_and_empty_curves() {
    // x0 = 0 with a velocity toward it limits t1 to 0: nothing to do. A zero offset with zero velocity too.
    let q = Quintic::new(F4::new(0.0, 0.0, 1.0, -1.0), F4::new(-3.0, 0.0, 0.0, 0.0), F4::splat(0.5));
    for t in [0.0, 0.1, 0.7] {
        assert_eq!(q.eval(F4::splat(t), Shape::Clamped).to_array()[..2], [0.0, 0.0]);
    }
    assert_eq!(q.inv_t1.to_array()[0], 0.0, "finished at once");
    assert_eq!(q.eval(F4::splat(0.0), Shape::Clamped).to_array()[2..], [1.0, -1.0]);
    // A limit far below any frame still starts at the source and ends at its (tiny) t1.
    let tiny = Quintic::new(F4::splat(1e-12), F4::splat(-1.0), F4::splat(1.0));
    assert_eq!(tiny.eval(F4::splat(0.0), Shape::Clamped), F4::splat(1e-12));
    assert_eq!(tiny.eval(F4::splat(MIN_DURATION), Shape::Clamped), F4::ZERO);
}

#[test]
fn continuous_curve_matches_its_f64_definition() {
    let mut rng = Rng::new(4010);
    for case in 0..sinew_tests::cases(20_000) {
        let x0 = F4::from_array([0; 4].map(|_| if rng.below(50) == 0 { 0.0 } else { wide_value(&mut rng) }));
        let v0 = F4::from_array(x0.to_array().map(|x| x * rng.range(-40.0, 40.0) + wide_value(&mut rng) * 1e-3));
        let t1 = F4::from_array([0; 4].map(|_| rng.range(0.01, 2.0)));
        let (q, _) = Quintic::shaped(x0, v0, t1, Shape::Continuous);
        let (x0, v0, t1) = (x0.to_array(), v0.to_array(), t1.to_array());
        for t in [0.0f32, rng.range(0.0, 0.3), rng.range(0.0, 2.2)] {
            let got = q.eval(F4::splat(t), Shape::Continuous).to_array();
            for lane in 0..4 {
                let (x, v, d) = (x0[lane] as f64, v0[lane] as f64, t1[lane] as f64);
                let want = oracle::inertialize_shaped(x, v, d, t as f64, true);
                let scale = x.abs() + v.abs() * d;
                assert!(
                    (got[lane] as f64 - want).abs() <= 2e-6 * scale,
                    "case {case} lane {lane}: x0 {x} v0 {v} t1 {d} t {t}: {} vs {want}",
                    got[lane]
                );
            }
        }
    }
}

/// The continuous shape's guarantees on random curves: the offset starts with the source's velocity, never
/// changes sign, grows past its start by at most `6⁶/7⁷ · v0 · t1` (a velocity moving away), and is exactly 0
/// from its end on.
#[test]
fn continuous_curve_keeps_velocity_and_sign_within_its_growth_bound() {
    let mut rng = Rng::new(4110);
    for case in 0..sinew_tests::cases(3000) {
        let x0 = F4::from_array([0; 4].map(|_| if rng.below(20) == 0 { 0.0 } else { wide_value(&mut rng) }));
        let v0 = F4::from_array(x0.to_array().map(|x| x * rng.range(-60.0, 60.0) + wide_value(&mut rng) * 1e-4));
        let t1 = F4::splat(rng.range(0.05, 1.0));
        let (q, end) = Quintic::shaped(x0, v0, t1, Shape::Continuous);
        let (x0, v0, end) = (x0.to_array(), v0.to_array(), end.to_array());
        let (beta, inv_t1) = (q.beta.to_array(), q.inv_t1.to_array());
        for lane in 0..4 {
            let v = v0[lane];
            if end[lane] > 0.0 {
                // x'(0) = β / t1 (the offset term leaves flat): the source's velocity, to f32 precision.
                let start_velocity = beta[lane] as f64 * inv_t1[lane] as f64;
                let tolerance = 1e-6 * v.abs() as f64;
                assert!(
                    (start_velocity - v as f64).abs() <= tolerance,
                    "case {case} lane {lane}: starts at {start_velocity}, source {v}"
                );
            }
        }
        for step in 0..=200 {
            let t = step as f32 * 0.005;
            let got = q.eval(F4::splat(t), Shape::Continuous).to_array();
            for lane in 0..4 {
                let (x, v, g) = (x0[lane], v0[lane], got[lane]);
                let side = if x != 0.0 { x.signum() } else { v.signum() };
                let away = (v * side).max(0.0);
                let bound = x.abs() + (46656.0 / 823543.0) * away * end[lane];
                let rounding = 1e-6 * bound;
                assert!(g * side >= -rounding, "case {case} step {step} lane {lane}: {g} crossed from {x} (v0 {v})");
                assert!(g.abs() <= bound + rounding, "case {case} step {step} lane {lane}: {g} past {bound}");
                if t >= end[lane] {
                    assert_eq!(g, 0.0, "case {case} lane {lane}: exactly 0 from its end on");
                }
            }
        }
    }
}

/// An interruption under the continuous shape starts from the displayed pose with its velocity: the output's
/// velocity across the request frame is the one before it (relative to the new target), to f32 precision.
#[test]
fn continuous_interruption_keeps_the_output_velocity() {
    let settings =
        Settings { channel: ChannelMode::PerComponent, velocity: VelocityMode::Relative, shape: Shape::Continuous };
    let mut memory = vec![0u8; Inertializer::required_bytes(1, 0)];
    let arena = Arena::new(&mut memory);
    let mut inertializer = Inertializer::new(&arena, 1, 0, settings).expect("inertializer");
    let dt = 1.0 / 1000.0;
    // A target moving at 2 units/s along x; cuts to a target at rest elsewhere, then to one moving at -1.
    let at = |x: f32| {
        let t = Transform { translation: Vec3::new(x, 0.0, 0.0), ..Transform::IDENTITY };
        soa(&[t])
    };
    let mut shown = vec![];
    let mut step = |inertializer: &mut Inertializer, pose: Vec<SoaTransform>, previous: Vec<SoaTransform>| {
        let target = Target { pose: &pose, curves: &[], previous: Some((&previous, &[])) };
        InertializationJob { inertializer, dt, target }.run().expect("frame");
        shown.push(inertializer.output().pose[0].translation.x.to_array()[0] as f64);
    };
    for k in 0..5 {
        step(&mut inertializer, at(2.0 * dt * k as f32), at(2.0 * dt * (k as f32 - 1.0)));
    }
    inertializer.request(&Transition { duration: 0.3, profile: None }).expect("request");
    for _ in 0..50 {
        step(&mut inertializer, at(0.5), at(0.5));
    }
    inertializer.request(&Transition { duration: 0.3, profile: None }).expect("interruption");
    for k in 0..5 {
        step(&mut inertializer, at(-0.3 - dt * k as f32), at(-0.3 - dt * (k as f32 - 1.0)));
    }
    // Velocity before and after each request frame (frames 5 and 55): equal to within the curve's
    // acceleration over one frame, far below the jump a clamp or a cut would make.
    for switch in [5, 55] {
        let before = (shown[switch - 1] - shown[switch - 2]) / dt as f64;
        let after = (shown[switch] - shown[switch - 1]) / dt as f64;
        assert!((after - before).abs() < 0.05, "frame {switch}: {before} -> {after}");
    }
}

/// `n` joints of AoS transforms as a SoA pose.
fn soa(pose: &[Transform]) -> Vec<SoaTransform> {
    let mut out = vec![SoaTransform::IDENTITY; num_soa_joints(pose.len())];
    pack_soa(pose, &mut out).unwrap();
    out
}

fn aos(pose: &[SoaTransform], n: usize) -> Vec<Transform> {
    let mut out = vec![Transform::IDENTITY; n];
    unpack_soa(pose, &mut out).unwrap();
    out
}

/// A pose near `base`: every channel moved a little (so velocities are plausible).
fn nudge(rng: &mut Rng, base: &[Transform], amount: f32) -> Vec<Transform> {
    base.iter()
        .map(|t| {
            let d = rng.vec3(-amount, amount);
            let axis = rng.vec3(-1.0, 1.0);
            let turn = Quat::from_axis_angle(normalize(axis), rng.range(-amount, amount));
            let s = rng.vec3(-amount * 0.1, amount * 0.1);
            Transform {
                translation: Vec3::new(t.translation.x + d.x, t.translation.y + d.y, t.translation.z + d.z),
                rotation: (turn * t.rotation).normalize(),
                scale: Vec3::new(t.scale.x + s.x, t.scale.y + s.y, t.scale.z + s.z),
            }
        })
        .collect()
}

fn normalize(v: Vec3) -> Vec3 {
    let len = (v.x * v.x + v.y * v.y + v.z * v.z).sqrt().max(1e-6);
    Vec3::new(v.x / len, v.y / len, v.z / len)
}

fn random_pose(rng: &mut Rng, n: usize) -> Vec<Transform> {
    (0..n)
        .map(|_| Transform { translation: rng.vec3(-1.0, 1.0), rotation: rng.quat(), scale: rng.vec3(0.8, 1.2) })
        .collect()
}

fn wide(q: Quat) -> [f64; 4] {
    [q.x as f64, q.y as f64, q.z as f64, q.w as f64]
}

fn conj(q: [f64; 4]) -> [f64; 4] {
    [-q[0], -q[1], -q[2], q[3]]
}

fn dot4(a: [f64; 4], b: [f64; 4]) -> f64 {
    a.iter().zip(&b).map(|(x, y)| x * y).sum()
}

/// The f64 oracle of one joint's three channel offsets (translation, rotation vector, scale) from source to
/// target, the rotation in `reference`'s hemisphere (shortest arc without one).
fn oracle_offsets(source: &Transform, target: &Transform, reference: Option<[f64; 4]>) -> ([[f64; 3]; 3], [f64; 4]) {
    let sub = |a: Vec3, b: Vec3| [(a.x - b.x) as f64, (a.y - b.y) as f64, (a.z - b.z) as f64];
    let mut q = oracle::quat_mul64(wide(source.rotation), conj(wide(target.rotation)));
    if dot4(q, reference.unwrap_or([0.0, 0.0, 0.0, 1.0])) < 0.0 {
        q = q.map(|c| -c);
    }
    ([sub(source.translation, target.translation), oracle::rotation_vector(q), sub(source.scale, target.scale)], q)
}

/// The f64 oracle of one joint's curve inputs at a request: each channel's offset `x0` from the target at
/// `t = 0` and velocity `v0` (the source's over `dt_history`, minus the target's over `dt` in relative mode),
/// and the rotation offset's quaternion (the hemisphere later offsets are read in).
fn oracle_start(
    [source_prev, source]: [&Transform; 2],
    [target_at_zero, target_now]: [&Transform; 2],
    [dt_history, dt]: [f64; 2],
    relative: bool,
) -> ([[f64; 3]; 3], [[f64; 3]; 3], [f64; 4]) {
    let (x0, reference) = oracle_offsets(source, target_at_zero, None);
    let (x_prev, _) = oracle_offsets(source_prev, target_at_zero, Some(reference));
    let (x_now, _) = oracle_offsets(source, target_now, Some(reference));
    let mut v0 = [[0.0; 3]; 3];
    for c in 0..3 {
        for i in 0..3 {
            v0[c][i] = (x0[c][i] - x_prev[c][i]) / dt_history;
            if relative {
                v0[c][i] -= (x0[c][i] - x_now[c][i]) / dt;
            }
        }
    }
    (x0, v0, reference)
}

/// The three components of one channel's offset at `t`, per the channel mode.
fn oracle_channel(settings: Settings, x0: [f64; 3], v0: [f64; 3], t1: f64, t: f64) -> [f64; 3] {
    let continuous = settings.shape == Shape::Continuous;
    match settings.channel {
        ChannelMode::PerComponent => [0, 1, 2].map(|i| oracle::inertialize_shaped(x0[i], v0[i], t1, t, continuous)),
        ChannelMode::Projected => {
            let len = (x0[0] * x0[0] + x0[1] * x0[1] + x0[2] * x0[2]).sqrt();
            if len == 0.0 {
                return [0.0; 3];
            }
            let dir = x0.map(|c| c / len);
            let speed = v0[0] * dir[0] + v0[1] * dir[1] + v0[2] * dir[2];
            let x = oracle::inertialize_shaped(len, speed, t1, t, continuous);
            dir.map(|d| d * x)
        }
    }
}

/// A transition to run: two source frames, a request of `duration`, then one frame per target.
struct Scenario<'a> {
    sources: [&'a [Transform]; 2],
    source_curves: [&'a [f32]; 2],
    /// The target one frame before the first (read in relative mode).
    target_prev: (&'a [Transform], &'a [f32]),
    targets: &'a [(Vec<Transform>, Vec<f32>)],
    /// The two source frames' steps, then every target frame's.
    dts: [f32; 3],
    duration: f32,
}

/// The outputs of every target frame.
struct Run {
    outputs: Vec<Vec<Transform>>,
    curves: Vec<Vec<f32>>,
}

fn run(settings: Settings, n: usize, scenario: &Scenario<'_>) -> Run {
    let Scenario { sources, source_curves, target_prev, targets, dts, duration } = *scenario;
    let num_curves = source_curves[0].len();
    let mut memory = vec![0u8; Inertializer::required_bytes(n, num_curves)];
    let arena = Arena::new(&mut memory);
    let mut inertializer = Inertializer::new(&arena, n, num_curves, settings).unwrap();
    for (k, (s, c)) in sources.iter().zip(source_curves).enumerate() {
        let pose = soa(s);
        let target = Target { pose: &pose, curves: c, previous: None };
        sinew_tests::inertialize(&mut inertializer, dts[k], &target).unwrap();
    }
    inertializer.request(&Transition { duration, profile: None }).unwrap();
    let prev_pose = soa(target_prev.0);
    let mut result = Run { outputs: vec![], curves: vec![] };
    for (k, (pose, c)) in targets.iter().enumerate() {
        let pose = soa(pose);
        let previous = (k == 0).then_some((&prev_pose[..], target_prev.1));
        let target = Target { pose: &pose, curves: c, previous };
        let out = sinew_tests::inertialize(&mut inertializer, dts[2], &target).unwrap();
        result.outputs.push(aos(out.pose, n));
        result.curves.push(out.curves.to_vec());
    }
    result
}

#[test]
fn inertializer_matches_f64_oracle_in_every_mode() {
    for (m, settings) in MODES.iter().enumerate() {
        for &n in if cfg!(miri) { &[1usize, 5][..] } else { &[1, 5, 67] } {
            let mut rng = Rng::new(4200 + m as u64 * 10 + n as u64);
            let num_curves = 6;
            let source_prev = random_pose(&mut rng, n);
            let source = nudge(&mut rng, &source_prev, 0.05);
            let target_prev = random_pose(&mut rng, n);
            let curves_prev: Vec<f32> = (0..num_curves).map(|_| rng.range(-1.0, 1.0)).collect();
            let curves_now: Vec<f32> = curves_prev.iter().map(|c| c + rng.range(-0.05, 0.05)).collect();
            let target_curves_prev: Vec<f32> = (0..num_curves).map(|_| rng.range(-1.0, 1.0)).collect();
            let mut targets = vec![];
            let (mut pose, mut curves) = (target_prev.clone(), target_curves_prev.clone());
            // Under Miri, frames up to just past the transition's end (0.4 s at 30 Hz is frame 12).
            for _ in 0..if cfg!(miri) { 14 } else { 20 } {
                pose = nudge(&mut rng, &pose, 0.05);
                curves = curves.iter().map(|c| c + rng.range(-0.05, 0.05)).collect();
                targets.push((pose.clone(), curves.clone()));
            }
            let (dt_history, dt, duration) = (1.0 / 60.0, 1.0 / 30.0, 0.4);
            let scenario = Scenario {
                sources: [&source_prev, &source],
                source_curves: [&curves_prev, &curves_now],
                target_prev: (&target_prev, &target_curves_prev),
                targets: &targets,
                dts: [dt_history, dt_history, dt],
                duration,
            };
            let got = run(*settings, n, &scenario);
            let relative = settings.velocity == VelocityMode::Relative;
            for j in 0..n {
                let at_zero = if relative { &target_prev[j] } else { &targets[0].0[j] };
                let dts = [dt_history as f64, dt as f64];
                let (x0, v0, _) =
                    oracle_start([&source_prev[j], &source[j]], [at_zero, &targets[0].0[j]], dts, relative);
                for (k, (target, _)) in targets.iter().enumerate() {
                    let t = dt as f64 * (k + 1) as f64;
                    let off = [0, 1, 2].map(|c| oracle_channel(*settings, x0[c], v0[c], duration as f64, t));
                    let out = &got.outputs[k][j];
                    let tgt = &target[j];
                    let want_t = [tgt.translation.x, tgt.translation.y, tgt.translation.z];
                    let got_t = [out.translation.x, out.translation.y, out.translation.z];
                    let want_s = [tgt.scale.x, tgt.scale.y, tgt.scale.z];
                    let got_s = [out.scale.x, out.scale.y, out.scale.z];
                    for i in 0..3 {
                        let what = format!("{settings:?} n {n} joint {j} frame {k} axis {i}");
                        assert!((got_t[i] as f64 - (want_t[i] as f64 + off[0][i])).abs() < 2e-4, "translation {what}");
                        assert!((got_s[i] as f64 - (want_s[i] as f64 + off[2][i])).abs() < 2e-4, "scale {what}");
                    }
                    let want_q = oracle::quat_mul64(oracle::from_rotation_vector(off[1]), wide(tgt.rotation));
                    let got_q = wide(out.rotation);
                    // Within 2e-5 rad: velocities divide f32 rotation offsets by dt.
                    let align = dot4(want_q, got_q).abs() / (dot4(want_q, want_q) * dot4(got_q, got_q)).sqrt();
                    assert!(
                        1.0 - align < 5e-11,
                        "rotation {settings:?} n {n} joint {j} frame {k}: {got_q:?} vs {want_q:?}"
                    );
                    assert!((dot4(got_q, got_q) - 1.0).abs() < 2e-6, "unit rotation out");
                }
            }
            // Scalar curves: per-component always.
            for i in 0..num_curves {
                let at_zero = if relative { target_curves_prev[i] } else { targets[0].1[i] } as f64;
                let x0 = curves_now[i] as f64 - at_zero;
                let mut v0 = (curves_now[i] - curves_prev[i]) as f64 / dt_history as f64;
                if relative {
                    v0 -= (targets[0].1[i] as f64 - at_zero) / dt as f64;
                }
                for (k, (_, target)) in targets.iter().enumerate() {
                    let t = dt as f64 * (k + 1) as f64;
                    let continuous = settings.shape == Shape::Continuous;
                    let want = target[i] as f64 + oracle::inertialize_shaped(x0, v0, duration as f64, t, continuous);
                    assert!((got.curves[k][i] as f64 - want).abs() < 2e-4, "curve {i} frame {k}");
                }
            }
        }
    }
}

/// The continuous shape's guarantees on real cuts (Bandai mocap at 30 Hz, 0.2 s and 0.4 s, a source moving
/// every way a body does): per local DOF, the offset from the target never changes sign and never grows past
/// `|x0| + 6⁶/7⁷ · v0 · t1` for a velocity moving away. `x0` and `v0` come from the f64 oracle of the request's
/// inputs, and the offsets are read off the inertializer's output frame by frame.
#[test]
fn continuous_shape_keeps_sign_and_growth_bound_on_real_cuts() {
    use sinew_tools::cuts;
    use sinew_tools::sample::sample_clamped;
    let Some(dir) = sinew_tests::shared_data("continuous_shape_keeps_sign_and_growth_bound_on_real_cuts") else {
        return;
    };
    let files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
    let clips = cuts::Clips::from_bvh(&files).unwrap();
    let asset = clips.asset().unwrap();
    let skeleton = asset.skeleton();
    let n = skeleton.num_joints();
    let settings = MODES[4];
    assert_eq!(settings.shape, Shape::Continuous);
    let growth = 46656.0 / 823543.0;
    let dt = clips.dt;
    let mut context_memory = vec![0u8; sinew::SamplingContext::required_bytes(n)];
    let context_arena = Arena::new(&mut context_memory);
    let mut context = sinew::SamplingContext::new(&context_arena, n).unwrap();
    let mut local = vec![SoaTransform::IDENTITY; num_soa_joints(n)];
    let mut pose_at = |clip: usize, time: f32| {
        let clip = asset.clip(clip).unwrap();
        sample_clamped(skeleton, &clip, time, &mut context, &mut local).unwrap();
        aos(&local, n)
    };
    let (mut checked, mut receding, mut closest) = (0usize, 0usize, 0.0f64);
    for duration in [0.2f32, 0.4] {
        for cut in cuts::seeded_cuts(&asset, dt, duration, 40, 31) {
            let sources = [pose_at(cut.a, cut.ta - dt), pose_at(cut.a, cut.ta)];
            let target_prev = pose_at(cut.b, cut.tb);
            let frames = (duration / dt).ceil() as usize + 2;
            let targets: Vec<_> = (1..=frames).map(|k| (pose_at(cut.b, cut.tb + k as f32 * dt), vec![])).collect();
            let scenario = Scenario {
                sources: [&sources[0], &sources[1]],
                source_curves: [&[], &[]],
                target_prev: (&target_prev, &[]),
                targets: &targets,
                dts: [dt; 3],
                duration,
            };
            let got = run(settings, n, &scenario);
            for j in 0..n {
                let ends = [&target_prev[j], &targets[0].0[j]];
                let (x0, v0, reference) = oracle_start([&sources[0][j], &sources[1][j]], ends, [dt as f64; 2], true);
                for (k, (target, _)) in targets.iter().enumerate() {
                    let (offset, _) = oracle_offsets(&got.outputs[k][j], &target[j], Some(reference));
                    for (c, i) in (0..3).flat_map(|c| (0..3).map(move |i| (c, i))) {
                        let (x, v, now) = (x0[c][i], v0[c][i], offset[c][i]);
                        let side = if x != 0.0 { x.signum() } else { v.signum() };
                        let away = (v * side).max(0.0);
                        let bound = x.abs() + growth * away * duration as f64;
                        // f32 output and its f64 reading: translations in cm, rotations in rad.
                        let rounding = 2e-5 * (1.0 + bound);
                        let what = format!("cut {cut:?} joint {j} channel {c} axis {i} frame {k}: x0 {x} v0 {v}");
                        assert!(now * side >= -rounding, "{what}: crossed to {now}");
                        assert!(now.abs() <= bound + rounding, "{what}: {now} past {bound}");
                        checked += (x != 0.0) as usize;
                        if away > 0.0 && x != 0.0 {
                            receding += 1;
                            closest = closest.max((now.abs() - x.abs()) / (growth * away * duration as f64));
                        }
                    }
                }
            }
        }
    }
    // The cuts exercise the bound: many offsets recede, and some come near it.
    assert!(checked > 10_000 && receding > 1000, "{checked} offsets checked, {receding} receding");
    assert!(closest > 0.9, "largest growth {closest:.2} of the bound");
}

/// An inertializer for `n` joints and `c` curves over its own memory.
struct Fixture {
    memory: Vec<u8>,
    n: usize,
    c: usize,
}

impl Fixture {
    fn new(n: usize, c: usize) -> Fixture {
        Fixture { memory: vec![0u8; Inertializer::required_bytes(n, c)], n, c }
    }
}

/// Translations only: joint j at `(x_j, 0, 0)`, identity rotation, unit scale.
fn along_x(xs: &[f32]) -> Vec<SoaTransform> {
    soa(&xs
        .iter()
        .map(|&x| Transform { translation: Vec3::new(x, 0.0, 0.0), ..Transform::IDENTITY })
        .collect::<Vec<_>>())
}

fn x_of(pose: &[SoaTransform], n: usize) -> Vec<f32> {
    aos(pose, n).iter().map(|t| t.translation.x).collect()
}

fn step(i: &mut Inertializer, dt: f32, pose: &[SoaTransform], previous: Option<&[SoaTransform]>) -> Vec<SoaTransform> {
    let target = Target { pose, curves: &[], previous: previous.map(|p| (p, &[][..])) };
    sinew_tests::inertialize(i, dt, &target).unwrap().pose.to_vec()
}

const ABSOLUTE: Settings =
    Settings { channel: ChannelMode::PerComponent, velocity: VelocityMode::Absolute, shape: Shape::Clamped };

#[test]
fn first_frame_and_zero_dt_are_defined() {
    let mut f = Fixture::new(3, 0);
    let arena = Arena::new(&mut f.memory);
    let mut i = Inertializer::new(&arena, f.n, f.c, Settings::default()).unwrap();
    // A request with no history: nothing to start from, the output is the target.
    i.request(&Transition { duration: 0.3, profile: None }).unwrap();
    let target = along_x(&[1.0, 2.0, 3.0]);
    let out = step(&mut i, 1.0 / 60.0, &target, Some(&target));
    assert_eq!(out, target);
    assert!(!i.is_transitioning());
    // dt = 0 on a request frame: zero target velocity, output exactly the last output.
    i.request(&Transition { duration: 0.3, profile: None }).unwrap();
    let other = along_x(&[5.0, 5.0, 5.0]);
    let out = step(&mut i, 0.0, &other, Some(&other));
    assert_eq!(x_of(&out, 3), [1.0, 2.0, 3.0]);
    // One history frame only before a request: zero source velocity, still finite.
    i.reset();
    step(&mut i, 1.0 / 60.0, &target, None);
    i.request(&Transition { duration: 0.3, profile: None }).unwrap();
    let out = step(&mut i, 1.0 / 60.0, &other, Some(&other));
    assert!(x_of(&out, 3).iter().all(|x| x.is_finite() && *x > 1.0 && *x < 5.0));
}

#[test]
fn transition_ends_exactly_on_target_and_shortest_request_wins() {
    let mut f = Fixture::new(2, 0);
    let arena = Arena::new(&mut f.memory);
    let mut i = Inertializer::new(&arena, f.n, f.c, ABSOLUTE).unwrap();
    let dt = 0.01;
    let source = along_x(&[0.0, 0.0]);
    step(&mut i, dt, &source, None);
    step(&mut i, dt, &source, None);
    i.request(&Transition { duration: 0.5, profile: None }).unwrap();
    i.request(&Transition { duration: 0.2, profile: None }).unwrap();
    i.request(&Transition { duration: 0.9, profile: None }).unwrap();
    let target = along_x(&[1.0, -1.0]);
    let mut last = [0.0, 0.0];
    for frame in 1..=30 {
        let out = x_of(&step(&mut i, dt, &target, None), 2);
        // Monotonic towards the target, never past it.
        assert!(out[0] >= last[0] && out[0] <= 1.0 && out[1] <= last[1] && out[1] >= -1.0, "{frame}: {out:?}");
        // Elapsed time is a running f32 sum, so the frame at exactly 0.2 may land on either side.
        if frame as f32 * dt >= 0.2 + 1e-6 {
            assert_eq!(out, [1.0, -1.0], "frame {frame}: exactly the target after the shortest duration");
        } else if frame as f32 * dt < 0.2 - 1e-3 {
            assert!(out[0] < 1.0, "frame {frame}: {out:?}");
        }
        last = [out[0], out[1]];
    }
    assert!(!i.is_transitioning());
}

#[test]
fn duration_profile_finishes_joints_at_their_own_time() {
    let mut f = Fixture::new(5, 0);
    let arena = Arena::new(&mut f.memory);
    let mut i = Inertializer::new(&arena, f.n, f.c, ABSOLUTE).unwrap();
    let dt = 0.01;
    let source = along_x(&[0.0; 5]);
    step(&mut i, dt, &source, None);
    step(&mut i, dt, &source, None);
    // Joints 1 and 4 ("fingers") at half the duration.
    let profile = [F4::new(1.0, 0.5, 1.0, 1.0), F4::new(0.5, 0.0, 0.0, 0.0)];
    i.request(&Transition { duration: 0.4, profile: Some(&profile) }).unwrap();
    let target = along_x(&[1.0; 5]);
    for frame in 1..=25 {
        let out = x_of(&step(&mut i, dt, &target, None), 5);
        if frame >= 21 {
            assert_eq!(out[1], 1.0);
            assert_eq!(out[4], 1.0);
            assert!(out[0] < 1.0 && out[2] < 1.0 && out[3] < 1.0, "frame {frame}: {out:?}");
        }
    }
}

#[test]
fn interruption_starts_from_the_displayed_output() {
    let mut f = Fixture::new(1, 0);
    let arena = Arena::new(&mut f.memory);
    let mut i = Inertializer::new(&arena, f.n, f.c, Settings::default()).unwrap();
    let dt = 1.0 / 60.0;
    let a = along_x(&[0.0]);
    let b = along_x(&[1.0]);
    let c = along_x(&[-2.0]);
    step(&mut i, dt, &a, None);
    step(&mut i, dt, &a, None);
    i.request(&Transition { duration: 0.5, profile: None }).unwrap();
    let mut shown = vec![0.0];
    // Static targets: each is its own previous pose.
    for _ in 0..10 {
        shown.push(x_of(&step(&mut i, dt, &b, Some(&b)), 1)[0]);
    }
    // Mid-flight to c: the next output continues from what was shown, no pop.
    i.request(&Transition { duration: 0.5, profile: None }).unwrap();
    let next = x_of(&step(&mut i, dt, &c, Some(&c)), 1)[0];
    let last = shown[shown.len() - 1];
    let speed = (last - shown[shown.len() - 2]) / dt;
    // The source moves away from c, so the clamp drops its velocity: the output holds still (it may not
    // continue past the source), and in no case jumps further than one frame at the previous speed.
    assert!((next - last).abs() <= speed.abs() * dt, "shown {shown:?} then {next}");
    assert!((next - last).abs() < 0.01 * (last + 2.0), "no pop towards c: {last} then {next}");
}

#[test]
fn relative_mode_keeps_the_source_velocity_at_the_switch() {
    // Source moving at +1 unit/s towards a target far ahead moving at +3 units/s: the relative offset
    // velocity (−2) heads to the target, so the clamp does not fire and the output keeps +1 unit/s.
    for (settings, continuous) in [(Settings::default(), true), (ABSOLUTE, false)] {
        let mut f = Fixture::new(1, 0);
        let arena = Arena::new(&mut f.memory);
        let mut i = Inertializer::new(&arena, f.n, f.c, settings).unwrap();
        let dt = 1.0 / 120.0;
        step(&mut i, dt, &along_x(&[0.0]), None);
        step(&mut i, dt, &along_x(&[dt]), None);
        i.request(&Transition { duration: 0.5, profile: None }).unwrap();
        let (t_prev, t_now) = (along_x(&[-1.0]), along_x(&[-1.0 + 3.0 * dt]));
        let out = x_of(&step(&mut i, dt, &t_now, Some(&t_prev)), 1)[0];
        let velocity = (out - dt) / dt;
        if continuous {
            assert!((velocity - 1.0).abs() < 0.02, "relative: {velocity}");
        } else {
            // Absolute mode adds the target's own motion on top of the source velocity.
            assert!((velocity - 1.0).abs() > 0.5, "absolute: {velocity}");
        }
    }
}

/// A target that is non-finite in any one lane group while a transition is in flight (both halves of a pair,
/// and the last group of an odd count, whose pair is padded) is reported by its group, leaves the last output
/// in place, and the next good frame continues the transition from it.
#[test]
fn a_non_finite_target_mid_transition_names_its_group() {
    for shape in [Shape::Clamped, Shape::Continuous] {
        let settings = Settings { shape, ..Settings::default() };
        // Ten joints: three lane groups, so the second pair is the last group and its padding.
        let xs: Vec<f32> = (0..10).map(|j| j as f32).collect();
        let (walk, run) = (along_x(&xs), along_x(&xs.iter().map(|x| x + 2.0).collect::<Vec<_>>()));
        for group in 0..3 {
            let mut f = Fixture::new(10, 0);
            let arena = Arena::new(&mut f.memory);
            let mut i = Inertializer::new(&arena, f.n, f.c, settings).unwrap();
            step(&mut i, 0.1, &walk, Some(&walk));
            step(&mut i, 0.1, &walk, Some(&walk));
            i.request(&Transition { duration: 1.0, profile: None }).unwrap();
            step(&mut i, 0.1, &run, Some(&run));
            assert!(i.is_transitioning());
            let last = i.output().pose.to_vec();
            let mut bad = run.clone();
            bad[group].rotation.z = F4::new(0.0, 0.0, f32::INFINITY, 0.0);
            let target = Target { pose: &bad, curves: &[], previous: Some((&run, &[])) };
            assert_eq!(
                sinew_tests::inertialize(&mut i, 0.1, &target),
                Err(Error::NonFinite { buffer: Buffer::SoaPose, index: group }),
                "{shape:?}, group {group}"
            );
            assert_eq!(i.output().pose, &last[..], "{shape:?}, group {group}: the last output stays");
            let next = x_of(&step(&mut i, 0.1, &run, Some(&run)), 10);
            let before = x_of(&last, 10);
            assert!(
                next.iter().zip(&before).zip(&xs).all(|((n, b), x)| *n > *b && *n < x + 2.0),
                "{shape:?}, group {group}: {next:?} continues from {before:?}"
            );
        }
    }
}

#[test]
fn errors_leave_the_inertializer_usable() {
    let mut f = Fixture::new(5, 2);
    let arena = Arena::new(&mut f.memory);
    let mut i = Inertializer::new(&arena, f.n, f.c, Settings::default()).unwrap();
    let good = along_x(&[1.0; 5]);
    let target = Target { pose: &good, curves: &[0.0, 1.0], previous: Some((&good, &[0.0, 1.0])) };

    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY, 1e-9] {
        assert_eq!(
            i.request(&Transition { duration: bad, profile: None }),
            Err(Error::InvalidDuration { joint: None })
        );
    }
    assert_eq!(
        i.request(&Transition { duration: 0.2, profile: Some(&[F4::ONE]) }),
        Err(Error::BufferLength { buffer: Buffer::DurationProfile, expected: 2, actual: 1 })
    );
    let profile = [F4::ONE, F4::new(1.0, f32::NAN, f32::NAN, f32::NAN)];
    assert_eq!(i.request(&Transition { duration: 0.2, profile: Some(&profile) }), Ok(()), "padding lanes ignored");
    let profile = [F4::new(1.0, 1.0, -1.0, 1.0), F4::ONE];
    assert_eq!(
        i.request(&Transition { duration: 0.2, profile: Some(&profile) }),
        Err(Error::InvalidDuration { joint: Some(2) })
    );

    for dt in [-0.1, f32::NAN, f32::INFINITY] {
        assert_eq!(sinew_tests::inertialize(&mut i, dt, &target), Err(Error::InvalidTimeStep));
    }
    let short = Target { pose: &good[..1], ..target };
    assert_eq!(
        sinew_tests::inertialize(&mut i, 0.1, &short),
        Err(Error::BufferLength { buffer: Buffer::SoaPose, expected: 2, actual: 1 })
    );
    assert_eq!(
        sinew_tests::inertialize(&mut i, 0.1, &Target { curves: &[0.0], ..target }),
        Err(Error::BufferLength { buffer: Buffer::Curves, expected: 2, actual: 1 })
    );
    assert_eq!(
        sinew_tests::inertialize(&mut i, 0.1, &Target { previous: None, ..target }),
        Err(Error::MissingPreviousTarget)
    );
    let mut nan = good.clone();
    nan[1].translation.y = F4::new(0.0, f32::NAN, 0.0, 0.0);
    assert_eq!(
        sinew_tests::inertialize(&mut i, 0.1, &Target { pose: &nan, ..target }),
        Err(Error::NonFinite { buffer: Buffer::SoaPose, index: 1 })
    );
    let mut zero = good.clone();
    zero[0].rotation.w = F4::new(1.0, 1.0, 0.0, 1.0);
    assert_eq!(
        sinew_tests::inertialize(&mut i, 0.1, &Target { pose: &zero, ..target }),
        Err(Error::ZeroQuaternion { buffer: Buffer::SoaPose, index: 0 })
    );
    assert_eq!(
        sinew_tests::inertialize(&mut i, 0.1, &Target { curves: &[0.0, f32::NAN], ..target }),
        Err(Error::NonFinite { buffer: Buffer::Curves, index: 1 })
    );
    // The request is still pending after all that; a good frame consumes it.
    let before = sinew_tests::inertialize(&mut i, 0.1, &target).unwrap().pose.to_vec();
    assert_eq!(
        sinew_tests::inertialize(&mut i, 0.1, &Target { pose: &nan, previous: None, ..target }),
        Err(Error::NonFinite { buffer: Buffer::SoaPose, index: 1 })
    );
    // Same target, no transition in flight after the first frame's zero offsets: the same output.
    assert_eq!(sinew_tests::inertialize(&mut i, 0.1, &Target { previous: None, ..target }).unwrap().pose, &before[..]);
    // Had the NaN frame been recorded, a transition would start from it and fail.
    let elsewhere = along_x(&[3.0; 5]);
    i.request(&Transition { duration: 0.2, profile: None }).unwrap();
    let out = sinew_tests::inertialize(
        &mut i,
        0.1,
        &Target { pose: &elsewhere, previous: Some((&elsewhere, &[0.0, 1.0])), ..target },
    )
    .unwrap();
    assert!(x_of(out.pose, 5).iter().all(|x| *x > 1.0 && *x < 3.0), "{:?}", x_of(out.pose, 5));

    let mut small = [0u8; 64];
    let small_arena = Arena::new(&mut small);
    assert!(matches!(Inertializer::new(&small_arena, 5, 0, Settings::default()), Err(Error::ArenaExhausted { .. })));
    let arena2 = Arena::new(&mut small);
    assert_eq!(
        Inertializer::new(&arena2, 0, 0, Settings::default()).unwrap_err(),
        Error::JointCount { count: 0, max: 1024 }
    );
}

/// The same transition on every build (SSE2, x86-64-v3, scalar, NEON, wasm32 SIMD128) agrees within the documented bounds:
/// each build writes its outputs under `target/cross-build`, keyed by a hash of the core's sources, and
/// compares them with what the other builds of the same sources wrote. `cargo xtask ci` runs the SIMD, scalar
/// and x86-64-v3 suites in turn, so the later builds check against the earlier ones.
#[test]
fn builds_agree_within_the_documented_bounds() {
    if cfg!(miri) {
        eprintln!("builds_agree_within_the_documented_bounds: skipped under Miri (file I/O)");
        return;
    }
    let mut rng = Rng::new(4300);
    let n = 67;
    let a = random_pose(&mut rng, n);
    let a2 = nudge(&mut rng, &a, 0.05);
    let b = random_pose(&mut rng, n);
    let targets: Vec<(Vec<Transform>, Vec<f32>)> = (0..30).map(|_| (nudge(&mut rng, &b, 0.05), vec![])).collect();
    let scenario = Scenario {
        sources: [&a, &a2],
        source_curves: [&[], &[]],
        target_prev: (&b, &[]),
        targets: &targets,
        dts: [0.016; 3],
        duration: 0.3,
    };
    let values: Vec<f32> = MODES
        .iter()
        .flat_map(|&settings| run(settings, n, &scenario).outputs)
        .flatten()
        .flat_map(|t| {
            let q = if t.rotation.w < 0.0 { -1.0 } else { 1.0 };
            let (p, r, s) = (t.translation, t.rotation, t.scale);
            [p.x, p.y, p.z, q * r.x, q * r.y, q * r.z, q * r.w, s.x, s.y, s.z]
        })
        .collect();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let sources = sinew_tests::files_with_extension(&root.join("core/src"), "rs");
    let mut hasher = std::hash::DefaultHasher::new();
    // Lengths as u64 and bytes as bytes: `Hash` for a `Vec` writes a `usize` length, which would give wasm32
    // builds (4-byte `usize`) another key for the same sources.
    for path in &sources {
        let bytes = std::fs::read(path).expect("core source");
        std::hash::Hasher::write_u64(&mut hasher, bytes.len() as u64);
        std::hash::Hasher::write(&mut hasher, &bytes);
    }
    let key = std::hash::Hasher::finish(&hasher);
    let dir = root.join("target/cross-build");
    std::fs::create_dir_all(&dir).expect("cross-build dir");
    let own = format!("inertialization-{key:016x}-{}.bin", sinew::math::lane::BACKEND);
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join(&own), &bytes).expect("write outputs");
    let prefix = format!("inertialization-{key:016x}-");
    for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(&prefix) || name == own {
            continue;
        }
        let other: Vec<f32> = std::fs::read(entry.path())
            .expect("read")
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(other.len(), values.len(), "{name}");
        // Rotations are unit within 1e-6 and their rotation vectors within 5e-7 rad on every build; positions
        // and scales follow the same curves in f32, whose order of operations may differ by backend.
        let worst =
            values.iter().zip(&other).map(|(x, y)| ((x - y).abs() / x.abs().max(1.0)) as f64).fold(0.0, f64::max);
        eprintln!("{own} vs {name}: worst relative difference {worst:.2e}");
        assert!(worst <= 4e-6, "{own} vs {name}: {worst:e}");
    }
}

#[test]
fn settings_codes_round_trip_and_refuse_what_no_setting_has() {
    let mut seen = [false; 8];
    for channel in [ChannelMode::Projected, ChannelMode::PerComponent] {
        for velocity in [VelocityMode::Absolute, VelocityMode::Relative] {
            for shape in [Shape::Clamped, Shape::Continuous] {
                let settings = Settings { channel, velocity, shape };
                let code = settings.code();
                assert!(code < 8 && !seen[code as usize], "{settings:?} -> {code}");
                seen[code as usize] = true;
                assert_eq!(Settings::from_code(code), Some(settings));
            }
        }
    }
    assert_eq!(Settings::from_code(8), None);
    assert_eq!(Settings::from_code(u32::MAX), None);
}
