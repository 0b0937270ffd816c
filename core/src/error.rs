//! The one error type of the runtime. Every kernel returns it instead of panicking on caller data.

use core::fmt;

/// Which caller buffer an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Buffer {
    /// A skeleton's parent indices.
    Parents,
    /// A skeleton's rest pose (SoA).
    RestPose,
    /// A skeleton's joint names.
    Names,
    /// A SoA pose given to or produced by a stage (local space).
    SoaPose,
    /// The local pose input of local-to-model.
    LocalPose,
    /// Model-space matrices (output of local-to-model, input of skinning matrices).
    ModelMatrices,
    /// The root matrix of local-to-model.
    RootMatrix,
    /// A skin's joint remap table.
    JointRemap,
    /// A skin's inverse bind matrices.
    InverseBindMatrices,
    /// The skinning-matrix palette output.
    SkinningPalette,
}

/// What was wrong. Indices are joint indices (skeleton order) unless the variant says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A skeleton must have between 1 and `max` joints.
    JointCount { count: usize, max: usize },
    /// A parent index is neither −1 (root) nor the index of an earlier joint.
    ParentOrder { joint: usize, parent: i16 },
    /// A buffer's length differs from what the other inputs require.
    BufferLength { buffer: Buffer, expected: usize, actual: usize },
    /// A value in `buffer` is NaN or infinite; `index` is the joint (or matrix) it belongs to.
    NonFinite { buffer: Buffer, index: usize },
    /// A rotation is too far from unit length (rest poses are held to `skeleton::UNIT_TOLERANCE`).
    NonUnitRotation { joint: usize },
    /// A rotation quaternion has (near) zero length, so it names no rotation.
    ZeroQuaternion { buffer: Buffer, index: usize },
    /// A padding lane (past the last joint) of a SoA buffer is not the identity transform.
    PaddingNotIdentity { buffer: Buffer, soa_index: usize },
    /// A skin joint refers to a skeleton joint that does not exist.
    RemapOutOfRange { skin_joint: usize, joint: u16, num_joints: usize },
    /// A matrix that must be affine has a last row other than `(0, 0, 0, 1)`.
    NotAffine { buffer: Buffer, index: usize },
    /// A joint index argument is out of range.
    JointOutOfRange { joint: usize, num_joints: usize },
    /// The arena cannot fit the request: `requested` bytes (including alignment padding), `available` left.
    ArenaExhausted { requested: usize, available: usize },
    /// A checkpoint handed to `Arena::rewind` lies past the arena's current use: it is from another arena or
    /// from before an earlier rewind.
    InvalidCheckpoint { checkpoint: usize, used: usize },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::JointCount { count, max } => write!(f, "skeleton has {count} joints; allowed 1..={max}"),
            Error::ParentOrder { joint, parent } => {
                write!(f, "joint {joint} has parent {parent}: parents must be -1 or an earlier joint")
            }
            Error::BufferLength { buffer, expected, actual } => {
                write!(f, "{buffer:?} has length {actual}, expected {expected}")
            }
            Error::NonFinite { buffer, index } => write!(f, "{buffer:?} holds NaN or infinity at {index}"),
            Error::NonUnitRotation { joint } => write!(f, "rest rotation of joint {joint} is not unit length"),
            Error::ZeroQuaternion { buffer, index } => write!(f, "{buffer:?} has a zero-length rotation at {index}"),
            Error::PaddingNotIdentity { buffer, soa_index } => {
                write!(f, "{buffer:?} padding lanes of lane group {soa_index} are not the identity")
            }
            Error::RemapOutOfRange { skin_joint, joint, num_joints } => {
                write!(f, "skin joint {skin_joint} maps to joint {joint}, skeleton has {num_joints}")
            }
            Error::NotAffine { buffer, index } => write!(f, "{buffer:?} matrix {index} is not affine"),
            Error::JointOutOfRange { joint, num_joints } => {
                write!(f, "joint {joint} out of range, skeleton has {num_joints}")
            }
            Error::ArenaExhausted { requested, available } => {
                write!(f, "arena exhausted: {requested} bytes requested, {available} available")
            }
            Error::InvalidCheckpoint { checkpoint, used } => {
                write!(f, "checkpoint at {checkpoint} bytes is past the arena's use ({used} bytes)")
            }
        }
    }
}

impl core::error::Error for Error {}

/// `Ok` when `actual == expected`, else `Error::BufferLength` naming `buffer`.
#[inline]
pub(crate) fn check_len(buffer: Buffer, expected: usize, actual: usize) -> Result<(), Error> {
    if actual == expected { Ok(()) } else { Err(Error::BufferLength { buffer, expected, actual }) }
}
