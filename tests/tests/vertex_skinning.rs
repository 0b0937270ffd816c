//! Vertex skinning: one test per error, hand-computed behaviour, and reference against an f64 oracle on random
//! palettes (with non-uniform scale and shear), influence counts 1 to 6, packed, interleaved and split layouts.

use sinew::math::{Mat4, Transform, Vec3};
use sinew::vertex_skinning::{Attribute, AttributeKind, NormalMode, VertexLayout};
use sinew::{Buffer, Error, Influences, VertexSkinningJob};
use sinew_tests::{Rng, oracle};

/// Writes `values` as native-endian `f32` at `offset`.
fn put(bytes: &mut [u8], offset: usize, values: &[f32]) {
    for (i, v) in values.iter().enumerate() {
        bytes[offset + 4 * i..][..4].copy_from_slice(&v.to_ne_bytes());
    }
}

fn get(bytes: &[u8], offset: usize, n: usize) -> Vec<f32> {
    (0..n).map(|i| f32::from_ne_bytes(bytes[offset + 4 * i..][..4].try_into().unwrap())).collect()
}

fn translation(x: f32, y: f32, z: f32) -> Mat4 {
    Transform { translation: Vec3::new(x, y, z), ..Transform::IDENTITY }.to_mat4()
}

/// Runs one job; `input` holds positions (and normals when the layout has them) already.
fn skin(
    palette: &[Mat4],
    influences: &Influences,
    mode: NormalMode,
    input: &[u8],
    layout: VertexLayout,
    output: &mut [u8],
    output_layout: VertexLayout,
) -> Result<(), Error> {
    VertexSkinningJob { palette, influences, normal_mode: mode, input, input_layout: layout, output, output_layout }
        .run()
}

/// Packed positions from a list of points.
fn positions(points: &[[f32; 3]]) -> Vec<u8> {
    let mut bytes = vec![0u8; points.len() * 12];
    for (v, p) in points.iter().enumerate() {
        put(&mut bytes, v * 12, p);
    }
    bytes
}

#[test]
fn influence_table_errors() {
    assert_eq!(Influences::new(0, &[], &[]).unwrap_err(), Error::InfluenceCount { count: 0 });
    assert_eq!(
        Influences::new(2, &[0, 1], &[1.0]).unwrap_err(),
        Error::BufferLength { buffer: Buffer::InfluenceWeights, expected: 2, actual: 1 }
    );
    assert_eq!(
        Influences::new(2, &[0, 1, 2], &[1.0, 0.0, 1.0]).unwrap_err(),
        Error::BufferLength { buffer: Buffer::InfluenceJoints, expected: 2, actual: 3 }
    );
    for bad in [f32::NAN, f32::INFINITY, -0.25] {
        assert_eq!(
            Influences::new(2, &[0, 0, 0, 0, 0, 0], &[1.0, 0.0, 0.5, 0.5, 0.0, bad]).unwrap_err(),
            Error::InvalidInfluenceWeight { vertex: 2 },
            "weight {bad}"
        );
    }
}

