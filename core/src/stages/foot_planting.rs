//! Foot planting: while a foot is planted (the clip's `plant:<joint>` ranges, read per frame with
//! [`crate::Character::range_weight`]), it stays where it landed in the world while the character moves on;
//! on uneven ground every foot is lifted onto the ground the game reports under it, tilted toward the
//! ground's normal, and the pelvis drops when a leg could not reach otherwise. Just Cause 3 plants feet on
//! slopes this way; the textbook's foot IK is the two-bone solve underneath ([`TwoBoneIkJob`]).
//!
//! **Per foot, per frame** (world space, +Y up; the clip's floor is the character's origin height):
//! 1. *Ground*: the animated ankle lifted by the ground's height above the character's origin, so the foot
//!    keeps its animated height over the ground (a swinging foot clears a step as it clears flat floor).
//! 2. *Lock*: when a plant starts, the lock takes the foot's position as shown that frame and its weight
//!    jumps to 1, so locking never moves the foot; when the plant ends, the weight ramps to 0 over
//!    `release_time` (smoothstep), and the foot glides back onto its animation. The lock holds the ground
//!    position (X, Z) alone: the heel-to-toe roll keeps its animated height.
//! 3. *Tilt*: the ankle's animated model orientation turned by the shortest arc from up to the ground normal,
//!    capped at `max_tilt`, weighted by a contact value that ramps in and out over `contact_time`.
//!
//! **Pelvis**: the drop along up that lets both hips reach their targets within `soften` of the legs' reach
//! (or the animated leg's extension, when that is longer),
//! smoothed with time constant `pelvis_time` (exponential; the first frame takes it at once). Raising the
//! pelvis is never needed: a leg reaches a higher target by bending.
//!
//! **State**: a [`FootPlanter`] per character holds the locks, their weights, the contact values and the pelvis
//! drop (48 bytes, `Pod`: it moves with the character). The job is the stage over it, as the inertializer's.
//!
//! Space: world (ground, locks, `world`), model (matrices, targets). Units: the skeleton's and seconds.
//! Layout: model matrices AoS, local pose SoA. Precision: `f32`. Cost: two two-bone solves and a few dozen
//! scalar operations per character, independent of the joint count.

use crate::data::skeleton::Skeleton;
use crate::error::Error;
use crate::math::{Mat4, Quat, SoaTransform, Vec3, smoothstep};
use crate::stages::ik::{TwoBoneIkJob, arc, capped, unit, weighted};
use bytemuck::{Pod, Zeroable};

/// One foot's state across frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
struct FootState {
    /// Where the lock holds the foot (world X and Z).
    lock: [f32; 2],
    /// The lock's weight: 1 while planted, ramping to 0 after.
    lock_weight: f32,
    /// How far the foot lies on the ground's slope: ramps toward 1 while planted, toward 0 otherwise.
    contact: f32,
    /// 1 when the last frame was planted.
    planted: u32,
}

/// The state foot planting keeps across frames for one character (see the module docs). `Default` is a
/// character standing on nothing planted yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct FootPlanter {
    feet: [FootState; 2],
    /// The pelvis's smoothed drop (≤ 0, model units along up).
    pelvis_drop: f32,
    /// 1 once a frame has run (the first frame takes the drop at once).
    primed: u32,
}

const _: () = assert!(size_of::<FootPlanter>() == 48);

/// The ground under one foot, as the game's ray or height-field query reports it at the point
/// [`FootPlanter::probe_points`] gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ground {
    /// World height of the ground.
    pub height: f32,
    /// World normal of the ground (any non-zero length).
    pub normal: Vec3,
}

impl Ground {
    /// Flat ground at `height`.
    pub const fn flat(height: f32) -> Ground {
        Ground { height, normal: Vec3::new(0.0, 1.0, 0.0) }
    }
}

/// Tuning of foot planting (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlantSettings {
    /// Seconds the lock takes to let a foot go after its plant ends.
    pub release_time: f32,
    /// Seconds the ground tilt takes to come in at a plant and go after it.
    pub contact_time: f32,
    /// Most a foot turns to lie on a slope, radians.
    pub max_tilt: f32,
    /// The legs' soft reach (see [`TwoBoneIkJob::soften`]); the pelvis drops to keep targets within it, so
    /// the hard clamp (1) binds only while the pelvis lags. Below 1 the knee never straightens, at the cost
    /// of sliding near full extension: 0.06 cm per plant on the Bandai walk at 0.98, against 0.0001 cm at 1.
    pub soften: f32,
    /// Time constant of the pelvis drop's smoothing, seconds.
    pub pelvis_time: f32,
}

impl Default for PlantSettings {
    /// 0.15 s release, 0.1 s contact, 30° tilt, the hard reach, 0.08 s pelvis.
    fn default() -> PlantSettings {
        PlantSettings {
            release_time: 0.15,
            contact_time: 0.1,
            max_tilt: core::f32::consts::FRAC_PI_6,
            soften: 1.0,
            pelvis_time: 0.08,
        }
    }
}

