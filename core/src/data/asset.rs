//! Baked asset blobs: a skeleton and its clips, loaded zero-copy from `&[u8]` after full validation.
//!
//! Layout (little-endian, every section 16-byte aligned, sections in this order and disjoint; the format is
//! documented in `docs/asset-format.md`):
//!
//! ```text
//! Header (128 B) | parents i16[J] | rest pose SoaTransform[ceil(J/4)] | joint names StrRef[J] or empty
//!   | strings (UTF-8) | ClipRecord[C] (64 B each)
//!   | for each clip: constants ConstantTrack[] | track joints u16[] | keys f32[], u16[] or u8[]
//!     | ranges QuantRange[] or TrackRange[] | knot times f32[frames] (only with `KNOT_TIMES`)
//!   | Annotations[C] | Marker[] | Range[] | skin joint remap u16[S] | skin inverse binds Mat3x4[S]
//!   | PhaseRecord[C] or empty | phase values f32[] | CurveRecord[C] or empty, each clip's curve sections
//!   | (version 9) DatabaseRecord or empty | its groups, group names, mean, scale, features, boxes, entries,
//!     block summaries
//! ```
//!
//! From version 9 a 32-byte [`HeaderTail`] follows the header; it locates the motion database, which the
//! search of `motion_matching` reads (its layout and contract are `motion_database`'s).
//!
//! Annotations: per clip, its markers (instants: a footstep, an event, a sync point) and ranges (intervals: a
//! foot plant, a segment, a warp window), each with a name and a value, in the clip's local seconds. A clip's
//! markers and ranges are contiguous runs of the two tables, in clip order; markers sorted by time. The skin
//! (optional: `S` may be 0) is the one a [`crate::Skin`] wraps. Phases (optional: the section is empty when no
//! clip has one) are the stride tables the phase stage reads: per clip, a [`PhaseRecord`] whose values are a
//! run of the phase value table.
//!
//! Loading checks the magic, the version, the blob's own alignment (16 bytes: callers align their buffer),
//! every section's bounds, alignment, order and size, every string, and then the skeleton and every clip
//! through their validating constructors, and that no clip can carry a joint past
//! `skeleton::MAX_MODEL_EXTENT` in model space. Nothing is copied; the returned views borrow the blob.
//!
//! Errors: `BadMagic`, `UnsupportedVersion`, `Blob { section, problem }`, `BigEndianHost`, `Extent`, and
//! whatever `Skeleton::new` and `Clip::new` reject. No panics and no allocation, whatever the bytes.

use crate::data::clip::compressed::{CompressedKeys, TrackRange};
use crate::data::clip::curves::{CurveKeys, Curves};
use crate::data::clip::quantized::QuantRange;
use crate::data::clip::{Channel, Clip, ClipParts, ConstantTrack, Encoding, KNOT_TIMES, Keys, STEP_KEYS};
use crate::data::motion_database::{BlockInfo, FeatureGroup, FrameEntry, MotionDatabase, MotionDatabaseParts};
use crate::data::skeleton::{JointNames, MAX_JOINTS, Skeleton, check_model_extent, rest_extents};
use crate::error::{BlobProblem, DatabasePart, Error, Section};
use crate::math::lane::F4;
use crate::math::{SoaTransform, num_soa_joints};
use bytemuck::{Pod, Zeroable};

/// First eight bytes of every blob.
pub const MAGIC: [u8; 8] = *b"SINEWANM";
/// The format version this build writes. It also reads version 8, which had no header tail and no motion
/// database, version 7, whose clips have uniform frames, version 6, whose clips step all tracks or none, version
/// 5, which had no step keys, and versions 3 and 4 without compressed clips or curves: version 4 stored a
/// compressed segment's track table entry by entry rather than as rows, and version 3 had no curve tracks (its
/// `curves` field was reserved, zero).
pub const VERSION: u32 = 9;
/// The first version whose clip records may carry `clip::STEP_KEYS`.
const STEP_KEYS_VERSION: u32 = 6;
/// The first version whose track-joint sections may list step tracks and whose curve records may carry
/// `clip::STEP_KEYS`.
const STEP_TRACKS_VERSION: u32 = 7;
/// The first version whose clip records may carry `clip::KNOT_TIMES`.
const KNOTS_VERSION: u32 = 8;
/// The first version with a [`HeaderTail`] (and so a motion database).
pub const TAIL_VERSION: u32 = 9;
/// The first version whose compressed segment tables are rows (see [`SegmentTrack::entry`](crate::data::clip::compressed::SegmentTrack::entry)).
const ROW_TABLES: u32 = 5;
/// The oldest format version this build reads.
pub const OLDEST_VERSION: u32 = 3;
/// Bytes of the header.
pub const HEADER_LEN: usize = 128;
/// Bytes of the header tail that follows it from version 9.
pub const HEADER_TAIL_LEN: usize = 32;
/// Required alignment of the blob and of each section.
pub const ALIGN: usize = 16;

/// A byte range of the blob.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct SectionRef {
    /// Byte offset from the blob's start, a multiple of `ALIGN`.
    pub offset: u32,
    /// Length in bytes.
    pub len: u32,
}

pub use crate::data::skeleton::StrRef;

