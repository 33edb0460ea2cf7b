"""Historical replay in a real browser: the seed's story (a profile "Jim" with $100.00 in March 2009
buys Microsoft, waits two months and sells), the new-profile choices, research that never shows the
future, ending and the report, the keyboard, and each replay screen at a phone's and a laptop's size
and in every palette. Every figure is compared with the server's answer, never recomputed here."""
import uuid
from decimal import Decimal

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from test_webapp import (CONTRAST_SCRIPT, LAPTOP, PHONE, click, fetch_json, go, loaded, money_text, use_appearance,
                         open_page_with_csp_listener, open_trade, sign_up, text_in, visible, wait)

NO_STYLE_ATTRIBUTES = "return [...document.querySelectorAll('[style]')].map((e) => e.outerHTML.slice(0, 120))"


def themed_player(server, driver_factory, theme, palette, prefix):
    """A laptop-sized browser in one theme and palette, recording CSP violations, signed up as a new player."""
    driver = driver_factory(*LAPTOP)
    open_page_with_csp_listener(driver)
    use_appearance(driver, server, theme, palette)
    sign_up(driver, server, prefix + uuid.uuid4().hex[:8])
    return driver


def contrast_checker(driver, theme, palette):
    """A check for a screen as drawn: AA contrast, no style attribute, no CSP violation."""
    def check(name):
        failures = driver.execute_script(CONTRAST_SCRIPT)
        assert failures == [], f"{theme}/{palette} {name}: {failures[:5]}"
        assert driver.execute_script(NO_STYLE_ATTRIBUTES) == [], f"{name}: elements with a style attribute"
        violations = driver.execute_script("return window.__cspViolations")
        assert violations == [], f"{name}: {violations}"
    return check


def check_layout(driver, name):
    """Every form control has a label and nothing is wider than the screen."""
    unlabeled = driver.execute_script("""
        return [...document.querySelectorAll('main input, main select')].filter(e => e.type !== 'hidden'
          && !(e.labels && e.labels.length) && !e.getAttribute('aria-label')).map(e => e.id || e.outerHTML)""")
    assert unlabeled == [], f"{name}: unlabeled controls {unlabeled}"
    overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"{name}: {overflow}px wider than the screen"


def shoot(driver, screenshots, name, size):
    check_layout(driver, name)
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(screenshots / f"{name}-{size[0]}x{size[1]}.png"))


def price_text(decimal_text):
    """The en-US text of an API price, 2 to 4 places as the app shows it: '12.1336' → '$12.1336', '264.5800' → '$264.58'."""
    places = max(2, min(4, -Decimal(decimal_text).normalize().as_tuple().exponent))
    return "${:,.{places}f}".format(Decimal(decimal_text), places=places)


def focused_id(driver):
    return driver.execute_script("return document.activeElement && document.activeElement.id")


def tab_to(driver, element_id, limit=40):
    """Presses Tab until the element with `element_id` has the focus, as a keyboard user would."""
    for _ in range(limit):
        if focused_id(driver) == element_id:
            return driver.switch_to.active_element
        ActionChains(driver).send_keys(Keys.TAB).perform()
    raise AssertionError(f"Tab never reached #{element_id} (stopped on #{focused_id(driver)})")


def press(driver, key, times=1):
    for _ in range(times):
        ActionChains(driver).send_keys(key).perform()


def server_portfolio(driver):
    """The selected portfolio as the server tells it."""
    selected = driver.execute_script("return localStorage.getItem('bullpen.portfolio')")
    answer = fetch_json(driver, f"/api/v1/portfolios/{selected}")
    assert answer["status"] == 200, answer
    return answer["json"]


