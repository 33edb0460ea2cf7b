"""Fractional shares and orders by amount in a real browser: a portfolio made with the New portfolio
dialog's fractions box buys $25 of MSFT (Dollars chosen with the keyboard) and shows the fraction the
server filled, to the last decimal; a fraction is sold by shares and what is left is the exact
difference; a whole-share portfolio buys by amount in whole shares and refuses an amount below one
share; the sheet in Dollars fits a phone and a laptop. Every figure is the server's."""
import uuid
from decimal import Decimal, ROUND_DOWN

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_orders import main_portfolio
from test_replay import focused_id, press, price_text, shoot, tab_to
from test_webapp import LAPTOP, PHONE, click, fetch_json, go, loaded, money_text, sign_up, text_in, visible, wait

WHOLE_SHARES = "(whole shares: this portfolio does not trade fractions)"


def quantity_text(value):
    """The en-US text of an API quantity, every decimal kept, as the app shows it: 0.062935 → '0.062935', 1200 → '1,200'."""
    return "{:,f}".format(Decimal(repr(value)).normalize()) if value % 1 else "{:,}".format(int(value))


def position(driver, portfolio_id, symbol):
    positions = fetch_json(driver, f"/api/v1/portfolios/{portfolio_id}/positions")["json"]["positions"]
    return next((p for p in positions if p["symbol"] == symbol), None)


def portfolio_of(driver, portfolio_id):
    answer = fetch_json(driver, f"/api/v1/portfolios/{portfolio_id}")
    assert answer["status"] == 200, answer
    return answer["json"]


def select(driver, portfolio_id):
    driver.execute_script("localStorage.setItem('bullpen.portfolio', arguments[0])", portfolio_id)
    driver.refresh()


def open_stock(driver, server, symbol):
    go(driver, server, f"stock/{symbol}")
    loaded(driver, f"stock/{symbol}")


def by_dollars_with_the_keyboard(driver):
    """On the open trade sheet: Tab to Dollars, Enter; the sheet asks for an amount, focus stays on the toggle."""
    assert visible(driver, "#by-shares").get_attribute("aria-pressed") == "true"
    tab_to(driver, "by-dollars")
    press(driver, Keys.ENTER)
    wait(driver).until(lambda d: d.find_element(By.ID, "by-dollars").get_attribute("aria-pressed") == "true")
    assert driver.find_element(By.ID, "by-shares").get_attribute("aria-pressed") == "false"
    assert focused_id(driver) == "by-dollars"
    assert driver.find_element(By.CSS_SELECTOR, "label[for=quantity]").text == "Amount ($)"
    # Only market and limit orders may be by amount.
    enabled = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#order-type option") if o.is_enabled()]
    assert enabled == ["market", "limit"], enabled


def type_amount(driver, amount):
    field = visible(driver, "#quantity")
    field.clear()
    field.send_keys(str(amount))
    return field


def test_a_fractional_portfolio_buys_25_dollars_by_keyboard(server, driver_factory, screenshots):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "frac" + uuid.uuid4().hex[:8])
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    click(driver, visible(driver, "#new-portfolio"))
    visible(driver, "#new-name").send_keys("Fractions")
    click(driver, driver.find_element(By.ID, "new-fractional"))
    click(driver, driver.find_element(By.ID, "confirm-step"))
    text_in(driver, "#toast", "Created Fractions.")
    portfolio_id = driver.execute_script("return localStorage.getItem('bullpen.portfolio')")
    made = portfolio_of(driver, portfolio_id)
    assert made["name"] == "Fractions" and made["rules"]["fractionalShares"] is True, made
    cash_before = Decimal(made["cash"])

    open_stock(driver, server, "MSFT")
    click(driver, visible(driver, "#buy"))
    assert "down to a millionth" in visible(driver, "#fraction-note").text
    by_dollars_with_the_keyboard(driver)
    press(driver, Keys.TAB)
    assert focused_id(driver) == "quantity"
    driver.switch_to.active_element.send_keys("25")
    preview = fetch_json(driver, f"/api/v1/portfolios/{portfolio_id}/orders/preview", "POST",
                         {"symbol": "MSFT", "side": "buy", "notional": "25", "type": "market", "timeInForce": "day"})["json"]
    assert 0 < preview["quantity"] < 1, preview
    line = f"$25.00 buys {quantity_text(preview['quantity'])} shares at {price_text(preview['price'])} a share."
    assert text_in(driver, "#amount-quantity", line).text == line
    assert WHOLE_SHARES not in line
    shoot(driver, screenshots, "fractional-trade-sheet-dollars", LAPTOP)
    press(driver, Keys.ENTER)
    sentence = text_in(driver, "#review-sentence", "Buy $25.00 of MSFT: about ").text
    assert f"about {quantity_text(preview['quantity'])} shares at about {price_text(preview['price'])} a share" in sentence, sentence
    click(driver, visible(driver, "#confirm"))
    result = text_in(driver, "#trade-result", "Done.").text

    held = position(driver, portfolio_id, "MSFT")
    assert held is not None and 0 < held["quantity"] < 1, held
    assert f"Bought {quantity_text(held['quantity'])} MSFT" in result, result
    click(driver, visible(driver, "#cancel-trade"))
    assert text_in(driver, "#held-quantity", quantity_text(held["quantity"])).text == quantity_text(held["quantity"])
    after = portfolio_of(driver, portfolio_id)
    spent = cash_before - Decimal(after["cash"])
    assert Decimal("0") < spent <= Decimal("25.00"), after
    assert spent == Decimal(held["costBasis"]), (spent, held)

    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    row = visible(driver, "tr[data-symbol=MSFT]")
    assert row.find_elements(By.TAG_NAME, "td")[1].text == quantity_text(held["quantity"])
    assert visible(driver, "#cash").text == money_text(after["cash"])
    shoot(driver, screenshots, "fractional-holdings", LAPTOP)


