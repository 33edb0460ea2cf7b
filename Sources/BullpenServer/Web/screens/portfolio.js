// The portfolio (#/portfolio): equity, cash, total return and today's change as the server
// computes them, the equity curve against the S&P 500, the holdings; new portfolio and reset. A
// replay portfolio also shows its date, the controls that move its time and what the last move
// did, "End replay", and the report once it is ready. A league's portfolio shows its league, clock
// and rules instead: its clock is the league's (moved by the league's owner), and it cannot be reset.
// Option contracts are not among the holdings: they have a card per company of their own, with
// the underlying's price, the shares held, and Sell and Exercise for each contract.
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { toast } from '/components/toast.js';
import { view, route } from '/router.js';
import { loadPortfolios, selectedPortfolioId, selectPortfolio, isReplay } from '/portfolios.js';
import { replayOptions, reportReady } from '/replay.js';
import { clockText, closedReason, portfolioRulePhrases, rankText } from '/leagues.js';
import { confirmDialog } from '/components/dialog.js';
import { holdingsTable, linkHoldingRows } from '/components/holdings-table.js';
import { equityChartCard, drawEquityChart } from '/components/equity-chart.js';
import { advancePanel, advanceSummary, setupAdvance, endReplayDialog } from '/components/advance-panel.js';
import { statCard } from '/components/stat-card.js';
import { term } from '/glossary.js';
import { optionCards, optionGroups, setupOptionCards } from '/components/option-cards.js';
import { optionsAllowed } from '/options.js';
import { showOrders } from '/components/open-orders.js';
import { formatDate, formatMoney, formatNumber, formatPercent, formatSessionDate, formatSignedMoney, isZeroAmount, tone, typedDecimal } from '/format.js';

/** Short positions against the maintenance requirement, and their risk in words. */
function marginCard(margin) {
  return html`<section class="card gap-top" id="margin-card" aria-labelledby="margin-title">
    <h2 class="flush-top" id="margin-title">${margin.met ? term('Short selling', 'Short positions') : term('Margin call')}</h2>
    <p id="margin-words" class="${margin.met ? '' : 'notice flush'}">${margin.words}</p>
    <dl class="figures">
      <div><dt>Value of the shorts</dt><dd>${formatMoney(margin.shortValue)}</dd></div>
      <div><dt>Equity</dt><dd>${formatMoney(margin.equity)}</dd></div>
      <div><dt>Equity the rules need</dt><dd id="margin-requirement">${formatMoney(margin.requirement)}</dd></div>
      <div><dt>Cash held as ${term('Margin', 'collateral')}</dt><dd>${formatMoney(margin.collateral)}</dd></div>
    </dl></section>`;
}

/** A replay's date, shown large. */
function replayDate(portfolio) {
  const { clock } = portfolio;
  return html`<div class="replay-date card gap-top"><div class="label">Replay date</div>
    <div class="date" id="replay-date">${formatSessionDate(clock.date)}</div>
    <div class="small muted">Started ${formatDate(clock.start)} · prices are history; orders fill at this day's close${portfolio.rules.maxDistinctHoldings == null ? ''
      : html` · at most ${formatNumber(portfolio.rules.maxDistinctHoldings)} different stocks`}</div></div>`;
}

/** A league portfolio's league: its name (a link to its page), clock and rules, and why it takes no orders when it does not. */
function leagueCard(portfolio, league) {
  const rules = portfolioRulePhrases(portfolio.rules ?? {}, league);
  const closed = closedReason(portfolio);
  return html`<section class="card gap-top" id="league-card" aria-labelledby="league-card-title">
    <h2 class="flush-top" id="league-card-title">League: <a href="#/leagues/${portfolio.leagueId}" id="league-link">${league?.name ?? 'open its page'}</a>
      ${league?.myRank != null ? html` <span class="small muted">· you are ${rankText(league.myRank)} of ${formatNumber(league.memberCount)}</span>` : ''}</h2>
    ${league ? html`<p class="small" id="league-clock-note">${clockText(league.clock)}</p>` : ''}
    <p class="small" id="league-rules-note">${rules.length ? html`League rules: ${rules.join('; ')}.` : 'No limits beyond your cash.'}
      <a href="#/leagues/${portfolio.leagueId}">All the rules and the standings</a>.</p>
    ${closed ? html`<p class="notice flush" id="league-closed">${closed}</p>` : ''}
  </section>`;
}

