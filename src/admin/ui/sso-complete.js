// @ts-check
// The page the single-sign-on callback answers: it trades the verified sign-in for the session
// cookie on a same-origin request (which a SameSite=Strict cookie needs), then opens the console.
const answer = await fetch('/ui/sso/session', { method: 'POST', headers: { 'x-requested-by': 'cbg-admin-ui' }, credentials: 'same-origin' });
location.replace(answer.ok ? '/' : '/?sso=state_mismatch');

export {};
