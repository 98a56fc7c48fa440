// @ts-check
// The admin web UI (README "Admin web UI"): one page, routed by the URL fragment, that drives the
// admin API under /v1 with the session cookie the sign-in set. This entry module holds who is
// signed in, the navigation and the list of screens; each screen is a module of views/, built from
// the shared kit in src/ui-kit/ (which the vendor portal will use too). Elements are built with
// the DOM (never innerHTML from data), no script runs inline (the CSP forbids it), nothing loads
// from elsewhere, and every error from the API shows in an element with role="alert". Accessible
// names of fields and buttons are public contract (docs/contract.md; README "Admin web UI").
// When a single-sign-on admin's session ends, the page first tries to sign them in again silently
// (sso.js), once, before it shows the sign-in page.
import { button, h } from '../../ui-kit/dom.js';
import { followFragment, navigate, place } from '../../ui-kit/router.js';
import { adminSession, whenSessionEnds } from './admin-client.js';
import { accessDocumentView } from './views/access-document.js';
import { adminsView } from './views/admins.js';
import { approvalsView } from './views/approvals.js';
import { auditLogView } from './views/audit-log.js';
import { overviewView } from './views/overview.js';
import { returnToScreen, trySilentSignIn } from './sso.js';
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
  await navigate('signin');
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
  who.replaceChildren(`${admin.name}${admin.email ? ` <${admin.email}>` : ''} (${admin.role})`, button('Sign out', signOut, { kind: 'secondary' }));
}

// One route per sign-in: the fragment's change shows the screen, or, when the fragment already
// names it (signing in again where a session ended), `navigate` shows it directly.
async function signedIn() {
  me = await adminSession.current();
  const { screen } = place();
  await navigate(screen === '' || screen === 'signin' ? 'overview' : location.hash.slice(2));
}

/**
 * A fresh element for one navigation's screen: a screen still loading when the next navigation
 * starts then fills an element no longer on the page, never the one shown.
 */
function screenRoot() {
  const root = h('div', { class: 'screen' }, h('p', {}, 'Loading…'));
  main.replaceChildren(root);
  return root;
}

async function route() {
  if (!me) me = await adminSession.current();
  if (!me) {
    nav.hidden = true;
    who.replaceChildren();
    return signInView(screenRoot(), signedIn);
  }
  const { screen, arg } = place();
  const current = screen === 'signin' || screen === '' ? 'overview' : screen;
  renderNav(me, current);
  const root = screenRoot();
  if (current === 'vendors' && arg) return vendorView({ main: root, me }, arg);
  const found = SCREENS.find((s) => s.id === current) ?? OVERVIEW;
  document.title = `${found.label} · Core Banking Gateway admin`;
  return found.show({ main: root, me });
}

// A 401 while signed in: the session ended (idle, signed out elsewhere, token rotated, or a
// single-sign-on session's time to read the admin's role again). A single-sign-on admin goes to
// the identity provider for a silent sign-in, while its own session holds; it comes back signed in,
// or to the sign-in page with why not.
whenSessionEnds(() => {
  if (!me) return false;
  const wasSso = me.source === 'oidc';
  me = null;
  if (!(wasSso && trySilentSignIn())) void route();
  return true;
});
returnToScreen();
followFragment(() => route());
