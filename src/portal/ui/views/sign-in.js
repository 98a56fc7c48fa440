// @ts-check
// The portal's sign-in: the portal token a bank admin issued (shown to them once, reusable until
// it expires), posted once to `/portal/api/session`; the browser keeps the HttpOnly session cookie
// the gateway sets and the page never stores the token. A refusal names the field `token`, so its
// message shows next to **Portal token**; a throttled sign-in (429) shows in the form's alert.
import { h } from '../../ui-kit/dom.js';
import { alertBox, field, statusBox, submit, tell } from '../../ui-kit/forms.js';
import { apiField, clearProblems, showProblems } from '../field-problems.js';
import { portalSession } from '../portal-client.js';

/**
 * @param {HTMLElement} main
 * @param {() => unknown} signedIn what follows a sign-in
 * @param {string} why why the page asks again (signed out, the session ended); '' at first
 */
export async function signInView(main, signedIn, why) {
  const token = apiField(field('Portal token', { type: 'password', required: true, autocomplete: 'current-password' }), 'token');
  const general = alertBox();
  const status = statusBox();
  const form = h(
    'form',
    {
      class: 'sign-in',
      onsubmit: async (event) => {
        event.preventDefault();
        clearProblems(general, [token]);
        const secret = token.value();
        token.clear();
        try {
          await portalSession.signIn(secret);
          await signedIn();
        } catch (err) {
          showProblems(err, general, [token]);
          token.input.focus();
        }
      },
    },
    token.wrap,
    general,
    h('div', { class: 'row' }, submit('Sign in')),
  );
  main.replaceChildren(
    h('h1', {}, 'Sign in'),
    status,
    h(
      'p',
      { class: 'muted' },
      "Sign in with the portal token your bank's administrators gave you (it starts with cbp_). The browser keeps a session cookie; the token is not stored.",
    ),
    form,
  );
  // Said once the status is on the page, so that screen readers announce it.
  if (why) tell(status, why, 'muted');
  token.input.focus();
}
