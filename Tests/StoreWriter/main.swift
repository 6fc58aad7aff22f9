print("store writer: to be written")
