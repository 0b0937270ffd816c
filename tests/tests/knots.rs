//! Clips on non-uniform knots: sampled as an f64 spline through the knots says (linear, and the non-uniform
//! Catmull-Rom of cubic playback), C1 across unequal intervals, seeking equal to playing bit for bit in every key
//! format, golden poses shown exactly at their times, root motion stepped knot by knot, the fit within its bound,
//! and every bad knot table refused.

use sinew::asset::{ClipRecord, Header};
use sinew::clip::{ClipParts, Keys};
use sinew::math::{Quat, SoaTransform, Transform, Vec3};
use sinew::{Arena, Asset, Clip, Error, Interpolation, Playback, SamplingContext};
use sinew_tests::oracle::{Flat, flat, interpolate, max_relative_error};
use sinew_tests::{Rng, random_clip};
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::compress::Precision;
use sinew_tools::raw::{AlignedBlob, Extras, RawClip, RawSkeleton, StepKeys};

/// Relative error allowed against the f64 references (f32 keys, f32 weights and sums).
const TOLERANCE: f64 = 4e-6;

/// `clip` baked on `knots` in `format`.
fn bake_on(skeleton: &RawSkeleton, clip: &RawClip, knots: &[f32], format: KeyFormat) -> AlignedBlob {
    let extras = Extras { knots: vec![Some(knots.to_vec())], ..Default::default() };
    bake::bake_with(skeleton, std::slice::from_ref(clip), format, &extras).expect("bake on knots")
}

/// Random knot times for `frames` frames: intervals from 10 to 200 ms, so neighbours differ up to twentyfold.
fn random_knots(rng: &mut Rng, frames: usize) -> Vec<f32> {
    let mut time = 0.0f32;
    let mut knots = vec![0.0];
    for _ in 1..frames {
        time += rng.range(0.01, 0.2);
        knots.push(time);
    }
    knots
}

struct Sampler {
    memory: Vec<u8>,
}

impl Sampler {
    fn new(n: usize, interpolation: Interpolation) -> Sampler {
        Sampler { memory: vec![0; SamplingContext::required_bytes_for(n, 0, interpolation)] }
    }
}

fn context<'a>(arena: &'a Arena<'_>, n: usize, interpolation: Interpolation) -> SamplingContext<'a> {
    SamplingContext::with_interpolation(arena, n, 0, interpolation).expect("context")
}

use sinew_tests::sample_clip0 as sample;

/// The knot interval holding `time` (f64, looped or clamped), its first knot and the time within the clip.
fn locate(knots: &[f32], time: f64, playback: Playback) -> (usize, f64) {
    let last = f64::from(knots[knots.len() - 1]);
    let t = match playback {
        Playback::Clamp => time.clamp(0.0, last),
        Playback::Loop => time.rem_euclid(last),
    };
    let after = knots.iter().filter(|&&k| f64::from(k) <= t).count();
    (after.clamp(1, knots.len() - 1) - 1, t)
}

/// f64 reference of a clip on knots, written from the definitions: linear, the nlerp of the knots around the
/// time; cubic, the cubic Hermite segment whose end tangents are the non-uniform Catmull-Rom ones, `(p₊ − p₋) /
/// (t₊ − t₋)` over the neighbouring knots (at a clamped end the one-sided slope; a looping clip's neighbours
/// across the wrap, its last frame a copy of its first). Rotations on one hemisphere, normalized.
fn reference(clip: &RawClip, knots: &[f32], time: f64, playback: Playback, interpolation: Interpolation) -> Vec<Flat> {
    let (k, t) = locate(knots, time, playback);
    let times: Vec<f64> = knots.iter().map(|&x| f64::from(x)).collect();
    let (t0, t1) = (times[k], times[k + 1]);
    let u = (t - t0) / (t1 - t0);
    let last = knots.len() - 1;
    let wraps = playback == Playback::Loop && last >= 2;
    (0..clip.frames[0].len())
        .map(|j| {
            let key = |f: usize| flat(&clip.frames[f][j]);
            let (p0, p1) = (key(k), key(k + 1));
            if interpolation == Interpolation::Linear || u == 0.0 {
                return interpolate(&p0, &p1, u);
            }
            // Each key on the hemisphere of p0.
            let align = |mut v: Flat| {
                if (3..7).map(|i| v[i] * p0[i]).sum::<f64>() < 0.0 {
                    v[3..7].iter_mut().for_each(|c| *c = -*c);
                }
                v
            };
            let p1 = align(p1);
            let slope =
                |a: &Flat, ta: f64, b: &Flat, tb: f64| -> Flat { std::array::from_fn(|i| (b[i] - a[i]) / (tb - ta)) };
            let m0 = match k {
                0 if wraps => slope(&align(key(last - 1)), times[last - 1] - times[last], &p1, t1),
                0 => slope(&p0, t0, &p1, t1),
                _ => slope(&align(key(k - 1)), times[k - 1], &p1, t1),
            };
            let m1 = match k + 1 {
                f if f < last => slope(&p0, t0, &align(key(f + 1)), times[f + 1]),
                _ if wraps => slope(&p0, t0, &align(key(1)), times[last] + times[1]),
                _ => slope(&p0, t0, &p1, t1),
            };
            let span = t1 - t0;
            let (h00, h10, h01, h11) = (
                2.0 * u.powi(3) - 3.0 * u * u + 1.0,
                u.powi(3) - 2.0 * u * u + u,
                -2.0 * u.powi(3) + 3.0 * u * u,
                u.powi(3) - u * u,
            );
            let mut v: Flat =
                std::array::from_fn(|i| h00 * p0[i] + h10 * span * m0[i] + h01 * p1[i] + h11 * span * m1[i]);
            let len = v[3..7].iter().map(|c| c * c).sum::<f64>().sqrt();
            v[3..7].iter_mut().for_each(|c| *c /= len);
            v
        })
        .collect()
}

