// A portfolio's orders that wait (limit, stop, stop-limit, trailing stop, at the open or close):
// each in a sentence, with what it holds, and Details, Change and Cancel; then the latest orders
// that ended, each with Details. Details shows an order's status history and how it filled, in
// the server's words; Change sends a replacement (the old order becomes "replaced").
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { openDialog, closeDialog, confirmDialog } from '/components/dialog.js';
import { toast } from '/components/toast.js';
import { STATUS_WORDS, parseQuantity } from '/components/trade-sheet.js';
import { formatMoney, formatNumber, formatPrice, formatMarketTime, formatSessionDate, typedDecimal, formatQuantity, subtractQuantities } from '/format.js';

/** What an order holds, in words. */
function heldText(order) {
  if (order.heldCash) return `holds ${formatMoney(order.heldCash)}`;
  if (order.heldShares) return `holds ${formatQuantity(order.heldShares)} share${order.heldShares === 1 ? '' : 's'}`;
  return '';
}

/** When an order's time runs out, in words. */
function untilText(order) {
  if (order.lastSession) return `works in the session of ${formatSessionDate(order.lastSession)}`;
  if (order.expiresAt) return `expires ${formatMarketTime(order.expiresAt)}`;
  return '';
}

function openRow(order) {
  const stop = order.type === 'trailing_stop' && order.currentStop
    ? html` <span class="small muted">Best price so far ${formatPrice(order.waterMark)}; stop now ${formatPrice(order.currentStop)}.</span>` : '';
  return html`<li class="order-row" data-order="${order.id}">
    <div><strong>${order.summary ?? `${order.side} ${formatQuantity(order.quantity)} ${order.symbol}`}</strong>${stop}
      <div class="small muted">${STATUS_WORDS[order.status]}${order.filledQuantity ? ` (${formatQuantity(order.filledQuantity)} of ${formatQuantity(order.quantity)} filled)` : ''}
        ${[heldText(order), untilText(order)].filter(Boolean).map((text) => ` · ${text}`).join('')}</div></div>
    <div class="row"><button type="button" data-details="${order.id}" aria-label="Details of the ${order.symbol} order">Details</button>
      <button type="button" data-change="${order.id}" aria-label="Change the ${order.symbol} order">Change</button>
      <button type="button" class="danger" data-cancel="${order.id}" aria-label="Cancel the ${order.symbol} order">Cancel</button></div></li>`;
}

function endedRow(order) {
  const how = order.status === 'filled' ? `at ${formatPrice(order.fillPrice)}` : '';
  return html`<li class="order-row" data-order="${order.id}">
    <div>${order.summary ?? `${order.side === 'buy' ? 'Buy' : 'Sell'} ${formatQuantity(order.quantity)} ${order.symbol} at the market.`}
      <div class="small muted">${STATUS_WORDS[order.status] ?? order.status} ${how}</div></div>
    <div class="row"><button type="button" data-details="${order.id}" aria-label="Details of the ${order.symbol} order">Details</button></div></li>`;
}

/** The orders card of `portfolio`, filled into `node`; `onChange` runs after a cancel or change. */
export async function showOrders(node, portfolio, { canTrade, onChange, live }) {
  let open, ended;
  try {
    [open, ended] = await Promise.all([
      api(`/api/v1/portfolios/${portfolio.id}/orders?status=open&limit=50`),
      api(`/api/v1/portfolios/${portfolio.id}/orders?status=closed&limit=5`),
    ]);
  } catch (error) {
    if (live()) render(node, html`<p class="error">${errorMessage(error)}</p>`);
    return;
  }
  if (!live()) return;
  const all = [...open.orders, ...ended.orders];
  render(node, html`<h2 id="open-orders-title">Open orders</h2>
    <div class="card" aria-labelledby="open-orders-title">
      ${open.orders.length ? html`<ul class="order-list" id="open-orders">${open.orders.map(openRow)}</ul>`
        : html`<p class="muted" id="no-open-orders">No orders waiting. A limit or stop order waits here for its price, holding the cash or shares it needs.</p>`}
      ${ended.orders.length ? html`<h3 class="small">Latest orders</h3><ul class="order-list" id="ended-orders">${ended.orders.map(endedRow)}</ul>` : ''}
    </div>`);
  if (!canTrade) node.querySelectorAll('[data-change], [data-cancel]').forEach((button) => button.remove());
  const find = (id) => all.find((order) => order.id === id);
  node.querySelectorAll('[data-details]').forEach((button) => button.addEventListener('click', () => orderDetails(portfolio, button.dataset.details)));
  node.querySelectorAll('[data-cancel]').forEach((button) => button.addEventListener('click', () => {
    const order = find(button.dataset.cancel);
    confirmDialog({
      title: 'Cancel this order?',
      body: html`<p>${order.summary}</p><p class="small muted">What it holds is freed at once.</p>`,
      confirmLabel: 'Cancel order',
      cancelLabel: 'Keep it',
      run: async () => {
        await api(`/api/v1/portfolios/${portfolio.id}/orders/${order.id}`, { method: 'DELETE' });
        onChange();
        return 'Order cancelled.';
      },
    });
  }));
  node.querySelectorAll('[data-change]').forEach((button) => button.addEventListener('click', () => changeDialog(portfolio, find(button.dataset.change), onChange)));
}

