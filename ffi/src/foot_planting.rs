//! Foot planting on the character's shown pose: the planter's state, the settings, the report and the probes.

use crate::asset::sinew_asset;
use crate::character::{attach, sinew_character};
use crate::edit::edit;
use crate::status::{SINEW_ERROR_INDEX_OUT_OF_RANGE, SINEW_ERROR_NULL_POINTER, SINEW_OK, sinew_status};
use core::mem::{align_of, size_of};
use sinew::character::PoseEdit;
use sinew::foot_planting::{FootPlanter, FootPlantingJob, Ground, PlantSettings};
use sinew::math::{Mat4, Vec3};

/// What foot planting keeps across frames for one character: zeroed, a character standing on nothing planted
/// yet. The caller declares it beside the character and passes it to every `sinew_character_plant_feet`.
///
/// Layout: 48 bytes, 4-byte aligned, opaque.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_foot_planter {
    /// Opaque; zero to start.
    pub opaque: [u32; 12],
}

const _: () = assert!(size_of::<sinew_foot_planter>() == size_of::<FootPlanter>());
const _: () = assert!(align_of::<sinew_foot_planter>() == align_of::<FootPlanter>());

/// One frame of foot planting on both legs, for `sinew_character_plant_feet` and `sinew_character_foot_probes`.
/// A zero setting takes its default (0.15 s release, 0.1 s contact, 30° tilt, soften 1, 0.08 s pelvis).
///
/// Layout: 160 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_foot_planting {
    /// The joint carrying the legs (the hips).
    pub pelvis: u32,
    /// Each leg's hip, knee and ankle joints, left then right.
    pub legs: [[u32; 3]; 2],
    /// Nonzero while each foot is planted (a plant range's weight above one half, typically).
    pub planted: [u32; 2],
    /// The ground's world height under each foot (the game's ray at `sinew_character_foot_probes`' points).
    pub ground_height: [f32; 2],
    /// The ground's world normal under each foot (any non-zero length).
    pub ground_normal: [[f32; 3]; 2],
    /// The character's model-to-world transform (rigid), column-major.
    pub world: [f32; 16],
    /// Seconds since the last frame.
    pub dt: f32,
    /// 0 leaves the animation (the state still steps), 1 plants fully.
    pub weight: f32,
    /// Seconds the lock takes to let a foot go after its plant ends.
    pub release_time: f32,
    /// Seconds the ground tilt takes to come in and go.
    pub contact_time: f32,
    /// Most a foot turns to lie on a slope, radians.
    pub max_tilt: f32,
    /// The legs' soft reach, in (0, 1].
    pub soften: f32,
    /// Time constant of the pelvis drop's smoothing, seconds.
    pub pelvis_time: f32,
}

const _: () = assert!(size_of::<sinew_foot_planting>() == 160 && align_of::<sinew_foot_planting>() == 4);

/// What a frame of foot planting did.
///
/// Layout: 20 bytes, 4-byte aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sinew_planting_report {
    /// The pelvis's drop (≤ 0, model units along up).
    pub pelvis_drop: f32,
    /// Per leg, 1 when the ankle reached its target.
    pub reached: [u32; 2],
    /// Per foot, the lock's weight (0 free, 1 held).
    pub lock: [f32; 2],
}

impl sinew_foot_planting {
    fn settings(&self) -> PlantSettings {
        let or = |value: f32, default: f32| if value == 0.0 { default } else { value };
        let d = PlantSettings::default();
        PlantSettings {
            release_time: or(self.release_time, d.release_time),
            contact_time: or(self.contact_time, d.contact_time),
            max_tilt: or(self.max_tilt, d.max_tilt),
            soften: or(self.soften, d.soften),
            pelvis_time: or(self.pelvis_time, d.pelvis_time),
        }
    }

    fn legs(&self) -> [[usize; 3]; 2] {
        self.legs.map(|leg| leg.map(|j| j as usize))
    }

    fn world(&self) -> Mat4 {
        let w = self.world;
        Mat4 { cols: core::array::from_fn(|c| core::array::from_fn(|r| w[4 * c + r])) }
    }
}

