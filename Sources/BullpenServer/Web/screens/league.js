// A league's page (#/leagues/{id}): the standings with the measure switch and the player's own
// line highlighted, the clock, the rules and dates, the players; for a member the way to trade
// and to leave; for anyone else a public league's Join. The owner also sees the code (with Copy
// and New code), moves a replay's clock, removes and lets back players, hands the league over,
// edits its name, downloads the standings and trades, and deletes it. Every destructive step asks first.
import { html } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view, route } from '/router.js';
import { selectPortfolio } from '/portfolios.js';
import { currentSession } from '/session.js';
import { download } from '/download.js';
import { openDialog, confirmDialog } from '/components/dialog.js';
import { toast } from '/components/toast.js';
import { leaderboardCard, setupLeaderboard } from '/components/leaderboard.js';
import { MAX_DAYS, PRESETS, whileMoving } from '/components/advance-panel.js';
import { METRICS, clockText, join, playersText, rankText, rulesList, statusBadge } from '/leagues.js';
import { formatCount, formatDateTime, formatNumber, formatSessionDate, formatTradingDays } from '/format.js';

const MEMBER_STATUS = { left: 'Left', kicked: 'Removed' };

/** The last move of a replay league's clock: { leagueId, text, focusId }, told after the redraw. */
let lastAdvance = null;

function codeCard(league) {
  return html`<section class="card gap-top" aria-labelledby="code-title">
    <h2 class="flush-top" id="code-title">Invite code</h2>
    <div class="row"><code class="league-code" id="league-code">${league.code}</code>
      <button type="button" id="copy-code" aria-describedby="code-title">Copy</button>
      <button type="button" id="new-code">New code</button></div>
    <p class="small muted">Send this code to the players you want: they type it under Leagues → Join with a code. Only you see it.</p>
  </section>`;
}

function memberRow(league, member, me) {
  const canSee = league.isOwner || (league.rules.holdingsVisible && league.isMember);
  const active = member.status === 'active';
  return html`<li data-member="${member.userId}" data-status="${member.status}">
    <span class="grow"><strong>${member.username}</strong>
      ${member.isOwner ? html` <span class="badge owner">Owner</span>` : ''}${member.userId === me ? html` <span class="badge you">You</span>` : ''}
      ${active ? '' : html` <span class="badge ended">${MEMBER_STATUS[member.status] ?? member.status}</span>`}
      <span class="block small muted">${active ? `Joined ${formatDateTime(member.joinedAt)}` : `Since ${formatDateTime(member.leftAt)}${member.status === 'kicked' && member.mayRejoin ? ' · may join again' : ''}`}</span></span>
    <span class="row">
      ${canSee ? html`<a class="button" href="#/leagues/${league.id}/members/${member.userId}" aria-label="Holdings of ${member.username}">Holdings</a>` : ''}
      ${league.isOwner && active && !member.isOwner ? html`<button class="danger" data-kick="${member.userId}" aria-label="Remove ${member.username}">Remove</button>` : ''}
      ${league.isOwner && member.status === 'kicked' && !member.mayRejoin ? html`<button data-readmit="${member.userId}" aria-label="Let ${member.username} back in">Let back in</button>` : ''}
    </span></li>`;
}

function advanceControls() {
  return html`<div id="league-advance" class="gap-top">
    <div class="row" role="group" aria-label="Move every player forward by">
      ${PRESETS.map(([days, label]) => html`<button type="button" id="league-advance-${days}" data-advance="${days}">${label}</button>`)}</div>
    <div class="row gap-top"><div class="field"><label for="league-advance-days">Or a number of trading days (1 to ${MAX_DAYS})</label>
      <input id="league-advance-days" type="number" inputmode="numeric" min="1" max="${MAX_DAYS}" value="1"></div>
      <button type="button" class="primary align-end" id="league-advance-go">Advance</button></div>
    <p class="small" id="league-advance-status" role="status"></p>
    <p class="error" id="league-advance-error" role="alert"></p>
  </div>`;
}

function ownerTools() {
  return html`<section class="card" aria-labelledby="owner-title">
    <h2 class="flush-top" id="owner-title">Owner tools</h2>
    <div class="row"><button type="button" id="export-standings">Download standings (CSV)</button>
      <button type="button" id="export-trades">Download trades (CSV)</button></div>
    <div class="row gap-top"><button type="button" id="edit-league">Edit name and description</button>
      <button type="button" id="hand-over">Hand over</button>
      <button type="button" class="danger" id="delete-league">Delete league</button></div>
  </section>`;
}

