//! Hostile-input harnesses: what every fuzz target and the blob mutation run check on whatever loads, and the
//! seeded mutation run itself (`cargo xtask fuzz`, via `examples/mutate_blobs.rs`).
//!
//! The rule checked: bytes either fail to load with an error, or load into an asset whose every clip samples
//! at any time and poses (local-to-model) to finite model matrices, samples the same through a context keeping
//! a compressed segment's decoders as through one that does not, samples its first lane group alone as the
//! job does, and moves a root by a finite motion. A panic, an `Err` after a successful load,
//! or a non-finite matrix is a find.

use crate::bake::KeyFormat;

use crate::raw::{AlignedBlob, RawClip, RawSkeleton};
use sinew::clip::Keys;
use sinew::math::{Mat4, SoaTransform};
use sinew::{Arena, Asset, LocalToModelJob, Playback, SamplingContext, SamplingJob};
use sinew::{Palette, SkinningJob};

/// Samples every clip of a loaded asset at times inside, on the edges of and outside the clip, both playback
/// modes, and runs local-to-model on each pose. `Err` says what broke the loader's promise.
pub fn exercise(asset: &Asset<'_>) -> Result<(), String> {
    let skeleton = asset.skeleton();
    let n = skeleton.num_joints();
    // Two contexts: one working each frame's decoders out from the segment's table, one keeping them across
    // frames (the path a game playing compressed clips takes); they must agree bit for bit.
    let most_tracks = 3 * n;
    let mut memory = vec![0u8; SamplingContext::required_bytes(n)];
    let mut kept_memory = vec![0u8; SamplingContext::required_bytes_with_decoders(n, most_tracks)];
    let (arena, kept_arena) = (Arena::new(&mut memory), Arena::new(&mut kept_memory));
    let mut context = SamplingContext::new(&arena, n).map_err(|e| e.to_string())?;
    let mut kept = SamplingContext::with_decoders(&kept_arena, n, most_tracks).map_err(|e| e.to_string())?;
    let mut local = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    let mut kept_local = local.clone();
    let mut model = vec![Mat4::IDENTITY; n];
    for c in 0..asset.num_clips() {
        let clip = asset.clip(c).ok_or(format!("clip {c} of {} is missing after load", asset.num_clips()))?;
        let duration = clip.duration();
        let mut curves = vec![0.0f32; clip.num_curves()];
        if asset.curve_names(c).count() != clip.num_curves() {
            return Err(format!("clip {c}: {} curves but other names", clip.num_curves()));
        }
        // Seeks in and out of the clip; a compressed one then also plays over it in steps of a fraction of a
        // frame or more, and through both contexts (other keys have no decoders to keep).
        let compressed = matches!(clip.keys(), Keys::Compressed(_));
        let (steps, contexts) = if compressed { (PLAYBACK_STEPS, CONTEXTS) } else { (0, 1) };
        let seeks = [-1.0, 0.0, 0.37 * duration, duration, duration + 0.5, f32::MAX].map(|t| (t, true));
        let playing = (0..steps).map(|k| (k as f32 * duration / steps.saturating_sub(3).max(1) as f32, false));
        for (time, both_modes) in seeks.into_iter().chain(playing) {
            for playback in if both_modes { &[Playback::Clamp, Playback::Loop][..] } else { &[Playback::Loop] } {
                let playback = *playback;
                let pairs = [(&mut context, &mut local), (&mut kept, &mut kept_local)];
                for (context, output) in pairs.into_iter().take(contexts) {
                    SamplingJob { skeleton, clip: &clip, time, playback, context, output, curves: &mut curves }
                        .run()
                        .map_err(|e| format!("clip {c} at {time} s: sampling a loaded clip failed: {e}"))?;
                }
                if contexts == 2 && bytemuck::cast_slice::<_, u8>(&local) != bytemuck::cast_slice::<_, u8>(&kept_local)
                {
                    return Err(format!("clip {c} at {time} s: a context keeping decoders samples another pose"));
                }
                if let Some(k) = curves.iter().position(|v| !v.is_finite()) {
                    return Err(format!("clip {c} at {time} s: curve {k} is not finite"));
                }
                LocalToModelJob { skeleton, walk: None, local: &local, root: None, model: &mut model }
                    .run()
                    .map_err(|e| format!("clip {c} at {time} s: local-to-model failed: {e}"))?;
                if let Some(j) = model.iter().position(|m| !m.is_finite()) {
                    return Err(format!("clip {c} at {time} s: model matrix {j} is not finite"));
                }
                // Root-only sampling is the job's first lane group, bit for bit.
                let group = sinew::sampling::sample_first_group(&clip, &skeleton.rest_pose()[0], time, playback);
                if bytemuck::bytes_of(&group) != bytemuck::bytes_of(&local[0]) {
                    return Err(format!("clip {c} at {time} s: the first group alone differs from the job's"));
                }
            }
        }
        // Annotations: names resolve, times lie in the clip, and a looping step over the clip crosses each
        // marker once.
        let markers = asset.markers(c);
        for m in markers {
            asset.name(m.name).ok_or(format!("clip {c}: a marker's name does not resolve"))?;
            if !(0.0..=duration).contains(&m.time) {
                return Err(format!("clip {c}: marker at {} s outside the clip", m.time));
            }
        }
        for r in asset.ranges(c) {
            asset.name(r.name).ok_or(format!("clip {c}: a range's name does not resolve"))?;
        }
        if duration > 0.0 {
            let mut control = sinew::Control::new(c as u32, duration, sinew::Wrap::Loop, 0.0, 1.0, 1.0)
                .map_err(|e| format!("clip {c}: {e}"))?;
            let step = control.advance(duration.min(sinew::limits::MAX_TIME_STEP)).map_err(|e| e.to_string())?;
            // The step's root motion (joint 0 read as a motion root whatever its name) is finite.
            let motion = sinew::root_motion::step_motion(&clip, &skeleton.rest_pose()[0], &step);
            if !(motion.translation.is_finite() && motion.yaw.is_finite()) {
                return Err(format!("clip {c}: a step's root motion is not finite: {motion:?}"));
            }
            let crossed = step.crossings(markers).take(markers.len() + 1).count();
            if duration <= sinew::limits::MAX_TIME_STEP && crossed != markers.len() {
                return Err(format!("clip {c}: one loop crossed {crossed} of {} markers", markers.len()));
            }
        }
    }
    exercise_phases(asset)?;
    if let Some(database) = asset.motion_database() {
        exercise_search(database)?;
    }
    if let Some(skin) = asset.skin() {
        let mut palette = vec![sinew::math::Mat3x4::IDENTITY; skin.num_joints()];
        LocalToModelJob { skeleton, walk: None, local: skeleton.rest_pose(), root: None, model: &mut model }
            .run()
            .map_err(|e| format!("rest pose: local-to-model failed: {e}"))?;
        SkinningJob { skin, model: &model, palette: Palette::Rows(&mut palette) }
            .run()
            .map_err(|e| format!("skin palette failed: {e}"))?;
    }
    Ok(())
}

