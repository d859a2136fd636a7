//! The JSON Schema files a generator run writes, registered as a consumer's validator finds them.

use crate::fixtures::generated_dir;

/// The JSON Schema files of an output (`schemas/**/*.json`), each registered under its `$id`, so that the
/// `$ref`s between files resolve as a consumer's validator resolves them, without a network.
pub struct SchemaFiles {
    registry: jsonschema::Registry<'static>,
    id_of: fn(&str) -> String,
}

impl SchemaFiles {
    /// The files among `files` (path relative to `generated/`, contents) that are JSON Schemas, each
    /// with the `$id` that `id_of` gives its path (the generator's `emit::jsonschema::id`).
    pub fn new<'f>(
        files: impl IntoIterator<Item = (&'f String, &'f String)>,
        id_of: fn(&str) -> String,
    ) -> Self {
        let mut builder = jsonschema::Registry::new().draft(jsonschema::Draft::Draft202012);
        for (path, text) in files {
            if !(path.starts_with("schemas/") && path.ends_with(".json")) {
                continue;
            }
            let schema: serde_json::Value =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("{path}: {e}"));
            let id = id_of(path);
            assert_eq!(
                schema["$id"],
                id.as_str(),
                "{path}: its `$id` mirrors its path"
            );
            builder = builder.add(&id, schema).expect("a valid `$id`");
        }
        SchemaFiles {
            registry: builder.prepare().expect("the schema files resolve"),
            id_of,
        }
    }

    /// The checked-in files of `generated/schemas/`.
    pub fn generated(id_of: fn(&str) -> String) -> Self {
        let root = generated_dir();
        let mut files = std::collections::BTreeMap::new();
        let mut pending = vec![root.join("schemas")];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).expect("schemas folder") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    pending.push(path);
                } else {
                    let relative = path.strip_prefix(&root).expect("under generated/");
                    let relative = relative.to_string_lossy().replace('\\', "/");
                    files.insert(relative, std::fs::read_to_string(&path).expect("readable"));
                }
            }
        }
        SchemaFiles::new(&files, id_of)
    }

    /// A validator of the file at `path` (relative to `generated/`), with formats asserted.
    pub fn validator(&self, path: &str) -> jsonschema::Validator {
        let id = (self.id_of)(path);
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .with_registry(&self.registry)
            .build(&serde_json::json!({ "$ref": id }))
            .unwrap_or_else(|e| panic!("{path} does not compile: {e}"))
    }
}
