//! Joint boxes carried to model space: against the eight corners of each box transformed in f64, and on the
//! shared glTF characters, against every vertex skinned in f64 at every frame of every clip.

use sinew::bounds::{Aabb, BoundsJob, JointBounds, JointBox};
use sinew::math::Mat4;
use sinew::{Buffer, Error};
use sinew_tests::oracle::{self, M4};
use sinew_tests::{Rng, gltf_characters, shared_data};
use sinew_tools::bounds::joint_boxes;
use sinew_tools::gltf_import;

/// The axis-aligned box around box `b`'s eight corners carried by `m`, in f64.
fn corners_box(m: &Mat4, b: &JointBox) -> ([f64; 3], [f64; 3]) {
    let m = oracle::widen(m);
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for corner in 0..8 {
        let p: [f64; 3] = std::array::from_fn(|i| {
            let sign = if corner >> i & 1 == 1 { 1.0 } else { -1.0 };
            f64::from(b.center[i]) + sign * f64::from(b.half_extent[i])
        });
        for r in 0..3 {
            let v = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
            (lo[r], hi[r]) = (lo[r].min(v), hi[r].max(v));
        }
    }
    (lo, hi)
}

fn random_boxes(rng: &mut Rng, joints: usize, count: usize) -> Vec<JointBox> {
    (0..count)
        .map(|_| JointBox {
            center: rng.vec3(-0.3, 0.3).to_array(),
            joint: rng.below(joints) as u32,
            half_extent: rng.vec3(0.0, 0.2).to_array(),
            reserved: 0,
        })
        .collect()
}

fn random_model(rng: &mut Rng, joints: usize) -> Vec<Mat4> {
    (0..joints).map(|_| sinew_tests::random_affine(rng).to_mat4()).collect()
}

#[test]
fn each_box_is_the_box_around_its_corners_and_the_union_holds_them_all() {
    let mut rng = Rng::new(0xb0c5);
    for trial in 0..200 {
        let joints = 1 + rng.below(70);
        let count = 1 + rng.below(joints);
        let boxes = random_boxes(&mut rng, joints, count);
        let model = random_model(&mut rng, joints);
        let bounds = JointBounds::new(joints, &boxes).expect("valid boxes");
        let mut out = vec![Aabb::default(); boxes.len()];
        let union = BoundsJob { bounds: &bounds, model: &model, boxes: Some(&mut out) }.run().expect("bounds");
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for (b, got) in boxes.iter().zip(&out) {
            let (want_lo, want_hi) = corners_box(&model[b.joint as usize], b);
            for i in 0..3 {
                // Products of values within 3 and sums of four: a few f32 ulps.
                let tolerance = 4e-6;
                assert!((f64::from(got.min[i]) - want_lo[i]).abs() <= tolerance, "trial {trial} {b:?}: {got:?}");
                assert!((f64::from(got.max[i]) - want_hi[i]).abs() <= tolerance, "trial {trial} {b:?}: {got:?}");
                (lo[i], hi[i]) = (lo[i].min(f64::from(got.min[i])), hi[i].max(f64::from(got.max[i])));
            }
        }
        assert_eq!(union.min.map(f64::from), lo, "trial {trial}");
        assert_eq!(union.max.map(f64::from), hi, "trial {trial}");
        // The union alone gives the same union.
        let alone = BoundsJob { bounds: &bounds, model: &model, boxes: None }.run().expect("bounds");
        assert_eq!(alone, union);
    }
}

