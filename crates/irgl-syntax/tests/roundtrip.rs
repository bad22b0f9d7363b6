//! Printing a program and parsing it again gives the same tree (up to spans and ids).
//!
//! A proptest strategy builds random programs over the whole AST; the corpus test does the
//! same for every program in `programs/` and checks that formatting is idempotent.

use irgl_diagnostics::{FileId, Span};
use irgl_syntax::ast::*;
use irgl_syntax::print::{format_source, print_program};
use proptest::prelude::*;

const NAMES: &[&str] = &["a", "b", "n", "e", "g", "x1", "level", "dist", "_t", "k"];

fn ident() -> impl Strategy<Value = Ident> {
    proptest::sample::select(NAMES).prop_map(|n| Ident::new(n, Span::NONE))
}

fn ty() -> impl Strategy<Value = Type> {
    proptest::sample::select(vec![
        TypeKind::Bool,
        TypeKind::U32,
        TypeKind::I32,
        TypeKind::U64,
        TypeKind::I64,
        TypeKind::F32,
        TypeKind::F64,
        TypeKind::Node,
        TypeKind::Edge,
        TypeKind::Graph,
        TypeKind::Lock,
        TypeKind::Mark,
    ])
    .prop_map(|kind| Type {
        span: Span::NONE,
        kind,
    })
}

fn mk(kind: ExprKind) -> Expr {
    Expr {
        id: NodeId::UNSET,
        span: Span::NONE,
        kind,
    }
}

fn binary_op() -> impl Strategy<Value = BinaryOp> {
    use BinaryOp::*;
    proptest::sample::select(vec![
        Mul, Div, Rem, Add, Sub, Shl, Shr, Lt, Le, Gt, Ge, Eq, Ne, BitAnd, BitXor, BitOr, And, Or,
    ])
}

fn call(args: impl Strategy<Value = Vec<Expr>>) -> impl Strategy<Value = Call> {
    (ident(), args).prop_map(|(kernel, args)| Call {
        id: NodeId::UNSET,
        span: Span::NONE,
        kernel,
        args,
    })
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        any::<u64>().prop_map(|v| mk(ExprKind::Int(v))),
        prop_oneof![Just(0.0), Just(0.85), Just(1e-6), Just(1e300), 0.0f64..1e12]
            .prop_map(|v| mk(ExprKind::Float(v))),
        any::<bool>().prop_map(|b| mk(ExprKind::Bool(b))),
        ident().prop_map(|n| mk(ExprKind::Name(n))),
        (ident(), ident()).prop_map(|(base, field)| mk(ExprKind::Field { base, field })),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        let args = proptest::collection::vec(inner.clone(), 0..3);
        prop_oneof![
            (
                proptest::sample::select(vec![UnaryOp::Neg, UnaryOp::Not, UnaryOp::BitNot]),
                inner.clone()
            )
                .prop_map(|(op, e)| mk(ExprKind::Unary {
                    op,
                    operand: Box::new(e)
                })),
            (binary_op(), inner.clone(), inner.clone()).prop_map(|(op, l, r)| mk(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(l),
                    rhs: Box::new(r)
                }
            )),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, t, e)| mk(
                ExprKind::Ternary {
                    cond: Box::new(c),
                    then_expr: Box::new(t),
                    else_expr: Box::new(e)
                }
            )),
            (inner.clone(), ty()).prop_map(|(e, ty)| mk(ExprKind::Cast {
                expr: Box::new(e),
                ty
            })),
            (ident(), args.clone()).prop_map(|(func, args)| mk(ExprKind::Call { func, args })),
            (ident(), ident(), inner.clone()).prop_map(|(base, prop, i)| mk(ExprKind::Index {
                base,
                prop,
                index: Box::new(i)
            })),
            (ident(), ident(), args.clone())
                .prop_map(|(base, method, args)| mk(ExprKind::Method { base, method, args })),
            inner.clone().prop_map(|e| mk(ExprKind::Pop(Box::new(e)))),
            inner.clone().prop_map(|e| mk(ExprKind::Push(Box::new(e)))),
            (
                proptest::sample::select(vec![Reduction::Any, Reduction::All]),
                call(args)
            )
                .prop_map(|(reduction, call)| mk(ExprKind::Invoke { reduction, call })),
        ]
    })
}

fn st(kind: StmtKind) -> Stmt {
    Stmt {
        id: NodeId::UNSET,
        span: Span::NONE,
        kind,
    }
}

fn block_of(stmts: Vec<Stmt>) -> Block {
    Block {
        id: NodeId::UNSET,
        span: Span::NONE,
        stmts,
    }
}

fn assign_op() -> impl Strategy<Value = AssignOp> {
    use AssignOp::*;
    proptest::sample::select(vec![
        Set, Add, Sub, Mul, Div, Rem, BitAnd, BitOr, BitXor, Shl, Shr,
    ])
}

