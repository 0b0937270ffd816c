//! IK by interpolation (textbook): the animator's aim poses, each aiming one joint in a known direction, are
//! blended to aim it in the direction the game wants, then the blend is corrected by a few iterations.
//!
//! The poses lie on a grid of angles: yaw (about +Y, from +Z toward +X) and pitch (above the horizontal), both
//! of the aim direction in model space. A fan is a grid with one yaw (a pitch fan) or one pitch (a yaw fan). A
//! direction maps to grid parameters piecewise linearly per axis; the parameters give bilinear weights over the
//! four poses around them, and [`BlendingJob`] blends those. Blending poses of a whole skeleton does not turn
//! the aim joint linearly (the source's "inexact" aim), so each iteration measures the direction the blend
//! achieved (local-to-model, the joint's `forward` axis) and moves the parameters by the difference between the
//! wanted direction's parameters and the achieved one's, the source's correction, refined into Broyden's secant
//! method so the yaw–pitch cross-talk is learnt from the steps taken. Iteration 0 is the plain blend.
//!
//! Layout: poses, output SoA (`num_soa_joints` lane groups); model matrices AoS, one per joint. Space: local
//! poses, model-space directions and angles. Units: radians.
//!
//! Errors: see [`AimBlendJob::validate`]. Precision: `f32`; each iteration costs a blend of up to four poses
//! and one local-to-model pass. Angles are not unwrapped: yaw grids lie inside `(−π, π)`, pitch grids inside
//! `[−π/2, π/2]`, and a direction behind the yaw grid's ends is clamped to them.
//!
//! [`BlendingJob`]: crate::stages::blending::BlendingJob

use crate::data::skeleton::Skeleton;
use crate::error::{Buffer, Error};
use crate::math::{Mat4, SoaTransform, Vec3};
use crate::stages::blending::{BlendLayer, BlendingJob};
use crate::stages::local_to_model::LocalToModelJob;
use core::f32::consts::{FRAC_PI_2, PI};

/// Yaw and pitch of a model-space direction: `[atan2(x, z), asin(y / |d|)]`, radians; `None` for a zero or
/// non-finite direction.
pub fn aim_angles(direction: Vec3) -> Option<[f32; 2]> {
    let length = direction.length();
    if !(length.is_finite() && length > 0.0) {
        return None;
    }
    let pitch = libm::asinf((direction.y / length).clamp(-1.0, 1.0));
    Some([libm::atan2f(direction.x, direction.z), pitch])
}

/// Aim poses on a grid: pose `p * yaws.len() + y` aims at yaw `yaws[y]` and pitch `pitches[p]` (measured
/// once, for instance with [`aim_angles`] of the joint's forward axis in each pose's model matrices).
#[derive(Clone, Copy, Debug)]
pub struct AimPoses<'a> {
    /// The poses, `yaws.len() * pitches.len()` of them, each `num_soa_joints` lane groups.
    pub poses: &'a [&'a [SoaTransform]],
    /// Yaws, strictly increasing, inside `(−π, π)`; one entry for a pitch fan.
    pub yaws: &'a [f32],
    /// Pitches, strictly increasing, inside `[−π/2, π/2]`; one entry for a yaw fan.
    pub pitches: &'a [f32],
}

impl AimPoses<'_> {
    /// The grid parameters of `angles`: per axis, the fractional index of the angle among the axis' angles,
    /// clamped to the grid (0 on an axis of one entry).
    fn parameters(&self, [yaw, pitch]: [f32; 2]) -> [f32; 2] {
        [axis_parameter(self.yaws, yaw), axis_parameter(self.pitches, pitch)]
    }

    /// The corner poses around `parameters` and their bilinear weights (corners of zero weight included).
    fn corners(&self, [u, v]: [f32; 2]) -> [(usize, f32); 4] {
        let (y0, fu) = cell(self.yaws.len(), u);
        let (p0, fv) = cell(self.pitches.len(), v);
        let width = self.yaws.len();
        let (y1, p1) = ((y0 + 1).min(width - 1), (p0 + 1).min(self.pitches.len() - 1));
        [
            (p0 * width + y0, (1.0 - fu) * (1.0 - fv)),
            (p0 * width + y1, fu * (1.0 - fv)),
            (p1 * width + y0, (1.0 - fu) * fv),
            (p1 * width + y1, fu * fv),
        ]
    }
}

