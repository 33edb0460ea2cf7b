"""Learn in a real browser: a player finds the lessons from Help, reads "Bubbles and crashes",
takes its quiz with the keyboard alone (a wrong answer explained, then a retake that passes), sees
the progress in the list, and starts the lesson's replay of the dot-com bubble on the real pack.
The lesson and glossary screens fit a phone and a laptop. The right answers are read from the
lesson's own Markdown file, as the server reads them."""
import pathlib
import re
import time
import uuid

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from test_options import EXPIRATION, choose_expiration, new_replay, open_chain
from test_replay import check_layout, focused_id, press, shoot, tab_to
from test_webapp import LAPTOP, PHONE, click, fetch_json, go, loaded, sign_up, text_in, visible, wait

LESSONS = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "BullpenServer" / "Learn" / "lessons"


def answers_of(lesson_id):
    """The index of the right choice of each question, from the lesson's Markdown."""
    path = next(LESSONS.glob(f"*-{lesson_id}.md"))
    quiz = path.read_text().split("\n## Quiz\n", 1)[1]
    result = []
    for block in re.split(r"\n### ", "\n" + quiz)[1:]:
        choices = [line for line in block.splitlines() if line.startswith("- [")]
        result.append(next(i for i, line in enumerate(choices) if line.startswith("- [x]")))
    return result


def answer_with_the_keyboard(driver, answers):
    """Tab into each question's radio group, move to the answer with the arrow keys."""
    for question, answer in enumerate(answers):
        tab_to(driver, f"q{question}-0", limit=80)
        press(driver, Keys.SPACE)   # the first choice, chosen
        press(driver, Keys.ARROW_DOWN, answer)
        assert focused_id(driver) == f"q{question}-{answer}"


def test_a_player_reads_a_lesson_passes_its_quiz_and_starts_its_replay(server, driver_factory, screenshots):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "learn" + uuid.uuid4().hex[:8])
    go(driver, server, "help")
    loaded(driver, "help")
    click(driver, visible(driver, "#learn-link a[href='#/learn']"))
    loaded(driver, "learn")
    lessons = driver.find_elements(By.CSS_SELECTOR, "#lessons li")
    assert len(lessons) >= 12, len(lessons)
    total = len(lessons)
    assert visible(driver, "#learn-summary").text == f"0 of {total} lessons read · 0 quizzes passed"
    click(driver, driver.find_element(By.CSS_SELECTOR, "#lessons a[href='#/learn/bubbles-and-crashes']"))
    loaded(driver, "learn/bubbles-and-crashes")
    assert "bubble" in visible(driver, "#lesson-text").text.lower()
    assert driver.find_elements(By.CSS_SELECTOR, "#lesson-text h2, #lesson-text p")
    shoot(driver, screenshots, "lesson", LAPTOP)

    right = answers_of("bubbles-and-crashes")
    wrong_first = [(right[0] + 1) % 3] + right[1:]
    answer_with_the_keyboard(driver, wrong_first)
    tab_to(driver, "check-quiz").send_keys(Keys.ENTER)
    result = text_in(driver, "#quiz-result", "right")
    assert result.text.startswith(f"{len(right) - 1} of {len(right)} right"), result.text
    assert focused_id(driver) == "quiz-result"
    first = driver.find_element(By.CSS_SELECTOR, "[data-question='0']")
    assert first.get_attribute("data-outcome") == "wrong"
    assert first.find_element(By.CSS_SELECTOR, ".explanation").text.startswith("Not quite: the answer is")
    # Retake, all right, with the keyboard again.
    tab_to(driver, "retake-quiz").send_keys(Keys.ENTER)
    assert focused_id(driver) == "q0-0"
    answer_with_the_keyboard(driver, right)
    tab_to(driver, "check-quiz").send_keys(Keys.ENTER)
    text_in(driver, "#quiz-result", f"{len(right)} of {len(right)} right: passed!")
    assert all(f.get_attribute("data-outcome") == "right" for f in driver.find_elements(By.CSS_SELECTOR, "fieldset.question"))
    assert "You passed this quiz" in driver.find_element(By.ID, "quiz-note").text
    shoot(driver, screenshots, "lesson-quiz-passed", LAPTOP)

    go(driver, server, "learn")
    loaded(driver, "learn")
    text_in(driver, "#learn-summary", f"1 of {total} lessons read · 1 quiz passed")
    assert "Quiz passed" in driver.find_element(By.CSS_SELECTOR, "#lessons li[data-lesson='bubbles-and-crashes']").text

    # "What a bubble feels like": a replay of the dot-com bubble, selected and open.
    go(driver, server, "learn/bubbles-and-crashes")
    loaded(driver, "learn/bubbles-and-crashes")
    button = visible(driver, "#try-it-button")
    assert button.text == "What a bubble feels like"
    click(driver, button)
    loaded(driver, "portfolio")
    banner = text_in(driver, "[data-testid=replay-banner]", "The dot-com bubble")
    assert "1999" in banner.text, banner.text
    holdings = driver.find_elements(By.CSS_SELECTOR, "#holdings tr[data-symbol]")
    assert holdings, "a scenario's replay starts with its stocks"


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x800"])
def test_learn_screens_fit_phones_and_laptops(demo_server, driver_factory, screenshots, size):
    driver = driver_factory(*size)
    sign_up(driver, demo_server, "learnfit" + uuid.uuid4().hex[:8])
    for screen in ["learn", "learn/calls-and-puts", "learn/glossary"]:
        go(driver, demo_server, screen)
        loaded(driver, screen)
        shoot(driver, screenshots, screen.replace("/", "-"), size)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#glossary dt")) >= 30
    # A lesson's "open an option chain" opens one on the demo exchange too.
    go(driver, demo_server, "learn/calls-and-puts")
    loaded(driver, "learn/calls-and-puts")
    click(driver, visible(driver, "#try-it-button"))
    wait(driver).until(lambda d: re.search(r"#/stock/[A-Z.-]+/options$", d.current_url))
    visible(driver, "#options")


