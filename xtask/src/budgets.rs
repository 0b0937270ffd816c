//! `cargo xtask budgets`: the profiler's per-stage costs against `budgets.toml`, two ways.
//!
//! Time: the profiler is built for each target-feature set (own target dir each) and run several times as
//! separate processes pinned to one core, on a crowd small enough to stay in L2/L3 (`settings.timing_args`:
//! a crowd that spills to DRAM swung ±30% with the neighbours' load, a 16-character one ±5%); the best median
//! per stage counts. A stage over budget is measured again up to `settings.retries` times (the machine is
//! shared) before the step fails, naming the stage, the budget and the measurement. With
//! `settings.enforce_time = false` (this shared machine: see budgets.toml) time overages are printed as
//! warnings and only the instruction counts and bytes fail the step. Instructions: one small run per build under `valgrind --tool=callgrind`, whose per-stage counts
//! (the profiler's `stage_*` functions) must stay within a small tolerance of the recorded ones. Callgrind
//! cannot decode AVX-512, so no build here targets it. `--record` prints measured values in the file's format.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// A build of the profiler or the benches: its name in `budgets.toml` and `targets.toml`, target dir, RUSTFLAGS,
/// and the C++ compiler's flag for the same instruction set (for the peers built from C++).
pub(crate) struct Build {
    pub(crate) name: &'static str,
    pub(crate) target_dir: &'static str,
    pub(crate) rustflags: &'static str,
    pub(crate) cxx_flag: Option<&'static str>,
}

pub(crate) const BUILDS: [Build; 2] = [
    Build { name: "sse2", target_dir: "target", rustflags: "", cxx_flag: None },
    Build {
        name: "x86-64-v3",
        target_dir: "target/x86-64-v3",
        rustflags: "-C target-cpu=x86-64-v3",
        cxx_flag: Some("-march=x86-64-v3"),
    },
];

/// Callgrind's crowd: small, every stage still runs every frame.
const COUNT_ARGS: [&str; 4] = ["--characters", "8", "--frames", "3"];
/// No budget covers the motion-matched crowd, and its library's bake is most of a short run under callgrind.
const NO_MATCHING: &str = "--no-motion-matching";
/// Frames a profile runs per stage beyond `--frames` (its warm-up).
const WARM_UP_FRAMES: f64 = 2.0;

/// Stage → µs per character (best over runs), plus bytes per character.
#[derive(Default, Debug)]
struct Measured {
    us: BTreeMap<String, f64>,
    bytes: u64,
}

