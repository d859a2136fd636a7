//! The documents' consumers, a step of `cargo xtask test`: the code generators other teams feed the
//! documents to, run as those teams would, with their output used on real data.
//!
//! - `openapi-typescript` on `openapi.yaml`; `tsc --strict` then type-checks every real response of
//!   `tests/fixtures/real-responses/` against the response type of its endpoint;
//! - `datamodel-code-generator` on `openapi.yaml`; pydantic then parses every real response with the
//!   model of its endpoint's response, and a model that keeps members it does not list must keep them;
//! - `datamodel-code-generator` on the folder `schemas/`, which must define each type once; pydantic then
//!   parses every message example of `asyncapi.yaml` with the model of its payload file;
//! - Modelina (`@asyncapi/modelina`, TypeScript) on `asyncapi.yaml`, which must name every model (no
//!   anonymous model, unions named by their channel key); `tsc --strict` then type-checks every message
//!   example against the model of its payload and the union of its channel;
//! - `yaml-language-server`, the YAML language server of editors, on `schema/*.yaml`: through the
//!   modeline of each file and the schema format's JSON Schemas, it must find nothing to report.
//!
//! A generator that warns about a document fails the step, and so does output with the defects the
//! documents are written to avoid (untyped or optional `results`, `Record<string, never>`). Each check
//! also runs on a broken copy of its input, in which one number field that the data carries is retyped
//! `boolean`, and must fail there, in its type check: a check that cannot fail proves nothing.

use crate::files;
use crate::tools::{Job, Tools, clip, output_text, run_two_at_a_time, run_with_timeout};
use energy_codegen::Model;
use energy_codegen::Type;
use energy_codegen::emit::{asyncapi, component_name, jsonschema, openapi};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// How long one generator or compiler run may take.
const LIMIT: Duration = Duration::from_secs(300);

/// Which endpoint each real response answers, by the start of its file name (see the fixtures'
/// `PROVENANCE.md`; day unit rates have the shape of standard unit rates). A file that matches none
/// fails the step, so that a new fixture is not silently left out.
const REAL_RESPONSES: &[(&str, &str)] = &[
    ("products_list_", "list_products"),
    ("product_detail_", "get_product"),
    ("standard_unit_rates_", "list_standard_unit_rates"),
    ("day_unit_rates_", "list_standard_unit_rates"),
    ("account_", "get_account"),
];

/// The `tsconfig.json` of every TypeScript check: strict, type-checking only.
const TSCONFIG: &str = r#"{
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "target": "es2022",
    "module": "esnext",
    "moduleResolution": "bundler",
    "resolveJsonModule": true,
    "skipLibCheck": true,
    "types": []
  },
  "include": ["*.ts"]
}
"#;

/// What the checks feed the tools: the documents and the schema folder (or their broken copies).
struct Inputs {
    openapi: PathBuf,
    asyncapi: PathBuf,
    schemas: PathBuf,
    schema_dir: PathBuf,
}

/// One real response: its file name, its JSON, the endpoint and the component name of its response.
struct RealResponse {
    file: String,
    text: String,
    operation: String,
    schema: String,
}

/// What every check knows of the model and the data.
struct Context {
    tools: Tools,
    responses: Vec<RealResponse>,
    /// Each paginated response's record list, as generators must type it: (page, field, record).
    pages: Vec<(String, String, String)>,
    /// The component schemas of `openapi.yaml`.
    schema_names: Vec<String>,
    /// Every message example of `asyncapi.yaml`: message id, its payload's file under `schemas/`, payload.
    examples: Vec<(String, String, Value)>,
}

