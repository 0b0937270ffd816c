//! Stride phase and foot-phase matching: on a synthetic stride (a sinusoidal stride signal, whose quotient
//! phase is known in closed form) and on the Bandai walk and run, checked against an independent f64
//! computation of the feet's signal; matching lands on the same phase and foot; the loader rejects corrupt
//! phase sections; bad clips get no phase and say why.

use sinew::asset::{Header, MATCH_IN, PhaseRecord};
use sinew::character::{CharacterDesc, SyncMode};
use sinew::math::{Quat, Transform, Vec3};
use sinew::phase::{self, Footsteps, PhaseTable};
use sinew::{BlobProblem, Character, Chunk, Error, LayerDesc, LayerKind, Play, Rig, Section, SlotId};
use sinew_tests::oracle;
use sinew_tools::annotate::PlantRule;
use sinew_tools::bake;
use sinew_tools::phase::{NoPhase, PhaseRule, bake_phases, phase_report, stride_phase};
use sinew_tools::raw;
use sinew_tools::raw::{AlignedBlob, Extras, RawAnnotations, RawClip, RawSkeleton};

const RATE: f32 = 30.0;
/// Stride period and foot swing of the synthetic stride.
const PERIOD: f64 = 1.1;
const SWING: f64 = 0.3;

fn transform(x: f32, y: f32, z: f32) -> Transform {
    Transform { translation: Vec3 { x, y, z }, rotation: Quat::IDENTITY, scale: Vec3 { x: 1.0, y: 1.0, z: 1.0 } }
}

/// A pelvis walking along +Z at 1 m/s (its feet slow to a near stop once a stride) and two feet swinging ±SWING about it in antiphase: the stride signal is
/// `2 · SWING · sin(2π t / PERIOD)`.
fn synthetic(frames: usize) -> (RawSkeleton, RawClip) {
    synthetic_at(frames, 1.0)
}

/// [`synthetic`] with the pelvis walking at `speed` m/s.
fn synthetic_at(frames: usize, speed: f64) -> (RawSkeleton, RawClip) {
    let skeleton = RawSkeleton {
        names: vec!["Hips".into(), "Foot_L".into(), "Foot_R".into()],
        parents: vec![-1, 0, 0],
        rest: vec![transform(0.0, 1.0, 0.0), transform(0.1, -0.9, 0.0), transform(-0.1, -0.9, 0.0)],
    };
    let frames = (0..frames)
        .map(|k| {
            let t = k as f64 / RATE as f64;
            let swing = (SWING * (std::f64::consts::TAU * t / PERIOD).sin()) as f32;
            let z = (speed * t) as f32;
            vec![transform(0.0, 1.0, z), transform(0.1, -0.9, swing), transform(-0.1, -0.9, -swing)]
        })
        .collect();
    (skeleton, RawClip { name: "stride".into(), sample_rate: RATE, frames, step: sinew_tools::raw::StepKeys::None })
}

fn desc<'a>(num_joints: usize, layers: &'a [LayerDesc]) -> CharacterDesc<'a> {
    CharacterDesc {
        num_joints,
        num_skin_joints: 0,
        layers,
        num_masks: 0,
        num_curves: 0,
        inertialization: None,
        scratch: sinew::Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation: sinew::Interpolation::Linear,
    }
}

fn bake_with_phase(skeleton: &RawSkeleton, clips: &[RawClip], phases: Vec<Option<raw::RawPhase>>) -> AlignedBlob {
    let extras = Extras { phases, ..Default::default() };
    bake::bake_with(skeleton, clips, bake::KeyFormat::F32, &extras).expect("bake")
}

/// The quotient phase of `s = sin θ` in closed form: ¼(1 + sin θ) while rising, ½ + ¼(1 − sin θ) while falling.
fn sine_phase(t: f64) -> f64 {
    let theta = std::f64::consts::TAU * t / PERIOD;
    if theta.cos() >= 0.0 { (0.25 * (1.0 + theta.sin())).rem_euclid(1.0) } else { 0.5 + 0.25 * (1.0 - theta.sin()) }
}

