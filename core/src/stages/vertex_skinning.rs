//! CPU vertex skinning: linear blend skinning of positions, normals and tangents by a `Mat4` palette.
//!
//! Each vertex blends its influences' matrices, `M = sum_k w_k * palette[j_k]`, then transforms its
//! attributes by `M`. Blending the matrix first (48 multiply-adds for four influences) costs less than
//! transforming the vertex by each matrix and blending the results.
//!
//! Layout: vertex attributes live in byte buffers (`&[u8]` in, `&mut [u8]` out) at any byte offset and stride,
//! so interleaved engine vertex buffers and packed arrays both work, and several attributes may share one
//! buffer. Positions and normals are three native-endian `f32`; tangents are four (`xyz`, then the handedness
//! `w`, copied unchanged, as glTF stores them). No alignment is required. Influences are packed: vertex `v`
//! reads `joints[v * count + k]` and `weights[v * count + k]`, `k < count`.
//!
//! Space: the palette maps bind-pose model space to current model space (see [`crate::stages::skinning`]); inputs are
//! bind-pose mesh attributes, outputs current model-space attributes.
//!
//! Normals: [`NormalMode::Rigid`] transforms normals by the blended matrix itself, which is right when every
//! palette matrix is a rotation with uniform scale. [`NormalMode::InverseTranspose`] transforms them by the
//! blended matrix's cofactor with the sign of its determinant, `sign(det M) * cof(M) = |det M| * M^-T`: the
//! inverse-transpose direction, exact under non-uniform scale and shear, with no division, so a zero-scale
//! joint gives a zero normal instead of NaN. [`NormalMode::for_palette`] picks between them. Neither mode
//! renormalizes: rigid normals scale with the joints' uniform scale, inverse-transpose normals by `|det M|`.
//! Tangents always use the blended matrix (they lie in the surface).
//!
//! Weights are used as given (importers normalize them to sum 1); a vertex whose weights sum to `s` comes
//! out scaled by `s` about the origin.
//!
//! Errors: layouts, lengths and index ranges are checked in `run` before anything is written (the influence
//! table's checks happen once, in [`Influences::new`]); non-finite results are caught by a fused check on the
//! output, whose `Err` names the first such vertex (the output may then be partly written).
//!
//! Precision: each output component is at most 4 × count + 3 multiply-adds of the inputs, no estimates.

use crate::error::{Buffer, Error};
use crate::math::{F4, Mat4};

/// Bytes of a position or normal: three `f32`.
pub const VEC3_BYTES: usize = 12;
/// Bytes of a tangent: four `f32` (`w` is the bitangent sign).
pub const TANGENT_BYTES: usize = 16;

pub use crate::error::AttributeKind;

impl AttributeKind {
    /// Bytes of one element.
    pub const fn bytes(self) -> usize {
        match self {
            AttributeKind::Position | AttributeKind::Normal => VEC3_BYTES,
            AttributeKind::Tangent => TANGENT_BYTES,
        }
    }
}

/// Where one attribute lives in a byte buffer: vertex `v` starts at `offset + v * stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// Byte offset of the first element in the buffer.
    pub offset: usize,
    /// Bytes from one vertex's element to the next.
    pub stride: usize,
}

impl Attribute {
    /// An attribute at `offset`, vertices `stride` bytes apart.
    pub const fn new(offset: usize, stride: usize) -> Attribute {
        Attribute { offset, stride }
    }
}

/// The attributes of one vertex buffer. Positions are required; normals and tangents are skinned when present
/// in both the input and the output layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexLayout {
    /// Positions (three `f32`).
    pub position: Attribute,
    /// Normals (three `f32`), if any.
    pub normal: Option<Attribute>,
    /// Tangents (four `f32`, `w` the handedness), if any.
    pub tangent: Option<Attribute>,
}

