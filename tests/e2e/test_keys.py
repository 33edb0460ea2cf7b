"""API keys in the settings: a player makes a trading key with the keyboard, sees its secret once,
a bot's call with it works, the list shows when it was last used, and revoking it stops it; the
section fits phones and laptops and meets AA contrast in every theme."""
import json
import urllib.error
import urllib.request
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_replay import contrast_checker, focused_id, press, shoot, tab_to, themed_player
from test_webapp import LAPTOP, PHONE, click, go, loaded, sign_up, text_in, visible, wait


def alpaca(server, path, key_id, secret):
    """(status, JSON) of an Alpaca API call signed with a key, as a bot makes it."""
    request = urllib.request.Request(server + path, headers={"APCA-API-KEY-ID": key_id, "APCA-API-SECRET-KEY": secret})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def open_keys(driver, server):
    go(driver, server, "settings")
    loaded(driver, "settings")
    visible(driver, "#key-portfolio option")


def make_key(driver, name, trading):
    """Fills the form with the keyboard and sends it; returns (key id, secret) as shown."""
    field = tab_to(driver, "key-name")
    field.send_keys(name)
    if trading:
        tab_to(driver, "key-read")
        press(driver, Keys.ARROW_DOWN)   # radio buttons move with the arrows
        assert focused_id(driver) == "key-trade" and driver.find_element(By.ID, "key-trade").is_selected()
    tab_to(driver, "key-create").send_keys(Keys.ENTER)
    key_id = visible(driver, "#new-key-id").text
    return key_id, driver.find_element(By.ID, "new-key-secret").text


def test_a_key_is_made_used_and_revoked_with_the_keyboard(server, driver_factory, screenshots):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "keys" + uuid.uuid4().hex[:8])
    open_keys(driver, server)
    assert visible(driver, "#no-keys").text == "No API keys yet."
    key_id, secret = make_key(driver, "Crossover bot", trading=True)
    assert key_id.startswith("BK") and len(secret) == 40
    assert "shown only this once" in driver.find_element(By.ID, "new-key").text
    # The focus moves to the first copy button, so the secret is one key press from the clipboard.
    assert driver.switch_to.active_element.get_attribute("data-copy") == "new-key-id"
    row = visible(driver, "#keys-list li[data-key]")
    assert "Crossover bot" in row.text and key_id in row.text and "read and trade" in row.text and "never used" in row.text

    status, account = alpaca(server, "/alpaca/v2/account", key_id, secret)
    assert status == 200 and account["cash"] == "100000.00" and account["status"] == "ACTIVE"
    # After a reload the secret is gone for good; the key shows when it was last used.
    driver.refresh()
    loaded(driver, "settings")
    visible(driver, "#key-portfolio option")
    assert not driver.find_elements(By.ID, "new-key-secret")
    assert secret not in driver.find_element(By.ID, "api-keys").text
    text_in(driver, "#keys-list li[data-key]", "last used")
    shoot(driver, screenshots, "settings-keys", LAPTOP)

    # Revoke with the keyboard: the dialog asks first.
    button = visible(driver, "#keys-list [data-revoke]")
    driver.execute_script("arguments[0].focus()", button)
    button.send_keys(Keys.ENTER)
    text_in(driver, "#dialog-title", "Revoke Crossover bot?")
    visible(driver, "#confirm-step").send_keys(Keys.ENTER)
    visible(driver, "#no-keys")
    status, refused = alpaca(server, "/alpaca/v2/account", key_id, secret)
    assert status == 401 and refused["code"] == 40110000


@pytest.mark.parametrize("size", [PHONE, (360, 740), (768, 1024), LAPTOP], ids=["390x844", "360x740", "768x1024", "1280x800"])
def test_the_keys_section_fits_every_screen(server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    sign_up(driver, server, "kfit" + uuid.uuid4().hex[:8])
    open_keys(driver, server)
    click(driver, visible(driver, "#key-trade"))
    click(driver, driver.find_element(By.ID, "key-create"))
    visible(driver, "#new-key-secret")
    driver.find_element(By.ID, "api-keys").location_once_scrolled_into_view
    section = driver.execute_script("""const r = document.getElementById('api-keys').getBoundingClientRect();
        return [r.left, r.right, document.documentElement.clientWidth]""")
    assert section[0] >= 0 and section[1] <= section[2], f"{size}: the keys section is wider than the screen: {section}"
    shoot(driver, screenshots, "settings-new-key", size)
    driver.find_element(By.ID, "api-keys").location_once_scrolled_into_view
    driver.save_screenshot(str(screenshots / f"settings-new-key-section-{size[0]}x{size[1]}.png"))


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("palette", ["standard", "colorblind"])
def test_the_keys_section_meets_aa_contrast(server, driver_factory, theme, palette):
    driver = themed_player(server, driver_factory, theme, palette, "kaa")
    open_keys(driver, server)
    click(driver, visible(driver, "#key-create"))
    visible(driver, "#new-key-secret")
    visible(driver, "#keys-list li[data-key]")
    contrast_checker(driver, theme, palette)("settings-keys")
