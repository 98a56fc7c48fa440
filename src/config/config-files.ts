/**
 * The files generated from the configuration schema (config.schema.ts), which is the one place a
 * key, its type, limits, default and description are written: config/default.yaml (every default,
 * each description as its comment) and the `config` part of the Helm chart's values.schema.json
 * (zod's JSON Schema, secrets left out, narrowed where the chart is stricter than the gateway).
 * The chart's own keys (image, resources, services...) stay hand-written in that same file.
 *
 * Reads the chart's values.schema.json for its hand-written part; writes nothing:
 * `npm run config:generate` (generate.ts) writes, config-files.test.ts compares.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Document, isMap, isPair, isScalar, isSeq, type YAMLMap } from 'yaml';
import { z } from 'zod';
import { unwrap } from './config';
import { configSchema } from './config.schema';

export const GENERATE_COMMAND = 'npm run config:generate';

type JsonSchema = Record<string, unknown>;

/**
 * Where the chart is stricter than the gateway: a pod listens on fixed ports (port 0, a port the
 * OS picks, is for tests), and Redis credentials come from secrets.redis, never from a URL the
 * ConfigMap shows to anyone who can read it.
 */
const CHART_NARROWING: Readonly<Record<string, JsonSchema>> = {
  'server.port': { minimum: 1 },
  'server.adminPort': { minimum: 1 },
  'server.statusPort': { minimum: 1 },
  'redis.url': { pattern: '^rediss?://[^@]*$' },
};

/** Formats Helm's validator knows (draft-07); zod names others (`includes`) that it would not. */
const STANDARD_FORMATS = new Set(['date-time', 'date', 'time', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'uri-reference', 'regex']);

const LINE_WIDTH = 100;

