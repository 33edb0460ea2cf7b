// The signed-in player's session: the user and the access token, in memory only, so that a script
// injected into the page finds no long-lived credential to steal. The refresh token is a cookie no
// script can read (HttpOnly, set by the server, sent only to /api/v1/auth); a reload gets a new
// access token with it (api.js restoreSession). localStorage keeps only a hint that someone signed
// in here, never a token, so that a visitor who did not is not sent through a refresh that must fail.
const HINT = 'bullpen.signedIn';
localStorage.removeItem('bullpen.session');   // tokens an older version of the app kept there

let session = null;
const listeners = new Set();

/** { user, access } or null when signed out. */
export function currentSession() { return session; }

export function onSessionChange(listener) { listeners.add(listener); }

/** Whether a refresh cookie may be waiting (someone signed in here and did not sign out). */
export function maySignInAgain() { return localStorage.getItem(HINT) === '1'; }

function save(next) {
  session = next;
  if (next) localStorage.setItem(HINT, '1'); else localStorage.removeItem(HINT);
  listeners.forEach((listener) => listener(session));
}

/** Keeps the answer of register, login or refresh (its refresh token went into the cookie). */
export function startSession(auth) {
  save({ user: auth.user, access: auth.tokens.accessToken });
}

export function endSession() { save(null); }
