//! Scalar curve tracks of clips (`sinew::clip::Curves`, `sinew_tools::compress::compress_curves`): on every
//! shared clip at its native rate and resampled to 30 Hz, curves taken from the motion (a limb's height, the
//! root's speed, a contact switch, a constant) sample through `SamplingJob` exactly (`f32`) or within each
//! curve's precision (compressed) at every frame and midpoint, against the f64 interpolation of the baked values;
//! seeking and playing agree bit for bit; bad curves, counts and damaged sections are errors.

use sinew::clip::{
    CompressedKeys, CurveDecoder, CurveKeys, Curves, MAX_BITS, MAX_CLIP_CURVES, SegmentTrack, TrackRange,
};
use sinew::error::Limit;
use sinew::math::SoaTransform;
use sinew::{Arena, Asset, Buffer, Error, Playback, SamplingContext, SamplingJob};
use sinew_tests::oracle;
use sinew_tools::annotate::figure_height;
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::compress::{Precision, compress_curves};
use sinew_tools::raw;
use sinew_tools::raw::{Extras, RawAnnotations, RawClip, RawCurve, RawCurveKey, RawSkeleton};

/// Curves read off the motion, each with its precision: the last joint's model-space height, the ground speed of
/// the joints' mean position, a switch that is 1 while that height is in its lowest tenth, and a constant.
fn motion_curves(skeleton: &RawSkeleton, clip: &RawClip) -> Vec<(String, f32, Vec<f32>)> {
    let height = figure_height(skeleton, std::slice::from_ref(clip));
    let model: Vec<Vec<oracle::M4>> =
        clip.frames.iter().map(|f| oracle::local_to_model(&skeleton.parents, f, &oracle::IDENTITY)).collect();
    let leaf: Vec<f64> = model.iter().map(|m| m[m.len() - 1][13]).collect();
    let speed: Vec<f64> = (0..model.len())
        .map(|f| {
            let (a, b) = (f.saturating_sub(1), (f + 1).min(model.len() - 1));
            let mean = |f: usize, i: usize| model[f].iter().map(|m| m[i]).sum::<f64>() / model[f].len() as f64;
            let d = |i: usize| mean(b, i) - mean(a, i);
            (d(12).hypot(d(14)) / ((b - a).max(1) as f64)) * clip.sample_rate as f64
        })
        .collect();
    let (low, high) = leaf.iter().fold((f64::MAX, f64::MIN), |(l, h), &v| (l.min(v), h.max(v)));
    let contact = leaf.iter().map(|&v| if v <= low + 0.1 * (high - low) { 1.0 } else { 0.0 }).collect();
    let to_f32 = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    vec![
        ("leaf_height".into(), 1e-3 * height, to_f32(&leaf)),
        ("speed".into(), 1e-3 * height, to_f32(&speed)),
        ("contact".into(), 0.01, contact),
        ("constant".into(), 1e-4, vec![0.25; clip.frames.len()]),
    ]
}

fn annotations_with(curves: &[(String, f32, Vec<f32>)], rate: f32) -> RawAnnotations {
    RawAnnotations {
        curves: curves.iter().map(|(name, p, v)| RawCurve::from_frames(name, Some(*p), rate, v)).collect(),
        ..Default::default()
    }
}

/// Every curve of clip `index` at `time`: seeking (a fresh context) and playing (`context`) must agree bit for
/// bit; returns the values.
fn sample_both(asset: &Asset<'_>, index: usize, time: f32, playing: &mut SamplingContext<'_>) -> Vec<f32> {
    let skeleton = asset.skeleton();
    let clip = asset.clip(index).expect("clip");
    let mut pose = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    let mut run = |context: &mut SamplingContext<'_>| {
        let mut curves = vec![f32::NAN; clip.num_curves()];
        let mut job = SamplingJob {
            skeleton,
            clip: &clip,
            time,
            playback: Playback::Clamp,
            context,
            output: &mut pose,
            curves: &mut curves,
        };
        job.run().expect("sample");
        curves
    };
    let played = run(playing);
    let mut memory = vec![0u8; SamplingContext::required_bytes(skeleton.num_joints())];
    let arena = Arena::new(&mut memory);
    let sought = run(&mut SamplingContext::new(&arena, skeleton.num_joints()).expect("context"));
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    assert_eq!(bits(&played), bits(&sought), "clip {index} at {time} s: seek and playback differ");
    played
}

