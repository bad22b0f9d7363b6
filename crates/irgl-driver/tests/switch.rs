//! `switch_asynchrony` through the pipeline: which loops `--async-switch on` gives both ways,
//! what the asynchronous version is, what the control kernel does with them, the warnings
//! where nothing can switch, and that no level chooses it.

mod common;

use irgl_ir::Asynchrony;

fn config(rel: &str, flags: &str) -> irgl_driver::OptConfig {
    common::config_for(rel, flags)
}

#[test]
fn an_iterates_kernel_gets_an_asynchronous_version_that_its_control_kernel_calls() {
    let rel = "programs/sssp-wl.irgl";
    let c = common::compile(rel, &config(rel, "-O2 --async-switch on"));
    let m = &c.module;
    let k = m.kernel_named("sssp_wl").unwrap();
    let a = m.kernels[k].async_version.expect("an asynchronous version");
    assert_eq!(m.kernels[a].name, "sssp_wl_async");
    assert_eq!(m.kernels[a].async_of, Some(k));
    assert_eq!(m.kernels[a].asynchronous, Some(Asynchrony::AllPushes));
    assert_eq!(
        m.kernels[k].asynchronous, None,
        "the kernel itself keeps its rounds"
    );
    // The version without gd (rounds, graphs without hubs) switches to the same version.
    let nogd = m.kernels[k].no_grid_version.expect("gd at -O2");
    assert_eq!(m.kernels[nogd].async_version, Some(a));
    // Repeats are dropped in rounds only: the asynchronous version takes no round number.
    assert_eq!(m.kernels[k].params.len(), m.kernels[a].params.len() + 1);
    let cuda = &c.cuda;
    let device = common::kernels(cuda);
    assert!(
        device.contains("if (irgl_sw_mode == irgl::kSwitchAsync) {"),
        "{device}"
    );
    assert!(
        device.contains("irgl_dev_sssp_wl_async(g, irgl_in, irgl_out, irgl_retry, irgl_queue);")
    );
    assert!(device.contains("irgl_queue.drain_into(irgl_in, irgl_out);"));
    assert!(device.contains("irgl_state->sw.step(irgl::global_ns(), irgl_queue.first_pops()"));
    // Both ways count first pops: the rounds kernel, its version without gd, the async one.
    assert_eq!(
        device.matches("irgl_queue.count_first(n);").count(),
        3,
        "{device}"
    );
    // A round reads no switch state: the way and the epoch's rounds are registers.
    assert!(device.contains("--irgl_sw_left == 0u"));
    assert!(!device.contains("irgl_state->sw.next() == "));
    // The program's flags, its queue counting nodes, its record.
    assert!(cuda.contains("args.add<std::string>(\"async-switch\", \"auto\""));
    assert!(cuda.contains("args.add<uint64_t>(\"switch-epoch\", 20,"));
    assert!(cuda.contains("queue(wl_items, hg.nnodes)"));
    assert!(cuda.contains("record.async_switch = h.switched.report(times.back());"));
    assert!(c.warnings.iter().all(|w| w.code != "W0505"));
}

/// The text of the `__global__` function `name` in `cuda`: its signature line to its closing
/// brace.
fn global_function<'a>(cuda: &'a str, name: &str) -> &'a str {
    let head = format!(" {name}(G ");
    let start = cuda
        .lines()
        .find(|l| l.starts_with("__global__") && l.contains(&head))
        .map(|l| l.as_ptr() as usize - cuda.as_ptr() as usize)
        .unwrap_or_else(|| panic!("no control kernel {name}"));
    let len = cuda[start..].find("\n}\n").expect("a closing brace") + 2;
    &cuda[start..start + len]
}

