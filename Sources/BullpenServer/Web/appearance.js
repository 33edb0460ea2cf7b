// Theme (light, dark, or the device's) and palette (standard or colour-blind), kept per device.
const media = matchMedia('(prefers-color-scheme: dark)');

export function theme() { return localStorage.getItem('bullpen.theme') || 'system'; }
export function palette() { return localStorage.getItem('bullpen.palette') || 'standard'; }

export function setTheme(value) { localStorage.setItem('bullpen.theme', value); applyAppearance(); }
export function setPalette(value) { localStorage.setItem('bullpen.palette', value); applyAppearance(); }

export function applyAppearance() {
  const chosen = theme();
  document.documentElement.dataset.theme = chosen === 'system' ? (media.matches ? 'dark' : 'light') : chosen;
  document.documentElement.dataset.palette = palette();
}

/** Applies the saved choice now and follows the device's scheme when the choice is "system". */
export function startAppearance() {
  media.addEventListener('change', applyAppearance);
  applyAppearance();
}
