"""A runtime hook that hides tests from a naive collector; lane-scan must still see them."""


def pytest_collection_modifyitems(config, items):
    items[:] = [item for item in items if "hidden_by_hook" not in item.name]
