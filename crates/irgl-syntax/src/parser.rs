//! Parsing: tokens from [`crate::lexer`] through the LALRPOP grammar in `grammar/irgl.lalrpop`.
//!
//! [`parse`] never fails outright: it returns whatever program it could build together with
//! every diagnostic it found. Lexical errors are reported and the offending characters
//! skipped; syntax errors are recovered at statement and declaration boundaries.

use irgl_diagnostics::{Diagnostic, FileId, Span};
use lalrpop_util::{ErrorRecovery, ParseError};

use crate::ast::*;
use crate::lexer::{self, LexError, Tok};

#[allow(
    clippy::all,
    clippy::pedantic,
    unused_parens,
    dead_code,
    unused_qualifications
)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/irgl.rs"));
}

/// Errors that stop the parser. Every other problem is reported through [`Ctx`] and
/// recovered from.
#[derive(Clone, Debug, PartialEq)]
pub enum UserError {
    /// A node nested deeper than [`crate::MAX_NESTING`] levels (E0010), at its span.
    TooDeep(Span),
}

/// What a grammar action that builds a statement or an expression returns.
pub(crate) type Built<'s, T> = Result<T, ParseError<usize, Tok<'s>, UserError>>;

/// `level`, or the error that stops the parse when it is past [`crate::MAX_NESTING`].
fn within_limit<'s>(level: u32, span: Span) -> Built<'s, u32> {
    if level > crate::MAX_NESTING {
        Err(ParseError::User {
            error: UserError::TooDeep(span),
        })
    } else {
        Ok(level)
    }
}

/// State shared by the grammar's actions.
pub struct Ctx {
    file: FileId,
    diagnostics: Vec<Diagnostic>,
}

impl Ctx {
    pub(crate) fn span(&self, l: usize, r: usize) -> Span {
        Span::new(self.file, l, r)
    }

    /// An expression, with its level in `id` (see [`crate::depth`]).
    pub(crate) fn expr<'s>(&self, l: usize, r: usize, kind: ExprKind) -> Built<'s, Expr> {
        let span = self.span(l, r);
        let level = within_limit(crate::depth::expr_level(&kind), span)?;
        Ok(Expr {
            id: NodeId(level),
            span,
            kind,
        })
    }

    /// A statement, with its level in `id`.
    pub(crate) fn stmt<'s>(&self, l: usize, r: usize, kind: StmtKind) -> Built<'s, Stmt> {
        let span = self.span(l, r);
        let level = within_limit(crate::depth::stmt_level(&kind), span)?;
        Ok(Stmt {
            id: NodeId(level),
            span,
            kind,
        })
    }

    /// A block, with the level of its deepest statement in `id`.
    pub(crate) fn block(&self, l: usize, r: usize, stmts: Vec<Stmt>) -> Block {
        Block {
            id: NodeId(crate::depth::block_level(&stmts)),
            span: self.span(l, r),
            stmts,
        }
    }

    /// `else if ...`: a block holding the one `if` statement.
    pub(crate) fn else_if<'s>(&self, l: usize, r: usize, kind: StmtKind) -> Built<'s, Block> {
        let stmt = self.stmt(l, r, kind)?;
        Ok(self.block(l, r, vec![stmt]))
    }

    pub(crate) fn recover(&mut self, e: ErrorRecovery<usize, Tok<'_>, UserError>) {
        let d = syntax_error(self.file, e.error);
        // One error per position is enough: recovery may fail again at the same token.
        if self.diagnostics.last().and_then(|p| p.span()) != d.span() {
            self.diagnostics.push(d);
        }
    }

    /// Classifies the expression after `In` in a `ForAll`.
    pub(crate) fn iter_from_expr(&mut self, e: Expr) -> Iter {
        match e.kind {
            ExprKind::Field { base, field } if field.name == "nodes" => Iter::Nodes { graph: base },
            ExprKind::Field { base, field } if field.name == "triangles" => {
                Iter::Triangles { mesh: base }
            }
            ExprKind::Method {
                base,
                method,
                mut args,
            } if (method.name == "edges" || method.name == "in_edges") && args.len() == 1 => {
                Iter::Edges {
                    graph: base,
                    node: Box::new(args.remove(0)),
                    dir: if method.name == "edges" {
                        EdgeDir::Out
                    } else {
                        EdgeDir::In
                    },
                }
            }
            kind => {
                let span = e.span;
                self.diagnostics.push(
                    Diagnostic::error("E0006", "this cannot be iterated by a ForAll")
                        .with_label(
                            span,
                            "expected `WL`, `g.nodes`, `g.edges(n)`, `g.in_edges(n)`, `m.triangles` or `lo..hi`",
                        )
                        .with_help(
                            "a ForAll runs over the worklist, the nodes of a graph, \
                             the out- or in-edges of a node, the triangles of a mesh, or an integer range",
                        ),
                );
                let _ = kind;
                let error = Expr {
                    id: NodeId(1),
                    span,
                    kind: ExprKind::Error,
                };
                Iter::Range {
                    lo: Box::new(error.clone()),
                    hi: Box::new(error),
                }
            }
        }
    }

