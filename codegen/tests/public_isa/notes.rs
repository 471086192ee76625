//! Readers for the project's copy of the public-ISA fact tables
//! (`testdata/public-isa/`: `opcodes.tsv`, `structs.md`, `enums.md`).
//!
//! Everything the tests expect is read from these files; nothing here knows the spec.
//! The readers are strict: a line that looks like a fact but does not parse is a panic,
//! so a fact is never dropped silently.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The four generations, in the notes' column order (SU, CA, MA, MV).
pub const GENS: [&str; 4] = ["sunda", "cayman", "mariana", "maverick"];

/// The notes' abbreviations of [`GENS`].
pub const GEN_ABBR: [&str; 4] = ["SU", "CA", "MA", "MV"];

pub fn notes_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/public-isa"))
}

pub fn read(name: &str) -> String {
    let p = notes_dir().join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn parse_hex(s: &str) -> u64 {
    let t = s.trim();
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or_else(|| panic!("not hex: {s:?}"));
    u64::from_str_radix(t, 16).unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

// ---------------------------------------------------------------------------------
// opcodes.tsv
// ---------------------------------------------------------------------------------

/// One row of `opcodes.tsv`.
#[derive(Clone, Debug)]
pub struct OpRow {
    pub value: u64,
    pub name: String,
    pub band: String,
    /// Per generation (GENS order): `Y`, `n`, `.`, `-` or `?`.
    pub presence: [char; 4],
    pub engine: String,
    pub arm_struct: String,
    /// 1-based line in the file.
    pub line: usize,
}

impl OpRow {
    pub fn present_on(&self, gen: usize) -> bool {
        self.presence[gen] != '-'
    }
}

pub fn opcodes() -> Vec<OpRow> {
    let text = read("opcodes.tsv");
    let mut lines = text.lines().enumerate();
    let (_, header) = lines.next().expect("empty opcodes.tsv");
    let cols: Vec<&str> = header.split('\t').collect();
    assert_eq!(
        &cols[..9],
        &[
            "value",
            "name",
            "band",
            "sunda",
            "cayman",
            "mariana",
            "maverick",
            "engine",
            "arm_struct"
        ],
        "opcodes.tsv header changed"
    );
    let mut rows = Vec::new();
    for (i, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        let c: Vec<&str> = l.split('\t').collect();
        assert!(c.len() >= 10, "opcodes.tsv line {}: {} columns", i + 1, c.len());
        let mut presence = ['?'; 4];
        for g in 0..4 {
            let cell = c[3 + g].trim();
            let mut ch = cell.chars();
            let (Some(x), None) = (ch.next(), ch.next()) else {
                panic!("opcodes.tsv line {}: presence cell {cell:?}", i + 1)
            };
            assert!("Yn.-?".contains(x), "opcodes.tsv line {}: presence glyph {x:?}", i + 1);
            presence[g] = x;
        }
        rows.push(OpRow {
            value: parse_hex(c[0]),
            name: c[1].trim().to_string(),
            band: c[2].trim().to_string(),
            presence,
            engine: c[7].trim().to_string(),
            arm_struct: c[8].trim().to_string(),
            line: i + 1,
        });
    }
    rows
}

// ---------------------------------------------------------------------------------
// markdown helpers
// ---------------------------------------------------------------------------------

/// The cells of a markdown table row (`| a | b |` → `["a", "b"]`), or `None` when the
/// line is not a table row.
pub fn cells(line: &str) -> Option<Vec<String>> {
    let t = line.trim();
    if !t.starts_with('|') || !t.ends_with('|') || t.len() < 2 {
        return None;
    }
    Some(t[1..t.len() - 1].split('|').map(|c| c.trim().to_string()).collect())
}

fn is_separator(c: &[String]) -> bool {
    c.iter().all(|x| !x.is_empty() && x.chars().all(|ch| ch == '-' || ch == ':'))
}

/// The lines of the section that starts with the line `heading` up to the next line
/// that starts with a heading of the same or a higher level.
pub fn section<'a>(text: &'a str, heading: &str) -> Vec<&'a str> {
    let level = heading.chars().take_while(|c| *c == '#').count();
    assert!(level > 0, "not a heading: {heading}");
    let mut out = Vec::new();
    let mut inside = false;
    for l in text.lines() {
        if inside {
            let lv = l.chars().take_while(|c| *c == '#').count();
            if lv > 0 && lv <= level && l[lv..].starts_with(' ') {
                break;
            }
            out.push(l);
        } else if l.trim_end() == heading || l.starts_with(&format!("{heading} ")) {
            inside = true;
        }
    }
    assert!(inside, "no section {heading:?}");
    out
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Upper-case identifiers (`S3D3_TS`, `CTRL_AL`) in `s`, in order.
pub fn upper_idents(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            is_ident(w)
                && w.chars().any(|c| c.is_ascii_uppercase())
                && !w.chars().any(|c| c.is_ascii_lowercase())
        })
        .map(str::to_string)
        .collect()
}

