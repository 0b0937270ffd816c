//! ozz-animation-rs's `SkinningJob` on the mesh of sinew's `vertex_skinning_peer_mesh` bench: 8192 vertices,
//! 1, 2 and 4 influences drawn uniformly from a 67-joint palette, positions alone and with normals, in
//! separate packed arrays. `cargo xtask peer` builds it inside the peer harness (its own package, nightly) as
//! a second binary; it is not part of sinew's workspace. Prints one markdown row per case, like the harness.
use glam::{Mat4, Quat, Vec3};
use ozz_animation_rs::SkinningJob;
use std::hint::black_box;
use std::time::Instant;

const VERTICES: usize = 8192;
const JOINTS: usize = 67;

/// The harness's generator, so the mesh matches its own `SkinningJob` row.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    fn f(&mut self) -> f32 {
        self.next() as f32 / (u32::MAX >> 1) as f32
    }
}

/// Median ns per call over 101 blocks of about 2 ms, as the harness measures.
fn median_ns(mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed().as_secs_f64() < 0.05 {
        f();
        calls += 1;
    }
    let per_call = start.elapsed().as_secs_f64() / calls as f64;
    let iterations = ((0.002 / per_call) as u64).max(1);
    let mut blocks: Vec<f64> = (0..101)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iterations {
                f();
            }
            t.elapsed().as_secs_f64() * 1e9 / iterations as f64
        })
        .collect();
    blocks.sort_by(f64::total_cmp);
    blocks[blocks.len() / 2]
}

fn main() {
    let matrices: Vec<Mat4> = (0..JOINTS)
        .map(|i| Mat4::from_rotation_translation(Quat::from_rotation_y(i as f32 * 0.1), Vec3::splat(i as f32 * 0.01)))
        .collect();
    for count in [1usize, 2, 4] {
        let mut rng = Lcg(7);
        let indices: Vec<u16> = (0..VERTICES * count).map(|_| (rng.next() % JOINTS as u32) as u16).collect();
        // ozz stores count - 1 weights per vertex; the last is one minus their sum.
        let weights: Vec<f32> = (0..VERTICES * (count - 1)).map(|_| 0.2 + rng.f() * 0.1).collect();
        let positions: Vec<Vec3> = (0..VERTICES).map(|_| Vec3::new(rng.f(), rng.f(), rng.f())).collect();
        let normals: Vec<Vec3> = (0..VERTICES).map(|_| Vec3::new(rng.f(), rng.f(), rng.f()).normalize()).collect();
        for with_normals in [false, true] {
            let mut out_positions = vec![Vec3::ZERO; VERTICES];
            let mut out_normals = vec![Vec3::ZERO; VERTICES];
            let mut job: SkinningJob<&[Mat4], &[u16], &[f32], &[Vec3], &mut [Vec3]> = SkinningJob::default();
            job.set_vertex_count(VERTICES);
            job.set_influences_count(count);
            job.set_joint_matrices(&matrices);
            job.set_joint_indices(&indices);
            job.set_joint_weights(&weights);
            job.set_in_positions(&positions);
            job.set_out_positions(&mut out_positions);
            if with_normals {
                job.set_in_normals(&normals);
                job.set_out_normals(&mut out_normals);
            }
            assert!(job.validate(), "the peer rejected its own job");
            let median = median_ns(|| black_box(job.run()).expect("valid job"));
            let attributes = if with_normals { "positions_normals" } else { "positions" };
            println!("| SkinningJob | {VERTICES} verts | {attributes} | {count} | {median:.0} |");
        }
    }
}
