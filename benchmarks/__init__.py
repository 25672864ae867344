"""What amelia costs beyond the model: start-up, orchestration, memory, prompts, GitHub calls.

Every benchmark runs against the scripted model and GitHub servers on 127.0.0.1, so the model
itself costs ~0 and what remains is amelia's own share. `python -m benchmarks` runs them all.
"""
