// @ts-check
// A chart of requests over time by status class (`GET /v1/traffic`), for the Overview (every
// vendor) and a vendor's page (that vendor; all its API ids or one): a range choice (Last hour,
// Last 24 hours, Last 7 days) and an API id choice that each ask the server again; drawn by uPlot,
// served by the gateway from /ui-vendor/ (no CDN, strict CSP). Readable without colour: each status
// class has its own dash pattern and marker, the legend names them with their totals, the canvas
// carries a summary, and a table holds the same numbers. It says where the numbers come from:
// counted by the gateway, or from Prometheus. Reads the traffic API; sets nothing.
import { h } from '../../../ui-kit/dom.js';
import { alertBox, attempt } from '../../../ui-kit/forms.js';
import { row, table } from '../../../ui-kit/tables.js';
import { api } from '../admin-client.js';

/** @typedef {import('uplot')} UPlot */
/** @typedef {typeof import('uplot')} UPlotClass */
/** @typedef {{ vendorId: string, apiId: string, statusClass: string, points: Array<[number, number]> }} Series */
/** @typedef {{ source: 'prometheus' | 'gateway', note: string, range: string, stepSeconds: number, from: string, to: string, series: Series[] }} Traffic */

const UPLOT_URL = '/ui-vendor/uplot.esm.js';
const UPLOT_CSS = '/ui-vendor/uplot.min.css';
const HEIGHT = 220;

/** @type {Array<[string, string]>} */
const RANGES = [
  ['1h', 'Last hour'],
  ['24h', 'Last 24 hours'],
  ['7d', 'Last 7 days'],
];

/**
 * Each class: colour, and, for anyone who cannot tell the colours apart, a dash pattern and a marker.
 * @type {Array<{ name: string, label: string, stroke: string, dash: number[], marker: string, size: number, filled: boolean }>}
 */
const CLASSES = [
  { name: '2xx', label: '2xx success', stroke: '#1d5fa8', dash: [], marker: 'solid line, filled dots', size: 5, filled: true },
  { name: '3xx', label: '3xx redirect', stroke: '#4d4d4d', dash: [2, 4], marker: 'dotted line, small dots', size: 3, filled: true },
  { name: '4xx', label: '4xx client error', stroke: '#8a4b00', dash: [10, 5], marker: 'dashed line, hollow dots', size: 6, filled: false },
  { name: '5xx', label: '5xx server error', stroke: '#b3261e', dash: [12, 4, 2, 4], marker: 'dash-dot line, large hollow dots', size: 8, filled: false },
];

let charts = 0;

/** @type {Promise<UPlotClass> | null} */
let uPlotLoaded = null;

/** uPlot and its style sheet, loaded once, when a chart is first shown. */
function loadUPlot() {
  if (!uPlotLoaded) {
    document.head.append(h('link', { rel: 'stylesheet', href: UPLOT_CSS }));
    uPlotLoaded = import(UPLOT_URL).then((/** @type {{ default: UPlotClass }} */ mod) => mod.default);
  }
  return uPlotLoaded;
}

/** @param {number} seconds */
function stepWords(seconds) {
  if (seconds === 60) return 'per minute';
  if (seconds === 3600) return 'per hour';
  if (seconds % 3600 === 0) return `per ${seconds / 3600} hours`;
  return `per ${seconds / 60} minutes`;
}

/**
 * A short line drawn as the chart draws the class, for the legend.
 * @param {(typeof CLASSES)[number]} cls
 */
function sample(cls) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('width', '36');
  svg.setAttribute('height', '12');
  svg.setAttribute('aria-hidden', 'true');
  const line = document.createElementNS(ns, 'line');
  for (const [name, value] of Object.entries({
    x1: '0',
    y1: '6',
    x2: '36',
    y2: '6',
    stroke: cls.stroke,
    'stroke-width': '2',
    'stroke-dasharray': cls.dash.join(' ') || 'none',
  })) {
    line.setAttribute(name, value);
  }
  const dot = document.createElementNS(ns, 'circle');
  for (const [name, value] of Object.entries({ cx: '18', cy: '6', r: String(cls.size / 2), stroke: cls.stroke, fill: cls.filled ? cls.stroke : '#fff' })) {
    dot.setAttribute(name, value);
  }
  svg.append(line, dot);
  return svg;
}

/**
 * The answer's series, one per status class (the chart asks `by=class`, so the gateway has summed
 * them), as counts per step.
 * @param {Traffic} traffic
 */
function byClass(traffic) {
  const times = traffic.series[0]?.points.map(([t]) => t) ?? [];
  /** @type {Map<string, number[]>} */
  const sums = new Map(traffic.series.map((s) => [s.statusClass, s.points.map(([, n]) => n)]));
  const shown = CLASSES.filter((c) => sums.has(c.name));
  return { times, shown: shown.length > 0 ? shown : CLASSES.slice(0, 1), sums };
}

