// The market (#/market): search, today's movers, the watchlist, and every company page by page
// (companies whose data ended come last: the server orders them). With a replay portfolio
// selected, every figure is as of the replay's date, and companies listed later do not show.
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view } from '/router.js';
import { loadSelectedPortfolio, isReplay, withAsOf } from '/portfolios.js';
import { debounce } from '/debounce.js';
import { defaultWatchlist } from '/watchlists.js';
import { searchBox, setupSearch } from '/components/search-box.js';
import { assetRow, endedBadgeFor } from '/components/asset-row.js';
import { term } from '/glossary.js';
import { formatDate, formatNumber, formatPercent, formatPrice, tone } from '/format.js';

const SORTS = [['relevance', 'Best match'], ['symbol', 'A–Z'], ['-symbol', 'Z–A'], ['-price', 'Price: high to low'], ['price', 'Price: low to high'], ['-change', 'Change: best first'], ['change', 'Change: worst first']];
const SECTORS = ['Communication Services', 'Consumer Discretionary', 'Consumer Staples', 'Energy', 'Financials', 'Health Care', 'Industrials', 'Information Technology', 'Materials', 'Real Estate', 'Utilities'];
const MOVERS = { gainers: 'Gainers', losers: 'Losers', 'most-active': 'Most active' };

const loading = html`<p class="loading">Loading…</p>`;
const failure = (error) => html`<p class="error">${errorMessage(error)}</p>`;

export default async function marketScreen({ live, onLeave }) {
  view(html`<h1>Market</h1>${loading}`);
  const portfolio = await loadSelectedPortfolio();
  if (!live()) return;
  view(html`<h1>Market</h1>
    ${isReplay(portfolio) ? html`<p class="muted" id="market-as-of">As of ${formatDate(portfolio.clock.date)}, the date of your replay.</p>` : ''}
    ${searchBox()}
    <h2>${isReplay(portfolio) ? 'Movers of the day' : "Today's movers"}</h2>
    <p class="small muted" id="movers-note">The ${term('Stock', 'stocks')} that rose or fell the most since the previous close, and the ones that traded the most ${term('Share', 'shares')}.</p>
    <div id="movers">${loading}</div>
    <div id="coin-movers"></div>
    <h2>Watchlist</h2>
    <div class="card" id="watchlist">${loading}</div>
    <h2>All companies</h2>
    <div class="row">
      <div class="field"><label for="sort">Sort</label><select id="sort">${SORTS.map(([value, label]) => html`<option value="${value}">${label}</option>`)}</select></div>
      <div class="field"><label for="sector">Sector</label><select id="sector"><option value="">All sectors</option>${SECTORS.map((sector) => html`<option>${sector}</option>`)}</select></div>
    </div>
    <div class="card gap-top" id="browse"></div>`);
  setupSearch(portfolio);
  loadMovers(live, portfolio);
  loadWatchlist(live, portfolio);
  const state = { cursor: null, seq: 0 };
  const browse = async () => {
    const node = document.getElementById('browse');
    const params = new URLSearchParams({ limit: '25', sort: document.getElementById('sort').value });
    const sector = document.getElementById('sector').value;
    if (sector) params.set('sector', sector);
    const query = document.getElementById('search').value.trim();
    if (query) params.set('search', query);
    if (state.cursor) params.set('cursor', state.cursor);
    const mine = ++state.seq;
    render(node, loading);
    try {
      const page = await api(withAsOf(`/api/v1/assets?${params}`, portfolio), { auth: false });
      if (!live() || mine !== state.seq) return;
      render(node, html`<ul class="list">${page.assets.length ? page.assets.map(assetRow) : html`<li>No companies match.</li>`}</ul>
        <div class="spread gap-top"><button id="prev" ${page.previousCursor ? '' : 'disabled'}>← Previous</button>
        <span class="small muted">${formatNumber(page.total)} companies</span><button id="next" ${page.nextCursor ? '' : 'disabled'}>Next →</button></div>`);
      document.getElementById('prev').addEventListener('click', () => { state.cursor = page.previousCursor; browse(); });
      document.getElementById('next').addEventListener('click', () => { state.cursor = page.nextCursor; browse(); });
    } catch (error) { if (live() && mine === state.seq) render(node, failure(error)); }
  };
  const restart = () => { state.cursor = null; browse(); };
  document.getElementById('sort').addEventListener('change', restart);
  document.getElementById('sector').addEventListener('change', restart);
  const searchLater = debounce(restart, 300);
  document.getElementById('search').addEventListener('input', searchLater);
  onLeave(searchLater.cancel);
  browse();
}

