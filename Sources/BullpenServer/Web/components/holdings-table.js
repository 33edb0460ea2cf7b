// The holdings of a portfolio as a table; each row opens the company's page (click or Enter). A
// replay's rows also have a "Trends" link (the same page, whose chart shows 20 days or 3 months).
// An option contract (where one is listed here: a league member's holdings) goes by its title, its
// quantity in contracts and its prices per share, and opens its company's options.
import { html } from '/html.js';
import { formatMoney, formatNumber, formatPercent, formatPrice, formatSignedMoney, tone, formatQuantity } from '/format.js';
import { endedBadgeFor } from '/components/asset-row.js';
import { contractsText } from '/options.js';
import { term } from '/glossary.js';

const NO_HOLDINGS = html`No holdings yet. <a href="#/market">Find a company in Market</a> and buy your first shares.`;

/** `trends`: add the "Trends" link to each row; `empty`: the words when there is nothing to show (the player's own portfolio's, unless said). */
export function holdingsTable(positions, { trends = false, empty = NO_HOLDINGS } = {}) {
  if (positions.length === 0) return html`<p>${empty}</p>`;
  // Coins among the holdings: the columns name holdings and quantities, each coin row says "coins".
  const coins = positions.some((p) => p.assetClass === 'crypto');
  // On the narrowest phones the table scrolls sideways in its own box, never the page.
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Holdings"><table><caption class="visually-hidden">Holdings</caption><thead><tr><th scope="col">${coins ? 'Holding' : 'Company'}</th><th scope="col">${coins ? 'Quantity' : 'Shares'}</th>
    <th scope="col" class="hide-narrow">${term('Average cost', 'Avg cost')}</th><th scope="col" class="hide-narrow">Last</th><th scope="col">Value</th><th scope="col">Unrealized</th></tr></thead><tbody>
    ${positions.map((p) => html`<tr class="clickable" tabindex="0" data-symbol="${p.symbol}" ${p.option ? html`data-open="${p.option.underlying}/options"` : ''}>
      <td><strong>${p.option ? p.option.title : p.symbol}</strong> ${endedBadgeFor(p, p.priceAsOf)}<div class="small muted">${p.option ? 'option contract, prices a share' : p.name ?? ''}</div>${p.assetClass === 'crypto' ? html`<span class="badge playing">Crypto</span>` : ''}
        ${trends ? html`<a class="small" href="#/stock/${p.symbol}/trends" data-trends="${p.symbol}" aria-label="Trends of ${p.symbol}">Trends</a>` : ''}</td>
      <td>${p.option ? contractsText(p.quantity) : formatQuantity(p.quantity)}${coins && !p.option ? html`<div class="small muted">${p.assetClass === 'crypto' ? 'coins' : 'shares'}</div>` : ''}</td>
      <td class="hide-narrow">${formatPrice(p.averageCost)}</td>
      <td class="hide-narrow">${formatPrice(p.lastPrice)}</td>
      <td>${formatMoney(p.marketValue)}</td>
      <td class="${tone(p.unrealizedPnl)}">${formatSignedMoney(p.unrealizedPnl)}<div class="small">${formatPercent(p.unrealizedPnlPercent)}</div></td></tr>`)}
  </tbody></table></div>`;
}

/** Makes the rows drawn by holdingsTable inside `container` open their company. */
export function linkHoldingRows(container) {
  for (const row of container.querySelectorAll('tr[data-symbol]')) {
    const target = `#/stock/${row.dataset.open ?? row.dataset.symbol}`;
    row.addEventListener('click', () => { location.hash = target; });
    row.addEventListener('keydown', (event) => { if (event.key === 'Enter') location.hash = target; });
  }
}