#[test]
fn job_errors() {
    let palette = [Mat4::IDENTITY; 3];
    let table = Influences::new(1, &[0, 1, 2], &[1.0; 3]).unwrap();
    let input = positions(&[[0.0; 3]; 3]);
    let mut out = vec![0u8; 36];
    let p = VertexLayout::POSITIONS;
    let err = |palette: &[Mat4], input: &[u8], layout: VertexLayout, out: &mut [u8], out_layout| {
        skin(palette, &table, NormalMode::Rigid, input, layout, out, out_layout).unwrap_err()
    };

    assert_eq!(
        err(&palette[..2], &input, p, &mut out, p),
        Error::InfluenceOutOfRange { vertex: 2, joint: 2, palette_len: 2 }
    );
    let with_normals = VertexLayout { normal: Some(Attribute::new(0, 12)), ..p };
    assert_eq!(
        err(&palette, &input, p, &mut out, with_normals),
        Error::AttributeMismatch { attribute: AttributeKind::Normal }
    );
    let narrow = VertexLayout { position: Attribute::new(0, 8), ..p };
    assert_eq!(
        err(&palette, &input, narrow, &mut out, p),
        Error::Stride { buffer: Buffer::VertexInput, attribute: AttributeKind::Position, stride: 8, min: 12 }
    );
    let tangents = VertexLayout { tangent: Some(Attribute::new(0, 12)), ..p };
    assert_eq!(
        err(&palette, &input, tangents, &mut out, tangents),
        Error::Stride { buffer: Buffer::VertexInput, attribute: AttributeKind::Tangent, stride: 12, min: 16 }
    );
    assert_eq!(
        err(&palette, &input, p, &mut out[..35], p),
        Error::VertexBufferTooShort {
            buffer: Buffer::VertexOutput,
            attribute: AttributeKind::Position,
            needed: Some(36),
            len: 35
        }
    );
    let huge = VertexLayout { position: Attribute::new(0, usize::MAX / 2), ..p };
    assert_eq!(
        err(&palette, &input, huge, &mut out, p),
        Error::VertexBufferTooShort {
            buffer: Buffer::VertexInput,
            attribute: AttributeKind::Position,
            needed: None,
            len: 36
        }
    );

    // Normals at byte 8 of 24-byte vertices would overwrite the position's z.
    let mut wide = vec![0u8; 72];
    let input_pn = vec![0u8; 72];
    let overlapping = VertexLayout { normal: Some(Attribute::new(8, 24)), ..VertexLayout::POSITIONS_NORMALS };
    assert_eq!(
        err(&palette, &input_pn, VertexLayout::POSITIONS_NORMALS, &mut wide, overlapping),
        Error::AttributeOverlap { first: AttributeKind::Position, second: AttributeKind::Normal }
    );
    // Normals at byte 24 of 24-byte vertices collide with the next vertex's position.
    let next_vertex = VertexLayout { normal: Some(Attribute::new(24, 24)), ..VertexLayout::POSITIONS_NORMALS };
    let mut wider = vec![0u8; 96];
    assert_eq!(
        err(&palette, &input_pn, VertexLayout::POSITIONS_NORMALS, &mut wider, next_vertex),
        Error::AttributeOverlap { first: AttributeKind::Position, second: AttributeKind::Normal }
    );
    // Different strides: packed positions then normals that start inside them.
    let packed_overlap = VertexLayout { normal: Some(Attribute::new(24, 16)), ..p };
    assert_eq!(
        err(&palette, &input_pn, VertexLayout::POSITIONS_NORMALS, &mut wider, packed_overlap),
        Error::AttributeOverlap { first: AttributeKind::Position, second: AttributeKind::Normal }
    );

    let mut nan_palette = palette;
    nan_palette[1].cols[3][0] = f32::NAN;
    assert_eq!(err(&nan_palette, &input, p, &mut out, p), Error::NonFinite { buffer: Buffer::VertexOutput, index: 1 });
    let mut nan_input = input.clone();
    put(&mut nan_input, 2 * 12 + 4, &[f32::INFINITY]);
    assert_eq!(err(&palette, &nan_input, p, &mut out, p), Error::NonFinite { buffer: Buffer::VertexOutput, index: 2 });
}

