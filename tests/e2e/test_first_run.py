"""The guided first run in a real browser: a new player is shown three steps above every screen
(find a company, buy a share, see it in the portfolio), follows them with the keyboard on a phone
and a laptop, and finishes; the run is kept on the server, so a reload does not bring it back.
Help starts it again; it can be skipped, and stays skipped. Its panel meets AA contrast in every
theme and fits the screen."""
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_replay import check_layout, contrast_checker, focused_id, press, shoot, tab_to, themed_player
from test_webapp import CONTRAST_SCRIPT, LAPTOP, PHONE, fetch_json, go, loaded, open_trade, sign_up, text_in, visible, wait


def panel(driver):
    return visible(driver, "#first-run")


def steps_done(driver):
    """The class of each step's item (done, current or none), read in one go."""
    return driver.execute_script("return [...document.querySelectorAll('#first-run .first-run-steps li')].map((li) => li.className)")


def no_panel(driver):
    wait(driver).until(lambda d: not d.find_element(By.ID, "first-run").is_displayed())


def contrast(driver, name):
    failures = driver.execute_script(CONTRAST_SCRIPT)
    assert failures == [], f"{name}: {failures[:5]}"


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_a_new_player_follows_the_three_steps_with_the_keyboard(server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    sign_up(driver, server, "first" + uuid.uuid4().hex[:8])
    text_in(driver, "#first-run-title", "step 1 of 3")
    assert steps_done(driver) == ["current", "", ""]
    assert "Find a company" in driver.find_element(By.ID, "first-run-hint").text
    shoot(driver, screenshots, "first-run-step-1", size)
    contrast(driver, "step 1")

    # Step 1 by keyboard: the panel's link opens Market, whose search finds the company.
    driver.find_element(By.ID, "first-run-go").send_keys(Keys.ENTER)
    loaded(driver, "market")
    text_in(driver, "#first-run-hint", "search box below")
    assert not driver.find_elements(By.ID, "first-run-go"), "on Market the search is the way, not a link"
    search = visible(driver, "#search")
    search.send_keys("micro")
    text_in(driver, "#suggestions", "MSFT")
    options = driver.find_elements(By.CSS_SELECTOR, "#suggestions [role=option]")
    index = [o.get_attribute("data-symbol") for o in options].index("MSFT")
    press(driver, Keys.ARROW_DOWN, index + 1)
    press(driver, Keys.ENTER)
    loaded(driver, "stock/MSFT")
    text_in(driver, "#first-run-title", "step 2 of 3")
    assert steps_done(driver) == ["done", "current", ""]
    assert "Tap Buy on this page" in driver.find_element(By.ID, "first-run-hint").text
    wait(driver).until(lambda d: "step done" in d.find_element(By.ID, "first-run-status").get_attribute("textContent").lower())

    # Leaving the page: the panel leads back to the company found.
    go(driver, server, "history")
    loaded(driver, "history")
    assert text_in(driver, "#first-run-go", "Open MSFT").get_attribute("href").endswith("#/stock/MSFT")
    driver.find_element(By.ID, "first-run-go").send_keys(Keys.ENTER)
    loaded(driver, "stock/MSFT")

    # Step 2: one share bought in the trade sheet; closing the sheet moves the panel on.
    open_trade(driver, "buy", 1)
    text_in(driver, "#trade-result", "Bought 1 MSFT")
    driver.find_element(By.ID, "cancel-trade").send_keys(Keys.ENTER)
    text_in(driver, "#first-run-title", "step 3 of 3")
    assert steps_done(driver) == ["done", "done", "current"]
    shoot(driver, screenshots, "first-run-step-3", size)

    # Step 3: the panel's link opens the portfolio, where the share is; the run is done.
    go_link = text_in(driver, "#first-run-go", "Open Portfolio")
    go_link.send_keys(Keys.ENTER)
    loaded(driver, "portfolio")
    visible(driver, "tr[data-symbol=MSFT]")
    text_in(driver, "#first-run-title", "done")
    assert steps_done(driver) == ["done", "done", "done"]
    assert visible(driver, "#first-run-go").get_attribute("href").endswith("#/learn")
    shoot(driver, screenshots, "first-run-done", size)
    contrast(driver, "done")
    run = fetch_json(driver, "/api/v1/learn/first-run")["json"]
    assert run["status"] == "finished" and all(step["done"] for step in run["steps"]), run

    # Closed with the keyboard; the focus goes back to the screen, and a reload does not bring it back.
    driver.find_element(By.ID, "first-run-close").send_keys(Keys.ENTER)
    no_panel(driver)
    assert focused_id(driver) == "main"
    driver.refresh()
    visible(driver, "#cash")
    loaded(driver, "portfolio")
    assert not driver.find_element(By.ID, "first-run").is_displayed()


def test_help_starts_the_tour_again_and_a_skip_is_kept(server, driver_factory, screenshots):
    driver = driver_factory(*PHONE)
    sign_up(driver, server, "skip" + uuid.uuid4().hex[:8])
    text_in(driver, "#first-run-title", "step 1 of 3")

    # Skipped with the keyboard: gone, and still gone after a reload and on another screen.
    skip = driver.find_element(By.ID, "first-run-skip")
    skip.send_keys(Keys.ENTER)
    no_panel(driver)
    text_in(driver, "#toast", "Tour skipped")
    assert fetch_json(driver, "/api/v1/learn/first-run")["json"]["status"] == "skipped"
    driver.refresh()
    visible(driver, "#cash")
    go(driver, server, "market")
    loaded(driver, "market")
    assert not driver.find_element(By.ID, "first-run").is_displayed()

    # Help offers it again; started, it begins at its first step on Market.
    go(driver, server, "help")
    loaded(driver, "help")
    button = visible(driver, "#take-tour")
    assert button.text == "Take the tour"
    tab_to(driver, "take-tour", limit=60)
    press(driver, Keys.ENTER)
    loaded(driver, "market")
    text_in(driver, "#first-run-title", "step 1 of 3")
    run = fetch_json(driver, "/api/v1/learn/first-run")["json"]
    assert run["status"] == "active" and run["next"] == "find", run
    check_layout(driver, "first run on market")

    # While it runs, Help says it starts it again, opened from its link or loaded afresh.
    go(driver, server, "help")
    loaded(driver, "help")
    assert visible(driver, "#take-tour").text == "Start the tour again"
    driver.refresh()
    loaded(driver, "help")
    text_in(driver, "#take-tour", "Start the tour again")


def geometry(driver):
    """The window's height, how far the page scrolls, and where the navigation and the strip are."""
    return driver.execute_script("""const nav = document.getElementById('nav').getBoundingClientRect();
        const strip = document.getElementById('first-run').getBoundingClientRect();
        return { window: innerHeight, page: document.scrollingElement.scrollHeight, scrolled: scrollY,
                 navTop: nav.top, navBottom: nav.bottom, stripBottom: strip.bottom }""")


def test_on_a_laptop_the_strip_adds_no_scroll_and_the_navigation_stays_in_view(server, driver_factory):
    driver = driver_factory(LAPTOP[0], 1000)   # tall enough for the inbox to fit under the strip
    sign_up(driver, server, "strip" + uuid.uuid4().hex[:8])
    text_in(driver, "#first-run-title", "step 1 of 3")
    # A short screen: the navigation runs from under the strip to the window's bottom, nothing scrolls.
    go(driver, server, "notifications")
    loaded(driver, "notifications")
    where = geometry(driver)
    assert where["stripBottom"] > 0 and abs(where["navTop"] - where["stripBottom"]) <= 1, where
    assert abs(where["navBottom"] - where["window"]) <= 1 and where["page"] <= where["window"], where
    # A long screen scrolled to its end: the navigation is at the window's top, whole.
    go(driver, server, "help")
    loaded(driver, "help")
    driver.execute_script("window.scrollTo(0, document.scrollingElement.scrollHeight)")
    where = geometry(driver)
    assert where["scrolled"] > 0 and abs(where["navTop"]) <= 1 and where["navBottom"] <= where["window"] + 1, where


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("palette", ["standard", "colorblind"])
def test_the_first_run_panel_meets_aa_contrast(server, driver_factory, theme, palette):
    driver = themed_player(server, driver_factory, theme, palette, "frc")
    check = contrast_checker(driver, theme, palette)
    text_in(driver, "#first-run-title", "step 1 of 3")
    check("step 1")
    go(driver, server, "stock/MSFT")
    loaded(driver, "stock/MSFT")
    text_in(driver, "#first-run-title", "step 2 of 3")
    check("step 2")
