"""Notifications, price alerts and achievements in a real browser: an alert set on a company's page
fires on the server's next round of quotes, the bell counts it (delivered on the stream), the
inbox lists it and leads back to the company; the settings list every alert and re-arm it; a new
follower and an achievement arrive the same way. Then the screens at a phone's and a laptop's
size, and in every theme and palette with AA contrast, no inline style and no CSP violation.
Every figure is the server's."""
import uuid
from decimal import Decimal

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from test_webapp import (LAPTOP, PHONE, click, fetch_json, go, loaded, sign_up, text_in, visible, wait)
from test_replay import contrast_checker, price_text, shoot, themed_player
from test_social import buy


def bell_count(driver):
    return driver.execute_script("const b = document.getElementById('bell-count'); return b && !b.hidden ? b.textContent : '0'")


def set_alert(driver, server, symbol, condition, value):
    go(driver, server, f"stock/{symbol}")
    loaded(driver, f"stock/{symbol}")
    visible(driver, "#alerts-list")
    Select(visible(driver, "#alert-condition")).select_by_value(condition)
    field = visible(driver, "#alert-value")
    field.clear()
    field.send_keys(value)
    field.send_keys(Keys.ENTER)
    text_in(driver, "#toast", "Alert set", seconds=40)   # CI once waited over 15 s for it on a loaded machine


def test_an_alert_fires_and_shows_in_the_inbox(server, driver_factory, screenshots):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "alr" + uuid.uuid4().hex[:8])
    price = Decimal(fetch_json(driver, "/api/v1/assets/MSFT")["json"]["price"])
    # A bad value is refused in words beside the form; nothing is set.
    go(driver, server, "stock/MSFT")
    loaded(driver, "stock/MSFT")
    visible(driver, "#no-alerts")
    field = visible(driver, "#alert-value")
    field.send_keys("lots")
    click(driver, visible(driver, "#alert-create"))
    text_in(driver, "#alert-error", "value is the price")
    # "Falls to or below" a price above today's: it fires on the server's next round.
    set_alert(driver, server, "MSFT", "below", str(price + 10))
    row = visible(driver, "#alerts-list li[data-alert]")
    assert "MSFT falls to" in row.text and "armed" in row.text
    shoot(driver, screenshots, "stock-alerts", LAPTOP)
    wait(driver, 30).until(lambda d: bell_count(d) == "1")
    assert visible(driver, "#bell").get_attribute("aria-label") == "Notifications, 1 unread"

    # The inbox lists it, unread; opening it leads to the company and marks it read.
    click(driver, visible(driver, "#bell"))
    loaded(driver, "notifications")
    note = visible(driver, "#notes li[data-kind='alert']")
    assert note.get_attribute("class").split().count("unread") == 1
    assert f"MSFT at {price_text(str(price))}" in note.text and "Your alert fired" in note.text, note.text
    shoot(driver, screenshots, "notifications", LAPTOP)
    note.find_element(By.CSS_SELECTOR, "a").send_keys(Keys.ENTER)
    loaded(driver, "stock/MSFT")
    wait(driver).until(lambda d: bell_count(d) == "0")
    fired = visible(driver, "#alerts-list li[data-alert]")
    assert "fired" in fired.text

    # Settings list every alert; re-arming one from the keyboard arms it again.
    go(driver, server, "settings")
    loaded(driver, "settings")
    rearm = visible(driver, "#alerts-list [data-rearm]")
    rearm.send_keys(Keys.ENTER)
    text_in(driver, "#toast", "Armed again")
    wait(driver).until(lambda d: "armed" in d.find_element(By.CSS_SELECTOR, "#alerts-list li[data-alert]").text)
    alerts = fetch_json(driver, "/api/v1/alerts")["json"]["alerts"]
    assert [a["armed"] for a in alerts] == [True]
    # It fires again, and is deleted from the list.
    wait(driver, 30).until(lambda d: bell_count(d) == "1")
    click(driver, visible(driver, "#alerts-list [data-delete]"))
    visible(driver, "#no-alerts")
    assert fetch_json(driver, "/api/v1/alerts")["json"]["alerts"] == []
    # Which kinds come as browser notifications is saved at once.
    box = visible(driver, "#push-kind-follower")
    assert box.is_selected()
    click(driver, box)
    text_in(driver, "#toast", "Saved")
    kinds = fetch_json(driver, "/api/v1/push")["json"]["kinds"]
    assert [k["kind"] for k in kinds if not k["enabled"]] == ["follower"]


