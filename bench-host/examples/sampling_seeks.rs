//! `cargo run --release -p sinew-bench-host --example sampling_seeks -- [quantized|compressed] [seek|playback]
//! [JOINTS|FILE.bvh]`: 20 000 samples of the procedural humanoid's clip (67 joints unless JOINTS says otherwise;
//! 61 frames at 30 Hz) or of a BVH file's motion, compressed at 0.05 cm: the workload whose instruction counts
//! `docs/performance-log.md` quotes (run it under `valgrind --tool=callgrind` and read `SamplingJob::run`'s
//! inclusive count). `seek` (the default) jumps far each time, so each sample decodes two frames; `playback` steps
//! 1/60 s as the sampling bench does.

use sinew::math::SoaTransform;
use sinew::{Arena, Asset, Playback, SamplingContext, SamplingJob};
use sinew_bench_host::bench_support::{playback_time, seek_time};
use sinew_tools::bake::{self, KeyFormat};
use sinew_tools::compress::Precision;

fn main() -> std::process::ExitCode {
    let source = std::env::args().nth(3).unwrap_or_else(|| "67".into());
    let motion = match source.parse::<usize>() {
        Ok(joints) if (1..=sinew::skeleton::MAX_JOINTS).contains(&joints) => {
            let rig = sinew_tools::rig::Rig::humanoid(joints);
            Ok((rig.raw_skeleton(), vec![rig.clip(61, 30.0)]))
        }
        Ok(_) => Err(format!("JOINTS must be a joint count from 1 to {}", sinew::skeleton::MAX_JOINTS)),
        Err(_) => sinew_tools::bvh::load_raw_files(&[source.into()]),
    };
    let (skeleton, clips) = match motion {
        Ok(motion) => motion,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let format = match std::env::args().nth(1).as_deref() {
        Some("quantized") => KeyFormat::Quantized,
        None | Some("compressed") => KeyFormat::Compressed(Precision::default_on_figure(&skeleton, &clips)),
        Some(other) => {
            eprintln!("error: {other}: give `quantized` or `compressed`");
            return std::process::ExitCode::FAILURE;
        }
    };
    let playback = match std::env::args().nth(2).as_deref() {
        None | Some("seek") => false,
        Some("playback") => true,
        Some(other) => {
            eprintln!("error: {other}: give `seek` or `playback`");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = (|| -> Result<f32, String> {
        let blob = bake::bake(&skeleton, clips.get(..1).ok_or("no motion")?, format)?;
        let asset = Asset::load(blob.bytes()).map_err(|e| e.to_string())?;
        let clip = asset.clip(0).ok_or("no clip")?;
        let n = asset.skeleton().num_joints();
        let tracks = clip.num_tracks().iter().sum();
        let mut memory = vec![0u8; SamplingContext::required_bytes_with_decoders(n, tracks)];
        let arena = Arena::new(&mut memory);
        let mut context = SamplingContext::with_decoders(&arena, n, tracks).map_err(|e| e.to_string())?;
        let mut output = vec![SoaTransform::IDENTITY; asset.skeleton().num_soa_joints()];
        for i in 0..20_000u32 {
            // The sampling bench's sequences: seeks far apart, or playback at 60 Hz.
            let time = if playback { playback_time(i, clip.duration()) } else { seek_time(i, clip.duration()) };
            let (skeleton, time) = (asset.skeleton(), std::hint::black_box(time));
            SamplingJob {
                skeleton,
                clip: &clip,
                time,
                playback: Playback::Loop,
                context: &mut context,
                output: &mut output,
                curves: &mut [],
            }
            .run()
            .map_err(|e| e.to_string())?;
        }
        Ok(output[0].rotation.x.lane::<0>())
    })();
    match result {
        Ok(v) => {
            println!("done ({v})");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
