"""pytest-asyncio in auto mode marks every async test function `asyncio`."""
import asyncio
import unittest

import pytest
import pytest_asyncio


@pytest_asyncio.fixture
async def answer():
    await asyncio.sleep(0)
    return 42


@pytest.mark.merge
async def test_plain():
    await asyncio.sleep(0)


@pytest.mark.merge
async def test_with_async_fixture(answer):
    assert answer == 42


@pytest.mark.merge
@pytest.mark.asyncio
async def test_marked_already():
    await asyncio.sleep(0)


@pytest.mark.merge
def test_sync():
    assert True


@pytest.mark.merge
class TestInClass:
    async def test_method(self):
        await asyncio.sleep(0)

    def test_sync_method(self):
        assert True

    @staticmethod
    async def test_static():
        await asyncio.sleep(0)


@pytest.mark.merge
class TestUnittestAsync(unittest.IsolatedAsyncioTestCase):
    async def test_unittest_coroutine(self):
        await asyncio.sleep(0)