pub fn budgets(record: bool) -> Result<(), String> {
    let root = crate::root();
    let (config, settings) = crate::read_config("budgets.toml")?;
    let runs = settings.get("runs").and_then(|v| v.as_integer()).unwrap_or(3) as usize;
    let retries = settings.get("retries").and_then(|v| v.as_integer()).unwrap_or(1) as usize;
    let enforce_time = settings.get("enforce_time").and_then(|v| v.as_bool()).unwrap_or(true);
    let timing_args = crate::strings(&settings, "timing_args");
    let tolerance = settings.get("instruction_tolerance").and_then(|v| v.as_float()).unwrap_or(0.03);
    let workloads = config.get("workload").and_then(|w| w.as_array()).ok_or("budgets.toml: no [[workload]]")?;

    let mut failures = vec![];
    for build in &BUILDS {
        let binary = build_profiler(build)?;
        for workload in workloads {
            let name = workload.get("name").and_then(|v| v.as_str()).ok_or("workload without a name")?;
            let Some(args) = workload_args(workload, &root)? else {
                eprintln!("    {name}: skipped, its file is not here (shared data absent)");
                continue;
            };
            let budget = workload.get(build.name).and_then(|v| v.as_table());
            let timed: Vec<String> = args.iter().chain(&timing_args).cloned().collect();
            let mut measured = measure(&binary, &timed, runs)?;
            let over = |m: &Measured| over_budget(m, budget);
            for _ in 0..retries {
                if over(&measured).is_empty() || record || !enforce_time {
                    break;
                }
                // A shared machine has slow spells lasting seconds: wait one out, then measure again.
                eprintln!("    {name} [{}]: over budget, measuring again", build.name);
                std::thread::sleep(std::time::Duration::from_secs(3));
                let again = measure(&binary, &timed, runs)?;
                for (stage, us) in again.us {
                    let best = measured.us.entry(stage).or_insert(us);
                    *best = best.min(us);
                }
            }
            let counts = instructions(&binary, &args)?;
            report(name, build.name, &measured, budget, &counts);
            if record {
                print_record(name, build.name, &measured, &counts);
                continue;
            }
            for (stage, us, limit) in over(&measured) {
                let line = format!("{name} [{}] {stage}: {us:.3} µs/character, budget {limit:.3}", build.name);
                if enforce_time {
                    failures.push(line);
                } else {
                    eprintln!("    warning (time budgets not enforced here, see budgets.toml): {line}");
                }
            }
            if let Some(limit) = workload.get("bytes_per_character").and_then(|v| v.as_integer())
                && measured.bytes > limit as u64
            {
                failures.push(format!("{name}: {} bytes/character, budget {limit}", measured.bytes));
            }
            let recorded = budget.and_then(|b| b.get("instructions")).and_then(|v| v.as_table());
            for (stage, &count) in &counts {
                let Some(expected) = recorded.and_then(|r| r.get(stage)).and_then(|v| v.as_integer()) else {
                    failures.push(format!("{name} [{}] {stage}: no recorded instruction count", build.name));
                    continue;
                };
                let ratio = count / expected as f64;
                if ratio > 1.0 + tolerance {
                    failures.push(format!(
                        "{name} [{}] {stage}: {count:.0} instructions/character, recorded {expected} (+{:.1}%)",
                        build.name,
                        100.0 * (ratio - 1.0)
                    ));
                } else if ratio < 1.0 - tolerance {
                    eprintln!(
                        "    note: {name} [{}] {stage}: {count:.0} instructions, {:.1}% under the recorded {expected}; \
                         `cargo xtask budgets --record` prints new values",
                        build.name,
                        100.0 * (1.0 - ratio)
                    );
                }
            }
        }
    }
    if failures.is_empty() { Ok(()) } else { Err(format!("over budget:\n  {}", failures.join("\n  "))) }
}

/// `args` of a workload, with `{data}` replaced by the shared data directory; `None` when a file it names is
/// absent.
fn workload_args(workload: &toml::Value, root: &Path) -> Result<Option<Vec<String>>, String> {
    let data =
        std::env::var_os("SINEW_DATA").map(std::path::PathBuf::from).unwrap_or_else(|| root.join("../shared/data"));
    let args = workload.get("args").and_then(|v| v.as_array()).ok_or("workload without args")?;
    let mut out = vec![];
    for a in args {
        let a = a.as_str().ok_or("args must be strings")?;
        if a.contains("{data}") {
            let path = a.replace("{data}", &data.to_string_lossy());
            if !Path::new(&path).exists() {
                return Ok(None);
            }
            out.push(path);
        } else {
            out.push(a.to_string());
        }
    }
    Ok(Some(out))
}

pub(crate) fn build_profiler(build: &Build) -> Result<std::path::PathBuf, String> {
    let mut c = crate::cargo_with(&["build", "--release", "-p", "sinew-bench-host", "--bin", "sinew-bench"]);
    c.args(["--target-dir", build.target_dir]);
    if !build.rustflags.is_empty() {
        c.env("RUSTFLAGS", build.rustflags);
    }
    crate::run(c)?;
    Ok(crate::root().join(build.target_dir).join("release/sinew-bench"))
}

/// `runs` pinned profiler processes; the best median per stage.
fn measure(binary: &Path, args: &[String], runs: usize) -> Result<Measured, String> {
    let mut measured = Measured::default();
    for _ in 0..runs {
        let mut c = crate::pinned(binary);
        c.arg("profile").args(args).args([NO_MATCHING, "--json"]);
        let report = json_of(c)?;
        let rig = &report["rigs"][0];
        let mut add = |stage: &str, us: f64| {
            let best = measured.us.entry(stage.to_string()).or_insert(us);
            *best = best.min(us);
        };
        for s in rig["stages"].as_array().into_iter().flatten() {
            add(s["stage"].as_str().unwrap_or("?"), s["us_per_character"].as_f64().unwrap_or(f64::NAN));
        }
        let t = &rig["transition"];
        add("crossfade_frame", t["crossfade_us_per_character"].as_f64().unwrap_or(f64::NAN));
        add("inertialized_frame", t["inertialized_us_per_character"].as_f64().unwrap_or(f64::NAN));
        measured.bytes = rig["stages"][0]["bytes_per_character"].as_u64().unwrap_or(0);
    }
    Ok(measured)
}

