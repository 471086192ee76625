//! The README's shell examples (`$ command` and the output shown under it), so that
//! tests can run each one and compare what it prints with what the README promises.

use std::fs;

/// One `$ command` line of a README code block and the output shown under it.
#[derive(Clone, Debug)]
pub struct Example {
    /// The README line of the `$` (1-based).
    pub line: usize,
    /// The command without the `$ `, pipes included (`cargo xtask diff … | head -1`).
    pub command: String,
    /// The lines shown under it, up to the next `$` line or the end of the block.
    pub output: Vec<String>,
    /// The fenced block it is in (0 for the README's first).
    pub block: usize,
}

impl Example {
    /// The command before any `|`.
    pub fn program(&self) -> &str {
        self.command.split(" | ").next().unwrap_or("").trim()
    }

    /// The words of [`Self::program`] after `prefix`, or `None` when it does not start so.
    pub fn args_after(&self, prefix: &str) -> Option<Vec<String>> {
        let rest = self.program().strip_prefix(prefix)?;
        Some(rest.split_whitespace().map(str::to_owned).collect())
    }

    /// `actual` through the example's pipes (`head -N`, `grep -A N 'text'`), as a shell
    /// would pass it on.
    pub fn piped(&self, actual: &str) -> String {
        let mut lines: Vec<&str> = actual.lines().collect();
        for stage in self.command.split(" | ").skip(1) {
            let words: Vec<&str> = stage.split_whitespace().collect();
            lines = match words.as_slice() {
                ["head", n] => {
                    let n: usize = n.trim_start_matches('-').parse().expect("head -N");
                    lines.into_iter().take(n).collect()
                }
                ["grep", a, ..] if a.starts_with("-A") => {
                    let after: usize = a[2..].parse().expect("grep -AN");
                    let pattern = stage.split_once('\'').and_then(|(_, p)| p.split_once('\''));
                    let pattern = pattern.expect("grep -AN 'text'").0;
                    let mut keep = vec![false; lines.len()];
                    for (i, l) in lines.iter().enumerate() {
                        if l.contains(pattern) {
                            keep[i..(i + after + 1).min(lines.len())].fill(true);
                        }
                    }
                    lines.into_iter().zip(keep).filter(|(_, k)| *k).map(|(l, _)| l).collect()
                }
                _ => panic!("README line {}: unknown pipe stage '{stage}'", self.line),
            };
        }
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// Whether `actual` (already piped) is what the README shows: the shown lines in
    /// order, where a line `…` or `...` (indented or not) stands for any lines. Without
    /// one at the start (end), the output must start (end) with the shown lines.
    pub fn check(&self, actual: &str) -> Result<(), String> {
        let got: Vec<&str> = actual.lines().collect();
        let gap = |l: &str| matches!(l.trim(), "…" | "...");
        let segments: Vec<&[String]> = self.output.split(|l| gap(l)).collect();
        let mut at = 0;
        for (i, seg) in segments.iter().enumerate() {
            let (first, last) = (i == 0, i + 1 == segments.len());
            if seg.is_empty() {
                continue;
            }
            let fits = |p: usize| {
                p + seg.len() <= got.len() && seg.iter().zip(&got[p..]).all(|(e, g)| e == g)
            };
            let found = if first {
                fits(0).then_some(0)
            } else if last {
                got.len().checked_sub(seg.len()).filter(|&p| p >= at && fits(p))
            } else {
                (at..got.len()).find(|&p| fits(p))
            };
            let Some(p) = found else {
                return Err(format!(
                    "README.md:{}: `{}` no longer prints\n{}\n--- it prints ---\n{actual}",
                    self.line,
                    self.command,
                    seg.join("\n")
                ));
            };
            at = p + seg.len();
            if last && at != got.len() {
                return Err(format!(
                    "README.md:{}: `{}` prints more than the README shows:\n--- it prints ---\n{actual}",
                    self.line, self.command
                ));
            }
        }
        Ok(())
    }
}

/// The README's text.
fn readme() -> String {
    fs::read_to_string(crate::root().join("README.md")).expect("README.md")
}

/// Every `$ ` line inside the README's fenced blocks, with the output under it.
pub fn examples() -> Vec<Example> {
    parse(&readme())
}

/// The fenced blocks of a Markdown text, in order: each body as its README line
/// numbers (1-based) and lines, fences left out.
fn blocks(text: &str) -> Vec<Vec<(usize, &str)>> {
    let mut out = Vec::new();
    let mut open: Option<Vec<(usize, &str)>> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            match open.take() {
                Some(body) => out.push(body),
                None => open = Some(Vec::new()),
            }
        } else if let Some(body) = open.as_mut() {
            body.push((i + 1, line));
        }
    }
    out
}

/// [`examples`] of a README's text.
pub fn parse(text: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    for (block, body) in blocks(text).into_iter().enumerate() {
        for (line, text) in body {
            if let Some(command) = text.strip_prefix("$ ") {
                let command = command.to_owned();
                out.push(Example { line, command, output: Vec::new(), block });
            } else if let Some(e) = out.last_mut().filter(|e| e.block == block) {
                e.output.push(text.to_owned());
            }
        }
    }
    out
}

/// The body of the README's fenced block whose first line is `first`.
pub fn block_starting(first: &str) -> Option<String> {
    let text = readme();
    let body = blocks(&text).into_iter().find(|b| b.first().is_some_and(|&(_, l)| l == first))?;
    Some(body.iter().map(|(_, l)| format!("{l}\n")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(output: &[&str]) -> Example {
        let output = output.iter().map(|s| s.to_string()).collect();
        Example { line: 1, command: "x".into(), output, block: 0 }
    }

    #[test]
    fn parses_commands_and_their_output() {
        let e = parse("text\n```text\n$ a b\none\n$ c | head -1\ntwo\n```\n$ not in a block\n");
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].command.as_str(), e[0].output.clone()), ("a b", vec!["one".into()]));
        assert_eq!(e[1].program(), "c");
        assert_eq!((e[0].block, e[1].block), (0, 0));
        assert_eq!(e[1].piped("x\ny\n"), "x\n");
    }

    #[test]
    fn gaps_match_any_lines_and_the_rest_must_fit() {
        assert!(ex(&["a", "b"]).check("a\nb\n").is_ok());
        assert!(ex(&["a", "b"]).check("a\nb\nc\n").is_err());
        assert!(ex(&["a", "…"]).check("a\nb\nc\n").is_ok());
        assert!(ex(&["a", "…"]).check("b\na\n").is_err());
        assert!(ex(&["a", "  ...", "c"]).check("a\nb\nb\nc\n").is_ok());
        assert!(ex(&["a", "...", "c"]).check("a\nb\nc\nd\n").is_err());
        assert!(ex(&["...", "c", "..."]).check("a\nc\nd\n").is_ok());
        assert!(ex(&["a", "...", "x", "...", "c"]).check("a\nc\n").is_err());
    }

    #[test]
    fn grep_keeps_the_match_and_lines_after() {
        let command = "x | grep -A1 'm'".into();
        let e = Example { line: 1, command, output: vec![], block: 0 };
        assert_eq!(e.piped("a\nm\nb\nc\nm\n"), "m\nb\nm\n");
    }
}
