"""The `bullpen` command-line client: the real binary against a real server process (temporary data
directory, the real data pack), checking output, exit codes and that --json matches the API."""
import io
import json
import os
import shutil
import stat
import subprocess
import tempfile
import time
import uuid
from decimal import Decimal

import pexpect
import pytest

from e2e_support import BINARY, Server, call, pack_directory

PASSWORD = "correct horse battery staple"
TOKEN_SECONDS = 5


@pytest.fixture(scope="module")
def server():
    if pack_directory() is None:
        if os.environ.get("BULLPEN_REQUIRE_PACK") == "1":
            pytest.fail("no data pack (BULLPEN_MARKET_DATA or ../shared/market-data)")
        pytest.skip("no data pack (BULLPEN_MARKET_DATA or ../shared/market-data)")
    work = tempfile.mkdtemp(prefix="bullpen-cli-")
    running = Server(os.path.join(work, "data"), env={"BULLPEN_ACCESS_TOKEN_SECONDS": str(TOKEN_SECONDS)}).start()
    yield running
    running.stop()
    shutil.rmtree(work, ignore_errors=True)


class Player:
    """A user of the CLI: a config directory of its own, logged in (or not) to the test server."""

    def __init__(self, server):
        self.server = server
        self.name = "cli" + uuid.uuid4().hex[:8]
        self.config = tempfile.mkdtemp(prefix="bullpen-cli-config-")
        self.env = dict(os.environ, XDG_CONFIG_HOME=self.config, BULLPEN_SERVER=server.url, NO_COLOR="")
        self.env.pop("TERM", None)

    def run(self, *args, stdin=None):
        result = subprocess.run([BINARY, *args], input=stdin, capture_output=True, text=True, env=self.env, timeout=120)
        return result

    def ok(self, *args, stdin=None):
        result = self.run(*args, stdin=stdin)
        assert result.returncode == 0, (args, result.returncode, result.stdout, result.stderr)
        return result

    def json(self, *args):
        return json.loads(self.ok(*args, "--json").stdout)

    def register(self):
        self.ok("login", self.name, "--register", "--password-stdin", stdin=PASSWORD + "\n")
        return self

    @property
    def session_file(self):
        return os.path.join(self.config, "bullpen", "session.json")

    def token(self):
        """An access token of the API for the same user (a login of its own)."""
        status, answer = call(self.server.url, "POST", "/api/v1/auth/login", body={"username": self.name, "password": PASSWORD})
        assert status == 200, answer
        return answer["tokens"]["accessToken"]

    def api(self, path, method="GET", body=None):
        status, answer = call(self.server.url, method, path, self.token(), body)
        assert status in (200, 201), (path, status, answer)
        return answer


def one_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    return lines[0]


def test_login_asks_the_password_without_echo_and_keeps_the_session_private(server):
    player = Player(server)
    child = pexpect.spawn(BINARY, ["login", "--register"], env=player.env, encoding="utf-8", timeout=60)
    child.logfile_read = io.StringIO()   # everything the terminal showed
    child.expect("Username: ")
    child.sendline(player.name)
    child.expect("Password for " + player.name + ": ")
    child.sendline(PASSWORD)
    child.expect("Logged in to .* as " + player.name)
    child.expect(pexpect.EOF)
    shown = child.logfile_read.getvalue()
    assert player.name in shown and PASSWORD not in shown
    child.close()
    assert child.exitstatus == 0
    assert stat.S_IMODE(os.stat(player.session_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(player.session_file)).st_mode) == 0o700
    saved = json.load(open(player.session_file))[server.url]
    assert saved["username"] == player.name and saved["refreshToken"]
    assert player.ok("whoami").stdout.startswith(player.name + " on " + server.url)
    me = player.json("whoami")
    api = player.api("/api/v1/me")
    assert me["id"] == api["id"] and me["username"] == api["username"]
    # Logging out ends the session: the saved token is gone, and commands need a login again.
    assert "Logged out" in player.ok("logout").stdout
    assert server.url not in json.load(open(player.session_file))
    result = player.run("portfolio")
    assert result.returncode == 4 and "bullpen login" in one_line(result.stderr)


