//! `ffi/examples/locomotion.c` (footsteps, a foot-phase-matched walk → run, foot planting on a slope, a look-at,
//! bounds, all through the C ABI) on the shared Bandai walk and run baked with `--phase`, against the same
//! frames through the Rust API: every printed line equal, bit for bit, and footsteps where the clips have them.

#[path = "../../ffi/tests/support/mod.rs"]
mod ffi_support;

use sinew::bounds::{BoundsJob, JointBounds, JointBox};
use sinew::character::SyncMode;
use sinew::foot_planting::{FootPlanter, FootPlantingJob, Ground, PlantSettings};
use sinew::ik::AimIkJob;
use sinew::inertialization::{Settings, Transition};
use sinew::math::{Mat4, Vec3};
use sinew::{Asset, Blend, Character, CharacterDesc, Chunk, LayerDesc, LayerKind, Play, Rig, Scratch, SlotId, Wrap};
use std::fmt::Write;

const FRAMES: usize = 150;
const RUN_FRAME: usize = 70;
const DT: f32 = 1.0 / 60.0;
const SLOPE: f32 = 0.2;

fn bits(tag: &str, frame: usize, values: &[f32]) -> String {
    let mut line = format!("{tag} {frame}:");
    for v in values {
        let _ = write!(line, " {:08x}", v.to_bits());
    }
    line + "\n"
}

/// What `locomotion.c` prints, through the Rust API.
fn rust_lines(asset: &Asset<'_>) -> String {
    let skeleton = asset.skeleton();
    let joint = |name: &str| (0..skeleton.num_joints()).find(|&j| skeleton.name(j) == Some(name));
    let parent = |j: usize| skeleton.parents()[j] as usize;
    let mut feet: Vec<(usize, String)> = vec![];
    for m in asset.markers(0) {
        let name = asset.name(m.name).unwrap_or("");
        let Some(foot) = name.strip_prefix("footstep:").and_then(|f| joint(f).map(|j| (j, f.to_string()))) else {
            continue;
        };
        if feet.len() < 2 && !feet.iter().any(|(j, _)| *j == foot.0) {
            feet.push(foot);
        }
    }
    let legs: [[usize; 3]; 2] = std::array::from_fn(|f| {
        let ankle = feet[f].0;
        [parent(parent(ankle)), parent(ankle), ankle]
    });
    let plants: Vec<String> = feet.iter().map(|(_, f)| format!("plant:{f}")).collect();
    let (pelvis, head) = (parent(legs[0][0]), joint("Head").expect("Head"));
    let layers = [LayerDesc { kind: LayerKind::Base, controls: 2 }];
    let desc = CharacterDesc {
        num_joints: skeleton.num_joints(),
        num_skin_joints: 0,
        layers: &layers,
        num_masks: 0,
        num_curves: 0,
        inertialization: Some(Settings::default()),
        scratch: Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation: sinew::Interpolation::Linear,
    };
    let mut block = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("bytes"))];
    let mut character = Character::new(bytemuck::cast_slice_mut(&mut block), &desc).expect("character");
    let walk = Play { clip: 0, time: 0.0, speed: 1.0, weight: 1.0, wrap: Wrap::Loop, mask: None };
    character.play(asset, SlotId::base(0), walk).expect("play");
    let rig = Rig::new(asset, None).expect("rig");
    let mut planter = FootPlanter::default();
    let settings = PlantSettings::default();
    let world = Mat4::IDENTITY;
    let normal = Vec3::new(0.0, 1.0, -SLOPE);
    let boxes: Vec<JointBox> = (0..skeleton.num_joints() as u32)
        .map(|joint| JointBox { center: [0.0; 3], joint, half_extent: [5.0; 3], reserved: 0 })
        .collect();
    let bounds = JointBounds::new(skeleton.num_joints(), &boxes).expect("boxes");
    let (mut out, mut footsteps) = (String::new(), 0);
    for frame in 0..FRAMES {
        if frame == RUN_FRAME {
            let run = Play { clip: 1, ..walk };
            let blend = Blend::Inertialize(Transition { duration: 0.25, profile: None });
            let start = character.transition_synced(asset, 0, run, blend, SyncMode::FootPhase).expect("run");
            out += &bits("run", frame, &[start]);
        }
        character.update(DT, &rig).expect("update");
        let control = character.control(SlotId::base(0)).expect("slot").expect("a clip");
        let step = character.last_step(SlotId::base(0)).expect("slot").expect("a step");
        let markers = asset.markers(control.clip() as usize);
        for k in step.crossings(markers).take(8) {
            if let Some(foot) = asset.name(markers[k].name).and_then(|n| n.strip_prefix("footstep:")) {
                footsteps += 1;
                let _ = writeln!(out, "step {frame}: {foot}");
            }
        }
        let planted = [0, 1].map(|f| character.range_weight(asset, 0, &plants[f]).expect("range") > 0.5);
        let probes = planter.probe_points(&legs, character.model(), &world);
        let ground = probes.map(|p| Ground { height: SLOPE * p.z, normal });
        let report = character
            .edit_pose(&rig, |edit| {
                let job = FootPlantingJob {
                    skeleton: edit.skeleton,
                    planter: &mut planter,
                    settings: &settings,
                    pelvis,
                    legs,
                    planted,
                    ground,
                    world: &world,
                    dt: DT,
                    weight: 1.0,
                    model: edit.model,
                    local: edit.local,
                };
                { job }.run()
            })
            .expect("plant");
        character
            .edit_pose(&rig, |edit| {
                let up = Vec3::new(0.0, 1.0, 0.0);
                let job = AimIkJob {
                    skeleton: edit.skeleton,
                    joint: head,
                    forward: Vec3::new(0.0, 0.0, 1.0),
                    up: Some((up, up)),
                    target: Vec3::new(40.0, 150.0, 300.0),
                    max_angle: Some(1.2),
                    max_twist: None,
                    weight: 0.8,
                    model: edit.model,
                    local: edit.local,
                };
                { job }.run()
            })
            .expect("aim");
        let union = BoundsJob { bounds: &bounds, model: character.model(), boxes: None }.run().expect("bounds");
        let reached = report.reached.map(|r| if r { 1.0 } else { 0.0 });
        out += &bits("plant", frame, &[report.pelvis_drop, reached[0], reached[1], report.lock[0], report.lock[1]]);
        out += &bits("bounds", frame, &[union.min, union.max].concat());
        out += &bits("m", frame, bytemuck::cast_slice(character.model()));
    }
    let _ = writeln!(out, "footsteps {footsteps}");
    out
}

