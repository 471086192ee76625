//! The committed spec (`isa/`) holds every fact of the seeds.
//!
//! Each test loads the spec, reads it back through the checked [`Model`], and compares
//! it with numbers written here from the seeds (not from the spec): the record seed
//! `/work/shared/seeds/000_f391f18c730f0f92.txt` ("record seed"), the geometry seed
//! `/work/shared/seeds/004_709a20b376ab31f2.txt` ("geometry seed") and the driver facts
//! `/work/shared/facts/driver-geometry.md` ("driver facts"). Each assertion quotes the
//! seed text it rests on.
//!
//! The spec directory is `$TPB_SPEC_DIR` if set, else `isa/` next to this crate.
//!
//! The assertions rest on facts (values, offsets, sizes, sources), so they hold for the
//! seed spec and for the spec with the public ISA imported: an arm may then have one
//! layout per generation (a seed offset holds on every one), a seed type may be one
//! view of a union, and a name the seed does not give may differ.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::OnceLock;

use codegen::model::*;
use codegen::{load, Model, Sources};

fn spec_dir() -> PathBuf {
    match std::env::var_os("TPB_SPEC_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../isa")),
    }
}

/// The committed spec, loaded as `cargo xtask` reads it.
fn spec_sources() -> Sources {
    let s = Sources::read_spec(&spec_dir(), "isa").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        s.iter().any(|(_, f)| f.path.ends_with(".isa")),
        "no .isa files in {}",
        spec_dir().display()
    );
    s
}

fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        load(spec_sources())
            .unwrap_or_else(|f| panic!("the committed spec does not check:\n{}", f.render()))
    })
}

// ---------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------

fn record(m: &Model) -> &Record {
    assert_eq!(m.record.name, "TPB_INST");
    &m.record
}

fn strukt<'m>(m: &'m Model, name: &str) -> &'m Struct {
    &m[m.struct_named(name).unwrap_or_else(|| panic!("struct {name}"))]
}

fn arm<'m>(m: &'m Model, name: &str) -> (ArmId, &'m Arm) {
    let id = m.arm_named(name).unwrap_or_else(|| panic!("arm {name}"));
    (id, &m[id])
}

fn field<'a>(fields: &'a [Field], name: &str) -> &'a Field {
    fields.iter().find(|f| f.name == name).unwrap_or_else(|| {
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        panic!("no field '{name}' among {names:?}")
    })
}

/// The fields of an arm's oldest layout (the only one for an arm that is the same on
/// every generation).
fn fields<'m>(m: &'m Model, arm_name: &str) -> &'m [Field] {
    &arm(m, arm_name).1.layouts[0].fields
}

/// `(offset, size)` of a field of an arm (offsets from the record start), the same on
/// every generation: the seed gives one layout.
fn at(m: &Model, arm_name: &str, field_name: &str) -> (u32, u32) {
    let (_, a) = arm(m, arm_name);
    let per_layout: BTreeSet<(u32, u32)> = a
        .layouts
        .iter()
        .map(|l| {
            let f = field(&l.fields, field_name);
            (f.offset, f.size)
        })
        .collect();
    assert_eq!(per_layout.len(), 1, "{arm_name}.{field_name} moves between generations");
    per_layout.into_iter().next().unwrap()
}

/// Whether a field of type `ty` reads as `want`: it is `want`, or a union one of whose
/// views is `want` (where a source types the bytes as a union on later generations).
fn reads_as(m: &Model, ty: &FieldType, want: &FieldType) -> bool {
    ty == want || matches!(ty, FieldType::Union(u) if m[*u].views.iter().any(|v| &v.ty == want))
}

/// Assert that `arm.field` reads as `want` on every generation.
fn typed(m: &Model, arm_name: &str, field_name: &str, want: &FieldType) {
    for l in &arm(m, arm_name).1.layouts {
        let f = field(&l.fields, field_name);
        assert!(reads_as(m, &f.ty, want), "{arm_name}.{field_name} on {:?} is {:?}", l.archs, f.ty);
    }
}

fn names_in_offset_order(fields: &[Field]) -> Vec<&str> {
    let mut v: Vec<&Field> = fields.iter().collect();
    v.sort_by_key(|f| f.offset);
    v.into_iter().map(|f| f.name.as_str()).collect()
}

fn enum_value(m: &Model, e: &str, variant: &str) -> u64 {
    let e = &m[m.enum_named(e).unwrap_or_else(|| panic!("enum {e}"))];
    e.variant_named(variant).unwrap_or_else(|| panic!("{}::{variant}", e.name)).value
}

fn bits<'m>(m: &'m Model, name: &str) -> &'m Bits {
    &m[m.bits_named(name).unwrap_or_else(|| panic!("bits {name}"))]
}

fn arch_id(m: &Model, name: &str) -> ArchId {
    m.arch_named(name).unwrap_or_else(|| panic!("arch {name}"))
}

fn geom(m: &Model, name: &str) -> GeomId {
    m.geom_named(name).unwrap_or_else(|| panic!("geometry item '{name}' (see isa/geometry.isa)"))
}

/// The value of geometry item `name` on `arch`, if it has one.
fn value(m: &Model, arch: &str, name: &str) -> Option<Value> {
    m[arch_id(m, arch)].value(geom(m, name)).map(|v| v.value.clone())
}

fn int(m: &Model, arch: &str, name: &str) -> i128 {
    match value(m, arch, name) {
        Some(Value::Int(v)) => v,
        other => panic!("{arch}.{name} is {other:?}, not an integer"),
    }
}

fn ints(v: &[i128]) -> Value {
    Value::Array(v.iter().map(|x| Value::Int(*x)).collect())
}

fn table(m: &Model, arch: &str, name: &str) -> Vec<i128> {
    match value(m, arch, name) {
        Some(Value::Array(v)) => v
            .iter()
            .map(|x| {
                x.as_int().unwrap_or_else(|| panic!("{arch}.{name} has a non-integer entry {x:?}"))
            })
            .collect(),
        other => panic!("{arch}.{name} is {other:?}, not a table"),
    }
}

const ARCHS: [&str; 3] = ["sunda", "cayman", "mariana"];

/// Assert `name` is `expected[i]` on `ARCHS[i]`.
fn per_arch(m: &Model, name: &str, expected: [i128; 3]) {
    for (arch, want) in ARCHS.iter().zip(expected) {
        assert_eq!(int(m, arch, name), want, "{arch}.{name}");
    }
}

