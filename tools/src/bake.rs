//! Baking: imported skeletons and clips (AoS, one transform per joint per frame) → the runtime's asset blob
//! (`sinew::asset`), with per-track elision and optional quantization.

use crate::raw::{AlignedBlob, Extras, RawAnnotations, RawClip, RawSkeleton, StepKeys, channel_value, flush};
use sinew::asset::{
    ALIGN, Annotations, ClipRecord, CurveRecord, DatabaseRecord, HEADER_LEN, HEADER_TAIL_LEN, Header, HeaderTail,
    MAGIC, Marker, PhaseRecord, Range, SectionRef, StrRef, VERSION,
};
use sinew::clip::{
    Channel, ConstantTrack, Encoding, KNOT_TIMES, MIN_KEY_MAGNITUDE, QuantRange, STEP_KEYS, encode_rotation,
};
use sinew::math::{SoaTransform, num_soa_joints, pack_soa};

/// How to store keys.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum KeyFormat {
    #[default]
    F32,
    /// 16 bits per translation/scale component, smallest-three rotations: 6 bytes per key.
    Quantized,
    /// Segments with a bit rate per component chosen to keep virtual points within the error bound
    /// (`crate::compress`).
    Compressed(crate::compress::Precision),
}

/// A track is constant (or equal to the rest pose) when no component differs by more than this times
/// `max(1, |value|)`: about 8 f32 ulps at 1, so elision keeps what f32 storage keeps.
pub const CONSTANT_TOLERANCE: f32 = 1e-6;

/// Same value within `CONSTANT_TOLERANCE` (rotations: as rotations, so `q` matches `−q`).
fn close(a: [f32; 4], b: [f32; 4], channel: Channel) -> bool {
    let within =
        |sign: f32| a.iter().zip(&b).all(|(x, y)| (x - sign * y).abs() <= CONSTANT_TOLERANCE * y.abs().max(1.0));
    within(1.0) || (channel == Channel::Rotation && within(-1.0))
}

struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn section<T: bytemuck::Pod>(&mut self, items: &[T]) -> SectionRef {
        self.bytes.resize(self.bytes.len().next_multiple_of(ALIGN), 0);
        let offset = self.bytes.len() as u32;
        self.bytes.extend_from_slice(bytemuck::cast_slice(items));
        SectionRef { offset, len: (self.bytes.len() - offset as usize) as u32 }
    }

    fn put<T: bytemuck::Pod>(&mut self, offset: usize, item: &T) {
        self.bytes[offset..offset + std::mem::size_of::<T>()].copy_from_slice(bytemuck::bytes_of(item));
    }
}

/// Per-track storage decisions and keys of one clip.
struct BakedClip {
    constants: Vec<ConstantTrack>,
    track_joints: Vec<u16>,
    num_tracks: [u32; 3],
    keys_f32: Vec<f32>,
    keys_u16: Vec<u16>,
    ranges: Vec<QuantRange>,
    compressed: crate::compress::Compressed,
}

