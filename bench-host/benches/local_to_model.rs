//! local-to-model: sinew's SoA kernel vs the naive glam AoS loop vs a memcpy of the output bytes, per rig size.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::math::{Mat4, SoaTransform, Transform, pack_soa};
use sinew::{GroupWalk, LocalToModelJob, Skeleton};
use sinew_bench_host::bench_support::{BENCH_JOINTS, Fixture};
use sinew_bench_host::naive;
use std::hint::black_box;

/// One whole-skeleton run in the skeleton's group walk, as an engine makes it.
fn sinew_run(skeleton: &Skeleton, walk: &GroupWalk, local: &[SoaTransform], model: &mut [Mat4]) {
    let local = black_box(local);
    LocalToModelJob { skeleton, walk: Some(walk), local, root: None, model }.run().expect("valid pose")
}

fn local_to_model(c: &mut Criterion) {
    let mut group = c.benchmark_group("local_to_model");
    for &n in &BENCH_JOINTS {
        let mut f = Fixture::new(n);
        let skeleton = f.rig.skeleton();
        let walk = GroupWalk::new(&skeleton);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("sinew_soa", n), |b| {
            b.iter(|| sinew_run(&skeleton, &walk, &f.local, &mut f.model))
        });
        group.bench_function(BenchmarkId::new("naive_aos_glam", n), |b| {
            b.iter(|| naive::local_to_model(&f.rig.parents, black_box(&f.aos), &mut f.glam_model))
        });
        // The floor: writing the same output bytes (n model matrices) from a source buffer.
        let source = f.model.clone();
        group.bench_function(BenchmarkId::new("memcpy", n), |b| b.iter(|| f.model.copy_from_slice(black_box(&source))));
    }
    group.finish();
}

/// The same pose under two extreme hierarchies of 256 joints: a single chain (every joint waits on the one
/// before: the kernel's latency) and a star (every joint a child of the root: its throughput). The humanoid
/// sits between them.
fn local_to_model_hierarchy(c: &mut Criterion) {
    let mut group = c.benchmark_group("local_to_model_hierarchy");
    let n = 256;
    let mut f = Fixture::new(n);
    let mut rest = vec![SoaTransform::IDENTITY; f.local.len()];
    pack_soa(&vec![Transform::IDENTITY; n], &mut rest).expect("sized by num_soa_joints");
    let chain: Vec<i16> = (-1..n as i16 - 1).collect();
    let star: Vec<i16> = (0..n).map(|j| if j == 0 { -1 } else { 0 }).collect();
    group.throughput(Throughput::Elements(n as u64));
    for (name, parents) in [("chain", chain), ("star", star)] {
        let skeleton = Skeleton::new(&parents, &rest, None).expect("parents precede children");
        let walk = GroupWalk::new(&skeleton);
        group.bench_function(BenchmarkId::new(name, n), |b| {
            b.iter(|| sinew_run(&skeleton, &walk, &f.local, &mut f.model))
        });
    }
    group.finish();
}

criterion_group!(benches, local_to_model, local_to_model_hierarchy);
criterion_main!(benches);
