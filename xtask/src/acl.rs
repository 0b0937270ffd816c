//! `cargo xtask peer`'s second peer: sinew's compressed clips against ACL 2.1.0 (its headers and driver in
//! `../shared/peer/acl`), clip by clip.
//!
//! Each source is baked by `sinew-bench codec` at `sinew-bake --compress`'s default bound (0.05 cm at 3 cm
//! virtual points on the figure scaled to 1.7 m). The same command writes the source as ACL's raw clip (the
//! same `f32` values) and sinew's decoded poses. The driver, built with the system C++ compiler for each build,
//! then judges both with one error measure: the joint and three virtual points, f64 composition, every frame and
//! midpoint. It does three things. It checks sinew's poses, so a clip written wrong is caught: sinew keeps its
//! bound. It compresses with ACL's recommended defaults (level automatic, `qvvf_transform_error_metric`) at the
//! same bound. And it lowers ACL's precision by 5 % steps until ACL's measured max error is within the bound:
//! the ratio at equal max error. Decode times per full pose (far seeks, 60 Hz playback) alternate between the
//! two, pinned to one core, and each ratio is taken within a round.

use crate::budgets::{BUILDS, Build};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The compared sources: the table's name, a BVH file under the workspace root or a procedural rig, and how
/// many frames to step (every 4th frame of a 120 Hz take is a 30 Hz take).
const SOURCES: [(&str, &str, usize); 8] = [
    ("Bandai walk, 30 Hz", "../shared/data/bvh/bandai/dataset-1_walk_normal_001.bvh", 1),
    ("Bandai kick, 30 Hz", "../shared/data/bvh/bandai/dataset-1_kick_normal_001.bvh", 1),
    ("Bandai dance-short, 30 Hz", "../shared/data/bvh/bandai/dataset-1_dance-short_normal_001.bvh", 1),
    ("Bandai run, 30 Hz", "../shared/data/bvh/bandai/dataset-2_run_normal_001.bvh", 1),
    ("CMU 01_01, 120 Hz", "../shared/data/bvh/cmu/01_01.bvh", 1),
    ("CMU 01_01 every 4th frame, 30 Hz", "../shared/data/bvh/cmu/01_01.bvh", 4),
    ("procedural humanoid, 67 joints", "humanoid-67", 1),
    ("procedural humanoid, 256 joints", "humanoid-256", 1),
];
/// How far ACL's precision is lowered per try, and how many tries before giving up on equal error.
const PRECISION_STEP: f64 = 0.95;
const PRECISION_TRIES: usize = 60;
/// Full-pose decodes per timed round, and rounds inside each process (its median is the process's figure).
const SAMPLES: &str = "50000";
const INNER_ROUNDS: &str = "5";

/// One source as both sides compressed it.
struct Compared {
    what: &'static str,
    codec_args: Vec<String>,
    clip: PathBuf,
    sinew: Value,
    sinew_max: f64,
    same_bound: Value,
    equal_error: Option<(f64, Value)>,
}

/// Compares every source that is present, prints the tables. Errors: the driver or sinew's codec failing, or
/// sinew's decoded poses past its bound under the driver's measure.
pub fn compare(rounds: usize) -> Result<(), String> {
    let root = crate::root();
    let source = root.join("../shared/peer/acl");
    if !source.join("acl_bench.cpp").is_file() {
        return Err(format!("the ACL peer is not at {}", source.display()));
    }
    let dir = root.join("target/peer/acl");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut builds = vec![];
    for build in BUILDS.iter().filter(|b| crate::targets::runnable(b)) {
        builds.push((build, build_driver(&source, &dir, build)?, crate::budgets::build_profiler(build)?));
    }
    let (_, sse2_driver, sse2_codec) = builds.first().ok_or("no build runs on this host")?;
    let mut compared = vec![];
    for (index, &(what, path, every)) in SOURCES.iter().enumerate() {
        let source_arg =
            if path.starts_with("humanoid-") { path.to_string() } else { root.join(path).display().to_string() };
        if !path.starts_with("humanoid-") && !Path::new(&source_arg).is_file() {
            eprintln!("xtask peer: {what} skipped, {source_arg} is not here (shared data absent)");
            continue;
        }
        eprintln!("xtask peer: ACL, compressing {what}");
        compared.push(compress(sse2_driver, sse2_codec, &dir.join(index.to_string()), what, source_arg, every)?);
    }
    let mut times: Vec<Vec<DecodeTimes>> = vec![vec![]; builds.len() * compared.len()];
    for round in 0..rounds {
        for (b, (build, driver, codec)) in builds.iter().enumerate() {
            eprintln!("xtask peer: round {} of {rounds}, {}, ACL decode times", round + 1, build.name);
            for (c, clip) in compared.iter().enumerate() {
                times[b * compared.len() + c].push(decode_times(driver, codec, clip)?);
            }
        }
    }
    report(&compared, &builds.iter().map(|(b, _, _)| b.name).collect::<Vec<_>>(), &times, rounds)
}

