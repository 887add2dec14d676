import sys

from kcca._cli import main

sys.exit(main())
