//! Motion matching's search against an independent f64 brute force, and the pruned search against the SIMD brute
//! force bit for bit: over smooth synthetic clips (sums of sinusoids, as motion features are), random and
//! near-frame queries, tag filters, exclusion windows and continuing biases; then every bad part and query.

use sinew::error::{DatabasePart, DatabaseProblem, Error};
use sinew::math::lane::F4;
use sinew::motion_database::{FRAME_EXCLUDED, FrameEntry};
use sinew::motion_matching::{MotionSearchJob, SearchMethod, TagFilter};
use sinew_tests::Rng;
use sinew_tools::motion_database::{GroupSpec, OwnedDatabase};

/// Holden's 27 dimensions: feet positions and velocities, hip velocity, three future positions and facings.
fn holden_groups() -> Vec<GroupSpec> {
    [("left_foot_position", 3, 0.75), ("right_foot_position", 3, 0.75), ("left_foot_velocity", 3, 1.0)]
        .into_iter()
        .chain([("right_foot_velocity", 3, 1.0), ("hip_velocity", 3, 1.0)])
        .chain([("trajectory_position", 6, 1.0), ("trajectory_facing", 6, 1.5)])
        .map(|(name, dims, weight)| GroupSpec { name: name.into(), dims, weight })
        .collect()
}

/// Clips of smooth features: each dimension a sum of three sinusoids with its own scale and offset.
fn synthetic_rows(rng: &mut Rng, clip_frames: &[usize], dims: usize) -> (Vec<f32>, Vec<FrameEntry>) {
    let (mut rows, mut entries) = (Vec::new(), Vec::new());
    for (clip, &frames) in clip_frames.iter().enumerate() {
        let waves: Vec<[(f32, f32, f32); 3]> = (0..dims)
            .map(|_| core::array::from_fn(|_| (rng.range(0.1, 3.0), rng.range(0.0, 6.3), rng.range(0.05, 2.0))))
            .collect();
        let offsets: Vec<f32> = (0..dims).map(|_| rng.range(-50.0, 50.0)).collect();
        for f in 0..frames {
            let t = f as f32 / 30.0;
            for (wave, offset) in waves.iter().zip(&offsets) {
                rows.push(offset + wave.iter().map(|(w, p, a)| a * (w * t + p).sin()).sum::<f32>());
            }
            let excluded = f + 10 >= frames;
            let tags = (f / 50 % 4) as u32 | if clip % 2 == 1 { 8 } else { 0 };
            entries.push(FrameEntry {
                clip: clip as u32,
                time: t,
                tags,
                flags: if excluded { FRAME_EXCLUDED } else { 0 },
            });
        }
    }
    (rows, entries)
}

/// The f64 oracle's normalization: Holden's scheme computed here, independently of the baker.
fn oracle_normalization(rows: &[f32], groups: &[GroupSpec]) -> (Vec<f64>, Vec<f64>) {
    let dims: usize = groups.iter().map(|g| g.dims).sum();
    let frames = rows.len() / dims;
    let mut mean = vec![0.0; dims];
    let mut deviation = vec![0.0; dims];
    for d in 0..dims {
        let column = rows.iter().skip(d).step_by(dims).map(|&x| f64::from(x));
        mean[d] = column.clone().sum::<f64>() / frames as f64;
        deviation[d] = (column.map(|x| (x - mean[d]).powi(2)).sum::<f64>() / frames as f64).sqrt();
    }
    let mut scale = vec![0.0; dims];
    let mut start = 0;
    for g in groups {
        let group_deviation = deviation[start..start + g.dims].iter().sum::<f64>() / g.dims as f64;
        scale[start..start + g.dims].fill(g.weight / group_deviation);
        start += g.dims;
    }
    (mean, scale)
}

struct Oracle<'a> {
    rows: &'a [f32],
    entries: &'a [FrameEntry],
    dims: usize,
    scale: Vec<f64>,
}

