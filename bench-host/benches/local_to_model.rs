//! local-to-model: sinew's SoA kernel vs the naive glam AoS loop vs a memcpy of the output bytes, per rig size.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::LocalToModelJob;
use sinew_bench_host::bench_support::{BENCH_JOINTS, Fixture};
use sinew_bench_host::naive;
use std::hint::black_box;

fn local_to_model(c: &mut Criterion) {
    let mut group = c.benchmark_group("local_to_model");
    for &n in &BENCH_JOINTS {
        let mut f = Fixture::new(n);
        let skeleton = f.rig.skeleton();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("sinew_soa", n), |b| {
            b.iter(|| {
                LocalToModelJob { skeleton: &skeleton, local: black_box(&f.local), root: None, model: &mut f.model }
                    .run()
                    .expect("valid pose")
            })
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

criterion_group!(benches, local_to_model);
criterion_main!(benches);
