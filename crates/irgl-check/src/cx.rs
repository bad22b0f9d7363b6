//! State shared by the checker's passes: the program, the tables being filled, the
//! diagnostics, and the program-level names.

use std::collections::HashMap;

use irgl_diagnostics::Diagnostic;
use irgl_syntax::ast::{Block, Ident, ItemKind, KernelDecl, Program, Span, Stmt, StmtKind};

use crate::info::{ConstId, FuncId, GlobalId, KernelId, ParamId, ProgramInfo, PropId, Resolution};
use crate::ty::Ty;
use crate::value::EvalError;

/// What a program-level name stands for. Properties are program-level names too, so that an
/// `output` entry is never ambiguous.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Symbol {
    Graph,
    Prop(PropId),
    Const(ConstId),
    Param(ParamId),
    Global(GlobalId),
    Kernel(KernelId),
    Function(FuncId),
    /// A program-level `array`, kept with the graph's properties.
    Array(PropId),
}

impl Symbol {
    /// "a const", "a kernel", ... for messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Symbol::Graph => "the graph",
            Symbol::Prop(_) => "a property",
            Symbol::Const(_) => "a const",
            Symbol::Param(_) => "a param",
            Symbol::Global(_) => "a global",
            Symbol::Kernel(_) => "a kernel",
            Symbol::Function(_) => "a function",
            Symbol::Array(_) => "an array",
        }
    }
}

pub(crate) struct Cx<'p> {
    pub program: &'p Program,
    pub info: ProgramInfo,
    pub diags: Vec<Diagnostic>,
    /// Program-level names, with the span of their (first) declaration.
    pub names: HashMap<String, (Symbol, Span)>,
    /// Item index of the first `main`.
    pub main_item: Option<usize>,
    /// The parser recovered from errors (the program has `Error` items or statements): names
    /// may be declared or used in the parts that were lost, so "unknown name" errors and
    /// "unused" warnings are not reported.
    pub recovered: bool,
    /// Kernels named by some launch, even a misplaced one, and whether some launch named an
    /// unknown kernel: both keep W0002 ("never invoked") quiet.
    pub launched: std::collections::HashSet<KernelId>,
    pub unknown_launch: bool,
    /// Functions named by some call, even a misplaced one: they are not "never called".
    pub called: std::collections::HashSet<FuncId>,
    /// E0116 (in-edges without `in_edges`) was reported: once per program.
    pub in_edges_reported: bool,
}

impl<'p> Cx<'p> {
    pub fn new(program: &'p Program) -> Cx<'p> {
        Cx {
            program,
            info: ProgramInfo::default(),
            diags: Vec::new(),
            names: HashMap::new(),
            main_item: None,
            recovered: has_error_nodes(program),
            launched: Default::default(),
            unknown_launch: false,
            called: Default::default(),
            in_edges_reported: false,
        }
    }

    pub fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    pub fn symbol(&self, name: &str) -> Option<Symbol> {
        self.names.get(name).map(|(s, _)| *s)
    }

    pub fn symbol_span(&self, name: &str) -> Option<Span> {
        self.names.get(name).map(|(_, s)| *s)
    }

    /// Declares a program-level name; reports a duplicate and returns `false` if taken.
    pub fn declare(&mut self, name: &Ident, sym: Symbol) -> bool {
        if let Some((old, span)) = self.names.get(&name.name) {
            let d = Diagnostic::error(
                "E0102",
                format!("the name `{}` is declared more than once", name.name),
            )
            .with_label(name.span, "declared again here")
            .with_label(*span, format!("first declared here, as {}", old.describe()))
            .with_help(
                "every declaration (properties included) needs its own name; rename one of them",
            );
            self.report(d);
            return false;
        }
        self.names.insert(name.name.clone(), (sym, name.span));
        true
    }

    /// The AST of a kernel.
    pub fn kernel_decl(&self, id: KernelId) -> Option<&'p KernelDecl> {
        let item = self.info.kernels.get(id.index())?.item;
        match &self.program.items.get(item)?.kind {
            ItemKind::Kernel(k) => Some(k),
            _ => None,
        }
    }

    pub fn graph_name(&self) -> Option<&str> {
        self.info.graph.as_ref().map(|g| g.name.as_str())
    }

