"""Every rule the checker reports: its id, severity, the chapter that teaches the fix.

A finding's ``rule`` is a key of :data:`RULES`. Each :class:`Rule` says how serious a
finding of it is by default (``info`` < ``warning`` < ``error``), which chapter of the
course teaches the fix (:data:`CHAPTERS`), in one sentence what it checks and, for some,
the fix a finding of it carries when the check has no more precise one. Two rules
take their severity from the case: ``write_not_marked`` is an ``error`` when the tool is
annotated read-only (clients skip confirmation for it) and a ``warning`` the other way
round (see :func:`severity_of`).

The rules that read a description or a name with word lists or word overlap
(``vague_name``, ``description_missing_target``, ``description_missing_scope``,
``description_missing_paging``, ``description_missing_side_effects``, ``near_duplicate``,
``number_without_unit``) are ``info``: on 21 servers nobody in the course wrote
(``tests/data/mcp_corpus``), most of their findings were wrong ("in the knowledge graph"
is a scope; ``commit`` and ``checkout`` are verbs; two descriptions that share a
boilerplate footer are not duplicates); they teach the course's style, not a defect.
Every ``warning`` and ``error`` rule is measured there: ``tests/test_checker_corpus.py``
holds each one's precision at 90% or more.

``help(RULES["page_gap"])`` is not useful (a dataclass); read ``RULES["page_gap"].checks``
or :func:`format_rules` for the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CHAPTERS",
    "RULES",
    "SEVERITIES",
    "Rule",
    "Severity",
    "format_rules",
    "severity_at_least",
    "severity_of",
]

Severity = Literal["info", "warning", "error"]

#: The severities from the least to the most serious.
SEVERITIES: tuple[Severity, ...] = ("info", "warning", "error")

#: The chapters a finding points to, as the README's chapter table names them.
CHAPTERS: dict[str, str] = {
    "chapter 01": "The read tool: JSON Schema, validation, sandbox, bad inputs",
    "chapter 02": "A small complementary tool set: names, descriptions, annotations, exports",
    "chapter 03": "Error contracts: rich errors, next steps, empty vs error",
    "chapter 04": "Paginated summaries: cursors, pages, coverage",
    "chapter 05": "Writes, timeouts, unknown outcomes, idempotency keys, retries",
    "chapter 06": "Authorization boundaries and hostile input: content is data",
    "chapter 09": "Serving tools over MCP: isError vs protocol errors, structured output",
}


@dataclass(frozen=True)
class Rule:
    """One rule: ``id``, default ``severity``, the ``chapter`` that teaches the fix, the
    ``family`` it belongs to (static, behaviour, paging, side_effects), what it
    ``checks``, in one sentence, and the ``fix`` its findings carry ("" when each check
    words its own)."""

    id: str
    severity: Severity
    chapter: str
    family: str
    checks: str
    fix: str = ""


def _rules(
    *rows: tuple[str, Severity, str, str, str] | tuple[str, Severity, str, str, str, str],
) -> dict[str, Rule]:
    return {row[0]: Rule(*row) for row in rows}


#: Every rule by id, grouped by family (static, behaviour, paging, side_effects).
RULES: dict[str, Rule] = _rules(
    # -- static: the tool list as the server declares it -------------------------------
    ("tool_name_invalid", "error", "chapter 02", "static",
     "the name is 1-128 characters of A-Za-z0-9_.- (MCP's rule); other checks need it"),
    ("description_missing", "error", "chapter 02", "static",
     "the tool has a description: a model chooses tools from it"),
    ("input_schema_not_object", "error", "chapter 01", "static",
     "inputSchema is a JSON Schema of type 'object'"),
    ("schema_invalid", "error", "chapter 01", "static",
     "inputSchema and outputSchema are valid JSON Schemas of their dialect"),
    ("description_instructs_model", "error", "chapter 06", "static",
     "a description describes the tool; it does not give the model orders (ignore earlier"
     " instructions, hide things from the user) or hide text in invisible characters"),
    ("vague_name", "info", "chapter 02", "static",
     "the course linter: the name says which action on which resource; a hint"),
    ("near_duplicate", "info", "chapter 02", "static",
     "the course linter: no two tools a model cannot tell apart"),
    ("description_missing_target", "info", "chapter 02", "static",
     "the course linter: the description names what the tool acts on; a hint"),
    ("description_missing_scope", "info", "chapter 02", "static",
     "the course linter: the description bounds where and how much; a hint"),
    ("description_missing_paging", "info", "chapter 04", "static",
     "the course linter: a list says how much comes back and how to go on; a hint"),
    ("description_missing_side_effects", "info", "chapter 02", "static",
     "the course linter: a tool that may write says what it writes; a hint"),
    ("write_not_marked", "error", "chapter 02", "static",
     "the course linter: annotations and words agree about writing"),
    ("number_without_unit", "info", "chapter 02", "static",
     "the course linter: a number that measures a quantity names its unit"),
    ("additional_properties_allowed", "warning", "chapter 01", "static",
     "the course linter: every argument object has additionalProperties: false"),
    ("required_not_declared", "warning", "chapter 01", "static",
     "an object with properties lists its required ones ('required', [] if none)"),
    ("required_names_undeclared", "error", "chapter 01", "static",
     "'required' names only declared properties"),
    ("property_undescribed", "warning", "chapter 01", "static",
     "every argument has a description"),
    ("property_type_missing", "warning", "chapter 01", "static",
     "every argument has a type (or enum, const, anyOf, oneOf, $ref)"),
    ("number_unbounded", "warning", "chapter 01", "static",
     "every integer or number argument has a minimum and a maximum"),
    ("string_unbounded", "warning", "chapter 01", "static",
     "every string argument has maxLength (or enum, const, a format, or an anchored"
     " pattern without unbounded repetition)"),
    ("array_unbounded", "warning", "chapter 01", "static",
     "every array argument has maxItems"),
    ("enum_missing", "warning", "chapter 01", "static",
     "a string whose description lists its allowed values declares them as an enum"),
    ("annotations_missing", "warning", "chapter 02", "static",
     "the tool declares annotations, at least readOnlyHint"),
    ("annotation_hints_incomplete", "info", "chapter 02", "static",
     "every hint that matters for the tool is written out (MCP's defaults are pessimistic)"),
    ("annotations_contradict", "warning", "chapter 02", "static",
     "the hints agree with each other and with the name (no read-only destructive tool,"
     " no non-destructive delete)"),
    ("export_refused", "error", "chapter 02", "static",
     "the tool exports to the Anthropic, OpenAI (strict) and MCP formats"),
    ("export_invalid", "error", "chapter 02", "static",
     "each export validates against the SDK's own types and JSON Schema's meta-schema"),
    ("export_constraints_moved", "info", "chapter 02", "static",
     "what OpenAI strict mode cannot enforce (moved into the description) is listed"),
    # -- behaviour: calls with valid and hostile arguments ---------------------------
    ("no_valid_arguments", "info", "chapter 01", "behaviour",
     "the checker can build arguments the schema accepts (examples, schema, --calls)"),
    ("valid_call_refused", "info", "chapter 01", "behaviour",
     "a call with valid arguments succeeds (else success-only checks are skipped)"),
    ("hostile_input_accepted", "error", "chapter 01", "behaviour",
     "arguments the declared schema refuses are refused by the tool too"),
    ("read_grows_state", "error", "chapter 02", "behaviour",
     "a read-only tool's answer does not grow when it is made again (something it keeps"
     " grows with every call)"),
    ("argument_ignored", "warning", "chapter 01", "behaviour",
     "an optional argument changes the answer: two of its values do not give the same list"),
    ("silent_truncation", "warning", "chapter 04", "behaviour",
     "a list cut at the requested limit says so (a cursor, has_more, truncated...): a"
     " model that sees exactly N items takes them for all"),
    ("refusal_reported_as_success", "warning", "chapter 03", "behaviour",
     "a refusal is a tool error (isError: true), not a success whose text says 'Error'"),
    ("error_echoes_input", "warning", "chapter 03", "behaviour",
     "an error does not echo a huge argument back (the model pays for it in context)"),
    ("error_reveals_internals", "warning", "chapter 06", "behaviour",
     "an error does not show the server's install paths or a stack trace"),
    ("secret_in_result", "error", "chapter 06", "behaviour",
     "no answer carries a value given to the server with --env / --env-pass (a secret the"
     " model, and anyone it talks to, would then see)"),
    ("result_instructs_model", "error", "chapter 06", "behaviour",
     "an answer does not give the model orders or hide invisible characters the server"
     " wrote itself (a closed-world tool's text in no file of the workspace, or text in"
     " the refusal of hostile arguments)",
     "Return data and what happened, in plain text a person can review; never address the"
     " model's instructions or the user from a tool result."),
    ("result_relays_instructions", "info", "chapter 06", "behaviour",
     "an answer that carries orders to the model from the data it read (a file, a page, a"
     " comment) is noted: the host treats it as data, never as instructions",
     "Nothing to fix in the server when the text is the data asked for; a server can mark"
     " such content as untrusted (a field, a quoted block) so a client shows it as quoted."),
    ("extra_field_ignored", "warning", "chapter 01", "behaviour",
     "an unknown argument is refused, not silently ignored"),
    ("protocol_error", "error", "chapter 03", "behaviour",
     "bad arguments get a tool error (isError), not a JSON-RPC protocol error"),
    ("error_empty", "error", "chapter 03", "behaviour",
     "a tool error says something"),
    ("error_names_no_field", "warning", "chapter 03", "behaviour",
     "the error for a bad argument names that argument"),
    ("error_without_next_step", "warning", "chapter 03", "behaviour",
     "the error says what to do next (a suggestion, the expected value, a next call)"),
    ("suggested_tool_unknown", "error", "chapter 03", "behaviour",
     "a next call an answer proposes names a listed tool"),
    ("suggested_call_fails", "error", "chapter 03", "behaviour",
     "a next call an answer proposes succeeds when the checker makes it"),
    ("output_schema_violation", "error", "chapter 01", "behaviour",
     "a success matches the declared outputSchema (the SDK's client refuses it otherwise)"),
    ("error_output_schema_violation", "error", "chapter 09", "behaviour",
     "a tool error (isError) carries no structuredContent, or one that matches the"
     " declared outputSchema: the TypeScript SDK's client and the MCP Inspector check it"
     " whatever isError says and refuse the whole result",
     "Omit structuredContent on errors: send isError: true with the error (what went wrong,"
     " the field, what to do next) as text content, e.g. the error envelope as JSON text;"
     " keep structuredContent for successes, matching the outputSchema."),
    ("result_malformed", "error", "chapter 03", "behaviour",
     "the answer is a well-formed MCP result"),
    ("call_timeout", "error", "chapter 06", "behaviour",
     "every call is answered within the time limit"),
    ("server_crashed", "error", "chapter 06", "behaviour",
     "no call makes the server exit or close the connection"),
    ("answer_unreadable", "warning", "chapter 06", "behaviour",
     "an answer is JSON the SDK's client can parse (a lone surrogate echoed back as"
     " \\ud800 is not: the client drops the answer and waits for its time limit)"),
    ("request_dropped", "warning", "chapter 06", "behaviour",
     "a request the server's JSON reader cannot take (lone surrogate, deep nesting) gets"
     " an answer its client can match (a tool error, or a JSON-RPC error with its id), not"
     " silence or a parse error with id null"),
    # -- paging: tools with a cursor argument ---------------------------------------
    ("page_repeats", "error", "chapter 04", "paging",
     "the next page continues: no item of an earlier page comes back"),
    ("page_gap", "error", "chapter 04", "paging",
     "small pages and one large page list the same items in the same order"),
    ("cursor_loops", "error", "chapter 04", "paging",
     "a next cursor is never one the traversal already used"),
    ("cursor_not_validated", "error", "chapter 04", "paging",
     "an invalid or tampered cursor is an error, not a silent restart"),
    # -- side effects: --workspace DIR --------------------------------------------
    ("read_only_changed_workspace", "error", "chapter 02", "side_effects",
     "a tool annotated read-only leaves the workspace byte-identical"),
    ("non_destructive_tool_destroyed", "error", "chapter 05", "side_effects",
     "a write annotated destructiveHint: false overwrites or removes no existing file"
     " (appending is additive)"),
    ("idempotent_tool_not_idempotent", "error", "chapter 05", "side_effects",
     "a write annotated idempotentHint: true changes nothing more when repeated"),
)  # fmt: skip


def severity_of(rule: str, *, annotated_read_only: bool = False) -> Severity:
    """The severity of a finding of ``rule``; ``write_not_marked`` depends on the case:
    ``error`` when the tool is annotated read-only (a write would run unconfirmed),
    ``warning`` when a read-only description carries MCP's default ``readOnlyHint: false``."""
    if rule == "write_not_marked" and not annotated_read_only:
        return "warning"
    return RULES[rule].severity


def severity_at_least(severity: str, threshold: str) -> bool:
    """Whether ``severity`` is at least as serious as ``threshold``."""
    return SEVERITIES.index(severity) >= SEVERITIES.index(threshold)


def format_rules() -> str:
    """The rule table as Markdown: id, severity, chapter, what it checks."""
    lines = ["| rule | severity | chapter | checks |", "|---|---|---|---|"]
    for rule in RULES.values():
        lines.append(f"| `{rule.id}` | {rule.severity} | {rule.chapter} | {rule.checks} |")
    return "\n".join(lines)
