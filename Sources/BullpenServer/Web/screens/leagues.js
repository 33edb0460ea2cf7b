// Leagues (#/leagues): the player's leagues with their rank, joining with a code, the public
// leagues (searched, page by page) and the way to the global leaderboard. The tab's other
// screens: #/leagues/new (create), #/leagues/global, #/leagues/{id} (a league's page) and
// #/leagues/{id}/members/{userId} (a member's portfolio).
import { html, render } from '/html.js';
import { api } from '/api.js';
import { view } from '/router.js';
import { debounce } from '/debounce.js';
import { join, playersText, rankText, statusBadge } from '/leagues.js';
import { moreButton, setupPager } from '/components/pager.js';
import { formatDate, formatDateTime, formatMoney, formatNumber } from '/format.js';

/** The tab's other screen that `params` ask for, loaded when first opened (as router.js loads screens); null for the list. */
function otherScreen([first, second, third]) {
  if (first === 'new') return import('/screens/new-league.js');
  if (first === 'global') return import('/screens/global-leaderboard.js');
  if (first && second === 'members' && third) return import('/screens/league-member.js');
  if (first) return import('/screens/league.js');
  return null;
}

/** A league's clock in a few words: "Live" or "Replay · Mar 2, 2009". */
function clockWords(league) {
  return league.clock.mode === 'replay' ? `Replay · ${formatDate(league.clock.date)}` : 'Live';
}

function myLeagueRow(league) {
  return html`<li data-league="${league.id}">
    <a class="grow plain" href="#/leagues/${league.id}"><strong class="link-text">${league.name}</strong> ${statusBadge(league)}
      ${league.isOwner ? html` <span class="badge owner">Owner</span>` : ''}
      <span class="block small muted">${clockWords(league)} · ${playersText(league.memberCount)}</span></a>
    <span class="figure"><span class="rank-number">${rankText(league.myRank)}</span>
      <span class="block small muted">of ${formatNumber(league.memberCount)}</span></span></li>`;
}

function publicLeagueRow(league) {
  return html`<li data-league="${league.id}">
    <span class="grow"><a href="#/leagues/${league.id}"><strong>${league.name}</strong></a> ${statusBadge(league)}
      <span class="block small muted">${clockWords(league)} · ${formatMoney(league.startingCash)} to start · ${playersText(league.memberCount)}
        · by ${league.ownerName}${league.status === 'upcoming' ? ` · starts ${formatDateTime(league.startsAt)}` : ''}</span>
      ${league.description ? html`<span class="block small">${league.description}</span>` : ''}
      <span class="error block" data-join-error role="alert"></span></span>
    ${league.isMember ? html`<a class="button" href="#/leagues/${league.id}" aria-label="Open ${league.name}">Open</a>`
      : league.status === 'ended' ? ''
      : html`<button data-join="${league.id}" aria-label="Join ${league.name}">Join</button>`}</li>`;
}

export default async function leaguesScreen(context) {
  const { live, onLeave } = context;
  const other = otherScreen(context.params);
  if (other) {
    const screen = await other;
    return live() ? screen.default(context) : undefined;
  }
  view(html`<h1>Leagues</h1><p class="loading">Loading your leagues…</p>`);
  const mine = (await api('/api/v1/leagues')).leagues;
  if (!live()) return;
  view(html`<div class="spread"><h1>Leagues</h1><a class="button primary" id="new-league" href="#/leagues/new">Create a league</a></div>
    <p>Play against friends or anyone: everyone in a league starts with the same cash and rules, and the standings show who invests best.</p>
    <section aria-labelledby="mine-title"><h2 id="mine-title">My leagues</h2>
      <div class="card" id="my-leagues">${mine.length === 0
        ? html`<p>You are in no league yet. Join one with a code, pick a public league below, or create your own.</p>`
        : html`<ul class="list">${mine.map(myLeagueRow)}</ul>`}</div></section>
    <section aria-labelledby="join-title"><h2 id="join-title">Join with a code</h2>
      <form class="card" id="join-form" novalidate>
        <label for="join-code">Code</label>
        <div class="row"><input id="join-code" class="grow code-input" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="20"
            placeholder="ABCD2345" aria-describedby="join-hint join-error">
          <button class="primary" type="submit" id="join">Join</button></div>
        <p class="small muted" id="join-hint">The league's owner can give you its 8-character code. Spaces and dashes do not matter.</p>
        <p class="error" id="join-error" role="alert"></p>
      </form></section>
    <section aria-labelledby="public-title"><h2 id="public-title">Public leagues</h2>
      <div class="card">
        <label for="public-search">Search public leagues by name</label>
        <input id="public-search" type="search" autocomplete="off">
        <div id="public-leagues" class="gap-top"><p class="loading">Loading…</p></div>
        ${moreButton('more-public')}
      </div></section>
    <section aria-labelledby="global-title"><h2 id="global-title">Global leaderboard</h2>
      <div class="card spread"><p class="flush grow">How every player who opted in is doing with their live portfolios, this week, this month or since they started.</p>
        <a class="button" id="open-global" href="#/leagues/global">Open the global leaderboard</a></div></section>`);

  document.getElementById('join-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = document.getElementById('join-error');
    const code = document.getElementById('join-code').value.trim();
    error.textContent = '';
    if (!code) { error.textContent = 'Type the code the league\'s owner gave you.'; return; }
    await join({ code }, document.getElementById('join'), (problem) => { error.textContent = problem; });
  });
  setupPublicLeagues(live, onLeave);
}

function setupPublicLeagues(live, onLeave) {
  const node = document.getElementById('public-leagues');
  const search = document.getElementById('public-search');
  const reload = setupPager({
    moreId: 'more-public', node, key: 'leagues', live,
    page: (cursor) => {
      const params = new URLSearchParams();
      const query = search.value.trim();
      if (query) params.set('q', query);
      if (cursor) params.set('cursor', cursor);
      return api(`/api/v1/leagues/public${params.toString() ? '?' + params : ''}`);
    },
    draw: (leagues) => {
      render(node, leagues.length === 0
        ? html`<p id="no-public">${search.value.trim() ? 'No public league matches.' : 'No public leagues yet: create one and make it public.'}</p>`
        : html`<ul class="list">${leagues.map(publicLeagueRow)}</ul>`);
      for (const button of node.querySelectorAll('[data-join]')) {
        const error = button.closest('li').querySelector('[data-join-error]');
        button.addEventListener('click', () => {
          error.textContent = '';
          join({ leagueId: button.dataset.join }, button, (problem) => { error.textContent = problem; });
        });
      }
    },
  });
  const searchLater = debounce(reload, 300);
  search.addEventListener('input', searchLater);
  onLeave(searchLater.cancel);
}
