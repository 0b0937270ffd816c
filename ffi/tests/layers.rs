//! The C ABI's layer surface (masks, layer masks, fades, curves, `play_slot`) against the Rust API, bit for bit:
//! the same frames through the extern functions as through `Character`.

#[path = "support/example.rs"]
mod example;

use example::{blob, bytes};
use sinew::inertialization::Settings;
use sinew::math::F4;
use sinew::{Asset, Blend, Character, CharacterDesc, Chunk, LayerDesc, LayerKind, Play, Rig, Scratch, SlotId, Wrap};
use sinew_ffi::*;

const FRAMES: usize = 12;

/// A joint's mask factor: the upper half of the skeleton weighs more.
fn factor(joint: usize) -> f32 {
    0.25 + 0.05 * joint as f32
}

/// Model matrices of every frame, through the C ABI, the controls sampling as `sampling` says.
fn through_c(blob: &[u8], sampling: u32) -> Vec<f32> {
    let mut asset = std::mem::MaybeUninit::<sinew_asset>::uninit();
    // SAFETY: every pointer is valid for the call; the blob outlives the asset.
    unsafe {
        assert_eq!(sinew_asset_load(blob.as_ptr(), blob.len(), asset.as_mut_ptr()), SINEW_OK);
        let asset = asset.assume_init();
        let mut joints = 0;
        assert_eq!(sinew_asset_num_joints(&asset, &mut joints), SINEW_OK);
        let layers = [
            sinew_layer_desc { kind: SINEW_LAYER_BASE, controls: 1 },
            sinew_layer_desc { kind: SINEW_LAYER_OVERLAY, controls: 1 },
        ];
        let desc = sinew_character_desc {
            layers: layers.as_ptr(),
            num_layers: 2,
            num_masks: 1,
            num_curves: 2,
            inertialization: SINEW_INERTIALIZATION_DEFAULT,
            skinned: 0,
            sampling,
        };
        let mut bytes = 0;
        assert_eq!(sinew_character_required_bytes(&asset, &desc, &mut bytes), SINEW_OK);
        let mut memory = vec![Chunk::ZERO; Chunk::count(bytes)];
        let mut character = std::ptr::null_mut();
        let status = sinew_character_init(memory.as_mut_ptr().cast(), bytes, &asset, &desc, &mut character);
        assert_eq!(status, SINEW_OK);
        let weights: Vec<f32> = (0..joints as usize).map(factor).collect();
        assert_eq!(sinew_character_set_mask(character, 0, weights.as_ptr(), weights.len()), SINEW_OK);
        assert_eq!(sinew_character_set_layer_masks(character, 1, 0, SINEW_NO_MASK), SINEW_OK);
        assert_eq!(sinew_character_play(character, &asset, 0, 0, 0.1, 1.0, 1.0), SINEW_OK);
        let overlay = sinew_play {
            layer: 1,
            slot: 0,
            clip: 1,
            time: 0.2,
            speed: 0.8,
            weight: 0.7,
            wrap: SINEW_WRAP_PING_PONG,
            mask: SINEW_NO_MASK,
        };
        assert_eq!(sinew_character_play_slot(character, &asset, &overlay), SINEW_OK);
        assert_eq!(sinew_character_fade_layer(character, 1, 0.5, 0.2), SINEW_OK);
        let curves = [0.3f32, -0.2];
        assert_eq!(sinew_character_set_curves(character, curves.as_ptr(), 2), SINEW_OK);
        let mut out = vec![];
        for _ in 0..FRAMES {
            assert_eq!(sinew_character_update(character, &asset, 1.0 / 30.0), SINEW_OK);
            let (mut values, mut count) = (std::ptr::null(), 0);
            assert_eq!(sinew_character_model_matrices(character, &mut values, &mut count), SINEW_OK);
            out.extend_from_slice(std::slice::from_raw_parts(values, count * 16));
        }
        out
    }
}

