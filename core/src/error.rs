//! The one error type of the runtime. Every kernel returns it instead of panicking on caller data.

use core::fmt;

/// Which vertex attribute an error is about (vertex skinning; its sizes are `AttributeKind::bytes` there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttributeKind {
    /// Vertex positions.
    Position,
    /// Vertex normals.
    Normal,
    /// Vertex tangents (`w` the handedness).
    Tangent,
}

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
    /// A clip's constant tracks.
    Constants,
    /// A clip's animated-track joint list.
    TrackJoints,
    /// A clip's keys (index: the stored element).
    ClipKeys,
    /// A quantized clip's translation/scale ranges, or a compressed clip's track ranges.
    QuantRanges,
    /// The joint count a clip was made for (compared with the skeleton's).
    ClipJoints,
    /// A sampling context's cached frames (sized for a joint count).
    SamplingContext,
    /// The time given to sampling.
    SampleTime,
    /// A pose given to blending (a layer, a reference or a delta).
    LayerPose,
    /// Per-joint weights (a bone mask), SoA.
    JointWeights,
    /// The joint limits of an IK chain.
    JointLimits,
    /// The rotations a batched two-bone IK writes, two per chain.
    IkRotations,
    /// The vertex buffer read by vertex skinning.
    VertexInput,
    /// The vertex buffer written by vertex skinning.
    VertexOutput,
    /// An influence table's joint indices.
    InfluenceJoints,
    /// An influence table's weights.
    InfluenceWeights,
    /// Per-joint duration factors of a transition, SoA.
    DurationProfile,
    /// Scalar curve values given to or produced by a stage (sampling's curve output, the inertializer).
    Curves,
    /// A clip's scalar curve tracks (index: the stored value, or for compressed curves the curve).
    CurveKeys,
    /// Joint bounding boxes given to bounds (index: the box), or the model-space boxes it writes.
    JointBoxes,
    /// A blend graph job's leaves (one per leaf of the graph; index: the leaf).
    GraphLeaves,
    /// A blend graph job's parameters (as many as the graph was built for).
    GraphParameters,
    /// A motion search's query, one value per feature dimension.
    FeatureQuery,
    /// A frame's features read back from a motion database, one value per dimension.
    FeatureRow,
    /// A motion matcher's trajectory positions, as many as its database's position samples.
    TrajectoryPositions,
    /// A motion matcher's trajectory facings, as many as its database's facing samples.
    TrajectoryFacings,
}