/// Every `0xNN` in `s`, in order.
pub fn hex_values(s: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i + 2 < b.len() + 1 {
        if b[i] == b'0' && i + 1 < b.len() && (b[i + 1] == b'x' || b[i + 1] == b'X') {
            let start = i + 2;
            let mut j = start;
            while j < b.len() && b[j].is_ascii_hexdigit() {
                j += 1;
            }
            if j > start && (j == b.len() || !(b[j].is_ascii_alphanumeric() || b[j] == b'_')) {
                out.push(u64::from_str_radix(&s[start..j], 16).unwrap());
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// Generations named in a "Gens ..." phrase: `SU..MV`, `CA+`, `CA, MA, MV`, `MV only`.
pub fn parse_gens(phrase: &str) -> Vec<usize> {
    let p = phrase.trim().trim_start_matches(':').trim();
    let idx = |a: &str| {
        GEN_ABBR.iter().position(|x| *x == a).unwrap_or_else(|| panic!("gen {a:?} in {phrase:?}"))
    };
    if let Some((a, b)) = p.split_once("..") {
        let a = idx(a.trim());
        let b = idx(&b.trim()[..2]);
        return (a..=b).collect();
    }
    let mut out = Vec::new();
    for tok in p.split([',', ' ', ';', '.', '(', ')']) {
        let t = tok.trim();
        if t.len() >= 2 && GEN_ABBR.contains(&&t[..2]) && (t.len() == 2 || &t[2..] == "+") {
            let i = idx(&t[..2]);
            if t.ends_with('+') {
                out.extend(i..4);
            } else {
                out.push(i);
            }
        }
    }
    out.sort();
    out.dedup();
    assert!(!out.is_empty(), "no generation in {phrase:?}");
    out
}

// ---------------------------------------------------------------------------------
// structs.md: layout facts
// ---------------------------------------------------------------------------------

/// What the notes say is at one offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum What {
    /// A named field.
    Field(String),
    /// "not given": a byte no page describes.
    NotGiven,
}

/// One layout fact: `struct` has `what` at `offset` (size `size` when the notes give or
/// imply it) on the generations `gens` (`None`: every generation the struct exists on).
#[derive(Clone, Debug)]
pub struct Fact {
    pub strukt: String,
    pub gens: Option<Vec<usize>>,
    pub offset: u32,
    pub size: Option<u32>,
    pub what: What,
    /// The notes' type text (may be empty).
    pub ty: String,
    /// 1-based line in structs.md.
    pub line: usize,
}

/// A struct of structs.md with the facts its layout gives.
#[derive(Clone, Debug)]
pub struct StructNotes {
    pub name: String,
    /// The heading paragraph (the `**NAME**. ...` line and the lines up to the table).
    pub heading: String,
    pub facts: Vec<Fact>,
    /// Number of table rows / bullet items with an offset the block holds, counted by a
    /// plain scan independent of the fact parser (a row may give several facts).
    pub raw_rows: usize,
    /// Offset bullets that did not read as `OFFSET name [type]; ...` (partial layouts
    /// write prose there; a full layout must have none).
    pub errors: Vec<String>,
}

/// The three lists of section 4 ("Counts"): (stated count, names) for full, partial and
/// names-only structs. A name may carry a generation restriction (`S3_LW (MV)`).
pub struct Census {
    pub full: (usize, Vec<(String, Option<Vec<usize>>)>),
    pub partial: (usize, Vec<String>),
    pub names_only: (usize, Vec<String>),
    pub total: usize,
}

pub fn census(text: &str) -> Census {
    let sec = section(text, "## 4. Counts");
    let mut cur: Option<usize> = None;
    let mut stated = [0usize; 3];
    let mut lists: [Vec<(String, Option<Vec<usize>>)>; 3] = Default::default();
    let mut total = None;
    for l in sec {
        let t = l.trim();
        for (k, key) in
            ["**Full layouts (", "**Partial layouts (", "**Names only ("].iter().enumerate()
        {
            if let Some(rest) = t.strip_prefix(key) {
                let n: usize = rest.split(')').next().unwrap().parse().unwrap();
                stated[k] = n;
                cur = Some(k);
                // "**Partial layouts (18)**: D3_RAND, ..." lists names on the same line;
                // "**Full layouts (57)**: every byte ..." is prose.
                let after = rest.split_once("**:").map(|x| x.1).unwrap_or("");
                if !after.chars().any(|c| c.is_ascii_lowercase()) {
                    push_names(&mut lists[k], after);
                }
                break;
            }
        }
        if let Some(rest) = t.strip_prefix("Total: ") {
            total = Some(rest.split_whitespace().next().unwrap().parse().unwrap());
            cur = None;
            continue;
        }
        if t.starts_with("**") {
            continue;
        }
        if let (Some(k), true) = (cur, t.starts_with("- ") || !t.is_empty()) {
            if t.is_empty() {
                continue;
            }
            let body = t.strip_prefix("- ").unwrap_or(t);
            // "- Control: CTRL_AL, ..." : drop the category label.
            let body = match body.split_once(": ") {
                Some((label, rest))
                    if label.chars().any(|c| c.is_ascii_lowercase()) || !label.contains('_') =>
                {
                    rest
                }
                _ => body,
            };
            push_names(&mut lists[k], body);
        }
    }
    let [full, partial, names] = lists;
    Census {
        full: (stated[0], full),
        partial: (stated[1], partial.into_iter().map(|x| x.0).collect()),
        names_only: (stated[2], names.into_iter().map(|x| x.0).collect()),
        total: total.expect("no Total line in section 4"),
    }
}

fn push_names(out: &mut Vec<(String, Option<Vec<usize>>)>, s: &str) {
    for item in s.split(',') {
        let item = item.trim().trim_end_matches('.');
        if item.is_empty() {
            continue;
        }
        let (name, gens) = match item.split_once('(') {
            Some((n, g)) => (n.trim(), Some(parse_gens(g.trim_end_matches(')')))),
            None => (item, None),
        };
        assert!(is_ident(name), "struct name {name:?} in section 4");
        out.push((name.to_string(), gens));
    }
}

/// Whether a bullet starts with a decimal byte offset ("12 id u32; ...", not "0xDA ...").
pub fn starts_with_offset(s: &str) -> bool {
    s.split_whitespace().next().is_some_and(|w| w.parse::<u32>().is_ok())
}

/// Split `name[n]` into (`name`, `Some(n)`).
fn split_array(s: &str) -> (String, Option<u32>) {
    match s.split_once('[') {
        Some((n, rest)) => {
            let k = rest.split(']').next().unwrap();
            (n.to_string(), k.parse().ok())
        }
        None => (s.to_string(), None),
    }
}

/// Size in bytes of a notes type like `u32`, `int8[36]`, `uint16[2]` (primitives only).
pub fn prim_size(ty: &str) -> Option<u32> {
    let (base, n) = split_array(ty.trim());
    let one = match base.as_str() {
        "u8" | "i8" | "int8" | "uint8" | "uint8_t" | "int8_t" => 1,
        "u16" | "i16" | "int16" | "uint16" => 2,
        "u32" | "i32" | "int32" | "uint32" | "float" | "f32" => 4,
        "u64" | "i64" | "uint64" | "int64" => 8,
        _ => return None,
    };
    Some(one * n.unwrap_or(1))
}

/// The field name of a table's field cell: the first word, `[n]` dropped
/// (`reserved0[1]` → `reserved0`, `src_datasrc (Lower: ...)` → `src_datasrc`).
fn field_name(cell: &str) -> String {
    let w = cell.split_whitespace().next().unwrap_or_else(|| panic!("empty field cell"));
    let (n, _) = split_array(w.trim_end_matches(','));
    assert!(is_ident(&n), "field name {n:?} from {cell:?}");
    n
}

/// The blocks of section 2: `**NAME**` paragraphs with their lines (1-based numbers).
fn struct_blocks(text: &str) -> Vec<(String, Vec<(usize, String)>)> {
    let all: Vec<&str> = text.lines().collect();
    let start = all.iter().position(|l| l.starts_with("## 2. Arm structs")).expect("section 2");
    let end = all.iter().position(|l| l.starts_with("## 3. ")).expect("section 3");
    let mut blocks: Vec<(String, Vec<(usize, String)>)> = Vec::new();
    for (i, l) in all.iter().enumerate().take(end).skip(start + 1) {
        if l.starts_with("### ") || l.starts_with("Named only") || l.starts_with("---") {
            // A sub-section heading or a names-only paragraph closes the current block.
            blocks.push((String::new(), Vec::new()));
            continue;
        }
        if let Some(rest) = l.strip_prefix("**") {
            if let Some((name, _)) = rest.split_once("**") {
                // "**MODIFY_POOL_CONFIG / CUSTOM_OP_PAYLOAD** (partial)": one block for two.
                if is_ident(name) || name.split(" / ").all(is_ident) {
                    blocks.push((name.to_string(), vec![(i + 1, l.to_string())]));
                    continue;
                }
            }
        }
        if let Some(b) = blocks.last_mut() {
            if !b.0.is_empty() {
                b.1.push((i + 1, l.to_string()));
            }
        }
    }
    blocks.retain(|b| !b.0.is_empty());
    blocks
}

/// The "Named only: NAME (0x.., ...), NAME (...)" paragraphs of section 2 and the list of
/// section 2.11: (struct, values named in its parenthetical).
pub fn named_only_bindings(text: &str) -> Vec<(String, Vec<u64>)> {
    let all: Vec<&str> = text.lines().collect();
    let start = all.iter().position(|l| l.starts_with("## 2. Arm structs")).expect("section 2");
    let end = all.iter().position(|l| l.starts_with("## 3. ")).expect("section 3");
    let mut paras: Vec<String> = Vec::new();
    let mut cur: Option<String> = None;
    let mut in_211 = false;
    for l in &all[start..end] {
        if l.starts_with("### ") {
            in_211 = l.starts_with("### 2.11");
        }
        let begins = l.starts_with("Named only")
            || (in_211 && !l.starts_with("### ") && !l.trim().is_empty() && cur.is_none());
        if begins {
            cur = Some(l.split_once(':').map(|x| x.1).unwrap_or(l).to_string());
            continue;
        }
        if let Some(c) = cur.as_mut() {
            if l.trim().is_empty() || l.starts_with("**") || l.starts_with("###") {
                paras.push(cur.take().unwrap());
            } else {
                c.push(' ');
                c.push_str(l.trim());
            }
        }
    }
    paras.extend(cur);
    let mut out = Vec::new();
    for p in paras {
        // Split on commas outside parentheses.
        let mut depth = 0;
        let mut item = String::new();
        let mut items = Vec::new();
        for ch in p.chars() {
            match ch {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(std::mem::take(&mut item));
                    continue;
                }
                _ => {}
            }
            item.push(ch);
        }
        items.push(item);
        // "... (0xDA after 0xD9) and CUSTOM_OP_HEADER (0x85, SU only)": split on " and ".
        let items: Vec<String> = items
            .into_iter()
            .flat_map(|it| {
                let mut parts = Vec::new();
                let mut depth = 0;
                let mut cur = String::new();
                let chars: Vec<char> = it.chars().collect();
                let mut i = 0;
                while i < chars.len() {
                    let ch = chars[i];
                    if ch == '(' {
                        depth += 1;
                    } else if ch == ')' {
                        depth -= 1;
                    }
                    if depth == 0 && chars[i..].iter().collect::<String>().starts_with(" and ") {
                        parts.push(std::mem::take(&mut cur));
                        i += 5;
                        continue;
                    }
                    cur.push(ch);
                    i += 1;
                }
                parts.push(cur);
                parts
            })
            .collect();
        for it in items {
            let it = it.trim().trim_start_matches("and ").trim_end_matches('.');
            let name = it.split([' ', '(']).next().unwrap().trim();
            if !is_ident(name) || name.chars().any(|c| c.is_ascii_lowercase()) {
                continue;
            }
            // "(0xDA after 0xD9)": the value after "after" is a position, not a binding.
            let vals = it
                .split_once('(')
                .map(|x| {
                    hex_values(x.1.split(')').next().unwrap().split(" after ").next().unwrap())
                })
                .unwrap_or_default();
            out.push((name.to_string(), vals));
        }
    }
    out
}

/// The generations a heading restricts its layout to ("Gens CA, MA, MV.", "Gens: MV only.").
pub fn heading_gens(heading: &str) -> Option<Vec<usize>> {
    let i = heading.find("Gens")?;
    let rest = &heading[i + 4..];
    // The phrase ends at a sentence end (". ") or ";" — not at the ".." of "SU..MV".
    let phrase = rest.split(". ").next().unwrap().split(';').next().unwrap().trim_end_matches('.');
    // "Gens CA+ (validator nc ≥ V3)" : the parenthetical is not a generation list.
    let phrase = phrase.split(" (").next().unwrap();
    Some(parse_gens(phrase))
}

/// Every struct block of section 2 with the facts of its tables and offset bullets.
pub fn struct_notes(text: &str) -> Vec<StructNotes> {
    let mut out: Vec<StructNotes> = Vec::new();
    for (name, lines) in struct_blocks(text) {
        let heading_lines: Vec<&str> = lines
            .iter()
            .map(|(_, l)| l.as_str())
            .take_while(|l| !l.trim_start().starts_with('|') && !l.trim_start().starts_with("- "))
            .collect();
        let heading = heading_lines.join(" ");
        let gens = heading_gens(&heading);
        let mut facts = Vec::new();
        let mut raw_rows = 0;
        let mut errors = Vec::new();
        let mut table: Option<Vec<String>> = None;
        // Pending facts of a per-generation table, per generation: (offset, what, size, line).
        let mut pergen: [Vec<(u32, What, Option<u32>, String, usize)>; 4] = Default::default();
        for (ln, l) in &lines {
            let t = l.trim();
            if let Some(c) = cells(t) {
                if is_separator(&c) {
                    continue;
                }
                if table.is_none() {
                    table = Some(c);
                    continue;
                }
                let hdr = table.as_ref().unwrap();
                raw_rows += 1;
                if hdr.len() == 4 && hdr[0] == "off" && hdr[1] == "sz" {
                    // | off | sz | field | type |   ("MV field" restricts to MV)
                    let row_gens =
                        if hdr[2].starts_with("MV ") { Some(vec![3]) } else { gens.clone() };
                    table_row(&name, &c, row_gens, *ln, &mut facts);
                } else if hdr.len() == 5 && hdr[0] == "off" && hdr[1..] == ["SU", "CA", "MA", "MV"]
                {
                    pergen_row(&c, *ln, &mut pergen);
                } else {
                    panic!("structs.md line {ln}: table header {hdr:?} in {name}");
                }
                continue;
            }
            table = None;
            if let Some(body) = t.strip_prefix("- ") {
                if starts_with_offset(body) {
                    raw_rows += 1;
                    if let Err(e) = bullet_items(&name, body, gens.clone(), *ln, &mut facts) {
                        errors.push(e);
                    }
                }
            }
        }
        for (g, items) in pergen.iter().enumerate() {
            for (k, (off, what, size, ty, ln)) in items.iter().enumerate() {
                let next = items.get(k + 1).map(|x| x.0).unwrap_or(64);
                facts.push(Fact {
                    strukt: name.clone(),
                    gens: Some(vec![g]),
                    offset: *off,
                    size: Some(size.unwrap_or(next - off)),
                    what: what.clone(),
                    ty: ty.clone(),
                    line: *ln,
                });
            }
        }
        // "- The same bytes as DMA_DIRECT2D except: @15 dge_op (...), and @16/@40 are
        // PSEUDO_ADDR8.": the other struct's facts, renamed where an "@N name" says so.
        if facts.is_empty() {
            for (k, (ln, l)) in lines.iter().enumerate() {
                let Some(i) = l.find("The same bytes as ") else { continue };
                // The bullet continues on indented lines.
                let mut l = l.clone();
                for (_, c) in lines[k + 1..].iter().take_while(|(_, c)| c.starts_with("  ")) {
                    l.push(' ');
                    l.push_str(c.trim());
                }
                raw_rows += 1;
                let rest = &l[i + 18..];
                let base = rest.split_whitespace().next().unwrap();
                let src = out
                    .iter()
                    .find(|b| b.name == base)
                    .unwrap_or_else(|| panic!("structs.md line {ln}: {base} not read yet"));
                let mut copied: Vec<Fact> = src.facts.clone();
                // "@16/@40 are ..." lists two offsets.
                let except =
                    rest.split_once("except:").map(|x| x.1).unwrap_or("").replace("/@", "/");
                for part in except.split('@').skip(1) {
                    let mut w = part.split_whitespace();
                    let offs: Vec<u32> = w
                        .next()
                        .unwrap()
                        .split('/')
                        .map(|x| x.trim_end_matches(',').parse().unwrap())
                        .collect();
                    let next = w.next().unwrap_or("");
                    if next == "are" {
                        // "@16/@40 are PSEUDO_ADDR8": a type change only.
                        let ty = w.next().unwrap_or("").trim_end_matches(['.', ',']);
                        assert!(is_ident(ty), "structs.md line {ln}: {part:?}");
                        for f in copied.iter_mut().filter(|f| offs.contains(&f.offset)) {
                            f.ty = ty.to_string();
                            f.line = *ln;
                        }
                        continue;
                    }
                    assert!(is_ident(next), "structs.md line {ln}: {part:?}");
                    // "@15 dge_op (DGE_OPCODE: DIRECT2D 0, ...)": the name and the type.
                    let ty = part
                        .split_once('(')
                        .map(|x| x.1.split([':', ')', ' ']).next().unwrap().to_string())
                        .unwrap_or_default();
                    for f in copied.iter_mut().filter(|f| offs.contains(&f.offset)) {
                        f.what = What::Field(next.to_string());
                        f.ty = ty.clone();
                        f.line = *ln;
                    }
                }
                for f in &mut copied {
                    f.strukt = name.clone();
                    f.gens = gens.clone();
                }
                facts = copied;
            }
        }
        out.push(StructNotes { name, heading, facts, raw_rows, errors });
    }
    out
}

/// `| 12 | 1 | op | ALU_OP |`, `| 16..21 | 6×1 | a, b, c, d, e, f | REG_NUM |`.
fn table_row(
    name: &str,
    c: &[String],
    gens: Option<Vec<usize>>,
    line: usize,
    facts: &mut Vec<Fact>,
) {
    assert_eq!(c.len(), 4, "structs.md line {line}: {c:?}");
    if let Some((a, _)) = c[0].split_once("..") {
        // A run of equal fields: "16..21 | 6×1 | n0, n1, ...".
        let start: u32 = a.parse().unwrap();
        let (count, each) =
            c[1].split_once('×').unwrap_or_else(|| panic!("line {line}: size {:?}", c[1]));
        let (count, each): (u32, u32) = (count.parse().unwrap(), each.parse().unwrap());
        let names: Vec<&str> = c[2].split(',').map(str::trim).collect();
        assert_eq!(names.len() as u32, count, "line {line}");
        for (k, n) in names.iter().enumerate() {
            facts.push(Fact {
                strukt: name.to_string(),
                gens: gens.clone(),
                offset: start + k as u32 * each,
                size: Some(each),
                what: What::Field(field_name(n)),
                ty: c[3].clone(),
                line,
            });
        }
        return;
    }
    let offset: u32 =
        c[0].parse().unwrap_or_else(|_| panic!("structs.md line {line}: offset {:?}", c[0]));
    let size: u32 =
        c[1].parse().unwrap_or_else(|_| panic!("structs.md line {line}: size {:?}", c[1]));
    let what = if c[2].contains("not in my read window") || c[2] == "not given" {
        What::NotGiven
    } else {
        What::Field(field_name(&c[2]))
    };
    facts.push(Fact {
        strukt: name.to_string(),
        gens,
        offset,
        size: Some(size),
        what,
        ty: c[3].clone(),
        line,
    });
}

/// One row of the per-generation `| off | SU | CA | MA | MV |` table.
#[allow(clippy::type_complexity)]
fn pergen_row(
    c: &[String],
    line: usize,
    pergen: &mut [Vec<(u32, What, Option<u32>, String, usize)>; 4],
) {
    assert_eq!(c.len(), 5, "structs.md line {line}: {c:?}");
    // "16 (16 B)", "44 / 45", "12".
    let off_cell = &c[0];
    let explicit_size: Option<u32> = off_cell
        .split_once('(')
        .map(|(_, r)| r.trim_end_matches(')').trim_end_matches(" B").trim().parse().unwrap());
    let offs: Vec<u32> =
        off_cell.split('(').next().unwrap().split('/').map(|x| x.trim().parse().unwrap()).collect();
    let mut prev: Option<&String> = None;
    for g in 0..4 {
        let mut cell = &c[1 + g];
        if cell == "same" {
            cell = prev
                .unwrap_or_else(|| panic!("structs.md line {line}: 'same' in the first column"));
        }
        prev = Some(cell);
        if cell.starts_with('(') {
            continue; // continuation of the field above
        }
        if cell == "not given" {
            assert_eq!(offs.len(), 1, "line {line}");
            pergen[g].push((offs[0], What::NotGiven, None, String::new(), line));
            continue;
        }
        let parts: Vec<&str> = cell.split('/').map(str::trim).collect();
        assert_eq!(parts.len(), offs.len(), "structs.md line {line}: {cell:?} vs offsets {offs:?}");
        for (off, part) in offs.iter().zip(parts) {
            let mut words = part.split_whitespace();
            let first = words.next().unwrap();
            let (n, arr) = split_array(first);
            assert!(is_ident(&n), "line {line}: {part:?}");
            let rest: Vec<&str> = words.collect();
            // "quant_offset QUANT_OFFSET (2)" gives the size in parentheses.
            let paren_size = rest.iter().find_map(|w| {
                w.strip_prefix('(').and_then(|x| x.strip_suffix(')')).and_then(|x| x.parse().ok())
            });
            let ty =
                rest.iter().filter(|w| !w.starts_with('(')).copied().collect::<Vec<_>>().join(" ");
            let size = arr.or(paren_size).or(explicit_size).or_else(|| prim_size(&ty));
            pergen[g].push((*off, What::Field(n), size, ty, line));
        }
    }
}

/// "12 id u32; 16 semaphore u32; 20 reserved1[44]." (sizes from the next offset; the last
/// item runs to byte 64).
fn bullet_items(
    name: &str,
    body: &str,
    gens: Option<Vec<usize>>,
    line: usize,
    facts: &mut Vec<Fact>,
) -> Result<(), String> {
    let items: Vec<&str> = body.trim_end_matches('.').split(';').map(str::trim).collect();
    let mut parsed: Vec<(u32, String, Option<u32>, String)> = Vec::new();
    for it in &items {
        let err = || format!("structs.md line {line}: {it:?}");
        let mut w = it.split_whitespace();
        let off: u32 = w.next().ok_or_else(err)?.parse().map_err(|_| err())?;
        let (n, arr) = split_array(w.next().ok_or_else(err)?);
        if !is_ident(&n) {
            return Err(err());
        }
        let ty: String = w.collect::<Vec<_>>().join(" ");
        let size = if n.starts_with("reserved") { arr } else { prim_size(&ty) };
        parsed.push((off, n, size, ty));
    }
    let mut out = Vec::new();
    for (k, (off, n, size, ty)) in parsed.iter().enumerate() {
        let next = parsed.get(k + 1).map(|x| x.0).unwrap_or(64);
        let implied = next - off;
        if let Some(s) = size {
            if *s != implied {
                return Err(format!(
                    "structs.md line {line}: {n} size {s} vs the next offset {next}"
                ));
            }
        }
        out.push(Fact {
            strukt: name.to_string(),
            gens: gens.clone(),
            offset: *off,
            size: Some(implied),
            what: What::Field(n.clone()),
            ty: ty.clone(),
            line,
        });
    }
    facts.extend(out);
    Ok(())
}

/// Operand types of section 1 with an `| off | sz | field |` table (HEADER, EVENTS,
/// EVENTS_EXTENDED, IMM_REG): (type name, facts). The name is the heading's first word.
pub fn operand_tables(text: &str) -> Vec<(String, Vec<Fact>, usize)> {
    let all: Vec<&str> = text.lines().collect();
    let start = all.iter().position(|l| l.starts_with("## 1. ")).expect("section 1");
    let end = all.iter().position(|l| l.starts_with("## 2. ")).expect("section 2");
    let mut out: Vec<(String, Vec<Fact>, usize)> = Vec::new();
    let mut cur: Option<String> = None;
    let mut table: Option<Vec<String>> = None;
    for (i, l) in all.iter().enumerate().take(end).skip(start) {
        if let Some(h) = l.strip_prefix("### ") {
            // "### 1.2 EVENTS (8 B). hdr: ..."
            let name = h.split_whitespace().nth(1).unwrap_or("").to_string();
            cur = Some(name);
            table = None;
            continue;
        }
        let Some(c) = cells(l) else {
            table = None;
            continue;
        };
        if is_separator(&c) {
            continue;
        }
        if table.is_none() {
            table = Some(c);
            continue;
        }
        let hdr = table.as_ref().unwrap();
        if hdr.len() >= 3 && hdr[0] == "off" && hdr[1] == "sz" && hdr[2] == "field" {
            let name = cur.clone().expect("table before any heading");
            if out.last().map(|x| &x.0) != Some(&name) {
                out.push((name.clone(), Vec::new(), 0));
            }
            let entry = out.last_mut().unwrap();
            entry.2 += 1;
            let off: u32 =
                c[0].parse().unwrap_or_else(|_| panic!("structs.md line {}: {c:?}", i + 1));
            let sz: u32 =
                c[1].parse().unwrap_or_else(|_| panic!("structs.md line {}: {c:?}", i + 1));
            entry.1.push(Fact {
                strukt: name,
                gens: None,
                offset: off,
                size: Some(sz),
                what: What::Field(field_name(&c[2])),
                ty: c.get(3).cloned().unwrap_or_default(),
                line: i + 1,
            });
        }
    }
    out
}

/// The tensor-descriptor table of section 1.15: (type, stated size, [(offset, size)]).
pub fn tensor_descriptors(text: &str) -> Vec<(String, u32, Vec<(u32, u32)>)> {
    let sec = section(text, "### 1.15");
    let mut out = Vec::new();
    for l in sec {
        let Some(c) = cells(l) else { continue };
        if is_separator(&c) || c[0] == "type" {
            continue;
        }
        let size: u32 = c[1].parse().unwrap();
        let mut parts = Vec::new();
        for item in c[2].split(';') {
            // "start_addr ADDR4 @0", "int16[2] @4", "base int32 @0", "step_elem int16[1] @4".
            let (lhs, off) = item.rsplit_once('@').unwrap_or_else(|| panic!("1.15 item {item:?}"));
            let off: u32 = off.split_whitespace().next().unwrap().parse().unwrap();
            let ty = lhs.split_whitespace().last().unwrap();
            let sz = prim_size(ty).unwrap_or_else(|| match ty {
                "ADDR4" => 4,
                other => panic!("1.15: type {other:?}"),
            });
            parts.push((off, sz));
        }
        out.push((c[0].clone(), size, parts));
    }
    out
}

// ---------------------------------------------------------------------------------
// structs.md section 2.12: binding corrections
// ---------------------------------------------------------------------------------

/// What section 2.12 says about bindings: opcode → arm (`Some`), or unresolved (`None`),
/// with the generations the correction is restricted to.
pub fn binding_corrections(text: &str) -> BTreeMap<u64, (Option<String>, Option<Vec<usize>>)> {
    let sec = section(text, "### 2.12");
    let mut out = BTreeMap::new();
    for l in sec {
        let Some(body) = l.trim().strip_prefix("- ") else { continue };
        let body = body.trim_end_matches('.');
        if body.contains("(unresolved)") {
            // "0x7A: Matrix gives CTRL_IM, but ..." / "0x4D: D3_RAND (RNG page) vs D4_MR (RdSt)"
            let v = hex_values(body)[0];
            out.insert(v, (None, None));
        } else if let Some((lhs, rhs)) =
            body.split_once(": ").filter(|(l, _)| hex_values(l).len() == 1 && l.starts_with("0x"))
        {
            // "0x92: S2D2_TS_AS, not S3D3_TS (TSAS)"
            let arm = upper_idents(rhs)[0].clone();
            out.insert(hex_values(lhs)[0], (Some(arm), None));
        } else if let Some((arm, vals)) = body.split_once(" binds exactly ") {
            // "S3D3_TS binds exactly 0x43, ..."
            for v in hex_values(vals) {
                out.insert(v, (Some(arm.trim().to_string()), None));
            }
        } else {
            // "SU only: 0x8A, 0x8B, 0x8F → S3S3D3_TT and 0x8C, 0x8D → S4D4_TR (Wide)"
            // "0x4A → S4_RL; 0x81 → S2D2_JPEG; 0x9C → S2D2_TR"
            let (gens, body) = match body.split_once(": ") {
                Some((g, rest)) if g.ends_with("only") => (Some(parse_gens(g)), rest),
                _ => (None, body),
            };
            let mut pending: Vec<u64> = Vec::new();
            for piece in body.split('→') {
                let idents = upper_idents(piece);
                if !pending.is_empty() {
                    let arm = idents
                        .first()
                        .unwrap_or_else(|| panic!("2.12: no arm in {piece:?}"))
                        .clone();
                    for v in pending.drain(..) {
                        out.insert(v, (Some(arm.clone()), gens.clone()));
                    }
                }
                pending = hex_values(piece);
            }
            assert!(pending.is_empty() || !out.is_empty(), "2.12: dangling values in {body:?}");
        }
    }
    out
}

// ---------------------------------------------------------------------------------
// enums.md
// ---------------------------------------------------------------------------------

/// An enum table of enums.md: (code, name, per-generation presence when given).
pub type EnumTable = Vec<(u64, String, Option<[bool; 4]>)>;

/// Section 1 (DTYPE): `| code | name | SU | CA | MA | MV | TONGA | ... |`.
pub fn dtype_table(text: &str) -> EnumTable {
    let sec = section(text, "## 1. `NEURON_ISA_TPB_DTYPE`");
    let mut out = Vec::new();
    for l in sec {
        let Some(c) = cells(l) else { continue };
        if is_separator(&c) || c[0] == "code" {
            continue;
        }
        out.push((parse_hex(&c[0]), c[1].clone(), Some(dots(&c[2..6]))));
    }
    out
}

/// Section 2 (ALU_OP): two side-by-side `| code | name | SU | CA | MA | MV |` halves.
pub fn alu_op_table(text: &str) -> EnumTable {
    let sec = section(text, "## 2. `NEURON_ISA_TPB_ALU_OP`");
    let mut out = Vec::new();
    for l in sec {
        let Some(c) = cells(l) else { continue };
        if is_separator(&c) || c[0] == "code" {
            continue;
        }
        assert_eq!(c.len(), 13, "ALU_OP row {c:?}");
        for half in [&c[0..6], &c[7..13]] {
            if half[0].is_empty() {
                continue;
            }
            out.push((parse_hex(&half[0]), half[1].clone(), Some(dots(&half[2..6]))));
        }
    }
    out
}

fn dots(c: &[String]) -> [bool; 4] {
    let mut out = [false; 4];
    for (i, x) in c.iter().enumerate() {
        out[i] = match x.as_str() {
            "●" => true,
            "–" | "-" => false,
            other => panic!("presence cell {other:?}"),
        };
    }
    out
}

/// The stated per-generation counts line under a table: "- Counts: SU 16, CA 16, MA 24, MV 30".
pub fn stated_counts(text: &str, heading: &str) -> [usize; 4] {
    let sec = section(text, heading);
    let l = sec.iter().find(|l| l.trim_start().starts_with("- Counts:")).expect("a Counts line");
    let mut out = [0; 4];
    for (g, a) in GEN_ABBR.iter().enumerate() {
        let i = l.find(&format!("{a} ")).unwrap_or_else(|| panic!("{a} in {l:?}"));
        let n: String = l[i + 3..].chars().take_while(|c| c.is_ascii_digit()).collect();
        out[g] = n.parse().unwrap();
    }
    out
}

/// `NAME = value` pairs of a value list like "IDLE = 0, ZERO = 1, ..." (hex or decimal).
/// Items whose value is not a plain number (`1<<0`, "…32I") are skipped and returned in
/// the second list so that the caller can account for them.
pub fn value_list(s: &str) -> (Vec<(String, u64)>, Vec<String>) {
    let mut ok = Vec::new();
    let mut skipped = Vec::new();
    // Drop parentheticals: "(Gap page spells ...)".
    let mut clean = String::new();
    let mut depth = 0;
    for ch in s.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => clean.push(ch),
            _ => {}
        }
    }
    // "INVALID = 0, ...; tensor.location SBUF = 1, HBM = 2": a segment labelled with a
    // lower-case field name lists another field's values; it is skipped.
    let mut kept = String::new();
    for (k, seg) in clean.split(';').enumerate() {
        let first = seg.split_whitespace().next().unwrap_or("");
        let labelled = first.chars().any(|c| c.is_ascii_lowercase())
            && !first.contains('=')
            && seg.split_whitespace().nth(1).is_some_and(|w| w != "=");
        if k > 0 && labelled {
            skipped.push(seg.trim().to_string());
            continue;
        }
        kept.push_str(seg);
        kept.push(',');
    }
    for item in kept.split(',') {
        let Some((n, v)) = item.split_once('=') else { continue };
        let n = n.trim();
        let v = v.trim();
        let num = if let Some(h) = v.strip_prefix("0x") {
            u64::from_str_radix(h.split_whitespace().next().unwrap_or(""), 16).ok()
        } else {
            v.split_whitespace().next().and_then(|x| x.parse::<u64>().ok())
        };
        match (is_ident(n), num) {
            (true, Some(x)) => ok.push((n.to_string(), x)),
            _ => skipped.push(item.trim().to_string()),
        }
    }
    (ok, skipped)
}

