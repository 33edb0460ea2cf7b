"""Bullpen's Alpaca-compatible API, with alpaca-py as the client: the real server on SQLite with the
real data pack. Every price is checked against the pack's own files, every amount against the
native API, and the books (cash and positions against what the orders moved) after money moves.

Unless a test says otherwise, a player's replay stands on 2015-03-02 (D below): market orders
fill at D's close, and working orders are filled or expired by the bar of the next session (D+1)
when the replay advances, by the documented conservative rules (the open first; a limit fills at
the limit, or at the open when the bar opens through it; a stop at the stop, or at the open when
the bar gaps through it)."""
import json
import math
import urllib.parse
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo

import pytest

alpaca = pytest.importorskip("alpaca")

from alpaca.common.exceptions import APIError  # noqa: E402
from alpaca.data.enums import Adjustment  # noqa: E402
from alpaca.data.historical import CryptoHistoricalDataClient  # noqa: E402
from alpaca.data.requests import (CryptoBarsRequest, CryptoLatestOrderbookRequest, StockBarsRequest,  # noqa: E402
                                  StockLatestBarRequest,
                                  StockLatestQuoteRequest, StockLatestTradeRequest, StockQuotesRequest,
                                  StockSnapshotRequest, StockTradesRequest)
from alpaca.data.timeframe import TimeFrame  # noqa: E402
from alpaca.trading.enums import OrderSide, QueryOrderStatus  # noqa: E402
from alpaca.trading.models import NonTradeActivity, TradeActivity  # noqa: E402
from alpaca.trading.requests import (ClosePositionRequest, CreateWatchlistRequest, GetAssetsRequest,  # noqa: E402
                                     GetCalendarRequest, GetOptionContractsRequest, GetOrdersRequest,
                                     GetPortfolioHistoryRequest, LimitOrderRequest, MarketOrderRequest,
                                     ReplaceOrderRequest, StopLimitOrderRequest, StopOrderRequest,
                                     TrailingStopOrderRequest, UpdateWatchlistRequest)

from conftest import STARTING_CASH, Player  # noqa: E402
from e2e_support import call  # noqa: E402

D = "2015-03-02"
NEW_YORK = ZoneInfo("America/New_York")
CENT = Decimal("0.01")


# MARK: Helpers


def money(quantity, price):
    """What `quantity` shares at `price` cost, in cents (half away from zero, as the server rounds)."""
    return (Decimal(quantity) * price).quantize(CENT, rounding=ROUND_HALF_UP)


def cent_between(low, high):
    """A whole-cent price strictly between `low` and `high` (the pack's bars leave room for one)."""
    price = ((low + high) / 2).quantize(CENT, rounding=ROUND_HALF_UP)
    assert low < price < high, f"no whole cent between {low} and {high}"
    return price


def ny_date(instant):
    return instant.astimezone(NEW_YORK).date().isoformat()


def market(symbol, qty, side="buy", tif="day", **fields):
    return MarketOrderRequest(symbol=symbol, qty=qty, side=side, time_in_force=tif, **fields)


def limit(symbol, qty, side, price, tif="gtc"):
    return LimitOrderRequest(symbol=symbol, qty=qty, side=side, time_in_force=tif, limit_price=float(price))


def status_of(player, order):
    return player.trading.get_order_by_id(order.id).status.value


def fill_prices(player):
    """Each order's fills as the activities report them: {order id: [(qty, price), ...]}."""
    fills = {}
    for item in player.trading.get("/account/activities", {"activity_types": "FILL"}):
        fills.setdefault(item["order_id"], []).append((int(item["qty"]), Decimal(item["price"])))
    return fills


def filled_at(player, order):
    """The one price `order` filled at (from its fill activity)."""
    fills = fill_prices(player)[str(order.id)]
    assert len({price for _, price in fills}) == 1, fills
    return fills[0][1]


def refused(attempt, status, code=None, bullpen_code=None):
    """Runs `attempt`, which must raise alpaca-py's APIError with this status (and codes); the error."""
    with pytest.raises(APIError) as caught:
        attempt()
    error = caught.value
    assert error.status_code == status, str(error)
    if code is not None:
        assert error.code == code, str(error)
    if bullpen_code is not None:
        assert json.loads(str(error))["bullpen_code"] == bullpen_code, str(error)
    return error


# MARK: Account


def test_the_account_is_the_native_portfolio_to_the_cent(player, pack):
    player.trading.submit_order(market("AAPL", 10))
    player.trading.submit_order(limit("MSFT", 7, "buy", Decimal("20.00")))   # working: holds cash back
    account, native = player.trading.get_account(), player.native()
    assert str(account.id) == player.portfolio and account.status.value == "ACTIVE" and account.currency == "USD"
    assert Decimal(account.cash) == Decimal(native["cash"]) == Decimal(STARTING_CASH) - money(10, pack.bar("AAPL", D)["close"])
    assert Decimal(account.buying_power) == Decimal(native["availableCash"]) == Decimal(native["cash"]) - money(7, Decimal("20.00"))
    assert Decimal(account.equity) == Decimal(account.portfolio_value) == Decimal(native["equity"])
    assert Decimal(account.long_market_value) == Decimal(native["marketValue"])
    assert Decimal(account.short_market_value) == 0 and account.shorting_enabled is False
    player.advance(days=1)
    account, native = player.trading.get_account(), player.native()
    assert Decimal(account.equity) == Decimal(native["equity"]) == money(10, pack.after("AAPL", D)["close"]) + Decimal(native["cash"])
    assert Decimal(account.last_equity) == Decimal(native["equity"]) - Decimal(native["dayChange"])
    assert player.books() == []


# MARK: Orders of every type and time in force


@pytest.mark.parametrize("tif", ["day", "gtc", "ioc", "fok"])
def test_a_market_order_fills_at_once_at_the_replay_days_close(player, pack, tif):
    close = pack.bar("AAPL", D)["close"]
    order = player.trading.submit_order(market("AAPL", 10, tif=tif, client_order_id="m-" + tif))
    assert order.status.value == "filled" and order.filled_qty == "10" and order.time_in_force.value == tif
    assert Decimal(order.filled_avg_price) == close and order.client_order_id == "m-" + tif
    assert Decimal(player.trading.get_account().cash) == Decimal(STARTING_CASH) - money(10, close)
    assert player.books() == []


def test_opg_and_cls_market_orders_fill_at_the_next_sessions_open_and_close(player, pack):
    following = pack.after("AAPL", D)
    at_open = player.trading.submit_order(market("AAPL", 10, tif="opg"))
    at_close = player.trading.submit_order(market("AAPL", 5, tif="cls"))
    assert at_open.status.value == at_close.status.value == "new"
    assert player.trading.get_all_positions() == []
    player.advance(days=1)
    assert status_of(player, at_open) == status_of(player, at_close) == "filled"
    assert filled_at(player, at_open) == following["open"] and filled_at(player, at_close) == following["close"]
    assert Decimal(player.trading.get_account().cash) == Decimal(STARTING_CASH) - money(10, following["open"]) - money(5, following["close"])
    assert player.books() == []


