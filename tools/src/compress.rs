//! The compressed clip encoder: per segment and track, the fewest bits that keep every virtual point within
//! the error bound (the format is `sinew::clip::CompressedKeys`).
//!
//! The search, per segment of `SEGMENT_FRAMES` frames:
//! 1. Each rotation track drops the quaternion component whose smallest magnitude over the segment is largest
//!    (never near zero, so rebuilding it loses little), each frame's sign chosen to make it positive.
//! 2. Each track starts at the fewest bits (the same for its three components) whose own error, measured at
//!    its reach (the virtual-point distance plus the farthest descendant in the rest pose), stays within the
//!    bound.
//! 3. Then the whole hierarchy is composed in f64 at every frame of the segment: while a virtual point is
//!    farther than the bound from its raw position, the track on that joint's chain contributing most there
//!    gives its coarsest component one more bit.
//! 4. Last, every component, most bits first, gives back bits while the bound holds.
//!
//! Measured on the Bandai walk (30 Hz) and CMU 01_01 (120 Hz) at 0.05 cm: one bit rate per track instead of
//! per component gave 10.9 and 18.3 : 1 instead of 12.2 and 21.2; without step 4, 10.6 and 17.5; segments of
//! 8, 12 or 32 frames within 5 % of 16; starting step 2 at a quarter, half or four times the bound within 4 %.
//!
//! Values decode through `TrackDecoder::decode`, the runtime's own function, so the search measures what
//! sampling returns. The caller checks the whole clip afterwards (frames and midpoints, through `SamplingJob`).

use crate::dmath::Trs;
use crate::dmath::{compose, virtual_points};
use crate::raw::{RawClip, RawSkeleton};
use glam::{DMat4, DQuat, DVec3};
use sinew::clip::{
    COMPRESSED_SLACK, Channel, CurveDecoder, MAX_BITS, MIN_KEY_MAGNITUDE, SEGMENT_FRAMES, SEGMENT_TRACK_BYTES,
    SegmentTrack, TrackDecoder, TrackRange,
};

/// What the search must keep: the largest distance between a raw and a decoded virtual point, and the
/// points' distance from their joint, both in file units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Precision {
    pub max_error: f64,
    pub distance: f64,
}

/// `sinew-bake --compress`'s error bound when `--max-error` is not given: centimetres on the figure scaled to
/// 1.7 m: the bound of ACL's published CMU figures and of the side-by-side comparison (`cargo xtask peer`).
pub const DEFAULT_MAX_ERROR_CM: f64 = 0.05;

impl Precision {
    /// `sinew-bake --compress`'s defaults on the figure of `skeleton` playing `clips`: [`DEFAULT_MAX_ERROR_CM`]
    /// at virtual points [`crate::dmath::DEFAULT_DISTANCE_CM`] from each joint.
    pub fn default_on_figure(skeleton: &RawSkeleton, clips: &[RawClip]) -> Precision {
        Precision::on_figure(skeleton, clips, DEFAULT_MAX_ERROR_CM, crate::dmath::DEFAULT_DISTANCE_CM)
    }

    /// `max_error_cm` at virtual points `distance_cm` from each joint, centimetres on the figure of `skeleton`
    /// playing `clips`, scaled to 1.7 m (as `clip_error` reports; see [`crate::annotate::figure_height`] for
    /// the height and [`crate::annotate::FigureScale`] for a figure without one).
    pub fn on_figure(skeleton: &RawSkeleton, clips: &[RawClip], max_error_cm: f64, distance_cm: f64) -> Precision {
        Precision::at_scale(crate::annotate::figure_scale(skeleton, clips), max_error_cm, distance_cm)
    }

    /// `max_error_cm` at virtual points `distance_cm` from each joint, on a figure of scale `scale`.
    pub fn at_scale(scale: crate::annotate::FigureScale, max_error_cm: f64, distance_cm: f64) -> Precision {
        let per_cm = scale.units_per_cm();
        Precision { max_error: max_error_cm * per_cm, distance: distance_cm * per_cm }
    }
}