/// `let`, assignment or expression statement: what a `for` header allows.
fn simple_stmt() -> impl Strategy<Value = Stmt> {
    prop_oneof![
        (ident(), proptest::option::of(ty()), expr())
            .prop_map(|(name, ty, init)| st(StmtKind::Let { name, ty, init })),
        (expr(), assign_op(), expr()).prop_map(|(target, op, value)| st(StmtKind::Assign {
            target,
            op,
            value
        })),
        expr().prop_map(|e| st(StmtKind::Expr(e))),
    ]
}

fn reduce() -> impl Strategy<Value = Vec<ReduceClause>> {
    proptest::collection::vec(
        (
            proptest::sample::select(vec!["sum", "min", "max", "any", "all"]),
            ident(),
        )
            .prop_map(|(op, local)| ReduceClause {
                op: Ident::new(op, Span::NONE),
                local,
            }),
        0..3,
    )
}

fn iter() -> impl Strategy<Value = Iter> {
    prop_oneof![
        Just(Iter::Worklist { span: Span::NONE }),
        ident().prop_map(|graph| Iter::Nodes { graph }),
        (ident(), expr(), proptest::bool::ANY).prop_map(|(graph, n, incoming)| Iter::Edges {
            graph,
            node: Box::new(n),
            dir: if incoming { EdgeDir::In } else { EdgeDir::Out },
        }),
        (expr(), expr()).prop_map(|(lo, hi)| Iter::Range {
            lo: Box::new(lo),
            hi: Box::new(hi)
        }),
    ]
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let leaf = prop_oneof![
        simple_stmt(),
        Just(st(StmtKind::Break)),
        Just(st(StmtKind::Continue)),
        proptest::option::of(expr()).prop_map(|e| st(StmtKind::Return(e))),
        Just(st(StmtKind::SyncRunningThreads)),
        expr().prop_map(|e| st(StmtKind::ReduceAndReturn(e))),
        (
            proptest::sample::select(vec![RetryKind::Retry, RetryKind::Respawn]),
            expr()
        )
            .prop_map(|(kind, item)| st(StmtKind::Retry { kind, item })),
        call(proptest::collection::vec(expr(), 0..3)).prop_map(|c| st(StmtKind::Invoke(c))),
    ];
    leaf.prop_recursive(3, 24, 3, |inner| {
        let block = proptest::collection::vec(inner.clone(), 0..3).prop_map(block_of);
        let cond = proptest::option::of(
            (
                proptest::sample::select(vec![IterateCondKind::While, IterateCondKind::Until]),
                proptest::sample::select(vec![Reduction::Any, Reduction::All]),
                proptest::bool::ANY,
            )
                .prop_map(|(kind, reduction, unordered)| IterateCond {
                    span: Span::NONE,
                    kind,
                    reduction,
                    unordered,
                }),
        );
        let initial = proptest::option::of(prop_oneof![
            proptest::collection::vec(expr(), 0..3).prop_map(|items| Initial::List {
                span: Span::NONE,
                items
            }),
            ident().prop_map(|graph| Initial::AllNodes {
                span: Span::NONE,
                graph
            }),
        ]);
        prop_oneof![
            (expr(), block.clone(), proptest::option::of(block.clone())).prop_map(
                |(cond, then_block, else_block)| st(StmtKind::If {
                    cond,
                    then_block,
                    else_block
                })
            ),
            (expr(), block.clone()).prop_map(|(cond, body)| st(StmtKind::While { cond, body })),
            (
                proptest::option::of(simple_stmt()),
                proptest::option::of(expr()),
                proptest::option::of(simple_stmt()),
                block.clone()
            )
                .prop_map(|(init, cond, step, body)| st(StmtKind::For {
                    init: init.map(Box::new),
                    cond,
                    step: step.map(Box::new),
                    body
                })),
            block.clone().prop_map(|b| st(StmtKind::Block(b))),
            (ident(), iter(), reduce(), block.clone()).prop_map(|(var, iter, reduce, body)| st(
                StmtKind::ForAll {
                    var,
                    iter,
                    reduce,
                    body
                }
            )),
            (expr(), block.clone(), proptest::option::of(block.clone())).prop_map(
                |(lock, body, otherwise)| st(StmtKind::Atomic {
                    lock,
                    body,
                    otherwise
                })
            ),
            (
                expr(),
                proptest::collection::vec(expr(), 1..3),
                block.clone(),
                proptest::option::of(block.clone())
            )
                .prop_map(|(object, elements, body, otherwise)| st(
                    StmtKind::Exclusive {
                        object,
                        elements,
                        upto: None,
                        body,
                        otherwise
                    }
                )),
            (
                cond,
                call(proptest::collection::vec(expr(), 0..2)),
                initial,
                proptest::option::of(block.clone())
            )
                .prop_map(|(cond, call, initial, step)| st(StmtKind::Iterate {
                    cond,
                    call,
                    initial,
                    step
                })),
            (any::<bool>(), block).prop_map(|(once, body)| st(StmtKind::Pipe { once, body })),
        ]
    })
}

