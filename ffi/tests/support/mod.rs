//! Builds the C ABI's static library and compiles C and C++ programs against it, for the tests that drive
//! sinew from C (here and in `sinew-bench-host`'s, which include this file).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Where the library and the compiled programs go: a target directory of their own, so the nested cargo does
/// not wait on the lock of the build running the tests.
fn out_dir() -> PathBuf {
    root().join("target/ffi")
}

/// `libsinew_ffi.a`, built once per test process in the dev profile with every crate at `panic=abort`: the
/// release profile's panic strategy (the `no_std` library the crate docs describe) without its optimization.
pub fn static_library() -> Result<PathBuf, String> {
    static LIBRARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    LIBRARY
        .get_or_init(|| {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let mut c = Command::new(cargo);
            c.current_dir(root())
                .env("CARGO_PROFILE_DEV_PANIC", "abort")
                .args(["rustc", "-p", "sinew-ffi", "--lib", "--crate-type", "staticlib", "--target-dir"])
                .arg(out_dir());
            run(&mut c)?;
            Ok(out_dir().join("debug/libsinew_ffi.a"))
        })
        .clone()
}

/// `sinew_ffi.wasm`: the library for `wasm32-unknown-unknown` with SIMD128, as the web page loads it (release:
/// the `no_std` build), built once per test process; `None` (the test skips with a message) when Node or the
/// target is missing, except under `SINEW_REQUIRE_WASM` (set by CI), where that fails.
pub fn wasm_library() -> Result<Option<PathBuf>, String> {
    static LIBRARY: OnceLock<Result<Option<PathBuf>, String>> = OnceLock::new();
    LIBRARY
        .get_or_init(|| {
            let node = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
            let targets = Command::new("rustup").args(["target", "list", "--installed"]).output();
            let target = targets.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-unknown-unknown"));
            if !(node && target) {
                let why = "the wasm example needs `node` and `rustup target add wasm32-unknown-unknown`";
                return if std::env::var_os("SINEW_REQUIRE_WASM").is_some() {
                    Err(why.into())
                } else {
                    eprintln!("skipped: {why}");
                    Ok(None)
                };
            }
            let dir = root().join("target/ffi-wasm");
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let mut c = Command::new(cargo);
            c.current_dir(root())
                .env("RUSTFLAGS", "-C target-feature=+simd128")
                .args(["build", "-p", "sinew-ffi", "--release", "--target", "wasm32-unknown-unknown", "--target-dir"])
                .arg(&dir);
            run(&mut c)?;
            Ok(Some(dir.join("wasm32-unknown-unknown/release/sinew_ffi.wasm")))
        })
        .clone()
}