/// A compressed clip's two sections.
#[derive(Clone, Debug, Default)]
pub struct Compressed {
    pub data: Vec<u8>,
    pub ranges: Vec<TrackRange>,
}

/// One animated track's values per frame (`w = 0` for translation and scale).
struct Track {
    channel: Channel,
    joint: usize,
    values: Vec<[f32; 4]>,
}

/// A track's value at one frame: `bake`'s, rotations normalized (the dropped component is rebuilt for a unit
/// quaternion).
fn value_of(t: &sinew::math::Transform, channel: Channel) -> [f32; 4] {
    let v = crate::raw::channel_value(t, channel);
    if channel != Channel::Rotation {
        return v;
    }
    let len = v.iter().map(|c| c * c).sum::<f32>().sqrt();
    v.map(|c| c / len)
}

/// Compresses the animated tracks `animated[channel]` (joints ascending, as the clip lists them) of `clip`,
/// writing only those of the joints `stored` marks (all when `None`): a chunk of a clip split by bone masks
/// keeps the bits and ranges the whole clip's search chose for its tracks, so it decodes them bit for bit as
/// the whole clip does.
///
/// Errors: a bound or distance that is not finite and positive (distance: non-negative).
pub fn compress(
    skeleton: &RawSkeleton,
    clip: &RawClip,
    animated: &[Vec<u16>; 3],
    precision: Precision,
    stored: Option<&[bool]>,
) -> Result<Compressed, String> {
    let Precision { max_error, distance } = precision;
    if !(max_error.is_finite() && max_error > 0.0) {
        return Err(format!("the error bound must be finite and > 0, not {max_error}"));
    }
    if !(distance.is_finite() && distance >= 0.0) {
        return Err(format!("the virtual-point distance must be finite and >= 0, not {distance}"));
    }
    let frames = clip.frames.len();
    let mut tracks: Vec<Track> = Vec::new();
    for channel in Channel::ALL {
        for &joint in &animated[channel as usize] {
            let joint = joint as usize;
            let values = clip.frames.iter().map(|f| value_of(&f[joint], channel)).collect();
            tracks.push(Track { channel, joint, values });
        }
    }
    let segments = frames.div_ceil(SEGMENT_FRAMES);
    // Step 1: the dropped component per rotation track and segment, and the signs that make it positive.
    let mut dropped = vec![vec![0usize; tracks.len()]; segments];
    for (k, track) in tracks.iter_mut().enumerate() {
        if track.channel != Channel::Rotation {
            continue;
        }
        for (s, chosen) in dropped.iter_mut().enumerate() {
            let span = &mut track.values[s * SEGMENT_FRAMES..((s + 1) * SEGMENT_FRAMES).min(frames)];
            let smallest = |i: usize| span.iter().map(|q| q[i].abs()).fold(f32::INFINITY, f32::min);
            let best = (0..4).max_by(|&a, &b| smallest(a).total_cmp(&smallest(b))).unwrap_or(0);
            chosen[k] = best;
            for q in span.iter_mut() {
                if q[best] < 0.0 {
                    *q = q.map(|v| -v);
                }
            }
        }
    }
    let ranges: Vec<TrackRange> = tracks.iter().map(track_range).collect();
    if let Some(k) = ranges.iter().position(|r| r.min.iter().zip(&r.extent).any(|(m, e)| !(m + e).is_finite())) {
        let (joint, channel) = (tracks[k].joint, tracks[k].channel);
        return Err(format!("joint {joint} {channel:?}: its values' range exceeds what f32 holds"));
    }

    let subtree = subtrees(&skeleton.parents);
    let reach = reaches(skeleton, &subtree, distance);
    let hierarchy = Hierarchy { skeleton, subtree: &subtree, reach: &reach };
    let keep: Vec<bool> = tracks.iter().map(|t| stored.is_none_or(|stored| stored[t.joint])).collect();
    let (kept_tracks, kept_ranges) = (kept(tracks.iter().collect(), &keep), kept(ranges.clone(), &keep));
    let mut data = vec![0u8; 8 * segments];
    for (s, dropped) in dropped.iter().enumerate() {
        let span = s * SEGMENT_FRAMES..((s + 1) * SEGMENT_FRAMES).min(frames);
        let formats = search(&hierarchy, clip, &tracks, &ranges, dropped, span.clone(), precision);
        write_segment(&mut data, s, span, &kept_tracks, &kept_ranges, &kept(formats, &keep));
    }
    finish(data, kept_ranges, &clip.name)
}

