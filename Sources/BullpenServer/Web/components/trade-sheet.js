// The trade sheet: choose a number of shares (or of option contracts), see what the order would
// cost (or bring) as the server prices it (POST .../orders/preview), review, confirm. Every figure
// shown is the server's: price, commission, total, cash after, the most shares possible, and the
// rules the order would break. Each reviewed order carries one idempotency key, so a retry after a
// network drop fills once. An option contract is 100 shares: its price is per share (the ask to
// buy, the bid to sell), and the sheet says so. A stock order may be of any type (market, limit,
// stop, stop-limit, trailing stop) with a time in force; the server's sentence says what it will
// do ("Buy 10 AAPL if the price is $180.00 or lower, until you cancel it"), and a working order's
// preview shows the cash or shares it will hold.
import { html, render } from '/html.js';
import { api, newIdempotencyKey, errorMessage } from '/api.js';
import { debounce } from '/debounce.js';
import { openDialog, closeDialog, isShowing } from '/components/dialog.js';
import { OPTIONS_HELP } from '/options.js';
import { isReplay } from '/portfolios.js';
import { term } from '/glossary.js';
import {
  formatMoney, formatNumber, formatPrice, formatSessionDate, formatMarketClock, formatMarketTime,
  formatSignedMoney, isMarketToday, isZeroAmount, tone, typedDecimal, formatQuantity,
} from '/format.js';

/** The order types a stock order may have, and what each asks for. */
export const ORDER_TYPES = [
  { value: 'market', label: 'Market', fields: [] },
  { value: 'limit', label: 'Limit', fields: ['limit'] },
  { value: 'stop', label: 'Stop', fields: ['stop'] },
  { value: 'stop_limit', label: 'Stop-limit', fields: ['stop', 'limit'] },
  { value: 'trailing_stop', label: 'Trailing stop', fields: ['trail'] },
];

/**
 * What an order type does, in a sentence that marks its glossary term; `buy` words it for the side.
 * Shown under the type's select, where an <option> cannot hold a term.
 */
function orderTypeNote(type, buy) {
  switch (type) {
    case 'limit':
      return html`A ${term('Limit order', 'limit order')} trades only at your limit price or better: ${buy ? 'that price or lower' : 'that price or higher'}.`;
    case 'stop':
      return html`A ${term('Stop order', 'stop order')} waits until the price ${buy ? 'rises' : 'falls'} to your stop price, then trades at the market price.`;
    case 'stop_limit':
      return html`A stop-limit waits until the price ${buy ? 'rises' : 'falls'} to your ${term('Stop order', 'stop')} price, then becomes a ${term('Limit order', 'limit order')} at your limit price.`;
    case 'trailing_stop':
      return html`A trailing stop is a ${term('Stop order', 'stop order')} whose stop follows the price: it trades once the price ${buy ? 'rises by the trail from its lowest point' : 'falls by the trail from its highest point'}.`;
    default:
      return html`A ${term('Market order', 'market order')} trades at the market price, whatever it is: you do not choose the price.`;
  }
}

/** Times in force; the opening and closing auctions fill on daily bars, so replays only. */
export const TIMES_IN_FORCE = [
  { value: 'day', label: 'Day' },
  { value: 'gtc', label: "Good 'til cancelled" },
  { value: 'ioc', label: 'Immediate or cancel' },
  { value: 'fok', label: 'Fill or kill' },
  { value: 'opg', label: 'At the next open', replay: true },
  { value: 'cls', label: 'At the next close', replay: true },
];

/** A working order's state, in words. */
export const STATUS_WORDS = {
  new: 'Working', partially_filled: 'Partly filled', filled: 'Filled', canceled: 'Cancelled',
  expired: 'Expired', rejected: 'Rejected', replaced: 'Replaced',
};

/**
 * Where a price comes from, in words: "the close of Fri, Feb 20, 2026: the market was closed".
 * `past` words it for a filled order, otherwise for an estimate.
 */
