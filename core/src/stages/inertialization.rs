//! Inertialization: transitions as a post-process (Bollo, Gears of War 4, SIGGRAPH 2017).
//!
//! At a transition the game cuts straight to the target animation and the inertializer adds an offset that
//! starts at "what was displayed minus the target" and decays to exactly zero. Only the target is sampled, so
//! a transition costs one clip instead of a crossfade's two.
//!
//! The curve, per scalar degree of freedom (DOF), is the quintic of the talk's supplemental material:
//! `x0 = source − target`, `v0` the source's velocity (mirrored so `x0 >= 0`), `v0` clamped to 0 when it moves
//! away from the target, the duration `t1` limited to `−5 x0 / v0`, the initial acceleration `a0` from the
//! zero-jerk condition kept only when positive. See [`Quintic`] for how it is stored and evaluated.
//!
//! Channels per joint: translation (difference), rotation (the offset quaternion `source · target⁻¹` on the
//! shortest arc, as a rotation vector; the output is `exp(offset) · target`) and scale (difference), plus any
//! number of scalar curves (morph weights, IK weights). [`ChannelMode`] picks one curve along each offset
//! (projected) or one per component; [`VelocityMode`] picks the source's own velocity (absolute, the paper)
//! or its velocity relative to the target's (relative).
//!
//! Time: a transition's `t = 0` is the last displayed frame (the source), and the request's frame is
//! evaluated at `t = dt`. So the first output continues from what was on screen instead of repeating it.
//!
//! Layout: poses are SoA (`num_soa_joints` lane groups); curves are stored per pair of lane groups, one
//! eight-lane [`Quintic`] per DOF, 9 per pair (1152 bytes, 144 per joint), so x86-64-v3 evaluates two groups
//! per instruction; other targets, where an eight-lane value is two registers, evaluate one group at a
//! time from its half. Memory: all state lives in caller memory carved from an [`Arena`]; see
//! [`Inertializer::required_bytes`].
//!
//! Errors: bad input is rejected before any state changes (a request frame validates the target first), and
//! a per-frame output that comes out non-finite is not recorded as history, so the inertializer stays usable.
//!
//! A character's frame, all memory from the caller:
//!
//! ```
//! use sinew::math::{SoaTransform, Transform, Vec3, pack_soa};
//! use sinew::{Arena, InertializationJob, Inertializer, Target, Transition};
//!
//! let pose_at = |x: f32| {
//!     let mut soa = [SoaTransform::IDENTITY; 1];
//!     let t = Transform { translation: Vec3::new(x, 0.0, 0.0), ..Transform::IDENTITY };
//!     pack_soa(&[t; 3], &mut soa).map(|_| soa)
//! };
//! let mut memory = vec![0u8; Inertializer::required_bytes(3, 0)];
//! let arena = Arena::new(&mut memory);
//! let mut inertializer = Inertializer::new(&arena, 3, 0, Default::default())?;
//! let (walk, run) = (pose_at(0.0)?, pose_at(1.0)?);
//! for _ in 0..2 {
//!     let target = Target { pose: &walk, curves: &[], previous: None };
//!     InertializationJob { inertializer: &mut inertializer, dt: 1.0 / 60.0, target }.run()?;
//! }
//! // Cut to the run; the inertializer smooths it over 0.2 s.
//! inertializer.request(&Transition { duration: 0.2, profile: None })?;
//! let target = Target { pose: &run, curves: &[], previous: Some((&run, &[])) };
//! InertializationJob { inertializer: &mut inertializer, dt: 1.0 / 60.0, target }.run()?;
//! let x = inertializer.output().pose[0].translation.x.to_array()[0];
//! assert!(x > 0.0 && x < 0.1, "still near the walk's pose: {x}");
//! # Ok::<(), sinew::Error>(())
//! ```
//!
//! Precision: curve coefficients in `f32` (within a few ulps of the seed's formulas evaluated in `f64`, as the
//! tests check); rotation vectors within 5e-7 rad; output rotations unit within 1e-6.

use crate::arena::Arena;
use crate::data::skeleton::MAX_JOINTS;
use crate::error::{Buffer, Error};
use crate::math::{
    F4, F8, F8_IS_ONE_REGISTER, Lanes, SoaTransform, num_soa_joints, quat_mul, quat_mul_rotation_vector,
    quat_to_rotation_vector,
};
use bytemuck::{Pod, Zeroable};

/// Shortest duration a request accepts, seconds.
pub const MIN_DURATION: f32 = 1e-6;

/// How far the continuous shape lets a curve moving toward its target shorten: `t1 <= -17.5 x0 / v0`, just
/// inside the `≈ 17.56` at which its offset would touch 0 (see [`Quintic::shaped`]).
pub const CONTINUOUS_APPROACH_LIMIT: f32 = 17.5;

/// The most the continuous shape's velocity term reaches, over `v0 t1`: the peak of `τ (1 − τ)⁶`, at τ = 1/7,
/// `6⁶ / 7⁷`.
pub const CONTINUOUS_GROWTH: f32 = 46656.0 / 823543.0;

/// Relative amount `1/t1` is raised by, so `t1 · (1/t1)` rounds to at least 1 (2^-22).
const INV_T1_ROUND_UP: f32 = 1.0 / (1 << 22) as f32;

