"""Coins on the demo exchange in a real browser: a player finds Bullpen Coin through the search (a
Crypto badge on its row), its page says it trades around the clock and has no option chain, and $25
of it is bought by amount with the keyboard at any hour: the sheet, the fill and the position show
the server's quantity to the last of its 8 decimals. Half of a holding is sold by quantity and what
is left is the exact difference; the page and the sheet fit a phone and a laptop. Quantities are
read from the API's raw JSON numbers, as Decimals."""
import json
import re
import uuid
from decimal import Decimal, ROUND_DOWN

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_fractional import by_dollars_with_the_keyboard, select
from test_replay import focused_id, press, price_text, shoot, tab_to
from test_webapp import LAPTOP, PHONE, click, go, loaded, sign_up, text_in, visible, wait

SATOSHI = Decimal("0.00000001")
NOTE = "Coins trade in fractions down to 0.00000001, every day around the clock."
# Records the app's order and preview answers as the server wrote them (raw text), with what was asked.
RECORD = """if (!window.__orders) {
  window.__orders = [];
  const original = window.fetch;
  window.__plainFetch = original;   // the test's own calls go unrecorded
  window.fetch = async (path, options = {}) => {
    const response = await original(path, options);
    if (String(path).includes('/orders')) window.__orders.push({ path: String(path), body: options.body ?? null, text: await response.clone().text() });
    return response;
  };
}"""


def api(driver, path, method="GET", body=None):
    """Calls the API with the player's token; numbers of the JSON answer come back as exact Decimals."""
    answer = driver.execute_async_script("""
        const [path, method, body, done] = arguments;
        Promise.all([import('/session.js'), import('/api.js')]).then(async ([{ currentSession }, { restoreSession }]) => {
          await restoreSession();
          const headers = { Authorization: 'Bearer ' + currentSession().access };
          if (body !== null) headers['Content-Type'] = 'application/json';
          const response = await (window.__plainFetch || fetch)(path, { method, headers, body: body === null ? undefined : JSON.stringify(body) });
          done({ status: response.status, text: await response.text() });
        }).catch((error) => done({ status: 0, text: String(error) }));""", path, method, body)
    assert 200 <= answer["status"] < 300, (path, answer)
    return json.loads(answer["text"], parse_float=Decimal, parse_int=Decimal)


def recorded(driver, ending):
    """The app's recorded answers from a path ending in `ending`, oldest first, with their request bodies."""
    seen = driver.execute_script("return window.__orders || []")
    return [(json.loads(s["body"] or "null"), json.loads(s["text"], parse_float=Decimal, parse_int=Decimal))
            for s in seen if s["path"].endswith(ending)]


def quantity_text(value):
    """The en-US text of an exact quantity, every decimal kept: Decimal('0.00005602') → '0.00005602'."""
    return "{:,f}".format(value.normalize())


def coins_for(notional, price):
    """What an amount buys at a price, to the satoshi, rounded down."""
    return (Decimal(notional) / Decimal(price)).quantize(SATOSHI, rounding=ROUND_DOWN)


def main_portfolio(driver):
    return api(driver, "/api/v1/portfolios")["portfolios"][0]


def position(driver, portfolio_id, symbol):
    return next((p for p in api(driver, f"/api/v1/portfolios/{portfolio_id}/positions")["positions"] if p["symbol"] == symbol), None)


def coin_page(driver, symbol):
    """Waits for a coin's page, and says so when the screen failed ("Something went wrong")."""
    loaded(driver, f"stock/{symbol}")
    failed = driver.find_elements(By.CSS_SELECTOR, "main #again")
    assert not failed, f"the page of {symbol} failed: {driver.find_element(By.TAG_NAME, 'main').text}"


def uncaught_errors(driver):
    return [e["message"] for e in driver.get_log("browser") if "Uncaught" in e["message"] or "TypeError" in e["message"]]