/**
 * @param {{ vendorId?: string, apiIds?: string[] }} [scope] a vendor (and the API ids to offer), or every vendor
 * @returns {HTMLElement}
 */
export function trafficChart({ vendorId, apiIds = [] } = {}) {
  const errors = alertBox();
  const id = `traffic-${++charts}`;
  const heading = h('h2', { id }, 'Requests over time');
  const rangeSelect = h(
    'select',
    { id: `${id}-range` },
    RANGES.map(([value, text]) => h('option', { value }, text)),
  );
  const apiSelect = h(
    'select',
    { id: `${id}-api` },
    h('option', { value: '' }, 'All API ids'),
    apiIds.map((a) => h('option', { value: a }, a)),
  );
  const controls = h(
    'div',
    { class: 'row' },
    h('label', { for: `${id}-range` }, 'Time range', rangeSelect),
    vendorId ? h('label', { for: `${id}-api` }, 'API id', apiSelect) : null,
  );
  const source = h('p', { class: 'muted traffic-source' });
  const legend = h('ul', { class: 'traffic-legend' });
  const plot = h('div', { class: 'traffic-plot' });
  const data = h('div');
  /** @type {UPlot | null} */
  let chart = null;

  // Only the newest question's answer is drawn: an older one arriving late must not replace it.
  let asked = 0;
  const draw = () =>
    attempt(errors, async () => {
      const mine = ++asked;
      const query = new URLSearchParams({ range: rangeSelect.value, by: 'class' });
      if (vendorId) query.set('vendor', vendorId);
      if (apiSelect.value) query.set('api', apiSelect.value);
      const [{ data: traffic }, UPlotClass] = /** @type {[{ data: Traffic }, UPlotClass]} */ (
        await Promise.all([api('GET', `/traffic?${query}`), loadUPlot()])
      );
      if (mine !== asked) return;
      const { times, shown, sums } = byClass(traffic);
      const per = stepWords(traffic.stepSeconds);
      const rangeText = RANGES.find(([v]) => v === traffic.range)?.[1] ?? traffic.range;
      heading.textContent = `Requests ${per}, ${rangeText.toLowerCase()}`;
      source.textContent = `${traffic.source === 'prometheus' ? 'From Prometheus' : 'Counted by the gateway'}: ${traffic.note}`;
      const totals = shown.map((c) => ({ cls: c, total: (sums.get(c.name) ?? []).reduce((a, b) => a + b, 0) }));
      legend.replaceChildren(
        ...totals.map(({ cls, total }) => h('li', {}, sample(cls), ` ${cls.label} (${cls.marker}): ${total} ${total === 1 ? 'request' : 'requests'}`)),
      );
      const summary = `Requests ${per}, ${rangeText.toLowerCase()}: ${totals.map(({ cls, total }) => `${cls.name} ${total}`).join(', ')}.`;

      chart?.destroy();
      const width = Math.max(280, Math.min(plot.clientWidth || 800, 1100));
      chart = new UPlotClass(
        {
          width,
          height: HEIGHT,
          legend: { show: false },
          scales: { y: { range: (/** @type {UPlot} */ _u, /** @type {number} */ _min, /** @type {number} */ max) => [0, Math.max(1, max)] } },
          axes: [{}, { label: `requests ${per}`, size: 60 }],
          series: [
            { label: 'Time' },
            ...shown.map((c) => ({
              label: c.label,
              stroke: c.stroke,
              width: 2,
              dash: c.dash,
              points: { show: true, size: c.size, stroke: c.stroke, fill: c.filled ? c.stroke : '#fff' },
            })),
          ],
        },
        [times, ...shown.map((c) => sums.get(c.name) ?? times.map(() => 0))],
        plot,
      );
      chart.ctx.canvas.setAttribute('role', 'img');
      chart.ctx.canvas.setAttribute('aria-label', summary);

      const rows = times
        .map((t, i) => ({ t, counts: shown.map((c) => sums.get(c.name)?.[i] ?? 0) }))
        .filter(({ counts }) => counts.some((n) => n > 0))
        .map(({ t, counts }) => row(new Date(t * 1000).toLocaleString(), ...counts));
      data.replaceChildren(
        h(
          'details',
          {},
          h('summary', {}, 'Table of these numbers'),
          h('p', { class: 'muted' }, `Each row is the ${per.replace('per ', '')} ending at its time; steps without requests are left out.`),
          rows.length > 0 ? table(['Step ending', ...shown.map((c) => c.label)], rows) : h('p', {}, 'No requests in this range.'),
        ),
      );
    });

  rangeSelect.addEventListener('change', () => void draw());
  apiSelect.addEventListener('change', () => void draw());
  const resize = new ResizeObserver(() => chart?.setSize({ width: Math.max(280, Math.min(plot.clientWidth, 1100)), height: HEIGHT }));
  resize.observe(plot);
  void draw();
  return h('section', { class: 'traffic', 'aria-labelledby': heading.id }, heading, errors, controls, source, legend, plot, data);
}
