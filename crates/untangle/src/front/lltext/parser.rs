//! The parser's state and its token-level helpers.
//!
//! One [`Parser`] reads one module. Its `impl` is split by concern over the sibling
//! modules (`types`, `constants`, `metadata`, `instructions`, `function`, `module`); this
//! file holds the token cursor, name extraction, errors and the nesting guard.
//!
//! Invariants: `pos` always indexes a valid token (the last token is `Eof`, and the cursor
//! never moves past it); every recursive descent (types, constants, inline metadata)
//! goes through [`Parser::enter`], which bounds nesting at [`MAX_NESTING`] so that no input
//! can exhaust the stack.

use super::error::LlTextError;
use super::lexer::{unescape, LocalCounts, Tok, Token};
use super::tables::{GlobalTable, MdTable, TypeTable};
use crate::front::bitcode::layout::DataLayout;
use crate::ir::Module;
use std::borrow::Cow;

/// Deepest nesting of types, constants and inline metadata accepted. Real inputs nest a
/// few levels; the bound only exists so that hostile input cannot overflow the stack (each
/// level costs a few stack frames of the recursive descent).
pub const MAX_NESTING: u32 = 256;

pub type PResult<T> = Result<T, LlTextError>;

pub struct Parser<'a> {
    pub src: &'a [u8],
    pub toks: Vec<Token>,
    /// Local definitions per function, for sizing `function::Body`'s tables.
    pub locals: LocalCounts,
    pub pos: usize,
    depth: u32,
    pub m: Module,
    pub layout: DataLayout,
    pub types: TypeTable,
    pub globals: GlobalTable,
    pub md: MdTable,
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a [u8], toks: Vec<Token>, locals: LocalCounts, name: &str) -> Parser<'a> {
        Parser {
            src,
            toks,
            locals,
            pos: 0,
            depth: 0,
            m: Module { source_name: name.to_string(), ..Module::default() },
            layout: DataLayout::default(),
            types: TypeTable::default(),
            globals: GlobalTable::default(),
            md: MdTable::default(),
        }
    }

    // ---- cursor ----

    pub fn tok(&self) -> Token {
        self.toks[self.pos]
    }

    pub fn peek(&self) -> Tok {
        self.toks[self.pos].kind
    }

    /// The kind of the token `n` ahead (`Eof` past the end).
    pub fn peek_at(&self, n: usize) -> Tok {
        self.toks.get(self.pos + n).map_or(Tok::Eof, |t| t.kind)
    }

    pub fn bump(&mut self) -> Token {
        let t = self.toks[self.pos];
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    pub fn text(&self, t: Token) -> &'a str {
        // Tokens start and end on ASCII characters, so the slice is valid UTF-8 whenever
        // the input is (the entry point takes `&str`).
        std::str::from_utf8(&self.src[t.start as usize..t.end as usize]).unwrap_or("")
    }

    pub fn is_word(&self, w: &str) -> bool {
        self.peek() == Tok::Word && self.text(self.tok()) == w
    }

    pub fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub fn eat(&mut self, kind: Tok) -> bool {
        if self.peek() == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Consume a token of `kind` or fail with "expected `what`".
    pub fn expect(&mut self, kind: Tok, what: &str) -> PResult<Token> {
        if self.peek() == kind {
            Ok(self.bump())
        } else {
            Err(self.unexpected(what))
        }
    }

    /// Items separated by `,` up to a `close` token (consumed; the list may be empty), each
    /// parsed by `item`; a missing separator is "expected `separator`".
    pub fn list_until<T>(
        &mut self,
        close: Tok,
        separator: &str,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut out = Vec::new();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            if self.eat(close) {
                return Ok(out);
            }
            self.expect(Tok::Comma, separator)?;
        }
    }

    /// The tokens up to the `close` that matches an `open` already consumed (`at`), which is
    /// consumed too: `each` sees every token between but the nested brackets, with its
    /// nesting depth (1: directly inside); the end of input first is error `unbalanced`.
    pub fn balanced(
        &mut self,
        at: Token,
        (open, close): (Tok, Tok),
        unbalanced: &str,
        mut each: impl FnMut(&mut Self, Token, u32) -> PResult<()>,
    ) -> PResult<()> {
        let mut depth = 1u32;
        loop {
            let t = self.bump();
            match t.kind {
                k if k == open => depth += 1,
                k if k == close => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Tok::Eof => return Err(self.error_at(at, unbalanced)),
                _ => each(self, t, depth)?,
            }
        }
    }

    pub fn expect_word(&mut self, w: &str) -> PResult<()> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("`{w}`")))
        }
    }

    // ---- errors ----

    pub fn error_at(&self, t: Token, message: impl Into<String>) -> LlTextError {
        LlTextError::at(self.src, t.start as usize, message)
    }

    pub fn error_here(&self, message: impl Into<String>) -> LlTextError {
        self.error_at(self.tok(), message)
    }

    /// "expected X, found Y" at the current token.
    pub fn unexpected(&self, what: &str) -> LlTextError {
        let t = self.tok();
        let found = match t.kind {
            Tok::Eof => "end of input".to_string(),
            _ => {
                let s = self.text(t);
                let s = if s.chars().count() > 40 {
                    format!("{}...", s.chars().take(40).collect::<String>())
                } else {
                    s.to_string()
                };
                format!("`{s}`")
            }
        };
        self.error_at(t, format!("expected {what}, found {found}"))
    }

    /// A construct LLVM accepts but our IR does not model.
    pub fn unsupported(&self, t: Token, what: &str) -> LlTextError {
        self.error_at(t, format!("{what} is not supported"))
    }

    // ---- nesting ----

    pub fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.error_here(format!("nesting deeper than {MAX_NESTING} levels")));
        }
        Ok(())
    }

    pub fn leave(&mut self) {
        self.depth -= 1;
    }

    // ---- token contents ----

    /// The name of a `%`/`@`/`!` token, a label (without the colon) or a string's
    /// contents, unescaped. Invalid UTF-8 after unescaping is replaced, as LLVM's C API
    /// users read it.
    pub fn name(&self, t: Token) -> Cow<'a, str> {
        let raw = &self.src[t.start as usize..t.end as usize];
        let body = match t.kind {
            Tok::LocalVar | Tok::GlobalVar | Tok::MetadataVar | Tok::ComdatVar => &raw[1..],
            Tok::Label => &raw[..raw.len() - 1],
            _ => raw,
        };
        let quoted = body.len() >= 2 && body[0] == b'"' && body[body.len() - 1] == b'"';
        let body = if quoted { &body[1..body.len() - 1] } else { body };
        if (quoted || t.kind == Tok::MetadataVar) && body.contains(&b'\\') {
            return Cow::Owned(String::from_utf8_lossy(&unescape(body)).into_owned());
        }
        String::from_utf8_lossy(body)
    }

    /// The string bytes of a [`Tok::String`], unescaped.
    pub fn string_bytes(&self, t: Token) -> Vec<u8> {
        let raw = &self.src[t.start as usize + 1..t.end as usize - 1];
        unescape(raw)
    }

    /// Parse a `"..."` token into a (lossy) string.
    pub fn expect_string(&mut self, what: &str) -> PResult<String> {
        let t = self.expect(Tok::String, what)?;
        Ok(String::from_utf8_lossy(&self.string_bytes(t)).into_owned())
    }

    /// The number of `%N`, `@N`, `!N`, `#N`, `N:` tokens.
    pub fn number(&self, t: Token) -> PResult<u32> {
        let s = self.text(t);
        let digits = s.trim_start_matches(['%', '@', '!', '#', '^']).trim_end_matches(':');
        digits.parse::<u32>().map_err(|_| self.error_at(t, format!("number `{digits}` is too large")))
    }

    /// An unsigned decimal integer token that fits in `u64`.
    pub fn expect_u64(&mut self, what: &str) -> PResult<u64> {
        let t = self.expect(Tok::Integer, what)?;
        self.text(t).parse::<u64>().map_err(|_| self.error_at(t, format!("{what} out of range")))
    }

    pub fn expect_u32(&mut self, what: &str) -> PResult<u32> {
        let t = self.tok();
        let v = self.expect_u64(what)?;
        u32::try_from(v).map_err(|_| self.error_at(t, format!("{what} out of range")))
    }

    /// Skip a balanced `( ... )` group starting at the current `(` token.
    pub fn skip_parens(&mut self) -> PResult<()> {
        let open = self.expect(Tok::LParen, "`(`")?;
        let mut depth = 1u32;
        loop {
            match self.bump().kind {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Tok::Eof => return Err(self.error_at(open, "unbalanced `(`")),
                _ => {}
            }
        }
    }
}

