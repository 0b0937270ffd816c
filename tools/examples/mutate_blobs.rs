//! `cargo run --release -p sinew-tools --example mutate_blobs -- SEED COUNT`: the seeded blob mutation
//! run of `cargo xtask fuzz` (see `sinew_tools::fuzz::mutate_blobs`). Exit 1 with the mutation on a find.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parse = |i: usize, default: u64| args.get(i).map_or(Ok(default), |a| a.parse::<u64>());
    let (Ok(seed), Ok(count)) = (parse(0, 1), parse(1, 1_000_000)) else {
        eprintln!("error: usage: mutate_blobs [SEED] [COUNT]");
        return ExitCode::FAILURE;
    };
    match sinew_tools::fuzz::mutate_blobs(seed, count) {
        Ok(report) => {
            println!(
                "mutate_blobs: seed {seed}, {} executions, {} loaded and posed, no find",
                report.executions, report.loaded
            );
            ExitCode::SUCCESS
        }
        Err(find) => {
            eprintln!("error: mutate_blobs found: {find}");
            ExitCode::FAILURE
        }
    }
}
