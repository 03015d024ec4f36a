from shop.money import Money, Plain, Inherits, parse