#[test]
fn clips_on_knots_match_an_f64_spline_through_their_knots() {
    let mut rng = Rng::new(0x4E075);
    let (n, frames) = if cfg!(miri) { (5, 5) } else { (9, 24) };
    let (skeleton, clip) = random_clip(&mut rng, n, frames);
    let knots = random_knots(&mut rng, frames);
    let blob = bake_on(&skeleton, &clip, &knots, KeyFormat::F32);
    let asset = Asset::load(blob.bytes()).expect("load");
    let on_knots = asset.clip(0).expect("clip");
    assert_eq!(on_knots.knots(), &knots[..]);
    assert_eq!(asset.clip_duration(0), Some(knots[frames - 1]));
    // Frame times: the knots, and past the last frame the duration; uniform frames at `f / rate`.
    assert!((0..frames).all(|f| on_knots.frame_time(f) == knots[f]));
    assert_eq!(on_knots.frame_time(frames + 3), knots[frames - 1]);
    let uniform = bake::bake(&skeleton, std::slice::from_ref(&clip), KeyFormat::F32).expect("bake");
    let uniform = Asset::load(uniform.bytes()).expect("load").clip(0).expect("clip");
    assert!(uniform.knots().is_empty() && (0..frames).all(|f| uniform.frame_time(f) == f as f32 / clip.sample_rate));
    let duration = knots[frames - 1];
    let samples = if cfg!(miri) { 3 } else { 150 };
    // Random times, the end intervals (a clamped end's mirrored key, a loop's wrap) and the knots themselves.
    let ends = [0.5 * knots[1], 0.5 * (knots[frames - 2] + duration)];
    let times: Vec<f32> =
        (0..samples).map(|_| rng.range(-1.5 * duration, 2.5 * duration)).chain(ends).chain(knots.clone()).collect();
    for interpolation in [Interpolation::Linear, Interpolation::Cubic] {
        let mut memory = Sampler::new(n, interpolation);
        let arena = Arena::new(&mut memory.memory);
        let mut context = context(&arena, n, interpolation);
        for &time in &times {
            for playback in [Playback::Loop, Playback::Clamp] {
                let want = reference(&clip, &knots, f64::from(time), playback, interpolation);
                let err = max_relative_error(&sample(&asset, &mut context, time, playback), &want);
                assert!(err <= TOLERANCE, "{interpolation:?}, t = {time} ({playback:?}): error {err:e}");
            }
        }
    }
}