#[test]
fn a_sinusoidal_stride_has_its_closed_form_phase_and_round_trips_within_half_a_frame() {
    let (skeleton, clip) = synthetic(100);
    let raw = stride_phase(&skeleton, &clip, [1, 2], PhaseRule::default()).expect("phase");
    let blob = bake_with_phase(&skeleton, std::slice::from_ref(&clip), vec![Some(raw)]);
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let table = PhaseTable::of(&asset, 0).expect("table");
    assert_eq!(table.feet(), [1, 2]);
    let (center, amplitude) = table.center_and_amplitude();
    assert!(center.abs() < 0.02 && (amplitude as f64 - 2.0 * SWING).abs() < 0.1 * SWING, "{center} {amplitude}");
    let frame = 1.0 / RATE as f64;
    for k in 0..clip.frames.len() {
        let t = k as f64 * frame;
        let phase = table.phase_at(t as f32);
        // The moving average flattens the signal near its extremes, where the phase moves slowest.
        let expected = sine_phase(t);
        assert!(phase::circular_distance(phase, expected as f32) < 0.03, "t {t}: {phase} vs {expected}");
        // F(φ(t)) is t, whole periods away, within half a frame where the phase moves; at the extremes the
        // quotient stands still (ds/dt = 0) and any time of the plateau has the phase.
        let back = table.time_at(phase) as f64;
        let off = ((back - t) / PERIOD).round() * PERIOD;
        let slope = 0.5 * phase::circular_distance(sine_phase(t + frame) as f32, sine_phase(t - frame) as f32);
        if slope >= 0.02 {
            assert!((back - off - t).abs() <= 0.5 * frame + 1e-4, "t {t}: back {back}");
        }
        assert!(phase::circular_distance(table.phase_at(back as f32), phase) <= 0.01, "t {t}: back {back}");
        // A pose's own phase, from its signal now and a frame earlier, normalized by the table.
        let s = |t: f64| (2.0 * SWING * (std::f64::consts::TAU * t / PERIOD).sin()) as f32;
        let pose = phase::pose_phase(s(t), s(t - frame), center, amplitude);
        assert!(phase::circular_distance(pose, expected as f32) < 0.03, "t {t}: pose {pose} vs {expected}");
    }
    // Only a phase's fraction counts, however large or small the number.
    for (p, same) in [(-3e38f32, 0.0f32), (3e9, 0.0), (-1e-9, 0.0), (-0.25, 0.75), (7.5, 0.5)] {
        assert_eq!(table.time_at(p), table.time_at(same), "phase {p}");
    }
    let strides = table.strides() as f64;
    let expected = (clip.frames.len() - 1) as f64 * frame / PERIOD;
    assert!((strides - expected).abs() < 0.1, "{strides} strides, expected {expected}");
}

