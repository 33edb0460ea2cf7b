// A contract's sheet (the wide dialog): its terms in words, bid, ask and the model's value, the
// break-even, the days left, the volatility, each greek with what it means, the payoff at expiry
// (profit per contract against the underlying's price, with the zero line and the break-even
// marked) and the modelled price history; Buy at the ask, and for a contract held, Sell at the bid
// and Exercise (a written one: Buy to close). Buying and selling go through the trade sheet;
// exercising asks first. Every figure is the server's (GET /options/contracts/{contract}).
import { html, render } from '/html.js';
import { api, ApiError, errorMessage } from '/api.js';
import { debounce } from '/debounce.js';
import { withAsOf } from '/portfolios.js';
import { term } from '/glossary.js';
import { openDialog, confirmDialog, isShowing } from '/components/dialog.js';
import { openTradeSheet, parseQuantity } from '/components/trade-sheet.js';
import { lineChart } from '/components/chart.js';
import { GREEKS, OPTIONS_HELP, contractsText, isWritten, rightText, typeLabel } from '/options.js';
import {
  formatAxisMoney, formatDate, formatDecimal, formatFractionPercent, formatMoney, formatMoneySize, formatNumber, formatPrice,
  formatPriceChange, formatQuantity, formatSignedMoney, formatSignedPrice, tone,
} from '/format.js';

/** A greek's value as shown: delta and gamma as plain numbers, the others in dollars per share. */
function greekValue(field, text) {
  if (field === 'delta') return formatDecimal(text, 2);
  if (field === 'gamma') return formatDecimal(text, 4);
  return `${formatSignedPrice(text)} a share`;
}

function figure(label, value, id, className = '') {
  return html`<div><dt>${label}</dt><dd id="${id}" class="${className}">${value}</dd></div>`;
}

/** The sheet's body once the contract is known. */
function sheetBody(detail, { position, canTrade, mayWrite }) {
  const { contract, quote } = detail;
  const held = position && position.quantity !== 0;
  const written = held && isWritten(position);
  const tradable = canTrade && detail.listed && !detail.expired && quote;
  const exercisable = held && !written && canTrade && !detail.expired && quote?.inTheMoney;
  const reason = !canTrade ? 'This portfolio cannot trade options now.'
    : detail.expired ? `This contract expired on ${formatDate(contract.expiration)}.`
      : !detail.listed ? 'The chain does not list this contract on this date, so it cannot be bought.' : '';
  // Why Exercise is off, when it is: the notice above, or a line of its own below the buttons.
  const exerciseNote = held && !written && !exercisable ? (reason ? 'sheet-reason' : 'exercise-reason') : null;
  return html`<div class="spread"><h2 id="dialog-title" class="flush">${contract.title}</h2>
      <span class="badge plain-badge">${typeLabel(contract)}</span></div>
    <p class="small">${rightText(contract)} <a href="${OPTIONS_HELP}" id="sheet-help-link">How options work</a></p>
    ${reason ? html`<p class="notice" id="sheet-reason">${reason}</p>` : ''}
    ${quote ? html`<dl class="figures option-figures" id="sheet-figures">
      ${figure(html`${term('Bid')} (you sell at)`, html`${formatPrice(quote.bid)} <span class="small muted">a share</span>`, 'sheet-bid')}
      ${figure(html`${term('Ask')} (you buy at)`, html`${formatPrice(quote.ask)} <span class="small muted">a share</span>`, 'sheet-ask')}
      ${figure('Mid (model value)', formatPrice(quote.mid), 'sheet-mid')}
      ${figure('Change since the last close', quote.change == null ? '—' : formatPriceChange(quote.change), 'sheet-change', tone(quote.change))}
      ${figure(html`${term('Break-even')} at expiry`, formatPrice(quote.breakEven), 'sheet-break-even')}
      ${figure(html`Days to ${term('Expiration', 'expiration')}`, formatNumber(quote.daysToExpiration), 'sheet-days')}
      ${figure(html`Implied ${term('Volatility', 'volatility')}`, formatFractionPercent(quote.impliedVolatility), 'sheet-volatility')}
      ${figure('Intrinsic value', html`${formatPrice(quote.intrinsic)} <span class="small muted block">${quote.inTheMoney ? 'in the money' : 'out of the money'}</span>`, 'sheet-intrinsic')}
    </dl>
    <h3>The greeks</h3>
    <dl class="measures greeks" id="sheet-greeks">${GREEKS.map(([field, name, meaning]) => html`<div><dt>${name} <span class="figure-inline">${greekValue(field, quote[field])}</span></dt><dd class="small">${meaning}</dd></div>`)}</dl>` : ''}
    <h3>Profit or loss at expiry</h3>
    <p class="small muted" id="payoff-note">One contract ${quote ? html`bought at the ask, a ${term('Premium', 'premium')} of ${formatPrice(quote.ask)} a share,` : 'bought at its last price,'}
      by ${contract.underlying}'s price on ${formatDate(contract.expiration)}. The dashed line is no profit and no loss${quote ? html`; the marker is the break-even, ${formatPrice(quote.breakEven)}` : ''}.</p>
    <div id="payoff-chart"></div>
    <h3>Modelled price</h3>
    <p class="small muted">The model's value of the contract a share at each close${detail.history.length ? html`, from ${formatDate(detail.history[0].date)}` : ''}.</p>
    <div id="option-history-chart"></div>
    ${detail.model ? html`<p class="small muted" id="sheet-model">${detail.model.description} <a href="${OPTIONS_HELP}">How the prices are modelled</a></p>` : ''}
    ${held ? html`<p id="sheet-position">${written ? html`<span class="badge plain-badge">Written</span> You wrote ${contractsText(position.quantity)}`
      : html`You hold ${contractsText(position.quantity)}`}, at ${formatPrice(position.averageCost)} a share on average; worth ${formatMoney(position.marketValue)} now
      (<span class="${tone(position.unrealizedPnl)}">${formatSignedMoney(position.unrealizedPnl)}</span>).</p>` : ''}
    <div class="actions row gap-top">
      ${written ? html`<button type="button" class="buy" id="sheet-close-written" ${tradable ? '' : 'disabled'}>Buy to close</button>`
        : html`<button type="button" class="buy" id="sheet-buy" ${tradable ? '' : 'disabled'}>Buy${quote ? ` at ${formatPrice(quote.ask)}` : ''}</button>`}
      ${held && !written ? html`<button type="button" class="sell" id="sheet-sell" ${canTrade && !detail.expired ? '' : 'disabled'}>Sell${quote ? ` at ${formatPrice(quote.bid)}` : ''}</button>
        <button type="button" id="sheet-exercise" ${exercisable ? '' : html`disabled aria-describedby="${exerciseNote}"`}>Exercise</button>` : ''}
      ${!held && mayWrite ? html`<button type="button" class="sell" id="sheet-write" ${tradable ? '' : 'disabled'}>Write (sell to open)${quote ? ` at ${formatPrice(quote.bid)}` : ''}</button>` : ''}
      <button type="button" data-close id="sheet-close">Close</button></div>
    ${exerciseNote === 'exercise-reason' ? html`<p class="small muted" id="exercise-reason">Only a contract in the money can be exercised: this one would ${contract.type === 'put' ? 'sell cheaper' : 'buy dearer'} than the market.</p>` : ''}`;
}

