//! The main job's crowd through the character runtime: every character a [`sinew::Character`] with a base
//! layer blending two locomotion clips, an upper-body overlay and a synced additive, inertialized, skinned,
//! and switching its base every few seconds with an inertialized transition. The rig's root motion is extracted
//! under a synthetic root (when it has hips), so every character also moves by its base clips' root motion.
//!
//! After each update, every character runs a post-process through [`Character::edit_pose`]: foot planting on
//! both legs (the clips' plants detected at bake, flat ground) and a look-at of the head toward a point that
//! circles in front of it. It is timed apart (`post_process_us`), so `runtime_overhead` compares like with like.
//!
//! Beside it, the same crowd as the same kernel calls wired by hand (one shared sampling context, the same
//! buffers, times computed directly, the root motion from root-only samples): `runtime_overhead` is the character frame over that direct frame, both
//! timed in alternation in one run, so it measures what the runtime adds (clocks, fades, per-joint layer
//! weights, validation, the block's layout) and nothing else.

use crate::workload::Workload;
use sinew::blending::{self, BlendLayer, BlendingJob, DEFAULT_THRESHOLD};
use sinew::control::Wrap;
use sinew::error::Index;
use sinew::foot_planting::{FootPlanter, FootPlantingJob, Ground, PlantSettings};
use sinew::ik::AimIkJob;
use sinew::inertialization::{InertializationJob, Settings, Target, Transition};
use sinew::math::{F4, Mat3x4, Mat4, SoaTransform, Transform, Vec3, num_soa_joints};
use sinew::root_motion::{self, RootMotion};
use sinew::{
    Arena, Asset, Blend, Character, CharacterDesc, Chunk, GroupWalk, Inertializer, LayerDesc, LayerKind,
    LocalToModelJob, Play, Playback, Rig, Sampling, SamplingContext, SamplingJob, Scratch, Skeleton, Skin, SlotId,
};
use sinew::{Palette, SkinningJob};
use sinew_tools::annotate;
use sinew_tools::raw::{RawAnnotations, RawClip};
use sinew_tools::root_motion::{Extraction, extract};
use std::time::Instant;

/// What the runtime costs beside the same kernels called directly.
#[derive(Clone, Debug)]
pub struct RuntimeReport {
    pub characters: usize,
    /// Median crowd frame through `Character::update`, per character.
    pub character_us: f64,
    /// Median crowd frame of the same kernels wired by hand, per character.
    pub direct_us: f64,
    /// `character_us / direct_us`.
    pub runtime_overhead: f64,
    /// Median crowd post-process per character: two-leg foot planting and a head look-at, with the model
    /// matrices and palette computed again (`Character::edit_pose`); 0 when the rig has no legs or head.
    pub post_process_us: f64,
    /// `Character::required_bytes` for this layer stack with its scratch outside the block, and per joint.
    pub bytes_per_character: usize,
    pub bytes_per_joint: f64,
    /// The one scratch the crowd shares (`Character::scratch_bytes`), and per joint.
    pub scratch_bytes: usize,
    pub scratch_bytes_per_joint: f64,
}

const LAYERS: [LayerDesc; 3] = [
    LayerDesc { kind: LayerKind::Base, controls: 2 },
    LayerDesc { kind: LayerKind::Overlay, controls: 1 },
    LayerDesc { kind: LayerKind::SyncedAdditive, controls: 1 },
];

/// The game's frame step.
const DT: f32 = 1.0 / 60.0;
/// Frames between one character's base transitions (3 s), staggered over the crowd.
const TRANSITION_EVERY: usize = 180;
const TRANSITION: Transition<'static> = Transition { duration: 0.3, profile: None };
/// The base blend's weights and the additive's.
const LEAD: f32 = 0.7;
const ADDITIVE: f32 = 0.5;

