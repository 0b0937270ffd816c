//! Motion matching's search per query: sinew's SIMD brute force and its pruned search (boxes over 64 and 16
//! frames, early exit) against the naive row-major scalar loop with early exit (`naive::motion_search`). All
//! three find the same frame (checked before timing).
//!
//! - `motion_search_27`, `motion_search_59`: databases of 10 k to 500 k frames tiled from the shared Bandai walk
//!   and run (feature rows, each copy at its own speed and curvature), at 27 and 59 dimensions, with steered
//!   queries (`sinew_bench_host::matching::steered_queries`). `stream` reads every stored feature once per query
//!   and does nothing else: the memory floor of a search.
//! - `motion_search_gamepad`: the searches of the four scripted gamepad runs of `sinew-bench matching` driven
//!   over a real library of 100 k frames (the Bandai walk and run baked as turning takes, `Library::bent`), each
//!   with the frame playing then, whose cost less the bias is every search's first bound, the naive loop's too.
//! - `motion_search_as_is`: the Bandai walk and run (263 frames) and CMU 01_01 (2 752 frames at 120 Hz) untiled.

use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::motion_database::MotionDatabase;
use sinew::motion_matching::{MotionSearchJob, SearchMethod};
use sinew_bench_host::matching::{
    Library, MatchingOptions, Path, RecordedQuery, Shape, Source, normalized, row_major, run_library, steered_queries,
};
use sinew_bench_host::naive;
use sinew_tools::motion_database::OwnedDatabase;
use std::hint::black_box;

const QUERIES: usize = 64;

/// Frames of the gamepad runs' library.
const GAMEPAD_FRAMES: usize = 100_000;

/// A library of `GAMEPAD_FRAMES` frames bent from the Bandai walk and run (`Library::bent`: turning takes, as a
/// motion-capture shoot holds), and `QUERIES` searches spread evenly over the four scripted runs driven on it, each
/// with the frame playing then (its cost less the bias is the first bound, as in the game).
fn gamepad_searches() -> Option<(OwnedDatabase, Vec<RecordedQuery>)> {
    let dir = sinew_tools::shared_data_dir()?;
    let bandai = dir.join("bvh/bandai");
    let files = [bandai.join("dataset-1_walk_normal_001.bvh"), bandai.join("dataset-2_run_normal_001.bvh")];
    let library = Library::load(&files).expect("library").bent(GAMEPAD_FRAMES, 7);
    let mut all = Vec::new();
    for path in [Path::Circle, Path::Zigzag, Path::StopStart, Path::Strafe] {
        all.extend(run_library(&library, path, MatchingOptions::default()).expect("scripted run").queries);
    }
    let queries = (0..QUERIES).map(|k| all[k * all.len() / QUERIES].clone()).collect();
    Some((library.database().expect("database"), queries))
}

/// The three searches over `queries`, their ids ending in `suffix`.
fn searches(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    (db, view): (&OwnedDatabase, &MotionDatabase<'_>),
    queries: &[RecordedQuery],
    suffix: &str,
) {
    let (frames, dims) = (db.frames, db.dims);
    let bias = MatchingOptions::default().continuing_bias;
    let (naive_rows, open) = row_major(db).expect("rows");
    let naive_queries: Vec<Vec<f32>> = queries.iter().map(|q| normalized(db, &q.query)).collect();
    fn job<'a>(
        view: &'a MotionDatabase<'a>,
        q: &'a RecordedQuery,
        bias: f32,
        method: SearchMethod,
    ) -> MotionSearchJob<'a> {
        let mut job = MotionSearchJob::new(view, black_box(&q.query));
        (job.current, job.continuing_bias, job.method) = (q.current, bias, method);
        job
    }
    for (q, naive_query) in queries.iter().zip(&naive_queries) {
        let pruned = job(view, q, bias, SearchMethod::Pruned).run().expect("search");
        let (frame, cost) =
            naive::motion_search(&naive_rows, dims, naive_query, &open, (q.current, bias)).expect("naive");
        // The same frame, or (where a fused multiply-add rounds differently) one as near.
        let near = pruned.continuing == (Some(frame) == q.current) && (pruned.cost - cost).abs() <= 1e-5 * (1.0 + cost);
        assert!(pruned.frame == frame || near, "{frames} frames: naive {frame} ({cost}), sinew {pruned:?}");
    }
    group.bench_function(BenchmarkId::new(format!("naive{suffix}"), frames), |b| {
        b.iter(|| {
            let mut sum = 0;
            for (q, naive_query) in queries.iter().zip(&naive_queries) {
                let start = (q.current, bias);
                sum += naive::motion_search(&naive_rows, dims, black_box(naive_query), &open, start).map_or(0, |m| m.0);
            }
            black_box(sum)
        })
    });
    for (name, method) in [("brute_force", SearchMethod::BruteForce), ("pruned", SearchMethod::Pruned)] {
        group.bench_function(BenchmarkId::new(format!("{name}{suffix}"), frames), |b| {
            b.iter(|| {
                let mut sum = 0;
                for q in queries {
                    sum += job(view, q, bias, method).run().map_or(0, |m| m.frame);
                }
                black_box(sum)
            })
        });
    }
}

