/** The depth scans that run before an admin body is parsed: exact on JSON, by YAML's own lexer on YAML. */
import { jsonDepthExceeds, yamlDepthExceeds } from './body-guard';

const json = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('jsonDepthExceeds', () => {
  it('counts arrays and objects together, and stops at the first level past the limit', () => {
    expect(jsonDepthExceeds(json('[{"a":[1]}]'), 3)).toBe(false);
    expect(jsonDepthExceeds(json('[{"a":[[1]]}]'), 3)).toBe(true);
    expect(jsonDepthExceeds(json(`${'['.repeat(5)}`), 4)).toBe(true);
  });

  it('skips brackets in strings, escaped quotes and multi-byte characters included', () => {
    expect(jsonDepthExceeds(json(`["\\"[[[[", "ü[[[[", "\\\\"]`), 2)).toBe(false);
    expect(jsonDepthExceeds(json(`["\\\\", [[[]]]]`), 3)).toBe(true);
  });
});

describe('yamlDepthExceeds', () => {
  it('counts flow collections, outside quotes and comments', () => {
    expect(yamlDepthExceeds('a: [[[x]]]\n', 3)).toBe(false);
    expect(yamlDepthExceeds('a: [[[{b: x}]]]\n', 3)).toBe(true);
    expect(yamlDepthExceeds(`a: "[[[["\nb: '{{{{'\n# [[[[\n`, 1)).toBe(false);
  });

  it('counts block collections opened on one line, and starts again on the next', () => {
    expect(yamlDepthExceeds('- - - x\n', 3)).toBe(false);
    expect(yamlDepthExceeds('- - - - x\n', 3)).toBe(true);
    expect(yamlDepthExceeds('- - x\n- - x\n- - x\n', 3)).toBe(false);
  });
});
