// Escape by default: every value put into an `html` template is escaped (text and quoted
// attributes alike), except the result of another `html` template, or of `unsafeHTML`, which
// says on purpose that a string is already markup. Always quote attribute values.

/** Markup known to be safe: built by `html` from escaped values, or declared with `unsafeHTML`. */
class SafeHTML {
  #markup;
  constructor(markup) { this.#markup = markup; }
  toString() { return this.#markup; }
}

const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeText(text) { return text.replace(/[&<>"']/g, (c) => ENTITIES[c]); }

/** One interpolated value as markup: null, undefined and false vanish; arrays are joined. */
function piece(value) {
  if (value instanceof SafeHTML) return value.toString();
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value == null || value === false) return '';
  return escapeText(String(value));
}

/**
 * The tag: html`<p class="${tone}">${name}</p>` escapes `tone` and `name`; nested templates and
 * arrays of them go in as they are.
 */
export function html(strings, ...values) {
  let markup = strings[0];
  values.forEach((value, index) => { markup += piece(value) + strings[index + 1]; });
  return new SafeHTML(markup);
}

/** Raw markup, unescaped. Only for strings that never hold anything a player or the API chose. */
export function unsafeHTML(markup) { return new SafeHTML(String(markup)); }

/** Replaces the contents of `node` with a template's result (a plain string is shown as text). */
export function render(node, template) {
  node.innerHTML = piece(template);
}
