//! The C ABI driven by arbitrary bytes: the head of the input describes a character and a sequence of calls
//! (play, play in a slot, transition, update, masks, fades, curves, outputs, edits, moving the memory; the stage
//! jobs over caller buffers, IK, attachments, inertializers, vertex skinning, motion correction), with
//! arbitrary indices, counts and float bit patterns (NaN, infinities, huge values); the rest is the blob. Every
//! call returns a known status and nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sinew::Chunk;
use sinew_ffi::*;
use sinew_tools::raw::AlignedBlob;

/// Reads the input front to back; zeros once it runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
        self.0 = rest;
        first
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    /// Small indices mostly, any value sometimes.
    fn index(&mut self) -> u32 {
        match self.u8() {
            0..=239 => u32::from(self.u8() % 8),
            _ => self.u32(),
        }
    }
    /// Ordinary values mostly, any bit pattern sometimes.
    fn float(&mut self) -> f32 {
        match self.u8() {
            0..=199 => f32::from(self.u8()) / 64.0,
            200..=219 => -f32::from(self.u8()) / 64.0,
            _ => f32::from_bits(self.u32()),
        }
    }
}

fn known(status: sinew_status) -> sinew_status {
    assert!((SINEW_OK..=SINEW_ERROR_BUFFER).contains(&status), "unknown status {status}");
    assert!(status != SINEW_ERROR_INTERNAL, "an error without a specific status");
    status
}

