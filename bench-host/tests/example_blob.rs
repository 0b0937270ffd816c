//! `docs/example.snw` (the crate docs' example blob) loads in today's format and holds what
//! `workload::example_blob` bakes: regenerate it with `cargo run -p sinew-bench-host --example example_blob`
//! after a format change. (Key bytes are not compared: the rig's motion goes through the platform's `sinf`,
//! whose last bit may differ between machines.)

#[test]
fn the_checked_in_example_blob_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/example.snw");
    let checked_in = sinew_tools::raw::AlignedBlob::read(&path).expect("docs/example.snw");
    let stale = "docs/example.snw is stale: run `cargo run -p sinew-bench-host --example example_blob`";
    let asset = sinew::Asset::load(checked_in.bytes()).expect(stale);
    let baked = sinew_bench_host::workload::example_blob().expect("bake");
    let fresh = sinew::Asset::load(baked.bytes()).expect("load");
    assert_eq!(checked_in.bytes().len(), baked.bytes().len(), "{stale}");
    assert_eq!(asset.skeleton().parents(), fresh.skeleton().parents(), "{stale}");
    for c in 0..fresh.num_clips() {
        assert_eq!(asset.clip_name(c), fresh.clip_name(c), "{stale}");
        assert_eq!(asset.markers(c).len(), fresh.markers(c).len(), "{stale}");
    }
    assert_eq!(asset.skin().map(|s| s.joint_remap()), fresh.skin().map(|s| s.joint_remap()), "{stale}");
}
