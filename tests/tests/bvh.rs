//! BVH import on the real files of `../shared/data/bvh` (skipped with a message when absent): round trip
//! through bake → load → sample, model-space positions against an independent f64 forward kinematics written
//! with rotation matrices, quantization error in millimetres, and malformed files.

use sinew::math::{SoaTransform, Transform, unpack_soa};
use sinew::{Arena, Asset, Playback, SamplingContext, SamplingJob};
use sinew_tests::{files_with_extension, shared_data};
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::bvh::{Bvh, BvhChannel};
use sinew_tools::raw;

fn bvh_files(test: &str) -> Vec<std::path::PathBuf> {
    let Some(dir) = shared_data(test) else { return vec![] };
    let files = files_with_extension(&dir.join("bvh"), "bvh");
    assert!(!files.is_empty(), "no .bvh files under {}", dir.display());
    files
}

/// Frames checked per file: all of short files, an even spread (with the last) of long ones.
fn frames_to_check(num_frames: usize) -> Vec<usize> {
    let step = num_frames.div_ceil(120).max(1);
    let mut frames: Vec<usize> = (0..num_frames).step_by(step).collect();
    if frames.last() != Some(&(num_frames - 1)) {
        frames.push(num_frames - 1);
    }
    frames
}

type M3 = [[f64; 3]; 3];

fn mat_mul(a: &M3, b: &M3) -> M3 {
    let mut m = [[0.0; 3]; 3];
    for (r, row) in m.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|k| a[r][k] * b[k][c]).sum();
        }
    }
    m
}

