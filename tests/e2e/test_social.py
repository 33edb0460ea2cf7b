"""People in a real browser: a player finds another by name, follows them from their profile, and
sees in the feed the trade they make once they share their portfolio; the shared portfolio shows
on the profile as weights, never amounts; editing one's own profile; blocking hides the blocker.
Then the People screens at a phone's and a laptop's size and, in every theme and palette, with AA
contrast, no inline style and no CSP violation. Every figure is the server's."""
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from test_webapp import (LAPTOP, PHONE, click, fetch_json, go, loaded, sign_up, text_in, visible, wait)
from test_replay import contrast_checker, shoot, themed_player


def buy(driver, symbol, quantity):
    """Buys through the API from the page (the trade sheet has its own tests)."""
    portfolios = fetch_json(driver, "/api/v1/portfolios")["json"]["portfolios"]
    main = next(p for p in portfolios if p["name"] == "Main")
    answer = fetch_json(driver, f"/api/v1/portfolios/{main['id']}/orders", "POST", {"symbol": symbol, "side": "buy", "quantity": quantity})
    assert answer["status"] == 201, answer
    return main["id"]


def share(driver, server, username, visibility):
    """Chooses on my own profile who sees my Main portfolio."""
    go(driver, server, f"people/{username}")
    loaded(driver, f"people/{username}")
    select = visible(driver, "#sharing select")
    Select(select).select_by_value(visibility)
    text_in(driver, "#toast", "Main")


def test_following_a_player_shows_their_shared_trades_in_the_feed(server, driver_factory):
    trader, follower = driver_factory(*LAPTOP), driver_factory(*PHONE)
    trader_name, follower_name = "trd" + uuid.uuid4().hex[:8], "fol" + uuid.uuid4().hex[:8]
    sign_up(trader, server, trader_name)
    sign_up(follower, server, follower_name)

    # The follower finds the trader by the start of their name, with the keyboard.
    go(follower, server, "people")
    loaded(follower, "people")
    assert "Nothing yet" in visible(follower, "#empty-feed").text
    search = visible(follower, "#people-search")
    search.send_keys(trader_name[:7].upper())
    link = visible(follower, f"#people-list a[href='#/people/{trader_name}']")
    link.send_keys(Keys.ENTER)
    loaded(follower, f"people/{trader_name}")
    assert "shares no portfolio" in visible(follower, "#no-shared").text
    follow = visible(follower, "#follow")
    assert follow.get_attribute("aria-pressed") == "false"
    click(follower, follow)
    # (read in one step: the profile is drawn again once the follow is saved)
    wait(follower).until(lambda d: d.execute_script("return document.getElementById('follow')?.getAttribute('aria-pressed')") == "true")
    text_in(follower, "#followers-count", "1 follower")

    # A trade in a private portfolio shows nowhere (the achievement it earned does: achievements are
    # public, like the profile); once shared, it is in the feed, without the quantity.
    buy(trader, "MSFT", 7)
    go(follower, server, "people")
    loaded(follower, "people")
    assert [i["kind"] for i in fetch_json(follower, "/api/v1/feed")["json"]["items"]] in ([], ["achievement"])
    assert "bought" not in visible(follower, "#feed").text
    share(trader, server, trader_name, "public")
    buy(trader, "AAPL", 3)
    follower.refresh()
    loaded(follower, "people")
    items = wait(follower).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#feed [data-feed-item]"))
    texts = [item.text for item in items]
    assert any("bought AAPL" in t for t in texts) and any("bought MSFT" in t for t in texts), texts
    assert not any("bought 3" in t or "bought 7" in t for t in texts), texts
    feed = fetch_json(follower, "/api/v1/feed")["json"]["items"]
    assert [i["trade"]["symbol"] for i in feed if i["kind"] == "trade"] == ["AAPL", "MSFT"]

    # The profile shows the shared portfolio as weights (the server's figures), no amounts.
    go(follower, server, f"people/{trader_name}")
    loaded(follower, f"people/{trader_name}")
    profile = fetch_json(follower, f"/api/v1/users/{trader_name}")["json"]
    shown = profile["portfolios"][0]
    card = visible(follower, f"[data-public-portfolio='{shown['id']}']")
    for holding in shown["holdings"]:
        assert holding.get("quantity") is None
        assert f"{holding['weightPercent']}%" in card.text
    assert "worth" not in card.text

    # Blocking: the trader blocks the follower, who then finds nothing of them.
    go(trader, server, f"people/{follower_name}")
    loaded(trader, f"people/{follower_name}")
    click(trader, visible(trader, "#block"))
    click(trader, visible(trader, "#confirm-step"))
    wait(trader).until(lambda d: "You blocked this player" in d.find_element(By.ID, "main").text)
    follower.refresh()   # (the same address: a reload draws it again)
    loaded(follower, f"people/{trader_name}")
    assert "no player by that name" in visible(follower, "#no-player").text
    assert fetch_json(follower, "/api/v1/feed")["json"]["items"] == []


