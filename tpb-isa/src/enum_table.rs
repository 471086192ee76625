//! `enum_table!`: a byte-wide enum's value test as one flag per value and generation,
//! built at compile time from the generated `named_*` test itself, so the validator
//! reads a byte where it would call through a function pointer, and the two cannot
//! disagree.

/// `enum_table!(named_x)`: `[[bool; 256]; Arch::ALL.len()]` whose row `arch as usize`,
/// column `v` is `named_x(arch, v)`; `named_x` is a `const fn`. A byte a value, not a
/// bit: the validator's test is then one compare with memory.
macro_rules! enum_table {
    ($named:ident) => {
        $crate::enum_table::enum_table!($named, 0, 8)
    };
    // `enum_table!(named_x, shift, bits)`: the same for a bit-field of `bits` bits at
    // bit `shift` of a byte: column `b` is `named_x(arch, (b >> shift) & mask)`.
    ($named:ident, $shift:expr, $bits:expr) => {{
        use $crate::generated::geometry::Arch;
        let mut t = [[false; 256]; Arch::ALL.len()];
        let mut a = 0;
        while a < Arch::ALL.len() {
            let mut b = 0u64;
            while b < 256 {
                t[a][b as usize] = $named(Arch::ALL[a], (b >> $shift) & ((1 << $bits) - 1));
                b += 1;
            }
            a += 1;
        }
        t
    }};
}
pub(crate) use enum_table;

use crate::generated::validate::EnumCheck;

/// The test; its table of 256 flags a generation is left out.
impl core::fmt::Debug for EnumCheck {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EnumCheck")
            .field("named", &self.named)
            .field("table", &self.table.is_some())
            .finish()
    }
}
