//! Feeds arbitrary text to the whole front end: lexer, parser, checker and formatter.
//! Nothing may panic or hang, and whatever parses cleanly must format to text that parses
//! back to the same tree.
#![no_main]

use irgl_diagnostics::{Diagnostic, FileId};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let (program, diags) = irgl_syntax::parse(FileId(0), &src);
    let _ = irgl_check::check(&program);
    if diags.iter().any(Diagnostic::is_error) {
        return;
    }
    let formatted = irgl_syntax::print::format_source(FileId(0), &src).expect("parsed once, parses again");
    let (mut again, diags) = irgl_syntax::parse(FileId(0), &formatted);
    assert!(diags.is_empty(), "formatted text does not parse:\n{formatted}");
    let mut original = program;
    original.erase_locations();
    again.erase_locations();
    assert_eq!(original, again, "formatting changed the program:\n{formatted}");
});
