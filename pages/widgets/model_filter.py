"""Choose models: a multiselect of the project's models (all chosen at first), for any page that
lists responses. Layout only — which response a model wrote is the store's (`response_models`)."""

from __future__ import annotations

import streamlit as st

NO_MODEL = "(no model)"


def model_label(model: str | None) -> str:
    """How a model reads on screen: its name, or NO_MODEL for responses the project was not told about."""
    return NO_MODEL if model is None else model


def choose_models(models: list[str | None], key: str, label: str = "Models") -> list[str | None]:
    """The models chosen among `models`, offered by name (all of them until someone narrows the
    choice; a model gone from the list since is dropped from the choice). With fewer than two
    models nothing is shown and all of them are returned."""
    if len(models) < 2:
        return list(models)
    labels = {model_label(m): m for m in sorted(models, key=lambda m: (m is None, m or ""))}
    if key in st.session_state:
        st.session_state[key] = [name for name in st.session_state[key] if name in labels]
    # a default beside a value set through session state logs a warning with a stack on every run
    default = None if key in st.session_state else list(labels)
    chosen = st.multiselect(label, list(labels), default=default, key=key)
    return [labels[name] for name in chosen]


def project_models(store) -> list[str | None]:
    """The project's models in order of first import (None for responses without a model)."""
    return list(dict.fromkeys(model for _, model in store.response_models()))