def test_errors_are_one_line_with_documented_exit_codes(server):
    player = Player(server)
    result = player.run("portfolio")
    assert result.returncode == 4 and "not logged in" in one_line(result.stderr)
    player.register()
    stranger = Player(server)
    stranger.name = player.name
    result = stranger.run("login", player.name, "--password-stdin", stdin="not the password\n")
    assert result.returncode == 1 and "(invalid_credentials)" in one_line(result.stderr)
    result = player.run("buy", "AAPL", "1000000", "--yes")
    assert result.returncode == 1 and one_line(result.stderr.split("\n", 4)[-1]).endswith("(insufficient_funds)")
    assert player.api("/api/v1/portfolios")["portfolios"][0]["cash"] == "100000.00"
    result = player.run("quote", "AAPL", "NOPEX")
    assert result.returncode == 1 and "AAPL" in result.stdout and "NOPEX (unknown_symbol)" in one_line(result.stderr)
    result = player.run("buy", "NOPEX", "1", "--yes")
    assert result.returncode == 1 and "(unknown_symbol)" in one_line(result.stderr)
    result = player.run("sell", "MSFT", "5", "--yes")
    assert result.returncode == 1 and result.stderr.strip().endswith("(insufficient_shares)")
    result = player.run("quote", "AAPL", "--server", "http://127.0.0.1:9")
    assert result.returncode == 3 and "cannot reach the server" in one_line(result.stderr)
    for usage in (["buy", "AAPL"], ["buy", "AAPL", "0"], ["buy", "AAPL", "1", "--limit", "cheap"], ["chart", "AAPL", "--range", "2Y"],
                  ["quote", "AAPL", "--server", "ftp://x"], ["history", "--csv", "--json"], ["no-such-command"]):
        result = player.run(*usage)
        assert result.returncode == 2, (usage, result.returncode, result.stderr)
        assert "Error" in result.stderr


def test_trading_flow_matches_the_api(server):
    player = Player(server).register()
    order = player.json("buy", "AAPL", "10", "--yes")
    api_order = player.api(f"/api/v1/portfolios/{order['portfolioId']}/orders/{order['id']}")
    assert order["status"] == "filled" and order["filledQuantity"] == 10
    for field in ("symbol", "side", "type", "quantity", "status", "filledQuantity"):
        assert order[field] == api_order[field], field
    for field in ("fillPrice", "notional", "commission", "cashDelta", "realizedPnl"):
        assert Decimal(order[field]) == Decimal(api_order[field]), field

    both = player.json("portfolio")
    portfolio = player.api(f"/api/v1/portfolios/{order['portfolioId']}")
    positions = player.api(f"/api/v1/portfolios/{order['portfolioId']}/positions")["positions"]
    assert both["portfolio"]["id"] == portfolio["id"] and both["portfolio"]["name"] == "Main"
    for field in ("cash", "equity", "marketValue", "totalReturn", "startingCash", "availableCash"):
        assert Decimal(both["portfolio"][field]) == Decimal(portfolio[field]), field
    assert Decimal(portfolio["cash"]) == Decimal("100000") + Decimal(order["cashDelta"])
    assert [(p["symbol"], p["quantity"], Decimal(p["marketValue"])) for p in both["positions"]] == \
           [(p["symbol"], p["quantity"], Decimal(p["marketValue"])) for p in positions]
    text = player.ok("portfolio").stdout
    assert "AAPL" in text and "Total" in text and "\x1b[" not in text

    # Declining the confirmation places nothing; agreeing places it.
    declined = player.run("sell", "AAPL", "3", stdin="n\n")
    assert declined.returncode == 0 and "Not placed." in declined.stderr and "Proceeds" in declined.stderr
    placed = player.run("sell", "AAPL", "3", stdin="y\n")
    assert placed.returncode == 0 and placed.stdout.startswith("Sold 3 AAPL at $")
    working = player.ok("buy", "AAPL", "2", "--limit", "1", "--yes").stdout
    assert working.startswith("Working: ")

    orders = player.json("orders")
    api_orders = player.api(f"/api/v1/portfolios/{order['portfolioId']}/orders")["orders"]
    assert [o["id"] for o in orders] == [o["id"] for o in api_orders] and len(orders) == 3
    assert [o["status"] for o in player.json("orders", "--open")] == ["new"]
    assert "limit" in player.ok("orders").stdout

    history = player.json("history")
    assert [(a["type"], a["symbol"], a["quantity"]) for a in history if a["type"] in ("buy", "sell")] == \
           [("sell", "AAPL", 3), ("buy", "AAPL", 10)]
    csv = player.ok("history", "--csv").stdout.splitlines()
    assert csv[0].startswith("sequence,") and len(csv) == 3
    listing = player.json("portfolios")
    assert [p["id"] for p in listing] == [p["id"] for p in player.api("/api/v1/portfolios")["portfolios"]]