    pub fn resolve(&mut self, id: irgl_syntax::ast::NodeId, r: Resolution) {
        self.info.resolutions.insert(id, r);
    }

    /// Turns a constant-folding failure into a diagnostic.
    pub fn report_eval_error(&mut self, err: EvalError) {
        let d = match err {
            EvalError::Quiet => return,
            EvalError::NotConstant(span) => Diagnostic::error("E0401", "this is not a constant")
                .with_label(span, "not known at compile time")
                .with_help("constant expressions use literals, consts and built-in functions only"),
            EvalError::OutOfRange {
                span,
                value,
                ty,
                literal: true,
            } => {
                let d = Diagnostic::error(
                    "E0203",
                    format!("the literal `{value}` does not fit in `{ty}`"),
                )
                .with_label(span, format!("`{ty}` holds {}", range_text(ty)));
                if value.starts_with('-') && !ty.is_signed() {
                    d.with_help(format!(
                        "`{ty}` is unsigned; for its largest value write the literal in hex \
                         (`0xffffffff` for 32 bits), or use a signed type"
                    ))
                } else {
                    d.with_help("use a wider type")
                }
            }
            EvalError::OutOfRange {
                span, value, ty, ..
            } => Diagnostic::error("E0402", format!("constant arithmetic overflows `{ty}`"))
                .with_label(
                    span,
                    format!("this evaluates to {value}, which does not fit in `{ty}`"),
                )
                .with_help(format!("`{ty}` holds {}; use a wider type", range_text(ty))),
            EvalError::DivisionByZero(span) => {
                Diagnostic::error("E0402", "division by zero in a constant expression")
                    .with_label(span, "this divisor is zero")
            }
            EvalError::BadShift { span, amount, ty } => Diagnostic::error(
                "E0402",
                format!("shift amount {amount} is out of range for `{ty}`"),
            )
            .with_label(
                span,
                format!("a `{ty}` can be shifted by 0 to {}", ty.bits() - 1),
            ),
        };
        self.report(d);
    }
}

fn has_error_nodes(program: &Program) -> bool {
    fn block(b: &Block) -> bool {
        b.stmts.iter().any(stmt)
    }
    fn stmt(s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Error => true,
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => block(then_block) || else_block.as_ref().is_some_and(block),
            StmtKind::For {
                init, step, body, ..
            } => {
                init.as_deref().is_some_and(stmt)
                    || step.as_deref().is_some_and(stmt)
                    || block(body)
            }
            StmtKind::Atomic {
                body, otherwise, ..
            }
            | StmtKind::Exclusive {
                body, otherwise, ..
            } => block(body) || otherwise.as_ref().is_some_and(block),
            StmtKind::Iterate { step, .. } => step.as_ref().is_some_and(block),
            StmtKind::While { body, .. }
            | StmtKind::ForAll { body, .. }
            | StmtKind::Pipe { body, .. }
            | StmtKind::Block(body) => block(body),
            _ => false,
        }
    }
    program.items.iter().any(|i| match &i.kind {
        ItemKind::Error => true,
        ItemKind::Kernel(k) => block(&k.body),
        ItemKind::Function(f) => block(&f.body),
        ItemKind::Main(b) => block(b),
        _ => false,
    })
}

fn range_text(ty: Ty) -> String {
    match ty {
        Ty::U32 | Ty::Node | Ty::Edge | Ty::InEdge | Ty::Triangle | Ty::Vertex => {
            "0 to 4294967295".to_string()
        }
        Ty::I32 => "-2147483648 to 2147483647".to_string(),
        Ty::U64 => "0 to 18446744073709551615".to_string(),
        Ty::I64 => "-9223372036854775808 to 9223372036854775807".to_string(),
        Ty::F32 => "finite values up to about 3.4e38".to_string(),
        _ => "values of its own kind".to_string(),
    }
}

/// The candidate closest to `name`: edit distance at most 2 and at most half its length.
pub(crate) fn similar<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name {
            continue;
        }
        let d = edit_distance(name, c);
        if d <= 2 && d * 2 <= name.chars().count() && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_close_names() {
        assert_eq!(similar("levle", ["level", "dist"]), Some("level"));
        assert_eq!(similar("x", ["y", "level"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
