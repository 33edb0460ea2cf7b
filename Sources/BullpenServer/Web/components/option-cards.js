// The portfolio's option contracts, a card per company (Fishback's portfolio): the underlying's
// symbol and price, the shares held, and each contract (type, expiry, strike, contracts, value,
// profit or loss with its arrow). Each contract can be sold (the trade sheet, whose review asks
// "do you want to complete this transaction?") or exercised (a confirmation first, then the
// server's account of it in a toast); a written contract (a negative quantity) is bought back
// instead and is never exercised. Its title opens the contract's sheet. Every figure is the server's.
import { html } from '/html.js';
import { openTradeSheet } from '/components/trade-sheet.js';
import { exerciseDialog, openOptionSheet } from '/components/option-sheet.js';
import { contractsText, isWritten, typeLabel } from '/options.js';
import { formatDate, formatMoney, formatMoneyChange, formatSignedMoney, formatNumber, formatPercent, formatPrice, formatQuantity, tone } from '/format.js';

/**
 * The positions of contracts, grouped by underlying in the order of first appearance:
 * [{ underlying, price, contracts, shares }], `price` the underlying's at the portfolio's clock
 * as the server gives it with each contract.
 */
export function optionGroups(positions) {
  const groups = new Map();
  for (const position of positions) {
    if (!position.option) continue;
    const underlying = position.option.underlying;
    if (!groups.has(underlying)) {
      groups.set(underlying, { underlying, price: position.underlyingPrice, contracts: [],
                               shares: positions.find((p) => p.symbol === underlying)?.quantity ?? 0 });
    }
    groups.get(underlying).contracts.push(position);
  }
  return [...groups.values()];
}

function contractRow(position, { canTrade }) {
  const contract = position.option;
  const written = isWritten(position);
  // The server says whether the contract is in the money at the clock; unknown (no price), Exercise stays on and the server judges.
  const itm = position.inTheMoney;
  const id = contract.positionSymbol;
  return html`<tr data-contract="${id}">
    <td data-label="Type"><button type="button" class="link" data-details="${id}" aria-label="${contract.title}: details">${typeLabel(contract)}</button>
      ${written ? html` <span class="badge plain-badge">Written</span>` : ''}${itm ? html` <span class="badge itm-badge">ITM</span>` : ''}</td>
    <td data-label="Expires">${formatDate(contract.expiration)}</td>
    <td data-label="Strike">${formatPrice(contract.strike)}</td>
    <td data-label="Contracts" data-role="contracts">${formatNumber(Math.abs(position.quantity))}</td>
    <td data-label="Value" data-role="value">${written ? formatSignedMoney(position.marketValue) : formatMoney(position.marketValue)}</td>
    <td data-label="Profit/loss" data-role="pnl" class="${tone(position.unrealizedPnl)}">${formatMoneyChange(position.unrealizedPnl)}
      ${position.unrealizedPnlPercent == null ? '' : html`<div class="small">${formatPercent(position.unrealizedPnlPercent)}</div>`}</td>
    <td class="contract-actions">${written
      ? html`<button type="button" class="buy" data-buy-close="${id}" ${canTrade ? '' : 'disabled'} aria-label="Buy to close ${contract.title}">Buy to close</button>`
      : html`<button type="button" class="sell" data-sell="${id}" ${canTrade ? '' : 'disabled'} aria-label="Sell ${contract.title}">Sell</button>
        <button type="button" data-exercise="${id}" aria-label="Exercise ${contract.title}"
          ${canTrade && itm !== false ? '' : 'disabled'} ${itm === false ? html`aria-describedby="otm-${contract.underlying}"` : ''}>Exercise</button>`}</td>
  </tr>`;
}

/** The cards. groups: optionGroups(positions); canTrade: whether the portfolio may trade now. */
export function optionCards(groups, { canTrade }) {
  return groups.map((group) => html`<section class="card gap-top option-card" data-underlying="${group.underlying}" aria-labelledby="options-${group.underlying}">
    <div class="spread"><h3 class="flush" id="options-${group.underlying}"><a href="#/stock/${group.underlying}/options">${group.underlying}</a></h3>
      <div>Current price <strong data-role="price">${formatPrice(group.price)}</strong></div></div>
    <p class="small muted flush" data-role="shares">${group.shares === 0 ? `No shares of ${group.underlying} held.` : `You hold ${formatQuantity(group.shares)} ${group.shares === 1 ? 'share' : 'shares'} of ${group.underlying}.`}
      ${contractsText(group.contracts.reduce((sum, p) => sum + Math.abs(p.quantity), 0))} on it; a contract is 100 shares.</p>
    <table class="contracts"><caption class="visually-hidden">Option contracts on ${group.underlying}</caption>
      <thead><tr><th scope="col">Type</th><th scope="col">Expires</th><th scope="col">Strike</th><th scope="col">Contracts</th>
        <th scope="col">Value</th><th scope="col">Profit/loss</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${group.contracts.map((position) => contractRow(position, { canTrade }))}</tbody></table>
    ${group.contracts.some((p) => p.inTheMoney === false && !isWritten(p)) ? html`<p class="small muted" id="otm-${group.underlying}">Exercise
      is off for a contract out of the money (no ITM mark): it would buy dearer (a call) or sell cheaper (a put) than the market.</p>` : ''}
  </section>`);
}

/**
 * Wires the cards inside `container`. portfolio: the selected one (its clock and id); positions:
 * all of its positions; canTrade as for optionCards; onDone(): after an order or an exercise.
 */
export function setupOptionCards(container, { portfolio, positions, canTrade, onDone }) {
  const find = (id) => positions.find((p) => p.symbol === id);
  for (const button of container.querySelectorAll('[data-details]')) {
    button.addEventListener('click', () => openOptionSheet(find(button.dataset.details).option, { portfolio, positions, canTrade, onDone, returnFocus: button }));
  }
  for (const button of container.querySelectorAll('[data-sell]')) {
    button.addEventListener('click', () => openTradeSheet({ side: 'sell', option: find(button.dataset.sell).option, portfolio, onDone }));
  }
  for (const button of container.querySelectorAll('[data-buy-close]')) {
    button.addEventListener('click', () => openTradeSheet({ side: 'buy', option: find(button.dataset.buyClose).option, portfolio, onDone, written: true }));
  }
  for (const button of container.querySelectorAll('[data-exercise]')) {
    button.addEventListener('click', () => exerciseDialog({ portfolio, position: find(button.dataset.exercise), positions, onDone }));
  }
}