/// One DOF's offset curve per lane, stored factored: the seed's quintic, or the continuous shape's two terms.
///
/// Both curves, in normalized time `τ = t / t1`, have `x(1) = x'(1) = x''(1) = 0`, so `(1 − τ)³` divides them.
/// - `Shape::Clamped`, the seed's quintic: `x(τ) = (1 − τ)³ (α + β τ + γ τ²)` with `α = x0`, `β = v0 t1 + 3 x0`
///   and `γ = (a0 t1² + 6 v0 t1 + 12 x0) / 2` (the seed's A, B, C expanded; the `f64` oracle in the tests uses
///   A, B, C as written).
/// - `Shape::Continuous`: `x(τ) = (1 − τ)³ (α (1 + 3τ + 6τ² + 10τ³) + β τ (1 − τ)³)` with `α = x0`,
///   `β = v0 t1` and `γ = 0`, that is `x0 (1 − 15 τ⁴ + 24 τ⁵ − 10 τ⁶) + v0 t1 τ (1 − τ)⁶`: the offset term
///   leaves with zero acceleration and jerk, the velocity term brakes from the start (`x''(0) = −12 v0 / t1`)
///   and has spent itself by mid-curve. One term per input, so offsets that cancel between DOFs at the start
///   keep cancelling.
///
/// [`Quintic::eval`] takes the shape the curve was made with. Evaluation clamps τ to 1: exactly 0 from `t1` on
/// because `1 − 1 = 0`; the quintic is one multiply, one min, two multiply-adds and three multiplies, no
/// select; the continuous shape three multiply-adds of constants, one multiply-add and five multiplies past τ,
/// and no γ to load. The mirror sign is folded into the coefficients.
///
/// Precision: where the quintic's zero-jerk `a0` applies, `α + β τ + γ τ²` itself has a root at τ = 1, so f32
/// rounding can leave a value on the wrong side of 0 next to t1; it is below `1e-7 · |x0| · (1 − τ)³`, far
/// under any visible overshoot. `1/t1` is rounded up by 2^-22, so curves end that much early.
///
/// Layout: four lanes of each coefficient (`L = F4`, 64 bytes) or eight, two lane groups side by side
/// (`L = F8`, 128 bytes: how the inertializer stores them, so x86-64-v3 evaluates two groups per instruction).
/// Units: those of the DOF (α), per second via `1/t1`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Quintic<L = F4> {
    /// α: the offset at the start.
    pub alpha: L,
    /// β (see above).
    pub beta: L,
    /// γ (see above; 0 for the continuous shape).
    pub gamma: L,
    /// `1/t1` after the limit, or 0 for a finished (or empty) curve, whose α, β, γ are then 0.
    pub inv_t1: L,
}

// SAFETY: four `F4` (16-aligned, 16 bytes) or four `F8` (32-aligned, 32 bytes) in `repr(C)`: no padding, and
// every bit pattern is valid.
unsafe impl bytemuck::Zeroable for Quintic<F4> {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for Quintic<F4> {}
// SAFETY: as above.
unsafe impl bytemuck::Zeroable for Quintic<F8> {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for Quintic<F8> {}

impl<L: Lanes> Quintic<L> {
    /// The offset at time `t >= 0` since the transition's start, for a curve made with `shape`.
    #[inline(always)]
    pub fn eval(&self, t: L, shape: Shape) -> L {
        match shape {
            Shape::Clamped => self.eval_shape::<false>(t),
            Shape::Continuous => self.eval_shape::<true>(t),
        }
    }

    /// [`Quintic::eval`] with the shape a constant (`CONTINUOUS`: `Shape::Continuous`), so each shape's loop is
    /// compiled from its own code: with the shape a run-time value folded late, LLVM sized the clamped loop
    /// with the continuous arm in it and spilled (SSE2 inertialization +24 % instructions, `cargo xtask
    /// budgets`).
    #[inline(always)]
    pub(crate) fn eval_shape<const CONTINUOUS: bool>(&self, t: L) -> L {
        let tau = (t * self.inv_t1).min(L::splat(1.0));
        let s = L::splat(1.0) - tau;
        if CONTINUOUS {
            let one = L::splat(1.0);
            let offset = L::splat(10.0).mul_add(tau, L::splat(6.0)).mul_add(tau, L::splat(3.0)).mul_add(tau, one);
            let cube = (s * s) * s;
            cube * self.alpha.mul_add(offset, self.beta * tau * cube)
        } else {
            (s * s) * (s * self.gamma.mul_add(tau, self.beta).mul_add(tau, self.alpha))
        }
    }
}

impl Quintic<F8> {
    /// Lane group `h` (0 or 1) of the pair.
    #[inline(always)]
    pub(crate) fn half(&self, h: usize) -> Quintic<F4> {
        let pick = |v: F8| if h == 0 { v.halves().0 } else { v.halves().1 };
        Quintic { alpha: pick(self.alpha), beta: pick(self.beta), gamma: pick(self.gamma), inv_t1: pick(self.inv_t1) }
    }
}

impl<L: Lanes> Quintic<L> {
    /// Coefficients for offset `x0`, offset velocity `v0` and duration `t1` (> 0) per lane, as the paper does.
    #[inline(always)]
    pub fn new(x0: L, v0: L, t1: L) -> Quintic<L> {
        Quintic::with_duration(x0, v0, t1).0
    }

    /// As [`Quintic::new`], with the duration after the limit (0 for a finished curve): the time from which
    /// the curve is 0.
    #[inline(always)]
    pub fn with_duration(x0: L, v0: L, t1: L) -> (Quintic<L>, L) {
        Quintic::shaped(x0, v0, t1, Shape::Clamped)
    }

