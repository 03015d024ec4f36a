def price(n):
    return 2 * n
