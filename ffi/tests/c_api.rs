//! The C ABI driven from C and C++: the examples' frames equal the Rust API's bit for bit, every error path
//! returns its status (`tests/c/errors.c`), and the C++ layer (`sinew.hpp`) keeps its promises
//! (`tests/cpp/wrapper.cpp`).

mod support;

use std::path::Path;

const EXAMPLE_BLOB: &str = "docs/example.snw";

fn example_frames(source: &str, cxx: bool) {
    let Some(exe) = support::compile(source, cxx).unwrap_or_else(|e| panic!("{e}")) else { return };
    let blob_path = support::root().join(EXAMPLE_BLOB);
    let printed = support::output_of(&exe, &[&blob_path]).unwrap_or_else(|e| panic!("{e}"));
    let blob = std::fs::read(&blob_path).expect("docs/example.snw is readable");
    let expected = support::rust_frames(&blob).expect("the Rust API runs the example's frames");
    assert_eq!(printed.lines().count(), expected.lines().count(), "{source} printed another number of lines");
    for (line, (c, rust)) in printed.lines().zip(expected.lines()).enumerate() {
        assert_eq!(c, rust, "{source}, line {}: the C ABI and the Rust API disagree", line + 1);
    }
    // The example reached its frames (a run that printed only the header would pass the comparison above).
    assert!(printed.lines().any(|l| l.starts_with("m 23:")), "{source} printed no frame 23");
}

/// The web page's path: the library built for wasm32 with SIMD128, called through `web/sinew.mjs` under Node on
/// `frame.c`'s script, prints the Rust API's frames within the cross-build bound (4e-6 relative, the bound
/// `builds_agree_within_the_documented_bounds` holds every build to; today the bits are equal).
#[test]
fn wasm_build_through_the_page_loader_matches_the_rust_api() {
    let Some(wasm) = support::wasm_library().unwrap_or_else(|e| panic!("{e}")) else { return };
    let blob_path = support::root().join(EXAMPLE_BLOB);
    let mut node = std::process::Command::new("node");
    node.arg(support::root().join("web/test/frame.mjs")).arg(&wasm).arg(&blob_path);
    let out = node.output().expect("node runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8_lossy(&out.stdout);
    let blob = std::fs::read(&blob_path).expect("docs/example.snw is readable");
    let expected = support::rust_frames(&blob).expect("the Rust API runs the example's frames");
    assert_eq!(printed.lines().count(), expected.lines().count(), "the wasm loader printed another number of lines");
    let floats = |line: &str| -> Vec<f32> {
        let values = line.split_once(':').map_or("", |(_, v)| v);
        values.split_whitespace().map(|h| f32::from_bits(u32::from_str_radix(h, 16).expect("hex"))).collect()
    };
    let mut worst = 0.0f32;
    for (line, (wasm, rust)) in printed.lines().zip(expected.lines()).enumerate() {
        if !(rust.starts_with("m ") || rust.starts_with("p ")) {
            assert_eq!(wasm, rust, "line {}: the wasm build and the Rust API disagree", line + 1);
            continue;
        }
        let (w, r) = (floats(wasm), floats(rust));
        assert_eq!(w.len(), r.len(), "line {}", line + 1);
        for (a, b) in w.iter().zip(&r) {
            worst = worst.max((a - b).abs() / b.abs().max(1.0));
        }
    }
    eprintln!("wasm SIMD128 against the native Rust API: worst relative difference {worst:e}");
    assert!(worst <= 4e-6, "worst relative difference {worst:e}");
    assert!(printed.lines().any(|l| l.starts_with("m 23:")), "the wasm loader printed no frame 23");
    // Broken blobs given to the loader are errors with the library's message.
    let mut errors = std::process::Command::new("node");
    errors.arg(support::root().join("web/test/errors.mjs")).arg(&wasm).arg(&blob_path);
    let out = errors.output().expect("node runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn c_example_matches_the_rust_api_bit_for_bit() {
    example_frames("ffi/examples/frame.c", false);
}

#[test]
fn cpp_example_matches_the_rust_api_bit_for_bit() {
    example_frames("ffi/examples/frame.cpp", true);
}

#[test]
fn every_error_path_returns_its_status_from_c() {
    let Some(exe) = support::compile("ffi/tests/c/errors.c", false).unwrap_or_else(|e| panic!("{e}")) else {
        return;
    };
    let printed = support::output_of(&exe, &[&support::root().join(EXAMPLE_BLOB)]).unwrap_or_else(|e| panic!("{e}"));
    assert!(printed.contains(", 0 failed"), "{printed}");
}

#[test]
fn the_cpp_layer_reports_statuses_and_gives_its_memory_back() {
    let Some(exe) = support::compile("ffi/tests/cpp/wrapper.cpp", true).unwrap_or_else(|e| panic!("{e}")) else {
        return;
    };
    let printed = support::output_of(&exe, &[&support::root().join(EXAMPLE_BLOB)]).unwrap_or_else(|e| panic!("{e}"));
    assert!(printed.contains(", 0 failed"), "{printed}");
}

#[test]
fn example_refuses_a_file_that_is_not_a_blob() {
    let Some(exe) = support::compile("ffi/examples/frame.c", false).unwrap_or_else(|e| panic!("{e}")) else {
        return;
    };
    let not_a_blob = support::root().join("ffi/cbindgen.toml");
    let output = std::process::Command::new(&exe).arg(Path::new(&not_a_blob)).output().expect("the example runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("sinew_asset_load: the blob is not a sinew asset"), "{stderr}");
}

#[test]
fn guide_c_frame_compiles() {
    let path = support::root().join("docs/guide/c-and-cpp.md");
    let guide = std::fs::read_to_string(&path).expect("the C and C++ guide is readable");
    let snippet = guide.split("```c\n").nth(1).and_then(|s| s.split("```").next()).expect("a C block");
    assert!(snippet.contains("sinew_character_update"), "{snippet}");
    support::compile_snippet("guide_frame", snippet).unwrap_or_else(|e| panic!("{e}"));
}
