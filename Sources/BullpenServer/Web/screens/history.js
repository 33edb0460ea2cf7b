// The history (#/history): realized totals as the server sums them, every trade of every period
// (paged through the API), filters (options: contracts bought and sold, exercised, expired or
// assigned), and the CSV download.
import { html, render } from '/html.js';
import { api } from '/api.js';
import { view } from '/router.js';
import { isReplay, loadPortfolios, selectedPortfolioId } from '/portfolios.js';
import { download } from '/download.js';
import { activityTable } from '/components/activity-table.js';
import { isOptionActivity } from '/options.js';
import { formatNumber, formatSignedMoney, tone } from '/format.js';

const FILTERS = [['all', 'All'], ['buy', 'Buys'], ['sell', 'Sells'], ['profit', 'Profits'], ['loss', 'Losses'], ['options', 'Options']];
const MATCHES = {
  all: () => true,
  buy: (a) => a.type === 'buy',
  sell: (a) => a.type === 'sell',
  profit: (a) => tone(a.realizedPnl) === 'up',
  loss: (a) => tone(a.realizedPnl) === 'down',
  options: isOptionActivity,
};

function totals(summary) {
  return html`
    <div class="card stat"><div class="label">Realized profits</div><div class="value ${tone(summary.realizedProfits)}" id="total-profits">${formatSignedMoney(summary.realizedProfits)}</div></div>
    <div class="card stat"><div class="label">Realized losses</div><div class="value ${tone(summary.realizedLosses)}" id="total-losses">${formatSignedMoney(summary.realizedLosses)}</div></div>
    <div class="card stat"><div class="label">Net</div><div class="value ${tone(summary.realizedNet)}" id="total-net">${formatSignedMoney(summary.realizedNet)}</div></div>
    <div class="card stat"><div class="label">Trades</div><div class="value" id="total-trades">${formatNumber(summary.trades)}</div></div>`;
}

export default async function historyScreen({ live }) {
  view(html`<h1>History</h1><p class="loading">Loading…</p>`);
  const portfolios = await loadPortfolios();
  if (!live()) return;
  const id = selectedPortfolioId(portfolios);
  // A replay's trades are dated by its own dates, not by when they were played.
  const sessions = isReplay(portfolios.find((p) => p.id === id));
  view(html`<h1>History</h1>
    <div class="grid" id="totals"></div>
    <div class="spread toolbar">
      <div class="segmented" role="group" aria-label="Filter">${FILTERS.map(([value, label]) => html`<button data-filter="${value}" aria-pressed="${String(value === 'all')}">${label}</button>`)}</div>
      <button id="csv">Download CSV</button></div>
    <div class="card" id="activities"><p class="loading">Loading…</p></div>`);
  let all = [], filter = 'all';
  const draw = () => render(document.getElementById('activities'), activityTable(all.filter(MATCHES[filter]), { sessions }));
  for (const button of document.querySelectorAll('[data-filter]')) {
    button.addEventListener('click', () => {
      filter = button.dataset.filter;
      document.querySelectorAll('[data-filter]').forEach((b) => b.setAttribute('aria-pressed', String(b === button)));
      draw();
    });
  }
  document.getElementById('csv').addEventListener('click', () => download(`/api/v1/portfolios/${id}/activities?format=csv&period=all`, 'bullpen-activities.csv'));
  const summary = api(`/api/v1/portfolios/${id}/activities/summary?period=all`);
  for (let cursor = null; ;) {
    const page = await api(`/api/v1/portfolios/${id}/activities?period=all&limit=200${cursor ? '&cursor=' + encodeURIComponent(cursor) : ''}`);
    if (!live()) return;
    all = all.concat(page.activities);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  const figures = await summary;
  if (!live()) return;
  render(document.getElementById('totals'), totals(figures));
  draw();
}
