//! `sinew-bake`: the offline tool. Imports BVH and glTF files, annotates them (markers, foot plants, stride
//! phase), extracts root motion, and writes the runtime's asset blob; validates and describes a blob.

use clap::{Parser, Subcommand};
use sinew_tools::offline::{BakeArgs, InspectArgs, bake, inspect, report};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "sinew-bake", version, about = "Bake animation files into sinew's asset blob, and inspect blobs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Import animation files and write the runtime's asset blob.
    Bake(Box<BakeArgs>),
    /// Validate a baked blob and print its skeleton, clips, rates, durations and bytes per kind of track.
    Inspect(InspectArgs),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Bake(args) => report(bake(&args)),
        Command::Inspect(args) => report(inspect(&args)),
    }
}
