//! Skinning matrices (`model[remap[i]] * inverse_bind[i]`), Mat4 and 3×4 palettes: sinew vs naive glam vs
//! a memcpy of the output bytes, per rig size.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::{Palette, SkinningJob};
use sinew_bench_host::bench_support::{BENCH_JOINTS, Fixture};
use sinew_bench_host::naive;
use std::hint::black_box;

fn skinning_matrices(c: &mut Criterion) {
    let mut group = c.benchmark_group("skinning_matrices");
    for &n in &BENCH_JOINTS {
        let mut f = Fixture::new(n);
        let skin = f.rig.skin();
        let skin_joints = skin.num_joints();
        group.throughput(Throughput::Elements(skin_joints as u64));
        group.bench_function(BenchmarkId::new("sinew_mat4", n), |b| {
            b.iter(|| {
                SkinningJob { skin: &skin, model: black_box(&f.model), palette: Palette::Matrices(&mut f.palette) }
                    .run()
                    .expect("valid")
            })
        });
        group.bench_function(BenchmarkId::new("sinew_3x4", n), |b| {
            b.iter(|| {
                SkinningJob { skin: &skin, model: black_box(&f.model), palette: Palette::Rows(&mut f.palette_3x4) }
                    .run()
                    .expect("valid")
            })
        });
        group.bench_function(BenchmarkId::new("naive_aos_glam_mat4", n), |b| {
            b.iter(|| {
                naive::skinning_matrices(
                    black_box(&f.glam_model),
                    &f.rig.skin_remap,
                    &f.glam_inverse_bind,
                    &mut f.glam_palette,
                )
            })
        });
        group.bench_function(BenchmarkId::new("naive_aos_glam_3x4", n), |b| {
            b.iter(|| {
                naive::skinning_matrices_3x4(
                    black_box(&f.glam_model),
                    &f.rig.skin_remap,
                    &f.glam_inverse_bind,
                    &mut f.glam_palette_3x4,
                )
            })
        });
        let source = f.palette_3x4.clone();
        group.bench_function(BenchmarkId::new("memcpy_3x4", n), |b| {
            b.iter(|| f.palette_3x4.copy_from_slice(black_box(&source)))
        });
        let source = f.palette.clone();
        group.bench_function(BenchmarkId::new("memcpy_mat4", n), |b| {
            b.iter(|| f.palette.copy_from_slice(black_box(&source)))
        });
    }
    group.finish();
}

criterion_group!(benches, skinning_matrices);
criterion_main!(benches);
