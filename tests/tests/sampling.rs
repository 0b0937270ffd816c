//! Clips and sampling: validation (one test per error), behaviour, the frame cache, and reference tests
//! against an f64 interpolation of the raw keys.

use sinew::clip::{Channel, ClipParts, ConstantTrack, Keys, QuantRange, decode_rotation, encode_rotation};
use sinew::math::{Quat, SoaTransform, Transform, unpack_soa};
use sinew::{Arena, Asset, Buffer, Clip, Error, Interpolation, Playback, SamplingContext, SamplingJob};
use sinew_tests::{JOINT_COUNTS, Rng, random_clip};
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::compress::Precision;
use sinew_tools::raw::{AlignedBlob, RawClip, RawSkeleton, StepKeys};

/// Per-component tolerance of f32 sampling against the f64 reference (relative to max(1, |value|)).
const SAMPLE_TOLERANCE: f64 = 2e-6;

fn parts<'a>(keys: Keys<'a>, track_joints: &'a [u16], num_tracks: [usize; 3], frames: usize) -> ClipParts<'a> {
    ClipParts { num_joints: 4, sample_rate: 30.0, num_frames: frames, constants: &[], track_joints, num_tracks, keys }
}

/// One animated rotation track on joint 1, two frames.
const ROT_KEYS: [f32; 8] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0];

#[test]
fn clip_validation_errors() {
    let ok = parts(Keys::F32(&ROT_KEYS), &[1], [0, 1, 0], 2);
    assert!(Clip::new(ok).is_ok());
    let err = |p: ClipParts<'_>| Clip::new(p).err();
    assert_eq!(err(ClipParts { num_joints: 0, ..ok }), Some(Error::JointCount { count: 0, max: 1024 }));
    assert_eq!(err(ClipParts { num_joints: 1025, ..ok }), Some(Error::JointCount { count: 1025, max: 1024 }));
    // Outside 1..=1000 Hz: subnormal rates would give an infinite duration, huge ones a zero frame time.
    for rate in [0.0, -30.0, f32::NAN, f32::INFINITY, 1e-40, 0.999, 1000.5, 1e30] {
        assert_eq!(err(ClipParts { sample_rate: rate, ..ok }), Some(Error::InvalidSampleRate), "rate {rate}");
    }
    for rate in [sinew::clip::MIN_SAMPLE_RATE, sinew::clip::MAX_SAMPLE_RATE] {
        assert!(Clip::new(ClipParts { sample_rate: rate, ..ok }).is_ok(), "rate {rate}");
    }
    assert_eq!(err(ClipParts { num_frames: 0, ..ok }), Some(Error::FrameCount { frames: 0 }));
    // No animated tracks, so any frame count has keys: the longest clip at 1000 Hz lasts exactly 3600 s.
    let frameless =
        ClipParts { sample_rate: 1000.0, track_joints: &[], num_tracks: [0; 3], keys: Keys::F32(&[]), ..ok };
    assert!(Clip::new(ClipParts { num_frames: 3_600_001, ..frameless }).is_ok());
    assert_eq!(err(ClipParts { num_frames: 3_600_002, ..frameless }), Some(Error::FrameCount { frames: 3_600_002 }));
    let long = Clip::new(ClipParts { num_frames: 3_600_001, ..frameless }).expect("longest clip");
    assert!(long.duration().is_finite() && long.duration() <= sinew::clip::MAX_DURATION);
    assert_eq!(
        err(ClipParts { num_tracks: [0, 2, 0], ..ok }),
        Some(Error::BufferLength { buffer: Buffer::TrackJoints, expected: 2, actual: 1 })
    );
    assert_eq!(
        err(ClipParts { num_frames: 3, ..ok }),
        Some(Error::BufferLength { buffer: Buffer::ClipKeys, expected: 12, actual: 8 })
    );
    assert_eq!(err(ClipParts { track_joints: &[4], ..ok }), Some(Error::JointOutOfRange { joint: 4, num_joints: 4 }));
    // Two rotation tracks out of order, and one repeated.
    let keys16 = [ROT_KEYS, ROT_KEYS].concat();
    for joints in [[2u16, 1], [1, 1]] {
        let p = ClipParts { track_joints: &joints, num_tracks: [0, 2, 0], keys: Keys::F32(&keys16), ..ok };
        assert_eq!(err(p), Some(Error::TrackOrder { joint: 1, channel: 1 }));
    }
    // A constant on an animated channel, and an unknown channel tag.
    let c = ConstantTrack { joint: 1, channel: Channel::Rotation as u16, value: [0.0, 0.0, 0.0, 1.0] };
    assert_eq!(err(ClipParts { constants: &[c], ..ok }), Some(Error::TrackOrder { joint: 1, channel: 1 }));
    let c = ConstantTrack { joint: 0, channel: 3, value: [0.0; 4] };
    assert_eq!(err(ClipParts { constants: &[c], ..ok }), Some(Error::InvalidChannel { index: 0, channel: 3 }));
    let c = ConstantTrack { joint: 9, channel: 0, value: [0.0; 4] };
    assert_eq!(err(ClipParts { constants: &[c], ..ok }), Some(Error::JointOutOfRange { joint: 9, num_joints: 4 }));
    // Bad values in constants and keys.
    let c = ConstantTrack { joint: 0, channel: 0, value: [f32::NAN, 0.0, 0.0, 0.0] };
    assert_eq!(
        err(ClipParts { constants: &[c], ..ok }),
        Some(Error::NonFinite { buffer: Buffer::Constants, index: 0 })
    );
    let c = ConstantTrack { joint: 0, channel: 1, value: [0.0; 4] };
    assert_eq!(
        err(ClipParts { constants: &[c], ..ok }),
        Some(Error::ZeroQuaternion { buffer: Buffer::Constants, index: 0 })
    );
    let c = ConstantTrack { joint: 0, channel: 2, value: [1e-30, 1.0, 1.0, 0.0] };
    assert_eq!(
        err(ClipParts { constants: &[c], ..ok }),
        Some(Error::Subnormal { buffer: Buffer::Constants, index: 0 })
    );
    let mut keys = ROT_KEYS;
    keys[6] = f32::INFINITY;
    assert_eq!(
        err(ClipParts { keys: Keys::F32(&keys), ..ok }),
        Some(Error::NonFinite { buffer: Buffer::ClipKeys, index: 6 })
    );
    let mut keys = ROT_KEYS;
    keys[6] = 0.0;
    assert_eq!(
        err(ClipParts { keys: Keys::F32(&keys), ..ok }),
        Some(Error::ZeroQuaternion { buffer: Buffer::ClipKeys, index: 4 })
    );
    // A whole lane group of rotation tracks is stored component-major: lane 2's w is element 12 + 2.
    let mut group = [0.0f32; 16];
    for lane in 0..4 {
        group[12 + lane] = 1.0;
    }
    group[12 + 2] = 0.0;
    let p =
        ClipParts { track_joints: &[0, 1, 2, 3], num_tracks: [0, 4, 0], num_frames: 1, keys: Keys::F32(&group), ..ok };
    assert_eq!(err(p), Some(Error::ZeroQuaternion { buffer: Buffer::ClipKeys, index: 2 }));
    // A component near f32::MAX (found by the blob mutation run: interpolating it overflowed to a zero-length
    // pose rotation) and one just past the length bound; a length of 2 is accepted.
    for (value, expected) in [(f32::MAX, false), (2.001, false), (2.0, true)] {
        let mut long = group;
        long[12 + 2] = value;
        let p = ClipParts {
            track_joints: &[0, 1, 2, 3],
            num_tracks: [0, 4, 0],
            num_frames: 1,
            keys: Keys::F32(&long),
            ..ok
        };
        match expected {
            true => assert!(Clip::new(p).is_ok(), "{value}"),
            false => assert_eq!(err(p), Some(Error::RotationLength { buffer: Buffer::ClipKeys, index: 2 }), "{value}"),
        }
    }
    let c = ConstantTrack { joint: 0, channel: 1, value: [3.0, 0.0, 0.0, 0.0] };
    assert_eq!(
        err(ClipParts { constants: &[c], ..ok }),
        Some(Error::RotationLength { buffer: Buffer::Constants, index: 0 })
    );
    let mut keys = ROT_KEYS;
    keys[1] = f32::MIN_POSITIVE / 2.0;
    assert_eq!(
        err(ClipParts { keys: Keys::F32(&keys), ..ok }),
        Some(Error::Subnormal { buffer: Buffer::ClipKeys, index: 1 })
    );
}

