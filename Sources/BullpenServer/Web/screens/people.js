// People (#/people): the feed of what the players I follow made public, and finding players by
// name. #/people/{username}: a player's profile (follow, block, their public portfolios as
// weights, their leagues, followers and following); on my own, editing it, my avatar, which
// portfolios I share and the players I blocked.
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view, route } from '/router.js';
import { debounce } from '/debounce.js';
import { loadPortfolios } from '/portfolios.js';
import { moreButton, setupPager } from '/components/pager.js';
import { confirmDialog } from '/components/dialog.js';
import { toast } from '/components/toast.js';
import { formatDate, formatDateTime, formatNumber, formatPercent, formatPrice, formatShare, tone, formatQuantity } from '/format.js';

const VISIBILITY = {
  private: 'Private: only you',
  public: 'Public: returns and weights',
  full: 'Public with amounts',
};

function userLink(user) {
  return html`<a class="person plain" href="#/people/${encodeURIComponent(user.username)}">
    <img class="avatar" src="${user.avatarUrl}" alt="" width="32" height="32" loading="lazy">
    <span><strong class="link-text">${user.displayName || user.username}</strong>
      ${user.displayName ? html` <span class="small muted">@${user.username}</span>` : ''}</span></a>`;
}

function feedItem(item) {
  const who = userLink(item.user);
  let what;
  if (item.kind === 'trade') {
    const t = item.trade;
    const verb = t.side === 'buy' ? 'bought' : 'sold';
    what = html`${verb} ${t.quantity != null ? html`${formatQuantity(t.quantity)} ` : ''}<strong>${t.symbol}</strong>
      at ${formatPrice(t.price)}${t.replayDate ? html`, the close of ${formatDate(t.replayDate)} in a replay,` : ''} in <em>${t.portfolioName}</em>`;
  } else if (item.kind === 'achievement') {
    what = html`earned <strong>★ ${item.achievement.name}</strong> <span class="small muted">(${item.achievement.description})</span>`;
  } else {
    what = html`joined the league <a href="#/leagues/${item.league.id}">${item.league.name}</a>`;
  }
  return html`<li data-feed-item="${item.id}"><span class="grow">${who}
    <span class="block">${what}</span></span>
    <time class="small muted" datetime="${item.at}">${formatDateTime(item.at)}</time></li>`;
}

export default async function peopleScreen(context) {
  // #/people/me: my own profile (notifications of my achievements lead there).
  if (context.params[0] === 'me') return profileScreen(context, (await api('/api/v1/me')).username);
  if (context.params[0]) return profileScreen(context, context.params[0]);
  const { live, onLeave } = context;
  const me = await api('/api/v1/me');
  if (!live()) return;
  view(html`<div class="spread"><h1>People</h1>
      <a class="button" id="my-profile" href="#/people/${encodeURIComponent(me.username)}">My profile</a></div>
    <p>Follow players to see what they trade in the portfolios they share. Nothing of yours is shown to anyone unless you make it public.</p>
    <section aria-labelledby="find-title"><h2 id="find-title">Find players</h2>
      <div class="card"><label for="people-search">Username starts with</label>
        <input id="people-search" type="search" autocomplete="off" spellcheck="false" maxlength="32">
        <div id="people-results" class="gap-top" aria-live="polite"></div>
        ${moreButton('more-people')}</div></section>
    <section aria-labelledby="feed-title"><h2 id="feed-title">Feed</h2>
      <div class="card"><div id="feed"><p class="loading">Loading…</p></div>${moreButton('more-feed')}</div></section>`);

  const feedNode = document.getElementById('feed');
  setupPager({
    moreId: 'more-feed', node: feedNode, key: 'items', live,
    page: (cursor) => api(`/api/v1/feed${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`),
    draw: (items) => render(feedNode, items.length === 0
      ? html`<p id="empty-feed">Nothing yet. Follow players (find them above, or on a league's standings) and their public trades show here.</p>`
      : html`<ul class="list">${items.map(feedItem)}</ul>`),
  });

  const search = document.getElementById('people-search');
  const results = document.getElementById('people-results');
  const more = document.getElementById('more-people');
  let reload = null;
  const find = () => {
    const text = search.value.trim();
    if (!text) { render(results, ''); more.hidden = true; return; }
    if (!reload) {
      reload = setupPager({
        moreId: 'more-people', node: results, key: 'users', live,
        page: (cursor) => {
          const params = new URLSearchParams({ search: search.value.trim() || '-' });
          if (cursor) params.set('cursor', cursor);
          return api(`/api/v1/users?${params}`);
        },
        draw: (users) => render(results, users.length === 0
          ? html`<p id="no-people">No player's name starts with that.</p>`
          : html`<ul class="list" id="people-list">${users.map((user) => html`<li>${userLink(user)}</li>`)}</ul>`),
      });
    } else {
      reload();
    }
  };
  const findLater = debounce(find, 300);
  search.addEventListener('input', findLater);
  onLeave(findLater.cancel);
}

