//! The text form and the validator on real compiler output: every record of every
//! engine stream of the corpus NEFFs (`testdata/nkipy/streams/`, extracted by `tpb
//! extract`) decodes to a named opcode, prints, and assembles back to the same 64
//! bytes, in the layouts of every generation; and validates on cayman, its target.

use std::fs;
use std::path::{Path, PathBuf};

use tpb_isa::disasm::{assemble_line, write_record};
use tpb_isa::validate::validate;
use tpb_isa::{Arch, Inst, RECORD_SIZE};

/// Every `.bin` stream under `testdata/nkipy/streams`, sorted.
fn streams() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in fs::read_dir(dir).expect("testdata/nkipy/streams is part of the project") {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "bin") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/nkipy/streams");
    let mut out = Vec::new();
    walk(&root, &mut out);
    out.sort();
    out
}

#[test]
fn every_corpus_record_round_trips_through_text_on_every_generation() {
    let paths = streams();
    assert_eq!(paths.len(), 20, "two NEFFs × two subgraphs × five engines");
    let (mut records, mut line) = (0usize, String::new());
    for path in &paths {
        let bytes = fs::read(path).unwrap();
        assert_eq!(bytes.len() % RECORD_SIZE, 0, "{}", path.display());
        for chunk in bytes.chunks_exact(RECORD_SIZE) {
            let r: [u8; RECORD_SIZE] = chunk.try_into().unwrap();
            records += 1;
            for &arch in Arch::ALL {
                line.clear();
                write_record(&mut line, arch, &r).unwrap();
                let back = assemble_line(arch, &line, 1).unwrap_or_else(|e| panic!("{e}: {line}"));
                assert_eq!(back, Some(r), "{} on {arch:?}: {line}", path.display());
            }
        }
    }
    assert_eq!(records, 59_648);
}

#[test]
fn every_corpus_record_decodes_to_a_named_opcode_and_text_names_no_unknown() {
    let (mut arms, mut opaque) = (0usize, 0usize);
    let mut line = String::new();
    for path in streams() {
        let bytes = fs::read(&path).unwrap();
        for chunk in bytes.chunks_exact(RECORD_SIZE) {
            let r: [u8; RECORD_SIZE] = chunk.try_into().unwrap();
            match Inst::decode(Arch::Cayman, &r) {
                Inst::Unknown(_) => {
                    panic!("{}: opcode {:#04x} is not in the spec", path.display(), r[0])
                }
                Inst::Opaque(_) => opaque += 1,
                _ => arms += 1,
            }
            line.clear();
            write_record(&mut line, Arch::Cayman, &r).unwrap();
            assert!(!line.starts_with("unknown "), "{line}");
        }
    }
    // Only SET_ORDERING_MODE and PSEUDO_BRANCH_LABEL (no layout in any source) are opaque.
    assert_eq!(opaque, 40);
    assert_eq!(arms + opaque, 59_648);
}

/// AWS's compiler output for cayman is valid cayman code: no record fails the
/// validator (a PSUM address's 0x02 in an ADDR4 marker byte, or a field of an enum
/// whose values no source gives, was once reported as a bad value).
#[test]
fn every_corpus_record_validates_on_its_generation() {
    let mut records = 0usize;
    for path in streams() {
        let bytes = fs::read(&path).unwrap();
        for (i, chunk) in bytes.chunks_exact(RECORD_SIZE).enumerate() {
            let r: [u8; RECORD_SIZE] = chunk.try_into().unwrap();
            let v = validate(Arch::Cayman, &r);
            assert_eq!(v, Ok(()), "{} record {i}", path.display());
            records += 1;
        }
    }
    assert_eq!(records, 59_648);
}
