//! IK, attachments and pose edits through the C ABI against the core's jobs and the Rust character, bit for
//! bit: the job calls on caller buffers, the batch, the character's edits and the engine's own edit callback.

#[path = "support/example.rs"]
mod example;

use example::{bits, c_model, c_pose, with_example};
use sinew::asset::Asset;
use sinew::attachment::{AttachJob, HangJob};
use sinew::character::{Character, CharacterDesc, Chunk, LayerDesc, LayerKind, Play, Rig, Sampling, Scratch, SlotId};
use sinew::ik::{AimChainJob, CcdIkJob, JointLimit, TwoBoneBatchChain, TwoBoneIkBatchJob, TwoBoneIkJob};
use sinew::math::{Mat4, Quat, Vec3};
use sinew::skeleton::Skeleton;
use sinew_ffi::*;
use std::ffi::c_void;

/// The longest parent chain ending at the deepest joint, root first.
fn deepest_chain(skeleton: &Skeleton<'_>) -> Vec<usize> {
    let parents = skeleton.parents();
    let depth = |mut j: usize| {
        let mut d = 0;
        while parents[j] >= 0 {
            j = parents[j] as usize;
            d += 1;
        }
        d
    };
    let mut j = (0..parents.len()).max_by_key(|&j| depth(j)).expect("joints");
    let mut chain = vec![j];
    while parents[j] >= 0 {
        j = parents[j] as usize;
        chain.push(j);
    }
    chain.reverse();
    chain
}

/// A character of the example playing its first clip, updated a few frames: its pose and model matrices.
fn posed<'m>(core: &Asset<'_>, memory: &'m mut Vec<Chunk>) -> Character<'m> {
    let layers = [LayerDesc { kind: LayerKind::Base, controls: 1 }];
    let desc = CharacterDesc {
        num_joints: core.skeleton().num_joints(),
        num_skin_joints: core.skin().map_or(0, |s| s.num_joints()),
        layers: &layers,
        num_masks: 0,
        num_curves: 0,
        inertialization: None,
        scratch: Scratch::InBlock,
        sampling: Sampling::Shared,
        interpolation: sinew::Interpolation::Linear,
    };
    *memory = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("sized"))];
    let mut character = Character::new(Chunk::bytes_mut(memory), &desc).expect("character");
    character.play(core, SlotId::base(0), Play { time: 0.2, ..Play::looping(0) }).expect("play");
    let rig = Rig::new(core, core.skin()).expect("rig");
    for _ in 0..3 {
        character.update(1.0 / 30.0, &rig).expect("update");
    }
    character
}

