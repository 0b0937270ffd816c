//! Helpers the command-line tests of both host binaries share (`sinew-bake` in `tools/tests/cli.rs`,
//! `sinew-bench` in `bench-host/tests/cli.rs`): scratch files, small BVH and glTF documents, and the error
//! contract every command keeps.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

/// A scratch directory for this test's files.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sinew-cli-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

/// Exit 1 and a first stderr line starting with `error: ` and holding every piece of `wanted`.
pub fn assert_error(output: &Output, wanted: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    for w in wanted {
        assert!(stderr.contains(w), "wanted `{w}` in: {stderr}");
    }
}

pub fn bvh(frames: &str, frame_time: &str, values: &str) -> String {
    format!(
        "HIERARCHY\nROOT a\n{{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n JOINT b\n {{\n  OFFSET 0 1 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {{\n   OFFSET 0 1 0\n  }}\n }}\n}}\nMOTION\nFrames: {frames}\nFrame Time: {frame_time}\n{values}\n"
    )
}

/// One node, a translation channel keyed at the two `times`.
pub fn gltf(times: [f32; 2]) -> String {
    gltf_keys(&times, &[[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
}

/// One node, a LINEAR translation channel with `values` at `times`.
pub fn gltf_keys(times: &[f32], values: &[[f32; 3]]) -> String {
    use base64::Engine;
    let floats: Vec<f32> = times.iter().copied().chain(values.iter().flatten().copied()).collect();
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let uri = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let (n, first, last) = (times.len(), times[0], times[times.len() - 1]);
    format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"name":"a"}}],
        "buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{uri}"}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{t}}},{{"buffer":0,"byteOffset":{t},"byteLength":{v}}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":{n},"type":"SCALAR","min":[{first}],"max":[{last}]}},
                     {{"bufferView":1,"componentType":5126,"count":{n},"type":"VEC3"}}],
        "animations":[{{"channels":[{{"sampler":0,"target":{{"node":0,"path":"translation"}}}}],
                       "samplers":[{{"input":0,"output":1}}]}}]}}"#,
        len = bytes.len(),
        t = 4 * n,
        v = 12 * n,
    )
}
