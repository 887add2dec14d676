import sys

from kcca.cli import main

sys.exit(main())