export function priceOrigin({ priceSource, priceAsOf, marketOpen }, past) {
  switch (priceSource) {
    case 'last_trade':
    case 'demo_tick':
      return `the last trade at ${isMarketToday(priceAsOf) ? formatMarketClock(priceAsOf) : formatMarketTime(priceAsOf)}`;
    case 'model':
      return `the model's price as of ${formatSessionDate(priceAsOf)}`;
    case 'final_close':
      return `the last close before its data ended on ${formatSessionDate(priceAsOf)}`;
    case 'replay_close':
      return `the close of ${formatSessionDate(priceAsOf)} in your replay`;
    case 'close':
      return `the close of ${formatSessionDate(priceAsOf)}${marketOpen ? '' : past ? ': the market was closed' : ': the market is closed'}`;
    default:
      return priceAsOf ? `the price as of ${formatMarketTime(priceAsOf)}` : 'the market price';
  }
}

/** What the sheet counts: shares of a stock, or contracts of an option. */
const SHARES = { label: 'Shares', one: 'share', many: 'shares' };
const CONTRACTS = { label: 'Contracts', one: 'contract', many: 'contracts' };
const COINS = { label: 'Coins', one: 'coin', many: 'coins' };

/** "1 share", "5 contracts". */
function count(quantity, unit) { return `${formatQuantity(quantity)} ${quantity === 1 ? unit.one : unit.many}`; }

/** A problem of the preview or a refused order, in words; the server's message says the figures. */
function problemText(problem, quantity, unit = SHARES) {
  if (problem.code === 'insufficient_funds') return `Not enough cash for ${count(quantity, unit)}. ${problem.message}`;
  if (problem.code === 'insufficient_shares') return `Not enough ${unit.many} to sell ${formatQuantity(quantity)}. ${problem.message}`;
  return problem.message;
}

/**
 * A quantity from a field's text: a whole number of shares (or contracts), 1 or more, or with up to
 * `places` decimals above zero (fractional shares: 6); null otherwise. It travels as a JSON number,
 * and a number of at most 15 digits goes through JSON exactly as typed.
 */
export function parseQuantity(text, places = 0) {
  const trimmed = text.trim().replace(/[,\s]/g, '');
  const pattern = places > 0 ? new RegExp(`^\\d{1,9}(\\.\\d{1,${places}})?$`) : /^\d+$/;
  if (!pattern.test(trimmed)) return null;
  const quantity = Number(trimmed);
  if (places === 0) return Number.isSafeInteger(quantity) && quantity >= 1 ? quantity : null;
  return quantity > 0 ? quantity : null;
}

/** Dollars from a field's text ("250", "$1,000.50"): a decimal string above zero with at most two places; null otherwise. */
function parseAmount(text) {
  const typed = typedDecimal(text);
  return typed && /^\d{1,9}(\.\d{1,2})?$/.test(typed) && /[1-9]/.test(typed) ? typed : null;
}

/**
 * Opens the sheet. side: 'buy' | 'sell'; asset: { symbol }; portfolio: { id }; onDone() runs when
 * the player closes the sheet after an order filled. option: the contract (an OptionContract) when
 * the order is for one, `asset` then left out; written: the position is a written contract, which a
 * buy closes ("Buy to close"); writing: a sell of a contract not held, which writes it (sells to open).
 */
