//! Expressions in generated code, on either side: device code (kernels) and host code (`main`).

use irgl_syntax::ast::*;

use crate::names::cpp;
use irgl_check::Resolution;

use crate::{Ctx, c_type};

/// Where an expression runs: names of params, globals and properties differ between sides.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Device,
    Host,
}

impl Ctx<'_> {
    /// The C++ text of `e`. Composite expressions are fully parenthesized.
    pub(crate) fn expr(&self, e: &Expr, side: Side) -> String {
        match &e.kind {
            ExprKind::Int(v) => int_literal(*v, self.ty(e)),
            ExprKind::Float(v) => float_literal(*v, self.ty(e)),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Name(n) => self.name(e, &n.name, side),
            ExprKind::Unary { op, operand } => {
                format!("({}{})", op.spelling(), self.expr(operand, side))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (self.expr(lhs, side), self.expr(rhs, side));
                if *op == BinaryOp::Rem && matches!(self.ty(lhs), TypeKind::F32 | TypeKind::F64) {
                    let f = if self.ty(lhs) == TypeKind::F32 {
                        "fmodf"
                    } else {
                        "fmod"
                    };
                    return format!("{f}({l}, {r})");
                }
                format!("({l} {} {r})", op.spelling())
            }
            ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } => format!(
                "({} ? {} : {})",
                self.expr(cond, side),
                self.expr(then_expr, side),
                self.expr(else_expr, side)
            ),
            ExprKind::Cast { expr, ty } => {
                format!(
                    "static_cast<{}>({})",
                    c_type(ty.kind),
                    self.expr(expr, side)
                )
            }
            ExprKind::Call { func, args } => self.call(e, &func.name, args, side),
            ExprKind::Field { base, field } => match (side, field.name.as_str()) {
                (Side::Device, f) => format!("{}.csr.{f}", cpp(&base.name)),
                (Side::Host, f) => format!("h.hg.{f}"),
            },
            ExprKind::Index { base, prop, index } => {
                let i = self.expr(index, side);
                match side {
                    Side::Device => format!("{}.{}[{i}]", cpp(&base.name), cpp(&prop.name)),
                    // The input property is the graph file's edge data, also kept on the host.
                    Side::Host if self.is_input_prop(e) => {
                        format!("irgl::host_edge_data(h.hg, {i})")
                    }
                    Side::Host => format!("read_element(h.{}, {i})", cpp(&prop.name)),
                }
            }
            ExprKind::Method { base, method, args } => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a, side)).collect();
                let m = match method.name.as_str() {
                    "edge_begin" => "begin",
                    "edge_end" => "end",
                    other => other,
                };
                match side {
                    Side::Device => format!("{}.csr.{m}({})", cpp(&base.name), args.join(", ")),
                    Side::Host => format!("irgl::host_{m}(h.hg, {})", args.join(", ")),
                }
            }
            // A checked program has none.
            ExprKind::Error => "0".to_string(),
            ExprKind::Pop(i) => format!("irgl_in.pop({})", self.expr(i, side)),
            ExprKind::Push(x) => format!("irgl_out.push({})", self.expr(x, side)),
            ExprKind::Invoke { reduction, call } => {
                let args = self.host_call_args(call);
                let kind = match reduction {
                    Reduction::Any => "irgl::Reduce::Any",
                    Reduction::All => "irgl::Reduce::All",
                };
                format!("reduce_{}(h{args}, {kind})", cpp(&call.kernel.name))
            }
        }
    }

    /// Whether `e` is an element of the `input` edge property.
    fn is_input_prop(&self, e: &Expr) -> bool {
        matches!(self.info.resolution(e.id), Some(Resolution::EdgeProperty(p)) if self.info.prop(p).is_some_and(|p| p.input))
    }

    /// An expression in a position that brings its own parentheses (`if (...)`).
    pub(crate) fn cond(&self, e: &Expr, side: Side) -> String {
        strip_parens(self.expr(e, side))
    }

    /// A name: a local, or a program-level const, param or global.
    fn name(&self, e: &Expr, name: &str, side: Side) -> String {
        match (self.info.resolution(e.id), side) {
            (Some(Resolution::Param(_)), Side::Device) => format!("params.{}", cpp(name)),
            (Some(Resolution::Param(_)), Side::Host) => format!("h_params.{}", cpp(name)),
            (Some(Resolution::Global(_)), Side::Host) => format!("get_{}()", cpp(name)),
            _ => cpp(name).into_owned(),
        }
    }

    /// `, a, b` for the scalar arguments of a kernel call (the graph argument is implicit).
    pub(crate) fn host_call_args(&self, call: &Call) -> String {
        let Some(kernel) = self.kernel(&call.kernel.name) else {
            return String::new();
        };
        let mut out = String::new();
        for (param, arg) in kernel.params.iter().zip(&call.args) {
            if param.ty.kind == TypeKind::Graph {
                continue;
            }
            out.push_str(", ");
            out.push_str(&format!(
                "static_cast<{}>({})",
                c_type(param.ty.kind),
                self.cond(arg, Side::Host)
            ));
        }
        out
    }

    /// The address of a place (a property element or a global), for atomics.
    fn place_address(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Index { base, prop, index } => format!(
                "&{}.{}[{}]",
                cpp(&base.name),
                cpp(&prop.name),
                self.expr(index, Side::Device)
            ),
            _ => format!("&{}", self.expr(e, Side::Device)),
        }
    }

    fn call(&self, e: &Expr, func: &str, args: &[Expr], side: Side) -> String {
        if let Some(op) = func.strip_prefix("atomic") {
            // atomicAdd(place, v) -> irgl::atomic_add(&place, v): one overload set for every type.
            let op = op.to_ascii_lowercase();
            let mut parts = vec![self.place_address(&args[0])];
            let ty = c_type(self.ty(e));
            parts.extend(
                args[1..]
                    .iter()
                    .map(|a| format!("static_cast<{ty}>({})", self.cond(a, side))),
            );
            return format!("irgl::atomic_{op}({})", parts.join(", "));
        }
        let args_s: Vec<String> = args.iter().map(|a| self.cond(a, side)).collect();
        let is_float = matches!(self.ty(e), TypeKind::F32 | TypeKind::F64);
        let is_f32 = self.ty(e) == TypeKind::F32;
        match func {
            "min" | "max" => {
                let ty = c_type(self.ty(e));
                let args: Vec<String> = args_s
                    .iter()
                    .map(|a| format!("static_cast<{ty}>({a})"))
                    .collect();
                format!("irgl::{func}_of({})", args.join(", "))
            }
            "abs" | "fabs" if is_float => {
                format!("{}({})", if is_f32 { "fabsf" } else { "fabs" }, args_s[0])
            }
            "abs" => format!("irgl::abs_of({})", args_s[0]),
            "sqrt" => format!("{}({})", if is_f32 { "sqrtf" } else { "sqrt" }, args_s[0]),
            other => format!("{}({})", cpp(other), args_s.join(", ")),
        }
    }
}

