//! One frame of a character: step the controls, evaluate the layer stack, inertialize, then model matrices and
//! the palette; the root motion the step produced, smoothed.

use crate::arena::Arena;
use crate::data::asset::Asset;
use crate::error::{Buffer, Error, Index, check_len};
use crate::math::{F4, Mat3x4, Mat4, SoaTransform, Transform, Vec3, num_soa_joints};
use crate::motion::control::{self, Control, Step};
use crate::motion::phase::PhaseTable;
use crate::motion::root_motion::{self, RootMotion};
use crate::stages::blending::{self, BlendLayer, BlendingJob, DEFAULT_THRESHOLD};
use crate::stages::inertialization::{InertializationJob, Inertializer, Target, VelocityMode};
use crate::stages::local_to_model::LocalToModelJob;
use crate::stages::sampling::{ContextState, Interpolation, Playback, SamplingContext, SamplingJob};
use crate::stages::skinning::{Palette, SkinningJob};
use bytemuck::Zeroable;

use super::Character;
use super::block::{BLOCK_ALIGN, Counts, Header, LayerState, NONE, ScratchParts, Slot, check_block, view};
use super::desc::{LayerKind, Play};
use super::rig::Rig;
pub use crate::limits::{MAX_CHARACTER_LAYERS, MAX_LAYER_CONTROLS};