def fill_new_profile(driver, server, name=None, cash="100000", month=None, year=None, start_with="none", scenario=None,
                     random_date=False):
    """Fills the new-profile screen (a name of None keeps the one offered) and creates the profile."""
    go(driver, server, "profiles")
    loaded(driver, "profiles")
    click(driver, visible(driver, "#new-profile"))
    field = visible(driver, "#profile-name")
    if name is not None:
        field.clear()
        field.send_keys(name)
    cash_field = driver.find_element(By.ID, "profile-cash")
    cash_field.clear()
    cash_field.send_keys(cash)
    click(driver, driver.find_element(By.CSS_SELECTOR, f"[name='start-with'][value='{start_with}']"))
    if scenario:
        Select(visible(driver, "#profile-scenario")).select_by_value(scenario)
    elif random_date:
        click(driver, driver.find_element(By.ID, "random-date"))
    else:
        Select(driver.find_element(By.ID, "start-year")).select_by_value(year)
        Select(driver.find_element(By.ID, "start-month")).select_by_value(month)
    click(driver, driver.find_element(By.ID, "create-profile"))
    loaded(driver, "portfolio")
    return visible(driver, "#replay-date")


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x800"])
def test_jims_story_buy_wait_two_months_sell_end_and_report(server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    sign_up(driver, server, "jim" + uuid.uuid4().hex[:8])

    # No profiles yet; the limit and unique names are explained.
    go(driver, server, "profiles")
    loaded(driver, "profiles")
    assert "No profiles yet" in driver.find_element(By.ID, "profiles").text
    assert "up to 20 portfolios" in driver.find_element(By.ID, "profiles-limit").text

    # The new profile: the next free name is offered; the pickers stay inside the history.
    click(driver, visible(driver, "#new-profile"))
    assert visible(driver, "#profile-name").get_attribute("value") == "Profile 1"
    options = fetch_json(driver, "/api/v1/replay/scenarios")["json"]
    years = [o.get_attribute("value") for o in Select(driver.find_element(By.ID, "start-year")).options]
    assert years[0] == options["firstDate"][:4] and years[-1] == options["lastDate"][:4]
    Select(driver.find_element(By.ID, "start-year")).select_by_value(options["lastDate"][:4])
    months = Select(driver.find_element(By.ID, "start-month")).options
    assert [m.get_attribute("value") for m in months if m.is_enabled()] == [f"{m:02d}" for m in range(1, int(options["lastDate"][5:7]) + 1)]
    # The random-date switch turns the pickers off; a scenario hides them and tells its story.
    switch = driver.find_element(By.ID, "random-date")
    assert switch.get_attribute("role") == "switch"
    click(driver, switch)
    assert not driver.find_element(By.ID, "start-month").is_enabled() and not driver.find_element(By.ID, "start-year").is_enabled()
    click(driver, switch)
    assert driver.find_element(By.ID, "start-month").is_enabled()
    click(driver, driver.find_element(By.CSS_SELECTOR, "[name='start-with'][value='scenario']"))
    assert not driver.find_element(By.ID, "date-fields").is_displayed()
    first = options["scenarios"][0]
    assert first["description"][:40] in visible(driver, "#scenario-description").text
    click(driver, driver.find_element(By.CSS_SELECTOR, "[name='start-with'][value='none']"))
    assert driver.find_element(By.ID, "date-fields").is_displayed()
    shoot(driver, screenshots, "replay-new-profile", size)

    # Jim starts in March 2009 with $100.00.
    date = fill_new_profile(driver, server, name="Jim", cash="100", month="03", year="2009")
    assert date.text == "Mon, Mar 2, 2009"
    text_in(driver, "[data-testid=replay-banner]", "Replay · Mon, Mar 2, 2009")
    assert not driver.find_elements(By.CSS_SELECTOR, "[data-testid=closed-banner]")
    assert driver.find_element(By.ID, "cash").text == "$100.00"

    # "Micro" finds Microsoft as of the replay's date.
    go(driver, server, "market")
    loaded(driver, "market")
    text_in(driver, "#market-as-of", "Mar 2, 2009")
    visible(driver, "#search").send_keys("Micro")
    suggestion = visible(driver, "#suggestions [role=option][data-symbol=MSFT]")
    then = fetch_json(driver, "/api/v1/assets/MSFT?asOf=2009-03-02")["json"]
    assert price_text(then["price"]) in suggestion.text
    suggestion.click()
    text_in(driver, "h1", "Microsoft")
    text_in(driver, "#as-of", "Mon, Mar 2, 2009")
    assert driver.find_element(By.ID, "price").text == price_text(then["price"])

    # Ten shares cost more than $100.00: the sheet says so and will not place the order.
    open_trade(driver, "buy", 10)
    assert "Not enough cash" in text_in(driver, "#trade-error", "Not enough cash").text
    assert not driver.find_element(By.ID, "confirm").is_enabled()
    driver.find_element(By.ID, "cancel-trade").click()

    # Five shares fill at the close of the replay's day.
    open_trade(driver, "buy", 5)
    result = text_in(driver, "#trade-result", "Bought 5 MSFT").text
    assert "the close of Mon, Mar 2, 2009 in your replay" in result, result
    driver.find_element(By.ID, "cancel-trade").click()
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    row = visible(driver, "#holdings tr[data-symbol=MSFT]")
    assert row.find_elements(By.TAG_NAME, "td")[1].text == "5"
    assert driver.find_element(By.ID, "cash").text == money_text(server_portfolio(driver)["cash"])

    # Two months pass, with the keyboard alone: "1 month" (21 trading days), then 21 more on the slider.
    tab_to(driver, "advance-21").send_keys(Keys.ENTER)
    text_in(driver, "#advance-summary", "21 trading days")
    assert focused_id(driver) == "advance-21"
    tab_to(driver, "advance-days")
    press(driver, Keys.ARROW_RIGHT, 20)
    assert driver.find_element(By.ID, "advance-days-value").text == "21 trading days"
    tab_to(driver, "advance")
    # While the server works, the controls are busy and say so.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1})
    try:
        press(driver, Keys.ENTER)
        text_in(driver, "#advance-status", "Advancing")
        assert driver.find_element(By.ID, "advance-card").get_attribute("aria-busy") == "true"
        assert not driver.find_element(By.ID, "advance-21").is_enabled()
    finally:
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    summary = text_in(driver, "#advance-summary", "Apr 30, 2009")
    assert "Mar 31, 2009" in summary.text and "21 trading days" in summary.text
    assert focused_id(driver) == "advance"
    now = server_portfolio(driver)
    assert now["clock"]["date"] == "2009-04-30"
    assert driver.find_element(By.ID, "replay-date").text == "Thu, Apr 30, 2009"
    assert driver.find_element(By.ID, "summary-after").text == money_text(now["equity"])
    assert driver.find_element(By.ID, "equity").text == money_text(now["equity"])
    assert "Moved 21 trading days" in driver.find_element(By.ID, "advance-message").text
    visible(driver, "#summary-holdings tr[data-symbol=MSFT]")
    text_in(driver, "[data-testid=replay-banner]", "Replay · Thu, Apr 30, 2009")
    shoot(driver, screenshots, "replay-portfolio", size)

    # Trends: 20 days or 3 months up to the replay's date, with the break-even at the average cost.
    click(driver, driver.find_element(By.CSS_SELECTOR, "a[data-trends=MSFT]"))
    text_in(driver, "h1", "Microsoft")
    click(driver, visible(driver, "[data-range='20D']"))
    wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-range='20D']").get_attribute("aria-pressed") == "true")
    line = wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#price-chart polyline"))[0]
    bars = fetch_json(driver, "/api/v1/assets/MSFT/bars?range=1M&asOf=2009-04-30")["json"]["bars"]
    assert bars[-1]["date"] == "2009-04-30"
    assert len(line.get_attribute("points").split()) == 20
    assert driver.find_elements(By.CSS_SELECTOR, "#price-chart [data-role=reference]")
    assert "Apr 30, 2009" in driver.find_element(By.CSS_SELECTOR, "#price-chart svg").get_attribute("aria-label")
    shoot(driver, screenshots, "replay-trends", size)
    click(driver, driver.find_element(By.CSS_SELECTOR, "[data-range='3M']"))
    wait(driver).until(lambda d: len(d.find_element(By.CSS_SELECTOR, "#price-chart polyline").get_attribute("points").split()) > 40)

    # Jim sells his five shares; the money goes to cash.
    open_trade(driver, "sell", 5)
    text_in(driver, "#trade-result", "Sold 5 MSFT")
    driver.find_element(By.ID, "cancel-trade").click()
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    assert "No holdings yet" in driver.find_element(By.ID, "holdings").text
    now = server_portfolio(driver)
    assert now["holdingsCount"] == 0 and now["cash"] == now["equity"]
    assert driver.find_element(By.ID, "cash").text == money_text(now["cash"])

    # End the replay (after a confirmation), and read the report.
    click(driver, driver.find_element(By.ID, "end-replay"))
    dialog = visible(driver, "#confirm-step")
    assert "no longer trade or advance" in driver.find_element(By.ID, "dialog").text
    dialog.click()
    loaded(driver, "report")
    text_in(driver, "h1", "Report of Jim")
    report = fetch_json(driver, f"/api/v1/portfolios/{now['id']}/report")["json"]
    assert driver.find_element(By.ID, "report-equity").text == money_text(report["endingEquity"])
    assert driver.find_element(By.ID, "report-start").text == "$100.00"
    assert "Mar 2, 2009" in driver.find_element(By.ID, "report-period").text
    assert "MSFT" in driver.find_element(By.ID, "report-best").find_element(By.XPATH, "..").text
    wait(driver).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#report-chart polyline")) == 2)
    shoot(driver, screenshots, "replay-report", size)

    # The ended replay trades and advances no more; its report stays one tap away.
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    visible(driver, "#replay-ended")
    assert not driver.find_elements(By.ID, "advance-card") and not driver.find_elements(By.ID, "end-replay")
    assert visible(driver, "#report-link").get_attribute("href").endswith("#/report")
    go(driver, server, "stock/MSFT")
    visible(driver, "#closed-note")
    assert not driver.find_element(By.ID, "buy").is_enabled()

    # The profile list shows Jim with his date and value.
    go(driver, server, "profiles")
    loaded(driver, "profiles")
    jim = visible(driver, f"li[data-profile='{now['id']}']")
    assert "Jim" in jim.text and "Apr 30, 2009" in jim.text and money_text(now["equity"]) in jim.text
    shoot(driver, screenshots, "replay-profiles", size)


