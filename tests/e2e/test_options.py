"""Options in a real browser (Fishback's game): in a replay of January 2020, a player opens Apple's
page, studies its option chain (calls and puts, expirations, with the keyboard), opens a contract's
sheet with its payoff at expiry, buys a call in the money through the trade sheet, sees it on the
portfolio's card for AAPL, advances the replay past the expiration and finds the exercise in the
advance's summary and in History with the cash the server counted. Also: exercising from the
portfolio's card after a confirmation, a league that trades stocks only, the help, a phone's
layout, and every colour scheme. Every figure is compared with the server's answer, never
recomputed here."""
import uuid
from decimal import Decimal

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from test_webapp import (CONTRAST_SCRIPT, LAPTOP, PHONE, click, fetch_json, go, loaded, money_text, open_page_with_csp_listener,
                         sign_up, text_in, use_appearance, visible, wait)
from test_replay import NO_STYLE_ATTRIBUTES, check_layout, fill_new_profile, focused_id, press, price_text, server_portfolio, shoot, tab_to

START = "2020-01-02"          # the replay's first day (a Thursday)
EXPIRATION = "2020-01-17"     # that month's third Friday: the nearest monthly expiration
LATER = "2020-02-21"          # February's monthly expiration, for exercising early

DIALOG_CONTRAST_SCRIPT = CONTRAST_SCRIPT.replace("'main *, nav *, #banners *, #first-run *'", "'#dialog *'")
assert DIALOG_CONTRAST_SCRIPT != CONTRAST_SCRIPT


def signed_money_text(decimal_text):
    """The app's text of a signed amount: '-7500.00' → '−$7,500.00', '12.5' → '+$12.50', '0' → '$0.00'."""
    value = Decimal(decimal_text)
    if value == 0:
        return "$0.00"
    return ("−" if value < 0 else "+") + money_text(str(abs(value)))


def chain(driver, expiration=EXPIRATION, as_of=START, symbol="AAPL"):
    answer = fetch_json(driver, f"/api/v1/options/{symbol}/chain?expiration={expiration}&asOf={as_of}")
    assert answer["status"] == 200, answer
    return answer["json"]


def itm_call_near_the_money(chain_answer):
    """The call in the money nearest the price: the lower of the two strikes near the money."""
    row = next(r for r in chain_answer["strikes"] if r["nearTheMoney"] and r["call"]["inTheMoney"])
    return row["call"]


def new_replay(driver, server, name="Options"):
    """A replay profile starting on START with $100,000.00, made with the new-profile screen."""
    date = fill_new_profile(driver, server, name=name, month=START[5:7], year=START[:4])
    assert date.text == "Thu, Jan 2, 2020"
    return server_portfolio(driver)


def shown(driver, what):
    """The chain table's `data-{what}` (type, expiration), read in one step: the table is drawn again as the choice changes."""
    return driver.execute_script("return document.getElementById('chain-table')?.dataset[arguments[0]] ?? null", what)


def show(driver, server, screen):
    """Opens `#/{screen}` drawn afresh, also when it is the one showing (the same address does not draw it again)."""
    go(driver, server, screen)
    driver.refresh()
    loaded(driver, screen)


def open_chain(driver, server, symbol="AAPL"):
    go(driver, server, f"stock/{symbol}/options")
    loaded(driver, f"stock/{symbol}/options")
    return visible(driver, "#chain-table")


def choose_expiration(driver, expiration):
    Select(visible(driver, "#option-expiration")).select_by_value(expiration)
    wait(driver).until(lambda d: shown(d, "expiration") == expiration)


def buy_through_the_sheet(driver, contract_symbol, quantity=1):
    """Opens the contract's sheet from its chain row, then buys `quantity` contracts through the trade sheet."""
    click(driver, visible(driver, f"#chain-table tr[data-contract='{contract_symbol}']"))
    click(driver, visible(driver, "#sheet-buy"))
    field = visible(driver, "#quantity")
    field.clear()
    field.send_keys(str(quantity))
    driver.find_element(By.ID, "review").click()
    visible(driver, "#confirm").click()
    return text_in(driver, "#trade-result", "Bought")


