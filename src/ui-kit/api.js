// @ts-check
// Calls from a browser UI to its gateway's JSON API with the session cookie: problem answers
// (RFC 9457) become an ApiError a form can show, field by field, and a 401 while signed in ends
// the page's session. Reads the answer's body and headers; sets nothing but the request.

/** @typedef {{ field: string, message: string }} FieldProblem */
/** @typedef {{ title?: string, detail?: string, errors?: FieldProblem[] }} Problem */
/** @typedef {{ status: number, data: any, headers: Headers }} ApiAnswer */

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {Problem} [problem]
   */
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }

  /** The problem and each bad field, one a line. */
  describe() {
    return [this.message, ...(this.problem?.errors ?? []).map((e) => `${e.field}: ${e.message}`)].join('\n');
  }
}

/**
 * The body of an answer: null for 204, parsed JSON, or its text.
 * @param {Response} res
 */
async function bodyOf(res) {
  if (res.status === 204) return null;
  const type = res.headers.get('content-type') ?? '';
  return type.includes('json') ? res.json() : res.text();
}

/**
 * A throwing answer for a refusal.
 * @param {Response} res
 * @param {unknown} data
 */
function refusal(res, data) {
  return new ApiError(res.status, data && typeof data === 'object' ? /** @type {Problem} */ (data) : { detail: String(data) });
}

/**
 * One JSON write outside a session (signing in, redeeming a one-time code): the parsed answer, or
 * an ApiError.
 * @param {string} url
 * @param {unknown} body
 * @param {Record<string, string>} headers
 * @param {RequestCredentials} credentials
 */
export async function postJson(url, body, headers, credentials) {
  const res = await fetch(url, { method: 'POST', headers, credentials, body: JSON.stringify(body) });
  const data = await bodyOf(res).catch(() => ({}));
  if (!res.ok) throw refusal(res, data);
  return data;
}

/**
 * @typedef {object} ApiOptions
 * @property {string} base the API's path prefix, e.g. `/v1`
 * @property {Record<string, string>} writeHeaders what every write carries (content type, the anti-forgery header)
 * @property {() => boolean} sessionEnded called on a 401: true when the page was signed in (it now is not)
 */

/**
 * @param {ApiOptions} options
 * @returns {(method: string, path: string, body?: unknown, extraHeaders?: Record<string, string>) => Promise<ApiAnswer>}
 */
export function apiClient({ base, writeHeaders, sessionEnded }) {
  return async function api(method, path, body, extraHeaders = {}) {
    const headers = method === 'GET' ? { accept: 'application/json', ...extraHeaders } : { ...writeHeaders, ...extraHeaders };
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const res = await fetch(`${base}${path}`, { method, headers, credentials: 'same-origin', body: payload });
    if (res.status === 401 && sessionEnded()) throw new ApiError(401, { detail: 'Your session has ended; sign in again.' });
    const data = await bodyOf(res);
    if (!res.ok) throw refusal(res, data);
    return { status: res.status, data, headers: res.headers };
  };
}