/** A league the player cannot open (gone, private, or they were removed from it), in the server's words. */
function unavailable(message) {
  return html`<h1>League</h1><div class="card"><p id="league-missing">${message}</p><p><a href="#/leagues">Back to Leagues</a></p></div>`;
}

export default async function leagueScreen({ params: [id], live }) {
  view(html`<h1>League</h1><p class="loading">Loading the league…</p>`);
  let league;
  try {
    league = await api(`/api/v1/leagues/${encodeURIComponent(id)}`);
  } catch (error) {
    if (error.status !== 404 && error.status !== 403) throw error;
    if (live()) view(unavailable(errorMessage(error)));
    return;
  }
  if (!live()) return;
  const me = currentSession()?.user?.id;
  const members = league.members ?? [];
  const activeMembers = members.filter((m) => m.status === 'active');
  const replay = league.clock.mode === 'replay';
  view(html`<div class="spread"><h1 class="flush" id="league-title">${league.name}</h1>
      <div class="row">${statusBadge(league)} <span class="badge plain-badge">${league.visibility === 'public' ? 'Public' : 'Private'}</span></div></div>
    <p class="muted">Run by ${league.ownerName} · ${playersText(league.memberCount)}</p>
    ${league.description ? html`<p id="league-description">${league.description}</p>` : ''}
    ${league.isMember ? html`<div class="card spread gap-top" id="my-standing">
        <div><div class="small muted">Your rank</div><div class="rank-number" id="my-rank">${rankText(league.myRank)}
          <span class="small muted">of ${formatNumber(league.memberCount)}</span></div></div>
        <button class="primary" id="trade-in-league" ${league.myPortfolioId ? '' : 'disabled'}>Trade in this league</button></div>`
      : league.status !== 'ended' ? html`<div class="card" id="join-card">
        ${league.visibility === 'public' ? html`<div class="spread"><p class="flush grow">You are not in this league yet.</p><button class="primary" id="join-league">Join this league</button></div>`
          : html`<p class="flush">This league is private: join it with the code its owner gives you, under <a href="#/leagues">Leagues</a>.</p>`}
        <p class="error" id="join-league-error" role="alert"></p></div>` : ''}
    ${league.isOwner && league.code ? codeCard(league) : ''}
    <div class="gap-top">${leaderboardCard()}</div>
    <div class="league-side">
      <section class="card" aria-labelledby="clock-title"><h2 class="flush-top" id="clock-title">Clock</h2>
        ${replay && league.clock.date ? html`<div class="replay-date"><div class="label">League date</div><div class="date" id="league-date">${formatSessionDate(league.clock.date)}</div></div>` : ''}
        <p id="league-clock">${clockText(league.clock)}</p>
        ${league.isOwner && replay && league.status !== 'ended' ? advanceControls() : ''}</section>
      <section class="card" aria-labelledby="rules-title"><h2 class="flush-top" id="rules-title">Rules and dates</h2>${rulesList(league)}</section>
      <section class="card" aria-labelledby="members-title"><h2 class="flush-top" id="members-title">Players</h2>
        <ul class="list" id="members">${members.map((m) => memberRow(league, m, me))}</ul></section>
      ${league.isOwner ? ownerTools() : ''}
      ${league.isMember ? html`<div class="row"><button class="danger" id="leave-league">Leave league</button></div>` : ''}
    </div>`);

  setupLeaderboard({ path: `/api/v1/leagues/${league.id}/leaderboard`, live });

  document.getElementById('trade-in-league')?.addEventListener('click', () => {
    selectPortfolio(league.myPortfolioId);
    location.hash = '#/portfolio';
  });
  const joinButton = document.getElementById('join-league');
  joinButton?.addEventListener('click', () => join({ leagueId: league.id }, joinButton, (problem) => {
    document.getElementById('join-league-error').textContent = problem;
  }));
  document.getElementById('leave-league')?.addEventListener('click', () => leaveDialog(league, activeMembers));
  for (const button of document.querySelectorAll('[data-kick]')) {
    button.addEventListener('click', () => kickDialog(league, members.find((m) => m.userId === button.dataset.kick)));
  }
  for (const button of document.querySelectorAll('[data-readmit]')) {
    button.addEventListener('click', () => readmit(league, members.find((m) => m.userId === button.dataset.readmit), button));
  }
  if (league.isOwner) setupOwner(league, activeMembers, live);
}

