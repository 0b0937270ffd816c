//! The portable joint step (SSE2, NEON, scalar): the parent's four columns, 12 broadcasts and 12
//! multiply-adds.

use super::{JointStep, local_columns};
use crate::math::{F4, Mat4, SoaAffine, SoaTransform, SoaVec3};

#[derive(Clone, Copy)]
pub(super) struct Columns([F4; 4]);

/// The step this build uses.
pub(super) type Step = Columns;

impl JointStep for Columns {
    type Local = SoaAffine;
    #[inline(always)]
    fn prepare(local: &SoaTransform) -> (SoaAffine, F4) {
        let (cols, invalid) = local_columns(*local.components());
        (SoaAffine { cols: cols.map(|[x, y, z]| SoaVec3 { x, y, z }) }, invalid)
    }
    #[inline(always)]
    fn load(m: &Mat4) -> Columns {
        Columns(m.load_cols())
    }
    /// `self * local[LANE]`: lane `LANE` of each local entry broadcast against the parent's columns.
    #[inline(always)]
    fn mul_store<const LANE: usize>(&self, local: &SoaAffine, out: &mut Mat4) -> Columns {
        let [p0, p1, p2, p3] = self.0;
        let [x, y, z, t] = &local.cols;
        let b = |v: F4| v.broadcast::<LANE>();
        let column = |v: &SoaVec3| p2.mul_add(b(v.z), p1.mul_add(b(v.y), p0 * b(v.x)));
        let translation = p2.mul_add(b(t.z), p1.mul_add(b(t.y), p0.mul_add(b(t.x), p3)));
        let cols = [column(x), column(y), column(z), translation];
        out.store_cols(cols);
        Columns(cols)
    }
}