/** A replay's clock: the controls while it runs, a notice once it ended or reached the data's end; the last move; End and Report. */
function replayClock(portfolio, ready) {
  const { clock } = portfolio;
  const state = clock.ended
    ? html`<p class="notice gap-top" id="replay-ended">This replay ended on ${formatDate(clock.date)}: trading and advancing are closed.</p>`
    : ready
      ? html`<p class="notice gap-top" id="replay-at-end">The data ends here, on ${formatDate(clock.date)}: time cannot move further. You can still trade at this day's closes, then end the replay.</p>`
      : advancePanel(portfolio);
  return html`${state}
    ${advanceSummary(portfolio)}
    <div class="row gap-top">${clock.ended ? '' : html`<button id="end-replay" class="danger">End replay</button>`}
      ${ready ? html`<a class="button primary" id="report-link" href="#/report">Report</a>` : ''}</div>`;
}

export default async function portfolioScreen({ live }) {
  view(html`<h1>Portfolio</h1><p class="loading">Loading your portfolio…</p>`);
  const portfolios = await loadPortfolios();
  const id = selectedPortfolioId(portfolios);
  const [portfolio, positions] = await Promise.all([api(`/api/v1/portfolios/${id}`), api(`/api/v1/portfolios/${id}/positions`)]);
  const inLeague = !!portfolio.leagueId;
  // Past prices: a replay, the player's own or a league's. A league's replay is the league's: its
  // owner moves it, and it has no report of its own.
  const pastPrices = isReplay(portfolio);
  const ownReplay = pastPrices && !inLeague;
  const groups = optionGroups(positions.positions);
  const [options, league] = await Promise.all([
    ownReplay ? replayOptions().catch(() => null) : null,
    inLeague ? api(`/api/v1/leagues/${portfolio.leagueId}`).catch(() => null) : null,
  ]);
  if (!live()) return;
  const ready = ownReplay && reportReady(portfolio, options?.lastDate);
  const stocks = positions.positions.filter((p) => !p.option);
  // An ended replay trades no more, nor a closed league portfolio; a league may allow no options.
  const canTrade = optionsAllowed(portfolio) && !(pastPrices && portfolio.clock.ended === true) && closedReason(portfolio) == null;
  view(html`<div class="spread"><h1>Portfolio</h1>
      <div class="row"><label for="portfolio-switch" class="visually-hidden">Portfolio</label>
        <select id="portfolio-switch" class="fit">${portfolios.map((p) => html`<option value="${p.id}" ${p.id === id ? 'selected' : ''}>${p.name}${p.leagueId ? ` (league${p.closedAt ? ', closed' : ''})` : ''}</option>`)}</select>
        <button id="new-portfolio">New portfolio</button>${inLeague ? '' : html`<button id="reset-portfolio" class="danger">Reset</button>`}</div></div>
    ${inLeague ? leagueCard(portfolio, league) : ''}
    ${pastPrices ? replayDate(portfolio) : ''}
    <div class="grid gap-top" data-testid="summary">
      ${statCard('Equity', 'equity', formatMoney(portfolio.equity))}
      ${statCard('Cash', 'cash', formatMoney(portfolio.cash), isZeroAmount(portfolio.reservedCash ?? '0')
        ? {} : { note: `${formatMoney(portfolio.availableCash)} available · ${formatMoney(portfolio.reservedCash)} held for ${portfolio.margin ? 'short sales and open orders' : 'open orders'}`, noteId: 'cash-held' })}
      ${statCard(html`Total ${term('Return', 'return')}`, 'total-return', formatSignedMoney(portfolio.totalReturn), { className: tone(portfolio.totalReturn),
                 note: formatPercent(portfolio.totalReturnPercent), noteId: 'total-return-percent', noteClass: tone(portfolio.totalReturnPercent) })}
      ${statCard(pastPrices ? 'Last day' : 'Today', 'day-change', formatSignedMoney(portfolio.dayChange), { className: tone(portfolio.dayChange),
                 note: formatPercent(portfolio.dayChangePercent), noteId: 'day-change-percent', noteClass: tone(portfolio.dayChangePercent) })}
    </div>
    <div class="row small muted gap-top">Market value ${formatMoney(portfolio.marketValue)} · Realized P&amp;L
      <span class="${tone(portfolio.realizedPnl)}">${formatSignedMoney(portfolio.realizedPnl)}</span> · Unrealized
      <span class="${tone(portfolio.unrealizedPnl)}">${formatSignedMoney(portfolio.unrealizedPnl)}</span></div>
    ${portfolio.margin ? marginCard(portfolio.margin) : ''}
    ${ownReplay ? replayClock(portfolio, ready) : ''}
    <div id="top-up"></div>
    <h2>Equity over time</h2>
    ${equityChartCard('equity-chart')}
    <h2>Holdings</h2>
    <div class="card" id="holdings">${stocks.length === 0 && groups.length
      ? html`<p>No shares held. Your option contracts are below.</p>` : holdingsTable(stocks, { trends: pastPrices })}</div>
    ${groups.length ? html`<h2 id="option-positions-title">Options</h2>
      <div id="option-positions">${optionCards(groups, { canTrade })}</div>` : ''}
    <div id="orders"></div>`);
  document.getElementById('portfolio-switch').addEventListener('change', (event) => { selectPortfolio(event.target.value); route(); });
  document.getElementById('new-portfolio').addEventListener('click', newPortfolioDialog);
  document.getElementById('reset-portfolio')?.addEventListener('click', () => resetDialog(portfolio));
  document.getElementById('end-replay')?.addEventListener('click', () => endReplayDialog(portfolio));
  if (ownReplay) setupAdvance(portfolio, live);
  if (!inLeague && !pastPrices) showTopUp(portfolio, live);
  linkHoldingRows(document.getElementById('holdings'));
  showOrders(document.getElementById('orders'), portfolio, { canTrade: closedReason(portfolio) == null && !(pastPrices && portfolio.clock.ended === true), onChange: route, live });
  const optionNode = document.getElementById('option-positions');
  if (optionNode) setupOptionCards(optionNode, { portfolio, positions: positions.positions, canTrade, onDone: route });
  api(`/api/v1/portfolios/${id}/history`).then((history) => {
    const node = document.getElementById('equity-chart');
    if (!live() || !node) return;
    drawEquityChart(node, history.points);
  }).catch(() => {});
}

