// Formatting in the player's locale. Money, prices and percentages arrive from the API as decimal
// strings and are formatted from the string itself: Intl.NumberFormat formats a decimal string
// exactly, so no figure goes through a binary float, and signs are read from the text. Signs and
// arrows go with every change, so that colour is never the only cue. Market times are shown in
// the exchange's own zone (New York) and say so.
const locale = navigator.language || 'en-US';
const MARKET_ZONE = 'America/New_York';
const money = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' });
const price = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 });
const number = new Intl.NumberFormat(locale);
const percent = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const fractionPercent = new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 2 });
const day = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric' });
const monthName = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', month: 'long' });
const weekday = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' });
const marketTime = new Intl.DateTimeFormat(locale, { timeZone: MARKET_ZONE, weekday: 'short', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
const marketClock = new Intl.DateTimeFormat(locale, { timeZone: MARKET_ZONE, hour: 'numeric', minute: '2-digit' });
const marketDay = new Intl.DateTimeFormat('en-CA', { timeZone: MARKET_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });
const localTime = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Whether `text` is a decimal string as the API writes them ("-12.50"). */
function isDecimal(text) { return typeof text === 'string' && DECIMAL.test(text); }
function isNegative(text) { return text.startsWith('-') && !isZero(text); }
function isZero(text) { return /^-?0*(\.0*)?$/.test(text); }
function magnitude(text) { return text.replace(/^-/, ''); }

/** "1234.5" → "$1,234.50" */
export function formatMoney(text) {
  return isDecimal(text) ? money.format(isZero(text) ? '0' : text) : '—';
}

/** The size of an amount, without its sign: "-14000" → "$14,000.00" (what an exercise pays, told with "pays"). */
export function formatMoneySize(text) {
  return isDecimal(text) ? formatMoney(magnitude(text)) : '—';
}

/** "-12.5" → "−$12.50", "12.5" → "+$12.50", "0.00" → "$0.00" */
export function formatSignedMoney(text) {
  if (!isDecimal(text)) return '—';
  if (isZero(text)) return money.format('0');
  return (isNegative(text) ? '−' : '+') + money.format(magnitude(text));
}

/** A price as exact as the API gives it, 2 to 4 places ("0.1234" → "$0.1234", "264.5800" → "$264.58"). */
export function formatPrice(text) {
  return isDecimal(text) ? price.format(text) : '—';
}

/** "1.23" → "▲ +1.23%", "-0.5" → "▼ −0.50%" */
export function formatPercent(text) {
  if (!isDecimal(text)) return '—';
  const arrow = isZero(text) ? '' : isNegative(text) ? '▼ −' : '▲ +';
  return arrow + percent.format(magnitude(text)) + '%';
}

/** A price with its sign, 2 to 4 places: "0.0512" → "+$0.0512", "-1.2" → "−$1.20", "0" → "$0.00". */
export function formatSignedPrice(text) {
  if (!isDecimal(text)) return '—';
  if (isZero(text)) return price.format('0');
  return (isNegative(text) ? '−' : '+') + price.format(magnitude(text));
}

/** A price's change with its sign and an arrow: "0.35" → "▲ +$0.35", "-1.2" → "▼ −$1.20", "0.00" → "$0.00". */
export function formatPriceChange(text) {
  if (!isDecimal(text) || isZero(text)) return formatSignedPrice(text);
  return (isNegative(text) ? '▼ ' : '▲ ') + formatSignedPrice(text);
}

/** An amount gained or lost with its sign and an arrow: "40" → "▲ +$40.00", "-12.5" → "▼ −$12.50", "0" → "$0.00". */
export function formatMoneyChange(text) {
  if (!isDecimal(text)) return '—';
  if (isZero(text)) return money.format('0');
  return (isNegative(text) ? '▼ −' : '▲ +') + money.format(magnitude(text));
}

/** A decimal string to at most `places` places, with its sign ("0.52341" → "0.52", "-0.0412" → "−0.04"); no currency. */
export function formatDecimal(text, places = 2) {
  if (!isDecimal(text)) return '—';
  const formatted = new Intl.NumberFormat(locale, { minimumFractionDigits: places, maximumFractionDigits: places }).format(magnitude(text));
  return (isNegative(text) && !/^[0.,]+$/.test(formatted) ? '−' : '') + formatted;
}

/** A rate the API writes as a fraction, as a percent: "0.2512" → "25.12%", "0.0425" → "4.25%" (Intl moves the point, exactly). */
export function formatFractionPercent(text) {
  return isDecimal(text) ? fractionPercent.format(text) : '—';
}

/** A share of a whole, with no sign or arrow: "4.6" → "4.60%" (a fall's depth, a part of the days). */
export function formatShare(text) {
  return isDecimal(text) ? percent.format(text) + '%' : '—';
}

/** Whether a decimal string is zero ("0.00", "-0"); false for anything that is not a decimal. */
export function isZeroAmount(text) { return isDecimal(text) && isZero(text); }

/** A count: shares, volume, companies. */
export function formatNumber(value) { return value == null ? '—' : number.format(value); }

const quantityFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 8 });

