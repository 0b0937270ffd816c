//! The C ABI's markers, curve lookup, range weights, motion-only update and bounds against the Rust API, on the
//! shared Bandai walk and run baked with detected foot plants (footstep markers, `plant:` ranges) and a curve:
//! the same answers through the extern functions as through `Character`, bit for bit, and every new error path.

use sinew::bounds::{BoundsJob, JointBounds, JointBox};
use sinew::{Asset, Character, CharacterDesc, Chunk, LayerDesc, LayerKind, Play, Rig, Scratch, SlotId, Wrap};
use sinew_ffi::*;
use sinew_tools::annotate;
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::raw::{AlignedBlob, Extras, RawAnnotations, RawCurve};

const FRAMES: usize = 90;
const DT: f32 = 1.0 / 60.0;

/// The walk and run with their foot plants, the walk with a curve `lean` rising over its frames.
fn annotated_blob() -> Option<AlignedBlob> {
    let dir = sinew_tools::shared_data_for_test("the C ABI's markers on the Bandai walk and run")?;
    let files = ["dataset-1_walk", "dataset-2_run"].map(|c| dir.join(format!("bvh/bandai/{c}_normal_001.bvh")));
    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&files).expect("load");
    let feet = annotate::foot_joints(&skeleton, &[]).expect("feet");
    let annotations = clips
        .iter()
        .map(|clip| {
            let mut a = RawAnnotations::default();
            annotate::detect_plants(&skeleton, clip, &feet, annotate::PlantRule::default(), &mut a).expect("plants");
            a
        })
        .collect::<Vec<_>>();
    let mut annotations = annotations;
    let lean: Vec<f32> = (0..clips[0].frames.len()).map(|f| f as f32 / clips[0].frames.len() as f32).collect();
    annotations[0].curves.push(RawCurve::from_frames("lean", None, clips[0].sample_rate, &lean));
    annotations[1].curves.push(RawCurve::from_frames(
        "lean",
        None,
        clips[1].sample_rate,
        &vec![0.0; clips[1].frames.len()],
    ));
    let extras = Extras { annotations, ..Default::default() };
    Some(bake::bake_with(&skeleton, &clips, KeyFormat::F32, &extras).expect("bake"))
}

fn load(blob: &AlignedBlob) -> sinew_asset {
    let mut asset = std::mem::MaybeUninit::<sinew_asset>::uninit();
    // SAFETY: valid pointers; the blob outlives the asset.
    unsafe {
        assert_eq!(sinew_asset_load(blob.bytes().as_ptr(), blob.bytes().len(), asset.as_mut_ptr()), SINEW_OK);
        asset.assume_init()
    }
}

/// A one-layer character of `asset` in `memory`, playing clip 0 looping from 0.
fn character(asset: &sinew_asset, memory: &mut Vec<Chunk>) -> *mut sinew_character {
    let layers = [sinew_layer_desc { kind: SINEW_LAYER_BASE, controls: 2 }];
    let desc = sinew_character_desc {
        layers: layers.as_ptr(),
        num_layers: 1,
        num_masks: 0,
        num_curves: 0,
        inertialization: SINEW_INERTIALIZATION_NONE,
        skinned: 0,
        sampling: SINEW_SAMPLING_SHARED,
    };
    // SAFETY: valid pointers for each call; the memory outlives the character.
    unsafe {
        let mut bytes = 0;
        assert_eq!(sinew_character_required_bytes(asset, &desc, &mut bytes), SINEW_OK);
        *memory = vec![Chunk::ZERO; Chunk::count(bytes)];
        let mut character = std::ptr::null_mut();
        assert_eq!(sinew_character_init(memory.as_mut_ptr().cast(), bytes, asset, &desc, &mut character), SINEW_OK);
        assert_eq!(sinew_character_play(character, asset, 0, 0, 0.0, 1.0, 1.0), SINEW_OK);
        character
    }
}

