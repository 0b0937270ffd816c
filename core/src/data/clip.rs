//! Runtime animation clips: uniform-rate keyframes with per-track elision, full `f32` or quantized.
//!
//! Layout: a clip borrows its arrays (from an asset blob or caller memory) and copies nothing. Each joint has
//! three tracks (translation, rotation, scale); each track is one of
//! - **rest**: equal to the skeleton's rest pose; stores nothing;
//! - **constant**: one value for the whole clip (a [`ConstantTrack`], 20 bytes);
//! - **animated**: one key per frame.
//!
//! Animated tracks are listed per channel in ascending joint order (`track_joints`: translation tracks, then
//! rotation tracks, then scale tracks). Keys are stored frame by frame so that decoding one frame reads one
//! contiguous run: frame `f` holds every animated translation key (3 values), then every rotation key, then
//! every scale key.
//! - [`Keys::F32`]: 3 / 4 / 3 `f32` per translation / rotation / scale key, track after track; except that a
//!   run of four tracks filling one lane group (see [`track_runs`]) is stored component-major (the four
//!   `x`, then the four `y`, …), so it decodes as whole SoA vectors.
//! - [`Keys::Quantized`]: 3 `u16` per key of any channel (6 bytes), track after track, except that a run of four
//!   rotation tracks filling one lane group is stored component-major (the four first `u16`, …) and decodes as
//!   one SoA operation ([`decode_rotations`]). Translation and scale keys are
//!   `min + q * step` per component, with one [`QuantRange`] per animated translation and scale track.
//!   Rotations are smallest-three: see [`decode_rotation`].
//! - [`Keys::Compressed`]: segments of [`SEGMENT_FRAMES`] frames, each track with its own bit rate per segment
//!   (0 to [`MAX_BITS`] bits per component, chosen at bake by an error-driven search) and its values range
//!   reduced twice: to the clip's range of the track ([`TrackRange`], `f32`) and within it to the segment's
//!   (`u8` 255ths, [`SegmentTrack`]). Rotations store three components per segment and rebuild the fourth;
//!   which one is dropped is chosen per segment, so it is never near zero. Decoding a frame reads one
//!   contiguous run of bits: O(1) random access like the other encodings.
//!
//! **Curves.** A clip may also carry scalar curve tracks (blend-shape weights, IK weights, speed curves), one
//! value per frame each, sampled by the same job at the same times ([`Curves`]): `f32` values frame by frame,
//! or the compressed format above with each curve a one-component track whose bits were chosen against the
//! curve's own precision (an absolute bound in its units).
//!
//! Time: frame `f` sits at `f / sample_rate` seconds; the clip lasts `(num_frames - 1) / sample_rate`.
//!
//! Precision: `f32` keys come back exactly. Compressed keys are within what the baker's search allowed. Quantized translation and scale are within `step / 2` per
//! component; quantized rotations store three components within 2.2e-5 (half a 15-bit step over ±1/√2),
//! which bounds the rotation angle error by `ROTATION_ANGLE_ERROR` = 1.5e-4 rad (0.15 mm at 1 m).
//!
//! Errors: [`Clip::new`] validates everything once (counts, joint ranges and order, finite values, no
//! subnormal values so sampling never runs into denormal slow paths, usable quantization ranges); sampling
//! then trusts the clip.

use crate::error::{Buffer, Error};
use crate::limits::MIN_ROTATION_LENGTH_SQ;
pub use crate::limits::{
    MAX_CLIP_CURVES, MAX_CURVE_MAGNITUDE, MAX_DURATION, MAX_JOINTS, MAX_ROTATION_LENGTH_SQ, MAX_SAMPLE_RATE,
    MIN_KEY_MAGNITUDE, MIN_SAMPLE_RATE,
};
use crate::math::F4;
use bytemuck::{Pod, Zeroable};

/// The three tracks of a joint, in storage order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum Channel {
    /// Translation, 3 components.
    Translation = 0,
    /// Rotation, a quaternion.
    Rotation = 1,
    /// Scale, 3 components.
    Scale = 2,
}

