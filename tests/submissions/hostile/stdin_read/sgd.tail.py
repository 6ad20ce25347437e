_answer = input("learning rate? ")