/// The blob's first 64 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct Header {
    /// `MAGIC`.
    pub magic: [u8; 8],
    /// The format version (`VERSION`, or an older one the loader reads).
    pub version: u32,
    /// The blob's length in bytes; a longer or shorter blob is rejected.
    pub total_len: u32,
    /// Joints of the skeleton.
    pub num_joints: u32,
    /// Clips.
    pub num_clips: u32,
    /// `i16` parent per joint, parents first.
    pub parents: SectionRef,
    /// The rest pose, SoA (`num_soa_joints` lane groups).
    pub rest_pose: SectionRef,
    /// Empty, or one `StrRef` per joint.
    pub joint_names: SectionRef,
    /// UTF-8 bytes every `StrRef` points into.
    pub strings: SectionRef,
    /// One [`ClipRecord`] per clip.
    pub clips: SectionRef,
    /// One [`Annotations`] per clip.
    pub annotations: SectionRef,
    /// Every clip's [`Marker`]s, clip after clip.
    pub markers: SectionRef,
    /// Every clip's [`Range`]s, clip after clip.
    pub ranges: SectionRef,
    /// The skin, both empty when there is none.
    pub skin_remap: SectionRef,
    /// One inverse bind matrix (`Mat3x4` rows) per skin joint.
    pub skin_inverse_bind: SectionRef,
    /// Empty, or one [`PhaseRecord`] per clip.
    pub phases: SectionRef,
    /// The `f32` values the phase records index.
    pub phase_values: SectionRef,
    /// Empty, or one [`CurveRecord`] per clip (version 4; zero in version 3).
    pub curves: SectionRef,
}

/// What follows the header from version 9 (32 bytes): the motion database's record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct HeaderTail {
    /// Empty, or one [`DatabaseRecord`].
    pub motion_database: SectionRef,
    /// Zero.
    pub reserved: [u32; 6],
}

/// The motion database's counts and parts (88 bytes); each part is a section after the record, in field order,
/// with the element count the counts give (`motion_database::DatabaseLayout`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct DatabaseRecord {
    /// Feature dimensions.
    pub dims: u32,
    /// Frames.
    pub frames: u32,
    /// `FeatureGroup`s.
    pub groups: SectionRef,
    /// One `StrRef` per group: its name in the schema.
    pub group_names: SectionRef,
    /// `f32` per dimension.
    pub mean: SectionRef,
    /// `f32` per dimension.
    pub scale: SectionRef,
    /// `f32` per dimension.
    pub spread: SectionRef,
    /// `F4`s, blocked.
    pub features: SectionRef,
    /// `F4`s, four blocks' boxes per lane group.
    pub block_boxes: SectionRef,
    /// `F4`s, four spans' boxes per lane group.
    pub span_boxes: SectionRef,
    /// One `FrameEntry` per frame.
    pub entries: SectionRef,
    /// One `BlockInfo` per block.
    pub block_infos: SectionRef,
}

/// Where one clip's annotations sit in the marker and range tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct Annotations {
    /// The clip's first marker in the marker table.
    pub first_marker: u32,
    /// Markers of the clip.
    pub num_markers: u32,
    /// The clip's first range in the range table.
    pub first_range: u32,
    /// Ranges of the clip.
    pub num_ranges: u32,
}

/// An instant of a clip: local time (seconds, in `[0, duration]`), a name and a value (both the author's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Marker {
    /// Local time, seconds.
    pub time: f32,
    /// The marker's name.
    pub name: StrRef,
    /// The author's value.
    pub value: f32,
}

/// An interval of a clip: `start ≤ end`, both local seconds in `[0, duration]`, a name and a value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Range {
    /// Local start time, seconds.
    pub start: f32,
    /// Local end time, seconds.
    pub end: f32,
    /// The range's name.
    pub name: StrRef,
    /// The author's value.
    pub value: f32,
}

/// One clip's stride phase (32 bytes; the phase stage, above this module, gives the meaning).
///
/// Layout: the phase values `[first, first + num_frames)` are the unwrapped phase (strides, nondecreasing,
/// the first in `[0, 1)`) at each key frame; the next `num_inverse` are clip times (seconds, nondecreasing) at
/// unwrapped phases `forward[0] + k / per_stride`. A clip without a phase has `num_frames == 0` and every other
/// field zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct PhaseRecord {
    /// The record's first value in the phase values.
    pub first: u32,
    /// The clip's key frames, or 0: no phase.
    pub num_frames: u32,
    /// Inverse samples (clip times at evenly spaced phases) after the key frames' phases.
    pub num_inverse: u32,
    /// Inverse samples per stride, `1..=MAX_PHASE_STEPS`.
    pub per_stride: u32,
    /// The stride signal's centre and half swing (file units), for the phase of a pose that has no table.
    pub center: f32,
    /// Half the stride signal's swing, file units.
    pub amplitude: f32,
    /// Left and right foot joints.
    pub feet: [u16; 2],
    /// Bit 0: match on blend in (the clip may be entered at a matched time); bit 1: on blend out.
    pub flags: u32,
}

/// Most inverse samples per stride a phase record may have.
pub const MAX_PHASE_STEPS: u32 = 1024;
/// [`PhaseRecord::flags`]: the clip may be entered at a matched time.
pub const MATCH_IN: u32 = 1;
/// [`PhaseRecord::flags`]: leaving the clip, its phase chooses the target's entry time.
pub const MATCH_OUT: u32 = 2;

