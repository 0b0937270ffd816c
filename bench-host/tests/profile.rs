//! The profiler runs end to end on a tiny crowd and reports every stage with its baseline.

use sinew_bench_host::profile::{Config, json, run, table};

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
                "inertialization"
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
            assert!(s.lower_bound_ns_per_joint.is_some_and(|b| b > 0.0), "{} has no lower bound", s.stage);
            assert!(s.us_per_character > 0.0 && s.ns_per_joint > 0.0);
            assert!(s.bytes_per_character >= r.joints * 64, "model matrices alone are 64 B per joint");
        }
    }
    let text = table(&reports, &peaks);
    assert!(text.contains("bound ns/j") && text.contains("cold") && text.contains("2 thread(s)"));
    assert!(text.contains("local_to_model") && text.contains("67 joints"));
    let j = json(&reports, &peaks);
    assert!(j["rigs"][0]["stages"][0]["lower_bound_ns_per_joint"].as_f64().is_some());
    assert_eq!(j["rigs"][0]["threads"][1]["threads"], 2);
    assert_eq!(j["rigs"][1]["joints"], 67);
    assert_eq!(j["rigs"][0]["stages"][1]["stage"], "local_to_model");
    assert!(j["rigs"][0]["transition"]["ratio"].as_f64().is_some_and(|r| r > 0.0));
    assert!(text.contains("Gears of War 4"));
}