/// Playback samples per compressed clip in [`exercise`]: enough to cross its segments of 16 frames
/// when its duration spans a few of them, and to wrap once.
const PLAYBACK_STEPS: usize = if cfg!(miri) { 0 } else { 40 };

/// Contexts [`exercise`] samples a compressed clip through and compares. Under Miri only the first: the comparison is about
/// results, which the fuzz targets and native tests check, and each sample there is seconds of soft floats
/// (both contexts' decoders come from the same `RotationQuadDecoder::fill` and its reads, which Miri checks).
const CONTEXTS: usize = if cfg!(miri) { 1 } else { 2 };

/// Phase tables: lookups at times and phases in and out of range stay finite and within the clip; foot-phase
/// matching between every pair of phased clips returns a time within the target, or nothing.
fn exercise_phases(asset: &Asset<'_>) -> Result<(), String> {
    use sinew::phase::{Footsteps, PhaseTable, match_foot_phase};
    let phased: Vec<(usize, PhaseTable)> =
        (0..asset.num_clips()).filter_map(|c| PhaseTable::of(asset, c).map(|t| (c, t))).collect();
    for &(c, table) in &phased {
        let duration = asset.clip_duration(c).unwrap_or(0.0);
        for x in [f32::MIN, -1e-9, -1.0, 0.0, 0.3, 0.999_999, 1.0, 7.5, 3e9, f32::MAX, f32::NAN] {
            let phase = table.phase_at(x * duration);
            if !(0.0..1.0).contains(&phase) && !x.is_nan() {
                return Err(format!("clip {c}: phase {phase} at {} s", x * duration));
            }
            for time in [table.time_at(x), table.time_at_or_after(x, 0.5 * duration)] {
                if !(0.0..=duration).contains(&time) && !x.is_nan() {
                    return Err(format!("clip {c}: phase {x} enters at {time} s of {duration}"));
                }
            }
        }
        let feet = table.feet();
        for &(s, source) in &phased {
            let steps = |clip: usize, foot: usize| Footsteps::of(asset, clip, foot, true);
            let (Some(l), Some(r)) = (steps(c, feet[0]), steps(c, feet[1])) else { continue };
            let at = 0.5 * asset.clip_duration(s).unwrap_or(0.0);
            let source_feet = source.feet();
            let wanted = [steps(s, source_feet[0]), steps(s, source_feet[1])].map(|f| f.and_then(|f| f.phase_at(at)));
            if let [Some(a), Some(b)] = wanted
                && let Some(found) = match_foot_phase([&l, &r], table.sample_rate(), [a, b], 0.0..=f32::MAX)
                && !(0.0..=duration).contains(&found.time)
            {
                return Err(format!("clip {s} -> {c}: foot phases enter at {} s of {duration}", found.time));
            }
        }
    }
    Ok(())
}

