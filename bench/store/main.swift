print("store bench: to be written")