/// Bakes `clip`, storing tracks only for the joints `stored` marks (all when `None`; the others are elided as
/// rest, as a chunk of a clip split by bone masks is).
fn bake_clip(
    skeleton: &RawSkeleton,
    clip: &RawClip,
    format: KeyFormat,
    stored: Option<&[bool]>,
) -> Result<BakedClip, String> {
    let n = skeleton.parents.len();
    if clip.frames.is_empty() {
        return Err(format!("clip `{}` has no frames", clip.name));
    }
    if let Some(f) = clip.frames.iter().position(|fr| fr.len() != n) {
        return Err(format!("clip `{}` frame {f} has {} joints, skeleton {n}", clip.name, clip.frames[f].len()));
    }
    let mut baked = BakedClip {
        constants: vec![],
        track_joints: vec![],
        num_tracks: [0; 3],
        keys_f32: vec![],
        keys_u16: vec![],
        ranges: vec![],
        compressed: Default::default(),
    };
    if stored.is_some_and(|s| s.len() != n) {
        return Err(format!("clip `{}`: a chunk mask of another joint count than the skeleton's {n}", clip.name));
    }
    // animated[c] = joints whose channel c is animated; the whole clip's, for the compressor's search.
    let mut animated: [Vec<u16>; 3] = Default::default();
    let mut whole: [Vec<u16>; 3] = Default::default();
    for channel in Channel::ALL {
        for joint in 0..n {
            let rest = channel_value(&skeleton.rest[joint], channel);
            let first = channel_value(&clip.frames[0][joint], channel);
            let constant = clip.frames.iter().all(|fr| close(channel_value(&fr[joint], channel), first, channel));
            if constant && close(first, rest, channel) {
                continue;
            }
            if !constant {
                whole[channel as usize].push(joint as u16);
            }
            if !stored.is_none_or(|s| s[joint]) {
                continue;
            }
            if constant {
                let value = first.map(flush);
                baked.constants.push(ConstantTrack { joint: joint as u16, channel: channel as u16, value });
            } else {
                animated[channel as usize].push(joint as u16);
            }
        }
        baked.num_tracks[channel as usize] = animated[channel as usize].len() as u32;
        baked.track_joints.extend(&animated[channel as usize]);
    }
    if let KeyFormat::Compressed(precision) = format {
        baked.compressed = crate::compress::compress(skeleton, clip, &whole, precision, stored)
            .map_err(|e| format!("clip `{}`: {e}", clip.name))?;
        return Ok(baked);
    }
    if format == KeyFormat::Quantized {
        for channel in [Channel::Translation, Channel::Scale] {
            for &joint in &animated[channel as usize] {
                let joint = joint as usize;
                let mut min = [f32::MAX; 3];
                let mut max = [f32::MIN; 3];
                for fr in &clip.frames {
                    let v = channel_value(&fr[joint], channel);
                    for c in 0..3 {
                        min[c] = min[c].min(v[c]);
                        max[c] = max[c].max(v[c]);
                    }
                }
                let step = std::array::from_fn(|c| {
                    let s = (max[c] - min[c]) / u16::MAX as f32;
                    if s < MIN_KEY_MAGNITUDE { 0.0 } else { s }
                });
                baked.ranges.push(QuantRange { min: min.map(flush), step });
            }
        }
    }
    for fr in &clip.frames {
        let mut range = 0;
        for channel in Channel::ALL {
            let joints = &animated[channel as usize];
            let value = |j: usize| channel_value(&fr[j], channel).map(flush);
            match (format, channel) {
                (KeyFormat::F32, Channel::Rotation) => push_keys(&mut baked.keys_f32, joints, value),
                (KeyFormat::F32, _) => push_keys(&mut baked.keys_f32, joints, |j| {
                    let [x, y, z, _] = value(j);
                    [x, y, z]
                }),
                (KeyFormat::Quantized, Channel::Rotation) => {
                    push_keys(&mut baked.keys_u16, joints, |j| encode_rotation(value(j)))
                }
                // Compressed clips returned above, with their keys from `compress`.
                (KeyFormat::Compressed(_), _) => {}
                (KeyFormat::Quantized, _) => {
                    for &joint in joints {
                        let v = value(joint as usize);
                        let r = &baked.ranges[range];
                        range += 1;
                        baked.keys_u16.extend((0..3).map(|c| {
                            if r.step[c] == 0.0 {
                                0
                            } else {
                                ((v[c] - r.min[c]) / r.step[c]).round().clamp(0.0, u16::MAX as f32) as u16
                            }
                        }));
                    }
                }
            }
        }
    }
    Ok(baked)
}

/// Appends one frame's keys of the tracks `joints`, `key(joint)` giving a track's `N` stored elements: track
/// after track, except runs filling a lane group (`sinew::clip::track_runs`), which go component-major.
fn push_keys<T: Copy, const N: usize>(keys: &mut Vec<T>, joints: &[u16], key: impl Fn(usize) -> [T; N]) {
    for (k, run) in sinew::clip::track_runs(joints) {
        for group in joints[k..k + run].chunks(4) {
            let values: Vec<[T; N]> = group.iter().map(|&j| key(j as usize)).collect();
            for c in 0..N {
                keys.extend(values.iter().map(|v| v[c]));
            }
        }
    }
}

