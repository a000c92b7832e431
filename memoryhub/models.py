"""The memory store's rows. The full-text and vector tables beside them are created in migrations (their SQL is in
memoryhub/storage/sqlite/schema.py and memoryhub/storage/postgres/schema.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Case, ExpressionWrapper, F, FloatField, Func, Q, Value, When
from django.db.models.functions import Coalesce, Greatest, Least
from django.utils import timezone

from memoryhub.storage.functions import JulianDay

# --- Effective importance: importance that fades unless used -------------------------------------------------------
# effective = importance x rate ** days since last referenced. The one home of the rule, beside the row it describes
# (memories/decay.py names it again for the sweep). Computed at read time, so it is always current and nothing has to
# run for it to be right. Every reader goes through here: `Memory.effective_importance`, the decay sweep
# (`effective_from_row`), search's candidate rows (`effective_value`) and the dashboard's importance ordering
# (`effective_importance_expression`, the same rule as an SQL expression so the database can order by it).
# The rule, once:
# - the moment a memory was last referenced is the later of its last access and its last edit (its creation when
#   neither happened; `CLOCK_FIELDS`): a person's edit or restore restarts the clock without counting as a use;
# - the rate is the memory's category's if one is configured, else its tier's, else the default (`rate_tables`);
# - a confirmed memory never falls below min(importance, MEMORYHUB_CONFIRMED_FLOOR).

# The decay clock: the latest of these that is set is the moment the memory was last referenced. Not "the first
# set": undoing a sweep must restart the clock of a memory an agent once used without faking a new use.
CLOCK_FIELDS = ("last_accessed_at", "updated_at", "created_at")
# Effective importance is rounded to this many places. The SQL form is not rounded; a reader that compares it
# with a boundary (a band, the threshold) adds HALF_UNIT first, so both forms fall on the same side of it.
PLACES = 6
HALF_UNIT = 0.5 * 10**-PLACES
# What effective importance needs of a row (for `.values(*EFFECTIVE_FIELDS)` and `.only(...)`).
EFFECTIVE_FIELDS = ("pk", "importance", "category", "tier", "confirmed", *CLOCK_FIELDS)


def rate_tables() -> list[tuple[str, Mapping[str, float]]]:
    """The configured rates by field, in precedence order: the category's rate wins over the tier's."""
    return [
        ("category", settings.MEMORYHUB_DECAY_CATEGORY_RATES),
        ("tier", settings.MEMORYHUB_DECAY_TIER_RATES),
    ]


@dataclass(frozen=True)
class DecayRates:
    """The configured rates and the confirmed floor, read from the settings once: a search dates ~100 candidate
    rows at one moment, and reading five settings for each of them was a tenth of its Python time."""

    tables: tuple[tuple[str, Mapping[str, float]], ...]
    default: float
    confirmed_floor: float

    @classmethod
    def configured(cls) -> DecayRates:
        return cls(tuple(rate_tables()), settings.MEMORYHUB_DECAY_DEFAULT_RATE, settings.MEMORYHUB_CONFIRMED_FLOOR)

    def rate(self, category: str, tier: str) -> float:
        values = {"category": category, "tier": tier}
        for field_name, rates in self.tables:
            value = values[field_name]
            if value and value in rates:
                return rates[value]
        return self.default


def decay_rate(category: str, tier: str) -> float:
    return DecayRates.configured().rate(category, tier)


def last_referenced(last_accessed_at: datetime | None, updated_at: datetime | None, created_at: datetime) -> datetime:
    """The decay clock's start (see CLOCK_FIELDS)."""
    edited = updated_at or created_at
    return max(last_accessed_at, edited) if last_accessed_at else edited


def days_since(moment: datetime, now: datetime | None = None) -> float:
    now = now or timezone.now()
    return max(0.0, (now - moment).total_seconds() / 86400.0)


def decayed(importance: float, rate: float, days: float, confirmed: bool, floor: float | None = None) -> float:
    """`floor`: the confirmed floor (MEMORYHUB_CONFIRMED_FLOOR when not given)."""
    value = importance * rate**days
    if confirmed:
        value = max(value, min(importance, settings.MEMORYHUB_CONFIRMED_FLOOR if floor is None else floor))
    return round(value, PLACES)


def effective_value(
    *,
    importance: float,
    category: str,
    tier: str,
    confirmed: bool,
    referenced_at: datetime,
    now: datetime | None = None,
    rates: DecayRates | None = None,
) -> float:
    """Effective importance from a memory's plain values (for callers that read columns, not instances). `rates`:
    the settings as read once for many rows (`DecayRates.configured()`), read now when not given."""
    rates = rates or DecayRates.configured()
    days = days_since(referenced_at, now)
    return decayed(importance, rates.rate(category, tier), days, confirmed, rates.confirmed_floor)


