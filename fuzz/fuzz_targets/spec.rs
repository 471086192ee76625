//! Fuzz the spec parser, checker and generator: `codegen::load` never panics on any
//! text, read as an `.isa` file or as an arch `.toml`; a spec that loads also generates
//! (the emitters panic on a model they would turn into invalid Rust).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for path in ["fuzz.isa", "arch/fuzz.toml"] {
        let mut s = codegen::Sources::new();
        s.add(path.to_owned(), text.to_owned());
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
