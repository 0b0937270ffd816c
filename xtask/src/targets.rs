//! `cargo xtask targets`: the performance targets (`targets.toml`), as ratios measured in one run.
//!
//! Each build (SSE2 baseline, x86-64-v3) compiles the bench-host benches once, then `settings.rounds` rounds run
//! every target's bench for every build in turn, pinned to one core, each target beside its naive glam baseline
//! and a memcpy of its output bytes in the same criterion run. Alternating the builds round by round spreads the
//! host's slow spells over both. Each run gets an emptied `target/xtask-targets/<build>/<round>/<bench>` as
//! criterion's home, so the report never reads an older run.
//!
//! Per round, `glam / sinew` and `sinew / memcpy` are taken from that round's medians (the same sitting), so a
//! slow spell that hits every bench of a round cancels. The report gives each ratio's range over rounds and its
//! recorded floor (or ceiling), and calls a row `worse` when the median round's ratio is past the record by
//! more than the rounds' own spread. It fails only when something cannot be built, run or read.

use crate::budgets::{BUILDS, Build};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One row of `targets.toml`.
struct Target {
    what: String,
    bench: String,
    id: String,
    baseline: String,
    memcpy: String,
    per_joint: bool,
    /// Build name → recorded glam / sinew speed-up (a floor).
    glam_speedup: BTreeMap<String, f64>,
    /// Build name → recorded sinew / memcpy time ratio (a ceiling).
    memcpy_ratio: BTreeMap<String, f64>,
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
        if !runnable(build) {
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
            for t in targets.iter().filter(|t| t.glam_speedup.contains_key(build.name)) {
                by_bench.entry(&t.bench).or_default().extend([t.id.as_str(), t.baseline.as_str(), t.memcpy.as_str()]);
            }
            for (bench, ids) in by_bench {
                let exe = executables.get(bench).ok_or(format!("no bench named `{bench}` in sinew-bench-host"))?;
                let home = root.join("target/xtask-targets").join(build.name).join(round.to_string()).join(bench);
                eprintln!("xtask targets: round {} of {rounds}, {}, {bench}", round + 1, build.name);
                let rows = criterion_medians(exe, &home, &ids, &criterion_args)?;
                for (id, median_ns, elements) in rows {
                    let per_joint =
                        targets.iter().any(|t| t.per_joint && [&t.id, &t.baseline, &t.memcpy].contains(&&id));
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
            let per_build = |key: &str| -> Result<BTreeMap<String, f64>, String> {
                let table =
                    row.get(key).and_then(|v| v.as_table()).ok_or(format!("targets.toml: a target lacks `{key}`"))?;
                table
                    .iter()
                    .map(|(build, v)| {
                        let value = v.as_float().ok_or(format!("targets.toml: {key}.{build} is not a number"))?;
                        Ok((build.clone(), value))
                    })
                    .collect()
            };
            let per = text("per")?;
            if per != "joint" && per != "run" {
                return Err(format!("targets.toml: per = \"{per}\"; expected \"joint\" or \"run\""));
            }
            Ok(Target {
                what: text("what")?,
                bench: text("bench")?,
                id: text("id")?,
                baseline: text("baseline")?,
                memcpy: text("memcpy")?,
                per_joint: per == "joint",
                glam_speedup: per_build("glam_speedup")?,
                memcpy_ratio: per_build("memcpy_ratio")?,
            })
        })
        .collect()
}

/// Whether this CPU runs `build`'s code (the x86-64-v3 build needs AVX2 and FMA).
pub(crate) fn runnable(build: &Build) -> bool {
    build.rustflags.is_empty() || (crate::host_has("avx2") && crate::host_has("fma"))
}

/// Runs the criterion benches of `exe` whose ids are in `ids`, pinned, with `home` (emptied first) as
/// criterion's home so that nothing older is read; returns each bench's id, median ns and element count.
pub(crate) fn criterion_medians(
    exe: &std::path::Path,
    home: &std::path::Path,
    ids: &[&str],
    criterion_args: &[String],
) -> Result<Vec<(String, f64, Option<f64>)>, String> {
    if let Err(e) = std::fs::remove_dir_all(home)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        return Err(format!("{}: {e}", home.display()));
    }
    let filter = format!("^({})$", ids.join("|"));
    let mut c = crate::pinned(exe);
    c.current_dir(crate::root()).env("CRITERION_HOME", home);
    c.args(["--bench", "--noplot"]).args(criterion_args).arg(&filter);
    crate::stdout_of(c)?;
    let mut rows = vec![];
    crate::collect_estimates(home, &mut rows);
    Ok(rows)
}

