//! The generated CUDA of every program, as reviewed snapshots; and determinism.

mod common;

#[test]
fn generated_cuda_matches_snapshots() {
    for (name, cu) in common::generated_programs() {
        insta::assert_snapshot!(name, cu);
    }
}

#[test]
fn generation_is_deterministic() {
    let a = common::generated_programs();
    let b = common::generated_programs();
    assert_eq!(a, b);
}
