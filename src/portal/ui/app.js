// @ts-check
// The vendor portal's web UI (issue 34; contract: "Portal UI"): one page at `/portal/`, routed by
// the URL fragment, where a vendor's developer signed in with a portal token sees and manages that
// vendor's keys, usage, requests and API access through `/portal/api/` with the session cookie.
// This entry module holds who is signed in, the header, the navigation and the list of screens;
// each screen is a module of views/, built from the kit the admin console shares (src/ui-kit/).
// Elements are built with the DOM (never innerHTML from data), nothing runs inline and nothing
// loads from elsewhere (the CSP is `default-src 'self'`), errors show in role="alert", and screens
// load when navigated to or refreshed, never by polling. Names of fields, buttons and links are
// public contract.
import { button, h } from '../ui-kit/dom.js';
import { followFragment, navigate, place } from '../ui-kit/router.js';
import { portalSession, whenSessionEnds } from './portal-client.js';
import { accessView } from './views/access.js';
import { keysView } from './views/keys.js';
import { requestsView } from './views/requests.js';
import { signInView } from './views/sign-in.js';
import { usageView } from './views/usage.js';

/** @typedef {import('./types.js').PortalUser} PortalUser */
/** @typedef {{ id: string, label: string, show: (view: import('./portal-client.js').ViewContext) => Promise<void> }} Screen */

/** @type {Screen} */
const KEYS = { id: 'keys', label: 'Keys', show: keysView };
/** @type {ReadonlyArray<Screen>} */
const SCREENS = [
  KEYS,
  { id: 'usage', label: 'Usage', show: usageView },
  { id: 'requests', label: 'Requests', show: requestsView },
  { id: 'access', label: 'API access', show: accessView },
];

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
const element = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const main = element('main');
const nav = element('nav');
const who = element('who');
/** @type {PortalUser | null} */
let me = null;
/** What the sign-in page says first: why it is shown again (signed out, the session ended). */
let why = '';

async function signOut() {
  await portalSession.signOut();
  me = null;
  why = 'You have signed out.';
  await navigate('signin');
}

/**
 * @param {PortalUser} user
 * @param {string} current
 */
function renderHeader(user, current) {
  nav.hidden = false;
  nav.replaceChildren(...SCREENS.map((s) => h('a', { href: `#/${s.id}`, 'aria-current': s.id === current ? 'page' : undefined }, s.label)));
  who.replaceChildren(
    h('span', { class: 'vendor' }, user.vendorName),
    h('span', {}, `${user.name} <${user.email}>`),
    button('Sign out', signOut, { kind: 'secondary' }),
  );
}

// One route per sign-in: the fragment's change shows the screen, or, when the fragment already
// names it (signing in again where a session ended), `navigate` shows it directly.
async function signedIn() {
  me = await portalSession.current();
  why = '';
  const { screen } = place();
  await navigate(screen === '' || screen === 'signin' ? KEYS.id : location.hash.slice(2));
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
  if (!me) me = await portalSession.current();
  if (!me) {
    nav.hidden = true;
    who.replaceChildren();
    document.title = 'Sign in · Vendor portal';
    return signInView(screenRoot(), signedIn, why);
  }
  const { screen, arg } = place();
  const found = SCREENS.find((s) => s.id === screen) ?? KEYS;
  renderHeader(me, found.id);
  document.title = `${found.label} · ${me.vendorName} · Vendor portal`;
  return found.show({ main: screenRoot(), me, arg });
}

// A 401 while signed in: the session ended (idle, its lifetime, signed out elsewhere, the portal
// user removed or the vendor suspended); the sign-in page says so.
whenSessionEnds(() => {
  if (!me) return false;
  me = null;
  why = 'Your session has ended; sign in again.';
  void route();
  return true;
});
followFragment(() => route());
