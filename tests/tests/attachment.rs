//! Attachments against an f64 reference: an object's world transform is `world · model[joint] · offset`
//! computed in f64; hanging the character from the object it carries gives back the world transform it
//! started from (rigidly, and upright with the position alone solved); bad matrices and joints are errors.
//! Random rigs with scales, and the Bandai walk's right hand across the clip.

use sinew::attachment::{AttachJob, HangJob};
use sinew::math::{Mat4, Quat, Transform, Vec3};
use sinew::{Error, LocalToModelJob, Skeleton};
use sinew_tests::{Rng, oracle, to_soa};

fn to_mat4(t: &Transform) -> Mat4 {
    let m = oracle::trs(t);
    let mut out = Mat4::IDENTITY;
    for c in 0..4 {
        for r in 0..4 {
            out.cols[c][r] = m[c * 4 + r] as f32;
        }
    }
    out
}

fn worst_difference(a: &Mat4, b: &oracle::M4) -> f64 {
    let a = oracle::widen(a);
    (0..16).map(|i| (a[i] - b[i]).abs()).fold(0.0, f64::max)
}

fn model_of(parents: &[i16], local: &[Transform]) -> Vec<Mat4> {
    let rest = to_soa(&vec![Transform::IDENTITY; parents.len()]);
    let skeleton = Skeleton::new(parents, &rest, None).expect("skeleton");
    let mut model = vec![Mat4::IDENTITY; parents.len()];
    LocalToModelJob { skeleton: &skeleton, walk: None, local: &to_soa(local), root: None, model: &mut model }
        .run()
        .expect("local to model");
    model
}

/// Attaches, checks against f64, hangs back both ways and returns the worst round-trip error relative to
/// the world's translation size.
fn round_trip(model: &[Mat4], joint: usize, offset: &Transform, world: &Transform) -> f64 {
    let (offset_m, world_m) = (to_mat4(offset), to_mat4(world));
    let object = AttachJob { model, joint, offset: &offset_m, world: &world_m }.run().expect("attach");
    let want = oracle::mul(&oracle::trs(world), &oracle::mul(&oracle::widen(&model[joint]), &oracle::trs(offset)));
    let size = want[12].abs().max(want[13].abs()).max(want[14].abs()).max(1.0);
    assert!(worst_difference(&object, &want) < 1e-5 * size, "attached object off the f64 product");
    let rigid = HangJob { model, joint, offset: &offset_m, object: &object, upright: None }.run().expect("hang");
    let upright = HangJob { model, joint, offset: &offset_m, object: &object, upright: Some(world.rotation) }
        .run()
        .expect("hang upright");
    let world64 = oracle::trs(world);
    worst_difference(&rigid, &world64).max(worst_difference(&upright, &world64)) / size
}

#[test]
fn objects_attach_as_the_f64_product_and_hanging_from_them_gives_the_world_back() {
    let mut rng = Rng::new(0xa77);
    let mut worst = 0.0f64;
    for _ in 0..300 {
        let n = 2 + rng.below(20);
        let parents = sinew_tests::random_parents(&mut rng, n);
        let local: Vec<Transform> = (0..n).map(|_| rng.transform()).collect();
        let model = model_of(&parents, &local);
        // The world is rigid (games place characters so); the offset may scale.
        let world = Transform { translation: rng.vec3(-50.0, 50.0), rotation: rng.quat(), scale: Vec3::ONE };
        worst = worst.max(round_trip(&model, rng.below(n), &rng.transform(), &world));
    }
    assert!(worst < 1e-4, "round trip off by {worst}");
}

#[test]
fn the_bandai_hand_carries_an_object_and_the_figure_hangs_from_it_across_the_walk() {
    let Some(dir) = sinew_tests::shared_data("attachments on the Bandai walk") else { return };
    let files = sinew_tests::files_with_extension(&dir.join("bvh/bandai"), "bvh");
    let walk = files.iter().find(|p| p.to_string_lossy().contains("walk")).expect("the Bandai walk");
    let bvh = sinew_tools::bvh::Bvh::load(walk).expect("load");
    let (raw, clip) = sinew_tools::bvh::to_raw(&bvh, "walk").expect("raw");
    let hand = raw.names.iter().position(|n| n == "Hand_R").expect("Hand_R");
    let mut rng = Rng::new(0xbadd);
    let mut worst = 0.0f64;
    for frame in clip.frames.iter().step_by(5) {
        let model = model_of(&raw.parents, frame);
        // A 10 cm object held in the hand, the character 20 m away in the world (cm units).
        let offset = Transform { translation: rng.vec3(-10.0, 10.0), rotation: rng.quat(), scale: Vec3::ONE };
        let yaw = Quat::from_axis_angle(Vec3::new(0.0, 1.0, 0.0), rng.range(-3.0, 3.0));
        let world = Transform { translation: rng.vec3(-2000.0, 2000.0), rotation: yaw, scale: Vec3::ONE };
        worst = worst.max(round_trip(&model, hand, &offset, &world));
    }
    assert!(worst < 1e-5, "Bandai round trip off by {worst}");
    println!("Bandai hand: worst round trip {worst:.1e} of the world's size");
}