def effective_from_row(row: Mapping[str, Any], now: datetime | None = None) -> float:
    """Effective importance of a `.values(*EFFECTIVE_FIELDS)` row."""
    return effective_value(
        importance=row["importance"],
        category=row["category"],
        tier=row["tier"],
        confirmed=row["confirmed"],
        referenced_at=last_referenced(*(row[name] for name in CLOCK_FIELDS)),
        now=now,
    )


def effective_importance(memory, now: datetime | None = None) -> float:
    return effective_value(
        importance=memory.importance,
        category=memory.category,
        tier=memory.tier,
        confirmed=memory.confirmed,
        referenced_at=memory.last_referenced_at,
        now=now,
    )


def effective_importance_expression(now: datetime | None = None):
    """The same rule as an ORM expression over the memory table, so the database orders 10k rows by it in milliseconds.

    Built from `rate_tables` and CLOCK_FIELDS like the Python function; `pow` (SQLite: a compile-time
    option) is needed to evaluate it. The value agrees with `effective_importance` to rounding (it is not
    rounded to 6 places), which the tests pin on a grid of memories.
    """
    now = now or timezone.now()
    rate = Case(
        *[
            When(**{field_name: name}, then=Value(value))
            for field_name, rates in rate_tables()
            for name, value in rates.items()
            if name
        ],
        default=Value(settings.MEMORYHUB_DECAY_DEFAULT_RATE),
        output_field=FloatField(),
    )
    # Greatest of NULL is NULL on SQLite: each side falls back to a field that is always set.
    clock = JulianDay(Greatest(Coalesce(*CLOCK_FIELDS), Coalesce(*CLOCK_FIELDS[1:])))
    now_julian = now.timestamp() / 86400.0 + 2440587.5  # the same instant on SQLite's julianday scale (UTC)
    days = Greatest(Value(0.0), ExpressionWrapper(Value(now_julian) - clock, output_field=FloatField()))
    decayed_value = ExpressionWrapper(F("importance") * Func(rate, days, function="pow"), output_field=FloatField())
    floor = Least(F("importance"), Value(settings.MEMORYHUB_CONFIRMED_FLOOR), output_field=FloatField())
    return Case(
        When(confirmed=True, then=Greatest(decayed_value, floor, output_field=FloatField())),
        default=decayed_value,
        output_field=FloatField(),
    )


class Category(models.TextChoices):
    FACT = "fact"
    DECISION = "decision"
    SKILL = "skill"
    REFERENCE = "reference"
    PREFERENCE = "preference"
    PERSON = "person"
    ENVIRONMENT = "environment"
    PROJECT = "project"
    GOTCHA = "gotcha"


class Tier(models.TextChoices):
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    EPISODIC = "episodic"


class Status(models.TextChoices):
    ACTIVE = "active"
    ARCHIVED = "archived"
    # Replaced by a newer memory (`superseded_by`): kept and restorable, out of search and recall by default.
    SUPERSEDED = "superseded"
    # Held for a person's review (a planted instruction, or a write of an untrusted token): kept, out of search,
    # recall, the tools and consolidation until approved (memories/holds.py); `held_reason` says why.
    QUARANTINED = "quarantined"


class MemoryQuerySet(models.QuerySet):
    def visible_from(self, project: str | None) -> MemoryQuerySet:
        """A project sees its own memories and the global ones; no project means globals only."""
        if project:
            return self.filter(Q(project=project) | Q(project__isnull=True))
        return self.filter(project__isnull=True)

    def in_projects(self, projects: list[str] | None) -> MemoryQuerySet:
        """Restrict to what a project-scoped token may see (None: everything)."""
        if projects is None:
            return self
        return self.filter(Q(project__in=projects) | Q(project__isnull=True))

    def active(self) -> MemoryQuerySet:
        return self.filter(status=Status.ACTIVE)

    def unexpired(self, now: datetime | None = None) -> MemoryQuerySet:
        """Not past `expires_at` (the SQL of search says the same: `storage.filters`)."""
        return self.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now or timezone.now()))

    def true_at(self, moment: datetime) -> MemoryQuerySet:
        """The memories whose fact held at `moment`: begun by then, not yet ended or expired (superseded included)."""
        ended = Q(valid_to__isnull=True) | Q(valid_to__gt=moment)
        return self.filter(ended, valid_from__lte=moment).unexpired(moment)


