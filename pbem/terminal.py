"""What the `pbem` command prints: every line through `say`, without control characters.

Much of what the operator's commands show came from outside: a relay's answer
(`pbem outbox`), a delivery report's words (`pbem outbox bounces`), a mail's outcome
(`pbem ingest`), an address or a name a stranger chose. A terminal takes ESC, BEL and
the C1 controls in them as commands (to move the cursor, retitle the window, rewrite
what is already on the screen), so none reaches it: the same cleaning as what players
write (notation.text.clean_text), for every line the commands print, whatever its source,
rather than at each place some outside text might slip in.
"""

from __future__ import annotations

import sys
from typing import TextIO

from notation.text import clean_text


def say(text: object = "", file: TextIO | None = None) -> None:
    """print(text, file=file), without the control characters a terminal would obey."""
    print(clean_text(str(text)), file=file if file is not None else sys.stdout)