/// What was wrong. Indices are joint indices (skeleton order) unless the variant says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A skeleton must have between 1 and `max` joints.
    JointCount {
        /// Joints given.
        count: usize,
        /// The most a skeleton may have.
        max: usize,
    },
    /// A parent index is neither −1 (root) nor the index of an earlier joint.
    ParentOrder {
        /// The joint whose parent is wrong.
        joint: usize,
        /// The parent index it has.
        parent: i16,
    },
    /// A buffer's length differs from what the other inputs require.
    BufferLength {
        /// The buffer.
        buffer: Buffer,
        /// The length it must have, in elements.
        expected: usize,
        /// The length it has.
        actual: usize,
    },
    /// A value in `buffer` is NaN or infinite; `index` is the joint (or matrix) it belongs to.
    NonFinite {
        /// The buffer.
        buffer: Buffer,
        /// The first joint (or matrix) with a non-finite value.
        index: usize,
    },
    /// A rotation is too far from unit length (rest poses are held to `skeleton::UNIT_TOLERANCE`).
    NonUnitRotation {
        /// The joint.
        joint: usize,
    },
    /// A rotation quaternion has (near) zero length, so it names no rotation.
    ZeroQuaternion {
        /// The buffer.
        buffer: Buffer,
        /// The first joint (or element) with a zero rotation.
        index: usize,
    },
    /// A stored rotation's squared length is above `limits::MAX_ROTATION_LENGTH_SQ` (or not finite).
    RotationLength {
        /// The buffer.
        buffer: Buffer,
        /// The first stored rotation past the bound.
        index: usize,
    },
    /// A padding lane (past the last joint) of a SoA buffer is not the identity transform.
    PaddingNotIdentity {
        /// The buffer.
        buffer: Buffer,
        /// The lane group holding the padding lane.
        soa_index: usize,
    },
    /// A skin joint refers to a skeleton joint that does not exist.
    RemapOutOfRange {
        /// The skin joint.
        skin_joint: usize,
        /// The skeleton joint it names.
        joint: u16,
        /// The skeleton's joint count.
        num_joints: usize,
    },
    /// A matrix that must be affine has a last row other than `(0, 0, 0, 1)`.
    NotAffine {
        /// The buffer.
        buffer: Buffer,
        /// The first matrix that is not affine.
        index: usize,
    },
    /// A joint index argument is out of range.
    JointOutOfRange {
        /// The joint index given.
        joint: usize,
        /// The skeleton's joint count.
        num_joints: usize,
    },
    /// The arena cannot fit the request: `requested` bytes (including alignment padding), `available` left.
    ArenaExhausted {
        /// Bytes asked for, alignment padding included.
        requested: usize,
        /// Bytes the arena has left.
        available: usize,
    },
    /// A checkpoint handed to `Arena::rewind` lies past the arena's current use: it is from another arena or
    /// from before an earlier rewind.
    InvalidCheckpoint {
        /// The checkpoint's offset.
        checkpoint: usize,
        /// The arena's current use, bytes.
        used: usize,
    },
    /// A clip's sample rate is not finite and positive.
    InvalidSampleRate,
    /// A clip needs at least one frame and may last at most `limits::MAX_DURATION` seconds.
    FrameCount {
        /// Frames the clip has.
        frames: usize,
    },
    /// The translations and scales along the chain ending at `joint` could place it farther than
    /// `limits::MAX_MODEL_EXTENT` from the origin (or scale it beyond that), where `f32` matrices downstream
    /// would overflow. `clip` is `None` for the rest pose, else the asset's clip index.
    Extent {
        /// `None` for the rest pose, else the clip index.
        clip: Option<usize>,
        /// The joint at the end of the chain.
        joint: usize,
    },
    /// A clip's tracks of `channel` (0 translation, 1 rotation, 2 scale) are out of order at `joint`: animated
    /// joints must ascend strictly, and a joint's channel may be animated or constant, once.
    TrackOrder {
        /// The joint where the order breaks.
        joint: usize,
        /// 0 translation, 1 rotation, 2 scale.
        channel: u16,
    },
    /// Entry `index` of a clip's step tracks names animated track `track`, which does not follow the entry
    /// before it or lies past the clip's animated tracks: step tracks ascend strictly below their count.
    StepTrack {
        /// The entry in the step-track list.
        index: usize,
        /// The animated track it names.
        track: usize,
    },
    /// Constant track `index` has a channel tag other than 0, 1, 2.
    InvalidChannel {
        /// The constant track.
        index: usize,
        /// The tag it has.
        channel: u16,
    },
    /// A stored value in `buffer` is non-zero but below `limits::MIN_KEY_MAGNITUDE` (or a negative
    /// quantization step): it would make sampling compute with denormals.
    Subnormal {
        /// The buffer.
        buffer: Buffer,
        /// The first such stored value.
        index: usize,
    },
    /// Segment `segment` of a compressed clip is inconsistent: its offset, bit count or bits lie outside the
    /// clip's data, or (`track`) a track's format byte or segment range is invalid.
    CompressedSegment {
        /// The segment.
        segment: usize,
        /// The track whose format byte or range is invalid, if it is one track.
        track: Option<usize>,
    },
    /// A clip's curve value (`f32`: the stored value's index; compressed: the curve, whose range reaches past
    /// the bound) is above `limits::MAX_CURVE_MAGNITUDE` in magnitude, where interpolating could overflow.
    CurveMagnitude {
        /// The stored value (`f32` curves) or the curve (compressed ones).
        index: usize,
    },
    /// An asset blob does not start with `asset::MAGIC`.
    BadMagic,
    /// An asset blob's format version is one this build does not read (`supported` is the one it writes), or
    /// an older one it reads whose compressed clips or curves it does not (their tables changed layout).
    UnsupportedVersion {
        /// The blob's version.
        found: u32,
        /// The version this build writes.
        supported: u32,
    },
    /// An asset blob's section is unusable; `problem` says how.
    Blob {
        /// The section.
        section: Section,
        /// What is wrong with it.
        problem: BlobProblem,
    },
    /// Asset blobs are little-endian and read in place; a big-endian host cannot use them.
    BigEndianHost,
    /// A blend needs at least one layer (normal or additive).
    NoLayers,
    /// Blend layer `layer` (of the additive list when `additive`) has a NaN or infinite weight, or a negative
    /// one on a normal layer.
    InvalidWeight {
        /// The layer, in its list.
        layer: usize,
        /// Whether the layer is in the additive list.
        additive: bool,
    },
    /// A blend's threshold is NaN, infinite, zero or negative (it must be finite and > 0).
    InvalidThreshold,
    /// A bone mask entry for `joint` is NaN, infinite or negative.
    InvalidJointWeight {
        /// The layer, in its list.
        layer: usize,
        /// Whether the layer is in the additive list.
        additive: bool,
        /// The joint whose mask entry is invalid.
        joint: usize,
    },
    /// An influence table needs at least one influence per vertex.
    InfluenceCount {
        /// Influences per vertex given.
        count: usize,
    },
    /// A skin weight of `vertex` is NaN, infinite or negative.
    InvalidInfluenceWeight {
        /// The vertex.
        vertex: usize,
    },
    /// `vertex` is influenced by `joint`, but the palette has only `palette_len` matrices.
    InfluenceOutOfRange {
        /// The vertex.
        vertex: usize,
        /// The palette index it names.
        joint: u16,
        /// Matrices in the palette.
        palette_len: usize,
    },
    /// An attribute is in the input layout but not the output one, or the other way round.
    AttributeMismatch {
        /// The attribute.
        attribute: AttributeKind,
    },
    /// An attribute's stride is below its element size `min`.
    Stride {
        /// The vertex buffer.
        buffer: Buffer,
        /// The attribute.
        attribute: AttributeKind,
        /// The stride given, bytes.
        stride: usize,
        /// The attribute's element size, bytes.
        min: usize,
    },
    /// An attribute's last element ends at `needed` (`None`: the end overflows), past the buffer's `len`.
    VertexBufferTooShort {
        /// The vertex buffer.
        buffer: Buffer,
        /// The attribute.
        attribute: AttributeKind,
        /// Where its last element ends, bytes (`None` when that overflows).
        needed: Option<usize>,
        /// The buffer's length, bytes.
        len: usize,
    },
    /// Two output attributes would write the same bytes.
    AttributeOverlap {
        /// One attribute.
        first: AttributeKind,
        /// The attribute it overlaps.
        second: AttributeKind,
    },
    /// A transition duration (`joint: None`) or a joint's duration after its profile factor is NaN, infinite
    /// or shorter than `inertialization::MIN_DURATION`.
    InvalidDuration {
        /// `None` for the transition's duration, else the joint whose profiled duration is invalid.
        joint: Option<usize>,
    },
    /// A time step is NaN, infinite or negative.
    InvalidTimeStep,
    /// Relative-velocity inertialization needs the previous target on a request frame.
    MissingPreviousTarget,
    /// A control's speed is NaN, infinite or faster than `limits::MAX_SPEED`.
    InvalidSpeed,
    /// A local time is NaN or outside `[0, duration]`, or a duration is NaN, infinite or negative.
    InvalidTime,
    /// Bytes re-attached as state (an inertializer, a character) do not hold what the caller says they do.
    StateMismatch,
    /// The asset given to a character is not the one its controls were started on: it lacks clip `clip`, or that
    /// clip has another duration.
    ForeignAsset {
        /// The playing control's clip index.
        clip: usize,
    },
    /// A count past its documented limit (`limits`).
    Limit {
        /// The count.
        what: Limit,
        /// Its value.
        value: usize,
        /// The most allowed.
        max: usize,
    },
    /// Layer 0 of a character must be its only `Base` layer (and a character needs one).
    LayerOrder {
        /// The layer in the wrong place.
        layer: usize,
    },
    /// An index (layer, slot, clip, mask) past the `len` there are.
    IndexOutOfRange {
        /// What the index indexes.
        what: Index,
        /// The index given.
        index: usize,
        /// How many there are.
        len: usize,
    },
    /// An inertialized transition on a character made without an inertializer.
    NoInertializer,
    /// A character block must start on a multiple of `align` bytes.
    BlockAlignment {
        /// The alignment a block needs, bytes.
        align: usize,
    },
    /// Inverse bind matrix `index` has an entry beyond `limits::MAX_MODEL_EXTENT` in magnitude.
    InverseBindExtent {
        /// The inverse bind matrix.
        index: usize,
    },
    /// A character made with external scratch was updated without one.
    MissingScratch,
    /// A character block of `len` bytes; it needs `needed`.
    BlockSize {
        /// Bytes the block needs.
        needed: usize,
        /// Bytes it has.
        len: usize,
    },
    /// A fade's target weight is NaN, infinite or negative, or its duration NaN, infinite or negative.
    InvalidFade,
    /// A local-to-model group walk built for another skeleton (another parent array).
    ForeignWalk,
    /// A character mask's weight for `joint` is NaN, infinite or negative, or not > 0 in a fade profile.
    InvalidMaskWeight {
        /// The mask.
        mask: usize,
        /// The first joint with an invalid weight.
        joint: usize,
    },
    /// A warp point with a NaN or infinite value, or a window that ends before it starts or after the marker.
    InvalidWarp,
    /// A motion correction with a NaN or infinite value, a segment that ends before it starts, a steering
    /// limit or speed not > 0, or playback-rate bounds inverted.
    InvalidCorrection,
    /// A curve with fewer than two keys, a NaN or infinite field, times not strictly increasing, or (where an
    /// inverse is asked) not monotone.
    InvalidCurve,
    /// An IK chain with a joint out of range, a joint that is not the parent of the next, or a bone of zero or
    /// non-finite length.
    InvalidIkChain,
    /// An IK target or pole that is NaN or infinite, or a weight or softening outside its range.
    InvalidIkTarget,
    /// Aim poses for IK by interpolation: fewer than two, a count other than yaws × pitches, or a yaw or pitch
    /// that is not finite, not strictly increasing or outside its range.
    InvalidAimPoses,
    /// An attachment's offset, object or world transform that is not a finite affine matrix, or one that
    /// must be inverted and is singular.
    InvalidAttachment,
    /// Foot planting with a NaN or infinite ground, world transform or setting, a weight outside [0, 1], a
    /// time step not finite and >= 0, or a leg that is not a parent-linked chain under the pelvis.
    InvalidFootPlanting,
    /// Joint box `index` has a negative half extent, or a center or half extent beyond
    /// `limits::MAX_MODEL_EXTENT` in magnitude.
    InvalidJointBox {
        /// The joint box.
        index: usize,
    },
    /// A clip's knot times: knot `index` is not finite, not above the one before (the first not 0) or past
    /// `MAX_DURATION`; or `index` is the count, which is not the clip's frame count.
    InvalidKnots {
        /// The first bad knot, or the count.
        index: usize,
    },
    /// A motion database's `part` breaks its contract (see [`DatabaseProblem`]).
    MotionDatabase {
        /// The part.
        part: DatabasePart,
        /// What is wrong with it.
        problem: DatabaseProblem,
    },
    /// A motion search query's dimension `dim` is NaN or infinite, or beyond `limits::MAX_FEATURE_MAGNITUDE`
    /// once normalized.
    InvalidFeatureQuery {
        /// The first bad dimension.
        dim: usize,
    },
    /// A motion search's continuing bias is NaN, infinite or negative, or a motion matcher's interval or
    /// transition is not finite and > 0.
    InvalidSearch,
    /// Motion matching over an asset that holds no motion database.
    NoMotionDatabase,
    /// A motion matcher cannot fill feature group `group` from a character: its name is not `position:J` or
    /// `velocity:J` for a joint `J` of the skeleton, `trajectory_position` or `trajectory_facing`, or its
    /// length does not fit that kind.
    UnreadableFeatureGroup {
        /// The group.
        group: usize,
    },
    /// A trajectory spring's state, desired motion, half-life or time is not finite, a half-life not > 0 or a
    /// time negative.
    InvalidTrajectory,
    /// A motion search found no frame it may take: the filter, the flags and the exclusion window leave none,
    /// and no current frame may continue.
    NoCandidate,
    /// Blend graph node `node` is malformed (see [`GraphProblem`]).
    InvalidGraph {
        /// The node, in the graph's array.
        node: usize,
        /// What is wrong with it.
        problem: GraphProblem,
    },
    /// Blend graph parameter `parameter` is NaN or infinite, or negative where a weighted sum reads it.
    InvalidGraphParameter {
        /// The parameter, in the job's array.
        parameter: usize,
    },
}

