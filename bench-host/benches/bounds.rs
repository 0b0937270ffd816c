//! Bounds (joint boxes to model space and their union): sinew vs the naive eight corners per box through glam,
//! one box per joint, per rig size.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::bounds::{Aabb, BoundsJob, JointBounds, JointBox};
use sinew_bench_host::bench_support::{BENCH_JOINTS, Fixture};
use sinew_bench_host::naive;
use std::hint::black_box;

/// One box per joint, of a limb's proportions, sizes varying by joint.
fn boxes(joints: usize) -> Vec<JointBox> {
    (0..joints)
        .map(|j| {
            let k = (j % 7) as f32;
            JointBox {
                center: [0.01 * k, 0.05 + 0.01 * k, -0.005 * k],
                joint: j as u32,
                half_extent: [0.03 + 0.002 * k, 0.08, 0.04 - 0.003 * k],
                reserved: 0,
            }
        })
        .collect()
}

fn bounds(c: &mut Criterion) {
    let mut group = c.benchmark_group("bounds");
    for &n in &BENCH_JOINTS {
        let f = Fixture::new(n);
        let boxes = boxes(f.model.len());
        let bounds = JointBounds::new(f.model.len(), &boxes).expect("valid boxes");
        let mut out = vec![Aabb::default(); boxes.len()];
        group.throughput(Throughput::Elements(boxes.len() as u64));
        group.bench_function(BenchmarkId::new("sinew", n), |b| {
            b.iter(|| {
                BoundsJob { bounds: &bounds, model: black_box(&f.model), boxes: Some(&mut out) }.run().expect("valid")
            })
        });
        group.bench_function(BenchmarkId::new("sinew_union_only", n), |b| {
            b.iter(|| BoundsJob { bounds: &bounds, model: black_box(&f.model), boxes: None }.run().expect("valid"))
        });
        let glam_boxes: Vec<_> = boxes
            .iter()
            .map(|b| (b.joint as usize, glam::Vec3::from(b.center), glam::Vec3::from(b.half_extent)))
            .collect();
        let mut glam_out = vec![(glam::Vec3::ZERO, glam::Vec3::ZERO); boxes.len()];
        group.bench_function(BenchmarkId::new("naive_aos_glam_corners", n), |b| {
            b.iter(|| naive::bounds(black_box(&f.glam_model), &glam_boxes, &mut glam_out))
        });
    }
    group.finish();
}

criterion_group!(benches, bounds);
criterion_main!(benches);
