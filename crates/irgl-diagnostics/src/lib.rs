//! Spans, source files and diagnostics for irglc.
//!
//! Every phase of the compiler reports problems as [`Diagnostic`] values: a stable
//! code (`E0101`), a message, labelled spans, notes and an optional help line. Nothing
//! here prints or exits; the CLI renders diagnostics with ariadne, and tests render
//! them with [`render_plain`], which is deterministic and colour-free.

use std::fmt;

/// Identifies one source file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one source file.
///
/// Nodes made by the compiler rather than parsed from source carry [`Span::NONE`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// The span of compiler-made nodes.
    pub const NONE: Span = Span {
        file: FileId(u32::MAX),
        start: 0,
        end: 0,
    };

    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    pub fn is_none(self) -> bool {
        self.file == FileId(u32::MAX)
    }

    /// The smallest span covering both `self` and `other` (same file assumed).
    pub fn to(self, other: Span) -> Span {
        if self.is_none() {
            return other;
        }
        if other.is_none() {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            write!(f, "<no span>")
        } else {
            write!(f, "{}..{}", self.start, self.end)
        }
    }
}

/// One loaded source file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.line_starts[line];
        let col = self.text[start..offset].chars().count();
        (line + 1, col + 1)
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |&e| e - 1);
        self.text[start..end].trim_end_matches('\r')
    }
}

/// All source files of one compilation.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(SourceFile::new(name, text));
        FileId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

/// A labelled span inside a diagnostic. The first label of a diagnostic is its primary one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// A problem found in a program, as data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code such as `E0201`; documented in `docs/diagnostics.md`.
    pub code: &'static str,
    pub message: String,
    pub labels: Vec<Label>,
    pub notes: Vec<String>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }

    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// The primary span, if any.
    pub fn span(&self) -> Option<Span> {
        self.labels.first().map(|l| l.span)
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Renders a diagnostic as plain text: `error[E0201]: message`, then `--> file:line:col`
/// and the source lines of every label with carets under the labelled range.
pub fn render_plain(diag: &Diagnostic, sources: &SourceMap) -> String {
    use fmt::Write;
    let mut out = String::new();
    let sev = match diag.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let _ = writeln!(out, "{sev}[{}]: {}", diag.code, diag.message);
    for label in &diag.labels {
        let Some(file) = sources.get(label.span.file) else {
            let _ = writeln!(out, "  = {}", label.message);
            continue;
        };
        let (line, col) = file.line_col(label.span.start as usize);
        let (end_line, end_col) = file.line_col(label.span.end as usize);
        let _ = writeln!(out, "  --> {}:{line}:{col}", file.name);
        let text = file.line_text(line);
        let gutter = line.to_string().len();
        let _ = writeln!(out, "{:gutter$} |", "");
        let _ = writeln!(out, "{line} | {text}");
        let width = if end_line == line {
            end_col.saturating_sub(col).max(1)
        } else {
            text.chars().count().saturating_sub(col - 1).max(1)
        };
        let _ = writeln!(
            out,
            "{:gutter$} | {}{} {}",
            "",
            " ".repeat(col - 1),
            "^".repeat(width),
            label.message
        );
    }
    for note in &diag.notes {
        let _ = writeln!(out, "  = note: {note}");
    }
    if let Some(help) = &diag.help {
        let _ = writeln!(out, "  = help: {help}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let f = SourceFile::new("a", "ab\ncd\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(4), (2, 2));
        assert_eq!(f.line_text(2), "cd");
    }

    #[test]
    fn plain_rendering_points_at_the_span() {
        let mut map = SourceMap::new();
        let id = map.add("t.irgl", "let x = 1;\nlet y = z;\n");
        let d = Diagnostic::error("E0001", "unknown name `z`")
            .with_label(Span::new(id, 19, 20), "not found")
            .with_help("declare it first");
        let r = render_plain(&d, &map);
        assert!(r.contains("--> t.irgl:2:9"), "{r}");
        assert!(r.contains("        ^ not found"), "{r}");
        assert!(r.contains("help: declare it first"), "{r}");
    }
}
