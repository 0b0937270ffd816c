//! glTF import on the real files of `../shared/data/gltf` (skipped with a message when absent): joint
//! positions and skinned vertices through the runtime path (import → bake → load → sample → local-to-model →
//! skinning palette) against an independent f64 evaluation written here from the glTF 2.0 spec; and
//! malformed documents.

use sinew_tests::{gltf_characters, shared_data};
use sinew_tools::bake::KeyFormat;
use sinew_tools::gltf_import;
use sinew_tools::pose::{At, GltfPoser, gltf_pose_json};

const LINEAR: sinew::Interpolation = sinew::Interpolation::Linear;
use sinew_tools::raw::StepKeys;

type M4 = [[f64; 4]; 4];

/// Import options baking every clip at `rate` Hz.
fn at_rate(rate: f64) -> gltf_import::Options {
    gltf_import::Options { rate: Some(rate), ..Default::default() }
}

fn mul(a: &M4, b: &M4) -> M4 {
    // Column-major: (a * b)[c][r] = Σ_k a[k][r] b[c][k].
    std::array::from_fn(|c| std::array::from_fn(|r| (0..4).map(|k| a[k][r] * b[c][k]).sum()))
}

fn trs(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> M4 {
    let len = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    let [x, y, z, w] = q.map(|v| v / len);
    let r = [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w)],
        [2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w)],
        [2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y)],
    ];
    let mut m = [[0.0; 4]; 4];
    for c in 0..3 {
        for row in 0..3 {
            m[c][row] = r[c][row] * s[c];
        }
    }
    m[3] = [t[0], t[1], t[2], 1.0];
    m
}

/// One channel's value at `time`, from the spec: clamp outside the keys; LINEAR lerp (rotations slerp);
/// STEP holds; CUBICSPLINE Hermite with tangents scaled by the key interval.
fn channel_value(
    times: &[f32],
    values: &[Vec<f64>],
    interp: gltf::animation::Interpolation,
    rotation: bool,
    time: f64,
) -> Vec<f64> {
    use gltf::animation::Interpolation::*;
    let v = |k: usize| if interp == CubicSpline { values[3 * k + 1].clone() } else { values[k].clone() };
    let n = times.len();
    if time <= times[0] as f64 {
        return v(0);
    }
    if time >= times[n - 1] as f64 {
        return v(n - 1);
    }
    let k = (0..n - 1).find(|&k| time < times[k + 1] as f64).unwrap_or(n - 2);
    let (t0, t1) = (times[k] as f64, times[k + 1] as f64);
    let s = (time - t0) / (t1 - t0);
    let (a, b) = (v(k), v(k + 1));
    match interp {
        Step => a,
        Linear if rotation => {
            let dot: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            let b: Vec<f64> = if dot < 0.0 { b.iter().map(|x| -x).collect() } else { b };
            let theta = dot.abs().min(1.0).acos();
            if theta < 1e-6 {
                // sin θ would lose all precision (dot may even round above 1): the arc is a straight line.
                return a.iter().zip(&b).map(|(x, y)| x + (y - x) * s).collect();
            }
            let (wa, wb) = (((1.0 - s) * theta).sin() / theta.sin(), (s * theta).sin() / theta.sin());
            a.iter().zip(&b).map(|(x, y)| wa * x + wb * y).collect()
        }
        Linear => a.iter().zip(&b).map(|(x, y)| x + (y - x) * s).collect(),
        CubicSpline => {
            let dt = t1 - t0;
            let (m0, m1) = (&values[3 * k + 2], &values[3 * (k + 1)]);
            let (s2, s3) = (s * s, s * s * s);
            (0..a.len())
                .map(|i| {
                    (2.0 * s3 - 3.0 * s2 + 1.0) * a[i]
                        + (s3 - 2.0 * s2 + s) * dt * m0[i]
                        + (-2.0 * s3 + 3.0 * s2) * b[i]
                        + (s3 - s2) * dt * m1[i]
                })
                .collect()
        }
    }
}

/// World matrices of every node at `time` of animation `anim`, and the first skin's joint list, IBMs and
/// first skinned primitive's skinned positions, all in f64.
struct Reference {
    joint_positions: Vec<[f64; 3]>,
    vertices: Vec<[f64; 3]>,
    extent: f64,
}

/// Local TRS of every node at `time` of animation `anim`: the node's own, then the animation's channels.
fn animated_locals(
    doc: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    anim: usize,
    time: f64,
) -> Vec<([f64; 3], [f64; 4], [f64; 3])> {
    let get = |b: gltf::Buffer<'_>| Some(&buffers[b.index()].0[..]);
    let mut local: Vec<([f64; 3], [f64; 4], [f64; 3])> = doc
        .nodes()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            (t.map(f64::from), r.map(f64::from), s.map(f64::from))
        })
        .collect();
    let animation = doc.animations().nth(anim).expect("animation");
    for ch in animation.channels() {
        let reader = ch.reader(get);
        let times: Vec<f32> = reader.read_inputs().expect("inputs").collect();
        use gltf::animation::util::ReadOutputs::*;
        let values: Vec<Vec<f64>> = match reader.read_outputs().expect("outputs") {
            Translations(it) | Scales(it) => it.map(|v| v.iter().map(|&x| x as f64).collect()).collect(),
            Rotations(it) => it.into_f32().map(|v| v.iter().map(|&x| x as f64).collect()).collect(),
            MorphTargetWeights(_) => continue,
        };
        let prop = ch.target().property();
        let v = channel_value(
            &times,
            &values,
            ch.sampler().interpolation(),
            prop == gltf::animation::Property::Rotation,
            time,
        );
        let node = &mut local[ch.target().node().index()];
        match prop {
            gltf::animation::Property::Translation => node.0 = [v[0], v[1], v[2]],
            gltf::animation::Property::Rotation => node.1 = [v[0], v[1], v[2], v[3]],
            gltf::animation::Property::Scale => node.2 = [v[0], v[1], v[2]],
            _ => {}
        }
    }
    local
}

/// World matrix of every node of the scene (`None` outside it), walking from the scene's roots.
fn world_matrices(doc: &gltf::Document, local: &[([f64; 3], [f64; 4], [f64; 3])]) -> Vec<Option<M4>> {
    let mut world: Vec<Option<M4>> = vec![None; doc.nodes().len()];
    let scene = doc.default_scene().or_else(|| doc.scenes().next()).expect("scene");
    let mut stack: Vec<(gltf::Node<'_>, M4)> =
        scene.nodes().map(|n| (n, trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]))).collect();
    while let Some((node, parent)) = stack.pop() {
        let (t, r, s) = local[node.index()];
        let m = mul(&parent, &trs(t, r, s));
        world[node.index()] = Some(m);
        stack.extend(node.children().map(|c| (c, m)));
    }
    world
}

