"""Leagues in a real browser: an owner creates a private live league with the form and sees its
code, a friend joins with it, both buy in their league portfolios through the usual trade sheet,
the standings show both (each player's own line highlighted, the Sharpe ratio explained), and the
owner removes the friend after confirming. The owner's other steps (a new code, handing over,
leaving, deleting); joining a public league from its own page; then every league screen at a
phone's and a laptop's size and in every theme and palette.
Every figure is compared with the server's answer, never recomputed here."""
import re
import uuid
from decimal import Decimal

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_webapp import (LAPTOP, PASSWORD, PHONE, click, fetch_json, go, loaded, open_trade, sign_up, text_in, visible, wait)
from test_replay import check_layout, contrast_checker, press, shoot, themed_player


def user_id(driver):
    return driver.execute_async_script("""
        const done = arguments[0];
        Promise.all([import('/session.js'), import('/api.js')]).then(async ([{ currentSession }, { restoreSession }]) => {
          await restoreSession();
          done(currentSession().user.id);
        });""")


def standings(driver):
    """The user ids of the leaderboard's lines, top first (read in one step: the table may be redrawn meanwhile)."""
    return driver.execute_script("return [...document.querySelectorAll('#standings tbody tr')].map((row) => row.dataset.user)")


def text_of(driver, element_id):
    """The text of an element read in one step, or None when it is not there (it may be redrawn meanwhile)."""
    return driver.execute_script("return document.getElementById(arguments[0])?.textContent ?? null", element_id)


def buy_in_league(driver, server, symbol, quantity):
    """Selects the league portfolio from the league's page, then buys through the company page's sheet."""
    click(driver, visible(driver, "#trade-in-league"))
    loaded(driver, "portfolio")
    visible(driver, "#league-card")
    go(driver, server, f"stock/{symbol}")
    loaded(driver, f"stock/{symbol}")
    visible(driver, "#league-note")
    open_trade(driver, "buy", quantity)
    text_in(driver, "#trade-result", f"Bought {quantity} {symbol}")
    driver.find_element(By.ID, "cancel-trade").click()


