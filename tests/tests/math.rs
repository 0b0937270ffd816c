//! AoS and SoA math against the f64 oracle and against each other.

use sinew::math::{F4, Mat3x4, Mat4, Quat, SoaQuat, SoaTransform, SoaVec3, Transform, Vec3, pack_soa, unpack_soa};
use sinew::{Buffer, Error};
use sinew_tests::{Rng, oracle, random_pose, to_soa};

/// f32 math on unit-range inputs: a few ulps of the largest term.
const UNIT_TOLERANCE: f64 = 2e-6;

fn soa_of(qs: [Quat; 4]) -> SoaQuat {
    let mut s = SoaQuat::IDENTITY;
    for (lane, q) in qs.into_iter().enumerate() {
        s.set(lane, q);
    }
    s
}

#[test]
fn quat_mul_matches_oracle_aos_and_soa() {
    let mut rng = Rng::new(10);
    for _ in 0..sinew_tests::cases(500) {
        let a = [rng.quat(), rng.quat(), rng.quat(), rng.quat()];
        let b = [rng.quat(), rng.quat(), rng.quat(), rng.quat()];
        let soa = soa_of(a) * soa_of(b);
        for lane in 0..4 {
            let want = oracle::quat_mul(a[lane], b[lane]);
            let aos = a[lane] * b[lane];
            let s = soa.get(lane);
            for (k, w) in want.iter().enumerate() {
                let got_aos = [aos.x, aos.y, aos.z, aos.w][k] as f64;
                let got_soa = [s.x, s.y, s.z, s.w][k] as f64;
                assert!((got_aos - w).abs() < UNIT_TOLERANCE, "aos {k}: {got_aos} vs {w}");
                assert!((got_soa - w).abs() < UNIT_TOLERANCE, "soa {k}: {got_soa} vs {w}");
            }
        }
    }
}

#[test]
fn rotate_matches_oracle_and_conjugate_undoes_it() {
    let mut rng = Rng::new(11);
    for _ in 0..sinew_tests::cases(500) {
        let q = rng.quat();
        let v = rng.vec3(-3.0, 3.0);
        let want = oracle::rotate(q, [v.x as f64, v.y as f64, v.z as f64]);
        let got = q.rotate(v);
        let soa = SoaQuat::splat(q).rotate(SoaVec3::splat(v)).get(2);
        for ((g, s), w) in got.to_array().into_iter().zip(soa.to_array()).zip(want) {
            assert!((g as f64 - w).abs() < 3.0 * UNIT_TOLERANCE);
            assert!((s as f64 - w).abs() < 3.0 * UNIT_TOLERANCE);
        }
        let back = q.conjugate().rotate(got);
        for (b, o) in back.to_array().into_iter().zip(v.to_array()) {
            assert!((b - o).abs() < 1e-5);
        }
    }
}

#[test]
fn soa_normalize_gives_unit_length() {
    let mut rng = Rng::new(12);
    for _ in 0..sinew_tests::cases(1000) {
        let scale = rng.range(1e-3, 1e3);
        let q = rng.quat();
        let s = SoaQuat::splat(Quat::new(q.x * scale, q.y * scale, q.z * scale, q.w * scale)).normalize();
        let len = (s.dot(s).to_array()[0] as f64).sqrt();
        assert!((len - 1.0).abs() < 1e-6, "length {len}");
    }
}

#[test]
fn nlerp_endpoints_and_shortest_arc() {
    let mut rng = Rng::new(13);
    for _ in 0..sinew_tests::cases(500) {
        let a = rng.quat();
        let b = rng.quat();
        let (sa, sb) = (SoaQuat::splat(a), SoaQuat::splat(b));
        let at0 = SoaQuat::nlerp(sa, sb, F4::ZERO).get(0);
        let at1 = SoaQuat::nlerp(sa, sb, F4::ONE).get(0);
        assert!(at0.dot(a) > 1.0 - 1e-6);
        // At t = 1 the result is b or -b, whichever is on a's side.
        assert!(at1.dot(b).abs() > 1.0 - 1e-6);
        assert!(at1.dot(a) >= -1e-6, "took the long arc");
        let mid = SoaQuat::nlerp(sa, sb, F4::splat(0.5)).get(0);
        let aos_mid = Quat::nlerp(a, b, 0.5);
        assert!(mid.dot(aos_mid) > 1.0 - 1e-6);
        // The midpoint of the short arc is at least as close to a as to the far endpoint.
        assert!(mid.dot(a) >= 0.0);
    }
}

#[test]
fn transform_to_mat4_matches_oracle() {
    let mut rng = Rng::new(14);
    for t in random_pose(&mut rng, sinew_tests::cases(500)) {
        let want = oracle::trs(&t);
        let got: [f32; 16] = bytemuck::cast(t.to_mat4());
        assert!(sinew_tests::max_abs_diff(&got, &want) < UNIT_TOLERANCE * 4.0);
    }
}

#[test]
fn soa_to_affine_transposes_to_the_aos_matrices() {
    let mut rng = Rng::new(15);
    let pose = random_pose(&mut rng, 4);
    let soa = to_soa(&pose);
    let mats = soa[0].to_affine().to_mat4s();
    for (t, m) in pose.iter().zip(mats) {
        let want = oracle::trs(t);
        let got: [f32; 16] = bytemuck::cast(m);
        assert!(sinew_tests::max_abs_diff(&got, &want) < UNIT_TOLERANCE * 4.0);
        assert!(m.is_affine());
    }
}