/// Rows of the `| enum | values | ... |` tables of enums.md: (enum name without the
/// `NEURON_ISA_TPB_` prefix and backticks, the values cell, 1-based line).
pub fn enum_rows(text: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut header: Option<Vec<String>> = None;
    for (i, l) in text.lines().enumerate() {
        let Some(c) = cells(l) else {
            header = None;
            continue;
        };
        if is_separator(&c) {
            continue;
        }
        if header.is_none() {
            header = Some(c);
            continue;
        }
        let h = header.as_ref().unwrap();
        if h.len() >= 2 && h[0] == "enum" && h[1] == "values" {
            let name = c[0]
                .split('`')
                .nth(1)
                .unwrap_or(&c[0])
                .trim_start_matches("NEURON_ISA_TPB_")
                .to_string();
            out.push((name, c[1].clone(), i + 1));
        }
    }
    out
}

// ---------------------------------------------------------------------------------
// structs.md: partial layouts
// ---------------------------------------------------------------------------------

/// What a partial layout states.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Partial {
    /// A field named `name` starts at `offset`.
    Named { offset: u32, name: String },
    /// A field of type `ty` (no name given) starts at `offset`.
    Typed { offset: u32, ty: String },
    /// Bytes `lo..hi` are not given.
    NotGiven { lo: u32, hi: u32 },
}

