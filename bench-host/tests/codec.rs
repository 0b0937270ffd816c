//! `sinew-bench codec`, the sinew side of the ACL comparison: the raw clip it writes holds the very values sinew
//! baked, and the decoded poses it writes are the runtime's at every frame and midpoint.

use sinew::math::{Transform, Vec3};
use sinew_bench_host::codec::{CodecRequest, acl_raw_clip, measure};
use sinew_tools::rig::Rig;

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("sinew-codec-{}-{name}", std::process::id()))
}

/// The numbers inside each `[ … ]` of `text` after the line `key =`, per track.
fn arrays_after(text: &str, key: &str) -> Vec<Vec<Vec<f32>>> {
    let mut tracks = vec![];
    let mut lines = text.lines().map(str::trim).peekable();
    while let Some(line) = lines.next() {
        if line != format!("{key} =") {
            continue;
        }
        assert_eq!(lines.next(), Some("["));
        let mut values = vec![];
        while let Some(row) = lines.next_if(|l| l.starts_with("[ ")) {
            let inner = row.trim_start_matches('[').trim_end_matches(']');
            values.push(inner.split(',').map(|v| v.trim().parse::<f32>().expect("a number")).collect());
        }
        tracks.push(values);
    }
    tracks
}

#[test]
fn the_acl_raw_clip_holds_the_baked_values_bit_for_bit() {
    let rig = Rig::humanoid(9);
    let (skeleton, clip) = (rig.raw_skeleton(), rig.clip(7, 30.0));
    let text = acl_raw_clip(&skeleton, &clip, 0.25);
    assert!(text.contains("num_samples = 7") && text.contains("sample_rate = 30"));
    type Values = fn(&Transform) -> Vec<f32>;
    let channels: [(&str, Values); 3] = [
        ("rotations", |t| vec![t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w]),
        ("translations", |t| vec![t.translation.x, t.translation.y, t.translation.z]),
        ("scales", |t| vec![t.scale.x, t.scale.y, t.scale.z]),
    ];
    for (key, value) in channels {
        let tracks = arrays_after(&text, key);
        assert_eq!(tracks.len(), skeleton.parents.len(), "{key}");
        for (joint, track) in tracks.iter().enumerate() {
            let want: Vec<Vec<u32>> =
                clip.frames.iter().map(|f| value(&f[joint]).iter().map(|v| v.to_bits()).collect()).collect();
            let got: Vec<Vec<u32>> = track.iter().map(|v| v.iter().map(|x| x.to_bits()).collect()).collect();
            assert_eq!(got, want, "{key} of joint {joint}");
        }
    }
    // Each bone names its parent, and its bind pose is the rest pose.
    for (joint, name) in skeleton.names.iter().enumerate() {
        let parent = usize::try_from(skeleton.parents[joint]).map_or("", |p| skeleton.names[p].as_str());
        assert!(text.contains(&format!("name = \"{name}\"\n\t\tparent = \"{parent}\"")), "{name}");
    }
}

#[test]
fn codec_reports_the_bake_and_writes_the_runtime_poses() {
    let (clip_path, poses_path) = (temp("clip.acl.sjson"), temp("poses"));
    let request = CodecRequest {
        source: "humanoid-12".into(),
        every: 2,
        acl_clip: Some(clip_path.clone()),
        poses: Some(poses_path.clone()),
        rounds: 1,
        samples: 100,
    };
    let report = measure(&request).expect("the rig bakes");
    let field = |key: &str| report[key].as_f64().unwrap_or_else(|| panic!("no `{key}` in {report}"));
    let rig = Rig::humanoid(12);
    let n = rig.raw_skeleton().parents.len();
    // Every second of 61 frames: 31 frames at 15 Hz.
    assert_eq!((field("joints"), field("frames"), field("rate")), (n as f64, 31.0, 15.0));
    assert_eq!(field("ratio"), 40.0 * n as f64 * 31.0 / field("bytes"));
    assert!(field("bound") > 0.0 && field("distance") > field("bound"));
    assert!(field("seek_ns_median") > 0.0 && field("play60_ns_median") > 0.0);

    // The poses: 61 steps (frames and midpoints) × n joints × 10 floats, each the runtime's.
    let poses = std::fs::read(&poses_path).expect("poses written");
    assert_eq!(poses.len(), 61 * n * 40);
    let float = |step: usize, joint: usize, k: usize| {
        let at = ((step * n + joint) * 10 + k) * 4;
        f32::from_le_bytes(poses[at..at + 4].try_into().expect("four bytes"))
    };
    let frames: Vec<_> = rig.clip(61, 30.0).frames.into_iter().step_by(2).collect();
    for (frame, pose) in frames.iter().enumerate() {
        for (joint, t) in pose.iter().enumerate() {
            let got = Vec3::new(float(2 * frame, joint, 0), float(2 * frame, joint, 1), float(2 * frame, joint, 2));
            assert!((got - t.translation).length() <= field("bound") as f32, "frame {frame} joint {joint}");
            let dot = float(2 * frame, joint, 3) * t.rotation.x
                + float(2 * frame, joint, 4) * t.rotation.y
                + float(2 * frame, joint, 5) * t.rotation.z
                + float(2 * frame, joint, 6) * t.rotation.w;
            assert!(dot.abs() > 0.9999, "frame {frame} joint {joint}: {dot}");
        }
    }
    let _ = (std::fs::remove_file(clip_path), std::fs::remove_file(poses_path));

    let refused = [
        ("humanoid-0", 1, 0, 1),
        ("humanoid-12", 0, 0, 1),
        ("humanoid-12", 61, 0, 1),
        ("no-such-file.bvh", 1, 0, 1),
        ("humanoid-12", 1, 1, 0),
        ("humanoid-12", 1, 1, u32::MAX),
        ("humanoid-12", 1, usize::MAX, 1),
    ];
    for (source, every, rounds, samples) in refused {
        let request = CodecRequest { source: source.into(), every, acl_clip: None, poses: None, rounds, samples };
        assert!(measure(&request).is_err(), "{source} every {every}, {rounds} rounds of {samples}");
    }
}