/// Builds the driver for `build` into `dir` (once per build; rebuilt when the source is newer).
fn build_driver(source: &Path, dir: &Path, build: &Build) -> Result<PathBuf, String> {
    let driver = dir.join(format!("acl_bench-{}", build.name));
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if driver.is_file() && modified(&driver) >= modified(&source.join("acl_bench.cpp")) {
        return Ok(driver);
    }
    let mut c = Command::new(std::env::var("CXX").unwrap_or_else(|_| "c++".into()));
    c.args(["-O2", "-std=c++17", "-DACL_USE_SJSON"]);
    for include in ["acl/includes", "rtm/includes", "sjson-cpp/includes"] {
        c.arg("-I").arg(source.join(include));
    }
    c.args(build.cxx_flag);
    c.arg(source.join("acl_bench.cpp")).arg("-o").arg(&driver);
    crate::run(c).map_err(|e| format!("{e} (the ACL driver needs a C++17 compiler: apt-get install g++)"))?;
    Ok(driver)
}

fn json(command: Command) -> Result<Value, String> {
    let out = crate::stdout_of(command)?;
    serde_json::from_slice(&out).map_err(|e| format!("unreadable JSON ({e}): {}", String::from_utf8_lossy(&out)))
}

fn number(value: &Value, key: &str) -> Result<f64, String> {
    value.get(key).and_then(Value::as_f64).ok_or(format!("no number `{key}` in {value}"))
}

/// The driver on `clip` at `precision` with sinew's virtual point distance, plus `extra`.
fn driver_at(driver: &Path, clip: &Path, precision: f64, distance: f64, extra: &[&str]) -> Command {
    let mut c = crate::pinned(driver);
    c.arg(clip).args(["--level", "automatic", "--precision", &precision.to_string(), "--shell", &distance.to_string()]);
    c.args(extra);
    c
}

fn compress(
    driver: &Path,
    codec: &Path,
    stem: &Path,
    what: &'static str,
    source: String,
    every: usize,
) -> Result<Compared, String> {
    let (clip, poses) = (stem.with_extension("acl.sjson"), stem.with_extension("poses"));
    let codec_args = vec![source, "--every".into(), every.to_string()];
    let mut c = Command::new(codec);
    c.arg("codec").args(&codec_args).arg("--acl-clip").arg(&clip).arg("--poses").arg(&poses);
    let sinew = json(c)?;
    let (bound, distance) = (number(&sinew, "bound")?, number(&sinew, "distance")?);
    let poses = poses.display().to_string();
    let check = json(driver_at(driver, &clip, bound, distance, &["--check-poses", &poses]))?;
    let sinew_max = number(&check, "max")?;
    // f32 composition on sinew's side and f64 here differ far below this margin.
    if sinew_max > bound * 1.001 {
        return Err(format!(
            "{what}: sinew's decoded poses reach {sinew_max} against its bound {bound} under the driver's measure: the raw clip as written and sinew's source disagree"
        ));
    }
    let same_bound = json(driver_at(driver, &clip, bound, distance, &[]))?;
    let mut precision = bound;
    let mut equal_error = None;
    for _ in 0..PRECISION_TRIES {
        let acl = json(driver_at(driver, &clip, precision, distance, &[]))?;
        if number(&acl, "sinew_metric_max")? <= bound {
            equal_error = Some((precision, acl));
            break;
        }
        precision *= PRECISION_STEP;
    }
    Ok(Compared { what, codec_args, clip, sinew, sinew_max, same_bound, equal_error })
}