/// One stated fact of a partial layout, with the generations a "CA:" / "MA:" prefix
/// restricts it to and its line.
#[derive(Clone, Debug)]
pub struct PartialFact {
    pub strukt: String,
    pub gens: Option<Vec<usize>>,
    pub fact: Partial,
    pub line: usize,
}

/// The facts of the partial-layout blocks `names` (section 4's partial list): their
/// tables (as [`struct_notes`] reads them) and their bullets, item by item. An item that
/// carries an offset (`12 name`, `name @12`) but does not read is returned in the second
/// list, so that nothing is skipped silently.
pub fn partial_facts(text: &str, names: &[String]) -> (Vec<PartialFact>, Vec<String>) {
    let mut out = Vec::new();
    let mut unread = Vec::new();
    let notes = struct_notes(text);
    for (block, lines) in struct_blocks(text) {
        let members: Vec<&str> = block.split(" / ").collect();
        if !members.iter().any(|m| names.iter().any(|n| n == m)) {
            continue;
        }
        // Tables.
        if let Some(b) = notes.iter().find(|b| b.name == block) {
            let has_table = lines.iter().any(|(_, l)| l.trim_start().starts_with('|'));
            if has_table {
                for f in b.facts.iter().filter(|f| f.line > 0) {
                    let fact = match &f.what {
                        What::Field(n) => Partial::Named { offset: f.offset, name: n.clone() },
                        What::NotGiven => {
                            Partial::NotGiven { lo: f.offset, hi: f.offset + f.size.unwrap_or(1) }
                        }
                    };
                    if lines.iter().any(|(ln, l)| *ln == f.line && l.trim_start().starts_with('|'))
                    {
                        out.push(PartialFact {
                            strukt: block.clone(),
                            gens: f.gens.clone(),
                            fact,
                            line: f.line,
                        });
                    }
                }
            }
        }
        // Bullets, joined with their indented continuation lines.
        let mut bullets: Vec<(usize, String)> = Vec::new();
        for (ln, l) in &lines {
            if let Some(b) = l.strip_prefix("- ") {
                bullets.push((*ln, b.to_string()));
            } else if l.starts_with("  ") && !l.trim_start().starts_with('|') {
                if let Some(last) = bullets.last_mut() {
                    last.1.push(' ');
                    last.1.push_str(l.trim());
                }
            }
        }
        for (k, (ln, b)) in bullets.iter().enumerate() {
            let b = b.replace('`', "").replace("**(mine)**", "");
            // A "CA: ..." / "MA: ..." / "SU: ..." prefix.
            let (gens, body) = match b.split_once(": ") {
                Some((g, rest)) if GEN_ABBR.contains(&g) => (Some(parse_gens(g)), rest.to_string()),
                _ => (None, b.clone()),
            };
            // The composite block: the k-th bullet is the k-th struct's.
            let strukt = if members.len() > 1 { members[k].to_string() } else { block.clone() };
            // "Fields in order: a, b, c[2], d[48]. Offsets (mine): 12, 13, 14, 16."
            if let (Some(i), Some(j)) = (body.find("Fields in order: "), body.find("Offsets")) {
                let names: Vec<String> = body[i + 17..j]
                    .trim()
                    .trim_end_matches('.')
                    .split(',')
                    .map(|x| split_array(x.trim()).0)
                    .collect();
                let offs: Vec<u32> = body[j..]
                    .split_once(':')
                    .map(|x| x.1)
                    .unwrap_or("")
                    .trim_end_matches('.')
                    .split(',')
                    .map(|x| x.trim().parse().unwrap())
                    .collect();
                assert_eq!(names.len(), offs.len(), "structs.md line {ln}");
                for (name, offset) in names.into_iter().zip(offs) {
                    out.push(PartialFact {
                        strukt: strukt.clone(),
                        gens: gens.clone(),
                        fact: Partial::Named { offset, name },
                        line: *ln,
                    });
                }
                continue;
            }
            if let Some(r) = not_given_ranges(&body) {
                for (lo, hi) in r {
                    out.push(PartialFact {
                        strukt: strukt.clone(),
                        gens: gens.clone(),
                        fact: Partial::NotGiven { lo, hi },
                        line: *ln,
                    });
                }
                continue;
            }
            for item in split_items(&body) {
                match read_item(&item) {
                    Some(facts) => out.extend(facts.into_iter().map(|fact| PartialFact {
                        strukt: strukt.clone(),
                        gens: gens.clone(),
                        fact,
                        line: *ln,
                    })),
                    None if carries_offset(&item) => {
                        unread.push(format!("{strukt} (structs.md:{ln}): {}", item.trim()))
                    }
                    None => {}
                }
            }
        }
    }
    (out, unread)
}

