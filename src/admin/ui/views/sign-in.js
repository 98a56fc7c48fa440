// @ts-check
// The sign-in screen: single sign-on through the organisation's identity provider when the
// gateway offers it (a button that leaves for `/ui/sso/start`), and an admin token (the browser
// keeps the session cookie; the token is not stored); with token sign-in off, the token form stays
// for the bootstrap token alone (break-glass). A refusal single sign-on came back with
// (`/?sso=<code>`) shows in the sign-in's alert. A new admin redeems the one-time enrolment code
// an owner handed them for their own token, shown this once. Both are one secret posted once, so
// one form serves both.
import { postJson } from '../../../ui-kit/api.js';
import { button, h } from '../../../ui-kit/dom.js';
import { alertBox, attempt, field, inlineForm, submit } from '../../../ui-kit/forms.js';
import { adminSession, signInMethods, WRITE_HEADERS } from '../admin-client.js';
import { startSignIn, takeRefusal } from '../sso.js';

/**
 * A form that takes one secret, clears it at once, and hands it to `redeem`; a refusal shows in
 * the form's alert.
 * @param {{ label: string, autocomplete: string, action: string, kind?: 'secondary' | undefined, redeem: (secret: string) => Promise<unknown> }} options
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
 * What the page says above the token form: how the token signs in, next to single sign-on or alone.
 * @param {import('../admin-client.js').SignInMethods} methods
 */
function tokenLine({ sso, token }) {
  if (!token) {
    return 'Token sign-in is for the bootstrap token only: break-glass, for when single sign-on cannot be used. Each use is logged.';
  }
  const how = 'The browser keeps a session cookie; the token is not stored.';
  return sso ? `Or sign in with an admin token. ${how}` : `Sign in with an admin token. ${how}`;
}

/**
 * @param {HTMLElement} main
 * @param {() => unknown} signedIn what follows a sign-in
 */
export async function signInView(main, signedIn) {
  const methods = await signInMethods();
  const refusal = takeRefusal();
  const token = secretForm({
    label: 'Admin token',
    autocomplete: 'current-password',
    action: 'Sign in',
    kind: methods.sso ? 'secondary' : undefined,
    redeem: async (secret) => {
      await adminSession.signIn(secret);
      await signedIn();
    },
  });
  const sso = methods.sso ? button('Sign in with single sign-on', startSignIn) : null;
  const issued = h('div');
  const code = secretForm({
    label: 'Enrolment code',
    autocomplete: 'off',
    action: 'Enrol',
    kind: 'secondary',
    redeem: async (secret) => {
      const answer = await postJson('/v1/admins/enrol', { enrolmentCode: secret }, WRITE_HEADERS, 'omit');
      issued.replaceChildren(
        h(
          'div',
          { class: 'notice' },
          `Your token as ${answer.id}, shown this once; keep it now, then ${methods.token ? 'sign in with it' : 'use it with the admin API'}:`,
        ),
        h('p', { class: 'secret' }, answer.token),
      );
    },
  });
  main.replaceChildren(
    h('h1', {}, 'Sign in'),
    ...(sso ? [h('p', { class: 'muted' }, "Sign in with your organisation's account through its identity provider."), h('div', { class: 'row' }, sso)] : []),
    h('p', { class: 'muted' }, tokenLine(methods)),
    token.form,
    token.errors,
    h(
      'section',
      {},
      h('h2', {}, 'New admin?'),
      h(
        'p',
        { class: 'muted' },
        methods.token
          ? 'Redeem the enrolment code an owner gave you for your own token.'
          : 'Redeem the enrolment code an owner gave you for your own token, for the admin API and gatewayctl (the web UI signs you in with single sign-on).',
      ),
      code.form,
      code.errors,
      issued,
    ),
  );
  // Said once the alert is on the page, so that screen readers announce it.
  if (refusal) token.errors.textContent = refusal;
  (sso ?? token.input).focus();
}
