/**
 * Every alert links its runbook: each rule of ops/prometheus/alerts.yaml carries a `runbook_url`
 * naming a section of docs/operations.md that exists, under the address the Helm chart replaces
 * with `metrics.prometheusRule.runbookBaseUrl` (so its default renders the rules as they ship),
 * and every runbook section there belongs to an alert.
 */
import path from 'node:path';
import { parse } from 'yaml';
import { anchors, headings, readPage } from '../support/markdown';

const OPERATIONS = 'docs/operations.md';
interface Rule {
  readonly alert: string;
  readonly annotations: Record<string, string>;
}
const rules = (parse(readPage('ops/prometheus/alerts.yaml')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((group) => group.rules);
const chartValues = parse(readPage(path.join('helm/core-banking-gateway/values.yaml'))) as { metrics: { prometheusRule: { runbookBaseUrl: string } } };
const shippedBase = chartValues.metrics.prometheusRule.runbookBaseUrl;

describe('alert runbooks', () => {
  it('are linked from every alert', () => {
    expect(rules.length).toBeGreaterThanOrEqual(12);
    expect(rules.filter((rule) => !rule.annotations.runbook_url).map((rule) => rule.alert)).toEqual([]);
  });

  it("point at the address the chart's default runbookBaseUrl names, at the alert's own section", () => {
    expect(shippedBase).toMatch(/\/docs\/operations\.md$/);
    const wrong = rules.filter((rule) => rule.annotations.runbook_url !== `${shippedBase}#runbook-${rule.alert.toLowerCase()}`);
    expect(wrong.map((rule) => `${rule.alert}: ${rule.annotations.runbook_url}`)).toEqual([]);
  });

  it(`name sections that exist as headings of ${OPERATIONS}`, () => {
    const sections = anchors(readPage(OPERATIONS));
    const missing = rules.map((rule) => (rule.annotations.runbook_url ?? '').split('#')[1] ?? '').filter((anchor) => !sections.has(anchor));
    expect(missing).toEqual([]);
  });

  it('are each for an alert that exists', () => {
    const runbooks = headings(readPage(OPERATIONS))
      .map((heading) => /^Runbook: `(\w+)`$/.exec(heading.text)?.[1])
      .filter((name): name is string => name !== undefined);
    expect(runbooks.length).toBe(rules.length);
    expect(runbooks.filter((name) => !rules.some((rule) => rule.alert === name))).toEqual([]);
  });
});
