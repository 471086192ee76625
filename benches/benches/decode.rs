//! Criterion benches of the record kernels of the generated crate, on every bench
//! stream: the uniform mix over every arm its generation binds and the corpus streams per engine and
//! mixed; the text form (generated disassembler and assembler); and, on the corpus
//! streams only, the hand-written comparators (`tpb_isa_benches::hand`), after checking
//! them against the generated crate on every distinct record.
//!
//! `cargo bench -p tpb-isa-benches --bench decode`. For the same-run ratio table use the
//! `bench-report` binary (see the README); criterion reports each kernel on its own.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tpb_isa_benches as b;

fn kernels(c: &mut Criterion) {
    for s in b::streams(b::RECORDS) {
        b::check_round_trip(&s).expect("every record decodes and encodes back");
        let arch = s.arch;
        let gen = b::gen_decoded(arch, &s.bytes);
        let mut g = c.benchmark_group(format!("records/{}", s.name));
        g.throughput(Throughput::Elements(s.records() as u64)).sample_size(10);
        type Kernel = (&'static str, fn(&[u8]) -> u64);
        let byte_kernels: [Kernel; 6] = [
            ("limit_stride_scan", b::stride_scan),
            ("limit_full_read", b::full_read),
            ("gen_has_pseudo_exit", b::gen_has_pseudo_exit),
            ("gen_dispatch", b::gen_dispatch),
            ("gen_validate_bitmask", b::gen_validate_bitmask),
            ("gen_walk", b::gen_walk),
        ];
        for (name, k) in byte_kernels {
            g.bench_function(name, |bn| bn.iter(|| k(black_box(&s.bytes))));
        }
        type ArchKernel = (&'static str, fn(tpb_isa::Arch, &[u8]) -> u64);
        let arch_kernels: [ArchKernel; 3] = [
            ("gen_decode", b::gen_decode),
            ("gen_validate_full", b::gen_validate_full),
            ("gen_walk_decode", b::gen_walk_decode),
        ];
        for (name, k) in arch_kernels {
            g.bench_function(name, |bn| bn.iter(|| k(arch, black_box(&s.bytes))));
        }
        g.bench_function("gen_encode", |bn| bn.iter(|| b::gen_encode(black_box(&gen))));
        g.bench_function("gen_view", |bn| bn.iter(|| b::gen_view(arch, black_box(&s.bytes))));
        g.bench_function("gen_disasm", |bn| bn.iter(|| b::gen_disasm(arch, black_box(&s.bytes))));
        g.bench_function("gen_disasm_bytes", |bn| {
            bn.iter(|| b::gen_disasm_bytes(arch, black_box(&s.bytes)))
        });
        g.bench_function("gen_disasm_printer", |bn| {
            bn.iter(|| b::gen_disasm_printer(arch, black_box(&s.bytes)))
        });
        let text = b::text_lines(arch, &s.bytes);
        g.bench_function("gen_assemble", |bn| bn.iter(|| b::gen_assemble(arch, black_box(&text))));
        drop(text);
        // The hand comparators cover the corpus opcodes only.
        if s.name.starts_with("nkipy/") {
            b::hand::check(arch, &s.bytes).expect("the hand code agrees with the generated crate");
            let hand = b::hand_decoded(&s.bytes);
            g.bench_function("hand_decode", |bn| bn.iter(|| b::hand_decode(black_box(&s.bytes))));
            g.bench_function("hand_view", |bn| bn.iter(|| b::hand_view(black_box(&s.bytes))));
            g.bench_function("hand_encode", |bn| bn.iter(|| b::hand_encode(black_box(&hand))));
            g.bench_function("hand_disasm", |bn| bn.iter(|| b::hand_disasm(black_box(&s.bytes))));
        }
        g.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
