//! The types of IrGL expressions, places and declarations.

use std::fmt;

use irgl_syntax::ast::{PropOwner, TypeKind};

/// The type of an expression, a local, a property element or a declaration.
///
/// `Node` and `Edge` are 32-bit unsigned indices: each mixes freely with `U32` (see
/// [`Ty::compatible`]) but not with the other. `Lock` and `Mark` are the element types of
/// `lock`/`mark` properties and never the type of a value. `Void` is the type of `WL.push(x)`.
/// `Error` is the type of an expression that was already reported; it is compatible with
/// everything so that one mistake gives one diagnostic. A program that checks without errors
/// has no `Error` in its tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Bool,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
    Node,
    Edge,
    /// An in-edge of a node (`g.in_edges(n)`): a position in the graph's transpose, a
    /// 32-bit unsigned index of its own (not an `edge`: `g.edge_of(k)` gives that).
    InEdge,
    /// A triangle of the mesh: a 32-bit unsigned index, like `node`.
    Triangle,
    /// A vertex of the mesh: a 32-bit unsigned index, like `node`.
    Vertex,
    /// A point of the mesh's integer grid (two coordinates); a value of its own.
    Point,
    Graph,
    Lock,
    Mark,
    Void,
    Error,
}

impl Ty {
    pub fn spelling(self) -> &'static str {
        match self {
            Ty::Bool => "bool",
            Ty::U32 => "u32",
            Ty::I32 => "i32",
            Ty::U64 => "u64",
            Ty::I64 => "i64",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Node => "node",
            Ty::Edge => "edge",
            Ty::InEdge => "in_edge",
            Ty::Triangle => "triangle",
            Ty::Vertex => "vertex",
            Ty::Point => "point",
            Ty::Graph => "graph",
            Ty::Lock => "lock",
            Ty::Mark => "mark",
            Ty::Void => "no value",
            Ty::Error => "{unknown}",
        }
    }

    /// Integer types, the index types `node`/`edge` included.
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Ty::U32
                | Ty::I32
                | Ty::U64
                | Ty::I64
                | Ty::Node
                | Ty::Edge
                | Ty::InEdge
                | Ty::Triangle
                | Ty::Vertex
        )
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Ty::I32 | Ty::I64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    /// Integers, indices and floats: the operands of arithmetic.
    pub fn is_numeric(self) -> bool {
        self.is_integer() || self.is_float()
    }

    /// `u32` and the index types `node`, `edge`, `triangle`, `vertex`: the 32-bit unsigned
    /// family.
    pub fn is_u32_like(self) -> bool {
        matches!(
            self,
            Ty::U32 | Ty::Node | Ty::Edge | Ty::InEdge | Ty::Triangle | Ty::Vertex
        )
    }

    /// The index type of a property's elements: `node` for a node property, ...
    pub fn index_of(owner: PropOwner) -> Ty {
        match owner {
            PropOwner::Node => Ty::Node,
            PropOwner::Edge => Ty::Edge,
            PropOwner::Triangle => Ty::Triangle,
            PropOwner::Vertex => Ty::Vertex,
            // Any integer (or index) indexes an array; its elements are counted in `u64`.
            PropOwner::Array => Ty::U64,
        }
    }

    /// A value a `let` local can hold: a scalar or a `point`.
    pub fn is_value(self) -> bool {
        self.is_scalar() || self == Ty::Point
    }

    /// A value a scalar local, parameter or argument can hold.
    pub fn is_scalar(self) -> bool {
        self == Ty::Bool || self.is_numeric()
    }

    /// Width in bits of an integer or float type.
    pub fn bits(self) -> u32 {
        match self {
            Ty::U64 | Ty::I64 | Ty::F64 => 64,
            _ => 32,
        }
    }

    /// `edge` and `in_edge`: positions among the arcs, 64-bit in a build with wide edges
    /// (`--wide-edges on`), 32-bit otherwise.
    pub fn is_edge_index(self) -> bool {
        matches!(self, Ty::Edge | Ty::InEdge)
    }

    /// Whether a value of type `found` may be stored where `self` is expected: equal types, a
    /// `u32` into any index type, `node`, `triangle` and `vertex` into a `u32`, or an already
    /// reported error. An `edge` or `in_edge` does not go into a `u32` without `as`: in a build
    /// with wide edges it is 64-bit, and the store would cut it.
    pub fn compatible(self, found: Ty) -> bool {
        self == found
            || self == Ty::Error
            || found == Ty::Error
            || (self == Ty::U32 && found.is_u32_like() && !found.is_edge_index())
            || (found == Ty::U32 && self.is_u32_like())
    }

    /// Whether values of the two types mix in one expression (the operands of arithmetic or a
    /// comparison, the branches of `?:`, a range's bounds): one goes where the other is
    /// expected.
    pub fn mixes(self, other: Ty) -> bool {
        self.compatible(other) || other.compatible(self)
    }

    /// The type of `a op b` for two operand types that mix: the common type; where `u32` meets
    /// an index type, the `edge` or `in_edge` (the wider in a build with wide edges), else
    /// `u32`.
    pub fn join(self, other: Ty) -> Ty {
        if self == other || other == Ty::Error {
            self
        } else if self == Ty::Error {
            other
        } else if self.is_edge_index() {
            self
        } else if other.is_edge_index() {
            other
        } else {
            Ty::U32
        }
    }
}

/// "a" or "an" before a type's name in prose (`an `edge``, `a `u32``).
pub(crate) fn article(t: Ty) -> &'static str {
    match t {
        Ty::Edge | Ty::InEdge | Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 => "an",
        _ => "a",
    }
}

impl From<TypeKind> for Ty {
    fn from(t: TypeKind) -> Ty {
        match t {
            TypeKind::Bool => Ty::Bool,
            TypeKind::U32 => Ty::U32,
            TypeKind::I32 => Ty::I32,
            TypeKind::U64 => Ty::U64,
            TypeKind::I64 => Ty::I64,
            TypeKind::F32 => Ty::F32,
            TypeKind::F64 => Ty::F64,
            TypeKind::Node => Ty::Node,
            TypeKind::Edge => Ty::Edge,
            TypeKind::InEdge => Ty::InEdge,
            TypeKind::Graph | TypeKind::Mesh => Ty::Graph,
            TypeKind::Triangle => Ty::Triangle,
            TypeKind::Vertex => Ty::Vertex,
            TypeKind::Point => Ty::Point,
            TypeKind::Lock => Ty::Lock,
            TypeKind::Mark => Ty::Mark,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spelling())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_types_mix_with_u32_only() {
        assert!(Ty::Node.compatible(Ty::U32));
        assert!(Ty::U32.compatible(Ty::Node));
        assert!(Ty::Edge.compatible(Ty::U32));
        // An edge does not go into a u32 (64-bit in wide builds), but the two mix.
        assert!(!Ty::U32.compatible(Ty::Edge));
        assert!(!Ty::U32.compatible(Ty::InEdge));
        assert!(Ty::U32.mixes(Ty::Edge) && Ty::Edge.mixes(Ty::U32));
        assert!(!Ty::Node.compatible(Ty::Edge));
        assert!(!Ty::Node.mixes(Ty::Edge));
        assert!(!Ty::U32.compatible(Ty::I32));
        assert!(!Ty::U64.compatible(Ty::U32));
        assert_eq!(Ty::Node.join(Ty::U32), Ty::U32);
        assert_eq!(Ty::Node.join(Ty::Node), Ty::Node);
        assert_eq!(Ty::U32.join(Ty::Edge), Ty::Edge);
        assert_eq!(Ty::Edge.join(Ty::U32), Ty::Edge);
    }
}
