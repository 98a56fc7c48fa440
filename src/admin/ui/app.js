// The admin web UI (README "Admin web UI"): one page, routed by the URL fragment, that drives the
// admin API under /v1 with the session cookie the sign-in set. It builds every element with the
// DOM (never innerHTML from data), runs no inline script (the CSP forbids it), loads nothing from
// elsewhere, and shows every error from the API in an element with role="alert". Accessible names
// of fields and buttons are public contract (docs/contract.md; README "Admin web UI").

const WRITE_HEADERS = { 'content-type': 'application/json', 'x-requested-by': 'cbg-admin-ui' };
const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
let me = null;

// ---- small DOM helpers -------------------------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'text') el.textContent = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

let fieldCounter = 0;
/** A labelled input; the label's text is its accessible name. */
function field(label, attrs = {}) {
  const id = `f${++fieldCounter}`;
  const input = attrs.tag === 'select' ? h('select', { id, name: attrs.name }, ...(attrs.options ?? []).map((o) => h('option', { value: o }, o))) : h(attrs.tag ?? 'input', { id, type: attrs.type ?? 'text', name: attrs.name, required: attrs.required, placeholder: attrs.placeholder, value: attrs.value, autocomplete: attrs.autocomplete ?? 'off' });
  return { wrap: h('label', { for: id }, label, input), input };
}

function alertBox() {
  return h('div', { role: 'alert' });
}

function showError(box, err) {
  box.textContent = err instanceof ApiError ? err.describe() : String(err && err.message ? err.message : err);
}

/** Runs `fn`, showing what went wrong in `box`. */
async function attempt(box, fn) {
  try {
    await fn();
  } catch (err) {
    showError(box, err);
  }
}

function table(headers, rows) {
  return h('table', {}, h('thead', {}, h('tr', {}, headers.map((t) => h('th', { scope: 'col' }, t)))), h('tbody', {}, rows));
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

// ---- the API -----------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
  describe() {
    const lines = [this.message];
    for (const e of this.problem?.errors ?? []) lines.push(`${e.field}: ${e.message}`);
    return lines.join('\n');
  }
}