impl Channel {
    /// The three, in storage order.
    pub const ALL: [Channel; 3] = [Channel::Translation, Channel::Rotation, Channel::Scale];

    /// `f32` values per key when stored unquantized.
    #[inline]
    pub const fn f32_components(self) -> usize {
        match self {
            Channel::Rotation => 4,
            _ => 3,
        }
    }

    /// First `f32` of this channel's `x` component within a `SoaTransform` (lane 0).
    #[inline]
    pub(crate) const fn soa_offset(self) -> usize {
        match self {
            Channel::Translation => 0,
            Channel::Rotation => 12,
            Channel::Scale => 28,
        }
    }

    /// The channel of a stored tag.
    pub fn from_u16(v: u16) -> Option<Channel> {
        match v {
            0 => Some(Channel::Translation),
            1 => Some(Channel::Rotation),
            2 => Some(Channel::Scale),
            _ => None,
        }
    }
}

/// A track that holds one value for the whole clip. `value` is `(x, y, z, w)` for rotations and
/// `(x, y, z, 0)` for translation and scale.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct ConstantTrack {
    /// The skeleton joint.
    pub joint: u16,
    /// `Channel as u16`.
    pub channel: u16,
    /// The value (see above).
    pub value: [f32; 4],
}

/// Dequantization of one translation or scale track: component `c` is `min[c] + q * step[c]`, `q` a `u16`.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct QuantRange {
    /// Per component, the value at `q = 0`.
    pub min: [f32; 3],
    /// Per component, the value one `q` step adds.
    pub step: [f32; 3],
}

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

/// One scalar curve's decoding within one segment of compressed curves (see [`CurveKeys`]): a level decodes
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

/// Key storage of a clip's animated tracks, frame by frame (see the module docs).
#[derive(Clone, Copy, Debug)]
pub enum Keys<'a> {
    /// `f32` values: `f32_components` per track per frame.
    F32(&'a [f32]),
    /// 16-bit levels and their ranges.
    Quantized {
        /// Three `u16` per track per frame (rotations smallest-three).
        keys: &'a [u16],
        /// One per animated translation track, then one per animated scale track.
        ranges: &'a [QuantRange],
    },
    /// Segments with a bit rate per component.
    Compressed(CompressedKeys<'a>),
}

/// Storage encoding tag, as written in asset blobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Encoding {
    /// Full-precision `f32` keys.
    F32 = 0,
    /// 16-bit keys with per-track ranges.
    Quantized = 1,
    /// Segments with a bit rate per component (see `CompressedKeys`).
    Compressed = 2,
}

/// Bound on the rotation angle between a unit quaternion and its smallest-three round trip, in radians.
pub const ROTATION_ANGLE_ERROR: f32 = 1.5e-4;

/// Largest magnitude of a smallest-three component: the three smallest of a unit quaternion are ≤ 1/√2.
const SMALLEST_THREE_RANGE: f32 = core::f32::consts::FRAC_1_SQRT_2;
/// Quantization levels of a smallest-three component (15 bits; the 16th carries part of the index).
const SMALLEST_THREE_LEVELS: f32 = 32767.0;

/// Decodes a smallest-three rotation: the low 15 bits of each `u16` are the three components other than the
/// largest, mapped from `[-1/√2, 1/√2]`; the top bits of `k[0]` and `k[1]` give the largest one's index; the
/// largest is stored positive (q and −q are the same rotation) and rebuilt as `sqrt(1 − a² − b² − c²)`.
///
/// Precision: stored components within 2.2e-5; the rebuilt one absorbs up to 3× that when all four are near
/// 0.5, so the rotation angle error is at most 2·√12·2.2e-5 = `ROTATION_ANGLE_ERROR` (1.5e-4 rad; measured
/// 1.3e-4 over 100 000 random rotations). Never returns a zero quaternion (the
/// rebuilt component is at least 0.5 for any encoder output, and the others are then small).
#[inline]
pub fn decode_rotation(k: [u16; 3]) -> [f32; 4] {
    // One lane of the SoA decode, so the scalar and the group paths agree bit for bit.
    let q = decode_rotations([k[0]; 4], [k[1]; 4], [k[2]; 4]);
    [q.x.lane::<0>(), q.y.lane::<0>(), q.z.lane::<0>(), q.w.lane::<0>()]
}

