//! The glTF importer on arbitrary bytes (`.glb` or JSON): never a panic or a runaway allocation; what imports
//! bakes to a blob that loads and poses, or to an error. Buffers may only be embedded (GLB chunk, data URIs):
//! the document's folder is one with no files.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let empty = std::env::temp_dir().join("sinew-fuzz-empty");
    let _ = std::fs::create_dir_all(&empty);
    let Ok(asset) = sinew_tools::gltf_import::import(data, &empty) else { return };
    sinew_tools::fuzz::bake_and_exercise(&asset.skeleton, &asset.clips);
});