/// The items whose `keep` entry is set.
fn kept<T>(items: Vec<T>, keep: &[bool]) -> Vec<T> {
    items.into_iter().zip(keep).filter(|(_, k)| **k).map(|(item, _)| item).collect()
}

/// Compresses a clip's scalar curves (`values[k]`: curve `k`'s value at each frame) as one-component tracks
/// (`sinew::clip::CurveKeys`): per segment, each curve gets the fewest bits that keep its decoded value within
/// `precision[k]` of `values[k]` at every frame (so between frames too, sampling interpolating linearly).
///
/// Errors: a precision that is not finite and positive, curves of different lengths, a curve whose range
/// exceeds what `f32` holds, or one whose precision is finer than `MAX_BITS` bits resolve over its range.
pub fn compress_curves(clip: &str, values: &[Vec<f32>], precision: &[f32]) -> Result<Compressed, String> {
    let frames = values.first().map_or(0, Vec::len);
    if values.len() != precision.len() || values.iter().any(|v| v.len() != frames) {
        return Err(format!("clip `{clip}`: curves and precisions of different counts or lengths"));
    }
    if let Some(p) = precision.iter().find(|p| !(p.is_finite() && **p > 0.0)) {
        return Err(format!("clip `{clip}`: a curve precision must be finite and > 0, not {p}"));
    }
    let tracks: Vec<Track> = values
        .iter()
        .map(|v| Track {
            channel: Channel::Translation,
            joint: 0,
            values: v.iter().map(|&x| [x, 0.0, 0.0, 0.0]).collect(),
        })
        .collect();
    let ranges: Vec<TrackRange> = tracks.iter().map(track_range).collect();
    if let Some(k) = ranges.iter().position(|r| !(r.min[0] + r.extent[0]).is_finite()) {
        return Err(format!("clip `{clip}`: curve {k}: its values' range exceeds what f32 holds"));
    }
    let segments = frames.div_ceil(SEGMENT_FRAMES);
    let mut data = vec![0u8; 8 * segments];
    for s in 0..segments {
        let span = s * SEGMENT_FRAMES..((s + 1) * SEGMENT_FRAMES).min(frames);
        let mut formats = Vec::with_capacity(tracks.len());
        for (k, (track, range)) in tracks.iter().zip(&ranges).enumerate() {
            let mut format = segment_format(range, track, 0, span.clone());
            loop {
                // Quantized as the track it is stored as, measured through the runtime's curve decode.
                let decoder = format.decoder(range, false, 0);
                let curve = CurveDecoder::new(&format.to_bytes(), range, 0);
                let error = |f: usize| {
                    let decoded = curve.decode(levels(&format, &decoder, track, f)[0]);
                    (f64::from(decoded) - f64::from(track.values[f][0])).abs()
                };
                if span.clone().all(|f| error(f) <= f64::from(precision[k])) {
                    break;
                }
                if format.bits[0] == MAX_BITS {
                    return Err(format!(
                        "clip `{clip}`: curve {k}: precision {} is finer than {MAX_BITS} bits resolve over its range",
                        precision[k]
                    ));
                }
                format.bits[0] += 1;
            }
            formats.push(format);
        }
        write_segment(&mut data, s, span, &tracks.iter().collect::<Vec<_>>(), &ranges, &formats);
    }
    finish(data, ranges, clip)
}

