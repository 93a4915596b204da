//! Tokens of LLVM assembly (LangRef, "Identifiers", "Simple Constants", "Comments").
//!
//! The whole input is lexed up front into a vector of [`Token`]s (kind + byte span, 12
//! bytes each), in one pass, linear in the input. The parser then looks ahead freely.
//! Token text is not copied: names and strings are sliced from the input on demand and
//! unescaped only when they contain escapes.
//!
//! Lexical rules (LangRef; LLVM 14 spelling):
//! - `%name`, `@name` with `[-a-zA-Z$._][-a-zA-Z$._0-9]*`; `%N`, `@N` numbered;
//!   `%"..."`, `@"..."` quoted with `\XX` hex escapes.
//! - `!name` (named metadata, may contain `\XX` escapes), `!N` (metadata id), `!` alone.
//! - Labels: `[-a-zA-Z$._0-9]+:` and `"...":`.
//! - `#N` attribute groups, `$name` comdats, `^N` summary entries.
//! - Integers `-?[0-9]+`, `u0x..`/`s0x..` hex integers; floats `[-+]?[0-9]+.[0-9]*([eE][-+]?[0-9]+)?`;
//!   hexadecimal floats `0x..` (double bits), `0xH` (half), `0xR` (bfloat), `0xK` (x86_fp80),
//!   `0xL` (fp128), `0xM` (ppc_fp128).
//! - Keywords: `[a-zA-Z_][a-zA-Z0-9_]*` (types such as `i32` are keywords too).
//! - `"..."` strings; `;` comments to the end of the line; punctuation `= , * [ ] { } ( ) < > | ...`.

use super::error::LlTextError;

/// What a token is. Its text is `src[start..end]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Eof,
    /// `%name` or `%"name"` (a value, a block or a named type).
    LocalVar,
    /// `%N`.
    LocalId,
    /// `@name` or `@"name"`.
    GlobalVar,
    /// `@N`.
    GlobalId,
    /// `!name`.
    MetadataVar,
    /// `!N`.
    MetadataId,
    /// `!` not followed by a name or number (`!{`, `!"`).
    Exclaim,
    /// `name:` or `"name":` or `N:`.
    Label,
    /// `#N`.
    AttrGroupId,
    /// `$name`.
    ComdatVar,
    /// `^N`.
    SummaryId,
    /// A bare word: keyword, type name, opcode.
    Word,
    /// Decimal integer, possibly negative.
    Integer,
    /// `u0x...` or `s0x...`.
    HexInteger,
    /// Decimal floating-point literal.
    Float,
    /// `0x...` with an optional kind letter.
    HexFloat,
    /// `"..."`.
    String,
    Equal,
    Comma,
    Star,
    LSquare,
    RSquare,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Less,
    Greater,
    Bar,
    DotDotDot,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
}

/// Characters of unquoted names and labels.
fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'$' | b'.' | b'_')
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || matches!(b, b'-' | b'$' | b'.' | b'_')
}

/// Lex all of `src`. The last token is always [`Tok::Eof`].
#[cfg(test)]
pub fn lex(src: &[u8]) -> Result<Vec<Token>, LlTextError> {
    lex_counting_locals(src).map(|(toks, _)| toks)
}

/// [`lex`], also counting local definitions per function (see [`LocalCounts`]).
pub fn lex_counting_locals(src: &[u8]) -> Result<(Vec<Token>, LocalCounts), LlTextError> {
    if src.len() > u32::MAX as usize - 1 {
        return Err(LlTextError { line: 1, column: 1, message: "input larger than 4 GiB".into() });
    }
    let mut lx = Lexer { src, pos: 0, out: Vec::with_capacity(src.len() / 5), locals: LocalCounts::default() };
    lx.run()?;
    Ok((lx.out, lx.locals))
}

