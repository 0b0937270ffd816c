//! The `sinew-bake` command line on ordinary and hostile input: bad files and arguments are exit 1 with
//! `error: …` naming what was wrong, and nothing is written.

#[path = "support/cli.rs"]
mod cli_support;

use cli_support::{assert_error, bvh, gltf_keys, scratch, write};
use std::path::Path;
use std::process::{Command, Output};

fn sinew_bake(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sinew-bake")).args(args).output().expect("run sinew-bake")
}

#[test]
fn sinew_bake_bakes_and_inspects_and_refuses_bad_input_like_the_profiler() {
    let dir = scratch("sinew-bake");
    let two = write(&dir, "two.bvh", &bvh("2", "0.0333333", "0 0 0 0 0 0\n10 0 0 0 20 0"));
    let out = dir.join("two.snw").display().to_string();
    let baked = sinew_bake(&["bake", "--bvh", &two, "--out", &out]);
    assert!(baked.status.success(), "{}", String::from_utf8_lossy(&baked.stderr));
    let inspected = sinew_bake(&["inspect", "--blob", &out, "--json"]);
    assert!(inspected.status.success(), "{}", String::from_utf8_lossy(&inspected.stderr));
    let json: serde_json::Value = serde_json::from_slice(&inspected.stdout).expect("inspect --json prints JSON");
    assert_eq!(json["clips"].as_array().map(Vec::len), Some(1), "{json}");
    // The profiler's hidden alias writes the same bytes: `bench-host/tests/cli.rs`.

    // The bake reports each clip's virtual-point error; a bad distance is refused before anything is written.
    assert!(String::from_utf8_lossy(&baked.stdout).contains("error max"), "{}", String::from_utf8_lossy(&baked.stdout));
    // And the height it takes as 1.7 m.
    let figure = String::from_utf8_lossy(&baked.stdout).lines().find(|l| l.contains("figure: ")).map(str::to_string);
    assert!(figure.is_some_and(|l| l.contains("file units tall standing") && l.contains("1.7 m")), "{baked:?}");
    let refused = dir.join("refused.snw").display().to_string();
    for distance in ["-1", "NaN", "1e9"] {
        let output = sinew_bake(&["bake", "--bvh", &two, "--out", &refused, "--error-distance", distance]);
        assert_error(&output, &["--error-distance"]);
        assert!(!Path::new(&refused).exists(), "nothing written for --error-distance {distance}");
    }
    let bad = write(&dir, "bad.bvh", &bvh("3", "0.0333333", "0 0 0 0 0 0"));
    assert_error(&sinew_bake(&["bake", "--bvh", &bad, "--out", &out]), &[&bad]);
    let garbage = write(&dir, "garbage.snw", "not a blob at all");
    assert_error(&sinew_bake(&["inspect", "--blob", &garbage]), &[&garbage, "not a valid sinew blob"]);
    // Profiling is the other binary's job.
    assert!(!sinew_bake(&["profile"]).status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bake_above_the_resampling_bound_stops_and_writes_nothing() {
    let dir = scratch("resampling-bound");
    // A kink at 0.31 s, baked at 5 Hz: the frames cut it by far more than the default bound.
    let file = write(&dir, "kink.gltf", &gltf_keys(&[0.0, 0.31, 1.0], &[[0.0; 3], [1.0, 0.0, 0.0], [0.0; 3]]));
    let out = dir.join("kink.snw").display().to_string();
    let refused = sinew_bake(&["bake", "--gltf", &file, "--out", &out, "--rate", "5"]);
    assert_error(&refused, &["--max-resampling-error", "animation0", "nothing written"]);
    assert!(!Path::new(&out).exists());
    // Raised, the bake goes through and reports the same error.
    let raised = sinew_bake(&["bake", "--gltf", &file, "--out", &out, "--rate", "5", "--max-resampling-error", "1"]);
    assert!(raised.status.success(), "{}", String::from_utf8_lossy(&raised.stderr));
    assert!(Path::new(&out).exists());
    assert_error(
        &sinew_bake(&["bake", "--gltf", &file, "--out", &out, "--max-resampling-error", "NaN"]),
        &["--max-resampling-error"],
    );
}

#[test]
fn a_figure_without_height_reports_file_units_not_centimetres() {
    let Some(data) = sinew_tools::shared_data_for_test("a_figure_without_height_reports_file_units_not_centimetres")
    else {
        return;
    };
    let dir = scratch("flat-figure");
    let out = dir.join("box.snw").display().to_string();
    let boxed = data.join("gltf/khronos/BoxAnimated.glb").display().to_string();
    let baked = sinew_bake(&["bake", "--gltf", &boxed, "--out", &out]);
    let stdout = String::from_utf8_lossy(&baked.stdout);
    assert!(baked.status.success(), "{}", String::from_utf8_lossy(&baked.stderr));
    let report = stdout.lines().find(|l| l.contains("error max")).expect("an error line");
    assert!(report.contains("file units") && !report.contains(" cm"), "{report}");
    let max: f64 = report
        .split("error max ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|v| v.parse().ok())
        .expect("a number");
    assert!(max < 1e-3, "{report}");
}

#[test]
fn skin_and_scene_choose_what_a_gltf_bake_imports() {
    let Some(data) = sinew_tools::shared_data_for_test("skin_and_scene_choose_what_a_gltf_bake_imports") else {
        return;
    };
    let dir = scratch("skin-scene");
    let out = dir.join("skins.snw").display().to_string();
    let recursive = data.join("gltf/khronos/RecursiveSkeletons.glb").display().to_string();
    let baked = sinew_bake(&["bake", "--gltf", &recursive, "--out", &out, "--skin", "5"]);
    let stdout = String::from_utf8_lossy(&baked.stdout);
    assert!(baked.status.success(), "{}", String::from_utf8_lossy(&baked.stderr));
    assert!(stdout.contains("skin 5 `skin5`") && stdout.contains("76 more"), "{stdout}");
    assert_error(&sinew_bake(&["bake", "--gltf", &recursive, "--out", &out, "--skin", "84"]), &["skin 84", "84"]);
    assert_error(&sinew_bake(&["bake", "--gltf", &recursive, "--out", &out, "--scene", "1"]), &["scene 1"]);
    let tiny = write(&dir, "tiny.gltf", &gltf_keys(&[0.0, 1.0], &[[0.0; 3], [1.0, 0.0, 0.0]]));
    let scene0 = sinew_bake(&["bake", "--gltf", &tiny, "--out", &out, "--scene", "0"]);
    assert!(scene0.status.success(), "{}", String::from_utf8_lossy(&scene0.stderr));
    let walk = write(&dir, "two.bvh", &bvh("2", "0.0333333", "0 0 0 0 0 0\n10 0 0 0 20 0"));
    assert_error(&sinew_bake(&["bake", "--bvh", &walk, "--out", &out, "--skin", "1"]), &["--gltf"]);
    let bound = ["bake", "--bvh", &walk, "--out", &out, "--max-resampling-error", "0.1"];
    assert_error(&sinew_bake(&bound), &["--max-resampling-error", "--gltf"]);
}

#[test]
fn chunks_split_a_clip_and_bad_chunk_files_write_nothing() {
    let dir = scratch("chunks");
    let two = write(&dir, "two.bvh", &bvh("2", "0.0333333", "0 0 0 0 0 0\n10 0 0 0 20 0"));
    let good = write(
        &dir,
        "good.json",
        r#"{"chunks": [{"clip": "two", "name": "two:root", "joints": ["a"]}, {"clip": "two", "name": "two:b", "subtrees": ["b"]}]}"#,
    );
    let out = dir.join("parts.snw").display().to_string();
    let baked = sinew_bake(&["bake", "--bvh", &two, "--out", &out, "--chunks", &good]);
    assert!(baked.status.success(), "{}", String::from_utf8_lossy(&baked.stderr));
    let report = String::from_utf8_lossy(&baked.stdout);
    assert!(report.contains("`two` split into chunks: `two:root` 1 joints, `two:b` 1 joints"), "{report}");
    let inspected = sinew_bake(&["inspect", "--blob", &out, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&inspected.stdout).expect("inspect --json prints JSON");
    let names: Vec<&str> = json["clips"].as_array().expect("clips").iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(names, ["two:root", "two:b"], "{json}");

    let refused = dir.join("refused.snw").display().to_string();
    for (name, text, wanted) in [
        ("joint.json", r#"{"chunks": [{"clip": "two", "name": "x", "joints": ["c"]}]}"#, "no joint \"c\""),
        ("clip.json", r#"{"chunks": [{"clip": "one", "name": "x", "joints": ["a"]}]}"#, "no clip named \"one\""),
        (
            "empty.json",
            r#"{"chunks": [{"clip": "two", "name": "x", "subtrees": ["a"], "without": ["a"]}]}"#,
            "no joint left",
        ),
        ("field.json", r#"{"chunks": [{"clip": "two", "name": "x", "bones": ["a"]}]}"#, "unknown field"),
        ("broken.json", r#"{"chunks": ["#, "broken.json: EOF"),
    ] {
        let file = write(&dir, name, text);
        assert_error(&sinew_bake(&["bake", "--bvh", &two, "--out", &refused, "--chunks", &file]), &[wanted]);
        assert!(!Path::new(&refused).exists(), "{name}: nothing written");
    }
    let missing = dir.join("missing.json").display().to_string();
    assert_error(&sinew_bake(&["bake", "--bvh", &two, "--out", &refused, "--chunks", &missing]), &[&missing]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn knots_fit_a_clip_with_golden_poses_and_bad_requests_write_nothing() {
    let dir = scratch("knots");
    // Two joints for 2 s at 10 Hz: gliding, then a sharp turn at 1 s, then gliding again.
    let angle = |f: i32| if f <= 10 { 0 } else { (f - 10) * 9 };
    let values: String = (0..21).map(|f| format!("{} 0 0 0 {} 0\n", f * 2, angle(f))).collect();
    let file = write(&dir, "turn.bvh", &bvh("21", "0.1", values.trim_end()));
    let markers = write(&dir, "markers.json", r#"{"clips":{"turn":{"markers":[{"name":"cut","time":0.35}]}}}"#);
    let out = dir.join("turn.snw").display().to_string();
    let baked = sinew_bake(&["bake", "--bvh", &file, "--out", &out, "--knots", "0.05", "--markers", &markers]);
    assert!(baked.status.success(), "{}", String::from_utf8_lossy(&baked.stderr));
    let report = String::from_utf8_lossy(&baked.stdout);
    assert!(report.contains("knots for 21 frames") && report.contains("1 golden"), "{report}");
    assert!(report.contains("(on knots, against every source frame)"), "{report}");
    let inspected = sinew_bake(&["inspect", "--blob", &out, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&inspected.stdout).expect("inspect --json prints JSON");
    let knots = json["clips"][0]["knots"].as_u64().expect("knots");
    // The ends, the golden time and the turn's start; the glides need no more.
    assert!((4..21).contains(&knots), "{knots} knots: {json}");

    let refused = dir.join("refused.snw").display().to_string();
    for bound in ["0", "-1", "NaN"] {
        assert_error(&sinew_bake(&["bake", "--bvh", &file, "--out", &refused, "--knots", bound]), &["--knots"]);
    }
    let curves = write(
        &dir,
        "curves.json",
        r#"{"clips":{"turn":{"curves":[{"name":"blink","keys":[{"time":0,"value":0},{"time":1,"value":1}]}]}}}"#,
    );
    let with_curves = ["bake", "--bvh", &file, "--out", &refused, "--knots", "0.1", "--markers", &curves];
    assert_error(&sinew_bake(&with_curves), &["curve tracks"]);
    assert!(!Path::new(&refused).exists(), "nothing written");
    // Knots replace rate reduction, and phase tables are per uniform frame.
    let both = sinew_bake(&["bake", "--bvh", &file, "--out", &refused, "--knots", "0.1", "--reduce-rate", "0.1"]);
    assert!(!both.status.success() && !Path::new(&refused).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bake_json_gives_each_clips_report_as_fields() {
    let dir = scratch("bake-json");
    let values: String = (0..11).map(|f| format!("{} 0 0 {} 0 0\n", f * 3, f * 5)).collect();
    let file = write(&dir, "swing.bvh", &bvh("11", "0.1", values.trim_end()));
    let out = dir.join("swing.snw").display().to_string();
    let json = |extra: &[&str]| -> serde_json::Value {
        let baked = sinew_bake(&[&["bake", "--bvh", &file, "--out", &out, "--json"][..], extra].concat());
        assert!(baked.status.success(), "{}", String::from_utf8_lossy(&baked.stderr));
        serde_json::from_slice(&baked.stdout).expect("bake --json prints JSON")
    };
    let plain = json(&[]);
    let clip = &plain["clips"][0];
    assert_eq!(clip["name"], "swing", "{plain}");
    assert_eq!((clip["frames"].as_u64(), clip["joints"].as_u64()), (Some(11), Some(2)), "{plain}");
    assert!((clip["rate"].as_f64().expect("rate") - 10.0).abs() < 1e-4, "{plain}");
    // The ratio is against raw f32: 40 bytes per joint per frame.
    let (bytes, ratio) = (clip["bytes"].as_f64().expect("bytes"), clip["ratio"].as_f64().expect("ratio"));
    assert!((ratio - 40.0 * 2.0 * 11.0 / bytes).abs() < 1e-9, "{plain}");
    // The figure stands one file unit tall (the root at 0, `b` at 1): 1.7 m is one unit.
    let height = clip["figure_height"].as_f64().expect("figure_height");
    assert!((height - 1.0).abs() < 1e-6, "{plain}");
    assert!(clip["max_error_cm"].as_f64().expect("max") >= clip["p99_error_cm"].as_f64().expect("p99"));
    assert!(clip["bound"].is_null(), "f32 keys are held to no bound: {plain}");
    // Compressed at 0.05 cm: the bound in file units, and the error within it.
    let compressed = json(&["--compress"]);
    let clip = &compressed["clips"][0];
    let bound = clip["bound"].as_f64().expect("bound");
    assert!((bound - 0.05 * height / 170.0).abs() < 1e-12, "{compressed}");
    assert!(clip["max_error_cm"].as_f64().expect("max") <= 0.05 + 1e-6, "{compressed}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_motion_database_is_baked_by_schema_and_bad_schemas_write_nothing() {
    let dir = scratch("motion-database");
    let values: String = (0..40).map(|f| format!("{} 0 0 0 {} 0\n", f * 9, f * 4)).collect();
    let clip = write(&dir, "turn.bvh", &bvh("40", "0.1", values.trim_end()));
    let schema = write(
        &dir,
        "schema.json",
        r#"{"features": [{"kind": "position", "joint": "b", "weight": 1},
                         {"kind": "trajectory_facing", "seconds": [1.0], "weight": 1.5}]}"#,
    );
    let out = dir.join("turn.snw").display().to_string();
    let bake = |out: &str, schema: Option<&str>| {
        let mut args = vec!["bake", "--bvh", &clip, "--out", out, "--root-motion", "delta", "--hips", "a"];
        args.push("--motion-database");
        args.extend(schema);
        sinew_bake(&args)
    };
    let baked = bake(&out, Some(&schema));
    assert!(baked.status.success(), "{}", String::from_utf8_lossy(&baked.stderr));
    let report = String::from_utf8_lossy(&baked.stdout);
    assert!(report.contains("motion database: 40 frames × 5 dimensions in 2 groups"), "{report}");
    let inspected = sinew_bake(&["inspect", "--blob", &out, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&inspected.stdout).expect("inspect --json prints JSON");
    let db = &json["motion_database"];
    assert_eq!((db["frames"].as_u64(), db["dims"].as_u64()), (Some(40), Some(5)), "{json}");
    // One second ahead is 10 frames at 10 Hz: the last 10 frames are never entered.
    assert_eq!(db["excluded"].as_u64(), Some(10), "{json}");
    assert_eq!(db["groups"][0]["name"], "position:b", "{json}");
    assert_eq!(db["groups"][1]["dims"], 2, "{json}");

    let refused = dir.join("refused.snw").display().to_string();
    for (name, text, wanted) in [
        ("joint.json", r#"{"features": [{"kind": "position", "joint": "c", "weight": 1}]}"#, "no joint named `c`"),
        ("weight.json", r#"{"features": [{"kind": "velocity", "joint": "b", "weight": 0}]}"#, "positive weight"),
        ("field.json", r#"{"features": [{"kind": "position", "joint": "b", "weight": 1, "w": 2}]}"#, "unknown field"),
        ("kind.json", r#"{"features": [{"kind": "acceleration", "joint": "b", "weight": 1}]}"#, "unknown variant"),
        ("empty.json", r#"{"features": []}"#, "no features"),
        (
            "horizon.json",
            r#"{"features": [{"kind": "trajectory_position", "seconds": [4.0], "weight": 1}]}"#,
            "not more than the trajectory's horizon",
        ),
        ("broken.json", r#"{"features": ["#, "broken.json: EOF"),
    ] {
        let file = write(&dir, name, text);
        assert_error(&bake(&refused, Some(&file)), &[wanted]);
        assert!(!Path::new(&refused).exists(), "{name}: nothing written");
    }
    // The default schema needs two feet by name; this figure has none.
    assert_error(&bake(&refused, None), &["foot"]);
    // Without the root motion extracted there is no character frame to measure in.
    let plain = sinew_bake(&["bake", "--bvh", &clip, "--out", &refused, "--motion-database"]);
    assert!(!plain.status.success() && !Path::new(&refused).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mirror_bakes_each_clip_again_reflected_and_bad_pairs_write_nothing() {
    let dir = scratch("mirror");
    let hierarchy = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 90 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation \
                     Xrotation Yrotation\n JOINT LeftLeg\n {\n  OFFSET 10 -40 0\n  CHANNELS 3 Zrotation Xrotation \
                     Yrotation\n  End Site\n  {\n   OFFSET 0 -45 0\n  }\n }\n JOINT RightLeg\n {\n  OFFSET -10 -40 0\n  \
                     CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 -45 0\n  }\n }\n}\n";
    let values: String = (0..40).map(|f| format!("{} 90 {} 0 0 {} {} 0 0 0 0 0\n", f, f * 4, f, f % 7)).collect();
    let text = format!("{hierarchy}MOTION\nFrames: 40\nFrame Time: 0.1\n{}\n", values.trim_end());
    let clip = write(&dir, "walk.bvh", &text);
    let schema = write(
        &dir,
        "schema.json",
        r#"{"features": [{"kind": "position", "joint": "LeftLeg", "weight": 1},
                         {"kind": "trajectory_position", "seconds": [1.0], "weight": 1}]}"#,
    );
    let out = dir.join("walk.snw").display().to_string();
    let base = ["bake", "--bvh", &clip, "--root-motion", "delta", "--hips", "Hips", "--motion-database", &schema];
    let mut args = base.to_vec();
    args.extend(["--out", &out, "--mirror"]);
    let baked = sinew_bake(&args);
    assert!(baked.status.success(), "{}", String::from_utf8_lossy(&baked.stderr));
    let inspected = sinew_bake(&["inspect", "--blob", &out, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&inspected.stdout).expect("inspect --json prints JSON");
    let clips = json["clips"].as_array().expect("clips");
    assert_eq!(clips.len(), 2, "{json}");
    assert_eq!(clips[1]["name"], "walk.mirror", "{json}");
    assert_eq!(json["motion_database"]["frames"], 80, "{json}");
    assert_eq!(json["motion_database"]["mirrored"], 40, "{json}");

    let refused = dir.join("refused.snw").display().to_string();
    for (extra, wanted) in [
        (vec!["--mirror-pair", "LeftLeg"], "give LEFT,RIGHT"),
        (vec!["--mirror-pair", "LeftLeg,Nose"], "no joint named `Nose`"),
        (vec!["--mirror-pair", "LeftLeg,Hips"], "pairs with"),
    ] {
        let mut args = base.to_vec();
        args.extend(["--out", &refused, "--mirror"]);
        args.extend(extra);
        assert_error(&sinew_bake(&args), &[wanted]);
        assert!(!Path::new(&refused).exists(), "{wanted}: nothing written");
    }
    // A figure without sides has nothing to swap.
    let plain = write(&dir, "plain.bvh", &bvh("2", "0.1", "0 0 0 0 0 0\n0 0 0 0 0 0"));
    assert_error(&sinew_bake(&["bake", "--bvh", &plain, "--out", &refused, "--mirror"]), &["--mirror-pair"]);
    assert!(!Path::new(&refused).exists());
    // --mirror-pair needs --mirror.
    let lone = sinew_bake(&["bake", "--bvh", &plain, "--out", &refused, "--mirror-pair", "a,b"]);
    assert!(!lone.status.success() && !Path::new(&refused).exists());
    let _ = std::fs::remove_dir_all(&dir);
}
