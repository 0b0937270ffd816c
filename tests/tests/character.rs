//! The character runtime: the layer stack against an f64 reference (synthetic and real clips), zero-weight
//! skipping by the decode counter, a block moved with `memcpy` carrying on bit for bit, transitions, markers,
//! and every bad input leaving the character as it was.

use sinew::blending::subtree_mask;
use sinew::character::{BLOCK_ALIGN, MAX_CHARACTER_LAYERS, MAX_CONTROLS, MAX_LAYER_CONTROLS, MAX_MASKS};
use sinew::control::Wrap;
use sinew::error::{Index, Limit};
use sinew::inertialization::{Settings, Shape, Transition};
use sinew::math::{F4, Transform, unpack_soa};
use sinew::{
    Asset, Blend, Buffer, Character, CharacterDesc, Chunk, Error, LayerDesc, LayerKind, Play, Rig, Scratch, SlotId,
};
use sinew_tests::oracle::{self, Flat};
use sinew_tests::{Rng, random_clip};
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::raw::{AlignedBlob, RawClip, RawSkeleton};

/// Memory aligned to `BLOCK_ALIGN`, with two chunks to spare (to move a block somewhere else).
struct Block(Vec<Chunk>);

impl Block {
    fn new(bytes: usize) -> Block {
        Block(vec![Chunk::ZERO; Chunk::count(bytes) + 2])
    }
    /// `len` bytes starting `skip` chunks in.
    fn bytes(&mut self, skip: usize, len: usize) -> &mut [u8] {
        &mut Chunk::bytes_mut(&mut self.0)[skip * 64..][..len]
    }
}

/// Four clips of different lengths on one random skeleton of `n` joints.
fn synthetic(n: usize) -> (RawSkeleton, Vec<RawClip>) {
    let mut rng = Rng::new(0xC4A2);
    // Under Miri (soft floats) making, baking and loading the clips is most of each test's time: there every
    // clip keeps about its duration at a fifth of the rate (clip 0 exactly its second), so the same paths run.
    let every = if cfg!(miri) { 5 } else { 1 };
    let mut clip = |frames: usize| {
        let mut clip = random_clip(&mut rng, n, (frames - 1) / every + 1);
        clip.1.sample_rate /= every as f32;
        clip
    };
    let (skeleton, first) = clip(31);
    let mut clips = vec![first];
    for frames in [45, 20, 60] {
        clips.push(clip(frames).1);
    }
    (skeleton, clips)
}

fn real() -> Option<(RawSkeleton, Vec<RawClip>)> {
    let dir = sinew_tests::shared_data("character layer stack on the Bandai clips")?;
    let files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
    // Walk, run, kick and dance share one skeleton.
    let pick = |name: &str| files.iter().find(|f| f.to_string_lossy().contains(name)).cloned().expect(name);
    let paths = ["walk", "run", "kick", "dance"].map(pick);
    Some(sinew_tools::bvh::load_raw_files(&paths).expect("load"))
}

fn rest64(skeleton: &RawSkeleton) -> Vec<Flat> {
    skeleton.rest.iter().map(oracle::flat).collect()
}

fn pose_of(character: &Character<'_>, n: usize) -> Vec<Transform> {
    let mut aos = vec![Transform::IDENTITY; n];
    unpack_soa(character.pose(), &mut aos).expect("unpack");
    aos
}

const STACK: [LayerDesc; 4] = [
    LayerDesc { kind: LayerKind::Base, controls: 2 },
    LayerDesc { kind: LayerKind::Overlay, controls: 1 },
    LayerDesc { kind: LayerKind::SyncedAdditive, controls: 1 },
    LayerDesc { kind: LayerKind::OverlappingAdditive, controls: 1 },
];

fn desc(n: usize, inertialization: Option<Settings>) -> CharacterDesc<'static> {
    CharacterDesc {
        num_joints: n,
        num_skin_joints: 0,
        layers: &STACK,
        num_masks: 2,
        num_curves: 0,
        inertialization,
        scratch: Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation: sinew::Interpolation::Linear,
    }
}

/// Local time after `k` steps of `dt` at `speed` from `start`, looping over `duration`: the f64 clock.
fn looped(start: f64, speed: f64, dt: f64, k: usize, duration: f64) -> f64 {
    (start + speed * dt * k as f64).rem_euclid(duration)
}