/// Runs every consumer on the documents and on their broken copies.
pub(crate) fn run(root: &Path) -> Result<(), String> {
    let model = energy_codegen::build_model(&root.join("schema"))
        .map_err(|f| format!("the schema does not load:\n{}", f.render(false)))?;
    let tools = Tools::install(root)?;
    let generated = root.join("generated");
    let real = Inputs {
        openapi: generated.join(openapi::PATH),
        asyncapi: generated.join(asyncapi::PATH),
        schemas: generated.join("schemas"),
        schema_dir: root.join("schema"),
    };
    let work = root.join("target/consumers");
    let _ = std::fs::remove_dir_all(&work);
    let broken = broken_inputs(&real, &work.join("broken-inputs"))?;
    let context = Arc::new(Context {
        tools,
        responses: real_responses(root, &model)?,
        pages: pages(&model),
        schema_names: schema_names(&model),
        examples: message_examples(&model, &real.asyncapi)?,
    });
    let real = Arc::new(real);
    let broken = Arc::new(broken);

    type Consumer = fn(&Context, &Inputs, &Path) -> Result<String, String>;
    let consumers: [(&str, Consumer, &str); 5] = [
        (
            "openapi-typescript + tsc --strict (real responses)",
            openapi_typescript,
            "is not assignable to type 'boolean'",
        ),
        (
            "datamodel-code-generator on openapi.yaml + pydantic (real responses)",
            datamodel_openapi,
            "valid boolean",
        ),
        (
            "datamodel-code-generator on schemas/ + pydantic (message examples)",
            datamodel_schemas,
            "valid boolean",
        ),
        (
            "Modelina TypeScript + tsc --strict (message examples)",
            modelina_typescript,
            "is not assignable to type 'boolean'",
        ),
        (
            "yaml-language-server on schema/ (an editor)",
            yaml_language_server,
            "is not allowed",
        ),
    ];
    let mut jobs: Vec<Job> = Vec::new();
    for (index, (name, consumer, broken_evidence)) in consumers.into_iter().enumerate() {
        for is_broken in [false, true] {
            let context = Arc::clone(&context);
            let inputs = Arc::clone(if is_broken { &broken } else { &real });
            let dir = work.join(format!(
                "{index}-{}",
                if is_broken { "broken" } else { "ok" }
            ));
            let label = format!("{name}{}", if is_broken { " (broken copy)" } else { "" });
            jobs.push((
                label,
                Box::new(move || {
                    let result = consumer(&context, &inputs, &dir);
                    match (is_broken, result) {
                        (false, Ok(summary)) => Ok(summary),
                        (false, Err(e)) => Err(e),
                        (true, Err(e)) if e.contains(broken_evidence) => {
                            Ok(format!("fails as it must (`{broken_evidence}`)"))
                        }
                        (true, Err(e)) => Err(format!(
                            "failed on the broken copy, but not in its type check \
                             (no `{broken_evidence}`):\n{e}"
                        )),
                        (true, Ok(summary)) => Err(format!(
                            "passed a copy with a field retyped `boolean`: it checks nothing ({summary})"
                        )),
                    }
                }),
            ));
        }
    }
    let failures = run_two_at_a_time(jobs);
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n"))
    }
}

fn openapi_typescript(context: &Context, inputs: &Inputs, dir: &Path) -> Result<String, String> {
    files::create_dir(dir)?;
    let types = dir.join("openapi.ts");
    let mut generate = context.tools.npm_bin("openapi-typescript");
    generate.arg(&inputs.openapi).arg("-o").arg(&types);
    run_quietly(generate, "openapi-typescript")?;
    let text = files::read_text(&types)?;
    // The defects of the generic envelope and of free-form objects without `additionalProperties`.
    let mut defects: Vec<String> = ["unknown[]", "results?:"]
        .iter()
        .filter(|d| text.contains(*d))
        .map(|d| format!("the generated types contain `{d}`"))
        .collect();
    for name in &context.schema_names {
        let closed = format!(" {name}: Record<string, never>;");
        if text.contains(&closed) {
            defects.push(format!(
                "`{}`: an object that can hold nothing",
                closed.trim()
            ));
        }
    }
    for (page, field, record) in &context.pages {
        let typed = format!("{field}: components[\"schemas\"][\"{record}\"][];");
        if !text.contains(&typed) {
            defects.push(format!("{page}: no required, typed `{typed}`"));
        }
    }
    if !defects.is_empty() {
        return Err(defects.join("\n"));
    }
    let mut check = vec![
        "// Every real response, as a value of its endpoint's response type.".to_owned(),
        "import type { operations } from './openapi';".to_owned(),
        "type Body<Op extends keyof operations> =".to_owned(),
        "  operations[Op]['responses'][200]['content']['application/json'];".to_owned(),
    ];
    files::create_dir(&dir.join("responses"))?;
    for (i, r) in context.responses.iter().enumerate() {
        files::write(&dir.join("responses").join(&r.file), &r.text)?;
        check.push(format!(
            "import response_{i} from './responses/{}';",
            r.file
        ));
        check.push(format!(
            "export const typed_{i}: Body<'{}'> = response_{i};",
            r.operation
        ));
    }
    files::write(&dir.join("responses.ts"), &(check.join("\n") + "\n"))?;
    files::write(&dir.join("tsconfig.json"), TSCONFIG)?;
    compile(context, dir)?;
    Ok(format!(
        "{} real responses type-check against the generated types",
        context.responses.len()
    ))
}

