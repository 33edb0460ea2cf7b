"""The web app in a real browser: a player's whole first session, and every main screen at a
phone's and a laptop's size."""
import re
import uuid

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

PHONE = (390, 844)
LAPTOP = (1280, 800)
PASSWORD = "a long enough passphrase"


def wait(driver, seconds=15):
    """Waits for a condition; an element the app drew again while it was read is looked up anew
    (a screen re-renders after each answer), not a failure."""
    return WebDriverWait(driver, seconds, ignored_exceptions=[StaleElementReferenceException])


def visible(driver, css, seconds=15):
    return wait(driver, seconds).until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))


def text_in(driver, css, text, seconds=15):
    wait(driver, seconds).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, css), text))
    return driver.find_element(By.CSS_SELECTOR, css)


def money(text):
    """'$1,986.15' → 1986.15"""
    return float(re.sub(r"[^0-9.\-]", "", text.replace("−", "-")))


def click(driver, element):
    """Scrolls the element to the middle of the screen (clear of the tab bar), then clicks it."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def go(driver, base, hash_):
    driver.get(f"{base}/#/{hash_}")


def loaded(driver, hash_):
    """Waits until the screen of `#/{hash_}` has drawn (<main> names the path it drew, and is busy
    until it has) and nothing on it is still loading: a screen before it with the same route, at
    another path, never passes for it."""
    visible(driver, f"main[data-path='#/{hash_}']:not([aria-busy]) h1")
    wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "main .loading"))


def sign_up(driver, base, username):
    go(driver, base, "signup")
    visible(driver, "#username").send_keys(username)
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    driver.find_element(By.ID, "submit").click()
    text_in(driver, "#cash", "100,000.00")


def log_in(driver, base, username):
    go(driver, base, "login")
    visible(driver, "#username").send_keys(username)
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    driver.find_element(By.ID, "submit").click()
    visible(driver, "#cash")


def open_trade(driver, side, quantity):
    click(driver, visible(driver, f"#{side}"))
    field = visible(driver, "#quantity")
    field.clear()
    field.send_keys(str(quantity))
    driver.find_element(By.ID, "review").click()
    visible(driver, "#confirm").click()


def test_a_players_first_session(server, driver_factory, screenshots):
    driver = driver_factory(*PHONE)
    username = "e2e" + uuid.uuid4().hex[:8]

    sign_up(driver, server, username)

    # Search "micro" and open MSFT, with the keyboard.
    go(driver, server, "market")
    search = visible(driver, "#search")
    search.send_keys("micro")
    text_in(driver, "#suggestions", "MSFT")
    options = driver.find_elements(By.CSS_SELECTOR, "#suggestions [role=option]")
    index = [o.get_attribute("data-symbol") for o in options].index("MSFT")
    for _ in range(index + 1):
        search.send_keys(Keys.ARROW_DOWN)
    assert driver.find_element(By.ID, f"option-{index}").get_attribute("aria-selected") == "true"
    search.send_keys(Keys.ENTER)
    text_in(driver, "h1", "Microsoft")
    price = money(visible(driver, "#price").text)

    # Buy 5 shares.
    open_trade(driver, "buy", 5)
    result = text_in(driver, "#trade-result", "Bought 5 MSFT").text
    fill = money(re.search(r"at (\$[0-9,.]+)", result).group(1))
    assert fill == pytest.approx(price, abs=0.01)
    driver.find_element(By.ID, "cancel-trade").click()

    # They are in the portfolio at the right cost.
    go(driver, server, "portfolio")
    row = visible(driver, "tr[data-symbol=MSFT]")
    cells = row.find_elements(By.TAG_NAME, "td")
    assert cells[1].text == "5"
    avg_cost = money(driver.execute_script("return arguments[0].cells[2].textContent", row))
    assert avg_cost == pytest.approx(fill, abs=0.01)
    assert money(driver.find_element(By.ID, "cash").text) == pytest.approx(100_000 - 5 * fill, abs=0.01)

    # Sell 2; the realized P&L shows in the history.
    click(driver, row)
    text_in(driver, "h1", "Microsoft")
    open_trade(driver, "sell", 2)
    text_in(driver, "#trade-result", "Sold 2 MSFT")
    assert "Realized P&L" in driver.find_element(By.ID, "trade-result").text
    driver.find_element(By.ID, "cancel-trade").click()
    go(driver, server, "history")
    rows = wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#activities tr[data-type]"))
    assert [r.get_attribute("data-type") for r in rows] == ["sell", "buy"]
    assert "Sold 2 MSFT" in rows[0].text and rows[0].find_elements(By.TAG_NAME, "td")[-1].text != "—"
    visible(driver, "#total-net")

    # Buying more than affordable shows the error next to the order.
    go(driver, server, "stock/MSFT")
    open_trade(driver, "buy", 100000)
    error = text_in(driver, "#trade-error", "Not enough cash")
    assert error.is_displayed()
    driver.find_element(By.ID, "cancel-trade").click()

    # Dark mode.
    go(driver, server, "settings")
    Select(visible(driver, "#theme")).select_by_value("dark")
    assert driver.execute_script("return document.documentElement.dataset.theme") == "dark"

    # Log out and in again: the holdings are still there.
    click(driver, visible(driver, "#logout"))
    visible(driver, "#username")
    log_in(driver, server, username)
    row = visible(driver, "tr[data-symbol=MSFT]")
    assert row.find_elements(By.TAG_NAME, "td")[1].text == "3"
    assert driver.execute_script("return document.documentElement.dataset.theme") == "dark"


def all_cookies(driver):
    """Every cookie of the browser, by name (WebDriver's own list has only the page's path's)."""
    return {c["name"]: c for c in driver.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]}