async function api(method, path, body, extraHeaders = {}) {
  const headers = method === 'GET' ? { accept: 'application/json', ...extraHeaders } : { ...WRITE_HEADERS, ...extraHeaders };
  const res = await fetch(`/v1${path}`, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  if (res.status === 401 && me) {
    me = null;
    route();
    throw new ApiError(401, { detail: 'Your session has ended; sign in again.' });
  }
  const type = res.headers.get('content-type') ?? '';
  const data = res.status === 204 ? null : type.includes('json') ? await res.json() : await res.text();
  if (!res.ok) throw new ApiError(res.status, typeof data === 'object' ? data : { detail: String(data) });
  return { status: res.status, data, headers: res.headers };
}

/** A write: applied, or filed for approval (202) — said so in the notice. */
async function write(method, path, body, notice) {
  const res = await api(method, path, body);
  if (res.status === 202) {
    notice.className = 'notice';
    notice.textContent = `Filed for approval as change ${res.data.id}: awaiting another approver.`;
  }
  return res;
}

// ---- signing in and out ------------------------------------------------------------------

async function whoAmI() {
  const res = await fetch('/ui/session', { credentials: 'same-origin' });
  return res.ok ? (await res.json()).admin : null;
}

function signInPage() {
  nav.hidden = true;
  who.replaceChildren();
  const token = field('Admin token', { type: 'password', autocomplete: 'current-password' });
  const errors = alertBox();
  const form = h(
    'form',
    {
      class: 'inline',
      onsubmit: async (event) => {
        event.preventDefault();
        errors.textContent = '';
        const res = await fetch('/ui/session', { method: 'POST', headers: WRITE_HEADERS, credentials: 'same-origin', body: JSON.stringify({ token: token.input.value }) });
        token.input.value = '';
        if (!res.ok) {
          const problem = await res.json().catch(() => ({}));
          showError(errors, new ApiError(res.status, problem));
          return;
        }
        me = await whoAmI();
        if (!location.hash || location.hash === '#/signin') location.hash = '#/overview';
        route();
      },
    },
    token.wrap,
    h('button', { type: 'submit' }, 'Sign in'),
  );
  main.replaceChildren(h('h1', {}, 'Sign in'), h('p', { class: 'muted' }, 'Sign in with an admin token. The browser keeps a session cookie; the token is not stored.'), form, errors, enrolSection());
  token.input.focus();
}

/** A new admin redeems the one-time enrolment code an owner handed them: their token, shown this once. */
function enrolSection() {
  const code = field('Enrolment code', { type: 'password', autocomplete: 'off' });
  const errors = alertBox();
  const notice = h('div');
  const form = h(
    'form',
    {
      class: 'inline',
      onsubmit: async (event) => {
        event.preventDefault();
        errors.textContent = '';
        const res = await fetch('/v1/admins/enrol', { method: 'POST', headers: WRITE_HEADERS, credentials: 'omit', body: JSON.stringify({ enrolmentCode: code.input.value.trim() }) });
        code.input.value = '';
        const answer = await res.json().catch(() => ({}));
        if (!res.ok) {
          showError(errors, new ApiError(res.status, answer));
          return;
        }
        notice.replaceChildren(h('div', { class: 'notice' }, `Your token as ${answer.id}, shown this once; keep it now, then sign in with it:`), h('p', { class: 'secret' }, answer.token));
      },
    },
    code.wrap,
    h('button', { type: 'submit', class: 'secondary' }, 'Enrol'),
  );
  return h('section', {}, h('h2', {}, 'New admin?'), h('p', { class: 'muted' }, 'Redeem the enrolment code an owner gave you for your own token.'), form, errors, notice);
}

async function signOut() {
  await fetch('/ui/session', { method: 'DELETE', headers: WRITE_HEADERS, credentials: 'same-origin' });
  me = null;
  location.hash = '#/signin';
  route();
}

// ---- pages -------------------------------------------------------------------------------

const PAGES = [
  ['overview', 'Overview', overviewPage],
  ['vendors', 'Vendors', vendorsPage],
  ['users', 'Users', usersPage],
  ['access', 'Access document', accessPage],
  ['audit', 'Audit log', auditPage],
  ['approvals', 'Approvals', approvalsPage],
  ['admins', 'Admins', adminsPage],
];

function renderNav(current) {
  nav.hidden = false;
  nav.replaceChildren(
    ...PAGES.filter(([id]) => id !== 'admins' || me.role === 'owner').map(([id, label]) => h('a', { href: `#/${id}`, 'aria-current': id === current ? 'page' : undefined }, label)),
  );
  who.replaceChildren(`${me.name} (${me.role})`, h('button', { type: 'button', class: 'secondary', onclick: signOut }, 'Sign out'));
}

async function overviewPage() {
  const errors = alertBox();
  main.replaceChildren(h('h1', {}, 'Overview'), errors);
  try {
    const { data } = await api('GET', '/overview');
    const facts = h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Access store'),
      h('dd', {}, data.mode?.accessStore ?? '—'),
      h('dt', {}, 'Core'),
      h('dd', {}, data.mode?.core ?? '—'),
      h('dt', {}, 'Approvals'),
      h('dd', {}, data.approvals ?? '—'),
      h('dt', {}, 'Access config version'),
      h('dd', {}, `${data.accessConfig?.version ?? '—'} (changed ${data.accessConfig?.ageSeconds ?? '—'} s ago)`),
      h('dt', {}, 'Redis'),
      h('dd', {}, data.redis === null ? 'not used (memory store)' : data.redis.up ? 'up' : `down for ${data.redis.downSeconds} s`),
    );
    const breakers = table(
      ['Breaker', 'State'],
      Object.entries(data.breakers ?? {}).map(([name, state]) => h('tr', {}, h('td', {}, name), h('td', {}, typeof state === 'string' ? state : JSON.stringify(state)))),
    );
    const traffic = table(
      ['Vendor', 'Requests', '4xx', '5xx'],
      (data.vendorTraffic ?? []).map((r) => h('tr', {}, h('td', {}, r.vendorId), h('td', {}, r.requests), h('td', {}, r.clientErrors), h('td', {}, r.serverErrors))),
    );
    main.append(facts, h('h2', {}, 'Circuit breakers'), breakers, h('h2', {}, 'Vendor traffic, last 15 minutes on this instance'), traffic);
  } catch (err) {
    showError(errors, err);
  }
}