#[test]
fn clips_without_a_stride_get_no_phase_and_say_why() {
    let rule = PhaseRule::default();
    let (skeleton, clip) = synthetic(100);
    let short = RawClip { frames: clip.frames[..2].to_vec(), ..clip.clone() };
    assert!(matches!(stride_phase(&skeleton, &short, [1, 2], rule), Err(NoPhase::TooShort { .. })));
    // Less than a stride: a third of a period.
    let third = RawClip { frames: clip.frames[..12].to_vec(), ..clip.clone() };
    assert!(matches!(stride_phase(&skeleton, &third, [1, 2], rule), Err(NoPhase::TooShort { .. })));
    // Standing: the feet do not swing.
    let standing = RawClip { frames: vec![skeleton.rest.clone(); 90], ..clip.clone() };
    assert!(matches!(stride_phase(&skeleton, &standing, [1, 2], rule), Err(NoPhase::TooShort { .. })));
    // Shuffling by a few millimetres of noise is not a stride either.
    let mut rng = sinew_tests::Rng::new(7);
    let mut noisy = standing.clone();
    for f in &mut noisy.frames {
        f[1].translation.z += rng.range(-0.005, 0.005);
        f[2].translation.x += rng.range(-0.005, 0.005);
    }
    assert!(matches!(stride_phase(&skeleton, &noisy, [1, 2], rule), Err(NoPhase::TooShort { .. })));
    // Feet that never plant (gliding at 3 m/s, they never slow down): the bake reports it and stores none.
    let (_, clip) = synthetic_at(100, 3.0);
    let mut annotations = vec![RawAnnotations::default()];
    let clips = [clip];
    let found =
        bake_phases(&skeleton, &clips, [1, 2], PlantRule::default(), rule, &mut annotations).expect("bake phases");
    let report = phase_report(&clips, &found);
    let phases: Vec<_> = found.into_iter().map(Result::ok).collect();
    assert!(phases[0].is_none() && report[0].contains("never plants"), "{report:?}");
    // Noisy strides still give a nondecreasing table or no table, never a panic.
    for seed in 0..20 {
        let mut rng = sinew_tests::Rng::new(seed);
        let (skeleton, mut clip) = synthetic(80);
        for f in &mut clip.frames {
            f[1].translation.z += rng.range(-0.2, 0.2);
        }
        if let Ok(p) = stride_phase(&skeleton, &clip, [1, 2], rule) {
            assert!(p.forward.windows(2).all(|w| w[0] <= w[1]) && p.inverse.windows(2).all(|w| w[0] <= w[1]));
        }
    }
}

#[test]
fn the_loader_rejects_corrupt_phase_sections() {
    let (skeleton, clip) = synthetic(100);
    let raw = stride_phase(&skeleton, &clip, [1, 2], PhaseRule::default()).expect("phase");
    let good = bake_with_phase(&skeleton, &[clip], vec![Some(raw)]).bytes().to_vec();
    let header = |b: &[u8]| *bytemuck::from_bytes::<Header>(&b[..sinew::asset::HEADER_LEN]);
    let record_at = header(&good).phases.offset as usize;
    let values_at = header(&good).phase_values.offset as usize;
    let load = |b: &[u8]| {
        let blob = AlignedBlob::from_bytes(b);
        sinew::Asset::load(blob.bytes()).map(|_| ())
    };
    assert_eq!(load(&good), Ok(()));
    fn record(b: &mut [u8], at: usize) -> &mut PhaseRecord {
        bytemuck::from_bytes_mut(&mut b[at..at + 32])
    }
    fn value(b: &mut [u8], at: usize) -> &mut f32 {
        bytemuck::from_bytes_mut(&mut b[at..at + 4])
    }
    let phases = Error::Blob { section: Section::Phases, problem: BlobProblem::Value { index: 0 } };
    let values = Error::Blob { section: Section::PhaseValues, problem: BlobProblem::Value { index: 0 } };
    type Corrupt = Box<dyn Fn(&mut Vec<u8>)>;
    let cases: Vec<(&str, Corrupt, Error)> = vec![
        ("frame count", Box::new(move |b| record(b, record_at).num_frames = 99), phases),
        ("foot out of range", Box::new(move |b| record(b, record_at).feet[0] = 3), phases),
        ("same foot twice", Box::new(move |b| record(b, record_at).feet = [1, 1]), phases),
        ("unknown flag", Box::new(move |b| record(b, record_at).flags = 4), phases),
        ("no swing", Box::new(move |b| record(b, record_at).amplitude = 0.0), phases),
        ("NaN centre", Box::new(move |b| record(b, record_at).center = f32::NAN), phases),
        ("steps per stride", Box::new(move |b| record(b, record_at).per_stride = 0), phases),
        ("values past the table", Box::new(move |b| record(b, record_at).first = 1 << 20), phases),
        ("a table of one inverse time", Box::new(move |b| record(b, record_at).num_inverse = 1), phases),
        ("phase going back", Box::new(move |b| *value(b, values_at + 4 * 10) = -1.0), values),
        ("first phase past a stride", Box::new(move |b| *value(b, values_at) = 1.5), values),
        ("NaN phase", Box::new(move |b| *value(b, values_at + 4 * 3) = f32::NAN), values),
        ("inverse time past the clip", Box::new(move |b| *value(b, values_at + 4 * 105) = 1e9), values),
        (
            "a record for no clip",
            Box::new(|b| {
                let at = 8 + 4 * 4 + 8 * 10;
                let r: &mut sinew::asset::SectionRef = bytemuck::from_bytes_mut(&mut b[at..at + 8]);
                r.len = 64;
            }),
            Error::Blob { section: Section::Phases, problem: BlobProblem::Size { len: 64, expected: 32 } },
        ),
    ];
    for (what, corrupt, expected) in cases {
        let mut b = good.clone();
        corrupt(&mut b);
        let got = load(&b).expect_err(what);
        // A stretched section may trip the section walk first; either way it is the phase section's error.
        match (&got, &expected) {
            (Error::Blob { section: a, .. }, Error::Blob { section: e, .. }) if what.starts_with("a record") => {
                assert!(matches!(a, Section::Phases | Section::PhaseValues), "{what}: {got:?} vs {e:?}")
            }
            _ => assert_eq!(got, expected, "{what}"),
        }
    }
}

