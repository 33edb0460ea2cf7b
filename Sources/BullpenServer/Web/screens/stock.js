// A company's page (#/stock/MSFT): price (live while the market is open), chart with the
// break-even of a holding, the holding, facts; Buy, Sell and Watch. A company whose data ended
// can be sold at its last price but not bought. For a replay portfolio the page stands on the
// replay's date (nothing later shows, no live price) and its chart is the trends graph: the last
// 20 days or 3 months (#/stock/MSFT/trends scrolls to it). A league portfolio says which league's
// rules its orders follow, and takes none once its player left or the league is over. The options
// section shows the company's option chain as of the portfolio's clock (#/stock/MSFT/options
// scrolls to it); a row opens the contract's sheet.
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view, route } from '/router.js';
import { market } from '/market-status.js';
import { loadPortfolios, selectedPortfolioId, isReplay, withAsOf } from '/portfolios.js';
import { defaultWatchlist } from '/watchlists.js';
import { subscribeQuotes } from '/quote-stream.js';
import { lineChart } from '/components/chart.js';
import { toast } from '/components/toast.js';
import { openTradeSheet } from '/components/trade-sheet.js';
import { logo, changePill, endedBadge } from '/components/asset-row.js';
import { optionChainSection, setupOptionChain } from '/components/option-chain.js';
import { closedReason, portfolioRulePhrases } from '/leagues.js';
import { optionsAllowed } from '/options.js';
import { term } from '/glossary.js';
import { alertsSection, setupAlerts } from '/components/price-alerts.js';
import { formatAxisMoney, formatDate, formatMarketTime, formatMoney, formatNumber, formatPercent, formatPrice, formatSignedMoney, tone, formatQuantity } from '/format.js';

/** The chart's ranges: [id, label, range asked of the server, bars kept from its end (all when null)]. */
const RANGES = ['5D', '1M', '3M', '6M', '1Y', '5Y', 'MAX'].map((r) => [r, r, r, null]);
const TRENDS = [['20D', '20 days', '1M', 20], ['3M', '3 months', '3M', null], ['1Y', '1 year', '1Y', null], ['5Y', '5 years', '5Y', null]];
/** The ranges long enough for a logarithmic scale, and where the choice is remembered. */
const LONG_RANGES = new Set(['5Y', 'MAX']);
const LOG_KEY = 'bullpen.chart.log';
const logChosen = () => localStorage.getItem(LOG_KEY) === '1';

function fact(term, value, className = '') {
  return html`<div><dt class="muted small">${term}</dt><dd class="${className}">${value}</dd></div>`;
}

function positionCards(held, crypto) {
  return html`<h2>Your position</h2><div class="grid">
    <div class="card stat"><div class="label">${crypto ? 'Coins' : 'Shares'}</div><div class="value" id="held-quantity">${formatQuantity(held.quantity)}</div></div>
    <div class="card stat"><div class="label">Average cost</div><div class="value">${formatPrice(held.averageCost)}</div></div>
    <div class="card stat"><div class="label">Value</div><div class="value">${formatMoney(held.marketValue)}</div></div>
    <div class="card stat"><div class="label">Unrealized P&amp;L</div><div class="value ${tone(held.unrealizedPnl)}">${formatSignedMoney(held.unrealizedPnl)}</div></div></div>`;
}

/** A replay's page for a company not listed yet on its date. */
function notListedYet(symbol, portfolio, message) {
  return html`<div class="card"><h1>${symbol}</h1><p id="not-listed">${message}</p>
    <p class="muted">Your replay stands on ${formatDate(portfolio.clock.date)}: only companies listed by then can be found.</p>
    <p><a href="#/market">Back to Market</a></p></div>`;
}

