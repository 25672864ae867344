"""What the fix and implement modes share: the project's toolchain, the pull request's
description, and the develop → publish → review flow."""