/// The stride signal of every frame in f64: the feet by f64 forward kinematics, the direction from the pelvis
/// (the feet's common parent chain) over ±0.25 s, projected on the ground.
fn signal64(skeleton: &RawSkeleton, clip: &RawClip, feet: [usize; 2], pelvis: usize) -> Vec<f64> {
    let positions: Vec<Vec<[f64; 3]>> = clip
        .frames
        .iter()
        .map(|f| {
            let model = oracle::local_to_model(&skeleton.parents, f, &oracle::IDENTITY);
            model.iter().map(|m| [m[12], m[13], m[14]]).collect()
        })
        .collect();
    let n = positions.len();
    let reach = (0.25 * clip.sample_rate as f64).round() as usize;
    (0..n)
        .map(|f| {
            let (a, b) = (f.saturating_sub(reach), (f + reach).min(n - 1));
            let d =
                [positions[b][pelvis][0] - positions[a][pelvis][0], positions[b][pelvis][2] - positions[a][pelvis][2]];
            let length = (d[0] * d[0] + d[1] * d[1]).sqrt();
            let (l, r) = (positions[f][feet[0]], positions[f][feet[1]]);
            ((l[0] - r[0]) * d[0] + (l[2] - r[2]) * d[1]) / length
        })
        .collect()
}

fn joint(skeleton: &RawSkeleton, name: &str) -> usize {
    skeleton.names.iter().position(|n| n == name).expect(name)
}

