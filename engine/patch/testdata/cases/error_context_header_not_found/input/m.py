def f():
    x
