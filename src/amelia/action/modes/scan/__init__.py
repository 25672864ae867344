"""Scheduled scan (`schedule`, or `workflow_dispatch` with `command: scan`): hand out the

The mode is in `_mode`; its own helpers are the other private modules here."""

from amelia.action.modes.scan._mode import MODE, planned_issue_numbers, run, scan_report

__all__ = ["MODE", "planned_issue_numbers", "run", "scan_report"]
