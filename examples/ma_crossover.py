#!/usr/bin/env python3
"""A moving-average crossover bot written against Alpaca's API with alpaca-py.

Each trading day it reads the market clock and the daily bars of its symbols up to that clock,
then for each symbol:
- buys, in whole shares and with an equal share of the buying power left, when the fast simple
  moving average crosses above the slow one and nothing is held;
- closes the position when the fast average crosses below the slow one.

Against Bullpen, the key belongs to a replay portfolio: the clock is the replay's date and a
market order fills at that day's close. Between days the bot moves the replay on one trading day
with `POST /alpaca/bullpen/advance`, which is Bullpen's own call and works for replays only.

Against Alpaca's paper trading the same code runs with `--server https://paper-api.alpaca.markets`
and `--days 1` (the advance is only made between days, so a one-day run never calls it): run it
once each trading day, for instance from cron shortly before the close.

At the end it prints one line per trade (date, symbol, side, quantity, fill price) and the final
equity. Nothing in the output depends on the wall clock, so two runs on the same replay agree.

    python3 examples/ma_crossover.py --server http://127.0.0.1:8080 --key BK... --secret ... \\
        --symbols AAPL,MSFT --days 252 --fast 20 --slow 50
"""
import argparse
import os
from datetime import timedelta
from decimal import ROUND_DOWN, Decimal

import requests
from alpaca.data.enums import DataFeed
from alpaca.data.historical import StockHistoricalDataClient
from alpaca.data.requests import StockBarsRequest
from alpaca.data.timeframe import TimeFrame
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import OrderSide, TimeInForce
from alpaca.trading.requests import MarketOrderRequest


def average(closes):
    return sum(closes) / len(closes)


def crossing(closes, fast, slow):
    """"up" when the fast average crossed above the slow one on the last bar, "down" when it
    crossed below, None otherwise (or with too little history)."""
    if len(closes) < slow + 1:
        return None
    before = average(closes[-fast - 1:-1]) - average(closes[-slow - 1:-1])
    now = average(closes[-fast:]) - average(closes[-slow:])
    if before <= 0 < now:
        return "up"
    if before >= 0 > now:
        return "down"
    return None


def daily_closes(data, symbols, clock, slow):
    """Each symbol's daily closes up to the clock, enough of them for the slow average and a day more."""
    # IEX: the feed Alpaca's free plan may read up to the minute (Bullpen has one feed and takes any).
    request = StockBarsRequest(symbol_or_symbols=symbols, timeframe=TimeFrame.Day, feed=DataFeed.IEX,
                               start=clock.timestamp - timedelta(days=2 * slow + 30), end=clock.timestamp)
    bars = data.get_stock_bars(request).data
    return {symbol: [Decimal(str(bar.close)) for bar in bars.get(symbol, [])] for symbol in symbols}


def trade_one_day(trading, data, symbols, fast, slow):
    """The day's decisions; returns (date, order id) of each order placed."""
    clock = trading.get_clock()
    day = clock.timestamp.date().isoformat()
    closes = daily_closes(data, symbols, clock, slow)
    held = {position.symbol: int(position.qty) for position in trading.get_all_positions()}
    placed = []
    for symbol in symbols:
        signal = crossing(closes[symbol], fast, slow)
        if signal == "down" and held.get(symbol):
            placed.append((day, trading.close_position(symbol).id))
            held.pop(symbol)
        elif signal == "up" and not held.get(symbol):
            free = len([s for s in symbols if not held.get(s)])
            budget = Decimal(trading.get_account().buying_power) / free
            qty = int((budget / closes[symbol][-1]).to_integral_value(rounding=ROUND_DOWN))
            if qty > 0:
                order = trading.submit_order(MarketOrderRequest(symbol=symbol, qty=qty, side=OrderSide.BUY,
                                                                time_in_force=TimeInForce.DAY))
                placed.append((day, order.id))
                held[symbol] = qty
    return placed


def advance(server, key, secret):
    """Bullpen's own call: moves the replay on one trading day. True while there is more data."""
    response = requests.post(server.rstrip("/") + "/alpaca/bullpen/advance", json={"days": 1}, timeout=120,
                             headers={"APCA-API-KEY-ID": key, "APCA-API-SECRET-KEY": secret})
    response.raise_for_status()
    return not response.json()["end_of_data"]


def clients(server, key, secret):
    """alpaca-py's trading and data clients: Alpaca's own addresses for alpaca.markets, the
    /alpaca paths of a Bullpen server otherwise."""
    if server.rstrip("/").endswith(".alpaca.markets"):
        return TradingClient(key, secret, paper=True), StockHistoricalDataClient(key, secret)
    base = server.rstrip("/")
    return (TradingClient(key, secret, url_override=base + "/alpaca"),
            StockHistoricalDataClient(key, secret, url_override=base + "/alpaca/data"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="Bullpen's address, e.g. http://127.0.0.1:8080")
    parser.add_argument("--key", default=os.environ.get("APCA_API_KEY_ID"), help="the key's id (or APCA_API_KEY_ID)")
    parser.add_argument("--secret", default=os.environ.get("APCA_API_SECRET_KEY"), help="its secret (or APCA_API_SECRET_KEY)")
    parser.add_argument("--symbols", default="AAPL,MSFT")
    parser.add_argument("--days", type=int, default=252, help="trading days to run")
    parser.add_argument("--fast", type=int, default=20)
    parser.add_argument("--slow", type=int, default=50)
    args = parser.parse_args()
    if not args.key or not args.secret:
        parser.error("give --key and --secret (or APCA_API_KEY_ID and APCA_API_SECRET_KEY)")
    symbols = [s.strip().upper() for s in args.symbols.split(",") if s.strip()]
    trading, data = clients(args.server, args.key, args.secret)

    placed = []
    for day in range(args.days):
        placed += trade_one_day(trading, data, symbols, args.fast, args.slow)
        if day + 1 < args.days and not advance(args.server, args.key, args.secret):
            break   # the replay reached the end of its data
    for day, order_id in placed:
        order = trading.get_order_by_id(order_id)
        print(f"{day} {order.symbol} {order.side.value} {order.filled_qty} {order.filled_avg_price}")
    print(f"final equity {trading.get_account().equity}")


if __name__ == "__main__":
    main()