/// Appends segment `s` (frames `span`) to `data`: its `(offset, frame bits)` entry in the table at the start,
/// its track table, then its frames' bits under `formats`, one per track.
fn write_segment(
    data: &mut Vec<u8>,
    s: usize,
    span: std::ops::Range<usize>,
    tracks: &[&Track],
    ranges: &[TrackRange],
    formats: &[SegmentTrack],
) {
    let frame_bits: usize = formats.iter().map(|f| f.frame_bits() as usize).sum();
    let offset = data.len();
    data[8 * s..8 * s + 4].copy_from_slice(&(offset as u32).to_le_bytes());
    data[8 * s + 4..8 * s + 8].copy_from_slice(&(frame_bits as u32).to_le_bytes());
    // The table as rows: row r holds byte r of every track's entry (see `SegmentTrack::entry`).
    let entries: Vec<_> = formats.iter().map(SegmentTrack::to_bytes).collect();
    for r in 0..SEGMENT_TRACK_BYTES {
        data.extend(entries.iter().map(|entry| entry[r]));
    }
    let decoders: Vec<TrackDecoder> = (formats.iter().zip(ranges).zip(tracks))
        .map(|((format, range), track)| format.decoder(range, track.channel == Channel::Rotation, 0))
        .collect();
    let mut bits = BitWriter::default();
    for f in span {
        for ((track, format), decoder) in tracks.iter().zip(formats).zip(&decoders) {
            for (level, width) in levels(format, decoder, track, f).into_iter().zip(format.bits) {
                bits.push(level, width);
            }
        }
    }
    data.extend_from_slice(&bits.bytes);
}

/// The compressed sections, the decoder's slack appended; an error past the blob's 4 GiB offsets.
fn finish(mut data: Vec<u8>, ranges: Vec<TrackRange>, clip: &str) -> Result<Compressed, String> {
    data.extend_from_slice(&[0; COMPRESSED_SLACK]);
    u32::try_from(data.len()).map_err(|_| format!("clip `{clip}`: compressed data exceeds 4 GiB"))?;
    Ok(Compressed { data, ranges })
}

/// The clip-wide range of each stored component (rotations: all four, within [-1, 1]).
fn track_range(track: &Track) -> TrackRange {
    let n = if track.channel == Channel::Rotation { 4 } else { 3 };
    let mut range = TrackRange { min: [0.0; 4], extent: [0.0; 4] };
    for c in 0..n {
        let (lo, hi) = track.values.iter().fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v[c]), hi.max(v[c])));
        let lo = crate::raw::flush(lo);
        // Rounded up so that `min + extent` covers the largest value.
        let mut extent = hi - lo;
        while lo + extent < hi {
            extent = extent.next_up();
        }
        if extent < MIN_KEY_MAGNITUDE {
            extent = 0.0;
        }
        if n == 4 {
            extent = extent.min(1.0 - lo);
        }
        range.min[c] = lo;
        range.extent[c] = extent;
    }
    range
}

/// The `bits`-bit levels of `track`'s stored components at frame `f`: nearest to the value under the
/// segment's range (`decoder`, the format's), clamped to the levels there are.
fn levels(format: &SegmentTrack, decoder: &TrackDecoder, track: &Track, f: usize) -> [u32; 3] {
    let rotation = track.channel == Channel::Rotation;
    std::array::from_fn(|c| {
        let most = ((1u64 << format.bits[c]) - 1) as f64;
        let component = format.component(c, rotation);
        let (scale, offset) = (decoder.scale[c], decoder.offset[c]);
        if scale == 0.0 {
            return 0;
        }
        let level = ((track.values[f][component] as f64 - offset as f64) / scale as f64).round();
        level.clamp(0.0, most) as u32
    })
}

/// The segment's range of each stored component, in 255ths of the clip range: the minimum rounded down and the
/// maximum rounded up.
fn segment_format(range: &TrackRange, track: &Track, dropped: usize, span: std::ops::Range<usize>) -> SegmentTrack {
    let rotation = track.channel == Channel::Rotation;
    let mut format = SegmentTrack { bits: [0; 3], dropped: 0, range_min: [0; 3], range_extent: [0; 3] };
    if rotation {
        format.dropped = dropped;
    }
    for c in 0..3 {
        let component = format.component(c, rotation);
        let (min, extent) = (range.min[component] as f64, range.extent[component] as f64);
        if extent == 0.0 {
            continue;
        }
        let values = track.values[span.clone()].iter().map(|v| (v[component] as f64 - min) / extent);
        let (lo, hi) = values.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let lo = (lo * 255.0).floor().clamp(0.0, 255.0);
        let hi = (hi * 255.0).ceil().clamp(lo, 255.0);
        format.range_min[c] = lo as u8;
        format.range_extent[c] = (hi - lo) as u8;
    }
    format
}

