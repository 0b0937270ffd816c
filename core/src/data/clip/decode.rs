//! Decoding a clip's keys into SoA poses: whole frames (every encoding) and curve values (compressed), for
//! the sampling stage, which interpolates them.
//!
//! Layout: poses are SoA lane groups ([`SoaTransform`]); a track of joint `j` lands in lane `j % 4` of group
//! `j / 4`. Errors: none; the clip was validated by `Clip::new`, and a lookup that fails anyway writes
//! nothing more rather than panic.

use super::compressed::{
    CompressedKeys, CurveDecoder, RotationQuadDecoder, SEGMENT_FRAMES, SEGMENT_TRACK_BYTES, SegmentTrack, TrackDecoder,
    TrackRange,
};
use super::quantized::{QuantRange, decode_rotation, decode_rotations};
use super::{Channel, Clip, Keys, track_runs, whole_groups};
use crate::math::{F4, SoaQuat, SoaTransform};

/// The track decoders of the compressed segment decoded last (see [`TrackDecoder`]).
#[derive(Debug)]
pub(crate) struct SegmentCache<'a> {
    /// One per decoded track, channel after channel; empty for a context made without decoders.
    pub(crate) decoders: &'a mut [TrackDecoder],
    /// The segment they decode, if any.
    pub(crate) held: Option<usize>,
}

/// Decodes the first `tracks[c]` animated tracks of each channel `c` of each of `frames` into its pose of
/// `poses` (every track: a whole frame; the tracks of joints 0–3: the first lane group). A compressed clip's
/// segment decoders come from `segment` when it holds them, are worked out into it when it has room, and are
/// worked out track by track otherwise; frames of one segment share them in one pass.
pub(crate) fn decode_tracks<const N: usize>(
    clip: &Clip<'_>,
    frames: [u32; N],
    poses: [&mut [SoaTransform]; N],
    tracks: [usize; 3],
    mut segment: Option<&mut SegmentCache<'_>>,
) {
    let frame_len = clip.frame_len();
    let [nt, nr, _] = clip.num_tracks();
    let joints = |channel: Channel| &clip.animated_joints(channel)[..tracks[channel as usize]];
    match clip.keys() {
        Keys::F32(values) => {
            for (frame, pose) in frames.into_iter().zip(poses) {
                let start = frame as usize * frame_len;
                let values = &values[start..start + frame_len];
                let (t, rest) = values.split_at(3 * nt);
                let (r, s) = rest.split_at(4 * nr);
                scatter::<3>(pose, joints(Channel::Translation), Channel::Translation, t);
                scatter::<4>(pose, joints(Channel::Rotation), Channel::Rotation, r);
                scatter::<3>(pose, joints(Channel::Scale), Channel::Scale, s);
            }
        }
        Keys::Quantized { keys, ranges } => {
            for (frame, pose) in frames.into_iter().zip(poses) {
                let start = frame as usize * frame_len;
                let keys = &keys[start..start + frame_len];
                let (t, rest) = keys.split_at(3 * nt);
                let (r, s) = rest.split_at(3 * nr);
                let floats: &mut [f32] = bytemuck::cast_slice_mut(pose);
                // Ranges: one per translation track, then one per scale track.
                let (t_ranges, s_ranges) = ranges.split_at(nt);
                for (channel, keys, ranges) in [(Channel::Translation, t, t_ranges), (Channel::Scale, s, s_ranges)] {
                    for ((&joint, key), range) in joints(channel).iter().zip(keys.chunks_exact(3)).zip(ranges) {
                        write_track(floats, joint, channel, dequantize(range, key));
                    }
                }
                scatter_quantized_rotations(pose, joints(Channel::Rotation), r);
            }
        }
        Keys::Compressed(keys) => {
            let frames = frames.map(|f| f as usize);
            if frames.iter().all(|f| f / SEGMENT_FRAMES == frames[0] / SEGMENT_FRAMES) {
                decode_compressed(clip, keys, frames, poses, tracks, segment);
            } else {
                for (frame, pose) in frames.into_iter().zip(poses) {
                    decode_compressed(clip, keys, [frame], [pose], tracks, segment.as_deref_mut());
                }
            }
        }
    }
}

