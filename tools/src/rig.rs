//! A deterministic procedural humanoid: the embedded default rig of the profiler and benches.
//!
//! Any joint count from 22 to 1024. The first 22 joints are a game humanoid (root, hips, spine, chest, neck,
//! head, shoulders, arms, hands, legs, feet, toes); more joints are added in the order a production rig grows:
//! fingers, twist joints, face, toes, then secondary chains (hair, cloth, straps) hung from the head, chest,
//! hips and limbs. Chains are clipped so no joint is deeper than `MAX_DEPTH`. Units: metres, Y up, +Z forward.
//! Joints are stored depth-first (children right after their parent, as BVH and most DCC exports do).

use sinew::math::{Mat3x4, Mat4, Quat, SoaTransform, Transform, Vec3, num_soa_joints, pack_soa};

/// Smallest and largest joint counts the generator accepts.
pub const MIN_JOINTS: usize = 22;
pub const MAX_JOINTS: usize = sinew::skeleton::MAX_JOINTS;
/// Deepest joint level produced (a root has depth 1).
pub const MAX_DEPTH: usize = 30;

/// A generated rig: hierarchy, rest pose, skin (every joint but the root, as glTF exports usually bind).
#[derive(Clone, Debug)]
pub struct Rig {
    pub names: Vec<String>,
    pub parents: Vec<i16>,
    /// Rest pose, AoS and SoA (identity padding).
    pub rest: Vec<Transform>,
    pub rest_soa: Vec<SoaTransform>,
    /// Skin joint → skeleton joint.
    pub skin_remap: Vec<u16>,
    /// Inverse of each skin joint's rest model matrix.
    pub inverse_bind: Vec<Mat3x4>,
}

struct Builder {
    names: Vec<String>,
    parents: Vec<i16>,
    rest: Vec<Transform>,
    depth: Vec<usize>,
    cap: usize,
}

impl Builder {
    fn full(&self) -> bool {
        self.names.len() >= self.cap
    }

    /// Adds a joint unless the rig is full or too deep there; returns its index.
    fn add(&mut self, name: String, parent: Option<usize>, offset: Vec3) -> Option<usize> {
        let depth = parent.map_or(1, |p| self.depth[p] + 1);
        if self.full() || depth > MAX_DEPTH {
            return None;
        }
        let i = self.names.len();
        // A small, deterministic bend per joint, so rest matrices are not axis-aligned; the root and hips stay
        // upright so the figure stands.
        let axis = Vec3::new(wave(i, 1.3), wave(i, 2.1), wave(i, 0.7));
        let len = (axis.x * axis.x + axis.y * axis.y + axis.z * axis.z).sqrt().max(1e-3);
        let axis = Vec3::new(axis.x / len, axis.y / len, axis.z / len);
        let bend = if i < 2 { 0.0 } else { 0.05 * wave(i, 0.37) };
        let rotation = Quat::from_axis_angle(axis, bend);
        self.names.push(name);
        self.parents.push(parent.map_or(-1, |p| p as i16));
        self.rest.push(Transform { translation: offset, rotation, scale: Vec3::ONE });
        self.depth.push(depth);
        Some(i)
    }

    /// A chain of `len` joints under `parent`, each `step` from the previous.
    fn chain(&mut self, name: &str, parent: usize, len: usize, first: Vec3, step: Vec3) {
        let mut at = parent;
        for k in 0..len {
            let offset = if k == 0 { first } else { step };
            match self.add(format!("{name}{k}"), Some(at), offset) {
                Some(j) => at = j,
                None => return,
            }
        }
    }
}

/// A smooth pseudo-random value in [-1, 1] from an index and a frequency (deterministic everywhere).
fn wave(i: usize, freq: f32) -> f32 {
    (i as f32 * freq + 0.5).sin()
}

fn mirror(v: Vec3, side: f32) -> Vec3 {
    Vec3::new(v.x * side, v.y, v.z)
}

