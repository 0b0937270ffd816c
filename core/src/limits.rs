//! The runtime's documented limits, in one module that imports nothing: the constructors that enforce them
//! (`skeleton`, `clip`, `local_to_model`) and the error messages that quote them (`error`) all sit above it.
//! Each limit is also re-exported where it is enforced (`skeleton::MAX_JOINTS`, `clip::MAX_DURATION`, …).

/// Most joints a skeleton may have; kernels keep per-joint stack scratch bounded by this.
pub const MAX_JOINTS: usize = 1024;

/// Bound on model-space magnitudes: along every chain, the product of the joints' largest scale components
/// and the summed, scaled translations must stay below this (1e15 units: a kilometre in nanometres). Model
/// matrices then stay far from `f32::MAX`, with room for inverse bind matrices and vertex positions of the
/// same order. Checked on the rest pose by `Skeleton::new` and on every clip by `Asset::load`.
pub const MAX_MODEL_EXTENT: f32 = 1e15;

/// Slowest sample rate a clip may have, in frames per second.
pub const MIN_SAMPLE_RATE: f32 = 1.0;
/// Fastest sample rate a clip may have, in frames per second (motion capture reaches 480 Hz).
pub const MAX_SAMPLE_RATE: f32 = 1000.0;
/// Longest a clip may last, in seconds. With `MAX_SAMPLE_RATE` this keeps frame indices below 2^24, so an `f32`
/// time names every frame exactly.
pub const MAX_DURATION: f32 = 3600.0;

/// Stored values smaller than this in magnitude must be exactly zero (bakers flush them). Sums and
/// differences of such values then stay far above `f32::MIN_POSITIVE`, so interpolation never produces
/// subnormals.
pub const MIN_KEY_MAGNITUDE: f32 = 1e-20;

/// Rotations with |q|² below this are zero-length: they name no rotation and are rejected.
pub const MIN_ROTATION_LENGTH_SQ: f32 = 1e-12;
/// Squared length a stored rotation may have at most. Bakers store unit quaternions; a bound keeps the
/// interpolation of two keys (and its normalization) finite, where a component near `f32::MAX` overflowed.
pub const MAX_ROTATION_LENGTH_SQ: f32 = 4.0;

/// Fastest a control may play, in local seconds per game second (either direction). With `MAX_TIME_STEP` a
/// step travels at most 3.6e6 s, so wrap counts fit an `i64` even for the shortest clip.
pub const MAX_SPEED: f32 = 1000.0;
/// Longest single time step a clock accepts, in seconds (an hour: a paused game resuming).
pub const MAX_TIME_STEP: f32 = 3600.0;

/// Most layers a character has.
pub const MAX_CHARACTER_LAYERS: usize = 8;
/// Most control slots one layer has (a blend of at most this many clips: `blending::MAX_LAYERS`).
pub const MAX_LAYER_CONTROLS: usize = 16;
/// Most control slots a character has over all its layers.
pub const MAX_CONTROLS: usize = 64;
/// Most bone masks a character stores.
pub const MAX_MASKS: usize = 32;
/// Most scalar curve tracks a clip carries (`clip::Curves`).
pub const MAX_CLIP_CURVES: usize = 1024;
/// Largest magnitude a clip's curve value may have: the difference of two such values, and a compressed
/// curve's decode from its range, then stay far from `f32::MAX`, so interpolation cannot overflow.
pub const MAX_CURVE_MAGNITUDE: f32 = 1e30;
/// Most scalar curves a character inertializes.
pub const MAX_CURVES: usize = 256;
/// Most corrections an IK-by-interpolation job iterates (`aim_blend`); three usually converge.
pub const MAX_AIM_ITERATIONS: usize = 16;

/// Most feature dimensions a motion database has (Holden's demo has 27, O3DE's default 59); a search keeps its
/// normalized query on the stack.
pub const MAX_FEATURE_DIMS: usize = 128;
/// Most feature groups a motion database has; a match reports one cost per group.
pub const MAX_FEATURE_GROUPS: usize = 16;
/// Most frames a motion database holds (LAFAN1 is about 500 000 frames at 30 Hz).
pub const MAX_DATABASE_FRAMES: usize = 1 << 23;
/// Largest magnitude a normalized feature (stored or queried) may have: a squared distance over
/// `MAX_FEATURE_DIMS` of them stays far below `f32::MAX`.
pub const MAX_FEATURE_MAGNITUDE: f32 = 1e9;