/// Rotation by `degrees` about axis 0/1/2, acting on column vectors.
fn axis_rotation(axis: usize, degrees: f64) -> M3 {
    let (s, c) = degrees.to_radians().sin_cos();
    match axis {
        0 => [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
        1 => [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]],
        _ => [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
    }
}

/// Independent forward kinematics of frame `f`: world rotation and position per joint, in f64.
fn reference_positions(bvh: &Bvh, f: usize) -> Vec<[f64; 3]> {
    let values = bvh.frame(f);
    let mut world: Vec<(M3, [f64; 3])> = Vec::with_capacity(bvh.joints.len());
    for joint in &bvh.joints {
        let mut local_t = joint.offset;
        let mut local_r: M3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        for (i, channel) in joint.channels.iter().enumerate() {
            let v = values[joint.first_channel + i];
            match *channel {
                BvhChannel::Position(axis) => local_t[axis] = v,
                BvhChannel::Rotation(axis) => local_r = mat_mul(&local_r, &axis_rotation(axis, v)),
            }
        }
        let entry = if joint.parent < 0 {
            (local_r, local_t)
        } else {
            let (pr, pt) = &world[joint.parent as usize];
            let moved: [f64; 3] = std::array::from_fn(|r| pt[r] + (0..3).map(|k| pr[r][k] * local_t[k]).sum::<f64>());
            (mat_mul(pr, &local_r), moved)
        };
        world.push(entry);
    }
    world.into_iter().map(|(_, p)| p).collect()
}

/// Samples clip 0 of `blob` at each frame's time and hands local and model poses to `check`.
fn for_each_frame(
    blob: &raw::AlignedBlob,
    rate: f32,
    frames: &[usize],
    mut check: impl FnMut(usize, &[Transform], &[sinew::math::Mat4]),
) {
    let asset = Asset::load(blob.bytes()).expect("load");
    let skeleton = asset.skeleton();
    let clip = asset.clip(0).expect("clip");
    let n = skeleton.num_joints();
    let mut memory = vec![0u8; SamplingContext::required_bytes(n)];
    let arena = Arena::new(&mut memory);
    let mut context = SamplingContext::new(&arena, n).expect("context");
    let mut soa = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    let mut local = vec![Transform::IDENTITY; n];
    let mut model = vec![sinew::math::Mat4::IDENTITY; n];
    for &f in frames {
        let time = f as f32 / rate;
        SamplingJob {
            skeleton,
            clip: &clip,
            time,
            playback: Playback::Clamp,
            context: &mut context,
            output: &mut soa,
            curves: &mut [],
        }
        .run()
        .expect("sample");
        unpack_soa(&soa, &mut local).expect("unpack");
        sinew::LocalToModelJob { skeleton, walk: None, local: &soa, root: None, model: &mut model }.run().expect("l2m");
        check(f, &local, &model);
    }
}

#[test]
fn every_file_parses_with_the_joints_its_text_declares() {
    for path in bvh_files("every_file_parses_with_the_joints_its_text_declares") {
        let text = std::fs::read_to_string(&path).expect("read");
        let declared =
            text.lines().filter(|l| matches!(l.split_whitespace().next(), Some("ROOT") | Some("JOINT"))).count();
        let bvh = Bvh::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(bvh.joints.len(), declared, "{}", path.display());
        assert!(bvh.num_frames > 0 && bvh.values.len() == bvh.num_frames * bvh.num_channels);
    }
}

#[test]
fn round_trip_returns_the_source_keys() {
    for path in bvh_files("round_trip_returns_the_source_keys") {
        let bvh = Bvh::load(&path).expect("parse");
        let (skeleton, clip) = sinew_tools::bvh::to_raw(&bvh, "clip").expect("import");
        let blob = bake::bake(&skeleton, std::slice::from_ref(&clip), KeyFormat::F32).expect("bake");
        let mut worst = 0.0f64;
        for_each_frame(&blob, clip.sample_rate, &frames_to_check(bvh.num_frames), |f, local, _| {
            for (j, t) in local.iter().enumerate() {
                let (pt, pq) = sinew_tools::bvh::local_transform(&bvh, j, f);
                let q = [t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w].map(f64::from);
                let sign = if q.iter().zip(&pq).map(|(a, b)| a * b).sum::<f64>() < 0.0 { -1.0 } else { 1.0 };
                for k in 0..4 {
                    worst = worst.max((q[k] - sign * pq[k]).abs());
                }
                let p = [t.translation.x, t.translation.y, t.translation.z].map(f64::from);
                for k in 0..3 {
                    worst = worst.max((p[k] - pt[k]).abs() / pt[k].abs().max(1.0));
                }
            }
        });
        assert!(worst <= 2e-6, "{}: worst key error {worst:e}", path.display());
    }
}

#[test]
fn model_positions_match_independent_forward_kinematics() {
    for path in bvh_files("model_positions_match_independent_forward_kinematics") {
        let bvh = Bvh::load(&path).expect("parse");
        let (skeleton, clip) = sinew_tools::bvh::to_raw(&bvh, "clip").expect("import");
        let blob = bake::bake(&skeleton, std::slice::from_ref(&clip), KeyFormat::F32).expect("bake");
        let mut worst = 0.0f64;
        for_each_frame(&blob, clip.sample_rate, &frames_to_check(bvh.num_frames), |f, _, model| {
            let expected = reference_positions(&bvh, f);
            let extent = expected.iter().flatten().fold(1.0f64, |m, v| m.max(v.abs()));
            for (m, e) in model.iter().zip(&expected) {
                let p = m.translation();
                let err = [p.x, p.y, p.z].iter().zip(e).map(|(a, b)| (*a as f64 - b).abs()).fold(0.0, f64::max);
                worst = worst.max(err / extent);
            }
        });
        eprintln!("{}: worst position error {worst:.2e} × extent", path.display());
        assert!(worst <= 2e-6, "{}: worst position error {worst:e} of the extent", path.display());
    }
}

#[test]
fn quantized_bvh_clips_stay_within_their_regression_limits() {
    for path in bvh_files("quantized_bvh_clips_stay_within_their_regression_limits") {
        let bvh = Bvh::load(&path).expect("parse");
        let (skeleton, clip) = sinew_tools::bvh::to_raw(&bvh, "clip").expect("import");
        let blob = bake::bake(&skeleton, std::slice::from_ref(&clip), KeyFormat::Quantized).expect("bake");
        let frames = frames_to_check(bvh.num_frames);
        // Units differ per dataset (cm, inches-ish, decimetres): scale so the rest pose's height is 1.7 m.
        let rest = reference_rest_heights(&bvh);
        let mm_per_unit = 1700.0 / rest;
        let mut worst_mm = 0.0f64;
        for_each_frame(&blob, clip.sample_rate, &frames, |f, _, model| {
            for (m, e) in model.iter().zip(&reference_positions(&bvh, f)) {
                let p = m.translation();
                let err = [p.x, p.y, p.z].iter().zip(e).map(|(a, b)| (*a as f64 - b).powi(2)).sum::<f64>().sqrt();
                worst_mm = worst_mm.max(err * mm_per_unit);
            }
        });
        let f32_size = bake::bake(&skeleton, std::slice::from_ref(&clip), KeyFormat::F32).expect("bake").bytes().len();
        eprintln!(
            "{}: quantized worst joint error {worst_mm:.3} mm (1.7 m body), {} bytes vs {f32_size} f32",
            path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
            blob.bytes().len()
        );
        let limit = sinew_tests::quantized_error_limit_mm(&path);
        assert!(worst_mm <= limit, "{}: {worst_mm} mm, regression limit {limit} mm", path.display());
    }
}

/// Height of the rest pose (OFFSETs only): the vertical extent of the joints along the longest axis.
fn reference_rest_heights(bvh: &Bvh) -> f64 {
    let mut pos: Vec<[f64; 3]> = Vec::new();
    for j in &bvh.joints {
        let p = if j.parent < 0 {
            j.offset
        } else {
            let parent = pos[j.parent as usize];
            std::array::from_fn(|k| parent[k] + j.offset[k])
        };
        pos.push(p);
    }
    (0..3)
        .map(|k| {
            let (lo, hi) = pos.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p[k]), hi.max(p[k])));
            hi - lo
        })
        .fold(0.0, f64::max)
}

