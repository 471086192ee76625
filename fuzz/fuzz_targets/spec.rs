//! Fuzz the spec parser and checker: `codegen::load` never panics on any text, read as an
//! `.isa` file or as an arch `.toml`, alone or next to the committed spec's record.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for path in ["fuzz.isa", "arch/fuzz.toml"] {
        let mut s = codegen::Sources::new();
        s.add(path.to_owned(), text.to_owned());
        if let Err(f) = codegen::load(s) {
            let _ = f.render();
        }
    }
});
