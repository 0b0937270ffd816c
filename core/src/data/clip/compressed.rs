//! The compressed encoding: segments of [`SEGMENT_FRAMES`] frames, a bit rate per track and segment, its
//! layout, its bit readers, the per-segment decoders and the checks `Clip::new` runs on it (see the clip's
//! module docs).

use super::check_values;
use crate::error::{Buffer, Error};
use crate::limits::MIN_KEY_MAGNITUDE;
use crate::math::F4;
use bytemuck::{Pod, Zeroable};

/// The clip-wide range of one animated track of a compressed clip: component `c` lies in
/// `min[c] ..= min[c] + extent[c]`. Translation and scale use `x, y, z`; rotations all four quaternion
/// components (a segment keeps three of them, see [`SegmentTrack`]).
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct TrackRange {
    /// Per component, the smallest value.
    pub min: [f32; 4],
    /// Per component, the range's width (`max − min`).
    pub extent: [f32; 4],
}

/// Frames per segment of a compressed clip (the last segment may hold fewer).
pub const SEGMENT_FRAMES: usize = 16;
/// Most bits per stored component of a compressed clip.
pub const MAX_BITS: u32 = 24;
/// Bytes a segment stores per track before its frames: three format bytes (one per stored component), then
/// three range minima and three range extents (`u8`, in 255ths of the clip range).
pub const SEGMENT_TRACK_BYTES: usize = 9;
/// Bytes after a compressed clip's last bit that a decoder may read (it loads 8 bytes per component).
pub const COMPRESSED_SLACK: usize = 8;

/// `1 / (2^b − 1)` for `b` bits (1 for no bits, whose only level is 0), so decoding multiplies.
const INV_LEVELS: [f32; 32] = {
    let mut table = [1.0f32; 32];
    let mut b = 1;
    while b < 32 {
        table[b] = 1.0 / ((1u64 << b) - 1) as f32;
        b += 1;
    }
    table
};

/// One track's storage in one segment of a compressed clip, as the segment's bytes hold it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentTrack {
    /// Bits of each stored component, `0 ..= MAX_BITS` (0: the segment range's minimum, no bits stored).
    pub bits: [u32; 3],
    /// Rotations: the quaternion component the segment does not store (rebuilt non-negative, as
    /// `sqrt(1 − the other three squared)`); 0 for translation and scale.
    pub dropped: usize,
    /// Per stored component: the segment range's minimum and extent in 255ths of the clip range.
    pub range_min: [u8; 3],
    /// Per stored component: the segment range's extent in 255ths of the clip range.
    pub range_extent: [u8; 3],
}

impl SegmentTrack {
    /// The track's bytes in a segment: each component's bits in the low five bits of its format byte, the
    /// dropped component's index in the top bits of the first two, then the ranges.
    pub fn to_bytes(&self) -> [u8; SEGMENT_TRACK_BYTES] {
        let (m, e, d) = (self.range_min, self.range_extent, self.dropped as u32);
        let format = |c: usize, top: u32| (self.bits[c] | top << 7) as u8;
        [format(0, d & 1), format(1, d >> 1), format(2, 0), m[0], m[1], m[2], e[0], e[1], e[2]]
    }

    /// Track `track`'s entry in a segment's table of `tracks` entries, which stores them as
    /// [`SEGMENT_TRACK_BYTES`] rows of `tracks` bytes: row `r` holds byte `r` of every entry, so the entries of
    /// four neighbouring tracks load as nine 4-byte words. `None` past the table.
    #[inline(always)]
    pub fn entry(table: &[u8], tracks: usize, track: usize) -> Option<[u8; SEGMENT_TRACK_BYTES]> {
        if track >= tracks || table.len() < SEGMENT_TRACK_BYTES.checked_mul(tracks)? {
            return None;
        }
        Some(core::array::from_fn(|r| table[r * tracks + track]))
    }

