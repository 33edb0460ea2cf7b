// The company search: a combobox whose suggestions follow the typing, chosen with the mouse or the
// keyboard (ArrowUp/ArrowDown, Enter opens, Escape closes), announced through aria-activedescendant.
// With a replay portfolio it searches as of the replay's date: later companies are not found.
import { html, render } from '/html.js';
import { api } from '/api.js';
import { debounce } from '/debounce.js';
import { formatPrice } from '/format.js';
import { withAsOf } from '/portfolios.js';
import { endedBadgeFor } from '/components/asset-row.js';

export function searchBox() {
  return html`<div class="search" role="search">
      <label for="search">Search companies by symbol or name</label>
      <input id="search" type="search" autocomplete="off" placeholder="e.g. micro or AAPL" role="combobox" aria-expanded="false" aria-controls="suggestions" aria-autocomplete="list">
      <ul id="suggestions" role="listbox" aria-label="Suggestions" hidden></ul>
    </div>`;
}

/** Wires the box drawn by searchBox(); `portfolio` is the selected one (its replay date bounds the search). */
export function setupSearch(portfolio) {
  const input = document.getElementById('search');
  const list = document.getElementById('suggestions');
  let items = [], active = -1, seq = 0;
  const close = () => { list.hidden = true; input.setAttribute('aria-expanded', 'false'); input.removeAttribute('aria-activedescendant'); active = -1; };
  const highlight = (index) => {
    active = index;
    [...list.children].forEach((li, i) => li.setAttribute('aria-selected', String(i === index)));
    if (index >= 0) input.setAttribute('aria-activedescendant', `option-${index}`);
  };
  const open = (symbol) => { close(); location.hash = `#/stock/${symbol}`; };
  input.addEventListener('input', debounce(async () => {
    const query = input.value.trim();
    const mine = ++seq;
    if (!query) { close(); return; }
    try {
      const page = await api(withAsOf(`/api/v1/assets?search=${encodeURIComponent(query)}&limit=8`, portfolio), { auth: false });
      if (mine !== seq) return;
      items = page.assets;
      render(list, items.length === 0 ? html`<li class="muted empty">No matches</li>`
        : items.map((a, i) => html`<li role="option" id="option-${i}" data-symbol="${a.symbol}" aria-selected="false">
            <span><strong>${a.symbol}</strong> ${a.name} ${a.assetClass === 'crypto' ? html`<span class="badge playing">Crypto</span>` : ''} ${endedBadgeFor(a, a.asOf)}</span><span class="muted">${formatPrice(a.price)}</span></li>`));
      active = -1;
      input.removeAttribute('aria-activedescendant');
      list.hidden = false;
      input.setAttribute('aria-expanded', 'true');
      for (const li of list.querySelectorAll('[role="option"]')) li.addEventListener('click', () => open(li.dataset.symbol));
    } catch { /* the list below the box shows the error */ }
  }, 200));
  input.addEventListener('keydown', (event) => {
    if (list.hidden || items.length === 0) return;
    if (event.key === 'ArrowDown') { highlight((active + 1) % items.length); event.preventDefault(); }
    else if (event.key === 'ArrowUp') { highlight((active - 1 + items.length) % items.length); event.preventDefault(); }
    else if (event.key === 'Enter') { open(items[Math.max(active, 0)].symbol); event.preventDefault(); }
    else if (event.key === 'Escape') close();
  });
  input.addEventListener('blur', () => setTimeout(close, 200));
}
