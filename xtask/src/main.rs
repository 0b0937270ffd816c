//! `cargo xtask <command>`: the project's automation, in Rust so it runs wherever cargo does.
//!
//! `ci` runs every step below in order and fails if any fails; each step is also its own subcommand.
//! A step that needs a tool or target the machine lacks fails with the command that installs it.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

mod acl;
mod budgets;
mod peer;
mod targets;
mod wasm;
mod web;

const AARCH64_LINUX: &str = "aarch64-unknown-linux-gnu";
const AARCH64_BARE: &str = "aarch64-unknown-none";
const X86_64_BARE: &str = "x86_64-unknown-none";
const WASM_WASI: &str = "wasm32-wasip1";

/// A `ci` step: its name (also its own subcommand), what it checks, the function, and its time budget in seconds
/// on a fresh clone on the 2-core reference machine (the summary flags a step over it; the landing check's limit is
/// on the whole run).
type Step = (&'static str, &'static str, fn() -> Result<(), String>, u32);

const STEPS: &[Step] = &[
    ("fmt", "cargo fmt --check", fmt, 10),
    ("clippy", "clippy -D warnings: SIMD, scalar and x86-64-v3 builds", clippy, 240),
    ("test", "cargo test --workspace (SIMD lanes, host CPU baseline)", test, 240),
    ("test-scalar", "the test suite on the scalar reference build", test_scalar, 300),
    ("build-v3", "x86-64-v3 (AVX2+FMA) tests, optimized (`ci` profile), own target dir", build_v3, 240),
    ("build-nostd", "no_std builds of sinew for aarch64-unknown-none (NEON) and x86_64-unknown-none", build_nostd, 90),
    (
        "test-aarch64",
        "the tests for aarch64-unknown-linux-gnu under qemu-user, optimized (`ci` profile)",
        test_aarch64,
        420,
    ),
    (
        "test-wasm",
        "the tests for wasm32-wasip1 with SIMD128, run under Node's WASI (xtask/wasi-run.mjs), optimized (`ci` profile)",
        test_wasm,
        240,
    ),
    (
        "budgets",
        "profiler stages against budgets.toml: pinned timings and callgrind instruction counts",
        budgets_step,
        300,
    ),
    (
        "ffi-cmake",
        "the C and C++ examples built through CMake (ffi/examples, sinew::sinew) and run on the example blob",
        ffi_cmake,
        120,
    ),
    (
        "web-test",
        "the viewer built into target/web (wasm32 SIMD128 C ABI, three.js, baked blobs) and its tests in headless Chromium",
        web::web_test,
        240,
    ),
    (
        "miri",
        "arena, skeleton, math, lane, local-to-model, skinning, sampling, asset, blending, vertex-skinning, inertialization, transition, control, curves and character tests, and the C ABI's jobs, IK and motion tests, under Miri (scalar build, fewer cases), one test per process",
        miri,
        780,
    ),
    (
        "fuzz",
        "seeded blob mutations (fixed count), then each cargo-fuzz target for 20 s on the checked-in corpus [--seconds N: a long run]",
        fuzz,
        420,
    ),
];

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let Some(command) = args.first().map(String::as_str) else {
        usage();
        return ExitCode::FAILURE;
    };
    let result = match command {
        "ci" => ci(&args[1..]),
        "bench-report" => bench_report(),
        "budgets" => budgets::budgets(args.iter().any(|a| a == "--record")),
        "targets" => targets::targets(),
        "peer" => peer::peer(&args),
        "wasm-perf" => positive_count(&args, "--rounds").and_then(|rounds| wasm::wasm_perf(rounds.unwrap_or(3))),
        "web" => web::web(),
        "help" | "--help" | "-h" => {
            usage();
            Ok(())
        }
        "fuzz" => positive_count(&args, "--seconds").and_then(|seconds| seconds.map_or_else(fuzz, fuzz_for)),
        name => match STEPS.iter().find(|(n, _, _, _)| *n == name) {
            Some((_, _, step, _)) => step(),
            None => Err(format!("unknown command `{name}` (see `cargo xtask help`)")),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage() {
    eprintln!("usage: cargo xtask <command>\n\ncommands:");
    eprintln!("  {:<14} every step below, in order [--skip STEP,STEP…]", "ci");
    for (name, what, _, budget) in STEPS {
        eprintln!("  {name:<14} {what} (budget {budget} s)");
    }
    eprintln!("  {:<14} medians of the last `cargo bench` run, ns per joint, per group", "bench-report");
    eprintln!(
        "  {:<14} the issues' performance targets (targets.toml) against criterion medians measured now",
        "targets"
    );
    eprintln!(
        "  {:<14} sinew against ozz-animation-rs per stage and ACL per clip (../shared/peer), both x86 builds [--rounds N] [--only ozz|acl]",
        "peer"
    );
    eprintln!(
        "  {:<14} the profiler's stages on wasm32 (SIMD128 and scalar, under Node) against native SSE2 [--rounds N]",
        "wasm-perf"
    );
    eprintln!("  {:<14} builds the viewer into target/web and serves it on 127.0.0.1:8417", "web");
}

/// Set while `ci` runs: steps that would skip part of their work on this host fail instead.
static IN_CI: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Every step in order, or all but those `--skip` names (`.ci/run` skips `test`: the README's test command, which
/// it runs first, is the same `cargo test --workspace`).
fn ci(args: &[String]) -> Result<(), String> {
    let skip: Vec<&str> = match args {
        [] => vec![],
        [flag, names] if flag == "--skip" => names.split(',').collect(),
        _ => return Err("ci takes `--skip STEP,STEP…` or nothing".into()),
    };
    if let Some(unknown) = skip.iter().find(|s| !STEPS.iter().any(|(n, _, _, _)| n == *s)) {
        return Err(format!("--skip: no step `{unknown}` (see `cargo xtask help`)"));
    }
    IN_CI.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut failed = vec![];
    let mut summary = vec![];
    let whole = Instant::now();
    for (name, _, step, budget) in STEPS {
        if skip.contains(name) {
            summary.push(format!("  skip  {name:<14}"));
            continue;
        }
        eprintln!("\n==> xtask {name}");
        let start = Instant::now();
        let result = step();
        let secs = start.elapsed().as_secs_f64();
        let over = if secs > f64::from(*budget) { format!("  over its {budget} s budget") } else { String::new() };
        match &result {
            Ok(()) => summary.push(format!("  ok    {name:<14} {secs:>7.1} s{over}")),
            Err(e) => {
                summary.push(format!("  FAIL  {name:<14} {secs:>7.1} s{over}  {e}"));
                failed.push(*name);
            }
        }
    }
    let total = whole.elapsed().as_secs_f64();
    eprintln!("\nxtask ci summary:\n{}\n        {:<14} {total:>7.1} s", summary.join("\n"), "total");
    if failed.is_empty() { Ok(()) } else { Err(format!("failed steps: {}", failed.join(", "))) }
}

fn budgets_step() -> Result<(), String> {
    budgets::budgets(false)
}

/// The positive count after `flag` in `args`, `None` when the flag is absent.
fn positive_count<T: std::str::FromStr + PartialOrd + Default>(
    args: &[String],
    flag: &str,
) -> Result<Option<T>, String> {
    match args.iter().position(|a| a == flag) {
        None => Ok(None),
        Some(i) => match args.get(i + 1).and_then(|v| v.parse().ok()).filter(|v| *v > T::default()) {
            Some(count) => Ok(Some(count)),
            None => Err(format!("{flag} takes a positive count")),
        },
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

fn cargo() -> Command {
    let mut c = Command::new(env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    // Each step sets its own flags; a caller's RUSTFLAGS would leak into cross builds and split caches.
    c.env_remove("RUSTFLAGS");
    c
}

fn run(mut command: Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    eprintln!("    $ {shown}");
    let status = command.status().map_err(|e| format!("could not start {shown}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{shown} exited with {status}")) }
}

/// `binary` run pinned to core 1 when `taskset` exists (one core's caches and clock for a whole run).
fn pinned(binary: &Path) -> Command {
    if Command::new("taskset").arg("--version").output().is_ok() {
        let mut c = Command::new("taskset");
        c.args(["-c", "1"]).arg(binary);
        c
    } else {
        Command::new(binary)
    }
}

/// A checked-in TOML file at the workspace root, parsed, with its `[settings]` table.
fn read_config(name: &str) -> Result<(toml::Table, toml::Table), String> {
    let path = root().join(name);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut config: toml::Table = text.parse().map_err(|e| format!("{}: {e}", path.display()))?;
    match config.remove("settings") {
        Some(toml::Value::Table(settings)) => Ok((config, settings)),
        _ => Err(format!("{name}: no [settings]")),
    }
}

/// The strings of the array `key` in `table`; empty when it is absent.
fn strings(table: &toml::Table, key: &str) -> Vec<String> {
    let array = table.get(key).and_then(|v| v.as_array());
    array.map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

/// Runs `command` to completion and returns its standard output; a failure to start or a non-zero exit is an
/// `Err` carrying the command and its standard error.
fn stdout_of(mut command: Command) -> Result<Vec<u8>, String> {
    let shown = format!("{command:?}");
    let out = command.output().map_err(|e| format!("could not start {shown}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{shown} failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(out.stdout)
}

fn cargo_with(args: &[&str]) -> Command {
    let mut c = cargo();
    c.args(args);
    c
}

fn fmt() -> Result<(), String> {
    run(cargo_with(&["fmt", "--all", "--", "--check"]))
}

fn clippy() -> Result<(), String> {
    run(cargo_with(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;
    run(cargo_with(&[
        "clippy",
        "-p",
        "sinew",
        "-p",
        "sinew-tests",
        "--all-targets",
        "--features",
        "sinew/scalar",
        "--",
        "-D",
        "warnings",
    ]))?;
    // The `avx2.rs` kernels compile only with AVX2 and FMA enabled: lint them in the x86-64-v3 build too.
    let mut v3 = cargo_with(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--release",
        "--target-dir",
        "target/x86-64-v3",
        "--",
        "-D",
        "warnings",
    ]);
    v3.env("RUSTFLAGS", "-C target-cpu=x86-64-v3");
    run(v3)
}

fn test() -> Result<(), String> {
    run(cargo_with(&["test", "--workspace"]))
}

fn test_scalar() -> Result<(), String> {
    run(cargo_with(&[
        "test",
        "-p",
        "sinew",
        "-p",
        "sinew-tests",
        "--features",
        "sinew/scalar",
        "--target-dir",
        "target/scalar",
    ]))
}

fn host_has(feature: &str) -> bool {
    std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|s| {
        s.lines().find(|l| l.starts_with("flags")).is_some_and(|l| l.split_whitespace().any(|f| f == feature))
    })
}

/// `cargo test` of the core and the test suites in the `ci` profile (optimized, checks on), in `target_dir`.
fn optimized_tests(target_dir: &str) -> Command {
    cargo_with(&["test", "--profile", "ci", "-p", "sinew", "-p", "sinew-tests", "--target-dir", target_dir])
}

fn build_v3() -> Result<(), String> {
    // The clippy step already compiles every target in this build; here the tests run.
    let mut tests = optimized_tests("target/x86-64-v3");
    tests.env("RUSTFLAGS", "-C target-cpu=x86-64-v3");
    if host_has("avx2") && host_has("fma") {
        run(tests)
    } else if IN_CI.load(std::sync::atomic::Ordering::Relaxed) {
        Err("host CPU lacks AVX2/FMA: the x86-64-v3 tests cannot run, so `ci` cannot pass here".into())
    } else {
        tests.arg("--no-run");
        run(tests)?;
        eprintln!("    host CPU lacks AVX2/FMA: x86-64-v3 tests built, not run");
        Ok(())
    }
}

fn installed_targets() -> Result<Vec<String>, String> {
    let out = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map_err(|e| format!("rustup not found ({e}); cross targets need rustup"))?;
    Ok(String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect())
}

fn require_targets(targets: &[&str]) -> Result<(), String> {
    let installed = installed_targets()?;
    let missing: Vec<&str> = targets.iter().copied().filter(|t| !installed.iter().any(|i| i == t)).collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "missing Rust targets: {}; install with `rustup target add {}`",
            missing.join(", "),
            missing.join(" ")
        ))
    }
}

fn require_tool(tool: &str, package: &str) -> Result<(), String> {
    let found = env::var_os("PATH").is_some_and(|paths| env::split_paths(&paths).any(|p| p.join(tool).is_file()));
    if found { Ok(()) } else { Err(format!("`{tool}` not found; install with `apt-get install {package}`")) }
}

fn build_nostd() -> Result<(), String> {
    require_targets(&[AARCH64_BARE, X86_64_BARE])?;
    // aarch64-unknown-none has NEON: this is the real SIMD no_std build. x86_64-unknown-none is soft-float
    // (no SSE), so `wide` falls back to arrays there: it proves the crate links without std, nothing more.
    for target in [AARCH64_BARE, X86_64_BARE] {
        run(cargo_with(&["build", "-p", "sinew", "--release", "--target", target, "--target-dir", "target/nostd"]))?;
    }
    run(cargo_with(&[
        "build",
        "-p",
        "sinew",
        "--release",
        "--features",
        "scalar",
        "--target",
        AARCH64_BARE,
        "--target-dir",
        "target/nostd",
    ]))
}

fn test_aarch64() -> Result<(), String> {
    require_targets(&[AARCH64_LINUX])?;
    require_tool("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu libc6-dev-arm64-cross")?;
    require_tool("qemu-aarch64", "qemu-user")?;
    let mut c = optimized_tests("target/aarch64");
    c.args(["--target", AARCH64_LINUX])
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", "aarch64-linux-gnu-gcc")
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER", "qemu-aarch64 -L /usr/aarch64-linux-gnu");
    run(c)?;
    ffi_aarch64()
}

/// The core's tests on wasm32 with SIMD128 (`wide`'s lanes are `v128` there; `backend::NAME` is "simd128"), run
/// by Node's WASI as web games would run the core, checked as aarch64 is under qemu; the cross-build test then
/// compares the wasm outputs with the native builds'.
fn test_wasm() -> Result<(), String> {
    require_targets(&[WASM_WASI])?;
    require_tool("node", "nodejs")?;
    let runner = format!("node --no-warnings {}", root().join("xtask/wasi-run.mjs").display());
    let mut c = optimized_tests("target/wasm");
    c.args(["--target", WASM_WASI])
        .env("RUSTFLAGS", "-C target-feature=+simd128")
        .env("CARGO_TARGET_WASM32_WASIP1_RUNNER", runner);
    run(c)
}

/// The C ABI's static and shared libraries for aarch64 (`cargo build -p sinew-ffi --release`, as an engine
/// builds them), and the C example linked with the static one and run under qemu on the example blob.
fn ffi_aarch64() -> Result<(), String> {
    let dir = "target/ffi-aarch64";
    let mut build =
        cargo_with(&["build", "-p", "sinew-ffi", "--release", "--target", AARCH64_LINUX, "--target-dir", dir]);
    build.env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", "aarch64-linux-gnu-gcc");
    run(build)?;
    let root = root();
    let exe = root.join(dir).join("frame");
    let mut cc = Command::new("aarch64-linux-gnu-gcc");
    cc.args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root.join("ffi/include"))
        .arg(root.join("ffi/examples/frame.c"))
        .arg(root.join(dir).join(AARCH64_LINUX).join("release/libsinew_ffi.a"))
        .arg("-o")
        .arg(&exe);
    run(cc)?;
    let mut frame = Command::new("qemu-aarch64");
    frame.args(["-L", "/usr/aarch64-linux-gnu"]).arg(&exe).arg(root.join("docs/example.snw"));
    let out = stdout_of(frame)?;
    let out = String::from_utf8_lossy(&out);
    if !out.lines().any(|l| l.starts_with("m 23:")) {
        return Err(format!("the aarch64 C example printed no last frame:\n{out}"));
    }
    // The engine-wired frame, NEON jobs against the NEON character, bit for bit (it fails on a difference).
    let own = root.join(dir).join("own_frame");
    let mut cc = Command::new("aarch64-linux-gnu-gcc");
    cc.args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root.join("ffi/include"))
        .arg(root.join("ffi/examples/own_frame.c"))
        .arg(root.join(dir).join(AARCH64_LINUX).join("release/libsinew_ffi.a"))
        .arg("-o")
        .arg(&own);
    run(cc)?;
    let mut run_own = Command::new("qemu-aarch64");
    run_own.args(["-L", "/usr/aarch64-linux-gnu"]).arg(&own).arg(root.join("docs/example.snw"));
    stdout_of(run_own).map(|_| ())
}

/// The examples as an engine's CMake project builds them (`add_subdirectory`, `sinew::sinew`), sharing the
/// workspace's `target` (the budgets step built the core there in release), then run: the C and C++ programs
/// print the same frames, to the last.
fn ffi_cmake() -> Result<(), String> {
    require_tool("cmake", "cmake")?;
    let root = root();
    let build_dir = root.join("target/cmake-examples");
    let mut configure = Command::new("cmake");
    configure
        .arg("-S")
        .arg(root.join("ffi/examples"))
        .arg("-B")
        .arg(&build_dir)
        .arg(format!("-DSINEW_CARGO_TARGET_DIR={}", root.join("target").display()));
    run(configure)?;
    let mut build = Command::new("cmake");
    build.arg("--build").arg(&build_dir);
    run(build)?;
    let blob = root.join("docs/example.snw");
    let mut outputs = vec![];
    for program in ["frame_c", "frame_cpp"] {
        let mut c = Command::new(build_dir.join(program));
        c.arg(&blob);
        outputs.push(String::from_utf8_lossy(&stdout_of(c)?).into_owned());
    }
    match outputs.as_slice() {
        [c, cpp] if c == cpp && c.lines().any(|l| l.starts_with("m 23:")) => {}
        [c, cpp] => return Err(format!("the CMake-built examples differ or stop early:\nC:\n{c}\nC++:\n{cpp}")),
        _ => return Err("the CMake-built examples did not run".into()),
    }
    // The engine-wired frame checks itself against a character and fails on any difference.
    let mut own = Command::new(build_dir.join("own_frame"));
    own.arg(&blob);
    stdout_of(own).map(|_| ())
}

/// Miri checks the `unsafe` in the arena and the kernels' borrows. It cannot run inline asm or most SIMD
/// intrinsics, so it runs the scalar build; the lane-precision sweep (pure arithmetic) is left out for time.
/// Miri interprets each test on one thread, so the tests run under cargo-nextest, one process per test, as
/// many at once as the machine has cores, after one build: the slowest tests start first and no core waits
/// on an unlucky split of test binaries.
fn miri() -> Result<(), String> {
    let probe = Command::new("cargo").args(["+nightly", "miri", "--version"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return Err("Miri not found; install with `rustup toolchain install nightly --component miri rust-src`".into());
    }
    let probe = Command::new("cargo").args(["nextest", "--version"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return Err("cargo-nextest not found; install with `cargo install cargo-nextest --locked`".into());
    }
    const SUITES: &[&str] = &[
        "arena",
        "asset",
        "blending",
        "character",
        "control",
        "curves",
        "inertialization",
        "lane",
        "local_to_model",
        "math",
        "sampling",
        "skeleton",
        "skinning",
        "vertex_skinning",
    ];
    let suites = SUITES.iter().map(|s| format!("binary(={s})")).collect::<Vec<_>>().join(" | ");
    // The transition figures' tests moved to the bench crate with the analysis they check. The C ABI's job, IK
    // and motion tests drive its raw-pointer code from Rust, so Miri checks its borrows of caller buffers.
    let filter = format!(
        "(package(sinew-tests) & ({suites})) | (package(sinew-bench-host) & binary(=transition)) \
         | (package(sinew-ffi) & (binary(=jobs) | binary(=ik) | binary(=motion) | binary(=blend_graph)))"
    );
    // `+nightly` is understood by the rustup proxy on PATH, not by the toolchain's own cargo in $CARGO.
    let mut c = Command::new("cargo");
    c.current_dir(root()).env_remove("RUSTFLAGS").env_remove("RUSTUP_TOOLCHAIN");
    c.args(["+nightly", "miri", "nextest", "run", "-p", "sinew-tests", "-p", "sinew-bench-host", "-p", "sinew-ffi"]);
    c.args(["--features", "sinew/scalar", "--target-dir", "target/miri", "--no-fail-fast", "-E", &filter]);
    run(c)
}

/// Blob mutations from a fixed seed, as many as `MUTATIONS`.
const MUTATIONS: &str = "2000000";
/// Seconds each cargo-fuzz target runs in `fuzz` (and so in `ci`); long runs are `cargo xtask fuzz --seconds N`.
const FUZZ_SECONDS: u32 = 20;

fn fuzz() -> Result<(), String> {
    fuzz_for(FUZZ_SECONDS)
}

fn fuzz_for(seconds: u32) -> Result<(), String> {
    run(cargo_with(&["run", "--release", "-p", "sinew-tools", "--example", "mutate_blobs", "--", "1", MUTATIONS]))?;
    let probe = Command::new("cargo").args(["+nightly", "fuzz", "--version"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return Err("cargo-fuzz not found; install with `cargo install cargo-fuzz` (and a nightly toolchain)".into());
    }
    let fuzz_dir = root().join("fuzz");
    for target in ["asset_load", "bvh", "gltf", "c_abi"] {
        // New inputs go to a scratch corpus; the checked-in one is read as seeds only.
        let scratch = root().join("target/fuzz-corpus").join(target);
        std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
        let mut c = Command::new("cargo");
        c.current_dir(&fuzz_dir).env_remove("RUSTFLAGS").env_remove("RUSTUP_TOOLCHAIN");
        c.args(["+nightly", "fuzz", "run", target]);
        c.arg(&scratch).arg(fuzz_dir.join("corpus").join(target));
        c.args(["--", &format!("-max_total_time={seconds}"), "-seed=1", "-rss_limit_mb=2048", "-max_len=65536"]);
        run(c)?;
    }
    Ok(())
}

/// Prints the median of every criterion benchmark under `target/criterion` (the SIMD build's `cargo bench`)
/// as ns per element (joint or vertex), grouped, so notes quote numbers from one run.
fn bench_report() -> Result<(), String> {
    let dirs = [("target/criterion", "host"), ("target/x86-64-v3/criterion", "x86-64-v3")];
    let mut any = false;
    for (dir, label) in dirs {
        let base = root().join(dir);
        let mut rows = vec![];
        collect_estimates(&base, &mut rows);
        if rows.is_empty() {
            continue;
        }
        any = true;
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        println!("\n{label} ({dir}):\n{:<52} {:>12} {:>12}", "benchmark", "median", "ns/element");
        for (name, median_ns, elements) in rows {
            let per = elements.map_or(String::from("-"), |e| format!("{:.3}", median_ns / e));
            println!("{name:<52} {:>9.1} ns {per:>12}", median_ns);
        }
    }
    if any { Ok(()) } else { Err("no criterion results: run `cargo bench -p sinew-bench-host` first".into()) }
}

fn collect_estimates(dir: &Path, rows: &mut Vec<(String, f64, Option<f64>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == "new") {
            let read = |f: &str| -> Option<serde_json::Value> {
                serde_json::from_str(&std::fs::read_to_string(path.join(f)).ok()?).ok()
            };
            let (Some(est), Some(bench)) = (read("estimates.json"), read("benchmark.json")) else { continue };
            let Some(median) = est["median"]["point_estimate"].as_f64() else { continue };
            let elements = bench["throughput"]["Elements"].as_f64();
            let name = bench["full_id"].as_str().unwrap_or("?").to_string();
            rows.push((name, median, elements));
        } else if path.is_dir() && path.file_name().is_some_and(|n| n != "report" && n != "base") {
            collect_estimates(&path, rows);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::positive_count;

    #[test]
    fn counts_after_a_flag_are_positive_or_refused() {
        let args = |text: &str| text.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert_eq!(positive_count::<usize>(&args("peer --rounds 5"), "--rounds"), Ok(Some(5)));
        assert_eq!(positive_count::<usize>(&args("peer --only acl"), "--rounds"), Ok(None));
        for bad in ["peer --rounds 0", "peer --rounds -1", "peer --rounds x", "peer --rounds"] {
            assert!(positive_count::<u32>(&args(bad), "--rounds").is_err(), "{bad}");
        }
    }
}