GLOSSARY = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "BullpenServer" / "Learn" / "glossary.md"
WEB = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "BullpenServer" / "Web"


def test_every_term_the_screens_mark_is_in_the_glossary():
    """The screens mark terms with term('Name'): each must be defined in glossary.md."""
    defined = {line[4:].strip().lower() for line in GLOSSARY.read_text().splitlines() if line.startswith("### ")}
    used = set()
    for source in WEB.rglob("*.js"):
        used |= {name.lower() for name in re.findall(r"\bterm\('([^']+)'", source.read_text())}
    assert used, "no screen marks a term"
    assert used <= defined, f"marked but not in the glossary: {sorted(used - defined)}"


# The trade sheet's line under its order type: the glossary terms each type marks.
ORDER_TYPE_TERMS = {"market": {"Market order"}, "limit": {"Limit order"}, "stop": {"Stop order"},
                    "stop_limit": {"Stop order", "Limit order"}, "trailing_stop": {"Stop order"}}


def glossary_of(driver):
    """The glossary as the server serves it, by term."""
    answer = driver.execute_async_script("""const done = arguments[arguments.length - 1];
        fetch('/api/v1/learn/glossary').then((r) => r.json()).then(done)""")
    return {t["term"]: t for t in answer["terms"]}


def marked(driver, within="document"):
    """The terms marked on the page (in a note still hidden too), or inside the element `within` (a CSS selector)."""
    return set(driver.execute_script("""const root = arguments[0] === 'document' ? document : document.querySelector(arguments[0]);
        return root ? [...root.querySelectorAll('[data-term]')].map((e) => e.dataset.term) : []""", within))


def announced(driver, host):
    """What the glossary's live region says, when it is a child of `host` (a CSS selector); else ''."""
    return driver.execute_script("""const region = document.getElementById('term-announcer');
        return region && region.parentElement === document.querySelector(arguments[0]) ? region.textContent : ''""", host)