/// Runs the four-layer stack on `(skeleton, clips)` and compares every frame with the f64 reference. The
/// overlay's one control plays at `overlay_weight`, under mask 0 when `overlay_masked`: below the blend
/// threshold or masked, the rest pose fills its blend.
fn layer_stack_against_reference(
    skeleton: &RawSkeleton,
    clips: &[RawClip],
    overlay_joint: usize,
    (overlay_weight, overlay_masked): (f32, bool),
    tolerance: f64,
) {
    let n = skeleton.parents.len();
    let blob = bake::bake(skeleton, clips, KeyFormat::F32).expect("bake");
    let asset = Asset::load(blob.bytes()).expect("load");
    let rest = rest64(skeleton);
    let duration = |c: usize| (clips[c].frames.len() - 1) as f64 / clips[c].sample_rate as f64;
    let rate = |c: usize| clips[c].sample_rate as f64;

    let desc = desc(n, None);
    let mut block = Block::new(Character::required_bytes(&desc).expect("size"));
    let mut character = Character::new(block.bytes(0, Character::required_bytes(&desc).unwrap()), &desc).unwrap();
    // Mask 0: the overlay's subtree at 0.8. Mask 1: a profile, twice as slow below `overlay_joint`.
    let g = n.div_ceil(4);
    let mut mask = vec![F4::ZERO; g];
    subtree_mask(asset.skeleton(), overlay_joint, 0.8, &mut mask).unwrap();
    character.set_mask(0, &mask).unwrap();
    let mut profile = vec![F4::ZERO; g];
    subtree_mask(asset.skeleton(), overlay_joint, 1.0, &mut profile).unwrap();
    let profile: Vec<F4> = profile.iter().map(|p| *p + F4::ONE).collect();
    character.set_mask(1, &profile).unwrap();

    let overlay_mask = overlay_masked.then_some(0);
    let plays = [
        (0, 0, Play { clip: 0, time: 0.1, speed: 1.0, weight: 0.6, wrap: Wrap::Loop, mask: None }),
        (0, 1, Play { clip: 1, time: 0.0, speed: 1.3, weight: 0.4, wrap: Wrap::Loop, mask: None }),
        (1, 0, Play { clip: 2, time: 0.21, speed: 0.8, weight: overlay_weight, wrap: Wrap::Loop, mask: overlay_mask }),
        (2, 0, Play { clip: 3, time: 0.0, speed: 1.0, weight: 0.5, wrap: Wrap::Loop, mask: None }),
        (3, 0, Play { clip: 1, time: 0.3, speed: 0.7, weight: 0.25, wrap: Wrap::Loop, mask: None }),
    ];
    for (layer, slot, play) in plays {
        character.play(&asset, SlotId::on(layer, slot), play).unwrap();
    }
    character.set_layer_masks(1, Some(0), Some(1)).unwrap();
    // The overlay fades in over 0.3 s (0.6 s below `overlay_joint`).
    character.fade_layer(1, 0.0, 0.0).unwrap();
    character.fade_layer(1, 1.0, 0.3).unwrap();

    let dt = 1.0 / 30.0;
    let mask64: Vec<f64> = (0..n).map(|j| mask[j / 4].to_array()[j % 4] as f64).collect();
    let profile64: Vec<f64> = (0..n).map(|j| profile[j / 4].to_array()[j % 4] as f64).collect();
    let mut worst = 0.0f64;
    let rig = Rig::new(&asset, None).unwrap();
    for k in 1..=if cfg!(miri) { 3 } else { 40 } {
        character.update(dt, &rig).unwrap();
        let t = |i: usize| {
            let (_, _, p) = plays[i];
            looped(p.time as f64, p.speed as f64, dt as f64, k, duration(p.clip))
        };
        let sample = |i: usize, time: f64| oracle::sample(&clips[plays[i].2.clip].frames, rate(plays[i].2.clip), time);
        let (walk, run) = (sample(0, t(0)), sample(1, t(1)));
        let mut pose = oracle::blend(&rest, &[(&walk, 0.6, None), (&run, 0.4, None)], 0.1);
        // Overlay: per joint `mask · fade(elapsed / (0.3 · profile))`.
        let overlay = sample(2, t(2));
        let overlay_mask64 = overlay_masked.then_some(&mask64[..]);
        let overlay = oracle::blend(&rest, &[(&overlay, overlay_weight as f64, overlay_mask64)], 0.1);
        let elapsed = dt as f64 * k as f64;
        for j in 0..n {
            let w = mask64[j] * (elapsed / (0.3 * profile64[j])).min(1.0);
            pose[j] = oracle::interpolate(&pose[j], &overlay[j], w);
        }
        // Synced additive: the leading base control's (the walk's) normalized time.
        let synced_time = t(0) / duration(0) * duration(3);
        let synced = sample(3, synced_time);
        for j in 0..n {
            pose[j] = oracle::add(&pose[j], &rest[j], &synced[j], 0.5);
        }
        let overlapping = sample(4, t(4));
        for j in 0..n {
            pose[j] = oracle::add(&pose[j], &rest[j], &overlapping[j], 0.25);
        }
        let err = oracle::max_relative_error(&pose_of(&character, n), &pose);
        worst = worst.max(err);
        assert!(err < tolerance, "frame {k}: {err:e}");
    }
    println!("layer stack, {n} joints: worst relative error {worst:e}");
    // No motion root in this skeleton: the character stays where it is.
    assert_eq!(character.root_motion(), sinew::root_motion::RootMotion::IDENTITY);
}

#[test]
fn the_layer_stack_matches_the_f64_reference() {
    // Under Miri the 67-joint rig adds minutes and no code path the 5-joint one misses.
    for &n in if cfg!(miri) { &[1, 5][..] } else { &[1, 5, 67][..] } {
        let (skeleton, clips) = synthetic(n);
        // The overlay's control as is, below the blend threshold, and masked.
        for overlay in [(1.0, false), (0.05, false), (0.7, true)] {
            layer_stack_against_reference(&skeleton, &clips, n / 2, overlay, 2e-5);
        }
    }
}

