//! The stage jobs over caller memory (sampling with a context, blending, local-to-model, the palette) against
//! the Rust character, bit for bit, and their refusals: every error leaves the outputs as they were.

#[path = "support/example.rs"]
mod example;

use example::{core_pose, with_example};
use sinew::blending::{BlendLayer, BlendingJob, additive_delta};
use sinew::character::{Character, CharacterDesc, Chunk, LayerDesc, LayerKind, Play, Rig, Sampling, Scratch, SlotId};
use sinew::math::{F4, SoaTransform};
use sinew_ffi::*;
use std::mem::MaybeUninit;

/// A sampling context in `memory` (64-byte chunks).
fn new_context(memory: &mut Vec<Chunk>, joints: u32, tracks: u32) -> *mut sinew_sampling_context {
    let mut len = 0;
    // SAFETY: valid pointers.
    unsafe {
        assert_eq!(sinew_sampling_context_required_bytes(joints, tracks, &mut len), SINEW_OK);
        *memory = vec![Chunk::ZERO; Chunk::count(len)];
        let mut out = std::ptr::null_mut();
        assert_eq!(sinew_sampling_context_init(memory.as_mut_ptr().cast(), len, joints, tracks, &mut out), SINEW_OK);
        out
    }
}

/// A sampling context interpolating as `interpolation` says (`SINEW_INTERPOLATION_*`) in `memory`.
fn context_for(memory: &mut Vec<Chunk>, joints: u32, tracks: u32, interpolation: u32) -> *mut sinew_sampling_context {
    let mut len = 0;
    // SAFETY: valid pointers.
    unsafe {
        assert_eq!(sinew_sampling_context_required_bytes_for(joints, tracks, interpolation, &mut len), SINEW_OK);
        *memory = vec![Chunk::ZERO; Chunk::count(len)];
        let (at, mut out) = (memory.as_mut_ptr().cast(), std::ptr::null_mut());
        assert_eq!(sinew_sampling_context_init_for(at, len, joints, tracks, interpolation, &mut out), SINEW_OK);
        out
    }
}

fn identity_pose(groups: usize) -> Vec<sinew_soa_transform> {
    // SAFETY: the C type has the core type's layout (asserted in the crate); both are plain floats.
    vec![unsafe { std::mem::transmute::<SoaTransform, sinew_soa_transform>(SoaTransform::IDENTITY) }; groups]
}

/// A character crossfading two clips on its base layer: each frame, the jobs called from C on the controls'
/// clips and times give its model matrices and palette bit for bit.
#[test]
fn jobs_through_c_reproduce_the_character() {
    jobs_through_c_reproduce_a_character_sampling(sinew::Interpolation::Linear);
}

/// As above, the character and the contexts sampling cubic.
#[test]
fn cubic_jobs_through_c_reproduce_the_cubic_character() {
    jobs_through_c_reproduce_a_character_sampling(sinew::Interpolation::Cubic);
}