fuzz_target!(|data: &[u8]| {
    let split = usize::from(data.first().copied().unwrap_or(0)).min(data.len());
    let (script, blob) = data.split_at(split);
    let blob = AlignedBlob::from_bytes(blob);
    let mut ops = Bytes(script.get(1..).unwrap_or(&[]));
    let mut asset = std::mem::MaybeUninit::<sinew_asset>::uninit();
    // SAFETY: every pointer handed over is valid for its call; the blob outlives the asset and the memory the
    // character, and nothing else touches either.
    unsafe {
        if known(sinew_asset_load(blob.bytes().as_ptr(), blob.bytes().len(), asset.as_mut_ptr())) != SINEW_OK {
            return;
        }
        let asset = asset.assume_init();
        let (mut joints, mut clips) = (0, 0);
        known(sinew_asset_num_joints(&asset, &mut joints));
        known(sinew_asset_num_clips(&asset, &mut clips));
        let layers: Vec<sinew_layer_desc> = (0..1 + ops.u8() % 4)
            .map(|_| sinew_layer_desc { kind: u32::from(ops.u8() % 5), controls: u32::from(ops.u8() % 4) })
            .collect();
        let desc = sinew_character_desc {
            layers: layers.as_ptr(),
            num_layers: layers.len() as u32,
            num_masks: u32::from(ops.u8() % 3),
            num_curves: u32::from(ops.u8() % 5),
            inertialization: u32::from(ops.u8() % 3),
            skinned: u32::from(ops.u8() % 2),
            sampling: u32::from(ops.u8() % 3),
        };
        let mut bytes = 0;
        if known(sinew_character_required_bytes(&asset, &desc, &mut bytes)) != SINEW_OK {
            return;
        }
        let mut memory = vec![Chunk::ZERO; Chunk::count(bytes)];
        let mut character = std::ptr::null_mut();
        let status = sinew_character_init(memory.as_mut_ptr().cast(), bytes, &asset, &desc, &mut character);
        if known(status) != SINEW_OK {
            return;
        }
        let mut values = vec![0.0f32; joints as usize + 4];
        let mut planter = sinew_foot_planter { opaque: [0; 12] };
        let mut jobs = Jobs::new(&asset, joints, &mut ops);
        for _ in 0..64 {
            if ops.0.is_empty() {
                break;
            }
            match ops.u8() % 34 {
                0 => known(sinew_character_play(
                    character,
                    &asset,
                    ops.index(),
                    ops.index(),
                    ops.float(),
                    ops.float(),
                    ops.float(),
                )),
                1 => {
                    let play = sinew_play {
                        layer: ops.index(),
                        slot: ops.index(),
                        clip: ops.index(),
                        time: ops.float(),
                        speed: ops.float(),
                        weight: ops.float(),
                        wrap: ops.index(),
                        mask: if ops.u8() % 2 == 0 { SINEW_NO_MASK } else { ops.index() },
                    };
                    known(sinew_character_play_slot(character, &asset, &play))
                }
                2 => {
                    let (clip, time, speed, duration) = (ops.index(), ops.float(), ops.float(), ops.float());
                    if ops.u8() % 2 == 0 {
                        known(sinew_character_transition(character, &asset, clip, time, speed, duration))
                    } else {
                        known(sinew_character_crossfade(character, &asset, clip, time, speed, duration))
                    }
                }
                3 | 4 => known(sinew_character_update(character, &asset, ops.float())),
                5 => {
                    values.iter_mut().for_each(|v| *v = ops.float());
                    let count = (joints as usize).saturating_add(usize::from(ops.u8() % 3)).saturating_sub(1);
                    known(sinew_character_set_mask(character, ops.index(), values.as_ptr(), count.min(values.len())))
                }
                6 => known(sinew_character_set_layer_masks(character, ops.index(), ops.index(), ops.index())),
                7 => known(sinew_character_fade_layer(character, ops.index(), ops.float(), ops.float())),
                8 => {
                    values.iter_mut().for_each(|v| *v = ops.float());
                    known(sinew_character_set_curves(character, values.as_ptr(), usize::from(ops.u8() % 5)))
                }
                9 => {
                    let (mut out, mut count) = (std::ptr::null(), 0);
                    known(sinew_character_model_matrices(character, &mut out, &mut count));
                    known(sinew_character_palette_3x4(character, &mut out, &mut count))
                }
                10 => {
                    let (mut translation, mut yaw) = ([0.0f32; 3], 0.0f32);
                    known(sinew_character_root_motion(character, translation.as_mut_ptr(), &mut yaw))
                }
                12 => known(sinew_character_update_motion(character, &asset, ops.float())),
                19 => {
                    let request = jobs.two_bone(&mut ops);
                    let mut reached = 0;
                    known(sinew_character_two_bone_ik(character, &asset, &request, &mut reached))
                }
                20 => {
                    let request = sinew_aim {
                        joint: ops.index(),
                        forward: [ops.float(), ops.float(), ops.float()],
                        up_axis: [ops.float(), ops.float(), ops.float()],
                        model_up: [ops.float(), ops.float(), ops.float()],
                        has_up: ops.index() % 2,
                        target: [ops.float(), ops.float(), ops.float()],
                        max_angle: ops.float(),
                        max_twist: ops.float(),
                        weight: ops.float(),
                    };
                    let mut flags = 0;
                    known(sinew_character_aim_ik(character, &asset, &request, &mut flags))
                }
                21 => {
                    let mut world = [0.0f32; 16];
                    world.iter_mut().for_each(|w| *w = ops.float());
                    let request = sinew_foot_planting {
                        pelvis: ops.index(),
                        legs: [[ops.index(), ops.index(), ops.index()], [ops.index(), ops.index(), ops.index()]],
                        planted: [ops.index() % 2, ops.index() % 2],
                        ground_height: [ops.float(), ops.float()],
                        ground_normal: [
                            [ops.float(), ops.float(), ops.float()],
                            [ops.float(), ops.float(), ops.float()],
                        ],
                        world,
                        dt: ops.float(),
                        weight: ops.float(),
                        release_time: ops.float(),
                        contact_time: ops.float(),
                        max_tilt: ops.float(),
                        soften: ops.float(),
                        pelvis_time: ops.float(),
                    };
                    let mut probes = [0.0f32; 6];
                    let mut report = sinew_planting_report { pelvis_drop: 0.0, reached: [0; 2], lock: [0.0; 2] };
                    known(sinew_character_foot_probes(character, &mut planter, &request, probes.as_mut_ptr()));
                    known(sinew_character_plant_feet(character, &asset, &mut planter, &request, &mut report))
                }
                18 => {
                    let mut start = 0.0f32;
                    let (clip, time, speed, duration, sync) =
                        (ops.index(), ops.float(), ops.float(), ops.float(), ops.index() % 4);
                    known(sinew_character_transition_synced(
                        character, &asset, clip, time, speed, duration, sync, &mut start,
                    ))
                }
                13 => {
                    let (mut indices, mut count) = ([0u32; 4], 0usize);
                    let capacity = usize::from(ops.u8() % 5);
                    let (layer, slot) = (ops.index(), ops.index());
                    known(sinew_character_crossed_markers(
                        character,
                        &asset,
                        layer,
                        slot,
                        indices.as_mut_ptr(),
                        capacity,
                        &mut count,
                    ))
                }
                14 => {
                    let (mut clip, mut marker, mut time, mut value) = (0u32, 0u32, 0.0f32, 0.0f32);
                    let (mut name, mut len) = (std::ptr::null(), 0usize);
                    let (layer, slot, index) = (ops.index(), ops.index(), ops.index());
                    known(sinew_character_slot_clip(character, layer, slot, &mut clip));
                    known(sinew_character_slot_time(character, layer, slot, &mut time));
                    let mut parent = 0i32;
                    known(sinew_asset_joint_parent(&asset, index, &mut parent));
                    known(sinew_asset_num_markers(&asset, clip, &mut marker));
                    known(sinew_asset_marker(&asset, clip, index, &mut time, &mut value, &mut name, &mut len))
                }
                15 => {
                    let name: Vec<u8> = (0..ops.u8() % 12).map(|_| ops.u8()).collect();
                    let mut weight = 0.0f32;
                    let layer = ops.index();
                    known(sinew_character_range_weight(
                        character,
                        &asset,
                        layer,
                        name.as_ptr().cast(),
                        name.len(),
                        &mut weight,
                    ))
                }
                16 => {
                    let name: Vec<u8> = (0..ops.u8() % 12).map(|_| ops.u8()).collect();
                    let mut curve = 0u32;
                    known(sinew_asset_find_curve(&asset, ops.index(), name.as_ptr().cast(), name.len(), &mut curve))
                }
                17 => {
                    let boxes: Vec<sinew_joint_box> = (0..1 + ops.u8() % 4)
                        .map(|_| sinew_joint_box {
                            center: [ops.float(), ops.float(), ops.float()],
                            joint: ops.index(),
                            half_extent: [ops.float(), ops.float(), ops.float()],
                            reserved: 0,
                        })
                        .collect();
                    let (mut lo, mut hi) = ([0.0f32; 3], [0.0f32; 3]);
                    known(sinew_character_bounds(
                        character,
                        boxes.as_ptr(),
                        boxes.len(),
                        lo.as_mut_ptr(),
                        hi.as_mut_ptr(),
                    ))
                }
                22..=32 => jobs.run(&asset, character, &mut ops),
                33 => {
                    known(sinew_character_update_unskinned(character, &asset, ops.float()));
                    let request = jobs.two_bone(&mut ops);
                    let mut edit = Edit { request, status: SINEW_OK };
                    let status = sinew_character_edit_pose(character, &asset, Some(edit_pose), (&raw mut edit).cast());
                    known(edit.status);
                    known(status)
                }
                _ => {
                    // The memory is the character: a byte copy elsewhere carries on.
                    let moved = memory.clone();
                    memory = moved;
                    character = memory.as_mut_ptr().cast();
                    SINEW_OK
                }
            };
        }
    }
});