    /// The curve of `shape` for offset `x0`, offset velocity `v0` and duration `t1` (> 0) per lane, and its
    /// duration after the limit (0 for a finished curve).
    ///
    /// `Shape::Continuous` keeps `v0` on every curve, so `x'(0) = v0`. The curve never changes sign: mirrored
    /// so `x0 >= 0` (by `v0`'s sign where `x0 = 0`), a curve moving toward 0 is shortened to
    /// `t1 <= -CONTINUOUS_APPROACH_LIMIT · x0 / v0`, under which `x0 (1 + 3τ + 6τ² + 10τ³) + v0 t1 τ (1 − τ)³`
    /// stays `>= 0` on [0, 1] (with `u = -v0 t1 / x0`, while `u < min (1 + 3τ + 6τ² + 10τ³) / (τ (1 − τ)³)
    /// ≈ 17.56`, at τ ≈ 0.145); one moving away has both terms `>= 0`. Its magnitude stays below
    /// `|x0| + CONTINUOUS_GROWTH · max(0, v0) · t1` (mirrored `v0`; the offset term falls from x0 to 0
    /// monotonically and the velocity term `v0 t1 τ (1 − τ)⁶` is largest at τ = 1/7): the most a source moving
    /// away carries the offset before the curve turns back.
    #[inline(always)]
    pub fn shaped(x0: L, v0: L, t1: L, shape: Shape) -> (Quintic<L>, L) {
        let zero = L::splat(0.0);
        // Mirror so x0 >= 0: the sign of x0 moves onto the velocity now and back onto the coefficients. An
        // offset of exactly 0 that moves is mirrored by its velocity, so it moves away (continuous shape).
        let x0_signed = match shape {
            Shape::Clamped => x0,
            Shape::Continuous => L::select(x0.cmp_ne(zero), x0, v0),
        };
        let x0 = x0.abs();
        let v0 = match shape {
            // Moving away from the target: clamp the velocity to 0 so the curve stays between source and target.
            Shape::Clamped => v0.mul_sign(x0_signed).min(zero),
            Shape::Continuous => v0.mul_sign(x0_signed),
        };
        // No sign change before t1: t1 <= -limit · x0 / v0 where v0 < 0 (other lanes' quotients are discarded).
        let approach = match shape {
            Shape::Clamped => 5.0,
            Shape::Continuous => CONTINUOUS_APPROACH_LIMIT,
        };
        let limit = L::select(v0.cmp_lt(zero), L::splat(-approach) * x0 / v0, L::splat(f32::INFINITY));
        let t1 = t1.min(limit);
        let v = v0 * t1;
        let (beta, gamma) = match shape {
            Shape::Clamped => {
                // a0 t1² from the zero-jerk condition a0 = (-8 t1 v0 - 20 x0) / t1², kept when positive.
                let acc = L::splat(-8.0).mul_add(v, L::splat(-20.0) * x0).max(zero);
                (
                    L::splat(3.0).mul_add(x0, v),
                    L::splat(0.5) * L::splat(6.0).mul_add(v, L::splat(12.0).mul_add(x0, acc)),
                )
            }
            Shape::Continuous => (v, zero),
        };
        // A limit below the smallest normal f32 (x0 = 0, or a subnormal x0) has nothing left to do; every other
        // t1 keeps 1/t1 finite.
        let finished = t1.cmp_lt(L::splat(f32::MIN_POSITIVE));
        let signed = |c: L| c.mul_sign(x0_signed).zero_where(finished);
        let curve = Quintic {
            alpha: signed(x0),
            beta: signed(beta),
            gamma: signed(gamma),
            // Rounded up (by at most 2.4e-7 relative) so that t1 * (1/t1) >= 1 in f32: exactly 0 from t1 on.
            inv_t1: (L::splat(1.0) / t1 * L::splat(1.0 + INV_T1_ROUND_UP)).zero_where(finished),
        };
        (curve, t1.zero_where(finished))
    }
}

/// How a 3-D channel's offset becomes curves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelMode {
    /// One curve along the offset's direction (Unreal's way): the velocity's perpendicular part is dropped.
    Projected,
    /// One curve per component: the full 3-D velocity is kept.
    PerComponent,
}

/// Which velocity the curve starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VelocityMode {
    /// The source's own velocity (the paper). Needs no extra target pose.
    Absolute,
    /// Source velocity minus target velocity, from one extra target pose at the request: the output's velocity
    /// then matches the source's at the switch (where the clamp does not fire).
    Relative,
}

/// What a curve does with a source moving away from the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The paper: its velocity is clamped to 0, so the offset stays between source and target, and the
    /// output's velocity jumps at the switch wherever the clamp fires.
    Clamped,
    /// Its velocity is kept on every curve: with per-component channels and relative velocity the output's
    /// velocity at the switch is the source's (C1), the offset still never changes sign, and it grows by at
    /// most `CONTINUOUS_GROWTH · v0 · t1` (≈ 0.057) past its start. The offset leaves on a sextic with zero
    /// acceleration and jerk, the velocity on `v0 t1 τ (1 − τ)⁶` (see [`Quintic`] and [`Quintic::shaped`]).
    Continuous,
}

/// How transitions are shaped; fixed for an inertializer's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Per component or projected.
    pub channel: ChannelMode,
    /// Absolute or relative velocity.
    pub velocity: VelocityMode,
    /// The curve's shape.
    pub shape: Shape,
}

impl Settings {
    /// The settings as one number in `0..8` (channel mode, velocity mode and shape as bits), the form caller
    /// memory keeps them in.
    pub fn code(self) -> u32 {
        self.channel as u32 + 2 * self.velocity as u32 + 4 * self.shape as u32
    }

    /// The settings of `code`, `None` outside `0..8`.
    pub fn from_code(code: u32) -> Option<Settings> {
        (code < 8).then_some(Settings {
            channel: if code & 1 == 0 { ChannelMode::Projected } else { ChannelMode::PerComponent },
            velocity: if code & 2 == 0 { VelocityMode::Absolute } else { VelocityMode::Relative },
            shape: if code & 4 == 0 { Shape::Clamped } else { Shape::Continuous },
        })
    }
}

impl Default for Settings {
    /// Per-component, relative: the lowest start-velocity jump and added jerk on the shared mocap, and no
    /// local offset changing sign (`sinew-bench quality`; the table is in docs/guide/transitions.md).
    fn default() -> Settings {
        Settings { channel: ChannelMode::PerComponent, velocity: VelocityMode::Relative, shape: Shape::Clamped }
    }
}

/// One transition request.
#[derive(Clone, Copy, Debug)]
pub struct Transition<'a> {
    /// Seconds; finite and ≥ `MIN_DURATION`.
    pub duration: f32,
    /// Optional per-joint factors on `duration` (SoA, one `F4` per lane group; finite and > 0 for real
    /// joints, padding lanes ignored), e.g. 0.5 for fingers so they settle before the spine.
    pub profile: Option<&'a [F4]>,
}

