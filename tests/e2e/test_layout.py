"""The app's layout and its price charts, at the widths people use (issue 19):
- no main screen is wider than the window at 1280, 1024, 768, 390 or 360 px, on the demo exchange
  and on the real pack: the movers rows scroll inside their own box, never the page (measured
  against the window's client width, which leaves out the scrollbar);
- a price axis never goes below $0 and its ticks are round numbers, evenly spaced;
- on 5Y and MAX a logarithmic scale can be switched on (by keyboard), is remembered across reloads,
  keeps the crosshair and the break-even line, and is not offered on short ranges.
Screenshots of the Market and stock screens at the five widths land in the test artifacts."""
import math
import uuid
from decimal import Decimal

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_replay import focused_id, tab_to
from test_webapp import SCREENS, go, loaded, open_trade, sign_up, text_in, visible, wait

WIDTHS = [1280, 1024, 768, 390, 360]
HEIGHT = 800


def overflow(driver):
    """How much wider than the window the page is (the window's client width leaves out its scrollbar)."""
    return driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")


def wider_elements(driver):
    return driver.execute_script("""const w = document.documentElement.clientWidth;
        return [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > w + 0.5
          && !e.closest('.cards, .table-scroll')).slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)""")


@pytest.mark.parametrize("market", ["demo", "pack"])
def test_no_main_screen_is_wider_than_the_window(server, demo_server, driver_factory, screenshots, market):
    base = demo_server if market == "demo" else server
    symbol = "IBBC" if market == "demo" else "MSFT"
    driver = driver_factory(WIDTHS[0], HEIGHT)
    sign_up(driver, base, "wide" + uuid.uuid4().hex[:8])
    go(driver, base, f"stock/{symbol}")
    loaded(driver, f"stock/{symbol}")
    open_trade(driver, "buy", 2)
    text_in(driver, "#trade-result", f"Bought 2 {symbol}")
    driver.find_element(By.ID, "cancel-trade").click()
    screens = [s.replace("stock/MSFT", f"stock/{symbol}") for s in SCREENS]
    problems = []
    for width in WIDTHS:
        driver.set_window_size(width, HEIGHT)
        for screen in screens:
            go(driver, base, screen)
            loaded(driver, screen)
            if screen == "market":
                visible(driver, "#movers .cards")
            extra = overflow(driver)
            if extra > 0:
                problems.append(f"{screen} at {width} px: {extra} px wider than the window ({wider_elements(driver)})")
            if screen in ("market", f"stock/{symbol}"):
                driver.execute_script("window.scrollTo(0, 0)")
                driver.save_screenshot(str(screenshots / f"layout-{market}-{screen.replace('/', '-')}-{width}.png"))
        # The movers scroll inside their own box.
        go(driver, base, "market")
        loaded(driver, "market")
        rows = visible(driver, "#movers .cards")
        assert driver.execute_script("return getComputedStyle(arguments[0]).overflowX", rows) == "auto"
        assert driver.execute_script("return arguments[0].getBoundingClientRect().right", rows) <= driver.execute_script(
            "return document.documentElement.clientWidth"), f"the movers row passes the window at {width} px"
    assert problems == [], "\n".join(problems)


def ticks(driver):
    """The price chart's axis ticks, as numbers, lowest first."""
    values = [Decimal(t.get_attribute("data-value")) for t in driver.find_elements(By.CSS_SELECTOR, "#price-chart [data-role=tick]")]
    return sorted(values)


def chart_of(driver, range_):
    button = driver.find_element(By.CSS_SELECTOR, f"[data-range='{range_}']")
    button.click()
    wait(driver).until(lambda d: button.get_attribute("aria-pressed") == "true" and d.find_elements(By.CSS_SELECTOR, "#price-chart polyline"))
    return driver.find_element(By.CSS_SELECTOR, "#price-chart svg")


