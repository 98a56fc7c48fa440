// @ts-check
// The admin web UI (README "Admin web UI"): one page, routed by the URL fragment, that drives the
// admin API under /v1 with the session cookie the sign-in set. This entry module holds who is
// signed in, the navigation and the list of screens; each screen is a module of views/, built from
// the shared kit in src/ui-kit/ (which the vendor portal will use too). Elements are built with
// the DOM (never innerHTML from data), no script runs inline (the CSP forbids it), nothing loads
// from elsewhere, and every error from the API shows in an element with role="alert". Accessible
// names of fields and buttons are public contract (docs/contract.md; README "Admin web UI").
import { button, h } from '../../ui-kit/dom.js';
import { followFragment, go, place } from '../../ui-kit/router.js';
import { adminSession, whenSessionEnds } from './admin-client.js';
import { accessDocumentView } from './views/access-document.js';
import { adminsView } from './views/admins.js';
import { approvalsView } from './views/approvals.js';
import { auditLogView } from './views/audit-log.js';
import { overviewView } from './views/overview.js';
import { signInView } from './views/sign-in.js';
import { usersView } from './views/users.js';
import { vendorView } from './views/vendor.js';
import { vendorsView } from './views/vendors.js';

/** @typedef {import('./admin-client.js').Admin} Admin */
/** @typedef {import('./admin-client.js').ViewContext} ViewContext */

/** @typedef {{ id: string, label: string, show: (view: ViewContext) => Promise<void>, ownersOnly?: boolean }} Screen */

/** @type {Screen} */
const OVERVIEW = { id: 'overview', label: 'Overview', show: overviewView };
/** @type {ReadonlyArray<Screen>} */
const SCREENS = [
  OVERVIEW,
  { id: 'vendors', label: 'Vendors', show: vendorsView },
  { id: 'users', label: 'Users', show: usersView },
  { id: 'access', label: 'Access document', show: accessDocumentView },
  { id: 'audit', label: 'Audit log', show: auditLogView },
  { id: 'approvals', label: 'Approvals', show: approvalsView },
  { id: 'admins', label: 'Admins', show: adminsView, ownersOnly: true },
];

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
const element = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const main = element('main');
const nav = element('nav');
const who = element('who');
/** @type {Admin | null} */
let me = null;

async function signOut() {
  await adminSession.signOut();
  me = null;
  go('signin');
  await route();
}

/**
 * @param {Admin} admin
 * @param {string} current
 */
function renderNav(admin, current) {
  nav.hidden = false;
  nav.replaceChildren(
    ...SCREENS.filter((s) => !s.ownersOnly || admin.role === 'owner').map((s) =>
      h('a', { href: `#/${s.id}`, 'aria-current': s.id === current ? 'page' : undefined }, s.label),
    ),
  );
  who.replaceChildren(`${admin.name} (${admin.role})`, button('Sign out', signOut, { kind: 'secondary' }));
}

async function signedIn() {
  me = await adminSession.current();
  if (place().screen === '' || place().screen === 'signin') go('overview');
  await route();
}

async function route() {
  if (!me) me = await adminSession.current();
  if (!me) {
    nav.hidden = true;
    who.replaceChildren();
    signInView(main, signedIn);
    return;
  }
  const { screen, arg } = place();
  const current = screen === 'signin' || screen === '' ? 'overview' : screen;
  renderNav(me, current);
  main.replaceChildren(h('p', {}, 'Loading…'));
  if (current === 'vendors' && arg) return vendorView({ main, me }, arg);
  const found = SCREENS.find((s) => s.id === current) ?? OVERVIEW;
  document.title = `${found.label} · Core Banking Gateway admin`;
  return found.show({ main, me });
}

// A 401 while signed in: the session ended (idle, signed out elsewhere, token rotated).
whenSessionEnds(() => {
  if (!me) return false;
  me = null;
  void route();
  return true;
});
followFragment(() => route());
