from hypothesis import settings

settings.register_profile("quick", max_examples=10)
settings.load_profile("quick")
