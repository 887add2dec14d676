"""``python -m kcca``: the same as the ``kcca`` command."""

import sys

from kcca._cli import main

sys.exit(main())
