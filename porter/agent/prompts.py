"""Prompt templates (prompts/*.md.j2 at the repository root), rendered with StrictUndefined."""

from __future__ import annotations

from pathlib import Path

import jinja2

from porter.agent.errors import PromptError
from porter.resources import resource_dir


def prompts_dir() -> Path:
    # prompts/ at the repository root, reached through porter/resources (a wheel carries the files themselves)
    return resource_dir("prompts")


class Prompts:
    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or prompts_dir()
        if not self.directory.is_dir():
            raise PromptError(
                f"prompt templates not found at {self.directory}; porter's agent needs the repository's prompts/ "
                "directory (install porter with `pip install -e <repo>`)"
            )
        self._env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(self.directory),
            undefined=jinja2.StrictUndefined,  # a missing variable is a bug, not an empty string
            autoescape=False,  # markdown for a model, not HTML
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,  # included templates end their own line
        )

    def render(self, name: str, **variables: object) -> str:
        try:
            return self._env.get_template(name).render(**variables).strip() + "\n"
        except jinja2.TemplateNotFound as exc:
            raise PromptError(f"prompt template {exc.name} not found in {self.directory}") from None
        except jinja2.UndefinedError as exc:
            raise PromptError(f"prompt template {name}: {exc.message}") from None
        except jinja2.TemplateSyntaxError as exc:
            raise PromptError(f"prompt template {exc.name or name}:{exc.lineno}: {exc.message}") from None