#[test]
fn on_a_grid_chosen_by_the_graph_the_switch_runs_where_rounds_are_small_and_rounds_run_alone_elsewhere()
 {
    for rel in [
        "programs/bfs-wl.irgl",
        "programs/sssp-wl.irgl",
        "programs/sssp-nf.irgl",
    ] {
        let plain = common::compile(rel, &config(rel, "-O2 --outline-grid auto"));
        let c = common::compile(
            rel,
            &config(rel, "-O2 --outline-grid auto --async-switch on"),
        );
        // The switched control is compiled for the grid it runs on: one block per
        // multiprocessor (ptxas left to itself spilled it).
        let switched = global_function(&c.cuda, "irgl_control0");
        assert!(
            switched.starts_with("__global__ void __launch_bounds__(BLOCK, 1) irgl_control0("),
            "{rel}: {}",
            switched.lines().next().unwrap()
        );
        // On the graphs of large rounds the host launches the control in rounds only, which is
        // -O2's control but for the queue it takes, its rounds counting nothing, and the
        // number of the Initial stop (its control calls one kernel more).
        for suffix in ["", "_nogd"] {
            let rounds = global_function(&c.cuda, &format!("irgl_control0_rounds{suffix}"));
            let o2 = global_function(&plain.cuda, &format!("irgl_control0{suffix}"));
            let calls = |text: &str| text.matches("irgl_dev_").count();
            assert_eq!(calls(rounds), calls(o2), "{rel}{suffix}: the same calls");
            let normalized = rounds
                .replace(
                    &format!("irgl_control0_rounds{suffix}("),
                    &format!("irgl_control0{suffix}("),
                )
                .replace("irgl::AsyncQueue irgl_queue, ", "")
                .replace(", irgl_queue.counting(false))", ")");
            let differing: Vec<(&str, &str)> = normalized
                .lines()
                .zip(o2.lines())
                .filter(|(a, b)| a != b)
                .collect();
            assert_eq!(
                normalized.lines().count(),
                o2.lines().count(),
                "{rel}{suffix}"
            );
            assert!(
                differing
                    .iter()
                    .all(|(a, _)| a.trim_start().starts_with("irgl_stopped = ")),
                "{rel}{suffix}: {differing:?}"
            );
            // A round of the switched control has -O2's barriers, and one more in each
            // asynchronous branch (after its launch, before the queue's stop is read).
            let barriers = |text: &str| text.matches("irgl::grid_sync").count();
            let switched = global_function(&c.cuda, &format!("irgl_control0{suffix}"));
            let branches = switched
                .matches("if (irgl_sw_mode == irgl::kSwitchAsync) {")
                .count();
            assert!(branches > 0, "{rel}{suffix}");
            assert_eq!(barriers(switched), barriers(o2) + branches, "{rel}{suffix}");
            // The queue's stop is read in the asynchronous branch, not after the round.
            assert!(
                !switched.contains("|| irgl_queue.overflowed()"),
                "{rel}{suffix}"
            );
            assert_eq!(
                switched.matches("if (irgl_queue.overflowed()) {").count(),
                branches,
                "{rel}{suffix}"
            );
        }
        // Rounds count their first pops only while their items fit the grid's threads.
        assert!(c.cuda.contains(
            "= irgl_in.size() <= static_cast<unsigned long long>(gridDim.x) * blockDim.x;"
        ));
        assert!(c.cuda.contains("irgl_queue.counting(irgl_sw_counted"));
        // The host: the switch below the grid's degree or with a way pinned.
        assert!(
            c.cuda
                .contains("const bool irgl_small = h.hg.nedges < 12ull * h.hg.nnodes;"),
            "{rel}"
        );
        assert!(c.cuda.contains(
            "const bool irgl_switch = irgl_small || h.switch_force != irgl::kSwitchAuto;"
        ));
        assert!(c.cuda.contains("(irgl_small ? irgl::sm_count() : 0)"));
        assert!(c.cuda.contains(
            "if (irgl_switch) h.switched.add(irgl_s.sw); else h.switched.add_unswitched();"
        ));
    }
    // A fixed grid has no version in rounds only: the switch runs on it whatever the graph.
    let rel = "programs/bfs-wl.irgl";
    let c = common::compile(
        rel,
        &config(rel, "-O2 --async-switch on --outline-grid resident"),
    );
    assert!(!c.cuda.contains("irgl_control0_rounds"));
    assert!(
        c.cuda
            .contains("__global__ void __launch_bounds__(BLOCK) irgl_control0(")
    );
}

#[test]
fn a_respawning_kernel_leaves_its_yields_to_the_retry_loop() {
    let rel = "programs/sssp-nf.irgl";
    let c = common::compile(rel, &config(rel, "-O2 --async-switch on --switch-epoch 7"));
    let m = &c.module;
    let k = m.kernel_named("sssp_nf").unwrap();
    let a = m.kernels[k].async_version.unwrap();
    assert_eq!(m.kernels[a].asynchronous, Some(Asynchrony::Respawns));
    let device = common::kernels(&c.cuda);
    // What a yield leaves goes to the retry list, which the loop after the launch pops.
    assert!(
        device.contains("irgl_queue.drain_into(irgl_in, irgl_retry);"),
        "{device}"
    );
    assert!(device.contains("irgl_retry.ctl->count"));
    assert!(c.cuda.contains("args.add<uint64_t>(\"switch-epoch\", 7,"));
}

