// The replay profiles (#/profiles): each replay portfolio with its date and value; select one to
// play it, start a new one (#/profiles/new, screens/new-profile.js), or delete one for good.
import { html } from '/html.js';
import { api } from '/api.js';
import { view, route } from '/router.js';
import { currentPortfolio, isReplay, loadPortfolios, selectPortfolio } from '/portfolios.js';
import { MAX_PORTFOLIOS } from '/replay.js';
import { confirmDialog } from '/components/dialog.js';
import { formatDate, formatMoney, formatNumber } from '/format.js';
import newProfileScreen from '/screens/new-profile.js';

function profileRow(profile, playing) {
  return html`<li data-profile="${profile.id}" ${playing ? html`aria-current="true"` : ''}>
    <span class="grow"><strong>${profile.name}</strong>${playing ? html` <span class="badge playing">Playing</span>` : ''}
      ${profile.clock.ended ? html` <span class="badge ended">Ended</span>` : ''}
      <span class="block small muted">${formatDate(profile.clock.date)} · <span data-value>${formatMoney(profile.equity)}</span></span></span>
    <span class="row"><button data-select="${profile.id}" aria-label="${playing ? 'Open' : 'Select'} ${profile.name}">${playing ? 'Open' : 'Select'}</button>
      <button class="danger" data-delete="${profile.id}" aria-label="Delete ${profile.name}">Delete</button></span></li>`;
}

export default async function profilesScreen(context) {
  if (context.params[0] === 'new') return newProfileScreen(context);
  const { live } = context;
  view(html`<h1>Replay</h1><p class="loading">Loading your profiles…</p>`);
  const portfolios = await loadPortfolios();
  if (!live()) return;
  // A league's replay belongs to its league (Leagues tab), not to the player's own profiles.
  const profiles = portfolios.filter((p) => isReplay(p) && !p.leagueId);
  const playing = isReplay(currentPortfolio()) ? currentPortfolio().id : null;
  const full = portfolios.length >= MAX_PORTFOLIOS;
  view(html`<div class="spread"><h1>Replay</h1>
      ${full ? html`<button class="primary" disabled aria-describedby="profiles-limit">New profile</button>`
             : html`<a class="button primary" id="new-profile" href="#/profiles/new">New profile</a>`}</div>
    <p>Play the market of the past: a profile starts on a day of the history with virtual cash, and time moves only when you advance it.</p>
    <div class="card" id="profiles">${profiles.length === 0
      ? html`<p>No profiles yet. Start one with <strong>New profile</strong>.</p>`
      : html`<ul class="list">${profiles.map((p) => profileRow(p, p.id === playing))}</ul>`}</div>
    <p class="small muted" id="profiles-limit">You can have up to ${formatNumber(MAX_PORTFOLIOS)} portfolios, live and replay together
      (you have ${formatNumber(portfolios.length)}), each with its own name. Everything is saved as you play.</p>`);
  for (const button of document.querySelectorAll('[data-select]')) {
    button.addEventListener('click', () => { selectPortfolio(button.dataset.select); location.hash = '#/portfolio'; });
  }
  for (const button of document.querySelectorAll('[data-delete]')) {
    button.addEventListener('click', () => deleteDialog(profiles.find((p) => p.id === button.dataset.delete)));
  }
}

function deleteDialog(profile) {
  confirmDialog({
    title: `Delete ${profile.name}?`,
    body: html`<p>Its holdings, trades and history are deleted. This cannot be undone.</p>`,
    confirmLabel: 'Delete profile',
    run: async () => {
      await api(`/api/v1/portfolios/${profile.id}`, { method: 'DELETE' });
      route();
      return `Deleted ${profile.name}.`;
    },
  });
}