/// The character layer stack's description for `w`.
pub fn desc(num_joints: usize, num_skin_joints: usize, sampling: Sampling) -> CharacterDesc<'static> {
    CharacterDesc {
        num_joints,
        num_skin_joints,
        layers: &LAYERS,
        num_masks: 1,
        num_curves: 0,
        inertialization: Some(Settings::default()),
        // One scratch for the whole crowd (one thread), as an engine keeps one per worker thread.
        scratch: Scratch::External,
        sampling,
        interpolation: sinew::Interpolation::Linear,
    }
}

/// How the crowds sample `asset`'s clips: compressed ones through a context per control kept across frames
/// with its segment's decoders, as a game playing them would (through one shared context every update would
/// seek, working the decoders out again); other keys through one shared context, which costs no block memory.
fn sampling(asset: &Asset<'_>) -> Sampling {
    let tracks =
        (0..asset.num_clips()).filter_map(|i| asset.clip(i)).map(|clip| crate::workload::decoder_tracks(&clip));
    match tracks.max().unwrap_or(0) {
        0 => Sampling::Shared,
        max_tracks => Sampling::PerControl { max_tracks },
    }
}

/// The upper body: the joint whose subtree holds closest to half the skeleton.
fn upper_body(skeleton: &Skeleton<'_>) -> usize {
    let n = skeleton.num_joints();
    let mut size = vec![1usize; n];
    for j in (1..n).rev() {
        if let Ok(p) = usize::try_from(skeleton.parents()[j]) {
            size[p] += size[j];
        }
    }
    (0..n).min_by_key(|&j| size[j].abs_diff(n / 2)).unwrap_or(0)
}

/// The crowd's clips: see [`clips`].
const CLIPS: usize = 4;

/// Four clips: the workload's clip, its reverse (the second locomotion clip), and the clip again for the
/// overlay and the additive.
fn clips(clip: &RawClip) -> Vec<RawClip> {
    let mut reverse = clip.clone();
    reverse.frames.reverse();
    vec![clip.clone(), reverse, clip.clone(), clip.clone()]
}

/// Base clips of character `c` after `k` transitions: which clip leads.
fn base_clips(k: usize) -> (usize, usize) {
    if k.is_multiple_of(2) { (0, 1) } else { (1, 0) }
}

/// Is frame `f` character `c`'s transition frame?
fn transitions_at(c: usize, f: usize) -> bool {
    (f + c * 17) % TRANSITION_EVERY == TRANSITION_EVERY - 1
}

/// Runs both crowds on `w` for `frames` frames and compares them.
pub fn measure(w: &Workload, characters: usize, frames: usize) -> Result<RuntimeReport, String> {
    let ((character_us, direct_us, post_process_us), sizes) = with_crowds(w, characters, |frames_of| {
        // Alternate them so all see the same machine state; the median frame of each.
        let (mut character_samples, mut direct_samples, mut post_samples) = (Vec::new(), Vec::new(), Vec::new());
        for f in 0..frames + 2 {
            let start = Instant::now();
            (frames_of.character)(f)?;
            let updated = Instant::now();
            (frames_of.post_process)(f)?;
            let processed = Instant::now();
            (frames_of.direct)(f)?;
            let end = Instant::now();
            // Two warm-up frames.
            if f >= 2 {
                character_samples.push((updated - start).as_secs_f64());
                post_samples.push((processed - updated).as_secs_f64());
                direct_samples.push((end - processed).as_secs_f64());
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2] * 1e6 / characters as f64
        };
        Ok((median(&mut character_samples), median(&mut direct_samples), median(&mut post_samples)))
    })?;
    let n = sizes.joints as f64;
    Ok(RuntimeReport {
        characters,
        character_us,
        direct_us,
        runtime_overhead: character_us / direct_us,
        post_process_us,
        bytes_per_character: sizes.block,
        bytes_per_joint: sizes.block as f64 / n,
        scratch_bytes: sizes.scratch,
        scratch_bytes_per_joint: sizes.scratch as f64 / n,
    })
}

