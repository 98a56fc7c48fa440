/**
 * Static checks of the Dockerfile and .dockerignore (no Docker engine here to build the image):
 * multi-stage, pinned Node 24 LTS slim base, production dependencies only at run time (no @types),
 * non-root numeric USER, NODE_ENV=production, the node flags, tini as PID 1, the three ports, a HEALTHCHECK on
 * /health/live, and compiled JavaScript as the command.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { imageNodeOptions } from '../../bench/servers/image-node-options';

const ROOT = path.resolve(__dirname, '../..');

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

interface Stage {
  readonly from: string;
  readonly name: string | null;
  readonly instructions: Instruction[];
}

/** The Dockerfile's stages, with line continuations joined and comments dropped. */
function stages(): Stage[] {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const out: Stage[] = [];
  for (const line of lines) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') {
      const [image = '', , name] = args.split(/\s+/);
      out.push({ from: image, name: name ?? null, instructions: [] });
    } else {
      out.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return out;
}

const all = stages();
const runtime = all.at(-1) as Stage;
const find = (keyword: string): Instruction[] => runtime.instructions.filter((i) => i.keyword === keyword);

describe('the Dockerfile', () => {
  it('builds in stages and runs from its own last stage', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(all.every((stage) => stage.name !== null)).toBe(true);
  });

  it('runs node with a 16 MiB semi-space and an old generation of 75 % of the container memory, the flags both benchmarks read from here', () => {
    const env = find('ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/NODE_OPTIONS="--max-semi-space-size=16 --max-old-space-size-percentage=75"/);
    expect(imageNodeOptions()).toEqual(['--max-semi-space-size=16', '--max-old-space-size-percentage=75']);
  });

  it('pins every base image to a Node 24 slim release tag, never latest', () => {
    for (const stage of all) {
      expect(stage.from).toMatch(/^node:24\.\d+\.\d+-[a-z]+-slim$/);
      expect(stage.from).not.toMatch(/latest/);
    }
  });

  it('compiles TypeScript in a build stage and copies only dist/ and production dependencies into the runtime', () => {
    const build = all.find((stage) => stage.instructions.some((i) => i.keyword === 'RUN' && /npm run build/.test(i.args)));
    expect(build).toBeDefined();
    expect(runtime.instructions.some((i) => i.keyword === 'RUN' && /npm|tsc|tsx/.test(i.args))).toBe(false);
    const copiedFromStages = find('COPY').filter((i) => i.args.includes('--from='));
    expect(copiedFromStages.map((i) => i.args.split(/\s+/).at(-1))).toEqual(expect.arrayContaining(['./dist', './node_modules']));
    const depsStage = all.find((stage) => `--from=${stage.name}` === copiedFromStages.find((i) => i.args.endsWith('./node_modules'))?.args.split(/\s+/)[0]);
    expect(depsStage?.instructions.some((i) => i.keyword === 'RUN' && /npm (ci|install)\b.*--omit=dev/.test(i.args))).toBe(true);
  });

  it('leaves every type package (@types/*) out of the production dependencies the runtime gets', () => {
    const read = (file: string): Record<string, unknown> => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;
    const dependencies = Object.keys(read('package.json').dependencies as Record<string, string>);
    expect(dependencies.filter((name) => name.startsWith('@types/'))).toEqual([]);
    // What `npm ci --omit=dev` installs: every locked package not marked dev.
    const locked = Object.entries(read('package-lock.json').packages as Record<string, { dev?: boolean }>);
    expect(locked.filter(([where, entry]) => where.includes('node_modules/@types/') && entry.dev !== true).map(([where]) => where)).toEqual([]);
  });

  it('runs as a non-root numeric user', () => {
    const users = find('USER').map((i) => i.args);
    expect(users).toHaveLength(1);
    expect(users[0]).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
  });

  it('sets NODE_ENV=production', () => {
    expect(
      find('ENV')
        .map((i) => i.args)
        .join(' '),
    ).toMatch(/\bNODE_ENV=production\b/);
  });

  it('exposes the vendor, admin and status ports', () => {
    expect(
      find('EXPOSE')
        .flatMap((i) => i.args.split(/\s+/))
        .sort(),
    ).toEqual(['8080', '8081', '8082']);
  });

  it('checks its health on /health/live of the status port', () => {
    const [check] = find('HEALTHCHECK');
    expect(check?.args).toMatch(/CMD/);
    expect(check?.args).toMatch(/\/health\/live/);
    expect(check?.args).toMatch(/STATUS_PORT/);
  });

  it('runs the compiled JavaScript under tini, so SIGTERM reaches Node', () => {
    expect(find('ENTRYPOINT').map((i) => JSON.parse(i.args) as string[])).toEqual([['/usr/bin/tini', '--']]);
    expect(find('CMD').map((i) => JSON.parse(i.args) as string[])).toEqual([['node', 'dist/main.js']]);
    expect(runtime.instructions.some((i) => i.keyword === 'RUN' && /install[^&]*\btini\b/.test(i.args))).toBe(true);
  });

  it('sends only what the build needs to the Docker daemon', () => {
    const ignore = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    expect(ignore[0]).toBe('**');
    const allowed = ignore.filter((line) => line.startsWith('!')).map((line) => line.slice(1));
    for (const instruction of all.flatMap((stage) => stage.instructions).filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))) {
      const sources = instruction.args.split(/\s+/).slice(0, -1);
      for (const source of sources) expect(allowed.some((pattern) => pattern === source || pattern.startsWith(`${source}/`))).toBe(true);
    }
  });
});
