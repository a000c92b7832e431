"""Forms of the dashboard: they parse and validate what a person typed; the domain does the writing."""

from __future__ import annotations

from django import forms
from django.conf import settings

from memoryhub.memories.fields import MAX_TAG_LENGTH, MAX_TAGS
from memoryhub.memories.secrets import redact_label
from memoryhub.models import Category, Memory, Status, Tier
from ui.selectors import SORTS, MemoryFilters

KEEP = "__keep__"  # bulk re-tag: leave this field as each memory has it
CATEGORY_CHOICES = [("", "(none)"), *Category.choices]
TIER_CHOICES = [("", "(none)"), *Tier.choices]


def parse_tags(text: str) -> list[str]:
    """Comma-separated tags; raises ValidationError naming the tag that is not acceptable."""
    tags = list(dict.fromkeys(t.strip() for t in (text or "").split(",") if t.strip()))
    for tag in tags:
        shown = redact_label(tag)  # the message names the tag, but never a secret typed as one
        if len(tag) > MAX_TAG_LENGTH:
            raise forms.ValidationError(f"Tag “{shown[:24]}…” is longer than {MAX_TAG_LENGTH} characters.")
        if any(ch in tag for ch in "<>\"'") or not tag.isprintable():
            raise forms.ValidationError(
                f"Tag “{shown}” contains a character tags may not have (< > quotes or control)."
            )
    if len(tags) > MAX_TAGS:
        raise forms.ValidationError(f"At most {MAX_TAGS} tags.")
    return tags


class TagsField(forms.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", "Comma-separated")
        super().__init__(**kwargs)

    def clean(self, value):
        return parse_tags(super().clean(value))


class FilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=1000, label="Search")
    project = forms.CharField(required=False, max_length=200)
    category = forms.ChoiceField(required=False, choices=[("", "Any category"), *Category.choices])
    tier = forms.ChoiceField(required=False, choices=[("", "Any tier"), *Tier.choices])
    tag = forms.CharField(required=False, max_length=MAX_TAG_LENGTH)
    source = forms.CharField(required=False, max_length=200)
    status = forms.ChoiceField(required=False, choices=[*Status.choices, ("all", "All")])
    confirmed = forms.ChoiceField(required=False, choices=[("", "Any"), ("yes", "Confirmed"), ("no", "Unconfirmed")])
    sort = forms.ChoiceField(required=False, choices=list(SORTS.items()))
    page = forms.IntegerField(required=False, min_value=1)

    def filters(self) -> MemoryFilters:
        """The valid part of the query; invalid values are dropped (and reported by the view)."""
        data = self.cleaned_data if self.is_bound else {}
        if self.errors:
            data = {k: v for k, v in data.items() if k not in self.errors}
        return MemoryFilters(
            q=(data.get("q") or "").strip(),
            project=data.get("project") or "",
            category=data.get("category") or "",
            tier=data.get("tier") or "",
            tag=(data.get("tag") or "").strip(),
            source=data.get("source") or "",
            status=data.get("status") or Status.ACTIVE,
            confirmed=data.get("confirmed") or "",
            sort=data.get("sort") or "",
            page=data.get("page") or 1,
        )


def version_of(memory: Memory) -> str:
    """What the form saw; a save against a memory changed since then is refused as stale."""
    return memory.updated_at.isoformat()


class VersionedForm(forms.Form):
    version = forms.CharField(widget=forms.HiddenInput)

    def __init__(self, *args, memory: Memory, **kwargs):
        kwargs.setdefault("prefix", f"m{memory.pk}")
        super().__init__(*args, **kwargs)
        self.memory = memory
        if not self.is_bound:
            self.initial.setdefault("version", version_of(memory))

    def is_stale(self) -> bool:
        return self.is_valid() and self.cleaned_data["version"] != version_of(self.memory)


def importance_field(*, required: bool = True) -> forms.FloatField:
    return forms.FloatField(
        required=required,
        min_value=0.0,
        max_value=1.0,
        widget=forms.NumberInput(attrs={"step": "0.05", "min": "0", "max": "1"}),
    )