async function vendorsPage() {
  const errors = alertBox();
  const notice = h('div');
  const search = field('Search vendors', { type: 'search' });
  const body = h('tbody');
  const list = h('table', {}, h('thead', {}, h('tr', {}, ['Vendor id', 'Name', 'Status', 'Rate limit', 'Keys', 'Licences'].map((t) => h('th', { scope: 'col' }, t)))), body);
  const id = field('Vendor id', { required: true });
  const name = field('Name', { required: true });
  const createForm = h(
    'form',
    {
      class: 'inline',
      hidden: true,
      onsubmit: async (event) => {
        event.preventDefault();
        errors.textContent = '';
        try {
          await write('POST', '/vendors', { id: id.input.value.trim(), name: name.input.value.trim() }, notice);
          createForm.hidden = true;
          id.input.value = '';
          name.input.value = '';
          await load();
        } catch (err) {
          showError(errors, err);
        }
      },
    },
    id.wrap,
    name.wrap,
    h('button', { type: 'submit' }, 'Create'),
  );
  let vendors = [];
  const render = () => {
    const q = search.input.value.trim().toLowerCase();
    body.replaceChildren(
      ...vendors
        .filter((v) => !q || v.id.toLowerCase().includes(q) || v.name.toLowerCase().includes(q))
        .map((v) =>
          h(
            'tr',
            {},
            h('td', {}, h('a', { href: `#/vendors/${encodeURIComponent(v.id)}` }, v.id)),
            h('td', {}, v.name),
            h('td', {}, v.status),
            h('td', {}, v.rateLimit ? `${v.rateLimit.points} / ${v.rateLimit.durationSeconds} s` : '—'),
            h('td', {}, v.keys.length),
            h('td', {}, v.licences.length),
          ),
        ),
    );
  };
  const load = async () => {
    vendors = (await api('GET', '/vendors')).data;
    render();
  };
  search.input.addEventListener('input', render);
  main.replaceChildren(
    h('h1', {}, 'Vendors'),
    h('div', { class: 'row' }, search.wrap, h('button', { type: 'button', onclick: () => ((createForm.hidden = false), id.input.focus()) }, 'New vendor')),
    createForm,
    errors,
    notice,
    list,
  );
  await attempt(errors, load);
}

/** The API ids a licence pattern matches: `*` is any run of characters. */
function matching(pattern, apis) {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const regex = new RegExp(`^${source}$`);
  return apis.filter((a) => regex.test(a.apiId)).map((a) => a.apiId);
}