def test_the_screens_and_sheets_mark_only_glossary_terms(server, driver_factory):
    """Each screen and sheet that marks terms, opened: every term it marks is in the glossary, and the
    ones expected where a learner meets the idea are there (the trade sheet with each order type)."""
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "marks" + uuid.uuid4().hex[:8])
    glossary = glossary_of(driver)

    def collect(where, expected=()):
        terms = marked(driver)
        assert terms <= set(glossary), f"{where}: marked but not in the glossary: {sorted(terms - set(glossary))}"
        assert set(expected) <= terms, f"{where}: {sorted(set(expected) - terms)} not marked (marked: {sorted(terms)})"

    # The trade sheet: a line under the order type explains the type chosen and marks its term.
    go(driver, server, "stock/MSFT")
    loaded(driver, "stock/MSFT")
    click(driver, visible(driver, "#buy"))
    assert visible(driver, "#order-type").get_attribute("aria-describedby") == "order-type-note"
    notes = {}
    for value, expected in ORDER_TYPE_TERMS.items():
        Select(visible(driver, "#order-type")).select_by_value(value)
        wait(driver).until(lambda d: marked(d, "#order-type-note") == expected)
        notes[value] = visible(driver, "#order-type-note").text
        collect(f"trade sheet, {value}", expected)
    assert len(set(notes.values())) == len(notes), notes
    assert notes["limit"].startswith("A limit order trades only at your limit price or better"), notes["limit"]

    # Its term opens with the keyboard: Tab from the select reaches it and opens it; Shift+Tab away
    # closes it; Tab back and Enter open it again.
    Select(driver.find_element(By.ID, "order-type")).select_by_value("limit")
    wait(driver).until(lambda d: marked(d, "#order-type-note") == {"Limit order"})
    driver.execute_script("document.getElementById('order-type').focus()")
    for _ in range(10):
        if driver.switch_to.active_element.get_attribute("data-term") == "Limit order":
            break
        press(driver, Keys.TAB)
    limit = driver.switch_to.active_element
    assert limit.get_attribute("data-term") == "Limit order", focused_id(driver)
    note = visible(driver, "#term-tip")
    assert glossary["Limit order"]["definition"] in note.text and limit.get_attribute("aria-expanded") == "true"
    # Screen readers hear it from a live region inside the sheet: a modal sheet makes the rest inert.
    wait(driver).until(lambda d: glossary["Limit order"]["definition"] in announced(d, "#dialog[open]"))
    ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
    wait(driver).until(lambda d: not d.find_elements(By.ID, "term-tip"))
    assert limit.get_attribute("aria-expanded") == "false"
    press(driver, Keys.TAB)
    assert driver.switch_to.active_element.get_attribute("data-term") == "Limit order"
    press(driver, Keys.ENTER)
    assert glossary["Limit order"]["definition"] in visible(driver, "#term-tip").text
    # Escape closes the note, not the sheet it is in, and the focus stays on the term.
    press(driver, Keys.ESCAPE)
    wait(driver).until(lambda d: not d.find_elements(By.ID, "term-tip"))
    assert driver.execute_script("return document.getElementById('dialog').open"), "Escape closed the sheet"
    assert driver.switch_to.active_element.get_attribute("data-term") == "Limit order"

    # A market order bought (its review, its result), then a limit order that waits until it fills.
    Select(driver.find_element(By.ID, "order-type")).select_by_value("market")
    field = visible(driver, "#quantity")
    field.clear()
    field.send_keys("2")
    click(driver, driver.find_element(By.ID, "review"))
    visible(driver, "#confirm")
    collect("trade review")
    click(driver, driver.find_element(By.ID, "confirm"))
    text_in(driver, "#trade-result", "Bought 2 MSFT")
    collect("trade result")
    click(driver, driver.find_element(By.ID, "cancel-trade"))
    click(driver, visible(driver, "#buy"))
    Select(visible(driver, "#order-type")).select_by_value("limit")
    visible(driver, "#limit-price").send_keys("1.00")
    field = visible(driver, "#quantity")
    field.clear()
    field.send_keys("1")
    click(driver, driver.find_element(By.ID, "review"))
    click(driver, visible(driver, "#confirm"))
    text_in(driver, "#trade-result", "Placed.")
    collect("a working order placed", {"Fill"})
    click(driver, driver.find_element(By.ID, "cancel-trade"))

    # The screens: the portfolio with its holdings, the market, the standings.
    go(driver, server, "portfolio")
    loaded(driver, "portfolio")
    visible(driver, "#holdings tr[data-symbol=MSFT]")
    collect("portfolio", {"Return", "Average cost"})
    go(driver, server, "market")
    loaded(driver, "market")
    collect("market", {"Stock"})
    go(driver, server, "leagues/global")
    loaded(driver, "leagues/global")
    visible(driver, "#standings, #no-standings")
    collect("global standings", {"Drawdown"} if driver.find_elements(By.ID, "standings") else ())

    # A replay: a contract's sheet and its trade sheet, then the report once the replay has ended.
    portfolio = new_replay(driver, server, name="Terms")
    open_chain(driver, server)
    choose_expiration(driver, EXPIRATION)
    click(driver, visible(driver, "#chain-table tr[data-contract]"))
    visible(driver, "#sheet-figures")
    collect("option sheet", {"Premium", "Expiration", "Break-even", "Bid", "Ask", "Volatility"})
    click(driver, visible(driver, "#sheet-buy"))
    visible(driver, "#contract-note")
    collect("option trade sheet")
    click(driver, driver.find_element(By.ID, "cancel-trade"))
    assert fetch_json(driver, f"/api/v1/portfolios/{portfolio['id']}/end", "POST")["status"] == 200
    go(driver, server, "report")
    loaded(driver, "report")
    visible(driver, "#report-drawdown")
    collect("replay report", {"Return", "S&P 500", "Benchmark", "Drawdown"})


