// A figure on a card of its own (the portfolio's summary, a report, a league member's): its label,
// the figure, and an optional line under it.
import { html } from '/html.js';

/**
 * `id` names the figure; `className` tones it (up, down); `note` is the line under it, muted
 * unless `noteClass` says otherwise (a percent toned like its figure), found by `noteId`.
 */
export function statCard(label, id, value, { className = '', note = null, noteId = null, noteClass = 'muted' } = {}) {
  return html`<div class="card stat"><div class="label">${label}</div>
    <div class="value ${className}" id="${id}">${value}</div>
    ${note == null ? '' : html`<div class="small ${noteClass}" ${noteId ? html`id="${noteId}"` : ''}>${note}</div>`}</div>`;
}