def test_a_limit_buy_waits_and_fills_at_its_limit_on_the_bar_that_reaches_it(player, pack):
    following = pack.after("AAPL", D)
    price = cent_between(following["low"], min(following["open"], pack.bar("AAPL", D)["close"]))
    order = player.trading.submit_order(limit("AAPL", 10, "buy", price, tif="gtc"))
    assert order.status.value == "new" and Decimal(order.limit_price) == price and order.expires_at is not None
    player.advance(days=1)
    done = player.trading.get_order_by_id(order.id)
    assert done.status.value == "filled" and done.filled_qty == "10" and filled_at(player, order) == price
    assert Decimal(player.trading.get_account().cash) == Decimal(STARTING_CASH) - money(10, price)
    assert player.books() == []


def test_a_limit_buy_the_next_bar_opens_through_fills_at_the_open(player, pack):
    close, following = pack.bar("AAPL", D)["close"], pack.after("AAPL", D)
    price = cent_between(following["open"], close)   # not reached now, beaten by the next open
    order = player.trading.submit_order(limit("AAPL", 10, "buy", price, tif="day"))
    assert order.status.value == "new"
    player.advance(days=1)
    assert status_of(player, order) == "filled" and filled_at(player, order) == following["open"]
    assert player.books() == []


def test_a_day_limit_the_next_bar_does_not_reach_expires_and_a_gtc_one_keeps_working(player, pack):
    price = (pack.after("AAPL", D)["low"] - Decimal("0.50")).quantize(CENT)
    day = player.trading.submit_order(limit("AAPL", 10, "buy", price, tif="day"))
    gtc = player.trading.submit_order(limit("AAPL", 10, "buy", price, tif="gtc"))
    assert day.status.value == gtc.status.value == "new"
    player.advance(days=1)
    expired = player.trading.get_order_by_id(day.id)
    assert expired.status.value == "expired" and expired.expired_at is not None and expired.filled_qty == "0"
    assert status_of(player, gtc) == "new"
    assert Decimal(player.trading.get_account().cash) == Decimal(STARTING_CASH)
    assert player.books() == []


@pytest.mark.parametrize("tif", ["ioc", "fok"])
def test_an_ioc_or_fok_limit_fills_at_once_at_the_close_or_is_cancelled(player, pack, tif):
    close = pack.bar("AAPL", D)["close"]
    reached = player.trading.submit_order(limit("AAPL", 10, "buy", close + 1, tif=tif))
    missed = player.trading.submit_order(limit("AAPL", 10, "buy", close - 1, tif=tif))
    assert reached.status.value == "filled" and filled_at(player, reached) == close
    assert missed.status.value == "canceled" and missed.filled_qty == "0"
    assert player.trading.get_orders() == []   # nothing left working
    assert player.books() == []


def test_opg_and_cls_limits_fill_at_the_auction_price_within_their_limit_or_expire(player, pack):
    following = pack.after("AAPL", D)
    at_open = player.trading.submit_order(limit("AAPL", 10, "buy", following["open"] + 1, tif="opg"))
    at_close = player.trading.submit_order(limit("AAPL", 10, "buy", following["close"] - 1, tif="cls"))
    assert at_open.status.value == at_close.status.value == "new"
    player.advance(days=1)
    assert status_of(player, at_open) == "filled" and filled_at(player, at_open) == following["open"]
    assert status_of(player, at_close) == "expired"
    assert player.books() == []


def test_sell_stops_fill_at_the_stop_or_at_the_open_of_a_gap(player, pack):
    close, following = pack.bar("AAPL", D)["close"], pack.after("AAPL", D)
    player.trading.submit_order(market("AAPL", 10))
    reached_stop = cent_between(following["low"], min(following["open"], close))
    gapped_stop = cent_between(following["open"], close)   # the next bar opens below it
    reached = player.trading.submit_order(StopOrderRequest(symbol="AAPL", qty=5, side="sell", time_in_force="day",
                                                           stop_price=float(reached_stop)))
    gapped = player.trading.submit_order(StopOrderRequest(symbol="AAPL", qty=5, side="sell", time_in_force="gtc",
                                                          stop_price=float(gapped_stop)))
    assert reached.status.value == gapped.status.value == "new" and Decimal(reached.stop_price) == reached_stop
    assert player.trading.get_open_position("AAPL").qty_available == "0"   # both sells hold the shares
    player.advance(days=1)
    assert status_of(player, reached) == "filled" and filled_at(player, reached) == reached_stop
    assert status_of(player, gapped) == "filled" and filled_at(player, gapped) == following["open"]
    assert player.trading.get_all_positions() == []
    assert player.books() == []


def test_a_buy_stop_above_the_next_bars_high_keeps_working(player, pack):
    stop = (pack.after("AAPL", D)["high"] + 1).quantize(CENT)
    order = player.trading.submit_order(StopOrderRequest(symbol="AAPL", qty=10, side="buy", time_in_force="gtc",
                                                         stop_price=float(stop)))
    assert order.status.value == "new"
    player.advance(days=1)
    assert status_of(player, order) == "new"
    assert player.trading.get_all_positions() == []


def test_a_stop_limit_fills_when_its_trigger_is_within_the_limit_and_expires_when_not(player, pack):
    close, following = pack.bar("AAPL", D)["close"], pack.after("AAPL", D)
    player.trading.submit_order(market("AAPL", 10))
    stop = cent_between(following["low"], min(following["open"], close))

    def stop_limit(limit_price):
        return player.trading.submit_order(StopLimitOrderRequest(symbol="AAPL", qty=5, side="sell", time_in_force="day",
                                                                 stop_price=float(stop), limit_price=float(limit_price)))

    within = stop_limit(stop - Decimal("0.05"))
    beyond = stop_limit(stop + CENT)   # triggered at the stop, which is below its limit: no fill that session
    assert within.status.value == beyond.status.value == "new"
    player.advance(days=1)
    assert status_of(player, within) == "filled" and filled_at(player, within) == stop
    assert status_of(player, beyond) == "expired"
    assert player.trading.get_open_position("AAPL").qty == "5"
    assert player.books() == []


def trailing_fill(mark, offset, bar):
    """Where a sell trailing stop marked at `mark` fills on `bar` (`offset(mark)`: its trail below a
    mark): the open when the bar opens at or below the stop; else, its mark raised to the open, the
    stop when the low reaches it; None when the bar does not reach it."""
    if bar["open"] <= mark - offset(mark):
        return bar["open"]
    mark = max(mark, bar["open"])
    return mark - offset(mark) if bar["low"] <= mark - offset(mark) else None


