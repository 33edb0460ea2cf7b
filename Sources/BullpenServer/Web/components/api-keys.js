// API keys for bots: a form that makes one for a portfolio (read-only or trading), the secret shown
// once with buttons to copy it, and the keys that still work, each with its portfolio, what it may
// do, when it was last used, and a button to revoke it. Bots use the keys with Alpaca's clients
// pointed at this server's /alpaca (trading) and /alpaca/data (market data).
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { formatDateTime } from '/format.js';
import { confirmDialog } from '/components/dialog.js';
import { toast } from '/components/toast.js';

/** The section's markup. */
export function keysSection() {
  const origin = location.origin;
  return html`<section aria-labelledby="keys-title" id="api-keys" class="gap-top"><h2 id="keys-title">API keys for bots</h2>
    <div class="card">
      <p class="small muted" id="keys-help">A key lets a program (a trading bot, a notebook) read or trade one portfolio through
        Alpaca’s API, unchanged: point Alpaca’s clients at <code>${origin}/alpaca</code> and <code>${origin}/alpaca/data</code>.
        On a replay portfolio the bot sees the replay’s date and prices. At most 25 keys.</p>
      <form id="key-form" class="key-form" novalidate>
        <div><label for="key-portfolio">Portfolio</label><select id="key-portfolio" aria-describedby="key-error"></select></div>
        <div><label for="key-name">Name</label><input id="key-name" maxlength="50" autocomplete="off" placeholder="My bot"></div>
        <fieldset class="plain-fieldset key-scope"><legend>It may</legend>
          <label class="check row" for="key-read"><input type="radio" name="key-scope" id="key-read" value="read_only" checked> Read only</label>
          <label class="check row" for="key-trade"><input type="radio" name="key-scope" id="key-trade" value="trading"> Read and trade</label></fieldset>
        <div class="actions"><button class="primary" type="submit" id="key-create">Make key</button></div>
      </form>
      <p class="error" id="key-error" role="alert"></p>
      <div id="new-key"></div>
      <ul class="list keys-list" id="keys-list" aria-label="Your API keys"><li class="loading">Loading…</li></ul>
    </div></section>`;
}

function scopeWords(scope) { return scope === 'trading' ? 'read and trade' : 'read only'; }

function row(key) {
  return html`<li data-key="${key.id}"><span class="key-what"><strong>${key.name}</strong> <code class="key-id">${key.keyId}</code>
      <br><span class="small muted">${key.portfolioName ?? key.portfolioId} · ${scopeWords(key.scope)} ·
        ${key.lastUsedAt ? `last used ${formatDateTime(key.lastUsedAt)}` : 'never used'}</span></span>
    <button class="danger" data-revoke="${key.id}" aria-label="Revoke key ${key.name} (${key.keyId})">Revoke</button></li>`;
}

/** The secret, once, with copy buttons. */
function shown(key) {
  // Only the sentence is announced: a screen reader must not read the secret aloud.
  return html`<div class="new-key" data-shown="${key.id}"><p role="status"><strong>Key made for ${key.portfolioName}.</strong>
      Copy the secret now: it is shown only this once.</p>
    <dl class="key-values"><dt>APCA-API-KEY-ID</dt><dd><code id="new-key-id">${key.keyId}</code>
        <button type="button" data-copy="new-key-id">Copy</button></dd>
      <dt>APCA-API-SECRET-KEY</dt><dd><code id="new-key-secret">${key.secret}</code>
        <button type="button" data-copy="new-key-secret">Copy</button></dd></dl>
    <button type="button" id="new-key-done">I saved it</button></div>`;
}

/** Loads and wires the section drawn by `keysSection()`. */
export async function setupKeys({ live }) {
  const list = document.getElementById('keys-list'), error = document.getElementById('key-error');
  const select = document.getElementById('key-portfolio'), made = document.getElementById('new-key');
  let keys = [];
  const draw = () => render(list, keys.length ? html`${keys.map(row)}`
    : html`<li class="muted" id="no-keys">No API keys yet.</li>`);
  try {
    const [portfolios, answer] = await Promise.all([api('/api/v1/portfolios'), api('/api/v1/keys')]);
    if (!live()) return;
    render(select, html`${portfolios.portfolios.map((p) => html`<option value="${p.id}">${p.name}${p.clock.mode === 'replay' ? ` (replay, ${p.clock.date})` : ''}</option>`)}`);
    keys = answer.keys;
    draw();
  } catch (problem) { if (live()) error.textContent = errorMessage(problem); return; }
  document.getElementById('key-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    const name = document.getElementById('key-name').value.trim();
    const scope = document.querySelector('input[name="key-scope"]:checked').value;
    try {
      const key = await api('/api/v1/keys', { method: 'POST', body: { portfolioId: select.value, scope, ...(name ? { name } : {}) } });
      render(made, shown(key));
      keys = [{ ...key, secret: undefined }, ...keys];
      draw();
      event.target.reset();
      document.getElementById('new-key-id').closest('.new-key').querySelector('button').focus();
    } catch (problem) { error.textContent = errorMessage(problem); }
  });
  made.addEventListener('click', async (event) => {
    if (event.target.id === 'new-key-done') { render(made, html``); document.getElementById('key-create').focus(); return; }
    const target = event.target.closest('[data-copy]')?.dataset.copy;
    if (!target) return;
    try {
      await navigator.clipboard.writeText(document.getElementById(target).textContent);
      toast('Copied.');
    } catch { toast('Select the text and copy it: this browser did not let the page copy.'); }
  });
  list.addEventListener('click', (event) => {
    const id = event.target.closest('[data-revoke]')?.dataset.revoke;
    const key = keys.find((k) => k.id === id);
    if (!key) return;
    confirmDialog({
      title: `Revoke ${key.name}?`,
      body: html`<p>Bots using <code>${key.keyId}</code> stop working at once. This cannot be undone; you can make a new key.</p>`,
      confirmLabel: 'Revoke key',
      run: async () => {
        await api(`/api/v1/keys/${key.id}`, { method: 'DELETE' });
        keys = keys.filter((k) => k.id !== id);
        if (made.querySelector(`[data-shown="${id}"]`)) render(made, html``);   // its secret goes with it
        draw();
        (list.querySelector('button') ?? document.getElementById('key-create')).focus();
        return `Revoked ${key.name}.`;
      },
    });
  });
}
