"""examples/ma_crossover.py, the example bot, run as a user runs it: two runs on two fresh replay
portfolios standing on the same date make the same trades at the pack's closes and end with the
same equity, which is the native API's equity of each portfolio."""
import os
import subprocess
import sys
import time
from decimal import Decimal

import pytest

pytest.importorskip("alpaca")

from conftest import Player  # noqa: E402

BOT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples", "ma_crossover.py")
START = "2018-01-02"


def run_bot(player):
    arguments = [sys.executable, BOT, "--server", player.base, "--key", player.key["keyId"], "--secret", player.key["secret"],
                 "--symbols", "AAPL,MSFT", "--days", "252", "--fast", "20", "--slow", "50"]
    began = time.monotonic()
    result = subprocess.run(arguments, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    print(f"the bot ran 252 trading days in {time.monotonic() - began:.1f} s")
    return result.stdout


def test_the_example_bot_trades_a_replay_year_the_same_way_twice(server, pack):
    players = [Player(server, start=START), Player(server, start=START)]
    outputs = [run_bot(player) for player in players]
    assert outputs[0] == outputs[1]
    *trades, last = outputs[0].splitlines()
    assert trades, outputs[0]
    for line in trades:
        day, symbol, side, qty, price = line.split()
        assert START <= day and side in ("buy", "sell") and int(qty) > 0
        assert Decimal(price) == pack.bar(symbol, day)["close"], line   # market orders fill at the replay day's close
    assert last.startswith("final equity ")
    for player in players:
        native = player.native()
        assert Decimal(last.removeprefix("final equity ")) == Decimal(native["equity"])
        # 252 trading days: the first one and 251 advances.
        days = pack.trading_days()
        assert native["clock"]["date"] == days[days.index(START) + 251]
        assert player.books() == []
