//! Where the SIMD backend is chosen: every build-time condition about it is written here once, as a named
//! constant or a kernel-selection macro, and the rest of the crate asks by name. Nothing is detected at run
//! time: a build targets one instruction set (SSE2 baseline, x86-64-v3 with `-C target-cpu=x86-64-v3`, NEON on
//! aarch64, SIMD128 on wasm32 with `-C target-feature=+simd128`, which `wide`'s lanes then use), and the `scalar`
//! cargo feature swaps the SIMD lanes for plain arrays (the reference build).
//!
//! `math::lane` picks `F4`/`F8`'s implementation (`lane/simd.rs` over `wide`, or `lane/scalar.rs`); the
//! intrinsics inside `lane/simd.rs` are that implementation. Stages with target-specific arithmetic pick
//! `<stage>/avx2.rs` or `<stage>/portable.rs` with `kernels!`.

/// The one place the x86-64-v3 kernel condition is written (AVX2 and FMA enabled, not the `scalar` build):
/// `avx2_kernels! { if { items } else { items } }` compiles the first items there and the second everywhere
/// else (SSE2, NEON, scalar); `avx2_kernels!()` is the condition as a `bool` expression.
macro_rules! avx2_kernels {
    (@with $($form:tt)*) => {
        avx2_kernels! { $($form)* (all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma",
            not(feature = "scalar"))) }
    };
    (if { $($yes:item)* } else { $($no:item)* }) => {
        avx2_kernels! { @with @items { $($yes)* } { $($no)* } }
    };
    () => {
        avx2_kernels! { @with @bool }
    };
    (@items { $($yes:item)* } { $($no:item)* } $cond:tt) => {
        $( #[cfg $cond] $yes )*
        $( #[cfg(not $cond)] $no )*
    };
    (@bool $cond:tt) => {{
        #[cfg $cond]
        let on = true;
        #[cfg(not $cond)]
        let on = false;
        on
    }};
}

/// Picks a stage's kernels at compile time: `<stage>/avx2.rs` where [`avx2_kernels!`] says so,
/// `<stage>/portable.rs` (over `F4`) everywhere else. Either way the stage sees the module as `kernels`.
macro_rules! kernels {
    () => {
        avx2_kernels! {
            if {
                mod avx2;
                use avx2 as kernels;
            } else {
                mod portable;
                use portable as kernels;
            }
        }
    };
}

/// Whether `mul_add` is one fused instruction (x86 FMA, aarch64 NEON; not SSE2, not the `scalar` build).
/// Formulas that trade a multiply for an add or a sign flip choose by it: with FMA the multiply pipes are
/// the scarce ones, without it every multiply-add is already two instructions.
pub const FUSED_MUL_ADD: bool = cfg!(all(
    not(feature = "scalar"),
    any(all(target_arch = "x86_64", target_feature = "fma"), all(target_arch = "aarch64", target_feature = "neon"))
));

/// Whether `rsqrt` refines the hardware estimate (NEON) rather than dividing by a correctly rounded square
/// root (x86, scalar); see `math::F4::rsqrt`.
pub const RSQRT_BY_ESTIMATE: bool =
    cfg!(all(not(feature = "scalar"), target_arch = "aarch64", target_feature = "neon"));

/// Whether an `F8` is one register (where the x86-64-v3 kernels are built). Formulas that pair lane groups gain
/// only there; on two-register backends pairing just doubles register pressure.
pub const F8_IS_ONE_REGISTER: bool = avx2_kernels!();

/// The lanes this build computes with, as the profiler prints them.
pub const NAME: &str = if cfg!(feature = "scalar") {
    "scalar"
} else if cfg!(all(target_arch = "aarch64", target_feature = "neon")) {
    "neon"
} else if cfg!(all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma")) {
    "avx2+fma"
} else if cfg!(target_feature = "sse2") {
    "sse2"
} else if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
    "simd128"
} else {
    "wide-soft"
};
