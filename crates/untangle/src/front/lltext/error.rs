//! The native text reader's error: a position (`line L, column C`) and what was wrong there.
//!
//! Positions are 1-based; the column counts characters (not bytes) from the start of the
//! line, so it matches what an editor shows. Positions are computed only when an error is
//! built ([`Position::of`] scans the text once), so the happy path pays nothing for them.

use std::fmt;

/// Where in the text something is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

impl Position {
    /// Line and column of byte `offset` in `text` (clamped to the text's end).
    pub fn of(text: &[u8], offset: usize) -> Position {
        let offset = offset.min(text.len());
        let before = &text[..offset];
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        // Count characters, not bytes: UTF-8 continuation bytes do not start a character.
        let column = before[line_start..].iter().filter(|&&b| b & 0xC0 != 0x80).count() as u32 + 1;
        Position { line, column }
    }
}

/// A rejected LLVM text input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlTextError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl LlTextError {
    pub fn at(text: &[u8], offset: usize, message: impl Into<String>) -> LlTextError {
        let Position { line, column } = Position::of(text, offset);
        LlTextError { line, column, message: message.into() }
    }
}

impl fmt::Display for LlTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for LlTextError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let text = "ab\nçd e\n".as_bytes();
        assert_eq!(Position::of(text, 0), Position { line: 1, column: 1 });
        assert_eq!(Position::of(text, 3), Position { line: 2, column: 1 });
        // `ç` is two bytes but one column.
        assert_eq!(Position::of(text, 6), Position { line: 2, column: 3 });
        assert_eq!(Position::of(text, 1000), Position { line: 3, column: 1 });
    }
}