#[test]
fn the_layer_stack_matches_the_f64_reference_on_real_clips() {
    let Some((skeleton, clips)) = real() else { return };
    // Upper body from the first spine joint. Translations reach ~100 cm, and an additive's delta from the rest
    // pose cancels them in f32 (an ulp of 100 is 8e-6): small components carry that absolute error.
    let spine = skeleton.names.iter().position(|n| n.to_lowercase().contains("spine")).expect("a spine joint");
    layer_stack_against_reference(&skeleton, &clips, spine, (1.0, false), 1e-4);
}

/// A character on the synthetic asset, with its block.
struct Fixture {
    blob: AlignedBlob,
    n: usize,
}

impl Fixture {
    fn new(n: usize) -> Fixture {
        let (skeleton, clips) = synthetic(n);
        Fixture { blob: bake::bake(&skeleton, &clips, KeyFormat::F32).expect("bake"), n }
    }
    fn asset(&self) -> Asset<'_> {
        Asset::load(self.blob.bytes()).expect("load")
    }
}

#[test]
fn zero_weight_controls_and_layers_are_not_sampled() {
    let f = Fixture::new(9);
    let asset = f.asset();
    let desc = desc(f.n, None);
    let bytes = Character::required_bytes(&desc).unwrap();
    let (mut a, mut b) = (Block::new(bytes), Block::new(bytes));
    let mut full = Character::new(a.bytes(0, bytes), &desc).unwrap();
    let mut bare = Character::new(b.bytes(0, bytes), &desc).unwrap();
    for c in [&mut full, &mut bare] {
        c.play(&asset, SlotId::base(0), Play::looping(0)).unwrap();
    }
    // The same base, plus a silent base control, a silent overlay layer and an additive at weight 0.
    full.play(&asset, SlotId::base(1), Play { weight: 0.0, ..Play::looping(1) }).unwrap();
    full.play(&asset, SlotId::on(1, 0), Play::looping(2)).unwrap();
    full.fade_layer(1, 0.0, 0.0).unwrap();
    full.play(&asset, SlotId::on(3, 0), Play { weight: 0.0, ..Play::looping(3) }).unwrap();
    let frames = if cfg!(miri) { 4 } else { 20 };
    for _ in 0..frames {
        full.update(1.0 / 60.0, &Rig::new(&asset, None).unwrap()).unwrap();
        bare.update(1.0 / 60.0, &Rig::new(&asset, None).unwrap()).unwrap();
        assert_eq!(full.decoded_frames(), bare.decoded_frames());
        assert_eq!(bytemuck::cast_slice::<_, u32>(full.pose()), bytemuck::cast_slice::<_, u32>(bare.pose()));
    }
    // Their clocks still ran: the overlay's control moved on.
    let overlay = full.control(SlotId::on(1, 0)).unwrap().expect("still playing");
    assert!((overlay.time() - frames as f32 / 60.0).abs() < 1e-5);
    // Weight back on: the overlay is sampled again.
    let before = full.decoded_frames();
    full.fade_layer(1, 1.0, 0.0).unwrap();
    full.update(1.0 / 60.0, &Rig::new(&asset, None).unwrap()).unwrap();
    assert!(full.decoded_frames() > before + bare.decoded_frames() - before);
}

#[test]
fn a_block_moved_with_memcpy_carries_on_bit_for_bit() {
    let f = Fixture::new(13);
    let asset = f.asset();
    let rig_skin_remap: Vec<u16> = (0..f.n as u16).collect();
    let inverse_bind = vec![sinew::math::Mat3x4::IDENTITY; f.n];
    let skin = sinew::Skin::new(f.n, &rig_skin_remap, &inverse_bind).unwrap();
    let desc = CharacterDesc {
        num_skin_joints: f.n,
        num_curves: 3,
        inertialization: Some(Settings::default()),
        ..desc(f.n, None)
    };
    let bytes = Character::required_bytes(&desc).unwrap();
    let mut home = Block::new(bytes);
    let mut elsewhere = Block::new(bytes + 64);
    {
        let mut c = Character::new(home.bytes(0, bytes), &desc).unwrap();
        c.play(&asset, SlotId::base(0), Play::looping(0)).unwrap();
        c.play(&asset, SlotId::on(1, 0), Play { speed: -1.0, ..Play::looping(2) }).unwrap();
        c.play(&asset, SlotId::on(3, 0), Play { weight: 0.5, wrap: Wrap::PingPong, ..Play::looping(1) }).unwrap();
        for k in 0..10 {
            c.curves_mut().unwrap().copy_from_slice(&[k as f32, 1.0, -2.0]);
            c.update(1.0 / 30.0, &Rig::new(&asset, Some(&skin)).unwrap()).unwrap();
        }
        let t = Transition { duration: 0.4, profile: None };
        c.transition(&asset, 1, Play::looping(3), Blend::Inertialize(t)).unwrap();
    }
    // Copy mid-transition-request to another address (one chunk further in).
    let copy = home.bytes(0, bytes).to_vec();
    elsewhere.bytes(1, bytes).copy_from_slice(&copy);
    for k in 0..if cfg!(miri) { 6 } else { 30 } {
        let dt = if k % 3 == 0 { 1.0 / 60.0 } else { 1.0 / 30.0 };
        let mut outputs = Vec::new();
        for block in [home.bytes(0, bytes), elsewhere.bytes(1, bytes)] {
            let mut c = Character::attach(block).unwrap();
            c.curves_mut().unwrap().copy_from_slice(&[1.0, k as f32, 0.5]);
            c.update(dt, &Rig::new(&asset, Some(&skin)).unwrap()).unwrap();
            outputs.push((
                bytemuck::cast_slice::<_, u32>(c.pose()).to_vec(),
                bytemuck::cast_slice::<_, u32>(c.model()).to_vec(),
                bytemuck::cast_slice::<_, u32>(c.palette()).to_vec(),
            ));
        }
        assert_eq!(outputs[0], outputs[1], "frame {k}");
        assert!(!outputs[0].2.is_empty());
    }
}

