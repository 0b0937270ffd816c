//! `cargo xtask wasm-perf [--rounds N]`: the profiler's stages on wasm32 under Node, built with SIMD128 and as
//! the scalar reference, and the SIMD128 build again inside a page of headless Chromium (`web/perf/`), against
//! the native SSE2 build, in one sitting. The four runs of `sinew-bench profile` take turns on one pinned core,
//! round after round, and each ratio is taken within a round, so a noisy machine moves them together:
//! wasm/native and page/native (goal ≤ 1.5 on every stage) and scalar/SIMD128 (goal ≥ 2 on local-to-model and
//! blending).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

/// What each build's profiler is asked: two rigs, a crowd small enough for Node's start-up to stay out of it.
const PROFILE: &[&str] =
    &["profile", "--joints", "67", "--joints", "256", "--characters", "64", "--frames", "31", "--json"];

/// A build of `sinew-bench`: its name, target (none: the host), RUSTFLAGS and cargo features.
struct WasmBuild {
    name: &'static str,
    target: Option<&'static str>,
    rustflags: &'static str,
    features: &'static str,
}

const BUILDS: [WasmBuild; 3] = [
    WasmBuild { name: "native-sse2", target: None, rustflags: "", features: "" },
    WasmBuild {
        name: "wasm-simd128",
        target: Some(crate::WASM_WASI),
        rustflags: "-C target-feature=+simd128",
        features: "",
    },
    WasmBuild { name: "wasm-scalar", target: Some(crate::WASM_WASI), rustflags: "", features: "sinew/scalar" },
];

/// Builds `build` in its own target directory and returns how to run its profiler.
fn build(build: &WasmBuild) -> Result<Command, String> {
    let dir = format!("target/wasm-perf/{}", build.name);
    let mut args = vec!["build", "--release", "-p", "sinew-bench-host", "--bin", "sinew-bench", "--target-dir", &dir];
    if let Some(target) = build.target {
        args.extend(["--target", target]);
    }
    if !build.features.is_empty() {
        args.extend(["--features", build.features]);
    }
    let mut cargo = crate::cargo_with(&args);
    cargo.env("RUSTFLAGS", build.rustflags);
    crate::run(cargo)?;
    let root = crate::root();
    Ok(match build.target {
        None => crate::pinned(&root.join(&dir).join("release/sinew-bench")),
        Some(target) => {
            // TurboFan from the start (no Liftoff baseline tier): the code a page runs once it has warmed up,
            // rather than the first rig measured on baseline code. Compiling on the main thread: Node 20 with
            // background compile threads and --no-liftoff crashed at exit in about one run of three here.
            let mut node = crate::pinned(&PathBuf::from("node"));
            node.args(["--no-warnings", "--single-threaded", "--no-liftoff"]).arg(root.join("xtask/wasi-run.mjs"));
            node.arg(root.join(&dir).join(target).join("release/sinew-bench.wasm"));
            node
        }
    })
}

/// `(rig joints, stage) → µs per character` from one profiler run's JSON.
fn stages(json: &str) -> Result<BTreeMap<(u64, String), f64>, String> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("profiler JSON: {e}"))?;
    let mut out = BTreeMap::new();
    for rig in value["rigs"].as_array().ok_or("profiler JSON: no rigs")? {
        let joints = rig["joints"].as_u64().ok_or("profiler JSON: a rig without joints")?;
        for stage in rig["stages"].as_array().ok_or("profiler JSON: a rig without stages")? {
            let name = stage["stage"].as_str().ok_or("profiler JSON: a stage without a name")?;
            let us = stage["us_per_character"].as_f64().ok_or("profiler JSON: a stage without a time")?;
            out.insert((joints, name.to_string()), us);
        }
    }
    Ok(out)
}

fn range(values: &[f64]) -> String {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(0.0, f64::max);
    format!("{lo:.2}–{hi:.2}")
}

/// The SIMD128 profiler inside a page: `web/perf/run.mjs` serves it to headless Chromium, pinned like the rest.
fn in_page(chromium: &str) -> Command {
    let root = crate::root();
    let mut node = crate::pinned(&PathBuf::from("node"));
    node.arg(root.join("web/perf/run.mjs"));
    node.arg(root.join(format!("target/wasm-perf/{}/{}/release/sinew-bench.wasm", BUILDS[1].name, crate::WASM_WASI)));
    node.env("SINEW_CHROMIUM", chromium);
    node
}

/// The name of the in-page run.
const PAGE: &str = "page-simd128";

pub fn wasm_perf(rounds: usize) -> Result<(), String> {
    crate::require_targets(&[crate::WASM_WASI])?;
    crate::require_tool("node", "nodejs")?;
    let chromium = crate::web::chromium()?;
    crate::web::npm_packages(&crate::root().join("web"))?;
    let mut runs = vec![];
    for b in &BUILDS {
        runs.push((b.name, build(b)?));
    }
    runs.push((PAGE, in_page(chromium)));
    // (build, rig, stage) → one time per round.
    let mut times: BTreeMap<(&str, u64, String), Vec<f64>> = BTreeMap::new();
    for round in 0..rounds {
        for (name, command) in &mut runs {
            eprintln!("xtask wasm-perf: round {} of {rounds}, {name}", round + 1);
            let mut c = Command::new(command.get_program());
            c.args(command.get_args()).args(PROFILE);
            c.envs(command.get_envs().filter_map(|(k, v)| Some((k, v?))));
            let out = crate::stdout_of(c)?;
            for ((joints, stage), us) in stages(&String::from_utf8_lossy(&out))? {
                times.entry((name, joints, stage)).or_default().push(us);
            }
        }
    }
    let native: Vec<_> = times.iter().filter(|((b, _, _), _)| *b == BUILDS[0].name).collect();
    println!(
        "| rig | stage | native SSE2 µs | wasm SIMD128 µs (Node) | wasm / native | page / native | wasm scalar / SIMD128 |"
    );
    println!("|---|---|---|---|---|---|---|");
    let (mut worst, mut worst_page, mut scalar_gain) = (0.0f64, 0.0f64, BTreeMap::new());
    for ((_, joints, stage), native_us) in native {
        let simd = &times[&(BUILDS[1].name, *joints, stage.clone())];
        let scalar = &times[&(BUILDS[2].name, *joints, stage.clone())];
        let page = &times[&(PAGE, *joints, stage.clone())];
        let over: Vec<f64> = simd.iter().zip(native_us).map(|(w, n)| w / n).collect();
        let page_over: Vec<f64> = page.iter().zip(native_us).map(|(p, n)| p / n).collect();
        let gain: Vec<f64> = scalar.iter().zip(simd).map(|(s, w)| s / w).collect();
        worst = over.iter().copied().fold(worst, f64::max);
        worst_page = page_over.iter().copied().fold(worst_page, f64::max);
        scalar_gain.insert((*joints, stage.clone()), gain.iter().copied().fold(f64::INFINITY, f64::min));
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        println!(
            "| {joints} | {stage} | {:.3} | {:.3} | {} | {} | {} |",
            median(native_us),
            median(simd),
            range(&over),
            range(&page_over),
            range(&gain)
        );
    }
    println!();
    println!("worst wasm / native: {worst:.2} in Node, {worst_page:.2} in the page (goal ≤ 1.5)");
    for stage in ["local_to_model", "blend_2_layers"] {
        let least = scalar_gain.iter().filter(|((_, s), _)| s == stage).map(|(_, g)| *g).fold(f64::INFINITY, f64::min);
        println!("{stage}: SIMD128 ≥ {least:.2}× the wasm scalar build in every round (goal ≥ 2)");
    }
    Ok(())
}