/// The target of one frame: the pose the animation graph produced, and its scalar curves.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// The target pose, SoA (`num_soa_joints` lane groups).
    pub pose: &'a [SoaTransform],
    /// The target's scalar curves, one value per curve.
    pub curves: &'a [f32],
    /// The target one frame earlier (`dt` before), read only on a request frame in relative mode.
    pub previous: Option<(&'a [SoaTransform], &'a [f32])>,
}

/// One frame's output, borrowed from the inertializer's history until the next call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Output<'s> {
    /// SoA local pose, `num_soa_joints` lane groups.
    pub pose: &'s [SoaTransform],
    /// The scalar curves, one value per curve.
    pub curves: &'s [f32],
}

/// Advances an [`Inertializer`] by `dt` seconds: this frame's output is the target plus the decaying offset
/// (the target unchanged when no transition is in flight). A pending request starts here, from the last output.
///
/// The output lives in the inertializer's history (it is the source of the next request), so it is not
/// copied into a caller buffer: read it with [`Inertializer::output`] and pass it on to local-to-model.
///
/// Layout: SoA poses, `num_soa_joints` lane groups; curves one `f32` each.
#[derive(Debug)]
pub struct InertializationJob<'j, 'a> {
    /// The inertializer's state; its history receives the output.
    pub inertializer: &'j mut Inertializer<'a>,
    /// Seconds since the last run; finite and ≥ 0.
    pub dt: f32,
    /// This frame's target.
    pub target: Target<'j>,
}

impl InertializationJob<'_, '_> {
    /// O(1) checks, the inertializer unchanged.
    ///
    /// Errors: `InvalidTimeStep` for a NaN, infinite or negative `dt`; `BufferLength` (`SoaPose` for the target
    /// and previous target; `Curves` for curve slices); `MissingPreviousTarget` on a request frame in relative
    /// mode without `target.previous`.
    pub fn validate(&self) -> Result<(), Error> {
        let (inertializer, target) = (&*self.inertializer, &self.target);
        if !(self.dt.is_finite() && self.dt >= 0.0) {
            return Err(Error::InvalidTimeStep);
        }
        let g = inertializer.pending.len();
        crate::error::check_len(Buffer::SoaPose, g, target.pose.len())?;
        crate::error::check_len(Buffer::Curves, inertializer.num_curves, target.curves.len())?;
        if inertializer.has_request() {
            match (inertializer.settings.velocity, target.previous) {
                (VelocityMode::Relative, None) => return Err(Error::MissingPreviousTarget),
                (VelocityMode::Relative, Some((pose, curves))) => {
                    crate::error::check_len(Buffer::SoaPose, g, pose.len())?;
                    crate::error::check_len(Buffer::Curves, inertializer.num_curves, curves.len())?;
                }
                (VelocityMode::Absolute, _) => {}
            }
        }
        Ok(())
    }

    /// Validates, then advances the inertializer.
    ///
    /// Errors, with the inertializer unchanged: those of `validate`; on a request frame, `NonFinite` /
    /// `ZeroQuaternion` (`SoaPose`, lane group) for a bad target or previous target, `NonFinite` (`Curves`)
    /// for a bad curve; `NonFinite` (`SoaPose` or `Curves`, lane group or curve) when the output comes out
    /// non-finite.
    pub fn run(&mut self) -> Result<(), Error> {
        self.validate()?;
        self.inertializer.advance(self.dt, &self.target)
    }
}

/// Curves of the nine DOFs of two lane groups: translation xyz, rotation-vector xyz, scale xyz.
type PairCurves = [Quintic<F8>; 9];

/// The inertializer's state: the last two outputs and the curves of the transition in flight.
#[derive(Debug)]
pub struct Inertializer<'a> {
    settings: Settings,
    num_joints: usize,
    num_curves: usize,
    /// Two outputs, `[slot][group]` flattened: slot `newest` holds the last one.
    history: &'a mut [SoaTransform],
    curve_history: &'a mut [F4],
    /// Per pair of lane groups (the last one padded with empty curves).
    curves: &'a mut [PairCurves],
    /// Per pair of lane groups, bit `c` set when channel `c` (translation, rotation, scale) has a non-zero
    /// curve in any lane: the others are neither read nor computed. Real rigs animate few translations and
    /// scales.
    active: &'a mut [u8],
    scalar_curves: &'a mut [Quintic],
    /// Per-joint durations of this frame's requests (the shortest wins), `+inf` where none.
    pending: &'a mut [F4],
    /// Everything else that changes, in the caller's memory too, so an inertializer can be re-attached to it.
    state: &'a mut State,
}

/// The inertializer's scalar state (plain data in caller memory).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct State {
    /// What the state was made for ([`Settings::code`]), checked by [`Inertializer::attach`].
    settings: u32,
    num_joints: u32,
    num_curves: u32,
    pending_scalar: f32,
    has_pending: u32,
    newest: u32,
    frames: u32,
    /// `dt` between the two history outputs.
    history_dt: f32,
    /// Time since the transition's `t = 0`, and the time from which every curve is 0.
    elapsed: f32,
    end: f32,
}

impl<'a> Inertializer<'a> {
    /// Bytes an arena needs for an inertializer of `num_joints` joints and `num_curves` scalar curves
    /// (alignment padding included): per joint about 229 bytes (two history poses 80, curves 144, pending
    /// duration 4, a channel mask byte per eight joints), per scalar curve 28 (history 8, curve 16, pending 4),
    /// in whole lane groups, plus 44 bytes of scalar state.
    pub const fn required_bytes(num_joints: usize, num_curves: usize) -> usize {
        let (g, c) = (num_soa_joints(num_joints), num_curves.div_ceil(4));
        Arena::required_bytes::<State>(1)
            + Arena::required_bytes::<SoaTransform>(2 * g)
            + Arena::required_bytes::<F4>(2 * c)
            + Arena::required_bytes::<PairCurves>(g.div_ceil(2))
            + Arena::required_bytes::<u8>(g.div_ceil(2))
            + Arena::required_bytes::<Quintic>(c)
            + Arena::required_bytes::<F4>(g)
    }

