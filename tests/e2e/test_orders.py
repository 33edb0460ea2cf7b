"""Working orders in a real browser: a limit order chosen on the trade sheet says in a sentence what it
will do, holds its cash (the portfolio shows cash, held and available), waits under Open orders, is
changed (replaced) and cancelled from the keyboard; in a replay, a limit order fills on the first
daily bar that reaches it, at the price that bar gives (worked out here from the pack's file), and
its details say how. Then the screens at phone and laptop sizes, and in every theme and palette
with AA contrast, no inline style and no CSP violation. Every figure is the server's."""
import csv
import pathlib
import uuid
from decimal import Decimal, ROUND_HALF_UP

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import _pack
from test_webapp import LAPTOP, PHONE, click, fetch_json, go, loaded, money_text, sign_up, text_in, visible, wait
from test_replay import contrast_checker, press, price_text, shoot, themed_player


def main_portfolio(driver):
    return next(p for p in fetch_json(driver, "/api/v1/portfolios")["json"]["portfolios"] if p["name"] == "Main")


def cents(value):
    return (Decimal(value) * Decimal("0.9")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def choose_limit(driver, limit, quantity=2, time_in_force=None):
    """On the open trade sheet: a limit order of `quantity` at `limit`, reviewed."""
    Select(visible(driver, "#order-type")).select_by_value("limit")
    field = visible(driver, "#limit-price")
    field.send_keys(str(limit))
    if time_in_force:
        Select(visible(driver, "#time-in-force")).select_by_value(time_in_force)
    amount = visible(driver, "#quantity")
    amount.clear()
    amount.send_keys(str(quantity))


def test_a_limit_order_waits_holds_cash_and_is_changed_and_cancelled(server, driver_factory, screenshots):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "lim" + uuid.uuid4().hex[:8])
    price = Decimal(fetch_json(driver, "/api/v1/assets/MSFT")["json"]["price"])
    limit = cents(price)
    go(driver, server, "stock/MSFT")
    loaded(driver, "stock/MSFT")
    click(driver, visible(driver, "#buy"))
    # A market order shows no price fields; a limit order shows its one.
    assert not driver.find_element(By.ID, "limit-price").is_displayed()
    choose_limit(driver, limit)
    sentence = f"Buy 2 MSFT if the price is {money_text(str(limit))} or lower, until the end of the trading day."
    text_in(driver, "#order-sentence", sentence)
    held = (limit * 2).quantize(Decimal("0.01"))
    text_in(driver, "#estimate", money_text(str(held)))
    assert visible(driver, "#estimate-label").text == "Held until it fills"
    shoot(driver, screenshots, "orders-trade-sheet-limit", LAPTOP)
    visible(driver, "#quantity").send_keys(Keys.ENTER)
    text_in(driver, "#review-sentence", sentence)
    click(driver, visible(driver, "#confirm"))
    text_in(driver, "#trade-result", "Placed.")
    assert f"holds {money_text(str(held))}" in visible(driver, "#trade-result").text
    click(driver, visible(driver, "#cancel-trade"))

    # The portfolio: cash, with what is held and what is left; the order waits under Open orders.
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    server_side = main_portfolio(driver)
    assert server_side["reservedCash"] == f"{held}" and Decimal(server_side["availableCash"]) == Decimal("100000") - held
    text_in(driver, "#cash-held", f"{money_text(server_side['availableCash'])} available · {money_text(str(held))} held for open orders")
    row = visible(driver, "#open-orders li[data-order]")
    assert sentence in row.text and "Working" in row.text
    shoot(driver, screenshots, "orders-portfolio", LAPTOP)

    # Details: its history so far.
    click(driver, row.find_element(By.CSS_SELECTOR, "[data-details]"))
    text_in(driver, "#order-history", "Working")
    click(driver, visible(driver, "#dialog [data-close]"))

    # Changed to 1 share: replaced by a new order that holds half.
    click(driver, visible(driver, "#open-orders [data-change]"))
    amount = visible(driver, "#change-quantity")
    amount.clear()
    amount.send_keys("1")
    amount.send_keys(Keys.ENTER)
    text_in(driver, "#toast", "Replaced: Buy 1 MSFT")
    wait(driver).until(lambda d: "Buy 1 MSFT" in d.find_element(By.CSS_SELECTOR, "#open-orders li[data-order]").text)
    assert main_portfolio(driver)["reservedCash"] == f"{limit}"

    # Cancelled from the keyboard: from Change, Tab to Cancel, Enter, Enter on the confirmation.
    driver.execute_script("arguments[0].focus()", driver.find_element(By.CSS_SELECTOR, "#open-orders [data-change]"))
    press(driver, Keys.TAB)
    assert driver.switch_to.active_element.get_attribute("data-cancel")
    press(driver, Keys.ENTER)
    visible(driver, "#confirm-step")
    press(driver, Keys.ENTER)
    text_in(driver, "#toast", "Order cancelled.")
    visible(driver, "#no-open-orders")
    ended = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#ended-orders li")]
    assert "Cancelled" in ended[0] and "Replaced" in ended[1], ended
    assert main_portfolio(driver)["reservedCash"] == "0.00"


