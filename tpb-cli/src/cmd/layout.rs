//! `tpb layout`: an arm's fields as an offset table and a 64-cell byte diagram.

use std::io::Write;

use anyhow::{bail, Result};
use tpb_isa::disasm::desc::{archs_in, holds, nearest, target, FieldDesc, Kind, Role, Target};
use tpb_isa::disasm::ArmText;
use tpb_isa::generated::disasm::{ARMS, MNEMONICS};
use tpb_isa::inst::{binding_on, Binding, BINDINGS};
use tpb_isa::{Arch, Opcode};

use crate::records::{parse_arch, DEFAULT_ARCH, RECORD_SIZE};
use crate::table::table;

#[derive(clap::Args)]
pub struct Args {
    /// The arm: its spec name, its mnemonic or an opcode's, or an opcode value as `tpb
    /// stats` prints it (S3D3_MM, matmul, 0x02); an opcode the spec names without a
    /// layout is said to have none. Without it, the generation's opcode map: every
    /// opcode it names, its mnemonic, arm, engines and status.
    arm: Option<String>,
    /// The generation whose layout is shown (a name, label or alias: cayman, V3, trn2); cayman when absent.
    #[arg(long)]
    arch: Option<String>,
}

impl Args {
    pub fn run(self, out: &mut dyn Write) -> Result<bool> {
        let arch = self.arch.as_deref().map(parse_arch).transpose()?.unwrap_or(DEFAULT_ARCH);
        let Some(arm) = &self.arm else {
            opcode_map(out, arch)?;
            return Ok(true);
        };
        let by_value = match opcode_value(arm) {
            Some(op) => match by_opcode(op, arch)? {
                Some(d) => Some(d),
                None => {
                    writeln!(out, "{}", no_layout(op))?;
                    return Ok(true);
                }
            },
            None => None,
        };
        let Some(d) = by_value.or_else(|| find_arm(arm)) else {
            if let Some(op) = opaque(arm) {
                writeln!(out, "{}", no_layout(op))?;
                return Ok(true);
            }
            let hint = near(arm).map_or_else(String::new, |n| format!("; did you mean '{n}'?"));
            bail!(
                "'{}' is neither an arm nor a mnemonic (tpb layout takes an arm's spec name \
                 (S3D3_MM), a mnemonic tpb asm reads (matmul, pseudo_exit_execution) or an \
                 opcode value (0x02)){hint}",
                crate::text::escape(arm.as_bytes())
            );
        };
        let opcodes: Vec<String> = BINDINGS
            .iter()
            .filter(|b| b.arm == d.kind)
            .map(|b| {
                let at = match b.sub {
                    Some(s) => format!("{:#04x} with byte {} == {}", b.opcode, s.offset, s.value),
                    None => format!("{:#04x}", b.opcode),
                };
                // A binding another generation's `@archs` keep selects nothing here.
                if binding_on(arch, &b.record()) {
                    at
                } else {
                    format!("{at} ({})", not_bound_here(b, arch))
                }
            })
            .collect();
        let mnemonics = mnemonics(d);
        let label = if mnemonics.len() == 1 { "mnemonic" } else { "mnemonics" };
        let layout = d.layout(arch);
        // An arm without a layout on `arch` shows its oldest, named by its generations.
        let on = if holds(layout.archs, arch) {
            format!("layout on {}", arch.name())
        } else {
            let archs: Vec<&str> = archs_in(layout.archs).map(Arch::name).collect();
            format!("not on {}; its layout on {}", arch.name(), archs.join(", "))
        };
        writeln!(out, "{} ({label} {}), {on}", d.name, mnemonics.join(", "))?;
        let fields: Vec<&FieldDesc> = layout.leaves().collect();
        if opcodes.is_empty() {
            writeln!(out, "opcode: not bound (decoded only explicitly)")?;
        } else {
            writeln!(out, "opcode: {}", opcodes.join(", "))?;
        }
        writeln!(out)?;
        let mut rows = vec![["key", "offset", "size", "field", "type", "confidence"]
            .map(String::from)
            .to_vec()];
        for (i, f) in fields.iter().enumerate() {
            rows.push(vec![
                key(i).to_string(),
                format!("+{}", f.offset),
                f.kind.size().to_string(),
                f.name.to_owned(),
                match (f.role, f.kind) {
                    (Role::Reserved, Kind::Bytes(n)) => format!("reserved[{n}]"),
                    (Role::Unknown, Kind::Bytes(n)) => format!("unknown[{n}]"),
                    (_, k) => kind_name(&k),
                },
                format!("{:?}", f.confidence).to_lowercase(),
            ]);
        }
        table(out, &rows)?;
        writeln!(out)?;
        // One cell per byte, 16 to a row, holding the key of the field that covers it.
        let mut owner = [' '; RECORD_SIZE];
        for (i, f) in fields.iter().enumerate() {
            for b in f.range() {
                owner[b] = key(i);
            }
        }
        write!(out, "     ")?;
        for c in 0..16 {
            write!(out, " {c:x}")?;
        }
        writeln!(out)?;
        for row in 0..RECORD_SIZE / 16 {
            write!(out, "+{:02} |", row * 16)?;
            for c in 0..16 {
                let b = row * 16 + c;
                let sep = if c == 15 || owner[b] != owner[b + 1] { '|' } else { ' ' };
                write!(out, "{}{sep}", owner[b])?;
            }
            writeln!(out)?;
        }
        Ok(true)
    }
}