/// The same frames through the Rust API.
fn through_rust(blob: &[u8], interpolation: sinew::Interpolation) -> Vec<f32> {
    let asset = Asset::load(blob).expect("load");
    let n = asset.skeleton().num_joints();
    let layers =
        [LayerDesc { kind: LayerKind::Base, controls: 1 }, LayerDesc { kind: LayerKind::Overlay, controls: 1 }];
    let desc = CharacterDesc {
        num_joints: n,
        num_skin_joints: 0,
        layers: &layers,
        num_masks: 1,
        num_curves: 2,
        inertialization: Some(Settings::default()),
        scratch: Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation,
    };
    let mut memory = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("sized"))];
    let mut character = Character::new(Chunk::bytes_mut(&mut memory), &desc).expect("character");
    let mask: Vec<F4> = (0..n.div_ceil(4))
        .map(|g| F4::from_array(std::array::from_fn(|k| if 4 * g + k < n { factor(4 * g + k) } else { 0.0 })))
        .collect();
    character.set_mask(0, &mask).expect("mask");
    character.set_layer_masks(1, Some(0), None).expect("layer mask");
    character.play(&asset, SlotId::base(0), Play { time: 0.1, ..Play::looping(0) }).expect("play");
    let overlay = Play { clip: 1, time: 0.2, speed: 0.8, weight: 0.7, wrap: Wrap::PingPong, mask: None };
    character.play(&asset, SlotId::on(1, 0), overlay).expect("overlay");
    character.fade_layer(1, 0.5, 0.2).expect("fade");
    character.curves_mut().expect("curves").copy_from_slice(&[0.3, -0.2]);
    let rig = Rig::new(&asset, None).expect("rig");
    let mut out = vec![];
    for _ in 0..FRAMES {
        character.update(1.0 / 30.0, &rig).expect("update");
        out.extend(character.model().iter().flat_map(|m| m.cols.into_iter().flatten()));
    }
    out
}

#[test]
fn masks_fades_curves_and_slots_through_c_match_the_rust_api() {
    let words = blob();
    let blob = bytes(&words);
    let (c, rust) = (through_c(blob, SINEW_SAMPLING_SHARED), through_rust(blob, sinew::Interpolation::Linear));
    assert_eq!(c.len(), rust.len());
    let same = |a: &[f32], b: &[f32]| a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.to_bits() == b.to_bits());
    assert!(same(&c, &rust), "the C ABI and the Rust API disagree");
    // Contexts per control give the same frames.
    assert!(same(&through_c(blob, SINEW_SAMPLING_PER_CONTROL), &rust), "per-control sampling differs");
    // Cubic sampling, shared or per control, as the Rust API's, and not the linear frames.
    let cubic = through_rust(blob, sinew::Interpolation::Cubic);
    assert!(same(&through_c(blob, SINEW_SAMPLING_SHARED | SINEW_SAMPLING_CUBIC), &cubic), "cubic differs");
    assert!(same(&through_c(blob, SINEW_SAMPLING_PER_CONTROL | SINEW_SAMPLING_CUBIC), &cubic), "cubic differs");
    assert!(!same(&cubic, &rust), "cubic sampling gave the linear frames");
    // The overlay and its mask did something: the frames differ from the base clip alone.
    assert!(c.iter().any(|v| *v != 0.0));
}

