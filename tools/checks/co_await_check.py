#!/usr/bin/env python3
"""Rejects the co_await shapes that Debian 12's g++ 12 miscompiles.

g++ 12 destroys twice a temporary with a non-trivial destructor that is part of a co_await
full-expression (orchestrator/README.md, store/async_store.h). It corrupted the device
registry's heap (commit 8a5f716) and the executor's at 10+ devices (commits 4ae8bbe, 6cee6b9).
This check reads every C++ source of the repository and rejects a statement holding a co_await
whose full-expression (from the statement's start to its `;`, across lines) builds:

  - a std::string: a string literal concatenated with +, std::string(...), std::to_string, a
    string-valued conditional (?: with a literal), a string literal passed as an argument;
  - a vector or an initializer list: `{...}` braces in the expression (Struct{...} included), an
    argv built inline (Argv(...)), std::vector;
  - a lambda with captures ([x], [=], [x = ...]; [&] / [&x] / [this] too unless every declaration
    of the callee takes it as a template parameter, so it stays a trivially destroyed closure and
    never becomes a std::function), a std::function, a make_shared / make_unique;
  - an argument that is a call returning an owning value (a string, a container, an awaitable, a
    class of the repository with such a member: found from the repository's declarations), an
    executor copy (get_executor()), a substr;
  - the result of another co_await inside a co_await's operand, an awaitable operator race
    `co_await (a() || b())`.

A string literal passed as an argument is reported unless every declaration of the callee in the
repository takes a std::string_view, a const char*, a ShellLiteral or a template parameter there.

Allowed: `co_await std::move(op)`, `co_await name.Call(name, member.field, 3, std::move(x))`
(named locals passed by value or moved, as store/async_store.h says), calls of functions
returning trivial values or references, captureless lambdas, lambda bodies (their statements are
checked as statements of their own).

A finding that is provably safe may be silenced on the co_await's line (or on a comment line
right above it) with `// co_await-check: ok (the reason)`; the reason is required.

    tools/checks/co_await_check.py              every *.cpp and *.h of the repository
    tools/checks/co_await_check.py FILE|DIR...  those only

Prints `path:line: co_await expression builds a <what>: <snippet>` per finding and exits 1 if
there is any, 0 otherwise. Standard library only.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Not scanned when walking the repository (explicit paths are always scanned).
SKIP_DIRS = {".git", ".cache", "node_modules", "corpus"}
SKIP_PREFIXES = ("build",)  # build/, build-asan/, build-fuzz/, ...
SKIP_PATHS = {os.path.join("tests", "checks", "fixtures")}  # bad shapes on purpose

ESCAPE = re.compile(r"co_await-check:\s*ok\b(\s*\((?P<reason>[^)]*)\))?")

# Helpers of this repository that build a vector of strings from their arguments.
ARGV_BUILDERS = {"Argv"}


@dataclass
class Tok:
    kind: str  # ident, number, string, char, punct
    text: str
    line: int
    pos: int = 0  # offset in the file's text


PUNCT3 = ("<<=", ">>=", "...", "->*", "<=>")
PUNCT2 = ("::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
          "*=", "/=", "%=", "&=", "|=", "^=", ".*")
IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
NUMBER = re.compile(r"\.?[0-9](?:[0-9A-Za-z_.']|[eEpP][+-])*")
STRING_PREFIX = re.compile(r"(?:u8|u|U|L)?R?\"|(?:u8|u|U|L)?'")


def tokenize(text: str) -> tuple[list[Tok], dict[int, str]]:
    """C++ tokens (comments and preprocessor lines dropped) and each line's comment text."""
    toks: list[Tok] = []
    comments: dict[int, str] = {}
    i, n, line = 0, len(text), 1
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "\\" and i + 1 < n and text[i + 1] == "\n":
            i += 2
            line += 1
            continue
        if at_line_start and c == "#":  # a preprocessor line, continuations included
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    line += 1
                    i += 1
                elif text.startswith("//", i):
                    break
                elif text.startswith("/*", i):
                    break
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            comments[line] = comments.get(line, "") + text[i:j]
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            body = text[i:j]
            for k, part in enumerate(body.split("\n")):
                comments[line + k] = comments.get(line + k, "") + part
            line += body.count("\n")
            i = j
            continue
        m = STRING_PREFIX.match(text, i)
        if m and (m.end() - i == 1 or not (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"))):
            start_line = line
            quote = text[m.end() - 1]
            if "R" in m.group(0):  # raw string: R"delim( ... )delim"
                open_paren = text.find("(", m.end())
                delim = text[m.end():open_paren]
                close = text.find(")" + delim + '"', open_paren)
                j = n if close < 0 else close + len(delim) + 2
            else:
                j = m.end()
                while j < n and text[j] != quote:
                    if text[j] == "\\":
                        j += 1
                    elif text[j] == "\n":
                        break
                    j += 1
                j += 1
            lit = text[i:j]
            while j < n and (text[j].isalnum() or text[j] == "_"):  # user-defined literal suffix
                j += 1
            line += lit.count("\n")
            toks.append(Tok("string" if quote == '"' else "char", text[i:j], start_line, i))
            i = j
            continue
        m = IDENT.match(text, i)
        if m:
            toks.append(Tok("ident", m.group(0), line, i))
            i = m.end()
            continue
        m = NUMBER.match(text, i)
        if m:
            toks.append(Tok("number", m.group(0), line, i))
            i = m.end()
            continue
        for p in PUNCT3 + PUNCT2:
            if text.startswith(p, i):
                toks.append(Tok("punct", p, line, i))
                i += len(p)
                break
        else:
            toks.append(Tok("punct", c, line, i))
            i += 1
    return toks, comments


OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {v: k for k, v in OPENERS.items()}


def match_brackets(toks: list[Tok]) -> dict[int, int]:
    """Index of each bracket's partner (both ways); unbalanced brackets have none."""
    match: dict[int, int] = {}
    stack: list[int] = []
    for i, t in enumerate(toks):
        if t.kind != "punct":
            continue
        if t.text in OPENERS:
            stack.append(i)
        elif t.text in CLOSERS:
            # Skip openers of another kind left open by a macro or a mistake.
            while stack and toks[stack[-1]].text != CLOSERS[t.text]:
                stack.pop()
            if stack:
                j = stack.pop()
                match[i] = j
                match[j] = i
    return match


BLOCK_KEYWORDS = {"else", "do", "try", "mutable", "noexcept", "const", "override", "final",
                  "constexpr", "consteval"}
TYPE_INTRODUCERS = {"struct", "class", "union", "enum", "namespace"}
CONTROL = {"if", "while", "for", "switch", "catch", "constexpr"}
STATEMENT_KEYWORDS = {"else", "do"}


def skip_type_back(toks: list[Tok], j: int) -> int:
    """From a type's last token at j, the index just before the type (`a::b<c, d>` skipped)."""
    angle = 0
    while j >= 0:
        t = toks[j]
        if t.text == ">":
            angle += 1
        elif t.text == ">>":
            angle += 2
        elif t.text == "<":
            angle -= 1
            if angle < 0:
                return j
        elif t.kind == "ident" or t.text in ("::", "*", "&") or (angle > 0 and t.kind == "number"):
            pass
        elif angle > 0 and t.text in (",", "(", ")"):
            pass
        else:
            return j
        j -= 1
    return j


def is_block_brace(toks: list[Tok], i: int) -> bool:
    """Whether the `{` at i opens a block (function, lambda or statement body), not a braced init."""
    if i == 0:
        return True
    p = toks[i - 1]
    if p.text in (")", ";", "{", "}", "]", ":") or p.text in BLOCK_KEYWORDS:
        return True
    if p.kind == "ident" or p.text in (">", ">>"):
        if p.kind == "ident" and i >= 2 and toks[i - 2].text in TYPE_INTRODUCERS:
            return True
        if p.kind == "ident" and i >= 2 and toks[i - 2].kind == "ident" and \
                toks[i - 2].text in TYPE_INTRODUCERS | {"final"}:
            return True
        before = skip_type_back(toks, i - 1)
        return before >= 0 and toks[before].text == "->"
    return False


def is_lambda_bracket(toks: list[Tok], i: int) -> bool:
    """Whether the `[` at i introduces a lambda (not a subscript, attribute or binding)."""
    if i + 1 < len(toks) and toks[i + 1].text == "[":
        return False  # [[attribute]]
    if i > 0 and toks[i - 1].text == "[":
        return False
    if i == 0:
        return True
    p = toks[i - 1]
    if p.kind in ("ident", "number", "string", "char") and p.text not in (
            "return", "co_return", "co_await", "co_yield", "throw", "case"):
        return False  # a subscript, or `auto [a, b]`
    if p.text in (")", "]", ">"):
        return False  # a subscript (or a template's closing `>` before one)
    if p.text in ("&", "&&") and i >= 2 and toks[i - 2].text == "auto":
        return False  # auto& [a, b]
    return True


def statement_start(toks: list[Tok], match: dict[int, int], i: int) -> int:
    """First token of the statement (or condition) holding the token at i."""
    j = i - 1
    while j >= 0:
        t = toks[j]
        if t.kind == "punct" and t.text in CLOSERS:
            if j not in match:
                return j + 1
            o = match[j]
            if t.text == "}" and is_block_brace(toks, o):
                return j + 1  # the end of an earlier block: `if (x) { ... } co_await y;`
            if t.text == ")" and o > 0 and toks[o - 1].text in CONTROL:
                return j + 1  # `if (c) co_await x;`
            j = o - 1
            continue
        if t.text == ";":
            return j + 1
        if t.text == "{":
            if is_block_brace(toks, j):
                return j + 1
        elif t.text == "(":
            if j > 0 and toks[j - 1].text in CONTROL:
                return j + 1  # `if (auto r = co_await x; !r)`
        elif t.kind == "ident" and t.text in STATEMENT_KEYWORDS:
            return j + 1
        elif t.text == ":" and j > 0 and (toks[j - 1].text in ("default", "public", "private",
                                                                "protected")):
            return j + 1
        j -= 1
    return 0


def statement_end(toks: list[Tok], match: dict[int, int], start: int) -> int:
    """Index one past the statement's last token (its `;` or an unmatched closer excluded)."""
    k = start
    while k < len(toks):
        t = toks[k]
        if t.kind == "punct":
            if t.text in OPENERS:
                if k not in match:
                    return len(toks)
                if t.text == "{" and is_block_brace(toks, k) and not lambda_body(toks, match, k):
                    return k  # `while (x) co_await y {` cannot happen; a block ends the statement
                k = match[k] + 1
                continue
            if t.text in CLOSERS or t.text == ";":
                return k
        k += 1
    return k


def lambda_body(toks: list[Tok], match: dict[int, int], brace: int) -> bool:
    """Whether the block `{` at brace is a lambda's body (inside an expression)."""
    j = brace - 1
    # Skip the trailing return type, specifiers and the parameter list back to `]`.
    if j >= 0 and toks[j].kind == "ident" or (j >= 0 and toks[j].text in (">", ">>")):
        before = skip_type_back(toks, j)
        if before >= 0 and toks[before].text == "->":
            j = before - 1
    while j >= 0 and toks[j].kind == "ident" and toks[j].text in ("mutable", "noexcept",
                                                                  "constexpr", "consteval"):
        j -= 1
    if j >= 0 and toks[j].text == ")" and j in match:
        j = match[j] - 1
    return j >= 0 and toks[j].text == "]" and j in match and is_lambda_bracket(toks, match[j])


def snippet(text: str, toks: list[Tok], a: int, b: int, limit: int = 110) -> str:
    """The statement's source, comments dropped and blanks collapsed, cut at `limit`."""
    if a >= b:
        return ""
    last = toks[b - 1]
    src = text[toks[a].pos:last.pos + len(last.text)]
    src = re.sub(r"//[^\n]*|/\*.*?\*/", " ", src, flags=re.S)
    src = re.sub(r"\s+", " ", src).strip()
    return src if len(src) <= limit else src[:limit].rstrip() + " ..."


def unwrap_group(toks: list[Tok], match: dict[int, int], a: int, b: int):
    """Yields the indexes of [a, b) that are not inside a lambda's body, with their paren depth."""
    k = a
    depth = 0
    while k < b:
        t = toks[k]
        if t.text == "{" and k in match and lambda_body(toks, match, k):
            k = match[k] + 1
            continue
        yield k, depth
        if t.kind == "punct" and t.text in OPENERS:
            depth += 1
        elif t.kind == "punct" and t.text in CLOSERS:
            depth -= 1
        k += 1


def in_argument(toks: list[Tok], match: dict[int, int], k: int, lo: int) -> bool:
    """Whether the call whose name is at k is itself an argument of a call (not the operand of
    co_await, whose own result the brief allows) and not in a lambda's body."""
    j = k - 1
    while j >= 1 and toks[j].text in ("::", ".", "->") and toks[j - 1].kind in ("ident",):
        j -= 2
    if j < lo:
        return False
    p = toks[j]
    if p.text in ("co_await", "=", "return", "co_return"):
        return False
    # Inside some parentheses opened after the statement's start?
    name, _ = call_of(toks, match, k, lo)
    return name is not None


def by_reference_only(captures: list[Tok]) -> bool:
    """Whether a capture list holds only `&`, `&name` and `this` (no copy of anything)."""
    items: list[list[str]] = [[]]
    for t in captures:
        if t.text == ",":
            items.append([])
        else:
            items[-1].append(t.text)
    for item in items:
        if item == ["&"] or item == ["this"] or (len(item) == 2 and item[0] == "&"):
            continue
        return False
    return True


def findings_in_statement(toks: list[Tok], match: dict[int, int], a: int, b: int) -> list[str]:
    """What the statement [a, b) builds that g++ 12 would destroy twice (empty: nothing)."""
    found: list[str] = []

    def add(what: str) -> None:
        if what not in found:
            found.append(what)

    seen_await_groups: list[int] = []  # openers still open that came after a co_await
    open_stack: list[tuple[int, bool]] = []
    awaited = False
    for k, _depth in unwrap_group(toks, match, a, b):
        t = toks[k]
        prev = toks[k - 1] if k > a else None
        nxt = toks[k + 1] if k + 1 < b else None
        if t.kind == "punct" and t.text in OPENERS:
            open_stack.append((k, awaited))
        elif t.kind == "punct" and t.text in CLOSERS and open_stack:
            open_stack.pop()
        if t.text == "co_await":
            if any(after for _, after in open_stack):
                add("temporary result of a second co_await inside its operand (an executor copy, "
                    "an awaitable)")
            awaited = True
            if nxt is not None and nxt.text == "(" and (k + 1) in match:
                close = match[k + 1]
                for kk, dd in unwrap_group(toks, match, k + 2, close):
                    if dd == 0 and toks[kk].text in ("||", "&&"):
                        add("race of temporary awaitables (`co_await (a() || b())`)")
                        break
            continue
        if t.kind == "string":
            concatenated = (prev is not None and prev.text == "+") or (
                nxt is not None and nxt.text == "+")
            conditional = prev is not None and prev.text in ("?", ":") and any(
                toks[q].text == "?" for q in range(a, k))
            if concatenated:
                add("string (a literal concatenated with +)")
            elif conditional:
                add("string (a conditional ?: with literals)")
            elif prev is not None and prev.text in ("(", ","):
                name, pos = call_of(toks, match, k, a)
                if name in ("string", "to_string") + tuple(ARGV_BUILDERS):
                    continue  # reported as what they build
                types = INDEX.param_types(name, pos) if (INDEX and name) else None
                if not literal_param_safe(types):
                    add("string (a literal passed as " +
                        (f"argument {pos + 1} of {name}, " if name else "an argument, ") +
                        ("a std::string parameter" if types else "parameter type unknown") + ")")
            continue
        if t.kind == "ident":
            qualified_std = prev is not None and prev.text == "::" and k >= 2 and \
                toks[k - 2].text == "std"
            if t.text == "string" and qualified_std and nxt is not None and nxt.text in ("(", "{"):
                add("string (std::string(...))")
            elif t.text == "to_string" and nxt is not None and nxt.text == "(":
                add("string (std::to_string)")
            elif t.text in ("vector", "initializer_list") and qualified_std:
                add("vector (std::" + t.text + ")")
            elif t.text == "function" and qualified_std:
                add("std::function")
            elif t.text in ("make_shared", "make_unique") and nxt is not None and \
                    nxt.text in ("(", "<"):
                add("smart pointer (std::" + t.text + ")")
            elif t.text in ARGV_BUILDERS and nxt is not None and nxt.text == "(" and \
                    (prev is None or prev.text not in (".", "->")):
                add("vector (an argv built inline: " + t.text + "(...))")
            elif nxt is not None and nxt.text in ("(", "<") and in_argument(toks, match, k, a):
                if t.text in OWNING_EXTERNAL and nxt.text == "(":
                    add("temporary " + OWNING_EXTERNAL[t.text] + " (" + t.text + "() as an argument)")
                elif INDEX is not None and nxt.text == "(":
                    member_call = prev is not None and prev.text in (".", "->")
                    owned = INDEX.returns_owning(t.text, member_call)
                    if owned:
                        add("temporary " + owned + " (" + t.text + "(...) as an argument)")
            continue
        if t.text == "[" and is_lambda_bracket(toks, k) and k in match:
            close = match[k]
            after = toks[close + 1] if close + 1 < len(toks) else None
            is_lambda = after is not None and (after.text in ("(", "{", "<", "->") or
                                               after.text in ("mutable", "constexpr", "noexcept"))
            if is_lambda and close > k + 1:
                if by_reference_only(toks[k + 1:close]):
                    # Trivially destructible: safe unless it is made into a std::function.
                    name, pos = call_of(toks, match, k, a)
                    types = INDEX.param_types(name, pos) if (INDEX and name) else None
                    if closure_param_safe(types):
                        continue
                add("lambda with captures")
            continue
        if t.text == "{" and k in match:
            if prev is not None and (prev.kind == "ident" or prev.text in (">", ">>")) and \
                    prev.text not in ("return", "co_return", "co_await"):
                if prev.kind == "ident" and INDEX and prev.text in INDEX.stateless:
                    continue  # a function object without data members: trivially destroyed
                add("braced temporary (Type{...})")
            else:
                add("initializer list ({...})")
    return found


NOT_DECL_BEFORE = {"return", "co_return", "co_await", "co_yield", "new", "delete", "throw",
                   "case", "else", "do", "sizeof", "decltype", "alignof", "typeid", "if", "while",
                   "for", "switch", "catch", "static_assert", "operator"}
DECL_AFTER = {"{", ";", "const", "->", "override", "noexcept", "=", ":", "final", "&", "&&",
              "requires", "volatile"}


@dataclass
class Decl:
    params: list[list[Tok]]  # each parameter's tokens, its name and default value left out
    templates: set[str]  # the names of the template's type parameters
    variadic: bool
    returns: list[str]  # the return type's tokens (empty: unknown, a lambda or a constructor)
    member: bool = False  # declared in a class body, or defined as Class::Name


class DeclIndex:
    """Function (and named lambda) declarations of the repository, by name.

    Used to tell whether a string literal or a lambda passed as an argument becomes a temporary
    with a non-trivial destructor: a `std::string` / `std::function` parameter does, a
    `std::string_view`, a `const char*` or a template parameter taking the closure as it is does
    not.
    """

    def __init__(self) -> None:
        self.decls: dict[str, list[Decl]] = {}
        self.stateless: set[str] = set()
        self.owning: set[str] = set()  # classes with a string, container, ... member

    def returns_owning(self, name: str, member_call: bool) -> str | None:
        """The return type of `name` if every declaration returns an owning value (a temporary
        with a non-trivial destructor), else None. The index knows names, not scopes: a call
        `x.F()` / `x->F()` is judged by the member functions named F, an unqualified `F()` by
        the free functions named F (so devsim's member `ForceStop`, returning void, does not hide
        orchestrator/run/device_commands.h's, returning an argv), each kind falling back to all
        declarations when there is none of it."""
        decls = self.decls.get(name)
        if not decls:
            return None
        of_kind = [d for d in decls if d.member == member_call]
        decls = of_kind or decls
        shown: list[str] = []
        for d in decls:
            r = d.returns
            if not r or "&" in r or "*" in r or "&&" in r:
                return None
            if not (set(r) & (OWNING_MARKERS | self.owning)):
                return None
            text = "".join(x if x != "const" else "const " for x in r)
            if text not in shown:
                shown.append(text)
        return " | ".join(shown)

    def add_file(self, text: str) -> None:
        toks, _ = tokenize(text)
        match = match_brackets(toks)
        in_class, in_block = self._scopes(toks, match)
        for i, t in enumerate(toks):
            if t.kind != "ident" or i + 1 >= len(toks) or toks[i + 1].text != "(":
                continue
            close = match.get(i + 1)
            if close is None or close + 1 >= len(toks):
                continue
            if in_block[i]:
                continue  # `std::vector<char> buffer(n);` in a function body: a variable
            if self._is_declaration(toks, i, close):
                qualified = i >= 2 and toks[i - 1].text == "::" and toks[i - 2].kind == "ident"
                self._add(t.text, toks, i + 2, close, self._templates(toks, i),
                          self._return_type(toks, i, close), member=in_class[i] or qualified)
        # Types that own something (a string, a container, ...): a temporary of one matters.
        for i, t in enumerate(toks):
            if t.text in ("struct", "class") and i + 2 < len(toks) and toks[i + 1].kind == "ident":
                k = i + 2
                while k < len(toks) and toks[k].text not in ("{", ";"):
                    k += 1
                if k < len(toks) and toks[k].text == "{" and k in match:
                    body = {x.text for x in toks[k + 1:match[k]]}
                    if body & OWNING_MARKERS or "~" in body:
                        self.owning.add(toks[i + 1].text)
            if t.text == "using" and i + 2 < len(toks) and toks[i + 2].text == "=":
                k = i + 3
                names = set()
                while k < len(toks) and toks[k].text != ";":
                    names.add(toks[k].text)
                    k += 1
                if names & OWNING_MARKERS:
                    self.owning.add(toks[i + 1].text)
        # Types without data members (function objects): `Type{}` of one is trivially destroyed.
        for i, t in enumerate(toks):
            if t.text in ("struct", "class") and i + 2 < len(toks) and toks[i + 1].kind == "ident" \
                    and toks[i + 2].text == "{" and (i + 2) in match:
                if self._stateless(toks, match, i + 3, match[i + 2]):
                    self.stateless.add(toks[i + 1].text)
        # Named lambdas: `auto name = [captures](params)`.
        for i, t in enumerate(toks):
            if t.text == "[" and i >= 3 and toks[i - 1].text == "=" and toks[i - 2].kind == "ident" \
                    and i in match and match[i] + 1 < len(toks) and toks[match[i] + 1].text == "(":
                open_paren = match[i] + 1
                close = match.get(open_paren)
                if close is not None:
                    self._add(toks[i - 2].text, toks, open_paren + 1, close, {"auto"}, [])

    @staticmethod
    def _scopes(toks: list[Tok], match: dict[int, int]) -> tuple[list[bool], list[bool]]:
        """For each token, whether its innermost enclosing braces are a class body, and whether
        they are a block (a function's or a statement's body: not a class, namespace, enum or
        `extern "C"` body)."""
        kinds: dict[int, str] = {}
        for i, t in enumerate(toks):
            if t.text != "{" or i not in match:
                continue
            j = i - 1
            while j >= 0 and toks[j].text not in (";", "{", "}", "(", ")", "=", "struct", "class",
                                                  "union", "namespace", "enum"):
                j -= 1
            if i > 0 and toks[i - 1].kind == "string" and i > 1 and toks[i - 2].text == "extern":
                kinds[i] = "namespace"
            elif j >= 0 and toks[j].text in ("namespace", "enum", "="):
                kinds[i] = "namespace"  # no declaration inside an enum or an initializer either
            elif j >= 0 and toks[j].text in ("struct", "class", "union") and \
                    not (j > 0 and toks[j - 1].text == "enum"):
                kinds[i] = "class"
            else:
                kinds[i] = "block"
        in_class: list[bool] = []
        in_block: list[bool] = []
        stack: list[str] = []
        for i, t in enumerate(toks):
            in_class.append(bool(stack) and stack[-1] == "class")
            in_block.append(bool(stack) and stack[-1] == "block")
            if t.text == "{" and i in match:
                stack.append(kinds[i])
            elif t.text == "}" and i in match and stack:
                stack.pop()
        return in_class, in_block

    @staticmethod
    def _stateless(toks: list[Tok], match: dict[int, int], a: int, b: int) -> bool:
        """Whether a class body [a, b) declares member functions only (no data member)."""
        k = a
        has_paren = False
        while k < b:
            t = toks[k]
            if t.text in ("(", "[") and k in match:
                has_paren = True
                k = match[k] + 1
                continue
            if t.text == "{" and k in match:
                k = match[k] + 1
                if has_paren:  # a function's body ends its declaration
                    has_paren = False
                continue
            if t.text == ";":
                if not has_paren and not (k > a and toks[k - 1].text == "}"):
                    return False
                has_paren = False
            elif t.text in ("public", "private", "protected") or t.text == ":":
                pass
            elif t.text in ("using", "static", "struct", "class", "enum"):
                return False  # keep it simple: not known to be stateless
            k += 1
        return True

    @staticmethod
    def _is_declaration(toks: list[Tok], i: int, close: int) -> bool:
        if toks[close + 1].text not in DECL_AFTER:
            return False
        j = i - 1
        while j >= 1 and toks[j].text == "::" and toks[j - 1].kind == "ident":
            j -= 2  # Class::Name
        if j < 0:
            return False
        p = toks[j]
        if p.kind == "ident":
            return p.text not in NOT_DECL_BEFORE
        return p.text in (">", ">>", "*", "&", "&&")

    @staticmethod
    def _return_type(toks: list[Tok], i: int, close: int) -> list[str]:
        """The tokens of the return type in front of the name at i (or after `->`)."""
        j = i - 1
        while j >= 1 and toks[j].text == "::" and toks[j - 1].kind == "ident":
            j -= 2
        k = close + 1
        while k < len(toks) and toks[k].text in ("const", "noexcept", "override", "&", "&&"):
            k += 1
        if k < len(toks) and toks[k].text == "->":  # trailing return type
            out = []
            k += 1
            while k < len(toks) and toks[k].text not in ("{", ";", "=", "override", "noexcept"):
                out.append(toks[k].text)
                k += 1
            return out
        out = []
        while j >= 0 and toks[j].text not in (";", "{", "}", ":", ")", "(", ",") and \
                toks[j].text not in ("public", "private", "protected"):
            if toks[j].text == ">" or toks[j].text == ">>":
                pass
            out.append(toks[j].text)
            j -= 1
        out.reverse()
        # `template <class T> awaitable<T> F(` : drop the template header.
        if "template" in out:
            depth = 0
            for n, x in enumerate(out):
                if x == "<":
                    depth += 1
                elif x == ">":
                    depth -= 1
                    if depth == 0 and "template" in out[:n]:
                        out = out[n + 1:]
                        break
        return [x for x in out if x not in ("static", "inline", "constexpr", "virtual", "explicit",
                                            "friend", "consteval", "[[", "]]", "nodiscard")]

    @staticmethod
    def _templates(toks: list[Tok], i: int) -> set[str]:
        names: set[str] = set()
        j = i - 1
        steps = 0
        while j >= 0 and steps < 60 and toks[j].text not in (";", "{", "}"):
            if toks[j].text == "template" and j + 1 < len(toks) and toks[j + 1].text == "<":
                k = j + 2
                while k < i and toks[k].text != "(":
                    if toks[k].text in ("class", "typename") and k + 1 < i:
                        n = k + 1
                        if toks[n].text == "...":
                            n += 1
                        names.add(toks[n].text)
                    k += 1
            j -= 1
            steps += 1
        return names

    def _add(self, name: str, toks: list[Tok], a: int, b: int, templates: set[str],
             returns: list[str], member: bool = False) -> None:
        params: list[list[Tok]] = []
        cur: list[Tok] = []
        depth = 0
        variadic = False
        for t in toks[a:b]:
            if t.text in ("(", "[", "{", "<"):
                depth += 1
            elif t.text in (")", "]", "}", ">"):
                depth -= 1
            elif t.text == ">>":
                depth -= 2
            if t.text == "," and depth == 0:
                params.append(cur)
                cur = []
                continue
            if t.text == "...":
                variadic = True
            cur.append(t)
        if cur:
            params.append(cur)
        cleaned: list[list[Tok]] = []
        for p in params:
            eq = next((k for k, t in enumerate(p) if t.text == "="), len(p))
            p = p[:eq]
            if len(p) >= 2 and p[-1].kind == "ident" and p[-2].text not in ("::",):
                p = p[:-1]  # the parameter's name
            cleaned.append(p)
        self.decls.setdefault(name, []).append(Decl(cleaned, templates, variadic, returns, member))

    def param_types(self, name: str, n: int) -> list[tuple[list[Tok], set[str]]] | None:
        """The type of parameter n of each declaration of `name` that has one (None: unknown)."""
        out = []
        for d in self.decls.get(name, []):
            if n < len(d.params):
                out.append((d.params[n], d.templates))
            elif d.variadic and d.params:
                out.append((d.params[-1], d.templates))
        return out or None


# Type names that own memory or a reference count: a temporary of one has a real destructor.
OWNING_MARKERS = {"string", "vector", "function", "awaitable", "shared_ptr", "unique_ptr", "map",
                  "unordered_map", "set", "deque", "list", "any_io_executor", "json", "Json",
                  "ostringstream"}
# Calls of libraries outside the repository whose result is such a temporary.
OWNING_EXTERNAL = {"get_executor": "executor", "substr": "std::string"}

STRING_SAFE_TYPES = ("string_view", "ShellLiteral")


def literal_param_safe(types) -> bool:
    """Whether a string literal passed to a parameter of these types builds no std::string."""
    if not types:
        return False
    for ptoks, templates in types:
        texts = [t.text for t in ptoks]
        if any(x in texts for x in STRING_SAFE_TYPES):
            continue
        if "char" in texts and "*" in texts:
            continue
        if is_template_param(texts, templates):
            continue  # deduced as const char*
        return False
    return True


def is_template_param(texts: list[str], templates: set[str]) -> bool:
    core = [x for x in texts if x not in ("const", "&", "&&", "volatile", "...")]
    return len(core) == 1 and (core[0] in templates or core[0] == "auto")


def closure_param_safe(types) -> bool:
    """Whether a lambda passed to a parameter of these types stays a closure (no std::function)."""
    if not types:
        return False
    return all(is_template_param([t.text for t in ptoks], templates) for ptoks, templates in types)


def call_of(toks: list[Tok], match: dict[int, int], k: int, lo: int):
    """(callee name, argument position) of the call whose argument list holds the token at k."""
    pos = 0
    j = k - 1
    while j >= lo:
        t = toks[j]
        if t.text in CLOSERS and j in match:
            j = match[j] - 1
            continue
        if t.text == "," :
            pos += 1
        elif t.text in OPENERS:
            if t.text != "(":
                return None, pos
            q = j - 1
            if q >= 0 and toks[q].text in (">", ">>"):  # Name<T>(
                angle = 0
                while q >= lo:
                    if toks[q].text == ">":
                        angle += 1
                    elif toks[q].text == ">>":
                        angle += 2
                    elif toks[q].text == "<":
                        angle -= 1
                        if angle == 0:
                            break
                    q -= 1
                q -= 1
            if q >= 0 and toks[q].kind == "ident":
                return toks[q].text, pos
            return None, pos
        j -= 1
    return None, pos


INDEX: DeclIndex | None = None


def check_text(path: str, text: str) -> list[tuple[int, str, str]]:
    """(line, what, snippet) per unsafe co_await statement of one file."""
    toks, comments = tokenize(text)
    match = match_brackets(toks)
    out: list[tuple[int, str, str]] = []
    done: set[tuple[int, int]] = set()
    for i, t in enumerate(toks):
        if t.kind != "ident" or t.text != "co_await":
            continue
        a = statement_start(toks, match, i)
        b = statement_end(toks, match, a)
        if b <= i:  # a co_await in a lambda body opened by the statement itself
            b = statement_end(toks, match, i)
        if (a, b) in done:
            continue
        done.add((a, b))
        found = findings_in_statement(toks, match, a, b)
        if not found:
            continue
        line = t.line
        escape = None
        for candidate in (line, line - 1):
            text_here = comments.get(candidate, "")
            m = ESCAPE.search(text_here)
            if m and (candidate == line or not any(x.line == candidate for x in toks)):
                escape = m
                break
        if escape is not None:
            if (escape.group("reason") or "").strip():
                continue
            out.append((line, found[0] + ", silenced without a reason (`// co_await-check: ok "
                        "(why it is safe)`)", snippet(text, toks, a, b)))
            continue
        out.append((line, "; ".join(found), snippet(text, toks, a, b)))
    return out


def source_files(paths: list[str], wanted=lambda name: name.endswith((".cpp", ".h"))) -> list[str]:
    """The files under `paths` (files or folders) whose name is `wanted`, build folders left out."""
    files: list[str] = []
    for p in paths:
        if os.path.isfile(p):
            files.append(p)
            continue
        for dirpath, dirnames, filenames in os.walk(p):
            rel_dir = os.path.relpath(dirpath, ROOT)
            dirnames[:] = sorted(
                d for d in dirnames
                if d not in SKIP_DIRS and not d.startswith(SKIP_PREFIXES) and
                os.path.normpath(os.path.join(rel_dir, d)) not in SKIP_PATHS and
                not os.path.exists(os.path.join(dirpath, d, "CMakeCache.txt")))
            for f in sorted(filenames):
                if wanted(f):
                    files.append(os.path.join(dirpath, f))
    return files


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    paths = argv or [ROOT]
    files = source_files(paths)
    global INDEX
    INDEX = DeclIndex()
    for f in sorted(set(source_files([ROOT]) + files)):
        with open(f, encoding="utf-8", errors="replace") as fh:
            INDEX.add_file(fh.read())
    count = 0
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        if "co_await" not in text:
            continue
        shown = os.path.relpath(f, ROOT) if not argv else os.path.relpath(f)
        if shown.startswith(".."):
            shown = f
        for line, what, snip in check_text(f, text):
            print(f"{shown}:{line}: co_await expression builds a {what}: {snip}")
            count += 1
    if count:
        print(f"co_await_check: {count} finding(s); g++ 12 destroys such temporaries twice — "
              "name them first (store/async_store.h)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
