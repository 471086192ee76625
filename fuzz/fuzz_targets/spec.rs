//! Fuzz the spec parser, checker and generator: `codegen::load` never panics on any
//! bytes (UTF-8 or not, as a spec folder's file is read), as an `.isa` file or as an
//! arch `.toml`; a spec that loads also generates (the emitters panic on a model they
//! would turn into invalid Rust).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for path in ["fuzz.isa", "arch/fuzz.toml"] {
        let mut s = codegen::Sources::new();
        s.add_bytes(path, data);
        match codegen::load(s) {
            Ok(model) => {
                let _ = codegen::generate(&model);
            }
            Err(f) => {
                let _ = f.render();
            }
        }
    }
});