def test_a_1995_scenario_cannot_find_google_and_profiles_can_be_deleted(server, driver_factory):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "y95" + uuid.uuid4().hex[:8])
    options = fetch_json(driver, "/api/v1/replay/scenarios")["json"]
    nineties = next(s for s in options["scenarios"] if s["start"].startswith("1995"))

    # A scenario brings its date and its stocks; the name offered is kept.
    fill_new_profile(driver, server, start_with="scenario", scenario=nineties["id"])
    text_in(driver, "[data-testid=replay-banner]", "Profile 1")
    portfolio = server_portfolio(driver)
    assert portfolio["clock"]["date"] == nineties["start"] and portfolio["clock"].get("scenario") == nineties["id"]
    rows = driver.find_elements(By.CSS_SELECTOR, "#holdings tr[data-symbol]")
    assert sorted(r.get_attribute("data-symbol") for r in rows) == sorted(nineties["symbols"])

    # Google was not listed in 1995: neither its name nor its symbol is found, and its page says why.
    go(driver, server, "market")
    loaded(driver, "market")
    search = visible(driver, "#search")
    for query in ["Google", "GOOGL", "Alphabet"]:
        search.clear()
        search.send_keys(query)
        text_in(driver, "#suggestions", "No matches")
    search.clear()
    search.send_keys("Micro")
    visible(driver, "#suggestions [role=option][data-symbol=MSFT]")
    go(driver, server, "stock/GOOGL")
    text_in(driver, "#not-listed", "GOOGL")
    go(driver, server, "stock/MSFT")
    text_in(driver, "#as-of", "Tue, Jan 3, 1995")

    # A random date with random stocks: five stocks bought with half the cash.
    fill_new_profile(driver, server, name="Lucky", start_with="random", random_date=True)
    text_in(driver, "[data-testid=replay-banner]", "Lucky")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#holdings tr[data-symbol]")) == 5
    lucky = server_portfolio(driver)

    # Names are unique: a second "Lucky" is refused next to the name.
    go(driver, server, "profiles/new")
    field = visible(driver, "#profile-name")
    assert field.get_attribute("value") == "Profile 2"
    field.clear()
    field.send_keys("lucky")
    click(driver, driver.find_element(By.ID, "create-profile"))
    text_in(driver, "#profile-name-error", "already have a portfolio with that name")

    # Switching profiles: Select makes one the portfolio every screen shows.
    go(driver, server, "profiles")
    loaded(driver, "profiles")
    click(driver, visible(driver, f"[data-select='{portfolio['id']}']"))
    text_in(driver, "[data-testid=replay-banner]", "Profile 1")
    visible(driver, "#replay-date")

    # Deleting asks first, says it cannot be undone, and Cancel keeps the profile.
    go(driver, server, "profiles")
    loaded(driver, "profiles")
    click(driver, visible(driver, f"[data-delete='{lucky['id']}']"))
    assert "cannot be undone" in visible(driver, "#confirm-step").find_element(By.XPATH, "ancestor::dialog").text
    driver.find_element(By.CSS_SELECTOR, "#dialog [data-close]").click()
    visible(driver, f"li[data-profile='{lucky['id']}']")
    click(driver, driver.find_element(By.CSS_SELECTOR, f"[data-delete='{lucky['id']}']"))
    visible(driver, "#confirm-step").click()
    wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, f"li[data-profile='{lucky['id']}']"))
    assert fetch_json(driver, f"/api/v1/portfolios/{lucky['id']}")["status"] == 404
    assert driver.find_elements(By.CSS_SELECTOR, f"li[data-profile='{portfolio['id']}']")


