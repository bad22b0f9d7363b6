//! irglc's optimization passes, and [`OptConfig`], the one value that selects them.
//!
//! Each pass is a free function over an IR [`irgl_ir::Module`] in its own module, whose
//! header says what it does, when it pays, what it assumes, and shows a before/after
//! example. The driver (`irgl-driver`) runs them in order and verifies the IR after each.
//! A pass reports options that do not apply to the program as diagnostics (`E05xx`); where
//! a default cannot apply to some part of the program, it leaves that part as it was and
//! records why in the IR, for `irglc emit ir` to show.

pub mod aggregate_pushes;
pub mod backoff_retries;
pub mod choose_options;
pub mod config;
pub mod drop_repeats;
pub mod outline_iterations;
pub mod run_asynchronously;
pub mod schedule_nested_loops;
pub mod settle_rounds;
pub mod split_nodes;
pub mod switch_asynchrony;
pub mod unroll_pipes;

pub use aggregate_pushes::aggregate_pushes;
pub use backoff_retries::backoff_retries;
pub use choose_options::{Choice, LevelChoices, OptLevel, choose_options};
pub use config::{
    AdaptConfig, AggregateConfig, AggregateLevel, BackoffConfig, BackoffRounds, KernelSet,
    NestedConfig, OptConfig, OutlineConfig, ScheduleSpec,
};
pub use drop_repeats::drop_repeats;
pub use outline_iterations::outline_iterations;
pub use run_asynchronously::run_asynchronously;
pub use schedule_nested_loops::schedule_nested_loops;
pub use settle_rounds::settle_rounds;
pub use split_nodes::split_nodes;
pub use switch_asynchrony::switch_asynchrony;
pub use unroll_pipes::unroll_pipes;

/// The name of a version of kernel `name`: `NAME_SUFFIX`, or `NAME_SUFFIX2`, ... where the
/// program has a kernel of that name.
pub(crate) fn version_name(m: &irgl_ir::Module, name: &str, suffix: &str) -> String {
    let mut version = format!("{name}_{suffix}");
    let mut n = 1;
    while m.kernel_named(&version).is_some() {
        n += 1;
        version = format!("{name}_{suffix}{n}");
    }
    version
}

/// E0510: option `flag` names a kernel `name` that the program does not have; the note lists
/// its kernels.
pub(crate) fn unknown_kernel(
    m: &irgl_ir::Module,
    flag: &str,
    name: &str,
) -> irgl_diagnostics::Diagnostic {
    let all: Vec<&str> = m.kernels.iter().map(|(_, k)| k.name.as_str()).collect();
    irgl_diagnostics::Diagnostic::error(
        "E0510",
        format!("{flag} {name}: the program has no kernel `{name}`"),
    )
    .with_note(format!("its kernels are {}", all.join(", ")))
}

/// The kernels that `set` (the value of option `flag`) chooses, each with what `applies`
/// makes of it: `none` chooses none, `all` every kernel that `applies` accepts, and a list
/// its kernels, where a name that is no kernel is E0510 and a kernel that `applies` rejects is
/// `code` (`FLAG NAME: REASON`, the reason from `applies`).
pub(crate) fn chosen_kernels<T>(
    m: &irgl_ir::Module,
    set: &config::KernelSet,
    flag: &str,
    code: &'static str,
    applies: impl Fn(irgl_ir::KernelId, &str) -> Result<T, String>,
) -> Result<Vec<(irgl_ir::KernelId, T)>, Vec<irgl_diagnostics::Diagnostic>> {
    match set {
        config::KernelSet::None => Ok(Vec::new()),
        config::KernelSet::All => Ok(m
            .kernels
            .iter()
            .filter_map(|(k, kernel)| applies(k, &kernel.name).ok().map(|t| (k, t)))
            .collect()),
        config::KernelSet::Kernels(names) => {
            let mut chosen = Vec::new();
            let mut errors = Vec::new();
            for name in names {
                match m.kernel_named(name) {
                    None => errors.push(unknown_kernel(m, flag, name)),
                    Some(k) => match applies(k, name) {
                        Ok(t) => chosen.push((k, t)),
                        Err(why) => errors.push(irgl_diagnostics::Diagnostic::error(
                            code,
                            format!("{flag} {name}: {why}"),
                        )),
                    },
                }
            }
            if errors.is_empty() {
                Ok(chosen)
            } else {
                Err(errors)
            }
        }
    }
}