async function vendorPage(vendorId) {
  const errors = alertBox();
  const notice = h('div');
  const secretBox = h('div');
  main.replaceChildren(h('h1', {}, `Vendor ${vendorId}`), errors, notice, secretBox);
  const path = `/vendors/${encodeURIComponent(vendorId)}`;
  const act = (fn) => async (event) => {
    event?.preventDefault?.();
    errors.textContent = '';
    notice.textContent = '';
    notice.className = '';
    try {
      await fn();
      await render();
    } catch (err) {
      showError(errors, err);
    }
  };
  let apis = [];
  const render = async () => {
    const { data: vendor } = await api('GET', path);
    if (apis.length === 0) apis = (await api('GET', '/apis')).data;
    main.querySelector('h1').textContent = `Vendor ${vendor.name} (${vendor.id})`;
    const sections = [];

    const points = field('Points', { type: 'number', value: vendor.rateLimit?.points ?? '' });
    const window = field('Window seconds', { type: 'number', value: vendor.rateLimit?.durationSeconds ?? '' });
    sections.push(
      h('p', {}, `Status: ${vendor.status} `, h('button', { type: 'button', class: 'secondary', onclick: act(() => write('PATCH', path, { status: vendor.status === 'active' ? 'suspended' : 'active' }, notice)) }, vendor.status === 'active' ? 'Suspend' : 'Activate')),
      h('form', { class: 'inline', onsubmit: act(() => write('PUT', `${path}/rate-limit`, { points: Number(points.input.value), durationSeconds: Number(window.input.value) }, notice)) }, points.wrap, window.wrap, h('button', { type: 'submit' }, 'Set rate limit')),
    );

    const pattern = field('API pattern', { required: true, placeholder: 'GET*' });
    const expires = field('Expires at', { placeholder: '2027-01-01T00:00:00Z' });
    const grantForm = h(
      'form',
      { class: 'inline', hidden: true, onsubmit: act(() => write('POST', `${path}/licences`, { api: pattern.input.value.trim(), ...(expires.input.value.trim() ? { expiresAt: expires.input.value.trim() } : {}) }, notice)) },
      pattern.wrap,
      expires.wrap,
      h('button', { type: 'submit' }, 'Grant'),
    );
    sections.push(
      h('h2', {}, 'Licences'),
      table(
        ['API pattern', 'Expires', 'API ids it grants', ''],
        vendor.licences.map((l) =>
          h(
            'tr',
            {},
            h('td', {}, l.api),
            h('td', {}, when(l.expiresAt)),
            h('td', {}, h('details', {}, h('summary', {}, `${matching(l.api, apis).length} API ids`), h('ul', {}, matching(l.api, apis).map((a) => h('li', {}, a))))),
            h('td', {}, h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke licence ${l.id}`, onclick: act(() => write('DELETE', `${path}/licences/${encodeURIComponent(l.id)}`, undefined, notice)) }, 'Revoke')),
          ),
        ),
      ),
      h('button', { type: 'button', onclick: () => ((grantForm.hidden = false), pattern.input.focus()) }, 'Grant licence'),
      grantForm,
    );

    const user = field('User id', { required: true });
    const thumbprint = field('Certificate thumbprint');
    const showSecret = (issued, what) => {
      const text = h('p', { class: 'secret' }, issued.secret);
      secretBox.replaceChildren(
        h('div', { class: 'notice' }, `${what} ${issued.id} for user ${issued.userId}. Its secret is shown this once; store it now:`),
        text,
        h('button', { type: 'button', class: 'secondary', onclick: () => navigator.clipboard?.writeText(issued.secret) }, 'Copy'),
      );
    };
    const issueForm = h(
      'form',
      {
        class: 'inline',
        hidden: true,
        onsubmit: act(async () => {
          const res = await write('POST', `${path}/keys`, { userId: user.input.value.trim(), ...(thumbprint.input.value.trim() ? { certificateThumbprints: [thumbprint.input.value.trim()] } : {}) }, notice);
          if (res.status === 201) showSecret(res.data, 'Issued key');
        }),
      },
      user.wrap,
      thumbprint.wrap,
      h('button', { type: 'submit' }, 'Issue'),
    );
    const keyRow = (k) => {
      const actions = h('td');
      const revoke = h('button', {
        type: 'button',
        class: 'danger',
        'aria-label': `Revoke key ${k.id}`,
        onclick: () =>
          actions.replaceChildren(
            `Revoke ${k.prefix}? `,
            h('button', { type: 'button', class: 'danger', onclick: act(() => write('DELETE', `/keys/${encodeURIComponent(k.id)}`, undefined, notice)) }, 'Confirm'),
            h('button', { type: 'button', class: 'secondary', onclick: () => render() }, 'Cancel'),
          ),
      }, 'Revoke');
      const overlap = field('Overlap hours', { type: 'number', value: 24 });
      const rotate = h('button', {
        type: 'button',
        class: 'secondary',
        'aria-label': `Rotate key ${k.id}`,
        onclick: () =>
          actions.replaceChildren(
            overlap.wrap,
            h('button', {
              type: 'button',
              onclick: act(async () => {
                const issued = await write('POST', `${path}/keys`, { userId: k.userId, ...(k.certificateThumbprints ? { certificateThumbprints: k.certificateThumbprints } : {}) }, notice);
                const expiresAt = new Date(Date.now() + Number(overlap.input.value || 24) * 3_600_000).toISOString();
                await write('PATCH', `/keys/${encodeURIComponent(k.id)}`, { expiresAt }, notice);
                if (issued.status === 201) showSecret(issued.data, `Issued key (replacing ${k.id}, which expires ${when(expiresAt)})`);
              }),
            }, 'Rotate now'),
          ),
      }, 'Rotate');
      if (k.status === 'active') actions.append(revoke, ' ', rotate);
      return h('tr', {}, h('td', {}, k.prefix), h('td', {}, k.userId), h('td', {}, k.status), h('td', {}, when(k.createdAt)), h('td', {}, when(k.lastUsedAt)), h('td', {}, when(k.expiresAt)), actions);
    };
    sections.push(
      h('h2', {}, 'Keys'),
      table(['Prefix', 'User', 'Status', 'Created', 'Last used', 'Expires', ''], vendor.keys.map(keyRow)),
      h('button', { type: 'button', onclick: () => ((issueForm.hidden = false), user.input.focus()) }, 'Issue key'),
      issueForm,
    );
    main.replaceChildren(main.querySelector('h1'), errors, notice, secretBox, ...sections);
  };
  await attempt(errors, render);
}

async function usersPage() {
  const errors = alertBox();
  const notice = h('div');
  const user = field('User id', { required: true });
  const pattern = field('API pattern', { required: true, placeholder: 'GETaccounts*' });
  const body = h('tbody');
  const load = async () => {
    const { data: users } = await api('GET', '/users');
    body.replaceChildren(
      ...users.flatMap((u) =>
        u.permissions.map((p) =>
          h(
            'tr',
            {},
            h('td', {}, u.id),
            h('td', {}, p.api),
            h('td', {}, h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke permission ${p.id} of ${u.id}`, onclick: () => act(() => write('DELETE', `/users/${encodeURIComponent(u.id)}/permissions/${encodeURIComponent(p.id)}`, undefined, notice)) }, 'Revoke')),
          ),
        ),
      ),
    );
  };
  const act = async (fn) => {
    errors.textContent = '';
    notice.textContent = '';
    notice.className = '';
    try {
      await fn();
      await load();
    } catch (err) {
      showError(errors, err);
    }
  };
  const form = h(
    'form',
    {
      class: 'inline',
      onsubmit: (event) => {
        event.preventDefault();
        return act(() => write('POST', `/users/${encodeURIComponent(user.input.value.trim())}/permissions`, { api: pattern.input.value.trim() }, notice));
      },
    },
    user.wrap,
    pattern.wrap,
    h('button', { type: 'submit' }, 'Grant permission'),
  );
  main.replaceChildren(h('h1', {}, 'Users'), form, errors, notice, h('table', {}, h('thead', {}, h('tr', {}, ['User id', 'API pattern', ''].map((t) => h('th', { scope: 'col' }, t)))), body));
  await act(async () => undefined);
}