/** One list of movers as cards, titled by its list and day. */
function moverCards(m) {
  return html`<h3 class="small muted movers-title">${MOVERS[m.list]}${m.session ? ' · ' + formatDate(m.session) : ''}</h3>
    <div class="cards">${m.assets.length === 0 ? html`<p class="muted small">Nothing today.</p>` : m.assets.map((a) => html`<a class="card plain" href="#/stock/${a.symbol}">
      <strong>${a.symbol}</strong><span class="block small muted ellipsis">${a.name}</span>${endedBadgeFor(a, a.asOf)}
      <span class="block">${formatPrice(a.price)}</span><span class="block small ${tone(a.changePercent)}">${formatPercent(a.changePercent)}</span></a>`)}</div>`;
}

/** The stocks' movers of the session, then (when the market has coins) the coins' of their UTC day. */
async function loadMovers(live, portfolio) {
  const node = document.getElementById('movers');
  const movers = (list, assetClass) => api(withAsOf(`/api/v1/market/movers?list=${list}&limit=8&assetClass=${assetClass}`, portfolio), { auth: false });
  try {
    const [lists, coins] = await Promise.all([
      Promise.all(Object.keys(MOVERS).map((list) => movers(list, 'us_equity'))),
      Promise.all(['gainers', 'losers'].map((list) => movers(list, 'crypto'))),
    ]);
    if (!live()) return;
    render(node, lists.map(moverCards));
    // A league that keeps to stocks has no use for coins' movers.
    if (portfolio?.rules?.allowCrypto !== false && coins.some((m) => m.assets.length > 0)) {
      render(document.getElementById('coin-movers'), html`<section id="crypto-movers" aria-labelledby="crypto-movers-title">
        <h2 id="crypto-movers-title">Crypto · 24 hours</h2>
        <p class="small muted">Coins trade every day around the clock: their change is over the UTC day${isReplay(portfolio) ? ' before your replay\'s date' : ', since 00:00 UTC'}.</p>
        ${coins.map(moverCards)}</section>`);
    }
  } catch (error) { if (live()) render(node, failure(error)); }
}

async function loadWatchlist(live, portfolio) {
  const node = document.getElementById('watchlist');
  try {
    const list = await defaultWatchlist();
    if (!live()) return;
    if (list.symbols.length === 0) { render(node, html`<p class="muted">Your watchlist is empty. Open a company and tap “Watch”.</p>`); return; }
    const quotes = await api(withAsOf(`/api/v1/quotes?symbols=${list.symbols.map(encodeURIComponent).join(',')}`, portfolio), { auth: false });
    if (!live()) return;
    const bySymbol = new Map(quotes.quotes.map((quote) => [quote.symbol, quote]));
    render(node, html`<ul class="list">${list.symbols.map((symbol) => {
      const quote = bySymbol.get(symbol);
      return html`<li><span><a href="#/stock/${symbol}"><strong>${symbol}</strong></a> ${endedBadgeFor(quote, quote?.asOf)}</span>
        <span>${formatPrice(quote?.price)} <span class="small ${tone(quote?.changePercent)}">${formatPercent(quote?.changePercent)}</span></span>
        <button class="link" data-remove="${symbol}" aria-label="Remove ${symbol} from watchlist">Remove</button></li>`;
    })}</ul>`);
    for (const button of node.querySelectorAll('[data-remove]')) {
      button.addEventListener('click', async () => {
        await api(`/api/v1/watchlists/${list.id}/symbols/${encodeURIComponent(button.dataset.remove)}`, { method: 'DELETE' });
        loadWatchlist(live, portfolio);
      });
    }
  } catch (error) { if (live()) render(node, failure(error)); }
}
