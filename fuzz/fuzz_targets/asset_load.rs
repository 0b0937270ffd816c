//! `Asset::load` on arbitrary bytes: never a panic; whatever loads samples every clip and runs local-to-model
//! to finite matrices (the loader's promise, `Error::Extent` included).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sinew_tools::raw::AlignedBlob;

fuzz_target!(|data: &[u8]| {
    let blob = AlignedBlob::from_bytes(data);
    if let Ok(asset) = sinew::Asset::load(blob.bytes()) {
        sinew_tools::fuzz::exercise(&asset).expect("a loaded asset samples and poses");
    }
});
