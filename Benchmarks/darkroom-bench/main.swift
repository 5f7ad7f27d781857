print("darkroom-bench: not yet")
