"""`python -m cli`: the `kubus` command (the fork server runs it warm for the tests)."""
from cli.main import main

main()