/// Removes one pair of parentheses around the whole of `s`, if there is one.
pub(crate) fn strip_parens(s: String) -> String {
    if !(s.starts_with('(') && s.ends_with(')')) {
        return s;
    }
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth == 0 && i + 1 < s.len() {
            return s; // the first parenthesis closes before the end: `(a) + (b)`
        }
    }
    s[1..s.len() - 1].to_string()
}

/// An integer literal with the C++ suffix of its type.
pub(crate) fn int_literal(v: u64, ty: TypeKind) -> String {
    match ty {
        TypeKind::U64 => format!("{v}ull"),
        TypeKind::I64 if v <= i64::MAX as u64 => format!("{v}ll"),
        TypeKind::I64 => format!("static_cast<long long>({v}ull)"),
        TypeKind::I32 if v <= i32::MAX as u64 => format!("{v}"),
        TypeKind::I32 => format!("static_cast<int32_t>({v}ll)"),
        TypeKind::F32 => format!("{v}.0f"),
        TypeKind::F64 => format!("{v}.0"),
        _ => format!("{v}u"),
    }
}

/// A floating-point literal that reads back exactly.
pub(crate) fn float_literal(v: f64, ty: TypeKind) -> String {
    let text = format!("{v:?}");
    let text = if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    };
    if ty == TypeKind::F32 {
        format!("{text}f")
    } else {
        text
    }
}
