// A league member's portfolio (#/leagues/{id}/members/{userId}): equity, cash and return, the
// holdings and the trades, as the server shows them to the league's owner (or to every member
// when the league's holdings are visible).
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view } from '/router.js';
import { holdingsTable, linkHoldingRows } from '/components/holdings-table.js';
import { activityTable } from '/components/activity-table.js';
import { formatMoney, formatPercent, formatSignedMoney, tone } from '/format.js';

function stat(label, id, value, className = '', note = null) {
  return html`<div class="card stat"><div class="label">${label}</div><div class="value ${className}" id="${id}">${value}</div>
    ${note == null ? '' : html`<div class="small ${className}">${note}</div>`}</div>`;
}

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
      ${stat('Equity', 'member-equity', formatMoney(portfolio.equity))}
      ${stat('Cash', 'member-cash', formatMoney(portfolio.cash))}
      ${stat('Total return', 'member-return', formatSignedMoney(portfolio.totalReturn), tone(portfolio.totalReturn), formatPercent(portfolio.totalReturnPercent))}
      ${stat('Realized P&L', 'member-realized', formatSignedMoney(portfolio.realizedPnl), tone(portfolio.realizedPnl))}
    </div>
    <h2>Holdings</h2>
    <div class="card" id="member-holdings">${positions.length === 0 ? html`<p>No holdings.</p>` : holdingsTable(positions)}</div>
    <h2>Trades</h2>
    <div class="card" id="member-activities"><p class="loading">Loading…</p></div>
    <div class="spread gap-top"><span></span><button type="button" id="more-activities" hidden>Show more</button></div>`);
  linkHoldingRows(document.getElementById('member-holdings'));
  const node = document.getElementById('member-activities');
  const more = document.getElementById('more-activities');
  let activities = [], cursor = null;
  const load = async () => {
    more.disabled = true;
    try {
      const page = await api(`${base}/activities${cursor ? '?cursor=' + encodeURIComponent(cursor) : ''}`);
      if (!live()) return;
      activities = activities.concat(page.activities);
      cursor = page.nextCursor;
      render(node, activityTable(activities, { empty: 'No trades yet.' }));
      more.hidden = !cursor;
      more.disabled = false;
    } catch (error) {
      if (live()) render(node, html`<p class="error">${errorMessage(error)}</p>`);
    }
  };
  more.addEventListener('click', load);
  load();
}
