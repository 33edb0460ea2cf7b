// The bell: the unread count in the navigation, kept current by `notification` messages on the
// stream (a connection of its own, reconnecting with a growing pause) and, should the stream be
// down, by asking now and then and whenever the app comes back to the front.
import { api } from '/api.js';
import { currentSession, onSessionChange } from '/session.js';
import { toast } from '/components/toast.js';

let socket = null, retry = 1000, unread = 0, timer = null;
const listeners = new Set();

/** The unread count as last known. */
export function unreadCount() { return unread; }

/** Calls `listener(notification)` for each notification that arrives; returns a function that stops. */
export function onNotification(listener) { listeners.add(listener); return () => listeners.delete(listener); }

/** Sets the count (after a screen read or marked some) and redraws the bell. */
export function setUnread(count) {
  unread = count;
  const badge = document.getElementById('bell-count');
  const link = document.getElementById('bell');
  if (!badge || !link) return;
  badge.textContent = count > 99 ? '99+' : String(count);
  badge.hidden = count === 0;
  link.setAttribute('aria-label', count ? `Notifications, ${count} unread` : 'Notifications');
}

export async function refreshUnread() {
  if (!currentSession()) return;
  try { setUnread((await api('/api/v1/notifications/unread')).unread); } catch { /* the next try will do */ }
}

function connect() {
  if (!currentSession() || !('WebSocket' in window) || socket) return;
  const token = encodeURIComponent(currentSession()?.access ?? '');
  const opened = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/stream?token=${token}`);
  socket = opened;
  opened.onopen = () => { retry = 1000; };
  opened.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type !== 'notification' || !message.notification) return;
    setUnread(message.unread ?? unread + 1);
    toast(message.notification.title);
    listeners.forEach((listener) => listener(message.notification));
  };
  opened.onclose = () => {
    if (socket === opened) socket = null;
    if (currentSession()) setTimeout(connect, retry = Math.min(retry * 2, 30000));
  };
}

function stop() {
  const open = socket;
  socket = null;
  open?.close();
  setUnread(0);
}

/** Starts the bell for the signed-in player (and stops it when they sign out). */
export function startNotifications() {
  const start = () => { if (currentSession()) { refreshUnread(); connect(); } else stop(); };
  onSessionChange(start);
  start();
  clearInterval(timer);
  timer = setInterval(refreshUnread, 60_000);
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') refreshUnread(); });
}