    /// `WL.pop(i)` and `WL.push(x)`; anything else on `WL` is reported.
    pub(crate) fn worklist_op<'s>(
        &mut self,
        l: usize,
        r: usize,
        method: Ident,
        mut args: Vec<Expr>,
    ) -> Built<'s, Expr> {
        let span = self.span(l, r);
        let kind = match (method.name.as_str(), args.len()) {
            ("pop", 1) => ExprKind::Pop(Box::new(args.remove(0))),
            ("push", 1) => ExprKind::Push(Box::new(args.remove(0))),
            (name @ ("pop" | "push"), n) => {
                self.diagnostics.push(
                    Diagnostic::error(
                        "E0007",
                        format!("`WL.{name}` takes exactly one argument, found {n}"),
                    )
                    .with_label(span, "here"),
                );
                ExprKind::Error
            }
            (name, _) => {
                self.diagnostics.push(
                    Diagnostic::error("E0007", format!("worklists have no operation `{name}`"))
                        .with_label(method.span, "unknown worklist operation")
                        .with_help("a kernel's worklist supports `WL.pop(i)` and `WL.push(x)`"),
                );
                ExprKind::Error
            }
        };
        self.expr(l, r, kind)
    }

    /// A type written as a name: `lock`, `mark`, `in_edge`, the mesh's types (contextual
    /// words, not keywords).
    pub(crate) fn named_type(&mut self, name: Ident) -> TypeKind {
        match name.name.as_str() {
            "lock" => TypeKind::Lock,
            "mark" => TypeKind::Mark,
            "in_edge" => TypeKind::InEdge,
            "triangle" => TypeKind::Triangle,
            "vertex" => TypeKind::Vertex,
            "point" => TypeKind::Point,
            "mesh" => TypeKind::Mesh,
            other => {
                self.diagnostics.push(
                    Diagnostic::error("E0009", format!("unknown type `{other}`"))
                        .with_label(name.span, "not a type")
                        .with_help("the types are bool, u32, i32, u64, i64, f32, f64, node, edge, in_edge, graph, lock, mark, triangle, vertex, point and mesh"),
                );
                TypeKind::U32
            }
        }
    }

    /// `WORD m { props }`: only `mesh` is a declaration word spelled as a name.
    pub(crate) fn mesh_decl(&mut self, word: Ident, name: Ident, props: Vec<PropDecl>) -> ItemKind {
        if word.name != "mesh" {
            self.diagnostics.push(
                Diagnostic::error("E0001", format!("unexpected `{}`", word.name))
                    .with_label(word.span, "expected a declaration")
                    .with_help("the input is declared as `graph g { ... }` or `mesh m { ... }`"),
            );
        }
        ItemKind::Graph(GraphDecl {
            mesh: true,
            name,
            attrs: Vec::new(),
            props,
        })
    }

    /// `array NAME: T[len];`, the word checked.
    pub(crate) fn array_decl(&mut self, word: Ident, name: Ident, ty: Type, len: Expr) -> ItemKind {
        if word.name != "array" {
            self.diagnostics.push(
                Diagnostic::error("E0001", format!("unexpected `{}`", word.name))
                    .with_label(word.span, "expected a declaration")
                    .with_help("an array is declared as `array NAME: TYPE[LENGTH];`"),
            );
        }
        ItemKind::Array(ArrayDecl { name, ty, len })
    }

    /// `statistic global NAME: T [= e];`: the word before `global` must be `statistic`.
    pub(crate) fn statistic_decl(
        &mut self,
        word: Ident,
        name: Ident,
        ty: Type,
        init: Option<Expr>,
    ) -> ItemKind {
        if word.name != "statistic" {
            self.diagnostics.push(
                Diagnostic::error("E0001", format!("unexpected `{}`", word.name))
                    .with_label(word.span, "expected a declaration")
                    .with_help(
                        "a global is declared as `global NAME: TYPE;`, a statistic as \
                         `statistic global NAME: TYPE;`",
                    ),
            );
        }
        ItemKind::Global(GlobalDecl {
            statistic: true,
            name,
            ty,
            init,
        })
    }

    /// The owner of a mesh property: `triangle` or `vertex`.
    pub(crate) fn mesh_owner(&mut self, word: Ident) -> PropOwner {
        match word.name.as_str() {
            "triangle" => PropOwner::Triangle,
            "vertex" => PropOwner::Vertex,
            other => {
                self.diagnostics.push(
                    Diagnostic::error("E0001", format!("unexpected `{other}`"))
                        .with_label(word.span, "expected `node`, `edge`, `triangle` or `vertex`")
                        .with_help(
                            "a property is declared as `node NAME: TYPE;` or `edge NAME: TYPE;` \
                             in a graph, `triangle NAME: TYPE;` or `vertex NAME: TYPE;` in a mesh",
                        ),
                );
                PropOwner::Triangle
            }
        }
    }

    /// The word before `node`/`edge` in a property declaration: only `input` is allowed.
    pub(crate) fn input_marker(&mut self, word: Option<Ident>) -> bool {
        match word {
            None => false,
            Some(w) if w.name == "input" => true,
            Some(w) => {
                self.diagnostics.push(
                    Diagnostic::error("E0001", format!("unexpected `{}`", w.name))
                        .with_label(w.span, "expected `input`, `node` or `edge`")
                        .with_help("a property is declared as `node NAME: TYPE;`, `edge NAME: TYPE;` or `input edge NAME: TYPE;`"),
                );
                false
            }
        }
    }

    /// `Initial g.nodes`.
    pub(crate) fn initial_nodes(&mut self, span: Span, graph: Ident, field: Ident) -> Initial {
        if field.name != "nodes" {
            self.diagnostics.push(
                Diagnostic::error("E0008", "this cannot seed a worklist")
                    .with_label(field.span, "expected `nodes`")
                    .with_help("write `Initial [a, b, ...]` or `Initial g.nodes`"),
            );
        }
        Initial::AllNodes { span, graph }
    }
}

