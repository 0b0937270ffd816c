//! Vertex skinning of 8192 vertices with 1, 2 and 4 influences, positions only and positions+normals: sinew vs
//! the naive AoS glam loop (ozz-animation's loop: blend the matrices, then transform).
//! - `vertex_skinning`: interleaved 24-byte vertices bound to neighbouring joints of the 256-joint rig's palette,
//!   and a memcpy of the output bytes (one row per layout, under influence count 1).
//! - `vertex_skinning_peer_mesh`: the mesh `cargo xtask peer` gives ozz-animation-rs's `SkinningJob`: influences
//!   drawn uniformly from a 67-joint palette, positions and normals in separate packed arrays.
//! - `vertex_skinning_soa_probe`: the same mesh prepared as structure of arrays across vertices (four per
//!   register), skinned by a probe loop that is not part of sinew, beside sinew's job: the measurement behind
//!   the performance log's "Vertices across lanes, measured".

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::math::{F4, Mat4};
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

/// The peer harness's palette as glam and as sinew matrices, and its layout: positions, then normals, two packed
/// arrays in one buffer.
fn peer_setup() -> (Vec<glam::Mat4>, Vec<Mat4>, VertexLayout) {
    let glam_palette = peer_palette();
    let palette = glam_palette.iter().map(|m| Mat4 { cols: m.to_cols_array_2d() }).collect();
    let split = VertexLayout {
        position: Attribute::new(0, VEC3_BYTES),
        normal: Some(Attribute::new(VERTICES * VEC3_BYTES, VEC3_BYTES)),
        tangent: None,
    };
    (glam_palette, palette, split)
}