/// One clip's scalar curve tracks (32 bytes): how many, how stored, and three sections of the blob, which
/// follow the curve records in clip order (a clip without curves has every field zero).
///
/// Layout: `names` is one [`StrRef`] per curve; `keys` is `f32[num_curves × num_frames]` (encoding 0) or the
/// compressed bytes (encoding 2, see [`CurveKeys`]); `ranges` is one [`TrackRange`] per curve when
/// compressed, else empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct CurveRecord {
    /// Curves of the clip.
    pub num_curves: u32,
    /// `Encoding as u32`: `F32` or `Compressed`, with `clip::STEP_KEYS` set when the curves step
    /// (`Clip::with_step_curves`, version 7 onward).
    pub encoding: u32,
    /// One [`StrRef`] per curve.
    pub names: SectionRef,
    /// The curves' values (see the layout above).
    pub keys: SectionRef,
    /// One [`TrackRange`] per curve when compressed, else empty.
    pub ranges: SectionRef,
}

/// One clip's description (64 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct ClipRecord {
    /// The clip's name.
    pub name: StrRef,
    /// Key frames per second.
    pub sample_rate: f32,
    /// Key frames (at least one).
    pub num_frames: u32,
    /// `Encoding as u32`, with `clip::STEP_KEYS` set for a clip with step keys (version 6 onward) and
    /// `clip::KNOT_TIMES` for one with knot times (version 8 onward), which follow its `ranges` at the next
    /// 16-byte boundary: one `f32` per frame, seconds (see `Clip::with_knots`).
    pub encoding: u32,
    /// Animated tracks: translation, rotation, scale.
    pub num_tracks: [u32; 3],
    /// The constant tracks (`ConstantTrack`s).
    pub constants: SectionRef,
    /// The animated tracks' joints (`u16` each), channel after channel; from version 7 they may be followed by
    /// the indices (`u16`, strictly ascending) of the tracks whose keys step (`Clip::with_step_tracks`), in a
    /// clip without `clip::STEP_KEYS`.
    pub track_joints: SectionRef,
    /// The keys: `f32`, quantized `u16` or compressed bytes, by `encoding`.
    pub keys: SectionRef,
    /// `QuantRange`s (quantized) or `TrackRange`s (compressed); empty for `f32` clips.
    pub ranges: SectionRef,
}

const _: () = assert!(core::mem::size_of::<Header>() == HEADER_LEN && core::mem::size_of::<ClipRecord>() == 64);
const _: () = assert!(core::mem::size_of::<PhaseRecord>() == 32 && core::mem::size_of::<CurveRecord>() == 32);
const _: () = assert!(core::mem::size_of::<HeaderTail>() == HEADER_TAIL_LEN);
const _: () = assert!(core::mem::size_of::<DatabaseRecord>() == 88);
const _: () = assert!(core::mem::size_of::<ConstantTrack>() == 20 && core::mem::size_of::<QuantRange>() == 24);

/// A loaded blob: a validated skeleton and clips, all borrowing the bytes.
#[derive(Clone, Copy, Debug)]
pub struct Asset<'a> {
    skeleton: Skeleton<'a>,
    strings: &'a str,
    records: &'a [ClipRecord],
    blob: &'a [u8],
    annotations: &'a [Annotations],
    markers: &'a [Marker],
    ranges: &'a [Range],
    skin: Option<crate::data::skin::Skin<'a>>,
    phases: &'a [PhaseRecord],
    phase_values: &'a [f32],
    curve_records: &'a [CurveRecord],
    motion_database: Option<MotionDatabase<'a>>,
    group_names: &'a [StrRef],
}

