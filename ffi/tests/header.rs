//! The checked-in C header is the one cbindgen generates from the crate today.

use std::path::Path;

#[test]
fn checked_in_header_is_generated_from_the_source() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("ffi/cbindgen.toml parses");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let path = crate_dir.join("include/sinew.h");
    if std::env::var_os("SINEW_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("ffi/include/sinew.h is writable");
        return;
    }
    let checked_in = std::fs::read(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "ffi/include/sinew.h differs from what cbindgen generates from ffi/src; \
         run `SINEW_BLESS=1 cargo test -p sinew-ffi --test header` and commit the header"
    );
}
