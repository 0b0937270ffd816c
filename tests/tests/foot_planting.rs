//! Foot planting on the Bandai walk and run, moved through the world by their root motion, checked by an f64
//! forward kinematics of the pose the character shows: a planted foot stays where it landed (sliding per
//! plant, with and without planting), on uneven ground the ankle keeps its animated height over the ground
//! and lies on the slope, legs keep their bone lengths, and bad input is an error with nothing written.

use sinew::foot_planting::{FootPlanter, FootPlantingJob, Ground, PlantSettings};
use sinew::math::{Mat4, Vec3};
use sinew::root_motion::RootMotion;
use sinew::{Character, Chunk, LayerDesc, LayerKind, Play, Rig, SlotId};
use sinew_tests::oracle;
use sinew_tools::annotate::{PlantRule, detect_plants};
use sinew_tools::bake;
use sinew_tools::raw;
use sinew_tools::raw::RawAnnotations;
use sinew_tools::root_motion::{Extraction, extract};

const FEET: [&str; 2] = ["Foot_L", "Foot_R"];

/// The Bandai walk and run baked with root motion and detected plants, or `None` without the shared data.
fn baked(test: &str) -> Option<raw::AlignedBlob> {
    let dir = sinew_tests::shared_data(test)?;
    let files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
    let pick = |name: &str| files.iter().find(|f| f.to_string_lossy().contains(name)).cloned().expect(name);
    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[pick("walk"), pick("run")]).expect("load");
    let feet: Vec<usize> = FEET.iter().map(|n| skeleton.names.iter().position(|j| j == n).expect(n)).collect();
    let mut annotations = vec![RawAnnotations::default(); clips.len()];
    for (clip, a) in clips.iter().zip(annotations.iter_mut()) {
        detect_plants(&skeleton, clip, &feet, PlantRule::default(), a).expect("plants");
    }
    let (skeleton, clips) = extract(&skeleton, &clips, &Extraction::default()).expect("extract");
    let extras = raw::Extras { annotations, skin: None, ..Default::default() };
    Some(bake::bake_with(&skeleton, &clips, bake::KeyFormat::F32, &extras).expect("bake"))
}

/// One frame of what the test records: per foot, the shown ankle in the world (f64 FK of the pose), the
/// animated ankle's model height, whether the foot was planted, and the pelvis drop.
struct Frame {
    ankle: [[f64; 3]; 2],
    animated_height: [f64; 2],
    planted: [bool; 2],
    lower_leg_lengths: [[f64; 2]; 2],
    /// The ankle's world rotation (rows).
    ankle_rotation: [[[f64; 3]; 3]; 2],
}

fn world_of(world: &Mat4) -> oracle::M4 {
    oracle::widen(world)
}