#[test]
fn every_shared_clip_samples_its_curves_within_their_precision_at_its_rate_and_at_30_hz() {
    let Some(dir) = sinew_tests::shared_data("every_shared_clip_samples_its_curves") else { return };
    let (mut raw_total, mut stored_total) = (0usize, 0usize);
    for (file, skeleton, clips) in sinew_tests::shared_clips(&dir) {
        for resample in [None, Some(30.0f32)] {
            let clips: Vec<RawClip> = match resample {
                None => clips.clone(),
                Some(rate) => clips.iter().map(|c| c.resampled(rate).expect("resample")).collect(),
            };
            let curves: Vec<_> = clips.iter().map(|c| motion_curves(&skeleton, c)).collect();
            let annotations = clips.iter().zip(&curves).map(|(c, v)| annotations_with(v, c.sample_rate)).collect();
            let extras = Extras { annotations, ..Default::default() };
            let compressed = KeyFormat::Compressed(Precision::on_figure(&skeleton, &clips, 0.05, 3.0));
            for format in [KeyFormat::F32, compressed] {
                let blob = bake::bake_with(&skeleton, &clips, format, &extras).expect("bake");
                let asset = Asset::load(blob.bytes()).expect("load");
                let mut memory = vec![0u8; SamplingContext::required_bytes(skeleton.parents.len())];
                let arena = Arena::new(&mut memory);
                let mut playing = SamplingContext::new(&arena, skeleton.parents.len()).expect("context");
                for (index, (raw, clip_curves)) in clips.iter().zip(&curves).enumerate() {
                    let names: Vec<&str> = asset.curve_names(index).collect();
                    assert_eq!(names, ["leaf_height", "speed", "contact", "constant"]);
                    assert_eq!(asset.find_curve(index, "contact"), Some(2));
                    let rate = raw.sample_rate as f64;
                    let mut worst = [0.0f64; 4];
                    for f in 0..raw.frames.len() {
                        // The frame, then the midpoint to the next, against the f64 lerp of the baked values.
                        for half in [0.0, 0.5] {
                            let g = (f + 1).min(raw.frames.len() - 1);
                            let time = ((f as f64 + half) / rate) as f32;
                            // At a frame's time sampling snaps to the frame (its fraction is f32 rounding).
                            let u = if half == 0.0 { 0.0 } else { (time as f64 * rate - f as f64).clamp(0.0, 1.0) };
                            let got = sample_both(&asset, index, time, &mut playing);
                            for (k, (_, precision, values)) in clip_curves.iter().enumerate() {
                                let (a, b) = (values[f] as f64, values[g] as f64);
                                let expected = if g == f { a } else { a + (b - a) * u };
                                let error = (got[k] as f64 - expected).abs();
                                // f32 lerp rounding, and the time's own rounding across a frame interval.
                                let rounding = 4.0 * f32::EPSILON as f64 * a.abs().max(b.abs())
                                    + (b - a).abs() * 4.0 * f32::EPSILON as f64 * (f as f64 + 1.0);
                                let bound = match format {
                                    KeyFormat::F32 if half == 0.0 => 0.0,
                                    KeyFormat::F32 => rounding,
                                    _ => *precision as f64 + rounding,
                                };
                                assert!(
                                    error <= bound,
                                    "{file} `{}` ({format:?}) curve {k} at frame {f} + {half}: {} against {expected}, \
                                     error {error} > {bound}",
                                    raw.name,
                                    got[k]
                                );
                                worst[k] = worst[k].max(error / f64::from(*precision));
                            }
                        }
                    }
                    let clip = asset.clip(index).expect("clip");
                    if let KeyFormat::Compressed(_) = format {
                        let raw_bytes = 4 * clip.num_curves() * clip.num_frames();
                        raw_total += raw_bytes;
                        stored_total += clip.curve_bytes();
                        eprintln!(
                            "{file} `{}` at {:.0} Hz: curves {} bytes against {raw_bytes} raw; worst error / precision {worst:.2?}",
                            raw.name,
                            raw.sample_rate,
                            clip.curve_bytes()
                        );
                    } else {
                        assert_eq!(clip.curve_bytes(), 4 * clip.num_curves() * clip.num_frames());
                    }
                }
            }
        }
    }
    eprintln!("all shared clips' curves: {:.1}:1 against raw f32", raw_total as f64 / stored_total.max(1) as f64);
}

