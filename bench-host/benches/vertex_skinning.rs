//! Vertex skinning of 8192 vertices with 1, 2 and 4 influences, positions only and positions+normals
//! (interleaved 24-byte vertices): sinew vs the naive AoS glam loop, over the 256-joint rig's palette, and a
//! memcpy of the output bytes (one row per layout, under influence count 1).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::vertex_skinning::{NormalMode, VertexLayout};
use sinew::{Influences, VertexSkinningJob};
use sinew::{Palette, SkinningJob};
use sinew_bench_host::bench_support::Fixture;
use sinew_bench_host::naive;
use std::hint::black_box;

const VERTICES: usize = 8192;

/// A deterministic mesh: positions and unit normals, and `count` influences per vertex on neighbouring
/// joints (as real meshes bind), weights summing to 1.
struct Mesh {
    interleaved: Vec<u8>,
    positions: Vec<glam::Vec3>,
    normals: Vec<glam::Vec3>,
    joints: Vec<u16>,
    weights: Vec<f32>,
}

impl Mesh {
    fn new(count: usize, palette_len: usize) -> Mesh {
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
                mesh.joints.push(((first + k) % palette_len) as u16);
                mesh.weights.push(w / total);
            }
        }
        mesh
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
        let mesh = Mesh::new(count, palette.len());
        let influences = Influences::new(count, &mesh.joints, &mesh.weights).expect("valid");
        let mut output = vec![0u8; VERTICES * 24];
        let mut out_p = vec![glam::Vec3::ZERO; VERTICES];
        let mut out_n = vec![glam::Vec3::ZERO; VERTICES];
        for (name, layout, normals) in [
            ("positions", VertexLayout::POSITIONS, None),
            ("positions_normals", VertexLayout::POSITIONS_NORMALS, Some(&mesh.normals[..])),
        ] {
            let input = if normals.is_some() { &mesh.interleaved[..] } else { &mesh.interleaved[..VERTICES * 12] };
            // The floor of any skinning loop: writing the output bytes (positions: 12 B, with normals: 24 B).
            if count == 1 {
                let source = vec![0u8; input.len()];
                let written = &mut output[..input.len()];
                group.bench_function(BenchmarkId::new(format!("memcpy_{name}"), count), |b| {
                    b.iter(|| written.copy_from_slice(black_box(&source)))
                });
            }
            // Inverse-transpose normals only matter with normals; positions run the rigid path alone.
            let modes: &[(&str, NormalMode)] = if normals.is_some() {
                &[("", NormalMode::Rigid), ("_inverse_transpose", NormalMode::InverseTranspose)]
            } else {
                &[("", NormalMode::Rigid)]
            };
            for &(suffix, normal_mode) in modes {
                group.bench_function(BenchmarkId::new(format!("sinew_{name}{suffix}"), count), |b| {
                    b.iter(|| {
                        VertexSkinningJob {
                            palette: black_box(palette),
                            influences: &influences,
                            normal_mode,
                            input,
                            input_layout: layout,
                            output: &mut output,
                            output_layout: layout,
                        }
                        .run()
                        .expect("valid")
                    })
                });
            }
            group.bench_function(BenchmarkId::new(format!("naive_aos_glam_{name}"), count), |b| {
                b.iter(|| {
                    naive::skin_vertices(
                        black_box(&glam_palette),
                        (count, &mesh.joints, &mesh.weights),
                        &mesh.positions,
                        normals,
                        &mut out_p,
                        &mut out_n,
                    )
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, vertex_skinning);
criterion_main!(benches);