/// "Bytes 13..31 and 44..63 are not given." / "Bytes 35 and 38..39 are not listed."
fn not_given_ranges(s: &str) -> Option<Vec<(u32, u32)>> {
    let t = s.trim().trim_end_matches('.');
    let body = t.strip_prefix("Bytes ").or_else(|| t.strip_prefix("Byte "))?;
    let body = body
        .strip_suffix(" are not given")
        .or_else(|| body.strip_suffix(" are not listed"))
        .or_else(|| body.strip_suffix(" is not given"))?;
    let mut out = Vec::new();
    for part in body.split([',']).flat_map(|p| p.split(" and ")) {
        let p = part.trim();
        if p.is_empty() {
            continue;
        }
        let (lo, hi) = match p.split_once("..") {
            Some((a, b)) => (a.parse().ok()?, b.parse::<u32>().ok()? + 1),
            None => {
                let v: u32 = p.parse().ok()?;
                (v, v + 1)
            }
        };
        out.push((lo, hi));
    }
    Some(out)
}

/// Split a bullet into items on `;` and `,` outside parentheses and quotes.
fn split_items(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ';' | ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    out.push(cur);
    out.into_iter()
        .map(|x| x.trim().trim_end_matches('.').to_string())
        .filter(|x| !x.is_empty())
        .collect()
}