class EditTextForm(VersionedForm):
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), max_length=settings.MEMORYHUB_MAX_CONTENT_CHARS, strip=True
    )
    importance = importance_field(required=False)  # left out (an older form, a script): unchanged

    def __init__(self, *args, memory: Memory, **kwargs):
        super().__init__(*args, memory=memory, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("content", memory.content)
            self.initial.setdefault("importance", round(memory.importance, 2))


class NewMemoryForm(forms.Form):
    """A memory written by a person: it goes through the same gate as an agent's write."""

    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}), max_length=settings.MEMORYHUB_MAX_CONTENT_CHARS, strip=True
    )
    project = forms.CharField(required=False, max_length=200, help_text="Empty: a global memory")
    category = forms.ChoiceField(required=False, choices=[("", "(guess)"), *Category.choices])
    tier = forms.ChoiceField(required=False, choices=[("", "(guess)"), *Tier.choices])
    tags = TagsField(label="Tags")
    importance = importance_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["importance"].initial = 0.5


class RetagForm(VersionedForm):
    add_tags = TagsField(label="Add tags")
    remove_tags = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple, label="Remove tags")
    project = forms.CharField(required=False, max_length=200, help_text="Empty: a global memory")
    category = forms.ChoiceField(required=False, choices=CATEGORY_CHOICES)
    tier = forms.ChoiceField(required=False, choices=TIER_CHOICES)

    def __init__(self, *args, memory: Memory, **kwargs):
        super().__init__(*args, memory=memory, **kwargs)
        self.fields["remove_tags"].choices = [(t, t) for t in memory.tags]
        if not self.is_bound:
            self.initial.update({"project": memory.project or "", "category": memory.category, "tier": memory.tier})

    def changes(self) -> dict:
        data = self.cleaned_data
        kept = [t for t in self.memory.tags if t not in set(data["remove_tags"])]
        return {
            "tags": list(dict.fromkeys([*kept, *data["add_tags"]])),
            "project": data["project"].strip() or None,
            "category": data["category"],
            "tier": data["tier"],
        }


class SelectionForm(forms.Form):
    selected = forms.TypedMultipleChoiceField(coerce=int, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Any integer id is acceptable here; the view keeps those that still exist.
        raw = self.data.getlist("selected") if hasattr(self.data, "getlist") else []
        self.fields["selected"].choices = [(v, v) for v in raw]

    def clean_selected(self):
        values = self.cleaned_data["selected"]
        return list(dict.fromkeys(values))


class BulkForm(SelectionForm):
    ACTIONS = ("confirm", "unconfirm", "archive", "restore", "retag", "merge")
    action = forms.ChoiceField(choices=[(a, a) for a in ACTIONS])
    add_tags = TagsField()
    remove_tags = TagsField()
    project = forms.CharField(required=False, max_length=200)
    set_project = forms.BooleanField(required=False)
    category = forms.ChoiceField(required=False, choices=[(KEEP, "(keep)"), *CATEGORY_CHOICES])
    tier = forms.ChoiceField(required=False, choices=[(KEEP, "(keep)"), *TIER_CHOICES])

    def retag_changes(self, memory: Memory) -> dict:
        data = self.cleaned_data
        removed = set(data["remove_tags"])
        changes: dict = {
            "tags": list(dict.fromkeys([*(t for t in memory.tags if t not in removed), *data["add_tags"]]))
        }
        if data["set_project"]:
            changes["project"] = data["project"].strip() or None
        # A field left out of the request, like one left at "(keep)", keeps each memory's own value.
        for name in ("category", "tier"):
            if name in self.data and data[name] != KEEP:
                changes[name] = data[name]
        return changes


class MergeForm(SelectionForm):
    content = forms.CharField(widget=forms.Textarea(attrs={"rows": 5}), max_length=settings.MEMORYHUB_MAX_CONTENT_CHARS)
    category = forms.ChoiceField(required=False, choices=CATEGORY_CHOICES)
    tier = forms.ChoiceField(required=False, choices=TIER_CHOICES)
    tags = TagsField()

    def clean_selected(self):
        values = super().clean_selected()
        if len(values) < 2:
            raise forms.ValidationError("Pick at least two memories to merge.")
        return values


class AcceptProposalForm(forms.Form):
    content = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 4}), max_length=settings.MEMORYHUB_MAX_CONTENT_CHARS
    )


class RunConsolidationForm(forms.Form):
    project = forms.CharField(required=False, max_length=200)