/// Builds the bench-host benches for `build` and returns their executables by bench name.
pub(crate) fn bench_executables(build: &Build) -> Result<BTreeMap<String, PathBuf>, String> {
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

/// The middle value (the lower middle of an even count).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[(sorted.len() - 1) / 2]
}

/// `worse` when the median of `ratios` is past `record` (in the direction `higher_is_better`) by more than
/// the ratios' own spread over rounds, else `ok`.
fn verdict(ratios: &[f64], record: f64, higher_is_better: bool) -> &'static str {
    let (lo, hi) = ratios.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let spread = hi - lo;
    let m = median(ratios);
    let worse = if higher_is_better { m < record - spread } else { m > record + spread };
    if worse { "worse" } else { "ok" }
}

fn report(targets: &[Target], builds: &[&str], medians: &Medians, rounds: usize) -> Result<(), String> {
    let range = |values: &[f64]| {
        let (lo, hi) = values.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
        format!("{lo:.2}–{hi:.2}")
    };
    let show =
        |ns: f64, per_joint: bool| if per_joint { format!("{ns:.2} ns") } else { format!("{:.1} µs", ns / 1000.0) };
    println!(
        "\n{:<66} {:<9} {:>12} {:>12} {:>8} {:>6} {:>12} {:>8} {:>6}",
        "target", "build", "sinew (med)", "glam/sinew", "floor", "", "sinew/memcpy", "ceiling", ""
    );
    for t in targets {
        for &build in builds {
            let (Some(&floor), Some(&ceiling)) = (t.glam_speedup.get(build), t.memcpy_ratio.get(build)) else {
                continue;
            };
            let get = |id: &str| {
                medians.get(&(build, id.to_string())).ok_or(format!("no criterion result for `{id}` ({build})"))
            };
            let (ours, glam, copy) = (get(&t.id)?, get(&t.baseline)?, get(&t.memcpy)?);
            let speedups: Vec<f64> = glam.iter().zip(ours).map(|(g, s)| g / s).collect();
            let copy_ratios: Vec<f64> = ours.iter().zip(copy).map(|(s, c)| s / c).collect();
            println!(
                "{:<66} {:<9} {:>12} {:>12} {:>8.2} {:>6} {:>12} {:>8.2} {:>6}",
                t.what,
                build,
                show(median(ours), t.per_joint),
                range(&speedups),
                floor,
                verdict(&speedups, floor, true),
                range(&copy_ratios),
                ceiling,
                verdict(&copy_ratios, ceiling, false),
            );
        }
    }
    println!(
        "\n{rounds} round(s) per row; ratios are taken within each round (same sitting), pinned with `taskset -c 1` when present."
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
            assert!(!t.glam_speedup.is_empty(), "{}: no floor", t.what);
            assert_eq!(t.glam_speedup.keys().collect::<Vec<_>>(), t.memcpy_ratio.keys().collect::<Vec<_>>());
            for (build, ratio) in t.glam_speedup.iter().chain(&t.memcpy_ratio) {
                assert!(BUILDS.iter().any(|b| b.name == build), "{}: unknown build `{build}`", t.what);
                assert!(*ratio > 0.0, "{}: ratio {ratio}", t.what);
            }
            assert!(
                [&t.id, &t.baseline, &t.memcpy].iter().all(|id| id.starts_with(&t.bench)),
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
            memcpy = "b/z"
            glam_speedup = { sse2 = 1.0 }
            memcpy_ratio = { sse2 = 2.0 }
        "#
        .parse()
        .expect("valid TOML");
        assert_eq!(parse_targets(&config).err().as_deref(), Some("targets.toml: a target lacks `per`"));
    }

    #[test]
    fn a_ratio_is_worse_only_past_the_rounds_spread() {
        // Speed-ups 1.8, 2.0, 2.2 (spread 0.4) against a floor of 2.5: the median 2.0 is within 2.5 - 0.4.
        assert_eq!(verdict(&[1.8, 2.0, 2.2], 2.5, true), "worse");
        assert_eq!(verdict(&[1.8, 2.0, 2.2], 2.3, true), "ok");
        assert_eq!(verdict(&[1.9, 2.0, 2.1], 2.0, true), "ok");
        // Time over memcpy (lower is better): 5.0 median, spread 0.2, ceiling 4.7.
        assert_eq!(verdict(&[4.9, 5.0, 5.1], 4.7, false), "worse");
        assert_eq!(verdict(&[4.9, 5.0, 5.1], 4.85, false), "ok");
    }
}