/// Bytes of one character's block and of the crowd's shared scratch.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub block: usize,
    pub scratch: usize,
    /// The character's joints (the workload's, and the motion root when one was extracted).
    pub joints: usize,
}

/// One crowd frame: frame index in, the first error out.
pub type CrowdFrame<'f> = &'f mut dyn FnMut(usize) -> Result<(), sinew::Error>;

/// The crowds' frames: the character crowd's update, its post-process (run after that update), and the
/// direct crowd's frame.
pub struct CrowdFrames<'f> {
    pub character: CrowdFrame<'f>,
    pub post_process: CrowdFrame<'f>,
    pub direct: CrowdFrame<'f>,
}

/// Builds both crowds of `characters` on `w` and hands `run` their frames; the criterion bench and
/// [`measure`] time them.
pub fn with_crowds<R>(
    w: &Workload,
    characters: usize,
    run: impl FnOnce(CrowdFrames<'_>) -> Result<R, sinew::Error>,
) -> Result<(R, Sizes), String> {
    let err = |e: sinew::Error| e.to_string();
    // Root motion under a synthetic root when the skeleton has hips to follow (every procedural rig does); the
    // skin's joints move down one with the skeleton's.
    let raw_clips = clips(&w.clip);
    // Foot plants detected on the source clips (their joints keep their names under the motion root).
    let feet = annotate::foot_joints(&w.skeleton, &[]).unwrap_or_default();
    let mut annotations = vec![RawAnnotations::default(); raw_clips.len()];
    for (clip, a) in raw_clips.iter().zip(annotations.iter_mut()) {
        annotate::detect_plants(&w.skeleton, clip, &feet, annotate::PlantRule::default(), a)?;
    }
    let (skeleton, clips, remap) = match extract(&w.skeleton, &raw_clips, &Extraction::default()) {
        Ok((skeleton, clips)) => (skeleton, clips, w.skin_remap.iter().map(|j| j + 1).collect()),
        Err(_) => (w.skeleton.clone(), raw_clips, w.skin_remap.clone()),
    };
    let extras = sinew_tools::raw::Extras { annotations, skin: None, ..Default::default() };
    let blob = sinew_tools::bake::bake_with(&skeleton, &clips, w.keys, &extras)?;
    let asset = Asset::load(blob.bytes()).map_err(err)?;
    let skeleton = asset.skeleton();
    let n = skeleton.num_joints();
    let skin = Skin::new(n, &remap, &w.inverse_bind).map_err(err)?;
    let rig = Rig::new(&asset, Some(&skin)).map_err(err)?;
    let duration = asset.clip(0).ok_or("no clip")?.duration();
    let g = num_soa_joints(n);
    let mut mask = vec![F4::ZERO; g];
    blending::subtree_mask(skeleton, upper_body(skeleton), 1.0, &mut mask).map_err(err)?;

    // The character crowd: one block per character.
    let sampling = sampling(&asset);
    let desc = desc(n, skin.num_joints(), sampling);
    let bytes = Character::required_bytes(&desc).map_err(err)?;
    let mut memory = vec![Chunk::ZERO; Chunk::count(bytes) * characters];
    let blocks: Vec<&mut [u8]> = Chunk::bytes_mut(&mut memory).chunks_mut(bytes).collect();
    let start_time = |c: usize| (c as f32 * 0.37) % duration;
    let mut crowd = Vec::with_capacity(characters);
    for (c, block) in blocks.into_iter().enumerate() {
        let mut ch = Character::new(block, &desc).map_err(err)?;
        ch.set_mask(0, &mask).map_err(err)?;
        let t = start_time(c);
        ch.play(&asset, SlotId::base(0), Play { time: t, weight: LEAD, ..Play::looping(0) }).map_err(err)?;
        ch.play(&asset, SlotId::base(1), Play { time: t, weight: 1.0 - LEAD, ..Play::looping(1) }).map_err(err)?;
        ch.play(&asset, SlotId::on(1, 0), Play { time: t, ..Play::looping(2) }).map_err(err)?;
        ch.play(&asset, SlotId::on(2, 0), Play { weight: ADDITIVE, wrap: Wrap::Loop, ..Play::looping(3) })
            .map_err(err)?;
        ch.set_layer_masks(1, Some(0), None).map_err(err)?;
        crowd.push(ch);
    }
    let scratch_bytes = Character::scratch_bytes(&desc).map_err(err)?;
    let mut scratch_memory = vec![Chunk::ZERO; Chunk::count(scratch_bytes)];
    let scratch = Chunk::bytes_mut(&mut scratch_memory);
    let mut transitions = vec![0usize; characters];
    // Where each character stands: the game's side of root motion.
    let worlds = vec![RootMotion::IDENTITY; characters];
    let crowd = std::cell::RefCell::new(crowd);
    let worlds = std::cell::RefCell::new(worlds);
    let mut character_frame = |f: usize| -> Result<(), sinew::Error> {
        let mut worlds = worlds.borrow_mut();
        for (c, ch) in crowd.borrow_mut().iter_mut().enumerate() {
            if transitions_at(c, f) {
                transitions[c] += 1;
                let (lead, other) = base_clips(transitions[c]);
                let t = ch.control(SlotId::base(0))?.map_or(0.0, |k| k.time());
                ch.transition(
                    &asset,
                    0,
                    Play { time: t, weight: LEAD, ..Play::looping(lead) },
                    Blend::Inertialize(TRANSITION),
                )?;
                ch.play(&asset, SlotId::base(1), Play { time: t, weight: 1.0 - LEAD, ..Play::looping(other) })?;
            }
            ch.update_with_scratch(DT, &rig, scratch)?;
            worlds[c] = worlds[c].then(ch.root_motion());
        }
        Ok(())
    };

    // The direct crowd: per character its inertializer, model matrices and palette; the per-frame buffers
    // shared by the crowd, as the characters share their scratch.
    // With per-control sampling, a context per clip kept across frames (the characters' controls keep theirs).
    let kept_contexts = match sampling {
        Sampling::PerControl { max_tracks } => Some(max_tracks),
        Sampling::Shared => None,
    };
    let context_bytes = kept_contexts.map_or(0, |tracks| SamplingContext::required_bytes_with_decoders(n, tracks));
    let direct_bytes = Inertializer::required_bytes(n, 0)
        + Arena::required_bytes::<Mat4>(n)
        + Arena::required_bytes::<Mat3x4>(skin.num_joints())
        + CLIPS * context_bytes;
    let direct_chunks = Chunk::count(direct_bytes);
    let mut direct_memory = vec![Chunk::ZERO; direct_chunks * characters];
    let arenas: Vec<Arena> =
        Chunk::bytes_mut(&mut direct_memory).chunks_mut(direct_chunks * 64).map(Arena::new).collect();
    let mut direct = Vec::with_capacity(characters);
    for arena in &arenas {
        let contexts = match kept_contexts {
            Some(tracks) => (0..CLIPS).map(|_| SamplingContext::with_decoders(arena, n, tracks)).collect(),
            None => Ok(Vec::new()),
        };
        direct.push(Direct {
            contexts: contexts.map_err(err)?,
            inertializer: Inertializer::new(arena, n, 0, Settings::default()).map_err(err)?,
            model: arena.alloc::<Mat4>(n).map_err(err)?,
            palette: arena.alloc::<Mat3x4>(skin.num_joints()).map_err(err)?,
            base: (0, 1),
            world: RootMotion::IDENTITY,
        });
    }
    let shared_bytes = SamplingContext::required_bytes(n)
        + 4 * Arena::required_bytes::<SoaTransform>(g)
        + Arena::required_bytes::<F4>(g);
    let mut shared_memory = vec![Chunk::ZERO; Chunk::count(shared_bytes)];
    let shared_arena = Arena::new(Chunk::bytes_mut(&mut shared_memory));
    let shared_slots = shared_arena.alloc::<u8>(SamplingContext::required_bytes(n)).map_err(err)?;
    let mut frame_buffers = FrameBuffers {
        samples: shared_arena.alloc::<SoaTransform>(2 * g).map_err(err)?,
        pose: shared_arena.alloc::<SoaTransform>(g).map_err(err)?,
        previous: shared_arena.alloc::<SoaTransform>(g).map_err(err)?,
        weights: shared_arena.alloc::<F4>(g).map_err(err)?,
    };
    let motion_root = root_motion::has_motion_root(skeleton);
    let kernels =
        Kernels { asset: &asset, skeleton, walk: rig.walk(), skin: &skin, mask: &mask, duration, motion_root };
    let mut direct_transitions = vec![0usize; characters];
    let mut direct_frame = |f: usize| -> Result<(), sinew::Error> {
        for (c, d) in direct.iter_mut().enumerate() {
            let t = (start_time(c) + f as f32 * DT) % duration;
            let request = transitions_at(c, f);
            if request {
                direct_transitions[c] += 1;
                d.base = base_clips(direct_transitions[c]);
                d.inertializer.request(&TRANSITION)?;
            }
            kernels.frame(d, &mut frame_buffers, shared_slots, t, request)?;
        }
        Ok(())
    };

    let post = PostProcess::new(skeleton, &asset, characters);
    let mut post_process_frame = |f: usize| -> Result<(), sinew::Error> {
        let Some(post) = &post else { return Ok(()) };
        let (mut crowd, worlds) = (crowd.borrow_mut(), worlds.borrow());
        for (c, ch) in crowd.iter_mut().enumerate() {
            post.run(ch, &rig, c, f, &worlds[c].to_mat4())?;
        }
        Ok(())
    };

    let frames = CrowdFrames {
        character: &mut character_frame,
        post_process: &mut post_process_frame,
        direct: &mut direct_frame,
    };
    let result = run(frames).map_err(err)?;
    Ok((result, Sizes { block: bytes, scratch: scratch_bytes, joints: n }))
}

/// The crowd's post-process: per character a foot planter and, per frame, foot planting and a head look-at
/// through one `Character::edit_pose`.
struct PostProcess<'a> {
    asset: &'a Asset<'a>,
    legs: [[usize; 3]; 2],
    pelvis: usize,
    head: usize,
    plants: [String; 2],
    settings: PlantSettings,
    planters: std::cell::RefCell<Vec<FootPlanter>>,
}

