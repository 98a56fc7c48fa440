/**
 * Loads the configuration once at start-up: config/default.yaml, then config/<NODE_ENV>.yaml
 * when it exists, then the contract variables (PORT, ADMIN_PORT, STATUS_PORT, SANDBOX_PORT,
 * REDIS_URL, CORE_URL, ACCESS_FILE, ADMIN_TOKEN, ADMIN_OIDC_CLIENT_SECRET, LOG_LEVEL), ADMIN_HOST and OpenTelemetry's
 * OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME, then `GATEWAY__<section>__<key>`
 * variables for any other key, then the caller's overrides (tests).
 *
 * Reads the config directory and the environment it is given; returns a deeply frozen,
 * validated config, or throws ConfigError naming every bad key.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { StartupError } from '../errors/startup-error';
import { configSchema, type ConfigInput, type GatewayConfig } from './config.schema';

/** A start-up failure (exit 2): the message names every bad key at once. */
export class ConfigError extends StartupError {
  override readonly name = 'ConfigError';

  constructor(message: string) {
    super('config', message);
  }
}

/** Contract variables (README "Ports and variables") and the key each one sets. */
const CONTRACT_VARIABLES: ReadonlyArray<readonly [string, readonly string[], 'int' | 'string']> = [
  ['PORT', ['server', 'port'], 'int'],
  ['ADMIN_PORT', ['server', 'adminPort'], 'int'],
  ['ADMIN_HOST', ['server', 'adminHost'], 'string'],
  ['STATUS_PORT', ['server', 'statusPort'], 'int'],
  ['SANDBOX_PORT', ['sandbox', 'port'], 'int'],
  ['REDIS_URL', ['redis', 'url'], 'string'],
  ['CORE_URL', ['core', 'url'], 'string'],
  ['ACCESS_FILE', ['access', 'file'], 'string'],
  ['ADMIN_TOKEN', ['admin', 'token'], 'string'],
  ['ADMIN_OIDC_CLIENT_SECRET', ['admin', 'oidc', 'clientSecret'], 'string'],
  ['LOG_LEVEL', ['log', 'level'], 'string'],
  // OpenTelemetry's standard variables, so a collector is configured as for any other service.
  ['OTEL_EXPORTER_OTLP_ENDPOINT', ['tracing', 'endpoint'], 'string'],
  ['OTEL_SERVICE_NAME', ['tracing', 'serviceName'], 'string'],
];

const GENERIC_PREFIX = 'GATEWAY__';

interface LoadConfigOptions {
  /** Directory holding default.yaml and <NODE_ENV>.yaml. */
  configDir?: string;
  env?: NodeJS.ProcessEnv;
  overrides?: ConfigInput;
}

export function loadConfig(options: LoadConfigOptions = {}): Readonly<GatewayConfig> {
  const env = options.env ?? process.env;
  const configDir = options.configDir ?? path.resolve(__dirname, '../../config');
  let merged: Record<string, unknown> = {};
  merged = deepMerge(merged, readYaml(path.join(configDir, 'default.yaml'), true));
  if (env.NODE_ENV) merged = deepMerge(merged, readYaml(path.join(configDir, `${env.NODE_ENV}.yaml`), false));
  merged = deepMerge(merged, envOverrides(env));
  if (options.overrides) merged = deepMerge(merged, options.overrides as Record<string, unknown>);
  return validateConfig(merged);
}

function validateConfig(input: unknown): Readonly<GatewayConfig> {
  const result = configSchema.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const key = issue.path.join('.') || '(root)';
      const unknownKeys = issue.code === 'unrecognized_keys' ? `: ${issue.keys.join(', ')}` : '';
      return `  ${key}: ${issue.message}${unknownKeys}`;
    });
    throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
  }
  return deepFreeze(result.data);
}

function readYaml(file: string, required: boolean): Record<string, unknown> {
  if (!existsSync(file)) {
    if (required) throw new ConfigError(`configuration file ${file} is missing`);
    return {};
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`${file}: ${(err as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`${file}: top level must be a mapping`);
  return parsed as Record<string, unknown>;
}

function envOverrides(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, keyPath, type] of CONTRACT_VARIABLES) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    setPath(out, keyPath, type === 'int' ? intOrRaw(raw) : raw);
  }
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(GENERIC_PREFIX) || raw === undefined) continue;
    const keyPath = name.slice(GENERIC_PREFIX.length).split('__');
    // Text keys take the text as it is (a password "123456" or "@x" stays a string); any other
    // key takes a YAML scalar, so that numbers, booleans, null and lists arrive typed.
    setPath(out, keyPath, expectsText(keyPath) ? unquoted(raw) : parseYamlOrRaw(raw));
  }
  return out;
}

/** A quoted scalar (as charts write every value) loses its quotes; any other text is kept whole. */
function unquoted(raw: string): string {
  const quoted = /^(".*"|'.*')$/s.test(raw);
  const value = quoted ? parseYamlOrRaw(raw) : raw;
  return typeof value === 'string' ? value : raw;
}

function parseYamlOrRaw(raw: string): unknown {
  try {
    return parseYaml(raw) as unknown;
  } catch {
    return raw;
  }
}

/** Peels defaults, prefaults, optionals and nullables off a schema. */
export function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (current instanceof z.ZodDefault || current instanceof z.ZodPrefault || current instanceof z.ZodOptional || current instanceof z.ZodNullable) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/** True when the schema types the key at `keyPath` as text (or text-or-null). */
function expectsText(keyPath: readonly string[]): boolean {
  let node = unwrap(configSchema);
  for (const key of keyPath) node = node instanceof z.ZodObject ? unwrap(node.shape[key] as z.ZodType) : undefined;
  return node instanceof z.ZodString || (node instanceof z.ZodUnion && node.options.some((option) => unwrap(option as z.ZodType) instanceof z.ZodString));
}

function intOrRaw(raw: string): number | string {
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

function setPath(target: Record<string, unknown>, keyPath: readonly string[], value: unknown): void {
  let node = target;
  keyPath.forEach((key, i) => {
    if (i === keyPath.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    node = (typeof next === 'object' && next !== null ? next : (node[key] = {})) as Record<string, unknown>;
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function deepMerge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
