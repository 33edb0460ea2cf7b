// Formatting in the player's locale: money with thousands separators, signs and arrows so that
// colour is never the only cue.
const locale = navigator.language || 'en-US';
const money = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' });
const number = new Intl.NumberFormat(locale);
const percent = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** "1234.5" → "$1,234.50" */
export function formatMoney(text) {
  const value = Number(text);
  return Number.isFinite(value) ? money.format(value) : '—';
}

/** "-12.5" → "−$12.50", "12.5" → "+$12.50" */
export function formatSignedMoney(text) {
  const value = Number(text);
  if (!Number.isFinite(value)) return '—';
  if (value === 0) return money.format(0);
  return (value > 0 ? '+' : '−') + money.format(Math.abs(value));
}

/** A price with up to four places (prices of some 1990s stocks are below a dollar). */
export function formatPrice(text) {
  const value = Number(text);
  if (!Number.isFinite(value)) return '—';
  const digits = Math.abs(value) < 1 ? 4 : 2;
  return new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

/** "1.23" → "▲ +1.23%" */
export function formatPercent(text) {
  const value = Number(text);
  if (text == null || !Number.isFinite(value)) return '—';
  const arrow = value > 0 ? '▲ +' : value < 0 ? '▼ −' : '';
  return arrow + percent.format(Math.abs(value)) + '%';
}

export function formatNumber(value) { return value == null ? '—' : number.format(value); }

/** The class for a signed figure: up, down or nothing. */
export function tone(text) {
  const value = Number(text);
  return value > 0 ? 'up' : value < 0 ? 'down' : '';
}

export function formatDate(text) {
  if (!text) return '—';
  const date = text.length === 10 ? new Date(text + 'T12:00:00Z') : new Date(text);
  return date.toLocaleDateString(locale, { year: 'numeric', month: 'short', day: 'numeric' });
}

export function formatDateTime(text) {
  if (!text) return '—';
  // Daily data is stamped at midnight UTC: show the session's date alone.
  if (/T00:00:00(\.0+)?Z$/.test(text)) return formatDate(text.slice(0, 10));
  return new Date(text).toLocaleString(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** Escapes text for HTML. */
export function esc(value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}
