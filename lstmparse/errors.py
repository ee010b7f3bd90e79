"""Errors that the command line turns into ``file:line: message`` and exit code 2."""

from __future__ import annotations

# What to do about a known kind of bad input, in the command line's terms; the web service says it in its
# REST parameters' (lstmparse.app.serve), so each caller is told in the words it used.
PLAIN_TEXT = "plain text"
COMMAND_LINE_HINTS = {
    PLAIN_TEXT: "this looks like plain text: give --input-format raw (running text) or --input-format text "
    "(one tokenized sentence a line)",
}


class InputError(Exception):
    """Malformed user input: carries the file and line so the user can fix it, and the kind of mistake (``hint``)
    when it is a known one, so that each front end can say what to do in its own terms."""

    def __init__(self, path: str, line: int | None, message: str, hint: str | None = None) -> None:
        self.path = path
        self.line = line
        self.message = message
        self.hint = hint
        where = f"{path}:{line}" if line is not None else path
        advice = f"; {COMMAND_LINE_HINTS[hint]}" if hint in COMMAND_LINE_HINTS else ""
        super().__init__(f"{where}: {message}{advice}")

    def __reduce__(self):
        """Rebuilt from its fields, so that it crosses process boundaries (``--jobs``) intact."""
        return type(self), (self.path, self.line, self.message, self.hint)


class UnfamiliarTextWarning(UserWarning):
    """Text unlike what the model was trained on (another language or script): parsed, but probably badly."""


class ModelError(Exception):
    """A model directory that is missing, incomplete or of an unknown kind."""


class ConfigurationError(Exception):
    """Options that do not fit together (a feature without its file, an oracle a system lacks)."""
