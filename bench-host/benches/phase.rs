//! Phase matching on the Bandai walk and run (shared data; skipped without it): the stride phase lookup
//! (phase at a time, then the target's time at that phase) against a linear scan of the per-frame table, the
//! foot-phase match against a brute-force one, and a character's synced transition requests against a plain
//! one.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sinew::character::{CharacterDesc, SyncMode};
use sinew::phase::{self, Footsteps, PhaseTable};
use sinew::{Blend, Character, Chunk, LayerDesc, LayerKind, Play, SlotId};
use std::hint::black_box;

fn phase(c: &mut Criterion) {
    let Some(dir) = sinew_tools::shared_data_dir() else {
        eprintln!("phase benches: SKIPPED — shared data not found (../shared/data or $SINEW_DATA)");
        return;
    };
    let pick = |name: &str| dir.join("bvh/bandai").join(name);
    let paths = [pick("dataset-1_walk_normal_001.bvh"), pick("dataset-2_run_normal_001.bvh")];
    let phased = sinew_tools::phase::phased_bvhs(&paths, &[]).expect("phases");
    let asset = sinew::Asset::load(phased.blob.bytes()).expect("load");
    let (walk, run) = (PhaseTable::of(&asset, 0).expect("walk"), PhaseTable::of(&asset, 1).expect("run"));
    let (_, run_forward, _) = asset.phase(1).expect("run phase");
    let walk_duration = asset.clip_duration(0).expect("duration");

    let mut group = c.benchmark_group("phase_lookup");
    let mut time = 0.0f32;
    group.bench_function("sinew_table", |b| {
        b.iter(|| {
            time = (time + 0.37) % walk_duration;
            black_box(run.time_at(walk.phase_at(black_box(time))))
        })
    });
    let mut time = 0.0f32;
    group.bench_function("naive_scan", |b| {
        b.iter(|| {
            time = (time + 0.37) % walk_duration;
            let p = walk.phase_at(black_box(time));
            black_box(sinew_bench_host::naive::phase_entry(run_forward, run.sample_rate(), p))
        })
    });
    group.finish();

    let mut group = c.benchmark_group("foot_phase_match");
    let feet = phased.feet;
    let steps = |clip: usize, side: usize| Footsteps::of(&asset, clip, feet[side], false).expect("steps");
    let source = [steps(0, 0).phase_at(1.3), steps(0, 1).phase_at(1.3)].map(|p| p.expect("source phase"));
    // Into the run (68 frames, 3 + 2 footsteps) and into the walk itself (195 frames, 6 + 7).
    for (target, name) in [(1, "into_run"), (0, "into_walk")] {
        let (left, right) = (steps(target, 0), steps(target, 1));
        let times: [Vec<f32>; 2] = [left.times().collect(), right.times().collect()];
        let frames = phased.clips[target].frames.len();
        let rate = phased.clips[target].sample_rate;
        group.bench_function(BenchmarkId::new("sinew", name), |b| {
            b.iter(|| black_box(phase::match_foot_phase([&left, &right], rate, black_box(source), 0.0..=f32::MAX)))
        });
        group.bench_function(BenchmarkId::new("naive", name), |b| {
            b.iter(|| {
                let steps = [&times[0][..], &times[1][..]];
                black_box(sinew_bench_host::naive::match_foot_phase(steps, frames, rate, black_box(source)))
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("synced_transition");
    let layers = [LayerDesc { kind: LayerKind::Base, controls: 2 }];
    let desc = CharacterDesc {
        num_joints: asset.skeleton().num_joints(),
        num_skin_joints: 0,
        layers: &layers,
        num_masks: 0,
        num_curves: 0,
        inertialization: None,
        scratch: sinew::Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation: sinew::Interpolation::Linear,
    };
    let mut block = vec![Chunk([0; 64]); Character::required_bytes(&desc).expect("bytes").div_ceil(64)];
    let mut character = Character::new(Chunk::bytes_mut(&mut block), &desc).expect("character");
    character.play(&asset, SlotId::base(0), Play::looping(0)).expect("walk");
    for (name, sync) in [("plain", SyncMode::None), ("phase", SyncMode::Phase), ("foot_phase", SyncMode::FootPhase)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                // Back to the walk in slot 0 (a plain request), then the measured one into the run.
                character.transition(&asset, 0, Play { time: 1.3, ..Play::looping(0) }, Blend::Cut).expect("back");
                black_box(character.transition_synced(&asset, 1, Play::looping(1), Blend::Cut, sync).expect("run"))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, phase);
criterion_main!(benches);
