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
    /// A [`Record`].
    RecordId => records: Record;
    /// A [`Struct`] (plain struct or group).
    StructId => structs: Struct;
    /// An [`Arm`].
    ArmId => arms: Arm;
    /// A [`Bits`] operand type.
    BitsId => bits: Bits;
    /// An [`Enum`].
    EnumId => enums: Enum;
    /// A [`Binding`].
    BindingId => bindings: Binding;
    /// An [`Arch`].
    ArchId => archs: Arch;
    /// A [`GeomItem`].
    GeomId => geometry: GeomItem;
}

/// The whole checked spec.
#[derive(Clone, Debug)]
pub struct Model {
    /// The source files, for rendering spans (diff, docs).
    pub sources: Sources,
    /// Tagged unions (today one: `TPB_INST`).
    pub records: Vec<Record>,
    /// Structs and groups, sorted by name.
    pub structs: Vec<Struct>,
    /// Arms, sorted by name.
    pub arms: Vec<Arm>,
    /// Operand types with bit-fields, sorted by name.
    pub bits: Vec<Bits>,
    /// Enums, sorted by name.
    pub enums: Vec<Enum>,
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
}

impl Model {
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

    /// The record's whole layout for an arm: preamble fields then the arm's own.
    pub fn arm_fields(&self, arm: ArmId) -> impl Iterator<Item = &Field> + '_ {
        let a = &self[arm];
        self[a.record].preamble.iter().chain(a.fields.iter())
    }

    /// Size in bytes of a field type.
    pub fn size_of(&self, ty: &FieldType) -> u32 {
        match ty {
            FieldType::Prim(p) => p.size(),
            FieldType::Array(t, n) => self.size_of(t) * n,
            FieldType::Struct(s) => self[*s].size,
            FieldType::Bits(b) => self[*b].width.size(),
            FieldType::Enum(e) => self[*e].width.size(),
            FieldType::Reserved(n) => *n,
        }
    }

    /// The enum the record's discriminant selects from (the opcode enum).
    pub fn opcode_enum(&self, record: RecordId) -> EnumId {
        self[record].discriminant.ty
    }
}