    /// Reads track `track` of a segment's whole track table (see [`SegmentTrack::entry`]); `None` for a bad
    /// format byte (too many bits, a dropped component on a translation or scale track, a reserved bit set) or a
    /// range past the clip range.
    #[inline]
    pub fn read(table: &[u8], track: usize, rotation: bool) -> Option<SegmentTrack> {
        let b = SegmentTrack::entry(table, table.len() / SEGMENT_TRACK_BYTES, track)?;
        let format = SegmentTrack::parse(&b);
        let fits = format.range_min.iter().zip(&format.range_extent).all(|(&m, &e)| u32::from(m) + u32::from(e) <= 255);
        let reserved = (b[0] | b[1]) & 0x60 != 0 || b[2] & 0xe0 != 0;
        let dropped_ok = rotation || format.dropped == 0;
        let bits_ok = b[..3].iter().all(|&n| u32::from(n & 0x1f) <= MAX_BITS);
        (bits_ok && dropped_ok && fits && !reserved).then_some(format)
    }

    /// The track's bytes without checks, for decoding a table [`SegmentTrack::read`] accepted before (bits
    /// come out masked to five, so shifts and loads stay in bounds whatever the bytes).
    #[inline(always)]
    pub fn parse(b: &[u8; SEGMENT_TRACK_BYTES]) -> SegmentTrack {
        SegmentTrack {
            bits: [0, 1, 2].map(|c| u32::from(b[c] & 0x1f)),
            dropped: usize::from(b[0] >> 7) | usize::from(b[1] >> 7) << 1,
            range_min: [b[3], b[4], b[5]],
            range_extent: [b[6], b[7], b[8]],
        }
    }

    /// `1 / (2^bits − 1)`, the step of one level in a unit range (1 for no bits, whose only level is 0).
    #[inline(always)]
    pub fn inverse_levels(bits: u32) -> f32 {
        INV_LEVELS[bits as usize & 31]
    }

    /// Bits of one frame of this track.
    #[inline(always)]
    pub fn frame_bits(&self) -> u32 {
        self.bits[0] + self.bits[1] + self.bits[2]
    }

    /// The track component (index into `TrackRange`, and into the quaternion for a rotation) that stored
    /// component `c` holds.
    #[inline(always)]
    pub fn component(&self, c: usize, rotation: bool) -> usize {
        if rotation { c + usize::from(c >= self.dropped) } else { c }
    }

    /// The track's decoding within its segment, its fields starting at bit `first_bit` of each frame: stored
    /// component `c` decodes as `level × scale[c] + offset[c]`, where, with the clip range's `min` and `extent`
    /// of the component it holds, `offset = min + extent × (range_min[c] / 255)` and `scale = extent ×
    /// (range_extent[c] / 255) / (2^bits − 1)` (the division a multiply by [`SegmentTrack::inverse_levels`]).
    /// The encoder quantizes against these same numbers and measures its error through the same
    /// [`TrackDecoder::decode`], so the baker measures what sampling returns.
    #[inline(always)]
    pub fn decoder(&self, range: &TrackRange, rotation: bool, first_bit: u32) -> TrackDecoder {
        const INV_255: f32 = 1.0 / 255.0;
        let [c0, c1, c2] = [0, 1, 2].map(|c| self.component(c, rotation) & 3);
        let min = F4::new(range.min[c0], range.min[c1], range.min[c2], 0.0);
        let extent = F4::new(range.extent[c0], range.extent[c1], range.extent[c2], 0.0);
        let [m0, m1, m2] = self.range_min.map(u32::from);
        let [e0, e1, e2] = self.range_extent.map(u32::from);
        let [i0, i1, i2] = self.bits.map(SegmentTrack::inverse_levels);
        let segment_extent = extent * (F4::from_levels([e0, e1, e2, 0]) * F4::splat(INV_255));
        let offset = min + extent * (F4::from_levels([m0, m1, m2, 0]) * F4::splat(INV_255));
        let scale = segment_extent * F4::new(i0, i1, i2, 1.0);
        let ([s0, s1, s2, _], [o0, o1, o2, _]) = (scale.to_array(), offset.to_array());
        TrackDecoder {
            scale: [s0, s1, s2],
            offset: [o0, o1, o2],
            first_bit,
            bits: self.bits.map(|b| b as u8),
            dropped: if rotation { self.dropped as u8 } else { TrackDecoder::NOT_ROTATION },
        }
    }
}