/// [`decode_rotation`] for four keys at once, SoA: `k0`, `k1`, `k2` hold the first, second and third `u16` of
/// each of four keys (one per lane). Same results as four scalar decodes.
#[inline(always)]
pub fn decode_rotations(k0: [u16; 4], k1: [u16; 4], k2: [u16; 4]) -> crate::math::SoaQuat {
    use crate::math::F4;
    let scale = F4::splat(2.0 * SMALLEST_THREE_RANGE / SMALLEST_THREE_LEVELS);
    let offset = F4::splat(-SMALLEST_THREE_RANGE);
    let component = |k: [u16; 4]| {
        let levels = k.map(|v| (v & 0x7fff) as f32);
        F4::new(levels[0], levels[1], levels[2], levels[3]).mul_add(scale, offset)
    };
    let (a, b, c) = (component(k0), component(k1), component(k2));
    let rest = a.mul_add(a, b.mul_add(b, c * c));
    let largest = (F4::ONE - rest).max(F4::ZERO).sqrt();
    let index = core::array::from_fn::<f32, 4, _>(|l| ((k0[l] >> 15) | ((k1[l] >> 15) << 1)) as f32);
    let index = F4::new(index[0], index[1], index[2], index[3]);
    let is = |i: f32| index.cmp_eq(F4::splat(i));
    crate::math::SoaQuat {
        x: F4::select(is(0.0), largest, a),
        y: F4::select(is(0.0), a, F4::select(is(1.0), largest, b)),
        z: F4::select(is(3.0), c, F4::select(is(2.0), largest, b)),
        w: F4::select(is(3.0), largest, c),
    }
}

/// Encodes a unit quaternion `(x, y, z, w)` for [`decode_rotation`]. The input need not be normalized; it
/// must be finite and non-zero (the result is unspecified otherwise). The baker's: built with the `tools`
/// feature only.
#[cfg(feature = "tools")]
pub fn encode_rotation(q: [f32; 4]) -> [u16; 3] {
    let len = crate::math::sqrt(q.iter().map(|v| v * v).sum::<f32>());
    let mut largest = 0;
    for i in 1..4 {
        if q[i].abs() > q[largest].abs() {
            largest = i;
        }
    }
    let sign = if q[largest] < 0.0 { -1.0 } else { 1.0 };
    let mut out = [0u16; 3];
    let mut slot = 0;
    for (i, &v) in q.iter().enumerate() {
        if i == largest {
            continue;
        }
        let unit = (v * sign / len).clamp(-SMALLEST_THREE_RANGE, SMALLEST_THREE_RANGE);
        let level = libm::roundf((unit + SMALLEST_THREE_RANGE) / (2.0 * SMALLEST_THREE_RANGE) * SMALLEST_THREE_LEVELS);
        out[slot] = level as u16;
        slot += 1;
    }
    out[0] |= ((largest & 1) as u16) << 15;
    out[1] |= ((largest >> 1) as u16) << 15;
    out
}

/// A channel's animated tracks (`joints` strictly ascending) as runs `(first track, length)`: a length of
/// `4m` covers `m` whole lane groups without a gap, each group's four tracks stored component-major (the
/// four `x`, then the four `y`, …); a length of 1 is a single track. A fully animated channel is one run, so a
/// decoder copies it in one loop with no per-group bookkeeping.
pub fn track_runs(joints: &[u16]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut k = 0;
    core::iter::from_fn(move || {
        if k >= joints.len() {
            return None;
        }
        let run = match whole_groups(joints, k) {
            0 => 1,
            m => 4 * m,
        };
        k += run;
        Some((k - run, run))
    })
}

/// Where each track's `n`-component `f32` key sits within its channel's block of one frame: `(track, first
/// component, stride between components)`. Whole lane groups are component-major (component `c` of lane `l`
/// of the group at track `g` is at `n·g + 4c + l`); single tracks are contiguous.
fn f32_key_layout(joints: &[u16], n: usize) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    track_runs(joints).flat_map(move |(k, run)| {
        let width = run.min(4);
        (k..k + run).map(move |track| {
            let (group, lane) = (k + (track - k) / 4 * 4, (track - k) % 4);
            (track, n * group + lane, width)
        })
    })
}