#[test]
fn pose_export_lists_every_joint_in_file_order() {
    for path in bvh_files("pose_export_lists_every_joint_in_file_order") {
        let bvh = Bvh::load(&path).expect("parse");
        let time = (bvh.num_frames / 2) as f32 * bvh.frame_time as f32;
        let json =
            sinew_tools::pose::bvh_pose_json(&path, time, KeyFormat::F32, sinew::Interpolation::Linear).expect("pose");
        let joints = json["joints"].as_array().expect("joints");
        assert_eq!(joints.len(), bvh.joints.len());
        let expected = reference_positions(&bvh, bvh.num_frames / 2);
        let extent = expected.iter().flatten().fold(1.0f64, |m, v| m.max(v.abs()));
        for ((j, b), e) in joints.iter().zip(&bvh.joints).zip(&expected) {
            assert_eq!(j["name"], b.name.as_str());
            assert_eq!(j["parent"], b.parent);
            for k in 0..3 {
                let v = j["position"][k].as_f64().expect("number");
                assert!((v - e[k]).abs() <= 1e-5 * extent, "{}: {} {k}: {v} vs {}", path.display(), b.name, e[k]);
            }
        }
    }
}

#[test]
fn malformed_files_are_errors_with_a_line() {
    let good = "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n JOINT b\n {\n  OFFSET 0 1 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 1 0\n  }\n }\n}\nMOTION\nFrames: 2\nFrame Time: 0.5\n0 0 0 10 20 30\n1 2 3 4 5 6\n";
    let bvh = Bvh::parse(good).expect("the good file parses");
    assert_eq!((bvh.joints.len(), bvh.num_frames, bvh.num_channels), (2, 2, 6));
    let cases = [
        (good.replace("CHANNELS 3 Zrotation Xrotation Yrotation\n JOINT", "JOINT"), 5, "expected `CHANNELS`"),
        (good.replace("Xrotation Yrotation\n JOINT", "Wrotation Yrotation\n JOINT"), 5, "unknown channel"),
        (good.replace("OFFSET 0 1 0\n  CHANNELS", "OFFSET 0 x 0\n  CHANNELS"), 8, "not a finite number"),
        (good.replace("1 2 3 4 5 6", "1 2 3 4 5"), 20, "need 12 values, found 11"),
        (good.replace("Frames: 2", "Frames: 3"), 20, "need 18 values"),
        (good.replace("10 20 30", "10 nan 30"), 19, "not a finite number"),
        (good.replace("Frame Time: 0.5", "Frame Time: 0"), 18, "positive"),
        (good.replace("HIERARCHY", "HIERARCHX"), 1, "expected `HIERARCHY`"),
        (good.replace("Zrotation Xrotation Yrotation\n JOINT", "Zrotation Zrotation Yrotation\n JOINT"), 5, "repeated"),
        (good[..good.find("MOTION").expect("motion")].to_string(), 15, "end of file"),
    ];
    for (text, line, message) in cases {
        let err = Bvh::parse(&text).expect_err(message);
        assert!(err.message.contains(message) && err.line == line, "wanted line {line} `{message}`, got {err}");
    }
}

