"""Recordings of runs, and their replay offline.

Every Action run (unless the `record` input is false) leaves a redacted recording under
`$AMELIA_HOME/runs/<id>/` (`amelia.replay.recorder`, format in `amelia.replay.format`);
`amelia replay <recording>` re-runs it with no network and no key
(`amelia.replay.player`) and says whether it ends as the recorded run did.
"""

from amelia.replay.format import FORMAT_VERSION, Recording, RecordingError, load_recording

__all__ = ["FORMAT_VERSION", "Recording", "RecordingError", "load_recording"]