#[test]
fn quantized_clip_validation_errors() {
    let keys = [0u16; 6];
    let range = QuantRange { min: [0.0; 3], step: [1e-3; 3] };
    let ranges = [range];
    let ok = parts(Keys::Quantized { keys: &keys, ranges: &ranges }, &[2], [1, 0, 0], 2);
    assert!(Clip::new(ok).is_ok());
    let err = |p: ClipParts<'_>| Clip::new(p).err();
    assert_eq!(
        err(ClipParts { keys: Keys::Quantized { keys: &keys, ranges: &[] }, ..ok }),
        Some(Error::BufferLength { buffer: Buffer::QuantRanges, expected: 1, actual: 0 })
    );
    let bad = [
        (
            QuantRange { min: [f32::NAN, 0.0, 0.0], step: [0.0; 3] },
            Error::NonFinite { buffer: Buffer::QuantRanges, index: 0 },
        ),
        (
            QuantRange { min: [0.0; 3], step: [-1.0, 0.0, 0.0] },
            Error::Subnormal { buffer: Buffer::QuantRanges, index: 0 },
        ),
        (
            QuantRange { min: [0.0; 3], step: [1e-25, 0.0, 0.0] },
            Error::Subnormal { buffer: Buffer::QuantRanges, index: 0 },
        ),
        // Finite range whose largest decoded value overflows.
        (QuantRange { min: [3e38; 3], step: [1e34; 3] }, Error::NonFinite { buffer: Buffer::QuantRanges, index: 0 }),
    ];
    for (range, expected) in bad {
        assert_eq!(err(ClipParts { keys: Keys::Quantized { keys: &keys, ranges: &[range] }, ..ok }), Some(expected));
    }
}

/// Bakes and loads; the blob must outlive the clip, so callers keep it.
fn bake_one(skeleton: &RawSkeleton, clip: &RawClip, format: KeyFormat) -> AlignedBlob {
    bake::bake(skeleton, std::slice::from_ref(clip), format).expect("bake")
}

struct Sampler {
    memory: Vec<u8>,
}

impl Sampler {
    fn new(n: usize) -> Sampler {
        Sampler::for_interpolation(n, Interpolation::Linear)
    }

    fn for_interpolation(n: usize, interpolation: Interpolation) -> Sampler {
        Sampler { memory: vec![0; SamplingContext::required_bytes_for(n, 0, interpolation) + 64] }
    }
}

use sinew_tests::sample_clip0 as sample;

/// The frame coordinate of `time` in `clip`, looped or clamped (f64), and the interval's first frame.
fn frame_coordinate(clip: &RawClip, time: f64, playback: Playback) -> (f64, usize) {
    let frames = clip.frames.len();
    let last = (frames - 1) as f64;
    let x = match (frames, playback) {
        (1, _) => 0.0,
        (_, Playback::Clamp) => (time * clip.sample_rate as f64).clamp(0.0, last),
        (_, Playback::Loop) => (time * clip.sample_rate as f64).rem_euclid(last),
    };
    (x, (x.floor() as usize).min(frames.saturating_sub(2)))
}

/// f64 reference: the raw frames interpolated at `time` (lerp; shortest-arc nlerp; normalized rotation).
fn reference(clip: &RawClip, time: f64, playback: Playback) -> Vec<[f64; 10]> {
    let (x, f0) = frame_coordinate(clip, time, playback);
    let f1 = (f0 + 1).min(clip.frames.len() - 1);
    let t = x - f0 as f64;
    (0..clip.frames[0].len())
        .map(|j| {
            let (a, b) = (&clip.frames[f0][j], &clip.frames[f1][j]);
            let va = flatten(a);
            let vb = flatten(b);
            let dot: f64 = (3..7).map(|i| va[i] * vb[i]).sum();
            let sign = if dot < 0.0 { -1.0 } else { 1.0 };
            let mut out = [0.0; 10];
            for i in 0..10 {
                let bi = if (3..7).contains(&i) { sign * vb[i] } else { vb[i] };
                out[i] = va[i] + (bi - va[i]) * t;
            }
            normalized(out)
        })
        .collect()
}

/// f64 reference of cubic sampling, written from the definition: the Catmull-Rom spline through the keys
/// before, around and after `time`; at a clamped end the missing key is `2 p0 − p1`, a looping clip wraps over
/// its last frame (a copy of its first). Rotations: each key on the hemisphere of the one it follows (the key
/// before on that of the key after it), summed, normalized.
fn reference_cubic(clip: &RawClip, time: f64, playback: Playback) -> Vec<[f64; 10]> {
    let (x, f0) = frame_coordinate(clip, time, playback);
    let (frames, t) = (clip.frames.len(), x - f0 as f64);
    if frames < 2 || t == 0.0 {
        return reference(clip, time, playback);
    }
    let wraps = playback == Playback::Loop && frames >= 3;
    let weights = [
        (-t * t * t + 2.0 * t * t - t) / 2.0,
        (3.0 * t * t * t - 5.0 * t * t + 2.0) / 2.0,
        (-3.0 * t * t * t + 4.0 * t * t + t) / 2.0,
        (t * t * t - t * t) / 2.0,
    ];
    let align = |v: [f64; 10], to: &[f64; 10]| {
        let dot: f64 = (3..7).map(|i| v[i] * to[i]).sum();
        let mut v = v;
        if dot < 0.0 {
            v[3..7].iter_mut().for_each(|c| *c = -*c);
        }
        v
    };
    let extrapolate = |a: &[f64; 10], b: &[f64; 10]| -> [f64; 10] { std::array::from_fn(|i| 2.0 * a[i] - b[i]) };
    (0..clip.frames[0].len())
        .map(|j| {
            let key = |f: usize| flatten(&clip.frames[f][j]);
            let a = key(f0);
            let b = align(key(f0 + 1), &a);
            let before = match f0 {
                0 if wraps => align(key(frames - 2), &a),
                0 => extrapolate(&a, &b),
                _ => align(key(f0 - 1), &a),
            };
            let after = match f0 + 1 {
                f if f + 1 < frames => align(key(f + 1), &b),
                _ if wraps => align(key(1), &b),
                _ => extrapolate(&b, &a),
            };
            let keys = [before, a, b, after];
            normalized(std::array::from_fn(|i| (0..4).map(|k| weights[k] * keys[k][i]).sum()))
        })
        .collect()
}

