//! Mirrored copies of clips (`sinew-bake bake --mirror`): each take played as its mirror image, left and right
//! swapped, baked as a clip of its own (`<name>.mirror`), so a motion database holds both sides of every turn and
//! step (Holden's demo mirrors its database the same way).
//!
//! **Pairs.** Each joint's partner is found by name (`crate::annotate::side`: `Left`/`Right`, `_L`/`_R`,
//! `.L`/`.R`, `L_`/`R_`, ` L `/` R `, `LFoot`/`RFoot`) or given (`--mirror-pair LEFT,RIGHT`); a joint without
//! one is its own (the spine, the head). A partner's parent must be the parent's partner.
//!
//! **The mirror.** The world is reflected across its `x = 0` plane (`S_w`; the characters face +Z). The rest
//! pose gives each joint's frame its meaning: a reflection `S_r` of the joints' own frames and, per joint, the
//! rotation `C_j` from its partner's reflected rest frame to its own (`(S_r R_p S_r)⁻¹ R_j`, `R` the rest model
//! rotations), times the half turn about x, y or z that some rigs mirror their joint axes by. `S_r` and the half
//! turns are chosen so the children's rest offsets land where the mirror puts them (a rest pose need not be a
//! symmetric pose: a BVH's is often not). A joint's model rotation becomes `S_w R_p S_r C_j`, so in local terms
//! `r'_j = C_parent⁻¹ (S_r r_p S_r) C_j` and `t'_j = C_parent⁻¹ S_r t_p` (a root: `S_w r_p S_r C_j` and
//! `S_w t_p`); scales are the partner's. Model positions come out as the source's reflected (`P'_j = S_w P_p`)
//! whatever the corrections; the rest offsets are kept, and mirroring twice gives the source back.
//!
//! Precision: f64, stored as `f32`. Exact for uniform scales (a non-uniform scale under a turned `C` is copied,
//! not turned). Errors: a pair naming a joint the skeleton lacks, a pair breaking the hierarchy, no pairs at all,
//! rest offsets that no correction mirrors within 1 cm on the figure scaled to 1.7 m (the message names the
//! worst joint).

use crate::annotate::FigureScale;
use crate::dmath::Trs;
use crate::raw::{RawAnnotations, RawClip, RawSkeleton};
use glam::{DQuat, DVec3};

/// The suffix of a mirrored clip's name.
pub const MIRROR_SUFFIX: &str = ".mirror";

/// Each joint's partner: by name, then `given` (`(left, right)` names) on top.
pub fn partners(skeleton: &RawSkeleton, given: &[(String, String)]) -> Result<Vec<usize>, String> {
    let find = |name: &str| skeleton.names.iter().position(|n| n == name);
    let mut partner: Vec<usize> = (0..skeleton.names.len())
        .map(|j| crate::annotate::other_side(&skeleton.names[j]).and_then(|other| find(&other)).unwrap_or(j))
        .collect();
    for (left, right) in given {
        let joint = |name: &str| find(name).ok_or(format!("--mirror-pair: no joint named `{name}`"));
        let (l, r) = (joint(left)?, joint(right)?);
        (partner[l], partner[r]) = (r, l);
    }
    if let Some(j) = (0..partner.len()).find(|&j| partner[partner[j]] != j) {
        let name = |j: usize| &skeleton.names[j];
        return Err(format!("mirror: `{}` pairs with `{}`, which pairs with another joint", name(j), name(partner[j])));
    }
    if partner.iter().enumerate().all(|(j, &p)| j == p) {
        return Err("mirror: no left and right joints found by name; give them with --mirror-pair LEFT,RIGHT".into());
    }
    for (j, &p) in partner.iter().enumerate() {
        let parent = |j: usize| usize::try_from(skeleton.parents[j]).ok();
        if parent(p) != parent(j).map(|q| partner[q]) {
            return Err(format!(
                "mirror: `{}` and `{}` pair, but their parents do not",
                skeleton.names[j], skeleton.names[p]
            ));
        }
    }
    Ok(partner)
}

/// `q` as its reflection across the plane normal to `axis` sees it: `S q S`.
fn reflected(q: DQuat, axis: usize) -> DQuat {
    let mut v = -q.xyz();
    v[axis] = -v[axis];
    DQuat::from_xyzw(v.x, v.y, v.z, q.w)
}

fn reflect(v: DVec3, axis: usize) -> DVec3 {
    let mut v = v;
    v[axis] = -v[axis];
    v
}

/// What the rest pose gives the mirror: its symmetry axis and each joint's correction `C_j`.
struct RestFrames {
    axis: usize,
    correction: Vec<DQuat>,
}

/// The world's mirror axis: x.
const WORLD_AXIS: usize = 0;

/// The half turns a joint's correction may add to the rest frames' (the conventions rigs mirror their joint
/// axes by), in the order ties are settled.
const HALF_TURNS: [DQuat; 4] = [
    DQuat::IDENTITY,
    DQuat::from_xyzw(1.0, 0.0, 0.0, 0.0),
    DQuat::from_xyzw(0.0, 1.0, 0.0, 0.0),
    DQuat::from_xyzw(0.0, 0.0, 1.0, 0.0),
];