/// The state behind `planter`, checked for alignment.
///
/// # Safety
/// `planter` is NULL or points to a `sinew_foot_planter`.
unsafe fn planter_state<'a>(planter: *mut sinew_foot_planter) -> Result<&'a mut FootPlanter, sinew_status> {
    if planter.is_null() {
        return Err(SINEW_ERROR_NULL_POINTER);
    }
    // SAFETY: not NULL, aligned (its type's alignment is FootPlanter's, asserted), and any bytes are a
    // FootPlanter (Pod).
    Ok(unsafe { &mut *planter.cast::<FootPlanter>() })
}

/// Plants the character's feet on the game's ground (see `sinew_foot_planting`): each planted foot held where
/// it landed and laid on the slope, the pelvis dropped so the legs reach, on the last pose; the model matrices
/// and palette follow, and `*planter` steps. Writes what it did to `*report`.
///
/// Errors: `SINEW_ERROR_INVALID_ARGUMENT` for legs not parent-linked below the pelvis, a ground or world
/// transform out of range, a setting, weight or `dt` out of range; `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a joint
/// past the skeleton's. The pose and the planter are unchanged on an error.
///
/// # Safety
/// As `sinew_character_play`; `planter` points to a writable `sinew_foot_planter`, `request` to a readable
/// `sinew_foot_planting`, `report` to a writable `sinew_planting_report`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_plant_feet(
    character: *mut sinew_character,
    asset: *const sinew_asset,
    planter: *mut sinew_foot_planter,
    request: *const sinew_foot_planting,
    report: *mut sinew_planting_report,
) -> sinew_status {
    if request.is_null() || report.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    let state = match unsafe { planter_state(planter) } {
        Ok(state) => state,
        Err(status) => return status,
    };
    // SAFETY: not NULL; readable by the caller's contract.
    let r = unsafe { request.read_unaligned() };
    let (settings, world) = (r.settings(), r.world());
    let ground = |f: usize| {
        let n = r.ground_normal[f];
        Ground { height: r.ground_height[f], normal: Vec3::new(n[0], n[1], n[2]) }
    };
    // The job steps a copy: the caller's state changes only on success.
    let mut stepped = *state;
    let solve = |edit: PoseEdit<'_>| {
        let mut job = FootPlantingJob {
            skeleton: edit.skeleton,
            planter: &mut stepped,
            settings: &settings,
            pelvis: r.pelvis as usize,
            legs: r.legs(),
            planted: r.planted.map(|p| p != 0),
            ground: [ground(0), ground(1)],
            world: &world,
            dt: r.dt,
            weight: r.weight,
            model: edit.model,
            local: edit.local,
        };
        job.run().map(|p| sinew_planting_report {
            pelvis_drop: p.pelvis_drop,
            reached: p.reached.map(u32::from),
            lock: p.lock,
        })
    };
    // SAFETY: the caller's contract.
    let status = unsafe { edit(character, asset, solve, report) };
    if status == SINEW_OK {
        *state = stepped;
    }
    status
}

/// Where the game should query the ground this frame (world space, `points[6]`: left then right, x y z):
/// each ankle as the last pose has it, pulled toward where its plant holds it. Uses `request`'s legs and
/// world transform only.
///
/// Errors: `SINEW_ERROR_INDEX_OUT_OF_RANGE` for a leg joint past the skeleton's.
///
/// # Safety
/// `character` points to an initialized character; `planter` to a `sinew_foot_planter`; `request` to a
/// readable `sinew_foot_planting`; `points` to six writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sinew_character_foot_probes(
    character: *mut sinew_character,
    planter: *mut sinew_foot_planter,
    request: *const sinew_foot_planting,
    points: *mut f32,
) -> sinew_status {
    if request.is_null() || points.is_null() {
        return SINEW_ERROR_NULL_POINTER;
    }
    // SAFETY: the caller's contract.
    let (state, character) = match unsafe { planter_state(planter).and_then(|s| Ok((s, attach(character)?))) } {
        Ok(both) => both,
        Err(status) => return status,
    };
    // SAFETY: not NULL; readable by the caller's contract.
    let r = unsafe { request.read_unaligned() };
    let legs = r.legs();
    if legs.iter().flatten().any(|&j| j >= character.num_joints()) {
        return SINEW_ERROR_INDEX_OUT_OF_RANGE;
    }
    let probes = state.probe_points(&legs, character.model(), &r.world());
    // SAFETY: checked not NULL; six writable floats by the caller's contract.
    unsafe { points.cast::<[[f32; 3]; 2]>().write_unaligned(probes.map(|p| p.to_array())) };
    SINEW_OK
}
