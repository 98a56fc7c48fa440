// @ts-check
// Single sign-on in the admin console (README "Admin web UI"): where a sign-in with the
// organisation's identity provider starts (`/ui/sso/start`, a top-level navigation the gateway
// answers with a redirect to the provider), what each refusal the gateway sends back as
// `/?sso=<code>` means in plain words, and the one silent re-sign-in when a single-sign-on
// session ends. Reads and strips the page's `?sso=` query; sets two sessionStorage entries: when the
// last silent attempt was, so a provider that keeps refusing never sends the page round in a loop,
// and the screen it left from, which the page opens again when it comes back (the gateway always
// comes back to `/`).

const START = '/ui/sso/start';
const SILENT_ATTEMPT_KEY = 'cbg-admin-sso-silent-at';
const LEFT_FROM_KEY = 'cbg-admin-sso-left-from';
/** A silent attempt at most once a minute: a second ending within it shows the sign-in page. */
const SILENT_ATTEMPT_GAP_MS = 60_000;

/** @type {Readonly<Record<string, string>>} */
const REFUSALS = {
  no_role: "Your account is in none of the identity provider's groups that give a gateway role; ask an owner to map your group.",
  groups_overage:
    "The identity provider left your groups out because you are in too many. An owner should have the gateway's app registration send app roles instead, and set admin.oidc.rolesClaim: roles.",
  invalid_token: "The identity provider's answer could not be verified. Try again, and tell an owner if it happens again.",
  wrong_issuer: 'The answer came from an identity provider other than the one this gateway trusts. Try again, and tell an owner if it happens again.',
  state_mismatch: 'The sign-in expired or was started in another window or browser. Try again.',
  blocked: 'An owner has blocked your single sign-on to this gateway. Ask an owner if you think this is wrong.',
  provider_error: 'The identity provider refused the sign-in. Try again, and tell an owner if it happens again.',
  provider_unavailable: 'The identity provider could not be reached. Try again in a moment.',
  login_required: 'Your single sign-on session has ended. Sign in again.',
  identity_conflict:
    'Your account matches an admin of this gateway that signs in another way (another identity provider, or an admin token). Ask an owner to sort out the two.',
  store_unavailable: 'The gateway could not record your sign-in just now (its store or audit log is unavailable). Try again in a moment.',
};

/**
 * What a refusal code means. An unknown code is not shown: anyone can put text in a link to this
 * page, and the page must not say it in the gateway's voice.
 * @param {string} code
 */
const refusalText = (code) =>
  (Object.hasOwn(REFUSALS, code) ? REFUSALS[code] : undefined) ?? 'Single sign-on did not finish. Try again, and tell an owner if it happens again.';

/**
 * The refusal the gateway's redirect carried (`?sso=<code>`), in words, once: the query leaves the
 * address at once, so a reload or a bookmark does not show it again. Null when there is none.
 * @returns {string | null}
 */
export function takeRefusal() {
  const code = new URLSearchParams(location.search).get('sso');
  if (code === null) return null;
  history.replaceState(history.state, '', `${location.pathname}${location.hash}`);
  return refusalText(code);
}

/**
 * Leaves for the identity provider in the top window (the gateway's redirect needs the whole page).
 * A sign-in the admin asked for starts the silent attempts' count afresh: only a loop of them is
 * what the record guards against.
 */
export function startSignIn() {
  try {
    sessionStorage.removeItem(SILENT_ATTEMPT_KEY);
  } catch {
    // No session storage: no silent attempt is ever made either.
  }
  (window.top ?? window).location.assign(START);
}

/**
 * A silent re-sign-in (`prompt=none`: no page of the provider's while its own session holds), unless
 * one was tried in the last minute or the browser keeps no session storage to remember it by.
 * @returns {boolean} true when the page is leaving for it
 */
export function trySilentSignIn() {
  try {
    const last = Number(sessionStorage.getItem(SILENT_ATTEMPT_KEY));
    const now = Date.now();
    if (Number.isFinite(last) && now - last >= 0 && now - last < SILENT_ATTEMPT_GAP_MS) return false;
    sessionStorage.setItem(SILENT_ATTEMPT_KEY, String(now));
    sessionStorage.setItem(LEFT_FROM_KEY, location.hash);
  } catch {
    return false;
  }
  (window.top ?? window).location.assign(`${START}?silent=1`);
  return true;
}

/**
 * Back from a silent attempt (signed in, or on the sign-in page with why not): the address gets the
 * screen it left from again, once, unless it names one already.
 */
export function returnToScreen() {
  try {
    const hash = sessionStorage.getItem(LEFT_FROM_KEY);
    sessionStorage.removeItem(LEFT_FROM_KEY);
    if (hash?.startsWith('#/') && location.hash === '') history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
  } catch {
    // No session storage: no silent attempt was made.
  }
}