/// What the edit callback solves, and the status its solve returned.
struct Edit {
    request: sinew_two_bone,
    status: sinew_status,
}

/// An engine's edit: a two-bone solve on the shown pose, and a call back into the busy character.
unsafe extern "C" fn edit_pose(
    user: *mut std::ffi::c_void,
    asset: *const sinew_asset,
    model: *mut sinew_mat4,
    num_matrices: usize,
    local: *mut sinew_soa_transform,
    count: usize,
) -> sinew_status {
    // SAFETY: the fuzz target passes an `Edit`; the buffers are the pose's, valid for the call.
    unsafe {
        let edit = &mut *user.cast::<Edit>();
        let mut reached = 0;
        edit.status = sinew_two_bone_ik(asset, model, num_matrices, local, count, &edit.request, &mut reached);
        edit.status
    }
}

/// Caller buffers for the stage jobs: three poses (one group longer than the skeleton's, so counts off by one
/// either way stay inside them), model matrices, palettes, a mask, a sampling context and an inertializer.
struct Jobs {
    groups: usize,
    joints: usize,
    skin_joints: usize,
    poses: [Vec<Pose>; 3],
    mask: Vec<Pose>,
    model: Vec<sinew_mat4>,
    rows: Vec<sinew_mat3x4>,
    palette: Vec<sinew_mat4>,
    context_memory: Vec<Chunk>,
    context: *mut sinew_sampling_context,
    inertializer_memory: Vec<Chunk>,
    inertializer: *mut sinew_inertializer,
}

/// A lane group of any four-lane data, 16-byte aligned (a pose group, four mask factors).
type Pose = sinew_soa_transform;