/// How many local names each function defines, counted while lexing, so the parser can
/// size a function's name tables once instead of growing (and rehashing) them as it goes:
/// at 10^5 blocks the growth rehashed megabytes of table. A definition is a label or a
/// local name followed by `=`; named ones (`%x`, `x:`) and numbered ones (`%7`, `7:`) are
/// counted apart, as the parser keeps them in two tables. Counts run from one `define` to
/// the next, so what lies between two functions is counted with the first: an estimate
/// for a capacity, never used for anything else.
#[derive(Clone, Debug, Default)]
pub struct LocalCounts {
    /// `(token index of a define, named definitions before it, numbered ones before it)`.
    marks: Vec<(u32, u32, u32)>,
    named: u32,
    numbered: u32,
}

impl LocalCounts {
    /// `(named, numbered)` local definitions of the function whose `define` is the last one
    /// at or before token `at` (zero before the first `define`).
    pub fn of_function_at(&self, at: usize) -> (usize, usize) {
        let i = self.marks.partition_point(|&(m, _, _)| m as usize <= at);
        if i == 0 {
            return (0, 0);
        }
        let (_, named, numbered) = self.marks[i - 1];
        let (end_named, end_numbered) = match self.marks.get(i) {
            Some(&(_, a, b)) => (a, b),
            None => (self.named, self.numbered),
        };
        ((end_named - named) as usize, (end_numbered - numbered) as usize)
    }
}

struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    out: Vec<Token>,
    locals: LocalCounts,
}