#[test]
fn external_scratch_gives_the_same_frames_as_scratch_in_the_block() {
    let f = Fixture::new(11);
    let asset = f.asset();
    let inline = desc(f.n, Some(Settings::default()));
    let external = CharacterDesc { scratch: Scratch::External, sampling: sinew::Sampling::Shared, ..inline };
    let (inline_bytes, external_bytes) =
        (Character::required_bytes(&inline).unwrap(), Character::required_bytes(&external).unwrap());
    let scratch_bytes = Character::scratch_bytes(&external).unwrap();
    assert_eq!(inline_bytes, external_bytes + scratch_bytes, "the scratch moves out of the block whole");
    let (mut a, mut b, mut s) = (Block::new(inline_bytes), Block::new(external_bytes), Block::new(scratch_bytes));
    let mut one = Character::new(a.bytes(0, inline_bytes), &inline).unwrap();
    let mut two = Character::new(b.bytes(0, external_bytes), &external).unwrap();
    for c in [&mut one, &mut two] {
        c.play(&asset, SlotId::base(0), Play::looping(0)).unwrap();
        c.play(&asset, SlotId::on(1, 0), Play { weight: 0.5, ..Play::looping(1) }).unwrap();
        c.play(&asset, SlotId::on(2, 0), Play { weight: 0.3, ..Play::looping(2) }).unwrap();
    }
    assert_eq!(two.update(0.1, &Rig::new(&asset, None).unwrap()), Err(Error::MissingScratch));
    for k in 0..12 {
        if k == 4 {
            for c in [&mut one, &mut two] {
                let t = Transition { duration: 0.3, profile: None };
                c.transition(&asset, 1, Play::looping(3), Blend::Inertialize(t)).unwrap();
            }
        }
        one.update(1.0 / 30.0, &Rig::new(&asset, None).unwrap()).unwrap();
        two.update_with_scratch(1.0 / 30.0, &Rig::new(&asset, None).unwrap(), s.bytes(0, scratch_bytes)).unwrap();
        assert_eq!(bytemuck::cast_slice::<_, u32>(one.pose()), bytemuck::cast_slice::<_, u32>(two.pose()), "{k}");
        assert_eq!(bytemuck::cast_slice::<_, u32>(one.model()), bytemuck::cast_slice::<_, u32>(two.model()), "{k}");
    }
    let short = &mut s.bytes(0, scratch_bytes)[..scratch_bytes - 64];
    assert_eq!(
        two.update_with_scratch(0.1, &Rig::new(&asset, None).unwrap(), short),
        Err(Error::BlockSize { needed: scratch_bytes, len: scratch_bytes - 64 })
    );
}

#[test]
fn an_inertialized_transition_ends_on_its_target_and_a_crossfade_on_its_clip() {
    let f = Fixture::new(7);
    let asset = f.asset();
    let desc = desc(f.n, Some(Settings::default()));
    let bytes = Character::required_bytes(&desc).unwrap();
    let (mut a, mut b) = (Block::new(bytes), Block::new(bytes));
    let mut cut = Character::new(a.bytes(0, bytes), &desc).unwrap();
    let mut plain = Character::new(b.bytes(0, bytes), &desc).unwrap();
    cut.play(&asset, SlotId::base(0), Play::looping(0)).unwrap();
    for _ in 0..5 {
        cut.update(1.0 / 30.0, &Rig::new(&asset, None).unwrap()).unwrap();
    }
    let t = Transition { duration: 0.2, profile: None };
    cut.transition(&asset, 1, Play::looping(1), Blend::Inertialize(t)).unwrap();
    assert_eq!(cut.control(SlotId::base(0)).unwrap(), None, "the old control stops");
    plain.play(&asset, SlotId::base(1), Play::looping(1)).unwrap();
    let mut differed = false;
    for k in 0..12 {
        cut.update(1.0 / 30.0, &Rig::new(&asset, None).unwrap()).unwrap();
        plain.update(1.0 / 30.0, &Rig::new(&asset, None).unwrap()).unwrap();
        let err = oracle::max_relative_error(
            &pose_of(&cut, f.n),
            &pose_of(&plain, f.n).iter().map(oracle::flat).collect::<Vec<_>>(),
        );
        if k < 5 {
            differed |= err > 1e-3;
        } else if k >= 7 {
            // 0.2 s in: the offset is gone.
            assert!(err < 1e-6, "frame {k}: {err:e}");
        }
    }
    assert!(differed, "the transition smoothed the first frames");

    // Crossfade: both controls play until the old one has faded out, then it is freed.
    let mut c = Character::new(a.bytes(0, bytes), &desc).unwrap();
    c.play(&asset, SlotId::base(0), Play::looping(0)).unwrap();
    c.transition(&asset, 1, Play::looping(1), Blend::Crossfade { duration: 0.25 }).unwrap();
    c.update(0.1, &Rig::new(&asset, None).unwrap()).unwrap();
    let (old, new) = (c.control(SlotId::base(0)).unwrap().unwrap(), c.control(SlotId::base(1)).unwrap().unwrap());
    assert!((old.weight() - 0.6).abs() < 1e-6 && (new.weight() - 0.4).abs() < 1e-6);
    c.update(0.2, &Rig::new(&asset, None).unwrap()).unwrap();
    assert_eq!(c.control(SlotId::base(0)).unwrap(), None);
    assert_eq!(c.control(SlotId::base(1)).unwrap().unwrap().weight(), 1.0);
}

