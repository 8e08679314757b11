"""Reading a function's docstring: its summary, and its parameters' descriptions.

What :meth:`ToolSpec.from_function <agentkit_core.ToolSpec.from_function>`
tells a model: the first paragraph is the tool's description; a Google-style
``Args:`` section (``Arguments:`` and ``Parameters:`` too) or reST
``:param name: text`` fields describe the parameters.  Continuation lines
are joined with spaces; other sections (``Returns:``, ``Raises:``...) are not
read.
"""

from __future__ import annotations

__all__ = ("first_paragraph", "parameter_docs")

_ARGS_HEADERS = frozenset(("args:", "arguments:", "parameters:", "params:", "keyword args:", "keyword arguments:"))


def _lines(doc: str) -> list[str]:
    import inspect

    return inspect.cleandoc(doc).splitlines()


def first_paragraph(doc: str | None) -> str:
    """The docstring's first paragraph, its lines joined by spaces ("" for none, or when it opens with a section)."""
    out: list[str] = []
    for line in _lines(doc or ""):
        text = line.strip()
        if not text or (not out and (text.lower() in _ARGS_HEADERS or text.startswith(":"))):
            break
        out.append(text)
    return " ".join(out)


def parameter_docs(doc: str | None) -> dict[str, str]:
    """Each documented parameter's description, by name, from an ``Args:`` section or ``:param name:`` fields."""
    found: dict[str, str] = {}
    lines = _lines(doc or "")
    current: str | None = None
    section_indent: int | None = None  # the indentation of the Args: header while inside its section
    entry_indent = -1
    for line in lines:
        text = line.strip()
        indent = len(line) - len(line.lstrip())
        if text.startswith(":param "):  # :param name: text, or :param type name: text
            head, _, rest = text[len(":param "):].partition(":")
            current = head.split()[-1] if head.split() else None
            if current:
                found[current] = rest.strip()
            section_indent, entry_indent = None, indent
            continue
        if text.lower() in _ARGS_HEADERS:
            section_indent, current, entry_indent = indent, None, -1
            continue
        if not text:
            continue
        if section_indent is not None:
            if indent <= section_indent:  # the section ended (another header, or prose)
                section_indent, current = None, None
            elif entry_indent < 0 or indent <= entry_indent:  # name (type): text
                entry_indent = indent
                head, colon, rest = text.partition(":")
                name = head.split("(")[0].strip().lstrip("*")
                current = name if colon and name.isidentifier() else None
                if current:
                    found[current] = rest.strip()
                continue
        if current is not None and indent > entry_indent and (section_indent is not None or text[:1] != ":"):
            found[current] = f"{found[current]} {text}".strip()
        else:
            current = None
    return found