fn flatten(t: &Transform) -> [f64; 10] {
    let (p, q, s) = (t.translation, t.rotation, t.scale);
    [p.x, p.y, p.z, q.x, q.y, q.z, q.w, s.x, s.y, s.z].map(f64::from)
}

/// Largest relative difference between a sampled pose and the reference (rotations compared up to sign).
fn max_error(pose: &[Transform], expected: &[[f64; 10]]) -> f64 {
    let mut worst = 0.0f64;
    for (t, e) in pose.iter().zip(expected) {
        let v = flatten(t);
        let dot: f64 = (3..7).map(|i| v[i] * e[i]).sum();
        let sign = if dot < 0.0 { -1.0 } else { 1.0 };
        for i in 0..10 {
            let vi = if (3..7).contains(&i) { sign * v[i] } else { v[i] };
            worst = worst.max((vi - e[i]).abs() / e[i].abs().max(1.0));
        }
    }
    worst
}

#[test]
fn sampling_matches_f64_reference_at_random_times() {
    let mut rng = Rng::new(0x5A3D);
    for &n in JOINT_COUNTS {
        let frames = if cfg!(miri) { 4 } else { 40 };
        let (skeleton, clip) = random_clip(&mut rng, n, frames);
        let blob = bake_one(&skeleton, &clip, KeyFormat::F32);
        let asset = Asset::load(blob.bytes()).expect("load");
        let mut sampler = Sampler::new(n);
        let arena = Arena::new(&mut sampler.memory);
        let mut context = SamplingContext::new(&arena, n).expect("context");
        let duration = (frames - 1) as f32 / clip.sample_rate;
        let samples = if cfg!(miri) { 4 } else { 60 };
        for i in 0..samples {
            let playback = if i % 2 == 0 { Playback::Loop } else { Playback::Clamp };
            let time = rng.range(-1.5 * duration, 2.5 * duration);
            let pose = sample(&asset, &mut context, time, playback);
            let err = max_error(&pose, &reference(&clip, time as f64, playback));
            assert!(err <= SAMPLE_TOLERANCE, "{n} joints, t = {time}: error {err:e}");
        }
    }
}

#[test]
fn key_times_return_the_keys_and_tracks_keep_their_kind() {
    let mut rng = Rng::new(7);
    // Under Miri (soft floats) a smaller rig and clip: the same kinds of track occur.
    let (n, frames) = if cfg!(miri) { (22, 4) } else { (67, 12) };
    let (skeleton, clip) = random_clip(&mut rng, n, frames);
    let blob = bake_one(&skeleton, &clip, KeyFormat::F32);
    let asset = Asset::load(blob.bytes()).expect("load");
    let baked = asset.clip(0).expect("clip");
    // Every (joint, channel) is rest, constant or animated exactly once.
    let [t, r, s] = baked.num_tracks();
    let stored = t + r + s + baked.constants().len();
    assert!(stored < 3 * n, "some tracks must be elided, {stored} stored");
    assert!(t > 0 && r > 0 && s > 0 && !baked.constants().is_empty());
    let mut sampler = Sampler::new(n);
    let arena = Arena::new(&mut sampler.memory);
    let mut context = SamplingContext::new(&arena, n).expect("context");
    for f in 0..frames {
        let pose = sample(&asset, &mut context, f as f32 / 30.0, Playback::Clamp);
        let err = max_error(&pose, &clip.frames[f].iter().map(|t| normalized(flatten(t))).collect::<Vec<_>>());
        assert!(err < 1e-6, "frame {f}: {err:e}");
    }
}

fn normalized(mut v: [f64; 10]) -> [f64; 10] {
    let len = (3..7).map(|i| v[i] * v[i]).sum::<f64>().sqrt();
    for x in &mut v[3..7] {
        *x /= len;
    }
    v
}

#[test]
fn loop_and_clamp_map_time_onto_the_clip() {
    let mut rng = Rng::new(11);
    let (skeleton, clip) = random_clip(&mut rng, 5, 9);
    let blob = bake_one(&skeleton, &clip, KeyFormat::F32);
    let asset = Asset::load(blob.bytes()).expect("load");
    let mut sampler = Sampler::new(5);
    let arena = Arena::new(&mut sampler.memory);
    let mut context = SamplingContext::new(&arena, 5).expect("context");
    let duration = 8.0 / 30.0;
    // Clamp: before the start is frame 0, after the end is the last frame.
    assert_eq!(sample(&asset, &mut context, -3.0, Playback::Clamp), sample(&asset, &mut context, 0.0, Playback::Clamp));
    assert_eq!(
        sample(&asset, &mut context, 99.0, Playback::Clamp),
        sample(&asset, &mut context, duration, Playback::Clamp)
    );
    // Loop: shifting by whole durations changes nothing beyond time rounding.
    let t = 0.1;
    let base = sample(&asset, &mut context, t, Playback::Loop);
    for k in [-2.0f32, -1.0, 1.0, 3.0] {
        let shifted = sample(&asset, &mut context, t + k * duration, Playback::Loop);
        let expected: Vec<[f64; 10]> = base.iter().map(flatten).collect();
        assert!(max_error(&shifted, &expected) < 1e-5, "shift {k}");
    }
}

#[test]
fn single_frame_clip_is_that_frame_at_any_time() {
    let mut rng = Rng::new(3);
    let (skeleton, clip) = random_clip(&mut rng, 3, 1);
    let blob = bake_one(&skeleton, &clip, KeyFormat::F32);
    let asset = Asset::load(blob.bytes()).expect("load");
    let mut sampler = Sampler::new(3);
    let arena = Arena::new(&mut sampler.memory);
    let mut context = SamplingContext::new(&arena, 3).expect("context");
    let expected: Vec<[f64; 10]> = clip.frames[0].iter().map(|t| normalized(flatten(t))).collect();
    for time in [-1.0, 0.0, 0.5, 100.0] {
        for playback in [Playback::Loop, Playback::Clamp] {
            assert!(max_error(&sample(&asset, &mut context, time, playback), &expected) < 1e-6);
        }
    }
}