/// How many whole lane groups the tracks from `k` on cover without a gap: the largest `m` with tracks
/// `k .. k + 4m` being joints `4g .. 4g + 4m`. Strictly ascending joints are gap-free over a stretch exactly
/// when its last joint is its length − 1 above its first, and then over every shorter stretch too, so a
/// binary search finds `m`.
pub(crate) fn whole_groups(joints: &[u16], k: usize) -> usize {
    let first = joints[k] as usize;
    if !first.is_multiple_of(4) {
        return 0;
    }
    let gap_free = |m: usize| joints[k + 4 * m - 1] as usize == first + 4 * m - 1;
    let (mut known, mut most) = (0, (joints.len() - k) / 4);
    while known < most {
        let mid = (known + most).div_ceil(2);
        if gap_free(mid) {
            known = mid;
        } else {
            most = mid - 1;
        }
    }
    known
}

/// Storage of a clip's scalar curve tracks.
///
/// Layout:
/// - [`CurveKeys::F32`]: frame by frame, each frame every curve's value in curve order (`count × num_frames`
///   values);
/// - [`CurveKeys::Compressed`]: [`CompressedKeys`] laid out as for a clip whose animated tracks are `count`
///   translation tracks: each curve is component `x` of one track (its `y` and `z` take no bits), its
///   [`TrackRange`] the clip's range of the curve, its bits per segment chosen by the baker against the
///   curve's precision.
///
/// Precision: `f32` values come back exactly; compressed ones within the precision the baker was given.
#[derive(Clone, Copy, Debug)]
pub enum CurveKeys<'a> {
    /// `num_curves × num_frames` values, curve after curve.
    F32(&'a [f32]),
    /// One-component tracks in the compressed layout.
    Compressed(CompressedKeys<'a>),
}

/// A clip's scalar curve tracks: how many, and their values.
#[derive(Clone, Copy, Debug)]
pub struct Curves<'a> {
    /// `0 ..= MAX_CLIP_CURVES`.
    pub count: usize,
    /// The values.
    pub keys: CurveKeys<'a>,
}

impl Curves<'_> {
    /// No curves.
    pub const NONE: Curves<'static> = Curves { count: 0, keys: CurveKeys::F32(&[]) };

    /// Errors: `Limit` (`ClipCurves`) past [`MAX_CLIP_CURVES`]; for `f32` values, `BufferLength` (`CurveKeys`)
    /// unless `count × num_frames` of them, `NonFinite` / `Subnormal` for a bad value; compressed, what a
    /// compressed clip's keys are checked for (`QuantRanges` naming a curve's range, `CompressedSegment`
    /// naming a curve as its track); `CurveMagnitude` for a value, or a compressed curve's range, past
    /// [`MAX_CURVE_MAGNITUDE`].
    pub(crate) fn check(&self, num_frames: usize) -> Result<(), Error> {
        if self.count > MAX_CLIP_CURVES {
            return Err(Error::Limit {
                what: crate::error::Limit::ClipCurves,
                value: self.count,
                max: MAX_CLIP_CURVES,
            });
        }
        let within = |v: f32| v.abs() <= MAX_CURVE_MAGNITUDE;
        match self.keys {
            CurveKeys::F32(values) => {
                crate::error::check_len(Buffer::CurveKeys, self.count.saturating_mul(num_frames), values.len())?;
                for (index, v) in values.iter().enumerate() {
                    check_values(Buffer::CurveKeys, index, core::slice::from_ref(v))?;
                    if !within(*v) {
                        return Err(Error::CurveMagnitude { index });
                    }
                }
                Ok(())
            }
            CurveKeys::Compressed(keys) => {
                check_compressed(num_frames, [self.count, 0, 0], keys)?;
                // Only `x` is decoded; its range bounds every value the curve's levels can give.
                match keys.ranges.iter().position(|r| !(within(r.min[0]) && within(r.min[0] + r.extent[0]))) {
                    Some(index) => Err(Error::CurveMagnitude { index }),
                    None => Ok(()),
                }
            }
        }
    }
}

