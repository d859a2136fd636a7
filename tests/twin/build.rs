//! Writes the derived twin of `energy-api` from the real schema, with the generator itself
//! (`energy_codegen::emit::derived_twin`), so that it is made from the same model as the crate it
//! mirrors and can never be stale.
#![forbid(unsafe_code)]

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let schema = manifest.join("..").join("..").join("schema");
    println!("cargo::rerun-if-changed={}", schema.display());
    let model = match energy_codegen::build_model(&schema) {
        Ok(model) => model,
        Err(failure) => panic!("the schema does not build:\n{}", failure.render(false)),
    };
    let text = energy_codegen::emit::derived_twin(&model).unwrap_or_else(|bug| panic!("{bug}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo")).join("twin.rs");
    if let Err(e) = std::fs::write(&out, text) {
        panic!("cannot write {}: {e}", out.display());
    }
}
