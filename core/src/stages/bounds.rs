//! Bounds: each joint's bounding box carried to model space by the joint's model matrix, and their union, the
//! box a game culls a character with. A hit test against the joints' boxes narrows a collision query to the
//! triangles the hit joints move (per-bone boxes, as the textbook's collision chapter has them).
//!
//! A [`JointBox`] is a box in its joint's own space: the space the joint's model matrix maps into model space.
//! It is worked out offline over the vertices the joint influences, each carried into the joint's space by
//! its inverse bind matrix (`sinew-bench-host`'s `bounds::joint_boxes`). [`BoundsJob`] gives each box's
//! model-space axis-aligned box, `center' = M · center` and `half_extent' = |M₃ₓ₃| · half_extent` (the
//! smallest axis-aligned box around the transformed box), and the union of them all.
//!
//! With linear blend skinning, a vertex that several joints move need not lie in any one of their boxes. It is
//! a weighted average of points that lie in its joints' boxes, so it lies in their convex hull, which the
//! union holds. So boxes over every vertex with a positive weight on the joint bound the whole skinned mesh.
//!
//! Layout: AoS, one [`JointBox`] (32 bytes, two 16-byte rows) per box, in any order; model matrices AoS
//! column-major ([`Mat4`]), as local-to-model writes them. A box costs four column loads, six broadcasts and
//! six multiply-adds, with no transposes, so the kernel reads the matrices where they are.
//! Space: boxes in joint space, output in model space. Units: the skeleton's.
//! Precision: `f32`. Each output box holds the exact image of its box to within the rounding of a 3×4
//! product (a few ulps of `|M| · |center| + |translation|` per axis).
//! Errors: boxes are checked once, in [`JointBounds::new`]; buffer lengths per call; non-finite model matrices
//! by one fused check over the output (on such an `Err` the per-box output may be partly written).

use crate::error::Error;
use crate::error::{Buffer, Index, check_len};
use crate::limits::{MAX_JOINTS, MAX_MODEL_EXTENT};
use crate::math::{F4, Mat4};
use bytemuck::{Pod, Zeroable};

/// One joint's box in the joint's own space (see the module docs).
///
/// Layout: 32 bytes, two rows of four 4-byte values, 16-byte aligned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C, align(16))]
pub struct JointBox {
    /// The box's center, in the joint's space.
    pub center: [f32; 3],
    /// The skeleton joint whose model matrix carries the box.
    pub joint: u32,
    /// Half the box's size along each of the joint's axes, `>= 0`.
    pub half_extent: [f32; 3],
    /// Not read; keeps the box two whole rows.
    pub reserved: u32,
}

/// An axis-aligned box in model space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Aabb {
    /// The smallest corner.
    pub min: [f32; 3],
    /// The largest corner.
    pub max: [f32; 3],
}

/// A skeleton's joint boxes, checked: one to `num_joints` boxes (joints that move no vertex need none), every
/// joint within the skeleton, every value finite and within `MAX_MODEL_EXTENT`, half extents not negative.
#[derive(Clone, Copy, Debug)]
pub struct JointBounds<'a> {
    boxes: &'a [JointBox],
    num_joints: usize,
}

impl<'a> JointBounds<'a> {
    /// Checks `boxes` for a skeleton of `num_joints` joints. O(boxes).
    ///
    /// Errors: `JointCount` for `num_joints` above `MAX_JOINTS`; `BufferLength` (`JointBoxes`) for no boxes
    /// (expected 1) or more than `num_joints`; `JointOutOfRange` for the first box whose joint is not below
    /// `num_joints`; `InvalidJointBox` for the first box with a NaN, infinite or negative half extent, or a value
    /// beyond `MAX_MODEL_EXTENT` in magnitude.
    pub fn new(num_joints: usize, boxes: &'a [JointBox]) -> Result<JointBounds<'a>, Error> {
        if num_joints > MAX_JOINTS {
            return Err(Error::JointCount { count: num_joints, max: MAX_JOINTS });
        }
        if boxes.is_empty() || boxes.len() > num_joints {
            let expected = if boxes.is_empty() { 1 } else { num_joints };
            return Err(Error::BufferLength { buffer: Buffer::JointBoxes, expected, actual: boxes.len() });
        }
        for (index, b) in boxes.iter().enumerate() {
            if b.joint as usize >= num_joints {
                return Err(Error::JointOutOfRange { joint: b.joint as usize, num_joints });
            }
            let within = |v: f32| v.abs() <= MAX_MODEL_EXTENT;
            let extent_ok = b.half_extent.iter().all(|&e| e >= 0.0 && within(e));
            if !(extent_ok && b.center.iter().all(|&c| within(c))) {
                return Err(Error::InvalidJointBox { index });
            }
        }
        Ok(JointBounds { boxes, num_joints })
    }
}

/// Model-space boxes of a skeleton's joint boxes and their union (ozz's job pattern: borrowed buffers in
/// public fields, `validate`, then `run`).
#[derive(Debug)]
pub struct BoundsJob<'a> {
    /// The joint boxes, checked once.
    pub bounds: &'a JointBounds<'a>,
    /// Model-space matrices, one per skeleton joint (local-to-model's output).
    pub model: &'a [Mat4],
    /// Where each box's model-space box goes, one per box in `bounds` order; `None` for the union alone.
    pub boxes: Option<&'a mut [Aabb]>,
}

