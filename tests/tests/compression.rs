//! Compressed clips (`sinew::clip::CompressedKeys`, `sinew_tools::compress`): on every shared clip at its
//! native rate and resampled to 30 Hz, the virtual-point error measured through `SamplingJob` against the f64
//! composition of the imported clip stays within the requested bound at every frame and midpoint; seeking and
//! playing agree bit for bit; bad bounds, out-of-range values and damaged sections are errors.

use sinew::clip::{
    Channel, ClipParts, CompressedKeys, Keys, MAX_BITS, RotationQuadDecoder, SEGMENT_TRACK_BYTES, SegmentTrack,
    TrackDecoder, TrackRange,
};
use sinew::math::{F4, SoaTransform};
use sinew::{Arena, Asset, Buffer, Clip, Error, Playback, SamplingContext, SamplingJob};
use sinew_tests::Rng;
use sinew_tools::annotate::figure_scale;
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::clip_error::clip_error;
use sinew_tools::compress::Precision;
use sinew_tools::raw;
use sinew_tools::raw::{RawClip, RawSkeleton};
use sinew_tools::rig::Rig;

/// 0.05 cm at virtual points 3 cm from each joint, on the figure scaled to 1.7 m.
fn precision(skeleton: &RawSkeleton, clips: &[RawClip]) -> Precision {
    Precision::on_figure(skeleton, clips, 0.05, 3.0)
}

#[test]
fn every_shared_clip_stays_within_the_bound_at_its_rate_and_at_30_hz() {
    let Some(dir) = sinew_tests::shared_data("every_shared_clip_stays_within_the_bound") else { return };
    let (mut raw_total, mut stored_total) = (0usize, 0usize);
    for (file, skeleton, clips) in sinew_tests::shared_clips(&dir) {
        let precision = precision(&skeleton, &clips);
        for resample in [None, Some(30.0f32)] {
            let clips: Vec<RawClip> = match resample {
                None => clips.clone(),
                Some(rate) => clips.iter().map(|c| c.resampled(rate).expect("resample")).collect(),
            };
            let blob = bake::bake(&skeleton, &clips, KeyFormat::Compressed(precision)).expect("bake");
            let asset = Asset::load(blob.bytes()).expect("load");
            for (index, raw) in clips.iter().enumerate() {
                let error = clip_error(&skeleton, raw, &asset, index, precision.distance).expect("measured");
                let stored = asset.clip(index).expect("clip").data_bytes();
                let raw_bytes = 40 * skeleton.parents.len() * raw.frames.len();
                raw_total += raw_bytes;
                stored_total += stored;
                let per_cm = figure_scale(&skeleton, &clips).units_per_cm();
                eprintln!(
                    "{file} `{}` at {:.0} Hz ({}): max {:.4} cm, p99 {:.4} cm, {:.1}:1",
                    raw.name,
                    raw.sample_rate,
                    if resample.is_some() { "resampled" } else { "native" },
                    error.max / per_cm,
                    error.p99 / per_cm,
                    raw_bytes as f64 / stored as f64
                );
                assert!(
                    error.max <= precision.max_error,
                    "{file} `{}` at {} Hz: {} cm",
                    raw.name,
                    raw.sample_rate,
                    error.max / per_cm
                );
            }
        }
    }
    eprintln!("all shared clips: {:.1}:1", raw_total as f64 / stored_total as f64);
}

/// The procedural humanoid's clip, compressed at 0.05 cm.
fn humanoid_blob(frames: usize) -> (RawSkeleton, RawClip, raw::AlignedBlob) {
    let rig = Rig::humanoid(67);
    let (skeleton, raw) = (rig.raw_skeleton(), rig.clip(frames, 30.0));
    let blob = bake::bake(
        &skeleton,
        std::slice::from_ref(&raw),
        KeyFormat::Compressed(precision(&skeleton, std::slice::from_ref(&raw))),
    )
    .expect("bake");
    (skeleton, raw, blob)
}

