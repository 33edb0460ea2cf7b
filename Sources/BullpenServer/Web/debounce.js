/** Calls `fn` once the calls have stopped for `ms` milliseconds; `.now()` cancels and calls at once. */
export function debounce(fn, ms) {
  let timer;
  const debounced = (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
  debounced.cancel = () => clearTimeout(timer);
  return debounced;
}
