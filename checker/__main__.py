"""`python -m checker`: the command line, as the console script runs it."""

from .process import main

main()