impl Lexer<'_> {
    fn at(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    fn push(&mut self, kind: Tok, start: usize) {
        match kind {
            Tok::Label => {
                let name = &self.src[start..self.pos - 1];
                if !name.is_empty() && name.iter().all(u8::is_ascii_digit) {
                    self.locals.numbered += 1;
                } else {
                    self.locals.named += 1;
                }
            }
            Tok::Equal => match self.out.last().map(|t| t.kind) {
                Some(Tok::LocalVar) => self.locals.named += 1,
                Some(Tok::LocalId) => self.locals.numbered += 1,
                _ => {}
            },
            Tok::Word if &self.src[start..self.pos] == b"define" => {
                let c = &mut self.locals;
                c.marks.push((self.out.len() as u32, c.named, c.numbered));
            }
            _ => {}
        }
        self.out.push(Token { kind, start: start as u32, end: self.pos as u32 });
    }

    fn error(&self, at: usize, message: impl Into<String>) -> LlTextError {
        LlTextError::at(self.src, at, message)
    }

    fn run(&mut self) -> Result<(), LlTextError> {
        // A UTF-8 byte-order mark is allowed before the first token.
        if self.src.starts_with(b"\xEF\xBB\xBF") {
            self.pos = 3;
        }
        loop {
            let start = self.pos;
            let Some(&c) = self.src.get(self.pos) else {
                self.push(Tok::Eof, start);
                return Ok(());
            };
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b';' => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'%' | b'@' => self.sigil_name(c)?,
                b'!' => self.exclaim(),
                b'#' => self.number_after_sigil(Tok::AttrGroupId, "`#` without a number")?,
                b'^' => self.number_after_sigil(Tok::SummaryId, "`^` without a number")?,
                b'$' => {
                    self.pos += 1;
                    if self.at(self.pos) == b'"' {
                        self.quoted(start)?;
                    } else {
                        while is_name_char(self.at(self.pos)) {
                            self.pos += 1;
                        }
                    }
                    if self.pos == start + 1 {
                        return Err(self.error(start, "`$` without a comdat name"));
                    }
                    self.push(Tok::ComdatVar, start);
                }
                b'"' => {
                    self.quoted(start)?;
                    if self.at(self.pos) == b':' {
                        self.pos += 1;
                        self.push(Tok::Label, start);
                    } else {
                        self.push(Tok::String, start);
                    }
                }
                b'0'..=b'9' | b'-' | b'+' => self.number_or_label()?,
                b'.' if self.src[self.pos..].starts_with(b"...") => {
                    self.pos += 3;
                    self.push(Tok::DotDotDot, start);
                }
                b'=' => self.single(Tok::Equal),
                b',' => self.single(Tok::Comma),
                b'*' => self.single(Tok::Star),
                b'[' => self.single(Tok::LSquare),
                b']' => self.single(Tok::RSquare),
                b'{' => self.single(Tok::LBrace),
                b'}' => self.single(Tok::RBrace),
                b'(' => self.single(Tok::LParen),
                b')' => self.single(Tok::RParen),
                b'<' => self.single(Tok::Less),
                b'>' => self.single(Tok::Greater),
                b'|' => self.single(Tok::Bar),
                c if c.is_ascii_alphabetic() || c == b'_' || c == b'.' || c == b'$' => self.word_or_label()?,
                other => {
                    let shown =
                        if other.is_ascii_graphic() { format!("'{}'", other as char) } else { format!("{other:#04x}") };
                    return Err(self.error(start, format!("unexpected character {shown}")));
                }
            }
        }
    }

    fn single(&mut self, kind: Tok) {
        let start = self.pos;
        self.pos += 1;
        self.push(kind, start);
    }

    /// A `"..."` string starting at `start`; leaves `pos` after the closing quote.
    fn quoted(&mut self, start: usize) -> Result<(), LlTextError> {
        let open = self.pos;
        debug_assert_eq!(self.at(open), b'"');
        match self.src[open + 1..].iter().position(|&b| b == b'"') {
            Some(n) => {
                self.pos = open + 1 + n + 1;
                Ok(())
            }
            None => Err(self.error(start, "string not terminated before the end of the input")),
        }
    }

    fn sigil_name(&mut self, sigil: u8) -> Result<(), LlTextError> {
        let start = self.pos;
        self.pos += 1;
        let (named, numbered) =
            if sigil == b'%' { (Tok::LocalVar, Tok::LocalId) } else { (Tok::GlobalVar, Tok::GlobalId) };
        let c = self.at(self.pos);
        if c == b'"' {
            self.quoted(start)?;
            self.push(named, start);
        } else if c.is_ascii_digit() {
            while self.at(self.pos).is_ascii_digit() {
                self.pos += 1;
            }
            self.push(numbered, start);
        } else if is_name_start(c) {
            while is_name_char(self.at(self.pos)) {
                self.pos += 1;
            }
            self.push(named, start);
        } else {
            return Err(self.error(start, format!("`{}` without a name", sigil as char)));
        }
        Ok(())
    }

    fn exclaim(&mut self) {
        let start = self.pos;
        self.pos += 1;
        let c = self.at(self.pos);
        if c.is_ascii_digit() {
            while self.at(self.pos).is_ascii_digit() {
                self.pos += 1;
            }
            self.push(Tok::MetadataId, start);
        } else if is_name_start(c) || c == b'\\' {
            while is_name_char(self.at(self.pos)) || self.at(self.pos) == b'\\' {
                self.pos += 1;
            }
            self.push(Tok::MetadataVar, start);
        } else {
            self.push(Tok::Exclaim, start);
        }
    }

    fn number_after_sigil(&mut self, kind: Tok, missing: &str) -> Result<(), LlTextError> {
        let start = self.pos;
        self.pos += 1;
        if !self.at(self.pos).is_ascii_digit() {
            return Err(self.error(start, missing));
        }
        while self.at(self.pos).is_ascii_digit() {
            self.pos += 1;
        }
        self.push(kind, start);
        Ok(())
    }

    /// If `[-a-zA-Z$._0-9]+:` starts here, consume it as a label.
    fn try_label(&mut self, start: usize) -> bool {
        let mut end = start;
        while is_name_char(self.at(end)) {
            end += 1;
        }
        if end > start && self.at(end) == b':' {
            self.pos = end + 1;
            self.push(Tok::Label, start);
            true
        } else {
            false
        }
    }

    fn word_or_label(&mut self) -> Result<(), LlTextError> {
        let start = self.pos;
        if self.try_label(start) {
            return Ok(());
        }
        let c = self.at(start);
        // `u0x...` / `s0x...`: hexadecimal integers.
        if (c == b'u' || c == b's') && self.at(start + 1) == b'0' && self.at(start + 2) == b'x' {
            self.pos = start + 3;
            while self.at(self.pos).is_ascii_hexdigit() {
                self.pos += 1;
            }
            if self.pos == start + 3 {
                return Err(self.error(start, "hexadecimal integer without digits"));
            }
            self.push(Tok::HexInteger, start);
            return Ok(());
        }
        if !(c.is_ascii_alphabetic() || c == b'_') {
            return Err(self.error(start, format!("unexpected character '{}'", c as char)));
        }
        while self.at(self.pos).is_ascii_alphanumeric() || self.at(self.pos) == b'_' {
            self.pos += 1;
        }
        self.push(Tok::Word, start);
        Ok(())
    }

    fn number_or_label(&mut self) -> Result<(), LlTextError> {
        let start = self.pos;
        let c = self.at(start);
        if c != b'+' && self.try_label(start) {
            return Ok(());
        }
        if c == b'0' && self.at(start + 1) == b'x' {
            self.pos = start + 2;
            if matches!(self.at(self.pos), b'K' | b'L' | b'M' | b'H' | b'R') {
                self.pos += 1;
            }
            let digits = self.pos;
            while self.at(self.pos).is_ascii_hexdigit() {
                self.pos += 1;
            }
            if self.pos == digits {
                return Err(self.error(start, "hexadecimal constant without digits"));
            }
            self.push(Tok::HexFloat, start);
            return Ok(());
        }
        self.pos = start + usize::from(c == b'-' || c == b'+');
        let digits = self.pos;
        while self.at(self.pos).is_ascii_digit() {
            self.pos += 1;
        }
        if self.pos == digits {
            return Err(self.error(start, format!("`{}` not followed by a number", c as char)));
        }
        if self.at(self.pos) != b'.' {
            if c == b'+' {
                return Err(self.error(start, "`+` is only allowed before floating-point literals"));
            }
            self.push(Tok::Integer, start);
            return Ok(());
        }
        self.pos += 1;
        while self.at(self.pos).is_ascii_digit() {
            self.pos += 1;
        }
        if matches!(self.at(self.pos), b'e' | b'E') {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.at(self.pos), b'-' | b'+') {
                self.pos += 1;
            }
            if self.at(self.pos).is_ascii_digit() {
                while self.at(self.pos).is_ascii_digit() {
                    self.pos += 1;
                }
            } else {
                self.pos = save;
            }
        }
        self.push(Tok::Float, start);
        Ok(())
    }
}

