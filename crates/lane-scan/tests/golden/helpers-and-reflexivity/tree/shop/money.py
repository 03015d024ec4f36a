class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        return isinstance(other, Money) and self.cents == other.cents


class Plain:
    def __init__(self, cents):
        self.cents = cents


class Inherits(Money):
    pass


def parse(text):
    return Money(int(text))