def test_a_follower_and_an_achievement_arrive_while_the_app_is_open(server, driver_factory):
    driver = driver_factory(*PHONE)
    name = "ach" + uuid.uuid4().hex[:8]
    sign_up(driver, server, name)
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    # Another player follows: the bell counts it at once.
    fan = "fan" + uuid.uuid4().hex[:8]
    answer = fetch_json(driver, "/api/v1/auth/register", "POST", {"username": fan, "password": "a long enough passphrase"})
    token = answer["json"]["tokens"]["accessToken"]
    status = driver.execute_async_script("""
        const [name, token, done] = arguments;
        fetch(`/api/v1/users/${name}/follow`, { method: 'PUT', headers: { 'Authorization': 'Bearer ' + token } }).then((r) => done(r.status));""",
                                         name, token)
    assert status == 204
    wait(driver, 20).until(lambda d: bell_count(d) == "1")
    # A first trade earns an achievement: a second notification, and a badge on the profile.
    buy(driver, "MSFT", 1)
    wait(driver, 20).until(lambda d: bell_count(d) == "2")
    go(driver, server, "notifications")
    loaded(driver, "notifications")
    texts = [n.text for n in wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#notes li.note"))]
    assert "Achievement: First trade" in texts[0] and f"{fan} follows you" in texts[1], texts
    click(driver, visible(driver, "#read-all"))
    wait(driver).until(lambda d: bell_count(d) == "0" and not d.find_elements(By.CSS_SELECTOR, "#notes li.unread"))
    go(driver, server, "people/me")
    loaded(driver, "people/me")
    earned = visible(driver, "#achievements [data-achievement='first-trade']")
    assert "Earned" in earned.text and "locked" not in earned.get_attribute("class")
    assert "Not yet" in visible(driver, "#achievements [data-achievement='ten-trades']").text


def tour(driver, server, check):
    for screen in ["notifications", "settings", "stock/MSFT", "people/me"]:
        go(driver, server, screen)
        loaded(driver, screen)
        if screen == "stock/MSFT":
            visible(driver, "#alerts-list li")
        if screen == "settings":
            visible(driver, "#push-kind-alert")
        check(screen.replace("/", "-"))


def with_something_to_show(driver, server):
    """An alert (armed), a notification, an achievement."""
    buy(driver, "MSFT", 1)
    answer = fetch_json(driver, "/api/v1/alerts", "POST", {"symbol": "MSFT", "condition": "above", "value": "100000"})
    assert answer["status"] == 201, answer
    wait(driver, 20).until(lambda d: fetch_json(d, "/api/v1/notifications/unread")["json"]["unread"] >= 1)


@pytest.mark.parametrize("size", [PHONE, LAPTOP, (360, 740), (768, 1024)], ids=["390x844", "1280x800", "360x740", "768x1024"])
def test_every_notification_screen_fits_and_is_captured(server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    sign_up(driver, server, "nfit" + uuid.uuid4().hex[:8])
    with_something_to_show(driver, server)

    def check(name):
        if name != "stock-MSFT":
            return shoot(driver, screenshots, f"inbox-{name}", size)
        # The company page as a whole is issue 19's (its option chain is wider than a phone, and
        # at 768 px the page is too); its alerts section fits inside the page's column and
        # widens nothing.
        alerts = driver.execute_script("""const r = document.getElementById('alerts').getBoundingClientRect();
            const m = document.getElementById('main').getBoundingClientRect();
            return [r.left, r.right, m.left, m.right]""")
        assert alerts[0] >= alerts[2] and alerts[1] <= alerts[3], f"{size}: the alerts section is wider than the page: {alerts}"
        driver.find_element(By.ID, "alerts").location_once_scrolled_into_view
        driver.save_screenshot(str(screenshots / f"inbox-stock-alerts-{size[0]}x{size[1]}.png"))

    tour(driver, server, check)
    # Every tab, the bell and Help too, stays inside the navigation, also on the narrowest phone.
    cut = driver.execute_script("""
        const nav = document.getElementById('nav'), box = nav.getBoundingClientRect();
        return [nav.scrollWidth - nav.clientWidth, ...[...nav.querySelectorAll('a')].filter((a) => {
          const r = a.getBoundingClientRect(); return r.width === 0 || r.left < box.left - 1 || r.right > box.right + 1; }).map((a) => a.dataset.tab)]""")
    assert cut == [0], f"{size}: tabs cut off: {cut}"


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("palette", ["standard", "colorblind"])
def test_notification_screens_meet_aa_contrast_without_inline_styles(server, driver_factory, theme, palette):
    driver = themed_player(server, driver_factory, theme, palette, "naa")
    with_something_to_show(driver, server)
    # The bell's count shows (it has a colour of its own to check).
    wait(driver, 20).until(lambda d: bell_count(d) != "0")

    check = contrast_checker(driver, theme, palette)

    tour(driver, server, check)
