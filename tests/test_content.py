"""The course text: its format, its structure, and the two editions (zh, en) held together."""

import re
from pathlib import Path

import pytest

from attention_explorable import content
from attention_explorable.modules import MODULES

LANGUAGES = ("zh", "en")
EDITIONS = {lang: {s.id: s for s in content.load_sections(lang)} for lang in LANGUAGES}
SECTIONS = EDITIONS["zh"]


def blocks(section_id, kind, language="zh"):
    return [b for b in EDITIONS[language][section_id].blocks if b.kind == kind]


def display_math(section) -> list[str]:
    """The display formulas ($$...$$) of a section, in order, whitespace removed."""
    found = []
    for block in section.blocks:
        for part in [block.body, *block.parts.values()]:
            found += [re.sub(r"\s+", "", m) for m in re.findall(r"\$\$(.+?)\$\$", part, flags=re.S)]
    return found


# --- the format --------------------------------------------------------------------


def test_the_text_exists_in_both_languages():
    assert content.content_languages() == sorted(LANGUAGES)
    with pytest.raises(ValueError, match=r"language must be one of \['en', 'zh'\], got 'fr'"):
        content.load_sections("fr")
    with pytest.raises(ValueError, match="got None"):
        content.load_sections(None)


def test_package_reads_the_repository_content_folder():
    root = Path(__file__).resolve().parents[1]
    assert content.CONTENT_DIR.resolve() == (root / "content").resolve()
    for lang in LANGUAGES:
        assert {s.path.resolve().parent for s in EDITIONS[lang].values()} == {(root / "content" / lang).resolve()}


def test_package_data_ships_every_edition():
    import tomllib
    from fnmatch import fnmatch

    root = Path(__file__).resolve().parents[1]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "attention_explorable"
    ]
    for lang in LANGUAGES:
        for section in EDITIONS[lang].values():
            rel = f"sections/{lang}/{section.path.name}"
            assert any(fnmatch(rel, p) for p in patterns), rel


def test_parser_reports_unclosed_and_unknown_blocks(tmp_path):
    bad = tmp_path / "x.md"
    bad.write_text("---\nid: x\ntitle: X\norder: 1\n---\ntext\n:::proof P\nbody\n", encoding="utf-8")
    with pytest.raises(content.ContentError, match=r"x.md:7: block ':::proof' is never closed"):
        content.parse_section(bad)
    bad.write_text("---\nid: x\ntitle: X\norder: 1\n---\n:::poem\n:::\n", encoding="utf-8")
    with pytest.raises(content.ContentError, match="unknown block ':::poem'"):
        content.parse_section(bad)
    bad.write_text("---\nid: x\ntitle: X\norder: 1\n---\n\ntext\n\n:::poem\n:::\n", encoding="utf-8")
    with pytest.raises(content.ContentError, match=r"x.md:9: unknown block ':::poem'"):
        content.parse_section(bad)
    bad.write_text("no front matter", encoding="utf-8")
    with pytest.raises(content.ContentError, match="front matter"):
        content.parse_section(bad)


def test_a_block_is_found_by_the_text_parser_not_by_its_lines(tmp_path):
    """A ``:::`` line inside a code sample or a formula is text; the blocks keep their order and bodies."""
    page = tmp_path / "x.md"
    page.write_text(
        "---\nid: x\ntitle: X\norder: 1\n---\n## A\n\n```text\n:::poem\n```\n\n:::proof Why\nbecause\n\n:::\nafter\n",
        encoding="utf-8",
    )
    section = content.parse_section(page)
    assert [(b.kind, b.args) for b in section.blocks] == [("markdown", ()), ("proof", ("Why",)), ("markdown", ())]
    assert ":::poem" in section.blocks[0].body and section.blocks[1].body == "because\n"
    assert section.blocks[2].body.strip() == "after"


