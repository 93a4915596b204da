//! The HLSL root-signature string (`[RootSignature("...")]`, `-T rootsig_1_x`): parser
//! [`parse_hlsl`] and printer [`to_hlsl`].
//!
//! Grammar, defaults and leniency follow DXC's parser (`tools/clang/lib/Parse/HLSLRootSignature.cpp`)
//! as summarised in `shared/docs/root-signature.md`:
//! - keywords (element, argument and value names) are ASCII case-insensitive; register
//!   tokens are a lowercase `b`/`t`/`u`/`s` followed by decimal digits;
//! - numbers are decimal (no hex: DXC reads them with `_atoi64`); float arguments take
//!   integers or float literals (`1`, `-0.5`, `.5f`, `1e3`);
//! - each element's arguments come in any order, each at most once; the register (and
//!   `num32BitConstants`) is required; a clause needs at least one argument, so an empty
//!   table is spelled `DescriptorTable(visibility = ...)`, as in DXC;
//! - `RootFlags` at most once; a numeric flag value must be `0`;
//! - the string is parsed for the requested version: `flags` under 1.0 is an error (DXC:
//!   "Root descriptor flags cannot be specified for root_sig_1_0"), static-sampler `flags`
//!   need 1.2; ranges then default to no flags, as DXC's 1.1 parse does;
//! - whitespace is any ASCII whitespace; the text may also be the C string pieces of a
//!   `#define` (`"RootFlags(0), " "CBV(b0)"`), optionally with `\` line continuations: the
//!   quotes are dropped and the pieces' contents joined.
//!
//! Root parameters keep string order; static samplers go to their own array. The result is
//! validated ([`super::validate::validate`]).
//!
//! The printer writes one element per line, with every argument that differs from DXC's
//! default, in a fixed order; it parses back to an equal model for every valid signature.

use super::error::{RootSigError, SyntaxKind, TextPos};
use super::model::*;
use super::names::*;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// A name: element, argument, value or register.
    Word(String),
    /// A number as written (sign, digits, fraction, exponent, `f` suffix).
    Number(String),
    LParen,
    RParen,
    Comma,
    Eq,
    Or,
    End,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    at: TextPos,
    text: String,
}

fn syntax(at: TextPos, kind: SyntaxKind, token: &str, message: impl Into<String>) -> RootSigError {
    RootSigError::Syntax { at, kind, token: token.to_string(), message: message.into() }
}

