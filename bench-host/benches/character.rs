//! The character runtime per rig size: one character's frame through `Character::update` (a two-clip base, an
//! upper-body overlay, a synced additive, inertialized, palette; the profiler's crowd layer stack) against the
//! same kernels called directly on the same buffers, in the same run (`crowd::with_crowds`). Their ratio is the
//! runtime's overhead; the cost of silent layers; a motion-only update against a full one. Throughput counts
//! joints.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::inertialization::Settings;
use sinew::{Asset, Character, CharacterDesc, Chunk, LayerDesc, LayerKind, Play, Rig, Scratch, SlotId};
use sinew_bench_host::bench_support::BENCH_JOINTS;
use sinew_bench_host::crowd::with_crowds;
use sinew_bench_host::workload::Workload;
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::raw::AlignedBlob;
use sinew_tools::root_motion::{self, Extraction};

fn character(c: &mut Criterion) {
    let mut group = c.benchmark_group("character");
    for &n in &BENCH_JOINTS {
        let workload = Workload::humanoid(n);
        group.throughput(Throughput::Elements(n as u64));
        with_crowds(&workload, 1, |frames| {
            // Frames advance so the clocks move; a transition every 3 s of game time, as in the crowd.
            let mut frame = 0;
            group.bench_function(BenchmarkId::new("sinew_character_update", n), |b| {
                b.iter(|| {
                    frame += 1;
                    (frames.character)(frame).expect("valid frame")
                })
            });
            let mut frame = 0;
            group.bench_function(BenchmarkId::new("direct_kernels", n), |b| {
                b.iter(|| {
                    frame += 1;
                    (frames.direct)(frame).expect("valid frame")
                })
            });
            // Foot planting on both legs and a head look-at after the update, matrices and palette again.
            let mut frame = 0;
            group.bench_function(BenchmarkId::new("planting_and_look_at", n), |b| {
                b.iter(|| {
                    frame += 1;
                    (frames.character)(frame).expect("valid frame");
                    (frames.post_process)(frame).expect("valid post-process")
                })
            });
            Ok(())
        })
        .expect("crowds");
    }
    group.finish();
}

/// The procedural humanoid of `n` joints baked with `copies` of its clip, its root motion extracted (delta) when
/// `root_motion`.
fn humanoid_blob(n: usize, copies: usize, root_motion: bool) -> AlignedBlob {
    let workload = Workload::humanoid(n);
    let (skeleton, clips) = if root_motion {
        root_motion::extract(&workload.skeleton, &[workload.clip], &Extraction::default()).expect("extract")
    } else {
        (workload.skeleton, vec![workload.clip])
    };
    bake::bake(&skeleton, &vec![clips[0].clone(); copies], KeyFormat::F32).expect("bake")
}

/// The benches' character: `layers`, an inertializer, the scratch in its block.
fn desc<'a>(num_joints: usize, layers: &'a [LayerDesc]) -> CharacterDesc<'a> {
    CharacterDesc {
        num_joints,
        num_skin_joints: 0,
        layers,
        num_masks: 0,
        num_curves: 0,
        inertialization: Some(Settings::default()),
        scratch: Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation: sinew::Interpolation::Linear,
    }
}

/// Zero weight costs nothing: a base-only character against the same character with a silent overlay and a
/// silent additive (their clocks run, their clips are not sampled).
fn silent_layers(c: &mut Criterion) {
    let mut group = c.benchmark_group("character_silent_layers");
    for &n in &[67, 256] {
        let blob = humanoid_blob(n, 3, false);
        let asset = Asset::load(blob.bytes()).expect("load");
        let rig = Rig::new(&asset, None).expect("rig");
        let layers = [
            LayerDesc { kind: LayerKind::Base, controls: 1 },
            LayerDesc { kind: LayerKind::Overlay, controls: 1 },
            LayerDesc { kind: LayerKind::OverlappingAdditive, controls: 1 },
        ];
        for (name, count) in [("base_only", 1), ("base_and_two_silent_layers", 3)] {
            let desc = desc(n, &layers[..count]);
            let mut memory = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("size"))];
            let mut character = Character::new(Chunk::bytes_mut(&mut memory), &desc).expect("character");
            character.play(&asset, SlotId::base(0), Play::looping(0)).expect("play");
            for layer in 1..count {
                character.play(&asset, SlotId::on(layer, 0), Play::looping(layer)).expect("play");
                character.fade_layer(layer, 0.0, 0.0).expect("fade");
            }
            group.throughput(Throughput::Elements(n as u64));
            group.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter(|| character.update(1.0 / 60.0, &rig).expect("update"))
            });
        }
    }
    group.finish();
}

/// Motion without rendering: a character with root motion advanced by `update_motion` (clocks, the root's
/// track, markers) against the same character's full `update`, a two-clip base blend.
fn motion_only(c: &mut Criterion) {
    let mut group = c.benchmark_group("character_motion_only");
    for &n in &[67, 256] {
        let blob = humanoid_blob(n, 2, true);
        let asset = Asset::load(blob.bytes()).expect("load");
        let rig = Rig::new(&asset, None).expect("rig");
        let layers = [LayerDesc { kind: LayerKind::Base, controls: 2 }];
        let desc = desc(n + 1, &layers);
        let mut memory = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("size"))];
        let mut character = Character::new(Chunk::bytes_mut(&mut memory), &desc).expect("character");
        character.play(&asset, SlotId::base(0), Play { weight: 0.6, ..Play::looping(0) }).expect("play");
        character.play(&asset, SlotId::base(1), Play { time: 0.5, weight: 0.4, ..Play::looping(1) }).expect("play");
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("full_update", n), |b| {
            b.iter(|| character.update(1.0 / 60.0, &rig).expect("update"))
        });
        group.bench_function(BenchmarkId::new("motion_only", n), |b| {
            b.iter(|| character.update_motion(1.0 / 60.0, &rig).expect("update"))
        });
    }
    group.finish();
}