/// One track's decoding within one segment of a compressed clip, worked out once from its [`SegmentTrack`] and
/// [`TrackRange`]: a frame's decode is then one load, three field extractions and three multiply-adds (and
/// for a rotation, the dropped component's square root). A [`crate::SamplingContext`] keeps one per track for
/// the segment it decoded last, so playback works the ranges out once per segment instead of once per frame.
///
/// Layout: 32 bytes, `repr(C)`. Precision: component `c` is `level × scale[c] + offset[c]` in `f32`, values
/// below `MIN_KEY_MAGNITUDE` flushed to zero; exactly what the baker measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct TrackDecoder {
    /// Per stored component, the value one level adds.
    pub scale: [f32; 3],
    /// Per stored component, the value at level 0.
    pub offset: [f32; 3],
    /// Where the track's fields start within a frame's bits.
    pub first_bit: u32,
    /// Bits of each stored component, `0 ..= MAX_BITS`.
    pub bits: [u8; 3],
    /// The rotation's dropped quaternion component, or [`TrackDecoder::NOT_ROTATION`].
    pub dropped: u8,
}

impl TrackDecoder {
    /// `dropped` of a translation or scale track.
    pub const NOT_ROTATION: u8 = 4;

    /// The three stored levels of the frame whose bits start at bit `frame_start` of `data`; `None` when fewer
    /// than [`COMPRESSED_SLACK`] bytes follow them.
    #[inline(always)]
    pub fn levels(&self, data: &[u8], frame_start: usize) -> Option<[u32; 3]> {
        read_fields(data, frame_start + self.first_bit as usize, self.bits)
    }

    /// The track's value from its three stored `levels`: `(x, y, z, 0)` for translation and scale, the
    /// quaternion `(x, y, z, w)` for a rotation, its dropped component rebuilt non-negative.
    #[inline(always)]
    pub fn decode(&self, levels: [u32; 3]) -> [f32; 4] {
        let [l0, l1, l2] = levels;
        let scale = F4::new(self.scale[0], self.scale[1], self.scale[2], 0.0);
        let offset = F4::new(self.offset[0], self.offset[1], self.offset[2], 0.0);
        let v = F4::from_levels([l0, l1, l2, 0]) * scale + offset;
        // Zero rather than a value small enough to make interpolation compute with denormals.
        let [a, b, c, _] = v.zero_where(v.abs().cmp_lt(F4::splat(MIN_KEY_MAGNITUDE))).to_array();
        let d = self.dropped;
        if d == TrackDecoder::NOT_ROTATION {
            return [a, b, c, 0.0];
        }
        let rebuilt = crate::math::sqrt((1.0 - (a * a + b * b + c * c)).max(0.0));
        [
            if d == 0 { rebuilt } else { a },
            if d == 0 {
                a
            } else if d == 1 {
                rebuilt
            } else {
                b
            },
            if d == 3 {
                c
            } else if d == 2 {
                rebuilt
            } else {
                b
            },
            if d == 3 { rebuilt } else { c },
        ]
    }
}

/// The three fields of `bits` (each masked to five) at bit `at` of `data`, least significant first; `None` when
/// fewer than [`COMPRESSED_SLACK`] bytes follow them.
#[inline(always)]
fn read_fields(data: &[u8], at: usize, bits: [u8; 3]) -> Option<[u32; 3]> {
    let [b0, b1, b2] = bits.map(|b| u32::from(b) & 0x1f);
    // One load holds all three fields unless they straddle its end (at most 72 bits after a 7-bit shift).
    let word = load_word(data, at / 8)?;
    let shift = (at % 8) as u32;
    if shift + b0 + b1 + b2 <= 64 {
        return Some(split_fields(word >> shift, [b0, b1, b2]));
    }
    let (w0, w1) = (b0 as usize, b1 as usize);
    Some([read_bits(data, at, b0)?, read_bits(data, at + w0, b1)?, read_bits(data, at + w0 + w1, b2)?])
}

/// The three fields of `bits` (each at most 31) at the low end of `word`, least significant first. Every shift
/// stays below 64 whatever the bits (bits past 24 only come from a damaged context).
#[inline(always)]
fn split_fields(word: u64, [b0, b1, b2]: [u32; 3]) -> [u32; 3] {
    let field = |from: u32, bits: u32| ((word >> from) & ((1u64 << bits) - 1)) as u32;
    [field(0, b0), field(b0, b1), field(b0 + b1, b2)]
}

