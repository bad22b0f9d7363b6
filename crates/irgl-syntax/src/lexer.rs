//! Tokens of IrGL, produced by a logos lexer and fed to the LALRPOP parser.

use std::fmt;

use logos::Logos;

/// Why a piece of input is not a token.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LexError {
    #[default]
    Unexpected,
    IntTooLarge,
    BadFloat,
    UnterminatedComment,
}

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
pub enum Tok<'s> {
    // Program-level declarations.
    #[token("graph")]
    Graph,
    #[token("node")]
    Node,
    #[token("edge")]
    Edge,
    #[token("const")]
    Const,
    #[token("param")]
    Param,
    #[token("global")]
    Global,
    #[token("output")]
    Output,
    #[token("Kernel")]
    Kernel,
    #[token("Function")]
    Function,
    #[token("main")]
    Main,

    // Kernel constructs.
    #[token("ForAll")]
    ForAll,
    #[token("In")]
    In,
    #[token("ReduceAndReturn")]
    ReduceAndReturn,
    #[token("Reduce")]
    Reduce,
    #[token("Atomic")]
    Atomic,
    #[token("Exclusive")]
    Exclusive,
    #[token("Else")]
    ElseCap,
    #[token("SyncRunningThreads")]
    SyncRunningThreads,
    #[token("Retry")]
    Retry,
    #[token("Respawn")]
    Respawn,
    #[token("WL")]
    Wl,

    // Orchestration constructs.
    #[token("Invoke")]
    Invoke,
    #[token("Iterate")]
    Iterate,
    #[token("While")]
    WhileCap,
    #[token("Until")]
    Until,
    #[token("Unordered")]
    Unordered,
    #[token("Any")]
    Any,
    #[token("All")]
    All,
    #[token("Initial")]
    Initial,
    #[token("Pipe")]
    Pipe,
    #[token("Once")]
    Once,

    // Operator code.
    #[token("let")]
    Let,
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("while")]
    While,
    #[token("for")]
    For,
    #[token("break")]
    Break,
    #[token("continue")]
    Continue,
    #[token("return")]
    Return,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("as")]
    As,

    // Types.
    #[token("bool")]
    TyBool,
    #[token("u32")]
    TyU32,
    #[token("i32")]
    TyI32,
    #[token("u64")]
    TyU64,
    #[token("i64")]
    TyI64,
    #[token("f32")]
    TyF32,
    #[token("f64")]
    TyF64,

    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice())]
    Ident(&'s str),
    #[regex(r"[0-9]+", |lex| lex.slice().parse::<u64>().map_err(|_| LexError::IntTooLarge))]
    #[regex(r"0[xX][0-9A-Fa-f]+", |lex| u64::from_str_radix(&lex.slice()[2..], 16).map_err(|_| LexError::IntTooLarge))]
    Int(u64),
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?", parse_float)]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+", parse_float)]
    Float(f64),
    #[token("/*", block_comment)]
    Comment,
    #[regex(r"//[^\n]*", allow_greedy = true)]
    LineComment,

    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("?")]
    Question,
    #[token(".")]
    Dot,
    #[token("..")]
    DotDot,

    #[token("=")]
    Assign,
    #[token("+=")]
    PlusAssign,
    #[token("-=")]
    MinusAssign,
    #[token("*=")]
    StarAssign,
    #[token("/=")]
    SlashAssign,
    #[token("%=")]
    PercentAssign,
    #[token("&=")]
    AmpAssign,
    #[token("|=")]
    PipeAssign,
    #[token("^=")]
    CaretAssign,
    #[token("<<=")]
    ShlAssign,
    #[token(">>=")]
    ShrAssign,
    #[token("++")]
    PlusPlus,
    #[token("--")]
    MinusMinus,

    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("&")]
    Amp,
    #[token("|")]
    PipeOp,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("!")]
    Bang,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
}

fn parse_float<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> Result<f64, LexError> {
    lex.slice()
        .parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .ok_or(LexError::BadFloat)
}

/// Skips a `/* ... */` comment (not nested); the token itself is filtered out by [`tokens`].
fn block_comment<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> Result<(), LexError> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            Ok(())
        }
        None => {
            lex.bump(lex.remainder().len());
            Err(LexError::UnterminatedComment)
        }
    }
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "identifier `{s}`"),
            Tok::Int(v) => write!(f, "integer `{v}`"),
            Tok::Float(v) => write!(f, "number `{v:?}`"),
            other => write!(f, "`{}`", spelling(other)),
        }
    }
}