/// What is wrong with a blend graph node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GraphProblem {
    /// A child index that is not an earlier node (children come before their parents).
    Child,
    /// A leaf index past the graph's leaves, or leaves (of clip and chunk nodes) that do not number `0..n` once
    /// each.
    Leaf,
    /// A parameter index past the graph's parameters.
    Parameter,
    /// A mask that is not one weight in `[0, 1]` per lane of the skeleton's lane groups.
    Mask,
    /// An additive reference pose of the wrong length or with a zero scale.
    Reference,
    /// No children, or more than `blending::MAX_LAYERS`.
    Children,
    /// Blend space positions: not one per child, not finite or not strictly increasing.
    Positions,
    /// Blend space triangles: none, a corner past the children, or a triangle of no area.
    Triangles,
}

/// Which count passed its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// Normal or additive layers of one `BlendingJob`.
    BlendLayers,
    /// Joints of a skin (`limits::MAX_JOINTS`).
    SkinJoints,
    /// Layers of a character.
    Layers,
    /// Control slots of one character layer.
    LayerControls,
    /// Control slots of a character, over all layers.
    Controls,
    /// Bone masks of a character.
    Masks,
    /// Scalar curves a character carries.
    Curves,
    /// Scalar curve tracks of one clip.
    ClipCurves,
    /// Corrections of one IK-by-interpolation job (`limits::MAX_AIM_ITERATIONS`).
    AimIterations,
    /// Nodes of a blend graph (`blend_graph::MAX_NODES`).
    GraphNodes,
    /// Leaves of a blend graph (`blend_graph::MAX_LEAVES`).
    GraphLeaves,
}

