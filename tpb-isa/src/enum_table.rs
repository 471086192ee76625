//! `enum_table!`: a byte-wide enum's value test as one bit per value and generation,
//! built at compile time from the generated `named_*` test itself, so the validator
//! reads a bit where it would call through a function pointer, and the two cannot
//! disagree.

/// `enum_table!(named_x)`: `[[u64; 4]; Arch::ALL.len()]` whose bit `v & 63` of word
/// `v >> 6` in row `arch as usize` is `named_x(arch, v)`; `named_x` is a `const fn`.
macro_rules! enum_table {
    ($named:ident) => {{
        use $crate::generated::geometry::Arch;
        let mut t = [[0u64; 4]; Arch::ALL.len()];
        let mut a = 0;
        while a < Arch::ALL.len() {
            let mut v = 0u64;
            while v < 256 {
                if $named(Arch::ALL[a], v) {
                    t[a][(v >> 6) as usize] |= 1 << (v & 63);
                }
                v += 1;
            }
            a += 1;
        }
        t
    }};
}
pub(crate) use enum_table;
