// @ts-check
// Routing by the URL fragment (`#/<screen>/<argument>`): a page served from one path, with
// addresses that bookmarks and the back button keep. Every navigation shows its screen exactly
// once: setting the fragment routes through `hashchange` alone, and `navigate` to the fragment
// already there shows it directly (no event fires then). Reads and sets `location.hash`.

/** @typedef {{ screen: string, arg: string | undefined }} Place */

/** @returns {Place} */
export function place() {
  const [, screen = '', arg] = location.hash.split('/');
  return { screen, arg: arg === undefined ? undefined : decodeURIComponent(arg) };
}

/** @type {(where: Place) => unknown} */
let shown = () => undefined;

/**
 * Goes to `screen` and shows it once: through the fragment's change, or at once when the
 * fragment already names it (a sign-in on the page that asked for it).
 * @param {string} screen
 */
export function navigate(screen) {
  const target = `#/${screen}`;
  if (location.hash === target) return shown(place());
  location.hash = target;
  return undefined;
}

/**
 * Runs `show` now and on every change of the fragment.
 * @param {(where: Place) => unknown} show
 */
export function followFragment(show) {
  shown = show;
  window.addEventListener('hashchange', () => show(place()));
  show(place());
}
