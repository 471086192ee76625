//! Criterion benches of the generator: `codegen::load` + `codegen::generate` on the
//! committed spec and on a synthetic spec with 10× its arms.
//!
//! `cargo bench -p tpb-isa-benches --bench codegen`. The 100× spec takes seconds per
//! iteration, so only the `bench-report` binary times it.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tpb_isa_benches as b;

fn codegen(c: &mut Criterion) {
    let base = b::spec_files(&b::spec_dir());
    let mut g = c.benchmark_group("codegen");
    g.sample_size(10);
    for factor in [1usize, 10] {
        let spec = b::scaled_spec(&base, factor);
        g.bench_function(format!("load_generate_x{factor}"), |bn| {
            bn.iter(|| b::run_codegen(black_box(&spec)))
        });
    }
    g.finish();
}

criterion_group!(benches, codegen);
criterion_main!(benches);