async function accessPage() {
  const errors = alertBox();
  const notice = h('div');
  const diff = h('pre', { class: 'diff', hidden: true });
  const doc = field('Access document (YAML)', { tag: 'textarea' });
  let version = null;
  const load = async () => {
    const res = await fetch('/v1/access', { headers: { accept: 'application/yaml' }, credentials: 'same-origin' });
    if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => ({})));
    version = (res.headers.get('etag') ?? '').replace(/"/g, '');
    doc.input.value = await res.text();
    notice.className = 'muted';
    notice.textContent = `Version ${version}.`;
  };
  const send = async (dryRun) => {
    errors.textContent = '';
    try {
      const res = await api('PUT', `/access${dryRun ? '?dryRun=true' : ''}`, doc.input.value, { 'content-type': 'application/yaml', 'if-match': `"${version}"` });
      const result = res.data;
      diff.hidden = false;
      diff.textContent = JSON.stringify(result.diff ?? result.preview, null, 2);
      notice.className = 'notice';
      notice.textContent = res.status === 202 ? `Filed for approval as change ${result.id}: awaiting another approver.` : dryRun ? 'Dry run: nothing was changed.' : result.applied ? `Applied; now version ${result.version}.` : 'Already in force; nothing applied.';
      if (!dryRun && res.status !== 202) await load();
    } catch (err) {
      showError(errors, err);
    }
  };
  main.replaceChildren(
    h('h1', {}, 'Access document'),
    h('div', { class: 'row' }, h('button', { type: 'button', class: 'secondary', onclick: () => load().catch((err) => showError(errors, err)) }, 'Reload'), h('button', { type: 'button', class: 'secondary', onclick: () => send(true) }, 'Dry run'), h('button', { type: 'button', onclick: () => send(false) }, 'Apply')),
    errors,
    notice,
    diff,
    doc.wrap,
  );
  await attempt(errors, load);
}

