// A league member's portfolio (#/leagues/{id}/members/{userId}): equity, cash and return, the
// holdings and the trades, as the server shows them to the league's owner (or to every member
// when the league's holdings are visible); a replay league's trades are dated by its dates.
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view } from '/router.js';
import { holdingsTable, linkHoldingRows } from '/components/holdings-table.js';
import { activityTable } from '/components/activity-table.js';
import { moreButton, setupPager } from '/components/pager.js';
import { statCard } from '/components/stat-card.js';
import { isReplay } from '/portfolios.js';
import { formatMoney, formatPercent, formatSignedMoney, tone } from '/format.js';

export default async function memberScreen({ params: [leagueId, , userId], live }) {
  const back = html`<p><a href="#/leagues/${leagueId}" id="back-to-league">← Back to the league</a></p>`;
  view(html`${back}<h1>Player</h1><p class="loading">Loading…</p>`);
  const base = `/api/v1/leagues/${encodeURIComponent(leagueId)}/members/${encodeURIComponent(userId)}`;
  let member;
  try {
    member = await api(`${base}/portfolio`);
  } catch (error) {
    if (error.status !== 403 && error.status !== 404) throw error;
    if (live()) view(html`${back}<h1>Player</h1><div class="card"><p id="member-refused">${errorMessage(error)}</p></div>`);
    return;
  }
  if (!live()) return;
  const { portfolio, positions } = member;
  view(html`${back}<h1>${member.username}</h1>
    <p class="muted">${portfolio.name}${portfolio.closedAt ? ' · no longer playing' : ''}</p>
    <div class="grid">
      ${statCard('Equity', 'member-equity', formatMoney(portfolio.equity))}
      ${statCard('Cash', 'member-cash', formatMoney(portfolio.cash))}
      ${statCard('Total return', 'member-return', formatSignedMoney(portfolio.totalReturn),
                 { className: tone(portfolio.totalReturn), note: formatPercent(portfolio.totalReturnPercent), noteClass: tone(portfolio.totalReturnPercent) })}
      ${statCard('Realized P&L', 'member-realized', formatSignedMoney(portfolio.realizedPnl), { className: tone(portfolio.realizedPnl) })}
    </div>
    <h2>Holdings</h2>
    <div class="card" id="member-holdings">${holdingsTable(positions, { empty: 'No holdings.' })}</div>
    <h2>Trades</h2>
    <div class="card" id="member-activities"><p class="loading">Loading…</p></div>
    ${moreButton('more-activities')}`);
  linkHoldingRows(document.getElementById('member-holdings'));
  const node = document.getElementById('member-activities');
  setupPager({
    moreId: 'more-activities', node, key: 'activities', live,
    page: (cursor) => api(`${base}/activities${cursor ? '?cursor=' + encodeURIComponent(cursor) : ''}`),
    draw: (activities) => render(node, activityTable(activities, { empty: 'No trades yet.', sessions: isReplay(portfolio) })),
  });
}
