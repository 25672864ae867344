"""Core types, state and the pipeline that ties agents together."""