/// Evaluate a rule of the geometry schema on one arch (the spec's own rule, through the
/// model); `None` when a `requires` guard fails.
fn apply_rule(m: &Model, arch: &str, rule: &str, args: &[i128]) -> Option<i128> {
    fn eval(m: &Model, a: &Arch, e: &Expr, args: &[i128]) -> i128 {
        match e {
            Expr::Int(v) => *v,
            Expr::Param(p) => args[*p as usize],
            Expr::Value(g) => a
                .value(*g)
                .and_then(|v| v.value.as_int())
                .unwrap_or_else(|| panic!("{} has no integer value for '{}'", a.name, m[*g].name)),
            Expr::Binary(op, l, r) => {
                let (l, r) = (eval(m, a, l, args), eval(m, a, r, args));
                op.apply(l, r).unwrap_or_else(|| panic!("{l} {op:?} {r} leaves i128 on {}", a.name))
            }
        }
    }
    let a = &m[arch_id(m, arch)];
    let GeomKind::Rule { params, expr, requires } = &m[geom(m, rule)].kind else {
        panic!("'{rule}' is not a rule")
    };
    assert_eq!(params.len(), args.len(), "arity of {rule}");
    for c in requires {
        let (l, r) = (eval(m, a, &c.lhs, args), eval(m, a, &c.rhs, args));
        if !c.op.holds(l, r) {
            return None;
        }
    }
    Some(eval(m, a, expr, args))
}

// ---------------------------------------------------------------------------------
// Record seed: the record and its preamble
// ---------------------------------------------------------------------------------

#[test]
fn record_is_64_bytes_with_the_opcode_at_byte_0() {
    let m = model();
    let r = record(m);
    // "TPB_INST_NBYTES is 0x40"; "every walker uses a +0x40 stride and byte[0] as the discriminant"
    assert_eq!(r.size, 0x40);
    assert_eq!(r.discriminant.offset, 0);
    // "Byte [0] is the opcode" (NEURON_ISA_TPB_OPCODE, "1-byte underlying type")
    let op = &m[r.discriminant.ty];
    assert_eq!(op.name, "OPCODE");
    assert_eq!(op.width, Prim::U8);
    // "All 118 arms share a 12-byte preamble"; "diverge into per-opcode payload from byte [12] onward"
    assert_eq!(r.preamble_size, 12);
    // "NEURON_ISA_TPB_HEADER (4 B at +0) + NEURON_ISA_TPB_EVENTS (8 B at +4)"
    let header = field(&r.preamble, "header");
    assert_eq!((header.offset, header.size), (0, 4));
    assert_eq!(header.ty, FieldType::Struct(m.struct_named("HEADER").unwrap()));
    let events = field(&r.preamble, "events");
    assert_eq!((events.offset, events.size), (4, 8));
    assert_eq!(events.ty, FieldType::Struct(m.struct_named("EVENTS").unwrap()));
}

#[test]
fn header_fields() {
    let m = model();
    let h = strukt(m, "HEADER");
    // "NEURON_ISA_TPB_HEADER (4 bytes @+0)"; the diagram: opcode [0], inst_word_len [1],
    // debug_cmd [2], dbg_hint [3]
    assert_eq!(h.size, 4);
    let want = [("opcode", 0), ("inst_word_len", 1), ("debug_cmd", 2), ("debug_hint", 3)];
    for (name, off) in want {
        let f = field(&h.fields, name);
        assert_eq!((f.offset, f.size), (off, 1), "HEADER.{name}");
    }
    assert_eq!(h.fields.len(), 4);
    // "Byte [0] is the opcode"
    assert_eq!(field(&h.fields, "opcode").ty, FieldType::Enum(m.enum_named("OPCODE").unwrap()));
}

#[test]
fn events_fields() {
    let m = model();
    let e = strukt(m, "EVENTS");
    // "an 8-byte EVENTS tuple (wait_mode/wait_idx/update_mode/update_idx/semaphore_value)"
    assert_eq!(e.size, 8);
    assert_eq!(
        names_in_offset_order(&e.fields),
        ["wait_mode", "wait_idx", "update_mode", "update_idx", "semaphore_value"]
    );
    // "EVENTS has an extended 12-byte sibling NEURON_ISA_TPB_EVENTS_EXTENDED that splits
    // semaphore_value into separate sem_wait_value (+4) and sem_update_value (+8)"
    let x = strukt(m, "EVENTS_EXTENDED");
    assert_eq!(x.size, 12);
    assert_eq!(field(&x.fields, "sem_wait_value").offset, 4);
    assert_eq!(field(&x.fields, "sem_update_value").offset, 8);
}

// ---------------------------------------------------------------------------------
// Record seed section 3: operands and apertures
// ---------------------------------------------------------------------------------

#[test]
fn addr4_marker_discipline() {
    let m = model();
    let b = bits(m, "ADDR4");
    assert_eq!(b.width, Prim::U32);
    let marker = b.fields.iter().position(|f| f.name == "marker").expect("ADDR4.marker") as u32;
    let alt =
        |name: &str| b.alts.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("alt {name}"));
    // "ADDR4.marker & 0xA0 == 0x80 → register addressing"
    assert_eq!(alt("register").when, Some(Predicate { field: marker, mask: 0xA0, value: 0x80 }));
    // "ADDR4.marker & 0x60 == 0x20 → indirect addressing"
    assert_eq!(alt("indirect").when, Some(Predicate { field: marker, mask: 0x60, value: 0x20 }));
    // "Immediate form: addr_immediate & 0x1FFFFFFF is the 29-bit address; quadrant bits
    // & 0x1E000000 select the SBUF/PSUM aperture."
    let imm = alt("immediate");
    assert_eq!(imm.when, None, "the immediate form is the otherwise case");
    let f = |n: &str| {
        imm.fields.iter().find(|f| f.name == n).unwrap_or_else(|| panic!("immediate.{n}"))
    };
    assert_eq!(f("immediate").mask(), 0x1FFF_FFFF);
    assert_eq!(f("quadrant").mask(), 0x1E00_0000);
    // "distinguished by the marker byte at the top of the operand"
    let mk = &b.fields[marker as usize];
    assert_eq!((mk.lo, mk.hi), (24, 32));
}

#[test]
fn operand_sizes() {
    let m = model();
    // "+16 src_mem_pattern (TENSOR3D, 16)"
    assert_eq!(strukt(m, "TENSOR3D").size, 16);
    // "+24 immediate (ALU_IMMEDIATE, 8)"
    assert_eq!(bits(m, "ALU_IMMEDIATE").width.size(), 8);
    // "+16 src_start_addr (ADDR8, 8)"
    assert_eq!(bits(m, "ADDR8").width.size(), 8);
    // "+16 src0_lo/hi src1_lo/hi dst_lo/hi (6× REG_NUM)" followed by "+22 reserved1"
    assert_eq!(bits(m, "REG_NUM").width.size(), 1);
}