def test_a_browser_test_buying_25_dollars_of_a_coin(demo_server, driver_factory, screenshots):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, demo_server, "coin" + uuid.uuid4().hex[:8])
    main = main_portfolio(driver)
    assert api(driver, "/api/v1/assets/BPC-USD")["assetClass"] == "crypto"

    go(driver, demo_server, "market")
    loaded(driver, "market")
    visible(driver, "#search").send_keys("Bullpen Coin")
    wait(driver).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#browse li")) == 1
                       and d.find_elements(By.CSS_SELECTOR, "#browse a[href='#/stock/BPC-USD']"))
    row = driver.find_element(By.CSS_SELECTOR, "#browse li")
    assert "Bullpen Coin" in row.text and row.find_element(By.CSS_SELECTOR, ".badge").text == "Crypto", row.text
    click(driver, row.find_element(By.CSS_SELECTOR, "a[href='#/stock/BPC-USD']"))
    coin_page(driver, "BPC-USD")
    assert visible(driver, "#crypto-badge").text == "Crypto · trades around the clock"
    assert visible(driver, "#change-window").text == "Change over 24 hours (since 00:00 UTC)"
    assert not driver.find_elements(By.CSS_SELECTOR, "#options, #option-chain"), "a coin has no option chain"
    assert uncaught_errors(driver) == []

    driver.execute_script(RECORD)
    click(driver, visible(driver, "#buy"))
    assert visible(driver, "#fraction-note").text == NOTE
    assert driver.find_element(By.CSS_SELECTOR, "label[for=quantity]").text == "Coins"
    by_dollars_with_the_keyboard(driver)
    press(driver, Keys.TAB)
    assert focused_id(driver) == "quantity"
    driver.switch_to.active_element.send_keys("25")
    line = text_in(driver, "#amount-quantity", "$25.00 buys ").text
    shown = re.fullmatch(r"\$25\.00 buys (0\.\d{1,8}) coins at (\$[\d,]+\.\d{2,4}) a coin\.", line)
    assert shown, line
    previews = [p for body, p in recorded(driver, "/orders/preview") if body.get("notional") == "25"]
    assert previews, "the sheet asked for no preview of $25"
    sheet = previews[-1]   # the preview the sheet itself showed (the price ticks every 5 s)
    assert sheet["problems"] == [] and sheet["marketOpen"] is True, sheet
    assert line == f"$25.00 buys {quantity_text(sheet['quantity'])} coins at {price_text(str(sheet['price']))} a coin."
    assert sheet["quantity"] == coins_for("25", sheet["price"]), sheet
    server = api(driver, f"/api/v1/portfolios/{main['id']}/orders/preview", "POST", {"symbol": "BPC-USD", "side": "buy", "notional": "25"})
    assert server["quantity"] == coins_for("25", server["price"]) and 0 < server["quantity"] < 1, server

    press(driver, Keys.ENTER)
    sentence = text_in(driver, "#review-sentence", "Buy $25.00 of BPC-USD: about ").text
    assert re.search(r"about 0\.\d{1,8} coins at about \$[\d,.]+ a coin, the last trade at ", sentence), sentence
    click(driver, visible(driver, "#confirm"))
    result = text_in(driver, "#trade-result", "Done.").text
    placed = recorded(driver, "/orders")[-1][1]
    order = api(driver, f"/api/v1/portfolios/{main['id']}/orders/{placed['id']}")
    quantity = order["filledQuantity"]
    assert order["status"] == "filled" and order["marketOpen"] is True and order["quantity"] == quantity, order
    assert 0 < quantity < 1 and quantity % 1 != 0 and quantity.as_tuple().exponent >= -8, quantity
    assert quantity == coins_for("25", order["fillPrice"]), order
    assert Decimal(order["notional"]) <= Decimal("25.00") and abs(quantity * Decimal(order["fillPrice"]) - Decimal(order["notional"])) < Decimal("0.01"), order
    assert f"Bought {quantity_text(quantity)} BPC-USD at {price_text(str(order['fillPrice']))}" in result, result
    shoot(driver, screenshots, "crypto-bought", LAPTOP)

    held = position(driver, main["id"], "BPC-USD")
    assert held["quantity"] == quantity, held
    after = main_portfolio(driver)
    assert Decimal(main["cash"]) - Decimal(after["cash"]) == Decimal(order["notional"]) + Decimal(order["commission"]), (main, after, order)
    click(driver, visible(driver, "#cancel-trade"))
    assert text_in(driver, "#held-quantity", quantity_text(held["quantity"])).text == quantity_text(held["quantity"])
    card = driver.find_element(By.XPATH, "//*[@id='held-quantity']/preceding-sibling::*[@class='label']")
    assert card.text == "Coins"
    assert uncaught_errors(driver) == []