#[test]
fn bad_boxes_and_buffers_are_errors() {
    let good = JointBox { center: [0.0; 3], joint: 1, half_extent: [0.1; 3], reserved: 7 };
    assert!(JointBounds::new(2, &[good]).is_ok(), "the reserved field is not read");
    let err = |boxes: &[JointBox], joints: usize| JointBounds::new(joints, boxes).err();
    assert_eq!(err(&[], 2), Some(Error::BufferLength { buffer: Buffer::JointBoxes, expected: 1, actual: 0 }));
    assert_eq!(err(&[good; 3], 2), Some(Error::BufferLength { buffer: Buffer::JointBoxes, expected: 2, actual: 3 }));
    assert_eq!(err(&[good], 1), Some(Error::JointOutOfRange { joint: 1, num_joints: 1 }));
    assert_eq!(err(&[good], 1025), Some(Error::JointCount { count: 1025, max: 1024 }));
    for bad in [
        JointBox { center: [0.0, f32::NAN, 0.0], ..good },
        JointBox { center: [f32::INFINITY, 0.0, 0.0], ..good },
        JointBox { center: [0.0, 0.0, -2e15], ..good },
        JointBox { half_extent: [0.1, -0.0001, 0.1], ..good },
        JointBox { half_extent: [0.1, 0.1, f32::NAN], ..good },
        JointBox { half_extent: [2e15, 0.1, 0.1], ..good },
    ] {
        assert_eq!(err(&[good, bad], 2), Some(Error::InvalidJointBox { index: 1 }), "{bad:?}");
    }

    let boxes = [good, JointBox { joint: 0, ..good }];
    let bounds = JointBounds::new(3, &boxes).expect("valid");
    let model = vec![Mat4::IDENTITY; 3];
    let run = |model: &[Mat4], out: Option<&mut [Aabb]>| BoundsJob { bounds: &bounds, model, boxes: out }.run();
    assert_eq!(
        run(&model[..2], None),
        Err(Error::BufferLength { buffer: Buffer::ModelMatrices, expected: 3, actual: 2 })
    );
    let mut short = [Aabb::default(); 1];
    assert_eq!(
        run(&model, Some(&mut short)),
        Err(Error::BufferLength { buffer: Buffer::JointBoxes, expected: 2, actual: 1 })
    );
    // A non-finite matrix is named by its joint; one no box reads is not looked at.
    for (joint, value, expected) in
        [(1, f32::NAN, Some(1)), (0, f32::INFINITY, Some(0)), (0, f32::NEG_INFINITY, Some(0)), (2, f32::NAN, None)]
    {
        for (col, row) in [(0, 0), (2, 1), (3, 2), (1, 3)] {
            let mut model = model.clone();
            model[joint].cols[col][row] = value;
            let got = run(&model, None);
            match expected {
                Some(index) => {
                    assert_eq!(
                        got,
                        Err(Error::NonFinite { buffer: Buffer::ModelMatrices, index }),
                        "{joint} {col} {row}"
                    )
                }
                None => assert!(got.is_ok(), "joint {joint} holds no box"),
            }
        }
    }
    // Finite matrices far past what local-to-model writes: boxes that overflow `f32` are an error, not a box.
    let mut huge = model.clone();
    huge[1].cols = [[3e38; 4]; 4];
    assert_eq!(run(&huge, None), Err(Error::NonFinite { buffer: Buffer::ModelMatrices, index: 1 }));
}

/// Every vertex of `skin`'s mesh skinned in f64 by `model` (weights normalized), with its influences
/// (skeleton joints and weights above zero).
fn skinned(skin: &gltf_import::GltfSkin, model: &[M4]) -> Vec<([f64; 3], Vec<u16>)> {
    let mesh = skin.mesh.as_ref().expect("mesh");
    let palette: Vec<M4> = skin
        .remap
        .iter()
        .zip(&skin.inverse_bind)
        .map(|(&j, ib)| oracle::mul(&model[j as usize], &oracle::from_rows(ib)))
        .collect();
    mesh.positions
        .iter()
        .zip(&mesh.joints)
        .zip(&mesh.weights)
        .map(|((p, joints), weights)| {
            let total: f64 = weights.iter().map(|&w| f64::from(w)).filter(|&w| w > 0.0).sum();
            let mut acc = [0.0; 3];
            let mut influences = Vec::new();
            for (&j, &w) in joints.iter().zip(weights).filter(|(_, w)| **w > 0.0) {
                let m = &palette[j as usize];
                for (r, a) in acc.iter_mut().enumerate() {
                    let moved =
                        m[r] * f64::from(p[0]) + m[4 + r] * f64::from(p[1]) + m[8 + r] * f64::from(p[2]) + m[12 + r];
                    *a += f64::from(w) / total * moved;
                }
                influences.push(skin.remap[j as usize]);
            }
            (acc, influences)
        })
        .collect()
}

fn inside(b: &Aabb, p: [f64; 3], tolerance: f64) -> bool {
    (0..3).all(|i| f64::from(b.min[i]) - tolerance <= p[i] && p[i] <= f64::from(b.max[i]) + tolerance)
}