/// Each joint's subtree (itself first), in joint order.
fn subtrees(parents: &[i16]) -> Vec<Vec<usize>> {
    let mut subtree: Vec<Vec<usize>> = (0..parents.len()).map(|j| vec![j]).collect();
    for j in 0..parents.len() {
        let mut a = j;
        while let Ok(p) = usize::try_from(parents[a]) {
            subtree[p].push(j);
            a = p;
        }
    }
    subtree
}

/// Each joint's reach: the virtual-point distance plus its farthest descendant's distance in the rest pose.
fn reaches(skeleton: &RawSkeleton, subtree: &[Vec<usize>], distance: f64) -> Vec<f64> {
    let rest: Vec<Trs> = skeleton.rest.iter().map(Trs::of).collect();
    let position: Vec<DVec3> = virtual_points(&skeleton.parents, &rest, 0.0).iter().map(|p| p[0]).collect();
    let farthest = |j: usize| subtree[j].iter().map(|&d| position[d].distance(position[j])).fold(0.0, f64::max);
    (0..position.len()).map(|j| distance + farthest(j)).collect()
}

/// A track's decoded value in place of the raw one.
fn with_value(t: &mut Trs, channel: Channel, v: [f32; 4]) {
    let v = v.map(f64::from);
    match channel {
        Channel::Translation => t.translation = DVec3::new(v[0], v[1], v[2]),
        Channel::Rotation => t.rotation = DQuat::from_xyzw(v[0], v[1], v[2], v[3]).normalize(),
        Channel::Scale => t.scale = DVec3::new(v[0], v[1], v[2]),
    }
}

/// What every segment's search shares: the skeleton, each joint's subtree and reach.
struct Hierarchy<'a> {
    skeleton: &'a RawSkeleton,
    subtree: &'a [Vec<usize>],
    reach: &'a [f64],
}