/// `sinew_character_crossfade` equals the Rust API's `Blend::Crossfade` frame by frame, bit for bit, and refuses
/// what it should, the character unchanged.
#[test]
fn crossfade_through_c_matches_the_rust_api() {
    let words = blob();
    let blob = bytes(&words);
    let asset = Asset::load(blob).expect("load");
    let n = asset.skeleton().num_joints();
    let layers = [LayerDesc { kind: LayerKind::Base, controls: 2 }];
    let desc = CharacterDesc {
        num_joints: n,
        num_skin_joints: 0,
        layers: &layers,
        num_masks: 0,
        num_curves: 0,
        inertialization: None,
        scratch: Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation: sinew::Interpolation::Linear,
    };
    let mut memory = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("sized"))];
    let mut rust = Character::new(Chunk::bytes_mut(&mut memory), &desc).expect("character");
    rust.play(&asset, SlotId::base(0), Play { time: 0.1, ..Play::looping(0) }).expect("play");
    let rig = Rig::new(&asset, None).expect("rig");
    let mut c_asset = std::mem::MaybeUninit::<sinew_asset>::uninit();
    // SAFETY: valid pointers throughout; the blob outlives the asset.
    unsafe {
        assert_eq!(sinew_asset_load(blob.as_ptr(), blob.len(), c_asset.as_mut_ptr()), SINEW_OK);
        let c_asset = c_asset.assume_init();
        let c_layers = [sinew_layer_desc { kind: SINEW_LAYER_BASE, controls: 2 }];
        let c_desc = sinew_character_desc {
            layers: c_layers.as_ptr(),
            num_layers: 1,
            num_masks: 0,
            num_curves: 0,
            inertialization: SINEW_INERTIALIZATION_NONE,
            skinned: 0,
            sampling: SINEW_SAMPLING_SHARED,
        };
        let mut len = 0;
        assert_eq!(sinew_character_required_bytes(&c_asset, &c_desc, &mut len), SINEW_OK);
        let mut c_memory = vec![Chunk::ZERO; Chunk::count(len)];
        let mut c = std::ptr::null_mut();
        assert_eq!(sinew_character_init(c_memory.as_mut_ptr().cast(), len, &c_asset, &c_desc, &mut c), SINEW_OK);
        assert_eq!(sinew_character_play(c, &c_asset, 0, 0, 0.1, 1.0, 1.0), SINEW_OK);
        for frame in 0..20 {
            if frame == 5 {
                assert_eq!(sinew_character_crossfade(c, &c_asset, 1, 0.2, 1.0, 0.3), SINEW_OK);
                // Slot 1 is the base's first empty slot.
                let play = Play { time: 0.2, ..Play::looping(1) };
                rust.transition(&asset, 1, play, Blend::Crossfade { duration: 0.3 }).expect("crossfade");
            }
            assert_eq!(sinew_character_update(c, &c_asset, 1.0 / 30.0), SINEW_OK);
            rust.update(1.0 / 30.0, &rig).expect("update");
            let (mut values, mut count) = (std::ptr::null(), 0);
            assert_eq!(sinew_character_model_matrices(c, &mut values, &mut count), SINEW_OK);
            let c_model = std::slice::from_raw_parts(values, count * 16);
            let r: Vec<f32> = rust.model().iter().flat_map(|m| m.cols.into_iter().flatten()).collect();
            assert!(c_model.iter().zip(&r).all(|(a, b)| a.to_bits() == b.to_bits()), "frame {frame}");
            if frame == 7 {
                // Both slots hold a clip: the next crossfade replaces the lighter, the one fading out.
                let mut slot_clip = u32::MAX;
                assert_eq!(sinew_character_slot_clip(c, 0, 0, &mut slot_clip), SINEW_OK);
                assert_eq!(slot_clip, 0, "the old clip still fades in slot 0");
            }
            if frame == 6 {
                // Mid-fade both slots play; refusals change nothing.
                let before = c_memory.clone();
                assert_eq!(sinew_character_crossfade(c, &c_asset, 0, 0.0, 1.0, f32::NAN), SINEW_ERROR_INVALID_ARGUMENT);
                assert_eq!(sinew_character_crossfade(c, &c_asset, 9, 0.0, 1.0, 0.3), SINEW_ERROR_INDEX_OUT_OF_RANGE);
                assert!(before == c_memory, "a refused crossfade changed the character");
            }
        }
    }
}
