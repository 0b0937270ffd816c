//! The joint hierarchy: parent indices, rest pose and optional names, validated once at construction.
//!
//! Layout: joints are a flat array in parent-first order (every parent index is −1 for a root or smaller than
//! its child's index); the rest pose is SoA, `num_soa_joints` lane groups with identity padding lanes.
//! Validation happens here, once, so the per-frame kernels can rely on it without re-checking.

use crate::error::{Buffer, Error};
use crate::math::{F4, SoaTransform, num_soa_joints};

pub use crate::limits::{MAX_JOINTS, MAX_MODEL_EXTENT};

/// How far a rest rotation's squared length may be from 1 (|q|² in [1 − tol, 1 + tol]).
pub const UNIT_TOLERANCE: f32 = 1e-3;

/// A string of a blob's string table: a byte range (asset blobs store joint and clip names this way).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct StrRef {
    /// Byte offset into the string table.
    pub offset: u32,
    /// Length in bytes (UTF-8).
    pub len: u32,
}

/// A validated skeleton borrowing its arrays (from an asset blob or caller memory).
#[derive(Clone, Copy, Debug)]
pub struct Skeleton<'a> {
    parents: &'a [i16],
    rest_pose: &'a [SoaTransform],
    names: JointNames<'a>,
}

/// Where a skeleton's joint names live: caller strings, or an asset blob's string table.
#[derive(Clone, Copy, Debug)]
pub(crate) enum JointNames<'a> {
    None,
    Strs(&'a [&'a str]),
    /// Validated: every reference is in range and on character boundaries.
    Table {
        refs: &'a [StrRef],
        strings: &'a str,
    },
}

impl<'a> Skeleton<'a> {
    /// Checks and wraps a hierarchy.
    ///
    /// Errors, in the order checked:
    /// - `JointCount` unless `1 <= parents.len() <= MAX_JOINTS`;
    /// - `ParentOrder { joint, parent }` for the first joint whose parent is not −1 or an earlier joint;
    /// - `BufferLength` (`RestPose`) unless `rest_pose.len() == num_soa_joints`; (`Names`) unless
    ///   `names.len() == num_joints`;
    /// - `NonFinite` (`RestPose`, joint), `ZeroQuaternion` (`RestPose`, joint), `NonUnitRotation { joint }`
    ///   (|q|² off 1 by more than `UNIT_TOLERANCE`), for the first offending joint;
    /// - `PaddingNotIdentity` when a padding lane of the last rest-pose group is not the identity;
    /// - `Extent { clip: None, joint }` when the rest pose's translations and scales exceed
    ///   `MAX_MODEL_EXTENT` along the chain to `joint`.
    pub fn new(
        parents: &'a [i16],
        rest_pose: &'a [SoaTransform],
        names: Option<&'a [&'a str]>,
    ) -> Result<Skeleton<'a>, Error> {
        Skeleton::with_names(parents, rest_pose, names.map_or(JointNames::None, JointNames::Strs))
    }

    /// `new` with names from any source; `Table` names must already be validated.
    pub(crate) fn with_names(
        parents: &'a [i16],
        rest_pose: &'a [SoaTransform],
        names: JointNames<'a>,
    ) -> Result<Skeleton<'a>, Error> {
        let count = parents.len();
        if count == 0 || count > MAX_JOINTS {
            return Err(Error::JointCount { count, max: MAX_JOINTS });
        }
        for (joint, &parent) in parents.iter().enumerate() {
            if parent < -1 || parent as isize >= joint as isize {
                return Err(Error::ParentOrder { joint, parent });
            }
        }
        crate::error::check_len(Buffer::RestPose, num_soa_joints(count), rest_pose.len())?;
        if let JointNames::Strs(names) = names {
            crate::error::check_len(Buffer::Names, count, names.len())?;
        }
        for joint in 0..count {
            let t = rest_pose[joint / 4].get(joint % 4);
            let len_sq = check_transform(&t, Buffer::RestPose, joint)?;
            if (len_sq - 1.0).abs() > UNIT_TOLERANCE {
                return Err(Error::NonUnitRotation { joint });
            }
        }
        check_padding(Buffer::RestPose, rest_pose, count)?;
        let (mut translation, mut scale) = ([0.0; MAX_JOINTS], [0.0; MAX_JOINTS]);
        rest_extents(rest_pose, &mut translation[..count], &mut scale[..count]);
        check_model_extent(parents, &translation, &scale, None)?;
        Ok(Skeleton { parents, rest_pose, names })
    }

    /// Number of joints.
    #[inline]
    pub fn num_joints(&self) -> usize {
        self.parents.len()
    }

    /// Number of SoA lane groups: `ceil(num_joints / 4)`.
    #[inline]
    pub fn num_soa_joints(&self) -> usize {
        self.rest_pose.len()
    }

    /// True when `ancestor` is above `joint` (its parent, its parent's parent, …); false for the joint itself
    /// and for joints out of range. O(depth).
    pub fn is_ancestor(&self, ancestor: usize, joint: usize) -> bool {
        // Parents come before children, so the walk up ends within `joint` steps.
        let mut joint = joint;
        while let Some(p) = self.parents.get(joint).and_then(|&p| usize::try_from(p).ok()) {
            if p == ancestor {
                return true;
            }
            joint = p;
        }
        false
    }

    /// Parent of each joint, −1 for roots; always smaller than the joint's own index.
    #[inline]
    pub fn parents(&self) -> &'a [i16] {
        self.parents
    }

    /// Rest (bind) pose in local space, SoA with identity padding lanes.
    #[inline]
    pub fn rest_pose(&self) -> &'a [SoaTransform] {
        self.rest_pose
    }

    /// Name of `joint`, when the skeleton has names and the joint exists.
    pub fn name(&self, joint: usize) -> Option<&'a str> {
        match self.names {
            JointNames::None => None,
            JointNames::Strs(names) => names.get(joint).copied(),
            JointNames::Table { refs, strings } => {
                let r = refs.get(joint)?;
                strings.get(r.offset as usize..r.offset as usize + r.len as usize)
            }
        }
    }

    /// Index of the first joint called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        (0..self.num_joints()).find(|&j| self.name(j) == Some(name))
    }

    /// Depth of the deepest joint (a root has depth 1).
    pub fn max_depth(&self) -> usize {
        let mut depth = [0u16; MAX_JOINTS];
        let mut max = 0;
        for (joint, &parent) in self.parents.iter().enumerate() {
            depth[joint] = if parent < 0 { 1 } else { depth[parent as usize] + 1 };
            max = max.max(depth[joint] as usize);
        }
        max
    }
}