def test_a_fraction_is_sold_by_shares_and_the_rest_is_exact(server, driver_factory):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "fsel" + uuid.uuid4().hex[:8])
    made = fetch_json(driver, "/api/v1/portfolios", "POST", {"name": "Slices", "fractionalShares": True})
    assert made["status"] == 201, made
    portfolio_id = made["json"]["id"]
    bought = fetch_json(driver, f"/api/v1/portfolios/{portfolio_id}/orders", "POST", {"symbol": "AAPL", "side": "buy", "notional": "100"})
    assert bought["status"] == 201 and bought["json"]["status"] == "filled", bought
    held = Decimal(repr(position(driver, portfolio_id, "AAPL")["quantity"]))
    half = (held / 2).quantize(Decimal("0.000001"), rounding=ROUND_DOWN)
    assert half != half.to_integral_value() and half.as_tuple().exponent == -6, half
    select(driver, portfolio_id)

    open_stock(driver, server, "AAPL")
    assert visible(driver, "#held-quantity").text == quantity_text(float(held))
    click(driver, visible(driver, "#sell"))
    visible(driver, "#fraction-note")
    assert visible(driver, "#quantity").get_attribute("inputmode") == "decimal"
    text_in(driver, "#max-text", f"You hold {quantity_text(float(held))} shares.")
    field = type_amount(driver, str(half))
    preview = fetch_json(driver, f"/api/v1/portfolios/{portfolio_id}/orders/preview", "POST",
                         {"symbol": "AAPL", "side": "sell", "quantity": float(half)})["json"]
    assert preview["problems"] == [] and Decimal(repr(preview["quantity"])) == half, preview
    text_in(driver, "#estimate", money_text(preview["total"]))
    text_in(driver, "#cash-after", money_text(preview["cashAfter"]))
    assert driver.find_element(By.ID, "trade-error").text == ""
    field.send_keys(Keys.ENTER)
    visible(driver, "#confirm")
    assert f"Sell {quantity_text(float(half))} shares of AAPL" in driver.find_element(By.ID, "dialog").text
    click(driver, driver.find_element(By.ID, "confirm"))
    text_in(driver, "#trade-result", f"Sold {quantity_text(float(half))} AAPL")
    click(driver, visible(driver, "#cancel-trade"))

    rest = position(driver, portfolio_id, "AAPL")
    assert rest is not None and Decimal(repr(rest["quantity"])) == held - half, (rest, held, half)
    text_in(driver, "#held-quantity", quantity_text(rest["quantity"]))
    assert driver.find_element(By.ID, "held-quantity").text == quantity_text(rest["quantity"])


def test_the_history_tells_a_fractional_trade_to_the_last_decimal(server, driver_factory):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "fhis" + uuid.uuid4().hex[:8])
    made = fetch_json(driver, "/api/v1/portfolios", "POST", {"name": "Crumbs", "fractionalShares": True})["json"]
    bought = fetch_json(driver, f"/api/v1/portfolios/{made['id']}/orders", "POST", {"symbol": "MSFT", "side": "buy", "notional": "25"})
    assert bought["status"] == 201 and bought["json"]["status"] == "filled", bought
    select(driver, made["id"])
    go(driver, server, "history")
    row = visible(driver, "#activities tr[data-type=buy]")
    assert f"Bought {quantity_text(bought['json']['filledQuantity'])} MSFT" in row.text, row.text