/// Two-bone, aim chain and CCD with limits on caller buffers equal the core's jobs; the batch equals the core's
/// batch; attach and hang equal the core's.
#[test]
fn ik_jobs_through_c_match_the_core() {
    with_example(|_, asset, core, _, _| {
        let mut memory = vec![];
        let character = posed(core, &mut memory);
        let skeleton = core.skeleton();
        let chain = deepest_chain(skeleton);
        assert!(chain.len() >= 4, "a chain long enough for every solver");
        let (model, pose) = (character.model().to_vec(), character.pose().to_vec());
        let (n, g) = (model.len(), pose.len());
        let end = model[*chain.last().expect("end")].translation();
        let target = end + Vec3::new(0.05, -0.1, 0.08);

        // Two-bone on the chain's last three joints.
        let three = [chain[chain.len() - 3], chain[chain.len() - 2], chain[chain.len() - 1]];
        let request = sinew_two_bone {
            chain: three.map(|j| j as u32),
            target: target.to_array(),
            pole: [0.0, 0.0, 1.0],
            has_pole: 1,
            weight: 0.8,
            soften: 1.0,
            end_turn: [0.0; 4],
            has_end_turn: 0,
        };
        let (cm, mut cl) = (c_model(&model), c_pose(&pose));
        let mut reached = 7;
        // SAFETY: valid buffers.
        let status = unsafe { sinew_two_bone_ik(asset, cm.as_ptr(), n, cl.as_mut_ptr(), g, &request, &mut reached) };
        assert_eq!(status, SINEW_OK);
        let mut rust = pose.clone();
        let mut job = TwoBoneIkJob {
            skeleton,
            chain: three,
            target,
            pole: Some(Vec3::new(0.0, 0.0, 1.0)),
            weight: 0.8,
            soften: 1.0,
            end_turn: None,
            model: &model,
            local: &mut rust,
        };
        let solve = job.run().expect("two-bone");
        assert_eq!(reached, u32::from(solve.reached));
        assert_eq!(bits(&cl), bits(&rust), "two-bone differs");
        assert_ne!(rust, pose, "the solve moved the pose");

        // The batch: the same chain twice (two characters' worth), against the core's batch.
        let source = c_pose(&pose);
        let item = sinew_two_bone_chain {
            asset,
            model: cm.as_ptr(),
            num_matrices: n,
            local: source.as_ptr(),
            count: g,
            request,
        };
        let items = [item; 2];
        let mut answers = [sinew_two_bone_rotations { root: [0.0; 4], middle: [0.0; 4] }; 2];
        // SAFETY: valid buffers.
        assert_eq!(unsafe { sinew_two_bone_ik_batch(items.as_ptr(), 2, answers.as_mut_ptr()) }, SINEW_OK);
        let core_chain = TwoBoneBatchChain {
            skeleton,
            model: &model,
            local: &pose,
            chain: three,
            target,
            pole: Some(Vec3::new(0.0, 0.0, 1.0)),
            weight: 0.8,
        };
        let mut core_answers = [[Quat::IDENTITY; 2]; 2];
        TwoBoneIkBatchJob { chains: &[core_chain, core_chain], rotations: &mut core_answers }.run().expect("batch");
        assert_eq!(bits(&answers), bits(&core_answers), "batch differs");
        let mut stored = c_pose(&pose);
        let chain_u32 = request.chain;
        // SAFETY: valid buffers.
        assert_eq!(unsafe { sinew_two_bone_store(&answers[0], chain_u32.as_ptr(), stored.as_mut_ptr(), g) }, SINEW_OK);
        let mut core_stored = pose.clone();
        TwoBoneIkBatchJob::store(&core_answers[0], three, &mut core_stored).expect("store");
        assert_eq!(bits(&stored), bits(&core_stored), "stored rotations differ");

        // The aim chain over the whole chain, the last joint finishing the aim.
        let joints: Vec<u32> = chain.iter().map(|&j| j as u32).collect();
        let weights: Vec<f32> = (0..chain.len()).map(|i| if i + 1 == chain.len() { 1.0 } else { 0.3 }).collect();
        let request = sinew_aim_chain {
            joints: joints.as_ptr(),
            weights: weights.as_ptr(),
            num_joints: joints.len() as u32,
            forward: [1.0, 0.0, 0.0],
            target: (end + Vec3::new(0.0, 1.0, 0.5)).to_array(),
            max_angle: 1.2,
        };
        let mut cl = c_pose(&pose);
        let mut flags = 0;
        // SAFETY: valid buffers.
        let status = unsafe { sinew_aim_chain_ik(asset, cm.as_ptr(), n, cl.as_mut_ptr(), g, &request, &mut flags) };
        assert_eq!(status, SINEW_OK);
        let mut rust = pose.clone();
        let chain_joints: Vec<usize> = chain.clone();
        let aimed = AimChainJob {
            skeleton,
            joints: &chain_joints,
            weights: &weights,
            forward: Vec3::new(1.0, 0.0, 0.0),
            target: end + Vec3::new(0.0, 1.0, 0.5),
            max_angle: Some(1.2),
            model: &model,
            local: &mut rust,
        }
        .run()
        .expect("aim chain");
        let expected = [(aimed.aimed, SINEW_AIM_AIMED), (aimed.limited, SINEW_AIM_LIMITED)];
        assert_eq!(flags, expected.iter().filter(|(on, _)| *on).map(|(_, bit)| bit).sum::<u32>());
        assert_eq!(bits(&cl), bits(&rust), "aim chain differs");

        // CCD with a hinge, a cone and free joints.
        let hinge = sinew_joint_limit {
            kind: SINEW_LIMIT_HINGE,
            axis: [0.0, 0.0, 1.0],
            min_angle: -0.5,
            max_angle: 0.7,
            max_swing: 0.0,
            min_twist: 0.0,
            max_twist: 0.0,
        };
        let cone =
            sinew_joint_limit { kind: SINEW_LIMIT_CONE, max_swing: 0.6, min_twist: -0.2, max_twist: 0.3, ..hinge };
        let free = sinew_joint_limit { kind: SINEW_LIMIT_FREE, ..hinge };
        let limits: Vec<sinew_joint_limit> = (0..chain.len() - 1).map(|i| [hinge, cone, free][i % 3]).collect();
        let request = sinew_ccd {
            chain: joints.as_ptr(),
            limits: limits.as_ptr(),
            num_joints: joints.len() as u32,
            target: target.to_array(),
            tolerance: 1e-3,
            max_iterations: 12,
            max_step: 0.4,
        };
        let mut cl = c_pose(&pose);
        let mut result = sinew_ccd_result { iterations: 0, distance: 0.0, reached: 9 };
        // SAFETY: valid buffers.
        let status = unsafe { sinew_ccd_ik(asset, cm.as_ptr(), n, cl.as_mut_ptr(), g, &request, &mut result) };
        assert_eq!(status, SINEW_OK);
        let core_limits: Vec<JointLimit> = (0..chain.len() - 1)
            .map(|i| match i % 3 {
                0 => JointLimit::Hinge { axis: Vec3::new(0.0, 0.0, 1.0), min: -0.5, max: 0.7 },
                1 => {
                    JointLimit::Cone { axis: Vec3::new(0.0, 0.0, 1.0), max_swing: 0.6, min_twist: -0.2, max_twist: 0.3 }
                }
                _ => JointLimit::Free,
            })
            .collect();
        let mut rust = pose.clone();
        let solve = CcdIkJob {
            skeleton,
            chain: &chain_joints,
            limits: &core_limits,
            target,
            tolerance: 1e-3,
            max_iterations: 12,
            max_step: 0.4,
            model: &model,
            local: &mut rust,
        }
        .run()
        .expect("ccd");
        assert_eq!(
            (result.iterations, result.distance.to_bits(), result.reached),
            (solve.iterations, solve.distance.to_bits(), u32::from(solve.reached))
        );
        assert_eq!(bits(&cl), bits(&rust), "CCD differs");
        assert!(solve.iterations > 0);

        // Attach and hang.
        let offset =
            Mat4 { cols: [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, -1.0, 0.0, 0.0], [0.1, 0.2, 0.0, 1.0]] };
        let world =
            Mat4 { cols: [[0.0, 0.0, -1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [5.0, 0.0, 2.0, 1.0]] };
        let joint = three[2];
        let (c_offset, c_world) = (c_model(&[offset])[0], c_model(&[world])[0]);
        let mut attached = sinew_mat4 { m: [0.0; 16] };
        // SAFETY: valid buffers.
        let status = unsafe { sinew_attach(cm.as_ptr(), n, joint as u32, &c_offset, &c_world, &mut attached) };
        assert_eq!(status, SINEW_OK);
        let rust_attached = AttachJob { model: &model, joint, offset: &offset, world: &world }.run().expect("attach");
        assert_eq!(bits(&[attached]), bits(&c_model(&[rust_attached])), "attach differs");
        let mut hung = sinew_mat4 { m: [0.0; 16] };
        let upright = [0.0f32, 0.0, 0.0, 1.0];
        // SAFETY: valid buffers.
        let status =
            unsafe { sinew_hang(cm.as_ptr(), n, joint as u32, &c_offset, &attached, upright.as_ptr(), &mut hung) };
        assert_eq!(status, SINEW_OK);
        let rust_hung =
            HangJob { model: &model, joint, offset: &offset, object: &rust_attached, upright: Some(Quat::IDENTITY) }
                .run()
                .expect("hang");
        assert_eq!(bits(&[hung]), bits(&c_model(&[rust_hung])), "hang differs");
    });
}

