// @ts-check
// The last step of a single sign-on (README "Admin web UI"), on the page the gateway answers at
// `/ui/sso/callback` once it verified the identity provider's answer: the session cookie is
// SameSite=Strict, which a redirect from the provider's site would not carry, so this page asks
// for it itself, same-site (`POST /ui/sso/session`, with the console's anti-forgery header), then
// opens the console. Any failure sends the page to the sign-in page, which says to try again.
// Reads nothing of the page; sets the session cookie (through the gateway's answer) and the address.
import { WRITE_HEADERS } from './admin-client.js';

async function finishSignIn() {
  let refusal = 'state_mismatch';
  try {
    const res = await fetch('/ui/sso/session', { method: 'POST', headers: WRITE_HEADERS, credentials: 'same-origin', body: '{}' });
    if (res.ok) {
      location.replace('/');
      return;
    }
    // The gateway's store was down: say so, rather than that the sign-in expired.
    if (res.status === 503) refusal = 'store_unavailable';
  } catch {
    // The gateway could not be reached: the sign-in page says to try again, as for a refusal.
  }
  location.replace(`/?sso=${refusal}`);
}

void finishSignIn();