/** Draws the payoff at expiry and the modelled history into the sheet. */
function drawCharts(detail) {
  const { contract, quote } = detail;
  lineChart(document.getElementById('payoff-chart'), {
    describe: `Profit or loss of one ${contract.title} contract at expiry, by ${contract.underlying}'s price`,
    formatValue: formatSignedMoney,
    formatAxis: formatAxisMoney,
    reference: { value: '0', label: 'No profit, no loss' },
    markers: quote ? [{ x: quote.breakEven, label: `Break-even ${formatPrice(quote.breakEven)}` }] : [],
    series: [{ name: 'Profit', color: 'var(--accent)', points: detail.payoff.map((p) => ({ label: `${contract.underlying} at ${formatPrice(p.underlying)}`, x: p.underlying, value: p.profit })) }],
  });
  lineChart(document.getElementById('option-history-chart'), {
    describe: `Model value of ${contract.title} a share, day by day`,
    formatValue: formatPrice,
    formatAxis: formatAxisMoney,
    floor: 0,   // a price: the axis stops at $0
    series: [{ name: contract.title, color: 'var(--accent)', points: detail.history.map((p) => ({ label: formatDate(p.date), value: p.value })) }],
  });
}

/**
 * Opens the sheet of `contract` (an OptionContract). portfolio: the selected one (its clock dates
 * the quote, its id places orders, its rules say whether it may write contracts); positions: all
 * of its positions (the contract's own, if held, offers Sell and Exercise; the underlying's shares
 * are what a put's exercise sells); canTrade: whether it may trade options now; onDone(): after an
 * order or an exercise; returnFocus: the element that opened it, focused again when it closes.
 */
export async function openOptionSheet(contract, { portfolio, positions = [], canTrade, onDone, returnFocus = null }) {
  openDialog(html`<h2 id="dialog-title">${contract.title}</h2><p class="loading" id="sheet-loading">Loading the contract…</p>
    <div class="actions"><button type="button" data-close>Close</button></div>`, { wide: true });
  const marker = document.getElementById('sheet-loading');
  if (returnFocus) document.getElementById('dialog').addEventListener('close', () => returnFocus.isConnected && returnFocus.focus(), { once: true });
  let detail;
  try {
    detail = await api(withAsOf(`/api/v1/options/contracts/${encodeURIComponent(contract.positionSymbol)}`, portfolio), { auth: false });
  } catch (error) {
    if (isShowing(marker)) render(marker, html`<span class="error">${errorMessage(error)}</span>`);
    marker.classList.remove('loading');
    return;
  }
  if (!isShowing(marker)) return;
  const position = positions.find((p) => p.symbol === contract.positionSymbol) ?? null;
  openDialog(sheetBody(detail, { position, canTrade, mayWrite: portfolio.rules?.optionWriting === true }), { wide: true });
  drawCharts(detail);
  document.getElementById('sheet-buy')?.addEventListener('click', () => openTradeSheet({ side: 'buy', option: detail.contract, portfolio, onDone }));
  document.getElementById('sheet-close-written')?.addEventListener('click', () => openTradeSheet({ side: 'buy', option: detail.contract, portfolio, onDone, written: true }));
  document.getElementById('sheet-write')?.addEventListener('click', () => openTradeSheet({ side: 'sell', option: detail.contract, portfolio, onDone, writing: true }));
  document.getElementById('sheet-sell')?.addEventListener('click', () => openTradeSheet({ side: 'sell', option: detail.contract, portfolio, onDone }));
  document.getElementById('sheet-exercise')?.addEventListener('click', () => exerciseDialog({ portfolio, position, positions, onDone }));
}