/// Replaces the quotes (and what lies between pieces: whitespace, `\` continuations) of a
/// C-string-pieces text with spaces, so that positions stay those of the input.
fn unquote(text: &str) -> Result<String, RootSigError> {
    if !text.trim_start().starts_with('"') {
        return Ok(text.to_string());
    }
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    let (mut line, mut column) = (1u32, 1u32);
    let mut open_at = TextPos { line, column };
    for ch in text.chars() {
        let at = TextPos { line, column };
        if ch == '"' {
            inside = !inside;
            open_at = at;
            out.push(' ');
        } else if inside || ch.is_whitespace() {
            out.push(ch);
        } else if ch == '\\' {
            out.push(' ');
        } else {
            return Err(syntax(at, SyntaxKind::BadQuote, &ch.to_string(), "text between string pieces"));
        }
        if ch == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    if inside {
        return Err(syntax(open_at, SyntaxKind::BadQuote, "\"", "unterminated string piece"));
    }
    Ok(out)
}

fn tokenize(text: &str) -> Result<Vec<Token>, RootSigError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let (mut i, mut line, mut column) = (0usize, 1u32, 1u32);
    while i < chars.len() {
        let c = chars[i];
        let at = TextPos { line, column };
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if let Some(tok) = match c {
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            ',' => Some(Tok::Comma),
            '=' => Some(Tok::Eq),
            '|' => Some(Tok::Or),
            _ => None,
        } {
            i += 1;
            tokens.push(Token { tok, at, text: c.to_string() });
        } else if c.is_ascii_digit() || c == '+' || c == '-' || c == '.' {
            if c == '+' || c == '-' {
                i += 1;
                // A signed `inf` (see `equals_f32`).
                let word: String = chars[i..].iter().take(4).collect();
                let tail = word.get(..3).unwrap_or("");
                if tail.eq_ignore_ascii_case("inf")
                    && !word[3..].starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '_')
                {
                    i += 3;
                    let text: String = chars[start..i].iter().collect();
                    tokens.push(Token { tok: Tok::Number(text.clone()), at, text });
                    for _ in start..i {
                        column += 1;
                    }
                    continue;
                }
            }
            let mut digits = 0;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
                digits += 1;
            }
            if i < chars.len() && chars[i] == '.' {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                    digits += 1;
                }
            }
            let mut ok = digits > 0;
            if ok && i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                i += 1;
                if i < chars.len() && (chars[i] == '+' || chars[i] == '-') {
                    i += 1;
                }
                let exp_start = i;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                ok = i > exp_start;
            }
            if ok && i < chars.len() && (chars[i] == 'f' || chars[i] == 'F') {
                i += 1;
            }
            // A number glued to a name (`0x10`, `12abc`) is one bad token.
            let glued = i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '.');
            if glued {
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '.') {
                    i += 1;
                }
            }
            let text: String = chars[start..i.max(start + 1)].iter().collect();
            if !ok || glued {
                return Err(syntax(at, SyntaxKind::BadToken, &text, "malformed number"));
            }
            tokens.push(Token { tok: Tok::Number(text.clone()), at, text });
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            tokens.push(Token { tok: Tok::Word(text.clone()), at, text });
        } else {
            return Err(syntax(at, SyntaxKind::BadToken, &c.to_string(), "unexpected character"));
        }
        for &ch in &chars[start..i.max(start + 1).min(chars.len())] {
            if ch == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        }
        i = i.max(start + 1);
    }
    tokens.push(Token { tok: Tok::End, at: TextPos { line, column }, text: String::new() });
    Ok(tokens)
}

/// Parses a root-signature string for `version` and validates the result.
pub fn parse_hlsl(text: &str, version: Version) -> Result<RootSignature, RootSigError> {
    let text = unquote(text)?;
    let tokens = tokenize(&text)?;
    let mut parser = Parser { tokens, pos: 0, version };
    let rs = parser.root_signature()?;
    super::validate::validate(&rs)?;
    Ok(rs)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    version: Version,
}

/// Which argument of a clause has been seen (DXC's `MarkParameter`).
#[derive(Default)]
struct Seen(Vec<String>);

impl Seen {
    fn mark(&mut self, token: &Token, name: &str) -> Result<(), RootSigError> {
        if self.0.iter().any(|n| n == name) {
            return Err(syntax(token.at, SyntaxKind::Duplicate, &token.text, format!("{name} given more than once")));
        }
        self.0.push(name.to_string());
        Ok(())
    }

    /// Whether `token` is argument `name`, which is then marked (as [`Seen::mark`]).
    fn take(&mut self, token: &Token, name: &str) -> Result<bool, RootSigError> {
        if !Parser::word_is(token, name) {
            return Ok(false);
        }
        self.mark(token, name)?;
        Ok(true)
    }

    /// The register `token` names if it is one of `class` (`b3`, ...), which is then marked
    /// as argument `register`.
    fn take_register(&mut self, token: &Token, class: ResourceClass) -> Result<Option<u32>, RootSigError> {
        let r = Parser::register(token, class)?;
        if r.is_some() {
            self.mark(token, "register")?;
        }
        Ok(r)
    }