fn motion_search(c: &mut Criterion) {
    let sizes: Vec<usize> = match std::env::var("SINEW_MATCHING_FRAMES") {
        Ok(list) => list.split(',').filter_map(|s| s.trim().parse().ok()).collect(),
        Err(_) => vec![10_000, 50_000, 100_000, 500_000],
    };
    // The shared clips as they are, untiled: what a first database from them searches.
    let mut group = c.benchmark_group("motion_search_as_is");
    group.sample_size(10);
    for (name, source) in [("bandai", Source::bandai(Shape::Holden27)), ("cmu", Source::cmu(Shape::Holden27))] {
        let source = match source {
            Ok(Some(source)) => source,
            Ok(None) => return,
            Err(e) => panic!("motion matching source {name}: {e}"),
        };
        let db = OwnedDatabase::build(&source.rows, &source.groups, &source.entries).expect("database");
        let view = db.view().expect("view");
        group.throughput(Throughput::Elements((QUERIES * db.frames) as u64));
        let steered: Vec<RecordedQuery> = steered_queries(&source.rows, &source.schema, QUERIES)
            .into_iter()
            .map(|query| RecordedQuery { query, current: None })
            .collect();
        searches(&mut group, (&db, &view), &steered, &format!("_{name}"));
    }
    group.finish();
    // The scripted gamepad runs' own searches over their own library.
    if let Some((db, queries)) = gamepad_searches() {
        let mut group = c.benchmark_group("motion_search_gamepad");
        group.sample_size(10);
        let view = db.view().expect("view");
        group.throughput(Throughput::Elements((QUERIES * db.frames) as u64));
        searches(&mut group, (&db, &view), &queries, "");
        group.finish();
    }
    for shape in [Shape::Holden27, Shape::O3de59] {
        let source = match Source::bandai(shape) {
            Ok(Some(source)) => source,
            Ok(None) => return,
            Err(e) => panic!("motion matching source: {e}"),
        };
        let mut group = c.benchmark_group(format!("motion_search_{}", source.dims()));
        group.sample_size(10);
        for &frames in &sizes {
            let (rows, entries) = source.tiled(frames, 7);
            let db = OwnedDatabase::build(&rows, &source.groups, &entries).expect("database");
            let view = db.view().expect("view");
            group.throughput(Throughput::Elements((QUERIES * frames) as u64));
            let steered: Vec<RecordedQuery> = steered_queries(&rows, &source.schema, QUERIES)
                .into_iter()
                .map(|query| RecordedQuery { query, current: None })
                .collect();
            searches(&mut group, (&db, &view), &steered, "");
            // The memory floor: one read of every stored feature per query (four lane sums, nothing else).
            group.bench_function(BenchmarkId::new("stream", frames), |b| {
                b.iter(|| {
                    let mut sums = [sinew::math::lane::F4::ZERO; 4];
                    for _ in 0..QUERIES {
                        for lanes in black_box(&db.features).chunks_exact(4) {
                            for (sum, lane) in sums.iter_mut().zip(lanes) {
                                *sum = *sum + *lane;
                            }
                        }
                    }
                    black_box(sums)
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, motion_search);
criterion_main!(benches);