/// The identity and three matrices an attachment refuses or cannot invert: one with a NaN, a singular one
/// (all zero but `w`), a projective one.
struct Matrices {
    id: Mat4,
    nan: Mat4,
    zero: Mat4,
    projective: Mat4,
}

impl Matrices {
    fn new() -> Matrices {
        let mut nan = Mat4::IDENTITY;
        nan.cols[3][1] = f32::NAN;
        let mut projective = Mat4::IDENTITY;
        projective.cols[0][3] = 0.5;
        let zero = Mat4 { cols: [[0.0; 4], [0.0; 4], [0.0; 4], [0.0, 0.0, 0.0, 1.0]] };
        Matrices { id: Mat4::IDENTITY, nan, zero, projective }
    }
}

#[test]
fn bad_joints_and_matrices_are_errors() {
    let model = [Mat4::IDENTITY; 3];
    let Matrices { id, nan, zero, projective } = Matrices::new();
    let attach = |joint, offset: &Mat4, world: &Mat4| AttachJob { model: &model, joint, offset, world }.run();
    assert_eq!(attach(3, &id, &id), Err(Error::IndexOutOfRange { what: sinew::error::Index::Joint, index: 3, len: 3 }));
    assert_eq!(attach(0, &nan, &id), Err(Error::InvalidAttachment));
    assert_eq!(attach(0, &id, &projective), Err(Error::InvalidAttachment));
    let hang =
        |offset: &Mat4, object: &Mat4, upright| HangJob { model: &model, joint: 1, offset, object, upright }.run();
    assert_eq!(hang(&zero, &id, None), Err(Error::InvalidAttachment), "a singular grip cannot be hung from rigidly");
    assert!(hang(&zero, &id, Some(Quat::IDENTITY)).is_ok(), "upright needs only the grip's position");
    assert_eq!(hang(&id, &nan, None), Err(Error::InvalidAttachment));
    assert_eq!(hang(&id, &id, Some(Quat::new(0.0, 0.0, 0.0, 0.0))), Err(Error::InvalidAttachment));
    let mut bad_model = model;
    bad_model[1].cols[0][0] = f32::INFINITY;
    let err = HangJob { model: &bad_model, joint: 1, offset: &id, object: &id, upright: None }.run();
    assert_eq!(err, Err(Error::NonFinite { buffer: sinew::Buffer::ModelMatrices, index: 1 }));
}

#[test]
fn validate_finds_what_run_refuses_and_passes_what_it_takes() {
    let model = [Mat4::IDENTITY; 3];
    let Matrices { id, nan, zero, projective } = Matrices::new();
    for (joint, offset, world) in [(0, &id, &id), (3, &id, &id), (0, &nan, &id), (0, &id, &projective), (2, &zero, &id)]
    {
        let job = AttachJob { model: &model, joint, offset, world };
        assert_eq!(job.validate(), job.run().map(|_| ()), "attach joint {joint}");
    }
    let upright =
        [None, Some(Quat::IDENTITY), Some(Quat::new(0.0, 0.0, 0.0, 0.0)), Some(Quat::new(f32::NAN, 0.0, 0.0, 1.0))];
    for (joint, offset, object) in [(1, &id, &id), (5, &id, &id), (1, &nan, &id), (1, &id, &nan), (1, &id, &projective)]
    {
        for upright in upright {
            let job = HangJob { model: &model, joint, offset, object, upright };
            assert_eq!(job.validate(), job.run().map(|_| ()), "hang joint {joint}, upright {upright:?}");
        }
    }
    // A singular grip is seen only by `run`, which inverts it.
    let singular = HangJob { model: &model, joint: 1, offset: &zero, object: &id, upright: None };
    assert_eq!((singular.validate(), singular.run()), (Ok(()), Err(Error::InvalidAttachment)));
}

#[test]
fn the_affine_inverse_matches_the_f64_inverse() {
    let mut rng = Rng::new(0x1d);
    for _ in 0..500 {
        let m = to_mat4(&rng.transform());
        let inverse = m.inverse_affine().expect("invertible");
        let product = oracle::mul(&oracle::widen(&m), &oracle::widen(&inverse));
        assert!(worst_difference(&Mat4::IDENTITY, &product) < 1e-5, "{product:?}");
    }
    let flat = Mat4 { cols: [[1.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]] };
    assert_eq!(flat.inverse_affine(), None);
}
