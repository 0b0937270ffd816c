//! Blobs baked by `sinew-bake` from the shared files load through the C ABI, and the C example's frames on
//! them equal the Rust API's bit for bit: a skinned glTF character (with its palette) and a BVH walk and run
//! (an inertialized transition between two real clips).

#[path = "../../ffi/tests/support/mod.rs"]
mod ffi_support;

use std::path::PathBuf;
use std::process::Command;

fn bake(name: &str, args: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sinew-bake-to-c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let out = dir.join(name);
    let output = Command::new(env!("CARGO_BIN_EXE_sinew-bake"))
        .arg("bake")
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("sinew-bake runs");
    assert!(output.status.success(), "sinew-bake {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    out
}

#[test]
fn blobs_baked_by_sinew_bake_play_through_the_c_abi_as_through_rust() {
    let Some(data) =
        sinew_tools::shared_data_for_test("blobs_baked_by_sinew_bake_play_through_the_c_abi_as_through_rust")
    else {
        return;
    };
    let Some(example) = ffi_support::compile("ffi/examples/frame.c", false).unwrap_or_else(|e| panic!("{e}")) else {
        return;
    };
    let path = |p: &str| data.join(p).to_string_lossy().into_owned();
    let blobs = [
        bake("cesium.snw", &["--gltf", &path("gltf/CesiumMan.glb")]),
        bake(
            "loco.snw",
            &[
                "--bvh",
                &path("bvh/bandai/dataset-1_walk_normal_001.bvh"),
                &path("bvh/bandai/dataset-2_run_normal_001.bvh"),
                "--quantize",
            ],
        ),
    ];
    let outputs: Vec<String> = blobs
        .iter()
        .map(|blob| {
            let printed = ffi_support::output_of(&example, &[blob]).unwrap_or_else(|e| panic!("{e}"));
            let bytes = std::fs::read(blob).expect("the baked blob is readable");
            let expected = ffi_support::rust_frames(&bytes).expect("the Rust API plays the blob");
            assert!(printed == expected, "{}: the C ABI and the Rust API disagree", blob.display());
            assert!(printed.lines().any(|l| l.starts_with("m 23:")), "{}: no last frame", blob.display());
            printed
        })
        .collect();
    // The glTF character is skinned: its palette lines carry 12 floats per skin joint.
    let palette = outputs[0].lines().find(|l| l.starts_with("p 0:")).expect("a palette line");
    assert!(palette.split_whitespace().count() > 2 + 12, "{palette}");
    let _ = std::fs::remove_dir_all(blobs[0].parent().expect("a temporary directory"));
}
