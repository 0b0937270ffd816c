//! The loops for SSE2, NEON and the scalar build (and the vertices the x86-64-v3 loop leaves): one blended
//! matrix per vertex from 1–4 unrolled influences (or a counted loop for more), positions, normals (rigid or
//! inverse-transpose) and tangents through it, reading through raw pointers `validate` made safe.

use super::{Influences, Streams, VEC3_BYTES};
use crate::math::{F4, Mat4};

/// `(x, y, z, _)` at `p`: one 16-byte load when `WHOLE` (lane 3 is the next four bytes, never used), else
/// three 4-byte reads and lane 3 zero.
///
/// SAFETY: `p` must point to 16 readable bytes when `WHOLE`, else 12.
#[inline(always)]
unsafe fn read_vec3<const WHOLE: bool>(p: *const u8) -> F4 {
    // SAFETY: the caller guarantees the bytes; `read_unaligned` needs no alignment.
    unsafe {
        if WHOLE {
            F4::from_array(p.cast::<[f32; 4]>().read_unaligned())
        } else {
            let [x, y, z] = p.cast::<[f32; 3]>().read_unaligned();
            F4::new(x, y, z, 0.0)
        }
    }
}

/// Writes lanes 0..3 of `v` to 12 bytes at `p`.
///
/// SAFETY: `p` must point to 12 writable bytes.
#[inline(always)]
unsafe fn write_vec3(p: *mut u8, v: F4) {
    let [x, y, _, _] = v.to_array();
    // `z` by a broadcast: SSE2 otherwise copies the register to move its upper half down (four instructions
    // per store instead of three).
    let z = v.broadcast::<2>().lane::<0>();
    // SAFETY: the caller guarantees 12 writable bytes; `write_unaligned` needs no alignment.
    unsafe {
        p.cast::<[f32; 2]>().write_unaligned([x, y]);
        p.add(8).cast::<f32>().write_unaligned(z);
    }
}

/// `x * c0 + y * c1 + z * c2` for `v = (x, y, z, _)`.
#[inline(always)]
fn rotate(cols: &[F4; 4], v: F4) -> F4 {
    cols[2].mul_add(v.broadcast::<2>(), cols[1].mul_add(v.broadcast::<1>(), cols[0] * v.broadcast::<0>()))
}

/// `a × b` on lanes 0..3 (lane 3 is 0 when both inputs' lane 3 is finite).
#[inline(always)]
fn cross(a: F4, b: F4) -> F4 {
    let [ax, ay, az, _] = a.to_array();
    let [bx, by, bz, _] = b.to_array();
    let yzx = |x: f32, y: f32, z: f32| F4::new(y, z, x, 0.0);
    let zxy = |x: f32, y: f32, z: f32| F4::new(z, x, y, 0.0);
    yzx(ax, ay, az) * zxy(bx, by, bz) - zxy(ax, ay, az) * yzx(bx, by, bz)
}

/// `sign(det M) * cof(M) * n`: the columns of `cof(M)` are `c1 × c2`, `c2 × c0`, `c0 × c1`.
#[inline(always)]
fn inverse_transpose_normal(cols: &[F4; 4], n: F4) -> F4 {
    let cofactor = [cross(cols[1], cols[2]), cross(cols[2], cols[0]), cross(cols[0], cols[1]), F4::ZERO];
    let out = rotate(&cofactor, n);
    let x = cofactor[0];
    // det M = c0 · (c1 × c2): the sign of lane sum of c0 * x.
    let [a, b, c, _] = (cols[0] * x).to_array();
    if a + b + c < 0.0 { -out } else { out }
}

/// Which attributes a loop writes besides positions, and how normals transform (`inverse_transpose` only
/// with normals present).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Attributes {
    pub(super) normal: bool,
    pub(super) tangent: bool,
    pub(super) inverse_transpose: bool,
}

/// [`skin`] over vertices `start..`: up to [`Streams::read_end`] with whole-register reads and the attribute
/// sets without tangents fixed at compile time (positions alone, and positions with rigid or inverse-transpose
/// normals: no per-vertex flag tests and no dead tangent pointers; SSE2 kept the flags and strides on the
/// stack), then the few vertices left by one general loop.
#[inline(always)]
pub(super) fn skin_attributes<const K: usize, const UNIT: bool>(
    palette: &[Mat4],
    influences: &Influences,
    s: &Streams,
    start: usize,
) -> F4 {
    const POSITIONS: Attributes = Attributes { normal: false, tangent: false, inverse_transpose: false };
    const RIGID_NORMALS: Attributes = Attributes { normal: true, tangent: false, inverse_transpose: false };
    const COFACTOR_NORMALS: Attributes = Attributes { normal: true, tangent: false, inverse_transpose: true };
    let end = influences.num_vertices();
    let whole = start..s.read_end.clamp(start, end);
    let tail = whole.end..end;
    let sum = match s.attributes {
        POSITIONS => skin::<K, true, UNIT>(palette, influences, POSITIONS, s, whole),
        RIGID_NORMALS => skin::<K, true, UNIT>(palette, influences, RIGID_NORMALS, s, whole),
        COFACTOR_NORMALS => skin::<K, true, UNIT>(palette, influences, COFACTOR_NORMALS, s, whole),
        other => skin::<K, true, UNIT>(palette, influences, other, s, whole),
    };
    sum + skin::<0, false, false>(palette, influences, s.attributes, s, tail)
}