/// Undo LLVM's `\XX` hex escapes and `\\` in quoted names and strings. Other backslashes
/// are kept, as LLVM keeps them.
pub fn unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b == b'\\' {
            if raw.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            let hex = |c: Option<&u8>| c.and_then(|c| (*c as char).to_digit(16));
            if let (Some(h), Some(l)) = (hex(raw.get(i + 1)), hex(raw.get(i + 2))) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        lex(s.as_bytes()).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn names_numbers_labels() {
        use Tok::*;
        assert_eq!(kinds("%x = add i32 %0, -1"), [LocalVar, Equal, Word, Word, LocalId, Comma, Integer, Eof]);
        assert_eq!(kinds("entry: 12: \"a b\":"), [Label, Label, Label, Eof]);
        assert_eq!(
            kinds("@\"q\\22\" !0 !foo !{ !\"s\" }"),
            [GlobalVar, MetadataId, MetadataVar, Exclaim, LBrace, Exclaim, String, RBrace, Eof]
        );
        assert_eq!(kinds("1.5e+3 0xH3C00 0x3FF0000000000000 u0x10"), [Float, HexFloat, HexFloat, HexInteger, Eof]);
        assert_eq!(kinds("(...) #0 ; comment\n$c"), [LParen, DotDotDot, RParen, AttrGroupId, ComdatVar, Eof]);
    }

    #[test]
    fn errors_carry_positions() {
        let e = lex(b"define\n  \"open").unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        let e = lex(b"x = `").unwrap_err();
        assert_eq!((e.line, e.column), (1, 5));
    }

    #[test]
    fn unescapes_hex_and_backslash() {
        assert_eq!(unescape(br"a\22b\\c\zz"), b"a\"b\\c\\zz");
    }
}