fn reference(doc: &gltf::Document, buffers: &[gltf::buffer::Data], anim: usize, time: f64) -> Reference {
    let get = |b: gltf::Buffer<'_>| Some(&buffers[b.index()].0[..]);
    let world = world_matrices(doc, &animated_locals(doc, buffers, anim, time));
    let skin = doc.skins().next().expect("skin");
    let joints: Vec<usize> = skin.joints().map(|n| n.index()).collect();
    let ibms: Vec<M4> = match skin.reader(get).read_inverse_bind_matrices() {
        Some(it) => it.map(|m| m.map(|c| c.map(f64::from))).collect(),
        None => vec![trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]); joints.len()],
    };
    let joint_world: Vec<M4> = joints.iter().map(|&j| world[j].expect("joint in scene")).collect();
    let joint_positions: Vec<[f64; 3]> = joint_world.iter().map(|m| [m[3][0], m[3][1], m[3][2]]).collect();
    let palette: Vec<M4> = joint_world.iter().zip(&ibms).map(|(w, ib)| mul(w, ib)).collect();
    let mesh = doc
        .nodes()
        .find(|n| n.skin().is_some_and(|s| s.index() == skin.index()) && n.mesh().is_some())
        .and_then(|n| n.mesh())
        .expect("skinned mesh");
    let prim = mesh.primitives().find(|p| p.get(&gltf::Semantic::Joints(0)).is_some()).expect("skinned primitive");
    let reader = prim.reader(get);
    let positions: Vec<[f32; 3]> = reader.read_positions().expect("positions").collect();
    let vj: Vec<[u16; 4]> = reader.read_joints(0).expect("joints").into_u16().collect();
    let vw: Vec<[f32; 4]> = reader.read_weights(0).expect("weights").into_f32().collect();
    let vertices = positions
        .iter()
        .zip(&vj)
        .zip(&vw)
        .map(|((p, js), ws)| {
            let mut acc = [0.0; 3];
            for (&j, &w) in js.iter().zip(ws) {
                let m = &palette[j as usize];
                for r in 0..3 {
                    acc[r] +=
                        w as f64 * (m[0][r] * p[0] as f64 + m[1][r] * p[1] as f64 + m[2][r] * p[2] as f64 + m[3][r]);
                }
            }
            acc
        })
        .collect::<Vec<[f64; 3]>>();
    let extent = joint_positions.iter().chain(&vertices).flatten().fold(1e-3f64, |m, v| m.max(v.abs()));
    Reference { joint_positions, vertices, extent }
}

/// Largest coordinate difference and the item it occurs at.
fn max_diff(json: &serde_json::Value, key: &str, inner: Option<&str>, expected: &[[f64; 3]]) -> (f64, usize) {
    let items = json[key].as_array().expect("array");
    assert_eq!(items.len(), expected.len(), "{key} count");
    items
        .iter()
        .zip(expected)
        .map(|(item, e)| {
            let v = inner.map_or(item, |k| &item[k]);
            (0..3).map(|i| (v[i].as_f64().expect("number") - e[i]).abs()).fold(0.0, f64::max)
        })
        .enumerate()
        .fold((0.0, 0), |best, (i, d)| if d > best.0 { (d, i) } else { best })
}

#[test]
fn skinned_vertices_and_joints_match_an_independent_f64_evaluation() {
    let Some(dir) = shared_data("skinned_vertices_and_joints_match_an_independent_f64_evaluation") else { return };
    let files = gltf_characters(&dir);
    assert!(!files.is_empty());
    for path in files {
        let (mut worst_key, mut worst_between) = (0.0f64, 0.0f64);
        let asset = gltf_import::load(&path).expect("import");
        let poser = GltfPoser::new(&path, KeyFormat::F32).expect("bake");
        let (doc, buffers, _) = gltf::import_slice(std::fs::read(&path).expect("read")).expect("import");
        for (c, clip) in asset.clips.iter().enumerate() {
            let duration = (clip.frames.len() - 1) as f64 / clip.sample_rate as f64;
            // Key times (frames) and between keys, plus before the first key.
            let mut times: Vec<f64> = (0..clip.frames.len())
                .step_by(clip.frames.len().div_ceil(6))
                .map(|f| f as f64 / clip.sample_rate as f64)
                .collect();
            times.extend([0.37 * duration, 0.81 * duration, duration]);
            for &time in &times {
                let json = poser.pose_json(&c.to_string(), At::File(time), true, LINEAR).expect("pose");
                let r = reference(&doc, &buffers, c, time);
                let at_key = ((time * clip.sample_rate as f64) - (time * clip.sample_rate as f64).round()).abs() < 1e-4;
                // At frames only f32 rounding separates the two. Between frames the runtime lerps/nlerps
                // the frames; where the file's keys are not on a uniform grid (Fox's Run) frames fall
                // between keys, so the frames cut the corners of the key curve: 1.2% of the extent measured.
                let tolerance = if at_key { 1e-5 } else { 1.5e-2 } * r.extent;
                let (joints, worst_joint) = max_diff(&json, "joints", Some("position"), &r.joint_positions);
                let (vertices, _) = max_diff(&json, "vertices", None, &r.vertices);
                let relative = joints.max(vertices) / r.extent;
                if at_key {
                    worst_key = worst_key.max(relative);
                } else {
                    worst_between = worst_between.max(relative);
                }
                assert!(
                    joints <= tolerance && vertices <= tolerance,
                    "{} clip {c} t = {time:.4}: joints {joints:e} (worst {}), vertices {vertices:e}, tolerance {tolerance:e}",
                    path.display(),
                    json["joints"][worst_joint]["name"]
                );
            }
        }
        eprintln!(
            "{}: worst error / extent {worst_key:.1e} at keys, {worst_between:.1e} between keys",
            path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
        );
    }
}

#[test]
fn animations_keep_their_timeline_and_partial_channels_keep_rest() {
    let Some(dir) = shared_data("animations_keep_their_timeline_and_partial_channels_keep_rest") else { return };
    // CesiumMan's animation starts at 1/24 s: the clip starts at its first key and lasts to its last.
    let cesium = gltf_import::load(&dir.join("gltf/CesiumMan.glb")).expect("import");
    assert_eq!(cesium.clips.len(), 1);
    let import = cesium.imports[0];
    assert!((import.start - 1.0 / 24.0).abs() < 1e-6, "start {}", import.start);
    // Keyed at 24 Hz, baked at 48 Hz (the first multiple reaching 30 Hz), every key a frame.
    assert!((import.key_rate.expect("uniform keys") - 24.0).abs() < 1e-3, "{import:?}");
    assert!((cesium.clips[0].sample_rate - 48.0).abs() < 1e-3, "rate {}", cesium.clips[0].sample_rate);
    let frames = cesium.clips[0].frames.len() as f64;
    assert!(((frames - 1.0) / 48.0 - import.duration).abs() < 1e-6, "{frames} frames, {import:?}");
    // Fox: 3 named clips; joints the clips do not animate stay at their node transform.
    let fox = gltf_import::load(&dir.join("gltf/Fox.glb")).expect("import");
    let names: Vec<&str> = fox.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Survey", "Walk", "Run"]);
    let root = fox.skeleton.names.iter().position(|n| n == "b_Root_00").expect("b_Root_00");
    for clip in &fox.clips {
        assert!(clip.frames.iter().all(|f| f[root] == fox.skeleton.rest[root]));
    }
    // The skin's joint list is not the node order: the remap says where each skin joint lives.
    let skin = fox.skin.as_ref().expect("skin");
    assert_eq!(skin.remap.len(), 24);
    assert!(skin.remap.iter().all(|&j| (j as usize) < fox.skeleton.parents.len()));
    // A clip chosen by name equals the same clip chosen by index.
    let by_name = gltf_pose_json(&dir.join("gltf/Fox.glb"), "Run", At::File(0.3), false, KeyFormat::F32).expect("pose");
    let by_index = gltf_pose_json(&dir.join("gltf/Fox.glb"), "2", At::File(0.3), false, KeyFormat::F32).expect("pose");
    assert_eq!(by_name, by_index);
    assert!(gltf_pose_json(&dir.join("gltf/Fox.glb"), "Swim", At::File(0.3), false, KeyFormat::F32).is_err());
}