/// A one-joint file with `frames` declared, `frame_time`, and `values` as the motion data.
fn one_joint(frames: &str, frame_time: &str, values: &str) -> String {
    format!(
        "HIERARCHY\nROOT a\n{{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n End Site\n {{\n  OFFSET 0 1 0\n }}\n}}\nMOTION\nFrames: {frames}\nFrame Time: {frame_time}\n{values}\n"
    )
}

/// Hostile files found by hand (each crashed or exhausted the tools before): every one is an error naming
/// its line, and none allocates more than the file's size suggests.
#[test]
fn hostile_files_are_errors_not_crashes() {
    let cases = [
        // Frame counts trusted for allocation: a capacity overflow, then a 105 GB allocation.
        (one_joint("18446744073709551615", "0.0333", "0 0 0"), 13, "at most 3600 s"),
        (one_joint("100000000", "0.0333", "0 0 0"), 13, "at most 3600 s"),
        // A million frames of one joint from a 155-byte file: more joint-frames than bytes.
        (one_joint("1000000", "0.001", "0 0 0"), 12, "need more than this 155 byte file"),
        // Joint-frames fit, values do not: 40 frames × 3 channels need at least 240 bytes.
        (one_joint("40", "0.001", "0 0 0"), 12, "cannot fit"),
        // Frame times that gave 0 Hz or 1e30 Hz clips.
        (one_joint("1", "1e30", "0 0 0"), 13, "outside"),
        (one_joint("1", "1e-30", "0 0 0"), 13, "outside"),
        (one_joint("2", "0.5", "0 0 0 1 1 1 2"), 14, "more follow"),
    ];
    for (text, line, message) in cases {
        let err = Bvh::parse(&text).expect_err(message);
        assert!(err.message.contains(message) && err.line == line, "wanted line {line} `{message}`, got {err}");
    }
    // 20 000 nested joints (1.6 MB) overflowed the stack: now the 1025th joint is the error, found before
    // anything deeper is read.
    let depth = 20_000;
    let mut text = String::from("HIERARCHY\nROOT j\n");
    for _ in 0..depth {
        text.push_str("{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\nJOINT j\n");
    }
    text.push_str("{\nOFFSET 0 1 0\nCHANNELS 0\n");
    text.push_str(&"}\n".repeat(depth + 1));
    let err = Bvh::parse(&text).expect_err("too many joints");
    assert!(err.message.contains("more than 1024 joints") && err.line == 2 + 4 * 1024, "{err}");
    // Deep but within the limit parses, with every parent the joint before.
    let mut text = String::from("HIERARCHY\nROOT j\n");
    for _ in 0..1023 {
        text.push_str("{\nOFFSET 0 1 0\nCHANNELS 1 Zrotation\nJOINT j\n");
    }
    text.push_str("{\nOFFSET 0 1 0\nCHANNELS 1 Zrotation\n");
    text.push_str(&"}\n".repeat(1024));
    text.push_str(&format!("MOTION\nFrames: 1\nFrame Time: 0.04\n{}\n", "5 ".repeat(1024)));
    let bvh = Bvh::parse(&text).expect("a 1024-deep chain");
    assert_eq!(bvh.joints.len(), 1024);
    assert!(bvh.joints.iter().enumerate().all(|(j, joint)| joint.parent == j as i32 - 1));
}

/// Errors from a file carry its path and line in the form editors jump to: `file:line: message`.
#[test]
fn load_errors_name_the_file_and_line() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("sinew-hostile.bvh");
    std::fs::write(&path, one_joint("1", "1e30", "0 0 0")).expect("write");
    let err = Bvh::load(&path).expect_err("rejected").to_string();
    let _ = std::fs::remove_file(&path);
    assert!(
        err.starts_with(&format!("{}:13: Frames: 1, Frame Time: 1000000000000000000000000000000:", path.display())),
        "{err}"
    );
}