/// Foot planting on both legs of one character for one frame (see the module docs).
#[derive(Debug)]
pub struct FootPlantingJob<'a> {
    /// The skeleton the pose is of.
    pub skeleton: &'a Skeleton<'a>,
    /// The character's planting state, kept across frames.
    pub planter: &'a mut FootPlanter,
    /// How planting behaves.
    pub settings: &'a PlantSettings,
    /// The joint whose translation carries the legs (the hips): its drop moves both legs.
    pub pelvis: usize,
    /// Each leg's hip, knee and ankle joints, each the parent of the next, the hip below the pelvis.
    pub legs: [[usize; 3]; 2],
    /// Whether each foot is planted this frame (a plant range's weight above one half, typically).
    pub planted: [bool; 2],
    /// The ground under each foot.
    pub ground: [Ground; 2],
    /// The character's model-to-world transform (rigid), where the game has placed it this frame.
    pub world: &'a Mat4,
    /// Seconds since the last frame (0 on a frame that should not advance the ramps).
    pub dt: f32,
    /// 0 leaves the animation (the state still steps), 1 plants fully.
    pub weight: f32,
    /// The pose's model matrices; the legs' translations are moved by the pelvis drop, and the matrices are
    /// stale afterwards (rerun local-to-model: [`crate::Character::edit_pose`] does).
    pub model: &'a mut [Mat4],
    /// The local pose: the pelvis's translation and each leg's three rotations are rewritten.
    pub local: &'a mut [SoaTransform],
}

/// What a frame of foot planting did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlantingReport {
    /// The pelvis's drop this frame (≤ 0, model units along up).
    pub pelvis_drop: f32,
    /// Per leg: the ankle reached its target.
    pub reached: [bool; 2],
    /// Per foot: the lock's weight after smoothing (0 free, 1 held).
    pub lock: [f32; 2],
}

impl FootPlanter {
    /// Where the game should query the ground this frame, world space: each ankle as animated, pulled toward
    /// its lock by the lock's weight (the X and Z the job will hold the foot at when the weight is 1).
    pub fn probe_points(&self, legs: &[[usize; 3]; 2], model: &[Mat4], world: &Mat4) -> [Vec3; 2] {
        core::array::from_fn(|f| {
            let animated = model.get(legs[f][2]).map_or(Vec3::ZERO, |m| world.transform_point(m.translation()));
            let foot = &self.feet[f];
            let lock = Vec3::new(foot.lock[0], animated.y, foot.lock[1]);
            animated.lerp(lock, smoothstep(foot.lock_weight))
        })
    }
}