/// Every key format: compressed to a millimetre at 3 cm (file units of the importers' and the rig's metres).
const FORMATS: [KeyFormat; 3] = [
    KeyFormat::F32,
    KeyFormat::Quantized,
    KeyFormat::Compressed(crate::compress::Precision { max_error: 1e-3, distance: 0.03 }),
];

/// Bakes importer output in every key format; whatever bakes and loads must pass [`exercise`] (panics
/// otherwise, which is what a fuzz target reports).
pub fn bake_and_exercise(skeleton: &RawSkeleton, clips: &[RawClip]) {
    for format in FORMATS {
        let Ok(blob) = crate::bake::bake(skeleton, clips, format) else { continue };
        if let Ok(asset) = Asset::load(blob.bytes()) {
            exercise(&asset).unwrap_or_else(|e| panic!("{format:?} bake: {e}"));
        }
    }
}

/// Searches a loaded motion database from its first and last frames' features, pruned and by brute force, with
/// and without a playing frame and a filter: both must give the same answer (or the same error).
fn exercise_search(database: &sinew::motion_database::MotionDatabase<'_>) -> Result<(), String> {
    use sinew::motion_matching::{MotionSearchJob, SearchMethod, TagFilter};
    let mut query = vec![0.0; database.dims()];
    for frame in [0, database.frames() - 1] {
        database.raw_features(frame, &mut query).map_err(|e| format!("database frame {frame}: {e}"))?;
        for (current, filter) in [(None, TagFilter::ALL), (Some(frame), TagFilter { require: 1, exclude: 2 })] {
            let mut job = MotionSearchJob::new(database, &query);
            (job.current, job.filter, job.exclude_window) = (current, filter, 3);
            let pruned = job.run();
            job.method = SearchMethod::BruteForce;
            let brute = job.run();
            let same = match (&pruned, &brute) {
                (Ok(a), Ok(b)) => a.frame == b.frame && a.cost.to_bits() == b.cost.to_bits(),
                (a, b) => a == b,
            };
            if !same {
                return Err(format!("database frame {frame}: pruned {pruned:?}, brute force {brute:?}"));
            }
        }
    }
    Ok(())
}