fn jobs_through_c_reproduce_a_character_sampling(interpolation: sinew::Interpolation) {
    with_example(|_, asset, core, n, g| {
        let skin_joints = core.skin().map_or(0, |s| s.num_joints());
        let layers = [LayerDesc { kind: LayerKind::Base, controls: 2 }];
        let desc = CharacterDesc {
            num_joints: n,
            num_skin_joints: skin_joints,
            layers: &layers,
            num_masks: 0,
            num_curves: 0,
            inertialization: None,
            scratch: Scratch::InBlock,
            sampling: Sampling::Shared,
            interpolation,
        };
        let mut memory = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("sized"))];
        let mut character = Character::new(Chunk::bytes_mut(&mut memory), &desc).expect("character");
        character.play(core, SlotId::base(0), Play { time: 0.1, weight: 0.65, ..Play::looping(0) }).expect("play");
        character
            .play(core, SlotId::base(1), Play { time: 0.3, weight: 0.35, speed: 1.3, ..Play::looping(1) })
            .expect("play");
        let rig = Rig::new(core, core.skin()).expect("rig");
        let (mut memory_a, mut memory_b) = (vec![], vec![]);
        let code = match interpolation {
            sinew::Interpolation::Linear => SINEW_INTERPOLATION_LINEAR,
            sinew::Interpolation::Cubic => SINEW_INTERPOLATION_CUBIC,
        };
        let contexts =
            [context_for(&mut memory_a, n as u32, 3 * n as u32, code), context_for(&mut memory_b, n as u32, 0, code)];
        let mut groups = 0;
        // SAFETY: valid pointers.
        unsafe { assert_eq!(sinew_asset_num_soa_joints(asset, &mut groups), SINEW_OK) };
        assert_eq!(groups, g);
        let mut samples = [identity_pose(g), identity_pose(g)];
        let mut blended = identity_pose(g);
        let mut model = vec![sinew_mat4 { m: [0.0; 16] }; n];
        let mut palette = vec![sinew_mat3x4 { m: [0.0; 12] }; skin_joints];
        // Under Miri (soft floats), four frames.
        for _ in 0..if cfg!(miri) { 4 } else { 20 } {
            character.update(1.0 / 30.0, &rig).expect("update");
            for (slot, (context, sample)) in contexts.iter().zip(&mut samples).enumerate() {
                let control = character.control(SlotId::base(slot)).expect("slot").expect("playing");
                // SAFETY: valid pointers and lengths.
                let status = unsafe {
                    sinew_sample(
                        asset,
                        control.clip(),
                        control.time(),
                        SINEW_WRAP_CLAMP,
                        *context,
                        sample.as_mut_ptr(),
                        g,
                        std::ptr::null_mut(),
                        0,
                    )
                };
                assert_eq!(status, SINEW_OK);
            }
            let weights = [0.65f32, 0.35];
            let layers: Vec<sinew_blend_layer> = samples
                .iter()
                .zip(weights)
                .map(|(s, weight)| sinew_blend_layer {
                    pose: s.as_ptr(),
                    joint_weights: std::ptr::null(),
                    weight,
                    reserved: 0,
                })
                .collect();
            // SAFETY: valid pointers and lengths.
            unsafe {
                let status = sinew_blend(asset, layers.as_ptr(), 2, std::ptr::null(), 0, 0.1, blended.as_mut_ptr(), g);
                assert_eq!(status, SINEW_OK);
                let status = sinew_local_to_model(asset, blended.as_ptr(), g, std::ptr::null(), model.as_mut_ptr(), n);
                assert_eq!(status, SINEW_OK);
                if skin_joints > 0 {
                    let status =
                        sinew_skinning_palette_3x4(asset, model.as_ptr(), n, palette.as_mut_ptr(), skin_joints);
                    assert_eq!(status, SINEW_OK);
                }
            }
            let floats = |m: &[sinew_mat4]| m.iter().flat_map(|m| m.m).map(f32::to_bits).collect::<Vec<_>>();
            let rust: Vec<u32> =
                character.model().iter().flat_map(|m| m.cols.into_iter().flatten()).map(f32::to_bits).collect();
            assert_eq!(floats(&model), rust, "model matrices differ");
            let rust_palette: Vec<u32> =
                character.palette().iter().flat_map(|m| m.rows.into_iter().flatten()).map(f32::to_bits).collect();
            let c_palette: Vec<u32> = palette.iter().flat_map(|m| m.m).map(f32::to_bits).collect();
            assert_eq!(c_palette, rust_palette, "palettes differ");
        }
        assert!(skin_joints > 0, "the example blob has a skin, so the palette was compared");
    });
}