/// Parses one source file. The program is numbered ([`Program::renumber`]) and usable when
/// no error diagnostic is returned.
pub fn parse(file: FileId, src: &str) -> (Program, Vec<Diagnostic>) {
    let mut ctx = Ctx {
        file,
        diagnostics: Vec::new(),
    };
    let mut lex_errors = Vec::new();
    // Offsets of the tokens right after skipped characters: a syntax error there is a
    // consequence of the lexical error, already reported.
    let mut after_skip = Vec::new();
    let mut skipped = false;
    let tokens: Vec<_> = lexer::tokens(src)
        .filter_map(|(l, tok, r)| match tok {
            Ok(tok) => {
                if std::mem::take(&mut skipped) {
                    after_skip.push(l as u32);
                }
                Some(Ok((l, tok, r)))
            }
            Err(e) => {
                lex_errors.push(lex_error(Span::new(file, l, r), e, &src[l..r]));
                skipped = true;
                None
            }
        })
        .collect();
    if let Some(too_deep) = brackets_too_deep(file, &tokens) {
        lex_errors.push(too_deep);
        return (Program::default(), lex_errors);
    }
    let result = generated::ProgramParser::new().parse(&mut ctx, tokens);
    ctx.diagnostics.retain(|d| {
        !(d.code == "E0001" && d.span().is_some_and(|s| after_skip.contains(&s.start)))
    });
    let items = match result {
        Ok(items) => items,
        Err(e) => {
            ctx.diagnostics.push(syntax_error(file, e));
            Vec::new()
        }
    };
    let mut diagnostics = lex_errors;
    diagnostics.append(&mut ctx.diagnostics);
    diagnostics.sort_by_key(|d| d.span().map(|s| (s.start, s.end)));
    let mut program = Program { items, next_id: 0 };
    program.renumber();
    (program, diagnostics)
}

