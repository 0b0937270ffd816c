//! The BVH reader and baker on arbitrary text: never a panic or a runaway allocation; a file that parses
//! bakes to a blob that loads and poses, or to an error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(bvh) = sinew_tools::bvh::Bvh::parse(text) else { return };
    let Ok((skeleton, clip)) = sinew_tools::bvh::to_raw(&bvh, "clip") else { return };
    sinew_tools::fuzz::bake_and_exercise(&skeleton, &[clip]);
});