def test_a_private_league_from_creation_to_removing_a_player(server, driver_factory, screenshots):
    owner, friend = driver_factory(*LAPTOP), driver_factory(*PHONE)
    owner_name, friend_name = "own" + uuid.uuid4().hex[:8], "pal" + uuid.uuid4().hex[:8]
    league_name = "Office " + uuid.uuid4().hex[:6]

    # The owner has no league yet and opens the form.
    sign_up(owner, server, owner_name)
    go(owner, server, "leagues")
    loaded(owner, "leagues")
    assert "You are in no league yet" in owner.find_element(By.ID, "my-leagues").text
    click(owner, visible(owner, "#new-league"))
    loaded(owner, "leagues/new")
    name = visible(owner, "#league-name")
    assert owner.switch_to.active_element == name
    name.send_keys(league_name)
    # Private and live unless changed; a replay's own fields show only for a replay.
    assert owner.find_element(By.CSS_SELECTOR, "[name=visibility][value=private]").is_selected()
    assert owner.find_element(By.CSS_SELECTOR, "[name=clock][value=live]").is_selected()
    assert not owner.find_element(By.ID, "replay-fields").is_displayed()
    click(owner, owner.find_element(By.CSS_SELECTOR, "[name=clock][value=replay]"))
    assert visible(owner, "#league-month").is_enabled()
    click(owner, owner.find_element(By.CSS_SELECTOR, "[name=advance][value=scheduled]"))
    visible(owner, "#league-every")
    click(owner, owner.find_element(By.CSS_SELECTOR, "[name=clock][value=live]"))
    assert not owner.find_element(By.ID, "replay-fields").is_displayed()
    # Each rule says what it does, beside its field on a laptop.
    field, help_ = owner.find_element(By.ID, "league-max-position"), owner.find_element(By.ID, "league-max-position-help")
    assert "spread their money" in help_.text
    assert help_.location["x"] >= field.location["x"] + field.size["width"]
    assert "league-max-position-help" in field.get_attribute("aria-describedby")
    # A rule the server refuses is told beside its field, in the server's words, and the field gets the focus.
    field.send_keys("150")
    click(owner, owner.find_element(By.ID, "create-league"))
    assert "from 1 to 100" in text_in(owner, "#league-max-position-error", "percent").text
    assert owner.switch_to.active_element == field
    assert "not created" in owner.find_element(By.ID, "league-error").text
    field.clear()
    field.send_keys("50")
    # So is a schedule's day count, beside the schedule; an end before the start, beside the end.
    click(owner, owner.find_element(By.CSS_SELECTOR, "[name=clock][value=replay]"))
    click(owner, owner.find_element(By.CSS_SELECTOR, "[name=advance][value=scheduled]"))
    days = owner.find_element(By.ID, "league-days")
    days.clear()
    days.send_keys("0")
    click(owner, owner.find_element(By.ID, "create-league"))
    assert "from 1 to 252" in text_in(owner, "#league-schedule-error", "trading days").text
    assert owner.switch_to.active_element == days and "league-schedule-error" in days.get_attribute("aria-describedby")
    click(owner, owner.find_element(By.CSS_SELECTOR, "[name=clock][value=live]"))
    ends = owner.find_element(By.ID, "league-ends")
    owner.execute_script("arguments[0].value = '2099-01-01T10:00'; arguments[1].value = '2099-02-01T10:00'",
                         ends, owner.find_element(By.ID, "league-starts"))
    click(owner, owner.find_element(By.ID, "create-league"))
    assert "after startsAt" in text_in(owner, "#league-ends-error", "endsAt").text
    assert owner.switch_to.active_element == ends and "league-ends-error" in ends.get_attribute("aria-describedby")
    owner.execute_script("arguments[0].value = ''; arguments[1].value = ''", ends, owner.find_element(By.ID, "league-starts"))
    shoot(owner, screenshots, "league-new", LAPTOP)
    click(owner, owner.find_element(By.ID, "create-league"))

    # The league's page shows the owner its code.
    code = visible(owner, "#league-code").text
    assert re.fullmatch(r"[A-HJ-KMNP-Z2-9]{8}", code), code
    league_id = owner.current_url.rsplit("/", 1)[-1]
    loaded(owner, f"leagues/{league_id}")
    league = fetch_json(owner, f"/api/v1/leagues/{league_id}")["json"]
    assert (league["name"], league["visibility"], league["clock"]["mode"], league["code"]) == (league_name, "private", "live", code)
    assert owner.find_element(By.ID, "league-title").text == league_name
    assert owner.find_element(By.ID, "rule-position").text.startswith("{:.2f}%".format(Decimal(league["rules"]["maxPositionPercent"])))
    # Copy puts the code on the clipboard.
    owner.execute_cdp_cmd("Browser.grantPermissions", {"origin": server, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    click(owner, owner.find_element(By.ID, "copy-code"))
    text_in(owner, "#toast", f"Copied the code {code}")
    assert owner.execute_async_script("navigator.clipboard.readText().then(arguments[0], (e) => arguments[0](String(e)))") == code

    # The friend joins with the code (typed in small letters) and sees no code.
    sign_up(friend, server, friend_name)
    go(friend, server, "leagues")
    loaded(friend, "leagues")
    visible(friend, "#join-code").send_keys(code.lower())
    click(friend, friend.find_element(By.ID, "join"))
    text_in(friend, "#league-title", league_name)
    loaded(friend, f"leagues/{league_id}")
    assert not friend.find_elements(By.ID, "league-code")
    shoot(friend, screenshots, "league-member-view", PHONE)

    # Both buy through the usual trade sheet, in their league portfolios; the league's rule shows there.
    buy_in_league(friend, server, "MSFT", 2)
    go(friend, server, "stock/MSFT")
    loaded(friend, "stock/MSFT")
    open_trade(friend, "buy", 200)
    assert "at most" in text_in(friend, "#trade-error", "rules allow").text
    assert not friend.find_element(By.ID, "confirm").is_enabled()
    friend.find_element(By.ID, "cancel-trade").click()
    friend_portfolio = fetch_json(friend, f"/api/v1/leagues/{league_id}")["json"]["myPortfolioId"]
    held = fetch_json(friend, f"/api/v1/portfolios/{friend_portfolio}/positions")["json"]["positions"]
    assert [(p["symbol"], p["quantity"]) for p in held] == [("MSFT", 2)]

    go(owner, server, f"leagues/{league_id}")
    loaded(owner, f"leagues/{league_id}")
    buy_in_league(owner, server, "AAPL", 1)
    owner_portfolio = fetch_json(owner, f"/api/v1/leagues/{league_id}")["json"]["myPortfolioId"]
    held = fetch_json(owner, f"/api/v1/portfolios/{owner_portfolio}/positions")["json"]["positions"]
    assert [(p["symbol"], p["quantity"]) for p in held] == [("AAPL", 1)]

    # The standings show both players, each one's own line highlighted.
    friend_id, owner_id = user_id(friend), user_id(owner)
    go(owner, server, f"leagues/{league_id}")
    loaded(owner, f"leagues/{league_id}")
    wait(owner).until(lambda d: sorted(standings(d)) == sorted([owner_id, friend_id]))
    board = fetch_json(owner, f"/api/v1/leagues/{league_id}/leaderboard")["json"]
    assert standings(owner) == [s["userId"] for s in board["standings"]]
    mine = owner.find_element(By.CSS_SELECTOR, "#standings tr.me")
    assert mine.get_attribute("data-user") == owner_id and mine.get_attribute("aria-current") == "true"
    assert owner_name in mine.text and friend_name in owner.find_element(By.ID, "standings").text
    # The Sharpe ratio, chosen with the keyboard, is explained in the server's words.
    sharpe = owner.find_element(By.CSS_SELECTOR, "[data-metric=sharpe]")
    owner.execute_script("arguments[0].focus()", sharpe)
    press(owner, Keys.ENTER)
    wait(owner).until(lambda d: "Sharpe ratio" in (text_of(d, "standings-caption") or ""))
    assert owner.find_element(By.CSS_SELECTOR, "[data-metric=sharpe]").get_attribute("aria-pressed") == "true"
    help_text = fetch_json(owner, f"/api/v1/leagues/{league_id}/leaderboard?metric=sharpe")["json"]["help"]["sharpe"]
    text_in(owner, "#metric-help", help_text)
    shoot(owner, screenshots, "league-owner-view", LAPTOP)

    go(friend, server, f"leagues/{league_id}")
    loaded(friend, f"leagues/{league_id}")
    wait(friend).until(lambda d: sorted(standings(d)) == sorted([owner_id, friend_id]))
    assert friend.find_element(By.CSS_SELECTOR, "#standings tr.me").get_attribute("data-user") == friend_id
    check_layout(friend, "league page on a phone")

    # The owner cannot leave: the page says to hand the league over or delete it.
    click(owner, owner.find_element(By.ID, "leave-league"))
    assert "Hand it over" in visible(owner, "#owner-must-stay").text
    owner.find_element(By.CSS_SELECTOR, "#dialog [data-close]").click()

    # The owner removes the friend, after confirming; the players and the standings follow.
    click(owner, owner.find_element(By.CSS_SELECTOR, f"[data-kick='{friend_id}']"))
    assert friend_name in text_in(owner, "#dialog-title", "Remove").text
    owner.find_element(By.ID, "confirm-step").click()
    visible(owner, f"#members li[data-member='{friend_id}'][data-status=kicked]")
    loaded(owner, f"leagues/{league_id}")
    wait(owner).until(lambda d: standings(d) == [owner_id])
    visible(owner, f"[data-readmit='{friend_id}']")
    league = fetch_json(owner, f"/api/v1/leagues/{league_id}")["json"]
    assert league["memberCount"] == 1
    assert [m["status"] for m in league["members"] if m["userId"] == friend_id] == ["kicked"]

    # Letting the friend back in: they may join again.
    click(owner, owner.find_element(By.CSS_SELECTOR, f"[data-readmit='{friend_id}']"))
    text_in(owner, f"#members li[data-member='{friend_id}']", "may join again")


def test_a_new_code_handing_over_leaving_and_deleting(server, driver_factory):
    first, second = driver_factory(*LAPTOP), driver_factory(*PHONE)
    sign_up(first, server, "one" + uuid.uuid4().hex[:8])
    sign_up(second, server, "two" + uuid.uuid4().hex[:8])
    created = fetch_json(first, "/api/v1/leagues", "POST", {"name": "Relay " + uuid.uuid4().hex[:6], "visibility": "private"})
    assert created["status"] == 201, created
    league = created["json"]
    assert fetch_json(second, "/api/v1/leagues/join", "POST", {"code": league["code"]})["status"] == 201

    # A new code, after confirming: the old one stops working.
    go(first, server, f"leagues/{league['id']}")
    loaded(first, f"leagues/{league['id']}")
    click(first, visible(first, "#new-code"))
    assert league["code"] in visible(first, "#dialog").text
    first.find_element(By.ID, "confirm-step").click()
    wait(first).until(lambda d: text_of(d, "league-code") not in (None, league["code"]))
    loaded(first, f"leagues/{league['id']}")
    assert first.find_element(By.ID, "league-code").text == fetch_json(first, f"/api/v1/leagues/{league['id']}")["json"]["code"]
    assert fetch_json(first, "/api/v1/leagues/join", "POST", {"code": league["code"]})["status"] == 404

    # The owner hands the league over, then leaves it as a player; their league portfolio is kept, closed.
    click(first, first.find_element(By.ID, "hand-over"))
    visible(first, "#new-owner")
    first.find_element(By.ID, "confirm-step").click()
    wait(first).until(lambda d: not d.find_elements(By.ID, "league-code") and d.find_elements(By.ID, "leave-league"))
    loaded(first, f"leagues/{league['id']}")
    assert fetch_json(second, f"/api/v1/leagues/{league['id']}")["json"]["isOwner"] is True
    click(first, first.find_element(By.ID, "leave-league"))
    text_in(first, "#dialog-title", "Leave")
    first.find_element(By.ID, "confirm-step").click()
    wait(first).until(lambda d: d.current_url.endswith("#/leagues"))
    loaded(first, "leagues")
    closed = [p for p in fetch_json(first, "/api/v1/portfolios")["json"]["portfolios"] if p.get("leagueId") == league["id"]]
    assert len(closed) == 1 and closed[0]["closedAt"]
    first.execute_script("localStorage.setItem('bullpen.portfolio', arguments[0])", closed[0]["id"])
    go(first, server, "stock/MSFT")
    loaded(first, "stock/MSFT")
    assert "read-only" in visible(first, "#closed-note").text
    assert not first.find_element(By.ID, "buy").is_enabled()

    # The new owner deletes the league, after confirming.
    go(second, server, f"leagues/{league['id']}")
    loaded(second, f"leagues/{league['id']}")
    visible(second, "#league-code")
    click(second, second.find_element(By.ID, "delete-league"))
    text_in(second, "#dialog-title", "Delete")
    second.find_element(By.ID, "confirm-step").click()
    wait(second).until(lambda d: d.current_url.endswith("#/leagues"))
    loaded(second, "leagues")
    assert league["name"] not in second.find_element(By.ID, "my-leagues").text
    assert fetch_json(second, f"/api/v1/leagues/{league['id']}")["status"] == 404


def register_elsewhere(driver, username):
    """Registers another player from the page without touching its session; returns (token, user id)."""
    answer = driver.execute_async_script("""
        const [username, password, done] = arguments;
        fetch('/api/v1/auth/register', { method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ username, password }) }).then((r) => r.json()).then(done, (e) => done({ error: String(e) }));""",
        username, PASSWORD)
    return answer["tokens"]["accessToken"], answer["user"]["id"]


def call_as(driver, token, path, method="GET", body=None):
    return driver.execute_async_script("""
        const [token, path, method, body, done] = arguments;
        const headers = { Authorization: 'Bearer ' + token };
        if (body !== null) headers['Content-Type'] = 'application/json';
        fetch(path, { method, headers, body: body === null ? undefined : JSON.stringify(body) })
          .then(async (r) => done({ status: r.status, json: r.status === 204 ? null : await r.json() }), (e) => done({ status: 0, error: String(e) }));""",
        token, path, method, body)


def test_joining_a_public_league_from_its_page_redraws_it(server, driver_factory):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "join" + uuid.uuid4().hex[:8])
    me = user_id(driver)
    token, owner = register_elsewhere(driver, "host" + uuid.uuid4().hex[:8])
    created = call_as(driver, token, "/api/v1/leagues", "POST", {"name": "Open " + uuid.uuid4().hex[:6], "visibility": "public"})
    assert created["status"] == 201, created
    league = created["json"]

    # Not a member yet: the page offers Join, and the standings show the owner alone.
    go(driver, server, f"leagues/{league['id']}")
    loaded(driver, f"leagues/{league['id']}")
    wait(driver).until(lambda d: standings(d) == [owner])
    assert not driver.find_elements(By.ID, "my-standing")

    # Joining from the page draws it again: the player's rank and the way to trade, and their line in the standings.
    click(driver, visible(driver, "#join-league"))
    text_in(driver, "#toast", f"You joined {league['name']}")
    visible(driver, "#trade-in-league")
    loaded(driver, f"leagues/{league['id']}")
    assert not driver.find_elements(By.ID, "join-card")
    wait(driver).until(lambda d: sorted(standings(d)) == sorted([owner, me]))
    assert driver.find_element(By.CSS_SELECTOR, "#standings tr.me").get_attribute("data-user") == me
    assert fetch_json(driver, f"/api/v1/leagues/{league['id']}")["json"]["isMember"] is True


def replay_league_with_a_member(driver):
    """As the signed-in player, creates a public replay league with rules (through the API: the form
    has its own test), and lets a second player join it and buy; returns (league, the second player's id)."""
    created = fetch_json(driver, "/api/v1/leagues", "POST", {
        "name": "Club " + uuid.uuid4().hex[:6], "description": "Every colour checked.", "visibility": "public",
        "clock": {"mode": "replay", "start": "2009-03", "advance": "manual"},
        "rules": {"commissionPerTrade": "4.95", "maxPositionPercent": "25", "minimumPrice": "5.00", "maxHoldings": 10}})
    assert created["status"] == 201, created
    league = created["json"]
    token, other = register_elsewhere(driver, "lab" + uuid.uuid4().hex[:8])
    joined = call_as(driver, token, "/api/v1/leagues/join", "POST", {"code": league["code"]})
    assert joined["status"] == 201, joined
    bought = call_as(driver, token, f"/api/v1/portfolios/{joined['json']['myPortfolioId']}/orders", "POST",
                     {"symbol": "MSFT", "side": "buy", "quantity": 3})
    assert bought["status"] in (200, 201), bought
    return league, other


def tour(driver, server, league, other, check):
    """Opens every league screen, each in a state that shows most of it, and calls check(name) on each."""
    go(driver, server, f"leagues/{league['id']}")
    loaded(driver, f"leagues/{league['id']}")
    wait(driver).until(lambda d: len(standings(d)) == 2)
    click(driver, driver.find_element(By.ID, "league-advance-5"))
    text_in(driver, "#league-advance-status", "Moved 5 trading days")
    loaded(driver, f"leagues/{league['id']}")
    assert driver.switch_to.active_element.get_attribute("id") == "league-advance-5"
    click(driver, driver.find_element(By.CSS_SELECTOR, "#measures-help summary"))
    check("league-page")
    click(driver, driver.find_element(By.CSS_SELECTOR, f"a[href='#/leagues/{league['id']}/members/{other}']"))
    loaded(driver, f"leagues/{league['id']}/members/{other}")
    visible(driver, "#member-holdings tr[data-symbol=MSFT]")
    check("league-member-portfolio")
    go(driver, server, f"leagues/{league['id']}")
    loaded(driver, f"leagues/{league['id']}")
    click(driver, visible(driver, "#trade-in-league"))
    loaded(driver, "portfolio")
    visible(driver, "#league-card")
    check("league-portfolio")
    for screen, name in [("leagues", "list"), ("leagues/new", "new-replay"), ("leagues/global", "global"), ("stock/MSFT", "stock"),
                         ("settings", "settings")]:
        go(driver, server, screen)
        loaded(driver, screen)
        if screen == "leagues/new":
            click(driver, driver.find_element(By.CSS_SELECTOR, "[name=clock][value=replay]"))
            click(driver, driver.find_element(By.CSS_SELECTOR, "[name=advance][value=scheduled]"))
        check(f"league-{name}")


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x800"])
def test_every_league_screen_fits_and_is_captured(server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    sign_up(driver, server, "lfit" + uuid.uuid4().hex[:8])
    league, other = replay_league_with_a_member(driver)
    tour(driver, server, league, other, lambda name: shoot(driver, screenshots, name, size))


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("palette", ["standard", "colorblind"])
def test_league_screens_meet_aa_contrast_without_inline_styles(server, driver_factory, theme, palette):
    driver = themed_player(server, driver_factory, theme, palette, "laa")
    league, other = replay_league_with_a_member(driver)

    check = contrast_checker(driver, theme, palette)

    tour(driver, server, league, other, check)
