//! `sinew-bench matching` on the shared Bandai walk and run: the JSON contract's fields, every search exact, the
//! character following a straight stick better than standing still, the sliding measure reading the clip's own
//! plants when nothing jumps, the SVG, and bad input refused.

use sinew_bench_host::matching::{MatchingOptions, Path, matching_json, path_svg, run_matching};

fn bandai(test: &str) -> Option<Vec<std::path::PathBuf>> {
    let dir = sinew_tools::shared_data_for_test(test)?.join("bvh/bandai");
    Some(["dataset-1_walk_normal_001.bvh", "dataset-2_run_normal_001.bvh"].map(|f| dir.join(f)).to_vec())
}

#[test]
fn a_scripted_run_is_exact_and_follows_the_stick() {
    let Some(files) = bandai("a_scripted_run") else { return };
    for path in [Path::StopStart, Path::Circle, Path::Zigzag, Path::Strafe] {
        let run = run_matching(&files, path, MatchingOptions { seconds: 6.0, ..MatchingOptions::default() }).unwrap();
        let json = matching_json(&run);
        let summary = &json["summary"];
        for field in [
            "frames",
            "matches_per_s",
            "cost_mean",
            "cost_p95",
            "path_error_cm_median",
            "path_error_cm_p95",
            "slide_cm_per_s_mean",
            "search_ns_median",
        ] {
            assert!(summary[field].as_f64().is_some_and(f64::is_finite), "{path:?}: {field} in {summary}");
        }
        assert_eq!(summary["exact"], true, "{path:?}: a search disagreed with the brute force");
        assert_eq!(summary["frames"], 360);
        let frame = &json["frames"][100];
        assert!(frame["desired"][1].is_f64() && frame["root"][0].is_f64() && frame["clip"].is_u64(), "{frame}");
        if path == Path::StopStart {
            // Along a straight stick the character ends nearer where it is asked to be than standing still would.
            let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&files).unwrap();
            let per_cm = sinew_tools::annotate::figure_scale(&skeleton, &clips).units_per_cm();
            let mut still: Vec<f64> = run
                .frames
                .windows(61)
                .map(|w| {
                    let (a, b) = (w[0].desired, w[60].desired);
                    f64::from(((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt()) / per_cm
                })
                .collect();
            still.sort_by(f64::total_cmp);
            let standing = still[still.len() / 2];
            assert!(run.summary.path_error_cm_median < standing, "{} vs {standing}", run.summary.path_error_cm_median);
        }
    }
}

#[test]
fn without_jumps_the_feet_slide_as_little_as_the_clip_does() {
    let Some(files) = bandai("without_jumps") else { return };
    let options = MatchingOptions { seconds: 4.0, continuing_bias: 1e9, ..MatchingOptions::default() };
    let run = run_matching(&files, Path::StopStart, options).unwrap();
    assert_eq!(run.summary.matches_per_s, 0.0);
    assert!(run.summary.slide_cm_per_s_mean < 25.0, "{}", run.summary.slide_cm_per_s_mean);
    let jumping =
        run_matching(&files, Path::StopStart, MatchingOptions { seconds: 4.0, ..Default::default() }).unwrap();
    assert!(
        jumping.summary.matches_per_s > 0.0 && jumping.summary.slide_cm_per_s_mean > run.summary.slide_cm_per_s_mean
    );
    let svg = std::env::temp_dir().join("sinew-matching-test.svg");
    path_svg(&run, &svg).unwrap();
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    let _ = std::fs::remove_file(&svg);
}

#[test]
fn bad_runs_are_refused() {
    let missing = vec![std::path::PathBuf::from("/nonexistent/walk.bvh")];
    assert!(run_matching(&missing, Path::Circle, MatchingOptions::default()).is_err());
    let Some(files) = bandai("bad_runs") else { return };
    for seconds in [0.0, -1.0, f32::NAN, 1e9] {
        let options = MatchingOptions { seconds, ..MatchingOptions::default() };
        assert!(run_matching(&files, Path::Circle, options).is_err(), "{seconds}");
    }
    let options = MatchingOptions { seconds: 1.0, continuing_bias: f32::NAN, ..MatchingOptions::default() };
    assert!(run_matching(&files, Path::Circle, options).is_err());
}

#[test]
fn the_motion_matched_crowd_searches_a_sixth_of_its_characters_a_frame() {
    use sinew_bench_host::matched_crowd::{TAKE_SECONDS, TAKES, measure};
    use sinew_bench_host::workload::Workload;
    let (characters, frames) = (12, 30);
    let report = measure(&Workload::humanoid(67), characters, frames).unwrap();
    assert_eq!((report.characters, report.dims), (characters, 27));
    assert_eq!(report.database_frames, TAKES * (TAKE_SECONDS * 30.0) as usize);
    // Every character searches every sixth frame once its staggered start has passed; timing rounding may move
    // one search a frame.
    let expected = characters as f64 / 6.0;
    assert!((report.searches_per_frame - expected).abs() <= 0.5, "{report:?}");
    assert!(report.update_us > 0.0 && report.matching_us > 0.0, "{report:?}");
    assert!(report.search_share > 0.0 && report.search_share < 1.0, "{report:?}");
    let (searches, jumps) =
        (report.searches_per_frame * frames as f64, report.jumps_per_character_s * (characters * frames) as f64 / 60.0);
    assert!(jumps <= searches + 1e-6, "at most one jump a search: {report:?}");
    // A skeleton without feet has nothing to match on: the reason, not a panic.
    let mut footless = Workload::humanoid(67);
    for name in footless.skeleton.names.iter_mut().filter(|n| n.contains("Foot")) {
        *name = name.replace("Foot", "Paw");
    }
    let why = measure(&footless, 2, 2).unwrap_err();
    assert!(why.contains("foot"), "{why}");
}
