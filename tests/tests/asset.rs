//! The asset loader: every validation failure has a test, and hostile bytes (truncations, bit flips, random
//! blobs) return errors without panicking.

use sinew::asset::{ClipRecord, Header, VERSION};
use sinew::{Asset, BlobProblem, Buffer, Error, Section};
use sinew_tests::{Rng, random_clip};
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::raw::{AlignedBlob, StepKeys};

fn valid_blob(format: KeyFormat) -> AlignedBlob {
    let mut rng = Rng::new(0xA55E7);
    let (skeleton, clip) = random_clip(&mut rng, 7, 5);
    let (_, clip2) = random_clip(&mut Rng::new(2), 7, 3);
    bake::bake(&skeleton, &[clip, clip2], format).expect("bake")
}

fn header(blob: &mut AlignedBlob) -> &mut Header {
    bytemuck::from_bytes_mut(&mut blob.bytes_mut()[..sinew::asset::HEADER_LEN])
}

fn record(blob: &mut AlignedBlob, clip: usize) -> &mut ClipRecord {
    let offset = header(blob).clips.offset as usize + 64 * clip;
    bytemuck::from_bytes_mut(&mut blob.bytes_mut()[offset..offset + 64])
}

fn load_err(blob: &AlignedBlob) -> Error {
    Asset::load(blob.bytes()).expect_err("blob should be rejected")
}

#[test]
fn a_baked_blob_loads_with_names_and_clips() {
    for format in [KeyFormat::F32, KeyFormat::Quantized] {
        let blob = valid_blob(format);
        let asset = Asset::load(blob.bytes()).expect("load");
        assert_eq!(asset.skeleton().num_joints(), 7);
        assert_eq!(asset.skeleton().name(3), Some("joint3"));
        assert_eq!(asset.skeleton().find("joint6"), Some(6));
        assert_eq!(asset.num_clips(), 2);
        assert_eq!(asset.clip_name(0), Some("random"));
        assert_eq!(asset.find_clip("random"), Some(0));
        assert_eq!(asset.clip(0).map(|c| c.num_frames()), Some(5));
        assert_eq!(asset.clip(1).map(|c| c.num_frames()), Some(3));
        assert!(asset.clip(2).is_none());
    }
}

#[test]
fn header_errors() {
    let good = valid_blob(KeyFormat::F32);
    let short = AlignedBlob::from_bytes(&good.bytes()[..40]);
    assert_eq!(
        load_err(&short),
        Error::Blob { section: Section::Header, problem: BlobProblem::OutOfBounds { end: Some(128), blob_len: 40 } }
    );
    let mut b = good.clone();
    b.bytes_mut()[0] = b'X';
    assert_eq!(load_err(&b), Error::BadMagic);
    let mut b = good.clone();
    header(&mut b).version = 99;
    assert_eq!(load_err(&b), Error::UnsupportedVersion { found: 99, supported: VERSION });
    header(&mut b).version = 2;
    assert_eq!(load_err(&b), Error::UnsupportedVersion { found: 2, supported: VERSION });
    // Version 3 is version 4 without curves: its `curves` field was reserved, zero.
    let mut b = good.clone();
    header(&mut b).version = 3;
    header(&mut b).curves = Default::default();
    let asset = sinew::Asset::load(b.bytes()).expect("a version 3 blob loads");
    assert_eq!(asset.clip(0).map(|c| c.num_curves()), Some(0));
    // Version 4 stored compressed segment tables entry by entry: its other clips load, compressed ones do not.
    let mut b = good.clone();
    header(&mut b).version = 4;
    sinew::Asset::load(b.bytes()).expect("a version 4 blob of f32 clips loads");
    // Under Miri the compressor's error search (soft floats) costs most of this test; the loader's refusal is
    // a version compare, which every other build checks.
    if !cfg!(miri) {
        let precision = sinew_tools::compress::Precision { max_error: 1e-3, distance: 0.03 };
        let mut b = valid_blob(KeyFormat::Compressed(precision));
        sinew::Asset::load(b.bytes()).expect("a compressed blob loads");
        header(&mut b).version = 4;
        assert_eq!(load_err(&b), Error::UnsupportedVersion { found: 4, supported: VERSION });
        // The message must not claim that version 4 is unreadable as a whole: its other clips load.
        let message = load_err(&b).to_string();
        assert!(message.contains("version 4, or its compressed clips") && message.contains("again"), "{message}");
    }
    let mut b = good.clone();
    header(&mut b).total_len += 16;
    let len = good.bytes().len() as u64;
    assert_eq!(
        load_err(&b),
        Error::Blob { section: Section::Header, problem: BlobProblem::Size { len, expected: len + 16 } }
    );
    let mut b = good.clone();
    header(&mut b).num_joints = 0;
    assert_eq!(load_err(&b), Error::JointCount { count: 0, max: 1024 });
    // The same bytes at an address that is not 16-byte aligned.
    let mut shifted = vec![0u8; good.bytes().len() + 32];
    let base = shifted.as_ptr() as usize;
    let start = (16 - base % 16) % 16 + 4;
    shifted[start..start + good.bytes().len()].copy_from_slice(good.bytes());
    let err = Asset::load(&shifted[start..start + good.bytes().len()]).expect_err("misaligned");
    assert_eq!(err, Error::Blob { section: Section::Header, problem: BlobProblem::Misaligned { offset: 4 } });
}