@pytest.mark.parametrize("kind", ["trail_price", "trail_percent"])
def test_a_sell_trailing_stop_fills_at_its_trail_below_the_high_water_mark(player, pack, kind):
    close, following = pack.bar("AAPL", D)["close"], pack.after("AAPL", D)
    # A trail that puts the stop inside the next bar's range, below its open.
    trail = (max(close, following["open"]) - cent_between(following["low"], following["open"])).quantize(CENT)
    if kind == "trail_price":
        shown, offset = trail, lambda mark: trail
        request = TrailingStopOrderRequest(symbol="AAPL", qty=10, side="sell", time_in_force="gtc", trail_price=float(trail))
    else:
        shown = (trail / close * 100).quantize(CENT)
        offset = lambda mark: (mark * shown / 100).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)  # noqa: E731
        request = TrailingStopOrderRequest(symbol="AAPL", qty=10, side="sell", time_in_force="gtc", trail_percent=float(shown))
    expected = trailing_fill(close, offset, following)
    assert expected is not None and expected < following["open"]
    player.trading.submit_order(market("AAPL", 10))
    order = player.trading.submit_order(request)
    assert order.status.value == "new" and Decimal(order.hwm) == close
    assert Decimal(order.trail_price or order.trail_percent) == shown
    player.advance(days=1)
    assert status_of(player, order) == "filled" and filled_at(player, order) == expected
    assert player.books() == []


def test_trailing_stops_not_reached_move_their_mark_with_the_bar(player, pack):
    close, following = pack.bar("AAPL", D)["close"], pack.after("AAPL", D)
    player.trading.submit_order(market("AAPL", 10))
    sell = player.trading.submit_order(TrailingStopOrderRequest(symbol="AAPL", qty=10, side="sell", time_in_force="gtc",
                                                                trail_price=5.0))
    buy = player.trading.submit_order(TrailingStopOrderRequest(symbol="AAPL", qty=10, side="buy", time_in_force="gtc",
                                                               trail_percent=20.0))
    assert Decimal(sell.hwm) == Decimal(buy.hwm) == close
    player.advance(days=1)
    sell, buy = player.trading.get_order_by_id(sell.id), player.trading.get_order_by_id(buy.id)
    assert sell.status.value == buy.status.value == "new"
    assert Decimal(sell.hwm) == max(close, following["high"]) and Decimal(buy.hwm) == min(close, following["low"])


def test_only_market_and_limit_orders_may_wait_for_an_auction(player):
    request = StopOrderRequest(symbol="AAPL", qty=1, side="buy", time_in_force="opg", stop_price=40.0)
    refused(lambda: player.trading.submit_order(request), 422, 40010001)


def test_a_working_orders_filled_avg_price_is_the_price_it_filled_at(player, pack):
    close, following = pack.bar("AAPL", D)["close"], pack.after("AAPL", D)
    at_once = player.trading.submit_order(limit("AAPL", 1, "buy", close + 1, tif="fok"))
    at_open = player.trading.submit_order(market("AAPL", 1, tif="opg"))
    player.advance(days=1)
    assert filled_at(player, at_once) == close and filled_at(player, at_open) == following["open"]
    assert Decimal(player.trading.get_order_by_id(at_open.id).filled_avg_price) == following["open"]
    assert Decimal(at_once.filled_avg_price) == close


# MARK: Finding, replacing and cancelling orders


def test_get_orders_filters_by_status_limit_direction_side_and_symbols(player):
    t = player.trading
    bought = t.submit_order(market("AAPL", 10, client_order_id="bought"))
    msft = t.submit_order(limit("MSFT", 5, "buy", Decimal("20.00")))
    sold = t.submit_order(market("AAPL", 4, side="sell"))
    ko = t.submit_order(limit("KO", 3, "buy", Decimal("20.00")))
    dropped = t.submit_order(limit("MSFT", 2, "buy", Decimal("20.00")))
    t.cancel_order_by_id(dropped.id)
    newest_first = [dropped.id, ko.id, sold.id, msft.id, bought.id]

    def ids(**filters):
        return [o.id for o in t.get_orders(GetOrdersRequest(**filters))]

    assert [o.id for o in t.get_orders()] == [ko.id, msft.id]   # open by default
    assert ids(status=QueryOrderStatus.OPEN) == [ko.id, msft.id]
    assert ids(status=QueryOrderStatus.CLOSED) == [dropped.id, sold.id, bought.id]
    assert ids(status=QueryOrderStatus.ALL) == newest_first
    assert ids(status=QueryOrderStatus.ALL, limit=2) == newest_first[:2]
    assert ids(status=QueryOrderStatus.ALL, direction="asc") == newest_first[::-1]
    assert ids(status=QueryOrderStatus.ALL, direction="asc", limit=2) == newest_first[::-1][:2]
    assert ids(status=QueryOrderStatus.ALL, side=OrderSide.SELL) == [sold.id]
    assert ids(status=QueryOrderStatus.ALL, symbols=["MSFT"]) == [dropped.id, msft.id]
    assert ids(status=QueryOrderStatus.OPEN, symbols=["MSFT", "KO"], side=OrderSide.BUY) == [ko.id, msft.id]
    assert ids(status=QueryOrderStatus.ALL, until=bought.created_at - timedelta(seconds=1)) == []
    assert ids(status=QueryOrderStatus.ALL, after=bought.created_at - timedelta(seconds=1)) == newest_first
    assert player.books() == []


def test_an_order_is_found_by_id_and_by_client_order_id(player):
    placed = player.trading.submit_order(limit("AAPL", 3, "buy", Decimal("20.00"), tif="gtc"))
    named = player.trading.submit_order(market("AAPL", 2, client_order_id="my-bot-1"))
    assert player.trading.get_order_by_id(placed.id) == placed
    assert placed.client_order_id == str(placed.id)   # none given: the id
    found = player.trading.get_order_by_client_id("my-bot-1")
    assert found.id == named.id and found.status.value == "filled" and found.qty == "2"
    refused(lambda: player.trading.get_order_by_client_id("nobody"), 404, 40410000)


def test_replacing_an_order_links_the_old_and_the_new(player):
    old = player.trading.submit_order(limit("MSFT", 3, "buy", Decimal("30.00"), tif="gtc"))
    new = player.trading.replace_order_by_id(old.id, ReplaceOrderRequest(qty=5, limit_price=31.0))
    assert new.id != old.id and new.status.value == "new" and str(new.replaces) == str(old.id)
    assert new.qty == "5" and Decimal(new.limit_price) == Decimal("31.00") and new.time_in_force.value == "gtc"
    replaced = player.trading.get_order_by_id(old.id)
    assert replaced.status.value == "replaced" and str(replaced.replaced_by) == str(new.id) and replaced.replaced_at
    assert [o.id for o in player.trading.get_orders()] == [new.id]
    assert Decimal(player.trading.get_account().buying_power) == Decimal(STARTING_CASH) - money(5, Decimal("31.00"))
    refused(lambda: player.trading.replace_order_by_id(old.id, ReplaceOrderRequest(qty=4)), 422, 42210000, "order_not_open")


