// Validates schema files as an editor does (run by `cargo xtask test`): yaml-language-server, the YAML
// language server of VS Code and other editors, finds each file's JSON Schema through the modeline on its
// first line (`# yaml-language-server: $schema=…`) and reports what it reports while the author types.
//
// usage: node yaml-language-server-check.cjs <schema folder>
//
// Prints every diagnostic (file:line: message); exits 1 when there is one. Prints one JSON line of counts.
'use strict';
const fs = require('fs');
const path = require('path');
const { pathToFileURL, fileURLToPath } = require('url');
const { getLanguageService } = require('yaml-language-server');
const { TextDocument } = require('vscode-languageserver-textdocument');

function yamlFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(full);
    return entry.name.endsWith('.yaml') ? [full] : [];
  });
}

async function main() {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node yaml-language-server-check.cjs <schema folder>');
    process.exit(2);
  }
  const service = getLanguageService({
    // Schemas are local files; nothing is fetched.
    schemaRequestService: async (uri) => fs.readFileSync(fileURLToPath(uri), 'utf8'),
    workspaceContext: { resolveRelativePath: (relative, resource) => new URL(relative, resource).toString() },
  });
  service.configure({ validate: true, completion: true, hover: true, schemas: [], yamlVersion: '1.2' });
  const files = yamlFiles(dir).sort();
  let problems = 0;
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const document = TextDocument.create(pathToFileURL(file).toString(), 'yaml', 1, text);
    for (const d of await service.doValidation(document, false)) {
      problems += 1;
      console.error(`${path.relative(dir, file)}:${d.range.start.line + 1}: ${d.message}`);
    }
  }
  console.log(JSON.stringify({ files: files.length, problems }));
  process.exit(problems ? 1 : 0);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
