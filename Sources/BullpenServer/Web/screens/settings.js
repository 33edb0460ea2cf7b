// Settings (#/settings): appearance, the global leaderboard (whether the player's live portfolios
// appear on it: off until they say so), browser notifications (this device, and which kinds),
// every price alert, API keys for bots, password, log out, delete the account.
import { html, render } from '/html.js';
import { api, errorMessage } from '/api.js';
import { view } from '/router.js';
import { currentSession, endSession } from '/session.js';
import { theme, palette, setTheme, setPalette } from '/appearance.js';
import { confirmDialog } from '/components/dialog.js';
import { toast } from '/components/toast.js';
import { alertsSection, setupAlerts } from '/components/price-alerts.js';
import { keysSection, setupKeys } from '/components/api-keys.js';
import { pushSupported, currentSubscription, subscribePush, unsubscribePush } from '/push.js';

export default function settingsScreen({ live }) {
  view(html`<h1>Settings</h1>
    <div class="card"><h2 class="flush-top">Appearance</h2>
      <label for="theme">Theme</label>
      <select id="theme"><option value="system">Follow my device</option><option value="light">Light</option><option value="dark">Dark</option></select>
      <label class="row check"><input type="checkbox" id="palette" ${palette() === 'colorblind' ? 'checked' : ''}> Colour-blind friendly colours (blue for up, orange for down)</label>
    </div>
    <div class="card gap-top"><h2 class="flush-top">Global leaderboard</h2>
      <label class="check row" for="public-leaderboard"><input type="checkbox" role="switch" class="switch" id="public-leaderboard" disabled aria-describedby="public-leaderboard-help public-leaderboard-error">
        Show my live portfolios on the global leaderboard</label>
      <p class="small muted" id="public-leaderboard-help">Other players then see your username, your portfolios' names and how they are doing (never what you hold). Off until you switch it on. <a href="#/leagues/global">See the leaderboard</a>.</p>
      <p class="error" id="public-leaderboard-error" role="alert"></p></div>
    <div class="card gap-top"><h2 class="flush-top">Browser notifications</h2>
      <label class="check row" for="push-device"><input type="checkbox" role="switch" class="switch" id="push-device" disabled aria-describedby="push-help push-error">
        Notify me on this device, even when Bullpen is closed</label>
      <p class="small muted" id="push-help">${pushSupported() ? 'Your browser asks your permission first. Everything also shows under Inbox in the app.'
        : 'This browser cannot show notifications from a closed site; everything still shows under Inbox in the app.'}</p>
      <fieldset class="plain-fieldset" id="push-kinds"><legend>Send these as browser notifications</legend><p class="loading">Loading…</p></fieldset>
      <p class="error" id="push-error" role="alert"></p></div>
    ${alertsSection(null)}
    ${keysSection()}
    <div class="card gap-top"><h2 class="flush-top">Change password</h2>
      <form id="password-form" novalidate>
        <label for="current-password">Current password</label><input id="current-password" type="password" autocomplete="current-password">
        <label for="new-password">New password</label><input id="new-password" type="password" autocomplete="new-password" aria-describedby="password-change-error">
        <p class="error" id="password-change-error" role="alert"></p>
        <div class="actions"><button class="primary" type="submit">Change password</button></div>
      </form></div>
    <div class="card gap-top"><h2 class="flush-top">Account</h2>
      <p class="muted">Logged in as <strong>${currentSession()?.user?.username}</strong>.</p>
      <div class="row"><button id="logout">Log out</button><button id="delete-account" class="danger">Delete account</button></div></div>`);
  const themeField = document.getElementById('theme');
  themeField.value = theme();
  themeField.addEventListener('change', (event) => setTheme(event.target.value));
  document.getElementById('palette').addEventListener('change', (event) => setPalette(event.target.checked ? 'colorblind' : 'standard'));
  document.getElementById('password-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = document.getElementById('password-change-error');
    error.textContent = '';
    try {
      await api('/api/v1/me/password', { method: 'POST', body: {
        currentPassword: document.getElementById('current-password').value,
        newPassword: document.getElementById('new-password').value,
      } });
      event.target.reset();
      toast('Password changed. Other devices were logged out.');
    } catch (problem) { error.textContent = errorMessage(problem); }
  });
  setupLeaderboardChoice(live);
  setupPush(live);
  setupAlerts({ live });
  setupKeys({ live });
  document.getElementById('logout').addEventListener('click', logout);
  document.getElementById('delete-account').addEventListener('click', deleteAccountDialog);
}