/// The fractional index of `angle` among increasing `angles`, clamped to `[0, len − 1]`.
fn axis_parameter(angles: &[f32], angle: f32) -> f32 {
    if angles.len() < 2 {
        return 0.0;
    }
    let above = angles.partition_point(|&a| a <= angle).clamp(1, angles.len() - 1);
    let (a, b) = (angles[above - 1], angles[above]);
    ((above - 1) as f32 + (angle - a) / (b - a)).clamp(0.0, (angles.len() - 1) as f32)
}

/// The cell a parameter lies in on an axis of `len` entries, and the fraction across it.
fn cell(len: usize, parameter: f32) -> (usize, f32) {
    if len < 2 {
        return (0, 0.0);
    }
    let first = (parameter as usize).min(len - 2);
    (first, (parameter - first as f32).clamp(0.0, 1.0))
}

fn sub(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

/// `x` with `j x = r`, or `None` when `j` is (nearly) singular.
fn solve(j: [[f32; 2]; 2], r: [f32; 2]) -> Option<[f32; 2]> {
    let det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
    let scale = j.iter().flatten().fold(0.0f32, |m, v| m.max(v.abs()));
    // NaN fails the comparison too.
    if det.abs() <= 1e-6 * scale * scale || det.is_nan() {
        return None;
    }
    Some([(j[1][1] * r[0] - j[0][1] * r[1]) / det, (j[0][0] * r[1] - j[1][0] * r[0]) / det])
}

/// Broyden's rank-one update: the estimate `j` made to map the last step `dp` onto the change `dr` it caused.
fn broyden_update(j: &mut [[f32; 2]; 2], dp: [f32; 2], dr: [f32; 2]) {
    let length = dp[0] * dp[0] + dp[1] * dp[1];
    if length <= 1e-12 || length.is_nan() {
        return;
    }
    for (row, &d) in j.iter_mut().zip(&dr) {
        let miss = d - (row[0] * dp[0] + row[1] * dp[1]);
        row[0] += miss * dp[0] / length;
        row[1] += miss * dp[1] / length;
    }
}

/// What an [`AimBlendJob`] reached.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AimBlendResult {
    /// The grid parameters of the output pose (fractional yaw and pitch indices).
    pub parameters: [f32; 2],
    /// The four corner poses blended and their weights (zero weights included), in `AimPoses::poses` order.
    pub corners: [(usize, f32); 4],
    /// The direction the aim joint's `forward` axis points in the output pose, model space, unit length.
    pub achieved: Vec3,
    /// The angle between `achieved` and the wanted direction, radians.
    pub error: f32,
}

/// Blends aim poses to aim `joint` in `direction` (ozz's job pattern: borrowed buffers in public fields,
/// `validate`, then `run`).
#[derive(Debug)]
pub struct AimBlendJob<'a> {
    /// The skeleton the poses are of.
    pub skeleton: &'a Skeleton<'a>,
    /// The aim poses and their grid.
    pub poses: AimPoses<'a>,
    /// The joint that aims (a head, a gun bone).
    pub joint: usize,
    /// Its aim axis in its own frame (any length but zero).
    pub forward: Vec3,
    /// The direction to aim in, model space (any length but zero).
    pub direction: Vec3,
    /// Secant corrections after the plain blend, at most `limits::MAX_AIM_ITERATIONS`; 0 is the blend alone,
    /// 2 or 3 usually converge.
    pub iterations: u32,
    /// The blended pose, `num_soa_joints` lane groups.
    pub output: &'a mut [SoaTransform],
    /// The output pose's model matrices, `num_joints` of them (scratch while iterating).
    pub model: &'a mut [Mat4],
}