/// A 40-frame, two-joint clip at 30 Hz and its skeleton.
fn small_clip() -> (RawSkeleton, RawClip) {
    let rest = sinew::math::Transform::IDENTITY;
    let skeleton = RawSkeleton { names: vec!["a".into(), "b".into()], parents: vec![-1, 0], rest: vec![rest; 2] };
    let frames = (0..40)
        .map(|f| {
            let mut t = rest;
            t.translation.x = f as f32 * 0.1;
            vec![t, rest]
        })
        .collect();
    (
        skeleton.clone(),
        RawClip { name: "walk".into(), sample_rate: 30.0, frames, step: sinew_tools::raw::StepKeys::None },
    )
}

fn bake_curves(curves: Vec<RawCurve>, format: KeyFormat) -> Result<raw::AlignedBlob, String> {
    let (skeleton, clip) = small_clip();
    let extras = Extras { annotations: vec![RawAnnotations { curves, ..Default::default() }], ..Default::default() };
    bake::bake_with(&skeleton, &[clip], format, &extras)
}

fn compressed_format() -> KeyFormat {
    KeyFormat::Compressed(Precision { max_error: 0.001, distance: 0.03 })
}

#[test]
fn authored_keys_bake_to_their_hermite_values_at_each_frame() {
    let keys = vec![
        RawCurveKey { time: 0.0, value: 0.0, slope: 0.0 },
        RawCurveKey { time: 0.5, value: 1.0, slope: 2.0 },
        RawCurveKey { time: 1.2, value: -0.5, slope: 0.0 },
    ];
    let curve = RawCurve { name: "weight".into(), precision: None, keys: keys.clone() };
    let blob = bake_curves(vec![curve], KeyFormat::F32).expect("bake");
    let asset = Asset::load(blob.bytes()).expect("load");
    let clip = asset.clip(0).expect("clip");
    let Curves { count: 1, keys: CurveKeys::F32(values) } = clip.curves() else { panic!("one f32 curve") };
    // The f64 Hermite through the keys, held past the last.
    let hermite = |t: f64| {
        let i = keys.windows(2).position(|w| t <= w[1].time as f64).unwrap_or(keys.len() - 2);
        let (a, b) = (keys[i], keys[i + 1]);
        let d = (b.time - a.time) as f64;
        let u = ((t - a.time as f64) / d).clamp(0.0, 1.0);
        let (u2, u3) = (u * u, u * u * u);
        (2.0 * u3 - 3.0 * u2 + 1.0) * a.value as f64
            + (u3 - 2.0 * u2 + u) * d * a.slope as f64
            + (-2.0 * u3 + 3.0 * u2) * b.value as f64
            + (u3 - u2) * d * b.slope as f64
    };
    for (f, &v) in values.iter().enumerate() {
        let expected = if f as f64 / 30.0 > 1.2 { -0.5 } else { hermite(f as f64 / 30.0) };
        assert!((v as f64 - expected).abs() < 1e-6, "frame {f}: {v} against {expected}");
    }
    // One key holds its value.
    let one = RawCurve { name: "held".into(), precision: None, keys: keys[..1].to_vec() };
    let blob = bake_curves(vec![one], KeyFormat::F32).expect("bake");
    let asset = Asset::load(blob.bytes()).expect("load");
    let Curves { keys: CurveKeys::F32(values), .. } = asset.clip(0).expect("clip").curves() else { panic!() };
    assert!(values.iter().all(|&v| v == 0.0) && values.len() == 40);
}

