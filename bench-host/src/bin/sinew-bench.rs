//! `sinew-bench`: the profiler CLI. With no subcommand it runs `profile` on the embedded procedural rigs.

use clap::{Args, Parser, Subcommand};
use sinew_bench_host::workload::Keys;
use sinew_bench_host::{profile, transition};
use sinew_tools::offline::{BakeArgs, InspectArgs, InterpolationArg, bake, feet_names, inspect, key_format, report};
use sinew_tools::phase::MatchMethod;
use sinew_tools::pose;
use sinew_tools::root_motion::{Method, Source};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "sinew-bench", version, about = "Profile the sinew animation runtime on a crowd of characters")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Push a crowd through every runtime stage and print µs per character, ns per joint, bytes per character.
    Profile(ProfileArgs),
    /// `sinew-bake bake`, kept here for existing scripts: import animation files and write the asset blob.
    #[command(hide = true)]
    Bake(Box<BakeArgs>),
    /// Print model-space joint positions of a clip at one time, computed through the baked runtime path.
    Pose(PoseArgs),
    /// A BVH pose at one time after IK on one chain: model-space joints in `pose`'s format.
    Ik(IkArgs),
    /// Compare transition methods (hard cut, crossfade, four inertialization modes) on seeded cuts of real clips.
    Quality(QualityArgs),
    /// Print one transition frame by frame: output, source and target joint positions.
    Transition(TransitionArgs),
    /// Draw one degree of freedom through four kinds of transition as SVG (the figure of the Gears of War 4
    /// inertialization talk).
    PlotTransition(PlotArgs),
    /// `sinew-bake inspect`, kept here for existing scripts.
    #[command(hide = true)]
    Inspect(InspectArgs),
    /// Extract a BVH clip's root motion under a synthetic root and print, per frame over N loops, the
    /// accumulated root (ground position, yaw) and the hips as root ∘ in-place pose, through the runtime path.
    Motion(MotionArgs),
    /// The frames of `motion` with a warp marker at `--at` seconds moved to ground position X, Z facing YAW
    /// (radians about +Y), warped smoothly over `--window` (default from the clip's start to the marker).
    Warp(WarpArgs),
    /// A BVH clip's stride phase per frame (0 at the right foot's furthest lead, ½ at the left's) and the
    /// plants of its two feet.
    Phase(PhaseArgs),
    /// Where clip B is entered when leaving clip A at `--at`: the time of B with A's stride phase, or with the
    /// nearest pair of foot phases.
    Match(MatchArgs),
    /// Drive a character by a scripted gamepad over a motion database built from BVH files of one skeleton:
    /// per second the matches taken and the cost, then the cost per group, the root's distance from the
    /// desired path 1 s ahead, the planted feet's sliding and the search time.
    Matching(MatchingArgs),
    /// Bake one source compressed at `sinew-bake`'s default bound and measure it as the ACL peer's driver
    /// measures ACL: print JSON with `joints`, `frames`, `rate`, `figure_height`, `bound`, `distance` (file
    /// units), `units_per_cm`, `bytes`, `ratio` (against raw f32), and with `--bench` `seek_ns_median` and
    /// `play60_ns_median`.
    Codec(sinew_bench_host::codec::CodecRequest),
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct MatchingArgs {
    /// BVH files of one skeleton (the database: root motion extracted, plants detected, Holden's features).
    #[arg(long, num_args = 1.., required = true)]
    bvh: Vec<std::path::PathBuf>,
    /// The scripted gamepad path.
    #[arg(long, value_enum)]
    path: sinew_bench_host::matching::Path,
    /// Seconds of the script.
    #[arg(long, default_value_t = 20.0)]
    seconds: f32,
    /// How much cheaper than the playing frame a jump must be (cost units).
    #[arg(long, default_value_t = 0.01)]
    bias: f32,
    /// Print JSON: `{"summary": {"frames", "matches_per_s", "cost_mean", "cost_p95", "path_error_cm_median",
    /// "path_error_cm_p95", "slide_cm_per_s_mean", "search_ns_median", "exact"}, "frames": [{"t", "desired":
    /// [x, z], "root": [x, z], "clip", "time", "cost"}]}`.
    #[arg(long)]
    json: bool,
    /// Also draw the desired and achieved paths seen from above as SVG.
    #[arg(long)]
    svg: Option<std::path::PathBuf>,
}