/// [`decode_tracks`] for a compressed clip, `frames` all in one segment: each track's three components from one
/// run of bits, rotation tracks four at a time (see [`decode_quad`]), with the segment's decoders from `cache` (worked
/// out into it first when it holds another segment) or, without room there, from the segment's table. Each
/// decoder serves every frame before the next is taken.
fn decode_compressed<const N: usize>(
    clip: &Clip<'_>,
    keys: CompressedKeys<'_>,
    frames: [usize; N],
    mut poses: [&mut [SoaTransform]; N],
    tracks: [usize; 3],
    cache: Option<&mut SegmentCache<'_>>,
) {
    let Some(&frame) = frames.first() else { return };
    // `Clip::new` checked every segment, its track table, and its bits with `COMPRESSED_SLACK` bytes to spare,
    // so the lookups below succeed; they return early rather than panic all the same.
    let segment = frame / SEGMENT_FRAMES;
    let Some((offset, frame_bits)) = keys.segment(segment) else { return };
    let num_tracks = clip.num_tracks();
    let Some(table) = keys.data.get(offset..offset + SEGMENT_TRACK_BYTES * num_tracks.iter().sum::<usize>()) else {
        return;
    };
    let frame_starts = frames.map(|f| (offset + table.len()) * 8 + f % SEGMENT_FRAMES * frame_bits);
    let from_table = || Decoders::Table { table, ranges: keys.ranges, next: 0, first_bit: 0 };
    let mut decoders = match cache {
        Some(cache) if cache.decoders.len() >= tracks.iter().sum() => {
            if cache.held != Some(segment) {
                cache.held = None;
                let mut source = from_table();
                let (slots, mut slot) = (&mut cache.decoders[..], 0);
                // In the order the decode below takes them: each four rotation tracks keep their decoders as rows,
                // in the four tracks' slots.
                for channel in Channel::ALL {
                    let count = tracks[channel as usize];
                    let quads = quad_tracks(channel, count) / 4;
                    for _ in 0..quads {
                        let four = slots.get_mut(slot..slot + 4).unwrap_or_default();
                        let rows = bytemuck::try_cast_slice_mut::<TrackDecoder, RotationQuadDecoder>(four);
                        let Some(rows) = rows.ok().and_then(|r| r.first_mut()) else { return };
                        if source.fill_rows(rows).is_none() {
                            return;
                        }
                        slot += 4;
                    }
                    for _ in 4 * quads..count {
                        let (Some(entry), Some(decoder)) = (slots.get_mut(slot), source.next(channel)) else {
                            return;
                        };
                        (*entry, slot) = (decoder, slot + 1);
                    }
                    source.skip(channel, num_tracks[channel as usize] - count);
                }
                cache.held = Some(segment);
            }
            Decoders::Kept(cache.decoders.iter())
        }
        _ => from_table(),
    };
    for channel in Channel::ALL {
        let joints = &clip.animated_joints(channel)[..tracks[channel as usize]];
        let (quads, singles) = joints.split_at(quad_tracks(channel, joints.len()));
        let mut scratch = RotationQuadDecoder::default();
        // Four rotation tracks' arithmetic as SoA, whatever their joints: runs of whole lane groups stored as
        // whole rows, other fours lane by lane.
        let mut k = 0;
        while k < quads.len() {
            let groups = whole_groups(quads, k);
            let stored = if groups > 0 {
                let first = usize::from(quads[k]) / 4;
                (first..first + groups).try_for_each(|group| {
                    decode_quad(&mut decoders, &mut scratch, keys.data, &frame_starts, &mut poses, |pose, rotation| {
                        pose.get_mut(group)?.rotation = rotation;
                        Some(())
                    })
                })
            } else {
                let four = &quads[k..k + 4];
                decode_quad(&mut decoders, &mut scratch, keys.data, &frame_starts, &mut poses, |pose, rotation| {
                    scatter_rotations(pose, four, rotation)
                })
            };
            if stored.is_none() {
                return;
            }
            k += 4 * groups.max(1);
        }
        for &joint in singles {
            let Some(decoder) = decoders.next(channel) else { return };
            let mut values = [[0.0; 4]; N];
            for (value, &start) in values.iter_mut().zip(&frame_starts) {
                let Some(levels) = decoder.levels(keys.data, start) else { return };
                *value = decoder.decode(levels);
            }
            for (pose, value) in poses.iter_mut().zip(values) {
                if write_track(bytemuck::cast_slice_mut(pose), joint, channel, value).is_none() {
                    return;
                }
            }
        }
        decoders.skip(channel, num_tracks[channel as usize] - tracks[channel as usize]);
    }
}

/// How many of a channel's first `count` tracks decode four at a time as a [`RotationQuadDecoder`] (the rest one
/// by one): rotation tracks in fours from the first, whatever their joints.
fn quad_tracks(channel: Channel, count: usize) -> usize {
    if channel == Channel::Rotation { count / 4 * 4 } else { 0 }
}