#[test]
fn walk_and_run_wrap_once_per_stride_at_the_signals_minima_with_plants_in_their_half() {
    let Some((blob, skeleton, clips)) = sinew_tests::bandai_walk_run_phased("walk_and_run_wrap_once_per_stride") else {
        return;
    };
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let feet = [joint(&skeleton, "Foot_L"), joint(&skeleton, "Foot_R")];
    for (c, clip) in clips.iter().enumerate() {
        let table = PhaseTable::of(&asset, c).expect("table");
        assert_eq!(table.feet(), feet);
        let s = signal64(&skeleton, clip, feet, joint(&skeleton, "Hips"));
        let (lo, hi) = s.iter().fold((f64::MAX, f64::MIN), |(l, h), &v| (l.min(v), h.max(v)));
        let frames = s.len();
        let phases: Vec<f32> = (0..frames).map(|k| table.phase_at(k as f32 / clip.sample_rate)).collect();
        // The stride period from the f64 signal alone: the lag of its autocorrelation's first peak past 0.4 s.
        let mean = s.iter().sum::<f64>() / frames as f64;
        let corr = |lag: usize| (0..frames - lag).map(|k| (s[k] - mean) * (s[k + lag] - mean)).sum::<f64>();
        let first = (0.4 * clip.sample_rate as f64) as usize;
        let period = (first..frames / 2).max_by(|&a, &b| corr(a).total_cmp(&corr(b))).expect("lag") as f64;
        let expected = (frames - 1) as f64 / period;
        let strides = table.strides() as f64;
        assert!((strides - expected).abs() <= 1.0, "{}: {strides} strides, f64 period gives {expected}", clip.name);
        // Each wrap sits at a minimum of the f64 signal, each half-way crossing at a maximum: within a tenth of
        // the signal's range of the extreme over the quarter stride around it.
        let quarter = (period / 4.0) as usize;
        for k in 1..frames {
            let (a, b) = (k.saturating_sub(quarter), (k + quarter).min(frames - 1));
            let window = &s[a..=b];
            let tolerance = 0.1 * (hi - lo);
            if phases[k] < phases[k - 1] {
                let min = window.iter().copied().fold(f64::MAX, f64::min);
                assert!(s[k] - min <= tolerance, "{} frame {k}: wrap at s = {} (minimum {min})", clip.name, s[k]);
            }
            if phases[k - 1] < 0.5 && phases[k] >= 0.5 {
                let max = window.iter().copied().fold(f64::MIN, f64::max);
                assert!(max - s[k] <= tolerance, "{} frame {k}: ½ at s = {} (maximum {max})", clip.name, s[k]);
            }
        }
        // A foot is planted while it passes from ahead to behind: the left foot in the second half of the
        // stride, the right in the first; the middle of every plant within a quarter stride of that half's middle.
        for (side, (&foot, centre)) in feet.iter().zip([0.75f32, 0.25]).enumerate() {
            let name = format!("plant:{}", skeleton.names[foot]);
            let plants: Vec<_> = asset.ranges(c).iter().filter(|r| asset.name(r.name) == Some(&name)).collect();
            assert!(!plants.is_empty(), "{}: no {name}", clip.name);
            let frame = 1.0 / clips[c].sample_rate;
            let duration = asset.clip_duration(c).expect("duration");
            // Plants the take cuts short have their middle elsewhere.
            for r in plants.into_iter().filter(|r| r.start >= frame && r.end <= duration - frame) {
                let phase = table.phase_at(0.5 * (r.start + r.end));
                let off = phase::circular_distance(phase, centre);
                assert!(off <= 0.25, "{} foot {side}: plant {}..{} s at phase {phase}", clip.name, r.start, r.end);
            }
        }
        // The inverse table round trip: the phase at the time of phase p is p.
        for i in 0..97 {
            let p = i as f32 / 97.0;
            let back = table.phase_at(table.time_at(p));
            assert!(phase::circular_distance(back, p) <= 0.01, "{}: {p} -> {back}", clip.name);
        }
    }
}