/// The opcode map of `arch`: a row for every opcode value the spec names there (one
/// per sub-opcode binding of an opcode that reads another byte), with its mnemonic, the
/// arm its records are read as (or none), its engines and its status.
fn opcode_map(out: &mut dyn Write, arch: Arch) -> Result<()> {
    let mut rows =
        vec![["opcode", "name", "mnemonic", "arm", "engines", "status"].map(String::from).to_vec()];
    let (mut named, mut laid_out) = (0, 0);
    for op in (0..=u8::MAX).map(Opcode) {
        let bound: Vec<&Binding> =
            BINDINGS.iter().filter(|b| b.opcode == op.0 && binding_on(arch, &b.record())).collect();
        // The values the spec names on `arch`, and a value it names nowhere that a binding
        // reads (a binding of another generation's opcode selects its records only to
        // say they are not this one's).
        let name = match op.name() {
            Some(n) if op.available_on(arch) => n,
            None if !bound.is_empty() => "-",
            _ => continue,
        };
        named += usize::from(op.is_known());
        let engines: Vec<&str> = op.engines().iter().map(|e| e.name()).collect();
        let status = op.status().map_or("-", |s| s.as_str());
        let mut row = |at: String, mnemonic: &str, arm: String| {
            rows.push(vec![
                at,
                name.to_owned(),
                mnemonic.to_owned(),
                arm,
                engines.join(", "),
                status.to_owned(),
            ]);
        };
        if bound.is_empty() {
            row(format!("{:#04x}", op.0), "-", "(no layout)".to_owned());
        }
        for b in &bound {
            laid_out += 1;
            let at = match b.sub {
                Some(s) => format!("{:#04x} (byte {} == {})", b.opcode, s.offset, s.value),
                None => format!("{:#04x}", b.opcode),
            };
            row(at, b.mnemonic, ARMS[b.arm as usize].name.to_owned());
        }
    }
    writeln!(
        out,
        "opcodes of {}: {named} named, {laid_out} bindings with a layout (tpb layout ARM for \
         one's fields)\n",
        arch.name()
    )?;
    table(out, &rows)?;
    Ok(())
}

fn kind_name(k: &Kind) -> String {
    match k {
        Kind::Uint(w) => format!("u{}", 8 * w),
        Kind::Int(w) => format!("i{}", 8 * w),
        Kind::F32 => "f32".to_owned(),
        Kind::Enum(e) => e.name.to_owned(),
        Kind::Union(u) => u.name.to_owned(),
        Kind::Bits(b) => b.name.to_owned(),
        Kind::Array(k, n) => format!("[{}; {n}]", kind_name(k)),
        Kind::Str(n) => format!("[i8; {n}] (name)"),
        Kind::Bytes(n) => format!("bytes[{n}]"),
    }
}