/// A masked layer and an additive delta through `sinew_blend` against the core's `BlendingJob`; joints read
/// and written through `sinew_pose_joint` and `sinew_pose_set_joint`.
#[test]
fn masked_and_additive_blending_match_the_core() {
    with_example(|_, asset, core, n, g| {
        let mut memory = vec![];
        let context = new_context(&mut memory, n as u32, 0);
        let mut poses = [identity_pose(g), identity_pose(g), identity_pose(g)];
        for (k, pose) in poses.iter_mut().enumerate() {
            // SAFETY: valid pointers and lengths.
            let status = unsafe {
                sinew_sample(
                    asset,
                    k as u32 % 2,
                    0.05 + 0.21 * k as f32,
                    SINEW_WRAP_LOOP,
                    context,
                    pose.as_mut_ptr(),
                    g,
                    std::ptr::null_mut(),
                    0,
                )
            };
            assert_eq!(status, SINEW_OK);
        }
        // The third pose, one joint moved through the AoS accessors, as an additive delta from the first.
        let mut joint = MaybeUninit::<sinew_transform>::uninit();
        // SAFETY: valid pointers and lengths.
        let mut moved = unsafe {
            assert_eq!(sinew_pose_joint(poses[2].as_ptr(), g, 1, joint.as_mut_ptr()), SINEW_OK);
            joint.assume_init()
        };
        moved.translation[1] += 0.25;
        moved.rotation = [0.0, 0.0, 2.0, 2.0];
        let mut delta = identity_pose(g);
        // SAFETY: valid pointers and lengths.
        unsafe {
            assert_eq!(sinew_pose_set_joint(poses[2].as_mut_ptr(), g, 1, &moved), SINEW_OK);
            assert_eq!(sinew_pose_joint(poses[2].as_ptr(), g, 1, joint.as_mut_ptr()), SINEW_OK);
            let half = std::f32::consts::FRAC_1_SQRT_2;
            assert_eq!(joint.assume_init().rotation, [0.0, 0.0, half, half], "the rotation is normalized");
            assert_eq!(sinew_additive_delta(poses[0].as_ptr(), poses[2].as_ptr(), delta.as_mut_ptr(), g), SINEW_OK);
        }
        let mask: Vec<f32> = (0..4 * g).map(|j| if j % 3 == 0 { 0.0 } else { 0.2 + 0.1 * (j % 5) as f32 }).collect();
        let mut mask_words = vec![F4::ZERO; g];
        bytemuck::cast_slice_mut::<F4, f32>(&mut mask_words).copy_from_slice(&mask);
        let normal = [
            sinew_blend_layer { pose: poses[0].as_ptr(), joint_weights: std::ptr::null(), weight: 0.4, reserved: 0 },
            sinew_blend_layer {
                pose: poses[1].as_ptr(),
                joint_weights: mask_words.as_ptr().cast(),
                weight: 0.9,
                reserved: 0,
            },
        ];
        let added =
            [sinew_blend_layer { pose: delta.as_ptr(), joint_weights: std::ptr::null(), weight: 0.7, reserved: 0 }];
        let mut c_out = identity_pose(g);
        // SAFETY: valid pointers and lengths.
        let status = unsafe { sinew_blend(asset, normal.as_ptr(), 2, added.as_ptr(), 1, 0.1, c_out.as_mut_ptr(), g) };
        assert_eq!(status, SINEW_OK);
        // The same through the core.
        let [a, b, c] = [&poses[0], &poses[1], &poses[2]].map(|p| core_pose(p));
        let mut core_delta = vec![SoaTransform::IDENTITY; g];
        additive_delta(&a, &c, &mut core_delta).expect("delta");
        assert_eq!(core_pose(&delta), core_delta, "additive deltas differ");
        let layers = [
            BlendLayer { pose: &a, weight: 0.4, joint_weights: None },
            BlendLayer { pose: &b, weight: 0.9, joint_weights: Some(&mask_words) },
        ];
        let additive = [BlendLayer { pose: &core_delta, weight: 0.7, joint_weights: None }];
        let mut rust_out = vec![SoaTransform::IDENTITY; g];
        let skeleton = core.skeleton();
        BlendingJob { skeleton, layers: &layers, additive: &additive, threshold: 0.1, output: &mut rust_out }
            .run()
            .expect("blend");
        assert_eq!(core_pose(&c_out), rust_out, "blends differ");
        assert_ne!(rust_out, a, "the blend moved the pose");
    });
}

