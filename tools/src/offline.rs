//! The offline tool's commands (`sinew-bake bake` and `inspect`: import BVH or glTF, annotate, extract root
//! motion, write the blob, validate and describe a blob) and what both binaries' commands share: their
//! argument types, the foot-name list, printing a command's result.

use crate::bake::{self, KeyFormat};
use crate::raw;
use crate::root_motion::Method;
use clap::Args;
use sinew::motion_database::FRAME_EXCLUDED;
use std::io::Write;
use std::process::ExitCode;

#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct BakeArgs {
    /// BVH files of one skeleton (same joints in the same order; `--bvh a.bvh b.bvh` or the flag repeated);
    /// each becomes a clip named after its file.
    #[arg(long, num_args = 1.., required_unless_present = "gltf", conflicts_with = "gltf")]
    pub bvh: Vec<std::path::PathBuf>,
    /// A glTF file (.glb or .gltf): its scene's nodes and every animation.
    #[arg(long)]
    pub gltf: Option<std::path::PathBuf>,
    /// Output blob.
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Store keys quantized (6 bytes per key) instead of f32.
    #[arg(long, conflicts_with = "compress")]
    pub quantize: bool,
    /// Store keys compressed: per segment and track, the fewest bits that keep every virtual point (see
    /// --error-distance) within --max-error.
    #[arg(long)]
    pub compress: bool,
    /// --compress: the largest virtual-point error allowed, centimetres on the figure scaled to 1.7 m.
    #[arg(long, default_value_t = crate::compress::DEFAULT_MAX_ERROR_CM, requires = "compress")]
    pub max_error: f64,
    /// glTF: bake every clip at this rate (Hz), adjusted to a whole number of frames over the clip's exact
    /// duration, instead of the rate chosen from its keys.
    #[arg(long)]
    pub rate: Option<f64>,
    /// glTF: the skin to import, by index (the bake lists the file's skins); default the first.
    #[arg(long)]
    pub skin: Option<usize>,
    /// glTF: the scene whose nodes become the skeleton, by index; default the file's default scene.
    #[arg(long)]
    pub scene: Option<usize>,
    /// glTF: the largest resampling error a clip may have, as a fraction of the figure's extent (file units for
    /// a figure without one); a clip above it stops the bake with exit status 1 and writes nothing [default:
    /// 1e-3].
    #[arg(long)]
    pub max_resampling_error: Option<f64>,
    /// Clip annotations (markers, ranges and curves) from a JSON sidecar: `{"clips": {"<clip>": {"markers":
    /// [{"name", "time", "value"}], "ranges": [{"name", "start", "end", "value"}], "curves": [{"name",
    /// "precision", "keys": [{"time", "value", "slope"}]}]}}}`. Curves are baked to one value per frame; with
    /// `--compress` each is compressed within its `precision` (in its own units).
    #[arg(long)]
    pub markers: Option<std::path::PathBuf>,
    /// Detect foot plants from the motion: a `plant:<foot>` range and a `footstep:<foot>` marker per plant.
    #[arg(long)]
    pub detect_plants: bool,
    /// Foot joints for --detect-plants (repeat the flag); default: joints named like a foot, not a toe.
    #[arg(long, requires = "detect_plants")]
    pub foot: Vec<String>,
    /// --detect-plants, --phase: a planted foot is within this fraction of the figure's height of its lowest
    /// point.
    #[arg(long, default_value_t = 0.03)]
    pub plant_height: f32,
    /// --detect-plants, --phase: and moves slower than this fraction of the figure's height per second.
    #[arg(long, default_value_t = 0.25)]
    pub plant_speed: f32,
    /// Detect the two feet's plants and each clip's stride phase (for phase and foot-phase matching); clips
    /// whose feet never plant or that are shorter than a stride get none, and the report says so.
    #[arg(long, conflicts_with = "detect_plants")]
    pub phase: bool,
    /// --phase: the left and right foot joints, `LEFT,RIGHT`; default: the joints named like a foot with a side.
    #[arg(long, requires = "phase")]
    pub feet: Option<String>,
    /// Extract root motion: a `motion_root` joint above the skeleton's roots carries the hips' ground shadow
    /// (delta) or the line or arc through its ends (see `motion`).
    #[arg(long, value_enum)]
    pub root_motion: Option<Method>,
    /// --root-motion: the joint to follow instead of the first named like hips or pelvis.
    #[arg(long, requires = "root_motion")]
    pub hips: Option<String>,
    /// The virtual points' distance from each joint for the reported error, centimetres on the figure scaled to
    /// 1.7 m.
    #[arg(long, default_value_t = crate::dmath::DEFAULT_DISTANCE_CM)]
    pub error_distance: f64,
    /// Close every clip's loop seam: its last frame made a copy of its first (C0) and the velocity kept across
    /// the wrap (C1), by a correction spread smoothly over the clip (the root-motion joint left as it is). For
    /// looping clips; the report gives each clip's seam before and after.
    #[arg(long)]
    pub loop_fix: bool,
    /// Bake each clip at the lowest key rate (of its rate times 1, 3/4, 2/3, 1/2 … 1/12, whole frames over its
    /// duration) whose virtual points stay within this many centimetres (on the figure scaled to 1.7 m) of every
    /// source frame, sampled as --interpolation says; the report gives each rate and error.
    #[arg(long)]
    pub reduce_rate: Option<f64>,
    /// --reduce-rate, --knots: how the clips will be played between keys, linear (the default) or cubic (which
    /// follows the source more closely, so goes lower). Play the blob the same way.
    #[arg(long, value_enum, default_value_t = InterpolationArg::Linear)]
    pub interpolation: InterpolationArg,
    /// Bake each clip on non-uniform knots: source frames chosen where the motion needs them, so that it plays
    /// (as --interpolation says) within this many centimetres (on the figure scaled to 1.7 m) of every source
    /// frame, plus a knot at every marker and at both ends of every range (--markers, --detect-plants), whose
    /// poses it then shows exactly (golden poses); the report gives each clip's knots and error.
    #[arg(long, conflicts_with_all = ["reduce_rate", "phase", "chunks"])]
    pub knots: Option<f64>,
    /// Split clips into chunks by joint masks (bone-mask decomposition), each baked as a clip storing its joints
    /// only: `{"chunks": [{"clip", "name", "subtrees": [joint], "joints": [joint], "without": [joint]}]}` (a
    /// chunk takes its subtrees and single joints, less its `without` subtrees). A split clip is replaced by its
    /// chunks; a blend graph's chunk node reassembles them exactly.
    #[arg(long)]
    pub chunks: Option<std::path::PathBuf>,
    /// Bake a motion database over the clips (needs --root-motion): one feature row per frame by the schema in
    /// the JSON file given, or Holden's 27 dimensions without one (feet positions and velocities, the hips'
    /// velocity, the root's position and facing 1/3, 2/3 and 1 s ahead). Ranges named `no-entry` close frames
    /// to jumps, `tag:N` set tag bit N (see the guide).
    #[arg(long, num_args = 0..=1, value_name = "SCHEMA", requires = "root_motion", conflicts_with = "chunks")]
    pub motion_database: Option<Option<std::path::PathBuf>>,
    /// Also bake each clip's mirror image as a clip of its own (`<name>.mirror`): left and right swapped, the
    /// world reflected across x = 0, annotations naming a joint moved to its partner; a motion database flags
    /// its frames mirrored. Partners are found by name (Left/Right, _L/_R, .L/.R, L_/R_, LFoot/RFoot).
    #[arg(long)]
    pub mirror: bool,
    /// --mirror: a left and right joint to pair, `LEFT,RIGHT` (repeat the flag), beside those found by name.
    #[arg(long, requires = "mirror")]
    pub mirror_pair: Vec<String>,
    /// Print the report as JSON instead: per clip `name`, `frames`, `rate`, `joints`, `bytes`, `ratio` (against
    /// raw `f32`, 40 bytes per joint per frame), `max_error_cm`, `p99_error_cm`, `figure_height` and `bound` (both
    /// in file units; `bound` is the error the bake was held to: --knots or --reduce-rate plus --max-error when
    /// compressing, `null` for none).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