def test_half_of_the_coins_sold_by_quantity_leaves_the_exact_rest(demo_server, driver_factory):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, demo_server, "chalf" + uuid.uuid4().hex[:8])
    main = main_portfolio(driver)
    bought = api(driver, f"/api/v1/portfolios/{main['id']}/orders", "POST", {"symbol": "EMBR-USD", "side": "buy", "notional": "1000"})
    assert bought["status"] == "filled", bought
    held = position(driver, main["id"], "EMBR-USD")["quantity"]
    half = (held / 2).quantize(SATOSHI, rounding=ROUND_DOWN)
    while half % Decimal("0.0000001") == 0:   # eight decimals, the last not a zero
        half -= SATOSHI
    assert half.normalize().as_tuple().exponent == -8, half

    go(driver, demo_server, "stock/EMBR-USD")
    coin_page(driver, "EMBR-USD")
    assert visible(driver, "#held-quantity").text == quantity_text(held)
    click(driver, visible(driver, "#sell"))
    assert visible(driver, "#fraction-note").text == NOTE
    assert driver.find_element(By.ID, "quantity").get_attribute("inputmode") == "decimal"
    text_in(driver, "#max-text", f"You hold {quantity_text(held)} coins.")
    field = visible(driver, "#quantity")
    field.clear()
    field.send_keys(str(half))
    preview = api(driver, f"/api/v1/portfolios/{main['id']}/orders/preview", "POST", {"symbol": "EMBR-USD", "side": "sell", "quantity": float(half)})
    assert preview["problems"] == [] and preview["quantity"] == half, preview
    wait(driver).until(lambda d: d.find_element(By.ID, "estimate").text.startswith("$"))
    assert driver.find_element(By.ID, "trade-error").text == ""
    field.send_keys(Keys.ENTER)
    visible(driver, "#confirm")
    assert f"Sell {quantity_text(half)} coins of EMBR-USD at about" in driver.find_element(By.ID, "dialog").text
    click(driver, driver.find_element(By.ID, "confirm"))
    text_in(driver, "#trade-result", f"Sold {quantity_text(half)} EMBR-USD")
    click(driver, visible(driver, "#cancel-trade"))

    rest = position(driver, main["id"], "EMBR-USD")
    assert rest is not None and rest["quantity"] == held - half, (rest, held, half)
    assert text_in(driver, "#held-quantity", quantity_text(rest["quantity"])).text == quantity_text(rest["quantity"])


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x800"])
def test_the_coin_page_and_sheet_fit_phones_and_laptops(demo_server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    sign_up(driver, demo_server, "cfit" + uuid.uuid4().hex[:8])
    go(driver, demo_server, "stock/BPC-USD")
    coin_page(driver, "BPC-USD")
    visible(driver, "#crypto-badge")
    visible(driver, "#change-window")
    shoot(driver, screenshots, "crypto-stock-page", size)   # no control unlabeled, nothing wider than the screen
    click(driver, visible(driver, "#buy"))
    click(driver, visible(driver, "#by-dollars"))
    field = visible(driver, "#quantity")
    field.send_keys("250")
    text_in(driver, "#amount-quantity", "$250.00 buys ")
    assert visible(driver, "#fraction-note").text == NOTE
    box = driver.execute_script("const r = document.getElementById('dialog').getBoundingClientRect(); return [r.left, r.right, window.innerWidth]")
    assert box[0] >= 0 and box[1] <= box[2], f"{size}: the trade sheet is wider than the screen: {box}"
    inner = driver.execute_script("const d = document.getElementById('dialog'); return d.scrollWidth - d.clientWidth")
    assert inner <= 0, f"{size}: the sheet scrolls sideways by {inner}px"
    page = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert page <= 0, f"{size}: the page is {page}px wider than the screen with the sheet open"
    driver.save_screenshot(str(screenshots / f"crypto-trade-sheet-{size[0]}x{size[1]}.png"))


def test_a_replay_holding_a_coin_moves_by_calendar_days(demo_server, driver_factory, screenshots):
    """A replay profile that holds a coin counts every calendar day: the panel says so, its steps
    are calendar days (a week is 7), the move from a Friday lands on Saturday with the server's
    words, the holdings say "coins", and on Saturday a share is refused at the market."""
    driver = driver_factory(*LAPTOP)
    sign_up(driver, demo_server, "creplay" + uuid.uuid4().hex[:8])
    profile = api(driver, "/api/v1/portfolios", "POST", {"name": "Coins", "replay": {"start": "2020-03-13"}})
    assert profile["clock"]["dayCount"] == "sessions", profile["clock"]
    api(driver, f"/api/v1/portfolios/{profile['id']}/orders", "POST", {"symbol": "BPC-USD", "side": "buy", "quantity": 0.25})
    go(driver, demo_server, "portfolio")
    select(driver, profile["id"])
    loaded(driver, "portfolio")
    assert "counts every calendar day" in visible(driver, "#advance-calendar").text
    assert driver.find_element(By.ID, "advance-7").text == "1 week"
    assert driver.find_element(By.ID, "advance-days").get_attribute("max") == "366"
    row = visible(driver, "#holdings tr[data-symbol='BPC-USD']")
    assert "Crypto" in row.text and row.find_elements(By.TAG_NAME, "td")[1].text == "0.25\ncoins", row.text
    assert driver.find_element(By.CSS_SELECTOR, "#holdings th:nth-child(2)").text == "Quantity"

    # One day, with the keyboard: Friday → Saturday.
    tab_to(driver, "advance-1").send_keys(Keys.ENTER)
    summary = text_in(driver, "#advance-summary", "1 day")
    assert "Mar 14, 2020" in summary.text and "trading day" not in summary.text, summary.text
    assert "counts every calendar day" in driver.find_element(By.ID, "advance-message").text
    assert focused_id(driver) == "advance-1"
    assert driver.find_element(By.ID, "advance-status").text == "Moved 1 day, to Sat, Mar 14, 2020."
    shoot(driver, screenshots, "crypto-replay-saturday", LAPTOP)
    refused = driver.execute_async_script("""
        const [path, done] = arguments;
        Promise.all([import('/session.js'), import('/api.js')]).then(async ([{ currentSession }, { restoreSession }]) => {
          await restoreSession();
          const response = await fetch(path, { method: 'POST', headers: { Authorization: 'Bearer ' + currentSession().access, 'Content-Type': 'application/json' },
                                               body: JSON.stringify({ symbol: 'VTSW', side: 'buy', quantity: 1 }) });
          done({ status: response.status, json: await response.json() });
        });""", f"/api/v1/portfolios/{profile['id']}/orders")
    assert refused["status"] == 409 and refused["json"]["error"]["code"] == "market_closed", refused
    assert uncaught_errors(driver) == []


def test_the_market_screen_has_the_coins_movers_of_24_hours(demo_server, driver_factory, screenshots):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, demo_server, "cmove" + uuid.uuid4().hex[:8])
    go(driver, demo_server, "market")
    loaded(driver, "market")
    section = visible(driver, "#crypto-movers")
    assert section.find_element(By.TAG_NAME, "h2").text == "Crypto · 24 hours"
    assert "since 00:00 UTC" in section.text
    symbols = {a.get_attribute("href").split("/")[-1] for a in section.find_elements(By.CSS_SELECTOR, "a.card")}
    assert symbols and symbols <= {"BPC-USD", "EMBR-USD", "QRM-USD", "HOP-USD"}, symbols
    stocks = {a.get_attribute("href").split("/")[-1] for a in driver.find_elements(By.CSS_SELECTOR, "#movers a.card")}
    assert stocks and not stocks & {"BPC-USD", "EMBR-USD", "QRM-USD", "HOP-USD"}, stocks
    shoot(driver, screenshots, "crypto-movers", LAPTOP)
