//! Writes `docs/example.snw`, the blob the crate docs' example loads: the procedural 22-joint humanoid with
//! two quantized clips (its walk-like swing, and the same played backward) and its skin. `cargo test` checks
//! the checked-in file is what this writes (`bench-host/tests/example_blob.rs`).

fn main() -> Result<(), String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/example.snw");
    let blob = sinew_bench_host::workload::example_blob()?;
    std::fs::write(&path, blob.bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{}: {}", path.display(), sinew_tools::blob::summary(&blob)?);
    Ok(())
}
