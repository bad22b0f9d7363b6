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

    pub fn finish(self) -> String {
        self.out
    }
}
