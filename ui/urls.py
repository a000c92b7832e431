from django.contrib.auth import views as auth_views
from django.urls import include, path, register_converter

from ui.ids import IdConverter
from ui.views import (
    bulk,
    changes,
    checking,
    held,
    hooks,
    insights,
    login,
    memories,
    review,
    supersessions,
    team,
    writing,
)

register_converter(IdConverter, "id")  # row ids: ASCII digits in any database's range (ui/ids.py)

dashboard_patterns = [
    path("", memories.memory_list, name="memories"),
    path("counters/", memories.counters, name="counters"),
    path("memories/bulk/", bulk.bulk, name="bulk"),
    path("memories/merge/", bulk.merge, name="merge"),
    path("demo/remove/", bulk.remove_demo, name="remove_demo"),
    path("memories/new/", writing.new_memory, name="new_memory"),
    path("memories/<id:pk>/", memories.memory_detail, name="memory"),
    path("memories/<id:pk>/row/", memories.memory_row, name="row"),
    path("memories/<id:pk>/edit/", memories.edit, name="edit"),
    path("memories/<id:pk>/retag/", memories.retag, name="retag"),
    path("memories/<id:pk>/confirm/", memories.confirm, name="confirm"),
    path("memories/<id:pk>/archive/", memories.archive, name="archive"),
    path("memories/<id:pk>/restore/", memories.restore, name="restore"),
    path("memories/<id:pk>/refresh/", memories.refresh, name="refresh"),
    path("memories/<id:pk>/delete/", memories.delete, name="delete"),
    path("proposals/", review.proposals, name="proposals"),
    path("proposals/run/", review.run_consolidation_pass, name="run_consolidation"),
    path("proposals/reject/", review.reject_selected, name="reject_selected"),
    path("proposals/<id:pk>/accept/", review.accept, name="accept"),
    path("proposals/<id:pk>/reject/", review.reject, name="reject"),
    path("proposals/<id:pk>/undo/", review.undo, name="undo"),
    path("decay/", insights.decay, name="decay"),
    path("decay/sweep/", insights.decay_sweep, name="decay_sweep"),
    path("decay/sweep/preview/", insights.decay_sweep_preview, name="decay_sweep_preview"),
    path("decay/sweep/undo/", insights.decay_undo_sweep, name="decay_undo_sweep"),
    path("gate/", review.gate_log, name="gate"),
    path("gate/<id:pk>/promote/", review.promote, name="promote"),
    path("supersessions/", supersessions.supersessions, name="supersessions"),
    path("supersessions/<id:pk>/restore/", supersessions.restore_supersession, name="restore_supersession"),
    path("changes/", changes.inbox, name="changes"),
    path("checking/", checking.checking, name="checking"),
    path("checking/<id:pk>/confirm/", checking.check_memory, name="check_memory"),
    path("memories/<id:pk>/expiry/", checking.expiry, name="expiry"),
    path("held/", held.held_inbox, name="held"),
    path("held/<id:pk>/approve/", held.held_approve, name="held_approve"),
    path("held/<id:pk>/discard/", held.held_discard, name="held_discard"),
    path("overview/", insights.overview, name="overview"),
    path("activity/", team.activity_index, name="activity_index"),
    path("projects/<str:project>/activity/", team.project_activity, name="activity"),
    path("tokens/", team.token_list, name="tokens"),
    path("tokens/new/", team.token_create, name="token_create"),
    path("tokens/<id:pk>/revoke/", team.token_revoke, name="token_revoke"),
    path("tokens/<id:pk>/trust/", team.token_trust, name="token_trust"),
    path("webhooks/", hooks.webhook_list, name="webhooks"),
    path("webhooks/new/", hooks.webhook_create, name="webhook_create"),
    path("webhooks/<id:pk>/remove/", hooks.webhook_remove, name="webhook_remove"),
    path("people/", team.people, name="people"),
    path("people/new/", team.person_create, name="person_create"),
    path("people/grant/", team.grant, name="grant"),
    path("people/revoke/", team.revoke_role, name="revoke_role"),
]

urlpatterns = [
    # Django's login and logout stay outside the "ui" namespace, so LOGIN_URL = "login" resolves.
    path("login/", login.login, name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    # The one-time set-password link a new person gets (memoryhub/people/persons.py): Django's reset machinery.
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(post_reset_login=False),
        name="password_reset_confirm",
    ),
    path("reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    path("", include((dashboard_patterns, "ui"))),
]