impl Oracle<'_> {
    fn cost(&self, frame: usize, query: &[f32]) -> f64 {
        let row = &self.rows[frame * self.dims..][..self.dims];
        (0..self.dims).map(|d| ((f64::from(row[d]) - f64::from(query[d])) * self.scale[d]).powi(2)).sum()
    }

    fn may_take(&self, frame: usize, filter: TagFilter, current: Option<usize>, window: usize) -> bool {
        let e = self.entries[frame];
        let near = current.is_some_and(|c| e.clip == self.entries[c].clip && frame.abs_diff(c) <= window);
        e.flags & FRAME_EXCLUDED == 0
            && e.tags & filter.require == filter.require
            && e.tags & filter.exclude == 0
            && !near
    }

    /// The least cost over the frames a search may take.
    fn least(&self, query: &[f32], filter: TagFilter, current: Option<usize>, window: usize) -> Option<f64> {
        (0..self.entries.len())
            .filter(|&f| self.may_take(f, filter, current, window))
            .map(|f| self.cost(f, query))
            .min_by(f64::total_cmp)
    }
}

fn query_near(rng: &mut Rng, rows: &[f32], dims: usize, spread: f32) -> Vec<f32> {
    let frame = rng.below(rows.len() / dims);
    rows[frame * dims..][..dims].iter().map(|x| x + rng.range(-spread, spread)).collect()
}

#[test]
fn the_baked_normalization_is_holdens() {
    let mut rng = Rng::new(3);
    let groups = holden_groups();
    let (rows, entries) = synthetic_rows(&mut rng, &[400, 250], 27);
    let db = OwnedDatabase::build(&rows, &groups, &entries).unwrap();
    let (mean, scale) = oracle_normalization(&rows, &groups);
    for d in 0..27 {
        assert!((f64::from(db.mean[d]) - mean[d]).abs() <= 1e-5 * (1.0 + mean[d].abs()), "mean {d}");
        assert!((f64::from(db.scale[d]) / scale[d] - 1.0).abs() <= 1e-6, "scale {d}");
    }
    // Normalized features read back as the f64 normalization of the rows.
    let view = db.view().unwrap();
    for frame in [0, 17, 399, 400, 649] {
        for d in 0..27 {
            let expected = (f64::from(rows[frame * 27 + d]) - mean[d]) * scale[d];
            let stored = f64::from(view.feature(frame, d).unwrap());
            assert!((stored - expected).abs() <= 1e-4 * (1.0 + expected.abs()), "frame {frame} dim {d}");
        }
    }
}