    /// An inertializer with no history and no transition, its state carved from `arena`.
    ///
    /// Errors: `JointCount` unless `1 <= num_joints <= MAX_JOINTS`; `ArenaExhausted`.
    pub fn new(
        arena: &'a Arena<'_>,
        num_joints: usize,
        num_curves: usize,
        settings: Settings,
    ) -> Result<Inertializer<'a>, Error> {
        let mut inertializer = Inertializer::carve(arena, num_joints, num_curves, true)?;
        *inertializer.state = State {
            settings: settings.code(),
            num_joints: num_joints as u32,
            num_curves: num_curves as u32,
            ..State::zeroed()
        };
        inertializer.settings = settings;
        inertializer.reset();
        Ok(inertializer)
    }

    /// Re-attaches to the state an earlier [`Inertializer::new`] laid out at the same place in an arena over
    /// the same bytes (or a byte-for-byte copy of them at the same alignment): the transition in flight and
    /// the history carry on.
    ///
    /// Errors: `JointCount` as for `new`; `ArenaExhausted`; `StateMismatch` when the bytes do not hold an
    /// inertializer of `num_joints` joints and `num_curves` curves.
    pub fn attach(arena: &'a Arena<'_>, num_joints: usize, num_curves: usize) -> Result<Inertializer<'a>, Error> {
        let mut inertializer = Inertializer::carve(arena, num_joints, num_curves, false)?;
        let state = &mut *inertializer.state;
        let settings = Settings::from_code(state.settings).ok_or(Error::StateMismatch)?;
        if state.num_joints as usize != num_joints || state.num_curves as usize != num_curves || state.newest > 1 {
            return Err(Error::StateMismatch);
        }
        state.frames = state.frames.min(2);
        inertializer.settings = settings;
        Ok(inertializer)
    }

    /// Lays out the state in `arena`, zeroed (`new`) or as the bytes are (`attach`).
    fn carve(
        arena: &'a Arena<'_>,
        num_joints: usize,
        num_curves: usize,
        zeroed: bool,
    ) -> Result<Inertializer<'a>, Error> {
        if num_joints == 0 || num_joints > MAX_JOINTS {
            return Err(Error::JointCount { count: num_joints, max: MAX_JOINTS });
        }
        let (g, c) = (num_soa_joints(num_joints), num_curves.div_ceil(4));
        let state = &mut arena.take::<State>(1, zeroed)?[0];
        Ok(Inertializer {
            settings: Settings::default(),
            num_joints,
            num_curves,
            history: arena.take::<SoaTransform>(2 * g, zeroed)?,
            curve_history: arena.take::<F4>(2 * c, zeroed)?,
            curves: arena.take::<PairCurves>(g.div_ceil(2), zeroed)?,
            active: arena.take::<u8>(g.div_ceil(2), zeroed)?,
            scalar_curves: arena.take::<Quintic>(c, zeroed)?,
            pending: arena.take::<F4>(g, zeroed)?,
            state,
        })
    }

    /// Forgets the history, any transition in flight and pending requests (a teleport): the next output is
    /// the target, and a request on that frame has no source to start from.
    pub fn reset(&mut self) {
        self.state.newest = 0;
        self.pending.fill(F4::splat(f32::INFINITY));
        self.state.pending_scalar = f32::INFINITY;
        self.state.has_pending = 0;
        self.state.frames = 0;
        self.state.elapsed = 0.0;
        self.state.end = 0.0;
    }

    /// The settings the inertializer was made with.
    #[inline]
    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// Joints it was made for.
    #[inline]
    pub fn num_joints(&self) -> usize {
        self.num_joints
    }

    /// Scalar curves it was made for.
    #[inline]
    pub fn num_curves(&self) -> usize {
        self.num_curves
    }

    /// True when a request waits for the next [`InertializationJob`] (which then needs the previous target in
    /// relative mode).
    #[inline]
    pub fn has_request(&self) -> bool {
        self.state.has_pending != 0
    }

    /// The last output [`InertializationJob`] produced (all zero before the first run).
    pub fn output(&self) -> Output<'_> {
        let (g, c) = (self.pending.len(), self.scalar_curves.len());
        let newest = self.newest();
        Output {
            pose: &self.history[newest * g..][..g],
            curves: &bytemuck::cast_slice(&self.curve_history[newest * c..][..c])[..self.num_curves],
        }
    }

    /// True while a transition's offset is not yet zero everywhere.
    #[inline]
    pub fn is_transitioning(&self) -> bool {
        self.state.elapsed < self.state.end
    }

    /// Asks for a transition on the next [`InertializationJob`] run. Several requests before one run
    /// combine per joint: the shortest duration wins.
    ///
    /// Errors (nothing recorded): `InvalidDuration { joint: None }` for a duration that is NaN, infinite or
    /// below `MIN_DURATION`; `BufferLength` (`DurationProfile`); `InvalidDuration { joint: Some(j) }` for a
    /// profile factor that is not finite and > 0, or makes the duration too short.
    pub fn request(&mut self, transition: &Transition) -> Result<(), Error> {
        let duration = transition.duration;
        if !(duration.is_finite() && duration >= MIN_DURATION) {
            return Err(Error::InvalidDuration { joint: None });
        }
        if let Some(profile) = transition.profile {
            crate::error::check_len(Buffer::DurationProfile, self.pending.len(), profile.len())?;
            let bad = (0..self.num_joints).find(|&j| {
                let d = duration * profile[j / 4].to_array()[j % 4];
                !(d.is_finite() && d >= MIN_DURATION)
            });
            if let Some(joint) = bad {
                return Err(Error::InvalidDuration { joint: Some(joint) });
            }
        }
        let lanes = F4::splat(duration);
        for (g, pending) in self.pending.iter_mut().enumerate() {
            // Padding lanes take the plain duration; their offsets are zero anyway.
            let factor = transition.profile.map_or(F4::ONE, |p| {
                let real = F4::lane_mask((1u32 << (self.num_joints - 4 * g).min(4)) - 1);
                F4::select(real, p[g], F4::ONE)
            });
            *pending = pending.min(lanes * factor);
        }
        self.state.pending_scalar = self.state.pending_scalar.min(duration);
        self.state.has_pending = 1;
        Ok(())
    }

    /// The work of [`InertializationJob::run`] on validated input.
    fn advance(&mut self, dt: f32, target: &Target) -> Result<(), Error> {
        let g = self.pending.len();
        if self.state.has_pending != 0 {
            let previous = match self.settings.velocity {
                VelocityMode::Relative => target.previous,
                VelocityMode::Absolute => None,
            };
            if let Some((pose, _)) = previous {
                check_pose(pose)?;
            }
            check_pose(target.pose)?;
            check_curves(target.curves)?;
            if let Some((_, curves)) = previous {
                check_curves(curves)?;
            }
            if self.state.frames > 0 {
                self.start(dt, target, previous);
            }
            self.pending.fill(F4::splat(f32::INFINITY));
            self.state.pending_scalar = f32::INFINITY;
            self.state.has_pending = 0;
        }
        let elapsed = self.state.elapsed + dt;
        let next = 1 - self.newest();
        let t = F4::splat(elapsed);
        let active = elapsed < self.state.end;
        let pose = &mut self.history[next * g..][..g];
        let sum = if active {
            // One monomorphic loop per shape: the shape is a constant inside each.
            let (curves, mask) = (&self.curves[..], &self.active[..]);
            match self.settings.shape {
                Shape::Clamped => evaluate::<false>(curves, mask, t, target.pose, pose),
                Shape::Continuous => evaluate::<true>(curves, mask, t, target.pose, pose),
            }
        } else {
            copy_pose(target.pose, pose)
        };
        if sum.non_finite_mask().any_set() {
            return Err(first_non_finite_group(pose));
        }
        let c = self.scalar_curves.len();
        let curves = &mut self.curve_history[next * c..][..c];
        let mut curve_sum = F4::ZERO;
        for ((curve, out), tgt) in self.scalar_curves.iter().zip(curves.iter_mut()).zip(target.curves.chunks(4)) {
            *out = load_lanes(tgt) + if active { curve.eval(t, self.settings.shape) } else { F4::ZERO };
            curve_sum = curve_sum + *out;
        }
        let curves: &[f32] = &bytemuck::cast_slice::<F4, f32>(curves)[..self.num_curves];
        if curve_sum.non_finite_mask().any_set() {
            let index = curves.iter().position(|v| !v.is_finite()).unwrap_or(0);
            return Err(Error::NonFinite { buffer: Buffer::Curves, index });
        }
        self.state.newest = next as u32;
        self.state.frames = (self.state.frames + 1).min(2);
        self.state.history_dt = dt;
        self.state.elapsed = if active { elapsed } else { self.state.end };
        Ok(())
    }

    /// The history slot holding the last output.
    #[inline]
    fn newest(&self) -> usize {
        (self.state.newest & 1) as usize
    }

    /// Computes every curve for a transition starting at the last output (`t = 0`), evaluated first at `dt`.
    fn start(&mut self, dt: f32, target: &Target, previous: Option<(&[SoaTransform], &[f32])>) {
        let inv_dt = if dt > 0.0 { 1.0 / dt } else { 0.0 };
        let have_velocity = self.state.frames >= 2 && self.state.history_dt > 0.0;
        let inv_history_dt = if have_velocity { 1.0 / self.state.history_dt } else { 0.0 };
        let g = self.pending.len();
        let (newest, older) = (&self.history[self.newest() * g..][..g], &self.history[(1 - self.newest()) * g..][..g]);
        let (mode, shape) = (self.settings.channel, self.settings.shape);
        let (inv_dt8, inv_history_dt8) = (F8::splat(inv_dt), F8::splat(inv_history_dt));
        let mut end8 = F8::splat(0.0);
        // Two lane groups at a time in `F8`, the layout the curves are stored in, one channel at a time so only
        // its offsets and velocities are live.
        for (pair, (curves, active)) in self.curves.iter_mut().zip(self.active.iter_mut()).enumerate() {
            let (lo, hi) = (2 * pair, 2 * pair + 1);
            let both = |pose| group_pair(pose, lo);
            let source = both(newest);
            let source_prev = if have_velocity { both(older) } else { source };
            // t = 0 is the last output's frame: the target there is the previous target (relative) or, in
            // absolute mode, the current one held still.
            let target_now = both(target.pose);
            let target_at_zero = previous.map_or(target_now, |(p, _)| both(p));
            let t1 = F8::from_halves(self.pending[lo], self.pending.get(hi).copied().unwrap_or(F4::ZERO));
            *active = 0;
            let mut store = |channel: usize, x0: [F8; 3], v0: [F8; 3]| {
                let (three, duration) = channel_curves(mode, shape, x0, v0, t1);
                end8 = end8.max(duration);
                for (d, q) in three.into_iter().enumerate() {
                    let zero = F8::splat(0.0);
                    let nonzero = q.alpha.cmp_ne(zero) | q.beta.cmp_ne(zero) | q.gamma.cmp_ne(zero);
                    *active |= (nonzero.any_set() as u8) << channel;
                    curves[3 * channel + d] = q;
                }
            };
            // Translation and scale: x0 = source − target(0), v0 = the source's velocity, minus the target's
            // (T(dt) − T(0)) / dt in relative mode.
            for (channel, first) in [(0, 0), (2, 7)] {
                let (mut x0, mut v0) = ([F8::splat(0.0); 3], [F8::splat(0.0); 3]);
                for k in 0..3 {
                    let [s, p, t0, tn] =
                        [source, source_prev, target_at_zero, target_now].map(|t| pair_component(t, first + k));
                    x0[k] = s - t0;
                    v0[k] = (s - p) * inv_history_dt8;
                    if previous.is_some() {
                        v0[k] = v0[k] - (tn - t0) * inv_dt8;
                    }
                }
                store(channel, x0, v0);
            }
            // Rotation: offsets as rotation vectors, each in the hemisphere of the first so differences never wrap.
            let rotation = |t: GroupPair<'_>| core::array::from_fn::<F8, 4, _>(|k| pair_component(t, 3 + k));
            let (x0, reference) = rotation_offset(rotation(source), rotation(target_at_zero), None);
            let (x_prev, _) = rotation_offset(rotation(source_prev), rotation(target_at_zero), Some(reference));
            let mut v0: [F8; 3] = core::array::from_fn(|k| (x0[k] - x_prev[k]) * inv_history_dt8);
            if previous.is_some() {
                // Relative: (T(dt) − T(0)) / dt = (x0 − (source − T(dt))) / dt.
                let (x_now, _) = rotation_offset(rotation(source), rotation(target_now), Some(reference));
                v0 = core::array::from_fn(|k| v0[k] - (x0[k] - x_now[k]) * inv_dt8);
            }
            store(1, x0, v0);
        }
        let (end_lo, end_hi) = end8.halves();
        let mut end = end_lo.max(end_hi);
        let (inv_dt, inv_history_dt) = (F4::splat(inv_dt), F4::splat(inv_history_dt));
        let (newest, older) = (self.newest(), 1 - self.newest());
        let c = self.scalar_curves.len();
        let t1 = F4::splat(self.state.pending_scalar);
        let previous_curves = previous.map_or(target.curves, |(_, p)| p);
        for (i, (now, at_zero)) in target.curves.chunks(4).zip(previous_curves.chunks(4)).enumerate() {
            let (now, at_zero) = (load_lanes(now), load_lanes(at_zero));
            let source = self.curve_history[newest * c + i];
            let source_prev = if have_velocity { self.curve_history[older * c + i] } else { source };
            let x0 = source - at_zero;
            let mut v0 = (x0 - (source_prev - at_zero)) * inv_history_dt;
            if previous.is_some() {
                v0 = v0 - (now - at_zero) * inv_dt;
            }
            let (q, duration) = Quintic::shaped(x0, v0, t1, shape);
            end = end.max(duration);
            self.scalar_curves[i] = q;
        }
        let [a, b, c, d] = end.to_array();
        self.state.end = a.max(b).max(c).max(d);
        self.state.elapsed = 0.0;
    }
}

