// The report of the selected replay (#/report): how it went against the S&P 500, its largest fall,
// best and worst trades (a sale, or written contracts bought back), time invested, what buying and
// holding would have made, and the equity curve. Every figure is the server's. Ready once the replay is ended or stands on the data's last day.
import { html } from '/html.js';
import { api } from '/api.js';
import { view } from '/router.js';
import { loadSelectedPortfolio, isReplay } from '/portfolios.js';
import { equityChartCard, drawEquityChart } from '/components/equity-chart.js';
import { statCard } from '/components/stat-card.js';
import { contractsText } from '/options.js';
import { term } from '/glossary.js';
import { formatDate, formatMoney, formatNumber, formatPercent, formatPrice, formatShare, formatSignedMoney, tone, formatQuantity } from '/format.js';

/** What a closed trade did, in words: "Sold 5 MSFT at $25.00 on Mar 2, 2009", "Bought back 1 contract of AAPL Mar 20 $90 Call at …". */
function tradeNote(t) {
  const what = t.option ? `${contractsText(t.quantity)} of ${t.option.title}` : `${formatQuantity(t.quantity)} ${t.symbol}`;
  return `${t.side === 'buy' ? 'Bought back' : 'Sold'} ${what} at ${formatPrice(t.price)}${t.option ? ' a share' : ''} on ${formatDate(t.date)}`;
}

function trade(label, id, t) {
  if (!t) return statCard(label, id, '—', { note: 'No sale yet' });
  return statCard(label, id, formatSignedMoney(t.realizedPnl), { className: tone(t.realizedPnl), note: tradeNote(t) });
}

function notReady(title, text) {
  return html`<h1>${title}</h1><div class="card"><p id="report-note">${text}</p><p><a href="#/portfolio">Back to the portfolio</a> · <a href="#/profiles">Replay profiles</a></p></div>`;
}

export default async function reportScreen({ live }) {
  view(html`<h1>Report</h1><p class="loading">Loading the report…</p>`);
  const portfolio = await loadSelectedPortfolio();
  if (!live()) return;
  if (!isReplay(portfolio)) {
    view(notReady('Report', 'Reports are for replays. Pick or start a profile in Replay, play it, then end it to see how it went.'));
    return;
  }
  let report;
  try {
    report = await api(`/api/v1/portfolios/${portfolio.id}/report`);
  } catch (error) {
    if (error.code !== 'report_not_ready') throw error;
    if (live()) view(notReady(`Report of ${portfolio.name}`, error.message));
    return;
  }
  if (!live()) return;
  view(html`<h1>Report of ${portfolio.name}</h1>
    <p class="muted" id="report-period">${formatDate(report.start)} → ${formatDate(report.end)} · ${formatNumber(report.days)} trading days${report.endOfData ? ' · to the end of the data' : ''}</p>
    <div class="grid" data-testid="report">
      ${statCard('Starting cash', 'report-start', formatMoney(report.startingCash))}
      ${statCard('Ending value', 'report-equity', formatMoney(report.endingEquity))}
      ${statCard(html`Total ${term('Return', 'return')}`, 'report-return', formatSignedMoney(report.totalReturn), { className: tone(report.totalReturn), note: formatPercent(report.totalReturnPercent) })}
      ${statCard(term('S&P 500'), 'report-benchmark', formatPercent(report.benchmarkReturnPercent), { className: tone(report.benchmarkReturnPercent),
        note: html`The ${term('Benchmark', 'benchmark')}, over the same days` })}
      ${statCard(term('Drawdown', 'Largest fall'), 'report-drawdown', formatMoney(report.maxDrawdown), {
        note: report.drawdownPeak ? `${formatShare(report.maxDrawdownPercent)} from ${formatDate(report.drawdownPeak)} to ${formatDate(report.drawdownTrough)}` : 'No fall' })}
      ${trade('Best trade', 'report-best', report.bestTrade)}
      ${trade('Worst trade', 'report-worst', report.worstTrade)}
      ${statCard('Days invested', 'report-invested', `${formatNumber(report.daysInvested)} of ${formatNumber(report.days)}`, { note: `${formatShare(report.daysInvestedPercent)} of the days` })}
    </div>
    <h2>Buying and holding instead</h2>
    <div class="card"><dl class="figures">
      <div><dt>The S&amp;P 500, bought on the first day</dt><dd id="report-hold-benchmark">${formatMoney(report.buyAndHoldBenchmark)}</dd></div>
      ${report.buyAndHoldStocks == null ? '' : html`<div><dt>The starting stocks, never traded</dt><dd id="report-hold-stocks">${formatMoney(report.buyAndHoldStocks)}</dd></div>`}
      <div><dt>You</dt><dd>${formatMoney(report.endingEquity)}</dd></div>
    </dl></div>
    <h2>Equity against the S&amp;P 500</h2>
    ${equityChartCard('report-chart')}`);
  drawEquityChart(document.getElementById('report-chart'), report.points);
}