impl BoundsJob<'_> {
    /// O(1) checks.
    ///
    /// Errors: `BufferLength` (`ModelMatrices`: must be the skeleton's joint count; `JointBoxes`: the output
    /// must hold one box per joint box).
    pub fn validate(&self) -> Result<(), Error> {
        check_len(Buffer::ModelMatrices, self.bounds.num_joints, self.model.len())?;
        match &self.boxes {
            Some(out) => check_len(Buffer::JointBoxes, self.bounds.boxes.len(), out.len()),
            None => Ok(()),
        }
    }

    /// Writes each box's model-space box (when asked) and returns the union.
    ///
    /// Errors: those of `validate`; `NonFinite` (`ModelMatrices`, joint) for the first box whose model-space box
    /// is not finite, because its joint's matrix is not (or holds values so far beyond `MAX_MODEL_EXTENT`, which
    /// local-to-model never writes, that the boxes overflow `f32`; joint 0 is named when only their sum does).
    pub fn run(&mut self) -> Result<Aabb, Error> {
        self.validate()?;
        let (model, boxes) = (self.model, self.bounds.boxes);
        let (mut lo, mut hi) = (F4::splat(f32::INFINITY), F4::splat(f32::NEG_INFINITY));
        // Every box's `center' + half_extent'` summed: finite exactly when every box is (min and max would let a
        // NaN through). With matrices within `MAX_MODEL_EXTENT`, as local-to-model keeps them, each term is below
        // 7e30 and there are at most `MAX_JOINTS` of them, so the sum cannot overflow.
        let mut check = F4::splat(0.0);
        let mut add = |b: &JointBox| -> Result<(F4, F4), Error> {
            let (center, half_extent) = model_box(model, b)?;
            let (low, high) = (center - half_extent, center + half_extent);
            (lo, hi, check) = (lo.min(low), hi.max(high), check + high);
            Ok((low, high))
        };
        match self.boxes.as_deref_mut() {
            Some(out) => {
                for (b, slot) in boxes.iter().zip(out) {
                    let (low, high) = add(b)?;
                    *slot = aabb(low, high);
                }
            }
            None => {
                for b in boxes {
                    add(b)?;
                }
            }
        }
        if check.non_finite_mask().any_set() {
            let bad =
                boxes.iter().find(|b| model_box(model, b).is_ok_and(|(c, e)| (c + e).non_finite_mask().any_set()));
            let index = bad.map_or(0, |b| b.joint as usize);
            return Err(Error::NonFinite { buffer: Buffer::ModelMatrices, index });
        }
        Ok(aabb(lo, hi))
    }
}

/// Box `b`'s model-space center and half extent (lanes x, y, z; lane w is not used).
#[inline(always)]
fn model_box(model: &[Mat4], b: &JointBox) -> Result<(F4, F4), Error> {
    let joint = b.joint as usize;
    // `JointBounds::new` and `validate` keep the joint within `model`; an `Err` rather than a panic all the same.
    let m = model.get(joint).ok_or(Error::IndexOutOfRange { what: Index::Joint, index: joint, len: model.len() })?;
    let [c0, c1, c2, c3] = [0, 1, 2, 3].map(|c| F4::from_array(m.cols[c]));
    let rows: &[[f32; 4]; 2] = bytemuck::cast_ref(b);
    let (center, extent) = (F4::from_array(rows[0]), F4::from_array(rows[1]));
    let center = c0
        .mul_add(center.broadcast::<0>(), c1.mul_add(center.broadcast::<1>(), c2.mul_add(center.broadcast::<2>(), c3)));
    let extent = c0.abs().mul_add(
        extent.broadcast::<0>(),
        c1.abs().mul_add(extent.broadcast::<1>(), c2.abs() * extent.broadcast::<2>()),
    );
    Ok((center, extent))
}

fn aabb(low: F4, high: F4) -> Aabb {
    let ([x0, y0, z0, _], [x1, y1, z1, _]) = (low.to_array(), high.to_array());
    Aabb { min: [x0, y0, z0], max: [x1, y1, z1] }
}
