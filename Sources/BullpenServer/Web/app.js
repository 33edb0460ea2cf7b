// Bullpen's web app: plain JavaScript modules on the REST API and the quote stream.
import { api, ApiError, currentSession, startSession, endSession, onSessionChange, newIdempotencyKey, onOffline } from './api.js';
import { lineChart } from './chart.js';
import { formatMoney, formatSignedMoney, formatPrice, formatPercent, formatNumber, formatDate, formatDateTime, tone, esc } from './format.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const dialog = document.getElementById('dialog');
const app = { portfolios: [], status: null, clock: null, cleanup: [], token: 0 };

/** True while the render that called it is still the latest one (a newer route makes it stale). */
function current() { const token = app.token; return () => token === app.token; }

// ---------- Appearance ----------
const media = matchMedia('(prefers-color-scheme: dark)');
function applyAppearance() {
  const theme = localStorage.getItem('bullpen.theme') || 'system';
  document.documentElement.dataset.theme = theme === 'system' ? (media.matches ? 'dark' : 'light') : theme;
  document.documentElement.dataset.palette = localStorage.getItem('bullpen.palette') || 'standard';
}
media.addEventListener('change', applyAppearance);
applyAppearance();

// ---------- Small helpers ----------
function toast(message) {
  const node = document.getElementById('toast');
  node.textContent = message;
  node.classList.add('show');
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => node.classList.remove('show'), 3500);
}
function view(html) { main.innerHTML = html; main.focus({ preventScroll: true }); }
function signedClass(text) { const t = tone(text); return t ? `class="${t}"` : ''; }
function changeHTML(money, percent) {
  const t = tone(money ?? percent);
  return `<span class="pill ${t}">${money != null ? esc(formatSignedMoney(money)) + ' ' : ''}(${esc(formatPercent(percent))})</span>`;
}
function showError(node, error) { node.textContent = error instanceof ApiError ? error.message : 'Something went wrong. Try again.'; }
function logoImg(asset, small = false) {
  return `<img class="logo${small ? ' small' : ''}" src="${esc(asset.logoUrl)}" alt="" width="${small ? 28 : 40}" height="${small ? 28 : 40}" loading="lazy">`;
}
function selectedPortfolioId() {
  const saved = localStorage.getItem('bullpen.portfolio');
  return app.portfolios.find((p) => p.id === saved)?.id ?? app.portfolios[0]?.id;
}
async function loadPortfolios() {
  app.portfolios = (await api('/api/v1/portfolios')).portfolios;
  return app.portfolios;
}
function onLeave(fn) { app.cleanup.push(fn); }

// ---------- Banners: demo market, market closed, offline ----------
let isOffline = false;
onOffline((value) => { if (value !== isOffline) { isOffline = value; renderBanners(); } });
function renderBanners() {
  const parts = [];
  if (isOffline) parts.push('<div class="banner offline">You are offline. We will retry; nothing you did is lost.</div>');
  if (app.status?.simulated) parts.push(`<div class="banner demo" data-testid="demo-banner">Demo market, simulated prices: these companies are invented.</div>`);
  if (app.clock && !app.clock.isOpen) parts.push(`<div class="banner closed" data-testid="closed-banner">The market is closed. Orders fill at the last price. Next open: ${esc(formatDateTime(app.clock.nextOpen))}.</div>`);
  document.getElementById('banners').innerHTML = parts.join('');
}
async function refreshMarket() {
  try { app.status = await api('/api/v1/market/status', { auth: false }); } catch { app.status = null; }
  try { app.clock = await api('/api/v1/market/clock', { auth: false }); } catch { app.clock = null; }
  renderBanners();
}

// ---------- Router ----------
const routes = {
  login: () => authView('login'), signup: () => authView('signup'),
  portfolio: portfolioView, market: marketView, stock: stockView, history: historyView,
  settings: settingsView, help: helpView,
};
async function route() {
  app.token += 1;
  app.cleanup.forEach((fn) => fn());
  app.cleanup = [];
  if (dialog.open) dialog.close();
  const [name, ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  const signedIn = !!currentSession();
  let target = name || (signedIn ? 'portfolio' : 'login');
  if (!signedIn && !['login', 'signup', 'help'].includes(target)) target = 'login';
  if (signedIn && ['login', 'signup'].includes(target)) target = 'portfolio';
  nav.hidden = !signedIn;
  for (const link of nav.querySelectorAll('a')) {
    const current = link.dataset.tab === target || (target === 'stock' && link.dataset.tab === 'market');
    if (current) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  const render = routes[target] ?? portfolioView;
  try {
    await render(...rest.map(decodeURIComponent));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) { endSession(); location.hash = '#/login'; return; }
    view(`<div class="card"><h1>Something went wrong</h1><p>${esc(error.message)}</p><button id="again" class="primary">Try again</button></div>`);
    document.getElementById('again').onclick = route;
  }
}
window.addEventListener('hashchange', route);
onSessionChange((session) => { if (!session && location.hash !== '#/login' && location.hash !== '#/signup') location.hash = '#/login'; });

// ---------- Sign up / log in ----------
function authView(mode) {
  const signup = mode === 'signup';
  view(`<div class="auth card">
    <h1>Bullpen</h1>
    <p class="muted">Learn investing with virtual cash and real prices.</p>
    <h2>${signup ? 'Create your account' : 'Log in'}</h2>
    <form id="auth-form" novalidate>
      <label for="username">Username</label>
      <input id="username" name="username" autocomplete="username" required minlength="3" maxlength="32" aria-describedby="username-error">
      <p class="error" id="username-error" role="alert"></p>
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="${signup ? 'new-password' : 'current-password'}" required aria-describedby="password-hint password-error">
      ${signup ? '<p class="muted small" id="password-hint">At least 8 characters. A few words make a strong password.</p>' : '<span id="password-hint" hidden></span>'}
      <p class="error" id="password-error" role="alert"></p>
      <p class="error" id="form-error" role="alert"></p>
      <div class="actions"><button class="primary" type="submit" id="submit">${signup ? 'Create account' : 'Log in'}</button></div>
    </form>
    <p>${signup ? 'Already playing? <a href="#/login">Log in</a>' : 'New here? <a href="#/signup">Create an account</a>'}</p>
  </div>`);
  const form = document.getElementById('auth-form');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (const id of ['username-error', 'password-error', 'form-error']) document.getElementById(id).textContent = '';
    const button = document.getElementById('submit');
    button.disabled = true;
    button.textContent = signup ? 'Creating…' : 'Logging in…';
    try {
      const auth = await api(`/api/v1/auth/${signup ? 'register' : 'login'}`, { method: 'POST', auth: false,
        body: { username: form.username.value.trim(), password: form.password.value } });
      startSession(auth);
      await refreshMarket();
      location.hash = '#/portfolio';
    } catch (error) {
      const target = { username_taken: 'username-error', invalid_username: 'username-error', weak_password: 'password-error' }[error.code] ?? 'form-error';
      const messages = {
        username_taken: 'That username is taken. Try another one.',
        invalid_credentials: 'The username or password is wrong.',
      };
      document.getElementById(target).textContent = messages[error.code] ?? error.message;
      button.disabled = false;
      button.textContent = signup ? 'Create account' : 'Log in';
    }
  });
  document.getElementById('username').focus();
}