@pytest.mark.parametrize(
    "line, message",
    [
        (":::video", "video needs at least one source"),
        (":::video url=https://www.youtube.com/watch?v=eMlx5fFNoYc", "unknown video site 'url'"),
        (":::video vimeo=123", "unknown video site 'vimeo'"),
        (":::video youtube=eMlx5fFNoYc'><script>", r"youtube=\"eMlx5fFNoYc'><script>\" is not a youtube video id"),
        (":::video bilibili=av123", "bilibili='av123' is not a bilibili video id"),
    ],
)
def test_a_video_block_names_what_is_wrong_with_its_sources(tmp_path, line, message):
    bad = tmp_path / "v.md"
    bad.write_text(f"---\nid: x\ntitle: X\norder: 1\n---\n{line}\nwatch\n:::\n", encoding="utf-8")
    with pytest.raises(content.ContentError, match=rf"v.md:6: {message}"):
        content.parse_section(bad)


def test_video_sources_keep_the_written_order(tmp_path):
    f = tmp_path / "v.md"
    f.write_text(
        "---\nid: x\ntitle: X\norder: 1\n---\n:::video bilibili=BV1TZ421j7Ke youtube=eMlx5fFNoYc\n:::\n",
        encoding="utf-8",
    )
    (video,) = content.parse_section(f).blocks
    assert content.video_sources(video) == [
        (
            "bilibili",
            "https://player.bilibili.com/player.html?bvid=BV1TZ421j7Ke&autoplay=0",
            "https://www.bilibili.com/video/BV1TZ421j7Ke/",
        ),
        (
            "youtube",
            "https://www.youtube-nocookie.com/embed/eMlx5fFNoYc",
            "https://www.youtube.com/watch?v=eMlx5fFNoYc",
        ),
    ]


def test_money_dollar_stays_text_and_math_becomes_mathml():
    assert content.markdown_to_html("A book costs $5, a pen $2.") == "<p>A book costs $5, a pen $2.</p>\n"
    inline = content.markdown_to_html("score $q\\cdot k_j$")
    assert "<math><mi>q</mi>" in inline and "<msub><mi>k</mi><mi>j</mi></msub>" in inline
    assert "xmlns" not in inline and "display=" not in inline  # (HTML's parser and MathML's defaults say it)
    block = content.markdown_to_html("$$\ny=\\sum_j a_j v_j\n$$")
    assert "<div class='ae-math-display'><math " in block and 'display="block"' in block
    assert "<munder><mo>∑</mo><mi>j</mi></munder>" in block
    less = content.markdown_to_html("$a<b$")
    assert "<mo>&#x0003C;</mo>" in less and "<b" not in less  # no markup leaks from the formula


def test_a_formula_that_cannot_convert_is_named():
    with pytest.raises(content.ContentError, match=r"cannot convert the formula 'a_\{'"):
        content.tex_to_mathml("a_{")