/// One round's median ns per full-pose decode of one clip, sinew's and ACL's, on the driver's two sequences.
#[derive(Clone, Copy, Debug)]
struct DecodeTimes {
    /// Far seeks: sinew, ACL.
    seek: [f64; 2],
    /// 60 Hz playback: sinew, ACL.
    play60: [f64; 2],
}

/// One round on one clip: sinew's seek and playback times, and ACL's (at equal error, else at the same bound).
fn decode_times(driver: &Path, codec: &Path, clip: &Compared) -> Result<DecodeTimes, String> {
    let (bound, distance) = (number(&clip.sinew, "bound")?, number(&clip.sinew, "distance")?);
    let precision = clip.equal_error.as_ref().map_or(bound, |(p, _)| *p);
    let bench = ["--bench", INNER_ROUNDS, "--samples", SAMPLES];
    let acl = json(driver_at(driver, &clip.clip, precision, distance, &bench))?;
    let mut c = crate::pinned(codec);
    c.arg("codec").args(&clip.codec_args).args(bench);
    let sinew = json(c)?;
    let both = |key: &str| Ok::<_, String>([number(&sinew, key)?, number(&acl, key)?]);
    Ok(DecodeTimes { seek: both("seek_ns_median")?, play60: both("play60_ns_median")? })
}

fn report(compared: &[Compared], builds: &[&str], times: &[Vec<DecodeTimes>], rounds: usize) -> Result<(), String> {
    println!(
        "\n| clip | joints × frames | sinew ratio (max error) | ACL, same bound (max error) | ACL, equal max error | sinew ÷ ACL at equal error |"
    );
    println!("|---|---|---|---|---|---|");
    for clip in compared {
        let per_cm = number(&clip.sinew, "units_per_cm")?;
        let cm = |v: f64| format!("{:.4} cm", v / per_cm);
        let sinew_ratio = number(&clip.sinew, "ratio")?;
        let equal = match &clip.equal_error {
            Some((_, acl)) => {
                let ratio = number(acl, "ratio")?;
                (
                    format!("{ratio:.2} ({})", cm(number(acl, "sinew_metric_max")?)),
                    format!("{:.2}", sinew_ratio / ratio),
                )
            }
            None => (format!("never within the bound in {PRECISION_TRIES} tries"), "—".into()),
        };
        println!(
            "| {} | {} × {} | {sinew_ratio:.2} ({}) | {:.2} ({}) | {} | {} |",
            clip.what,
            number(&clip.sinew, "joints")?,
            number(&clip.sinew, "frames")?,
            cm(clip.sinew_max),
            number(&clip.same_bound, "ratio")?,
            cm(number(&clip.same_bound, "sinew_metric_max")?),
            equal.0,
            equal.1
        );
    }
    println!(
        "\n| clip | build | seek: sinew, ACL | sinew ÷ ACL (range) | 60 Hz playback: sinew, ACL | sinew ÷ ACL (range) |"
    );
    println!("|---|---|---|---|---|---|");
    for (b, build) in builds.iter().enumerate() {
        for (c, clip) in compared.iter().enumerate() {
            let rows = &times[b * compared.len() + c];
            // Medians of each side, and the range of the ratio taken within each round.
            let cells = |sequence: fn(&DecodeTimes) -> [f64; 2]| {
                let side = |i: usize| crate::targets::median(&rows.iter().map(|r| sequence(r)[i]).collect::<Vec<_>>());
                let ratios = rows.iter().map(|r| sequence(r)[0] / sequence(r)[1]);
                let (lo, hi) = ratios.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
                format!("{:.0} ns, {:.0} ns | {lo:.2}–{hi:.2}", side(0), side(1))
            };
            println!("| {} | {build} | {} | {} |", clip.what, cells(|t| t.seek), cells(|t| t.play60));
        }
    }
    println!(
        "\nRatios against raw f32 (40 bytes per joint per frame). Errors: the driver's measure (joint and 3 virtual points at 3 cm, f64, every frame and midpoint), in cm on the figure scaled to 1.7 m. ACL at equal max error: its precision lowered in 5 % steps until its max is within sinew's bound. Decode: ns per full pose, {rounds} round(s), each alternating the two pinned with `taskset -c 1`; below 1, sinew is faster."
    );
    Ok(())
}
