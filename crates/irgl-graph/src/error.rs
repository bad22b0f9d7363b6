//! The error type of every fallible operation in this crate.
//!
//! Each variant says where the problem is (file and line for text, file and byte offset for
//! binary) and what was expected, so that the CLI can print it as `error: <file>:<line>: <what>`.

use std::io;

/// An error reading, writing, generating or checking a graph.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// The operating system refused to open, read or write a file.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    /// A problem at a line of a text file (1-based line number).
    #[error("{path}:{line}: {message}")]
    Line {
        path: String,
        line: u64,
        message: String,
    },
    /// A problem at a line and column of a text file (both 1-based; the column counts bytes).
    #[error("{path}:{line}:{column}: {message}")]
    At {
        path: String,
        line: u64,
        column: u64,
        message: String,
    },
    /// A problem at a byte offset of a binary file.
    #[error("{path}: byte {offset}: {message}")]
    Byte {
        path: String,
        offset: u64,
        message: String,
    },
    /// A problem with a file as a whole (unknown format, counts that do not add up at the end).
    #[error("{path}: {message}")]
    File { path: String, message: String },
    /// A request that cannot be carried out (bad generator parameters, a graph too large for the
    /// `.gr` v1 layout, a program that needs weights on a graph without them).
    #[error("{0}")]
    Invalid(String),
    /// A broken invariant of this crate (a bug, not a problem with the input).
    #[error("internal error: {0}")]
    Internal(String),
}

impl GraphError {
    pub(crate) fn io(path: &str, source: io::Error) -> Self {
        GraphError::Io {
            path: path.to_string(),
            source,
        }
    }

    pub(crate) fn line(path: &str, line: u64, message: impl Into<String>) -> Self {
        GraphError::Line {
            path: path.to_string(),
            line,
            message: message.into(),
        }
    }

    pub(crate) fn at(path: &str, line: u64, column: u64, message: impl Into<String>) -> Self {
        GraphError::At {
            path: path.to_string(),
            line,
            column,
            message: message.into(),
        }
    }

    pub(crate) fn byte(path: &str, offset: u64, message: impl Into<String>) -> Self {
        GraphError::Byte {
            path: path.to_string(),
            offset,
            message: message.into(),
        }
    }

    pub(crate) fn file(path: &str, message: impl Into<String>) -> Self {
        GraphError::File {
            path: path.to_string(),
            message: message.into(),
        }
    }
}

/// Result with [`GraphError`].
pub type Result<T> = std::result::Result<T, GraphError>;