/// What the edit callback below does: the two requests it solves, and what it saw.
struct EditUser {
    two_bone: sinew_two_bone,
    aim: sinew_aim,
    character: *mut sinew_character,
    reentry: sinew_status,
    calls: u32,
}

unsafe extern "C" fn solve_both(
    user: *mut c_void,
    asset: *const sinew_asset,
    model: *mut sinew_mat4,
    num_matrices: usize,
    local: *mut sinew_soa_transform,
    count: usize,
) -> sinew_status {
    // SAFETY: the test passes an `EditUser`; the buffers are the pose's.
    unsafe {
        let user = &mut *user.cast::<EditUser>();
        user.calls += 1;
        let (mut reached, mut flags) = (0, 0);
        user.reentry = sinew_character_update(user.character, asset, 0.1);
        let status = sinew_two_bone_ik(asset, model, num_matrices, local, count, &user.two_bone, &mut reached);
        if status != SINEW_OK {
            return status;
        }
        // The aim reads the model matrices of the pose before the two-bone solve, as the Rust side does.
        sinew_aim_ik(asset, model, num_matrices, local, count, &user.aim, &mut flags)
    }
}

unsafe extern "C" fn refuse(
    _: *mut c_void,
    _: *const sinew_asset,
    _: *mut sinew_mat4,
    _: usize,
    _: *mut sinew_soa_transform,
    _: usize,
) -> sinew_status {
    SINEW_ERROR_INVALID_ARGUMENT
}