// ---------- Portfolio ----------
async function portfolioView() {
  const live = current();
  view('<h1>Portfolio</h1><p class="loading">Loading your portfolio…</p>');
  await loadPortfolios();
  const id = selectedPortfolioId();
  const [portfolio, positions] = await Promise.all([api(`/api/v1/portfolios/${id}`), api(`/api/v1/portfolios/${id}/positions`)]);
  if (!live()) return;
  const options = app.portfolios.map((p) => `<option value="${esc(p.id)}" ${p.id === id ? 'selected' : ''}>${esc(p.name)}</option>`).join('');
  view(`<div class="spread"><h1>Portfolio</h1>
      <div class="row"><label for="portfolio-switch" class="visually-hidden" style="margin:0">Portfolio</label>
        <select id="portfolio-switch" style="width:auto">${options}</select>
        <button id="new-portfolio">New portfolio</button><button id="reset-portfolio" class="danger">Reset</button></div></div>
    <div class="grid" data-testid="summary">
      <div class="card stat"><div class="label">Equity</div><div class="value" id="equity">${esc(formatMoney(portfolio.equity))}</div></div>
      <div class="card stat"><div class="label">Cash</div><div class="value" id="cash">${esc(formatMoney(portfolio.cash))}</div></div>
      <div class="card stat"><div class="label">Total return</div><div class="value ${tone(portfolio.totalReturnPercent)}">${esc(formatSignedMoney((Number(portfolio.equity) - Number(portfolio.startingCash)).toFixed(2)))}<div class="small">${esc(formatPercent(portfolio.totalReturnPercent))}</div></div></div>
      <div class="card stat"><div class="label">Today</div><div class="value ${tone(portfolio.dayChange)}">${esc(formatSignedMoney(portfolio.dayChange))}<div class="small">${esc(formatPercent(portfolio.dayChangePercent ?? '0'))}</div></div></div>
    </div>
    <div class="row small muted" style="margin-top:8px">Market value ${esc(formatMoney(portfolio.marketValue))} · Realized P&amp;L <span ${signedClass(portfolio.realizedPnl)}>${esc(formatSignedMoney(portfolio.realizedPnl))}</span> · Unrealized <span ${signedClass(portfolio.unrealizedPnl)}>${esc(formatSignedMoney(portfolio.unrealizedPnl))}</span></div>
    <h2>Equity over time</h2>
    <div class="card"><div class="legend"><span class="equity">Your portfolio</span><span class="benchmark">S&amp;P 500${app.status?.simulated ? ' (demo index)' : ''}</span></div><div id="equity-chart"></div></div>
    <h2>Holdings</h2>
    <div class="card" id="holdings">${holdingsHTML(positions.positions)}</div>`);
  document.getElementById('portfolio-switch').onchange = (event) => { localStorage.setItem('bullpen.portfolio', event.target.value); route(); };
  document.getElementById('new-portfolio').onclick = newPortfolioDialog;
  document.getElementById('reset-portfolio').onclick = () => resetDialog(portfolio);
  for (const row of document.querySelectorAll('#holdings tr[data-symbol]')) {
    row.onclick = () => { location.hash = `#/stock/${row.dataset.symbol}`; };
    row.onkeydown = (event) => { if (event.key === 'Enter') row.onclick(); };
  }
  api(`/api/v1/portfolios/${id}/history`).then((history) => {
    const node = document.getElementById('equity-chart');
    if (!node) return;
    lineChart(node, {
      describe: 'Equity of the portfolio over time against the S&P 500',
      formatValue: (v) => formatMoney(v),
      series: [
        { name: 'Portfolio', color: 'var(--accent)', points: history.points.map((p) => ({ label: formatDate(p.date), value: Number(p.equity) })) },
        { name: 'S&P 500', color: 'var(--muted)', dashed: true, points: history.points.map((p) => ({ label: formatDate(p.date), value: p.benchmark == null ? NaN : Number(p.benchmark) })) },
      ],
    });
  }).catch(() => {});
}

