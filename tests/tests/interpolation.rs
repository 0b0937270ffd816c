//! Cubic against linear sampling on the shared motion capture (skipped with a message when `../shared/data` is
//! absent): the velocity jump at keys, and the error between keys of clips baked at a quarter or a third of
//! their rate. Run with `--nocapture` for the figures.

use sinew::{Asset, Interpolation};
use sinew_tests::shared_data;
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::clip_error::source_error;
use sinew_tools::compress::Precision;
use sinew_tools::pose::model_pose;

const MODES: [Interpolation; 2] = [Interpolation::Linear, Interpolation::Cubic];

/// Per inner key of clip 0 of `asset` (the first `keys` of them), the largest change of a joint's model-space
/// velocity across the key, from one-sided differences a hundredth of a frame either side (file units per
/// second); the median over the keys.
fn median_jump_at_keys(asset: &Asset<'_>, keys: usize, interpolation: Interpolation) -> f64 {
    let clip = asset.clip(0).expect("clip");
    let rate = clip.sample_rate() as f64;
    let h = 0.01 / rate;
    let mut jumps: Vec<f64> = (1..clip.num_frames().min(keys + 1) - 1)
        .map(|k| {
            let key = k as f64 / rate;
            let [before, at, after] =
                [key - h, key, key + h].map(|t| model_pose(asset, 0, t as f32, interpolation).expect("pose"));
            (0..before.len())
                .map(|j| {
                    let [b, a, f] = [&before[j], &at[j], &after[j]].map(|m| m.translation().to_array().map(f64::from));
                    (0..3).map(|i| ((f[i] - a[i]) - (a[i] - b[i])).powi(2)).sum::<f64>().sqrt() / h
                })
                .fold(0.0, f64::max)
        })
        .collect();
    jumps.sort_by(f64::total_cmp);
    jumps[jumps.len() / 2]
}

#[test]
fn cubic_sampling_keeps_the_velocity_across_keys_of_the_shared_clips() {
    let Some(dir) = shared_data("cubic_sampling_keeps_the_velocity_across_keys_of_the_shared_clips") else { return };
    let files =
        ["bvh/bandai/dataset-1_walk_normal_001.bvh", "bvh/bandai/dataset-2_run_normal_001.bvh", "bvh/cmu/01_01.bvh"];
    for file in files {
        let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[dir.join(file)]).expect("import");
        let blob = bake::bake(&skeleton, &clips[..1], KeyFormat::F32).expect("bake");
        let asset = Asset::load(blob.bytes()).expect("load");
        let [linear, cubic] = MODES.map(|mode| median_jump_at_keys(&asset, 120, mode));
        println!(
            "{file}: median velocity jump at a key {linear:.1} linear, {cubic:.2} cubic (units/s), {:.0}×",
            linear / cubic
        );
        assert!(cubic < 0.1 * linear, "{file}: cubic {cubic} against linear {linear}");
    }
}

#[test]
fn cubic_sampling_follows_the_source_between_keys_of_clips_baked_at_lower_rates() {
    let Some(dir) = shared_data("cubic_sampling_follows_the_source_between_keys_of_clips_baked_at_lower_rates") else {
        return;
    };
    for (file, rate) in [("bvh/cmu/01_01.bvh", 30.0), ("bvh/bandai/dataset-1_walk_normal_001.bvh", 10.0)] {
        let (skeleton, clips) = sinew_tools::bvh::load_raw_files(&[dir.join(file)]).expect("import");
        let source = &clips[0];
        let reduced = source.resampled(rate).expect("resample");
        let blob = bake::bake(&skeleton, std::slice::from_ref(&reduced), KeyFormat::F32).expect("bake");
        let asset = Asset::load(blob.bytes()).expect("load");
        let per_cm = sinew_tools::annotate::figure_scale(&skeleton, &clips).units_per_cm();
        let distance = Precision::default_on_figure(&skeleton, &clips).distance;
        let [linear, cubic] =
            MODES.map(|mode| source_error(&skeleton, source, &asset, 0, distance, mode).expect("error"));
        let cm = |e: f64| e / per_cm;
        println!(
            "{file} at {rate} Hz from {:.0} Hz, cm on a 1.7 m figure: p99 / max {:.3} / {:.3} linear, {:.3} / {:.3} cubic",
            source.sample_rate,
            cm(linear.p99),
            cm(linear.max),
            cm(cubic.p99),
            cm(cubic.max)
        );
        assert!(cubic.p99 < linear.p99, "{file}: cubic p99 {} against linear {}", cubic.p99, linear.p99);
    }
}

#[test]
fn the_lowest_rate_keeps_the_bound_and_the_duration_and_cubic_goes_lower() {
    use sinew_tools::rate::{RATE_FRACTIONS, lowest_rate, whole_step_rate};
    let rig = sinew_tools::rig::Rig::humanoid(22);
    let (skeleton, clip) = (rig.raw_skeleton(), rig.clip(121, 60.0));
    let duration = |c: &sinew_tools::raw::RawClip| (c.frames.len() - 1) as f64 / c.sample_rate as f64;
    let bound = 0.05;
    let [linear, cubic] = MODES.map(|mode| lowest_rate(&skeleton, &clip, bound, 0.03, mode).expect("reduce"));
    for (mode, reduced) in MODES.iter().zip([&linear, &cubic]) {
        assert!(reduced.error.max <= bound, "{mode:?}: {} over {bound}", reduced.error.max);
        assert!((duration(&reduced.clip) - duration(&clip)).abs() < 1e-5, "{mode:?}: the duration changed");
        // The next rate tried below the chosen one breaks the bound (or the chosen one is the lowest tried).
        let chosen = RATE_FRACTIONS
            .iter()
            .position(|f| (whole_step_rate(duration(&clip), 60.0 * f) as f32 - reduced.clip.sample_rate).abs() < 1e-3);
        let chosen = chosen.expect("a tried rate");
        if let Some(lower) = RATE_FRACTIONS.get(chosen + 1) {
            let rate = whole_step_rate(duration(&clip), 60.0 * lower) as f32;
            let blob = bake::bake(&skeleton, &[clip.resampled(rate).expect("resample")], KeyFormat::F32).expect("bake");
            let asset = Asset::load(blob.bytes()).expect("load");
            let error = source_error(&skeleton, &clip, &asset, 0, 0.03, *mode).expect("error");
            assert!(error.max > bound, "{mode:?}: {rate} Hz is within the bound too ({})", error.max);
        }
    }
    println!(
        "humanoid at 60 Hz within {bound}: linear {} Hz, cubic {} Hz",
        linear.clip.sample_rate, cubic.clip.sample_rate
    );
    assert!(
        cubic.clip.sample_rate < linear.clip.sample_rate,
        "cubic {} Hz, linear {} Hz",
        cubic.clip.sample_rate,
        linear.clip.sample_rate
    );
    // Nothing lower is within a bound of zero: the source rate stays.
    let kept = lowest_rate(&skeleton, &clip, 0.0, 0.03, Interpolation::Cubic).expect("reduce");
    assert_eq!(kept.clip.frames.len(), clip.frames.len());
}
