/**
 * The chart's alert rules, rendered by the real Helm (helm-binary.ts), link their runbooks at
 * `metrics.prometheusRule.runbookBaseUrl`: every rule's `runbook_url` is that address plus the
 * alert's section of docs/operations.md, nothing of the placeholder address is left, and the
 * schema refuses a value that is no web address.
 */
import { parseAllDocuments } from 'yaml';
import { helmTemplate, type HelmResult } from './helm-binary';

/** The rule object on. */
const RULES_ON = '--set=metrics.prometheusRule.enabled=true';
const BANK_DOCS = 'https://docs.bank.example/platform/gateway/operations.html';

interface Rule {
  readonly alert: string;
  readonly annotations: Record<string, string>;
}

function template(...args: string[]): HelmResult {
  return helmTemplate(RULES_ON, ...args);
}

function renderedRules(...args: string[]): Rule[] {
  const rendered = template(...args);
  if (!rendered.ok) throw new Error(rendered.stderr);
  const rule = parseAllDocuments(rendered.stdout)
    .map((doc) => doc.toJS() as { kind?: string; spec?: { groups: Array<{ rules: Rule[] }> } } | null)
    .find((manifest) => manifest?.kind === 'PrometheusRule');
  return rule?.spec?.groups.flatMap((group) => group.rules) ?? [];
}

describe("the chart's alert rules", () => {
  it('link each runbook at the runbookBaseUrl the operator sets', () => {
    const rules = renderedRules(`--set=metrics.prometheusRule.runbookBaseUrl=${BANK_DOCS}`);
    expect(rules.length).toBeGreaterThanOrEqual(12);
    expect(rules.map((rule) => rule.annotations.runbook_url)).toEqual(rules.map((rule) => `${BANK_DOCS}#runbook-${rule.alert.toLowerCase()}`));
  }, 60_000);

  it('refuse a runbookBaseUrl that is no web address', () => {
    const refused = template('--set=metrics.prometheusRule.runbookBaseUrl=operations.md#runbooks');
    expect(refused.ok).toBe(false);
    expect(refused.stderr).toMatch(/runbookBaseUrl/);
  }, 60_000);
});