#[test]
fn apertures() {
    let m = model();
    let ap = |name: &str| {
        m.apertures.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("aperture {name}"))
    };
    // "quadrant apertures (q0 0..0x37FFF, q1 base 0x800000, q2 0x1000000, q3 0x1800000,
    // each 0x38000 wide"
    let q = ap("SBUF_QUADRANT");
    let got: Vec<(&str, u64, u64)> =
        q.regions.iter().map(|r| (r.name.as_str(), r.base, r.size)).collect();
    assert_eq!(
        got,
        [
            ("q0", 0, 0x38000),
            ("q1", 0x800000, 0x38000),
            ("q2", 0x1000000, 0x38000),
            ("q3", 0x1800000, 0x38000)
        ]
    );
    // "PSUM 0x2000000..0x2203FFF" (inclusive)
    let p = ap("PSUM");
    assert_eq!(p.regions.len(), 1);
    let r = &p.regions[0];
    assert_eq!((r.base, r.base + r.size - 1), (0x2000000, 0x2203FFF));
    // The seed does not relate 0x38000 to the SBUF partition size; the doc that does
    // cites where it has it.
    let doc = q.meta.docs.join(" ");
    assert!(doc.contains("SDK's NC-v3 SBUF partition size"), "{doc}");
    assert!(
        q.meta.sources.iter().any(|s| s.contains("trainium2_arch.rst")),
        "{:?}",
        q.meta.sources
    );
}

// ---------------------------------------------------------------------------------
// Record seed section 2: worked arm layouts
// ---------------------------------------------------------------------------------

/// Every layout of every arm covers +0..+64 exactly once, and an arm that inherits the
/// whole preamble declares its own fields from +12 ("All 118 arms share a 12-byte
/// preamble"; the public notes name four arms that do not, and those say which preamble
/// members they keep).
#[test]
fn arms_cover_the_record_after_the_preamble() {
    let m = model();
    for a in &m.arms {
        for l in &a.layouts {
            let mut cursor = 0;
            for f in &l.fields {
                assert_eq!(f.offset, cursor, "arm {} field {}", a.name, f.name);
                cursor += f.size;
                if a.full_preamble && !f.inherited {
                    assert!(
                        f.offset >= 12,
                        "arm {} field {} is inside the preamble",
                        a.name,
                        f.name
                    );
                }
            }
            assert_eq!(cursor, 64, "arm {}", a.name);
            let inherited = l.fields.iter().filter(|f| f.inherited).count();
            assert_eq!(inherited == m.record.preamble.len(), a.full_preamble, "arm {}", a.name);
        }
    }
}

#[test]
fn ctrl_al_layout() {
    let m = model();
    // "+12 op / dtype / src_datasrc / dst_dtype (4×1)"
    for (i, name) in ["op", "dtype", "src_datasrc", "dst_dtype"].iter().enumerate() {
        assert_eq!(at(m, "CTRL_AL", name), (12 + i as u32, 1), "CTRL_AL.{name}");
    }
    // "+16 src0_lo/hi src1_lo/hi dst_lo/hi (6× REG_NUM)"
    let reg = FieldType::Bits(m.bits_named("REG_NUM").unwrap());
    for (i, name) in
        ["src0_lo", "src0_hi", "src1_lo", "src1_hi", "dst_lo", "dst_hi"].iter().enumerate()
    {
        assert_eq!(at(m, "CTRL_AL", name), (16 + i as u32, 1), "CTRL_AL.{name}");
        typed(m, "CTRL_AL", name, &reg);
    }
    // "+22 reserved1 (2)", "+24 immediate (ALU_IMMEDIATE, 8)", "+32 reserved2 (32)"
    assert_eq!(at(m, "CTRL_AL", "reserved1"), (22, 2));
    assert_eq!(at(m, "CTRL_AL", "immediate"), (24, 8));
    typed(m, "CTRL_AL", "immediate", &FieldType::Bits(m.bits_named("ALU_IMMEDIATE").unwrap()));
    assert_eq!(at(m, "CTRL_AL", "reserved2"), (32, 32));
}

#[test]
fn dma_direct2d_layout() {
    let m = model();
    // "+12 dma_configs / semaphore / sem_increment / compute_op" (in the four bytes before +16)
    let own: Vec<Field> =
        fields(m, "DMA_DIRECT2D").iter().filter(|f| !f.inherited).cloned().collect();
    let head: Vec<&str> = names_in_offset_order(&own).into_iter().take(4).collect();
    assert_eq!(head, ["dma_configs", "semaphore", "sem_increment", "compute_op"]);
    assert_eq!(at(m, "DMA_DIRECT2D", "dma_configs").0, 12);
    // "+16 src_start_addr (ADDR8, 8)"
    let addr8 = FieldType::Bits(m.bits_named("ADDR8").unwrap());
    assert_eq!(at(m, "DMA_DIRECT2D", "src_start_addr"), (16, 8));
    typed(m, "DMA_DIRECT2D", "src_start_addr", &addr8);
    // "+24 src_step_elem (int32[2]) / +32 src_num_elem (u16[2])"
    assert_eq!(at(m, "DMA_DIRECT2D", "src_step_elem"), (24, 8));
    typed(
        m,
        "DMA_DIRECT2D",
        "src_step_elem",
        &FieldType::Array(Box::new(FieldType::Prim(Prim::I32)), 2),
    );
    assert_eq!(at(m, "DMA_DIRECT2D", "src_num_elem"), (32, 4));
    typed(
        m,
        "DMA_DIRECT2D",
        "src_num_elem",
        &FieldType::Array(Box::new(FieldType::Prim(Prim::U16)), 2),
    );
    // "+36 src_elem_size / +38 src_bound_reg / +39 dst_bound_reg"
    assert_eq!(at(m, "DMA_DIRECT2D", "src_elem_size").0, 36);
    assert_eq!(at(m, "DMA_DIRECT2D", "src_bound_reg").0, 38);
    assert_eq!(at(m, "DMA_DIRECT2D", "dst_bound_reg").0, 39);
    // "+40 dst_start_addr (ADDR8, 8) / +48 dst_step_elem ..."
    assert_eq!(at(m, "DMA_DIRECT2D", "dst_start_addr"), (40, 8));
    typed(m, "DMA_DIRECT2D", "dst_start_addr", &addr8);
    assert_eq!(at(m, "DMA_DIRECT2D", "dst_step_elem").0, 48);
    // "+62 in_dtype / +63 out_dtype"
    assert_eq!(at(m, "DMA_DIRECT2D", "in_dtype"), (62, 1));
    assert_eq!(at(m, "DMA_DIRECT2D", "out_dtype"), (63, 1));
}