fn datamodel_openapi(context: &Context, inputs: &Inputs, dir: &Path) -> Result<String, String> {
    let package = dir.join("rest");
    files::create_dir(&package)?;
    datamodel_codegen(
        context,
        &inputs.openapi,
        "openapi",
        &package.join("models.py"),
    )?;
    let text = files::read_text(&package.join("models.py"))?;
    let mut defects = Vec::new();
    for (page, field, record) in &context.pages {
        let typed = format!("{field}: list[{record}]");
        if !text.contains(&typed) {
            defects.push(format!("{page}: no `{typed}`"));
        }
    }
    if !defects.is_empty() {
        return Err(defects.join("\n"));
    }
    let cases: Vec<Value> = context
        .responses
        .iter()
        .map(|r| {
            let value: Value = serde_json::from_str(&r.text).unwrap_or(Value::Null);
            json!({"name": r.file, "module": "rest.models", "class": r.schema, "value": value})
        })
        .collect();
    let counts = parse_payloads(context, &package, &cases, dir)?;
    Ok(format!("real responses parsed: {counts}"))
}

fn datamodel_schemas(context: &Context, inputs: &Inputs, dir: &Path) -> Result<String, String> {
    let package = dir.join("payloads");
    files::create_dir(dir)?;
    datamodel_codegen(context, &inputs.schemas, "jsonschema", &package)?;
    let cases: Vec<Value> = context
        .examples
        .iter()
        .map(|(id, file, payload)| json!({"name": id, "file": file, "value": payload}))
        .collect();
    let counts = parse_payloads(context, &package, &cases, dir)?;
    Ok(format!("message examples parsed: {counts}"))
}

fn modelina_typescript(context: &Context, inputs: &Inputs, dir: &Path) -> Result<String, String> {
    let mut generate = context.tools.node_script("modelina-typescript.cjs");
    generate.arg(&inputs.asyncapi).arg(dir);
    let output = run_with_timeout(generate, LIMIT)?;
    if !output.status.success() {
        return Err(format!(
            "Modelina ({}):\n{}",
            output.status,
            clip(&output_text(&output))
        ));
    }
    let counts = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    files::write(&dir.join("tsconfig.json"), TSCONFIG)?;
    compile(context, dir)?;
    Ok(format!("models and examples compiled: {counts}"))
}

fn yaml_language_server(context: &Context, inputs: &Inputs, _dir: &Path) -> Result<String, String> {
    let mut check = context.tools.node_script("yaml-language-server-check.cjs");
    check.arg(&inputs.schema_dir);
    let output = run_with_timeout(check, LIMIT)?;
    if !output.status.success() {
        return Err(format!(
            "yaml-language-server ({}):\n{}",
            output.status,
            clip(&output_text(&output))
        ));
    }
    Ok(format!(
        "schema files without a problem: {}",
        String::from_utf8_lossy(&output.stdout).trim()
    ))
}

/// `datamodel-codegen` from `input` to `output` (a file, or a package folder for a folder of schemas),
/// pydantic v2 models, no timestamp, the formatter built in (no black or isort involved).
fn datamodel_codegen(
    context: &Context,
    input: &Path,
    input_type: &str,
    output: &Path,
) -> Result<(), String> {
    let mut command = context.tools.venv_bin("datamodel-codegen");
    command
        .arg("--input")
        .arg(input)
        .args(["--input-file-type", input_type, "--output"])
        .arg(output)
        .args([
            "--output-model-type",
            "pydantic_v2.BaseModel",
            "--formatters",
            "builtin",
            "--disable-timestamp",
        ]);
    run_quietly(command, "datamodel-codegen")
}

