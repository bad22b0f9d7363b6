//! IrGL syntax: tokens, the abstract syntax tree, the parser and the canonical printer.
//!
//! The language is documented in `docs/language.md`. This crate knows nothing of types,
//! analyses or CUDA: it turns text into an [`ast::Program`] with spans and node ids, and
//! back into text with [`print::print_program`].

pub mod ast;
pub mod depth;
pub mod dump;
pub mod lexer;
pub mod parser;
pub mod print;
pub mod visit;

pub use depth::{MAX_BRACKETS, MAX_NESTING};
pub use parser::{parse, parse_expr};
