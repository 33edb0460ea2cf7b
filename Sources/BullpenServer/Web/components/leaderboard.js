// A leaderboard (a league's, or the global one): the switch between the four measures, what the
// chosen one means in plain words (the server's own help texts), the standings page by page with
// the player's own line highlighted, and their place when it is on a later page. Every figure is
// the server's; on a phone the table keeps rank, player (with the equity under the name) and the
// chosen measure.
import { html, render } from '/html.js';
import { api } from '/api.js';
import { METRICS, metricLabel, playersText, rankText } from '/leagues.js';
import { moreButton, setupPager } from '/components/pager.js';
import { term } from '/glossary.js';
import { formatDate, formatMoney, formatNumber, formatPercent, formatShare, formatSignedMoney, tone } from '/format.js';

/** A Sharpe ratio as the API writes it ("1.23", "-0.40"): a true minus sign; "—" when there is none. */
function sharpeText(text) { return text == null ? '—' : text.replace(/^-/, '−'); }

/** A line's figure under each measure, as shown. */
const VALUE_OF = {
  return: (s) => formatPercent(s.totalReturnPercent),
  sharpe: (s) => sharpeText(s.sharpe),
  drawdown: (s) => formatShare(s.maxDrawdownPercent),
  vs_benchmark: (s) => formatPercent(s.vsBenchmarkPercent),
};

/** A figure's cell: on a phone only the chosen measure's column shows. */
function cell(metric, column, content, className = '') {
  return html`<td class="${metric === column ? '' : 'hide-narrow'} ${className}">${content}</td>`;
}

function head(metric, column, label) {
  return html`<th scope="col" class="${metric === column ? '' : 'hide-narrow'}">${label}</th>`;
}

function row(metric, s, { showPortfolio }) {
  return html`<tr data-user="${s.userId}" class="${s.isMe ? 'me' : ''}" ${s.isMe ? html`aria-current="true"` : ''}>
    <td class="rank">${formatNumber(s.rank)}</td>
    <td class="player"><strong>${s.username}</strong>${s.isMe ? html` <span class="badge you">You</span>` : ''}
      ${showPortfolio && s.portfolioName ? html`<span class="block small muted">${s.portfolioName}</span>` : ''}
      <span class="block small only-narrow">${formatMoney(s.equity)}</span></td>
    <td class="hide-narrow">${formatMoney(s.equity)}</td>
    ${cell(metric, 'return', VALUE_OF.return(s), tone(s.totalReturnPercent))}
    ${cell(metric, 'today', formatSignedMoney(s.todayChange), tone(s.todayChange))}
    ${cell(metric, 'sharpe', VALUE_OF.sharpe(s))}
    ${cell(metric, 'drawdown', VALUE_OF.drawdown(s))}
    ${cell(metric, 'vs_benchmark', VALUE_OF.vs_benchmark(s), tone(s.vsBenchmarkPercent))}
    ${cell(metric, 'trades', formatNumber(s.trades))}
  </tr>`;
}

/** The standings; a keyboard scrolls them sideways when they are wider than the card. */
function table(metric, standings, options) {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-labelledby="standings-caption"><table class="standings" id="standings">
    <caption class="visually-hidden" id="standings-caption">Standings by ${metricLabel(metric)}</caption>
    <thead><tr><th scope="col">Rank</th><th scope="col" class="player">Player</th><th scope="col" class="hide-narrow">Equity</th>
      ${head(metric, 'return', 'Return')}${head(metric, 'today', 'Today')}${head(metric, 'sharpe', 'Sharpe')}
      ${head(metric, 'drawdown', term('Drawdown', 'Largest fall'))}${head(metric, 'vs_benchmark', html`vs ${term('S&P 500')}`)}${head(metric, 'trades', 'Trades')}</tr></thead>
    <tbody>${standings.map((s) => row(metric, s, options))}</tbody></table></div>`;
}

/** The markup; `setupLeaderboard` fills it. */
export function leaderboardCard() {
  return html`<section class="card" id="leaderboard" aria-labelledby="standings-title">
    <h2 class="flush-top" id="standings-title">Standings</h2>
    <div class="segmented" role="group" aria-label="Rank by">${METRICS.map(([id, label]) => html`<button type="button" data-metric="${id}" aria-pressed="false">${label}</button>`)}</div>
    <p class="small gap-top" id="metric-help" aria-live="polite"></p>
    <p class="small muted" id="standings-as-of"></p>
    <div id="standings-body"><p class="loading">Loading the standings…</p></div>
    <div id="my-place"></div>
    ${moreButton('more-standings')}
    <details class="gap-top" id="measures-help"><summary>What the measures mean</summary><dl class="measures" id="measures"></dl></details>
  </section>`;
}

/**
 * Loads and draws the standings into leaderboardCard's markup, page by page. `path`: the API's
 * leaderboard ("/api/v1/leagues/{id}/leaderboard"); `query()`: its other parameters
 * ({ period: 'week' }), asked at each load; `live()`: the screen's; `showPortfolio`: name the
 * portfolio of each line (the global board ranks portfolios). Returns `reload()`.
 */
export function setupLeaderboard({ path, query = () => ({}), live, showPortfolio = false }) {
  let metric = null;   // the server's default until a measure is chosen
  const url = (cursor) => {
    const params = new URLSearchParams(query());
    if (metric) params.set('metric', metric);
    if (cursor) params.set('cursor', cursor);
    const text = params.toString();
    return text ? `${path}?${text}` : path;
  };
  const drawHelp = (help) => {
    document.getElementById('metric-help').textContent = help[metric] ?? '';
    render(document.getElementById('measures'), METRICS.filter(([id]) => help[id]).map(([id, label]) => html`<div><dt>${label}</dt><dd>${help[id]}</dd></div>`));
  };
  const drawMe = (board, standings) => {
    render(document.getElementById('my-place'), board.me && !standings.some((s) => s.isMe)
      ? html`<p class="my-place" id="my-place-line">Your place: <strong>${rankText(board.me.rank)}</strong> of ${formatNumber(board.total)} ·
          ${metricLabel(board.metric)} ${VALUE_OF[board.metric]?.(board.me) ?? ''}</p>`
      : '');
  };
  const body = document.getElementById('standings-body');
  const reload = setupPager({
    moreId: 'more-standings', node: body, key: 'standings', live,
    page: (cursor) => api(url(cursor)),
    draw: (standings, board) => {
      metric = board.metric;
      for (const button of document.querySelectorAll('[data-metric]')) button.setAttribute('aria-pressed', String(button.dataset.metric === metric));
      drawHelp(board.help ?? {});
      document.getElementById('standings-as-of').textContent = [
        board.final ? 'Final standings' : null,
        board.asOf ? `As of ${formatDate(board.asOf)}` : null,
        playersText(board.total),
      ].filter(Boolean).join(' · ');
      render(body, standings.length === 0 ? html`<p id="no-standings">No one is ranked yet.</p>`
        : html`${table(metric, standings, { showPortfolio })}
          ${standings.some((s) => s.sharpe == null) ? html`<p class="small muted">A ${term('Sharpe ratio')} of — means there is nothing to measure yet: fewer than two trading days, or a value that has not moved.</p>` : ''}`);
      drawMe(board, standings);
    },
  });
  for (const button of document.querySelectorAll('[data-metric]')) {
    button.addEventListener('click', () => {
      metric = button.dataset.metric;
      for (const other of document.querySelectorAll('[data-metric]')) other.setAttribute('aria-pressed', String(other === button));
      reload();
    });
  }
  return reload;
}