#[test]
fn s3d3_ts_layout() {
    let m = model();
    let tensor = FieldType::Struct(m.struct_named("TENSOR3D").unwrap());
    // "+12 accumulator_cmd / reserved0 (3)"
    assert_eq!(at(m, "S3D3_TS", "accumulator_cmd").0, 12);
    assert_eq!(at(m, "S3D3_TS", "reserved0").1, 3);
    // "+16 src_mem_pattern (TENSOR3D, 16)"
    // (The public notes type it MEM_PATTERN3D from mariana on, a union whose views
    // include TENSOR3D: the seed's reading stays one of the readings.)
    assert_eq!(at(m, "S3D3_TS", "src_mem_pattern"), (16, 16));
    typed(m, "S3D3_TS", "src_mem_pattern", &tensor);
    // "+32 in_dtype / out_dtype / num_active_channels"
    // "+35 imm0_src / op0 / op1 / reverse_operands / imm1_src"
    let order = names_in_offset_order(fields(m, "S3D3_TS"));
    let from32: Vec<&str> =
        order.iter().copied().skip_while(|n| *n != "in_dtype").take(8).collect();
    assert_eq!(
        from32,
        [
            "in_dtype",
            "out_dtype",
            "num_active_channels",
            "imm0_src",
            "op0",
            "op1",
            "reverse_operands",
            "imm1_src"
        ]
    );
    assert_eq!(at(m, "S3D3_TS", "in_dtype").0, 32);
    assert_eq!(at(m, "S3D3_TS", "imm0_src").0, 35);
    // "+40 imm0 (4) / +44 imm1 (4)"
    assert_eq!(at(m, "S3D3_TS", "imm0"), (40, 4));
    assert_eq!(at(m, "S3D3_TS", "imm1"), (44, 4));
    // "+48 dst_mem_pattern (TENSOR3D, 16)"
    assert_eq!(at(m, "S3D3_TS", "dst_mem_pattern"), (48, 16));
    typed(m, "S3D3_TS", "dst_mem_pattern", &tensor);
}

#[test]
fn pseudo_function_layouts() {
    let m = model();
    let name_ty = FieldType::Array(Box::new(FieldType::Prim(Prim::I8)), 36);
    // PSEUDO_FUNCTION_CALL: "+12 function_name (int8[36])", "+48 args_table_var_id (uint32)",
    // "+52 reserved0 (12)"
    assert_eq!(at(m, "PSEUDO_FUNCTION_CALL", "function_name"), (12, 36));
    typed(m, "PSEUDO_FUNCTION_CALL", "function_name", &name_ty);
    assert_eq!(at(m, "PSEUDO_FUNCTION_CALL", "args_table_var_id"), (48, 4));
    typed(m, "PSEUDO_FUNCTION_CALL", "args_table_var_id", &FieldType::Prim(Prim::U32));
    assert_eq!(at(m, "PSEUDO_FUNCTION_CALL", "reserved0"), (52, 12));
    // PSEUDO_FUNCTION_BEGIN: "+12 function_name (int8[36])", "+48 return_reset_semaphores /
    // +49 return_addr_reg_lo", "+50 return_addr_reg_hi / +51 reserved0 (13)"
    assert_eq!(at(m, "PSEUDO_FUNCTION_BEGIN", "function_name"), (12, 36));
    typed(m, "PSEUDO_FUNCTION_BEGIN", "function_name", &name_ty);
    assert_eq!(at(m, "PSEUDO_FUNCTION_BEGIN", "return_reset_semaphores"), (48, 1));
    assert_eq!(at(m, "PSEUDO_FUNCTION_BEGIN", "return_addr_reg_lo"), (49, 1));
    assert_eq!(at(m, "PSEUDO_FUNCTION_BEGIN", "return_addr_reg_hi"), (50, 1));
    assert_eq!(at(m, "PSEUDO_FUNCTION_BEGIN", "reserved0"), (51, 13));
    // "the EXIT sentinel is ... PSEUDO_EXIT_EXECUTION_STRUCT whose pseudo_opcode field sits at +12"
    assert_eq!(at(m, "PSEUDO_EXIT_EXECUTION", "pseudo_opcode"), (12, 1));
    typed(
        m,
        "PSEUDO_EXIT_EXECUTION",
        "pseudo_opcode",
        &FieldType::Enum(m.enum_named("PSEUDO_OPCODE").unwrap()),
    );
}

// ---------------------------------------------------------------------------------
// Record seed section 2: opcodes, bands, bindings, sentinels; section 6: bitmasks
// ---------------------------------------------------------------------------------

#[test]
fn opcode_values() {
    let m = model();
    // CORRECTION (ISA-IR-2): "JPEG_DECODE=0x81, its host-lowered CC-top form
    // PSEUDO_JPEG_DECODE=0xD7, and 0xFF=INVALID"
    assert_eq!(enum_value(m, "OPCODE", "JPEG_DECODE"), 0x81);
    assert_eq!(enum_value(m, "OPCODE", "PSEUDO_JPEG_DECODE"), 0xD7);
    assert_eq!(enum_value(m, "OPCODE", "INVALID"), 0xFF);
    // "(plus 0xA9 COMPARE_BRANCH, 0xB5/0xDD branch-hint)"
    assert_eq!(enum_value(m, "OPCODE", "COMPARE_BRANCH"), 0xA9);
    let op = &m[m.enum_named("OPCODE").unwrap()];
    assert!(op.variant_of(0xB5).is_some(), "0xB5 (branch hint) is a named OPCODE value");
    assert!(op.variant_of(0xDD).is_some(), "0xDD (branch hint) is a named OPCODE value");
    // "PSEUDO_FUNCTION_BEGIN (0xD1)", "PSEUDO_FUNCTION_CALL (opcode 0xD3, host-only)",
    // "PSEUDO_INST (0xDF)"
    assert_eq!(enum_value(m, "OPCODE", "PSEUDO_FUNCTION_BEGIN"), 0xD1);
    assert_eq!(enum_value(m, "OPCODE", "PSEUDO_FUNCTION_CALL"), 0xD3);
    assert_eq!(enum_value(m, "OPCODE", "PSEUDO_INST"), 0xDF);
    // "NEURON_ISA_TPB_PSEUDO_OPCODE (INVALID=0, PSEUDO_EXIT_EXECUTION=1,
    // PSEUDO_LIBRARY_RELOAD_INDEX=2)"
    assert_eq!(enum_value(m, "PSEUDO_OPCODE", "INVALID"), 0);
    assert_eq!(enum_value(m, "PSEUDO_OPCODE", "PSEUDO_EXIT_EXECUTION"), 1);
    assert_eq!(enum_value(m, "PSEUDO_OPCODE", "PSEUDO_LIBRARY_RELOAD_INDEX"), 2);
    // The seed's al_hal_tpb_eng_type: "PE=0, ACT=1, POOL=2, DVE=3, SP=4"
    for (v, n) in ["PE", "ACT", "POOL", "DVE", "SP"].iter().enumerate() {
        assert_eq!(enum_value(m, "TPB_ENG_TYPE", n), v as u64, "TPB_ENG_TYPE::{n}");
    }
}