/// `update_unskinned` then one edit callback running two solvers equals the Rust `update_unskinned` and
/// `edit_pose` with the same jobs, model matrices and palette bit for bit; the callback cannot reach the
/// character; its status comes back.
#[test]
fn an_edit_callback_after_an_unskinned_update_matches_the_rust_character() {
    with_example(|_, asset, core, _, _| {
        let mut rust_memory = vec![];
        let mut rust = posed(core, &mut rust_memory);
        let skeleton = core.skeleton();
        let chain = deepest_chain(skeleton);
        let three = [chain[chain.len() - 3], chain[chain.len() - 2], chain[chain.len() - 1]];
        let target = rust.model()[three[2]].translation() + Vec3::new(0.02, 0.03, -0.04);
        let two_bone = sinew_two_bone {
            chain: three.map(|j| j as u32),
            target: target.to_array(),
            pole: [0.0; 3],
            has_pole: 0,
            weight: 1.0,
            soften: 0.9,
            end_turn: [0.0; 4],
            has_end_turn: 0,
        };
        let look = rust.model()[chain[1]].translation() + Vec3::new(0.0, 0.4, 1.0);
        let aim = sinew_aim {
            joint: chain[1] as u32,
            forward: [0.0, 1.0, 0.0],
            up_axis: [0.0; 3],
            model_up: [0.0; 3],
            has_up: 0,
            target: look.to_array(),
            max_angle: 0.0,
            max_twist: 0.0,
            weight: 0.6,
        };

        // The C character, made and played as `posed` makes the Rust one.
        let layers = [sinew_layer_desc { kind: SINEW_LAYER_BASE, controls: 1 }];
        let desc = sinew_character_desc {
            layers: layers.as_ptr(),
            num_layers: 1,
            num_masks: 0,
            num_curves: 0,
            inertialization: SINEW_INERTIALIZATION_NONE,
            skinned: 1,
            sampling: SINEW_SAMPLING_SHARED,
        };
        let mut bytes = 0;
        // SAFETY: valid pointers throughout.
        unsafe {
            assert_eq!(sinew_character_required_bytes(asset, &desc, &mut bytes), SINEW_OK);
            let mut memory = vec![Chunk::ZERO; Chunk::count(bytes)];
            let mut character = std::ptr::null_mut();
            assert_eq!(sinew_character_init(memory.as_mut_ptr().cast(), bytes, asset, &desc, &mut character), SINEW_OK);
            assert_eq!(sinew_character_play(character, asset, 0, 0, 0.2, 1.0, 1.0), SINEW_OK);
            for _ in 0..3 {
                assert_eq!(sinew_character_update(character, asset, 1.0 / 30.0), SINEW_OK);
            }
            let rig = Rig::new(core, core.skin()).expect("rig");
            assert_eq!(sinew_character_update_unskinned(character, asset, 1.0 / 30.0), SINEW_OK);
            rust.update_unskinned(1.0 / 30.0, &rig, None).expect("update");
            let mut user = EditUser { two_bone, aim, character, reentry: SINEW_OK, calls: 0 };
            let status = sinew_character_edit_pose(character, asset, Some(solve_both), (&raw mut user).cast());
            assert_eq!(status, SINEW_OK);
            assert_eq!(user.calls, 1);
            assert_eq!(user.reentry, SINEW_ERROR_INVALID_HANDLE, "the character is busy during its edit");
            rust.edit_pose(&rig, |e| {
                let model = e.model.to_vec();
                TwoBoneIkJob {
                    skeleton: e.skeleton,
                    chain: three,
                    target,
                    pole: None,
                    weight: 1.0,
                    soften: 0.9,
                    end_turn: None,
                    model: &model,
                    local: &mut *e.local,
                }
                .run()?;
                sinew::ik::AimIkJob {
                    skeleton: e.skeleton,
                    joint: chain[1],
                    forward: Vec3::new(0.0, 1.0, 0.0),
                    up: None,
                    target: look,
                    max_angle: None,
                    max_twist: None,
                    weight: 0.6,
                    model: &model,
                    local: e.local,
                }
                .run()
                .map(|_| ())
            })
            .expect("edit");
            let (mut values, mut count) = (std::ptr::null(), 0);
            assert_eq!(sinew_character_model_matrices(character, &mut values, &mut count), SINEW_OK);
            let c_model = std::slice::from_raw_parts(values, count * 16);
            assert_eq!(bits(c_model), bits(rust.model()), "model matrices differ");
            assert_eq!(sinew_character_palette_3x4(character, &mut values, &mut count), SINEW_OK);
            let c_palette = std::slice::from_raw_parts(values, count * 12);
            assert_eq!(bits(c_palette), bits(rust.palette()), "palettes differ");
            assert!(count > 0);
            // The callback's status comes back, and the character is usable again.
            let status = sinew_character_edit_pose(character, asset, Some(refuse), std::ptr::null_mut());
            assert_eq!(status, SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(
                sinew_character_edit_pose(character, asset, None, std::ptr::null_mut()),
                SINEW_ERROR_NULL_POINTER
            );
            assert_eq!(sinew_character_update(character, asset, 1.0 / 30.0), SINEW_OK);
        }
    });
}

/// Every refusal of the IK and attachment calls, each leaving the pose and answers as they were.
#[test]
fn ik_jobs_refuse_bad_requests_and_write_nothing() {
    with_example(|_, asset, core, _, _| {
        let mut memory = vec![];
        let character = posed(core, &mut memory);
        let chain: Vec<u32> = deepest_chain(core.skeleton()).iter().map(|&j| j as u32).collect();
        let (cm, pose) = (c_model(character.model()), c_pose(character.pose()));
        let (n, g) = (cm.len(), pose.len());
        let mut cl = pose.clone();
        let untouched = |cl: &[sinew_soa_transform]| bits(cl) == bits(&pose);
        let three = [chain[chain.len() - 3], chain[chain.len() - 2], chain[chain.len() - 1]];
        let good = sinew_two_bone {
            chain: three,
            target: [0.1, 0.5, 0.2],
            pole: [0.0; 3],
            has_pole: 0,
            weight: 1.0,
            soften: 1.0,
            end_turn: [0.0; 4],
            has_end_turn: 0,
        };
        let mut out = 5u32;
        // SAFETY: valid buffers, or deliberately bad ones the calls refuse unread.
        unsafe {
            let two_bone = |request: &sinew_two_bone, local: *mut sinew_soa_transform, out: &mut u32| {
                sinew_two_bone_ik(asset, cm.as_ptr(), n, local, g, request, out)
            };
            let backwards = sinew_two_bone { chain: [three[2], three[1], three[0]], ..good };
            assert_eq!(two_bone(&backwards, cl.as_mut_ptr(), &mut out), SINEW_ERROR_INVALID_ARGUMENT);
            let nan = sinew_two_bone { target: [f32::NAN, 0.0, 0.0], ..good };
            assert_eq!(two_bone(&nan, cl.as_mut_ptr(), &mut out), SINEW_ERROR_INVALID_ARGUMENT);
            let past = sinew_two_bone { chain: [three[0], three[1], 60_000], ..good };
            assert_ne!(two_bone(&past, cl.as_mut_ptr(), &mut out), SINEW_OK);
            // The pose overlapping the model matrices.
            assert_eq!(
                sinew_two_bone_ik(asset, cm.as_ptr(), n, cm.as_ptr().cast_mut().cast(), g, &good, &mut out),
                SINEW_ERROR_BUFFER
            );
            assert_eq!(
                sinew_two_bone_ik(asset, cm.as_ptr(), n, cl.as_mut_ptr(), g, std::ptr::null(), &mut out),
                SINEW_ERROR_NULL_POINTER
            );
            assert_eq!(out, 5);
            assert!(untouched(&cl));

            // Aim chains: too long, a weight out of range, joints not an ancestor chain.
            let long = [chain[0]; 33];
            let weights = [0.5f32; 33];
            let aim = sinew_aim_chain {
                joints: long.as_ptr(),
                weights: weights.as_ptr(),
                num_joints: 33,
                forward: [1.0, 0.0, 0.0],
                target: [0.0, 1.0, 1.0],
                max_angle: 0.0,
            };
            let aim_chain = |request: &sinew_aim_chain, out: &mut u32, cl: &mut Vec<sinew_soa_transform>| {
                sinew_aim_chain_ik(asset, cm.as_ptr(), n, cl.as_mut_ptr(), g, request, out)
            };
            assert_eq!(aim_chain(&aim, &mut out, &mut cl), SINEW_ERROR_INVALID_ARGUMENT);
            let reversed: Vec<u32> = chain.iter().rev().copied().collect();
            let aim = sinew_aim_chain { joints: reversed.as_ptr(), num_joints: chain.len() as u32, ..aim };
            assert_eq!(aim_chain(&aim, &mut out, &mut cl), SINEW_ERROR_INVALID_ARGUMENT);
            let over = vec![1.5f32; chain.len()];
            let aim = sinew_aim_chain { joints: chain.as_ptr(), weights: over.as_ptr(), ..aim };
            assert_eq!(aim_chain(&aim, &mut out, &mut cl), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(out, 5);
            assert!(untouched(&cl));

            // CCD: an unknown limit kind, a zero axis, a step of 0.
            let free = sinew_joint_limit {
                kind: SINEW_LIMIT_FREE,
                axis: [0.0, 1.0, 0.0],
                min_angle: 0.0,
                max_angle: 0.0,
                max_swing: 0.0,
                min_twist: 0.0,
                max_twist: 0.0,
            };
            let mut limits = vec![free; chain.len() - 1];
            let ccd = sinew_ccd {
                chain: chain.as_ptr(),
                limits: limits.as_ptr(),
                num_joints: chain.len() as u32,
                target: [0.1, 0.5, 0.2],
                tolerance: 1e-3,
                max_iterations: 4,
                max_step: 0.0,
            };
            let mut result = sinew_ccd_result { iterations: 77, distance: 0.0, reached: 0 };
            let run = |request: &sinew_ccd, result: &mut sinew_ccd_result, cl: &mut Vec<sinew_soa_transform>| {
                sinew_ccd_ik(asset, cm.as_ptr(), n, cl.as_mut_ptr(), g, request, result)
            };
            assert_eq!(run(&ccd, &mut result, &mut cl), SINEW_ERROR_INVALID_ARGUMENT);
            limits[0].kind = 9;
            let ccd = sinew_ccd { max_step: 0.3, limits: limits.as_ptr(), ..ccd };
            assert_eq!(run(&ccd, &mut result, &mut cl), SINEW_ERROR_INVALID_ARGUMENT);
            limits[0] = sinew_joint_limit { kind: SINEW_LIMIT_HINGE, axis: [0.0; 3], ..free };
            let ccd = sinew_ccd { limits: limits.as_ptr(), ..ccd };
            assert_eq!(run(&ccd, &mut result, &mut cl), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(result.iterations, 77);
            assert!(untouched(&cl));

            // The batch: a soft request, an end turn, answers overlapping a chain's pose; the store: a zero turn.
            let item = sinew_two_bone_chain {
                asset,
                model: cm.as_ptr(),
                num_matrices: n,
                local: pose.as_ptr(),
                count: g,
                request: good,
            };
            let mut answers = [sinew_two_bone_rotations { root: [3.0; 4], middle: [3.0; 4] }; 2];
            let soft = [item, sinew_two_bone_chain { request: sinew_two_bone { soften: 0.9, ..good }, ..item }];
            assert_eq!(sinew_two_bone_ik_batch(soft.as_ptr(), 2, answers.as_mut_ptr()), SINEW_ERROR_INVALID_ARGUMENT);
            let turned = [sinew_two_bone_chain {
                request: sinew_two_bone { has_end_turn: 1, end_turn: [0.0, 0.0, 0.0, 1.0], ..good },
                ..item
            }];
            assert_eq!(sinew_two_bone_ik_batch(turned.as_ptr(), 1, answers.as_mut_ptr()), SINEW_ERROR_INVALID_ARGUMENT);
            let bad_second = [item, sinew_two_bone_chain { request: backwards, ..item }];
            assert_eq!(
                sinew_two_bone_ik_batch(bad_second.as_ptr(), 2, answers.as_mut_ptr()),
                SINEW_ERROR_INVALID_ARGUMENT
            );
            let onto_pose = pose.as_ptr().cast_mut().cast();
            assert_eq!(sinew_two_bone_ik_batch([item].as_ptr(), 1, onto_pose), SINEW_ERROR_BUFFER);
            assert!(answers.iter().all(|a| a.root == [3.0; 4] && a.middle == [3.0; 4]));
            let zero = sinew_two_bone_rotations { root: [0.0; 4], middle: [0.0, 0.0, 0.0, 1.0] };
            assert_eq!(sinew_two_bone_store(&zero, three.as_ptr(), cl.as_mut_ptr(), g), SINEW_ERROR_INVALID_ARGUMENT);
            let unit = sinew_two_bone_rotations { root: [0.0, 0.0, 0.0, 1.0], ..zero };
            let far = [three[0], 60_000, three[2]];
            assert_eq!(sinew_two_bone_store(&unit, far.as_ptr(), cl.as_mut_ptr(), g), SINEW_ERROR_INVALID_ARGUMENT);
            assert!(untouched(&cl));

            // Attach and hang: a non-affine offset, a joint past the skeleton, a zero upright rotation.
            let identity = c_model(&[Mat4::IDENTITY])[0];
            let mut projective = identity;
            projective.m[3] = 0.5;
            let mut answer = sinew_mat4 { m: [9.0; 16] };
            assert_eq!(
                sinew_attach(cm.as_ptr(), n, 0, &projective, &identity, &mut answer),
                SINEW_ERROR_INVALID_ARGUMENT
            );
            assert_eq!(
                sinew_attach(cm.as_ptr(), n, n as u32, &identity, &identity, &mut answer),
                SINEW_ERROR_INDEX_OUT_OF_RANGE
            );
            let zero_upright = [0.0f32; 4];
            let status = sinew_hang(cm.as_ptr(), n, 0, &identity, &identity, zero_upright.as_ptr(), &mut answer);
            assert_eq!(status, SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(answer.m, [9.0; 16]);
        }
    });
}

#[test]
fn aim_blend_through_c_matches_the_core_and_refuses_bad_requests() {
    with_example(|_, asset, core, _, _| {
        let skeleton = core.skeleton();
        let (n, joints) = (skeleton.num_soa_joints(), skeleton.num_joints());
        let head = skeleton.find("Head").expect("Head");
        let neck = skeleton.find("Neck").expect("Neck");
        // Four poses: the rest pose with the neck turned by yaw and pitch, on a 2 × 2 grid.
        let angles = [-0.5f32, 0.5];
        let poses: Vec<Vec<sinew::math::SoaTransform>> = angles
            .iter()
            .flat_map(|&p| angles.iter().map(move |&y| (y, p)))
            .map(|(y, p)| {
                let mut pose = skeleton.rest_pose().to_vec();
                let mut t = pose[neck / 4].get(neck % 4);
                let turn = Quat::from_axis_angle(Vec3::new(0.0, 1.0, 0.0), y)
                    * Quat::from_axis_angle(Vec3::new(-1.0, 0.0, 0.0), p);
                t.rotation = turn * t.rotation;
                pose[neck / 4].set(neck % 4, &t);
                pose
            })
            .collect();
        let c_poses: Vec<Vec<sinew_soa_transform>> = poses.iter().map(|p| c_pose(p)).collect();
        let pointers: Vec<*const sinew_soa_transform> = c_poses.iter().map(|p| p.as_ptr()).collect();
        let request = sinew_aim_blend_request {
            poses: pointers.as_ptr(),
            yaws: angles.as_ptr(),
            pitches: angles.as_ptr(),
            num_yaws: 2,
            num_pitches: 2,
            joint: head as u32,
            forward: [0.0, 0.0, 1.0],
            direction: [0.3, 0.2, 1.0],
            iterations: 3,
        };
        // The core job on the same poses.
        let refs: Vec<&[sinew::math::SoaTransform]> = poses.iter().map(|p| &p[..]).collect();
        let mut want_pose = vec![sinew::math::SoaTransform::IDENTITY; n];
        let mut want_model = vec![Mat4::IDENTITY; joints];
        let want = sinew::aim_blend::AimBlendJob {
            skeleton,
            poses: sinew::aim_blend::AimPoses { poses: &refs, yaws: &angles, pitches: &angles },
            joint: head,
            forward: Vec3::new(0.0, 0.0, 1.0),
            direction: Vec3::new(0.3, 0.2, 1.0),
            iterations: 3,
            output: &mut want_pose,
            model: &mut want_model,
        }
        .run()
        .expect("core aim");
        let mut pose = c_pose(&vec![sinew::math::SoaTransform::IDENTITY; n]);
        let mut model = c_model(&vec![Mat4::IDENTITY; joints]);
        let untouched = sinew_aim_blend_result { parameters: [7.0; 2], achieved: [7.0; 3], error: 7.0 };
        let mut result = untouched;
        // SAFETY: every pointer is valid for the call, or deliberately wrong where a refusal is tested.
        unsafe {
            let (p, m) = (pose.as_mut_ptr(), model.as_mut_ptr());
            assert_eq!(sinew_aim_blend(asset, &request, p, n, m, joints, &mut result), SINEW_OK);
            assert_eq!(bits(&pose), bits(&c_pose(&want_pose)));
            assert_eq!(bits(&model), bits(&c_model(&want_model)));
            let a = want.achieved;
            assert_eq!(
                bits(&[result]),
                bits(&[sinew_aim_blend_result {
                    parameters: want.parameters,
                    achieved: [a.x, a.y, a.z],
                    error: want.error
                }])
            );
            // Refusals leave the result as it was.
            let mut result = untouched;
            let refuse = |request: &sinew_aim_blend_request,
                          pose: *mut sinew_soa_transform,
                          model: *mut sinew_mat4,
                          result: &mut sinew_aim_blend_result| {
                sinew_aim_blend(asset, request, pose, n, model, joints, result)
            };
            let too_many = sinew_aim_blend_request { num_yaws: 9, num_pitches: 8, ..request };
            assert_eq!(refuse(&too_many, p, m, &mut result), SINEW_ERROR_INVALID_ARGUMENT);
            let forever = sinew_aim_blend_request { iterations: 1000, ..request };
            assert_eq!(refuse(&forever, p, m, &mut result), SINEW_ERROR_INVALID_ARGUMENT);
            let falling = [0.5f32, -0.5];
            let unordered = sinew_aim_blend_request { yaws: falling.as_ptr(), ..request };
            assert_eq!(refuse(&unordered, p, m, &mut result), SINEW_ERROR_INVALID_ARGUMENT);
            let nowhere = sinew_aim_blend_request { direction: [0.0; 3], ..request };
            assert_eq!(refuse(&nowhere, p, m, &mut result), SINEW_ERROR_INVALID_ARGUMENT);
            let past = sinew_aim_blend_request { joint: joints as u32, ..request };
            assert_eq!(refuse(&past, p, m, &mut result), SINEW_ERROR_INDEX_OUT_OF_RANGE);
            // The output over an input pose, and the model over the output.
            let over_input = c_poses[0].as_ptr().cast_mut();
            assert_eq!(refuse(&request, over_input, m, &mut result), SINEW_ERROR_BUFFER);
            assert_eq!(refuse(&request, p, p.cast(), &mut result), SINEW_ERROR_BUFFER);
            let no_poses = sinew_aim_blend_request { poses: std::ptr::null(), ..request };
            assert_eq!(refuse(&no_poses, p, m, &mut result), SINEW_ERROR_NULL_POINTER);
            assert_eq!(bits(&[result]), bits(&[untouched]));
            assert_eq!(
                sinew_aim_blend(asset, &request, p, n, m, joints, std::ptr::null_mut()),
                SINEW_ERROR_NULL_POINTER
            );
        }
    });
}