impl<'a> Asset<'a> {
    /// Validates `blob` completely and returns views into it. `blob` must start at a 16-byte aligned address.
    ///
    /// Cost: O(blob size) (every value is checked once, here, so sampling never re-checks).
    pub fn load(blob: &'a [u8]) -> Result<Asset<'a>, Error> {
        if cfg!(target_endian = "big") {
            return Err(Error::BigEndianHost);
        }
        let header_bytes = blob.get(..HEADER_LEN).ok_or(Error::Blob {
            section: Section::Header,
            problem: BlobProblem::OutOfBounds { end: Some(HEADER_LEN as u64), blob_len: blob.len() },
        })?;
        if header_bytes[..8] != MAGIC {
            return Err(Error::BadMagic);
        }
        let misaligned = Error::Blob {
            section: Section::Header,
            problem: BlobProblem::Misaligned { offset: (blob.as_ptr() as usize % ALIGN) as u64 },
        };
        if !(blob.as_ptr() as usize).is_multiple_of(ALIGN) {
            return Err(misaligned);
        }
        let header: &Header = bytemuck::try_from_bytes(header_bytes).map_err(|_| misaligned)?;
        if !(OLDEST_VERSION..=VERSION).contains(&header.version) {
            return Err(Error::UnsupportedVersion { found: header.version, supported: VERSION });
        }
        if header.total_len as usize != blob.len() {
            return Err(Error::Blob {
                section: Section::Header,
                problem: BlobProblem::Size { len: blob.len() as u64, expected: header.total_len as u64 },
            });
        }
        let num_joints = header.num_joints as usize;
        if num_joints == 0 || num_joints > MAX_JOINTS {
            return Err(Error::JointCount { count: num_joints, max: MAX_JOINTS });
        }

        if header.version < 4 && header.curves != SectionRef::default() {
            return Err(Error::Blob { section: Section::Header, problem: BlobProblem::Value { index: 0 } });
        }
        let tail = match header.version >= TAIL_VERSION {
            true => {
                let end = HEADER_LEN + HEADER_TAIL_LEN;
                let bytes = blob.get(HEADER_LEN..end).ok_or(Error::Blob {
                    section: Section::HeaderTail,
                    problem: BlobProblem::OutOfBounds { end: Some(end as u64), blob_len: blob.len() },
                })?;
                let tail: HeaderTail = bytemuck::pod_read_unaligned(bytes);
                if tail.reserved != [0; 6] {
                    return Err(Error::Blob { section: Section::HeaderTail, problem: BlobProblem::Value { index: 0 } });
                }
                Some(tail)
            }
            false => None,
        };
        let header_end = HEADER_LEN + if tail.is_some() { HEADER_TAIL_LEN } else { 0 };
        let mut cursor = Cursor::checking(blob, header_end as u64);
        let parents: &[i16] = cursor.section(Section::Parents, header.parents, Some(num_joints as u64))?;
        let rest_pose: &[SoaTransform] =
            cursor.section(Section::RestPose, header.rest_pose, Some(num_soa_joints(num_joints) as u64))?;
        let name_refs: &[StrRef] = cursor.section(Section::JointNames, header.joint_names, None)?;
        let string_bytes: &[u8] = cursor.section(Section::Strings, header.strings, None)?;
        let records: &[ClipRecord] =
            cursor.section(Section::ClipRecords, header.clips, Some(header.num_clips as u64))?;
        let strings = core::str::from_utf8(string_bytes).map_err(|e| Error::Blob {
            section: Section::Strings,
            problem: BlobProblem::Utf8 { index: e.valid_up_to() },
        })?;

        let names = match name_refs.len() {
            0 => JointNames::None,
            n if n == num_joints => {
                for (index, r) in name_refs.iter().enumerate() {
                    str_at(strings, *r)
                        .ok_or(Error::Blob { section: Section::JointNames, problem: BlobProblem::Value { index } })?;
                }
                JointNames::Table { refs: name_refs, strings }
            }
            n => {
                return Err(Error::Blob {
                    section: Section::JointNames,
                    problem: BlobProblem::Size { len: (n * 8) as u64, expected: (num_joints * 8) as u64 },
                });
            }
        };
        let skeleton = Skeleton::with_names(parents, rest_pose, names)?;

        let (mut translation, mut scale) = ([0.0; MAX_JOINTS], [0.0; MAX_JOINTS]);
        for (clip, record) in records.iter().enumerate() {
            str_at(strings, record.name).ok_or(Error::Blob {
                section: Section::ClipName { clip },
                problem: BlobProblem::Value { index: clip },
            })?;
            let (parts, step_tracks, knots) = clip_parts(&mut cursor, header.version, num_joints, clip, record)?;
            let validated = Clip::new(parts)?.with_step_tracks(step_tracks)?;
            if record.encoding & KNOT_TIMES != 0 {
                validated.with_knots(knots)?;
            }
            rest_extents(rest_pose, &mut translation[..num_joints], &mut scale[..num_joints]);
            validated.track_extents(Channel::Translation, &mut translation[..num_joints])?;
            validated.track_extents(Channel::Scale, &mut scale[..num_joints])?;
            check_model_extent(parents, &translation, &scale, Some(clip))?;
        }
        let num_clips = records.len() as u64;
        let annotations: &[Annotations] = cursor.section(Section::Annotations, header.annotations, Some(num_clips))?;
        let markers: &[Marker] = cursor.section(Section::Markers, header.markers, None)?;
        let ranges: &[Range] = cursor.section(Section::Ranges, header.ranges, None)?;
        check_annotations(blob, records, annotations, markers, ranges, strings)?;
        let skin_remap: &[u16] = cursor.section(Section::SkinRemap, header.skin_remap, None)?;
        let count = Some(skin_remap.len() as u64);
        let inverse_bind = cursor.section(Section::SkinInverseBinds, header.skin_inverse_bind, count)?;
        let skin = match skin_remap.len() {
            0 => None,
            _ => Some(crate::data::skin::Skin::new(num_joints, skin_remap, inverse_bind)?),
        };
        let phases: &[PhaseRecord] = cursor.section(Section::Phases, header.phases, None)?;
        let phase_values: &[f32] = cursor.section(Section::PhaseValues, header.phase_values, None)?;
        check_phases(blob, records, num_joints, phases, phase_values)?;
        let curve_records: &[CurveRecord] = match header.version {
            3 => &[],
            _ => cursor.section(Section::CurveRecords, header.curves, None)?,
        };
        if !curve_records.is_empty() && curve_records.len() != records.len() {
            return Err(Error::Blob {
                section: Section::CurveRecords,
                problem: BlobProblem::Size {
                    len: core::mem::size_of_val(curve_records) as u64,
                    expected: (records.len() * core::mem::size_of::<CurveRecord>()) as u64,
                },
            });
        }
        for (clip, (record, curves)) in records.iter().zip(curve_records).enumerate() {
            let (names, parts, _) = curve_parts(&mut cursor, header.version, clip, curves)?;
            for (index, name) in names.iter().enumerate() {
                str_at(strings, *name).ok_or(Error::Blob {
                    section: Section::CurveNames { clip },
                    problem: BlobProblem::Value { index },
                })?;
            }
            // The clip was checked above, its frame count with it; only the curves are new here.
            parts.check(record.num_frames as usize)?;
        }
        let database = match tail {
            Some(tail) => motion_database(&mut cursor, blob, tail.motion_database, records, strings)?,
            None => None,
        };
        let (motion_database, group_names) = database.map_or((None, &[][..]), |(db, names)| (Some(db), names));
        Ok(Asset {
            skeleton,
            strings,
            records,
            blob,
            annotations,
            markers,
            ranges,
            skin,
            phases,
            phase_values,
            curve_records,
            motion_database,
            group_names,
        })
    }

    /// The motion database baked with the clips, if any (version 9 onward).
    pub fn motion_database(&self) -> Option<&MotionDatabase<'a>> {
        self.motion_database.as_ref()
    }

