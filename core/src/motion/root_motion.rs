//! Root motion: where a clip moves the character, as a rigid motion on the ground per step, decoupled from
//! the pose (textbook: variable delta extraction; Just Cause 3: the motion stream).
//!
//! A skeleton carries root motion when its joint 0 is a root named [`MOTION_ROOT`] (what `sinew-bench bake
//! --root-motion` makes): that joint's track is the motion `R(t)`, a ground position and a turn about +Y. A
//! step of a control from local time `a` to `b` moves the character by `R(a)⁻¹ · R(b)`; a `Loop` step that
//! wraps `n` times (negative backward) moves it by `R(a)⁻¹ · R(0) · P^n · R(0)⁻¹ · R(b)`, `P = R(0)⁻¹ · R(D)`
//! being one pass (the end of the clip joins its start, so each wrap carries the pass's displacement on).
//! `Clamp` and `PingPong` steps retrace the clip, so their motion is `R(a)⁻¹ · R(b)` whatever happened between.
//!
//! Cost: O(1) in joints: root samples come from the sampler's context-free `first_group` (the first lane group
//! of two frames), two per step, four when it wraps.
//!
//! Space: the character's (the motion root's parent space), +Y up. Units: the clip's, radians.
//! Precision: `f32`. A turn between two clip times is taken as the shorter way round (|Δyaw| ≤ π), true of any
//! step shorter than half a turn of the root; several whole loops in one step carry `P`'s turn modulo a full
//! circle (the rigid motion is exact; only the angle's whole turns are not counted).

use crate::data::clip::Clip;
use crate::data::skeleton::Skeleton;
use crate::math::{Mat4, SoaTransform, Transform, Vec3, wrap_angle};
use crate::motion::control::{Step, Wrap};
use crate::stages::sampling::{Playback, first_group};
use bytemuck::{Pod, Zeroable};

/// The name of the joint whose track is the root motion.
pub const MOTION_ROOT: &str = "motion_root";

/// A rigid motion on the ground: a translation, then a turn of `yaw` radians about +Y (a positive yaw turns +Z
/// toward +X). Layout: `repr(C)`, 16 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RootMotion {
    /// Ground translation, in the parent space of the motion root.
    pub translation: Vec3,
    /// Turn about +Y, radians.
    pub yaw: f32,
}

impl RootMotion {
    /// No motion.
    pub const IDENTITY: RootMotion = RootMotion { translation: Vec3::ZERO, yaw: 0.0 };

    /// A root transform's motion: its translation and its turn about +Y (the twist of its rotation about +Y;
    /// any other rotation is not motion), in (−π, π].
    pub fn of_transform(t: &Transform) -> RootMotion {
        let yaw = 2.0 * libm::atan2f(t.rotation.y, t.rotation.w);
        RootMotion { translation: t.translation, yaw: wrap_angle(yaw) }
    }

    /// `v` turned by `yaw` about +Y (+Z toward +X for a positive yaw): a step's translation into the space
    /// of the root before it, or a world direction into a character's frame with `-yaw`.
    pub fn turn(yaw: f32, v: Vec3) -> Vec3 {
        let (sin, cos) = (libm::sinf(yaw), libm::cosf(yaw));
        Vec3::new(v.x * cos + v.z * sin, v.y, v.z * cos - v.x * sin)
    }

    /// The motion as a matrix (the turn, then the translation): a character's model-to-world transform when
    /// `self` is where the game has moved it.
    pub fn to_mat4(self) -> Mat4 {
        let (sin, cos) = (libm::sinf(self.yaw), libm::cosf(self.yaw));
        let t = self.translation;
        Mat4 { cols: [[cos, 0.0, -sin, 0.0], [0.0, 1.0, 0.0, 0.0], [sin, 0.0, cos, 0.0], [t.x, t.y, t.z, 1.0]] }
    }

    /// `self` followed by `next` (`next` given in the frame `self` ends in).
    pub fn then(self, next: RootMotion) -> RootMotion {
        let (a, b) = (self.translation, RootMotion::turn(self.yaw, next.translation));
        RootMotion { translation: a + b, yaw: self.yaw + next.yaw }
    }

