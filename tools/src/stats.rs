//! Statistics over measured errors and jumps.

/// The `p` quantile (0 to 1, nearest rank) of `values`, sorting them; 0 for none.
pub fn percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * p).round() as usize]
}