impl Character<'_> {
    /// `pose`: `None` for a motion-only update, else the external scratch if any; `palette`: compute it.
    pub(super) fn update_inner(
        &mut self,
        dt: f32,
        rig: &Rig<'_>,
        pose: Option<Option<&mut [u8]>>,
        palette: bool,
    ) -> Result<(), Error> {
        let asset = rig.asset();
        control::check_time_step(dt)?;
        let block_start = self.block.as_ptr() as usize;
        let (parts, counts) = self.parts()?;
        let frame_layout = counts.scratch_layout();
        let scratch = match (pose, parts.scratch) {
            (None, _) => None,
            (Some(Some(external)), _) => {
                check_block(external, frame_layout.end)?;
                Some(frame_layout.split(external, &counts)?)
            }
            (Some(None), Some(in_block)) => Some(frame_layout.split(in_block, &counts)?),
            (Some(None), None) => return Err(Error::MissingScratch),
        };
        rig.skin_for(&counts)?;
        for s in parts.controls.iter().filter(|s| s.used != 0) {
            let clip = s.control.clip() as usize;
            let duration = asset.clip_duration(clip).ok_or(Error::ForeignAsset { clip })?;
            if duration.to_bits() != s.control.duration().to_bits() {
                return Err(Error::ForeignAsset { clip });
            }
        }
        let (curves, previous_curves) = parts.curves.split_at_mut(counts.curves);
        if let Some(index) = curves.iter().position(|c| !c.is_finite()) {
            return Err(Error::NonFinite { buffer: Buffer::Curves, index });
        }

        // The state steps in place: each slot's `before` keeps its control as it was (the previous target's
        // time and `last_step`), and the layers are copied here, so a failing kernel rolls the step back.
        let mut layers_before = [LayerState::zeroed(); MAX_CHARACTER_LAYERS];
        let layers_before = &mut layers_before[..counts.layers];
        layers_before.copy_from_slice(parts.layers);
        let leader = base_leader(parts.controls, &parts.layers[0]);
        let mut synced_time = None;
        let motion_root = root_motion::has_motion_root(asset.skeleton());
        let mut base_steps = [None; MAX_LAYER_CONTROLS];
        for layer in parts.layers.iter_mut() {
            let range = layer.first_control as usize..(layer.first_control + layer.num_controls) as usize;
            // The base (layer 0) steps first, so the leader here is already stepped.
            let leader = leader.map(|i| parts.controls[i].control);
            let is_base = kind_of(layer) == LayerKind::Base;
            for (i, s) in parts.controls[range].iter_mut().enumerate().filter(|(_, s)| s.used != 0) {
                s.before = s.control;
                // `dt` was checked, so stepping cannot fail.
                let (control, step) = s.before.advanced(dt).map_or((s.before, None), |(c, step)| (c, Some(step)));
                s.control = control;
                if is_base && motion_root {
                    base_steps[i] = step.map(|step| (step, control.clip(), control.weight()));
                }
                if let (LayerKind::SyncedAdditive, Some(base)) = (kind_of(layer), leader) {
                    // Synced: the base leader's stride phase when both clips have one, else its normalized
                    // time; this control's own fade.
                    let (u, phase) = *synced_time.get_or_insert_with(|| {
                        let phase = PhaseTable::of(asset, base.clip() as usize).map(|t| t.phase_at(base.time()));
                        (base.normalized_time(), phase)
                    });
                    let duration = s.control.duration();
                    let time = match (phase, PhaseTable::of(asset, s.control.clip() as usize)) {
                        (Some(phase), Some(table)) => table.time_at(phase),
                        _ => u * duration,
                    };
                    s.control.set_time(time.min(duration)).unwrap_or(());
                }
            }
            layer.elapsed = (layer.elapsed + dt).min(layer.duration * layer.max_profile);
        }

        let state = State { controls: parts.controls, layers: parts.layers, layers_before };
        let pose_at = block_start + parts.header.pose_offset as usize;
        let produced = match scratch {
            Some(scratch) => produce(
                dt,
                rig,
                palette,
                &counts,
                state,
                scratch,
                &mut Outputs {
                    masks: parts.masks,
                    inertializer: parts.inertializer,
                    output: parts.output,
                    model: parts.model,
                    palette: parts.palette,
                    curves,
                    previous_curves,
                    caches: parts.caches,
                },
            ),
            None => match counts.inertialization {
                Some(_) => Inertializer::attach(&Arena::new(parts.inertializer), counts.joints, counts.curves)
                    .map(|mut inertializer| inertializer.reset())
                    .map(|()| (pose_at, 0)),
                None => Ok((pose_at, 0)),
            },
        };
        let (output, decoded) = match produced {
            Ok(done) => done,
            Err(e) => {
                for s in parts.controls.iter_mut().filter(|s| s.used != 0) {
                    s.control = s.before;
                }
                parts.layers.copy_from_slice(layers_before);
                return Err(e);
            }
        };
        for s in parts.controls.iter_mut().filter(|s| s.used != 0 && s.control.fade().is_silent()) {
            s.used = 0;
        }
        previous_curves.copy_from_slice(curves);
        parts.header.root_motion = if motion_root {
            let chosen = base_steps.get(parts.header.motion_slot as usize).copied().flatten();
            let raw = match chosen {
                // Pose-only blending: this slot's motion at full weight.
                Some((step, clip, _)) => base_motion(asset, &[Some((step, clip, 1.0))]),
                None => base_motion(asset, &base_steps),
            };
            smooth_root_motion(parts.header, raw, dt)
        } else {
            RootMotion::IDENTITY
        };
        let decoded =
            decoded + (u64::from(parts.header.decoded_frames[0]) | (u64::from(parts.header.decoded_frames[1]) << 32));
        parts.header.decoded_frames = [decoded as u32, (decoded >> 32) as u32];
        parts.header.last_dt = dt;
        parts.header.updates = parts.header.updates.saturating_add(1);
        parts.header.pose_offset = (output - block_start) as u32;
        Ok(())
    }
}

/// The stepped controls and layers, and the layers as they were (for the previous target).
pub(super) struct State<'s> {
    pub(super) controls: &'s [Slot],
    pub(super) layers: &'s [LayerState],
    pub(super) layers_before: &'s [LayerState],
}

/// The block's sections a frame reads and writes besides the state.
pub(super) struct Outputs<'o> {
    pub(super) masks: &'o [F4],
    pub(super) inertializer: &'o mut [u8],
    pub(super) output: &'o mut [SoaTransform],
    pub(super) model: &'o mut [u8],
    pub(super) palette: &'o mut [Mat3x4],
    pub(super) curves: &'o [f32],
    pub(super) previous_curves: &'o [f32],
    /// The controls' own sampling caches (empty with shared sampling).
    pub(super) caches: &'o mut [u8],
}

