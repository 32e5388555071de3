class A:
    def __init__(self):
        self.x = 0

class B:
    def __init__(self):
        self.x = 1

class C:
    def __init__(self):
        self.x = 0
