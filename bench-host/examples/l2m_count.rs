use sinew::math::Mat4;
use sinew_bench_host::bench_support::Fixture;
fn main() {
    let f = Fixture::new(256);
    let n = f.rig.num_joints();
    let parents = vec![-1i16; n];
    let sk = sinew::Skeleton::new(&parents, &f.rig.rest_soa, None).unwrap();
    let mut model = vec![Mat4::IDENTITY; n];
    let iterations: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    for _ in 0..iterations {
        sinew::LocalToModelJob { skeleton: &sk, local: std::hint::black_box(&f.local), root: None, model: &mut model }.run().unwrap();
    }
}
