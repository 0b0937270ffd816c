//! Vertex skinning of 8192 vertices with 1, 2 and 4 influences, positions only and positions+normals: sinew vs
//! the naive AoS glam loop (ozz-animation's loop: blend the matrices, then transform).
//! - `vertex_skinning`: interleaved 24-byte vertices bound to neighbouring joints of the 256-joint rig's palette,
//!   and a memcpy of the output bytes (one row per layout, under influence count 1).
//! - `vertex_skinning_peer_mesh`: the mesh `cargo xtask peer` gives ozz-animation-rs's `SkinningJob`: influences
//!   drawn uniformly from a 67-joint palette, positions and normals in separate packed arrays.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::math::Mat4;
use sinew::vertex_skinning::{Attribute, NormalMode, VEC3_BYTES, VertexLayout};
use sinew::{Influences, VertexSkinningJob};
use sinew::{Palette, SkinningJob};
use sinew_bench_host::bench_support::Fixture;
use sinew_bench_host::naive;
use std::hint::black_box;

const VERTICES: usize = 8192;

/// Which joints a vertex's influences name.
#[derive(Clone, Copy, PartialEq)]
enum Binding {
    /// `count` consecutive joints from a random first one, as real meshes bind.
    Neighbours,
    /// Each drawn uniformly from the palette, as the peer harness binds.
    Uniform,
}

/// A deterministic mesh: positions and unit normals, and `count` influences per vertex, weights summing to 1.
struct Mesh {
    interleaved: Vec<u8>,
    positions: Vec<glam::Vec3>,
    normals: Vec<glam::Vec3>,
    joints: Vec<u16>,
    weights: Vec<f32>,
}

impl Mesh {
    fn new(count: usize, palette_len: usize, binding: Binding) -> Mesh {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut mesh = Mesh {
            interleaved: vec![0; VERTICES * 24],
            positions: vec![],
            normals: vec![],
            joints: vec![],
            weights: vec![],
        };
        for v in 0..VERTICES {
            let p = glam::Vec3::new(next() - 0.5, next() * 2.0, next() - 0.5);
            let n = glam::Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(glam::Vec3::Y);
            let bytes: Vec<u8> = p.to_array().iter().chain(&n.to_array()).flat_map(|f| f.to_ne_bytes()).collect();
            mesh.interleaved[v * 24..][..24].copy_from_slice(&bytes);
            mesh.positions.push(p);
            mesh.normals.push(n);
            let first = (next() * palette_len as f32) as usize % palette_len;
            let raw: Vec<f32> = (0..count).map(|_| next() + 0.1).collect();
            let total: f32 = raw.iter().sum();
            for (k, w) in raw.iter().enumerate() {
                let joint = match binding {
                    Binding::Neighbours => first + k,
                    Binding::Uniform => (next() * palette_len as f32) as usize,
                };
                mesh.joints.push((joint % palette_len) as u16);
                mesh.weights.push(w / total);
            }
        }
        mesh
    }
}

/// One mesh and layout, benched through sinew's job and through the naive loop.
struct Case<'a> {
    palette: &'a [Mat4],
    glam_palette: &'a [glam::Mat4],
    mesh: &'a Mesh,
    influences: &'a Influences<'a>,
    input: &'a [u8],
    layout: VertexLayout,
}

impl Case<'_> {
    fn bench_sinew(&self, group: &mut BenchmarkGroup<WallTime>, id: BenchmarkId, normal_mode: NormalMode) {
        let mut output = vec![0u8; self.input.len()];
        group.bench_function(id, |b| {
            b.iter(|| {
                VertexSkinningJob {
                    palette: black_box(self.palette),
                    influences: self.influences,
                    normal_mode,
                    input: self.input,
                    input_layout: self.layout,
                    output: &mut output,
                    output_layout: self.layout,
                }
                .run()
                .expect("valid")
            })
        });
    }

    fn bench_naive(&self, group: &mut BenchmarkGroup<WallTime>, id: BenchmarkId, normals: bool) {
        let (mut out_p, mut out_n) = (vec![glam::Vec3::ZERO; VERTICES], vec![glam::Vec3::ZERO; VERTICES]);
        let mesh = self.mesh;
        group.bench_function(id, |b| {
            b.iter(|| {
                naive::skin_vertices(
                    black_box(self.glam_palette),
                    (self.influences.count(), &mesh.joints, &mesh.weights),
                    &mesh.positions,
                    normals.then_some(&mesh.normals[..]),
                    &mut out_p,
                    &mut out_n,
                )
            })
        });
    }
}

