//! `cargo xtask peer`: sinew against ozz-animation-rs (the peer harness in `../shared/peer/ozz-rs`), stage by
//! stage, as ratios from one sitting; then against ACL (`crate::acl`), clip by clip.
//!
//! The harness is not part of the project: it needs nightly (`std::simd`) and its own patched copy of the
//! crate, so it is set up under `target/peer` as its harness README says (fetch, patch, add `[patch]`), with
//! `xtask/peer/skinning.rs` beside it as a second binary (the `SkinningJob` with 1, 2 and 4 influences,
//! positions alone and with normals, on the mesh of sinew's `vertex_skinning_peer_mesh` bench). Both builds
//! (SSE2 and x86-64-v3, the same flags on both sides) are compiled first; then each round runs, per build, the
//! peer's binaries and the matching criterion benches one after the other, pinned to one core. A ratio
//! `peer / sinew` is taken within a round, so a slow spell that hits the whole round cancels; the report gives
//! each ratio's range over rounds. Not part of `ci`: it needs nightly and several quiet minutes.

use crate::budgets::{BUILDS, Build};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The harness rig whose rows are compared: synthetic dense clips, as sinew's benches sample.
const PEER_RIG: &str = "synthetic dense 30 Hz T+R+S";
/// Joint counts both sides measure.
const JOINTS: [usize; 3] = [67, 256, 1024];

/// A harness row (its operation column) and the criterion bench measuring the same work in sinew.
struct Stage {
    what: &'static str,
    peer: &'static str,
    bench: &'static str,
    /// The criterion id with `{}` for the joint count (or the influence count for vertex skinning).
    id: &'static str,
}

const STAGES: [Stage; 6] = [
    Stage {
        what: "sampling, playback (+1/60 s per call)",
        peer: "sample (playback, +1/60 s per call)",
        bench: "sampling",
        id: "sampling/sinew_playback_f32/{}",
    },
    Stage {
        what: "sampling, interpolation only (keys cached)",
        peer: "sample (same ratio, cache hot: interpolate only)",
        bench: "sampling",
        id: "sampling/sinew_interpolate_only/{}",
    },
    Stage {
        what: "sampling, random seek",
        peer: "sample (cold seek to 0.5, context invalidated)",
        bench: "sampling",
        id: "sampling/sinew_seek_f32/{}",
    },
    Stage {
        what: "blend, 2 layers",
        peer: "blend 2 layers (full-body weights)",
        bench: "blending",
        id: "blending/sinew_2_layers_plain/{}",
    },
    Stage {
        what: "local-to-model",
        peer: "local-to-model (full hierarchy)",
        bench: "local_to_model",
        id: "local_to_model/sinew_soa/{}",
    },
    Stage {
        what: "skinning matrices (Mat4)",
        peer: "skinning matrices (model * inv bind, glam Mat4)",
        bench: "skinning_matrices",
        id: "skinning_matrices/sinew_mat4/{}",
    },
];

/// Vertex skinning rows: the peer binary's attribute column, sinew's criterion id prefix.
const SKINNING: [(&str, &str); 2] = [
    ("positions", "vertex_skinning_peer_mesh/sinew_positions"),
    ("positions_normals", "vertex_skinning_peer_mesh/sinew_positions_normals"),
];
const INFLUENCES: [usize; 3] = [1, 2, 4];

/// One compared row: what it is, sinew's criterion id, and the key of the peer's row.
struct Row {
    what: String,
    bench: &'static str,
    id: String,
    peer_key: String,
}

fn rows() -> Vec<Row> {
    let mut rows = vec![];
    for stage in &STAGES {
        for n in JOINTS {
            rows.push(Row {
                what: format!("{}, {n} joints", stage.what),
                bench: stage.bench,
                id: stage.id.replace("{}", &n.to_string()),
                peer_key: format!("{PEER_RIG}|{n}|{}", stage.peer),
            });
        }
    }
    for (attributes, id) in SKINNING {
        for k in INFLUENCES {
            rows.push(Row {
                what: format!("vertex skinning, 8192 vertices, {k} influence(s), {}", attributes.replace('_', " + ")),
                bench: "vertex_skinning",
                id: format!("{id}/{k}"),
                peer_key: format!("SkinningJob|{attributes}|{k}"),
            });
        }
    }
    rows
}

/// `cargo xtask peer [--rounds N] [--only ozz|acl]`: both peers' tables, or one.
pub fn peer(args: &[String]) -> Result<(), String> {
    let rounds = crate::positive_count(args, "--rounds")?.unwrap_or(3);
    match args.iter().position(|a| a == "--only").map(|i| args.get(i + 1).map(String::as_str)) {
        None => ozz(rounds).and_then(|()| crate::acl::compare(rounds)),
        Some(Some("ozz")) => ozz(rounds),
        Some(Some("acl")) => crate::acl::compare(rounds),
        Some(_) => Err("--only takes `ozz` or `acl`".into()),
    }
}

