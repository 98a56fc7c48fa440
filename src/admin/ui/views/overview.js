// @ts-check
// The Overview screen: the gateway's mode, approvals, the access config's version and age, Redis,
// breaker states and each vendor's traffic over the last 15 minutes on this instance
// (`GET /v1/overview`); requests over time by status class (traffic-chart.js).
import { h } from '../../../ui-kit/dom.js';
import { alertBox, attempt } from '../../../ui-kit/forms.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api } from '../admin-client.js';
import { trafficChart } from './traffic-chart.js';

/**
 * A definition list of facts.
 * @param {Array<[string, string]>} facts
 */
const factList = (facts) =>
  h(
    'dl',
    { class: 'facts' },
    facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );

/** @param {import('../admin-client.js').ViewContext} view */
export async function overviewView({ main }) {
  const errors = alertBox();
  main.replaceChildren(h('h1', {}, 'Overview'), errors);
  await attempt(errors, async () => {
    const { data } = await api('GET', '/overview');
    const redis = data.redis === null ? 'not used (memory store)' : data.redis.up ? 'up' : `down for ${data.redis.downSeconds} s`;
    const facts = factList([
      ['Access store', data.mode?.accessStore ?? '—'],
      ['Core', data.mode?.core ?? '—'],
      ['Approvals', data.approvals ?? '—'],
      ['Access config version', `${data.accessConfig?.version ?? '—'} (changed ${data.accessConfig?.ageSeconds ?? '—'} s ago)`],
      ['Redis', redis],
    ]);
    /** @type {Array<[string, unknown]>} */
    const breakerStates = Object.entries(data.breakers ?? {});
    const breakers = table(
      ['Breaker', 'State'],
      breakerStates.map(([name, state]) => row(name, typeof state === 'string' ? state : JSON.stringify(state))),
    );
    /** @type {Array<{ vendorId: string, requests: number, clientErrors: number, serverErrors: number }>} */
    const vendorTraffic = data.vendorTraffic ?? [];
    const traffic = table(
      ['Vendor', 'Requests', '4xx', '5xx'],
      vendorTraffic.map((r) => row(r.vendorId, r.requests, r.clientErrors, r.serverErrors)),
    );
    main.append(facts, trafficChart(), h('h2', {}, 'Circuit breakers'), breakers, h('h2', {}, 'Vendor traffic, last 15 minutes on this instance'), traffic);
  });
}