#[test]
fn no_level_chooses_the_switch() {
    for rel in [
        "programs/sssp-wl.irgl",
        "programs/bfs-wl.irgl",
        "programs/sssp-nf.irgl",
    ] {
        for level in ["-O0", "-O1", "-O2"] {
            let c = config(rel, level);
            assert!(!c.async_switch, "{rel} {level}");
            let compiled = common::compile(rel, &c);
            assert!(
                compiled
                    .module
                    .kernels
                    .iter()
                    .all(|(_, k)| k.async_version.is_none()),
                "{rel} {level}"
            );
        }
    }
}

#[test]
fn where_nothing_can_switch_a_warning_says_why() {
    let cases = [
        // Not monotone.
        (
            "programs/bfs.irgl",
            "-O2 --async-switch on",
            "cannot run asynchronously",
        ),
        // Already asynchronous for good.
        (
            "programs/sssp-wl.irgl",
            "-O2 --async all --async-switch on",
            "runs asynchronously (--async)",
        ),
        // No control kernel to switch in.
        (
            "programs/sssp-wl.irgl",
            "-O0 --async-switch on",
            "--outline outer",
        ),
    ];
    for (rel, flags, why) in cases {
        let c = common::compile(rel, &config(rel, flags));
        let w = c
            .warnings
            .iter()
            .find(|w| w.code == "W0505")
            .unwrap_or_else(|| panic!("{rel} {flags}: no W0505"));
        assert!(
            w.notes.iter().any(|n| n.contains(why)),
            "{rel} {flags}: {:?}",
            w.notes
        );
        assert!(
            c.module
                .kernels
                .iter()
                .all(|(_, k)| k.async_version.is_none()),
            "{rel} {flags}"
        );
    }
}

#[test]
fn the_switchs_options_apply_only_with_it() {
    let bad = |flags: &str| {
        let words: Vec<&str> = flags.split_whitespace().collect();
        irgl_driver::OptConfig::from_args(&words)
            .unwrap()
            .validate()
            .unwrap_err()
            .join("; ")
    };
    assert!(bad("--switch-epoch 40").contains("applies only with --async-switch on"));
    assert!(bad("--async-switch on --switch-epoch 0").contains("from 1 to 1000000"));
    assert!(bad("--async-switch on --multi-gpu on").contains("--multi-gpu"));
    // Continuations go to the switch's asynchronous version too.
    let ok = common::config("--async-switch on --async-local on --outline outer");
    assert!(ok.validate().is_ok());
    let c = common::compile("programs/bfs-wl.irgl", &ok);
    assert!(common::kernels(&c.cuda).contains("if (irgl_carry) irgl_queue.push(irgl_next);"));
    // The canonical flags rebuild the same set.
    let round = irgl_driver::OptConfig::from_args(&ok.to_args()).unwrap();
    assert_eq!(round, ok);
}

#[test]
fn with_grid_wait_gds_blocks_wait_for_late_owners_where_nearly_every_block_has_no_item() {
    let rel = "programs/bfs.irgl";
    let plain = common::compile(rel, &config(rel, "-O2"));
    assert!(
        !plain.cuda.contains("grid_wait_for_owners"),
        "off by default"
    );
    let c = common::compile(rel, &config(rel, "-O2 --grid-wait on"));
    let device = common::kernels(&c.cuda);
    assert!(
        device.contains("const bool irgl_gwait = irgl_total0 * 32u <= gridDim.x;"),
        "{device}"
    );
    assert!(device.contains(
        "if (irgl_gwait && irgl_gslot == irgl::kGridItems) irgl::grid_wait_for_owners<4u * BLOCK>("
    ));
    assert!(c.warnings.iter().all(|w| w.code != "W0506"));
    // Nothing under gd: it says so.
    let none = common::compile(rel, &config(rel, "-O2 --nested tb+wp+fg --grid-wait on"));
    assert!(none.warnings.iter().any(|w| w.code == "W0506"));
}
