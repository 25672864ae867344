"""`python -m benchmarks [--quick] [--only NAME…] [--output PATH]`."""

from loguru import logger

from benchmarks.run import main

# amelia's own progress logs would interleave with the table.
logger.disable("amelia")
raise SystemExit(main())
