// A portfolio's equity day by day against the S&P 500 (the portfolio screen's curve, a replay's
// report): the legend, and the chart drawn from the server's points.
import { html } from '/html.js';
import { market } from '/market-status.js';
import { lineChart } from '/components/chart.js';
import { formatAxisMoney, formatDate, formatMoney } from '/format.js';

/** The legend; the chart goes in the element with id `chartId` below it. */
export function equityChartCard(chartId) {
  return html`<div class="card"><div class="legend"><span class="equity">Your portfolio</span><span class="benchmark">S&amp;P 500${market.status?.simulated ? ' (demo index)' : ''}</span></div><div id="${chartId}"></div></div>`;
}

/** Draws points [{ date, equity, benchmark }] (the benchmark scaled to the same starting cash) into `node`. */
export function drawEquityChart(node, points) {
  lineChart(node, {
    describe: 'Equity of the portfolio over time against the S&P 500',
    formatValue: formatMoney,
    formatAxis: formatAxisMoney,
    series: [
      { name: 'Portfolio', color: 'var(--accent)', points: points.map((p) => ({ label: formatDate(p.date), value: p.equity })) },
      { name: 'S&P 500', color: 'var(--muted)', dashed: true, points: points.map((p) => ({ label: formatDate(p.date), value: p.benchmark })) },
    ],
  });
}
