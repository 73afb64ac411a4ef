"""Bad input on a page: every located problem in one friendly box, as text (a problem may
quote the file it is about, so it is never rendered as Markdown or HTML)."""

from __future__ import annotations

import streamlit as st

from annotation.protocol.errors import InputError
from pages.widgets.context import show_text


def show_problems(error: InputError, heading: str) -> None:
    """`heading` as an error box, then one line per problem (file, line, field: message)."""
    st.error(heading, icon=":material/error:")
    show_text("\n".join(f"• {problem}" for problem in error.problems), "murgat-problems")