export function openTradeSheet({ side, asset, portfolio, onDone, option = null, written = false, writing = false, orderType = 'market' }) {
  const buy = side === 'buy';
  const symbol = option ? option.positionSymbol : asset.symbol;
  // A coin trades to 10⁻⁸ around the clock, whatever the portfolio's rule for shares.
  const crypto = !option && asset?.assetClass === 'crypto';
  const unit = option ? CONTRACTS : crypto ? COINS : SHARES;
  const name = option ? option.title : symbol;
  const verb = buy ? (written ? 'Buy to close' : 'Buy') : writing ? 'Write' : 'Sell';
  let latest = null, seq = 0;
  // The order's type and prices (stocks only): kept across the edit and review steps.
  let terms = { type: option ? 'market' : orderType, timeInForce: 'day', limitPrice: '', stopPrice: '', trail: '', trailUnit: 'percent' };
  const replay = isReplay(portfolio);
  // Stocks may be ordered by amount (dollars), and in fractions where the portfolio's rules allow them.
  const places = option ? 0 : crypto ? 8 : portfolio.rules?.fractionalShares ? 6 : 0;
  let by = 'shares';
  /** A quantity as a field shows it: its decimals written out (never "1e-7"). */
  const typedQuantity = (value) => places > 0 ? Number(value).toFixed(places).replace(/0+$/, '').replace(/\.$/, '') : String(value);
  const byAmount = () => !option && by === 'dollars';

  /** The body's type fields for the terms chosen (the empty ones left out, for the server to name). */
  const termFields = () => {
    if (option) return {};
    const type = ORDER_TYPES.find((t) => t.value === terms.type);
    const fields = { type: terms.type, timeInForce: terms.timeInForce };
    if (type.fields.includes('limit') && typedDecimal(terms.limitPrice)) fields.limitPrice = typedDecimal(terms.limitPrice);
    if (type.fields.includes('stop') && typedDecimal(terms.stopPrice)) fields.stopPrice = typedDecimal(terms.stopPrice);
    if (type.fields.includes('trail') && typedDecimal(terms.trail)) fields[terms.trailUnit === 'percent' ? 'trailPercent' : 'trailPrice'] = typedDecimal(terms.trail);
    return fields;
  };
  const working = () => !option && (terms.type !== 'market' || terms.timeInForce === 'opg' || terms.timeInForce === 'cls');
  /** The order's body: a quantity, or (by amount) the dollars as typed, which the server turns into a quantity. */
  const order = (quantity) => option ? { instrument: 'option', symbol, side, quantity }
    : byAmount() ? { symbol, side, notional: quantity, ...termFields() } : { symbol, side, quantity, ...termFields() };
  const ask = (quantity) => api(`/api/v1/portfolios/${portfolio.id}/orders/preview`, { method: 'POST', body: order(quantity) });
  /** Where the price comes from: for a contract, the server's note (the side of the model's quote, a share and a contract). */
  const priceText = (preview) => option
    ? preview.priceNote ?? `At ${formatPrice(preview.price)} a share (the ${buy ? 'ask' : 'bid'}) for ${count(preview.quantity * option.multiplier, SHARES)}, ${priceOrigin(preview, false)}.`
    : preview.summary ? preview.priceNote ?? '' : `At ${formatPrice(preview.price)} a ${unit.one}, ${priceOrigin(preview, false)}.`;
  /**
   * The most the order may take: a written contract is bought back up to the contracts written;
   * otherwise the preview's (affordable, or held). Writing has no such count: its cover decides.
   */
  const most = (preview) => written ? Math.abs(preview.held) : preview.maxQuantity;
  const mostText = (preview) => {
    if (written) return `You wrote ${count(Math.abs(preview.held), unit)}; you can afford to buy back up to ${formatNumber(preview.maxQuantity)}.`;
    if (writing) {
      return option.type === 'put'
        ? `Each contract written needs the free cash to buy ${formatNumber(option.multiplier)} shares at the strike.`
        : `Each contract written needs ${formatNumber(option.multiplier)} free shares of ${option.underlying} to cover it.`;
    }
    return buy ? `You can afford up to ${formatQuantity(preview.maxQuantity)} ${unit.many}.` : `You hold ${formatQuantity(preview.maxQuantity)} ${unit.many}.`;
  };

  /** The type, price and time-in-force fields of a stock order. */
  const termsFields = () => option ? '' : html`<div class="order-terms">
      <div><label for="order-type">Order type</label>
        <select id="order-type" aria-describedby="order-type-note">${ORDER_TYPES.map((t) => html`<option value="${t.value}" ${t.value === terms.type ? 'selected' : ''} ${byAmount() && !['market', 'limit'].includes(t.value) ? 'disabled' : ''}>${t.label}</option>`)}</select></div>
      <div data-field="stop"><label for="stop-price">Stop price ($)</label><input id="stop-price" inputmode="decimal" value="${terms.stopPrice}" autocomplete="off"></div>
      <div data-field="limit"><label for="limit-price">Limit price ($)</label><input id="limit-price" inputmode="decimal" value="${terms.limitPrice}" autocomplete="off"></div>
      <div data-field="trail"><label for="trail">Trail</label>
        <div class="row nowrap"><input id="trail" inputmode="decimal" value="${terms.trail}" autocomplete="off" aria-describedby="trail-unit">
          <label for="trail-unit" class="visually-hidden">Trail in</label>
          <select id="trail-unit" class="fit"><option value="percent" ${terms.trailUnit === 'percent' ? 'selected' : ''}>%</option>
            <option value="price" ${terms.trailUnit === 'price' ? 'selected' : ''}>$</option></select></div></div>
      <div><label for="time-in-force">Time in force</label>
        <select id="time-in-force">${TIMES_IN_FORCE.filter((t) => replay || !t.replay).map((t) => html`<option value="${t.value}" ${t.value === terms.timeInForce ? 'selected' : ''}>${t.label}</option>`)}</select></div>
    </div>
    <p class="small muted" id="order-type-note" aria-live="polite">${orderTypeNote(terms.type, buy)}</p>
    <p class="order-sentence" id="order-sentence" aria-live="polite"></p>`;

  /** Shows only the price fields the chosen type needs. */
  const showTermFields = () => {
    const type = ORDER_TYPES.find((t) => t.value === terms.type);
    for (const node of document.querySelectorAll('[data-field]')) node.hidden = !type.fields.includes(node.dataset.field);
  };

  function editStep(quantityText = '1') {
    openDialog(html`<h2 id="dialog-title">${verb} ${name}</h2>
      <form id="trade-form" novalidate>
        ${termsFields()}
        ${option ? html`<p class="small" id="contract-note">One contract is ${formatNumber(option.multiplier)} shares of ${option.underlying}. Its price is
          quoted per share, so a contract costs that price times ${formatNumber(option.multiplier)}. You ${buy ? html`buy at the ${term('Ask', 'ask')}` : html`sell at the ${term('Bid', 'bid')}`}.
          <a href="${OPTIONS_HELP}">How options work</a></p>` : ''}
        ${writing ? html`<p class="small notice" id="writing-note">Writing a contract brings its ${term('Premium', 'premium')} now, and binds you until you buy it back or it expires:
          ${option.type === 'put' ? html`if it ends in the money you buy ${formatNumber(option.multiplier)} shares a contract at the ${term('Strike', 'strike')}, and that cash stays set aside`
            : html`if it ends in the money you deliver ${formatNumber(option.multiplier)} of your shares a contract at the ${term('Strike', 'strike')}, and those shares stay set aside`}.</p>` : ''}
        ${option ? '' : html`<div class="segmented order-by" role="group" aria-label="${verb} by">
          <button type="button" id="by-shares" aria-pressed="${String(by === 'shares')}">${unit.label}</button>
          <button type="button" id="by-dollars" aria-pressed="${String(by === 'dollars')}">Dollars</button></div>`}
        <label for="quantity">${byAmount() ? 'Amount ($)' : unit.label}</label>
        ${byAmount() ? html`<input id="quantity" inputmode="decimal" value="${quantityText}" autocomplete="off" aria-describedby="amount-quantity trade-max trade-error">
          <p class="small" id="amount-quantity" aria-live="polite"></p>`
        : html`<div class="stepper"><button type="button" id="minus" aria-label="One ${unit.one} fewer">−</button>
          <input id="quantity" inputmode="${places > 0 ? 'decimal' : 'numeric'}" value="${quantityText}" aria-describedby="trade-max trade-error">
          <button type="button" id="plus" aria-label="One ${unit.one} more">+</button></div>`}
        <p class="small muted" id="trade-max"><span id="max-text">${buy ? 'Checking how many you can afford…' : `Checking your ${unit.many}…`}</span>
          ${writing || byAmount() ? '' : html`<button type="button" class="link" id="max">Use max</button>`}</p>
        ${crypto ? html`<p class="small muted" id="fraction-note">Coins trade in fractions down to 0.00000001, every day around the clock.</p>`
          : places > 0 ? html`<p class="small muted" id="fraction-note">This portfolio trades fractions of a share, down to a millionth (0.000001).</p>` : ''}
        <p class="estimate-line"><span id="estimate-label">${working() ? (buy ? 'Held until it fills' : 'Estimated proceeds now') : buy ? 'Estimated cost' : 'Estimated proceeds'}</span>: <strong id="estimate" aria-live="polite">—</strong></p>
        <p class="small notice" id="short-note" hidden>A ${term('Short selling', 'short sale')}: you sell shares you do not own, borrowed, and buy them back later.
          You gain if the price falls and lose if it rises, without limit. The proceeds and half as much again stay in your cash as collateral,
          and each session's close charges a ${term('Borrow fee', 'borrow fee')}.</p>
        <p class="small muted" id="price-note"></p>
        <p class="small muted" id="commission-note" hidden>Includes a ${term('Commission', 'commission')} of <span id="commission-amount"></span>.</p>
        <p class="small muted" id="cash-after-line" ${working() ? 'hidden' : ''}>Cash after: <span id="cash-after">—</span></p>
        <p class="error" id="trade-error" role="alert"></p>
        <div class="actions"><button class="primary" type="submit" id="review">Review order</button><button type="button" data-close id="cancel-trade">Cancel</button></div>
      </form>`);
    const form = document.getElementById('trade-form');
    const input = document.getElementById('quantity');
    const error = document.getElementById('trade-error');

    const clear = () => {
      const sentence = document.getElementById('order-sentence');
      if (sentence) sentence.textContent = '';
      document.getElementById('estimate').textContent = '—';
      document.getElementById('cash-after').textContent = '—';
      document.getElementById('price-note').textContent = '';
      const buys = document.getElementById('amount-quantity');
      if (buys) buys.textContent = '';
      document.getElementById('commission-note').hidden = true;
    };
    const show = (preview) => {
      latest = preview;
      const sentence = document.getElementById('order-sentence');
      if (sentence) sentence.textContent = preview.summary ?? '';
      document.getElementById('short-note').hidden = !(side === 'sell' && !option && preview.held <= 0 && portfolio.rules?.shortSelling);
      document.getElementById('estimate').textContent = formatMoney(preview.total);
      document.getElementById('price-note').textContent = priceText(preview);
      const commission = document.getElementById('commission-note');
      commission.hidden = isZeroAmount(preview.commission);
      document.getElementById('commission-amount').textContent = formatMoney(preview.commission);
      document.getElementById('cash-after').textContent = formatMoney(preview.cashAfter);
      document.getElementById('max-text').textContent = mostText(preview);
      const buys = document.getElementById('amount-quantity');
      if (buys) {
        buys.textContent = preview.quantity > 0
          ? `${formatMoney(preview.notional)} ${buy ? 'buys' : 'sells'} ${count(preview.quantity, unit)} at ${formatPrice(preview.price)} a ${unit.one}${places > 0 ? '' : ' (whole shares: this portfolio does not trade fractions)'}.`
          : '';
      }
      error.textContent = preview.problems.map((problem) => problemText(problem, preview.quantity, unit)).join(' ');
    };
    /** Asks the server about the quantity in the field; answers the preview, or null. */
    const typed = () => byAmount() ? parseAmount(input.value) : parseQuantity(input.value, places);
    const estimate = async () => {
      const quantity = typed();
      const mine = ++seq;
      if (quantity == null) { clear(); return null; }
      try {
        const preview = await ask(quantity);
        if (mine !== seq || !isShowing(form)) return null;
        show(preview);
        return preview;
      } catch (problem) {
        if (mine === seq && isShowing(form)) { clear(); error.textContent = errorMessage(problem); }
        return null;
      }
    };
    const later = debounce(estimate, 250);
    const step = (delta) => {
      const quantity = parseQuantity(input.value, places) ?? (delta > 0 ? 0 : 2);
      input.value = String(Math.max(1, Math.floor(quantity) + delta));
      later();
    };
    document.getElementById('minus')?.addEventListener('click', () => step(-1));
    document.getElementById('plus')?.addEventListener('click', () => step(1));
    const switchTo = (mode) => {
      if (mode === by) return;
      by = mode;
      if (by === 'dollars' && !['market', 'limit'].includes(terms.type)) terms = { ...terms, type: 'market' };
      editStep(by === 'dollars' ? '' : '1');
      document.getElementById(by === 'dollars' ? 'by-dollars' : 'by-shares').focus();
    };
    document.getElementById('by-shares')?.addEventListener('click', () => switchTo('shares'));
    document.getElementById('by-dollars')?.addEventListener('click', () => switchTo('dollars'));
    document.getElementById('max')?.addEventListener('click', async () => {
      const known = latest ?? await ask(1).catch(() => null);
      if (!known || !isShowing(form)) return;
      input.value = places > 0 ? typedQuantity(most(known)) : String(Math.max(1, most(known)));
      later.cancel();
      estimate();
    });
    input.addEventListener('input', later);
    if (!option) {
      showTermFields();
      const read = () => {
        const before = terms.type;
        terms = {
          type: document.getElementById('order-type').value, timeInForce: document.getElementById('time-in-force').value,
          limitPrice: document.getElementById('limit-price').value, stopPrice: document.getElementById('stop-price').value,
          trail: document.getElementById('trail').value, trailUnit: document.getElementById('trail-unit').value,
        };
        showTermFields();
        if (terms.type !== before) render(document.getElementById('order-type-note'), orderTypeNote(terms.type, buy));
        document.getElementById('cash-after-line').hidden = working();
        document.getElementById('estimate-label').textContent = working() ? (buy ? 'Held until it fills' : 'Estimated proceeds now') : (buy ? 'Estimated cost' : 'Estimated proceeds');
        later();
      };
      for (const id of ['order-type', 'time-in-force', 'trail-unit']) document.getElementById(id).addEventListener('change', read);
      for (const id of ['limit-price', 'stop-price', 'trail']) document.getElementById(id).addEventListener('input', read);
    }
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      later.cancel();
      if (typed() == null) {
        error.textContent = byAmount() ? 'Enter an amount in dollars, like 250 or 99.50.'
          : places > 0 ? `Enter a number of ${unit.many} above zero, with at most ${places} decimals.` : `Enter a whole number of ${unit.many}, 1 or more.`;
        input.focus();
        return;
      }
      const review = document.getElementById('review');
      review.disabled = true;
      const preview = await estimate();
      if (!isShowing(form)) return;
      review.disabled = false;
      if (preview) reviewStep(preview, byAmount() ? typed() : null);
    });
    estimate();
    input.select();
  }

  function reviewStep(preview, amount = null) {
    let key = newIdempotencyKey();   // one key per reviewed order: retries after a network drop fill once
    const blocked = preview.problems.length > 0;
    const problems = preview.problems.map((problem) => problemText(problem, preview.quantity, unit)).join(' ');
    openDialog(html`<h2 id="dialog-title">Confirm</h2>
      ${option ? html`<p id="review-sentence">You have chosen to ${verb.toLowerCase()} <strong>${count(preview.quantity, unit)}</strong> of
        <strong>${name}</strong> (${count(preview.quantity * option.multiplier, SHARES)} of ${option.underlying}) at about
        <strong>${formatPrice(preview.price)}</strong> a share, ${priceOrigin(preview, false)}. Do you want to complete this transaction?</p>`
      : preview.summary ? html`<p id="review-sentence"><strong>${preview.summary}</strong></p>
        <p class="small muted">${preview.priceNote ?? ''}</p>`
      : amount ? html`<p id="review-sentence">${buy ? 'Buy' : 'Sell'} <strong>${formatMoney(amount)}</strong> of <strong>${symbol}</strong>${preview.quantity > 0
        ? html`: about <strong>${count(preview.quantity, unit)}</strong> at about <strong>${formatPrice(preview.price)}</strong> a ${unit.one}, ${priceOrigin(preview, false)}.
        The quantity is set when the order fills, at its price then.` : html` at about <strong>${formatPrice(preview.price)}</strong> a ${unit.one}.`}</p>`
      : html`<p>${buy ? 'Buy' : 'Sell'} <strong>${count(preview.quantity, unit)}</strong> of <strong>${symbol}</strong> at about
        <strong>${formatPrice(preview.price)}</strong> a ${unit.one}, ${priceOrigin(preview, false)}.</p>`}
      <dl class="figures" id="review-figures">
        ${isZeroAmount(preview.commission) ? '' : html`
          <div><dt>${option ? term('Premium') : buy ? 'Cost of the shares' : 'Value of the shares'}</dt><dd>${formatMoney(preview.notional)}</dd></div>
          <div><dt>${term('Commission')}</dt><dd>${formatMoney(preview.commission)}</dd></div>`}
        <div><dt>${preview.summary ? (buy ? 'At most, with the commission' : 'At the price now') : buy ? 'Total cost' : 'You receive'}</dt><dd id="review-total"><strong>${formatMoney(preview.total)}</strong></dd></div>
        ${preview.summary ? '' : html`<div><dt>Cash after</dt><dd id="review-cash-after">${formatMoney(preview.cashAfter)}</dd></div>`}
      </dl>
      ${preview.marketOpen ? html`<p class="small muted">The market is open: the price may move before your order fills.</p>` : ''}
      <p class="error" id="trade-error" role="alert">${problems}</p>
      <div id="trade-result" role="status"></div>
      <div class="actions"><button class="primary" id="confirm" ${blocked ? 'disabled' : ''}>${option ? `Yes, ${verb.toLowerCase()}` : preview.summary ? 'Place order' : buy ? 'Place buy order' : 'Place sell order'}</button>
        <button type="button" id="back">Change</button><button type="button" data-close id="cancel-trade">Cancel</button></div>`);
    document.getElementById('back').addEventListener('click', () => editStep(amount ?? typedQuantity(preview.quantity)));
    const confirm = document.getElementById('confirm');
    confirm.addEventListener('click', async () => {
      const error = document.getElementById('trade-error');
      confirm.disabled = true;
      confirm.textContent = 'Placing order…';
      error.textContent = '';
      try {
        const filled = await api(`/api/v1/portfolios/${portfolio.id}/orders`, { method: 'POST', idempotencyKey: key,
          body: order(amount ?? preview.quantity) });
        if (!isShowing(confirm)) return;
        showResult(filled);
      } catch (problem) {
        if (!isShowing(confirm)) return;
        error.textContent = problem.code === 'insufficient_funds' || problem.code === 'insufficient_shares'
          ? problemText(problem, preview.quantity, unit) : errorMessage(problem);
        // A refusal (4xx) filled nothing: the next attempt is a new order. After a network drop or
        // a server error the same key goes again, so that an order that did fill is not doubled.
        if (problem.status >= 400 && problem.status < 500) key = newIdempotencyKey();
        confirm.disabled = false;
        confirm.textContent = 'Try again';
      }
    });
  }

  function showResult(order) {
    if (order.status !== 'filled') return showPlaced(order);
    const bought = order.side === 'buy';
    const commission = isZeroAmount(order.commission) ? '' : ` ${bought ? 'plus' : 'less'} ${formatMoney(order.commission)} commission`;
    const what = order.option ? `${count(order.filledQuantity, CONTRACTS)} of ${order.option.title}` : `${formatQuantity(order.filledQuantity)} ${order.symbol}`;
    render(document.getElementById('trade-result'), html`<p class="${bought ? 'up' : ''}"><strong>Done.</strong>
      ${bought ? 'Bought' : 'Sold'} ${what} at ${formatPrice(order.fillPrice)}${order.option ? ' a share' : ''}, ${priceOrigin(order, true)}.
      ${bought ? 'Paid' : 'Received'} ${formatMoney(order.notional)}${commission}.
      ${bought ? '' : html`Realized P&amp;L: <span class="${tone(order.realizedPnl)}">${formatSignedMoney(order.realizedPnl)}</span>.`}</p>
      ${order.fillNote ? html`<p class="small" id="fill-note">${order.fillNote}</p>` : ''}`);
    finish();
  }

  /** A working order placed (or an immediate one that could not fill): what it will do, what it holds. */
  function showPlaced(order) {
    const held = order.heldCash ? `It holds ${formatMoney(order.heldCash)} of your cash until it fills or ends.`
      : order.heldShares ? `It holds ${count(order.heldShares, SHARES)} until it fills or ends.` : '';
    render(document.getElementById('trade-result'), order.status === 'new' || order.status === 'partially_filled'
      ? html`<p><strong>Placed.</strong> ${order.summary} ${held}</p>
        <p class="small">Find it under <a href="#/portfolio">Open orders</a> on your portfolio, to change or cancel it before it ${term('Fill', 'fills')}.</p>`
      : html`<p><strong>${STATUS_WORDS[order.status] ?? order.status}.</strong> ${order.reason ?? ''}</p>`);
    finish();
  }

  function finish() {
    document.getElementById('confirm').remove();
    document.getElementById('back').remove();
    const close = document.getElementById('cancel-trade');
    close.textContent = 'Close';
    close.addEventListener('click', () => { closeDialog(); onDone?.(); });
    close.focus();
  }

  editStep();
}