function holdingsHTML(positions) {
  if (positions.length === 0) return '<p>No holdings yet. <a href="#/market">Find a company in Market</a> and buy your first shares.</p>';
  return `<table><caption class="visually-hidden">Holdings</caption><thead><tr><th scope="col">Company</th><th scope="col">Shares</th>
    <th scope="col" class="hide-narrow">Avg cost</th><th scope="col" class="hide-narrow">Last</th><th scope="col">Value</th><th scope="col">Unrealized</th></tr></thead><tbody>
    ${positions.map((p) => `<tr class="clickable" tabindex="0" data-symbol="${esc(p.symbol)}">
      <td><strong>${esc(p.symbol)}</strong><div class="small muted">${esc(p.name ?? '')}</div></td>
      <td>${esc(formatNumber(p.quantity))}</td>
      <td class="hide-narrow">${esc(formatPrice(p.averageCost))}</td>
      <td class="hide-narrow">${esc(formatPrice(p.lastPrice))}</td>
      <td>${esc(formatMoney(p.marketValue))}</td>
      <td class="${tone(p.unrealizedPnl)}">${esc(formatSignedMoney(p.unrealizedPnl))}<div class="small">${esc(formatPercent(p.unrealizedPnlPercent ?? '0'))}</div></td></tr>`).join('')}
  </tbody></table>`;
}

function openDialog(html) {
  dialog.innerHTML = html;
  dialog.showModal();
  dialog.querySelector('[data-close]')?.addEventListener('click', () => dialog.close());
}

function newPortfolioDialog() {
  openDialog(`<h2 id="dialog-title">New portfolio</h2><form id="new-form" novalidate>
    <label for="new-name">Name</label><input id="new-name" required maxlength="50">
    <label for="new-cash">Starting cash (1,000 to 10,000,000)</label><input id="new-cash" inputmode="decimal" value="100000">
    <p class="error" id="new-error" role="alert"></p>
    <div class="actions"><button class="primary" type="submit">Create</button><button type="button" data-close>Cancel</button></div></form>`);
  document.getElementById('new-form').onsubmit = async (event) => {
    event.preventDefault();
    try {
      const created = await api('/api/v1/portfolios', { method: 'POST', body: { name: document.getElementById('new-name').value, startingCash: document.getElementById('new-cash').value.replace(/[,$\s]/g, '') } });
      localStorage.setItem('bullpen.portfolio', created.id);
      dialog.close();
      toast(`Created ${created.name}.`);
      route();
    } catch (error) { showError(document.getElementById('new-error'), error); }
  };
}

function resetDialog(portfolio) {
  openDialog(`<h2 id="dialog-title">Reset ${esc(portfolio.name)}?</h2>
    <p>Your holdings are closed out and cash goes back to ${esc(formatMoney(portfolio.startingCash))}. Your history stays, as a closed period.</p>
    <p class="error" id="reset-error" role="alert"></p>
    <div class="actions"><button class="danger" id="confirm-reset">Reset portfolio</button><button data-close>Cancel</button></div>`);
  document.getElementById('confirm-reset').onclick = async () => {
    try { await api(`/api/v1/portfolios/${portfolio.id}/reset`, { method: 'POST' }); dialog.close(); toast('Portfolio reset.'); route(); }
    catch (error) { showError(document.getElementById('reset-error'), error); }
  };
}

// ---------- Market ----------
const SORTS = [['relevance', 'Best match'], ['symbol', 'A–Z'], ['-symbol', 'Z–A'], ['-price', 'Price: high to low'], ['price', 'Price: low to high'], ['-change', 'Change: best first'], ['change', 'Change: worst first']];
const SECTORS = ['Communication Services', 'Consumer Discretionary', 'Consumer Staples', 'Energy', 'Financials', 'Health Care', 'Industrials', 'Information Technology', 'Materials', 'Real Estate', 'Utilities'];

async function marketView() {
  view(`<h1>Market</h1>
    <div class="search" role="search">
      <label for="search">Search companies by symbol or name</label>
      <input id="search" type="search" autocomplete="off" placeholder="e.g. micro or AAPL" role="combobox" aria-expanded="false" aria-controls="suggestions" aria-autocomplete="list">
      <ul id="suggestions" role="listbox" aria-label="Suggestions" hidden></ul>
    </div>
    <h2>Today's movers</h2>
    <div id="movers"><p class="loading">Loading…</p></div>
    <h2>Watchlist</h2>
    <div class="card" id="watchlist"><p class="loading">Loading…</p></div>
    <h2>All companies</h2>
    <div class="row">
      <div style="flex:1;min-width:140px"><label for="sort">Sort</label><select id="sort">${SORTS.map(([v, l]) => `<option value="${v}">${l}</option>`).join('')}</select></div>
      <div style="flex:1;min-width:140px"><label for="sector">Sector</label><select id="sector"><option value="">All sectors</option>${SECTORS.map((s) => `<option>${s}</option>`).join('')}</select></div>
    </div>
    <div class="card" id="browse" style="margin-top:12px"></div>`);
  setupSearch();
  loadMovers();
  loadWatchlist();
  const state = { cursor: null };
  const browse = async () => {
    const node = document.getElementById('browse');
    if (!node) return;
    const params = new URLSearchParams({ limit: '25', sort: document.getElementById('sort').value });
    const sector = document.getElementById('sector').value;
    if (sector) params.set('sector', sector);
    const query = document.getElementById('search').value.trim();
    if (query) params.set('search', query);
    if (state.cursor) params.set('cursor', state.cursor);
    node.innerHTML = '<p class="loading">Loading…</p>';
    try {
      const page = await api(`/api/v1/assets?${params}`, { auth: false });
      node.innerHTML = `<ul class="list">${page.assets.map((a) => assetRow(a)).join('') || '<li>No companies match.</li>'}</ul>
        <div class="spread" style="margin-top:8px"><button id="prev" ${page.previousCursor ? '' : 'disabled'}>← Previous</button>
        <span class="small muted">${page.total} companies</span><button id="next" ${page.nextCursor ? '' : 'disabled'}>Next →</button></div>`;
      document.getElementById('prev').onclick = () => { state.cursor = page.previousCursor; browse(); };
      document.getElementById('next').onclick = () => { state.cursor = page.nextCursor; browse(); };
    } catch (error) { node.innerHTML = `<p class="error">${esc(error.message)}</p>`; }
  };
  document.getElementById('sort').onchange = () => { state.cursor = null; browse(); };
  document.getElementById('sector').onchange = () => { state.cursor = null; browse(); };
  document.getElementById('search').addEventListener('input', debounce(() => { state.cursor = null; browse(); }, 300));
  browse();
}

