"""A least-recently-used store bounded by a count of entries: what the pictures for mail
keep in one process's memory (pbem.mail.pictures, pbem.mail.rasters, pbem.mail.png_bands)."""

from __future__ import annotations

from collections import OrderedDict


class Kept(OrderedDict):
    """A least-recently-used store bounded by a count of entries."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit

    def get(self, key, default=None):
        value = super().get(key, default)
        if value is not default:
            self.move_to_end(key)
        return value

    def put(self, key, value):
        self[key] = value
        if len(self) > self.limit:
            self.popitem(last=False)
        return value