#[test]
fn bands() {
    let m = model();
    let op = m.enum_named("OPCODE").unwrap();
    let band = |name: &str| {
        m.bands
            .iter()
            .find(|b| b.enum_id == op && b.name == name)
            .unwrap_or_else(|| panic!("band OPCODE.{name}"))
    };
    // "a 0xC1..0xDF pseudo-opcode band"
    assert_eq!(band("pseudo").ranges, [(0xC1, 0xDF)]);
    // "The pseudo band: 0xC1..0xDF (plus 0xA9 COMPARE_BRANCH, 0xB5/0xDD branch-hint) is host-only"
    let host = band("host_only");
    for v in [0xA9, 0xB5, 0xDD, 0xC1, 0xD1, 0xDF] {
        assert!(host.contains(v), "host_only contains {v:#x}");
    }
    assert!(!host.contains(0x81), "JPEG_DECODE (0x81) is a real opcode");
    // "0x01..0xFF real (hardware-executed) opcodes"
    assert_eq!(band("real").ranges, [(0x01, 0xFF)]);
}

/// `(opcode, (sub-opcode offset, value), arm name)`.
type BindingKey<'a> = (u64, Option<(u32, u64)>, &'a str);

#[test]
fn bindings() {
    let m = model();
    let got: BTreeSet<BindingKey<'_>> = m
        .bindings
        .iter()
        .map(|b| (b.opcode, b.sub.as_ref().map(|s| (s.offset, s.value)), m[b.arm].name.as_str()))
        .collect();
    // "PSEUDO_FUNCTION_BEGIN (opcode 0xD1, host-only)", "PSEUDO_FUNCTION_CALL (opcode 0xD3,
    // host-only)"; "PSEUDO_INST (0xDF) is an extension prefix: byte +12 is a
    // NEURON_ISA_TPB_PSEUDO_OPCODE (... PSEUDO_EXIT_EXECUTION=1, PSEUDO_LIBRARY_RELOAD_INDEX=2)"
    let want: BTreeSet<BindingKey<'_>> = [
        (0xD1, None, "PSEUDO_FUNCTION_BEGIN"),
        (0xD3, None, "PSEUDO_FUNCTION_CALL"),
        (0xDF, Some((12, 1)), "PSEUDO_EXIT_EXECUTION"),
        (0xDF, Some((12, 2)), "PSEUDO_LIBRARY_RELOAD_INDEX"),
    ]
    .into_iter()
    .collect();
    // Other sources bind more opcodes; these four are the seed's, and nothing else binds
    // the seed's opcodes.
    let seed_opcodes = [0xD1, 0xD3, 0xDF];
    let got_seed: BTreeSet<BindingKey<'_>> =
        got.iter().filter(|b| seed_opcodes.contains(&b.0)).copied().collect();
    assert_eq!(got_seed, want);
    // The sub-opcode byte is read as a PSEUDO_OPCODE.
    let pseudo = m.enum_named("PSEUDO_OPCODE").unwrap();
    for b in m.bindings.iter().filter(|b| b.opcode == 0xDF) {
        assert_eq!(b.sub.as_ref().unwrap().enum_id, Some(pseudo));
    }
    // CTRL_AL "opcode in CTRL band", DMA_DIRECT2D "opcode 0xB..", S3D3_TS no opcode: the
    // seed gives no value, so no binding of them may rest on it (the public notes bind
    // them, citing themselves).
    for name in ["CTRL_AL", "DMA_DIRECT2D", "S3D3_TS"] {
        let (id, _) = arm(m, name);
        for b in m.bindings_of(id) {
            assert!(
                !b.meta.sources.iter().any(|s| s.contains("record seed")),
                "{name} is bound to {:#04x} on the record seed's word: {:?}",
                b.opcode,
                b.meta.sources
            );
        }
    }
}

#[test]
fn sentinels() {
    let m = model();
    // "0xD1 FUNCTION_BEGIN and 0xDF/sub-1 EXIT are stream sentinels"
    let s = |name: &str| {
        let s = m
            .sentinels
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("sentinel {name}"));
        let b = &m.bindings[s.binding.0 as usize];
        (b.opcode, b.sub.as_ref().map(|x| (x.offset, x.value)))
    };
    assert_eq!(s("EXIT"), (0xDF, Some((12, 1))));
    assert_eq!(s("FUNCTION_BEGIN"), (0xD1, None));
}

#[test]
fn opcode_bitmask_words() {
    let m = model();
    // "the four OPCODE bitmasks 0x400082F07FBFFFFF / 0x024BC3FFFFDF3F7F / 0x7FEFFFFFE08F7FFF
    // / 0x1001E0000003E"
    let b = m
        .bitmasks
        .iter()
        .find(|b| b.enum_id == m.enum_named("OPCODE").unwrap())
        .expect("an OPCODE bitmask");
    assert_eq!(
        b.words,
        [0x400082F07FBFFFFF, 0x024BC3FFFFDF3F7F, 0x7FEFFFFFE08F7FFF, 0x1001E0000003E]
    );
    // What the doc says of the words read in the reverse order.
    let reversed = |v: u64| b.words[3 - (v >> 6) as usize] >> (v & 63) & 1 == 1;
    let doc = b.meta.docs.join(" ");
    assert!(doc.contains("Read with the words in the reverse order"), "{doc}");
    assert!(!reversed(0x00) && !reversed(0xFF));
    for v in [0x01, 0x02, 0x23, 0x41, 0x46, 0x47, 0x49, 0xA0, 0xA4, 0xB1, 0xCC, 0xD4] {
        assert!(reversed(v), "{v:#04x}");
    }
    assert!(!reversed(0xB8) && !reversed(0xAA) && !reversed(0xAB));
    assert!(reversed(0xA9) && !reversed(0xB5));
}

// ---------------------------------------------------------------------------------
// Geometry seed and driver facts
// ---------------------------------------------------------------------------------

