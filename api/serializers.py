"""Request parsing and the documented answer shapes. Answers are built by `memory_as_dict` and friends, so the
serializers here describe them to the schema and validate input; the domain validates again before writing."""

from __future__ import annotations

import copy

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from memoryhub.memories.validity import parse_moment
from memoryhub.models import Category, ConflictChoice, ProposalKind, ProposalStatus, Status, Tier
from memoryhub.retrieval.recall import BUDGET_CHARS_MAX, BUDGET_CHARS_MIN
from memoryhub.retrieval.search import MODES
from memoryhub.writes.shape import iso, memory_as_dict

OUTCOMES = ("created", "merged", "duplicate", "rejected")


class StrictCharField(serializers.CharField):
    """Text only: DRF's CharField would turn 42 or 3.5 into "42" and store it as a fact."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class MomentField(serializers.DateTimeField):
    """A moment as the domain reads it (`validity.parse_moment`): ISO 8601, a date alone, no zone read as UTC."""

    def to_internal_value(self, value):
        try:
            return parse_moment(value, self.field_name or "moment")
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from exc


def _category(**kw):
    return serializers.ChoiceField(choices=Category.choices, required=False, allow_blank=True, allow_null=True, **kw)


def _tier(**kw):
    return serializers.ChoiceField(choices=Tier.choices, required=False, allow_blank=True, allow_null=True, **kw)


def _project(**kw):
    kw.setdefault("help_text", "The project; omit or null for a global memory (visible from every project).")
    return StrictCharField(required=False, allow_null=True, allow_blank=True, max_length=200, **kw)


def _written_project(**kw):
    """Not trimmed here: a blank project ("   ") is refused by the domain (422), not quietly made global."""
    return _project(trim_whitespace=False, **kw)


def _tags(**kw):
    child = StrictCharField(max_length=64)
    return serializers.ListField(child=child, required=False, allow_null=True, max_length=50, **kw)


class RequestSerializer(serializers.Serializer):
    """A request's fields, validated: what every request body and query string is parsed with.

    DRF deep-copies every declared field for each serializer it makes, which runs each field's `__init__` again:
    for a search that was most of the time spent parsing its body. The declared fields are never bound themselves
    (only the copies are), so a shallow copy of each is as fresh for binding to this serializer; what the copies
    share (validators, choices, a list's child field) is only read while validating. A nested serializer is still
    deep-copied: it keeps the state of its own validation."""

    def get_fields(self):
        return {
            name: copy.deepcopy(field) if isinstance(field, serializers.BaseSerializer) else copy.copy(field)
            for name, field in self._declared_fields.items()
        }


class ContentMixin:
    def validate_content(self, value: str) -> str:
        limit = settings.MEMORYHUB_MAX_CONTENT_CHARS
        if len(value) > limit:
            raise serializers.ValidationError(f"content is {len(value)} characters; the limit is {limit}")
        return value


# --- requests ------------------------------------------------------------------------------------------------


class MemoryCreateSerializer(ContentMixin, RequestSerializer):
    content = StrictCharField(help_text="One fact, true on its own.")
    category = _category(help_text="Guessed from the text when omitted (left empty when unsure).")
    tier = _tier(help_text="Guessed from the text when omitted.")
    importance = serializers.FloatField(required=False, allow_null=True, min_value=0.0, max_value=1.0)
    project = _written_project()
    tags = _tags()
    metadata = serializers.DictField(required=False, allow_null=True, help_text="Any JSON object; returned as given.")
    valid_from = serializers.DateTimeField(
        required=False, allow_null=True,
        help_text="When the fact became true (default: now); of two facts about one thing, the later is current.",
    )  # fmt: skip
    valid_to = MomentField(
        required=False, allow_null=True, help_text="When the fact stops (or stopped) being true; after valid_from."
    )
    expires_at = MomentField(
        required=False, allow_null=True,
        help_text="When the memory leaves search, recall and the tools (a freeze until a date, a week's outage).",
    )  # fmt: skip


class MemoryUpdateSerializer(ContentMixin, RequestSerializer):
    content = StrictCharField(required=False)
    category = _category()
    tier = _tier()
    importance = serializers.FloatField(required=False, min_value=0.0, max_value=1.0)
    project = _written_project()
    tags = _tags()
    metadata = serializers.DictField(required=False)
    confirmed = serializers.BooleanField(required=False)
    status = serializers.ChoiceField(choices=Status.choices, required=False)
    expires_at = MomentField(required=False, allow_null=True, help_text="Move or (null) remove the expiry.")


class MemoryImportItemSerializer(serializers.Serializer):
    """One memory as exported; stored as given. Unknown fields (id, effective_importance, ...) are ignored."""

    content = serializers.CharField()
    category = _category()
    tier = _tier()
    project = _written_project()
    tags = _tags()
    metadata = serializers.DictField(required=False)
    source = serializers.CharField(
        required=False,
        help_text="Kept as given for a token in MEMORYHUB_RESTORE_AGENTS; otherwise the token's agent name.",
    )
    importance = serializers.FloatField(required=False, min_value=0.0, max_value=1.0)
    confirmed = serializers.BooleanField(required=False)
    status = serializers.ChoiceField(choices=Status.choices, required=False)
    created_at = serializers.DateTimeField(required=False)
    updated_at = serializers.DateTimeField(required=False)
    last_accessed_at = serializers.DateTimeField(required=False, allow_null=True)
    access_count = serializers.IntegerField(required=False, min_value=0)
    id = serializers.IntegerField(required=False, help_text="The id in the exported store: remaps merged_into.")
    merged_into = serializers.IntegerField(required=False, allow_null=True)
    valid_from = serializers.DateTimeField(required=False)
    valid_to = serializers.DateTimeField(required=False, allow_null=True)
    expires_at = serializers.DateTimeField(required=False, allow_null=True)
    verified_at = serializers.DateTimeField(required=False)


class MemoryImportSerializer(RequestSerializer):
    memories = serializers.ListField(child=serializers.DictField(), allow_empty=False, max_length=10000)


class MemoryImportDocSerializer(serializers.Serializer):
    memories = MemoryImportItemSerializer(many=True)


class MemoryListQuerySerializer(RequestSerializer):
    project = StrictCharField(required=False, max_length=200, help_text="Exactly this project.")
    category = serializers.ChoiceField(choices=Category.choices, required=False)
    tier = serializers.ChoiceField(choices=Tier.choices, required=False)
    status = serializers.ChoiceField(choices=Status.choices, required=False)
    tag = StrictCharField(required=False, max_length=64, help_text="Only memories with this whole tag, in any case.")
    verified_before = MomentField(
        required=False,
        help_text="Only memories nobody checked since this moment (ISO 8601, or a date); see verified_at.",
    )


def _as_of(what: str):
    return MomentField(
        required=False, allow_null=True,
        help_text=f"{what} as it stood at this moment (ISO 8601): the memories true then, superseded ones included "
        "and later ones left out; each result says in `true_now` whether it still holds.",
    )  # fmt: skip


class SearchRequestSerializer(RequestSerializer):
    query = StrictCharField(max_length=2000)
    project = _project(help_text="Search this project and the global memories; omit for global memories only.")
    k = serializers.IntegerField(required=False, default=10, min_value=1, max_value=100)
    mode = serializers.ChoiceField(choices=[(m, m) for m in MODES], required=False, default="hybrid")
    min_score = serializers.FloatField(
        required=False, allow_null=True, min_value=0.0, max_value=1.0,
        help_text="The relevance floor: the least `explain.match` a result needs (0-1). Default: the "
        "MEMORYHUB_SEARCH_MIN_SCORE setting; 0 returns the k best whatever their relevance.",
    )  # fmt: skip
    category = serializers.ChoiceField(choices=Category.choices, required=False, allow_null=True)
    tier = serializers.ChoiceField(choices=Tier.choices, required=False, allow_null=True)
    tags = _tags(help_text="Only memories carrying all these tags (whole tags, in any case).")
    source = StrictCharField(required=False, allow_null=True, max_length=200, help_text="Only this agent's memories.")
    status = serializers.ChoiceField(
        choices=[*Status.choices, ("any", "any")], required=False, default="active",
        help_text="active (default), archived, superseded, or any.",
    )  # fmt: skip
    include_superseded = serializers.BooleanField(
        required=False, default=False,
        help_text="Also find memories a newer one replaced (what was used before); they answer with `superseded_by`.",
    )  # fmt: skip
    as_of = _as_of("Search the store")


class RecallRequestSerializer(RequestSerializer):
    project = _project(help_text="The project the agent works in; globals are always included.")
    query = StrictCharField(required=False, allow_null=True, allow_blank=True, max_length=2000)
    budget_chars = serializers.IntegerField(required=False, min_value=BUDGET_CHARS_MIN, max_value=BUDGET_CHARS_MAX)
    as_of = _as_of("Recall the facts")


class ToolCallRequestSerializer(RequestSerializer):
    name = StrictCharField(max_length=100)
    arguments = serializers.JSONField(
        required=False, default=dict, help_text="The call's arguments: an object, or a JSON string as models send."
    )
    turn_id = StrictCharField(
        required=False, allow_null=True, allow_blank=True, max_length=200,
        help_text="The conversation turn; at most MEMORYHUB_TOOL_CALLS_PER_TURN calls per turn are run.",
    )  # fmt: skip
    project = _project(
        help_text="Default project for calls that do not name one (else the token's only project, or the server's "
        "MEMORYHUB_DEFAULT_PROJECT)."
    )


class ProposalListQuerySerializer(RequestSerializer):
    status = serializers.ChoiceField(choices=ProposalStatus.choices, required=False)
    kind = serializers.ChoiceField(choices=ProposalKind.choices, required=False, help_text="merge or conflict")


class ProposalRunSerializer(RequestSerializer):
    project = _project(help_text="Consolidate this project only; omit for every project the token may touch.")


class ProposalAcceptSerializer(RequestSerializer):
    content = StrictCharField(required=False, allow_null=True, help_text="The merged text, edited; omit to keep it.")
    choice = serializers.ChoiceField(
        choices=ConflictChoice.choices, required=False, allow_null=True,
        help_text="A conflict's answer: newer (default; the older is superseded), older (the newer is superseded) or "
        "both (two different facts; never asked again). A merge proposal takes none (400).",
    )  # fmt: skip


class ExportQuerySerializer(RequestSerializer):
    format = serializers.ChoiceField(
        choices=[("jsonl", "jsonl"), ("markdown", "markdown"), ("mcp-memory", "mcp-memory")], required=False
    )


# --- answers -------------------------------------------------------------------------------------------------


class MemorySerializer(serializers.Serializer):
    """The full shape of a memory, described for the schema: one field per key of `memory_as_dict`, in its order.
    Output is `memory_as_dict` itself, never built here."""

    id = serializers.IntegerField()
    content = serializers.CharField()
    category = serializers.ChoiceField(choices=[*Category.choices, ("", "")])
    tier = serializers.ChoiceField(choices=[*Tier.choices, ("", "")])
    project = serializers.CharField(allow_null=True)
    tags = serializers.ListField(child=serializers.CharField())
    metadata = serializers.DictField()
    source = serializers.CharField()
    importance = serializers.FloatField()
    effective_importance = serializers.FloatField()
    confirmed = serializers.BooleanField()
    status = serializers.ChoiceField(choices=Status.choices)
    embed_model = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    last_accessed_at = serializers.DateTimeField(allow_null=True)
    access_count = serializers.IntegerField()
    merged_into = serializers.IntegerField(allow_null=True)
    valid_from = serializers.DateTimeField(help_text="When the fact became true.")
    supersedes = serializers.ListField(child=serializers.IntegerField(), help_text="The memories this one replaced.")
    superseded_by = serializers.IntegerField(allow_null=True, help_text="The memory that replaced this one.")
    valid_to = serializers.DateTimeField(
        allow_null=True, help_text="When the fact stopped being true (null while current; the successor's valid_from)."
    )
    expires_at = serializers.DateTimeField(allow_null=True, help_text="When it leaves search, recall and the tools.")
    verified_at = serializers.DateTimeField(
        help_text="When someone last checked it: made, confirmed or edited by a person, or written again by an agent."
    )

    def to_representation(self, instance):
        return memory_as_dict(instance)


class WriteResultSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(choices=[(o, o) for o in OUTCOMES])
    memory = MemorySerializer(allow_null=True)
    reason = serializers.CharField()
    warnings = serializers.ListField(child=serializers.CharField(), required=False)
    supersedes = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="Memories this write replaced (now superseded)."
    )
    conflicts = serializers.ListField(
        child=serializers.IntegerField(), required=False,
        help_text="Conflict proposals this write put to a person (which is current?).",
    )  # fmt: skip


class ImportResultSerializer(serializers.Serializer):
    imported = serializers.IntegerField()
    ids = serializers.ListField(child=serializers.IntegerField())


class SearchResultSerializer(MemorySerializer):
    score = serializers.FloatField()
    explain = serializers.DictField()


class SearchResponseSerializer(serializers.Serializer):
    results = SearchResultSerializer(many=True)


class RecallResponseSerializer(serializers.Serializer):
    text = serializers.CharField()
    memory_ids = serializers.ListField(child=serializers.IntegerField())


class EventSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    memory_id = serializers.IntegerField()
    action = serializers.CharField()
    actor = serializers.CharField()
    actor_kind = serializers.ChoiceField(
        choices=["agent", "person", "system"], help_text="agent (an API token), person (a login) or system"
    )
    before = serializers.DictField(allow_null=True)
    after = serializers.DictField(allow_null=True)
    note = serializers.CharField()
    created_at = serializers.DateTimeField()


class HistoryResponseSerializer(serializers.Serializer):
    memory_id = serializers.IntegerField()
    events = EventSerializer(many=True)


class ToolsResponseSerializer(serializers.Serializer):
    tools = serializers.ListField(child=serializers.DictField(), help_text="OpenAI function-calling tool schemas.")


class ToolCallResponseSerializer(serializers.Serializer):
    name = serializers.CharField()
    ok = serializers.BooleanField()
    limited = serializers.BooleanField(help_text="True when the per-turn limit stopped the call.")
    calls_in_turn = serializers.IntegerField()
    result = serializers.DictField(help_text="What to hand back to the model.")


class ProposalSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=ProposalStatus.choices)
    kind = serializers.ChoiceField(choices=ProposalKind.choices, help_text="merge, or conflict (which is current?)")
    choice = serializers.ChoiceField(choices=[*ConflictChoice.choices, ("", "")], help_text="A decided conflict's.")
    sources = serializers.ListField(child=serializers.IntegerField())
    content = serializers.CharField()
    category = serializers.ChoiceField(choices=[*Category.choices, ("", "")])
    tier = serializers.ChoiceField(choices=[*Tier.choices, ("", "")])
    tags = serializers.ListField(child=serializers.CharField())
    importance = serializers.FloatField()
    rationale = serializers.CharField()
    merged_memory = serializers.IntegerField(allow_null=True)
    project = serializers.CharField(allow_null=True)
    generator = serializers.CharField()
    created_at = serializers.DateTimeField()
    decided_at = serializers.DateTimeField(allow_null=True)
    decided_by = serializers.CharField()

    def to_representation(self, instance):
        return proposal_as_dict(instance)


class ProposalDecisionSerializer(ProposalSerializer):
    memory = MemorySerializer(required=False, allow_null=True, help_text="The merged memory, once accepted.")


class ProposalRunResponseSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    proposals = ProposalSerializer(many=True)


class HealthSerializer(serializers.Serializer):
    status = serializers.CharField()
    memories = serializers.IntegerField()
    embed_model = serializers.CharField()


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="A stable word: invalid, not_authenticated, forbidden, not_found, ...")
    message = serializers.CharField(help_text="What went wrong, for a person.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), help_text="Each bad field and why."
    )


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


class RejectedWriteSerializer(WriteResultSerializer):
    error = ErrorDetailSerializer()


def proposal_as_dict(proposal) -> dict:
    return {
        "id": proposal.pk,
        "status": proposal.status,
        "kind": proposal.kind,
        "choice": proposal.choice,
        "sources": list(proposal.sources or []),
        "content": proposal.content,
        "category": proposal.category,
        "tier": proposal.tier,
        "tags": list(proposal.tags or []),
        "importance": proposal.importance,
        "rationale": proposal.rationale,
        "merged_memory": proposal.merged_memory_id,
        "project": proposal.project,
        "generator": proposal.generator,
        "created_at": iso(proposal.created_at),
        "decided_at": iso(proposal.decided_at),
        "decided_by": proposal.decided_by,
    }
