print("crypto bench: to be written")
