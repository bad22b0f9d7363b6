//! Constant values and constant folding.
//!
//! [`eval`] folds an already type-checked expression: literals, consts, unary and binary
//! operators, `?:`, casts and the built-ins `min max abs sqrt fabs`. Integer arithmetic is
//! exact and every intermediate result must fit its type (`0 - 1` in `u32` is an overflow),
//! integer division by zero and shifts by the width or more are errors. Casts between integer
//! types wrap, like C (`-1 as u32` is `0xffffffff`); bits shifted out by `<<` are dropped.
//! Float arithmetic follows IEEE (with `f32` results rounded to `f32`), so `1.0 / 0.0` is
//! infinity.

use std::collections::HashMap;
use std::fmt;

use irgl_syntax::ast::{BinaryOp, Expr, ExprKind, NodeId, Span, UnaryOp};

use crate::info::{Builtin, ConstId, Resolution};
use crate::ty::Ty;

/// A folded constant. `node` and `edge` values are `U32`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    U32(u32),
    I32(i32),
    U64(u64),
    I64(i64),
    F32(f32),
    F64(f64),
}

impl Value {
    /// The zero of a scalar type (`false` for `bool`).
    pub fn zero(ty: Ty) -> Option<Value> {
        from_v(
            match ty {
                Ty::Bool => V::Bool(false),
                t if t.is_float() => V::Float(0.0),
                t if t.is_integer() => V::Int(0),
                _ => return None,
            },
            ty,
        )
    }

    /// The value as an `i128`, for integers.
    pub fn as_i128(self) -> Option<i128> {
        match self {
            Value::U32(v) => Some(v.into()),
            Value::I32(v) => Some(v.into()),
            Value::U64(v) => Some(v.into()),
            Value::I64(v) => Some(v.into()),
            _ => None,
        }
    }

    /// The value as an `f64`, for floats.
    pub fn as_f64(self) -> Option<f64> {
        match self {
            Value::F32(v) => Some(v.into()),
            Value::F64(v) => Some(v),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::U32(v) => write!(f, "{v}"),
            Value::I32(v) => write!(f, "{v}"),
            Value::U64(v) => write!(f, "{v}"),
            Value::I64(v) => write!(f, "{v}"),
            Value::F32(v) => write!(f, "{v:?}"),
            Value::F64(v) => write!(f, "{v:?}"),
        }
    }
}

/// Why an expression could not be folded.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum EvalError {
    /// Already reported, or not typed: stay quiet.
    Quiet,
    /// A part that is not a constant (a param, a global, the graph, ...).
    NotConstant(Span),
    /// A result that does not fit its type. `literal` when the expression is a literal
    /// (possibly negated) rather than a computation.
    OutOfRange {
        span: Span,
        value: String,
        ty: Ty,
        literal: bool,
    },
    DivisionByZero(Span),
    BadShift {
        span: Span,
        amount: i128,
        ty: Ty,
    },
}

/// Working representation: exact integers, floats as `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum V {
    Bool(bool),
    Int(i128),
    Float(f64),
}

fn to_v(v: Value) -> V {
    match v {
        Value::Bool(b) => V::Bool(b),
        Value::F32(x) => V::Float(x.into()),
        Value::F64(x) => V::Float(x),
        other => V::Int(other.as_i128().unwrap_or(0)),
    }
}

fn range(ty: Ty) -> Option<(i128, i128)> {
    Some(match ty {
        Ty::U32 | Ty::Node | Ty::Edge | Ty::InEdge | Ty::Triangle | Ty::Vertex => {
            (0, u32::MAX.into())
        }
        Ty::I32 => (i32::MIN.into(), i32::MAX.into()),
        Ty::U64 => (0, u64::MAX.into()),
        Ty::I64 => (i64::MIN.into(), i64::MAX.into()),
        _ => return None,
    })
}

fn from_v(v: V, ty: Ty) -> Option<Value> {
    Some(match (v, ty) {
        (V::Bool(b), Ty::Bool) => Value::Bool(b),
        (V::Int(i), Ty::U32 | Ty::Node | Ty::Edge | Ty::InEdge | Ty::Triangle | Ty::Vertex) => {
            Value::U32(u32::try_from(i).ok()?)
        }
        (V::Int(i), Ty::I32) => Value::I32(i32::try_from(i).ok()?),
        (V::Int(i), Ty::U64) => Value::U64(u64::try_from(i).ok()?),
        (V::Int(i), Ty::I64) => Value::I64(i64::try_from(i).ok()?),
        (V::Float(x), Ty::F32) => Value::F32(x as f32),
        (V::Float(x), Ty::F64) => Value::F64(x),
        _ => return None,
    })
}

/// Wraps an integer into a type's range (two's complement), as a C cast does.
fn wrap(i: i128, ty: Ty) -> i128 {
    let bits = ty.bits();
    let mask: u128 = (1u128 << bits) - 1;
    let b = (i as u128) & mask;
    if ty.is_signed() && b >> (bits - 1) == 1 {
        b as i128 - (1i128 << bits)
    } else {
        b as i128
    }
}

