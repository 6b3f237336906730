TIMEOUT = 4 * 3600  # seconds a `rerun --command` harness may run by default (here: the CLI reads it at import)
