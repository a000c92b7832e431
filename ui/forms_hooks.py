"""The webhook form of the dashboard (ui/views/hooks.py)."""

from __future__ import annotations

from django import forms

from memoryhub.operations.webhooks import EVENTS


class WebhookForm(forms.Form):
    url = forms.CharField(max_length=2000, help_text="The receiver, http:// or https://")
    project = forms.CharField(max_length=200, required=False)
    events = forms.MultipleChoiceField(
        required=False, choices=[(e, e) for e in EVENTS], widget=forms.CheckboxSelectMultiple
    )
