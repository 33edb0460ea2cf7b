// A company's option chain on its page: calls or puts (a switch), an expiration (a picker of the
// chain's own), and a table of strikes with bid, ask, the model's value, its change and delta. The
// strikes either side of the price are marked "near the money", and the rows in the money are
// shaded and say so. The chain stands on the selected portfolio's clock (a replay's date), and
// every price is the server's. A row opens the contract's sheet (a click, Enter or Space).
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { withAsOf } from '/portfolios.js';
import { OPTIONS_HELP } from '/options.js';
import { term } from '/glossary.js';
import { openOptionSheet } from '/components/option-sheet.js';
import { formatDate, formatDecimal, formatPrice, formatPriceChange, formatSessionDate, tone } from '/format.js';

const TYPES = [['call', 'Calls'], ['put', 'Puts']];

/**
 * The section, drawn with the page; setupOptionChain fills it. `allowed`: whether the portfolio's
 * rules let it trade options (the chain shows either way).
 */
export function optionChainSection(asset, { allowed }) {
  return html`<section class="card gap-top" id="options" aria-labelledby="options-title">
    <div class="spread"><h2 class="flush" id="options-title">Options</h2>
      <a class="small" href="${OPTIONS_HELP}" id="options-help-link">What are options?</a></div>
    <p class="small muted">Contracts to buy (a call) or sell (a put) 100 shares of ${asset.symbol} at a set price, the strike, until a date.
      Pick a row to see the contract, its risk and its payoff.</p>
    ${allowed ? '' : html`<p class="notice" id="options-not-allowed">Your league trades stocks only: you can study the chain, but not buy contracts.</p>`}
    <div class="row option-controls">
      <div class="segmented" role="group" aria-label="Option type">${TYPES.map(([type, label]) => html`<button type="button" data-option-type="${type}" aria-pressed="${String(type === 'call')}">${label}</button>`)}</div>
      <div class="row push-end"><label for="option-expiration" class="flush">Expiration</label>
        <select id="option-expiration" class="fit" disabled><option>Loading…</option></select></div>
    </div>
    <div id="option-chain" class="gap-top"><p class="loading">Loading the chain…</p></div>
    <p class="small muted" id="option-model"></p>
  </section>`;
}

/** The row of the underlying's price, between the two strikes near the money. */
function priceRow(chain) {
  return html`<tr class="spot-row"><td colspan="6"><span class="small">${chain.underlying} at <strong>${formatPrice(chain.model.spot)}</strong>
    on ${formatSessionDate(chain.model.asOf)}</span></td></tr>`;
}

/** The table of one type's quotes (`type`: 'call' or 'put'). */
export function chainTable(chain, type) {
  const rows = [];
  chain.strikes.forEach((row, index) => {
    const quote = row[type];
    // The price sits between the two strikes near the money (the one below it, then the one above).
    if (index > 0 && row.nearTheMoney && chain.strikes[index - 1].nearTheMoney) rows.push(priceRow(chain));
    rows.push(html`<tr class="clickable ${quote.inTheMoney ? 'itm' : ''} ${row.nearTheMoney ? 'near' : ''}" tabindex="0"
        data-contract="${quote.contract.positionSymbol}" data-strike="${row.strike}" aria-label="${quote.contract.title}${quote.inTheMoney ? ', in the money' : ''}${row.nearTheMoney ? ', near the money' : ''}: bid ${formatPrice(quote.bid)}, ask ${formatPrice(quote.ask)}">
      <td><strong>${formatPrice(row.strike)}</strong>
        ${quote.inTheMoney ? html` <span class="badge itm-badge">ITM</span>` : ''}${row.nearTheMoney ? html` <span class="badge near-badge">near</span>` : ''}</td>
      <td>${formatPrice(quote.bid)}</td>
      <td>${formatPrice(quote.ask)}</td>
      <td class="hide-narrow">${formatPrice(quote.mid)}</td>
      <td class="${tone(quote.change)}">${quote.change == null ? '—' : formatPriceChange(quote.change)}</td>
      <td class="hide-narrow">${formatDecimal(quote.delta, 2)}</td></tr>`);
  });
  // On the narrowest phones the table scrolls sideways in its own box, never the page.
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="${type === 'put' ? 'Puts' : 'Calls'} on ${chain.underlying}"><table class="chain" id="chain-table" data-type="${type}" data-expiration="${chain.expiration}">
    <caption class="visually-hidden">${type === 'put' ? 'Puts' : 'Calls'} on ${chain.underlying} expiring ${formatDate(chain.expiration)}</caption>
    <thead><tr><th scope="col">${term('Strike')}</th><th scope="col">${term('Bid')}</th><th scope="col">${term('Ask')}</th><th scope="col" class="hide-narrow">Mid (model)</th>
      <th scope="col">Change</th><th scope="col" class="hide-narrow">Delta</th></tr></thead>
    <tbody>${rows}</tbody></table></div>
    <p class="small muted gap-top" id="chain-legend"><span class="badge itm-badge">ITM</span> in the money: ${type === 'put'
      ? `the strike is above ${chain.underlying}'s price, so the put could sell higher than the market`
      : `the strike is below ${chain.underlying}'s price, so the call could buy cheaper than the market`}.
      <span class="badge near-badge">near</span> the strikes either side of the price. Prices are per share; a contract is 100 shares.</p>`;
}

/**
 * Fills the section drawn by optionChainSection. `selected`: the selected portfolio (its clock
 * sets the chain's date); `context` as openOptionSheet takes it: { portfolio, positions, canTrade,
 * onDone }; `live()` as the screen's.
 */
export function setupOptionChain(asset, selected, context, live) {
  const node = document.getElementById('option-chain');
  const picker = document.getElementById('option-expiration');
  const model = document.getElementById('option-model');
  let type = 'call', chain = null, seq = 0;

  const draw = () => {
    render(node, chainTable(chain, type));
    for (const row of node.querySelectorAll('tr[data-contract]')) {
      const open = () => {
        const quote = chain.strikes.find((s) => s[type].contract.positionSymbol === row.dataset.contract)[type];
        openOptionSheet(quote.contract, { ...context, returnFocus: row });
      };
      row.addEventListener('click', open);
      row.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); open(); }
      });
    }
  };
  const load = async (expiration) => {
    const mine = ++seq;
    picker.disabled = true;
    const query = expiration ? `?expiration=${encodeURIComponent(expiration)}` : '';
    try {
      const answer = await api(withAsOf(`/api/v1/options/${encodeURIComponent(asset.symbol)}/chain${query}`, selected), { auth: false });
      if (!live() || mine !== seq) return;
      chain = answer;
      render(picker, chain.expirations.map((date) => html`<option value="${date}" ${date === chain.expiration ? 'selected' : ''}>${formatDate(date)}</option>`));
      picker.disabled = false;
      render(model, html`${chain.model.description} <a href="${OPTIONS_HELP}">How the prices are modelled</a>`);
      draw();
    } catch (error) {
      if (!live() || mine !== seq) return;
      render(node, html`<p class="error" id="chain-error">${errorMessage(error)}</p>`);
      picker.disabled = chain == null;
    }
  };
  picker.addEventListener('change', () => load(picker.value));
  for (const button of document.querySelectorAll('[data-option-type]')) {
    button.addEventListener('click', () => {
      type = button.dataset.optionType;
      document.querySelectorAll('[data-option-type]').forEach((b) => b.setAttribute('aria-pressed', String(b === button)));
      if (chain) draw();
    });
  }
  load(null);
}