/// Writes one track's `value` (x, y, z, then w for a rotation) into `joint`'s lane of a SoA pose viewed as
/// floats, where component `i` lives at `group × 40 + channel offset + 4 i + lane`, with one bounds check for its
/// rows; `None` past the pose. Tracks of a clip `Clip::new` accepted always lie within a pose of its skeleton.
#[inline(always)]
pub(crate) fn write_track(floats: &mut [f32], joint: u16, channel: Channel, value: [f32; 4]) -> Option<()> {
    let base = (joint as usize >> 2) * 40 + (joint as usize & 3) + channel.soa_offset();
    let rows = floats.get_mut(base..base + 4 * channel.f32_components() - 3)?;
    (rows[0], rows[4], rows[8]) = (value[0], value[1], value[2]);
    if channel == Channel::Rotation {
        rows[12] = value[3];
    }
    Some(())
}

/// Decodes the next four rotation tracks (their decoders from `decoders`, worked out into `scratch` when not
/// kept) at each frame whose bits start at `frame_starts`, and hands each frame's pose and rotations to `store`.
#[inline(always)]
fn decode_quad<const N: usize>(
    decoders: &mut Decoders<'_>,
    scratch: &mut RotationQuadDecoder,
    data: &[u8],
    frame_starts: &[usize; N],
    poses: &mut [&mut [SoaTransform]; N],
    mut store: impl FnMut(&mut [SoaTransform], SoaQuat) -> Option<()>,
) -> Option<()> {
    let quad = decoders.next_rotation_quad(scratch)?;
    let rows = quad.rows();
    for (pose, &start) in poses.iter_mut().zip(frame_starts) {
        store(pose, rows.decode(quad.fields(data, start)?))?;
    }
    Some(())
}

/// Writes lane `j` of `rotation` into joint `joints[j]`'s lane of `pose`; `None` past the pose.
#[inline(always)]
fn scatter_rotations(pose: &mut [SoaTransform], joints: &[u16], rotation: SoaQuat) -> Option<()> {
    let floats: &mut [f32] = bytemuck::cast_slice_mut(pose);
    let lanes = F4::transpose4([rotation.x, rotation.y, rotation.z, rotation.w]);
    for (&joint, lane) in joints.iter().zip(lanes) {
        write_track(floats, joint, Channel::Rotation, lane.to_array())?;
    }
    Some(())
}

/// The decoders of a segment's tracks in track order: ones a context kept (only the tracks decoded), or ones
/// worked out from the segment's whole table and the tracks' clip ranges (every track), track `next` next.
enum Decoders<'d> {
    Kept(core::slice::Iter<'d, TrackDecoder>),
    Table { table: &'d [u8], ranges: &'d [TrackRange], next: usize, first_bit: u32 },
}

impl<'d> Decoders<'d> {
    /// The next track's decoder; it is a `channel` track.
    #[inline(always)]
    fn next(&mut self, channel: Channel) -> Option<TrackDecoder> {
        match self {
            Decoders::Kept(kept) => kept.next().copied(),
            Decoders::Table { table, ranges, next, first_bit } => {
                let format = SegmentTrack::parse(&SegmentTrack::entry(table, ranges.len(), *next)?);
                let decoder = format.decoder(ranges.get(*next)?, channel == Channel::Rotation, *first_bit);
                (*next, *first_bit) = (*next + 1, *first_bit + format.frame_bits());
                Some(decoder)
            }
        }
    }

    /// The next four tracks' decoders, rotations, as rows: kept ones in place (they are
    /// stored so), others worked out into `scratch`.
    #[inline(always)]
    fn next_rotation_quad<'s>(&mut self, scratch: &'s mut RotationQuadDecoder) -> Option<&'s RotationQuadDecoder>
    where
        'd: 's,
    {
        match self {
            Decoders::Kept(kept) => {
                let four = kept.as_slice().get(..4)?;
                kept.nth(3);
                bytemuck::try_from_bytes::<RotationQuadDecoder>(bytemuck::cast_slice(four)).ok()
            }
            Decoders::Table { .. } => {
                self.fill_rows(scratch)?;
                Some(scratch)
            }
        }
    }

    /// The next four tracks' decoders, rotations, worked out from the segment's table as
    /// rows into `rows`; `None` for kept decoders (which hold them as rows already, see `next_rotation_quad`).
    #[inline(always)]
    fn fill_rows(&mut self, rows: &mut RotationQuadDecoder) -> Option<()> {
        let Decoders::Table { table, ranges, next, first_bit } = self else { return None };
        let [r0, r1, r2, r3] = ranges.get(*next..*next + 4)? else { return None };
        let bits = rows.fill(table, ranges.len(), *next, [r0, r1, r2, r3], *first_bit)?;
        (*next, *first_bit) = (*next + 4, *first_bit + bits);
        Some(())
    }

    /// Passes over `count` tracks of `channel` that are not decoded (kept decoders hold none).
    fn skip(&mut self, channel: Channel, count: usize) {
        if let Decoders::Table { .. } = self {
            for _ in 0..count {
                self.next(channel);
            }
        }
    }
}