/// A minimal one-node glTF with a translation animation whose data comes from `floats`: two key times, then
/// the outputs (two VEC3, or six for CUBICSPLINE: in-tangent, value, out-tangent per key).
fn tiny_gltf(floats: &[f32], node_index_in_channel: usize) -> String {
    tiny_gltf_sampled(floats, node_index_in_channel, "LINEAR")
}

fn tiny_gltf_sampled(floats: &[f32], node_index_in_channel: usize, interpolation: &str) -> String {
    use base64::Engine;
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let uri = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let outputs = (floats.len() - 2) / 3;
    format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"name":"a"}}],
        "buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{uri}"}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":8}},{{"buffer":0,"byteOffset":8,"byteLength":{out_len}}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]}},
                     {{"bufferView":1,"componentType":5126,"count":{outputs},"type":"VEC3"}}],
        "animations":[{{"channels":[{{"sampler":0,"target":{{"node":{node_index_in_channel},"path":"translation"}}}}]
                       ,"samplers":[{{"input":0,"output":1,"interpolation":"{interpolation}"}}]}}]}}"#,
        len = bytes.len(),
        out_len = 12 * outputs,
    )
}

#[test]
fn step_and_cubic_spline_samplers_follow_the_spec() {
    let dir = std::path::Path::new(".");
    // STEP: the first key's value holds until the second key.
    let step = tiny_gltf_sampled(&[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0], 0, "STEP");
    let clip = &gltf_import::import(step.as_bytes(), dir).expect("step").clips[0];
    assert_eq!(clip.frames[15][0].translation.x, 0.0);
    assert_eq!(clip.frames[29][0].translation.x, 0.0);
    assert_eq!(clip.frames[30][0].translation.x, 1.0);
    // CUBICSPLINE from 0 to 1 over 1 s with tangents 0 (in) and 3 (out) at key 0, 3 and 0 at key 1:
    // p(s) = h00·0 + h10·1·3 + h01·1 + h11·1·3 = 3(s³ − 2s² + s) + (3s² − 2s³) + 3(s³ − s²).
    let cubic = tiny_gltf_sampled(
        &[
            0.0, 1.0, /* key 0 */ 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, /* key 1 */ 3.0, 0.0, 0.0,
            1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        ],
        0,
        "CUBICSPLINE",
    );
    let clip = &gltf_import::import(cubic.as_bytes(), dir).expect("cubic").clips[0];
    for (f, frame) in clip.frames.iter().enumerate() {
        let s = f as f64 / clip.sample_rate as f64;
        let expected =
            3.0 * (s * s * s - 2.0 * s * s + s) + (3.0 * s * s - 2.0 * s * s * s) + 3.0 * (s * s * s - s * s);
        assert!(
            (frame[0].translation.x as f64 - expected).abs() < 1e-6,
            "frame {f}: {} vs {expected}",
            frame[0].translation.x
        );
    }
}

