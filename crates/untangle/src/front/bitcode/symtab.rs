//! Value symbol tables (`VALUE_SYMTAB_BLOCK`, block 14) and character-array strings.
//!
//! Record layouts from LLVM's `LLVMBitCodes.h`: `VST_ENTRY` (1) `[value id, name chars]`,
//! `VST_BBENTRY` (2) `[block id, name chars]`, `VST_FNENTRY` (3) `[value id, offset, name
//! chars]` (the offset is for lazy loading and not needed here). At module level the ids
//! are global value ids; inside a function they are that function's value ids.

use super::bitstream::Res;
use super::cursor::{Cursor, Entry};
use super::error::malformed;

pub enum Name {
    Value(u64, String),
    Block(u64, String),
}

/// Bytes stored one per operand, as names and metadata strings are, into a `String`
/// (invalid UTF-8 is replaced, as the LLVM front end does). One allocation of the exact size.
pub fn string_of(ops: &[u64]) -> Res<String> {
    // Checked first, then narrowed in one loop the compiler vectorizes.
    if let Some(&c) = ops.iter().find(|&&c| c > 0xff) {
        return Err(malformed(format!("character {c} in a string")));
    }
    let bytes: Vec<u8> = ops.iter().map(|&c| c as u8).collect();
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Read a value symbol table block (after [`Entry::SubBlock`]`(14)`).
pub fn read(cur: &mut Cursor) -> Res<Vec<Name>> {
    cur.enter(14)?;
    let mut names = Vec::new();
    loop {
        match cur.advance()? {
            Entry::End => return Ok(names),
            Entry::SubBlock(_) => cur.skip()?,
            Entry::Record(code @ 1..=3) => {
                let ops = &cur.ops;
                let id = *ops.first().ok_or_else(|| malformed("empty symbol table entry"))?;
                let skip = if code == 3 { 2 } else { 1 };
                let name = string_of(ops.get(skip..).unwrap_or(&[]))?;
                names.push(if code == 2 { Name::Block(id, name) } else { Name::Value(id, name) });
            }
            Entry::Record(_) => {}
        }
    }
}