/// Whether an item states an offset: it starts with a decimal offset or holds `@N`.
fn carries_offset(item: &str) -> bool {
    let t = item.trim().trim_start_matches("and ").trim_start_matches("plus ");
    starts_with_offset(t)
        || t.split('@').skip(1).any(|x| x.starts_with(|c: char| c.is_ascii_digit()))
}

/// One item: `12 name [type]`, `32..43 name (...)`, `name [TYPE] @N`, `a/b @N/@M`,
/// `TYPE @N` (no name). `None` when the item does not read so.
fn read_item(item: &str) -> Option<Vec<Partial>> {
    let t = item.trim().trim_start_matches("and ").trim_start_matches("plus ").trim();
    let t = t.strip_prefix("Only ").unwrap_or(t);
    let first = t.split_whitespace().next()?;
    if let Some((a, _)) = first.split_once("..") {
        // "32..43 events_extended (...)"
        let off: u32 = a.parse().ok()?;
        let name = t.split_whitespace().nth(1)?;
        return is_ident(name)
            .then(|| vec![Partial::Named { offset: off, name: name.to_string() }]);
    }
    if let Ok(off) = first.parse::<u32>() {
        let (name, _) = split_array(t.split_whitespace().nth(1)?);
        return is_ident(&name).then(|| vec![Partial::Named { offset: off, name }]);
    }
    // "... at @61 immediate_out_dtype (...) and @62 imm0_imm1_src (...)": "@N name".
    let forward: Vec<Partial> = if !t.contains(" at @") {
        Vec::new()
    } else {
        t.split('@')
            .skip(1)
            .filter_map(|x| {
                let mut w = x.split_whitespace();
                let off: u32 = w.next()?.parse().ok()?;
                let name = w.next()?;
                (is_ident(name) && name.starts_with(|c: char| c.is_ascii_lowercase()))
                    .then(|| Partial::Named { offset: off, name: name.to_string() })
            })
            .collect()
    };
    if !forward.is_empty() {
        return Some(forward);
    }
    // "name ... @N" forms (S2D2_AC writes one offset in quotes: relu_param_src "@24").
    let unquoted = t.replace('"', "");
    let (lhs, rhs) = unquoted.split_once(" @")?;
    let offs: Vec<u32> = rhs
        .split_whitespace()
        .next()?
        .trim_end_matches(['.', ','])
        .split("/@")
        .map(|x| x.parse().ok())
        .collect::<Option<Vec<u32>>>()?;
    let lhs = lhs.trim();
    let head = lhs.split_whitespace().next()?;
    if head.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && lhs.split_whitespace().count() == 1
    {
        // "MODIFY_POOL_OP @12": a type, no name.
        return (offs.len() == 1)
            .then(|| vec![Partial::Typed { offset: offs[0], ty: head.to_string() }]);
    }
    let names: Vec<String> = if head.contains('/') {
        // "row_grp/col_grp", "num_active_rows/cols": the second shares the first's prefix.
        let (a, b) = head.split_once('/')?;
        let b =
            if b.contains('_') { b.to_string() } else { format!("{}{b}", &a[..a.rfind('_')? + 1]) };
        vec![a.to_string(), b]
    } else {
        vec![split_array(head).0]
    };
    if names.len() != offs.len() || !names.iter().all(|n| is_ident(n)) {
        return None;
    }
    Some(
        names.into_iter().zip(offs).map(|(name, offset)| Partial::Named { offset, name }).collect(),
    )
}