#[test]
fn the_cache_decodes_each_frame_once_in_playback_and_two_on_a_seek() {
    let mut rng = Rng::new(5);
    let frames = if cfg!(miri) { 9 } else { 31 };
    let (skeleton, clip) = random_clip(&mut rng, 22, frames);
    let blob = bake_one(&skeleton, &clip, KeyFormat::F32);
    let asset = Asset::load(blob.bytes()).expect("load");
    let mut sampler = Sampler::new(22);
    let arena = Arena::new(&mut sampler.memory);
    let mut context = SamplingContext::new(&arena, 22).expect("context");
    // Forward at 60 Hz over a 30 Hz clip: each frame decoded once.
    let steps = 2 * (frames - 1);
    for i in 0..steps {
        sample(&asset, &mut context, i as f32 / 60.0, Playback::Clamp);
    }
    assert_eq!(context.decoded_frames(), frames as u64);
    // Backward over the same range: one new frame per frame crossed.
    let before = context.decoded_frames();
    for i in (0..steps).rev() {
        sample(&asset, &mut context, i as f32 / 60.0, Playback::Clamp);
    }
    assert_eq!(context.decoded_frames() - before, frames as u64 - 2);
    // Scrubbing inside one interval decodes nothing; a far seek decodes two.
    let before = context.decoded_frames();
    for i in 0..10 {
        sample(&asset, &mut context, (0.1 + i as f32 * 0.01) / 30.0, Playback::Clamp);
    }
    assert_eq!(context.decoded_frames(), before);
    sample(&asset, &mut context, (frames - 3) as f32 / 30.0 + 0.5 / 30.0, Playback::Clamp);
    assert_eq!(context.decoded_frames(), before + 2);
}

#[test]
fn results_do_not_depend_on_what_was_sampled_before() {
    // Every encoding: a context caches decoded frames, and for compressed clips the decoders of a segment too
    // (the first clip spans two segments; the other is a different clip of one segment).
    let compressed = KeyFormat::Compressed(Precision { max_error: 1e-3, distance: 0.1 });
    // Under Miri (soft floats) a smaller rig and no quantized clip: the frame cache is one for every encoding,
    // and the compressed clip keeps the decoder cache under Miri's checks.
    let all = [KeyFormat::F32, compressed, KeyFormat::Quantized];
    let (n, formats) = if cfg!(miri) { (2, &all[..2]) } else { (67, &all[..]) };
    for &format in formats {
        let mut rng = Rng::new(9);
        // The first clip spans two compressed segments (16 frames each): 17 frames under Miri.
        let (skeleton, clip) = random_clip(&mut rng, n, if cfg!(miri) { 17 } else { 20 });
        let (_, other) = random_clip(&mut Rng::new(10), n, 5);
        // Two clips of one skeleton in one blob.
        let blob = bake::bake(&skeleton, &[clip, other], format).expect("bake");
        let asset = Asset::load(blob.bytes()).expect("load");
        // Warm contexts: one keeping a compressed segment's decoders, one with too little room for them.
        let mut memory = vec![0u8; 2 * SamplingContext::required_bytes_with_decoders(n, 3 * n)];
        let arena = Arena::new(&mut memory);
        let mut warm = SamplingContext::with_decoders(&arena, n, 3 * n).expect("context");
        let mut cramped = SamplingContext::with_decoders(&arena, n, 1).expect("context");
        let clip_b = asset.clip(1).expect("clip 1");
        let rounds = if cfg!(miri) { 6 } else { 50 };
        for i in 0..rounds {
            let time = rng.range(-0.5, 1.0);
            if i % 7 == 0 {
                // Interleave the other clip so the context must rebind.
                let mut out = vec![SoaTransform::IDENTITY; asset.skeleton().num_soa_joints()];
                let job = SamplingJob {
                    skeleton: asset.skeleton(),
                    clip: &clip_b,
                    time,
                    playback: Playback::Loop,
                    context: &mut warm,
                    output: &mut out,
                    curves: &mut [],
                };
                let mut job = job;
                job.run().expect("sample b");
                job.context = &mut cramped;
                job.run().expect("sample b");
            }
            let mut fresh_memory = vec![0u8; SamplingContext::required_bytes(n)];
            let fresh_arena = Arena::new(&mut fresh_memory);
            let mut fresh = SamplingContext::new(&fresh_arena, n).expect("context");
            let a = sample(&asset, &mut warm, time, Playback::Loop);
            let b = sample(&asset, &mut fresh, time, Playback::Loop);
            let c = sample(&asset, &mut cramped, time, Playback::Loop);
            assert_eq!(a, b, "{format:?}, t = {time}");
            assert_eq!(c, b, "{format:?}, t = {time}");
        }
    }
}

#[test]
fn quantized_clips_stay_within_the_stated_bounds() {
    let mut rng = Rng::new(21);
    // Under Miri (soft floats) a smaller rig and clip: the same kinds of track occur.
    let (n, frames) = if cfg!(miri) { (22, 6) } else { (67, 24) };
    let (skeleton, clip) = random_clip(&mut rng, n, frames);
    let blob_f = bake_one(&skeleton, &clip, KeyFormat::F32);
    let blob_q = bake_one(&skeleton, &clip, KeyFormat::Quantized);
    assert!(blob_q.bytes().len() < blob_f.bytes().len());
    let (asset_f, asset_q) = (Asset::load(blob_f.bytes()).expect("f32"), Asset::load(blob_q.bytes()).expect("q"));
    let mut mf = Sampler::new(n);
    let mut mq = Sampler::new(n);
    let (af, aq) = (Arena::new(&mut mf.memory), Arena::new(&mut mq.memory));
    let mut cf = SamplingContext::new(&af, n).expect("context");
    let mut cq = SamplingContext::new(&aq, n).expect("context");
    // Each animated translation or scale component is within half its own track's step (plus f32 rounding of
    // `min + q·step`); everything else is stored as in the f32 clip. A bias of half a step fails this.
    let clip_q = asset_q.clip(0).expect("clip");
    let Keys::Quantized { ranges, .. } = clip_q.keys() else { panic!("quantized keys") };
    let mut half_step = vec![[[0.0f32; 3]; 2]; n];
    let tracks = clip_q.animated_joints(Channel::Translation).iter().map(|&j| (j, 0));
    let tracks = tracks.chain(clip_q.animated_joints(Channel::Scale).iter().map(|&j| (j, 1)));
    for ((joint, channel), range) in tracks.zip(ranges) {
        half_step[joint as usize][channel] = range.step.map(|s| s / 2.0);
    }
    let mut worst_r = 0.0f32;
    let mut worst_steps = 0.0f32;
    for f in 0..frames {
        let time = f as f32 / 30.0;
        let a = sample(&asset_f, &mut cf, time, Playback::Clamp);
        let b = sample(&asset_q, &mut cq, time, Playback::Clamp);
        for (joint, (x, y)) in a.iter().zip(&b).enumerate() {
            for (channel, (p, q)) in [(x.translation, y.translation), (x.scale, y.scale)].into_iter().enumerate() {
                for (c, (p, q)) in [(p.x, q.x), (p.y, q.y), (p.z, q.z)].into_iter().enumerate() {
                    let bound = half_step[joint][channel][c] + 4.0 * f32::EPSILON * p.abs().max(1.0);
                    assert!((p - q).abs() <= bound, "frame {f} joint {joint} channel {channel}.{c}: {p} vs {q}");
                    if half_step[joint][channel][c] > 0.0 {
                        worst_steps = worst_steps.max((p - q).abs() / (2.0 * half_step[joint][channel][c]));
                    }
                }
            }
            worst_r = worst_r.max(rotation_angle_between(x.rotation, y.rotation) as f32);
        }
    }
    eprintln!("quantized: worst translation/scale error {worst_steps:.3} steps, rotation {worst_r:e} rad");
    assert!(worst_r <= sinew::clip::ROTATION_ANGLE_ERROR, "rotation error {worst_r:e} rad");
}