/// `Err` for a transform the kernels cannot use: `NonFinite` (any component NaN or infinite, or |q|² overflowing)
/// or `ZeroQuaternion` (|q|² below `MIN_ROTATION_LENGTH_SQ`), naming `buffer` and `index`. Returns |q|².
/// The one per-joint classification: skeleton validation and the kernels' cold error path both use it.
pub(crate) fn check_transform(t: &crate::math::Transform, buffer: Buffer, index: usize) -> Result<f32, Error> {
    let len_sq = t.rotation.length_squared();
    if !t.is_finite() || !len_sq.is_finite() {
        return Err(Error::NonFinite { buffer, index });
    }
    if len_sq < crate::limits::MIN_ROTATION_LENGTH_SQ {
        return Err(Error::ZeroQuaternion { buffer, index });
    }
    Ok(len_sq)
}

/// √3: a vector's length over its largest |component|, at most.
const SQRT_3: f32 = 1.732_050_8;

/// Largest |component| of each joint's rest translation and rest scale (`translation.len()` joints).
pub(crate) fn rest_extents(rest_pose: &[SoaTransform], translation: &mut [f32], scale: &mut [f32]) {
    for (joint, (t, s)) in translation.iter_mut().zip(scale.iter_mut()).enumerate() {
        let rest = rest_pose[joint / 4].get(joint % 4);
        let largest = |v: crate::math::Vec3| v.x.abs().max(v.y.abs()).max(v.z.abs());
        (*t, *s) = (largest(rest.translation), largest(rest.scale));
    }
}

/// `Err(Extent)` unless every joint stays within `MAX_MODEL_EXTENT`, given the largest |component| of each
/// joint's translation and scale (indexed by joint, at least `parents.len()` entries). A model matrix's linear
/// part has entries at most the product of the chain's scales (rotations have norm 1); its translation at
/// most the sum of each translation's length (≤ √3 × its largest component) times the scales above it.
/// Overflow in the bounds themselves gives infinity, which fails the test.
pub(crate) fn check_model_extent(
    parents: &[i16],
    translation: &[f32],
    scale: &[f32],
    clip: Option<usize>,
) -> Result<(), Error> {
    let mut linear = [1.0f32; MAX_JOINTS];
    let mut offset = [0.0f32; MAX_JOINTS];
    for (joint, &parent) in parents.iter().enumerate() {
        let (parent_linear, parent_offset) =
            if parent < 0 { (1.0, 0.0) } else { (linear[parent as usize], offset[parent as usize]) };
        linear[joint] = parent_linear * scale[joint];
        offset[joint] = parent_offset + parent_linear * translation[joint] * SQRT_3;
        if !(linear[joint] <= MAX_MODEL_EXTENT && offset[joint] <= MAX_MODEL_EXTENT) {
            return Err(Error::Extent { clip, joint });
        }
    }
    Ok(())
}

/// `Err(PaddingNotIdentity)` unless the lanes past `num_joints` in the last group of `pose` are the identity.
pub(crate) fn check_padding(buffer: Buffer, pose: &[SoaTransform], num_joints: usize) -> Result<(), Error> {
    let real_lanes = num_joints % 4;
    let (Some(last), true) = (pose.last(), real_lanes != 0) else {
        return Ok(());
    };
    let padding = F4::lane_mask(!((1u32 << real_lanes) - 1));
    let id = SoaTransform::IDENTITY;
    let differs = [
        last.translation.x.cmp_ne(id.translation.x),
        last.translation.y.cmp_ne(id.translation.y),
        last.translation.z.cmp_ne(id.translation.z),
        last.rotation.x.cmp_ne(id.rotation.x),
        last.rotation.y.cmp_ne(id.rotation.y),
        last.rotation.z.cmp_ne(id.rotation.z),
        last.rotation.w.cmp_ne(id.rotation.w),
        last.scale.x.cmp_ne(id.scale.x),
        last.scale.y.cmp_ne(id.scale.y),
        last.scale.z.cmp_ne(id.scale.z),
    ]
    .into_iter()
    .fold(F4::ZERO, |acc, m| acc | m);
    if (differs & padding).any_set() {
        return Err(Error::PaddingNotIdentity { buffer, soa_index: pose.len() - 1 });
    }
    Ok(())
}