function setupOwner(league, activeMembers, live) {
  document.getElementById('copy-code')?.addEventListener('click', () => copyCode(league.code));
  document.getElementById('new-code')?.addEventListener('click', () => newCodeDialog(league));
  const file = (kind) => `${league.name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase() || 'league'}-${kind}.csv`;
  for (const kind of ['standings', 'trades']) {
    document.getElementById(`export-${kind}`).addEventListener('click', () => {
      download(`/api/v1/leagues/${league.id}/export?kind=${kind}`, file(kind));
    });
  }
  document.getElementById('edit-league').addEventListener('click', () => editDialog(league));
  document.getElementById('hand-over').addEventListener('click', () => handOverDialog(league, activeMembers));
  document.getElementById('delete-league').addEventListener('click', () => deleteDialog(league));
  if (document.getElementById('league-advance')) setupAdvance(league, live);
}

async function copyCode(code) {
  try {
    await navigator.clipboard.writeText(code);
    toast(`Copied the code ${code}.`);
  } catch {
    // No clipboard (an insecure page, a refused permission): select the code for the player to copy.
    const range = document.createRange();
    range.selectNodeContents(document.getElementById('league-code'));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    toast('Copying is not allowed here: the code is selected, copy it with your keyboard or menu.');
  }
}

function setupAdvance(league, live) {
  const box = document.getElementById('league-advance');
  const error = document.getElementById('league-advance-error');
  const advance = async (days, trigger) => {
    if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) { error.textContent = `Choose 1 to ${MAX_DAYS} trading days.`; return; }
    const answer = await whileMoving(box, `Moving every player ${formatTradingDays(days)}…`, live,
      () => api(`/api/v1/leagues/${league.id}/advance`, { method: 'POST', body: { days } }));
    // Told after the redraw; a player who has left the page meanwhile is not told on the next visit.
    if (!answer || !live()) return;
    lastAdvance = { leagueId: league.id, focusId: trigger.id,
      text: `Moved ${formatTradingDays(answer.days)}, from ${formatSessionDate(answer.from)} to ${formatSessionDate(answer.to)}; ${formatCount(answer.portfolios, 'portfolio', 'portfolios')} valued.${answer.endOfData ? ' The data ends here: the clock cannot move further.' : ''}` };
    route();
  };
  for (const button of box.querySelectorAll('[data-advance]')) {
    button.addEventListener('click', () => advance(Number.parseInt(button.dataset.advance, 10), button));
  }
  const go = document.getElementById('league-advance-go');
  go.addEventListener('click', () => advance(Number(document.getElementById('league-advance-days').value), go));
  if (lastAdvance?.leagueId === league.id) {
    document.getElementById('league-advance-status').textContent = lastAdvance.text;
    document.getElementById(lastAdvance.focusId)?.focus();
  }
  lastAdvance = null;
}

function kickDialog(league, member) {
  confirmDialog({
    title: `Remove ${member.username}?`,
    body: html`<p>${member.username} leaves ${league.name}: their league portfolio is closed and they drop off the standings.
      They cannot join again unless you let them back in.</p>`,
    confirmLabel: 'Remove player',
    run: async () => {
      await api(`/api/v1/leagues/${league.id}/members/${member.userId}`, { method: 'DELETE' });
      route();
      return `${member.username} was removed from ${league.name}.`;
    },
  });
}

async function readmit(league, member, button) {
  button.disabled = true;
  try {
    await api(`/api/v1/leagues/${league.id}/members/${member.userId}/readmit`, { method: 'POST' });
    toast(`${member.username} may join ${league.name} again, with its code.`);
    route();
  } catch (error) {
    toast(errorMessage(error));
    button.disabled = false;
  }
}

function newCodeDialog(league) {
  confirmDialog({
    title: 'Make a new code?',
    body: html`<p>The code <strong>${league.code}</strong> stops working: no one can join with it any more. Players already in the league stay.</p>`,
    confirmLabel: 'Make a new code',
    danger: false,
    run: async () => {
      await api(`/api/v1/leagues/${league.id}/code`, { method: 'POST' });
      route();
      return 'The league has a new code.';
    },
  });
}

