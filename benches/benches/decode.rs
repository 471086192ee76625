//! Criterion benches of the record kernels: the generated crate beside its comparators.
//!
//! `cargo bench -p tpb-isa-benches --bench decode`. For the same-run ratio table use the
//! `bench-report` binary (see the README); criterion reports each kernel on its own.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tpb_isa_benches as b;

fn kernels(c: &mut Criterion) {
    for order in b::Order::ALL {
        let bytes = b::make_stream(order, b::RECORDS);
        b::check_agreement(&bytes).expect("comparators agree with the generated decoder");
        let gen = b::gen_decoded(&bytes);
        let hand = b::hand_decoded(&bytes);
        let bw = b::bw_decoded(&bytes);
        let dk = b::dk_decoded(&bytes);
        let mut g = c.benchmark_group(format!("records/{}", order.name()));
        g.throughput(Throughput::Elements(b::RECORDS as u64)).sample_size(10);
        type Kernel = (&'static str, fn(&[u8]) -> u64);
        let byte_kernels: [Kernel; 15] = [
            ("limit_stride_scan", b::stride_scan),
            ("limit_full_read", b::full_read),
            ("gen_has_pseudo_exit", b::gen_has_pseudo_exit),
            ("gen_view_one_field", b::gen_view_one_field),
            ("hand_one_field", b::hand_one_field),
            ("zerocopy_one_field", b::zc_one_field),
            ("gen_decode", b::gen_decode),
            ("hand_decode", b::hand_decode),
            ("binrw_structs_decode", b::bw_decode),
            ("binrw_enum_decode", b::bw_enum_decode),
            ("deku_decode", b::dk_decode),
            ("gen_validate_bitmask", b::gen_validate_bitmask),
            ("gen_validate_full", b::gen_validate_full),
            ("gen_walk", b::gen_walk),
            ("gen_walk_decode", b::gen_walk_decode),
        ];
        for (name, k) in byte_kernels {
            g.bench_function(name, |bn| bn.iter(|| k(black_box(&bytes))));
        }
        g.bench_function("gen_encode", |bn| bn.iter(|| b::gen_encode(black_box(&gen))));
        g.bench_function("hand_encode", |bn| bn.iter(|| b::hand_encode(black_box(&hand))));
        g.bench_function("binrw_encode", |bn| bn.iter(|| b::bw_encode(black_box(&bw))));
        g.bench_function("deku_encode", |bn| bn.iter(|| b::dk_encode(black_box(&dk))));
        g.bench_function("gen_disasm", |bn| bn.iter(|| b::gen_disasm(black_box(&gen))));
        let text = b::gen_text(&gen);
        assert!(b::text_round_trips(&bytes, &text), "the disassembly assembles back");
        g.bench_function("gen_asm", |bn| bn.iter(|| b::gen_asm(black_box(&text))));
        g.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