/// Parameter and return attributes (LangRef, "Parameter Attributes", LLVM 14).
const PARAM_ATTRIBUTES: &[&str] = &[
    "align",
    "alignstack",
    "byref",
    "byval",
    "dereferenceable",
    "dereferenceable_or_null",
    "elementtype",
    "immarg",
    "inalloca",
    "inreg",
    "nest",
    "noalias",
    "nocapture",
    "nofree",
    "nonnull",
    "noundef",
    "preallocated",
    "readnone",
    "readonly",
    "returned",
    "signext",
    "sret",
    "swiftasync",
    "swifterror",
    "swiftself",
    "writeonly",
    "zeroext",
];

/// Skip parameter or return attributes: known words, with a parenthesized argument
/// (`byval(%T)`, `dereferenceable(8)`) or an integer (`align 4`).
pub fn skip_param_attributes(p: &mut Parser) -> PResult<()> {
    while p.peek() == Tok::Word && PARAM_ATTRIBUTES.contains(&p.text(p.tok())) {
        let t = p.bump();
        let w = p.text(t);
        if p.peek() == Tok::LParen {
            p.skip_parens()?;
        } else if w.starts_with("align") || w.starts_with("dereferenceable") {
            p.expect(Tok::Integer, "an integer")?;
        }
    }
    Ok(())
}

/// Skips one attribute-group reference (`#0`) or string attribute (`"key"` or
/// `"key"="value"`), if the cursor is at one; says whether it did.
pub fn skip_attribute_reference(p: &mut Parser) -> PResult<bool> {
    match p.peek() {
        Tok::AttrGroupId => {
            p.bump();
        }
        Tok::String => {
            p.bump();
            if p.eat(Tok::Equal) {
                p.expect(Tok::String, "an attribute value")?;
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}