/// Parses a single expression (for tests and tools).
pub fn parse_expr(file: FileId, src: &str) -> Result<Expr, Vec<Diagnostic>> {
    let mut ctx = Ctx {
        file,
        diagnostics: Vec::new(),
    };
    let mut errors = Vec::new();
    let tokens: Vec<_> = lexer::tokens(src)
        .filter_map(|(l, tok, r)| match tok {
            Ok(tok) => Some(Ok((l, tok, r))),
            Err(e) => {
                errors.push(lex_error(Span::new(file, l, r), e, &src[l..r]));
                None
            }
        })
        .collect();
    if let Some(too_deep) = brackets_too_deep(file, &tokens) {
        errors.push(too_deep);
        return Err(errors);
    }
    let result = generated::ExprParser::new().parse(&mut ctx, tokens);
    errors.append(&mut ctx.diagnostics);
    match result {
        Ok(e) if errors.is_empty() => Ok(e),
        Ok(_) => Err(errors),
        Err(e) => {
            errors.push(syntax_error(file, e));
            Err(errors)
        }
    }
}

/// E0010 if the tokens open brackets deeper than [`crate::MAX_BRACKETS`].
fn brackets_too_deep<E>(
    file: FileId,
    tokens: &[Result<(usize, Tok<'_>, usize), E>],
) -> Option<Diagnostic> {
    crate::depth::unclosed_brackets(
        file,
        tokens
            .iter()
            .filter_map(|t| t.as_ref().ok())
            .map(|(l, t, r)| (*l, t, *r)),
    )
}

fn lex_error(span: Span, e: LexError, text: &str) -> Diagnostic {
    match e {
        LexError::Unexpected => {
            let c = text.chars().next().unwrap_or(' ');
            Diagnostic::error(
                "E0003",
                format!("unexpected character `{}`", c.escape_debug()),
            )
            .with_label(span, "not part of any IrGL token")
        }
        LexError::IntTooLarge => Diagnostic::error("E0004", "integer literal too large")
            .with_label(span, "does not fit in 64 bits"),
        LexError::BadFloat => Diagnostic::error("E0004", "number literal out of range")
            .with_label(span, "not a finite number"),
        LexError::UnterminatedComment => Diagnostic::error("E0005", "unterminated block comment")
            .with_label(
                Span {
                    end: span.start + 2,
                    ..span
                },
                "this `/*` is never closed",
            )
            .with_help("close it with `*/`"),
    }
}

fn syntax_error(file: FileId, e: ParseError<usize, Tok<'_>, UserError>) -> Diagnostic {
    match e {
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => Diagnostic::error("E0001", format!("unexpected {tok}")).with_label(
            Span::new(file, l, r),
            format!("expected {}", describe(&expected)),
        ),
        ParseError::UnrecognizedEof { location, expected } => {
            Diagnostic::error("E0002", "unexpected end of file").with_label(
                Span::new(file, location, location),
                format!("expected {}", describe(&expected)),
            )
        }
        ParseError::ExtraToken { token: (l, tok, r) } => {
            Diagnostic::error("E0001", format!("unexpected {tok}"))
                .with_label(Span::new(file, l, r), "expected end of file")
        }
        ParseError::InvalidToken { location } => Diagnostic::error("E0003", "invalid token")
            .with_label(Span::new(file, location, location), "here"),
        ParseError::User {
            error: UserError::TooDeep(span),
        } => crate::depth::too_deep(span),
    }
}

/// Turns LALRPOP's list of expected terminals into prose.
fn describe(expected: &[String]) -> String {
    let names: Vec<String> = expected
        .iter()
        .map(|t| match t.as_str() {
            "Ident" => "a name".to_string(),
            "Int" => "an integer".to_string(),
            "Float" => "a number".to_string(),
            quoted => format!("`{}`", quoted.trim_matches('"')),
        })
        .collect();
    match names.len() {
        0 => "nothing more".to_string(),
        1 => names[0].clone(),
        n if n <= 6 => format!("{} or {}", names[..n - 1].join(", "), names[n - 1]),
        _ if expected.iter().any(|t| t == "\";\"") && expected.iter().any(|t| t == "\"+\"") => {
            "`;` or an operator".to_string()
        }
        _ if expected.iter().any(|t| t == "\"ForAll\"") => "a statement".to_string(),
        _ if expected.iter().any(|t| t == "\"Kernel\"") => "a declaration".to_string(),
        _ if expected.iter().any(|t| t == "Int") => "an expression".to_string(),
        n => format!("one of {n} tokens"),
    }
}