impl Rig {
    /// The humanoid with exactly `num_joints` joints (clamped to `MIN_JOINTS..=MAX_JOINTS`).
    pub fn humanoid(num_joints: usize) -> Rig {
        let cap = num_joints.clamp(MIN_JOINTS, MAX_JOINTS);
        let mut b = Builder { names: vec![], parents: vec![], rest: vec![], depth: vec![], cap };
        let v = Vec3::new;
        let some = |j: Option<usize>| j.unwrap_or(0);
        let root = some(b.add("Root".into(), None, v(0.0, 0.0, 0.0)));
        let hips = some(b.add("Hips".into(), Some(root), v(0.0, 0.95, 0.0)));
        let spine = some(b.add("Spine".into(), Some(hips), v(0.0, 0.10, 0.0)));
        let chest = some(b.add("Chest".into(), Some(spine), v(0.0, 0.15, 0.0)));
        let neck = some(b.add("Neck".into(), Some(chest), v(0.0, 0.25, 0.0)));
        let head = some(b.add("Head".into(), Some(neck), v(0.0, 0.10, 0.0)));
        let mut hands = [0; 2];
        let mut feet = [0; 2];
        let mut limbs = vec![];
        for (s, side, name) in [(0, 1.0, "L"), (1, -1.0, "R")] {
            let shoulder = some(b.add(format!("{name}Shoulder"), Some(chest), mirror(v(0.05, 0.20, 0.0), side)));
            let upper = some(b.add(format!("{name}UpperArm"), Some(shoulder), mirror(v(0.12, 0.0, 0.0), side)));
            let lower = some(b.add(format!("{name}LowerArm"), Some(upper), mirror(v(0.28, 0.0, 0.0), side)));
            hands[s] = some(b.add(format!("{name}Hand"), Some(lower), mirror(v(0.25, 0.0, 0.0), side)));
            limbs.extend([upper, lower]);
        }
        for (s, side, name) in [(0, 1.0, "L"), (1, -1.0, "R")] {
            let up = some(b.add(format!("{name}UpLeg"), Some(hips), mirror(v(0.09, -0.05, 0.0), side)));
            let leg = some(b.add(format!("{name}Leg"), Some(up), v(0.0, -0.42, 0.0)));
            feet[s] = some(b.add(format!("{name}Foot"), Some(leg), v(0.0, -0.40, 0.0)));
            b.add(format!("{name}Toe"), Some(feet[s]), v(0.0, -0.05, 0.12));
            limbs.extend([up, leg]);
        }
        // Fingers: five per hand, three joints each.
        for (s, side) in [(0, 1.0), (1, -1.0)] {
            for f in 0..5 {
                let spread = (f as f32 - 2.0) * 0.02;
                b.chain(
                    &format!("{}Finger{f}_", ["L", "R"][s]),
                    hands[s],
                    3,
                    mirror(v(0.08, 0.0, spread), side),
                    mirror(v(0.03, 0.0, 0.0), side),
                );
            }
        }
        // Twist joints halfway along each long bone.
        for (k, &limb) in limbs.iter().enumerate() {
            b.add(format!("Twist{k}"), Some(limb), v(0.0, -0.1, 0.0));
        }
        // Face: jaw, tongue, eyes, lids, brows, lips, cheeks.
        let jaw = b.add("Jaw".into(), Some(head), v(0.0, -0.03, 0.06));
        if let Some(jaw) = jaw {
            b.chain("Tongue", jaw, 3, v(0.0, 0.01, 0.02), v(0.0, 0.0, 0.015));
        }
        for (k, off) in [(0, v(0.03, 0.05, 0.08)), (1, v(-0.03, 0.05, 0.08))] {
            if let Some(eye) = b.add(format!("Eye{k}"), Some(head), off) {
                b.add(format!("LidUp{k}"), Some(eye), v(0.0, 0.01, 0.01));
                b.add(format!("LidLow{k}"), Some(eye), v(0.0, -0.01, 0.01));
            }
        }
        for k in 0..6 {
            b.add(format!("Face{k}"), Some(head), v(0.02 * (k as f32 - 2.5), 0.02 * (k % 3) as f32, 0.09));
        }
        // Toes: five per foot, two joints each.
        for s in 0..2 {
            for t in 0..5 {
                let side = [1.0, -1.0][s];
                b.chain(
                    &format!("{}Toe{t}_", ["L", "R"][s]),
                    feet[s],
                    2,
                    mirror(v(0.02 * t as f32 - 0.04, -0.05, 0.14), side),
                    v(0.0, 0.0, 0.02),
                );
            }
        }
        // Secondary chains until full, each clipped by the depth limit.
        let anchors = [head, chest, hips, spine, hands[0], hands[1], neck];
        let mut k = 0;
        while !b.full() {
            let anchor = anchors[k % anchors.len()];
            let len = 4 + (k * 7) % 13;
            let dir = v(wave(k, 0.9) * 0.05, -0.06, wave(k, 1.7) * 0.05);
            b.chain(&format!("Chain{k}_"), anchor, len, dir, dir);
            k += 1;
        }
        Rig::finish(b)
    }