#[test]
fn section_errors() {
    let good = valid_blob(KeyFormat::F32);
    let len = good.bytes().len();

    let mut b = good.clone();
    header(&mut b).parents.len = 12;
    assert_eq!(
        load_err(&b),
        Error::Blob { section: Section::Parents, problem: BlobProblem::Size { len: 12, expected: 14 } }
    );

    let mut b = good.clone();
    header(&mut b).rest_pose.offset += 8;
    let offset = header(&mut b).rest_pose.offset as u64;
    assert_eq!(load_err(&b), Error::Blob { section: Section::RestPose, problem: BlobProblem::Misaligned { offset } });

    let mut b = good.clone();
    let parents_offset = header(&mut b).parents.offset as u64;
    header(&mut b).rest_pose.offset = parents_offset as u32;
    assert_eq!(
        load_err(&b),
        Error::Blob {
            section: Section::RestPose,
            problem: BlobProblem::Overlap { offset: parents_offset, previous_end: parents_offset + 14 }
        }
    );

    let mut b = good.clone();
    record(&mut b, 1).keys.offset = (len as u32).next_multiple_of(16);
    let end = record(&mut b, 1).keys.offset as u64 + record(&mut b, 1).keys.len as u64;
    assert_eq!(
        load_err(&b),
        Error::Blob {
            section: Section::Keys { clip: 1 },
            problem: BlobProblem::OutOfBounds { end: Some(end), blob_len: len }
        }
    );

    let mut b = good.clone();
    header(&mut b).joint_names.len = 8;
    assert_eq!(
        load_err(&b),
        Error::Blob { section: Section::JointNames, problem: BlobProblem::Size { len: 8, expected: 56 } }
    );

    let mut b = good.clone();
    header(&mut b).num_clips = u32::MAX;
    let clips_len = header(&mut b).clips.len as u64;
    assert_eq!(
        load_err(&b),
        Error::Blob {
            section: Section::ClipRecords,
            problem: BlobProblem::Size { len: clips_len, expected: u32::MAX as u64 * 64 }
        }
    );

    let mut b = good.clone();
    // Fewer joints than tracks (more are step tracks from version 7).
    record(&mut b, 0).track_joints.len -= 2;
    let expected = record(&mut b, 0).track_joints.len as u64 + 2;
    assert!(matches!(
        load_err(&b),
        Error::Blob { section: Section::TrackJoints { clip: 0 }, problem: BlobProblem::Size { expected: e, .. } } if e == expected
    ));

    let mut b = good.clone();
    record(&mut b, 0).encoding = 7;
    assert_eq!(
        load_err(&b),
        Error::Blob { section: Section::Keys { clip: 0 }, problem: BlobProblem::Value { index: 0 } }
    );
}

