// Trades as a table, newest first as the API pages them: date, what was bought or sold, price,
// the change of cash and the realized P&L (the history screen, a league member's trades).
import { html } from '/html.js';
import { formatDateTime, formatNumber, formatPrice, formatSignedMoney, tone } from '/format.js';

/** `empty`: the words when there is nothing to show. */
export function activityTable(activities, { empty = 'No activity yet.' } = {}) {
  if (activities.length === 0) return html`<p>${empty}</p>`;
  return html`<table><thead><tr><th scope="col">Date</th><th scope="col">Trade</th>
    <th scope="col" class="hide-narrow">Price</th><th scope="col">Amount</th><th scope="col">Realized</th></tr></thead><tbody>
    ${activities.map((a) => html`<tr data-type="${a.type}"><td>${formatDateTime(a.createdAt)}</td>
      <td>${a.type === 'buy' ? 'Bought' : 'Sold'} ${formatNumber(a.quantity)} <strong>${a.symbol}</strong></td>
      <td class="hide-narrow">${formatPrice(a.price)}</td><td class="${tone(a.amount)}">${formatSignedMoney(a.amount)}</td>
      <td class="${tone(a.realizedPnl)}">${a.realizedPnl == null ? '—' : formatSignedMoney(a.realizedPnl)}</td></tr>`)}</tbody></table>`;
}
