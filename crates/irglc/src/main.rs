//! `irglc`: the command-line entry point (`irglc::main` in the library, so that the fuzz
//! targets and the tests can drive the same code).

fn main() -> std::process::ExitCode {
    irglc::main()
}
