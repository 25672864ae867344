"""`python -m benchmarks [--quick] [--only NAME…] [--output PATH]`."""

from benchmarks.run import main

raise SystemExit(main())
