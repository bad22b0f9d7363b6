//! Rendering diagnostics for people: ariadne reports on stderr.

use std::io::IsTerminal;

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind};
use irgl_diagnostics::{Diagnostic, FileId, Severity, SourceMap};

/// Renders `diags` with their source excerpts to a string (colour only when `color`).
pub fn render(diags: &[Diagnostic], sources: &SourceMap, color: bool) -> String {
    let mut out = Vec::new();
    let cache = SourceCache::new(sources);
    for d in diags {
        let kind = match d.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let primary = d
            .span()
            .filter(|s| sources.get(s.file).is_some())
            .map(|s| (s.file, s.range()));
        let Some(anchor) = primary else {
            // Without a place in the source: the message, then its notes and help.
            let mut text = format!("{kind}[{}]: {}\n", d.code, d.message);
            for note in &d.notes {
                text.push_str(&format!("  = note: {note}\n"));
            }
            if let Some(help) = &d.help {
                text.push_str(&format!("  = help: {help}\n"));
            }
            out.extend_from_slice(text.as_bytes());
            continue;
        };
        let config = Config::default()
            .with_color(color)
            .with_index_type(IndexType::Byte);
        let mut report = Report::build(kind, anchor)
            .with_config(config)
            .with_code(d.code)
            .with_message(&d.message);
        for (i, label) in d.labels.iter().enumerate() {
            if sources.get(label.span.file).is_none() {
                continue;
            }
            let mut l =
                Label::new((label.span.file, label.span.range())).with_message(&label.message);
            if color {
                l = l.with_color(if i == 0 { Color::Red } else { Color::Blue });
            }
            report = report.with_label(l.with_order(i as i32));
        }
        for note in &d.notes {
            report = report.with_note(note);
        }
        if let Some(help) = &d.help {
            report = report.with_help(help);
        }
        let _ = report.finish().write(&cache, &mut out);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Prints diagnostics to stderr, in colour on a terminal.
pub fn eprint(diags: &[Diagnostic], sources: &SourceMap) {
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    crate::stderr_text(&render(diags, sources, color));
}

/// ariadne's view of our source map.
struct SourceCache {
    sources: Vec<(FileId, String, ariadne::Source<String>)>,
}

impl SourceCache {
    fn new(map: &SourceMap) -> SourceCache {
        SourceCache {
            sources: map
                .files()
                .map(|(id, f)| (id, f.name.clone(), ariadne::Source::from(f.text.clone())))
                .collect(),
        }
    }
}

impl ariadne::Cache<FileId> for &SourceCache {
    type Storage = String;

    fn fetch(&mut self, id: &FileId) -> Result<&ariadne::Source<String>, impl std::fmt::Debug> {
        self.sources
            .iter()
            .find(|(i, _, _)| i == id)
            .map(|(_, _, s)| s)
            .ok_or("unknown file")
    }

    fn display<'a>(&self, id: &'a FileId) -> Option<impl std::fmt::Display + 'a> {
        self.sources
            .iter()
            .find(|(i, _, _)| i == id)
            .map(|(_, name, _)| name.clone())
    }
}