/// The formats of one segment's tracks: steps 2 to 4 of the module docs.
fn search(
    hierarchy: &Hierarchy<'_>,
    clip: &RawClip,
    tracks: &[Track],
    ranges: &[TrackRange],
    dropped: &[usize],
    span: std::ops::Range<usize>,
    precision: Precision,
) -> Vec<SegmentTrack> {
    let Hierarchy { skeleton, subtree, reach } = *hierarchy;
    // What sampling returns for track `k` at frame `f` under `format`: quantized and decoded against one
    // decoder, the sampler's.
    let decode = |format: &SegmentTrack, k: usize, f: usize| {
        let decoder = format.decoder(&ranges[k], tracks[k].channel == Channel::Rotation, 0);
        decoder.decode(levels(format, &decoder, &tracks[k], f))
    };
    // The error one track alone makes at frame `f`, at distance `at` from its joint.
    let local_error = |k: usize, value: [f32; 4], f: usize, at: f64| -> f64 {
        let raw = tracks[k].values[f];
        match tracks[k].channel {
            Channel::Rotation => {
                let q = |v: [f32; 4]| DQuat::from_xyzw(v[0] as f64, v[1] as f64, v[2] as f64, v[3] as f64).normalize();
                let dot = q(raw).dot(q(value)).abs().min(1.0);
                2.0 * dot.acos() * at
            }
            Channel::Translation => (0..3).map(|c| (raw[c] as f64 - value[c] as f64).abs()).fold(0.0, f64::max),
            Channel::Scale => (0..3).map(|c| (raw[c] as f64 - value[c] as f64).abs()).fold(0.0, f64::max) * at,
        }
    };
    let mut formats: Vec<SegmentTrack> = Vec::with_capacity(tracks.len());
    for (k, track) in tracks.iter().enumerate() {
        let mut format = segment_format(&ranges[k], track, dropped[k], span.clone());
        while format.bits[0] < MAX_BITS
            && span.clone().any(|f| {
                local_error(k, decode(&format, k, f), f, reach[track.joint]) > precision.max_error * INITIAL_SHARE
            })
        {
            format.bits = format.bits.map(|b| b + 1);
        }
        formats.push(format);
    }

    // Step 3: the hierarchy at every frame of the segment.
    let decoded = |formats: &[SegmentTrack], k: usize| -> Vec<[f32; 4]> {
        span.clone().map(|f| decode(&formats[k], k, f)).collect()
    };
    let mut state = SegmentState::new(&skeleton.parents, subtree, clip, span.clone(), precision.distance);
    for (k, t) in tracks.iter().enumerate() {
        state.set(t.joint, t.channel, &decoded(&formats, k), None);
    }
    let n = skeleton.parents.len();
    let mut track_of = vec![[None::<usize>; 3]; n];
    for (k, t) in tracks.iter().enumerate() {
        track_of[t.joint][t.channel as usize] = Some(k);
    }
    let bound = precision.max_error * BOUND_MARGIN;
    loop {
        let (error, i, joint) = state.worst();
        if error <= bound {
            break;
        }
        // The chain's track with the largest error at the worst joint's farthest point.
        let position = |j: usize| state.model[i][j].w_axis.truncate();
        let f = span.start + i;
        let mut best: Option<(f64, usize)> = None;
        let mut a = joint;
        loop {
            let at = position(joint).distance(position(a)) + precision.distance;
            for k in track_of[a].iter().flatten().copied() {
                if formats[k].bits.iter().any(|&b| b < MAX_BITS) {
                    let e = local_error(k, decode(&formats[k], k, f), f, at);
                    if best.is_none_or(|(b, _)| e > b) {
                        best = Some((e, k));
                    }
                }
            }
            match usize::try_from(skeleton.parents[a]) {
                Ok(p) => a = p,
                Err(_) => break,
            }
        }
        // Every track on the chain at its most bits: the bound cannot be met; the caller reports it.
        let Some((_, k)) = best else { return formats };
        // Its component with the coarsest step gets the bit.
        let rotation = tracks[k].channel == Channel::Rotation;
        let format = &mut formats[k];
        let step = |c: usize| {
            let extent = ranges[k].extent[format.component(c, rotation)] * f32::from(format.range_extent[c]);
            if format.bits[c] < MAX_BITS { extent / ((1u64 << format.bits[c]) as f32) } else { -1.0 }
        };
        let c = (0..3).max_by(|&a, &b| step(a).total_cmp(&step(b))).unwrap_or(0);
        format.bits[c] += 1;
        state.set(tracks[k].joint, tracks[k].channel, &decoded(&formats, k), None);
    }
    // Step 4: give back every bit the bound does not need, widest components first.
    let mut order: Vec<(usize, usize)> = (0..tracks.len()).flat_map(|k| (0..3).map(move |c| (k, c))).collect();
    loop {
        let mut changed = false;
        order.sort_by_key(|&(k, c)| std::cmp::Reverse(formats[k].bits[c]));
        for &(k, c) in &order {
            while formats[k].bits[c] > 0 {
                formats[k].bits[c] -= 1;
                if !state.set(tracks[k].joint, tracks[k].channel, &decoded(&formats, k), Some(bound)) {
                    formats[k].bits[c] += 1;
                    break;
                }
                changed = true;
            }
        }
        if !changed {
            return formats;
        }
    }
}

/// One segment's decoded hierarchy, kept current as tracks change: per frame, the decoded local transforms,
/// their model matrices and each joint's virtual-point error. A change recomposes only the joint's subtree.
struct SegmentState<'a> {
    parents: &'a [i16],
    /// Each joint's subtree (itself first), in joint order.
    subtree: &'a [Vec<usize>],
    axes: [DVec3; 4],
    raw_points: Vec<Vec<[DVec3; 4]>>,
    local: Vec<Vec<Trs>>,
    model: Vec<Vec<DMat4>>,
    error: Vec<Vec<f64>>,
}