fn vertex_skinning(c: &mut Criterion) {
    let mut group = c.benchmark_group("vertex_skinning");
    group.throughput(Throughput::Elements(VERTICES as u64));
    let mut fixture = Fixture::new(256);
    SkinningJob { skin: &fixture.rig.skin(), model: &fixture.model, palette: Palette::Matrices(&mut fixture.palette) }
        .run()
        .expect("valid");
    let palette = &fixture.palette;
    let glam_palette: Vec<glam::Mat4> = palette.iter().map(|m| glam::Mat4::from_cols_array_2d(&m.cols)).collect();
    for count in [1, 2, 4] {
        let mesh = Mesh::new(count, palette.len(), Binding::Neighbours);
        let influences = Influences::new(count, &mesh.joints, &mesh.weights).expect("valid");
        for (name, layout, normals) in [
            ("positions", VertexLayout::POSITIONS, false),
            ("positions_normals", VertexLayout::POSITIONS_NORMALS, true),
        ] {
            let input = if normals { &mesh.interleaved[..] } else { &mesh.interleaved[..VERTICES * 12] };
            // The floor of any skinning loop: writing the output bytes (positions: 12 B, with normals: 24 B).
            if count == 1 {
                let source = vec![0u8; input.len()];
                let mut written = vec![0u8; input.len()];
                group.bench_function(BenchmarkId::new(format!("memcpy_{name}"), count), |b| {
                    b.iter(|| written.copy_from_slice(black_box(&source)))
                });
            }
            // Inverse-transpose normals only matter with normals; positions run the rigid path alone.
            let modes: &[(&str, NormalMode)] = if normals {
                &[("", NormalMode::Rigid), ("_inverse_transpose", NormalMode::InverseTranspose)]
            } else {
                &[("", NormalMode::Rigid)]
            };
            let case =
                Case { palette, glam_palette: &glam_palette, mesh: &mesh, influences: &influences, input, layout };
            for &(suffix, normal_mode) in modes {
                case.bench_sinew(&mut group, BenchmarkId::new(format!("sinew_{name}{suffix}"), count), normal_mode);
            }
            case.bench_naive(&mut group, BenchmarkId::new(format!("naive_aos_glam_{name}"), count), normals);
        }
    }
    group.finish();
}

/// The peer harness's palette: joint `i` turned `0.1 i` rad about y and moved `0.01 i` along every axis.
fn peer_palette() -> Vec<glam::Mat4> {
    (0..67)
        .map(|i| {
            let turn = glam::Quat::from_rotation_y(i as f32 * 0.1);
            glam::Mat4::from_rotation_translation(turn, glam::Vec3::splat(i as f32 * 0.01))
        })
        .collect()
}

fn vertex_skinning_peer_mesh(c: &mut Criterion) {
    let mut group = c.benchmark_group("vertex_skinning_peer_mesh");
    group.throughput(Throughput::Elements(VERTICES as u64));
    let glam_palette = peer_palette();
    let palette: Vec<Mat4> = glam_palette.iter().map(|m| Mat4 { cols: m.to_cols_array_2d() }).collect();
    // Positions, then normals: two packed arrays in one buffer.
    let split = VertexLayout {
        position: Attribute::new(0, VEC3_BYTES),
        normal: Some(Attribute::new(VERTICES * VEC3_BYTES, VEC3_BYTES)),
        tangent: None,
    };
    for count in [1, 2, 4] {
        let mesh = Mesh::new(count, palette.len(), Binding::Uniform);
        let input: Vec<u8> =
            mesh.positions.iter().chain(&mesh.normals).flat_map(|v| v.to_array()).flat_map(f32::to_ne_bytes).collect();
        let influences = Influences::new(count, &mesh.joints, &mesh.weights).expect("valid");
        for (name, layout, normals) in
            [("positions", VertexLayout { normal: None, ..split }, false), ("positions_normals", split, true)]
        {
            let case = Case {
                palette: &palette,
                glam_palette: &glam_palette,
                mesh: &mesh,
                influences: &influences,
                input: &input,
                layout,
            };
            case.bench_sinew(&mut group, BenchmarkId::new(format!("sinew_{name}"), count), NormalMode::Rigid);
            case.bench_naive(&mut group, BenchmarkId::new(format!("naive_aos_glam_{name}"), count), normals);
        }
    }
    group.finish();
}

criterion_group!(benches, vertex_skinning, vertex_skinning_peer_mesh);
criterion_main!(benches);