impl FootPlantingJob<'_> {
    /// O(depth of the legs) checks.
    ///
    /// Errors: `BufferLength` (model or local pose shorter than the skeleton); `InvalidIkChain` (a leg not
    /// parent-linked or out of range, or a zero-length bone); `InvalidFootPlanting` (a NaN or infinite ground
    /// or one further than `MAX_MODEL_EXTENT` from the character's origin height,
    /// a zero normal, a world transform not finite, affine and invertible, a setting not finite and > 0
    /// (`soften` in (0, 1]), a weight outside [0, 1], `dt` not finite and ≥ 0, the pelvis out of range or not
    /// above both hips).
    pub fn validate(&self) -> Result<Mat4, Error> {
        self.validate_legs().map(|(to_model, _)| to_model)
    }

    /// What [`FootPlantingJob::validate`] checks, returning the world's inverse and each leg's bone lengths.
    fn validate_legs(&self) -> Result<(Mat4, [[f32; 2]; 2]), Error> {
        let mut lengths = [[0.0; 2]; 2];
        for (leg, lengths) in self.legs.iter().zip(&mut lengths) {
            *lengths = TwoBoneIkJob::validate_chain(self.skeleton, *leg, self.model, self.local)?;
        }
        let s = self.settings;
        let positive =
            [s.release_time, s.contact_time, s.max_tilt, s.pelvis_time].iter().all(|v| v.is_finite() && *v > 0.0);
        // The ground within the model's extent of the character: no lift can overflow the pose.
        let origin = self.world.translation().y;
        let near = |h: f32| (h - origin).abs() <= crate::limits::MAX_MODEL_EXTENT;
        let grounds = self.ground.iter().all(|g| near(g.height) && unit(g.normal).is_some());
        let inverse = (self.world.is_finite() && self.world.is_affine()).then(|| self.world.inverse_affine()).flatten();
        let ok = positive
            && s.soften > 0.0
            && s.soften <= 1.0
            && grounds
            && (0.0..=1.0).contains(&self.weight)
            && self.dt.is_finite()
            && self.dt >= 0.0
            && self.legs.iter().all(|leg| self.skeleton.is_ancestor(self.pelvis, leg[0]));
        match inverse {
            Some(inverse) if ok => Ok((inverse, lengths)),
            _ => Err(Error::InvalidFootPlanting),
        }
    }

    /// Steps the state and writes the pose.
    ///
    /// Errors: those of [`FootPlantingJob::validate`]; on an `Err` nothing is written and the state is as it
    /// was.
    pub fn run(&mut self) -> Result<PlantingReport, Error> {
        let (to_model, lengths) = self.validate_legs()?;
        let s = *self.settings;
        let up_world = Vec3::new(0.0, 1.0, 0.0);
        let up = unit(to_model.transform_vector(up_world)).unwrap_or(up_world);
        let origin_height = self.world.translation().y;
        let mut targets = [Vec3::ZERO; 2];
        let mut tilts = [Quat::IDENTITY; 2];
        let cos_half_tilt = libm::cosf(0.5 * s.max_tilt);
        for f in 0..2 {
            let foot = &mut self.planter.feet[f];
            let animated = self.model[self.legs[f][2]].translation();
            let on_ground =
                self.world.transform_point(animated) + up_world.scaled(self.ground[f].height - origin_height);
            // The foot as shown by last frame's lock: where a new plant holds it.
            let held = |foot: &FootState| {
                let lock = Vec3::new(foot.lock[0], on_ground.y, foot.lock[1]);
                on_ground.lerp(lock, smoothstep(foot.lock_weight))
            };
            if self.planted[f] {
                if foot.planted == 0 {
                    let shown = held(foot);
                    foot.lock = [shown.x, shown.z];
                }
                foot.lock_weight = 1.0;
            } else {
                foot.lock_weight = (foot.lock_weight - self.dt / s.release_time).max(0.0);
            }
            foot.planted = self.planted[f] as u32;
            let contact_goal = if self.planted[f] { 1.0 } else { 0.0 };
            let contact_step = self.dt / s.contact_time;
            foot.contact += (contact_goal - foot.contact).clamp(-contact_step, contact_step);
            let target_world = held(foot);
            targets[f] = animated.lerp(to_model.transform_point(target_world), self.weight);
            let normal = unit(to_model.transform_vector(self.ground[f].normal)).unwrap_or(up);
            let tilt = capped(arc(up, normal), s.max_tilt, cos_half_tilt);
            tilts[f] = weighted(tilt, smoothstep(foot.contact) * self.weight);
        }

        // The drop along up that puts each target within the softened reach of its hip.
        let mut needed = 0.0f32;
        for (leg, target) in self.legs.iter().zip(&targets) {
            let [hip, knee, ankle] = leg.map(|j| self.model[j].translation());
            // The animation's own extension never drops the pelvis: a straight leg on flat ground stays.
            let reach = (s.soften * ((knee - hip).length() + (ankle - knee).length())).max((ankle - hip).length());
            let to_target = *target - hip;
            let along = to_target.dot(up);
            let across_sq = (to_target.dot(to_target) - along * along).max(0.0);
            let drop =
                if across_sq < reach * reach { along + crate::math::sqrt(reach * reach - across_sq) } else { along };
            needed = needed.min(drop);
        }
        let planter = &mut *self.planter;
        planter.pelvis_drop = if planter.primed == 0 {
            needed
        } else {
            let k = 1.0 - libm::expf(-self.dt / s.pelvis_time);
            planter.pelvis_drop + (needed - planter.pelvis_drop) * k
        };
        planter.primed = 1;
        let drop = planter.pelvis_drop;

        // The pelvis moves in its parent's frame; the legs' matrices move with it.
        let offset = up.scaled(drop);
        let parent = self.skeleton.parents()[self.pelvis];
        let local_offset = match parent {
            p if p >= 0 => self.model[p as usize].inverse_affine().map_or(offset, |m| m.transform_vector(offset)),
            _ => offset,
        };
        let group = &mut self.local[self.pelvis / 4];
        let lane = self.pelvis % 4;
        group.translation.set(lane, group.translation.get(lane) + local_offset);
        for j in self.legs.iter().flatten() {
            let t = &mut self.model[*j].cols[3];
            (t[0], t[1], t[2]) = (t[0] + offset.x, t[1] + offset.y, t[2] + offset.z);
        }
        let mut reached = [false; 2];
        for f in 0..2 {
            let solve = TwoBoneIkJob {
                skeleton: self.skeleton,
                chain: self.legs[f],
                target: targets[f],
                pole: None,
                weight: 1.0,
                soften: s.soften,
                end_turn: Some(tilts[f]),
                model: self.model,
                local: self.local,
            }
            // Validated above: the legs' chains and lengths; the targets come from finite, checked inputs.
            .solve(lengths[f]);
            reached[f] = solve.reached;
        }
        let lock = [0, 1].map(|f| smoothstep(self.planter.feet[f].lock_weight));
        Ok(PlantingReport { pelvis_drop: drop, reached, lock })
    }
}