/// The decoders of four consecutive rotation tracks (whatever their joints: a lane group's four, or four
/// scattered ones), as SoA rows: lane `j` of each row is track `j`'s. A frame's decode loads its scales and offsets as whole rows and its dropped components as lane
/// masks, and gives each lane bit for bit what [`TrackDecoder::decode`] gives its track (the same operations in
/// the same order, four lanes at a time). It is worked out as rows straight from the segment's table
/// ([`RotationQuadDecoder::fill`]), and a [`crate::SamplingContext`] keeps one in place of the four
/// tracks' [`TrackDecoder`]s (the same 128 bytes), so playback works it out once per segment.
///
/// Layout: 128 bytes, `repr(C)`, 4-byte aligned (rows load unaligned).
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct RotationQuadDecoder {
    /// Per stored component `c`, each lane's `scale[c]`.
    pub scale: [[f32; 4]; 3],
    /// Per stored component `c`, each lane's `offset[c]`.
    pub offset: [[f32; 4]; 3],
    /// Per lane, where its track's fields start within a frame's bits.
    pub first_bit: [u32; 4],
    /// Per stored component `c`, each lane's bits (a row, so a frame masks four fields at once).
    pub widths: [[u8; 4]; 3],
    /// Bit `4k + j` set: lane `j` drops quaternion component `k`.
    pub dropping: u16,
    /// Bit 0 set: every lane's three fields fit one 64-bit load after any shift (at most 57 bits).
    pub flags: u16,
}

const _: () = assert!(core::mem::size_of::<RotationQuadDecoder>() == 4 * core::mem::size_of::<TrackDecoder>());

