//! Generates the LALRPOP parser from `grammar/irgl.lalrpop` at the workspace root.

fn main() {
    let grammar_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../grammar");
    println!("cargo:rerun-if-changed={grammar_dir}/irgl.lalrpop");
    lalrpop::Configuration::new()
        .set_in_dir(grammar_dir)
        .set_out_dir(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"))
        .emit_rerun_directives(true)
        .process()
        .expect("the IrGL grammar must build");
}