    /// The motion that undoes this one.
    pub fn inverse(self) -> RootMotion {
        let back = RootMotion::turn(-self.yaw, self.translation);
        RootMotion { translation: back.scaled(-1.0), yaw: -self.yaw }
    }

    /// The motion from root `from` to root `to`: `from⁻¹ · to`, turning the shorter way round.
    pub fn between(from: RootMotion, to: RootMotion) -> RootMotion {
        let relative = from.inverse().then(to);
        RootMotion { yaw: wrap_angle(relative.yaw), ..relative }
    }

    /// `self` repeated `n` times (its inverse for negative `n`), by squaring: O(log |n|).
    pub fn repeated(self, n: i64) -> RootMotion {
        let (mut base, mut left) = (if n < 0 { self.inverse() } else { self }, n.unsigned_abs());
        let mut out = RootMotion::IDENTITY;
        while left > 0 {
            if left & 1 == 1 {
                out = out.then(base);
            }
            base = base.then(base);
            left >>= 1;
        }
        out
    }
}

/// True when `skeleton`'s joint 0 is a root named [`MOTION_ROOT`].
pub fn has_motion_root(skeleton: &Skeleton<'_>) -> bool {
    skeleton.parents().first() == Some(&-1) && skeleton.name(0) == Some(MOTION_ROOT)
}

/// The motion root of `clip` at local `time` (clamped to the clip): lane 0 of its first group. `rest` is the
/// skeleton's first rest-pose group.
pub fn root_at(clip: &Clip<'_>, rest: &SoaTransform, time: f32) -> RootMotion {
    RootMotion::of_transform(&first_group(clip, rest, time, Playback::Clamp).get(0))
}

/// The motion `clip`'s root makes from local time `start` to `end` (both clamped to the clip), its turn
/// unwrapped frame by frame: a segment may turn any number of half turns (a 180° start, a spin). Backward
/// (`end < start`) it is the inverse. Cost: one root sample per frame boundary crossed, O(frames) only when
/// called with a long span (at a segment's entry, not per frame).
pub fn motion_between(clip: &Clip<'_>, rest: &SoaTransform, start: f32, end: f32) -> RootMotion {
    let duration = clip.duration();
    let clamp = |t: f32| if t.is_nan() { 0.0 } else { t.clamp(0.0, duration) };
    let (lo, hi) = (clamp(start.min(end)), clamp(start.max(end)));
    let rate = clip.sample_rate();
    let mut previous = root_at(clip, rest, lo);
    let mut moved = RootMotion::IDENTITY;
    // Frame boundaries strictly inside (lo, hi), then hi: each piece turns less than the root does in a frame.
    let (uniform, knots) = match clip.knots() {
        [] => (libm::floorf(lo * rate) as i64 + 1..libm::ceilf(hi * rate) as i64, &[][..]),
        knots => (0..0, &knots[knots.partition_point(|&k| k <= lo)..knots.partition_point(|&k| k < hi)]),
    };
    let boundaries = uniform.map(|k| k as f32 / rate).chain(knots.iter().copied());
    for k in boundaries.chain(core::iter::once(hi)) {
        let next = root_at(clip, rest, k.min(hi));
        moved = moved.then(RootMotion::between(previous, next));
        previous = next;
    }
    if end < start { moved.inverse() } else { moved }
}

/// The motion a control's `step` over `clip` made (see the module docs).
pub fn step_motion(clip: &Clip<'_>, rest: &SoaTransform, step: &Step) -> RootMotion {
    let at = |time: f32| root_at(clip, rest, time);
    if step.wrap() != Wrap::Loop || step.wraps == 0 {
        return RootMotion::between(at(step.from), at(step.to));
    }
    let (start, end) = (at(0.0), at(step.duration()));
    let (from, to) = (at(step.from), at(step.to));
    // Forward: `from` to the end, whole passes, the start to `to`; backward the mirror.
    let (first, last, passes) = if step.wraps > 0 {
        (RootMotion::between(from, end), RootMotion::between(start, to), step.wraps - 1)
    } else {
        (RootMotion::between(from, start), RootMotion::between(end, to), step.wraps + 1)
    };
    first.then(RootMotion::between(start, end).repeated(passes)).then(last)
}