#[test]
fn archs() {
    let m = model();
    // "sunda (V2 / Trn1+Inf2), cayman (V3 / Trn2), mariana (V4 / Trn3)"
    for (name, label, aliases) in [
        ("sunda", "V2", &["trn1", "inf2"][..]),
        ("cayman", "V3", &["trn2"][..]),
        ("mariana", "V4", &["trn3"][..]),
    ] {
        let id = arch_id(m, name);
        assert_eq!(m[id].label, label);
        assert_eq!(arch_id(m, label), id);
        for a in aliases {
            assert_eq!(arch_id(m, a), id, "alias {a}");
        }
    }
    // Generations the seeds do not cover (maverick, from the public notes) come after.
    let order: Vec<&str> = m.archs.iter().map(|a| a.name.as_str()).take(3).collect();
    assert_eq!(order, ARCHS);
    for a in &m.archs[3..] {
        assert!(a.generation > m[arch_id(m, "mariana")].generation, "{}", a.name);
    }
    // The seeds' three generations have a geometry.
    for arch in ARCHS {
        assert!(m[arch_id(m, arch)].geometry_known, "{arch}");
    }
    // "Build V4 as V3-base + the HBM size patch"; "neuron_dhal.c registers the full V3 op
    // table and then patches only 8 slots"
    assert_eq!(m[arch_id(m, "mariana")].inherits, Some(arch_id(m, "cayman")));
    assert_eq!(m[arch_id(m, "cayman")].inherits, None);
}

#[test]
fn core_counts() {
    let m = model();
    // "the headline num_tpb (2/8/8)"
    per_arch(m, "num_tpb", [2, 8, 8]);
    // "num_seng=2, tpb_per_seng=1" (sunda); "8 NeuronCores = 4 SENG × 2 TPB"
    per_arch(m, "num_seng", [2, 4, 4]);
    per_arch(m, "num_tpb_per_seng", [1, 2, 2]);
    // "1 TPB-per-HBM" (sunda); "2 TPB-per-HBM" (cayman/mariana)
    per_arch(m, "num_tpb_per_hbm", [1, 2, 2]);
    // "6 TopSP" / "16 TopSP"
    per_arch(m, "num_top_sp", [6, 16, 16]);
    // driver facts: "TPB engines per NC = 5 (PE/ACT/POOL/DVE/SP)"
    per_arch(m, "tpb_engines_per_nc", [5, 5, 5]);
}

#[test]
fn dma_engines() {
    let m = model();
    // "num_dma_per_tpb (16) is per-NeuronCore"
    per_arch(m, "num_dma_per_tpb", [16, 16, 16]);
    // "sunda: 2×16 + 2 = 34. cayman/mariana: 8×16 + 4 = 132"
    per_arch(m, "num_dma_engines", [34, 132, 132]);
    per_arch(m, "num_top_dma", [2, 4, 4]);
    // "the off-TPB host-DMA engines, numbered out of band (32/33 on V2; 128–131 on V3/V4)"
    per_arch(m, "top_dma_first", [32, 128, 128]);
    per_arch(m, "top_dma_last", [33, 131, 131]);
    // driver facts: "DMA queues per engine = 16 (all gens); DMA rings 16"
    per_arch(m, "dma_queues_per_engine", [16, 16, 16]);
    per_arch(m, "dma_max_rings", [16, 16, 16]);
    // The local engines of every TPB are the dense [0, top_dma_first) block.
    for arch in ARCHS {
        let n = int(m, arch, "num_tpb");
        let per = int(m, arch, "num_dma_per_tpb");
        let ids: BTreeSet<i128> = (0..n)
            .flat_map(|t| (0..per).map(move |l| (t, l)))
            .map(|(t, l)| apply_rule(m, arch, "dma_engine_id", &[t, l]).unwrap())
            .collect();
        assert_eq!(ids, (0..int(m, arch, "top_dma_first")).collect(), "{arch}");
        assert_eq!(
            apply_rule(m, arch, "dma_engine_id", &[n, 0]),
            None,
            "{arch}: tpb_idx < num_tpb"
        );
    }
}

#[test]
fn hbm() {
    let m = model();
    // "2 HBM channels" (sunda); "4 HBM channels" (cayman/mariana)
    per_arch(m, "num_hbms", [2, 4, 4]);
    // "V3_HBM_ACTIVE_SIZE = 0x600000000 // 24 GiB (cayman)",
    // "V4_HBM_ACTIVE_SIZE = 0x900000000 // 36 GiB (mariana)"
    assert_eq!(int(m, "cayman", "hbm_active_size"), 0x600000000);
    assert_eq!(int(m, "mariana", "hbm_active_size"), 0x900000000);
    // "hbm_dist (per-stack window) stays V{3,4}_HBM_SIZE = 0x1000000000 (64 GiB) either way"
    assert_eq!(int(m, "cayman", "hbm_stack_window"), 0x1000000000);
    assert_eq!(int(m, "mariana", "hbm_stack_window"), 0x1000000000);
    // "HBM_0..3 BASE addresses are UNCHANGED"; driver facts: "V3/V4 HBM bases 0x0,
    // 0x4000000000, 0x800000000000, 0x804000000000"; "V2 HBM: bases 0x0 and 0x1000000000"
    let v3 = [0x0, 0x4000000000, 0x800000000000, 0x804000000000];
    assert_eq!(table(m, "cayman", "hbm_bases"), v3);
    assert_eq!(table(m, "mariana", "hbm_bases"), v3);
    assert_eq!(table(m, "sunda", "hbm_bases"), [0x0, 0x1000000000]);
    // "hbm_index = tpb_idx/2 (cayman/mariana) vs identity (sunda)"
    for t in 0..8 {
        assert_eq!(apply_rule(m, "cayman", "hbm_index", &[t]), Some(t / 2));
        assert_eq!(apply_rule(m, "mariana", "hbm_index", &[t]), Some(t / 2));
    }
    for t in 0..2 {
        assert_eq!(apply_rule(m, "sunda", "hbm_index", &[t]), Some(t));
    }
    assert_eq!(apply_rule(m, "sunda", "hbm_index", &[2]), None, "guard tpb_idx < num_tpb");
}

#[test]
fn tpb_index_decomposition() {
    let m = model();
    // "device_tpb_idx ... is sliced >>1 for the SENG-pair, >>2 for the PCIe/quadrant half,
    // &1 for parity, /num_tpb_per_seng for the H2D-engine bucket"
    for t in 0..8 {
        assert_eq!(apply_rule(m, "cayman", "seng_pair", &[t]), Some(t >> 1));
        assert_eq!(apply_rule(m, "cayman", "pcie_half", &[t]), Some(t >> 2));
        assert_eq!(apply_rule(m, "cayman", "tpb_parity", &[t]), Some(t & 1));
        assert_eq!(apply_rule(m, "cayman", "h2d_bucket", &[t]), Some(t / 2));
    }
    // "guard device_tpb_idx < tdrv_arch_get_num_tpb() before every offset computation"
    for rule in ["seng_pair", "pcie_half", "tpb_parity", "h2d_bucket"] {
        assert_eq!(apply_rule(m, "cayman", rule, &[8]), None, "{rule}(8) on cayman");
    }
}