def test_no_script_can_read_a_long_lived_credential(server, driver_factory):
    """The access token lives in the app's memory only; the refresh token in an HttpOnly,
    SameSite=Strict cookie scoped to the auth routes. A reload signs in again with the cookie; a
    second tab shares it without ending the session; logging out clears it."""
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "jar" + uuid.uuid4().hex[:8])
    access = driver.execute_async_script("import('/session.js').then(({ currentSession }) => arguments[0](currentSession().access))")
    assert access and len(access) > 40
    storage = driver.execute_script("return JSON.stringify([{...localStorage}, {...sessionStorage}, document.cookie])")
    assert access not in storage and "refresh" not in storage.lower(), storage
    assert driver.execute_script("return document.cookie") == ""
    refresh = all_cookies(driver)["bullpen_refresh"]
    assert refresh["httpOnly"] and refresh["sameSite"] == "Strict" and refresh["path"] == "/api/v1/auth", refresh
    assert refresh["value"] not in driver.page_source

    # A reload keeps the player signed in, with an access token got with the cookie, which turned
    # over (the token itself may be the same text: it names the session and the second it was made).
    driver.refresh()
    visible(driver, "#cash")
    again = driver.execute_async_script("import('/session.js').then(({ currentSession }) => arguments[0](currentSession().access))")
    assert again and len(again) > 40
    assert all_cookies(driver)["bullpen_refresh"]["value"] != refresh["value"]

    # Two tabs reloading at once share the cookie one after the other: neither ends the session.
    driver.switch_to.new_window("tab")
    go(driver, server, "portfolio")
    driver.switch_to.window(driver.window_handles[0])
    driver.execute_script("location.reload()")
    driver.switch_to.window(driver.window_handles[1])
    driver.execute_script("location.reload()")
    visible(driver, "#cash")
    driver.switch_to.window(driver.window_handles[0])
    visible(driver, "#cash")
    driver.switch_to.window(driver.window_handles[1])
    driver.close()
    driver.switch_to.window(driver.window_handles[0])

    # Logging out clears the cookie: a reload shows the login screen.
    go(driver, server, "settings")
    click(driver, visible(driver, "#logout"))
    visible(driver, "#username")
    assert "bullpen_refresh" not in all_cookies(driver)
    driver.refresh()
    visible(driver, "#username")