/// `parse_payloads.py` on `cases` with the models of `package`; gives its counts.
fn parse_payloads(
    context: &Context,
    package: &Path,
    cases: &[Value],
    dir: &Path,
) -> Result<String, String> {
    let cases_file = dir.join("cases.json");
    files::write(&cases_file, &Value::Array(cases.to_vec()).to_string())?;
    let mut parse = context.tools.venv_bin("python");
    parse
        .arg(context.tools.script("parse_payloads.py"))
        .arg(package)
        .arg(&cases_file);
    let output = run_with_timeout(parse, LIMIT)?;
    if !output.status.success() {
        return Err(format!(
            "pydantic ({}):\n{}",
            output.status,
            clip(&output_text(&output))
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// `tsc -p` of the folder's `tsconfig.json`.
fn compile(context: &Context, dir: &Path) -> Result<(), String> {
    let mut tsc = context.tools.npm_bin("tsc");
    tsc.arg("-p").arg(dir.join("tsconfig.json"));
    let output = run_with_timeout(tsc, LIMIT)?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "tsc --strict ({}):\n{}",
            output.status,
            clip(&output_text(&output))
        ))
    }
}

/// Runs a generator, which must succeed without a warning or an error in its output.
fn run_quietly(command: Command, what: &str) -> Result<(), String> {
    let output = run_with_timeout(command, LIMIT)?;
    let text = output_text(&output);
    let lower = text.to_lowercase();
    if !output.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{}",
            output.status,
            clip(&text)
        ));
    }
    if lower.contains("warn") || lower.contains("error") || text.contains('⚠') {
        return Err(format!("{what} reports problems:\n{}", clip(&text)));
    }
    Ok(())
}

/// Every real response with its endpoint, by the table [`REAL_RESPONSES`].
fn real_responses(root: &Path, model: &Model) -> Result<Vec<RealResponse>, String> {
    let rest = model.rest.as_ref().ok_or("the schema has no REST API")?;
    let dir = root.join("tests/fixtures/real-responses");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    files.sort();
    let mut responses = Vec::new();
    for file in files {
        let operation = REAL_RESPONSES
            .iter()
            .find(|(prefix, _)| file.starts_with(prefix))
            .map(|(_, op)| *op)
            .ok_or_else(|| format!("{file}: which endpoint's response it is is not known here"))?;
        let endpoint = rest
            .endpoints
            .iter()
            .find(|e| e.name == operation)
            .ok_or_else(|| format!("no endpoint `{operation}` in the schema"))?;
        let Type::Named(response) = &endpoint.response else {
            return Err(format!("`{operation}` does not respond with a resource"));
        };
        responses.push(RealResponse {
            text: files::read_text(&dir.join(&file))?,
            file,
            operation: operation.to_owned(),
            schema: component_name(response),
        });
    }
    Ok(responses)
}

/// Each generic resource applied in a response, with its fields of the type parameter's records:
/// (`ProductPage`, `results`, `Product`).
fn pages(model: &Model) -> Vec<(String, String, String)> {
    let Some(rest) = &model.rest else {
        return Vec::new();
    };
    let mut pages = Vec::new();
    for e in &rest.endpoints {
        let Type::Named(applied) = &e.response else {
            continue;
        };
        let (Some(arg), Some(generic)) = (
            applied.arg.as_deref(),
            rest.resources.iter().find(|r| r.name == applied.name),
        ) else {
            continue;
        };
        let Type::Named(record) = arg else { continue };
        for f in &generic.fields {
            if let Type::Array(item) = &f.ty
                && matches!(**item, Type::Param(_))
            {
                pages.push((component_name(applied), f.name.clone(), record.name.clone()));
            }
        }
    }
    pages
}

/// The component schemas of the OpenAPI document: every resource but the generic ones, and the pages.
fn schema_names(model: &Model) -> Vec<String> {
    let resources = model.rest.iter().flat_map(|r| &r.resources);
    let mut names: Vec<String> = resources
        .filter(|r| r.generic.is_none())
        .map(|r| r.name.clone())
        .collect();
    names.extend(pages(model).into_iter().map(|(page, _, _)| page));
    names
}

/// Every message example of the AsyncAPI document, with its payload's file under `schemas/`.
fn message_examples(
    model: &Model,
    asyncapi: &Path,
) -> Result<Vec<(String, String, Value)>, String> {
    let document: Value = serde_saphyr::from_str(&files::read_text(asyncapi)?)
        .map_err(|e| format!("{}: {e}", asyncapi.display()))?;
    let mut examples = Vec::new();
    for (_, event) in model.events() {
        for v in &event.versions {
            let file = jsonschema::path(v);
            let file = file.strip_prefix("schemas/").unwrap_or(&file).to_owned();
            let message = &document["components"]["messages"][&v.id];
            for example in message["examples"].as_array().into_iter().flatten() {
                examples.push((v.id.clone(), file.clone(), example["payload"].clone()));
            }
        }
    }
    if examples.is_empty() {
        return Err(format!("{} has no message examples", asyncapi.display()));
    }
    Ok(examples)
}