def first_fill(symbol, start, limit):
    """The first session after `start` whose low reaches `limit`, and the price a buy limit fills at there."""
    with open(pathlib.Path(_pack()) / "daily" / f"{symbol}.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["date"] <= start:
                continue
            low, opening = Decimal(row["low"]), Decimal(row["open"])
            if low <= limit:
                return row["date"], opening if opening <= limit else limit
    return None, None


def test_a_replay_limit_order_fills_on_the_bar_that_reaches_it(server, driver_factory, screenshots):
    driver = driver_factory(*PHONE)
    sign_up(driver, server, "rlo" + uuid.uuid4().hex[:8])
    made = fetch_json(driver, "/api/v1/portfolios", "POST", {"name": "Crash", "replay": {"start": "2009-03-02"}})
    assert made["status"] == 201, made
    replay = made["json"]
    driver.execute_script("localStorage.setItem('bullpen.portfolio', arguments[0])", replay["id"])
    driver.refresh()
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    visible(driver, "#replay-date")
    close = Decimal(fetch_json(driver, "/api/v1/assets/MSFT?asOf=2009-03-02")["json"]["price"])
    limit = (close * Decimal("0.97")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    go(driver, server, "stock/MSFT")
    loaded(driver, "stock/MSFT")
    click(driver, visible(driver, "#buy"))
    choose_limit(driver, limit, quantity=10, time_in_force="gtc")
    text_in(driver, "#order-sentence", "until you cancel it (at most 90 days)")
    # The opening and closing auctions are offered in a replay.
    assert {"opg", "cls"} <= {o.get_attribute("value") for o in Select(driver.find_element(By.ID, "time-in-force")).options}
    visible(driver, "#quantity").send_keys(Keys.ENTER)
    click(driver, visible(driver, "#confirm"))
    text_in(driver, "#trade-result", "Placed.")
    click(driver, visible(driver, "#cancel-trade"))

    moved = fetch_json(driver, f"/api/v1/portfolios/{replay['id']}/advance", "POST", {"days": 20})
    assert moved["status"] == 200, moved
    assert "fill" in moved["json"]["message"], moved["json"]["message"]
    date, price = first_fill("MSFT", "2009-03-02", limit)
    assert date is not None and date <= moved["json"]["to"]

    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    visible(driver, "#no-open-orders")
    row = visible(driver, "#ended-orders li[data-order]")
    order = fetch_json(driver, f"/api/v1/portfolios/{replay['id']}/orders/{row.get_attribute('data-order')}")["json"]
    assert order["status"] == "filled" and Decimal(order["fillPrice"]) == price and order["priceSource"] == "daily_bar", order
    assert "Filled" in row.text and price_text(order["fillPrice"]) in row.text, row.text
    click(driver, row.find_element(By.CSS_SELECTOR, "[data-details]"))
    note = visible(driver, "#order-fill-note").text
    assert f"On {date}" in note, note
    assert ("opened at" in note) == (price != limit), note
    history = visible(driver, "#order-history").text
    assert "Working" in history and "Filled" in history
    shoot(driver, screenshots, "orders-replay-details", PHONE)


@pytest.mark.parametrize("size", [PHONE, LAPTOP, (360, 740), (768, 1024)], ids=["390x844", "1280x800", "360x740", "768x1024"])
def test_the_orders_screens_fit_and_are_captured(server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    sign_up(driver, server, "ofit" + uuid.uuid4().hex[:8])
    main = main_portfolio(driver)
    for body in [{"symbol": "MSFT", "side": "buy", "quantity": 3, "type": "limit", "limitPrice": "1.00", "timeInForce": "gtc"},
                 {"symbol": "KO", "side": "buy", "quantity": 1, "type": "stop_limit", "stopPrice": "9999", "limitPrice": "10000"}]:
        answer = fetch_json(driver, f"/api/v1/portfolios/{main['id']}/orders", "POST", body)
        assert answer["status"] == 201 and answer["json"]["status"] == "new", answer
    driver.refresh()   # sign-up left the portfolio drawn before the orders
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    wait(driver).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#open-orders li[data-order]")) == 2)
    driver.find_element(By.ID, "orders").location_once_scrolled_into_view
    shoot(driver, screenshots, "orders-list", size)
    # The trade sheet with a stop-limit's two prices, inside the screen.
    go(driver, server, "stock/KO")
    loaded(driver, "stock/KO")
    click(driver, visible(driver, "#buy"))
    Select(visible(driver, "#order-type")).select_by_value("stop_limit")
    visible(driver, "#stop-price")
    box = driver.execute_script("const r = document.getElementById('dialog').getBoundingClientRect(); return [r.left, r.right, window.innerWidth]")
    assert box[0] >= 0 and box[1] <= box[2], f"{size}: the trade sheet is wider than the screen: {box}"
    driver.save_screenshot(str(screenshots / f"orders-trade-sheet-{size[0]}x{size[1]}.png"))


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("palette", ["standard", "colorblind"])
def test_the_orders_screens_meet_aa_contrast_without_inline_styles(server, driver_factory, theme, palette):
    driver = themed_player(server, driver_factory, theme, palette, "oaa")
    main = main_portfolio(driver)
    answer = fetch_json(driver, f"/api/v1/portfolios/{main['id']}/orders", "POST",
                        {"symbol": "MSFT", "side": "buy", "quantity": 1, "type": "limit", "limitPrice": "1.00"})
    assert answer["status"] == 201, answer
    check = contrast_checker(driver, theme, palette)
    driver.refresh()
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    visible(driver, "#open-orders li[data-order]")
    check("portfolio-orders")
    bears = fetch_json(driver, "/api/v1/portfolios", "POST", {"name": "Bears", "shortSelling": True})["json"]
    sold = fetch_json(driver, f"/api/v1/portfolios/{bears['id']}/orders", "POST", {"symbol": "MSFT", "side": "sell", "quantity": 5})
    assert sold["status"] == 201, sold
    driver.execute_script("localStorage.setItem('bullpen.portfolio', arguments[0])", bears["id"])
    driver.refresh()
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    visible(driver, "#margin-card")
    check("portfolio-margin")
    driver.execute_script("localStorage.setItem('bullpen.portfolio', arguments[0])", main["id"])
    driver.refresh()
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    click(driver, visible(driver, "#open-orders [data-details]"))
    visible(driver, "#order-history")
    check("order-details")
    click(driver, visible(driver, "#dialog [data-close]"))
    go(driver, server, "stock/MSFT")
    loaded(driver, "stock/MSFT")
    click(driver, visible(driver, "#buy"))
    Select(visible(driver, "#order-type")).select_by_value("trailing_stop")
    visible(driver, "#trail").send_keys("5")
    text_in(driver, "#order-sentence", "rises 5 % above its lowest point")
    check("trade-sheet-trailing")


def test_a_short_sale_says_what_it_risks_and_the_portfolio_shows_the_margin(server, driver_factory, screenshots):
    driver = driver_factory(*PHONE)
    sign_up(driver, server, "sht" + uuid.uuid4().hex[:8])
    made = fetch_json(driver, "/api/v1/portfolios", "POST", {"name": "Bears", "shortSelling": True})
    assert made["status"] == 201, made
    driver.execute_script("localStorage.setItem('bullpen.portfolio', arguments[0])", made["json"]["id"])
    driver.refresh()
    go(driver, server, "stock/MSFT")
    loaded(driver, "stock/MSFT")
    click(driver, visible(driver, "#sell"))
    amount = visible(driver, "#quantity")
    amount.clear()
    amount.send_keys("10")
    note = visible(driver, "#short-note")
    assert "without limit" in note.text
    amount.send_keys(Keys.ENTER)
    click(driver, visible(driver, "#confirm"))
    text_in(driver, "#trade-result", "Done.")
    click(driver, visible(driver, "#cancel-trade"))
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    portfolio = fetch_json(driver, f"/api/v1/portfolios/{made['json']['id']}")["json"]
    assert portfolio["margin"]["met"] is True, portfolio
    text_in(driver, "#margin-requirement", money_text(portfolio["margin"]["requirement"]))
    assert "no limit" in visible(driver, "#margin-words").text
    shoot(driver, screenshots, "orders-short-margin", PHONE)