/// A motion database over `clips` (five smooth dimensions in two groups, tags alternating every 8 frames, the
/// last 4 frames of each clip excluded), so mutations reach its sections and the search.
pub fn database_extras(clips: &[RawClip]) -> Result<crate::raw::Extras, String> {
    use crate::motion_database::{GroupSpec, OwnedDatabase};
    use sinew::motion_database::{FRAME_EXCLUDED, FrameEntry};
    let (mut rows, mut entries) = (Vec::new(), Vec::new());
    for (index, clip) in clips.iter().enumerate() {
        let frames = clip.frames.len();
        for f in 0..frames {
            let t = f as f32 / clip.sample_rate;
            rows.extend((0..5).map(|d| (t * (1.0 + d as f32) + index as f32).sin() * (d + 1) as f32));
            let flags = if f + 4 >= frames { FRAME_EXCLUDED } else { 0 };
            entries.push(FrameEntry { clip: index as u32, time: t, tags: (f / 8 % 2) as u32, flags });
        }
    }
    let groups = [("pose", 3, 1.0), ("trajectory", 2, 1.5)].map(|(name, dims, weight)| GroupSpec {
        name: name.into(),
        dims,
        weight,
    });
    let database = OwnedDatabase::build(&rows, &groups, &entries).map_err(|e| e.to_string())?;
    Ok(crate::raw::Extras { motion_database: Some(database), ..Default::default() })
}

/// Footsteps, two curves and a phase table for each clip (1.5 strides, steps alternating every half stride on
/// joints 1 and 2), so mutations reach the phase and curve sections and the footstep markers.
pub fn phased_extras(rig: &crate::rig::Rig, clips: &[RawClip]) -> crate::raw::Extras {
    use crate::raw::{RawAnnotations, RawMarker, RawPhase};
    let mut extras = crate::raw::Extras::default();
    for clip in clips {
        let frames = clip.frames.len();
        let duration = (frames - 1) as f32 / clip.sample_rate;
        let forward: Vec<f32> = (0..frames).map(|k| 0.25 + 1.5 * k as f32 / (frames - 1) as f32).collect();
        let inverse = (0..=96).map(|k| (k as f32 / 64.0 / 1.5 * duration).min(duration)).collect();
        let feet = [1u16, 2];
        let markers = (0..4)
            .map(|i| RawMarker {
                name: format!("footstep:{}", rig.names[feet[i % 2] as usize]),
                time: i as f32 * duration / 4.0,
                value: 0.0,
            })
            .collect();
        let wave: Vec<f32> = (0..frames).map(|k| (k as f32 * 0.7).sin() * 3.0).collect();
        let curves = vec![
            crate::raw::RawCurve::from_frames("weight", Some(1e-3), clip.sample_rate, &forward),
            crate::raw::RawCurve::from_frames("wave", Some(1e-2), clip.sample_rate, &wave),
        ];
        extras.annotations.push(RawAnnotations { markers, curves, ..Default::default() });
        let flags = sinew::asset::MATCH_IN | sinew::asset::MATCH_OUT;
        extras.phases.push(Some(RawPhase {
            forward,
            inverse,
            per_stride: 64,
            center: 0.0,
            amplitude: 1.0,
            feet,
            flags,
        }));
    }
    extras
}

/// What a mutation run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MutationReport {
    pub executions: u64,
    /// Mutated blobs that still loaded (and then passed `exercise`).
    pub loaded: u64,
}

/// xorshift64*: a fixed, dependency-free sequence for a given seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Values that sit on the edges of what the loader checks, as 4-byte patterns.
const EDGE_VALUES: [u32; 14] = [
    0,
    1,
    0xFFFF_FFFF,
    0x7FFF_FFFF,
    0x8000_0000,
    0x0000_FFFF,
    0xFFFF_0000,
    0x7F80_0000, // +inf
    0x7FC0_0000, // NaN
    0x7F7F_FFFF, // f32::MAX
    0x0000_0001, // the smallest subnormal
    0x1E3C_E508, // 1e-20, the key magnitude floor
    0x5A0E_1BCA, // 1e16, past the model extent
    0x3F80_0000, // 1.0
];