/// The mnemonics that assemble to `arm`, as `tpb asm` reads them: its bindings' (the
/// opcodes' names) where it has any, else the arm's own.
fn mnemonics(arm: &ArmText) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for b in BINDINGS.iter().filter(|b| b.arm == arm.kind) {
        if !out.contains(&b.mnemonic) {
            out.push(b.mnemonic);
        }
    }
    if out.is_empty() {
        out.push(arm.mnemonic);
    }
    out
}

fn find_arm(name: &str) -> Option<&'static ArmText> {
    ARMS.iter().find(|a| a.name.eq_ignore_ascii_case(name) || a.mnemonic == name).or_else(|| {
        let b = BINDINGS.iter().find(|b| b.mnemonic.eq_ignore_ascii_case(name))?;
        Some(ArmText::of(b.arm))
    })
}

/// The mnemonic or arm name a misspelt `name` is near (`matmull`, `S3D3_M`), as the
/// assembler's hints find them.
fn near(name: &str) -> Option<&'static str> {
    let mnemonics = MNEMONICS.iter().map(|&(m, _)| m);
    nearest(&name.to_ascii_lowercase(), mnemonics)
        .or_else(|| nearest(&name.to_ascii_uppercase(), ARMS.iter().map(|a| a.name)))
}

/// The opcode value `text` writes in hex (`0x02`, as `tpb stats` and the listing show
/// opcodes), if it is one.
fn opcode_value(text: &str) -> Option<u8> {
    let hex = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"))?;
    u8::from_str_radix(hex, 16).ok()
}

/// The arm opcode `op` selects on `arch` (or, failing that, on any generation); `None`
/// when the spec names the opcode but binds no arm to it, and an error when it does not
/// name it or several arms share it by sub-opcode (their mnemonics are the way in).
fn by_opcode(op: u8, arch: Arch) -> Result<Option<&'static ArmText>> {
    let all: Vec<_> = BINDINGS.iter().filter(|b| b.opcode == op).collect();
    let here: Vec<_> = all.iter().copied().filter(|b| binding_on(arch, &b.record())).collect();
    let bound = if here.is_empty() { all } else { here };
    match bound.as_slice() {
        [] if Opcode(op).name().is_some() => Ok(None),
        [] => bail!("opcode {op:#04x} is not named in the spec: it has no layout"),
        [b] => Ok(Some(ArmText::of(b.arm))),
        many => {
            let m: Vec<String> = many
                .iter()
                .map(|b| match b.sub {
                    Some(s) => format!("{} (byte {} == {})", b.mnemonic, s.offset, s.value),
                    None => b.mnemonic.to_owned(),
                })
                .collect();
            bail!(
                "opcode {op:#04x} selects its layout by a sub-opcode; name one of its \
                 mnemonics: {}",
                m.join(", ")
            )
        }
    }
}

/// The opcode `name` (a mnemonic, in any case) names when the spec gives it no arm.
fn opaque(name: &str) -> Option<u8> {
    match target(&name.to_ascii_lowercase())? {
        Target::Opaque(op) => Some(op),
        _ => None,
    }
}

/// What `tpb layout` says of an opcode without a layout: there is none to show, and how
/// its records read.
fn no_layout(op: u8) -> String {
    let name = Opcode(op).name().unwrap_or("?");
    format!(
        "{name} (mnemonic {}, opcode {op:#04x}) is named in the spec but has no layout: no \
         arm reads its records, which print and assemble as the preamble's fields and the \
         payload's bytes",
        name.to_ascii_lowercase()
    )
}

