"""Errors that the command line turns into ``file:line: message`` and exit code 2."""

from __future__ import annotations


class InputError(Exception):
    """Malformed user input: carries the file and line so the user can fix it."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")

    def __reduce__(self):
        """Rebuilt from its three fields, so that it crosses process boundaries (``--jobs``) intact."""
        return type(self), (self.path, self.line, self.message)


class ModelError(Exception):
    """A model directory that is missing, incomplete or of an unknown kind."""


class ConfigurationError(Exception):
    """Options that do not fit together (a feature without its file, an oracle a system lacks)."""