/// The ozz-animation-rs table.
fn ozz(rounds: usize) -> Result<(), String> {
    let root = crate::root();
    let source = root.join("../shared/peer/ozz-rs");
    if !source.join("main.rs").is_file() {
        return Err(format!("the peer harness is not at {}", source.display()));
    }
    let dir = root.join("target/peer");
    set_up(&root, &source, &dir)?;
    let (_, settings) = crate::read_config("targets.toml")?;
    let criterion_args = crate::strings(&settings, "criterion_args");
    let rows = rows();

    let mut builds = vec![];
    for build in BUILDS.iter().filter(|b| crate::targets::runnable(b)) {
        let peer_bin = build_peer(&dir, build)?;
        builds.push((build, peer_bin, crate::targets::bench_executables(build)?));
    }
    // (build, criterion id or peer key) → one median per round, ns.
    let mut sinew: BTreeMap<(&str, String), Vec<f64>> = BTreeMap::new();
    let mut peer: BTreeMap<(&str, String), Vec<f64>> = BTreeMap::new();
    for round in 0..rounds {
        for (build, peer_bin, executables) in &builds {
            eprintln!("xtask peer: round {} of {rounds}, {}, the peer", round + 1, build.name);
            for binary in ["ozzpeer", "skinning"] {
                let mut c = crate::pinned(&peer_bin.join(binary));
                c.current_dir(&dir);
                for (key, ns) in parse_peer(&String::from_utf8_lossy(&crate::stdout_of(c)?)) {
                    peer.entry((build.name, key)).or_default().push(ns);
                }
            }
            let mut by_bench: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for row in &rows {
                by_bench.entry(row.bench).or_default().push(&row.id);
            }
            for (bench, ids) in by_bench {
                let exe = executables.get(bench).ok_or(format!("no bench named `{bench}` in sinew-bench-host"))?;
                let home = dir.join("criterion").join(build.name).join(round.to_string()).join(bench);
                eprintln!("xtask peer: round {} of {rounds}, {}, {bench}", round + 1, build.name);
                for (id, median_ns, _) in crate::targets::criterion_medians(exe, &home, &ids, &criterion_args)? {
                    sinew.entry((build.name, id)).or_default().push(median_ns);
                }
            }
        }
    }
    report(&rows, &builds.iter().map(|(b, _, _)| b.name).collect::<Vec<_>>(), &sinew, &peer, rounds)
}

/// Copies the harness into `dir`, fetches the crate once, patches a copy of it as the harness README says, and
/// points the harness at the copy. Idempotent: a patched copy already there is kept.
fn set_up(root: &Path, source: &Path, dir: &Path) -> Result<(), String> {
    let io = |what: &Path, e: std::io::Error| format!("{}: {e}", what.display());
    std::fs::create_dir_all(dir.join("src/bin")).map_err(|e| io(dir, e))?;
    std::fs::create_dir_all(dir.join("data")).map_err(|e| io(dir, e))?;
    let copy = |from: PathBuf, to: PathBuf| std::fs::copy(&from, &to).map(|_| ()).map_err(|e| io(&from, e));
    copy(source.join("main.rs"), dir.join("src/main.rs"))?;
    copy(root.join("xtask/peer/skinning.rs"), dir.join("src/bin/skinning.rs"))?;
    for data in ["blend_skeleton.ozz", "blend_animation1.ozz", "blend_animation2.ozz"] {
        copy(source.join(data), dir.join("data").join(data))?;
    }
    let template = std::fs::read_to_string(source.join("Cargo.toml.in")).map_err(|e| io(source, e))?;
    // The harness is its own workspace (it sits inside sinew's tree), without its `[patch]` until the copy exists.
    let manifest = match template.find("[patch.crates-io]") {
        Some(at) => format!("{}\n[workspace]\n", &template[..at]),
        None => format!("{template}\n[workspace]\n"),
    };
    let patched = dir.join("ozz-rs-patched");
    if !patched.is_dir() {
        std::fs::write(dir.join("Cargo.toml"), &manifest).map_err(|e| io(dir, e))?;
        let mut fetch = nightly_cargo(dir);
        fetch.arg("fetch");
        crate::run(fetch)?;
        let crate_source = registry_copy("ozz-animation-rs-0.11.0")?;
        let staging = dir.join("ozz-rs-staging");
        let _ = std::fs::remove_dir_all(&staging);
        let mut cp = Command::new("cp");
        cp.arg("-r").arg(&crate_source).arg(&staging);
        crate::run(cp)?;
        let diff = std::fs::File::open(source.join("nightly-fix.diff")).map_err(|e| io(source, e))?;
        let mut patch = Command::new("patch");
        patch.args(["-p1", "--quiet"]).current_dir(&staging).stdin(diff);
        crate::run(patch).map_err(|e| format!("{e} (needs `patch`: apt-get install patch)"))?;
        let mut fix = Command::new("python3");
        fix.arg(source.join("outdated-fix.py")).arg("src/sampling_job.rs").current_dir(&staging);
        crate::run(fix).map_err(|e| format!("{e} (needs python3)"))?;
        std::fs::rename(&staging, &patched).map_err(|e| io(&staging, e))?;
    }
    let manifest = format!("{manifest}\n[patch.crates-io]\nozz-animation-rs = {{ path = \"ozz-rs-patched\" }}\n");
    std::fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| io(dir, e))
}

