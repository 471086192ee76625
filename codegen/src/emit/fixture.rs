//! A small hand-built [`Model`] for the emitter tests: the seed's preamble, four arms
//! (one unbound), the PSEUDO_INST sub-dispatch, ADDR4, bands, a bitmask, two apertures
//! and three generations with constants, a derived value, tables and rules.

use crate::model::*;
use crate::source::{FileId, Sources, Span};

fn meta() -> Meta {
    Meta::at(Span::new(FileId(0), 0, 0))
}

fn doc(lines: &[&str]) -> Meta {
    Meta { docs: lines.iter().map(|l| (*l).to_owned()).collect(), ..meta() }
}

fn src(m: Meta, s: &str) -> Meta {
    let mut m = m;
    m.sources.push(s.to_owned());
    m
}

fn archs(m: Meta, a: &[u32]) -> Meta {
    Meta { archs: Some(a.iter().map(|&i| ArchId(i)).collect()), ..m }
}

fn field(model: &Model, name: &str, offset: u32, ty: FieldType) -> Field {
    Field { name: name.to_owned(), offset, size: model.size_of(&ty), ty, meta: meta(), group: None }
}

fn variant(name: &str, value: u64) -> Variant {
    Variant { name: name.to_owned(), value, meta: meta() }
}

fn bit(name: &str, lo: u32, hi: u32) -> BitField {
    BitField { name: name.to_owned(), lo, hi, meta: meta() }
}

fn arch_value(value: Value, owner: u32) -> Option<ArchValue> {
    Some(ArchValue {
        value,
        meta: src(meta(), "fixture.toml"),
        defined_in: ArchId(owner),
        stated: true,
    })
}