/// A post-process after the update (both legs' two-bone IK and a head aim, through `Character::edit_pose`),
/// on a skinned character: after a full `update` (the palette computed twice) against after
/// `update_unskinned` (once), beside the update alone.
fn post_process(c: &mut Criterion) {
    use sinew::ik::{AimIkJob, TwoBoneIkJob};
    use sinew::math::Vec3;
    let mut group = c.benchmark_group("character_post_process");
    for &n in &[67, 256] {
        let workload = Workload::humanoid(n);
        let blob = humanoid_blob(n, 1, false);
        let asset = Asset::load(blob.bytes()).expect("load");
        let skin = sinew::Skin::new(n, &workload.skin_remap, &workload.inverse_bind).expect("skin");
        let rig = Rig::new(&asset, Some(&skin)).expect("rig");
        let layers = [LayerDesc { kind: LayerKind::Base, controls: 1 }];
        let desc = CharacterDesc { num_skin_joints: skin.num_joints(), ..desc(n, &layers) };
        let mut memory = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("size"))];
        let mut character = Character::new(Chunk::bytes_mut(&mut memory), &desc).expect("character");
        character.play(&asset, SlotId::base(0), Play::looping(0)).expect("play");
        let names = &workload.skeleton.names;
        let index = |name: &str| names.iter().position(|j| j == name).expect(name);
        let legs = sinew_tools::rig::leg_chains(|n| names.iter().position(|j| j == n)).expect("legs");
        let head = index("Head");
        let edit = |edit: sinew::PoseEdit<'_>| {
            for chain in legs {
                let target = edit.model[chain[2]].translation() + Vec3::new(0.0, 0.05, 0.02);
                let (skeleton, model) = (edit.skeleton, &*edit.model);
                let (pole, weight, soften, end_turn) = (None, 1.0, 1.0, None);
                let local = &mut *edit.local;
                TwoBoneIkJob { skeleton, chain, target, pole, weight, soften, end_turn, model, local }.run()?;
            }
            let target = edit.model[head].translation() + Vec3::new(0.5, 0.2, 1.0);
            AimIkJob {
                skeleton: edit.skeleton,
                joint: head,
                forward: Vec3::new(0.0, 0.0, 1.0),
                up: None,
                target,
                max_angle: None,
                max_twist: None,
                weight: 1.0,
                model: edit.model,
                local: edit.local,
            }
            .run()
            .map(|_| ())
        };
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("update", n), |b| {
            b.iter(|| character.update(1.0 / 60.0, &rig).expect("update"))
        });
        group.bench_function(BenchmarkId::new("update_then_edit", n), |b| {
            b.iter(|| {
                character.update(1.0 / 60.0, &rig).expect("update");
                character.edit_pose(&rig, edit).expect("edit")
            })
        });
        group.bench_function(BenchmarkId::new("update_unskinned_then_edit", n), |b| {
            b.iter(|| {
                character.update_unskinned(1.0 / 60.0, &rig, None).expect("update");
                character.edit_pose(&rig, edit).expect("edit")
            })
        });
    }
    group.finish();
}

/// A two-control base blend (weights 0.6 and 0.4, 30 Hz clips at 60 Hz updates) per key format: the controls
/// sampling through one shared context (each update a seek per control) against each through its own context
/// kept in the block (`Sampling::PerControl`), in the same run. No inertializer, no skin: the sampling shows.
fn sampling_caches(c: &mut Criterion) {
    use sinew::Sampling;
    use sinew_tools::compress::Precision;
    let mut group = c.benchmark_group("character_sampling");
    for &n in &BENCH_JOINTS {
        let workload = Workload::humanoid(n);
        let rig_clip = |frames, offset: usize| {
            let mut clip = sinew_tools::rig::Rig::humanoid(n).clip(frames + offset, 30.0);
            clip.frames.drain(..offset);
            clip
        };
        let clips = [rig_clip(61, 0), rig_clip(61, 17)];
        let compressed = KeyFormat::Compressed(Precision::default_on_figure(&workload.skeleton, &clips));
        let base = [LayerDesc { kind: LayerKind::Base, controls: 2 }];
        group.throughput(Throughput::Elements(n as u64));
        for (label, format) in [("quantized", KeyFormat::Quantized), ("compressed", compressed)] {
            let raw = sinew_tools::rig::Rig::humanoid(n).raw_skeleton();
            let blob = bake::bake(&raw, &clips, format).expect("bake");
            let asset = Asset::load(blob.bytes()).expect("load");
            let rig = Rig::new(&asset, None).expect("rig");
            for (mode, sampling) in
                [("shared", Sampling::Shared), ("per_control", Sampling::PerControl { max_tracks: 3 * n })]
            {
                let desc = CharacterDesc { inertialization: None, sampling, ..desc(n, &base) };
                let bytes = Character::required_bytes(&desc).expect("size");
                let mut block = vec![Chunk::ZERO; Chunk::count(bytes)];
                let mut character = Character::new(Chunk::bytes_mut(&mut block), &desc).expect("character");
                character.play(&asset, SlotId::base(0), Play { weight: 0.6, ..Play::looping(0) }).expect("play");
                character.play(&asset, SlotId::base(1), Play { weight: 0.4, ..Play::looping(1) }).expect("play");
                group.bench_function(BenchmarkId::new(format!("{label}_{mode}"), n), |b| {
                    b.iter(|| character.update_unskinned(1.0 / 60.0, &rig, None).expect("update"))
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, character, silent_layers, motion_only, post_process, sampling_caches);
criterion_main!(benches);