/// Lanes from up to four values (missing lanes 0).
#[inline(always)]
fn load_lanes(values: &[f32]) -> F4 {
    let mut lanes = [0.0; 4];
    lanes[..values.len()].copy_from_slice(values);
    F4::from_array(lanes)
}

/// The rotation offset `source · target⁻¹` of `(x, y, z, w)` lanes as a rotation vector, along the shortest
/// arc or, given `reference`, in the hemisphere of `reference` (so differences of nearby offsets never wrap).
/// Returns the offset quaternion used, as the reference for later calls.
#[inline(always)]
fn rotation_offset<L: Lanes>(source: [L; 4], target: [L; 4], reference: Option<[L; 4]>) -> ([L; 3], [L; 4]) {
    let [x, y, z, w] = target;
    let q = quat_mul(source, [-x, -y, -z, w]);
    // Against the identity the dot product is just w.
    let dot = reference.map_or(q[3], |r| q[0].mul_add(r[0], q[1].mul_add(r[1], q[2].mul_add(r[2], q[3] * r[3]))));
    let q = q.map(|c| c.mul_sign(dot));
    (quat_to_rotation_vector(q), q)
}

/// Lane groups `lo` and `lo + 1` of a pose.
type GroupPair<'p> = (&'p SoaTransform, &'p SoaTransform);