fn int(v: i128, owner: u32) -> Option<ArchValue> {
    arch_value(Value::Int(v), owner)
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

const ALU_OP: EnumId = EnumId(0);
const DTYPE: EnumId = EnumId(1);
const OPCODE: EnumId = EnumId(2);
const PSEUDO_OPCODE: EnumId = EnumId(3);
const TPB_ENG_TYPE: EnumId = EnumId(4);
const EVENTS: StructId = StructId(1);
const HEADER: StructId = StructId(2);
const TENSOR3D: StructId = StructId(3);
const ADDR4: BitsId = BitsId(0);
const REG_NUM: BitsId = BitsId(1);

/// The fixture model.
pub fn model() -> Model {
    let mut sources = Sources::new();
    sources.add("isa/fixture.isa", "// fixture\n");
    let mut m = Model {
        sources,
        records: Vec::new(),
        structs: Vec::new(),
        arms: Vec::new(),
        bits: Vec::new(),
        enums: Vec::new(),
        bands: Vec::new(),
        bindings: Vec::new(),
        sentinels: Vec::new(),
        bitmasks: Vec::new(),
        apertures: Vec::new(),
        geometry: Vec::new(),
        archs: Vec::new(),
    };
    m.enums = vec![
        Enum {
            name: "ALU_OP".into(),
            width: Prim::U8,
            variants: vec![
                variant("ADD", 0),
                variant("SUB", 1),
                Variant { meta: archs(meta(), &[1, 2]), ..variant("MUL", 2) },
            ],
            meta: meta(),
        },
        Enum {
            name: "DTYPE".into(),
            width: Prim::U8,
            variants: vec![variant("INVALID", 0), variant("FP32", 10), variant("BF16", 11)],
            meta: doc(&["Element types of tensor operands."]),
        },
        Enum {
            name: "OPCODE".into(),
            width: Prim::U8,
            variants: vec![
                variant("TENSOR_SCALAR", 0x20),
                Variant {
                    meta: archs(doc(&["JPEG decode; not 0xFF (that is INVALID)."]), &[1, 2]),
                    ..variant("JPEG_DECODE", 0x81)
                },
                variant("COMPARE_BRANCH", 0xA9),
                variant("PSEUDO_FUNCTION_BEGIN", 0xD1),
                variant("PSEUDO_JPEG_DECODE", 0xD7),
                variant("PSEUDO_INST", 0xDF),
                variant("INVALID", 0xFF),
            ],
            meta: src(
                doc(&["The opcode byte at +0 of every record."]),
                "DWARF NEURON_ISA_TPB_OPCODE",
            ),
        },
        Enum {
            name: "PSEUDO_OPCODE".into(),
            width: Prim::U8,
            variants: vec![
                variant("INVALID", 0),
                variant("PSEUDO_EXIT_EXECUTION", 1),
                variant("PSEUDO_LIBRARY_RELOAD_INDEX", 2),
            ],
            meta: src(meta(), "DWARF NEURON_ISA_TPB_PSEUDO_OPCODE"),
        },
        Enum {
            name: "TPB_ENG_TYPE".into(),
            width: Prim::U8,
            variants: vec![
                variant("PE", 0),
                variant("ACT", 1),
                variant("POOL", 2),
                variant("DVE", 3),
                variant("SP", 4),
            ],
            meta: meta(),
        },
    ];
    m.bands = vec![
        Band {
            enum_id: OPCODE,
            name: "host_only".into(),
            ranges: vec![(0xA9, 0xA9), (0xC1, 0xDF)],
            meta: meta(),
        },
        Band {
            enum_id: OPCODE,
            name: "pseudo".into(),
            ranges: vec![(0xC1, 0xDF)],
            meta: doc(&["Lowered on the host."]),
        },
    ];
    m.bits = vec![
        Bits {
            name: "ADDR4".into(),
            width: Prim::U32,
            fields: vec![bit("marker", 24, 32)],
            alts: vec![
                Alt {
                    name: "register".into(),
                    when: Some(Predicate { field: 0, mask: 0xA0, value: 0x80 }),
                    fields: vec![bit("regnum", 0, 8)],
                    meta: meta(),
                },
                Alt {
                    name: "indirect".into(),
                    when: Some(Predicate { field: 0, mask: 0x60, value: 0x20 }),
                    fields: vec![bit("regnum", 0, 8)],
                    meta: meta(),
                },
                Alt {
                    name: "immediate".into(),
                    when: None,
                    fields: vec![
                        bit("immediate", 0, 29),
                        BitField {
                            meta: Meta { waiver: Some("top of the immediate".into()), ..meta() },
                            ..bit("quadrant", 25, 29)
                        },
                    ],
                    meta: meta(),
                },
            ],
            meta: src(
                doc(&["An address operand: immediate, register or indirect."]),
                "record seed section 3",
            ),
        },
        Bits {
            name: "REG_NUM".into(),
            width: Prim::U8,
            fields: vec![],
            alts: vec![],
            meta: meta(),
        },
    ];
    // Structs need `size_of`, which needs the enums and bits above.
    let header = vec![
        field(&m, "opcode", 0, FieldType::Enum(OPCODE)),
        field(&m, "inst_word_len", 1, FieldType::Prim(Prim::U8)),
        field(&m, "debug_cmd", 2, FieldType::Prim(Prim::U8)),
        field(&m, "debug_hint", 3, FieldType::Prim(Prim::U8)),
    ];
    let events = vec![
        field(&m, "wait_mode", 0, FieldType::Prim(Prim::U8)),
        field(&m, "wait_idx", 1, FieldType::Prim(Prim::U8)),
        field(&m, "update_mode", 2, FieldType::Prim(Prim::U8)),
        field(&m, "update_idx", 3, FieldType::Prim(Prim::U8)),
        field(&m, "semaphore_value", 4, FieldType::Prim(Prim::U32)),
    ];
    let tensor = vec![
        field(&m, "start_addr", 0, FieldType::Bits(ADDR4)),
        field(&m, "step", 4, FieldType::Array(Box::new(FieldType::Prim(Prim::I16)), 3)),
        field(&m, "num", 10, FieldType::Array(Box::new(FieldType::Prim(Prim::U16)), 3)),
    ];
    let pair = vec![
        field(&m, "in_dtype", 0, FieldType::Enum(DTYPE)),
        field(&m, "out_dtype", 1, FieldType::Enum(DTYPE)),
    ];
    m.structs = vec![
        Struct { name: "DTYPE_PAIR".into(), size: 2, fields: pair, is_group: true, meta: meta() },
        Struct {
            name: "EVENTS".into(),
            size: 8,
            fields: events,
            is_group: false,
            meta: src(meta(), "DWARF NEURON_ISA_TPB_EVENTS"),
        },
        Struct {
            name: "HEADER".into(),
            size: 4,
            fields: header,
            is_group: false,
            meta: doc(&["The 4-byte header at +0 of every record."]),
        },
        Struct { name: "TENSOR3D".into(), size: 16, fields: tensor, is_group: false, meta: meta() },
    ];
    m.records = vec![Record {
        name: "TPB_INST".into(),
        size: 64,
        discriminant: Discriminant { offset: 0, ty: OPCODE },
        preamble: vec![
            field(&m, "header", 0, FieldType::Struct(HEADER)),
            field(&m, "events", 4, FieldType::Struct(EVENTS)),
        ],
        preamble_size: 12,
        meta: meta(),
    }];
    let reserved =
        |m: &Model, name: &str, off: u32, n: u32| field(m, name, off, FieldType::Reserved(n));
    let reg = |m: &Model, name: &str, off: u32| field(m, name, off, FieldType::Bits(REG_NUM));
    let group_use = |f: Field, member: u32| Field {
        group: Some(GroupUse { group: StructId(0), base: 32, prefix: None, meta: meta(), member }),
        ..f
    };
    let ctrl_al = vec![
        field(&m, "op", 12, FieldType::Enum(ALU_OP)),
        field(&m, "dtype", 13, FieldType::Enum(DTYPE)),
        field(&m, "src_datasrc", 14, FieldType::Prim(Prim::U8)),
        field(&m, "dst_dtype", 15, FieldType::Enum(DTYPE)),
        reg(&m, "src0_lo", 16),
        reg(&m, "src0_hi", 17),
        reg(&m, "src1_lo", 18),
        reg(&m, "src1_hi", 19),
        reg(&m, "dst_lo", 20),
        reg(&m, "dst_hi", 21),
        reserved(&m, "reserved1", 22, 2),
        field(&m, "immediate", 24, FieldType::Prim(Prim::U64)),
        field(
            &m,
            "matrix",
            32,
            FieldType::Array(
                Box::new(FieldType::Array(Box::new(FieldType::Prim(Prim::U16)), 2)),
                2,
            ),
        ),
        reserved(&m, "reserved2", 40, 24),
    ];
    let exit = vec![
        field(&m, "pseudo_opcode", 12, FieldType::Enum(PSEUDO_OPCODE)),
        reserved(&m, "reserved0", 13, 51),
    ];
    let function_begin = vec![
        Field {
            meta: doc(&["Hash-table key of the lowering pass."]),
            ..field(
                &m,
                "function_name",
                12,
                FieldType::Array(Box::new(FieldType::Prim(Prim::I8)), 36),
            )
        },
        field(&m, "return_reset_semaphores", 48, FieldType::Prim(Prim::U8)),
        reg(&m, "return_addr_reg_lo", 49),
        reg(&m, "return_addr_reg_hi", 50),
        reserved(&m, "reserved0", 51, 13),
    ];
    let reload = vec![
        field(&m, "pseudo_opcode", 12, FieldType::Enum(PSEUDO_OPCODE)),
        reserved(&m, "reserved0", 13, 3),
        field(&m, "library_index", 16, FieldType::Prim(Prim::U32)),
        reserved(&m, "reserved1", 20, 44),
    ];
    let s3d3 = vec![
        field(&m, "accumulator_cmd", 12, FieldType::Prim(Prim::U8)),
        field(&m, "dtypes", 13, FieldType::Array(Box::new(FieldType::Enum(DTYPE)), 2)),
        reserved(&m, "reserved0", 15, 1),
        field(&m, "src_mem_pattern", 16, FieldType::Struct(TENSOR3D)),
        group_use(field(&m, "in_dtype", 32, FieldType::Enum(DTYPE)), 0),
        group_use(field(&m, "out_dtype", 33, FieldType::Enum(DTYPE)), 1),
        field(&m, "num_active_channels", 34, FieldType::Prim(Prim::U8)),
        field(&m, "imm0_src", 35, FieldType::Prim(Prim::U8)),
        field(&m, "op0", 36, FieldType::Enum(ALU_OP)),
        field(&m, "op1", 37, FieldType::Enum(ALU_OP)),
        field(&m, "reverse_operands", 38, FieldType::Prim(Prim::U8)),
        field(&m, "imm1_src", 39, FieldType::Prim(Prim::U8)),
        field(&m, "imm0", 40, FieldType::Prim(Prim::U32)),
        field(&m, "imm1", 44, FieldType::Prim(Prim::U32)),
        field(&m, "dst_mem_pattern", 48, FieldType::Struct(TENSOR3D)),
    ];
    let rec = RecordId(0);
    m.arms = vec![
        Arm {
            name: "CTRL_AL".into(),
            record: rec,
            fields: ctrl_al,
            meta: Meta {
                confidence: Confidence::Medium,
                ..doc(&["An ALU op; its opcode value is not known."])
            },
        },
        Arm {
            name: "PSEUDO_EXIT_EXECUTION".into(),
            record: rec,
            fields: exit,
            meta: src(meta(), "ib_has_pseudo_exit @0x323df0"),
        },
        Arm {
            name: "PSEUDO_FUNCTION_BEGIN".into(),
            record: rec,
            fields: function_begin,
            meta: meta(),
        },
        Arm {
            name: "PSEUDO_LIBRARY_RELOAD_INDEX".into(),
            record: rec,
            fields: reload,
            meta: meta(),
        },
        Arm { name: "S3D3_TS".into(), record: rec, fields: s3d3, meta: archs(meta(), &[1, 2]) },
    ];
    let sub = |v| Some(SubOpcode { offset: 12, value: v, enum_id: Some(PSEUDO_OPCODE) });
    m.bindings = vec![
        Binding { opcode: 0x20, sub: None, arm: ArmId(4), meta: archs(meta(), &[1, 2]) },
        Binding { opcode: 0xD1, sub: None, arm: ArmId(2), meta: meta() },
        Binding { opcode: 0xDF, sub: sub(1), arm: ArmId(1), meta: meta() },
        Binding { opcode: 0xDF, sub: sub(2), arm: ArmId(3), meta: meta() },
    ];
    m.sentinels = vec![
        Sentinel {
            name: "EXIT".into(),
            binding: BindingId(2),
            meta: doc(&["Terminates a program."]),
        },
        Sentinel { name: "FUNCTION_BEGIN".into(), binding: BindingId(1), meta: meta() },
    ];
    m.bitmasks = vec![Bitmask {
        name: "OPCODE_VALID".into(),
        enum_id: OPCODE,
        words: vec![0x400082F07FBFFFFF, 0x024BC3FFFFDF3F7F, 0x7FEFFFFFE08F7FFF, 0x1001E0000003E],
        meta: meta(),
    }];
    let region = |name: &str, base, size| Region { name: name.into(), base, size, meta: meta() };
    m.apertures = vec![
        Aperture {
            name: "PSUM".into(),
            regions: vec![region("psum", 0x2000000, 0x204000)],
            meta: meta(),
        },
        Aperture {
            name: "SBUF_QUADRANT".into(),
            regions: vec![
                region("q0", 0, 0x38000),
                region("q1", 0x800000, 0x38000),
                region("q2", 0x1000000, 0x38000),
                region("q3", 0x1800000, 0x38000),
            ],
            meta: doc(&["SBUF quadrant windows of the 29-bit ISA address space."]),
        },
    ];
    let g = |name: &str, kind| GeomItem { name: name.into(), kind, meta: meta() };
    let u32t = || GeomType::Int(Prim::U32);
    let v = |i| Expr::Value(GeomId(i));
    m.geometry = vec![
        g("num_tpb", GeomKind::Value(u32t())),
        g("num_tpb_per_hbm", GeomKind::Value(u32t())),
        g("num_dma_per_tpb", GeomKind::Value(u32t())),
        g("num_top_dma", GeomKind::Value(u32t())),
        g(
            "num_dma_engines",
            GeomKind::Derived(u32t(), bin(BinOp::Add, bin(BinOp::Mul, v(0), v(2)), v(3))),
        ),
        g("hbm_active_size", GeomKind::Value(GeomType::Int(Prim::U64))),
        g("die_flip_mask", GeomKind::Value(GeomType::Optional(Box::new(u32t())))),
        g(
            "nx_core_type",
            GeomKind::Value(GeomType::Array(
                Box::new(GeomType::Optional(Box::new(GeomType::Int(Prim::I32)))),
                ArrayLen::Enum(TPB_ENG_TYPE, 5),
            )),
        ),
        g(
            "npe_neighbor_eng_ids",
            GeomKind::Value(GeomType::Optional(Box::new(GeomType::Array(
                Box::new(GeomType::Array(Box::new(u32t()), ArrayLen::Fixed(2))),
                ArrayLen::Fixed(2),
            )))),
        ),
        g("die_flip_supported", GeomKind::Value(GeomType::Bool)),
        g(
            "hbm_index",
            GeomKind::Rule {
                params: vec!["tpb_idx".into()],
                expr: bin(BinOp::Div, Expr::Param(0), v(1)),
                requires: vec![Cond {
                    lhs: Expr::Param(0),
                    op: CmpOp::Lt,
                    rhs: v(0),
                    text: "tpb_idx < num_tpb".into(),
                }],
            },
        ),
        g(
            "die_flip",
            GeomKind::Rule {
                params: vec!["core_idx".into()],
                expr: bin(BinOp::Xor, Expr::Param(0), v(6)),
                requires: vec![Cond {
                    lhs: Expr::Param(0),
                    op: CmpOp::Lt,
                    rhs: v(0),
                    text: "core_idx < num_tpb".into(),
                }],
            },
        ),
        g(
            "seng_pair",
            GeomKind::Rule {
                params: vec!["tpb_idx".into()],
                expr: bin(BinOp::Shr, Expr::Param(0), Expr::Int(1)),
                requires: vec![],
            },
        ),
        g(
            "dma_engine",
            GeomKind::Rule {
                params: vec!["tpb_idx".into(), "eng".into()],
                expr: bin(BinOp::Add, bin(BinOp::Mul, Expr::Param(0), v(2)), Expr::Param(1)),
                requires: vec![
                    Cond {
                        lhs: Expr::Param(0),
                        op: CmpOp::Lt,
                        rhs: v(0),
                        text: "tpb_idx < num_tpb".into(),
                    },
                    Cond {
                        lhs: Expr::Param(1),
                        op: CmpOp::Lt,
                        rhs: v(2),
                        text: "eng < num_dma_per_tpb".into(),
                    },
                ],
            },
        ),
    ];
    let table = |xs: &[Option<i128>]| {
        Value::Array(xs.iter().map(|x| x.map_or(Value::Unknown, Value::Int)).collect())
    };
    let pairs = |a: [[i128; 2]; 2]| {
        Value::Array(
            a.iter().map(|r| Value::Array(r.iter().map(|&x| Value::Int(x)).collect())).collect(),
        )
    };
    let sunda = vec![
        int(2, 0),
        int(1, 0),
        int(16, 0),
        int(2, 0),
        int(34, 0),
        int(0x400000000, 0),
        None,
        arch_value(table(&[None, None, None, None, None]), 0),
        arch_value(Value::Unknown, 0),
        arch_value(Value::Bool(false), 0),
        None,
        None,
        None,
        None,
    ];
    let cayman = vec![
        int(8, 1),
        int(2, 1),
        int(16, 1),
        int(4, 1),
        int(132, 1),
        int(0x600000000, 1),
        int(6, 1),
        arch_value(table(&[Some(10), Some(7), Some(9), Some(8), Some(11)]), 1),
        arch_value(pairs([[36, 68], [4, 100]]), 1),
        arch_value(Value::Bool(true), 1),
        None,
        None,
        None,
        None,
    ];
    let mut mariana = cayman.clone();
    mariana[5] = int(0x900000000, 2);
    mariana[7] = arch_value(table(&[None, Some(-1), None, None, None]), 2);
    mariana[8] = arch_value(pairs([[40, 72], [8, 104]]), 2);
    let arch = |name: &str, generation, label: &str, aliases: &[&str], inherits, values| Arch {
        name: name.into(),
        generation,
        label: label.into(),
        aliases: aliases.iter().map(|a| (*a).to_owned()).collect(),
        inherits,
        meta: meta(),
        values,
    };
    m.archs = vec![
        arch("sunda", 2, "V2", &["trn1", "inf2"], None, sunda),
        arch("cayman", 3, "V3", &["trn2"], None, cayman),
        arch("mariana", 4, "V4", &["trn3"], Some(ArchId(1)), mariana),
    ];
    m
}