#[test]
fn matching_lands_on_the_sources_phase_and_foot() {
    let Some((blob, skeleton, clips)) =
        sinew_tests::bandai_walk_run_phased("matching_lands_on_the_sources_phase_and_foot")
    else {
        return;
    };
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let feet = [joint(&skeleton, "Foot_L"), joint(&skeleton, "Foot_R")];
    let hips = joint(&skeleton, "Hips");
    let signals: Vec<Vec<f64>> = clips.iter().map(|c| signal64(&skeleton, c, feet, hips)).collect();
    let tables = [PhaseTable::of(&asset, 0).expect("walk"), PhaseTable::of(&asset, 1).expect("run")];
    let mut rng = sinew_tests::Rng::new(28);
    let (mut same_foot, mut counted, mut foot_cost) = (0, 0, Vec::new());
    for _ in 0..300 {
        let from = rng.below(2);
        let to = rng.below(2);
        let duration = asset.clip_duration(from).expect("duration");
        let at = rng.range(0.0, duration);
        let source_phase = tables[from].phase_at(at);
        let time = tables[to].time_at(source_phase);
        let landed = tables[to].phase_at(time);
        assert!(
            phase::circular_distance(landed, source_phase) <= 0.02,
            "{from}->{to} at {at}: {source_phase} -> {landed}"
        );
        // Which foot leads, by the f64 signal, where it clearly leads.
        let sample = |clip: usize, t: f32| signals[clip][(t * clips[clip].sample_rate).round() as usize];
        let (a, b) = (sample(from, at), sample(to, time));
        let (centre, amplitude) = tables[from].center_and_amplitude();
        if ((a - centre as f64) / amplitude as f64).abs() > 0.3 {
            counted += 1;
            same_foot += usize::from((a > centre as f64) == (b > tables[to].center_and_amplitude().0 as f64));
        }
        // Foot phases: the target time's pair of foot phases near the source's.
        let steps = |clip, side: usize| Footsteps::of(&asset, clip, feet[side], false).expect("steps");
        let (Some(l), Some(r)) = (steps(from, 0).phase_at(at), steps(from, 1).phase_at(at)) else { continue };
        let found =
            phase::match_foot_phase([&steps(to, 0), &steps(to, 1)], RATE, [l, r], 0.0..=f32::MAX).expect("match");
        let direct = [steps(to, 0).phase_at(found.time), steps(to, 1).phase_at(found.time)];
        for (d, f) in direct.iter().zip(found.phases) {
            assert!(d.is_some_and(|d| (d - f).abs() < 1e-5), "{direct:?} vs {:?}", found.phases);
        }
        foot_cost.push(found.cost);
        if from == to {
            // Self-match: the walk has other strides with the same foot phases; at worst, the time itself.
            let own = phase::circular_distance(l, l) + phase::circular_distance(r, r);
            assert!(found.cost <= own + 0.1, "self-match at {at}: cost {}", found.cost);
        }
    }
    assert!(same_foot * 100 >= 95 * counted, "same leading foot in {same_foot} of {counted} cuts");
    foot_cost.sort_by(f32::total_cmp);
    let median = foot_cost[foot_cost.len() / 2];
    assert!(median <= 0.15, "median foot-phase distance {median} over {} cuts", foot_cost.len());
}

#[test]
fn a_synced_transition_enters_at_the_matched_time_and_synced_layers_follow_the_phase() {
    let Some((blob, _, _)) = sinew_tests::bandai_walk_run_phased("a_synced_transition_enters_at_the_matched_time")
    else {
        return;
    };
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let rig = Rig::new(&asset, None).expect("rig");
    let layers =
        [LayerDesc { kind: LayerKind::Base, controls: 2 }, LayerDesc { kind: LayerKind::SyncedAdditive, controls: 1 }];
    let desc = desc(asset.skeleton().num_joints(), &layers);
    let mut block = vec![Chunk([0; 64]); Character::required_bytes(&desc).expect("bytes").div_ceil(64)];
    let mut character = Character::new(Chunk::bytes_mut(&mut block), &desc).expect("character");
    let (walk, run) = (PhaseTable::of(&asset, 0).expect("walk"), PhaseTable::of(&asset, 1).expect("run"));
    character.play(&asset, SlotId::base(0), Play::looping(0)).expect("walk");
    character.play(&asset, SlotId::on(1, 0), Play { weight: 0.5, ..Play::looping(1) }).expect("synced run");
    for _ in 0..40 {
        character.update(1.0 / 30.0, &rig).expect("update");
    }
    let walk_time = character.control(SlotId::base(0)).expect("slot").expect("walk").time();
    // The synced additive run follows the walk's stride phase, not its normalized time.
    let synced = character.control(SlotId::on(1, 0)).expect("slot").expect("run").time();
    assert!((synced - run.time_at(walk.phase_at(walk_time))).abs() < 1e-5, "synced run at {synced}");
    assert!(phase::circular_distance(run.phase_at(synced), walk.phase_at(walk_time)) < 0.02);

    let authored = Play { time: 0.1, ..Play::looping(1) };
    let cut = sinew::Blend::Cut;
    let mut copy = block.clone();
    let mut other = Character::attach(Chunk::bytes_mut(&mut copy)).expect("attach");
    assert_eq!(other.transition_synced(&asset, 1, authored, cut, SyncMode::None), Ok(0.1));
    let mut copy = block.clone();
    let mut other = Character::attach(Chunk::bytes_mut(&mut copy)).expect("attach");
    let entered = other.transition_synced(&asset, 1, authored, cut, SyncMode::Phase).expect("phase");
    assert_eq!(entered, run.time_at(walk.phase_at(walk_time)));
    assert_eq!(other.control(SlotId::base(1)).expect("slot").expect("run").time(), entered);
    let mut character = Character::attach(Chunk::bytes_mut(&mut block)).expect("attach");
    let entered = character.transition_synced(&asset, 1, authored, cut, SyncMode::FootPhase).expect("foot phase");
    let steps = |clip, foot, looping| Footsteps::of(&asset, clip, foot, looping).expect("steps");
    let [l, r] = walk.feet();
    let source = [steps(0, l, true).phase_at(walk_time).expect("l"), steps(0, r, true).phase_at(walk_time).expect("r")];
    let found =
        phase::match_foot_phase([&steps(1, l, true), &steps(1, r, true)], RATE, source, 0.0..=f32::MAX).expect("match");
    assert_eq!(entered, found.time);
}

