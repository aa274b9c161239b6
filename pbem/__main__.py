"""`python -m pbem` is the `pbem` command."""

import sys

from pbem.cli import main

sys.exit(main())
