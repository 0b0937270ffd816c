//! `cargo xtask targets`: the issues' performance targets (`targets.toml`) against criterion medians measured
//! here and now.
//!
//! Each build (SSE2 baseline, x86-64-v3) compiles the bench-host benches once, then `settings.rounds` rounds run
//! every target's bench for every build in turn, pinned to one core, each target beside its naive glam baseline
//! in the same criterion run. Alternating the builds round by round spreads the host's slow spells over both.
//! Each run gets an emptied `target/xtask-targets/<build>/<round>/<bench>` as criterion's home, so the report
//! never reads an older run. The report is the median range over rounds, the ratio to glam, and how many rounds
//! were at or under the limit; it fails only when something cannot be built, run or read, never on a missed
//! target.

use crate::budgets::{BUILDS, Build};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One row of `targets.toml`.
struct Target {
    issue: i64,
    what: String,
    bench: String,
    id: String,
    baseline: String,
    per_joint: bool,
    /// Build name → limit in ns (per joint or per run).
    limit_ns: BTreeMap<String, f64>,
}

/// Per build and criterion id: the medians of each round, in ns per joint or per run.
type Medians = BTreeMap<(&'static str, String), Vec<f64>>;

pub fn targets() -> Result<(), String> {
    let root = crate::root();
    let (config, settings) = crate::read_config("targets.toml")?;
    let rounds = settings.get("rounds").and_then(|v| v.as_integer()).unwrap_or(3).max(1) as usize;
    let criterion_args = crate::strings(&settings, "criterion_args");
    let targets = parse_targets(&config)?;

    // Builds this machine can run, each with its bench executables by name.
    let mut builds = vec![];
    for build in &BUILDS {
        let runnable = build.rustflags.is_empty() || (crate::host_has("avx2") && crate::host_has("fma"));
        if !runnable {
            eprintln!("xtask targets: this CPU lacks AVX2/FMA, so the {} rows are not measured", build.name);
            continue;
        }
        builds.push((build, bench_executables(build)?));
    }

    let mut medians = Medians::new();
    for round in 0..rounds {
        for (build, executables) in &builds {
            // One criterion run per bench file, covering every target of that file and their baselines.
            let mut by_bench: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for t in targets.iter().filter(|t| t.limit_ns.contains_key(build.name)) {
                by_bench.entry(&t.bench).or_default().extend([t.id.as_str(), t.baseline.as_str()]);
            }
            for (bench, ids) in by_bench {
                let exe = executables.get(bench).ok_or(format!("no bench named `{bench}` in sinew-bench-host"))?;
                let home = root.join("target/xtask-targets").join(build.name).join(round.to_string()).join(bench);
                if let Err(e) = std::fs::remove_dir_all(&home)
                    && e.kind() != std::io::ErrorKind::NotFound
                {
                    return Err(format!("{}: {e}", home.display()));
                }
                let filter = format!("^({})$", ids.join("|"));
                let mut c = crate::pinned(exe);
                c.current_dir(&root).env("CRITERION_HOME", &home);
                c.args(["--bench", "--noplot"]).args(&criterion_args).arg(&filter);
                eprintln!("xtask targets: round {} of {rounds}, {}, {bench}", round + 1, build.name);
                crate::stdout_of(c)?;
                let mut rows = vec![];
                crate::collect_estimates(&home, &mut rows);
                for (id, median_ns, elements) in rows {
                    let per_joint = targets.iter().any(|t| t.per_joint && (t.id == id || t.baseline == id));
                    let value = if per_joint { median_ns / elements.unwrap_or(f64::NAN) } else { median_ns };
                    medians.entry((build.name, id)).or_default().push(value);
                }
            }
        }
    }
    report(&targets, &builds.iter().map(|(b, _)| b.name).collect::<Vec<_>>(), &medians, rounds)
}

fn parse_targets(config: &toml::Table) -> Result<Vec<Target>, String> {
    let rows = config.get("target").and_then(|t| t.as_array()).ok_or("targets.toml: no [[target]]")?;
    rows.iter()
        .map(|row| {
            let text = |key: &str| {
                row.get(key)
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
                    .ok_or(format!("targets.toml: a target lacks `{key}`"))
            };
            let limits =
                row.get("limit_ns").and_then(|v| v.as_table()).ok_or("targets.toml: a target lacks `limit_ns`")?;
            let limit_ns = limits
                .iter()
                .map(|(build, v)| {
                    let limit = v.as_float().ok_or(format!("targets.toml: limit_ns.{build} is not a number"))?;
                    Ok((build.clone(), limit))
                })
                .collect::<Result<_, String>>()?;
            let per = text("per")?;
            if per != "joint" && per != "run" {
                return Err(format!("targets.toml: per = \"{per}\"; expected \"joint\" or \"run\""));
            }
            Ok(Target {
                issue: row.get("issue").and_then(|v| v.as_integer()).unwrap_or(0),
                what: text("what")?,
                bench: text("bench")?,
                id: text("id")?,
                baseline: text("baseline")?,
                per_joint: per == "joint",
                limit_ns,
            })
        })
        .collect()
}

/// Builds the bench-host benches for `build` and returns their executables by bench name.
fn bench_executables(build: &Build) -> Result<BTreeMap<String, PathBuf>, String> {
    let mut c = crate::cargo_with(&["bench", "-p", "sinew-bench-host", "--no-run", "--message-format=json"]);
    c.args(["--target-dir", build.target_dir]);
    if !build.rustflags.is_empty() {
        c.env("RUSTFLAGS", build.rustflags);
    }
    eprintln!("    $ {c:?}");
    let stdout = crate::stdout_of(c)?;
    let mut executables = BTreeMap::new();
    for line in String::from_utf8_lossy(&stdout).lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else { continue };
        let is_bench = message["target"]["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "bench"));
        if let (true, Some(name), Some(exe)) =
            (is_bench, message["target"]["name"].as_str(), message["executable"].as_str())
        {
            executables.insert(name.to_string(), PathBuf::from(exe));
        }
    }
    Ok(executables)
}

fn report(targets: &[Target], builds: &[&str], medians: &Medians, rounds: usize) -> Result<(), String> {
    let range = |values: &[f64]| {
        let (lo, hi) = values.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
        (lo, hi)
    };
    let show =
        |ns: f64, per_joint: bool| if per_joint { format!("{ns:.2} ns") } else { format!("{:.1} µs", ns / 1000.0) };
    println!(
        "\n{:<5} {:<66} {:<9} {:>10} {:>21} {:>21} {:>11}  met",
        "issue", "target", "build", "limit", "sinew (rounds)", "glam (rounds)", "glam/sinew"
    );
    for t in targets {
        for &build in builds {
            let Some(&limit) = t.limit_ns.get(build) else { continue };
            let key = |id: &str| (build, id.to_string());
            let (Some(ours), Some(glam)) = (medians.get(&key(&t.id)), medians.get(&key(&t.baseline))) else {
                return Err(format!("no criterion result for `{}` or `{}` ({build})", t.id, t.baseline));
            };
            let ((lo, hi), (glam_lo, glam_hi)) = (range(ours), range(glam));
            let met = ours.iter().filter(|&&v| v <= limit).count();
            let verdict = match met {
                0 => "no".to_string(),
                m if m == ours.len() => "yes".to_string(),
                m => format!("{m} of {} rounds", ours.len()),
            };
            println!(
                "{:<5} {:<66} {:<9} {:>10} {:>21} {:>21} {:>5.1}–{:<5.1}  {verdict}",
                t.issue,
                t.what,
                build,
                show(limit, t.per_joint),
                format!("{} – {}", show(lo, t.per_joint), show(hi, t.per_joint)),
                format!("{} – {}", show(glam_lo, t.per_joint), show(glam_hi, t.per_joint)),
                glam_lo / hi,
                glam_hi / lo,
            );
        }
    }
    println!(
        "\n{rounds} round(s) per row; each value is one criterion median, pinned with `taskset -c 1` when present."
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checked-in file parses, names only builds `targets` runs, and sets a positive limit everywhere.
    #[test]
    fn checked_in_targets_parse() {
        let (config, _) = crate::read_config("targets.toml").expect("targets.toml is readable TOML with [settings]");
        let targets = parse_targets(&config).expect("every target is complete");
        assert!(!targets.is_empty());
        for t in &targets {
            assert!(!t.limit_ns.is_empty(), "{}: no limit", t.what);
            for (build, limit) in &t.limit_ns {
                assert!(BUILDS.iter().any(|b| b.name == build), "{}: unknown build `{build}`", t.what);
                assert!(*limit > 0.0, "{}: limit {limit}", t.what);
            }
            assert!(
                t.id.starts_with(&t.bench) && t.baseline.starts_with(&t.bench),
                "{}: ids outside its bench",
                t.what
            );
        }
    }

    #[test]
    fn a_target_without_per_is_an_error() {
        let config: toml::Table = r#"
            [[target]]
            what = "x"
            bench = "b"
            id = "b/x"
            baseline = "b/y"
            limit_ns = { sse2 = 1.0 }
        "#
        .parse()
        .expect("valid TOML");
        assert_eq!(parse_targets(&config).err().as_deref(), Some("targets.toml: a target lacks `per`"));
    }
}