#[test]
fn accepted_layouts_touch_nothing_else() {
    // A 32-byte engine vertex: position, 4 bytes of colour, normal, then 4 bytes the job must not touch.
    let stride = 32;
    let layout =
        VertexLayout { position: Attribute::new(0, stride), normal: Some(Attribute::new(16, stride)), tangent: None };
    let n = 5;
    let mut input = vec![0u8; n * stride];
    for v in 0..n {
        put(&mut input, v * stride, &[v as f32, 1.0, 2.0]);
        put(&mut input, v * stride + 16, &[0.0, 1.0, 0.0]);
    }
    let mut output = vec![0xAB; n * stride];
    let table = Influences::new(1, &[0; 5], &[1.0; 5]).unwrap();
    let palette = [translation(10.0, 0.0, 0.0)];
    skin(&palette, &table, NormalMode::Rigid, &input, layout, &mut output, layout).unwrap();
    for v in 0..n {
        let base = v * stride;
        assert_eq!(get(&output, base, 3), [v as f32 + 10.0, 1.0, 2.0]);
        assert_eq!(get(&output, base + 16, 3), [0.0, 1.0, 0.0], "normals ignore translation");
        assert!(output[base + 12..base + 16].iter().chain(&output[base + 28..base + 32]).all(|&b| b == 0xAB));
    }
    // A single vertex may place the normal one stride away: nothing follows it.
    let far = VertexLayout { normal: Some(Attribute::new(24, 24)), ..VertexLayout::POSITIONS_NORMALS };
    let single = Influences::new(1, &[0], &[1.0]).unwrap();
    let mut out = vec![0u8; 36];
    let input_pn = vec![0u8; 24];
    skin(&palette, &single, NormalMode::Rigid, &input_pn, VertexLayout::POSITIONS_NORMALS, &mut out, far).unwrap();
    // No vertices: nothing to read or write, any buffers do.
    let empty = Influences::new(4, &[], &[]).unwrap();
    skin(&palette, &empty, NormalMode::Rigid, &[], VertexLayout::POSITIONS, &mut [], VertexLayout::POSITIONS).unwrap();
}

#[test]
fn hand_computed_blends() {
    let palette = [translation(2.0, 0.0, 0.0), translation(0.0, 4.0, 0.0), Mat4::IDENTITY];
    let input = positions(&[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [3.0, 0.0, 0.0]]);
    // Half of each translation; all of one; weights summing to zero collapse the vertex to the origin;
    // weights summing to two double it about the origin.
    let table = Influences::new(2, &[0, 1, 1, 0, 0, 1, 2, 2], &[0.5, 0.5, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]).unwrap();
    let mut out = vec![0u8; 48];
    let p = VertexLayout::POSITIONS;
    skin(&palette, &table, NormalMode::Rigid, &input, p, &mut out, p).unwrap();
    assert_eq!(get(&out, 0, 12), [2.0, 3.0, 1.0, 1.0, 5.0, 1.0, 0.0, 0.0, 0.0, 6.0, 0.0, 0.0]);
}

#[test]
fn tangent_handedness_is_copied() {
    let layout = VertexLayout { position: Attribute::new(0, 28), normal: None, tangent: Some(Attribute::new(12, 28)) };
    let mut input = vec![0u8; 56];
    put(&mut input, 12, &[1.0, 0.0, 0.0, -1.0]);
    put(&mut input, 28 + 12, &[0.0, 0.0, 1.0, 1.0]);
    let quarter = Transform {
        rotation: sinew::math::Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), core::f32::consts::FRAC_PI_2),
        ..Transform::IDENTITY
    };
    let palette = [quarter.to_mat4()];
    let table = Influences::new(1, &[0, 0], &[1.0, 1.0]).unwrap();
    let mut out = vec![0u8; 56];
    skin(&palette, &table, NormalMode::Rigid, &input, layout, &mut out, layout).unwrap();
    let t0 = get(&out, 12, 4);
    assert!((t0[0]).abs() < 1e-6 && (t0[1] - 1.0).abs() < 1e-6 && t0[3] == -1.0, "{t0:?}");
    assert_eq!(get(&out, 28 + 12, 4)[3], 1.0);
}

#[test]
fn normal_mode_for_palette() {
    let mut rng = Rng::new(5);
    let rigid: Vec<Mat4> = (0..8)
        .map(|_| {
            let s = rng.range(0.5, 2.0);
            Transform { scale: Vec3::new(s, s, s), ..rng.transform() }.to_mat4()
        })
        .collect();
    assert_eq!(NormalMode::for_palette(&rigid), NormalMode::Rigid);
    let mut stretched = rigid.clone();
    stretched[5] = Transform { scale: Vec3::new(1.0, 1.0, 1.5), ..rng.transform() }.to_mat4();
    assert_eq!(NormalMode::for_palette(&stretched), NormalMode::InverseTranspose);
    let mut sheared = rigid;
    sheared[2].cols[1][0] += 0.3;
    assert_eq!(NormalMode::for_palette(&sheared), NormalMode::InverseTranspose);
}