impl<'a> PostProcess<'a> {
    /// `None` for a rig without two legs under a pelvis and a head (the procedural rigs have them).
    fn new(skeleton: &Skeleton<'_>, asset: &'a Asset<'a>, characters: usize) -> Option<PostProcess<'a>> {
        let find = |name: &str| skeleton.find(name);
        Some(PostProcess {
            asset,
            legs: sinew_tools::rig::leg_chains(find)?,
            pelvis: find("Hips")?,
            head: find("Head")?,
            plants: ["plant:LFoot".into(), "plant:RFoot".into()],
            settings: PlantSettings::default(),
            planters: std::cell::RefCell::new(vec![FootPlanter::default(); characters]),
        })
    }

    fn run(&self, ch: &mut Character<'_>, rig: &Rig<'_>, c: usize, f: usize, world: &Mat4) -> Result<(), sinew::Error> {
        let planted = [0, 1].map(|k| ch.range_weight(self.asset, 0, &self.plants[k]).map(|w| w > 0.5));
        let planted = [planted[0]?, planted[1]?];
        let mut planters = self.planters.borrow_mut();
        let planter = &mut planters[c];
        // The ground as a gentle wave under the crowd, so the feet and the pelvis have work to do.
        let probes = planter.probe_points(&self.legs, ch.model(), world);
        let ground = probes.map(|p| Ground::flat(0.02 * (0.5 * p.x).sin() * (0.5 * p.z).cos()));
        let angle = (f as f32 * DT + c as f32) * 1.3;
        ch.edit_pose(rig, |edit| {
            FootPlantingJob {
                skeleton: edit.skeleton,
                planter,
                settings: &self.settings,
                pelvis: self.pelvis,
                legs: self.legs,
                planted,
                ground,
                world,
                dt: DT,
                weight: 1.0,
                model: &mut *edit.model,
                local: &mut *edit.local,
            }
            .run()?;
            // The head looks at a point circling a metre in front of it; its matrix is the animated one.
            let head = edit.model[self.head].translation();
            let target = head + Vec3::new(0.5 * angle.sin(), 0.2 * angle.cos(), 1.0);
            AimIkJob {
                skeleton: edit.skeleton,
                joint: self.head,
                forward: Vec3::new(0.0, 0.0, 1.0),
                up: None,
                target,
                max_angle: Some(1.2),
                max_twist: None,
                weight: 1.0,
                model: &*edit.model,
                local: edit.local,
            }
            .run()
            .map(|_| ())
        })
    }
}

/// One direct character's own buffers.
struct Direct<'a> {
    /// One sampling context per clip, kept across frames; empty when the crowd shares one per frame.
    contexts: Vec<SamplingContext<'a>>,
    inertializer: Inertializer<'a>,
    model: &'a mut [Mat4],
    palette: &'a mut [Mat3x4],
    /// Leading and second base clip.
    base: (usize, usize),
    /// Where the character stands.
    world: RootMotion,
}

