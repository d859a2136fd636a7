"""Schemathesis hooks for the energy API: what the OpenAPI document cannot say in JSON Schema.

`period_from` may not be later than `period_to` (the document says so in words; a server refuses it
with 400, tested in `server/tests/serve.rs`). JSON Schema has no rule across two parameters, so a
positive test case with an inverted period would be counted as a valid request refused: such cases
are not generated.
"""

from datetime import datetime

import schemathesis


def _instant(value):
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        return None


@schemathesis.hook
def filter_query(ctx, query):
    if not isinstance(query, dict):
        return True
    start, end = _instant(query.get("period_from")), _instant(query.get("period_to"))
    if start is None or end is None or start.tzinfo is None or end.tzinfo is None:
        return True
    return start <= end