/// Writes the `N`-component `f32` keys of one channel into their joints' lanes: each whole lane group is
/// stored component-major and goes in as `N` vector copies; other tracks lane by lane.
#[inline(always)]
fn scatter<const N: usize>(pose: &mut [SoaTransform], joints: &[u16], channel: Channel, keys: &[f32]) {
    let first_row = channel.soa_offset() / 4;
    for (k, run) in track_runs(joints) {
        let block = &keys[N * k..N * (k + run)];
        if run == 1 {
            let value = core::array::from_fn(|i| block.get(i).copied().unwrap_or(0.0));
            write_track(bytemuck::cast_slice_mut(pose), joints[k], channel, value);
            continue;
        }
        let groups = pose[joints[k] as usize / 4..].iter_mut();
        for (group, keys) in groups.zip(block.chunks_exact(4 * N)) {
            let rows: &mut [F4; 10] = bytemuck::cast_mut(group);
            for (row, lanes) in rows[first_row..first_row + N].iter_mut().zip(keys.chunks_exact(4)) {
                *row = F4::new(lanes[0], lanes[1], lanes[2], lanes[3]);
            }
        }
    }
}

/// Decodes smallest-three rotation keys into their joints' lanes: a run filling a lane group (stored
/// component-major) as one SoA decode with per-lane selects; other tracks one by one.
fn scatter_quantized_rotations(pose: &mut [SoaTransform], joints: &[u16], keys: &[u16]) {
    for (k, run) in track_runs(joints) {
        let block = &keys[3 * k..3 * (k + run)];
        if run == 1 {
            let q = decode_rotation([block[0], block[1], block[2]]);
            write_track(bytemuck::cast_slice_mut(pose), joints[k], Channel::Rotation, q);
            continue;
        }
        for (group, keys) in pose[joints[k] as usize / 4..].iter_mut().zip(block.chunks_exact(12)) {
            let lanes = |c: usize| [keys[4 * c], keys[4 * c + 1], keys[4 * c + 2], keys[4 * c + 3]];
            group.rotation = decode_rotations(lanes(0), lanes(1), lanes(2));
        }
    }
}

#[inline(always)]
fn dequantize(range: &QuantRange, key: &[u16]) -> [f32; 4] {
    let c = |i: usize| range.min[i] + range.step[i] * key[i] as f32;
    [c(0), c(1), c(2), 0.0]
}

/// Hands each of the first `wanted` curves' values at `frames` (one frame, or two of one segment) to
/// `put(curve, values)`: one [`CurveDecoder`] per curve from the segment's table, its field read once per frame.
#[inline(always)]
pub(crate) fn decode_curves<const N: usize>(
    keys: CompressedKeys<'_>,
    count: usize,
    frames: [u32; N],
    wanted: usize,
    mut put: impl FnMut(usize, [f32; N]),
) {
    // `Clip::with_curves` checked the segment, its table and bits; a failed lookup stops rather than panics.
    let Some(&first) = frames.first() else { return };
    let Some((offset, frame_bits)) = keys.segment(first as usize / SEGMENT_FRAMES) else { return };
    let Some(table) = keys.data.get(offset..offset + SEGMENT_TRACK_BYTES * count) else { return };
    let bits_start = (offset + table.len()) * 8;
    let starts = frames.map(|f| bits_start + f as usize % SEGMENT_FRAMES * frame_bits);
    let mut first_bit = 0;
    for (curve, range) in keys.ranges.iter().enumerate().take(wanted.min(count)) {
        let Some(entry) = SegmentTrack::entry(table, count, curve) else { return };
        let decoder = CurveDecoder::new(&entry, range, first_bit);
        first_bit += SegmentTrack::parse(&entry).frame_bits();
        let mut values = [0.0; N];
        for (value, &start) in values.iter_mut().zip(&starts) {
            let Some(decoded) = decoder.value(keys.data, start) else { return };
            *value = decoded;
        }
        put(curve, values);
    }
}
