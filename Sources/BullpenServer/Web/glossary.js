// Glossary terms in the app's screens. term('Bid') draws the word with a dotted underline, reachable
// with Tab; hovering it, focusing it or tapping it (Enter or Space too) shows its definition from
// GET /api/v1/learn/glossary with a link to the lesson that explains it. The note follows the term
// in the page (Tab goes on to its link) and shows at the bottom of the window; Escape, or moving
// away, hides it. Every term a screen marks must be in the glossary: the browser tests check.
import { html, render } from '/html.js';
import { api } from '/api.js';
import { liveRegion } from '/live-region.js';

let loading = null;
/** The glossary by lower-case term, asked once. */
function definitions() {
  loading ??= api('/api/v1/learn/glossary', { auth: false })
    .then((glossary) => new Map(glossary.terms.map((t) => [t.term.toLowerCase(), t])))
    .catch(() => { loading = null; return new Map(); });
  return loading;
}

/** `text` (the term itself by default) marked as the glossary's `name`. */
export function term(name, text = name) {
  return html`<span class="term" tabindex="0" role="button" aria-expanded="false" data-term="${name}">${text}</span>`;
}

let open = null;   // { node, tip }
let hideTimer = null;
/** Where the definition is said to screen readers as it opens: in the open modal sheet when the
 * term is in one. */
const say = liveRegion('term-announcer');
const announce = (text, node) => say(text, node.closest('dialog[open]') ?? document.body);
/** The term whose note Escape just closed: focus back on it does not open it again (Enter does). */
let dismissed = null;

function hide({ refocus = false } = {}) {
  clearTimeout(hideTimer);
  if (!open) return;
  const { node, tip } = open;
  open = null;
  node.setAttribute('aria-expanded', 'false');
  node.removeAttribute('aria-describedby');
  tip.remove();
  if (refocus) { dismissed = node; node.focus(); }
}

async function show(node, { again = false } = {}) {
  clearTimeout(hideTimer);
  if (open?.node === node) { if (again) announce(open.tip.textContent, node); return; }
  hide();
  const entry = (await definitions()).get(node.dataset.term.toLowerCase());
  if (!node.isConnected || open) return;
  const tip = document.createElement('span');
  tip.className = 'term-tip';
  tip.id = 'term-tip';
  tip.setAttribute('role', 'note');
  render(tip, entry
    ? html`<strong>${entry.term}</strong>: ${entry.definition} <a href="#/learn/${entry.lesson}">Lesson: ${entry.lessonTitle}</a>`
    : html`<strong>${node.dataset.term}</strong>`);
  node.after(tip);
  node.setAttribute('aria-expanded', 'true');
  node.setAttribute('aria-describedby', 'term-tip');
  open = { node, tip };
  announce(tip.textContent, node);
}

const termOf = (target) => (target instanceof Element ? target.closest('.term') : null);
const inside = (target) => open && target instanceof Node && (open.node.contains(target) || open.tip.contains(target));

// A note opens when the pointer moves onto a term, not when a term is drawn under a pointer standing
// still (a sheet opening where the click was): the browser then says "over", and may say "move" with
// the pointer where it was, which is not a move. The pointer may travel from the term to its note
// (and its link): the note waits a moment before it goes.
let pointer = null;
document.addEventListener('mousemove', (event) => {
  const moved = pointer !== null && (pointer.x !== event.screenX || pointer.y !== event.screenY);
  pointer = { x: event.screenX, y: event.screenY };
  if (!moved) return;
  const node = termOf(event.target);
  if (!node) return;
  if (open?.node === node) clearTimeout(hideTimer); else show(node);
});
document.addEventListener('mouseover', (event) => {
  if (termOf(event.target) || inside(event.target)) { clearTimeout(hideTimer); return; }
  if (open && !inside(document.activeElement)) { clearTimeout(hideTimer); hideTimer = setTimeout(() => hide(), 800); }
});
document.addEventListener('focusin', (event) => {
  const node = termOf(event.target);
  if (node !== dismissed) dismissed = null;
  // Focus opens a note for the keyboard (focus-visible), not when a sheet opened by a tap or a click
  // puts its first focusable element, a term, in focus.
  if (node && node !== dismissed && node.matches(':focus-visible')) show(node); else if (open && !inside(event.target)) hide();
});
document.addEventListener('click', (event) => {
  const node = termOf(event.target);
  if (node) show(node); else if (open && !inside(event.target)) hide();
});
document.addEventListener('keydown', (event) => {
  // Escape from the term or its note closes the note only, not the sheet the term is in.
  if (event.key === 'Escape' && open) {
    const fromNote = inside(document.activeElement);
    if (fromNote) event.preventDefault();
    hide({ refocus: fromNote });
    return;
  }
  const node = termOf(event.target);
  if (node && (event.key === 'Enter' || event.key === ' ')) { event.preventDefault(); dismissed = null; show(node, { again: true }); }
});
window.addEventListener('hashchange', () => hide());
