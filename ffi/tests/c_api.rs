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