/** What exercising `contracts` does, in words, before the server has counted: "buys 200 shares of AAPL at the $250.00 strike". */
function exerciseEffect(contract, contracts) {
  const shares = formatNumber(contracts * contract.multiplier);
  return `${contract.type === 'put' ? 'sells' : 'buys'} ${shares} shares of ${contract.underlying} at the ${formatPrice(contract.strike)} strike`;
}

/** The same with the server's figures (an exercise preview): the shares, what they cost or bring, the cash before and after. */
function previewEffect(contract, preview) {
  const { settlement } = preview;
  return `${contractsText(settlement.contracts)} ${contract.type === 'put' ? 'sells' : 'buys'} ${formatNumber(settlement.shares)} shares of `
    + `${contract.underlying} at the ${formatPrice(contract.strike)} strike for ${formatMoneySize(settlement.cashDelta)}: `
    + `your cash goes from ${formatMoney(preview.cashBefore)} to ${formatMoney(preview.cashAfter)}.`;
}

/**
 * Asks before exercising `position` (a held contract) of `portfolio`: how many contracts, and what
 * that will do as the server counts it (POST .../exercise/preview: the shares, the cash they cost
 * or bring, the cash after, or why it cannot be done); then exercises them (POST
 * .../options/{contract}/exercise), calls onDone() and shows the server's account of it in a
 * toast. A refusal shows in the dialog, in the server's words.
 */
export function exerciseDialog({ portfolio, position, positions = [], onDone }) {
  const contract = position.option;
  const held = position.quantity;
  const shares = positions.find((p) => p.symbol === contract.underlying)?.quantity ?? 0;
  const path = `/api/v1/portfolios/${portfolio.id}/options/${encodeURIComponent(contract.positionSymbol)}/exercise`;
  confirmDialog({
    title: `Exercise ${contract.title}?`,
    body: html`<p>You have chosen to exercise <span id="exercise-count">${contractsText(held)}</span> of <strong>${contract.title}</strong>.
        Do you want to complete this transaction?</p>
      <label for="exercise-contracts">Contracts to exercise (you hold ${formatNumber(held)})</label>
      <input id="exercise-contracts" inputmode="numeric" value="${held}" aria-describedby="exercise-effect confirm-error">
      <p id="exercise-effect" aria-live="polite">Exercising ${contractsText(held)} ${exerciseEffect(contract, held)}.</p>
      <p class="small muted" id="exercise-means">${contract.type === 'put'
        ? html`You need the shares: you hold ${formatQuantity(shares)} shares of ${contract.underlying}. The ${term('Premium', 'premium')} you paid comes off what the shares bring.`
        : html`You pay the ${term('Strike', 'strike')} for each share from your cash. The ${term('Premium', 'premium')} you paid becomes part of the shares' cost.`}
        The contracts are gone afterwards.</p>`,
    confirmLabel: 'Yes, exercise',
    danger: false,
    run: async () => {
      const contracts = parseQuantity(document.getElementById('exercise-contracts').value);
      if (contracts == null) throw new ApiError(0, 'validation_failed', 'Enter a whole number of contracts, 1 or more.');
      const settlement = await api(path, { method: 'POST', body: { contracts } });
      onDone?.(settlement);
      return settlement.message;
    },
  });
  const field = document.getElementById('exercise-contracts');
  const effect = document.getElementById('exercise-effect');
  const error = document.getElementById('confirm-error');
  const confirm = document.getElementById('confirm-step');
  let seq = 0;
  const ask = async () => {
    const contracts = parseQuantity(field.value);
    const mine = ++seq;
    if (contracts == null) return;
    document.getElementById('exercise-count').textContent = contractsText(contracts);
    effect.textContent = `Exercising ${contractsText(contracts)} ${exerciseEffect(contract, contracts)}.`;
    try {
      const preview = await api(`${path}/preview`, { method: 'POST', body: { contracts } });
      if (mine !== seq || !isShowing(field)) return;
      if (preview.settlement) effect.textContent = `Exercising ${previewEffect(contract, preview)}`;
      error.textContent = preview.problems.map((problem) => problem.message).join(' ');
      confirm.disabled = preview.problems.length > 0;
    } catch (problem) {
      if (mine === seq && isShowing(field)) error.textContent = errorMessage(problem);
    }
  };
  field.addEventListener('input', debounce(ask, 250));
  ask();
  field.select();
}
