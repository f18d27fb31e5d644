"""`python -m tests.engine.cli_entry ...`: the a2abench CLI with the scripted benchmark."""

import sys

from a2abench.cli import main
from tests.engine.scripted import install

install()
main(sys.argv[1:])
