use sinew::math::Mat4;
use sinew_bench_host::bench_support::Fixture;
use std::time::Instant;
fn time(f: &mut dyn FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..2000).map(|_| { let t = Instant::now(); for _ in 0..10 { f(); } t.elapsed().as_secs_f64() / 10.0 }).collect();
    v.sort_by(f64::total_cmp); v[v.len() / 2]
}
fn main() {
    let f = Fixture::new(256);
    let n = f.rig.num_joints();
    for (name, parents) in [
        ("humanoid", f.rig.parents.clone()),
        ("flat", vec![-1i16; n]),
        ("chain", (0..n as i16).map(|j| j - 1).collect()),
        ("pairs", (0..n as i16).map(|j| if j % 2 == 0 { -1 } else { j - 1 }).collect()),
    ] {
        let sk = sinew::Skeleton::new(&parents, &f.rig.rest_soa, None).unwrap();
        let mut model = vec![Mat4::IDENTITY; n];
        let t = time(&mut || { sinew::LocalToModelJob { skeleton: &sk, local: std::hint::black_box(&f.local), root: None, model: &mut model }.run().unwrap(); });
        println!("{name:10} {:.2} ns/joint", t * 1e9 / n as f64);
    }
}
