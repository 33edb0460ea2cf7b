// The signed-in player's session: the user and both tokens, kept in localStorage so that a reload
// stays signed in; listeners hear every change (sign in, refresh, sign out).
const KEY = 'bullpen.session';

let session = JSON.parse(localStorage.getItem(KEY) || 'null');
const listeners = new Set();

/** { user, access, refresh } or null when signed out. */
export function currentSession() { return session; }

export function onSessionChange(listener) { listeners.add(listener); }

function save(next) {
  session = next;
  if (next) localStorage.setItem(KEY, JSON.stringify(next)); else localStorage.removeItem(KEY);
  listeners.forEach((listener) => listener(session));
}

/** Keeps the answer of register, login or refresh. */
export function startSession(auth) {
  save({ user: auth.user, access: auth.tokens.accessToken, refresh: auth.tokens.refreshToken });
}

export function endSession() { save(null); }