#[test]
fn the_humanoid_stays_within_the_bound() {
    let (skeleton, raw, blob) = humanoid_blob(61);
    let asset = Asset::load(blob.bytes()).expect("load");
    let precision = precision(&skeleton, std::slice::from_ref(&raw));
    let error = clip_error(&skeleton, &raw, &asset, 0, precision.distance).expect("measured");
    assert!(error.max <= precision.max_error, "{} > {}", error.max, precision.max_error);
    assert!(error.max > precision.max_error / 100.0, "the bound is used, not wasted: {}", error.max);
}

#[test]
fn seeking_and_playing_agree_bit_for_bit() {
    let (_, _, blob) = humanoid_blob(61);
    seeking_and_playing_agree(&Asset::load(blob.bytes()).expect("load"));
    // A clip whose animated joints leave gaps: rotation tracks decode four at a time across lane groups.
    let Some(dir) = sinew_tests::shared_data("seeking_and_playing_agree_bit_for_bit") else { return };
    let (_, skeleton, clips) =
        sinew_tests::shared_clips(&dir).into_iter().find(|(file, ..)| file.contains("01_01")).expect("CMU 01_01");
    let blob =
        bake::bake(&skeleton, &clips[..1], KeyFormat::Compressed(precision(&skeleton, &clips[..1]))).expect("bake");
    let asset = Asset::load(blob.bytes()).expect("load");
    let clip = asset.clip(0).expect("clip");
    let rotations = clip.animated_joints(Channel::Rotation);
    let scattered = rotations.chunks_exact(4).filter(|four| four[0] % 4 != 0 || four[3] != four[0] + 3).count();
    assert!(scattered > 0, "the clip's rotation tracks fill whole lane groups: {rotations:?}");
    seeking_and_playing_agree(&asset);
}

/// Samples clip 0 of `asset` playing forward and seeking from far away, through contexts with and without kept
/// decoders, and checks that every pose agrees bit for bit.
fn seeking_and_playing_agree(asset: &Asset) {
    let (skeleton, clip) = (asset.skeleton(), asset.clip(0).expect("clip"));
    let (n, tracks) = (skeleton.num_joints(), clip.num_tracks().iter().sum());
    // Playing keeps the segment's decoders and mostly decodes one frame; seeking decodes both frames in one pass,
    // with kept decoders and with decoders worked out from the table.
    let bytes = SamplingContext::required_bytes_with_decoders(n, tracks);
    let mut memory = [vec![0u8; bytes], vec![0u8; bytes], vec![0u8; bytes]];
    let [a, b, c] = &mut memory;
    let (arena_play, arena_kept, arena_table) = (Arena::new(a), Arena::new(b), Arena::new(c));
    let mut playing = SamplingContext::with_decoders(&arena_play, n, tracks).expect("context");
    let mut seeking_kept = SamplingContext::with_decoders(&arena_kept, n, tracks).expect("context");
    let mut seeking_table = SamplingContext::new(&arena_table, n).expect("context");
    let mut play = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    let mut seek = play.clone();
    let steps = 2 * clip.num_frames() + 7;
    for k in 0..steps {
        let time = k as f32 * clip.duration() / (2 * clip.num_frames()) as f32;
        let sample = |context: &mut SamplingContext<'_>, time: f32, output: &mut [SoaTransform]| {
            let curves = &mut [];
            let mut job =
                SamplingJob { skeleton, clip: &clip, time, playback: Playback::Loop, context, output, curves };
            job.run().expect("sample");
        };
        sample(&mut playing, time, &mut play);
        // A seek from far away: the cache holds other frames.
        let far = (time + clip.duration() / 2.0) % clip.duration();
        for seeking in [&mut seeking_kept, &mut seeking_table] {
            for t in [far, time] {
                sample(seeking, t, &mut seek);
            }
            assert_eq!(bytemuck::cast_slice::<_, u32>(&play), bytemuck::cast_slice::<_, u32>(&seek), "time {time}");
        }
    }
}