/** A quantity of shares, contracts or coins as the server wrote it: "1,200", "0.625", "0.00012345" (every decimal kept). */
export function formatQuantity(value) { return value == null ? '—' : quantityFormat.format(value); }

/** A quantity (a JSON number of at most 15 digits, 8 decimals) as integer units of 10⁻⁸, exactly: 0.3 → 30000000n. */
function quantityUnits(value) { return BigInt(Number(value).toFixed(8).replace('.', '')); }

/** `a - b` for two quantities, exactly (0.3 - 0.1 is 0.2, not 0.19999999999999998). */
export function subtractQuantities(a, b) {
  const units = quantityUnits(a) - quantityUnits(b);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(9, '0');
  return Number(`${negative ? '-' : ''}${digits.slice(0, -8)}.${digits.slice(-8)}`);
}

/** A count with its noun: (1, 'player', 'players') → "1 player", (1200, …) → "1,200 players". */
export function formatCount(count, one, many) { return `${formatNumber(count)} ${count === 1 ? one : many}`; }

/** 1 → "1 trading day", 21 → "21 trading days". */
export function formatTradingDays(days) { return formatCount(days, 'trading day', 'trading days'); }

/** An amount as the player typed it, without thousands separators, "$", "%" or spaces ("$1,000" → "1000"); null when empty. The server judges the rest. */
export function typedDecimal(text) {
  const cleaned = text.replace(/[,$%\s]/g, '');
  return cleaned === '' ? null : cleaned;
}

/** The class for a signed figure: 'up', 'down' or '' (zero or missing). */
export function tone(text) {
  if (!isDecimal(text) || isZero(text)) return '';
  return isNegative(text) ? 'down' : 'up';
}

/** A session's date, from "2017-11-10" or a daily stamp "2017-11-10T00:00:00Z" → "Nov 10, 2017". */
export function formatDate(text) {
  if (!text) return '—';
  return day.format(new Date(text.slice(0, 10) + 'T00:00:00Z'));
}

/** A month's name from its number, 1 to 12 → "March". */
export function formatMonthName(month) {
  return monthName.format(new Date(Date.UTC(2000, month - 1, 1)));
}

/** A session's date with its weekday → "Fri, Feb 20, 2026". */
export function formatSessionDate(text) {
  if (!text) return '—';
  return weekday.format(new Date(text.slice(0, 10) + 'T00:00:00Z'));
}

/** Whether an instant is a daily stamp (midnight UTC of a session date) rather than a time of day. */
export function isDailyStamp(text) { return /T00:00:00(\.0+)?Z$/.test(text ?? ''); }

/** An instant in the exchange's zone → "Mon, Nov 23, 9:30 AM ET"; a daily stamp → its date. */
export function formatMarketTime(text) {
  if (!text) return '—';
  if (isDailyStamp(text)) return formatSessionDate(text);
  return `${marketTime.format(new Date(text))} ET`;
}

/** The time of day of an instant in the exchange's zone → "10:42 AM ET". */
export function formatMarketClock(text) {
  return text ? `${marketClock.format(new Date(text))} ET` : '—';
}

/** Whether an instant falls on today's date in New York. */
export function isMarketToday(text) {
  return !!text && marketDay.format(new Date(text)) === marketDay.format(new Date());
}

/** Something the player did, in their own zone → "Nov 23, 2026, 3:30 PM". */
export function formatDateTime(text) {
  if (!text) return '—';
  if (isDailyStamp(text)) return formatDate(text);
  return localTime.format(new Date(text));
}

/** A chart's axis label: a position on a scale, not a figure from the server. */
export function formatAxisMoney(value, step) {
  if (!Number.isFinite(value)) return '';
  // Round ticks read round: whole dollars when the step between them is (a log axis passes the tick as its step).
  const digits = step == null ? (Math.abs(value) < 1 ? 4 : 2) : Number.isInteger(step) ? 0 : Math.abs(step) >= 0.01 ? 2 : 4;
  return new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}