    /// Fails with "`what` is required" at `element` unless the argument `name` was seen.
    fn require(&self, element: &Token, name: &str, what: &str) -> Result<(), RootSigError> {
        if self.0.iter().any(|n| n == name) {
            return Ok(());
        }
        Err(syntax(element.at, SyntaxKind::Missing, &element.text, format!("{what} is required")))
    }
}

impl Parser {
    fn peek(&self) -> &Token {
        // `tokens` always ends with `End`, and `pos` never passes it.
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if t.tok != Tok::End {
            self.pos += 1;
        }
        t
    }

    fn unexpected(t: &Token, expected: &str) -> RootSigError {
        if t.tok == Tok::End {
            syntax(t.at, SyntaxKind::UnexpectedEnd, "", format!("text ends where {expected} was expected"))
        } else {
            syntax(t.at, SyntaxKind::Unexpected, &t.text, format!("expected {expected}"))
        }
    }

    fn expect(&mut self, tok: Tok, expected: &str) -> Result<Token, RootSigError> {
        let t = self.next();
        if t.tok == tok {
            Ok(t)
        } else {
            Err(Self::unexpected(&t, expected))
        }
    }

    fn word_is(t: &Token, keyword: &str) -> bool {
        matches!(&t.tok, Tok::Word(w) if w.eq_ignore_ascii_case(keyword))
    }

    fn root_signature(&mut self) -> Result<RootSignature, RootSigError> {
        let mut rs =
            RootSignature { version: self.version, flags: RootFlags(0), parameters: vec![], static_samplers: vec![] };
        let mut seen_flags = false;
        if self.peek().tok == Tok::End {
            return Ok(rs);
        }
        loop {
            let t = self.next();
            let Tok::Word(word) = &t.tok else {
                return Err(Self::unexpected(&t, "a root signature element"));
            };
            let word = word.to_ascii_lowercase();
            self.expect(Tok::LParen, "`(`")?;
            match word.as_str() {
                "rootflags" => {
                    if seen_flags {
                        return Err(syntax(
                            t.at,
                            SyntaxKind::DuplicateRootFlags,
                            &t.text,
                            "RootFlags given more than once",
                        ));
                    }
                    seen_flags = true;
                    rs.flags = RootFlags(self.flag_set(ROOT_FLAG_NAMES, "root signature flag")?);
                    self.expect(Tok::RParen, "`)`")?;
                }
                "rootconstants" => rs.parameters.push(self.root_constants(&t)?),
                "cbv" => rs.parameters.push(self.root_descriptor(&t, ResourceClass::Cbv)?),
                "srv" => rs.parameters.push(self.root_descriptor(&t, ResourceClass::Srv)?),
                "uav" => rs.parameters.push(self.root_descriptor(&t, ResourceClass::Uav)?),
                "descriptortable" => rs.parameters.push(self.table()?),
                "staticsampler" => rs.static_samplers.push(self.static_sampler(&t)?),
                _ => return Err(syntax(t.at, SyntaxKind::Unexpected, &t.text, "unknown root signature element")),
            }
            let t = self.next();
            match t.tok {
                Tok::End => return Ok(rs),
                Tok::Comma => {}
                _ => return Err(Self::unexpected(&t, "`,` between elements")),
            }
        }
    }

    /// Runs `arg` for each comma-separated argument up to and including `)`.
    fn arguments(
        &mut self,
        mut arg: impl FnMut(&mut Self, Token) -> Result<(), RootSigError>,
    ) -> Result<(), RootSigError> {
        loop {
            let t = self.next();
            arg(self, t)?;
            let t = self.next();
            match t.tok {
                Tok::RParen => return Ok(()),
                Tok::Comma => {}
                _ => return Err(Self::unexpected(&t, "`,` or `)`")),
            }
        }
    }

