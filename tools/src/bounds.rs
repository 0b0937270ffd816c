//! Joint boxes for `sinew::bounds`, worked out from a skinned mesh: per skin joint, the box in the joint's own
//! space around every vertex it moves, each vertex carried there by the joint's inverse bind matrix.

use crate::gltf_import::GltfSkin;
use sinew::bounds::JointBox;

/// One box per skin joint that moves at least one vertex with a weight above `min_weight`, in skin joint
/// order, each following its skeleton joint (`skin.remap`). A `min_weight` of 0 bounds every vertex the joint
/// moves at all, so the boxes' union holds the whole skinned mesh in every pose; a larger one gives tighter
/// boxes for hit tests, which then may miss the vertices a joint barely moves.
///
/// Errors: no mesh on the skin, a vertex naming a skin joint the skin does not have or not finite in its
/// joint's space, or a `min_weight` that is not a finite number at least 0.
pub fn joint_boxes(skin: &GltfSkin, min_weight: f32) -> Result<Vec<JointBox>, String> {
    if !(min_weight.is_finite() && min_weight >= 0.0) {
        return Err(format!("minimum weight {min_weight}: give a finite number at least 0"));
    }
    let mesh = skin.mesh.as_ref().ok_or("the skin has no mesh to bound")?;
    let mut ranges = vec![None::<([f64; 3], [f64; 3])>; skin.remap.len()];
    for (vertex, ((p, joints), weights)) in mesh.positions.iter().zip(&mesh.joints).zip(&mesh.weights).enumerate() {
        // glTF pads unused influences with weight 0; they move nothing (nor does a NaN weight).
        for (&joint, _) in joints.iter().zip(weights).filter(|&(_, &weight)| weight > min_weight) {
            let (Some(range), Some(inverse_bind)) =
                (ranges.get_mut(joint as usize), skin.inverse_bind.get(joint as usize))
            else {
                return Err(format!("vertex {vertex} names skin joint {joint}; the skin has {}", skin.remap.len()));
            };
            let local: [f64; 3] = std::array::from_fn(|r| {
                let row = inverse_bind.rows[r].map(f64::from);
                row[0] * f64::from(p[0]) + row[1] * f64::from(p[1]) + row[2] * f64::from(p[2]) + row[3]
            });
            if !local.iter().all(|v| v.is_finite()) {
                return Err(format!("vertex {vertex}: not finite in skin joint {joint}'s space"));
            }
            let (lo, hi) = range.get_or_insert((local, local));
            for i in 0..3 {
                (lo[i], hi[i]) = (lo[i].min(local[i]), hi[i].max(local[i]));
            }
        }
    }
    let boxes = ranges.iter().zip(&skin.remap).filter_map(|(range, &joint)| {
        let (lo, hi) = range.as_ref()?;
        // Rounded outward: the f32 box holds every f64 point it was made from.
        let center: [f32; 3] = std::array::from_fn(|i| ((lo[i] + hi[i]) / 2.0) as f32);
        let half_extent = std::array::from_fn(|i| {
            let reach = (f64::from(center[i]) - lo[i]).max(hi[i] - f64::from(center[i]));
            let e = reach as f32;
            if f64::from(e) < reach { e.next_up() } else { e }
        });
        Some(JointBox { center, joint: u32::from(joint), half_extent, reserved: 0 })
    });
    Ok(boxes.collect())
}