/// Evaluates the stack, inertializes, and writes the model matrices and palette; returns the address of the
/// output pose and the frames sampling decoded.
pub(super) fn produce(
    dt: f32,
    rig: &Rig<'_>,
    palette: bool,
    counts: &Counts,
    state: State<'_>,
    scratch: ScratchParts<'_>,
    out: &mut Outputs<'_>,
) -> Result<(usize, u64), Error> {
    let g = num_soa_joints(counts.joints);
    let slots_arena = Arena::new(scratch.slots);
    let contexts = match counts.cache_tracks {
        None => {
            Contexts::Shared(SamplingContext::with_interpolation(&slots_arena, counts.joints, 0, counts.interpolation)?)
        }
        Some(tracks) => {
            let (stride, joints, interpolation) = (counts.cache_stride(), counts.joints, counts.interpolation);
            Contexts::PerControl { caches: &mut *out.caches, stride, joints, tracks, interpolation, decoded: 0 }
        }
    };
    let mut frame = Frame {
        asset: rig.asset(),
        contexts,
        samples: scratch.samples,
        weights: scratch.weights,
        masks: out.masks,
        g,
        motion_root: root_motion::has_motion_root(rig.asset().skeleton()),
    };
    let pose_len = g * size_of::<SoaTransform>();
    let model_len = counts.joints * size_of::<Mat4>();
    let inertializer_arena = Arena::new(out.inertializer);
    let mut inertializer = match counts.inertialization {
        Some(_) => Some(Inertializer::attach(&inertializer_arena, counts.joints, counts.curves)?),
        None => None,
    };
    let output;
    let (model, pose): (&mut [Mat4], &[SoaTransform]) = match inertializer.as_mut() {
        Some(inertializer) => {
            let relative = inertializer.settings().velocity == VelocityMode::Relative;
            let previous = if inertializer.has_request() && relative {
                let previous_pose: &mut [SoaTransform] = view(&mut out.model[..pose_len])?;
                frame.evaluate(state.controls, true, state.layers_before, previous_pose)?;
                Some((&*previous_pose, out.previous_curves))
            } else {
                None
            };
            frame.evaluate(state.controls, false, state.layers, scratch.target)?;
            let target = Target { pose: scratch.target, curves: out.curves, previous };
            InertializationJob { inertializer: &mut *inertializer, dt, target }.run()?;
            let result = inertializer.output();
            output = result.pose.as_ptr() as usize;
            // The previous pose is dead here, so the model bytes are free for the matrices.
            (view(&mut out.model[..model_len])?, result.pose)
        }
        None => {
            frame.evaluate(state.controls, false, state.layers, out.output)?;
            output = out.output.as_ptr() as usize;
            (view(&mut out.model[..model_len])?, &*out.output)
        }
    };
    let (skeleton, walk) = (rig.asset().skeleton(), Some(rig.walk()));
    LocalToModelJob { skeleton, walk, local: pose, root: None, model }.run()?;
    if let (Some(skin), true) = (rig.skin(), palette && counts.skin_joints > 0) {
        SkinningJob { skin, model, palette: Palette::Rows(out.palette) }.run()?;
    }
    Ok((output, frame.contexts.decoded_frames()))
}

/// Where the controls' samples are decoded: one context for all, or each control slot's own, resumed from its
/// cache in the block for the sample and suspended into it after.
pub(super) enum Contexts<'f> {
    Shared(SamplingContext<'f>),
    PerControl {
        caches: &'f mut [u8],
        stride: usize,
        joints: usize,
        tracks: usize,
        interpolation: Interpolation,
        /// Frames decoded this update.
        decoded: u64,
    },
}