    /// The name of the motion database's feature group `group` in the baker's schema.
    pub fn feature_group_name(&self, group: usize) -> Option<&'a str> {
        str_at(self.strings, *self.group_names.get(group)?)
    }

    /// The skin baked with the skeleton, if any.
    #[inline]
    pub fn skin(&self) -> Option<&crate::data::skin::Skin<'a>> {
        self.skin.as_ref()
    }

    /// Clip `index`'s markers, sorted by time (empty for a clip without any or an index out of range).
    pub fn markers(&self, index: usize) -> &'a [Marker] {
        let run = |a: &Annotations| self.markers.get(a.first_marker as usize..)?.get(..a.num_markers as usize);
        self.annotations.get(index).and_then(run).unwrap_or(&[])
    }

    /// Clip `index`'s ranges.
    pub fn ranges(&self, index: usize) -> &'a [Range] {
        let run = |a: &Annotations| self.ranges.get(a.first_range as usize..)?.get(..a.num_ranges as usize);
        self.annotations.get(index).and_then(run).unwrap_or(&[])
    }

    /// Clip `index`'s phase record and its two value runs (unwrapped phase per key frame, inverse times), or
    /// `None` when the clip has no phase.
    pub fn phase(&self, index: usize) -> Option<(&'a PhaseRecord, &'a [f32], &'a [f32])> {
        let record = self.phases.get(index).filter(|r| r.num_frames != 0)?;
        let values = self.phase_values.get(record.first as usize..)?;
        let (forward, rest) = values.split_at_checked(record.num_frames as usize)?;
        Some((record, forward, rest.get(..record.num_inverse as usize)?))
    }

    /// An annotation's name.
    pub fn name(&self, name: StrRef) -> Option<&'a str> {
        str_at(self.strings, name)
    }

    /// The skeleton.
    #[inline]
    pub fn skeleton(&self) -> &Skeleton<'a> {
        &self.skeleton
    }

    /// Clips in the asset.
    #[inline]
    pub fn num_clips(&self) -> usize {
        self.records.len()
    }

    /// Clip `index`, `None` past the last. O(1): the clip was validated by `load`.
    pub fn clip(&self, index: usize) -> Option<Clip<'a>> {
        let record = self.records.get(index)?;
        // `load` checked the blob's version against its encodings, so the newest version reads every record.
        let mut cursor = Cursor::validated(self.blob);
        let (parts, step_tracks, knots) =
            clip_parts(&mut cursor, VERSION, self.skeleton.num_joints(), index, record).ok()?;
        let clip = match record.encoding & STEP_KEYS {
            0 => Clip::from_validated(parts),
            _ => Clip::from_validated(parts).with_step_keys(),
        };
        let clip = clip.with_validated_step_tracks(step_tracks).with_validated_knots(knots);
        let Some(curves) = self.curve_records.get(index) else { return Some(clip) };
        let (_, curves, step) = curve_parts(&mut cursor, VERSION, index, curves).ok()?;
        let clip = clip.with_validated_curves(curves);
        Some(if step { clip.with_step_curves() } else { clip })
    }

    /// Clip `index`'s curve names, in curve order (empty for a clip without curves or an index out of range).
    pub fn curve_names(&self, index: usize) -> impl Iterator<Item = &'a str> + 'a {
        let record = self.curve_records.get(index).copied().unwrap_or_default();
        let names: &'a [StrRef] =
            curve_parts(&mut Cursor::validated(self.blob), VERSION, index, &record).map_or(&[], |(names, ..)| names);
        let strings = self.strings;
        names.iter().map(move |r| str_at(strings, *r).unwrap_or_default())
    }

    /// The index of clip `clip`'s first curve called `name`.
    pub fn find_curve(&self, clip: usize, name: &str) -> Option<usize> {
        self.curve_names(clip).position(|n| n == name)
    }

    /// Duration of clip `index` in seconds (as [`Clip::duration`]), without building the clip's view.
    pub fn clip_duration(&self, index: usize) -> Option<f32> {
        self.records.get(index).map(|r| record_duration(self.blob, r))
    }

    /// Name of clip `index`.
    pub fn clip_name(&self, index: usize) -> Option<&'a str> {
        str_at(self.strings, self.records.get(index)?.name)
    }

    /// Index of the first clip called `name`.
    pub fn find_clip(&self, name: &str) -> Option<usize> {
        (0..self.num_clips()).find(|&i| self.clip_name(i) == Some(name))
    }
}