/** Horizontal bars of a portfolio's weights: cash and each holding, biggest first. */
function weightBars(portfolio) {
  const rows = [...portfolio.holdings.map((h) => ({ label: h.symbol, title: h.name || h.symbol, weight: h.weightPercent, quantity: h.quantity })),
    { label: 'Cash', title: 'Cash', weight: portfolio.cashWeightPercent }]
    .sort((a, b) => Number(b.weight) - Number(a.weight));
  return html`<ul class="weights" aria-label="Holdings of ${portfolio.name}, as a share of its value">${rows.map((row) => html`
    <li><span class="weight-label" title="${row.title}">${row.label}</span>
      <svg class="weight-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
        <rect width="${Math.max(0, Math.min(100, Number(row.weight)))}" height="10"></rect></svg>
      <span class="weight-figure">${formatShare(row.weight)}${row.quantity != null ? html` <span class="small muted">· ${formatQuantity(row.quantity)}</span>` : ''}</span></li>`)}</ul>`;
}

function publicPortfolio(portfolio) {
  return html`<article class="card" data-public-portfolio="${portfolio.id}">
    <div class="spread"><h3 class="flush">${portfolio.name}</h3>
      <span class="${tone(portfolio.totalReturnPercent)}"><strong>${formatPercent(portfolio.totalReturnPercent)}</strong> <span class="small muted">return</span></span></div>
    <p class="small muted">${portfolio.clock.mode === 'replay' ? `Replay · ${formatDate(portfolio.clock.date)}` : 'Live'}
      ${portfolio.equity ? ` · worth ${formatPrice(portfolio.equity)}` : ''}</p>
    ${weightBars(portfolio)}</article>`;
}

/** Achievements: earned ones with their dates; on my own profile, the rest to aim for. */
function achievementsSection(profile, name) {
  const earned = profile.achievements.filter((a) => a.earnedAt);
  const locked = profile.achievements.filter((a) => !a.earnedAt);
  const badge = (a) => html`<li class="achievement ${a.earnedAt ? '' : 'locked'}" data-achievement="${a.id}">
    <span class="medal" aria-hidden="true">${a.earnedAt ? '★' : '☆'}</span>
    <span><strong>${a.name}</strong><span class="small">${a.description}</span>
      <span class="small muted">${a.earnedAt ? html`Earned ${formatDate(a.earnedAt)}` : 'Not yet'}</span></span></li>`;
  return html`<section aria-labelledby="achievements-title"><h2 id="achievements-title">Achievements
      <span class="small muted">${earned.length}${profile.isMe ? ` of ${profile.achievements.length}` : ''}</span></h2>
    <div class="card">${earned.length === 0 && !profile.isMe ? html`<p id="no-achievements">${name} has not earned one yet.</p>`
      : html`<ul class="achievements" id="achievements">${earned.map(badge)}${locked.map(badge)}</ul>`}</div></section>`;
}