/** Lines of the JSON of before and after, marked added or removed where they differ. */
function renderDiff(before, after) {
  const a = JSON.stringify(before, null, 2)?.split('\n') ?? [];
  const b = JSON.stringify(after, null, 2)?.split('\n') ?? [];
  const kept = new Set(a.filter((line) => b.includes(line)));
  return h(
    'pre',
    { class: 'diff' },
    ...a.filter((line) => !kept.has(line)).map((line) => h('span', { class: 'removed' }, `- ${line}\n`)),
    ...b.map((line) => (kept.has(line) ? `  ${line}\n` : h('span', { class: 'added' }, `+ ${line}\n`))),
  );
}

async function auditPage() {
  const errors = alertBox();
  const actor = field('Actor', { placeholder: 'admin:otto' });
  const vendor = field('Vendor', { placeholder: 'acme' });
  const since = field('From date', { type: 'date' });
  const body = h('tbody');
  let entries = [];
  const render = () => {
    const a = actor.input.value.trim();
    const v = vendor.input.value.trim();
    const from = since.input.value ? Date.parse(since.input.value) : 0;
    body.replaceChildren(
      ...entries
        .filter((e) => (!a || e.actor.includes(a)) && (!v || e.target.includes(`vendors/${v}`)) && Date.parse(e.at) >= from)
        .map((e) => h('tr', {}, h('td', {}, when(e.at)), h('td', {}, e.actor), h('td', {}, e.action), h('td', {}, e.target), h('td', {}, h('details', {}, h('summary', {}, 'Before → after'), renderDiff(e.before, e.after), e.approval ? h('p', { class: 'muted' }, `Approval: ${JSON.stringify(e.approval)}`) : null)))),
    );
  };
  for (const f of [actor, vendor, since]) f.input.addEventListener('input', render);
  main.replaceChildren(h('h1', {}, 'Audit log'), h('div', { class: 'row' }, actor.wrap, vendor.wrap, since.wrap), errors, h('table', {}, h('thead', {}, h('tr', {}, ['When', 'Actor', 'Action', 'Target', 'Change'].map((t) => h('th', { scope: 'col' }, t)))), body));
  try {
    entries = (await api('GET', '/audit?limit=500')).data;
    render();
  } catch (err) {
    showError(errors, err);
  }
}

async function approvalsPage() {
  const errors = alertBox();
  const notice = h('div');
  const body = h('tbody');
  const load = async () => {
    const { data: changes } = await api('GET', '/changes');
    body.replaceChildren(
      ...changes.map((c) => {
        const mine = c.makerId === me.id;
        const decide = (verb) => async () => {
          errors.textContent = '';
          try {
            const res = await api('POST', `/changes/${encodeURIComponent(c.id)}/${verb}`);
            notice.className = 'notice';
            notice.textContent = verb === 'approve' ? `Approved ${c.id}; it is in force.${res.data?.secret ? ` The new key's secret, shown this once: ${res.data.secret}` : ''}` : `Rejected ${c.id}.`;
            await load();
          } catch (err) {
            showError(errors, err);
          }
        };
        const canDecide = !mine && (me.role === 'approver' || me.role === 'owner');
        return h(
          'tr',
          {},
          h('td', {}, c.id),
          h('td', {}, `admin:${c.makerId}`),
          h('td', {}, `${c.action} ${c.target}`),
          h('td', {}, c.status === 'expired' ? 'expired' : when(c.expiresAt)),
          h('td', {}, renderDiff(c.preview?.before ?? null, c.preview?.after ?? null)),
          h(
            'td',
            {},
            mine ? h('span', { class: 'muted' }, 'Awaiting another approver') : null,
            canDecide && c.status === 'pending' ? h('button', { type: 'button', 'aria-label': `Approve ${c.id}`, onclick: decide('approve') }, 'Approve') : null,
            canDecide ? h('button', { type: 'button', class: 'danger', 'aria-label': `Reject ${c.id}`, onclick: decide('reject') }, 'Reject') : null,
          ),
        );
      }),
    );
  };
  const { data: status } = await api('GET', '/me');
  main.replaceChildren(
    h('h1', {}, 'Approvals'),
    h('p', { class: 'muted' }, status.approvals === 'required' ? 'Four eyes are on: writes that grant access wait here for another approver.' : 'Four eyes are off (admin.approvals): writes apply at once.'),
    errors,
    notice,
    h('table', {}, h('thead', {}, h('tr', {}, ['Change', 'Maker', 'What', 'Expires', 'Would change', ''].map((t) => h('th', { scope: 'col' }, t)))), body),
  );
  await attempt(errors, load);
}

