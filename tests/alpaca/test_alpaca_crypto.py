"""Coins through the Alpaca-compatible API, with alpaca-py as the client: the real server on the
demo exchange (its four invented coins trade every day around the clock, ticking every 5 s). A bot
finds the coins among the assets, buys $25 of one by `notional` under its pair name (`BPC/USD`),
leaves a limit order resting below the price, reads its position by the pair with or without the
slash, closes half of it, and reads the coins' daily bars (a bar for every calendar day, weekends
included, stamped at the start of its UTC day), latest quotes and snapshots, each checked against
Bullpen's own API; the books balance."""
from datetime import datetime, timedelta, timezone
from decimal import ROUND_DOWN, Decimal

import pytest

alpaca = pytest.importorskip("alpaca")

from alpaca.data.historical import CryptoHistoricalDataClient  # noqa: E402
from alpaca.data.requests import CryptoBarsRequest, CryptoLatestQuoteRequest, CryptoSnapshotRequest  # noqa: E402
from alpaca.data.timeframe import TimeFrame  # noqa: E402
from alpaca.trading.enums import AssetClass, AssetExchange  # noqa: E402
from alpaca.trading.requests import (ClosePositionRequest, GetAssetsRequest, GetOrdersRequest,  # noqa: E402
                                     LimitOrderRequest, MarketOrderRequest)

from conftest import Player  # noqa: E402
from e2e_support import call  # noqa: E402

SATOSHI = Decimal("0.00000001")
COINS = {"BPC/USD", "EMBR/USD", "QRM/USD", "HOP/USD"}


@pytest.fixture
def bot(demo_server):
    """A player on the demo exchange's live clock with a trading key."""
    return Player(demo_server)


def crypto_client(bot):
    client = CryptoHistoricalDataClient(bot.key["keyId"], bot.key["secret"], url_override=bot.base + "/alpaca/data")
    client._retry = 0
    return client


def test_a_bot_buys_a_coin_by_notional_and_closes_half(bot):
    t = bot.trading
    coins = t.get_all_assets(GetAssetsRequest(asset_class=AssetClass.CRYPTO))
    assert {a.symbol for a in coins} == COINS, [a.symbol for a in coins]
    assert all(a.asset_class == AssetClass.CRYPTO and a.exchange == AssetExchange.CRYPTO and a.fractionable
               and a.tradable and not a.shortable for a in coins)
    stocks = t.get_all_assets(GetAssetsRequest(asset_class=AssetClass.US_EQUITY))
    assert stocks and not {a.symbol for a in stocks} & COINS
    assert t.get_asset("BPC/USD").symbol == "BPC/USD" and t.get_asset("BPCUSD").name == "Bullpen Coin"
    assert t.get_account().crypto_status.value == "ACTIVE"

    order = t.submit_order(MarketOrderRequest(symbol="BPC/USD", notional=25, side="buy", time_in_force="gtc"))
    assert order.symbol == "BPC/USD" and order.asset_class == AssetClass.CRYPTO, order
    filled = t.get_order_by_id(order.id)
    assert filled.status.value == "filled", filled
    qty, price = Decimal(filled.filled_qty), Decimal(filled.filled_avg_price)
    assert qty == (Decimal(25) / price).quantize(SATOSHI, rounding=ROUND_DOWN) and 0 < qty and qty % 1 != 0, (qty, price)

    # A limit far below the price rests (coins' orders are worked around the clock), then is cancelled.
    resting = t.submit_order(LimitOrderRequest(symbol="BPC/USD", qty=0.001, side="buy", time_in_force="gtc",
                                               limit_price=round(float(price) / 2, 2)))
    assert t.get_order_by_id(resting.id).status.value == "new"
    t.cancel_order_by_id(resting.id)
    assert t.get_order_by_id(resting.id).status.value == "canceled"

    position = t.get_open_position("BPC/USD")
    assert position.symbol == "BPC/USD" and position.asset_class == AssetClass.CRYPTO and Decimal(position.qty) == qty
    assert position.exchange == AssetExchange.CRYPTO
    assert Decimal(t.get_open_position("BPCUSD").qty) == qty
    native = bot.native("/positions")["positions"]
    assert [(p["symbol"], Decimal(str(p["quantity"]))) for p in native] == [("BPC-USD", qty)], native

    half = (qty / 2).quantize(SATOSHI, rounding=ROUND_DOWN)
    closing = t.close_position("BPC/USD", ClosePositionRequest(percentage="50"))
    assert Decimal(closing.qty) == half and closing.side.value == "sell", closing
    assert t.get_order_by_id(closing.id).status.value == "filled"
    assert Decimal(t.get_open_position("BPC/USD").qty) == qty - half
    # Alpaca's older form without the slash names the same pair.
    older = t.submit_order(MarketOrderRequest(symbol="HOPUSD", qty=1.5, side="buy", time_in_force="gtc"))
    assert older.symbol == "HOP/USD" and Decimal(t.get_open_position("HOP/USD").qty) == Decimal("1.5"), older
    assert len(t.get_orders(GetOrdersRequest(status="all"))) == 4
    assert bot.books() == []


def test_coins_daily_bars_quotes_and_snapshots(bot):
    client = crypto_client(bot)
    start = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=10)
    bars = client.get_crypto_bars(CryptoBarsRequest(symbol_or_symbols=["BPC/USD", "HOP/USD", "AAPL"], timeframe=TimeFrame.Day,
                                                    start=start))
    assert set(bars.data) == {"BPC/USD", "HOP/USD"}, list(bars.data)
    days = [b.timestamp for b in bars["BPC/USD"]]
    # One bar for every calendar day since the start (weekends too), each at 00:00 UTC; today's is under way.
    assert days == [start + timedelta(days=n) for n in range(len(days))] and len(days) in (10, 11), days
    status, native = call(bot.base, "GET", "/api/v1/assets/BPC-USD/bars?range=1M&interval=1d", bot.token)
    assert status == 200, native
    closes = {b["date"]: Decimal(b["close"]) for b in native["bars"]}
    for bar in bars["BPC/USD"][:-1]:   # settled days: the native API's closes, to the cent
        assert Decimal(str(bar.close)) == closes[bar.timestamp.date().isoformat()], bar

    quotes = client.get_crypto_latest_quote(CryptoLatestQuoteRequest(symbol_or_symbols=["EMBR/USD", "QRMUSD"]))
    assert set(quotes) == {"EMBR/USD", "QRM/USD"}, quotes
    quote = quotes["EMBR/USD"]
    assert quote.ask_price == quote.bid_price > 0
    snapshots = client.get_crypto_snapshot(CryptoSnapshotRequest(symbol_or_symbols=["EMBR/USD", "QRM/USD"]))
    assert set(snapshots) == {"EMBR/USD", "QRM/USD"}
    daily = snapshots["QRM/USD"].daily_bar
    assert daily.timestamp.hour == 0 and daily.timestamp.tzinfo is not None and daily.close > 0
    assert snapshots["QRM/USD"].previous_daily_bar.timestamp == daily.timestamp - timedelta(days=1)
    status, error = call(bot.base, "GET", "/alpaca/data/v1beta3/crypto/mars/latest/quotes?symbols=BPC/USD", headers=bot.headers())
    assert status in (400, 422) and error["bullpen_code"] == "validation_failed", (status, error)
