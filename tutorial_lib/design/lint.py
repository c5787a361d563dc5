"""A tool-set linter: names and descriptions a model can tell apart (syllabus B5).

A model chooses a tool from its name and description alone, fills the arguments from the
schema, and learns what a call did from the description and the annotations. :func:`lint`
checks a tool set for the mistakes that make those steps guesswork, and reports each one
as a :class:`Finding` that says what is wrong and how to fix it::

    from tutorial_lib.course.chapters.ch02_tool_set.demos import BAD_TOOLSET, GOOD_TOOLSET
    from tutorial_lib.design.lint import format_findings, lint
    print(format_findings(lint(BAD_TOOLSET)))
    lint(GOOD_TOOLSET)  # -> []

(the example tool sets live with the course,
:mod:`tutorial_lib.course.chapters.ch02_tool_set.demos`: a design
instrument depends on the core only, never on a tool package).

Every rule is a small, documented heuristic over words, not language understanding: it
can be fooled, and a clean report is a floor, not a proof. ``help(RULES["vague_name"])``
(or :func:`explain`) shows why a rule matters and exactly what it checks.

The rules, in report order:

- ``vague_name``: the name needs an action verb and a resource noun, and no vague verb;
- ``near_duplicate``: two tools whose names mean the same, or whose descriptions share most
  of their words;
- ``description_missing_target``: the description never names the object the tool acts on;
- ``description_missing_scope``: no bound (which workspace/repository, how many);
- ``description_missing_paging``: a list-returning tool that says nothing about pages/limits;
- ``description_missing_side_effects``: a tool that may write, whose description says no
  write;
- ``write_not_marked``: annotations and words disagree about writing;
- ``number_without_unit``: a number such as ``timeout`` with no unit in its name;
- ``additional_properties_allowed``: an argument object without
  ``additionalProperties: false``.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tutorial_lib.core.tools import ToolSpec

__all__ = [
    "ACTION_VERBS",
    "COUNTED_SIZES",
    "NEAR_DUPLICATE_THRESHOLD",
    "QUANTITY_WORDS",
    "READ_VERBS",
    "RULES",
    "UNIT_WORDS",
    "VAGUE_NOUNS",
    "VAGUE_VERBS",
    "WRITE_VERBS",
    "Finding",
    "describes_side_effect",
    "explain",
    "format_findings",
    "iter_subschemas",
    "lint",
    "name_tokens",
]


@dataclass(frozen=True)
class Finding:
    """One problem in a tool set: which tool, which rule, what is wrong, how to fix it.

    ``rule`` is the snake_case id of a rule in :data:`RULES`; ``message`` and ``fix`` are
    English sentences (identifiers are English too).
    """

    tool: str
    rule: str
    message: str
    fix: str


# --------------------------------------------------------------------------------------
# Vocabulary. Public, so a learner can read exactly what the heuristics know.
# --------------------------------------------------------------------------------------


def _vocab(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: Verbs that name a read: the tool looks, it does not change anything.
READ_VERBS = _vocab(
    "get list search find read fetch query count describe show view inspect check"
    " download export diff compare lookup retrieve grep stat preview validate"
)
#: Verbs that name a write: the tool creates, changes, removes or sends something.
WRITE_VERBS = _vocab(
    "create update delete remove add post send merge write edit set put patch upload"
    " publish submit close reopen move rename copy approve assign unassign cancel archive"
    " restore insert replace reply lock unlock install uninstall deploy revert resolve unresolve"
    " import enable disable start stop restart"
)
#: Every verb the linter accepts as naming an action.
ACTION_VERBS = READ_VERBS | WRITE_VERBS
#: Verbs that fit almost any tool, so they tell the model nothing.
VAGUE_VERBS = _vocab(
    "do run execute exec handle process manage perform sync invoke call dispatch trigger go apply"
)
#: Nouns that fit almost anything, so they do not name a resource.
VAGUE_NOUNS = _vocab(
    "data info information action thing stuff object entity value payload result request"
    " operation op it this that everything all tool func function helper util utils misc"
    " generic general resource item"
)
#: Words of a name that do not count as resources (glue words).
_GLUE = _vocab("a an the by for of and or to from with in on at as")

#: Words in a numeric property's name that imply a quantity with a unit.
QUANTITY_WORDS = _vocab(
    "timeout delay wait size age interval ttl duration elapsed latency period backoff"
    " expiry lifetime sleep"
)
#: Words that, just before ``size``, make it a count of items (``page_size``: comments per
#: page), so no further unit is needed.
COUNTED_SIZES = _vocab("page batch")
#: Words that state a unit (one of them in the name is enough).
UNIT_WORDS = _vocab(
    "ms msec millis millisecond milliseconds s sec secs second seconds min mins minute"
    " minutes h hr hrs hour hours day days us micros microsecond microseconds ns nanos"
    " nanosecond nanoseconds b byte bytes kb kib mb mib gb gib count chars characters"
    " lines items tokens pct percent px"
)

#: Two descriptions whose word sets overlap this much (Jaccard) are near-duplicates.
NEAR_DUPLICATE_THRESHOLD = 0.6

# Synonyms mapped to one canonical verb before names are compared.
_SYNONYMS = {
    **dict.fromkeys(["get", "fetch", "read", "retrieve", "load", "obtain", "show"], "get"),
    **dict.fromkeys(["list", "enumerate", "browse"], "list"),
    **dict.fromkeys(["search", "find", "query", "lookup", "grep"], "search"),
    **dict.fromkeys(["create", "add", "new", "insert", "make"], "create"),
    **dict.fromkeys(["update", "edit", "modify", "change", "patch", "set"], "update"),
    **dict.fromkeys(["delete", "remove", "destroy", "erase", "del", "drop"], "delete"),
    **dict.fromkeys(["send", "post", "submit", "publish"], "send"),
}

# Abbreviations a name may use for a resource the description spells out.
_EXPANSIONS = {
    "pr": ("pull request",),
    "repo": ("repository",),
    "dir": ("directory", "folder"),
    "msg": ("message",),
    "doc": ("document",),
    "db": ("database",),
    "org": ("organization", "organisation"),
    "env": ("environment",),
    "config": ("configuration", "setting"),
    "fs": ("file", "filesystem"),
}

_STOPWORDS = _vocab(
    "a an the and or of to in on at by for from with as is are be it its this that these"
    " those one each if not no do does use used using can may will which what when you your"
    " their there then than into only also all any per"
)

_SCOPE = re.compile(
    r"\b(workspace|repository|repositories|repo|project|directory|folder|account"
    r"|organi[sz]ation|org|team|channel|database|table|bucket|server|calendar|mailbox"
    r"|inbox|tenant|namespace|cluster"
    r"|one|a single|single|up to|at most|no more than|maximum of|first \d+)\b",
    re.IGNORECASE,
)
_PAGING = re.compile(
    r"\b(page|pages|paged|paging|paginat\w*|cursor|next_cursor|next_page|per_page|limit"
    r"|limits|limited|truncat\w*|has_more|up to|at most|first \d+|offset)\b",
    re.IGNORECASE,
)
_SIDE_EFFECT = re.compile(
    r"\b(writ\w*|wrote|creat\w*|delet\w*|remov\w*|updat\w*|modif\w*|overwrit\w*|send\w*"
    r"|sent|post\w*|publish\w*|submit\w*|merg\w*|chang\w*|notif\w*|charg\w*"
    r"|side[- ]effects?|irreversib\w*|permanent\w*|cannot be undone)\b",
    re.IGNORECASE,
)
_READ_ONLY_CLAIM = re.compile(
    r"(?<!not )\bread[- ]only\b|\bdoes not (modify|change|write)\b|\bno side[- ]effects?\b"
    r"|\bnever (modifies|changes|writes)\b",
    re.IGNORECASE,
)
_LIST_VERBS = frozenset({"list", "search"})


def describes_side_effect(text: str) -> bool:
    """Whether ``text`` says the tool writes, creates, deletes, sends... something."""
    return bool(_SIDE_EFFECT.search(text))


# --------------------------------------------------------------------------------------
# Words
# --------------------------------------------------------------------------------------


def name_tokens(name: str) -> list[str]:
    """Split a tool or property name into lowercase words.

    Separators ``_ - .`` and camelCase boundaries split; digits become their own token::

        name_tokens("getData")                 -> ["get", "data"]
        name_tokens("github_pr_list_comments") -> ["github", "pr", "list", "comments"]
        name_tokens("tool1")                   -> ["tool", "1"]
    """
    tokens: list[str] = []
    for part in re.split(r"[_.\-\s]+", name):
        tokens += re.findall(r"[A-Z]+(?=[A-Z][a-z]|\d|$)|[A-Z]?[a-z]+|[A-Z]+|\d+", part)
    return [t.lower() for t in tokens]


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _verb_of(word: str) -> str | None:
    """The verb a word is a form of ('Creates' -> 'create', 'fetches' -> 'fetch'), or None."""
    word = word.lower()
    for candidate in (word, word[:-1], word[:-2]):
        if candidate in ACTION_VERBS or candidate in VAGUE_VERBS:
            return candidate
    return None


def _resources(tokens: Sequence[str]) -> list[str]:
    """Tokens of a name that can name a resource: not verbs, vague, numbers or glue."""
    return [
        _singular(t)
        for t in tokens
        if t not in ACTION_VERBS
        and t not in VAGUE_VERBS
        and _singular(t) not in VAGUE_NOUNS
        and t not in _GLUE
        and not t.isdigit()
    ]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9_]+", text.lower())


def _description_terms(text: str) -> set[str]:
    return {_singular(w) for w in _words(text) if w not in _STOPWORDS}


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _canonical_name(name: str) -> tuple[str, ...]:
    tokens = [_singular(t) for t in name_tokens(name)]
    merged: list[str] = []
    for token in tokens:
        if token == "all" and merged and merged[-1] == "get":  # get_all_x means list_x
            merged[-1] = "list"
            continue
        merged.append(_SYNONYMS.get(token, token))
    return tuple(sorted(merged))


def iter_subschemas(schema: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``(path, subschema)`` for ``schema`` and every schema nested in it.

    Paths are dotted keyword paths from the root (``""`` for the root itself), e.g.
    ``"properties.filter"`` or ``"properties.items.items"``. Visits ``properties``,
    ``items``/``prefixItems``, ``additionalProperties``/``patternProperties`` when they are
    schemas, ``anyOf``/``oneOf``/``allOf``, ``not``/``if``/``then``/``else`` and
    ``$defs``/``definitions``.
    """
    if not isinstance(schema, dict):
        return
    yield path, schema
    prefix = f"{path}." if path else ""
    for keyword in ("properties", "patternProperties", "$defs", "definitions"):
        children = schema.get(keyword)
        if isinstance(children, dict):
            for key, child in children.items():
                yield from iter_subschemas(child, f"{prefix}{keyword}.{key}")
    for keyword in ("items", "additionalProperties", "not", "if", "then", "else"):
        child = schema.get(keyword)
        if isinstance(child, dict):
            yield from iter_subschemas(child, f"{prefix}{keyword}")
    for keyword in ("prefixItems", "anyOf", "oneOf", "allOf", "items"):
        children = schema.get(keyword)
        if isinstance(children, list):
            for index, child in enumerate(children):
                yield from iter_subschemas(child, f"{prefix}{keyword}.{index}")