fn identity() -> Pose {
    let mut group = sinew_soa_transform { translation: [[0.0; 4]; 3], rotation: [[0.0; 4]; 4], scale: [[1.0; 4]; 3] };
    group.rotation[3] = [1.0; 4];
    group
}

impl Jobs {
    /// # Safety
    /// `asset` is loaded.
    unsafe fn new(asset: &sinew_asset, joints: u32, ops: &mut Bytes<'_>) -> Jobs {
        let (mut groups, mut skin_joints) = (0, 0);
        // SAFETY: valid pointers.
        unsafe {
            known(sinew_asset_num_soa_joints(asset, &mut groups));
            known(sinew_asset_num_skin_joints(asset, &mut skin_joints));
        }
        let mut jobs = Jobs {
            groups,
            joints: joints as usize,
            skin_joints: skin_joints as usize,
            poses: [0, 1, 2].map(|_| vec![identity(); groups + 1]),
            mask: vec![identity(); groups + 1],
            model: vec![sinew_mat4 { m: [0.0; 16] }; joints as usize + 1],
            rows: vec![sinew_mat3x4 { m: [0.0; 12] }; skin_joints as usize + 1],
            palette: vec![sinew_mat4 { m: [0.0; 16] }; skin_joints as usize + 1],
            context_memory: vec![],
            context: std::ptr::null_mut(),
            inertializer_memory: vec![],
            inertializer: std::ptr::null_mut(),
        };
        let (tracks, curves, settings) = (ops.index(), u32::from(ops.u8() % 3), ops.index());
        let mut bytes = 0;
        // SAFETY: valid pointers; the memories live as long as `jobs`, and move with it only as `Vec` buffers.
        unsafe {
            if known(sinew_sampling_context_required_bytes(joints, tracks, &mut bytes)) == SINEW_OK {
                jobs.context_memory = vec![Chunk::ZERO; Chunk::count(bytes)];
                let memory = jobs.context_memory.as_mut_ptr().cast();
                known(sinew_sampling_context_init(memory, bytes, joints, tracks, &mut jobs.context));
            }
            if known(sinew_inertializer_required_bytes(joints, curves, &mut bytes)) == SINEW_OK {
                jobs.inertializer_memory = vec![Chunk::ZERO; Chunk::count(bytes)];
                let memory = jobs.inertializer_memory.as_mut_ptr().cast();
                known(sinew_inertializer_init(memory, bytes, joints, curves, settings, &mut jobs.inertializer));
            }
        }
        jobs
    }

    /// A count near `n`: one less, `n`, or one more (the buffers hold one more).
    fn near(n: usize, ops: &mut Bytes<'_>) -> usize {
        (n + usize::from(ops.u8() % 3)).saturating_sub(1)
    }

    fn two_bone(&self, ops: &mut Bytes<'_>) -> sinew_two_bone {
        sinew_two_bone {
            chain: [ops.index(), ops.index(), ops.index()],
            target: [ops.float(), ops.float(), ops.float()],
            pole: [ops.float(), ops.float(), ops.float()],
            has_pole: ops.index() % 2,
            weight: ops.float(),
            soften: ops.float(),
            end_turn: [ops.float(), ops.float(), ops.float(), ops.float()],
            has_end_turn: ops.index() % 2,
        }
    }

