//! Non-uniform knots (textbook: keys "only where needed", and golden poses): a clip's frames chosen among its
//! source frames, more where the motion turns and fewer where it glides, so that it plays within an error bound
//! of its source; plus knots forced at golden times (a transition point, a contact) whose poses it then shows
//! exactly. The runtime finds a time's knots by binary search (`sinew::clip::Clip::with_knots`).
//!
//! The fit is greedy refinement: start from the ends and the golden times; while some source frame between two
//! knots is further than the bound from its source pose, add a knot at each such interval's worst frame. The
//! error is the one `clip_error` reports (virtual points in model space, f64), of the clip played as the runtime
//! will play it (`Interpolation::Linear` or the non-uniform Catmull-Rom spline of `Interpolation::Cubic`), here
//! modelled in f64; the result is then measured through the runtime itself.

use crate::clip_error::{ClipError, source_error};
use crate::dmath::{Trs, virtual_points};
use crate::raw::{Extras, RawClip, RawSkeleton, StepKeys, sample_frames};
use glam::{DQuat, DVec3};
use sinew::Interpolation;

/// A clip refitted on knots, its knot times (seconds) and its error against the source, measured through the
/// runtime.
#[derive(Clone, Debug)]
pub struct Fitted {
    pub clip: RawClip,
    pub knots: Vec<f32>,
    pub error: ClipError,
}

/// `clip` on the fewest knots this greedy refinement finds whose playback (`interpolation`) keeps virtual
/// points `distance` from each joint within `bound` of every source frame (file units), with a knot at each of
/// `golden` (seconds, within the clip). The knots' poses are the source's: its frames, or at a golden time
/// between frames its linear interpolation there.
///
/// Errors: a clip with step keys (its holds are already exact), fewer than two frames, a golden time outside
/// the clip or not finite, a bound that is not positive; a bake's.
pub fn fit_knots(
    skeleton: &RawSkeleton,
    clip: &RawClip,
    golden: &[f32],
    bound: f64,
    distance: f64,
    interpolation: Interpolation,
) -> Result<Fitted, String> {
    if clip.step != StepKeys::None {
        return Err(format!("clip `{}`: knots are fitted to interpolated clips; this one has step keys", clip.name));
    }
    if clip.frames.len() < 2 {
        return Err(format!("clip `{}`: knots need at least two frames", clip.name));
    }
    if !(bound.is_finite() && bound > 0.0) {
        return Err(format!("knot fit bound {bound}: give a positive number"));
    }
    let rate = f64::from(clip.sample_rate);
    let last = clip.frames.len() - 1;
    // Source frame times as the runtime holds them (f32 seconds).
    let frame_time = |f: usize| (f as f64 / rate) as f32;
    let duration = frame_time(last);
    let source: Vec<Vec<Trs>> = clip.frames.iter().map(|f| f.iter().map(Trs::of).collect()).collect();
    let at_frame = |f: usize, time: f32| Knot { time, pose: source[f].clone() };
    let mut knots: Vec<Knot> = vec![at_frame(0, 0.0), at_frame(last, duration)];
    for &time in golden {
        if !(time.is_finite() && (0.0..=duration).contains(&time)) {
            return Err(format!("clip `{}`: golden time {time} s lies outside 0..={duration} s", clip.name));
        }
        let x = f64::from(time) * rate;
        let nearest = (x.round() as usize).min(last);
        // A time that is a frame's (to f32) takes that frame; another a pose between frames.
        let knot = match frame_time(nearest) == time {
            true => at_frame(nearest, time),
            false => Knot { time, pose: sample_frames(&clip.frames, 1.0, x, &clip.step) },
        };
        insert(&mut knots, knot);
    }
    let targets: Vec<Vec<[DVec3; 4]>> =
        source.iter().map(|pose| virtual_points(&skeleton.parents, pose, distance)).collect();
    loop {
        let mut added = false;
        // Each interval's worst source frame, if it is over the bound.
        let mut worst: Vec<Option<(f64, usize)>> = vec![None; knots.len() - 1];
        for (f, target) in targets.iter().enumerate() {
            let time = frame_time(f);
            let after = knots.partition_point(|k| k.time <= time);
            if knots[after - 1].time == time {
                continue;
            }
            let interval = after - 1;
            let pose = play(&knots, interval, time, interpolation);
            let points = virtual_points(&skeleton.parents, &pose, distance);
            let error = points
                .iter()
                .zip(target)
                .flat_map(|(p, t)| (0..4).map(move |i| p[i].distance(t[i])))
                .fold(0.0, f64::max);
            if error > bound && worst[interval].is_none_or(|(e, _)| error > e) {
                worst[interval] = Some((error, f));
            }
        }
        for (_, f) in worst.into_iter().flatten() {
            insert(&mut knots, at_frame(f, frame_time(f)));
            added = true;
        }
        if !added {
            break;
        }
    }
    let fitted = RawClip {
        name: clip.name.clone(),
        sample_rate: clip.sample_rate,
        frames: knots.iter().map(|k| k.pose.iter().map(|t| t.to_transform()).collect()).collect(),
        step: StepKeys::None,
    };
    let times: Vec<f32> = knots.iter().map(|k| k.time).collect();
    let extras = Extras { knots: vec![Some(times.clone())], ..Default::default() };
    let blob = crate::bake::bake_with(skeleton, std::slice::from_ref(&fitted), crate::bake::KeyFormat::F32, &extras)?;
    let asset = crate::blob::asset(&blob)?;
    let error = source_error(skeleton, clip, &asset, 0, distance, interpolation)?;
    Ok(Fitted { clip: fitted, knots: times, error })
}

