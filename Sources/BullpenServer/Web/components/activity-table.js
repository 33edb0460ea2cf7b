// Trades as a table, newest first as the API pages them: date, what was bought or sold, price,
// the change of cash and the realized P&L (the history screen, a league member's trades). Option
// contracts go by their title, their prices per share; exercises, expiries and assignments are
// told as what happened (options.js words them).
import { html } from '/html.js';
import { activityPhrase, isOptionActivity } from '/options.js';
import { formatDate, formatDateTime, formatPrice, formatSignedMoney, tone } from '/format.js';

/** The price column: per share for a contract; none for a contract's leg of an exercise or an assignment (the shares' leg has the strike). */
function priceCell(a) {
  if (a.option && (a.type === 'option_exercise' || a.type === 'option_assignment')) return '—';
  if (a.option) return html`${formatPrice(a.price)}<div class="small muted">a share</div>`;
  return formatPrice(a.price);
}

/**
 * `empty`: the words when there is nothing to show; `sessions`: date each entry by the session it
 * belongs to (a replay's: its date then) rather than by when it was recorded.
 */
export function activityTable(activities, { empty = 'No activity yet.', sessions = false } = {}) {
  if (activities.length === 0) return html`<p>${empty}</p>`;
  return html`<table class="activities"><thead><tr><th scope="col">Date</th><th scope="col" class="trade">Trade</th>
    <th scope="col" class="hide-narrow">Price</th><th scope="col">Amount</th><th scope="col">Realized</th></tr></thead><tbody>
    ${activities.map((a) => html`<tr data-type="${a.type}" ${isOptionActivity(a) ? html`data-option="${a.option?.positionSymbol ?? a.symbol ?? ''}"` : ''}><td>${sessions && a.date ? formatDate(a.date) : formatDateTime(a.createdAt)}</td>
      <td class="trade">${activityPhrase(a)}</td>
      <td class="hide-narrow">${priceCell(a)}</td><td class="${tone(a.amount)}">${formatSignedMoney(a.amount)}</td>
      <td class="${tone(a.realizedPnl)}">${a.realizedPnl == null ? '—' : formatSignedMoney(a.realizedPnl)}</td></tr>`)}</tbody></table>`;
}