export default async function stockScreen({ params: [symbol = '', focus], live, onLeave }) {
  view(html`<p class="loading">Loading ${symbol}…</p>`);
  const portfolios = await loadPortfolios();
  const portfolioId = selectedPortfolioId(portfolios);
  const selected = portfolios.find((p) => p.id === portfolioId);
  const replay = isReplay(selected);
  let asset, positions, portfolio, watchlist;
  try {
    [asset, positions, portfolio, watchlist] = await Promise.all([
      api(withAsOf(`/api/v1/assets/${encodeURIComponent(symbol)}`, selected), { auth: false }),
      api(`/api/v1/portfolios/${portfolioId}/positions`), api(`/api/v1/portfolios/${portfolioId}`), defaultWatchlist(),
    ]);
  } catch (error) {
    if (!replay || error.code !== 'unknown_symbol') throw error;
    if (live()) view(notListedYet(symbol.toUpperCase(), selected, error.message));
    return;
  }
  if (!live()) return;
  const held = positions.positions.find((p) => p.symbol === asset.symbol);
  const allowOptions = optionsAllowed(portfolio);
  const ended = asset.trading === false;
  // An ended replay trades no more, nor a league portfolio that was closed or whose league is not on.
  const leagueClosed = closedReason(portfolio);
  const closed = (replay && portfolio.clock.ended === true) || leagueClosed != null;
  const leagueRules = portfolio.leagueId ? portfolioRulePhrases(portfolio.rules ?? {}) : [];
  const ranges = replay ? TRENDS : RANGES;
  let range = replay ? '3M' : '1Y';
  let watching = watchlist.symbols.includes(asset.symbol);
  const crypto = asset.assetClass === 'crypto';
  view(html`<div class="row title-row">${logo(asset)}<div><h1 class="flush">${asset.name}</h1>
      <div class="muted">${asset.symbol}${asset.exchange ? ' · ' + asset.exchange : ''} ${crypto ? html`<span class="badge playing" id="crypto-badge">Crypto · trades around the clock</span>` : ''} ${ended ? endedBadge(asset.lastDate) : ''}</div></div></div>
    <div class="spread quote-row">
      <div><div class="big-price" id="price" aria-live="polite">${formatPrice(asset.price)}</div><div id="change">${changePill(asset.change, asset.changePercent)}</div>${crypto ? html`<div class="small muted" id="change-window">Change over 24 hours (since 00:00 UTC)</div>` : ''}
        <div class="small muted" id="as-of">As of ${formatMarketTime(asset.asOf)}</div></div>
      <div class="row"><button class="buy" id="buy" ${ended ? html`disabled aria-describedby="ended-note"` : closed ? html`disabled aria-describedby="closed-note"` : ''}>Buy</button>
        <button class="sell" id="sell" ${(held || portfolio.rules?.shortSelling) && !closed ? '' : 'disabled'}>${held || !portfolio.rules?.shortSelling ? 'Sell' : 'Sell short'}</button>
        <button id="watch" aria-pressed="${String(watching)}">${watching ? '★ Watching' : '☆ Watch'}</button></div>
    </div>
    ${ended ? html`<p class="notice" id="ended-note">Prices for ${asset.symbol} ended on ${formatDate(asset.lastDate)}, so it cannot be bought; you can sell shares you hold at its last price.</p>` : ''}
    ${closed ? html`<p class="notice" id="closed-note">${leagueClosed ?? html`This replay has ended, so it trades no more. <a href="#/report">See the report</a>.`}</p>` : ''}
    ${portfolio.leagueId && !closed ? html`<p class="small muted" id="league-note">You trade in your league portfolio, ${portfolio.name}${leagueRules.length ? html`: ${leagueRules.join('; ')}` : ''}.
      <a href="#/leagues/${portfolio.leagueId}">The league</a></p>` : ''}
    ${replay ? html`<h2 id="trends">Trends</h2>` : ''}
    <div class="card">
      <div class="spread chart-controls"><div class="segmented" role="group" aria-label="Chart range">${ranges.map(([id, label]) => html`<button data-range="${id}" aria-pressed="${String(id === range)}">${label}</button>`)}</div>
        <button type="button" id="log-scale" class="small" aria-pressed="${String(logChosen())}" ${LONG_RANGES.has(range) ? '' : 'hidden'}
          aria-describedby="log-scale-help">Log scale</button></div>
      <p class="small muted" id="log-scale-help" ${LONG_RANGES.has(range) ? '' : 'hidden'}>On a ${term('Logarithmic scale', 'log scale')} an equal height is an equal percentage move: decades of growth read as they felt.</p>
      <div id="price-chart" class="gap-top"></div>
      ${held ? html`<p class="small muted">Dashed line: your ${term('Break-even', 'break-even')} at the ${term('Average cost', 'average cost')} of ${formatPrice(held.averageCost)}.</p>` : ''}
    </div>
    ${held ? positionCards(held, crypto) : ''}
    ${crypto ? '' : optionChainSection(asset, { allowed: allowOptions })}
    ${replay ? '' : alertsSection(asset.symbol)}
    <h2>About</h2>
    <div class="card"><dl class="grid facts">
      ${fact('52-week range', `${formatPrice(asset.fiftyTwoWeekLow)} – ${formatPrice(asset.fiftyTwoWeekHigh)}`)}
      ${fact('1-year change', formatPercent(asset.oneYearChangePercent), tone(asset.oneYearChangePercent))}
      ${fact('Volume', formatNumber(asset.volume))}
      ${fact(term('Sector'), asset.sector ?? '—')}
      ${asset.industry ? fact('Industry', asset.industry) : ''}
      ${asset.headquarters ? fact('Headquarters', asset.headquarters) : ''}
      ${asset.founded ? fact('Founded', asset.founded) : ''}
    </dl>${asset.description ? html`<p>${asset.description}</p>` : ''}</div>`);

  let chartSeq = 0;
  const drawChart = async () => {
    const node = document.getElementById('price-chart');
    const mine = ++chartSeq;
    const [, label, asked, keep] = ranges.find(([id]) => id === range);
    render(node, html`<p class="loading">Loading chart…</p>`);
    try {
      const series = await api(withAsOf(`/api/v1/assets/${encodeURIComponent(asset.symbol)}/bars?range=${asked}`, selected), { auth: false });
      if (!live() || mine !== chartSeq) return;
      const bars = keep ? series.bars.slice(-keep) : series.bars;
      lineChart(node, {
        describe: `${asset.symbol} closing prices, ${label}${replay ? ' to ' + formatDate(selected.clock.date) : ''}`,
        formatValue: formatPrice,
        formatAxis: formatAxisMoney,
        floor: 0,   // a price axis stops at $0
        scale: LONG_RANGES.has(range) && logChosen() ? 'log' : 'linear',
        reference: held ? { value: held.averageCost, label: 'Break-even' } : null,
        series: [{ name: asset.symbol, color: 'var(--accent)', points: bars.map((b) => ({ label: formatDate(b.date), value: b.close })) }],
      });
    } catch (error) { if (live() && mine === chartSeq) render(node, html`<p class="error">${errorMessage(error)}</p>`); }
  };
  const logButton = document.getElementById('log-scale');
  const logHelp = document.getElementById('log-scale-help');
  for (const button of document.querySelectorAll('[data-range]')) {
    button.addEventListener('click', () => {
      range = button.dataset.range;
      document.querySelectorAll('[data-range]').forEach((b) => b.setAttribute('aria-pressed', String(b === button)));
      logButton.hidden = logHelp.hidden = !LONG_RANGES.has(range);
      drawChart();
    });
  }
  // The scale is remembered for every long chart, on this device.
  logButton.addEventListener('click', () => {
    localStorage.setItem(LOG_KEY, logChosen() ? '0' : '1');
    logButton.setAttribute('aria-pressed', String(logChosen()));
    drawChart();
  });
  drawChart();
  if (!crypto) setupOptionChain(asset, selected, { portfolio, positions: positions.positions, canTrade: allowOptions && !closed, onDone: route }, live);
  // Alerts watch the live market: a replay's page has none.
  if (!replay) setupAlerts({ symbol: asset.symbol, live });
  if (focus === 'trends') document.getElementById('trends')?.scrollIntoView();
  if (focus === 'alerts') document.getElementById('alerts')?.scrollIntoView();
  if (focus === 'options') document.getElementById('options')?.scrollIntoView();
  const trade = (side) => openTradeSheet({ side, asset, portfolio, onDone: route });
  // #/stock/MSFT/limit (a lesson's "place your first limit order"): the buy sheet, a limit order ready.
  if (focus === 'limit') {
    // Once: the page's own address again, so that redrawing after a trade does not open it anew.
    history.replaceState(null, '', `#/stock/${encodeURIComponent(asset.symbol)}`);
    if (!closed && !ended) openTradeSheet({ side: 'buy', asset, portfolio, onDone: route, orderType: 'limit' });
  }
  document.getElementById('buy').addEventListener('click', () => trade('buy'));
  document.getElementById('sell').addEventListener('click', () => trade('sell'));
  document.getElementById('watch').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    try {
      await api(`/api/v1/watchlists/${watchlist.id}/symbols/${encodeURIComponent(asset.symbol)}`, { method: watching ? 'DELETE' : 'POST' });
    } catch (error) { toast(errorMessage(error)); return; }
    watching = !watching;
    button.setAttribute('aria-pressed', String(watching));
    button.textContent = watching ? '★ Watching' : '☆ Watch';
    toast(watching ? `${asset.symbol} added to your watchlist.` : `${asset.symbol} removed from your watchlist.`);
  });
  // A replay's price is its day's close: the live stream has nothing for it.
  if (replay) return;
  onLeave(subscribeQuotes(asset.symbol, (quote) => {
    const price = document.getElementById('price');
    if (!live() || !price) return;
    price.textContent = formatPrice(quote.price);
    render(document.getElementById('change'), changePill(quote.change, quote.changePercent));
    document.getElementById('as-of').textContent = `As of ${formatMarketTime(quote.asOf)}${market.clock?.isOpen || crypto ? ' · live' : ''}`;
  }));
}
