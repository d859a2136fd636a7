// Parses and validates an AsyncAPI document with @asyncapi/parser (run by `cargo xtask test`).
// Prints every diagnostic; exits 1 on any error or warning (information such as "3.1.0 exists" passes), else prints the counts of what it resolved
// as one JSON line, so that the caller can compare them with the model.
'use strict';
const { Parser, fromFile } = require('@asyncapi/parser');

const SEVERITY = ['error', 'warning', 'information', 'hint'];

async function main() {
  const path = process.argv[2];
  if (!path) {
    console.error('usage: node asyncapi-parse.cjs <asyncapi.yaml>');
    process.exit(2);
  }
  const { document, diagnostics } = await fromFile(new Parser(), path).parse();
  let failed = document === undefined;
  for (const d of diagnostics) {
    const severity = SEVERITY[d.severity] ?? String(d.severity);
    if (d.severity <= 1) {
      failed = true;
    }
    const at = d.path && d.path.length ? ` at #/${d.path.join('/')}` : '';
    console.error(`${severity} ${d.code}: ${d.message}${at}`);
  }
  if (failed) {
    console.error(`${path}: @asyncapi/parser found problems`);
    process.exit(1);
  }
  console.log(JSON.stringify({
    version: document.version(),
    channels: document.allChannels().length,
    operations: document.allOperations().length,
    messages: document.allMessages().length,
  }));
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