impl RotationQuadDecoder {
    /// Works out the decoders of rotation tracks `first .. first + 4` of one segment as rows, in place (a
    /// context's slots, so the 128 bytes are not copied), from the segment's whole `table` of `tracks` entries
    /// (nine 4-byte words, see [`SegmentTrack::entry`]) and the four tracks' clip `ranges`, their fields
    /// following one another from bit `first_bit` of each frame. Lane `j` holds bit for bit what
    /// [`SegmentTrack::decoder`] works out for track `first + j` (the same operations in the same order, four
    /// lanes at a time), without building it first. Returns the four tracks' bits per frame; `None` past the
    /// table, leaving `self` as it was.
    #[inline(always)]
    pub fn fill(
        &mut self,
        table: &[u8],
        tracks: usize,
        first: usize,
        ranges: [&TrackRange; 4],
        first_bit: u32,
    ) -> Option<u32> {
        // One check covers the nine rows: row r's window ends at r × tracks + first + 4 ≤ 9 × tracks.
        if first.checked_add(4)? > tracks || SEGMENT_TRACK_BYTES.checked_mul(tracks)? > table.len() {
            return None;
        }
        // SAFETY: as above, each window lies within `table`.
        let row = |r: usize| unsafe { table_word(table, r * tracks + first) };
        // Row r of the table as one word: byte j is byte r of track first + j's entry.
        let [r0, r1, r2, m0, m1, m2, e0, e1, e2] =
            [row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7), row(8)];
        let widths = [r0 & 0x1f1f_1f1f, r1 & 0x1f1f_1f1f, r2 & 0x1f1f_1f1f];
        // Bytes of at most 93: the four lanes' bits per frame add without carries.
        let frame_bits = widths[0] + widths[1] + widths[2];
        // Bit 7 of the first two format bytes: the dropped component's index.
        let dropped = ((r0 >> 7) & 0x0101_0101 | (r1 >> 6) & 0x0202_0202).to_le_bytes();
        let (mut at, mut dropping, lane_bits) = (first_bit, 0u16, frame_bits.to_le_bytes());
        for j in 0..4 {
            (self.first_bit[j], at) = (at, at + u32::from(lane_bits[j]));
            dropping |= 1 << (4 * u16::from(dropped[j]) + j as u16);
        }
        // Every lane at most 57 bits: no byte reaches 128 after adding 70.
        self.flags = u16::from((frame_bits + 0x4646_4646) & 0x8080_8080 == 0);
        (self.dropping, self.widths) = (dropping, widths.map(u32::to_le_bytes));
        // Rows of the clip ranges: row k holds quaternion component k of each lane.
        let min = F4::transpose4(ranges.map(|r| F4::from_array(r.min)));
        let extent = F4::transpose4(ranges.map(|r| F4::from_array(r.extent)));
        // Stored component c holds quaternion component c + 1 in the lanes that drop one at or below c.
        let up0 = u32::from(dropping) & 0xf;
        let up1 = up0 | u32::from(dropping >> 4) & 0xf;
        let up2 = up1 | u32::from(dropping >> 8) & 0xf;
        self.component(0, F4::lane_mask(up0), [min[0], min[1]], [extent[0], extent[1]], [widths[0], m0, e0]);
        self.component(1, F4::lane_mask(up1), [min[1], min[2]], [extent[1], extent[2]], [widths[1], m1, e1]);
        self.component(2, F4::lane_mask(up2), [min[2], min[3]], [extent[2], extent[3]], [widths[2], m2, e2]);
        Some(at - first_bit)
    }

    /// Stored component `c`'s scale and offset rows: quaternion component `c + 1`'s clip range in the `up` lanes,
    /// `c`'s in the others; `words` holds the four lanes' bits, range minima and range extents (table rows).
    #[inline(always)]
    fn component(&mut self, c: usize, up: F4, min: [F4; 2], extent: [F4; 2], words: [u32; 3]) {
        const INV_255: f32 = 1.0 / 255.0;
        let [widths, range_min, range_extent] = words;
        let (min, extent) = (F4::select(up, min[1], min[0]), F4::select(up, extent[1], extent[0]));
        // `1 / (2^b − 1)` as `SegmentTrack::inverse_levels` gives it (1 for no bits): one correctly rounded
        // division either way.
        let levels = F4::powers_of_two(widths) - F4::splat(1.0);
        let inverse_levels = F4::select(levels.cmp_eq(F4::splat(0.0)), F4::splat(1.0), F4::splat(1.0) / levels);
        let segment_extent = extent * (F4::from_bytes(range_extent) * F4::splat(INV_255));
        self.offset[c] = (min + extent * (F4::from_bytes(range_min) * F4::splat(INV_255))).to_array();
        self.scale[c] = (segment_extent * inverse_levels).to_array();
    }

    /// The four tracks' stored fields of the frame whose bits start at bit `frame_start` of `data`, as rows of bit
    /// patterns: lane `j` of row `c` holds track `j`'s field of stored component `c` in its low `widths[c][j]`
    /// bits, whatever lies above them ([`RotationQuadRows::decode`] masks the four lanes of a component at once).
    #[inline(always)]
    pub fn fields(&self, data: &[u8], frame_start: usize) -> Option<[F4; 3]> {
        if self.flags & 1 == 0 {
            // `read_fields` masks the widths itself.
            let lane =
                |j: usize| read_fields(data, frame_start + self.first_bit[j] as usize, self.widths.map(|w| w[j]));
            let lanes = [lane(0)?, lane(1)?, lane(2)?, lane(3)?];
            return Some([0, 1, 2].map(|c| F4::from_bits(lanes.map(|fields| fields[c]))));
        }
        // Every lane's fields lie within one load: no straddle to check. A damaged context's widths (`fill`
        // stores them below 32) give wrong fields, never a panic: the shifts wrap.
        let at = self.first_bit.map(|bit| frame_start + bit as usize);
        let word = |j: usize| load_word(data, at[j] / 8);
        let words = [word(0)?, word(1)?, word(2)?, word(3)?];
        let widths = [u32::from_le_bytes(self.widths[0]), u32::from_le_bytes(self.widths[1])];
        Some(F4::split_words(words, at.map(|a| (a % 8) as u32), widths))
    }

    /// The rows as vectors with the fields' masks and the dropped components' lane masks worked out: what every
    /// frame's decode reuses, so a pass over two frames works it out once.
    #[inline(always)]
    pub fn rows(&self) -> RotationQuadRows {
        let dropping = u32::from(self.dropping);
        RotationQuadRows {
            scale: self.scale.map(F4::from_array),
            offset: self.offset.map(F4::from_array),
            field_masks: self.widths.map(F4::field_masks),
            dropping: [0, 4, 8, 12].map(|shift| F4::lane_mask(dropping >> shift)),
        }
    }
}

/// A [`RotationQuadDecoder`] loaded for decoding frames ([`RotationQuadDecoder::rows`]): SoA rows, lane `j` track
/// `j`'s. Held in registers across the frames of one pass.
#[derive(Clone, Copy, Debug)]
pub struct RotationQuadRows {
    scale: [F4; 3],
    offset: [F4; 3],
    /// Per stored component, each lane's mask of its field's bits.
    field_masks: [F4; 3],
    /// Per quaternion component `k`, set in the lanes that drop it.
    dropping: [F4; 4],
}