/// When one channel of a warp moves toward its target: from `start` to `end` seconds of clip time, along a
/// smoothstep (`3u² − 2u³`, so the warp starts and ends without a velocity jump); all of it from `end` on, none
/// of it before `start`. `start == end` is a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarpWindow {
    /// Clip time the warp starts, seconds.
    pub start: f32,
    /// Clip time it ends, seconds (at most the marker's).
    pub end: f32,
}

impl WarpWindow {
    /// The fraction of the warp applied at `time`: 0 before the window, 1 after it.
    pub fn fraction(&self, time: f32) -> f32 {
        if time <= self.start {
            return if time < self.end { 0.0 } else { 1.0 };
        }
        if time >= self.end {
            return 1.0;
        }
        crate::math::smoothstep((time - self.start) / (self.end - self.start))
    }
}

/// Gears of War 4's warp point: a marker in a clip names where the root should be at that instant; the game
/// gives the place in the world, and the root's trajectory bends so that it gets there, with translation,
/// rotation and facing each over its own window.
///
/// With `P` the unwarped root's position at the marker, `d` the target position minus `P` and `θ` the target
/// yaw minus the unwarped yaw there, the warped root at clip time `t` is
/// `x'(t) = Rot(f_R(t) θ) (x(t) − P) + P + f_T(t) d` and `yaw'(t) = yaw(t) + f_F(t) θ`: rotation turns the
/// path about the marker, facing turns the character, translation carries it. The marker's own position
/// `P + f_T d` depends only on the translation window, so the three timings are independent, and from the
/// last window's end on the marker maps exactly onto the target.
///
/// Space: the world (or whatever space the unwarped root is given in); +Y up. Units: the clip's, radians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarpPoint {
    marker: RootMotion,
    offset: Vec3,
    turn: f32,
    /// Translation, rotation, facing.
    windows: [WarpWindow; 3],
}

impl WarpPoint {
    /// A warp taking `marker` (the unwarped root at the marker's time) to `target`.
    ///
    /// Errors: `InvalidWarp` when a value is NaN or infinite, or a window ends before it starts or after
    /// `marker_time` (the warp must be complete when the marker is reached).
    pub fn new(
        marker: RootMotion,
        target: RootMotion,
        marker_time: f32,
        [translation, rotation, facing]: [WarpWindow; 3],
    ) -> Result<WarpPoint, crate::error::Error> {
        let windows = [translation, rotation, facing];
        let finite = |m: &RootMotion| m.translation.is_finite() && m.yaw.is_finite();
        let valid = |w: &WarpWindow| w.start.is_finite() && w.start <= w.end && w.end <= marker_time;
        if !(finite(&marker) && finite(&target) && marker_time.is_finite() && windows.iter().all(valid)) {
            return Err(crate::error::Error::InvalidWarp);
        }
        let offset = target.translation - marker.translation;
        Ok(WarpPoint { marker, offset, turn: target.yaw - marker.yaw, windows })
    }

    /// The warped root at clip `time`, from the unwarped one. Before every window it is `unwarped`, bit for
    /// bit.
    pub fn apply(&self, unwarped: RootMotion, time: f32) -> RootMotion {
        let [translation, rotation, facing] = self.windows.map(|w| w.fraction(time));
        if translation == 0.0 && rotation == 0.0 && facing == 0.0 {
            return unwarped;
        }
        let (x, p, d) = (unwarped.translation, self.marker.translation, self.offset);
        let around = RootMotion::turn(rotation * self.turn, x - p);
        RootMotion { translation: around + p + d.scaled(translation), yaw: unwarped.yaw + facing * self.turn }
    }
}
