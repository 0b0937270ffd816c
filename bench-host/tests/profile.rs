//! The profiler runs end to end on a tiny crowd and reports every stage with its baseline.

use sinew_bench_host::profile::{Config, json, run, table};
use sinew_bench_host::workload::Keys;

#[test]
fn profile_reports_every_stage() {
    let config = Config { joints: vec![22, 67], characters: 3, frames: 2, threads: 2, ..Config::default() };
    let (reports, peaks) = run(&config).expect("generated rigs run without errors");
    assert!(peaks.flops_per_ns > 0.0 && peaks.l1_bytes_per_ns > 0.0 && peaks.l2_bytes_per_ns > 0.0);
    assert_eq!(reports.len(), 2);
    for r in &reports {
        let stages: Vec<&str> = r.stages.iter().map(|s| s.stage).collect();
        assert_eq!(
            stages,
            [
                "sampling",
                "local_to_model",
                "skinning_matrices_3x4",
                "frame_total",
                "source_sampling",
                "blend_2_layers",
                "inertialization",
                "inertialization_continuous"
            ]
        );
        assert!(r.transition.crossfade_us > 0.0 && r.transition.inertialized_us > 0.0);
        assert_eq!(r.baseline.len(), r.stages.len());
        let threads: Vec<usize> = r.scaling.iter().map(|s| s.threads).collect();
        assert_eq!(threads, [1, 2]);
        assert!(r.scaling.iter().all(|s| s.us_per_frame > 0.0 && s.characters_per_ms > 0.0));
        for single in [&r.cold, &r.warm] {
            let stages: Vec<&str> = single.iter().map(|s| s.stage).collect();
            assert_eq!(stages, ["sampling", "local_to_model", "skinning_matrices_3x4", "frame_total"]);
        }
        for s in r.stages.iter().chain(&r.cold).chain(&r.warm) {
            // A bound is shown only when the stage does not beat it.
            match s.lower_bound_ns_per_joint {
                Some(b) => assert!(b > 0.0 && b <= s.ns_per_joint, "{}: bound {b} above {}", s.stage, s.ns_per_joint),
                None => assert!(s.bound_withheld, "{} has no lower bound", s.stage),
            }
            // What sets the bound is named exactly when there is one; a sum of stages says so.
            let expected: &[&str] = if s.stage == "frame_total" { &["stages"] } else { &["compute", "L1", "L2"] };
            match s.bound_by {
                Some(by) => {
                    assert!(expected.contains(&by) && s.lower_bound_ns_per_joint.is_some(), "{}: {by}", s.stage)
                }
                None => assert!(s.lower_bound_ns_per_joint.is_none(), "{}: a bound set by nothing", s.stage),
            }
            assert!(s.us_per_character > 0.0 && s.ns_per_joint > 0.0);
            assert!(s.bytes_per_character >= r.joints * 64, "model matrices alone are 64 B per joint");
        }
    }
    let text = table(&reports, &peaks);
    assert!(text.contains("bound ns/j") && text.contains("cold") && text.contains("2 thread(s)"));
    assert!(text.contains("local_to_model") && text.contains("67 joints"));
    let j = json(&reports, &peaks);
    let first = &j["rigs"][0]["stages"][0];
    assert!(first["lower_bound_ns_per_joint"].as_f64().is_some() || first["bound_withheld"] == true);
    assert_eq!(first["bound_by"].as_str(), reports[0].stages[0].bound_by);
    assert_eq!(j["rigs"][0]["threads"][1]["threads"], 2);
    assert_eq!(j["rigs"][1]["joints"], 67);
    assert_eq!(j["rigs"][0]["stages"][1]["stage"], "local_to_model");
    assert!(j["rigs"][0]["transition"]["ratio"].as_f64().is_some_and(|r| r > 0.0));
    assert!(text.contains("Gears of War 4 team published 12 µs vs 30 µs on Xbox One"));
    assert!(!text.contains("seed 001"));
}