/// A validated clip borrowing its arrays.
#[derive(Clone, Copy, Debug)]
pub struct Clip<'a> {
    num_joints: usize,
    sample_rate: f32,
    num_frames: usize,
    constants: &'a [ConstantTrack],
    track_joints: &'a [u16],
    num_tracks: [usize; 3],
    keys: Keys<'a>,
    curves: Curves<'a>,
}

/// The parts of a clip, before validation.
#[derive(Clone, Copy, Debug)]
pub struct ClipParts<'a> {
    /// Joints of the skeleton this clip animates.
    pub num_joints: usize,
    /// Frames per second, finite and positive.
    pub sample_rate: f32,
    /// At least 1.
    pub num_frames: usize,
    /// The constant tracks, in channel then joint order.
    pub constants: &'a [ConstantTrack],
    /// Joints of the animated tracks: `num_tracks[0]` translation, then rotation, then scale, each ascending.
    pub track_joints: &'a [u16],
    /// Animated tracks per channel: translation, rotation, scale.
    pub num_tracks: [usize; 3],
    /// The animated tracks' keys.
    pub keys: Keys<'a>,
}

/// `Err` unless a stored rotation's squared length lies in `MIN_ROTATION_LENGTH_SQ..=MAX_ROTATION_LENGTH_SQ`.
fn check_rotation_length(len_sq: f32, buffer: Buffer, index: usize) -> Result<(), Error> {
    if len_sq < MIN_ROTATION_LENGTH_SQ {
        return Err(Error::ZeroQuaternion { buffer, index });
    }
    if len_sq > MAX_ROTATION_LENGTH_SQ {
        return Err(Error::RotationLength { buffer, index });
    }
    Ok(())
}

