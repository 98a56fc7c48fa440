/**
 * `npm run config:generate`: writes the files generated from the configuration schema
 * (config-files.ts says which) and names each one it changed.
 *
 * Reads the schema and the chart's values.schema.json; writes config/default.yaml and the
 * `config` part of values.schema.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedFiles } from './config-files';

const root = path.resolve(__dirname, '../..');
for (const file of generatedFiles(root)) {
  const target = path.join(root, file.path);
  if (readFileSync(target, 'utf8') === file.content) continue;
  writeFileSync(target, file.content);
  console.log(`wrote ${file.path}`);
}