def test_buy_a_call_in_a_replay_and_find_its_exercise_in_history(server, driver_factory, screenshots):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "opt" + uuid.uuid4().hex[:8])
    portfolio = new_replay(driver, server)

    # Apple's page shows its chain as of the replay's date, nearest expiration first, with the model in words.
    table = open_chain(driver, server)
    nearest = chain(driver, expiration=fetch_json(driver, f"/api/v1/options/AAPL/chain?asOf={START}")["json"]["expiration"])
    assert table.get_attribute("data-expiration") == nearest["expiration"] and table.get_attribute("data-type") == "call"
    assert nearest["model"]["asOf"] == START
    assert "Modelled prices, not real quotes" in visible(driver, "#option-model").text
    expirations = [o.get_attribute("value") for o in Select(driver.find_element(By.ID, "option-expiration")).options]
    assert expirations == nearest["expirations"]
    assert driver.find_element(By.ID, "options-help-link").get_attribute("href").endswith("#/help/options")
    # The company's chart offers Fishback's switch too: about a month (20 trading days) and five years.
    assert driver.find_elements(By.CSS_SELECTOR, "[data-range='20D']") and driver.find_elements(By.CSS_SELECTOR, "[data-range='5Y']")

    # The monthly expiration; its call in the money nearest the price is marked so, with the server's prices.
    choose_expiration(driver, EXPIRATION)
    answer = chain(driver)
    call = itm_call_near_the_money(answer)
    symbol = call["contract"]["positionSymbol"]
    row = visible(driver, f"#chain-table tr[data-contract='{symbol}']")
    assert "itm" in row.get_attribute("class").split() and "near" in row.get_attribute("class").split()
    cells = row.find_elements(By.TAG_NAME, "td")
    assert cells[1].text == price_text(call["bid"]) and cells[2].text == price_text(call["ask"])
    assert "ITM" in cells[0].text and "near" in cells[0].text
    assert len(driver.find_elements(By.CSS_SELECTOR, "#chain-table tr.near")) == 2
    assert price_text(answer["model"]["spot"]) in visible(driver, "#chain-table tr.spot-row").text
    shoot(driver, screenshots, "options-chain", LAPTOP)

    # Its sheet: the terms, the quote, the greeks explained, the payoff at expiry with its zero line and break-even.
    click(driver, row)
    text_in(driver, "#dialog-title", call["contract"]["title"])   # shown while the contract loads, too
    assert visible(driver, "#sheet-ask").text.startswith(price_text(call["ask"]))
    assert driver.find_element(By.ID, "sheet-break-even").text == price_text(call["breakEven"])
    assert driver.find_element(By.ID, "sheet-days").text == str(call["daysToExpiration"])
    greeks = driver.find_element(By.ID, "sheet-greeks").text
    assert all(name in greeks for name in ["Delta", "Gamma", "Theta", "Vega", "Rho"]) and "time decay" in greeks
    visible(driver, "#payoff-chart polyline")
    assert driver.find_elements(By.CSS_SELECTOR, "#payoff-chart [data-role=reference]")
    assert driver.find_elements(By.CSS_SELECTOR, "#payoff-chart [data-role=marker]")
    assert f"Break-even {price_text(call['breakEven'])}" in driver.find_element(By.ID, "payoff-chart").text
    visible(driver, "#option-history-chart polyline")
    assert driver.find_element(By.ID, "sheet-help-link").get_attribute("href").endswith("#/help/options")
    shoot(driver, screenshots, "options-sheet", LAPTOP)

    # Buying one contract: the trade sheet explains the 100 shares and shows the server's estimate first.
    click(driver, visible(driver, "#sheet-buy"))
    assert "One contract is 100 shares" in visible(driver, "#contract-note").text
    preview = fetch_json(driver, f"/api/v1/portfolios/{portfolio['id']}/orders/preview", "POST",
                         {"instrument": "option", "symbol": symbol, "side": "buy", "quantity": 1})["json"]
    text_in(driver, "#estimate", money_text(preview["total"]))
    assert driver.find_element(By.ID, "cash-after").text == money_text(preview["cashAfter"])
    driver.find_element(By.ID, "review").click()
    assert "Do you want to complete this transaction?" in visible(driver, "#review-sentence").text
    text_in(driver, "#review-total", money_text(preview["total"]))
    visible(driver, "#confirm").click()
    result = text_in(driver, "#trade-result", "Bought 1 contract of").text
    assert call["contract"]["title"] in result and price_text(call["ask"]) in result
    driver.find_element(By.ID, "cancel-trade").click()

    # The portfolio has a card for AAPL with the contract, its value and its profit or loss as the server counts them.
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    positions = fetch_json(driver, f"/api/v1/portfolios/{portfolio['id']}/positions")["json"]["positions"]
    held = next(p for p in positions if p["symbol"] == symbol)
    card = visible(driver, "section.option-card[data-underlying=AAPL]")
    line = card.find_element(By.CSS_SELECTOR, f"tr[data-contract='{symbol}']")
    assert line.find_element(By.CSS_SELECTOR, "[data-role=contracts]").text == "1"
    assert line.find_element(By.CSS_SELECTOR, "[data-role=value]").text == money_text(held["marketValue"])
    assert card.find_element(By.CSS_SELECTOR, "[data-role=price]").text == price_text(held["underlyingPrice"]) == price_text(answer["model"]["spot"])
    assert held["inTheMoney"] and "ITM" in line.text
    assert not driver.find_elements(By.CSS_SELECTOR, f"#holdings tr[data-symbol='{symbol}']")   # not twice
    shoot(driver, screenshots, "options-portfolio", LAPTOP)

    # A month later the contract has expired in the money: exercised at its close, with the cash there.
    click(driver, visible(driver, "#advance-21"))
    summary = visible(driver, "#summary-settlements")
    settled = summary.find_element(By.CSS_SELECTOR, f"li[data-contract='{symbol}']")
    assert settled.get_attribute("data-outcome") == "exercised"
    assert "Exercised at expiry 1 contract of" in settled.text
    assert not driver.find_elements(By.CSS_SELECTOR, "section.option-card")
    visible(driver, "#holdings tr[data-symbol=AAPL]")

    # History, options only: the exercise of the contract and the 100 shares it bought at the strike, for the cash the server moved.
    activities = fetch_json(driver, f"/api/v1/portfolios/{portfolio['id']}/activities?limit=50")["json"]["activities"]
    shares_leg = next(a for a in activities if a["type"] == "option_exercise" and "option" not in a)
    assert shares_leg["symbol"] == "AAPL" and shares_leg["quantity"] == 100 and shares_leg["price"] == call["contract"]["strike"]
    go(driver, server, "history")
    loaded(driver, "history")
    click(driver, visible(driver, "[data-filter=options]"))
    wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-filter=options]").get_attribute("aria-pressed") == "true")
    rows = driver.find_elements(By.CSS_SELECTOR, "#activities tr[data-type]")
    assert {r.get_attribute("data-type") for r in rows} == {"buy", "option_exercise"}
    texts = [r.text for r in rows]
    assert any(f"Exercised 1 contract of {call['contract']['title']}" in t for t in texts), texts
    assert any(f"Bought 1 contract of {call['contract']['title']}" in t for t in texts), texts
    assert not any(symbol in t for t in texts)   # contracts go by their title, not their symbol
    bought_shares = next(r for r in rows if r.get_attribute("data-type") == "option_exercise" and "100 shares of AAPL" in r.text)
    cells = bought_shares.find_elements(By.TAG_NAME, "td")
    assert cells[3].text == signed_money_text(shares_leg["amount"])
    assert shares_leg["date"] == EXPIRATION and cells[0].text == "Jan 17, 2020"   # a replay's entries go by its dates
    assert shares_leg["amount"].startswith("-")
    shoot(driver, screenshots, "options-history", LAPTOP)