impl<'a> Clip<'a> {
    /// Validates and wraps a clip.
    ///
    /// Errors:
    /// - `JointCount` unless `1 <= num_joints <= MAX_JOINTS`; `InvalidSampleRate` unless the rate lies in
    ///   `MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE`; `FrameCount` unless `num_frames >= 1` and the clip lasts at most
    ///   `MAX_DURATION`;
    /// - `BufferLength` (`TrackJoints`) unless it holds `num_tracks` summed; (`ClipKeys`) unless the keys hold
    ///   `num_frames` frames; (`QuantRanges`) unless one range per animated translation and scale track;
    /// - `JointOutOfRange` for a track or constant naming a joint past `num_joints`; `TrackOrder` when a
    ///   channel's animated joints are not strictly ascending, or a joint's channel is both constant and
    ///   animated, or constant twice, or constants are not in channel-then-joint order; `InvalidChannel` for a
    ///   constant's unknown channel tag;
    /// - `ZeroQuaternion` / `RotationLength` for a rotation key or constant whose squared length is below
    ///   `MIN_ROTATION_LENGTH_SQ` or above `MAX_ROTATION_LENGTH_SQ`;
    /// - `NonFinite` / `ZeroQuaternion` / `Subnormal` for a bad value in `Constants`, `ClipKeys` or
    ///   `QuantRanges` (index = the element: constant, key value, or range), and `Subnormal` also for a
    ///   negative quantization step.
    pub fn new(parts: ClipParts<'a>) -> Result<Clip<'a>, Error> {
        let ClipParts { num_joints, sample_rate, num_frames, constants, track_joints, num_tracks, keys } = parts;
        if num_joints == 0 || num_joints > MAX_JOINTS {
            return Err(Error::JointCount { count: num_joints, max: MAX_JOINTS });
        }
        if !(MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE).contains(&sample_rate) {
            return Err(Error::InvalidSampleRate);
        }
        // Compared in f64: the frame count is a u32 in blobs, exact there.
        if num_frames == 0 || (num_frames - 1) as f64 > MAX_DURATION as f64 * sample_rate as f64 {
            return Err(Error::FrameCount { frames: num_frames });
        }
        let total_tracks = num_tracks.iter().try_fold(0usize, |acc, &n| acc.checked_add(n));
        crate::error::check_len(Buffer::TrackJoints, total_tracks.unwrap_or(usize::MAX), track_joints.len())?;

        // One bit per (joint, channel): each may be animated or constant at most once.
        let mut used = [0u8; MAX_JOINTS];
        let mut start = 0;
        for (channel, &count) in Channel::ALL.iter().zip(&num_tracks) {
            let joints = &track_joints[start..start + count];
            for (i, &joint) in joints.iter().enumerate() {
                if joint as usize >= num_joints {
                    return Err(Error::JointOutOfRange { joint: joint as usize, num_joints });
                }
                if i > 0 && joints[i - 1] >= joint {
                    return Err(Error::TrackOrder { joint: joint as usize, channel: *channel as u16 });
                }
                used[joint as usize] |= 1 << *channel as u16;
            }
            start += count;
        }
        for (index, c) in constants.iter().enumerate() {
            let channel = Channel::from_u16(c.channel).ok_or(Error::InvalidChannel { index, channel: c.channel })?;
            let joint = c.joint as usize;
            if joint >= num_joints {
                return Err(Error::JointOutOfRange { joint, num_joints });
            }
            // Channel-major, joints ascending, so one joint's constants are found by binary search.
            if index > 0 && (constants[index - 1].channel, constants[index - 1].joint) >= (c.channel, c.joint) {
                return Err(Error::TrackOrder { joint, channel: c.channel });
            }
            let bit = 1 << channel as u16;
            if used[joint] & bit != 0 {
                return Err(Error::TrackOrder { joint, channel: c.channel });
            }
            used[joint] |= bit;
            let value = &c.value[..channel.f32_components()];
            check_values(Buffer::Constants, index, value)?;
            if channel == Channel::Rotation {
                check_rotation_length(value.iter().map(|v| v * v).sum::<f32>(), Buffer::Constants, index)?;
            }
        }

        let clip = Clip::from_validated(parts);
        let frame_len = clip.frame_len();
        let frames_len = frame_len.saturating_mul(num_frames);
        match keys {
            // Compressed frames vary in bits: the segments are checked instead of a key count.
            Keys::Compressed(keys) => check_compressed(num_frames, num_tracks, keys)?,
            Keys::F32(values) => {
                crate::error::check_len(Buffer::ClipKeys, frames_len, values.len())?;
                for (f, frame) in values.chunks_exact(frame_len.max(1)).enumerate() {
                    for (i, v) in frame.iter().enumerate() {
                        check_values(Buffer::ClipKeys, f * frame_len + i, core::slice::from_ref(v))?;
                    }
                    let first = 3 * num_tracks[0];
                    let rotations = &frame[first..first + 4 * num_tracks[1]];
                    let joints = &track_joints[num_tracks[0]..num_tracks[0] + num_tracks[1]];
                    for (_, at, stride) in f32_key_layout(joints, 4) {
                        let len_sq: f32 = (0..4).map(|c| rotations[at + stride * c]).map(|v| v * v).sum();
                        check_rotation_length(len_sq, Buffer::ClipKeys, f * frame_len + first + at)?;
                    }
                }
            }
            Keys::Quantized { keys, ranges } => {
                crate::error::check_len(Buffer::ClipKeys, frames_len, keys.len())?;
                crate::error::check_len(Buffer::QuantRanges, num_tracks[0] + num_tracks[2], ranges.len())?;
                for (index, r) in ranges.iter().enumerate() {
                    check_values(Buffer::QuantRanges, index, &r.min)?;
                    check_values(Buffer::QuantRanges, index, &r.step)?;
                    if r.step.iter().any(|s| *s < 0.0) {
                        return Err(Error::Subnormal { buffer: Buffer::QuantRanges, index });
                    }
                    // The largest decoded value must stay finite too.
                    if r.min.iter().zip(&r.step).any(|(m, s)| !(m + s * u16::MAX as f32).is_finite()) {
                        return Err(Error::NonFinite { buffer: Buffer::QuantRanges, index });
                    }
                }
            }
        }
        Ok(clip)
    }

    /// Wraps parts that `new` accepted before (the asset loader validates once, at load).
    pub(crate) fn from_validated(parts: ClipParts<'a>) -> Clip<'a> {
        let ClipParts { num_joints, sample_rate, num_frames, constants, track_joints, num_tracks, keys } = parts;
        let curves = Curves::NONE;
        Clip { num_joints, sample_rate, num_frames, constants, track_joints, num_tracks, keys, curves }
    }

    /// The clip carrying `curves` (in place of any it had), one value per frame each.
    ///
    /// Errors: see [`Curves`]' checks: too many curves, a value count other than `count × num_frames`, a bad
    /// value, an inconsistent compressed segment.
    pub fn with_curves(self, curves: Curves<'a>) -> Result<Clip<'a>, Error> {
        curves.check(self.num_frames)?;
        Ok(self.with_validated_curves(curves))
    }

    /// [`Clip::with_curves`] for curves checked before (the asset loader checks once, at load).
    pub(crate) fn with_validated_curves(self, curves: Curves<'a>) -> Clip<'a> {
        Clip { curves, ..self }
    }

    /// The clip's scalar curve tracks.
    #[inline]
    pub fn curves(&self) -> Curves<'a> {
        self.curves
    }

    /// How many scalar curve tracks the clip carries.
    #[inline]
    pub fn num_curves(&self) -> usize {
        self.curves.count
    }

    /// Joints of the skeleton this clip animates.
    #[inline]
    pub fn num_joints(&self) -> usize {
        self.num_joints
    }

    /// Frames per second.
    #[inline]
    pub fn sample_rate(&self) -> f32 {
        self.sample_rate
    }

    /// Key frames, at least 1.
    #[inline]
    pub fn num_frames(&self) -> usize {
        self.num_frames
    }

    /// Seconds from the first to the last frame: `(num_frames - 1) / sample_rate`.
    #[inline]
    pub fn duration(&self) -> f32 {
        (self.num_frames - 1) as f32 / self.sample_rate
    }

    /// The constant tracks, in channel then joint order.
    #[inline]
    pub fn constants(&self) -> &'a [ConstantTrack] {
        self.constants
    }

    /// Joints of the animated tracks of `channel`, ascending.
    #[inline]
    pub fn animated_joints(&self, channel: Channel) -> &'a [u16] {
        let start: usize = self.num_tracks[..channel as usize].iter().sum();
        &self.track_joints[start..start + self.num_tracks[channel as usize]]
    }

    /// All animated track joints, translation then rotation then scale.
    #[inline]
    pub fn track_joints(&self) -> &'a [u16] {
        self.track_joints
    }