/// What an out-of-range index indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Index {
    /// A character layer.
    Layer,
    /// A control slot of a layer.
    Slot,
    /// A clip of an asset.
    Clip,
    /// A bone mask of a character.
    Mask,
    /// A skeleton joint.
    Joint,
    /// A frame of a motion database.
    DatabaseFrame,
}

/// Which part of a motion database an error is about (`motion_database::MotionDatabaseParts` names them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DatabasePart {
    /// The dimension count.
    Dims,
    /// The frame count.
    Frames,
    /// The feature groups.
    Groups,
    /// The per-dimension means.
    Mean,
    /// The per-dimension scales.
    Scale,
    /// The per-dimension mean squares of the normalized features.
    Spread,
    /// The normalized features (index: the frame, or the block for padding lanes).
    Features,
    /// The boxes over each block (index: the block).
    BlockBoxes,
    /// The boxes over each span of four blocks (index: the span).
    SpanBoxes,
    /// The per-frame entries (index: the frame).
    FrameEntries,
    /// The per-block summaries (index: the block).
    BlockInfos,
}

/// What is wrong with a part of a motion database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DatabaseProblem {
    /// The part has `actual` elements where the counts need `expected`.
    Length {
        /// Elements the counts need.
        expected: usize,
        /// Elements it has.
        actual: usize,
    },
    /// Element `index` holds a value outside the part's contract (its doc comment states it).
    Value {
        /// The first bad element.
        index: usize,
    },
}