def test_the_chain_switches_calls_puts_and_expirations_by_keyboard(server, driver_factory):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "key" + uuid.uuid4().hex[:8])
    new_replay(driver, server)
    open_chain(driver, server)
    calls = driver.find_element(By.CSS_SELECTOR, "[data-option-type=call]")
    puts = driver.find_element(By.CSS_SELECTOR, "[data-option-type=put]")
    assert calls.get_attribute("aria-pressed") == "true"

    # Puts, with Tab and Enter; then calls again with Space.
    tab_to_element(driver, puts)
    press(driver, Keys.ENTER)
    wait(driver).until(lambda d: shown(d, "type") == "put")
    assert puts.get_attribute("aria-pressed") == "true" and calls.get_attribute("aria-pressed") == "false"
    answer = chain(driver, expiration=shown(driver, "expiration"))
    itm_puts = {r["put"]["contract"]["positionSymbol"] for r in answer["strikes"] if r["put"]["inTheMoney"]}
    assert {r.get_attribute("data-contract") for r in driver.find_elements(By.CSS_SELECTOR, "#chain-table tr.itm")} == itm_puts
    tab_to_element(driver, calls, backwards=True)
    press(driver, Keys.SPACE)
    wait(driver).until(lambda d: shown(d, "type") == "call")

    # The next expiration with the arrow key on the picker.
    picker = driver.find_element(By.ID, "option-expiration")
    first = picker.get_attribute("value")
    tab_to(driver, "option-expiration")
    press(driver, Keys.ARROW_DOWN)
    wait(driver).until(lambda d: shown(d, "expiration") != first)
    second = shown(driver, "expiration")
    assert second == answer["expirations"][1]

    # A row opens its sheet with Enter; Escape closes it and the focus goes back to the row.
    row = driver.find_elements(By.CSS_SELECTOR, "#chain-table tr[data-contract]")[3]
    tab_to_element(driver, row)
    press(driver, Keys.ENTER)
    visible(driver, "#payoff-chart polyline")
    press(driver, Keys.ESCAPE)
    wait(driver).until(lambda d: not d.find_element(By.ID, "dialog").get_attribute("open"))
    assert driver.switch_to.active_element.get_attribute("data-contract") == row.get_attribute("data-contract")


