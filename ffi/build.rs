//! Writes `sinew.pc` (pkg-config) beside the libraries this build makes: `target/<profile>` (or
//! `target/<triple>/<profile>` when cross-compiling), three levels above the build script's `OUT_DIR`.

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let (Some(out_dir), Some(manifest_dir)) = (std::env::var_os("OUT_DIR"), std::env::var_os("CARGO_MANIFEST_DIR"))
    else {
        println!("cargo::warning=OUT_DIR or CARGO_MANIFEST_DIR unset: no sinew.pc written");
        return;
    };
    let Some(lib_dir) = PathBuf::from(out_dir).ancestors().nth(3).map(PathBuf::from) else {
        println!("cargo::warning=OUT_DIR has no profile directory above it: no sinew.pc written");
        return;
    };
    let include_dir = PathBuf::from(manifest_dir).join("include");
    let pc = format!(
        "libdir={lib}\nincludedir={include}\n\nName: sinew\nDescription: {description}\nVersion: {version}\n\
         Cflags: -I${{includedir}}\nLibs: ${{libdir}}/libsinew_ffi.a\n",
        lib = lib_dir.display(),
        include = include_dir.display(),
        description = env!("CARGO_PKG_DESCRIPTION"),
        version = env!("CARGO_PKG_VERSION"),
    );
    if let Err(e) = std::fs::write(lib_dir.join("sinew.pc"), pc) {
        println!("cargo::warning=could not write sinew.pc to {}: {e}", lib_dir.display());
    }
}