#[test]
fn string_errors() {
    let good = valid_blob(KeyFormat::F32);
    let strings = bytemuck::cast::<_, [u32; 2]>(header(&mut good.clone()).strings)[0] as usize;

    let mut b = good.clone();
    b.bytes_mut()[strings + 1] = 0xFF;
    assert_eq!(load_err(&b), Error::Blob { section: Section::Strings, problem: BlobProblem::Utf8 { index: 1 } });

    // A joint name reaching past the strings.
    let mut b = good.clone();
    let names = header(&mut b).joint_names.offset as usize;
    b.bytes_mut()[names + 4..names + 8].copy_from_slice(&9999u32.to_le_bytes());
    assert_eq!(load_err(&b), Error::Blob { section: Section::JointNames, problem: BlobProblem::Value { index: 0 } });

    let mut b = good.clone();
    record(&mut b, 1).name.offset = 9999;
    assert_eq!(
        load_err(&b),
        Error::Blob { section: Section::ClipName { clip: 1 }, problem: BlobProblem::Value { index: 1 } }
    );
}

#[test]
fn skeleton_and_clip_errors_pass_through() {
    let good = valid_blob(KeyFormat::F32);
    // Joint 1's parent made later than itself.
    let mut b = good.clone();
    let parents = header(&mut b).parents.offset as usize;
    b.bytes_mut()[parents + 2..parents + 4].copy_from_slice(&5i16.to_le_bytes());
    assert_eq!(load_err(&b), Error::ParentOrder { joint: 1, parent: 5 });
    // A NaN in the rest pose.
    let mut b = good.clone();
    let rest = header(&mut b).rest_pose.offset as usize;
    b.bytes_mut()[rest..rest + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    assert_eq!(load_err(&b), Error::NonFinite { buffer: Buffer::RestPose, index: 0 });
    // A NaN key and a zero sample rate in clip 1.
    let mut b = good.clone();
    let keys = record(&mut b, 1).keys.offset as usize;
    b.bytes_mut()[keys..keys + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    assert_eq!(load_err(&b), Error::NonFinite { buffer: Buffer::ClipKeys, index: 0 });
    let mut b = good.clone();
    record(&mut b, 1).sample_rate = 0.0;
    assert_eq!(load_err(&b), Error::InvalidSampleRate);
    // A quantized clip's range section emptied.
    let mut q = valid_blob(KeyFormat::Quantized);
    let ranges = record(&mut q, 0).ranges.len;
    assert!(ranges > 0);
    record(&mut q, 0).ranges.len = 0;
    assert!(matches!(
        load_err(&q),
        Error::Blob { section: Section::QuantRanges { clip: 0 }, problem: BlobProblem::Size { len: 0, .. } }
    ));
}

#[test]
fn every_truncation_is_an_error() {
    let good = valid_blob(KeyFormat::Quantized);
    let step = if cfg!(miri) { 97 } else { 1 };
    for len in (0..good.bytes().len()).step_by(step) {
        let b = AlignedBlob::from_bytes(&good.bytes()[..len]);
        assert!(Asset::load(b.bytes()).is_err(), "truncated to {len} bytes");
    }
}

#[test]
fn bit_flips_and_random_blobs_never_panic() {
    let mut rng = Rng::new(0xF122);
    // Under Miri each loaded blob's sampling is seconds of soft floats: a few rounds reach every path.
    let rounds = if cfg!(miri) { 8 } else { 20_000 };
    for format in [KeyFormat::F32, KeyFormat::Quantized] {
        let good = valid_blob(format);
        for _ in 0..rounds {
            let mut b = good.clone();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(b.bytes().len());
                b.bytes_mut()[i] ^= 1 << rng.below(8);
            }
            // Either outcome is fine; a loaded asset must then sample safely.
            if let Ok(asset) = Asset::load(b.bytes()) {
                sinew_tools::fuzz::exercise(&asset).expect("a loaded asset samples and poses");
            }
        }
    }
    for _ in 0..rounds {
        let len = rng.below(512);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if len >= 8 && rng.below(2) == 0 {
            bytes[..8].copy_from_slice(&sinew::asset::MAGIC);
        }
        let b = AlignedBlob::from_bytes(&bytes);
        assert!(Asset::load(b.bytes()).is_err());
    }
}

/// Byte offset of lane `lane` of a rest-pose field in a blob (SoA: x, y, z of translation, x, y, z, w of
/// rotation, x, y, z of scale, four lanes each).
fn rest_lane(blob: &mut AlignedBlob, group: usize, field: usize, lane: usize) -> usize {
    header(blob).rest_pose.offset as usize + group * 160 + field * 16 + lane * 4
}

#[test]
fn magnitudes_that_would_overflow_model_space_are_rejected() {
    let good = valid_blob(KeyFormat::F32);
    // A rest scale of 3e38 loaded, sampled and ran local-to-model before, with infinite matrices.
    let mut b = good.clone();
    let scale_x = rest_lane(&mut b, 0, 7, 0);
    b.bytes_mut()[scale_x..scale_x + 4].copy_from_slice(&3e38f32.to_le_bytes());
    assert!(matches!(load_err(&b), Error::Extent { clip: None, joint: 0 }), "{}", load_err(&b));
    // A translation near f32::MAX.
    let mut b = good.clone();
    let t_y = rest_lane(&mut b, 0, 1, 0);
    b.bytes_mut()[t_y..t_y + 4].copy_from_slice(&1e30f32.to_le_bytes());
    assert!(matches!(load_err(&b), Error::Extent { clip: None, joint: 0 }));
    // A translation key of 1e20 in clip 1: each frame starts with the animated translation tracks.
    let mut b = good.clone();
    assert!(record(&mut b, 1).num_tracks[0] > 0, "clip 1 animates a translation");
    let keys = record(&mut b, 1).keys.offset as usize;
    b.bytes_mut()[keys..keys + 4].copy_from_slice(&1e20f32.to_le_bytes());
    assert!(matches!(load_err(&b), Error::Extent { clip: Some(1), .. }), "{}", load_err(&b));
}

/// A chain of joints each scaling by 2 passes the bound at the 50th joint (2^50 = 1.1e15 > 1e15): the
/// skeleton is accepted up to 49 and rejected from 50, naming the joint; the largest accepted chain's model
/// matrices stay finite.
#[test]
fn scale_chains_are_bounded_where_the_product_crosses_the_limit() {
    use sinew::math::{Mat4, SoaTransform, Transform, Vec3};
    let chain = |n: usize| {
        let parents: Vec<i16> = (0..n as i16).map(|j| j - 1).collect();
        let rest = vec![Transform { scale: Vec3::new(2.0, 1.0, 0.5), ..Transform::IDENTITY }; n];
        let mut soa = vec![SoaTransform::IDENTITY; sinew::math::num_soa_joints(n)];
        sinew::math::pack_soa(&rest, &mut soa).expect("pack");
        (parents, soa)
    };
    let (parents, soa) = chain(49);
    let skeleton = sinew::Skeleton::new(&parents, &soa, None).expect("49 doublings stay within 1e15");
    let mut model = vec![Mat4::IDENTITY; 49];
    sinew::LocalToModelJob { skeleton: &skeleton, walk: None, local: &soa, root: None, model: &mut model }
        .run()
        .expect("run");
    assert!(model.iter().all(Mat4::is_finite));
    let (parents, soa) = chain(50);
    assert_eq!(sinew::Skeleton::new(&parents, &soa, None).err(), Some(Error::Extent { clip: None, joint: 49 }));
}

#[test]
fn sample_rates_outside_the_documented_range_are_rejected_at_load() {
    for rate in [1e-40f32, f32::MIN_POSITIVE, 0.5, 2000.0, 1e30] {
        let mut b = valid_blob(KeyFormat::F32);
        record(&mut b, 0).sample_rate = rate;
        assert_eq!(load_err(&b), Error::InvalidSampleRate, "rate {rate}");
    }
}

/// A blob with annotations on both clips and a skin over every joint.
fn annotated_blob() -> AlignedBlob {
    use sinew_tools::raw::{Extras, RawAnnotations, RawMarker, RawRange, RawSkin};
    let mut rng = Rng::new(0xA55E7);
    let (skeleton, clip) = random_clip(&mut rng, 7, 31);
    let (_, clip2) = random_clip(&mut Rng::new(2), 7, 3);
    let marker = |name: &str, time, value| RawMarker { name: name.into(), time, value };
    let annotations = vec![
        RawAnnotations {
            // Out of order on purpose: the baker sorts.
            markers: vec![marker("b", 0.5, 2.0), marker("a", 0.25, 1.0), marker("end", 1.0, 0.0)],
            ranges: vec![RawRange { name: "plant".into(), start: 0.1, end: 0.4, value: 3.0 }],
            ..Default::default()
        },
        RawAnnotations { markers: vec![marker("only", 0.0, -1.0)], ..Default::default() },
    ];
    let skin = RawSkin { remap: vec![6, 0, 3], inverse_bind: vec![sinew::math::Mat3x4::IDENTITY; 3] };
    bake::bake_with(
        &skeleton,
        &[clip, clip2],
        KeyFormat::F32,
        &Extras { annotations, skin: Some(skin), ..Default::default() },
    )
    .expect("bake")
}

#[test]
fn annotations_and_the_skin_round_trip() {
    let blob = annotated_blob();
    let asset = Asset::load(blob.bytes()).expect("load");
    let names = |i| asset.markers(i).iter().map(|m| (asset.name(m.name).unwrap(), m.time, m.value)).collect::<Vec<_>>();
    assert_eq!(names(0), [("a", 0.25, 1.0), ("b", 0.5, 2.0), ("end", 1.0, 0.0)]);
    assert_eq!(names(1), [("only", 0.0, -1.0)]);
    let r = asset.ranges(0)[0];
    assert_eq!((asset.name(r.name), r.start, r.end, r.value), (Some("plant"), 0.1, 0.4, 3.0));
    assert!(asset.ranges(1).is_empty() && asset.markers(2).is_empty());
    let skin = asset.skin().expect("a skin");
    assert_eq!(skin.joint_remap(), [6, 0, 3]);
    assert!(Asset::load(valid_blob(KeyFormat::F32).bytes()).unwrap().skin().is_none());
}

#[test]
fn annotation_and_skin_errors() {
    use sinew::asset::{Annotations, Marker, Range};
    let good = annotated_blob();
    fn at<T: bytemuck::Pod>(b: &mut AlignedBlob, offset: usize, index: usize) -> &mut T {
        let size = std::mem::size_of::<T>();
        bytemuck::from_bytes_mut(&mut b.bytes_mut()[offset + index * size..][..size])
    }
    let value = |section| Error::Blob { section, problem: BlobProblem::Value { index: 0 } };
    type Corruption = Box<dyn Fn(&mut AlignedBlob)>;
    let cases: Vec<(&str, Corruption, Error)> = vec![
        (
            "markers out of order",
            Box::new(|b| {
                let o = header(b).markers.offset as usize;
                at::<Marker>(b, o, 0).time = 0.75;
            }),
            value(Section::Markers),
        ),
        (
            "marker past the clip",
            Box::new(|b| {
                let o = header(b).markers.offset as usize;
                at::<Marker>(b, o, 2).time = 1.5;
            }),
            value(Section::Markers),
        ),
        (
            "NaN marker value",
            Box::new(|b| {
                let o = header(b).markers.offset as usize;
                at::<Marker>(b, o, 1).value = f32::NAN;
            }),
            value(Section::Markers),
        ),
        (
            "marker name out of the strings",
            Box::new(|b| {
                let o = header(b).markers.offset as usize;
                at::<Marker>(b, o, 0).name.offset = u32::MAX;
            }),
            value(Section::Markers),
        ),
        (
            "range backwards",
            Box::new(|b| {
                let o = header(b).ranges.offset as usize;
                at::<Range>(b, o, 0).start = 0.9;
            }),
            value(Section::Ranges),
        ),
        (
            "runs with a gap",
            Box::new(|b| {
                let o = header(b).annotations.offset as usize;
                at::<Annotations>(b, o, 1).first_marker = 4;
            }),
            Error::Blob { section: Section::Annotations, problem: BlobProblem::Value { index: 1 } },
        ),
        (
            "runs past the table",
            Box::new(|b| {
                let o = header(b).annotations.offset as usize;
                at::<Annotations>(b, o, 1).num_markers = 9;
            }),
            Error::Blob { section: Section::Annotations, problem: BlobProblem::Value { index: 1 } },
        ),
        (
            "a marker no clip owns",
            Box::new(|b| {
                let o = header(b).annotations.offset as usize;
                at::<Annotations>(b, o, 1).num_markers = 0;
            }),
            Error::Blob { section: Section::Annotations, problem: BlobProblem::Size { len: 5, expected: 4 } },
        ),
        (
            "a curve section in a version 3 blob (reserved there)",
            Box::new(|b| header(b).version = 3),
            Error::Blob { section: Section::Header, problem: BlobProblem::Value { index: 0 } },
        ),
        (
            "skin joint out of range",
            Box::new(|b| {
                let o = header(b).skin_remap.offset as usize;
                *at::<u16>(b, o, 1) = 7;
            }),
            Error::RemapOutOfRange { skin_joint: 1, joint: 7, num_joints: 7 },
        ),
        (
            "huge inverse bind",
            Box::new(|b| {
                let o = header(b).skin_inverse_bind.offset as usize;
                at::<sinew::math::Mat3x4>(b, o, 2).rows[0][3] = 1e30;
            }),
            Error::InverseBindExtent { index: 2 },
        ),
        (
            "inverse binds missing",
            Box::new(|b| header(b).skin_inverse_bind.len = 48),
            Error::Blob { section: Section::SkinInverseBinds, problem: BlobProblem::Size { len: 48, expected: 144 } },
        ),
    ];
    for (what, corrupt, expected) in cases {
        let mut b = good.clone();
        corrupt(&mut b);
        assert_eq!(load_err(&b), expected, "{what}");
    }
    // The baker refuses what the loader would.
    use sinew_tools::raw::{Extras, RawAnnotations, RawMarker};
    let (skeleton, clip) = random_clip(&mut Rng::new(1), 3, 4);
    let late =
        RawAnnotations { markers: vec![RawMarker { name: "x".into(), time: 9.0, value: 0.0 }], ..Default::default() };
    let extras = Extras { annotations: vec![late], ..Default::default() };
    assert!(bake::bake_with(&skeleton, &[clip], KeyFormat::F32, &extras).unwrap_err().contains("outside"));
}

#[test]
fn detected_foot_plants_fire_once_per_step_over_looped_passes() {
    use sinew_tools::{annotate, raw::Extras};
    let Some(dir) = sinew_tests::shared_data("detected foot plants on the Bandai walk") else { return };
    let path = dir.join("bvh/bandai/dataset-1_walk_normal_001.bvh");
    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[path]).expect("load");
    let feet = annotate::foot_joints(&skeleton, &[]).expect("feet");
    assert_eq!(feet.len(), 2, "the Bandai figure has two feet: {:?}", skeleton.names);
    let mut annotations = sinew_tools::raw::RawAnnotations::default();
    annotate::detect_plants(&skeleton, &clips[0], &feet, annotate::PlantRule::default(), &mut annotations).unwrap();
    let extras = Extras { annotations: vec![annotations], ..Default::default() };
    let blob = bake::bake_with(&skeleton, &clips, KeyFormat::F32, &extras).expect("bake");
    let asset = Asset::load(blob.bytes()).expect("load");
    let markers = asset.markers(0);
    // A 6.5 s walk: several steps per foot, alternating feet, each plant long enough to stand on.
    for foot in &feet {
        let steps = markers
            .iter()
            .filter(|m| asset.name(m.name) == Some(&format!("footstep:{}", skeleton.names[*foot])))
            .count();
        assert!((4..=10).contains(&steps), "{}: {steps} steps", skeleton.names[*foot]);
    }
    for r in asset.ranges(0) {
        assert!(r.end - r.start >= 0.1, "a plant of {} s", r.end - r.start);
    }
    // Three looped passes at 60 Hz fire every footstep exactly three times (starting between frames, so no
    // marker sits on the first step's open end).
    let duration = asset.clip(0).unwrap().duration();
    let mut control = sinew::Control::new(0, duration, sinew::Wrap::Loop, 0.013, 1.0, 1.0).unwrap();
    let mut fired = vec![0; markers.len()];
    let frames = (3.0 * duration * 60.0).round() as usize;
    for _ in 0..frames {
        let step = control.advance(3.0 * duration / frames as f32).unwrap();
        step.crossings(markers).for_each(|k| fired[k] += 1);
    }
    assert!(fired.iter().all(|&k| k == 3), "{fired:?}");
}