/// A random affine palette matrix: rotation × non-uniform scale (some mirrored), then a shear.
fn random_palette_matrix(rng: &mut Rng) -> Mat4 {
    let mut scale = rng.vec3(0.5, 2.0);
    if rng.below(4) == 0 {
        scale.y = -scale.y;
    }
    let mut m = Transform { translation: rng.vec3(-2.0, 2.0), rotation: rng.quat(), scale }.to_mat4();
    for c in 0..3 {
        for r in (0..3).filter(|&r| r != c) {
            m.cols[c][r] += rng.range(-0.3, 0.3);
        }
    }
    m
}

/// The f64 reference for one vertex: blended matrix, `M p`, `|det M| M^-T n`, `M t`.
fn oracle_vertex(palette: &[Mat4], js: &[u16], ws: &[f32], p: &[f32], n: &[f32], t: &[f32]) -> [[f64; 3]; 3] {
    let mut m = [[0.0f64; 4]; 3]; // rows
    for (&j, &w) in js.iter().zip(ws) {
        let wide = oracle::widen(&palette[j as usize]);
        for (r, row) in m.iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v += w as f64 * wide[c * 4 + r];
            }
        }
    }
    let apply = |v: &[f32], w: f64, rows: &[[f64; 4]; 3]| {
        let mut out = [0.0; 3];
        for (r, o) in out.iter_mut().enumerate() {
            *o = (0..3).map(|c| rows[r][c] * v[c] as f64).sum::<f64>() + rows[r][3] * w;
        }
        out
    };
    let linear = [0, 1, 2].map(|r| [m[r][0], m[r][1], m[r][2]]);
    let (inv, det) = oracle::inverse3(linear).expect("random palettes are invertible");
    let normal_rows = [0, 1, 2].map(|r| [inv[0][r] * det.abs(), inv[1][r] * det.abs(), inv[2][r] * det.abs(), 0.0]);
    [apply(p, 1.0, &m), apply(n, 0.0, &normal_rows), apply(t, 0.0, &m)]
}