    /// Animated tracks per channel.
    #[inline]
    pub fn num_tracks(&self) -> [usize; 3] {
        self.num_tracks
    }

    /// The animated tracks' keys.
    #[inline]
    pub fn keys(&self) -> Keys<'a> {
        self.keys
    }

    /// How the keys are stored.
    #[inline]
    pub fn encoding(&self) -> Encoding {
        match self.keys {
            Keys::F32(_) => Encoding::F32,
            Keys::Quantized { .. } => Encoding::Quantized,
            Keys::Compressed(_) => Encoding::Compressed,
        }
    }

    /// Stored elements (`f32` or `u16`) per frame; 0 for compressed clips, whose frames vary in bits.
    #[inline]
    pub fn frame_len(&self) -> usize {
        let [t, r, s] = self.num_tracks;
        match self.keys {
            Keys::F32(_) => 3 * t + 4 * r + 3 * s,
            Keys::Quantized { .. } => 3 * (t + r + s),
            Keys::Compressed(_) => 0,
        }
    }

    /// Largest |component| of each stored track of `channel` (constant or animated), written to
    /// `extent[joint]`; entries of joints whose track is the rest pose are left as they are. Quantized tracks
    /// report their range's bound, rotations 1.
    ///
    /// Errors: `BufferLength` (`ClipJoints`) unless `extent.len() == num_joints`.
    pub fn track_extents(&self, channel: Channel, extent: &mut [f32]) -> Result<(), Error> {
        crate::error::check_len(Buffer::ClipJoints, self.num_joints, extent.len())?;
        let n = channel.f32_components();
        for c in self.constants.iter().filter(|c| c.channel == channel as u16) {
            extent[c.joint as usize] = c.value[..n].iter().fold(0.0, |m, v| m.max(v.abs()));
        }
        let joints = self.animated_joints(channel);
        for &joint in joints {
            extent[joint as usize] = 0.0;
        }
        match self.keys {
            Keys::F32(values) if !joints.is_empty() => {
                let [t, r, _] = self.num_tracks;
                let start = match channel {
                    Channel::Translation => 0,
                    Channel::Rotation => 3 * t,
                    Channel::Scale => 3 * t + 4 * r,
                };
                for frame in values.chunks_exact(self.frame_len()) {
                    let block = &frame[start..start + n * joints.len()];
                    for (track, at, stride) in f32_key_layout(joints, n) {
                        let e = &mut extent[joints[track] as usize];
                        for c in 0..n {
                            *e = e.max(block[at + stride * c].abs());
                        }
                    }
                }
            }
            Keys::F32(_) => {}
            Keys::Compressed(keys) => {
                let first = match channel {
                    Channel::Translation => 0,
                    Channel::Rotation => {
                        joints.iter().for_each(|&j| extent[j as usize] = 1.0);
                        return Ok(());
                    }
                    Channel::Scale => self.num_tracks[0] + self.num_tracks[1],
                };
                for (&joint, r) in joints.iter().zip(&keys.ranges[first..]) {
                    let top = |c: usize| r.min[c].abs().max((r.min[c] + r.extent[c]).abs());
                    extent[joint as usize] = top(0).max(top(1)).max(top(2));
                }
            }
            Keys::Quantized { ranges, .. } => {
                let first = match channel {
                    Channel::Translation => 0,
                    Channel::Rotation => {
                        joints.iter().for_each(|&j| extent[j as usize] = 1.0);
                        return Ok(());
                    }
                    Channel::Scale => self.num_tracks[0],
                };
                for (&joint, r) in joints.iter().zip(&ranges[first..]) {
                    let top = |c: usize| r.min[c].abs().max((r.min[c] + r.step[c] * u16::MAX as f32).abs());
                    extent[joint as usize] = top(0).max(top(1)).max(top(2));
                }
            }
        }
        Ok(())
    }

    /// Bytes of key and track data (what a frame-rate-independent size comparison should count).
    pub fn data_bytes(&self) -> usize {
        let keys = match self.keys {
            Keys::F32(k) => core::mem::size_of_val(k),
            Keys::Quantized { keys, ranges } => core::mem::size_of_val(keys) + core::mem::size_of_val(ranges),
            Keys::Compressed(keys) => keys.data.len() + core::mem::size_of_val(keys.ranges),
        };
        keys + core::mem::size_of_val(self.constants) + core::mem::size_of_val(self.track_joints)
    }

    /// Bytes of the scalar curve tracks' values (and ranges, compressed); not counted by
    /// [`Clip::data_bytes`].
    pub fn curve_bytes(&self) -> usize {
        match self.curves.keys {
            CurveKeys::F32(values) => core::mem::size_of_val(values),
            CurveKeys::Compressed(keys) => keys.data.len() + core::mem::size_of_val(keys.ranges),
        }
    }
}

/// Checks a compressed clip's ranges and segments: every range finite with non-negative extents (rotation
/// ranges within `[-1, 1]`), and every segment's offset, track table, bit count and bits inside `data` with
/// [`COMPRESSED_SLACK`] bytes to spare. O(segments × tracks), no allocation.
fn check_compressed(num_frames: usize, num_tracks: [usize; 3], keys: CompressedKeys<'_>) -> Result<(), Error> {
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

/// `Err` for a non-finite value, or a non-zero value below `MIN_KEY_MAGNITUDE`, in `values`.
fn check_values(buffer: Buffer, index: usize, values: &[f32]) -> Result<(), Error> {
    for v in values {
        if !v.is_finite() {
            return Err(Error::NonFinite { buffer, index });
        }
        if *v != 0.0 && v.abs() < MIN_KEY_MAGNITUDE {
            return Err(Error::Subnormal { buffer, index });
        }
    }
    Ok(())
}
