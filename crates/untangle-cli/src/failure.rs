//! The command line's one kind of failure: a message tied to a file, printed as one line
//! (`untangle: FILE: MESSAGE`) with exit status 1.

use std::fmt::Display;
use std::path::{Path, PathBuf};

pub struct Failure {
    pub file: PathBuf,
    /// A library error, or a message of the command line's own (batch results, validation).
    pub error: Box<dyn Display + Send>,
}

impl Failure {
    pub fn new(file: impl AsRef<Path>, error: impl Display + Send + 'static) -> Failure {
        Failure { file: file.as_ref().to_path_buf(), error: Box::new(error) }
    }

    /// A library error about `file`.
    pub fn lib(file: impl AsRef<Path>, error: impl Into<untangle::Error>) -> Failure {
        Failure::new(file, error.into())
    }
}