/// Lane groups `lo` and `lo + 1`; the padding group past an odd count reads the identity (zero offsets, so
/// finished curves).
#[inline(always)]
fn group_pair(pose: &[SoaTransform], lo: usize) -> GroupPair<'_> {
    (&pose[lo], pose.get(lo + 1).unwrap_or(&SoaTransform::IDENTITY))
}

/// Component `c` (in [`SoaTransform::components`] order) of two lane groups, side by side.
#[inline(always)]
fn pair_component((lo, hi): GroupPair<'_>, c: usize) -> F8 {
    F8::from_halves(lo.components()[c], hi.components()[c])
}

/// The three curves of one 3-D channel, and the longest of their durations.
#[inline(always)]
fn channel_curves<L: Lanes>(mode: ChannelMode, shape: Shape, x0: [L; 3], v0: [L; 3], t1: L) -> ([Quintic<L>; 3], L) {
    match mode {
        ChannelMode::PerComponent => {
            let [(x, dx), (y, dy), (z, dz)] = core::array::from_fn(|k| Quintic::shaped(x0[k], v0[k], t1, shape));
            ([x, y, z], dx.max(dy).max(dz))
        }
        ChannelMode::Projected => {
            // One curve along the offset: x0 = |offset|, v0 = velocity · direction. The component curves are
            // that curve scaled by the direction (the quintic is linear in its coefficients).
            let zero = L::splat(0.0);
            let len = x0[0].mul_add(x0[0], x0[1].mul_add(x0[1], x0[2] * x0[2])).sqrt();
            let inv = L::select(len.cmp_gt(zero), L::splat(1.0) / len, zero);
            let dir = x0.map(|x| x * inv);
            let speed = v0[0].mul_add(dir[0], v0[1].mul_add(dir[1], v0[2] * dir[2]));
            let (q, duration) = Quintic::shaped(len, speed, t1, shape);
            (
                dir.map(|d| Quintic { alpha: q.alpha * d, beta: q.beta * d, gamma: q.gamma * d, inv_t1: q.inv_t1 }),
                duration,
            )
        }
    }
}