    fn finish(b: Builder) -> Rig {
        // Depth-first order: children follow their parent, in creation order.
        let n = b.names.len();
        let mut children = vec![vec![]; n];
        for (j, &p) in b.parents.iter().enumerate().skip(1) {
            children[p as usize].push(j);
        }
        let mut order = Vec::with_capacity(n);
        let mut stack = vec![0usize];
        while let Some(j) = stack.pop() {
            order.push(j);
            stack.extend(children[j].iter().rev());
        }
        let mut new_index = vec![0usize; n];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        let names: Vec<String> = order.iter().map(|&o| b.names[o].clone()).collect();
        let parents: Vec<i16> = order
            .iter()
            .map(|&o| if b.parents[o] < 0 { -1 } else { new_index[b.parents[o] as usize] as i16 })
            .collect();
        let rest: Vec<Transform> = order.iter().map(|&o| b.rest[o]).collect();
        let mut rest_soa = vec![SoaTransform::IDENTITY; num_soa_joints(n)];
        pack_soa(&rest, &mut rest_soa).expect("sized by num_soa_joints");
        let skin_remap: Vec<u16> = (1..n as u16).collect();
        let all_inverse_binds = inverse_bind_of_rest(&parents, &rest);
        let inverse_bind = skin_remap.iter().map(|&j| all_inverse_binds[j as usize]).collect();
        Rig { names, parents, rest, rest_soa, skin_remap, inverse_bind }
    }

    pub fn num_joints(&self) -> usize {
        self.parents.len()
    }

