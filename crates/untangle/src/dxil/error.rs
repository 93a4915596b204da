//! Why the DXIL meaning of a module could not be read. Every variant says where: the
//! metadata path (`dx.entryPoints[0][2]`), the work-graph node, or the function and block
//! of an instruction.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Error {
    /// A metadata node does not have the shape DXIL's metadata schema gives it. `path` is
    /// the node (`dx.resources[1][0][3]`), `problem` what is wrong there (`expected a
    /// string`).
    #[error("DXIL: {path}: {problem}")]
    Metadata { path: String, problem: String },
    /// A work-graph node's properties (entry property tags 13–22) contradict each other or
    /// DXIL's rules for nodes.
    #[error("DXIL: node `{entry}`: {problem}")]
    Node { entry: String, problem: String },
    /// An instruction breaks a DXIL rule (a `dx.op` call without a constant opcode, ...).
    #[error("function `{function}`, block `{block}`: {message}")]
    Instruction { function: String, block: String, message: String },
    /// A `dx.op` call whose opcode this translator's table does not know: valid input from a
    /// newer DXIL than 1.9 (or a newer experimental table), not malformed input. `opcode`
    /// is the argument as a 32-bit number (experimental opcodes have bit 31 set).
    #[error(
        "function `{function}`, block `{block}`: call to `{callee}` has DXIL opcode {opcode} ({opcode:#x}), newer \
         than DXIL 1.9: the operation table ends at opcode 311 and the SM 6.10 experimental table at {last_experimental:#x}"
    )]
    NewerOperation { function: String, block: String, callee: String, opcode: u32, last_experimental: u32 },
}

impl Error {
    /// The message without the `DXIL: ` prefix that [`std::fmt::Display`] adds (for
    /// reports that already say the node is DXIL's).
    pub fn detail(&self) -> String {
        match self {
            Error::Metadata { path, problem } => format!("{path}: {problem}"),
            Error::Node { entry, problem } => format!("node `{entry}`: {problem}"),
            Error::Instruction { .. } | Error::NewerOperation { .. } => self.to_string(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
