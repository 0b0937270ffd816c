//! Shared pieces of sinew's integration tests: a seeded generator, random inputs, and an independent f64
//! reference ("oracle") written from the textbook definitions, not from the runtime's code.

pub mod oracle;

use sinew::math::{Mat3x4, Quat, SoaTransform, Transform, Vec3, num_soa_joints, pack_soa};

/// Joint counts every reference test runs: single joint, partial/whole/overflowing lane groups, a real rig
/// size, and the maximum. Under Miri (which checks memory safety, interpreted with soft floats and ~1000x
/// slower) a rig of four lane groups, the last partial, stands in for the real and the largest ones; ordinary
/// runs cover those.
pub const JOINT_COUNTS: &[usize] = if cfg!(miri) { &[1, 3, 4, 5, 13] } else { &[1, 3, 4, 5, 67, 1024] };

/// SplitMix64: tiny, seeded, identical on every platform (so failures reproduce under qemu too).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }
    /// A random unit quaternion (normalized Gaussian-ish sample; either sign of w).
    pub fn quat(&mut self) -> Quat {
        loop {
            let q =
                Quat::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0));
            let len_sq = q.length_squared();
            if (0.01..=1.0).contains(&len_sq) {
                return q.normalize();
            }
        }
    }
    /// A random transform: translation in ±1, unit rotation, scale in [0.8, 1.25].
    pub fn transform(&mut self) -> Transform {
        Transform { translation: self.vec3(-1.0, 1.0), rotation: self.quat(), scale: self.vec3(0.8, 1.25) }
    }
}

/// Random parent-first hierarchy: mostly chains (parent = previous joint), sometimes a branch from one of the
/// last eight joints, and an extra root now and then. Depth grows roughly as `n / 2`.
pub fn random_parents(rng: &mut Rng, n: usize) -> Vec<i16> {
    (0..n)
        .map(|i| {
            if i == 0 || rng.below(50) == 0 {
                -1
            } else if rng.below(3) != 0 {
                (i - 1) as i16
            } else {
                (i - 1 - rng.below(i.min(8))) as i16
            }
        })
        .collect()
}

/// Parents of `n` joints laid out as chains, each hanging off a random earlier joint (a root now and then):
/// limbs, fingers and tails. Half the chains are 4 to 16 joints long in steps of 4, so many start on a lane
/// group and the group walk has independent groups to pair; the rest are 3 to 20 long.
pub fn branching_parents(rng: &mut Rng, n: usize) -> Vec<i16> {
    let mut parents = Vec::with_capacity(n);
    while parents.len() < n {
        let start = parents.len();
        let length = if rng.below(2) == 0 { 4 * (1 + rng.below(4)) } else { 3 + rng.below(18) };
        for i in start..(start + length).min(n) {
            let parent = if i > start {
                i - 1
            } else if i == 0 || rng.below(10) == 0 {
                usize::MAX
            } else {
                rng.below(i)
            };
            parents.push(if parent == usize::MAX { -1 } else { parent as i16 });
        }
    }
    parents
}

/// `n` random AoS transforms.
pub fn random_pose(rng: &mut Rng, n: usize) -> Vec<Transform> {
    (0..n).map(|_| rng.transform()).collect()
}

/// AoS transforms packed to SoA with identity padding.
pub fn to_soa(aos: &[Transform]) -> Vec<SoaTransform> {
    let mut soa = vec![SoaTransform::IDENTITY; num_soa_joints(aos.len())];
    pack_soa(aos, &mut soa).expect("lengths match by construction");
    soa
}

/// A random affine matrix as `Mat3x4` (rotation × scale, translation in ±2).
pub fn random_affine(rng: &mut Rng) -> Mat3x4 {
    let t = Transform { translation: rng.vec3(-2.0, 2.0), rotation: rng.quat(), scale: rng.vec3(0.5, 2.0) };
    Mat3x4::from_affine(&t.to_mat4()).expect("TRS matrices are affine")
}

/// Depth of every joint (roots have depth 1).
pub fn depths(parents: &[i16]) -> Vec<usize> {
    let mut depth = vec![0usize; parents.len()];
    for (j, &p) in parents.iter().enumerate() {
        depth[j] = if p < 0 { 1 } else { depth[p as usize] + 1 };
    }
    depth
}

/// Largest absolute difference between two matrices given as 16 column-major floats.
pub fn max_abs_diff(a: &[f32; 16], b: &[f64; 16]) -> f64 {
    a.iter().zip(b).map(|(&x, &y)| (x as f64 - y).abs()).fold(0.0, f64::max)
}

