//! The checked spec: arenas of resolved items with typed ids, built only by `lower`.
//!
//! Every name is resolved to an id, every offset and size is computed, every layout is
//! known to cover its bytes exactly once, and every list is in a stable order (spec
//! order for members, sorted by name or value where the spec order is not meaningful).
//! Emitters and the diff read it and never fail.

mod geometry;
mod layout;
mod opcode;
mod provenance;

pub use geometry::*;
pub use layout::*;
pub use opcode::*;
pub use provenance::*;

use crate::source::Sources;

macro_rules! ids {
    ($($(#[$doc:meta])* $id:ident => $field:ident : $ty:ty;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $id(pub u32);

        impl std::ops::Index<$id> for Model {
            type Output = $ty;
            fn index(&self, id: $id) -> &$ty {
                &self.$field[id.0 as usize]
            }
        }
    )*};
}

ids! {
    /// A [`Struct`] (plain struct or group).
    StructId => structs: Struct;
    /// A [`Union`].
    UnionId => unions: Union;
    /// An [`Arm`].
    ArmId => arms: Arm;
    /// A [`Bits`] operand type.
    BitsId => bits: Bits;
    /// An [`Enum`].
    EnumId => enums: Enum;
    /// A [`Vocab`].
    VocabId => vocabs: Vocab;
    /// A [`Binding`].
    BindingId => bindings: Binding;
    /// An [`Arch`].
    ArchId => archs: Arch;
    /// A [`GeomItem`].
    GeomId => geometry: GeomItem;
}

/// The parts `lower` assembles; only it can turn them into a [`Model`].
pub(crate) struct ModelParts {
    pub record: Record,
    pub structs: Vec<Struct>,
    pub unions: Vec<Union>,
    pub arms: Vec<Arm>,
    pub bits: Vec<Bits>,
    pub enums: Vec<Enum>,
    pub vocabs: Vec<Vocab>,
    pub bands: Vec<Band>,
    pub bindings: Vec<Binding>,
    pub sentinels: Vec<Sentinel>,
    pub bitmasks: Vec<Bitmask>,
    pub apertures: Vec<Aperture>,
    pub geometry: Vec<GeomItem>,
    pub archs: Vec<Arch>,
}

/// Keeps [`Model`] from being built outside this crate: a model exists only as the
/// result of a spec that checked.
#[derive(Clone, Debug)]
struct Sealed;

/// The whole checked spec.
#[derive(Clone, Debug)]
pub struct Model {
    /// The source files, for rendering spans (diff, docs).
    pub sources: Sources,
    /// The tagged union (`TPB_INST`); a spec has exactly one.
    pub record: Record,
    /// Structs and groups, sorted by name.
    pub structs: Vec<Struct>,
    /// Unions, sorted by name.
    pub unions: Vec<Union>,
    /// Arms, sorted by name.
    pub arms: Vec<Arm>,
    /// Operand types with bit-fields, sorted by name.
    pub bits: Vec<Bits>,
    /// Enums, sorted by name.
    pub enums: Vec<Enum>,
    /// Vocabularies (enums without encodings), sorted by name.
    pub vocabs: Vec<Vocab>,
    /// Named value sets of enums, sorted by (enum, name).
    pub bands: Vec<Band>,
    /// Opcode → arm bindings, sorted by (opcode, sub-opcode).
    pub bindings: Vec<Binding>,
    /// Stream sentinels, sorted by name.
    pub sentinels: Vec<Sentinel>,
    /// Validator bitmask tables, sorted by name.
    pub bitmasks: Vec<Bitmask>,
    /// Address apertures, sorted by name.
    pub apertures: Vec<Aperture>,
    /// The geometry schema in spec order: constants, derived values and rules.
    pub geometry: Vec<GeomItem>,
    /// Generations, sorted by `generation`.
    pub archs: Vec<Arch>,
    _sealed: Sealed,
}

impl Model {
    pub(crate) fn new(sources: Sources, p: ModelParts) -> Model {
        Model {
            sources,
            record: p.record,
            structs: p.structs,
            unions: p.unions,
            arms: p.arms,
            bits: p.bits,
            enums: p.enums,
            vocabs: p.vocabs,
            bands: p.bands,
            bindings: p.bindings,
            sentinels: p.sentinels,
            bitmasks: p.bitmasks,
            apertures: p.apertures,
            geometry: p.geometry,
            archs: p.archs,
            _sealed: Sealed,
        }
    }

    /// Ids of every arm, in model order.
    pub fn arm_ids(&self) -> impl Iterator<Item = ArmId> + '_ {
        (0..self.arms.len() as u32).map(ArmId)
    }

    /// Ids of every struct, in model order.
    pub fn struct_ids(&self) -> impl Iterator<Item = StructId> + '_ {
        (0..self.structs.len() as u32).map(StructId)
    }

    /// Ids of every enum, in model order.
    pub fn enum_ids(&self) -> impl Iterator<Item = EnumId> + '_ {
        (0..self.enums.len() as u32).map(EnumId)
    }

    /// Ids of every arch, oldest generation first.
    pub fn arch_ids(&self) -> impl Iterator<Item = ArchId> + '_ {
        (0..self.archs.len() as u32).map(ArchId)
    }

    /// Ids of every geometry item, in spec order.
    pub fn geom_ids(&self) -> impl Iterator<Item = GeomId> + '_ {
        (0..self.geometry.len() as u32).map(GeomId)
    }

    /// The enum named `name`.
    pub fn enum_named(&self, name: &str) -> Option<EnumId> {
        self.enums.iter().position(|e| e.name == name).map(|i| EnumId(i as u32))
    }

    /// The arm named `name`.
    pub fn arm_named(&self, name: &str) -> Option<ArmId> {
        self.arms.iter().position(|a| a.name == name).map(|i| ArmId(i as u32))
    }

    /// The struct or group named `name`.
    pub fn struct_named(&self, name: &str) -> Option<StructId> {
        self.structs.iter().position(|s| s.name == name).map(|i| StructId(i as u32))
    }

    /// The union named `name`.
    pub fn union_named(&self, name: &str) -> Option<UnionId> {
        self.unions.iter().position(|s| s.name == name).map(|i| UnionId(i as u32))
    }

    /// The bits type named `name`.
    pub fn bits_named(&self, name: &str) -> Option<BitsId> {
        self.bits.iter().position(|b| b.name == name).map(|i| BitsId(i as u32))
    }

    /// The arch named `name` or carrying `name` as an alias (case-insensitive).
    pub fn arch_named(&self, name: &str) -> Option<ArchId> {
        self.archs
            .iter()
            .position(|a| {
                a.name.eq_ignore_ascii_case(name)
                    || a.label.eq_ignore_ascii_case(name)
                    || a.aliases.iter().any(|x| x.eq_ignore_ascii_case(name))
            })
            .map(|i| ArchId(i as u32))
    }

    /// The geometry item named `name`.
    pub fn geom_named(&self, name: &str) -> Option<GeomId> {
        self.geometry.iter().position(|g| g.name == name).map(|i| GeomId(i as u32))
    }

    /// Bindings that select `arm`.
    pub fn bindings_of(&self, arm: ArmId) -> impl Iterator<Item = &Binding> + '_ {
        self.bindings.iter().filter(move |b| b.arm == arm)
    }

    /// The bindings grouped by opcode value, in order (a group's plain binding and its
    /// sub-opcode bindings together).
    pub fn bindings_by_opcode(&self) -> Vec<(u64, Vec<&Binding>)> {
        let mut groups: Vec<(u64, Vec<&Binding>)> = Vec::new();
        for b in &self.bindings {
            match groups.last_mut() {
                Some((op, v)) if *op == b.opcode => v.push(b),
                _ => groups.push((b.opcode, vec![b])),
            }
        }
        groups
    }

    /// Whether `b`'s `@archs` leave out a generation (its opcode's records there have no
    /// layout).
    pub fn is_narrow(&self, b: &Binding) -> bool {
        b.meta.archs.as_ref().is_some_and(|a| a.len() < self.archs.len())
    }

    /// Whether any binding selects `arm` (else it decodes only explicitly).
    pub fn is_bound(&self, arm: ArmId) -> bool {
        self.bindings.iter().any(|b| b.arm == arm)
    }

    /// Size in bytes of a field type.
    pub fn size_of(&self, ty: &FieldType) -> u32 {
        match ty {
            FieldType::Prim(p) => p.size(),
            FieldType::Array(t, n) => self.size_of(t) * n,
            FieldType::Struct(s) => self[*s].size,
            FieldType::Union(u) => self[*u].size,
            FieldType::Bits(b) => self[*b].width.size(),
            FieldType::Enum(e) => self[*e].width.size(),
            FieldType::Reserved(n) | FieldType::Unknown(n) => *n,
        }
    }

    /// Whether a type holds bytes whose meaning no source gives (`unknown[N]` in it or
    /// in any type it embeds, any view of a union included).
    pub fn has_unknown(&self, ty: &FieldType) -> bool {
        match ty {
            FieldType::Unknown(_) => true,
            FieldType::Array(t, _) => self.has_unknown(t),
            FieldType::Struct(s) => self[*s].fields.iter().any(|f| self.has_unknown(&f.ty)),
            FieldType::Union(u) => self[*u].views.iter().all(|v| self.has_unknown(&v.ty)),
            _ => false,
        }
    }

    /// Whether every byte of the arm on every generation has a meaning a source gives.
    pub fn is_complete(&self, arm: ArmId) -> bool {
        self[arm].layouts.iter().all(|l| l.fields.iter().all(|f| !self.has_unknown(&f.ty)))
    }

    /// The opcode enum (the record's discriminant).
    pub fn opcode_enum(&self) -> EnumId {
        self.record.discriminant.ty
    }
}