impl<'a> SegmentState<'a> {
    fn new(
        parents: &'a [i16],
        subtree: &'a [Vec<usize>],
        clip: &RawClip,
        span: std::ops::Range<usize>,
        distance: f64,
    ) -> Self {
        let local: Vec<Vec<Trs>> = span.map(|f| clip.frames[f].iter().map(Trs::of).collect()).collect();
        let raw_points = local.iter().map(|l| virtual_points(parents, l, distance)).collect();
        let model = local.iter().map(|l| compose(parents, l)).collect();
        let error = vec![vec![0.0; parents.len()]; local.len()];
        let axes = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z].map(|a| a * distance);
        SegmentState { parents, subtree, axes, raw_points, local, model, error }
    }

    /// Gives `joint`'s `channel` the per-frame `values` and recomposes its subtree. With a `bound`, a change
    /// that puts any of the subtree's points farther than it is undone and `false` returned.
    fn set(&mut self, joint: usize, channel: Channel, values: &[[f32; 4]], bound: Option<f64>) -> bool {
        let frames = self.local.len();
        let subtree = &self.subtree[joint];
        let mut model = vec![DMat4::IDENTITY; subtree.len()];
        let mut staged: Vec<(Trs, Vec<DMat4>, Vec<f64>)> = Vec::with_capacity(frames);
        for (i, value) in values.iter().enumerate().take(frames) {
            let mut local = self.local[i][joint];
            with_value(&mut local, channel, *value);
            let mut errors = Vec::with_capacity(subtree.len());
            for (s, &j) in subtree.iter().enumerate() {
                let l = if j == joint { &local } else { &self.local[i][j] };
                let m = l.matrix();
                let parent = usize::try_from(self.parents[j]).ok();
                // A parent inside the subtree comes earlier in it; outside, it is unchanged.
                model[s] = match parent {
                    Some(p) if j != joint => match subtree[..s].binary_search(&p) {
                        Ok(at) => model[at] * m,
                        Err(_) => self.model[i][p] * m,
                    },
                    Some(p) => self.model[i][p] * m,
                    None => m,
                };
                let e = self
                    .axes
                    .iter()
                    .zip(&self.raw_points[i][j])
                    .map(|(a, raw)| model[s].transform_point3(*a).distance(*raw))
                    .fold(0.0, f64::max);
                if bound.is_some_and(|b| e > b) {
                    return false;
                }
                errors.push(e);
            }
            staged.push((local, model.clone(), errors));
        }
        for (i, (local, model, errors)) in staged.into_iter().enumerate() {
            self.local[i][joint] = local;
            for (s, &j) in subtree.iter().enumerate() {
                self.model[i][j] = model[s];
                self.error[i][j] = errors[s];
            }
        }
        true
    }

    /// The largest error: `(error, frame within the segment, joint)`.
    fn worst(&self) -> (f64, usize, usize) {
        let mut worst = (0.0, 0, 0);
        for (i, errors) in self.error.iter().enumerate() {
            for (j, &e) in errors.iter().enumerate() {
                if e > worst.0 {
                    worst = (e, i, j);
                }
            }
        }
        worst
    }
}

/// The search's target as a share of the bound: midpoints between frames (checked by the caller, not here)
/// interpolate the frames' errors and may sit a little above both.
const BOUND_MARGIN: f64 = 0.95;
/// Step 2's target for one track alone, as a share of the bound (higher starts lower; step 3 makes up).
const INITIAL_SHARE: f64 = 1.0;

/// Bits appended least significant first.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    bit: usize,
}

impl BitWriter {
    fn push(&mut self, value: u32, bits: u32) {
        for i in 0..bits {
            if self.bit.is_multiple_of(8) {
                self.bytes.push(0);
            }
            if let (true, Some(byte)) = (value >> i & 1 == 1, self.bytes.last_mut()) {
                *byte |= 1 << (self.bit % 8);
            }
            self.bit += 1;
        }
    }
}