/// Angle in radians of the rotation taking `a` to `b`, in f64 (acos near 1 is too coarse in f32):
/// for unit quaternions at 4-D angle φ, |a − b| = 2 sin(φ / 2) and the rotation angle is 2φ.
fn rotation_angle_between(a: Quat, b: Quat) -> f64 {
    let (a, b) = ([a.x, a.y, a.z, a.w].map(f64::from), [b.x, b.y, b.z, b.w].map(f64::from));
    let sign = if a.iter().zip(&b).map(|(x, y)| x * y).sum::<f64>() < 0.0 { -1.0 } else { 1.0 };
    let chord = a.iter().zip(&b).map(|(x, y)| (x - sign * y).powi(2)).sum::<f64>().sqrt();
    4.0 * (chord / 2.0).min(1.0).asin()
}

#[test]
fn smallest_three_round_trips_within_its_precision() {
    let mut rng = Rng::new(33);
    let mut worst = 0.0f64;
    let count = if cfg!(miri) { 64 } else { 100_000 };
    for i in 0..count {
        let q = if i < 8 {
            // The axes and their negatives: the largest component in every slot, both signs.
            let mut v = [0.0; 4];
            v[i % 4] = if i < 4 { 1.0 } else { -1.0 };
            Quat::new(v[0], v[1], v[2], v[3])
        } else {
            rng.quat()
        };
        let d = decode_rotation(encode_rotation([q.x, q.y, q.z, q.w]));
        let back = Quat::new(d[0], d[1], d[2], d[3]);
        let angle = rotation_angle_between(back, q);
        assert!(angle <= sinew::clip::ROTATION_ANGLE_ERROR as f64, "{q:?}: {angle:e} rad");
        worst = worst.max(angle);
    }
    eprintln!("smallest-three: worst rotation error {worst:e} rad over {count} rotations");
}

#[test]
fn sampling_job_errors() {
    let mut rng = Rng::new(1);
    let (skeleton, clip) = random_clip(&mut rng, 5, 3);
    let blob = bake_one(&skeleton, &clip, KeyFormat::F32);
    let asset = Asset::load(blob.bytes()).expect("load");
    let clip = asset.clip(0).expect("clip");
    let mut memory = vec![0u8; 4096];
    let arena = Arena::new(&mut memory);
    let mut context = SamplingContext::new(&arena, 5).expect("context");
    let mut small = SamplingContext::new(&arena, 4).expect("context");
    let mut out = vec![SoaTransform::IDENTITY; 2];
    let skeleton = asset.skeleton();
    let run = |context: &mut SamplingContext<'_>, output: &mut [SoaTransform], time: f32| {
        SamplingJob { skeleton, clip: &clip, time, playback: Playback::Loop, context, output, curves: &mut [] }.run()
    };
    assert_eq!(run(&mut context, &mut out, 0.0), Ok(()));
    assert_eq!(
        run(&mut context, &mut out[..1], 0.0),
        Err(Error::BufferLength { buffer: Buffer::SoaPose, expected: 2, actual: 1 })
    );
    assert_eq!(
        run(&mut small, &mut out, 0.0),
        Err(Error::BufferLength { buffer: Buffer::SamplingContext, expected: 2, actual: 1 })
    );
    for time in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert_eq!(run(&mut context, &mut out, time), Err(Error::NonFinite { buffer: Buffer::SampleTime, index: 0 }));
    }
    // A clip made for another joint count.
    let (s3, c3) = random_clip(&mut rng, 3, 2);
    let blob3 = bake_one(&s3, &c3, KeyFormat::F32);
    let asset3 = Asset::load(blob3.bytes()).expect("load");
    let clip3 = asset3.clip(0).expect("clip");
    let job = SamplingJob {
        skeleton,
        clip: &clip3,
        time: 0.0,
        playback: Playback::Loop,
        context: &mut context,
        output: &mut out,
        curves: &mut [],
    };
    assert_eq!(job.validate(), Err(Error::BufferLength { buffer: Buffer::ClipJoints, expected: 5, actual: 3 }));
    // Context construction.
    assert_eq!(SamplingContext::new(&arena, 0).err(), Some(Error::JointCount { count: 0, max: 1024 }));
    let mut tiny = [0u8; 64];
    let tiny_arena = Arena::new(&mut tiny);
    assert!(matches!(SamplingContext::new(&tiny_arena, 5), Err(Error::ArenaExhausted { .. })));
    // Decoders for more tracks than a skeleton has are not reserved, and what is reserved is enough.
    for max_tracks in [0, 1, 14, 15, 16, 1000, usize::MAX] {
        let bytes = SamplingContext::required_bytes_with_decoders(5, max_tracks);
        assert_eq!(bytes, SamplingContext::required_bytes_with_decoders(5, max_tracks.min(15)), "{max_tracks}");
        let mut memory = vec![0u8; bytes];
        let arena = Arena::new(&mut memory);
        assert!(SamplingContext::with_decoders(&arena, 5, max_tracks).is_ok(), "{max_tracks} tracks in {bytes}");
    }
}

#[test]
fn track_runs_cover_whole_lane_groups_in_one_run() {
    let runs = |joints: &[u16]| sinew::clip::track_runs(joints).collect::<Vec<_>>();
    // Two whole groups, a lone joint, then a third group after a gap.
    assert_eq!(runs(&[0, 1, 2, 3, 4, 5, 6, 7, 9, 12, 13, 14, 15]), [(0, 8), (8, 1), (9, 4)]);
    // Not starting on a group: singles until one does; a group cut short stays singles.
    assert_eq!(runs(&[1, 2, 3, 4, 5, 6, 7, 8, 9]), [(0, 1), (1, 1), (2, 1), (3, 4), (7, 1), (8, 1)]);
    assert_eq!(runs(&[0, 1, 2]), [(0, 1), (1, 1), (2, 1)]);
    assert_eq!(runs(&[]), []);
    // A fully animated 1024-joint channel is one run.
    let all: Vec<u16> = (0..1024).collect();
    assert_eq!(runs(&all), [(0, 1024)]);
    let gap: Vec<u16> = (0..1024).filter(|&j| j != 515).collect();
    assert_eq!(runs(&gap), [(0, 512), (512, 1), (513, 1), (514, 1), (515, 508)]);
}

