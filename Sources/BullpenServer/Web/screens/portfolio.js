// The portfolio (#/portfolio): equity, cash, total return and today's change as the server
// computes them, the equity curve against the S&P 500, the holdings; new portfolio and reset. A
// replay portfolio also shows its date, the controls that move its time and what the last move
// did, "End replay", and the report once it is ready. A league's portfolio shows its league, clock
// and rules instead: its clock is the league's (moved by the league's owner), and it cannot be reset.
import { html } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view, route } from '/router.js';
import { loadPortfolios, selectedPortfolioId, selectPortfolio, isReplay } from '/portfolios.js';
import { replayOptions, reportReady } from '/replay.js';
import { clockText, closedReason, portfolioRulePhrases } from '/leagues.js';
import { openDialog, closeDialog } from '/components/dialog.js';
import { toast } from '/components/toast.js';
import { holdingsTable, linkHoldingRows } from '/components/holdings-table.js';
import { equityChartCard, drawEquityChart } from '/components/equity-chart.js';
import { advancePanel, advanceSummary, setupAdvance, endReplayDialog } from '/components/advance-panel.js';
import { formatDate, formatMoney, formatNumber, formatPercent, formatSessionDate, formatSignedMoney, tone } from '/format.js';

/** A summary card: label, figure, and an optional line under it. */
function stat(label, id, value, { className = '', note = null, noteId = null } = {}) {
  return html`<div class="card stat"><div class="label">${label}</div>
    <div class="value ${className}"><span id="${id}">${value}</span>${note == null ? '' : html`<span class="block small" id="${noteId}">${note}</span>`}</div></div>`;
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
  return html`<section class="card gap-top league-card" id="league-card" aria-labelledby="league-card-title">
    <h2 class="flush-top" id="league-card-title">League: <a href="#/leagues/${portfolio.leagueId}" id="league-link">${league?.name ?? 'open its page'}</a>
      ${league?.myRank != null ? html` <span class="small muted">· you are #${formatNumber(league.myRank)} of ${formatNumber(league.memberCount)}</span>` : ''}</h2>
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
      : advancePanel();
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
  // A league's replay is the league's: its owner moves it, and it has no report of its own.
  const replay = isReplay(portfolio) && !inLeague;
  const [options, league] = await Promise.all([
    replay ? replayOptions().catch(() => null) : null,
    inLeague ? api(`/api/v1/leagues/${portfolio.leagueId}`).catch(() => null) : null,
  ]);
  if (!live()) return;
  const ready = replay && reportReady(portfolio, options?.lastDate);
  view(html`<div class="spread"><h1>Portfolio</h1>
      <div class="row"><label for="portfolio-switch" class="visually-hidden">Portfolio</label>
        <select id="portfolio-switch" class="fit">${portfolios.map((p) => html`<option value="${p.id}" ${p.id === id ? 'selected' : ''}>${p.name}${p.leagueId ? ` (league${p.closedAt ? ', closed' : ''})` : ''}</option>`)}</select>
        <button id="new-portfolio">New portfolio</button>${inLeague ? '' : html`<button id="reset-portfolio" class="danger">Reset</button>`}</div></div>
    ${inLeague ? leagueCard(portfolio, league) : ''}
    ${isReplay(portfolio) ? replayDate(portfolio) : ''}
    <div class="grid gap-top" data-testid="summary">
      ${stat('Equity', 'equity', formatMoney(portfolio.equity))}
      ${stat('Cash', 'cash', formatMoney(portfolio.cash))}
      ${stat('Total return', 'total-return', formatSignedMoney(portfolio.totalReturn),
             { className: tone(portfolio.totalReturn), note: formatPercent(portfolio.totalReturnPercent), noteId: 'total-return-percent' })}
      ${stat(isReplay(portfolio) ? 'Last day' : 'Today', 'day-change', formatSignedMoney(portfolio.dayChange),
             { className: tone(portfolio.dayChange), note: formatPercent(portfolio.dayChangePercent), noteId: 'day-change-percent' })}
    </div>
    <div class="row small muted gap-top">Market value ${formatMoney(portfolio.marketValue)} · Realized P&amp;L
      <span class="${tone(portfolio.realizedPnl)}">${formatSignedMoney(portfolio.realizedPnl)}</span> · Unrealized
      <span class="${tone(portfolio.unrealizedPnl)}">${formatSignedMoney(portfolio.unrealizedPnl)}</span></div>
    ${replay ? replayClock(portfolio, ready) : ''}
    <h2>Equity over time</h2>
    ${equityChartCard('equity-chart')}
    <h2>Holdings</h2>
    <div class="card" id="holdings">${holdingsTable(positions.positions, { trends: isReplay(portfolio) })}</div>`);
  document.getElementById('portfolio-switch').addEventListener('change', (event) => { selectPortfolio(event.target.value); route(); });
  document.getElementById('new-portfolio').addEventListener('click', newPortfolioDialog);
  document.getElementById('reset-portfolio')?.addEventListener('click', () => resetDialog(portfolio));
  document.getElementById('end-replay')?.addEventListener('click', () => endReplayDialog(portfolio));
  if (replay) setupAdvance(portfolio, live);
  linkHoldingRows(document.getElementById('holdings'));
  api(`/api/v1/portfolios/${id}/history`).then((history) => {
    const node = document.getElementById('equity-chart');
    if (!live() || !node) return;
    drawEquityChart(node, history.points);
  }).catch(() => {});
}

function newPortfolioDialog() {
  openDialog(html`<h2 id="dialog-title">New portfolio</h2><form id="new-form" novalidate>
    <label for="new-name">Name</label><input id="new-name" required maxlength="50">
    <label for="new-cash">Starting cash (1,000 to 10,000,000)</label><input id="new-cash" inputmode="decimal" value="100000">
    <p class="error" id="new-error" role="alert"></p>
    <div class="actions"><button class="primary" type="submit">Create</button><button type="button" data-close>Cancel</button></div></form>`);
  document.getElementById('new-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const created = await api('/api/v1/portfolios', { method: 'POST', body: {
        name: document.getElementById('new-name').value,
        startingCash: document.getElementById('new-cash').value.replace(/[,$\s]/g, ''),
      } });
      selectPortfolio(created.id);
      closeDialog();
      toast(`Created ${created.name}.`);
      route();
    } catch (error) { document.getElementById('new-error').textContent = errorMessage(error); }
  });
}

function resetDialog(portfolio) {
  openDialog(html`<h2 id="dialog-title">Reset ${portfolio.name}?</h2>
    ${isReplay(portfolio)
      ? html`<p>The replay goes back to its start, ${formatDate(portfolio.clock.start)}, with ${formatMoney(portfolio.startingCash)} in cash and no holdings.</p>`
      : html`<p>Your holdings are closed out and cash goes back to ${formatMoney(portfolio.startingCash)}. Your history stays, as a closed period.</p>`}
    <p class="error" id="reset-error" role="alert"></p>
    <div class="actions"><button class="danger" id="confirm-reset">Reset portfolio</button><button data-close>Cancel</button></div>`);
  document.getElementById('confirm-reset').addEventListener('click', async () => {
    try {
      await api(`/api/v1/portfolios/${portfolio.id}/reset`, { method: 'POST' });
      closeDialog();
      toast('Portfolio reset.');
      route();
    } catch (error) { document.getElementById('reset-error').textContent = errorMessage(error); }
  });
}
