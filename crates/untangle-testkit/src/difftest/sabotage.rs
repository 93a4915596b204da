//! Deliberately broken lowerings (issue 20): the differential runs must notice them. A
//! [`Sabotage`] patches the translated SPIR-V before it reaches the device, as a translator
//! bug would: the interpreter still runs the DXIL as written, so every output that depends
//! on the patched instruction differs.
//!
//! Every matching instruction of a module is patched, as a wrong lowering of an operation
//! breaks each of its uses; the patched module stays valid SPIR-V (same types, operand
//! counts and signedness rules). Test tooling: the translator knows nothing of it.

/// A broken lowering.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sabotage {
    /// The operands of every `OpISub` and `OpFSub` swapped (a non-commutative operation
    /// lowered with its operands in the wrong order).
    SwapSub,
    /// Every signed integer operation made unsigned: `OpSDiv` → `OpUDiv`, `OpSRem` and
    /// `OpSMod` → `OpUMod`, signed comparisons → unsigned, `OpConvertSToF` →
    /// `OpConvertUToF`, `OpSConvert` → `OpUConvert`, `OpShiftRightArithmetic` →
    /// `OpShiftRightLogical`, `OpBitFieldSExtract` → `OpBitFieldUExtract`, and
    /// `GLSL.std.450`'s `SMin`, `SMax`, `SClamp`, `FindSMsb` → their unsigned twins.
    Unsigned,
    /// The first two lanes of every vector or array built by `OpCompositeConstruct`
    /// swapped (a long vector's lanes rebuilt in the wrong order). Not in [`Sabotage::ALL`]:
    /// scalar programs build few composites; the long-vector runs use it.
    SwapLanes,
}

impl Sabotage {
    pub const ALL: [Sabotage; 2] = [Sabotage::SwapSub, Sabotage::Unsigned];

    /// `swap-sub` or `unsigned`.
    pub fn name(self) -> &'static str {
        match self {
            Sabotage::SwapSub => "swap-sub",
            Sabotage::Unsigned => "unsigned",
            Sabotage::SwapLanes => "swap-lanes",
        }
    }

    pub fn parse(s: &str) -> Option<Sabotage> {
        Sabotage::ALL.into_iter().chain([Sabotage::SwapLanes]).find(|x| x.name() == s)
    }

    /// Patches `words` (a SPIR-V module); false when no instruction matched.
    pub fn apply(self, words: &mut [u32]) -> bool {
        let mut glsl = None;
        let mut patched = false;
        // Result ids of `OpTypeVector` and `OpTypeArray`.
        let mut lane_types = std::collections::HashSet::new();
        let mut i = 5;
        while i < words.len() {
            let count = (words[i] >> 16) as usize;
            let opcode = words[i] & 0xffff;
            if count == 0 || i + count > words.len() {
                break;
            }
            match (self, opcode) {
                // OpExtInstImport: result, name.
                (_, 11) if count >= 3 && words[i + 2] == u32::from_le_bytes(*b"GLSL") => glsl = Some(words[i + 1]),
                // OpTypeVector = 23, OpTypeArray = 28: result first.
                (Sabotage::SwapLanes, 23 | 28) if count >= 2 => {
                    lane_types.insert(words[i + 1]);
                }
                // OpCompositeConstruct = 80: result type, result, constituents.
                (Sabotage::SwapLanes, 80) if count >= 5 && lane_types.contains(&words[i + 1]) => {
                    words.swap(i + 3, i + 4);
                    patched = true;
                }
                // OpISub = 130, OpFSub = 131: result type, result, operand 1, operand 2.
                (Sabotage::SwapSub, 130 | 131) if count == 5 => {
                    words.swap(i + 3, i + 4);
                    patched = true;
                }
                // OpExtInst = 12: result type, result, set, instruction, operands.
                (Sabotage::Unsigned, 12) if count >= 5 && Some(words[i + 3]) == glsl => {
                    if let Some(to) = unsigned_glsl_twin(words[i + 4]) {
                        words[i + 4] = to;
                        patched = true;
                    }
                }
                (Sabotage::Unsigned, _) => {
                    if let Some(to) = unsigned_twin(opcode) {
                        words[i] = (words[i] & 0xffff_0000) | to;
                        patched = true;
                    }
                }
                _ => {}
            }
            i += count;
        }
        patched
    }
}

/// The unsigned opcode of a signed integer operation (SPIR-V opcode numbers).
fn unsigned_twin(opcode: u32) -> Option<u32> {
    Some(match opcode {
        111 => 112,       // OpConvertSToF → OpConvertUToF
        114 => 113,       // OpSConvert → OpUConvert
        135 => 134,       // OpSDiv → OpUDiv
        138 | 139 => 137, // OpSRem, OpSMod → OpUMod
        173 => 172,       // OpSGreaterThan → OpUGreaterThan
        175 => 174,       // OpSGreaterThanEqual → OpUGreaterThanEqual
        177 => 176,       // OpSLessThan → OpULessThan
        179 => 178,       // OpSLessThanEqual → OpULessThanEqual
        195 => 194,       // OpShiftRightArithmetic → OpShiftRightLogical
        202 => 203,       // OpBitFieldSExtract → OpBitFieldUExtract
        _ => return None,
    })
}

/// The unsigned `GLSL.std.450` instruction of a signed one.
fn unsigned_glsl_twin(inst: u32) -> Option<u32> {
    Some(match inst {
        39 => 38, // SMin → UMin
        42 => 41, // SMax → UMax
        45 => 44, // SClamp → UClamp
        74 => 75, // FindSMsb → FindUMsb
        _ => return None,
    })
}