def saved_tokens(player):
    entry = json.load(open(player.session_file))[player.server.url]
    return entry["refreshToken"], entry.get("accessToken")


def test_an_expired_session_is_renewed_silently(server):
    player = Player(server).register()
    before = saved_tokens(player)
    assert before[1], "the access token is kept while it lasts"
    # While the access token lasts, commands use it: nothing is renewed.
    assert player.json("portfolios")[0]["name"] == "Main"
    assert saved_tokens(player) == before
    time.sleep(TOKEN_SECONDS + 1)
    assert player.json("portfolios")[0]["name"] == "Main"
    after = saved_tokens(player)
    assert after[0] != before[0] and after[1] != before[1]
    # The next run presents the new refresh token (the old one would end the session).
    time.sleep(TOKEN_SECONDS + 1)
    assert player.ok("whoami").returncode == 0
    assert saved_tokens(player)[0] not in (before[0], after[0])


def test_commands_run_at_once_share_one_renewal(server):
    player = Player(server).register()
    time.sleep(TOKEN_SECONDS + 1)
    # Four commands find the access token expired together; a refresh token works once, so a second
    # renewal would end the session for all of them.
    runs = [subprocess.Popen([BINARY, command, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=player.env)
            for command in ("portfolios", "orders", "whoami", "leagues")]
    results = [(run.wait(timeout=120), run.stdout.read(), run.stderr.read()) for run in runs]
    assert [code for code, _, _ in results] == [0, 0, 0, 0], results
    assert player.ok("portfolio").returncode == 0


def test_colour_only_on_a_terminal_and_never_with_no_color(server):
    player = Player(server).register()
    player.ok("buy", "AAPL", "1", "--yes")
    coloured = pexpect.run(f"{BINARY} portfolio", env=dict(player.env, TERM="xterm", COLUMNS="120"), encoding="utf-8", timeout=60)
    assert "\x1b[" in coloured and "AAPL" in coloured
    plain = pexpect.run(f"{BINARY} portfolio", env=dict(player.env, TERM="xterm", NO_COLOR="1"), encoding="utf-8", timeout=60)
    assert "\x1b[" not in plain and "AAPL" in plain
    assert "\x1b[" not in player.ok("portfolio").stdout


def test_replays_advance_with_progress(server):
    player = Player(server).register()
    replay = player.json("replay", "new", "--start", "2008-09", "--name", "Crash")
    assert replay["mode"] == "replay" and replay["date"] == "2008-09-02"
    assert player.ok("buy", "MSFT", "10", "--portfolio", "crash", "--yes").stdout.startswith("Bought 10 MSFT")
    advanced = player.ok("replay", "advance", "30")
    assert "100% (30/30 days)" in advanced.stderr
    assert "Crash: 2008-09-02 → " in advanced.stdout and "30 trading days" in advanced.stdout
    listing = player.json("replay", "list")
    api = player.api(f"/api/v1/portfolios/{replay['id']}")
    assert listing[0]["date"] == api["clock"]["date"] and Decimal(listing[0]["equity"]) == Decimal(api["equity"])
    steps = player.json("replay", "advance", "2")
    assert len(steps) == 1 and steps[0]["days"] == 2 and steps[0]["from"] == api["clock"]["date"]
    assert any(s["id"] for s in player.json("replay", "scenarios"))


def test_keys_create_list_and_revoke(server):
    player = Player(server).register()
    replay = player.json("replay", "new", "--start", "2012-03", "--name", "Bot")
    made = player.ok("keys", "create", "--portfolio", "bot", "--name", "crossover", "--trading")
    key_id = next(line.split()[1] for line in made.stdout.splitlines() if "APCA-API-KEY-ID" in line)
    secret = next(line.split()[1] for line in made.stdout.splitlines() if "APCA-API-SECRET-KEY" in line)
    assert "shown only now" in made.stdout and len(secret) == 40
    headers = {"APCA-API-KEY-ID": key_id, "APCA-API-SECRET-KEY": secret}
    status, account = call(server.url, "GET", "/alpaca/v2/account", headers=headers)
    assert status == 200 and account["id"] == replay["id"] and account["bullpen_replay_date"] == replay["date"]
    listed = player.json("keys", "list")
    assert [(k["keyId"], k["scope"], k["portfolioName"]) for k in listed] == [(key_id, "trading", "Bot")]
    assert "secret" not in listed[0] and listed[0]["lastUsedAt"]
    table = player.ok("keys", "list").stdout
    assert key_id in table and "trading" in table and "crossover" in table
    read_only = player.json("keys", "create", "--portfolio", "bot")
    assert read_only["scope"] == "read_only" and read_only["secret"]
    assert player.ok("keys", "revoke", key_id).stdout.startswith(f"Revoked {key_id}")
    status, refused = call(server.url, "GET", "/alpaca/v2/account", headers=headers)
    assert status == 401 and refused["code"] == 40110000
    result = player.run("keys", "revoke", key_id)
    assert result.returncode == 1 and "(not_found)" in one_line(result.stderr)
    assert [k["keyId"] for k in player.json("keys", "list")] == [read_only["keyId"]]


def test_leagues_and_leaderboard(server):
    player = Player(server).register()
    assert player.json("leagues") == []
    name = "Class " + uuid.uuid4().hex[:6]
    league = player.api("/api/v1/leagues", "POST", {"name": name, "visibility": "private"})
    assert [l["id"] for l in player.json("leagues")] == [league["id"]]
    board = player.json("leaderboard", name)
    api = player.api(f"/api/v1/leagues/{league['id']}/leaderboard")
    assert [s["username"] for s in board["standings"]] == [s["username"] for s in api["standings"]] == [player.name]
    assert Decimal(board["standings"][0]["equity"]) == Decimal(api["standings"][0]["equity"])
    assert f"{player.name} (you)" in player.ok("leaderboard", league["id"]).stdout
    result = player.run("leaderboard", "no such league")
    assert result.returncode == 1 and "(not_found)" in one_line(result.stderr)


def test_market_commands(server):
    player = Player(server)
    found = player.json("search", "micro")
    status, api = call(server.url, "GET", "/api/v1/assets?search=micro&limit=10")
    assert [a["symbol"] for a in found] == [a["symbol"] for a in api["assets"]] and found[0]["symbol"] == "MSFT"
    quotes = player.json("quote", "AAPL", "MSFT")
    status, api = call(server.url, "GET", "/api/v1/quotes?symbols=AAPL,MSFT")
    assert [(q["symbol"], Decimal(q["price"])) for q in quotes["quotes"]] == [(q["symbol"], Decimal(q["price"])) for q in api["quotes"]]
    chart = player.ok("chart", "AAPL", "--range", "1Y", "--width", "60").stdout.splitlines()
    assert chart[0].startswith("AAPL 1Y") and len(chart) == 1 + 12 + 1
    assert all(len(line) <= 60 for line in chart[1:]) and all("┤" in line for line in chart[1:13])
    series = player.json("chart", "AAPL", "--range", "5D")
    status, api = call(server.url, "GET", "/api/v1/assets/AAPL/bars?range=5D")
    assert [(b["date"], Decimal(b["close"])) for b in series["bars"]] == [(b["date"], Decimal(b["close"])) for b in api["bars"]]
    # The stream needs a session; its quotes are the API's.
    assert player.run("watch", "AAPL", "--count", "1").returncode == 4
    player.register()
    line = json.loads(player.ok("watch", "AAPL", "--count", "1", "--json").stdout.splitlines()[0])
    status, api = call(server.url, "GET", "/api/v1/quotes?symbols=AAPL")
    assert line["symbol"] == "AAPL" and Decimal(line["price"]) == Decimal(api["quotes"][0]["price"])


def test_help_and_completion_scripts():
    result = subprocess.run([BINARY, "--help"], capture_output=True, text=True)
    words = " ".join(result.stdout.split())
    assert result.returncode == 0 and "4 not logged in" in words and "watch" in words
    for shell in ("bash", "zsh", "fish"):
        result = subprocess.run([BINARY, "--generate-completion-script", shell], capture_output=True, text=True)
        assert result.returncode == 0 and "leaderboard" in result.stdout, shell


def test_buying_by_amount_and_in_fractions(server):
    player = Player(server).register()
    fractional = player.api("/api/v1/portfolios", "POST", {"name": "Slices", "fractionalShares": True})
    # $250 of AAPL in a portfolio that trades fractions: the preview names the quantity, the order matches the API.
    placed = player.run("buy", "AAPL", "--amount", "250", "--portfolio", "Slices", stdin="y\n")
    assert placed.returncode == 0, placed.stderr
    order = player.api(f"/api/v1/portfolios/{fractional['id']}/orders")["orders"][0]
    quantity = Decimal(json.dumps(order["quantity"]))
    assert quantity != quantity.to_integral_value() and Decimal(order["notional"]) <= Decimal("250")
    assert f"Buy {quantity} AAPL" in placed.stderr and placed.stdout.startswith(f"Bought {quantity} AAPL at $")
    # Selling a fraction by quantity leaves exactly the rest.
    half = (quantity / 2).quantize(Decimal("0.000001"), rounding="ROUND_DOWN")
    player.ok("sell", "AAPL", str(half), "--portfolio", "Slices", "--yes")
    positions = player.api(f"/api/v1/portfolios/{fractional['id']}/positions")["positions"]
    assert Decimal(json.dumps(positions[0]["quantity"])) == quantity - half
    # Main trades whole shares: a fraction is refused with the server's reason; an amount buys whole shares.
    refused = player.run("buy", "AAPL", "0.5", "--yes")
    assert refused.returncode != 0 and "whole number of shares" in refused.stderr
    whole = player.json("buy", "AAPL", "--amount", "1000", "--yes")
    assert whole["filledQuantity"] == int(whole["filledQuantity"]) and Decimal(whole["notional"]) <= Decimal("1000")
    for usage in (["buy", "AAPL", "1", "--amount", "5"], ["buy", "AAPL", "--amount", "ten"], ["buy", "AAPL", "1.123456789"]):
        result = player.run(*usage)
        assert result.returncode == 2 and "Error" in result.stderr, (usage, result.returncode, result.stderr)
