// @ts-check
// Routing by the URL fragment (`#/<screen>/<argument>`): a page served from one path, with
// addresses that bookmarks and the back button keep. Reads `location.hash`; sets it when told.

/** @typedef {{ screen: string, arg: string | undefined }} Place */

/** @returns {Place} */
export function place() {
  const [, screen = '', arg] = location.hash.split('/');
  return { screen, arg: arg === undefined ? undefined : decodeURIComponent(arg) };
}

/** @param {string} screen */
export function go(screen) {
  location.hash = `#/${screen}`;
}

/**
 * Runs `show` now and on every change of the fragment.
 * @param {(where: Place) => unknown} show
 */
export function followFragment(show) {
  window.addEventListener('hashchange', () => show(place()));
  show(place());
}