#[test]
fn pruned_and_brute_force_searches_agree_bit_for_bit_and_with_f64() {
    let mut rng = Rng::new(11);
    for (dims, groups) in [(27, holden_groups()), (59, vec![]), (5, vec![])] {
        let groups = if groups.is_empty() {
            let mut g = vec![GroupSpec { name: "pose".into(), dims: dims / 2, weight: 1.0 }];
            g.push(GroupSpec { name: "trajectory".into(), dims: dims - dims / 2, weight: 1.5 });
            g
        } else {
            groups
        };
        let (rows, entries) = synthetic_rows(&mut rng, &[700, 1000, 333, 61], dims);
        let db = OwnedDatabase::build(&rows, &groups, &entries).unwrap();
        let view = db.view().unwrap();
        let (_, scale) = oracle_normalization(&rows, &groups);
        let oracle = Oracle { rows: &rows, entries: &entries, dims, scale };
        let mut pruned_blocks = 0;
        let mut brute_blocks = 0;
        for case in 0..150 {
            let query = match case % 3 {
                0 => query_near(&mut rng, &rows, dims, 0.05),
                1 => query_near(&mut rng, &rows, dims, 2.0),
                _ => (0..dims).map(|d| db.mean[d] + rng.range(-30.0, 30.0)).collect(),
            };
            let filter = match case % 5 {
                0 => TagFilter { require: 1, exclude: 0 },
                1 => TagFilter { require: 0, exclude: 8 },
                _ => TagFilter::ALL,
            };
            let current = (case % 2 == 0).then(|| rng.below(entries.len()));
            let window = rng.below(30);
            let bias = if case % 4 == 0 { rng.range(0.0, 0.5) } else { 0.0 };
            let mut job = MotionSearchJob::new(&view, &query);
            job.filter = filter;
            job.current = current;
            job.exclude_window = window;
            job.continuing_bias = bias;
            let pruned = job.run().unwrap();
            job.method = SearchMethod::BruteForce;
            let brute = job.run().unwrap();
            assert_eq!((pruned.frame, pruned.continuing), (brute.frame, brute.continuing), "dims {dims} case {case}");
            assert_eq!(pruned.cost.to_bits(), brute.cost.to_bits(), "dims {dims} case {case}");
            assert!(pruned.blocks_read <= brute.blocks_read);
            pruned_blocks += pruned.blocks_read;
            brute_blocks += brute.blocks_read;

            // Against f64: the chosen frame is the cheapest there is, within f32 rounding.
            let least = oracle.least(&query, filter, current, window);
            let chosen = oracle.cost(pruned.frame, &query);
            let tolerance = 1e-4 * (1.0 + chosen);
            assert!((f64::from(pruned.cost) - chosen).abs() <= tolerance, "cost {} vs {chosen}", pruned.cost);
            let group_sum: f64 = pruned.group_costs.iter().map(|&c| f64::from(c)).sum();
            assert!((group_sum - chosen).abs() <= tolerance, "group costs {group_sum} vs {chosen}");
            match (pruned.continuing, current) {
                (true, Some(c)) => {
                    assert_eq!(pruned.frame, c);
                    let threshold = oracle.cost(c, &query) - f64::from(bias);
                    assert!(least.is_none_or(|l| l >= threshold - tolerance), "a frame beat the playing one");
                }
                (false, _) => {
                    assert!(oracle.may_take(pruned.frame, filter, current, window), "case {case}");
                    assert!(chosen <= least.unwrap() + tolerance, "dims {dims} case {case}: {chosen} > {least:?}");
                    let admitted = |c: &usize| entries[*c].tags & filter.require == filter.require;
                    if let Some(c) = current.filter(|c| admitted(c) && entries[*c].tags & filter.exclude == 0) {
                        assert!(chosen <= oracle.cost(c, &query) - f64::from(bias) + tolerance);
                    }
                }
                (true, None) => panic!("continuing with nothing playing"),
            }
        }
        assert!(pruned_blocks < brute_blocks, "pruning read {pruned_blocks} of {brute_blocks} blocks");
    }
}

#[test]
fn a_query_on_a_frame_finds_it_reading_few_blocks() {
    let mut rng = Rng::new(5);
    let groups = holden_groups();
    let (rows, entries) = synthetic_rows(&mut rng, &[2000, 2000, 1500], 27);
    let db = OwnedDatabase::build(&rows, &groups, &entries).unwrap();
    let view = db.view().unwrap();
    for frame in [5, 900, 2100, 5400] {
        let query = &rows[frame * 27..][..27];
        let found = MotionSearchJob::new(&view, query).run().unwrap();
        assert_eq!(found.frame, frame);
        assert_eq!(found.cost, 0.0);
        assert_eq!((found.clip, found.time), (entries[frame].clip, entries[frame].time));
        assert!(found.blocks_read * 10 < view.blocks(), "read {} of {} blocks", found.blocks_read, view.blocks());
    }
}

