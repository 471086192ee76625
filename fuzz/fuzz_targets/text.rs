//! Fuzz the text form. Bytes: any record prints and assembles back to the same 64 bytes on
//! every generation, read by its binding or as any arm, and a sink of bytes and a
//! `Printer` get the same text. Text: any line either assembles or gives an error whose
//! column lies on the line, and never panics; a line that assembles prints as text that
//! assembles to the same bytes; `assemble`, which reads printed lines in place, gives what
//! `assemble_line` gives of each line. `split_line` of any text never panics, and of a
//! printed line gives back its words.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tpb_isa::disasm::{
    assemble, assemble_line, split_line, write_arm, write_record, write_record_bytes, Printer,
};
use tpb_isa::{Arch, ArmKind, RECORD_SIZE};

fuzz_target!(|data: &[u8]| {
    if let Some(b) = data.first_chunk::<RECORD_SIZE>() {
        let mut s = String::new();
        for &arch in Arch::ALL {
            s.clear();
            write_record(&mut s, arch, b).unwrap();
            assert_eq!(assemble_line(arch, &s, 1), Ok(Some(*b)), "{s}");
            let mut bytes = Vec::new();
            write_record_bytes(
                |p| {
                    bytes.extend_from_slice(p);
                    Ok::<(), ()>(())
                },
                arch,
                b,
            )
            .unwrap();
            assert_eq!(bytes, s.as_bytes());
            assert_eq!(Printer::new().record_bytes(arch, b), s.as_bytes());
            let (mnemonic, fields) = split_line(&s);
            let joined = fields.fold(mnemonic.to_owned(), |j, f| j + " " + f.name + "=" + f.value);
            assert_eq!(joined, s);
            let kind = ArmKind::ALL
                [usize::from(data.get(RECORD_SIZE).copied().unwrap_or(0)) % ArmKind::ALL.len()];
            s.clear();
            write_arm(&mut s, kind, arch, b).unwrap();
            assert_eq!(assemble_line(arch, &s, 1), Ok(Some(*b)), "{s}");
        }
    }
    let Ok(line) = std::str::from_utf8(data) else { return };
    let (_, fields) = split_line(line);
    assert!(fields.count() <= line.len());
    for &arch in Arch::ALL {
        match assemble_line(arch, line, 1) {
            Ok(Some(r)) => {
                let mut s = String::new();
                write_record(&mut s, arch, &r).unwrap();
                assert_eq!(assemble_line(arch, &s, 1), Ok(Some(r)), "{line:?} -> {s}");
            }
            Ok(None) => {}
            Err(e) => assert!(e.col >= 1 && e.col <= line.chars().count() + 1, "{e} on {line:?}"),
        }
        let each: Vec<_> = line
            .lines()
            .enumerate()
            .filter_map(|(i, l)| assemble_line(arch, l, i + 1).transpose())
            .collect();
        assert_eq!(assemble(arch, line).collect::<Vec<_>>(), each, "{line:?}");
    }
});