/// Output = target + offsets at `t`, channels whose `active` bit is clear copied. Returns the lane sum of
/// every output value.
///
/// Where an `F8` is one register (x86-64-v3), two lane groups go through each instruction. Elsewhere an
/// `F8` is two registers, and pairing doubles the live state past SSE2's sixteen: there each group runs
/// alone on its half of the curves.
#[inline(always)]
fn evaluate<const CONTINUOUS: bool>(
    curves: &[PairCurves],
    active: &[u8],
    t: F4,
    target: &[SoaTransform],
    output: &mut [SoaTransform],
) -> F4 {
    let mut sum = F4::ZERO;
    let pairs = curves.iter().zip(active).zip(target.chunks(2).zip(output.chunks_mut(2)));
    if F8_IS_ONE_REGISTER {
        let t = F8::from_halves(t, t);
        // Summed as eight lanes before the halves are stored: the padding half is the identity plus empty
        // curves, always finite, so it never raises a false error.
        let mut sum8 = F8::splat(0.0);
        for ((c, &mask), (tgt, out)) in pairs {
            // An odd count's last pair computes its padding half from the identity and never stores it.
            let (lo, hi) = (&tgt[0], tgt.get(1).unwrap_or(&SoaTransform::IDENTITY));
            let (lo_c, hi_c) = (lo.components(), hi.components());
            let values = offset_target::<_, _, CONTINUOUS>(
                |k| c[k],
                mask,
                t,
                core::array::from_fn(|k| F8::from_halves(lo_c[k], hi_c[k])),
            );
            sum8 = sum8 + components_sum(&values);
            let halves = values.map(F8::halves);
            let (a, b): (SoaTransform, SoaTransform) =
                (bytemuck::cast(halves.map(|h| h.0)), bytemuck::cast(halves.map(|h| h.1)));
            out[0] = a;
            if let Some(second) = out.get_mut(1) {
                *second = b;
            }
        }
        let (lo, hi) = sum8.halves();
        sum = lo + hi;
    } else {
        for ((c, &mask), (tgt, out)) in pairs {
            for (h, (tgt, out)) in tgt.iter().zip(out).enumerate() {
                let curve = |k: usize| c[k].half(h);
                let group: SoaTransform =
                    bytemuck::cast(offset_target::<_, _, CONTINUOUS>(curve, mask, t, *tgt.components()));
                *out = group;
                sum = sum + lane_sum(&group);
            }
        }
    }
    sum
}

/// One or two lane groups' components (in [`SoaTransform::components`] order) plus their offsets at `t`;
/// `curve(k)` is DOF `k`'s curve, read only for the channels set in `mask`.
#[inline(always)]
fn offset_target<L: Lanes, C: Fn(usize) -> Quintic<L>, const CONTINUOUS: bool>(
    curve: C,
    mask: u8,
    t: L,
    target: [L; 10],
) -> [L; 10] {
    let offset = |first: usize| core::array::from_fn::<L, 3, _>(|k| curve(first + k).eval_shape::<CONTINUOUS>(t));
    let mut out = target;
    if mask & 1 != 0 {
        let x = offset(0);
        (0..3).for_each(|k| out[k] = target[k] + x[k]);
    }
    if mask & 2 != 0 {
        let rotation = [target[3], target[4], target[5], target[6]];
        out[3..7].copy_from_slice(&quat_mul_rotation_vector(offset(3), rotation));
    }
    if mask & 4 != 0 {
        let x = offset(6);
        (0..3).for_each(|k| out[7 + k] = target[7 + k] + x[k]);
    }
    out
}

/// No transition: output = target.
#[inline(always)]
fn copy_pose(target: &[SoaTransform], output: &mut [SoaTransform]) -> F4 {
    let mut sum = F4::ZERO;
    for (tgt, out) in target.iter().zip(output.iter_mut()) {
        *out = *tgt;
        sum = sum + lane_sum(tgt);
    }
    sum
}

/// Sum of a transform's ten lanes vectors: NaN when any is NaN or infinite (or the sum overflows).
#[inline(always)]
fn lane_sum(t: &SoaTransform) -> F4 {
    components_sum(t.components())
}

/// [`lane_sum`] of one or two lane groups' components (in [`SoaTransform::components`] order).
#[inline(always)]
fn components_sum<L: Lanes>(c: &[L; 10]) -> L {
    ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7])) + (c[8] + c[9])
}

#[cold]
fn first_non_finite_group(output: &[SoaTransform]) -> Error {
    let index = output.iter().position(|t| lane_sum(t).non_finite_mask().any_set()).unwrap_or(0);
    Error::NonFinite { buffer: Buffer::SoaPose, index }
}

/// A pose that a request may start from: finite, with no zero-length rotation. Reports the lane group.
fn check_pose(pose: &[SoaTransform]) -> Result<(), Error> {
    for (index, t) in pose.iter().enumerate() {
        if lane_sum(t).non_finite_mask().any_set() {
            return Err(Error::NonFinite { buffer: Buffer::SoaPose, index });
        }
        if t.rotation.dot(t.rotation).cmp_lt(F4::splat(ZERO_ROTATION_SQ)).any_set() {
            return Err(Error::ZeroQuaternion { buffer: Buffer::SoaPose, index });
        }
    }
    Ok(())
}

fn check_curves(curves: &[f32]) -> Result<(), Error> {
    match curves.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(Error::NonFinite { buffer: Buffer::Curves, index }),
        None => Ok(()),
    }
}

/// Squared rotation length below which a target rotation counts as zero.
const ZERO_ROTATION_SQ: f32 = 1e-12;