#[test]
fn pack_and_unpack_round_trip_with_identity_padding() {
    let mut rng = Rng::new(16);
    let pose = random_pose(&mut rng, 5);
    let soa = to_soa(&pose);
    assert_eq!(soa.len(), 2);
    for lane in 1..4 {
        assert_eq!(soa[1].get(lane), Transform::IDENTITY);
    }
    let mut back = vec![Transform::IDENTITY; 5];
    unpack_soa(&soa, &mut back).unwrap();
    assert_eq!(back, pose);
}

#[test]
fn pack_and_unpack_reject_wrong_lengths() {
    let pose = vec![Transform::IDENTITY; 5];
    let mut soa = vec![SoaTransform::IDENTITY; 1];
    let want = Err(Error::BufferLength { buffer: Buffer::SoaPose, expected: 2, actual: 1 });
    assert_eq!(pack_soa(&pose, &mut soa), want);
    let mut aos = vec![Transform::IDENTITY; 5];
    assert_eq!(unpack_soa(&soa, &mut aos), want);
}

#[test]
fn mat3x4_round_trips_affine_and_rejects_projective() {
    let mut rng = Rng::new(17);
    let m = rng.transform().to_mat4();
    let rows = Mat3x4::from_affine(&m).unwrap();
    assert_eq!(rows.to_mat4(), m);
    let mut projective = m;
    projective.cols[0][3] = 0.5;
    assert_eq!(Mat3x4::from_affine(&projective), None);
    assert_eq!(Mat4::IDENTITY.transform_point(Vec3::new(1., 2., 3.)), Vec3::new(1., 2., 3.));
}

#[test]
fn aos_mat4_mul_matches_oracle() {
    let mut rng = Rng::new(18);
    let (a, b) = (rng.transform(), rng.transform());
    let got: [f32; 16] = bytemuck::cast(a.to_mat4().mul(&b.to_mat4()));
    let want = oracle::mul(&oracle::trs(&a), &oracle::trs(&b));
    assert!(sinew_tests::max_abs_diff(&got, &want) < 1e-5);
}

#[test]
fn atan2_and_rotation_vectors_against_f64() {
    use sinew::math::{atan2_upper, quat_mul_rotation_vector};
    let mut rng = Rng::new(77);
    let rounds = if cfg!(miri) { 20 } else { 20_000 };
    for _ in 0..rounds {
        let y = F4::from_array([0; 4].map(|_| rng.range(0.0, 2.0) * if rng.below(8) == 0 { 0.0 } else { 1.0 }));
        let x = F4::from_array([0; 4].map(|_| rng.range(-2.0, 2.0)));
        let got = atan2_upper(y, x).to_array();
        for ((g, y), x) in got.iter().zip(y.to_array()).zip(x.to_array()) {
            let want = (y as f64).atan2(x as f64);
            assert!((*g as f64 - want).abs() < 4e-7, "atan2({y}, {x}) = {g} vs {want}");
        }
        // Rotation vectors up to angle π and back.
        let r = [0; 3].map(|_| F4::from_array([0; 4].map(|_| rng.range(-1.8, 1.8))));
        let r = SoaVec3 { x: r[0], y: r[1], z: r[2] };
        let q = SoaQuat::from_rotation_vector(r);
        let back = q.to_rotation_vector();
        // The fused `exp(r) · p` the inertializer applies to a target rotation.
        let p = soa_of([rng.quat(), rng.quat(), rng.quat(), rng.quat()]);
        let applied = quat_mul_rotation_vector([r.x, r.y, r.z], [p.x, p.y, p.z, p.w]);
        for l in 0..4 {
            let rv = [r.x.to_array()[l], r.y.to_array()[l], r.z.to_array()[l]].map(f64::from);
            let angle = (rv[0] * rv[0] + rv[1] * rv[1] + rv[2] * rv[2]).sqrt();
            if angle > std::f64::consts::PI {
                continue;
            }
            let want = sinew_tests::oracle::from_rotation_vector(rv);
            let got = [q.x, q.y, q.z, q.w].map(|c| c.to_array()[l] as f64);
            for c in 0..4 {
                assert!((got[c] - want[c]).abs() < 1.5e-7, "exp {rv:?}: {got:?} vs {want:?}");
            }
            let p64 = [p.x, p.y, p.z, p.w].map(|c| c.to_array()[l] as f64);
            let want_applied = oracle::quat_mul64(want, p64);
            let got_applied = applied.map(|c| c.to_array()[l] as f64);
            for c in 0..4 {
                let error = (got_applied[c] - want_applied[c]).abs();
                assert!(error < 4e-7, "exp({rv:?}) · {p64:?} = {got_applied:?} vs {want_applied:?}");
            }
            let got_back = [back.x, back.y, back.z].map(|c| c.to_array()[l] as f64);
            for c in 0..3 {
                assert!((got_back[c] - rv[c]).abs() < 1e-6, "log(exp({rv:?})) = {got_back:?}");
            }
        }
    }
    // The zero rotation both ways.
    let zero = SoaVec3 { x: F4::ZERO, y: F4::ZERO, z: F4::ZERO };
    assert_eq!(SoaQuat::from_rotation_vector(zero), SoaQuat::IDENTITY);
    assert_eq!(SoaQuat::IDENTITY.to_rotation_vector(), zero);
}