function assetRow(a) {
  return `<li><a href="#/stock/${esc(a.symbol)}" class="row" style="text-decoration:none;color:inherit;flex:1">${logoImg(a, true)}
    <span><strong>${esc(a.symbol)}</strong> <span class="muted small">${esc(a.name)}</span></span></a>
    <span style="text-align:right">${esc(formatPrice(a.price))}<div class="small ${tone(a.changePercent)}">${esc(formatPercent(a.changePercent))}</div></span></li>`;
}

function debounce(fn, ms) { let timer; return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); }; }

function setupSearch() {
  const input = document.getElementById('search');
  const list = document.getElementById('suggestions');
  let items = [], active = -1, seq = 0;
  const close = () => { list.hidden = true; input.setAttribute('aria-expanded', 'false'); input.removeAttribute('aria-activedescendant'); active = -1; };
  const highlight = (index) => {
    active = index;
    [...list.children].forEach((li, i) => li.setAttribute('aria-selected', String(i === index)));
    if (index >= 0) input.setAttribute('aria-activedescendant', `option-${index}`);
  };
  const open = (symbol) => { close(); location.hash = `#/stock/${symbol}`; };
  input.addEventListener('input', debounce(async () => {
    const query = input.value.trim();
    const mine = ++seq;
    if (!query) { close(); return; }
    try {
      const page = await api(`/api/v1/assets?search=${encodeURIComponent(query)}&limit=8`, { auth: false });
      if (mine !== seq) return;
      items = page.assets;
      list.innerHTML = items.map((a, i) => `<li role="option" id="option-${i}" data-symbol="${esc(a.symbol)}" aria-selected="false">
        <span><strong>${esc(a.symbol)}</strong> ${esc(a.name)}</span><span class="muted">${esc(formatPrice(a.price))}</span></li>`).join('')
        || '<li class="muted" style="padding:10px">No matches</li>';
      list.hidden = false;
      input.setAttribute('aria-expanded', 'true');
      for (const li of list.querySelectorAll('[role="option"]')) li.onclick = () => open(li.dataset.symbol);
    } catch { /* the list below shows the error */ }
  }, 200));
  input.addEventListener('keydown', (event) => {
    if (list.hidden || items.length === 0) return;
    if (event.key === 'ArrowDown') { highlight((active + 1) % items.length); event.preventDefault(); }
    else if (event.key === 'ArrowUp') { highlight((active - 1 + items.length) % items.length); event.preventDefault(); }
    else if (event.key === 'Enter') { open(items[Math.max(active, 0)].symbol); event.preventDefault(); }
    else if (event.key === 'Escape') close();
  });
  input.addEventListener('blur', () => setTimeout(close, 200));
}

async function loadMovers() {
  const node = document.getElementById('movers');
  try {
    const lists = await Promise.all(['gainers', 'losers', 'most-active'].map((list) => api(`/api/v1/market/movers?list=${list}&limit=8`, { auth: false })));
    const titles = { gainers: 'Gainers', losers: 'Losers', 'most-active': 'Most active' };
    node.innerHTML = lists.map((m) => `<h3 class="small muted" style="margin:12px 0 6px">${titles[m.list]}${m.session ? ' · ' + esc(formatDate(m.session)) : ''}</h3>
      <div class="cards">${m.assets.map((a) => `<a class="card" href="#/stock/${esc(a.symbol)}" style="text-decoration:none;color:inherit">
        <strong>${esc(a.symbol)}</strong><div class="small muted" style="white-space:nowrap;overflow:hidden;text-overflow:ellipsis">${esc(a.name)}</div>
        <div>${esc(formatPrice(a.price))}</div><div class="small ${tone(a.changePercent)}">${esc(formatPercent(a.changePercent))}</div></a>`).join('') || '<p class="muted small">Nothing today.</p>'}</div>`).join('');
  } catch (error) { node.innerHTML = `<p class="error">${esc(error.message)}</p>`; }
}

async function defaultWatchlist() {
  const lists = (await api('/api/v1/watchlists')).watchlists;
  return lists[0] ?? api('/api/v1/watchlists', { method: 'POST', body: { name: 'My watchlist' } });
}

