"""What the login limits keep, and the limit per address.

django-axes records every failed dashboard login with the username typed. People type their password into the
username field often enough (a tab missed, an autofill gone wrong) that a plain username column is a password list:
`login_name` is what axes keeps instead, a keyed hash of the name (HMAC-SHA256 with the install's secret key), so the
lockout per username still counts the same name as one and nothing typed is readable. `scrub_login_records` hashes
the plain names an older install kept and drops the form data axes stored beside them.

Axes' lockout is per username and address; one password sprayed over many usernames from one address would never
be slowed. `address_locked_out` counts the failures of every username from an address inside the cool-off window
against `MEMORYHUB_LOGIN_ADDRESS_FAILURE_LIMIT`.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta

from axes.helpers import get_client_ip_address
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.http import HttpRequest
from django.utils import timezone

HASHED = "h:"  # what a kept name starts with once hashed (a username never does: the form refuses ":")


def hash_login_name(name: str) -> str:
    digest = hmac.new(settings.SECRET_KEY.encode(), name.encode(), hashlib.sha256).hexdigest()
    return f"{HASHED}{digest[:32]}"


def login_name(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """AXES_USERNAME_CALLABLE: the name axes keeps and counts for a login attempt (see the module docstring)."""
    field = settings.AXES_USERNAME_FORM_FIELD
    name = (credentials or {}).get(field) or getattr(request, "POST", {}).get(field)
    return hash_login_name(name) if name else None


def address_locked_out(request: HttpRequest) -> bool:
    """Whether the address has failed MEMORYHUB_LOGIN_ADDRESS_FAILURE_LIMIT logins, whatever the usernames, within
    the cool-off time."""
    address = get_client_ip_address(request)
    if not address:
        return False
    since = timezone.now() - timedelta(hours=settings.AXES_COOLOFF_TIME)
    failures = AccessAttempt.objects.filter(ip_address=address, attempt_time__gte=since).aggregate(
        n=Sum("failures_since_start")
    )["n"]
    return (failures or 0) >= settings.MEMORYHUB_LOGIN_ADDRESS_FAILURE_LIMIT


def scrub_login_records() -> int:
    """Hash every plain username the login records keep and drop the form data beside them; the number changed."""
    changed = 0
    with transaction.atomic():
        for model in (AccessAttempt, AccessFailureLog, AccessLog):
            for record in model.objects.exclude(username__startswith=HASHED).exclude(username__isnull=True):
                record.username = hash_login_name(record.username)
                record.save(update_fields=["username"])
                changed += 1
        changed += AccessAttempt.objects.exclude(post_data="", get_data="").update(post_data="", get_data="")
    return changed