/// The loop over `vertices`. `K` is the influence count for 1..=4 (unrolled blends); `K = 0` reads the count
/// from the table. `WHOLE` reads positions and normals as 16 bytes (the vertices must lie below
/// [`Streams::read_end`]) and four weights as one register, whose lanes are then broadcast in registers
/// rather than loaded one by one (SSE2, four influences with normals: 90 instructions per vertex instead of 97).
/// One influence transforms by the joint's matrix and scales the results by the weight (one multiply per
/// attribute instead of four for the matrix), or not at all when `UNIT` (every weight is 1).
/// Returns the lane sum of every value written, for the fused finite check.
#[inline(always)]
fn skin<const K: usize, const WHOLE: bool, const UNIT: bool>(
    palette: &[Mat4],
    influences: &Influences,
    a: Attributes,
    s: &Streams,
    vertices: core::ops::Range<usize>,
) -> F4 {
    let count = if K == 0 { influences.count } else { K };
    let (joints, weights) = (influences.joints.as_ptr(), influences.weights.as_ptr());
    let mut sum = F4::ZERO;
    // A plain index loop: iterator adaptors over run-time-sized chunks kept their state on the stack (SSE2:
    // about 30 loads and stores of bookkeeping per vertex).
    for v in vertices {
        // SAFETY: `Influences::new` checked that the tables hold `count` entries per vertex and `validate` that
        // every joint index is below `palette.len()`; every present attribute's element `v < num_vertices`
        // lies inside its buffer and output attributes do not overlap; absent attributes are not touched;
        // `WHOLE` loops run below `read_end` (16 readable bytes per position and normal).
        // Raw reads drop the bounds checks LLVM could not prove away (five compares per vertex on SSE2).
        unsafe {
            let (js, ws) = (joints.add(v * count), weights.add(v * count));
            // Four weights are exactly one vertex's 16 bytes.
            let four = if K == 4 { F4::from_array(ws.cast::<[f32; 4]>().read_unaligned()) } else { F4::ZERO };
            let weight = |k: usize| match (K, k) {
                (4, 0) => four.broadcast::<0>(),
                (4, 1) => four.broadcast::<1>(),
                (4, 2) => four.broadcast::<2>(),
                (4, _) => four.broadcast::<3>(),
                _ => F4::splat(*ws.add(k)),
            };
            let blend = |k: usize, acc: Option<[F4; 4]>| {
                let m = (*palette.as_ptr().add(*js.add(k) as usize)).load_cols();
                let w = weight(k);
                match acc {
                    None if count == 1 => m,
                    None => m.map(|c| c * w),
                    Some(a) => [0, 1, 2, 3].map(|i| m[i].mul_add(w, a[i])),
                }
            };
            if K >= 2 && !a.normal && !a.tangent {
                // Positions alone: transform by each influence's matrix, then blend the points.
                let p = read_vec3::<WHOLE>(s.src[0].add(v * s.src_stride[0]));
                let mut acc = F4::ZERO;
                for k in 0..count {
                    let m = (*palette.as_ptr().add(*js.add(k) as usize)).load_cols();
                    let t = rotate(&m, p) + m[3];
                    acc = if k == 0 { t * weight(k) } else { t.mul_add(weight(k), acc) };
                }
                write_vec3(s.dst[0].add(v * s.dst_stride[0]), acc);
                sum = sum + acc;
                continue;
            }
            let mut cols = blend(0, None);
            for k in 1..count {
                cols = blend(k, Some(cols));
            }
            // The one-influence scale: `w M x = w (M x)`, and the cofactor of `w M` is `w² cof(M)` (w >= 0).
            let scale = if count == 1 && !UNIT { weight(0) } else { F4::ONE };
            let weighted = |x: F4| if count == 1 && !UNIT { x * scale } else { x };
            let p = read_vec3::<WHOLE>(s.src[0].add(v * s.src_stride[0]));
            let p_out = weighted(rotate(&cols, p) + cols[3]);
            write_vec3(s.dst[0].add(v * s.dst_stride[0]), p_out);
            let mut written = p_out;
            if a.normal {
                let n = read_vec3::<WHOLE>(s.src[1].add(v * s.src_stride[1]));
                let n_out = if a.inverse_transpose {
                    weighted(weighted(inverse_transpose_normal(&cols, n)))
                } else {
                    weighted(rotate(&cols, n))
                };
                write_vec3(s.dst[1].add(v * s.dst_stride[1]), n_out);
                written = written + n_out;
            }
            if a.tangent {
                // A tangent is 16 bytes: its whole read is always in bounds.
                let src = s.src[2].add(v * s.src_stride[2]);
                let t_out = weighted(rotate(&cols, read_vec3::<true>(src)));
                let dst = s.dst[2].add(v * s.dst_stride[2]);
                write_vec3(dst, t_out);
                // The handedness sign is copied bit for bit.
                dst.add(VEC3_BYTES)
                    .cast::<[u8; 4]>()
                    .write_unaligned(src.add(VEC3_BYTES).cast::<[u8; 4]>().read_unaligned());
                written = written + t_out;
            }
            sum = sum + written;
        }
    }
    sum
}
