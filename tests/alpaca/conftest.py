"""Fixtures for the Alpaca-compatible API's acceptance tests: the real `bullpen` server on a
temporary SQLite data directory with the real data pack, players who each have a portfolio and an
API key for it with alpaca-py's clients, and the pack's own prices to check the answers against."""
import csv
import os
import shutil
import sys
import tempfile
import uuid
from decimal import Decimal
from functools import lru_cache

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts"))

from e2e_support import Server, all_orders, call, check_books, pack_directory, register  # noqa: E402

STARTING_CASH = "100000.00"


@pytest.fixture(scope="session")
def server():
    if pack_directory() is None:
        if os.environ.get("BULLPEN_REQUIRE_PACK") == "1":
            pytest.fail("no data pack (BULLPEN_MARKET_DATA or ../shared/market-data)")
        pytest.skip("no data pack (BULLPEN_MARKET_DATA or ../shared/market-data)")
    work = tempfile.mkdtemp(prefix="bullpen-alpaca-")
    running = Server(os.path.join(work, "data")).start()
    yield running
    running.stop()
    shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="session")
def demo_server():
    """The real server on the demo exchange (invented companies and coins, simulated prices)."""
    work = tempfile.mkdtemp(prefix="bullpen-alpaca-demo-")
    running = Server(os.path.join(work, "data"), env={"BULLPEN_MARKET_DATA": ""}).start()
    yield running
    running.stop()
    shutil.rmtree(work, ignore_errors=True)


class Player:
    """A registered player with one portfolio (a replay standing on `start`, or on the live clock
    without it; `options` are more fields of the native request, like shortSelling) and an API key
    for it, with alpaca-py's trading and data clients for that key."""

    def __init__(self, server, start=None, scope="trading", **options):
        self.base = server.url
        self.token, _ = register(self.base, "alp" + uuid.uuid4().hex[:10])
        self.portfolio = self.new_portfolio(start, **options)
        self.key = self.make_key(scope)
        self.trading, self.data = self.clients(self.key)

    def new_portfolio(self, start=None, **options):
        body = {"name": "Bot " + uuid.uuid4().hex[:6], **options}
        if start:
            body["replay"] = {"start": start}
        status, portfolio = call(self.base, "POST", "/api/v1/portfolios", self.token, body)
        assert status == 201, (status, portfolio)
        return portfolio["id"]

    def make_key(self, scope="trading", portfolio=None):
        body = {"portfolioId": portfolio or self.portfolio, "name": "bot " + scope, "scope": scope}
        status, key = call(self.base, "POST", "/api/v1/keys", self.token, body)
        assert status == 201, (status, key)
        return key

    def clients(self, key):
        """alpaca-py's clients for `key`, trying each request once (no retries on 429 or 504)."""
        from alpaca.data.historical import StockHistoricalDataClient
        from alpaca.trading.client import TradingClient
        trading = TradingClient(key["keyId"], key["secret"], url_override=self.base + "/alpaca")
        data = StockHistoricalDataClient(key["keyId"], key["secret"], url_override=self.base + "/alpaca/data")
        trading._retry = data._retry = 0
        return trading, data

    def headers(self, key=None):
        key = key or self.key
        return {"APCA-API-KEY-ID": key["keyId"], "APCA-API-SECRET-KEY": key["secret"]}

    def alpaca(self, method, path, body=None, key=None):
        """A raw request to the Alpaca surface (`path` after /alpaca): (status, JSON)."""
        return call(self.base, method, "/alpaca" + path, body=body, headers=self.headers(key))

    def advance(self, days=None, to=None):
        """Bullpen's own advance of the replay, through the key; its answer."""
        status, moved = self.alpaca("POST", "/bullpen/advance", {"days": days} if days else {"to": to})
        assert status == 200, (status, moved)
        return moved

    def native(self, path=""):
        """The native API's view of the portfolio: GET /api/v1/portfolios/{id}{path}."""
        status, answer = call(self.base, "GET", f"/api/v1/portfolios/{self.portfolio}{path}", self.token)
        assert status == 200, (status, answer)
        return answer

    def books(self):
        """What is wrong with the portfolio's books: cash and positions against what its orders moved."""
        return check_books(self.base, self.token, self.portfolio, all_orders(self.base, self.token, self.portfolio),
                           STARTING_CASH)


@pytest.fixture
def player(server):
    """A player with a replay portfolio standing on 2015-03-02 and a trading key."""
    return Player(server, start="2015-03-02")


class Pack:
    """The data pack the server reads, read here directly: the expected answers."""

    def __init__(self, directory):
        self.directory = directory

    @lru_cache(maxsize=None)
    def bars(self, symbol):
        """The symbol's daily rows, oldest first: date as text, prices as Decimal, volume as int."""
        with open(os.path.join(self.directory, "daily", symbol + ".csv"), newline="") as handle:
            return [dict(date=row["date"], open=Decimal(row["open"]), high=Decimal(row["high"]), low=Decimal(row["low"]),
                         close=Decimal(row["close"]), volume=int(row["volume"])) for row in csv.DictReader(handle)]

    def bar(self, symbol, date):
        return next(row for row in self.bars(symbol) if row["date"] == date)

    def after(self, symbol, date, sessions=1):
        """The bar `sessions` sessions after `date`'s (1: the next one), or before it when negative."""
        rows = self.bars(symbol)
        index = next(i for i, row in enumerate(rows) if row["date"] == date)
        return rows[index + sessions]

    @lru_cache(maxsize=None)
    def trading_days(self):
        """The NYSE trading days, from the S&P 500 benchmark."""
        with open(os.path.join(self.directory, "benchmarks", "SPX.csv"), newline="") as handle:
            return [row["date"] for row in csv.DictReader(handle)]

    @lru_cache(maxsize=None)
    def universe(self):
        with open(os.path.join(self.directory, "universe.csv"), newline="") as handle:
            return list(csv.DictReader(handle))


@pytest.fixture(scope="session")
def pack(server):
    return Pack(pack_directory())


def pytest_configure(config):
    # alpaca-py imports websockets' legacy module, which warns on import; not ours to fix.
    config.addinivalue_line("filterwarnings", "ignore::DeprecationWarning:websockets")
