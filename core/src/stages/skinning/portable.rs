//! The 4-wide loops for SSE2, NEON and the scalar build: 12 lane broadcasts and 12 multiply-adds per joint,
//! broadcasting from registers already loaded (one `pshufd`/`dup` each, no scalar loads).

use crate::math::{F4, Mat3x4, Mat4};

#[inline(always)]
pub(super) fn palette(remap: &[u16], inverse_bind: &[Mat3x4], model: &[Mat4], palette: &mut [Mat4]) -> F4 {
    let mut sum = F4::ZERO;
    for ((out, ib), &joint) in palette.iter_mut().zip(inverse_bind).zip(remap) {
        let [m0, m1, m2, m3] = model[joint as usize].load_cols();
        let [r0, r1, r2]: [F4; 3] = bytemuck::cast(ib.rows);
        // Column c of M * B is sum_k M.col_k * B[k][c]; B's fourth row is (0, 0, 0, 1).
        macro_rules! col {
            ($c:literal) => {
                m2.mul_add(r2.broadcast::<$c>(), m1.mul_add(r1.broadcast::<$c>(), m0 * r0.broadcast::<$c>()))
            };
        }
        let cols = [col!(0), col!(1), col!(2), col!(3) + m3];
        // The translation column alone carries the check: it takes every entry of `M` (times a finite `B`
        // entry, or plus `m3`), and a NaN or infinity stays non-finite through products (inf × 0 is NaN)
        // and sums.
        sum = sum + cols[3];
        out.store_cols(cols);
    }
    sum
}

#[inline(always)]
pub(super) fn palette_3x4(remap: &[u16], inverse_bind: &[Mat3x4], model: &[Mat4], palette: &mut [Mat3x4]) -> F4 {
    let unit_w = F4::new(0.0, 0.0, 0.0, 1.0);
    let mut sum = F4::ZERO;
    for ((out, ib), &joint) in palette.iter_mut().zip(inverse_bind).zip(remap) {
        let [m0, m1, m2, m3] = model[joint as usize].load_cols();
        let [b0, b1, b2]: [F4; 3] = bytemuck::cast(ib.rows);
        // Row r of M * B is sum_k M[r][k] * B.row_k (k = 0..3, B's fourth row is (0, 0, 0, 1)); M[r][k] is
        // lane r of column k.
        macro_rules! row {
            ($r:literal) => {
                b2.mul_add(
                    m2.broadcast::<$r>(),
                    b1.mul_add(
                        m1.broadcast::<$r>(),
                        b0.mul_add(m0.broadcast::<$r>(), m3.broadcast::<$r>() * unit_w),
                    ),
                )
            };
        }
        let rows = [row!(0), row!(1), row!(2)];
        sum = sum + (rows[0] + rows[1] + rows[2]);
        out.rows = bytemuck::cast(rows);
    }
    sum
}
