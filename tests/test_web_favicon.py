"""Guards the page's icon: ``/favicon.ico``, which browsers ask for on their own (and show on a tab
or bookmark of any page, the JSON API's too), answers 200 with an ICO image (python-chess's white
knight at 16, 32 and 48 pixels), and the page names an icon with ``<link rel="icon">``."""

from __future__ import annotations

import struct
from collections.abc import Iterator

import pytest
from ferrochess.web import create_app
from flask import Flask
from flask.testing import FlaskClient

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def app() -> Iterator[Flask]:
    app = create_app({"TESTING": True, "FERROCHESS_ENGINES": 1})
    yield app
    app.extensions["ferrochess_pool"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def icon_images(data: bytes) -> dict[int, bytes]:
    """The images of an ICO file by their size in pixels (ICONDIR, then one ICONDIRENTRY each:
    width, height, colours, reserved, planes, bits, byte count, offset)."""
    reserved, kind, count = struct.unpack_from("<HHH", data, 0)
    assert (reserved, kind) == (0, 1), "not an icon"
    images = {}
    for index in range(count):
        width, height, _, _, _, _, length, offset = struct.unpack_from(
            "<BBBBHHII", data, 6 + 16 * index
        )
        assert width == height
        images[width] = data[offset : offset + length]
    return images


def test_favicon_is_an_ico(client: FlaskClient) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200, response.status
    assert response.mimetype == "image/vnd.microsoft.icon"
    images = icon_images(response.data)
    assert sorted(images) == [16, 32, 48]
    assert all(image.startswith(PNG_SIGNATURE) for image in images.values())
    assert response.cache_control.max_age is not None and response.cache_control.max_age >= 3600


def test_the_page_names_an_icon(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    assert 'rel="icon"' in page