    /// A register token of `class` (`b3`, `t0`, ...).
    fn register(t: &Token, class: ResourceClass) -> Result<Option<u32>, RootSigError> {
        let Tok::Word(w) = &t.tok else {
            return Ok(None);
        };
        let mut chars = w.chars();
        let letter = chars.next();
        let digits = chars.as_str();
        if !matches!(letter, Some('b' | 't' | 'u' | 's'))
            || digits.is_empty()
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return Ok(None);
        }
        if letter != Some(class.register_letter()) {
            return Err(syntax(
                t.at,
                SyntaxKind::WrongRegister,
                &t.text,
                format!("expected a {}# register", class.register_letter()),
            ));
        }
        digits
            .parse::<u32>()
            .map(Some)
            .map_err(|_| syntax(t.at, SyntaxKind::NumberRange, &t.text, "register number above 4294967295"))
    }

    fn equals_u32(&mut self) -> Result<u32, RootSigError> {
        self.expect(Tok::Eq, "`=`")?;
        let t = self.next();
        self.u32_of(&t)
    }

    fn u32_of(&self, t: &Token) -> Result<u32, RootSigError> {
        match &t.tok {
            Tok::Number(n) if n.bytes().all(|b| b.is_ascii_digit() || b == b'+') => n
                .trim_start_matches('+')
                .parse::<u32>()
                .map_err(|_| syntax(t.at, SyntaxKind::NumberRange, &t.text, "not a 32-bit unsigned integer")),
            Tok::Number(_) => Err(syntax(t.at, SyntaxKind::NumberRange, &t.text, "expected an unsigned integer")),
            _ => Err(Self::unexpected(t, "an unsigned integer")),
        }
    }

    fn equals_f32(&mut self) -> Result<f32, RootSigError> {
        self.expect(Tok::Eq, "`=`")?;
        let t = self.next();
        let n = match &t.tok {
            Tok::Number(n) => n.as_str(),
            Tok::Word(w) if w.eq_ignore_ascii_case("inf") => w.as_str(),
            _ => return Err(Self::unexpected(&t, "a number")),
        };
        // `inf`, `-inf`: our extension (DXC has no spelling for them), so that the LODs
        // D3D12 accepts (any non-NaN value) print and read back.
        match n.to_ascii_lowercase().as_str() {
            "inf" | "+inf" => return Ok(f32::INFINITY),
            "-inf" => return Ok(f32::NEG_INFINITY),
            _ => {}
        }
        let body = n.trim_end_matches(['f', 'F']);
        // DXC reads a double and rejects magnitudes above FLT_MAX. The value is then read
        // as f32 directly (one rounding), so that the printer's shortest `{:?}` text reads
        // back bit-exactly.
        match (body.parse::<f64>(), body.parse::<f32>()) {
            (Ok(wide), Ok(v)) if wide.abs() <= f64::from(f32::MAX) => Ok(v),
            _ => Err(syntax(t.at, SyntaxKind::NumberRange, &t.text, "not a finite 32-bit float")),
        }
    }

    fn equals_keyword<T: Copy>(&mut self, table: &[(&str, T)], what: &str) -> Result<T, RootSigError> {
        self.expect(Tok::Eq, "`=`")?;
        let t = self.next();
        table
            .iter()
            .find(|&&(name, _)| Self::word_is(&t, name))
            .map(|&(_, v)| v)
            .ok_or_else(|| syntax(t.at, SyntaxKind::Unexpected, &t.text, format!("expected {what}")))
    }

    /// `0` or `A | B | ...` from `names`.
    fn flag_set(&mut self, names: &[(&str, u32)], what: &str) -> Result<u32, RootSigError> {
        let t = self.next();
        if let Tok::Number(_) = t.tok {
            let n = self.u32_of(&t)?;
            if n != 0 {
                return Err(syntax(
                    t.at,
                    SyntaxKind::NonZeroFlags,
                    &t.text,
                    format!("a numeric {what} value must be 0"),
                ));
            }
            return Ok(0);
        }
        let mut bits = 0;
        let mut t = t;
        loop {
            let Some(&(_, bit)) = names.iter().find(|&&(name, _)| Self::word_is(&t, name)) else {
                return Err(syntax(t.at, SyntaxKind::Unexpected, &t.text, format!("expected a {what}")));
            };
            bits |= bit;
            if self.peek().tok != Tok::Or {
                return Ok(bits);
            }
            self.next();
            t = self.next();
        }
    }

    fn flags_argument(
        &mut self,
        t: &Token,
        names: &[(&str, u32)],
        what: &str,
        min_version: Version,
    ) -> Result<u32, RootSigError> {
        if self.version < min_version {
            return Err(syntax(
                t.at,
                SyntaxKind::FlagsNotInVersion,
                &t.text,
                format!("{what}s need root signature {} (parsing for {})", min_version.name(), self.version.name()),
            ));
        }
        self.expect(Tok::Eq, "`=`")?;
        self.flag_set(names, what)
    }

    /// `= SHADER_VISIBILITY_...`, the value of a `visibility` argument.
    fn equals_visibility(&mut self) -> Result<Visibility, RootSigError> {
        self.equals_keyword(VISIBILITIES, "a SHADER_VISIBILITY_* value")
    }

    /// The arguments of a root parameter: `visibility` (returned) here, the others by
    /// `arg`, which answers whether the argument was one of its own.
    fn parameter_arguments(
        &mut self,
        seen: &mut Seen,
        what: &str,
        mut arg: impl FnMut(&mut Self, &mut Seen, &Token) -> Result<bool, RootSigError>,
    ) -> Result<Visibility, RootSigError> {
        let mut visibility = Visibility::All;
        self.arguments(|p, t| {
            if seen.take(&t, "visibility")? {
                visibility = p.equals_visibility()?;
            } else if !arg(p, seen, &t)? {
                return Err(Self::unexpected(&t, what));
            }
            Ok(())
        })?;
        Ok(visibility)
    }

    fn root_constants(&mut self, element: &Token) -> Result<RootParameter, RootSigError> {
        let mut seen = Seen::default();
        let mut c = RootConstants { register: 0, space: 0, num_values: 0 };
        let visibility = self.parameter_arguments(&mut seen, "a RootConstants argument", |p, seen, t| {
            if let Some(r) = seen.take_register(t, ResourceClass::Cbv)? {
                c.register = r;
            } else if seen.take(t, "num32BitConstants")? {
                c.num_values = p.equals_u32()?;
            } else if seen.take(t, "space")? {
                c.space = p.equals_u32()?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        seen.require(element, "num32BitConstants", "num32BitConstants")?;
        seen.require(element, "register", "the b# register")?;
        Ok(RootParameter { visibility, kind: ParameterKind::Constants(c) })
    }

    fn root_descriptor(&mut self, element: &Token, class: ResourceClass) -> Result<RootParameter, RootSigError> {
        let mut seen = Seen::default();
        let mut d = RootDescriptor { class, register: 0, space: 0, flags: DescriptorFlags(0) };
        let visibility = self.parameter_arguments(&mut seen, "a root descriptor argument", |p, seen, t| {
            if let Some(r) = seen.take_register(t, class)? {
                d.register = r;
            } else if seen.take(t, "space")? {
                d.space = p.equals_u32()?;
            } else if seen.take(t, "flags")? {
                d.flags = DescriptorFlags(p.flags_argument(
                    t,
                    DESCRIPTOR_FLAG_NAMES,
                    "root descriptor flag",
                    Version::V1_1,
                )?);
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        seen.require(element, "register", "the shader register")?;
        Ok(RootParameter { visibility, kind: ParameterKind::Descriptor(d) })
    }

    fn table(&mut self) -> Result<RootParameter, RootSigError> {
        let mut seen = Seen::default();
        let mut ranges = Vec::new();
        let visibility = self.parameter_arguments(&mut seen, "CBV, SRV, UAV, Sampler or visibility", |p, _, t| {
            let class = [ResourceClass::Cbv, ResourceClass::Srv, ResourceClass::Uav, ResourceClass::Sampler]
                .into_iter()
                .find(|&c| Self::word_is(t, c.name()));
            let Some(class) = class else { return Ok(false) };
            p.expect(Tok::LParen, "`(`")?;
            ranges.push(p.range(t, class)?);
            Ok(true)
        })?;
        Ok(RootParameter { visibility, kind: ParameterKind::Table(ranges) })
    }

    fn range(&mut self, element: &Token, class: ResourceClass) -> Result<DescriptorRange, RootSigError> {
        let mut seen = Seen::default();
        let mut r = DescriptorRange::new(class, 0);
        self.arguments(|p, t| {
            if let Some(reg) = seen.take_register(&t, class)? {
                r.base_register = reg;
            } else if seen.take(&t, "numDescriptors")? {
                p.expect(Tok::Eq, "`=`")?;
                let v = p.next();
                // DXC stores the number as is, so 0xFFFFFFFF is `unbounded` too.
                r.count =
                    if Self::word_is(&v, "unbounded") { None } else { Some(p.u32_of(&v)?).filter(|&n| n != u32::MAX) };
            } else if seen.take(&t, "space")? {
                r.space = p.equals_u32()?;
            } else if seen.take(&t, "offset")? {
                p.expect(Tok::Eq, "`=`")?;
                let v = p.next();
                r.offset = if Self::word_is(&v, "DESCRIPTOR_RANGE_OFFSET_APPEND") {
                    RangeOffset::Append
                } else {
                    // As in DXC, 0xFFFFFFFF is the APPEND value itself.
                    match p.u32_of(&v)? {
                        u32::MAX => RangeOffset::Append,
                        o => RangeOffset::At(o),
                    }
                };
            } else if seen.take(&t, "flags")? {
                r.flags = RangeFlags(p.flags_argument(&t, RANGE_FLAG_NAMES, "descriptor range flag", Version::V1_1)?);
            } else {
                return Err(Self::unexpected(&t, "a descriptor range argument"));
            }
            Ok(())
        })?;
        seen.require(element, "register", "the shader register")?;
        Ok(r)
    }

    fn static_sampler(&mut self, element: &Token) -> Result<StaticSampler, RootSigError> {
        let mut seen = Seen::default();
        let mut s = StaticSampler::with_defaults(0);
        self.arguments(|p, t| {
            if let Some(reg) = seen.take_register(&t, ResourceClass::Sampler)? {
                s.register = reg;
                return Ok(());
            }
            let Tok::Word(w) = &t.tok else {
                return Err(Self::unexpected(&t, "a StaticSampler argument"));
            };
            let name = w.to_ascii_lowercase();
            seen.mark(&t, &name)?;
            match name.as_str() {
                "filter" => {
                    p.expect(Tok::Eq, "`=`")?;
                    let v = p.next();
                    let keyword = if let Tok::Word(k) = &v.tok { Filter::from_keyword(k) } else { None };
                    s.filter = keyword
                        .ok_or_else(|| syntax(v.at, SyntaxKind::Unexpected, &v.text, "expected a FILTER_* value"))?;
                }
                "addressu" => s.address_u = p.equals_keyword(ADDRESS_MODES, "a TEXTURE_ADDRESS_* value")?,
                "addressv" => s.address_v = p.equals_keyword(ADDRESS_MODES, "a TEXTURE_ADDRESS_* value")?,
                "addressw" => s.address_w = p.equals_keyword(ADDRESS_MODES, "a TEXTURE_ADDRESS_* value")?,
                "miplodbias" => s.mip_lod_bias = p.equals_f32()?,
                "maxanisotropy" => s.max_anisotropy = p.equals_u32()?,
                "comparisonfunc" => s.comparison = p.equals_keyword(COMPARISON_FUNCS, "a COMPARISON_* value")?,
                "bordercolor" => s.border_color = p.equals_keyword(BORDER_COLORS, "a STATIC_BORDER_COLOR_* value")?,
                "minlod" => s.min_lod = p.equals_f32()?,
                "maxlod" => s.max_lod = p.equals_f32()?,
                "space" => s.space = p.equals_u32()?,
                "visibility" => s.visibility = p.equals_visibility()?,
                "flags" => {
                    s.flags =
                        SamplerFlags(p.flags_argument(&t, SAMPLER_FLAG_NAMES, "static sampler flag", Version::V1_2)?)
                }
                _ => return Err(Self::unexpected(&t, "a StaticSampler argument")),
            }
            Ok(())
        })?;
        seen.require(element, "register", "the s# register")?;
        Ok(s)
    }
}

/// Prints `rs` as a root-signature string: one element per line (`,` at line ends), each
/// argument that differs from DXC's default, in a fixed order. Deterministic; parses back
/// (for `rs.version`) to an equal model when `rs` is valid.
pub fn to_hlsl(rs: &RootSignature) -> String {
    let mut elements = Vec::new();
    if rs.flags.0 != 0 {
        elements.push(format!("RootFlags({})", flags_text(rs.flags.0, ROOT_FLAG_NAMES)));
    }
    for p in &rs.parameters {
        let mut args = Vec::new();
        let element = match &p.kind {
            ParameterKind::Constants(c) => {
                args.push(format!("num32BitConstants = {}", c.num_values));
                args.push(format!("b{}", c.register));
                push_space(&mut args, c.space);
                "RootConstants".to_string()
            }
            ParameterKind::Descriptor(d) => {
                args.push(format!("{}{}", d.class.register_letter(), d.register));
                push_space(&mut args, d.space);
                if d.flags.0 != 0 {
                    args.push(format!("flags = {}", flags_text(d.flags.0, DESCRIPTOR_FLAG_NAMES)));
                }
                d.class.name().to_string()
            }
            ParameterKind::Table(ranges) => {
                for r in ranges {
                    args.push(range_text(r));
                }
                "DescriptorTable".to_string()
            }
        };
        // An empty table needs one argument to be written at all (DXC rejects `()`).
        let empty_table = matches!(&p.kind, ParameterKind::Table(r) if r.is_empty());
        if p.visibility != Visibility::All || empty_table {
            args.push(format!("visibility = {}", p.visibility.keyword()));
        }
        let separator = if matches!(p.kind, ParameterKind::Table(_)) && args.len() > 1 { ",\n    " } else { ", " };
        let open = if separator == ", " { "(" } else { "(\n    " };
        let close = if separator == ", " { ")" } else { "\n)" };
        elements.push(format!("{element}{open}{}{close}", args.join(separator)));
    }
    let defaults = StaticSampler::with_defaults(0);
    for s in &rs.static_samplers {
        let mut args = vec![format!("s{}", s.register)];
        if s.filter != defaults.filter {
            args.push(format!("filter = {}", s.filter.keyword().unwrap_or_else(|| format!("{:#x}", s.filter.0))));
        }
        for (name, mode, default) in [
            ("addressU", s.address_u, defaults.address_u),
            ("addressV", s.address_v, defaults.address_v),
            ("addressW", s.address_w, defaults.address_w),
        ] {
            if mode != default {
                args.push(format!("{name} = {}", mode.keyword()));
            }
        }
        // Compared by bits so that -0.0 is written out.
        if s.mip_lod_bias.to_bits() != defaults.mip_lod_bias.to_bits() {
            args.push(format!("mipLODBias = {}", float_text(s.mip_lod_bias)));
        }
        if s.max_anisotropy != defaults.max_anisotropy {
            args.push(format!("maxAnisotropy = {}", s.max_anisotropy));
        }
        if s.comparison != defaults.comparison {
            args.push(format!("comparisonFunc = {}", s.comparison.keyword()));
        }
        if s.border_color != defaults.border_color {
            args.push(format!("borderColor = {}", s.border_color.keyword()));
        }
        if s.min_lod.to_bits() != defaults.min_lod.to_bits() {
            args.push(format!("minLOD = {}", float_text(s.min_lod)));
        }
        if s.max_lod.to_bits() != defaults.max_lod.to_bits() {
            args.push(format!("maxLOD = {}", float_text(s.max_lod)));
        }
        push_space(&mut args, s.space);
        if s.visibility != Visibility::All {
            args.push(format!("visibility = {}", s.visibility.keyword()));
        }
        if s.flags.0 != 0 {
            args.push(format!("flags = {}", flags_text(s.flags.0, SAMPLER_FLAG_NAMES)));
        }
        elements.push(format!("StaticSampler({})", args.join(", ")));
    }
    elements.join(",\n")
}

/// The shortest text reading back to `value` (`{:?}`), except `±FLT_MAX`: its shortest
/// text, `3.4028235e38`, is above `FLT_MAX` as a double, which DXC's parser rejects; d3d12.h's
/// spelling `3.402823466e+38` reads back to it under both parsers.
fn float_text(value: f32) -> String {
    if value.is_infinite() {
        format!("{}inf", if value < 0.0 { "-" } else { "" })
    } else if value.abs() == f32::MAX {
        format!("{}3.402823466e+38", if value < 0.0 { "-" } else { "" })
    } else {
        format!("{value:?}")
    }
}

fn push_space(args: &mut Vec<String>, space: u32) {
    if space != 0 {
        args.push(format!("space = {space}"));
    }
}

fn range_text(r: &DescriptorRange) -> String {
    let mut args = vec![format!("{}{}", r.class.register_letter(), r.base_register)];
    match r.count {
        Some(1) => {}
        Some(n) => args.push(format!("numDescriptors = {n}")),
        None => args.push("numDescriptors = unbounded".to_string()),
    }
    push_space(&mut args, r.space);
    if let RangeOffset::At(o) = r.offset {
        args.push(format!("offset = {o}"));
    }
    if r.flags.0 != 0 {
        args.push(format!("flags = {}", flags_text(r.flags.0, RANGE_FLAG_NAMES)));
    }
    format!("{}({})", r.class.name(), args.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_case_insensitive_registers_are_not() {
        let a = parse_hlsl(
            "rootflags(allow_input_assembler_input_layout), cbv(b0, VISIBILITY = shader_visibility_pixel)",
            Version::V1_1,
        )
        .unwrap();
        let b = parse_hlsl(
            "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), CBV(b0, visibility = SHADER_VISIBILITY_PIXEL)",
            Version::V1_1,
        )
        .unwrap();
        assert_eq!(a, b);
        assert!(parse_hlsl("CBV(B0)", Version::V1_1).is_err());
    }

    #[test]
    fn quoted_pieces_are_joined() {
        let quoted = "\"RootFlags(0), \" \\\n \"CBV(b0)\"";
        assert_eq!(
            parse_hlsl(quoted, Version::V1_1).unwrap(),
            parse_hlsl("RootFlags(0), CBV(b0)", Version::V1_1).unwrap()
        );
    }

    #[test]
    fn positions_are_line_and_column() {
        let err = parse_hlsl("CBV(b0),\n  Bogus(b1)", Version::V1_1).unwrap_err();
        assert!(matches!(err, RootSigError::Syntax { at: TextPos { line: 2, column: 3 }, .. }), "{err:?}");
    }

    #[test]
    fn empty_string_is_an_empty_signature() {
        let rs = parse_hlsl("  ", Version::V1_0).unwrap();
        assert!(rs.parameters.is_empty() && rs.static_samplers.is_empty());
        assert_eq!(to_hlsl(&rs), "");
    }
}