#[test]
fn sbuf_window() {
    let m = model();
    // "The 32 MiB state buffer (V2_SBUF_SIZE 0x2000000)"; driver facts: "V3/V4 spell it
    // V3_PCIE_BAR0_TPB_SBUF_SIZE 0x2000000"
    per_arch(m, "sbuf_window", [0x2000000, 0x2000000, 0x2000000]);
    // "the PSUM region (TPB base + 0x2000000, same 32 MiB)"
    per_arch(m, "psum_window_offset", [0x2000000, 0x2000000, 0x2000000]);
    per_arch(m, "psum_window_size", [0x2000000, 0x2000000, 0x2000000]);
}

#[test]
fn die_flip() {
    let m = model();
    // "core_idx ^= 0x6 // neuron_nc_map_die_flip_mask"; "On non-PDS V4, the V3 dynamic-XOR
    // map is inherited unchanged"
    assert_eq!(int(m, "cayman", "die_flip_mask"), 0x6);
    assert_eq!(int(m, "mariana", "die_flip_mask"), 0x6);
    // "On the 8-core chips": sunda has none.
    assert_eq!(value(m, "sunda", "die_flip_mask"), None);
    // "0->6, 1->7, 2->4, 3->5, 4->2, 5->3, 6->0, 7->1"
    let want = [6, 7, 4, 5, 2, 3, 0, 1];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(apply_rule(m, "cayman", "die_flip", &[i as i128]), Some(*w), "die_flip({i})");
    }
    // "for entry_idx in 0..min(max_entries,128)"
    assert_eq!(int(m, "cayman", "nc_mapping_max_core_count"), 128);
    assert_eq!(apply_rule(m, "cayman", "die_flip", &[128]), None);
}

#[test]
fn nc_map_rows() {
    let m = model();
    // "ND1 row: V3 base {2,3,0,1,4,5,6,7} vs V4-PDS {6,7,4,5,0,1,2,3}, the XOR-0x6 image"
    let nd1 = table(m, "cayman", "nc_map_seng_swap_nd1");
    assert_eq!(nd1, [2, 3, 0, 1, 4, 5, 6, 7]);
    let pds = table(m, "mariana", "nc_map_seng_swap_pds_nd1");
    assert_eq!(pds, [6, 7, 4, 5, 0, 1, 2, 3]);
    let image: Vec<i128> = (0..8).map(|i| nd1[i ^ 6]).collect();
    assert_eq!(pds, image, "the PDS row is the XOR-0x6 image of the V3 row");
    // "On non-PDS V4, the V3 dynamic-XOR map is inherited unchanged"
    assert_eq!(table(m, "mariana", "nc_map_seng_swap_nd1"), nd1);
    // driver facts: "ND0 = 4,5,6,7,2,3,0,1"
    assert_eq!(table(m, "cayman", "nc_map_seng_swap_nd0"), [4, 5, 6, 7, 2, 3, 0, 1]);
}

#[test]
fn nx_core_type_lut() {
    let m = model();
    // "cayman → CSWTCH_16_0 @0x9de900 = {10,7,9,8,11}"
    assert_eq!(value(m, "cayman", "nx_core_type"), Some(ints(&[10, 7, 9, 8, 11])));
    // "MEDIUM on the exact sunda/mariana LUT bytes — addresses certain, values not
    // re-decoded on this page": unknown, one entry per engine (PE..SP).
    let unknown = Value::Array(vec![Value::Unknown; 5]);
    assert_eq!(value(m, "sunda", "nx_core_type"), Some(unknown.clone()));
    assert_eq!(value(m, "mariana", "nx_core_type"), Some(unknown));
    // "(gen block base 0)", "(gen block base 7 ...)", "(gen block base 15)"
    per_arch(m, "nx_core_type_block_base", [0, 7, 15]);
}

#[test]
fn neighbour_ids() {
    let m = model();
    // "Left link (L) {36, 68} {40, 72}; Right link (R) { 4, 100} { 8, 104}"
    let pairs = |l: [i128; 2], r: [i128; 2]| Value::Array(vec![ints(&l), ints(&r)]);
    assert_eq!(value(m, "cayman", "npe_neighbor_eng_ids"), Some(pairs([36, 68], [4, 100])));
    assert_eq!(value(m, "mariana", "npe_neighbor_eng_ids"), Some(pairs([40, 72], [8, 104])));
}

#[test]
fn mariana_sdma_bases() {
    let m = model();
    // "tpb0: 0x1002000000 tpb2: 0x5004000000 tpb4: 0x801002000000 tpb6: 0x805004000000
    //  tpb1: 0x1003000000 tpb3: 0x5005000000 tpb5: 0x801003000000 tpb7: 0x805005000000"
    assert_eq!(
        table(m, "mariana", "sdma_base"),
        [
            0x1002000000,
            0x1003000000,
            0x5004000000,
            0x5005000000,
            0x801002000000,
            0x801003000000,
            0x805004000000,
            0x805005000000
        ]
    );
    // mariana_sdma_base is mariana's own table.
    assert_eq!(value(m, "cayman", "sdma_base"), None);
}

#[test]
fn driver_facts() {
    let m = model();
    // "Semaphores / events per NC = 256 / 256"
    per_arch(m, "semaphore_count", [256, 256, 256]);
    per_arch(m, "event_count", [256, 256, 256]);
    // "PCI device IDs src/neuron_device.h:36-40: INF2 0x7264, TRN1 0x7164, TRN2 0x7364,
    // TRN3 0x7564/0x7565"
    let set = |arch: &str| table(m, arch, "pci_device_ids").into_iter().collect::<BTreeSet<i128>>();
    assert_eq!(set("sunda"), [0x7164, 0x7264].into_iter().collect());
    assert_eq!(set("cayman"), [0x7364].into_iter().collect());
    assert_eq!(set("mariana"), [0x7564, 0x7565].into_iter().collect());
    // "Per-NC event/semaphore window at +0x2700000"
    per_arch(m, "nc_event_window_offset", [0x2700000, 0x2700000, 0x2700000]);
    // "NC mmap window: V2 0x4000000; V3/V4 0x804000000"
    per_arch(m, "nc_mmap_size", [0x4000000, 0x804000000, 0x804000000]);
    // "Host (PCIe A0) base: V2 0x100000000000; V3/V4 0x400000000000"
    per_arch(m, "pcie_a0_base", [0x100000000000, 0x400000000000, 0x400000000000]);
}