#[test]
fn cubic_playback_on_knots_keeps_the_velocity_across_unequal_intervals() {
    let mut rng = Rng::new(0xC1);
    let (n, frames) = (6, 16);
    let (skeleton, clip) = random_clip(&mut rng, n, frames);
    // Intervals alternating 40 and 160 ms: every interior knot joins two intervals four times apart.
    let knots: Vec<f32> = (0..frames).map(|f| (f / 2) as f32 * 0.2 + (f % 2) as f32 * 0.04).collect();
    let blob = bake_on(&skeleton, &clip, &knots, KeyFormat::F32);
    let asset = Asset::load(blob.bytes()).expect("load");
    let h = 1e-3f32;
    let mut jumps = [0.0f64; 2];
    for (slot, interpolation) in [Interpolation::Linear, Interpolation::Cubic].into_iter().enumerate() {
        let mut memory = Sampler::new(n, interpolation);
        let arena = Arena::new(&mut memory.memory);
        let mut context = context(&arena, n, interpolation);
        let mut at = |t: f32| sample(&asset, &mut context, t, Playback::Clamp);
        for &knot in &knots[1..frames - 1] {
            let poses = [-2.0, -1.0, 0.0, 1.0, 2.0].map(|k| at(knot + k * h));
            // Translations: one-sided second-order differences either side of the knot, per component.
            let [m2, m1, p0, p1, p2] = poses.map(|pose| pose.iter().map(flat).collect::<Vec<Flat>>());
            for ((((m2, m1), p0), p1), p2) in m2.iter().zip(&m1).zip(&p0).zip(&p1).zip(&p2) {
                for c in 0..3 {
                    let left = (3.0 * p0[c] - 4.0 * m1[c] + m2[c]) / (2.0 * f64::from(h));
                    let right = (-3.0 * p0[c] + 4.0 * p1[c] - p2[c]) / (2.0 * f64::from(h));
                    jumps[slot] = jumps[slot].max((left - right).abs());
                }
            }
        }
    }
    let [linear, cubic] = jumps;
    // The differences carry `h² · |p'''| / 3` each; the linear jumps are the velocity changes themselves.
    assert!(cubic * 100.0 < linear, "velocity jump at knots: linear {linear:e}, cubic {cubic:e}");
}

#[test]
fn seeking_a_clip_on_knots_equals_playing_it_bit_for_bit_in_every_key_format() {
    let mut rng = Rng::new(0x5EE4);
    let (n, frames) = if cfg!(miri) { (5, 4) } else { (11, 40) };
    let (skeleton, clip) = random_clip(&mut rng, n, frames);
    let knots = random_knots(&mut rng, frames);
    let formats = [
        KeyFormat::F32,
        KeyFormat::Quantized,
        KeyFormat::Compressed(Precision::default_on_figure(&skeleton, std::slice::from_ref(&clip))),
    ];
    for format in formats {
        let blob = bake_on(&skeleton, &clip, &knots, format);
        let asset = Asset::load(blob.bytes()).expect("load");
        let duration = asset.clip_duration(0).expect("duration");
        let steps = if cfg!(miri) { 6 } else { (duration * 60.0) as usize + 2 };
        for interpolation in [Interpolation::Linear, Interpolation::Cubic] {
            let (mut playing, mut seeking) = (Sampler::new(n, interpolation), Sampler::new(n, interpolation));
            let arena = Arena::new(&mut playing.memory);
            let mut player = context(&arena, n, interpolation);
            for k in 0..steps {
                let time = k as f32 / 60.0;
                let played = sample(&asset, &mut player, time, Playback::Loop);
                let arena = Arena::new(&mut seeking.memory);
                let sought = sample(&asset, &mut context(&arena, n, interpolation), time, Playback::Loop);
                assert_eq!(
                    played,
                    sought,
                    "{:?} keys, {interpolation:?}, t = {time}",
                    asset.clip(0).map(|c| c.encoding())
                );
            }
        }
    }
}