    /// One job call with arbitrary arguments.
    ///
    /// # Safety
    /// `asset` is loaded; `character` is the live character of it.
    unsafe fn run(
        &mut self,
        asset: &sinew_asset,
        character: *mut sinew_character,
        ops: &mut Bytes<'_>,
    ) -> sinew_status {
        let g = Self::near(self.groups, ops);
        let (pick_a, pick_b) = (usize::from(ops.u8() % 3), usize::from(ops.u8() % 3));
        let (a, b) = (self.poses[pick_a].as_mut_ptr(), self.poses[pick_b].as_mut_ptr());
        let n = Self::near(self.joints, ops);
        let model = self.model.as_mut_ptr();
        // SAFETY: every buffer is at least one element longer than the count passed with it; a pose may be
        // passed as both input and output (`a == b`), which the calls must refuse.
        unsafe {
            match ops.u8() % 11 {
                0 => {
                    let (clip, time, wrap) = (ops.index(), ops.float(), ops.index() % 4);
                    let mut curves = [0.0f32; 4];
                    let num_curves = usize::from(ops.u8() % 5);
                    known(sinew_sample(asset, clip, time, wrap, self.context, a, g, curves.as_mut_ptr(), num_curves))
                }
                1 => {
                    self.mask
                        .iter_mut()
                        .for_each(|m| m.translation[0] = [ops.float(), ops.float(), ops.float(), ops.float()]);
                    let mask = if ops.u8() % 2 == 0 { std::ptr::null() } else { self.mask.as_ptr().cast::<f32>() };
                    let layers = [
                        sinew_blend_layer {
                            pose: self.poses[0].as_ptr(),
                            joint_weights: mask,
                            weight: ops.float(),
                            reserved: 0,
                        },
                        sinew_blend_layer {
                            pose: self.poses[1].as_ptr(),
                            joint_weights: std::ptr::null(),
                            weight: ops.float(),
                            reserved: 0,
                        },
                    ];
                    let (normal, additive) = (usize::from(ops.u8() % 3), usize::from(ops.u8() % 2));
                    known(sinew_blend(asset, layers.as_ptr(), normal, layers.as_ptr(), additive, ops.float(), a, g))
                }
                2 => known(sinew_additive_delta(self.poses[0].as_ptr(), self.poses[1].as_ptr(), a, g)),
                3 => {
                    let mut root = sinew_mat4 { m: [0.0; 16] };
                    root.m.iter_mut().for_each(|v| *v = ops.float());
                    let root = if ops.u8() % 2 == 0 { std::ptr::null() } else { &raw const root };
                    known(sinew_local_to_model(asset, b, g, root, model, n))
                }
                4 => {
                    let s = Self::near(self.skin_joints, ops);
                    known(sinew_skinning_palette_3x4(asset, model, n, self.rows.as_mut_ptr(), s));
                    known(sinew_skinning_palette(asset, model, n, self.palette.as_mut_ptr(), s))
                }
                5 => {
                    let value = sinew_transform {
                        translation: [ops.float(), ops.float(), ops.float()],
                        rotation: [ops.float(), ops.float(), ops.float(), ops.float()],
                        scale: [ops.float(), ops.float(), ops.float()],
                    };
                    let mut read = value;
                    known(sinew_pose_set_joint(a, g, ops.index(), &value));
                    known(sinew_pose_joint(a, g, ops.index(), &mut read))
                }
                6 => {
                    let chain: Vec<u32> = (0..40).map(|_| ops.index()).collect();
                    let weights: Vec<f32> = (0..40).map(|_| ops.float()).collect();
                    let count = u32::from(ops.u8() % 40);
                    let limits: Vec<sinew_joint_limit> = (0..40)
                        .map(|_| sinew_joint_limit {
                            kind: ops.index() % 4,
                            axis: [ops.float(), ops.float(), ops.float()],
                            min_angle: ops.float(),
                            max_angle: ops.float(),
                            max_swing: ops.float(),
                            min_twist: ops.float(),
                            max_twist: ops.float(),
                        })
                        .collect();
                    let (forward, target) =
                        ([ops.float(), ops.float(), ops.float()], [ops.float(), ops.float(), ops.float()]);
                    let aim = sinew_aim_chain {
                        joints: chain.as_ptr(),
                        weights: weights.as_ptr(),
                        num_joints: count,
                        forward,
                        target,
                        max_angle: ops.float(),
                    };
                    let ccd = sinew_ccd {
                        chain: chain.as_ptr(),
                        limits: if ops.u8() % 2 == 0 { std::ptr::null() } else { limits.as_ptr() },
                        num_joints: count,
                        target,
                        tolerance: ops.float(),
                        max_iterations: ops.index() % 64,
                        max_step: ops.float(),
                    };
                    let (mut flags, mut solved) = (0, sinew_ccd_result { iterations: 0, distance: 0.0, reached: 0 });
                    let two_bone = self.two_bone(ops);
                    known(sinew_two_bone_ik(asset, model, n, a, g, &two_bone, &mut flags));
                    known(sinew_aim_chain_ik(asset, model, n, a, g, &aim, &mut flags));
                    known(sinew_ccd_ik(asset, model, n, a, g, &ccd, &mut solved));
                    known(sinew_character_aim_chain_ik(character, asset, &aim, &mut flags));
                    known(sinew_character_ccd_ik(character, asset, &ccd, &mut solved))
                }
                7 => {
                    let chains: Vec<sinew_two_bone_chain> = (0..1 + ops.u8() % 10)
                        .map(|_| sinew_two_bone_chain {
                            asset,
                            model,
                            num_matrices: n,
                            local: b,
                            count: g,
                            request: self.two_bone(ops),
                        })
                        .collect();
                    let mut rotations =
                        vec![sinew_two_bone_rotations { root: [0.0; 4], middle: [0.0; 4] }; chains.len()];
                    known(sinew_two_bone_ik_batch(chains.as_ptr(), chains.len(), rotations.as_mut_ptr()));
                    let chain = [ops.index(), ops.index(), ops.index()];
                    known(sinew_two_bone_store(&rotations[0], chain.as_ptr(), a, g))
                }
                8 => {
                    let mut matrices = [sinew_mat4 { m: [0.0; 16] }; 3];
                    matrices.iter_mut().for_each(|m| m.m.iter_mut().for_each(|v| *v = ops.float()));
                    let upright = [ops.float(), ops.float(), ops.float(), ops.float()];
                    let joint = ops.index();
                    known(sinew_attach(model, n, joint, &matrices[0], &matrices[1], &mut matrices[2]));
                    let upright = if ops.u8() % 2 == 0 { std::ptr::null() } else { upright.as_ptr() };
                    known(sinew_hang(model, n, joint, &matrices[0], &matrices[1], upright, &mut matrices[2]))
                }
                9 => {
                    let curves = [ops.float(), ops.float(), ops.float()];
                    let num_curves = usize::from(ops.u8() % 3);
                    let profile = if ops.u8() % 2 == 0 { std::ptr::null() } else { self.mask.as_ptr().cast::<f32>() };
                    known(sinew_inertializer_request(self.inertializer, ops.float(), profile, g));
                    let previous = if ops.u8() % 2 == 0 { std::ptr::null() } else { b.cast_const() };
                    let status = sinew_inertialize(
                        self.inertializer,
                        ops.float(),
                        a,
                        g,
                        curves.as_ptr(),
                        num_curves,
                        previous,
                        curves.as_ptr(),
                    );
                    let (mut pose, mut count, mut out_curves, mut out_count, mut moving) =
                        (std::ptr::null(), 0, std::ptr::null(), 0, 0);
                    known(sinew_inertializer_output(
                        self.inertializer,
                        &mut pose,
                        &mut count,
                        &mut out_curves,
                        &mut out_count,
                    ));
                    known(sinew_inertializer_is_transitioning(self.inertializer, &mut moving));
                    if ops.u8() % 8 == 0 {
                        known(sinew_inertializer_reset(self.inertializer));
                    }
                    known(status)
                }
                _ => {
                    let vertices: Vec<f32> = (0..96).map(|_| ops.float()).collect();
                    let mut skinned = [0.0f32; 96];
                    let joints: Vec<u16> = (0..32).map(|_| ops.index() as u16).collect();
                    let weights: Vec<f32> = (0..32).map(|_| ops.float()).collect();
                    let count = 1 + ops.u8() % 4;
                    let influences = sinew_influences {
                        joints: joints.as_ptr(),
                        weights: weights.as_ptr(),
                        num_vertices: usize::from(ops.u8() % 9).min(32 / usize::from(count)),
                        count: u32::from(count),
                        reserved: 0,
                    };
                    let mut layout = || sinew_vertex_layout {
                        position_offset: usize::from(ops.u8() % 64),
                        position_stride: usize::from(ops.u8() % 48),
                        normal_offset: usize::from(ops.u8() % 64),
                        normal_stride: usize::from(ops.u8() % 48),
                        tangent_offset: usize::from(ops.u8() % 64),
                        tangent_stride: usize::from(ops.u8() % 48),
                    };
                    let (input, output) = (layout(), layout());
                    let s = Self::near(self.skin_joints, ops);
                    let status = sinew_skin_vertices(
                        self.palette.as_ptr(),
                        s,
                        &influences,
                        ops.index() % 4,
                        vertices.as_ptr().cast(),
                        4 * vertices.len(),
                        &input,
                        skinned.as_mut_ptr().cast(),
                        4 * skinned.len(),
                        &output,
                    );
                    known(status);
                    corrections(asset, ops)
                }
            }
        }
    }
}