impl Contexts<'_> {
    /// Samples `control` (in slot `slot`) into `out`.
    pub(super) fn sample(
        &mut self,
        asset: &Asset<'_>,
        slot: usize,
        control: &Control,
        out: &mut [SoaTransform],
    ) -> Result<(), Error> {
        match self {
            Contexts::Shared(context) => sample_into(asset, context, control, out),
            Contexts::PerControl { caches, stride, joints, tracks, interpolation, decoded } => {
                let cache = caches.get_mut(slot * *stride..(slot + 1) * *stride).ok_or(Error::StateMismatch)?;
                let (state, memory) = cache.split_at_mut(size_of::<ContextState>().next_multiple_of(BLOCK_ALIGN));
                let state: &mut ContextState = bytemuck::try_from_bytes_mut(&mut state[..size_of::<ContextState>()])
                    .map_err(|_| Error::StateMismatch)?;
                let arena = Arena::new(memory);
                let mut context = SamplingContext::resume(&arena, *joints, *tracks, *interpolation, state)?;
                let before = context.decoded_frames();
                let sampled = sample_into(asset, &mut context, control, out);
                *decoded += context.decoded_frames().wrapping_sub(before);
                *state = context.suspend();
                sampled
            }
        }
    }

    pub(super) fn decoded_frames(&self) -> u64 {
        match self {
            Contexts::Shared(context) => context.decoded_frames(),
            Contexts::PerControl { decoded, .. } => *decoded,
        }
    }
}

/// What evaluating the layer stack borrows.
pub(super) struct Frame<'f, 'a> {
    pub(super) asset: &'f Asset<'a>,
    pub(super) contexts: Contexts<'f>,
    /// Scratch poses, `Layout::num_samples` of them.
    pub(super) samples: &'f mut [SoaTransform],
    /// Per-joint weights of the layer being applied.
    pub(super) weights: &'f mut [F4],
    pub(super) masks: &'f [F4],
    pub(super) g: usize,
    /// The skeleton's joint 0 carries root motion: the pose keeps it at the identity (the game moves the
    /// character instead).
    pub(super) motion_root: bool,
}

impl Frame<'_, '_> {
    /// The layer stack's pose for `controls` (their state before the step when `before`) and `layers` into
    /// `out`.
    pub(super) fn evaluate(
        &mut self,
        controls: &[Slot],
        before: bool,
        layers: &[LayerState],
        out: &mut [SoaTransform],
    ) -> Result<(), Error> {
        let g = self.g;
        let rest = self.asset.skeleton().rest_pose();
        for (l, layer) in layers.iter().enumerate() {
            let slots = &controls[layer.first_control as usize..(layer.first_control + layer.num_controls) as usize];
            let kind = LayerKind::from_u32(layer.kind).ok_or(Error::StateMismatch)?;
            let first = layer.first_control as usize;
            if l == 0 {
                self.blend(first, slots, before, self.samples.len(), Some(&mut *out))?;
                continue;
            }
            let active = slots.iter().filter_map(|s| s.playing(before)).count();
            if layer.is_silent() || active == 0 {
                continue;
            }
            if kind.is_additive() {
                for (i, (control, mask)) in slots.iter().enumerate().filter_map(|(i, s)| Some((i, s.playing(before)?)))
                {
                    let (sample, delta) = self.samples.split_at_mut(g);
                    self.contexts.sample(self.asset, first + i, &control, sample)?;
                    blending::additive_delta(rest, sample, &mut delta[..g])?;
                    // The control's weight and mask on top of the layer's per-joint weights.
                    self.layer_weights(layer, control.weight(), mask);
                    blending::add_in_place(out, &self.samples[g..2 * g], self.weights)?;
                }
            } else {
                // The controls blend into the pose after their samples (one unmasked is sampled straight there).
                let at = layer.num_controls as usize;
                self.blend(first, slots, before, at, None)?;
                self.layer_weights(layer, 1.0, NONE);
                blending::overlay_in_place(out, &self.samples[at * g..][..g], self.weights)?;
            }
        }
        if self.motion_root {
            out[0].set(0, &Transform::IDENTITY);
        }
        Ok(())
    }

    /// Per-joint weights into `self.weights`: `layer`'s mask times its fade at each joint's profile factor,
    /// times `scale` and mask `control_mask` (a control's weight and mask, or 1 and `NONE`).
    pub(super) fn layer_weights(&mut self, layer: &LayerState, scale: f32, control_mask: u32) {
        let g = self.g;
        let slice = |index: u32| (index != NONE).then(|| &self.masks[index as usize * g..][..g]);
        let (mask, profile, control_mask) = (slice(layer.mask), slice(layer.profile), slice(control_mask));
        let nominal = F4::splat(layer.weight_at(1.0) * scale);
        for (k, out) in self.weights.iter_mut().enumerate() {
            let mut w = match profile {
                None => nominal,
                Some(p) => {
                    let p = p[k].to_array();
                    F4::from_array(core::array::from_fn(|lane| layer.weight_at(p[lane]) * scale))
                }
            };
            if let Some(m) = mask {
                w = w * m[k];
            }
            if let Some(m) = control_mask {
                w = w * m[k];
            }
            *out = w;
        }
    }

