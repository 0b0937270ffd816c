//! `sinew-bench`: the profiler CLI. With no subcommand it runs `profile` on the embedded procedural rigs.

use clap::{Args, Parser, Subcommand};
use sinew_bench_host::profile;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "sinew-bench", version, about = "Profile the sinew animation runtime on a crowd of characters")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Push a crowd through every runtime stage and print µs per character, ns per joint, bytes per character.
    Profile(ProfileArgs),
}

#[derive(Args)]
struct ProfileArgs {
    /// Joint counts of the procedural humanoid to profile (22..=1024); repeat for several rigs.
    #[arg(long = "joints", default_values_t = [67, 256])]
    joints: Vec<usize>,
    /// Characters in the crowd.
    #[arg(long, default_value_t = 256)]
    characters: usize,
    /// Frames to time; each stage reports its median frame.
    #[arg(long, default_value_t = 101)]
    frames: usize,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
}

impl Default for ProfileArgs {
    fn default() -> Self {
        ProfileArgs { joints: vec![67, 256], characters: 256, frames: 101, json: false }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Profile(ProfileArgs::default())) {
        Command::Profile(args) => {
            if let Some(&bad) = args
                .joints
                .iter()
                .find(|&&j| !(sinew_bench_host::rig::MIN_JOINTS..=sinew_bench_host::rig::MAX_JOINTS).contains(&j))
            {
                eprintln!("--joints {bad}: the procedural rig has 22..=1024 joints");
                return ExitCode::FAILURE;
            }
            if args.characters == 0 || args.frames == 0 {
                eprintln!("--characters and --frames must be at least 1");
                return ExitCode::FAILURE;
            }
            let config = profile::Config { joints: args.joints, characters: args.characters, frames: args.frames };
            match profile::run(&config) {
                Ok(reports) if args.json => {
                    println!("{}", serde_json::to_string_pretty(&profile::json(&reports)).unwrap_or_default());
                    ExitCode::SUCCESS
                }
                Ok(reports) => {
                    print!("{}", profile::table(&reports));
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("profile failed: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