#[test]
fn bad_bounds_and_out_of_range_values_are_errors() {
    let rig = Rig::humanoid(5);
    let (skeleton, raw) = (rig.raw_skeleton(), rig.clip(8, 30.0));
    for max_error in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let format = KeyFormat::Compressed(Precision { max_error, distance: 0.03 });
        let err = bake::bake(&skeleton, std::slice::from_ref(&raw), format).expect_err("a bad bound");
        assert!(err.contains("bound"), "{err}");
    }
    for distance in [-1.0, f64::NAN] {
        let format = KeyFormat::Compressed(Precision { max_error: 1e-3, distance });
        assert!(bake::bake(&skeleton, std::slice::from_ref(&raw), format).is_err());
    }
    // A translation from -3e38 to 3e38: past the model-space bound, which the bake finds before compressing
    // (the clips baked as f32 must load first), and a range that does not fit in f32, which the compressor
    // itself refuses.
    let mut huge = raw.clone();
    huge.frames[0][1].translation.x = -3e38;
    huge.frames[1][1].translation.x = 3e38;
    let precision = Precision { max_error: 1e-3, distance: 0.03 };
    let err = bake::bake(&skeleton, std::slice::from_ref(&huge), KeyFormat::Compressed(precision))
        .expect_err("past the bound");
    assert!(err.contains("model-space bound"), "{err}");
    let animated = [vec![1u16], vec![], vec![]];
    let err = sinew_tools::compress::compress(&skeleton, &huge, &animated, precision, None).expect_err("out of range");
    assert!(err.contains("range"), "{err}");
}

/// `Clip::new`'s error for the humanoid's compressed clip after `edit(data, ranges)` on a copy.
fn damaged(edit: impl Fn(&mut Vec<u8>, &mut Vec<TrackRange>)) -> Option<Error> {
    let (_, _, blob) = humanoid_blob(40);
    let asset = Asset::load(blob.bytes()).expect("load");
    let clip = asset.clip(0).expect("clip");
    let Keys::Compressed(keys) = clip.keys() else { panic!("compressed keys") };
    let (mut data, mut ranges) = (keys.data.to_vec(), keys.ranges.to_vec());
    edit(&mut data, &mut ranges);
    let parts = ClipParts {
        num_joints: clip.num_joints(),
        sample_rate: clip.sample_rate(),
        num_frames: clip.num_frames(),
        constants: clip.constants(),
        track_joints: clip.track_joints(),
        num_tracks: clip.num_tracks(),
        keys: Keys::Compressed(CompressedKeys { data: &data, ranges: &ranges }),
    };
    Clip::new(parts).err()
}

fn word(data: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(data[4 * i..4 * i + 4].try_into().unwrap())
}