#[test]
fn a_fit_keeps_its_bound_and_shows_golden_poses_exactly() {
    let Some(dir) = sinew_tests::shared_data("knots") else { return };
    let path = dir.join("bvh/cmu/01_01.bvh");
    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[path]).expect("import");
    let clip = &clips[0];
    let per_cm = sinew_tools::annotate::figure_scale(&skeleton, &clips).units_per_cm();
    let (bound, distance) = (0.5 * per_cm, 3.0 * per_cm);
    let rate = f64::from(clip.sample_rate);
    // Two golden times on source frames and one between frames.
    let on_grid = [(400.0 / rate) as f32, (1234.0 / rate) as f32];
    let between = ((2000.0 + 0.37) / rate) as f32;
    let golden = [on_grid[0], on_grid[1], between];
    let uniform = bake::bake(&skeleton, std::slice::from_ref(clip), KeyFormat::F32).expect("bake uniform");
    let uniform = Asset::load(uniform.bytes()).expect("load uniform");
    let mut knot_counts = Vec::new();
    for interpolation in [Interpolation::Linear, Interpolation::Cubic] {
        let fit = sinew_tools::knots::fit_knots(&skeleton, clip, &golden, bound, distance, interpolation).expect("fit");
        knot_counts.push(fit.knots.len());
        // Measured through the runtime against every source frame; the fit models f32 playback in f64.
        assert!(fit.error.max <= bound * 1.01, "{interpolation:?}: {} cm over 0.5 cm", fit.error.max / per_cm);
        assert_eq!(fit.error.samples, clip.frames.len());
        assert!(golden.iter().all(|g| fit.knots.contains(g)), "{interpolation:?}: golden times missing from the knots");
        assert!(fit.knots.len() * 2 < clip.frames.len(), "{interpolation:?}: {} knots", fit.knots.len());
        let blob = bake_on(&skeleton, &fit.clip, &fit.knots, KeyFormat::F32);
        let asset = Asset::load(blob.bytes()).expect("load");
        let n = skeleton.parents.len();
        let mut memories = [Interpolation::Linear, Interpolation::Cubic].map(|i| Sampler::new(n, i));
        let [linear_memory, cubic_memory] = &mut memories;
        let (linear_arena, cubic_arena) = (Arena::new(&mut linear_memory.memory), Arena::new(&mut cubic_memory.memory));
        let mut linear = context(&linear_arena, n, Interpolation::Linear);
        let mut cubic = context(&cubic_arena, n, Interpolation::Cubic);
        let mut uniform_memory = Sampler::new(n, Interpolation::Linear);
        let uniform_arena = Arena::new(&mut uniform_memory.memory);
        let mut uniform_context = context(&uniform_arena, n, Interpolation::Linear);
        for &time in &golden {
            let shown = sample(&asset, &mut linear, time, Playback::Clamp);
            assert_eq!(sample(&asset, &mut cubic, time, Playback::Clamp), shown, "t = {time}: the key, in both modes");
            if on_grid.contains(&time) {
                // The source frame's own keys, as the uniform clip shows them at their time.
                let source = sample(&uniform, &mut uniform_context, time, Playback::Clamp);
                assert_eq!(shown, source, "{interpolation:?}: golden pose at {time} s");
            } else {
                let want = sinew_tests::oracle::sample(&clip.frames, rate, f64::from(time));
                let err = max_relative_error(&shown, &want);
                assert!(err <= TOLERANCE, "{interpolation:?}: golden pose between frames at {time} s: error {err:e}");
            }
        }
    }
    // The spline follows the source between knots more closely, so it needs fewer.
    assert!(knot_counts[1] < knot_counts[0], "knots: linear {}, cubic {}", knot_counts[0], knot_counts[1]);
}

fn header(blob: &mut AlignedBlob) -> &mut Header {
    bytemuck::from_bytes_mut(&mut blob.bytes_mut()[..sinew::asset::HEADER_LEN])
}

fn record(blob: &mut AlignedBlob) -> &mut ClipRecord {
    let offset = header(blob).clips.offset as usize;
    bytemuck::from_bytes_mut(&mut blob.bytes_mut()[offset..offset + 64])
}

/// The knot table of clip 0, in place.
fn knot_table(blob: &mut AlignedBlob) -> &mut [f32] {
    let r = *record(blob);
    let start = (r.ranges.offset + r.ranges.len).next_multiple_of(16) as usize;
    bytemuck::cast_slice_mut(&mut blob.bytes_mut()[start..start + 4 * r.num_frames as usize])
}