/// `Clip::track_extents` against the largest |component| of each track taken straight from the raw frames,
/// for both key formats (quantized: at least the raw value, at most the range's top).
#[test]
fn track_extents_bound_every_stored_value() {
    for &n in JOINT_COUNTS {
        let mut rng = Rng::new(0xE47 + n as u64);
        let (skeleton, raw) = random_clip(&mut rng, n, 6);
        let compressed = KeyFormat::Compressed(Precision { max_error: 1e-3, distance: 0.1 });
        // Under Miri the compression search (host code) takes minutes: one rig of two lane groups (one partial)
        // decodes compressed there.
        let formats = if cfg!(miri) && n != 5 { 2 } else { 3 };
        for format in [KeyFormat::F32, KeyFormat::Quantized, compressed].into_iter().take(formats) {
            let blob = bake::bake(&skeleton, std::slice::from_ref(&raw), format).expect("bake");
            let asset = Asset::load(blob.bytes()).expect("load");
            let clip = asset.clip(0).expect("clip");
            for channel in [Channel::Translation, Channel::Scale] {
                let mut extent = vec![-1.0f32; n];
                clip.track_extents(channel, &mut extent).expect("extents");
                for joint in 0..n {
                    let value = |t: &Transform| match channel {
                        Channel::Scale => t.scale,
                        _ => t.translation,
                    };
                    let largest = |t: &Transform| {
                        let v = value(t);
                        v.x.abs().max(v.y.abs()).max(v.z.abs())
                    };
                    let raw_max = raw.frames.iter().map(|f| largest(&f[joint])).fold(0.0f32, f32::max);
                    let stored = clip.animated_joints(channel).contains(&(joint as u16))
                        || clip.constants().iter().any(|c| c.joint as usize == joint && c.channel == channel as u16);
                    if !stored {
                        assert_eq!(
                            extent[joint], -1.0,
                            "{n} joints {format:?} {channel:?}: rest joint {joint} written"
                        );
                        continue;
                    }
                    let ok = match format {
                        KeyFormat::F32 => extent[joint] == raw_max,
                        KeyFormat::Quantized => {
                            extent[joint] >= raw_max * (1.0 - 1e-6) && extent[joint] <= raw_max * 1.01 + 1e-3
                        }
                        // The clip range, rounded to cover the largest value.
                        KeyFormat::Compressed(_) => {
                            extent[joint] >= raw_max && extent[joint] <= raw_max * (1.0 + 1e-6) + 1e-6
                        }
                    };
                    assert!(ok, "{n} joints {format:?} {channel:?} joint {joint}: {} vs raw {raw_max}", extent[joint]);
                }
            }
        }
    }
}

#[test]
fn constants_out_of_channel_and_joint_order_are_refused() {
    let constant =
        |joint: u16, channel: Channel| ConstantTrack { joint, channel: channel as u16, value: [0.0, 0.0, 0.0, 1.0] };
    let ordered =
        [constant(0, Channel::Translation), constant(2, Channel::Translation), constant(1, Channel::Rotation)];
    let ok = ClipParts { constants: &ordered, ..parts(Keys::F32(&[]), &[], [0; 3], 2) };
    assert!(Clip::new(ok).is_ok());
    let swapped = [ordered[1], ordered[0], ordered[2]];
    assert_eq!(
        Clip::new(ClipParts { constants: &swapped, ..ok }).err(),
        Some(Error::TrackOrder { joint: 0, channel: Channel::Translation as u16 })
    );
    let channel_first = [ordered[2], ordered[0], ordered[1]];
    assert_eq!(
        Clip::new(ClipParts { constants: &channel_first, ..ok }).err(),
        Some(Error::TrackOrder { joint: 0, channel: Channel::Translation as u16 })
    );
}

#[test]
fn the_first_group_alone_equals_the_sampling_job_bit_for_bit() {
    let mut rng = Rng::new(0x600D);
    for &n in JOINT_COUNTS {
        let (skeleton, clip) = random_clip(&mut rng, n, 9);
        for format in [KeyFormat::F32, KeyFormat::Quantized] {
            let blob = bake_one(&skeleton, &clip, format);
            let asset = Asset::load(blob.bytes()).expect("load");
            let mut sampler = Sampler::new(n);
            let arena = Arena::new(&mut sampler.memory);
            let mut context = SamplingContext::new(&arena, n).expect("context");
            let runtime_clip = asset.clip(0).expect("clip");
            let rest = asset.skeleton().rest_pose()[0];
            for _ in 0..if cfg!(miri) { 4 } else { 40 } {
                let time = rng.range(-0.5, 0.8);
                for playback in [Playback::Loop, Playback::Clamp] {
                    let full = sample(&asset, &mut context, time, playback);
                    let group = sinew::sampling::sample_first_group(&runtime_clip, &rest, time, playback);
                    let mut lanes = [Transform::IDENTITY; 4];
                    unpack_soa(std::slice::from_ref(&group), &mut lanes).expect("unpack");
                    for (j, (got, want)) in lanes.iter().zip(&full).enumerate() {
                        assert_eq!(got, want, "{n} joints, {format:?}, t {time}, {playback:?}: joint {j}");
                    }
                }
            }
        }
    }
}

/// The frame a clip with step keys shows at `time`, from the f64 clock: the last frame whose time has been
/// reached (looping or clamping as `playback` says). `None` within a millionth of a frame of a key, where
/// the runtime's snap decides.
fn held_frame(clip: &RawClip, time: f64, playback: Playback) -> Option<usize> {
    let last = (clip.frames.len() - 1) as f64;
    let x = time * clip.sample_rate as f64;
    let x = match playback {
        Playback::Clamp => x.clamp(0.0, last),
        Playback::Loop => x.rem_euclid(last),
    };
    let near_key = (x - x.round()).abs() < 1e-6 * (1.0 + x) && x > 0.0 && x < last;
    (!near_key).then_some(x.floor() as usize)
}

#[test]
fn step_keys_hold_each_frame_until_the_next_in_every_encoding() {
    let mut rng = Rng::new(0x57E9);
    let n = if cfg!(miri) { 22 } else { 67 };
    let frames = if cfg!(miri) { 5 } else { 37 };
    let (skeleton, mut clip) = random_clip(&mut rng, n, frames);
    clip.step = StepKeys::All;
    let mut blobs = vec![("f32", bake_one(&skeleton, &clip, KeyFormat::F32))];
    blobs.push(("quantized", bake_one(&skeleton, &clip, KeyFormat::Quantized)));
    // Under Miri the compressor's search alone takes minutes; the step is the sampler's, which every other
    // build checks on compressed keys too.
    if !cfg!(miri) {
        let precision = Precision::default_on_figure(&skeleton, std::slice::from_ref(&clip));
        blobs.push(("compressed", bake_one(&skeleton, &clip, KeyFormat::Compressed(precision))));
    }
    for (label, blob) in &blobs {
        let asset = Asset::load(blob.bytes()).expect("load");
        assert!(asset.clip(0).expect("clip").has_step_keys(), "{label}");
        let mut sampler = Sampler::new(n);
        let arena = Arena::new(&mut sampler.memory);
        let mut context = SamplingContext::new(&arena, n).expect("context");
        let duration = (frames - 1) as f64 / clip.sample_rate as f64;
        // Each frame, at its time and just before the next; then random times.
        let mut probes: Vec<(f64, Playback)> = (0..frames)
            .flat_map(|f| [f as f64, f as f64 + 0.999].map(|x| (x / clip.sample_rate as f64, Playback::Clamp)))
            .collect();
        probes.extend((0..if cfg!(miri) { 4 } else { 80 }).map(|i| {
            let playback = if i % 2 == 0 { Playback::Loop } else { Playback::Clamp };
            (rng.range(-1.5, 2.5) as f64 * duration, playback)
        }));
        for (time, playback) in probes {
            let Some(frame) = held_frame(&clip, time as f32 as f64, playback) else { continue };
            let pose = sample(&asset, &mut context, time as f32, playback);
            // The held frame as this encoding stores it: the same sampler at that frame's own time.
            let stored = sample(&asset, &mut context, (frame as f64 / clip.sample_rate as f64) as f32, Playback::Clamp);
            assert_eq!(pose, stored, "{label}: t = {time} ({playback:?}) holds frame {frame}");
            if *label == "f32" {
                let want: Vec<[f64; 10]> = clip.frames[frame].iter().map(|t| normalized(flatten(t))).collect();
                let err = max_error(&pose, &want);
                assert!(err < 1e-6, "f32: t = {time}: frame {frame} off by {err:e}");
            }
        }
    }
    // The same keys without steps interpolate between frames: the flag is what holds them.
    clip.step = StepKeys::None;
    let linear = bake_one(&skeleton, &clip, KeyFormat::F32);
    let asset = Asset::load(linear.bytes()).expect("load");
    let mut sampler = Sampler::new(n);
    let arena = Arena::new(&mut sampler.memory);
    let mut context = SamplingContext::new(&arena, n).expect("context");
    let mid = 1.5 / clip.sample_rate;
    assert_ne!(
        sample(&asset, &mut context, mid, Playback::Clamp),
        sample(&asset, &mut context, 1.0 / clip.sample_rate, Playback::Clamp)
    );
}

