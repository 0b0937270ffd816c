//! Blending: validation (one test per error), hand-computed behaviour, and reference tests against an f64
//! implementation on seeded random poses, bone masks and real clips.

use sinew::blending::{BlendLayer, BlendingJob, DEFAULT_THRESHOLD, additive_delta, masked_lerp, subtree_mask};
use sinew::math::{F4, SoaTransform, Transform, unpack_soa};
use sinew::{Buffer, Error, Skeleton};
use sinew_tests::{JOINT_COUNTS, Rng, random_parents, random_pose, to_soa};

/// Largest relative component error against the f64 reference (rotations up to sign).
const BLEND_TOLERANCE: f64 = 2e-6;

fn blend(
    skeleton: &Skeleton<'_>,
    normal: &[BlendLayer<'_>],
    additive: &[BlendLayer<'_>],
) -> Result<Vec<Transform>, Error> {
    let mut out = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    BlendingJob { skeleton, layers: normal, additive, threshold: DEFAULT_THRESHOLD, output: &mut out }.run()?;
    let mut aos = vec![Transform::IDENTITY; skeleton.num_joints()];
    unpack_soa(&out, &mut aos)?;
    Ok(aos)
}

fn flat(t: &Transform) -> [f64; 10] {
    let (p, q, s) = (t.translation, t.rotation, t.scale);
    [p.x, p.y, p.z, q.x, q.y, q.z, q.w, s.x, s.y, s.z].map(f64::from)
}

fn max_error(got: &[Transform], expected: &[[f64; 10]]) -> f64 {
    got.iter()
        .zip(expected)
        .map(|(t, e)| {
            let v = flat(t);
            let dot: f64 = (3..7).map(|i| v[i] * e[i]).sum();
            let sign = if dot < 0.0 { -1.0 } else { 1.0 };
            (0..10)
                .map(|i| {
                    let vi = if (3..7).contains(&i) { sign * v[i] } else { v[i] };
                    (vi - e[i]).abs() / e[i].abs().max(1.0)
                })
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

/// f64 reference of the normal-layer blend: weighted means, rotations summed sign-aligned with the running
/// sum in layer order, the rest pose filling up to `threshold`, then normalized.
/// A reference layer: pose, weight, optional per-joint mask.
type Layer64 = (Vec<Transform>, f64, Option<Vec<f64>>);

fn reference(rest: &[Transform], layers: &[Layer64], threshold: f64) -> Vec<[f64; 10]> {
    (0..rest.len())
        .map(|j| {
            let mut acc = [0.0f64; 10];
            let add = |acc: &mut [f64; 10], t: &Transform, w: f64| {
                let v = flat(t);
                let dot: f64 = (3..7).map(|i| acc[i] * v[i]).sum();
                let sign = if dot < 0.0 { -1.0 } else { 1.0 };
                for i in 0..10 {
                    acc[i] += if (3..7).contains(&i) { sign * w * v[i] } else { w * v[i] };
                }
                w
            };
            let mut total = 0.0;
            for (pose, weight, mask) in layers {
                total += add(&mut acc, &pose[j], weight * mask.as_ref().map_or(1.0, |m| m[j]));
            }
            total += add(&mut acc, &rest[j], (threshold - total).max(0.0));
            let len = (3..7).map(|i| acc[i] * acc[i]).sum::<f64>().sqrt();
            std::array::from_fn(|i| if (3..7).contains(&i) { acc[i] / len } else { acc[i] / total })
        })
        .collect()
}

fn to_mask(values: &[f64]) -> Vec<F4> {
    values.chunks(4).map(|c| F4::from_array(std::array::from_fn(|l| c.get(l).copied().unwrap_or(0.0) as f32))).collect()
}

#[test]
fn blends_match_the_f64_reference() {
    let mut rng = Rng::new(0xB1E0);
    for &n in JOINT_COUNTS {
        let parents = random_parents(&mut rng, n);
        let rest = random_pose(&mut rng, n);
        let rest_soa = to_soa(&rest);
        let skeleton = Skeleton::new(&parents, &rest_soa, None).expect("skeleton");
        for count in [1, 2, 4, 8] {
            let poses: Vec<Vec<Transform>> = (0..count).map(|_| random_pose(&mut rng, n)).collect();
            let soa: Vec<Vec<SoaTransform>> = poses.iter().map(|p| to_soa(p)).collect();
            let masks: Vec<Option<Vec<f64>>> =
                (0..count).map(|i| (i % 2 == 1).then(|| (0..n).map(|_| rng.unit() as f64).collect())).collect();
            let mask_soa: Vec<Option<Vec<F4>>> = masks.iter().map(|m| m.as_ref().map(|m| to_mask(m))).collect();
            // Weights from 0 (so the rest pose fills in for some joints) to 1.
            let weights: Vec<f32> = (0..count).map(|i| if i == 0 { 0.05 } else { rng.unit() }).collect();
            let items: Vec<BlendLayer<'_>> = (0..count)
                .map(|i| BlendLayer { pose: &soa[i], weight: weights[i], joint_weights: mask_soa[i].as_deref() })
                .collect();
            let got = blend(&skeleton, &items, &[]).expect("blend");
            let layers64: Vec<_> =
                (0..count).map(|i| (poses[i].clone(), weights[i] as f64, masks[i].clone())).collect();
            let err = max_error(&got, &reference(&rest, &layers64, DEFAULT_THRESHOLD as f64));
            assert!(err <= BLEND_TOLERANCE, "{n} joints, {count} layers: {err:e}");
            for t in &got {
                assert!((t.rotation.length_squared() - 1.0).abs() < 1e-6, "unit quaternions out");
            }
        }
    }
}

#[test]
fn two_unmasked_layers_match_the_f64_reference_and_its_rotation_sign() {
    // Two layers without masks take their own path (around the heavier layer, rotation length from the
    // alignment dot): every split of the weight, either layer the heavier, a weightless first layer, totals
    // under the threshold (the rest pose joins) and weights that do not sum to one.
    for &n in JOINT_COUNTS {
        let (parents, rest, rest_soa) = skeleton_fixture(n, 0xC0F + n as u64);
        let skeleton = Skeleton::new(&parents, &rest_soa, None).expect("skeleton");
        let mut rng = Rng::new(n as u64);
        let poses = [random_pose(&mut rng, n), random_pose(&mut rng, n)];
        let soa = [to_soa(&poses[0]), to_soa(&poses[1])];
        let splits =
            [(1.0, 0.0), (0.0, 1.0), (0.7, 0.3), (0.3, 0.7), (0.5, 0.5), (2.0, 5.0), (1e-3, 40.0), (0.02, 0.03)];
        for (wa, wb) in splits {
            let items = [
                BlendLayer { pose: &soa[0], weight: wa, joint_weights: None },
                BlendLayer { pose: &soa[1], weight: wb, joint_weights: None },
            ];
            let got = blend(&skeleton, &items, &[]).expect("blend");
            let layers64 = [(poses[0].clone(), wa as f64, None), (poses[1].clone(), wb as f64, None)];
            let expected = reference(&rest, &layers64, DEFAULT_THRESHOLD as f64);
            let err = max_error(&got, &expected);
            assert!(err <= BLEND_TOLERANCE, "{n} joints, weights {wa}/{wb}: {err:e}");
            for (t, e) in got.iter().zip(&expected) {
                assert!((t.rotation.length_squared() - 1.0).abs() < 1e-6, "unit quaternions out");
                let v = flat(t);
                let same_sign: f64 = (3..7).map(|i| v[i] * e[i]).sum();
                assert!(same_sign > 0.0, "{n} joints, weights {wa}/{wb}: the reference's sign");
            }
        }
    }
}

fn skeleton_fixture(n: usize, seed: u64) -> (Vec<i16>, Vec<Transform>, Vec<SoaTransform>) {
    let mut rng = Rng::new(seed);
    let parents = random_parents(&mut rng, n);
    let rest = random_pose(&mut rng, n);
    let soa = to_soa(&rest);
    (parents, rest, soa)
}

#[test]
fn full_weight_on_one_layer_gives_that_layer() {
    let (parents, _, rest_soa) = skeleton_fixture(5, 1);
    let skeleton = Skeleton::new(&parents, &rest_soa, None).expect("skeleton");
    let mut rng = Rng::new(2);
    let (a, b) = (random_pose(&mut rng, 5), random_pose(&mut rng, 5));
    let (sa, sb) = (to_soa(&a), to_soa(&b));
    for (wa, wb, expected) in [(1.0, 0.0, &a), (0.0, 1.0, &b)] {
        let got = blend(
            &skeleton,
            &[
                BlendLayer { pose: &sa, weight: wa, joint_weights: None },
                BlendLayer { pose: &sb, weight: wb, joint_weights: None },
            ],
            &[],
        )
        .expect("blend");
        let e: Vec<[f64; 10]> = expected.iter().map(flat).collect();
        assert!(max_error(&got, &e) < 1e-6);
    }
}

#[test]
fn weights_summing_to_zero_give_the_rest_pose() {
    let (parents, rest, rest_soa) = skeleton_fixture(7, 3);
    let skeleton = Skeleton::new(&parents, &rest_soa, None).expect("skeleton");
    let pose = to_soa(&random_pose(&mut Rng::new(4), 7));
    let got = blend(&skeleton, &[BlendLayer { pose: &pose, weight: 0.0, joint_weights: None }], &[]).expect("blend");
    let e: Vec<[f64; 10]> = rest.iter().map(flat).collect();
    assert!(max_error(&got, &e) < 1e-6);
}

#[test]
fn lerp_between_equal_translations_and_scales_returns_them_exactly() {
    // Constant tracks sample as lerps between equal keys: any fraction must give the key back bit for bit, or
    // a "constant" scale of 1 drifts by an ulp and downstream stages (inertialization) see motion.
    let mut rng = Rng::new(9);
    let a = random_pose(&mut rng, 8);
    let mut b = random_pose(&mut rng, 8);
    for (b, a) in b.iter_mut().zip(&a) {
        (b.translation, b.scale) = (a.translation, a.scale);
    }
    let (sa, sb) = (to_soa(&a), to_soa(&b));
    for fraction in [1e-6, 0.1, 0.3333, 0.5, 0.9, 0.999_999] {
        let mask = to_mask(&[fraction; 8]);
        let mut out = vec![SoaTransform::IDENTITY; 2];
        masked_lerp(&sa, &sb, &mask, &mut out).expect("masked lerp");
        let mut got = vec![Transform::IDENTITY; 8];
        unpack_soa(&out, &mut got).expect("unpack");
        for (g, a) in got.iter().zip(&a) {
            assert_eq!((g.translation, g.scale), (a.translation, a.scale), "fraction {fraction}");
        }
    }
}

#[test]
fn masked_lerp_takes_a_where_the_mask_is_one() {
    let mut rng = Rng::new(5);
    let (a, b) = (random_pose(&mut rng, 8), random_pose(&mut rng, 8));
    let (sa, sb) = (to_soa(&a), to_soa(&b));
    // First half all A, second half all B.
    let mask = to_mask(&[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
    let mut out = vec![SoaTransform::IDENTITY; 2];
    masked_lerp(&sa, &sb, &mask, &mut out).expect("masked lerp");
    let mut got = vec![Transform::IDENTITY; 8];
    unpack_soa(&out, &mut got).expect("unpack");
    let expected: Vec<[f64; 10]> = a[..4].iter().chain(&b[4..]).map(flat).collect();
    assert!(max_error(&got, &expected) < 1e-6);
    assert_eq!(
        masked_lerp(&sa, &sb[..1], &mask, &mut out),
        Err(Error::BufferLength { buffer: Buffer::LayerPose, expected: 2, actual: 1 })
    );
    let bad = to_mask(&[1.0, f32::NAN as f64, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(
        masked_lerp(&sa, &sb, &bad, &mut out),
        Err(Error::InvalidJointWeight { layer: 0, additive: false, joint: 1 })
    );
}

#[test]
fn additive_layers_apply_and_undo_deltas() {
    let (parents, _, rest_soa) = skeleton_fixture(6, 6);
    let skeleton = Skeleton::new(&parents, &rest_soa, None).expect("skeleton");
    let mut rng = Rng::new(7);
    let (base, target) = (random_pose(&mut rng, 6), random_pose(&mut rng, 6));
    let (base_soa, target_soa) = (to_soa(&base), to_soa(&target));
    let mut delta = vec![SoaTransform::IDENTITY; 2];
    additive_delta(&base_soa, &target_soa, &mut delta).expect("delta");
    let normal = [BlendLayer { pose: &base_soa, weight: 1.0, joint_weights: None }];
    // Weight 1 on top of the reference gives the target.
    let got =
        blend(&skeleton, &normal, &[BlendLayer { pose: &delta, weight: 1.0, joint_weights: None }]).expect("blend");
    assert!(max_error(&got, &target.iter().map(flat).collect::<Vec<_>>()) < 1e-5);
    // +1 then −1 gives the base back; a delta of a pose from itself changes nothing.
    let undo = [
        BlendLayer { pose: &delta, weight: 1.0, joint_weights: None },
        BlendLayer { pose: &delta, weight: -1.0, joint_weights: None },
    ];
    let got = blend(&skeleton, &normal, &undo).expect("blend");
    assert!(max_error(&got, &base.iter().map(flat).collect::<Vec<_>>()) < 1e-5);
    let mut identity = vec![SoaTransform::IDENTITY; 2];
    additive_delta(&base_soa, &base_soa, &mut identity).expect("delta");
    let got =
        blend(&skeleton, &normal, &[BlendLayer { pose: &identity, weight: 0.7, joint_weights: None }]).expect("blend");
    assert!(max_error(&got, &base.iter().map(flat).collect::<Vec<_>>()) < 1e-6);
}

#[test]
fn subtree_masks_cover_a_joint_and_its_descendants() {
    // 0 ─ 1 ─ 2, 0 ─ 3 ─ 4, 5 (second root)
    let parents = [-1, 0, 1, 0, 3, -1];
    let rest = to_soa(&[Transform::IDENTITY; 6]);
    let skeleton = Skeleton::new(&parents, &rest, None).expect("skeleton");
    let mut mask = vec![F4::ZERO; 2];
    subtree_mask(&skeleton, 3, 0.5, &mut mask).expect("mask");
    assert_eq!(mask[0].to_array(), [0.0, 0.0, 0.0, 0.5]);
    assert_eq!(mask[1].to_array(), [0.5, 0.0, 0.0, 0.0]);
    subtree_mask(&skeleton, 0, 1.0, &mut mask).expect("mask");
    assert_eq!(mask[0].to_array(), [1.0; 4]);
    assert_eq!(mask[1].to_array(), [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(subtree_mask(&skeleton, 6, 1.0, &mut mask), Err(Error::JointOutOfRange { joint: 6, num_joints: 6 }));
    assert_eq!(
        subtree_mask(&skeleton, 1, 1.0, &mut mask[..1]),
        Err(Error::BufferLength { buffer: Buffer::JointWeights, expected: 2, actual: 1 })
    );
    assert_eq!(
        subtree_mask(&skeleton, 1, -1.0, &mut mask),
        Err(Error::InvalidJointWeight { layer: 0, additive: false, joint: 1 })
    );
}

#[test]
fn blending_job_errors() {
    let (parents, _, rest_soa) = skeleton_fixture(5, 8);
    let skeleton = Skeleton::new(&parents, &rest_soa, None).expect("skeleton");
    let pose = to_soa(&random_pose(&mut Rng::new(9), 5));
    let short = &pose[..1];
    let ok = BlendLayer { pose: &pose, weight: 1.0, joint_weights: None };
    let err = |normal: &[BlendLayer<'_>], additive: &[BlendLayer<'_>]| blend(&skeleton, normal, additive).err();
    assert_eq!(err(&[], &[]), Some(Error::NoLayers));
    for w in [f32::NAN, f32::INFINITY, -0.5] {
        assert_eq!(
            err(&[ok, BlendLayer { weight: w, ..ok }], &[]),
            Some(Error::InvalidWeight { layer: 1, additive: false })
        );
    }
    assert_eq!(
        err(&[ok], &[BlendLayer { weight: f32::NAN, ..ok }]),
        Some(Error::InvalidWeight { layer: 0, additive: true })
    );
    assert!(err(&[ok], &[BlendLayer { weight: -1.0, ..ok }]).is_none(), "negative additive weights subtract");
    assert_eq!(
        err(&[BlendLayer { pose: short, ..ok }], &[]),
        Some(Error::BufferLength { buffer: Buffer::LayerPose, expected: 2, actual: 1 })
    );
    let mask = [F4::ONE];
    assert_eq!(
        err(&[BlendLayer { joint_weights: Some(&mask), ..ok }], &[]),
        Some(Error::BufferLength { buffer: Buffer::JointWeights, expected: 2, actual: 1 })
    );
    let mask = [F4::ONE, F4::new(-1.0, 0.0, 0.0, 0.0)];
    assert_eq!(
        err(&[BlendLayer { joint_weights: Some(&mask), ..ok }], &[]),
        Some(Error::InvalidJointWeight { layer: 0, additive: false, joint: 4 })
    );
    // Padding lanes (joints 5..8 of a 5-joint skeleton) are never read: garbage there is fine.
    let mask = [F4::ONE, F4::new(1.0, f32::NAN, -1.0, f32::INFINITY)];
    assert!(err(&[BlendLayer { joint_weights: Some(&mask), ..ok }], &[]).is_none());
    let mut out = vec![SoaTransform::IDENTITY; 1];
    let job = BlendingJob { skeleton: &skeleton, layers: &[ok], additive: &[], threshold: 0.1, output: &mut out };
    assert_eq!(job.validate(), Err(Error::BufferLength { buffer: Buffer::SoaPose, expected: 2, actual: 1 }));
    let mut out = vec![SoaTransform::IDENTITY; 2];
    let job = BlendingJob { skeleton: &skeleton, layers: &[ok], additive: &[], threshold: 0.0, output: &mut out };
    assert_eq!(job.validate(), Err(Error::InvalidThreshold));
}

#[test]
fn blending_two_real_clips_matches_the_f64_reference() {
    use sinew::{Arena, Playback, SamplingContext, SamplingJob};
    let Some(dir) = sinew_tests::shared_data("blending_two_real_clips_matches_the_f64_reference") else { return };
    // The Bandai walk and run share one skeleton; bake both and blend them at several times.
    let files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
    let walk_run: Vec<_> = files
        .into_iter()
        .filter(|f| f.to_string_lossy().contains("walk") || f.to_string_lossy().contains("run"))
        .collect();
    assert_eq!(walk_run.len(), 2, "the Bandai walk and run");
    let (raw_skeleton, raw_clips) = sinew_tools::bvh::load_raw_files(&walk_run).expect("import");
    let blob = sinew_tools::bake::bake(&raw_skeleton, &raw_clips, sinew_tools::bake::KeyFormat::F32).expect("bake");
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let skeleton = asset.skeleton();
    let n = skeleton.num_joints();
    let mut rest = vec![Transform::IDENTITY; n];
    unpack_soa(skeleton.rest_pose(), &mut rest).expect("rest");
    let mut mask_soa = vec![F4::ZERO; skeleton.num_soa_joints()];
    subtree_mask(skeleton, 1, 0.6, &mut mask_soa).expect("mask");
    let mask: Vec<f64> = (0..n).map(|j| mask_soa[j / 4].to_array()[j % 4] as f64).collect();
    for time in [0.0f32, 0.4, 1.1, 2.35] {
        let poses: Vec<(Vec<SoaTransform>, Vec<Transform>)> = (0..2)
            .map(|c| {
                let mut memory = vec![0u8; SamplingContext::required_bytes(n)];
                let arena = Arena::new(&mut memory);
                let mut context = SamplingContext::new(&arena, n).expect("context");
                let clip = asset.clip(c).expect("clip");
                let mut soa = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
                let (context, output) = (&mut context, &mut soa[..]);
                SamplingJob { skeleton, clip: &clip, time, playback: Playback::Loop, context, output, curves: &mut [] }
                    .run()
                    .expect("sample");
                let mut aos = vec![Transform::IDENTITY; n];
                unpack_soa(&soa, &mut aos).expect("unpack");
                (soa, aos)
            })
            .collect();
        let items = [
            BlendLayer { pose: &poses[0].0, weight: 0.3, joint_weights: None },
            BlendLayer { pose: &poses[1].0, weight: 0.7, joint_weights: Some(&mask_soa) },
        ];
        let got = blend(skeleton, &items, &[]).expect("blend");
        let layers64 = [(poses[0].1.clone(), 0.3, None), (poses[1].1.clone(), 0.7, Some(mask.clone()))];
        let err = max_error(&got, &reference(&rest, &layers64, DEFAULT_THRESHOLD as f64));
        assert!(err <= BLEND_TOLERANCE, "t = {time}: {err:e}");
        assert!(got.iter().all(|t| (t.rotation.length_squared() - 1.0).abs() < 1e-6), "unit quaternions out");
    }
}

/// Hamilton product `a · b` in f64, `(x, y, z, w)`.
fn quat_mul64(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

/// f64 reference of one additive layer at weight `w` on `pose` (the module docs' formulas): translation
/// `+ w·Δt`; rotation `· nlerp(1, Δq, |w|)` along the shorter arc, with the conjugate of Δq for negative `w`;
/// scale `· (1 + |w|·(Δs − 1))`, divided by it for negative `w`.
fn apply_additive64(pose: [f64; 10], delta: [f64; 10], w: f64) -> [f64; 10] {
    let mut out = pose;
    for i in 0..3 {
        out[i] += w * delta[i];
    }
    let flip = if w < 0.0 { -1.0 } else { 1.0 };
    let dq = [flip * delta[3], flip * delta[4], flip * delta[5], delta[6]];
    let arc = if dq[3] < 0.0 { -1.0 } else { 1.0 };
    let a = w.abs();
    let step: [f64; 4] = std::array::from_fn(|i| a * arc * dq[i] + if i == 3 { 1.0 - a } else { 0.0 });
    let len = step.iter().map(|v| v * v).sum::<f64>().sqrt();
    let q = quat_mul64([pose[3], pose[4], pose[5], pose[6]], step.map(|v| v / len));
    let qlen = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    for i in 0..4 {
        out[3 + i] = q[i] / qlen;
    }
    for i in 0..3 {
        let factor = 1.0 + a * (delta[7 + i] - 1.0);
        out[7 + i] = if w < 0.0 { pose[7 + i] / factor } else { pose[7 + i] * factor };
    }
    out
}

/// Additive layers at fractional and negative weights, with and without bone masks, stacked, against the
/// f64 reference: a scale delta taken at w² or a rotation delta at full weight fails here (weights ±1 alone
/// cannot tell).
#[test]
fn additive_layers_at_fractional_and_negative_weights_match_the_f64_reference() {
    let mut rng = Rng::new(0xADD);
    for &n in JOINT_COUNTS {
        let parents = random_parents(&mut rng, n);
        let rest = random_pose(&mut rng, n);
        let rest_soa = to_soa(&rest);
        let skeleton = Skeleton::new(&parents, &rest_soa, None).expect("skeleton");
        let base = random_pose(&mut rng, n);
        let base_soa = to_soa(&base);
        let normal = [BlendLayer { pose: &base_soa, weight: 1.0, joint_weights: None }];
        let deltas: Vec<Vec<SoaTransform>> = (0..3)
            .map(|_| {
                let mut delta = vec![SoaTransform::IDENTITY; base_soa.len()];
                additive_delta(&to_soa(&random_pose(&mut rng, n)), &to_soa(&random_pose(&mut rng, n)), &mut delta)
                    .expect("delta");
                delta
            })
            .collect();
        let delta_aos: Vec<Vec<Transform>> = deltas
            .iter()
            .map(|d| {
                let mut aos = vec![Transform::IDENTITY; n];
                unpack_soa(d, &mut aos).expect("unpack");
                aos
            })
            .collect();
        for weights in [[0.3f32, 0.0, 0.0], [-0.45, 0.0, 0.0], [0.7, -0.25, 1.6], [-1.3, 0.5, -0.8]] {
            for masked in [false, true] {
                let masks: Vec<Vec<f64>> = (0..3).map(|_| (0..n).map(|_| rng.unit() as f64).collect()).collect();
                let mask_soa: Vec<Vec<F4>> = masks.iter().map(|m| to_mask(m)).collect();
                let used: Vec<usize> = (0..3).filter(|&i| weights[i] != 0.0).collect();
                let additive: Vec<BlendLayer<'_>> = used
                    .iter()
                    .map(|&i| BlendLayer {
                        pose: &deltas[i],
                        weight: weights[i],
                        joint_weights: masked.then(|| mask_soa[i].as_slice()),
                    })
                    .collect();
                let got = blend(&skeleton, &normal, &additive).expect("blend");
                let expected: Vec<[f64; 10]> = (0..n)
                    .map(|j| {
                        used.iter().fold(flat(&base[j]), |pose, &i| {
                            let w = weights[i] as f64 * if masked { masks[i][j] } else { 1.0 };
                            apply_additive64(pose, flat(&delta_aos[i][j]), w)
                        })
                    })
                    .collect();
                let err = max_error(&got, &expected);
                assert!(err <= 4.0 * BLEND_TOLERANCE, "{n} joints, weights {weights:?}, masked {masked}: {err:e}");
            }
        }
    }
}

#[test]
fn more_layers_than_the_limit_is_an_error() {
    use sinew::blending::MAX_LAYERS;
    let mut rng = Rng::new(3);
    let parents = random_parents(&mut rng, 5);
    let rest = to_soa(&random_pose(&mut rng, 5));
    let skeleton = Skeleton::new(&parents, &rest, None).expect("skeleton");
    let items = vec![BlendLayer { pose: &rest, weight: 1.0, joint_weights: None }; MAX_LAYERS + 1];
    let limit = Error::Limit { what: sinew::error::Limit::BlendLayers, value: MAX_LAYERS + 1, max: MAX_LAYERS };
    assert_eq!(blend(&skeleton, &items, &[]).err(), Some(limit));
    assert_eq!(blend(&skeleton, &items[..1], &items).err(), Some(limit));
    assert!(blend(&skeleton, &items[..MAX_LAYERS], &items[..MAX_LAYERS]).is_ok());
}