/// cayman and mariana differ only where the sources say they do.
#[test]
fn cayman_and_mariana_differ_only_where_the_seed_says() {
    let m = model();
    let (c, v) = (&m[arch_id(m, "cayman")], &m[arch_id(m, "mariana")]);
    let differing: BTreeSet<&str> = m
        .geom_ids()
        .filter(|g| !matches!(m[*g].kind, GeomKind::Rule { .. }))
        .filter(|g| c.value(*g).map(|x| &x.value) != v.value(*g).map(|x| &x.value))
        .map(|g| m[g].name.as_str())
        .collect();
    let want: BTreeSet<&str> = [
        // The hardware values. Geometry seed: "differing in exactly one hardware value, the
        // HBM stack size (24 GB → 36 GB)"; "Trn3 re-laid-out those inter-die link engines
        // — the only topology number that moves cayman→mariana besides HBM".
        "hbm_active_size",
        "npe_neighbor_eng_ids",
        // mariana's own tables: "mariana_sdma_base @0x9df220", "mariana_apb_se_bases
        // @0x9df1e0", and "nc_mapping_v0_seng_swap_pds[128] ... (ncdev_logical_to_physical_nc_map_v4)".
        "sdma_base",
        "apb_se_bases",
        "nc_map_seng_swap_pds_nd1",
        // Not hardware values. The core-type LUT: "cayman → ... = {10,7,9,8,11} (gen block
        // base 7)", "mariana → CSWTCH_16_1 @0x9defe0 (gen block base 15)", its bytes not
        // decoded. Device identity: "TRN2 0x7364, TRN3 0x7564/0x7565". "A second,
        // non-geometry V4 delta ...: V4 hardcodes supports_hbm_7200 = 0".
        "nx_core_type",
        "nx_core_type_block_base",
        "pci_device_ids",
        "supports_hbm_7200",
        // The SDK's usable SBUF (driver facts C1): "NC-v3 28 MiB ...; NC-v4 32 MiB". This
        // is a capacity figure from the architecture docs, not a DHAL value.
        "sbuf_capacity",
    ]
    .into_iter()
    .collect();
    assert_eq!(differing, want);
}

// ---------------------------------------------------------------------------------
// Provenance
// ---------------------------------------------------------------------------------

/// Every item of the model carries at least one `@source` of its own: records, structs,
/// groups, arms, operand types, enums, bands, bindings, sentinels, bitmasks, apertures,
/// geometry rules, and every arch value (an arch file entry, or for an unstated
/// derived value, the derived item). The rule is `codegen::provenance::unsourced`, which
/// `cargo xtask gen` and `check` enforce.
#[test]
fn every_item_has_its_own_source() {
    let m = model();
    let missing = codegen::provenance::unsourced(m);
    assert!(
        missing.is_empty(),
        "{} items have no @source:\n{}",
        missing.len(),
        missing.short(&m.sources)
    );
}

/// Members (fields, variants, bit-fields, regions) take their provenance from their
/// item unless they cite a source of their own.
/// Every member (field, enum variant, bit-field, aperture region)
/// carries a source, its own or its enclosing item's (for a group member: the group's).
#[test]
fn every_member_has_a_source_through_its_item() {
    let m = model();
    let has = |meta: &Meta| meta.sources.iter().any(|s| !s.trim().is_empty());
    let mut missing = Vec::new();
    let mut layouts: Vec<(String, &Meta, &[Field])> = Vec::new();
    layouts.push((m.record.name.clone(), &m.record.meta, &m.record.preamble));
    for s in &m.structs {
        layouts.push((s.name.clone(), &s.meta, &s.fields));
    }
    for a in &m.arms {
        for l in &a.layouts {
            layouts.push((a.name.clone(), &a.meta, &l.fields));
        }
    }
    for (owner, meta, fields) in layouts {
        for f in fields {
            let group = f.group.as_ref().map(|g| &m[g.group].meta);
            if !has(&f.meta) && !has(meta) && !group.is_some_and(has) {
                missing.push(format!("field {owner}.{}", f.name));
            }
        }
    }
    for e in &m.enums {
        for v in &e.variants {
            if !has(&v.meta) && !has(&e.meta) {
                missing.push(format!("variant {}::{}", e.name, v.name));
            }
        }
    }
    for u in &m.unions {
        for v in &u.views {
            if !has(&v.meta) && !has(&u.meta) {
                missing.push(format!("view {}.{}", u.name, v.name));
            }
        }
    }
    for b in &m.bits {
        for f in b.fields.iter().chain(b.alts.iter().flat_map(|a| &a.fields)) {
            if !has(&f.meta) && !has(&b.meta) {
                missing.push(format!("bit-field {}.{}", b.name, f.name));
            }
        }
    }
    for a in &m.apertures {
        for r in &a.regions {
            if !has(&r.meta) && !has(&a.meta) {
                missing.push(format!("region {}.{}", a.name, r.name));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "members with no source of their own or of their item:\n{}",
        missing.join("\n")
    );
}

/// Docs and attributes of the committed spec belong to the item they stand before.
#[test]
fn committed_docs_attach_to_their_items() {
    let m = model();
    let mut wrong = Vec::new();
    let mut expect = |what: &str, got: &[String], want: &[&str]| {
        if got != want {
            wrong.push(format!("{what}: docs {got:?}, expected {want:?}"));
        }
    };
    let docs = |g: &str| m[geom(m, g)].meta.docs.clone();
    expect("geometry num_seng", &docs("num_seng"), &["Sequencer engines (SENG) per device."]);
    expect(
        "geometry num_tpb_per_seng",
        &docs("num_tpb_per_seng"),
        &["NeuronCores (TPBs) per SENG."],
    );
    expect("geometry dma_max_rings", &docs("dma_max_rings"), &["DMA rings (`*_MAX_DMA_RINGS`)."]);
    expect(
        "PSEUDO_FUNCTION_BEGIN.return_reset_semaphores",
        &field(fields(m, "PSEUDO_FUNCTION_BEGIN"), "return_reset_semaphores").meta.docs,
        &["Width 1 derived from return_addr_reg_lo at +49."],
    );
    let band = |n: &str| m.bands.iter().find(|b| b.name == n).unwrap().meta.docs.clone();
    expect(
        "band OPCODE.real",
        &band("real"),
        &[
            "The hardware-executed band as the seed states it: 0x01..0xFF. Numerically it",
            "contains the pseudo band and the host-only stragglers; the seed states both bands",
            "without saying how a value in both is classed, so query host_only first.",
        ],
    );
    assert!(wrong.is_empty(), "docs attached to the wrong item:\n{}", wrong.join("\n"));
}