/// Folds `e`, which has been type-checked (its types are in `types`, its names in `res`).
/// `consts` holds the values of the consts folded so far.
pub(crate) fn eval(
    e: &Expr,
    types: &HashMap<NodeId, Ty>,
    res: &HashMap<NodeId, Resolution>,
    consts: &[Option<Value>],
) -> Result<Value, EvalError> {
    let ev = Evaluator { types, res, consts };
    let ty = ev.ty(e)?;
    let v = ev.eval(e)?;
    from_v(v, ty).ok_or(EvalError::Quiet)
}

struct Evaluator<'a> {
    types: &'a HashMap<NodeId, Ty>,
    res: &'a HashMap<NodeId, Resolution>,
    consts: &'a [Option<Value>],
}

fn is_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) => true,
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => matches!(operand.kind, ExprKind::Int(_) | ExprKind::Float(_)),
        _ => false,
    }
}

impl Evaluator<'_> {
    fn ty(&self, e: &Expr) -> Result<Ty, EvalError> {
        match self.types.get(&e.id) {
            Some(Ty::Error) | None => Err(EvalError::Quiet),
            Some(t) => Ok(*t),
        }
    }

    /// Checks that an integer result fits the type of `e`.
    fn int(&self, e: &Expr, i: i128) -> Result<V, EvalError> {
        let ty = self.ty(e)?;
        if ty.is_float() {
            return Ok(V::Float(round(i as f64, ty)));
        }
        match range(ty) {
            Some((lo, hi)) if i < lo || i > hi => Err(EvalError::OutOfRange {
                span: e.span,
                value: i.to_string(),
                ty,
                literal: is_literal(e),
            }),
            Some(_) => Ok(V::Int(i)),
            None => Err(EvalError::Quiet),
        }
    }

    fn float(&self, e: &Expr, x: f64) -> Result<V, EvalError> {
        let ty = self.ty(e)?;
        Ok(V::Float(round(x, ty)))
    }

    fn eval(&self, e: &Expr) -> Result<V, EvalError> {
        match &e.kind {
            ExprKind::Int(v) => self.int(e, i128::from(*v)),
            ExprKind::Float(x) => {
                let ty = self.ty(e)?;
                let r = round(*x, ty);
                if x.is_finite() && !r.is_finite() {
                    return Err(EvalError::OutOfRange {
                        span: e.span,
                        value: format!("{x:?}"),
                        ty,
                        literal: true,
                    });
                }
                Ok(V::Float(r))
            }
            ExprKind::Bool(b) => Ok(V::Bool(*b)),
            ExprKind::Name(_) => match self.res.get(&e.id) {
                Some(Resolution::Const(ConstId(i))) => {
                    match self.consts.get(*i as usize).copied().flatten() {
                        Some(v) => Ok(to_v(v)),
                        None => Err(EvalError::Quiet),
                    }
                }
                Some(_) => Err(EvalError::NotConstant(e.span)),
                None => Err(EvalError::Quiet),
            },
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } if matches!(operand.kind, ExprKind::Int(_)) => {
                // `-2147483648` is one literal: only the negated value must fit.
                let ExprKind::Int(v) = operand.kind else {
                    return Err(EvalError::Quiet);
                };
                self.int(e, -i128::from(v))
            }
            ExprKind::Unary { op, operand } => {
                let x = self.eval(operand)?;
                match (op, x) {
                    (UnaryOp::Neg, V::Int(i)) => self.int(e, -i),
                    (UnaryOp::Neg, V::Float(f)) => self.float(e, -f),
                    (UnaryOp::Not, V::Bool(b)) => Ok(V::Bool(!b)),
                    (UnaryOp::BitNot, V::Int(i)) => {
                        let ty = self.ty(e)?;
                        self.int(e, wrap(!i, ty))
                    }
                    _ => Err(EvalError::Quiet),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(e, *op, lhs, rhs),
            ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } => match self.eval(cond)? {
                V::Bool(true) => self.eval(then_expr),
                V::Bool(false) => self.eval(else_expr),
                _ => Err(EvalError::Quiet),
            },
            ExprKind::Cast { expr, .. } => {
                let to = self.ty(e)?;
                match self.eval(expr)? {
                    V::Int(i) if to.is_integer() => Ok(V::Int(wrap(i, to))),
                    V::Int(i) if to.is_float() => Ok(V::Float(round(i as f64, to))),
                    V::Float(x) if to.is_float() => Ok(V::Float(round(x, to))),
                    V::Float(x) if to.is_integer() => {
                        let t = x.trunc();
                        match range(to) {
                            Some((lo, hi)) if t.is_finite() && t >= lo as f64 && t <= hi as f64 => {
                                Ok(V::Int(t as i128))
                            }
                            _ => Err(EvalError::OutOfRange {
                                span: e.span,
                                value: format!("{x:?}"),
                                ty: to,
                                literal: false,
                            }),
                        }
                    }
                    _ => Err(EvalError::Quiet),
                }
            }
            ExprKind::Call { args, .. } => {
                let Some(Resolution::Builtin(b)) = self.res.get(&e.id) else {
                    return Err(EvalError::NotConstant(e.span));
                };
                let vals = args
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<Vec<_>, _>>()?;
                match (b, vals.as_slice()) {
                    (Builtin::Min, [V::Int(a), V::Int(b)]) => self.int(e, *a.min(b)),
                    (Builtin::Max, [V::Int(a), V::Int(b)]) => self.int(e, *a.max(b)),
                    (Builtin::Min, [V::Float(a), V::Float(b)]) => self.float(e, a.min(*b)),
                    (Builtin::Max, [V::Float(a), V::Float(b)]) => self.float(e, a.max(*b)),
                    (Builtin::Abs, [V::Int(a)]) => self.int(e, a.abs()),
                    (Builtin::Abs | Builtin::Fabs, [V::Float(a)]) => self.float(e, a.abs()),
                    (Builtin::Sqrt, [V::Float(a)]) => self.float(e, a.sqrt()),
                    (Builtin::Popc | Builtin::Ffs | Builtin::Clz, [V::Int(a)]) => {
                        let bits = if self.ty(&args[0])? == Ty::U64 {
                            64
                        } else {
                            32
                        };
                        // Unsigned: the value's bits as they are.
                        let x = *a as u64;
                        let r = match b {
                            Builtin::Popc => x.count_ones(),
                            Builtin::Ffs if x == 0 => 0,
                            Builtin::Ffs => x.trailing_zeros() + 1,
                            _ => x.leading_zeros() - (64 - bits),
                        };
                        self.int(e, i128::from(r))
                    }
                    _ => Err(EvalError::Quiet),
                }
            }
            _ => Err(EvalError::NotConstant(e.span)),
        }
    }

    fn binary(&self, e: &Expr, op: BinaryOp, lhs: &Expr, rhs: &Expr) -> Result<V, EvalError> {
        let a = self.eval(lhs)?;
        // `&&` and `||` short-circuit, as at run time.
        match (op, a) {
            (BinaryOp::And, V::Bool(false)) => return Ok(V::Bool(false)),
            (BinaryOp::Or, V::Bool(true)) => return Ok(V::Bool(true)),
            _ => {}
        }
        let b = self.eval(rhs)?;
        use BinaryOp::*;
        match (a, b) {
            (V::Bool(x), V::Bool(y)) => match op {
                And | Or => Ok(V::Bool(y)),
                Eq => Ok(V::Bool(x == y)),
                Ne => Ok(V::Bool(x != y)),
                _ => Err(EvalError::Quiet),
            },
            (V::Int(x), V::Int(y)) => match op {
                Add => self.int(e, x + y),
                Sub => self.int(e, x - y),
                Mul => match x.checked_mul(y) {
                    Some(p) => self.int(e, p),
                    None => Err(EvalError::OutOfRange {
                        span: e.span,
                        value: "a number this large".to_string(),
                        ty: self.ty(e)?,
                        literal: false,
                    }),
                },
                Div | Rem if y == 0 => Err(EvalError::DivisionByZero(rhs.span)),
                Div => self.int(e, x / y),
                Rem => self.int(e, x % y),
                BitAnd => self.int(e, x & y),
                BitOr => self.int(e, x | y),
                BitXor => self.int(e, x ^ y),
                Shl | Shr => {
                    let ty = self.ty(e)?;
                    if y < 0 || y >= i128::from(ty.bits()) {
                        return Err(EvalError::BadShift {
                            span: rhs.span,
                            amount: y,
                            ty,
                        });
                    }
                    if op == Shl {
                        self.int(e, wrap(((x as u128) << y) as i128, ty))
                    } else {
                        self.int(e, x >> y)
                    }
                }
                Lt => Ok(V::Bool(x < y)),
                Le => Ok(V::Bool(x <= y)),
                Gt => Ok(V::Bool(x > y)),
                Ge => Ok(V::Bool(x >= y)),
                Eq => Ok(V::Bool(x == y)),
                Ne => Ok(V::Bool(x != y)),
                And | Or => Err(EvalError::Quiet),
            },
            (V::Float(x), V::Float(y)) => match op {
                Add => self.float(e, x + y),
                Sub => self.float(e, x - y),
                Mul => self.float(e, x * y),
                Div => self.float(e, x / y),
                Rem => self.float(e, x % y),
                Lt => Ok(V::Bool(x < y)),
                Le => Ok(V::Bool(x <= y)),
                Gt => Ok(V::Bool(x > y)),
                Ge => Ok(V::Bool(x >= y)),
                Eq => Ok(V::Bool(x == y)),
                Ne => Ok(V::Bool(x != y)),
                _ => Err(EvalError::Quiet),
            },
            // An integer literal in a float context was already converted by `int`.
            _ => Err(EvalError::Quiet),
        }
    }
}

fn round(x: f64, ty: Ty) -> f64 {
    if ty == Ty::F32 {
        f64::from(x as f32)
    } else {
        x
    }
}
