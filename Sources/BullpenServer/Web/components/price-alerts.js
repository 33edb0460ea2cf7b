// Price alerts: a form that arms one (a stock's price above or below a value, or a move of some
// percent in a session) and the list of them, each with what it watches, whether it fired (when
// and at what price), and buttons to re-arm or delete it. The stock page shows one company's; the
// settings show them all. The server checks every player's alerts on each round of quotes.
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { formatDateTime, formatPrice } from '/format.js';
import { toast } from '/components/toast.js';

/** The section's markup; `symbol` limits it to one company (with the form), else it lists all. */
export function alertsSection(symbol) {
  return html`<section aria-labelledby="alerts-title" id="alerts"><h2 id="alerts-title">Price alerts</h2>
    <div class="card">
      ${symbol ? html`<form id="alert-form" class="alert-form" novalidate>
        <div><label for="alert-condition">Tell me when ${symbol}</label>
          <select id="alert-condition"><option value="above">rises to or above</option><option value="below">falls to or below</option>
            <option value="move">moves (up or down) by</option></select></div>
        <div><label for="alert-value" id="alert-value-label">Price ($)</label>
          <input id="alert-value" inputmode="decimal" autocomplete="off" aria-describedby="alert-error alert-help"></div>
        <div class="actions"><button class="primary" type="submit" id="alert-create">Set alert</button></div>
      </form>
      <p class="small muted" id="alert-help">You get a notification (and a browser notification if you turned them on in Settings) the first time it happens; re-arm it to be told again. At most 50 alerts.</p>
      <p class="error" id="alert-error" role="alert"></p>` : ''}
      <ul class="list alerts-list" id="alerts-list" aria-live="polite"><li class="loading">Loading…</li></ul>
      ${symbol ? '' : html`<p class="error" id="alert-error" role="alert"></p>`}
    </div></section>`;
}

function row(alert, showSymbol) {
  const status = alert.armed ? html`<span class="badge plain-badge">armed</span>`
    : html`<span class="small muted">fired ${formatDateTime(alert.triggeredAt)} at ${formatPrice(alert.triggeredPrice)}</span>`;
  return html`<li data-alert="${alert.id}"><span class="alert-what">${showSymbol ? html`<a href="#/stock/${alert.symbol}">${alert.description}</a>` : alert.description}
      <br>${status}</span>
    <span class="row">${alert.armed ? '' : html`<button data-rearm="${alert.id}" aria-label="Re-arm: ${alert.description}">Re-arm</button>`}
      <button class="danger" data-delete="${alert.id}" aria-label="Delete alert: ${alert.description}">Delete</button></span></li>`;
}

/** Loads and wires the section drawn by `alertsSection(symbol)`. */
export async function setupAlerts({ symbol = null, live }) {
  const list = document.getElementById('alerts-list');
  const error = document.getElementById('alert-error');
  let alerts = [];
  const draw = () => {
    const shown = symbol ? alerts.filter((a) => a.symbol === symbol) : alerts;
    render(list, shown.length ? html`${shown.map((a) => row(a, !symbol))}`
      : html`<li class="muted" id="no-alerts">${symbol ? `No alerts on ${symbol} yet.` : 'No price alerts yet: set one on a company’s page.'}</li>`);
  };
  const load = async () => {
    try {
      const answer = await api('/api/v1/alerts');
      if (!live()) return;
      alerts = answer.alerts;
      draw();
    } catch (problem) { if (live()) error.textContent = errorMessage(problem); }
  };
  await load();
  list.addEventListener('click', async (event) => {
    const rearm = event.target.closest('[data-rearm]')?.dataset.rearm, remove = event.target.closest('[data-delete]')?.dataset.delete;
    if (!rearm && !remove) return;
    error.textContent = '';
    try {
      if (rearm) {
        const armed = await api(`/api/v1/alerts/${rearm}/rearm`, { method: 'POST' });
        alerts = alerts.map((a) => (a.id === rearm ? armed : a));
        toast(`Armed again: ${armed.description}.`);
      } else {
        await api(`/api/v1/alerts/${remove}`, { method: 'DELETE' });
        alerts = alerts.filter((a) => a.id !== remove);
        toast('Alert deleted.');
      }
      draw();
      list.querySelector('button')?.focus();
    } catch (problem) { error.textContent = errorMessage(problem); }
  });
  const form = document.getElementById('alert-form');
  if (!form) return;
  const condition = document.getElementById('alert-condition'), value = document.getElementById('alert-value');
  condition.addEventListener('change', () => {
    document.getElementById('alert-value-label').textContent = condition.value === 'move' ? 'Percent (%)' : 'Price ($)';
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    const text = value.value.trim().replace(/^\$/, '').replace(/%$/, '').replaceAll(',', '');
    if (!text) { error.textContent = condition.value === 'move' ? 'Enter a percent, like 5.' : 'Enter a price, like 200.00.'; value.focus(); return; }
    try {
      const made = await api('/api/v1/alerts', { method: 'POST', body: { symbol, condition: condition.value, value: text } });
      alerts = [made, ...alerts];
      draw();
      form.reset();
      toast(`Alert set: ${made.description}.`);
    } catch (problem) { error.textContent = errorMessage(problem); value.focus(); }
  });
}