def test_the_button_not_chosen_says_it_is_not_pressed(server, driver_factory):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "fpre" + uuid.uuid4().hex[:8])
    open_stock(driver, server, "MSFT")
    click(driver, visible(driver, "#buy"))
    assert visible(driver, "#by-dollars").get_attribute("aria-pressed") == "false"


def test_a_whole_share_portfolio_buys_by_amount_in_whole_shares(server, driver_factory, screenshots):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "whole" + uuid.uuid4().hex[:8])
    main = main_portfolio(driver)
    assert not main["rules"].get("fractionalShares"), main["rules"]
    price = Decimal(fetch_json(driver, "/api/v1/assets/MSFT")["json"]["price"])
    open_stock(driver, server, "MSFT")
    click(driver, visible(driver, "#buy"))
    assert not driver.find_elements(By.ID, "fraction-note")
    by_dollars_with_the_keyboard(driver)

    # Less than one share: the server's problem, no quantity, and Place is disabled in review.
    small = (price / 2).quantize(Decimal("1"), rounding=ROUND_DOWN)
    field = type_amount(driver, small)
    problem = text_in(driver, "#trade-error", "one share").text
    assert money_text(str(small)) in problem, problem
    assert driver.find_element(By.ID, "amount-quantity").text == ""
    field.send_keys(Keys.ENTER)
    text_in(driver, "#review-sentence", f"Buy {money_text(str(small))} of MSFT")
    assert "one share" in visible(driver, "#trade-error").text
    assert not driver.find_element(By.ID, "confirm").is_enabled()
    shoot(driver, screenshots, "fractional-whole-share-refused", LAPTOP)

    # Three and a half shares' worth: three whole shares, and the line says why.
    click(driver, driver.find_element(By.ID, "back"))
    wait(driver).until(lambda d: d.find_element(By.ID, "by-dollars").get_attribute("aria-pressed") == "true")
    amount = (price * Decimal("3.5")).quantize(Decimal("1"), rounding=ROUND_DOWN)
    field = type_amount(driver, amount)
    line = text_in(driver, "#amount-quantity", WHOLE_SHARES).text
    assert f"buys 3 shares at {price_text(str(price))} a share" in line, line
    wait(driver).until(lambda d: d.find_element(By.ID, "trade-error").text == "")
    field.send_keys(Keys.ENTER)
    text_in(driver, "#review-sentence", f"Buy {money_text(str(amount))} of MSFT: about 3 shares")
    click(driver, visible(driver, "#confirm"))
    text_in(driver, "#trade-result", "Bought 3 MSFT")
    held = position(driver, main["id"], "MSFT")
    assert held["quantity"] == 3 and float(held["quantity"]).is_integer(), held
    assert Decimal(main["cash"]) - Decimal(main_portfolio(driver)["cash"]) == Decimal(held["costBasis"]) <= amount


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x800"])
def test_the_sheet_in_dollars_fits_phones_and_laptops(server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    sign_up(driver, server, "ffit" + uuid.uuid4().hex[:8])
    made = fetch_json(driver, "/api/v1/portfolios", "POST", {"name": "Fit", "fractionalShares": True})
    assert made["status"] == 201, made
    select(driver, made["json"]["id"])
    open_stock(driver, server, "MSFT")
    click(driver, visible(driver, "#buy"))
    by_dollars_with_the_keyboard(driver)
    type_amount(driver, "250")
    text_in(driver, "#amount-quantity", "$250.00 buys ")
    visible(driver, "#fraction-note")
    box = driver.execute_script("const r = document.getElementById('dialog').getBoundingClientRect(); return [r.left, r.right, window.innerWidth]")
    assert box[0] >= 0 and box[1] <= box[2], f"{size}: the trade sheet is wider than the screen: {box}"
    inner = driver.execute_script("const d = document.getElementById('dialog'); return d.scrollWidth - d.clientWidth")
    assert inner <= 0, f"{size}: the sheet scrolls sideways by {inner}px"
    toggle = driver.execute_script("""const r = document.querySelector('.order-by').getBoundingClientRect(),
        d = document.getElementById('dialog').getBoundingClientRect(); return [r.right, d.right]""")
    assert toggle[0] <= toggle[1], f"{size}: the Shares/Dollars toggle sticks out of the sheet: {toggle}"
    driver.save_screenshot(str(screenshots / f"fractional-trade-sheet-{size[0]}x{size[1]}.png"))