/// The source spelling of a fixed token.
pub fn spelling(tok: &Tok<'_>) -> &'static str {
    use Tok::*;
    match tok {
        Graph => "graph",
        Node => "node",
        Edge => "edge",
        Const => "const",
        Param => "param",
        Global => "global",
        Output => "output",
        Kernel => "Kernel",
        Function => "Function",
        Main => "main",
        ForAll => "ForAll",
        In => "In",
        ReduceAndReturn => "ReduceAndReturn",
        Reduce => "Reduce",
        Atomic => "Atomic",
        Exclusive => "Exclusive",
        ElseCap => "Else",
        SyncRunningThreads => "SyncRunningThreads",
        Retry => "Retry",
        Respawn => "Respawn",
        Wl => "WL",
        Invoke => "Invoke",
        Iterate => "Iterate",
        WhileCap => "While",
        Until => "Until",
        Unordered => "Unordered",
        Any => "Any",
        All => "All",
        Initial => "Initial",
        Pipe => "Pipe",
        Once => "Once",
        Let => "let",
        If => "if",
        Else => "else",
        While => "while",
        For => "for",
        Break => "break",
        Continue => "continue",
        Return => "return",
        True => "true",
        False => "false",
        As => "as",
        TyBool => "bool",
        TyU32 => "u32",
        TyI32 => "i32",
        TyU64 => "u64",
        TyI64 => "i64",
        TyF32 => "f32",
        TyF64 => "f64",
        Ident(_) => "identifier",
        Int(_) => "integer",
        Float(_) => "number",
        Comment => "/*",
        LineComment => "//",
        LParen => "(",
        RParen => ")",
        LBrace => "{",
        RBrace => "}",
        LBracket => "[",
        RBracket => "]",
        Comma => ",",
        Semi => ";",
        Colon => ":",
        Question => "?",
        Dot => ".",
        DotDot => "..",
        Assign => "=",
        PlusAssign => "+=",
        MinusAssign => "-=",
        StarAssign => "*=",
        SlashAssign => "/=",
        PercentAssign => "%=",
        AmpAssign => "&=",
        PipeAssign => "|=",
        CaretAssign => "^=",
        ShlAssign => "<<=",
        ShrAssign => ">>=",
        PlusPlus => "++",
        MinusMinus => "--",
        Plus => "+",
        Minus => "-",
        Star => "*",
        Slash => "/",
        Percent => "%",
        Amp => "&",
        PipeOp => "|",
        Caret => "^",
        Tilde => "~",
        Bang => "!",
        Shl => "<<",
        Shr => ">>",
        EqEq => "==",
        NotEq => "!=",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
        AndAnd => "&&",
        OrOr => "||",
    }
}

/// A token or a lexical error, with its byte range.
pub type Spanned<'s> = (usize, Result<Tok<'s>, LexError>, usize);

/// Tokenizes `src`, dropping comments. Lexical errors are kept in the stream so that the
/// caller can report them all and still parse the rest.
pub fn tokens(src: &str) -> impl Iterator<Item = Spanned<'_>> {
    Tok::lexer(src)
        .spanned()
        .filter(|(t, _)| !matches!(t, Ok(Tok::Comment | Tok::LineComment)))
        .map(|(t, r)| (r.start, t, r.end))
}

/// A comment in the source, for the formatter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub start: usize,
    pub end: usize,
    /// The comment's text, delimiters included.
    pub text: String,
    /// Whether only white space precedes it on its line.
    pub own_line: bool,
}

/// Every comment of `src`, in order. Unterminated block comments are left out (the parser
/// reports them).
pub fn comments(src: &str) -> Vec<Comment> {
    Tok::lexer(src)
        .spanned()
        .filter(|(t, _)| matches!(t, Ok(Tok::Comment | Tok::LineComment)))
        .map(|(_, r)| {
            let line_start = src[..r.start].rfind('\n').map_or(0, |i| i + 1);
            Comment {
                start: r.start,
                end: r.end,
                text: src[r.start..r.end].trim_end().to_string(),
                own_line: src[line_start..r.start].trim().is_empty(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Result<Tok<'_>, LexError>> {
        tokens(src).map(|(_, t, _)| t).collect()
    }

    #[test]
    fn ranges_are_not_floats() {
        assert_eq!(
            kinds("0..n"),
            vec![Ok(Tok::Int(0)), Ok(Tok::DotDot), Ok(Tok::Ident("n"))]
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(
            kinds("0xffffffff 1.5 1e-6 42"),
            vec![
                Ok(Tok::Int(0xffff_ffff)),
                Ok(Tok::Float(1.5)),
                Ok(Tok::Float(1e-6)),
                Ok(Tok::Int(42))
            ]
        );
        assert_eq!(
            kinds("99999999999999999999"),
            vec![Err(LexError::IntTooLarge)]
        );
    }

    #[test]
    fn comments_are_skipped() {
        assert_eq!(
            kinds("a /* b */ c // d\n e"),
            vec![
                Ok(Tok::Ident("a")),
                Ok(Tok::Ident("c")),
                Ok(Tok::Ident("e"))
            ]
        );
        assert_eq!(
            kinds("a /* b"),
            vec![Ok(Tok::Ident("a")), Err(LexError::UnterminatedComment)]
        );
    }

    #[test]
    fn keywords_and_case() {
        assert_eq!(
            kinds("Else else While while"),
            vec![
                Ok(Tok::ElseCap),
                Ok(Tok::Else),
                Ok(Tok::WhileCap),
                Ok(Tok::While)
            ]
        );
    }
}