/** The schema of every gateway key as JSON Schema (draft-07, as the chart's), secrets included. */
function gatewayJsonSchema(): JsonSchema {
  return z.toJSONSchema(configSchema, {
    target: 'draft-07',
    io: 'input',
    override: ({ zodSchema, jsonSchema }) => {
      // `z.url({ protocol })` becomes `format: uri` alone; the scheme is part of the contract.
      const def = zodSchema._zod.def as { format?: string; protocol?: RegExp };
      if (def.format === 'url' && def.protocol && jsonSchema.pattern === undefined) {
        jsonSchema.pattern = `^(${def.protocol.source.replace(/^\^|\$$/g, '')})://`;
      }
    },
  }) as JsonSchema;
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Drops secret keys and what the chart's validator does not need or know. */
function tidy(node: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === '$schema' || keyword === 'secret') continue;
    if ((keyword === 'maximum' || keyword === 'minimum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER) continue;
    if (keyword === 'format' && !STANDARD_FORMATS.has(value as string)) continue;
    if (keyword === 'default' && isObject(value)) continue;
    if (keyword === 'properties' && isObject(value)) {
      const kept = Object.entries(value).filter(([, child]) => !(isObject(child) && child.secret === true));
      out.properties = Object.fromEntries(kept.map(([key, child]) => [key, tidy(child as JsonSchema)]));
    } else if (Array.isArray(value)) {
      out[keyword] = value.map((item) => (isObject(item) ? tidy(item) : item));
    } else {
      out[keyword] = isObject(value) ? tidy(value) : value;
    }
  }
  return nullableAsType(out);
}

/**
 * `anyOf: [{type: string, ...}, {type: null}]` as `type: [string, null]`: the same values (the
 * string keywords ignore null), and Helm then names the keyword that failed, not just "anyOf".
 */
function nullableAsType(node: JsonSchema): JsonSchema {
  const branches = node.anyOf as JsonSchema[] | undefined;
  if (branches?.length !== 2) return node;
  const nullIndex = branches.findIndex((branch) => branch.type === 'null' && Object.keys(branch).length === 1);
  const other = branches[1 - nullIndex];
  if (nullIndex < 0 || typeof other?.type !== 'string') return node;
  const { anyOf: _anyOf, ...rest } = node;
  return { ...rest, ...other, type: [other.type, 'null'] };
}

function narrow(config: JsonSchema): void {
  for (const [keyPath, extra] of Object.entries(CHART_NARROWING)) {
    let node: JsonSchema | undefined = config;
    for (const key of keyPath.split('.')) node = (node?.properties as Record<string, JsonSchema> | undefined)?.[key];
    if (!node) throw new Error(`CHART_NARROWING names ${keyPath}, which the config schema lacks`);
    Object.assign(node, extra);
  }
}

/** The `config` part of the chart's values.schema.json. */
export function chartConfigSchema(): JsonSchema {
  const config = tidy(gatewayJsonSchema());
  narrow(config);
  return {
    $comment: `Generated from src/config/config.schema.ts by \`${GENERATE_COMMAND}\`: edit the schema, not this part`,
    description: 'The gateway configuration (config/default.yaml); secrets come from `secrets`',
    ...config,
  };
}

/** values.schema.json: its hand-written chart keys as they are, `config` generated. */
function renderChartSchema(current: string): string {
  const chart = JSON.parse(current) as { properties: JsonSchema };
  chart.properties.config = chartConfigSchema();
  return `${JSON.stringify(chart, null, 2)}\n`;
}

/** Config keys the schema marks secret (`.meta({ secret: true })`): never in a committed file. */
export function secretKeys(): string[] {
  const found: string[] = [];
  const walk = (schema: z.ZodType, at: string[]): void => {
    if (schema.meta()?.secret === true) found.push(at.join('.'));
    const inner = unwrap(schema);
    if (inner instanceof z.ZodObject) for (const [key, child] of Object.entries(inner.shape)) walk(child as z.ZodType, [...at, key]);
  };
  walk(configSchema, []);
  return found;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  return line === '' ? lines : [...lines, line];
}

/** Puts each key's description above it, and lists of small objects on one line each. */
function annotate(map: YAMLMap, schema: z.ZodType, depth: number): void {
  const shape = (unwrap(schema) as z.ZodObject).shape as Record<string, z.ZodType>;
  for (const pair of map.items) {
    if (!isPair(pair) || !isScalar(pair.key)) continue;
    const child = shape[String(pair.key.value)] as z.ZodType;
    const indent = depth * 2;
    if (child.description)
      pair.key.commentBefore = wrap(child.description, LINE_WIDTH - indent - 2)
        .map((line) => ` ${line}`)
        .join('\n');
    if (depth === 0 && pair !== map.items[0]) pair.key.spaceBefore = true;
    if (isMap(pair.value)) annotate(pair.value, child, depth + 1);
    if (isSeq(pair.value)) for (const item of pair.value.items) if (isMap(item)) item.flow = true;
  }
}

const DEFAULT_YAML_HEADER = [
  ' Core Banking Gateway: the default configuration, generated from src/config/config.schema.ts',
  ` by \`${GENERATE_COMMAND}\`: edit the schema (types, defaults, descriptions), not this file.`,
  ' Override per environment with config/<NODE_ENV>.yaml, the contract variables (PORT,',
  ' ADMIN_PORT, STATUS_PORT, SANDBOX_PORT, REDIS_URL, CORE_URL, ACCESS_FILE, ADMIN_TOKEN,',
  ' ADMIN_OIDC_CLIENT_SECRET,',
  ' LOG_LEVEL) or GATEWAY__<section>__<key>=<yaml scalar> for any other key.',
].join('\n');

/** config/default.yaml: every default, each with its description. */
export function renderDefaultYaml(): string {
  // Written as YAML 1.1 would read it too ('off' quoted), though the gateway reads YAML 1.2.
  const document = new Document(configSchema.parse({}), { aliasDuplicateObjects: false, version: '1.1' });
  document.commentBefore = DEFAULT_YAML_HEADER;
  annotate(document.contents as YAMLMap, configSchema, 0);
  return document.toString({ lineWidth: 0 });
}

interface GeneratedFile {
  /** Relative to the repository root. */
  readonly path: string;
  readonly content: string;
}

/** Every generated file with the content the schema gives it now. */
export function generatedFiles(root: string): GeneratedFile[] {
  const chartSchema = 'helm/core-banking-gateway/values.schema.json';
  return [
    { path: 'config/default.yaml', content: renderDefaultYaml() },
    { path: chartSchema, content: renderChartSchema(readFileSync(path.join(root, chartSchema), 'utf8')) },
  ];
}
