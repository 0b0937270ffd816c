//! The example blob (`docs/example.snw`) loaded through the C ABI and the core, and conversions between the
//! C ABI's pose types and the core's, for the tests that compare the two.

#![allow(dead_code)]

use sinew::asset::Asset;
use sinew::math::{Mat4, SoaTransform};
use sinew_ffi::{SINEW_OK, sinew_asset, sinew_asset_load, sinew_mat4, sinew_soa_transform};
use std::mem::MaybeUninit;

const EXAMPLE: &[u8] = include_bytes!("../../../docs/example.snw");

/// The example blob copied to 16-byte aligned words.
pub fn blob() -> Vec<u128> {
    let mut words = vec![0u128; EXAMPLE.len().div_ceil(16)];
    bytemuck::cast_slice_mut::<u128, u8>(&mut words)[..EXAMPLE.len()].copy_from_slice(EXAMPLE);
    words
}

/// The blob's bytes in `words`.
pub fn bytes(words: &[u128]) -> &[u8] {
    &bytemuck::cast_slice::<u128, u8>(words)[..EXAMPLE.len()]
}

/// Runs `test` with the example loaded through the C ABI and the core, its joints and lane groups.
pub fn with_example(test: impl FnOnce(&[u8], &sinew_asset, &Asset<'_>, usize, usize)) {
    let words = blob();
    let blob = bytes(&words);
    let mut asset = MaybeUninit::<sinew_asset>::uninit();
    // SAFETY: valid pointers; the blob outlives the asset.
    let asset = unsafe {
        assert_eq!(sinew_asset_load(blob.as_ptr(), blob.len(), asset.as_mut_ptr()), SINEW_OK);
        asset.assume_init()
    };
    let core = Asset::load(blob).expect("load");
    test(blob, &asset, &core, core.skeleton().num_joints(), core.skeleton().num_soa_joints())
}

/// A core pose as the C ABI's lane groups.
pub fn c_pose(pose: &[SoaTransform]) -> Vec<sinew_soa_transform> {
    // SAFETY: one layout (asserted in the crate).
    pose.iter().map(|t| unsafe { std::mem::transmute::<SoaTransform, sinew_soa_transform>(*t) }).collect()
}

/// A C ABI pose as the core's lane groups.
pub fn core_pose(pose: &[sinew_soa_transform]) -> Vec<SoaTransform> {
    // SAFETY: one layout (asserted in the crate).
    pose.iter().map(|t| unsafe { std::mem::transmute::<sinew_soa_transform, SoaTransform>(*t) }).collect()
}

/// Core matrices as the C ABI's.
pub fn c_model(model: &[Mat4]) -> Vec<sinew_mat4> {
    model.iter().map(|m| sinew_mat4 { m: bytemuck::cast(m.cols) }).collect()
}

/// The bits of a slice of plain floats (C ABI or core types), for bit-for-bit comparisons.
pub fn bits<T: Copy>(values: &[T]) -> Vec<u32> {
    let len = std::mem::size_of_val(values) / 4;
    // SAFETY: the callers pass types made of `f32` and `u32` fields with no padding.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u32>(), len).to_vec() }
}
