// Live prices from the quote stream (WebSocket /api/v1/stream), reconnecting with a growing pause.
import { currentSession } from '/session.js';

/** Calls onQuote(quote) for each new price of `symbol`; returns a function that stops. */
export function subscribeQuotes(symbol, onQuote) {
  if (!currentSession() || !('WebSocket' in window)) return () => {};
  let socket, closed = false, retry = 1000;
  const connect = () => {
    const token = encodeURIComponent(currentSession()?.access ?? '');
    socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/stream?token=${token}`);
    socket.onopen = () => { retry = 1000; socket.send(JSON.stringify({ type: 'subscribe', symbols: [symbol] })); };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === 'quote' && message.quote?.symbol === symbol) onQuote(message.quote);
    };
    socket.onclose = () => { if (!closed) setTimeout(connect, retry = Math.min(retry * 2, 30000)); };
  };
  connect();
  return () => { closed = true; socket?.close(); };
}
