/**
 * A stand-in for `helm template` inside jest (the real Helm runs in chart-check.ts): no maintained JavaScript
 * implementation of Go templates with Helm's functions exists on npm, so each template is made
 * into YAML by substitution, and that YAML is parsed. Control lines (if, else, range, with, end,
 * variable assignments) are dropped, so every branch is kept; `.Values` references, `default`,
 * `quote`, `required`, `toYaml | nindent` and `.Files.Get [| replace "old" new] | nindent` are evaluated with the
 * example values; anything else (includes, helpers, range variables) becomes a unique
 * placeholder. What this proves: each template is well-formed YAML with the example values,
 * and every value it reads exists. What it cannot: the real output of conditions and loops.
 *
 * Reads the chart directory; writes nothing.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';

export const CHART_DIR = path.resolve(__dirname, '../../helm/core-banking-gateway');

export type Values = Record<string, unknown>;

export function readYamlFile(file: string): Values {
  return (parseAllDocuments(readFileSync(file, 'utf8'))[0]?.toJS() ?? {}) as Values;
}

export function templateFiles(): string[] {
  return readdirSync(path.join(CHART_DIR, 'templates'))
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => path.join(CHART_DIR, 'templates', name));
}

/** Every `.Values.a.b` path a template reads, as ['a', 'b']. */
export function valueReferences(text: string): string[][] {
  return [...text.matchAll(/\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((m) => (m[1] as string).slice(1).split('.'));
}

export function deepMerge(base: Values, extra: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = out[key];
    const bothMaps = [current, value].every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
    out[key] = bothMaps ? deepMerge(current as Values, value as Values) : value;
  }
  return out;
}

export function lookup(root: unknown, keyPath: readonly string[]): { found: boolean; value: unknown } {
  let node = root;
  for (const key of keyPath) {
    if (typeof node !== 'object' || node === null || !(key in node)) return { found: false, value: undefined };
    node = (node as Values)[key];
  }
  return { found: true, value: node };
}

const CHART_META: Values = { Name: 'core-banking-gateway', Version: '0.1.0', AppVersion: '0.1.0' };
const RELEASE: Values = { Name: 'example', Namespace: 'payments', Service: 'Helm' };

export class RequiredValueMissing extends Error {}

interface Scope {
  readonly kind: string;
  /** What `.` means inside a `with` block. */
  readonly dot?: unknown;
  /** A `with` on an empty value renders nothing, as in Go templates. */
  readonly skip?: boolean;
}

/** Go templates' truth: empty strings, maps, lists, zero, false and nil are false. */
function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return Boolean(value);
}

export function renderBySubstitution(templateFile: string, values: Values): unknown[] {
  let placeholders = 0;
  const placeholder = (): string => `placeholder-${++placeholders}`;
  const scopes: Scope[] = [];
  const dot = (): unknown => [...scopes].reverse().find((s) => s.kind === 'with')?.dot;

  // A reference or literal to its value; undefined when it is something this stand-in does not evaluate.
  const operand = (token: string): unknown => {
    const ref = /^\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$/.exec(token);
    if (ref) return lookup(values, (ref[1] as string).slice(1).split('.')).value;
    const meta = /^\$?\.(Chart|Release)\.([A-Za-z]+)$/.exec(token);
    if (meta) return (meta[1] === 'Chart' ? CHART_META : RELEASE)[meta[2] as string];
    if (token === '.') return dot();
    if (/^"[^"]*"$/.test(token)) return JSON.parse(token);
    return undefined;
  };

  const evaluate = (expression: string): { value: unknown; quoted: boolean } => {
    const stages = expression.split('|').map((stage) => stage.trim());
    let quoted = false;
    let value: unknown;
    const head = stages[0] as string;
    const required = /^required\s+"([^"]*)"\s+(\S+)$/.exec(head);
    if (required) {
      value = operand(required[2] as string);
      if (value === undefined || value === null || value === '') throw new RequiredValueMissing(required[1]);
    } else {
      value = operand(head);
    }
    for (const stage of stages.slice(1)) {
      const [fn, arg] = stage.split(/\s+/, 2);
      if (fn === 'default' && (value === undefined || value === null || value === '')) value = operand(arg as string);
      else if (fn === 'quote') quoted = true;
      else if (fn === 'int') value = Math.trunc(Number(value));
      else if (fn === 'toJson') value = JSON.stringify(value);
      else if (fn !== 'default') value = undefined;
    }
    return { value, quoted };
  };

  const scalar = (expression: string): string => {
    const { value, quoted } = evaluate(expression);
    if (value === undefined) return placeholder();
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return quoted ? JSON.stringify(text) : text;
  };

  const source = readFileSync(templateFile, 'utf8').replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, '');
  const out: string[] = [];
  for (const line of source.split('\n')) {
    const control = /^\s*\{\{-?\s*(if|else|end|range|with|define|fail|\$[A-Za-z_]+\s*:?=)(?=[\s}-])(.*?)-?\}\}\s*$/.exec(line);
    if (control) {
      const [, keyword, rest] = control;
      if (keyword === 'end') scopes.pop();
      else if (keyword === 'with') {
        const value = operand((rest as string).trim());
        scopes.push({ kind: 'with', dot: value, skip: value !== undefined && !truthy(value) });
      } else if (keyword === 'if' || keyword === 'range' || keyword === 'define') scopes.push({ kind: keyword });
      continue;
    }
    if (scopes.some((scope) => scope.skip)) continue;
    const block = /^\s*\{\{-?\s*(.+?)\s*\|\s*n?indent\s+(\d+)\s*-?\}\}\s*$/.exec(line);
    if (block) {
      const indent = ' '.repeat(Number(block[2]));
      const expression = block[1] as string;
      const file = /^\.Files\.Get\s+"([^"]+)"(?:\s*\|\s*replace\s+"([^"]*)"\s+(\S+))?$/.exec(expression);
      const yamlOf = /^toYaml\s+(\S+)$/.exec(expression);
      let text: string;
      if (file) {
        text = readFileSync(path.join(CHART_DIR, file[1] as string), 'utf8');
        if (file[2] !== undefined) text = text.replaceAll(file[2], String(operand(file[3] as string)));
      } else if (yamlOf && operand(yamlOf[1] as string) !== undefined) text = stringify(operand(yamlOf[1] as string));
      else text = `${placeholder()}: ${expression.replace(/[^A-Za-z0-9.-]+/g, '-')}`;
      out.push(
        ...text
          .trimEnd()
          .split('\n')
          .map((l) => (l ? indent + l : l)),
      );
      continue;
    }
    out.push(line.replace(/\{\{-?\s*(.+?)\s*-?\}\}/g, (_m, expression: string) => scalar(expression)));
  }
  const documents = parseAllDocuments(out.join('\n'));
  for (const document of documents) {
    if (document.errors.length > 0)
      throw new Error(
        `${path.basename(templateFile)} is not valid YAML after substitution: ${document.errors.map((e) => e.message).join('; ')}\n${out.join('\n')}`,
      );
  }
  return documents.map((document) => document.toJS() as unknown).filter((doc) => doc !== null);
}
