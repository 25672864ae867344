"""Developer and CI tools that live beside the package (not shipped in the wheel)."""