impl VertexLayout {
    /// Positions only, packed (`stride` 12) from byte 0.
    pub const POSITIONS: VertexLayout =
        VertexLayout { position: Attribute::new(0, VEC3_BYTES), normal: None, tangent: None };

    /// Interleaved position then normal (24-byte vertices).
    pub const POSITIONS_NORMALS: VertexLayout = VertexLayout {
        position: Attribute::new(0, 2 * VEC3_BYTES),
        normal: Some(Attribute::new(VEC3_BYTES, 2 * VEC3_BYTES)),
        tangent: None,
    };

    fn attributes(&self) -> [(AttributeKind, Option<Attribute>); 3] {
        [
            (AttributeKind::Position, Some(self.position)),
            (AttributeKind::Normal, self.normal),
            (AttributeKind::Tangent, self.tangent),
        ]
    }
}

/// How normals are transformed (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NormalMode {
    /// By the blended matrix: for palettes of rotations with uniform scale.
    Rigid,
    /// By `sign(det M) * cof(M)`, the inverse-transpose direction: for any palette.
    InverseTranspose,
}

impl NormalMode {
    /// Relative tolerance of [`NormalMode::for_palette`]'s test for rotation with uniform scale.
    pub const RIGID_TOLERANCE: f32 = 1e-4;

    /// `Rigid` when every matrix's upper 3×3 has orthogonal columns of equal length (within
    /// `RIGID_TOLERANCE` of the squared column length), else `InverseTranspose`. Run it when a palette's
    /// kind of scale changes, not per frame: it reads every matrix.
    pub fn for_palette(palette: &[Mat4]) -> NormalMode {
        let rigid = |m: &Mat4| {
            let c = |i: usize| Vec3f::from(&m.cols[i]);
            let (a, b, d) = (c(0), c(1), c(2));
            let len_sq = a.dot(a);
            let tol = NormalMode::RIGID_TOLERANCE * len_sq;
            (b.dot(b) - len_sq).abs() <= tol
                && (d.dot(d) - len_sq).abs() <= tol
                && a.dot(b).abs() <= tol
                && a.dot(d).abs() <= tol
                && b.dot(d).abs() <= tol
        };
        if palette.iter().all(rigid) { NormalMode::Rigid } else { NormalMode::InverseTranspose }
    }
}

/// Three scalars for the palette test above (the kernels work in `F4`).
#[derive(Clone, Copy)]
struct Vec3f([f32; 3]);

impl Vec3f {
    fn from(col: &[f32; 4]) -> Vec3f {
        Vec3f([col[0], col[1], col[2]])
    }
    fn dot(self, o: Vec3f) -> f32 {
        self.0[0] * o.0[0] + self.0[1] * o.0[1] + self.0[2] * o.0[2]
    }
}

/// A validated influence table: `count` joint indices and weights per vertex, packed.
#[derive(Clone, Copy, Debug)]
pub struct Influences<'a> {
    count: usize,
    joints: &'a [u16],
    weights: &'a [f32],
    max_joint: u16,
    /// One influence per vertex, every weight exactly 1: the loops skip the weight.
    unit_weights: bool,
}

impl<'a> Influences<'a> {
    /// Checks the table once, at load time.
    ///
    /// Errors: `InfluenceCount` when `count` is 0; `BufferLength` (`InfluenceWeights`) unless both slices
    /// have the same length, (`InfluenceJoints`) unless it is a multiple of `count`; `InvalidInfluenceWeight`
    /// for the first vertex with a NaN, infinite or negative weight.
    ///
    /// A one-influence table whose weights are all exactly 1 (rigid binding, as importers write it) is noted
    /// here, so that skinning skips the multiply by the weight (which would not change a bit).
    pub fn new(count: usize, joints: &'a [u16], weights: &'a [f32]) -> Result<Influences<'a>, Error> {
        if count == 0 {
            return Err(Error::InfluenceCount { count });
        }
        crate::error::check_len(Buffer::InfluenceWeights, joints.len(), weights.len())?;
        let whole = joints.len() / count * count;
        crate::error::check_len(Buffer::InfluenceJoints, whole, joints.len())?;
        if let Some(i) = weights.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err(Error::InvalidInfluenceWeight { vertex: i / count });
        }
        let max_joint = joints.iter().copied().max().unwrap_or(0);
        let unit_weights = count == 1 && weights.iter().all(|&w| w == 1.0);
        Ok(Influences { count, joints, weights, max_joint, unit_weights })
    }

    /// Influences per vertex.
    #[inline]
    pub fn count(&self) -> usize {
        self.count
    }

    /// Vertices in the table.
    #[inline]
    pub fn num_vertices(&self) -> usize {
        self.joints.len() / self.count
    }

    /// The largest joint index: a palette needs more entries than this.
    #[inline]
    pub fn max_joint(&self) -> u16 {
        self.max_joint
    }
}

