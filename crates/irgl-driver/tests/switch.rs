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
