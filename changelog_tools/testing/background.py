"""What the fakes that serve from a background thread share: a ``with`` block stops them."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Background:
    """A fake running in a background thread: ``with`` starts it, leaving the block stops it
    (also when the block raised, so no thread outlives a failed test)."""

    def start(self) -> Self:
        """Start serving in the background; returns the fake itself."""
        raise NotImplementedError

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