    /// The normalized blend of the active controls in `slots` (slot `first` onward) into `out`, or into scratch
    /// pose `at` when `out` is `None`; the controls are sampled into the scratch poses before `at`. The rest
    /// pose when none is active.
    pub(super) fn blend(
        &mut self,
        first: usize,
        slots: &[Slot],
        before: bool,
        at: usize,
        out: Option<&mut [SoaTransform]>,
    ) -> Result<(), Error> {
        let g = self.g;
        let skeleton = self.asset.skeleton();
        let (inputs, tail) = self.samples.split_at_mut((at * g).min(self.samples.len()));
        let out = match out {
            Some(out) => out,
            None => tail.get_mut(..g).ok_or(Error::StateMismatch)?,
        };
        let active = slots.iter().enumerate().filter_map(|(i, s)| Some((first + i, s.playing(before)?)));
        let Some((only_slot, (only, only_mask))) = active.clone().next() else {
            out.copy_from_slice(skeleton.rest_pose());
            return Ok(());
        };
        // One unmasked control with weight enough to need no rest pose: its pose as sampled.
        if active.clone().count() == 1 && only_mask == NONE && only.weight() >= DEFAULT_THRESHOLD {
            return self.contexts.sample(self.asset, only_slot, &only, out);
        }
        for (k, (slot, (control, _))) in active.clone().enumerate() {
            self.contexts.sample(self.asset, slot, &control, &mut inputs[k * g..][..g])?;
        }
        let mut layers = heapless::Vec::<BlendLayer<'_>, { blending::MAX_LAYERS }>::new();
        for (k, (_, (control, mask))) in active.enumerate() {
            let joint_weights = (mask != NONE).then(|| &self.masks[mask as usize * g..][..g]);
            let layer = BlendLayer { pose: &inputs[k * g..][..g], weight: control.weight(), joint_weights };
            layers.push(layer).map_err(|_| Error::StateMismatch)?;
        }
        BlendingJob { skeleton, layers: &layers, additive: &[], threshold: DEFAULT_THRESHOLD, output: out }.run()
    }
}

/// Samples `control`'s clip at its time into `out`.
pub(super) fn sample_into(
    asset: &Asset<'_>,
    context: &mut SamplingContext<'_>,
    control: &Control,
    out: &mut [SoaTransform],
) -> Result<(), Error> {
    let index = control.clip() as usize;
    let clip = asset.clip(index).ok_or(Error::ForeignAsset { clip: index })?;
    // The control already wrapped the time; clamping keeps a ping-pong or clamped end at the last frame.
    SamplingJob {
        skeleton: asset.skeleton(),
        clip: &clip,
        time: control.time(),
        playback: Playback::Clamp,
        context,
        output: out,
        curves: &mut [],
    }
    .run()
}

/// The base layer's root motion over one update: each playing control's step motion, weighted by its weight
/// (normalized; none when the weights sum below the blend threshold).
pub(super) fn base_motion(asset: &Asset<'_>, steps: &[Option<(Step, u32, f32)>]) -> RootMotion {
    let rest = &asset.skeleton().rest_pose()[0];
    let (mut sum, mut total) = ((0.0f32, 0.0f32, 0.0f32, 0.0f32), 0.0f32);
    for &(step, clip, weight) in steps.iter().flatten().filter(|(_, _, w)| *w > 0.0) {
        let Some(clip) = asset.clip(clip as usize) else { continue };
        let m = root_motion::step_motion(&clip, rest, &step);
        let t = m.translation;
        sum = (sum.0 + weight * t.x, sum.1 + weight * t.y, sum.2 + weight * t.z, sum.3 + weight * m.yaw);
        total += weight;
    }
    if total < DEFAULT_THRESHOLD {
        return RootMotion::IDENTITY;
    }
    let (x, y, z, yaw) = (sum.0 / total, sum.1 / total, sum.2 / total, sum.3 / total);
    RootMotion { translation: Vec3::new(x, y, z), yaw }
}

