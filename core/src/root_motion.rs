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
//! Cost: O(1) in joints: root samples come from [`sample_first_group`] (the first lane group of two frames),
//! two per step, four when it wraps.
//!
//! Space: the character's (the motion root's parent space), +Y up. Units: the clip's, radians.
//! Precision: `f32`. A turn between two clip times is taken as the shorter way round (|Δyaw| ≤ π), true of any
//! step shorter than half a turn of the root; several whole loops in one step carry `P`'s turn modulo a full
//! circle (the rigid motion is exact; only the angle's whole turns are not counted).

use crate::clip::Clip;
use crate::control::{Step, Wrap};
use crate::math::{SoaTransform, Transform, Vec3};
use crate::sampling::{Playback, sample_first_group};
use crate::skeleton::Skeleton;
use bytemuck::{Pod, Zeroable};
use core::f32::consts::{PI, TAU};

/// The name of the joint whose track is the root motion.
pub const MOTION_ROOT: &str = "motion_root";

/// A rigid motion on the ground: a translation, then a turn of `yaw` radians about +Y (a positive yaw turns +Z
/// toward +X). Layout: `repr(C)`, 16 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RootMotion {
    pub translation: Vec3,
    pub yaw: f32,
}

impl RootMotion {
    pub const IDENTITY: RootMotion = RootMotion { translation: Vec3::ZERO, yaw: 0.0 };

    /// A root transform's motion: its translation and its turn about +Y (the twist of its rotation about +Y;
    /// any other rotation is not motion), in (−π, π].
    pub fn of_transform(t: &Transform) -> RootMotion {
        let yaw = 2.0 * libm::atan2f(t.rotation.y, t.rotation.w);
        RootMotion { translation: t.translation, yaw: wrap_angle(yaw) }
    }

    /// `v` turned by `yaw` about +Y.
    fn turn(yaw: f32, v: Vec3) -> Vec3 {
        let (sin, cos) = (libm::sinf(yaw), libm::cosf(yaw));
        Vec3::new(v.x * cos + v.z * sin, v.y, v.z * cos - v.x * sin)
    }

    /// `self` followed by `next` (`next` given in the frame `self` ends in).
    pub fn then(self, next: RootMotion) -> RootMotion {
        let (a, b) = (self.translation, RootMotion::turn(self.yaw, next.translation));
        RootMotion { translation: Vec3::new(a.x + b.x, a.y + b.y, a.z + b.z), yaw: self.yaw + next.yaw }
    }

    pub fn inverse(self) -> RootMotion {
        let back = RootMotion::turn(-self.yaw, self.translation);
        RootMotion { translation: Vec3::new(-back.x, -back.y, -back.z), yaw: -self.yaw }
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

/// `angle` in (−π, π].
fn wrap_angle(angle: f32) -> f32 {
    let wrapped = angle - TAU * libm::floorf(angle / TAU);
    if wrapped > PI { wrapped - TAU } else { wrapped }
}

/// True when `skeleton`'s joint 0 is a root named [`MOTION_ROOT`].
pub fn has_motion_root(skeleton: &Skeleton<'_>) -> bool {
    skeleton.parents().first() == Some(&-1) && skeleton.name(0) == Some(MOTION_ROOT)
}

/// The motion root of `clip` at local `time` (clamped to the clip): lane 0 of its first group. `rest` is the
/// skeleton's first rest-pose group.
pub fn root_at(clip: &Clip<'_>, rest: &SoaTransform, time: f32) -> RootMotion {
    RootMotion::of_transform(&sample_first_group(clip, rest, time, Playback::Clamp).get(0))
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