/// The Rust description of `character`'s: one base layer of two slots, no inertializer.
fn rust_desc(joints: usize) -> CharacterDesc<'static> {
    const LAYERS: [LayerDesc; 1] = [LayerDesc { kind: LayerKind::Base, controls: 2 }];
    CharacterDesc {
        num_joints: joints,
        num_skin_joints: 0,
        layers: &LAYERS,
        num_masks: 0,
        num_curves: 0,
        inertialization: None,
        scratch: Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation: sinew::Interpolation::Linear,
    }
}

/// Every box of a joint, a 4 cm cube around the joint.
fn joint_boxes(joints: usize) -> Vec<sinew_joint_box> {
    (0..joints as u32)
        .map(|joint| sinew_joint_box { center: [0.0, 1.0, 0.0], joint, half_extent: [2.0; 3], reserved: 0 })
        .collect()
}

#[test]
fn markers_ranges_curves_motion_and_bounds_answer_as_the_rust_api() {
    let Some(blob) = annotated_blob() else { return };
    let rust_asset = Asset::load(blob.bytes()).expect("load");
    let asset = load(&blob);
    let mut memory = vec![];
    let c = character(&asset, &mut memory);
    // The Rust character, fed the same calls.
    let joints = rust_asset.skeleton().num_joints();
    let desc = rust_desc(joints);
    let mut block = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("bytes"))];
    let mut rust = Character::new(bytemuck::cast_slice_mut(&mut block), &desc).expect("character");
    let play = Play { clip: 0, time: 0.0, speed: 1.0, weight: 1.0, wrap: Wrap::Loop, mask: None };
    rust.play(&rust_asset, SlotId::base(0), play).expect("play");
    let rig = Rig::new(&rust_asset, None).expect("rig");
    let boxes = joint_boxes(joints);
    let rust_boxes: Vec<JointBox> = boxes
        .iter()
        .map(|b| JointBox { center: b.center, joint: b.joint, half_extent: b.half_extent, reserved: 0 })
        .collect();
    let bounds = JointBounds::new(joints, &rust_boxes).expect("boxes");
    // A foot's plant ranges, as the detector named them.
    let plant = rust_asset.ranges(0).first().and_then(|r| rust_asset.name(r.name)).expect("a plant").to_string();
    assert!(plant.starts_with("plant:"), "{plant}");
    let (mut fired, mut indices) = (0, [0u32; 8]);
    // SAFETY: valid pointers for every call; the blob, asset and memory outlive the character.
    unsafe {
        let mut markers = 0;
        assert_eq!(sinew_asset_num_markers(&asset, 0, &mut markers), SINEW_OK);
        assert_eq!(markers as usize, rust_asset.markers(0).len());
        assert!(markers >= 8, "a footstep per plant: {markers}");
        for (k, m) in rust_asset.markers(0).iter().enumerate() {
            let (mut time, mut value, mut name, mut len) = (0.0, 0.0, std::ptr::null(), 0);
            assert_eq!(sinew_asset_marker(&asset, 0, k as u32, &mut time, &mut value, &mut name, &mut len), SINEW_OK);
            let text = std::str::from_utf8(std::slice::from_raw_parts(name.cast::<u8>(), len)).expect("utf-8");
            assert_eq!((time, value, Some(text)), (m.time, m.value, rust_asset.name(m.name)));
        }
        let mut curve = u32::MAX;
        assert_eq!(sinew_asset_find_curve(&asset, 1, c"lean".as_ptr(), 4, &mut curve), SINEW_OK);
        assert_eq!(Some(curve as usize), rust_asset.find_curve(1, "lean"));
        let mut clip = 7;
        assert_eq!(sinew_character_slot_clip(c, 0, 1, &mut clip), SINEW_OK);
        assert_eq!(clip, SINEW_NO_CLIP);
        for frame in 0..FRAMES {
            // Every third frame moves without a pose: the markers and the motion are the same.
            let motion_only = frame % 3 == 2;
            if motion_only {
                assert_eq!(sinew_character_update_motion(c, &asset, DT), SINEW_OK);
                rust.update_motion(DT, &rig).expect("update_motion");
            } else {
                assert_eq!(sinew_character_update(c, &asset, DT), SINEW_OK);
                rust.update(DT, &rig).expect("update");
            }
            let mut count = 99;
            let status = sinew_character_crossed_markers(c, &asset, 0, 0, indices.as_mut_ptr(), 8, &mut count);
            assert_eq!(status, SINEW_OK);
            let step = rust.last_step(SlotId::base(0)).expect("slot").expect("a step");
            let want: Vec<u32> = step.crossings(rust_asset.markers(0)).map(|m| m as u32).collect();
            assert_eq!(&indices[..count.min(8)], &want[..], "frame {frame}");
            fired += count;
            let mut weight = -1.0;
            let status = sinew_character_range_weight(c, &asset, 0, plant.as_ptr().cast(), plant.len(), &mut weight);
            assert_eq!(status, SINEW_OK);
            assert_eq!(weight.to_bits(), rust.range_weight(&rust_asset, 0, &plant).expect("weight").to_bits());
            let (mut lo, mut hi) = ([0.0f32; 3], [0.0f32; 3]);
            let status = sinew_character_bounds(c, boxes.as_ptr(), boxes.len(), lo.as_mut_ptr(), hi.as_mut_ptr());
            assert_eq!(status, SINEW_OK);
            let union = BoundsJob { bounds: &bounds, model: rust.model(), boxes: None }.run().expect("bounds");
            assert_eq!((lo, hi), (union.min, union.max), "frame {frame}");
            let mut root = [0.0f32; 3];
            let mut yaw = 0.0;
            assert_eq!(sinew_character_root_motion(c, root.as_mut_ptr(), &mut yaw), SINEW_OK);
            let motion = rust.root_motion();
            assert_eq!((root, yaw), (motion.translation.to_array(), motion.yaw));
        }
        assert!(fired >= 2, "1.5 s of walking crosses footsteps: {fired}");
        assert_eq!(sinew_character_slot_clip(c, 0, 0, &mut clip), SINEW_OK);
        assert_eq!(clip, 0);
    }
}

