// The REST API client: the access token from the session, refreshed once when it expires (with
// the HttpOnly refresh cookie); requests retried with the same idempotency key when the network drops.
import { currentSession, startSession, endSession, maySignInAgain } from '/session.js';

/** Sent with register, login and refresh: the refresh token goes into the HttpOnly cookie only. */
export const REFRESH_COOKIE = Object.freeze({ 'X-Refresh-Cookie': '1' });

export class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

let refreshing = null;

async function refreshTokens() {
  refreshing ??= (async () => {
    const once = async () => {
      const response = await fetch('/api/v1/auth/refresh', { method: 'POST', headers: REFRESH_COOKIE, credentials: 'same-origin' });
      // Only the server's "no" ends the session here: a proxy's 502 in a deploy, or a 503, does not.
      if (response.status === 401) { endSession(); throw new ApiError(401, 'unauthorized', 'Your session ended. Please log in again.'); }
      if (!response.ok) throw new ApiError(response.status, 'unavailable', 'The server could not renew your session just now. Try again in a moment.');
      startSession(await response.json());
    };
    try {
      // Every tab shares the cookie, and each refresh replaces it: one tab at a time, so that none
      // presents a cookie another has just used (which would end the session everywhere).
      if (navigator.locks) await navigator.locks.request('bullpen-refresh', once); else await once();
    } finally { refreshing = null; }
  })();
  return refreshing;
}

/** After a reload: a new access token from the refresh cookie, if someone signed in here. */
export async function restoreSession() {
  if (currentSession() || !maySignInAgain()) return;
  try { await refreshTokens(); } catch { /* signed out: the login screen shows */ }
}

export function newIdempotencyKey() {
  return crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random().toString(16).slice(2);
}

const offline = new Set();
/** `listener(true)` when a request could not reach the server, `listener(false)` when one did. */
export function onOffline(listener) { offline.add(listener); }

/**
 * Calls the API. `body` is sent as JSON; `idempotencyKey` makes retries safe; `raw` returns the
 * Response itself. Throws ApiError with the server's code and message.
 */
export async function api(path, { method = 'GET', body, blob, idempotencyKey, raw = false, auth = true, retried = false, headers: extra = {} } = {}) {
  const headers = { ...extra };
  const access = currentSession()?.access;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  // A file sent as it is (an avatar), with its own type.
  if (blob !== undefined) headers['Content-Type'] = blob.type || 'application/octet-stream';
  if (auth && access) headers['Authorization'] = `Bearer ${access}`;
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  let response;
  for (let attempt = 0; ; attempt++) {
    try {
      response = await fetch(path, { method, headers, body: blob ?? (body === undefined ? undefined : JSON.stringify(body)) });
      offline.forEach((listener) => listener(false));
      break;
    } catch (error) {
      offline.forEach((listener) => listener(true));
      // Only requests that are safe to repeat are retried: reads, and writes with an idempotency key.
      if (attempt >= 3 || (method !== 'GET' && !idempotencyKey)) {
        throw new ApiError(0, 'network', 'The network dropped. Check your connection and try again; nothing was lost.');
      }
      await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
    }
  }
  // An expired access token is renewed once and the call made again; so is logging out, which must
  // reach the server to end the session and clear the refresh cookie, however long the page sat idle.
  const renewable = !path.startsWith('/api/v1/auth/') || path === '/api/v1/auth/logout';
  if (response.status === 401 && auth && currentSession() && !retried && renewable) {
    await refreshTokens();
    return api(path, { method, body, blob, idempotencyKey, raw, auth, retried: true, headers: extra });
  }
  if (raw && response.ok) return response;
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (!response.ok) {
    const code = data?.error?.code ?? 'error';
    let message = data?.error?.message ?? `Something went wrong (${response.status}).`;
    const wait = response.headers.get('Retry-After');
    if (response.status === 429 && wait) message = `Too many attempts. Try again in ${Math.ceil(Number(wait) / 60)} minute(s).`;
    throw new ApiError(response.status, code, message);
  }
  return data;
}

/** The text to show for a failed call: the server's words, or a general one for a bug. */
export function errorMessage(error) {
  return error instanceof ApiError ? error.message : 'Something went wrong. Try again.';
}