/// Skins every vertex of `influences` from `input` into `output`.
#[derive(Debug)]
pub struct VertexSkinningJob<'a> {
    /// Skinning matrices (see [`crate::SkinningJob`]), indexed by the influence joint indices.
    pub palette: &'a [Mat4],
    /// Per vertex, its joints and weights.
    pub influences: &'a Influences<'a>,
    /// How normals are transformed.
    pub normal_mode: NormalMode,
    /// The vertex bytes read.
    pub input: &'a [u8],
    /// Where each attribute is in `input`.
    pub input_layout: VertexLayout,
    /// The vertex bytes written.
    pub output: &'a mut [u8],
    /// Where each attribute goes in `output`.
    pub output_layout: VertexLayout,
}

impl VertexSkinningJob<'_> {
    /// Checks everything `run` relies on; writes nothing.
    ///
    /// Errors: `InfluenceOutOfRange` (first vertex reading a joint `>= palette.len()`); `AttributeMismatch`
    /// when normals or tangents are in one layout but not the other; `Stride` for a stride below the element
    /// size; `VertexBufferTooShort` when an attribute's last vertex ends past its buffer; `AttributeOverlap`
    /// when two output attributes would write the same bytes.
    pub fn validate(&self) -> Result<(), Error> {
        let n = self.influences.num_vertices();
        if n > 0 && self.influences.max_joint as usize >= self.palette.len() {
            return Err(self.first_out_of_range());
        }
        let pairs = self.input_layout.attributes().into_iter().zip(self.output_layout.attributes());
        for ((kind, input), (_, output)) in pairs {
            match (input, output) {
                (Some(i), Some(o)) => {
                    check_attribute(Buffer::VertexInput, kind, i, n, self.input.len())?;
                    check_attribute(Buffer::VertexOutput, kind, o, n, self.output.len())?;
                }
                (None, None) => {}
                _ => return Err(Error::AttributeMismatch { attribute: kind }),
            }
        }
        let written = self.output_layout.attributes();
        for (a, (kind_a, attr_a)) in written.iter().enumerate() {
            for (kind_b, attr_b) in &written[a + 1..] {
                if let (Some(x), Some(y)) = (attr_a, attr_b)
                    && overlap(*x, kind_a.bytes(), *y, kind_b.bytes(), n)
                {
                    return Err(Error::AttributeOverlap { first: *kind_a, second: *kind_b });
                }
            }
        }
        Ok(())
    }

    #[cold]
    fn first_out_of_range(&self) -> Error {
        let count = self.influences.count;
        let palette_len = self.palette.len();
        let (i, &joint) = self
            .influences
            .joints
            .iter()
            .enumerate()
            .find(|&(_, &j)| j as usize >= palette_len)
            .unwrap_or((0, &self.influences.max_joint));
        Error::InfluenceOutOfRange { vertex: i / count, joint, palette_len }
    }

    /// Validates, then skins. Influence counts 1 to 4 run unrolled loops; larger counts a general one.
    ///
    /// Errors: as [`VertexSkinningJob::validate`]; `NonFinite` (`VertexOutput`, vertex) for the first vertex
    /// whose output holds NaN or infinity.
    pub fn run(&mut self) -> Result<(), Error> {
        self.validate()?;
        let streams = Streams::new(self);
        let (palette, influences) = (self.palette, self.influences);
        let (start, wide_sum) = wide_prefix(self, &streams);
        let sum = wide_sum
            + match influences.count {
                1 if influences.unit_weights => skin_attributes::<1, true>(palette, influences, &streams, start),
                1 => skin_attributes::<1, false>(palette, influences, &streams, start),
                2 => skin_attributes::<2, false>(palette, influences, &streams, start),
                3 => skin_attributes::<3, false>(palette, influences, &streams, start),
                4 => skin_attributes::<4, false>(palette, influences, &streams, start),
                _ => skin_attributes::<0, false>(palette, influences, &streams, start),
            };
        if sum.non_finite_mask().any_set() { self.first_non_finite(&streams) } else { Ok(()) }
    }

    #[cold]
    fn first_non_finite(&self, streams: &Streams) -> Result<(), Error> {
        for v in 0..self.influences.num_vertices() {
            for attr in streams.outputs() {
                let bytes = &self.output[attr.offset + v * attr.stride..][..VEC3_BYTES];
                if bytes.chunks_exact(4).any(|c| !f32::from_ne_bytes([c[0], c[1], c[2], c[3]]).is_finite()) {
                    return Err(Error::NonFinite { buffer: Buffer::VertexOutput, index: v });
                }
            }
        }
        // The fused sum overflowed on finite outputs: they are what the inputs give.
        Ok(())
    }
}