/// `--keys` bakes every workload's clip as asked: compressed clips sample through contexts that keep their
/// segment's decoders (more bytes per character), and the report names the keys.
#[test]
fn profile_bakes_the_keys_it_is_asked_for() {
    let bytes = |keys: Keys| {
        let config = Config { joints: vec![22], characters: 2, frames: 2, keys, ..Config::default() };
        let (reports, _) = run(&config).expect("generated rigs run without errors");
        let sampling = reports[0].stages.iter().find(|s| s.stage == "sampling").expect("a sampling stage");
        (reports[0].rig.clone(), sampling.bytes_per_character, reports[0].runtime.bytes_per_character)
    };
    let (f32_name, f32_bytes, f32_block) = bytes(Keys::F32);
    let (quantized_name, quantized_bytes, quantized_block) = bytes(Keys::Quantized);
    let (compressed_name, compressed_bytes, compressed_block) = bytes(Keys::Compressed);
    assert_eq!((f32_name.as_str(), quantized_name.as_str()), ("humanoid-22", "humanoid-22 (quantized)"));
    assert_eq!(compressed_name, "humanoid-22 (compressed)");
    assert_eq!(quantized_bytes, f32_bytes);
    assert!(compressed_bytes > f32_bytes, "{compressed_bytes} bytes: no decoders kept");
    // The runtime crowd's characters keep a context per control for compressed clips, and none otherwise.
    assert_eq!(quantized_block, f32_block);
    assert!(compressed_block > f32_block, "{compressed_block} bytes a character: no contexts kept");
}

/// The calibration's figures lie in the plausible range on this machine, and a calibration with an L1 copy
/// rate below L2's (what `memcpy` timing gave) is refused.
#[test]
fn machine_calibration_is_plausible() {
    let peaks = sinew_bench_host::machine::Peaks::measure();
    eprintln!("calibration: {peaks:?}");
    peaks.check_plausible().expect("calibration");
    assert!(peaks.l1_bytes_per_ns >= peaks.l2_bytes_per_ns);
    let broken = sinew_bench_host::machine::Peaks { l1_bytes_per_ns: 3.0, l2_bytes_per_ns: 41.0, ..peaks };
    assert!(broken.check_plausible().is_err());
    let absurd = sinew_bench_host::machine::Peaks { flops_per_ns: 1e6, ..peaks };
    assert!(absurd.check_plausible().is_err());
}

/// The bound names what sets it: the copy rate of L1 while half of L1 holds the stage's working set, of L2
/// beyond, and the multiply-adds when they take longer; each bound is the larger of the two times.
#[test]
fn lower_bounds_name_what_sets_them() {
    use sinew_bench_host::machine::{Peaks, STAGE_MODELS};
    let peaks = Peaks {
        flops_per_ns: 1000.0,
        l1_bytes_per_ns: 200.0,
        l2_bytes_per_ns: 50.0,
        l1_bytes: 48 << 10,
        llc_bytes: 32 << 20,
    };
    let model = STAGE_MODELS.iter().find(|m| m.stage == "inertialization").unwrap();
    let half_l1_joints = (24 << 10) / model.bytes as usize;
    let (small, large) = (half_l1_joints, half_l1_joints + 1);
    assert_eq!(peaks.lower_bound("inertialization", small), Some((model.bytes / 200.0, "L1")));
    assert_eq!(peaks.lower_bound("inertialization", large), Some((model.bytes / 50.0, "L2")));
    let slow_arithmetic = Peaks { flops_per_ns: 0.5, ..peaks };
    assert_eq!(slow_arithmetic.lower_bound("inertialization", large), Some((model.flops / 0.5, "compute")));
    assert_eq!(peaks.lower_bound("no such stage", small), None);
}

/// The naive baseline's velocity-continuous curve is the shape sinew evaluates: against the formula in f64
/// and against `Quintic` of `Shape::Continuous`, at rest and moving away.
#[test]
fn naive_continuous_curve_is_the_shape_sinew_evaluates() {
    use sinew::inertialization::{Quintic, Shape};
    use sinew::math::F4;
    use sinew_bench_host::naive::AosContinuousCurve;
    for (x0, v0, t1) in [(0.3f32, 0.0f32, 0.5f32), (0.25, 0.4, 0.3), (-0.7, 0.0, 0.2)] {
        let naive = AosContinuousCurve::new(x0, v0, t1);
        let (curve, _) = Quintic::shaped(F4::splat(x0), F4::splat(v0), F4::splat(t1), Shape::Continuous);
        for k in 0..=12 {
            let t = k as f32 * t1 / 10.0;
            let tau = (f64::from(t) / f64::from(t1)).min(1.0);
            let formula = f64::from(x0) * (1.0 - 15.0 * tau.powi(4) + 24.0 * tau.powi(5) - 10.0 * tau.powi(6))
                + f64::from(v0) * f64::from(t1) * tau * (1.0 - tau).powi(6);
            let at = naive.eval(t);
            assert!((f64::from(at) - formula).abs() < 1e-6, "naive {at} against {formula} at {t} s");
            let sinew = curve.eval(F4::splat(t), Shape::Continuous).to_array()[0];
            assert!((at - sinew).abs() < 1e-5, "naive {at} against sinew {sinew} at {t} s ({x0}, {v0}, {t1})");
        }
    }
}