SCREENS = ["portfolio", "market", "stock/MSFT", "history", "profiles", "profiles/new", "leagues", "leagues/new", "leagues/global",
           "settings", "help", "learn", "learn/bubbles-and-crashes", "learn/glossary"]


def buy_some_msft(driver, server):
    """Gives the player a holding, so that every screen has something to show."""
    go(driver, server, "stock/MSFT")
    open_trade(driver, "buy", 3)
    text_in(driver, "#trade-result", "Bought 3 MSFT")
    driver.find_element(By.ID, "cancel-trade").click()


def each_screen(driver, server):
    """Opens each main screen in turn, once it has finished loading."""
    for screen in SCREENS:
        go(driver, server, screen)
        loaded(driver, screen)
        yield screen


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x800"])
def test_every_main_screen_renders_and_is_captured(server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    go(driver, server, "login")
    visible(driver, "#username")
    driver.save_screenshot(str(screenshots / f"login-{size[0]}x{size[1]}.png"))
    sign_up(driver, server, "shot" + uuid.uuid4().hex[:8])
    buy_some_msft(driver, server)
    for screen in each_screen(driver, server):
        # Every form control has a label; nothing is wider than the screen.
        unlabeled = driver.execute_script("""
            return [...document.querySelectorAll('input, select')].filter(e => e.type !== 'hidden'
              && !(e.labels && e.labels.length) && !e.getAttribute('aria-label')).map(e => e.id || e.outerHTML)""")
        assert unlabeled == [], f"{screen}: unlabeled controls {unlabeled}"
        # The window's client width leaves out its scrollbar (innerWidth counts it, and hid 15 px of overflow).
        overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{screen}: {overflow}px wider than the screen"
        name = screen.replace("/", "-")
        driver.save_screenshot(str(screenshots / f"{name}-{size[0]}x{size[1]}.png"))
    nav_position = driver.execute_script("return getComputedStyle(document.getElementById('nav')).position")
    assert nav_position == ("fixed" if size == PHONE else "sticky")   # tab bar on phones, side navigation on wide screens


def test_first_load_is_small_and_works_at_360_pixels(server, driver_factory):
    driver = driver_factory(360, 740)
    go(driver, server, "login")
    visible(driver, "#username")
    total = driver.execute_script("""
        const entries = performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'));
        return entries.reduce((sum, e) => sum + (e.transferSize || e.encodedBodySize || 0), 0)""")
    assert total < 200_000, f"first load transferred {total} bytes"
    assert driver.execute_script("return document.documentElement.scrollWidth") <= 360


def test_api_errors_read_as_words(server, driver_factory):
    driver = driver_factory(*PHONE)
    go(driver, server, "signup")
    visible(driver, "#username").send_keys("x")
    driver.find_element(By.ID, "password").send_keys("short")
    driver.find_element(By.ID, "submit").click()
    text_in(driver, "#username-error", "Usernames are 3 to 32 characters")
    driver.find_element(By.ID, "username").clear()
    driver.find_element(By.ID, "username").send_keys("word" + uuid.uuid4().hex[:6])
    driver.find_element(By.ID, "submit").click()
    text_in(driver, "#password-error", "at least 8 characters")
    go(driver, server, "login")
    visible(driver, "#username").send_keys("nobody" + uuid.uuid4().hex[:6])
    driver.find_element(By.ID, "password").send_keys("wrong password here")
    driver.find_element(By.ID, "submit").click()
    text_in(driver, "#form-error", "username or password is wrong")


CONTRAST_SCRIPT = """
function rgb(text) { const m = text.match(/[\\d.]+/g); return m ? m.map(Number) : [0, 0, 0, 1]; }
function luminance([r, g, b]) {
  const channel = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}
function background(node) {
  for (let el = node; el; el = el.parentElement) {
    const color = rgb(getComputedStyle(el).backgroundColor);
    if (color.length < 4 || color[3] > 0.5) return color;
  }
  return [255, 255, 255];   // the canvas behind a transparent page is white
}
const failures = [];
for (const el of document.querySelectorAll('main *, nav *, #banners *, #first-run *')) {
  const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent.trim()).join('');
  if (!text || el.offsetParent === null) continue;
  const style = getComputedStyle(el);
  if (style.visibility === 'hidden' || Number(style.opacity) < 1 || el.closest('button[disabled]')) continue;
  const fg = luminance(rgb(style.color)), bg = luminance(background(el));
  const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
  const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
  const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
  if (ratio < needed) failures.push(`${text.slice(0, 30)}: ${ratio.toFixed(2)} < ${needed}`);
}
return failures;
"""


def use_appearance(driver, server, theme, palette):
    """Opens the login page with `theme` and `palette` applied (the app reads them as it starts:
    a change of hash alone would not apply them)."""
    go(driver, server, "login")
    visible(driver, "#username")
    driver.execute_script(f"localStorage.setItem('bullpen.theme', '{theme}'); localStorage.setItem('bullpen.palette', '{palette}')")
    driver.refresh()
    visible(driver, "#username")
    assert driver.execute_script("return [document.documentElement.dataset.theme, document.documentElement.dataset.palette]") == [theme, palette]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("palette", ["standard", "colorblind"])
def test_text_contrast_meets_aa(server, driver_factory, theme, palette):
    driver = driver_factory(*LAPTOP)
    use_appearance(driver, server, theme, palette)
    sign_up(driver, server, "aa" + uuid.uuid4().hex[:8])
    buy_some_msft(driver, server)
    for screen in each_screen(driver, server):
        failures = driver.execute_script(CONTRAST_SCRIPT)
        assert failures == [], f"{theme}/{palette} {screen}: {failures[:5]}"


def nav_displayed(driver):
    return driver.find_element(By.ID, "nav").is_displayed()


def test_signed_out_screens_hide_the_navigation(server, driver_factory):
    driver = driver_factory(*PHONE)
    for screen in ["login", "signup"]:
        go(driver, server, screen)
        visible(driver, "#username")
        assert not nav_displayed(driver), f"#/{screen} shows the tab bar"
    sign_up(driver, server, "nav" + uuid.uuid4().hex[:8])
    assert nav_displayed(driver)


CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sample || ''}`);
});
"""


def open_page_with_csp_listener(driver):
    """Installs, before any page script runs, a listener that records every CSP violation."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_LISTENER})


def fetch_json(driver, path, method="GET", body=None):
    """Calls the API from the page with the player's token; returns the JSON answer and the headers."""
    return driver.execute_async_script("""
        const [path, method, body, done] = arguments;
        // The access token lives in the app's memory (its session module), nowhere else; after a
        // reload the app gets one from the refresh cookie first (restoreSession waits for it).
        Promise.all([import('/session.js'), import('/api.js')]).then(async ([{ currentSession }, { restoreSession }]) => {
          await restoreSession();
          const session = currentSession();
          const headers = {};
          if (session) headers['Authorization'] = 'Bearer ' + session.access;
          if (body !== null) headers['Content-Type'] = 'application/json';
          return fetch(path, { method, headers, body: body === null ? undefined : JSON.stringify(body) });
        }).then(async (response) => done({ status: response.status, headers: Object.fromEntries(response.headers),
                                           json: response.headers.get('content-type')?.includes('json') ? await response.json() : null }))
          .catch((error) => done({ status: 0, error: String(error) }));""", path, method, body)


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x800"])
def test_no_inline_styles_and_no_content_security_policy_violations(server, driver_factory, size):
    driver = driver_factory(*size)
    open_page_with_csp_listener(driver)
    no_style_attributes = "return [...document.querySelectorAll('[style]')].map((e) => e.outerHTML.slice(0, 120))"
    for screen in ["login", "signup"]:
        go(driver, server, screen)
        visible(driver, "#username")
        assert driver.execute_script(no_style_attributes) == [], f"{screen}: elements with a style attribute"
    # The policy allows no inline style at all, so a style attribute would be refused, not just frowned on.
    policy = fetch_json(driver, "/")["headers"]["content-security-policy"]
    style_source = next(part for part in policy.split(";") if part.strip().startswith("style-src"))
    assert "unsafe-inline" not in style_source, policy
    sign_up(driver, server, "csp" + uuid.uuid4().hex[:8])
    buy_some_msft(driver, server)
    for screen in each_screen(driver, server):
        assert driver.execute_script(no_style_attributes) == [], f"{screen}: elements with a style attribute"
        if screen == "stock/MSFT":
            click(driver, visible(driver, "#buy"))
            visible(driver, "#quantity")
            wait(driver).until(lambda d: d.find_element(By.ID, "estimate").text != "—")
            assert driver.execute_script(no_style_attributes) == [], "trade sheet: elements with a style attribute"
            driver.find_element(By.ID, "cancel-trade").click()
        violations = driver.execute_script("return window.__cspViolations")
        assert violations == [], f"{screen}: {violations}"
    logged = [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert logged == []


FORMAT_MARKET_TIME = """
const [instant, done] = arguments;
import('/format.js').then((format) => done(format.formatMarketTime(instant)), (error) => done('error: ' + error));
"""


def test_market_times_are_new_york_time_whatever_the_browsers_zone(server, driver_factory):
    driver = driver_factory(*LAPTOP)
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Tokyo"})
    go(driver, server, "login")
    visible(driver, "#username")
    assert driver.execute_script("return Intl.DateTimeFormat().resolvedOptions().timeZone") == "Asia/Tokyo"
    assert driver.execute_async_script(FORMAT_MARKET_TIME, "2026-11-23T14:30:00Z") == "Mon, Nov 23, 9:30 AM ET"
    clock = fetch_json(driver, "/api/v1/market/clock")["json"]
    assert clock["timezone"] == "America/New_York"
    if clock["isOpen"]:
        # No closed-market banner while the market is open: the close is still told in New York time.
        assert not driver.find_elements(By.CSS_SELECTOR, "[data-testid=closed-banner]")
        assert driver.execute_async_script(FORMAT_MARKET_TIME, clock["nextClose"]).endswith(" PM ET")
    else:
        banner = text_in(driver, "[data-testid=closed-banner]", "Next open:")
        assert "9:30 AM ET" in banner.text, banner.text


def test_html_template_escapes_by_default(server, driver_factory):
    driver = driver_factory(*PHONE)
    go(driver, server, "login")
    visible(driver, "#username")
    result = driver.execute_async_script("""
        const done = arguments[0];
        import('/html.js').then(({ html, unsafeHTML, render }) => {
          const evil = `"><img src=x onerror=alert(1)>&'`;
          const inner = html`<b title="${evil}">${evil}</b>`;
          const node = document.createElement('div');
          render(node, html`<p>${inner}${[html`<i>${'<1>'}</i>`, '<2>']}${null}${false}${unsafeHTML('<u>ok</u>')}</p>`);
          done({ markup: node.innerHTML, images: node.querySelectorAll('img').length, text: node.textContent });
        }, (error) => done({ error: String(error) }));""")
    assert result.get("images") == 0, result
    assert result["text"] == "\"><img src=x onerror=alert(1)>&'<1><2>ok"
    assert "<i>&lt;1&gt;</i>&lt;2&gt;<u>ok</u>" in result["markup"]
    assert "&amp;lt;" not in result["markup"]   # nested templates are not escaped twice


def money_text(decimal_text):
    """The en-US currency text of an API decimal string: '1322.9' → '$1,322.90'."""
    from decimal import Decimal
    return "${:,.2f}".format(Decimal(decimal_text))


def preview(driver, quantity, side="buy", symbol="MSFT"):
    portfolio = fetch_json(driver, "/api/v1/portfolios")["json"]["portfolios"][0]["id"]
    answer = fetch_json(driver, f"/api/v1/portfolios/{portfolio}/orders/preview", "POST",
                        {"symbol": symbol, "side": side, "quantity": quantity})
    assert answer["status"] == 200, answer
    return answer["json"]


def test_the_trade_sheet_shows_the_servers_estimate(server, driver_factory, screenshots):
    driver = driver_factory(*PHONE)
    sign_up(driver, server, "sheet" + uuid.uuid4().hex[:8])
    go(driver, server, "stock/MSFT")
    click(driver, visible(driver, "#buy"))
    one = preview(driver, 1)
    text_in(driver, "#estimate", money_text(one["total"]))
    seven = preview(driver, 7)
    assert seven["total"] != one["total"]
    field = visible(driver, "#quantity")
    field.clear()
    field.send_keys("7")
    text_in(driver, "#estimate", money_text(seven["total"]))
    assert driver.find_element(By.ID, "estimate").text == money_text(seven["total"])
    assert driver.find_element(By.ID, "cash-after").text == money_text(seven["cashAfter"])
    assert seven["problems"] == [] and driver.find_element(By.ID, "trade-error").text == ""
    driver.save_screenshot(str(screenshots / "trade-sheet-390x844.png"))
    # "Use max" asks for the most the cash buys, as the server counts it.
    driver.find_element(By.ID, "max").click()
    wait(driver).until(lambda d: d.find_element(By.ID, "quantity").get_attribute("value") == str(seven["maxQuantity"]))
    text_in(driver, "#max-text", f"{seven['maxQuantity']:,}")
    # The review shows the same figures.
    field = driver.find_element(By.ID, "quantity")
    field.clear()
    field.send_keys("7")
    driver.find_element(By.ID, "review").click()
    text_in(driver, "#review-total", money_text(seven["total"]))
    assert driver.find_element(By.ID, "review-cash-after").text == money_text(seven["cashAfter"])
    driver.save_screenshot(str(screenshots / "trade-review-390x844.png"))


def test_today_and_total_return_are_zero_right_after_buying_at_the_last_close(server, driver_factory):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "today" + uuid.uuid4().hex[:8])
    go(driver, server, "stock/MSFT")
    open_trade(driver, "buy", 5)
    result = text_in(driver, "#trade-result", "Bought 5 MSFT").text
    assert "the close of Fri, Feb 20, 2026" in result, result   # the pack's last session, told in words
    driver.find_element(By.ID, "cancel-trade").click()
    go(driver, server, "portfolio")
    visible(driver, "tr[data-symbol=MSFT]")
    assert driver.find_element(By.ID, "day-change").text == "$0.00"
    assert driver.find_element(By.ID, "total-return").text == "$0.00"


def test_a_company_whose_data_ended_can_be_sold_but_not_bought(server, driver_factory, screenshots):
    driver = driver_factory(*PHONE)
    sign_up(driver, server, "ended" + uuid.uuid4().hex[:8])
    go(driver, server, "stock/GE")
    text_in(driver, "main .badge.ended", "Data ended Nov 10, 2017")
    assert not driver.find_element(By.ID, "buy").is_enabled()
    assert "ended on Nov 10, 2017" in visible(driver, "#ended-note").text
    assert driver.find_element(By.ID, "buy").get_attribute("aria-describedby") == "ended-note"
    driver.save_screenshot(str(screenshots / "stock-ended-390x844.png"))
    # Search suggestions say so too.
    go(driver, server, "market")
    visible(driver, "#search").send_keys("GE")
    suggestion = visible(driver, "#suggestions [role=option][data-symbol=GE]")
    assert "Data ended" in suggestion.text
