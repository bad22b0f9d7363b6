//! A text writer with an indentation level, for statement bodies (after naga's MSL writer).

pub(crate) struct Writer {
    out: String,
    level: usize,
}

impl Writer {
    pub fn new(level: usize) -> Writer {
        Writer {
            out: String::new(),
            level,
        }
    }

    /// Writes one line at the current indentation.
    pub fn line(&mut self, text: impl AsRef<str>) {
        for _ in 0..self.level {
            self.out.push_str("  ");
        }
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    /// Writes `text` (usually ending in `{`) and indents what follows.
    pub fn open(&mut self, text: impl AsRef<str>) {
        self.line(text);
        self.level += 1;
    }

    /// Dedents and writes `text` (usually `}`).
    pub fn close(&mut self, text: impl AsRef<str>) {
        self.level = self.level.saturating_sub(1);
        self.line(text);
    }

    /// Indents what follows without writing (after a `close("} else {")`).
    pub fn level_up(&mut self) {
        self.level += 1;
    }

    /// Where the next line will start in the text (for [`Writer::replace_line`]).
    pub fn mark(&self) -> usize {
        self.out.len()
    }

    pub fn level(&self) -> usize {
        self.level
    }

    /// Replaces the text of the line that starts at `at` (keeping its indentation).
    pub fn replace_line(&mut self, at: usize, text: &str) {
        let end = at + self.out[at..].find('\n').expect("a whole line");
        let indent = self.out[at..end].len() - self.out[at..end].trim_start().len();
        self.out.replace_range(at + indent..end, text);
    }

    /// Inserts `text` as a line at indentation `level` at `at`, the start of a line (a
    /// [`Writer::mark`]); what follows moves down.
    pub fn insert_line(&mut self, at: usize, level: usize, text: &str) {
        let line = format!("{}{text}\n", "  ".repeat(level));
        self.out.insert_str(at, &line);
    }

    pub fn finish(self) -> String {
        self.out
    }
}