impl RotationQuadRows {
    /// The four tracks' quaternions from their stored `fields` (lane `j` of each row track `j`'s, as
    /// [`RotationQuadDecoder::fields`] reads them: the bits above each field's width are ignored). Lane `j` is bit
    /// for bit what [`TrackDecoder::decode`] gives track `j` (the same operations in the same order).
    #[inline(always)]
    pub fn decode(&self, fields: [F4; 3]) -> crate::math::SoaQuat {
        let min = F4::splat(MIN_KEY_MAGNITUDE);
        let [v0, v1, v2] = [0, 1, 2].map(|c| {
            let level = F4::from_fields(fields[c], self.field_masks[c]);
            let v = level * self.scale[c] + self.offset[c];
            v.zero_where(v.abs().cmp_lt(min))
        });
        let rebuilt = (F4::splat(1.0) - (v0 * v0 + v1 * v1 + v2 * v2)).max(F4::splat(0.0)).sqrt();
        let [m0, m1, m2, m3] = self.dropping;
        crate::math::SoaQuat {
            x: F4::select(m0, rebuilt, v0),
            y: F4::select(m0, v0, F4::select(m1, rebuilt, v1)),
            z: F4::select(m3, v2, F4::select(m2, rebuilt, v1)),
            w: F4::select(m3, rebuilt, v2),
        }
    }
}

/// One scalar curve's decoding within one segment of compressed curves (see [`CurveKeys`](super::curves::CurveKeys)): a level decodes
/// as `level × scale + offset`, values below `MIN_KEY_MAGNITUDE` flushed to zero. The numbers are component `x`
/// of [`SegmentTrack::decoder`]'s, worked out in scalar with the same operations in the same order, so a curve
/// decodes bit for bit as a one-component track does; the baker measures its error through this same type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurveDecoder {
    /// The value one level adds.
    pub scale: f32,
    /// The value at level 0.
    pub offset: f32,
    /// Where the curve's field starts within a frame's bits.
    pub first_bit: u32,
    /// Bits of the field, `0 ..= MAX_BITS`.
    pub bits: u32,
}

impl CurveDecoder {
    /// The decoder of the curve whose segment table entry is `entry` (as [`SegmentTrack::parse`] reads it;
    /// bits masked to five) and clip range `range`, its field at `first_bit` of each frame.
    #[inline(always)]
    pub fn new(entry: &[u8; SEGMENT_TRACK_BYTES], range: &TrackRange, first_bit: u32) -> CurveDecoder {
        const INV_255: f32 = 1.0 / 255.0;
        let bits = u32::from(entry[0] & 0x1f);
        let (min, extent) = (range.min[0], range.extent[0]);
        let segment_extent = extent * (f32::from(entry[6]) * INV_255);
        let offset = min + extent * (f32::from(entry[3]) * INV_255);
        CurveDecoder { scale: segment_extent * SegmentTrack::inverse_levels(bits), offset, first_bit, bits }
    }

    /// The value at the frame whose bits start at bit `frame_start` of `data`; `None` when fewer than
    /// [`COMPRESSED_SLACK`] bytes follow its field.
    #[inline(always)]
    pub fn value(&self, data: &[u8], frame_start: usize) -> Option<f32> {
        Some(self.decode(read_bits(data, frame_start + self.first_bit as usize, self.bits)?))
    }

    /// The value of a stored `level`.
    #[inline(always)]
    pub fn decode(&self, level: u32) -> f32 {
        let v = level as f32 * self.scale + self.offset;
        if v.abs() < MIN_KEY_MAGNITUDE { 0.0 } else { v }
    }
}

/// A compressed clip's storage (see the module docs): `data` starts with one `(offset, frame bits)` pair of
/// little-endian `u32` per segment; segment `s`'s bytes at `offset` hold its track table, [`SEGMENT_TRACK_BYTES`]
/// per animated track (translation, rotation, scale order) stored as rows ([`SegmentTrack::entry`]), then its
/// frames' bits, frame after frame, each frame the tracks' components in that order, least significant bit
/// first.
#[derive(Clone, Copy, Debug)]
pub struct CompressedKeys<'a> {
    /// Segment headers, track tables and frame bits (see above).
    pub data: &'a [u8],
    /// One per animated track, in track order.
    pub ranges: &'a [TrackRange],
}