#[test]
fn malformed_documents_are_errors() {
    let dir = std::path::Path::new(".");
    let good = tiny_gltf(&[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0], 0);
    let asset = gltf_import::import(good.as_bytes(), dir).expect("the good document imports");
    // Keys at 0 s and 1 s: keyed at 1 Hz, baked at 30 Hz, the middle frame half way.
    assert_eq!(asset.clips[0].frames.len(), 31);
    assert_eq!(asset.clips[0].frames[15][0].translation.y, 1.0);
    let err = |text: &str| gltf_import::import(text.as_bytes(), dir).expect_err("should be rejected");
    assert!(err(&tiny_gltf(&[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0], 7)).contains("nodes"), "out-of-range node index");
    let nan = err(&tiny_gltf(&[0.0, 1.0, 0.0, f32::NAN, 0.0, 1.0, 2.0, 3.0], 0));
    assert!(nan.contains("non-finite"), "{nan}");
    let backwards = err(&tiny_gltf(&[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0], 0));
    assert!(backwards.contains("increase strictly"), "{backwards}");
    // Equal key times (0, .5, .5, 1) break the spec's strictly increasing rule.
    let equal = err(&tiny_gltf_keys(&[0.0, 0.5, 0.5, 1.0], &[[0.0; 3], [1.0; 3], [2.0; 3], [3.0; 3]], "LINEAR"));
    assert!(equal.contains("key 2 at 0.5 s follows 0.5 s"), "{equal}");
    assert!(!err("{ not json").is_empty());
    // Animations are not validated by the crate, whose accessors unwrap these (found by fuzzing).
    assert!(err(&good.replace(r#""path":"translation""#, r#""path":"transl""#)).contains("unknown target path"));
    let smooth = err(&good.replace(r#""interpolation":"LINEAR""#, r#""interpolation":"SMOOTH""#));
    assert!(smooth.contains("interpolation"), "{smooth}");
    let output = err(&good.replace(r#""output":1"#, r#""output":9"#));
    assert!(output.contains("output"), "{output}");
    assert!(!err(&good.replace("\"byteLength\":32", "\"byteLength\":64")).is_empty());
}

#[test]
fn quantized_skins_stay_within_their_regression_limits() {
    let Some(dir) = shared_data("quantized_skins_stay_within_their_regression_limits") else { return };
    for path in gltf_characters(&dir) {
        let exact = GltfPoser::new(&path, KeyFormat::F32).expect("bake f32");
        let quantized = GltfPoser::new(&path, KeyFormat::Quantized).expect("bake quantized");
        let vertices = |json: &serde_json::Value| -> Vec<[f64; 3]> {
            json["vertices"]
                .as_array()
                .expect("vertices")
                .iter()
                .map(|v| std::array::from_fn(|i| v[i].as_f64().expect("number")))
                .collect()
        };
        let (mut worst, mut height) = (0.0f64, 0.0f64);
        for time in [0.0f32, 0.3, 0.7, 1.1] {
            let a = vertices(&exact.pose_json("0", At::File(time as f64), true, LINEAR).expect("pose"));
            let b = vertices(&quantized.pose_json("0", At::File(time as f64), true, LINEAR).expect("pose"));
            // Height: the largest extent of the skinned mesh along any axis.
            for axis in 0..3 {
                let (lo, hi) = a.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v[axis]), hi.max(v[axis])));
                height = height.max(hi - lo);
            }
            for (p, q) in a.iter().zip(&b) {
                worst = worst.max((0..3).map(|i| (p[i] - q[i]).powi(2)).sum::<f64>().sqrt());
            }
        }
        let worst_mm = worst * 1700.0 / height;
        eprintln!(
            "{}: quantized worst vertex error {worst_mm:.3} mm (mesh scaled to 1.7 m)",
            path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
        );
        let limit = sinew_tests::quantized_error_limit_mm(&path);
        assert!(worst_mm <= limit, "{}: {worst_mm} mm, regression limit {limit} mm", path.display());
    }
}

/// A glTF document with the given nodes (JSON array text), one buffer holding `accessors` (their floats and
/// glTF types), and one animation whose channels are `(node, path, input accessor, output accessor,
/// interpolation)`.
fn gltf_document(nodes: &str, accessors: &[(&[f32], &str)], channels: &[(usize, &str, usize, usize, &str)]) -> String {
    use base64::Engine;
    let bytes: Vec<u8> = accessors.iter().flat_map(|(v, _)| v.iter()).flat_map(|f| f.to_le_bytes()).collect();
    let uri = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let mut offset = 0;
    let (mut views, mut accessor_json) = (Vec::new(), Vec::new());
    for (i, (values, kind)) in accessors.iter().enumerate() {
        let width = match *kind {
            "SCALAR" => 1,
            "VEC3" => 3,
            _ => 4,
        };
        views.push(format!(r#"{{"buffer":0,"byteOffset":{offset},"byteLength":{}}}"#, 4 * values.len()));
        let bounds = if i == 0 || *kind == "SCALAR" {
            let (lo, hi) = values.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
            format!(r#","min":[{lo}],"max":[{hi}]"#)
        } else {
            String::new()
        };
        accessor_json.push(format!(
            r#"{{"bufferView":{i},"componentType":5126,"count":{},"type":"{kind}"{bounds}}}"#,
            values.len() / width
        ));
        offset += 4 * values.len();
    }
    let samplers: Vec<String> = channels
        .iter()
        .map(|(_, _, input, output, interp)| {
            format!(r#"{{"input":{input},"output":{output},"interpolation":"{interp}"}}"#)
        })
        .collect();
    let channel_json: Vec<String> = channels
        .iter()
        .enumerate()
        .map(|(i, (node, path, ..))| format!(r#"{{"sampler":{i},"target":{{"node":{node},"path":"{path}"}}}}"#))
        .collect();
    format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":{nodes},
        "buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{uri}"}}],
        "bufferViews":[{views}],"accessors":[{accessors}],
        "animations":[{{"channels":[{channels}],"samplers":[{samplers}]}}]}}"#,
        len = bytes.len(),
        views = views.join(","),
        accessors = accessor_json.join(","),
        channels = channel_json.join(","),
        samplers = samplers.join(","),
    )
}

/// One node with a translation channel keyed at `times` with `values`.
fn tiny_gltf_keys(times: &[f32], values: &[[f32; 3]], interpolation: &str) -> String {
    let flat: Vec<f32> = values.iter().flatten().copied().collect();
    gltf_document(
        r#"[{"name":"a"}]"#,
        &[(times, "SCALAR"), (&flat, "VEC3")],
        &[(0, "translation", 0, 1, interpolation)],
    )
}

/// A hip–knee–foot chain (each child one unit below its parent) keyed at `times`: the hip's translation and
/// rotation and the knee's rotation follow smooth functions of time, LINEAR.
fn leg_gltf(times: &[f32]) -> String {
    leg_gltf_with(times, "LINEAR")
}

/// [`leg_gltf`] with the hip's translation sampled by `interpolation`.
fn leg_gltf_with(times: &[f32], interpolation: &str) -> String {
    let axis_angle = |axis: usize, angle: f64| {
        let mut q = [0.0f32; 4];
        q[axis] = (angle / 2.0).sin() as f32;
        q[3] = (angle / 2.0).cos() as f32;
        q
    };
    let mut hip_t = Vec::new();
    let mut hip_r = Vec::new();
    let mut knee_r = Vec::new();
    for &t in times {
        let t = t as f64;
        hip_t.extend([(0.3 * (2.0 * t).sin()) as f32, (0.1 * t) as f32, (0.3 * (3.0 * t).cos()) as f32]);
        hip_r.extend(axis_angle(1, 1.5 * (1.3 * t).sin()));
        knee_r.extend(axis_angle(0, 0.8 + 0.7 * (2.1 * t).sin()));
    }
    gltf_document(
        r#"[{"name":"hip","children":[1]},{"name":"knee","translation":[0,-1,0],"children":[2]},
            {"name":"foot","translation":[0,-1,0]}]"#,
        &[(times, "SCALAR"), (&hip_t, "VEC3"), (&hip_r, "VEC4"), (&knee_r, "VEC4")],
        &[(0, "translation", 0, 1, interpolation), (0, "rotation", 0, 2, "LINEAR"), (1, "rotation", 0, 3, "LINEAR")],
    )
}

/// Joint positions of `doc`'s scene at glTF time `time` from the spec's evaluation, in f64 (every node a
/// joint, depth first as the document lists them).
fn leg_reference(doc: &gltf::Document, buffers: &[gltf::buffer::Data], time: f64) -> Vec<[f64; 3]> {
    let world = world_matrices(doc, &animated_locals(doc, buffers, 0, time));
    world.iter().map(|m| m.expect("every node in the scene")).map(|m| [m[3][0], m[3][1], m[3][2]]).collect()
}

/// Imports `text` through the file path (as `sinew-bench pose` does) and checks the runtime's joint positions
/// against the f64 glTF evaluation at every key time, a millisecond either side, half way between keys and at
/// seeded random times: within 2e-4 of the figure's extent. Returns the import record.
fn check_leg_against_reference(text: &str, label: &str) -> gltf_import::ClipImport {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sinew-{label}.gltf"));
    std::fs::write(&path, text).expect("write");
    let poser = GltfPoser::new(&path, KeyFormat::F32);
    let asset = gltf_import::load(&path);
    let _ = std::fs::remove_file(&path);
    let (poser, asset) = (poser.expect("bake"), asset.expect("import"));
    let gltf::Gltf { document, blob } = gltf::Gltf::from_slice(text.as_bytes()).expect("parse");
    let buffers = gltf::import_buffers(&document, None, blob).expect("buffers");
    let times: Vec<f64> = {
        let get = |b: gltf::Buffer<'_>| Some(&buffers[b.index()].0[..]);
        let channel = document.animations().next().expect("animation").channels().next().expect("channel");
        channel.reader(get).read_inputs().expect("inputs").map(f64::from).collect()
    };
    let mut probes: Vec<f64> = times.clone();
    probes.extend(times.windows(2).flat_map(|w| [0.5 * (w[0] + w[1]), w[0] + 1e-3, w[1] - 1e-3]));
    let mut rng = sinew_tests::Rng::new(0x6A7);
    let (first, last) = (times[0], times[times.len() - 1]);
    probes.extend((0..200).map(|_| first + (last - first) * rng.unit() as f64));
    let mut extent = 0.0f64;
    let mut worst = (0.0f64, 0.0f64);
    for &time in &probes {
        let expected = leg_reference(&document, &buffers, time);
        let json = poser.pose_json("0", At::File(time), false, LINEAR).expect("pose");
        let (d, _) = max_diff(&json, "joints", Some("position"), &expected);
        if d > worst.0 {
            worst = (d, time);
        }
        for axis in 0..3 {
            let (lo, hi) = expected.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p[axis]), hi.max(p[axis])));
            extent = extent.max(hi - lo);
        }
    }
    let import = asset.imports[0];
    eprintln!("{label}: {import:?}; runtime worst {:.2e} of the extent at {:.4} s", worst.0 / extent, worst.1);
    assert!(worst.0 <= 2e-4 * extent, "{label}: {} at {} s, extent {extent}", worst.0, worst.1);
    let duration = (asset.clips[0].frames.len() - 1) as f64 / asset.clips[0].sample_rate as f64;
    assert!(
        (duration - (last - first)).abs() <= 1e-6 * (1.0 + last),
        "{label}: duration {duration}, keys {first}..{last}"
    );
    assert!((import.duration - (last - first)).abs() < 1e-9 && import.start == first, "{label}: {import:?}");
    import
}