/// A character made with the continuous shape re-attaches with it (the header's code covers every setting) and
/// its transitions differ from the clamped shape's only while the offsets decay.
#[test]
fn the_continuous_shape_survives_attach_and_changes_only_the_transition() {
    let f = Fixture::new(7);
    let asset = f.asset();
    let rig = Rig::new(&asset, None).unwrap();
    let mut poses = vec![];
    for shape in [Shape::Clamped, Shape::Continuous] {
        let desc = desc(f.n, Some(Settings { shape, ..Settings::default() }));
        let bytes = Character::required_bytes(&desc).unwrap();
        let mut block = Block::new(bytes);
        Character::new(block.bytes(0, bytes), &desc).unwrap().play(&asset, SlotId::base(0), Play::looping(0)).unwrap();
        let mut frames = vec![];
        for k in 0..20 {
            let mut c = Character::attach(block.bytes(0, bytes)).unwrap();
            if k == 5 {
                let t = Transition { duration: 0.3, profile: None };
                c.transition(&asset, 1, Play::looping(1), Blend::Inertialize(t)).unwrap();
            }
            c.update(1.0 / 30.0, &rig).unwrap();
            frames.push(pose_of(&c, f.n));
        }
        poses.push(frames);
    }
    let differ =
        |k: usize| oracle::max_relative_error(&poses[0][k], &poses[1][k].iter().map(oracle::flat).collect::<Vec<_>>());
    assert!((0..5).all(|k| differ(k) == 0.0), "the same frames before the transition");
    assert!((5..9).any(|k| differ(k) > 1e-4), "the shapes differ during the transition");
    assert!((15..20).all(|k| differ(k) < 1e-6), "both end on the target");
}

#[test]
fn each_update_reports_the_markers_its_controls_crossed() {
    let f = Fixture::new(4);
    let asset = f.asset();
    let desc = desc(f.n, None);
    let bytes = Character::required_bytes(&desc).unwrap();
    let mut block = Block::new(bytes);
    let mut c = Character::new(block.bytes(0, bytes), &desc).unwrap();
    assert_eq!(c.last_step(SlotId::base(0)).unwrap(), None);
    c.play(&asset, SlotId::base(0), Play { speed: 2.0, ..Play::looping(0) }).unwrap();
    // Clip 0 lasts 1 s (31 frames at 30 Hz): three updates of 0.4 s at speed 2 pass 2.4 loops.
    let mut fired = Vec::new();
    for _ in 0..3 {
        c.update(0.4, &Rig::new(&asset, None).unwrap()).unwrap();
        fired.extend(c.last_step(SlotId::base(0)).unwrap().expect("a step").crossings(&[0.25, 0.75]));
    }
    assert_eq!(fired, [0, 1, 0, 1, 0]);
}