/// The rest pose's mirror frames; `scale` is the figure's, the unit of its symmetry tolerance.
fn rest_frames(skeleton: &RawSkeleton, scale: FigureScale, partner: &[usize]) -> Result<RestFrames, String> {
    let rest: Vec<Trs> = skeleton.rest.iter().map(Trs::of).collect();
    let n = rest.len();
    let mut rotations: Vec<DQuat> = Vec::with_capacity(n);
    for (j, t) in rest.iter().enumerate() {
        let parent = usize::try_from(skeleton.parents[j]).map_or(DQuat::IDENTITY, |p| rotations[p]);
        rotations.push((parent * t.rotation).normalize());
    }
    let children: Vec<Vec<usize>> =
        (0..n).map(|j| (0..n).filter(|&c| skeleton.parents[c] == j as i16).collect()).collect();
    // Per symmetry axis, each joint's best correction and how far its children's rest offsets then land from
    // where the mirror puts them.
    let fit = |axis: usize| -> Vec<(DQuat, f64)> {
        (0..n)
            .map(|j| {
                let base = reflected(rotations[partner[j]], axis).inverse() * rotations[j];
                let misfit = |c: DQuat| {
                    let back = c.inverse();
                    children[j]
                        .iter()
                        .map(|&k| (back * reflect(rest[partner[k]].translation, axis) - rest[k].translation).length())
                        .fold(0.0, f64::max)
                };
                HALF_TURNS
                    .iter()
                    .map(|&turn| ((base * turn).normalize(), 0.0))
                    .map(|(c, _)| (c, misfit(c)))
                    .fold((DQuat::IDENTITY, f64::INFINITY), |best, next| if next.1 < best.1 { next } else { best })
            })
            .collect()
    };
    let total = |fits: &[(DQuat, f64)]| fits.iter().map(|f| f.1).sum::<f64>();
    let (axis, fits) = (0..3)
        .map(|axis| (axis, fit(axis)))
        .min_by(|a, b| total(&a.1).total_cmp(&total(&b.1)))
        .ok_or("mirror: no axis")?;
    let per_cm = scale.units_per_cm();
    if let Some(j) = (0..n).filter(|&j| fits[j].1 > per_cm).max_by(|&a, &b| fits[a].1.total_cmp(&fits[b].1)) {
        return Err(format!(
            "mirror: the skeleton is not symmetric: the children of `{}` lie {:.1} cm (on the figure scaled to \
             1.7 m) from its partner's children's mirror images; pair them with --mirror-pair LEFT,RIGHT",
            skeleton.names[j],
            fits[j].1 / per_cm
        ));
    }
    Ok(RestFrames { axis, correction: fits.into_iter().map(|f| f.0).collect() })
}

/// The 180° turn `S_w S_r` (identity when the planes agree).
fn plane_turn(axis: usize) -> DQuat {
    match axis {
        WORLD_AXIS => DQuat::IDENTITY,
        _ => {
            let mut v = DVec3::ZERO;
            v[3 - WORLD_AXIS - axis] = 1.0;
            DQuat::from_xyzw(v.x, v.y, v.z, 0.0)
        }
    }
}

/// `clips` mirrored by `partner` (module docs), each named with [`MIRROR_SUFFIX`]. `scale` is the figure's
/// ([`crate::annotate::figure_scale`] of the skeleton and the clips as imported); the skeleton's symmetry is
/// checked to a centimetre on it.
pub fn mirror_clips(
    skeleton: &RawSkeleton,
    clips: &[RawClip],
    partner: &[usize],
    scale: FigureScale,
) -> Result<Vec<RawClip>, String> {
    let frames = rest_frames(skeleton, scale, partner)?;
    let (axis, c) = (frames.axis, &frames.correction);
    let turn = plane_turn(axis);
    let mirror_pose = |pose: &[sinew::math::Transform]| -> Vec<sinew::math::Transform> {
        (0..pose.len())
            .map(|j| {
                let source = Trs::of(&pose[partner[j]]);
                let (rotation, translation) = match usize::try_from(skeleton.parents[j]) {
                    Ok(parent) => {
                        let back = c[parent].inverse();
                        (back * reflected(source.rotation, axis) * c[j], back * reflect(source.translation, axis))
                    }
                    Err(_) => {
                        (reflected(source.rotation, WORLD_AXIS) * turn * c[j], reflect(source.translation, WORLD_AXIS))
                    }
                };
                Trs { translation, rotation: rotation.normalize(), scale: source.scale }.to_transform()
            })
            .collect()
    };
    Ok(clips
        .iter()
        .map(|clip| RawClip {
            name: format!("{}{MIRROR_SUFFIX}", clip.name),
            frames: clip.frames.iter().map(|pose| mirror_pose(pose)).collect(),
            ..clip.clone()
        })
        .collect())
}

/// `annotations` for the mirrored clip: every marker and range named `kind:JOINT` names the partner instead.
pub fn mirror_annotations(skeleton: &RawSkeleton, annotations: &RawAnnotations, partner: &[usize]) -> RawAnnotations {
    let swap = |name: &str| match name.split_once(':') {
        Some((kind, joint)) => match skeleton.names.iter().position(|n| n == joint) {
            Some(j) => format!("{kind}:{}", skeleton.names[partner[j]]),
            None => name.to_string(),
        },
        None => name.to_string(),
    };
    let mut mirrored = annotations.clone();
    for marker in &mut mirrored.markers {
        marker.name = swap(&marker.name);
    }
    for range in &mut mirrored.ranges {
        range.name = swap(&range.name);
    }
    mirrored
}