#[test]
fn match_flags_off_keep_the_authored_time() {
    let (skeleton, clip) = synthetic(100);
    let mut raw = stride_phase(&skeleton, &clip, [1, 2], PhaseRule::default()).expect("phase");
    let mut target = raw.clone();
    target.flags = 0;
    raw.flags = MATCH_IN | sinew::asset::MATCH_OUT;
    let blob = bake_with_phase(&skeleton, &[clip.clone(), clip], vec![Some(raw), Some(target)]);
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let base = [LayerDesc { kind: LayerKind::Base, controls: 1 }];
    let desc = desc(3, &base);
    let mut block = vec![Chunk([0; 64]); Character::required_bytes(&desc).expect("bytes").div_ceil(64)];
    let mut character = Character::new(Chunk::bytes_mut(&mut block), &desc).expect("character");
    character.play(&asset, SlotId::base(0), Play { time: 0.4, ..Play::looping(0) }).expect("play");
    let wrap = sinew::Wrap::Loop;
    assert_eq!(character.synced_time(&asset, 1, wrap, SyncMode::Phase), Ok(None));
    // Into the clip whose flags allow it, from the other, which does not match out: nothing either.
    character.play(&asset, SlotId::base(0), Play { time: 0.4, ..Play::looping(1) }).expect("play");
    assert_eq!(character.synced_time(&asset, 0, wrap, SyncMode::Phase), Ok(None));
    // Between two clips that allow it, the phase.
    character.play(&asset, SlotId::base(0), Play { time: 0.4, ..Play::looping(0) }).expect("play");
    let table = PhaseTable::of(&asset, 0).expect("table");
    assert_eq!(character.synced_time(&asset, 0, wrap, SyncMode::Phase), Ok(Some(table.time_at(table.phase_at(0.4)))));
}

#[test]
fn the_feet_are_told_apart_by_the_naming_conventions_engines_use() {
    use sinew_tools::phase::left_right_feet;
    let skeleton = |left: &str, right: &str| RawSkeleton {
        names: vec!["Hips".into(), left.into(), right.into(), "FootRest".into()],
        parents: vec![-1, 0, 0, 0],
        rest: vec![Transform::IDENTITY; 4],
    };
    let pairs = [
        ("LeftFoot", "RightFoot"),
        ("foot_l", "foot_r"),
        ("Foot.L", "Foot.R"),
        ("l_foot", "r_foot"),
        ("Bip01 L Foot", "Bip01 R Foot"),
        ("LFoot", "RFoot"),
    ];
    for (left, right) in pairs {
        // Listed right first, so a rule that takes the first foot it sees would fail.
        assert_eq!(left_right_feet(&skeleton(right, left), &[]), Ok([2, 1]), "{left} / {right}");
    }
    // A foot named for neither side ("FootRest" above is one) is not taken; two unsided feet are refused.
    assert!(left_right_feet(&skeleton("Foot", "FootB"), &[]).is_err());
}