fn matching(args: &MatchingArgs) -> Result<String, String> {
    use sinew_bench_host::matching::{MatchingOptions, matching_json, matching_text, path_svg, run_matching};
    let options = MatchingOptions { seconds: args.seconds, continuing_bias: args.bias, ..MatchingOptions::default() };
    let run = run_matching(&args.bvh, args.path, options)?;
    if let Some(file) = &args.svg {
        path_svg(&run, file)?;
    }
    Ok(if args.json { matching_json(&run).to_string() } else { matching_text(&run) })
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct PhaseArgs {
    /// A BVH file.
    #[arg(long)]
    bvh: std::path::PathBuf,
    /// The left and right foot joints, `LEFT,RIGHT`; default: the joints named like a foot with a side.
    #[arg(long)]
    feet: Option<String>,
    /// Print JSON (`{"dt", "frames": [{"t", "phase"}…], "plants": {"left": [[t0, t1]…], "right": …}}`).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct MatchArgs {
    /// The source BVH file.
    #[arg(long)]
    bvh: std::path::PathBuf,
    /// The source's time, seconds.
    #[arg(long)]
    at: f32,
    /// The target BVH file (the same feet by name).
    #[arg(long)]
    to_bvh: std::path::PathBuf,
    #[arg(long, value_enum, default_value_t = MatchMethod::Phase)]
    method: MatchMethod,
    /// The left and right foot joints, `LEFT,RIGHT`, in both files.
    #[arg(long)]
    feet: Option<String>,
    /// Print JSON (`{"time", "phase"}`; foot-phase adds `left`, `right`, `source`).
    #[arg(long)]
    json: bool,
}

fn phase(args: &PhaseArgs) -> Result<String, String> {
    let value = sinew_tools::phase::phase_json(&args.bvh, &feet_names(&args.feet))?;
    if args.json {
        return Ok(value.to_string());
    }
    let mut out = format!("{:>9} {:>7}\n", "t", "phase");
    for f in value["frames"].as_array().into_iter().flatten() {
        out +=
            &format!("{:>9.4} {:>7.4}\n", f["t"].as_f64().unwrap_or(f64::NAN), f["phase"].as_f64().unwrap_or(f64::NAN));
    }
    for side in ["left", "right"] {
        out += &format!("{side} plants: {}\n", value["plants"][side]);
    }
    Ok(out)
}

fn matched(args: &MatchArgs) -> Result<String, String> {
    let value = sinew_tools::phase::match_json(&args.bvh, args.at, &args.to_bvh, args.method, &feet_names(&args.feet))?;
    if args.json {
        return Ok(value.to_string());
    }
    let n = |k: &str| value[k].as_f64().unwrap_or(f64::NAN);
    Ok(format!("enter {} at {:.4} s (phase {:.4})", args.to_bvh.display(), n("time"), n("phase")))
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct WarpArgs {
    /// A BVH file (its root motion extracted per frame, `--method delta`).
    #[arg(long, required_unless_present = "blob", conflicts_with = "blob")]
    bvh: Option<std::path::PathBuf>,
    /// A blob baked with `--root-motion` (its clip `--clip`).
    #[arg(long)]
    blob: Option<std::path::PathBuf>,
    /// Blob clip: an index or a name (default 0).
    #[arg(long)]
    clip: Option<String>,
    /// The warp marker's clip time, seconds.
    #[arg(long)]
    at: f32,
    /// Where the marker must be: `X,Z,YAW` (ground position, facing in radians about +Y).
    #[arg(long, allow_hyphen_values = true)]
    to: String,
    /// `START,END` seconds of clip time over which the warp is applied (END at most `--at`).
    #[arg(long, allow_hyphen_values = true)]
    window: Option<String>,
    /// Print JSON (the `motion` frames) instead of a table.
    #[arg(long)]
    json: bool,
}

/// `N` comma-separated finite numbers.
fn numbers<const N: usize>(flag: &str, text: &str) -> Result<[f32; N], String> {
    let values: Vec<f32> = text
        .split(',')
        .map(|v| v.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{flag} {text}: {e}"))?;
    let values: [f32; N] = values.try_into().map_err(|_| format!("{flag} {text}: give {N} comma-separated numbers"))?;
    if values.iter().any(|v| !v.is_finite()) {
        return Err(format!("{flag} {text}: numbers must be finite"));
    }
    Ok(values)
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct MotionArgs {
    /// A BVH file.
    #[arg(long, required_unless_present = "blob", conflicts_with = "blob")]
    bvh: Option<std::path::PathBuf>,
    /// A blob baked with `--root-motion` (its clip `--clip`).
    #[arg(long)]
    blob: Option<std::path::PathBuf>,
    /// Blob clip: an index or a name (default 0).
    #[arg(long)]
    clip: Option<String>,
    /// What the root carries: the hips' ground shadow every frame (delta), or the line or arc through its
    /// endpoints.
    #[arg(long, value_enum, default_value_t = Method::Delta)]
    method: Method,
    /// Passes through the clip (the motion carries on from one to the next).
    #[arg(long, default_value_t = 1)]
    loops: usize,
    /// Print JSON (`{"dt", "frames": [{"t", "root": {"position", "yaw"}, "hips"}…]}`) instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct QualityArgs {
    /// BVH files of one skeleton (`--bvh a.bvh b.bvh` or the flag repeated); default: the Bandai clips in the
    /// shared data.
    #[arg(long, num_args = 1.., conflicts_with = "blob")]
    bvh: Vec<std::path::PathBuf>,
    /// A baked blob: its clips are the cuts' sources and targets.
    #[arg(long)]
    blob: Option<std::path::PathBuf>,
    /// Number of seeded cuts.
    #[arg(long, default_value_t = 300)]
    cuts: usize,
    /// Transition duration, seconds.
    #[arg(long, default_value_t = 0.2)]
    duration: f32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Frame rate of the simulation, Hz; default: the first clip's key rate. Higher rates sample between keys
    /// (a frame-rate refinement: a velocity-continuous method's jump shrinks with the frame time).
    #[arg(long)]
    rate: Option<f32>,
    /// Locomotion cuts instead: walks and runs (default: the shared Bandai walk and run) entered at a random
    /// time, at the source's stride phase and at the nearest foot phases; the feet's slide, the velocity jump
    /// and how often the wrong foot is down.
    #[arg(long, conflicts_with = "blob")]
    locomotion: bool,
    /// --locomotion: the left and right foot joints, `LEFT,RIGHT`.
    #[arg(long, requires = "locomotion")]
    feet: Option<String>,
    /// How the clips are sampled between keys: linear (the default) or cubic (C1 at keys).
    #[arg(long, value_enum, default_value_t = InterpolationArg::Linear, conflicts_with = "locomotion")]
    interpolation: InterpolationArg,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct TransitionArgs {
    /// The source clip, a BVH file.
    #[arg(long, required_unless_present = "blob", requires = "to_bvh", conflicts_with = "blob")]
    bvh: Option<std::path::PathBuf>,
    /// Seconds into the source clip at the switch.
    #[arg(long)]
    at: f32,
    /// The target clip (same skeleton), a BVH file.
    #[arg(long)]
    to_bvh: Option<std::path::PathBuf>,
    /// A baked blob holding both clips (see --clip and --to-clip).
    #[arg(long)]
    blob: Option<std::path::PathBuf>,
    /// With --blob: the source clip, an index or a name (default 0).
    #[arg(long)]
    clip: Option<String>,
    /// With --blob: the target clip, an index or a name (default 1).
    #[arg(long)]
    to_clip: Option<String>,
    /// Seconds into the target clip at the switch.
    #[arg(long)]
    to_at: f32,
    /// Transition duration, seconds.
    #[arg(long, default_value_t = 0.3)]
    duration: f32,
    /// hard-cut, crossfade, projected, projected-relative, per-component, relative (the default) or
    /// continuous (relative, the source's velocity kept on every curve).
    #[arg(long, default_value = "relative")]
    mode: String,
    /// Frame rate of the simulation, Hz (both clips sampled at it, between their keys); default: the source
    /// clip's key rate.
    #[arg(long)]
    rate: Option<f32>,
    /// How both clips are sampled between keys: linear (the default) or cubic (C1 at keys).
    #[arg(long, value_enum, default_value_t = InterpolationArg::Linear)]
    interpolation: InterpolationArg,
    /// Print JSON (the only format; the flag is accepted for symmetry with the other subcommands).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct PlotArgs {
    /// Output SVG file.
    #[arg(long, default_value = "transition.svg")]
    out: std::path::PathBuf,
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct PoseArgs {
    /// A BVH file.
    #[arg(long, required_unless_present_any = ["gltf", "blob"], conflicts_with_all = ["gltf", "blob"])]
    bvh: Option<std::path::PathBuf>,
    /// A glTF file (.glb or .gltf); positions are in scene space, joints in the first skin's order.
    #[arg(long, conflicts_with = "blob")]
    gltf: Option<std::path::PathBuf>,
    /// A baked `.snw` blob; joints in skeleton order.
    #[arg(long)]
    blob: Option<std::path::PathBuf>,
    /// glTF or blob clip: an index or a name.
    #[arg(long, default_value = "0")]
    clip: String,
    /// glTF: also print the skinned vertex positions of the first primitive using the first skin.
    #[arg(long)]
    skin: bool,
    /// Seconds from the clip's first key, for every input (a BVH's frame k is at k × Frame Time; a glTF clip
    /// starts at its first key; a blob's at 0); clamped to the clip.
    #[arg(long, default_value_t = 0.0)]
    time: f32,
    /// glTF: seconds on the file's own timeline instead (where the clip starts at its first key's time, as a
    /// glTF viewer shows it); clamped to the clip.
    #[arg(long, conflicts_with = "time")]
    gltf_time: Option<f64>,
    /// Sample a quantized bake instead of f32.
    #[arg(long)]
    quantize: bool,
    /// How the clip is sampled between keys: linear (the default) or cubic (C1 at keys).
    #[arg(long, value_enum, default_value_t = InterpolationArg::Linear)]
    interpolation: InterpolationArg,
    /// Print JSON (`{"joints":[{"name","parent","position"}…]}`) instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct IkArgs {
    /// A BVH file.
    #[arg(long)]
    bvh: std::path::PathBuf,
    /// Seconds from the first frame; clamped to the clip.
    #[arg(long, default_value_t = 0.0)]
    time: f32,
    /// The chain's joints, root first, comma-separated, named as in the file (two-bone: three joints; CCD: 2 to
    /// 32, each the parent of the next).
    #[arg(long)]
    chain: String,
    /// Where the chain's end should go: X,Y,Z in model space (the file's units).
    #[arg(long, allow_hyphen_values = true)]
    target: String,
    /// A model-space point X,Y,Z the middle joint bends toward; by default the current bend plane is kept.
    #[arg(long, allow_hyphen_values = true)]
    pole: Option<String>,
    /// The solver: analytic two-bone, or CCD (free joints, the end within 1e-5 of the chain's length of the
    /// target, at most 400 iterations).
    #[arg(long, value_enum, default_value = "two-bone")]
    solver: Solver,
    /// Print JSON (`{"joints":[{"name","parent","position"}…]}`) instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Solver {
    TwoBone,
    Ccd,
}

fn ik(args: &IkArgs) -> Result<String, String> {
    let request = pose::IkRequest {
        ccd: matches!(args.solver, Solver::Ccd),
        chain: args.chain.split(',').map(|s| s.trim().to_string()).collect(),
        target: numbers("--target", &args.target)?,
        pole: args.pole.as_deref().map(|p| numbers("--pole", p)).transpose()?,
    };
    let value =
        pose::bvh_ik_json(&args.bvh, args.time, &request).map_err(|e| format!("{}: {e}", args.bvh.display()))?;
    if args.json { Ok(value.to_string()) } else { Ok(joints_table(&value)) }
}

fn warp(args: &WarpArgs) -> Result<String, String> {
    let to = numbers::<3>("--to", &args.to)?;
    let window = args.window.as_deref().map(|w| numbers::<2>("--window", w)).transpose()?;
    let (source, path) = motion_source(&args.bvh, &args.blob, args.clip.as_deref(), Method::Delta)?;
    let value = sinew_tools::root_motion::warp_json(source, args.at, to, window)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(if args.json { value.to_string() } else { motion_table(&value) })
}

fn motion(args: &MotionArgs) -> Result<String, String> {
    let (source, path) = motion_source(&args.bvh, &args.blob, args.clip.as_deref(), args.method)?;
    let value =
        sinew_tools::root_motion::motion_json(source, args.loops).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(if args.json { value.to_string() } else { motion_table(&value) })
}

/// The clip `motion` and `warp` read, and its file.
fn motion_source<'a>(
    bvh: &'a Option<std::path::PathBuf>,
    blob: &'a Option<std::path::PathBuf>,
    clip: Option<&'a str>,
    method: Method,
) -> Result<(Source<'a>, &'a std::path::Path), String> {
    // Checked here: clap's `requires` does not fire beside `--bvh`'s `required_unless_present`.
    match (bvh, blob, clip) {
        (Some(_), _, Some(_)) => Err("--clip names a blob's clip: give --blob, not --bvh".into()),
        (Some(path), _, None) => Ok((Source::Bvh(path, method), path)),
        (None, Some(path), clip) => Ok((Source::Blob(path, clip.unwrap_or("0")), path)),
        (None, None, _) => Err("give --bvh or --blob".into()),
    }
}

/// The frames of `motion` and `warp` as a table.
fn motion_table(value: &serde_json::Value) -> String {
    let mut out = format!(
        "{:>9} {:>11} {:>11} {:>11} {:>9} {:>11} {:>11} {:>11}\n",
        "t", "root x", "root y", "root z", "yaw", "hips x", "hips y", "hips z"
    );
    for f in value["frames"].as_array().into_iter().flatten() {
        let n = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
        let (root, hips) = (&f["root"]["position"], &f["hips"]);
        out += &format!(
            "{:>9.4} {:>11.4} {:>11.4} {:>11.4} {:>9.4} {:>11.4} {:>11.4} {:>11.4}\n",
            n(&f["t"]),
            n(&root[0]),
            n(&root[1]),
            n(&root[2]),
            n(&f["root"]["yaw"]),
            n(&hips[0]),
            n(&hips[1]),
            n(&hips[2])
        );
    }
    out
}

fn pose(args: &PoseArgs) -> Result<String, String> {
    if args.skin && args.gltf.is_none() {
        return Err("--skin needs --gltf: only glTF files carry a skin".into());
    }
    if args.gltf_time.is_some() && args.gltf.is_none() {
        return Err("--gltf-time needs --gltf: other inputs have one timeline, which --time gives".into());
    }
    let (format, interpolation) = (key_format(args.quantize), args.interpolation.into());
    let value = match (&args.bvh, &args.gltf, &args.blob) {
        (Some(bvh), _, _) => pose::bvh_pose_json(bvh, args.time, format, interpolation)?,
        (None, Some(gltf), _) => {
            let at = args.gltf_time.map_or(pose::At::Clip(args.time), pose::At::File);
            pose::GltfPoser::new(gltf, format)?.pose_json(&args.clip, at, args.skin, interpolation)?
        }
        (None, None, Some(path)) => {
            if args.quantize {
                return Err("--quantize: a blob is sampled as it was baked".into());
            }
            pose::blob_pose_json(&sinew_tools::blob::read(path)?, &args.clip, args.time, interpolation)
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
        (None, None, None) => return Err("give --bvh, --gltf or --blob".into()),
    };
    if args.json {
        return Ok(value.to_string());
    }
    Ok(joints_table(&value))
}

/// `pose`'s table: a joint per line, then any skinned vertices.
fn joints_table(value: &serde_json::Value) -> String {
    let mut out = format!("{:<28} {:>6} {:>12} {:>12} {:>12}\n", "joint", "parent", "x", "y", "z");
    for j in value["joints"].as_array().into_iter().flatten() {
        let p = |i: usize| j["position"][i].as_f64().unwrap_or(f64::NAN);
        let name = j["name"].as_str().unwrap_or("");
        out += &format!("{name:<28} {:>6} {:>12.4} {:>12.4} {:>12.4}\n", j["parent"], p(0), p(1), p(2));
    }
    if let Some(vertices) = value["vertices"].as_array() {
        out += &format!("\n{:<8} {:>12} {:>12} {:>12}\n", "vertex", "x", "y", "z");
        for (i, v) in vertices.iter().enumerate() {
            let p = |k: usize| v[k].as_f64().unwrap_or(f64::NAN);
            out += &format!("{i:<8} {:>12.4} {:>12.4} {:>12.4}\n", p(0), p(1), p(2));
        }
    }
    out
}

fn quality(args: &QualityArgs) -> Result<String, String> {
    if args.locomotion {
        return locomotion_quality(args);
    }
    let clips = match &args.blob {
        Some(path) => sinew_tools::cuts::Clips::from_blob(path)?,
        None => sinew_tools::cuts::Clips::from_bvh(&quality_files(args)?)?,
    };
    if args.cuts == 0 {
        return Err("--cuts must be at least 1".into());
    }
    let dt = rate_step(args.rate)?.unwrap_or(clips.dt);
    transition::check_simulation(dt, args.duration, args.cuts)?;
    let asset = clips.asset()?;
    let cuts = sinew_tools::cuts::seeded_cuts(&asset, dt, args.duration, args.cuts, args.seed);
    if cuts.is_empty() {
        return Err("the clips are too short for this transition".into());
    }
    let rows = transition::quality(&asset, dt, args.duration, &cuts, args.interpolation.into())?;
    Ok(if args.json {
        transition::quality_json(&rows, cuts.len(), dt, args.duration).to_string()
    } else {
        transition::quality_table(&rows, cuts.len(), dt, args.duration)
    })
}

fn locomotion_quality(args: &QualityArgs) -> Result<String, String> {
    use sinew_bench_host::locomotion;
    let files: Vec<_> = match args.bvh.is_empty() {
        true => quality_files(args)?
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("walk") || n.to_string_lossy().contains("run"))
            })
            .collect(),
        false => args.bvh.clone(),
    };
    if args.cuts == 0 {
        return Err("--cuts must be at least 1".into());
    }
    let dt = rate_step(args.rate)?;
    let table =
        locomotion::locomotion_quality(&files, &feet_names(&args.feet), dt, args.duration, args.cuts, args.seed)?;
    Ok(if args.json { locomotion::table_json(&table).to_string() } else { locomotion::table_text(&table) })
}

/// The BVH files `quality` reads: those given, else the Bandai clips of the shared data.
fn quality_files(args: &QualityArgs) -> Result<Vec<std::path::PathBuf>, String> {
    Ok(if args.bvh.is_empty() {
        let dir = sinew_tools::shared_data_dir().ok_or("no --bvh given and no shared data to default to")?;
        let mut files: Vec<_> = std::fs::read_dir(dir.join("bvh/bandai"))
            .map_err(|e| e.to_string())?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "bvh"))
            .collect();
        files.sort();
        files
    } else {
        args.bvh.clone()
    })
}

/// The frame time of `--rate HZ`, when given.
fn rate_step(rate: Option<f32>) -> Result<Option<f32>, String> {
    match rate {
        Some(rate) if rate.is_finite() && rate > 0.0 => Ok(Some(1.0 / rate)),
        Some(rate) => Err(format!("--rate {rate}: give a positive rate in Hz")),
        None => Ok(None),
    }
}

fn transition(args: &TransitionArgs) -> Result<String, String> {
    let method = transition::Method::parse(&args.mode)?;
    // Checked here: clap's `requires` does not fire beside `--bvh`'s `required_unless_present`.
    let blob_clips = args.clip.is_some() || args.to_clip.is_some();
    let (clips, a, b) = match (&args.bvh, &args.to_bvh, &args.blob) {
        (Some(_), Some(_), _) if blob_clips => {
            return Err("--clip and --to-clip name a blob's clips: give --blob".into());
        }
        (Some(from), Some(to), _) => (sinew_tools::cuts::Clips::from_bvh(&[from.clone(), to.clone()])?, 0, 1),
        (None, None, Some(path)) => {
            let clips = sinew_tools::cuts::Clips::from_blob(path)?;
            let asset = clips.asset()?;
            let (a, b) = (
                sinew_tools::blob::clip_index(&asset, args.clip.as_deref().unwrap_or("0"))?,
                sinew_tools::blob::clip_index(&asset, args.to_clip.as_deref().unwrap_or("1"))?,
            );
            (clips, a, b)
        }
        _ => return Err("give --bvh and --to-bvh (two BVH files), or --blob alone".into()),
    };
    let dt = rate_step(args.rate)?.unwrap_or(clips.dt);
    transition::check_simulation(dt, args.duration, 1)?;
    for (flag, time) in [("--at", args.at), ("--to-at", args.to_at)] {
        if !time.is_finite() {
            return Err(format!("{flag} {time}: give a time in seconds"));
        }
    }
    let asset = clips.asset()?;
    let cut = sinew_tools::cuts::Cut { a, ta: args.at, b, tb: args.to_at };
    let half_second = (0.5 / dt).ceil() as usize;
    let playing = transition::Playing { heading: false, interpolation: args.interpolation.into() };
    let frames = (half_second, half_second);
    let trace = transition::simulate_aligned(&asset, dt, method, cut, args.duration, frames, playing)?;
    let _ = args.json;
    Ok(transition::trace_json(&trace).to_string())
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct ProfileArgs {
    /// Joint counts of the procedural humanoid to profile (22..=1024); repeat for several rigs. Default: 67
    /// and 256 when no file is given either.
    #[arg(long = "joints")]
    joints: Vec<usize>,
    /// BVH files to profile (their motion, skinned at the rest pose); several after one flag, or repeated.
    #[arg(long, num_args = 1..)]
    bvh: Vec<std::path::PathBuf>,
    /// glTF files to profile (first animation, first skin); several after one flag, or repeated.
    #[arg(long, num_args = 1..)]
    gltf: Vec<std::path::PathBuf>,
    /// Baked `.snw` blobs to profile (first clip, skinned at the rest pose); several after one flag, or repeated.
    #[arg(long, num_args = 1..)]
    blob: Vec<std::path::PathBuf>,
    /// How every workload's keys are baked (compressed: at 0.05 cm, virtual points 3 cm out, as `sinew-bake
    /// --compress` does by default).
    #[arg(long, value_enum, default_value_t = Keys::F32)]
    keys: Keys,
    /// Characters in the crowd.
    #[arg(long, default_value_t = 256)]
    characters: usize,
    /// Frames to time; each stage reports its median frame.
    #[arg(long, default_value_t = 101)]
    frames: usize,
    /// Also run the crowd's plain frame on 1, 2, 4, … up to this many threads and print the scaling.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Skip the motion-matched crowd (its library's bake is most of a short run under callgrind).
    #[arg(long)]
    no_motion_matching: bool,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
}

impl Default for ProfileArgs {
    fn default() -> Self {
        ProfileArgs {
            joints: vec![67, 256],
            bvh: vec![],
            gltf: vec![],
            blob: vec![],
            keys: Keys::F32,
            characters: 256,
            frames: 101,
            threads: 1,
            no_motion_matching: false,
            json: false,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Profile(ProfileArgs::default())) {
        Command::Bake(args) => report(bake(&args)),
        Command::Pose(args) => report(pose(&args)),
        Command::Ik(args) => report(ik(&args)),
        Command::Quality(args) => report(quality(&args)),
        Command::Transition(args) => report(transition(&args)),
        Command::PlotTransition(args) => report(sinew_bench_host::plot::transition_figure(&args.out)),
        Command::Inspect(args) => report(inspect(&args)),
        Command::Motion(args) => report(motion(&args)),
        Command::Warp(args) => report(warp(&args)),
        Command::Phase(args) => report(phase(&args)),
        Command::Match(args) => report(matched(&args)),
        Command::Matching(args) => report(matching(&args)),
        Command::Codec(request) => report(sinew_bench_host::codec::measure(&request).map(|json| json.to_string())),
        Command::Profile(mut args) => {
            if args.joints.is_empty() && args.bvh.is_empty() && args.gltf.is_empty() && args.blob.is_empty() {
                args.joints = ProfileArgs::default().joints;
            }
            if let Some(&bad) = args
                .joints
                .iter()
                .find(|&&j| !(sinew_tools::rig::MIN_JOINTS..=sinew_tools::rig::MAX_JOINTS).contains(&j))
            {
                return report(Err(format!("--joints {bad}: the procedural rig has 22..=1024 joints")));
            }
            if args.characters == 0 || args.frames == 0 || args.threads == 0 {
                return report(Err("--characters, --frames and --threads must be at least 1".into()));
            }
            // Bounded so that a typo cannot ask for terabytes: a character of 1024 joints takes ~0.5 MB.
            if args.characters > 100_000 || args.frames > 100_000 || args.threads > 1024 {
                return report(Err("--characters and --frames at most 100000, --threads at most 1024".into()));
            }
            let config = profile::Config {
                joints: args.joints,
                bvh: args.bvh,
                gltf: args.gltf,
                blob: args.blob,
                keys: args.keys,
                characters: args.characters,
                frames: args.frames,
                threads: args.threads,
                skip_motion_matching: args.no_motion_matching,
            };
            report(profile::run(&config).map(|(reports, peaks)| {
                if args.json {
                    serde_json::to_string_pretty(&profile::json(&reports, &peaks)).unwrap_or_default()
                } else {
                    profile::table(&reports, &peaks)
                }
            }))
        }
    }
}