fn set_word(data: &mut [u8], i: usize, v: u32) {
    data[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn damaged_compressed_sections_are_errors() {
    let segment = |segment, track| Error::CompressedSegment { segment, track };
    // Segments: 40 frames are three; the last one's bits run out, an offset or a bit count is wrong.
    assert_eq!(damaged(|d, _| d.truncate(d.len() - 1)), Some(segment(2, None)));
    assert_eq!(damaged(|d, _| set_word(d, 2, u32::MAX)), Some(segment(1, None)));
    assert_eq!(
        damaged(|d, _| {
            let bits = word(d, 1);
            set_word(d, 1, bits + 1)
        }),
        Some(segment(0, None))
    );
    assert_eq!(damaged(|d, _| d.truncate(20)), Some(segment(0, None)));
    // Track formats: 25 bits, a reserved bit, a dropped component on a translation, a range past 255.
    let track0 = |d: &Vec<u8>| word(d, 0) as usize;
    assert_eq!(
        damaged(|d, _| {
            let at = track0(d);
            d[at] = 25
        }),
        Some(segment(0, Some(0)))
    );
    // The table stores row r (byte r of every track's entry) after row r − 1: track 0's third format byte.
    assert_eq!(
        damaged(|d, r| {
            let at = track0(d) + 2 * r.len();
            d[at] |= 0x40
        }),
        Some(segment(0, Some(0)))
    );
    assert_eq!(
        damaged(|d, _| {
            let at = track0(d);
            d[at] |= 0x80
        }),
        Some(segment(0, Some(0)))
    );
    let past_255 = |d: &mut Vec<u8>, r: &mut Vec<TrackRange>| {
        // Track 1's first range minimum and extent, in rows 3 and 6.
        let (at, tracks) = (track0(d) + 1, r.len());
        (d[at + 3 * tracks], d[at + 6 * tracks]) = (200, 100);
    };
    assert_eq!(damaged(past_255), Some(segment(0, Some(1))));
    // Ranges: a NaN, a negative extent, a rotation range outside [-1, 1], one range too few.
    let index = 1;
    assert_eq!(
        damaged(|_, r| r[index].min[0] = f32::NAN),
        Some(Error::NonFinite { buffer: Buffer::QuantRanges, index })
    );
    assert_eq!(
        damaged(|_, r| r[index].extent[1] = -1.0),
        Some(Error::Subnormal { buffer: Buffer::QuantRanges, index })
    );
    assert_eq!(
        damaged(|_, r| r[index].min[2] = -1.5),
        Some(Error::RotationLength { buffer: Buffer::QuantRanges, index })
    );
    let short = damaged(|_, r| {
        r.pop();
    });
    assert!(matches!(short, Some(Error::BufferLength { buffer: Buffer::QuantRanges, .. })), "{short:?}");
}

#[test]
fn every_truncation_and_byte_flip_is_an_error_or_samples() {
    let (_, _, blob) = humanoid_blob(40);
    let asset = Asset::load(blob.bytes()).expect("load");
    let clip = asset.clip(0).expect("clip");
    let Keys::Compressed(keys) = clip.keys() else { panic!("compressed keys") };
    let skeleton = asset.skeleton();
    let n = skeleton.num_joints();
    let tracks = clip.num_tracks().iter().sum();
    let mut memory = vec![0u8; SamplingContext::required_bytes(n)];
    let mut kept_memory = vec![0u8; SamplingContext::required_bytes_with_decoders(n, tracks)];
    let mut output = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    let mut kept_output = output.clone();
    let mut try_data = |data: &[u8]| {
        let parts = ClipParts {
            num_joints: n,
            sample_rate: clip.sample_rate(),
            num_frames: clip.num_frames(),
            constants: clip.constants(),
            track_joints: clip.track_joints(),
            num_tracks: clip.num_tracks(),
            keys: Keys::Compressed(CompressedKeys { data, ranges: keys.ranges }),
        };
        let Ok(damaged) = Clip::new(parts) else { return false };
        let (arena, kept_arena) = (Arena::new(&mut memory), Arena::new(&mut kept_memory));
        let mut context = SamplingContext::new(&arena, n).expect("context");
        // The decoders a context keeps across frames come from the same damaged table: the same poses.
        let mut kept = SamplingContext::with_decoders(&kept_arena, n, tracks).expect("context");
        for k in 0..8 {
            let time = k as f32 * damaged.duration() / 7.0;
            for (context, output) in [(&mut context, &mut output), (&mut kept, &mut kept_output)] {
                let playback = Playback::Clamp;
                let mut job =
                    SamplingJob { skeleton, clip: &damaged, time, playback, context, output, curves: &mut [] };
                job.run().expect("a clip that validates samples");
            }
            assert!(bytemuck::cast_slice::<_, f32>(&output).iter().all(|v| v.is_finite()));
            assert_eq!(bytemuck::cast_slice::<_, u32>(&output), bytemuck::cast_slice::<_, u32>(&kept_output));
        }
        true
    };
    for len in 0..keys.data.len() {
        assert!(!try_data(&keys.data[..len]), "truncated to {len} bytes and accepted");
    }
    let (mut accepted, mut data) = (0, keys.data.to_vec());
    for i in 0..data.len() {
        for bit in [0, 3, 7] {
            data[i] ^= 1 << bit;
            accepted += usize::from(try_data(&data));
            data[i] ^= 1 << bit;
        }
    }
    // Flips in the bits themselves decode to other values; flips in the tables mostly fail validation.
    assert!(accepted > 0 && accepted < 3 * data.len(), "{accepted} of {} flips accepted", 3 * data.len());
}

#[test]
fn four_rotation_tracks_decode_as_each_one_alone() {
    // The sampler works out each four rotation tracks as rows from the segment's table and decodes them as
    // SoA; the baker measures each track alone through its own decoder. They must agree bit for bit, whatever
    // the dropped components, ranges, bits and levels (tiny values flushed to zero, squared sums past 1
    // included).
    let mut rng = Rng::new(29);
    for _ in 0..if cfg!(miri) { 50 } else { 20_000 } {
        let formats: [SegmentTrack; 4] = std::array::from_fn(|_| SegmentTrack {
            bits: [0; 3].map(|_| rng.below(MAX_BITS as usize + 1) as u32),
            dropped: rng.below(4),
            range_min: [0; 3].map(|_| rng.below(128) as u8),
            range_extent: [0; 3].map(|_| rng.below(128) as u8),
        });
        let lo = |rng: &mut Rng| if rng.below(8) == 0 { -1e-30 } else { rng.range(-1.0, 0.0) };
        let ranges: [TrackRange; 4] = std::array::from_fn(|_| TrackRange {
            min: [0; 4].map(|_| lo(&mut rng)),
            extent: [0; 4].map(|_| if rng.below(8) == 0 { 1e-29 } else { rng.range(0.0, 1.0) }),
        });
        let start = rng.below(1000) as u32;
        let mut at = start;
        let quad: [TrackDecoder; 4] = std::array::from_fn(|j| {
            let decoder = formats[j].decoder(&ranges[j], true, at);
            at += formats[j].frame_bits();
            decoder
        });
        // A table of `tracks` entries as rows, the four tracks at `first` (see `SegmentTrack::entry`).
        let (tracks, first) = (4 + rng.below(5), rng.below(5));
        let (tracks, first) = (tracks.max(first + 4), first);
        let mut table = vec![0u8; SEGMENT_TRACK_BYTES * tracks];
        for (j, f) in formats.iter().enumerate() {
            for (r, byte) in f.to_bytes().into_iter().enumerate() {
                table[r * tracks + first + j] = byte;
            }
        }
        for (j, format) in formats.iter().enumerate() {
            assert_eq!(SegmentTrack::entry(&table, tracks, first + j), Some(format.to_bytes()));
        }
        let quad_ranges = [&ranges[0], &ranges[1], &ranges[2], &ranges[3]];
        let mut rows = RotationQuadDecoder::default();
        let bits = rows.fill(&table, tracks, first, quad_ranges, start).expect("rows");
        assert_eq!(RotationQuadDecoder::default().fill(&table[1..], tracks, first, quad_ranges, start), None);
        assert_eq!(RotationQuadDecoder::default().fill(&table, tracks, tracks - 3, quad_ranges, start), None);
        assert_eq!(bits, at - start);
        let levels: [[u32; 3]; 4] =
            std::array::from_fn(|j| std::array::from_fn(|c| (rng.next_u64() & ((1u64 << quad[j].bits[c]) - 1)) as u32));
        // The fields as a frame holds them: the following bits above each one, which the decode masks.
        let fields: [[u32; 3]; 4] = std::array::from_fn(|j| {
            std::array::from_fn(|c| {
                levels[j][c] | (rng.next_u64() as u32).checked_shl(quad[j].bits[c].into()).unwrap_or(0)
            })
        });
        let soa = rows.rows().decode([0, 1, 2].map(|c| F4::from_bits(fields.map(|lane| lane[c]))));
        let lanes = [soa.x, soa.y, soa.z, soa.w].map(|row| row.to_array());
        for j in 0..4 {
            let d = &quad[j];
            let widths = [0, 1, 2].map(|c| rows.widths[c][j]);
            assert_eq!((rows.first_bit[j], widths), (d.first_bit, d.bits), "track {j}");
            for c in 0..3 {
                assert_eq!(rows.scale[c][j].to_bits(), d.scale[c].to_bits(), "track {j} scale {c}: {d:?}");
                assert_eq!(rows.offset[c][j].to_bits(), d.offset[c].to_bits(), "track {j} offset {c}: {d:?}");
            }
            let alone = d.decode(levels[j]);
            let together = [lanes[0][j], lanes[1][j], lanes[2][j], lanes[3][j]];
            assert_eq!(alone.map(f32::to_bits), together.map(f32::to_bits), "track {j}: {d:?}, {:?}", levels[j]);
        }
    }
}