def test_a_cancelled_order_cannot_be_cancelled_again(player):
    order = player.trading.submit_order(limit("AAPL", 3, "buy", Decimal("20.00"), tif="gtc"))
    assert player.trading.cancel_order_by_id(order.id) is None
    cancelled = player.trading.get_order_by_id(order.id)
    assert cancelled.status.value == "canceled" and cancelled.canceled_at is not None
    refused(lambda: player.trading.cancel_order_by_id(order.id), 422, 42210000, "order_not_open")
    filled = player.trading.submit_order(market("AAPL", 1))
    refused(lambda: player.trading.cancel_order_by_id(filled.id), 422, 42210000, "order_not_open")
    assert Decimal(player.trading.get_account().buying_power) == Decimal(player.native()["cash"])


def test_cancel_orders_cancels_every_working_order(player):
    player.trading.submit_order(market("AAPL", 10))
    working = {player.trading.submit_order(limit("MSFT", 3, "buy", Decimal("20.00"))).id,
               player.trading.submit_order(limit("AAPL", 4, "sell", Decimal("90.00"))).id}
    results = player.trading.cancel_orders()
    assert {r.id for r in results} == working and {r.status for r in results} == {200}
    assert player.trading.get_orders() == []
    assert {o.status.value for o in player.trading.get_orders(GetOrdersRequest(status="closed"))} == {"canceled", "filled"}
    assert player.trading.cancel_orders() == []
    assert player.books() == []


# MARK: Positions


def test_positions_are_the_native_positions(player, pack):
    player.trading.submit_order(market("AAPL", 10))
    player.trading.submit_order(market("MSFT", 5))
    player.trading.submit_order(limit("AAPL", 4, "sell", Decimal("90.00")))
    native = {p["symbol"]: p for p in player.native("/positions")["positions"]}
    positions = {p.symbol: p for p in player.trading.get_all_positions()}
    assert set(positions) == set(native) == {"AAPL", "MSFT"}
    for symbol, position in positions.items():
        mine = native[symbol]
        assert position.qty == str(mine["quantity"]) and position.side.value == "long"
        assert position.asset_class.value == "us_equity" and position.asset_id == player.trading.get_asset(symbol).id
        assert Decimal(position.current_price) == Decimal(mine["lastPrice"]) == pack.bar(symbol, D)["close"]
        assert Decimal(position.lastday_price) == pack.after(symbol, D, -1)["close"]
        assert Decimal(position.market_value) == Decimal(mine["marketValue"])
        assert Decimal(position.cost_basis) == Decimal(mine["costBasis"])
        assert Decimal(position.avg_entry_price) == Decimal(mine["averageCost"])
        assert Decimal(position.unrealized_pl) == Decimal(mine["unrealizedPnl"])
    assert positions["AAPL"].qty_available == "6" and positions["MSFT"].qty_available == "5"   # 4 held by the sell
    assert player.trading.get_open_position("AAPL") == positions["AAPL"]
    assert player.trading.get_open_position(str(positions["MSFT"].asset_id)) == positions["MSFT"]
    refused(lambda: player.trading.get_open_position("KO"), 404, 40410000)


def test_a_positions_avg_entry_price_is_its_cost_basis_over_its_shares(player, pack):
    """Bullpen's average cost is the cash paid (each fill rounded to the cent) over the shares, as
    the app shows it: buying 10 at 28.7277 costs 287.28, 28.728 a share."""
    player.trading.submit_order(market("AAPL", 10))
    position = player.trading.get_open_position("AAPL")
    assert Decimal(position.cost_basis) == money(10, pack.bar("AAPL", D)["close"])
    assert Decimal(position.avg_entry_price) == (Decimal(position.cost_basis) / 10).quantize(Decimal("0.0001"))


def test_close_position_sells_a_quantity_a_percentage_or_all(player, pack):
    close = pack.bar("AAPL", D)["close"]
    player.trading.submit_order(market("AAPL", 10))
    by_qty = player.trading.close_position("AAPL", ClosePositionRequest(qty="3"))
    assert by_qty.side.value == "sell" and by_qty.qty == "3" and by_qty.status.value == "filled"
    assert Decimal(by_qty.filled_avg_price) == close
    by_percent = player.trading.close_position("AAPL", ClosePositionRequest(percentage="50"))
    assert by_percent.qty == "3" and by_percent.status.value == "filled"   # half of 7, rounded down to whole shares
    assert player.trading.get_open_position("AAPL").qty == "4"
    refused(lambda: player.trading.close_position("AAPL", ClosePositionRequest(qty="5")), 403, 40310000)
    rest = player.trading.close_position("AAPL")
    assert rest.qty == "4" and rest.status.value == "filled"
    refused(lambda: player.trading.get_open_position("AAPL"), 404, 40410000)
    sold = money(3, close) + money(3, close) + money(4, close)   # each fill rounded to the cent
    assert Decimal(player.trading.get_account().cash) == Decimal(STARTING_CASH) - money(10, close) + sold
    assert player.books() == []


def test_close_all_positions_cancels_the_working_orders_first(player, pack):
    player.trading.submit_order(market("AAPL", 10))
    player.trading.submit_order(market("MSFT", 5))
    sell = player.trading.submit_order(limit("AAPL", 4, "sell", Decimal("90.00")))
    buy = player.trading.submit_order(limit("KO", 3, "buy", Decimal("20.00")))
    results = player.trading.close_all_positions(cancel_orders=True)
    assert {r.symbol: (r.status, r.body.qty, r.body.side.value) for r in results} == {"AAPL": (200, "10", "sell"),
                                                                                      "MSFT": (200, "5", "sell")}
    assert all(r.body.status.value == "filled" and r.order_id == r.body.id for r in results)
    assert status_of(player, sell) == status_of(player, buy) == "canceled"
    assert player.trading.get_all_positions() == [] and player.trading.get_orders() == []
    assert Decimal(player.trading.get_account().cash) == Decimal(STARTING_CASH)
    assert player.trading.close_all_positions(cancel_orders=True) == []
    assert player.books() == []


def test_close_all_positions_reports_each_position_it_cannot_close(player):
    player.trading.submit_order(market("AAPL", 10))
    player.trading.submit_order(market("MSFT", 5))
    player.trading.submit_order(limit("AAPL", 10, "sell", Decimal("90.00")))   # holds every AAPL share
    results = {r.symbol: r for r in player.trading.close_all_positions()}
    assert (results["MSFT"].status, results["MSFT"].body.status.value) == (200, "filled")
    assert (results["AAPL"].status, results["AAPL"].body.code, results["AAPL"].order_id) == (403, 40310000, None)
    assert [p.symbol for p in player.trading.get_all_positions()] == ["AAPL"]
    assert player.books() == []