    /// The rig as a validated runtime skeleton (borrowing this rig).
    pub fn skeleton(&self) -> sinew::Skeleton<'_> {
        sinew::Skeleton::new(&self.parents, &self.rest_soa, None).expect("generated rigs are valid by construction")
    }

    /// The skin (borrowing this rig).
    pub fn skin(&self) -> sinew::Skin<'_> {
        sinew::Skin::new(self.num_joints(), &self.skin_remap, &self.inverse_bind).expect("generated skins are valid")
    }

    /// `count` animated local poses: every joint swings about its own axis, the hips bob. Deterministic.
    pub fn poses(&self, count: usize) -> Vec<Vec<Transform>> {
        (0..count)
            .map(|f| {
                let phase = f as f32 * 0.35;
                self.rest
                    .iter()
                    .enumerate()
                    .map(|(j, rest)| {
                        let axis = Vec3::new(wave(j, 0.61), wave(j, 1.13), wave(j, 1.97));
                        let len = (axis.x * axis.x + axis.y * axis.y + axis.z * axis.z).sqrt().max(1e-3);
                        let axis = Vec3::new(axis.x / len, axis.y / len, axis.z / len);
                        let swing = Quat::from_axis_angle(axis, 0.4 * (phase + j as f32 * 0.5).sin());
                        let mut t = Transform { rotation: rest.rotation * swing, ..*rest };
                        if j == 1 {
                            t.translation.y += 0.03 * (2.0 * phase).sin();
                        }
                        t
                    })
                    .collect()
            })
            .collect()
    }

    /// The rig as importer output, for baking.
    pub fn raw_skeleton(&self) -> crate::raw::RawSkeleton {
        crate::raw::RawSkeleton { names: self.names.clone(), parents: self.parents.clone(), rest: self.rest.clone() }
    }

    /// A looping clip of `frames` frames at `sample_rate`: the `poses` animation (every rotation animated, the
    /// hips' translation animated, everything else at rest), as a real clip elides it.
    pub fn clip(&self, frames: usize, sample_rate: f32) -> crate::raw::RawClip {
        crate::raw::RawClip {
            name: "procedural".into(),
            sample_rate,
            frames: self.poses(frames),
            step: crate::raw::StepKeys::None,
        }
    }

    /// Depth of the deepest joint.
    pub fn max_depth(&self) -> usize {
        self.skeleton().max_depth()
    }

    /// An aim pose for IK by interpolation: the rest pose with `joints` (a spine, by name) each turned by an
    /// equal share of `yaw` (about model +Y) after an equal share of `pitch` (up, about model −X), radians.
    /// Each share is the model-space turn seen from the joint's parent at rest, so the shares add up along the
    /// chain whatever the rest rotations. `None` when a joint is missing.
    pub fn aim_pose(&self, joints: &[&str], yaw: f32, pitch: f32) -> Option<Vec<Transform>> {
        let at_rest = |mut j: i16| {
            let mut q = Quat::IDENTITY;
            while j >= 0 {
                q = self.rest[j as usize].rotation * q;
                j = self.parents[j as usize];
            }
            q
        };
        let share = 1.0 / joints.len() as f32;
        let turn = Quat::from_axis_angle(Vec3::new(0.0, 1.0, 0.0), yaw * share)
            * Quat::from_axis_angle(Vec3::new(-1.0, 0.0, 0.0), pitch * share);
        let mut pose = self.rest.clone();
        for name in joints {
            let j = self.names.iter().position(|n| n == name)?;
            let parent = at_rest(self.parents[j]);
            pose[j].rotation = parent.conjugate() * turn * parent * self.rest[j].rotation;
        }
        Some(pose)
    }
}

/// The procedural rig's legs, hip–knee–ankle, left then right, by `find` (a joint's index by name: the rig's
/// own names, or a baked skeleton's); `None` when a joint is missing.
pub fn leg_chains(find: impl Fn(&str) -> Option<usize>) -> Option<[[usize; 3]; 2]> {
    let leg = |side: &str| {
        Some([find(&format!("{side}UpLeg"))?, find(&format!("{side}Leg"))?, find(&format!("{side}Foot"))?])
    };
    Some([leg("L")?, leg("R")?])
}

/// Inverse bind matrix of every joint: the inverse of its rest model matrix (glam, f32), as a skin bound at
/// the rest pose has.
pub fn inverse_bind_of_rest(parents: &[i16], rest: &[Transform]) -> Vec<Mat3x4> {
    let mut model: Vec<glam::Mat4> = Vec::with_capacity(parents.len());
    for (j, t) in rest.iter().enumerate() {
        let m = crate::glam_pose::trs(t);
        model.push(if parents[j] < 0 { m } else { model[parents[j] as usize] * m });
    }
    model
        .iter()
        .map(|m| {
            let mut inv = Mat4 { cols: m.inverse().to_cols_array_2d() };
            // An inverse of an affine matrix is affine; pin the last row against rounding.
            (inv.cols[0][3], inv.cols[1][3], inv.cols[2][3], inv.cols[3][3]) = (0.0, 0.0, 0.0, 1.0);
            Mat3x4::from_affine(&inv).expect("last row pinned above")
        })
        .collect()
}