#[test]
fn the_new_calls_refuse_bad_arguments_and_write_nothing() {
    let Some(blob) = annotated_blob() else { return };
    let asset = load(&blob);
    let mut memory = vec![];
    let c = character(&asset, &mut memory);
    let null = std::ptr::null_mut::<u8>();
    // SAFETY: every pointer is valid or NULL, as each case says.
    unsafe {
        let (mut out, mut count, mut weight) = (7u32, 7usize, 7.0f32);
        assert_eq!(sinew_asset_num_markers(&asset, 99, &mut out), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        assert_eq!(sinew_asset_num_markers(std::ptr::null(), 0, &mut out), SINEW_ERROR_NULL_POINTER);
        assert_eq!(sinew_asset_num_markers(&asset, 0, null.cast()), SINEW_ERROR_NULL_POINTER);
        let (mut t, mut v, mut n, mut l) = (7.0f32, 7.0f32, std::ptr::null(), 7usize);
        assert_eq!(sinew_asset_marker(&asset, 0, 9999, &mut t, &mut v, &mut n, &mut l), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        assert_eq!(sinew_asset_marker(&asset, 99, 0, &mut t, &mut v, &mut n, &mut l), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        assert_eq!(sinew_asset_marker(&asset, 0, 0, null.cast(), &mut v, &mut n, &mut l), SINEW_ERROR_NULL_POINTER);
        assert_eq!((t, v, l), (7.0, 7.0, 7), "nothing written");
        assert_eq!(sinew_asset_find_curve(&asset, 0, c"nope".as_ptr(), 4, &mut out), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        assert_eq!(sinew_asset_find_curve(&asset, 99, c"lean".as_ptr(), 4, &mut out), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        let bad = [0xffu8, 0xfe];
        assert_eq!(sinew_asset_find_curve(&asset, 0, bad.as_ptr().cast(), 2, &mut out), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        assert_eq!(sinew_asset_find_curve(&asset, 0, std::ptr::null(), 0, &mut out), SINEW_ERROR_NULL_POINTER);
        assert_eq!(out, 7, "nothing written");
        assert_eq!(sinew_character_slot_clip(c, 1, 0, &mut out), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        assert_eq!(sinew_character_slot_clip(c, 0, 2, &mut out), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        let mut idx = [7u32; 2];
        let crossed = |layer, slot, ptr: *mut u32, cap, count: *mut usize| {
            sinew_character_crossed_markers(c, &asset, layer, slot, ptr, cap, count)
        };
        assert_eq!(crossed(1, 0, idx.as_mut_ptr(), 2, &mut count), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        assert_eq!(crossed(0, 0, null.cast(), 2, &mut count), SINEW_ERROR_NULL_POINTER);
        assert_eq!(crossed(0, 0, idx.as_mut_ptr(), 2, null.cast()), SINEW_ERROR_NULL_POINTER);
        assert_eq!((idx, count), ([7; 2], 7), "nothing written");
        // Before the first update: none crossed, and a size query needs no buffer.
        assert_eq!(crossed(0, 0, null.cast(), 0, &mut count), SINEW_OK);
        assert_eq!(count, 0);
        let plant = "plant:x";
        let range = |layer, name: *const std::ffi::c_char, len, out: *mut f32| {
            sinew_character_range_weight(c, &asset, layer, name, len, out)
        };
        assert_eq!(range(3, plant.as_ptr().cast(), plant.len(), &mut weight), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        assert_eq!(range(0, bad.as_ptr().cast(), 2, &mut weight), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(range(0, std::ptr::null(), 0, &mut weight), SINEW_ERROR_NULL_POINTER);
        assert_eq!(weight, 7.0, "nothing written");
        assert_eq!(sinew_character_update_motion(c, &asset, f32::NAN), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(sinew_character_update_motion(null.cast(), &asset, 0.1), SINEW_ERROR_NULL_POINTER);
        let mut joints = 0;
        assert_eq!(sinew_asset_num_joints(&asset, &mut joints), SINEW_OK);
        let mut boxes = joint_boxes(joints as usize);
        let (mut lo, mut hi) = ([7.0f32; 3], [7.0f32; 3]);
        let bounds =
            |boxes: *const sinew_joint_box, n, lo: *mut f32, hi: *mut f32| sinew_character_bounds(c, boxes, n, lo, hi);
        assert_eq!(bounds(boxes.as_ptr(), 0, lo.as_mut_ptr(), hi.as_mut_ptr()), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(
            bounds(boxes.as_ptr(), boxes.len() + 1, lo.as_mut_ptr(), hi.as_mut_ptr()),
            SINEW_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(bounds(std::ptr::null(), 1, lo.as_mut_ptr(), hi.as_mut_ptr()), SINEW_ERROR_NULL_POINTER);
        assert_eq!(bounds(boxes.as_ptr(), 1, null.cast(), hi.as_mut_ptr()), SINEW_ERROR_NULL_POINTER);
        let misaligned = boxes.as_ptr().cast::<u8>().add(4).cast();
        assert_eq!(bounds(misaligned, 1, lo.as_mut_ptr(), hi.as_mut_ptr()), SINEW_ERROR_INVALID_ARGUMENT);
        boxes[0].half_extent[1] = -1.0;
        assert_eq!(bounds(boxes.as_ptr(), 1, lo.as_mut_ptr(), hi.as_mut_ptr()), SINEW_ERROR_INVALID_ARGUMENT);
        boxes[0].half_extent[1] = f32::NAN;
        assert_eq!(bounds(boxes.as_ptr(), 1, lo.as_mut_ptr(), hi.as_mut_ptr()), SINEW_ERROR_INVALID_ARGUMENT);
        boxes[0].half_extent[1] = 1.0;
        boxes[0].joint = joints;
        assert_eq!(bounds(boxes.as_ptr(), 1, lo.as_mut_ptr(), hi.as_mut_ptr()), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        assert_eq!((lo, hi), ([7.0; 3], [7.0; 3]), "nothing written");
    }
}

#[test]
fn synced_transitions_enter_where_the_rust_api_does() {
    let Some(dir) = sinew_tools::shared_data_for_test("the C ABI's synced transitions on the Bandai walk and run")
    else {
        return;
    };
    let files = ["dataset-1_walk", "dataset-2_run"].map(|c| dir.join(format!("bvh/bandai/{c}_normal_001.bvh")));
    let phased = sinew_tools::phase::phased_bvhs(&files, &[]).expect("phases");
    assert!(phased.missing.iter().all(Option::is_none), "both clips have a phase: {:?}", phased.missing);
    let rust_asset = Asset::load(phased.blob.bytes()).expect("load");
    let asset = load(&phased.blob);
    let rig = Rig::new(&rust_asset, None).expect("rig");
    let desc = rust_desc(rust_asset.skeleton().num_joints());
    let mut entered = vec![];
    for (sync, mode) in [
        (SINEW_SYNC_NONE, sinew::character::SyncMode::None),
        (SINEW_SYNC_PHASE, sinew::character::SyncMode::Phase),
        (SINEW_SYNC_FOOT_PHASE, sinew::character::SyncMode::FootPhase),
    ] {
        let mut memory = vec![];
        let c = character(&asset, &mut memory);
        let mut block = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("bytes"))];
        let mut rust = Character::new(bytemuck::cast_slice_mut(&mut block), &desc).expect("character");
        let play = Play { clip: 0, time: 0.0, speed: 1.0, weight: 1.0, wrap: Wrap::Loop, mask: None };
        rust.play(&rust_asset, SlotId::base(0), play).expect("play");
        // SAFETY: valid pointers; the blob, asset and memory outlive the character.
        unsafe {
            for _ in 0..37 {
                assert_eq!(sinew_character_update(c, &asset, DT), SINEW_OK);
                rust.update(DT, &rig).expect("update");
            }
            let mut start = -1.0;
            assert_eq!(sinew_character_transition_synced(c, &asset, 1, 0.0, 1.0, 0.0, sync, &mut start), SINEW_OK);
            let run = Play { clip: 1, ..play };
            let want = rust.transition_synced(&rust_asset, 0, run, sinew::Blend::Cut, mode).expect("transition");
            assert_eq!(start.to_bits(), want.to_bits(), "sync {sync}");
            entered.push(start);
            for frame in 0..10 {
                assert_eq!(sinew_character_update(c, &asset, DT), SINEW_OK);
                rust.update(DT, &rig).expect("update");
                let (mut out, mut count) = (std::ptr::null(), 0);
                assert_eq!(sinew_character_model_matrices(c, &mut out, &mut count), SINEW_OK);
                let model: &[f32] = std::slice::from_raw_parts(out, count * 16);
                assert_eq!(model, bytemuck::cast_slice::<_, f32>(rust.model()), "sync {sync}, frame {frame}");
            }
            let mut untouched = 7.0;
            let bad = sinew_character_transition_synced(c, &asset, 1, 0.0, 1.0, 0.0, 3, &mut untouched);
            assert_eq!((bad, untouched), (SINEW_ERROR_INVALID_ARGUMENT, 7.0));
            let null = std::ptr::null_mut();
            assert_eq!(
                sinew_character_transition_synced(c, &asset, 1, 0.0, 1.0, 0.0, 1, null),
                SINEW_ERROR_NULL_POINTER
            );
            let far = sinew_character_transition_synced(c, &asset, 9, 0.0, 1.0, 0.0, 1, &mut untouched);
            assert_eq!((far, untouched), (SINEW_ERROR_INDEX_OUT_OF_RANGE, 7.0));
        }
    }
    // Unsynced enters at the time given; the two matches move it to the walk's phase.
    assert_eq!(entered[0], 0.0);
    assert!(entered[1] > 0.0 && entered[2] > 0.0, "{entered:?}");
}

/// Joint `name` of the asset's skeleton.
fn joint(asset: &Asset<'_>, name: &str) -> u32 {
    let skeleton = asset.skeleton();
    (0..skeleton.num_joints()).find(|&j| skeleton.name(j) == Some(name)).expect(name) as u32
}

#[test]
fn foot_planting_aim_and_two_bone_ik_edit_the_pose_as_the_rust_api() {
    use sinew::foot_planting::{FootPlanter, FootPlantingJob, Ground, PlantSettings};
    use sinew::ik::{AimIkJob, TwoBoneIkJob};
    use sinew::math::{Mat4, Vec3};
    let Some(blob) = annotated_blob() else { return };
    let rust_asset = Asset::load(blob.bytes()).expect("load");
    let asset = load(&blob);
    let mut memory = vec![];
    let c = character(&asset, &mut memory);
    let desc = rust_desc(rust_asset.skeleton().num_joints());
    let mut block = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("bytes"))];
    let mut rust = Character::new(bytemuck::cast_slice_mut(&mut block), &desc).expect("character");
    let play = Play { clip: 0, time: 0.0, speed: 1.0, weight: 1.0, wrap: Wrap::Loop, mask: None };
    rust.play(&rust_asset, SlotId::base(0), play).expect("play");
    let rig = Rig::new(&rust_asset, None).expect("rig");
    let j = |name: &str| joint(&rust_asset, name);
    let legs = [["UpperLeg_L", "LowerLeg_L", "Foot_L"].map(j), ["UpperLeg_R", "LowerLeg_R", "Foot_R"].map(j)];
    // A slope rising along +Z, the character walking on it a little off the origin.
    let normal = [0.0, 1.0, -0.2];
    let mut world = [0.0f32; 16];
    (world[0], world[5], world[10], world[15], world[12]) = (1.0, 1.0, 1.0, 1.0, 3.0);
    let mut request = sinew_foot_planting {
        pelvis: j("Hips"),
        legs,
        planted: [0; 2],
        ground_height: [0.0; 2],
        ground_normal: [normal; 2],
        world,
        dt: DT,
        weight: 1.0,
        release_time: 0.0,
        contact_time: 0.0,
        max_tilt: 0.0,
        soften: 0.0,
        pelvis_time: 0.0,
    };
    let world_matrix = Mat4 { cols: std::array::from_fn(|c| std::array::from_fn(|r| world[4 * c + r])) };
    let mut planter = sinew_foot_planter { opaque: [0; 12] };
    let mut rust_planter = FootPlanter::default();
    let settings = PlantSettings::default();
    let plant_names = ["plant:Foot_L", "plant:Foot_R"];
    let look = sinew_aim {
        joint: j("Head"),
        forward: [0.0, 0.0, 1.0],
        up_axis: [0.0, 1.0, 0.0],
        model_up: [0.0, 1.0, 0.0],
        has_up: 1,
        target: [40.0, 150.0, 80.0],
        max_angle: 1.2,
        max_twist: 0.0,
        weight: 0.8,
    };
    let reach = sinew_two_bone {
        chain: ["UpperArm_R", "LowerArm_R", "Hand_R"].map(j),
        target: [-30.0, 120.0, 30.0],
        pole: [-30.0, 100.0, -50.0],
        has_pole: 1,
        weight: 1.0,
        soften: 0.97,
        end_turn: [0.0; 4],
        has_end_turn: 0,
    };
    let v = |a: [f32; 3]| Vec3::new(a[0], a[1], a[2]);
    let mut locks = 0.0;
    // SAFETY: valid pointers for every call; the blob, asset and memory outlive the character.
    unsafe {
        for frame in 0..FRAMES {
            assert_eq!(sinew_character_update(c, &asset, DT), SINEW_OK);
            rust.update(DT, &rig).expect("update");
            // The plants the clip says, asked for by name as a game would.
            for (foot, name) in plant_names.iter().enumerate() {
                let mut weight = 0.0;
                sinew_character_range_weight(c, &asset, 0, name.as_ptr().cast(), name.len(), &mut weight);
                request.planted[foot] = u32::from(weight > 0.5);
            }
            let mut probes = [0.0f32; 6];
            assert_eq!(sinew_character_foot_probes(c, &mut planter, &request, probes.as_mut_ptr()), SINEW_OK);
            let legs_usize = legs.map(|l| l.map(|j| j as usize));
            let want = rust_planter.probe_points(&legs_usize, rust.model(), &world_matrix);
            assert_eq!(probes, [want[0].to_array(), want[1].to_array()].concat().as_slice(), "frame {frame}");
            // The slope's height under each probe.
            request.ground_height = [0, 1].map(|f| 0.2 * probes[3 * f + 2]);
            let mut report = sinew_planting_report { pelvis_drop: 7.0, reached: [7; 2], lock: [7.0; 2] };
            assert_eq!(sinew_character_plant_feet(c, &asset, &mut planter, &request, &mut report), SINEW_OK);
            let ground = [0, 1].map(|f| Ground { height: request.ground_height[f], normal: v(normal) });
            let rust_report = rust
                .edit_pose(&rig, |edit| {
                    FootPlantingJob {
                        skeleton: edit.skeleton,
                        planter: &mut rust_planter,
                        settings: &settings,
                        pelvis: request.pelvis as usize,
                        legs: legs_usize,
                        planted: request.planted.map(|p| p != 0),
                        ground,
                        world: &world_matrix,
                        dt: DT,
                        weight: 1.0,
                        model: edit.model,
                        local: edit.local,
                    }
                    .run()
                })
                .expect("plant");
            assert_eq!(report.pelvis_drop.to_bits(), rust_report.pelvis_drop.to_bits(), "frame {frame}");
            assert_eq!((report.reached.map(|r| r != 0), report.lock), (rust_report.reached, rust_report.lock));
            locks += report.lock[0] + report.lock[1];
            let mut aimed = 7;
            assert_eq!(sinew_character_aim_ik(c, &asset, &look, &mut aimed), SINEW_OK);
            let rust_aim = rust
                .edit_pose(&rig, |edit| {
                    AimIkJob {
                        skeleton: edit.skeleton,
                        joint: look.joint as usize,
                        forward: v(look.forward),
                        up: Some((v(look.up_axis), v(look.model_up))),
                        target: v(look.target),
                        max_angle: Some(look.max_angle),
                        max_twist: None,
                        weight: look.weight,
                        model: edit.model,
                        local: edit.local,
                    }
                    .run()
                })
                .expect("aim");
            assert_eq!(aimed & SINEW_AIM_AIMED != 0, rust_aim.aimed);
            assert_eq!(aimed & SINEW_AIM_LIMITED != 0, rust_aim.limited);
            let mut reached = 7;
            assert_eq!(sinew_character_two_bone_ik(c, &asset, &reach, &mut reached), SINEW_OK);
            let rust_reach = rust
                .edit_pose(&rig, |edit| {
                    TwoBoneIkJob {
                        skeleton: edit.skeleton,
                        chain: reach.chain.map(|j| j as usize),
                        target: v(reach.target),
                        pole: Some(v(reach.pole)),
                        weight: reach.weight,
                        soften: reach.soften,
                        end_turn: None,
                        model: edit.model,
                        local: edit.local,
                    }
                    .run()
                })
                .expect("two-bone");
            assert_eq!(reached != 0, rust_reach.reached);
            let (mut out, mut count) = (std::ptr::null(), 0);
            assert_eq!(sinew_character_model_matrices(c, &mut out, &mut count), SINEW_OK);
            let model: &[f32] = std::slice::from_raw_parts(out, count * 16);
            assert_eq!(model, bytemuck::cast_slice::<_, f32>(rust.model()), "frame {frame}");
        }
        assert!(locks > 10.0, "the feet plant and lock: {locks}");
        // Errors leave the pose and the planter as they were.
        let before: Vec<f32> = {
            let (mut out, mut count) = (std::ptr::null(), 0);
            sinew_character_model_matrices(c, &mut out, &mut count);
            std::slice::from_raw_parts(out, count * 16).to_vec()
        };
        let kept = planter.opaque;
        let mut report = sinew_planting_report { pelvis_drop: 7.0, reached: [7; 2], lock: [7.0; 2] };
        let bad = |edit: &dyn Fn(&mut sinew_foot_planting)| {
            let mut r = request;
            edit(&mut r);
            r
        };
        for (what, r, status) in [
            ("dt", bad(&|r| r.dt = f32::NAN), SINEW_ERROR_INVALID_ARGUMENT),
            ("weight", bad(&|r| r.weight = 2.0), SINEW_ERROR_INVALID_ARGUMENT),
            ("soften", bad(&|r| r.soften = 1.5), SINEW_ERROR_INVALID_ARGUMENT),
            ("normal", bad(&|r| r.ground_normal[1] = [0.0; 3]), SINEW_ERROR_INVALID_ARGUMENT),
            ("world", bad(&|r| r.world[3] = 1.0), SINEW_ERROR_INVALID_ARGUMENT),
            ("leg", bad(&|r| r.legs[0] = [r.legs[0][0], r.legs[0][2], r.legs[0][1]]), SINEW_ERROR_INVALID_ARGUMENT),
            ("joint", bad(&|r| r.legs[1][2] = 999), SINEW_ERROR_INVALID_ARGUMENT),
        ] {
            assert_eq!(sinew_character_plant_feet(c, &asset, &mut planter, &r, &mut report), status, "{what}");
        }
        assert_eq!((planter.opaque, report.pelvis_drop), (kept, 7.0), "nothing written");
        let mut probes = [7.0f32; 6];
        let far = bad(&|r| r.legs[1][2] = 999);
        assert_eq!(
            sinew_character_foot_probes(c, &mut planter, &far, probes.as_mut_ptr()),
            SINEW_ERROR_INDEX_OUT_OF_RANGE
        );
        assert_eq!(probes, [7.0; 6]);
        let mut flags = 7;
        let mut aim = |edit: &dyn Fn(&mut sinew_aim)| {
            let mut a = look;
            edit(&mut a);
            sinew_character_aim_ik(c, &asset, &a, &mut flags)
        };
        assert_eq!(aim(&|a| a.forward = [0.0; 3]), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(aim(&|a| a.weight = -0.5), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(aim(&|a| a.max_angle = 4.0), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(aim(&|a| a.joint = 999), SINEW_ERROR_INDEX_OUT_OF_RANGE);
        assert_eq!(flags, 7);
        let mut reached = 7;
        let mut two = |edit: &dyn Fn(&mut sinew_two_bone)| {
            let mut t = reach;
            edit(&mut t);
            sinew_character_two_bone_ik(c, &asset, &t, &mut reached)
        };
        assert_eq!(two(&|t| t.chain = [t.chain[2], t.chain[1], t.chain[0]]), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(two(&|t| t.target[0] = f32::INFINITY), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(two(&|t| (t.has_end_turn, t.end_turn) = (1, [0.0; 4])), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(two(&|t| t.soften = 0.0), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(reached, 7);
        assert_eq!(sinew_character_two_bone_ik(c, &asset, std::ptr::null(), &mut reached), SINEW_ERROR_NULL_POINTER);
        assert_eq!(
            sinew_character_plant_feet(c, &asset, std::ptr::null_mut(), &request, &mut report),
            SINEW_ERROR_NULL_POINTER
        );
        let after = {
            let (mut out, mut count) = (std::ptr::null(), 0);
            sinew_character_model_matrices(c, &mut out, &mut count);
            std::slice::from_raw_parts(out, count * 16).to_vec()
        };
        assert_eq!(before, after, "no error changed the pose");
    }
}