/// `mesh` in the peer's layout, and the two layouts benched on it (name, layout, with normals).
fn peer_input(mesh: &Mesh, split: VertexLayout) -> (Vec<u8>, [(&'static str, VertexLayout, bool); 2]) {
    let input =
        mesh.positions.iter().chain(&mesh.normals).flat_map(|v| v.to_array()).flat_map(f32::to_ne_bytes).collect();
    (input, [("positions", VertexLayout { normal: None, ..split }, false), ("positions_normals", split, true)])
}

fn vertex_skinning_peer_mesh(c: &mut Criterion) {
    let mut group = c.benchmark_group("vertex_skinning_peer_mesh");
    group.throughput(Throughput::Elements(VERTICES as u64));
    let (glam_palette, palette, split) = peer_setup();
    for count in [1, 2, 4] {
        let mesh = Mesh::new(count, palette.len(), Binding::Uniform);
        let (input, layouts) = peer_input(&mesh, split);
        let influences = Influences::new(count, &mesh.joints, &mesh.weights).expect("valid");
        for (name, layout, normals) in layouts {
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

/// Four vertices of a mesh prepared as structure of arrays: each attribute's `x`, `y`, `z` across the four
/// vertices, and per influence the four vertices' joints and weights.
#[derive(Clone, Copy)]
struct SoaBlock<const K: usize> {
    position: [F4; 3],
    normal: [F4; 3],
    joints: [[u16; 4]; K],
    weights: [F4; K],
}

/// The peer mesh in blocks of four vertices.
fn prepare<const K: usize>(mesh: &Mesh) -> Vec<SoaBlock<K>> {
    let axis = |v: &[glam::Vec3], first: usize, a: usize| F4::from_array([0, 1, 2, 3].map(|l| v[first + l][a]));
    (0..VERTICES / 4)
        .map(|b| {
            let first = 4 * b;
            SoaBlock {
                position: [0, 1, 2].map(|a| axis(&mesh.positions, first, a)),
                normal: [0, 1, 2].map(|a| axis(&mesh.normals, first, a)),
                joints: std::array::from_fn(|k| [0, 1, 2, 3].map(|l| mesh.joints[(first + l) * K + k])),
                weights: std::array::from_fn(|k| {
                    F4::from_array([0, 1, 2, 3].map(|l| mesh.weights[(first + l) * K + k]))
                }),
            }
        })
        .collect()
}

/// The probe loop: per block, each vertex's matrix blended in its own registers (`K` weight broadcasts), then
/// the four blended matrices transposed into lanes (rows 0–2 of four columns), then positions and normals
/// transformed with no horizontal work. With one influence the palette matrices are transposed directly, their
/// weights taken as 1 (as the job's unit-weight loop does).
///
/// Panics when a joint is outside the palette, or a single influence's weight is not 1 (checked before the
/// loop, as the job's `Influences` does).
fn skin_soa<const K: usize>(palette: &[Mat4], blocks: &[SoaBlock<K>], normals: bool, out: &mut [[F4; 3]]) {
    assert!(blocks.iter().all(|b| b.joints.iter().flatten().all(|&j| (j as usize) < palette.len())));
    assert!(K > 1 || blocks.iter().all(|b| b.weights[0].to_array() == [1.0; 4]));
    assert_eq!(out.len(), blocks.len() * 2);
    for (block, out) in blocks.iter().zip(out.chunks_exact_mut(2)) {
        let lane_matrix = |l: usize| -> [F4; 4] {
            // SAFETY: every joint was checked against the palette's length above.
            let m = |k: usize| unsafe { palette.get_unchecked(block.joints[k][l] as usize) };
            let mut cols = m(0).cols.map(F4::from_array);
            if K > 1 {
                let w = F4::splat(block.weights[0].to_array()[l]);
                cols = cols.map(|c| c * w);
                for k in 1..K {
                    let w = F4::splat(block.weights[k].to_array()[l]);
                    for (c, src) in cols.iter_mut().zip(m(k).cols) {
                        *c = F4::from_array(src).mul_add(w, *c);
                    }
                }
            }
            cols
        };
        let lanes = [lane_matrix(0), lane_matrix(1), lane_matrix(2), lane_matrix(3)];
        // rows[c][r]: element (r, c) of the four vertices' matrices.
        let rows: [[F4; 4]; 4] = std::array::from_fn(|c| F4::transpose4(lanes.map(|m| m[c])));
        let [x, y, z] = block.position;
        out[0] =
            std::array::from_fn(|r| rows[0][r].mul_add(x, rows[1][r].mul_add(y, rows[2][r].mul_add(z, rows[3][r]))));
        if normals {
            let [x, y, z] = block.normal;
            out[1] = std::array::from_fn(|r| rows[0][r].mul_add(x, rows[1][r].mul_add(y, rows[2][r] * z)));
        }
    }
}

/// The probe with eight vertices per register, on x86-64-v3 builds: each vertex's blended matrix (two
/// registers, `K` weight broadcasts from memory) stored to the stack, then four columns of eight matrices
/// brought into lanes by 16-byte loads and an in-lane 4×4 transpose (seven shuffles per column).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma"))]
mod wide {
    use super::{Mesh, VERTICES};
    use sinew::math::Mat4;
    use std::arch::x86_64::*;

    /// Eight vertices: attributes' `x`, `y`, `z` across them, and per influence their joints and weights.
    #[derive(Clone, Copy)]
    pub struct Block8<const K: usize> {
        pub position: [[f32; 8]; 3],
        pub normal: [[f32; 8]; 3],
        pub joints: [[u16; 8]; K],
        pub weights: [[f32; 8]; K],
    }

    pub fn prepare<const K: usize>(mesh: &Mesh) -> Vec<Block8<K>> {
        let axis = |v: &[glam::Vec3], first: usize, a: usize| std::array::from_fn(|l| v[first + l][a]);
        (0..VERTICES / 8)
            .map(|b| {
                let first = 8 * b;
                Block8 {
                    position: [0, 1, 2].map(|a| axis(&mesh.positions, first, a)),
                    normal: [0, 1, 2].map(|a| axis(&mesh.normals, first, a)),
                    joints: std::array::from_fn(|k| std::array::from_fn(|l| mesh.joints[(first + l) * K + k])),
                    weights: std::array::from_fn(|k| std::array::from_fn(|l| mesh.weights[(first + l) * K + k])),
                }
            })
            .collect()
    }

    /// Element `(r, c)` of eight matrices (16 column-major floats at each pointer) across lanes, `[c][r]`,
    /// rows 0–2.
    #[inline(always)]
    unsafe fn transpose(m: [*const f32; 8]) -> [[__m256; 3]; 4] {
        // SAFETY: the caller passes eight pointers to 16 readable floats.
        unsafe {
            std::array::from_fn(|c| {
                let v: [__m256; 4] = std::array::from_fn(|l| {
                    let low = _mm256_castps128_ps256(_mm_loadu_ps(m[l].add(4 * c)));
                    _mm256_insertf128_ps(low, _mm_loadu_ps(m[l + 4].add(4 * c)), 1)
                });
                let (t0, t1) = (_mm256_unpacklo_ps(v[0], v[1]), _mm256_unpackhi_ps(v[0], v[1]));
                let (t2, t3) = (_mm256_unpacklo_ps(v[2], v[3]), _mm256_unpackhi_ps(v[2], v[3]));
                [_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE), _mm256_shuffle_ps(t1, t3, 0x44)]
            })
        }
    }

    /// [`transpose`] of eight matrices held as two registers each (columns 0–1, 2–3): the halves paired across
    /// lanes `l` and `l + 4` by `vperm2f128` instead of 16-byte loads.
    #[inline(always)]
    unsafe fn transpose_registers(m: &[[__m256; 2]; 8]) -> [[__m256; 3]; 4] {
        // SAFETY: AVX is enabled for this module's build.
        unsafe {
            std::array::from_fn(|c| {
                let v: [__m256; 4] = std::array::from_fn(|l| match c {
                    0 => _mm256_permute2f128_ps(m[l][0], m[l + 4][0], 0x20),
                    1 => _mm256_permute2f128_ps(m[l][0], m[l + 4][0], 0x31),
                    2 => _mm256_permute2f128_ps(m[l][1], m[l + 4][1], 0x20),
                    _ => _mm256_permute2f128_ps(m[l][1], m[l + 4][1], 0x31),
                });
                let (t0, t1) = (_mm256_unpacklo_ps(v[0], v[1]), _mm256_unpackhi_ps(v[0], v[1]));
                let (t2, t3) = (_mm256_unpacklo_ps(v[2], v[3]), _mm256_unpackhi_ps(v[2], v[3]));
                [_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE), _mm256_shuffle_ps(t1, t3, 0x44)]
            })
        }
    }

    /// Panics when a joint is outside the palette, or a single influence's weight is not 1.
    pub fn skin<const K: usize>(palette: &[Mat4], blocks: &[Block8<K>], normals: bool, out: &mut [[[f32; 8]; 3]]) {
        assert!(blocks.iter().all(|b| b.joints.iter().flatten().all(|&j| (j as usize) < palette.len())));
        assert!(K > 1 || blocks.iter().all(|b| b.weights[0] == [1.0; 8]));
        assert_eq!(out.len(), blocks.len() * 2);
        let base = palette.as_ptr() as *const f32;
        for (block, out) in blocks.iter().zip(out.chunks_exact_mut(2)) {
            // SAFETY: every joint was checked against the palette's length above; `Mat4` is 16 `f32`.
            unsafe {
                let m = if K == 1 {
                    transpose(std::array::from_fn(|l| base.add(16 * block.joints[0][l] as usize)))
                } else {
                    let lane: [[__m256; 2]; 8] = std::array::from_fn(|l| {
                        let m = base.add(16 * block.joints[0][l] as usize);
                        let w = _mm256_set1_ps(block.weights[0][l]);
                        let (mut a, mut b) =
                            (_mm256_mul_ps(_mm256_loadu_ps(m), w), _mm256_mul_ps(_mm256_loadu_ps(m.add(8)), w));
                        for k in 1..K {
                            let m = base.add(16 * block.joints[k][l] as usize);
                            let w = _mm256_set1_ps(block.weights[k][l]);
                            a = _mm256_fmadd_ps(_mm256_loadu_ps(m), w, a);
                            b = _mm256_fmadd_ps(_mm256_loadu_ps(m.add(8)), w, b);
                        }
                        [a, b]
                    });
                    transpose_registers(&lane)
                };
                let [x, y, z] = block.position.map(|a| _mm256_loadu_ps(a.as_ptr()));
                for r in 0..3 {
                    let v =
                        _mm256_fmadd_ps(m[0][r], x, _mm256_fmadd_ps(m[1][r], y, _mm256_fmadd_ps(m[2][r], z, m[3][r])));
                    _mm256_storeu_ps(out[0][r].as_mut_ptr(), v);
                }
                if normals {
                    let [x, y, z] = block.normal.map(|a| _mm256_loadu_ps(a.as_ptr()));
                    for r in 0..3 {
                        let v = _mm256_fmadd_ps(m[0][r], x, _mm256_fmadd_ps(m[1][r], y, _mm256_mul_ps(m[2][r], z)));
                        _mm256_storeu_ps(out[1][r].as_mut_ptr(), v);
                    }
                }
            }
        }
    }
}

fn vertex_skinning_soa_probe(c: &mut Criterion) {
    let mut group = c.benchmark_group("vertex_skinning_soa_probe");
    group.throughput(Throughput::Elements(VERTICES as u64));
    let (glam_palette, palette, split) = peer_setup();
    fn case<const K: usize>(
        group: &mut BenchmarkGroup<WallTime>,
        palette: &[Mat4],
        glam_palette: &[glam::Mat4],
        split: VertexLayout,
    ) {
        let mesh = Mesh::new(K, palette.len(), Binding::Uniform);
        let (input, layouts) = peer_input(&mesh, split);
        let influences = Influences::new(K, &mesh.joints, &mesh.weights).expect("valid");
        let blocks = prepare::<K>(&mesh);
        for (name, layout, normals) in layouts {
            let case = Case { palette, glam_palette, mesh: &mesh, influences: &influences, input: &input, layout };
            case.bench_sinew(group, BenchmarkId::new(format!("sinew_{name}"), K), NormalMode::Rigid);
            // The probe must compute what the job does before it is timed.
            let mut job_out = vec![0u8; input.len()];
            let mut job = VertexSkinningJob {
                palette,
                influences: &influences,
                normal_mode: NormalMode::Rigid,
                input: &input,
                input_layout: layout,
                output: &mut job_out,
                output_layout: layout,
            };
            job.run().expect("valid");
            let mut out = vec![[F4::ZERO; 3]; blocks.len() * 2];
            skin_soa::<K>(palette, &blocks, normals, &mut out);
            for v in 0..VERTICES {
                let attributes = if normals { 2 } else { 1 };
                for a in 0..attributes {
                    for (axis, lanes) in out[v / 4 * 2 + a].iter().enumerate() {
                        let at = a * VERTICES * VEC3_BYTES + v * VEC3_BYTES + axis * 4;
                        let want = f32::from_ne_bytes(job_out[at..at + 4].try_into().expect("4 bytes"));
                        let got = lanes.to_array()[v % 4];
                        assert!((got - want).abs() <= 1e-5 * want.abs().max(1.0), "vertex {v}: {got} vs {want}");
                    }
                }
            }
            group.bench_function(BenchmarkId::new(format!("soa_probe_{name}"), K), |b| {
                b.iter(|| skin_soa::<K>(black_box(palette), &blocks, normals, &mut out))
            });
            #[cfg(all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma"))]
            {
                let blocks = wide::prepare::<K>(&mesh);
                let mut wide_out = vec![[[0.0f32; 8]; 3]; blocks.len() * 2];
                wide::skin::<K>(palette, &blocks, normals, &mut wide_out);
                for v in 0..VERTICES {
                    for a in 0..if normals { 2 } else { 1 } {
                        let want = out[v / 4 * 2 + a].map(|axis| axis.to_array()[v % 4]);
                        let got = wide_out[v / 8 * 2 + a].map(|axis| axis[v % 8]);
                        for (g, w) in got.iter().zip(want) {
                            assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "vertex {v}: {got:?} vs {want:?}");
                        }
                    }
                }
                group.bench_function(BenchmarkId::new(format!("soa8_probe_{name}"), K), |b| {
                    b.iter(|| wide::skin::<K>(black_box(palette), &blocks, normals, &mut wide_out))
                });
            }
        }
    }
    case::<1>(&mut group, &palette, &glam_palette, split);
    case::<2>(&mut group, &palette, &glam_palette, split);
    case::<4>(&mut group, &palette, &glam_palette, split);
    group.finish();
}

criterion_group!(benches, vertex_skinning, vertex_skinning_peer_mesh, vertex_skinning_soa_probe);
criterion_main!(benches);