/**
 * Starting over without starting from scratch: when the Main portfolio has lost nine tenths of
 * its starting cash, a card offers the weekly top-up back to it (or says when the next may come).
 */
async function showTopUp(portfolio, live) {
  let status;
  try { status = await api(`/api/v1/portfolios/${portfolio.id}/top-up`); } catch { return; }
  const node = document.getElementById('top-up');
  if (!live() || !node || (!status.available && !status.nextAt)) return;
  render(node, html`<div class="card topup gap-top" role="region" aria-labelledby="top-up-title">
    <h2 class="flush-top" id="top-up-title">${status.available ? 'Start again with a top-up' : 'Top-up claimed'}</h2>
    <p id="top-up-reason">${status.reason}</p>
    ${status.available ? html`<div class="actions"><button class="primary" id="claim-top-up">Add ${formatMoney(status.amount)}</button>
      <a class="button" href="#/help/starting-over">How top-ups work</a></div>` : ''}</div>`);
  document.getElementById('claim-top-up')?.addEventListener('click', async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    try {
      await api(`/api/v1/portfolios/${portfolio.id}/top-up`, { method: 'POST' });
      toast(`${formatMoney(status.amount)} added. It counts as money put in, not as a gain.`);
      route();
    } catch (error) {
      button.disabled = false;
      toast(errorMessage(error));
    }
  });
}

function newPortfolioDialog() {
  confirmDialog({
    title: 'New portfolio',
    body: html`<label for="new-name">Name</label><input id="new-name" required maxlength="50">
      <label for="new-cash">Starting cash (1,000 to 10,000,000)</label><input id="new-cash" inputmode="decimal" value="100000">
      <label class="check row" for="new-fractional"><input type="checkbox" id="new-fractional"> Trade fractions of a share (down to a millionth)</label>`,
    confirmLabel: 'Create',
    danger: false,
    run: async () => {
      const cash = typedDecimal(document.getElementById('new-cash').value);
      const created = await api('/api/v1/portfolios', { method: 'POST', body: {
        name: document.getElementById('new-name').value, ...(cash ? { startingCash: cash } : {}),
        ...(document.getElementById('new-fractional').checked ? { fractionalShares: true } : {}),
      } });
      selectPortfolio(created.id);
      route();
      return `Created ${created.name}.`;
    },
  });
}

function resetDialog(portfolio) {
  confirmDialog({
    title: `Reset ${portfolio.name}?`,
    body: isReplay(portfolio)
      ? html`<p>The replay goes back to its start, ${formatDate(portfolio.clock.start)}, with ${formatMoney(portfolio.startingCash)} in cash and no holdings.</p>`
      : html`<p>Your holdings are closed out and cash goes back to ${formatMoney(portfolio.startingCash)}. Your history stays, as a closed period.</p>`,
    confirmLabel: 'Reset portfolio',
    run: async () => {
      await api(`/api/v1/portfolios/${portfolio.id}/reset`, { method: 'POST' });
      route();
      return 'Portfolio reset.';
    },
  });
}