/// The direct crowd's shared per-frame buffers.
struct FrameBuffers<'a> {
    samples: &'a mut [SoaTransform],
    pose: &'a mut [SoaTransform],
    previous: &'a mut [SoaTransform],
    weights: &'a mut [F4],
}

/// What every direct frame reads.
struct Kernels<'k> {
    asset: &'k Asset<'k>,
    skeleton: &'k Skeleton<'k>,
    walk: &'k GroupWalk,
    skin: &'k Skin<'k>,
    mask: &'k [F4],
    duration: f32,
    motion_root: bool,
}

impl Kernels<'_> {
    /// The layer stack at time `t` into `out`, clip `i` through `contexts[i]`, or all through one context.
    fn stack(
        &self,
        contexts: &mut [SamplingContext<'_>],
        samples: &mut [SoaTransform],
        weights: &mut [F4],
        base: (usize, usize),
        t: f32,
        out: &mut [SoaTransform],
    ) -> Result<(), sinew::Error> {
        let g = out.len();
        let (s0, s1) = samples.split_at_mut(g);
        let mut sample = |index: usize, time: f32, output: &mut [SoaTransform]| {
            let clip = self.asset.clip(index).ok_or_else(|| clip_missing(index, self.asset.num_clips()))?;
            let (skeleton, playback) = (self.skeleton, Playback::Clamp);
            let shared = contexts.len() == 1;
            let (slot, len) = (if shared { 0 } else { index }, contexts.len());
            let context =
                contexts.get_mut(slot).ok_or(sinew::Error::IndexOutOfRange { what: Index::Slot, index: slot, len })?;
            SamplingJob { skeleton, clip: &clip, time, playback, context, output, curves: &mut [] }.run()
        };
        sample(base.0, t, s0)?;
        sample(base.1, t, s1)?;
        let layers = [
            BlendLayer { pose: s0, weight: LEAD, joint_weights: None },
            BlendLayer { pose: s1, weight: 1.0 - LEAD, joint_weights: None },
        ];
        let (skeleton, threshold) = (self.skeleton, DEFAULT_THRESHOLD);
        BlendingJob { skeleton, layers: &layers, additive: &[], threshold, output: out }.run()?;
        sample(2, t, s0)?;
        blending::overlay_in_place(out, s0, self.mask)?;
        // The synced additive's clip lasts as long as the leading base clip, so its synced time is `t`.
        sample(3, t, s0)?;
        blending::additive_delta(self.skeleton.rest_pose(), s0, s1)?;
        weights.fill(F4::splat(ADDITIVE));
        blending::add_in_place(out, s1, weights)?;
        if self.motion_root {
            // The game moves the character: its motion root stays at the identity in the pose.
            out[0].set(0, &Transform::IDENTITY);
        }
        Ok(())
    }

    /// The base blend's root motion from clip time `from` to `to` (one loop wrap when `to < from`).
    fn root_motion(&self, base: (usize, usize), from: f32, to: f32) -> Result<RootMotion, sinew::Error> {
        let rest = &self.skeleton.rest_pose()[0];
        let (mut sum, mut yaw) = ([0.0f32; 3], 0.0f32);
        for (clip, weight) in [(base.0, LEAD), (base.1, 1.0 - LEAD)] {
            let clip = self.asset.clip(clip).ok_or_else(|| clip_missing(clip, self.asset.num_clips()))?;
            let at = |t: f32| root_motion::root_at(&clip, rest, t);
            let m = if to >= from {
                RootMotion::between(at(from), at(to))
            } else {
                RootMotion::between(at(from), at(self.duration)).then(RootMotion::between(at(0.0), at(to)))
            };
            let t = m.translation;
            sum = [sum[0] + weight * t.x, sum[1] + weight * t.y, sum[2] + weight * t.z];
            yaw += weight * m.yaw;
        }
        Ok(RootMotion { translation: Vec3::new(sum[0], sum[1], sum[2]), yaw })
    }

    /// One character's frame; `slots` holds the crowd's shared sampling context when `d` keeps none.
    fn frame(
        &self,
        d: &mut Direct<'_>,
        b: &mut FrameBuffers<'_>,
        slots: &mut [u8],
        t: f32,
        request: bool,
    ) -> Result<(), sinew::Error> {
        if d.contexts.is_empty() {
            let arena = Arena::new(slots);
            let mut shared = [SamplingContext::new(&arena, self.skeleton.num_joints())?];
            return self.frame_through(&mut shared, d, b, t, request);
        }
        // Taken out for the frame so that the rest of `d` stays borrowable; a `Vec` moves without allocating.
        let mut kept = core::mem::take(&mut d.contexts);
        let result = self.frame_through(&mut kept, d, b, t, request);
        d.contexts = kept;
        result
    }

    /// [`Kernels::frame`] with its sampling contexts (`d`'s or the shared one).
    fn frame_through(
        &self,
        contexts: &mut [SamplingContext<'_>],
        d: &mut Direct<'_>,
        b: &mut FrameBuffers<'_>,
        t: f32,
        request: bool,
    ) -> Result<(), sinew::Error> {
        let previous = if request {
            let before = (t - DT).rem_euclid(self.duration);
            self.stack(contexts, b.samples, b.weights, d.base, before, b.previous)?;
            Some((&*b.previous, &[][..]))
        } else {
            None
        };
        self.stack(contexts, b.samples, b.weights, d.base, t, b.pose)?;
        if self.motion_root {
            let from = (t - DT).rem_euclid(self.duration);
            d.world = d.world.then(self.root_motion(d.base, from, t)?);
        }
        let target = Target { pose: b.pose, curves: &[], previous };
        InertializationJob { inertializer: &mut d.inertializer, dt: DT, target }.run()?;
        LocalToModelJob {
            skeleton: self.skeleton,
            walk: Some(self.walk),
            local: d.inertializer.output().pose,
            root: None,
            model: d.model,
        }
        .run()?;
        SkinningJob { skin: self.skin, model: d.model, palette: Palette::Rows(d.palette) }.run()
    }
}

/// The error for a clip index the crowd's asset does not have.
fn clip_missing(index: usize, len: usize) -> sinew::Error {
    sinew::Error::IndexOutOfRange { what: Index::Clip, index, len }
}