#[test]
fn bad_curves_are_bake_errors() {
    let key = |time: f32, value: f32| RawCurveKey { time, value, slope: 0.0 };
    let curve = |precision: Option<f32>, keys: Vec<RawCurveKey>| RawCurve { name: "c".into(), precision, keys };
    let cases: Vec<(&str, RawCurve, KeyFormat, &str)> = vec![
        ("no keys", curve(Some(0.1), vec![]), KeyFormat::F32, "no keys"),
        ("NaN value", curve(Some(0.1), vec![key(0.0, f32::NAN), key(1.0, 0.0)]), KeyFormat::F32, "finite"),
        ("times out of order", curve(None, vec![key(1.0, 0.0), key(0.5, 1.0)]), KeyFormat::F32, "increasing"),
        ("zero precision", curve(Some(0.0), vec![key(0.0, 1.0)]), KeyFormat::F32, "precision"),
        ("NaN precision", curve(Some(f32::NAN), vec![key(0.0, 1.0)]), compressed_format(), "precision"),
        ("no precision to compress", curve(None, vec![key(0.0, 1.0)]), compressed_format(), "needs a precision"),
        (
            "a precision 24 bits cannot reach",
            curve(Some(1e-9), vec![key(0.0, -1e4), key(1.3, 1e4)]),
            compressed_format(),
            "bits resolve",
        ),
        (
            "a value past f32",
            curve(None, vec![RawCurveKey { time: 0.0, value: 3e38, slope: 3e38 }, key(1.0, 3e38)]),
            KeyFormat::F32,
            "not finite",
        ),
        ("a value past the curve bound", curve(None, vec![key(0.0, 2e30)]), KeyFormat::F32, "past ±1e30"),
    ];
    for (what, curve, format, says) in cases {
        let error = bake_curves(vec![curve], format).expect_err(what);
        assert!(error.contains(says), "{what}: {error}");
    }
    let many = (0..=MAX_CLIP_CURVES).map(|i| RawCurve::from_frames(&format!("c{i}"), None, 30.0, &[0.0])).collect();
    assert!(bake_curves(many, KeyFormat::F32).expect_err("too many").contains("at most"));
    assert!(compress_curves("c", &[vec![1.0, 2.0]], &[0.1, 0.1]).is_err(), "counts differ");
    assert!(compress_curves("c", &[vec![1.0, 2.0], vec![1.0]], &[0.1, 0.1]).is_err(), "lengths differ");
}

#[test]
fn curve_counts_values_and_outputs_are_checked() {
    let (skeleton, clip) = small_clip();
    let blob = bake::bake(&skeleton, &[clip], KeyFormat::F32).expect("bake");
    let asset = Asset::load(blob.bytes()).expect("load");
    let clip = asset.clip(0).expect("clip");
    assert_eq!(clip.num_curves(), 0);
    let values = vec![0.5f32; 80];
    let f32_curves = |count: usize, values: &[f32]| -> Result<usize, Error> {
        clip.with_curves(Curves { count, keys: CurveKeys::F32(values) }).map(|c| c.num_curves())
    };
    assert_eq!(f32_curves(2, &values), Ok(2), "two curves of 40 frames");
    assert_eq!(
        f32_curves(3, &values),
        Err(Error::BufferLength { buffer: Buffer::CurveKeys, expected: 120, actual: 80 })
    );
    assert_eq!(
        f32_curves(MAX_CLIP_CURVES + 1, &[]),
        Err(Error::Limit { what: Limit::ClipCurves, value: MAX_CLIP_CURVES + 1, max: MAX_CLIP_CURVES })
    );
    for (bad, error) in [
        (f32::NAN, Error::NonFinite { buffer: Buffer::CurveKeys, index: 41 }),
        (f32::INFINITY, Error::NonFinite { buffer: Buffer::CurveKeys, index: 41 }),
        (1e-30, Error::Subnormal { buffer: Buffer::CurveKeys, index: 41 }),
        (-2e30, Error::CurveMagnitude { index: 41 }),
    ] {
        let mut v = values.clone();
        v[41] = bad;
        assert_eq!(f32_curves(2, &v), Err(error));
    }
    // Compressed: a section that ends before its segment's bits, a range past the magnitude bound.
    let compressed = compress_curves("c", &[(0..40).map(|f| f as f32 * 0.01).collect()], &[1e-4]).expect("compress");
    let keys = |data: &[u8], ranges: &[TrackRange]| {
        let keys = CurveKeys::Compressed(CompressedKeys { data, ranges });
        clip.with_curves(Curves { count: 1, keys }).map(|c| c.num_curves())
    };
    assert_eq!(keys(&compressed.data, &compressed.ranges), Ok(1));
    let short = &compressed.data[..compressed.data.len() - 1];
    assert_eq!(keys(short, &compressed.ranges), Err(Error::CompressedSegment { segment: 2, track: None }));
    let mut wide = compressed.ranges.clone();
    (wide[0].min[0], wide[0].extent[0]) = (-3e38, 3.4e38);
    assert_eq!(keys(&compressed.data, &wide), Err(Error::CurveMagnitude { index: 0 }));
    let with = clip.with_curves(Curves { count: 2, keys: CurveKeys::F32(&values) }).expect("two curves");

    // Asking for more curves than the clip has.
    let mut memory = vec![0u8; SamplingContext::required_bytes(2)];
    let arena = Arena::new(&mut memory);
    let mut context = SamplingContext::new(&arena, 2).expect("context");
    let mut pose = [SoaTransform::IDENTITY; 1];
    let mut out = [0.0f32; 3];
    let mut run = |curves: &mut [f32]| {
        let (skeleton, context, output) = (asset.skeleton(), &mut context, &mut pose[..]);
        SamplingJob { skeleton, clip: &with, time: 0.5, playback: Playback::Loop, context, output, curves }.run()
    };
    assert_eq!(run(&mut out), Err(Error::BufferLength { buffer: Buffer::Curves, expected: 2, actual: 3 }));
    // Fewer is fine: the first ones.
    assert_eq!(run(&mut out[..1]), Ok(()));
    assert_eq!(out[0], 0.5);
}