/// Every refusal of the jobs, each leaving its output as it was.
#[test]
fn jobs_refuse_bad_buffers_and_write_nothing() {
    with_example(|blob, asset, core, n, g| {
        let mut memory = vec![];
        let context = new_context(&mut memory, n as u32, 0);
        let mut pose = identity_pose(g + 1);
        let sentinel = |p: &mut [sinew_soa_transform]| p.iter_mut().for_each(|t| t.translation[0] = [7.0; 4]);
        sentinel(&mut pose);
        let untouched = |p: &[sinew_soa_transform]| p.iter().all(|t| t.translation[0] == [7.0; 4]);
        let null = std::ptr::null_mut();
        // SAFETY: every pointer is valid for the length given, or deliberately NULL or misaligned (refused unread).
        unsafe {
            let p = pose.as_mut_ptr();
            let sample = |clip, time, wrap, context, out, count| {
                sinew_sample(asset, clip, time, wrap, context, out, count, null, 0)
            };
            assert_eq!(sample(9, 0.0, SINEW_WRAP_LOOP, context, p, g), SINEW_ERROR_INDEX_OUT_OF_RANGE);
            assert_eq!(sample(0, f32::NAN, SINEW_WRAP_LOOP, context, p, g), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(sample(0, 0.0, SINEW_WRAP_PING_PONG, context, p, g), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(sample(0, 0.0, SINEW_WRAP_LOOP, context, p, g + 1), SINEW_ERROR_BUFFER);
            assert_eq!(sample(0, 0.0, SINEW_WRAP_LOOP, context, p.cast::<u8>().add(4).cast(), g), SINEW_ERROR_BUFFER);
            assert_eq!(sample(0, 0.0, SINEW_WRAP_LOOP, context, null.cast(), g), SINEW_ERROR_NULL_POINTER);
            // The pose overlapping the context's memory, or the blob.
            assert_eq!(sample(0, 0.0, SINEW_WRAP_LOOP, context, context.cast(), g), SINEW_ERROR_BUFFER);
            assert_eq!(
                sample(0, 0.0, SINEW_WRAP_LOOP, context, blob.as_ptr().cast_mut().cast(), g),
                SINEW_ERROR_BUFFER
            );
            // A context for another joint count, and memory that is no context.
            let mut other = vec![];
            let small = new_context(&mut other, n as u32 + 5, 0);
            assert_eq!(sample(0, 0.0, SINEW_WRAP_LOOP, small, p, g), SINEW_ERROR_BUFFER);
            let mut junk = vec![Chunk::ZERO; 8];
            assert_eq!(sample(0, 0.0, SINEW_WRAP_LOOP, junk.as_mut_ptr().cast(), p, g), SINEW_ERROR_INVALID_HANDLE);
            // More curves than the clip has.
            let mut curves = [5.0f32; 64];
            let status = sinew_sample(asset, 0, 0.0, SINEW_WRAP_LOOP, context, p, g, curves.as_mut_ptr(), 64);
            assert_eq!(status, SINEW_ERROR_BUFFER);
            assert!(curves.iter().all(|&c| c == 5.0));
            // Context set-up.
            let mut len = 0;
            assert_eq!(sinew_sampling_context_required_bytes(0, 0, &mut len), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(sinew_sampling_context_required_bytes(100_000, 0, &mut len), SINEW_ERROR_INVALID_ARGUMENT);
            let mut out = null.cast();
            let mut room = vec![Chunk::ZERO; 4];
            let at = room.as_mut_ptr().cast::<u8>();
            assert_eq!(
                sinew_sampling_context_init(at.add(8).cast(), 200, 4, 0, &mut out),
                SINEW_ERROR_MEMORY_ALIGNMENT
            );
            assert_eq!(sinew_sampling_context_init(at.cast(), 200, 4, 0, &mut out), SINEW_ERROR_MEMORY_TOO_SMALL);
            // An interpolation that is neither; a cubic context in a linear one's memory.
            assert_eq!(sinew_sampling_context_required_bytes_for(4, 0, 2, &mut len), SINEW_ERROR_INVALID_ARGUMENT);
            let linear = |len: &mut usize| sinew_sampling_context_required_bytes(4, 0, len);
            assert_eq!(linear(&mut len), SINEW_OK);
            let mut room = vec![Chunk::ZERO; Chunk::count(len)];
            let at = room.as_mut_ptr().cast();
            assert_eq!(sinew_sampling_context_init_for(at, len, 4, 0, 2, &mut out), SINEW_ERROR_INVALID_ARGUMENT);
            let cubic = SINEW_INTERPOLATION_CUBIC;
            assert_eq!(sinew_sampling_context_init_for(at, len, 4, 0, cubic, &mut out), SINEW_ERROR_MEMORY_TOO_SMALL);
            assert!(out.is_null());
            assert!(untouched(&pose));

            // Blending: too many layers, a bad weight, a mask misaligned, the output overlapping a layer.
            // One group longer than the skeleton's, so a call told `g + 1` reads only what it was given.
            let sampled = identity_pose(g + 1);
            let layer =
                sinew_blend_layer { pose: sampled.as_ptr(), joint_weights: std::ptr::null(), weight: 1.0, reserved: 0 };
            let many = vec![layer; 17];
            let blend = |layers: &[sinew_blend_layer], out, count| {
                sinew_blend(asset, layers.as_ptr(), layers.len(), std::ptr::null(), 0, 0.1, out, count)
            };
            assert_eq!(blend(&many, p, g), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(blend(&[sinew_blend_layer { weight: -1.0, ..layer }], p, g), SINEW_ERROR_INVALID_ARGUMENT);
            let mask = vec![F4::ONE; g + 1];
            let skewed = mask.as_ptr().cast::<f32>().add(1);
            assert_eq!(blend(&[sinew_blend_layer { joint_weights: skewed, ..layer }], p, g), SINEW_ERROR_BUFFER);
            assert_eq!(blend(&[sinew_blend_layer { pose: pose.as_ptr(), ..layer }], p, g), SINEW_ERROR_BUFFER);
            assert_eq!(blend(&[layer], p, g + 1), SINEW_ERROR_BUFFER);
            let status = sinew_blend(asset, many.as_ptr(), 1, many.as_ptr(), 1, 0.0, p, g);
            assert_eq!(status, SINEW_ERROR_INVALID_ARGUMENT, "threshold 0");
            assert!(untouched(&pose));
            // The additive delta: a zero reference scale, and the delta overlapping its input.
            let mut zero_scale = identity_pose(g);
            zero_scale[0].scale[1][2] = 0.0;
            assert_eq!(sinew_additive_delta(zero_scale.as_ptr(), sampled.as_ptr(), p, g), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(sinew_additive_delta(sampled.as_ptr(), p, p, g), SINEW_ERROR_BUFFER);
            assert!(untouched(&pose));
            // Joints: out of range, a zero rotation, a NaN.
            let value = sinew_transform { translation: [0.0; 3], rotation: [0.0; 4], scale: [1.0; 3] };
            assert_eq!(sinew_pose_set_joint(p, g, 0, &value), SINEW_ERROR_INVALID_ARGUMENT);
            let value = sinew_transform { rotation: [0.0, 0.0, 0.0, 1.0], ..value };
            assert_eq!(sinew_pose_set_joint(p, g, 4 * g as u32 + 4, &value), SINEW_ERROR_INDEX_OUT_OF_RANGE);
            let nan = sinew_transform { scale: [1.0, f32::NAN, 1.0], ..value };
            assert_eq!(sinew_pose_set_joint(p, g, 0, &nan), SINEW_ERROR_INVALID_ARGUMENT);
            assert!(untouched(&pose));

            // Local-to-model and the palette: lengths, overlap with the input.
            let mut model = vec![sinew_mat4 { m: [3.0; 16] }; n + 1];
            let m = model.as_mut_ptr();
            assert_eq!(
                sinew_local_to_model(asset, sampled.as_ptr(), g, std::ptr::null(), m, n + 1),
                SINEW_ERROR_BUFFER
            );
            assert_eq!(
                sinew_local_to_model(asset, sampled.as_ptr(), g - 1, std::ptr::null(), m, n),
                SINEW_ERROR_BUFFER
            );
            assert_eq!(sinew_local_to_model(asset, m.cast(), g, std::ptr::null(), m, n), SINEW_ERROR_BUFFER);
            assert_eq!(sinew_local_to_model(asset, sampled.as_ptr(), g, m, m, n), SINEW_ERROR_BUFFER);
            let skin = core.skin().map_or(0, |s| s.num_joints());
            let mut palette = vec![sinew_mat3x4 { m: [3.0; 12] }; skin + 1];
            let q = palette.as_mut_ptr();
            assert_eq!(sinew_skinning_palette_3x4(asset, model.as_ptr(), n, q, skin + 1), SINEW_ERROR_BUFFER);
            assert_eq!(sinew_skinning_palette_3x4(asset, model.as_ptr(), n, m.cast(), skin), SINEW_ERROR_BUFFER);
            assert!(model.iter().all(|m| m.m == [3.0; 16]) && palette.iter().all(|m| m.m == [3.0; 12]));
        }
    });
}

/// Vertex skinning of an interleaved buffer (position, normal, tangent) into a packed one through the C ABI,
/// with the 4×4 palette from `sinew_skinning_palette`, equals the core's jobs bit for bit; its refusals write
/// nothing.
#[test]
fn vertex_skinning_through_c_matches_the_core() {
    use sinew::math::Mat4;
    use sinew::skinning::{Palette, SkinningJob};
    use sinew::vertex_skinning::{Attribute, Influences, NormalMode, VertexLayout, VertexSkinningJob};
    with_example(|_, asset, core, n, g| {
        let mut memory = vec![];
        let context = new_context(&mut memory, n as u32, 0);
        let mut pose = identity_pose(g);
        let mut model = vec![sinew_mat4 { m: [0.0; 16] }; n];
        let skin = core.skin().expect("the example has a skin");
        let mut palette = vec![sinew_mat4 { m: [0.0; 16] }; skin.num_joints()];
        // SAFETY: valid buffers.
        unsafe {
            let status =
                sinew_sample(asset, 0, 0.4, SINEW_WRAP_LOOP, context, pose.as_mut_ptr(), g, std::ptr::null_mut(), 0);
            assert_eq!(status, SINEW_OK);
            let status = sinew_local_to_model(asset, pose.as_ptr(), g, std::ptr::null(), model.as_mut_ptr(), n);
            assert_eq!(status, SINEW_OK);
            let status = sinew_skinning_palette(asset, model.as_ptr(), n, palette.as_mut_ptr(), palette.len());
            assert_eq!(status, SINEW_OK);
        }
        let core_model: Vec<Mat4> = model.iter().map(|m| Mat4 { cols: bytemuck::cast(m.m) }).collect();
        let mut core_palette = vec![Mat4::IDENTITY; skin.num_joints()];
        SkinningJob { skin, model: &core_model, palette: Palette::Matrices(&mut core_palette) }.run().expect("palette");
        let c_palette: Vec<Mat4> = palette.iter().map(|m| Mat4 { cols: bytemuck::cast(m.m) }).collect();
        assert_eq!(c_palette, core_palette, "palettes differ");

        // 40 vertices of 48 bytes: position, normal, tangent, 4 bytes of padding; three influences each.
        let (vertices, count) = (40usize, 3usize);
        let floats: Vec<f32> = (0..vertices * 12).map(|i| ((i * 37 % 101) as f32 / 50.0) - 1.0).collect();
        let input: Vec<u8> = bytemuck::cast_slice(&floats).to_vec();
        let joints: Vec<u16> = (0..vertices * count).map(|i| (i * 7 % skin.num_joints()) as u16).collect();
        let weights: Vec<f32> = (0..vertices * count).map(|i| [0.5, 0.3, 0.2][i % 3]).collect();
        let interleaved = sinew_vertex_layout {
            position_offset: 0,
            position_stride: 48,
            normal_offset: 12,
            normal_stride: 48,
            tangent_offset: 24,
            tangent_stride: 48,
        };
        let packed = sinew_vertex_layout {
            position_offset: 0,
            position_stride: 12,
            normal_offset: 12 * vertices,
            normal_stride: 12,
            tangent_offset: 24 * vertices,
            tangent_stride: 16,
        };
        let table = sinew_influences {
            joints: joints.as_ptr(),
            weights: weights.as_ptr(),
            num_vertices: vertices,
            count: count as u32,
            reserved: 0,
        };
        let mut out = vec![0u8; 40 * vertices];
        // SAFETY: valid buffers.
        let skin_c = |table: &sinew_influences, mode, input: &[u8], layout: &sinew_vertex_layout, out: &mut [u8]| unsafe {
            sinew_skin_vertices(
                palette.as_ptr(),
                palette.len(),
                table,
                mode,
                input.as_ptr().cast(),
                input.len(),
                layout,
                out.as_mut_ptr().cast(),
                out.len(),
                &packed,
            )
        };
        assert_eq!(skin_c(&table, SINEW_NORMALS_FOR_PALETTE, &input, &interleaved, &mut out), SINEW_OK);
        let influences = Influences::new(count, &joints, &weights).expect("influences");
        let layout =
            |p: Attribute, n: Attribute, t: Attribute| VertexLayout { position: p, normal: Some(n), tangent: Some(t) };
        let mut rust_out = vec![0u8; 40 * vertices];
        VertexSkinningJob {
            palette: &core_palette,
            influences: &influences,
            normal_mode: NormalMode::for_palette(&core_palette),
            input: &input,
            input_layout: layout(Attribute::new(0, 48), Attribute::new(12, 48), Attribute::new(24, 48)),
            output: &mut rust_out,
            output_layout: layout(
                Attribute::new(0, 12),
                Attribute::new(12 * vertices, 12),
                Attribute::new(24 * vertices, 16),
            ),
        }
        .run()
        .expect("skin");
        assert_eq!(out, rust_out, "skinned vertices differ");
        assert!(out.iter().any(|&b| b != 0));

        // Refusals: a joint past the palette, a negative weight, normals in one layout only, an unknown mode, a
        // short output, the output over the input.
        let mut fresh = vec![0xabu8; 40 * vertices];
        let far: Vec<u16> = joints.iter().map(|_| skin.num_joints() as u16).collect();
        let far_table = sinew_influences { joints: far.as_ptr(), ..table };
        assert_eq!(
            skin_c(&far_table, SINEW_NORMALS_RIGID, &input, &interleaved, &mut fresh),
            SINEW_ERROR_INDEX_OUT_OF_RANGE
        );
        let negative: Vec<f32> = weights.iter().map(|w| -w).collect();
        let negative_table = sinew_influences { weights: negative.as_ptr(), ..table };
        assert_eq!(
            skin_c(&negative_table, SINEW_NORMALS_RIGID, &input, &interleaved, &mut fresh),
            SINEW_ERROR_INVALID_ARGUMENT
        );
        let no_normals = sinew_vertex_layout { normal_stride: 0, ..interleaved };
        assert_eq!(skin_c(&table, SINEW_NORMALS_RIGID, &input, &no_normals, &mut fresh), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(skin_c(&table, 7, &input, &interleaved, &mut fresh), SINEW_ERROR_INVALID_ARGUMENT);
        assert_eq!(skin_c(&table, SINEW_NORMALS_RIGID, &input, &interleaved, &mut fresh[..100]), SINEW_ERROR_BUFFER);
        let zero_count = sinew_influences { count: 0, ..table };
        assert_eq!(
            skin_c(&zero_count, SINEW_NORMALS_RIGID, &input, &interleaved, &mut fresh),
            SINEW_ERROR_INVALID_ARGUMENT
        );
        assert!(fresh.iter().all(|&b| b == 0xab));
        let mut in_place = input.clone();
        // SAFETY: the output deliberately overlaps the input; the call refuses before reading either.
        let status = unsafe {
            sinew_skin_vertices(
                palette.as_ptr(),
                palette.len(),
                &table,
                SINEW_NORMALS_RIGID,
                in_place.as_ptr().cast(),
                in_place.len(),
                &interleaved,
                in_place.as_mut_ptr().cast(),
                in_place.len(),
                &interleaved,
            )
        };
        assert_eq!(status, SINEW_ERROR_BUFFER);
        assert_eq!(in_place, input);
    });
}

/// An inertializer in caller memory, driven through the C ABI across a clip switch (moved to another address
/// mid-transition), equals the core's `Inertializer` frame by frame, bit for bit; its refusals change nothing.
#[test]
fn inertialization_through_c_matches_the_core() {
    use sinew::arena::Arena;
    use sinew::inertialization::{InertializationJob, Inertializer, Settings, Target, Transition};
    with_example(|_, asset, _, n, g| {
        let mut memory = vec![];
        let context = new_context(&mut memory, n as u32, 0);
        let sample = |clip: u32, time: f32| {
            let mut pose = identity_pose(g);
            // SAFETY: valid buffers.
            let status = unsafe {
                sinew_sample(asset, clip, time, SINEW_WRAP_LOOP, context, pose.as_mut_ptr(), g, std::ptr::null_mut(), 0)
            };
            assert_eq!(status, SINEW_OK);
            pose
        };
        let curves = 2usize;
        let mut bytes = 0;
        let mut inertializer = std::ptr::null_mut();
        // SAFETY: valid buffers.
        unsafe { assert_eq!(sinew_inertializer_required_bytes(n as u32, curves as u32, &mut bytes), SINEW_OK) };
        let mut c_memory = vec![Chunk::ZERO; Chunk::count(bytes)];
        let init = unsafe {
            sinew_inertializer_init(
                c_memory.as_mut_ptr().cast(),
                bytes,
                n as u32,
                2,
                SINEW_INERTIALIZE_DEFAULT,
                &mut inertializer,
            )
        };
        assert_eq!(init, SINEW_OK);
        let mut rust_memory = vec![Chunk::ZERO; Chunk::count(Inertializer::required_bytes(n, curves))];
        let arena = Arena::new(Chunk::bytes_mut(&mut rust_memory));
        let mut rust = Inertializer::new(&arena, n, curves, Settings::default()).expect("inertializer");
        let dt = 1.0 / 30.0;
        let mut moved = vec![Chunk::ZERO; c_memory.len()];
        for frame in 0..16 {
            let (clip, time) = if frame < 5 { (0, 0.1 + dt * frame as f32) } else { (1, 0.3 + dt * frame as f32) };
            let target = sample(clip, time);
            let target_curves = [0.1 * frame as f32, if frame < 5 { 0.0 } else { 1.0 }];
            // The target graph one frame earlier: after the switch, the new clip `dt` before.
            let previous = Some((sample(clip, time - dt), [0.1 * (frame as f32 - 1.0), target_curves[1]]));
            if frame == 5 {
                // SAFETY: valid buffers.
                unsafe { assert_eq!(sinew_inertializer_request(inertializer, 0.3, std::ptr::null(), g), SINEW_OK) };
                rust.request(&Transition { duration: 0.3, profile: None }).expect("request");
            }
            if frame == 8 {
                // The memory moves mid-transition, as a character's may.
                moved.copy_from_slice(&c_memory);
                inertializer = moved.as_mut_ptr().cast();
            }
            let (prev_pose, prev_curves) =
                previous.as_ref().map_or((std::ptr::null(), std::ptr::null()), |(p, c)| (p.as_ptr(), c.as_ptr()));
            // SAFETY: valid buffers.
            let status = unsafe {
                sinew_inertialize(
                    inertializer,
                    dt,
                    target.as_ptr(),
                    g,
                    target_curves.as_ptr(),
                    curves,
                    prev_pose,
                    prev_curves,
                )
            };
            assert_eq!(status, SINEW_OK, "frame {frame}");
            let rust_target = core_pose(&target);
            let rust_previous = previous.as_ref().map(|(p, c)| (core_pose(p), *c));
            let previous_ref = rust_previous.as_ref().map(|(p, c)| (p.as_slice(), c.as_slice()));
            let target_ref = Target { pose: &rust_target, curves: &target_curves, previous: previous_ref };
            InertializationJob { inertializer: &mut rust, dt, target: target_ref }.run().expect("inertialize");
            let (mut pose, mut count, mut out_curves, mut num_curves) = (std::ptr::null(), 0, std::ptr::null(), 0);
            // SAFETY: valid buffers; the output is read before the next call.
            unsafe {
                let status =
                    sinew_inertializer_output(inertializer, &mut pose, &mut count, &mut out_curves, &mut num_curves);
                assert_eq!(status, SINEW_OK);
                let c_out = core_pose(std::slice::from_raw_parts(pose, count));
                assert_eq!(c_out, rust.output().pose, "frame {frame}: poses differ");
                assert_eq!(std::slice::from_raw_parts(out_curves, num_curves), rust.output().curves, "frame {frame}");
                let mut transitioning = 9;
                assert_eq!(sinew_inertializer_is_transitioning(inertializer, &mut transitioning), SINEW_OK);
                assert_eq!(transitioning, u32::from(rust.is_transitioning()));
                if frame == 5 {
                    assert_eq!(transitioning, 1);
                    assert_ne!(c_out, rust_target, "the offset shows after the switch");
                }
            }
        }
        // Refusals, the inertializer unchanged: a NaN step, a short target, a duration below the minimum, a
        // target inside its own memory, bad settings.
        let target = sample(0, 0.2);
        let before = moved.clone();
        // SAFETY: valid buffers, or deliberately bad ones refused unread.
        unsafe {
            let curves2 = [0.0f32; 2];
            let run = |dt, target: *const sinew_soa_transform, count| {
                sinew_inertialize(
                    inertializer,
                    dt,
                    target,
                    count,
                    curves2.as_ptr(),
                    2,
                    std::ptr::null(),
                    std::ptr::null(),
                )
            };
            assert_eq!(run(f32::NAN, target.as_ptr(), g), SINEW_ERROR_INVALID_ARGUMENT);
            assert_eq!(run(dt, target.as_ptr(), g - 1), SINEW_ERROR_BUFFER);
            assert_eq!(run(dt, inertializer.cast::<u8>().add(256).cast(), g), SINEW_ERROR_BUFFER);
            assert_eq!(
                sinew_inertializer_request(inertializer, 0.0, std::ptr::null(), g),
                SINEW_ERROR_INVALID_ARGUMENT
            );
            let short = vec![F4::ONE; g - 1];
            let status = sinew_inertializer_request(inertializer, 0.2, short.as_ptr().cast(), g - 1);
            assert_eq!(status, SINEW_ERROR_BUFFER, "a profile of fewer lane groups than the pose");
            let zero = vec![F4::ZERO; g];
            let status = sinew_inertializer_request(inertializer, 0.2, zero.as_ptr().cast(), g);
            assert_eq!(status, SINEW_ERROR_INVALID_ARGUMENT, "a zero duration factor");
            assert_eq!(moved, before);
            // A request then a relative frame without the previous target.
            assert_eq!(sinew_inertializer_request(inertializer, 0.2, std::ptr::null(), g), SINEW_OK);
            assert_eq!(run(dt, target.as_ptr(), g), SINEW_ERROR_INVALID_ARGUMENT);
            let mut other = std::ptr::null_mut();
            let status = sinew_inertializer_init(c_memory.as_mut_ptr().cast(), bytes, n as u32, 2, 8, &mut other);
            assert_eq!(status, SINEW_ERROR_INVALID_ARGUMENT);
            let mut junk = vec![Chunk::ZERO; 4];
            assert_eq!(sinew_inertializer_reset(junk.as_mut_ptr().cast()), SINEW_ERROR_INVALID_HANDLE);
            assert_eq!(sinew_inertializer_reset(inertializer), SINEW_OK);
        }
    });
}
