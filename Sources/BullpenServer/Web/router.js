// Routing by URL hash (#/stock/MSFT): one line per screen in ROUTES; each screen is a module
// under /screens/ whose default export draws it into <main>, loaded when first opened.
import { html, render } from '/html.js';
import { ApiError } from '/api.js';
import { currentSession, endSession } from '/session.js';
import { closeDialog } from '/components/dialog.js';

/**
 * The screens. access: 'guest' (signed out only), 'user' (signed in only) or 'any';
 * tab: the navigation link lit while the screen shows.
 */
const ROUTES = {
  login:     { load: () => import('/screens/auth.js'), access: 'guest' },
  signup:    { load: () => import('/screens/auth.js'), access: 'guest' },
  portfolio: { load: () => import('/screens/portfolio.js'), access: 'user', tab: 'portfolio' },
  market:    { load: () => import('/screens/market.js'), access: 'user', tab: 'market' },
  stock:     { load: () => import('/screens/stock.js'), access: 'user', tab: 'market' },
  history:   { load: () => import('/screens/history.js'), access: 'user', tab: 'history' },
  profiles:  { load: () => import('/screens/profiles.js'), access: 'user', tab: 'profiles' },
  report:    { load: () => import('/screens/report.js'), access: 'user', tab: 'profiles' },
  leagues:   { load: () => import('/screens/leagues.js'), access: 'user', tab: 'leagues' },
  people:    { load: () => import('/screens/people.js'), access: 'user', tab: 'people' },
  notifications: { load: () => import('/screens/notifications.js'), access: 'user', tab: 'notifications' },
  settings:  { load: () => import('/screens/settings.js'), access: 'user', tab: 'settings' },
  help:      { load: () => import('/screens/help.js'), access: 'any', tab: 'help' },
  learn:     { load: () => import('/screens/learn.js'), access: 'user', tab: 'help' },
};

const main = document.getElementById('main');
const nav = document.getElementById('nav');
let generation = 0;
let cleanup = [];

/** Draws `template` as the screen and moves the focus to it. */
export function view(template) {
  render(main, template);
  main.focus({ preventScroll: true });
}

/** Which screen the hash asks for, after the rules of access. */
function resolve() {
  const [first, ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  const signedIn = !!currentSession();
  let name = ROUTES[first] ? first : signedIn ? 'portfolio' : 'login';
  if (!signedIn && ROUTES[name].access === 'user') name = 'login';
  if (signedIn && ROUTES[name].access === 'guest') name = 'portfolio';
  return { name, params: rest.map(decodeURIComponent), signedIn };
}

/**
 * Draws the screen of the current hash. The screen gets { name, params, live, onLeave }: `live()`
 * is false once another route has started (a screen checks it after each wait, so a slow answer
 * never draws over the newer screen); `onLeave(fn)` runs fn when the player leaves.
 */
export async function route() {
  const mine = ++generation;
  const live = () => mine === generation;
  cleanup.forEach((fn) => fn());
  cleanup = [];
  closeDialog();
  const { name, params, signedIn } = resolve();
  nav.hidden = !signedIn;
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.tab === ROUTES[name].tab) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  // <main> says which screen and which path it is drawing, and is busy until that screen has drawn.
  main.dataset.screen = name;
  main.dataset.path = location.hash;
  main.setAttribute('aria-busy', 'true');
  try {
    const screen = await ROUTES[name].load();
    if (!live()) return;
    await screen.default({ name, params, live, onLeave: (fn) => cleanup.push(fn) });
    // Who follows the player around (the first run's guide) hears which screen is showing.
    if (live()) window.dispatchEvent(new CustomEvent('bullpen:screen', { detail: { name, params } }));
  } catch (error) {
    if (!live()) return;
    if (error instanceof ApiError && error.status === 401) { endSession(); location.hash = '#/login'; return; }
    view(html`<div class="card"><h1>Something went wrong</h1><p>${error.message}</p><button id="again" class="primary">Try again</button></div>`);
    document.getElementById('again').addEventListener('click', route);
  } finally {
    if (live()) main.removeAttribute('aria-busy');
  }
}

/** Opens `hash`; when it is the one showing already, draws its screen again (setting the same hash changes nothing). */
export function navigate(hash) {
  if (location.hash === hash) route(); else location.hash = hash;
}

export function startRouter() {
  window.addEventListener('hashchange', route);
  route();
}
