//! Inputs shared by the criterion benches: one character's buffers for a procedural rig of `n` joints.

use crate::naive::AosPose;
use sinew::math::{Mat3x4, Mat4, SoaTransform, num_soa_joints, pack_soa};
use sinew_tools::rig::Rig;

/// Joint counts every kernel bench runs: the smallest real rig (Bandai, 22), a game character (67), the
/// MakeHuman face rig (163), the issue targets (256) and the maximum (1024).
pub const BENCH_JOINTS: [usize; 5] = [22, 67, 163, 256, 1024];

/// A rig with one animated pose in SoA and AoS (glam) form, and output buffers for both paths.
pub struct Fixture {
    pub rig: Rig,
    pub local: Vec<SoaTransform>,
    pub aos: AosPose,
    pub model: Vec<Mat4>,
    pub palette: Vec<Mat4>,
    pub palette_3x4: Vec<Mat3x4>,
    pub glam_model: Vec<glam::Mat4>,
    pub glam_inverse_bind: Vec<glam::Mat4>,
    pub glam_palette: Vec<glam::Mat4>,
    pub glam_palette_3x4: Vec<[glam::Vec4; 3]>,
}

impl Fixture {
    pub fn new(num_joints: usize) -> Fixture {
        let rig = Rig::humanoid(num_joints);
        let n = rig.num_joints();
        let pose = rig.poses(3).swap_remove(2);
        let mut local = vec![SoaTransform::IDENTITY; num_soa_joints(n)];
        pack_soa(&pose, &mut local).expect("sized by num_soa_joints");
        let skin_len = rig.skin_remap.len();
        let mut model = vec![Mat4::IDENTITY; n];
        let skeleton = rig.skeleton();
        sinew::LocalToModelJob { skeleton: &skeleton, walk: None, local: &local, root: None, model: &mut model }
            .run()
            .expect("generated poses are valid");
        let glam_model = model.iter().map(|m| glam::Mat4::from_cols_array_2d(&m.cols)).collect();
        let glam_inverse_bind =
            rig.inverse_bind.iter().map(|m| glam::Mat4::from_cols_array_2d(&m.to_mat4().cols)).collect();
        Fixture {
            aos: AosPose::new(&pose),
            local,
            model,
            palette: vec![Mat4::IDENTITY; skin_len],
            palette_3x4: vec![Mat3x4::IDENTITY; skin_len],
            glam_model,
            glam_inverse_bind,
            glam_palette: vec![glam::Mat4::IDENTITY; skin_len],
            glam_palette_3x4: vec![[glam::Vec4::ZERO; 3]; skin_len],
            rig,
        }
    }
}

/// AoS poses packed as SoA, one `Vec` per pose (the joint count is the poses' length).
pub fn soa_poses(poses: &[Vec<sinew::math::Transform>]) -> Vec<Vec<SoaTransform>> {
    poses
        .iter()
        .map(|p| {
            let mut s = vec![SoaTransform::IDENTITY; num_soa_joints(p.len())];
            pack_soa(p, &mut s).expect("sized by num_soa_joints");
            s
        })
        .collect()
}

/// The sampling benches' `i`-th seek time into a clip of `duration` seconds: a fixed pseudo-random sequence
/// whose neighbours lie far apart, so each seek decodes two frames.
pub fn seek_time(i: u32, duration: f32) -> f32 {
    (i.wrapping_mul(2_654_435_761) % 10_000) as f32 * duration / 1e4
}

/// The sampling benches' `i`-th playback time: 60 Hz steps looping over `duration` seconds.
pub fn playback_time(i: u32, duration: f32) -> f32 {
    (i as f32 / 60.0) % duration
}