impl AimBlendJob<'_> {
    /// O(poses) checks.
    ///
    /// Errors: `InvalidAimPoses` for fewer than two poses, a pose count other than `yaws.len() *
    /// pitches.len()`, a yaw or pitch not finite, not strictly increasing or outside its range;
    /// `BufferLength` (`SoaPose`) for a pose or output of another length, (`ModelMatrices`) for the model
    /// buffer; `IndexOutOfRange` for the joint; `InvalidIkTarget` for a zero or non-finite `forward` or
    /// `direction`; `Limit` (`AimIterations`) for more iterations than `limits::MAX_AIM_ITERATIONS`.
    pub fn validate(&self) -> Result<(), Error> {
        let AimPoses { poses, yaws, pitches } = self.poses;
        let axis = |angles: &[f32], limit: f32, open: bool| {
            let inside = |a: &f32| a.is_finite() && if open { a.abs() < limit } else { a.abs() <= limit };
            !angles.is_empty() && angles.iter().all(inside) && angles.windows(2).all(|w| w[0] < w[1])
        };
        let count = yaws.len().checked_mul(pitches.len());
        if poses.len() < 2 || count != Some(poses.len()) || !axis(yaws, PI, true) || !axis(pitches, FRAC_PI_2, false) {
            return Err(Error::InvalidAimPoses);
        }
        let n = self.skeleton.num_soa_joints();
        for pose in poses {
            crate::error::check_len(Buffer::SoaPose, n, pose.len())?;
        }
        crate::error::check_len(Buffer::SoaPose, n, self.output.len())?;
        crate::error::check_len(Buffer::ModelMatrices, self.skeleton.num_joints(), self.model.len())?;
        if self.joint >= self.skeleton.num_joints() {
            return Err(Error::IndexOutOfRange {
                what: crate::error::Index::Joint,
                index: self.joint,
                len: self.skeleton.num_joints(),
            });
        }
        if aim_angles(self.forward).is_none() || aim_angles(self.direction).is_none() {
            return Err(Error::InvalidIkTarget);
        }
        let (value, max) = (self.iterations as usize, crate::limits::MAX_AIM_ITERATIONS);
        if value > max {
            return Err(Error::Limit { what: crate::error::Limit::AimIterations, value, max });
        }
        Ok(())
    }

    /// Blends, measures and corrects `iterations` times; writes the last blend and its model matrices.
    pub fn run(&mut self) -> Result<AimBlendResult, Error> {
        self.validate()?;
        let wanted = self.direction.scaled(1.0 / self.direction.length());
        // `validate` checked the direction.
        let goal = self.poses.parameters(aim_angles(wanted).unwrap_or([0.0; 2]));
        let limits = [self.poses.yaws.len(), self.poses.pitches.len()].map(|n| (n - 1) as f32);
        let mut parameters = goal;
        // Broyden's secant method on `parameters → parameters of the achieved direction`: the first step
        // assumes the blend aims where its parameters say (the identity), and each step corrects that guess by
        // the last step's outcome, so the cross-talk between yaw and pitch is learnt as well.
        let mut jacobian = [[1.0f32, 0.0], [0.0, 1.0]];
        let mut last: Option<([f32; 2], [f32; 2])> = None;
        let mut k = 0;
        loop {
            let (corners, achieved) = self.blend(parameters)?;
            // atan2 of the cross and dot products keeps small angles exact, where acos of the dot loses them.
            let error = libm::atan2f(achieved.cross(wanted).length(), achieved.dot(wanted));
            if k == self.iterations {
                return Ok(AimBlendResult { parameters, corners, achieved, error });
            }
            k += 1;
            // A degenerate forward axis (zero after the blend) leaves the parameters where they are.
            let Some(angles) = aim_angles(achieved) else { continue };
            let reached = self.poses.parameters(angles);
            let residual = [reached[0] - goal[0], reached[1] - goal[1]];
            if let Some((before, residual_before)) = last {
                broyden_update(&mut jacobian, sub(parameters, before), sub(residual, residual_before));
            }
            last = Some((parameters, residual));
            let step = solve(jacobian, residual).unwrap_or(residual);
            for axis in 0..2 {
                parameters[axis] = (parameters[axis] - step[axis]).clamp(0.0, limits[axis]);
            }
        }
    }

    /// The blend at `parameters` into the output and its model matrices; returns the corners and the
    /// direction the joint's forward axis reached (unit length, or zero when it collapsed).
    fn blend(&mut self, parameters: [f32; 2]) -> Result<([(usize, f32); 4], Vec3), Error> {
        let corners = self.poses.corners(parameters);
        let layer =
            |(pose, weight): (usize, f32)| BlendLayer { pose: self.poses.poses[pose], weight, joint_weights: None };
        let layers = corners.map(layer);
        BlendingJob { skeleton: self.skeleton, layers: &layers, additive: &[], threshold: 0.1, output: self.output }
            .run()?;
        LocalToModelJob { skeleton: self.skeleton, walk: None, local: self.output, root: None, model: self.model }
            .run()?;
        let axis = self.model[self.joint].transform_vector(self.forward);
        let length = axis.length();
        Ok((corners, if length > 0.0 && length.is_finite() { axis.scaled(1.0 / length) } else { Vec3::ZERO }))
    }
}
