"""Observation-level Salesforce errors.

`SalesforceError` is what the agent sees: the live connector turns a failed call into
`"<errorCode>: <message>"` and the episode goes on. It is deliberately NOT an A2ABenchError:
a bad query is the agent's move, not a harness failure.

SOQL parse and field errors carry Salesforce's positioned layout, so an agent trained on the
real API reads familiar text. The message starts with a newline (hence "CODE: " followed by a
line break in the observation), then the offending line, a caret under the column,
`ERROR at Row:1:Column:26` and the reason, e.g. `unexpected token: '<EOF>'`.
"""

from __future__ import annotations


class SalesforceError(Exception):
    """An error the org returns to the agent (`str(e) == f"{code}: {message}"`)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def positioned(code: str, query: str, pos: int, text: str) -> SalesforceError:
    """An error pointing at character offset `pos` of `query`, laid out like Salesforce's."""
    pos = max(0, min(pos, len(query)))
    row = query.count("\n", 0, pos) + 1
    line_start = query.rfind("\n", 0, pos) + 1
    line_end = query.find("\n", pos)
    line = query[line_start:] if line_end < 0 else query[line_start:line_end]
    column = pos - line_start + 1
    caret = " " * (column - 1) + "^"
    return SalesforceError(code, f"\n{line}\n{caret}\nERROR at Row:{row}:Column:{column}\n{text}")


def malformed(query: str, pos: int, text: str) -> SalesforceError:
    return positioned("MALFORMED_QUERY", query, pos, text)


def unexpected(query: str, pos: int, token: str) -> SalesforceError:
    return malformed(query, pos, f"unexpected token: '{token}'")


def no_such_column(query: str, pos: int, field: str, entity: str) -> SalesforceError:
    return positioned(
        "INVALID_FIELD", query, pos,
        f"No such column '{field}' on entity '{entity}'. If you are attempting to use a custom "
        "field, be sure to append the '__c' after the custom field name. Please reference your "
        "WSDL or the describe call for the appropriate names.")


def no_such_relationship(query: str, pos: int, name: str) -> SalesforceError:
    return positioned(
        "INVALID_FIELD", query, pos,
        f"Didn't understand relationship '{name}' in field path. If you are attempting to use a "
        "custom relationship, be sure to append the '__r' after the custom relationship name. "
        "Please reference your WSDL or the describe call for the appropriate names.")


def unsupported_type(query: str, pos: int, name: str) -> SalesforceError:
    return positioned(
        "INVALID_TYPE", query, pos,
        f"sObject type '{name}' is not supported. If you are attempting to use a custom object, "
        "be sure to append the '__c' after the entity name. Please reference your WSDL or the "
        "describe call for the appropriate names.")