#[test]
fn reference_random_vertices_all_influence_counts() {
    for count in 1..=6 {
        let num_vertices = if cfg!(miri) { 9 } else { 301 };
        let n = num_vertices;
        // Packed: three arrays back to back in one buffer. Interleaved: 44-byte vertices with a gap. Split: arrays
        // whose strides differ (normals padded to 16 bytes), so no stream can be addressed from another. Each
        // input is sized exactly (packed tangents end at 40·n, the others' at 44·n).
        let layouts = [
            ("packed", Attribute::new(0, 12), Attribute::new(12 * n, 12), Attribute::new(24 * n, 16), 40 * n),
            ("interleaved", Attribute::new(0, 44), Attribute::new(16, 44), Attribute::new(28, 44), 44 * n),
            ("split", Attribute::new(0, 12), Attribute::new(12 * n, 16), Attribute::new(28 * n, 16), 44 * n),
        ];
        for (index, (layout_name, position, normal, tangent, input_len)) in layouts.into_iter().enumerate() {
            let mut rng = Rng::new(900 + count as u64 * 3 + index as u64);
            let palette: Vec<Mat4> = (0..37).map(|_| random_palette_matrix(&mut rng)).collect();
            let joints: Vec<u16> = (0..num_vertices * count).map(|_| rng.below(palette.len()) as u16).collect();
            let mut weights: Vec<f32> = (0..num_vertices * count).map(|_| rng.unit()).collect();
            for w in weights.chunks_mut(count) {
                let sum: f32 = w.iter().sum();
                w.iter_mut().for_each(|x| *x /= sum);
            }
            // One influence: unit weights (packed, interleaved) skip the scale; the split layout's weights in
            // 0..2 take it.
            if count == 1 && layout_name == "split" {
                weights.iter_mut().for_each(|w| *w = 2.0 * rng.unit());
            }
            let table = Influences::new(count, &joints, &weights).unwrap();
            let full = VertexLayout { position, normal: Some(normal), tangent: Some(tangent) };
            let bytes = 44 * num_vertices;
            let mut input = vec![0u8; bytes];
            let mut attrs = Vec::new();
            for v in 0..num_vertices {
                let (p, n, t) = (rng.vec3(-1.0, 1.0), rng.vec3(-1.0, 1.0), rng.vec3(-1.0, 1.0));
                let (p, n, t) = (p.to_array(), n.to_array(), [t.x, t.y, t.z, 1.0]);
                put(&mut input, position.offset + v * position.stride, &p);
                put(&mut input, normal.offset + v * normal.stride, &n);
                put(&mut input, tangent.offset + v * tangent.stride, &t);
                attrs.push((p, n, t));
            }
            // Without tangents, positions alone and with rigid normals take the x86-64-v3 loop where it is built.
            let without_tangents = VertexLayout { tangent: None, ..full };
            let positions = VertexLayout { normal: None, ..without_tangents };
            for (mode, layout) in [
                (NormalMode::InverseTranspose, full),
                (NormalMode::Rigid, full),
                (NormalMode::Rigid, without_tangents),
                (NormalMode::Rigid, positions),
            ] {
                let mut output = vec![0u8; bytes];
                // The input is sized exactly: the last elements sit at the buffer's end.
                let input = &input[..input_len];
                skin(&palette, &table, mode, input, layout, &mut output, layout).unwrap();
                for (v, (p, n, t)) in attrs.iter().enumerate() {
                    let js = &joints[v * count..][..count];
                    let ws = &weights[v * count..][..count];
                    let [want_p, want_n, want_t] = oracle_vertex(&palette, js, ws, p, n, t);
                    let read = |a: Attribute| get(&output, a.offset + v * a.stride, 3);
                    let want_n = if mode == NormalMode::Rigid {
                        oracle_vertex_rigid_normal(&palette, js, ws, n)
                    } else {
                        want_n
                    };
                    let mut checks = vec![("position", read(layout.position), want_p)];
                    if let Some(normal) = layout.normal {
                        checks.push(("normal", read(normal), want_n));
                    }
                    if let Some(tangent) = layout.tangent {
                        checks.push(("tangent", read(tangent), want_t));
                    }
                    for (name, got, want) in checks {
                        let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
                        for c in 0..3 {
                            let err = (got[c] as f64 - want[c]).abs() / scale;
                            assert!(
                                err < 4e-6,
                                "{layout_name} count {count} {mode:?} v{v} {name}: {got:?} vs {want:?}"
                            );
                        }
                    }
                    if let Some(tangent) = layout.tangent {
                        assert_eq!(get(&output, tangent.offset + v * tangent.stride + 12, 1)[0], 1.0);
                    }
                }
            }
        }
    }
}

/// The rigid-mode normal: the blended matrix's linear part applied to `n`.
fn oracle_vertex_rigid_normal(palette: &[Mat4], js: &[u16], ws: &[f32], n: &[f32]) -> [f64; 3] {
    let mut out = [0.0f64; 3];
    for (&j, &w) in js.iter().zip(ws) {
        let m = oracle::widen(&palette[j as usize]);
        for (r, o) in out.iter_mut().enumerate() {
            *o += w as f64 * (0..3).map(|c| m[c * 4 + r] * n[c] as f64).sum::<f64>();
        }
    }
    out
}

