// @ts-check
// The sign-in screen: an admin token signs in (the browser keeps the session cookie; the token is
// not stored), and a new admin redeems the one-time enrolment code an owner handed them for their
// own token, shown this once. Both are one secret posted once, so one form serves both.
import { postJson } from '../../../ui-kit/api.js';
import { h } from '../../../ui-kit/dom.js';
import { alertBox, attempt, field, inlineForm, submit } from '../../../ui-kit/forms.js';
import { adminSession, WRITE_HEADERS } from '../admin-client.js';

/**
 * A form that takes one secret, clears it at once, and hands it to `redeem`; a refusal shows in
 * the form's alert.
 * @param {{ label: string, autocomplete: string, action: string, kind?: 'secondary', redeem: (secret: string) => Promise<unknown> }} options
 */
function secretForm({ label, autocomplete, action, kind, redeem }) {
  const secret = field(label, { type: 'password', autocomplete });
  const errors = alertBox();
  const form = inlineForm(
    async (event) => {
      event.preventDefault();
      errors.textContent = '';
      const value = secret.value();
      secret.clear();
      await attempt(errors, () => redeem(value));
    },
    secret.wrap,
    submit(action, kind),
  );
  return { form, errors, input: secret.input };
}

/**
 * @param {HTMLElement} main
 * @param {() => unknown} signedIn what follows a sign-in
 */
export function signInView(main, signedIn) {
  const token = secretForm({
    label: 'Admin token',
    autocomplete: 'current-password',
    action: 'Sign in',
    redeem: async (secret) => {
      await adminSession.signIn(secret);
      await signedIn();
    },
  });
  const issued = h('div');
  const code = secretForm({
    label: 'Enrolment code',
    autocomplete: 'off',
    action: 'Enrol',
    kind: 'secondary',
    redeem: async (secret) => {
      const answer = await postJson('/v1/admins/enrol', { enrolmentCode: secret }, WRITE_HEADERS, 'omit');
      issued.replaceChildren(
        h('div', { class: 'notice' }, `Your token as ${answer.id}, shown this once; keep it now, then sign in with it:`),
        h('p', { class: 'secret' }, answer.token),
      );
    },
  });
  main.replaceChildren(
    h('h1', {}, 'Sign in'),
    h('p', { class: 'muted' }, 'Sign in with an admin token. The browser keeps a session cookie; the token is not stored.'),
    token.form,
    token.errors,
    h(
      'section',
      {},
      h('h2', {}, 'New admin?'),
      h('p', { class: 'muted' }, 'Redeem the enrolment code an owner gave you for your own token.'),
      code.form,
      code.errors,
      issued,
    ),
  );
  token.input.focus();
}