#[test]
fn uniform_keys_at_37_5_hz_are_baked_at_that_rate_to_the_last_key() {
    // 6 s at 37.5 Hz (225 keys, stored as f32): a step estimated from one interval drifted off the grid.
    let times: Vec<f32> = (0..=225).map(|k| (k as f64 / 37.5) as f32).collect();
    let import = check_leg_against_reference(&leg_gltf(&times), "keys-37.5hz");
    let key_rate = import.key_rate.expect("uniform keys detected");
    assert!((key_rate - 37.5).abs() < 1e-4, "{import:?}");
    let multiple = import.rate / 37.5;
    assert!((multiple - multiple.round()).abs() < 1e-6, "every key a frame: {import:?}");
}

#[test]
fn a_step_sampler_beside_linear_ones_holds_while_they_interpolate() {
    // The hip's translation jumps at every key; the rotations interpolate between the same keys.
    let times: Vec<f32> = (0..=45).map(|k| k as f32 / 30.0).collect();
    let text = leg_gltf_with(&times, "STEP");
    let import = check_leg_against_reference(&text, "step-beside-linear");
    assert!(import.relative_error().expect("a figure") <= 1e-6, "the jumps are exact: {import:?}");
    let clip = &gltf_import::import(text.as_bytes(), std::path::Path::new(".")).expect("import").clips[0];
    let hip_translation_only = vec![[true, false, false], [false; 3], [false; 3]];
    assert_eq!(clip.step, StepKeys::Some { channels: hip_translation_only, curves: false });
    // `inspect` counts the step tracks per channel.
    let skeleton = gltf_import::import(text.as_bytes(), std::path::Path::new(".")).expect("import").skeleton;
    let blob = sinew_tools::bake::bake(&skeleton, std::slice::from_ref(clip), KeyFormat::F32).expect("bake");
    let json = sinew_tools::blob::inspect_json(&blob).expect("inspect");
    let tracks = &json["clips"][0]["tracks"];
    assert_eq!([tracks["translation"]["step"].as_u64(), tracks["rotation"]["step"].as_u64()], [Some(1), Some(0)]);
    assert!(sinew_tools::blob::inspect_text(&blob).expect("text").contains("(1 step)"));
}

#[test]
fn a_first_key_after_zero_starts_the_clip() {
    let times: Vec<f32> = (0..=90).map(|k| (0.7 + k as f64 / 37.5) as f32).collect();
    let import = check_leg_against_reference(&leg_gltf(&times), "keys-from-0.7s");
    assert!((import.key_rate.expect("uniform from the first key") - 37.5).abs() < 1e-3, "{import:?}");
}

#[test]
fn jittered_keys_are_resampled_within_the_measured_error() {
    let mut rng = sinew_tests::Rng::new(0x717);
    let times: Vec<f32> =
        (0..=60).map(|k| ((k as f64 + rng.range(-0.3, 0.3) as f64 * (k > 0) as u8 as f64) / 30.0) as f32).collect();
    let import = check_leg_against_reference(&leg_gltf(&times), "jittered-keys");
    assert!(import.key_rate.is_none(), "{import:?}");
    assert!(import.relative_error().expect("a figure") <= gltf_import::TARGET_ERROR, "{import:?}");
}

#[test]
fn a_rate_given_by_the_caller_keeps_the_exact_duration() {
    let times: Vec<f32> = (0..=30).map(|k| k as f32 / 24.0).collect();
    let text = leg_gltf(&times);
    let asset = gltf_import::import_with(text.as_bytes(), std::path::Path::new("."), &at_rate(100.0)).expect("import");
    let clip = &asset.clips[0];
    // 1.25 s at 100 Hz is 125 intervals exactly.
    assert_eq!(clip.frames.len(), 126);
    assert!((clip.sample_rate - 100.0).abs() < 1e-4);
    assert!(asset.imports[0].max_error > 0.0 && asset.imports[0].scaled_error() < 1e-2, "{:?}", asset.imports[0]);
}