#[test]
fn damaged_curve_sections_are_load_errors() {
    use sinew::asset::{CurveRecord, Header};
    use sinew::{BlobProblem, Section};
    let curve = RawCurve::from_frames("w", Some(0.01), 30.0, &(0..40).map(|f| f as f32 * 0.05).collect::<Vec<_>>());
    for format in [KeyFormat::F32, compressed_format()] {
        let good = bake_curves(vec![curve.clone()], format).expect("bake");
        assert!(Asset::load(good.bytes()).is_ok());
        let header = |b: &mut raw::AlignedBlob| *bytemuck::from_bytes::<Header>(&b.bytes()[..128]);
        let record_at = |b: &mut raw::AlignedBlob| header(b).curves.offset as usize;
        let edit = |f: &dyn Fn(&mut CurveRecord)| {
            let mut b = good.clone();
            let at = record_at(&mut b);
            f(bytemuck::from_bytes_mut(&mut b.bytes_mut()[at..at + 32]));
            Asset::load(b.bytes()).map(|_| ()).expect_err("damaged")
        };
        let value = |section| Error::Blob { section, problem: BlobProblem::Value { index: 0 } };
        assert_eq!(edit(&|r| r.encoding = 1), value(Section::CurveKeys { clip: 0 }));
        assert!(matches!(
            edit(&|r| r.num_curves = 2),
            Error::Blob { section: Section::CurveNames { clip: 0 }, problem: BlobProblem::Size { .. } }
        ));
        // A name past the strings.
        let mut b = good.clone();
        let at = record_at(&mut b);
        let names = bytemuck::from_bytes::<CurveRecord>(&b.bytes()[at..at + 32]).names.offset as usize;
        bytemuck::from_bytes_mut::<sinew::asset::StrRef>(&mut b.bytes_mut()[names..names + 8]).len = 9999;
        assert_eq!(Asset::load(b.bytes()).map(|_| ()), Err(value(Section::CurveNames { clip: 0 })));
        // Curves that step are a version 7 flag.
        let mut b = good.clone();
        let at = record_at(&mut b);
        bytemuck::from_bytes_mut::<CurveRecord>(&mut b.bytes_mut()[at..at + 32]).encoding |= sinew::clip::STEP_KEYS;
        assert!(Asset::load(b.bytes()).expect("step curves").clip(0).expect("clip").has_step_curves());
        let mut h = header(&mut b);
        h.version = 6;
        b.bytes_mut()[..128].copy_from_slice(bytemuck::bytes_of(&h));
        assert_eq!(Asset::load(b.bytes()).map(|_| ()), Err(value(Section::CurveKeys { clip: 0 })));
        let mut b = good.clone();
        let mut h = header(&mut b);
        h.curves.len = 64;
        b.bytes_mut()[..128].copy_from_slice(bytemuck::bytes_of(&h));
        assert!(Asset::load(b.bytes()).is_err(), "two curve records for one clip");
    }
}