async function profileScreen(context, username) {
  const { live } = context;
  view(html`<h1>${username}</h1><p class="loading">Loading…</p>`);
  let profile;
  try {
    profile = await api(`/api/v1/users/${encodeURIComponent(username)}`);
  } catch (error) {
    if (!live()) return;
    if (error.status !== 404) throw error;
    const blocked = (await api('/api/v1/me/blocks')).users.some((u) => u.username.toLowerCase() === username.toLowerCase());
    if (!live()) return;
    view(html`<h1>${username}</h1><div class="card"><p id="no-player">${blocked ? 'You blocked this player.' : 'There is no player by that name.'}</p>
      ${blocked ? html`<button id="unblock">Unblock ${username}</button>` : html`<a class="button" href="#/people">Back to People</a>`}</div>`);
    document.getElementById('unblock')?.addEventListener('click', async () => {
      await api(`/api/v1/users/${encodeURIComponent(username)}/block`, { method: 'DELETE' });
      toast(`Unblocked ${username}.`);
      route();
    });
    return;
  }
  if (!live()) return;
  const name = profile.displayName || profile.username;
  view(html`<div class="profile-head">
      <img class="avatar large" id="avatar" src="${profile.avatarUrl}" alt="${name}'s picture" width="72" height="72">
      <div class="grow"><h1 class="flush">${name}</h1>
        <p class="small muted flush">@${profile.username} · joined ${formatDate(profile.joinedAt)}</p>
        <p class="flush"><a href="#followers-title" id="followers-count">${formatNumber(profile.followers)} ${profile.followers === 1 ? 'follower' : 'followers'}</a>
          · <a href="#following-title">${formatNumber(profile.following)} following</a></p></div>
      ${profile.isMe ? '' : html`<div class="row">
        <button class="${profile.followedByMe ? '' : 'primary'}" id="follow" aria-pressed="${profile.followedByMe ? 'true' : 'false'}">${profile.followedByMe ? 'Following' : 'Follow'}</button>
        <button class="danger" id="block">Block</button></div>`}</div>
    ${profile.bio ? html`<p class="bio" id="bio">${profile.bio}</p>` : ''}
    <section aria-labelledby="shared-title"><h2 id="shared-title">Portfolios ${profile.isMe ? 'I share' : 'shared'}</h2>
      ${profile.portfolios.length === 0
        ? html`<div class="card"><p id="no-shared">${profile.isMe ? 'You share no portfolio: choose below which ones others may see.' : `${name} shares no portfolio.`}</p></div>`
        : html`<div class="grid-cards">${profile.portfolios.map(publicPortfolio)}</div>`}</section>
    ${achievementsSection(profile, name)}
    ${profile.leagues.length ? html`<section aria-labelledby="leagues-title"><h2 id="leagues-title">Public leagues</h2>
      <div class="card"><ul class="list">${profile.leagues.map((l) => html`<li><a href="#/leagues/${l.id}">${l.name}</a></li>`)}</ul></div></section>` : ''}
    ${profile.isMe ? html`<div id="own"></div>` : ''}
    <section aria-labelledby="followers-title"><h2 id="followers-title">Followers</h2>
      <div class="card"><div id="followers"></div>${moreButton('more-followers')}</div></section>
    <section aria-labelledby="following-title"><h2 id="following-title">Following</h2>
      <div class="card"><div id="following"></div>${moreButton('more-following')}</div></section>`);

  for (const kind of ['followers', 'following']) {
    const node = document.getElementById(kind);
    setupPager({
      moreId: `more-${kind}`, node, key: 'users', live,
      page: (cursor) => api(`/api/v1/users/${encodeURIComponent(profile.username)}/${kind}${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`),
      draw: (users) => render(node, users.length === 0 ? html`<p>Nobody yet.</p>`
        : html`<ul class="list">${users.map((user) => html`<li>${userLink(user)}</li>`)}</ul>`),
    });
  }

  if (!profile.isMe) {
    const follow = document.getElementById('follow');
    follow.addEventListener('click', async () => {
      follow.disabled = true;
      try {
        await api(`/api/v1/users/${encodeURIComponent(profile.username)}/follow`, { method: profile.followedByMe ? 'DELETE' : 'PUT' });
        toast(profile.followedByMe ? `You no longer follow ${name}.` : `You follow ${name}: their public trades show in your feed.`);
        route();
      } catch (error) {
        follow.disabled = false;
        toast(errorMessage(error));
      }
    });
    document.getElementById('block').addEventListener('click', () => confirmDialog({
      title: `Block ${name}?`,
      body: html`<p>You stop following each other, and neither of you sees the other's profile, trades or name in searches. You can unblock later.</p>`,
      confirmLabel: 'Block',
      run: async () => {
        await api(`/api/v1/users/${encodeURIComponent(profile.username)}/block`, { method: 'PUT' });
        route();
        return `Blocked ${name}.`;
      },
    }));
    return;
  }
  await drawOwn(profile, live);
}