#[test]
fn bad_knot_tables_are_refused() {
    let mut rng = Rng::new(0xBAD);
    let (skeleton, clip) = random_clip(&mut rng, 5, 6);
    let knots = random_knots(&mut rng, 6);
    let good = bake_on(&skeleton, &clip, &knots, KeyFormat::Quantized);
    assert!(Asset::load(good.bytes()).is_ok());
    let corrupt = |index: usize, value: f32| {
        let mut blob = good.clone();
        knot_table(&mut blob)[index] = value;
        Asset::load(blob.bytes()).expect_err("bad knots load")
    };
    assert_eq!(corrupt(0, 0.01), Error::InvalidKnots { index: 0 });
    assert_eq!(corrupt(3, knots[2]), Error::InvalidKnots { index: 3 });
    assert_eq!(corrupt(2, f32::NAN), Error::InvalidKnots { index: 2 });
    assert_eq!(corrupt(5, f32::INFINITY), Error::InvalidKnots { index: 5 });
    assert_eq!(corrupt(5, 1e9), Error::InvalidKnots { index: 5 });
    // A version 7 blob cannot have knots.
    let mut old = good.clone();
    header(&mut old).version = 7;
    assert!(matches!(Asset::load(old.bytes()), Err(Error::Blob { .. })));
    // A knot table past the blob's end.
    let mut long = good.clone();
    record(&mut long).num_frames = 1 << 20;
    assert!(Asset::load(long.bytes()).is_err());
    // An unknown encoding bit.
    let mut unknown = good.clone();
    record(&mut unknown).encoding |= 0x400;
    assert!(matches!(Asset::load(unknown.bytes()), Err(Error::Blob { .. })));
    // A phase table is per uniform frame: the bake refuses one on a clip on knots.
    let phase = sinew_tools::raw::RawPhase {
        forward: (0..6).map(|f| f as f32 / 6.0).collect(),
        inverse: vec![0.0, knots[5]],
        per_stride: 1,
        center: 0.0,
        amplitude: 1.0,
        feet: [1, 2],
        flags: 0,
    };
    let extras = Extras { knots: vec![Some(knots.clone())], phases: vec![Some(phase)], ..Default::default() };
    let refused = bake::bake_with(&skeleton, std::slice::from_ref(&clip), KeyFormat::F32, &extras);
    assert!(refused.is_err_and(|e| e.contains("on knots")));
    // The bake refuses a table of another length.
    let extras = Extras { knots: vec![Some(knots[..5].to_vec())], ..Default::default() };
    assert!(bake::bake_with(&skeleton, std::slice::from_ref(&clip), KeyFormat::F32, &extras).is_err());
    // And the clip view a wrong count.
    let keys = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let parts = ClipParts {
        num_joints: 4,
        sample_rate: 30.0,
        num_frames: 2,
        constants: &[],
        track_joints: &[1],
        num_tracks: [0, 1, 0],
        keys: Keys::F32(&keys),
    };
    let clip = Clip::new(parts).expect("clip");
    assert_eq!(clip.with_knots(&[0.0]).err(), Some(Error::InvalidKnots { index: 1 }));
    assert_eq!(clip.with_knots(&[0.0, -1.0]).err(), Some(Error::InvalidKnots { index: 1 }));
    assert_eq!(clip.with_knots(&[0.0, 0.5]).map(|c| c.duration()), Ok(0.5));
}

#[test]
fn root_motion_over_knots_unwraps_every_turn_between_them() {
    // A motion root turning 150° a knot, four knots a second on a clip whose rate says 1 Hz: stepping at the rate
    // would see one 600° turn as −120°.
    let skeleton = RawSkeleton {
        names: vec![sinew::root_motion::MOTION_ROOT.into(), "hips".into()],
        parents: vec![-1, 0],
        rest: vec![Transform::IDENTITY; 2],
    };
    let turn = 150f32.to_radians();
    let frames = (0..5)
        .map(|k| {
            let rotation = Quat::from_axis_angle(Vec3::new(0.0, 1.0, 0.0), k as f32 * turn);
            vec![
                Transform { translation: Vec3::new(k as f32, 0.0, 0.0), rotation, scale: Vec3::ONE },
                Transform::IDENTITY,
            ]
        })
        .collect();
    let clip = RawClip { name: "spin".into(), sample_rate: 1.0, frames, step: StepKeys::None };
    let blob = bake_on(&skeleton, &clip, &[0.0, 0.25, 0.5, 0.75, 1.0], KeyFormat::F32);
    let asset = Asset::load(blob.bytes()).expect("load");
    let (clip, rest) = (asset.clip(0).expect("clip"), asset.skeleton().rest_pose()[0]);
    let moved = sinew::root_motion::motion_between(&clip, &rest, 0.0, 1.0);
    assert!((moved.yaw - 4.0 * turn).abs() < 1e-4, "turned {}°", moved.yaw.to_degrees());
    // Within an interval the turn is the nlerp's: at `u`, `2 atan2(u sin(θ/2), 1 − u + u cos(θ/2))`.
    let nlerp_angle = |u: f64| {
        let half = f64::from(turn) / 2.0;
        2.0 * (u * half.sin()).atan2(1.0 - u + u * half.cos())
    };
    let want = -(3.0 * f64::from(turn) + nlerp_angle(0.6) - nlerp_angle(0.4));
    let back = sinew::root_motion::motion_between(&clip, &rest, 0.9, 0.1);
    assert!(
        (f64::from(back.yaw) - want).abs() < 1e-4,
        "turned back {}°, not {}°",
        back.yaw.to_degrees(),
        want.to_degrees()
    );
}