/// `Stride` below the element size, or `VertexBufferTooShort` past the buffer's end (checked arithmetic).
fn check_attribute(buffer: Buffer, kind: AttributeKind, a: Attribute, n: usize, len: usize) -> Result<(), Error> {
    let bytes = kind.bytes();
    if a.stride < bytes {
        return Err(Error::Stride { buffer, attribute: kind, stride: a.stride, min: bytes });
    }
    if n == 0 {
        return Ok(());
    }
    let end = (n - 1).checked_mul(a.stride).and_then(|s| s.checked_add(a.offset)).and_then(|s| s.checked_add(bytes));
    match end {
        Some(end) if end <= len => Ok(()),
        _ => Err(Error::VertexBufferTooShort { buffer, attribute: kind, needed: end, len }),
    }
}

/// Whether two attributes of `n` vertices share a byte. With equal strides (interleaved attributes) this is
/// exact; with different strides the attributes' whole spans must be disjoint.
fn overlap(a: Attribute, a_bytes: usize, b: Attribute, b_bytes: usize, n: usize) -> bool {
    if n == 0 {
        return false;
    }
    if a.stride == b.stride {
        // Element i of `a` and element j of `b` intersect when -b_bytes < diff + m * stride < a_bytes with
        // m = j - i in -(n-1)..=n-1: take the smallest m above the lower bound and test the upper one.
        let (s, n) = (a.stride as i128, n as i128);
        let diff = b.offset as i128 - a.offset as i128;
        let m = ((-(b_bytes as i128) - diff).div_euclid(s) + 1).max(1 - n);
        return m < n && diff + m * s < a_bytes as i128;
    }
    // Spans end within the buffers `check_attribute` accepted, so these sums do not overflow.
    let end = |x: Attribute, bytes: usize| x.offset + (n - 1) * x.stride + bytes;
    a.offset < end(b, b_bytes) && b.offset < end(a, a_bytes)
}

/// The loops every target runs.
mod portable;
use portable::{Attributes, skin_attributes};