/// Copies of the inputs with one number field retyped `boolean`: in `openapi.yaml` the first property
/// of type `number` of a component schema; in `asyncapi.yaml` and in the payload's file of `schemas/`,
/// the first property of type `integer` of the first message's payload that has one. The data the
/// checks use carries numbers there, so a working check must fail. The OpenAPI copy has no examples,
/// which would now contradict their schema (openapi-typescript validates them first). The copy of the
/// schema folder misspells the first key of `types.yaml`, beside a copy of the format's JSON Schemas
/// where its modeline points.
fn broken_inputs(real: &Inputs, dir: &Path) -> Result<Inputs, String> {
    files::create_dir(dir)?;
    let mut openapi_doc: Value = serde_saphyr::from_str(&files::read_text(&real.openapi)?)
        .map_err(|e| format!("{}: {e}", real.openapi.display()))?;
    let schemas = openapi_doc["components"]["schemas"]
        .as_object_mut()
        .ok_or("openapi.yaml has no component schemas")?;
    schemas
        .values_mut()
        .find_map(|s| retype_first(s, "number"))
        .ok_or("openapi.yaml has no number property to retype")?;
    remove_examples(&mut openapi_doc);

    let mut asyncapi_doc: Value = serde_saphyr::from_str(&files::read_text(&real.asyncapi)?)
        .map_err(|e| format!("{}: {e}", real.asyncapi.display()))?;
    let messages = asyncapi_doc["components"]["messages"]
        .as_object()
        .ok_or("asyncapi.yaml has no messages")?
        .clone();
    let mut target = None;
    for (id, message) in &messages {
        let Some(name) = message["payload"]["$ref"]
            .as_str()
            .and_then(|r| r.rsplit('/').next())
        else {
            continue;
        };
        let schema = &mut asyncapi_doc["components"]["schemas"][name];
        if let Some(property) = retype_first(schema, "integer") {
            target = Some((id.clone(), property));
            break;
        }
    }
    let (id, property) = target.ok_or("no message payload has an integer property to retype")?;

    let schemas_copy = dir.join("schemas");
    files::copy_dir(&real.schemas, &schemas_copy)?;
    let payload_file = schemas_copy.join("events").join(format!("{id}.json"));
    let mut file: Value = serde_json::from_str(&files::read_text(&payload_file)?)
        .map_err(|e| format!("{}: {e}", payload_file.display()))?;
    let retyped = file["properties"]
        .get_mut(&property)
        .and_then(Value::as_object_mut)
        .ok_or_else(|| format!("{}: no property `{property}`", payload_file.display()))?;
    retyped.insert("type".to_owned(), json!("boolean"));
    retyped.remove("format");
    files::write(&payload_file, &file.to_string())?;

    let schema_copy = dir.join("schema");
    files::copy_dir(&real.schema_dir, &schema_copy)?;
    let format = energy_codegen::emit::schema_format::DIR;
    let generated = real.schemas.parent().ok_or("no generated folder")?;
    files::copy_dir(&generated.join(format), &dir.join("generated").join(format))?;
    let types = schema_copy.join("types.yaml");
    let text = files::read_text(&types)?;
    let misspelt = text.replacen("\ntypes:", "\ntypse:", 1);
    if misspelt == text {
        return Err(format!("{}: no `types:` key to misspell", types.display()));
    }
    files::write(&types, &misspelt)?;

    let broken = Inputs {
        openapi: dir.join("openapi.json"),
        asyncapi: dir.join("asyncapi.json"),
        schemas: schemas_copy,
        schema_dir: schema_copy,
    };
    files::write(&broken.openapi, &openapi_doc.to_string())?;
    files::write(&broken.asyncapi, &asyncapi_doc.to_string())?;
    Ok(broken)
}

/// Retypes the first property of an object schema whose type is `ty` as `boolean` (without its number
/// format); gives its name.
fn retype_first(schema: &mut Value, ty: &str) -> Option<String> {
    let properties = schema.get_mut("properties")?.as_object_mut()?;
    let (name, property) = properties.iter_mut().find(|(_, p)| p["type"] == ty)?;
    let property = property.as_object_mut()?;
    property.insert("type".to_owned(), json!("boolean"));
    property.remove("format");
    Some(name.clone())
}

/// Removes every `example` and `examples` member of an OpenAPI document.
fn remove_examples(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("example");
            map.remove("examples");
            map.values_mut().for_each(remove_examples);
        }
        Value::Array(items) => items.iter_mut().for_each(remove_examples),
        _ => {}
    }
}