pub struct InspectArgs {
    /// A baked `.snw` blob.
    #[arg(long)]
    pub blob: std::path::PathBuf,
    #[arg(long)]
    pub json: bool,
}

/// `--interpolation`: the sampling mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum InterpolationArg {
    Linear,
    Cubic,
}

impl From<InterpolationArg> for sinew::Interpolation {
    fn from(arg: InterpolationArg) -> sinew::Interpolation {
        match arg {
            InterpolationArg::Linear => sinew::Interpolation::Linear,
            InterpolationArg::Cubic => sinew::Interpolation::Cubic,
        }
    }
}

pub fn key_format(quantize: bool) -> KeyFormat {
    if quantize { KeyFormat::Quantized } else { KeyFormat::F32 }
}

pub fn bake(args: &BakeArgs) -> Result<String, String> {
    use crate::dmath::FIGURE_CM;
    if !(args.error_distance.is_finite() && (0.0..=FIGURE_CM).contains(&args.error_distance)) {
        return Err(format!("--error-distance {}: give centimetres in 0..={FIGURE_CM}", args.error_distance));
    }
    // Spelled out: clap's `requires = "gltf"` does not fire here (`gltf` is the `--bvh` flag's alternative).
    let gltf_options = [args.rate.is_some(), args.skin.is_some(), args.scene.is_some()];
    if args.gltf.is_none() && (gltf_options.contains(&true) || args.max_resampling_error.is_some()) {
        return Err("--rate, --skin, --scene and --max-resampling-error are glTF options: give --gltf".into());
    }
    let max_resampling_error = args.max_resampling_error.unwrap_or(crate::gltf_import::MAX_RESAMPLING_ERROR);
    let skin_index = args.skin.unwrap_or(0);
    let mut notes = String::new();
    let mut skin = None;
    let mut morph_curves = Vec::new();
    let (skeleton, clips) = match &args.gltf {
        Some(path) => {
            if let Some(rate) = args.rate
                && !(rate.is_finite() && rate > 0.0)
            {
                return Err(format!("--rate {rate}: give a positive rate in Hz"));
            }
            let options = crate::gltf_import::Options { rate: args.rate, scene: args.scene, skin: skin_index };
            let asset = crate::gltf_import::load_with(path, &options)?;
            notes += &format!(
                "\n  skeleton: every node of the scene ({}); {}",
                crate::blob::count(asset.skeleton.parents.len(), "node"),
                skins_report(&asset.skins, skin_index)
            );
            if !(max_resampling_error.is_finite() && max_resampling_error >= 0.0) {
                return Err(format!("--max-resampling-error {max_resampling_error}: give a fraction >= 0"));
            }
            let mut over = Vec::new();
            for (clip, import) in asset.clips.iter().zip(&asset.imports) {
                let keys = import.key_rate.map_or("keys not uniform".into(), |r| format!("keys uniform at {r:.4} Hz"));
                let scaled = match import.relative_error() {
                    Some(relative) => format!("{relative:.2e} of the figure's extent"),
                    None => "the figure has no extent: file units only".into(),
                };
                notes += &format!(
                    "\n  `{}`: {keys}, baked at {:.4} Hz from glTF time {:.4} s for {:.4} s; resampling error {:.3e} (file units), {scaled}",
                    clip.name, import.rate, import.start, import.duration, import.max_error,
                );
                if import.worst_error() > max_resampling_error {
                    over.push(format!("`{}` ({:.3e})", clip.name, import.worst_error()));
                }
            }
            for (clip, (curves, import)) in asset.clips.iter().zip(asset.curves.iter().zip(&asset.imports)) {
                if !curves.is_empty() {
                    let names: Vec<&str> = curves.iter().map(|c| c.name.as_str()).collect();
                    notes += &format!(
                        "\n  `{}`: morph weights as curves {}; largest weight error {:.3e}",
                        clip.name,
                        names.join(", "),
                        import.weight_error
                    );
                }
            }
            if !over.is_empty() {
                return Err(format!(
                    "{}{notes}\nresampling error above --max-resampling-error {:e} in {}: nothing written (give --rate, or raise the bound to bake anyway)",
                    path.display(),
                    max_resampling_error,
                    over.join(", ")
                ));
            }
            skin = asset.skin.map(|s| raw::RawSkin { remap: s.remap, inverse_bind: s.inverse_bind });
            morph_curves = asset.curves;
            (asset.skeleton, asset.clips)
        }
        None => crate::bvh::load_raw_files(&args.bvh)?,
    };
    // Every centimetre option and report of the bake scales with the figure as imported.
    let scale = crate::annotate::figure_scale(&skeleton, &clips);
    let mut clips = match args.reduce_rate {
        Some(bound_cm) => {
            let (clips, report) = reduce_rates(&skeleton, clips, bound_cm, scale.units_per_cm(), args)?;
            notes += &report;
            clips
        }
        None => clips,
    };
    use crate::annotate;
    let mut annotations = match &args.markers {
        Some(path) => annotate::read_sidecar(path, &clips)?,
        None => vec![raw::RawAnnotations::default(); clips.len()],
    };
    for ((annotation, curves), clip) in annotations.iter_mut().zip(morph_curves).zip(&clips) {
        if let Some(curve) = curves.iter().find(|c| annotation.curves.iter().any(|a| a.name == c.name)) {
            return Err(format!("clip {}: the sidecar's curve {:?} has a morph weight's name", clip.name, curve.name));
        }
        annotation.curves.extend(curves);
    }
    let source_clips = clips.len();
    if args.mirror {
        let given = args
            .mirror_pair
            .iter()
            .map(|pair| match pair.split_once(',') {
                Some((left, right)) => Ok((left.to_string(), right.to_string())),
                None => Err(format!("--mirror-pair {pair}: give LEFT,RIGHT")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let partner = crate::mirror::partners(&skeleton, &given)?;
        let mirrored = crate::mirror::mirror_clips(&skeleton, &clips, &partner, scale)?;
        let mirrored_annotations: Vec<_> =
            annotations.iter().map(|a| crate::mirror::mirror_annotations(&skeleton, a, &partner)).collect();
        clips.extend(mirrored);
        annotations.extend(mirrored_annotations);
    }
    let plant_rule = annotate::PlantRule { height: args.plant_height, speed: args.plant_speed };
    if args.detect_plants {
        let feet = annotate::foot_joints(&skeleton, &args.foot)?;
        for (clip, a) in clips.iter().zip(annotations.iter_mut()) {
            annotate::detect_plants(&skeleton, clip, &feet, plant_rule, a)?;
        }
    }
    let mut phases = Vec::new();
    if args.phase {
        use crate::phase;
        let feet = phase::left_right_feet(&skeleton, &feet_names(&args.feet))?;
        let rule = phase::PhaseRule::default();
        let found = phase::bake_phases(&skeleton, &clips, feet, plant_rule, rule, &mut annotations)?;
        notes += &phase::phase_report(&clips, &found).iter().map(|line| format!("\n  {line}")).collect::<String>();
        phases = found.into_iter().map(Result::ok).collect();
    }
    let (skeleton, clips) = match args.root_motion {
        Some(method) => {
            let options = crate::root_motion::Extraction { method, hips: args.hips.clone(), ..Default::default() };
            // The skin's joints move down one with the skeleton's.
            for joint in skin.iter_mut().flat_map(|s| s.remap.iter_mut()) {
                *joint += 1;
            }
            // So do the feet of the phase tables.
            for feet in phases.iter_mut().flatten().map(|p| &mut p.feet) {
                *feet = feet.map(|f| f + 1);
            }
            crate::root_motion::extract(&skeleton, &clips, &options)?
        }
        None => (skeleton, clips),
    };
    let (mut clips, seams) = loop_seams(&skeleton, clips, args.loop_fix, scale, args.error_distance);
    notes += &seams;
    let motion_database = match &args.motion_database {
        Some(schema) => {
            let schema = match schema {
                Some(path) => crate::features::Schema::read(path)?,
                None => crate::features::Schema::default_for(&skeleton)?,
            };
            let (rows, mut entries) = crate::features::rows(&skeleton, &clips, &annotations, &schema)?;
            for entry in entries.iter_mut().filter(|e| e.clip as usize >= source_clips) {
                entry.flags |= sinew::motion_database::FRAME_MIRRORED;
            }
            let database = crate::motion_database::OwnedDatabase::build(&rows, &schema.groups(), &entries)
                .map_err(|e| e.to_string())?;
            let excluded = database.entries.iter().filter(|e| e.flags & FRAME_EXCLUDED != 0).count();
            notes += &format!(
                "\n  motion database: {} frames × {} dimensions in {} groups ({}), {excluded} frames not entered",
                database.frames,
                database.dims,
                database.groups.len(),
                database.group_names.join(", ")
            );
            Some(database)
        }
        None => None,
    };
    // A clip on knots is measured against its uniform source.
    let mut sources = None;
    let knots = match args.knots {
        Some(bound_cm) => {
            let (fitted, report) = fit_knots(&skeleton, &clips, &annotations, bound_cm, scale.units_per_cm(), args)?;
            notes += &report;
            let (fitted, knots) = fitted.into_iter().map(|fit| (fit.clip, Some(fit.knots))).unzip();
            sources = Some(std::mem::replace(&mut clips, fitted));
            knots
        }
        None => Vec::new(),
    };
    let extras = raw::Extras { annotations, skin, phases, knots, motion_database, ..Default::default() };
    let (clips, extras) = match &args.chunks {
        Some(path) => {
            let specs = crate::chunks::read_sidecar(path)?;
            let (clips, extras, report) = crate::chunks::split(&skeleton, clips, extras, &specs)?;
            notes += &report;
            (clips, extras)
        }
        None => (clips, extras),
    };
    let format = if args.compress {
        if !(args.max_error.is_finite() && args.max_error > 0.0) {
            return Err(format!("--max-error {}: give a positive number of centimetres", args.max_error));
        }
        KeyFormat::Compressed(crate::compress::Precision::at_scale(scale, args.max_error, args.error_distance))
    } else {
        key_format(args.quantize)
    };
    let blob = bake::bake_with(&skeleton, &clips, format, &extras)?;
    std::fs::write(&args.out, blob.bytes()).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let measured =
        Measured { masks: &extras.masks, sources: sources.as_deref(), interpolation: args.interpolation.into() };
    let per_cm = scale.units_per_cm();
    let reports = measure_clips(&skeleton, &clips, measured, &blob, args.error_distance * per_cm)?;
    if args.json {
        // The error the keys were held to: a fit's bound against the source plus the compressor's.
        let fit = args.knots.or(args.reduce_rate);
        let compressed = args.compress.then_some(args.max_error);
        let bound = match (fit, compressed) {
            (None, None) => None,
            (fit, compressed) => Some((fit.unwrap_or(0.0) + compressed.unwrap_or(0.0)) * per_cm),
        };
        return Ok(json_report(&args.out, &reports, scale, bound));
    }
    notes += &error_report(&reports, scale, args.error_distance);
    Ok(format!("{}: {}{notes}", args.out.display(), crate::blob::summary(&blob)?))
}

/// Each clip at the lowest rate within `bound_cm` of its source (see `BakeArgs::reduce_rate`), and a line per
/// clip giving the rate chosen and its error; `per_cm` file units to a centimetre.
fn reduce_rates(
    skeleton: &raw::RawSkeleton,
    clips: Vec<raw::RawClip>,
    bound_cm: f64,
    per_cm: f64,
    args: &BakeArgs,
) -> Result<(Vec<raw::RawClip>, String), String> {
    if !(bound_cm.is_finite() && bound_cm > 0.0) {
        return Err(format!("--reduce-rate {bound_cm}: give a positive number of centimetres"));
    }
    let interpolation = sinew::Interpolation::from(args.interpolation);
    let mut notes = String::new();
    let mut reduced = Vec::with_capacity(clips.len());
    for clip in &clips {
        let best =
            crate::rate::lowest_rate(skeleton, clip, bound_cm * per_cm, args.error_distance * per_cm, interpolation)?;
        notes += &format!(
            "\n  `{}`: keys at {:.3} Hz from {:.3} Hz ({:?} playback within {bound_cm} cm of the source: max {:.4}, p99 {:.4} cm)",
            clip.name,
            best.clip.sample_rate,
            clip.sample_rate,
            interpolation,
            best.error.max / per_cm,
            best.error.p99 / per_cm
        );
        reduced.push(best.clip);
    }
    Ok((reduced, notes))
}

/// Each clip on knots within `bound_cm` of its source (see `BakeArgs::knots`), golden at its annotations'
/// times, and a line per clip giving the knots and the error; `per_cm` file units to a centimetre.
fn fit_knots(
    skeleton: &raw::RawSkeleton,
    clips: &[raw::RawClip],
    annotations: &[raw::RawAnnotations],
    bound_cm: f64,
    per_cm: f64,
    args: &BakeArgs,
) -> Result<(Vec<crate::knots::Fitted>, String), String> {
    if !(bound_cm.is_finite() && bound_cm > 0.0) {
        return Err(format!("--knots {bound_cm}: give a positive number of centimetres"));
    }
    let interpolation = sinew::Interpolation::from(args.interpolation);
    let (mut fitted, mut notes) = (Vec::new(), String::new());
    for (clip, annotation) in clips.iter().zip(annotations) {
        if !annotation.curves.is_empty() {
            return Err(format!(
                "clip `{}`: --knots cannot carry curve tracks yet (they are per uniform frame)",
                clip.name
            ));
        }
        let golden = crate::knots::golden_times(annotation);
        let (bound, distance) = (bound_cm * per_cm, args.error_distance * per_cm);
        let fit = crate::knots::fit_knots(skeleton, clip, &golden, bound, distance, interpolation)?;
        let seconds = fit.knots.last().copied().unwrap_or(0.0).max(f32::MIN_POSITIVE);
        notes += &format!(
            "\n  `{}`: {} knots for {} frames ({:.2} a second on average, {} golden; {:?} playback within {bound_cm} cm of the source: max {:.4}, p99 {:.4} cm)",
            clip.name,
            fit.knots.len(),
            clip.frames.len(),
            fit.knots.len() as f32 / seconds,
            golden.len(),
            interpolation,
            fit.error.max / per_cm,
            fit.error.p99 / per_cm
        );
        fitted.push(fit);
    }
    Ok((fitted, notes))
}

/// The clips, their loop seams closed when `fix` is set, and a line per clip giving its seam (before and after
/// the fix), in centimetres on the figure scaled to 1.7 m (file units for a figure without a height), with
/// points `distance_cm` from each joint.
fn loop_seams(
    skeleton: &raw::RawSkeleton,
    clips: Vec<raw::RawClip>,
    fix: bool,
    scale: crate::annotate::FigureScale,
    distance_cm: f64,
) -> (Vec<raw::RawClip>, String) {
    use crate::annotate::FigureScale;
    use crate::loops::{fix_loop, loop_gap};
    let per_cm = scale.units_per_cm();
    let unit = match scale {
        FigureScale::Centimetres { .. } => "cm",
        FigureScale::FileUnits { .. } => "file units",
    };
    // The root-motion joint's travel is the motion a loop carries on, not a seam.
    let keep: Vec<usize> = (skeleton.names.first().map(String::as_str) == Some(sinew::root_motion::MOTION_ROOT))
        .then_some(0)
        .into_iter()
        .collect();
    let seam = |clip: &raw::RawClip| {
        let gap = loop_gap(skeleton, clip, distance_cm * per_cm, &keep);
        format!("C0 {:.4} {unit}, C1 {:.3} {unit}/s", gap.c0 / per_cm, gap.c1 / per_cm)
    };
    let mut notes = String::new();
    let clips = clips
        .into_iter()
        .map(|clip| {
            let before = seam(&clip);
            if !fix {
                notes += &format!("\n  `{}`: loop seam {before} (if it loops; --loop-fix closes it)", clip.name);
                return clip;
            }
            let fixed = fix_loop(&clip, &keep);
            notes += &format!("\n  `{}`: loop seam {before}, after --loop-fix {}", clip.name, seam(&fixed));
            fixed
        })
        .collect();
    (clips, notes)
}

/// The file's skins, the one baked first (`--skin`): at most eight listed, then a count.
fn skins_report(skins: &[(String, usize)], chosen: usize) -> String {
    const LISTED: usize = 8;
    let Some((name, joints)) = skins.get(chosen) else { return "no skin".into() };
    let mut listed: Vec<String> =
        skins.iter().enumerate().take(LISTED).map(|(i, (name, n))| format!("{i} `{name}` ({n})")).collect();
    if skins.len() > LISTED {
        listed.push(format!("… {} more", skins.len() - LISTED));
    }
    format!(
        "skin {chosen} `{name}`: {} (skins, joints: {}; choose with --skin)",
        crate::blob::count(*joints, "joint"),
        listed.join(", ")
    )
}

/// What `measure_clips` measures a clip against beyond its raw frames.
struct Measured<'m> {
    /// Per clip, the joints a chunk stores (see `raw::Extras::masks`).
    masks: &'m [Option<Vec<bool>>],
    /// The uniform clips that clips on knots were fitted to, in clip order, and how they play.
    sources: Option<&'m [raw::RawClip]>,
    interpolation: sinew::Interpolation,
}

/// One baked clip as the report gives it: its size and its virtual-point error (file units).
struct ClipReport {
    name: String,
    /// How it was measured, for the text report: "", " (a chunk, alone)", " (on knots, …)".
    how: &'static str,
    /// Frames (or knots) stored, and the rate they were baked at or fitted from.
    frames: usize,
    rate: f32,
    /// Joints stored: the skeleton's, or a chunk's.
    joints: usize,
    /// Bytes stored, and the raw `f32` bytes of the source's frames for those joints.
    bytes: usize,
    raw: usize,
    error: crate::clip_error::ClipError,
}

/// Each clip of `blob` measured against what it was baked from, with points `distance` file units from each
/// joint: the imported clip at every frame and midpoint; a chunk as it plays alone (the joints outside its mask
/// at rest); a clip on knots against every frame of its uniform source.
fn measure_clips(
    skeleton: &raw::RawSkeleton,
    clips: &[raw::RawClip],
    measured: Measured<'_>,
    blob: &raw::AlignedBlob,
    distance: f64,
) -> Result<Vec<ClipReport>, String> {
    use crate::clip_error::{clip_error, source_error};
    let Measured { masks, sources, interpolation } = measured;
    let asset = crate::blob::asset(blob)?;
    let mut reports = Vec::with_capacity(clips.len());
    for (index, clip) in clips.iter().enumerate() {
        let source = sources.and_then(|s| s.get(index));
        let (error, joints, how) = match (masks.get(index), source) {
            (Some(Some(mask)), _) => {
                let alone = crate::chunks::masked(skeleton, clip, mask);
                let error = clip_error(skeleton, &alone, &asset, index, distance)?;
                (error, mask.iter().filter(|m| **m).count(), " (a chunk, alone)")
            }
            (_, Some(source)) => {
                let error = source_error(skeleton, source, &asset, index, distance, interpolation)?;
                (error, skeleton.parents.len(), " (on knots, against every source frame)")
            }
            _ => (clip_error(skeleton, clip, &asset, index, distance)?, skeleton.parents.len(), ""),
        };
        let baked = asset.clip(index).ok_or(format!("the blob has no clip {index}"))?;
        let frames = source.map_or(clip.frames.len(), |source| source.frames.len());
        reports.push(ClipReport {
            name: clip.name.clone(),
            how,
            frames: baked.num_frames(),
            rate: baked.sample_rate(),
            joints,
            bytes: baked.data_bytes(),
            raw: RAW_BYTES_PER_JOINT_FRAME * joints * frames,
            error,
        });
    }
    Ok(reports)
}

/// One line per clip: its error in centimetres on the figure scaled to 1.7 m (file units for a figure without a
/// height), with points `distance_cm` from each joint, and its bytes against raw `f32`.
fn error_report(reports: &[ClipReport], scale: crate::annotate::FigureScale, distance_cm: f64) -> String {
    use crate::annotate::FigureScale;
    let per_cm = scale.units_per_cm();
    let mut out = match scale {
        FigureScale::Centimetres { units_per_cm } => format!(
            "\n  figure: {:.4} file units tall standing (the taller of the rest pose and a clip's median frame), taken as 1.7 m",
            units_per_cm * crate::dmath::FIGURE_CM
        ),
        FigureScale::FileUnits { .. } => String::new(),
    };
    for r in reports {
        let measured = match scale {
            FigureScale::Centimetres { .. } => format!(
                "error max {:.4} cm, p99 {:.4} cm (virtual points {distance_cm} cm from each joint, figure scaled to 1.7 m",
                r.error.max / per_cm,
                r.error.p99 / per_cm
            ),
            FigureScale::FileUnits { size } => format!(
                "error max {:.4e}, p99 {:.4e} file units (the figure has no height to scale to centimetres; virtual points {:.4e} file units from each joint, {distance_cm}/170 of its size {size:.4e}",
                r.error.max,
                r.error.p99,
                distance_cm * per_cm
            ),
        };
        out += &format!(
            "\n  `{}`{}: {measured}; {} times); {} bytes, {:.1}:1 against raw f32",
            r.name,
            r.how,
            r.error.samples,
            r.bytes,
            r.raw as f64 / r.bytes.max(1) as f64
        );
    }
    out
}

/// `bake --json`: the blob and, per clip, what the text report says as fields (a contract: `name`, `frames`,
/// `rate`, `joints`, `bytes`, `ratio`, `max_error_cm`, `p99_error_cm`, `figure_height`, `bound`). Errors in cm
/// on the figure scaled to 1.7 m; `figure_height` (the height taken as 1.7 m) and `bound` (the error the bake
/// was held to, `null` when none) in file units.
fn json_report(
    out: &std::path::Path,
    reports: &[ClipReport],
    scale: crate::annotate::FigureScale,
    bound: Option<f64>,
) -> String {
    let per_cm = scale.units_per_cm();
    let clips: Vec<serde_json::Value> = reports
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.name,
                "frames": r.frames,
                "rate": r.rate,
                "joints": r.joints,
                "bytes": r.bytes,
                "ratio": r.raw as f64 / r.bytes.max(1) as f64,
                "max_error_cm": r.error.max / per_cm,
                "p99_error_cm": r.error.p99 / per_cm,
                "figure_height": per_cm * crate::dmath::FIGURE_CM,
                "bound": bound,
            })
        })
        .collect();
    serde_json::json!({ "out": out.display().to_string(), "clips": clips }).to_string()
}

/// Raw storage of one joint's transform: 10 `f32` (translation, rotation, scale), the ratio's reference.
pub const RAW_BYTES_PER_JOINT_FRAME: usize = 40;

pub fn inspect(args: &InspectArgs) -> Result<String, String> {
    let blob = crate::blob::read(&args.blob)?;
    if args.json { Ok(crate::blob::inspect_json(&blob)?.to_string()) } else { crate::blob::inspect_text(&blob) }
}

/// `--feet LEFT,RIGHT` as names (none: detect).
pub fn feet_names(feet: &Option<String>) -> Vec<String> {
    feet.iter().flat_map(|f| f.split(',').map(|n| n.trim().to_string())).collect()
}

pub fn report(result: Result<String, String>) -> ExitCode {
    match result {
        Ok(text) => {
            // A closed pipe (`| head`) is not an error worth a panic.
            let _ = writeln!(std::io::stdout(), "{}", text.trim_end());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
