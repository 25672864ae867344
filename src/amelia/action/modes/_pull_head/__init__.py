"""What the ask and review modes share: a pull request's head fetched for an agent to read,
checked out or kept as data (a fork's)."""
