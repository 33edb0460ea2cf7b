// A short message at the bottom of the screen, read out by screen readers (role="status").
const node = document.getElementById('toast');
let timer;

export function toast(message) {
  node.textContent = message;
  node.classList.add('show');
  clearTimeout(timer);
  timer = setTimeout(() => node.classList.remove('show'), 3500);
}