/// Plays `clip` for `seconds` at 60 Hz, moving the character by its root motion over `ground` (a height and
/// normal at each world point), with planting when `plant` is true.
fn walk(
    blob: &raw::AlignedBlob,
    clip: usize,
    seconds: f32,
    plant: bool,
    ground: &dyn Fn(Vec3) -> Ground,
) -> Vec<Frame> {
    let asset = sinew::Asset::load(blob.bytes()).expect("load");
    let rig = Rig::new(&asset, None).expect("rig");
    let skeleton = asset.skeleton();
    let index = |name: &str| skeleton.find(name).expect(name);
    let legs = [["UpperLeg_L", "LowerLeg_L", "Foot_L"], ["UpperLeg_R", "LowerLeg_R", "Foot_R"]].map(|l| l.map(index));
    let pelvis = index("Hips");
    let layers = [LayerDesc { kind: LayerKind::Base, controls: 1 }];
    let desc = sinew::CharacterDesc {
        num_joints: skeleton.num_joints(),
        num_skin_joints: 0,
        layers: &layers,
        num_masks: 0,
        num_curves: 0,
        inertialization: None,
        scratch: sinew::Scratch::InBlock,
        sampling: sinew::Sampling::Shared,
        interpolation: sinew::Interpolation::Linear,
    };
    let mut memory = vec![Chunk::ZERO; Chunk::count(Character::required_bytes(&desc).expect("size"))];
    let mut character = Character::new(Chunk::bytes_mut(&mut memory), &desc).expect("character");
    character.play(&asset, SlotId::base(0), Play::looping(clip)).expect("play");
    let (mut placed, mut planter, settings) = (RootMotion::IDENTITY, FootPlanter::default(), PlantSettings::default());
    let dt = 1.0 / 60.0;
    let mut frames = Vec::new();
    for _ in 0..(seconds / dt) as usize {
        character.update(dt, &rig).expect("update");
        placed = placed.then(character.root_motion());
        let world = placed.to_mat4();
        let planted = FEET.map(|f| character.range_weight(&asset, 0, &format!("plant:{f}")).expect("plant") > 0.5);
        let animated_height = legs.map(|l| character.model()[l[2]].translation().y as f64);
        if plant {
            let probes = planter.probe_points(&legs, character.model(), &world);
            let ground = probes.map(ground);
            character
                .edit_pose(&rig, |edit| {
                    FootPlantingJob {
                        skeleton: edit.skeleton,
                        planter: &mut planter,
                        settings: &settings,
                        pelvis,
                        legs,
                        planted,
                        ground,
                        world: &world,
                        dt,
                        weight: 1.0,
                        model: edit.model,
                        local: edit.local,
                    }
                    .run()
                })
                .expect("plant");
        }
        // The f64 FK of what the character shows.
        let n = skeleton.num_joints();
        let local: Vec<_> = (0..n).map(|j| character.pose()[j / 4].get(j % 4)).collect();
        let model = oracle::local_to_model(skeleton.parents(), &local, &world_of(&world));
        let at = |j: usize| [model[j][12], model[j][13], model[j][14]];
        let distance = |a: [f64; 3], b: [f64; 3]| (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt();
        frames.push(Frame {
            ankle: legs.map(|l| at(l[2])),
            animated_height,
            planted,
            lower_leg_lengths: legs.map(|l| [distance(at(l[0]), at(l[1])), distance(at(l[1]), at(l[2]))]),
            ankle_rotation: legs.map(|l| {
                let m = &model[l[2]];
                [[m[0], m[4], m[8]], [m[1], m[5], m[9]], [m[2], m[6], m[10]]]
            }),
        });
    }
    frames
}

/// Per plant (a run of planted frames), the farthest the ankle moves on the ground from where it was at
/// the plant's first frame, cm.
fn sliding(frames: &[Frame]) -> Vec<f64> {
    let mut out = Vec::new();
    for f in 0..2 {
        let mut start: Option<[f64; 3]> = None;
        let mut worst = 0.0f64;
        for frame in frames {
            match (frame.planted[f], start) {
                (true, None) => start = Some(frame.ankle[f]),
                (true, Some(s)) => {
                    let d = (frame.ankle[f][0] - s[0]).hypot(frame.ankle[f][2] - s[2]);
                    worst = worst.max(d);
                }
                (false, Some(_)) => {
                    out.push(worst);
                    (start, worst) = (None, 0.0);
                }
                (false, None) => {}
            }
        }
    }
    out
}

fn summary(slides: &[f64]) -> (f64, f64) {
    (slides.iter().sum::<f64>() / slides.len().max(1) as f64, slides.iter().copied().fold(0.0, f64::max))
}

#[test]
fn planted_feet_stay_where_they_land_on_the_bandai_walk_and_run() {
    let Some(blob) = baked("foot planting on the Bandai walk and run") else { return };
    let flat = |_: Vec3| Ground::flat(0.0);
    for (clip, name) in [(0, "walk"), (1, "run")] {
        let free = walk(&blob, clip, 6.0, false, &flat);
        let held = walk(&blob, clip, 6.0, true, &flat);
        let (free_slides, held_slides) = (sliding(&free), sliding(&held));
        assert!(free_slides.len() >= 4, "{name}: {} plants", free_slides.len());
        assert_eq!(free_slides.len(), held_slides.len());
        let ((free_mean, free_max), (held_mean, held_max)) = (summary(&free_slides), summary(&held_slides));
        println!(
            "Bandai {name}: {} plants; sliding per plant without planting mean {free_mean:.2} cm, max {free_max:.2} cm; with planting mean {held_mean:.4} cm, max {held_max:.4} cm",
            free_slides.len()
        );
        assert!(held_max < 0.05, "{name}: a planted foot slid {held_max} cm");
        assert!(free_mean > 10.0 * held_mean.max(1e-4), "{name}: planting must remove the animation's sliding");
        // Legs keep their lengths (the IK turns bones; only the pelvis moves).
        for (a, b) in free.iter().zip(&held) {
            for f in 0..2 {
                for k in 0..2 {
                    assert!((a.lower_leg_lengths[f][k] - b.lower_leg_lengths[f][k]).abs() < 1e-3);
                }
            }
        }
    }
}

#[test]
fn on_a_slope_and_a_step_the_feet_keep_their_height_over_the_ground_and_lie_on_the_slope() {
    let Some(blob) = baked("foot planting on uneven ground") else { return };
    // A 10° slope rising along +Z (the walk's way), and a 12 cm step at Z = 150 cm.
    let rise = 10f32.to_radians().tan();
    let slope = move |p: Vec3| Ground { height: rise * p.z, normal: Vec3::new(0.0, 1.0, -rise) };
    let step = |p: Vec3| Ground::flat(if p.z > 150.0 { 12.0 } else { 0.0 });
    for (what, ground) in [("slope", &slope as &dyn Fn(Vec3) -> Ground), ("step", &step)] {
        let frames = walk(&blob, 0, 5.0, true, ground);
        let mut worst = 0.0f64;
        for frame in frames.iter().skip(30) {
            for f in 0..2 {
                // The ankle over the ground under it, against its animated height over flat floor.
                let a = frame.ankle[f];
                let under = ground(Vec3::new(a[0] as f32, 0.0, a[2] as f32)).height as f64;
                if frame.planted[f] {
                    worst = worst.max(((a[1] - under) - frame.animated_height[f]).abs());
                }
            }
        }
        println!("{what}: planted ankles within {worst:.3} cm of their animated height over the ground");
        assert!(worst < 0.01, "{what}: a planted ankle {worst} cm off its height over the ground");
    }
    // On the slope, a foot in full contact (0.1 s into its plant) is its animated self turned from up onto the
    // normal (10°, inside the 30° limit): Rodrigues in f64 against the shown rotation.
    let (free, held) = (walk(&blob, 0, 5.0, false, &|_| Ground::flat(0.0)), walk(&blob, 0, 5.0, true, &slope));
    let n = {
        let v = [0.0, 1.0, -rise as f64];
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / l)
    };
    // Axis up × n = (n_z, 0, −n_x) normalized; angle acos(n_y).
    let (angle, axis) = (n[1].acos(), [1.0f64, 0.0, 0.0].map(|c| c * n[2].signum()));
    let (s, c) = angle.sin_cos();
    let k = [[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]];
    let tilt: Vec<Vec<f64>> = (0..3)
        .map(|r| {
            (0..3)
                .map(|col| {
                    let kk: f64 = (0..3).map(|i| k[r][i] * k[i][col]).sum();
                    (r == col) as u8 as f64 + s * k[r][col] + (1.0 - c) * kk
                })
                .collect()
        })
        .collect();
    let (mut checked, mut worst) = (0, 0.0f64);
    let mut planted_for = [0usize; 2];
    for (a, b) in free.iter().zip(&held) {
        for (f, count) in planted_for.iter_mut().enumerate() {
            *count = if b.planted[f] { *count + 1 } else { 0 };
            if *count > 7 {
                for (r, tilt_row) in tilt.iter().enumerate() {
                    for col in 0..3 {
                        let want: f64 = (0..3).map(|i| tilt_row[i] * a.ankle_rotation[f][i][col]).sum();
                        worst = worst.max((want - b.ankle_rotation[f][r][col]).abs());
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked} frames in full contact");
    assert!(worst < 1e-4, "the planted foot's rotation is off the tilted animation by {worst}");
}

#[test]
fn bad_input_is_an_error_and_weight_zero_leaves_the_pose() {
    use sinew::math::{SoaTransform, Transform};
    use sinew::{Error, LocalToModelJob, Skeleton};
    // Pelvis 0; legs 1-2-3 and 4-5-6, 40 cm bones, a little bent.
    let parents = [-1i16, 0, 1, 2, 0, 4, 5];
    let t = |x: f32, y: f32, z: f32| Transform { translation: Vec3::new(x, y, z), ..Transform::IDENTITY };
    let local = [t(0.0, 90.0, 0.0), t(-10.0, 0.0, 0.0), t(0.0, -40.0, 2.0), t(0.0, -40.0, -2.0)];
    let local = [local[0], local[1], local[2], local[3], t(10.0, 0.0, 0.0), local[2], local[3]];
    let soa = sinew_tests::to_soa(&local);
    let rest = sinew_tests::to_soa(&[Transform::IDENTITY; 7]);
    let skeleton = Skeleton::new(&parents, &rest, None).expect("skeleton");
    let mut model = vec![Mat4::IDENTITY; 7];
    LocalToModelJob { skeleton: &skeleton, walk: None, local: &soa, root: None, model: &mut model }.run().unwrap();
    let settings = PlantSettings::default();
    let world = Mat4::IDENTITY;
    let run = |legs: [[usize; 3]; 2], ground: [Ground; 2], settings: &PlantSettings, weight: f32, dt: f32| {
        let (mut planter, mut model, mut out) = (FootPlanter::default(), model.clone(), soa.clone());
        let result = FootPlantingJob {
            skeleton: &skeleton,
            planter: &mut planter,
            settings,
            pelvis: 0,
            legs,
            planted: [true, false],
            ground,
            world: &world,
            dt,
            weight,
            model: &mut model,
            local: &mut out,
        }
        .run();
        (result, planter, out)
    };
    let (legs, flat) = ([[1, 2, 3], [4, 5, 6]], [Ground::flat(0.0); 2]);
    let unchanged = |(result, planter, out): (Result<_, Error>, FootPlanter, Vec<SoaTransform>), want: Error| {
        assert_eq!(result, Err(want));
        assert_eq!(planter, FootPlanter::default(), "state untouched");
        assert_eq!(out, soa, "pose untouched");
    };
    unchanged(run([[1, 2, 3], [4, 6, 5]], flat, &settings, 1.0, 0.1), Error::InvalidIkChain);
    unchanged(run([[1, 2, 3], [4, 5, 9]], flat, &settings, 1.0, 0.1), Error::InvalidIkChain);
    let nan = Ground { height: f32::NAN, normal: Vec3::new(0.0, 1.0, 0.0) };
    unchanged(run(legs, [nan, flat[1]], &settings, 1.0, 0.1), Error::InvalidFootPlanting);
    unchanged(run(legs, [Ground::flat(3e38), Ground::flat(-3e38)], &settings, 1.0, 0.1), Error::InvalidFootPlanting);
    let flat_normal = Ground { height: 0.0, normal: Vec3::ZERO };
    unchanged(run(legs, [flat[0], flat_normal], &settings, 1.0, 0.1), Error::InvalidFootPlanting);
    unchanged(run(legs, flat, &settings, 1.5, 0.1), Error::InvalidFootPlanting);
    unchanged(run(legs, flat, &settings, 1.0, -0.1), Error::InvalidFootPlanting);
    unchanged(run(legs, flat, &PlantSettings { soften: 0.0, ..settings }, 1.0, 0.1), Error::InvalidFootPlanting);
    unchanged(
        run(legs, flat, &PlantSettings { release_time: f32::INFINITY, ..settings }, 1.0, 0.1),
        Error::InvalidFootPlanting,
    );
    // Weight 0 on flat ground: the pose as animated (the IK's arcs are the identity up to rounding).
    let (result, _, out) = run(legs, flat, &settings, 0.0, 0.1);
    assert_eq!(result.expect("weight 0").pelvis_drop, 0.0);
    for j in 0..7 {
        let (a, b) = (out[j / 4].get(j % 4), soa[j / 4].get(j % 4));
        assert!((a.rotation.dot(b.rotation).abs() - 1.0).abs() < 1e-6 && a.translation == b.translation, "joint {j}");
    }
    // A ground 30 cm below the feet: the pelvis drops (the first frame takes it at once) and the feet reach.
    let (result, _, _) = run(legs, [Ground::flat(-30.0); 2], &settings, 1.0, 0.1);
    let report = result.expect("low ground");
    assert!(report.pelvis_drop < -25.0 && report.reached == [true, true], "{report:?}");
}