def test_editing_my_profile(server, driver_factory):
    driver = driver_factory(*PHONE)
    name = "me" + uuid.uuid4().hex[:8]
    sign_up(driver, server, name)
    go(driver, server, "people")
    loaded(driver, "people")
    click(driver, visible(driver, "#my-profile"))
    loaded(driver, f"people/{name}")
    field = visible(driver, "#display-name")
    field.send_keys("Pat Q. Investor")
    driver.find_element(By.ID, "bio-input").send_keys("Index funds, mostly.")
    click(driver, driver.find_element(By.ID, "save-profile"))
    text_in(driver, "main h1", "Pat Q. Investor")
    assert "Index funds, mostly." in visible(driver, "#bio").text
    # A name with a control character is refused in words, beside the form.
    field = visible(driver, "#display-name")
    field.clear()
    field.send_keys("x" * 40)
    driver.execute_script("document.getElementById('display-name').value = 'bell\\u0007'")
    click(driver, driver.find_element(By.ID, "save-profile"))
    text_in(driver, "#profile-error", "one line")


def people_tour(driver, server, other, check):
    for screen in ["people", f"people/{other}"]:
        go(driver, server, screen)
        loaded(driver, screen)
        check(screen.replace("/", "-").replace(other, "other"))
    me = fetch_json(driver, "/api/v1/me")["json"]["username"]
    go(driver, server, f"people/{me}")
    loaded(driver, f"people/{me}")
    visible(driver, "#sharing")
    check("people-me")


def a_player_to_look_at(driver, server):
    """Another player, followed, whose shared portfolio holds something; and my own trade to share."""
    other = "oth" + uuid.uuid4().hex[:8]
    answer = fetch_json(driver, "/api/v1/auth/register", "POST", {"username": other, "password": "a long enough passphrase"})
    assert answer["status"] == 201, answer
    token = answer["json"]["tokens"]["accessToken"]
    driver.execute_async_script("""
        const [token, done] = arguments;
        const call = (path, method, body) => fetch(path, { method, headers: { 'Authorization': 'Bearer ' + token, 'Content-Type': 'application/json' },
                                                           body: JSON.stringify(body) }).then((r) => r.json());
        call('/api/v1/portfolios', 'GET').then(async ({ portfolios }) => {
          const id = portfolios[0].id;
          await call(`/api/v1/portfolios/${id}`, 'PATCH', { visibility: 'full' });
          await call(`/api/v1/portfolios/${id}/orders`, 'POST', { symbol: 'MSFT', side: 'buy', quantity: 5 });
          done();
        });""", token)
    assert fetch_json(driver, f"/api/v1/users/{other}/follow", "PUT")["status"] == 204
    buy(driver, "KO", 2)
    return other


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x800"])
def test_every_people_screen_fits_and_is_captured(server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    sign_up(driver, server, "pfit" + uuid.uuid4().hex[:8])
    other = a_player_to_look_at(driver, server)
    people_tour(driver, server, other, lambda name: shoot(driver, screenshots, name, size))


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("palette", ["standard", "colorblind"])
def test_people_screens_meet_aa_contrast_without_inline_styles(server, driver_factory, theme, palette):
    driver = themed_player(server, driver_factory, theme, palette, "paa")
    other = a_player_to_look_at(driver, server)

    check = contrast_checker(driver, theme, palette)

    people_tour(driver, server, other, check)