#[test]
fn bad_input_is_an_error_and_leaves_the_character_as_it_was() {
    let f = Fixture::new(6);
    let asset = f.asset();
    let other = Fixture::new(8);
    let other_asset = other.asset();
    // The same skeleton, its clip 0 a frame shorter: not the asset the character's control was started on.
    let (raw_skeleton, raw_clips) = synthetic(f.n);
    let mut shorter = raw_clips[0].clone();
    shorter.frames.pop();
    let foreign_blob = bake::bake(&raw_skeleton, &[shorter], KeyFormat::F32).expect("bake");
    let foreign = Asset::load(foreign_blob.bytes()).expect("load");
    let remap: Vec<u16> = (0..8).collect();
    let other_skin = sinew::Skin::new(8, &remap, &[sinew::math::Mat3x4::IDENTITY; 8]).unwrap();
    assert_eq!(
        Rig::new(&asset, Some(&other_skin)).err(),
        Some(Error::BufferLength { buffer: Buffer::ClipJoints, expected: 6, actual: 8 }),
        "a skin of another skeleton"
    );
    let desc = desc(f.n, None);
    let bytes = Character::required_bytes(&desc).unwrap();
    let mut block = Block::new(bytes + 64);
    {
        let mut c = Character::new(block.bytes(0, bytes), &desc).unwrap();
        c.play(&asset, SlotId::base(0), Play::looping(0)).unwrap();
        c.set_mask(1, &vec![F4::ZERO; f.n.div_ceil(4)]).unwrap();
        c.set_mask(0, &vec![F4::ONE; f.n.div_ceil(4)]).unwrap();
        c.set_layer_masks(2, None, Some(0)).unwrap();
        c.update(0.1, &Rig::new(&asset, None).unwrap()).unwrap();
    }
    let snapshot = block.bytes(0, bytes).to_vec();
    let mut check = |what: &str, expected: Error, call: &dyn Fn(&mut Character<'_>) -> Result<(), Error>| {
        let mut c = Character::attach(block.bytes(0, bytes)).unwrap();
        assert_eq!(call(&mut c), Err(expected), "{what}");
        assert!(block.bytes(0, bytes) == &snapshot[..], "{what} changed the block");
    };
    let g = f.n.div_ceil(4);
    check("NaN dt", Error::InvalidTimeStep, &|c| c.update(f32::NAN, &Rig::new(&asset, None).unwrap()));
    check("negative dt", Error::InvalidTimeStep, &|c| c.update(-0.1, &Rig::new(&asset, None).unwrap()));
    check("other skeleton", Error::BufferLength { buffer: Buffer::ClipJoints, expected: 6, actual: 8 }, &|c| {
        c.update(0.1, &Rig::new(&other_asset, None).unwrap())
    });
    check("another asset", Error::ForeignAsset { clip: 0 }, &|c| c.update(0.1, &Rig::new(&foreign, None).unwrap()));
    check("NaN speed", Error::InvalidSpeed, &|c| {
        c.play(&asset, SlotId::base(1), Play { speed: f32::NAN, ..Play::looping(1) })
    });
    check("negative weight", Error::InvalidFade, &|c| {
        c.play(&asset, SlotId::base(1), Play { weight: -1.0, ..Play::looping(1) })
    });
    check("NaN weight", Error::InvalidFade, &|c| c.with_control(SlotId::base(0), |k| k.fade_to(f32::NAN, 0.1)));
    check("NaN speed change", Error::InvalidSpeed, &|c| c.with_control(SlotId::base(0), |k| k.set_speed(f32::NAN)));
    check("missing clip", Error::IndexOutOfRange { what: Index::Clip, index: 9, len: 4 }, &|c| {
        c.play(&asset, SlotId::base(1), Play::looping(9))
    });
    check("missing layer", Error::IndexOutOfRange { what: Index::Layer, index: 4, len: 4 }, &|c| {
        c.play(&asset, SlotId::on(4, 0), Play::looping(0))
    });
    check("missing slot", Error::IndexOutOfRange { what: Index::Slot, index: 1, len: 1 }, &|c| {
        c.play(&asset, SlotId::on(1, 1), Play::looping(0))
    });
    check("missing mask", Error::IndexOutOfRange { what: Index::Mask, index: 2, len: 2 }, &|c| {
        c.play(&asset, SlotId::base(1), Play { mask: Some(2), ..Play::looping(0) })
    });
    check("short mask", Error::BufferLength { buffer: Buffer::JointWeights, expected: g, actual: g + 1 }, &|c| {
        c.set_mask(0, &vec![F4::ONE; g + 1])
    });
    check("NaN mask", Error::InvalidMaskWeight { mask: 1, joint: 0 }, &|c| {
        c.set_mask(1, &vec![F4::splat(f32::NAN); g])
    });
    let mut negative_last = vec![F4::ONE; g];
    negative_last[g - 1] = F4::splat(-1.0);
    check("negative mask weight", Error::InvalidMaskWeight { mask: 1, joint: 4 }, &|c| c.set_mask(1, &negative_last));
    check("zero profile", Error::InvalidMaskWeight { mask: 1, joint: 0 }, &|c| c.set_layer_masks(1, None, Some(1)));
    check("zeroing a mask used as a profile", Error::InvalidMaskWeight { mask: 0, joint: 0 }, &|c| {
        c.set_mask(0, &vec![F4::ZERO; g])
    });
    check("NaN layer fade", Error::InvalidFade, &|c| c.fade_layer(1, f32::NAN, 0.1));
    check("no inertializer", Error::NoInertializer, &|c| {
        c.transition(&asset, 1, Play::looping(1), Blend::Inertialize(Transition { duration: 0.2, profile: None }))
    });
    check("bad crossfade", Error::InvalidFade, &|c| {
        c.transition(&asset, 1, Play::looping(1), Blend::Crossfade { duration: -1.0 })
    });

    // Blocks and descriptions.
    let mut small = Block::new(bytes);
    assert_eq!(
        Character::new(small.bytes(0, bytes - 64), &desc).err(),
        Some(Error::BlockSize { needed: bytes, len: bytes - 64 })
    );
    let mut odd = Block::new(bytes + 64);
    let misaligned = &mut odd.bytes(0, bytes + 64)[16..];
    assert_eq!(Character::new(misaligned, &desc).err(), Some(Error::BlockAlignment { align: BLOCK_ALIGN }));
    assert_eq!(Character::attach(small.bytes(0, bytes)).err(), Some(Error::StateMismatch), "zeros are no character");
    let layers = [LayerDesc { kind: LayerKind::Base, controls: 1 }; MAX_CHARACTER_LAYERS + 1];
    let cases: [(CharacterDesc<'_>, Error); 7] = [
        (CharacterDesc { num_joints: 0, ..desc }, Error::JointCount { count: 0, max: 1024 }),
        (CharacterDesc { layers: &[], ..desc }, Error::LayerOrder { layer: 0 }),
        (CharacterDesc { layers: &STACK[1..], ..desc }, Error::LayerOrder { layer: 0 }),
        (CharacterDesc { layers: &layers[..2], ..desc }, Error::LayerOrder { layer: 1 }),
        (
            CharacterDesc { layers: &layers, ..desc },
            Error::Limit { what: Limit::Layers, value: MAX_CHARACTER_LAYERS + 1, max: MAX_CHARACTER_LAYERS },
        ),
        (
            CharacterDesc { layers: &[LayerDesc { kind: LayerKind::Base, controls: MAX_LAYER_CONTROLS + 1 }], ..desc },
            Error::Limit { what: Limit::LayerControls, value: MAX_LAYER_CONTROLS + 1, max: MAX_LAYER_CONTROLS },
        ),
        (
            CharacterDesc { num_masks: MAX_MASKS + 1, ..desc },
            Error::Limit { what: Limit::Masks, value: MAX_MASKS + 1, max: MAX_MASKS },
        ),
    ];
    for (bad, expected) in cases {
        assert_eq!(Character::required_bytes(&bad), Err(expected));
    }
    let many = [LayerDesc { kind: LayerKind::Overlay, controls: MAX_LAYER_CONTROLS }; MAX_CHARACTER_LAYERS];
    let mut many = many.to_vec();
    many[0].kind = LayerKind::Base;
    assert_eq!(
        Character::required_bytes(&CharacterDesc { layers: &many, ..desc }),
        Err(Error::Limit {
            what: Limit::Controls,
            value: MAX_LAYER_CONTROLS * MAX_CHARACTER_LAYERS,
            max: MAX_CONTROLS
        })
    );

    // A corrupted header is refused, never trusted.
    let mut corrupt = block.bytes(0, bytes).to_vec();
    corrupt[8..12].copy_from_slice(&5000u32.to_le_bytes());
    block.bytes(0, bytes).copy_from_slice(&corrupt);
    assert_eq!(Character::attach(block.bytes(0, bytes)).err(), Some(Error::StateMismatch));
}

#[test]
fn an_edit_after_an_unskinned_update_shows_what_an_edit_after_a_full_update_shows() {
    // A post-process (here: one joint's local rotation turned) through `edit_pose`: after `update` or after
    // `update_unskinned`, the pose, matrices and palette end bit for bit the same, the matrices those of the
    // edited pose; the unskinned update leaves the last palette alone.
    let f = Fixture::new(13);
    let asset = f.asset();
    let remap: Vec<u16> = (0..f.n as u16).collect();
    let mut rng = Rng::new(0xed17);
    let inverse_bind: Vec<sinew::math::Mat3x4> =
        (0..f.n).map(|_| sinew::math::Mat3x4::from_affine(&rng.transform().to_mat4()).unwrap()).collect();
    let skin = sinew::Skin::new(f.n, &remap, &inverse_bind).unwrap();
    let rig = Rig::new(&asset, Some(&skin)).unwrap();
    let desc = CharacterDesc { num_skin_joints: f.n, inertialization: Some(Settings::default()), ..desc(f.n, None) };
    let bytes = Character::required_bytes(&desc).unwrap();
    let (mut full_block, mut bare_block) = (Block::new(bytes), Block::new(bytes));
    {
        let mut c = Character::new(full_block.bytes(0, bytes), &desc).unwrap();
        c.play(&asset, SlotId::base(0), Play::looping(0)).unwrap();
        c.update(1.0 / 60.0, &rig).unwrap();
    }
    bare_block.bytes(0, bytes).copy_from_slice(full_block.bytes(0, bytes));
    let turn = rng.quat();
    let edit = |edit: sinew::PoseEdit<'_>| {
        let group = &mut edit.local[1];
        group.rotation.set(1, turn);
        Ok(())
    };
    let mut outputs = Vec::new();
    for (block, skinned) in [(&mut full_block, true), (&mut bare_block, false)] {
        let mut c = Character::attach(block.bytes(0, bytes)).unwrap();
        let palette_before = c.palette().to_vec();
        if skinned {
            c.update(1.0 / 60.0, &rig).unwrap();
        } else {
            c.update_unskinned(1.0 / 60.0, &rig, None).unwrap();
            assert_eq!(c.palette(), &palette_before[..], "the unskinned update leaves the palette");
        }
        c.edit_pose(&rig, edit).unwrap();
        // The matrices are the edited pose's (f64 FK), the palette theirs.
        let local: Vec<Transform> = (0..f.n).map(|j| c.pose()[j / 4].get(j % 4)).collect();
        assert_eq!(local[5].rotation, turn);
        let want = oracle::local_to_model(asset.skeleton().parents(), &local, &oracle::IDENTITY);
        for (j, (got, want)) in c.model().iter().zip(&want).enumerate() {
            let got = oracle::widen(got);
            assert!((0..16).all(|i| (got[i] - want[i]).abs() < 1e-4), "joint {j}");
        }
        outputs.push((
            bytemuck::cast_slice::<_, u32>(c.pose()).to_vec(),
            bytemuck::cast_slice::<_, u32>(c.model()).to_vec(),
            bytemuck::cast_slice::<_, u32>(c.palette()).to_vec(),
        ));
    }
    assert_eq!(outputs[0], outputs[1]);
}