#[test]
fn a_curve_decodes_bit_for_bit_as_a_one_component_track() {
    let mut rng = sinew_tests::Rng::new(29);
    for _ in 0..sinew_tests::cases(20_000) {
        let bits = rng.below(MAX_BITS as usize + 1) as u32;
        let (m, e) = (rng.below(256) as u8, rng.below(256) as u8);
        let format =
            SegmentTrack { bits: [bits, 0, 0], dropped: 0, range_min: [m, 0, 0], range_extent: [e.min(255 - m), 0, 0] };
        let magnitude = [1e-3, 1.0, 1e3, 1e6][rng.below(4)];
        let min = rng.range(-1.0, 1.0) * magnitude;
        let extent = rng.unit() * magnitude;
        let range = TrackRange { min: [min, 0.0, 0.0, 0.0], extent: [extent, 0.0, 0.0, 0.0] };
        let level = (rng.next_u64() & ((1u64 << bits) - 1)) as u32;
        let track = format.decoder(&range, false, 0).decode([level, 0, 0])[0];
        let curve = CurveDecoder::new(&format.to_bytes(), &range, 0).decode(level);
        assert_eq!(curve.to_bits(), track.to_bits(), "{format:?} {range:?} level {level}: {curve} against {track}");
    }
}

#[test]
fn curves_that_step_hold_each_frame_while_the_tracks_interpolate() {
    let values: Vec<f32> = (0..40).map(|f| (f as f32 * 0.37).sin()).collect();
    let curve = RawCurve::from_frames("w", Some(1e-4), 30.0, &values);
    let (skeleton, mut clip) = small_clip();
    let joints = clip.frames[0].len();
    clip.step = raw::StepKeys::Some { channels: vec![[false; 3]; joints], curves: true };
    // Under Miri the compressor's search alone takes most of a minute; the hold is the sampler's, which every
    // other build checks on compressed curves too.
    let formats = if cfg!(miri) { vec![KeyFormat::F32] } else { vec![KeyFormat::F32, compressed_format()] };
    for format in formats {
        let extras = Extras {
            annotations: vec![RawAnnotations { curves: vec![curve.clone()], ..Default::default() }],
            ..Default::default()
        };
        let blob = bake::bake_with(&skeleton, std::slice::from_ref(&clip), format, &extras).expect("bake");
        let asset = Asset::load(blob.bytes()).expect("load");
        let runtime = asset.clip(0).expect("clip");
        assert!(runtime.has_step_curves() && !runtime.has_step_keys() && runtime.step_tracks().is_empty());
        let skeleton = asset.skeleton();
        let mut memory = vec![0u8; SamplingContext::required_bytes(skeleton.num_joints())];
        let arena = Arena::new(&mut memory);
        let mut context = SamplingContext::new(&arena, skeleton.num_joints()).expect("context");
        let mut output = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
        let mut sample = |time: f32| {
            let mut out = [0.0f32];
            let mut job = SamplingJob {
                skeleton,
                clip: &runtime,
                time,
                playback: Playback::Clamp,
                context: &mut context,
                output: &mut output,
                curves: &mut out,
            };
            job.run().expect("sample");
            out[0]
        };
        for (f, &value) in values.iter().enumerate().take(39).step_by(if cfg!(miri) { 7 } else { 1 }) {
            let at_key = sample(f as f32 / 30.0);
            for x in [0.25, 0.5, 0.99] {
                let between = sample((f as f32 + x) / 30.0);
                assert_eq!(between, at_key, "{format:?}: frame {f} + {x}");
            }
            assert!((at_key - value).abs() <= 1e-4, "{format:?}: frame {f}: {at_key} against {value}");
        }
        assert_eq!(sample(100.0), sample(39.0 / 30.0), "the last frame holds from its time on");
    }
}