/// One clip's curves as stored: names, and `f32` values frame by frame or compressed.
struct BakedCurves {
    names: Vec<String>,
    encoding: Encoding,
    values: Vec<f32>,
    compressed: crate::compress::Compressed,
}

/// The clips' curves (none when no clip has any): `f32`, or compressed against each curve's precision when the
/// joints are.
fn bake_curves(
    clips: &[RawClip],
    annotations: &[RawAnnotations],
    format: KeyFormat,
) -> Result<Vec<BakedCurves>, String> {
    if annotations.iter().all(|a| a.curves.is_empty()) {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(clips.len());
    for (clip, a) in clips.iter().zip(annotations) {
        if a.curves.len() > sinew::clip::MAX_CLIP_CURVES {
            return Err(format!(
                "clip {}: {} curves; a clip may have at most {}",
                clip.name,
                a.curves.len(),
                sinew::clip::MAX_CLIP_CURVES
            ));
        }
        let values: Vec<Vec<f32>> = a.curves.iter().map(|c| c.frame_values(clip)).collect::<Result<_, _>>()?;
        let names = a.curves.iter().map(|c| c.name.clone()).collect();
        let mut baked =
            BakedCurves { names, encoding: Encoding::F32, values: Vec::new(), compressed: Default::default() };
        if let (KeyFormat::Compressed(_), false) = (format, a.curves.is_empty()) {
            let mut precision = Vec::with_capacity(a.curves.len());
            for c in &a.curves {
                let p = c.precision.ok_or_else(|| {
                    format!("clip {}: curve {:?} needs a precision to be compressed", clip.name, c.name)
                })?;
                precision.push(p);
            }
            baked.compressed = crate::compress::compress_curves(&clip.name, &values, &precision)?;
            baked.encoding = Encoding::Compressed;
        } else {
            baked.values = (0..clip.frames.len()).flat_map(|f| values.iter().map(move |v| v[f])).collect();
        }
        out.push(baked);
    }
    Ok(out)
}

/// Writes a blob holding `skeleton` and `clips`. Errors name what does not fit the format.
pub fn bake(skeleton: &RawSkeleton, clips: &[RawClip], format: KeyFormat) -> Result<AlignedBlob, String> {
    bake_with(skeleton, clips, format, &Extras::default())
}

/// [`bake`] with annotations, a skin, phases and chunk masks. Markers are sorted by time; a time outside its clip, a range with
/// `start > end` or a non-finite value is an error naming the clip and the annotation. Compressed keys are
/// searched for only once the same clips baked as `f32` load: what the loader refuses (a joint past the
/// model-space bound, say) fails in the time of a plain bake, not after the compression search.
pub fn bake_with(
    skeleton: &RawSkeleton,
    clips: &[RawClip],
    format: KeyFormat,
    extras: &Extras,
) -> Result<AlignedBlob, String> {
    if let KeyFormat::Compressed(_) = format {
        let plain = bake_with(skeleton, clips, KeyFormat::F32, extras)?;
        sinew::Asset::load(plain.bytes()).map_err(|e| e.to_string())?;
    }
    if !extras.masks.is_empty() && extras.masks.len() != clips.len() {
        return Err(format!("{} clips but chunk masks for {}", clips.len(), extras.masks.len()));
    }
    if !extras.annotations.is_empty() && extras.annotations.len() != clips.len() {
        return Err(format!("{} clips but annotations for {}", clips.len(), extras.annotations.len()));
    }
    let n = skeleton.parents.len();
    if skeleton.rest.len() != n || skeleton.names.len() != n {
        return Err(format!(
            "skeleton has {n} parents, {} rest transforms, {} names",
            skeleton.rest.len(),
            skeleton.names.len()
        ));
    }
    let mut rest_soa = vec![SoaTransform::IDENTITY; num_soa_joints(n)];
    pack_soa(&skeleton.rest, &mut rest_soa).map_err(|e| e.to_string())?;

    let mut strings = String::new();
    let mut add_string = |s: &str| {
        let r = StrRef { offset: strings.len() as u32, len: s.len() as u32 };
        strings.push_str(s);
        r
    };
    let name_refs: Vec<StrRef> = skeleton.names.iter().map(|s| add_string(s)).collect();
    let clip_names: Vec<StrRef> = clips.iter().map(|c| add_string(&c.name)).collect();
    let (mut annotations, mut markers, mut ranges) = (Vec::new(), Vec::new(), Vec::new());
    let none = RawAnnotations::default();
    let annotated = extras.annotations.iter().chain(std::iter::repeat(&none));
    for (index, (clip, raw)) in clips.iter().zip(annotated).enumerate() {
        let duration = match extras.knots(index) {
            Some(knots) => knots.last().copied().unwrap_or(0.0),
            None => (clip.frames.len().max(1) - 1) as f32 / clip.sample_rate,
        };
        let inside = |t: f32| (0.0..=duration).contains(&t);
        let mut sorted = raw.markers.clone();
        sorted.sort_by(|a, b| a.time.total_cmp(&b.time));
        annotations.push(Annotations {
            first_marker: markers.len() as u32,
            num_markers: sorted.len() as u32,
            first_range: ranges.len() as u32,
            num_ranges: raw.ranges.len() as u32,
        });
        for m in &sorted {
            if !(inside(m.time) && m.value.is_finite()) {
                return Err(format!(
                    "clip {}: marker {:?} at {} s lies outside 0..={duration} s or has a non-finite value",
                    clip.name, m.name, m.time
                ));
            }
            markers.push(Marker { time: m.time, name: add_string(&m.name), value: m.value });
        }
        for r in &raw.ranges {
            if !(inside(r.start) && inside(r.end) && r.start <= r.end && r.value.is_finite()) {
                return Err(format!(
                    "clip {}: range {:?} ({} to {} s) must satisfy 0 <= start <= end <= {duration} s with a finite value",
                    clip.name, r.name, r.start, r.end
                ));
            }
            ranges.push(Range { start: r.start, end: r.end, name: add_string(&r.name), value: r.value });
        }
    }
    if !extras.phases.is_empty() && extras.phases.len() != clips.len() {
        return Err(format!("{} clips but phases for {}", clips.len(), extras.phases.len()));
    }
    let (mut phase_records, mut phase_values) = (Vec::new(), Vec::<f32>::new());
    for (clip, phase) in clips.iter().zip(&extras.phases) {
        let Some(p) = phase else {
            phase_records.push(PhaseRecord::default());
            continue;
        };
        if extras.knots.get(phase_records.len()).is_some_and(Option::is_some) {
            return Err(format!("clip {}: a phase table is per uniform frame; this clip is on knots", clip.name));
        }
        if p.forward.len() != clip.frames.len() {
            return Err(format!(
                "clip {}: {} phase values for {} frames",
                clip.name,
                p.forward.len(),
                clip.frames.len()
            ));
        }
        phase_records.push(PhaseRecord {
            first: phase_values.len() as u32,
            num_frames: p.forward.len() as u32,
            num_inverse: p.inverse.len() as u32,
            per_stride: p.per_stride,
            center: p.center,
            amplitude: p.amplitude,
            feet: p.feet,
            flags: p.flags,
        });
        phase_values.extend_from_slice(&p.forward);
        phase_values.extend_from_slice(&p.inverse);
    }
    let curves = bake_curves(clips, &extras.annotations, format)?;
    let curve_names: Vec<Vec<StrRef>> =
        curves.iter().map(|c| c.names.iter().map(|name| add_string(name)).collect()).collect();
    let database = extras.motion_database.as_ref();
    let group_names: Vec<StrRef> =
        database.iter().flat_map(|db| &db.group_names).map(|name| add_string(name)).collect();
    let skin = extras.skin.clone().unwrap_or_default();
    if skin.remap.len() != skin.inverse_bind.len() {
        return Err(format!(
            "skin has {} joints but {} inverse bind matrices",
            skin.remap.len(),
            skin.inverse_bind.len()
        ));
    }

    let mut w = Writer { bytes: vec![0; HEADER_LEN + HEADER_TAIL_LEN] };
    let parents = w.section(&skeleton.parents);
    let rest_pose = w.section(&rest_soa);
    let joint_names = w.section(&name_refs);
    let strings_ref = w.section(strings.as_bytes());
    let placeholder = vec![[0u8; 64]; clips.len()];
    let records_ref = w.section(&placeholder);
    for (i, clip) in clips.iter().enumerate() {
        let baked = bake_clip(skeleton, clip, format, extras.masks.get(i).and_then(Option::as_deref))?;
        let constants = w.section(&baked.constants);
        let step_tracks = clip.step.step_tracks(&baked.track_joints, baked.num_tracks);
        let track_joints = w.section(&[baked.track_joints.as_slice(), &step_tracks].concat());
        let (keys, encoding, ranges) = match format {
            KeyFormat::F32 => (w.section(&baked.keys_f32), Encoding::F32, w.section(&baked.ranges)),
            KeyFormat::Quantized => (w.section(&baked.keys_u16), Encoding::Quantized, w.section(&baked.ranges)),
            KeyFormat::Compressed(_) => {
                let keys = w.section(&baked.compressed.data);
                (keys, Encoding::Compressed, w.section(&baked.compressed.ranges))
            }
        };
        let knots = match extras.knots(i) {
            Some(knots) if knots.len() != clip.frames.len() => {
                return Err(format!("clip {}: {} knot times for {} frames", clip.name, knots.len(), clip.frames.len()));
            }
            Some(knots) => {
                w.section(knots);
                KNOT_TIMES
            }
            None => 0,
        };
        let record = ClipRecord {
            name: clip_names[i],
            sample_rate: clip.sample_rate,
            num_frames: clip.frames.len() as u32,
            encoding: encoding as u32 | knots | if clip.step == StepKeys::All { STEP_KEYS } else { 0 },
            num_tracks: baked.num_tracks,
            constants,
            track_joints,
            keys,
            ranges,
        };
        w.put(records_ref.offset as usize + 64 * i, &record);
    }
    let annotations = w.section(&annotations);
    let markers = w.section(&markers);
    let ranges = w.section(&ranges);
    let skin_remap = w.section(&skin.remap);
    let skin_inverse_bind = w.section(&skin.inverse_bind);
    let phases = w.section(&phase_records);
    let phase_values = w.section(&phase_values);
    let curve_records_ref = w.section(&vec![CurveRecord::default(); curves.len()]);
    for (i, (baked, names)) in curves.iter().zip(&curve_names).enumerate() {
        let record = CurveRecord {
            num_curves: names.len() as u32,
            encoding: baked.encoding as u32 | if clips[i].step.curves() { STEP_KEYS } else { 0 },
            names: w.section(names),
            keys: match baked.encoding {
                Encoding::Compressed => w.section(&baked.compressed.data),
                _ => w.section(&baked.values),
            },
            ranges: w.section(&baked.compressed.ranges),
        };
        w.put(curve_records_ref.offset as usize + std::mem::size_of::<CurveRecord>() * i, &record);
    }
    let motion_database = match database {
        Some(db) => {
            let at = w.section(&[DatabaseRecord::default()]);
            let record = DatabaseRecord {
                dims: db.dims as u32,
                frames: db.frames as u32,
                groups: w.section(&db.groups),
                group_names: w.section(&group_names),
                mean: w.section(&db.mean),
                scale: w.section(&db.scale),
                spread: w.section(&db.spread),
                features: w.section(&db.features),
                block_boxes: w.section(&db.block_boxes),
                span_boxes: w.section(&db.span_boxes),
                entries: w.section(&db.entries),
                block_infos: w.section(&db.block_infos),
            };
            w.put(at.offset as usize, &record);
            at
        }
        None => w.section::<DatabaseRecord>(&[]),
    };
    let header = Header {
        magic: MAGIC,
        version: VERSION,
        total_len: u32::try_from(w.bytes.len()).map_err(|_| "blob larger than 4 GiB".to_string())?,
        num_joints: n as u32,
        num_clips: clips.len() as u32,
        parents,
        rest_pose,
        joint_names,
        strings: strings_ref,
        clips: records_ref,
        annotations,
        markers,
        ranges,
        skin_remap,
        skin_inverse_bind,
        phases,
        phase_values,
        curves: curve_records_ref,
    };
    w.put(0, &header);
    w.put(HEADER_LEN, &HeaderTail { motion_database, reserved: [0; 6] });
    Ok(AlignedBlob::from_bytes(&w.bytes))
}
