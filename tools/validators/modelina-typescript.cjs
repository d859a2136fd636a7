// Generates TypeScript models of an AsyncAPI document with Modelina (@asyncapi/modelina, the AsyncAPI
// model generator behind `asyncapi generate models`), as a team consuming the events would, and writes
// `examples.ts`, which gives every message's example payload the model of its payload and of its channel's
// union (run by `cargo xtask test`, which then compiles the folder with `tsc --strict`).
//
// usage: node modelina-typescript.cjs <asyncapi document> <output folder>
//
// Interfaces keep the payloads' JSON member names (`rawPropertyNames`), so that a payload as sent is a
// value of its model. Fails when a model is anonymous (`AnonymousSchema_…`), is named after a channel's
// address rather than the name given to it (`…Dot…`, `…Minus…`), or is missing: a payload without its
// model, or an event type with several payload versions without a union named by its channel key.
// Prints one JSON line of counts.
'use strict';
const fs = require('fs');
const path = require('path');
const { Logger, TypeScriptFileGenerator } = require('@asyncapi/modelina');
const { Parser, fromFile } = require('@asyncapi/parser');

async function main() {
  const [doc, out] = process.argv.slice(2);
  if (!doc || !out) {
    console.error('usage: node modelina-typescript.cjs <asyncapi document> <output folder>');
    process.exit(2);
  }
  const { document, diagnostics } = await fromFile(new Parser(), doc).parse();
  if (!document) {
    for (const d of diagnostics) console.error(`${d.code}: ${d.message}`);
    process.exit(1);
  }
  // Anything Modelina warns about (two models given one name, a schema it cannot render) fails the run.
  const failures = [];
  const report = (...args) => failures.push(`Modelina: ${args.join(' ')}`);
  Logger.setLogger({ debug() {}, info() {}, warn: report, error: report });
  fs.rmSync(out, { recursive: true, force: true });
  const generator = new TypeScriptFileGenerator({
    modelType: 'interface',
    rawPropertyNames: true,
    mapType: 'record',
  });
  const models = await generator.generateToFiles(document, out, { exportType: 'named' }, true);

  // The model of each schema, by the schema's component key (unions: by their channel key).
  const modelOf = new Map();
  for (const m of models) {
    const input = m.model.originalInput || {};
    const key = input['x-parser-schema-id'] || input.$id;
    if (key) modelOf.set(key, m.modelName);
    if (/AnonymousSchema|Dot|Minus/.test(m.modelName)) {
      failures.push(`model ${m.modelName}: anonymous, or named after an address`);
    }
  }

  const lines = ["// Every message's example payload as a value of its model (and of its channel's union)."];
  const imports = new Set();
  let examples = 0;
  let unions = 0;
  for (const channel of document.channels()) {
    const messages = channel.messages().all();
    const union = messages.length > 1 ? modelOf.get(channel.id()) : undefined;
    if (messages.length > 1) {
      if (union === undefined) failures.push(`channel ${channel.id()}: no union model of its ${messages.length} payloads`);
      else unions += 1;
    }
    for (const message of messages) {
      const payload = message.payload();
      const model = payload && modelOf.get(payload.id());
      if (model === undefined) {
        failures.push(`message ${message.id()}: no model of its payload ${payload && payload.id()}`);
        continue;
      }
      imports.add(model);
      if (union !== undefined) imports.add(union);
      const all = message.examples().all();
      if (all.length === 0) failures.push(`message ${message.id()}: no example`);
      all.forEach((example, i) => {
        const name = `example_${examples++}`;
        lines.push(`// ${message.id()} example ${i + 1}`);
        lines.push(`export const ${name}: ${model} = ${JSON.stringify(example.payload())};`);
        if (union !== undefined) lines.push(`export const ${name}_union: ${union} = ${name};`);
      });
    }
  }
  const header = [...imports].sort().map((m) => `import { ${m} } from './${m}';`);
  fs.writeFileSync(path.join(out, 'examples.ts'), [...header, ...lines, ''].join('\n'));

  for (const failure of failures) console.error(failure);
  console.log(JSON.stringify({ models: models.length, unions, examples }));
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