# MARK: Clock and calendar


def test_a_replays_clock_is_its_date_a_minute_before_the_close(player, pack):
    clock = player.trading.get_clock()
    assert clock.is_open is True
    assert clock.timestamp == datetime(2015, 3, 2, 15, 59, tzinfo=NEW_YORK)
    assert clock.next_close == datetime(2015, 3, 2, 16, 0, tzinfo=NEW_YORK)
    assert clock.next_open == datetime(2015, 3, 3, 9, 30, tzinfo=NEW_YORK)
    moved = player.advance(days=1)
    assert (moved["from"], moved["to"], moved["days"], moved["end_of_data"]) == (D, pack.after("AAPL", D)["date"], 1, False)
    assert ny_date(player.trading.get_clock().timestamp) == moved["to"]
    days = pack.trading_days()
    moved = player.advance(to="2015-11-27")   # the day after Thanksgiving closes at 1 pm
    assert moved["to"] == "2015-11-27" and moved["days"] == days.index("2015-11-27") - days.index(pack.after("AAPL", D)["date"])
    assert player.trading.get_clock().timestamp == datetime(2015, 11, 27, 12, 59, tzinfo=NEW_YORK)
    assert Decimal(moved["equity"]) == Decimal(player.trading.get_account().equity)


@pytest.mark.parametrize("year", [2001, 2015])
def test_the_calendar_has_the_exchanges_trading_days(player, pack, year):
    days = player.trading.get_calendar(GetCalendarRequest(start=date(year, 1, 1), end=date(year, 12, 31)))
    expected = [d for d in pack.trading_days() if d.startswith(str(year))]
    assert [d.date.isoformat() for d in days] == expected
    assert all(d.open.time().isoformat() == "09:30:00" for d in days)
    early = {d.date.isoformat() for d in days if d.close.time().isoformat() == "13:00:00"}
    assert all(d.close.time().isoformat() in ("16:00:00", "13:00:00") for d in days)
    assert early == ({"2001-07-03", "2001-11-23", "2001-12-24"} if year == 2001 else {"2015-11-27", "2015-12-24"})


# MARK: Assets


def test_assets_are_the_companies_listed_on_the_replays_date(server, pack):
    player = Player(server, start="2005-06-01")
    # Alpaca writes class shares with a dot (the pack's BRK-B is BRK.B).
    listed = {row["symbol"].replace("-", ".") for row in pack.universe() if row["first_date"] <= "2005-06-01"}
    later = {row["symbol"].replace("-", ".") for row in pack.universe()} - listed
    assert later and "AAPL" in listed
    assets = player.trading.get_all_assets()
    assert {a.symbol for a in assets} == listed
    assert {a.symbol for a in player.trading.get_all_assets(GetAssetsRequest(asset_class="us_equity"))} == listed
    assert player.trading.get_all_assets(GetAssetsRequest(status="inactive")) == []
    for symbol in sorted(later):
        refused(lambda: player.trading.get_asset(symbol), 404, 40410000)
    quotes = player.data.get_stock_latest_quote(StockLatestQuoteRequest(symbol_or_symbols=["AAPL"] + sorted(later)))
    assert set(quotes) == {"AAPL"}
    live = Player(server)
    assert {a.symbol for a in live.trading.get_all_assets()} == {row["symbol"].replace("-", ".") for row in pack.universe()}


def test_an_asset_is_found_by_symbol_and_by_id(player, pack):
    asset = player.trading.get_asset("AAPL")
    assert player.trading.get_asset(str(asset.id)) == asset
    assert asset.symbol == "AAPL" and asset.asset_class.value == "us_equity" and asset.status.value == "active"
    assert asset.name == next(row["name"] for row in pack.universe() if row["symbol"] == "AAPL")
    assert asset.tradable is True and asset.fractionable is False   # whole shares only
    assert asset in player.trading.get_all_assets()
    refused(lambda: player.trading.get_asset("NOPE"), 404, 40410000)


def test_a_company_whose_data_ended_sells_at_its_final_close_and_cannot_be_bought(server, pack):
    ended = next(row for row in pack.universe() if row["last_date"] == "2017-11-10")
    symbol, final = ended["symbol"], pack.bar(ended["symbol"], "2017-11-10")
    player = Player(server, start="2017-11-08")
    player.trading.submit_order(market(symbol, 10))
    player.advance(to="2017-11-15")
    held = player.trading.get_open_position(symbol)
    assert held.qty == "10" and Decimal(held.current_price) == final["close"]
    refused(lambda: player.trading.submit_order(market(symbol, 1)), 422, 42210000, "not_trading")
    sold = player.trading.close_position(symbol)
    assert sold.status.value == "filled" and Decimal(sold.filled_avg_price) == final["close"]
    assert player.books() == []


def test_assets_whose_data_ended_are_not_tradable(server, pack):
    player = Player(server, start="2019-01-02")
    ended = {row["symbol"] for row in pack.universe() if row["last_date"] < "2019-01-02"}
    assets = {a.symbol: a for a in player.trading.get_all_assets()}
    assert ended and all(assets[s].tradable for s in ("AAPL", "MSFT"))
    assert [s for s in sorted(ended) if assets.get(s) and assets[s].tradable] == []
    assert player.trading.get_asset(sorted(ended)[0]).tradable is False


# MARK: Market data


def same_bars(bars, rows):
    """alpaca-py's bars are exactly the pack's rows: dates, prices and volumes."""
    assert [ny_date(b.timestamp) for b in bars] == [row["date"] for row in rows]
    for bar, row in zip(bars, rows):
        assert (Decimal(str(bar.open)), Decimal(str(bar.high)), Decimal(str(bar.low)), Decimal(str(bar.close)), int(bar.volume)) \
            == (row["open"], row["high"], row["low"], row["close"], row["volume"]), row["date"]


def test_alpaca_py_follows_the_page_tokens_through_every_bar_since_1990(server, pack):
    live = Player(server)
    pages = []
    send = live.data._session.request

    def counted(method, url, **options):
        pages.append(options.get("params", {}).get("page_token"))
        return send(method, url, **options)

    live.data._session.request = counted
    bars = live.data.get_stock_bars(StockBarsRequest(symbol_or_symbols=["AAPL", "MSFT"], timeframe=TimeFrame.Day,
                                                     start=datetime(1990, 1, 1), adjustment=Adjustment.ALL))
    total = len(pack.bars("AAPL")) + len(pack.bars("MSFT"))
    assert total > 10_000 and len(pages) == math.ceil(total / 10_000) and pages[0] is None and all(pages[1:])
    for symbol in ("AAPL", "MSFT"):
        same_bars(bars[symbol], pack.bars(symbol))


