//! Speed ranges (Just Cause 3) per character per frame: `SpeedRanges::select` (validated once, a binary
//! search, no allocation) against the naive every-range scan collected into a `Vec`, over the seed's walk and
//! run and over five ranges, the speed swept across every range and overlap.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sinew::speed_ranges::{SpeedRange, SpeedRanges};
use std::hint::black_box;

fn speed_ranges(c: &mut Criterion) {
    let range = |low, high, reference_speed, clip| SpeedRange { low, high, reference_speed, clip };
    let seed = [range(0.0, 3.5, 1.5, 0), range(2.5, 5.5, 5.5, 1)];
    let five = [
        range(0.0, 1.2, 0.8, 0),
        range(1.0, 2.6, 1.6, 1),
        range(2.2, 4.0, 3.0, 2),
        range(3.5, 6.0, 5.0, 3),
        range(5.5, 8.0, 7.0, 4),
    ];
    let mut group = c.benchmark_group("speed_ranges");
    for (name, ranges) in [("walk_run", &seed[..]), ("five", &five[..])] {
        let top = ranges[ranges.len() - 1].high;
        // 64 speeds across every range and overlap, as a crowd's characters would ask.
        let speeds: Vec<f32> = (0..64).map(|k| top * k as f32 / 63.0).collect();
        let selector = SpeedRanges::new(ranges, 0.6, 1.7).expect("ranges");
        group.bench_function(BenchmarkId::new("sinew", name), |b| {
            b.iter(|| {
                let mut weight = 0.0;
                for &v in &speeds {
                    let shares = selector.select(black_box(v)).expect("select");
                    weight += shares.as_slice()[0].weight;
                }
                black_box(weight)
            })
        });
        let plain: Vec<_> = ranges.iter().map(|r| (r.low, r.high, r.reference_speed, r.clip)).collect();
        group.bench_function(BenchmarkId::new("naive", name), |b| {
            b.iter(|| {
                let mut weight = 0.0;
                for &v in &speeds {
                    weight += sinew_bench_host::naive::speed_shares(&plain, 0.6, 1.7, black_box(v))[0].1;
                }
                black_box(weight)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, speed_ranges);
criterion_main!(benches);
