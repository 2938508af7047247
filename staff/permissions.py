"""Who may work in the staff console: active staff with ``chat.handle_handoff``."""

PERMISSION = "chat.handle_handoff"


def may_handle_handoffs(user) -> bool:
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_active
        and user.is_staff
        and user.has_perm(PERMISSION)
    )