/// A region of an asset blob (see `asset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Section {
    /// The 128-byte header.
    Header,
    /// The skeleton's parent indices.
    Parents,
    /// The skeleton's rest pose.
    RestPose,
    /// The joints' names.
    JointNames,
    /// The string table.
    Strings,
    /// The per-clip records.
    ClipRecords,
    /// A clip's name.
    ClipName {
        /// The clip.
        clip: usize,
    },
    /// A clip's constant tracks.
    Constants {
        /// The clip.
        clip: usize,
    },
    /// A clip's animated-track joint list.
    TrackJoints {
        /// The clip.
        clip: usize,
    },
    /// A clip's keys.
    Keys {
        /// The clip.
        clip: usize,
    },
    /// A clip's quantization or track ranges.
    QuantRanges {
        /// The clip.
        clip: usize,
    },
    /// The per-clip annotation runs.
    Annotations,
    /// The markers.
    Markers,
    /// The ranges.
    Ranges,
    /// The skin's joint remap.
    SkinRemap,
    /// The skin's inverse bind matrices.
    SkinInverseBinds,
    /// The per-clip phase records.
    Phases,
    /// The phase tables' values.
    PhaseValues,
    /// The per-clip curve records (format version 4).
    CurveRecords,
    /// A clip's curve names.
    CurveNames {
        /// The clip.
        clip: usize,
    },
    /// A clip's curve values.
    CurveKeys {
        /// The clip.
        clip: usize,
    },
    /// A clip's compressed curve ranges.
    CurveRanges {
        /// The clip.
        clip: usize,
    },
    /// A clip's knot times.
    KnotTimes {
        /// The clip.
        clip: usize,
    },
    /// The header's tail (version 9 onward).
    HeaderTail,
    /// The motion database's record.
    MotionDatabaseRecord,
    /// A part of the motion database (its values are `MotionDatabase::new`'s to check).
    MotionDatabase {
        /// The part.
        part: DatabasePart,
    },
}