function deleteDialog(league) {
  confirmDialog({
    title: `Delete ${league.name}?`,
    body: html`<p>The league and its standings are deleted for every player, and no one can trade in it any more. This cannot be undone.</p>`,
    confirmLabel: 'Delete league',
    run: async () => {
      await api(`/api/v1/leagues/${league.id}`, { method: 'DELETE' });
      location.hash = '#/leagues';
      return `Deleted ${league.name}.`;
    },
  });
}

/** The owner hands the league to another active player. */
function handOverDialog(league, activeMembers) {
  const others = activeMembers.filter((m) => !m.isOwner);
  if (others.length === 0) {
    openDialog(html`<h2 id="dialog-title">Hand over ${league.name}</h2>
      <p>There is no other player yet: someone must join before you can hand the league over.</p>
      <div class="actions"><button data-close class="primary">OK</button></div>`);
    return;
  }
  confirmDialog({
    title: `Hand over ${league.name}?`,
    body: html`<label for="new-owner">New owner</label>
      <select id="new-owner">${others.map((m) => html`<option value="${m.userId}">${m.username}</option>`)}</select>
      <p class="small muted">The new owner sees the code and runs the league. You stay in it as a player, and can leave it afterwards.</p>`,
    confirmLabel: 'Hand over',
    danger: false,
    run: async () => {
      const select = document.getElementById('new-owner');
      await api(`/api/v1/leagues/${league.id}/owner`, { method: 'POST', body: { userId: select.value } });
      route();
      return `${select.selectedOptions[0].textContent} now owns ${league.name}.`;
    },
  });
}

function leaveDialog(league, activeMembers) {
  if (league.isOwner) {
    openDialog(html`<h2 id="dialog-title">You own ${league.name}</h2>
      <p id="owner-must-stay">The owner cannot leave a league. Hand it over to another player first, then leave; or delete the league.</p>
      <div class="actions"><button class="primary" id="leave-hand-over">Hand over…</button><button class="danger" id="leave-delete">Delete league…</button><button data-close>Cancel</button></div>`);
    document.getElementById('leave-hand-over').addEventListener('click', () => handOverDialog(league, activeMembers));
    document.getElementById('leave-delete').addEventListener('click', () => deleteDialog(league));
    return;
  }
  confirmDialog({
    title: `Leave ${league.name}?`,
    body: html`<p>You drop off the standings. Your league portfolio is kept, read-only, with its history.</p>`,
    confirmLabel: 'Leave league',
    run: async () => {
      try {
        await api(`/api/v1/leagues/${league.id}/members/me`, { method: 'DELETE' });
      } catch (error) {
        // The league changed hands to this player since the page was drawn.
        if (error.code === 'owner_must_stay') error.message = `${error.message} Hand the league over to another player or delete it first.`;
        throw error;
      }
      location.hash = '#/leagues';
      return `You left ${league.name}.`;
    },
  });
}

function editDialog(league) {
  confirmDialog({
    title: `Edit ${league.name}`,
    body: html`<label for="edit-name">Name</label><input id="edit-name" maxlength="50" value="${league.name}">
      <label for="edit-description">Description</label><textarea id="edit-description" rows="2" maxlength="500">${league.description}</textarea>
      <fieldset><legend>Who may join</legend>
        <label class="check"><input type="radio" name="edit-visibility" value="private" ${league.visibility === 'private' ? 'checked' : ''}> Private: only with the code</label>
        <label class="check"><input type="radio" name="edit-visibility" value="public" ${league.visibility === 'public' ? 'checked' : ''}> Public: anyone can find it</label></fieldset>
      <label for="edit-metric">Rank players by</label>
      <select id="edit-metric">${METRICS.map(([id, label]) => html`<option value="${id}" ${id === league.defaultMetric ? 'selected' : ''}>${label}</option>`)}</select>`,
    confirmLabel: 'Save',
    danger: false,
    run: async () => {
      await api(`/api/v1/leagues/${league.id}`, { method: 'PATCH', body: {
        name: document.getElementById('edit-name').value.trim(),
        description: document.getElementById('edit-description').value.trim(),
        visibility: document.querySelector('[name="edit-visibility"]:checked').value,
        defaultMetric: document.getElementById('edit-metric').value,
      } });
      route();
      return 'Saved.';
    },
  });
}