#[test]
fn bad_queries_and_settings_are_refused() {
    let mut rng = Rng::new(8);
    let groups = holden_groups();
    let (rows, mut entries) = synthetic_rows(&mut rng, &[100], 27);
    let db = OwnedDatabase::build(&rows, &groups, &entries).unwrap();
    let view = db.view().unwrap();
    let query = rows[..27].to_vec();
    let short = &query[..26];
    assert!(matches!(MotionSearchJob::new(&view, short).run(), Err(Error::BufferLength { .. })));
    for bad in [f32::NAN, f32::INFINITY, 1e38] {
        let mut q = query.clone();
        q[4] = bad;
        assert_eq!(MotionSearchJob::new(&view, &q).run(), Err(Error::InvalidFeatureQuery { dim: 4 }));
    }
    for bias in [f32::NAN, -1.0, f32::INFINITY] {
        let mut job = MotionSearchJob::new(&view, &query);
        job.continuing_bias = bias;
        assert_eq!(job.run(), Err(Error::InvalidSearch));
    }
    let mut job = MotionSearchJob::new(&view, &query);
    job.current = Some(100);
    assert!(matches!(job.run(), Err(Error::IndexOutOfRange { index: 100, .. })));
    job.current = None;
    job.filter = TagFilter { require: 1, exclude: 1 };
    assert_eq!(job.run(), Err(Error::NoCandidate));
    // A playing frame the filter refuses does not continue either (this clip's frames carry tags 0 and 1).
    job.filter = TagFilter { require: 2, exclude: 0 };
    job.current = Some(3);
    assert_eq!(job.run(), Err(Error::NoCandidate));
    entries.iter_mut().for_each(|e| e.flags = FRAME_EXCLUDED);
    let closed = OwnedDatabase::build(&rows, &groups, &entries).unwrap();
    let closed_view = closed.view().unwrap();
    let mut job = MotionSearchJob::new(&closed_view, &query);
    assert_eq!(job.run(), Err(Error::NoCandidate));
    job.current = Some(3);
    let kept = job.run().unwrap();
    assert!(kept.continuing && kept.frame == 3);
    // A window wider than the database closes the playing clip to jumps, without overflowing.
    let mut job = MotionSearchJob::new(&view, &query);
    (job.current, job.exclude_window) = (Some(50), usize::MAX);
    assert!(job.run().unwrap().continuing);
}

#[test]
fn every_damaged_part_is_refused() {
    let mut rng = Rng::new(9);
    let groups = holden_groups();
    let (rows, entries) = synthetic_rows(&mut rng, &[150, 60], 27);
    let good = OwnedDatabase::build(&rows, &groups, &entries).unwrap();
    let refused = |edit: &dyn Fn(&mut OwnedDatabase), part: DatabasePart| {
        let mut db = good.clone();
        edit(&mut db);
        match db.view() {
            Err(Error::MotionDatabase { part: p, .. }) => assert_eq!(p, part),
            other => panic!("{part:?}: {other:?}"),
        }
    };
    refused(&|db| db.dims = 0, DatabasePart::Dims);
    refused(&|db| db.dims = 129, DatabasePart::Dims);
    refused(&|db| db.frames = 0, DatabasePart::Frames);
    refused(&|db| db.groups[1].start += 1, DatabasePart::Groups);
    refused(&|db| db.groups[6].len += 1, DatabasePart::Groups);
    refused(&|db| db.groups[0].len = 0, DatabasePart::Groups);
    refused(&|db| db.groups.clear(), DatabasePart::Groups);
    refused(&|db| db.mean[3] = f32::NAN, DatabasePart::Mean);
    refused(&|db| db.scale[3] = 0.0, DatabasePart::Scale);
    refused(&|db| db.scale[3] = -1.0, DatabasePart::Scale);
    refused(&|db| db.scale.pop().map(drop).unwrap_or(()), DatabasePart::Scale);
    refused(&|db| db.spread[2] *= 1.001, DatabasePart::Spread);
    refused(&|db| db.spread.push(1.0), DatabasePart::Spread);
    refused(&|db| db.features[5] = F4::splat(f32::NAN), DatabasePart::Features);
    refused(&|db| db.features[7] = F4::splat(2e9), DatabasePart::Features);
    // The last block's padding lanes must be the sentinel (frames 210..224 of block 13).
    let last = good.features.len() - 1;
    refused(&|db| db.features[last] = F4::splat(0.0), DatabasePart::Features);
    refused(&|db| db.features.truncate(4), DatabasePart::Features);
    // A box that would let the search skip a frame it must read.
    refused(&|db| db.block_boxes[10] = db.block_boxes[10] + F4::splat(1e-3), DatabasePart::BlockBoxes);
    refused(&|db| db.span_boxes[1] = db.span_boxes[1] - F4::splat(1e-3), DatabasePart::SpanBoxes);
    refused(&|db| db.span_boxes.push(F4::ZERO), DatabasePart::SpanBoxes);
    refused(&|db| db.entries[4].time = f32::NAN, DatabasePart::FrameEntries);
    refused(&|db| db.entries[4].time = -1.0, DatabasePart::FrameEntries);
    refused(&|db| db.entries[4].flags = 4, DatabasePart::FrameEntries);
    refused(&|db| db.entries.pop().map(drop).unwrap_or(()), DatabasePart::FrameEntries);
    refused(&|db| db.entries[20].tags ^= 1, DatabasePart::BlockInfos);
    refused(&|db| db.entries[20].flags ^= FRAME_EXCLUDED, DatabasePart::BlockInfos);
    refused(&|db| db.block_infos[0].reserved = 1, DatabasePart::BlockInfos);
    let mut long_mean = good.clone();
    long_mean.mean.push(0.0);
    assert!(matches!(
        long_mean.view(),
        Err(Error::MotionDatabase { problem: DatabaseProblem::Length { expected: 27, actual: 28 }, .. })
    ));
}