/// Several requests before one update: the shortest wins, as in the inertializer.
pub(super) fn pending_duration(pending: f32, duration: f32) -> f32 {
    if pending > 0.0 { pending.min(duration) } else { duration }
}

/// The root motion with an inertialized transition's velocity jump removed: at the transition the root's
/// velocity (translation and yaw per second, in the character's space) is offset by what it was before minus
/// what the new controls give, and the offset decays to 0 over the transition's duration along the quintic with
/// zero slope and curvature at both ends, `(1 − τ)³ (1 + 3τ + 6τ²)`. The root thus keeps its velocity through
/// the switch instead of a position offset jumping (Gears of War 4's inertialization applied to the motion).
pub(super) fn smooth_root_motion(header: &mut Header, raw: RootMotion, dt: f32) -> RootMotion {
    if dt <= 0.0 {
        return raw;
    }
    let scaled = |m: RootMotion, k: f32| RootMotion { translation: m.translation.scaled(k), yaw: m.yaw * k };
    let sum =
        |a: RootMotion, b: RootMotion| RootMotion { translation: a.translation + b.translation, yaw: a.yaw + b.yaw };
    if header.root_pending > 0.0 {
        header.root_offset = sum(header.root_velocity, scaled(raw, -1.0 / dt));
        header.root_blend = [0.0, header.root_pending];
        header.root_pending = 0.0;
    }
    let [elapsed, duration] = header.root_blend;
    let mut out = raw;
    if elapsed < duration {
        let elapsed = (elapsed + dt).min(duration);
        header.root_blend[0] = elapsed;
        let tau = elapsed / duration;
        let decay = (1.0 - tau) * (1.0 - tau) * (1.0 - tau) * (1.0 + 3.0 * tau + 6.0 * tau * tau);
        out = sum(raw, scaled(header.root_offset, decay * dt));
    }
    header.root_velocity = scaled(out, 1.0 / dt);
    out
}

/// The base control with the most weight (the first of equals), which synced layers follow.
pub(super) fn kind_of(layer: &LayerState) -> LayerKind {
    LayerKind::from_u32(layer.kind).unwrap_or(LayerKind::Base)
}

pub(super) fn base_leader(controls: &[Slot], base: &LayerState) -> Option<usize> {
    let range = base.first_control as usize..(base.first_control + base.num_controls) as usize;
    range.filter(|&i| controls[i].used != 0).fold(None, |best: Option<usize>, i| match best {
        Some(b) if controls[b].control.weight() >= controls[i].control.weight() => Some(b),
        _ => Some(i),
    })
}

pub(super) fn new_control(asset: &Asset<'_>, counts: &Counts, play: Play) -> Result<Control, Error> {
    check_len(Buffer::ClipJoints, counts.joints, asset.skeleton().num_joints())?;
    let clip = asset.clip(play.clip).ok_or(Error::IndexOutOfRange {
        what: Index::Clip,
        index: play.clip,
        len: asset.num_clips(),
    })?;
    Control::new(play.clip as u32, clip.duration(), play.wrap, play.time, play.speed, play.weight)
}

pub(super) fn mask_index(mask: Option<usize>, counts: &Counts) -> Result<u32, Error> {
    match mask {
        None => Ok(NONE),
        Some(m) if m < counts.masks => Ok(m as u32),
        Some(m) => Err(Error::IndexOutOfRange { what: Index::Mask, index: m, len: counts.masks }),
    }
}

/// The smallest factor a mask used as a fade profile may hold: a fade of any duration then ends.
pub(super) const MIN_PROFILE_FACTOR: f32 = f32::MIN_POSITIVE;

/// The largest factor over the real joints.
pub(super) fn max_factor(factors: &[F4], joints: usize) -> f32 {
    (0..joints).map(|j| factors[j / 4].to_array()[j % 4]).fold(0.0, f32::max)
}