#[test]
fn step_tracks_hold_while_the_other_tracks_interpolate_in_every_encoding() {
    step_tracks_hold_while_the_others_interpolate(Interpolation::Linear);
}

#[test]
// Under Miri the linear variant checks the held lanes' select, and the other cubic tests the spline's memory.
#[cfg_attr(miri, ignore)]
fn step_tracks_hold_while_the_other_tracks_follow_the_spline_in_every_encoding() {
    step_tracks_hold_while_the_others_interpolate(Interpolation::Cubic);
}

fn step_tracks_hold_while_the_others_interpolate(interpolation: Interpolation) {
    let mut rng = Rng::new(0x5E1F);
    let n = if cfg!(miri) { 22 } else { 67 };
    let frames = if cfg!(miri) { 5 } else { 37 };
    let (skeleton, mut clip) = random_clip(&mut rng, n, frames);
    let channels: Vec<[bool; 3]> = (0..n).map(|_| [0; 3].map(|_| rng.range(0.0, 1.0) < 0.4)).collect();
    clip.step = StepKeys::Some { channels: channels.clone(), curves: false };
    let mut blobs = vec![("f32", bake_one(&skeleton, &clip, KeyFormat::F32))];
    blobs.push(("quantized", bake_one(&skeleton, &clip, KeyFormat::Quantized)));
    if !cfg!(miri) {
        let precision = Precision::default_on_figure(&skeleton, std::slice::from_ref(&clip));
        blobs.push(("compressed", bake_one(&skeleton, &clip, KeyFormat::Compressed(precision))));
    }
    let duration = (frames - 1) as f64 / clip.sample_rate as f64;
    // Under Miri, half way between frames only (the other probes take most of its minute).
    let offsets: &[f64] = if cfg!(miri) { &[0.5] } else { &[0.0, 0.5, 0.999] };
    let mut probes: Vec<(f64, Playback)> = (0..frames)
        .flat_map(|f| offsets.iter().map(move |x| ((f as f64 + x) / clip.sample_rate as f64, Playback::Clamp)))
        .collect();
    probes.extend((0..if cfg!(miri) { 4 } else { 80 }).map(|i| {
        let playback = if i % 2 == 0 { Playback::Loop } else { Playback::Clamp };
        (rng.range(-1.5, 2.5) as f64 * duration, playback)
    }));
    // Components of each channel in a flattened transform.
    let components = [0..3, 3..7, 7..10];
    for (label, blob) in &blobs {
        let asset = Asset::load(blob.bytes()).expect("load");
        let runtime_clip = asset.clip(0).expect("clip");
        assert!(!runtime_clip.has_step_keys() && !runtime_clip.step_tracks().is_empty(), "{label}");
        // The baked step tracks are the step channels the bake kept animated (a constant has nothing to hold).
        let animated = |j: usize, c: usize| runtime_clip.animated_joints(Channel::ALL[c]).contains(&(j as u16));
        let held: Vec<[bool; 3]> = (0..n).map(|j| [0, 1, 2].map(|c| channels[j][c] && animated(j, c))).collect();
        assert_eq!(StepKeys::of(&runtime_clip), StepKeys::Some { channels: held.clone(), curves: false }, "{label}");
        let mut sampler = Sampler::for_interpolation(n, interpolation);
        let arena = Arena::new(&mut sampler.memory);
        let mut context = SamplingContext::with_interpolation(&arena, n, 0, interpolation).expect("context");
        let rest = asset.skeleton().rest_pose()[0];
        for &(time, playback) in &probes {
            let Some(frame) = held_frame(&clip, time as f32 as f64, playback) else { continue };
            let pose = sample(&asset, &mut context, time as f32, playback);
            // A step channel shows its frame as this encoding stores it, bit for bit.
            let stored = sample(&asset, &mut context, (frame as f64 / clip.sample_rate as f64) as f32, Playback::Clamp);
            for (j, (got, kept)) in pose.iter().zip(&stored).enumerate() {
                let (got, kept) = (flatten(got), flatten(kept));
                for c in (0..3).filter(|&c| held[j][c]) {
                    let r = components[c].clone();
                    assert_eq!(got[r.clone()], kept[r], "{label}: t = {time} ({playback:?}): joint {j} channel {c}");
                }
            }
            // The other channels interpolate: f32 keys against the f64 reference, step channels held there.
            if *label == "f32" {
                let mut want = match interpolation {
                    Interpolation::Linear => reference(&clip, time as f32 as f64, playback),
                    Interpolation::Cubic => reference_cubic(&clip, time as f32 as f64, playback),
                };
                for (j, want) in want.iter_mut().enumerate() {
                    let held = normalized(flatten(&clip.frames[frame][j]));
                    for c in (0..3).filter(|&c| channels[j][c]) {
                        want[components[c].clone()].copy_from_slice(&held[components[c].clone()]);
                    }
                }
                let err = max_error(&pose, &want);
                assert!(err <= SAMPLE_TOLERANCE, "f32: t = {time} ({playback:?}): error {err:e}");
            }
            // The root-motion sampler (linear) holds the same lanes.
            if interpolation == Interpolation::Cubic {
                continue;
            }
            let group = sinew::sampling::sample_first_group(&runtime_clip, &rest, time as f32, playback);
            let mut lanes = [Transform::IDENTITY; 4];
            unpack_soa(std::slice::from_ref(&group), &mut lanes).expect("unpack");
            assert_eq!(lanes[..], pose[..4], "{label}: first group at t = {time}");
        }
    }
}

