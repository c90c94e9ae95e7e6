// The channel, as the page calls it: POST /api/bot/<endpoint> with a JSON body, GET /api/bot/state.

let csrf = null;

/** Sets the CSRF token the page's writes carry (from /web/session or sign-in). */
export function setCsrf(token) {
  csrf = token || null;
}

/** A refusal from the host: `code` such as "bot/invalid", `message` the sentence. */
export class ApiError extends Error {
  constructor(error) {
    super(error?.message || 'The host refused this.');
    this.code = error?.code || 'bot/unknown';
    this.details = error?.details || {};
  }
  /** The field a refusal names (details.field), for showing it beside that field. */
  get field() {
    return this.details.field || null;
  }
}

async function answer(response) {
  let body;
  try {
    body = await response.json();
  } catch {
    throw new ApiError({ code: 'bot/unreachable', message: `The host answered ${response.status} without a readable body; try again.` });
  }
  if (!body.ok) throw new ApiError(body.error);
  return body;
}

/** A POST of `body` as JSON to `url`, with the guard headers. */
function post(url, body) {
  const headers = { 'content-type': 'application/json' };
  if (csrf) headers['x-flybot-csrf'] = csrf;
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body), credentials: 'same-origin' });
}

/** Calls `endpoint` with `body`; resolves to the answer (without `ok`). */
export async function call(endpoint, body = {}) {
  let response;
  try {
    response = await post(`/api/bot/${endpoint}`, body);
  } catch {
    throw new ApiError({ code: 'bot/unreachable', message: 'The host cannot be reached; check that flybot serve is running.' });
  }
  return answer(response);
}

/** The state view, narrowed to this member. */
export async function state() {
  return answer(await fetch('/api/bot/state', { credentials: 'same-origin' }));
}

/** GET /web/session: {signedIn, needsSignIn, singleOwner, member, csrf}. */
export async function session() {
  return answer(await fetch('/web/session', { credentials: 'same-origin' }));
}

/** POST /web/<path> (sign-in, sign-out) with the guard headers. */
export async function web(path, body = {}) {
  return answer(await post(`/web/${path}`, body));
}