fn item() -> impl Strategy<Value = Item> {
    let block = || proptest::collection::vec(stmt(), 0..4).prop_map(block_of);
    let prop = (any::<bool>(), any::<bool>(), ident(), ty()).prop_map(|(edge, input, name, ty)| {
        PropDecl {
            id: NodeId::UNSET,
            span: Span::NONE,
            owner: if edge {
                PropOwner::Edge
            } else {
                PropOwner::Node
            },
            name,
            ty,
            input,
        }
    });
    let kparam = || {
        (ty(), ident()).prop_map(|(ty, name)| KernelParam {
            id: NodeId::UNSET,
            span: Span::NONE,
            ty,
            name,
        })
    };
    let kind = prop_oneof![
        (
            ident(),
            proptest::collection::vec(ident(), 0..3),
            proptest::collection::vec(prop, 0..3)
        )
            .prop_map(|(name, attrs, props)| ItemKind::Graph(GraphDecl {
                mesh: false,
                name,
                attrs,
                props
            })),
        (ident(), ty(), expr()).prop_map(|(name, ty, value)| ItemKind::Const(ConstDecl {
            name,
            ty,
            value
        })),
        (ident(), ty(), expr()).prop_map(|(name, ty, default)| ItemKind::Param(ParamDecl {
            name,
            ty,
            default
        })),
        (any::<bool>(), ident(), ty(), proptest::option::of(expr())).prop_map(
            |(statistic, name, ty, init)| ItemKind::Global(GlobalDecl {
                statistic,
                name,
                ty,
                init
            })
        ),
        proptest::collection::vec(ident(), 1..3)
            .prop_map(|names| ItemKind::Output(OutputDecl { names })),
        (ident(), proptest::collection::vec(kparam(), 0..3), block())
            .prop_map(|(name, params, body)| ItemKind::Kernel(KernelDecl { name, params, body })),
        (
            ident(),
            proptest::collection::vec(kparam(), 0..3),
            proptest::option::of(ty()),
            block()
        )
            .prop_map(
                |(name, params, ret, body)| ItemKind::Function(FunctionDecl {
                    name,
                    params,
                    ret,
                    body
                })
            ),
        (ident(), ty(), expr()).prop_map(|(name, ty, len)| ItemKind::Array(ArrayDecl {
            name,
            ty,
            len
        })),
        block().prop_map(ItemKind::Main),
    ];
    kind.prop_map(|kind| Item {
        id: NodeId::UNSET,
        span: Span::NONE,
        kind,
    })
}

fn program() -> impl Strategy<Value = Program> {
    proptest::collection::vec(item(), 0..4).prop_map(|items| Program { items, next_id: 0 })
}

fn reparse(text: &str) -> Program {
    let (mut parsed, diags) = irgl_syntax::parse(FileId(0), text);
    assert!(
        diags.is_empty(),
        "printed program does not parse:\n{text}\n{diags:#?}"
    );
    parsed.erase_locations();
    parsed
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn print_then_parse_is_identity(p in program()) {
        let text = print_program(&p);
        let mut expected = p.clone();
        expected.erase_locations();
        prop_assert_eq!(reparse(&text), expected);
    }
}

fn programs_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../programs")
}

#[test]
fn every_program_round_trips_and_formats_idempotently() {
    let mut seen = 0;
    for entry in std::fs::read_dir(programs_dir()).expect("programs/ exists") {
        let path = entry.expect("readable entry").path();
        if path.extension().is_none_or(|e| e != "irgl") {
            continue;
        }
        seen += 1;
        let src = std::fs::read_to_string(&path).expect("readable program");
        let (mut original, diags) = irgl_syntax::parse(FileId(0), &src);
        assert!(diags.is_empty(), "{}: {diags:#?}", path.display());
        original.erase_locations();
        assert_eq!(
            reparse(&print_program(&original)),
            original,
            "{}",
            path.display()
        );
        let once = format_source(FileId(0), &src).expect("formats");
        assert_eq!(
            reparse(&once),
            original,
            "{}: formatting changed the tree",
            path.display()
        );
        let twice = format_source(FileId(0), &once).expect("formats");
        assert_eq!(
            once,
            twice,
            "{}: formatting is not idempotent",
            path.display()
        );
    }
    assert!(seen > 0 || std::env::var_os("IRGL_ALLOW_EMPTY_PROGRAMS").is_some());
}