/// Each clip's annotations: contiguous runs in clip order covering both tables exactly, names that are
/// strings, finite values, times within the clip, markers sorted, ranges with `start ≤ end`.
fn check_annotations(
    blob: &[u8],
    records: &[ClipRecord],
    annotations: &[Annotations],
    markers: &[Marker],
    ranges: &[Range],
    strings: &str,
) -> Result<(), Error> {
    let (mut next_marker, mut next_range) = (0usize, 0usize);
    for (clip, (record, a)) in records.iter().zip(annotations).enumerate() {
        let bad = |section| Err(Error::Blob { section, problem: BlobProblem::Value { index: clip } });
        if a.first_marker as usize != next_marker || a.first_range as usize != next_range {
            return bad(Section::Annotations);
        }
        next_marker = next_marker.saturating_add(a.num_markers as usize);
        next_range = next_range.saturating_add(a.num_ranges as usize);
        let (Some(clip_markers), Some(clip_ranges)) =
            (markers.get(a.first_marker as usize..next_marker), ranges.get(a.first_range as usize..next_range))
        else {
            return bad(Section::Annotations);
        };
        let duration = record_duration(blob, record);
        let within = |t: f32| (0.0..=duration).contains(&t);
        let mut last = 0.0f32;
        for m in clip_markers {
            if !(within(m.time) && m.time >= last && m.value.is_finite() && str_at(strings, m.name).is_some()) {
                return bad(Section::Markers);
            }
            last = m.time;
        }
        for r in clip_ranges {
            let ok = within(r.start) && within(r.end) && r.start <= r.end && r.value.is_finite();
            if !(ok && str_at(strings, r.name).is_some()) {
                return bad(Section::Ranges);
            }
        }
    }
    if next_marker != markers.len() || next_range != ranges.len() {
        return Err(Error::Blob {
            section: Section::Annotations,
            problem: BlobProblem::Size {
                len: (markers.len() + ranges.len()) as u64,
                expected: (next_marker + next_range) as u64,
            },
        });
    }
    Ok(())
}

/// Phase records: none, or one per clip; each either empty or with its clip's frame count (at least two, and
/// uniform frames: a phase table is per frame at the clip's rate), value runs in the table, distinct feet in
/// the skeleton, a finite positive swing, known flags; forward values finite, nondecreasing, starting in `[0, 1)` and rising by at most one stride per frame; inverse times finite,
/// nondecreasing and within the clip.
fn check_phases(
    blob: &[u8],
    records: &[ClipRecord],
    num_joints: usize,
    phases: &[PhaseRecord],
    values: &[f32],
) -> Result<(), Error> {
    if !phases.is_empty() && phases.len() != records.len() {
        return Err(Error::Blob {
            section: Section::Phases,
            problem: BlobProblem::Size {
                len: core::mem::size_of_val(phases) as u64,
                expected: (records.len() * core::mem::size_of::<PhaseRecord>()) as u64,
            },
        });
    }
    let nondecreasing = |v: &[f32]| v.iter().all(|x| x.is_finite()) && v.windows(2).all(|w| w[0] <= w[1]);
    for (clip, (record, p)) in records.iter().zip(phases).enumerate() {
        let bad = |section| Err(Error::Blob { section, problem: BlobProblem::Value { index: clip } });
        if p.num_frames == 0 {
            if *p != PhaseRecord::default() {
                return bad(Section::Phases);
            }
            continue;
        }
        let [left, right] = p.feet.map(usize::from);
        let header_ok = p.num_frames == record.num_frames
            && record.encoding & KNOT_TIMES == 0
            && p.num_frames >= 2
            && p.num_inverse >= 2
            && (1..=MAX_PHASE_STEPS).contains(&p.per_stride)
            && p.center.is_finite()
            && p.amplitude.is_finite()
            && p.amplitude > 0.0
            && left < num_joints
            && right < num_joints
            && left != right
            && p.flags & !(MATCH_IN | MATCH_OUT) == 0;
        if !header_ok {
            return bad(Section::Phases);
        }
        let len = p.num_frames as usize + p.num_inverse as usize;
        let Some(run) = values.get(p.first as usize..).and_then(|v| v.get(..len)) else {
            return bad(Section::Phases);
        };
        let (forward, inverse) = run.split_at(p.num_frames as usize);
        let duration = record_duration(blob, record);
        let forward_ok = nondecreasing(forward)
            && (0.0..1.0).contains(&forward[0])
            && forward.windows(2).all(|w| w[1] - w[0] <= 1.0);
        let inverse_ok = nondecreasing(inverse) && inverse[0] >= 0.0 && inverse[inverse.len() - 1] <= duration;
        if !(forward_ok && inverse_ok) {
            return bad(Section::PhaseValues);
        }
    }
    Ok(())
}

/// The string `r` names, if it is in range and on character boundaries.
fn str_at(strings: &str, r: StrRef) -> Option<&str> {
    let start = r.offset as usize;
    strings.get(start..start.checked_add(r.len as usize)?)
}

/// Walks the sections in blob order, checking each against the previous one's end.
struct Cursor<'a> {
    blob: &'a [u8],
    end: u64,
    /// The blob passed `load`: sections are only sliced, the loader's checks are not repeated.
    validated: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor that checks every section of `blob`, for `load`.
    fn checking(blob: &'a [u8], end: u64) -> Cursor<'a> {
        Cursor { blob, end, validated: false }
    }

    /// A cursor over a blob `load` accepted, for the views built on the frame path.
    fn validated(blob: &'a [u8]) -> Cursor<'a> {
        Cursor { blob, end: 0, validated: true }
    }

    /// Section `r` as a `T` slice: in bounds, aligned, after the previous section, a whole number of `T`s,
    /// and exactly `count` of them when given.
    fn section<T: Pod>(&mut self, section: Section, r: SectionRef, count: Option<u64>) -> Result<&'a [T], Error> {
        let err = |problem| Error::Blob { section, problem };
        let (offset, len) = (r.offset as u64, r.len as u64);
        if self.validated {
            // `load` checked all of this; the checked slicing only keeps the frame path free of panics.
            let bytes = self.blob.get(offset as usize..(offset + len) as usize);
            let cast = bytes.and_then(|b| bytemuck::try_cast_slice(b).ok());
            return cast.ok_or_else(|| err(BlobProblem::Value { index: 0 }));
        }
        let size = core::mem::size_of::<T>() as u64;
        if let Some(count) = count {
            let expected = count.saturating_mul(size);
            if len != expected {
                return Err(err(BlobProblem::Size { len, expected }));
            }
        } else if len % size != 0 {
            return Err(err(BlobProblem::Size { len, expected: len - len % size }));
        }
        if offset % ALIGN as u64 != 0 {
            return Err(err(BlobProblem::Misaligned { offset }));
        }
        if offset < self.end {
            return Err(err(BlobProblem::Overlap { offset, previous_end: self.end }));
        }
        let end = offset + len;
        let bytes = self
            .blob
            .get(offset as usize..end as usize)
            .ok_or(err(BlobProblem::OutOfBounds { end: Some(end), blob_len: self.blob.len() }))?;
        self.end = end;
        // Cannot fail: the blob is aligned, the offset is a multiple of 16 and the length of size_of::<T>().
        bytemuck::try_cast_slice(bytes).map_err(|_| err(BlobProblem::Misaligned { offset }))
    }
}