/// What is wrong with a blob section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BlobProblem {
    /// The blob is shorter than the section's end (`offset + len`, `None` when that overflows).
    OutOfBounds {
        /// The section's end, bytes (`None` when `offset + len` overflows).
        end: Option<u64>,
        /// The blob's length, bytes.
        blob_len: usize,
    },
    /// The section's offset (or the blob's address, for the header) is not 16-byte aligned.
    Misaligned {
        /// The offset, bytes.
        offset: u64,
    },
    /// The section starts before the previous one ends: sections must be in order and disjoint.
    Overlap {
        /// The section's offset, bytes.
        offset: u64,
        /// Where the previous section ends, bytes.
        previous_end: u64,
    },
    /// The section's byte length does not fit its contents (`expected` bytes).
    Size {
        /// The section's length, bytes.
        len: u64,
        /// The length its contents need, bytes.
        expected: u64,
    },
    /// A count or tag in the section is invalid (e.g. unknown encoding, string out of range).
    Value {
        /// The element (or clip) whose count or tag is invalid.
        index: usize,
    },
    /// A string is not UTF-8.
    Utf8 {
        /// The string.
        index: usize,
    },
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
            Error::RotationLength { buffer, index } => write!(
                f,
                "{buffer:?} rotation at {index} has a squared length above {}",
                crate::limits::MAX_ROTATION_LENGTH_SQ
            ),
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
            Error::InvalidSampleRate => write!(
                f,
                "clip sample rate must lie in {}..={} Hz",
                crate::limits::MIN_SAMPLE_RATE,
                crate::limits::MAX_SAMPLE_RATE
            ),
            Error::FrameCount { frames } => {
                write!(f, "clip has {frames} frames; needs at least 1 and at most {} s", crate::limits::MAX_DURATION)
            }
            Error::Extent { clip, joint } => {
                match clip {
                    None => write!(f, "rest pose")?,
                    Some(clip) => write!(f, "clip {clip}")?,
                }
                write!(
                    f,
                    ": translations or scales down to joint {joint} exceed the model-space bound of {:e}",
                    crate::limits::MAX_MODEL_EXTENT
                )
            }
            Error::TrackOrder { joint, channel } => {
                write!(f, "clip track of joint {joint}, channel {channel}, is out of order or repeated")
            }
            Error::StepTrack { index, track } => write!(
                f,
                "step track {index} names animated track {track}: step tracks ascend strictly below the clip's tracks"
            ),
            Error::InvalidChannel { index, channel } => {
                write!(f, "constant track {index} has channel tag {channel}; expected 0, 1 or 2")
            }
            Error::Subnormal { buffer, index } => {
                write!(f, "{buffer:?} value at {index} is tiny but not zero (or a negative step)")
            }
            Error::CompressedSegment { segment, track: None } => {
                write!(f, "compressed clip segment {segment}: offset or bits outside the clip's data")
            }
            Error::CompressedSegment { segment, track: Some(track) } => {
                write!(f, "compressed clip segment {segment}, track {track}: invalid bit rate or range")
            }
            Error::CurveMagnitude { index } => {
                write!(f, "curve value {index}: magnitude above {:e}", crate::limits::MAX_CURVE_MAGNITUDE)
            }
            Error::BadMagic => write!(f, "not a sinew asset blob (bad magic)"),
            Error::UnsupportedVersion { found, supported } => {
                write!(
                    f,
                    "asset format version {found}, or its compressed clips or curves, is not read by this build \
                     (it writes version {supported}): bake the asset again"
                )
            }
            Error::Blob { section, problem } => write!(f, "asset section {section:?}: {problem:?}"),
            Error::BigEndianHost => write!(f, "asset blobs are little-endian; this host is big-endian"),
            Error::NoLayers => write!(f, "blend has no layers"),
            Error::InvalidThreshold => write!(f, "blend threshold must be finite and > 0"),
            Error::InvalidWeight { layer, additive } => {
                write!(f, "blend layer {layer} (additive: {additive}) has a NaN, infinite or negative weight")
            }
            Error::InvalidJointWeight { layer, additive, joint } => {
                write!(
                    f,
                    "bone mask of layer {layer} (additive: {additive}) is NaN, infinite or negative at joint {joint}"
                )
            }
            Error::InfluenceCount { count } => write!(f, "influence table has {count} influences per vertex"),
            Error::InvalidInfluenceWeight { vertex } => {
                write!(f, "vertex {vertex} has a NaN, infinite or negative skin weight")
            }
            Error::InfluenceOutOfRange { vertex, joint, palette_len } => {
                write!(f, "vertex {vertex} is influenced by joint {joint}; the palette has {palette_len}")
            }
            Error::AttributeMismatch { attribute } => {
                write!(f, "{attribute:?} is in only one of the input and output vertex layouts")
            }
            Error::Stride { buffer, attribute, stride, min } => {
                write!(f, "{buffer:?} {attribute:?} stride is {stride} bytes; an element takes {min}")
            }
            Error::VertexBufferTooShort { buffer, attribute, needed, len } => match needed {
                Some(end) => write!(f, "{buffer:?} {attribute:?} needs {end} bytes; the buffer has {len}"),
                None => write!(f, "{buffer:?} {attribute:?} extent overflows usize"),
            },
            Error::AttributeOverlap { first, second } => {
                write!(f, "output attributes {first:?} and {second:?} overlap")
            }
            Error::InvalidDuration { joint: None } => write!(f, "transition duration is NaN, infinite or too short"),
            Error::InvalidDuration { joint: Some(joint) } => {
                write!(f, "transition duration of joint {joint} (duration × profile) is NaN, infinite or too short")
            }
            Error::InvalidTimeStep => {
                write!(f, "time step is NaN, infinite, negative or above {} s", crate::limits::MAX_TIME_STEP)
            }
            Error::InvalidSpeed => {
                write!(f, "speed is NaN, infinite or above {} in magnitude", crate::limits::MAX_SPEED)
            }
            Error::InvalidTime => write!(f, "local time is NaN or outside the clip, or the duration is invalid"),
            Error::StateMismatch => write!(f, "the memory does not hold the state it is attached as"),
            Error::ForeignAsset { clip } => {
                write!(f, "clip {clip} of the asset is missing or not the clip the character started playing")
            }
            Error::Limit { what, value, max } => write!(f, "{what:?}: {value}, allowed at most {max}"),
            Error::LayerOrder { layer } => write!(f, "layer {layer}: layer 0, and only it, must be the base layer"),
            Error::IndexOutOfRange { what, index, len } => write!(f, "{what:?} {index} out of range ({len})"),
            Error::NoInertializer => write!(f, "inertialized transition on a character without an inertializer"),
            Error::BlockAlignment { align } => write!(f, "character block must be aligned to {align} bytes"),
            Error::InverseBindExtent { index } => write!(
                f,
                "inverse bind matrix {index} has an entry beyond {:e} in magnitude",
                crate::limits::MAX_MODEL_EXTENT
            ),
            Error::MissingScratch => write!(f, "this character's scratch is external: pass one to update_with_scratch"),
            Error::BlockSize { needed, len } => write!(f, "character block has {len} bytes; needs {needed}"),
            Error::InvalidFade => write!(f, "fade weight or duration is NaN, infinite or negative"),
            Error::ForeignWalk => write!(f, "the group walk was built for another skeleton"),
            Error::InvalidCorrection => write!(
                f,
                "motion correction: a value is NaN or infinite, a segment ends before it starts, a limit or speed is not positive, or rate bounds are inverted"
            ),
            Error::InvalidJointBox { index } => write!(
                f,
                "joint box {index}: a negative half extent, or a value beyond {:e} in magnitude",
                crate::limits::MAX_MODEL_EXTENT
            ),
            Error::InvalidCurve => write!(
                f,
                "curve: fewer than two keys, a NaN or infinite field, times not increasing, or not monotone where inverted"
            ),
            Error::InvalidIkChain => write!(
                f,
                "IK chain: a joint out of range, not the parent of the next, or a bone of zero or non-finite length"
            ),
            Error::InvalidIkTarget => {
                write!(f, "IK: target or pole NaN or infinite, weight outside [0, 1] or softening outside (0, 1]")
            }
            Error::InvalidAimPoses => write!(
                f,
                "aim poses: fewer than two, not yaws × pitches of them, or angles not finite, increasing and in range"
            ),
            Error::InvalidAttachment => {
                write!(
                    f,
                    "attachment: an offset, object or world matrix not finite and affine, or singular where inverted"
                )
            }
            Error::InvalidFootPlanting => write!(
                f,
                "foot planting: a ground, world transform or setting NaN or infinite, a weight outside [0, 1], a bad time step, or a leg not under the pelvis"
            ),
            Error::InvalidWarp => {
                write!(f, "warp: a value is NaN or infinite, or a window ends before it starts or after the marker")
            }
            Error::InvalidMaskWeight { mask, joint } => {
                write!(f, "mask {mask}: joint {joint}'s weight is NaN, infinite, negative or (in a fade profile) 0")
            }
            Error::InvalidKnots { index } => {
                write!(f, "knot time {index}: not finite, not above the one before, or past the clip's frames")
            }
            Error::InvalidGraph { node, problem } => write!(f, "blend graph node {node}: {problem:?} invalid"),
            Error::MotionDatabase { part, problem } => write!(f, "motion database {part:?}: {problem:?}"),
            Error::InvalidFeatureQuery { dim } => {
                write!(f, "motion search query dimension {dim} is not finite, or too large once normalized")
            }
            Error::InvalidSearch => write!(
                f,
                "motion search: the continuing bias is NaN, infinite or negative, or the interval or transition not > 0"
            ),
            Error::NoMotionDatabase => write!(f, "motion matching: the asset holds no motion database"),
            Error::UnreadableFeatureGroup { group } => write!(
                f,
                "motion matching: feature group {group} is not position:JOINT, velocity:JOINT or a trajectory the \
                 character can fill"
            ),
            Error::InvalidTrajectory => {
                write!(f, "trajectory spring: a value not finite, a half-life not > 0 or a negative time")
            }
            Error::NoCandidate => {
                write!(f, "motion search: the filter, flags and exclusion window leave no frame to take")
            }
            Error::InvalidGraphParameter { parameter } => {
                write!(f, "blend graph parameter {parameter} is NaN, infinite, or negative as a sum's weight")
            }
            Error::MissingPreviousTarget => {
                write!(f, "relative-velocity inertialization needs the previous target pose on a request frame")
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