/// The Bandai walk and run with root motion and the default schema, baked into a blob, or `None` without data.
fn bandai_database_blob(test: &str) -> Option<sinew_tools::raw::AlignedBlob> {
    use sinew_tools::raw::{Extras, RawAnnotations};
    let dir = sinew_tests::shared_data(test)?;
    let files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
    let pick = |name: &str| files.iter().find(|f| f.to_string_lossy().contains(name)).cloned().expect(name);
    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[pick("walk"), pick("run")]).expect("load");
    let options = sinew_tools::root_motion::Extraction::default();
    let (skeleton, clips) = sinew_tools::root_motion::extract(&skeleton, &clips, &options).expect("extract");
    let schema = sinew_tools::features::Schema::default_for(&skeleton).expect("schema");
    let annotations = vec![RawAnnotations::default(); clips.len()];
    let database = sinew_tools::features::build(&skeleton, &clips, &annotations, &schema).expect("features");
    let extras = Extras { motion_database: Some(database), ..Default::default() };
    Some(sinew_tools::bake::bake_with(&skeleton, &clips, sinew_tools::bake::KeyFormat::F32, &extras).expect("bake"))
}

#[test]
fn a_baked_bandai_database_measures_what_the_runtime_plays_and_finds_every_frame() {
    use sinew::math::{Mat4, SoaTransform};
    let Some(blob) = bandai_database_blob("a_baked_bandai_database") else { return };
    let asset = sinew::Asset::load(blob.bytes()).unwrap();
    let db = asset.motion_database().expect("the blob holds the database");
    assert_eq!((db.dims(), db.groups().len()), (27, 7));
    assert_eq!(asset.feature_group_name(0), Some("position:Foot_L"));
    assert_eq!(asset.feature_group_name(6), Some("trajectory_facing"));
    let skeleton = asset.skeleton();
    let foot = (0..skeleton.num_joints()).find(|&j| skeleton.name(j) == Some("Foot_L")).unwrap();
    let n = skeleton.num_joints();
    let mut memory = vec![0u8; sinew::SamplingContext::required_bytes_for(n, 0, sinew::Interpolation::Linear)];
    let arena = sinew::Arena::new(&mut memory);
    let mut context = sinew::SamplingContext::new(&arena, n).unwrap();
    // Model matrices in f64 (glam), from the runtime's sampling and local-to-model.
    let model_at = |context: &mut sinew::SamplingContext<'_>, clip: usize, time: f32| -> Vec<glam::DMat4> {
        let clip = asset.clip(clip).unwrap();
        let mut soa = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
        let playback = sinew::Playback::Clamp;
        sinew::SamplingJob { skeleton, clip: &clip, time, playback, context, output: &mut soa, curves: &mut [] }
            .run()
            .unwrap();
        let cols = |m: &Mat4| -> [f64; 16] { core::array::from_fn(|i| f64::from(m.cols[i / 4][i % 4])) };
        sinew_tests::model_of(skeleton, &soa).iter().map(|m| glam::DMat4::from_cols_array(&cols(m))).collect()
    };
    let mut raw = vec![0.0; 27];
    let mut excluded = 0;
    for frame in 0..db.frames() {
        let entry = *db.entry(frame).unwrap();
        db.raw_features(frame, &mut raw).unwrap();
        // The left foot's position and the trajectory one second ahead, in the root's frame, from the runtime.
        let model = model_at(&mut context, entry.clip as usize, entry.time);
        let root = model[0].inverse();
        let foot_local = root.transform_point3(model[foot].w_axis.truncate());
        for (axis, value) in foot_local.to_array().into_iter().enumerate() {
            let error = (f64::from(raw[axis]) - value).abs();
            assert!(error < 0.01, "frame {frame} axis {axis}: {} vs {value}", raw[axis]);
        }
        let duration = asset.clip(entry.clip as usize).unwrap().duration();
        if entry.flags & sinew::motion_database::FRAME_EXCLUDED != 0 {
            excluded += 1;
        } else {
            let ahead = model_at(&mut context, entry.clip as usize, (entry.time + 1.0).min(duration));
            let there = root.transform_point3(ahead[0].w_axis.truncate());
            let error = (f64::from(raw[19]) - there.x).abs().max((f64::from(raw[20]) - there.z).abs());
            assert!(error < 0.01, "frame {frame}: trajectory 1 s ahead off by {error}");
        }
        // Every frame's own features find it (or a frame no farther), and pruning agrees with brute force.
        let mut job = MotionSearchJob::new(db, &raw);
        let pruned = job.run().unwrap();
        job.method = SearchMethod::BruteForce;
        let brute = job.run().unwrap();
        assert_eq!((pruned.frame, pruned.cost.to_bits()), (brute.frame, brute.cost.to_bits()));
        if entry.flags & sinew::motion_database::FRAME_EXCLUDED == 0 {
            assert!(pruned.cost < 1e-6, "frame {frame}: found {} at cost {}", pruned.frame, pruned.cost);
        }
    }
    // 30 frames of each clip look past its end.
    assert_eq!(excluded, 60);
}

