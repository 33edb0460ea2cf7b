// The portfolio (#/portfolio): equity, cash, total return and today's change as the server
// computes them, the equity curve against the S&P 500, the holdings; new portfolio and reset.
import { html } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view, route } from '/router.js';
import { market } from '/market-status.js';
import { loadPortfolios, selectedPortfolioId, selectPortfolio } from '/portfolios.js';
import { lineChart } from '/components/chart.js';
import { openDialog, closeDialog } from '/components/dialog.js';
import { toast } from '/components/toast.js';
import { holdingsTable, linkHoldingRows } from '/components/holdings-table.js';
import { formatAxisMoney, formatDate, formatMoney, formatPercent, formatSignedMoney, tone } from '/format.js';

/** A summary card: label, figure, and an optional line under it. */
function stat(label, id, value, { className = '', note = null, noteId = null } = {}) {
  return html`<div class="card stat"><div class="label">${label}</div>
    <div class="value ${className}"><span id="${id}">${value}</span>${note == null ? '' : html`<span class="block small" id="${noteId}">${note}</span>`}</div></div>`;
}

export default async function portfolioScreen({ live }) {
  view(html`<h1>Portfolio</h1><p class="loading">Loading your portfolio…</p>`);
  const portfolios = await loadPortfolios();
  const id = selectedPortfolioId(portfolios);
  const [portfolio, positions] = await Promise.all([api(`/api/v1/portfolios/${id}`), api(`/api/v1/portfolios/${id}/positions`)]);
  if (!live()) return;
  view(html`<div class="spread"><h1>Portfolio</h1>
      <div class="row"><label for="portfolio-switch" class="visually-hidden">Portfolio</label>
        <select id="portfolio-switch" class="fit">${portfolios.map((p) => html`<option value="${p.id}" ${p.id === id ? 'selected' : ''}>${p.name}</option>`)}</select>
        <button id="new-portfolio">New portfolio</button><button id="reset-portfolio" class="danger">Reset</button></div></div>
    <div class="grid" data-testid="summary">
      ${stat('Equity', 'equity', formatMoney(portfolio.equity))}
      ${stat('Cash', 'cash', formatMoney(portfolio.cash))}
      ${stat('Total return', 'total-return', formatSignedMoney(portfolio.totalReturn),
             { className: tone(portfolio.totalReturn), note: formatPercent(portfolio.totalReturnPercent), noteId: 'total-return-percent' })}
      ${stat('Today', 'day-change', formatSignedMoney(portfolio.dayChange),
             { className: tone(portfolio.dayChange), note: formatPercent(portfolio.dayChangePercent), noteId: 'day-change-percent' })}
    </div>
    <div class="row small muted gap-top">Market value ${formatMoney(portfolio.marketValue)} · Realized P&amp;L
      <span class="${tone(portfolio.realizedPnl)}">${formatSignedMoney(portfolio.realizedPnl)}</span> · Unrealized
      <span class="${tone(portfolio.unrealizedPnl)}">${formatSignedMoney(portfolio.unrealizedPnl)}</span></div>
    <h2>Equity over time</h2>
    <div class="card"><div class="legend"><span class="equity">Your portfolio</span><span class="benchmark">S&amp;P 500${market.status?.simulated ? ' (demo index)' : ''}</span></div><div id="equity-chart"></div></div>
    <h2>Holdings</h2>
    <div class="card" id="holdings">${holdingsTable(positions.positions)}</div>`);
  document.getElementById('portfolio-switch').addEventListener('change', (event) => { selectPortfolio(event.target.value); route(); });
  document.getElementById('new-portfolio').addEventListener('click', newPortfolioDialog);
  document.getElementById('reset-portfolio').addEventListener('click', () => resetDialog(portfolio));
  linkHoldingRows(document.getElementById('holdings'));
  api(`/api/v1/portfolios/${id}/history`).then((history) => {
    const node = document.getElementById('equity-chart');
    if (!live() || !node) return;
    lineChart(node, {
      describe: 'Equity of the portfolio over time against the S&P 500',
      formatValue: formatMoney,
      formatAxis: formatAxisMoney,
      series: [
        { name: 'Portfolio', color: 'var(--accent)', points: history.points.map((p) => ({ label: formatDate(p.date), value: p.equity })) },
        { name: 'S&P 500', color: 'var(--muted)', dashed: true, points: history.points.map((p) => ({ label: formatDate(p.date), value: p.benchmark })) },
      ],
    });
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
    <p>Your holdings are closed out and cash goes back to ${formatMoney(portfolio.startingCash)}. Your history stays, as a closed period.</p>
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