/** The switch shows the saved choice once it is known; a change is saved at once. */
async function setupLeaderboardChoice(live) {
  const toggle = document.getElementById('public-leaderboard');
  const error = document.getElementById('public-leaderboard-error');
  try {
    const settings = await api('/api/v1/me/settings');
    if (!live()) return;
    toggle.checked = settings.publicLeaderboard;
    toggle.disabled = false;
  } catch (problem) {
    if (live()) error.textContent = errorMessage(problem);
    return;
  }
  toggle.addEventListener('change', async () => {
    const wanted = toggle.checked;
    toggle.disabled = true;
    error.textContent = '';
    try {
      const settings = await api('/api/v1/me', { method: 'PATCH', body: { publicLeaderboard: wanted } });
      toggle.checked = settings.publicLeaderboard;
      toast(toggle.checked ? 'Your live portfolios are on the global leaderboard.' : 'Your portfolios are off the global leaderboard.');
    } catch (problem) {
      toggle.checked = !wanted;
      error.textContent = errorMessage(problem);
    } finally { toggle.disabled = false; }
  });
}

/** This device's switch and the kinds sent as pushes (each change saved at once). */
async function setupPush(live) {
  const error = document.getElementById('push-error');
  const kindsNode = document.getElementById('push-kinds');
  let settings;
  try {
    settings = await api('/api/v1/push');
  } catch (problem) { if (live()) error.textContent = errorMessage(problem); return; }
  if (!live()) return;
  render(kindsNode, html`<legend>Send these as browser notifications</legend>${settings.kinds.map((k) => html`
    <label class="check row" for="push-kind-${k.kind}"><input type="checkbox" id="push-kind-${k.kind}" data-kind="${k.kind}" ${k.enabled ? 'checked' : ''}> ${k.label}</label>`)}`);
  kindsNode.addEventListener('change', async () => {
    error.textContent = '';
    const kinds = [...kindsNode.querySelectorAll('[data-kind]')].filter((box) => box.checked).map((box) => box.dataset.kind);
    try {
      await api('/api/v1/push/kinds', { method: 'PUT', body: { kinds } });
      toast('Saved.');
    } catch (problem) { error.textContent = errorMessage(problem); }
  });
  const device = document.getElementById('push-device');
  if (!pushSupported() || !settings.publicKey) return;
  try { device.checked = !!(await currentSubscription()); } catch { device.checked = false; }
  if (!live()) return;
  device.disabled = false;
  device.addEventListener('change', async () => {
    error.textContent = '';
    device.disabled = true;
    try {
      if (device.checked) { await subscribePush(settings.publicKey); toast('This device will show Bullpen’s notifications.'); }
      else { await unsubscribePush(); toast('No more notifications on this device.'); }
    } catch (problem) {
      device.checked = !device.checked;
      error.textContent = problem.message;
    } finally { device.disabled = false; }
  });
}

async function logout() {
  // This device stops getting the player's notifications (a shared computer's next user must not).
  try { await unsubscribePush(); } catch { /* not subscribed, or the browser cannot */ }
  try { await api('/api/v1/auth/logout', { method: 'POST' }); } catch { /* the session ends here either way */ }
  endSession();
  location.hash = '#/login';
}

function deleteAccountDialog() {
  confirmDialog({
    title: 'Delete your account?',
    body: html`<p>All your portfolios, history and watchlists are deleted for good.</p>
      <label for="delete-password">Type your password to confirm</label><input id="delete-password" type="password" autocomplete="current-password">`,
    confirmLabel: 'Delete everything',
    run: async () => {
      await api('/api/v1/me', { method: 'DELETE', body: { password: document.getElementById('delete-password').value } });
      endSession();
      return 'Your account was deleted.';
    },
  });
}