/** One order: its sentence, figures, status history and how it filled. */
export async function orderDetails(portfolio, id) {
  let order;
  try { order = await api(`/api/v1/portfolios/${portfolio.id}/orders/${id}`); } catch (error) { toast(errorMessage(error)); return; }
  openDialog(html`<h2 id="dialog-title">${order.symbol}: ${STATUS_WORDS[order.status] ?? order.status}</h2>
    <p id="order-summary">${order.summary ?? `${order.side === 'buy' ? 'Buy' : 'Sell'} ${formatQuantity(order.quantity)} ${order.symbol} at the market.`}</p>
    <dl class="figures">
      <div><dt>Filled</dt><dd>${formatQuantity(order.filledQuantity)} of ${formatQuantity(order.quantity)}</dd></div>
      ${order.fillPrice ? html`<div><dt>Average fill price</dt><dd>${formatPrice(order.fillPrice)}</dd></div>` : ''}
      ${order.heldCash ? html`<div><dt>Cash held</dt><dd>${formatMoney(order.heldCash)}</dd></div>` : ''}
      ${order.heldShares ? html`<div><dt>Shares held</dt><dd>${formatQuantity(order.heldShares)}</dd></div>` : ''}
    </dl>
    ${order.fillNote ? html`<p id="order-fill-note"><strong>How it filled:</strong> ${order.fillNote}</p>`
      : order.priceNote ? html`<p id="order-fill-note"><strong>How it filled:</strong> ${order.priceNote}</p>` : ''}
    ${order.reason ? html`<p id="order-reason">${order.reason}</p>` : ''}
    <h3 class="small">History</h3>
    <ol class="order-history" id="order-history">${(order.history ?? []).map((event) => html`<li><strong>${STATUS_WORDS[event.status] ?? event.status}</strong>
      <span class="small muted">${formatMarketTime(event.at)}</span>${event.note ? html`<div class="small">${event.note}</div>` : ''}</li>`)}</ol>
    <div class="actions"><button type="button" data-close>Close</button></div>`);
}

/** Changes a working order's quantity or prices: the server replaces it with a new one. */
function changeDialog(portfolio, order, onChange) {
  const left = subtractQuantities(order.quantity, order.filledQuantity);
  const trailPercent = order.trailPercent != null;
  openDialog(html`<h2 id="dialog-title">Change the ${order.symbol} order</h2>
    <form id="change-form" novalidate>
      <p class="small muted">${order.summary}</p>
      <label for="change-quantity">Shares</label><input id="change-quantity" inputmode="decimal" value="${String(left)}">
      ${order.limitPrice ? html`<label for="change-limit">Limit price ($)</label><input id="change-limit" inputmode="decimal" value="${order.limitPrice}">` : ''}
      ${order.stopPrice ? html`<label for="change-stop">Stop price ($)</label><input id="change-stop" inputmode="decimal" value="${order.stopPrice}">` : ''}
      ${order.trailPrice || order.trailPercent ? html`<label for="change-trail">Trail (${trailPercent ? '%' : '$'})</label>
        <input id="change-trail" inputmode="decimal" value="${order.trailPercent ?? order.trailPrice}">` : ''}
      <p class="error" id="change-error" role="alert"></p>
      <div class="actions"><button class="primary" type="submit" id="change-save">Replace order</button><button type="button" data-close>Keep it</button></div>
    </form>`);
  document.getElementById('change-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = {};
    const quantity = parseQuantity(document.getElementById('change-quantity').value, portfolio.rules?.fractionalShares ? 6 : 0);
    if (quantity != null && quantity !== left) body.quantity = quantity;
    const read = (id) => { const node = document.getElementById(id); return node ? typedDecimal(node.value) : null; };
    if (read('change-limit') && read('change-limit') !== order.limitPrice) body.limitPrice = read('change-limit');
    if (read('change-stop') && read('change-stop') !== order.stopPrice) body.stopPrice = read('change-stop');
    if (read('change-trail')) body[trailPercent ? 'trailPercent' : 'trailPrice'] = read('change-trail');
    const save = document.getElementById('change-save');
    save.disabled = true;
    try {
      const replaced = await api(`/api/v1/portfolios/${portfolio.id}/orders/${order.id}`, { method: 'PATCH', body });
      closeDialog();
      toast(replaced.order.status === 'filled' ? `Replaced, and filled at once at ${formatPrice(replaced.order.fillPrice)}.` : `Replaced: ${replaced.order.summary}`);
      onChange();
    } catch (error) {
      save.disabled = false;
      document.getElementById('change-error').textContent = errorMessage(error);
    }
  });
}
