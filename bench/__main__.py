"""``python -m bench``: see ``bench/README.md`` or ``python -m bench --help``."""
import sys

from .cli import main

sys.exit(main())