fn json_of(c: Command) -> Result<Value, String> {
    let shown = format!("{c:?}");
    serde_json::from_slice(&crate::stdout_of(c)?).map_err(|e| format!("{shown}: bad JSON: {e}"))
}

/// `(stage, measured, budget)` for every budgeted stage measured above its budget (or not measured).
fn over_budget(m: &Measured, budget: Option<&toml::Table>) -> Vec<(String, f64, f64)> {
    let Some(budget) = budget else { return vec![] };
    budget
        .iter()
        .filter_map(|(stage, limit)| Some((stage, limit.as_float().or_else(|| limit.as_integer().map(|i| i as f64))?)))
        .filter_map(|(stage, limit)| {
            let us = m.us.get(stage).copied().unwrap_or(f64::INFINITY);
            (us > limit).then(|| (stage.clone(), us, limit))
        })
        .collect()
}

/// Instructions per character per frame of each `stage_*` function, from one callgrind run.
fn instructions(binary: &Path, args: &[String]) -> Result<BTreeMap<String, f64>, String> {
    let out_file = std::env::temp_dir().join(format!("sinew-callgrind-{}.out", std::process::id()));
    let mut c = Command::new("valgrind");
    c.args(["--tool=callgrind", "--quiet"]).arg(format!("--callgrind-out-file={}", out_file.display()));
    c.arg(binary).arg("profile").args(args).args(COUNT_ARGS).args([NO_MATCHING, "--json"]);
    let status = c.output().map_err(|e| format!("valgrind not found ({e}); install it: apt-get install valgrind"))?;
    if !status.status.success() {
        return Err(format!("callgrind run failed: {}", String::from_utf8_lossy(&status.stderr)));
    }
    let annotate = Command::new("callgrind_annotate")
        .args(["--inclusive=yes", "--threshold=100"])
        .arg(&out_file)
        .output()
        .map_err(|e| format!("callgrind_annotate: {e}"))?;
    let _ = std::fs::remove_file(&out_file);
    let text = String::from_utf8_lossy(&annotate.stdout);
    let characters: f64 = COUNT_ARGS[1].parse().unwrap_or(1.0);
    let frames: f64 = COUNT_ARGS[3].parse::<f64>().unwrap_or(1.0) + WARM_UP_FRAMES;
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        let Some(at) = line.find("profile::stage_") else { continue };
        let stage: String =
            line[at + "profile::stage_".len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let count: f64 = line.split_whitespace().next().unwrap_or("").replace(',', "").parse().unwrap_or(0.0);
        counts.insert(stage, count / (characters * frames));
    }
    if counts.is_empty() {
        return Err("callgrind_annotate listed no profile::stage_* function".into());
    }
    Ok(counts)
}

fn report(name: &str, build: &str, m: &Measured, budget: Option<&toml::Table>, counts: &BTreeMap<String, f64>) {
    eprintln!("    {name} [{build}], {} bytes/character:", m.bytes);
    for (stage, us) in &m.us {
        let limit = budget.and_then(|b| b.get(stage)).and_then(|v| v.as_float());
        let limit = limit.map_or("-".to_string(), |l| format!("{l:.3}"));
        eprintln!("      {stage:<24} {us:>9.3} µs/char   budget {limit:>9}");
    }
    for (stage, count) in counts {
        eprintln!("      {stage:<24} {count:>9.0} instructions/char/frame");
    }
}

/// The measured values as TOML: times with 20% headroom, counts as measured (see budgets.toml on picking).
fn print_record(name: &str, build: &str, m: &Measured, counts: &BTreeMap<String, f64>) {
    println!("# {name}: bytes_per_character = {}", m.bytes);
    println!("[workload.{build}]  # of {name}");
    for (stage, us) in &m.us {
        if stage != "frame_total" {
            println!("{stage} = {:.3}", us * 1.2);
        }
    }
    println!("[workload.{build}.instructions]");
    for (stage, count) in counts {
        println!("{stage} = {count:.0}");
    }
}
