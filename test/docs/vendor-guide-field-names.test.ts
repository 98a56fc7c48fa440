/**
 * The vendor guide's "Field names and unpaged lists" holds true: every resource root is named in
 * the row of the casing its records' fields have (src/contracts/resource-fields.ts, which the
 * sandbox and the OpenAPI document answer from), and the sizes it gives of unpaged lists are the
 * sandbox's (the sandbox core's own answer, asked over loopback).
 */
import request from 'supertest';
import { RESOURCE_RECORDS } from '../../src/contracts/resource-fields';
import { createSandboxApp } from '../../src/sandbox/app';
import { createSandboxData } from '../../src/sandbox/data';
import { readPage, section } from '../support/markdown';

const text = section(readPage('docs/vendor-guide.md'), 'Field names and unpaged lists');

/** The resource roots a table row names in backticks, by the casing its first cell names. */
function rootsIn(casing: 'camelCase' | 'PascalCase'): string[] {
  const row = text.split('\n').find((line) => line.startsWith(`| ${casing} `)) ?? '';
  const resources = row.split('|')[2] ?? '';
  return [...resources.matchAll(/`([a-z]+)`/g)].map((m) => m[1] as string).filter((name) => RESOURCE_RECORDS.has(name));
}

/** The casing most of a root's fields have (the spec writes a few fields of a record otherwise). */
function casingOf(root: string): 'camelCase' | 'PascalCase' {
  const names = Object.keys(RESOURCE_RECORDS.get(root)?.fields ?? {});
  const lower = names.filter((name) => /^[a-z]/.test(name)).length;
  return lower * 2 > names.length ? 'camelCase' : 'PascalCase';
}

describe('the vendor guide on field names and unpaged lists', () => {
  it('names every resource root once, in the row of the casing its fields have', () => {
    const camel = rootsIn('camelCase');
    const pascal = rootsIn('PascalCase');
    expect([...camel, ...pascal].sort()).toEqual([...RESOURCE_RECORDS.keys()].sort());
    expect(camel.filter((root) => casingOf(root) !== 'camelCase')).toEqual([]);
    expect(pascal.filter((root) => casingOf(root) !== 'PascalCase')).toEqual([]);
  });

  it.each([
    ['/accounts/', /all ([\d,]+) accounts \(([\d,]+) KB/],
    ['/transactions/', /all ([\d,]+)\s+lines \(([\d,]+) KB/],
  ])('gives the count and size of an unpaged %s as the sandbox core answers it', async (path, claim) => {
    const answer = await request(createSandboxApp({ data: createSandboxData() })).get(path);
    expect(answer.status).toBe(200);
    const [, count, kilobytes] = claim.exec(text) ?? [];
    expect(Number(count?.replaceAll(',', ''))).toBe((answer.body as unknown[]).length);
    expect(Number(kilobytes?.replaceAll(',', ''))).toBe(Math.round(Buffer.byteLength(answer.text) / 1000));
  });
});