#[test]
fn a_damaged_database_section_is_refused() {
    let Some(blob) = bandai_database_blob("a_damaged_database_section") else { return };
    let bytes = blob.bytes();
    let tail: sinew::asset::HeaderTail =
        bytemuck::pod_read_unaligned(&bytes[sinew::asset::HEADER_LEN..][..sinew::asset::HEADER_TAIL_LEN]);
    let at = tail.motion_database.offset as usize;
    let record: sinew::asset::DatabaseRecord = bytemuck::pod_read_unaligned(&bytes[at..at + 88]);
    let edit = |offset: usize, value: u32| {
        let mut damaged = sinew_tools::raw::AlignedBlob::from_bytes(bytes);
        damaged.bytes_mut()[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
        sinew::Asset::load(damaged.bytes()).map(|_| ())
    };
    let feature = record.features.offset as usize + 4 * 17;
    let entry = record.entries.offset as usize + 16 * 5;
    let block_info = record.block_infos.offset as usize;
    let cases = [
        (at, 0),                         // no dimensions
        (at + 4, record.frames + 1),     // a frame count the parts do not hold
        (feature, f32::NAN.to_bits()),   // a NaN feature
        (feature, 1.5f32.to_bits()),     // a feature its boxes do not bound
        (entry, 2),                      // a clip the asset lacks
        (entry + 4, 100.0f32.to_bits()), // a time past its clip
        (entry + 12, 8),                 // an unknown flag
        (block_info, 0),                 // a block summary that lies
        (record.mean.offset as usize, f32::INFINITY.to_bits()),
        (record.scale.offset as usize, 0),
        (record.spread.offset as usize, 2.0f32.to_bits()),
        (sinew::asset::HEADER_LEN + 8, 1), // the tail's reserved words
    ];
    for (offset, value) in cases {
        assert!(edit(offset, value).is_err(), "offset {offset} value {value:#x} loaded");
    }
    // For C, a damaged database is a corrupt blob; an intact one loads.
    let c_load = |blob: &sinew_tools::raw::AlignedBlob| {
        let mut asset = std::mem::MaybeUninit::<sinew_ffi::sinew_asset>::uninit();
        // SAFETY: valid pointers for the blob's length and one asset.
        unsafe { sinew_ffi::sinew_asset_load(blob.bytes().as_ptr(), blob.bytes().len(), asset.as_mut_ptr()) }
    };
    assert_eq!(c_load(&blob), sinew_ffi::SINEW_OK);
    let mut nan = sinew_tools::raw::AlignedBlob::from_bytes(bytes);
    nan.bytes_mut()[feature..feature + 4].copy_from_slice(&f32::NAN.to_bits().to_le_bytes());
    assert_eq!(c_load(&nan), sinew_ffi::SINEW_ERROR_BLOB_CORRUPT);
    // Read as version 8, the same bytes have no tail and so no database (its sections are padding to that reader).
    let mut older = sinew_tools::raw::AlignedBlob::from_bytes(bytes);
    older.bytes_mut()[8..12].copy_from_slice(&8u32.to_le_bytes());
    assert!(sinew::Asset::load(older.bytes()).unwrap().motion_database().is_none());
    // The fuzz-style sweep: every byte of the section's record flipped is refused or loads a database that
    // still validates (no panic either way).
    for offset in at..at + 88 {
        let mut damaged = sinew_tools::raw::AlignedBlob::from_bytes(bytes);
        damaged.bytes_mut()[offset] ^= 0x5A;
        if let Ok(asset) = sinew::Asset::load(damaged.bytes()) {
            assert!(asset.motion_database().is_none_or(|db| db.frames() > 0));
        }
    }
}

#[test]
fn the_c_search_gives_the_rust_search_and_refuses_bad_requests() {
    use sinew_ffi::*;
    let Some(blob) = bandai_database_blob("the_c_search") else { return };
    let asset = sinew::Asset::load(blob.bytes()).unwrap();
    let db = asset.motion_database().unwrap();
    let mut handle = std::mem::MaybeUninit::<sinew_asset>::uninit();
    // SAFETY: valid pointers for the blob's length and one asset.
    let loaded = unsafe { sinew_asset_load(blob.bytes().as_ptr(), blob.bytes().len(), handle.as_mut_ptr()) };
    assert_eq!(loaded, SINEW_OK);
    let handle = handle.as_ptr();
    let mut info = std::mem::MaybeUninit::<sinew_motion_database_info>::uninit();
    // SAFETY: a loaded asset and a writable info.
    assert_eq!(unsafe { sinew_motion_database_describe(handle, info.as_mut_ptr()) }, SINEW_OK);
    // SAFETY: written on success.
    let info = unsafe { info.assume_init() };
    assert_eq!((info.dims, info.frames, info.groups), (27, db.frames() as u32, 7));
    let mut rng = Rng::new(21);
    let mut query = vec![0.0f32; 27];
    let mut rust_query = vec![0.0f32; 27];
    for case in 0..40 {
        let frame = rng.below(db.frames()) as u32;
        // SAFETY: a loaded asset and 27 writable floats.
        let read = unsafe { sinew_motion_database_features(handle, frame, query.as_mut_ptr(), query.len()) };
        assert_eq!(read, SINEW_OK);
        db.raw_features(frame as usize, &mut rust_query).unwrap();
        assert_eq!(query, rust_query);
        query.iter_mut().for_each(|x| *x += rng.range(-3.0, 3.0));
        let current = if case % 2 == 0 { -1 } else { frame as i32 };
        let request = sinew_motion_search_request {
            query: query.as_ptr(),
            require_tags: 0,
            exclude_tags: 0,
            current,
            exclude_window: 10,
            continuing_bias: 0.1,
            method: if case % 3 == 0 { SINEW_SEARCH_BRUTE_FORCE } else { SINEW_SEARCH_PRUNED },
        };
        let mut found = std::mem::MaybeUninit::<sinew_motion_match>::uninit();
        // SAFETY: a loaded asset, a readable request over 27 floats, a writable match.
        assert_eq!(unsafe { sinew_motion_search(handle, &request, found.as_mut_ptr()) }, SINEW_OK);
        // SAFETY: written on success.
        let found = unsafe { found.assume_init() };
        let mut job = MotionSearchJob::new(db, &query);
        (job.current, job.exclude_window, job.continuing_bias) = (usize::try_from(current).ok(), 10, 0.1);
        let rust = job.run().unwrap();
        assert_eq!((found.frame as usize, found.clip, found.time), (rust.frame, rust.clip, rust.time));
        assert_eq!((found.cost.to_bits(), found.continuing == 1), (rust.cost.to_bits(), rust.continuing));
        assert_eq!(found.group_costs, rust.group_costs);
    }
    // Bad requests: each refused with its status, nothing written.
    let good = sinew_motion_search_request {
        query: query.as_ptr(),
        require_tags: 0,
        exclude_tags: 0,
        current: -1,
        exclude_window: 0,
        continuing_bias: 0.0,
        method: SINEW_SEARCH_PRUNED,
    };
    let mut nan = query.clone();
    nan[5] = f32::NAN;
    let cases = [
        (sinew_motion_search_request { method: 7, ..good }, SINEW_ERROR_INVALID_ARGUMENT),
        (sinew_motion_search_request { current: -2, ..good }, SINEW_ERROR_INVALID_ARGUMENT),
        (sinew_motion_search_request { current: 100_000, ..good }, SINEW_ERROR_INDEX_OUT_OF_RANGE),
        (sinew_motion_search_request { continuing_bias: f32::NAN, ..good }, SINEW_ERROR_INVALID_ARGUMENT),
        (sinew_motion_search_request { query: nan.as_ptr(), ..good }, SINEW_ERROR_INVALID_ARGUMENT),
        (sinew_motion_search_request { query: std::ptr::null(), ..good }, SINEW_ERROR_NULL_POINTER),
        (sinew_motion_search_request { require_tags: 1 << 9, ..good }, SINEW_ERROR_INVALID_ARGUMENT),
    ];
    for (request, status) in cases {
        let mut found = std::mem::MaybeUninit::<sinew_motion_match>::zeroed();
        // SAFETY: a loaded asset, a readable request (its query 27 floats or NULL), a writable match.
        assert_eq!(unsafe { sinew_motion_search(handle, &request, found.as_mut_ptr()) }, status);
        // SAFETY: zeroed, and untouched on an error.
        assert_eq!(unsafe { found.assume_init() }.frame, 0);
    }
    let mut short = [0.0f32; 26];
    // SAFETY: a loaded asset and 26 writable floats.
    let read = unsafe { sinew_motion_database_features(handle, 0, short.as_mut_ptr(), short.len()) };
    assert_eq!(read, SINEW_ERROR_BUFFER);
    // SAFETY: as above, 27 floats.
    let past = unsafe { sinew_motion_database_features(handle, info.frames, query.as_mut_ptr(), 27) };
    assert_eq!(past, SINEW_ERROR_INDEX_OUT_OF_RANGE);
    // An asset without a database says so.
    let plain = blob_without_database();
    let mut other = std::mem::MaybeUninit::<sinew_asset>::uninit();
    // SAFETY: valid pointers.
    assert_eq!(unsafe { sinew_asset_load(plain.bytes().as_ptr(), plain.bytes().len(), other.as_mut_ptr()) }, SINEW_OK);
    let mut none = std::mem::MaybeUninit::<sinew_motion_database_info>::uninit();
    // SAFETY: a loaded asset.
    let status = unsafe { sinew_motion_database_describe(other.as_ptr(), none.as_mut_ptr()) };
    assert_eq!(status, SINEW_ERROR_INVALID_ARGUMENT);
}

/// A small blob without a motion database (the procedural humanoid, one clip).
fn blob_without_database() -> sinew_tools::raw::AlignedBlob {
    let rig = sinew_tools::rig::Rig::humanoid(22);
    let clips = [rig.clip(10, 30.0)];
    sinew_tools::bake::bake(&rig.raw_skeleton(), &clips, sinew_tools::bake::KeyFormat::F32).expect("bake")
}
