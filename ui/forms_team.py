"""Forms of the team pages (people, roles, agents' tokens): they parse; memoryhub.people decides and writes."""

from __future__ import annotations

from django import forms

from memoryhub.models import Role


class TokenForm(forms.Form):
    name = forms.CharField(max_length=200, help_text="The agent's name: the source of what it writes")
    projects = forms.MultipleChoiceField(required=False, choices=[], widget=forms.CheckboxSelectMultiple)
    read_only = forms.BooleanField(required=False)
    untrusted = forms.BooleanField(required=False)

    def __init__(self, *args, projects: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["projects"].choices = [(p, p) for p in projects]


class PersonForm(forms.Form):
    username = forms.CharField(max_length=150)
    admin = forms.BooleanField(required=False, help_text="A hub admin sees and does everything")


class GrantForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices)
    project = forms.CharField(max_length=200)


class RevokeRoleForm(forms.Form):
    username = forms.CharField(max_length=150)
    project = forms.CharField(max_length=200)


class ActivityForm(forms.Form):
    actor = forms.CharField(required=False, max_length=200)
    action = forms.CharField(required=False, max_length=40)
