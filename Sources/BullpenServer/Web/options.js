// Options in words: a contract's name and terms, the greeks explained, what the activities of
// options (trades, exercises, expiries, assignments) say, and whether a portfolio may trade them.
// Every figure is the server's decimal string, formatted; nothing here computes money. A contract
// is 100 shares, and the API gives its prices per share.
import { html } from '/html.js';
import { formatDate, formatNumber, formatPrice, formatQuantity, isZeroAmount } from '/format.js';

/** Where the help explains options. */
export const OPTIONS_HELP = '#/help/options';

/** Whether `portfolio`'s rules let it trade option contracts (a league may forbid them). */
export function optionsAllowed(portfolio) {
  const instruments = portfolio?.rules?.allowedInstruments;
  return !Array.isArray(instruments) || instruments.includes('option');
}

/** "Call" or "Put". */
export function typeLabel(contract) { return contract.type === 'put' ? 'Put' : 'Call'; }

/** "1 contract", "3 contracts" (a negative count, a written position, is told by its size). */
export function contractsText(count) {
  const size = Math.abs(count);
  return `${formatNumber(size)} ${size === 1 ? 'contract' : 'contracts'}`;
}

/** Whether a position is a written contract (sold to open: a covered call or a cash-secured put). */
export function isWritten(position) { return position.quantity < 0; }

/**
 * What a contract gives its holder, in a sentence: "The right to buy 100 shares of AAPL at $250.00
 * each, until the close of Mar 20, 2026."
 */
export function rightText(contract) {
  const verb = contract.type === 'put' ? 'sell' : 'buy';
  return `The right to ${verb} ${formatNumber(contract.multiplier)} shares of ${contract.underlying} at ${formatPrice(contract.strike)} each, until the close of ${formatDate(contract.expiration)}.`;
}

/** The greeks and what each says, in plain words: [field of the quote, name, explanation]. */
export const GREEKS = [
  ['delta', 'Delta', 'How much the option’s price moves, per share, when the stock moves $1.'],
  ['gamma', 'Gamma', 'How much delta itself changes when the stock moves $1.'],
  ['theta', 'Theta', 'What the option loses per share each day that passes, all else equal: time decay.'],
  ['vega', 'Vega', 'How much the price moves, per share, when volatility rises one point (25% to 26%).'],
  ['rho', 'Rho', 'How much the price moves, per share, when interest rates rise one point.'],
];

/**
 * An activity as a phrase, for the history and a member's trades: the contract's title instead of
 * its symbol, and exercises, expiries and assignments told as what happened. Answers markup.
 */
export function activityPhrase(a) {
  const what = a.option ? html`<strong>${a.option.title}</strong>` : html`<strong>${a.symbol ?? ''}</strong>`;
  const count = `${a.option ? contractsText(a.quantity) : `${formatQuantity(a.quantity)} ${a.quantity === 1 ? 'share' : 'shares'}`} of`;
  // The shares' leg of an exercise or an assignment has no contract: its cash says which way it went.
  const paid = typeof a.amount === 'string' && a.amount.startsWith('-');
  switch (a.type) {
    case 'buy': return a.option ? html`Bought ${count} ${what}` : html`Bought ${formatQuantity(a.quantity)} ${what}`;
    case 'sell': return a.option ? html`Sold ${count} ${what}` : html`Sold ${formatQuantity(a.quantity)} ${what}`;
    case 'commission': return html`Commission${a.symbol ? html` on ${what}` : ''}`;
    case 'top_up': return html`Top-up: cash added to bring the portfolio back to its starting cash <span class="badge plain-badge">deposit</span>`;
    case 'borrow_fee': return html`Borrow fee: a session's cost of borrowing the shares you sold short`;
    case 'margin_call': return html`Margin call: the equity fell below what your short positions need <span class="badge plain-badge">warning</span>`;
    case 'margin_met': return html`Margin call over: the requirement is met again`;
    case 'dividend': return html`Dividend on ${what} <span class="badge plain-badge">income</span>`;
    case 'split': return html`${what} split: ${a.quantity ? `${formatQuantity(a.quantity)} more shares` : 'shares adjusted'} <span class="badge plain-badge">split</span>`;
    case 'option_exercise':
      return a.option ? html`Exercised ${count} ${what}`
        : html`${paid ? 'Bought' : 'Sold'} ${count} ${what} at the strike <span class="badge plain-badge">exercise</span>`;
    case 'option_assignment':
      return a.option ? html`Assigned ${count} ${what} <span class="badge plain-badge">written</span>`
        : html`${paid ? 'Bought' : 'Sold'} ${count} ${what} at the strike <span class="badge plain-badge">assignment</span>`;
    case 'option_expiry':
      return isZeroAmount(a.amount ?? '0')
        ? html`${count} ${what} expired worthless`
        : html`${count} ${what} settled in cash at expiry`;
    default: return html`${a.type} ${what}`;
  }
}

/** Whether an activity concerns options: a contract's trade or any leg of an exercise, expiry or assignment. */
export function isOptionActivity(a) { return !!a.option || (a.type ?? '').startsWith('option_'); }