def tab_to_element(driver, element, backwards=False, limit=80):
    """Presses Tab (or Shift+Tab) until `element` has the focus."""
    for _ in range(limit):
        if driver.switch_to.active_element == element:
            return
        if backwards:
            ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        else:
            ActionChains(driver).send_keys(Keys.TAB).perform()
    raise AssertionError(f"Tab never reached {element.get_attribute('outerHTML')[:80]}")


def buy_by_api(driver, portfolio_id, quote, quantity=1):
    """Buys `quantity` contracts of a chain's quote through the API (the trade sheet has its own test)."""
    answer = fetch_json(driver, f"/api/v1/portfolios/{portfolio_id}/orders", "POST",
                        {"instrument": "option", "symbol": quote["contract"]["symbol"], "side": "buy", "quantity": quantity})
    assert answer["status"] == 201, answer
    return answer["json"]


def test_exercise_from_the_portfolio_card_after_a_confirmation(server, driver_factory, screenshots):
    driver = driver_factory(*PHONE)
    sign_up(driver, server, "exe" + uuid.uuid4().hex[:8])
    portfolio = new_replay(driver, server)
    deep = chain(driver, expiration=LATER)["strikes"][0]["call"]      # the lowest strike: deep in the money
    far = chain(driver, expiration=LATER)["strikes"][-1]["call"]      # the highest: far out of it
    buy_by_api(driver, portfolio["id"], deep, 2)
    buy_by_api(driver, portfolio["id"], far, 1)
    before_any = server_portfolio(driver)
    show(driver, server, "portfolio")
    card = visible(driver, "section.option-card[data-underlying=AAPL]")
    assert "No shares of AAPL held" in card.find_element(By.CSS_SELECTOR, "[data-role=shares]").text
    assert not card.find_element(By.CSS_SELECTOR, f"[data-exercise='{far['contract']['positionSymbol']}']").is_enabled()
    check_layout(driver, "portfolio with option cards")
    shoot(driver, screenshots, "options-portfolio", PHONE)

    # Exercise asks first, saying what will happen; Cancel changes nothing.
    click(driver, card.find_element(By.CSS_SELECTOR, f"[data-exercise='{deep['contract']['positionSymbol']}']"))
    dialog = visible(driver, "#dialog")
    assert "You have chosen to exercise 2 contracts" in dialog.text and "Do you want to complete this transaction?" in dialog.text
    # What it will do, as the server counts it: the shares, what they cost, the cash before and after.
    preview = fetch_json(driver, f"/api/v1/portfolios/{portfolio['id']}/options/{deep['contract']['positionSymbol']}/exercise/preview",
                         "POST", {"contracts": 2})["json"]
    assert preview["problems"] == [] and preview["settlement"]["shares"] == 200
    effect = text_in(driver, "#exercise-effect", "your cash goes from").text
    assert (f"buys 200 shares of AAPL at the {price_text(deep['contract']['strike'])} strike for "
            f"{money_text(preview['settlement']['cashDelta'].lstrip('-'))}") in effect, effect
    assert f"from {money_text(preview['cashBefore'])} to {money_text(preview['cashAfter'])}" in effect
    field = driver.find_element(By.ID, "exercise-contracts")
    field.clear()
    field.send_keys("1")
    text_in(driver, "#exercise-effect", "buys 100 shares of AAPL")
    # More than held: the server's problem shows and the button is off.
    field.clear()
    field.send_keys("5")
    text_in(driver, "#confirm-error", "hold 2")
    assert not driver.find_element(By.ID, "confirm-step").is_enabled()
    field.clear()
    field.send_keys("1")
    wait(driver).until(lambda d: d.find_element(By.ID, "confirm-step").is_enabled())
    check_layout(driver, "exercise dialog")
    driver.find_element(By.ID, "cancel-step").click()
    wait(driver).until(lambda d: not d.find_element(By.ID, "dialog").get_attribute("open"))
    assert server_portfolio(driver)["cash"] == before_any["cash"]
    click(driver, visible(driver, f"[data-exercise='{deep['contract']['positionSymbol']}']"))
    field = visible(driver, "#exercise-contracts")
    field.clear()
    field.send_keys("1")
    before = server_portfolio(driver)
    driver.find_element(By.ID, "confirm-step").click()

    # The toast tells what the server did; the card shows one contract left and the 100 shares bought.
    toast = text_in(driver, "#toast", "Exercised 1 contract of")
    assert f"bought 100 shares of AAPL at the ${deep['contract']['strike']} strike" in toast.text
    after = server_portfolio(driver)
    assert Decimal(after["cash"]) < Decimal(before["cash"])
    wait(driver).until(lambda d: "You hold 100 shares of AAPL" in d.find_element(By.CSS_SELECTOR, "section.option-card [data-role=shares]").text)
    line = driver.find_element(By.CSS_SELECTOR, f"tr[data-contract='{deep['contract']['positionSymbol']}']")
    assert line.find_element(By.CSS_SELECTOR, "[data-role=contracts]").text == "1"
    assert driver.find_element(By.ID, "cash").text == money_text(after["cash"])
    activities = fetch_json(driver, f"/api/v1/portfolios/{portfolio['id']}/activities?limit=50")["json"]["activities"]
    paid = next(a for a in activities if a["type"] == "option_exercise" and "option" not in a)["amount"]
    assert Decimal(after["cash"]) == Decimal(before["cash"]) + Decimal(paid)

    # Selling the other contract goes through the trade sheet, which asks the seed's question.
    click(driver, visible(driver, f"[data-sell='{deep['contract']['positionSymbol']}']"))
    visible(driver, "#quantity")
    driver.find_element(By.ID, "review").click()
    assert "You have chosen to sell 1 contract of" in visible(driver, "#review-sentence").text
    check_layout(driver, "sell review")
    visible(driver, "#confirm").click()
    text_in(driver, "#trade-result", "Sold 1 contract of")
    driver.find_element(By.ID, "cancel-trade").click()
    wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, f"tr[data-contract='{deep['contract']['positionSymbol']}']"))


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x800"])
def test_option_screens_fit_a_phone_and_a_laptop(server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    sign_up(driver, server, "fit" + uuid.uuid4().hex[:8])
    portfolio = new_replay(driver, server)
    call = itm_call_near_the_money(chain(driver))
    buy_by_api(driver, portfolio["id"], call)
    open_chain(driver, server)
    choose_expiration(driver, EXPIRATION)
    check_layout(driver, "stock page with the chain")
    shoot(driver, screenshots, "options-stock", size)
    click(driver, visible(driver, f"#chain-table tr[data-contract='{call['contract']['positionSymbol']}']"))
    visible(driver, "#payoff-chart polyline")
    # The sheet holds a contract: Sell and Exercise show beside Buy; nothing is wider than the screen.
    visible(driver, "#sheet-sell")
    assert driver.find_element(By.ID, "sheet-exercise").is_enabled()
    check_layout(driver, "contract sheet")
    dialog_width = driver.execute_script("return document.getElementById('dialog').getBoundingClientRect().right")
    assert dialog_width <= size[0]
    inner = driver.execute_script("const d = document.getElementById('dialog'); return d.scrollWidth - d.clientWidth")
    assert inner <= 0, f"the sheet scrolls sideways by {inner}px"
    driver.save_screenshot(str(screenshots / f"options-sheet-{size[0]}x{size[1]}.png"))
    press(driver, Keys.ESCAPE)
    show(driver, server, "portfolio")
    visible(driver, "section.option-card")
    check_layout(driver, "portfolio with option cards")
    # Past the expiration: the advance's summary lists the settlement; History tells it in words.
    click(driver, visible(driver, "#advance-21"))
    visible(driver, "#summary-settlements")
    check_layout(driver, "advance summary with settlements")
    driver.save_screenshot(str(screenshots / f"options-advance-{size[0]}x{size[1]}.png"))
    for screen in ["history", "help/options"]:
        go(driver, server, screen)
        loaded(driver, screen)
        check_layout(driver, screen)
    text_in(driver, "#options-help", "Options")
    assert focused_id(driver) == "options-help"
    help_text = driver.find_element(By.ID, "main").text
    for words in ["right to buy", "right to sell", "settled in cash", "expires worthless", "theta", "Black-Scholes-Merton"]:
        assert words in help_text, words


def test_a_league_that_trades_stocks_only_shows_the_chain_but_not_the_buy(server, driver_factory):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "lea" + uuid.uuid4().hex[:8])
    created = fetch_json(driver, "/api/v1/leagues", "POST", {"name": "Stocks " + uuid.uuid4().hex[:6], "visibility": "private"})
    assert created["status"] == 201, created
    league = created["json"]
    assert league["rules"].get("allowOptions") is False
    driver.execute_script("localStorage.setItem('bullpen.portfolio', arguments[0])", league["myPortfolioId"])
    open_chain(driver, server)
    assert "stocks only" in visible(driver, "#options-not-allowed").text
    click(driver, driver.find_elements(By.CSS_SELECTOR, "#chain-table tr[data-contract]")[5])
    visible(driver, "#payoff-chart polyline")
    assert not driver.find_element(By.ID, "sheet-buy").is_enabled()


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("palette", ["standard", "colorblind"])
def test_option_screens_meet_aa_contrast_without_inline_styles(server, driver_factory, theme, palette):
    driver = driver_factory(*LAPTOP)
    open_page_with_csp_listener(driver)
    use_appearance(driver, server, theme, palette)
    sign_up(driver, server, "oaa" + uuid.uuid4().hex[:8])
    created = fetch_json(driver, "/api/v1/portfolios", "POST", {"name": "Contrast", "replay": {"start": START}})
    assert created["status"] == 201, created
    portfolio = created["json"]
    driver.execute_script("localStorage.setItem('bullpen.portfolio', arguments[0])", portfolio["id"])
    driver.refresh()
    call = itm_call_near_the_money(chain(driver))
    buy_by_api(driver, portfolio["id"], call)
    buy_by_api(driver, portfolio["id"], chain(driver)["strikes"][-1]["call"])   # out of the money, for the other tones

    def check(name, script=CONTRAST_SCRIPT):
        failures = driver.execute_script(script)
        assert failures == [], f"{theme}/{palette} {name}: {failures[:5]}"
        assert driver.execute_script(NO_STYLE_ATTRIBUTES) == [], f"{name}: elements with a style attribute"
        violations = driver.execute_script("return window.__cspViolations")
        assert violations == [], f"{name}: {violations}"

    open_chain(driver, server)
    check("chain of calls")
    click(driver, driver.find_element(By.CSS_SELECTOR, "[data-option-type=put]"))
    wait(driver).until(lambda d: shown(d, "type") == "put")
    check("chain of puts")
    click(driver, visible(driver, "#chain-table tr.itm"))
    visible(driver, "#payoff-chart polyline")
    check("contract sheet", DIALOG_CONTRAST_SCRIPT)
    press(driver, Keys.ESCAPE)
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    visible(driver, "section.option-card")
    check("portfolio with option cards")
    click(driver, visible(driver, "#advance-21"))
    visible(driver, "#summary-settlements")
    check("advance summary with settlements")
    go(driver, server, "history")
    loaded(driver, "history")
    click(driver, visible(driver, "[data-filter=options]"))
    check("history of options")
    go(driver, server, "help/options")
    loaded(driver, "help/options")
    check("help on options")