/// `cargo` of the nightly toolchain, in `dir`, with no flags leaking in from the caller.
fn nightly_cargo(dir: &Path) -> Command {
    let mut c = Command::new("rustup");
    c.args(["run", "nightly", "cargo"]).current_dir(dir);
    for var in ["RUSTFLAGS", "CARGO_TARGET_DIR", "CARGO", "RUSTC", "RUSTUP_TOOLCHAIN"] {
        c.env_remove(var);
    }
    c
}

/// The unpacked source of `name` in cargo's registry cache.
fn registry_copy(name: &str) -> Result<PathBuf, String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set")?;
    let registry = home.join("registry/src");
    let indexes = std::fs::read_dir(&registry).map_err(|e| format!("{}: {e}", registry.display()))?;
    indexes
        .flatten()
        .map(|index| index.path().join(name))
        .find(|path| path.is_dir())
        .ok_or(format!("{name} is not under {} after `cargo fetch`", registry.display()))
}

/// Builds the harness for `build` (the same flags as sinew's build) and returns its binaries' folder.
fn build_peer(dir: &Path, build: &Build) -> Result<PathBuf, String> {
    let target = dir.join("build").join(build.name);
    let mut c = nightly_cargo(dir);
    c.args(["build", "--release", "--bins", "--target-dir"]).arg(&target);
    if !build.rustflags.is_empty() {
        c.env("RUSTFLAGS", build.rustflags);
    }
    crate::run(c).map_err(|e| format!("{e} (the peer needs nightly: rustup toolchain install nightly)"))?;
    Ok(target.join("release"))
}

/// `(key, median ns)` of every table row the harness binaries print: `rig|joints|operation` for the stage
/// rows, `SkinningJob|attributes|influences` for the skinning binary's.
fn parse_peer(output: &str) -> Vec<(String, f64)> {
    output
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
            match cells.as_slice() {
                ["SkinningJob", _, attributes, influences, median] if influences.parse::<usize>().is_ok() => {
                    Some((format!("SkinningJob|{attributes}|{influences}"), median.parse().ok()?))
                }
                [rig, joints, operation, median, _, _, _] if joints.parse::<usize>().is_ok() => {
                    Some((format!("{rig}|{joints}|{operation}"), median.parse().ok()?))
                }
                _ => None,
            }
        })
        .collect()
}

type Medians<'a> = BTreeMap<(&'a str, String), Vec<f64>>;

fn report(rows: &[Row], builds: &[&str], sinew: &Medians, peer: &Medians, rounds: usize) -> Result<(), String> {
    println!("\n| stage | build | sinew (median) | peer (median) | peer / sinew (range over rounds) |");
    println!("|---|---|---|---|---|");
    for row in rows {
        for &build in builds {
            let ours = sinew.get(&(build, row.id.clone())).ok_or(format!("no criterion result for `{}`", row.id))?;
            let theirs = peer
                .get(&(build, row.peer_key.clone()))
                .ok_or(format!("the peer printed no `{}` row", row.peer_key))?;
            let ratios: Vec<f64> = theirs.iter().zip(ours).map(|(p, s)| p / s).collect();
            let (lo, hi) = ratios.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
            let show = |ns: f64| if ns < 10_000.0 { format!("{ns:.0} ns") } else { format!("{:.1} µs", ns / 1000.0) };
            println!(
                "| {} | {build} | {} | {} | {lo:.2}–{hi:.2} |",
                row.what,
                show(crate::targets::median(ours)),
                show(crate::targets::median(theirs))
            );
        }
    }
    println!(
        "\n{rounds} round(s); each ratio is the peer's median over sinew's within one round (above 1: sinew is faster), both pinned with `taskset -c 1` when present."
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_rows_parse_and_headers_do_not() {
        let output = "| rig | joints | operation | median ns/call | min | mean | median ns/joint |\n\
                      |---|---|---|---|---|---|---|\n\
                      | synthetic dense 30 Hz T+R+S | 256 | local-to-model (full hierarchy) | 1805 | 1789 | 1819 | 7.05 |\n\
                      | SkinningJob | 8192 verts | positions_normals | 4 | 49253 |\n\
                      | SkinningJob | 8192 verts | 4 infl, pos+normal | 50433 | 49350 | 50988 | 6.16 ns/vertex |\n";
        let rows = parse_peer(output);
        assert_eq!(
            rows,
            vec![
                ("synthetic dense 30 Hz T+R+S|256|local-to-model (full hierarchy)".to_string(), 1805.0),
                ("SkinningJob|positions_normals|4".to_string(), 49253.0),
            ]
        );
    }

    #[test]
    fn every_row_names_a_bench_and_a_peer_row() {
        let rows = rows();
        assert_eq!(rows.len(), STAGES.len() * JOINTS.len() + SKINNING.len() * INFLUENCES.len());
        for row in &rows {
            assert!(row.id.starts_with(row.bench) && !row.id.contains("{}"), "{}", row.id);
            assert!(!row.peer_key.is_empty());
        }
    }
}