#[test]
fn controls_sampling_through_their_own_contexts_give_the_same_frames_and_decode_fewer() {
    let n = 13;
    let (skeleton, clips) = synthetic(n);
    let precision = sinew_tools::compress::Precision { max_error: 1e-3, distance: 0.03 };
    let rest = sinew::Sampling::Shared;
    // Under Miri (soft floats) the compressor's search would be most of the time: quantized keys only there.
    let formats = [KeyFormat::Quantized, KeyFormat::Compressed(precision)];
    for format in &formats[..if cfg!(miri) { 1 } else { 2 }] {
        let format = *format;
        let blob = bake::bake(&skeleton, &clips, format).expect("bake");
        let asset = Asset::load(blob.bytes()).expect("load");
        let base = desc(n, Some(Settings::default()));
        // Shared, then a context per control with decoders for every track, then one without decoders.
        let descs = [
            base,
            CharacterDesc { sampling: sinew::Sampling::PerControl { max_tracks: usize::MAX }, ..base },
            CharacterDesc { sampling: sinew::Sampling::PerControl { max_tracks: 0 }, ..base },
        ];
        assert_eq!(descs[0].sampling, rest);
        let sizes: Vec<usize> = descs.iter().map(|d| Character::required_bytes(d).unwrap()).collect();
        assert!(sizes[1] > sizes[2] && sizes[2] > sizes[0], "{sizes:?}");
        let mut blocks: Vec<Block> = sizes.iter().map(|&b| Block::new(b)).collect();
        let mut moved = Block::new(sizes[1]);
        for ((block, d), &bytes) in blocks.iter_mut().zip(&descs).zip(&sizes) {
            let mut c = Character::new(block.bytes(0, bytes), d).unwrap();
            c.play(&asset, SlotId::base(0), Play::looping(0)).unwrap();
            c.play(&asset, SlotId::base(1), Play { weight: 0.4, speed: -0.7, ..Play::looping(1) }).unwrap();
            c.play(&asset, SlotId::on(1, 0), Play { weight: 0.6, ..Play::looping(2) }).unwrap();
            c.play(&asset, SlotId::on(3, 0), Play { weight: 0.5, wrap: Wrap::PingPong, ..Play::looping(3) }).unwrap();
        }
        let frames = if cfg!(miri) { 9 } else { 60 };
        for k in 0..frames {
            let dt = if k % 3 == 0 { 1.0 / 30.0 } else { 1.0 / 60.0 };
            let mut outputs = Vec::new();
            for (i, block) in blocks.iter_mut().enumerate() {
                // Halfway, the second block carries on from a copy at another address.
                let bytes = if i == 1 && k >= frames / 2 {
                    if k == frames / 2 {
                        let copy = block.bytes(0, sizes[1]).to_vec();
                        moved.bytes(1, sizes[1]).copy_from_slice(&copy);
                    }
                    moved.bytes(1, sizes[1])
                } else {
                    block.bytes(0, sizes[i])
                };
                let mut c = Character::attach(bytes).unwrap();
                let decoded_before = c.decoded_frames();
                if i == 2 && k == frames / 3 {
                    // Forgetting the cached frames changes what is decoded, not what is shown.
                    c.forget_sampled_frames().unwrap();
                }
                if k == frames / 4 {
                    let t = Transition { duration: 0.3, profile: None };
                    c.transition(&asset, 0, Play::looping(3), Blend::Inertialize(t)).unwrap();
                }
                if k == frames / 2 + 3 {
                    c.transition(&asset, 0, Play::looping(1), Blend::Crossfade { duration: 0.2 }).unwrap();
                }
                c.update(dt, &Rig::new(&asset, None).unwrap()).unwrap();
                if i == 2 && k == frames / 3 {
                    // Three controls play (the inertialized transition stopped the other base control).
                    assert_eq!(c.decoded_frames() - decoded_before, 6, "two frames for each playing control");
                }
                let pose = bytemuck::cast_slice::<_, u32>(c.pose()).to_vec();
                outputs.push((pose, bytemuck::cast_slice::<_, u32>(c.model()).to_vec(), c.decoded_frames()));
            }
            for o in &outputs[1..] {
                assert_eq!((&o.0, &o.1), (&outputs[0].0, &outputs[0].1), "{format:?}, frame {k}");
            }
            if k == frames - 1 {
                let decoded: Vec<u64> = outputs.iter().map(|o| o.2).collect();
                // Playing forward, each control decodes about one frame in two updates instead of two each.
                assert!(4 * decoded[1] < 2 * decoded[0] && decoded[2] > decoded[1], "{format:?}: {decoded:?}");
            }
        }
    }
}