avx2_kernels! {
    if {
        /// The x86-64-v3 loop, a blended matrix in two registers, where it applies.
        mod avx2;

        /// Skins the longest prefix of vertices the x86-64-v3 loop can take (positions and rigid normals,
        /// 1–4 influences, 16-byte reads in bounds); returns where the portable loop continues and the
        /// prefix's lane sum.
        fn wide_prefix(job: &VertexSkinningJob, s: &Streams) -> (usize, F4) {
            let (palette, influences) = (job.palette, job.influences);
            if s.attributes.inverse_transpose || s.attributes.tangent {
                return (0, F4::ZERO);
            }
            let end = s.read_end.min(influences.num_vertices());
            let (j, w) = (influences.joints, influences.weights);
            // SAFETY: `validate` checked every element's bounds, disjoint outputs and joint indices;
            // `Streams::read_end` bounds the 16-byte reads.
            let sum = unsafe {
                match influences.count {
                    1 if influences.unit_weights => avx2::skin_vertices::<1, true>(palette, j, w, s, end),
                    1 => avx2::skin_vertices::<1, false>(palette, j, w, s, end),
                    2 => avx2::skin_vertices::<2, false>(palette, j, w, s, end),
                    3 => avx2::skin_vertices::<3, false>(palette, j, w, s, end),
                    4 => avx2::skin_vertices::<4, false>(palette, j, w, s, end),
                    _ => return (0, F4::ZERO),
                }
            };
            (end, sum)
        }
    } else {
        /// Other targets have no separate loop: the portable loop takes every vertex.
        fn wide_prefix(_: &VertexSkinningJob, _: &Streams) -> (usize, F4) {
            (0, F4::ZERO)
        }
    }
}

/// Raw pointers and strides of the validated attributes, read in the hot loop without bounds checks.
struct Streams {
    src: [*const u8; 3],
    dst: [*mut u8; 3],
    src_stride: [usize; 3],
    dst_stride: [usize; 3],
    attributes: Attributes,
    output: [Option<Attribute>; 3],
    /// Vertices `0..read_end` have 16 readable input bytes at their position and normal (a tangent is 16
    /// bytes), so the loops may read them as whole registers; lane 3 is then never used.
    read_end: usize,
}

impl Streams {
    fn new(job: &mut VertexSkinningJob) -> Streams {
        let (i, o) = (job.input_layout, job.output_layout);
        let in_attr = [Some(i.position), i.normal, i.tangent];
        let out_attr = [Some(o.position), o.normal, o.tangent];
        let base_in = job.input.as_ptr();
        let base_out = job.output.as_mut_ptr();
        // Absent attributes keep the position's pointer; the kernels never read or write them.
        let pick = |a: Option<Attribute>| a.unwrap_or(i.position);
        let pick_out = |a: Option<Attribute>| a.unwrap_or(o.position);
        Streams {
            src: in_attr.map(|a| base_in.wrapping_add(pick(a).offset)),
            dst: out_attr.map(|a| base_out.wrapping_add(pick_out(a).offset)),
            src_stride: in_attr.map(|a| pick(a).stride),
            dst_stride: out_attr.map(|a| pick_out(a).stride),
            attributes: Attributes {
                normal: i.normal.is_some(),
                tangent: i.tangent.is_some(),
                inverse_transpose: i.normal.is_some() && job.normal_mode == NormalMode::InverseTranspose,
            },
            output: out_attr,
            read_end: [Some(i.position), i.normal]
                .into_iter()
                .flatten()
                .map(|a| match job.input.len().checked_sub(a.offset + 16) {
                    Some(room) => room / a.stride + 1,
                    None => 0,
                })
                .min()
                .unwrap_or(0),
        }
    }

    /// The output attributes present. Only their first three `f32` are computed (a tangent's `w` is copied).
    fn outputs(&self) -> impl Iterator<Item = Attribute> + '_ {
        self.output.iter().flatten().copied()
    }
}

/// Bytes the influence table of `num_vertices` vertices with `count` influences takes (joints and weights).
pub const fn influence_bytes(num_vertices: usize, count: usize) -> usize {
    num_vertices * count * (core::mem::size_of::<u16>() + core::mem::size_of::<f32>())
}
