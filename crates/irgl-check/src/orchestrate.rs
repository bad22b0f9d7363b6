//! Checks that need both a kernel and the places that launch it: worklist contexts,
//! `Retry`/`Respawn`, `Initial`, `ReduceAndReturn` against `Any`/`All`, and kernels that are
//! never invoked.
//!
//! ```text
//! Kernel relax(graph g) { ForAll (i In WL) { ... Retry n; } }
//! main { Invoke relax(g); }   // E0312: Retry needs a worklist; this Invoke gives none
//! ```

use irgl_diagnostics::Diagnostic;

use crate::cx::Cx;
use crate::info::{InvocationKind, KernelId, WorklistContext};

pub(crate) fn check_invocations(cx: &mut Cx<'_>) {
    let invocations = cx.info.invocations.clone();
    for inv in &invocations {
        let Some(k) = inv.kernel else { continue };
        let ki = &cx.info.kernels[k.index()];
        let name = ki.name.clone();
        let kspan = ki.span;
        let uses_wl = ki.uses_worklist();
        let first_retry = ki.retry_sites.first().copied();
        let first_reduce = ki.reduce_sites.first().copied();

        if uses_wl && inv.worklist == WorklistContext::None {
            let how = "invoke it inside a `Pipe`, or with `Iterate ... Initial [...]` to create \
                       its first worklist";
            let d = match first_retry {
                Some(r) => {
                    let word = match r.kind {
                        irgl_syntax::ast::RetryKind::Retry => "Retry",
                        irgl_syntax::ast::RetryKind::Respawn => "Respawn",
                    };
                    Diagnostic::error(
                        "E0312",
                        format!("`{word}` needs a worklist, but `{name}` is invoked without one"),
                    )
                    .with_label(
                        r.span,
                        format!("`{word}` pushes to the worklist of `{name}`"),
                    )
                    .with_label(
                        inv.span,
                        "invoked here outside a `Pipe` and without `Initial`",
                    )
                    .with_help(how)
                }
                None => Diagnostic::error(
                    "E0313",
                    format!("`{name}` uses a worklist, but this invocation gives it none"),
                )
                .with_label(inv.span, "invoked outside a `Pipe` and without `Initial`")
                .with_label(kspan, format!("`{name}` mentions `WL`"))
                .with_help(how),
            };
            cx.report(d);
        }

        if let Some(initial) = inv.initial_span
            && !uses_wl
        {
            cx.report(
                Diagnostic::error(
                    "E0315",
                    format!("`Initial` gives a worklist to `{name}`, which does not use one"),
                )
                .with_label(initial, "an initial worklist")
                .with_label(kspan, format!("`{name}` never mentions `WL`"))
                .with_help(
                    "remove `Initial ...`, or make the kernel iterate with `ForAll (i In WL)`",
                ),
            );
        }

        match (first_reduce, inv.reduction, inv.reduction_span) {
            (Some(r), None, _) => cx.report(
                Diagnostic::error(
                    "E0316",
                    format!(
                        "`{name}` uses `ReduceAndReturn`, but this invocation has no `Any` or `All` to receive it"
                    ),
                )
                .with_label(r.span, format!("contributes to the result of `{name}`"))
                .with_label(inv.span, "invoked here without `Any` or `All`")
                .with_help(format!(
                    "launch it with `Any Invoke {name}(...)`, `All Invoke {name}(...)` or \
                     `Iterate While Any {name}(...)`; or remove the `ReduceAndReturn`"
                )),
            ),
            (None, Some(_), Some(span)) => {
                let what = if inv.kind == InvocationKind::Iterate {
                    "the condition of this `Iterate`"
                } else {
                    "this reduction"
                };
                cx.report(
                    Diagnostic::error(
                        "E0317",
                        format!("`{name}` has no `ReduceAndReturn`, so {what} has nothing to reduce"),
                    )
                    .with_label(span, "needs a kernel with `ReduceAndReturn`")
                    .with_label(kspan, format!("`{name}` never uses `ReduceAndReturn`")),
                );
            }
            _ => {}
        }

        if inv.kind == InvocationKind::Iterate && inv.iterate_cond.is_none() && !uses_wl {
            cx.report(
                Diagnostic::error("E0319", "this `Iterate` never stops")
                    .with_label(
                        inv.span,
                        format!(
                            "`{name}` uses no worklist, and there is no `While`/`Until` condition"
                        ),
                    )
                    .with_help(format!(
                        "launch it once with `Invoke {name}(...)`, or stop on its result: \
                         `Iterate While Any {name}(...)` with a `ReduceAndReturn` in `{name}`"
                    )),
            );
        }
    }
}

/// W0002: kernels that `main` never launches.
pub(crate) fn report_unused_kernels(cx: &mut Cx<'_>) {
    if cx.main_item.is_none() || cx.recovered || cx.unknown_launch {
        return;
    }
    for (i, k) in cx.info.kernels.iter().enumerate() {
        if cx.launched.contains(&KernelId(i as u32)) {
            continue;
        }
        let d = Diagnostic::warning("W0002", format!("kernel `{}` is never invoked", k.name))
            .with_label(k.span, "declared here")
            .with_help(format!(
                "launch it from `main` with `Invoke {}(...)`, or remove it",
                k.name
            ));
        cx.diags.push(d);
    }
}