#[test]
fn inverse_transpose_keeps_normals_perpendicular_under_shear() {
    // A plane's normal must stay perpendicular to the plane's skinned tangent directions.
    let mut rng = Rng::new(77);
    for _ in 0..50 {
        let palette = [random_palette_matrix(&mut rng), random_palette_matrix(&mut rng)];
        let w = rng.unit();
        let weights = [w, 1.0 - w];
        let table = Influences::new(2, &[0, 1], &weights).unwrap();
        let layout = VertexLayout {
            position: Attribute::new(0, 44),
            normal: Some(Attribute::new(12, 44)),
            tangent: Some(Attribute::new(24, 44)),
        };
        let mut input = vec![0u8; 44];
        let (u, n) = (rng.vec3(-1.0, 1.0), rng.vec3(-1.0, 1.0));
        // Make the tangent perpendicular to the normal.
        let nn = n.x * n.x + n.y * n.y + n.z * n.z;
        let d = (u.x * n.x + u.y * n.y + u.z * n.z) / nn;
        let t = [u.x - d * n.x, u.y - d * n.y, u.z - d * n.z, 1.0];
        put(&mut input, 12, &n.to_array());
        put(&mut input, 24, &t);
        let mut out = vec![0u8; 44];
        skin(&palette, &table, NormalMode::InverseTranspose, &input, layout, &mut out, layout).unwrap();
        let (n_out, t_out) = (get(&out, 12, 3), get(&out, 24, 3));
        let dot: f32 = n_out.iter().zip(&t_out).map(|(a, b)| a * b).sum();
        let len = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!(dot.abs() <= 1e-5 * len(&n_out) * len(&t_out), "{dot} {n_out:?} {t_out:?}");
    }
}

/// The loops read a position or normal as 16 bytes where the buffer has them, and the last vertices (whose
/// four bytes past the element lie beyond the buffer) as 12, by another loop. Both agree to rounding (the
/// x86-64-v3 loop sums in another order than the portable one), and the four bytes after an element (here NaN,
/// or the next vertex's data) never reach the output.
#[test]
fn whole_register_reads_match_the_tail_and_ignore_the_next_bytes() {
    let mut rng = Rng::new(77);
    let palette: Vec<Mat4> = (0..23).map(|_| random_palette_matrix(&mut rng)).collect();
    let n = if cfg!(miri) { 5 } else { 64 };
    for count in 1..=5 {
        let joints: Vec<u16> = (0..n * count).map(|_| rng.below(palette.len()) as u16).collect();
        let weights: Vec<f32> = (0..n * count).map(|_| rng.unit() / count as f32).collect();
        let table = Influences::new(count, &joints, &weights).unwrap();
        // Split: packed positions, then normals with a 4-byte NaN gap after each.
        let split =
            VertexLayout { position: Attribute::new(0, 12), normal: Some(Attribute::new(12 * n, 16)), tangent: None };
        let exact = 28 * n - 4;
        let mut input = vec![0u8; 28 * n + 64];
        for v in 0..n {
            put(&mut input, 12 * v, &rng.vec3(-1.0, 1.0).to_array());
            put(&mut input, 12 * n + 16 * v, &rng.vec3(-1.0, 1.0).to_array());
            put(&mut input, 12 * n + 16 * v + 12, &[f32::NAN]);
        }
        for layout in [split, VertexLayout { normal: None, ..split }] {
            for mode in [NormalMode::Rigid, NormalMode::InverseTranspose] {
                let run = |input: &[u8]| {
                    let mut output = vec![0u8; 28 * n];
                    skin(&palette, &table, mode, input, layout, &mut output, layout).unwrap();
                    output
                };
                // Exactly sized, the last vertices take 12-byte reads; padded, every vertex takes 16.
                let (tail, whole) = (run(&input[..exact]), run(&input));
                let (tail, whole) = (get(&tail, 0, 7 * n), get(&whole, 0, 7 * n));
                for (i, (a, b)) in tail.iter().zip(&whole).enumerate() {
                    assert!(
                        a.is_finite() && (a - b).abs() <= 1e-6 * a.abs().max(1.0),
                        "count {count} {mode:?} normals {} float {i}: {a} vs {b}",
                        layout.normal.is_some()
                    );
                }
            }
        }
    }
}
