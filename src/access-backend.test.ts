import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { stringify as toYaml } from 'yaml';
import { openAccessBackend } from './access-backend';
import { readDocument } from './access/access-store';
import { DisposalStack } from './lifecycle/disposal-stack';
import { createLogger } from './logging/logger';
import { testConfig } from '../test/support/config';
import { testTempDir } from '../test/support/temp-dir';

/** Opens the memory backend on `document` as the access file; answers the log lines it wrote. */
async function openOn(document: unknown): Promise<{ lines: Array<Record<string, unknown>>; stack: DisposalStack; open: ReturnType<typeof openAccessBackend> }> {
  const file = path.join(testTempDir('access-backend-'), 'access.yaml');
  writeFileSync(file, toYaml(document));
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  const stack = new DisposalStack();
  const open = openAccessBackend(testConfig({ access: { file } }), createLogger('info', sink), stack, {});
  return { lines, stack, open };
}

describe('the access file loaded at start', () => {
  it('warns, naming the vendor or user and the pattern, of a pattern that matches no API id, and starts all the same', async () => {
    const { lines, stack, open } = await openOn({
      vendors: [{ id: 'acme', name: 'Acme', licences: [{ api: 'GETacounts/*' }, { api: 'GET*' }] }],
      users: [{ id: 'acme.app', permissions: [{ api: 'POSTnothing' }] }],
    });
    const backend = await open;
    try {
      const { document } = await readDocument(backend.store);
      expect(document.vendors[0]?.licences.map((l) => l.api)).toEqual(['GETacounts/*', 'GET*']);
      const warnings = lines.filter((line) => line.level === 40);
      expect(warnings).toEqual([
        expect.objectContaining({
          vendorId: 'acme',
          pattern: 'GETacounts/*',
          nearest: expect.arrayContaining(['GETaccounts/{accountId}']),
          msg: expect.stringContaining('access file: vendor "acme" licence 1: "GETacounts/*" matches no API id; nearest by edit distance: GETaccounts'),
        }),
        expect.objectContaining({ userId: 'acme.app', pattern: 'POSTnothing', msg: expect.stringContaining('user "acme.app" permission 1') }),
      ]);
    } finally {
      await stack.disposeAsync();
    }
  });

  it('gives licences and permissions without ids their derived ids, and names a bad field by its vendor', async () => {
    const { stack, open } = await openOn({ vendors: [{ id: 'acme', name: 'Acme', licences: [{ api: 'GET*' }] }], users: [] });
    const backend = await open;
    expect((await readDocument(backend.store)).document.vendors[0]?.licences[0]?.id).toMatch(/^lic-[0-9a-f]{12}$/);
    await stack.disposeAsync();

    const bad = await openOn({
      vendors: [
        { id: 'beta', name: 'Beta' },
        { id: 'acme', name: 'Acme', licences: [{ api: 'GET*' }, { api: 'FETCH*' }] },
      ],
    });
    await expect(bad.open).rejects.toThrow(/invalid access document:\n {2}vendor "acme" licence 2, api: an API id such as/);
    await bad.stack.disposeAsync();
  });
});
