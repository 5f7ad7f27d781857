print("bench-demosaic: not yet implemented")
