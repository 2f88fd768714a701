"""Schemathesis hooks for scripts/schemathesis.sh.

The event stream follows the account for as long as its token lasts, and
schemathesis reads an answer whole: its calls are sent with `follow=false`,
which answers what the log holds and ends (every other parameter as
generated), so that the stream is tested with a bounded read.
"""

import schemathesis


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.operation.path.endswith("/stream/events"):
        case.query = {**(case.query or {}), "follow": "false"}