/// A cubic context over `memory` (sized by `Sampler::for_interpolation`).
fn cubic_context<'a>(arena: &'a Arena<'_>, n: usize) -> SamplingContext<'a> {
    SamplingContext::with_interpolation(arena, n, 0, Interpolation::Cubic).expect("context")
}

#[test]
fn cubic_sampling_matches_an_f64_catmull_rom_and_gives_the_keys_at_their_times() {
    let mut rng = Rng::new(0xC0B1C);
    // Under Miri (soft floats), a one-group and a two-group rig: the arithmetic is the same at every size.
    let counts = if cfg!(miri) { &[3, 5][..] } else { JOINT_COUNTS };
    for &n in counts {
        let frames = if cfg!(miri) { 4 } else { 40 };
        let (skeleton, clip) = random_clip(&mut rng, n, frames);
        let blob = bake_one(&skeleton, &clip, KeyFormat::F32);
        let asset = Asset::load(blob.bytes()).expect("load");
        let (mut cubic_memory, mut linear_memory) =
            (Sampler::for_interpolation(n, Interpolation::Cubic), Sampler::new(n));
        let (cubic_arena, linear_arena) = (Arena::new(&mut cubic_memory.memory), Arena::new(&mut linear_memory.memory));
        let mut cubic = cubic_context(&cubic_arena, n);
        let mut linear = SamplingContext::new(&linear_arena, n).expect("context");
        let duration = (frames - 1) as f32 / clip.sample_rate;
        let samples = if cfg!(miri) { 2 } else { 80 };
        // Random times, and the first and last intervals (where a clamped clip extrapolates a key).
        let ends = [0.3, 0.7, frames as f32 - 1.6, frames as f32 - 1.2].map(|x| x / clip.sample_rate);
        let times: Vec<f32> = (0..samples).map(|_| rng.range(-1.5 * duration, 2.5 * duration)).chain(ends).collect();
        // The same rotations stored with random signs: the spline must not care which sign a key has.
        let mut flipped = clip.clone();
        for frame in &mut flipped.frames {
            for t in frame.iter_mut().filter(|_| rng.below(2) == 0) {
                let q = t.rotation;
                t.rotation = Quat { x: -q.x, y: -q.y, z: -q.z, w: -q.w };
            }
        }
        let flipped_blob = bake_one(&skeleton, &flipped, KeyFormat::F32);
        let flipped_asset = Asset::load(flipped_blob.bytes()).expect("load");
        for (i, &time) in times.iter().enumerate() {
            for playback in [Playback::Loop, Playback::Clamp] {
                let want = reference_cubic(&clip, time as f64, playback);
                for asset in [&asset, &flipped_asset] {
                    let err = max_error(&sample(asset, &mut cubic, time, playback), &want);
                    assert!(err <= SAMPLE_TOLERANCE, "{n} joints, t = {time} ({playback:?}, {i}): error {err:e}");
                }
            }
        }
        for f in 0..frames {
            let time = f as f32 / clip.sample_rate;
            let want = sample(&asset, &mut linear, time, Playback::Clamp);
            assert_eq!(sample(&asset, &mut cubic, time, Playback::Clamp), want, "{n} joints, frame {f}");
        }
    }
}

#[test]
fn cubic_velocity_is_continuous_at_keys_where_linear_jumps() {
    let mut rng = Rng::new(0xC1);
    let (n, frames) = if cfg!(miri) { (4, 6) } else { (22, 30) };
    let (skeleton, clip) = random_clip(&mut rng, n, frames);
    let blob = bake_one(&skeleton, &clip, KeyFormat::F32);
    let asset = Asset::load(blob.bytes()).expect("load");
    let (mut cubic_memory, mut linear_memory) = (Sampler::for_interpolation(n, Interpolation::Cubic), Sampler::new(n));
    let (cubic_arena, linear_arena) = (Arena::new(&mut cubic_memory.memory), Arena::new(&mut linear_memory.memory));
    let mut contexts = [cubic_context(&cubic_arena, n), SamplingContext::new(&linear_arena, n).expect("context")];
    // One-sided velocities a hundredth of a frame either side of each inner key, translations and scales.
    let h = 0.01 / clip.sample_rate as f64;
    let jumps = contexts.each_mut().map(|context| {
        let mut worst = 0.0f64;
        for k in 1..frames - 1 {
            let key = k as f64 / clip.sample_rate as f64;
            let [before, at, after] =
                [key - h, key, key + h].map(|t| sample(&asset, context, t as f32, Playback::Clamp));
            for j in 0..n {
                let [b, a, f] = [&before[j], &at[j], &after[j]].map(flatten);
                for i in (0..3).chain(7..10) {
                    worst = worst.max(((f[i] - a[i]) - (a[i] - b[i])).abs() / h);
                }
            }
        }
        worst
    });
    let [cubic, linear] = jumps;
    assert!(linear > 0.1, "the random clip's velocity must jump at keys when interpolated linearly: {linear}");
    assert!(cubic < 0.05 * linear, "cubic velocity jump {cubic} against linear {linear}");
}

#[test]
fn cubic_playback_equals_seeks_bit_for_bit_and_decodes_each_frame_once_in_every_encoding() {
    let compressed = KeyFormat::Compressed(Precision { max_error: 1e-3, distance: 0.1 });
    let (n, frames) = if cfg!(miri) { (2, 17) } else { (67, 40) };
    // Under Miri (soft floats), the compressed clip alone, forward: its segment cache and the slots' decode in one
    // pass are what Miri checks.
    let formats = if cfg!(miri) { &[compressed][..] } else { &[KeyFormat::F32, KeyFormat::Quantized, compressed] };
    let (skeleton, clip) = random_clip(&mut Rng::new(0xC2), n, frames);
    for &format in formats {
        let blob = bake_one(&skeleton, &clip, format);
        let asset = Asset::load(blob.bytes()).expect("load");
        let bytes = SamplingContext::required_bytes_for(n, 3 * n, Interpolation::Cubic);
        let (mut memory, mut fresh_memory) = (vec![0u8; bytes + 64], vec![0u8; bytes + 64]);
        let arena = Arena::new(&mut memory);
        let mut playing = SamplingContext::with_interpolation(&arena, n, 3 * n, Interpolation::Cubic).expect("context");
        let steps = 2 * (frames - 1);
        let forward = (0..=steps).map(|i| (i as f32 / 60.0, Playback::Clamp));
        let backward = (0..=steps).rev().map(|i| (i as f32 / 60.0 + 0.25, Playback::Loop)).filter(|_| !cfg!(miri));
        for (i, (time, playback)) in forward.chain(backward).enumerate() {
            if i == steps + 1 {
                // Forward at 60 Hz over a 30 Hz clip: each frame decoded once.
                assert_eq!(playing.decoded_frames(), frames as u64, "{format:?}");
            }
            let fresh_arena = Arena::new(&mut fresh_memory);
            let mut fresh = cubic_context(&fresh_arena, n);
            let played = sample(&asset, &mut playing, time, playback);
            assert_eq!(played, sample(&asset, &mut fresh, time, playback), "{format:?}: t = {time} ({playback:?})");
        }
    }
}