/// Why binding `b` selects nothing on `arch`: its opcode does not exist there, or the
/// binding's own `@archs` leave it out (its records there are a named opcode's without a
/// layout).
fn not_bound_here(b: &Binding, arch: Arch) -> String {
    if !Opcode(b.opcode).available_on(arch) {
        return format!("the opcode does not exist on {}", arch.name());
    }
    let bound = Arch::ALL.iter().filter(|&&a| binding_on(a, &b.record())).map(|&a| a.name());
    format!(
        "bound on {} only: on {} its records print as the opcode's preamble and payload",
        bound.collect::<Vec<_>>().join(", "),
        arch.name()
    )
}

/// The one-character key of field `i` in a byte diagram.
fn key(i: usize) -> char {
    const KEYS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    KEYS.get(i).map_or('?', |&c| c as char)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mnemonic `tpb layout` names assembles to its arm, so a user can write the
    /// line it suggests.
    #[test]
    fn named_mnemonics_assemble_to_the_arm() {
        for arm in ARMS.iter() {
            for m in mnemonics(arm) {
                let kind = match target(m) {
                    Some(Target::Binding(n)) => BINDINGS[n as usize].arm,
                    Some(Target::Arm(k)) => k,
                    other => panic!("{}: mnemonic {m} assembles to {other:?}", arm.name),
                };
                assert_eq!(kind, arm.kind, "{}: mnemonic {m}", arm.name);
            }
        }
    }

    #[test]
    fn a_misspelt_name_names_the_one_meant() {
        assert_eq!(near("matmull"), Some("matmul"));
        assert_eq!(near("LDWEIGHT"), Some("ldweights"));
        assert_eq!(near("S3D3_M"), Some("S3D3_MM"));
        assert_eq!(near("zzzzzzzz"), None);
    }

    #[test]
    fn an_opcode_value_finds_its_arm() {
        assert_eq!(opcode_value("0x02"), Some(2));
        assert_eq!(opcode_value("0X4f"), Some(0x4f));
        assert_eq!(opcode_value("2"), None);
        assert_eq!(opcode_value("0x100"), None);
        let name = |op| by_opcode(op, Arch::Cayman).unwrap().map(|a| a.name);
        assert_eq!(name(0x02), Some("S3D3_MM"));
        assert_eq!(name(0x43), Some("S3D3_TS"));
        // Named without a layout: none to show.
        assert_eq!(name(0xb1), None);
        let e = by_opcode(0xdf, Arch::Cayman).unwrap_err().to_string();
        assert!(e.contains("pseudo_exit_execution (byte 12 == 1)"), "{e}");
        let unnamed = (0..=u8::MAX).find(|&op| Opcode(op).name().is_none()).unwrap();
        assert!(by_opcode(unnamed, Arch::Cayman).is_err());
    }

    /// An arm or binding the generation lacks is said to be missing there, never shown
    /// as that generation's layout.
    #[test]
    fn what_a_generation_lacks_is_said() {
        let first_lines = |arm: &str, arch: &str| {
            let mut out = Vec::new();
            let args = Args { arm: Some(arm.to_owned()), arch: Some(arch.to_owned()) };
            assert!(args.run(&mut out).unwrap());
            String::from_utf8(out).unwrap().lines().take(2).collect::<Vec<_>>().join("\n")
        };
        assert_eq!(
            first_lines("matmul_mx", "cayman"),
            "SMX1D3_MM (mnemonic matmul_mx), not on cayman; its layout on mariana, maverick\n\
             opcode: 0x0a (the opcode does not exist on cayman)"
        );
        assert_eq!(
            first_lines("matmul_mx", "mariana"),
            "SMX1D3_MM (mnemonic matmul_mx), layout on mariana\nopcode: 0x0a"
        );
        assert_eq!(
            first_lines("reg_shuffle", "cayman"),
            "CTRL_RS (mnemonic reg_shuffle), layout on cayman\nopcode: 0x4c (bound on sunda \
             only: on cayman its records print as the opcode's preamble and payload)"
        );
    }

    #[test]
    fn a_bound_arm_is_named_by_its_opcodes() {
        let mm = find_arm("S3D3_MM").expect("the spec has S3D3_MM");
        assert_eq!(mnemonics(mm), ["matmul"]);
    }
}