#[test]
fn step_keys_are_a_version_6_flag_and_other_encoding_bits_are_refused() {
    let mut b = valid_blob(KeyFormat::F32);
    assert!(!Asset::load(b.bytes()).expect("load").clip(1).expect("clip").has_step_keys());
    record(&mut b, 1).encoding |= sinew::clip::STEP_KEYS;
    let asset = Asset::load(b.bytes()).expect("a version 6 clip with step keys loads");
    assert!(asset.clip(1).expect("clip").has_step_keys() && !asset.clip(0).expect("clip").has_step_keys());
    // Version 5 had no step keys: the bit is refused there rather than ignored.
    header(&mut b).version = 5;
    let refused = Error::Blob { section: Section::Keys { clip: 1 }, problem: BlobProblem::Value { index: 1 } };
    assert_eq!(load_err(&b), refused);
    header(&mut b).version = VERSION;
    record(&mut b, 1).encoding = sinew::clip::Encoding::F32 as u32 | 0x400;
    assert_eq!(load_err(&b), refused);
}

#[test]
fn step_tracks_follow_the_track_joints_from_version_7_and_are_checked_at_load() {
    let (skeleton, mut clip) = random_clip(&mut Rng::new(0x57E7), 9, 6);
    let channels = (0..9).map(|j| [j % 2 == 0, j % 3 == 0, false]).collect();
    clip.step = StepKeys::Some { channels, curves: false };
    let good = bake::bake(&skeleton, &[clip], KeyFormat::F32).expect("bake");
    let asset = Asset::load(good.bytes()).expect("load");
    let tracks = asset.clip(0).expect("clip").step_tracks().to_vec();
    assert!(tracks.len() >= 3 && tracks.windows(2).all(|w| w[0] < w[1]), "{tracks:?}");
    let r = *record(&mut good.clone(), 0);
    let count: u32 = r.num_tracks.iter().sum();
    let entry_at = |k: usize| r.track_joints.offset as usize + 2 * (count as usize + k);
    let set = |b: &mut AlignedBlob, k: usize, v: u16| {
        b.bytes_mut()[entry_at(k)..entry_at(k) + 2].copy_from_slice(&v.to_le_bytes())
    };
    let last = tracks.len() - 1;
    let mut b = good.clone();
    set(&mut b, last, tracks[last - 1]);
    assert_eq!(load_err(&b), Error::StepTrack { index: last, track: tracks[last - 1] as usize });
    set(&mut b, last, count as u16);
    assert_eq!(load_err(&b), Error::StepTrack { index: last, track: count as usize });
    // Version 6 lists exactly the tracks' joints.
    let mut b = good.clone();
    header(&mut b).version = 6;
    let section = Section::TrackJoints { clip: 0 };
    let size = BlobProblem::Size { len: u64::from(r.track_joints.len), expected: 2 * u64::from(count) };
    assert_eq!(load_err(&b), Error::Blob { section, problem: size });
    // A clip stepping every track lists none.
    let mut b = good.clone();
    record(&mut b, 0).encoding |= sinew::clip::STEP_KEYS;
    assert_eq!(
        load_err(&b),
        Error::Blob { section: Section::Keys { clip: 0 }, problem: BlobProblem::Value { index: 0 } }
    );
}
