//! Skinning matrices: validity, behaviour with a remapped skin, and reference against the f64 oracle.

use sinew::math::{Mat3x4, Mat4, Transform, Vec3};
use sinew::{Buffer, Error, Skin};
use sinew::{Palette, SkinningJob};
use sinew_tests::{JOINT_COUNTS, Rng, max_abs_diff, oracle, random_affine};

/// |sinew − oracle| relative to the largest entry of the product: 12 multiply-adds of unit-range inputs.
const SKINNING_TOLERANCE: f64 = 2e-6;

fn random_model(rng: &mut Rng, n: usize) -> Vec<Mat4> {
    (0..n).map(|_| random_affine(rng).to_mat4()).collect()
}

#[test]
fn reference_both_layouts_all_joint_counts() {
    for (seed, &n) in JOINT_COUNTS.iter().enumerate() {
        let mut rng = Rng::new(200 + seed as u64);
        let model = random_model(&mut rng, n);
        // A skin that reorders, skips and repeats skeleton joints, as glTF skins may.
        let skin_len = (n * 3).div_ceil(4);
        let remap: Vec<u16> = (0..skin_len).map(|_| rng.below(n) as u16).collect();
        let inverse_bind: Vec<Mat3x4> = (0..skin_len).map(|_| random_affine(&mut rng)).collect();
        let skin = Skin::new(n, &remap, &inverse_bind).unwrap();
        let mut palette = vec![Mat4::IDENTITY; skin_len];
        let mut rows = vec![Mat3x4::IDENTITY; skin_len];
        SkinningJob { skin: &skin, model: &model, palette: Palette::Matrices(&mut palette) }.run().unwrap();
        SkinningJob { skin: &skin, model: &model, palette: Palette::Rows(&mut rows) }.run().unwrap();
        for i in 0..skin_len {
            let want = oracle::mul(&oracle::widen(&model[remap[i] as usize]), &oracle::from_rows(&inverse_bind[i]));
            let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            let got: [f32; 16] = bytemuck::cast(palette[i]);
            assert!(max_abs_diff(&got, &want) / scale <= SKINNING_TOLERANCE, "n {n} mat4 {i}");
            let got: [f32; 16] = bytemuck::cast(rows[i].to_mat4());
            assert!(max_abs_diff(&got, &want) / scale <= SKINNING_TOLERANCE, "n {n} 3x4 {i}");
        }
    }
}

#[test]
fn bind_pose_gives_identity_palette() {
    // In the bind pose each model matrix is the inverse of its inverse bind matrix: the palette is identity.
    let mut rng = Rng::new(31);
    let binds: Vec<Transform> = (0..9).map(|_| Transform { scale: Vec3::ONE, ..rng.transform() }).collect();
    let model: Vec<Mat4> = binds.iter().map(Transform::to_mat4).collect();
    let inverse: Vec<Mat3x4> = binds
        .iter()
        .map(|t| {
            let back = t.rotation.conjugate();
            let offset = back.rotate(Vec3::new(-t.translation.x, -t.translation.y, -t.translation.z));
            let inv = Transform { rotation: back, translation: offset, scale: Vec3::ONE };
            Mat3x4::from_affine(&inv.to_mat4()).unwrap()
        })
        .collect();
    let remap: Vec<u16> = (0..9).collect();
    let skin = Skin::new(9, &remap, &inverse).unwrap();
    let mut palette = vec![Mat4::IDENTITY; 9];
    SkinningJob { skin: &skin, model: &model, palette: Palette::Matrices(&mut palette) }.run().unwrap();
    for m in &palette {
        let got: [f32; 16] = bytemuck::cast(*m);
        assert!(max_abs_diff(&got, &oracle::IDENTITY) < 1e-5, "{m:?}");
    }
}

#[test]
fn remap_selects_skeleton_joints() {
    let mut model = vec![Mat4::IDENTITY; 3];
    model[2].cols[3] = [7.0, 8.0, 9.0, 1.0];
    let skin = Skin::new(3, &[2, 0], &[Mat3x4::IDENTITY, Mat3x4::IDENTITY]).unwrap();
    let mut rows = [Mat3x4::IDENTITY; 2];
    SkinningJob { skin: &skin, model: &model, palette: Palette::Rows(&mut rows) }.run().unwrap();
    assert_eq!(rows[0].rows[0][3], 7.0);
    assert_eq!(rows[0].rows[2][3], 9.0);
    assert_eq!(rows[1], Mat3x4::IDENTITY);
}

