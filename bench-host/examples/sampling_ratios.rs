//! `taskset -c 1 cargo run --release -p sinew-bench-host --example sampling_ratios`: compressed against
//! quantized sampling of the procedural humanoid (67 and 256 joints; 61 frames at 30 Hz; compressed at 0.05 cm),
//! random seek and 60 Hz playback as the criterion `sampling` bench does them, timed for hosts too noisy for
//! criterion's medians. Each of 25 rounds times 2000 samples of every format and mode in turn on one thread;
//! each cell keeps its fastest round, the one least disturbed by other work on the host. Criterion remains the
//! measure to quote; this gives the ratios a second, steadier reading.

use sinew::math::SoaTransform;
use sinew::{Arena, Asset, Playback, SamplingContext, SamplingJob};
use sinew_bench_host::bench_support::{playback_time, seek_time};
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::compress::Precision;
use sinew_tools::rig::Rig;
use std::time::Instant;

const ROUNDS: usize = 25;
const SAMPLES: u32 = 2000;

fn main() -> Result<(), String> {
    for joints in [67, 256] {
        let rig = Rig::humanoid(joints);
        let skeleton = rig.raw_skeleton();
        let raw = rig.clip(61, 30.0);
        let formats = [
            KeyFormat::Quantized,
            KeyFormat::Compressed(Precision::default_on_figure(&skeleton, std::slice::from_ref(&raw))),
        ];
        let blobs = formats
            .map(|format| bake::bake(&skeleton, std::slice::from_ref(&raw), format))
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?;
        // Fastest ns per sample: [format][seek, playback].
        let mut fastest = [[f64::INFINITY; 2]; 2];
        for _ in 0..ROUNDS {
            for (format, blob) in blobs.iter().enumerate() {
                let asset = Asset::load(blob.bytes()).map_err(|e| e.to_string())?;
                let clip = asset.clip(0).ok_or("no clip")?;
                let tracks = clip.num_tracks().iter().sum();
                let mut memory = vec![0u8; SamplingContext::required_bytes_with_decoders(joints, tracks)];
                let arena = Arena::new(&mut memory);
                // As the criterion bench: compressed clips play through a context that keeps decoders.
                let context = match formats[format] {
                    KeyFormat::Compressed(_) => SamplingContext::with_decoders(&arena, joints, tracks),
                    _ => SamplingContext::new(&arena, joints),
                };
                let mut context = context.map_err(|e| e.to_string())?;
                let mut output = vec![SoaTransform::IDENTITY; asset.skeleton().num_soa_joints()];
                for (mode, playing) in [false, true].into_iter().enumerate() {
                    let start = Instant::now();
                    for i in 0..SAMPLES {
                        let time =
                            if playing { playback_time(i, clip.duration()) } else { seek_time(i, clip.duration()) };
                        SamplingJob {
                            skeleton: asset.skeleton(),
                            clip: &clip,
                            time: std::hint::black_box(time),
                            playback: Playback::Loop,
                            context: &mut context,
                            output: &mut output,
                            curves: &mut [],
                        }
                        .run()
                        .map_err(|e| e.to_string())?;
                    }
                    let ns = start.elapsed().as_nanos() as f64 / f64::from(SAMPLES);
                    fastest[format][mode] = fastest[format][mode].min(ns);
                }
            }
        }
        let [[seek_q, play_q], [seek_c, play_c]] = fastest;
        println!(
            "{joints} joints: seek {seek_c:.0} against {seek_q:.0} ns ({:.2}×), playback {play_c:.0} against \
             {play_q:.0} ns ({:.2}×)",
            seek_c / seek_q,
            play_c / play_q
        );
    }
    Ok(())
}