#[test]
fn every_skinned_vertex_of_the_shared_characters_lies_in_its_joints_boxes_at_every_frame() {
    let Some(dir) = shared_data("every_skinned_vertex_lies_in_its_joints_boxes") else { return };
    let mut checked = 0;
    for path in gltf_characters(&dir) {
        let asset = gltf_import::load(&path).expect("import");
        let Some(skin) = asset.skin.as_ref().filter(|s| s.mesh.is_some()) else { continue };
        let boxes = joint_boxes(skin, 0.0).expect("boxes");
        let joints = asset.skeleton.parents.len();
        let bounds = JointBounds::new(joints, &boxes).expect("valid boxes");
        let box_of = |joint: u16| boxes.iter().position(|b| b.joint == u32::from(joint));
        let (mut vertices, mut frames) = (0, 0);
        for clip in &asset.clips {
            for frame in &clip.frames {
                let model64 = oracle::local_to_model(&asset.skeleton.parents, frame, &oracle::IDENTITY);
                let model: Vec<Mat4> = model64
                    .iter()
                    .map(|m| Mat4 { cols: std::array::from_fn(|c| std::array::from_fn(|r| m[c * 4 + r] as f32)) })
                    .collect();
                let model64: Vec<M4> = model.iter().map(oracle::widen).collect();
                let mut out = vec![Aabb::default(); boxes.len()];
                let union = BoundsJob { bounds: &bounds, model: &model, boxes: Some(&mut out) }.run().expect("bounds");
                let extent = union.min.iter().chain(&union.max).fold(1e-3f64, |m, &v| m.max(f64::from(v).abs()));
                // The boxes are f32 products of f32 matrices: a few ulps of the figure's extent.
                let tolerance = 1e-6 * extent;
                for (vertex, (p, influences)) in skinned(skin, &model64).into_iter().enumerate() {
                    let own: Vec<&Aabb> =
                        influences.iter().map(|&j| &out[box_of(j).expect("a box per influence")]).collect();
                    if let [only] = own[..] {
                        assert!(
                            inside(only, p, tolerance),
                            "{} vertex {vertex}: {p:?} outside {only:?}",
                            path.display()
                        );
                    }
                    let hull =
                        own.iter().fold(Aabb { min: [f32::INFINITY; 3], max: [f32::NEG_INFINITY; 3] }, |u, b| Aabb {
                            min: std::array::from_fn(|i| u.min[i].min(b.min[i])),
                            max: std::array::from_fn(|i| u.max[i].max(b.max[i])),
                        });
                    assert!(inside(&hull, p, tolerance), "{} vertex {vertex}: {p:?} outside {hull:?}", path.display());
                    assert!(
                        inside(&union, p, tolerance),
                        "{} vertex {vertex}: {p:?} outside {union:?}",
                        path.display()
                    );
                    vertices += 1;
                }
                frames += 1;
            }
        }
        eprintln!("{}: {} boxes, {frames} frames, {vertices} vertex positions", path.display(), boxes.len());
        checked += 1;
    }
    assert!(checked >= 3, "CesiumMan, Fox and the robot have skinned meshes; {checked} checked");
}

#[test]
fn a_minimum_weight_drops_the_vertices_a_joint_barely_moves() {
    let Some(dir) = shared_data("a_minimum_weight_drops_the_vertices_a_joint_barely_moves") else { return };
    let asset = gltf_import::load(&dir.join("gltf/CesiumMan.glb")).expect("import");
    let skin = asset.skin.as_ref().expect("skin");
    let all = joint_boxes(skin, 0.0).expect("boxes");
    let heavy = joint_boxes(skin, 0.5).expect("boxes");
    assert!(heavy.len() <= all.len());
    let mut tighter = 0;
    for b in &heavy {
        let a = all.iter().find(|a| a.joint == b.joint).expect("a joint with heavy vertices has light ones too");
        // Fewer vertices: the box shrinks or stays, never grows.
        for i in 0..3 {
            let (lo, hi) = (b.center[i] - b.half_extent[i], b.center[i] + b.half_extent[i]);
            assert!(lo >= a.center[i] - a.half_extent[i] - 1e-6 && hi <= a.center[i] + a.half_extent[i] + 1e-6);
        }
        tighter += usize::from(b.half_extent.iter().zip(&a.half_extent).any(|(h, a)| h < a));
    }
    assert!(tighter > 0, "some joint's box shrinks without its lightly weighted vertices");
    assert!(joint_boxes(skin, f32::NAN).is_err());
    assert!(joint_boxes(skin, -0.1).is_err());
}

#[test]
fn joint_boxes_refuse_meshes_they_cannot_bound() {
    use gltf_import::{GltfSkin, SkinnedMesh};
    use sinew::math::Mat3x4;
    let identity = Mat3x4 { rows: [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]] };
    let mesh = SkinnedMesh {
        positions: vec![[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0]],
        joints: vec![[1, 0, 0, 0], [1, 0, 0, 0]],
        weights: vec![[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]],
    };
    let skin = GltfSkin { remap: vec![4, 2], inverse_bind: vec![identity; 2], mesh: Some(mesh.clone()) };
    // Skin joint 1 (skeleton joint 2) moves both vertices, skin joint 0 (joint 4) the second.
    let boxes = joint_boxes(&skin, 0.0).expect("boxes");
    assert_eq!(boxes.len(), 2);
    assert_eq!((boxes[0].joint, boxes[0].center, boxes[0].half_extent), (4, [-1.0, 0.0, 1.0], [0.0; 3]));
    assert_eq!((boxes[1].joint, boxes[1].center, boxes[1].half_extent), (2, [0.0, 1.0, 2.0], [1.0; 3]));
    assert_eq!(joint_boxes(&skin, 0.5).expect("boxes").len(), 1, "weight 0.5 is not above 0.5");

    let no_mesh = GltfSkin { mesh: None, ..skin.clone() };
    assert!(joint_boxes(&no_mesh, 0.0).is_err());
    let mut far = mesh.clone();
    far.joints[1] = [2, 0, 0, 0];
    assert!(joint_boxes(&GltfSkin { mesh: Some(far), ..skin.clone() }, 0.0).unwrap_err().contains("skin joint 2"));
    let mut nan = mesh;
    nan.positions[0][1] = f32::NAN;
    assert!(joint_boxes(&GltfSkin { mesh: Some(nan), ..skin.clone() }, 0.0).unwrap_err().contains("not finite"));
}