def raw_bars(player, **query):
    status, page = call(player.base, "GET", "/alpaca/data/v2/stocks/bars?" + urllib.parse.urlencode(query),
                        headers=player.headers())
    assert status == 200, (status, page)
    return page


@pytest.mark.parametrize("sort", ["asc", "desc"])
def test_pages_followed_by_hand_are_exactly_one_big_page(server, pack, sort):
    live = Player(server)
    query = dict(symbols="AAPL,MSFT", timeframe="1Day", start="2015-01-01T00:00:00Z", end="2015-12-31T23:59:59Z", sort=sort)
    whole = raw_bars(live, limit=10_000, **query)
    assert whole["next_page_token"] is None
    for symbol in ("AAPL", "MSFT"):
        dates = [row["date"] for row in pack.bars(symbol) if row["date"].startswith("2015")]
        assert [ny_date(datetime.fromisoformat(b["t"])) for b in whole["bars"][symbol]] == (dates if sort == "asc" else dates[::-1])
    total = sum(len(bars) for bars in whole["bars"].values())
    merged, token, sizes = {}, None, []
    while True:
        page = raw_bars(live, limit=97, **query, **({"page_token": token} if token else {}))
        sizes.append(sum(len(bars) for bars in page["bars"].values()))
        for symbol, bars in page["bars"].items():
            merged.setdefault(symbol, []).extend(bars)
        token = page["next_page_token"]
        if token is None:
            break
        assert token != ""
    assert merged == whole["bars"]
    assert sizes == [97] * (total // 97) + ([total % 97] if total % 97 else [])


def test_a_replay_key_never_sees_a_bar_after_the_replay_date(player, pack):
    def bars_to_2030():
        request = StockBarsRequest(symbol_or_symbols=["AAPL"], timeframe=TimeFrame.Day, start=datetime(2015, 2, 1),
                                   end=datetime(2030, 1, 1))
        return player.data.get_stock_bars(request)["AAPL"]

    rows = [row for row in pack.bars("AAPL") if "2015-02-01" <= row["date"] <= D]
    same_bars(bars_to_2030(), rows)
    player.advance(days=1)
    same_bars(bars_to_2030(), rows + [pack.after("AAPL", D)])
    weeks = player.data.get_stock_bars(StockBarsRequest(symbol_or_symbols=["AAPL"], timeframe=TimeFrame.Week,
                                                        start=datetime(2015, 2, 1), end=datetime(2030, 1, 1)))["AAPL"]
    assert Decimal(str(weeks[-1].close)) == pack.after("AAPL", D)["close"]


def test_latest_quotes_trades_bars_and_snapshots_are_the_replay_days(player, pack):
    symbols = ["AAPL", "MSFT"]
    quotes = player.data.get_stock_latest_quote(StockLatestQuoteRequest(symbol_or_symbols=symbols))
    trades = player.data.get_stock_latest_trade(StockLatestTradeRequest(symbol_or_symbols=symbols))
    latest = player.data.get_stock_latest_bar(StockLatestBarRequest(symbol_or_symbols=symbols))
    snapshots = player.data.get_stock_snapshot(StockSnapshotRequest(symbol_or_symbols=symbols))
    assert set(quotes) == set(trades) == set(latest) == set(snapshots) == set(symbols)
    for symbol in symbols:
        today, before = pack.bar(symbol, D), pack.after(symbol, D, -1)
        close = today["close"]
        quote, trade = quotes[symbol], trades[symbol]
        assert Decimal(str(quote.bid_price)) == Decimal(str(quote.ask_price)) == Decimal(str(trade.price)) == close
        assert quote.timestamp == trade.timestamp == datetime(2015, 3, 2, 16, 0, tzinfo=NEW_YORK)
        same_bars([latest[symbol]], [today])
        snapshot = snapshots[symbol]
        same_bars([snapshot.daily_bar], [today])
        same_bars([snapshot.previous_daily_bar], [before])
        assert Decimal(str(snapshot.latest_quote.ask_price)) == Decimal(str(snapshot.latest_trade.price)) == close


def weeks_of(rows):
    """The pack's rows grouped by ISO week, in order."""
    weeks = {}
    for row in rows:
        weeks.setdefault(date.fromisoformat(row["date"]).isocalendar()[:2], []).append(row)
    return list(weeks.values())


def test_weekly_bars_add_up_their_sessions(server, pack):
    live = Player(server)
    bars = live.data.get_stock_bars(StockBarsRequest(symbol_or_symbols=["AAPL"], timeframe=TimeFrame.Week,
                                                     start=datetime(2015, 1, 5), end=datetime(2015, 6, 27)))["AAPL"]
    weeks = weeks_of([row for row in pack.bars("AAPL") if "2015-01-05" <= row["date"] <= "2015-06-26"])
    assert len(bars) == len(weeks) == 25
    for bar, week in zip(bars, weeks):
        assert date.fromisoformat(ny_date(bar.timestamp)).isocalendar()[:2] == date.fromisoformat(week[0]["date"]).isocalendar()[:2]
        assert (Decimal(str(bar.open)), Decimal(str(bar.high)), Decimal(str(bar.low)), Decimal(str(bar.close)), int(bar.volume)) \
            == (week[0]["open"], max(r["high"] for r in week), min(r["low"] for r in week), week[-1]["close"],
                sum(r["volume"] for r in week)), week[0]["date"]


def test_weekly_and_monthly_bars_are_stamped_at_their_start(server, pack):
    live = Player(server)
    weeks = live.data.get_stock_bars(StockBarsRequest(symbol_or_symbols=["AAPL"], timeframe=TimeFrame.Week,
                                                      start=datetime(2020, 1, 1), end=datetime(2020, 3, 1)))["AAPL"]
    first_session = next(row for row in pack.bars("AAPL") if row["date"] >= "2020-01-01")
    assert Decimal(str(weeks[0].open)) != pack.bar("AAPL", "2019-12-30")["open"]   # no session before `start`
    for bar in weeks:
        sessions = [r for r in pack.bars("AAPL") if date.fromisoformat(r["date"]).isocalendar()[:2]
                    == bar.timestamp.astimezone(NEW_YORK).date().isocalendar()[:2]]
        assert ny_date(bar.timestamp) <= sessions[0]["date"] and Decimal(str(bar.open)) == sessions[0]["open"]
    assert ny_date(weeks[0].timestamp) >= first_session["date"]
    months = live.data.get_stock_bars(StockBarsRequest(symbol_or_symbols=["AAPL"], timeframe=TimeFrame.Month,
                                                       start=datetime(2020, 1, 1), end=datetime(2020, 6, 1)))["AAPL"]
    assert [ny_date(b.timestamp)[:7] for b in months] == ["2020-01", "2020-02", "2020-03", "2020-04", "2020-05"]
    assert all(ny_date(b.timestamp)[8:] <= "03" for b in months)


def test_minute_bars_order_books_and_options_data_are_not_supported(player):
    minutes = StockBarsRequest(symbol_or_symbols=["AAPL"], timeframe=TimeFrame.Minute, start=datetime(2015, 3, 2))
    refused(lambda: player.data.get_stock_bars(minutes), 422, bullpen_code="not_supported")
    crypto = CryptoHistoricalDataClient(player.key["keyId"], player.key["secret"], url_override=player.base + "/alpaca/data")
    crypto._retry = 0
    # The pack has no coins: a pair has no bars (as Alpaca answers for a pair it does not list).
    bars = CryptoBarsRequest(symbol_or_symbols=["BTC/USD"], timeframe=TimeFrame.Day, start=datetime(2015, 3, 2))
    assert crypto.get_crypto_bars(bars).data == {}
    books = CryptoLatestOrderbookRequest(symbol_or_symbols=["BTC/USD"])
    refused(lambda: crypto.get_crypto_latest_orderbook(books), 422, bullpen_code="not_supported")
    status, error = call(player.base, "GET", "/alpaca/data/v1beta1/options/bars?symbols=AAPL250117C00200000&timeframe=1Day",
                         headers=player.headers())
    assert status == 422 and error["bullpen_code"] == "not_supported", (status, error)


def test_routes_not_offered_say_so_whatever_their_parameters(player):
    quotes = StockQuotesRequest(symbol_or_symbols=["AAPL"], start=datetime(2015, 3, 2))
    trades = StockTradesRequest(symbol_or_symbols=["AAPL"], start=datetime(2015, 3, 2))
    contracts = GetOptionContractsRequest(underlying_symbols=["AAPL"])
    refused(lambda: player.data.get_stock_quotes(quotes), 422, bullpen_code="not_supported")
    refused(lambda: player.data.get_stock_trades(trades), 422, bullpen_code="not_supported")
    refused(lambda: player.trading.get_option_contracts(contracts), 422, bullpen_code="not_supported")


# MARK: Activities and portfolio history


def test_activities_are_the_fills_and_fees_in_alpacas_models(server, pack):
    player = Player(server, start=D, shortSelling=True)
    close, following = pack.bar("AAPL", D)["close"], pack.after("AAPL", D)
    bought = player.trading.submit_order(market("MSFT", 10))
    sold = player.trading.submit_order(market("MSFT", 4, side="sell"))
    short = player.trading.submit_order(market("AAPL", 10, side="sell"))
    at_open = player.trading.submit_order(market("KO", 2, tif="opg"))
    assert player.trading.get_open_position("AAPL").side.value == "short"
    player.advance(days=2)
    items = player.trading.get("/account/activities")
    parsed = [TradeActivity(**item) if item["activity_type"] == "FILL" else NonTradeActivity(**item) for item in items]
    fills = [a for a in parsed if isinstance(a, TradeActivity)]
    fees = [a for a in parsed if isinstance(a, NonTradeActivity)]
    assert [(str(a.order_id), a.side.value, a.symbol, int(a.qty), Decimal(str(a.price))) for a in fills] == [
        (str(at_open.id), "buy", "KO", 2, pack.after("KO", D)["open"]),
        (str(short.id), "sell", "AAPL", 10, close),
        (str(sold.id), "sell", "MSFT", 4, pack.bar("MSFT", D)["close"]),
        (str(bought.id), "buy", "MSFT", 10, pack.bar("MSFT", D)["close"])]
    assert all(a.type.value == "fill" and a.leaves_qty == 0 and a.cum_qty == a.qty and a.order_status.value == "filled"
               for a in fills)
    # The short pays a borrow fee each session it is held.
    assert sorted(a.date.isoformat() for a in fees) == [following["date"], pack.after("AAPL", D, 2)["date"]]
    assert all(a.activity_type.value == "FEE" and a.net_amount < 0 for a in fees)
    assert {str(a.account_id) for a in parsed} == {player.portfolio}
    # One at a time, through the page tokens: the same list.
    paged, token = [], None
    while True:
        page = player.trading.get("/account/activities", {"page_size": 1, **({"page_token": token} if token else {})})
        if not page:
            break
        paged += page
        token = page[-1]["id"]
    assert paged == items
    assert player.trading.get("/account/activities", {"activity_types": "FEE"}) == [i for i in items if i["activity_type"] == "FEE"]
    assert player.trading.get("/account/activities", {"direction": "asc"}) == items[::-1]
    # The books: the fills' cash and the fees (check_books knows neither shorts nor fees).
    msft = pack.bar("MSFT", D)["close"]
    cash = Decimal(STARTING_CASH) - money(10, msft) + money(4, msft) + money(10, close) - money(2, pack.after("KO", D)["open"])
    assert Decimal(player.trading.get_account().cash) == Decimal(player.native()["cash"]) \
        == cash + sum(Decimal(str(a.net_amount)) for a in fees)


def test_activities_are_filtered_by_their_own_date(server, pack):
    player = Player(server, start=D, shortSelling=True)
    player.trading.submit_order(market("AAPL", 10, side="sell"))
    player.advance(days=2)
    following = pack.after("AAPL", D)["date"]
    fees = [a for a in player.trading.get("/account/activities") if a["activity_type"] == "FEE"]
    assert [a["date"] for a in fees if a["date"] == following]
    assert player.trading.get("/account/activities", {"date": following}) == [a for a in fees if a["date"] == following]
    assert len(player.trading.get("/account/activities", {"until": following + "T00:00:00Z"})) == 1   # D's fill


def test_portfolio_history_has_a_point_a_session_and_ends_at_the_accounts_equity(player, pack):
    player.trading.submit_order(market("AAPL", 10))
    player.trading.submit_order(market("MSFT", 20))
    player.advance(days=5)
    history = player.trading.get_portfolio_history()
    days = pack.trading_days()
    sessions = days[days.index(D):days.index(D) + 6]
    assert [datetime.fromtimestamp(t, NEW_YORK) for t in history.timestamp] == \
        [datetime.fromisoformat(d).replace(tzinfo=NEW_YORK) for d in sessions]
    account = player.trading.get_account()
    assert Decimal(str(history.equity[-1])) == Decimal(account.equity)
    assert history.timeframe == "1D" and Decimal(str(history.base_value)) == Decimal(str(history.equity[0]))
    assert Decimal(str(history.profit_loss[-1])) == Decimal(str(history.equity[-1])) - Decimal(str(history.base_value))
    recent = player.trading.get_portfolio_history(GetPortfolioHistoryRequest(period="3D", timeframe="1D"))
    recent_start = (date.fromisoformat(sessions[-1]) - timedelta(days=3)).isoformat()
    assert [datetime.fromtimestamp(t, NEW_YORK).date().isoformat() for t in recent.timestamp] == [d for d in sessions if d >= recent_start]
    assert Decimal(str(recent.equity[-1])) == Decimal(account.equity)
    assert player.books() == []


# MARK: Watchlists


def test_watchlists_are_created_changed_and_deleted(player):
    t = player.trading
    made = t.create_watchlist(CreateWatchlistRequest(name="Tech", symbols=["AAPL"]))
    assert made.name == "Tech" and [a.symbol for a in made.assets] == ["AAPL"]
    assert [a.symbol for a in t.add_asset_to_watchlist_by_id(made.id, "MSFT").assets] == ["AAPL", "MSFT"]
    assert [a.symbol for a in t.remove_asset_from_watchlist_by_id(made.id, "AAPL").assets] == ["MSFT"]
    changed = t.update_watchlist_by_id(made.id, UpdateWatchlistRequest(name="Tech and drinks", symbols=["KO", "MSFT"]))
    assert changed.id == made.id and changed.name == "Tech and drinks" and [a.symbol for a in changed.assets] == ["KO", "MSFT"]
    found = t.get_watchlist_by_id(made.id)
    assert (found.name, [a.symbol for a in found.assets]) == ("Tech and drinks", ["KO", "MSFT"])
    assert made.id in [w.id for w in t.get_watchlists()]
    refused(lambda: t.add_asset_to_watchlist_by_id(made.id, "NOPE"), 422)
    assert t.delete_watchlist_by_id(made.id) is None
    refused(lambda: t.get_watchlist_by_id(made.id), 404, 40410000)
    assert made.id not in [w.id for w in t.get_watchlists()]


# MARK: Refusals and keys


@pytest.mark.parametrize("request_, status, code, bullpen_code", [
    (market("AAPL", 100_000), 403, 40310000, "insufficient_funds"),
    (market("AAPL", 1, side="sell"), 403, 40310000, "insufficient_shares"),
    (market("ZZZZ", 1), 422, 40010001, "unknown_symbol"),
    # The player's portfolio trades whole shares: a fraction is refused, and $10 buys less than one AAPL share.
    (market("AAPL", 1.5), 422, None, "quantity_out_of_range"),
    (MarketOrderRequest(symbol="AAPL", notional=10, side="buy", time_in_force="day"), 422, None, "quantity_out_of_range"),
    (market("AAPL", 1, order_class="bracket", take_profit={"limit_price": 40.0}, stop_loss={"stop_price": 20.0}),
     422, None, "not_supported"),
    (LimitOrderRequest(symbol="AAPL", qty=1, side="buy", time_in_force="day", limit_price=20.0, extended_hours=True),
     422, None, "not_supported"),
    (market("BTC/USD", 1, tif="gtc"), 422, 40010001, "unknown_symbol"),
], ids=["buying_power", "more_than_held", "unknown_symbol", "fractional", "notional", "bracket", "extended_hours", "crypto"])
def test_refused_orders_are_alpacas_errors(player, request_, status, code, bullpen_code):
    refused(lambda: player.trading.submit_order(request_), status, code, bullpen_code)
    assert player.trading.get_orders(GetOrdersRequest(status="all")) == []


def test_selling_more_than_held_is_refused(player):
    player.trading.submit_order(market("AAPL", 10))
    refused(lambda: player.trading.submit_order(market("AAPL", 11, side="sell")), 403, 40310000, "insufficient_shares")
    assert player.trading.get_open_position("AAPL").qty == "10"
    assert player.books() == []


def test_a_read_only_key_reads_everything_but_cannot_trade(player):
    player.trading.submit_order(market("AAPL", 10))
    read_only = player.make_key("read_only")
    trading, data = player.clients(read_only)
    assert trading.get_account() == player.trading.get_account()
    assert trading.get_all_positions() == player.trading.get_all_positions()
    assert trading.get_orders(GetOrdersRequest(status="all")) == player.trading.get_orders(GetOrdersRequest(status="all"))
    assert set(data.get_stock_latest_quote(StockLatestQuoteRequest(symbol_or_symbols=["AAPL"]))) == {"AAPL"}
    for attempt in [lambda: trading.submit_order(market("AAPL", 1)), trading.cancel_orders,
                    lambda: trading.close_position("AAPL"),
                    lambda: trading.create_watchlist(CreateWatchlistRequest(name="Mine", symbols=[]))]:
        refused(attempt, 403, 40310000, "key_read_only")
    status, error = player.alpaca("POST", "/bullpen/advance", {"days": 1}, key=read_only)
    assert (status, error["code"], error["bullpen_code"]) == (403, 40310000, "key_read_only")
    assert player.trading.get_open_position("AAPL").qty == "10"


def test_a_revoked_key_or_a_wrong_secret_is_unauthorized(player):
    spare = player.make_key()
    trading, _ = player.clients(spare)
    assert trading.get_account().cash == STARTING_CASH
    wrong, _ = player.clients(dict(spare, secret=spare["secret"][:-1] + ("x" if spare["secret"][-1] != "x" else "y")))
    refused(wrong.get_account, 401, 40110000)
    status, _ = call(player.base, "DELETE", "/api/v1/keys/" + spare["id"], player.token)
    assert status == 204
    refused(trading.get_account, 401, 40110000)
    refused(lambda: trading.submit_order(market("AAPL", 1)), 401, 40110000)
    status, keys = call(player.base, "GET", "/api/v1/keys", player.token)
    assert status == 200 and spare["keyId"] not in [k["keyId"] for k in keys["keys"]]
    assert player.trading.get_account().cash == STARTING_CASH   # the other key still works


def test_a_key_sees_only_its_own_portfolios_orders(player, server):
    other_portfolio = player.new_portfolio(D)
    other, _ = player.clients(player.make_key(portfolio=other_portfolio))
    theirs = other.submit_order(limit("AAPL", 3, "buy", Decimal("20.00")))
    stranger = Player(server, start=D)
    strangers = stranger.trading.submit_order(limit("AAPL", 3, "buy", Decimal("20.00")))
    for order in (theirs, strangers):
        refused(lambda: player.trading.get_order_by_id(order.id), 404, 40410000)
        refused(lambda: player.trading.cancel_order_by_id(order.id), 404, 40410000)
        refused(lambda: player.trading.replace_order_by_id(order.id, ReplaceOrderRequest(qty=1)), 404, 40410000)
    assert player.trading.get_orders(GetOrdersRequest(status="all")) == []
    assert player.trading.cancel_orders() == []
    assert status_of(stranger, strangers) == "new" and other.get_order_by_id(theirs.id).status.value == "new"
