//! The C ABI driven by arbitrary bytes: the head of the input describes a character and a sequence of calls
//! (play, play in a slot, transition, update, masks, fades, curves, outputs, moving the memory), with
//! arbitrary indices and float bit patterns (NaN, infinities, huge values); the rest is the blob. Every call
//! returns a known status and nothing panics.
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
    assert!((SINEW_OK..=SINEW_ERROR_INTERNAL).contains(&status), "unknown status {status}");
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
        for _ in 0..64 {
            if ops.0.is_empty() {
                break;
            }
            match ops.u8() % 22 {
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
                2 => known(sinew_character_transition(
                    character,
                    &asset,
                    ops.index(),
                    ops.float(),
                    ops.float(),
                    ops.float(),
                )),
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
                    let request = sinew_two_bone {
                        chain: [ops.index(), ops.index(), ops.index()],
                        target: [ops.float(), ops.float(), ops.float()],
                        pole: [ops.float(), ops.float(), ops.float()],
                        has_pole: ops.index() % 2,
                        weight: ops.float(),
                        soften: ops.float(),
                        end_turn: [ops.float(), ops.float(), ops.float(), ops.float()],
                        has_end_turn: ops.index() % 2,
                    };
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