/** My own profile's settings: name and bio, picture, what I share, whom I blocked. */
async function drawOwn(profile, live) {
  const [portfolios, blocks] = await Promise.all([loadPortfolios(), api('/api/v1/me/blocks')]);
  if (!live()) return;
  const own = document.getElementById('own');
  render(own, html`<section aria-labelledby="edit-title"><h2 id="edit-title">Edit my profile</h2>
      <form class="card" id="profile-form" novalidate>
        <label for="display-name">Display name</label>
        <input id="display-name" maxlength="40" value="${profile.displayName ?? ''}" autocomplete="nickname" aria-describedby="profile-error">
        <label for="bio-input">About me</label>
        <textarea id="bio-input" maxlength="280" rows="3" aria-describedby="profile-error">${profile.bio ?? ''}</textarea>
        <p class="error" id="profile-error" role="alert"></p>
        <button class="primary" type="submit" id="save-profile">Save</button>
      </form>
      <div class="card">
        <label for="avatar-file">Picture (a square PNG or JPEG, up to 1 MB)</label>
        <input id="avatar-file" type="file" accept="image/png,image/jpeg" aria-describedby="avatar-error">
        <p class="error" id="avatar-error" role="alert"></p>
        <button id="remove-avatar" ${profile.avatarUrl.includes('?v=') ? '' : html`disabled`}>Use my initial instead</button>
      </div></section>
    <section aria-labelledby="sharing-title"><h2 id="sharing-title">What I share</h2>
      <div class="card"><p class="small muted">Public portfolios show their return and each holding as a share of the whole; with amounts, also how many shares and what they are worth.
        Cash balances, orders and everything else stay private.</p>
        <ul class="list" id="sharing">${portfolios.filter((p) => !p.closedAt).map((p) => html`<li>
          <label class="grow" for="share-${p.id}">${p.name}</label>
          <select id="share-${p.id}" data-share="${p.id}">${Object.entries(VISIBILITY).map(([value, label]) =>
            html`<option value="${value}" ${(p.visibility ?? 'private') === value ? html`selected` : ''}>${label}</option>`)}</select></li>`)}</ul></div></section>
    <section aria-labelledby="blocked-title"><h2 id="blocked-title">Blocked players</h2>
      <div class="card">${blocks.users.length === 0 ? html`<p>You have blocked nobody.</p>`
        : html`<ul class="list">${blocks.users.map((u) => html`<li><span>${u.username}</span>
            <button data-unblock="${u.username}" aria-label="Unblock ${u.username}">Unblock</button></li>`)}</ul>`}</div></section>`);

  document.getElementById('profile-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = document.getElementById('profile-error');
    const button = document.getElementById('save-profile');
    error.textContent = '';
    button.disabled = true;
    try {
      await api('/api/v1/me/profile', { method: 'PATCH', body: {
        displayName: document.getElementById('display-name').value, bio: document.getElementById('bio-input').value } });
      toast('Profile saved.');
      route();
    } catch (problem) {
      error.textContent = errorMessage(problem);
      button.disabled = false;
    }
  });
  document.getElementById('avatar-file').addEventListener('change', async (event) => {
    const file = event.target.files[0];
    const error = document.getElementById('avatar-error');
    error.textContent = '';
    if (!file) return;
    try {
      await api('/api/v1/me/avatar', { method: 'PUT', blob: file });
      toast('Picture saved.');
      route();
    } catch (problem) {
      error.textContent = errorMessage(problem);
    }
  });
  document.getElementById('remove-avatar').addEventListener('click', async () => {
    await api('/api/v1/me/avatar', { method: 'DELETE' });
    toast('Your initial is your picture again.');
    route();
  });
  for (const select of own.querySelectorAll('[data-share]')) {
    select.addEventListener('change', async () => {
      select.disabled = true;
      try {
        await api(`/api/v1/portfolios/${select.dataset.share}`, { method: 'PATCH', body: { visibility: select.value } });
        toast(`${select.closest('li').querySelector('label').textContent.trim()}: ${VISIBILITY[select.value]}.`);
        route();
      } catch (problem) {
        select.disabled = false;
        toast(errorMessage(problem));
      }
    });
  }
  for (const button of own.querySelectorAll('[data-unblock]')) {
    button.addEventListener('click', async () => {
      await api(`/api/v1/users/${encodeURIComponent(button.dataset.unblock)}/block`, { method: 'DELETE' });
      toast(`Unblocked ${button.dataset.unblock}.`);
      route();
    });
  }
}