async function loadWatchlist() {
  const node = document.getElementById('watchlist');
  try {
    const list = await defaultWatchlist();
    if (list.symbols.length === 0) { node.innerHTML = '<p class="muted">Your watchlist is empty. Open a company and tap “Watch”.</p>'; return; }
    const quotes = await api(`/api/v1/quotes?symbols=${list.symbols.join(',')}`, { auth: false });
    const bySymbol = Object.fromEntries(quotes.quotes.map((q) => [q.symbol, q]));
    node.innerHTML = `<ul class="list">${list.symbols.map((s) => `<li><a href="#/stock/${esc(s)}"><strong>${esc(s)}</strong></a>
      <span>${esc(formatPrice(bySymbol[s]?.price))} <span class="small ${tone(bySymbol[s]?.changePercent)}">${esc(formatPercent(bySymbol[s]?.changePercent))}</span></span>
      <button class="link" data-remove="${esc(s)}" aria-label="Remove ${esc(s)} from watchlist">Remove</button></li>`).join('')}</ul>`;
    for (const button of node.querySelectorAll('[data-remove]')) {
      button.onclick = async () => { await api(`/api/v1/watchlists/${list.id}/symbols/${button.dataset.remove}`, { method: 'DELETE' }); loadWatchlist(); };
    }
  } catch (error) { node.innerHTML = `<p class="error">${esc(error.message)}</p>`; }
}

// ---------- Stock page ----------
async function stockView(symbol) {
  const live = current();
  view(`<p class="loading">Loading ${esc(symbol)}…</p>`);
  await loadPortfolios();
  const portfolioId = selectedPortfolioId();
  const [asset, positions, portfolio, watchlist] = await Promise.all([
    api(`/api/v1/assets/${encodeURIComponent(symbol)}`, { auth: false }),
    api(`/api/v1/portfolios/${portfolioId}/positions`), api(`/api/v1/portfolios/${portfolioId}`), defaultWatchlist(),
  ]);
  if (!live()) return;
  const held = positions.positions.find((p) => p.symbol === asset.symbol);
  let watching = watchlist.symbols.includes(asset.symbol);
  view(`<div class="row" style="gap:12px">${logoImg(asset)}<div><h1 style="margin:0">${esc(asset.name)}</h1><div class="muted">${esc(asset.symbol)}${asset.exchange ? ' · ' + esc(asset.exchange) : ''}</div></div></div>
    <div class="spread" style="margin:12px 0">
      <div><div style="font-size:2rem;font-weight:700" id="price" aria-live="polite">${esc(formatPrice(asset.price))}</div><div id="change">${changeHTML(asset.change, asset.changePercent)}</div>
        <div class="small muted" id="as-of">As of ${esc(formatDateTime(asset.asOf))}</div></div>
      <div class="row"><button class="buy" id="buy">Buy</button><button class="sell" id="sell" ${held ? '' : 'disabled'}>Sell</button>
        <button id="watch" aria-pressed="${watching}">${watching ? '★ Watching' : '☆ Watch'}</button></div>
    </div>
    <div class="card">
      <div class="segmented" role="group" aria-label="Chart range">${['5D', '1M', '3M', '6M', '1Y', '5Y', 'MAX'].map((r) => `<button data-range="${r}" aria-pressed="${r === '1Y'}">${r}</button>`).join('')}</div>
      <div id="price-chart" style="margin-top:8px"></div>
      ${held ? `<p class="small muted">Dashed line: your break-even at the average cost of ${esc(formatPrice(held.averageCost))}.</p>` : ''}
    </div>
    ${held ? `<h2>Your position</h2><div class="grid">
      <div class="card stat"><div class="label">Shares</div><div class="value" id="held-quantity">${esc(formatNumber(held.quantity))}</div></div>
      <div class="card stat"><div class="label">Average cost</div><div class="value">${esc(formatPrice(held.averageCost))}</div></div>
      <div class="card stat"><div class="label">Value</div><div class="value">${esc(formatMoney(held.marketValue))}</div></div>
      <div class="card stat"><div class="label">Unrealized P&amp;L</div><div class="value ${tone(held.unrealizedPnl)}">${esc(formatSignedMoney(held.unrealizedPnl))}</div></div></div>` : ''}
    <h2>About</h2>
    <div class="card"><dl class="grid" style="margin:0">
      <div><dt class="muted small">52-week range</dt><dd style="margin:0">${esc(formatPrice(asset.fiftyTwoWeekLow))} – ${esc(formatPrice(asset.fiftyTwoWeekHigh))}</dd></div>
      <div><dt class="muted small">1-year change</dt><dd style="margin:0" class="${tone(asset.oneYearChangePercent)}">${esc(formatPercent(asset.oneYearChangePercent))}</dd></div>
      <div><dt class="muted small">Volume</dt><dd style="margin:0">${esc(formatNumber(asset.volume))}</dd></div>
      <div><dt class="muted small">Sector</dt><dd style="margin:0">${esc(asset.sector ?? '—')}</dd></div>
      ${asset.industry ? `<div><dt class="muted small">Industry</dt><dd style="margin:0">${esc(asset.industry)}</dd></div>` : ''}
      ${asset.headquarters ? `<div><dt class="muted small">Headquarters</dt><dd style="margin:0">${esc(asset.headquarters)}</dd></div>` : ''}
      ${asset.founded ? `<div><dt class="muted small">Founded</dt><dd style="margin:0">${esc(asset.founded)}</dd></div>` : ''}
    </dl>${asset.description ? `<p>${esc(asset.description)}</p>` : ''}</div>`);

  let range = '1Y';
  const drawChart = async () => {
    const node = document.getElementById('price-chart');
    node.innerHTML = '<p class="loading">Loading chart…</p>';
    try {
      const series = await api(`/api/v1/assets/${asset.symbol}/bars?range=${range}`, { auth: false });
      lineChart(node, {
        describe: `${asset.symbol} closing prices, ${range}`,
        formatValue: (v) => formatPrice(v),
        reference: held ? { value: Number(held.averageCost), label: 'Break-even' } : null,
        series: [{ name: asset.symbol, color: 'var(--accent)', points: series.bars.map((b) => ({ label: formatDate(b.date), value: Number(b.close) })) }],
      });
    } catch (error) { node.innerHTML = `<p class="error">${esc(error.message)}</p>`; }
  };
  for (const button of document.querySelectorAll('[data-range]')) {
    button.onclick = () => {
      range = button.dataset.range;
      document.querySelectorAll('[data-range]').forEach((b) => b.setAttribute('aria-pressed', String(b === button)));
      drawChart();
    };
  }
  drawChart();
  const latest = { price: asset.price };
  document.getElementById('buy').onclick = () => tradeDialog('buy', asset, portfolio, held, latest);
  document.getElementById('sell').onclick = () => tradeDialog('sell', asset, portfolio, held, latest);
  document.getElementById('watch').onclick = async (event) => {
    const button = event.currentTarget;
    const method = watching ? 'DELETE' : 'POST';
    await api(`/api/v1/watchlists/${watchlist.id}/symbols/${asset.symbol}`, { method });
    watching = !watching;
    button.setAttribute('aria-pressed', String(watching));
    button.textContent = watching ? '★ Watching' : '☆ Watch';
    toast(watching ? `${asset.symbol} added to your watchlist.` : `${asset.symbol} removed from your watchlist.`);
  };
  subscribeLive(asset.symbol, (quote) => {
    latest.price = quote.price;
    const price = document.getElementById('price');
    if (!price) return;
    price.textContent = formatPrice(quote.price);
    document.getElementById('change').innerHTML = changeHTML(quote.change, quote.changePercent);
    document.getElementById('as-of').textContent = `As of ${formatDateTime(quote.asOf)}${app.clock?.isOpen ? ' · live' : ''}`;
  });
}