#[test]
fn skin_validation_errors() {
    let ib = [Mat3x4::IDENTITY; 2];
    assert_eq!(
        Skin::new(4, &[0], &ib).unwrap_err(),
        Error::BufferLength { buffer: Buffer::InverseBindMatrices, expected: 1, actual: 2 }
    );
    assert_eq!(
        Skin::new(4, &[0, 4], &ib).unwrap_err(),
        Error::RemapOutOfRange { skin_joint: 1, joint: 4, num_joints: 4 }
    );
    let mut bad = ib;
    bad[1].rows[1][2] = f32::INFINITY;
    assert_eq!(
        Skin::new(4, &[0, 1], &bad).unwrap_err(),
        Error::NonFinite { buffer: Buffer::InverseBindMatrices, index: 1 }
    );
}

#[test]
fn rows_from_mat4_rejects_projective_and_wrong_lengths() {
    let mut mats = [Mat4::IDENTITY; 3];
    let mut out = [Mat3x4::IDENTITY; 3];
    assert!(Skin::rows_from_mat4(&mats, &mut out).is_ok());
    mats[2].cols[1][3] = 0.1;
    assert_eq!(
        Skin::rows_from_mat4(&mats, &mut out),
        Err(Error::NotAffine { buffer: Buffer::InverseBindMatrices, index: 2 })
    );
    assert_eq!(
        Skin::rows_from_mat4(&mats, &mut out[..2]),
        Err(Error::BufferLength { buffer: Buffer::InverseBindMatrices, expected: 3, actual: 2 })
    );
}

#[test]
fn palette_length_errors() {
    let skin = Skin::new(3, &[0, 1], &[Mat3x4::IDENTITY; 2]).unwrap();
    let model = [Mat4::IDENTITY; 3];
    assert_eq!(
        SkinningJob { skin: &skin, model: &model[..2], palette: Palette::Matrices(&mut [Mat4::IDENTITY; 2]) }.run(),
        Err(Error::BufferLength { buffer: Buffer::ModelMatrices, expected: 3, actual: 2 })
    );
    assert_eq!(
        SkinningJob { skin: &skin, model: &model, palette: Palette::Rows(&mut [Mat3x4::IDENTITY; 3]) }.run(),
        Err(Error::BufferLength { buffer: Buffer::SkinningPalette, expected: 2, actual: 3 })
    );
}

#[test]
fn non_finite_model_matrix_names_the_skeleton_joint() {
    let skin = Skin::new(4, &[3, 1, 2], &[Mat3x4::IDENTITY; 3]).unwrap();
    let mut model = [Mat4::IDENTITY; 4];
    model[1].cols[0][2] = f32::NAN;
    model[0].cols[0][0] = f32::NAN; // not in the skin: must not be reported
    let want = Err(Error::NonFinite { buffer: Buffer::ModelMatrices, index: 1 });
    assert_eq!(
        SkinningJob { skin: &skin, model: &model, palette: Palette::Matrices(&mut [Mat4::IDENTITY; 3]) }.run(),
        want
    );
    assert_eq!(
        SkinningJob { skin: &skin, model: &model, palette: Palette::Rows(&mut [Mat3x4::IDENTITY; 3]) }.run(),
        want
    );
    model[1].cols[0][2] = 0.0;
    assert!(
        SkinningJob { skin: &skin, model: &model, palette: Palette::Matrices(&mut [Mat4::IDENTITY; 3]) }.run().is_ok()
    );
}

/// The fused check reads only the output's translation column (lane 3 of each row for the 3×4 palette): every
/// entry of the source matrix must still reach it, including through an inverse bind entry of 0 (inf × 0).
#[test]
fn non_finite_in_any_model_entry_is_caught() {
    // Identity inverse binds make most products a multiply by 0; the second skin joint's is a general affine.
    let general = Mat3x4 { rows: [[0.5, -2.0, 0.25, 3.0], [1.5, 0.0, -1.0, -4.0], [0.0, 2.5, 1.0, 0.5]] };
    for inverse_bind in [Mat3x4::IDENTITY, general] {
        let inverse_binds = [inverse_bind, general];
        let skin = Skin::new(2, &[1, 0], &inverse_binds).unwrap();
        for (col, row, bad) in
            (0..4).flat_map(|c| (0..4).flat_map(move |r| [f32::NAN, f32::INFINITY, -f32::INFINITY].map(|v| (c, r, v))))
        {
            let mut model = [Mat4::IDENTITY; 2];
            model[1].cols[col][row] = bad;
            let want = Err(Error::NonFinite { buffer: Buffer::ModelMatrices, index: 1 });
            assert_eq!(
                SkinningJob { skin: &skin, model: &model, palette: Palette::Matrices(&mut [Mat4::IDENTITY; 2]) }.run(),
                want,
                "col {col} row {row} {bad}"
            );
            // The 3×4 palette does not read the bottom row.
            let want_3x4 = if row == 3 { Ok(()) } else { want };
            assert_eq!(
                SkinningJob { skin: &skin, model: &model, palette: Palette::Rows(&mut [Mat3x4::IDENTITY; 2]) }.run(),
                want_3x4,
                "col {col} row {row} {bad}"
            );
        }
    }
}
