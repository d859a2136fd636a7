//! Any bytes as schema files: the loader and checker either build a model, from which every emitter
//! produces output, or report diagnostics that render; nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Up to three files separated by 0xFF (never valid UTF-8, so never inside a file the loader accepts).
    let mut parts = data.splitn(3, |&b| b == 0xFF);
    let names = ["types.yaml", "events/fuzz.yaml", "rest.yaml"];
    let files: Vec<(&str, &[u8])> = names.iter().copied().zip(parts.by_ref()).collect();
    match energy_codegen::build_model_in_memory(&files) {
        Ok(model) => {
            if let Err(e) = energy_codegen::emit_all(&model, None) {
                panic!("a valid model must emit: {e}");
            }
        }
        Err(failure) => {
            assert!(!failure.diagnostics.is_empty());
            let _ = failure.render(false);
            let _ = failure.to_json_lines();
        }
    }
});