def test_a_replay_that_reaches_the_end_of_the_data_offers_its_report(server, driver_factory):
    driver = driver_factory(*PHONE)
    sign_up(driver, server, "end" + uuid.uuid4().hex[:8])
    last = fetch_json(driver, "/api/v1/replay/scenarios")["json"]["lastDate"]
    fill_new_profile(driver, server, name="Late", month=last[5:7], year=last[:4])
    tab_to(driver, "advance-21").send_keys(Keys.ENTER)
    text_in(driver, "#end-of-data", "The data ends")
    assert "data ran out" in driver.find_element(By.ID, "advance-message").text
    assert server_portfolio(driver)["clock"]["date"] == last
    # Time cannot move further: the controls give way to a notice, and the report is next (and has the focus).
    visible(driver, "#replay-at-end")
    assert not driver.find_elements(By.ID, "advance-card")
    assert focused_id(driver) == "report-link"
    press(driver, Keys.ENTER)
    loaded(driver, "report")
    text_in(driver, "h1", "Report of Late")
    assert "to the end of the data" in driver.find_element(By.ID, "report-period").text


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("palette", ["standard", "colorblind"])
def test_replay_screens_meet_aa_contrast_without_inline_styles(server, driver_factory, theme, palette):
    driver = themed_player(server, driver_factory, theme, palette, "raa")
    scenario = fetch_json(driver, "/api/v1/replay/scenarios")["json"]["scenarios"][0]["id"]
    created = fetch_json(driver, "/api/v1/portfolios", "POST", {"name": "Contrast", "replay": {"scenario": scenario}})
    assert created["status"] == 201, created
    driver.execute_script("localStorage.setItem('bullpen.portfolio', arguments[0])", created["json"]["id"])
    driver.refresh()
    symbol = fetch_json(driver, f"/api/v1/portfolios/{created['json']['id']}/positions")["json"]["positions"][0]["symbol"]

    check = contrast_checker(driver, theme, palette)

    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    click(driver, visible(driver, "#advance-5"))
    visible(driver, "#advance-summary")
    check("portfolio with the advance summary")
    for screen in ["profiles", "profiles/new", "market", f"stock/{symbol}", "help"]:
        go(driver, server, screen)
        loaded(driver, screen)
        if screen == "profiles/new":
            click(driver, driver.find_element(By.CSS_SELECTOR, "[name='start-with'][value='scenario']"))
            click(driver, driver.find_element(By.CSS_SELECTOR, "[name='start-with'][value='none']"))
            click(driver, driver.find_element(By.ID, "random-date"))
        if screen.startswith("stock/"):
            wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#price-chart [data-role=reference]"))
        check(screen)
    assert fetch_json(driver, f"/api/v1/portfolios/{created['json']['id']}/end", "POST")["status"] == 200
    for screen in ["report", "portfolio"]:
        go(driver, server, screen)
        loaded(driver, screen)
        check(f"{screen} of the ended replay")
