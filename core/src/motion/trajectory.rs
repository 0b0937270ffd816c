//! The desired trajectory a motion-matching query asks for: the character's ground motion simulated as a
//! critically damped spring toward the stick's velocity and facing, stepped each frame and predicted ahead at
//! the database's sample times (Holden's `simulation_positions_update`, in closed form).
//!
//! The velocity `v` follows the desired velocity `g` with `v'' = −2y v' − y²(v − g)` (critically damped, so it
//! never overshoots), and the position integrates it; the yaw follows the desired yaw the same way, the
//! difference taken within ±π. `y = 2 ln 2 / half-life`: the half-life is how long half of a change takes.
//!
//! Space and units: the ground plane of the game's world, `[x, z]`; whatever length unit the game uses,
//! seconds, radians; yaw 0 faces +Z, positive turns toward +X (`facing = [sin yaw, cos yaw]`). Errors:
//! `InvalidTrajectory` for a value that is not finite, a half-life not > 0 or a negative time. Precision:
//! `f32` closed forms; within 1e-5 relative of an f64 integration of the springs (the tests).

use crate::error::Error;
use crate::math::{Vec3, wrap_angle};
use crate::motion::root_motion::RootMotion;

/// The simulated character's ground motion at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpringState {
    /// Position on the ground, `[x, z]`.
    pub position: [f32; 2],
    /// Velocity, units per second.
    pub velocity: [f32; 2],
    /// Acceleration, units per second².
    pub acceleration: [f32; 2],
    /// Facing, radians from +Z toward +X.
    pub yaw: f32,
    /// Turn rate, radians per second.
    pub yaw_rate: f32,
}

impl SpringState {
    /// The unit facing direction `[sin yaw, cos yaw]`.
    pub fn facing(&self) -> [f32; 2] {
        [libm::sinf(self.yaw), libm::cosf(self.yaw)]
    }

    /// The position and facing as a character placed at `world` sees them: on the ground relative to its root,
    /// turned into its frame (what a motion-matching query's trajectory holds).
    pub fn relative_to(&self, world: RootMotion) -> ([f32; 2], [f32; 2]) {
        let ground = |x: f32, z: f32| {
            let local = RootMotion::turn(-world.yaw, Vec3::new(x, 0.0, z));
            [local.x, local.z]
        };
        let [sin, cos] = self.facing();
        let position = ground(self.position[0] - world.translation.x, self.position[1] - world.translation.z);
        (position, ground(sin, cos))
    }

    fn finite(&self) -> bool {
        let [a, b] = [self.position, self.velocity];
        a.iter().chain(&b).chain(&self.acceleration).chain([&self.yaw, &self.yaw_rate]).all(|x| x.is_finite())
    }
}

/// The springs' half-lives (Holden's demo uses 0.27 s for both).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrajectorySpring {
    /// Seconds for half of a change in velocity, `> 0`.
    pub velocity_halflife: f32,
    /// Seconds for half of a change in facing, `> 0`.
    pub yaw_halflife: f32,
}

impl Default for TrajectorySpring {
    fn default() -> TrajectorySpring {
        TrajectorySpring { velocity_halflife: 0.27, yaw_halflife: 0.27 }
    }
}

/// The stick's request: a velocity and a facing the character should reach.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Desired {
    /// Velocity on the ground, `[x, z]`, units per second.
    pub velocity: [f32; 2],
    /// Facing, radians.
    pub yaw: f32,
}

impl TrajectorySpring {
    /// `state` after `dt` seconds of heading for `desired`.
    ///
    /// Errors: `InvalidTrajectory` (module docs).
    pub fn step(&self, state: &SpringState, desired: Desired, dt: f32) -> Result<SpringState, Error> {
        self.check(state, desired)?;
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(Error::InvalidTrajectory);
        }
        Ok(self.after(state, desired, dt))
    }

    /// Where `state` will be at each of `times` (seconds ahead, each `>= 0`) heading for `desired`, into `out`
    /// (as long as `times`).
    ///
    /// Errors: `InvalidTrajectory` (module docs); `BufferLength` (`Curves`) for an `out` of another length.
    pub fn predict(
        &self,
        state: &SpringState,
        desired: Desired,
        times: &[f32],
        out: &mut [SpringState],
    ) -> Result<(), Error> {
        self.check(state, desired)?;
        crate::error::check_len(crate::error::Buffer::Curves, times.len(), out.len())?;
        if !times.iter().all(|t| t.is_finite() && *t >= 0.0) {
            return Err(Error::InvalidTrajectory);
        }
        for (slot, &t) in out.iter_mut().zip(times) {
            *slot = self.after(state, desired, t);
        }
        Ok(())
    }

    fn check(&self, state: &SpringState, desired: Desired) -> Result<(), Error> {
        let positive = |h: f32| h.is_finite() && h > 0.0;
        let desired_finite = desired.velocity.iter().chain([&desired.yaw]).all(|x| x.is_finite());
        if positive(self.velocity_halflife) && positive(self.yaw_halflife) && state.finite() && desired_finite {
            Ok(())
        } else {
            Err(Error::InvalidTrajectory)
        }
    }

    /// The closed forms at `t` seconds.
    fn after(&self, state: &SpringState, desired: Desired, t: f32) -> SpringState {
        let y = damping(self.velocity_halflife);
        let decay = libm::expf(-y * t);
        let mut next = *state;
        for axis in 0..2 {
            let (x, v, a, goal) =
                (state.position[axis], state.velocity[axis], state.acceleration[axis], desired.velocity[axis]);
            let j0 = v - goal;
            let j1 = a + j0 * y;
            next.position[axis] = decay * (-j1 / (y * y) + (-j0 - j1 * t) / y) + j1 / (y * y) + j0 / y + goal * t + x;
            next.velocity[axis] = decay * (j0 + j1 * t) + goal;
            next.acceleration[axis] = decay * (a - j1 * y * t);
        }
        let y = damping(self.yaw_halflife);
        let decay = libm::expf(-y * t);
        let j0 = wrap_angle(state.yaw - desired.yaw);
        let j1 = state.yaw_rate + j0 * y;
        next.yaw = decay * (j0 + j1 * t) + state.yaw - j0;
        next.yaw_rate = decay * (state.yaw_rate - j1 * y * t);
        next
    }
}

/// `y` of the module docs for a half-life.
fn damping(halflife: f32) -> f32 {
    2.0 * core::f32::consts::LN_2 / halflife
}