/// The shared real-animation folder (`../shared/data` next to the repository, or `$SINEW_DATA`), or `None`
/// with a message saying the data-driven test `test` is skipped.
///
/// # Panics
/// When the data is missing and `SINEW_REQUIRE_DATA` is set (as `.ci/run` does): in CI a skipped data test
/// would pass silently.
pub fn shared_data(test: &str) -> Option<std::path::PathBuf> {
    if cfg!(miri) {
        eprintln!("{test}: skipped under Miri (file I/O)");
        return None;
    }
    sinew_tools::shared_data_for_test(test)
}

/// Every BVH and glTF file of the shared data: (file, skeleton, clips).
pub fn shared_clips(
    dir: &std::path::Path,
) -> Vec<(String, sinew_tools::raw::RawSkeleton, Vec<sinew_tools::raw::RawClip>)> {
    let mut out = Vec::new();
    for sub in ["bvh/bandai", "bvh/cmu", "bvh/makehuman", "gltf"] {
        let mut files: Vec<_> = std::fs::read_dir(dir.join(sub)).expect("shared data folder").flatten().collect();
        files.sort_by_key(|f| f.path());
        for file in files {
            let path = file.path();
            let name = format!("{sub}/{}", file.file_name().to_string_lossy());
            match path.extension().and_then(|e| e.to_str()) {
                Some("bvh") => {
                    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[path]).expect("import");
                    out.push((name, skeleton, clips));
                }
                Some("glb") | Some("gltf") => {
                    let asset = sinew_tools::gltf_import::load(&path).expect("import");
                    if !asset.clips.is_empty() {
                        out.push((name, asset.skeleton, asset.clips));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The shared skinned glTF characters: the `.glb` files at the top of `gltf/` (its `khronos/` folder holds the
/// glTF conformance corpus, mostly unskinned files with morph targets or odd samplers), sorted.
pub fn gltf_characters(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let top = dir.join("gltf");
    let mut out: Vec<_> = std::fs::read_dir(&top)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb")))
        .collect();
    out.sort();
    out
}

/// Every file with extension `ext` under `dir`, sorted.
pub fn files_with_extension(dir: &std::path::Path, ext: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext)) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A random skeleton and clip whose tracks are a mix of rest, constant and animated, per joint and channel.
/// Animated values wander smoothly (a random walk) so neighbouring frames are close, as in real clips.
pub fn random_clip(
    rng: &mut Rng,
    n: usize,
    frames: usize,
) -> (sinew_tools::raw::RawSkeleton, sinew_tools::raw::RawClip) {
    let parents = random_parents(rng, n);
    let rest = random_pose(rng, n);
    let names = (0..n).map(|j| format!("joint{j}")).collect();
    // 0 = rest, 1 = constant, 2 = animated, per joint per channel; animated two times in three, so whole
    // lane groups of animated tracks (the sampler's transpose path) occur as well as mixed ones.
    let kind = |rng: &mut Rng| if rng.below(2) == 0 { 2 } else { rng.below(3) };
    let kinds: Vec<[usize; 3]> = (0..n).map(|_| [kind(rng), kind(rng), kind(rng)]).collect();
    let constant = random_pose(rng, n);
    let mut current = random_pose(rng, n);
    let mut all = Vec::with_capacity(frames);
    for _ in 0..frames {
        let frame: Vec<Transform> = (0..n)
            .map(|j| {
                let pick = |kind: usize, animated: Transform| match kind {
                    0 => rest[j],
                    1 => constant[j],
                    _ => animated,
                };
                Transform {
                    translation: pick(kinds[j][0], current[j]).translation,
                    rotation: pick(kinds[j][1], current[j]).rotation,
                    scale: pick(kinds[j][2], current[j]).scale,
                }
            })
            .collect();
        all.push(frame);
        for t in current.iter_mut() {
            let d = rng.vec3(-0.05, 0.05);
            t.translation = Vec3::new(t.translation.x + d.x, t.translation.y + d.y, t.translation.z + d.z);
            let step = Quat::nlerp(Quat::IDENTITY, rng.quat(), 0.1);
            t.rotation = (step * t.rotation).normalize();
            t.scale = Vec3::new(
                (t.scale.x + d.y * 0.1).clamp(0.5, 2.0),
                (t.scale.y + d.z * 0.1).clamp(0.5, 2.0),
                (t.scale.z + d.x * 0.1).clamp(0.5, 2.0),
            );
        }
    }
    let skeleton = sinew_tools::raw::RawSkeleton { names, parents, rest };
    let rate = 30.0;
    (
        skeleton,
        sinew_tools::raw::RawClip {
            name: "random".into(),
            sample_rate: rate,
            frames: all,
            step: sinew_tools::raw::StepKeys::None,
        },
    )
}

/// Regression limits of the quantized bakes of the shared files, in mm on a figure scaled to 1.7 m: each the
/// worst error measured on 2026-11-24 (`cargo test --test bvh --test gltf -- --nocapture`) plus 20%, so a
/// change that makes quantization worse fails here rather than only in a printed line. Files not listed
/// (new data) are held to 1 mm.
pub const QUANTIZED_ERROR_LIMITS_MM: &[(&str, f64)] = &[
    ("dataset-1_dance-short_normal_001.bvh", 0.136),
    ("dataset-1_kick_normal_001.bvh", 0.128),
    ("dataset-1_walk_normal_001.bvh", 0.150),
    ("dataset-2_run_normal_001.bvh", 0.140),
    ("01_01.bvh", 0.310),
    ("face-poseunits.bvh", 0.016),
    ("walk1.bvh", 0.102),
    ("CesiumMan.glb", 0.076),
    ("Fox.glb", 0.080),
    ("RiggedFigure.glb", 0.044),
    ("robot.glb", 0.268),
];

/// The quantized-error limit of `path` (see [`QUANTIZED_ERROR_LIMITS_MM`]).
pub fn quantized_error_limit_mm(path: &std::path::Path) -> f64 {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    QUANTIZED_ERROR_LIMITS_MM.iter().find(|(file, _)| *file == name).map_or(1.0, |&(_, limit)| limit)
}

/// `n` test cases natively, a fraction under Miri (which runs a few thousand times slower): enough to
/// execute every path under its checks without taking the CI budget.
pub const fn cases(n: usize) -> usize {
    if cfg!(miri) { if n / 200 > 4 { n / 200 } else { 4 } } else { n }
}

/// One frame of `inertializer` through [`sinew::InertializationJob`], returning the output it left in the
/// inertializer's history.
pub fn inertialize<'s>(
    inertializer: &'s mut sinew::Inertializer<'_>,
    dt: f32,
    target: &sinew::Target,
) -> Result<sinew::inertialization::Output<'s>, sinew::Error> {
    sinew::InertializationJob { inertializer: &mut *inertializer, dt, target: *target }.run()?;
    Ok(inertializer.output())
}

/// The Bandai walk and run baked with plants and phases, or `None` without the shared data.
pub fn bandai_walk_run_phased(
    test: &str,
) -> Option<(sinew_tools::raw::AlignedBlob, sinew_tools::raw::RawSkeleton, Vec<sinew_tools::raw::RawClip>)> {
    use sinew_tools::annotate::PlantRule;
    use sinew_tools::bake;
    use sinew_tools::phase::{PhaseRule, bake_phases, phase_report};
    use sinew_tools::raw::{Extras, RawAnnotations};
    let dir = shared_data(test)?;
    let files = files_with_extension(&dir.join("bvh/bandai"), "bvh");
    let pick = |name: &str| files.iter().find(|f| f.to_string_lossy().contains(name)).cloned().expect(name);
    let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[pick("walk"), pick("run")]).expect("load");
    let feet = sinew_tools::phase::left_right_feet(&skeleton, &[]).expect("feet");
    let mut annotations = vec![RawAnnotations::default(); clips.len()];
    let found = bake_phases(&skeleton, &clips, feet, PlantRule::default(), PhaseRule::default(), &mut annotations)
        .expect("phases");
    let report = phase_report(&clips, &found);
    let phases: Vec<_> = found.into_iter().map(Result::ok).collect();
    assert!(phases.iter().all(Option::is_some), "{report:?}");
    let extras = Extras { annotations, phases, ..Default::default() };
    let blob = bake::bake_with(&skeleton, &clips, bake::KeyFormat::F32, &extras).expect("bake");
    Some((blob, skeleton, clips))
}

/// Model matrices of `local` through sinew's `LocalToModelJob` (whole skeleton, no root): the input the IK and
/// post-process tests hand their jobs.
pub fn model_of(skeleton: &sinew::Skeleton<'_>, local: &[sinew::math::SoaTransform]) -> Vec<sinew::math::Mat4> {
    let mut model = vec![sinew::math::Mat4::IDENTITY; skeleton.num_joints()];
    sinew::LocalToModelJob { skeleton, walk: None, local, root: None, model: &mut model }
        .run()
        .expect("local to model");
    model
}

/// Clip 0 of `asset` at `time` through `context`, unpacked to AoS.
///
/// # Panics
/// When the asset has no clip or the job refuses its input: a test's setup is wrong.
pub fn sample_clip0(
    asset: &sinew::Asset<'_>,
    context: &mut sinew::SamplingContext<'_>,
    time: f32,
    playback: sinew::Playback,
) -> Vec<Transform> {
    let skeleton = asset.skeleton();
    let clip = asset.clip(0).expect("clip 0");
    let mut soa = vec![SoaTransform::IDENTITY; skeleton.num_soa_joints()];
    sinew::SamplingJob { skeleton, clip: &clip, time, playback, context, output: &mut soa, curves: &mut [] }
        .run()
        .expect("sample");
    let mut aos = vec![Transform::IDENTITY; skeleton.num_joints()];
    sinew::math::unpack_soa(&soa, &mut aos).expect("unpack");
    aos
}
