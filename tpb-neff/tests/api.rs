//! The crate as a dependent uses it: options built without a literal, the common
//! traits, engines and targets as text, and errors that travel through `?`.

mod support;

use std::collections::HashSet;

use tpb_neff::{Engine, Error, HashStatus, Neff, ReadOptions, Target, UnknownEngine};

fn send_sync<T: Send + Sync + 'static>() {}

#[test]
fn options_are_built_from_the_default() {
    let options = ReadOptions::default().with_max_inflated(4096);
    assert_eq!(options.max_inflated, 4096);
    let mut set = ReadOptions::default();
    set.max_inflated = 4096;
    assert_eq!(set, options);
    assert_eq!(HashSet::from([options, set]).len(), 1);
}

#[test]
fn engines_and_targets_read_and_print_as_text() {
    assert_eq!("Activation".parse::<Engine>(), Ok(Engine::Act));
    assert_eq!("dve".parse::<Engine>(), Ok(Engine::Dve));
    let e = "gpu\n".parse::<Engine>().unwrap_err();
    assert_eq!(e, UnknownEngine("gpu\\n".into()));
    assert!(e.to_string().starts_with("unknown engine 'gpu\\n'"), "{e}");
    for t in ["sunda", "cayman", "mariana", "*", "future"] {
        assert_eq!(Target::parse(t).to_string(), t);
    }
}

#[test]
fn the_read_types_hash_and_errors_travel_through_question_mark() {
    send_sync::<Neff>();
    send_sync::<Error>();
    send_sync::<tpb_neff::Warning>();
    let bytes = std::fs::read(support::corpus("matmul_small.neff")).unwrap();
    let neff = Neff::from_bytes(&bytes, &ReadOptions::default()).unwrap();
    let graphs: HashSet<_> = neff.graphs().iter().collect();
    assert_eq!(graphs.len(), 2);
    let header = neff.header().cloned();
    assert_eq!(HashSet::from([header.clone(), header]).len(), 1);
    assert!(HashSet::from([neff.hash().unwrap()]).contains(&HashStatus::MatchWordSwapped));
    fn open(path: &str) -> Result<Neff, Box<dyn std::error::Error + Send + Sync>> {
        Ok(Neff::open(path, &ReadOptions::default())?)
    }
    let e = open("/nonexistent/x.neff").unwrap_err();
    assert_eq!(e.to_string(), "reading /nonexistent/x.neff");
    let reason = e.source().expect("the system's reason").to_string();
    assert!(reason.contains("No such file"), "{reason}");
}

/// A NEFF's `Debug` lists its members by path and size, without their bytes.
#[test]
fn debug_does_not_print_the_members_bytes() {
    let bytes = std::fs::read(support::corpus("matmul_large.neff")).unwrap();
    let neff = Neff::from_bytes(&bytes, &ReadOptions::default()).unwrap();
    let text = format!("{neff:?}");
    assert!(text.contains("path: \"sg00/PE.bin\", size: 1361216, loaded: true"), "{text}");
    assert!(text.len() < 64 << 10, "{} bytes of Debug", text.len());
    // Nor do its parts': a member, a stream, the header.
    let m = neff.members().max_by_key(|m| m.data.len()).unwrap();
    let text = format!("{m:?}");
    assert!(text.contains(&format!("data: {} bytes ", m.data.len())), "{text}");
    assert!(text.len() < 256, "{text}");
    let s = neff.streams().next().unwrap();
    let text = format!("{s:?}");
    assert!(text.contains("graph: \"sg00\""), "{text}");
    assert!(text.len() < 1024, "{text}");
    let text = format!("{:?}", neff.header().unwrap());
    assert!(text.contains("name: \"file.neff\""), "{text}");
    assert!(text.len() < 1024, "{text}");
}
