"""Errors of the model layer, carried to the CLI as one line each."""

from __future__ import annotations

from reportgen.errors import ReportgenError


class ModelError(ReportgenError):
    """The model could not give a usable answer (refused key, bad request, retries spent)."""


class MissingKey(ModelError):
    """A command that exists to call the model was run without ANTHROPIC_API_KEY."""


class MalformedToolCall(ModelError):
    """The model's tool call did not match the tool's input schema, again after a re-ask."""
