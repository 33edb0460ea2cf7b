// Notifications (#/notifications): what happened while the player was away, newest first, in
// pages; each leads where it is about. Opening the screen leaves them unread until the player
// opens one or marks them all read; new ones arrive at the top while it is open.
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view } from '/router.js';
import { formatDateTime } from '/format.js';
import { onNotification, setUnread } from '/notifications.js';

const ICONS = { achievement: '★', alert: '⏰', follower: '☺', league_joined: '⚑', league_kicked: '⚑', league_ended: '⚑', order_filled: '✓' };

function item(n) {
  const body = html`<span class="note-icon" aria-hidden="true">${ICONS[n.kind] ?? '•'}</span>
    <span class="note-text"><strong>${n.title}</strong><span class="small">${n.body}</span>
      <span class="small muted"><time datetime="${n.createdAt}">${formatDateTime(n.createdAt)}</time>${n.read ? '' : html` · <span class="unread-mark">unread</span>`}</span></span>`;
  return html`<li class="note ${n.read ? '' : 'unread'}" data-id="${n.id}" data-kind="${n.kind}">${n.link
    ? html`<a href="${n.link}" data-open="${n.id}">${body}</a>` : html`<div>${body}</div>`}</li>`;
}

export default async function notificationsScreen({ live, onLeave }) {
  view(html`<div class="spread"><h1>Notifications</h1><button id="read-all">Mark all read</button></div>
    <p class="muted small">Achievements, price alerts, followers and your leagues. Choose which also come as browser notifications in <a href="#/settings">Settings</a>.</p>
    <div class="card"><ul class="list notes" id="notes" aria-live="polite"><li class="loading">Loading…</li></ul>
      <div class="actions"><button id="more" hidden>Show older</button></div>
      <p class="error" id="notes-error" role="alert"></p></div>`);
  let items = [], cursor = null;
  const list = document.getElementById('notes');
  const draw = () => render(list, items.length ? html`${items.map(item)}` : html`<li class="muted" id="no-notes">Nothing yet. Trades, alerts and followers will show here.</li>`);
  const load = async () => {
    try {
      const page = await api(`/api/v1/notifications?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (!live()) return;
      items = items.concat(page.notifications);
      cursor = page.nextCursor ?? null;
      setUnread(page.unread);
      draw();
      document.getElementById('more').hidden = !cursor;
    } catch (error) { if (live()) document.getElementById('notes-error').textContent = errorMessage(error); }
  };
  await load();
  document.getElementById('more').addEventListener('click', load);
  document.getElementById('read-all').addEventListener('click', async () => {
    try {
      const left = await api('/api/v1/notifications/read', { method: 'POST', body: { all: true } });
      items = items.map((n) => ({ ...n, read: true }));
      setUnread(left.unread);
      draw();
    } catch (error) { document.getElementById('notes-error').textContent = errorMessage(error); }
  });
  // Opening one marks it read (the link then leads on).
  list.addEventListener('click', (event) => {
    const id = event.target.closest('[data-open]')?.dataset.open;
    const n = items.find((x) => x.id === id);
    if (!n || n.read) return;
    api('/api/v1/notifications/read', { method: 'POST', body: { ids: [id] } }).then((left) => setUnread(left.unread)).catch(() => {});
  });
  onLeave(onNotification((n) => {
    if (!live() || items.some((x) => x.id === n.id)) return;
    items = [n, ...items];
    draw();
  }));
}