def _types(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {t for t in declared if isinstance(t, str)}
    return set()


def _is_object(schema: dict[str, Any]) -> bool:
    return "object" in _types(schema) or "properties" in schema


def _property_label(path: str) -> str:
    """``properties.filter.properties.timeout`` -> ``filter.timeout``."""
    parts = path.split(".")
    names = [parts[i + 1] for i, p in enumerate(parts[:-1]) if p == "properties"]
    return ".".join(names) if names else path


# --------------------------------------------------------------------------------------
# Rules. Each returns the (message, fix) pairs it finds; docstrings say why and how.
# --------------------------------------------------------------------------------------

Problem = tuple[str, str]


def vague_name(spec: ToolSpec) -> list[Problem]:
    """vague_name: the name must say which action on which resource.

    Why: a model picks a tool by its name first. ``getData``, ``runAction`` or ``sync``
    fit any task, so the model must read every description (or guess), and a set of such
    tools cannot be told apart at all.

    Check (on the words of the name, split at ``_ - .`` and camelCase, see
    :func:`name_tokens`), the name is vague when any of these holds:

    - it contains a vague verb (:data:`VAGUE_VERBS`: run, do, execute, handle, process,
      manage, perform, sync, invoke, call, ...);
    - it contains no action verb from :data:`ACTION_VERBS` (get, list, search, read,
      create, update, delete, send, merge, ...);
    - it contains no resource noun: a word that is not a verb, not glue, not a number and
      not a vague noun (:data:`VAGUE_NOUNS`: data, info, action, item, thing, it, tool, ...);
    - it contains a number (``tool1``): siblings told apart by a counter, not a word.

    A namespace prefix (``github_pr_``, ``files_``) counts as resource nouns, so
    ``github_pr_get`` and ``read_lines`` pass, while ``getData`` (``data`` is vague),
    ``runAction`` (vague verb and noun), ``sync``, ``do_it`` and ``tool1`` do not.
    """
    tokens = name_tokens(spec.name)
    reasons: list[str] = []
    vague_verbs = [t for t in tokens if t in VAGUE_VERBS]
    if vague_verbs:
        reasons.append(f"'{vague_verbs[0]}' is a verb that fits almost any tool")
    if not any(t in ACTION_VERBS for t in tokens):
        reasons.append("it has no specific action verb (get, list, search, create, ...)")
    if not _resources(tokens):
        vague = [t for t in tokens if _singular(t) in VAGUE_NOUNS]
        detail = f" ('{vague[0]}' could be anything)" if vague else ""
        reasons.append(f"it names no resource{detail}")
    if any(t.isdigit() for t in tokens):
        reasons.append("a number, not a word, tells it apart from its siblings")
    if not reasons:
        return []
    return [
        (
            f"the name '{spec.name}' does not say which action on which resource: "
            + "; ".join(reasons),
            "Name the resource and the specific action, with a namespace prefix for the"
            " service: e.g. 'github_pr_get', 'github_pr_list_comments', 'files_search'.",
        )
    ]


def near_duplicate(spec: ToolSpec, earlier: Sequence[ToolSpec]) -> list[Problem]:
    """near_duplicate: two tools the model cannot tell apart.

    Why: with ``read_file`` and ``get_file_content`` side by side, every call starts with a
    coin toss; selection cost and mistakes grow with each overlapping pair, and evaluations
    cannot tell which tool was meant.

    Check, for each earlier tool in the set (the finding goes to the later one):

    - names: equal after mapping synonyms to one verb (get/fetch/read/retrieve/load,
      list/enumerate and ``get_all``, search/find/query/lookup, create/add/insert,
      update/edit/modify/set, delete/remove, send/post/submit/publish), singularising
      words and ignoring word order: ``read_file`` ~ ``fetch_file``, ``list_users`` ~
      ``get_all_users``;
    - descriptions: the Jaccard similarity of their word sets (lowercased, common stop
      words removed, plurals singularised) is at least :data:`NEAR_DUPLICATE_THRESHOLD`
      (0.6).
    """
    problems: list[Problem] = []
    mine = _description_terms(spec.description)
    for other in earlier:
        reasons = []
        if _canonical_name(spec.name) == _canonical_name(other.name):
            reasons.append("their names mean the same once synonyms are mapped")
        similarity = _jaccard(mine, _description_terms(other.description))
        if similarity >= NEAR_DUPLICATE_THRESHOLD:
            reasons.append(
                f"their descriptions share {similarity:.0%} of their words"
                f" (threshold {NEAR_DUPLICATE_THRESHOLD:.0%})"
            )
        if reasons:
            problems.append(
                (
                    f"'{spec.name}' is a near-duplicate of '{other.name}': "
                    + " and ".join(reasons),
                    f"Merge '{spec.name}' into '{other.name}', or make the names and"
                    " descriptions say how they differ (what each returns, when to use which).",
                )
            )
    return problems


def description_missing_target(spec: ToolSpec) -> list[Problem]:
    """description_missing_target: the description must name what the tool acts on.

    Why: "Deletes it permanently" leaves the model to infer the object from the name; the
    description is where it checks that this tool touches *files* and not tickets.

    Check: at least one resource word of the name (see :func:`vague_name`; singular or
    plural) appears in the description, or a spelled-out form of an abbreviation
    (``pr`` -> "pull request", ``repo`` -> "repository", ``dir`` -> "directory", ...).
    A name with no resource word is skipped here: ``vague_name`` reports it already.
    """
    resources = _resources(name_tokens(spec.name))
    if not resources:
        return []
    text = spec.description.lower()
    words = {_singular(w) for w in _words(text)}
    for resource in resources:
        if resource in words or any(form in text for form in _EXPANSIONS.get(resource, ())):
            return []
    return [
        (
            f"the description never names what '{spec.name}' acts on"
            f" (expected a word such as {', '.join(repr(r) for r in dict.fromkeys(resources))})",
            "Start with the action and its object, e.g. 'Delete one file of the workspace'.",
        )
    ]


def description_missing_scope(spec: ToolSpec) -> list[Problem]:
    """description_missing_scope: the description must bound where and how much.

    Why: "Syncs everything" does not say which repository, workspace or account a call
    touches, nor how many items; the model cannot judge cost or blast radius.

    Check: the description mentions a container (workspace, repository, project,
    directory, folder, account, organization, team, channel, database, table, bucket,
    server, calendar, mailbox, namespace, cluster, ...) or a bound ("one", "a single",
    "up to", "at most", "no more than", "maximum of", "first N").
    """
    if _SCOPE.search(spec.description):
        return []
    return [
        (
            f"the description of '{spec.name}' does not bound it: which repository or"
            " workspace it works in, or how many items one call touches",
            "Say where and how much, e.g. 'one pull request of owner/repo', 'in the"
            " workspace', 'at most 100 per call'.",
        )
    ]


def _list_reason(spec: ToolSpec) -> str | None:
    verbs = [t for t in name_tokens(spec.name) if _SYNONYMS.get(t, t) in _LIST_VERBS]
    if verbs:
        return f"its name says '{verbs[0]}'"
    if spec.output_schema is not None:
        for path, node in iter_subschemas(spec.output_schema):
            if "array" in _types(node) or "items" in node:
                return f"its output has an array at '{_property_label(path) or 'the root'}'"
    return None


def description_missing_paging(spec: ToolSpec) -> list[Problem]:
    """description_missing_paging: a list must say how much comes back and how to go on.

    Why: a model that does not know a result is capped reads the first page as the whole
    answer ("no other matches"), or asks for everything and floods its context.

    Check: a tool returns a list when its name has a list verb (list, search, find, query,
    enumerate, browse, lookup) or its output schema has an array anywhere. Its description
    must then mention paging or limits: page, per_page, cursor, next_cursor, next_page,
    limit, offset, truncated, has_more, "up to", "at most", "first N".
    """
    reason = _list_reason(spec)
    if reason is None or _PAGING.search(spec.description):
        return []
    return [
        (
            f"'{spec.name}' returns a list ({reason}), but the description says nothing about"
            " how much one call returns or how to get the rest",
            "State the cap and how to continue, e.g. 'at most 100 per call; next_cursor is"
            " null on the last page, otherwise pass it as cursor'.",
        )
    ]


def description_missing_side_effects(spec: ToolSpec) -> list[Problem]:
    """description_missing_side_effects: a tool that may write must say what it writes.

    Why: the model decides whether a call is safe to make, to retry or to confirm with the
    user from the description. MCP's default annotations (``readOnlyHint: false``) say the
    tool may change anything; if the description is silent, the model must guess.

    Check: when ``annotations.read_only`` is False, the description mentions a side
    effect: writes, creates, deletes, removes, updates, modifies, overwrites, sends, posts,
    publishes, submits, merges, changes, notifies, charges, "side effect", irreversible,
    permanently, "cannot be undone". A description that claims to be read-only is left to
    ``write_not_marked``, which reports the contradiction.
    """
    if spec.annotations.read_only:
        return []
    if _SIDE_EFFECT.search(spec.description) or _READ_ONLY_CLAIM.search(spec.description):
        return []
    return [
        (
            f"'{spec.name}' may change things (read_only is False, MCP's default), but its"
            " description never says what it writes, creates, deletes or sends",
            "If it only reads, mark it: Annotations(read_only=True, ...). If it writes, say"
            " what and where, e.g. 'Posts a review visible to everyone; not idempotent'.",
        )
    ]


def write_not_marked(spec: ToolSpec) -> list[Problem]:
    """write_not_marked: annotations and words must agree about writing.

    Why: clients use ``readOnlyHint`` to skip confirmation; a write marked read-only runs
    unconfirmed. The opposite mismatch (a read-only description with MCP's default
    ``read_only=False``) makes clients ask for confirmation for a harmless read, and tells
    the model two different stories.

    Check, either:

    - ``annotations.read_only`` is True, but the name contains a write verb
      (:data:`WRITE_VERBS`: create, update, delete, post, send, merge, write, ...) or the
      description's first word is one ("Creates a review ...");
    - ``annotations.read_only`` is False, but the description claims to be read-only
      ("read-only", "does not modify", "no side effects", "never writes").
    """
    if spec.annotations.read_only:
        verbs = [t for t in name_tokens(spec.name) if t in WRITE_VERBS]
        first = _words(spec.description)[:1]
        first_verb = _verb_of(first[0]) if first else None
        if first_verb in WRITE_VERBS:
            verbs.append(first_verb)
        if verbs:
            return [
                (
                    f"annotations mark '{spec.name}' read-only, but its name or description"
                    f" says it does '{verbs[0]}', a write",
                    "Mark writes as writes: Annotations(read_only=False, destructive=...,"
                    " idempotent=...); clients skip confirmation for read-only tools.",
                )
            ]
        return []
    claim = _READ_ONLY_CLAIM.search(spec.description)
    if claim:
        return [
            (
                f"the description of '{spec.name}' says '{claim.group(0)}', but its annotations"
                " keep read_only=False (MCP's default: the tool may write)",
                "If it only reads, set Annotations(read_only=True, destructive=False,"
                " idempotent=True); otherwise remove the claim and say what it writes.",
            )
        ]
    return []


def _unit_suggestion(name: str, word: str) -> str:
    if word == "size":
        return f"'{name}_bytes'"
    return f"'{name}_ms' or '{name}_seconds'"


def _ambiguity(word: str) -> str:
    if word == "size":
        return "30 could be bytes, kilobytes or items"
    return "30 could be milliseconds or seconds"


def _counted(tokens: Sequence[str]) -> bool:
    """``page_size``, ``batchSize``: a size that counts the items of a page or batch."""
    return any(
        token == "size" and index > 0 and tokens[index - 1] in COUNTED_SIZES
        for index, token in enumerate(tokens)
    )


def number_without_unit(spec: ToolSpec) -> list[Problem]:
    """number_without_unit: a number that measures something must name its unit.

    Why: ``timeout: 30`` is 30 seconds to one caller and 30 milliseconds to another; the
    model has no way to know, and the error is silent. A unit in the name travels with
    every call, log and export.

    Check: every ``integer`` or ``number`` property, in the input and output schemas at
    any depth, whose name contains a quantity word (:data:`QUANTITY_WORDS`: timeout,
    delay, wait, size, age, interval, ttl, duration, elapsed, latency, period, backoff,
    expiry, lifetime, sleep) must also contain a unit word (:data:`UNIT_WORDS`: ms,
    seconds, minutes, bytes, mb, count, chars, lines, items, ...): ``timeout`` ->
    ``timeout_ms``, ``max_size`` -> ``max_size_bytes``. One exception: a ``size`` right
    after ``page`` or ``batch`` (:data:`COUNTED_SIZES`) counts items, so ``page_size``
    passes (say in its description what one item is: "Comments per call").
    """
    problems: list[Problem] = []
    for label, schema in (("input", spec.input_schema), ("output", spec.output_schema)):
        for path, node in iter_subschemas(schema):
            parts = path.split(".")
            if len(parts) < 2 or parts[-2] != "properties":
                continue
            if not _types(node) & {"integer", "number"}:
                continue
            name = parts[-1]
            tokens = name_tokens(name)
            quantity = next((t for t in tokens if t in QUANTITY_WORDS), None)
            if quantity is None or any(t in UNIT_WORDS for t in tokens):
                continue
            if quantity == "size" and _counted(tokens):
                continue
            problems.append(
                (
                    f"the {label} number '{_property_label(path)}' measures a {quantity} but"
                    f" its name gives no unit: {_ambiguity(quantity)}",
                    f"Put the unit in the name: {_unit_suggestion(name, quantity)}.",
                )
            )
    return problems


def additional_properties_allowed(spec: ToolSpec) -> list[Problem]:
    """additional_properties_allowed: argument objects must refuse unknown keys.

    Why: without ``additionalProperties: false`` a misspelt argument (``lenght``) or one
    invented by the model is silently ignored; the call "succeeds" with a default the
    model did not choose. With it, the validator answers ``unknown_field`` and the model
    corrects itself.

    Check: every object schema in the input schema (the root and any nested object, e.g.
    in ``properties``, ``items``, ``anyOf`` or ``$defs``) that declares properties has
    ``additionalProperties`` exactly ``false``. An object that declares none, or gives
    ``additionalProperties`` a schema, is a map on purpose (its keys are data, e.g. labels
    or a JSON query): closing it would refuse every valid value.
    """
    problems: list[Problem] = []
    for path, node in iter_subschemas(spec.input_schema):
        if not _is_object(node) or node.get("additionalProperties") is False:
            continue
        if not node.get("properties") or isinstance(node.get("additionalProperties"), dict):
            continue  # a map: its keys are data
        where = "the root object" if not path else f"the object at '{_property_label(path)}'"
        problems.append(
            (
                f"in the input schema of '{spec.name}', {where} accepts properties it does not"
                " declare: a misspelt argument is silently ignored instead of refused",
                'Add "additionalProperties": false to that object.',
            )
        )
    return problems


ToolRule = Callable[[ToolSpec], list[Problem]]

#: Every rule by id, in report order. ``near_duplicate`` also takes the earlier tools.
RULES: dict[str, Callable[..., list[Problem]]] = {
    "vague_name": vague_name,
    "near_duplicate": near_duplicate,
    "description_missing_target": description_missing_target,
    "description_missing_scope": description_missing_scope,
    "description_missing_paging": description_missing_paging,
    "description_missing_side_effects": description_missing_side_effects,
    "write_not_marked": write_not_marked,
    "number_without_unit": number_without_unit,
    "additional_properties_allowed": additional_properties_allowed,
}


def explain(rule: str) -> str:
    """Why ``rule`` matters and exactly what it checks (its docstring)."""
    try:
        doc = RULES[rule].__doc__ or ""
    except KeyError:
        raise KeyError(f"no rule {rule!r}; rules: {', '.join(RULES)}") from None
    lines = doc.strip().splitlines()
    return "\n".join(line[4:] if line.startswith("    ") else line for line in lines)


def lint(specs: Iterable[ToolSpec]) -> list[Finding]:
    """Check a tool set; return its findings (``[]`` when it passes clean).

    ``specs`` is any iterable of :class:`ToolSpec`, e.g. a list or a
    :class:`~tutorial_lib.core.tools.Registry`. Findings are ordered by the tools'
    registration order, then by rule in :data:`RULES` order, then as each rule found
    them (schema order), so the same set always gives the same report.
    """
    tools = list(specs)
    findings: list[Finding] = []
    for index, spec in enumerate(tools):
        for rule, check in RULES.items():
            problems = check(spec, tools[:index]) if rule == "near_duplicate" else check(spec)
            findings += [Finding(spec.name, rule, message, fix) for message, fix in problems]
    return findings


def format_findings(findings: Iterable[Finding], width: int | None = 100) -> str:
    """The findings as text: a summary line, then one block per finding.

    Each block is::

        <tool> [<rule>]
          problem: <message>
          fix: <fix>

    Lines longer than ``width`` columns are wrapped at spaces, continued with four spaces
    of indent (``width=None``: one line each, whatever their length).
    """
    findings = list(findings)
    if not findings:
        return "No findings: the tool set passes clean."
    tools = len(dict.fromkeys(f.tool for f in findings))
    noun = "finding" if len(findings) == 1 else "findings"
    head = f"{len(findings)} {noun} in {tools} tool{'s' if tools != 1 else ''}"

    def line(label: str, text: str) -> str:
        if width is None:
            return f"  {label}: {text}"
        return textwrap.fill(
            text,
            width,
            initial_indent=f"  {label}: ",
            subsequent_indent="    ",
            break_long_words=False,
            break_on_hyphens=False,
        )

    blocks = [
        f"{f.tool} [{f.rule}]\n{line('problem', f.message)}\n{line('fix', f.fix)}" for f in findings
    ]
    return "\n\n".join([head, *blocks])
