//! The character runtime per rig size: one character's frame through `Character::update` (a two-clip base, an
//! upper-body overlay, a synced additive, inertialized, palette; the profiler's crowd layer stack) against the
//! same kernels called directly on the same buffers, in the same run (`crowd::with_crowds`). Their ratio is the
//! runtime's overhead. Throughput counts joints.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew_bench_host::bench_support::BENCH_JOINTS;
use sinew_bench_host::crowd::with_crowds;
use sinew_bench_host::workload::Workload;

fn character(c: &mut Criterion) {
    let mut group = c.benchmark_group("character");
    for &n in &BENCH_JOINTS {
        let workload = Workload::humanoid(n);
        group.throughput(Throughput::Elements(n as u64));
        with_crowds(&workload, 1, |character_frame, direct_frame| {
            // Frames advance so the clocks move; a transition every 3 s of game time, as in the crowd.
            let mut frame = 0;
            group.bench_function(BenchmarkId::new("sinew_character_update", n), |b| {
                b.iter(|| {
                    frame += 1;
                    character_frame(frame).expect("valid frame")
                })
            });
            let mut frame = 0;
            group.bench_function(BenchmarkId::new("direct_kernels", n), |b| {
                b.iter(|| {
                    frame += 1;
                    direct_frame(frame).expect("valid frame")
                })
            });
            Ok(())
        })
        .expect("crowds");
    }
    group.finish();
}

criterion_group!(benches, character);
criterion_main!(benches);
