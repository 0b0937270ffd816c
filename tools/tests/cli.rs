//! The `sinew-bake` command line on ordinary and hostile input: bad files and arguments are exit 1 with
//! `error: …` naming what was wrong, and nothing is written.

#[path = "support/cli.rs"]
mod cli_support;

use cli_support::{assert_error, bvh, scratch, write};
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
