// Log in and sign up (#/login, #/signup).
import { html } from '/html.js';
import { api, REFRESH_COOKIE } from '/api.js';
import { startSession } from '/session.js';
import { refreshMarket } from '/market-status.js';
import { view } from '/router.js';

const MESSAGES = {
  username_taken: 'That username is taken. Try another one.',
  invalid_credentials: 'The username or password is wrong.',
};
const FIELD_OF = { username_taken: 'username-error', invalid_username: 'username-error', weak_password: 'password-error' };

export default function authScreen({ name }) {
  const signup = name === 'signup';
  const label = signup ? 'Create account' : 'Log in';
  view(html`<div class="auth card">
    <h1>Bullpen</h1>
    <p class="muted">Learn investing with virtual cash and real prices.</p>
    <h2>${signup ? 'Create your account' : 'Log in'}</h2>
    <form id="auth-form" novalidate>
      <label for="username">Username</label>
      <input id="username" name="username" autocomplete="username" required minlength="3" maxlength="32" aria-describedby="username-error">
      <p class="error" id="username-error" role="alert"></p>
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="${signup ? 'new-password' : 'current-password'}" required aria-describedby="password-hint password-error">
      ${signup ? html`<p class="muted small" id="password-hint">At least 8 characters. A few words make a strong password.</p>` : html`<span id="password-hint" hidden></span>`}
      <p class="error" id="password-error" role="alert"></p>
      <p class="error" id="form-error" role="alert"></p>
      <div class="actions"><button class="primary" type="submit" id="submit">${label}</button></div>
    </form>
    <p>${signup ? html`Already playing? <a href="#/login">Log in</a>` : html`New here? <a href="#/signup">Create an account</a>`}</p>
  </div>`);
  const form = document.getElementById('auth-form');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (const id of ['username-error', 'password-error', 'form-error']) document.getElementById(id).textContent = '';
    const button = document.getElementById('submit');
    button.disabled = true;
    button.textContent = signup ? 'Creating…' : 'Logging in…';
    try {
      const auth = await api(`/api/v1/auth/${signup ? 'register' : 'login'}`, { method: 'POST', auth: false,
        headers: REFRESH_COOKIE, body: { username: form.username.value.trim(), password: form.password.value } });
      startSession(auth);
      await refreshMarket();
      location.hash = '#/portfolio';
    } catch (error) {
      document.getElementById(FIELD_OF[error.code] ?? 'form-error').textContent = MESSAGES[error.code] ?? error.message;
      button.disabled = false;
      button.textContent = label;
    }
  });
  document.getElementById('username').focus();
}