#[test]
fn the_c_abi_loads_times_lists_and_samples_a_clip_on_knots_as_the_core_does() {
    use sinew::character::Chunk;
    use sinew_ffi::*;
    let mut rng = Rng::new(0xCAB1);
    let (n, frames) = (7, 9);
    let (skeleton, clip) = random_clip(&mut rng, n, frames);
    let knots = random_knots(&mut rng, frames);
    let blob = bake_on(&skeleton, &clip, &knots, KeyFormat::Quantized);
    let core = Asset::load(blob.bytes()).expect("load");
    let mut asset = std::mem::MaybeUninit::<sinew_asset>::uninit();
    let mut duration = 0.0f32;
    // SAFETY: valid pointers; the blob outlives the asset.
    let asset = unsafe {
        assert_eq!(sinew_asset_load(blob.bytes().as_ptr(), blob.bytes().len(), asset.as_mut_ptr()), SINEW_OK);
        asset.assume_init()
    };
    // SAFETY: valid pointers.
    assert_eq!(unsafe { sinew_asset_clip_duration(&asset, 0, &mut duration) }, SINEW_OK);
    assert_eq!(duration, knots[frames - 1]);
    let (mut times, mut count) = (std::ptr::null(), 0u32);
    // SAFETY: valid pointers; the times point into the blob, which outlives them here.
    unsafe {
        assert_eq!(sinew_asset_clip_knots(&asset, 0, &mut times, &mut count), SINEW_OK);
        assert_eq!(std::slice::from_raw_parts(times, count as usize), &knots[..]);
        assert_eq!(sinew_asset_clip_knots(&asset, 1, &mut times, &mut count), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        assert_eq!(sinew_asset_clip_knots(&asset, 0, std::ptr::null_mut(), &mut count), SINEW_ERROR_NULL_POINTER);
    }
    let groups = core.skeleton().num_soa_joints();
    for (interpolation, code) in
        [(Interpolation::Linear, SINEW_INTERPOLATION_LINEAR), (Interpolation::Cubic, SINEW_INTERPOLATION_CUBIC)]
    {
        let mut len = 0;
        let mut out = std::ptr::null_mut();
        // SAFETY: valid pointers.
        unsafe { assert_eq!(sinew_sampling_context_required_bytes_for(n as u32, 0, code, &mut len), SINEW_OK) };
        let mut memory = vec![Chunk::ZERO; Chunk::count(len)];
        // SAFETY: `memory` holds `len` bytes, 64-byte aligned.
        unsafe {
            assert_eq!(
                sinew_sampling_context_init_for(memory.as_mut_ptr().cast(), len, n as u32, 0, code, &mut out),
                SINEW_OK
            );
        }
        let mut rust = Sampler::new(n, interpolation);
        let arena = Arena::new(&mut rust.memory);
        let mut rust_context = context(&arena, n, interpolation);
        for k in 0..40 {
            let time = k as f32 * duration / 23.0;
            let mut pose = vec![SoaTransform::IDENTITY; groups];
            // SAFETY: `pose` holds `groups` lane groups, laid out as the C type (asserted in the FFI crate).
            let status = unsafe {
                sinew_sample(
                    &asset,
                    0,
                    time,
                    SINEW_WRAP_LOOP,
                    out,
                    pose.as_mut_ptr().cast(),
                    groups,
                    std::ptr::null_mut(),
                    0,
                )
            };
            assert_eq!(status, SINEW_OK);
            let mut aos = vec![Transform::IDENTITY; n];
            sinew::math::unpack_soa(&pose, &mut aos).expect("unpack");
            assert_eq!(aos, sample(&core, &mut rust_context, time, Playback::Loop), "{interpolation:?}, t = {time}");
        }
    }
    // A bad knot table is a corrupt blob for C too.
    let mut bad = blob.clone();
    knot_table(&mut bad)[1] = 0.0;
    let mut refused = std::mem::MaybeUninit::<sinew_asset>::uninit();
    // SAFETY: valid pointers.
    let status = unsafe { sinew_asset_load(bad.bytes().as_ptr(), bad.bytes().len(), refused.as_mut_ptr()) };
    assert_eq!(status, SINEW_ERROR_BLOB_CORRUPT);
}