# --- each edition --------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_both_sections_present_in_order(lang):
    sections = EDITIONS[lang]
    assert list(sections) == ["sec-3-7", "sec-3-8"]
    assert sections["sec-3-7"].title.startswith("3.7 ") and sections["sec-3-8"].title.startswith("3.8 ")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_explorable_placed_and_registered(lang):
    placed = [b.args[0] for s in EDITIONS[lang].values() for b in s.blocks if b.kind == "explorable"]
    assert sorted(placed) == sorted(MODULES)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_section_3_8_structure(lang):
    # No definition block: the weights are 3.7.4's softmax weights, not renamed here.
    assert len(blocks("sec-3-8", "definition", lang)) == 0
    assert len(blocks("sec-3-8", "proposition", lang)) == 1
    # The proof of Proposition 3.8.1, the contexts' two words and causal mask, and the head's two maps and
    # its comparison (answers folded, read once the student has run it). The steps' three checks are in 3.7.5.
    assert len(blocks("sec-3-8", "proof", lang)) == 5
    # 3.7: one folded check per step of the steps explorable, then the vector, matrix and qkv explorables' checks,
    # and why √dₖ (it answers the matrix's question, so it waits, folded, below it).
    assert len(blocks("sec-3-7", "proof", lang)) == 7
    lean = blocks("sec-3-8", "lean", lang)
    assert len(lean) == 1 and "theorem" in lean[0].body
    (video,) = blocks("sec-3-8", "video", lang)
    assert {site for site, _, _ in content.video_sources(video)} == {"youtube", "bilibili"}
    assert r"\sqrt{d_k}" in "\n".join(display_math(EDITIONS[lang]["sec-3-8"]))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_step_is_predicted_before_it_is_answered(lang):
    """The steps' answers come after the explorable, each folded, each followed by a checked question.

    The steps are the smallest case of 3.7 (two scalar values): at the end of 3.7.5, after softmax and the
    weighted sum are defined and before the vectors of 3.7.6."""
    (section,) = [
        s for s in EDITIONS[lang].values() if any(b.kind == "explorable" and b.args[0] == "steps" for b in s.blocks)
    ]
    assert section.id == "sec-3-7"
    kinds = [(b.kind, b.args[0] if b.args else "") for b in section.blocks]
    at = kinds.index(("explorable", "steps"))
    before = "\n".join(b.body for b in section.blocks[:at])
    after_all = "\n".join(b.body for b in section.blocks[at:])
    assert "\n## 3.7.5 " in before and "\n## 3.7.6 " not in before and "\n## 3.7.6 " in after_all
    for answer in ("0.881", "9.05", "0.450", "6.40", {"zh": "严格大于", "en": "strictly"}[lang]):
        assert answer not in before, f"{answer} is given before the explorable"
    after = [(k, a) for k, a in kinds[at + 1 :] if k != "markdown"][:6]
    assert [k for k, _ in after] == ["proof", "exercise"] * 3
    assert [a for k, a in after if k == "exercise"] == ["step1-check", "step2-check", "step3-check"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_vector_and_matrix_explorables_ask_before_the_text_answers(lang):
    """3.7 asks its question at each explorable and gives the result only after it."""
    section = EDITIONS[lang]["sec-3-7"]
    kinds = [(b.kind, b.args[0] if b.args else "") for b in section.blocks]
    for name, answers in {"vector": ("0.063", "0.233", "[1, 0.5]"), "matrix": ("饱和", "saturat")}.items():
        at = kinds.index(("explorable", name))
        before = "\n".join(b.body for b in section.blocks[:at] if b.kind == "markdown")
        for answer in answers:
            assert answer not in before, f"{answer} is given before the {name} explorable"
        caption = section.blocks[at].body
        assert "?" in caption or "？" in caption, f"the {name} explorable asks no question"
        # The answer follows, folded away in a check.
        check = next(b for b in section.blocks[at + 1 :] if b.kind != "markdown")
        assert check.kind == "proof" and any(answer in check.body for answer in answers), (name, check.kind)
        between = "\n".join(b.body for b in section.blocks[at + 1 : section.blocks.index(check)])
        assert not any(answer in between for answer in answers), f"the {name} explorable is answered in open text"


#: Words that place a control beside or above another: true on a wide screen, not on a phone, where the
#: explorable's parts stand one under the other.
_PLACES = {
    "zh": ("右侧", "左侧", "左上", "右上", "左下", "右下", "右边的", "左边的"),
    "en": (
        "on the right",
        "on the left",
        "to the right of",
        "to the left of",
        "top left",
        "top right",
        "beside the plot",
    ),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_text_never_places_a_control_by_the_screens_sides(lang):
    for section in EDITIONS[lang].values():
        for block in section.blocks:
            text = re.sub(r"\$[^$]*\$", "", block.body)  # (a formula's words are its own)
            for word in _PLACES[lang]:
                assert word not in text, (section.id, word, text[max(0, text.find(word) - 60) :][:140])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_number_exercise_is_answered_in_the_prose(lang):
    """A number exercise asks for a number the section's prose does not already print."""
    for section in EDITIONS[lang].values():
        prose = "\n".join(b.body for b in section.blocks if b.kind != "exercise")
        for b in section.exercises():
            answer = b.options.get("answer", "")
            # (as a number of its own: the 8.4 inside a section number such as 3.8.4 is not one)
            if b.options["kind"] == "number" and "." in answer:
                printed = re.search(rf"(?<![\d.]){re.escape(answer)}(?![\d])", prose)
                assert not printed, f"{b.args[0]}: {answer} is printed in the text of {section.id}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_section_3_7_exercises_q1_to_q5_one_question_a_box(lang):
    exercises = blocks("sec-3-7", "exercise", lang)
    assert [b.args[0] for b in exercises] == [
        "step1-check",  # the steps' three checked questions (3.7.5), before the exercises at the end
        "step2-check",
        "step3-check",
        "q1-qkv",
        "q2-scores",  # the course's own: the worked example's three scores, and why position 2 weighs least
        "q2-alpha2",
        "q3-sqrt-d",
        "q4-self-cross",
        "q5-entries",
        "q5-memory",
    ]
    assert [b.options["kind"] for b in exercises] == ["number"] * 3 + [
        "text",
        "text",
        "number",
        "choice",
        "text",
        "number",
        "number",
    ]
    for b in exercises:
        assert b.parts.get("answer"), b.args


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_section_opens_with_objectives_and_ends_with_a_summary(lang):
    marks = {"zh": ("**学习目标。**", "小结"), "en": ("**Learning objectives.**", "Summary")}[lang]
    for section in EDITIONS[lang].values():
        first_heading = section.blocks[0].body.index("\n## ")
        assert marks[0] in section.blocks[0].body[:first_heading], section.id
        headings = [h for _, h in section.headings()]
        assert marks[1] in headings and headings.index(marks[1]) >= len(headings) - 5, headings


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_glossary_pairs_each_term_with_its_translation(lang):
    last = EDITIONS[lang]["sec-3-8"].blocks[-1].body
    html = content.markdown_to_html(last)
    # stacked on a phone, each cell after its column's name; its table roles kept for a screen reader
    assert '<table tabindex="0" class="ae-stack" role="table">' in html
    assert 'role="cell" data-label="English"' in html or 'role="cell" data-label="中文"' in html
    for zh, en in [
        ("查询", "query"),
        ("键", "key"),
        ("值", "value"),
        ("分数", "score"),
        ("权重", "weight"),
        ("温度", "temperature"),
        ("掩码", "mask"),
        ("凸包", "convex hull"),
        ("词元", "token"),
        ("自注意力", "self-attention"),
        ("交叉注意力", "cross-attention"),
        ("注意力头", "attention head"),
    ]:
        rows = [r for r in re.findall(r"<tr[^>]*>(.*?)</tr>", html, flags=re.S) if re.search(f"<td[^>]*>{zh}", r)]
        assert any(en in r for r in rows), (zh, en)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_raw_dollar_reaches_the_reader(lang):
    for section in EDITIONS[lang].values():
        for block in section.blocks:
            if block.kind in ("markdown", "definition", "proposition", "proof"):
                html = content.markdown_to_html(block.body)
                visible = re.sub(r"<math[ >].*?</math>", "", html, flags=re.S)
                assert "$" not in visible, visible[:300]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_formula_of_the_course_converts(lang):
    n = 0
    for section in EDITIONS[lang].values():
        for block in section.blocks:
            if block.kind != "lean":
                for part in [block.body, *block.parts.values()]:
                    n += len(re.findall(r"<math[ >]", content.markdown_to_html(part)))
    assert n > 300


# --- the two editions held together -------------------------------------------------------


def _skeleton(section) -> list[tuple]:
    """What must not differ between editions: every block's kind and, for blocks
    that carry them, the id, the options and the exercise's answer parts."""
    out = []
    for b in section.blocks:
        if b.kind == "markdown":
            continue
        if b.kind in ("explorable", "exercise"):
            key = (
                b.kind,
                b.args,
                tuple(sorted(b.options.items())),
                tuple(sorted(k for k in b.parts if k != "question")),
                tuple(line.split(".")[0] for line in b.parts.get("options", "").splitlines()),
            )
        elif b.kind == "video":
            key = (b.kind, tuple(sorted(b.options.items())))
        else:  # titled blocks: the titles are translated, their numbers are not
            key = (b.kind, tuple(re.findall(r"\d+(?:\.\d+)+", b.title)))
        out.append(key)
    return out


@pytest.mark.parametrize("section_id", list(SECTIONS))
def test_both_editions_have_the_same_blocks(section_id):
    zh, en = EDITIONS["zh"][section_id], EDITIONS["en"][section_id]
    assert (zh.id, zh.order) == (en.id, en.order)
    assert _skeleton(zh) == _skeleton(en)
    assert len(zh.headings()) == len(en.headings())
    numbered = [re.match(r"[\d.]+", h).group() for _, h in zh.headings() if h[0].isdigit()]
    assert numbered == [re.match(r"[\d.]+", h).group() for _, h in en.headings() if h[0].isdigit()]


@pytest.mark.parametrize("section_id", list(SECTIONS))
def test_both_editions_show_the_same_display_formulas(section_id):
    assert display_math(EDITIONS["zh"][section_id]) == display_math(EDITIONS["en"][section_id])


def test_exercises_are_checked_alike_in_both_editions():
    zh = {b.args[0]: b for s in EDITIONS["zh"].values() for b in s.exercises()}
    en = {b.args[0]: b for s in EDITIONS["en"].values() for b in s.exercises()}
    assert list(zh) == list(en)
    for ex_id in zh:
        assert zh[ex_id].options == en[ex_id].options, ex_id
        assert bool(zh[ex_id].parts.get("hint")) == bool(en[ex_id].parts.get("hint")), ex_id


def test_an_inline_formula_and_the_punctuation_after_it_are_kept_together_and_nothing_else():
    html = content.markdown_to_html("权重 $a_j$ 和 $b$，其和为 $1$。再看 $c$ 与 $d$")
    kept = re.findall(r"<span class='ae-nobreak'>(.*?)</span>", html)
    # Only "b，" and "1。": a span never reaches back over another formula or the text between.
    assert [len(re.findall(r"<math[ >]", k)) for k in kept] == [1, 1] and [k[-1] for k in kept] == ["，", "。"], kept
    assert len(re.findall(r"<math[ >]", html)) == 5


def test_a_table_of_numbers_headed_by_formulas_stays_a_grid_and_a_narrow_one_too():
    numbers = "| $T$ | $2/T$ | $y$ | $x$ |\n|---|---|---|---|\n| 1 | 2 | 3 | 4 |\n"
    narrow = "| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n"
    for source in (numbers, narrow):
        html = content.markdown_to_html(source)
        assert '<table tabindex="0">' in html and "data-label" not in html and "role=" not in html


@pytest.mark.parametrize(
    ("tex", "sign"),
    [(r"M_{ij}=-\infty", True), (r"(1, -2)", True), (r"e^{-x}", True), (r"(a)-b", False), (r"a-b", False)],
)
def test_a_sign_is_set_as_a_sign_and_an_operation_as_an_operation(tex, sign):
    """A browser spaces an ``<mo>`` between two others as an operation ("= − ∞"): a sign is marked prefix."""
    out = content.tex_to_mathml(tex)
    assert ('<mo form="prefix">−</mo>' in out) is sign, out
    assert out.count("−") == 1


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_contents_list_every_heading_and_nest_the_third_level_under_its_second(language):
    """A ``###`` heading (the steps' "try it" in 3.7.5) is in the contents, under its ``##``; every link
    of the contents names a heading of the page."""
    from attention_explorable import textbook

    contents = textbook.contents_html(language)
    sections = content.load_sections(language)
    page = "".join(textbook.block_html(s.id, b, language) for s in sections for b in s.blocks if b.kind == "markdown")
    page_ids = set(re.findall(r"id=['\"]([^'\"]+)['\"]", page)) | {s.id for s in sections}
    links = re.findall(r"href='#([^']+)'", contents)
    assert links and set(links) <= page_ids, set(links) - page_ids
    third = [a for s in sections for level, a, _ in s.outline() if level == 3]
    assert third, "the text has a ### heading"
    for a in third:  # in a list inside the list item of the ## heading before it: three lists deep
        at = contents.index(f"<a href='#{a}'>")
        assert contents[:at].count("<ul>") - contents[:at].count("</ul>") == 3, a
    seconds = [a for s in sections for a, _ in s.headings()]
    for a in seconds:  # (and each ## two lists deep)
        at = contents.index(f"<a href='#{a}'>")
        assert contents[:at].count("<ul>") - contents[:at].count("</ul>") == 2, a