def test_a_price_axis_stops_at_zero_and_ticks_are_round(demo_server, driver_factory):
    driver = driver_factory(1280, HEIGHT)
    sign_up(driver, demo_server, "axis" + uuid.uuid4().hex[:8])
    go(driver, demo_server, "stock/IBBC")
    loaded(driver, "stock/IBBC")
    for range_ in ["MAX", "5Y", "1Y", "1M"]:
        svg = chart_of(driver, range_)
        assert svg.get_attribute("data-scale") == "linear"
        values = ticks(driver)
        assert len(values) >= 3 and values[0] >= 0, (range_, values)
        steps = {b - a for a, b in zip(values, values[1:])}
        assert len(steps) == 1, f"{range_}: uneven ticks {values}"
        step = steps.pop()
        mantissa = step / Decimal(10) ** math.floor(math.log10(step))
        assert mantissa in (1, 2, Decimal("2.5"), 5), f"{range_}: the step {step} is not round"
        assert all((v / step) == int(v / step) for v in values), f"{range_}: ticks off the step {values}"
        labels = [t.text for t in driver.find_elements(By.CSS_SELECTOR, "#price-chart [data-role=tick]")]
        assert not any(label.startswith("-") for label in labels), labels
    # The functions behind it, at their edges: data near zero, one value, a range crossing zero without a floor.
    edges = driver.execute_async_script("""const done = arguments[arguments.length - 1];
        import('/components/chart.js').then(({ linearTicks, logTicks }) => done({
          nearZero: linearTicks(0.4, 980, { floor: 0 }), single: linearTicks(50, 50, { floor: 0 }),
          payoff: linearTicks(-340, 1220), log: logTicks(0.42, 910), decade: logTicks(12, 80) }))""")
    assert edges["nearZero"]["ticks"] == [0, 250, 500, 750, 1000], edges
    assert edges["single"]["ticks"][0] >= 0 and len(edges["single"]["ticks"]) >= 2, edges
    assert edges["payoff"]["ticks"][0] < 0 < edges["payoff"]["ticks"][-1] and edges["payoff"]["step"] == 500, edges
    assert edges["log"]["low"] == 0.2 and edges["log"]["high"] == 1000 and 1 in edges["log"]["ticks"] and 100 in edges["log"]["ticks"], edges
    assert edges["decade"]["ticks"] == [10, 20, 50, 100], edges


def test_a_log_scale_on_long_ranges_is_remembered(demo_server, driver_factory, screenshots):
    driver = driver_factory(1280, HEIGHT)
    sign_up(driver, demo_server, "log" + uuid.uuid4().hex[:8])
    go(driver, demo_server, "stock/IBBC")
    loaded(driver, "stock/IBBC")
    open_trade(driver, "buy", 1)
    text_in(driver, "#trade-result", "Bought 1 IBBC")
    driver.find_element(By.ID, "cancel-trade").click()
    loaded(driver, "stock/IBBC")
    chart_of(driver, "1Y")
    assert not driver.find_element(By.ID, "log-scale").is_displayed(), "no log scale on a year"
    svg = chart_of(driver, "MAX")
    toggle = visible(driver, "#log-scale")
    assert toggle.get_attribute("aria-pressed") == "false" and svg.get_attribute("data-scale") == "linear"
    # Its line under the chart marks the term, which the glossary explains.
    assert visible(driver, "#log-scale-help [data-term='Logarithmic scale']").text == "log scale"
    # By keyboard: Tab to it, Enter.
    tab_to(driver, "log-scale").send_keys(Keys.ENTER)
    wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, "#price-chart svg").get_attribute("data-scale") == "log")
    assert focused_id(driver) == "log-scale" and toggle.get_attribute("aria-pressed") == "true"
    values = ticks(driver)
    assert values and all(v > 0 for v in values)
    mantissas = {(v / Decimal(10) ** math.floor(math.log10(v))).normalize() for v in values}
    assert mantissas <= {1, 2, 5}, values
    # The crosshair and the break-even line are there on a log scale too.
    assert driver.find_elements(By.CSS_SELECTOR, "#price-chart [data-role=reference]")
    chart = driver.find_element(By.ID, "price-chart")
    driver.execute_script("arguments[0].focus()", chart)
    chart.send_keys(Keys.ARROW_LEFT)
    assert visible(driver, "#price-chart .tip").text.count("·") >= 1
    driver.save_screenshot(str(screenshots / "chart-log-1280.png"))
    # Remembered: after a reload, and on 5Y too; a short range is linear.
    driver.refresh()
    loaded(driver, "stock/IBBC")
    assert chart_of(driver, "5Y").get_attribute("data-scale") == "log"
    assert driver.find_element(By.ID, "log-scale").get_attribute("aria-pressed") == "true"
    assert chart_of(driver, "3M").get_attribute("data-scale") == "linear"
    # Off again, remembered off.
    chart_of(driver, "MAX")
    driver.find_element(By.ID, "log-scale").click()
    wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, "#price-chart svg").get_attribute("data-scale") == "linear")
    assert driver.execute_script("return localStorage.getItem('bullpen.chart.log')") == "0"