/// A clip's curve names, curves and whether they step, from its curve record (sections checked; values are
/// `Clip::with_curves`' job).
fn curve_parts<'a>(
    cursor: &mut Cursor<'a>,
    version: u32,
    clip: usize,
    record: &CurveRecord,
) -> Result<(&'a [StrRef], Curves<'a>, bool), Error> {
    let count = u64::from(record.num_curves);
    let names: &[StrRef] = cursor.section(Section::CurveNames { clip }, record.names, Some(count))?;
    let step = record.encoding & STEP_KEYS != 0;
    if step && version < STEP_TRACKS_VERSION {
        return Err(Error::Blob { section: Section::CurveKeys { clip }, problem: BlobProblem::Value { index: clip } });
    }
    let keys = match record.encoding & !STEP_KEYS {
        e if e == Encoding::F32 as u32 => {
            let values: &[f32] = cursor.section(Section::CurveKeys { clip }, record.keys, None)?;
            cursor.section::<TrackRange>(Section::CurveRanges { clip }, record.ranges, Some(0))?;
            CurveKeys::F32(values)
        }
        e if e == Encoding::Compressed as u32 => {
            if version < ROW_TABLES {
                return Err(Error::UnsupportedVersion { found: version, supported: VERSION });
            }
            let data: &[u8] = cursor.section(Section::CurveKeys { clip }, record.keys, None)?;
            let ranges = cursor.section(Section::CurveRanges { clip }, record.ranges, Some(count))?;
            CurveKeys::Compressed(CompressedKeys { data, ranges })
        }
        _ => {
            return Err(Error::Blob {
                section: Section::CurveKeys { clip },
                problem: BlobProblem::Value { index: clip },
            });
        }
    };
    Ok((names, Curves { count: record.num_curves as usize, keys }, step))
}

/// The motion database a header tail locates, with its group names: every section checked in order, its
/// values by `MotionDatabase::new`, and each frame's clip and time against the clips.
fn motion_database<'a>(
    cursor: &mut Cursor<'a>,
    blob: &'a [u8],
    at: SectionRef,
    records: &[ClipRecord],
    strings: &str,
) -> Result<Option<(MotionDatabase<'a>, &'a [StrRef])>, Error> {
    let record: &[DatabaseRecord] = cursor.section(Section::MotionDatabaseRecord, at, None)?;
    let record = match record {
        [] => return Ok(None),
        [record] => record,
        _ => {
            let problem = BlobProblem::Size { len: at.len as u64, expected: 88 };
            return Err(Error::Blob { section: Section::MotionDatabaseRecord, problem });
        }
    };
    let (dims, frames) = (record.dims as usize, record.frames as usize);
    if dims == 0 || dims > crate::limits::MAX_FEATURE_DIMS || frames == 0 || frames > crate::limits::MAX_DATABASE_FRAMES
    {
        return Err(Error::Blob { section: Section::MotionDatabaseRecord, problem: BlobProblem::Value { index: 0 } });
    }
    let layout = crate::data::motion_database::DatabaseLayout::new(dims, frames);
    let part = |part| Section::MotionDatabase { part };
    let groups: &[FeatureGroup] = cursor.section(part(DatabasePart::Groups), record.groups, None)?;
    let count = Some(groups.len() as u64);
    let group_names: &[StrRef] = cursor.section(part(DatabasePart::Groups), record.group_names, count)?;
    let (dims64, frames64) = (dims as u64, frames as u64);
    let mean = cursor.section(part(DatabasePart::Mean), record.mean, Some(dims64))?;
    let scale = cursor.section(part(DatabasePart::Scale), record.scale, Some(dims64))?;
    let spread = cursor.section(part(DatabasePart::Spread), record.spread, Some(dims64))?;
    let lanes = |n: usize| Some(n as u64);
    let features: &[F4] = cursor.section(part(DatabasePart::Features), record.features, lanes(layout.feature_lanes))?;
    let block_boxes =
        cursor.section(part(DatabasePart::BlockBoxes), record.block_boxes, lanes(layout.block_box_lanes))?;
    let span_boxes = cursor.section(part(DatabasePart::SpanBoxes), record.span_boxes, lanes(layout.span_box_lanes))?;
    let entries: &[FrameEntry] = cursor.section(part(DatabasePart::FrameEntries), record.entries, Some(frames64))?;
    let block_infos: &[BlockInfo] =
        cursor.section(part(DatabasePart::BlockInfos), record.block_infos, lanes(layout.blocks))?;
    for (index, name) in group_names.iter().enumerate() {
        str_at(strings, *name)
            .ok_or(Error::Blob { section: part(DatabasePart::Groups), problem: BlobProblem::Value { index } })?;
    }
    let playable = |e: &FrameEntry| records.get(e.clip as usize).is_some_and(|r| e.time <= record_duration(blob, r));
    if let Some(index) = entries.iter().position(|e| !playable(e)) {
        let problem = BlobProblem::Value { index };
        return Err(Error::Blob { section: part(DatabasePart::FrameEntries), problem });
    }
    let parts = MotionDatabaseParts {
        dims,
        frames,
        groups,
        mean,
        scale,
        spread,
        features,
        block_boxes,
        span_boxes,
        entries,
        block_infos,
    };
    Ok(Some((MotionDatabase::new(parts)?, group_names)))
}