impl CompressedKeys<'_> {
    /// Segment `s`'s `(byte offset, bits per frame)`, if the table has it.
    #[inline]
    pub fn segment(&self, s: usize) -> Option<(usize, usize)> {
        let word = |i: usize| {
            let b = self.data.get(4 * i..4 * i + 4)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        Some((word(2 * s)?, word(2 * s + 1)?))
    }
}

/// The four bytes of `table` from `byte`, little-endian.
///
/// # Safety
/// `byte + 4 <= table.len()`.
#[inline(always)]
unsafe fn table_word(table: &[u8], byte: usize) -> u32 {
    debug_assert!(byte + 4 <= table.len());
    // SAFETY: the caller keeps the four bytes within `table`; an unaligned read of plain bytes.
    u32::from_le_bytes(unsafe { table.as_ptr().add(byte).cast::<[u8; 4]>().read_unaligned() })
}

/// The eight bytes of `data` from `byte`, little-endian; `None` past the end.
#[inline(always)]
pub fn load_word(data: &[u8], byte: usize) -> Option<u64> {
    let bytes: [u8; 8] = data.get(byte..byte.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(bytes))
}

/// Reads `bits` (≤ [`MAX_BITS`]) bits at bit `at` of `data`, least significant first; `None` unless 8 bytes
/// are readable from `at / 8` (a validated clip keeps [`COMPRESSED_SLACK`] of them after its last bit).
#[inline(always)]
pub fn read_bits(data: &[u8], at: usize, bits: u32) -> Option<u32> {
    Some(((load_word(data, at / 8)? >> (at % 8)) & ((1u64 << bits) - 1)) as u32)
}

/// Checks a compressed clip's ranges and segments: every range finite with non-negative extents (rotation
/// ranges within `[-1, 1]`), and every segment's offset, track table, bit count and bits inside `data` with
/// [`COMPRESSED_SLACK`] bytes to spare. O(segments × tracks), no allocation.
pub(super) fn check_compressed(
    num_frames: usize,
    num_tracks: [usize; 3],
    keys: CompressedKeys<'_>,
) -> Result<(), Error> {
    let [t, r, _] = num_tracks;
    let tracks: usize = num_tracks.iter().sum();
    let is_rotation = |k: usize| (t..t + r).contains(&k);
    crate::error::check_len(Buffer::QuantRanges, tracks, keys.ranges.len())?;
    for (index, range) in keys.ranges.iter().enumerate() {
        let n = if is_rotation(index) { 4 } else { 3 };
        check_values(Buffer::QuantRanges, index, &range.min[..n])?;
        check_values(Buffer::QuantRanges, index, &range.extent[..n])?;
        for (&min, &extent) in range.min[..n].iter().zip(&range.extent[..n]) {
            if extent < 0.0 {
                return Err(Error::Subnormal { buffer: Buffer::QuantRanges, index });
            }
            if !(min + extent).is_finite() {
                return Err(Error::NonFinite { buffer: Buffer::QuantRanges, index });
            }
            if is_rotation(index) && (min < -1.0 || min + extent > 1.0) {
                return Err(Error::RotationLength { buffer: Buffer::QuantRanges, index });
            }
        }
    }
    for segment in 0..num_frames.div_ceil(SEGMENT_FRAMES) {
        let bad = |track| Error::CompressedSegment { segment, track };
        let (offset, frame_bits) = keys.segment(segment).ok_or(bad(None))?;
        let table_end = offset.checked_add(SEGMENT_TRACK_BYTES * tracks).ok_or(bad(None))?;
        let table = keys.data.get(offset..table_end).ok_or(bad(None))?;
        let mut bits = 0;
        for track in 0..tracks {
            bits += SegmentTrack::read(table, track, is_rotation(track)).ok_or(bad(Some(track)))?.frame_bits() as usize;
        }
        let frames = SEGMENT_FRAMES.min(num_frames - segment * SEGMENT_FRAMES);
        let end = (frames.checked_mul(frame_bits).ok_or(bad(None))?.div_ceil(8))
            .checked_add(table_end + COMPRESSED_SLACK)
            .ok_or(bad(None))?;
        if bits != frame_bits || end > keys.data.len() {
            return Err(bad(None));
        }
    }
    Ok(())
}