/** Live prices from the quote stream while the page is open. */
function subscribeLive(symbol, onQuote) {
  const session = currentSession();
  if (!session || !('WebSocket' in window)) return;
  let socket, closed = false, retry = 1000;
  const connect = () => {
    socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/stream?token=${encodeURIComponent(currentSession()?.access ?? '')}`);
    socket.onopen = () => { retry = 1000; socket.send(JSON.stringify({ type: 'subscribe', symbols: [symbol] })); };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === 'quote' && message.quote?.symbol === symbol) onQuote(message.quote);
    };
    socket.onclose = () => { if (!closed) setTimeout(connect, retry = Math.min(retry * 2, 30000)); };
  };
  connect();
  onLeave(() => { closed = true; socket?.close(); });
}

function tradeDialog(side, asset, portfolio, held, live) {
  const price = Number(live.price);
  const max = side === 'buy' ? Math.max(0, Math.floor(Number(portfolio.cash) / price)) : held?.quantity ?? 0;
  let key = null;
  openDialog(`<h2 id="dialog-title">${side === 'buy' ? 'Buy' : 'Sell'} ${esc(asset.symbol)}</h2>
    <form id="trade-form" novalidate>
      <label for="quantity">Shares</label>
      <div class="stepper"><button type="button" id="minus" aria-label="One share fewer">−</button>
        <input id="quantity" inputmode="numeric" value="1" aria-describedby="trade-max trade-error">
        <button type="button" id="plus" aria-label="One share more">+</button></div>
      <p class="small muted" id="trade-max">${side === 'buy' ? 'You can afford about' : 'You hold'} ${esc(formatNumber(max))} shares. <button type="button" class="link" id="max">Use max</button></p>
      <p>Estimated ${side === 'buy' ? 'cost' : 'proceeds'}: <strong id="estimate">${esc(formatMoney(price))}</strong> at ${esc(formatPrice(price))} a share</p>
      <p class="error" id="trade-error" role="alert"></p>
      <div class="actions"><button class="primary" type="submit" id="review">Review order</button><button type="button" data-close>Cancel</button></div>
    </form>`);
  const input = document.getElementById('quantity');
  const update = () => {
    const quantity = Number(input.value);
    document.getElementById('estimate').textContent = Number.isInteger(quantity) && quantity > 0 ? formatMoney((quantity * price).toFixed(2)) : '—';
  };
  document.getElementById('minus').onclick = () => { input.value = String(Math.max(1, (parseInt(input.value, 10) || 1) - 1)); update(); };
  document.getElementById('plus').onclick = () => { input.value = String((parseInt(input.value, 10) || 0) + 1); update(); };
  document.getElementById('max').onclick = () => { input.value = String(Math.max(1, max)); update(); };
  input.oninput = update;
  document.getElementById('trade-form').onsubmit = (event) => {
    event.preventDefault();
    const quantity = Number(input.value);
    if (!Number.isInteger(quantity) || quantity < 1) {
      document.getElementById('trade-error').textContent = 'Enter a whole number of shares, 1 or more.';
      input.focus();
      return;
    }
    key = newIdempotencyKey();   // one key per reviewed order: retries after a network drop execute once
    dialog.innerHTML = `<h2 id="dialog-title">Confirm</h2>
      <p>${side === 'buy' ? 'Buy' : 'Sell'} <strong>${esc(formatNumber(quantity))}</strong> shares of <strong>${esc(asset.symbol)}</strong> at the market price, about ${esc(formatPrice(price))} each, for about <strong>${esc(formatMoney((quantity * price).toFixed(2)))}</strong>.</p>
      <p class="error" id="trade-error" role="alert"></p>
      <div id="trade-result" role="status"></div>
      <div class="actions"><button class="primary" id="confirm">${side === 'buy' ? 'Place buy order' : 'Place sell order'}</button><button data-close id="cancel-trade">Cancel</button></div>`;
    dialog.querySelector('[data-close]').onclick = () => dialog.close();
    document.getElementById('confirm').onclick = async (clickEvent) => {
      const button = clickEvent.currentTarget;
      button.disabled = true;
      button.textContent = 'Placing order…';
      try {
        const order = await api(`/api/v1/portfolios/${portfolio.id}/orders`, { method: 'POST', idempotencyKey: key,
          body: { symbol: asset.symbol, side, quantity } });
        document.getElementById('trade-result').innerHTML = `<p class="${side === 'buy' ? 'up' : ''}"><strong>Done.</strong> ${side === 'buy' ? 'Bought' : 'Sold'} ${esc(formatNumber(order.filledQuantity))} ${esc(order.symbol)} at ${esc(formatPrice(order.fillPrice))} for ${esc(formatMoney(order.notional))}.${side === 'sell' ? ` Realized P&amp;L: <span class="${tone(order.realizedPnl)}">${esc(formatSignedMoney(order.realizedPnl))}</span>.` : ''}</p>`;
        button.remove();
        const cancel = document.getElementById('cancel-trade');
        cancel.textContent = 'Close';
        cancel.onclick = () => { dialog.close(); route(); };
      } catch (error) {
        const messages = {
          insufficient_funds: `Not enough cash for ${formatNumber(quantity)} shares. You have ${formatMoney(portfolio.cash)}; try fewer shares.`,
          insufficient_shares: `You hold ${formatNumber(held?.quantity ?? 0)} shares, so you cannot sell ${formatNumber(quantity)}.`,
        };
        document.getElementById('trade-error').textContent = messages[error.code] ?? error.message;
        button.disabled = false;
        button.textContent = 'Try again';
      }
    };
  };
  update();
  input.select();
}

// ---------- History ----------
async function historyView() {
  const live = current();
  await loadPortfolios();
  if (!live()) return;
  const id = selectedPortfolioId();
  view(`<h1>History</h1>
    <div class="grid" id="totals"></div>
    <div class="spread" style="margin:16px 0 8px">
      <div class="segmented" role="group" aria-label="Filter">${[['all', 'All'], ['buy', 'Buys'], ['sell', 'Sells'], ['profit', 'Profits'], ['loss', 'Losses']].map(([v, l]) => `<button data-filter="${v}" aria-pressed="${v === 'all'}">${l}</button>`).join('')}</div>
      <button id="csv">Download CSV</button></div>
    <div class="card" id="activities"><p class="loading">Loading…</p></div>`);
  let all = [], cursor = null, filter = 'all';
  const load = async () => {
    const page = await api(`/api/v1/portfolios/${id}/activities?period=all&limit=200${cursor ? '&cursor=' + cursor : ''}`);
    if (!live()) return;
    all = all.concat(page.activities);
    cursor = page.nextCursor;
    if (cursor) return load();
    const sells = all.filter((a) => a.realizedPnl != null);
    const profits = sells.filter((a) => Number(a.realizedPnl) > 0).reduce((s, a) => s + Number(a.realizedPnl), 0);
    const losses = sells.filter((a) => Number(a.realizedPnl) < 0).reduce((s, a) => s + Number(a.realizedPnl), 0);
    document.getElementById('totals').innerHTML = `
      <div class="card stat"><div class="label">Realized profits</div><div class="value up" id="total-profits">${esc(formatSignedMoney(profits.toFixed(2)))}</div></div>
      <div class="card stat"><div class="label">Realized losses</div><div class="value down" id="total-losses">${esc(formatSignedMoney(losses.toFixed(2)))}</div></div>
      <div class="card stat"><div class="label">Net</div><div class="value ${tone(profits + losses)}" id="total-net">${esc(formatSignedMoney((profits + losses).toFixed(2)))}</div></div>
      <div class="card stat"><div class="label">Trades</div><div class="value">${esc(formatNumber(all.length))}</div></div>`;
    draw();
  };
  const draw = () => {
    const shown = all.filter((a) => filter === 'all' || a.type === filter
      || (filter === 'profit' && Number(a.realizedPnl) > 0) || (filter === 'loss' && Number(a.realizedPnl) < 0));
    document.getElementById('activities').innerHTML = shown.length === 0 ? '<p>No activity yet.</p>' : `<table><thead><tr><th scope="col">Date</th><th scope="col">Trade</th>
      <th scope="col" class="hide-narrow">Price</th><th scope="col">Amount</th><th scope="col">Realized</th></tr></thead><tbody>
      ${shown.map((a) => `<tr data-type="${esc(a.type)}"><td>${esc(formatDateTime(a.createdAt))}</td>
        <td>${a.type === 'buy' ? 'Bought' : 'Sold'} ${esc(formatNumber(a.quantity))} <strong>${esc(a.symbol)}</strong></td>
        <td class="hide-narrow">${esc(formatPrice(a.price))}</td><td class="${tone(a.amount)}">${esc(formatSignedMoney(a.amount))}</td>
        <td class="${tone(a.realizedPnl)}">${a.realizedPnl == null ? '—' : esc(formatSignedMoney(a.realizedPnl))}</td></tr>`).join('')}</tbody></table>`;
  };
  for (const button of document.querySelectorAll('[data-filter]')) {
    button.onclick = () => {
      filter = button.dataset.filter;
      document.querySelectorAll('[data-filter]').forEach((b) => b.setAttribute('aria-pressed', String(b === button)));
      draw();
    };
  }
  document.getElementById('csv').onclick = async () => {
    const response = await api(`/api/v1/portfolios/${id}/activities?format=csv&period=all`, { raw: true });
    const url = URL.createObjectURL(await response.blob());
    const link = Object.assign(document.createElement('a'), { href: url, download: 'bullpen-activities.csv' });
    document.body.append(link);
    link.click();
    link.remove();
    URL.revokeObjectURL(url);
  };
  await load();
}

// ---------- Settings ----------
function settingsView() {
  const theme = localStorage.getItem('bullpen.theme') || 'system';
  const palette = localStorage.getItem('bullpen.palette') || 'standard';
  view(`<h1>Settings</h1>
    <div class="card"><h2 style="margin-top:0">Appearance</h2>
      <label for="theme">Theme</label>
      <select id="theme"><option value="system">Follow my device</option><option value="light">Light</option><option value="dark">Dark</option></select>
      <label class="row" style="font-weight:400"><input type="checkbox" id="palette" style="width:auto;min-height:0" ${palette === 'colorblind' ? 'checked' : ''}> Colour-blind friendly colours (blue for up, orange for down)</label>
    </div>
    <div class="card" style="margin-top:12px"><h2 style="margin-top:0">Change password</h2>
      <form id="password-form" novalidate>
        <label for="current-password">Current password</label><input id="current-password" type="password" autocomplete="current-password">
        <label for="new-password">New password</label><input id="new-password" type="password" autocomplete="new-password" aria-describedby="password-change-error">
        <p class="error" id="password-change-error" role="alert"></p>
        <div class="actions"><button class="primary" type="submit">Change password</button></div>
      </form></div>
    <div class="card" style="margin-top:12px"><h2 style="margin-top:0">Account</h2>
      <p class="muted">Logged in as <strong>${esc(currentSession()?.user?.username)}</strong>.</p>
      <div class="row"><button id="logout">Log out</button><button id="delete-account" class="danger">Delete account</button></div></div>`);
  document.getElementById('theme').value = theme;
  document.getElementById('theme').onchange = (event) => { localStorage.setItem('bullpen.theme', event.target.value); applyAppearance(); };
  document.getElementById('palette').onchange = (event) => { localStorage.setItem('bullpen.palette', event.target.checked ? 'colorblind' : 'standard'); applyAppearance(); };
  document.getElementById('password-form').onsubmit = async (event) => {
    event.preventDefault();
    const error = document.getElementById('password-change-error');
    error.textContent = '';
    try {
      await api('/api/v1/me/password', { method: 'POST', body: { currentPassword: document.getElementById('current-password').value, newPassword: document.getElementById('new-password').value } });
      event.target.reset();
      toast('Password changed. Other devices were logged out.');
    } catch (problem) { showError(error, problem); }
  };
  document.getElementById('logout').onclick = logout;
  document.getElementById('delete-account').onclick = () => {
    openDialog(`<h2 id="dialog-title">Delete your account?</h2><p>All your portfolios, history and watchlists are deleted for good.</p>
      <form id="delete-form" novalidate><label for="delete-password">Type your password to confirm</label><input id="delete-password" type="password" autocomplete="current-password">
      <p class="error" id="delete-error" role="alert"></p>
      <div class="actions"><button class="danger" type="submit">Delete everything</button><button type="button" data-close>Cancel</button></div></form>`);
    document.getElementById('delete-form').onsubmit = async (event) => {
      event.preventDefault();
      try {
        await api('/api/v1/me', { method: 'DELETE', body: { password: document.getElementById('delete-password').value } });
        dialog.close();
        endSession();
        toast('Your account was deleted.');
      } catch (problem) { showError(document.getElementById('delete-error'), problem); }
    };
  };
}

async function logout() {
  try { await api('/api/v1/auth/logout', { method: 'POST' }); } catch { /* the session ends here either way */ }
  endSession();
  location.hash = '#/login';
}

// ---------- Help ----------
function helpView() {
  view(`<h1>How Bullpen works</h1>
    <div class="card"><h2 style="margin-top:0">Buying</h2><p>Open <a href="#/market">Market</a>, search for a company by its symbol (like MSFT) or name (like “micro”), and open its page. Tap <strong>Buy</strong>, choose how many shares, review the estimated cost and confirm. The order fills at the market price: the latest price, or the last close while the market is closed.</p></div>
    <div class="card" style="margin-top:12px"><h2 style="margin-top:0">Selling</h2><p>On the page of a company you hold, tap <strong>Sell</strong>. You can sell up to the shares you own. The difference between what you sold for and what those shares cost you is your <em>realized</em> profit or loss.</p></div>
    <div class="card" style="margin-top:12px"><h2 style="margin-top:0">Reading a chart</h2><p>The line shows closing prices over the range you pick (5 days to the whole history). Move your finger, mouse, or the arrow keys over it to see the date and price. When you own the stock, a dashed line marks your break-even: above it you are in profit.</p></div>
    <div class="card" style="margin-top:12px"><h2 style="margin-top:0">What P&amp;L means</h2><p><strong>P&amp;L</strong> is profit and loss. <em>Unrealized</em> P&amp;L is what you would gain or lose if you sold now; <em>realized</em> P&amp;L is locked in by selling. Equity is your cash plus the value of your holdings; total return compares it with your starting cash. Gains are shown with ▲ and a plus sign, losses with ▼ and a minus sign.</p></div>
    ${currentSession() ? '' : '<p><a href="#/login">Back to log in</a></p>'}`);
}

// ---------- Start ----------
refreshMarket();
setInterval(refreshMarket, 60_000);
route();