async function adminsPage() {
  const errors = alertBox();
  const notice = h('div');
  const body = h('tbody');
  const id = field('Admin id', { required: true });
  const name = field('Name', { required: true });
  const role = field('Role', { tag: 'select', options: ['viewer', 'operator', 'approver', 'owner'] });
  // Never a token for someone else: creating or re-enrolling answers a one-time enrolment code.
  const showCode = (answer) => {
    notice.className = '';
    const text =
      answer.status === 'pending'
        ? `Filed for approval as change ${answer.id}. Once another approver approves it, this enrolment code works once, for 24 h; hand it over now:`
        : `Enrolment code for ${answer.id}, valid once until ${when(answer.enrolmentExpiresAt)}; hand it over now (they redeem it on the sign-in page):`;
    notice.replaceChildren(h('div', { class: 'notice' }, text), h('p', { class: 'secret' }, answer.enrolmentCode));
  };
  const act = async (fn) => {
    errors.textContent = '';
    try {
      await fn();
      await load();
    } catch (err) {
      showError(errors, err);
    }
  };
  const load = async () => {
    const { data: admins } = await api('GET', '/admins');
    body.replaceChildren(
      ...admins.map((a) => {
        const actions = h(
          'td',
          {},
          h('button', { type: 'button', class: 'secondary', 'aria-label': `Revoke token of ${a.id}`, onclick: () => act(() => api('POST', `/admins/${encodeURIComponent(a.id)}/token`)) }, 'Revoke token'),
          ' ',
          h('button', { type: 'button', class: 'secondary', 'aria-label': `Re-enrol ${a.id}`, onclick: () => act(async () => showCode((await api('POST', `/admins/${encodeURIComponent(a.id)}/enrolment`)).data)) }, 'Re-enrol'),
          ' ',
          h('button', {
            type: 'button',
            class: 'danger',
            'aria-label': `Delete admin ${a.id}`,
            onclick: () => actions.replaceChildren(`Delete ${a.id}? `, h('button', { type: 'button', class: 'danger', onclick: () => act(() => api('DELETE', `/admins/${encodeURIComponent(a.id)}`)) }, 'Confirm')),
          }, 'Delete'),
        );
        return h('tr', {}, h('td', {}, a.id), h('td', {}, a.name), h('td', {}, a.role), h('td', {}, a.status), h('td', {}, a.tokenPrefix ?? ''), h('td', {}, when(a.createdAt)), actions);
      }),
    );
  };
  const form = h(
    'form',
    {
      class: 'inline',
      onsubmit: (event) => {
        event.preventDefault();
        return act(async () => {
          showCode((await api('POST', '/admins', { id: id.input.value.trim(), name: name.input.value.trim(), role: role.input.value })).data);
          id.input.value = '';
          name.input.value = '';
        });
      },
    },
    id.wrap,
    name.wrap,
    role.wrap,
    h('button', { type: 'submit' }, 'Create admin'),
  );
  main.replaceChildren(h('h1', {}, 'Admins'), form, errors, notice, h('table', {}, h('thead', {}, h('tr', {}, ['Admin id', 'Name', 'Role', 'Status', 'Token prefix', 'Created', ''].map((t) => h('th', { scope: 'col' }, t)))), body));
  await act(async () => undefined);
}

// ---- routing -----------------------------------------------------------------------------

async function route() {
  if (!me) me = await whoAmI();
  if (!me) {
    signInPage();
    return;
  }
  const [, page = 'overview', arg] = location.hash.split('/');
  const current = page === 'signin' ? 'overview' : page;
  renderNav(current);
  main.replaceChildren(h('p', {}, 'Loading…'));
  if (current === 'vendors' && arg) return vendorPage(decodeURIComponent(arg));
  const found = PAGES.find(([id]) => id === current) ?? PAGES[0];
  document.title = `${found[1]} · Core Banking Gateway admin`;
  return found[2]();
}

window.addEventListener('hashchange', () => route());
route();