fn run(c: &mut Command) -> Result<std::process::Output, String> {
    let output = c.output().map_err(|e| format!("could not start {c:?}: {e}"))?;
    if output.status.success() {
        Ok(output)
    } else {
        Err(format!(
            "{c:?} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// A C or C++ compiler, or why there is none: a missing C++ compiler skips the C++ example with a message,
/// except under `SINEW_REQUIRE_CXX` (set by CI), where it fails.
pub fn compiler(cxx: bool) -> Option<&'static str> {
    let name = if cxx { "c++" } else { "cc" };
    let found = Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success());
    if found {
        return Some(name);
    }
    assert!(
        std::env::var_os("SINEW_REQUIRE_CXX").is_none(),
        "no `{name}` on PATH, and SINEW_REQUIRE_CXX is set (apt-get install g++)"
    );
    eprintln!("skipped: no `{name}` on PATH to compile the example with");
    None
}

/// Compiles `source` (relative to the workspace) with warnings as errors (C++ also without exceptions) and links
/// it with the static library alone: no system library beyond the compiler's defaults (the C library, which
/// provides `memcpy`, `memset` and `abort`).
pub fn compile(source: &str, cxx: bool) -> Result<Option<PathBuf>, String> {
    let Some(compiler) = compiler(cxx) else { return Ok(None) };
    let library = static_library()?;
    let source = root().join(source);
    let stem = source.file_name().and_then(|n| n.to_str()).unwrap_or("program").replace('.', "_");
    let exe = out_dir().join(stem);
    let mut c = Command::new(compiler);
    c.arg(if cxx { "-std=c++17" } else { "-std=c11" })
        // C++ without exceptions: the C++ layer needs none.
        .args(if cxx { &["-fno-exceptions"][..] } else { &[] })
        .args(["-O1", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
        .arg(root().join("ffi/include"))
        .arg(&source)
        .arg(&library)
        .arg("-o")
        .arg(&exe);
    run(&mut c)?;
    Ok(Some(exe))
}

/// Runs `exe` with `args` and returns its standard output.
pub fn output_of(exe: &Path, args: &[&Path]) -> Result<String, String> {
    let output = run(Command::new(exe).args(args))?;
    String::from_utf8(output.stdout).map_err(|e| e.to_string())
}

/// What `ffi/examples/frame.c` prints for `blob`, computed with the Rust API: the same frames (clip 0 looping,
/// an inertialized transition to the last clip at frame 12, 1/30 s steps), the same text.
pub fn rust_frames(blob: &[u8]) -> Result<String, sinew::Error> {
    use sinew::inertialization::{Settings, Transition};
    use sinew::{Asset, Blend, Character, CharacterDesc, Chunk, LayerDesc, LayerKind, Play, Rig, Scratch, SlotId};
    use std::fmt::Write;

    let mut words = vec![0u128; blob.len().div_ceil(16)];
    let aligned = &mut bytemuck::cast_slice_mut::<u128, u8>(&mut words)[..blob.len()];
    aligned.copy_from_slice(blob);
    let asset = Asset::load(aligned)?;
    let skeleton = asset.skeleton();
    let skin_joints = asset.skin().map_or(0, |s| s.num_joints());
    let clips = asset.num_clips();
    let hex = |out: &mut String, tag: char, index: usize, values: &[f32]| {
        let _ = write!(out, "{tag} {index}:");
        for v in values {
            let _ = write!(out, " {:08x}", v.to_bits());
        }
        out.push('\n');
    };
    let mut out = String::new();
    let abi = sinew_ffi::SINEW_ABI_VERSION;
    let _ = writeln!(out, "abi {abi} joints {} clips {clips} skin {skin_joints}", skeleton.num_joints());
    for j in 0..skeleton.num_joints() {
        let _ = writeln!(out, "joint {j} {}", skeleton.name(j).unwrap_or(""));
    }
    for c in 0..clips {
        hex(&mut out, 'd', c, &[asset.clip(c).map_or(f32::NAN, |clip| clip.duration())]);
    }
    let layers = [LayerDesc { kind: LayerKind::Base, controls: 1 }];
    let desc = CharacterDesc {
        num_joints: skeleton.num_joints(),
        num_skin_joints: skin_joints,
        layers: &layers,
        num_masks: 0,
        num_curves: 0,
        inertialization: Some(Settings::default()),
        scratch: Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation: sinew::Interpolation::Linear,
    };
    let mut memory = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc)?)];
    let mut character = Character::new(Chunk::bytes_mut(&mut memory), &desc)?;
    character.play(&asset, SlotId::base(0), Play::looping(0))?;
    let rig = Rig::new(&asset, asset.skin())?;
    for frame in 0..24 {
        if frame == 12 {
            let cut = Blend::Inertialize(Transition { duration: 0.25, profile: None });
            character.transition(&asset, 0, Play::looping(clips - 1), cut)?;
        }
        character.update(1.0 / 30.0, &rig)?;
        let model: Vec<f32> = character.model().iter().flat_map(|m| m.cols.into_iter().flatten()).collect();
        hex(&mut out, 'm', frame, &model);
        let palette: Vec<f32> = character.palette().iter().flat_map(|m| m.rows.into_iter().flatten()).collect();
        hex(&mut out, 'p', frame, &palette);
    }
    Ok(out)
}

/// Compiles C `text` to an object file (no link): for snippets such as the C guide's.
pub fn compile_snippet(name: &str, text: &str) -> Result<bool, String> {
    let Some(compiler) = compiler(false) else { return Ok(false) };
    std::fs::create_dir_all(out_dir()).map_err(|e| e.to_string())?;
    let source = out_dir().join(format!("{name}.c"));
    std::fs::write(&source, text).map_err(|e| e.to_string())?;
    let mut c = Command::new(compiler);
    c.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c", "-I"])
        .arg(root().join("ffi/include"))
        .arg(&source)
        .arg("-o")
        .arg(out_dir().join(format!("{name}.o")));
    run(&mut c).map(|_| true)
}