/// A knot: its time and its pose.
struct Knot {
    time: f32,
    pose: Vec<Trs>,
}

/// Adds `knot` in time order, unless a knot has its time already.
fn insert(knots: &mut Vec<Knot>, knot: Knot) {
    let at = knots.partition_point(|k| k.time < knot.time);
    if knots.get(at).is_none_or(|k| k.time != knot.time) {
        knots.insert(at, knot);
    }
}

/// The pose the runtime plays at `time` in knot interval `interval` (clamped playback), in f64: nlerp, or the
/// non-uniform Catmull-Rom spline with each end's missing key mirrored one interval out; rotations summed on the
/// hemisphere of the key before them (the key before the interval on that of the key after it), normalized.
fn play(knots: &[Knot], interval: usize, time: f32, interpolation: Interpolation) -> Vec<Trs> {
    let (k0, k1) = (&knots[interval], &knots[interval + 1]);
    let (t0, t1) = (f64::from(k0.time), f64::from(k1.time));
    let span = t1 - t0;
    let t = (f64::from(time) - t0) / span;
    if interpolation == Interpolation::Linear {
        return k0.pose.iter().zip(&k1.pose).map(|(a, b)| Trs::lerp(a, b, t)).collect();
    }
    let before = interval.checked_sub(1).map(|k| &knots[k]);
    let after = knots.get(interval + 2);
    let a = span / (t1 - before.map_or(t0 - span, |k| f64::from(k.time)));
    let b = span / (after.map_or(t1 + span, |k| f64::from(k.time)) - t0);
    let u = 1.0 - t;
    let w = [
        -a * t * u * u,
        u * u * (1.0 + 2.0 * t) + b * t * t * u,
        t * t * (3.0 - 2.0 * t) + a * t * u * u,
        -b * t * t * u,
    ];
    (0..k0.pose.len())
        .map(|j| {
            let (p0, p1) = (k0.pose[j], k1.pose[j]);
            // A missing end key is the mirror image `2 p0 − p1` (rotations on p0's hemisphere first).
            let pm = before.map_or_else(|| mirror(&p0, &p1), |k| k.pose[j]);
            let p2 = after.map_or_else(|| mirror(&p1, &p0), |k| k.pose[j]);
            let near = |q: DQuat, to: DQuat| if q.dot(to) < 0.0 { -q } else { q };
            let r1 = near(p1.rotation, p0.rotation);
            let (rm, r2) = (near(pm.rotation, p0.rotation), near(p2.rotation, r1));
            let sum3 = |v: [DVec3; 4]| v[0] * w[0] + v[1] * w[1] + v[2] * w[2] + v[3] * w[3];
            let rotation = rm * w[0] + p0.rotation * w[1] + r1 * w[2] + r2 * w[3];
            Trs {
                translation: sum3([pm.translation, p0.translation, p1.translation, p2.translation]),
                rotation: rotation.normalize(),
                scale: sum3([pm.scale, p0.scale, p1.scale, p2.scale]),
            }
        })
        .collect()
}

/// `2 a − b`, the key one interval out beyond `a` (rotations with `b` on `a`'s hemisphere first).
fn mirror(a: &Trs, b: &Trs) -> Trs {
    let rotation = if b.rotation.dot(a.rotation) < 0.0 { -b.rotation } else { b.rotation };
    Trs {
        translation: a.translation * 2.0 - b.translation,
        rotation: a.rotation * 2.0 - rotation,
        scale: a.scale * 2.0 - b.scale,
    }
}

/// The golden times of a clip's annotations: every marker and both ends of every range, sorted, each once.
pub fn golden_times(annotations: &crate::raw::RawAnnotations) -> Vec<f32> {
    let ranges = annotations.ranges.iter().flat_map(|r| [r.start, r.end]);
    let mut times: Vec<f32> = annotations.markers.iter().map(|m| m.time).chain(ranges).collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    times
}