/// Runs `count` mutations of valid blobs (a procedural rig's clips, in every key format, one of them on knots,
/// and both with a motion database) from `seed`:
/// first every truncation of each, then bit flips, edge values written at aligned offsets, random byte runs
/// and section-length nudges, each loaded and, when it loads, exercised. Stops at the first find.
pub fn mutate_blobs(seed: u64, count: u64) -> Result<MutationReport, String> {
    let rig = crate::rig::Rig::humanoid(67);
    let clips = [rig.clip(31, 30.0), rig.clip(7, 24.0)];
    let extras = phased_extras(&rig, &clips);
    let mut originals: Vec<AlignedBlob> = FORMATS
        .iter()
        .map(|&format| crate::bake::bake_with(&rig.raw_skeleton(), &clips, format, &extras))
        .collect::<Result<_, _>>()?;
    // The short clip on knots of uneven spacing too, so mutations reach the knot table and its sampling.
    let knots =
        crate::raw::Extras { knots: vec![Some(vec![0.0, 0.03, 0.1, 0.12, 0.2, 0.35, 0.4])], ..Default::default() };
    for &format in FORMATS.iter() {
        originals.push(crate::bake::bake_with(&rig.raw_skeleton(), &clips[1..], format, &knots)?);
    }
    // And the clips with a motion database, so mutations reach its sections and the search.
    let database = database_extras(&clips)?;
    originals.push(crate::bake::bake_with(&rig.raw_skeleton(), &clips, FORMATS[0], &database)?);
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut report = MutationReport::default();
    let check = |bytes: &AlignedBlob, what: &dyn Fn() -> String, report: &mut MutationReport| {
        report.executions += 1;
        match Asset::load(bytes.bytes()) {
            Ok(asset) => {
                report.loaded += 1;
                exercise(&asset).map_err(|e| format!("{}: {e}", what()))
            }
            Err(_) => Ok(()),
        }
    };
    for (b, original) in originals.iter().enumerate() {
        for len in 0..original.bytes().len() {
            let truncated = AlignedBlob::from_bytes(&original.bytes()[..len]);
            check(&truncated, &|| format!("blob {b} truncated to {len} bytes"), &mut report)?;
        }
    }
    while report.executions < count {
        let b = rng.below(originals.len());
        let mut blob = originals[b].clone();
        let len = blob.bytes().len();
        let kind = rng.below(4);
        let mut edits = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let bytes = blob.bytes_mut();
            match kind {
                0 => {
                    let i = rng.below(len);
                    bytes[i] ^= 1 << rng.below(8);
                    edits.push(format!("flip byte {i}"));
                }
                1 => {
                    let at = 4 * rng.below(len / 4);
                    let value = EDGE_VALUES[rng.below(EDGE_VALUES.len())];
                    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
                    edits.push(format!("write {value:#010x} at {at}"));
                }
                2 => {
                    let at = rng.below(len);
                    let run = (1 + rng.below(16)).min(len - at);
                    for byte in &mut bytes[at..at + run] {
                        *byte = rng.next() as u8;
                    }
                    edits.push(format!("randomize {run} bytes at {at}"));
                }
                _ => {
                    // A header or clip-record field (the first 64 bytes, or any 4-aligned u32) nudged by ±1..16.
                    let at = 4 * rng.below(len.min(64 + 64 * 4) / 4);
                    let old = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
                    let delta = 1 + rng.below(16) as u32;
                    let new = if rng.below(2) == 0 { old.wrapping_add(delta) } else { old.wrapping_sub(delta) };
                    bytes[at..at + 4].copy_from_slice(&new.to_le_bytes());
                    edits.push(format!("field at {at}: {old} -> {new}"));
                }
            }
        }
        check(&blob, &|| format!("blob {b}, {}", edits.join(", ")), &mut report)?;
    }
    Ok(report)
}
