class A:
    def f():
        pass
class B:
    def f():
        pass