def test_a_glossary_term_is_read_with_the_keyboard(server, driver_factory, screenshots):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "terms" + uuid.uuid4().hex[:8])
    go(driver, server, "stock/MSFT")
    loaded(driver, "stock/MSFT")
    glossary = glossary_of(driver)
    # Every term marked on the page is in the glossary.
    marked = {t.get_attribute("data-term") for t in driver.find_elements(By.CSS_SELECTOR, "[data-term]")}
    assert "Sector" in marked and marked <= set(glossary), marked
    # Tab to the term: its note opens, with the definition and the lesson that explains it.
    for _ in range(120):
        if driver.switch_to.active_element.get_attribute("data-term") == "Sector":
            break
        press(driver, Keys.TAB)
    sector = driver.switch_to.active_element
    assert sector.get_attribute("data-term") == "Sector"
    note = visible(driver, "#term-tip")
    assert glossary["Sector"]["definition"] in note.text and sector.get_attribute("aria-expanded") == "true"
    assert sector.get_attribute("aria-describedby") == "term-tip"
    wait(driver).until(lambda d: glossary["Sector"]["definition"] in announced(d, "body"))
    shoot(driver, screenshots, "glossary-term", LAPTOP)
    # Tab goes on into the note's link; Escape closes it and gives the focus back to the term.
    press(driver, Keys.TAB)
    link = driver.switch_to.active_element
    assert link.get_attribute("href").endswith(f"#/learn/{glossary['Sector']['lesson']}")
    press(driver, Keys.ESCAPE)
    wait(driver).until(lambda d: not d.find_elements(By.ID, "term-tip"))
    assert driver.switch_to.active_element.get_attribute("data-term") == "Sector"
    assert sector.get_attribute("aria-expanded") == "false"
    # Enter opens it again; the link leads to the lesson.
    press(driver, Keys.ENTER)
    visible(driver, "#term-tip")
    press(driver, Keys.TAB)
    press(driver, Keys.ENTER)
    loaded(driver, f"learn/{glossary['Sector']['lesson']}")
    assert not driver.find_elements(By.ID, "term-tip")


def test_a_quiz_asks_for_every_answer_and_a_limit_order_opens_once(server, driver_factory):
    driver = driver_factory(*LAPTOP)
    sign_up(driver, server, "once" + uuid.uuid4().hex[:8])
    go(driver, server, "learn/fees")
    loaded(driver, "learn/fees")
    click(driver, visible(driver, "#check-quiz"))
    assert text_in(driver, "#quiz-error", "question 1").text == "Choose an answer for question 1 first."
    assert focused_id(driver) == "q0-0"
    click(driver, driver.find_element(By.ID, "q0-1"))
    click(driver, driver.find_element(By.ID, "check-quiz"))
    assert text_in(driver, "#quiz-error", "question 2").text == "Choose an answer for question 2 first."
    assert driver.find_element(By.ID, "quiz-result").text == "", "nothing was graded or revealed"
    # "Place your first limit order": the sheet opens with a limit order, once.
    go(driver, server, "learn/how-an-order-fills")
    loaded(driver, "learn/how-an-order-fills")
    click(driver, visible(driver, "#try-it-button"))
    assert visible(driver, "#order-type").get_attribute("value") == "limit"
    wait(driver).until(lambda d: re.search(r"#/stock/[A-Z.-]+$", d.current_url))
    click(driver, driver.find_element(By.ID, "cancel-trade"))
    wait(driver).until(lambda d: not any(e.is_displayed() for e in d.find_elements(By.CSS_SELECTOR, "#order-type")))
    # Redrawn (as after a trade), the page does not open the sheet again.
    driver.execute_script("import('/router.js').then(({ route }) => route())")
    loaded(driver, driver.current_url.split("#/", 1)[1])
    time.sleep(1.5)   # long enough for the redrawn page to open a sheet, if it were to
    assert not any(e.is_displayed() for e in driver.find_elements(By.CSS_SELECTOR, "#order-type"))
