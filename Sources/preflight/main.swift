print("preflight")