def test_writing_a_covered_call_then_its_assignment_at_expiry(server, driver_factory, screenshots):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "wri" + uuid.uuid4().hex[:8])
    created = fetch_json(driver, "/api/v1/portfolios", "POST", {"name": "Writer", "replay": {"start": START}, "optionWriting": True})
    assert created["status"] == 201, created
    portfolio = created["json"]
    assert portfolio["rules"]["optionWriting"] is True
    driver.execute_script("localStorage.setItem('bullpen.portfolio', arguments[0])", portfolio["id"])
    assert fetch_json(driver, f"/api/v1/portfolios/{portfolio['id']}/orders", "POST",
                      {"symbol": "AAPL", "side": "buy", "quantity": 200})["status"] == 201
    answer = chain(driver)
    call = itm_call_near_the_money(answer)
    symbol = call["contract"]["positionSymbol"]

    # The sheet of a contract not held offers to write it; the trade sheet says what writing binds you to.
    open_chain(driver, server)
    choose_expiration(driver, EXPIRATION)
    click(driver, visible(driver, f"#chain-table tr[data-contract='{symbol}']"))
    click(driver, visible(driver, "#sheet-write"))
    assert "deliver 100 of your shares" in visible(driver, "#writing-note").text
    field = visible(driver, "#quantity")
    field.clear()
    field.send_keys("2")
    preview = fetch_json(driver, f"/api/v1/portfolios/{portfolio['id']}/orders/preview", "POST",
                         {"instrument": "option", "symbol": symbol, "side": "sell", "quantity": 2})["json"]
    text_in(driver, "#estimate", money_text(preview["total"]))
    driver.find_element(By.ID, "review").click()
    assert "You have chosen to write 2 contracts of" in visible(driver, "#review-sentence").text
    visible(driver, "#confirm").click()
    text_in(driver, "#trade-result", "Sold 2 contracts of")
    driver.find_element(By.ID, "cancel-trade").click()

    # The card calls it written: Buy to close, no Exercise.
    show(driver, server, "portfolio")
    line = visible(driver, f"section.option-card tr[data-contract='{symbol}']")
    assert "Written" in line.text and line.find_element(By.CSS_SELECTOR, "[data-role=contracts]").text == "2"
    assert line.find_elements(By.CSS_SELECTOR, "[data-buy-close]") and not line.find_elements(By.CSS_SELECTOR, "[data-exercise]")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", line)
    driver.save_screenshot(str(screenshots / "options-written-1280x800.png"))

    # Buying one back: the trade sheet counts what was written.
    click(driver, line.find_element(By.CSS_SELECTOR, "[data-buy-close]"))
    text_in(driver, "#max-text", "You wrote 2 contracts")
    driver.find_element(By.ID, "review").click()
    assert "You have chosen to buy to close 1 contract of" in visible(driver, "#review-sentence").text
    visible(driver, "#confirm").click()
    text_in(driver, "#trade-result", "Bought 1 contract of")
    driver.find_element(By.ID, "cancel-trade").click()
    wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, f"tr[data-contract='{symbol}'] [data-role=contracts]").text == "1")

    # At expiry, in the money: assigned, the 100 covering shares delivered at the strike.
    click(driver, visible(driver, "#advance-21"))
    settled = visible(driver, f"#summary-settlements li[data-contract='{symbol}']")
    assert settled.get_attribute("data-outcome") == "assigned" and "Assigned" in settled.text
    activities = fetch_json(driver, f"/api/v1/portfolios/{portfolio['id']}/activities?limit=50")["json"]["activities"]
    delivered = next(a for a in activities if a["type"] == "option_assignment" and "option" not in a)
    go(driver, server, "history")
    loaded(driver, "history")
    click(driver, visible(driver, "[data-filter=options]"))
    rows = driver.find_elements(By.CSS_SELECTOR, "#activities tr[data-type=option_assignment]")
    assert any(f"Assigned 1 contract of {call['contract']['title']}" in r.text for r in rows), [r.text for r in rows]
    shares = next(r for r in rows if "100 shares of AAPL" in r.text)
    assert "Sold 100 shares of AAPL at the strike" in shares.text
    assert shares.find_elements(By.TAG_NAME, "td")[3].text == signed_money_text(delivered["amount"])

    # The report's best trade is the buy back, told as one (writing opened, the assignment settled).
    assert fetch_json(driver, f"/api/v1/portfolios/{portfolio['id']}/end", "POST")["status"] == 200
    go(driver, server, "report")
    loaded(driver, "report")
    best = visible(driver, "#report-best").find_element(By.XPATH, "..").text
    assert f"Bought back 1 contract of {call['contract']['title']}" in best, best