/// The motion-correction value types stepped with arbitrary values.
///
/// # Safety
/// `asset` is loaded.
unsafe fn corrections(asset: &sinew_asset, ops: &mut Bytes<'_>) -> sinew_status {
    let mut f = || ops.float();
    let mut out = 0.0f32;
    let mut three = [0.0f32; 3];
    let mut facing = sinew_facing { yaw: f(), rate: f() };
    let mut lean = sinew_lean_state { angle: f(), rate: f() };
    let place = sinew_root_motion { translation: [f(), f(), f()], yaw: f() };
    let mut warped = place;
    let keys = [
        sinew_curve_key { time: f(), value: f(), slope: f() },
        sinew_curve_key { time: f(), value: f(), slope: f() },
        sinew_curve_key { time: f(), value: f(), slope: f() },
    ];
    let warp = sinew_warp_point {
        marker: place,
        target: sinew_root_motion { translation: [f(), f(), f()], yaw: f() },
        marker_time: f(),
        windows: [sinew_warp_window { start: f(), end: f() }; 3],
    };
    let (mut elapsed, mut distance, mut speed) = (f(), 0.0f32, 0.0f32);
    // SAFETY: valid pointers.
    unsafe {
        known(sinew_turn_to_face_step(
            &sinew_turn_to_face { start: f(), end: f(), authored: f(), desired: f() },
            f(),
            f(),
            &mut out,
        ));
        let shift = sinew_shift_to_spot { start: f(), end: f(), predicted: [f(), f(), f()], target: [f(), f(), f()] };
        known(sinew_shift_to_spot_step(&shift, f(), f(), three.as_mut_ptr()));
        known(sinew_dynamic_turn(f(), f(), f(), f(), f(), &mut out));
        known(sinew_steering_step(&sinew_steering { max_acceleration: f(), max_rate: f() }, &mut facing, f(), f()));
        known(sinew_lean_step(&sinew_lean { gain: f(), max: f(), time_constant: f() }, &mut lean, f(), f()));
        known(sinew_playback_rate(f(), f(), f(), f(), &mut out));
        known(sinew_speed_curve_enter(keys.as_ptr(), 3, f(), &mut out));
        known(sinew_speed_curve_step(keys.as_ptr(), 3, &mut elapsed, f(), &mut distance, &mut speed));
        let clip = f().to_bits() % 4;
        known(sinew_clip_motion_between(asset, clip, f(), f(), &mut warped));
        known(sinew_warp_point_apply(&warp, &place, f(), &mut warped));
        let steps = [sinew_speed_step { pad: f(), speed: f() }, sinew_speed_step { pad: f(), speed: f() }];
        known(sinew_target_speed(steps.as_ptr(), f().to_bits() as usize % 3, f(), &mut out));
        let mut range = |clip| sinew_speed_range { low: f(), high: f(), reference_speed: f(), clip };
        let ranges = [range(0), range(1), range(2)];
        let mut shares = [sinew_speed_share { clip: 0, weight: 0.0, rate: 0.0 }; 2];
        let mut count = 0u32;
        let n = f().to_bits() as usize % 4;
        known(sinew_speed_ranges_select(ranges.as_ptr(), n, f(), f(), f(), shares.as_mut_ptr(), &mut count));
        // IK by interpolation over two rest poses (or fewer, or more than there are) with arbitrary angles.
        let mut groups = 0usize;
        if sinew_asset_num_soa_joints(asset, &mut groups) != SINEW_OK {
            return SINEW_OK;
        }
        let rest = vec![std::mem::zeroed::<sinew_soa_transform>(); groups];
        let pointers = [rest.as_ptr(), rest.as_ptr()];
        let angles = [f(), f()];
        let num_yaws = f().to_bits() % 3;
        let request = sinew_aim_blend_request {
            poses: pointers.as_ptr(),
            yaws: angles.as_ptr(),
            pitches: angles.as_ptr(),
            num_yaws,
            num_pitches: 1,
            joint: f().to_bits() % 64,
            forward: [f(), f(), f()],
            direction: [f(), f(), f()],
            iterations: f().to_bits() % 20,
        };
        let mut pose = vec![std::mem::zeroed::<sinew_soa_transform>(); groups];
        let mut model = vec![sinew_mat4 { m: [0.0; 16] }; 4 * groups];
        let mut aimed = std::mem::zeroed::<sinew_aim_blend_result>();
        let joints = (f().to_bits() as usize % (4 * groups + 1)).max(1);
        known(sinew_aim_blend(asset, &request, pose.as_mut_ptr(), groups, model.as_mut_ptr(), joints, &mut aimed))
    }
}