/// Accessors of the wrong shape (found by fuzzing: the `gltf` crate reads them assuming the right one) are
/// errors naming the accessor.
#[test]
fn accessors_of_the_wrong_type_are_errors() {
    let dir = std::path::Path::new(".");
    let times = [0.0f32, 1.0];
    let vec2 = [0.0f32, 0.0, 1.0, 1.0];
    let text = gltf_document(
        r#"[{"name":"a"}]"#,
        &[(&times, "SCALAR"), (&vec2, "VEC2")],
        &[(0, "translation", 0, 1, "LINEAR")],
    );
    let err = gltf_import::import(text.as_bytes(), dir).expect_err("VEC2 translations");
    assert!(err.contains("accessor 1 holds Vec2") && err.contains("expected Vec3"), "{err}");
    let text =
        gltf_document(r#"[{"name":"a"}]"#, &[(&vec2, "VEC2"), (&vec2, "VEC2")], &[(0, "translation", 0, 1, "LINEAR")]);
    let err = gltf_import::import(text.as_bytes(), dir).expect_err("VEC2 times");
    assert!(err.contains("input") && err.contains("expected Scalar"), "{err}");
    // A count of 0 (the crate computes `count - 1`) and a count past the buffer view.
    let good = tiny_gltf(&[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0], 0);
    let err =
        gltf_import::import(good.replace(r#""count":2,"type":"VEC3""#, r#""count":0,"type":"VEC3""#).as_bytes(), dir)
            .expect_err("empty accessor");
    assert!(err.contains("no elements"), "{err}");
    let err =
        gltf_import::import(good.replace(r#""count":2,"type":"VEC3""#, r#""count":3,"type":"VEC3""#).as_bytes(), dir)
            .expect_err("accessor past its view");
    assert!(err.contains("past the end of its buffer view"), "{err}");
    // A GLB header declaring fewer bytes than the header itself (the crate subtracts 12 unchecked).
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend(0u32.to_le_bytes());
    glb.extend([0u8; 20]);
    let err = gltf_import::import(&glb, dir).expect_err("short GLB length");
    assert!(err.contains("GLB header declares 0 bytes"), "{err}");
}

#[test]
fn keys_on_a_grid_finer_than_their_shortest_interval_bake_at_the_grid() {
    // Keys 9, 11, 10 and 11 steps of 1/24 s apart (InterpolationTest's), and at 37.5 Hz with 0.14 % of a step
    // of jitter (an exporter's rounding): both are grids, so every key becomes a frame.
    let on_24 = [0, 9, 20, 30, 41].map(|k| (k as f64 / 24.0) as f32);
    let import = check_leg_against_reference(&leg_gltf(&on_24), "keys-on-24hz");
    // Key times are f32: rates within their rounding.
    assert!((import.key_rate.expect("the 1/24 s grid") - 24.0).abs() < 1e-5, "{import:?}");
    let multiple = import.rate / import.key_rate.unwrap_or(f64::NAN);
    assert!((multiple - multiple.round()).abs() < 1e-9, "every key a frame: {import:?}");
    let mut rng = sinew_tests::Rng::new(0x375);
    let jittered: Vec<f32> = (0..=75)
        .map(|k| ((k as f64 + (k > 0) as u8 as f64 * rng.range(-0.0014, 0.0014) as f64) / 37.5) as f32)
        .collect();
    let import = check_leg_against_reference(&leg_gltf(&jittered), "keys-37.5hz-jittered");
    assert!((import.key_rate.expect("37.5 Hz within the tolerance") - 37.5).abs() < 1e-3, "{import:?}");
}

#[test]
fn the_fox_run_bakes_on_its_120_hz_key_grid() {
    let Some(dir) = shared_data("the_fox_run_bakes_on_its_120_hz_key_grid") else { return };
    let fox = gltf_import::load(&dir.join("gltf/Fox.glb")).expect("import");
    let run = fox.clips.iter().position(|c| c.name == "Run").expect("a Run clip");
    let import = fox.imports[run];
    assert!((import.key_rate.expect("a 1/120 s grid") - 120.0).abs() < 1e-4, "{import:?}");
    assert!(import.relative_error().expect("a figure") < 1e-6, "{import:?}");
}

/// A root with a leaf one unit below it whose scale is keyed LINEAR off the frame grid, baked at 30 Hz: the
/// resampling error counts the leaf's scale through its virtual points (a joint position alone never moves).
#[test]
fn a_leaf_nodes_scale_counts_in_the_resampling_error() {
    let times = [0.0f32, 0.31, 1.0];
    let scales = [[1.0f32, 1.0, 1.0], [0.5, 0.5, 0.5], [1.0, 1.0, 1.0]];
    let flat: Vec<f32> = scales.iter().flatten().copied().collect();
    let text = gltf_document(
        r#"[{"name":"root","children":[1]},{"name":"leaf","translation":[0,-1,0]}]"#,
        &[(&times, "SCALAR"), (&flat, "VEC3")],
        &[(1, "scale", 0, 1, "LINEAR")],
    );
    let import = gltf_import::import_with(text.as_bytes(), std::path::Path::new("."), &at_rate(30.0))
        .expect("import")
        .imports[0];
    // At the middle key the glTF scale is 0.5; the 30 Hz frames around it (0.3 s and 1/3 s) lerp to more.
    let gltf_scale = |t: f64| if t <= 0.31 { 1.0 - 0.5 * t / 0.31 } else { 0.5 + 0.5 * (t - 0.31) / 0.69 };
    let (a, b) = (gltf_scale(0.3), gltf_scale(1.0 / 3.0));
    let resampled = a + (b - a) * (0.31 - 0.3) * 30.0;
    let distance = gltf_import::VIRTUAL_POINT_FRACTION * import.extent;
    let at_key = (resampled - 0.5) * distance;
    assert!((import.extent - 1.0).abs() < 1e-9, "root to leaf is the extent: {import:?}");
    assert!(at_key > 0.0 && import.max_error >= 0.999 * at_key, "{import:?} against {at_key}");
    assert!(import.max_error <= 0.5 * distance * 1.001, "within the keys' scale range: {import:?}");
}

#[test]
fn a_figure_without_extent_reports_file_units() {
    // One node that only scales: no extent to scale by, so the error is in file units and no ratio is made up.
    let flat = [1.0f32, 1.0, 1.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0];
    let text = gltf_document(
        r#"[{"name":"a"}]"#,
        &[(&[0.0, 0.37, 1.0], "SCALAR"), (&flat, "VEC3")],
        &[(0, "scale", 0, 1, "LINEAR")],
    );
    let import = gltf_import::import_with(text.as_bytes(), std::path::Path::new("."), &at_rate(30.0)).expect("import");
    let import = import.imports[0];
    assert_eq!(import.extent, 0.0);
    assert_eq!(import.relative_error(), None);
    assert!(import.max_error > 0.0 && import.scaled_error() == import.max_error, "{import:?}");
}

/// Khronos' InterpolationTest (one animation per sampler kind and property) through the runtime path (import,
/// bake, load, sample, local-to-model) against the spec's f64 evaluation, at 20 times across each clip and just
/// before and after every key: STEP exactly (to `f32` rounding), LINEAR and CUBICSPLINE within 2e-4 of the
/// figure's extent at every point of the cubes (translations; the linear part moves a point one unit out, the
/// cubes' size, by its entries' error).
#[test]
fn khronos_interpolation_test_plays_as_the_spec_evaluates_it() {
    let Some(dir) = shared_data("khronos_interpolation_test_plays_as_the_spec_evaluates_it") else { return };
    let path = dir.join("gltf/khronos/InterpolationTest.glb");
    let imported = gltf_import::load(&path).expect("import");
    let blob = sinew_tools::bake::bake(&imported.skeleton, &imported.clips, KeyFormat::F32).expect("bake");
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let (document, buffers, _) = gltf::import(&path).expect("gltf");
    let get = |b: gltf::Buffer<'_>| Some(&buffers[b.index()].0[..]);
    let skeleton = asset.skeleton();
    let n = skeleton.num_joints();
    let mut memory = vec![0u8; sinew::SamplingContext::required_bytes(n)];
    let arena = sinew::Arena::new(&mut memory);
    let mut context = sinew::SamplingContext::new(&arena, n).expect("context");
    let mut local = vec![sinew::math::SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    for (anim, animation) in document.animations().enumerate() {
        let import = imported.imports[anim];
        let clip = asset.clip(anim).expect("clip");
        let channel = animation.channels().next().expect("a channel");
        let step = channel.sampler().interpolation() == gltf::animation::Interpolation::Step;
        assert_eq!(clip.has_step_keys(), step, "animation {anim}");
        let keys: Vec<f64> = channel.reader(get).read_inputs().expect("inputs").map(f64::from).collect();
        let mut probes: Vec<f64> = (0..20).map(|i| import.start + import.duration * i as f64 / 19.0).collect();
        probes.extend(keys.iter().flat_map(|&k| [k - 1e-3, k, k + 1e-3]));
        let extent = import.extent;
        let (tol_t, tol_m) = if step { (2e-6 * extent, 2e-6) } else { (2e-4 * extent, 2e-4 * extent) };
        for time in probes {
            let clip_time = (time - import.start).clamp(0.0, import.duration) as f32;
            sinew_tools::sample::sample_clamped(skeleton, &clip, clip_time, &mut context, &mut local).expect("sample");
            let model = sinew_tests::model_of(skeleton, &local);
            let world = world_matrices(&document, &animated_locals(&document, &buffers, anim, time.max(0.0)));
            for (node, want) in world.iter().enumerate() {
                let (Some(want), Some(joint)) = (want, imported.node_to_joint[node]) else { continue };
                let got = model[joint].cols;
                for c in 0..4 {
                    for r in 0..3 {
                        let tol = if c == 3 { tol_t } else { tol_m };
                        let d = (got[c][r] as f64 - want[c][r]).abs();
                        assert!(d <= tol, "animation {anim} node {node} at {time} s: column {c} row {r} off by {d:e}");
                    }
                }
            }
        }
    }
}

/// Khronos' AnimatedMorphCube (and its `KHR_mesh_quantization` copy): the morph weights become curves named
/// after the mesh and target, the clip keeps its 4.2 s, and the runtime's curve values follow the spec's f64
/// evaluation of the weights (LINEAR) at 20 times and around every key.
#[test]
fn morph_target_weights_become_curves_that_follow_the_gltf() {
    let Some(dir) = shared_data("morph_target_weights_become_curves_that_follow_the_gltf") else { return };
    for (file, mesh) in
        [("AnimatedMorphCube.glb", "Cube"), ("AnimatedMorphCube-Quantized/AnimatedMorphCube.gltf", "mesh0")]
    {
        let path = dir.join("gltf/khronos").join(file);
        let imported = gltf_import::load(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let import = imported.imports[0];
        assert!((import.duration - 4.2).abs() < 1e-5, "{file}: {import:?}");
        let names: Vec<&str> = imported.curves[0].iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, [format!("{mesh}/0"), format!("{mesh}/1")], "{file}");
        let mut annotations = vec![sinew_tools::raw::RawAnnotations::default()];
        annotations[0].curves = imported.curves[0].clone();
        let extras = sinew_tools::raw::Extras { annotations, ..Default::default() };
        let blob =
            sinew_tools::bake::bake_with(&imported.skeleton, &imported.clips, KeyFormat::F32, &extras).expect("bake");
        let asset = sinew::Asset::load(blob.bytes()).expect("load");
        let clip = asset.clip(0).expect("clip");
        assert_eq!(asset.curve_names(0).collect::<Vec<_>>(), names, "{file}");
        // The spec's weights, from the file's own accessors (read without the `gltf` crate's validation, which
        // refuses `KHR_mesh_quantization`).
        let bytes = std::fs::read(&path).expect("read");
        let gltf::Gltf { document, blob } = gltf::Gltf::from_slice_without_validation(&bytes).expect("gltf");
        let buffers = gltf::import_buffers(&document, path.parent(), blob).expect("buffers");
        let get = |b: gltf::Buffer<'_>| Some(&buffers[b.index()].0[..]);
        let channel = document.animations().next().expect("animation").channels().next().expect("channel");
        let reader = channel.reader(get);
        let times: Vec<f32> = reader.read_inputs().expect("inputs").collect();
        let flat: Vec<f64> = match reader.read_outputs().expect("outputs") {
            gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => w.into_f32().map(f64::from).collect(),
            _ => panic!("{file}: weights expected"),
        };
        let per_target: Vec<Vec<Vec<f64>>> =
            (0..2).map(|k| flat.iter().skip(k).step_by(2).map(|&w| vec![w]).collect()).collect();
        let mut probes: Vec<f64> = (0..20).map(|i| import.duration * i as f64 / 19.0).collect();
        probes.extend(times.iter().flat_map(|&t| [t as f64 - 1e-3, t as f64, t as f64 + 1e-3]));
        let n = asset.skeleton().num_joints();
        let mut memory = vec![0u8; sinew::SamplingContext::required_bytes(n)];
        let arena = sinew::Arena::new(&mut memory);
        let mut context = sinew::SamplingContext::new(&arena, n).expect("context");
        let mut local = vec![sinew::math::SoaTransform::IDENTITY; asset.skeleton().num_soa_joints()];
        let mut curves = [0.0f32; 2];
        for time in probes {
            let time = time.clamp(0.0, import.duration);
            let skeleton = asset.skeleton();
            let playback = sinew::Playback::Clamp;
            let output = &mut local;
            sinew::SamplingJob {
                skeleton,
                clip: &clip,
                time: time as f32,
                playback,
                context: &mut context,
                output,
                curves: &mut curves,
            }
            .run()
            .expect("sample");
            for (k, weights) in per_target.iter().enumerate() {
                let want = channel_value(&times, weights, gltf::animation::Interpolation::Linear, false, time)[0];
                let d = (curves[k] as f64 - want).abs();
                assert!(d <= 2e-4, "{file}: target {k} at {time} s: {} against {want}", curves[k]);
            }
        }
    }
}

/// Required extensions: ones that change nothing the importer reads are accepted, mesh compression is refused
/// in one line naming it, as is any other; a document with many broken accessors lists a few, not thousands.
#[test]
fn required_extensions_are_accepted_or_refused_in_one_line() {
    let dir = std::path::Path::new(".");
    let base = tiny_gltf_keys(&[0.0, 1.0], &[[0.0; 3], [1.0, 0.0, 0.0]], "LINEAR");
    let with = |names: &str| base.replacen(r#"{"asset""#, &format!(r#"{{"extensionsRequired":[{names}],"asset""#), 1);
    for accepted in
        [r#""KHR_texture_transform""#, r#""KHR_materials_unlit","KHR_mesh_quantization""#, r#""KHR_texture_basisu""#]
    {
        gltf_import::import(with(accepted).as_bytes(), dir).unwrap_or_else(|e| panic!("{accepted}: {e}"));
    }
    for (refused, named) in [
        (r#""KHR_draco_mesh_compression""#, "KHR_draco_mesh_compression"),
        (r#""EXT_meshopt_compression""#, "EXT_meshopt_compression"),
        (r#""EXT_made_up""#, "EXT_made_up"),
    ] {
        let error = gltf_import::import(with(refused).as_bytes(), dir).expect_err(refused);
        assert!(error.contains(named) && !error.contains('\n') && error.len() < 200, "{error}");
    }
    // Forty accessors without data: a few problems and a count, not forty.
    let broken: Vec<String> =
        (0..40).map(|_| r#"{"componentType":5126,"count":1,"type":"SCALAR"}"#.to_string()).collect();
    let text = base.replacen(r#""accessors":["#, &format!(r#""accessors":[{},"#, broken.join(",")), 1);
    let error = gltf_import::import(text.as_bytes(), dir).expect_err("broken accessors");
    assert!(error.contains("more") && error.len() < 1000, "{} bytes: {error}", error.len());
}

#[test]
fn animation_of_a_node_outside_the_scene_is_an_error_naming_it() {
    // Node 1 is not in scene 0 (whose only node is 0), yet the animation moves it.
    let text = gltf_document(
        r#"[{"name":"in"},{"name":"outside"}]"#,
        &[(&[0.0, 1.0], "SCALAR"), (&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], "VEC3")],
        &[(1, "translation", 0, 1, "LINEAR")],
    );
    let error = gltf_import::import(text.as_bytes(), std::path::Path::new(".")).expect_err("outside the scene");
    assert!(error.contains("node 1") && error.contains("outside"), "{error}");
}

#[test]
fn the_skin_option_imports_that_skin() {
    let Some(dir) = shared_data("the_skin_option_imports_that_skin") else { return };
    let path = dir.join("gltf/khronos/RecursiveSkeletons.glb");
    let (document, _, _) = gltf::import(&path).expect("gltf");
    for chosen in [0, 5, 83] {
        let options = gltf_import::Options { skin: chosen, ..Default::default() };
        let asset = gltf_import::load_with(&path, &options).expect("import");
        assert_eq!(asset.skins.len(), 84);
        let want: Vec<u16> = document
            .skins()
            .nth(chosen)
            .expect("skin")
            .joints()
            .map(|n| asset.node_to_joint[n.index()].expect("in the scene") as u16)
            .collect();
        assert_eq!(asset.skin.expect("a skin").remap, want, "skin {chosen}");
    }
    let past = gltf_import::Options { skin: 84, ..Default::default() };
    assert!(gltf_import::load_with(&path, &past).expect_err("no skin 84").contains("skin 84"));
}

/// A two-joint skinned strip whose four vertices are `positions` (`VEC3` of `component_type`, 4-byte aligned
/// rows as glTF requires for vertex attributes), each bound to one joint.
fn skinned_strip(positions: &[u8], component_type: u32, normalized: bool, extension: bool) -> String {
    use base64::Engine;
    let identity: Vec<f32> = (0..32).map(|i| if i % 16 % 5 == 0 { 1.0 } else { 0.0 }).collect();
    let mut bytes: Vec<u8> = identity.iter().flat_map(|f| f.to_le_bytes()).collect();
    let positions_at = bytes.len();
    bytes.extend_from_slice(positions);
    let joints_at = bytes.len();
    bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
    let weights_at = bytes.len();
    bytes.extend((0..4).flat_map(|_| [1.0f32, 0.0, 0.0, 0.0]).flat_map(|f| f.to_le_bytes()));
    let uri = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let stride = positions.len() / 4;
    let required = if extension {
        r#""extensionsUsed":["KHR_mesh_quantization"],"extensionsRequired":["KHR_mesh_quantization"],"#
    } else {
        ""
    };
    format!(
        r#"{{"asset":{{"version":"2.0"}},{required}"scene":0,"scenes":[{{"nodes":[0,2]}}],
        "nodes":[{{"name":"hip","children":[1]}},{{"name":"knee","translation":[0,-1,0]}},{{"mesh":0,"skin":0}}],
        "skins":[{{"joints":[0,1],"inverseBindMatrices":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":1,"JOINTS_0":2,"WEIGHTS_0":3}}}}]}}],
        "buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{uri}"}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":128}},
            {{"buffer":0,"byteOffset":{positions_at},"byteLength":{positions_len},"byteStride":{stride},"target":34962}},
            {{"buffer":0,"byteOffset":{joints_at},"byteLength":16,"target":34962}},
            {{"buffer":0,"byteOffset":{weights_at},"byteLength":64,"target":34962}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":2,"type":"MAT4"}},
            {{"bufferView":1,"componentType":{component_type},"normalized":{normalized},"count":4,"type":"VEC3",
              "min":[-1,-1,-1],"max":[1,1,1]}},
            {{"bufferView":2,"componentType":5121,"count":4,"type":"VEC4"}},
            {{"bufferView":3,"componentType":5126,"count":4,"type":"VEC4"}}]}}"#,
        len = bytes.len(),
        positions_len = positions.len(),
    )
}

#[test]
fn quantized_positions_of_a_skinned_mesh_are_dequantized_as_the_spec_maps_them() {
    let dir = std::path::Path::new(".");
    let levels: [[i16; 3]; 4] = [[0, 0, 0], [32767, -32767, 16384], [-32768, 100, -1], [7, 8, 9]];
    let import = |text: &str| gltf_import::import(text.as_bytes(), dir).expect("import").skin.expect("skin").mesh;
    // `i16` rows padded to 8 bytes, normalized and not.
    let rows: Vec<u8> = levels.iter().flat_map(|p| p.iter().flat_map(|c| c.to_le_bytes()).chain([0, 0])).collect();
    let normalized = import(&skinned_strip(&rows, 5122, true, true)).expect("a skinned mesh").positions;
    let whole = import(&skinned_strip(&rows, 5122, false, true)).expect("a skinned mesh").positions;
    for (k, p) in levels.iter().enumerate() {
        for c in 0..3 {
            let want = (p[c] as f64 / 32767.0).max(-1.0);
            assert!((normalized[k][c] as f64 - want).abs() <= 1e-7, "vertex {k}: {:?} against {p:?}", normalized[k]);
            assert_eq!(whole[k][c], p[c] as f32, "vertex {k}");
        }
    }
    // The same values stored as `f32` import unchanged.
    let floats: Vec<u8> = normalized.iter().flatten().flat_map(|c| c.to_le_bytes()).collect();
    assert_eq!(import(&skinned_strip(&floats, 5126, false, false)).expect("mesh").positions, normalized);
    // `u8`, normalized: c / 255, rows padded to 4 bytes.
    let rows = [0u8, 255, 51, 0, 1, 2, 3, 0, 255, 255, 255, 0, 128, 64, 32, 0];
    let bytes = import(&skinned_strip(&rows, 5121, true, true)).expect("mesh").positions;
    assert_eq!(bytes[0], [0.0, 1.0, 51.0 / 255.0]);
    assert_eq!(bytes[3], [128.0 / 255.0, 64.0 / 255.0, 32.0 / 255.0]);
    // Other types stay refused in one line naming the accessor.
    let ints: Vec<u8> = (0..12u32).flat_map(|c| c.to_le_bytes()).collect();
    let refused = gltf_import::import(skinned_strip(&ints, 5125, false, true).as_bytes(), dir).expect_err("u32");
    assert!(refused.contains("accessor 1") && !refused.contains('\n'), "{refused}");
}

#[test]
fn nodes_sharing_a_morphed_mesh_give_their_curves_their_names() {
    let times = [0.0f32, 1.0];
    // Two targets: weights per key, node `left` then `right`; one position and one target offset.
    let (left, right) = ([0.0f32, 1.0, 1.0, 0.0], [0.5f32, 0.5, 0.0, 1.0]);
    let point = [0.0f32, 0.0, 0.0];
    let text = gltf_document(
        r#"[{"name":"root","children":[1,2]},{"name":"left","mesh":0},{"name":"right","mesh":0}]"#,
        &[(&times, "SCALAR"), (&left, "SCALAR"), (&right, "SCALAR"), (&point, "VEC3")],
        &[(1, "weights", 0, 1, "LINEAR"), (2, "weights", 0, 2, "LINEAR")],
    )
    .replace(r#""type":"VEC3"}"#, r#""type":"VEC3","min":[0,0,0],"max":[0,0,0]}"#)
    .replace(
        r#""animations":"#,
        r#""meshes":[{"name":"face","primitives":[{"attributes":{"POSITION":3},"targets":[{"POSITION":3},{"POSITION":3}]}]}],"animations":"#,
    );
    let imported = gltf_import::import(text.as_bytes(), std::path::Path::new(".")).expect("import");
    let names: Vec<&str> = imported.curves[0].iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["left/face/0", "left/face/1", "right/face/0", "right/face/1"]);
    // Each keeps its own node's weights: half way, left's first target is at 0.5, right's second at 0.5.
    let clip = &imported.clips[0];
    let middle = clip.frames.len() / 2;
    let values: Vec<f32> = imported.curves[0].iter().map(|c| c.frame_values(clip).expect("values")[middle]).collect();
    assert_eq!(values, [0.5, 0.5, 0.25, 0.75]);
}
