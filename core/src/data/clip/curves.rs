//! A clip's scalar curve tracks: their storage and its checks.

use super::check_values;
use super::compressed::{CompressedKeys, check_compressed};
use crate::error::{Buffer, Error};
use crate::limits::{MAX_CLIP_CURVES, MAX_CURVE_MAGNITUDE};

/// Storage of a clip's scalar curve tracks.
///
/// Layout:
/// - [`CurveKeys::F32`]: frame by frame, each frame every curve's value in curve order (`count × num_frames`
///   values);
/// - [`CurveKeys::Compressed`]: [`CompressedKeys`] laid out as for a clip whose animated tracks are `count`
///   translation tracks: each curve is component `x` of one track (its `y` and `z` take no bits), its
///   [`TrackRange`](super::compressed::TrackRange) the clip's range of the curve, its bits per segment chosen by the baker against the
///   curve's precision.
///
/// Precision: `f32` values come back exactly; compressed ones within the precision the baker was given.
#[derive(Clone, Copy, Debug)]
pub enum CurveKeys<'a> {
    /// `num_curves × num_frames` values, curve after curve.
    F32(&'a [f32]),
    /// One-component tracks in the compressed layout.
    Compressed(CompressedKeys<'a>),
}

/// A clip's scalar curve tracks: how many, and their values.
#[derive(Clone, Copy, Debug)]
pub struct Curves<'a> {
    /// `0 ..= MAX_CLIP_CURVES`.
    pub count: usize,
    /// The values.
    pub keys: CurveKeys<'a>,
}

impl Curves<'_> {
    /// No curves.
    pub const NONE: Curves<'static> = Curves { count: 0, keys: CurveKeys::F32(&[]) };

    /// Errors: `Limit` (`ClipCurves`) past [`MAX_CLIP_CURVES`]; for `f32` values, `BufferLength` (`CurveKeys`)
    /// unless `count × num_frames` of them, `NonFinite` / `Subnormal` for a bad value; compressed, what a
    /// compressed clip's keys are checked for (`QuantRanges` naming a curve's range, `CompressedSegment`
    /// naming a curve as its track); `CurveMagnitude` for a value, or a compressed curve's range, past
    /// [`MAX_CURVE_MAGNITUDE`].
    pub(crate) fn check(&self, num_frames: usize) -> Result<(), Error> {
        if self.count > MAX_CLIP_CURVES {
            return Err(Error::Limit {
                what: crate::error::Limit::ClipCurves,
                value: self.count,
                max: MAX_CLIP_CURVES,
            });
        }
        let within = |v: f32| v.abs() <= MAX_CURVE_MAGNITUDE;
        match self.keys {
            CurveKeys::F32(values) => {
                crate::error::check_len(Buffer::CurveKeys, self.count.saturating_mul(num_frames), values.len())?;
                for (index, v) in values.iter().enumerate() {
                    check_values(Buffer::CurveKeys, index, core::slice::from_ref(v))?;
                    if !within(*v) {
                        return Err(Error::CurveMagnitude { index });
                    }
                }
                Ok(())
            }
            CurveKeys::Compressed(keys) => {
                check_compressed(num_frames, [self.count, 0, 0], keys)?;
                // Only `x` is decoded; its range bounds every value the curve's levels can give.
                match keys.ranges.iter().position(|r| !(within(r.min[0]) && within(r.min[0] + r.extent[0]))) {
                    Some(index) => Err(Error::CurveMagnitude { index }),
                    None => Ok(()),
                }
            }
        }
    }
}