class Memory(models.Model):
    content = models.TextField()
    category = models.CharField(max_length=20, choices=Category.choices, blank=True, default="")
    tier = models.CharField(max_length=20, choices=Tier.choices, blank=True, default="")
    # NULL project = global: visible from every project.
    project = models.CharField(max_length=200, null=True, blank=True, db_index=True)
    tags = models.JSONField(default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    source = models.CharField(max_length=200, blank=True, default="")
    importance = models.FloatField(default=0.5)
    confirmed = models.BooleanField(default=False)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE, db_index=True)
    # Which model made this row's vector; '' means it has none yet (content changed outside the domain).
    embed_model = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(default=timezone.now)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    access_count = models.PositiveIntegerField(default=0)
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged_from"
    )
    # The memory that replaced this one (status superseded); its reverse, `supersedes_set`, is what it replaced.
    # DO_NOTHING: a successor leaves through `memories.chain.release_successors`, never by Django nulling the link;
    # a delete that skipped it fails at commit on the table's own (deferred) foreign key instead of breaking the chain.
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.DO_NOTHING, related_name="supersedes_set"
    )
    # When the fact became true (the write's time unless the writer says otherwise): what "newer" means. Nullable
    # in the table only so SQLite can add the column in place (a NOT NULL column rebuilds the table, dropping
    # its FTS and change-log triggers); every write fills it and the migration fills the rows before it.
    valid_from = models.DateTimeField(default=timezone.now, null=True, blank=True)
    # When the fact stopped being true: null while current, the successor's valid_from once superseded (or what
    # the writer said). Rules in memories/validity.py; nullable so SQLite adds these columns in place, as above.
    valid_to = models.DateTimeField(null=True, blank=True)
    # Past this moment the memory leaves search, recall and the tools at once (a condition of every search, no sweep).
    expires_at = models.DateTimeField(null=True, blank=True)
    # When someone last checked the fact: its creation, a person's confirm or edit, an agent writing it again.
    verified_at = models.DateTimeField(default=timezone.now, null=True, blank=True)
    # Why the memory waits for a person (status quarantined); null otherwise. Nullable for the same reason as above.
    held_reason = models.TextField(null=True, blank=True)

    objects = MemoryQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["project", "status"]), models.Index(fields=["embed_model"])]
        constraints = [
            models.CheckConstraint(condition=Q(importance__gte=0.0) & Q(importance__lte=1.0), name="importance_0_1"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.content[:60]}"

    @property
    def last_referenced_at(self):
        return last_referenced(self.last_accessed_at, self.updated_at, self.created_at)

    @property
    def effective_importance(self) -> float:
        return effective_importance(self)


class MemoryEvent(models.Model):
    """One change to a memory: who, what, before and after. Kept after the memory is deleted."""

    memory_id = models.BigIntegerField(db_index=True)
    action = models.CharField(max_length=40)
    actor = models.CharField(max_length=200, blank=True, default="")
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    note = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["created_at", "id"]


class ProposalStatus(models.TextChoices):
    PENDING = "pending"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    UNDONE = "undone"
    STALE = "stale"  # a source changed or went away before anyone decided: closed by itself


class ProposalKind(models.TextChoices):
    MERGE = "merge"  # these sources say the same thing: merge them into `content`
    CONFLICT = "conflict"  # two sources (older first) disagree: which is current?


class ConflictChoice(models.TextChoices):
    NEWER = "newer"  # the newer is current: the older is superseded by it
    OLDER = "older"  # the older is current: the newer is superseded by it
    BOTH = "both"  # two different facts: both stay, and this pair is never asked about again


def source_mark(memory: Memory) -> dict[str, str | None]:
    """What a proposal remembers of a source when it is made: a hash of its text, its project and its status. A
    source whose mark differs when someone decides changed since, and the proposal is stale."""
    text = hashlib.sha256(memory.content.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return {"text": text, "project": memory.project, "status": memory.status}


class Proposal(models.Model):
    """A proposal a person decides: merge these source memories into this text, or (kind conflict) which of two
    disagreeing memories is current."""

    status = models.CharField(
        max_length=20, choices=ProposalStatus.choices, default=ProposalStatus.PENDING, db_index=True
    )
    kind = models.CharField(max_length=20, choices=ProposalKind.choices, default=ProposalKind.MERGE, db_index=True)
    choice = models.CharField(max_length=20, choices=ConflictChoice.choices, blank=True, default="")  # conflicts
    sources = models.JSONField(default=list)  # memory ids, ascending (a conflict's: older first)
    # {"<memory id>": source_mark(memory)} when the proposal was made; {} for proposals made before marks existed.
    source_marks = models.JSONField(default=dict, blank=True)
    # Sorted source ids joined with ',': a cluster once proposed or rejected is not proposed again.
    cluster_key = models.CharField(max_length=2000, db_index=True)
    project = models.CharField(max_length=200, null=True, blank=True)
    content = models.TextField()
    category = models.CharField(max_length=20, choices=Category.choices, blank=True, default="")
    tier = models.CharField(max_length=20, choices=Tier.choices, blank=True, default="")
    tags = models.JSONField(default=list, blank=True)
    importance = models.FloatField(default=0.5)
    rationale = models.TextField(blank=True, default="")
    generator = models.CharField(max_length=200, blank=True, default="deterministic")
    merged_memory = models.ForeignKey(Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]

    def mark_sources(self, memories: list[Memory]) -> None:
        """Remember each source as it is now (before the proposal is saved)."""
        self.source_marks = {str(m.pk): source_mark(m) for m in memories}


class ApiToken(models.Model):
    """One agent's bearer token. Only a hash is stored; the token is shown once, when created."""

    name = models.CharField(max_length=200)
    token_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=16, blank=True, default="")
    projects = models.JSONField(null=True, blank=True)  # None: every project
    read_only = models.BooleanField(default=False)
    # An untrusted source (a scraper, a browsing agent, a shared bot): its writes wait for a person's review.
    untrusted = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.name

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def may_see(self, project: str | None) -> bool:
        return project is None or self.projects is None or project in self.projects


class GateDecision(models.TextChoices):
    REJECTED = "rejected"
    DUPLICATE = "duplicate"
    MERGED = "merged"
    WARNED = "warned"


class GateLogEntry(models.Model):
    """A write the gate refused or folded. Secrets are never stored here: only the kind of secret."""

    decision = models.CharField(max_length=20, choices=GateDecision.choices, db_index=True)
    reason = models.TextField()
    kind = models.CharField(max_length=40, blank=True, default="")  # noise, secret, duplicate, ...
    content = models.TextField(blank=True, default="")
    payload = models.JSONField(default=dict, blank=True)  # the rest of the write (category, tags, ...)
    project = models.CharField(max_length=200, null=True, blank=True)
    source = models.CharField(max_length=200, blank=True, default="")
    memory = models.ForeignKey(Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    promoted_to = models.ForeignKey(Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]


class UsageRecord(models.Model):
    """One agent call worth counting on the overview: writes, searches, recalls, tool calls, proxy requests."""

    agent = models.CharField(max_length=200, db_index=True)
    kind = models.CharField(max_length=40, db_index=True)
    project = models.CharField(max_length=200, null=True, blank=True)
    recall_chars = models.PositiveIntegerField(default=0)
    tool_calls = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0.0)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at"]


class Role(models.TextChoices):
    """A person's role in one project; each role can do what the one before it can (memoryhub/people/roles.py)."""

    VIEWER = "viewer"
    CURATOR = "curator"
    OWNER = "owner"


class Membership(models.Model):
    """A person's role in a project. Hub admins (`is_superuser`) need none: they see and do everything."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    project = models.CharField(max_length=200)
    role = models.CharField(max_length=20, choices=Role.choices)
    granted_at = models.DateTimeField(default=timezone.now)
    granted_by = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "project"], name="one_role_per_project")]
        indexes = [models.Index(fields=["project"])]

    def __str__(self) -> str:
        return f"{self.user_id} {self.role} of {self.project}"


class Webhook(models.Model):
    """A receiver told of changes (memoryhub/operations/webhooks.py): the change log's events past `cursor`, in order,
    signed with `secret`. Only a project's events when `project` is set; every project's when it is not."""

    url = models.CharField(max_length=2000)
    project = models.CharField(max_length=200, null=True, blank=True, db_index=True)
    events = models.JSONField(default=list)  # the event names it is sent, e.g. ["memory.created"]
    secret = models.CharField(max_length=100)
    created_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    # The id of the last change-log event handled (sent, or not for this hook); new hooks start at the log's end.
    cursor = models.BigIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)  # failed tries in a row of the event at the cursor
    next_attempt_at = models.DateTimeField(null=True, blank=True)  # after a failure: not before then

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.url}"


class WebhookDelivery(models.Model):
    """One try to deliver one event to one hook: the delivery log."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40)
    event_id = models.BigIntegerField()  # the change-log event (X-MemoryHub-Delivery): a receiver's dedupe key
    memory_id = models.BigIntegerField(null=True, blank=True)
    attempt = models.PositiveIntegerField(default=1)
    ok = models.BooleanField(default=False)
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True, default="")
    duration_ms = models.FloatField(default=0.0)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