#[test]
fn the_locomotion_example_plays_as_the_rust_api_does() {
    let Some(data) = sinew_tools::shared_data_for_test("the_locomotion_example_plays_as_the_rust_api_does") else {
        return;
    };
    let Some(exe) = ffi_support::compile("ffi/examples/locomotion.c", false).unwrap_or_else(|e| panic!("{e}")) else {
        return;
    };
    let files = ["dataset-1_walk", "dataset-2_run"].map(|c| data.join(format!("bvh/bandai/{c}_normal_001.bvh")));
    let phased = sinew_tools::phase::phased_bvhs(&files, &[]).expect("phases");
    let path = std::env::temp_dir().join(format!("sinew-locomotion-{}.snw", std::process::id()));
    std::fs::write(&path, phased.blob.bytes()).expect("write the blob");
    let printed = ffi_support::output_of(&exe, &[&path]).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_file(&path);
    let asset = Asset::load(phased.blob.bytes()).expect("load");
    let expected = rust_lines(&asset);
    assert_eq!(printed.lines().count(), expected.lines().count(), "C printed another number of lines");
    for (line, (c, rust)) in printed.lines().zip(expected.lines()).enumerate() {
        assert_eq!(c, rust, "line {}: the C example and the Rust API disagree", line + 1);
    }
    // About a step every half second walking, more running: 2.5 s of play.
    let steps: usize = printed
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("footsteps "))
        .and_then(|n| n.parse().ok())
        .expect("a count");
    assert!((4..=10).contains(&steps), "{steps} footsteps in 2.5 s");
    assert!(printed.lines().any(|l| l.starts_with("run 70:")), "the switch to the run");
}