/// Where a record's knot times lie: after its ranges, at the next multiple of `ALIGN`, one `f32` per frame
/// (an unrepresentable place is left for the section check to refuse).
fn knots_ref(record: &ClipRecord) -> SectionRef {
    let end = (u64::from(record.ranges.offset) + u64::from(record.ranges.len)).next_multiple_of(ALIGN as u64);
    SectionRef { offset: u32::try_from(end).unwrap_or(u32::MAX), len: record.num_frames.saturating_mul(4) }
}

/// Seconds from a record's first frame to its last: the last knot's time with knot times, else
/// `(num_frames - 1) / sample_rate`. For records `load` has checked (a missing knot reads as 0).
fn record_duration(blob: &[u8], record: &ClipRecord) -> f32 {
    if record.encoding & KNOT_TIMES == 0 {
        return (record.num_frames as usize).saturating_sub(1) as f32 / record.sample_rate;
    }
    let r = knots_ref(record);
    let last = (r.offset as usize + r.len as usize).checked_sub(4).and_then(|at| blob.get(at..at + 4));
    last.map_or(0.0, |bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// A clip's arrays, its step tracks and its knot times (empty for uniform frames) from its record (sections
/// checked; values are `Clip::new`'s, `Clip::with_step_tracks`' and `Clip::with_knots`' job).
fn clip_parts<'a>(
    cursor: &mut Cursor<'a>,
    version: u32,
    num_joints: usize,
    clip: usize,
    record: &ClipRecord,
) -> Result<(ClipParts<'a>, &'a [u16], &'a [f32]), Error> {
    let num_tracks = record.num_tracks.map(|n| n as usize);
    let [t, r, s] = record.num_tracks.map(u64::from);
    let constants: &[ConstantTrack] = cursor.section(Section::Constants { clip }, record.constants, None)?;
    let listed = (version < STEP_TRACKS_VERSION).then_some(t + r + s);
    let section = Section::TrackJoints { clip };
    let all_joints: &[u16] = cursor.section(section, record.track_joints, listed)?;
    let len = core::mem::size_of_val(all_joints) as u64;
    let size = BlobProblem::Size { len, expected: 2 * (t + r + s) };
    let (track_joints, step_tracks) =
        all_joints.split_at_checked((t + r + s) as usize).ok_or(Error::Blob { section, problem: size })?;
    if record.encoding & STEP_KEYS != 0 && (version < STEP_KEYS_VERSION || !step_tracks.is_empty()) {
        return Err(Error::Blob { section: Section::Keys { clip }, problem: BlobProblem::Value { index: clip } });
    }
    if record.encoding & KNOT_TIMES != 0 && version < KNOTS_VERSION {
        return Err(Error::Blob { section: Section::Keys { clip }, problem: BlobProblem::Value { index: clip } });
    }
    let keys = match record.encoding & !(STEP_KEYS | KNOT_TIMES) {
        e if e == Encoding::F32 as u32 => {
            let keys: &[f32] = cursor.section(Section::Keys { clip }, record.keys, None)?;
            cursor.section::<QuantRange>(Section::QuantRanges { clip }, record.ranges, Some(0))?;
            Keys::F32(keys)
        }
        e if e == Encoding::Quantized as u32 => {
            let keys: &[u16] = cursor.section(Section::Keys { clip }, record.keys, None)?;
            let ranges = cursor.section(Section::QuantRanges { clip }, record.ranges, Some(t + s))?;
            Keys::Quantized { keys, ranges }
        }
        e if e == Encoding::Compressed as u32 => {
            if version < ROW_TABLES {
                return Err(Error::UnsupportedVersion { found: version, supported: VERSION });
            }
            let data: &[u8] = cursor.section(Section::Keys { clip }, record.keys, None)?;
            let ranges = cursor.section(Section::QuantRanges { clip }, record.ranges, Some(t + r + s))?;
            Keys::Compressed(CompressedKeys { data, ranges })
        }
        _ => return Err(Error::Blob { section: Section::Keys { clip }, problem: BlobProblem::Value { index: clip } }),
    };
    let parts = ClipParts {
        num_joints,
        sample_rate: record.sample_rate,
        num_frames: record.num_frames as usize,
        constants,
        track_joints,
        num_tracks,
        keys,
    };
    let knots = match record.encoding & KNOT_TIMES {
        0 => &[][..],
        _ => cursor.section(Section::KnotTimes { clip }, knots_ref(record), Some(u64::from(record.num_frames)))?,
    };
    Ok((parts, step_tracks, knots))
}
